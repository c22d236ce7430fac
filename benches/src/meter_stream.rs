//! The meter benches' stream and per-burst loops (docs/performance.md):
//! shared by `benches/trtcm.rs` and the `contention` example, so that both
//! time the same code.
use netcond::base::hint::prefetch;
use netcond::base::{Color, Instant, TickRate};
use netcond::trtcm::ThreeColorMarker;

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
