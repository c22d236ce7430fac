//! A million flows (`netcond_benches::million`): 1,048,576 flows sharing one
//! profile, random flow order, receive bursts of 32 packets with one
//! timestamp; each criterion iteration colors 4096 packets, throughput is per
//! packet. trTCM and srTCM (color-blind) and the 3sM node marker, each through
//! its per-packet call (`plain`), through it with the caller prefetching each
//! flow's state eight packets ahead as DPDK's loop does (`prefetched`), and
//! through the burst API (`burst`); with the
//! `dpdk` feature, DPDK 22.11's rte_meter on the same flow order, per packet,
//! as is and with each flow's state prefetched eight packets ahead.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use netcond::base::Instant;
use netcond::pcn::Node3sm;
use netcond::trtcm::{
    SrTcm, SrTcmConfig, SrTcmProfile, ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile,
};
use netcond_benches::meter_stream::tick;
use netcond_benches::million::{
    pcn_burst, pcn_plain, pcn_prefetched, tcm_burst, tcm_plain, tcm_prefetched, Million, FLOWS,
};
use netcond_benches::pcn_stream::node_3sm;

fn tcm<M: ThreeColorMarker>(c: &mut Criterion, name: &str, p: &M::Profile, s: &Million) {
    let mut g = c.benchmark_group(format!("million/{name}"));
    g.throughput(Throughput::Elements(s.lens.len() as u64));
    let mut states = vec![M::start(p, Instant::ZERO); FLOWS as usize];
    let (mut t, mut k) = (0u64, 0usize);
    g.bench_function("plain", |b| {
        b.iter(|| {
            k += 1;
            black_box(tcm_plain(
                black_box(p),
                &mut states,
                s.flows_of(k),
                &s.lens,
                &mut t,
            ))
        });
    });
    g.bench_function("prefetched", |b| {
        b.iter(|| {
            k += 1;
            black_box(tcm_prefetched(
                black_box(p),
                &mut states,
                s.flows_of(k),
                &s.lens,
                &mut t,
            ))
        });
    });
    g.bench_function("burst", |b| {
        b.iter(|| {
            k += 1;
            black_box(tcm_burst(
                black_box(p),
                &mut states,
                s.flows_of(k),
                &s.lens,
                &mut t,
            ))
        });
    });
    g.finish();
}

fn markers(c: &mut Criterion) {
    let s = Million::new();
    let tr = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap();
    let sr = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap();
    tcm::<TrTcm>(c, "trtcm", &tr, &s);
    tcm::<SrTcm>(c, "srtcm", &sr, &s);

    let np = node_3sm();
    let mut g = c.benchmark_group("million/node_3sm");
    g.throughput(Throughput::Elements(s.lens.len() as u64));
    let mut states = vec![Node3sm::new(&np, Instant::ZERO); FLOWS as usize];
    let (mut t, mut k) = (0u64, 0usize);
    g.bench_function("plain", |b| {
        b.iter(|| {
            k += 1;
            black_box(pcn_plain(
                black_box(&np),
                &mut states,
                &s,
                s.flows_of(k),
                &mut t,
            ))
        });
    });
    g.bench_function("prefetched", |b| {
        b.iter(|| {
            k += 1;
            black_box(pcn_prefetched(
                black_box(&np),
                &mut states,
                &s,
                s.flows_of(k),
                &mut t,
            ))
        });
    });
    g.bench_function("burst", |b| {
        b.iter(|| {
            k += 1;
            black_box(pcn_burst(
                black_box(&np),
                &mut states,
                &s,
                s.flows_of(k),
                &mut t,
            ))
        });
    });
    g.finish();
    #[cfg(feature = "dpdk")]
    dpdk_side(c, &s);
}

#[cfg(feature = "dpdk")]
#[path = "../dpdk/ffi.rs"]
mod dpdk;

#[cfg(feature = "dpdk")]
fn dpdk_side(c: &mut Criterion, s: &Million) {
    use netcond_benches::million::{PACKETS, TABLE};
    const HZ: u64 = 2_300_000_000;
    let tr = dpdk::TrTcmProfile::new(HZ, 46_000_000, 69_000_000, 2048, 4096).unwrap();
    let sr = dpdk::SrTcmProfile::new(HZ, 46_000_000, 2048, 4096).unwrap();
    let bursts: Vec<dpdk::Burst<'_>> = (0..TABLE / PACKETS)
        .map(|k| dpdk::Burst::new(&s.lens, s.flows_of(k), FLOWS as usize))
        .collect();
    let n = bursts.len();
    let mut g = c.benchmark_group("million/dpdk_trtcm");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut states = vec![dpdk::TrTcm::start(&tr, 0); FLOWS as usize];
    let (mut t, mut k) = (0u64, 0usize);
    g.bench_function("plain", |b| {
        b.iter(|| {
            k += 1;
            dpdk::trtcm_burst_many::<false>(black_box(&tr), &bursts[k % n], &mut states, &mut t)
        });
    });
    g.bench_function("prefetched", |b| {
        b.iter(|| {
            k += 1;
            dpdk::trtcm_burst_many::<true>(black_box(&tr), &bursts[k % n], &mut states, &mut t)
        });
    });
    g.finish();
    let mut g = c.benchmark_group("million/dpdk_srtcm");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut states = vec![dpdk::SrTcm::start(&sr, 0); FLOWS as usize];
    g.bench_function("plain", |b| {
        b.iter(|| {
            k += 1;
            dpdk::srtcm_burst_many::<false>(black_box(&sr), &bursts[k % n], &mut states, &mut t)
        });
    });
    g.bench_function("prefetched", |b| {
        b.iter(|| {
            k += 1;
            dpdk::srtcm_burst_many::<true>(black_box(&sr), &bursts[k % n], &mut states, &mut t)
        });
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(100);
    targets = markers
}
criterion_main!(benches);
