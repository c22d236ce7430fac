//! The network model every scenario runs on: links with a queue in front,
//! conditioners, queue managers and shapers plugged into them, and one event
//! loop.
//!
//! - [`Packet`]: what a packet type tells the model (its length on the wire,
//!   and for the per-class and per-color statistics its class and
//!   [`Color`]). Scenarios carry their own packet types (a TCP segment, a PCN
//!   packet with its mark, an RBCC packet with its header).
//! - [`Link`]: a queue, a transmitter of `rate_bps` serializing one packet at a
//!   time, and a propagation delay. The queue is a pipe (an unlimited FIFO
//!   reduced to departure times, [`VirtualFifo`]: no event of its own) or a
//!   [`Qdisc`]: a [`DropTail`] FIFO (with a [`Buffer`] limit behind the packet
//!   on the wire: [`Link::fifo`]) or one built from the pieces below.
//! - How the workspace's state machines plug in, one trait per kind:
//!   - [`Conditioner`]: runs on a packet and may change or drop it (a PCN
//!     marker, an RBCC interface's header update, a trTCM). At a network's
//!     link inputs (one object for the whole network, told the link, so it
//!     can see the other links of its node); at a FIFO's input through
//!     [`AtInput`]; or on the packets a shaper releases ([`ShaperQueue`]).
//!   - [`Aqm`]: decides at a FIFO's input and sees the queue (RED, RIO, AECN's
//!     mark-front, a policer that counts buffer space): [`AqmQueue`].
//!   - [`Shaper`]: holds packets and releases them at times it chooses
//!     (srRAS/trRAS, G-trRAS): [`ShaperQueue`].
//!
//!   [`DropTail`], [`AqmQueue`] and [`ShaperQueue`] are the only [`Qdisc`]s;
//!   their drops and marks are [`QdiscStats`], a link's traffic and all its
//!   drops [`LinkStats`].
//! - [`Network`]: the links and the conditioner at their inputs. It never owns
//!   the event queue: it schedules its own events (end of transmission, a
//!   shaper's wake-up) through a caller-given wrapper.
//! - [`Sim`] and [`Model`]: the one event loop. A scenario's sources, sinks,
//!   signals and samples are a [`Model`] with its own event type; [`Sim::run`]
//!   hands the links' events to the network and the scenario's to the model.
//!   Every scenario runs on it: the PCN and RBCC scenarios directly, the TCP
//!   scenarios through [`crate::tcp::net::Network`], whose hosts are a model.
//!
//! Every packet a link carries is handed back to the model once, by
//! [`Model::on_deliver`], with the time its last bit reaches the far end,
//! whatever the link's kind: as soon as the link is done with it. A pipe is
//! done with a packet when it is sent (its departure is computed at once: the
//! delivery comes from [`Sim::send`]); a FIFO or discipline link when its
//! transmission ends (from [`Sim::run`], after the link started the next
//! packet). A model acts on the delivery at once when it needs no clock at the
//! far end (an egress that reads the packet's time), or schedules its own
//! event at that time (the next hop of a route, a host).

use crate::engine::{serialization_ns, EventQueue, Time};
use netcond::base::Color;
use std::collections::VecDeque;

/// A packet as the network model sees it.
pub trait Packet: Copy {
    /// Bytes on the wire.
    fn wire_len(&self) -> u32;
    /// The packet's class for [`LinkStats::class_color_bytes`] (0 unless told).
    #[inline]
    fn class(&self) -> u8 {
        0
    }
    /// The packet's color for [`LinkStats::class_color_bytes`] (green unless told).
    #[inline]
    fn color(&self) -> Color {
        Color::Green
    }
}

/// What runs on a packet as it enters link `link` at `now`: a marker, a rate
/// stamper; `false` drops the packet (a policer).
pub trait Conditioner<P> {
    /// Condition `pkt` entering `link`.
    fn condition(&mut self, now: Time, link: u32, pkt: &mut P) -> bool;
}

/// No conditioner: every packet passes unchanged.
impl<P> Conditioner<P> for () {
    #[inline]
    fn condition(&mut self, _now: Time, _link: u32, _pkt: &mut P) -> bool {
        true
    }
}

/// How much a port's buffer holds, not counting the packet on the wire
/// ([`DropTail::buffer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// No limit.
    Unlimited,
    /// At most this many waiting bytes.
    Bytes(u64),
    /// At most this many waiting packets.
    Packets(u64),
}

/// A FIFO with an unlimited buffer reduced to its departure times: a packet
/// arriving at `now` leaves at `max(now, previous departure) + serialization`.
/// Exact for an unlimited FIFO when packets are offered in arrival order, and
/// needs no event of its own: the caller schedules the arrival at the next hop.
#[derive(Clone, Copy, Debug)]
pub struct VirtualFifo {
    /// Link rate in bits per second (0: infinitely fast).
    pub rate_bps: u64,
    busy_until: Time,
    /// Bytes sent.
    pub tx_bytes: u64,
}

impl VirtualFifo {
    /// An idle link.
    #[must_use]
    pub fn new(rate_bps: u64) -> VirtualFifo {
        VirtualFifo {
            rate_bps,
            busy_until: 0,
            tx_bytes: 0,
        }
    }

    /// Departure time of a packet of `len` bytes arriving at `now`.
    pub fn depart(&mut self, now: Time, len: u32) -> Time {
        let start = self.busy_until.max(now);
        self.busy_until = start + serialization_ns(len, self.rate_bps);
        self.tx_bytes += u64::from(len);
        self.busy_until
    }

    /// Queueing delay a packet arriving at `now` would see before its transmission.
    #[must_use]
    pub fn backlog(&self, now: Time) -> Time {
        self.busy_until.saturating_sub(now)
    }
}

/// What a queueing discipline hands the link.
#[derive(Clone, Copy, Debug)]
pub enum Deq<P> {
    /// Transmit this packet now.
    Packet(P),
    /// Nothing may leave before this time (a shaper's next release).
    Wait(Time),
    /// Empty.
    Empty,
}

/// Counters every queueing discipline keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QdiscStats {
    /// Packets offered.
    pub arrived: u64,
    /// Packets dropped by an early (probabilistic) decision.
    pub early_drops: u64,
    /// Packets dropped because the buffer (or a hard threshold) was full.
    pub forced_drops: u64,
    /// Packets dropped by a policer.
    pub policer_drops: u64,
    /// Packets ECN-marked.
    pub marks: u64,
}

impl QdiscStats {
    /// All drops.
    #[must_use]
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.policer_drops
    }
}

/// A queueing discipline in front of a link.
pub trait Qdisc<P>: Send {
    /// Offer a packet at `now`; `Err` hands it back when it is dropped (the
    /// discipline counts the drop in its stats).
    fn enqueue(&mut self, now: Time, pkt: P) -> Result<(), P>;
    /// Take the next packet to transmit at `now`.
    fn dequeue(&mut self, now: Time) -> Deq<P>;
    /// The link finished transmitting `pkt` (its last bit left at `now`).
    fn tx_done(&mut self, _now: Time, _pkt: &P) {}
    /// Packets waiting (not counting the one on the wire).
    fn waiting(&self) -> usize;
    /// Counters.
    fn stats(&self) -> &QdiscStats;
    /// Zero the counters (end of warm-up).
    fn reset_stats(&mut self);
}

/// A tail-drop FIFO of at most `cap_pkts` packets and `cap_bytes` bytes
/// waiting. As a link's [`Qdisc`] the limits count the packets behind the one
/// on the wire: a packet offered while nothing waits and nothing is on the
/// wire is taken whatever its size (it goes on the wire at once).
#[derive(Debug)]
pub struct DropTail<P> {
    q: VecDeque<P>,
    bytes: u64,
    cap_pkts: usize,
    cap_bytes: u64,
    on_wire: bool,
    stats: QdiscStats,
}

impl<P: Packet> DropTail<P> {
    fn with_caps(cap_pkts: usize, cap_bytes: u64) -> DropTail<P> {
        DropTail {
            q: VecDeque::new(),
            bytes: 0,
            cap_pkts,
            cap_bytes,
            on_wire: false,
            stats: QdiscStats::default(),
        }
    }

    /// A port's buffer: a FIFO holding `buffer` behind the packet on the wire.
    #[must_use]
    pub fn buffer(buffer: Buffer) -> DropTail<P> {
        match buffer {
            Buffer::Unlimited => DropTail::with_caps(usize::MAX, u64::MAX),
            Buffer::Bytes(b) => DropTail::bytes(b),
            Buffer::Packets(n) => DropTail::packets(usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }

    /// A FIFO limited to `cap_pkts` packets.
    #[must_use]
    pub fn packets(cap_pkts: usize) -> DropTail<P> {
        DropTail::with_caps(cap_pkts, u64::MAX)
    }

    /// A FIFO limited to `cap_bytes` bytes.
    #[must_use]
    pub fn bytes(cap_bytes: u64) -> DropTail<P> {
        DropTail::with_caps(usize::MAX, cap_bytes)
    }

    /// Packets queued.
    #[must_use]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// True when empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Bytes queued.
    #[must_use]
    pub fn queued_bytes(&self) -> u64 {
        self.bytes
    }

    /// Append without counting (for disciplines built on this FIFO).
    /// Returns the packet back if it does not fit.
    pub fn push(&mut self, pkt: P) -> Result<(), P> {
        let len = u64::from(pkt.wire_len());
        if self.q.len() >= self.cap_pkts || self.bytes + len > self.cap_bytes {
            return Err(pkt);
        }
        self.bytes += len;
        self.q.push_back(pkt);
        Ok(())
    }

    /// Remove the head without counting.
    pub fn pop(&mut self) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= u64::from(p.wire_len());
        Some(p)
    }

    /// The queued packets, head first.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut P> {
        self.q.iter_mut()
    }
}

impl<P: Packet + Send> Qdisc<P> for DropTail<P> {
    fn enqueue(&mut self, _now: Time, pkt: P) -> Result<(), P> {
        self.stats.arrived += 1;
        if !self.on_wire && self.q.is_empty() {
            // The link is idle: the packet goes on the wire, whatever the limits.
            self.bytes += u64::from(pkt.wire_len());
            self.q.push_back(pkt);
            return Ok(());
        }
        self.push(pkt).inspect_err(|_| self.stats.forced_drops += 1)
    }
    fn dequeue(&mut self, _now: Time) -> Deq<P> {
        match self.pop() {
            Some(p) => {
                self.on_wire = true;
                Deq::Packet(p)
            }
            None => Deq::Empty,
        }
    }
    fn tx_done(&mut self, _now: Time, _pkt: &P) {
        self.on_wire = false;
    }
    fn waiting(&self) -> usize {
        self.q.len()
    }
    fn stats(&self) -> &QdiscStats {
        &self.stats
    }
    fn reset_stats(&mut self) {
        self.stats = QdiscStats::default();
    }
}

/// What an active queue manager, policer or marker in front of a FIFO decides
/// for an arriving packet ([`Aqm::on_arrival`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue the packet.
    Enqueue,
    /// Queue the packet, counted as ECN-marked (the manager set its mark).
    Mark,
    /// Queue the packet, then let the manager mark one queued packet
    /// ([`Aqm::mark_queued`], e.g. AECN's mark-front), counted as ECN-marked
    /// if it finds one.
    MarkQueued,
    /// Drop by an early (probabilistic) decision.
    DropEarly,
    /// Drop because a buffer or a hard threshold is full.
    DropForced,
    /// Drop by a policer.
    PolicerDrop,
}

/// A conditioner that must see the queue it guards (RED, RIO, a policer that
/// accounts for buffer space): plugged into an [`AqmQueue`], which owns the
/// FIFO and the counters and asks the manager at each arrival and departure.
pub trait Aqm<P>: Send {
    /// Decide on `pkt` arriving at `now` in front of `fifo` (which may be
    /// changed, e.g. ECN-marked).
    fn on_arrival(&mut self, now: Time, fifo: &DropTail<P>, pkt: &mut P) -> Verdict;
    /// `pkt` was queued.
    fn on_enqueued(&mut self, _pkt: &P) {}
    /// After [`Verdict::MarkQueued`] and the arrival's queueing: mark one
    /// packet of `fifo` (head first); false if none qualifies.
    fn mark_queued(&mut self, _fifo: &mut DropTail<P>) -> bool {
        false
    }
    /// The link asked for a packet at `now`: `pkt` left `fifo` (`None`: it
    /// was empty); `fifo` is as it is after.
    fn on_dequeue(&mut self, _now: Time, _fifo: &DropTail<P>, _pkt: Option<&P>) {}
    /// The link finished transmitting `pkt` (its last bit left at `now`).
    fn tx_done(&mut self, _now: Time, _pkt: &P) {}
}

/// A [`Qdisc`] built from a FIFO and an [`Aqm`] deciding at its input.
pub struct AqmQueue<P, A> {
    fifo: DropTail<P>,
    aqm: A,
    stats: QdiscStats,
}

impl<P: Packet, A: Aqm<P>> AqmQueue<P, A> {
    /// `aqm` in front of `fifo`.
    #[must_use]
    pub fn new(fifo: DropTail<P>, aqm: A) -> AqmQueue<P, A> {
        AqmQueue {
            fifo,
            aqm,
            stats: QdiscStats::default(),
        }
    }
}

impl<P: Packet + Send, A: Aqm<P>> Qdisc<P> for AqmQueue<P, A> {
    fn enqueue(&mut self, now: Time, mut pkt: P) -> Result<(), P> {
        self.stats.arrived += 1;
        let verdict = self.aqm.on_arrival(now, &self.fifo, &mut pkt);
        match verdict {
            Verdict::Enqueue | Verdict::MarkQueued => {}
            Verdict::Mark => self.stats.marks += 1,
            Verdict::DropEarly => {
                self.stats.early_drops += 1;
                return Err(pkt);
            }
            Verdict::DropForced => {
                self.stats.forced_drops += 1;
                return Err(pkt);
            }
            Verdict::PolicerDrop => {
                self.stats.policer_drops += 1;
                return Err(pkt);
            }
        }
        match self.fifo.push(pkt) {
            Ok(()) => {
                self.aqm.on_enqueued(&pkt);
                if verdict == Verdict::MarkQueued && self.aqm.mark_queued(&mut self.fifo) {
                    self.stats.marks += 1;
                }
                Ok(())
            }
            Err(p) => {
                self.stats.forced_drops += 1;
                Err(p)
            }
        }
    }
    fn dequeue(&mut self, now: Time) -> Deq<P> {
        let p = self.fifo.pop();
        self.aqm.on_dequeue(now, &self.fifo, p.as_ref());
        p.map_or(Deq::Empty, Deq::Packet)
    }
    fn tx_done(&mut self, now: Time, pkt: &P) {
        self.aqm.tx_done(now, pkt);
    }
    fn waiting(&self) -> usize {
        self.fifo.len()
    }
    fn stats(&self) -> &QdiscStats {
        &self.stats
    }
    fn reset_stats(&mut self) {
        self.stats = QdiscStats::default();
    }
}

/// A [`Conditioner`] run at a FIFO's input, as an [`Aqm`] of an [`AqmQueue`]:
/// a marker or policer that needs no view of the queue (told link 0: a queue
/// does not know its link); `false` is a policer drop.
pub struct AtInput<C>(pub C);

impl<P: Packet, C: Conditioner<P> + Send> Aqm<P> for AtInput<C> {
    #[inline]
    fn on_arrival(&mut self, now: Time, _fifo: &DropTail<P>, pkt: &mut P) -> Verdict {
        if self.0.condition(now, 0, pkt) {
            Verdict::Enqueue
        } else {
            Verdict::PolicerDrop
        }
    }
}

/// A shaper: holds packets and releases each no earlier than it allows (an
/// srRAS or trRAS, a G-trRAS that colors as it releases). Plugged into a link
/// through a [`ShaperQueue`].
pub trait Shaper<P>: Send {
    /// Offer `pkt` at `now`; `Err` hands it back when there is no room.
    fn enqueue(&mut self, now: Time, pkt: P) -> Result<(), P>;
    /// When the head may leave; `None` when empty.
    fn next_release(&self) -> Option<Time>;
    /// Release the head at `now` (not before [`next_release`](Self::next_release));
    /// `None` if it may not leave after all.
    fn dequeue(&mut self, now: Time) -> Option<P>;
    /// Packets held.
    fn held(&self) -> usize;
}

/// A [`Qdisc`] built from a [`Shaper`] and a [`Conditioner`] run on each
/// packet it releases (a marker after the shaper; `()` for none; told link 0,
/// `false` drops the packet as a policer).
pub struct ShaperQueue<S, C = ()> {
    shaper: S,
    out: C,
    stats: QdiscStats,
}

impl<S, C> ShaperQueue<S, C> {
    /// `shaper`, then `out` on the packets it releases.
    #[must_use]
    pub fn new(shaper: S, out: C) -> ShaperQueue<S, C> {
        ShaperQueue {
            shaper,
            out,
            stats: QdiscStats::default(),
        }
    }
}

impl<P: Packet + Send, S: Shaper<P>, C: Conditioner<P> + Send> Qdisc<P> for ShaperQueue<S, C> {
    fn enqueue(&mut self, now: Time, pkt: P) -> Result<(), P> {
        self.stats.arrived += 1;
        let r = self.shaper.enqueue(now, pkt);
        r.inspect_err(|_| self.stats.forced_drops += 1)
    }
    fn dequeue(&mut self, now: Time) -> Deq<P> {
        loop {
            let t = match self.shaper.next_release() {
                None => return Deq::Empty,
                Some(t) if t > now => return Deq::Wait(t),
                Some(t) => t,
            };
            // Not released after all: ask again a tick later, never stall.
            let Some(mut p) = self.shaper.dequeue(now) else {
                return Deq::Wait(t.max(now + 1));
            };
            if self.out.condition(now, 0, &mut p) {
                return Deq::Packet(p);
            }
            self.stats.policer_drops += 1;
        }
    }
    fn waiting(&self) -> usize {
        self.shaper.held()
    }
    fn stats(&self) -> &QdiscStats {
        &self.stats
    }
    fn reset_stats(&mut self) {
        self.stats = QdiscStats::default();
    }
}

/// Packet classes a link counts separately ([`LinkStats::class_color_bytes`]);
/// higher classes are counted with the last one.
pub const CLASSES: usize = 10;

/// What a link transmitted (since the last stats reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Bytes whose transmission started.
    pub tx_bytes: u64,
    /// Bytes whose transmission started, per packet class and color (green,
    /// yellow, red).
    pub class_color_bytes: [[u64; 3]; CLASSES],
    /// Bytes whose transmission ended (not counted on a pipe).
    pub done_bytes: u64,
    /// Packets whose transmission ended (not counted on a pipe).
    pub done_packets: u64,
    /// Packets the link did not take: dropped by the network's conditioner
    /// or by the link's queue (a [`Qdisc`] also counts its own drops, by
    /// cause, in [`QdiscStats`]).
    pub drops: u64,
}

impl LinkStats {
    #[inline]
    fn count<P: Packet>(&mut self, pkt: &P) {
        let len = u64::from(pkt.wire_len());
        self.tx_bytes += len;
        let k = usize::from(pkt.class()).min(CLASSES - 1);
        self.class_color_bytes[k][pkt.color().index()] += len;
    }
}

/// The queue in front of a link's transmitter.
enum Queue<P> {
    /// An unlimited FIFO reduced to departure times.
    Pipe(VirtualFifo),
    /// A queueing discipline.
    Qdisc(Box<dyn Qdisc<P>>),
}

/// A link: a queue, a transmitter of `rate_bps` and a propagation delay.
pub struct Link<P> {
    queue: Queue<P>,
    /// Link rate in bits per second (0: infinitely fast).
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: Time,
    in_service: Option<P>,
    wake_at: Option<Time>,
    /// What it transmitted and dropped (since the last stats reset).
    pub stats: LinkStats,
}

impl<P: Packet> Link<P> {
    fn with(queue: Queue<P>, rate_bps: u64, delay: Time) -> Link<P> {
        Link {
            queue,
            rate_bps,
            delay,
            in_service: None,
            wake_at: None,
            stats: LinkStats::default(),
        }
    }

    /// An uncongested link: an unlimited FIFO that never drops, so each
    /// packet's departure is computed when it arrives (no event of its own).
    #[must_use]
    pub fn pipe(rate_bps: u64, delay: Time) -> Link<P> {
        Link::with(Queue::Pipe(VirtualFifo::new(rate_bps)), rate_bps, delay)
    }

    /// A FIFO link whose buffer holds `buffer` behind the packet on the wire:
    /// a [`DropTail`] discipline ([`DropTail::buffer`]).
    #[must_use]
    pub fn fifo(rate_bps: u64, delay: Time, buffer: Buffer) -> Link<P>
    where
        P: Send + 'static,
    {
        Link::qdisc(rate_bps, delay, Box::new(DropTail::buffer(buffer)))
    }

    /// A link fed by a queueing discipline.
    #[must_use]
    pub fn qdisc(rate_bps: u64, delay: Time, qdisc: Box<dyn Qdisc<P>>) -> Link<P> {
        Link::with(Queue::Qdisc(qdisc), rate_bps, delay)
    }

    /// The discipline's counters (zero for a pipe).
    #[must_use]
    pub fn qdisc_stats(&self) -> QdiscStats {
        match &self.queue {
            Queue::Qdisc(d) => *d.stats(),
            _ => QdiscStats::default(),
        }
    }

    /// Packets in the link, including the one on the wire (a pipe: 0).
    #[must_use]
    pub fn len_packets(&self) -> usize {
        let waiting = match &self.queue {
            Queue::Qdisc(d) => d.waiting(),
            Queue::Pipe(_) => 0,
        };
        waiting + usize::from(self.in_service.is_some())
    }

    /// Zero the link and discipline counters.
    pub fn reset_stats(&mut self) {
        self.stats = LinkStats::default();
        if let Queue::Qdisc(d) = &mut self.queue {
            d.reset_stats();
        }
    }

    /// Starts the next transmission if there is a packet to send, scheduling
    /// its end.
    #[inline]
    fn try_send<E>(&mut self, id: u32, q: &mut EventQueue<E>, wrap: fn(NetEv) -> E) {
        let now = q.now();
        debug_assert!(self.in_service.is_none());
        let p = match &mut self.queue {
            Queue::Pipe(_) => return,
            Queue::Qdisc(d) => match d.dequeue(now) {
                Deq::Packet(p) => p,
                Deq::Wait(t) => {
                    if self.wake_at.map_or(true, |w| t < w) {
                        self.wake_at = Some(t);
                        q.schedule(t, wrap(NetEv::Wake(id)));
                    }
                    return;
                }
                Deq::Empty => return,
            },
        };
        self.in_service = Some(p);
        self.stats.count(&p);
        let done = now + serialization_ns(p.wire_len(), self.rate_bps);
        q.schedule(done, wrap(NetEv::TxDone(id)));
    }

    /// A packet arrives at the clock of `q` (no conditioner: see
    /// [`Network::send`]). A pipe is done with it at once: returns it with the
    /// time it reaches the far end. A FIFO or discipline queues it (or drops
    /// it) and returns nothing: it hands the packet back when its
    /// transmission ends ([`on_event`](Self::on_event)). `id` is this link's
    /// index, for the events it schedules on `q` wrapped by `wrap`.
    #[inline(always)]
    pub fn send<E>(
        &mut self,
        id: u32,
        q: &mut EventQueue<E>,
        wrap: fn(NetEv) -> E,
        pkt: P,
    ) -> Option<(Time, P)> {
        let now = q.now();
        match &mut self.queue {
            Queue::Pipe(fifo) => {
                self.stats.count(&pkt);
                return Some((fifo.depart(now, pkt.wire_len()) + self.delay, pkt));
            }
            Queue::Qdisc(d) => {
                if d.enqueue(now, pkt).is_err() {
                    self.stats.drops += 1;
                    return None;
                }
            }
        }
        if self.in_service.is_none() {
            self.try_send(id, q, wrap);
        }
        None
    }

    /// Handles one of this link's events (`ev` names this link) at the clock
    /// of `q`. At the end of a transmission the link starts the next one,
    /// then returns the packet that finished with the time it reaches the far
    /// end.
    #[inline]
    pub fn on_event<E>(
        &mut self,
        q: &mut EventQueue<E>,
        wrap: fn(NetEv) -> E,
        ev: NetEv,
    ) -> Option<(Time, P)> {
        let now = q.now();
        match ev {
            NetEv::TxDone(id) => {
                let finished = self.in_service.take().map(|p| {
                    self.stats.done_bytes += u64::from(p.wire_len());
                    self.stats.done_packets += 1;
                    if let Queue::Qdisc(d) = &mut self.queue {
                        d.tx_done(now, &p);
                    }
                    (now + self.delay, p)
                });
                self.try_send(id, q, wrap);
                finished
            }
            NetEv::Wake(id) => {
                if self.wake_at == Some(now) {
                    self.wake_at = None;
                    if self.in_service.is_none() {
                        self.try_send(id, q, wrap);
                    }
                }
                None
            }
        }
    }
}

/// The network's own events, wrapped in the scenario's event type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEv {
    /// The transmission on this link ends.
    TxDone(u32),
    /// This link's discipline may release a packet.
    Wake(u32),
}

/// Links and the conditioner at their inputs.
pub struct Network<P, C = ()> {
    /// Links, by index.
    pub links: Vec<Link<P>>,
    /// The conditioner run on every packet entering a link.
    pub cond: C,
}

impl<P: Packet, C: Conditioner<P>> Network<P, C> {
    /// A network without links.
    pub fn new(cond: C) -> Network<P, C> {
        Network {
            links: Vec::new(),
            cond,
        }
    }

    /// Adds a link; returns its index.
    pub fn add(&mut self, link: Link<P>) -> u32 {
        self.links.push(link);
        (self.links.len() - 1) as u32
    }

    /// `pkt` enters `link` at the clock of `q`: the conditioner runs, then the
    /// link takes it (or drops it). Returns the packet with the time it
    /// reaches the far end when the link is done with it at once (a pipe),
    /// nothing otherwise ([`Link::send`]). The link's events are scheduled on
    /// `q` wrapped by `wrap`.
    #[inline(always)]
    pub fn send<E>(
        &mut self,
        q: &mut EventQueue<E>,
        wrap: fn(NetEv) -> E,
        link: u32,
        mut pkt: P,
    ) -> Option<(Time, P)> {
        let l = &mut self.links[link as usize];
        if !self.cond.condition(q.now(), link, &mut pkt) {
            l.stats.drops += 1;
            return None;
        }
        l.send(link, q, wrap, pkt)
    }

    /// Handles one of the network's events at the clock of `q`; returns the
    /// packet whose transmission ended, if one did, with the time it reaches
    /// the far end ([`Link::on_event`]).
    #[inline]
    pub fn on_event<E>(
        &mut self,
        q: &mut EventQueue<E>,
        wrap: fn(NetEv) -> E,
        ev: NetEv,
    ) -> Option<(Time, P)> {
        let (NetEv::TxDone(id) | NetEv::Wake(id)) = ev;
        self.links[id as usize].on_event(q, wrap, ev)
    }
}

/// An event of a run on the network model: a link's, or the scenario's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<E> {
    /// A link's event.
    Net(NetEv),
    /// The scenario's (a source's next packet, a signal, a sample).
    Own(E),
}

/// A scenario's side of a run on the network model: its sources, sinks,
/// signals and samples. [`Sim::run`] is the one event loop: it hands the
/// links' events to the network and the scenario's to
/// [`on_event`](Self::on_event); every packet a link carries comes back
/// through [`on_deliver`](Self::on_deliver), whatever the link's kind.
pub trait Model<P, C> {
    /// The scenario's own events.
    type Ev;
    /// Handles one of the scenario's events at `now`.
    fn on_event(&mut self, sim: &mut Sim<P, C, Self::Ev>, now: Time, ev: Self::Ev);
    /// `pkt` crossed `link`: its last bit reaches the far end at `at`. Called
    /// once for each packet the link carries, when the link is done with it:
    /// a pipe at once, from [`Sim::send`] (`at` may be later than now); a
    /// FIFO or discipline link when its transmission ends, from [`Sim::run`]
    /// (`at` is now plus the propagation delay).
    fn on_deliver(&mut self, sim: &mut Sim<P, C, Self::Ev>, link: u32, at: Time, pkt: P);
}

/// A run on the network model: the network and the one event queue.
pub struct Sim<P, C, E> {
    /// The links and their conditioner.
    pub net: Network<P, C>,
    /// The event queue (the clock).
    pub q: EventQueue<Event<E>>,
}

impl<P: Packet, C: Conditioner<P>, E> Sim<P, C, E> {
    /// `net` at time zero, no event scheduled.
    pub fn new(net: Network<P, C>) -> Sim<P, C, E> {
        Sim {
            net,
            q: EventQueue::new(),
        }
    }

    /// Schedules one of the scenario's events.
    #[inline]
    pub fn schedule(&mut self, at: Time, ev: E) {
        self.q.schedule(at, Event::Own(ev));
    }

    /// `pkt` enters `link` now ([`Network::send`]); a link that is done with
    /// it at once (a pipe) hands it to `model`'s
    /// [`on_deliver`](Model::on_deliver) before this returns.
    #[inline]
    pub fn send<M: Model<P, C, Ev = E>>(&mut self, model: &mut M, link: u32, pkt: P) {
        if let Some((at, p)) = self.net.send(&mut self.q, Event::Net, link, pkt) {
            model.on_deliver(self, link, at, p);
        }
    }

    /// Events processed so far.
    #[must_use]
    pub fn events(&self) -> u64 {
        self.q.events()
    }

    /// Runs `model` until `until` (events at exactly `until` included).
    #[inline]
    pub fn run<M: Model<P, C, Ev = E>>(&mut self, model: &mut M, until: Time) {
        while let Some((now, ev)) = self.q.pop_until(until) {
            match ev {
                Event::Own(e) => model.on_event(self, now, e),
                Event::Net(e) => {
                    let (NetEv::TxDone(link) | NetEv::Wake(link)) = e;
                    if let Some((at, p)) = self.net.on_event(&mut self.q, Event::Net, e) {
                        model.on_deliver(self, link, at, p);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
