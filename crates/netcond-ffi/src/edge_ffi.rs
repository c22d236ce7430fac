//! PCN edge behaviour (crate `pcn-meter`, module `edge`): the RFC 6661 / 6662
//! egress measurement and decision point, the 3sM ingress
//! stop-blocking timer (draft-babiarz-pcn-explicit-marking-01 section 2.3) and
//! the CLE-based admission state machine of an ingress-egress aggregate
//! (RFC 6661 section 3.3: block at a CLE at or above the stop threshold,
//! admit again below the resume threshold, decided once per measurement
//! interval).
//!
//! Fractions (the CLE thresholds) are 1.31 fixed point in a `uint32_t`: the
//! value times 2^31 (`NETCOND_Q31_ONE` is 1.0; RFC 6661's tenths of a percent
//! `k` are `(k << 31) / 1000`).

use core::ffi::c_int;
use core::time::Duration;

use netcond_core::{Instant, TickRate};
use pcn_meter::{
    Admission, CleAdmission, CleAdmissionConfig, CleAdmissionProfile, StopBlockingConfig,
    StopBlockingProfile, StopBlockingTimer,
};

use crate::errors::{
    edge_code, NETCOND_E_ENUM, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_E_UNKNOWN, NETCOND_OK,
};
use crate::trtcm_ffi::configure;
use crate::{profile, profile_mut, state, state_ref, store_profile};

/// 1.0 in the 1.31 fixed point of CLE fractions.
pub const NETCOND_Q31_ONE: u32 = 2_147_483_648;

/// The parameters of the 3sM stop-blocking timer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_stop_blocking_params {
    /// How long admission stays blocked after the last blocking mark, ns.
    pub timeout_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// 1 if an ET mark blocks as an AS mark does (draft-babiarz-pcn-explicit-marking-01
    /// section 2.3), else 0.
    pub et_blocks: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// The parameters of CLE-based admission (RFC 6661 section 3.3).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_cle_admission_params {
    /// The measurement interval, ns.
    pub interval_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// Block when an interval's CLE reaches this fraction (1.31 fixed point).
    pub stop_q31: u32,
    /// Admit again when an interval's CLE is below this fraction (at most
    /// `stop_q31`).
    pub resume_q31: u32,
}

/// A closed measurement interval's CLE and the admission decided at its end.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_cle_decision {
    /// The interval's start, ticks.
    pub start: u64,
    /// The interval's end, ticks.
    pub end: u64,
    /// Marked (ThM and ETM) PCN bytes in the interval.
    pub marked: u64,
    /// All PCN bytes in the interval.
    pub total: u64,
    /// 0 admit, 1 block, after this interval.
    pub admission: u32,
    /// 1 if this interval changed the admission state, else 0.
    pub changed: u32,
}

/// A validated stop-blocking profile (opaque).
#[repr(C, align(64))]
pub struct netcond_stop_blocking_profile {
    /// Opaque.
    pub opaque: [u64; 8],
}

/// One aggregate's stop-blocking timer: 16 bytes (opaque; all zeros is a
/// fresh timer).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_stop_blocking {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// A validated CLE admission profile (opaque).
#[repr(C, align(64))]
pub struct netcond_cle_admission_profile {
    /// Opaque.
    pub opaque: [u64; 8],
}

/// One aggregate's CLE admission state: 128 bytes (opaque; must be started
/// by `netcond_cle_admission_config`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct netcond_cle_admission {
    /// Opaque.
    pub opaque: [u64; 16],
}

pub(crate) const TAG_STOP: u64 = 0x6e63_5f65_6467_0001;
const TAG_CLE: u64 = 0x6e63_5f65_6467_0002;
const TAG_CLE_STATE: u64 = 0x6e63_5f65_6467_0003;

fn tick(hz: u64) -> Result<TickRate, c_int> {
    TickRate::from_hz(hz).ok_or(NETCOND_E_TICK)
}

pub(crate) fn admission(a: Admission) -> u32 {
    match a {
        Admission::Admit => 0,
        Admission::Block => 1,
    }
}

/// Validates `params` and writes the stop-blocking profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_EDGE_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_stop_blocking_profile_config(
    p: *mut netcond_stop_blocking_profile,
    params: *const netcond_stop_blocking_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_STOP, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            let et_blocks = match a.et_blocks {
                0 => false,
                1 => true,
                _ => return Err(NETCOND_E_ENUM),
            };
            StopBlockingProfile::new(
                &StopBlockingConfig::new(Duration::from_nanos(a.timeout_ns), et_blocks)
                    .with_tick(tick(a.tick_hz)?),
            )
            .map_err(edge_code)
        })
    }
}

/// Starts timer `m` on profile `p` at `now`: admitting, nothing pending.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_stop_blocking_config(
    m: *mut netcond_stop_blocking,
    p: *const netcond_stop_blocking_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { crate::trtcm_ffi::start(m, p, TAG_STOP, now, StopBlockingTimer::new) }
}

/// A blocking mark arrived at `now`: returns 1 if it started blocking, 0 if
/// admission was already blocked (the timeout restarts at its end), or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_stop_blocking_on_block(
    m: *mut netcond_stop_blocking,
    p: *const netcond_stop_blocking_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe {
        (
            state::<_, StopBlockingTimer>(m),
            profile::<_, StopBlockingProfile>(p, TAG_STOP),
        )
    } {
        (Some(m), Some(p)) => c_int::from(m.on_block(p, Instant::from_ticks(now))),
        _ => NETCOND_E_NULL,
    }
}

/// Advances timer `m` to `now`: returns 1 and writes the instant admission
/// resumed to `*resumed_at` (if not NULL) when the block ended by `now`, 0 if
/// nothing happened, or `NETCOND_E_NULL`.
///
/// # Safety
/// `m`, `p` and `resumed_at` are NULL or valid; `m` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_stop_blocking_poll(
    m: *mut netcond_stop_blocking,
    p: *const netcond_stop_blocking_profile,
    now: u64,
    resumed_at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(m), Some(p)) = (unsafe {
        (
            state::<_, StopBlockingTimer>(m),
            profile::<_, StopBlockingProfile>(p, TAG_STOP),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    match m.poll(p, Instant::from_ticks(now)) {
        Some(at) => {
            // SAFETY: `resumed_at` is NULL or writable (caller contract).
            if let Some(out) = unsafe { resumed_at.as_mut() } {
                *out = at.ticks();
            }
            1
        }
        None => 0,
    }
}

/// The admission state of timer `m` as last advanced: 0 admit, 1 block, or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `m` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_stop_blocking_admission(m: *const netcond_stop_blocking) -> c_int {
    // SAFETY: caller contract.
    match unsafe { state_ref::<_, StopBlockingTimer>(m) } {
        Some(m) => admission(m.admission()) as c_int,
        None => NETCOND_E_NULL,
    }
}

/// Validates `params` and writes the CLE admission profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_EDGE_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_cle_admission_profile_config(
    p: *mut netcond_cle_admission_profile,
    params: *const netcond_cle_admission_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_CLE, |a| {
            CleAdmissionProfile::new(
                &CleAdmissionConfig::new(
                    Duration::from_nanos(a.interval_ns),
                    fixed::types::U1F31::from_bits(a.stop_q31),
                    fixed::types::U1F31::from_bits(a.resume_q31),
                )
                .with_tick(tick(a.tick_hz)?),
            )
            .map_err(edge_code)
        })
    }
}

/// Starts CLE admission state `m` at `now` (admitting; the first interval
/// starts at `now`). Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_cle_admission_config(
    m: *mut netcond_cle_admission,
    p: *const netcond_cle_admission_profile,
    now: u64,
) -> c_int {
    if m.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, CleAdmissionProfile>(p, TAG_CLE) }) else {
        return NETCOND_E_NULL;
    };
    let s = CleAdmission::new(p, Instant::from_ticks(now));
    // SAFETY: `m` is non-NULL and writable.
    unsafe { store_profile(m, TAG_CLE_STATE, s) };
    NETCOND_OK
}

/// Counts a packet of `pkt_len` bytes in PCN state `pkt_mark` (a
/// `netcond_pcn_mark`; not-PCN packets and values outside 0..3 are not
/// counted) arriving at `now`, closing the interval first if it ended. Does
/// nothing on a NULL or unstarted argument.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_cle_admission_on_packet(
    m: *mut netcond_cle_admission,
    p: *const netcond_cle_admission_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) {
    // SAFETY: caller contract.
    if let (Some(m), Some(p)) = unsafe { cle(m, p) } {
        let mark = match pkt_mark {
            0..=3 => pcn_meter::PcnMark::from_ecn(pkt_mark as u8),
            _ => pcn_meter::PcnMark::NotPcn,
        };
        m.on_packet(p, Instant::from_ticks(now), pkt_len, mark);
    }
}

/// Closes the interval if it ended by `now`; returns 1 and writes the pending
/// decision to `*out` (if not NULL) when there is one, 0 when there is none,
/// or `NETCOND_E_NULL`.
///
/// # Safety
/// `m`, `p` and `out` are NULL or valid; `m` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_cle_admission_poll(
    m: *mut netcond_cle_admission,
    p: *const netcond_cle_admission_profile,
    now: u64,
    out: *mut netcond_cle_decision,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(m), Some(p)) = (unsafe { cle(m, p) }) else {
        return NETCOND_E_NULL;
    };
    match m.poll(p, Instant::from_ticks(now)) {
        Some(d) => {
            // SAFETY: `out` is NULL or writable (caller contract).
            if let Some(o) = unsafe { out.as_mut() } {
                *o = netcond_cle_decision {
                    start: d.start.ticks(),
                    end: d.end.ticks(),
                    marked: d.cle.marked,
                    total: d.cle.total,
                    admission: admission(d.admission),
                    changed: u32::from(d.changed),
                };
            }
            1
        }
        None => 0,
    }
}

/// The admission state of `m`: 0 admit, 1 block, or `NETCOND_E_NULL` (NULL or
/// unstarted).
///
/// # Safety
/// `m` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_cle_admission_admission(m: *const netcond_cle_admission) -> c_int {
    // SAFETY: caller contract.
    match unsafe { profile::<_, CleAdmission>(m, TAG_CLE_STATE) } {
        Some(s) => admission(s.admission()) as c_int,
        None => NETCOND_E_NULL,
    }
}

/// The CLE state and profile, if both are present and started.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by this call only.
#[inline(always)]
unsafe fn cle<'a>(
    m: *mut netcond_cle_admission,
    p: *const netcond_cle_admission_profile,
) -> (
    Option<&'a mut CleAdmission>,
    Option<&'a CleAdmissionProfile>,
) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, CleAdmission>(m, TAG_CLE_STATE),
            profile::<_, CleAdmissionProfile>(p, TAG_CLE),
        )
    }
}

// ---------------------------------------------------------------- egress and decision

/// The most ETM flows an egress report records per interval (the most recent).
pub const NETCOND_EGRESS_MAX_FLOWS: usize = 16;

/// The PCN boundary-node behaviour.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_edge_behaviour {
    /// Controlled Load, RFC 6661.
    NETCOND_EDGE_CONTROLLED_LOAD = 0,
    /// Single Marking, RFC 6662 (with its factor U).
    NETCOND_EDGE_SINGLE_MARKING = 1,
}

/// The parameters of an RFC 6661 / 6662 PCN-egress-node measurement.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_egress_params {
    /// T_meas, ns (RFC 6661 section 3.5.1: on the order of 100 to 500 ms).
    pub t_meas_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// T_maxsuppress, ns, with report suppression (ignored without).
    pub t_maxsuppress_ns: u64,
    /// A `netcond_edge_behaviour`.
    pub behaviour: u32,
    /// U for Single Marking, 16.16 fixed point (greater than 1.0 = 65536).
    pub u_q16: u32,
    /// 1: record the flows seen with ETM packets (Controlled Load only), else 0.
    pub record_etm_flows: u32,
    /// 1: report suppression (RFC 6661 / 6662 section 3.2.3), else 0.
    pub suppression: u32,
    /// CLE-reporting-threshold with suppression, 1.31 fixed point.
    pub cle_reporting_threshold_q31: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// One measurement report of an egress meter.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_egress_report {
    /// Start of the measurement interval, ticks.
    pub start: u64,
    /// End of the measurement interval, ticks.
    pub end: u64,
    /// NM bytes.
    pub nm_bytes: u64,
    /// ThM bytes (0 with Single Marking: counted as ETM).
    pub thm_bytes: u64,
    /// ETM bytes.
    pub etm_bytes: u64,
    /// NM rate, bytes per second.
    pub nm_rate: u64,
    /// ThM rate, bytes per second.
    pub thm_rate: u64,
    /// ETM rate, bytes per second.
    pub etm_rate: u64,
    /// The CLE's numerator (marked bytes).
    pub cle_marked: u64,
    /// The CLE's denominator (all PCN bytes).
    pub cle_total: u64,
    /// How many of `etm_flows` are filled.
    pub n_etm_flows: u32,
    /// Reserved.
    pub reserved: u32,
    /// The flows seen with ETM packets (Controlled Load with recording).
    pub etm_flows: [u32; NETCOND_EGRESS_MAX_FLOWS],
}

/// The parameters of a PCN decision point (RFC 6661 / 6662 section 3.3).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_decision_params {
    /// A `netcond_edge_behaviour`.
    pub behaviour: u32,
    /// U for Single Marking, 16.16 fixed point.
    pub u_q16: u32,
    /// CLE-limit, 1.31 fixed point.
    pub cle_limit_q31: u32,
    /// 1: admission control on, else 0.
    pub admission_enabled: u32,
    /// 1: flow termination on, else 0.
    pub termination_enabled: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A decision point's answer to a report.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_decision {
    /// 0 admit, 1 block.
    pub admission: u32,
    /// 0 nothing; 1 request the PCN-sent-rate from the ingress; 2 terminate
    /// down to `sar` (see `amount_to_terminate` in the Rust crate).
    pub termination: u32,
    /// The sustainable aggregate rate (bytes per second), with termination 2.
    pub sar: u64,
}

/// A validated egress measurement profile (opaque).
#[repr(C, align(64))]
pub struct netcond_egress_profile {
    /// Opaque.
    pub opaque: [u64; 8],
}

/// One ingress-egress aggregate's egress measurement state: 512 bytes
/// (opaque; must be started by `netcond_egress_config`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct netcond_egress {
    /// Opaque.
    pub opaque: [u64; 64],
}

/// A validated decision point profile (opaque).
#[repr(C, align(64))]
pub struct netcond_decision_profile {
    /// Opaque.
    pub opaque: [u64; 8],
}

/// One aggregate's decision point: 8 bytes (opaque; all zeros is a fresh one).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_decision_point {
    /// Opaque.
    pub opaque: [u64; 1],
}

const TAG_EGRESS: u64 = 0x6e63_5f65_6467_0004;
const TAG_EGRESS_STATE: u64 = 0x6e63_5f65_6467_0005;
const TAG_DECISION: u64 = 0x6e63_5f65_6467_0006;

fn flag(v: u32) -> Result<bool, c_int> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(NETCOND_E_ENUM),
    }
}

fn behaviour(b: u32, u_q16: u32) -> Result<pcn_meter::EdgeBehaviour, c_int> {
    match b {
        0 => Ok(pcn_meter::EdgeBehaviour::ControlledLoad),
        1 => Ok(pcn_meter::EdgeBehaviour::SingleMarking {
            u: fixed::types::U16F16::from_bits(u_q16),
        }),
        _ => Err(NETCOND_E_ENUM),
    }
}

/// Validates `params` and writes the egress measurement profile to `p`.
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_EDGE_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress_profile_config(
    p: *mut netcond_egress_profile,
    params: *const netcond_egress_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_EGRESS, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            let suppression = if flag(a.suppression)? {
                Some(pcn_meter::Suppression::new(
                    fixed::types::U1F31::from_bits(a.cle_reporting_threshold_q31),
                    Duration::from_nanos(a.t_maxsuppress_ns),
                ))
            } else {
                None
            };
            pcn_meter::EgressMeterProfile::new(
                &pcn_meter::EgressMeterConfig::controlled_load()
                    .with_behaviour(behaviour(a.behaviour, a.u_q16)?)
                    .with_t_meas(Duration::from_nanos(a.t_meas_ns))
                    .with_record_etm_flows(flag(a.record_etm_flows)?)
                    .with_suppression(suppression)
                    .with_tick(tick(a.tick_hz)?),
            )
            .map_err(edge_code)
        })
    }
}

/// Starts egress state `m` at `now` (the first interval starts at `now`).
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress_config(
    m: *mut netcond_egress,
    p: *const netcond_egress_profile,
    now: u64,
) -> c_int {
    if m.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, pcn_meter::EgressMeterProfile>(p, TAG_EGRESS) }) else {
        return NETCOND_E_NULL;
    };
    let s =
        pcn_meter::EgressMeter::<u32, NETCOND_EGRESS_MAX_FLOWS>::new(p, Instant::from_ticks(now));
    // SAFETY: `m` is non-NULL and writable.
    unsafe { store_profile(m, TAG_EGRESS_STATE, s) };
    NETCOND_OK
}

/// Counts a packet of `pkt_len` bytes of flow `flow` in PCN state `pkt_mark`
/// (values outside 0..3 count as not-PCN, which is not counted) arriving at
/// `now`, closing the interval first if it ended. Does nothing on a NULL or
/// unstarted argument.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress_on_packet(
    m: *mut netcond_egress,
    p: *const netcond_egress_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
    flow: u32,
) {
    // SAFETY: caller contract.
    if let (Some(m), Some(p)) = unsafe { egress(m, p) } {
        let mark = match pkt_mark {
            0..=3 => pcn_meter::PcnMark::from_ecn(pkt_mark as u8),
            _ => pcn_meter::PcnMark::NotPcn,
        };
        m.on_packet(p, Instant::from_ticks(now), pkt_len, mark, flow);
    }
}

/// Closes the interval if it ended by `now`; returns 1 and writes the report
/// to `*out` (if not NULL) when one is due, 0 when none is (none yet, or
/// suppressed), or `NETCOND_E_NULL`.
///
/// # Safety
/// `m`, `p` and `out` are NULL or valid; `m` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress_poll(
    m: *mut netcond_egress,
    p: *const netcond_egress_profile,
    now: u64,
    out: *mut netcond_egress_report,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(m), Some(p)) = (unsafe { egress(m, p) }) else {
        return NETCOND_E_NULL;
    };
    match m.poll(p, Instant::from_ticks(now)) {
        Some(r) => {
            // SAFETY: `out` is NULL or writable (caller contract).
            if let Some(o) = unsafe { out.as_mut() } {
                let mut flows = [0u32; NETCOND_EGRESS_MAX_FLOWS];
                for (dst, src) in flows.iter_mut().zip(r.etm_flows.iter()) {
                    *dst = *src;
                }
                *o = netcond_egress_report {
                    start: r.start.ticks(),
                    end: r.end.ticks(),
                    nm_bytes: r.nm_bytes,
                    thm_bytes: r.thm_bytes,
                    etm_bytes: r.etm_bytes,
                    nm_rate: r.nm_rate,
                    thm_rate: r.thm_rate,
                    etm_rate: r.etm_rate,
                    cle_marked: r.cle.marked,
                    cle_total: r.cle.total,
                    n_etm_flows: r.etm_flows.len() as u32,
                    reserved: 0,
                    etm_flows: flows,
                };
            }
            1
        }
        None => 0,
    }
}

/// Validates `params` and writes the decision point profile to `p`. Returns
/// 0, `NETCOND_E_NULL`, `NETCOND_E_ENUM` or a `NETCOND_E_EDGE_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_decision_profile_config(
    p: *mut netcond_decision_profile,
    params: *const netcond_decision_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_DECISION, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            pcn_meter::DecisionProfile::new(
                &pcn_meter::DecisionConfig::controlled_load()
                    .with_behaviour(behaviour(a.behaviour, a.u_q16)?)
                    .with_cle_limit(fixed::types::U1F31::from_bits(a.cle_limit_q31))
                    .with_admission_enabled(flag(a.admission_enabled)?)
                    .with_termination_enabled(flag(a.termination_enabled)?),
            )
            .map_err(edge_code)
        })
    }
}

/// Starts decision point `d` on profile `p` at `now` (not awaiting a report).
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `d` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_decision_config(
    d: *mut netcond_decision_point,
    p: *const netcond_decision_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { crate::trtcm_ffi::start(d, p, TAG_DECISION, now, pcn_meter::DecisionPoint::new) }
}

/// Decides on egress report `r` (RFC 6661 / 6662 section 3.3) and writes the
/// decision to `*out`. Returns 0, `NETCOND_E_NULL` (nothing decided) or
/// `NETCOND_E_UNKNOWN` (a termination step this header does not name; `*out`
/// untouched).
///
/// # Safety
/// Each pointer is NULL or valid; `d` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_decision_on_report(
    d: *mut netcond_decision_point,
    p: *const netcond_decision_profile,
    r: *const netcond_egress_report,
    out: *mut netcond_decision,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(d), Some(p), Some(r), Some(out)) = (unsafe {
        (
            state::<_, pcn_meter::DecisionPoint>(d),
            profile::<_, pcn_meter::DecisionProfile>(p, TAG_DECISION),
            r.as_ref(),
            out.as_mut(),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    let n = (r.n_etm_flows as usize).min(NETCOND_EGRESS_MAX_FLOWS);
    let flows = r.etm_flows.get(..n).unwrap_or(&[]);
    let report = pcn_meter::Report::<u32, NETCOND_EGRESS_MAX_FLOWS> {
        start: Instant::from_ticks(r.start),
        end: Instant::from_ticks(r.end),
        nm_bytes: r.nm_bytes,
        thm_bytes: r.thm_bytes,
        etm_bytes: r.etm_bytes,
        nm_rate: r.nm_rate,
        thm_rate: r.thm_rate,
        etm_rate: r.etm_rate,
        cle: pcn_meter::Cle::new(r.cle_marked, r.cle_total),
        etm_flows: heapless::Vec::from_slice(flows).unwrap_or_default(),
    };
    let dec = d.on_report(p, &report);
    let (termination, sar) = match dec.termination {
        pcn_meter::Termination::None => (0, 0),
        pcn_meter::Termination::RequestSentRate => (1, 0),
        pcn_meter::Termination::Terminate { sar } => (2, sar),
        // A termination step this header does not name.
        _ => return NETCOND_E_UNKNOWN,
    };
    *out = netcond_decision {
        admission: admission(dec.admission),
        termination,
        sar,
    };
    NETCOND_OK
}

/// The egress state and profile, if both are present and started.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by this call only.
#[inline(always)]
unsafe fn egress<'a>(
    m: *mut netcond_egress,
    p: *const netcond_egress_profile,
) -> (
    Option<&'a mut pcn_meter::EgressMeter<u32, NETCOND_EGRESS_MAX_FLOWS>>,
    Option<&'a pcn_meter::EgressMeterProfile>,
) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, pcn_meter::EgressMeter<u32, NETCOND_EGRESS_MAX_FLOWS>>(
                m,
                TAG_EGRESS_STATE,
            ),
            profile::<_, pcn_meter::EgressMeterProfile>(p, TAG_EGRESS),
        )
    }
}
