//! Differential tests against the reference models, facts from the source texts and the
//! RFCs, and property tests of the invariants.

use crate::invariants::*;
use crate::reference::*;
use crate::*;
use netcond_core::{Instant, RandomSource, Rate, SplitMix64, TickRate};
use proptest::prelude::*;

const MARKS: [PcnMark; 4] = [PcnMark::NotPcn, PcnMark::Nm, PcnMark::Thm, PcnMark::Etm];

fn ns(t: u64) -> Instant {
    Instant::from_ticks(t)
}

fn pick_tick(r: &mut SplitMix64) -> TickRate {
    match r.below(5) {
        0 => TickRate::NANOS,
        1 => TickRate::MICROS,
        2 => TickRate::from_hz(2_300_000_000).unwrap(),
        3 => TickRate::from_hz(3).unwrap(),
        _ => TickRate::MILLIS,
    }
}

fn pick_rate(r: &mut SplitMix64) -> Rate {
    match r.below(4) {
        0 => Rate::from_bits_per_sec(r.below(1_000_000_000) as u64 + 1),
        1 => Rate::from_mbps(u64::from(r.below(100)) + 1),
        2 => Rate::from_bits_per_sec(u64::from(r.below(100_000))),
        _ => Rate::from_bits_per_sec(u64::from(r.next_u32()) * 3 + 7),
    }
}

fn pick_len(r: &mut SplitMix64) -> u32 {
    match r.below(20) {
        0 => 0,
        1 => 9000,
        2..=9 => 64 + r.below(200),
        _ => 64 + r.below(1437),
    }
}

fn pick_mark(r: &mut SplitMix64) -> PcnMark {
    match r.below(10) {
        0 => PcnMark::NotPcn,
        1 => PcnMark::Thm,
        2 => PcnMark::Etm,
        _ => PcnMark::Nm,
    }
}

/// Ticks between packets for an offered load of about `rate x factor/4`,
/// sometimes a long idle gap, sometimes a step back in time.
fn pick_step(r: &mut SplitMix64, rate: Rate, tick: TickRate, len: u32) -> (u64, bool) {
    if r.below(60) == 0 {
        return (u64::from(r.below(1_000_000)), true);
    }
    if r.below(200) == 0 {
        return (tick.hz().saturating_mul(u64::from(r.below(3) + 1)), false);
    }
    let bits = u128::from(len.max(64)) * 8;
    let per_sec = u128::from(rate.bits_per_sec().max(1));
    let factor = u128::from(r.below(12) + 1); // 0.25 .. 3 x the rate
    let t = bits * u128::from(tick.hz()) * 4 / (per_sec * factor);
    (t.min(u128::from(u64::MAX / 4)) as u64, false)
}

/// A reference model as the differential harness sees it.
trait Model {
    fn step(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark;
    fn same(&self, level: i128, per_byte: u64) -> bool;
}

macro_rules! model {
    ($t:ty) => {
        impl Model for $t {
            fn step(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
                self.mark(now, len, mark)
            }
            fn same(&self, level: i128, per_byte: u64) -> bool {
                self.fill_matches(level, per_byte)
            }
        }
    };
}
model!(RefEtMarker);
model!(RefEtMarkerSim48);
model!(RefAsMarker);
model!(RefThresholdMeter);
model!(RefExcessTrafficMeter);

/// Drives a fast meter and a reference model with the same random stream,
/// checking the invariants at every step. Returns the mismatches (marking or
/// bucket level); panics if the meter never changed a marking (a stream that
/// tests nothing).
fn differential<M: PcnMeter, R: Model>(
    seed: u64,
    packets: usize,
    profile: &M::Profile,
    per_byte: u64,
    rate: Rate,
    tick: TickRate,
    make: impl FnOnce(Instant) -> R,
) -> usize {
    let mut r = SplitMix64::new(seed);
    let mut t = u64::from(r.next_u32());
    let mut m = M::start(profile, ns(t));
    let mut model = make(ns(t));
    let mut bad = 0;
    let mut changed = 0;
    for _ in 0..packets {
        let len = pick_len(&mut r);
        let (step, back) = pick_step(&mut r, rate, tick, len);
        t = if back {
            t.saturating_sub(step)
        } else {
            t + step
        };
        let mark = pick_mark(&mut r);
        let fast = meter_step(profile, &mut m, ns(t), len, mark).expect("invariant");
        not_pcn_is_not_metered(profile, &m, ns(t), len).expect("invariant");
        changed += usize::from(fast != mark);
        let slow = model.step(ns(t), len, mark);
        if fast != slow || !model.same(m.level(), per_byte) {
            bad += 1;
        }
    }
    MARKED.with(|c| c.set(c.get() + changed));
    bad
}

std::thread_local! {
    /// Markings changed by the fast meters in this test thread.
    static MARKED: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

fn marked_so_far() -> usize {
    MARKED.with(core::cell::Cell::get)
}

/// Configurations, packets per stream, and the least configurations built and
/// markings changed that a differential test expects. Miri interprets every
/// instruction, so under it a few short streams check the same code paths for
/// undefined behaviour; the native run checks 300 streams of 4000 packets.
const DIFF: (u64, usize, usize, usize) = if cfg!(miri) {
    (4, 80, 3, 2)
} else {
    (300, 4000, 200, 20_000)
};

#[test]
fn et_marker_matches_reference() {
    let mut cfgs = SplitMix64::new(1);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let sr = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let s = u64::from(cfgs.below(12_000));
        let marking = if cfgs.below(2) == 0 {
            EtMarking::TailMarking
        } else {
            let mtu = 1 + cfgs.below(9000);
            EtMarking::SizeIndependent { mtu }
        };
        let bucket = match marking {
            EtMarking::SizeIndependent { mtu } => bucket.max(u64::from(mtu)),
            EtMarking::TailMarking => bucket,
        };
        let c = EtMarkerConfig {
            sr,
            bucket_size: bucket,
            s,
            already_et_adds_s: cfgs.below(2) == 0,
            marking,
            tick,
        };
        let Ok(p) = EtMarkerProfile::new(&c) else {
            continue;
        };
        built += 1;
        bad += differential::<EtMarker, _>(i, packets, &p, p.units_per_byte(), sr, tick, |t| {
            RefEtMarker::new(c, t)
        });
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn et_marker_sim48_matches_reference() {
    let mut cfgs = SplitMix64::new(2);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let c = EtMarkerSim48Config {
            pcn_pt: rate,
            pcn_tb: u64::from(cfgs.below(60_000)),
            pcn_px: u64::from(cfgs.below(12_000)) + 1000,
            tick,
        };
        let Ok(p) = EtMarkerSim48Profile::new(&c) else {
            continue;
        };
        built += 1;
        bad +=
            differential::<EtMarkerSim48, _>(i, packets, &p, p.units_per_byte(), rate, tick, |t| {
                RefEtMarkerSim48::new(c, t)
            });
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn as_marker_matches_reference() {
    let mut cfgs = SplitMix64::new(3);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let c = AsMarkerConfig {
            ar: rate,
            bucket_size: bucket,
            threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
            form: if cfgs.below(2) == 0 {
                AsForm::DraftExplicitMarking01
            } else {
                AsForm::Draft3sm01
            },
            tick,
        };
        let Ok(p) = AsMarkerProfile::new(&c) else {
            continue;
        };
        built += 1;
        bad += differential::<AsMarker, _>(i, packets, &p, p.units_per_byte(), rate, tick, |t| {
            RefAsMarker::new(c, t)
        });
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn threshold_meter_matches_reference() {
    let mut cfgs = SplitMix64::new(4);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let c = ThresholdMeterConfig {
            threshold_rate: rate,
            bs_tm: bucket,
            threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
            tick,
        };
        let Ok(p) = ThresholdMeterProfile::new(&c) else {
            continue;
        };
        built += 1;
        bad += differential::<ThresholdMeter, _>(
            i,
            packets,
            &p,
            p.units_per_byte(),
            rate,
            tick,
            |t| RefThresholdMeter::new(c, t),
        );
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn excess_meter_matches_reference() {
    let mut cfgs = SplitMix64::new(5);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let c = ExcessTrafficMeterConfig {
            excess_rate: rate,
            bs_etm: u64::from(cfgs.below(60_000)),
            mode: match cfgs.below(3) {
                0 => ExcessMode::SizeIndependent,
                1 => ExcessMode::Classic(ClassicTie::Section2_4),
                _ => ExcessMode::Classic(ClassicTie::AppendixB6),
            },
            tick,
        };
        let Ok(p) = ExcessTrafficMeterProfile::new(&c) else {
            continue;
        };
        built += 1;
        bad += differential::<ExcessTrafficMeter, _>(
            i,
            packets,
            &p,
            p.units_per_byte(),
            rate,
            tick,
            |t| RefExcessTrafficMeter::new(c, t),
        );
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

// ---------------------------------------------------------------------------
// Facts: ET marking is proportional to the excess
// ---------------------------------------------------------------------------

/// Runs a constant-size stream at `gap` ticks through `m` from t = 0 and
/// returns (arrived bytes, marked bytes, marks, time of the last packet).
fn run_cbr<M: PcnMeter>(
    p: &M::Profile,
    m: &mut M,
    n: u64,
    len: u32,
    gap: u64,
) -> (u64, u64, u64, u64) {
    let (mut arrived, mut marked, mut marks) = (0, 0, 0);
    for i in 0..n {
        arrived += u64::from(len);
        if m.mark(p, ns(i * gap), len, PcnMark::Nm) == PcnMark::Etm {
            marked += u64::from(len);
            marks += 1;
        }
    }
    (arrived, marked, marks, (n - 1) * gap)
}

/// draft-babiarz-pcn-explicit-marking-01 section 3.1.1's node: SR 40 Mbps, TB.size 50,000 B, G.711 packets
/// of 200 B at twice SR (one every 20 us), nanosecond clock.
const SR_40M: u64 = 40;
const G711: u32 = 200;
const GAP_2X: u64 = 20_000;
/// Packets of a constant-rate run: 2 s natively; 20 ms under Miri, which
/// interprets every instruction, still past the point where the 50,000-byte
/// bucket runs dry (10 ms).
const CBR_PACKETS: u64 = if cfg!(miri) { 1_000 } else { 100_000 };

#[test]
fn et_s0_marks_exactly_the_excess_beyond_the_bucket() {
    let c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_mbps(SR_40M), 50_000, 0);
    let p = EtMarkerProfile::new(&c).unwrap();
    let mut m = EtMarker::new(&p, ns(0));
    let (arrived, marked, _, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
    // SR x T in bytes: 5,000,000 B/s over t ns.
    let sr_t = 5_000_000u128 * u128::from(t) / 1_000_000_000;
    let expect = u128::from(arrived) - 50_000 - sr_t;
    assert!(
        u128::from(marked) >= expect && u128::from(marked) < expect + u128::from(G711),
        "marked {marked}, arrived {arrived}, SR*T {sr_t}"
    );
    // And exactly: unmarked bytes = TB.size + SR x T - final fill, in units.
    let scale = u128::from(p.units_per_byte());
    let unmarked = u128::from(arrived - marked);
    assert_eq!(
        unmarked * scale * 8_000_000_000,
        50_000 * scale * 8_000_000_000 + 40_000_000 * u128::from(t) * scale
            - u128::from(m.fill_units()) * 8_000_000_000
    );
}

#[test]
fn et_s0_random_sizes_within_bucket_and_one_mtu() {
    let (seeds, n) = if cfg!(miri) { (2, 1_000) } else { (20, 50_000) };
    for seed in 0..seeds {
        let c = EtMarkerConfig::draft_3sm01(Rate::from_mbps(SR_40M), 50_000, 0);
        let p = EtMarkerProfile::new(&c).unwrap();
        let mut m = EtMarker::new(&p, ns(0));
        let mut r = SplitMix64::new(seed);
        let (mut t, mut arrived, mut marked) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            let len = match r.below(8) {
                0..=3 => 64,
                4..=6 => 576,
                _ => 1500,
            };
            arrived += u64::from(len);
            if m.mark(&p, ns(t), len, PcnMark::Nm) == PcnMark::Etm {
                marked += u64::from(len);
            }
            // Mean 470 B every 47 us: 2 x SR.
            t += 47_000;
        }
        t -= 47_000;
        let sr_t = 5_000_000 * u128::from(t) / 1_000_000_000;
        let excess = u128::from(arrived) - sr_t;
        let marked = u128::from(marked);
        assert!(
            marked + 50_000 >= excess,
            "seed {seed}: marked {marked} excess {excess}"
        );
        assert!(
            marked <= excess + 1500,
            "seed {seed}: marked {marked} excess {excess}"
        );
    }
}

#[test]
fn et_s_marks_once_per_s_plus_packet_of_excess() {
    for s in [1064u64, 2064, 4064] {
        let c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_mbps(SR_40M), 50_000, s);
        let p = EtMarkerProfile::new(&c).unwrap();
        let mut m = EtMarker::new(&p, ns(0));
        let (arrived, marked, marks, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
        let l = u128::from(G711);
        // Token conservation, exactly: in = size + SR T + marks s, out = unmarked.
        let scale = u128::from(p.units_per_byte());
        let hz8 = 8_000_000_000u128;
        let lhs = u128::from(arrived - marked) * scale * hz8 + u128::from(m.fill_units()) * hz8;
        let rhs = (50_000 + u128::from(marks) * u128::from(s)) * scale * hz8
            + 40_000_000 * u128::from(t) * scale;
        assert_eq!(lhs, rhs, "s = {s}");
        // Hence marks (s + size) = excess - size_TB + final fill, final fill < s + size.
        let excess = u128::from(arrived) - 5_000_000 * u128::from(t) / 1_000_000_000;
        let got = u128::from(marks) * (u128::from(s) + l);
        assert!(got + 50_000 + 1 >= excess, "s = {s}: {got} vs {excess}");
        assert!(
            got + 50_000 < excess + u128::from(s) + l + 1,
            "s = {s}: {got} vs {excess}"
        );
    }
}

#[test]
fn et_size_independent_proportional_reduction_is_exact() {
    // s * size / MTU with s = 1064, MTU = 1500: 141.866.. bytes per 200-byte mark.
    let c =
        EtMarkerConfig::draft_3sm01_size_independent(Rate::from_mbps(SR_40M), 50_000, 1064, 1500);
    let p = EtMarkerProfile::new(&c).unwrap();
    let mut m = EtMarker::new(&p, ns(0));
    let (arrived, marked, marks, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
    assert!(marks > if cfg!(miri) { 100 } else { 1000 });
    // Conservation in bytes x 1500: out x 1500 = (size + SR T) x 1500 + marks x s x 200 - fill.
    let scale = u128::from(p.units_per_byte());
    let hz8 = 8_000_000_000u128;
    let lhs =
        u128::from(arrived - marked) * 1500 * scale * hz8 + u128::from(m.fill_units()) * 1500 * hz8;
    let rhs = (50_000 * 1500 + u128::from(marks) * 1064 * 200) * scale * hz8
        + 40_000_000 * u128::from(t) * 1500 * scale;
    assert_eq!(lhs, rhs);
    // A packet is marked iff fill < MTU: small and large packets alike.
    let mut m = EtMarker::new(&p, ns(0));
    let mut small = 0;
    let mut large = 0;
    let mut r = SplitMix64::new(77);
    let (mut n_small, mut n_large) = (0u64, 0u64);
    let n = if cfg!(miri) { 2_000 } else { 200_000u64 };
    for i in 0..n {
        let len = if r.below(2) == 0 { 100 } else { 1400 };
        if len == 100 {
            n_small += 1;
        } else {
            n_large += 1;
        }
        if m.mark(&p, ns(i * 75_000), len, PcnMark::Nm) == PcnMark::Etm {
            if len == 100 {
                small += 1;
            } else {
                large += 1;
            }
        }
    }
    // The same fraction of each size class is marked, within 10 % (tail marking
    // marks the 1400-byte packets far more often: checked below).
    let min = if cfg!(miri) { 100 } else { 1000 };
    assert!(small > min && large > min, "{small} {large}");
    let (fs, fl) = (small * n_large, large * n_small);
    assert!(
        fs * 100 > fl * 90 && fl * 100 > fs * 90,
        "{small}/{n_small} vs {large}/{n_large}"
    );
    let pt = EtMarkerProfile::new(&EtMarkerConfig::draft_3sm01(
        Rate::from_mbps(SR_40M),
        50_000,
        1064,
    ))
    .unwrap();
    let mut m = EtMarker::new(&pt, ns(0));
    let mut r = SplitMix64::new(77);
    let (mut ts, mut tl) = (0u64, 0u64);
    for i in 0..n {
        let len = if r.below(2) == 0 { 100 } else { 1400 };
        if m.mark(&pt, ns(i * 75_000), len, PcnMark::Nm) == PcnMark::Etm {
            if len == 100 {
                ts += 1;
            } else {
                tl += 1;
            }
        }
    }
    assert!(
        tl * n_small > 2 * ts * n_large,
        "tail marking: {ts} small, {tl} large"
    );
}

#[test]
fn et_already_et_option() {
    let mk = |adds| {
        let mut c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_mbps(1), 10_000, 1000);
        c.already_et_adds_s = adds;
        EtMarkerProfile::new(&c).unwrap()
    };
    for adds in [false, true] {
        let p = mk(adds);
        let mut m = EtMarker::new(&p, ns(0));
        // Drain the bucket at one instant.
        for _ in 0..50 {
            m.mark(&p, ns(0), 200, PcnMark::Nm);
        }
        let before = m.fill_units();
        assert_eq!(m.mark(&p, ns(0), 200, PcnMark::Etm), PcnMark::Etm);
        let gain = m.fill_units() - before;
        assert_eq!(gain, if adds { 1000 * p.units_per_byte() } else { 0 });
    }
}

#[test]
fn sim48_marks_once_per_px_of_excess() {
    for px in [2064u64, 4064, 8064] {
        let c = EtMarkerSim48Config {
            pcn_pt: Rate::from_mbps(SR_40M),
            pcn_tb: 50_000,
            pcn_px: px,
            tick: TickRate::NANOS,
        };
        let p = EtMarkerSim48Profile::new(&c).unwrap();
        let mut m = EtMarkerSim48::new(&p, ns(0));
        let (arrived, _, marks, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
        // tokens = tb + SR T - arrived + marks px (every packet is taken).
        let scale = i128::from(p.units_per_byte() as i64);
        let hz8 = 8_000_000_000i128;
        assert_eq!(
            m.tokens_units() * hz8,
            (50_000 - arrived as i128 + marks as i128 * px as i128) * scale * hz8
                + 40_000_000 * t as i128 * scale
        );
        assert!(m.tokens_units() > -(i128::from(G711) * i128::from(p.units_per_byte())));
    }
}

// ---------------------------------------------------------------------------
// Facts: the AS-marker
// ---------------------------------------------------------------------------

#[test]
fn as_marks_every_packet_above_ar_and_none_well_below() {
    // draft-babiarz-pcn-explicit-marking-01 section 3.2: TB.size 20 KB, threshold 10 KB; AR 1 Mbps; 200 B packets.
    for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
        let c = AsMarkerConfig {
            ar: Rate::from_mbps(1),
            bucket_size: 20_000,
            threshold: 10_000,
            form,
            tick: TickRate::NANOS,
        };
        let p = AsMarkerProfile::new(&c).unwrap();
        // 1.1 x AR: 137,500 B/s, 200 B every 1,454,545 ns.
        let mut m = AsMarker::new(&p, ns(0));
        let mut unmarked_late = 0;
        // 2.3 s under Miri: past the 0.8 s the bucket needs to settle.
        let n = if cfg!(miri) { 1_600 } else { 20_000u64 };
        for i in 0..n {
            let out = m.mark(&p, ns(i * 1_454_545), G711, PcnMark::Nm);
            // The bucket needs (20,000 - 10,000) / 12,500 B/s = 0.8 s to settle.
            if i * 1_454_545 > 2_000_000_000 && out != PcnMark::Thm {
                unmarked_late += 1;
            }
        }
        assert_eq!(unmarked_late, 0, "{form:?}");
        // 0.8 x AR: never marked (40 s natively, 0.8 s under Miri).
        let mut m = AsMarker::new(&p, ns(0));
        let below = if cfg!(miri) { 400 } else { n };
        for i in 0..below {
            assert_eq!(
                m.mark(&p, ns(i * 2_000_000), G711, PcnMark::Nm),
                PcnMark::Nm,
                "{form:?}"
            );
        }
    }
}

#[test]
fn as_meters_only_non_et_packets() {
    let p = AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
        Rate::from_mbps(1),
        20_000,
        10_000,
    ))
    .unwrap();
    let mut m = AsMarker::new(&p, ns(0));
    let n = if cfg!(miri) { 100 } else { 1000 };
    for _ in 0..n {
        assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::Etm), PcnMark::Etm);
        assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::NotPcn), PcnMark::NotPcn);
    }
    assert_eq!(m.fill_units(), p.capacity_units());
    // draft-babiarz-pcn-explicit-marking-01's form: a packet larger than the fill is marked and takes nothing;
    // draft form: the fill test comes first and the bucket empties.
    let mut a = AsMarker::new(&p, ns(0));
    assert_eq!(a.mark(&p, ns(0), 15_000, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(a.fill_units(), 5_000 * p.units_per_byte());
    assert_eq!(a.mark(&p, ns(0), 6_000, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(a.fill_units(), 5_000 * p.units_per_byte());
    let pd = AsMarkerProfile::new(&AsMarkerConfig::draft_3sm01(
        Rate::from_mbps(1),
        20_000,
        10_000,
    ))
    .unwrap();
    let mut d = AsMarker::new(&pd, ns(0));
    assert_eq!(d.mark(&pd, ns(0), 15_000, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(d.mark(&pd, ns(0), 6_000, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(d.fill_units(), 0);
}

// ---------------------------------------------------------------------------
// RFC 5670 details and the node marker
// ---------------------------------------------------------------------------

#[test]
fn rfc5670_tie_rules() {
    let mk = |mode| {
        ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: Rate::from_bits_per_sec(1),
            bs_etm: 1000,
            mode,
            tick: TickRate::NANOS,
        })
        .unwrap()
    };
    // A packet of exactly F_etm bytes: s2.4 marks it, B.6 does not; both empty the bucket.
    for (tie, marked) in [
        (ClassicTie::Section2_4, true),
        (ClassicTie::AppendixB6, false),
    ] {
        let p = mk(ExcessMode::Classic(tie));
        let mut m = ExcessTrafficMeter::new(&p, ns(0));
        assert_eq!(m.mark(&p, ns(0), 1000, PcnMark::Nm) == PcnMark::Etm, marked);
        assert_eq!(m.fill_units(), 0);
        assert_eq!(m.mark(&p, ns(0), 1, PcnMark::Nm), PcnMark::Etm);
    }
    // Size independent: the packet that takes the bucket below zero passes,
    // the next one is marked whatever its size, and marked ones take nothing.
    let p = mk(ExcessMode::SizeIndependent);
    let mut m = ExcessTrafficMeter::new(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), 999, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::Thm), PcnMark::Thm);
    let low = m.fill_units();
    assert!(low < 0);
    assert_eq!(m.mark(&p, ns(0), 1, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(m.mark(&p, ns(0), 9000, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(m.fill_units(), low);
    // Already-ETM packets are not metered.
    let mut m = ExcessTrafficMeter::new(&p, ns(0));
    m.mark(&p, ns(0), 5000, PcnMark::Etm);
    assert_eq!(m.fill_units(), p.capacity_units() as i128);
}

#[test]
fn threshold_meter_meters_etm_but_does_not_thm_it() {
    let p = ThresholdMeterProfile::new(&ThresholdMeterConfig {
        threshold_rate: Rate::from_bits_per_sec(1),
        bs_tm: 3000,
        threshold: 1000,
        tick: TickRate::NANOS,
    })
    .unwrap();
    let mut m = ThresholdMeter::new(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::Etm), PcnMark::Etm);
    assert_eq!(m.fill_units(), 1500 * p.units_per_byte());
    assert_eq!(m.mark(&p, ns(0), 400, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(m.mark(&p, ns(0), 200, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(m.mark(&p, ns(0), 200, PcnMark::Etm), PcnMark::Etm);
    assert_eq!(m.mark(&p, ns(0), 5000, PcnMark::Thm), PcnMark::Thm);
    assert_eq!(m.fill_units(), 0);
}

fn rfc_node(mode: ExcessMode) -> NodeProfile<ExcessTrafficMeterProfile, ThresholdMeterProfile> {
    NodeProfile {
        excess: ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: Rate::from_mbps(10),
            bs_etm: 20_000,
            mode,
            tick: TickRate::NANOS,
        })
        .unwrap(),
        threshold: ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: Rate::from_mbps(8),
            bs_tm: 20_000,
            threshold: 10_000,
            tick: TickRate::NANOS,
        })
        .unwrap(),
    }
}

#[test]
fn node_marker_equals_its_stages_in_order() {
    let p = rfc_node(ExcessMode::SizeIndependent);
    let mut node = NodeRfc5670::start(&p, ns(0));
    let mut e = ExcessTrafficMeter::new(&p.excess, ns(0));
    let mut th = ThresholdMeter::new(&p.threshold, ns(0));
    let mut rf_e = RefExcessTrafficMeter::new(
        ExcessTrafficMeterConfig {
            excess_rate: Rate::from_mbps(10),
            bs_etm: 20_000,
            mode: ExcessMode::SizeIndependent,
            tick: TickRate::NANOS,
        },
        ns(0),
    );
    let mut rf_t = RefThresholdMeter::new(
        ThresholdMeterConfig {
            threshold_rate: Rate::from_mbps(8),
            bs_tm: 20_000,
            threshold: 10_000,
            tick: TickRate::NANOS,
        },
        ns(0),
    );
    let mut r = SplitMix64::new(9);
    let (mut t, mut seen) = (0u64, [0usize; 3]);
    let (n, min_seen) = if cfg!(miri) {
        (400, 10)
    } else {
        (200_000, 1000)
    };
    for _ in 0..n {
        let len = pick_len(&mut r);
        t += u64::from(r.below(2 * len + 1)) * 800; // about 10 Mbps on average
        let mark = pick_mark(&mut r);
        let out = meter_step(&p, &mut node, ns(t), len, mark).unwrap();
        let by_hand = th.mark(
            &p.threshold,
            ns(t),
            len,
            e.mark(&p.excess, ns(t), len, mark),
        );
        let by_ref = rf_t.mark(ns(t), len, rf_e.mark(ns(t), len, mark));
        assert_eq!(out, by_hand);
        assert_eq!(out, by_ref);
        if out != mark {
            seen[out.severity() as usize] += 1;
        }
    }
    // Both stages marked packets in this stream.
    assert!(seen[1] > min_seen && seen[2] > min_seen, "{seen:?}");
}

#[test]
fn node_3sm_et_first_then_as() {
    let p = NodeProfile {
        excess: EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(
            Rate::from_mbps(1),
            1000,
            500,
        ))
        .unwrap(),
        threshold: AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
            Rate::from_mbps(1),
            20_000,
            10_000,
        ))
        .unwrap(),
    };
    let mut n = Node3sm::start(&p, ns(0));
    // 1200 B > ET fill 1000: ET-marked here, so the AS-marker does not take it.
    assert_eq!(n.mark(&p, ns(0), 1200, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(n.threshold.fill_units(), p.threshold.capacity_units());
    // 800 B passes the ET-marker and is metered by the AS-marker.
    assert_eq!(n.mark(&p, ns(0), 800, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(
        n.threshold.fill_units(),
        19_200 * p.threshold.units_per_byte()
    );
    // The convenience wrapper gives the same results.
    let mut w = Metered::<Node3sm>::new(p, ns(0));
    assert_eq!(w.mark(ns(0), 1200, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(w.mark(ns(0), 800, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(w.state, n);
}

/// A meter that only forwards to an [`AsMarker`]: it keeps the default
/// [`PcnMeter::mark_elapsed`], as a meter from outside this crate would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plain(AsMarker);

impl PcnMeter for Plain {
    type Profile = AsMarkerProfile;
    fn start(p: &AsMarkerProfile, now: Instant) -> Self {
        Plain(AsMarker::new(p, now))
    }
    fn mark(&mut self, p: &AsMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        self.0.mark(p, now, len, mark)
    }
    fn level(&self) -> i128 {
        self.0.level()
    }
    fn level_bounds(p: &AsMarkerProfile) -> (i128, i128) {
        AsMarker::level_bounds(p)
    }
    fn last_update(&self) -> Instant {
        PcnMeter::last_update(&self.0)
    }
}

/// The node marker works the elapsed time out once when its stages were last
/// updated together, and for each stage when they were not (states set
/// apart): both give what the stages give one after the other, and so does a
/// stage that keeps the default `mark_elapsed`.
#[test]
fn node_marker_shares_the_elapsed_time_only_when_it_may() {
    let et = EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(
        Rate::from_mbps(8),
        20_000,
        1064,
    ))
    .unwrap();
    let at = AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
        Rate::from_mbps(6),
        20_000,
        10_000,
    ))
    .unwrap();
    let p = NodeProfile {
        excess: et,
        threshold: at,
    };
    let mut r = SplitMix64::new(11);
    // Miri interprets every instruction: a few short rounds there, still
    // alternating between stages together and apart.
    let (rounds, packets) = if cfg!(miri) { (4, 40) } else { (200u64, 500) };
    for round in 0..rounds {
        let t0 = (1 << 40) + u64::from(r.next_u32());
        // Every other round the stages start apart (by up to a second, either way).
        let t1 = if round % 2 == 0 {
            t0
        } else {
            t0.wrapping_add(u64::from(r.next_u32()))
                .wrapping_sub(1 << 31)
        };
        let mut node = Node3sm {
            excess: EtMarker::new(&et, ns(t0)),
            threshold: AsMarker::new(&at, ns(t1)),
        };
        let mut plain = NodeMarker {
            excess: EtMarker::new(&et, ns(t0)),
            threshold: Plain(AsMarker::new(&at, ns(t1))),
        };
        let (mut e, mut a) = (node.excess, node.threshold);
        let mut t = t0.max(t1);
        for _ in 0..packets {
            let len = pick_len(&mut r);
            let (step, back) = pick_step(&mut r, Rate::from_mbps(7), TickRate::NANOS, len);
            t = if back {
                t.saturating_sub(step)
            } else {
                t + step
            };
            let mark = pick_mark(&mut r);
            let out = node.mark(&p, ns(t), len, mark);
            let by_hand = a.mark(&at, ns(t), len, e.mark(&et, ns(t), len, mark));
            assert_eq!(out, by_hand);
            assert_eq!((node.excess, node.threshold), (e, a));
            assert_eq!(plain.mark(&p, ns(t), len, mark), out);
            assert_eq!((plain.excess, plain.threshold.0), (e, a));
        }
    }
}

#[test]
fn per_link_state_is_small() {
    assert!(core::mem::size_of::<EtMarker>() <= 16);
    // The two signed levels are 128-bit (exact for every u32 length).
    assert_eq!(core::mem::size_of::<EtMarkerSim48>(), 24);
    assert!(core::mem::size_of::<AsMarker>() <= 16);
    assert!(core::mem::size_of::<ThresholdMeter>() <= 16);
    assert_eq!(core::mem::size_of::<ExcessTrafficMeter>(), 24);
    assert!(core::mem::size_of::<Node3sm>() <= 32);
    assert!(core::mem::size_of::<NodeRfc5670>() <= 40);
    assert!(core::mem::size_of::<StopBlockingTimer>() <= 32);
}

#[test]
fn config_errors() {
    let r = Rate::from_mbps(1);
    let mut c = EtMarkerConfig::draft_3sm01_size_independent(r, 1000, 100, 0);
    assert_eq!(EtMarkerProfile::new(&c), Err(EtMarkerError::ZeroMtu));
    c.marking = EtMarking::SizeIndependent { mtu: 1001 };
    assert_eq!(EtMarkerProfile::new(&c), Err(EtMarkerError::MtuAboveBucket));
    let mut big = EtMarkerConfig::draft_explicit_marking_01(Rate::from_bits_per_sec(1), 1 << 40, 1);
    big.tick = TickRate::from_hz(1 << 30).unwrap();
    assert_eq!(EtMarkerProfile::new(&big), Err(EtMarkerError::TooLarge));
    assert_eq!(
        AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(r, 100, 101)),
        Err(AsMarkerError::ThresholdAboveSize)
    );
    assert_eq!(
        ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: r,
            bs_tm: 100,
            threshold: 101,
            tick: TickRate::NANOS
        }),
        Err(Rfc5670Error::ThresholdAboveSize)
    );
    assert!(EtMarkerError::MtuAboveBucket.to_string().contains("A.1.5"));
    assert!(Rfc5670Error::ThresholdAboveSize
        .to_string()
        .contains("RFC 5670"));
}

// ---------------------------------------------------------------------------
// Property tests of the invariants
// ---------------------------------------------------------------------------

fn any_mark() -> impl Strategy<Value = PcnMark> {
    prop::sample::select(MARKS.to_vec())
}

fn any_tick() -> impl Strategy<Value = TickRate> {
    prop_oneof![
        Just(TickRate::NANOS),
        Just(TickRate::MILLIS),
        (1u64..10_000_000_000).prop_map(|h| TickRate::from_hz(h).unwrap()),
    ]
}

/// Up to 200 packets per case; up to 16 under Miri, which interprets every
/// instruction (generating a case costs there as much as running it).
fn steps() -> impl Strategy<Value = Vec<(u64, u32, PcnMark)>> {
    let max_len = if cfg!(miri) { 16 } else { 200 };
    prop::collection::vec(
        (
            prop_oneof![any::<u64>(), 0u64..100_000, Just(u64::MAX), Just(0)],
            prop_oneof![any::<u32>(), 0u32..2000, Just(u32::MAX)],
            any_mark(),
        ),
        1..max_len,
    )
}

fn run_steps<M: PcnMeter>(
    p: &M::Profile,
    start: u64,
    steps: &[(u64, u32, PcnMark)],
) -> Result<(), TestCaseError> {
    let mut m = M::start(p, ns(start));
    for &(t, len, mark) in steps {
        let r = meter_step(p, &mut m, ns(t), len, mark);
        prop_assert!(r.is_ok(), "{:?}", r);
        let r = not_pcn_is_not_metered(p, &m, ns(t), len);
        prop_assert!(r.is_ok(), "{:?}", r);
    }
    Ok(())
}

proptest! {
    #[test]
    fn et_marker_invariants(rate in any::<u64>(), size in 0u64..1_000_000, s in any::<u64>(),
                            mtu in 1u32..10_000, psi in any::<bool>(), adds in any::<bool>(),
                            tick in any_tick(), start in any::<u64>(), st in steps()) {
        let c = EtMarkerConfig {
            sr: Rate::from_bits_per_sec(rate),
            bucket_size: size.max(u64::from(mtu)),
            s,
            already_et_adds_s: adds,
            marking: if psi { EtMarking::SizeIndependent { mtu } } else { EtMarking::TailMarking },
            tick,
        };
        if let Ok(p) = EtMarkerProfile::new(&c) {
            run_steps::<EtMarker>(&p, start, &st)?;
        }
    }

    #[test]
    fn sim48_invariants(rate in any::<u64>(), tb in 0u64..1_000_000, px in any::<u64>(),
                        tick in any_tick(), start in any::<u64>(), st in steps()) {
        let c = EtMarkerSim48Config { pcn_pt: Rate::from_bits_per_sec(rate), pcn_tb: tb, pcn_px: px, tick };
        if let Ok(p) = EtMarkerSim48Profile::new(&c) {
            run_steps::<EtMarkerSim48>(&p, start, &st)?;
        }
    }

    #[test]
    fn as_and_threshold_invariants(rate in any::<u64>(), size in 0u64..1_000_000, thr in any::<u64>(),
                                   draft in any::<bool>(), tick in any_tick(), start in any::<u64>(),
                                   st in steps()) {
        let thr = thr % (size + 1);
        let c = AsMarkerConfig {
            ar: Rate::from_bits_per_sec(rate),
            bucket_size: size,
            threshold: thr,
            form: if draft { AsForm::Draft3sm01 } else { AsForm::DraftExplicitMarking01 },
            tick,
        };
        if let Ok(p) = AsMarkerProfile::new(&c) {
            run_steps::<AsMarker>(&p, start, &st)?;
        }
        let c = ThresholdMeterConfig { threshold_rate: Rate::from_bits_per_sec(rate), bs_tm: size, threshold: thr, tick };
        if let Ok(p) = ThresholdMeterProfile::new(&c) {
            run_steps::<ThresholdMeter>(&p, start, &st)?;
        }
    }

    /// The node marker, whether it shares the elapsed time (stages last
    /// updated together) or not, equals its stages run one after the other,
    /// for any clocks, times, lengths and markings.
    #[test]
    fn node_marker_equals_its_stages(rate in any::<u64>(), size in 0u64..1_000_000,
                                     tick in any_tick(), start in any::<u64>(),
                                     apart in prop_oneof![Just(0u64), any::<u64>()],
                                     st in steps()) {
        let (r, r2) = (Rate::from_bits_per_sec(rate), Rate::from_bits_per_sec(rate / 2));
        let et = EtMarkerProfile::new(&EtMarkerConfig { tick, ..EtMarkerConfig::draft_explicit_marking_01(r, size, 1064) });
        let at = AsMarkerProfile::new(&AsMarkerConfig { tick, ..AsMarkerConfig::draft_explicit_marking_01(r2, size, size / 2) });
        let ex = ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: r, bs_etm: size, mode: ExcessMode::SizeIndependent, tick });
        let th = ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: r2, bs_tm: size, threshold: size / 2, tick });
        let (t0, t1) = (ns(start), ns(start.wrapping_add(apart)));
        if let (Ok(et), Ok(at)) = (et, at) {
            let p = NodeProfile { excess: et, threshold: at };
            let mut node = Node3sm { excess: EtMarker::new(&et, t0), threshold: AsMarker::new(&at, t1) };
            let (mut e, mut a) = (node.excess, node.threshold);
            for &(t, len, mark) in &st {
                let out = node.mark(&p, ns(t), len, mark);
                prop_assert_eq!(out, a.mark(&at, ns(t), len, e.mark(&et, ns(t), len, mark)));
                prop_assert_eq!((node.excess, node.threshold), (e, a));
            }
        }
        if let (Ok(ex), Ok(th)) = (ex, th) {
            let p = NodeProfile { excess: ex, threshold: th };
            let mut node = NodeRfc5670 {
                excess: ExcessTrafficMeter::new(&ex, t0),
                threshold: ThresholdMeter::new(&th, t1),
            };
            let (mut e, mut a) = (node.excess, node.threshold);
            for &(t, len, mark) in &st {
                let out = node.mark(&p, ns(t), len, mark);
                prop_assert_eq!(out, a.mark(&th, ns(t), len, e.mark(&ex, ns(t), len, mark)));
                prop_assert_eq!((node.excess, node.threshold), (e, a));
            }
        }
    }

    #[test]
    fn excess_and_node_invariants(rate in any::<u64>(), size in 0u64..1_000_000, mode in 0u8..3,
                                  tick in any_tick(), start in any::<u64>(), st in steps()) {
        let mode = match mode {
            0 => ExcessMode::SizeIndependent,
            1 => ExcessMode::Classic(ClassicTie::Section2_4),
            _ => ExcessMode::Classic(ClassicTie::AppendixB6),
        };
        let c = ExcessTrafficMeterConfig { excess_rate: Rate::from_bits_per_sec(rate), bs_etm: size, mode, tick };
        if let Ok(p) = ExcessTrafficMeterProfile::new(&c) {
            run_steps::<ExcessTrafficMeter>(&p, start, &st)?;
            let t = ThresholdMeterConfig { threshold_rate: Rate::from_bits_per_sec(rate / 2), bs_tm: size, threshold: size / 2, tick };
            if let Ok(tp) = ThresholdMeterProfile::new(&t) {
                run_steps::<NodeRfc5670>(&NodeProfile { excess: p, threshold: tp }, start, &st)?;
            }
        }
    }
}

/// Runs the fixed packets `(time, len, mark)` through a fast meter and a
/// reference model started at `start`, expecting equal markings and levels
/// after every packet; returns the fast meter's final level.
fn replay<M: PcnMeter, R: Model>(
    profile: &M::Profile,
    per_byte: u64,
    start: u64,
    packets: &[(u64, u32, PcnMark)],
    make: impl FnOnce(Instant) -> R,
) -> i128 {
    let mut m = M::start(profile, ns(start));
    let mut model = make(ns(start));
    assert!(model.same(m.level(), per_byte), "start level");
    for (i, &(t, len, mark)) in packets.iter().enumerate() {
        let fast = meter_step(profile, &mut m, ns(t), len, mark).expect("invariant");
        let slow = model.step(ns(t), len, mark);
        assert_eq!(fast, slow, "packet {i} at {t} len {len} {mark:?}: marking");
        assert!(
            model.same(m.level(), per_byte),
            "packet {i} at {t} len {len} {mark:?}: fast level {}",
            m.level()
        );
    }
    m.level()
}

/// Clocks and rates at the edges of what the profiles accept.
const EDGE_HZ: [u64; 6] = [
    1,
    3,
    1_000_000_000,
    1 << 61,
    18_384_871_255_879_778_303,
    u64::MAX,
];
const EDGE_RATES: [u64; 6] = [0, 1, 251, 9227, 1 << 40, u64::MAX];
const T_MAX: u64 = (1 << 63) - 1;

/// A packet stream at the edges: huge and zero lengths, every marking, long
/// gaps up to 2^63 ticks and a step back in time.
fn edge_packets() -> [(u64, u32, PcnMark); 12] {
    use PcnMark::*;
    [
        (0, u32::MAX, Nm),
        (0, u32::MAX, Nm),
        (1, 0, Thm),
        (1 << 20, 1500, Nm),
        (1 << 62, u32::MAX, Nm),
        (1 << 62, u32::MAX, Etm),
        ((1 << 62) + 1, 64, Nm),
        (5, 64, Nm),
        ((1 << 62) + 3, u32::MAX, Thm),
        (T_MAX - 1, 1, NotPcn),
        (T_MAX, u32::MAX, Nm),
        (T_MAX, 9000, Nm),
    ]
}

/// Bucket sizes to try with a profile of `per_byte` units per byte: small ones
/// and the largest that stays below 2^62 units.
fn edge_sizes(per_byte: u64) -> [u64; 4] {
    [0, 1, 1500, ((1u64 << 62) - 1) / per_byte.max(1)]
}

/// Regression (fuzz, `reference.rs` line 183 of the unreduced models): the
/// AS-marker with AR 0, TB.size 2,596,939,812,627,471,323 B and a
/// 18,384,871,255,879,778,303 Hz clock was accepted (a zero rate made one byte
/// one unit), and `TB.size * 8 hz` overflowed the reference's `i128`. A zero
/// AR is now refused (RFC 5670 section 2.3 by analogy: no token is ever
/// added), and so is any rate on that clock with that bucket.
#[test]
fn reference_as_marker_zero_rate_huge_clock() {
    for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
        let mut c = AsMarkerConfig {
            ar: Rate::from_bits_per_sec(0),
            bucket_size: 2_596_939_812_627_471_323,
            threshold: 2_000_000_000_000_000_000,
            form,
            tick: TickRate::from_hz(18_384_871_255_879_778_303).unwrap(),
        };
        assert_eq!(AsMarkerProfile::new(&c), Err(AsMarkerError::ZeroRate));
        c.ar = Rate::from_bits_per_sec(1);
        assert_eq!(AsMarkerProfile::new(&c), Err(AsMarkerError::TooLarge));
    }
}

/// Regression (fuzz, `reference.rs` lines 31, 71, 132, 183, 250 and 301 of the
/// unreduced models): every model stays total and equal to its fast meter on
/// configurations at the edges of what the profiles accept (clocks up to
/// `u64::MAX` Hz, zero and `u64::MAX` rates, the largest buckets, `u32::MAX`-byte
/// packets, 2^63-tick gaps).
#[test]
#[cfg_attr(
    miri,
    ignore = "10,000 edge configurations: overflow at the limits of the arithmetic, \
              which the overflow checks catch natively; Miri takes minutes"
)]
fn references_total_on_edge_configurations() {
    let mut built = [0usize; 5];
    for hz in EDGE_HZ {
        let tick = TickRate::from_hz(hz).unwrap();
        for bits in EDGE_RATES {
            let rate = Rate::from_bits_per_sec(bits);
            let Ok(p0) = ThresholdMeterProfile::new(&ThresholdMeterConfig {
                threshold_rate: rate,
                bs_tm: 1,
                threshold: 0,
                tick,
            }) else {
                continue;
            };
            for size in edge_sizes(p0.units_per_byte()) {
                let c = ThresholdMeterConfig {
                    threshold_rate: rate,
                    bs_tm: size,
                    threshold: size / 2,
                    tick,
                };
                if let Ok(p) = ThresholdMeterProfile::new(&c) {
                    built[0] += 1;
                    replay::<ThresholdMeter, _>(&p, p.units_per_byte(), 0, &edge_packets(), |t| {
                        RefThresholdMeter::new(c, t)
                    });
                }
                for mode in [
                    ExcessMode::SizeIndependent,
                    ExcessMode::Classic(ClassicTie::Section2_4),
                    ExcessMode::Classic(ClassicTie::AppendixB6),
                ] {
                    let c = ExcessTrafficMeterConfig {
                        excess_rate: rate,
                        bs_etm: size,
                        mode,
                        tick,
                    };
                    if let Ok(p) = ExcessTrafficMeterProfile::new(&c) {
                        built[1] += 1;
                        replay::<ExcessTrafficMeter, _>(
                            &p,
                            p.units_per_byte(),
                            0,
                            &edge_packets(),
                            |t| RefExcessTrafficMeter::new(c, t),
                        );
                    }
                }
                for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
                    let c = AsMarkerConfig {
                        ar: rate,
                        bucket_size: size,
                        threshold: size / 3,
                        form,
                        tick,
                    };
                    if let Ok(p) = AsMarkerProfile::new(&c) {
                        built[2] += 1;
                        replay::<AsMarker, _>(&p, p.units_per_byte(), 0, &edge_packets(), |t| {
                            RefAsMarker::new(c, t)
                        });
                    }
                }
                for px in [0, 1, size] {
                    let c = EtMarkerSim48Config {
                        pcn_pt: rate,
                        pcn_tb: size,
                        pcn_px: px,
                        tick,
                    };
                    if let Ok(p) = EtMarkerSim48Profile::new(&c) {
                        built[3] += 1;
                        replay::<EtMarkerSim48, _>(
                            &p,
                            p.units_per_byte(),
                            0,
                            &edge_packets(),
                            |t| RefEtMarkerSim48::new(c, t),
                        );
                    }
                }
                for marking in [
                    EtMarking::TailMarking,
                    EtMarking::SizeIndependent { mtu: 1 },
                    EtMarking::SizeIndependent { mtu: 1500 },
                    EtMarking::SizeIndependent { mtu: u32::MAX },
                ] {
                    for s in [0, 1, 3000, u64::MAX] {
                        for already_et_adds_s in [false, true] {
                            let c = EtMarkerConfig {
                                sr: rate,
                                bucket_size: size,
                                s,
                                already_et_adds_s,
                                marking,
                                tick,
                            };
                            // With k > 1 the largest size is smaller: try it too.
                            let mut cs = [c, c];
                            if let Ok(p) = EtMarkerProfile::new(&EtMarkerConfig {
                                bucket_size: 1,
                                ..c
                            }) {
                                cs[1].bucket_size = ((1u64 << 62) - 1) / p.units_per_byte();
                            }
                            for c in cs {
                                if let Ok(p) = EtMarkerProfile::new(&c) {
                                    built[4] += 1;
                                    replay::<EtMarker, _>(
                                        &p,
                                        p.units_per_byte(),
                                        0,
                                        &edge_packets(),
                                        |t| RefEtMarker::new(c, t),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        built.iter().all(|&n| n > 20),
        "too few configurations built: {built:?}"
    );
}

/// Regression (fuzz, finding 3): excess rate 251 bit/s, BS_etm 0, ns clock,
/// one NM packet of `u32::MAX` bytes 2^62 ticks after the start. Its debt
/// (about 3.4e19 units) passes 2^62 units: the level goes to exactly minus
/// the packet's cost (it used to be held at -2^62), as in the reference,
/// which follows appendix A.2 with no limit.
#[test]
fn excess_meter_debt_is_exact() {
    let c = ExcessTrafficMeterConfig {
        excess_rate: Rate::from_bits_per_sec(251),
        bs_etm: 1,
        mode: ExcessMode::SizeIndependent,
        tick: TickRate::NANOS,
    };
    let p = ExcessTrafficMeterProfile::new(&c).unwrap();
    let per_byte = p.units_per_byte();
    assert_eq!(per_byte, 8_000_000_000);
    let t = 1u64 << 62;
    let one = [(t, u32::MAX, PcnMark::Nm)];
    let level = replay::<ExcessTrafficMeter, _>(&p, per_byte, 0, &one, |t| {
        RefExcessTrafficMeter::new(c, t)
    });
    assert_eq!(level, -(i128::from(u32::MAX - 1) * i128::from(per_byte)));
    // Then: marked while negative, and the refill from the debt agrees too.
    let packets = [
        one[0],
        (t + 1, 1500, PcnMark::Nm),
        (t + 1_000_000_000, 64, PcnMark::Thm),
        (t + (1 << 61), 1500, PcnMark::Nm),
        (T_MAX, 1500, PcnMark::Nm),
        (T_MAX, 1500, PcnMark::Nm),
    ];
    replay::<ExcessTrafficMeter, _>(&p, per_byte, 0, &packets, |t| {
        RefExcessTrafficMeter::new(c, t)
    });
    // The same through the RFC 5670 node (finding 3 via `NodeRfc5670`).
    let tc = ThresholdMeterConfig {
        threshold_rate: Rate::from_bits_per_sec(251),
        bs_tm: 1,
        threshold: 0,
        tick: TickRate::NANOS,
    };
    let np = NodeProfile {
        excess: p,
        threshold: ThresholdMeterProfile::new(&tc).unwrap(),
    };
    let mut node = NodeRfc5670::start(&np, ns(0));
    let mut re = RefExcessTrafficMeter::new(c, ns(0));
    let mut rt = RefThresholdMeter::new(tc, ns(0));
    for &(t, len, mark) in &packets {
        let fast = node.mark(&np, ns(t), len, mark);
        let slow = rt.mark(ns(t), len, re.mark(ns(t), len, mark));
        assert_eq!(fast, slow, "node at {t}");
        assert!(re.fill_matches(node.excess.level(), per_byte));
        assert!(rt.fill_matches(node.threshold.level(), np.threshold.units_per_byte()));
    }
}

/// The ET-marker of draft-babiarz-pcn-explicit-marking-01 section 4.8 with packets of more than 2^62
/// units: fast and reference both charge them exactly (no floor).
#[test]
fn et_marker_sim48_debt_is_exact() {
    let c = EtMarkerSim48Config {
        pcn_pt: Rate::from_bits_per_sec(251),
        pcn_tb: 1,
        pcn_px: 0,
        tick: TickRate::NANOS,
    };
    let p = EtMarkerSim48Profile::new(&c).unwrap();
    let packets = [
        (1, u32::MAX, PcnMark::Nm),
        (2, u32::MAX, PcnMark::Nm),
        (1 << 62, 1500, PcnMark::Nm),
    ];
    let mut m = EtMarkerSim48::start(&p, ns(0));
    m.mark(&p, ns(1), u32::MAX, PcnMark::Nm);
    assert_eq!(
        m.level(),
        -(i128::from(u32::MAX - 1) * i128::from(p.units_per_byte()))
    );
    assert!(m.level() < -(1 << 62));
    replay::<EtMarkerSim48, _>(&p, p.units_per_byte(), 0, &packets, |t| {
        RefEtMarkerSim48::new(c, t)
    });
}

/// Runs one random stream through `fast` (a profile whose lengths fit, taking
/// the path that does not hold them) and through `held` (the same constants,
/// forced onto the path that holds every length at `len_over`), comparing the
/// marking and the whole state after every packet. Lengths cover zero, the
/// bucket size in bytes (`bucket`) and just beyond, and up to `u32::MAX`.
/// Returns the mismatches and the packets longer than the bucket.
fn fast_vs_held<M: PcnMeter + PartialEq + core::fmt::Debug>(
    seed: u64,
    packets: usize,
    fast: &M::Profile,
    held: &M::Profile,
    rate: Rate,
    tick: TickRate,
    bucket: u64,
) -> (usize, usize) {
    let mut r = SplitMix64::new(seed);
    let mut t = u64::from(r.next_u32());
    let (mut a, mut b) = (M::start(fast, ns(t)), M::start(held, ns(t)));
    let (mut bad, mut long) = (0, 0);
    for _ in 0..packets {
        let len = match r.below(8) {
            0 => u32::MAX - r.below(3),
            1 => u32::try_from(bucket + u64::from(r.below(3))).unwrap_or(u32::MAX),
            2 => r.next_u32(),
            _ => pick_len(&mut r),
        };
        long += usize::from(u64::from(len) > bucket);
        let (step, back) = pick_step(&mut r, rate, tick, len);
        t = if back {
            t.saturating_sub(step)
        } else {
            t + step
        };
        let mark = MARKS[r.below(4) as usize];
        let (x, y) = (
            a.mark(fast, ns(t), len, mark),
            b.mark(held, ns(t), len, mark),
        );
        bad += usize::from(x != y || a != b);
    }
    (bad, long)
}

/// The meters whose lengths fit skip holding them (`Units::held`); the same
/// profiles forced to hold every length give the same markings and states,
/// packets longer than the bucket (up to `u32::MAX` bytes) included.
#[test]
fn lengths_that_fit_are_not_held_with_the_same_results() {
    let mut cfgs = SplitMix64::new(9);
    let (configs, packets) = if cfg!(miri) { (4, 60) } else { (200, 2000) };
    let (mut bad, mut long, mut fit, mut unfit) = (0, 0, 0, 0);
    let mut tally = |(b, l): (usize, usize), f: bool| {
        bad += b;
        long += l;
        fit += usize::from(f);
    };
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000)) + 1;
        let threshold = u64::from(cfgs.below(60_000)).min(bucket);
        let mtu = 1 + cfgs.below(9000).min(bucket as u32 - 1);
        let s = u64::from(cfgs.below(12_000));
        for marking in [EtMarking::TailMarking, EtMarking::SizeIndependent { mtu }] {
            let c = EtMarkerConfig {
                sr: rate,
                bucket_size: bucket,
                s,
                already_et_adds_s: i % 2 == 0,
                marking,
                tick,
            };
            let Ok(p) = EtMarkerProfile::new(&c) else {
                continue;
            };
            let (h, f) = p.held_always();
            unfit += usize::from(!f);
            if f {
                tally(
                    fast_vs_held::<EtMarker>(i, packets, &p, &h, rate, tick, bucket),
                    f,
                );
            }
        }
        for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
            let c = AsMarkerConfig {
                ar: rate,
                bucket_size: bucket,
                threshold,
                form,
                tick,
            };
            let Ok(p) = AsMarkerProfile::new(&c) else {
                continue;
            };
            let (h, f) = p.held_always();
            unfit += usize::from(!f);
            if f {
                tally(
                    fast_vs_held::<AsMarker>(i, packets, &p, &h, rate, tick, bucket),
                    f,
                );
            }
        }
        let c = ThresholdMeterConfig {
            threshold_rate: rate,
            bs_tm: bucket,
            threshold,
            tick,
        };
        if let Ok(p) = ThresholdMeterProfile::new(&c) {
            let (h, f) = p.held_always();
            unfit += usize::from(!f);
            if f {
                tally(
                    fast_vs_held::<ThresholdMeter>(i, packets, &p, &h, rate, tick, bucket),
                    f,
                );
            }
        }
    }
    assert_eq!(bad, 0, "mismatches");
    assert!(
        fit > configs as usize,
        "only {fit} profiles whose lengths fit"
    );
    assert!(long > fit, "only {long} packets beyond the bucket");
    // The random clocks and rates give profiles on both paths (the
    // differential tests against the reference models run both).
    if !cfg!(miri) {
        assert!(unfit > 10, "only {unfit} profiles that hold lengths");
    }
}

/// draft-babiarz-pcn-explicit-marking-01's AS-marker with a held length whose cost plus the threshold
/// exceeds an empty fill by more than 2^63 (a 1-byte bucket of about 2^61.6
/// units): still marked, as the reference model says (the test of
/// `fill < size + threshold` once read the sign of a difference that wrapped).
#[test]
fn as_marker_explicit_marking_huge_units_marks_an_empty_bucket() {
    let c = AsMarkerConfig {
        ar: Rate::from_bits_per_sec(1),
        bucket_size: 1,
        threshold: 1,
        form: AsForm::DraftExplicitMarking01,
        tick: TickRate::from_hz(450_000_000_000_000_001).unwrap(),
    };
    let p = AsMarkerProfile::new(&c).unwrap();
    assert!(p.units_per_byte() > (1 << 63) / 3);
    let packets = [
        (0, 1, PcnMark::Nm),
        (0, 2, PcnMark::Nm),
        (0, u32::MAX, PcnMark::Nm),
        (1, 2, PcnMark::Thm),
    ];
    let mut m = AsMarker::start(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), 1, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(m.fill_units(), 0);
    assert_eq!(m.mark(&p, ns(0), 2, PcnMark::Nm), PcnMark::Thm);
    replay::<AsMarker, _>(&p, p.units_per_byte(), 0, &packets, |t| {
        RefAsMarker::new(c, t)
    });
}

/// RFC 5670 appendix A.2 on a ns clock with an odd bit rate (1,000,000,001
/// bit/s: 8e9 units per byte, so a packet above 576,460,752 bytes costs more
/// than 2^62 units): a 4,294,967,295-byte packet is charged all its bytes
/// (it used to be charged 576,460,752), so the meter stays negative, and
/// marks, until that many bytes' worth of time has passed.
#[test]
fn excess_meter_charges_jumbo_packets_in_full() {
    let c = ExcessTrafficMeterConfig {
        excess_rate: Rate::from_bits_per_sec(1_000_000_001),
        bs_etm: 1500,
        mode: ExcessMode::SizeIndependent,
        tick: TickRate::NANOS,
    };
    let p = ExcessTrafficMeterProfile::new(&c).unwrap();
    let per_byte = p.units_per_byte();
    assert_eq!(per_byte, 8_000_000_000);
    let mut m = ExcessTrafficMeter::new(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), u32::MAX, PcnMark::Nm), PcnMark::Nm);
    let debt = i128::from(u32::MAX) * i128::from(per_byte) - i128::from(p.capacity_units());
    assert_eq!(m.level(), -debt);
    // The debt is repaid at 1,000,000,001 units per ns: marked before, not after.
    let repaid = u64::try_from(debt / 1_000_000_001 + 1).unwrap();
    assert_eq!(m.mark(&p, ns(repaid - 1), 0, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(m.mark(&p, ns(repaid), 0, PcnMark::Nm), PcnMark::Nm);
    let packets = [
        (0, u32::MAX, PcnMark::Nm),
        (1, 1500, PcnMark::Nm),
        (repaid - 1, 1500, PcnMark::Thm),
        (repaid, 1500, PcnMark::Nm),
        (repaid, u32::MAX, PcnMark::Nm),
        (repaid + 1, u32::MAX, PcnMark::Nm),
    ];
    replay::<ExcessTrafficMeter, _>(&p, per_byte, 0, &packets, |t| {
        RefExcessTrafficMeter::new(c, t)
    });
}

/// draft-babiarz-pcn-explicit-marking-01 Fig. 9 at 12,499,999,999 B/s on a ns clock with packets of about
/// 1.2 GB: the exact count goes to about -5.2e9 bytes, below the -2^62 units
/// (-4.6e9 bytes) the count used to be held at; every mark now agrees with
/// the reference, which has no floor.
#[test]
#[cfg_attr(miri, ignore = "20,000 packets; Miri takes minutes")]
fn et_marker_sim48_has_no_floor_on_fig9_stream() {
    let c = EtMarkerSim48Config {
        pcn_pt: Rate::from_bytes_per_sec(12_499_999_999),
        pcn_tb: 60_000,
        pcn_px: 1_000_000,
        tick: TickRate::NANOS,
    };
    let p = EtMarkerSim48Profile::new(&c).unwrap();
    let mut m = EtMarkerSim48::start(&p, ns(0));
    let mut r = RefEtMarkerSim48::new(c, ns(0));
    let mut rng = netcond_core::SplitMix64::new(7);
    let mut t = 0u64;
    let mut lowest = i128::MAX;
    for i in 0..20_000 {
        t += 1 + rng.below(100_000_000) as u64;
        let len = 1_100_000_000 + rng.below(200_000_000);
        let (a, b) = (
            m.mark(&p, ns(t), len, PcnMark::Nm),
            r.mark(ns(t), len, PcnMark::Nm),
        );
        assert_eq!(a, b, "packet {i}");
        assert!(r.fill_matches(m.level(), p.units_per_byte()), "packet {i}");
        lowest = lowest.min(m.level());
    }
    let floor_bytes = -(1i128 << 62) / i128::from(p.units_per_byte());
    assert!(
        lowest / i128::from(p.units_per_byte()) < floor_bytes,
        "{lowest}"
    );
}

/// RFC 5670 sections 2.3 and 2.4 (and the 3sM markers by analogy): a zero
/// rate never adds a token and a zero bucket holds none; both are refused,
/// each with its own error.
#[test]
fn zero_rates_and_buckets_are_refused() {
    let r = Rate::from_mbps(1);
    let t = TickRate::NANOS;
    let tm = |rate, bs| {
        ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: rate,
            bs_tm: bs,
            threshold: 0,
            tick: t,
        })
        .err()
    };
    assert_eq!(tm(Rate::ZERO, 1500), Some(Rfc5670Error::ZeroRate));
    assert_eq!(tm(r, 0), Some(Rfc5670Error::ZeroBucket));
    assert_eq!(tm(r, 1), None);
    let em = |rate, bs| {
        ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: rate,
            bs_etm: bs,
            mode: ExcessMode::SizeIndependent,
            tick: t,
        })
        .err()
    };
    assert_eq!(em(Rate::ZERO, 1500), Some(Rfc5670Error::ZeroRate));
    assert_eq!(em(r, 0), Some(Rfc5670Error::ZeroBucket));
    assert_eq!(em(r, 1), None);
    let et = |rate, bs| {
        EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(rate, bs, 0)).err()
    };
    assert_eq!(et(Rate::ZERO, 1500), Some(EtMarkerError::ZeroRate));
    assert_eq!(et(r, 0), Some(EtMarkerError::ZeroBucket));
    assert_eq!(et(r, 1), None);
    let s48 = |rate, bs| {
        EtMarkerSim48Profile::new(&EtMarkerSim48Config {
            pcn_pt: rate,
            pcn_tb: bs,
            pcn_px: 1500,
            tick: t,
        })
        .err()
    };
    assert_eq!(s48(Rate::ZERO, 1500), Some(EtMarkerSim48Error::ZeroRate));
    assert_eq!(s48(r, 0), Some(EtMarkerSim48Error::ZeroBucket));
    assert_eq!(s48(r, 1), None);
    let asm = |rate, bs| {
        AsMarkerProfile::new(&AsMarkerConfig {
            ar: rate,
            bucket_size: bs,
            threshold: 0,
            form: AsForm::DraftExplicitMarking01,
            tick: t,
        })
        .err()
    };
    assert_eq!(asm(Rate::ZERO, 1500), Some(AsMarkerError::ZeroRate));
    assert_eq!(asm(r, 0), Some(AsMarkerError::ZeroBucket));
    assert_eq!(asm(r, 1), None);
}

/// A random egress stream for [`check_egress`]: packets of every marking from
/// six flows, polls, steps around T_meas (and now and then a step back or a
/// jump of many intervals).
fn egress_ops(r: &mut SplitMix64, n: usize, t_meas: u64) -> Vec<EgressOp> {
    (0..n)
        .map(|_| {
            let dt = match r.below(16) {
                0 => 0,
                1 => 0u64.wrapping_sub(u64::from(r.below(1000))),
                2 => t_meas * u64::from(r.below(5)),
                3 => t_meas,
                _ => r.next_u64() % (t_meas / 4 + 1),
            };
            if r.below(4) == 0 {
                EgressOp::Poll { dt }
            } else {
                EgressOp::Packet {
                    dt,
                    len: [0, 1, 64, 1500, u32::MAX][r.below(5) as usize],
                    mark: [PcnMark::NotPcn, PcnMark::Nm, PcnMark::Thm, PcnMark::Etm]
                        [r.below(4) as usize],
                    flow: r.below(6) as u16,
                }
            }
        })
        .collect()
}

/// The egress measurement, decision point and CLE admission against the
/// exact model of `invariants::check_egress`, on CL and SM, with and without
/// suppression, every admission and termination switch.
#[test]
fn egress_matches_its_model() {
    let mut r = SplitMix64::new(61);
    let runs = if cfg!(miri) { 4 } else { 300 };
    for i in 0..runs {
        let (ec, dc, cc) = egress_configs(&mut r, i);
        let ops = egress_ops(&mut r, 300, ec.t_meas_ns);
        check_egress(&ec, &dc, &cc, Instant::from_ticks(r.next_u64()), &ops)
            .unwrap_or_else(|e| panic!("run {i}: {e}: {ec:?} {dc:?} {cc:?}"));
    }
}

/// Configurations for [`egress_matches_its_model`] (nanosecond clock).
fn egress_configs(
    r: &mut SplitMix64,
    i: u32,
) -> (EgressMeterConfig, DecisionConfig, CleAdmissionConfig) {
    use fixed::types::{U16F16, U1F31};
    let behaviour = if i % 2 == 0 {
        EdgeBehaviour::ControlledLoad
    } else {
        EdgeBehaviour::SingleMarking {
            u: U16F16::from_bits(65_536 + 1 + r.below(65_536)),
        }
    };
    let frac = |r: &mut SplitMix64| U1F31::from_bits(r.below((1 << 31) + 1));
    let ec = EgressMeterConfig {
        behaviour,
        t_meas_ns: 1 + u64::from(r.below(1_000_000)),
        record_etm_flows: r.below(2) == 0,
        suppression: (r.below(2) == 0).then(|| Suppression {
            cle_reporting_threshold: frac(r),
            t_maxsuppress_ns: 1 + u64::from(r.below(5_000_000)),
        }),
        tick: TickRate::NANOS,
    };
    let dc = DecisionConfig {
        behaviour,
        cle_limit: frac(r),
        admission_enabled: r.below(4) != 0,
        termination_enabled: r.below(4) != 0,
    };
    let (a, b) = (frac(r), frac(r));
    let cc = CleAdmissionConfig {
        interval_ns: 1 + u64::from(r.below(1_000_000)),
        stop: a.max(b),
        resume: a.min(b),
        tick: TickRate::NANOS,
    };
    (ec, dc, cc)
}

// ---------------------------------------------------------------------------
// Mutation checks (see `crate::mutants` and docs/verification.md)
// ---------------------------------------------------------------------------

/// A stream that keeps a 1 MB/s bucket busy: 64- to 1500-byte packets 0 to
/// 2 ms apart (3 MB/s on average), every marking, now and then a step back.
fn mutant_packets(seed: u64) -> Vec<(u64, u32, PcnMark)> {
    let mut r = SplitMix64::new(seed);
    let mut t = 1_000u64;
    (0..2_000)
        .map(|_| {
            t = if r.below(50) == 0 {
                t.saturating_sub(5_000)
            } else {
                t + u64::from(r.below(1_000_000))
            };
            let len = 64 + r.below(1_437);
            let mark = [
                PcnMark::Nm,
                PcnMark::Nm,
                PcnMark::Thm,
                PcnMark::Etm,
                PcnMark::NotPcn,
            ][r.below(5) as usize];
            (t, len, mark)
        })
        .collect()
}

/// True when `meter_step` (the fuzz targets' per-packet invariants) fails or
/// the meter parts from its reference model (the fuzz targets' differential
/// check) on `packets`.
fn diverges<M: PcnMeter, R: Model>(
    p: &M::Profile,
    per_byte: u64,
    packets: &[(u64, u32, PcnMark)],
    make: impl FnOnce(Instant) -> R,
) -> bool {
    let mut m = M::start(p, ns(0));
    let mut r = make(ns(0));
    for &(t, len, mark) in packets {
        let Ok(fast) = meter_step(p, &mut m, ns(t), len, mark) else {
            return true;
        };
        if fast != r.step(ns(t), len, mark) || !r.same(m.level(), per_byte) {
            return true;
        }
    }
    false
}

/// Runs check `id`'s detector on a few streams: true when any run catches it.
fn caught(id: u32) -> bool {
    let rate = Rate::from_bytes_per_sec(1_000_000);
    let tick = TickRate::NANOS;
    (1..=4u64).any(|seed| {
        let pk = mutant_packets(seed);
        match id {
            1 => {
                let c = ThresholdMeterConfig {
                    threshold_rate: rate,
                    bs_tm: 3000,
                    threshold: 1500,
                    tick,
                };
                let p = ThresholdMeterProfile::new(&c).unwrap();
                diverges::<ThresholdMeter, _>(&p, p.units_per_byte(), &pk, |t| {
                    RefThresholdMeter::new(c, t)
                })
            }
            2 => {
                let c = ExcessTrafficMeterConfig {
                    excess_rate: rate,
                    bs_etm: 3000,
                    mode: ExcessMode::SizeIndependent,
                    tick,
                };
                let p = ExcessTrafficMeterProfile::new(&c).unwrap();
                diverges::<ExcessTrafficMeter, _>(&p, p.units_per_byte(), &pk, |t| {
                    RefExcessTrafficMeter::new(c, t)
                })
            }
            3 => {
                let c = EtMarkerConfig::draft_explicit_marking_01(rate, 3000, 500);
                let p = EtMarkerProfile::new(&c).unwrap();
                diverges::<EtMarker, _>(&p, p.units_per_byte(), &pk, |t| RefEtMarker::new(c, t))
            }
            4 => {
                let c = EtMarkerSim48Config {
                    pcn_pt: rate,
                    pcn_tb: 3000,
                    pcn_px: 1000,
                    tick,
                };
                let p = EtMarkerSim48Profile::new(&c).unwrap();
                diverges::<EtMarkerSim48, _>(&p, p.units_per_byte(), &pk, |t| {
                    RefEtMarkerSim48::new(c, t)
                })
            }
            5 => {
                let c = AsMarkerConfig {
                    ar: rate,
                    bucket_size: 3000,
                    threshold: 1500,
                    form: AsForm::DraftExplicitMarking01,
                    tick,
                };
                let p = AsMarkerProfile::new(&c).unwrap();
                diverges::<AsMarker, _>(&p, p.units_per_byte(), &pk, |t| RefAsMarker::new(c, t))
            }
            6 => {
                // The node against its two stages' reference models in order.
                let ec = ExcessTrafficMeterConfig {
                    excess_rate: rate,
                    bs_etm: 3000,
                    mode: ExcessMode::SizeIndependent,
                    tick,
                };
                let tc = ThresholdMeterConfig {
                    threshold_rate: Rate::from_bytes_per_sec(700_000),
                    bs_tm: 3000,
                    threshold: 1500,
                    tick,
                };
                let np = NodeProfile {
                    excess: ExcessTrafficMeterProfile::new(&ec).unwrap(),
                    threshold: ThresholdMeterProfile::new(&tc).unwrap(),
                };
                let mut node = NodeRfc5670::start(&np, ns(0));
                let (mut re, mut rt) = (
                    RefExcessTrafficMeter::new(ec, ns(0)),
                    RefThresholdMeter::new(tc, ns(0)),
                );
                pk.iter().any(|&(t, len, mark)| {
                    let fast = meter_step(&np, &mut node, ns(t), len, mark);
                    fast != Ok(rt.mark(ns(t), len, re.mark(ns(t), len, mark)))
                })
            }
            7 => {
                let p = StopBlockingProfile::new(&StopBlockingConfig::draft_explicit_marking_01())
                    .unwrap();
                let mut timer = StopBlockingTimer::new();
                pk.iter().any(|&(t, _, mark)| {
                    let now = ns(t * 1000);
                    if mark == PcnMark::Thm {
                        timer.on_block(&p, now);
                    } else {
                        let _ = timer.poll(&p, now);
                    }
                    stop_blocking_consistent(&p, &timer, now).is_err()
                })
            }
            8..=10 => {
                let mut r = SplitMix64::new(seed);
                (0..20).any(|i| {
                    let (ec, dc, cc) = egress_configs(&mut r, i);
                    let ops = egress_ops(&mut r, 300, ec.t_meas_ns);
                    check_egress(&ec, &dc, &cc, Instant::from_ticks(r.next_u64()), &ops).is_err()
                })
            }
            _ => false,
        }
    })
}

/// Every mutant of `crate::mutants` is caught by the invariants the fuzz
/// targets run, and none of the detectors fires on the real code.
#[test]
#[cfg_attr(miri, ignore = "thousands of packets per detector; Miri takes minutes")]
fn mutation_checks() {
    for id in 1..=10 {
        assert!(!caught(id), "detector {id} fires on the unbroken code");
        assert!(
            crate::mutants::with(id, || caught(id)),
            "mutant {id} not caught"
        );
    }
}
