//! Adaptive RED (Floyd, Gummadi and Shenker 2001): a queue that holds its
//! own profile, whose max_p adapts toward a target band of the average.

use super::*;

/// Validates `params` and starts Adaptive RED queue `q` at `now` (Floyd,
/// Gummadi and Shenker 2001: max_p adapts every `interval_ticks` toward a
/// target band of the average). The queue holds its own profile.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_ENUM`, `NETCOND_E_RED_ZERO_INTERVAL`
/// or another `NETCOND_E_RED_*` code; on error `q` is left unusable.
///
/// # Safety
/// `q` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_config(
    q: *mut netcond_adaptive_red,
    params: *const netcond_red_params,
    interval_ticks: u64,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::configure(q, params, TAG_ADAPTIVE, |a| {
            AdaptiveRed::new(
                &red_cfg(a)?,
                &AdaptiveConfig::new(interval_ticks),
                Instant::from_ticks(now),
            )
            .map_err(red_code)
        })
    }
}

/// The decision for an arrival to Adaptive RED queue `q` (adapting max_p
/// first for the intervals that ended by `now`), with draws from `rng`.
/// `NETCOND_DROP_FORCED` on a NULL or unconfigured argument.
///
/// # Safety
/// Each pointer is NULL or valid; `q` and `rng` are used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_enqueue(
    q: *mut netcond_adaptive_red,
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
    match unsafe { adaptive(q) } {
        Some(a) => decision(a.on_arrival(
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
    now: u64,
    queue_len: u32,
    pkt_len: u32,
    ecn: u32,
    draw: u32,
) -> netcond_red_decision {
    // SAFETY: caller contract.
    match unsafe { adaptive(q) } {
        Some(a) => decision(a.on_arrival(
            Instant::from_ticks(now),
            queue_len,
            packet(pkt_len, ecn),
            &mut Supplied(draw),
        )),
        None => FORCED,
    }
}

/// Tells Adaptive RED queue `q` it became empty at `now`. Does nothing on NULL.
///
/// # Safety
/// `q` is NULL or valid and used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_queue_empty(q: *mut netcond_adaptive_red, now: u64) {
    // SAFETY: caller contract.
    if let Some(a) = unsafe { adaptive(q) } {
        a.on_queue_empty(Instant::from_ticks(now));
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

/// The average queue length of Adaptive RED queue `q`, 32.32 fixed point (0
/// on NULL or unconfigured).
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_adaptive_red_avg(q: *const netcond_adaptive_red) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, AdaptiveRed>(q, TAG_ADAPTIVE) } {
        Some(a) => a.red().avg(a.profile()).to_bits(),
        None => 0,
    }
}

/// The Adaptive RED queue at `q`, mutable, if configured.
///
/// # Safety
/// `q` is NULL or points to a `netcond_adaptive_red` used by this call only.
#[inline(always)]
unsafe fn adaptive<'a>(q: *mut netcond_adaptive_red) -> Option<&'a mut AdaptiveRed> {
    // SAFETY: the tag check of `profile` says a `Tagged<AdaptiveRed>` was
    // stored here; the caller gives this call exclusive access.
    unsafe { crate::profile_mut::<_, AdaptiveRed>(q, TAG_ADAPTIVE) }
}
