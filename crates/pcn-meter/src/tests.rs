//! Differential tests against the reference models, facts from the seed and the
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
    fn same(&self, level: i64, per_byte: u64) -> bool;
}

macro_rules! model {
    ($t:ty) => {
        impl Model for $t {
            fn step(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
                self.mark(now, len, mark)
            }
            fn same(&self, level: i64, per_byte: u64) -> bool {
                self.fill_matches(level as i128, per_byte)
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

const PACKETS: usize = 4000;

#[test]
fn et_marker_matches_reference() {
    let mut cfgs = SplitMix64::new(1);
    let (mut bad, mut built) = (0, 0);
    for i in 0..300 {
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
        bad += differential::<EtMarker, _>(i, PACKETS, &p, p.units_per_byte(), sr, tick, |t| {
            RefEtMarker::new(c, t)
        });
    }
    assert!(built > 200, "only {built} configurations built");
    assert!(
        marked_so_far() > 20_000,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn et_marker_sim48_matches_reference() {
    let mut cfgs = SplitMix64::new(2);
    let (mut bad, mut built) = (0, 0);
    for i in 0..300 {
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
            differential::<EtMarkerSim48, _>(i, PACKETS, &p, p.units_per_byte(), rate, tick, |t| {
                RefEtMarkerSim48::new(c, t)
            });
    }
    assert!(built > 200, "only {built} configurations built");
    assert!(
        marked_so_far() > 20_000,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn as_marker_matches_reference() {
    let mut cfgs = SplitMix64::new(3);
    let (mut bad, mut built) = (0, 0);
    for i in 0..300 {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let c = AsMarkerConfig {
            ar: rate,
            bucket_size: bucket,
            threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
            form: if cfgs.below(2) == 0 {
                AsForm::Seed000
            } else {
                AsForm::Draft3sm01
            },
            tick,
        };
        let Ok(p) = AsMarkerProfile::new(&c) else {
            continue;
        };
        built += 1;
        bad += differential::<AsMarker, _>(i, PACKETS, &p, p.units_per_byte(), rate, tick, |t| {
            RefAsMarker::new(c, t)
        });
    }
    assert!(built > 200, "only {built} configurations built");
    assert!(
        marked_so_far() > 20_000,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn threshold_meter_matches_reference() {
    let mut cfgs = SplitMix64::new(4);
    let (mut bad, mut built) = (0, 0);
    for i in 0..300 {
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
            PACKETS,
            &p,
            p.units_per_byte(),
            rate,
            tick,
            |t| RefThresholdMeter::new(c, t),
        );
    }
    assert!(built > 200, "only {built} configurations built");
    assert!(
        marked_so_far() > 20_000,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn excess_meter_matches_reference() {
    let mut cfgs = SplitMix64::new(5);
    let (mut bad, mut built) = (0, 0);
    for i in 0..300 {
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
            PACKETS,
            &p,
            p.units_per_byte(),
            rate,
            tick,
            |t| RefExcessTrafficMeter::new(c, t),
        );
    }
    assert!(built > 200, "only {built} configurations built");
    assert!(
        marked_so_far() > 20_000,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}
