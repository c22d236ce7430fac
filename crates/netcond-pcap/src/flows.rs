//! The bounded flow table.
//!
//! `aggregate` puts every IP packet in one flow; `dscp` gives each of the 64
//! code points its own flow (the packet's DSCP on arrival); `five-tuple` keys
//! a flow by IP version, addresses, transport protocol and ports (fragments,
//! which may carry no ports, are keyed with ports 0, so every fragment of a
//! datagram lands in the same flow).
//!
//! Five-tuple flows live in a set-associative table of `capacity` entries in
//! sets of [`WAYS`]: a flow can only sit in the set its key hashes to. When a
//! new flow finds its set full, it takes the place of the set's least recently
//! seen flow (the one whose last packet is oldest); the evicted flow's meter
//! state is discarded, and if that flow comes back it starts again with full
//! buckets, as a flow never seen before. Memory is fixed when the table is
//! built and does not grow with the capture. The summary reports how many
//! flows were evicted; with none, the table never lost state.

use crate::packet::IpInfo;

/// Entries per set.
pub const WAYS: usize = 4;

/// How packets are grouped into flows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classify {
    /// One flow for every IP packet.
    Aggregate,
    /// One flow per IP version, addresses, protocol and ports.
    FiveTuple,
    /// One flow per DSCP.
    Dscp,
}

impl std::str::FromStr for Classify {
    type Err = String;
    fn from_str(s: &str) -> Result<Classify, String> {
        match s {
            "aggregate" => Ok(Classify::Aggregate),
            "five-tuple" | "5tuple" | "5-tuple" => Ok(Classify::FiveTuple),
            "dscp" => Ok(Classify::Dscp),
            _ => Err(format!(
                "unknown classification '{s}' (expected aggregate, five-tuple or dscp)"
            )),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Key {
    src: [u8; 16],
    dst: [u8; 16],
    ports: [u16; 2],
    proto: u8,
    version: u8,
}

impl Key {
    fn of(i: &IpInfo) -> Key {
        Key {
            src: i.src,
            dst: i.dst,
            ports: i.ports,
            proto: i.proto,
            version: i.version,
        }
    }

    fn hash(&self) -> u64 {
        let w = |b: &[u8]| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        for x in [
            w(&self.src[..8]),
            w(&self.src[8..]),
            w(&self.dst[..8]),
            w(&self.dst[8..]),
            u64::from(self.ports[0]) << 32
                | u64::from(self.ports[1]) << 16
                | u64::from(self.proto) << 8
                | u64::from(self.version),
        ] {
            h = mix(h ^ x);
        }
        h
    }
}

/// The 64-bit hash of a packet's five-tuple (IP version, source and
/// destination addresses, protocol, ports) that the flow table and the
/// `fq_codel` stage use: each 8-byte word of the key is XORed into a state
/// started at 0x9e3779b97f4a7c15 and mixed by SplitMix64's finalizer.
pub fn five_tuple_hash(info: &IpInfo) -> u64 {
    Key::of(info).hash()
}

/// SplitMix64's finalizer: every input bit reaches every output bit, so the
/// set index (the low bits) depends on the whole key.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Flow table of a fixed capacity.
pub struct FlowTable {
    mode: Classify,
    keys: Vec<Key>,
    last: Vec<u64>,
    used: Vec<bool>,
    set_mask: usize,
    /// Distinct flow entries created (a flow evicted and back counts twice).
    pub seen: u64,
    /// Flows evicted to make room.
    pub evicted: u64,
}

impl FlowTable {
    /// A table for `mode`; five-tuple tables hold `max_flows` rounded up to a
    /// power of two (at least [`WAYS`]).
    pub fn new(mode: Classify, max_flows: usize) -> FlowTable {
        let cap = match mode {
            Classify::Aggregate => 1,
            Classify::Dscp => 64,
            Classify::FiveTuple => max_flows.max(WAYS).next_power_of_two(),
        };
        FlowTable {
            mode,
            keys: vec![Key::default(); if mode == Classify::FiveTuple { cap } else { 0 }],
            last: vec![0; cap],
            used: vec![false; cap],
            set_mask: (cap / WAYS).saturating_sub(1),
            seen: 0,
            evicted: 0,
        }
    }

    /// Number of per-flow states.
    pub fn capacity(&self) -> usize {
        self.used.len()
    }

    /// The slot of the packet's flow, and whether the slot is new (its states
    /// must be reset).
    #[inline]
    pub fn lookup(&mut self, info: &IpInfo, now: u64) -> (u32, bool) {
        let slot = match self.mode {
            Classify::Aggregate => 0,
            Classify::Dscp => usize::from(info.tos >> 2),
            Classify::FiveTuple => return self.lookup_tuple(info, now),
        };
        let fresh = !self.used[slot];
        if fresh {
            self.used[slot] = true;
            self.seen += 1;
        }
        (slot as u32, fresh)
    }

    fn lookup_tuple(&mut self, info: &IpInfo, now: u64) -> (u32, bool) {
        let key = Key::of(info);
        let set = (key.hash() as usize) & self.set_mask;
        let base = set * WAYS;
        let mut victim = base;
        for i in base..base + WAYS {
            if self.used[i] && self.keys[i] == key {
                self.last[i] = now;
                return (i as u32, false);
            }
            if !self.used[victim] {
                continue;
            }
            if !self.used[i] || self.last[i] < self.last[victim] {
                victim = i;
            }
        }
        if self.used[victim] {
            self.evicted += 1;
        }
        self.used[victim] = true;
        self.keys[victim] = key;
        self.last[victim] = now;
        self.seen += 1;
        (victim as u32, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(n: u16) -> IpInfo {
        IpInfo {
            version: 4,
            proto: 17,
            ports: [n, 9],
            ..IpInfo::default()
        }
    }

    /// 1000 flows that differ only in the source port, three rounds, in a
    /// 4096-entry table (1024 sets of 4). With the set index uniform over the
    /// whole key, about 3.5 sets get more than 4 of the flows (Poisson, mean
    /// 0.98), and only they evict: a few evictions per round. (A hash whose
    /// low bits saw only some of the port bits put these flows in 128 sets
    /// and evicted on nearly every packet.)
    #[test]
    fn ports_spread_over_the_sets() {
        let mut t = FlowTable::new(Classify::FiveTuple, 4096);
        for round in 0..3u64 {
            for n in 0..1000u16 {
                t.lookup(&flow(10_000 + n), round * 1000 + u64::from(n));
            }
        }
        assert!(t.evicted < 30, "{} evictions", t.evicted);
    }

    #[test]
    fn same_flow_same_slot_and_lru_eviction() {
        let mut t = FlowTable::new(Classify::FiveTuple, 4); // one set of 4
        let (a, fa) = t.lookup(&flow(1), 10);
        assert!(fa);
        assert_eq!(t.lookup(&flow(1), 11), (a, false));
        for n in 2..=4 {
            assert!(t.lookup(&flow(n), 11 + u64::from(n)).1);
        }
        // Flow 1 was seen at 11, flows 2-4 later: 5 evicts 1.
        t.lookup(&flow(2), 20);
        let (s5, f5) = t.lookup(&flow(5), 30);
        assert!(f5);
        assert_eq!(s5, a);
        assert_eq!(t.evicted, 1);
        // Flow 1 comes back as new.
        assert!(t.lookup(&flow(1), 31).1);
        assert_eq!(t.seen, 6);
    }
}
