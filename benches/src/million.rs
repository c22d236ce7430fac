//! A million flows: 1,048,576 flows sharing one profile (24 MiB of trTCM or
//! srTCM state, 32 MiB of the 3sM node marker's), the flows in a pseudo-random
//! order, each once per 256 iterations ([`TABLE`]), in receive bursts of 32
//! packets that share a timestamp. Shared by
//! `benches/many_flows.rs`, the instruction counts and the `contention`
//! example.
//!
//! Three ways to run a burst: `*_plain` calls the per-packet method for each
//! packet in turn; `*_prefetched` does the same, and before each packet
//! prefetches (`netcond::base::hint::prefetch`) the state of the flow
//! [`AHEAD`] packets later, as the DPDK loop beside it does
//! (`benches/dpdk/shim.c`, `METER_AHEAD`); `*_burst` hands the whole burst to
//! the burst API (`trtcm::burst`, `pcn_meter::burst`).
use netcond::base::hint::prefetch;
use netcond::base::{Color, Instant};
use netcond::pcn::burst::mark_burst;
use netcond::pcn::{PcnMark, PcnMeter};
use netcond::trtcm::burst::color_blind_burst;
use netcond::trtcm::ThreeColorMarker;

use crate::{flow_permutation, imix_lengths, BENCH_TICKS_PER_PACKET};

/// Flows.
pub const FLOWS: u32 = 1 << 20;
/// Packets per criterion iteration.
pub const PACKETS: usize = 4096;
/// Packets per receive burst (one timestamp each).
pub const RX: usize = 32;
/// How many packets ahead the `*_prefetched` loops prefetch a flow's state:
/// DPDK's loop's distance (`METER_AHEAD` in `benches/dpdk/shim.c`, checked by
/// a test of the `dpdk` feature).
pub const AHEAD: usize = 8;
/// Entries of the flow-index table that successive iterations walk through:
/// every flow once, so that a flow's state is read once per 256 iterations
/// and the working set is all [`FLOWS`] states (24 or 32 MiB), not a part
/// that a last-level cache holds.
pub const TABLE: usize = FLOWS as usize;

/// The stream: lengths (one iteration's worth) and a longer table of flow
/// indices, every flow once in a pseudo-random order.
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
            flows: flow_permutation(FLOWS, 7),
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

/// The same iteration through the per-packet method, the caller prefetching
/// the state of the flow [`AHEAD`] packets later before each packet (across
/// receive bursts, over the whole iteration, as DPDK's loop does).
#[inline(never)]
pub fn tcm_prefetched<M: ThreeColorMarker>(
    p: &M::Profile,
    states: &mut [M],
    flows: &[u32],
    lens: &[u32],
    t: &mut u64,
) -> usize {
    let mut acc = 0usize;
    for (j, (f, l)) in flows.chunks(RX).zip(lens.chunks(RX)).enumerate() {
        *t += RX as u64 * BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(*t);
        for (i, (&f, &len)) in f.iter().zip(l).enumerate() {
            if let Some(&next) = flows.get(j * RX + i + AHEAD) {
                prefetch(&states[next as usize]);
            }
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

/// The same iteration through the per-packet `mark`, the caller prefetching
/// the state [`AHEAD`] packets later before each packet, as
/// [`tcm_prefetched`].
#[inline(never)]
pub fn pcn_prefetched<M: PcnMeter>(
    p: &M::Profile,
    states: &mut [M],
    s: &Million,
    flows: &[u32],
    t: &mut u64,
) -> u32 {
    let mut acc = 0u32;
    for (j, ((f, l), m)) in flows
        .chunks(RX)
        .zip(s.lens.chunks(RX))
        .zip(s.marks.chunks(RX))
        .enumerate()
    {
        *t += RX as u64 * BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(*t);
        for (i, ((&f, &len), &mark)) in f.iter().zip(l).zip(m).enumerate() {
            if let Some(&next) = flows.get(j * RX + i + AHEAD) {
                prefetch(&states[next as usize]);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meter_stream::tick;
    use crate::pcn_stream::node_3sm;
    use netcond::base::Rate;
    use netcond::pcn::Node3sm;
    use netcond::trtcm::{SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile};

    /// The three ways through a million flows meter the same packets: the same
    /// sum of colors every iteration, and the same states after. Returns the
    /// sum over the iterations.
    fn three_ways_agree<M: ThreeColorMarker + PartialEq + core::fmt::Debug>(
        p: &M::Profile,
    ) -> usize {
        let s = Million::new();
        let mut v = [
            vec![M::start(p, Instant::ZERO); FLOWS as usize],
            vec![M::start(p, Instant::ZERO); FLOWS as usize],
            vec![M::start(p, Instant::ZERO); FLOWS as usize],
        ];
        let mut t = [0u64; 3];
        let mut sum = 0;
        for k in 0..3 {
            let f = s.flows_of(k);
            let a = tcm_plain(p, &mut v[0], f, &s.lens, &mut t[0]);
            let b = tcm_prefetched(p, &mut v[1], f, &s.lens, &mut t[1]);
            let c = tcm_burst(p, &mut v[2], f, &s.lens, &mut t[2]);
            assert_eq!((a, a), (b, c), "iteration {k}");
            sum += a;
        }
        assert_eq!(t[0], t[1]);
        assert_eq!(t[0], t[2]);
        assert!(v[0] == v[1] && v[0] == v[2], "the states differ");
        sum
    }

    #[test]
    fn tcm_ways_agree() {
        // The bench profiles (a million flows leave every bucket full: all
        // green), then buckets smaller than the largest packet, so that the
        // colors compared are not all green.
        three_ways_agree::<TrTcm>(
            &TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap(),
        );
        three_ways_agree::<SrTcm>(
            &SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap(),
        );
        let (cir, pir) = (
            Rate::from_bytes_per_sec(1000),
            Rate::from_bytes_per_sec(2000),
        );
        let tr = TrTcmProfile::new(&TrTcmConfig::new(cir, pir, 600, 1000).with_tick(tick()));
        assert!(three_ways_agree::<TrTcm>(&tr.unwrap()) > 0);
        let sr = SrTcmProfile::new(&SrTcmConfig::new(cir, 600, 400).with_tick(tick()));
        assert!(three_ways_agree::<SrTcm>(&sr.unwrap()) > 0);
    }

    #[test]
    fn pcn_ways_agree() {
        let p = node_3sm();
        let s = Million::new();
        let mut v = [
            vec![Node3sm::new(&p, Instant::ZERO); FLOWS as usize],
            vec![Node3sm::new(&p, Instant::ZERO); FLOWS as usize],
            vec![Node3sm::new(&p, Instant::ZERO); FLOWS as usize],
        ];
        let mut t = [0u64; 3];
        for k in 0..3 {
            let f = s.flows_of(k);
            let a = pcn_plain(&p, &mut v[0], &s, f, &mut t[0]);
            let b = pcn_prefetched(&p, &mut v[1], &s, f, &mut t[1]);
            let c = pcn_burst(&p, &mut v[2], &s, f, &mut t[2]);
            assert_eq!((a, a), (b, c), "iteration {k}");
        }
        assert!(v[0] == v[1] && v[0] == v[2], "the states differ");
    }
}
