//! The RAS benches' profiles and per-burst loops (docs/performance.md):
//! shared by `benches/ras.rs` and the `contention` example.
use netcond::base::{Instant, Rate, TickRate};
use netcond::ras::{
    GreenMeter, GreenRas, Ras, RasProfile, SrRasConfig, SrRasProfile, SrThresholds, Tbf, TbfConfig,
    TbfDeparture, TbfProfile, TbfVerdict, TrRasConfig, TrRasProfile, TrThresholds,
};
use netcond::trtcm::{SrTcmConfig, SrTcmProfile, TrTcmConfig, TrTcmProfile};
use std::hint::black_box;

use crate::{imix_lengths, BENCH_TICKS_PER_PACKET};

/// Pairs per criterion iteration.
pub const PACKETS: usize = 4096;
/// FIFO capacity in packets.
pub const CAP: usize = 64;
/// Packets held in the `backlog` benches.
pub const BACKLOG: usize = 32;

/// The bench clock: ticks of 2.3 GHz.
#[must_use]
pub fn tick() -> TickRate {
    TickRate::from_hz(2_300_000_000).unwrap()
}

/// srRAS: CIR 40 MB/s, MIR 125 MB/s, 256 KB buffer, thresholds 64/192 KB.
#[must_use]
pub fn sr_profile() -> RasProfile {
    let mut c = SrRasConfig::new(
        Rate::from_bytes_per_sec(40_000_000),
        Rate::from_bytes_per_sec(125_000_000),
        256_000,
    );
    c.thresholds = Some(SrThresholds::new(64_000, 192_000));
    c.tick = tick();
    SrRasProfile::new(&c).unwrap().into()
}

/// trRAS: CIR 40, PIR 60, MIR 125 MB/s, 256 KB buffer, thresholds 64/128/192 KB.
#[must_use]
pub fn tr_profile() -> RasProfile {
    let mut c = TrRasConfig::new(
        Rate::from_bytes_per_sec(40_000_000),
        Rate::from_bytes_per_sec(60_000_000),
        Rate::from_bytes_per_sec(125_000_000),
        256_000,
    );
    c.thresholds = Some(TrThresholds::new(64_000, 128_000, 192_000));
    c.tick = tick();
    TrRasProfile::new(&c).unwrap().into()
}

/// The G-srRAS meter: CIR 40 MB/s, CBS 3000 B, EBS 6000 B.
#[must_use]
pub fn srtcm() -> SrTcmProfile {
    SrTcmProfile::new(
        &SrTcmConfig::new(Rate::from_bytes_per_sec(40_000_000), 3000, 6000).with_tick(tick()),
    )
    .unwrap()
}

/// The G-trRAS meter: CIR 40, PIR 60 MB/s, CBS 3000 B, PBS 6000 B.
#[must_use]
pub fn trtcm() -> TrTcmProfile {
    TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(40_000_000),
            Rate::from_bytes_per_sec(60_000_000),
            3000,
            6000,
        )
        .with_tick(tick()),
    )
    .unwrap()
}

/// One burst of enqueue + dequeue pairs through a shaper. With `gap > 0` each
/// packet arrives `gap` ticks after the previous one (`idle`); with `gap == 0`
/// it arrives at the last release (`backlog`). Not inlined, with the profile as
/// a `&` argument (the caller passes it through `black_box`).
#[inline(never)]
pub fn ras_burst(
    p: &RasProfile,
    s: &mut Ras<u32, CAP>,
    t: &mut u64,
    lens: &[u32],
    gap: u64,
) -> u64 {
    let mut tt = *t;
    let mut acc = 0u64;
    for &len in lens {
        tt += gap;
        let _ = s.enqueue(p, Instant::from_ticks(tt), len);
        if let Some(r) = s.next_release() {
            tt = tt.max(r.ticks());
            acc += s.dequeue(p, Instant::from_ticks(tt)).unwrap_or(0) as u64;
        }
    }
    *t = tt;
    acc
}

/// The token bucket filter: rate 40 MB/s, burst 3000 B, limit 256 KB, and
/// with `peak` a peak rate of 125 MB/s (the line) with mtu 1518 (`tc qdisc
/// add ... tbf rate 320mbit burst 3000 limit 256000 [peakrate 1gbit mtu
/// 1518]`).
#[must_use]
pub fn tbf_profile(peak: bool) -> TbfProfile {
    let c = TbfConfig::with_limit(Rate::from_bytes_per_sec(40_000_000), 3000, 256_000)
        .with_tick(tick());
    let c = if peak {
        c.with_peak(Rate::from_bytes_per_sec(125_000_000), 1518)
    } else {
        c
    };
    TbfProfile::new(&c).unwrap()
}

/// A token bucket filter with the FIFO of packet lengths its caller keeps
/// (a ring of [`CAP`] entries: the state holds no packets).
pub struct TbfBench {
    /// The state.
    pub s: Tbf,
    ring: [u32; CAP],
    head: usize,
    len: usize,
}

impl TbfBench {
    /// Full buckets at time 0; with `backlog`, the first [`BACKLOG`] of
    /// `lens` queued.
    #[must_use]
    pub fn new(p: &TbfProfile, lens: &[u32], backlog: bool) -> TbfBench {
        let mut b = TbfBench {
            s: Tbf::new(p, Instant::ZERO),
            ring: [0; CAP],
            head: 0,
            len: 0,
        };
        if backlog {
            for &len in &lens[..BACKLOG] {
                if b.s.enqueue(p, Instant::ZERO, len) == TbfVerdict::Accept {
                    b.push(len);
                }
            }
        }
        b
    }

    #[inline(always)]
    fn push(&mut self, len: u32) {
        if self.len < CAP {
            self.ring[(self.head + self.len) % CAP] = len;
            self.len += 1;
        }
    }
}

/// One burst of enqueue + dequeue pairs through a token bucket filter, as
/// [`ras_burst`]: each packet is enqueued (`gap` ticks after the previous
/// one, or at the last departure with `gap == 0`), then the head is offered
/// at that instant and, when the state answers with its watchdog instant,
/// offered again then (two `dequeue` calls, as Linux's watchdog makes).
/// Returns the bytes sent. Not inlined, with the profile as a `&` argument.
#[inline(never)]
pub fn tbf_burst(p: &TbfProfile, b: &mut TbfBench, t: &mut u64, lens: &[u32], gap: u64) -> u64 {
    let mut tt = *t;
    let mut acc = 0u64;
    for &len in lens {
        tt += gap;
        if b.s.enqueue(p, Instant::from_ticks(tt), len) == TbfVerdict::Accept {
            b.push(len);
        }
        if b.len == 0 {
            continue;
        }
        let head = b.ring[b.head];
        let mut d = b.s.dequeue(p, Instant::from_ticks(tt), head);
        if let TbfDeparture::At(at) = d {
            tt = at.ticks();
            d = b.s.dequeue(p, at, head);
        }
        if d == TbfDeparture::Now {
            b.head = (b.head + 1) % CAP;
            b.len -= 1;
            acc += u64::from(head);
        }
    }
    *t = tt;
    acc
}

/// One burst of enqueue + dequeue pairs through a green shaper and its meter,
/// as [`ras_burst`]: `gap > 0` is `idle`, `gap == 0` is `backlog`. Returns the
/// sum of the released packets' color indices.
#[inline(never)]
pub fn green_burst<M: GreenMeter>(
    p: &RasProfile,
    mp: &M::Profile,
    s: &mut GreenRas<u32, CAP>,
    m: &mut M,
    t: &mut u64,
    lens: &[u32],
    gap: u64,
) -> usize {
    let mut tt = *t;
    let mut acc = 0usize;
    for &len in lens {
        tt += gap;
        let _ = s.enqueue(p, mp, m, Instant::from_ticks(tt), len);
        if let Some(r) = s.next_release() {
            tt = tt.max(r.ticks());
            if let Some((_, col)) = s.dequeue(p, mp, m, Instant::from_ticks(tt)) {
                acc += col.index();
            }
        }
    }
    *t = tt;
    acc
}

/// One green shaper bench, as `benches/ras.rs` and the `contention` example
/// run it: the shaper, its meter and clock, the profiles and the lengths.
pub struct GreenBench<M: GreenMeter> {
    p: RasProfile,
    mp: M::Profile,
    s: GreenRas<u32, CAP>,
    m: M,
    t: u64,
    lens: Vec<u32>,
    gap: u64,
}

impl<M: GreenMeter> GreenBench<M>
where
    M::Profile: Clone,
{
    /// `backlog`: the FIFO starts with [`BACKLOG`] packets and each arrival
    /// follows the last release; otherwise (`idle`) packets arrive
    /// [`BENCH_TICKS_PER_PACKET`] ticks apart.
    #[must_use]
    pub fn new(p: &RasProfile, mp: &M::Profile, backlog: bool) -> Self {
        let lens = imix_lengths(PACKETS, 3);
        let mut s = GreenRas::new(p, Instant::ZERO);
        let m = M::start(mp, Instant::ZERO);
        if backlog {
            for &len in &lens[..BACKLOG] {
                let _ = s.enqueue(p, mp, &m, Instant::ZERO, len);
            }
        }
        GreenBench {
            p: *p,
            mp: mp.clone(),
            s,
            m,
            t: 0,
            lens,
            gap: if backlog { 0 } else { BENCH_TICKS_PER_PACKET },
        }
    }
}

/// A green shaper bench of either meter, behind one type.
pub trait GreenBurst {
    /// One burst of [`PACKETS`] pairs through [`green_burst`], with both
    /// profiles passed through `black_box`.
    fn burst(&mut self) -> u64;
}

impl<M: GreenMeter> GreenBurst for GreenBench<M> {
    fn burst(&mut self) -> u64 {
        green_burst(
            black_box(&self.p),
            black_box(&self.mp),
            &mut self.s,
            &mut self.m,
            &mut self.t,
            &self.lens,
            self.gap,
        ) as u64
    }
}
