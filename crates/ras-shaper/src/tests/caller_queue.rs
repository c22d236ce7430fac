//! The shaper whose queue the caller keeps ([`RasCore`]) against the shaper
//! with its own FIFO ([`Ras`]) and against the owned-FIFO shaper as it was
//! written before both shared [`RasCore`] ([`FifoBefore`], kept here
//! unchanged as the reference): every decision, release instant and state
//! field agrees, on long random streams, for both kinds of profile.

use std::collections::VecDeque;
use std::vec::Vec;

use heapless::Deque;
use netcond_core::branchless::borrow;
use netcond_core::{Instant, RandomSource, SplitMix64};

use super::{pick, random_ras_profile, t, Pkt};
use crate::{Ear, PacketLen, Ras, RasCore, RasKind, RasProfile, Schedule};

/// One queued packet and its arrival time.
struct Slot<P> {
    pkt: P,
    arrival: Instant,
}

/// The srRAS / trRAS state exactly as it was before the queue-less core was
/// split off: a `heapless::Deque` of descriptors, the EAR and the schedule,
/// with the same steps in the same order.
struct FifoBefore<P, const N: usize> {
    queue: Deque<Slot<P>, N>,
    bytes: u64,
    ear: Ear,
    t1: Schedule,
    t2: Option<Instant>,
    head: Schedule,
    release: Instant,
    next: Schedule,
}

impl<P: PacketLen, const N: usize> FifoBefore<P, N> {
    fn new(now: Instant) -> Self {
        FifoBefore {
            queue: Deque::new(),
            bytes: 0,
            ear: Ear::zero_at(now),
            t1: Schedule::whole(now),
            t2: None,
            head: Schedule::whole(now),
            release: now,
            next: Schedule::whole(now),
        }
    }

    fn enqueue(&mut self, p: &RasProfile, now: Instant, pkt: P) -> Result<(), P> {
        if self.push(p, now, pkt)? {
            self.schedule_head(now);
        }
        Ok(())
    }

    fn next_release(&self) -> Option<Instant> {
        if self.queue.is_empty() {
            None
        } else {
            Some(self.release)
        }
    }

    fn dequeue(&mut self, p: &RasProfile, now: Instant) -> Option<P> {
        let pkt = self.pop(p, now)?;
        if !self.queue.is_empty() {
            self.schedule_head(now);
        }
        Some(pkt)
    }

    fn push(&mut self, p: &RasProfile, now: Instant, pkt: P) -> Result<bool, P> {
        let len = pkt.packet_len();
        self.ear.update(p.ear(), now, len);
        let bytes = self.bytes.saturating_add(len as u64);
        if bytes > p.buffer_bytes() {
            return Err(pkt);
        }
        let was_empty = self.queue.is_empty();
        match self.queue.push_back(Slot { pkt, arrival: now }) {
            Ok(()) => {
                self.bytes = bytes;
                Ok(was_empty)
            }
            Err(s) => Err(s.pkt),
        }
    }

    fn pop(&mut self, p: &RasProfile, now: Instant) -> Option<P> {
        if self.release.ticks_since(now) != 0 {
            return None;
        }
        let slot = self.queue.pop_front()?;
        let len = slot.pkt.packet_len();
        self.bytes = self.bytes.saturating_sub(len as u64);
        self.next = self.head.plus(p.gap(&self.ear, self.bytes, len));
        Some(slot.pkt)
    }

    fn schedule_head(&mut self, now: Instant) {
        let Some(h) = self.queue.front() else {
            return;
        };
        let arrival = h.arrival;
        let keep = borrow(self.next.at.ticks().wrapping_sub(arrival.ticks()), 1 << 63);
        let t1 = Schedule {
            at: Instant::from_ticks((self.next.at.ticks() & keep) | (arrival.ticks() & !keep)),
            frac: self.next.frac & keep as u32,
        };
        let _ = now;
        // A plain shaper has no T2: the release point is T1.
        self.t1 = t1;
        self.t2 = None;
        self.head = t1;
        self.release = t1.ceil();
    }
}

/// A caller's own queue in front of a [`RasCore`]: what a C program or a
/// driver with its own descriptor ring does.
struct CallerQueue {
    core: RasCore,
    queue: VecDeque<(Pkt, Instant)>,
}

impl CallerQueue {
    fn enqueue(&mut self, p: &RasProfile, now: Instant, pkt: Pkt) -> Result<(), Pkt> {
        if self.core.enqueue(p, now, pkt.len) {
            self.queue.push_back((pkt, now));
            Ok(())
        } else {
            Err(pkt)
        }
    }

    fn dequeue(&mut self, p: &RasProfile, now: Instant) -> Option<Pkt> {
        let (head, _) = *self.queue.front()?;
        // The arrival of the packet behind the head (any value when there is
        // none: the core then ignores it).
        let behind = self.queue.get(1).map_or(Instant::ZERO, |x| x.1);
        if self.core.dequeue(p, now, head.len, behind) {
            self.queue.pop_front();
            Some(head)
        } else {
            None
        }
    }
}

/// Everything the three shapers must agree on after each step.
fn snapshot_ras<const N: usize>(s: &Ras<Pkt, N>) -> [u64; 10] {
    let c = s.core();
    snapshot_core(c, s.len())
}

fn snapshot_core(c: &RasCore, len: usize) -> [u64; 10] {
    [
        len as u64,
        c.bytes(),
        c.ear().raw(),
        c.ear().last_arrival().ticks(),
        c.next_release().map_or(u64::MAX, |x| x.ticks()),
        c.head_t1().at.ticks() ^ (u64::from(c.head_t1().frac) << 7),
        c.head_schedule().at.ticks() ^ (u64::from(c.head_schedule().frac) << 7),
        c.next_start().at.ticks(),
        u64::from(c.next_start().frac),
        c.head_t2().map_or(u64::MAX, |x| x.ticks()),
    ]
}

fn snapshot_before<const N: usize>(s: &FifoBefore<Pkt, N>) -> [u64; 10] {
    [
        s.queue.len() as u64,
        s.bytes,
        s.ear.raw(),
        s.ear.last_arrival().ticks(),
        s.next_release().map_or(u64::MAX, |x| x.ticks()),
        s.t1.at.ticks() ^ (u64::from(s.t1.frac) << 7),
        s.head.at.ticks() ^ (u64::from(s.head.frac) << 7),
        s.next.at.ticks(),
        u64::from(s.next.frac),
        s.t2.map_or(u64::MAX, |x| x.ticks()),
    ]
}

/// Drives the three shapers with one random stream of `steps` operations on
/// profile `p` and compares them after every step; returns the packets
/// released and the packets refused.
///
/// The stream mixes regimes: arrivals spaced around the mean transmission time
/// (the shaper often empties), bursts (the buffer or the `N`-entry queue
/// overflows), packets of 0 to 9000 bytes, dequeues at the release instant,
/// late (a caller that polls late gets its backlog at once) and early
/// (nothing leaves).
fn run_three<const N: usize>(r: &mut SplitMix64, p: &RasProfile, steps: usize) -> (u64, u64) {
    let start = t(r.next_u32() as u64 * r.next_u32() as u64);
    let mut before: FifoBefore<Pkt, N> = FifoBefore::new(start);
    let mut ras: Ras<Pkt, N> = Ras::new(p, start);
    let mut caller = CallerQueue {
        core: RasCore::new(p, start, N),
        queue: VecDeque::new(),
    };
    // Mean transmission time of a 750-byte packet at CIR, in ticks.
    let mean_gap = ((750u128 << p.scale()) / u128::from(p.cir_units().max(1))).max(1) as u64;
    let mut now = start;
    let (mut sent, mut refused, mut id) = (0u64, 0u64, 0u32);
    for _ in 0..steps {
        match r.below(10) {
            0..=4 => {
                let len = match r.below(8) {
                    0 => 0,
                    1 => 9000,
                    2 => 64,
                    _ => 40 + r.below(1461),
                };
                let pkt = Pkt { len, id };
                id = id.wrapping_add(1);
                let a = before.enqueue(p, now, pkt);
                assert_eq!(ras.enqueue(p, now, pkt), a, "enqueue, Ras");
                assert_eq!(caller.enqueue(p, now, pkt), a, "enqueue, RasCore");
                refused += u64::from(a.is_err());
            }
            5..=7 => {
                let at = before.next_release();
                assert_eq!(ras.next_release(), at);
                assert_eq!(caller.core.next_release(), at);
                // At the release instant, late, or early.
                let when = match (at, r.below(6)) {
                    (Some(x), 0) => {
                        x.wrapping_add(r.below((mean_gap.min(1 << 30) as u32 * 3) | 1) as u64)
                    }
                    (Some(x), 1) => t(x.ticks().wrapping_sub(1 + r.below(100) as u64)),
                    (Some(x), _) => x,
                    (None, _) => now,
                };
                // The clock does not step back.
                if when.ticks_since(now) != 0 || when == now {
                    now = when;
                }
                let a = before.dequeue(p, now);
                assert_eq!(ras.dequeue(p, now), a, "dequeue, Ras");
                assert_eq!(caller.dequeue(p, now), a, "dequeue, RasCore");
                sent += u64::from(a.is_some());
            }
            8 => {
                // Time passes: about one transmission time, or a long pause.
                let d = if r.below(8) == 0 {
                    mean_gap.saturating_mul(1 + r.below(500) as u64)
                } else {
                    r.below((2 * mean_gap).min(u64::from(u32::MAX)) as u32 | 1) as u64
                };
                now = now.wrapping_add(d);
            }
            _ => {
                // Everything due leaves.
                while let Some(at) = before.next_release().filter(|a| a.ticks_since(now) == 0) {
                    let a = before.dequeue(p, at);
                    assert_eq!(ras.dequeue(p, at), a);
                    assert_eq!(caller.dequeue(p, at), a);
                    sent += 1;
                }
            }
        }
        let want = snapshot_before(&before);
        assert_eq!(snapshot_ras(&ras), want, "Ras state");
        assert_eq!(
            snapshot_core(&caller.core, caller.queue.len()),
            want,
            "RasCore state"
        );
        assert_eq!(caller.core.len(), caller.queue.len());
        let queued: Vec<Pkt> = ras.iter().copied().collect();
        let theirs: Vec<Pkt> = caller.queue.iter().map(|x| x.0).collect();
        assert_eq!(queued, theirs);
        crate::invariants::shaper_consistent(p, &ras).unwrap();
    }
    (sent, refused)
}

/// `RasCore` with the caller's queue, `Ras` and the shaper as written before
/// the core was split off agree on every step of long random streams, on
/// random srRAS and trRAS profiles, with queues of 1, 16 and 64 entries.
#[test]
fn caller_queue_and_own_fifo_agree_with_the_shaper_before_the_split() {
    let mut r = SplitMix64::new(2963);
    let (mut sent, mut refused) = (0, 0);
    let mut kinds = [0usize; 2];
    for round in 0..pick(60, 3) {
        let p = random_ras_profile(&mut r);
        kinds[match p.kind() {
            RasKind::SingleRate => 0,
            _ => 1,
        }] += 1;
        let steps = pick(40_000, 400);
        let (s, d) = match round % 3 {
            0 => run_three::<64>(&mut r, &p, steps),
            1 => run_three::<16>(&mut r, &p, steps),
            _ => run_three::<1>(&mut r, &p, steps),
        };
        sent += s;
        refused += d;
    }
    assert!(cfg!(miri) || kinds.iter().all(|&k| k >= 10), "{kinds:?}");
    assert!(sent > pick(500_000, 100) as u64, "{sent}");
    assert!(refused > pick(10_000, 1) as u64, "{refused}");
}

/// A caller's queue of any capacity: the core's packet limit is the caller's,
/// not a type parameter, and a queue without a packet limit
/// (`usize::MAX`) refuses only what the buffer cannot hold.
#[test]
fn caller_queue_capacity_is_the_callers() {
    let p = super::tr_profile();
    let mut c = RasCore::new(&p, Instant::ZERO, 3);
    for _ in 0..3 {
        assert!(c.enqueue(&p, Instant::ZERO, 100));
    }
    assert!(!c.enqueue(&p, Instant::ZERO, 100));
    assert_eq!((c.len(), c.bytes(), c.capacity()), (3, 300, 3));
    let mut c = RasCore::new(&p, Instant::ZERO, usize::MAX);
    let mut n = 0;
    while c.enqueue(&p, Instant::ZERO, 1500) {
        n += 1;
    }
    assert_eq!(n as u64, p.buffer_bytes() / 1500);
    // Dequeue on an empty core, or before the release: nothing leaves.
    let mut c = RasCore::new(&p, Instant::ZERO, 8);
    assert!(!c.dequeue(&p, Instant::ZERO, 100, Instant::ZERO));
    assert!(c.enqueue(&p, Instant::ZERO, 1500));
    assert!(c.enqueue(&p, Instant::ZERO, 1500));
    assert!(c.dequeue(&p, Instant::ZERO, 1500, Instant::ZERO));
    let at = c.next_release().unwrap();
    assert!(at.ticks() > 0);
    assert!(!c.dequeue(&p, Instant::from_ticks(at.ticks() - 1), 1500, Instant::ZERO));
    assert!(c.dequeue(&p, at, 1500, Instant::ZERO));
    assert!(c.is_empty() && c.next_release().is_none());
}

/// `State::start` is the core without a packet limit of its own: the same
/// state as `new` with `usize::MAX`, and in a `WithProfile` it refuses only
/// what the profile's buffer cannot hold.
#[test]
fn started_core_is_limited_by_the_buffer_alone() {
    use netcond_core::{State, WithProfile};
    let p = super::sr_profile();
    let at = Instant::from_ticks(77);
    let c = <RasCore as State>::start(&p, at);
    assert_eq!(c, RasCore::new(&p, at, usize::MAX));
    assert_eq!(c.capacity(), usize::MAX);
    let mut pair = WithProfile::<RasCore>::new(p, at);
    let (core, prof) = pair.parts_mut();
    let mut n = 0u64;
    while core.enqueue(prof, at, 1000) {
        n += 1;
    }
    assert_eq!(n, p.buffer_bytes() / 1000);
    assert_eq!(core.bytes(), n * 1000);
    pair.restart(at);
    assert!(pair.state.is_empty() && pair.state.next_release().is_none());
}
