//! The link model's timing, buffers and conditioner.

use super::*;
use crate::engine::MS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct P(u32, u32);
impl Packet for P {
    fn wire_len(&self) -> u32 {
        self.1
    }
}

/// Sends its arrivals on link 0 and records what comes back at the far end
/// (time, id), through the one event loop ([`Sim::run`]).
struct Recorder {
    arrivals: Vec<(Time, u32, u32)>,
    out: Vec<(Time, u32)>,
}

impl<C: Conditioner<P>> Model<P, C> for Recorder {
    type Ev = usize;
    fn on_event(&mut self, sim: &mut Sim<P, C, usize>, _now: Time, i: usize) {
        let (_, id, len) = self.arrivals[i];
        sim.send(self, 0, P(id, len));
    }
    fn on_deliver(&mut self, _sim: &mut Sim<P, C, usize>, _link: u32, at: Time, pkt: P) {
        self.out.push((at, pkt.0));
    }
}

/// A run of `arrivals` (time, id, length) on link 0 of `net`, not started.
fn start<C: Conditioner<P>>(
    net: Network<P, C>,
    arrivals: &[(Time, u32, u32)],
) -> (Sim<P, C, usize>, Recorder) {
    let mut sim = Sim::new(net);
    for (i, a) in arrivals.iter().enumerate() {
        sim.schedule(a.0, i);
    }
    let m = Recorder {
        arrivals: arrivals.to_vec(),
        out: Vec::new(),
    };
    (sim, m)
}

/// What comes back of `arrivals` on link 0 of `net`, run to the end.
fn record<C: Conditioner<P>>(
    net: Network<P, C>,
    arrivals: &[(Time, u32, u32)],
) -> Vec<(Time, u32)> {
    let (mut sim, mut m) = start(net, arrivals);
    sim.run(&mut m, Time::MAX);
    m.out
}

/// A network of one link and no conditioner.
fn one_link(link: Link<P>) -> Network<P, ()> {
    let mut net = Network::new(());
    net.add(link);
    net
}

#[test]
fn serialization_back_to_back() {
    // 10 Mbps: 1500 B take 1.2 ms; one packet waits, the third is dropped.
    let link = Link::fifo(10_000_000, 5 * MS, Buffer::Packets(1));
    let arrivals = [(0, 1, 1500), (100, 2, 1500), (200, 3, 1500)];
    let (mut sim, mut m) = start(one_link(link), &arrivals);
    sim.run(&mut m, Time::MAX);
    assert_eq!(m.out, vec![(6_200_000, 1), (7_400_000, 2)]);
    let st = sim.net.links[0].stats;
    assert_eq!((st.done_packets, st.drops, st.done_bytes), (2, 1, 3000));
}

#[test]
fn pipe_matches_fifo() {
    let arrivals = [
        (0u64, 0, 125u32),
        (10, 1, 250),
        (500_000, 2, 125),
        (5_000_000, 3, 125),
    ];
    let fifo = record(
        one_link(Link::fifo(1_000_000, 7, Buffer::Unlimited)),
        &arrivals,
    );
    let pipe = record(one_link(Link::pipe(1_000_000, 7)), &arrivals);
    assert_eq!(pipe, fifo);
    let want = [1_000_007, 3_000_007, 4_000_007, 6_000_007];
    assert_eq!(pipe.iter().map(|x| x.0).collect::<Vec<_>>(), want);
}

#[test]
fn byte_buffer_and_unlimited_link() {
    // The packet on the wire always fits; 1000 waiting bytes do. 8 Mbit/s:
    // 1200 B take 1.2 ms, 600 B 0.6 ms.
    let link = Link::fifo(8_000_000, 0, Buffer::Bytes(1000));
    let arrivals = [(0, 0, 1200), (0, 1, 600), (0, 2, 600)];
    let (mut sim, mut m) = start(one_link(link), &arrivals);
    sim.run(&mut m, 0);
    let l = &sim.net.links[0];
    assert_eq!(l.len_packets(), 2, "one on the wire, one waiting");
    assert_eq!(l.stats.drops, 1);
    assert_eq!(l.qdisc_stats().forced_drops, 1);
    sim.run(&mut m, Time::MAX);
    assert_eq!(m.out, vec![(1_200_000, 0), (1_800_000, 1)]);
    assert_eq!(sim.net.links[0].len_packets(), 0);
}

#[test]
fn a_zero_buffer_takes_only_what_goes_on_the_wire() {
    // 1000 B at 8 Mbit/s: 1 ms on the wire. Nothing may wait: the second
    // packet is dropped, the third finds the link idle again.
    let out = record(
        one_link(Link::fifo(8_000_000, 0, Buffer::Packets(0))),
        &[(0, 0, 1000), (MS / 2, 1, 1000), (2 * MS, 2, 1000)],
    );
    assert_eq!(out, vec![(MS, 0), (3 * MS, 2)]);
}

#[test]
fn conditioner_sees_each_packet_and_may_drop() {
    struct Odd;
    impl Conditioner<P> for Odd {
        fn condition(&mut self, _now: Time, _link: u32, pkt: &mut P) -> bool {
            pkt.1 += 1;
            pkt.0 % 2 == 1
        }
    }
    let mut net = Network::new(Odd);
    net.add(Link::pipe(0, 3));
    let (mut sim, mut m) = start(net, &[(0, 0, 100), (0, 1, 100)]);
    sim.run(&mut m, Time::MAX);
    assert_eq!(m.out, vec![(3, 1)]);
    let st = sim.net.links[0].stats;
    assert_eq!(
        (st.drops, st.tx_bytes),
        (1, 101),
        "the conditioner's length"
    );
}

/// A shaper releasing its packets one per millisecond, in order.
struct EveryMs(VecDeque<P>, Time);

impl Shaper<P> for EveryMs {
    fn enqueue(&mut self, _now: Time, pkt: P) -> Result<(), P> {
        if self.0.len() >= 2 {
            return Err(pkt);
        }
        self.0.push_back(pkt);
        Ok(())
    }
    fn next_release(&self) -> Option<Time> {
        (!self.0.is_empty()).then_some(self.1)
    }
    fn dequeue(&mut self, now: Time) -> Option<P> {
        self.1 = now + MS;
        self.0.pop_front()
    }
    fn held(&self) -> usize {
        self.0.len()
    }
}

/// Doubles the length of even packets and drops odd ones.
struct EvenOnly;

impl Conditioner<P> for EvenOnly {
    fn condition(&mut self, _now: Time, _link: u32, pkt: &mut P) -> bool {
        pkt.1 *= 2;
        pkt.0 % 2 == 0
    }
}

#[test]
fn every_link_kind_delivers_each_packet_once_at_its_far_end() {
    // The same arrivals on a pipe, a FIFO and a tail-drop discipline of the
    // same rate and delay: each packet comes back once, through on_deliver,
    // with the time its last bit reaches the far end.
    let arrivals = [
        (0, 0, 125),
        (10, 1, 250),
        (500_000, 2, 125),
        (5_000_000, 3, 125),
    ];
    let links = [
        Link::pipe(1_000_000, 7),
        Link::fifo(1_000_000, 7, Buffer::Unlimited),
        Link::qdisc(1_000_000, 7, Box::new(DropTail::packets(10))),
    ];
    for link in links {
        let out = record(one_link(link), &arrivals);
        assert_eq!(
            out,
            vec![
                (1_000_007, 0),
                (3_000_007, 1),
                (4_000_007, 2),
                (6_000_007, 3)
            ]
        );
    }
}

#[test]
fn shaper_queue_releases_on_time_and_runs_its_conditioner() {
    // Four packets at once: room for two waiting; one per ms is released,
    // the conditioner after it drops the odd one and doubles the rest.
    let q = ShaperQueue::new(EveryMs(VecDeque::new(), 0), EvenOnly);
    let mut net = Network::new(());
    net.add(Link::qdisc(8_000_000, 0, Box::new(q)));
    let arrivals = [
        (0, 0, 100),
        (0, 1, 100),
        (0, 2, 100),
        (0, 3, 100),
        (10 * MS, 4, 500),
    ];
    let out = record(net, &arrivals);
    // Packet 0 leaves at once (200 bytes at 8 Mbit/s: 200 us); 1 is dropped
    // at its release (1 ms); 2 is released at 2 ms; 3 did not fit; 4 arrives
    // after the queue emptied and leaves at once (1000 bytes: 1 ms).
    assert_eq!(out, vec![(200_000, 0), (2 * MS + 200_000, 2), (11 * MS, 4)]);
}

#[test]
fn at_input_runs_a_conditioner_in_front_of_a_fifo() {
    let q = AqmQueue::new(DropTail::packets(10), AtInput(EvenOnly));
    let link = Link::qdisc(0, 5, Box::new(q));
    let (mut sim, mut m) = start(one_link(link), &[(0, 0, 10), (1, 1, 10), (2, 2, 10)]);
    sim.run(&mut m, Time::MAX);
    assert_eq!(m.out, vec![(5, 0), (7, 2)]);
    let st = sim.net.links[0].qdisc_stats();
    assert_eq!((st.arrived, st.policer_drops), (3, 1));
    assert_eq!(sim.net.links[0].stats.drops, 1);
}

/// Marks the first queued packet with an even id (its length set to 1).
struct MarkFirstEven;

impl Aqm<P> for MarkFirstEven {
    fn on_arrival(&mut self, _now: Time, _fifo: &DropTail<P>, _pkt: &mut P) -> Verdict {
        Verdict::MarkQueued
    }
    fn mark_queued(&mut self, fifo: &mut DropTail<P>) -> bool {
        fifo.iter_mut()
            .find(|p| p.0 % 2 == 0 && p.1 != 1)
            .map(|p| p.1 = 1)
            .is_some()
    }
}

#[test]
fn mark_queued_marks_inside_the_queue_and_counts_only_real_marks() {
    let mut q = AqmQueue::new(DropTail::packets(10), MarkFirstEven);
    for id in [1, 3, 0, 5, 2] {
        q.enqueue(0, P(id, 10)).unwrap();
    }
    // Arrivals 1 and 3 find nothing to mark; 0 marks itself, 5 finds nothing
    // left, 2 marks itself.
    assert_eq!(q.stats().marks, 2);
    let mut lens = Vec::new();
    while let Deq::Packet(p) = q.dequeue(0) {
        lens.push((p.0, p.1));
    }
    assert_eq!(lens, vec![(1, 10), (3, 10), (0, 1), (5, 10), (2, 1)]);
}
