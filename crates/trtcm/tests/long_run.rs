//! Long-run exactness: 10^9 packets through each marker, no drift.
//!
//! Streams are fixed-length (1000-byte) packets at a constant spacing on a
//! nanosecond clock, packet `i` at `i x dt`, so the interval is
//! `T = (N - 1) dt`. All comparisons are exact, in units of `1/(8 x 10^9)` byte
//! (`u128`), where a rate of `R` bit/s adds `R` units per nanosecond.

use netcond_core::{Color, Instant, Rate};
use trtcm::{Rfc4115Config, SrTcmConfig, ThreeColorPair, TrTcmConfig};

const N: u64 = 1_000_000_000;
const LEN: u32 = 1000;
/// Units per byte on a nanosecond clock.
const PER_BYTE: u128 = 8_000_000_000;

const CIR: u64 = 300_000_000; // bytes/s
const PIR: u64 = 500_000_000; // bytes/s

fn units(bytes: u64) -> u128 {
    u128::from(bytes) * PER_BYTE
}

/// `burst + rate x T` in units, for a rate in bytes/s and `T` in ns.
fn promised(burst: u64, rate_bytes: u64, t_ns: u64) -> u128 {
    units(burst) + u128::from(rate_bytes) * 8 * u128::from(t_ns)
}

/// Asserts `got` bytes is `promised` within one packet: `promised - LEN < got <= promised`.
fn within_one_packet(what: &str, got_bytes: u64, promised: u128) {
    let got = units(got_bytes);
    assert!(
        got <= promised && got + units(u64::from(LEN)) > promised,
        "{what}: {got_bytes} bytes, promised {} bytes (+ {} units)",
        promised / PER_BYTE,
        promised % PER_BYTE
    );
}

/// Runs `N` packets `dt` ns apart through `color` and returns packets per color.
#[inline(always)]
fn run(dt: u64, mut color: impl FnMut(Instant) -> Color) -> [u64; 3] {
    let mut n = [0u64; 3];
    let mut t = 0u64;
    for _ in 0..N {
        n[color(Instant::from_ticks(t)).index()] += 1;
        t += dt;
    }
    n
}

fn bytes(packets: u64) -> u64 {
    packets * u64::from(LEN)
}

/// srTCM, saturated (1 GB/s offered against CIR 300 MB/s), starting full:
/// green bytes = CBS + CIR x T within one packet, and E, filled only by C's
/// overflow, gives out its initial EBS and nothing more.
#[test]
#[ignore = "long sweep: cargo test --workspace -- --ignored"]
fn srtcm_green_is_cbs_plus_cir_t() {
    let cfg = SrTcmConfig::new(Rate::from_bytes_per_sec(CIR), 1300, 4000);
    let mut m = SrTcmConfig::meter(&cfg, Instant::ZERO).unwrap();
    let dt = 1000;
    let n = run(dt, |now| m.color_blind(now, LEN));
    let t = (N - 1) * dt;
    within_one_packet("srTCM green", bytes(n[0]), promised(cfg.cbs, CIR, t));
    // No drift at all: green plus what is left in C is exactly CBS + CIR x T.
    let c = m.profile.committed();
    assert_eq!(
        u128::from(bytes(n[0])) * u128::from(c.scale()) + u128::from(m.state.tc()),
        u128::from(c.full()) + u128::from(c.inc()) * u128::from(t)
    );
    assert_eq!(bytes(n[1]), 4000);
    assert_eq!(n.iter().sum::<u64>(), N);
}

/// trTCM under overload (1 GB/s offered, PIR 500 MB/s, CIR 300 MB/s): green +
/// yellow = PBS + PIR x T within one packet, but green falls far short of
/// CBS + CIR x T: C is full and overflows while packets are red (RFC 4115
/// section 3's criticism of RFC 2698).
#[test]
#[ignore = "long sweep: cargo test --workspace -- --ignored"]
fn trtcm_overload_peak_exact_committed_short() {
    let cfg = TrTcmConfig::new(
        Rate::from_bytes_per_sec(CIR),
        Rate::from_bytes_per_sec(PIR),
        1300,
        4000,
    );
    let mut m = TrTcmConfig::meter(&cfg, Instant::ZERO).unwrap();
    let dt = 1000;
    let n = run(dt, |now| m.color_blind(now, LEN));
    let t = (N - 1) * dt;
    within_one_packet(
        "trTCM green + yellow",
        bytes(n[0] + n[1]),
        promised(cfg.pbs, PIR, t),
    );
    let p = m.profile.peak();
    assert_eq!(
        u128::from(bytes(n[0] + n[1])) * u128::from(p.scale()) + u128::from(m.state.tp()),
        u128::from(p.full()) + u128::from(p.inc()) * u128::from(t)
    );
    // Green is short of the committed promise by more than 10% of CIR x T.
    let committed = promised(cfg.cbs, CIR, t);
    let green = units(bytes(n[0]));
    eprintln!(
        "trTCM under overload: green {} bytes = {:.4} of CBS + CIR x T",
        bytes(n[0]),
        bytes(n[0]) as f64 / (committed / PER_BYTE) as f64
    );
    assert!(
        green + units(CIR) * u128::from(t) / 10 / 1_000_000_000 < committed,
        "trTCM green {} bytes vs CBS + CIR x T = {} bytes",
        bytes(n[0]),
        committed / PER_BYTE
    );
}

/// RFC 4115 on the same overload stream, same CIR and CBS: green = CBS + CIR x T
/// within one packet, because C does not depend on the excess bucket.
#[test]
#[ignore = "long sweep: cargo test --workspace -- --ignored"]
fn rfc4115_overload_committed_exact() {
    let cfg = Rfc4115Config::new(
        Rate::from_bytes_per_sec(CIR),
        Rate::from_bytes_per_sec(PIR - CIR),
        1300,
        2700,
    );
    let mut m = Rfc4115Config::meter(&cfg, Instant::ZERO).unwrap();
    let dt = 1000;
    let n = run(dt, |now| m.color_blind(now, LEN));
    let t = (N - 1) * dt;
    within_one_packet("RFC 4115 green", bytes(n[0]), promised(cfg.cbs, CIR, t));
    let c = m.profile.committed();
    assert_eq!(
        u128::from(bytes(n[0])) * u128::from(c.scale()) + u128::from(m.state.tc()),
        u128::from(c.full()) + u128::from(c.inc()) * u128::from(t)
    );
}

/// trTCM with the load between CIR and PIR (400 MB/s offered): nothing is red,
/// and green = CBS + CIR x T within one packet.
#[test]
#[ignore = "long sweep: cargo test --workspace -- --ignored"]
fn trtcm_between_cir_and_pir_committed_exact() {
    let cfg = TrTcmConfig::new(
        Rate::from_bytes_per_sec(CIR),
        Rate::from_bytes_per_sec(PIR),
        2000,
        4000,
    );
    let mut m = TrTcmConfig::meter(&cfg, Instant::ZERO).unwrap();
    let dt = 2500;
    let n = run(dt, |now| m.color_blind(now, LEN));
    let t = (N - 1) * dt;
    assert_eq!(n[2], 0);
    within_one_packet("trTCM green", bytes(n[0]), promised(cfg.cbs, CIR, t));
    let c = m.profile.committed();
    assert_eq!(
        u128::from(bytes(n[0])) * u128::from(c.scale()) + u128::from(m.state.tc()),
        u128::from(c.full()) + u128::from(c.inc()) * u128::from(t)
    );
}
