//! Links and queues: a FIFO output port with a finite or unlimited buffer in
//! front of a link of a given rate (serialization) and propagation delay.
//!
//! The port holds the packet being transmitted at its head. The caller drives
//! it with two calls: [`Port::enqueue`] on arrival, which says when to schedule
//! the end of transmission if the link was idle, and [`Port::complete`] at that
//! time, which hands back the packet (to be delivered `prop_delay` later) and the
//! next end of transmission, if any.

use crate::engine::{serialization_ns, Time};
use std::collections::VecDeque;

/// How much a port's buffer holds, not counting the packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// No limit.
    Unlimited,
    /// At most this many waiting bytes.
    Bytes(u64),
    /// At most this many waiting packets.
    Packets(u64),
}

/// What happened to an arriving packet.
#[derive(Debug, PartialEq, Eq)]
pub enum Enqueue<T> {
    /// The link was idle: transmission ends at this time (schedule `complete`).
    Started(Time),
    /// The packet waits behind others.
    Queued,
    /// The buffer was full: the packet is handed back (tail drop).
    Dropped(T),
}

/// A FIFO output port feeding one link.
#[derive(Clone, Debug)]
pub struct Port<T> {
    /// Link rate in bits per second (0: infinitely fast).
    pub rate_bps: u64,
    /// Propagation delay.
    pub prop_delay: Time,
    /// Buffer limit.
    pub buffer: Buffer,
    queue: VecDeque<(T, u32)>,
    waiting_bytes: u64,
    /// Bytes that finished transmission.
    pub tx_bytes: u64,
    /// Packets that finished transmission.
    pub tx_packets: u64,
    /// Packets dropped at the tail.
    pub drops: u64,
}

impl<T> Port<T> {
    /// An idle port.
    #[must_use]
    pub fn new(rate_bps: u64, prop_delay: Time, buffer: Buffer) -> Port<T> {
        Port {
            rate_bps,
            prop_delay,
            buffer,
            queue: VecDeque::new(),
            waiting_bytes: 0,
            tx_bytes: 0,
            tx_packets: 0,
            drops: 0,
        }
    }

    /// Packets in the port, including the one on the wire.
    #[must_use]
    pub fn len_packets(&self) -> usize {
        self.queue.len()
    }

    /// Packets waiting behind the one on the wire.
    #[must_use]
    pub fn waiting_packets(&self) -> usize {
        self.queue.len().saturating_sub(1)
    }

    /// Bytes waiting behind the one on the wire.
    #[must_use]
    pub fn waiting_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// True when nothing is being transmitted.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
    }

    /// Serialization time of `len` bytes on this link.
    #[must_use]
    pub fn tx_time(&self, len: u32) -> Time {
        serialization_ns(len, self.rate_bps)
    }

    /// A packet of `len` bytes arrives at `now`.
    pub fn enqueue(&mut self, now: Time, pkt: T, len: u32) -> Enqueue<T> {
        if self.queue.is_empty() {
            self.queue.push_back((pkt, len));
            return Enqueue::Started(now + self.tx_time(len));
        }
        let full = match self.buffer {
            Buffer::Unlimited => false,
            Buffer::Bytes(b) => self.waiting_bytes + u64::from(len) > b,
            Buffer::Packets(p) => self.waiting_packets() as u64 >= p,
        };
        if full {
            self.drops += 1;
            return Enqueue::Dropped(pkt);
        }
        self.waiting_bytes += u64::from(len);
        self.queue.push_back((pkt, len));
        Enqueue::Queued
    }

    /// The packet on the wire finishes at `now`: returns it (it arrives at the far
    /// end at `now + prop_delay`) and the end time of the next transmission.
    /// `None` if the port was idle (a spurious call).
    pub fn complete(&mut self, now: Time) -> Option<(T, Option<Time>)> {
        let (pkt, len) = self.queue.pop_front()?;
        self.tx_bytes += u64::from(len);
        self.tx_packets += 1;
        let next = self.queue.front().map(|&(_, l)| l);
        let next = next.map(|l| {
            self.waiting_bytes -= u64::from(l);
            now + self.tx_time(l)
        });
        Some((pkt, next))
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn serialization_back_to_back() {
        // 10 Mbps: 1500 B take 1.2 ms.
        let mut p: Port<u32> = Port::new(10_000_000, 5 * MS, Buffer::Packets(1));
        assert_eq!(p.enqueue(0, 1, 1500), Enqueue::Started(1_200_000));
        assert_eq!(p.enqueue(100, 2, 1500), Enqueue::Queued);
        assert_eq!(p.enqueue(200, 3, 1500), Enqueue::Dropped(3));
        assert_eq!(p.complete(1_200_000), Some((1, Some(2_400_000))));
        assert_eq!(p.complete(2_400_000), Some((2, None)));
        assert_eq!(p.complete(2_400_000), None);
        assert_eq!((p.tx_packets, p.drops), (2, 1));
    }

    #[test]
    fn virtual_fifo_matches_port() {
        let mut v = VirtualFifo::new(1_000_000);
        let mut p: Port<u32> = Port::new(1_000_000, 0, Buffer::Unlimited);
        let arrivals = [(0u64, 125u32), (10, 250), (500_000, 125), (5_000_000, 125)];
        let mut port_done = Vec::new();
        let mut next = None;
        for &(t, len) in &arrivals {
            while let Some(d) = next {
                if d > t {
                    break;
                }
                let (_, n) = p.complete(d).unwrap();
                port_done.push(d);
                next = n;
            }
            if let Enqueue::Started(d) = p.enqueue(t, 0, len) {
                next = Some(d);
            }
        }
        while let Some(d) = next {
            let (_, n) = p.complete(d).unwrap();
            port_done.push(d);
            next = n;
        }
        let virt: Vec<Time> = arrivals.iter().map(|&(t, l)| v.depart(t, l)).collect();
        assert_eq!(virt, port_done);
        assert_eq!(virt, vec![1_000_000, 3_000_000, 4_000_000, 6_000_000]);
    }

    #[test]
    fn byte_buffer_and_unlimited_link() {
        let mut p: Port<u8> = Port::new(0, 0, Buffer::Bytes(1000));
        assert_eq!(p.enqueue(7, 0, 600), Enqueue::Started(7));
        assert_eq!(p.enqueue(7, 1, 600), Enqueue::Queued);
        assert_eq!(p.enqueue(7, 2, 600), Enqueue::Dropped(2));
        assert_eq!(p.waiting_bytes(), 600);
    }
}
