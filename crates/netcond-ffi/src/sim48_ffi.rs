//! The 3sM ET-marker exactly as simulated in the PCN explicit-marking draft's
//! section 4.8 (its Figure 9; crate `pcn-meter`, `EtMarkerSim48`): every PCN
//! packet is taken from the bucket first, the bucket may go negative, and a
//! packet is marked ET when the count is at or below zero, which then gains
//! `pcn_px` bytes. The section 1.2 form is `netcond_et_marker_*`.
//!
//! Rates are in bytes per second, sizes in bytes, times in ticks of `tick_hz`.

use core::ffi::c_int;

use netcond_core::Rate;
use pcn_meter::{EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile};

use crate::errors::et48_code;
use crate::pcn_ffi::{netcond_pcn_mark, pcn_mark, tick, NETCOND_PCN_PROFILE_SIZE};
use crate::state_ref;
use crate::trtcm_ffi::{configure, start};

/// Size in bytes of a `netcond_et_marker_sim48` state.
pub const NETCOND_ET48_STATE_SIZE: usize = 24;

/// The parameters of the ET-marker as simulated (section 4.8 names).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_et_marker_sim48_params {
    /// `pcn_pt`: the preemption threshold rate, bytes per second.
    pub pcn_pt: u64,
    /// `pcn_tb`: the bucket depth, bytes; the bucket starts full.
    pub pcn_tb: u64,
    /// `pcn_px`: bytes added after each mark.
    pub pcn_px: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
}

/// A validated section 4.8 ET-marker profile (opaque).
#[repr(C, align(64))]
pub struct netcond_et_marker_sim48_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// One link's section 4.8 ET-marker state: 24 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_et_marker_sim48 {
    /// Opaque.
    pub opaque: [u64; 3],
}

const _: () =
    assert!(core::mem::size_of::<netcond_et_marker_sim48_profile>() == NETCOND_PCN_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_et_marker_sim48>() == NETCOND_ET48_STATE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_et_marker_sim48_params>() == 32);

const TAG_ET48: u64 = 0x6e63_5f70_636e_0030;

/// Validates `params` and writes the profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_ET48_*` code; on error
/// `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_sim48_profile_config(
    p: *mut netcond_et_marker_sim48_profile,
    params: *const netcond_et_marker_sim48_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_ET48, |a| {
            EtMarkerSim48Profile::new(
                &EtMarkerSim48Config::new(Rate::from_bytes_per_sec(a.pcn_pt), a.pcn_tb, a.pcn_px)
                    .with_tick(tick(a.tick_hz)?),
            )
            .map_err(et48_code)
        })
    }
}

/// Starts state `m` with a full bucket (`pcn_tb`) at `now`. Returns 0 or
/// `NETCOND_E_NULL` (`m` or `p` NULL, or `p` not configured).
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_sim48_config(
    m: *mut netcond_et_marker_sim48,
    p: *const netcond_et_marker_sim48_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_ET48, now, EtMarkerSim48::new) }
}

/// Meters a packet of `pkt_len` bytes in state `pkt_mark` (a
/// `netcond_pcn_mark`) arriving at `now`; returns the state it leaves in. A
/// `pkt_mark` outside 0..3, a NULL or an unconfigured argument give
/// `NETCOND_PCN_NOT_PCN` and change nothing.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_sim48_mark(
    m: *mut netcond_et_marker_sim48,
    p: *const netcond_et_marker_sim48_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<EtMarkerSim48, _, _>(m, p, TAG_ET48, now, pkt_len, pkt_mark) }
}

/// The token count of `m` in bytes, rounded toward minus infinity and held
/// within `INT64_MIN..INT64_MAX` (negative after an overdraft; up to `pcn_tb +
/// pcn_px` after a mark). 0 on a NULL or unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_sim48_tokens(
    m: *const netcond_et_marker_sim48,
    p: *const netcond_et_marker_sim48_profile,
) -> i64 {
    // SAFETY: caller contract.
    match unsafe {
        (
            state_ref::<_, EtMarkerSim48>(m),
            crate::profile::<_, EtMarkerSim48Profile>(p, TAG_ET48),
        )
    } {
        (Some(m), Some(p)) => {
            // units_per_byte is at least 1 for a configured profile; `max(1)`
            // keeps the division total regardless.
            let bytes = m
                .tokens_units()
                .div_euclid(i128::from(p.units_per_byte().max(1)));
            i64::try_from(bytes).unwrap_or(if bytes < 0 { i64::MIN } else { i64::MAX })
        }
        _ => 0,
    }
}
