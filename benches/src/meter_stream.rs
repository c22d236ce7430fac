//! The meter benches' stream and per-burst loops (docs/performance.md):
//! shared by `benches/trtcm.rs` and the `contention` example, so that both
//! time the same code.
use netcond::base::hint::prefetch;
use netcond::base::{Color, Instant, TickRate};
use netcond::trtcm::{Counters, ThreeColorMarker};

use crate::{flow_indices, imix_lengths, precolors, BENCH_TICKS_PER_PACKET};

/// Packets per criterion iteration (one burst).
pub const PACKETS: usize = 4096;
/// Flows in the many-flow benches.
pub const FLOWS: u32 = 65_536;

/// The bench clock: ticks of 2.3 GHz.
#[must_use]
pub fn tick() -> TickRate {
    TickRate::from_hz(2_300_000_000).unwrap()
}

/// One burst's packets: lengths, pre-colors, and flow indices.
pub struct Stream {
    /// Lengths in bytes.
    pub lens: Vec<u32>,
    /// Pre-colors for the color-aware benches.
    pub colors: Vec<Color>,
    /// Flow of each packet in the many-flow benches.
    pub flows: Vec<u32>,
}

/// The stream every meter bench uses.
#[must_use]
pub fn stream() -> Stream {
    let lens = imix_lengths(PACKETS, 1);
    // Pre-colors for the color-aware benches: 6 green, 1 yellow, 1 red of 8.
    let colors = precolors(PACKETS, 2);
    Stream {
        lens,
        colors,
        flows: flow_indices(PACKETS, FLOWS, 3),
    }
}

/// One burst of packets through one flow: the state and clock are copied into
/// locals (registers) for the burst. Not inlined, and the profile arrives as a
/// `&` argument, as in a router's per-burst function: the compiler may keep the
/// profile's constants in registers but cannot fold them (the caller passes it
/// through `black_box`).
#[inline(never)]
pub fn burst_one<M: ThreeColorMarker, const AWARE: bool>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    t: &mut u64,
) -> usize {
    let (mut mm, mut tt) = (*m, *t);
    let mut acc = 0usize;
    for (&len, &pre) in lens.iter().zip(colors) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let col = if AWARE {
            mm.color_aware(p, now, len, pre)
        } else {
            mm.color_blind(p, now, len)
        };
        acc += col.index();
    }
    (*m, *t) = (mm, tt);
    acc
}

/// One burst over many flows: each packet updates the flow its index names.
/// With `PREFETCH`, the state of the flow `AHEAD` packets later is prefetched
/// first with `netcond::base::hint::prefetch`, as a caller that knows its
/// next packets' flows can do (DPDK's pipelines do the same, and so does the
/// DPDK loop beside it, `benches/dpdk/shim.c`); the marker itself is
/// unchanged.
#[inline(never)]
pub fn burst_many<M: ThreeColorMarker, const AWARE: bool, const PREFETCH: bool>(
    p: &M::Profile,
    s: &Stream,
    flows: &mut [M],
    t: &mut u64,
) -> usize {
    const AHEAD: usize = 8;
    let mut tt = *t;
    let mut acc = 0usize;
    for (i, ((&len, &pre), &f)) in s.lens.iter().zip(&s.colors).zip(&s.flows).enumerate() {
        if PREFETCH {
            if let Some(&next) = s.flows.get(i + AHEAD) {
                prefetch(&flows[next as usize]);
            }
        }
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let m = &mut flows[f as usize];
        let col = if AWARE {
            m.color_aware(p, now, len, pre)
        } else {
            m.color_blind(p, now, len)
        };
        acc += col.index();
    }
    *t = tt;
    acc
}

/// Packet-mode rates of the meter benches, in packets per second on the bench
/// stream's arrival rate (2.3e9 / 12,563, about 183,000 packets per second):
/// CIR about 57 % and PIR/EIR about 86 % of it, as the byte-mode profiles'
/// 46 and 69 MB/s are of the 80 MB/s offered. Bursts: 5 and 10 packets (the
/// byte profiles' 2048 and 4096 bytes in mean-sized packets).
pub const PACKET_CIR: u64 = 105_000;
/// See [`PACKET_CIR`].
pub const PACKET_PIR: u64 = 157_000;
/// See [`PACKET_CIR`].
pub const PACKET_CBS: u64 = 5;
/// See [`PACKET_CIR`].
pub const PACKET_PBS: u64 = 10;

/// [`burst_one`] in packet mode: the same loop over the same stream, each
/// packet colored by `color_blind_packet` / `color_aware_packet` (the lengths
/// are walked but not used).
#[inline(never)]
pub fn burst_one_packets<M: ThreeColorMarker, const AWARE: bool>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    t: &mut u64,
) -> usize {
    let (mut mm, mut tt) = (*m, *t);
    let mut acc = 0usize;
    for (_len, &pre) in lens.iter().zip(colors) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let col = if AWARE {
            mm.color_aware_packet(p, now, pre)
        } else {
            mm.color_blind_packet(p, now)
        };
        acc += col.index();
    }
    (*m, *t) = (mm, tt);
    acc
}

/// [`burst_one`] with per-color counters: each packet through
/// `color_blind_counted` / `color_aware_counted`, the counters kept in a
/// local for the burst as the state is.
#[inline(never)]
pub fn burst_one_counted<M: ThreeColorMarker, const AWARE: bool>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    c: &mut Counters,
    t: &mut u64,
) -> usize {
    let (mut mm, mut cc, mut tt) = (*m, *c, *t);
    let mut acc = 0usize;
    for (&len, &pre) in lens.iter().zip(colors) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let col = if AWARE {
            mm.color_aware_counted(p, now, len, pre, &mut cc)
        } else {
            mm.color_blind_counted(p, now, len, &mut cc)
        };
        acc += col.index();
    }
    (*m, *c, *t) = (mm, cc, tt);
    acc
}
