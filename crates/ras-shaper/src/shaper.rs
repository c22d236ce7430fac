//! The srRAS / trRAS shaper with its own queue: a fixed-capacity tail-drop
//! FIFO of packet descriptors emptied at the shaping rate (RFC 2963 sections
//! 2.1, 2.3, 2.5), on a [`RasCore`].

use heapless::Deque;
use netcond_core::Instant;

use crate::ear::Ear;
use crate::profile::RasProfile;
use crate::ras_core::RasCore;
use crate::schedule::Schedule;

/// The length in bytes of a packet descriptor: what the shaper needs to know of
/// the packets it holds. Implemented for `u32` (a bare length); implement it for
/// your own descriptor type.
pub trait PacketLen {
    /// The packet's length in bytes, as the downstream meter counts it.
    fn packet_len(&self) -> u32;
}

impl PacketLen for u32 {
    #[inline]
    fn packet_len(&self) -> u32 {
        *self
    }
}

impl PacketLen for u16 {
    #[inline]
    fn packet_len(&self) -> u32 {
        u32::from(*self)
    }
}

impl<T> PacketLen for (u32, T) {
    #[inline]
    fn packet_len(&self) -> u32 {
        self.0
    }
}

/// One queued packet and its arrival time.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Slot<P> {
    pkt: P,
    arrival: Instant,
}

/// The state of one srRAS or trRAS (the profile says which): a [`RasCore`]
/// with a tail-drop FIFO of at most `N` descriptors and `buffer_bytes` bytes.
///
/// # Release schedule
///
/// The shaper releases packets back to back at the shaping rate, GCRA style:
/// when a packet is released at `T`, the next may leave no sooner than
/// `T + L/R`, where `L` is the length of the packet just released and `R` the
/// shaping rate `max(EAR, F(occupancy))` at that moment (occupancy after the
/// release). A packet reaching the head of the queue gets `T1 = max(arrival,
/// previous release + L/R)`, computed once, when it reaches the head; a packet
/// arriving to an idle shaper leaves at once. Fractions of a tick are carried
/// (2^-32 tick), so the schedule does not drift; the release instant is the
/// first whole tick not before it.
///
/// The schedule follows the release times it computed, not the times at which
/// `dequeue` was called: a caller that polls late gets the backlog it missed at
/// once. Call `dequeue` at [`next_release`](Self::next_release) to see the
/// shaped output exactly.
///
/// The EAR is updated on every arrival, dropped or not (section 2.3 averages the
/// incoming traffic).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ras<P, const N: usize> {
    core: RasCore,
    queue: Deque<Slot<P>, N>,
}

/// srRAS state: a [`Ras`] driven by an [`SrRasProfile`](crate::SrRasProfile).
pub type SrRas<P, const N: usize> = Ras<P, N>;
/// trRAS state: a [`Ras`] driven by a [`TrRasProfile`](crate::TrRasProfile).
pub type TrRas<P, const N: usize> = Ras<P, N>;

impl<P: PacketLen, const N: usize> Ras<P, N> {
    /// An empty shaper whose clock starts at `now`.
    #[must_use]
    pub const fn new(profile: &RasProfile, now: Instant) -> Self {
        Ras {
            core: RasCore::new(profile, now, N),
            queue: Deque::new(),
        }
    }

    /// Offers a packet at `now`. The EAR counts it; it is queued unless the FIFO
    /// already holds `N` packets or the packet would take it past the buffer size
    /// (tail drop), in which case it is handed back.
    #[inline(always)]
    pub fn enqueue(&mut self, p: &RasProfile, now: Instant, pkt: P) -> Result<(), P> {
        if self.push(p, now, pkt)? {
            self.core.schedule_head(now, now);
        }
        Ok(())
    }

    /// The instant at which the head packet may leave (`None` when empty).
    #[inline(always)]
    #[must_use]
    pub fn next_release(&self) -> Option<Instant> {
        self.core.next_release()
    }

    /// Releases the head packet if its release instant is not after `now`.
    #[inline(always)]
    pub fn dequeue(&mut self, p: &RasProfile, now: Instant) -> Option<P> {
        let pkt = self.pop(p, now)?;
        if let Some(h) = self.queue.front() {
            self.core.schedule_head(now, h.arrival);
        }
        Some(pkt)
    }

    /// Counts the arrival in the EAR and queues the packet; `Ok(true)` when it
    /// became the head.
    #[inline(always)]
    pub(crate) fn push(&mut self, p: &RasProfile, now: Instant, pkt: P) -> Result<bool, P> {
        let len = pkt.packet_len();
        let Some(head) = self.core.arrive(p, now, len) else {
            return Err(pkt);
        };
        // The core counts at most `N` packets, so the FIFO has room; were it
        // full, the arrival is taken back and the packet refused.
        match self.queue.push_back(Slot { pkt, arrival: now }) {
            Ok(()) => Ok(head),
            Err(s) => {
                self.core.unarrive(len);
                Err(s.pkt)
            }
        }
    }

    /// Removes the head if it is due, and schedules the gap after it.
    #[inline(always)]
    pub(crate) fn pop(&mut self, p: &RasProfile, now: Instant) -> Option<P> {
        // Not due: the release lies after `now`. With nothing queued,
        // `release` is stale, but either way the answer is `None` (here or
        // from `pop_front`), so emptiness is tested only by `pop_front`.
        if !self.core.due(now) {
            return None;
        }
        let slot = self.queue.pop_front()?;
        self.core.released(p, slot.pkt.packet_len());
        Some(slot.pkt)
    }

    /// T1 of the head (`None` when empty), its length, and whether T2 is to
    /// be asked (T1 still in the future at `now`). The green shapers call it
    /// and then [`set_head_if`](Self::set_head_if), so that the meter is read
    /// without a closure that LLVM might leave out of line.
    #[inline(always)]
    pub(crate) fn t1_for_head(&self, now: Instant) -> Option<(Schedule, u32, bool)> {
        let h = self.queue.front()?;
        let (t1, ask) = self.core.t1_for(h.arrival, now);
        Some((t1, h.pkt.packet_len(), ask))
    }

    /// T1 of a head that arrived at `arrival`, and whether T2 is to be asked
    /// (T1 still in the future at `now`). [`GreenRas`](crate::GreenRas)
    /// calls it directly for a packet that has just become the head of an
    /// empty queue (`arrival = now`, and its length is known), rather than
    /// reading the queue back.
    #[inline(always)]
    pub(crate) fn t1_for(&self, arrival: Instant, now: Instant) -> (Schedule, bool) {
        self.core.t1_for(arrival, now)
    }

    /// Records T1 and T2 (counted as infinite unless `ask`) and sets the
    /// release point min(T1, T2).
    #[inline(always)]
    pub(crate) fn set_head_if(&mut self, t1: Schedule, t2: Option<Instant>, ask: bool) {
        self.core.set_head_if(t1, t2, ask);
    }

    /// The queue-less part of the state: EAR, occupancy, schedule.
    #[inline]
    #[must_use]
    pub fn core(&self) -> &RasCore {
        &self.core
    }

    /// The head packet, if any.
    #[inline]
    #[must_use]
    pub fn head(&self) -> Option<&P> {
        self.queue.front().map(|s| &s.pkt)
    }

    /// The arrival time of the head packet.
    #[inline]
    #[must_use]
    pub fn head_arrival(&self) -> Option<Instant> {
        self.queue.front().map(|s| s.arrival)
    }

    /// The head's rate schedule T1 (meaningless when empty).
    #[inline]
    #[must_use]
    pub fn head_t1(&self) -> Schedule {
        self.core.head_t1()
    }

    /// The head's green schedule T2: `None` for infinity, for a plain shaper, and
    /// when T2 was not evaluated because T1 was already due.
    #[inline]
    #[must_use]
    pub fn head_t2(&self) -> Option<Instant> {
        self.core.head_t2()
    }

    /// The head's release point min(T1, T2), with its fraction of a tick.
    #[inline]
    #[must_use]
    pub fn head_schedule(&self) -> Schedule {
        self.core.head_schedule()
    }

    /// Packets queued.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no packet is queued.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Bytes queued (the buffer occupancy of sections 2.3 and 2.5).
    #[inline]
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.core.bytes()
    }

    /// The EAR estimator.
    #[inline]
    #[must_use]
    pub fn ear(&self) -> &Ear {
        self.core.ear()
    }

    /// The shaping rate the shaper would use now, in the profile's rate units.
    #[inline]
    #[must_use]
    pub fn shaping_rate(&self, p: &RasProfile) -> u64 {
        self.core.shaping_rate(p)
    }

    /// The queued packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.queue.iter().map(|s| &s.pkt)
    }

    /// The queued packets with their arrival times, head first.
    pub fn iter_with_arrival(&self) -> impl Iterator<Item = (&P, Instant)> {
        self.queue.iter().map(|s| (&s.pkt, s.arrival))
    }

    /// The earliest start of the next head: the last release plus its
    /// transmission time.
    #[inline]
    #[must_use]
    pub fn next_start(&self) -> Schedule {
        self.core.next_start()
    }
}
