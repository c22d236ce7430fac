//! Differential tests against the reference models, facts from the source texts and the
//! RFCs, and property tests of the invariants.

use crate::invariants::*;
use crate::reference::*;
use crate::*;
use core::time::Duration;
use netcond_core::{Instant, RandomSource, Rate, SplitMix64, TickRate};

mod as_marker_facts;
mod differential;
mod egress;
mod et_marker_facts;
mod extreme_configurations;
mod properties;
mod quiet_checks;
mod rfc5670_and_node;

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
