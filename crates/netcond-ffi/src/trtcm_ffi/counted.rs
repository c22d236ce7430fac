//! Per-color counters (DPDK's `rte_mtr_stats`): the `*_counted` calls color
//! (or police) a packet exactly as the call without the suffix does, then
//! record it in a caller's `netcond_counters`, as the Rust `trtcm::Counters`
//! and the `..._counted` methods do. The calls without the suffix count
//! nothing and cost nothing more.

use trtcm::Counters;

use super::*;

/// Packets and bytes per output color, and the packets and bytes a policer
/// dropped (DPDK's `rte_mtr_stats`): the Rust `trtcm::Counters`. Counts
/// saturate at 2^64 - 1. The fields are public: zero the struct to start, read
/// or add them up as you like.
///
/// A marker's `*_counted` call adds the packet (one packet and `pkt_len`
/// bytes, in packet mode too) to its output color. The policer's adds it to
/// green if it conformed (admitted or dropped for want of buffer) and to red
/// if not, and to the dropped counts unless it was admitted.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_counters {
    /// Packets per color, indexed by `netcond_color`.
    pub packets: [u64; 3],
    /// Bytes per color, indexed by `netcond_color`.
    pub bytes: [u64; 3],
    /// Packets dropped (the policer's policer and buffer drops).
    pub dropped_packets: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
}

const _: () = assert!(core::mem::size_of::<netcond_counters>() == 64);

impl From<netcond_counters> for Counters {
    #[inline(always)]
    fn from(c: netcond_counters) -> Counters {
        Counters {
            packets: c.packets,
            bytes: c.bytes,
            dropped_packets: c.dropped_packets,
            dropped_bytes: c.dropped_bytes,
        }
    }
}

impl From<Counters> for netcond_counters {
    #[inline(always)]
    fn from(c: Counters) -> netcond_counters {
        netcond_counters {
            packets: c.packets,
            bytes: c.bytes,
            dropped_packets: c.dropped_packets,
            dropped_bytes: c.dropped_bytes,
        }
    }
}

/// The body of every counted export: `f(state, profile, counters)` with the
/// caller's counters (or scratch ones if `c` is NULL), `none` for a NULL
/// state or an unusable profile (nothing counted).
///
/// # Safety
/// As [`with`]; `c` is NULL or points to a `netcond_counters` that overlaps
/// neither `m` nor `p` and is used by no other thread during the call.
#[inline(always)]
unsafe fn counted<O, S, PO, P, R: Copy>(
    m: *mut O,
    p: *const PO,
    c: *mut netcond_counters,
    tag: u64,
    none: R,
    f: impl FnOnce(&mut S, &P, &mut Counters) -> R,
) -> R {
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, tag, none, |m: &mut S, p: &P| {
            // SAFETY: `c` is NULL or valid and unaliased (caller contract).
            match c.as_mut() {
                Some(c) => {
                    let mut k = Counters::from(*c);
                    let r = f(m, p, &mut k);
                    *c = k.into();
                    r
                }
                None => f(m, p, &mut Counters::default()),
            }
        })
    }
}

const RED: netcond_color = netcond_color::NETCOND_RED;

/// A C marker state struct: the Rust marker it holds and the tag of its
/// profile.
pub(super) trait MarkerState {
    /// The marker.
    type M: ThreeColorMarker;
    /// The tag of the profile struct it is used with.
    const TAG: u64;
}

impl MarkerState for netcond_srtcm {
    type M = SrTcm;
    const TAG: u64 = TAG_SRTCM;
}

impl MarkerState for netcond_trtcm {
    type M = TrTcm;
    const TAG: u64 = TAG_TRTCM;
}

impl MarkerState for netcond_rfc4115 {
    type M = Rfc4115;
    const TAG: u64 = TAG_RFC4115;
}

impl MarkerState for netcond_srtcm_compact {
    type M = Compact<SrTcm>;
    const TAG: u64 = TAG_SRTCM_COMPACT;
}

impl MarkerState for netcond_trtcm_compact {
    type M = Compact<TrTcm>;
    const TAG: u64 = TAG_TRTCM_COMPACT;
}

impl MarkerState for netcond_rfc4115_compact {
    type M = Compact<Rfc4115>;
    const TAG: u64 = TAG_RFC4115_COMPACT;
}

/// What a marker call charges: `pkt_len` units (the `*_check` calls) or one
/// unit (the `*_packet` calls, packet mode's fast path).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Charge {
    /// `pkt_len` units.
    Len,
    /// One unit.
    One,
}

/// The body of every counted color-blind export: the marker's `color_blind`
/// or `color_blind_packet` (as `charge` says), then the packet (its color,
/// one packet, `pkt_len` bytes) recorded, as the Rust `..._counted` methods
/// record it.
///
/// # Safety
/// As [`counted`].
#[inline(always)]
unsafe fn blind_counted<O: MarkerState, PO>(
    m: *mut O,
    p: *const PO,
    c: *mut netcond_counters,
    charge: Charge,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe {
        counted(m, p, c, O::TAG, RED, |m: &mut O::M, p, k| {
            let now = Instant::from_ticks(time);
            let color = match charge {
                Charge::Len => m.color_blind(p, now, pkt_len),
                Charge::One => m.color_blind_packet(p, now),
            };
            k.record(color, pkt_len);
            color.into()
        })
    }
}

/// The body of every counted color-aware export (`pkt_color` other than 0
/// or 1 is red): as [`blind_counted`], color-aware.
///
/// # Safety
/// As [`counted`].
#[inline(always)]
unsafe fn aware_counted<O: MarkerState, PO>(
    m: *mut O,
    p: *const PO,
    c: *mut netcond_counters,
    charge: Charge,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    let input = crate::color_in(pkt_color);
    // SAFETY: caller contract, passed on.
    unsafe {
        counted(m, p, c, O::TAG, RED, |m: &mut O::M, p, k| {
            let now = Instant::from_ticks(time);
            let color = match charge {
                Charge::Len => m.color_aware(p, now, pkt_len, input),
                Charge::One => m.color_aware_packet(p, now, input),
            };
            k.record(color, pkt_len);
            color.into()
        })
    }
}

/// `netcond_srtcm_color_blind_check`, then the packet (its color, one packet,
/// `pkt_len` bytes) added to `*c`. A NULL `c` counts nothing; a NULL or
/// unconfigured `m` or `p` gives `NETCOND_RED` and counts nothing.
///
/// # Safety
/// `m`, `p` and `c` are NULL or point to valid structs of their types, none
/// overlapping another; `m` and `c` are used by no other thread during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_blind_counted(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::Len, time, pkt_len) }
}

/// `netcond_srtcm_color_aware_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_aware_counted(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::Len, time, pkt_len, pkt_color) }
}

/// `netcond_srtcm_color_blind_packet` (one token charged), then the packet
/// added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_blind_packet_counted(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::One, time, pkt_len) }
}

/// `netcond_srtcm_color_aware_packet` (one token charged), then the packet
/// added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_aware_packet_counted(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::One, time, pkt_len, pkt_color) }
}

/// `netcond_trtcm_color_blind_check`, then the packet added to `*c` (trTCM; see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_blind_counted(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::Len, time, pkt_len) }
}

/// `netcond_trtcm_color_aware_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_aware_counted(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::Len, time, pkt_len, pkt_color) }
}

/// `netcond_trtcm_color_blind_packet` (one token charged), then the packet
/// added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_blind_packet_counted(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::One, time, pkt_len) }
}

/// `netcond_trtcm_color_aware_packet` (one token charged), then the packet
/// added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_aware_packet_counted(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::One, time, pkt_len, pkt_color) }
}

/// `netcond_rfc4115_color_blind_check`, then the packet added to `*c` (RFC 4115; see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_blind_counted(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::Len, time, pkt_len) }
}

/// `netcond_rfc4115_color_aware_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_aware_counted(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::Len, time, pkt_len, pkt_color) }
}

/// `netcond_rfc4115_color_blind_packet` (one token charged), then the packet
/// added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_blind_packet_counted(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::One, time, pkt_len) }
}

/// `netcond_rfc4115_color_aware_packet` (one token charged), then the packet
/// added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_aware_packet_counted(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::One, time, pkt_len, pkt_color) }
}

/// `netcond_srtcm_compact_color_blind_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_blind_counted(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::Len, time, pkt_len) }
}

/// `netcond_srtcm_compact_color_aware_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_aware_counted(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::Len, time, pkt_len, pkt_color) }
}

/// `netcond_trtcm_compact_color_blind_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_blind_counted(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::Len, time, pkt_len) }
}

/// `netcond_trtcm_compact_color_aware_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_aware_counted(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::Len, time, pkt_len, pkt_color) }
}

/// `netcond_rfc4115_compact_color_blind_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_blind_counted(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::Len, time, pkt_len) }
}

/// `netcond_rfc4115_compact_color_aware_check`, then the packet added to `*c` (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_aware_counted(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::Len, time, pkt_len, pkt_color) }
}

/// `netcond_srtcm_compact_color_blind_packet` (one token charged), then the
/// packet added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_blind_packet_counted(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::One, time, pkt_len) }
}

/// `netcond_srtcm_compact_color_aware_packet` (one token charged), then the
/// packet added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_aware_packet_counted(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::One, time, pkt_len, pkt_color) }
}

/// `netcond_trtcm_compact_color_blind_packet` (one token charged), then the
/// packet added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_blind_packet_counted(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::One, time, pkt_len) }
}

/// `netcond_trtcm_compact_color_aware_packet` (one token charged), then the
/// packet added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_aware_packet_counted(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::One, time, pkt_len, pkt_color) }
}

/// `netcond_rfc4115_compact_color_blind_packet` (one token charged), then the
/// packet added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_blind_packet_counted(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_counted(m, p, c, Charge::One, time, pkt_len) }
}

/// `netcond_rfc4115_compact_color_aware_packet` (one token charged), then the
/// packet added to `*c` with its length `pkt_len` in bytes (see
/// `netcond_srtcm_color_blind_counted`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_aware_packet_counted(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
    c: *mut netcond_counters,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_counted(m, p, c, Charge::One, time, pkt_len, pkt_color) }
}

/// `netcond_policer_offer`, then the packet added to `*c`: to green if it
/// conformed, to red if not, and to the dropped counts unless admitted. A NULL
/// `c` counts nothing; a NULL or unconfigured `m` or `p` gives
/// `NETCOND_POLICER_DROP` and counts nothing.
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_offer_counted(
    m: *mut netcond_policer,
    p: *const netcond_policer_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_policer_verdict {
    // SAFETY: caller contract, passed on.
    unsafe {
        counted(
            m,
            p,
            c,
            TAG_POLICER,
            netcond_policer_verdict::NETCOND_POLICER_DROP,
            |m: &mut PremiumPolicer, p, k| {
                m.offer_counted(p, Instant::from_ticks(time), pkt_len, k)
                    .into()
            },
        )
    }
}

/// `netcond_policer_offer_packet` (one unit of tokens and of buffer), then the
/// packet added to `*c` with its length `pkt_len` in bytes, as
/// `netcond_policer_offer_counted` adds it.
///
/// # Safety
/// As `netcond_srtcm_color_blind_counted`.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_offer_packet_counted(
    m: *mut netcond_policer,
    p: *const netcond_policer_profile,
    time: u64,
    pkt_len: u32,
    c: *mut netcond_counters,
) -> netcond_policer_verdict {
    // SAFETY: caller contract, passed on.
    unsafe {
        counted(
            m,
            p,
            c,
            TAG_POLICER,
            netcond_policer_verdict::NETCOND_POLICER_DROP,
            |m: &mut PremiumPolicer, p, k| {
                let v = m.offer_packet(p, Instant::from_ticks(time));
                k.record_verdict(v, pkt_len);
                v.into()
            },
        )
    }
}
