//! Tests: hand-computed rules, differential tests against the reference
//! models, property tests of the invariants.

mod codel_rules;
mod differential;
mod drr_rules;
mod dual_rules;
mod fq_pie_rules;
mod fq_rules;
mod pie_rules;
mod properties;
mod renamed;

use std::collections::VecDeque;

use netcond_core::{Instant, RandomSource, SplitMix64};

use crate::reference::{Fifo, FlowFifos};
use crate::{Codel, CodelProfile, FqCodel, FqCodelProfile, Head, Verdict};

/// A FIFO of heads with a byte count, the caller's queue in the tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Queue {
    pub(crate) items: VecDeque<Head>,
    pub(crate) bytes: u64,
}

impl Queue {
    pub(crate) fn push(&mut self, h: Head) {
        self.bytes += u64::from(h.len);
        self.items.push_back(h);
    }
}

impl Fifo for Queue {
    fn pop(&mut self) -> Option<Head> {
        let h = self.items.pop_front()?;
        self.bytes -= u64::from(h.len);
        Some(h)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// One dequeue through the step API: the packet sent (and whether marked),
/// the dropped ones appended to `dropped`.
pub(crate) fn codel_dequeue(
    c: &mut Codel,
    p: &CodelProfile,
    now: Instant,
    q: &mut Queue,
    dropped: &mut Vec<Head>,
) -> Option<(Head, bool)> {
    loop {
        let Some(h) = q.pop() else {
            c.on_queue_empty(p, now);
            return None;
        };
        match c.on_dequeue(p, now, h, q.bytes) {
            Verdict::Drop => dropped.push(h),
            Verdict::Deliver => return Some((h, false)),
            Verdict::Mark => return Some((h, true)),
        }
    }
}

/// Per-flow FIFOs with byte counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Store<const N: usize> {
    pub(crate) flows: [Queue; N],
    pub(crate) bytes: u64,
}

impl<const N: usize> Store<N> {
    pub(crate) fn new() -> Self {
        Store {
            flows: core::array::from_fn(|_| Queue::default()),
            bytes: 0,
        }
    }
    pub(crate) fn push(&mut self, f: usize, h: Head) {
        self.flows[f % N].push(h);
        self.bytes += u64::from(h.len);
    }
}

impl<const N: usize> FlowFifos for Store<N> {
    fn pop(&mut self, f: usize) -> Option<Head> {
        let h = self.flows[f % N].pop()?;
        self.bytes -= u64::from(h.len);
        Some(h)
    }
    fn is_empty(&self, f: usize) -> bool {
        self.flows[f % N].items.is_empty()
    }
    fn flow_bytes(&self, f: usize) -> u64 {
        self.flows[f % N].bytes
    }
    fn total_bytes(&self) -> u64 {
        self.bytes
    }
}

/// One FQ-CoDel dequeue through the step API.
pub(crate) fn fq_dequeue<const N: usize>(
    fq: &mut FqCodel<N>,
    p: &FqCodelProfile,
    now: Instant,
    store: &mut Store<N>,
    dropped: &mut Vec<(usize, Head)>,
) -> Option<(usize, Head, bool)> {
    loop {
        let f = fq.schedule(p, now)?;
        let h = store.pop(f).expect("the scheduled flow holds a packet");
        match fq.on_dequeue(p, now, f, h) {
            Verdict::Drop => dropped.push((f, h)),
            Verdict::Deliver => return Some((f, h, false)),
            Verdict::Mark => return Some((f, h, true)),
        }
    }
}

/// Milliseconds as a nanosecond instant.
pub(crate) fn ms(m: u64) -> Instant {
    Instant::from_ticks(m * 1_000_000)
}

/// A random traffic stream: phases of overload and underload, idle gaps,
/// occasional steps back of the clock.
pub(crate) struct Stream {
    pub(crate) rng: SplitMix64,
    pub(crate) now: u64,
    /// Probability of an arrival (per 1000) in the current phase.
    arrive: u32,
    left: u32,
    /// Mean gap between operations, in ticks.
    pub(crate) gap: u64,
    /// The range of `arrive` over phases: `lo + below(span)`.
    lo: u32,
    span: u32,
}

/// One operation of a stream.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Arrive { len: u32, ecn: bool, flow: usize },
    Depart,
}

impl Stream {
    pub(crate) fn new(seed: u64, start: u64, gap: u64) -> Stream {
        Stream {
            rng: SplitMix64::new(seed),
            now: start,
            arrive: 500,
            left: 0,
            gap,
            lo: 300,
            span: 450,
        }
    }

    /// Arrival probabilities (per 1000 operations) drawn from `lo..lo + span`
    /// for each phase.
    pub(crate) fn with_load(mut self, lo: u32, span: u32) -> Stream {
        self.lo = lo;
        self.span = span.max(1);
        self
    }

    /// The next operation and its instant.
    pub(crate) fn next(&mut self, flows: u32) -> (Instant, Op) {
        if self.left == 0 {
            self.left = 200 + self.rng.below(3000);
            self.arrive = self.lo + self.rng.below(self.span);
        }
        self.left -= 1;
        let r = self.rng.below(10_000);
        let step = if r < 5 {
            // An idle gap of up to 40 intervals.
            self.gap * u64::from(self.rng.below(4_000))
        } else {
            u64::from(self.rng.below(2 * self.gap as u32 + 1))
        };
        self.now = self.now.wrapping_add(step);
        let mut at = self.now;
        if r > 9_990 {
            // The caller's clock reads earlier this once.
            at = at.wrapping_sub(u64::from(self.rng.below(1_000_000)));
        }
        let op = if self.rng.below(1000) < self.arrive {
            let len = match self.rng.below(10) {
                0 => 0,
                1 => 64,
                2..=6 => 1500,
                _ => self.rng.below(9000),
            };
            // Skewed flows: flow 0 and 1 are heavy.
            let flow = if self.rng.below(2) == 0 {
                self.rng.below(2)
            } else {
                self.rng.below(flows.max(1))
            } as usize;
            Op::Arrive {
                len,
                ecn: self.rng.below(3) == 0,
                flow,
            }
        } else {
            Op::Depart
        };
        (Instant::from_ticks(at), op)
    }
}

/// A random source that always returns 0 (every draw "drops").
pub(crate) struct ZeroRng;

impl RandomSource for ZeroRng {
    fn next_u32(&mut self) -> u32 {
        0
    }
}

/// A FIFO of DualPI2 heads with a byte count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DualFifoQ {
    pub(crate) items: VecDeque<crate::DualHead>,
    pub(crate) bytes: u64,
}

impl DualFifoQ {
    pub(crate) fn push(&mut self, h: crate::DualHead) {
        self.bytes += u64::from(h.len);
        self.items.push_back(h);
    }
}

impl crate::reference::DualFifo for DualFifoQ {
    fn pop(&mut self) -> Option<crate::DualHead> {
        let h = self.items.pop_front()?;
        self.bytes -= u64::from(h.len);
        Some(h)
    }
    fn head(&self) -> Option<crate::DualHead> {
        self.items.front().copied()
    }
    fn len(&self) -> usize {
        self.items.len()
    }
    fn byt(&self) -> u64 {
        self.bytes
    }
}

/// One DualPI2 dequeue through the step API: the packet sent, its queue and
/// whether it was marked; the dropped ones appended to `dropped`.
pub(crate) fn dual_dequeue<R: RandomSource>(
    d: &mut crate::DualPi2,
    p: &crate::DualPi2Profile,
    now: Instant,
    lq: &mut DualFifoQ,
    cq: &mut DualFifoQ,
    rng: &mut R,
    dropped: &mut Vec<(crate::DualQueue, crate::DualHead)>,
) -> Option<(crate::DualQueue, crate::DualHead, bool)> {
    use crate::reference::DualFifo;
    loop {
        let l = lq.head().map(|h| h.enqueued);
        let c = cq.head().map(|h| h.enqueued);
        let q = d.schedule(p, now, l, c)?;
        let fifo = if q == crate::DualQueue::L4s {
            &mut *lq
        } else {
            &mut *cq
        };
        let h = fifo.pop().expect("the scheduled queue holds a packet");
        let left = fifo.items.len() as u32;
        match d.on_dequeue(p, now, q, h, left, rng) {
            Verdict::Drop => dropped.push((q, h)),
            Verdict::Deliver => return Some((q, h, false)),
            Verdict::Mark => return Some((q, h, true)),
        }
    }
}

/// `State::start`, and so a `WithProfile` pair, starts a state as its `new` does.
#[test]
fn states_start_as_new() {
    use netcond_core::WithProfile;
    let t = Instant::from_ticks(77);
    let cp = crate::CodelProfile::new(&crate::CodelConfig::rfc8289()).unwrap();
    assert_eq!(
        WithProfile::<crate::Codel>::new(cp, t).state,
        crate::Codel::new(&cp, t)
    );
    let fp = crate::FqCodelProfile::new(&crate::FqCodelConfig::default()).unwrap();
    assert_eq!(
        WithProfile::<crate::FqCodel<4>>::new(fp, t).state,
        crate::FqCodel::<4>::new(&fp, t)
    );
}
