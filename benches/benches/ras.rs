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
//!
//! The token bucket filter (`tbf`, rate 40 MB/s, burst 3000 B, limit 256 KB;
//! `tbf-peak` adds a peak rate of 125 MB/s with mtu 1518) runs the same two
//! modes, the head offered at the arrival and, when the state answers with
//! its watchdog instant, again then.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use netcond::base::Instant;
use netcond::ras::{Ear, EarProfile, GreenMeter, Ras, RasProfile};
use netcond::trtcm::{SrTcm, TrTcm};
use netcond_benches::ras_stream::{
    ras_burst, sr_profile, srtcm, tbf_burst, tbf_profile, tr_profile, trtcm, GreenBench,
    GreenBurst, TbfBench, BACKLOG, CAP, PACKETS,
};
use netcond_benches::{imix_lengths, BENCH_TICKS_PER_PACKET};

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
    let mut e = Ear::new(p.ear(), Instant::ZERO);
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

fn plain(c: &mut Criterion, name: &str, p: &RasProfile) {
    let lens = imix_lengths(PACKETS, 2);
    let mut g = c.benchmark_group(format!("ras/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut s: Ras<u32, CAP> = Ras::new(p, Instant::ZERO);
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
    let mut s: Ras<u32, CAP> = Ras::new(p, Instant::ZERO);
    for &len in &lens[..BACKLOG] {
        let _ = s.enqueue(p, Instant::ZERO, len);
    }
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("enqueue+dequeue", "backlog"), |b| {
        b.iter(|| black_box(ras_burst(black_box(p), &mut s, &mut t, &lens, 0)));
    });
    g.finish();
}

fn green<M: GreenMeter>(c: &mut Criterion, name: &str, p: &RasProfile, mp: &M::Profile)
where
    M::Profile: Clone,
{
    let mut g = c.benchmark_group(format!("ras/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    for (mode, backlog) in [("idle", false), ("backlog", true)] {
        let mut bench = GreenBench::<M>::new(p, mp, backlog);
        g.bench_function(BenchmarkId::new("enqueue+dequeue", mode), |b| {
            b.iter(|| black_box(bench.burst()));
        });
    }
    g.finish();
}

fn tbf(c: &mut Criterion, name: &str, peak: bool) {
    let p = tbf_profile(peak);
    let lens = imix_lengths(PACKETS, 2);
    let mut g = c.benchmark_group(format!("ras/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    for (mode, backlog, gap) in [
        ("idle", false, BENCH_TICKS_PER_PACKET),
        ("backlog", true, 0),
    ] {
        let mut b = TbfBench::new(&p, &lens, backlog);
        let mut t = 0u64;
        g.bench_function(BenchmarkId::new("enqueue+dequeue", mode), |bn| {
            bn.iter(|| black_box(tbf_burst(black_box(&p), &mut b, &mut t, &lens, gap)));
        });
    }
    g.finish();
}

fn shapers(c: &mut Criterion) {
    let sr = sr_profile();
    let tr = tr_profile();
    plain(c, "srRAS", &sr);
    plain(c, "trRAS", &tr);
    green::<SrTcm>(c, "G-srRAS", &sr, &srtcm());
    green::<TrTcm>(c, "G-trRAS", &tr, &trtcm());
    tbf(c, "tbf", false);
    tbf(c, "tbf-peak", true);
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = ear, shapers
}
criterion_main!(benches);
