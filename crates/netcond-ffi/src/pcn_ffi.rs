//! PCN metering and marking (crate `pcn-meter`): the 3sM ET-marker and
//! AS-marker (draft-babiarz-pcn-explicit-marking-01 and
//! draft-babiarz-pcn-3sm-01, every form), the RFC 5670 threshold and
//! excess-traffic meters, the combined node markers (3sM: ET then AS; RFC 5670:
//! excess then threshold), and RFC 6660's encoding of the PCN states in the ECN
//! field of a TOS / traffic-class byte.
//!
//! A packet's PCN state goes in and out as its two-bit ECN codepoint
//! (`netcond_pcn_mark`, RFC 6660 section 3): a meter meters PCN packets and
//! returns the state the packet leaves in; a not-PCN packet passes untouched.
//! Rates are in bytes per second, bucket sizes and thresholds in bytes, times in
//! ticks of `tick_hz`.

use core::ffi::c_int;

use netcond_core::{Instant, Rate, TickRate};
use pcn_meter::{
    AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, ClassicTie, EtMarker, EtMarkerConfig,
    EtMarkerProfile, EtMarking, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig,
    ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670, PcnDscps, PcnMark, PcnMeter,
    ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};

use crate::errors::{
    as_code, et_code, rfc5670_code, NETCOND_E_ENUM, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_OK,
};
use crate::trtcm_ffi::{configure, start, with};
use crate::{state, state_ref, store_state};

/// Size in bytes of every PCN meter profile struct.
pub const NETCOND_PCN_PROFILE_SIZE: usize = 256;
/// Size in bytes of the ET-marker, AS-marker and threshold meter states.
pub const NETCOND_PCN_STATE_SIZE: usize = 16;
/// Size in bytes of the excess-traffic meter state.
pub const NETCOND_PCN_EXCESS_STATE_SIZE: usize = 24;

/// The PCN state of a packet: the value of its ECN field (RFC 6660 section 3).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_pcn_mark {
    /// `00`: not a PCN packet: never metered or marked.
    NETCOND_PCN_NOT_PCN = 0,
    /// `01`: threshold-marked (ThM; admission-stop, AS, in 3sM).
    NETCOND_PCN_THM = 1,
    /// `10`: not-marked (NM; NP in 3sM).
    NETCOND_PCN_NM = 2,
    /// `11`: excess-traffic-marked (ETM; ET in 3sM).
    NETCOND_PCN_ETM = 3,
}

/// The ET-marker's marking test.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_et_marking {
    /// Tail marking: mark ET when `fill < packet size`
    /// (draft-babiarz-pcn-explicit-marking-01 section 1.2; 3sm-01 section
    /// 3.1.2).
    NETCOND_ET_TAIL = 0,
    /// Packet-size-independent marking with proportional reduction (3sm-01
    /// appendix A.1.5): mark when `fill < MTU`.
    NETCOND_ET_SIZE_INDEPENDENT = 1,
}

/// The AS-marker's form.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_as_form {
    /// draft-babiarz-pcn-explicit-marking-01 section 1.2.
    NETCOND_AS_EXPLICIT_MARKING_01 = 0,
    /// draft-babiarz-pcn-3sm-01.
    NETCOND_AS_3SM_01 = 1,
}

/// The RFC 5670 excess-traffic meter's behaviour (section 2.4).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_excess_mode {
    /// Packet size independent marking (the SHOULD of section 2.4).
    NETCOND_EXCESS_SIZE_INDEPENDENT = 0,
    /// Classic, marked iff `F_etm <= size` (section 2.4).
    NETCOND_EXCESS_CLASSIC = 1,
    /// Classic, marked iff `F_etm < size` (appendix B.6).
    NETCOND_EXCESS_CLASSIC_B6 = 2,
}

/// The parameters of a 3sM SR-meter / ET-marker.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_et_marker_params {
    /// SR, the supportable rate, bytes per second.
    pub sr: u64,
    /// TB.size, bytes.
    pub bucket_size: u64,
    /// `s`, the marking-frequency reduction, bytes.
    pub s: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// 1: an arriving ET packet also adds `s`
    /// (draft-babiarz-pcn-explicit-marking-01 section 1.2 and 3sm-01 appendix
    /// A.1.5); 0: it does not (3sm-01 section 3.1.2).
    pub already_et_adds_s: u32,
    /// A `netcond_et_marking`.
    pub marking: u32,
    /// The MTU in bytes, for `NETCOND_ET_SIZE_INDEPENDENT` (ignored otherwise).
    pub mtu: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// The parameters of a 3sM AR-meter / AS-marker.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_as_marker_params {
    /// AR, the admissible rate, bytes per second.
    pub ar: u64,
    /// TB.size, bytes.
    pub bucket_size: u64,
    /// TB.threshold, bytes (at most TB.size).
    pub threshold: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// A `netcond_as_form`.
    pub form: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// The parameters of an RFC 5670 threshold meter (section 2.3).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_threshold_meter_params {
    /// PCN-threshold-rate, bytes per second.
    pub threshold_rate: u64,
    /// BS_tm, bytes.
    pub bs_tm: u64,
    /// threshold, bytes (at most BS_tm).
    pub threshold: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
}

/// The parameters of an RFC 5670 excess-traffic meter (section 2.4).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_excess_meter_params {
    /// PCN-excess-rate, bytes per second.
    pub excess_rate: u64,
    /// BS_etm, bytes.
    pub bs_etm: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// A `netcond_excess_mode`.
    pub mode: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A validated ET-marker profile (opaque).
#[repr(C, align(64))]
pub struct netcond_et_marker_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated AS-marker profile (opaque).
#[repr(C, align(64))]
pub struct netcond_as_marker_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated threshold meter profile (opaque).
#[repr(C, align(64))]
pub struct netcond_threshold_meter_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated excess-traffic meter profile (opaque).
#[repr(C, align(64))]
pub struct netcond_excess_meter_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// One link's ET-marker state: 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_et_marker {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One link's AS-marker state: 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_as_marker {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One link's threshold meter state: 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_threshold_meter {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One link's excess-traffic meter state: 24 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_excess_meter {
    /// Opaque.
    pub opaque: [u64; 3],
}

/// The set of PCN-compatible DSCPs of a domain (RFC 6660 section 3): 8 bytes
/// (opaque; all zeros is the empty set).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_pcn_dscps {
    /// Opaque.
    pub opaque: [u64; 1],
}

const TAG_ET: u64 = 0x6e63_5f70_636e_0001;
const TAG_AS: u64 = 0x6e63_5f70_636e_0002;
const TAG_TM: u64 = 0x6e63_5f70_636e_0003;
const TAG_ETM: u64 = 0x6e63_5f70_636e_0004;

pub(crate) fn tick(hz: u64) -> Result<TickRate, c_int> {
    TickRate::from_hz(hz).ok_or(NETCOND_E_TICK)
}

fn et_profile(p: &netcond_et_marker_params) -> Result<EtMarkerProfile, c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    let marking = match p.marking {
        0 => EtMarking::TailMarking,
        1 => EtMarking::SizeIndependent { mtu: p.mtu },
        _ => return Err(NETCOND_E_ENUM),
    };
    let already_et_adds_s = match p.already_et_adds_s {
        0 => false,
        1 => true,
        _ => return Err(NETCOND_E_ENUM),
    };
    EtMarkerProfile::new(
        &EtMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(p.sr), p.bucket_size, p.s)
            .with_already_et_adds_s(already_et_adds_s)
            .with_marking(marking)
            .with_tick(tick(p.tick_hz)?),
    )
    .map_err(et_code)
}

fn as_profile(p: &netcond_as_marker_params) -> Result<AsMarkerProfile, c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    let form = match p.form {
        0 => AsForm::DraftExplicitMarking01,
        1 => AsForm::Draft3sm01,
        _ => return Err(NETCOND_E_ENUM),
    };
    AsMarkerProfile::new(
        &AsMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(p.ar), p.bucket_size, p.threshold)
            .with_form(form)
            .with_tick(tick(p.tick_hz)?),
    )
    .map_err(as_code)
}

fn tm_profile(p: &netcond_threshold_meter_params) -> Result<ThresholdMeterProfile, c_int> {
    ThresholdMeterProfile::new(
        &ThresholdMeterConfig::new(
            Rate::from_bytes_per_sec(p.threshold_rate),
            p.bs_tm,
            p.threshold,
        )
        .with_tick(tick(p.tick_hz)?),
    )
    .map_err(rfc5670_code)
}

fn etm_profile(p: &netcond_excess_meter_params) -> Result<ExcessTrafficMeterProfile, c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    let mode = match p.mode {
        0 => ExcessMode::SizeIndependent,
        1 => ExcessMode::Classic(ClassicTie::Section2_4),
        2 => ExcessMode::Classic(ClassicTie::AppendixB6),
        _ => return Err(NETCOND_E_ENUM),
    };
    ExcessTrafficMeterProfile::new(
        &ExcessTrafficMeterConfig::new(Rate::from_bytes_per_sec(p.excess_rate), p.bs_etm)
            .with_mode(mode)
            .with_tick(tick(p.tick_hz)?),
    )
    .map_err(rfc5670_code)
}

/// The packet's state from the caller's `int`: 0..3 as the ECN codepoint;
/// anything else is not a valid state and is passed as not-PCN.
#[inline(always)]
pub(crate) fn mark_in(m: c_int) -> PcnMark {
    match m {
        0..=3 => PcnMark::from_ecn(m as u8),
        _ => PcnMark::NotPcn,
    }
}

#[inline(always)]
pub(crate) fn mark_out(m: PcnMark) -> netcond_pcn_mark {
    match m {
        PcnMark::NotPcn => netcond_pcn_mark::NETCOND_PCN_NOT_PCN,
        PcnMark::Thm => netcond_pcn_mark::NETCOND_PCN_THM,
        PcnMark::Nm => netcond_pcn_mark::NETCOND_PCN_NM,
        PcnMark::Etm => netcond_pcn_mark::NETCOND_PCN_ETM,
    }
}

const NOT_PCN: netcond_pcn_mark = netcond_pcn_mark::NETCOND_PCN_NOT_PCN;

/// The body of every `*_mark` export: meter `M` marks the packet (`pkt_mark`
/// outside 0..3 is not-PCN); `NETCOND_PCN_NOT_PCN` for a NULL or unusable
/// argument.
///
/// # Safety
/// As [`with`].
#[inline(always)]
pub(crate) unsafe fn pcn_mark<M: PcnMeter, O, PO>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    let k = mark_in(pkt_mark);
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, tag, NOT_PCN, |m: &mut M, p| {
            mark_out(m.mark(p, Instant::from_ticks(now), pkt_len, k))
        })
    }
}

/// Validates `params` and writes the ET-marker profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_ET_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_profile_config(
    p: *mut netcond_et_marker_profile,
    params: *const netcond_et_marker_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_ET, et_profile) }
}

/// Starts ET-marker state `m` with a full bucket at `now`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_config(
    m: *mut netcond_et_marker,
    p: *const netcond_et_marker_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_ET, now, EtMarker::new) }
}

/// Meters a packet of `pkt_len` bytes in state `pkt_mark` (a
/// `netcond_pcn_mark`) arriving at `now`; returns the state it leaves in.
/// A value of `pkt_mark` outside 0..3, a NULL or an unconfigured argument give
/// `NETCOND_PCN_NOT_PCN` and change nothing.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_et_marker_mark(
    m: *mut netcond_et_marker,
    p: *const netcond_et_marker_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<EtMarker, _, _>(m, p, TAG_ET, now, pkt_len, pkt_mark) }
}

/// Validates `params` and writes the AS-marker profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_AS_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_as_marker_profile_config(
    p: *mut netcond_as_marker_profile,
    params: *const netcond_as_marker_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_AS, as_profile) }
}

/// Starts AS-marker state `m` with a full bucket at `now`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_as_marker_config(
    m: *mut netcond_as_marker,
    p: *const netcond_as_marker_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_AS, now, AsMarker::new) }
}

/// Meters a packet with the AS-marker; as `netcond_et_marker_mark`.
///
/// # Safety
/// As `netcond_et_marker_mark`.
#[no_mangle]
pub unsafe extern "C" fn netcond_as_marker_mark(
    m: *mut netcond_as_marker,
    p: *const netcond_as_marker_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<AsMarker, _, _>(m, p, TAG_AS, now, pkt_len, pkt_mark) }
}

/// Validates `params` and writes the threshold meter profile to `p`. Returns
/// 0, `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_RFC5670_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_threshold_meter_profile_config(
    p: *mut netcond_threshold_meter_profile,
    params: *const netcond_threshold_meter_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_TM, tm_profile) }
}

/// Starts threshold meter state `m` with a full bucket at `now`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_threshold_meter_config(
    m: *mut netcond_threshold_meter,
    p: *const netcond_threshold_meter_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_TM, now, ThresholdMeter::new) }
}

/// Meters a packet with the RFC 5670 threshold meter; as
/// `netcond_et_marker_mark`.
///
/// # Safety
/// As `netcond_et_marker_mark`.
#[no_mangle]
pub unsafe extern "C" fn netcond_threshold_meter_mark(
    m: *mut netcond_threshold_meter,
    p: *const netcond_threshold_meter_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<ThresholdMeter, _, _>(m, p, TAG_TM, now, pkt_len, pkt_mark) }
}

/// Validates `params` and writes the excess-traffic meter profile to `p`.
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_RFC5670_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_excess_meter_profile_config(
    p: *mut netcond_excess_meter_profile,
    params: *const netcond_excess_meter_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_ETM, etm_profile) }
}

/// Starts excess-traffic meter state `m` with a full bucket at `now`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_excess_meter_config(
    m: *mut netcond_excess_meter,
    p: *const netcond_excess_meter_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_ETM, now, ExcessTrafficMeter::new) }
}

/// Meters a packet with the RFC 5670 excess-traffic meter; as
/// `netcond_et_marker_mark`.
///
/// # Safety
/// As `netcond_et_marker_mark`.
#[no_mangle]
pub unsafe extern "C" fn netcond_excess_meter_mark(
    m: *mut netcond_excess_meter,
    p: *const netcond_excess_meter_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<ExcessTrafficMeter, _, _>(m, p, TAG_ETM, now, pkt_len, pkt_mark) }
}

// ---------------------------------------------------------------- RFC 6660

/// Adds DSCP `dscp` (0..63) to the set `d` of PCN-compatible DSCPs (start from
/// a zero-filled set). Returns 0, `NETCOND_E_NULL` or `NETCOND_E_ENUM` (`dscp`
/// above 63).
///
/// # Safety
/// `d` is NULL or points to a writable `netcond_pcn_dscps`.
#[no_mangle]
pub unsafe extern "C" fn netcond_pcn_dscps_add(d: *mut netcond_pcn_dscps, dscp: u32) -> c_int {
    // SAFETY: caller contract.
    let Some(set) = (unsafe { state::<_, PcnDscps>(d) }) else {
        return NETCOND_E_NULL;
    };
    if dscp > 63 {
        return NETCOND_E_ENUM;
    }
    let added = set.with(dscp as u8);
    // SAFETY: `d` is non-NULL and writable.
    unsafe { store_state(d, added) };
    NETCOND_OK
}

/// The PCN state (`netcond_pcn_mark`, 0..3) of a packet with TOS /
/// traffic-class byte `tos`, or -1 if its DSCP is not in `d` (then its ECN
/// field keeps its RFC 3168 meaning) or `d` is NULL.
///
/// # Safety
/// `d` is NULL or points to a valid `netcond_pcn_dscps`.
#[no_mangle]
pub unsafe extern "C" fn netcond_pcn_decode_tos(d: *const netcond_pcn_dscps, tos: u8) -> c_int {
    // SAFETY: caller contract.
    match unsafe { state_ref::<_, PcnDscps>(d) }.and_then(|s| s.decode_tos(tos)) {
        Some(m) => mark_out(m) as c_int,
        None => -1,
    }
}

/// The TOS / traffic-class byte after a meter indicated `indicated` (a
/// `netcond_pcn_mark`): if the DSCP is in `d`, the ECN field becomes the more
/// severe of its state and `indicated` (RFC 6660 sections 5.2.1-5.2.2;
/// not-PCN stays not-PCN); otherwise, or if `d` is NULL or `indicated` is
/// outside 0..3, `tos` is returned unchanged. The DSCP never changes.
///
/// # Safety
/// `d` is NULL or points to a valid `netcond_pcn_dscps`.
#[no_mangle]
pub unsafe extern "C" fn netcond_pcn_remark_tos(
    d: *const netcond_pcn_dscps,
    tos: u8,
    indicated: c_int,
) -> u8 {
    if !(0..=3).contains(&indicated) {
        return tos;
    }
    // SAFETY: caller contract.
    match unsafe { state_ref::<_, PcnDscps>(d) } {
        Some(s) => s.remark_tos(tos, mark_in(indicated)),
        None => tos,
    }
}

/// Re-marks a bare ECN field `ecn` of a packet known to carry a PCN-compatible
/// DSCP, as `netcond_pcn_remark_tos` does; bits above the two low ones are
/// returned unchanged, as is `ecn` for an `indicated` outside 0..3.
#[no_mangle]
pub extern "C" fn netcond_pcn_remark_ecn(ecn: u8, indicated: c_int) -> u8 {
    if !(0..=3).contains(&indicated) {
        return ecn;
    }
    pcn_meter::remark_ecn(ecn, mark_in(indicated))
}

// ---------------------------------------------------------------- node markers

/// Size in bytes of a node marker profile.
pub const NETCOND_NODE_PROFILE_SIZE: usize = 512;
/// Size in bytes of a 3sM node marker state (ET-marker and AS-marker).
pub const NETCOND_NODE_3SM_SIZE: usize = 32;
/// Size in bytes of an RFC 5670 node marker state (excess and threshold meters).
pub const NETCOND_NODE_RFC5670_SIZE: usize = 40;

/// A validated 3sM node marker profile (ET stage, then AS stage; opaque).
#[repr(C, align(64))]
pub struct netcond_node_3sm_profile {
    /// Opaque.
    pub opaque: [u64; 64],
}

/// A validated RFC 5670 node marker profile (excess-traffic stage, then
/// threshold stage; opaque).
#[repr(C, align(64))]
pub struct netcond_node_rfc5670_profile {
    /// Opaque.
    pub opaque: [u64; 64],
}

/// One link's 3sM node marker state: 32 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_node_3sm {
    /// Opaque.
    pub opaque: [u64; 4],
}

/// One link's RFC 5670 node marker state: 40 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_node_rfc5670 {
    /// Opaque.
    pub opaque: [u64; 5],
}

const TAG_NODE_3SM: u64 = 0x6e63_5f70_636e_0011;
const TAG_NODE_5670: u64 = 0x6e63_5f70_636e_0012;

/// The shared body of the two node profile constructors.
///
/// # Safety
/// `p`, `a` and `b` are NULL or point to valid structs of their types.
unsafe fn node_configure<O, A, B, P>(
    p: *mut O,
    a: *const A,
    b: *const B,
    tag: u64,
    build: impl FnOnce(&A, &B) -> Result<P, c_int>,
) -> c_int {
    // SAFETY: `b` is NULL or points to a readable `B` (caller contract).
    let b = unsafe { b.as_ref() };
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, a, tag, |a| match b {
            Some(b) => build(a, b),
            None => Err(NETCOND_E_NULL),
        })
    }
}

/// Validates the ET stage's and the AS stage's parameters and writes the 3sM
/// node marker profile to `p`. Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK`,
/// `NETCOND_E_ENUM`, a `NETCOND_E_ET_*` or a `NETCOND_E_AS_*` code.
///
/// # Safety
/// Each pointer is NULL or points to a valid struct of its type.
#[no_mangle]
pub unsafe extern "C" fn netcond_node_3sm_profile_config(
    p: *mut netcond_node_3sm_profile,
    et: *const netcond_et_marker_params,
    as_: *const netcond_as_marker_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        node_configure(p, et, as_, TAG_NODE_3SM, |e, a| {
            Ok(NodeProfile {
                excess: et_profile(e)?,
                threshold: as_profile(a)?,
            })
        })
    }
}

/// Starts 3sM node marker state `m` with full buckets at `now`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_node_3sm_config(
    m: *mut netcond_node_3sm,
    p: *const netcond_node_3sm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        start(
            m,
            p,
            TAG_NODE_3SM,
            now,
            <Node3sm as netcond_core::State>::start,
        )
    }
}

/// Meters a packet with both stages (ET first, then AS on the result); as
/// `netcond_et_marker_mark`.
///
/// # Safety
/// As `netcond_et_marker_mark`.
#[no_mangle]
pub unsafe extern "C" fn netcond_node_3sm_mark(
    m: *mut netcond_node_3sm,
    p: *const netcond_node_3sm_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<Node3sm, _, _>(m, p, TAG_NODE_3SM, now, pkt_len, pkt_mark) }
}

/// Validates the excess-traffic and threshold meters' parameters and writes
/// the RFC 5670 node marker profile to `p`. Returns 0, `NETCOND_E_NULL`,
/// `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a `NETCOND_E_RFC5670_*` code.
///
/// # Safety
/// Each pointer is NULL or points to a valid struct of its type.
#[no_mangle]
pub unsafe extern "C" fn netcond_node_rfc5670_profile_config(
    p: *mut netcond_node_rfc5670_profile,
    excess: *const netcond_excess_meter_params,
    threshold: *const netcond_threshold_meter_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        node_configure(p, excess, threshold, TAG_NODE_5670, |e, t| {
            Ok(NodeProfile {
                excess: etm_profile(e)?,
                threshold: tm_profile(t)?,
            })
        })
    }
}

/// Starts RFC 5670 node marker state `m` with full buckets at `now`. Returns 0
/// or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_node_rfc5670_config(
    m: *mut netcond_node_rfc5670,
    p: *const netcond_node_rfc5670_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        start(
            m,
            p,
            TAG_NODE_5670,
            now,
            <NodeRfc5670 as netcond_core::State>::start,
        )
    }
}

/// Meters a packet with both RFC 5670 meters (excess first, then threshold on
/// the result); as `netcond_et_marker_mark`.
///
/// # Safety
/// As `netcond_et_marker_mark`.
#[no_mangle]
pub unsafe extern "C" fn netcond_node_rfc5670_mark(
    m: *mut netcond_node_rfc5670,
    p: *const netcond_node_rfc5670_profile,
    now: u64,
    pkt_len: u32,
    pkt_mark: c_int,
) -> netcond_pcn_mark {
    // SAFETY: caller contract, passed on.
    unsafe { pcn_mark::<NodeRfc5670, _, _>(m, p, TAG_NODE_5670, now, pkt_len, pkt_mark) }
}
