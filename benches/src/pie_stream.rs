//! PIE's bench stream (the `pie_enqueue` and `dpdk_pie_enqueue` rows of the
//! instruction counts, the `pie` and `dpdk_pie` loops of the contention
//! example): Linux's law, a drop probability of at least 4 % (in fact far
//! beyond one: the standing delay outlasts the burst allowance) and the burst
//! allowance spent, then arrivals of IMIX lengths at one instant with 100
//! packets queued: every arrival is dropped.
use std::hint::black_box;

use netcond::base::{Instant, SplitMix64};
use netcond::delay::{Head, Pie, PieConfig, PieProfile, Verdict, MAX_PROB};

use crate::imix_lengths;
use crate::meter_stream::PACKETS;

/// Nanoseconds per millisecond: the stream's clock is in nanoseconds.
pub const MS: u64 = 1_000_000;
/// Packets queued at every arrival.
pub const QUEUED: u32 = 100;
/// Bytes queued at every arrival.
pub const BACKLOG: u64 = 150_000;

/// PIE (Linux's defaults) driven by a standing 30 ms delay, one update a
/// millisecond, until its probability is at least 4 % and its 150 ms burst
/// allowance is spent: the profile, the state and the clock.
#[must_use]
pub fn congested() -> (PieProfile, Pie, u64) {
    let p = PieProfile::new(&PieConfig::linux()).expect("Linux's defaults are valid");
    let mut s = Pie::new(&p, Instant::ZERO);
    let mut t = 0u64;
    while s.prob() < MAX_PROB / 25 || s.burst_time() > 0 {
        t += MS;
        s.poll(&p, Instant::from_ticks(t), BACKLOG);
        let head = Head::new(Instant::from_ticks(t - 30 * MS), 1500, false);
        s.on_dequeue(&p, Instant::from_ticks(t), head, BACKLOG);
    }
    (p, s, t)
}

/// The probability of [`congested`]'s state as a fraction: far beyond one,
/// which Linux's arithmetic allows.
#[must_use]
pub fn congested_prob() -> f64 {
    congested().1.prob() as f64 / MAX_PROB as f64
}

/// The probability rte_pie is started at: [`congested_prob`] bounded to one,
/// as rte_pie bounds its own.
#[must_use]
pub fn dpdk_prob() -> f64 {
    congested_prob().min(1.0)
}

/// The arrivals' lengths.
#[must_use]
pub fn lens() -> Vec<u32> {
    imix_lengths(PACKETS, 6)
}

/// One burst: every length of `lens` arrives at `t`; returns the drops.
pub fn pie_burst(p: &PieProfile, s: &mut Pie, lens: &[u32], t: u64, rng: &mut SplitMix64) -> u64 {
    let p = black_box(p);
    let mut acc = 0u64;
    for &len in lens {
        let head = Head::new(Instant::from_ticks(t), len, false);
        let v = s.on_enqueue(p, Instant::from_ticks(t), head, QUEUED, BACKLOG, rng);
        acc += u64::from(v == Verdict::Drop);
    }
    acc
}
