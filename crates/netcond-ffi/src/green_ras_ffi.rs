//! RFC 2963 section 3 green rate adaptive shapers (crate `ras-shaper`,
//! `GreenRas`): G-srRAS in front of an srTCM and G-trRAS in front of a trTCM.
//! The head packet leaves at `min(T1, T2)`: T1 from the shaping rate as in the
//! plain RAS, T2 the earliest instant at which the downstream meter would color
//! it green (never earlier than the previous packet has gone out at MIR).
//!
//! The meter is the caller's `netcond_srtcm` / `netcond_trtcm` state with its
//! profile, passed in on each call: the enqueue reads it, the dequeue colors
//! the released packet with it (color-blind) and returns the color. The meter
//! must see no other traffic, and one shaper must always be used with the same
//! shaper profile and the same meter profile. The queue holds up to
//! `NETCOND_RAS_QUEUE` packets, each its length and the caller's cookie.

use core::ffi::c_int;

use netcond_core::Instant;
use ras_shaper::{GreenMeter, GreenRas, RasProfile};
use trtcm::{SrTcm, TrTcm};

use crate::errors::{NETCOND_E_NULL, NETCOND_OK};
use crate::ras_ffi::{netcond_ras_profile, NETCOND_RAS_QUEUE, TAG_RAS};
use crate::trtcm_ffi::{
    netcond_srtcm, netcond_srtcm_profile, netcond_trtcm, netcond_trtcm_profile, TAG_SRTCM,
    TAG_TRTCM,
};
use crate::{netcond_color, profile, profile_mut, state, state_ref, store_profile};

/// Size in bytes of a `netcond_green_ras`.
pub const NETCOND_GREEN_RAS_SIZE: usize = 2560;

/// One green shaper: its queue of up to `NETCOND_RAS_QUEUE` packets, its rate
/// estimator and T2 state (opaque; must be started by
/// `netcond_green_ras_config`).
#[repr(C, align(64))]
pub struct netcond_green_ras {
    /// Opaque.
    pub opaque: [u64; 320],
}

const _: () = assert!(core::mem::size_of::<netcond_green_ras>() == NETCOND_GREEN_RAS_SIZE);

const TAG_GREEN_RAS: u64 = 0x6e63_5f72_6173_0003;

type Green = GreenRas<(u32, u64), NETCOND_RAS_QUEUE>;

/// Starts green shaper `s` on profile `p`, empty at `now`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_green_ras_config(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    now: u64,
) -> c_int {
    if s.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, RasProfile>(p, TAG_RAS) }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: `s` is non-NULL and writable.
    unsafe { store_profile(s, TAG_GREEN_RAS, Green::new(p, Instant::from_ticks(now))) };
    NETCOND_OK
}

/// The body of the enqueues: 0 queued, 1 refused, `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `s` is used by one thread during the call.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn enqueue<M: GreenMeter, MO, PO>(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    mp: *const PO,
    mtag: u64,
    meter: *const MO,
    now: u64,
    pkt_len: u32,
    cookie: u64,
) -> c_int {
    // SAFETY: caller contract; each accessor checks NULL (and the tag).
    let (Some(s), Some(p), Some(mp), Some(m)) = (unsafe {
        (
            profile_mut::<_, Green>(s, TAG_GREEN_RAS),
            profile::<_, RasProfile>(p, TAG_RAS),
            profile::<_, M::Profile>(mp, mtag),
            state_ref::<_, M>(meter),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    c_int::from(
        s.enqueue(p, mp, m, Instant::from_ticks(now), (pkt_len, cookie))
            .is_err(),
    )
}

/// The body of the dequeues: 1 released, 0 nothing due, `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `s` and `meter` are used by one thread.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn dequeue<M: GreenMeter, MO, PO>(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    mp: *const PO,
    mtag: u64,
    meter: *mut MO,
    now: u64,
    pkt_len: *mut u32,
    cookie: *mut u64,
    color: *mut netcond_color,
) -> c_int {
    // SAFETY: caller contract; each accessor checks NULL (and the tag).
    let (Some(s), Some(p), Some(mp), Some(m)) = (unsafe {
        (
            profile_mut::<_, Green>(s, TAG_GREEN_RAS),
            profile::<_, RasProfile>(p, TAG_RAS),
            profile::<_, M::Profile>(mp, mtag),
            state::<_, M>(meter),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    match s.dequeue(p, mp, m, Instant::from_ticks(now)) {
        Some(((len, c), col)) => {
            // SAFETY: each is NULL or writable (caller contract).
            unsafe {
                if let Some(o) = pkt_len.as_mut() {
                    *o = len;
                }
                if let Some(o) = cookie.as_mut() {
                    *o = c;
                }
                if let Some(o) = color.as_mut() {
                    *o = col.into();
                }
            }
            1
        }
        None => 0,
    }
}

/// G-srRAS: a packet of `pkt_len` bytes with the caller's `cookie` arrives at
/// `now`; `meter` (with profile `mp`) is the srTCM downstream. Returns 0
/// (queued), 1 (refused: buffer or queue full; the packet stays the caller's)
/// or `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_gsrras_enqueue(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    mp: *const netcond_srtcm_profile,
    meter: *const netcond_srtcm,
    now: u64,
    pkt_len: u32,
    cookie: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { enqueue::<SrTcm, _, _>(s, p, mp, TAG_SRTCM, meter, now, pkt_len, cookie) }
}

/// G-srRAS: releases the head packet if due at `now`, colors it with `meter`
/// (color-blind): returns 1 and writes its length, cookie and color (each if
/// not NULL), 0 if nothing is due, or `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `s` and `meter` are used by one thread.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_gsrras_dequeue(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    mp: *const netcond_srtcm_profile,
    meter: *mut netcond_srtcm,
    now: u64,
    pkt_len: *mut u32,
    cookie: *mut u64,
    color: *mut netcond_color,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { dequeue::<SrTcm, _, _>(s, p, mp, TAG_SRTCM, meter, now, pkt_len, cookie, color) }
}

/// G-trRAS: as `netcond_gsrras_enqueue` with a trTCM downstream.
///
/// # Safety
/// As `netcond_gsrras_enqueue`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_gtrras_enqueue(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    mp: *const netcond_trtcm_profile,
    meter: *const netcond_trtcm,
    now: u64,
    pkt_len: u32,
    cookie: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { enqueue::<TrTcm, _, _>(s, p, mp, TAG_TRTCM, meter, now, pkt_len, cookie) }
}

/// G-trRAS: as `netcond_gsrras_dequeue` with a trTCM downstream.
///
/// # Safety
/// As `netcond_gsrras_dequeue`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_gtrras_dequeue(
    s: *mut netcond_green_ras,
    p: *const netcond_ras_profile,
    mp: *const netcond_trtcm_profile,
    meter: *mut netcond_trtcm,
    now: u64,
    pkt_len: *mut u32,
    cookie: *mut u64,
    color: *mut netcond_color,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { dequeue::<TrTcm, _, _>(s, p, mp, TAG_TRTCM, meter, now, pkt_len, cookie, color) }
}

/// When the head packet may leave (`min(T1, T2)`): returns 1 and writes the
/// instant to `*at` (if not NULL), 0 if the queue is empty, or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `at` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_green_ras_next_release(
    s: *const netcond_green_ras,
    at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let Some(s) = (unsafe { profile::<_, Green>(s, TAG_GREEN_RAS) }) else {
        return NETCOND_E_NULL;
    };
    match s.next_release() {
        Some(t) => {
            // SAFETY: `at` is NULL or writable (caller contract).
            if let Some(o) = unsafe { at.as_mut() } {
                *o = t.ticks();
            }
            1
        }
        None => 0,
    }
}

/// The packets queued in `s` (0 on NULL or unstarted).
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_green_ras_len(s: *const netcond_green_ras) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Green>(s, TAG_GREEN_RAS) } {
        Some(s) => u32::try_from(s.ras().len()).unwrap_or(u32::MAX),
        None => 0,
    }
}
