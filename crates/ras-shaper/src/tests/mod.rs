//! Behavioural tests of the shapers: FIFO, rates, smoothing, green shapers, a
//! reference model, and property tests over the invariants.
#![allow(clippy::float_arithmetic)] // f64 summaries in tests only

use std::collections::VecDeque;
use std::vec::Vec;

use netcond_core::{Color, Instant, RandomSource, Rate, SplitMix64, TickRate};
use proptest::prelude::*;
use trtcm::{SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile};

use crate::invariants;

mod caller_queue;
use crate::{
    transmission_time, GreenRas, PacketLen, Ras, RasProfile, Schedule, SrRasConfig, SrRasProfile,
    SrThresholds, TrRasConfig, TrRasProfile, TrThresholds,
};

/// A descriptor with an id, to check order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pkt {
    len: u32,
    id: u32,
}

impl PacketLen for Pkt {
    fn packet_len(&self) -> u32 {
        self.len
    }
}

fn t(x: u64) -> Instant {
    Instant::from_ticks(x)
}

/// The seed-001 customer router: CIR 2 Mbit/s, PIR 4, line 34, 64 KB buffer.
fn tr_cfg() -> TrRasConfig {
    let mut c = TrRasConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        Rate::from_mbps(34),
        64_000,
    );
    c.thresholds = Some(TrThresholds {
        cir_th: 6_000,
        pir_th: 24_000,
        mir_th: 48_000,
    });
    c
}

fn tr_profile() -> RasProfile {
    TrRasProfile::new(&tr_cfg()).unwrap().into()
}

fn sr_profile() -> RasProfile {
    let mut c = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000);
    c.mir = Some(Rate::from_mbps(20));
    c.thresholds = Some(SrThresholds {
        cir_th: 6_000,
        mir_th: 48_000,
    });
    SrRasProfile::new(&c).unwrap().into()
}

fn trtcm_profile(cbs: u64) -> TrTcmProfile {
    TrTcmProfile::new(&TrTcmConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        cbs,
        2 * cbs,
    ))
    .unwrap()
}

fn srtcm_profile(cbs: u64) -> SrTcmProfile {
    SrTcmProfile::new(&SrTcmConfig::new(Rate::from_mbps(2), cbs, 2 * cbs)).unwrap()
}

/// `native` natively; `miri` under Miri, which interprets every instruction,
/// so that the long traces and many seeds of the native run are cut short
/// there.
const fn pick(native: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        native
    }
}

/// A TCP-like on/off source: every `period` ns a window of 1..=max_w packets of
/// mixed lengths, back to back at 10 Mbit/s.
fn onoff_trace(seed: u64, n: usize, period: u64, max_w: u32) -> Vec<(u64, Pkt)> {
    let mut r = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    let mut start = 0u64;
    let mut id = 0;
    while out.len() < n {
        let w = 1 + r.below(max_w);
        let mut at = start;
        for _ in 0..w {
            let len = match r.below(8) {
                0..=4 => 1500,
                5 => 40,
                6 => 576,
                _ => 40 + r.below(1461),
            };
            out.push((at, Pkt { len, id }));
            id += 1;
            at += len as u64 * 800; // 10 Mbit/s: 800 ns per byte
        }
        start += period + r.below(period as u32 / 4) as u64;
    }
    out.truncate(n);
    out
}

#[derive(Clone, Copy, Debug)]
struct Release {
    at: u64,
    sched: Schedule,
    arrival: u64,
    pkt: Pkt,
    color: Option<Color>,
    at_t2: bool,
    t1: Schedule,
}

/// Drives a plain shaper with exact event timing: every release happens at
/// `next_release`. Returns releases and drops.
fn run_plain<const N: usize>(p: &RasProfile, trace: &[(u64, Pkt)]) -> (Vec<Release>, Vec<Pkt>) {
    let mut s: Ras<Pkt, N> = Ras::new(Instant::ZERO);
    let mut out = Vec::new();
    let mut drops = Vec::new();
    let mut i = 0;
    loop {
        let next_rel = s.next_release().map(|x| x.ticks());
        let next_arr = trace.get(i).map(|x| x.0);
        match (next_rel, next_arr) {
            (None, None) => break,
            (Some(r), a) if a.map_or(true, |a| r < a) => {
                let sched = s.head_schedule();
                let t1 = s.head_t1();
                let arrival = s.head_arrival().unwrap().ticks();
                let pkt = s.dequeue(p, t(r)).expect("due");
                let prev = out.last().map(|x: &Release| (t(x.at), x.pkt.len));
                invariants::mir_spacing(p, prev, t(r)).unwrap();
                out.push(Release {
                    at: r,
                    sched,
                    arrival,
                    pkt,
                    color: None,
                    at_t2: false,
                    t1,
                });
            }
            (_, Some(a)) => {
                if let Err(pkt) = s.enqueue(p, t(a), trace[i].1) {
                    drops.push(pkt);
                }
                i += 1;
            }
            (Some(_), None) => unreachable!(),
        }
        invariants::shaper_consistent(p, &s).unwrap();
    }
    (out, drops)
}

fn run_green<M: crate::GreenMeter, const N: usize>(
    p: &RasProfile,
    mp: &M::Profile,
    trace: &[(u64, Pkt)],
) -> (Vec<Release>, Vec<Pkt>) {
    let mut s: GreenRas<Pkt, N> = GreenRas::new(Instant::ZERO);
    let mut meter = M::start(mp, Instant::ZERO);
    let mut out = Vec::new();
    let mut drops = Vec::new();
    let mut i = 0;
    loop {
        let next_rel = s.next_release().map(|x| x.ticks());
        let next_arr = trace.get(i).map(|x| x.0);
        match (next_rel, next_arr) {
            (None, None) => break,
            (Some(r), a) if a.map_or(true, |a| r < a) => {
                let sched = s.ras().head_schedule();
                let t1 = s.ras().head_t1();
                let at_t2 = s.head_at_t2();
                let arrival = s.ras().head_arrival().unwrap().ticks();
                let (pkt, color) = s.dequeue(p, mp, &mut meter, t(r)).expect("due");
                invariants::green_at_t2(at_t2, color).unwrap();
                let prev = out.last().map(|x: &Release| (t(x.at), x.pkt.len));
                invariants::mir_spacing(p, prev, t(r)).unwrap();
                out.push(Release {
                    at: r,
                    sched,
                    arrival,
                    pkt,
                    color: Some(color),
                    at_t2,
                    t1,
                });
            }
            (_, Some(a)) => {
                if let Err(pkt) = s.enqueue(p, mp, &meter, t(a), trace[i].1) {
                    drops.push(pkt);
                }
                i += 1;
            }
            (Some(_), None) => unreachable!(),
        }
        invariants::shaper_consistent(p, s.ras()).unwrap();
    }
    (out, drops)
}

#[test]
fn fifo_order_and_no_loss_while_the_buffer_has_room() {
    let p = tr_profile();
    for seed in 0..pick(5, 1) as u64 {
        // Average input below MIR and a buffer large enough: nothing is lost.
        let trace = onoff_trace(seed, pick(5_000, 50), 50_000_000, 40);
        let (out, drops) = run_plain::<256>(&p, &trace);
        assert!(drops.is_empty(), "seed {seed}: {} drops", drops.len());
        assert_eq!(out.len(), trace.len());
        for (k, r) in out.iter().enumerate() {
            assert_eq!(r.pkt.id, k as u32, "FIFO order");
            assert!(r.at >= r.arrival);
        }
    }
}

#[test]
fn tail_drop_exactly_when_full() {
    let p = tr_profile(); // 64,000-byte buffer
    let mut s: Ras<u32, 4> = Ras::new(Instant::ZERO);
    // Entries: the fifth packet is refused although bytes remain.
    for _ in 0..4 {
        assert_eq!(s.enqueue(&p, t(0), 100), Ok(()));
    }
    assert_eq!(s.enqueue(&p, t(0), 100), Err(100));
    assert_eq!(s.len(), 4);
    // Bytes: a packet that would pass 64,000 bytes is refused; one that fits is not.
    let mut s: Ras<u32, 64> = Ras::new(Instant::ZERO);
    for _ in 0..42 {
        s.enqueue(&p, t(0), 1500).unwrap();
    }
    assert_eq!(s.bytes(), 63_000);
    assert_eq!(s.enqueue(&p, t(0), 1001), Err(1001));
    assert_eq!(s.enqueue(&p, t(0), 1000), Ok(()));
    assert_eq!(s.bytes(), 64_000);
    assert_eq!(s.enqueue(&p, t(0), 1), Err(1));
    // A zero-length descriptor still takes an entry.
    assert_eq!(s.enqueue(&p, t(0), 0), Ok(()));
    invariants::shaper_consistent(&p, &s).unwrap();
}

#[test]
fn an_idle_shaper_releases_at_once_and_spaces_the_next() {
    let p = tr_profile();
    let mut s: Ras<u32, 8> = Ras::new(Instant::ZERO);
    s.enqueue(&p, t(1_000), 1500).unwrap();
    assert_eq!(s.next_release(), Some(t(1_000)));
    assert_eq!(s.dequeue(&p, t(999)), None);
    assert_eq!(s.dequeue(&p, t(1_000)), Some(1500));
    assert_eq!(s.next_release(), None);
    // A second packet right behind: spaced by 1500 B at max(EAR, CIR) = 2 Mbit/s,
    // 6 ms (the EAR of one packet over a long silence is tiny).
    s.enqueue(&p, t(2_000), 1500).unwrap();
    let r = s.next_release().unwrap().ticks();
    assert!((5_999_999..=6_001_001).contains(&r), "{r}");
}

/// Exact integer check of the output rate between consecutive releases of a
/// backlog: `CIR (gap - 1) <= L <= MIR (gap + 1)` in bits and ticks.
fn check_rates(p_cir_bits: u64, p_mir_bits: u64, hz: u64, out: &[Release]) -> (usize, usize) {
    let mut backlogged_pairs = 0;
    let mut at_mir = 0;
    for w in out.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.arrival > a.at {
            continue; // the queue went idle in between
        }
        backlogged_pairs += 1;
        let gap = (b.at - a.at) as u128;
        let bits = a.pkt.len as u128 * 8 * hz as u128;
        assert!(
            bits <= p_mir_bits as u128 * (gap + 1),
            "above MIR: {} B in {gap} ticks",
            a.pkt.len
        );
        assert!(
            bits + p_cir_bits as u128 >= p_cir_bits as u128 * gap,
            "below CIR: {} B in {gap} ticks",
            a.pkt.len
        );
        if bits * 100 >= p_mir_bits as u128 * (gap + 1) * 99 {
            at_mir += 1;
        }
    }
    (backlogged_pairs, at_mir)
}

#[test]
fn output_rate_stays_between_cir_and_mir_while_backlogged() {
    let mut cfg = tr_cfg();
    cfg.mir = Some(Rate::from_mbps(8));
    let p: RasProfile = TrRasProfile::new(&cfg).unwrap().into();
    let mut total_pairs = 0;
    let mut total_mir = 0;
    for seed in 0..pick(6, 1) as u64 {
        // Windows up to 40 packets every 20 ms: well above MIR at times.
        let trace = onoff_trace(100 + seed, pick(4_000, 120), 20_000_000, 40);
        let (out, _drops) = run_plain::<128>(&p, &trace);
        let (pairs, mir) = check_rates(2_000_000, 8_000_000, 1_000_000_000, &out);
        total_pairs += pairs;
        total_mir += mir;
        // Over each whole backlog period too (no drift): sum of bytes between the
        // first and last release within [CIR, MIR] times the span, +-1 tick.
        let mut start = 0;
        for k in 1..=out.len() {
            if k == out.len() || out[k].arrival > out[k - 1].at {
                if k - start >= 2 {
                    let span = (out[k - 1].at - out[start].at) as u128;
                    let bits: u128 = out[start..k - 1]
                        .iter()
                        .map(|r| r.pkt.len as u128)
                        .sum::<u128>()
                        * 8
                        * 1_000_000_000;
                    assert!(bits <= 8_000_000 * (span + 1));
                    assert!(bits + 2_000_000 >= 2_000_000 * span);
                }
                start = k;
            }
        }
    }
    // The test exercised both bounds: many backlogged pairs, some at MIR.
    assert!(total_pairs > pick(10_000, 80), "{total_pairs}");
    assert!(total_mir > pick(100, 8), "{total_mir}");
}

/// The green shapers' output stays within [CIR, MIR] while backlogged too:
/// a packet released at T2 waits until the one before it has gone out at MIR
/// (without that, a meter with tokens let packets follow each other in the
/// same tick, and the output went above MIR). Meters with large bursts, so
/// that T2 often wins.
#[test]
fn green_output_rate_stays_between_cir_and_mir_while_backlogged() {
    let mut cfg = tr_cfg();
    cfg.mir = Some(Rate::from_mbps(8));
    let tr: RasProfile = TrRasProfile::new(&cfg).unwrap().into();
    let mut c = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000);
    c.mir = Some(Rate::from_mbps(8));
    c.thresholds = Some(SrThresholds {
        cir_th: 6_000,
        mir_th: 48_000,
    });
    let sr: RasProfile = SrRasProfile::new(&c).unwrap().into();
    for seed in 0..pick(3, 1) as u64 {
        let trace = onoff_trace(700 + seed, pick(4_000, 120), 20_000_000, 40);
        for (name, out) in [
            (
                "G-trRAS",
                run_green::<TrTcm, 128>(&tr, &trtcm_profile(50_000), &trace).0,
            ),
            (
                "G-srRAS",
                run_green::<SrTcm, 128>(&sr, &srtcm_profile(50_000), &trace).0,
            ),
        ] {
            let (pairs, at_mir) = check_rates(2_000_000, 8_000_000, 1_000_000_000, &out);
            let at_t2 = out.iter().filter(|r| r.at_t2).count();
            assert!(pairs > pick(1_000, 20), "{name}: {pairs} backlogged pairs");
            assert!(at_t2 > pick(100, 2), "{name}: {at_t2} releases at T2");
            assert!(at_mir > pick(10, 1), "{name}: {at_mir} pairs at MIR");
        }
    }
}

#[test]
fn srras_output_rate_bounds() {
    let p = sr_profile();
    let trace = onoff_trace(7, pick(4_000, 60), 20_000_000, 40);
    let (out, _) = run_plain::<128>(&p, &trace);
    let (pairs, _) = check_rates(2_000_000, 20_000_000, 1_000_000_000, &out);
    assert!(pairs > pick(1_000, 40), "{pairs}");
}

/// Peak rate over fixed windows of `win` ns, in bytes per window.
fn peak(events: impl Iterator<Item = (u64, u32)>, win: u64) -> u64 {
    let mut bins = std::collections::BTreeMap::<u64, u64>::new();
    for (at, len) in events {
        *bins.entry(at / win).or_default() += len as u64;
    }
    bins.values().copied().max().unwrap_or(0)
}

#[test]
fn bursts_are_smoothed() {
    let p = tr_profile();
    for seed in 0..pick(4, 1) as u64 {
        // TCP-like: windows of up to 30 packets at 10 Mbit/s every 50 ms
        // (about 3.6 Mbit/s on average).
        let trace = onoff_trace(200 + seed, pick(3_000, 60), 50_000_000, 30);
        let (out, drops) = run_plain::<256>(&p, &trace);
        assert!(drops.is_empty());
        let pin = peak(trace.iter().map(|(a, k)| (*a, k.len)), 10_000_000);
        let pout = peak(out.iter().map(|r| (r.at, r.pkt.len)), 10_000_000);
        assert!(
            pout * 10 < pin * 9,
            "seed {seed}: peak out {pout} B/10ms not below in {pin}"
        );
        // And the shaped stream meets a trTCM with more green.
        let mp = trtcm_profile(3_000);
        let greens = |ev: &mut dyn Iterator<Item = (u64, u32)>| {
            let mut m = TrTcm::new(&mp, Instant::ZERO);
            ev.filter(|(at, len)| m.color_blind(&mp, t(*at), *len) == Color::Green)
                .map(|(_, len)| len as u64)
                .sum::<u64>()
        };
        let g_in = greens(&mut trace.iter().map(|(a, k)| (*a, k.len)));
        let g_out = greens(&mut out.iter().map(|r| (r.at, r.pkt.len)));
        assert!(
            g_out > g_in,
            "seed {seed}: green {g_out} vs unshaped {g_in}"
        );
    }
}

#[test]
fn green_trras_releases_at_t2_only_green_and_never_after_t1() {
    let p = tr_profile();
    for cbs in [3_000u64, 10_000, 50_000] {
        let mp = trtcm_profile(cbs);
        let trace = onoff_trace(300 + cbs, pick(4_000, 40), 50_000_000, 40);
        let (out, _) = run_green::<TrTcm, 256>(&p, &mp, &trace);
        let mut at_t2 = 0;
        for r in &out {
            // min(T1, T2) <= T1.
            assert!(
                r.sched.at.ticks() < r.t1.at.ticks()
                    || (r.sched.at == r.t1.at && r.sched.frac <= r.t1.frac)
            );
            if r.at_t2 {
                at_t2 += 1;
                assert_eq!(r.color, Some(Color::Green));
            }
        }
        assert!(
            at_t2 > pick(100, 10),
            "cbs {cbs}: only {at_t2} releases at T2"
        );
    }
}

#[test]
fn green_srras_releases_at_t2_only_green() {
    let p = sr_profile();
    let mp = srtcm_profile(6_000);
    let trace = onoff_trace(77, pick(4_000, 50), 50_000_000, 40);
    let (out, _) = run_green::<SrTcm, 256>(&p, &mp, &trace);
    let n = out.iter().filter(|r| r.at_t2).count();
    assert!(n > pick(100, 12), "{n}");
    assert!(out
        .iter()
        .filter(|r| r.at_t2)
        .all(|r| r.color == Some(Color::Green)));
}

#[test]
fn green_shaper_is_never_later_than_the_plain_one() {
    // Same input through a trRAS and a G-trRAS: the green one releases every
    // packet no later, and colors at least as many bytes green.
    let p = tr_profile();
    let cases = [(1u64, 3_000u64), (2, 10_000), (3, 100_000), (4, 3_000)];
    for (seed, cbs) in cases.into_iter().take(pick(4, 1)) {
        let mp = trtcm_profile(cbs);
        let trace = onoff_trace(400 + seed, pick(3_000, 50), 50_000_000, 40);
        let (plain, d1) = run_plain::<256>(&p, &trace);
        let (green, d2) = run_green::<TrTcm, 256>(&p, &mp, &trace);
        assert!(d1.is_empty() && d2.is_empty());
        let mut later = 0;
        for (a, b) in plain.iter().zip(&green) {
            assert_eq!(a.pkt, b.pkt);
            if b.at > a.at {
                later += 1;
            }
        }
        assert_eq!(later, 0, "seed {seed} cbs {cbs}");
        let delay = |v: &[Release]| v.iter().map(|r| r.at - r.arrival).sum::<u64>();
        assert!(delay(&green) <= delay(&plain));
    }
}

#[test]
fn t2_is_infinite_above_the_burst_sizes() {
    let p = tr_profile();
    let mp = trtcm_profile(3_000); // CBS 3000, PBS 6000
    let mut meter = TrTcm::new(&mp, Instant::ZERO);
    let mut g: GreenRas<u32, 8> = GreenRas::new(Instant::ZERO);
    // A first packet leaves at once and makes the next T1 lie in the future.
    g.enqueue(&p, &mp, &meter, t(0), 100).unwrap();
    assert_eq!(
        g.dequeue(&p, &mp, &mut meter, t(0)),
        Some((100, Color::Green))
    );
    g.enqueue(&p, &mp, &meter, t(1), 3_001).unwrap();
    assert!(g.ras().head_t1().at.ticks() > 1);
    assert_eq!(g.ras().head_t2(), None);
    assert!(!g.head_at_t2());
    let at = g.next_release().unwrap();
    assert_eq!(at, g.ras().head_t1().ceil());
    let (len, c) = g.dequeue(&p, &mp, &mut meter, at).unwrap();
    assert_eq!((len, c), (3_001, Color::Yellow));
    // Exactly CBS: finite, and green when released there.
    g.enqueue(&p, &mp, &meter, at.wrapping_add(1), 3_000)
        .unwrap();
    let t2 = g.ras().head_t2().expect("finite T2");
    if g.head_at_t2() {
        let (_, c) = g.dequeue(&p, &mp, &mut meter, t2).unwrap();
        assert_eq!(c, Color::Green);
    }
    // srTCM: above CBS is infinite even though EBS is larger.
    let sp = srtcm_profile(3_000);
    let mut sm = SrTcm::new(&sp, Instant::ZERO);
    let mut g: GreenRas<u32, 8> = GreenRas::new(Instant::ZERO);
    g.enqueue(&p, &sp, &sm, t(0), 100).unwrap();
    g.dequeue(&p, &sp, &mut sm, t(0)).unwrap();
    g.enqueue(&p, &sp, &sm, t(1), 3_001).unwrap();
    assert!(g.ras().head_t1().at.ticks() > 1);
    assert_eq!(g.ras().head_t2(), None);
    g.enqueue(&p, &sp, &sm, t(2), 3_000).unwrap();
}

#[test]
fn fast_ticks_until_is_exact() {
    let mut r = SplitMix64::new(11);
    for _ in 0..pick(200_000, 200) {
        let rate = Rate::from_bits_per_sec(1 + (r.next_u32() as u64) * (1 + r.below(1000) as u64));
        let hz = [1_000_000_000u64, 2_300_000_000, 1_000_000, 3][r.below(4) as usize];
        let size = 1 + r.below(1_000_000) as u64;
        let Ok(b) = netcond_core::BucketProfile::new(rate, size, TickRate::from_hz(hz).unwrap())
        else {
            continue;
        };
        let tokens = (r.next_u32() as u64 * r.next_u32() as u64) % (b.full() + 1);
        let need = b.cost(r.below(size as u32 + 2));
        assert_eq!(
            crate::ticks_until(&b, tokens, need),
            b.ticks_until(tokens, need)
        );
    }
}

#[test]
fn t2_waits_for_the_slower_bucket() {
    // Empty both buckets, then ask for a 1500-byte packet: Tc refills at 2 Mbit/s
    // (6 ms for 1500 B), Tp at 4 Mbit/s (3 ms): T2 is 6 ms later, and at T2 the
    // packet is green while one tick earlier it is not.
    let mp = trtcm_profile(3_000);
    let mut meter = TrTcm::new(&mp, Instant::ZERO);
    assert_eq!(meter.color_blind(&mp, t(0), 3_000), Color::Green);
    assert_eq!(meter.color_blind(&mp, t(0), 3_000), Color::Yellow);
    use crate::GreenMeter;
    let t2 = meter.green_at(&mp, t(0), 1500).unwrap().ticks();
    assert_eq!(t2, 6_000_000);
    let mut m1 = meter;
    assert_eq!(m1.color_blind(&mp, t(t2 - 1), 1500), Color::Yellow);
    let mut m2 = meter;
    assert_eq!(m2.color_blind(&mp, t(t2), 1500), Color::Green);
}

#[test]
fn transmission_time_matches_exact_division() {
    let mut r = SplitMix64::new(9);
    for _ in 0..pick(200_000, 200) {
        let len = r.below(70_000);
        let scale = r.below(48);
        let rate = ((r.next_u32() as u64) << 32 | r.next_u32() as u64) >> r.below(64);
        let rate = rate.max(1);
        let (w, f) = transmission_time(len, rate, scale);
        let exact = ((len as u128) << (scale + 32)) / rate as u128;
        if exact >> 32 >= crate::MAX_GAP_TICKS as u128 {
            assert_eq!((w, f), (crate::MAX_GAP_TICKS, 0));
            continue;
        }
        let got = ((w as u128) << 32) | f as u128;
        let err = got.abs_diff(exact);
        assert!(
            err as f64 <= 1e-10 * exact as f64 + 2.0,
            "len {len} rate {rate} S {scale}: {got} vs {exact}"
        );
    }
}

/// The reference model: the shaper as the RFC states it, written plainly with a
/// `VecDeque`, the same rate units as the profile, and exact division (the
/// schedule in 2^-64 tick). It returns the release instant of every packet.
struct Reference {
    q: VecDeque<(Pkt, u64)>,
    bytes: u64,
    ear: crate::Ear,
    /// Next start, in 2^-64 tick.
    next: u128,
    head: u128,
}

impl Reference {
    fn new() -> Self {
        Reference {
            q: VecDeque::new(),
            bytes: 0,
            ear: crate::Ear::new(Instant::ZERO),
            next: 0,
            head: 0,
        }
    }
    fn head_release(&self) -> Option<u64> {
        self.q.front()?;
        // Not sooner than the schedule: round up.
        Some(self.head.div_ceil(1 << 64) as u64)
    }
    fn schedule(&mut self) {
        if let Some((_, a)) = self.q.front() {
            let a = (*a as u128) << 64;
            self.head = a.max(self.next);
        }
    }
    fn enqueue(&mut self, p: &RasProfile, now: u64, pkt: Pkt, cap: usize) -> bool {
        self.ear.update(p.ear(), t(now), pkt.len);
        if self.q.len() == cap || self.bytes + pkt.len as u64 > p.buffer_bytes() {
            return false;
        }
        self.q.push_back((pkt, now));
        self.bytes += pkt.len as u64;
        if self.q.len() == 1 {
            self.schedule();
        }
        true
    }
    fn dequeue(&mut self, p: &RasProfile) -> Pkt {
        let (pkt, _) = self.q.pop_front().unwrap();
        self.bytes -= pkt.len as u64;
        let rate = p
            .rate_function(self.bytes)
            .max(p.ear_rate(&self.ear))
            .min(p.mir_units());
        // L / R ticks = L * 2^S / rate, in 2^-64 tick.
        let gap = ((pkt.len as u128) << (p.scale() + 64 - 32)) / rate as u128;
        self.next = self.head + (gap << 32);
        self.schedule();
        pkt
    }
}

/// The FIFO of the differential test: 64 entries natively; 16 under Miri,
/// where the traces are short, so that they overflow it too.
const FIFO: usize = pick(64, 16);

#[test]
fn differential_against_the_reference_model() {
    let p = tr_profile();
    let mut mismatches = 0;
    let mut compared = 0;
    for seed in 0..pick(8, 2) as u64 {
        let trace = onoff_trace(500 + seed, pick(3_000, 50), 20_000_000, 48);
        let (out, drops) = run_plain::<FIFO>(&p, &trace);
        // Replay through the reference with the same event order.
        let mut r = Reference::new();
        let mut i = 0;
        let mut got = Vec::new();
        let mut rdrops = Vec::new();
        loop {
            let rel = r.head_release();
            let arr = trace.get(i).map(|x| x.0);
            match (rel, arr) {
                (None, None) => break,
                (Some(x), a) if a.map_or(true, |a| x < a) => got.push((x, r.dequeue(&p))),
                (_, Some(a)) => {
                    if !r.enqueue(&p, a, trace[i].1, FIFO) {
                        rdrops.push(trace[i].1);
                    }
                    i += 1;
                }
                _ => unreachable!(),
            }
        }
        assert_eq!(drops, rdrops, "seed {seed}: drops differ");
        assert_eq!(out.len(), got.len());
        for (a, (at, pkt)) in out.iter().zip(&got) {
            assert_eq!(a.pkt, *pkt);
            compared += 1;
            // The reciprocal's error (below 1e-10 of a gap) may move a release
            // across a tick boundary; nothing more.
            if a.at.abs_diff(*at) > 1 {
                mismatches += 1;
            }
        }
        assert!(
            !drops.is_empty() || seed > 0,
            "the trace should overflow the {FIFO}-entry FIFO"
        );
    }
    assert!(compared > pick(20_000, 40), "{compared}");
    assert_eq!(mismatches, 0);
}

#[test]
fn extreme_inputs_do_not_panic() {
    let p = tr_profile();
    let mp = trtcm_profile(3_000);
    let mut s: Ras<u32, 4> = Ras::new(t(u64::MAX - 5));
    let mut g: GreenRas<u32, 4> = GreenRas::new(t(u64::MAX - 5));
    let mut m = TrTcm::new(&mp, t(u64::MAX - 5));
    for (now, len) in [
        (u64::MAX, 0u32),
        (u64::MAX, u32::MAX),
        (3, 1500),
        (0, 64_000),
        (u64::MAX / 2, 1),
        (1, 1),
        (u64::MAX, 40),
    ] {
        let _ = s.enqueue(&p, t(now), len);
        let _ = s.dequeue(&p, t(now));
        let _ = g.enqueue(&p, &mp, &m, t(now), len);
        let _ = g.dequeue(&p, &mp, &mut m, t(now));
        invariants::shaper_consistent(&p, &s).unwrap();
        invariants::shaper_consistent(&p, g.ras()).unwrap();
    }
    // Drain whatever is left, whatever the clock says.
    for k in 0..64 {
        let now = t(k * (u64::MAX / 64));
        let _ = s.dequeue(&p, now);
        let _ = g.dequeue(&p, &mp, &mut m, now);
    }
}

fn arb_profile() -> impl Strategy<Value = RasProfile> {
    (
        1u64..50_000_000,
        1u64..4,
        1u64..4,
        1u64..4,
        1_000u64..200_000,
        0u64..100,
        0u64..100,
        0u64..100,
        prop::bool::ANY,
        1_000u64..1_000_000_000,
        prop_oneof![Just(1_000_000_000u64), Just(2_300_000_000), Just(1_000_000)],
    )
        .prop_map(|(cir, pm, mm, lm, buf, a, b, c, two, k, hz)| {
            let tick = TickRate::from_hz(hz).unwrap();
            let pir = cir * pm;
            let mir = pir * mm;
            let line = mir * lm;
            let mut th = [buf * a / 100, buf * b / 100, buf * c / 100];
            th.sort_unstable();
            let k = core::time::Duration::from_nanos(k);
            if two {
                let mut c = TrRasConfig::new(
                    Rate::from_bits_per_sec(cir),
                    Rate::from_bits_per_sec(pir),
                    Rate::from_bits_per_sec(line),
                    buf,
                );
                c.mir = Some(Rate::from_bits_per_sec(mir));
                c.thresholds = Some(TrThresholds {
                    cir_th: th[0],
                    pir_th: th[1],
                    mir_th: th[2],
                });
                c.k = k;
                c.tick = tick;
                // Buffers from one byte: the largest packet fits.
                c.max_packet_bytes = buf.clamp(1, 1500) as u32;
                TrRasProfile::new(&c).unwrap().into()
            } else {
                let mut c = SrRasConfig::new(
                    Rate::from_bits_per_sec(cir),
                    Rate::from_bits_per_sec(line),
                    buf,
                );
                c.mir = Some(Rate::from_bits_per_sec(mir));
                c.thresholds = Some(SrThresholds {
                    cir_th: th[0],
                    mir_th: th[2],
                });
                c.k = k;
                c.tick = tick;
                c.max_packet_bytes = buf.clamp(1, 1500) as u32;
                SrRasProfile::new(&c).unwrap().into()
            }
        })
}

#[derive(Clone, Debug)]
enum Op {
    Enq(u64, u32),
    Deq(u64),
    DeqAtRelease,
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            (0u64..20_000_000, 0u32..3_000).prop_map(|(d, l)| Op::Enq(d, l)),
            (0u64..20_000_000).prop_map(Op::Deq),
            Just(Op::DeqAtRelease),
        ],
        // Generating a case costs as much as running it under Miri.
        1..pick(200, 16),
    )
}

proptest! {
    #[test]
    fn prop_plain_shaper_invariants(p in arb_profile(), ops in arb_ops(), occ in 0u64..300_000) {
        let mut s: Ras<Pkt, 16> = Ras::new(Instant::ZERO);
        let mut now = 0u64;
        let mut next_id = 0u32;
        let mut expect_id = 0u32;
        let mut last: Option<Instant> = None;
        let mut last_len: Option<u32> = None;
        let mut dropped = 0u32;
        for op in ops {
            match op {
                Op::Enq(d, len) => {
                    now += d;
                    let room = s.len() < 16 && s.bytes() + len as u64 <= p.buffer_bytes();
                    let r = s.enqueue(&p, t(now), Pkt { len, id: next_id });
                    // No loss while the buffer has room; tail drop otherwise.
                    prop_assert_eq!(r.is_ok(), room);
                    if r.is_err() { dropped += 1; }
                    next_id += 1;
                }
                Op::Deq(d) => { now += d; }
                Op::DeqAtRelease => {
                    if let Some(r) = s.next_release() { now = now.max(r.ticks()); }
                }
            }
            while let Some(rel) = s.next_release() {
                if rel.ticks() > now { break; }
                let pkt = s.dequeue(&p, t(now)).unwrap();
                prop_assert!(invariants::release_in_order(last, rel, t(now)).is_ok());
                prop_assert_eq!(invariants::mir_spacing(&p, last.zip(last_len), rel), Ok(()));
                last = Some(rel);
                last_len = Some(pkt.len);
                // FIFO: ids come out in order, skipping only the dropped ones.
                prop_assert!(pkt.id >= expect_id && pkt.id - expect_id <= dropped);
                expect_id = pkt.id + 1;
            }
            prop_assert_eq!(invariants::shaper_consistent(&p, &s), Ok(()));
            prop_assert_eq!(invariants::rate_bounds(&p, s.ear(), s.bytes()), Ok(()));
            prop_assert_eq!(invariants::rate_bounds(&p, s.ear(), occ), Ok(()));
        }
    }

    /// Differential: the shaper with the precomputed CIR / MIR gaps against the
    /// same shaper computing every gap with the reciprocal, in lockstep (both see
    /// the same arrivals and release together): same packets, same drops, and
    /// schedules that differ only by the reciprocal's rounding.
    #[test]
    fn prop_const_gaps_match_the_reciprocal_path(p in arb_profile(), ops in arb_ops()) {
        let q = p.without_const_gaps();
        let mut a: Ras<Pkt, 16> = Ras::new(Instant::ZERO);
        let mut b: Ras<Pkt, 16> = Ras::new(Instant::ZERO);
        let mut now = 0u64;
        let mut id = 0u32;
        // Allowed difference of the schedules, in 2^-32 tick: 2^-30 of every gap
        // plus a few units, summed over the releases.
        let mut tol: u128 = 0;
        let q32 = |s: Schedule| ((s.at.ticks() as u128) << 32) | s.frac as u128;
        for op in ops {
            match op {
                Op::Enq(d, len) => {
                    now += d;
                    let ra = a.enqueue(&p, t(now), Pkt { len, id });
                    let rb = b.enqueue(&q, t(now), Pkt { len, id });
                    prop_assert_eq!(ra, rb);
                    id += 1;
                }
                Op::Deq(d) => now += d,
                Op::DeqAtRelease => {
                    if let Some(r) = a.next_release() { now = now.max(r.ticks()); }
                }
            }
            while let (Some(ra), Some(rb)) = (a.next_release(), b.next_release()) {
                prop_assert!(ra.ticks().abs_diff(rb.ticks()) <= 1, "{:?} {:?}", ra, rb);
                if ra.ticks().min(rb.ticks()) > now { break; }
                now = now.max(ra.ticks()).max(rb.ticks());
                let before = q32(b.head_schedule());
                let pa = a.dequeue(&p, t(now));
                let pb = b.dequeue(&q, t(now));
                prop_assert!(pa.is_some());
                prop_assert_eq!(pa, pb);
                let gap = q32(b.next_start()).saturating_sub(before);
                tol += (gap >> 30) + 4;
                let (sa, sb) = (q32(a.next_start()), q32(b.next_start()));
                prop_assert!(sa.abs_diff(sb) <= tol, "{} {} {}", sa, sb, tol);
            }
            prop_assert_eq!(a.len(), b.len());
            prop_assert_eq!(a.bytes(), b.bytes());
            prop_assert_eq!(a.ear(), b.ear());
            prop_assert_eq!(invariants::shaper_consistent(&p, &a), Ok(()));
            prop_assert_eq!(invariants::shaper_consistent(&q, &b), Ok(()));
        }
    }

    #[test]
    fn prop_green_shaper_invariants(p in arb_profile(), ops in arb_ops(), cbs in 1_000u64..20_000) {
        let mp = trtcm_profile(cbs);
        let mut m = TrTcm::new(&mp, Instant::ZERO);
        let mut g: GreenRas<u32, 16> = GreenRas::new(Instant::ZERO);
        let mut now = 0u64;
        let mut last: Option<Instant> = None;
        let mut last_len: Option<u32> = None;
        for op in ops {
            match op {
                Op::Enq(d, len) => {
                    now += d;
                    let _ = g.enqueue(&p, &mp, &m, t(now), len);
                }
                Op::Deq(d) => { now += d; }
                Op::DeqAtRelease => {
                    if let Some(r) = g.next_release() { now = now.max(r.ticks()); }
                }
            }
            while let Some(rel) = g.next_release() {
                if rel.ticks() > now { break; }
                let at_t2 = g.head_at_t2();
                let (len, color) = g.dequeue(&p, &mp, &mut m, t(now)).unwrap();
                prop_assert_eq!(invariants::green_at_t2(at_t2, color), Ok(()));
                prop_assert!(invariants::release_in_order(last, rel, t(now)).is_ok());
                prop_assert_eq!(invariants::mir_spacing(&p, last.zip(last_len), rel), Ok(()));
                last = Some(rel);
                last_len = Some(len);
            }
            prop_assert_eq!(invariants::shaper_consistent(&p, g.ras()), Ok(()));
        }
    }
}

#[test]
fn const_gaps_bracket_the_exact_quotient() {
    // The precomputed CIR gap is never longer than the exact quotient and the MIR
    // gap never shorter than its floor; both within 2^-33 relative.
    let mut r = SplitMix64::new(21);
    let mut used = 0;
    // Miri interprets every instruction: fewer random cases there.
    let n = pick(200_000, 500);
    for _ in 0..n {
        let scale = r.below(48);
        let rate =
            (((r.next_u32() as u64) << 32 | r.next_u32() as u64) >> (24 + r.below(40))).max(1);
        let len = match r.below(4) {
            0 => r.below(2_000),
            1 => u32::MAX - r.below(1_000),
            _ => r.next_u32(),
        };
        let exact = ((len as u128) << (scale + 32)) / rate as u128;
        for up in [false, true] {
            let Some(g) = crate::fixed::ConstGap::new(rate, scale, up) else {
                continue;
            };
            used += 1;
            let (w, f) = g.gap(len);
            assert!(w < crate::MAX_GAP_TICKS);
            let got = ((w as u128) << 32) | f as u128;
            if up {
                assert!(got >= exact, "up: rate {rate} S {scale} len {len}");
            } else {
                assert!(got <= exact, "down: rate {rate} S {scale} len {len}");
            }
            assert!(
                got.abs_diff(exact) <= (exact >> 33) + 1,
                "rate {rate} S {scale} len {len}"
            );
        }
    }
    assert!(used > n * 3 / 2, "{used}");
    // The profiles of these tests use them.
    assert!(tr_profile().has_const_gaps() && sr_profile().has_const_gaps());
}

#[test]
fn wrappers_agree_with_the_states() {
    // MeteredRasShaper = Ras + meter; GreenRasShaper = GreenRas + meter.
    let p = TrRasProfile::new(&tr_cfg()).unwrap();
    let mp = trtcm_profile(3_000);
    let trace = onoff_trace(900, pick(2_000, 40), 50_000_000, 40);
    let (plain, _) = run_plain::<256>(&p, &trace);
    let (green, _) = run_green::<TrTcm, 256>(&p, &mp, &trace);
    let mut m: crate::MeteredRasShaper<Pkt, TrTcm, 256> =
        crate::MeteredRasShaper::new(p, mp, Instant::ZERO);
    let mut g: crate::GreenRasShaper<Pkt, TrTcm, 256> =
        crate::GreenRasShaper::new(p, mp, Instant::ZERO);
    let mut meter = TrTcm::new(&mp, Instant::ZERO);
    for (shaper, want, is_green) in [(0, &plain, false), (1, &green, true)] {
        let mut i = 0;
        let mut out = Vec::new();
        loop {
            let rel = if shaper == 0 {
                m.next_release()
            } else {
                g.next_release()
            };
            let arr = trace.get(i).map(|x| x.0);
            match (rel.map(|r| r.ticks()), arr) {
                (None, None) => break,
                (Some(r), a) if a.map_or(true, |a| r < a) => {
                    let (pkt, c) = if shaper == 0 {
                        m.dequeue(t(r)).unwrap()
                    } else {
                        g.dequeue(t(r)).unwrap()
                    };
                    out.push((r, pkt, c));
                }
                (_, Some(a)) => {
                    let _ = if shaper == 0 {
                        m.enqueue(t(a), trace[i].1)
                    } else {
                        g.enqueue(t(a), trace[i].1)
                    };
                    i += 1;
                }
                (Some(_), None) => unreachable!(),
            }
        }
        assert_eq!(out.len(), want.len());
        for ((r, pkt, c), w) in out.iter().zip(want.iter()) {
            assert_eq!((*r, *pkt), (w.at, w.pkt));
            if is_green {
                assert_eq!(Some(*c), w.color);
            } else {
                assert_eq!(*c, meter.color_blind(&mp, t(*r), pkt.len));
            }
        }
    }
}

#[test]
fn green_shaper_with_large_bursts_barely_delays() {
    // RFC 2963 appendix A.3: with a large CBS the G-trRAS releases almost
    // everything at once (the meter would color it green anyway), where the
    // trRAS still spaces the bursts out.
    let p = tr_profile();
    let mp = trtcm_profile(400_000);
    let trace = onoff_trace(1_000, pick(3_000, 50), 50_000_000, 30);
    let (plain, _) = run_plain::<256>(&p, &trace);
    let (green, _) = run_green::<TrTcm, 256>(&p, &mp, &trace);
    let delay = |v: &[Release]| v.iter().map(|r| r.at - r.arrival).sum::<u64>();
    assert!(delay(&plain) > 0);
    assert!(
        delay(&green) * 20 < delay(&plain),
        "green {} plain {}",
        delay(&green),
        delay(&plain)
    );
}

/// Fuzz finding (ras_trras): with CIR 1 bit/s and a 3.2 GB buffer, packets
/// waited behind gaps of 2^62 ticks until the next release lay more than 2^63
/// ticks after a queued packet's arrival; the serial comparison then took the
/// arrival for the later instant and released that packet out of order. A
/// buffer that cannot drain at CIR within `MAX_DRAIN_TICKS` is now refused, and
/// at the limit a full buffer leaves in order.
#[test]
fn buffers_that_drain_too_slowly_are_refused_and_the_limit_stays_in_order() {
    use crate::{RasError, MAX_DRAIN_TICKS};
    let one_bit = Rate::from_bits_per_sec(1);
    let mut c = TrRasConfig::new(one_bit, one_bit, Rate::from_bits_per_sec(3_200_167_576), 0);
    c.buffer_bytes = 3_200_188_094;
    assert_eq!(TrRasProfile::new(&c), Err(RasError::DrainTooSlow));
    let sr = SrRasConfig::new(one_bit, Rate::from_mbps(1), 3_200_188_094);
    assert_eq!(SrRasProfile::new(&sr), Err(RasError::DrainTooSlow));
    // On a nanosecond clock with this line rate the profile counts rates in
    // 2^-41 byte per tick and rounds 1 bit/s (2^41 / 8e9 = 274.9 units) up to
    // 275, so a buffer drains within 2^61 ticks up to 275 x 2^20 bytes.
    c.buffer_bytes = 1;
    c.max_packet_bytes = 1;
    let small: RasProfile = TrRasProfile::new(&c).unwrap().into();
    assert_eq!((small.scale(), small.cir_units()), (41, 275));
    let max_buffer = 275 << 20;
    assert_eq!(max_buffer, ((MAX_DRAIN_TICKS as u128 * 275) >> 41) as u64);
    c.buffer_bytes = max_buffer + 1;
    assert_eq!(TrRasProfile::new(&c), Err(RasError::DrainTooSlow));
    c.buffer_bytes = max_buffer;
    let p: RasProfile = TrRasProfile::new(&c).unwrap().into();
    for start in [0, 5_714_873_652_877_459_456, u64::MAX - 1000] {
        let mut s: Ras<Pkt, 16> = Ras::new(t(start));
        let each = (max_buffer / 16) as u32;
        for id in 0..16 {
            assert!(s.enqueue(&p, t(start), Pkt { len: each, id }).is_ok());
        }
        let mut last = None;
        let mut now = t(start);
        for id in 0..16 {
            let rel = s.next_release().unwrap();
            assert!(rel.ticks_since(now) < MAX_DRAIN_TICKS);
            now = rel;
            assert_eq!(s.dequeue(&p, now).map(|k| k.id), Some(id));
            assert_eq!(invariants::release_in_order(last, rel, now), Ok(()));
            last = Some(rel);
        }
        assert!(s.is_empty());
    }
}

/// A meter that computes T2 without the shaper's cached divisors (the default
/// `green_at_cached`, that is `green_at` and its table-and-Newton
/// `ticks_until`, itself tested against the exact division).
#[derive(Clone, Copy, Debug)]
struct Uncached<M>(M);

impl<M: crate::GreenMeter> crate::GreenMeter for Uncached<M> {
    type Profile = M::Profile;
    fn start(profile: &M::Profile, now: Instant) -> Self {
        Uncached(M::start(profile, now))
    }
    fn green_at(&self, profile: &M::Profile, now: Instant, len: u32) -> Option<Instant> {
        self.0.green_at(profile, now, len)
    }
    fn color(&mut self, profile: &M::Profile, now: Instant, len: u32) -> Color {
        self.0.color(profile, now, len)
    }
}

/// Random meter rates, clocks and bursts: increments per tick from 0 (a zero
/// rate is refused by the meters, but tiny rates on fast clocks are not) to
/// well above the bucket sizes.
fn random_rate(r: &mut SplitMix64) -> Rate {
    let bits = match r.below(4) {
        0 => 1 + r.below(10_000) as u64,
        1 => 1 + r.next_u32() as u64,
        2 => (1 + r.next_u32() as u64) * (1 + r.below(10_000) as u64),
        _ => 8 << r.below(40),
    };
    Rate::from_bits_per_sec(bits)
}

fn random_tick(r: &mut SplitMix64) -> TickRate {
    let hz = [1_000_000_000u64, 2_300_000_000, 1_000_000, 3, 1][r.below(5) as usize];
    TickRate::from_hz(hz).unwrap()
}

/// Drives a green shaper on the cached-divisor path and one on the uncached
/// path with the same operations, switching between two meter profiles of
/// different rates so that the cache is refilled now and then, and checks that
/// every T1, T2, release point, released packet and color agree.
fn cached_t2_matches<M: crate::GreenMeter>(seed: u64, profiles: [M::Profile; 2], steps: usize) {
    let mut r = SplitMix64::new(seed);
    let p = tr_profile();
    let mut a: GreenRas<u32, 8> = GreenRas::new(Instant::ZERO);
    let mut b: GreenRas<u32, 8> = GreenRas::new(Instant::ZERO);
    let mut ma = M::start(&profiles[0], Instant::ZERO);
    let mut mb = <Uncached<M> as crate::GreenMeter>::start(&profiles[0], Instant::ZERO);
    let mut now = 0u64;
    for _ in 0..steps {
        // Mostly one profile, sometimes the other (the cache switches).
        let mp = &profiles[(r.below(8) == 0) as usize];
        now = match r.below(10) {
            0 => now.wrapping_sub(r.below(1000) as u64),
            1 => now.wrapping_add(r.next_u32() as u64 * r.next_u32() as u64),
            2 => a.next_release().map_or(now, |x| x.ticks()),
            _ => now.wrapping_add(r.below(100_000) as u64),
        };
        if r.below(2) == 0 {
            let len = [0u32, 1, 64, 1500, 9000, 70_000, u32::MAX][r.below(7) as usize];
            let ra = a.enqueue(&p, mp, &ma, t(now), len);
            let rb = b.enqueue(&p, mp, &mb, t(now), len);
            assert_eq!(ra, rb);
        } else {
            let ra = a.dequeue(&p, mp, &mut ma, t(now));
            let rb = b.dequeue(&p, mp, &mut mb, t(now));
            assert_eq!(ra, rb);
        }
        assert_eq!(a.ras().head_t1(), b.ras().head_t1());
        assert_eq!(a.ras().head_t2(), b.ras().head_t2());
        assert_eq!(a.ras().head_schedule(), b.ras().head_schedule());
        assert_eq!(a.next_release(), b.next_release());
    }
}

#[test]
fn cached_t2_divisors_match_the_uncached_path() {
    let mut r = SplitMix64::new(21);
    let (mut sr, mut tr) = (0, 0);
    for seed in 0..pick(300, 3) as u64 {
        let tick = random_tick(&mut r);
        let sp: Vec<SrTcmProfile> = (0..2)
            .filter_map(|_| {
                SrTcmProfile::new(
                    &SrTcmConfig::new(
                        random_rate(&mut r),
                        1 + r.below(100_000) as u64,
                        r.below(100_000) as u64,
                    )
                    .with_tick(tick),
                )
                .ok()
            })
            .collect();
        if let [x, y] = sp[..] {
            cached_t2_matches::<SrTcm>(seed, [x, y], pick(2_000, 60));
            sr += 1;
        }
        let tp: Vec<TrTcmProfile> = (0..2)
            .filter_map(|_| {
                let cir = random_rate(&mut r);
                TrTcmProfile::new(
                    &TrTcmConfig::new(
                        cir,
                        Rate::from_bits_per_sec(
                            cir.bits_per_sec() + random_rate(&mut r).bits_per_sec() / 4,
                        ),
                        1 + r.below(100_000) as u64,
                        1 + r.below(100_000) as u64,
                    )
                    .with_tick(tick),
                )
                .ok()
            })
            .collect();
        if let [x, y] = tp[..] {
            cached_t2_matches::<TrTcm>(seed, [x, y], pick(2_000, 60));
            tr += 1;
        }
    }
    // Most random profiles are valid, so both meters were exercised.
    assert!(sr >= pick(200, 1) && tr >= pick(200, 1), "{sr} {tr}");
}

/// `mir_spacing` passes a release one MIR gap after the previous one and
/// fails one that follows in the same tick or two ticks short of the gap.
#[test]
fn mir_spacing_rejects_releases_faster_than_mir() {
    let p = sr_profile();
    // 1500 B at MIR, in ticks, rounded up (the exact gap is not whole here).
    let mir_bytes_per_tick = p.mir_units() as f64 / (1u64 << p.scale()) as f64;
    let g = (1500.0 / mir_bytes_per_tick).ceil() as u64;
    assert!(g >= 2, "{g}");
    let at = |x: u64| Instant::from_ticks(1_000 + x);
    let prev = Some((at(0), 1500));
    assert_eq!(invariants::mir_spacing(&p, prev, at(g)), Ok(()));
    assert_eq!(invariants::mir_spacing(&p, prev, at(g - 1)), Ok(()));
    // g - 2 ticks may pass: when the exact gap is just above g - 1, the
    // rule's slack of 2^-30 relative covers it.
    assert!(invariants::mir_spacing(&p, prev, at(g - 3)).is_err());
    assert!(invariants::mir_spacing(&p, prev, at(0)).is_err());
    assert!(invariants::mir_spacing(&p, Some((at(5), 1500)), at(0)).is_err());
    assert_eq!(invariants::mir_spacing(&p, None, at(0)), Ok(()));
}

/// The green shaper written plainly, step by step as `GreenRas` documents it,
/// for a packet-by-packet differential test with no tolerance: a `VecDeque`,
/// the schedule as `Option`s and comparisons in serial time, T2 from the
/// meter's uncached `green_at` (table-and-Newton `ticks_until`, itself tested
/// against exact division). The transmission times come from the profile's
/// own `gap` and `mir_gap` (tested on their own against the `u128` forms and
/// exact division), so every release must agree to the tick and fraction.
struct GreenModel<M> {
    q: VecDeque<(u32, Instant)>,
    cap: usize,
    bytes: u64,
    ear: crate::Ear,
    meter: M,
    /// Earliest start of the next head: last release point plus L/R.
    next: Schedule,
    /// The first tick the line is free: last release point plus L/MIR, up.
    free: Instant,
    t1: Schedule,
    t2: Option<Instant>,
    head: Schedule,
}

/// `a <= b` in serial time (equal ticks compare the fractions).
fn sched_not_after(a: Schedule, b: Schedule) -> bool {
    let d = b.at.ticks().wrapping_sub(a.at.ticks());
    if d == 0 {
        a.frac <= b.frac
    } else {
        d < 1 << 63
    }
}

impl<M: crate::GreenMeter> GreenModel<M> {
    fn new(mp: &M::Profile, now: Instant, cap: usize) -> Self {
        GreenModel {
            q: VecDeque::new(),
            cap,
            bytes: 0,
            ear: crate::Ear::new(now),
            meter: M::start(mp, now),
            next: Schedule::whole(now),
            free: now,
            t1: Schedule::whole(now),
            t2: None,
            head: Schedule::whole(now),
        }
    }

    fn next_release(&self) -> Option<Instant> {
        self.q.front().map(|_| self.head.ceil())
    }

    /// T1 = max(arrival, next start); T2 only while T1 is in the future, and
    /// no earlier than the line is free; the head leaves at min(T1, T2).
    fn schedule(&mut self, mp: &M::Profile, now: Instant) {
        let Some(&(len, arrival)) = self.q.front() else {
            return;
        };
        let a = Schedule::whole(arrival);
        let t1 = if sched_not_after(a, self.next) {
            self.next
        } else {
            a
        };
        let t2 = if sched_not_after(t1, Schedule::whole(now)) {
            None
        } else {
            self.meter.green_at(mp, now, len).map(|x| {
                // The later of x and free in serial time (x if neither is).
                let d = self.free.ticks().wrapping_sub(x.ticks());
                if d != 0 && d < 1 << 63 {
                    self.free
                } else {
                    x
                }
            })
        };
        self.t1 = t1;
        self.t2 = t2;
        self.head = match t2 {
            Some(x) if sched_not_after(Schedule::whole(x), t1) => Schedule::whole(x),
            _ => t1,
        };
    }

    fn enqueue(&mut self, p: &RasProfile, mp: &M::Profile, now: Instant, len: u32) -> bool {
        self.ear.update(p.ear(), now, len);
        if self.q.len() == self.cap || self.bytes.saturating_add(len as u64) > p.buffer_bytes() {
            return false;
        }
        self.q.push_back((len, now));
        self.bytes += len as u64;
        if self.q.len() == 1 {
            self.schedule(mp, now);
        }
        true
    }

    fn dequeue(&mut self, p: &RasProfile, mp: &M::Profile, now: Instant) -> Option<(u32, Color)> {
        // Due unless the release lies 1 to 2^63 - 1 ticks after now.
        let d = self.next_release()?.ticks().wrapping_sub(now.ticks());
        if d != 0 && d <= i64::MAX as u64 {
            return None;
        }
        let (len, _) = self.q.pop_front()?;
        self.bytes -= len as u64;
        self.next = self.head.plus(p.gap(&self.ear, self.bytes, len));
        self.free = self.head.plus(p.mir_gap(len)).ceil();
        let color = self.meter.color(mp, now, len);
        self.schedule(mp, now);
        Some((len, color))
    }
}

/// A random srRAS or trRAS profile with odd rates (not round numbers, so
/// that gaps carry fractions of a tick), CIR from 1 kbit/s to 2 Gbit/s, one
/// of three clocks, thresholds anywhere in the buffer, and a K that puts
/// the bench streams' gaps in either EAR regime.
fn random_ras_profile(r: &mut SplitMix64) -> RasProfile {
    let tick = random_tick(r);
    let cir = 1_000 + (r.next_u32() as u64 % 2_000_000) * (1 + r.below(1_000) as u64);
    let pir = cir + cir * r.below(3) as u64 + r.below(1_000) as u64;
    let mir = pir + pir * r.below(4) as u64 + r.below(1_000) as u64;
    let buf = 3_000 + r.below(300_000) as u64;
    let mut th = [0; 3].map(|_| buf * r.below(101) as u64 / 100);
    th.sort_unstable();
    let k = core::time::Duration::from_nanos(1_000 + r.below(200_000_000) as u64);
    let rate = Rate::from_bits_per_sec;
    let built = if r.below(2) == 0 {
        let mut c = TrRasConfig::new(rate(cir), rate(pir), rate(mir), buf);
        c.thresholds = Some(TrThresholds {
            cir_th: th[0],
            pir_th: th[1],
            mir_th: th[2],
        });
        c.k = k;
        c.tick = tick;
        TrRasProfile::new(&c).map(RasProfile::from)
    } else {
        let mut c = SrRasConfig::new(rate(cir), rate(mir), buf);
        c.thresholds = Some(SrThresholds {
            cir_th: th[0],
            mir_th: th[2],
        });
        c.k = k;
        c.tick = tick;
        SrRasProfile::new(&c).map(RasProfile::from)
    };
    built.unwrap_or_else(|_| tr_profile())
}

/// Runs a `GreenRas` and the plain model side by side on one stream and
/// compares every step: drops, released packets and colors, the release
/// instant, T1, T2 and the release point. `idle`: arrivals spaced at random
/// around the mean transmission time (the shaper often empties); otherwise
/// a backlog: bursts of arrivals at the last release. Dequeues are tried at
/// the release instant, and now and then early (nothing must leave).
fn green_matches_model<M: crate::GreenMeter>(
    r: &mut SplitMix64,
    p: &RasProfile,
    mp: &M::Profile,
    idle: bool,
    steps: usize,
) -> (usize, usize) {
    const CAP: usize = 16;
    let start = Instant::from_ticks(r.next_u32() as u64 * r.next_u32() as u64);
    let mut g: GreenRas<u32, CAP> = GreenRas::new(start);
    let mut meter = M::start(mp, start);
    let mut model: GreenModel<M> = GreenModel::new(mp, start, CAP);
    // About one 600-byte packet's time at CIR, in ticks.
    let mean = ((600u128 << p.scale()) / p.cir_units().max(1) as u128).clamp(1, 1 << 40) as u64;
    let mut now = start;
    // Packets released, and of those, released at T2 (before T1).
    let (mut released, mut at_t2) = (0, 0);
    for i in 0..steps {
        // Idle: one arrival in most steps, spaced at random around the mean
        // time; backlog: zero to three arrivals at the last release.
        let arrivals = if idle {
            (r.below(4) != 0 || g.ras().is_empty()) as u64
        } else if g.ras().len() < 12 {
            r.below(4) as u64
        } else {
            0
        };
        for _ in 0..arrivals {
            let len = match r.below(8) {
                0 => r.below(70_000),
                1 => [0, 1, 40][r.below(3) as usize],
                _ => [64u32, 576, 1500][r.below(3) as usize],
            };
            if idle {
                now = now.wrapping_add(r.next_u32() as u64 % (2 * mean + 1));
            }
            let a = g.enqueue(p, mp, &meter, now, len).is_ok();
            let b = model.enqueue(p, mp, now, len);
            assert_eq!(a, b, "step {i}: enqueue");
        }
        if r.below(6) == 0 {
            // An early poll, one tick before the release: nothing leaves.
            if let Some(x) = g.next_release() {
                let early = x.wrapping_add(u64::MAX);
                if early.ticks_since(now) > 0 {
                    assert_eq!(g.dequeue(p, mp, &mut meter, early), None, "step {i}");
                    assert_eq!(model.dequeue(p, mp, early), None, "step {i}");
                }
            }
        }
        if let Some(x) = g.next_release() {
            if x.ticks_since(now) > 0 {
                now = x;
            }
            at_t2 += g.head_at_t2() as usize;
            let a = g.dequeue(p, mp, &mut meter, now);
            let b = model.dequeue(p, mp, now);
            assert_eq!(a, b, "step {i}: dequeue at {now:?}");
            released += a.is_some() as usize;
        }
        assert_eq!(g.next_release(), model.next_release(), "step {i}");
        if !g.ras().is_empty() {
            assert_eq!(g.ras().head_t1(), model.t1, "step {i}: T1");
            assert_eq!(g.ras().head_t2(), model.t2, "step {i}: T2");
            assert_eq!(g.ras().head_schedule(), model.head, "step {i}: head");
        }
    }
    (released, at_t2)
}

/// G-srRAS and G-trRAS against the plain model, packet by packet with no
/// tolerance, idle and backlogged, on random profiles with odd rates and
/// meters whose bursts range from below one packet to many.
#[test]
fn green_shapers_match_the_plain_model_packet_by_packet() {
    let mut r = SplitMix64::new(77);
    // Packets released, and of those at T2, by meter and idle / backlog.
    let (mut sr, mut tr) = (0, 0);
    let mut t2_wins = [[0; 2]; 2];
    for case in 0..pick(400, 4) {
        let p = random_ras_profile(&mut r);
        let idle = case % 2 == 0;
        let tick = TickRate::from_hz(p.tick_hz()).unwrap();
        let cbs = 64 + r.below(30_000) as u64;
        let cir = random_rate(&mut r);
        if let Ok(mp) =
            SrTcmProfile::new(&SrTcmConfig::new(cir, cbs, r.below(30_000) as u64).with_tick(tick))
        {
            let (n, w) = green_matches_model::<SrTcm>(&mut r, &p, &mp, idle, pick(600, 40));
            sr += n;
            t2_wins[0][idle as usize] += w;
        }
        if let Ok(mp) = TrTcmProfile::new(
            &TrTcmConfig::new(
                cir,
                Rate::from_bits_per_sec(cir.bits_per_sec() + random_rate(&mut r).bits_per_sec()),
                cbs,
                64 + r.below(30_000) as u64,
            )
            .with_tick(tick),
        ) {
            let (n, w) = green_matches_model::<TrTcm>(&mut r, &p, &mp, idle, pick(600, 40));
            tr += n;
            t2_wins[1][idle as usize] += w;
        }
    }
    assert!(sr > pick(50_000, 20) && tr > pick(50_000, 20), "{sr} {tr}");
    // T2 wins often enough, for both meters, idle and backlogged.
    let few = pick(5_000, 0);
    assert!(t2_wins.iter().flatten().all(|&w| w >= few), "{t2_wins:?}");
}

// ---------------------------------------------------------------------------
// Mutation checks (see `crate::mutants` and docs/verification.md)
// ---------------------------------------------------------------------------

/// `rate_bounds` (as the fuzz targets call it) along a burst much faster than
/// MIR through a plain shaper of `p`: true if it fails.
fn rate_bounds_fail(p: &RasProfile) -> bool {
    let mut s: Ras<u32, 64> = Ras::new(Instant::ZERO);
    (0..2_000u64).any(|i| {
        let _ = s.enqueue(p, t(i * 10), 1500);
        while let Some(r) = s.next_release() {
            if r.ticks() > i * 10 {
                break;
            }
            let _ = s.dequeue(p, r);
        }
        [0, s.bytes(), p.buffer_bytes()]
            .iter()
            .any(|&occ| invariants::rate_bounds(p, s.ear(), occ).is_err())
    })
}

/// A green shaper's run with its invariants (`green_at_t2`, `mir_spacing`,
/// `shaper_consistent`, as the fuzz targets check them) on on/off traffic:
/// true if one fails.
fn green_fails<M: crate::GreenMeter>(p: &RasProfile, mp: &M::Profile) -> bool {
    (0..3u64).any(|seed| {
        let trace = onoff_trace(seed, 3_000, 20_000_000, 40);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_green::<M, 256>(p, mp, &trace);
        }))
        .is_err()
    })
}

fn ras_caught(id: u32) -> bool {
    match id {
        1 => rate_bounds_fail(&sr_profile()),
        2 => rate_bounds_fail(&tr_profile()),
        3 => green_fails::<SrTcm>(&sr_profile(), &srtcm_profile(3000)),
        4 => green_fails::<TrTcm>(&tr_profile(), &trtcm_profile(3000)),
        _ => false,
    }
}

/// Every shaper mutant is caught by the invariants its fuzz target runs; no
/// detector fires on the real code.
#[test]
#[cfg_attr(miri, ignore = "thousands of packets per detector")]
fn mutation_checks() {
    for id in 1..=4 {
        assert!(!ras_caught(id), "detector {id} fires on the unbroken code");
        assert!(
            crate::mutants::with(id, || ras_caught(id)),
            "mutant {id} not caught"
        );
    }
}
