//! Packet mode (DPDK's `packet_mode` of `rte_mtr` profiles, tc police's
//! `pkt_rate` / `pkt_burst`): profiles whose rates are packets per second and
//! whose bursts are packets, built from the same params structs.
//!
//! A packet-mode marker profile charges every packet one token whatever the
//! `pkt_len` passed to `*_color_blind_check` / `*_color_aware_check`; the
//! `*_color_blind_packet` / `*_color_aware_packet` calls take no length and
//! are the fast path for such a profile (on a byte-mode profile they charge one
//! byte). The policer's `netcond_policer_offer` charges `pkt_len` units, so
//! police in packet mode with `netcond_policer_offer_packet` (one unit of
//! tokens and of buffer) and report each departure with
//! `netcond_policer_dequeued(m, 1)`.

use trtcm::Mode;

use super::*;

pub(super) fn srtcm_packets(p: &netcond_srtcm_params) -> Result<SrTcmProfile, c_int> {
    SrTcmProfile::new(&srtcm_cfg(p)?.with_mode(Mode::Packets)).map_err(srtcm_code)
}

pub(super) fn trtcm_packets(p: &netcond_trtcm_params) -> Result<TrTcmProfile, c_int> {
    TrTcmProfile::new(&trtcm_cfg(p)?.with_mode(Mode::Packets)).map_err(trtcm_code)
}

pub(super) fn rfc4115_packets(p: &netcond_rfc4115_params) -> Result<Rfc4115Profile, c_int> {
    let (cfg, ties) = rfc4115_cfg(p)?;
    Rfc4115Profile::with_ties(&cfg.with_mode(Mode::Packets), ties).map_err(rfc4115_code)
}

fn policer_packets(p: &netcond_policer_params) -> Result<PremiumPolicerProfile, c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    PremiumPolicerProfile::new(
        &PremiumPolicerConfig::packets(p.rate, p.tbs, p.pbs).with_tick(tick(p.tick_hz)?),
    )
    .map_err(policer_code)
}

/// Validates `params` read in packets (`cir` packets per second, `cbs` and
/// `ebs` packets) and writes a packet-mode srTCM profile to `p`. Returns as
/// `netcond_srtcm_profile_config`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_profile_config_packets(
    p: *mut netcond_srtcm_profile,
    params: *const netcond_srtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_SRTCM, srtcm_packets) }
}

/// Validates `params` read in packets (`cir`, `pir` packets per second, `cbs`,
/// `pbs` packets) and writes a packet-mode trTCM profile to `p`. Returns as
/// `netcond_trtcm_profile_config`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_profile_config_packets(
    p: *mut netcond_trtcm_profile,
    params: *const netcond_trtcm_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_TRTCM, trtcm_packets) }
}

/// Validates `params` read in packets (`cir`, `eir` packets per second, `cbs`,
/// `ebs` packets) and writes a packet-mode RFC 4115 profile to `p`. Returns as
/// `netcond_rfc4115_profile_config`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_profile_config_packets(
    p: *mut netcond_rfc4115_profile,
    params: *const netcond_rfc4115_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_RFC4115, rfc4115_packets) }
}

/// Validates `params` read in packets (`rate` packets per second, `tbs` and
/// `pbs` packets; `max_packet` is taken as 1) and writes a packet-mode premium
/// policer profile to `p`. Returns as `netcond_policer_profile_config`.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_profile_config_packets(
    p: *mut netcond_policer_profile,
    params: *const netcond_policer_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { configure(p, params, TAG_POLICER, policer_packets) }
}

/// The body of every packet-mode color-blind export: `NETCOND_RED` for a
/// NULL or unusable argument.
///
/// # Safety
/// As [`with`].
#[inline(always)]
pub(super) unsafe fn blind_packet<M: ThreeColorMarker, O, PO>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, tag, netcond_color::NETCOND_RED, |m: &mut M, p| {
            m.color_blind_packet(p, Instant::from_ticks(time)).into()
        })
    }
}

/// The body of every packet-mode color-aware export (`pkt_color` other than
/// 0 or 1 is red): `NETCOND_RED` for a NULL or unusable argument.
///
/// # Safety
/// As [`with`].
#[inline(always)]
pub(super) unsafe fn aware_packet<M: ThreeColorMarker, O, PO>(
    m: *mut O,
    p: *const PO,
    tag: u64,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    let input = crate::color_in(pkt_color);
    // SAFETY: caller contract, passed on.
    unsafe {
        with(m, p, tag, netcond_color::NETCOND_RED, |m: &mut M, p| {
            m.color_aware_packet(p, Instant::from_ticks(time), input)
                .into()
        })
    }
}

/// Colors one packet arriving at `time`, color-blind, charging one token: the
/// call for a packet-mode profile (`netcond_srtcm_profile_config_packets`),
/// the same colors as `netcond_srtcm_color_blind_check` on it, fewer
/// instructions. On a byte-mode profile it charges one byte. `NETCOND_RED` if
/// `m` or `p` is NULL or `p` is not configured.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_blind_packet(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_packet::<SrTcm, _, _>(m, p, TAG_SRTCM, time) }
}

/// Colors one packet pre-colored `pkt_color` (any value other than a
/// `netcond_color` counts as red), color-aware, charging one token. As
/// `netcond_srtcm_color_blind_packet` otherwise.
///
/// # Safety
/// As `netcond_srtcm_color_blind_packet`.
#[no_mangle]
pub unsafe extern "C" fn netcond_srtcm_color_aware_packet(
    m: *mut netcond_srtcm,
    p: *const netcond_srtcm_profile,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_packet::<SrTcm, _, _>(m, p, TAG_SRTCM, time, pkt_color) }
}

/// Colors one packet, color-blind, charging one token (trTCM; see
/// `netcond_srtcm_color_blind_packet`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_packet`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_blind_packet(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_packet::<TrTcm, _, _>(m, p, TAG_TRTCM, time) }
}

/// Colors one packet pre-colored `pkt_color`, color-aware, charging one token
/// (trTCM; see `netcond_srtcm_color_aware_packet`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_packet`.
#[no_mangle]
pub unsafe extern "C" fn netcond_trtcm_color_aware_packet(
    m: *mut netcond_trtcm,
    p: *const netcond_trtcm_profile,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_packet::<TrTcm, _, _>(m, p, TAG_TRTCM, time, pkt_color) }
}

/// Colors one packet, color-blind, charging one token (RFC 4115; see
/// `netcond_srtcm_color_blind_packet`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_packet`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_blind_packet(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { blind_packet::<Rfc4115, _, _>(m, p, TAG_RFC4115, time) }
}

/// Colors one packet pre-colored `pkt_color`, color-aware, charging one token
/// (RFC 4115; see `netcond_srtcm_color_aware_packet`).
///
/// # Safety
/// As `netcond_srtcm_color_blind_packet`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rfc4115_color_aware_packet(
    m: *mut netcond_rfc4115,
    p: *const netcond_rfc4115_profile,
    time: u64,
    pkt_color: c_int,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { aware_packet::<Rfc4115, _, _>(m, p, TAG_RFC4115, time, pkt_color) }
}

/// Polices one packet arriving at `time`, charging one unit of tokens and of
/// premium buffer: the call for a packet-mode profile
/// (`netcond_policer_profile_config_packets`; report each departure with
/// `netcond_policer_dequeued(m, 1)`). `NETCOND_POLICER_DROP` on a NULL or
/// unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs; `m` is used by no other
/// thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_policer_offer_packet(
    m: *mut netcond_policer,
    p: *const netcond_policer_profile,
    time: u64,
) -> netcond_policer_verdict {
    // SAFETY: caller contract, passed on.
    unsafe {
        with(
            m,
            p,
            TAG_POLICER,
            netcond_policer_verdict::NETCOND_POLICER_DROP,
            |m: &mut PremiumPolicer, p| m.offer_packet(p, Instant::from_ticks(time)).into(),
        )
    }
}
