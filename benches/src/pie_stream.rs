//! PIE's bench streams, Linux's law, arrivals of IMIX lengths at one instant
//! with 100 packets queued and the burst allowance spent:
//! - [`congested`] (the `pie_enqueue` and `dpdk_pie_enqueue` rows of the
//!   instruction counts, the `pie` and `dpdk_pie` loops of the contention
//!   example): a drop probability far beyond one (the standing delay outlasts
//!   the burst allowance), so every arrival is dropped;
//! - [`drawing`] (`pie_enqueue_drawing`, `dpdk_pie_enqueue_drawing`; loops
//!   `pie_draw`, `dpdk_pie_draw`): the same state decayed to a probability
//!   between 20 % and 30 %, where both PIEs draw a random number for most
//!   arrivals and deliver most of them.
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

/// [`congested`], then one update a millisecond with the queue's head
/// delivered at once (no queue delay), which lowers the probability, until it
/// is below 30 %: it is then at least 20 % (checked), so that the enqueue's
/// early return for a short delay and a probability below 20 % does not
/// apply, and the burst allowance is still spent (it comes back only at a
/// probability of zero).
#[must_use]
pub fn drawing() -> (PieProfile, Pie, u64) {
    let (p, mut s, mut t) = congested();
    while s.prob() >= MAX_PROB / 10 * 3 {
        t += MS;
        s.poll(&p, Instant::from_ticks(t), BACKLOG);
        let head = Head::new(Instant::from_ticks(t), 1500, false);
        s.on_dequeue(&p, Instant::from_ticks(t), head, BACKLOG);
    }
    assert!(
        s.prob() >= MAX_PROB / 5 && s.burst_time() == 0,
        "the drawing stream's state: probability {} of {MAX_PROB}, burst time {}",
        s.prob(),
        s.burst_time()
    );
    (p, s, t)
}

/// A state's drop probability as a fraction (beyond one for [`congested`],
/// which Linux's arithmetic allows).
#[must_use]
pub fn prob(s: &Pie) -> f64 {
    s.prob() as f64 / MAX_PROB as f64
}

/// The probability rte_pie is started at for [`congested`]: its probability
/// bounded to one, as rte_pie bounds its own.
#[must_use]
pub fn dpdk_prob() -> f64 {
    prob(&congested().1).min(1.0)
}

/// The probability rte_pie is started at for [`drawing`]: the same.
#[must_use]
pub fn dpdk_drawing_prob() -> f64 {
    prob(&drawing().1)
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
        let v = s.on_arrival(p, Instant::from_ticks(t), head, QUEUED, BACKLOG, rng);
        acc += u64::from(v == Verdict::Drop);
    }
    acc
}
