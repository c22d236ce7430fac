//! A small event-driven network for TCP experiments: bulk TCP flows over chains of
//! links, each link fed by a queueing discipline ([`Qdisc`]).
//!
//! A flow's data segments follow its route (a list of link indices); each link
//! serializes one packet at a time at its rate and delivers it after its
//! propagation delay. The ACK path is modelled as a pure delay (`ack_delay`):
//! in the documents' experiments the reverse direction carries only ACKs and is never
//! congested, so queueing there would change nothing but the event count.
//!
//! Links, queues and the event loop are the simulator's one network model
//! ([`crate::net`]): the links are a [`net::Network`], the hosts (senders,
//! receivers, their timers) a [`net::Model`] run by [`net::Sim`]; markers,
//! shapers, RED-family queues and policers plug into the links' queues
//! through [`net::Conditioner`], [`Aqm`] and [`net::Shaper`]. This module only
//! moves packets along routes and runs the TCP state machines.

use super::{Ack, Segment, TcpConfig, TcpReceiver, TcpSender};
use crate::engine::{Rng, Time};
use crate::net;
use netcond::base::Color;

pub use crate::net::{Aqm, LinkStats, Qdisc, QdiscStats, Verdict, CLASSES};

/// What a queueing discipline hands the link, for TCP packets.
pub type Deq = net::Deq<Packet>;
/// A FIFO of TCP packets with an [`Aqm`] at its input.
pub type AqmQueue<A> = net::AqmQueue<Packet, A>;
/// A tail-drop FIFO of TCP packets.
pub type DropTail = net::DropTail<Packet>;
/// A link carrying TCP packets.
pub type Link = net::Link<Packet>;

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

impl net::Packet for Packet {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.seg.wire_len
    }
    #[inline]
    fn class(&self) -> u8 {
        self.class
    }
    #[inline]
    fn color(&self) -> Color {
        self.color
    }
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
    /// When the last segment left the host (with a send jitter, segments
    /// leave in order no earlier than this).
    last_tx: Time,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(u32),
    Arrive(u32, Packet),
    Deliver(Packet),
    Ack(Ack),
    SndTimer(u32),
    RcvTimer(u32),
}

/// The links on the one event loop ([`net::Sim`]).
type Links = net::Sim<Packet, (), Ev>;

/// The hosts: the flows' senders and receivers, a [`net::Model`].
struct Hosts {
    flows: Vec<Flow>,
    out: Vec<Segment>,
    /// A random processing time before each segment leaves its host:
    /// uniform in `[0, jitter)` ns, segments of a flow kept in order.
    jitter: Option<(Time, Rng)>,
}

/// The network and its event loop.
pub struct Network {
    sim: Links,
    hosts: Hosts,
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
            sim: net::Sim::new(net::Network::new(())),
            hosts: Hosts {
                flows: Vec::new(),
                out: Vec::with_capacity(64),
                jitter: None,
            },
        }
    }

    /// Links, by index.
    #[must_use]
    pub fn links(&self) -> &[Link] {
        &self.sim.net.links
    }

    /// Flows, by index (the flow id of their segments).
    #[must_use]
    pub fn flows(&self) -> &[Flow] {
        &self.hosts.flows
    }

    /// Add a link fed by `qdisc`; returns its index.
    pub fn add_link(&mut self, rate_bps: u64, delay: Time, qdisc: Box<dyn Qdisc<Packet>>) -> u32 {
        self.sim.net.add(Link::qdisc(rate_bps, delay, qdisc))
    }

    /// Add an uncongested link: an unlimited FIFO that never drops, so each
    /// packet's departure is computed when it arrives (one event per hop instead
    /// of two; the same timing as a [`DropTail`] that never fills).
    pub fn add_pipe_link(&mut self, rate_bps: u64, delay: Time) -> u32 {
        self.sim.net.add(Link::pipe(rate_bps, delay))
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
        let flows = &mut self.hosts.flows;
        let id = flows.len() as u32;
        flows.push(Flow {
            sender: TcpSender::new(cfg, id),
            receiver: TcpReceiver::new(cfg, id),
            route: route.to_vec(),
            ack_delay,
            class,
            start,
            snd_timer: None,
            last_tx: 0,
            rcv_timer: None,
        });
        self.sim.schedule(start, Ev::Start(id));
        id
    }

    /// Delay each data segment by a random host processing time, uniform in
    /// `[0, jitter)` ns, before it enters its first link (a flow's segments
    /// stay in order). A deterministic network otherwise locks the flows'
    /// arrivals to the bottleneck's departures (traffic phase effects, as
    /// Floyd and Jacobson describe them in "On Traffic Phase Effects in
    /// Packet-Switched Gateways", 1992). Off (0) by default.
    pub fn set_send_jitter(&mut self, jitter: Time, rng: Rng) {
        self.hosts.jitter = (jitter > 0).then_some((jitter, rng));
    }

    /// Replace a flow's sender (e.g. one with a transfer limit) before the run.
    pub fn set_sender(&mut self, flow: u32, sender: TcpSender) {
        self.hosts.flows[flow as usize].sender = sender;
    }

    /// The simulation clock.
    #[must_use]
    pub fn now(&self) -> Time {
        self.sim.q.now()
    }

    /// Events processed so far.
    #[must_use]
    pub fn events(&self) -> u64 {
        self.sim.events()
    }

    /// A flow's start time.
    #[must_use]
    pub fn flow_start(&self, flow: u32) -> Time {
        self.hosts.flows[flow as usize].start
    }

    /// Zero the link and discipline counters (flows keep theirs: take snapshots).
    pub fn reset_link_stats(&mut self) {
        for l in &mut self.sim.net.links {
            l.reset_stats();
        }
    }

    /// Run until `until` (events at exactly `until` included).
    pub fn run_until(&mut self, until: Time) {
        self.sim.run(&mut self.hosts, until);
    }
}

impl Hosts {
    fn send_segments(&mut self, sim: &mut Links, flow: u32) {
        let f = &self.flows[flow as usize];
        let first = f.route[0];
        let class = f.class;
        let now = sim.q.now();
        for i in 0..self.out.len() {
            let seg = self.out[i];
            let pkt = Packet {
                seg,
                color: Color::Green,
                class,
                hop: 0,
            };
            if let Some((j, rng)) = &mut self.jitter {
                let f = &mut self.flows[flow as usize];
                let at = (now + rng.time_below(*j)).max(f.last_tx);
                f.last_tx = at;
                sim.schedule(at, Ev::Arrive(first, pkt));
            } else {
                self.arrive(sim, first, pkt);
            }
        }
        self.out.clear();
        self.sync_snd_timer(sim, flow);
    }

    fn sync_snd_timer(&mut self, sim: &mut Links, flow: u32) {
        let f = &mut self.flows[flow as usize];
        if let Some(d) = f.sender.deadline() {
            if f.snd_timer.map_or(true, |t| d < t) {
                f.snd_timer = Some(d);
                sim.schedule(d, Ev::SndTimer(flow));
            }
        }
    }

    /// `pkt` enters `link` (its delivery comes back through `on_deliver`).
    fn arrive(&mut self, sim: &mut Links, link: u32, pkt: Packet) {
        sim.send(self, link, pkt);
    }

    /// Schedule `p`'s arrival at its next hop (or its receiver) at `at`.
    fn forward(&mut self, sim: &mut Links, at: Time, mut p: Packet) {
        let route = &self.flows[p.seg.flow as usize].route;
        p.hop += 1;
        if usize::from(p.hop) < route.len() {
            let next = route[usize::from(p.hop)];
            sim.schedule(at, Ev::Arrive(next, p));
        } else {
            sim.schedule(at, Ev::Deliver(p));
        }
    }
}

impl net::Model<Packet, ()> for Hosts {
    type Ev = Ev;

    #[inline]
    fn on_event(&mut self, sim: &mut Links, now: Time, ev: Ev) {
        match ev {
            Ev::Start(f) => {
                self.flows[f as usize].sender.start(now, &mut self.out);
                self.send_segments(sim, f);
            }
            Ev::Arrive(link, pkt) => self.arrive(sim, link, pkt),
            Ev::Deliver(p) => {
                let flow = p.seg.flow;
                let f = &mut self.flows[flow as usize];
                if let Some(ack) = f.receiver.on_segment(now, &p.seg) {
                    sim.schedule(now + f.ack_delay, Ev::Ack(ack));
                } else if let Some(d) = f.receiver.deadline() {
                    if f.rcv_timer.map_or(true, |t| d < t) {
                        f.rcv_timer = Some(d);
                        sim.schedule(d, Ev::RcvTimer(flow));
                    }
                }
            }
            Ev::Ack(a) => {
                self.flows[a.flow as usize]
                    .sender
                    .on_ack(now, &a, &mut self.out);
                self.send_segments(sim, a.flow);
            }
            Ev::SndTimer(flow) => {
                let f = &mut self.flows[flow as usize];
                if f.snd_timer == Some(now) {
                    f.snd_timer = None;
                    f.sender.on_timer(now, &mut self.out);
                    self.send_segments(sim, flow);
                }
            }
            Ev::RcvTimer(flow) => {
                let f = &mut self.flows[flow as usize];
                if f.rcv_timer == Some(now) {
                    f.rcv_timer = None;
                    if let Some(ack) = f.receiver.on_timer(now) {
                        sim.schedule(now + f.ack_delay, Ev::Ack(ack));
                    } else if let Some(d) = f.receiver.deadline() {
                        f.rcv_timer = Some(d);
                        sim.schedule(d, Ev::RcvTimer(flow));
                    }
                }
            }
        }
    }

    /// A link is done with a packet: on to the next hop, arriving when its
    /// last bit does.
    fn on_deliver(&mut self, sim: &mut Links, _link: u32, at: Time, pkt: Packet) {
        self.forward(sim, at, pkt);
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

#[cfg(test)]
mod jitter_tests {
    use super::*;
    use crate::engine::{MS, SEC};

    /// One flow over a 10 Mbit/s FIFO of 100 packets, 20 ms base RTT, with
    /// a host processing time below `jitter`.
    fn one_flow(jitter: Time) -> Network {
        let mut net = Network::new();
        net.set_send_jitter(jitter, Rng::new(3));
        let b = net.add_link(10_000_000, 5 * MS, Box::new(DropTail::packets(100)));
        let a = net.add_pipe_link(100_000_000, 5 * MS);
        let cfg = TcpConfig {
            // Below the path's 17 packets: no queue, so the RTT shows the delay.
            max_window: 10 * 1460,
            timestamps: true,
            ..TcpConfig::default()
        };
        net.add_flow(cfg, &[a, b], 10 * MS, 0, 0);
        net.run_until(5 * SEC);
        net
    }

    #[test]
    fn send_jitter_delays_segments_but_keeps_them_in_order() {
        let plain = one_flow(0);
        let jittered = one_flow(4 * MS);
        for net in [&plain, &jittered] {
            let f = &net.flows()[0];
            // In order: no duplicate ACKs, so no recovery and no retransmission.
            assert_eq!(f.sender.stats().retransmits, 0);
            assert_eq!(f.sender.stats().fast_recoveries, 0);
            assert!(f.receiver.stats().delivered > 1000);
        }
        // The processing time adds to the RTT (2 ms on average), at most 4 ms.
        let rtt = |n: &Network| n.flows()[0].sender.srtt().unwrap();
        let extra = rtt(&jittered) as i64 - rtt(&plain) as i64;
        assert!(extra > 0 && extra < 4 * MS as i64, "{extra}");
    }
}
