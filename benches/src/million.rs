//! A million flows: 1,048,576 flows sharing one profile (24 MiB of trTCM or
//! srTCM state, 32 MiB of the 3sM node marker's), each packet to a flow drawn
//! at random, in receive bursts of 32 packets that share a timestamp. Shared by
//! `benches/many_flows.rs`, the instruction counts and the `contention`
//! example.
//!
//! Two ways to run a burst: `*_plain` calls the per-packet method for each
//! packet in turn; `*_burst` hands the whole burst to the burst API
//! (`trtcm::burst`, `pcn_meter::burst`).
use netcond::base::{Color, Instant};
use netcond::pcn::burst::mark_burst;
use netcond::pcn::{PcnMark, PcnMeter};
use netcond::trtcm::burst::color_blind_burst;
use netcond::trtcm::ThreeColorMarker;

use crate::{flow_indices, imix_lengths, BENCH_TICKS_PER_PACKET};

/// Flows.
pub const FLOWS: u32 = 1 << 20;
/// Packets per criterion iteration.
pub const PACKETS: usize = 4096;
/// Packets per receive burst (one timestamp each).
pub const RX: usize = 32;
/// Entries of the flow-index table that successive iterations walk through
/// (so that the flows of one iteration are not those of the last).
pub const TABLE: usize = 1 << 16;

/// The stream: lengths (one iteration's worth) and a longer table of flow
/// indices, uniform over [`FLOWS`].
pub struct Million {
    /// Lengths in bytes, 64/576/1518 in 4:3:1.
    pub lens: Vec<u32>,
    /// Arriving PCN marks for the node marker.
    pub marks: Vec<PcnMark>,
    /// Flow indices.
    pub flows: Vec<u32>,
}

impl Million {
    /// The stream every million-flow bench uses.
    #[must_use]
    pub fn new() -> Million {
        Million {
            lens: imix_lengths(PACKETS, 1),
            marks: crate::pcn_stream::marks(PACKETS, 2),
            flows: flow_indices(TABLE, FLOWS, 7),
        }
    }

    /// The flow indices of iteration `k` (wrapping around the table).
    #[must_use]
    pub fn flows_of(&self, k: usize) -> &[u32] {
        let n = TABLE / PACKETS;
        let i = k % n;
        &self.flows[i * PACKETS..(i + 1) * PACKETS]
    }
}

impl Default for Million {
    fn default() -> Million {
        Million::new()
    }
}

/// One iteration through the per-packet method: bursts of [`RX`] packets,
/// each burst [`RX`] x `BENCH_TICKS_PER_PACKET` after the last.
#[inline(never)]
pub fn tcm_plain<M: ThreeColorMarker>(
    p: &M::Profile,
    states: &mut [M],
    flows: &[u32],
    lens: &[u32],
    t: &mut u64,
) -> usize {
    let mut acc = 0usize;
    for (f, l) in flows.chunks(RX).zip(lens.chunks(RX)) {
        *t += RX as u64 * BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(*t);
        for (&f, &len) in f.iter().zip(l) {
            acc += states[f as usize].color_blind(p, now, len).index();
        }
    }
    acc
}

/// The same iteration through `color_blind_burst`.
#[inline(never)]
pub fn tcm_burst<M: ThreeColorMarker>(
    p: &M::Profile,
    states: &mut [M],
    flows: &[u32],
    lens: &[u32],
    t: &mut u64,
) -> usize {
    let mut acc = 0usize;
    let mut out = [Color::Green; RX];
    for (f, l) in flows.chunks(RX).zip(lens.chunks(RX)) {
        *t += RX as u64 * BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(*t);
        acc += color_blind_burst(p, states, f, l, now, &mut out);
        acc += out.iter().map(|c| c.index()).sum::<usize>();
    }
    acc
}

/// One iteration of a PCN meter through the per-packet `mark`.
#[inline(never)]
pub fn pcn_plain<M: PcnMeter>(
    p: &M::Profile,
    states: &mut [M],
    s: &Million,
    flows: &[u32],
    t: &mut u64,
) -> u32 {
    let mut acc = 0u32;
    for ((f, l), m) in flows
        .chunks(RX)
        .zip(s.lens.chunks(RX))
        .zip(s.marks.chunks(RX))
    {
        *t += RX as u64 * BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(*t);
        for ((&f, &len), &mark) in f.iter().zip(l).zip(m) {
            acc += u32::from(states[f as usize].mark(p, now, len, mark).ecn());
        }
    }
    acc
}

/// The same iteration through `mark_burst`.
#[inline(never)]
pub fn pcn_burst<M: PcnMeter>(
    p: &M::Profile,
    states: &mut [M],
    s: &Million,
    flows: &[u32],
    t: &mut u64,
) -> u32 {
    let mut acc = 0u32;
    let mut out = [PcnMark::Nm; RX];
    for ((f, l), m) in flows
        .chunks(RX)
        .zip(s.lens.chunks(RX))
        .zip(s.marks.chunks(RX))
    {
        *t += RX as u64 * BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(*t);
        acc += mark_burst(p, states, f, l, m, now, &mut out) as u32;
        acc += out.iter().map(|m| u32::from(m.ecn())).sum::<u32>();
    }
    acc
}
