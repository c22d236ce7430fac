//! RIO / WRED (RFC 2597 section 4; RFC 2963 appendix A.1): three colors,
//! one average per `netcond_rio_mode`, a RED law per color.

use super::*;

/// Validates `params` and writes the RIO / WRED profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_ENUM` or a `NETCOND_E_RED_*` code
/// (`NETCOND_E_RED_PRECEDENCE_ORDER` among them); on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rio_profile_config(
    p: *mut netcond_rio_profile,
    params: *const netcond_rio_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::configure(p, params, TAG_RIO, |a| {
            RioProfile::new(&rio_cfg(a)?).map_err(red_code)
        })
    }
}

/// Starts RIO queue state `m` on profile `p`: averages 0, idle since `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rio_config(
    m: *mut netcond_rio,
    p: *const netcond_rio_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { crate::trtcm_ffi::start(m, p, TAG_RIO, now, Rio::new) }
}

/// The decision for a packet of color `color` (a `netcond_color`; any other
/// value counts as red) arriving at `now`, with `queue[3]` the queued amount of
/// each color (the arrival not included). Draws from `rng`.
/// `NETCOND_DROP_FORCED` on a NULL or unconfigured argument.
///
/// # Safety
/// Each pointer is NULL or valid (`queue` for three values); `m` and `rng` are
/// used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rio_enqueue(
    m: *mut netcond_rio,
    p: *const netcond_rio_profile,
    now: u64,
    queue: *const u32,
    color: c_int,
    pkt_len: u32,
    ecn: u32,
    rng: *mut netcond_rng,
) -> netcond_red_decision {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return FORCED;
    };
    // SAFETY: caller contract, passed on.
    unsafe { rio_enqueue(m, p, now, queue, color, pkt_len, ecn, rng) }
}

/// As `netcond_rio_enqueue`, with `draw` for the decision's one random draw.
///
/// # Safety
/// As `netcond_rio_enqueue`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rio_enqueue_draw(
    m: *mut netcond_rio,
    p: *const netcond_rio_profile,
    now: u64,
    queue: *const u32,
    color: c_int,
    pkt_len: u32,
    ecn: u32,
    draw: u32,
) -> netcond_red_decision {
    // SAFETY: caller contract, passed on.
    unsafe { rio_enqueue(m, p, now, queue, color, pkt_len, ecn, &mut Supplied(draw)) }
}

/// The body of the two RIO arrivals.
///
/// # Safety
/// As `netcond_rio_enqueue`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn rio_enqueue<R: RandomSource>(
    m: *mut netcond_rio,
    p: *const netcond_rio_profile,
    now: u64,
    queue: *const u32,
    color: c_int,
    pkt_len: u32,
    ecn: u32,
    rng: &mut R,
) -> netcond_red_decision {
    // SAFETY: `queue` is NULL or points to three readable `u32`s.
    let Some(q) = (unsafe { queue.cast::<[u32; 3]>().as_ref() }) else {
        return FORCED;
    };
    let q = *q;
    let c = crate::color_in(color);
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::with(m, p, TAG_RIO, FORCED, |m: &mut Rio, p| {
            decision(m.on_arrival(p, Instant::from_ticks(now), q, c, packet(pkt_len, ecn), rng))
        })
    }
}

/// Tells RIO queue `m` of profile `p` it became empty at `now`. Does nothing
/// on a NULL or unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types; `m` is used
/// by no other thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_rio_queue_empty(
    m: *mut netcond_rio,
    p: *const netcond_rio_profile,
    now: u64,
) {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::with(m, p, TAG_RIO, (), |m: &mut Rio, p| {
            m.on_queue_empty(p, Instant::from_ticks(now));
        });
    }
}

/// The average that decides for `color` (32.32 fixed point, queue units; 0 on
/// a NULL or unconfigured argument).
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_rio_avg(
    m: *const netcond_rio,
    p: *const netcond_rio_profile,
    color: c_int,
) -> u64 {
    // SAFETY: caller contract.
    match unsafe { (state_ref::<_, Rio>(m), profile::<_, RioProfile>(p, TAG_RIO)) } {
        (Some(m), Some(p)) => m.avg(p, crate::color_in(color)).to_bits(),
        _ => 0,
    }
}
