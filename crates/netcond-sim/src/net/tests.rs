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

#[derive(Debug, PartialEq, Eq)]
enum Ev {
    Arrive(u32, u32),
    Net(NetEv),
}

/// Offers `arrivals` (time, id, length) to one link and returns the packets
/// that finished, with the time they reach the far end.
fn drive(link: Link<P>, arrivals: &[(Time, u32, u32)]) -> (Vec<(Time, u32)>, LinkStats) {
    let pipe = matches!(link.queue, Queue::Pipe(_));
    let mut net = Network::new(());
    net.add(link);
    let mut q: EventQueue<Ev> = EventQueue::new();
    for &(t, id, len) in arrivals {
        q.schedule(t, Ev::Arrive(id, len));
    }
    let mut out = Vec::new();
    while let Some((_, ev)) = q.pop() {
        match ev {
            Ev::Arrive(id, len) => {
                if let (Some((at, p)), true) = (net.send(&mut q, Ev::Net, 0, P(id, len)), pipe) {
                    out.push((at, p.0));
                }
            }
            Ev::Net(e) => {
                if let Some((at, p)) = net.on_event(&mut q, Ev::Net, e).finished {
                    out.push((at, p.0));
                }
            }
        }
    }
    (out, net.links[0].stats)
}

#[test]
fn serialization_back_to_back() {
    // 10 Mbps: 1500 B take 1.2 ms; one packet waits, the third is dropped.
    let link = Link::fifo(10_000_000, 5 * MS, Buffer::Packets(1));
    let (out, st) = drive(link, &[(0, 1, 1500), (100, 2, 1500), (200, 3, 1500)]);
    assert_eq!(out, vec![(6_200_000, 1), (7_400_000, 2)]);
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
    let (fifo, _) = drive(Link::fifo(1_000_000, 7, Buffer::Unlimited), &arrivals);
    let (pipe, _) = drive(Link::pipe(1_000_000, 7), &arrivals);
    assert_eq!(pipe, fifo);
    let want = [1_000_007, 3_000_007, 4_000_007, 6_000_007];
    assert_eq!(pipe.iter().map(|x| x.0).collect::<Vec<_>>(), want);
}

#[test]
fn byte_buffer_and_unlimited_link() {
    // The packet on the wire always fits; 1000 waiting bytes do.
    let link = Link::fifo(0, 0, Buffer::Bytes(1000));
    let mut net = Network::new(());
    net.add(link);
    let mut q: EventQueue<Ev> = EventQueue::new();
    assert!(net.send(&mut q, Ev::Net, 0, P(0, 1200)).is_some());
    assert!(net.send(&mut q, Ev::Net, 0, P(1, 600)).is_none());
    assert!(net.send(&mut q, Ev::Net, 0, P(2, 600)).is_none());
    assert_eq!(net.links[0].len_packets(), 2);
    assert_eq!(net.links[0].stats.drops, 1);
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
    let mut q: EventQueue<Ev> = EventQueue::new();
    assert_eq!(net.send(&mut q, Ev::Net, 0, P(0, 100)), None);
    assert_eq!(
        net.send(&mut q, Ev::Net, 0, P(1, 100)),
        Some((3, P(1, 101)))
    );
    assert_eq!(
        (net.links[0].stats.drops, net.links[0].stats.tx_bytes),
        (1, 101)
    );
}
