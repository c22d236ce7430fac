//! Per-packet cost of the RFC 2963 rate adaptive shapers and their EAR estimator.
//!
//! Clock 2.3 GHz; lengths 64/576/1518 in 4:3:1 from a 4096-entry table; arrivals
//! `BENCH_TICKS_PER_PACKET` ticks apart (about 80 MB/s offered). Shapers: CIR
//! 40 MB/s, PIR 60 MB/s (trRAS), MIR = line rate 125 MB/s, 256 KB buffer,
//! thresholds 64/128/192 KB, K = 100 ms; G-variants with an srTCM / trTCM of the
//! same rates, CBS 3000 B and EBS / PBS 6000 B. One criterion iteration runs 4096
//! enqueue + dequeue pairs; throughput is per pair.
//!
//! - `idle`: each packet is enqueued, then dequeued at `max(now, next_release)`,
//!   so the FIFO holds at most one packet and time follows the releases.
//! - `backlog`: the FIFO is kept at 32 packets: each enqueue is followed by the
//!   dequeue of the head at its release instant.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use netcond::core::{Instant, Rate, TickRate};
use netcond::ras::{
    Ear, EarProfile, GreenMeter, GreenRas, Ras, RasProfile, SrRasConfig, SrRasProfile,
    SrThresholds, TrRasConfig, TrRasProfile, TrThresholds,
};
use netcond::trtcm::{SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile};
use netcond_benches::{imix_lengths, BENCH_TICKS_PER_PACKET};

const PACKETS: usize = 4096;
const CAP: usize = 64;
const BACKLOG: usize = 32;

fn tick() -> TickRate {
    TickRate::from_hz(2_300_000_000).unwrap()
}

fn sr_profile() -> RasProfile {
    let mut c = SrRasConfig::new(
        Rate::from_bytes_per_sec(40_000_000),
        Rate::from_bytes_per_sec(125_000_000),
        256_000,
    );
    c.thresholds = Some(SrThresholds {
        cir_th: 64_000,
        mir_th: 192_000,
    });
    c.tick = tick();
    SrRasProfile::new(&c).unwrap().into()
}

fn tr_profile() -> RasProfile {
    let mut c = TrRasConfig::new(
        Rate::from_bytes_per_sec(40_000_000),
        Rate::from_bytes_per_sec(60_000_000),
        Rate::from_bytes_per_sec(125_000_000),
        256_000,
    );
    c.thresholds = Some(TrThresholds {
        cir_th: 64_000,
        pir_th: 128_000,
        mir_th: 192_000,
    });
    c.tick = tick();
    TrRasProfile::new(&c).unwrap().into()
}

fn srtcm() -> SrTcmProfile {
    SrTcmProfile::new(&SrTcmConfig {
        cir: Rate::from_bytes_per_sec(40_000_000),
        cbs: 3000,
        ebs: 6000,
        tick: tick(),
    })
    .unwrap()
}

fn trtcm() -> TrTcmProfile {
    TrTcmProfile::new(&TrTcmConfig {
        cir: Rate::from_bytes_per_sec(40_000_000),
        pir: Rate::from_bytes_per_sec(60_000_000),
        cbs: 3000,
        pbs: 6000,
        tick: tick(),
    })
    .unwrap()
}

/// One burst of EAR updates, `gap` ticks apart. Not inlined, with the profile
/// as a `&` argument, as in a per-burst function (the caller passes it through
/// `black_box`); the estimator and clock are in locals for the burst.
#[inline(never)]
fn ear_burst(ep: &EarProfile, e: &mut Ear, t: &mut u64, lens: &[u32], gap: u64) -> u64 {
    let (mut ee, mut tt) = (*e, *t);
    for &len in lens {
        tt += gap;
        ee.update(ep, Instant::from_ticks(tt), len);
    }
    (*e, *t) = (ee, tt);
    ee.raw()
}

fn ear(c: &mut Criterion) {
    let lens = imix_lengths(PACKETS, 1);
    let p = tr_profile();
    let mut g = c.benchmark_group("ras/ear");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut e = Ear::new(Instant::ZERO);
    let mut t = 0u64;
    g.bench_function("update", |b| {
        b.iter(|| {
            black_box(ear_burst(
                black_box(p.ear()),
                &mut e,
                &mut t,
                &lens,
                BENCH_TICKS_PER_PACKET,
            ))
        });
    });
    g.bench_function("update_back_to_back", |b| {
        b.iter(|| black_box(ear_burst(black_box(p.ear()), &mut e, &mut t, &lens, 7)));
    });
    g.finish();
}

/// One burst of enqueue + dequeue pairs through a shaper. With `gap > 0` each
/// packet arrives `gap` ticks after the previous one (`idle`); with `gap == 0`
/// it arrives at the last release (`backlog`). Not inlined, with the profile as
/// a `&` argument (the caller passes it through `black_box`).
#[inline(never)]
fn ras_burst(p: &RasProfile, s: &mut Ras<u32, CAP>, t: &mut u64, lens: &[u32], gap: u64) -> u64 {
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

fn plain(c: &mut Criterion, name: &str, p: &RasProfile) {
    let lens = imix_lengths(PACKETS, 2);
    let mut g = c.benchmark_group(format!("ras/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut s: Ras<u32, CAP> = Ras::new(Instant::ZERO);
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("enqueue+dequeue", "idle"), |b| {
        b.iter(|| {
            black_box(ras_burst(
                black_box(p),
                &mut s,
                &mut t,
                &lens,
                BENCH_TICKS_PER_PACKET,
            ))
        });
    });
    let mut s: Ras<u32, CAP> = Ras::new(Instant::ZERO);
    for &len in &lens[..BACKLOG] {
        let _ = s.enqueue(p, Instant::ZERO, len);
    }
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("enqueue+dequeue", "backlog"), |b| {
        b.iter(|| black_box(ras_burst(black_box(p), &mut s, &mut t, &lens, 0)));
    });
    g.finish();
}

fn green<M: GreenMeter>(c: &mut Criterion, name: &str, p: &RasProfile, mp: &M::Profile) {
    let lens = imix_lengths(PACKETS, 3);
    let mut g = c.benchmark_group(format!("ras/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut s: GreenRas<u32, CAP> = GreenRas::new(Instant::ZERO);
    let mut m = M::start(mp, Instant::ZERO);
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("enqueue+dequeue", "idle"), |b| {
        b.iter(|| {
            let p = black_box(p);
            let mut acc = 0usize;
            for &len in &lens {
                t += BENCH_TICKS_PER_PACKET;
                let _ = s.enqueue(p, mp, &m, Instant::from_ticks(t), len);
                if let Some(r) = s.next_release() {
                    t = t.max(r.ticks());
                    if let Some((_, col)) = s.dequeue(p, mp, &mut m, Instant::from_ticks(t)) {
                        acc += col.index();
                    }
                }
            }
            black_box(acc)
        });
    });
    let mut s: GreenRas<u32, CAP> = GreenRas::new(Instant::ZERO);
    let mut m = M::start(mp, Instant::ZERO);
    for &len in &lens[..BACKLOG] {
        let _ = s.enqueue(p, mp, &m, Instant::ZERO, len);
    }
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("enqueue+dequeue", "backlog"), |b| {
        b.iter(|| {
            let p = black_box(p);
            let mut acc = 0usize;
            for &len in &lens {
                let _ = s.enqueue(p, mp, &m, Instant::from_ticks(t), len);
                if let Some(r) = s.next_release() {
                    t = t.max(r.ticks());
                    if let Some((_, col)) = s.dequeue(p, mp, &mut m, Instant::from_ticks(t)) {
                        acc += col.index();
                    }
                }
            }
            black_box(acc)
        });
    });
    g.finish();
}

fn shapers(c: &mut Criterion) {
    let sr = sr_profile();
    let tr = tr_profile();
    plain(c, "srRAS", &sr);
    plain(c, "trRAS", &tr);
    green::<SrTcm>(c, "G-srRAS", &sr, &srtcm());
    green::<TrTcm>(c, "G-trRAS", &tr, &trtcm());
}

/// The machine's state before and after this binary's benches
/// (`netcond_benches::machine`): two lines per run in the table.
fn machine_start(c: &mut Criterion) {
    netcond_benches::machine::bench(c, "ras/start");
}

fn machine_end(c: &mut Criterion) {
    netcond_benches::machine::bench(c, "ras/end");
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = machine_start, ear, shapers, machine_end
}
criterion_main!(benches);
