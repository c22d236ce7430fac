//! Profile updates: a flow moved from one profile to another (DPDK's
//! `rte_mtr_meter_profile_update`, for one flow's state).
//!
//! The tokens are carried over exactly in bytes, rounded down to the new
//! profile's unit (never more than the flow had), capped at the new bucket
//! sizes; the buckets are first refilled to `now` under the old profile, and
//! the clock is kept (the Rust `move_to` of each state states the rule).

use super::*;

/// The shared body of the `*_profile_update` calls.
///
/// # Safety
/// `m` is NULL or a state struct `O` holding an `S` and used by this call only;
/// `old` and `new` are NULL or profile structs `PO`.
#[inline]
unsafe fn update<O, S, PO, P>(
    m: *mut O,
    old: *const PO,
    new: *const PO,
    tag: u64,
    now: u64,
    f: impl FnOnce(&mut S, &P, &P, Instant),
) -> c_int {
    // SAFETY: caller contract, passed on.
    let (Some(old), Some(new)) = (unsafe { profile::<PO, P>(old, tag) }, unsafe {
        profile::<PO, P>(new, tag)
    }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: caller contract, passed on.
    let Some(m) = (unsafe { state::<O, S>(m) }) else {
        return NETCOND_E_NULL;
    };
    f(m, old, new, Instant::from_ticks(now));
    NETCOND_OK
}

/// Moves srTCM flow `m` from profile `old_profile` to `new_profile` at `now`:
/// C and E refilled to `now` under the old profile, then carried over exactly
/// in bytes (rounded down to the new unit) and capped at the new CBS and EBS;
/// the last update time kept. The flow is colored with `new_profile` from then
/// on. Returns 0 or `NETCOND_E_NULL` (a NULL or unconfigured argument; `m` is
/// then unchanged).
///
/// # Safety
/// `m`, `old_profile` and `new_profile` are NULL or point to valid structs; `m`
/// is used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_profile_update(
    m: *mut netcond_srtcm,
    old_profile: *const netcond_srtcm_profile,
    new_profile: *const netcond_srtcm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { update(m, old_profile, new_profile, TAG_SRTCM, now, SrTcm::move_to) }
}

/// Moves trTCM flow `m` from `old_profile` to `new_profile` at `now`, as
/// `netcond_srtcm_profile_update` does (C and P each carried into its own new
/// unit, capped at the new CBS and PBS).
///
/// # Safety
/// As `netcond_srtcm_profile_update`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_profile_update(
    m: *mut netcond_trtcm,
    old_profile: *const netcond_trtcm_profile,
    new_profile: *const netcond_trtcm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { update(m, old_profile, new_profile, TAG_TRTCM, now, TrTcm::move_to) }
}

/// Moves RFC 4115 flow `m` from `old_profile` to `new_profile` at `now`, as
/// `netcond_srtcm_profile_update` does (C and E capped at the new CBS and
/// EBS; the new profile's tie rule from the next packet on).
///
/// # Safety
/// As `netcond_srtcm_profile_update`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_profile_update(
    m: *mut netcond_rfc4115,
    old_profile: *const netcond_rfc4115_profile,
    new_profile: *const netcond_rfc4115_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        update(
            m,
            old_profile,
            new_profile,
            TAG_RFC4115,
            now,
            Rfc4115::move_to,
        )
    }
}

/// Moves premium policer `m` from `old_profile` to `new_profile` at `now`: the
/// token count as `netcond_srtcm_profile_update` carries it (capped at the new
/// TBs); the premium buffer's occupancy kept.
///
/// # Safety
/// As `netcond_srtcm_profile_update`.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_profile_update(
    m: *mut netcond_policer,
    old_profile: *const netcond_policer_profile,
    new_profile: *const netcond_policer_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        update(
            m,
            old_profile,
            new_profile,
            TAG_POLICER,
            now,
            PremiumPolicer::move_to,
        )
    }
}

/// Moves compact srTCM flow `m` from `old_profile` to `new_profile` at `now`,
/// as `netcond_srtcm_profile_update` does.
///
/// # Safety
/// As `netcond_srtcm_profile_update`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_profile_update(
    m: *mut netcond_srtcm_compact,
    old_profile: *const netcond_srtcm_compact_profile,
    new_profile: *const netcond_srtcm_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        update(
            m,
            old_profile,
            new_profile,
            TAG_SRTCM_COMPACT,
            now,
            Compact::<SrTcm>::move_to,
        )
    }
}

/// Moves compact trTCM flow `m` from `old_profile` to `new_profile` at `now`,
/// as `netcond_trtcm_profile_update` does.
///
/// # Safety
/// As `netcond_srtcm_profile_update`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_profile_update(
    m: *mut netcond_trtcm_compact,
    old_profile: *const netcond_trtcm_compact_profile,
    new_profile: *const netcond_trtcm_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        update(
            m,
            old_profile,
            new_profile,
            TAG_TRTCM_COMPACT,
            now,
            Compact::<TrTcm>::move_to,
        )
    }
}

/// Moves compact RFC 4115 flow `m` from `old_profile` to `new_profile` at
/// `now`, as `netcond_rfc4115_profile_update` does.
///
/// # Safety
/// As `netcond_srtcm_profile_update`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_profile_update(
    m: *mut netcond_rfc4115_compact,
    old_profile: *const netcond_rfc4115_compact_profile,
    new_profile: *const netcond_rfc4115_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        update(
            m,
            old_profile,
            new_profile,
            TAG_RFC4115_COMPACT,
            now,
            Compact::<Rfc4115>::move_to,
        )
    }
}
