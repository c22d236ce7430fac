//! Per-packet cost of the three-color markers and the premium policer.
//!
//! Stream: CIR 46e6 B/s, PIR/EIR 69e6 B/s, CBS 2048, PBS/EBS 4096 (DPDK's meter
//! test profile) on a 2.3 GHz tick clock; lengths 64/576/1518 in 4:3:1 from a
//! 4096-entry table; arrivals `BENCH_TICKS_PER_PACKET` ticks apart (about 80 MB/s
//! offered, between CIR and PIR, so all three colors occur). One flow, or 65,536
//! flows sharing one profile with each packet sent to a pseudo-random flow. Each
//! criterion iteration colors 4096 packets; throughput is per packet.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use netcond::base::{Instant, Rate};
use netcond::trtcm::{
    Compact, CompactProfile, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115,
    Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, ThreeColorMarker, TrTcm,
    TrTcmConfig, TrTcmProfile,
};
use netcond_benches::meter_stream::{burst_many, burst_one, stream, tick, Stream, FLOWS, PACKETS};
use netcond_benches::{division_baseline, harness_floor, BENCH_TICKS_PER_PACKET};

/// One flow: the state stays in registers / L1, time advances between batches.
fn one_flow<M: ThreeColorMarker, const AWARE: bool>(
    c: &mut Criterion,
    name: &str,
    profile: &M::Profile,
    s: &Stream,
) {
    let mut g = c.benchmark_group(format!("trtcm/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mode = if AWARE { "color_aware" } else { "color_blind" };
    let mut m = M::start(profile, Instant::ZERO);
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new(mode, "1 flow"), |b| {
        b.iter(|| {
            black_box(burst_one::<M, AWARE>(
                black_box(profile),
                &s.lens,
                &s.colors,
                &mut m,
                &mut t,
            ))
        });
    });
    g.finish();
}

/// 65,536 flows sharing one profile; each packet goes to a pseudo-random flow.
/// Measured twice: as is, and with the caller prefetching each flow's state
/// eight packets ahead.
fn many_flows<M: ThreeColorMarker, const AWARE: bool>(
    c: &mut Criterion,
    name: &str,
    profile: &M::Profile,
    s: &Stream,
) {
    let mut g = c.benchmark_group(format!("trtcm/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mode = if AWARE { "color_aware" } else { "color_blind" };
    let mut flows = vec![M::start(profile, Instant::ZERO); FLOWS as usize];
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new(mode, "65536 flows"), |b| {
        b.iter(|| {
            black_box(burst_many::<M, AWARE, false>(
                black_box(profile),
                s,
                &mut flows,
                &mut t,
            ))
        });
    });
    g.bench_function(BenchmarkId::new(mode, "65536 flows prefetched"), |b| {
        b.iter(|| {
            black_box(burst_many::<M, AWARE, true>(
                black_box(profile),
                s,
                &mut flows,
                &mut t,
            ))
        });
    });
    g.finish();
}

fn markers(c: &mut Criterion) {
    let s = stream();
    let sr = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap();
    let tr = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap();
    let r4 = Rfc4115Profile::new(&Rfc4115Config::default().with_tick(tick())).unwrap();
    one_flow::<SrTcm, false>(c, "srtcm", &sr, &s);
    many_flows::<SrTcm, false>(c, "srtcm", &sr, &s);
    one_flow::<SrTcm, true>(c, "srtcm", &sr, &s);
    many_flows::<SrTcm, true>(c, "srtcm", &sr, &s);
    one_flow::<TrTcm, false>(c, "trtcm", &tr, &s);
    many_flows::<TrTcm, false>(c, "trtcm", &tr, &s);
    one_flow::<TrTcm, true>(c, "trtcm", &tr, &s);
    many_flows::<TrTcm, true>(c, "trtcm", &tr, &s);
    // The same stream through a division-based trTCM in the style of DPDK's
    // rte_meter, measured side by side in the same run.
    let dpdk = division_baseline::Profile::new(2_300_000_000, 46_000_000, 69_000_000, 2048, 4096);
    one_flow::<division_baseline::TrTcm, false>(c, "division_baseline", &dpdk, &s);
    many_flows::<division_baseline::TrTcm, false>(c, "division_baseline", &dpdk, &s);
    // The loop alone, with a marker that does nothing but keep the timestamp.
    one_flow::<harness_floor::Null, false>(c, "harness_floor", &1000, &s);
    many_flows::<harness_floor::Null, false>(c, "harness_floor", &1000, &s);
    one_flow::<Rfc4115, false>(c, "rfc4115", &r4, &s);
    many_flows::<Rfc4115, false>(c, "rfc4115", &r4, &s);
    one_flow::<Rfc4115, true>(c, "rfc4115", &r4, &s);
    many_flows::<Rfc4115, true>(c, "rfc4115", &r4, &s);
    // The same markers with the 16-byte per-flow state (`Compact`), color-blind.
    let compact = |e| format!("{e}_compact16");
    let sr16 = CompactProfile::new(sr).unwrap();
    let tr16 = CompactProfile::new(tr).unwrap();
    let r416 = CompactProfile::new(r4).unwrap();
    many_flows::<Compact<SrTcm>, false>(c, &compact("srtcm"), &sr16, &s);
    many_flows::<Compact<TrTcm>, false>(c, &compact("trtcm"), &tr16, &s);
    many_flows::<Compact<Rfc4115>, false>(c, &compact("rfc4115"), &r416, &s);
}

/// The premium policer: one flow offered the same stream at 1.25 x its committed
/// rate (64 MB/s committed, 80 MB/s offered), its buffer drained by a fixed
/// 1518 bytes every other packet.
fn policer(c: &mut Criterion) {
    let s = stream();
    let p = PremiumPolicerProfile::new(
        &PremiumPolicerConfig::new(Rate::from_bytes_per_sec(64_000_000), 16_384, 20_000, 1518)
            .with_tick(tick()),
    )
    .unwrap();
    let mut g = c.benchmark_group("trtcm/policer");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut st = PremiumPolicer::new(&p, Instant::ZERO);
    let mut t = 0u64;
    g.bench_function("offer", |b| {
        b.iter(|| {
            let p = black_box(&p);
            let (mut ss, mut tt) = (st, t);
            let mut acc = 0usize;
            for i in 0..PACKETS {
                tt += BENCH_TICKS_PER_PACKET;
                acc += ss.offer(p, Instant::from_ticks(tt), s.lens[i]).index();
                if i % 2 == 1 {
                    ss.dequeued(1518);
                }
            }
            (st, t) = (ss, tt);
            black_box(acc)
        });
    });
    g.finish();
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = markers, policer
}
criterion_main!(benches);
