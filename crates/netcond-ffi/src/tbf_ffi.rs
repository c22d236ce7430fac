//! The token bucket filter (crate `ras-shaper`, `Tbf`) with Linux tbf's
//! semantics (tc-tbf(8)): a rate bucket of `burst` bytes, an optional peak
//! bucket of `mtu` bytes, and a queue of at most `limit` bytes, which the
//! caller keeps.
//!
//! Per packet: `netcond_tbf_enqueue` on arrival (the caller appends the
//! packet to its FIFO when it returns `NETCOND_TBF_ACCEPT`),
//! `netcond_tbf_dequeue` with the head's length, which says whether the head
//! leaves now (the caller removes it) or writes the instant at which it may
//! (the watchdog time). Rates are in bits per second, sizes in bytes,
//! lengths are the packets' own (the buckets are charged them after the
//! profile's overhead, mpu and ATM cells).

use core::ffi::c_int;
use core::time::Duration;

use netcond_core::{Instant, LengthAdjust, Rate, TickRate};
use ras_shaper::{Tbf, TbfConfig, TbfDeparture, TbfProfile, TbfVerdict};

use crate::errors::{tbf_code, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_OK};
use crate::trtcm_ffi::configure;
use crate::{profile, profile_mut, store_profile};

/// The parameters of a token bucket filter (tc-tbf(8)). Exactly one of
/// `limit_bytes` and `latency_ns` is non-zero.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_tbf_params {
    /// The rate, bits per second.
    pub rate_bps: u64,
    /// The bucket, bytes (tc's `burst`).
    pub burst_bytes: u64,
    /// The most bytes queued (0: computed from `latency_ns`).
    pub limit_bytes: u64,
    /// The latency tc turns into a limit, ns (0: `limit_bytes` is given).
    pub latency_ns: u64,
    /// The peak rate, bits per second (0: none).
    pub peakrate_bps: u64,
    /// The peak bucket, bytes (tc's `mtu`; read only with a peak rate).
    pub mtu_bytes: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// Bytes added to every packet's charge (tc's `overhead`), may be negative.
    pub overhead: i32,
    /// The least a packet is charged (tc's `mpu`), bytes.
    pub mpu: u32,
    /// Non-zero: charge in ATM cells (tc's `linklayer atm`).
    pub linklayer_atm: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A validated token bucket filter profile (opaque).
#[repr(C, align(64))]
pub struct netcond_tbf_profile {
    /// Opaque.
    pub opaque: [u64; 40],
}

/// Size in bytes of a `netcond_tbf`.
pub const NETCOND_TBF_SIZE: usize = 64;

/// One token bucket filter: its tokens and backlog (opaque; must be started
/// by `netcond_tbf_config`). The packets are the caller's.
#[repr(C, align(64))]
pub struct netcond_tbf {
    /// Opaque.
    pub opaque: [u64; 8],
}

const _: () = assert!(core::mem::size_of::<netcond_tbf>() == NETCOND_TBF_SIZE);

/// `netcond_tbf_enqueue`: queued; the caller appends the packet to its FIFO.
pub const NETCOND_TBF_ACCEPT: c_int = 0;
/// `netcond_tbf_enqueue`: dropped, the backlog would exceed the limit.
pub const NETCOND_TBF_DROP_OVER_LIMIT: c_int = 1;
/// `netcond_tbf_enqueue`: dropped, longer than the burst (or the mtu), so it
/// could never leave (Linux drops it at enqueue too).
pub const NETCOND_TBF_DROP_TOO_BIG: c_int = 2;

/// `netcond_tbf_dequeue`: not yet; the instant at which the head may leave
/// was written.
pub const NETCOND_TBF_WAIT: c_int = 0;
/// `netcond_tbf_dequeue`: the head leaves now; the caller removes it.
pub const NETCOND_TBF_NOW: c_int = 1;
/// `netcond_tbf_dequeue`: never, the head is longer than a bucket (not a
/// length `netcond_tbf_enqueue` accepted).
pub const NETCOND_TBF_NEVER: c_int = 2;

const TAG_TBF: u64 = 0x6e63_5f74_6266_0001;
const TAG_TBF_STATE: u64 = 0x6e63_5f74_6266_0002;

/// Validates `params` and writes the profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_TBF_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_profile_config(
    p: *mut netcond_tbf_profile,
    params: *const netcond_tbf_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_TBF, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            let tick = TickRate::from_hz(a.tick_hz).ok_or(NETCOND_E_TICK)?;
            let mut cfg =
                TbfConfig::with_limit(Rate::from_bits_per_sec(a.rate_bps), a.burst_bytes, 0)
                    .with_adjust(LengthAdjust {
                        overhead: a.overhead,
                        mpu: a.mpu,
                        atm: a.linklayer_atm != 0,
                    })
                    .with_tick(tick);
            cfg.limit = (a.limit_bytes != 0).then_some(a.limit_bytes);
            cfg.latency = (a.latency_ns != 0).then(|| Duration::from_nanos(a.latency_ns));
            if a.peakrate_bps != 0 {
                cfg = cfg.with_peak(Rate::from_bits_per_sec(a.peakrate_bps), a.mtu_bytes);
            }
            TbfProfile::new(&cfg).map_err(tbf_code)
        })
    }
}

/// The queue limit of profile `p`, bytes (given, or computed from the
/// latency as tc does); 0 for NULL or an unconfigured profile.
///
/// # Safety
/// `p` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_limit(p: *const netcond_tbf_profile) -> u64 {
    // SAFETY: caller contract.
    unsafe { profile::<_, TbfProfile>(p, TAG_TBF) }.map_or(0, TbfProfile::limit)
}

/// The longest packet profile `p` can ever send, bytes (the burst, or the
/// mtu when smaller); longer ones are dropped at enqueue. 0 for NULL.
///
/// # Safety
/// `p` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_max_size(p: *const netcond_tbf_profile) -> u32 {
    // SAFETY: caller contract.
    unsafe { profile::<_, TbfProfile>(p, TAG_TBF) }.map_or(0, TbfProfile::max_size)
}

/// Starts `s` on profile `p` at `now`: full buckets, empty queue. Returns 0
/// or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_config(
    s: *mut netcond_tbf,
    p: *const netcond_tbf_profile,
    now: u64,
) -> c_int {
    if s.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, TbfProfile>(p, TAG_TBF) }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: `s` is non-NULL and writable.
    unsafe { store_profile(s, TAG_TBF_STATE, Tbf::new(p, Instant::from_ticks(now))) };
    NETCOND_OK
}

/// A packet of `pkt_len` bytes arrives at `now`. Returns
/// `NETCOND_TBF_ACCEPT` (the caller appends it to its FIFO),
/// `NETCOND_TBF_DROP_OVER_LIMIT`, `NETCOND_TBF_DROP_TOO_BIG`, or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_enqueue(
    s: *mut netcond_tbf,
    p: *const netcond_tbf_profile,
    now: u64,
    pkt_len: u32,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(s), Some(p)) = (unsafe { tbf(s, p) }) else {
        return NETCOND_E_NULL;
    };
    match s.enqueue(p, Instant::from_ticks(now), pkt_len) {
        TbfVerdict::Accept => NETCOND_TBF_ACCEPT,
        TbfVerdict::DropOverLimit => NETCOND_TBF_DROP_OVER_LIMIT,
        TbfVerdict::DropTooBig => NETCOND_TBF_DROP_TOO_BIG,
    }
}

/// The head of the caller's FIFO, of `head_len` bytes, leaves at `now` if
/// both buckets hold its charge: returns `NETCOND_TBF_NOW` (tokens taken,
/// the caller removes it). Otherwise nothing changes and it returns
/// `NETCOND_TBF_WAIT`, writing to `*at` (if not NULL) the instant at which
/// the head may leave, or `NETCOND_TBF_NEVER`. `NETCOND_E_NULL` for NULL or
/// unstarted arguments.
///
/// # Safety
/// Each pointer is NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_dequeue(
    s: *mut netcond_tbf,
    p: *const netcond_tbf_profile,
    now: u64,
    head_len: u32,
    at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(s), Some(p)) = (unsafe { tbf(s, p) }) else {
        return NETCOND_E_NULL;
    };
    match s.dequeue(p, Instant::from_ticks(now), head_len) {
        TbfDeparture::Now => NETCOND_TBF_NOW,
        TbfDeparture::At(t) => {
            // SAFETY: `at` is NULL or writable (caller contract).
            if let Some(o) = unsafe { at.as_mut() } {
                *o = t.ticks();
            }
            NETCOND_TBF_WAIT
        }
        TbfDeparture::Never => NETCOND_TBF_NEVER,
    }
}

/// The earliest instant, not before `now`, at which a head of `head_len`
/// bytes may leave: returns 1 and writes it to `*at` (if not NULL), 0 if it
/// never can, or `NETCOND_E_NULL`. Changes nothing.
///
/// # Safety
/// Each pointer is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_next_departure(
    s: *const netcond_tbf,
    p: *const netcond_tbf_profile,
    now: u64,
    head_len: u32,
    at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(s), Some(p)) = (unsafe {
        (
            profile::<_, Tbf>(s, TAG_TBF_STATE),
            profile::<_, TbfProfile>(p, TAG_TBF),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    match s.next_departure(p, Instant::from_ticks(now), head_len) {
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

/// Bytes queued in `s` (accepted and not yet dequeued); 0 on NULL or unstarted.
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_backlog(s: *const netcond_tbf) -> u64 {
    // SAFETY: caller contract.
    unsafe { profile::<_, Tbf>(s, TAG_TBF_STATE) }.map_or(0, Tbf::backlog)
}

/// Packets queued in `s`; 0 on NULL or unstarted.
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_tbf_packets(s: *const netcond_tbf) -> u32 {
    // SAFETY: caller contract.
    unsafe { profile::<_, Tbf>(s, TAG_TBF_STATE) }.map_or(0, Tbf::packets)
}

/// The state and profile, if both are present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
#[inline(always)]
unsafe fn tbf<'a>(
    s: *mut netcond_tbf,
    p: *const netcond_tbf_profile,
) -> (Option<&'a mut Tbf>, Option<&'a TbfProfile>) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, Tbf>(s, TAG_TBF_STATE),
            profile::<_, TbfProfile>(p, TAG_TBF),
        )
    }
}
