//! The PCN benches' stream, profiles and per-burst loops (docs/performance.md):
//! shared by `benches/pcn.rs`, the instruction counts and the `contention`
//! example, so that all of them run the same code.
use std::cell::Cell;
use std::hint::black_box;

use netcond::base::hint::prefetch;
use netcond::base::{Instant, Rate, SplitMix64, TickRate};
use netcond::pcn::{
    AsForm, AsMarkerConfig, AsMarkerProfile, EtMarkerConfig, EtMarkerProfile, EtMarking,
    ExcessMode, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, Node3sm, NodeProfile, PcnMark,
    PcnMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};
use netcond::red::{Packet, Red, RedProfile};

use crate::{flow_indices, flow_permutation, imix_lengths, BENCH_TICKS_PER_PACKET};

/// Packets per burst.
pub const PACKETS: usize = 4096;
/// Links in the many-link benches.
pub const LINKS: u32 = 65_536;

/// The bench clock: ticks of 2.3 GHz.
#[must_use]
pub fn tick() -> TickRate {
    TickRate::from_hz(2_300_000_000).unwrap()
}

/// SR and PCN-excess-rate: 60 MB/s.
#[must_use]
pub fn sr() -> Rate {
    Rate::from_bytes_per_sec(60_000_000)
}

/// AR and PCN-threshold-rate: 50 MB/s.
#[must_use]
pub fn ar() -> Rate {
    Rate::from_bytes_per_sec(50_000_000)
}

/// One burst's packets (lengths and arriving marks) and the many-link
/// benches' link table.
pub struct Stream {
    /// Lengths in bytes.
    pub lens: Vec<u32>,
    /// Arriving states: 14 of 16 NM, 1 ThM, 1 ETM.
    pub marks: Vec<PcnMark>,
    /// The many-link benches' link table: every one of the [`LINKS`] links
    /// once, in a pseudo-random order; successive bursts take successive
    /// slices of [`PACKETS`] ([`next_links`](Self::next_links)), as the
    /// meter benches' flow table does (`meter_stream::Stream::flows`).
    pub links: Vec<u32>,
    /// The slice of `links` the next burst takes.
    next: Cell<usize>,
}

impl Stream {
    /// The link indices of the next burst: the table's slices in turn.
    pub fn next_links(&self) -> &[u32] {
        let k = self.next.get();
        self.next.set((k + 1) % (self.links.len() / PACKETS));
        &self.links[k * PACKETS..(k + 1) * PACKETS]
    }
}

/// The stream every PCN bench uses.
#[must_use]
pub fn stream() -> Stream {
    Stream {
        lens: imix_lengths(PACKETS, 1),
        marks: marks(PACKETS, 2),
        links: flow_permutation(LINKS, 3),
        next: Cell::new(0),
    }
}

/// `n` arriving marks, 14 of 16 NM, 1 ThM, 1 ETM.
#[must_use]
pub fn marks(n: usize, seed: u64) -> Vec<PcnMark> {
    flow_indices(n, 16, seed)
        .into_iter()
        .map(|m| match m {
            0 => PcnMark::Thm,
            1 => PcnMark::Etm,
            _ => PcnMark::Nm,
        })
        .collect()
}

/// The 3sM ET-marker's profile.
#[must_use]
pub fn et_marker(marking: EtMarking) -> EtMarkerProfile {
    EtMarkerProfile::new(
        &EtMarkerConfig::draft_3sm01(sr(), 50_000, 1064)
            .with_already_et_adds_s(true)
            .with_marking(marking)
            .with_tick(tick()),
    )
    .unwrap()
}

/// The 3sM AS-marker's profile.
#[must_use]
pub fn as_marker(form: AsForm) -> AsMarkerProfile {
    AsMarkerProfile::new(
        &AsMarkerConfig::draft_3sm01(ar(), 20_000, 10_000)
            .with_form(form)
            .with_tick(tick()),
    )
    .unwrap()
}

/// The RFC 5670 excess-traffic meter's profile.
#[must_use]
pub fn excess(mode: ExcessMode) -> ExcessTrafficMeterProfile {
    ExcessTrafficMeterProfile::new(
        &ExcessTrafficMeterConfig::new(sr(), 50_000)
            .with_mode(mode)
            .with_tick(tick()),
    )
    .unwrap()
}

/// The RFC 5670 threshold meter's profile.
#[must_use]
pub fn threshold() -> ThresholdMeterProfile {
    ThresholdMeterProfile::new(&ThresholdMeterConfig::new(ar(), 20_000, 10_000).with_tick(tick()))
        .unwrap()
}

/// The 3sM node marker's profile (ET-marker with tail marking, AS-marker of
/// the form of draft-babiarz-pcn-explicit-marking-01).
#[must_use]
pub fn node_3sm() -> NodeProfile<EtMarkerProfile, AsMarkerProfile> {
    NodeProfile {
        excess: et_marker(EtMarking::TailMarking),
        threshold: as_marker(AsForm::DraftExplicitMarking01),
    }
}

/// One burst through one link's meter, its state and clock in locals. Not
/// inlined, with the profile as a `&` argument, as in a router's per-burst
/// function (the caller passes it through `black_box`).
#[inline(never)]
pub fn burst_one<M: PcnMeter>(p: &M::Profile, s: &Stream, m: &mut M, t: &mut u64) -> u32 {
    let (mut mm, mut tt) = (*m, *t);
    let mut acc = 0u32;
    for (&len, &mark) in s.lens.iter().zip(&s.marks) {
        tt += BENCH_TICKS_PER_PACKET;
        acc += u32::from(mm.mark(p, Instant::from_ticks(tt), len, mark).ecn());
    }
    (*m, *t) = (mm, tt);
    acc
}

/// One burst over many links, the stream's next slice of its link table
/// ([`Stream::next_links`]): each packet updates the meter its index names.
/// With `PREFETCH`, the state of the link `AHEAD` packets later is prefetched
/// first (`netcond::base::hint::prefetch`), as `meter_stream::burst_many`
/// and the DPDK loops do.
#[inline(never)]
pub fn burst_many<M: PcnMeter, const PREFETCH: bool>(
    p: &M::Profile,
    s: &Stream,
    links: &mut [M],
    t: &mut u64,
) -> u32 {
    const AHEAD: usize = 8;
    let mut tt = *t;
    let mut acc = 0u32;
    let idx = s.next_links();
    for (i, ((&len, &mark), &l)) in s.lens.iter().zip(&s.marks).zip(idx).enumerate() {
        if PREFETCH {
            if let Some(&next) = idx.get(i + AHEAD) {
                prefetch(&links[next as usize]);
            }
        }
        tt += BENCH_TICKS_PER_PACKET;
        let m = &mut links[l as usize];
        acc += u32::from(m.mark(p, Instant::from_ticks(tt), len, mark).ecn());
    }
    *t = tt;
    acc
}

/// The 3sM node marker and RED's enqueue decision on every packet of one
/// link, as an interior node runs them: the node marks the packet, then RED
/// decides on it at queue length `q` (opaque per packet). State, clock and
/// generator in locals for the burst.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn node_red_burst(
    np: &NodeProfile<EtMarkerProfile, AsMarkerProfile>,
    rp: &RedProfile,
    s: &Stream,
    node: &mut Node3sm,
    red: &mut Red,
    rng: &mut SplitMix64,
    t: &mut u64,
    q: u32,
) -> u32 {
    let (mut n, mut r, mut g, mut tt) = (*node, *red, *rng, *t);
    let mut acc = 0u32;
    for (&len, &mark) in s.lens.iter().zip(&s.marks) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let m = n.mark(np, now, len, mark);
        let d = r.on_arrival(rp, now, black_box(q), Packet::not_ect(len), &mut g);
        acc += u32::from(m.ecn()) + u32::from(d.is_drop());
    }
    (*node, *red, *rng, *t) = (n, r, g, tt);
    acc
}
