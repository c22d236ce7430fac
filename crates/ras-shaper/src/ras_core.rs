//! The state of an srRAS or trRAS without its packet queue ([`RasCore`]):
//! the EAR, the occupancy and the release schedule, for callers that keep
//! the packets themselves. [`Ras`](crate::Ras) is this core with the crate's
//! FIFO.

use netcond_core::branchless::borrow;
use netcond_core::Instant;

use crate::ear::Ear;
use crate::profile::RasProfile;
use crate::schedule::Schedule;

/// The state of one srRAS or trRAS without its packet queue: the EAR, the
/// buffer occupancy, the packet count and the release schedule. The caller
/// keeps the packets in a queue of its own (a descriptor ring, a list of
/// mbufs) and tells the core what happens to it; [`Ras`](crate::Ras) is this core with
/// the crate's fixed-capacity FIFO, and makes the same decisions at the same
/// instants.
///
/// Per packet:
///
/// 1. On arrival, [`enqueue`](Self::enqueue)`(p, now, len)`: the EAR counts
///    the packet; `true` means it is accepted and the caller appends it to its
///    queue, `false` that it is dropped (tail drop: the buffer or the caller's
///    queue, of [`capacity`](Self::capacity) packets, is full).
/// 2. [`next_release`](Self::next_release): when the head of the caller's
///    queue may leave (`None` when the queue is empty).
/// 3. At or after that instant, [`dequeue`](Self::dequeue)`(p, now, head_len,
///    next_arrival)`, with the head's length and the arrival time of the
///    packet behind it: `true` means the head leaves now and the caller
///    removes it from its queue; `false` that it is not due yet.
///
/// The caller's queue must follow these answers: append exactly the packets
/// accepted, in order, and remove the head exactly when `dequeue` says so. A
/// caller that passes other lengths or arrival times gets another schedule,
/// never a panic.
///
/// ```
/// use std::collections::VecDeque;
/// use netcond_core::{Instant, Rate};
/// use ras_shaper::{RasCore, SrRasConfig, SrRasProfile};
///
/// let p = SrRasProfile::new(&SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 64_000)).unwrap();
/// let mut core = RasCore::new(&p, Instant::ZERO, 128);
/// // The caller's queue: (length, arrival).
/// let mut queue: VecDeque<(u32, Instant)> = VecDeque::new();
/// for i in 0..10u64 {
///     let now = Instant::from_ticks(i * 1_200_000);
///     if core.enqueue(&p, now, 1500) {
///         queue.push_back((1500, now));
///     }
/// }
/// let mut out = Vec::new();
/// while let Some(at) = core.next_release() {
///     let (len, _) = queue[0];
///     let behind = queue.get(1).map_or(Instant::ZERO, |x| x.1);
///     assert!(core.dequeue(&p, at, len, behind));
///     queue.pop_front();
///     out.push(at);
/// }
/// assert_eq!(out.len(), 10);
/// // About 2 Mbit/s: 6 ms per 1500-byte packet once backlogged.
/// assert!(out[9].ticks() - out[8].ticks() >= 5_000_000);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RasCore {
    /// Bytes queued.
    bytes: u64,
    /// Packets queued.
    packets: usize,
    /// The most packets the queue holds.
    capacity: usize,
    ear: Ear,
    /// The head's T1.
    t1: Schedule,
    /// The head's T2 (green shapers), `None` for infinity.
    t2: Option<Instant>,
    /// The head's release point: min(T1, T2).
    head: Schedule,
    /// The first whole tick at which the head may leave (ceil of `head`).
    release: Instant,
    /// Earliest start for the next head: last release + L/R.
    next: Schedule,
}

impl RasCore {
    /// An empty shaper whose clock starts at `now`, for a queue of at most
    /// `capacity` packets (`usize::MAX`: only the buffer size limits it; this
    /// is the core [`State::start`](netcond_core::State::start) starts).
    #[must_use]
    pub const fn new(profile: &RasProfile, now: Instant, capacity: usize) -> RasCore {
        RasCore {
            bytes: 0,
            packets: 0,
            capacity,
            ear: Ear::new(profile.ear(), now),
            t1: Schedule::whole(now),
            t2: None,
            head: Schedule::whole(now),
            release: now,
            next: Schedule::whole(now),
        }
    }

    /// A packet of `len` bytes arrives at `now`. The EAR counts it; `true`
    /// when it is accepted (the caller appends it to its queue), `false` when
    /// it is dropped because it would take the buffer past its size or the
    /// queue already holds [`capacity`](Self::capacity) packets.
    #[inline(always)]
    pub fn enqueue(&mut self, p: &RasProfile, now: Instant, len: u32) -> bool {
        match self.arrive(p, now, len) {
            Some(head) => {
                if head {
                    self.schedule_head(now, now);
                }
                true
            }
            None => false,
        }
    }

    /// The instant at which the head packet may leave (`None` when empty).
    #[inline(always)]
    #[must_use]
    pub fn next_release(&self) -> Option<Instant> {
        if self.packets == 0 {
            None
        } else {
            Some(self.release)
        }
    }

    /// Releases the head packet, of `head_len` bytes, if its release instant
    /// is not after `now`: `true` when it leaves (the caller removes it from
    /// its queue). `next_arrival` is the arrival time of the packet behind
    /// the head, which becomes the head; it is not read when the head is the
    /// last packet.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        p: &RasProfile,
        now: Instant,
        head_len: u32,
        next_arrival: Instant,
    ) -> bool {
        if !self.due(now) || self.packets == 0 {
            return false;
        }
        self.released(p, head_len);
        if self.packets != 0 {
            self.schedule_head(now, next_arrival);
        }
        true
    }

    /// Counts the arrival in the EAR and takes the packet into the buffer;
    /// `Some(true)` when it became the head, `None` when it is dropped.
    #[inline(always)]
    pub(crate) fn arrive(&mut self, p: &RasProfile, now: Instant, len: u32) -> Option<bool> {
        self.ear.update(p.ear(), now, len);
        let bytes = self.bytes.saturating_add(len as u64);
        if bytes > p.buffer_bytes() || self.packets >= self.capacity {
            return None;
        }
        self.bytes = bytes;
        self.packets += 1;
        Some(self.packets == 1)
    }

    /// Takes back an arrival of `len` bytes that the queue could not hold
    /// after all (the EAR keeps counting it, as for any dropped packet).
    #[inline]
    pub(crate) fn unarrive(&mut self, len: u32) {
        self.bytes = self.bytes.saturating_sub(len as u64);
        self.packets = self.packets.saturating_sub(1);
    }

    /// True when the head's release instant is not after `now` (with nothing
    /// queued, the instant is stale; the caller tests emptiness).
    #[inline(always)]
    pub(crate) fn due(&self, now: Instant) -> bool {
        self.release.ticks_since(now) == 0
    }

    /// The head, of `len` bytes, leaves: schedules the gap after it.
    #[inline(always)]
    pub(crate) fn released(&mut self, p: &RasProfile, len: u32) {
        self.packets = self.packets.saturating_sub(1);
        self.bytes = self.bytes.saturating_sub(len as u64);
        self.next = self.head.plus(p.gap(&self.ear, self.bytes, len));
    }

    /// Sets T1 of a new head that arrived at `arrival`, and its release
    /// point (a plain shaper: T1).
    #[inline(always)]
    pub(crate) fn schedule_head(&mut self, now: Instant, arrival: Instant) {
        let (t1, _) = self.t1_for(arrival, now);
        self.set_head(t1, None);
    }

    /// T1 of a head that arrived at `arrival`, and whether T2 is to be asked
    /// (T1 still in the future at `now`).
    #[inline(always)]
    pub(crate) fn t1_for(&self, arrival: Instant, now: Instant) -> (Schedule, bool) {
        // T1 = next if `whole(arrival).not_after(next)`, else whole(arrival).
        // As the arrival is a whole tick, `not_after` is `next.at - arrival`
        // (wrapping) below 2^63: equal ticks compare `0 <= next.frac`, always
        // true. Whether a packet waits follows the traffic, so the choice is
        // a borrow mask rather than a branch.
        let keep = borrow(self.next.at.ticks().wrapping_sub(arrival.ticks()), 1 << 63);
        let t1 = Schedule {
            at: Instant::from_ticks((self.next.at.ticks() & keep) | (arrival.ticks() & !keep)),
            frac: self.next.frac & keep as u32,
        };
        let ask = !t1.not_after(Schedule::whole(now));
        (t1, ask)
    }

    /// [`set_head`](Self::set_head) with T2 counted as infinite unless `ask`:
    /// the same as `set_head(t1, if ask { t2 } else { None })`, by masks.
    #[inline(always)]
    pub(crate) fn set_head_if(&mut self, t1: Schedule, t2: Option<Instant>, ask: bool) {
        let (some, at) = match t2 {
            Some(t) => (ask, t.ticks()),
            None => (false, 0),
        };
        self.t1 = t1;
        self.t2 = if some {
            Some(Instant::from_ticks(at))
        } else {
            None
        };
        // head = whole(T2) if T2 is finite and `whole(T2).not_after(T1)`, else
        // T1. As T2 is a whole tick, `not_after` is `delta = T1.at - T2`
        // (wrapping, as an i64) not negative: equal whole ticks compare `0 <=
        // T1.frac`, always true. With `win` all ones when T2 is finite and
        // `delta >= 0` (T2 wins), else 0:
        //
        //   head = whole(T2) where win, else T1
        //   release = ceil(head) = T2 where win, else ceil(T1)
        //
        // Whether T2 wins follows the traffic, so it selects by masks, not a
        // branch; ceil(T1) does not wait for T2, so the release is two
        // operations after `win`.
        let delta = t1.at.ticks().wrapping_sub(at);
        let win = (some as u64).wrapping_neg() & !((delta as i64 >> 63) as u64);
        self.head = Schedule {
            at: Instant::from_ticks((at & win) | (t1.at.ticks() & !win)),
            frac: t1.frac & !win as u32,
        };
        let ceil1 = t1.ceil().ticks();
        self.release = Instant::from_ticks((at & win) | (ceil1 & !win));
    }

    /// Records T1 and T2 and sets the release point min(T1, T2).
    #[inline(always)]
    pub(crate) fn set_head(&mut self, t1: Schedule, t2: Option<Instant>) {
        self.set_head_if(t1, t2, true);
    }

    /// Packets queued.
    #[inline]
    #[must_use]
    pub const fn len(&self) -> usize {
        self.packets
    }

    /// True when no packet is queued.
    #[inline]
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.packets == 0
    }

    /// The most packets the queue holds.
    #[inline]
    #[must_use]
    pub const fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes queued (the buffer occupancy of sections 2.3 and 2.5).
    #[inline]
    #[must_use]
    pub const fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The EAR estimator.
    #[inline]
    #[must_use]
    pub const fn ear(&self) -> &Ear {
        &self.ear
    }

    /// The shaping rate the shaper would use now, in the profile's rate units.
    #[inline]
    #[must_use]
    pub fn shaping_rate(&self, p: &RasProfile) -> u64 {
        p.shaping_rate(&self.ear, self.bytes)
    }

    /// The head's rate schedule T1 (meaningless when empty).
    #[inline]
    #[must_use]
    pub const fn head_t1(&self) -> Schedule {
        self.t1
    }

    /// The head's green schedule T2: `None` for infinity, for a plain shaper,
    /// and when T2 was not evaluated because T1 was already due.
    #[inline]
    #[must_use]
    pub const fn head_t2(&self) -> Option<Instant> {
        self.t2
    }

    /// The head's release point min(T1, T2), with its fraction of a tick.
    #[inline]
    #[must_use]
    pub const fn head_schedule(&self) -> Schedule {
        self.head
    }

    /// The earliest start of the next head: the last release plus its
    /// transmission time.
    #[inline]
    #[must_use]
    pub const fn next_start(&self) -> Schedule {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// The release point as it was chosen before the choice became
    /// branch-free: `whole(T2)` if T2 is finite and not after T1, else T1.
    fn head_by_comparison(t1: Schedule, t2: Option<Instant>) -> Schedule {
        match t2 {
            Some(t) if Schedule::whole(t).not_after(t1) => Schedule::whole(t),
            _ => t1,
        }
    }

    /// The head's release point is min(T1, T2) exactly as the comparison does, on
    /// every serial-time edge: T2 equal to T1's whole tick, one tick either
    /// side, and half the tick range away (where `T1.at - T2` is `i64::MIN`
    /// and T1 is kept), with and without a fraction on T1.
    #[test]
    fn min_of_t1_and_t2_matches_the_comparison_on_every_edge() {
        let half = 1u64 << 63;
        let mut checked = 0;
        for base in [0u64, 1, 1_000, half - 1, half, u64::MAX - 5] {
            for frac in [0u32, 1, 1 << 31, u32::MAX] {
                // Arrival at `base`, next start at base + 100 (+ frac): T1 lies
                // in the future of `now = base`, so T2 is asked for.
                let now = Instant::from_ticks(base);
                let t1 = Schedule {
                    at: now.wrapping_add(100),
                    frac,
                };
                let offsets = [
                    0u64,
                    1,
                    99,
                    100,
                    101,
                    u64::MAX,
                    half - 1,
                    half,
                    half + 1,
                    half + 100,
                    half + 101,
                    half + 99,
                ];
                let mut t2s: Vec<Option<Instant>> =
                    offsets.iter().map(|&o| Some(now.wrapping_add(o))).collect();
                t2s.push(None);
                for t2 in t2s {
                    // One packet queued, arrived at `now`.
                    let mut s = RasCore::new(&crate::tests::tr_profile(), now, 4);
                    s.packets = 1;
                    s.next = t1;
                    let (head_t1, ask) = s.t1_for(now, now);
                    s.set_head_if(head_t1, t2, ask);
                    assert_eq!(s.head_t1(), t1);
                    let want = head_by_comparison(t1, t2);
                    assert_eq!(s.head_schedule(), want, "t1 {t1:?} t2 {t2:?}");
                    assert_eq!(s.next_release(), Some(want.ceil()));
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 6 * 4 * 13);
    }

    /// `set_head_if(t1, t2, ask)` leaves the same state as `set_head(t1, if
    /// ask { t2 } else { None })` on the serial-time edges of T2 against T1,
    /// T2 infinite, and both values of `ask`.
    #[test]
    fn set_head_if_matches_set_head_of_the_filtered_t2() {
        let half = 1u64 << 63;
        let mut checked = 0;
        for base in [0u64, 1, half - 1, half, u64::MAX - 5] {
            for frac in [0u32, 1, u32::MAX] {
                let t1 = Schedule {
                    at: Instant::from_ticks(base),
                    frac,
                };
                let mut t2s: Vec<Option<Instant>> = [0u64, 1, u64::MAX, half - 1, half, half + 1]
                    .iter()
                    .map(|&o| Some(t1.at.wrapping_add(o)))
                    .collect();
                t2s.push(None);
                for t2 in t2s {
                    for ask in [false, true] {
                        let mut a = RasCore::new(&crate::tests::tr_profile(), Instant::ZERO, 4);
                        let mut b = a.clone();
                        a.set_head_if(t1, t2, ask);
                        b.set_head(t1, if ask { t2 } else { None });
                        assert_eq!(
                            (a.t1, a.t2, a.head, a.release),
                            (b.t1, b.t2, b.head, b.release),
                            "t1 {t1:?} t2 {t2:?} ask {ask}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 5 * 3 * 7 * 2);
    }

    /// T1 = max(arrival, next start) is chosen exactly as the comparison
    /// `whole(arrival).not_after(next)` chooses it, on every serial-time edge
    /// (next start on the arrival's tick, one tick either side, half the tick
    /// range away), with and without a fraction on the next start.
    #[test]
    fn t1_matches_the_comparison_on_every_edge() {
        let half = 1u64 << 63;
        let mut checked = 0;
        for base in [0u64, 1, half - 1, half, u64::MAX] {
            let arrival = Instant::from_ticks(base);
            for off in [0u64, 1, u64::MAX, half - 1, half, half + 1, 12_345] {
                for frac in [0u32, 1, u32::MAX] {
                    let next = Schedule {
                        at: arrival.wrapping_add(off),
                        frac,
                    };
                    let a = Schedule::whole(arrival);
                    let want = if a.not_after(next) { next } else { a };
                    let mut s = RasCore::new(&crate::tests::tr_profile(), arrival, 4);
                    s.packets = 1;
                    s.next = next;
                    let (t1, _) = s.t1_for(arrival, arrival);
                    assert_eq!(t1, want, "arrival {base} next {next:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 5 * 7 * 3);
    }
}
