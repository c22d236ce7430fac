//! The three-color markers (RFC 2697 srTCM, RFC 2698 trTCM, RFC 4115), their
//! 16-byte compact states, and the EF premium policer.
//!
//! Rates are in bytes per second, as in DPDK's `rte_meter` (converted to the
//! Rust `Rate`, saturating at 2^64 - 1 bits per second); bursts in bytes; times
//! in ticks of a clock of `tick_hz` ticks per second, chosen by the caller (the
//! TSC, nanoseconds, ...). Every packet is colored exactly as the Rust crate
//! `trtcm` colors it.

use core::ffi::c_int;

use netcond_core::{Instant, Rate, TickRate};
use trtcm::{
    Compact, CompactProfile, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig,
    PremiumPolicerProfile, Rfc4115, Rfc4115Config, Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig,
    SrTcmProfile, ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile,
};

use crate::errors::{
    compact_code, policer_code, rfc4115_code, srtcm_code, trtcm_code, NETCOND_E_COUNT,
    NETCOND_E_ENUM, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_OK,
};
use crate::{clear_tag, netcond_color, profile, state, state_ref, store_profile, store_state};

mod color_table;
mod compact;
mod counted;
mod length;
mod packets;
mod policer;
mod update;

pub use color_table::*;
pub use compact::*;
pub use counted::*;
pub use length::*;
pub use packets::*;
pub use policer::*;
pub use update::*;

/// Size in bytes of every three-color marker profile struct.
pub const NETCOND_TCM_PROFILE_SIZE: usize = 256;
/// Size in bytes of the 24-byte per-flow states (srTCM, trTCM, RFC 4115, policer).
pub const NETCOND_TCM_STATE_SIZE: usize = 24;
/// Size in bytes of the compact per-flow states.
pub const NETCOND_TCM_COMPACT_SIZE: usize = 16;

/// The parameters of an srTCM (RFC 2697 section 2), as DPDK's
/// `rte_meter_srtcm_params` plus the clock.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_srtcm_params {
    /// Committed Information Rate, bytes per second.
    pub cir: u64,
    /// Committed Burst Size, bytes.
    pub cbs: u64,
    /// Excess Burst Size, bytes.
    pub ebs: u64,
    /// Ticks per second of the timestamps passed to the meter (e.g. 10^9 for
    /// nanoseconds, `rte_get_tsc_hz()` for TSC cycles).
    pub tick_hz: u64,
}

/// The parameters of a trTCM (RFC 2698 section 2), as DPDK's
/// `rte_meter_trtcm_params` plus the clock.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_trtcm_params {
    /// Committed Information Rate, bytes per second.
    pub cir: u64,
    /// Peak Information Rate, bytes per second (>= CIR).
    pub pir: u64,
    /// Committed Burst Size, bytes.
    pub cbs: u64,
    /// Peak Burst Size, bytes.
    pub pbs: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
}

/// RFC 4115's rule for a packet exactly as large as a bucket's tokens.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_rfc4115_ties {
    /// Figure 1: conforms when `B <= T` (DPDK's rule; the default, 0).
    NETCOND_RFC4115_FIGURE1 = 0,
    /// Section 3's text: conforms when `T - B > 0`.
    NETCOND_RFC4115_TEXT = 1,
}

/// The parameters of an RFC 4115 marker (section 2), as DPDK's
/// `rte_meter_trtcm_rfc4115_params` plus the clock and the tie rule.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_rfc4115_params {
    /// Committed Information Rate, bytes per second.
    pub cir: u64,
    /// Excess Information Rate, bytes per second.
    pub eir: u64,
    /// Committed Burst Size, bytes.
    pub cbs: u64,
    /// Excess Burst Size, bytes.
    pub ebs: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// A `netcond_rfc4115_ties` value (0, figure 1, unless set).
    pub ties: i32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// The parameters of the EF premium policer: one token bucket (TBs at the
/// committed rate) in front of a premium buffer of PBs bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_policer_params {
    /// The committed rate, bytes per second.
    pub rate: u64,
    /// Token Bucket size TBs, bytes.
    pub tbs: u64,
    /// Premium Buffer size PBs, bytes.
    pub pbs: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// The largest packet of the stream, bytes (TBs and PBs must hold one).
    pub max_packet: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A policer's verdict on a packet.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_policer_verdict {
    /// Conforming and admitted to the premium buffer.
    NETCOND_ADMITTED = 0,
    /// Nonconforming: dropped by the policer, no tokens spent.
    NETCOND_POLICER_DROP = 1,
    /// Conforming, but the premium buffer had no room (tokens spent).
    NETCOND_BUFFER_DROP = 2,
}

/// A validated srTCM profile (opaque; filled by `netcond_srtcm_profile_config`,
/// then read-only and shareable by any number of flows and threads).
#[repr(C, align(64))]
pub struct netcond_srtcm_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated trTCM profile (opaque; see `netcond_srtcm_profile`).
#[repr(C, align(64))]
pub struct netcond_trtcm_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated RFC 4115 profile (opaque; see `netcond_srtcm_profile`).
#[repr(C, align(64))]
pub struct netcond_rfc4115_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated srTCM profile for compact states (opaque).
#[repr(C, align(64))]
pub struct netcond_srtcm_compact_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated trTCM profile for compact states (opaque).
#[repr(C, align(64))]
pub struct netcond_trtcm_compact_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated RFC 4115 profile for compact states (opaque).
#[repr(C, align(64))]
pub struct netcond_rfc4115_compact_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// A validated premium policer profile (opaque).
#[repr(C, align(64))]
pub struct netcond_policer_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// One flow's srTCM state: 24 bytes, 8-aligned (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_srtcm {
    /// Opaque.
    pub opaque: [u64; 3],
}

/// One flow's trTCM state: 24 bytes, 8-aligned (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_trtcm {
    /// Opaque.
    pub opaque: [u64; 3],
}

/// One flow's RFC 4115 state: 24 bytes, 8-aligned (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_rfc4115 {
    /// Opaque.
    pub opaque: [u64; 3],
}

/// One flow's srTCM state in 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_srtcm_compact {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One flow's trTCM state in 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_trtcm_compact {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One flow's RFC 4115 state in 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_rfc4115_compact {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One flow's premium policer state: 24 bytes, 8-aligned (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_policer {
    /// Opaque.
    pub opaque: [u64; 3],
}

/// A copy of a three-color marker state's contents.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_tcm_tokens {
    /// Tokens of bucket C, in units of 1/scale byte (scale chosen at profile
    /// configuration so that a tick adds a whole number of units).
    pub tc: u64,
    /// Tokens of bucket E (srTCM, RFC 4115) or P (trTCM), in its own units.
    pub te: u64,
    /// The time of the last update, in ticks.
    pub last: u64,
}

/// A copy of a premium policer state's contents.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_policer_tokens {
    /// Tokens, in units of 1/scale byte.
    pub tokens: u64,
    /// Bytes in the premium buffer.
    pub backlog: u64,
    /// The time of the last update, in ticks.
    pub last: u64,
}

// The per-packet tags are below 2^31, so that x86-64 compares the profile's
// first word with a sign-extended 32-bit immediate (one `cmp` instead of a
// 64-bit constant load and a `cmp`); the upper half of the word is zero.
pub(crate) const TAG_SRTCM: u64 = 0x6e63_7372;
pub(crate) const TAG_TRTCM: u64 = 0x6e63_7472;
const TAG_RFC4115: u64 = 0x6e63_3431;
const TAG_SRTCM_COMPACT: u64 = 0x6e63_7363;
const TAG_TRTCM_COMPACT: u64 = 0x6e63_7463;
const TAG_RFC4115_COMPACT: u64 = 0x6e63_3463;
const TAG_POLICER: u64 = 0x6e63_706f;

/// The tick clock of `hz`, or `NETCOND_E_TICK`.
fn tick(hz: u64) -> Result<TickRate, c_int> {
    TickRate::from_hz(hz).ok_or(NETCOND_E_TICK)
}

fn srtcm_cfg(p: &netcond_srtcm_params) -> Result<SrTcmConfig, c_int> {
    Ok(SrTcmConfig::new(Rate::from_bytes_per_sec(p.cir), p.cbs, p.ebs).with_tick(tick(p.tick_hz)?))
}

fn trtcm_cfg(p: &netcond_trtcm_params) -> Result<TrTcmConfig, c_int> {
    Ok(TrTcmConfig::new(
        Rate::from_bytes_per_sec(p.cir),
        Rate::from_bytes_per_sec(p.pir),
        p.cbs,
        p.pbs,
    )
    .with_tick(tick(p.tick_hz)?))
}

fn rfc4115_cfg(p: &netcond_rfc4115_params) -> Result<(Rfc4115Config, Rfc4115Ties), c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    let ties = match p.ties {
        0 => Rfc4115Ties::Figure1,
        1 => Rfc4115Ties::Text,
        _ => return Err(NETCOND_E_ENUM),
    };
    Ok((
        Rfc4115Config::new(
            Rate::from_bytes_per_sec(p.cir),
            Rate::from_bytes_per_sec(p.eir),
            p.cbs,
            p.ebs,
        )
        .with_tick(tick(p.tick_hz)?),
        ties,
    ))
}

fn srtcm_profile(p: &netcond_srtcm_params) -> Result<SrTcmProfile, c_int> {
    SrTcmProfile::new(&srtcm_cfg(p)?).map_err(srtcm_code)
}

fn trtcm_profile(p: &netcond_trtcm_params) -> Result<TrTcmProfile, c_int> {
    TrTcmProfile::new(&trtcm_cfg(p)?).map_err(trtcm_code)
}

fn rfc4115_profile(p: &netcond_rfc4115_params) -> Result<Rfc4115Profile, c_int> {
    let (cfg, ties) = rfc4115_cfg(p)?;
    Rfc4115Profile::with_ties(&cfg, ties).map_err(rfc4115_code)
}

/// The shared body of every `*_profile_config`: NULL checks, build, store or
/// clear the tag.
///
/// # Safety
/// `out` is NULL or points to a writable `O`; `params` is NULL or points to a
/// readable `A`.
#[inline]
pub(crate) unsafe fn configure<O, A, P>(
    out: *mut O,
    params: *const A,
    tag: u64,
    build: impl FnOnce(&A) -> Result<P, c_int>,
) -> c_int {
    if out.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: `params` is NULL or points to a readable `A` (caller contract).
    let result = match unsafe { params.as_ref() } {
        None => Err(NETCOND_E_NULL),
        Some(a) => build(a),
    };
    match result {
        Ok(p) => {
            // SAFETY: `out` is non-NULL and writable (caller contract).
            unsafe { store_profile(out, tag, p) };
            NETCOND_OK
        }
        Err(code) => {
            // SAFETY: as above.
            unsafe { clear_tag(out) };
            code
        }
    }
}

/// The shared body of every `*_config`: one fresh state at `now`.
///
/// # Safety
/// `m` is NULL or points to a writable `O`; `p` is NULL or a profile struct `PO`.
#[inline]
pub(crate) unsafe fn start<O, S, PO, P>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    now: u64,
    fresh: impl Fn(&P, Instant) -> S,
) -> c_int {
    if m.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: `p` is NULL or a profile struct (caller contract).
    let Some(p) = (unsafe { profile::<PO, P>(p, tag) }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: `m` is non-NULL and writable.
    unsafe { store_state(m, fresh(p, Instant::from_ticks(now))) };
    NETCOND_OK
}

/// The shared body of every `*_config_array`: `n` fresh states at `now`.
///
/// # Safety
/// `m` is NULL or points to `n` writable `O`s; `p` is NULL or a profile struct.
#[inline]
unsafe fn start_array<O, S: Copy, PO, P>(
    m: *mut O,
    n: usize,
    p: *const PO,
    tag: u64,
    now: u64,
    fresh: impl Fn(&P, Instant) -> S,
) -> c_int {
    if m.is_null() {
        return NETCOND_E_NULL;
    }
    if n == 0 {
        return NETCOND_E_COUNT;
    }
    // SAFETY: `p` is NULL or a profile struct (caller contract).
    let Some(p) = (unsafe { profile::<PO, P>(p, tag) }) else {
        return NETCOND_E_NULL;
    };
    let s = fresh(p, Instant::from_ticks(now));
    let mut q = m;
    for _ in 0..n {
        // SAFETY: `q` is one of the `n` writable `O`s of the array.
        unsafe { store_state(q, s) };
        // Stays within the array or one past its end.
        q = q.wrapping_add(1);
    }
    NETCOND_OK
}

/// The shared body of every per-packet call: `f(state, profile)`, or `none`
/// for a NULL state or an unusable profile.
///
/// # Safety
/// `m` is NULL or a state struct `O` holding an `S` (or zeros) used by this call
/// only; `p` is NULL or a profile struct `PO`.
#[inline(always)]
pub(crate) unsafe fn with<O, S, PO, P, R>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    none: R,
    f: impl FnOnce(&mut S, &P) -> R,
) -> R {
    // SAFETY: caller contract, passed on.
    let Some(p) = (unsafe { profile::<PO, P>(p, tag) }) else {
        return refused(none);
    };
    // SAFETY: caller contract, passed on.
    let Some(m) = (unsafe { state::<O, S>(m) }) else {
        return refused(none);
    };
    f(m, p)
}

/// The answer to a call with a NULL or unusable argument. Out of line and
/// `#[cold]`, so that the compiler lays out the checks of [`with`] as
/// branches not taken and loads no default answer on the fast path.
#[cold]
#[inline(never)]
fn refused<R>(none: R) -> R {
    // Opaque, so that the call (and with it the hint) is not folded away.
    core::hint::black_box(none)
}

/// The body of every color-blind export: `NETCOND_RED` for a NULL or
/// unusable argument.
///
/// # Safety
/// As [`with`].
#[inline(always)]
unsafe fn blind<M: ThreeColorMarker, O, PO>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, tag, netcond_color::NETCOND_RED, |m: &mut M, p| {
            m.color_blind(p, Instant::from_ticks(time), pkt_len).into()
        })
    }
}

/// The body of every color-aware export (`pkt_color` other than 0 or 1 is
/// red): `NETCOND_RED` for a NULL or unusable argument.
///
/// # Safety
/// As [`with`].
#[inline(always)]
unsafe fn aware<M: ThreeColorMarker, O, PO>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    let input = crate::color_in(pkt_color);
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, tag, netcond_color::NETCOND_RED, |m: &mut M, p| {
            m.color_aware(p, Instant::from_ticks(time), pkt_len, input)
                .into()
        })
    }
}

// ---------------------------------------------------------------- srTCM

/// Validates `params` and writes the srTCM profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_SRTCM_*` code;
/// on error `p` is left unusable (every call with it fails or colors red).
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_profile_config(
    p: *mut netcond_srtcm_profile,
    params: *const netcond_srtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_SRTCM, srtcm_profile) }
}

/// Starts flow state `m` on profile `p` with both buckets full at time `now`.
///
/// Returns 0 or `NETCOND_E_NULL` (`m` or `p` NULL, or `p` not configured).
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_config(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_SRTCM, now, SrTcm::new) }
}

/// Starts the `n` flow states at `m` as `netcond_srtcm_config` does.
///
/// Returns 0, `NETCOND_E_NULL` or `NETCOND_E_COUNT` (`n` is 0).
///
/// # Safety
/// `m` is NULL or points to `n` states; `p` is NULL or a profile.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_config_array(
    m: *mut netcond_srtcm,
    n: usize,
    p: *const netcond_srtcm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_array(m, n, p, TAG_SRTCM, now, SrTcm::new) }
}

/// Colors a packet of `pkt_len` bytes arriving at `time`, color-blind
/// (RFC 2697 section 3). `NETCOND_RED` if `m` or `p` is NULL or `p` is not
/// configured.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_blind_check(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind::<SrTcm, _, _>(m, p, TAG_SRTCM, time, pkt_len) }
}

/// Colors a packet pre-colored `pkt_color` (a `netcond_color`; any other value
/// counts as red), color-aware. `NETCOND_RED` on a NULL or unconfigured argument.
///
/// # Safety
/// As `netcond_srtcm_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_aware_check(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware::<SrTcm, _, _>(m, p, TAG_SRTCM, time, pkt_len, pkt_color) }
}

/// Copies the token counts and last update time of `m` to `out`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_read(
    m: *const netcond_srtcm,
    out: *mut netcond_tcm_tokens,
) -> c_int {
    // SAFETY: caller contract.
    unsafe { read_tcm::<_, SrTcm>(m, out, |s| [s.tc(), s.te(), s.last().ticks()]) }
}

/// The shared body of the `*_read` functions.
///
/// # Safety
/// `m` is NULL or a state struct holding an `S`; `out` is NULL or writable.
#[inline]
unsafe fn read_tcm<O, S>(
    m: *const O,
    out: *mut netcond_tcm_tokens,
    f: impl FnOnce(&S) -> [u64; 3],
) -> c_int {
    // SAFETY: caller contract, passed on.
    let (Some(s), Some(out)) = (unsafe { state_ref::<O, S>(m) }, unsafe { out.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    let [tc, te, last] = f(s);
    *out = netcond_tcm_tokens { tc, te, last };
    NETCOND_OK
}

// ---------------------------------------------------------------- trTCM

/// Validates `params` and writes the trTCM profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_TRTCM_*` code;
/// on error `p` is left unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_profile_config(
    p: *mut netcond_trtcm_profile,
    params: *const netcond_trtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_TRTCM, trtcm_profile) }
}

/// Starts flow state `m` on profile `p` with both buckets full at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_config(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_TRTCM, now, TrTcm::new) }
}

/// Starts the `n` flow states at `m`. Returns 0, `NETCOND_E_NULL` or
/// `NETCOND_E_COUNT`.
///
/// # Safety
/// `m` is NULL or points to `n` states; `p` is NULL or a profile.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_config_array(
    m: *mut netcond_trtcm,
    n: usize,
    p: *const netcond_trtcm_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_array(m, n, p, TAG_TRTCM, now, TrTcm::new) }
}

/// Colors a packet, color-blind (RFC 2698 section 3). `NETCOND_RED` on a NULL
/// or unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_blind_check(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind::<TrTcm, _, _>(m, p, TAG_TRTCM, time, pkt_len) }
}

/// Colors a packet pre-colored `pkt_color`, color-aware. `NETCOND_RED` on a
/// NULL or unconfigured argument.
///
/// # Safety
/// As `netcond_trtcm_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_aware_check(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware::<TrTcm, _, _>(m, p, TAG_TRTCM, time, pkt_len, pkt_color) }
}

/// Colors a burst of `n` packets of one flow, color-blind: packet `i` has
/// `pkt_len[i]` bytes and arrives at `time[i]`, and its color (a
/// `netcond_color` value) is written to `color[i]`, exactly as `n` calls of
/// `netcond_trtcm_color_blind_check` in order would. The pointers and the
/// profile are checked once for the burst.
///
/// Returns 0, `NETCOND_E_NULL` (a NULL pointer or an unconfigured profile;
/// nothing is written) or `NETCOND_E_COUNT` (`n` is 0).
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `time` and `pkt_len` are
/// NULL or point to `n` readable elements, `color` is NULL or points to `n`
/// writable bytes; `m` is used by no other thread during the call, and
/// `color` overlaps none of the other arguments.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_blind_bulk(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: *const u64,
    pkt_len: *const u32,
    color: *mut u8,
    n: usize,
) -> c_int {
    if time.is_null() || pkt_len.is_null() || color.is_null() {
        return NETCOND_E_NULL;
    }
    if n == 0 {
        return NETCOND_E_COUNT;
    }
    // SAFETY: caller contract: the three arrays hold `n` elements, `color`
    // is writable and overlaps nothing else.
    let (times, lens, out) = unsafe {
        (
            core::slice::from_raw_parts(time, n),
            core::slice::from_raw_parts(pkt_len, n),
            core::slice::from_raw_parts_mut(color, n),
        )
    };
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, TAG_TRTCM, NETCOND_E_NULL, |m: &mut TrTcm, p| {
            for ((&t, &len), c) in times.iter().zip(lens).zip(out.iter_mut()) {
                *c = netcond_color::from(m.color_blind(p, Instant::from_ticks(t), len)) as u8;
            }
            NETCOND_OK
        })
    }
}

/// Copies the token counts (C, P) and last update of `m` to `out`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_read(
    m: *const netcond_trtcm,
    out: *mut netcond_tcm_tokens,
) -> c_int {
    // SAFETY: caller contract.
    unsafe { read_tcm::<_, TrTcm>(m, out, |s| [s.tc(), s.tp(), s.last().ticks()]) }
}

// ---------------------------------------------------------------- RFC 4115

/// Validates `params` and writes the RFC 4115 profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` (`ties`
/// out of range) or a `NETCOND_E_RFC4115_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_profile_config(
    p: *mut netcond_rfc4115_profile,
    params: *const netcond_rfc4115_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_RFC4115, rfc4115_profile) }
}

/// Starts flow state `m` on profile `p` with both buckets full at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_config(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_RFC4115, now, Rfc4115::new) }
}

/// Starts the `n` flow states at `m`. Returns 0, `NETCOND_E_NULL` or
/// `NETCOND_E_COUNT`.
///
/// # Safety
/// `m` is NULL or points to `n` states; `p` is NULL or a profile.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_config_array(
    m: *mut netcond_rfc4115,
    n: usize,
    p: *const netcond_rfc4115_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_array(m, n, p, TAG_RFC4115, now, Rfc4115::new) }
}

/// Colors a packet, color-blind (RFC 4115 section 3). `NETCOND_RED` on a NULL
/// or unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_blind_check(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind::<Rfc4115, _, _>(m, p, TAG_RFC4115, time, pkt_len) }
}

/// Colors a packet pre-colored `pkt_color`, color-aware. `NETCOND_RED` on a
/// NULL or unconfigured argument.
///
/// # Safety
/// As `netcond_rfc4115_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_aware_check(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware::<Rfc4115, _, _>(m, p, TAG_RFC4115, time, pkt_len, pkt_color) }
}

/// Copies the token counts (C, E) and last update of `m` to `out`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_read(
    m: *const netcond_rfc4115,
    out: *mut netcond_tcm_tokens,
) -> c_int {
    // SAFETY: caller contract.
    unsafe { read_tcm::<_, Rfc4115>(m, out, |s| [s.tc(), s.te(), s.last().ticks()]) }
}
