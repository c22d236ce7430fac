//! Adaptive RED (Floyd, Gummadi and Shenker 2001): a profile of constants
//! shared by any number of queues, and a per-queue state whose max_p adapts
//! toward a target band of the average.

use super::*;

/// Validates `params` with the adaptation interval `interval_ns` (in
/// nanoseconds, converted once to whole ticks of `params->tick_hz`, rounded
/// down; 0.5 s in the paper) and writes the Adaptive RED profile to `p`. The
/// profile's `max_p` is the one every queue starts from.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_ENUM`, `NETCOND_E_TICK`,
/// `NETCOND_E_RED_ZERO_INTERVAL` (an interval below one tick) or another
/// `NETCOND_E_RED_*` code; on error `p` is left unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_profile_config(
    p: *mut netcond_adaptive_red_profile,
    params: *const netcond_red_params,
    interval_ns: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::configure(p, params, TAG_ADAPTIVE_PROFILE, |a| {
            let cfg = AdaptiveRedConfig::new(red_cfg(a)?, Duration::from_nanos(interval_ns));
            AdaptiveRedProfile::new(&cfg).map_err(red_code)
        })
    }
}

/// Starts Adaptive RED queue state `q` on profile `p` at `now`: the profile's
/// max_p, average 0, idle since `now`, adapting from `now` on. Returns 0 or
/// `NETCOND_E_NULL` (a NULL or unconfigured argument; `q` is then left
/// unusable when it is not NULL).
///
/// # Safety
/// `q` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_config(
    q: *mut netcond_adaptive_red,
    p: *const netcond_adaptive_red_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::configure(q, p, TAG_ADAPTIVE, |p| {
            let p = profile::<_, AdaptiveRedProfile>(p, TAG_ADAPTIVE_PROFILE)
                .ok_or(crate::errors::NETCOND_E_NULL)?;
            Ok(AdaptiveRed::new(p, Instant::from_ticks(now)))
        })
    }
}

/// The decision for an arrival to Adaptive RED queue `q` of profile `p`
/// (adapting max_p first for the intervals that ended by `now`), with draws
/// from `rng`. `NETCOND_DROP_FORCED` on a NULL or unconfigured argument.
///
/// # Safety
/// Each pointer is NULL or valid; `q` and `rng` are used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_enqueue(
    q: *mut netcond_adaptive_red,
    p: *const netcond_adaptive_red_profile,
    now: u64,
    queue_len: u32,
    pkt_len: u32,
    ecn: u32,
    rng: *mut netcond_rng,
) -> netcond_red_decision {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return FORCED;
    };
    // SAFETY: caller contract.
    match unsafe { adaptive(q, p) } {
        Some((a, p)) => decision(a.on_arrival(
            p,
            Instant::from_ticks(now),
            queue_len,
            packet(pkt_len, ecn),
            rng,
        )),
        None => FORCED,
    }
}

/// As `netcond_adaptive_red_enqueue`, with `draw` for the one random draw.
///
/// # Safety
/// As `netcond_adaptive_red_enqueue`.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_enqueue_draw(
    q: *mut netcond_adaptive_red,
    p: *const netcond_adaptive_red_profile,
    now: u64,
    queue_len: u32,
    pkt_len: u32,
    ecn: u32,
    draw: u32,
) -> netcond_red_decision {
    // SAFETY: caller contract.
    match unsafe { adaptive(q, p) } {
        Some((a, p)) => decision(a.on_arrival(
            p,
            Instant::from_ticks(now),
            queue_len,
            packet(pkt_len, ecn),
            &mut Supplied(draw),
        )),
        None => FORCED,
    }
}

/// Tells Adaptive RED queue `q` of profile `p` it became empty at `now`.
/// Does nothing on a NULL or unconfigured argument.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_queue_empty(
    q: *mut netcond_adaptive_red,
    p: *const netcond_adaptive_red_profile,
    now: u64,
) {
    // SAFETY: caller contract.
    if let Some((a, p)) = unsafe { adaptive(q, p) } {
        a.on_queue_empty(p, Instant::from_ticks(now));
    }
}

/// The current max_p of Adaptive RED queue `q`, 32.32 fixed point (0 on NULL
/// or unconfigured).
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_max_p(q: *const netcond_adaptive_red) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, AdaptiveRed>(q, TAG_ADAPTIVE) } {
        Some(a) => a.max_p().to_bits(),
        None => 0,
    }
}

/// The average queue length of Adaptive RED queue `q` of profile `p`, 32.32
/// fixed point (0 on NULL or unconfigured).
///
/// # Safety
/// `q` and `p` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_avg(
    q: *const netcond_adaptive_red,
    p: *const netcond_adaptive_red_profile,
) -> u64 {
    // SAFETY: caller contract.
    match unsafe {
        (
            profile::<_, AdaptiveRed>(q, TAG_ADAPTIVE),
            profile::<_, AdaptiveRedProfile>(p, TAG_ADAPTIVE_PROFILE),
        )
    } {
        (Some(a), Some(p)) => a.red().avg(p.red()).to_bits(),
        _ => 0,
    }
}

/// The Adaptive RED queue at `q`, mutable, and its profile at `p`, if both
/// are configured.
///
/// # Safety
/// `q` is NULL or points to a `netcond_adaptive_red` used by this call only;
/// `p` is NULL or points to a `netcond_adaptive_red_profile`.
#[inline(always)]
unsafe fn adaptive<'a>(
    q: *mut netcond_adaptive_red,
    p: *const netcond_adaptive_red_profile,
) -> Option<(&'a mut AdaptiveRed, &'a AdaptiveRedProfile)> {
    // SAFETY: the tag check of `profile` says an `AdaptiveRedProfile` was
    // stored at `p`.
    let p = unsafe { profile::<_, AdaptiveRedProfile>(p, TAG_ADAPTIVE_PROFILE) }?;
    // SAFETY: the tag check says a `Tagged<AdaptiveRed>` was stored at `q`;
    // the caller gives this call exclusive access.
    let q = unsafe { crate::profile_mut::<_, AdaptiveRed>(q, TAG_ADAPTIVE) }?;
    Some((q, p))
}
