//! A small event-driven network for TCP experiments: bulk TCP flows over chains of
//! links, each link fed by a queueing discipline ([`Qdisc`]).
//!
//! A flow's data segments follow its route (a list of link indices); each link
//! serializes one packet at a time at its rate and delivers it after its
//! propagation delay. The ACK path is modelled as a pure delay (`ack_delay`):
//! in the seed experiments the reverse direction carries only ACKs and is never
//! congested, so queueing there would change nothing but the event count.
//!
//! Conditioners (markers, shapers, RED-family queues, policers) are [`Qdisc`]s
//! that wrap the workspace crates; the network only moves packets and runs the
//! TCP state machines and their timers.

use super::{Ack, Segment, TcpConfig, TcpReceiver, TcpSender};
use crate::engine::{serialization_ns, EventQueue, Time};
use crate::net::VirtualFifo;
use netcond::base::Color;

/// A data packet inside the network: the TCP segment plus per-hop tags.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// The TCP segment (its `ce` bit is the ECN field).
    pub seg: Segment,
    /// Color set by a marker; green until marked.
    pub color: Color,
    /// The flow's class (e.g. an AECN RTT class), copied from the flow.
    pub class: u8,
    /// Position along the route.
    pub hop: u8,
}

/// What a queueing discipline hands the link.
#[derive(Clone, Copy, Debug)]
pub enum Deq {
    /// Transmit this packet now.
    Packet(Packet),
    /// Nothing may leave before this time (a shaper's next release).
    Wait(Time),
    /// Empty.
    Empty,
}

/// Counters every queueing discipline keeps (bytes and packets are data packets).
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
    /// Bytes sent per color (green, yellow, red), for markers.
    pub color_bytes: [u64; 3],
    /// Bytes sent per color by retransmissions excluded (goodput-like), for markers.
    pub color_new_bytes: [u64; 3],
}

impl QdiscStats {
    /// All drops.
    #[must_use]
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.policer_drops
    }
}

/// A queueing discipline in front of a link.
pub trait Qdisc: Send {
    /// Offer a packet at `now`; `Err` hands it back when it is dropped (the
    /// discipline counts the drop in its stats).
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet>;
    /// Take the next packet to transmit at `now`.
    fn dequeue(&mut self, now: Time) -> Deq;
    /// The link finished transmitting `pkt` (its last bit left at `now`).
    fn tx_done(&mut self, _now: Time, _pkt: &Packet) {}
    /// Counters.
    fn stats(&self) -> &QdiscStats;
    /// Zero the counters (end of warm-up).
    fn reset_stats(&mut self);
}

/// A tail-drop FIFO of at most `cap_pkts` packets and `cap_bytes` bytes.
#[derive(Debug, Default)]
pub struct DropTail {
    q: std::collections::VecDeque<Packet>,
    bytes: u64,
    cap_pkts: usize,
    cap_bytes: u64,
    stats: QdiscStats,
}

impl DropTail {
    /// A FIFO limited to `cap_pkts` packets.
    #[must_use]
    pub fn packets(cap_pkts: usize) -> DropTail {
        DropTail {
            cap_pkts,
            cap_bytes: u64::MAX,
            ..DropTail::default()
        }
    }

    /// A FIFO limited to `cap_bytes` bytes.
    #[must_use]
    pub fn bytes(cap_bytes: u64) -> DropTail {
        DropTail {
            cap_pkts: usize::MAX,
            cap_bytes,
            ..DropTail::default()
        }
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
    pub fn push(&mut self, pkt: Packet) -> Result<(), Packet> {
        let len = u64::from(pkt.seg.wire_len);
        if self.q.len() >= self.cap_pkts || self.bytes + len > self.cap_bytes {
            return Err(pkt);
        }
        self.bytes += len;
        self.q.push_back(pkt);
        Ok(())
    }

    /// Remove the head without counting.
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= u64::from(p.seg.wire_len);
        Some(p)
    }

    /// The queued packets, head first.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Packet> {
        self.q.iter_mut()
    }
}

impl Qdisc for DropTail {
    fn enqueue(&mut self, _now: Time, pkt: Packet) -> Result<(), Packet> {
        self.stats.arrived += 1;
        self.push(pkt).inspect_err(|_| self.stats.forced_drops += 1)
    }
    fn dequeue(&mut self, _now: Time) -> Deq {
        match self.pop() {
            Some(p) => Deq::Packet(p),
            None => Deq::Empty,
        }
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
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Bytes transmitted per packet class and color (green, yellow, red).
    pub class_color_bytes: [[u64; 3]; CLASSES],
}

impl LinkStats {
    fn count(&mut self, pkt: &Packet) {
        let len = u64::from(pkt.seg.wire_len);
        self.tx_bytes += len;
        let k = usize::from(pkt.class).min(CLASSES - 1);
        self.class_color_bytes[k][pkt.color.index()] += len;
    }
}

/// A link: a discipline, a transmitter of `rate_bps`, and a propagation delay.
pub struct Link {
    /// Its queueing discipline.
    pub qdisc: Box<dyn Qdisc>,
    rate_bps: u64,
    delay: Time,
    busy: bool,
    in_service: Option<Packet>,
    wake_at: Option<Time>,
    /// An unlimited FIFO: no discipline, departures computed at arrival
    /// (the PCN scenarios' [`VirtualFifo`]).
    pipe: Option<VirtualFifo>,
    /// What it transmitted (since the last stats reset).
    pub stats: LinkStats,
}

/// A bulk TCP flow: its sender, its receiver, its route and ACK delay.
pub struct Flow {
    /// The sender.
    pub sender: TcpSender,
    /// The receiver.
    pub receiver: TcpReceiver,
    route: Vec<u32>,
    ack_delay: Time,
    class: u8,
    start: Time,
    snd_timer: Option<Time>,
    rcv_timer: Option<Time>,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(u32),
    Arrive(u32, Packet),
    TxDone(u32),
    Wake(u32),
    Deliver(Packet),
    Ack(Ack),
    SndTimer(u32),
    RcvTimer(u32),
}

/// The network and its event loop.
pub struct Network {
    /// Links, by index.
    pub links: Vec<Link>,
    /// Flows, by index (the flow id of their segments).
    pub flows: Vec<Flow>,
    q: EventQueue<Ev>,
    out: Vec<Segment>,
}

impl Default for Network {
    fn default() -> Self {
        Self::new()
    }
}

impl Network {
    /// An empty network at time zero.
    #[must_use]
    pub fn new() -> Network {
        Network {
            links: Vec::new(),
            flows: Vec::new(),
            q: EventQueue::new(),
            out: Vec::with_capacity(64),
        }
    }

    /// Add a link; returns its index.
    pub fn add_link(&mut self, rate_bps: u64, delay: Time, qdisc: Box<dyn Qdisc>) -> u32 {
        self.links.push(Link {
            qdisc,
            rate_bps,
            delay,
            busy: false,
            in_service: None,
            wake_at: None,
            pipe: None,
            stats: LinkStats::default(),
        });
        (self.links.len() - 1) as u32
    }

    /// Add an uncongested link: an unlimited FIFO that never drops, so each
    /// packet's departure is computed when it arrives (one event per hop instead
    /// of two; the same timing as a [`DropTail`] that never fills).
    pub fn add_pipe_link(&mut self, rate_bps: u64, delay: Time) -> u32 {
        let id = self.add_link(rate_bps, delay, Box::new(DropTail::packets(0)));
        self.links[id as usize].pipe = Some(VirtualFifo::new(rate_bps));
        id
    }

    /// Add a bulk flow over `route`, whose ACKs take `ack_delay` back, starting at
    /// `start`; returns its index.
    pub fn add_flow(
        &mut self,
        cfg: TcpConfig,
        route: &[u32],
        ack_delay: Time,
        class: u8,
        start: Time,
    ) -> u32 {
        let id = self.flows.len() as u32;
        self.flows.push(Flow {
            sender: TcpSender::new(cfg, id),
            receiver: TcpReceiver::new(cfg, id),
            route: route.to_vec(),
            ack_delay,
            class,
            start,
            snd_timer: None,
            rcv_timer: None,
        });
        self.q.schedule(start, Ev::Start(id));
        id
    }

    /// Replace a flow's sender (e.g. one with a transfer limit) before the run.
    pub fn set_sender(&mut self, flow: u32, sender: TcpSender) {
        self.flows[flow as usize].sender = sender;
    }

    /// The simulation clock.
    #[must_use]
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// Events processed so far.
    #[must_use]
    pub fn events(&self) -> u64 {
        self.q.events()
    }

    /// A flow's start time.
    #[must_use]
    pub fn flow_start(&self, flow: u32) -> Time {
        self.flows[flow as usize].start
    }

    /// Zero the link and discipline counters (flows keep theirs: take snapshots).
    pub fn reset_link_stats(&mut self) {
        for l in &mut self.links {
            l.stats = LinkStats::default();
            l.qdisc.reset_stats();
        }
    }

    fn send_segments(&mut self, flow: u32) {
        let f = &self.flows[flow as usize];
        let first = f.route[0];
        let class = f.class;
        for i in 0..self.out.len() {
            let seg = self.out[i];
            let pkt = Packet {
                seg,
                color: Color::Green,
                class,
                hop: 0,
            };
            self.arrive(first, pkt);
        }
        self.out.clear();
        self.sync_snd_timer(flow);
    }

    fn sync_snd_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        if let Some(d) = f.sender.deadline() {
            if f.snd_timer.map_or(true, |t| d < t) {
                f.snd_timer = Some(d);
                self.q.schedule(d, Ev::SndTimer(flow));
            }
        }
    }

    fn arrive(&mut self, link: u32, pkt: Packet) {
        let now = self.q.now();
        let l = &mut self.links[link as usize];
        if let Some(fifo) = &mut l.pipe {
            l.stats.count(&pkt);
            let at = fifo.depart(now, pkt.seg.wire_len) + l.delay;
            self.forward(at, pkt);
            return;
        }
        if l.qdisc.enqueue(now, pkt).is_ok() && !l.busy {
            self.try_send(link);
        }
    }

    /// Schedule `p`'s arrival at its next hop (or its receiver) at `at`.
    fn forward(&mut self, at: Time, mut p: Packet) {
        let route = &self.flows[p.seg.flow as usize].route;
        p.hop += 1;
        if usize::from(p.hop) < route.len() {
            let next = route[usize::from(p.hop)];
            self.q.schedule(at, Ev::Arrive(next, p));
        } else {
            self.q.schedule(at, Ev::Deliver(p));
        }
    }

    fn try_send(&mut self, link: u32) {
        let now = self.q.now();
        let l = &mut self.links[link as usize];
        debug_assert!(!l.busy);
        match l.qdisc.dequeue(now) {
            Deq::Packet(p) => {
                l.busy = true;
                l.in_service = Some(p);
                let len = p.seg.wire_len;
                l.stats.count(&p);
                let done = now + serialization_ns(len, l.rate_bps);
                let arrive = done + l.delay;
                self.q.schedule(done, Ev::TxDone(link));
                self.forward(arrive, p);
            }
            Deq::Wait(t) => {
                if l.wake_at.map_or(true, |w| t < w) {
                    l.wake_at = Some(t);
                    self.q.schedule(t, Ev::Wake(link));
                }
            }
            Deq::Empty => {}
        }
    }

    /// Run until `until` (events at exactly `until` included).
    pub fn run_until(&mut self, until: Time) {
        while let Some((now, ev)) = self.q.pop_until(until) {
            match ev {
                Ev::Start(f) => {
                    self.flows[f as usize].sender.start(now, &mut self.out);
                    self.send_segments(f);
                }
                Ev::Arrive(link, pkt) => self.arrive(link, pkt),
                Ev::TxDone(link) => {
                    let l = &mut self.links[link as usize];
                    l.busy = false;
                    if let Some(p) = l.in_service.take() {
                        l.qdisc.tx_done(now, &p);
                    }
                    self.try_send(link);
                }
                Ev::Wake(link) => {
                    let l = &mut self.links[link as usize];
                    if l.wake_at == Some(now) {
                        l.wake_at = None;
                        if !l.busy {
                            self.try_send(link);
                        }
                    }
                }
                Ev::Deliver(p) => {
                    let flow = p.seg.flow;
                    let f = &mut self.flows[flow as usize];
                    if let Some(ack) = f.receiver.on_segment(now, &p.seg) {
                        self.q.schedule(now + f.ack_delay, Ev::Ack(ack));
                    } else if let Some(d) = f.receiver.deadline() {
                        if f.rcv_timer.map_or(true, |t| d < t) {
                            f.rcv_timer = Some(d);
                            self.q.schedule(d, Ev::RcvTimer(flow));
                        }
                    }
                }
                Ev::Ack(a) => {
                    self.flows[a.flow as usize]
                        .sender
                        .on_ack(now, &a, &mut self.out);
                    self.send_segments(a.flow);
                }
                Ev::SndTimer(flow) => {
                    let f = &mut self.flows[flow as usize];
                    if f.snd_timer == Some(now) {
                        f.snd_timer = None;
                        f.sender.on_timer(now, &mut self.out);
                        self.send_segments(flow);
                    }
                }
                Ev::RcvTimer(flow) => {
                    let f = &mut self.flows[flow as usize];
                    if f.rcv_timer == Some(now) {
                        f.rcv_timer = None;
                        if let Some(ack) = f.receiver.on_timer(now) {
                            self.q.schedule(now + f.ack_delay, Ev::Ack(ack));
                        } else if let Some(d) = f.receiver.deadline() {
                            f.rcv_timer = Some(d);
                            self.q.schedule(d, Ev::RcvTimer(flow));
                        }
                    }
                }
            }
        }
    }
}

/// Jain's fairness index `(sum x)^2 / (n sum x^2)` (1 for an empty or all-zero set).
#[must_use]
pub fn jain_index(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}
