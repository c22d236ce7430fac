//! RFC 2963 rate adaptive shapers (crate `ras-shaper`): the single-rate
//! (srRAS) and two-rate (trRAS) shapers, with the crate's fixed-capacity queue
//! holding up to `NETCOND_RAS_QUEUE` packets, each its length and a 64-bit
//! cookie of the caller's (a buffer index, an mbuf pointer cast to an integer).
//!
//! Per packet: `netcond_ras_enqueue` on arrival, `netcond_ras_next_release` for
//! when to come back, `netcond_ras_dequeue` at or after that instant. Rates are
//! in bits per second, sizes and thresholds in bytes, K in nanoseconds.
//!
//! `netcond_ras_core_*` is the same shaper without its queue
//! (`ras_shaper::RasCore`): the caller keeps the packets in a queue of its own
//! and tells the shaper each arrival's length and, on release, the head's
//! length and the next packet's arrival time; the decisions and release
//! instants are those of `netcond_ras_*`.

use core::ffi::c_int;
use core::time::Duration;

use netcond_core::{Instant, Rate, TickRate};
use ras_shaper::{
    Ras, RasCore, RasProfile, SrRasConfig, SrRasProfile, SrThresholds, TrRasConfig, TrRasProfile,
    TrThresholds,
};

use crate::errors::{ras_code, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_OK};
use crate::trtcm_ffi::configure;
use crate::{profile, profile_mut, store_profile};

/// The packets a shaper's queue holds.
pub const NETCOND_RAS_QUEUE: usize = 64;
/// Size in bytes of a `netcond_ras`.
pub const NETCOND_RAS_SIZE: usize = 2048;

/// The parameters of a single-rate RAS (RFC 2963 section 2.2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_srras_params {
    /// CIR, bits per second.
    pub cir_bps: u64,
    /// MIR, bits per second (0: the line rate).
    pub mir_bps: u64,
    /// The line rate, bits per second.
    pub line_rate_bps: u64,
    /// The buffer size, bytes.
    pub buffer_bytes: u64,
    /// CIR_th, bytes (with `mir_th` 0 and 0: the RFC's defaults).
    pub cir_th: u64,
    /// MIR_th, bytes.
    pub mir_th: u64,
    /// The EAR constant K, ns (RFC 2963 section 2.3).
    pub k_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// The largest packet, bytes.
    pub max_packet_bytes: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// The parameters of a two-rate RAS (RFC 2963 section 2.4).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_trras_params {
    /// CIR, bits per second.
    pub cir_bps: u64,
    /// PIR, bits per second.
    pub pir_bps: u64,
    /// MIR, bits per second (0: the line rate).
    pub mir_bps: u64,
    /// The line rate, bits per second.
    pub line_rate_bps: u64,
    /// The buffer size, bytes.
    pub buffer_bytes: u64,
    /// CIR_th, bytes (with `pir_th` and `mir_th` all 0: the RFC's defaults).
    pub cir_th: u64,
    /// PIR_th, bytes.
    pub pir_th: u64,
    /// MIR_th, bytes.
    pub mir_th: u64,
    /// The EAR constant K, ns.
    pub k_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// The largest packet, bytes.
    pub max_packet_bytes: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A validated srRAS or trRAS profile (opaque).
#[repr(C, align(64))]
pub struct netcond_ras_profile {
    /// Opaque.
    pub opaque: [u64; 32],
}

/// One shaper: its queue of up to `NETCOND_RAS_QUEUE` packets and its rate
/// estimator (opaque; must be started by `netcond_ras_config`).
#[repr(C, align(64))]
pub struct netcond_ras {
    /// Opaque.
    pub opaque: [u64; 256],
}

const _: () = assert!(core::mem::size_of::<netcond_ras>() == NETCOND_RAS_SIZE);

pub(crate) const TAG_RAS: u64 = 0x6e63_5f72_6173_0001;
const TAG_RAS_STATE: u64 = 0x6e63_5f72_6173_0002;

fn tick(hz: u64) -> Result<TickRate, c_int> {
    TickRate::from_hz(hz).ok_or(NETCOND_E_TICK)
}

fn mir(bps: u64) -> Option<Rate> {
    (bps != 0).then(|| Rate::from_bits_per_sec(bps))
}

/// Validates `params` and writes the srRAS profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_RAS_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srras_profile_config(
    p: *mut netcond_ras_profile,
    params: *const netcond_srras_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_RAS, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            let mut cfg = SrRasConfig::new(
                Rate::from_bits_per_sec(a.cir_bps),
                Rate::from_bits_per_sec(a.line_rate_bps),
                a.buffer_bytes,
            )
            .with_max_packet_bytes(a.max_packet_bytes)
            .with_k(Duration::from_nanos(a.k_ns))
            .with_tick(tick(a.tick_hz)?);
            cfg.mir = mir(a.mir_bps);
            cfg.thresholds =
                (a.cir_th != 0 || a.mir_th != 0).then_some(SrThresholds::new(a.cir_th, a.mir_th));
            SrRasProfile::new(&cfg)
                .map(RasProfile::from)
                .map_err(ras_code)
        })
    }
}

/// Validates `params` and writes the trRAS profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_RAS_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trras_profile_config(
    p: *mut netcond_ras_profile,
    params: *const netcond_trras_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_RAS, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            let mut cfg = TrRasConfig::new(
                Rate::from_bits_per_sec(a.cir_bps),
                Rate::from_bits_per_sec(a.pir_bps),
                Rate::from_bits_per_sec(a.line_rate_bps),
                a.buffer_bytes,
            )
            .with_max_packet_bytes(a.max_packet_bytes)
            .with_k(Duration::from_nanos(a.k_ns))
            .with_tick(tick(a.tick_hz)?);
            cfg.mir = mir(a.mir_bps);
            cfg.thresholds = (a.cir_th != 0 || a.pir_th != 0 || a.mir_th != 0)
                .then_some(TrThresholds::new(a.cir_th, a.pir_th, a.mir_th));
            TrRasProfile::new(&cfg)
                .map(RasProfile::from)
                .map_err(ras_code)
        })
    }
}

/// Starts shaper `s` on profile `p`, empty at `now`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_config(
    s: *mut netcond_ras,
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
    let r = Ras::<(u32, u64), NETCOND_RAS_QUEUE>::new(p, Instant::from_ticks(now));
    // SAFETY: `s` is non-NULL and writable.
    unsafe { store_profile(s, TAG_RAS_STATE, r) };
    NETCOND_OK
}

/// A packet of `pkt_len` bytes with the caller's `cookie` arrives at `now`.
/// Returns 0 (queued), 1 (refused: the buffer or the queue is full; the packet
/// stays the caller's), or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_enqueue(
    s: *mut netcond_ras,
    p: *const netcond_ras_profile,
    now: u64,
    pkt_len: u32,
    cookie: u64,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe { ras(s, p) } {
        (Some(s), Some(p)) => c_int::from(
            s.enqueue(p, Instant::from_ticks(now), (pkt_len, cookie))
                .is_err(),
        ),
        _ => NETCOND_E_NULL,
    }
}

/// When the head packet may leave: returns 1 and writes the instant to `*at`
/// (if not NULL), 0 if the queue is empty, or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `at` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_next_release(s: *const netcond_ras, at: *mut u64) -> c_int {
    // SAFETY: caller contract.
    let Some(s) = (unsafe { profile::<_, Ras<(u32, u64), NETCOND_RAS_QUEUE>>(s, TAG_RAS_STATE) })
    else {
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

/// Releases the head packet if its release instant has come by `now`: returns
/// 1 and writes its length and cookie (each if not NULL), 0 if nothing is due,
/// or `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_dequeue(
    s: *mut netcond_ras,
    p: *const netcond_ras_profile,
    now: u64,
    pkt_len: *mut u32,
    cookie: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(s), Some(p)) = (unsafe { ras(s, p) }) else {
        return NETCOND_E_NULL;
    };
    match s.dequeue(p, Instant::from_ticks(now)) {
        Some((len, c)) => {
            // SAFETY: each is NULL or writable (caller contract).
            unsafe {
                if let Some(o) = pkt_len.as_mut() {
                    *o = len;
                }
                if let Some(o) = cookie.as_mut() {
                    *o = c;
                }
            }
            1
        }
        None => 0,
    }
}

/// The shaping rate now (bits per second; 0 on NULL or unstarted arguments).
///
/// # Safety
/// `s` and `p` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_shaping_rate(
    s: *const netcond_ras,
    p: *const netcond_ras_profile,
) -> u64 {
    // SAFETY: caller contract.
    match unsafe {
        (
            profile::<_, Ras<(u32, u64), NETCOND_RAS_QUEUE>>(s, TAG_RAS_STATE),
            profile::<_, RasProfile>(p, TAG_RAS),
        )
    } {
        (Some(s), Some(p)) => p.units_to_bits_per_sec(s.shaping_rate(p)),
        _ => 0,
    }
}

/// The packets queued in `s` (0 on NULL or unstarted).
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_len(s: *const netcond_ras) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Ras<(u32, u64), NETCOND_RAS_QUEUE>>(s, TAG_RAS_STATE) } {
        Some(s) => u32::try_from(s.len()).unwrap_or(u32::MAX),
        None => 0,
    }
}

/// The shaper and profile, if both are present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
// A `type` alias would name it more briefly, but cbindgen reads aliases of
// generic types in this crate as items to export and fails on them.
#[allow(clippy::type_complexity)]
#[inline(always)]
unsafe fn ras<'a>(
    s: *mut netcond_ras,
    p: *const netcond_ras_profile,
) -> (
    Option<&'a mut Ras<(u32, u64), NETCOND_RAS_QUEUE>>,
    Option<&'a RasProfile>,
) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, Ras<(u32, u64), NETCOND_RAS_QUEUE>>(s, TAG_RAS_STATE),
            profile::<_, RasProfile>(p, TAG_RAS),
        )
    }
}

/// Size in bytes of a `netcond_ras_core`.
pub const NETCOND_RAS_CORE_SIZE: usize = 128;

/// One srRAS or trRAS whose packet queue the caller keeps (opaque; must be
/// started by `netcond_ras_core_config`): the rate estimator, the buffer
/// occupancy, the packet count and the release schedule. The caller appends
/// the packets `netcond_ras_core_enqueue` accepts to its own queue and removes
/// its head when `netcond_ras_core_dequeue` releases it.
#[repr(C, align(64))]
pub struct netcond_ras_core {
    /// Opaque.
    pub opaque: [u64; 16],
}

const _: () = assert!(core::mem::size_of::<netcond_ras_core>() == NETCOND_RAS_CORE_SIZE);

/// What a `netcond_ras_core` holds, for logs and tests.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_ras_core_info {
    /// Packets in the caller's queue, as the shaper counts them.
    pub packets: u64,
    /// Bytes in the caller's queue (the buffer occupancy).
    pub bytes: u64,
    /// The rate estimate, in units of 2^-(S + 16) bytes per tick (S: the
    /// profile's rate scale).
    pub ear_raw: u64,
    /// The last arrival the rate estimate counted, in ticks.
    pub ear_last: u64,
    /// The head's release point, whole ticks (meaningless when empty).
    pub head_at: u64,
    /// The earliest start of the next head (last release plus its
    /// transmission time), whole ticks.
    pub next_at: u64,
    /// The fraction of a tick of `head_at`, in 2^-32 tick.
    pub head_frac: u32,
    /// The fraction of a tick of `next_at`, in 2^-32 tick.
    pub next_frac: u32,
}

const TAG_RAS_CORE: u64 = 0x6e63_5f72_6173_0003;

/// Starts `s` on profile `p`, empty at `now`, for a caller's queue of at most
/// `capacity` packets (`UINT32_MAX`: only the buffer size limits it). Returns
/// 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_core_config(
    s: *mut netcond_ras_core,
    p: *const netcond_ras_profile,
    now: u64,
    capacity: u32,
) -> c_int {
    if s.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, RasProfile>(p, TAG_RAS) }) else {
        return NETCOND_E_NULL;
    };
    let capacity = if capacity == u32::MAX {
        usize::MAX
    } else {
        usize::try_from(capacity).unwrap_or(usize::MAX)
    };
    // SAFETY: `s` is non-NULL and writable.
    unsafe {
        store_profile(
            s,
            TAG_RAS_CORE,
            RasCore::new(p, Instant::from_ticks(now), capacity),
        )
    };
    NETCOND_OK
}

/// A packet of `pkt_len` bytes arrives at `now`. Returns 0 (accepted: append
/// it to your queue), 1 (refused: the buffer or your queue is full; the rate
/// estimate still counts it), or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_core_enqueue(
    s: *mut netcond_ras_core,
    p: *const netcond_ras_profile,
    now: u64,
    pkt_len: u32,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe { ras_core(s, p) } {
        (Some(s), Some(p)) => c_int::from(!s.enqueue(p, Instant::from_ticks(now), pkt_len)),
        _ => NETCOND_E_NULL,
    }
}

/// When the head of your queue may leave: returns 1 and writes the instant to
/// `*at` (if not NULL), 0 if the queue is empty, or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `at` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_core_next_release(
    s: *const netcond_ras_core,
    at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let Some(s) = (unsafe { profile::<_, RasCore>(s, TAG_RAS_CORE) }) else {
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

/// Releases the head of your queue, of `head_len` bytes, if its release
/// instant has come by `now`: returns 1 (remove the head from your queue), 0
/// if nothing is due or the queue is empty, or `NETCOND_E_NULL`.
/// `next_arrival` is the arrival time of the packet behind the head, which
/// becomes the head; it is ignored when the head is the last packet.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_core_dequeue(
    s: *mut netcond_ras_core,
    p: *const netcond_ras_profile,
    now: u64,
    head_len: u32,
    next_arrival: u64,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe { ras_core(s, p) } {
        (Some(s), Some(p)) => c_int::from(s.dequeue(
            p,
            Instant::from_ticks(now),
            head_len,
            Instant::from_ticks(next_arrival),
        )),
        _ => NETCOND_E_NULL,
    }
}

/// The shaping rate now (bits per second; 0 on NULL or unstarted arguments).
///
/// # Safety
/// `s` and `p` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_core_shaping_rate(
    s: *const netcond_ras_core,
    p: *const netcond_ras_profile,
) -> u64 {
    // SAFETY: caller contract.
    match unsafe {
        (
            profile::<_, RasCore>(s, TAG_RAS_CORE),
            profile::<_, RasProfile>(p, TAG_RAS),
        )
    } {
        (Some(s), Some(p)) => p.units_to_bits_per_sec(s.shaping_rate(p)),
        _ => 0,
    }
}

/// Writes what `s` holds to `*info`. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `info` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_ras_core_info_get(
    s: *const netcond_ras_core,
    info: *mut netcond_ras_core_info,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(s), Some(out)) = (unsafe { (profile::<_, RasCore>(s, TAG_RAS_CORE), info.as_mut()) })
    else {
        return NETCOND_E_NULL;
    };
    *out = netcond_ras_core_info {
        packets: u64::try_from(s.len()).unwrap_or(u64::MAX),
        bytes: s.bytes(),
        ear_raw: s.ear().raw(),
        ear_last: s.ear().last_arrival().ticks(),
        head_at: s.head_schedule().at.ticks(),
        next_at: s.next_start().at.ticks(),
        head_frac: s.head_schedule().frac,
        next_frac: s.next_start().frac,
    };
    NETCOND_OK
}

/// The core and profile, if both are present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
#[inline(always)]
unsafe fn ras_core<'a>(
    s: *mut netcond_ras_core,
    p: *const netcond_ras_profile,
) -> (Option<&'a mut RasCore>, Option<&'a RasProfile>) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, RasCore>(s, TAG_RAS_CORE),
            profile::<_, RasProfile>(p, TAG_RAS),
        )
    }
}
