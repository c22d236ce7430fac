//! The discrete-event core: simulated time, the event queue and the seeded RNG.
//!
//! Time is a `u64` count of nanoseconds ([`Time`]), the same tick the netcond
//! conditioners use by default (`TickRate::NANOS`), so an event's time is passed
//! to a conditioner unchanged as an `Instant`.

use netcond::base::{Instant, RandomSource, SplitMix64};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Time = u64;

/// One nanosecond.
pub const NS: Time = 1;
/// One microsecond.
pub const US: Time = 1_000;
/// One millisecond.
pub const MS: Time = 1_000_000;
/// One second.
pub const SEC: Time = 1_000_000_000;

/// Seconds (a configuration value) to nanoseconds, rounded to the nearest ns.
#[must_use]
pub fn secs(s: f64) -> Time {
    (s * 1e9).round().max(0.0) as Time
}

/// Nanoseconds to seconds, for reports.
#[must_use]
pub fn to_secs(t: Time) -> f64 {
    t as f64 * 1e-9
}

/// A simulated time as the conditioners' `Instant` (nanosecond ticks).
#[inline]
#[must_use]
pub fn instant(t: Time) -> Instant {
    Instant::from_ticks(t)
}

/// Time to serialize `bytes` bytes on a link of `bits_per_sec`, in ns, rounded up
/// (a zero rate means an infinitely fast link: zero time).
#[inline]
#[must_use]
pub fn serialization_ns(bytes: u32, bits_per_sec: u64) -> Time {
    if bits_per_sec == 0 {
        return 0;
    }
    let num = u128::from(bytes) * 8 * 1_000_000_000;
    num.div_ceil(u128::from(bits_per_sec)) as Time
}

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we pop the earliest (time, seq).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A priority queue of events ordered by time, then by the order in which they
/// were scheduled (FIFO among equal times), so runs are deterministic.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    #[must_use]
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// The time of the last event popped (the simulation clock).
    #[inline]
    #[must_use]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events popped so far.
    #[inline]
    #[must_use]
    pub fn events(&self) -> u64 {
        self.popped
    }

    /// Events waiting.
    #[must_use]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event waits.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `time`; a time in the past is clamped to now, so the
    /// clock never runs backwards.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        let time = time.max(self.now);
        self.heap.push(Entry {
            time,
            seq: self.seq,
            event,
        });
        self.seq += 1;
    }

    /// Schedules `event` `delay` ns from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now.saturating_add(delay), event);
    }

    /// Pops the earliest event if it is due at or before `until`, advancing the clock.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Pops the earliest event, advancing the clock.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }
}

/// A seed for run `index` of a sweep seeded with `seed`: independent of thread
/// scheduling, so parallel sweeps are deterministic.
#[must_use]
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut r = SplitMix64::new(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
    r.next_u64()
}

/// The simulator's random number generator: the workspace's SplitMix64 with the
/// continuous distributions the traffic models need.
#[derive(Clone, Debug)]
pub struct Rng {
    inner: SplitMix64,
}

impl Rng {
    /// A generator for `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng {
            inner: SplitMix64::new(seed),
        }
    }

    /// An independent generator for sub-stream `index` (e.g. one per flow type).
    #[must_use]
    pub fn fork(&mut self, index: u64) -> Rng {
        Rng::new(derive_seed(self.inner.next_u64(), index))
    }

    /// The next uniform `u64`.
    #[inline]
    pub fn u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.inner.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `(0, 1]` (safe for `ln`).
    #[inline]
    pub fn uniform_open0(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Uniform integer in `0..n` (`n == 0` gives 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.inner.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform time in `[0, span)` ns.
    #[inline]
    pub fn time_below(&mut self, span: Time) -> Time {
        self.below(span)
    }

    /// Exponential with the given mean.
    #[inline]
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open0().ln()
    }

    /// Exponential time with the given mean in ns, rounded to the nearest ns.
    #[inline]
    pub fn exp_time(&mut self, mean: Time) -> Time {
        self.exp(mean as f64).round() as Time
    }

    /// Standard normal (Box-Muller; one value per call, deterministic).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.uniform_open0();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Geometric batch size on {1, 2, ...} with the given mean (>= 1).
    pub fn batch(&mut self, mean: f64) -> u64 {
        if mean <= 1.0 {
            return 1;
        }
        let p = 1.0 / mean;
        let mut n = 1;
        while !self.chance(p) {
            n += 1;
        }
        n
    }
}

impl RandomSource for Rng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        (self.inner.next_u64() >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(10, 'a');
        q.schedule(5, 'b');
        q.schedule(10, 'c');
        q.schedule(5, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn past_events_are_clamped() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        assert_eq!(q.pop(), Some((100, 1)));
        q.schedule(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }

    #[test]
    fn serialization_rounds_up() {
        assert_eq!(serialization_ns(1500, 10_000_000), 1_200_000);
        assert_eq!(serialization_ns(1500, 64_000), 187_500_000);
        assert_eq!(serialization_ns(1, 3), 2_666_666_667);
        assert_eq!(serialization_ns(1500, 0), 0);
    }

    #[test]
    fn exp_mean() {
        let mut r = Rng::new(3);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exp(2.0)).sum::<f64>() / n as f64;
        assert!((m - 2.0).abs() < 0.02, "{m}");
    }
}
