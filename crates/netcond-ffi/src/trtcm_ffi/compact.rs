//! The 16-byte (compact) srTCM, trTCM and RFC 4115 states.

use super::packets::{aware_packet, blind_packet, rfc4115_packets, srtcm_packets, trtcm_packets};
use super::*;

// ---------------------------------------------------------------- compact states

/// Validates `params` for 16-byte srTCM states and writes the profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_TICK`, a `NETCOND_E_SRTCM_*` code or
/// `NETCOND_E_COMPACT_TOO_LARGE` (a bucket holds 2^32 token units or more).
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_profile_config(
    p: *mut netcond_srtcm_compact_profile,
    params: *const netcond_srtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_SRTCM_COMPACT, |a| {
            CompactProfile::new(srtcm_profile(a)?).map_err(compact_code)
        })
    }
}

/// Validates `params` for 16-byte trTCM states and writes the profile to `p`.
/// Returns as `netcond_srtcm_compact_profile_config`, with trTCM codes.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_profile_config(
    p: *mut netcond_trtcm_compact_profile,
    params: *const netcond_trtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_TRTCM_COMPACT, |a| {
            CompactProfile::new(trtcm_profile(a)?).map_err(compact_code)
        })
    }
}

/// Validates `params` for 16-byte RFC 4115 states and writes the profile to
/// `p`. Returns as `netcond_srtcm_compact_profile_config`, with RFC 4115 codes
/// and `NETCOND_E_ENUM` for `ties`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_profile_config(
    p: *mut netcond_rfc4115_compact_profile,
    params: *const netcond_rfc4115_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_RFC4115_COMPACT, |a| {
            CompactProfile::new(rfc4115_profile(a)?).map_err(compact_code)
        })
    }
}

/// Validates `params` read in packets (`cir` packets per second, `cbs` and
/// `ebs` packets) and writes a packet-mode profile for 16-byte srTCM states
/// to `p` (DPDK's `packet_mode` with compact per-flow state). Returns as
/// `netcond_srtcm_compact_profile_config`. Meter with
/// `netcond_srtcm_compact_color_blind_packet` / `_color_aware_packet` (the
/// fast path), or the `*_check` calls, which charge one token whatever
/// `pkt_len`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_profile_config_packets(
    p: *mut netcond_srtcm_compact_profile,
    params: *const netcond_srtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_SRTCM_COMPACT, |a| {
            CompactProfile::new(srtcm_packets(a)?).map_err(compact_code)
        })
    }
}

/// Validates `params` read in packets (`cir`, `pir` packets per second, `cbs`,
/// `pbs` packets) and writes a packet-mode profile for 16-byte trTCM states
/// to `p`. Returns as `netcond_trtcm_compact_profile_config`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_profile_config_packets(
    p: *mut netcond_trtcm_compact_profile,
    params: *const netcond_trtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_TRTCM_COMPACT, |a| {
            CompactProfile::new(trtcm_packets(a)?).map_err(compact_code)
        })
    }
}

/// Validates `params` read in packets (`cir`, `eir` packets per second, `cbs`,
/// `ebs` packets) and writes a packet-mode profile for 16-byte RFC 4115
/// states to `p`. Returns as `netcond_rfc4115_compact_profile_config`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_profile_config_packets(
    p: *mut netcond_rfc4115_compact_profile,
    params: *const netcond_rfc4115_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_RFC4115_COMPACT, |a| {
            CompactProfile::new(rfc4115_packets(a)?).map_err(compact_code)
        })
    }
}

/// Starts a 16-byte srTCM state with both buckets full at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_config(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_SRTCM_COMPACT, now, Compact::<SrTcm>::new) }
}

/// Starts a 16-byte trTCM state with both buckets full at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_config(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_TRTCM_COMPACT, now, Compact::<TrTcm>::new) }
}

/// Starts a 16-byte RFC 4115 state with both buckets full at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_config(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start(m, p, TAG_RFC4115_COMPACT, now, Compact::<Rfc4115>::new) }
}

/// Starts the `n` 16-byte trTCM states at `m`. Returns 0, `NETCOND_E_NULL` or
/// `NETCOND_E_COUNT`.
///
/// # Safety
/// `m` is NULL or points to `n` states; `p` is NULL or a profile.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_config_array(
    m: *mut netcond_trtcm_compact,
    n: usize,
    p: *const netcond_trtcm_compact_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_array(m, n, p, TAG_TRTCM_COMPACT, now, Compact::<TrTcm>::new) }
}

/// Colors a packet with a 16-byte srTCM state, color-blind; the same colors as
/// `netcond_srtcm_color_blind_check`. `NETCOND_RED` on a NULL or unconfigured
/// argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_blind_check(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind::<Compact<SrTcm>, _, _>(m, p, TAG_SRTCM_COMPACT, time, pkt_len) }
}

/// Colors a pre-colored packet with a 16-byte srTCM state, color-aware.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_aware_check(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware::<Compact<SrTcm>, _, _>(m, p, TAG_SRTCM_COMPACT, time, pkt_len, pkt_color) }
}

/// Colors a packet with a 16-byte trTCM state, color-blind.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_blind_check(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind::<Compact<TrTcm>, _, _>(m, p, TAG_TRTCM_COMPACT, time, pkt_len) }
}

/// Colors a pre-colored packet with a 16-byte trTCM state, color-aware.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_aware_check(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware::<Compact<TrTcm>, _, _>(m, p, TAG_TRTCM_COMPACT, time, pkt_len, pkt_color) }
}

/// Colors a packet with a 16-byte RFC 4115 state, color-blind.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_blind_check(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_len: u32,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind::<Compact<Rfc4115>, _, _>(m, p, TAG_RFC4115_COMPACT, time, pkt_len) }
}

/// Colors a pre-colored packet with a 16-byte RFC 4115 state, color-aware.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_aware_check(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_len: u32,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware::<Compact<Rfc4115>, _, _>(m, p, TAG_RFC4115_COMPACT, time, pkt_len, pkt_color) }
}

/// Colors one packet arriving at `time` with a 16-byte srTCM state,
/// color-blind, charging one token: the call for a packet-mode profile
/// (`netcond_srtcm_compact_profile_config_packets`), the same colors as
/// `netcond_srtcm_color_blind_packet` on the 24-byte state. On a byte-mode
/// profile it charges one byte. `NETCOND_RED` on a NULL or unconfigured
/// argument.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_blind_packet(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_packet::<Compact<SrTcm>, _, _>(m, p, TAG_SRTCM_COMPACT, time) }
}

/// Colors one packet pre-colored `pkt_color` (any value other than a
/// `netcond_color` counts as red) with a 16-byte srTCM state, color-aware,
/// charging one token. As `netcond_srtcm_compact_color_blind_packet`
/// otherwise.
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_color_aware_packet(
    m: *mut netcond_srtcm_compact,
    p: *const netcond_srtcm_compact_profile,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_packet::<Compact<SrTcm>, _, _>(m, p, TAG_SRTCM_COMPACT, time, pkt_color) }
}

/// Colors one packet with a 16-byte trTCM state, color-blind, charging one
/// token (see `netcond_srtcm_compact_color_blind_packet`).
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_blind_packet(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_packet::<Compact<TrTcm>, _, _>(m, p, TAG_TRTCM_COMPACT, time) }
}

/// Colors one pre-colored packet with a 16-byte trTCM state, color-aware,
/// charging one token (see `netcond_srtcm_compact_color_aware_packet`).
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_color_aware_packet(
    m: *mut netcond_trtcm_compact,
    p: *const netcond_trtcm_compact_profile,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_packet::<Compact<TrTcm>, _, _>(m, p, TAG_TRTCM_COMPACT, time, pkt_color) }
}

/// Colors one packet with a 16-byte RFC 4115 state, color-blind, charging one
/// token (see `netcond_srtcm_compact_color_blind_packet`).
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_blind_packet(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_packet::<Compact<Rfc4115>, _, _>(m, p, TAG_RFC4115_COMPACT, time) }
}

/// Colors one pre-colored packet with a 16-byte RFC 4115 state, color-aware,
/// charging one token (see `netcond_srtcm_compact_color_aware_packet`).
///
/// # Safety
/// As `netcond_srtcm_compact_color_blind_check`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_color_aware_packet(
    m: *mut netcond_rfc4115_compact,
    p: *const netcond_rfc4115_compact_profile,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_packet::<Compact<Rfc4115>, _, _>(m, p, TAG_RFC4115_COMPACT, time, pkt_color) }
}

/// Copies a 16-byte trTCM state's counts (C, P, widened) and last update to
/// `out`. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_compact_read(
    m: *const netcond_trtcm_compact,
    out: *mut netcond_tcm_tokens,
) -> c_int {
    // SAFETY: caller contract.
    unsafe {
        read_tcm::<_, Compact<TrTcm>>(m, out, |s| {
            let w = s.to_state();
            [w.tc(), w.tp(), w.last().ticks()]
        })
    }
}

/// Copies a 16-byte srTCM state's counts (C, E) and last update to `out`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_compact_read(
    m: *const netcond_srtcm_compact,
    out: *mut netcond_tcm_tokens,
) -> c_int {
    // SAFETY: caller contract.
    unsafe {
        read_tcm::<_, Compact<SrTcm>>(m, out, |s| {
            let w = s.to_state();
            [w.tc(), w.te(), w.last().ticks()]
        })
    }
}

/// Copies a 16-byte RFC 4115 state's counts (C, E) and last update to `out`.
///
/// # Safety
/// `m` and `out` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_compact_read(
    m: *const netcond_rfc4115_compact,
    out: *mut netcond_tcm_tokens,
) -> c_int {
    // SAFETY: caller contract.
    unsafe {
        read_tcm::<_, Compact<Rfc4115>>(m, out, |s| {
            let w = s.to_state();
            [w.tc(), w.te(), w.last().ticks()]
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests;
