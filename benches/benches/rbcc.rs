//! RBCC per-packet stamping and fair-share recomputation; RCP stamping.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use netcond::base::{Instant, RandomSource, Rate, SplitMix64};
use netcond::rbcc::rcp::{Rcp, RcpConfig, RcpProfile};
use netcond::rbcc::{
    AckHeader, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};
use netcond_benches::{flow_indices, BENCH_TICKS_PER_PACKET};

const BATCH: usize = 4096;

fn profile() -> RbccProfile {
    RbccProfile::new(&RbccConfig::toomey_scenario7(
        NodeId(1),
        Rate::from_mbps(10_000),
    ))
    .unwrap()
}

/// A table of `flows` flows; a third of them are held elsewhere at random
/// rates, a sixth ask for a random rate, and there are `flows / 8` ACK flows.
fn populated<const N: usize>(p: &RbccProfile, flows: u32) -> RbccInterface<N> {
    let mut t = RbccInterface::<N>::new(p, Instant::ZERO);
    let mut r = SplitMix64::new(9);
    for f in 0..flows {
        let req = if r.below(6) == 0 {
            FixedRate::from_bps(1_000 + u64::from(r.below(50_000_000)))
        } else {
            FixedRate::UNLIMITED
        };
        let mut h = RateHeader::new(req);
        t.on_data(p, Instant::ZERO, f, &mut h).unwrap();
        if r.below(3) == 0 {
            let a = AckHeader {
                rate: FixedRate::from_bps(1_000 + u64::from(r.below(20_000_000))),
                bottleneck: NodeId(2),
            };
            t.on_return(p, Instant::ZERO, f, &a);
        }
    }
    for f in 0..flows / 8 {
        let mut a = AckHeader {
            rate: FixedRate::from_bps(u64::from(r.below(10_000_000))),
            bottleneck: NodeId(2),
        };
        // ACK flows are keyed apart from data flows, so the ids may overlap.
        t.on_ack(p, Instant::ZERO, f, &mut a).unwrap();
    }
    t
}

fn stamp_for<const N: usize>(c: &mut Criterion, flows: u32) {
    let p = profile();
    let mut t = populated::<N>(&p, flows);
    let idx = flow_indices(BATCH, flows, 5);
    let mut g = c.benchmark_group("rbcc_on_data");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function(BenchmarkId::from_parameter(flows), |b| {
        let mut now = 0u64;
        b.iter(|| {
            for &f in &idx {
                now += BENCH_TICKS_PER_PACKET;
                let req = t.data(f).map_or(FixedRate::UNLIMITED, |e| e.requested);
                let mut h = RateHeader::new(req);
                let _ = t.on_data(&p, Instant::from_ticks(now), black_box(f), &mut h);
                black_box(h);
            }
        });
    });
    g.finish();
}

fn stamping(c: &mut Criterion) {
    // Tables sized at twice the rows (flows plus ACK flows) they hold.
    stamp_for::<32>(c, 16);
    stamp_for::<2048>(c, 1024);
    // The header's requested rate per flow, precomputed, so only on_data is timed.
    let p = profile();
    let mut t = populated::<2048>(&p, 1024);
    let idx = flow_indices(BATCH, 1024, 5);
    let reqs: Vec<FixedRate> = idx.iter().map(|&f| t.data(f).unwrap().requested).collect();
    let mut g = c.benchmark_group("rbcc_on_data_only");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("1024", |b| {
        let mut now = 0u64;
        b.iter(|| {
            for (&f, &req) in idx.iter().zip(&reqs) {
                now += BENCH_TICKS_PER_PACKET;
                let mut h = RateHeader::new(req);
                let _ = t.on_data(&p, Instant::from_ticks(now), f, &mut h);
                black_box(h);
            }
        });
    });
    g.finish();

    let rp = RcpProfile::new(&RcpConfig::new(
        NodeId(1),
        Rate::from_mbps(10_000),
        std::time::Duration::from_millis(100),
    ))
    .unwrap();
    let mut s = Rcp::new(&rp, Instant::ZERO);
    let mut g = c.benchmark_group("rcp_on_data");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("stateless", |b| {
        b.iter(|| {
            for &f in &idx {
                let mut h = RateHeader::new(FixedRate::UNLIMITED);
                let _ = s.on_data(&rp, Instant::ZERO, f, &mut h);
                s.on_arrival(&rp, Instant::ZERO, 1500);
                black_box(h);
            }
        });
    });
    g.finish();
}

fn recompute_for<const N: usize>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    flows: u32,
) {
    let p = profile();
    let mut t = populated::<N>(&p, flows);
    g.bench_function(BenchmarkId::from_parameter(flows), |b| {
        b.iter(|| {
            t.recompute(black_box(&p));
            black_box(t.advertised());
        });
    });
}

fn recomputation(c: &mut Criterion) {
    let mut g = c.benchmark_group("rbcc_recompute");
    g.throughput(Throughput::Elements(1));
    recompute_for::<32>(&mut g, 16);
    recompute_for::<512>(&mut g, 256);
    recompute_for::<2048>(&mut g, 1024);
    g.finish();
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = stamping, recomputation
}
criterion_main!(benches);
