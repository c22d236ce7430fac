//! netcond and DPDK 22.11 (`rte_meter`, `rte_red`) side by side on the same
//! streams, in the same binary (`--features dpdk`; Debian's `libdpdk-dev`).
//!
//! Each group times netcond's per-burst loop and the C shim's
//! (`benches/dpdk/shim.c`), which runs the same burst through DPDK's own
//! functions; throughput is per packet, as in the other benches.
//!
//! - `dpdk/trtcm_1_flow`, `dpdk/srtcm_1_flow`: the meter stream of
//!   `benches/trtcm.rs` (CIR 46e6 B/s, the trTCM's PIR 69e6 B/s, CBS 2048,
//!   PBS or EBS 4096, 2.3 GHz ticks, 4096 packets of 64/576/1518 bytes per
//!   iteration, `BENCH_TICKS_PER_PACKET` apart), color-blind, one flow.
//!   `division_baseline` is the same stream through the Rust division trTCM.
//! - `dpdk/trtcm_65536_flows`, `dpdk/srtcm_65536_flows`: 65,536 flows, each
//!   packet to the flow its index names; as is and with each flow's state
//!   prefetched eight packets ahead.
//! - `dpdk/red`: the RED stream of `benches/red.rs` (w_q 2^-9, min_th 32,
//!   max_th 128, max_p 0.1, the queue on a triangle wave 20..140, 1024
//!   arrivals 100 ticks apart per iteration). `netcond` is the bench's RED
//!   (FJ93's spreading, one draw per drop), `netcond_dpdk_spreading` the same
//!   with DPDK's `p_b / (2 - count p_b)` (one draw per packet),
//!   `netcond_dpdk_law` with DPDK's law and one draw per drop
//!   (`Spreading::AccumulatedDpdk`), `dpdk` is `rte_red_enqueue` (wq_log2 9,
//!   maxp_inv 10).
//!
//! DPDK's meter profiles are filled for the 2.3 GHz bench clock by DPDK
//! 22.11's own rule (the `dpdk` test checks the rule against
//! `rte_meter_*_profile_config`); no EAL is started here.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use netcond::base::{Instant, SplitMix64};
use netcond::red::{Packet, Red, Spreading};
use netcond::trtcm::{SrTcm, SrTcmConfig, SrTcmProfile, State, TrTcm, TrTcmConfig, TrTcmProfile};
use netcond_benches::division_baseline;
use netcond_benches::meter_stream::{burst_many, burst_one, stream, tick, FLOWS, PACKETS};
use netcond_benches::red_stream::{red_burst, red_profile, Wave, STEP};

#[path = "../dpdk/ffi.rs"]
mod dpdk;

/// The bench clock in Hz (`meter_stream::tick`).
const HZ: u64 = 2_300_000_000;

fn meters(c: &mut Criterion) {
    let s = stream();
    let tr = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap();
    let sr = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap();
    let dtr = dpdk::TrTcmProfile::new(HZ, 46_000_000, 69_000_000, 2048, 4096).unwrap();
    let dsr = dpdk::SrTcmProfile::new(HZ, 46_000_000, 2048, 4096).unwrap();
    let dv = division_baseline::Profile::new(HZ, 46_000_000, 69_000_000, 2048, 4096);
    let mut bursts = dpdk::Bursts::new(&s.lens, &s.flows, None, FLOWS as usize);

    let mut g = c.benchmark_group("dpdk/trtcm_1_flow");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let (mut m, mut t) = (<TrTcm as State>::start(&tr, Instant::ZERO), 0u64);
    g.bench_function("netcond", |b| {
        b.iter(|| {
            black_box(burst_one::<TrTcm, false>(
                black_box(&tr),
                &s.lens,
                &s.colors,
                &mut m,
                &mut t,
            ))
        });
    });
    let (mut m, mut t) = (dpdk::TrTcm::start(&dtr, 0), 0u64);
    g.bench_function("dpdk", |b| {
        b.iter(|| {
            black_box(dpdk::trtcm_burst_one(
                black_box(&dtr),
                &s.lens,
                &mut m,
                &mut t,
            ))
        });
    });
    let (mut m, mut t) = (division_baseline::TrTcm::start(&dv, Instant::ZERO), 0u64);
    g.bench_function("division_baseline", |b| {
        b.iter(|| {
            black_box(burst_one::<division_baseline::TrTcm, false>(
                black_box(&dv),
                &s.lens,
                &s.colors,
                &mut m,
                &mut t,
            ))
        });
    });
    g.finish();

    let mut g = c.benchmark_group("dpdk/srtcm_1_flow");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let (mut m, mut t) = (<SrTcm as State>::start(&sr, Instant::ZERO), 0u64);
    g.bench_function("netcond", |b| {
        b.iter(|| {
            black_box(burst_one::<SrTcm, false>(
                black_box(&sr),
                &s.lens,
                &s.colors,
                &mut m,
                &mut t,
            ))
        });
    });
    let (mut m, mut t) = (dpdk::SrTcm::start(&dsr, 0), 0u64);
    g.bench_function("dpdk", |b| {
        b.iter(|| {
            black_box(dpdk::srtcm_burst_one(
                black_box(&dsr),
                &s.lens,
                &mut m,
                &mut t,
            ))
        });
    });
    g.finish();

    let mut g = c.benchmark_group("dpdk/trtcm_65536_flows");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut flows = vec![<TrTcm as State>::start(&tr, Instant::ZERO); FLOWS as usize];
    let mut t = 0u64;
    g.bench_function("netcond", |b| {
        b.iter(|| {
            black_box(burst_many::<TrTcm, false, false>(
                black_box(&tr),
                &s,
                &mut flows,
                &mut t,
            ))
        });
    });
    g.bench_function("netcond_prefetched", |b| {
        b.iter(|| {
            black_box(burst_many::<TrTcm, false, true>(
                black_box(&tr),
                &s,
                &mut flows,
                &mut t,
            ))
        });
    });
    let mut states = vec![dpdk::TrTcm::start(&dtr, 0); FLOWS as usize];
    let mut t = 0u64;
    g.bench_function("dpdk", |b| {
        b.iter(|| {
            black_box(dpdk::trtcm_burst_many::<false>(
                black_box(&dtr),
                &bursts.next_burst(),
                &mut states,
                &mut t,
            ))
        });
    });
    g.bench_function("dpdk_prefetched", |b| {
        b.iter(|| {
            black_box(dpdk::trtcm_burst_many::<true>(
                black_box(&dtr),
                &bursts.next_burst(),
                &mut states,
                &mut t,
            ))
        });
    });
    g.finish();

    let mut g = c.benchmark_group("dpdk/srtcm_65536_flows");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut flows = vec![<SrTcm as State>::start(&sr, Instant::ZERO); FLOWS as usize];
    let mut t = 0u64;
    g.bench_function("netcond", |b| {
        b.iter(|| {
            black_box(burst_many::<SrTcm, false, false>(
                black_box(&sr),
                &s,
                &mut flows,
                &mut t,
            ))
        });
    });
    g.bench_function("netcond_prefetched", |b| {
        b.iter(|| {
            black_box(burst_many::<SrTcm, false, true>(
                black_box(&sr),
                &s,
                &mut flows,
                &mut t,
            ))
        });
    });
    let mut states = vec![dpdk::SrTcm::start(&dsr, 0); FLOWS as usize];
    let mut t = 0u64;
    g.bench_function("dpdk", |b| {
        b.iter(|| {
            black_box(dpdk::srtcm_burst_many::<false>(
                black_box(&dsr),
                &bursts.next_burst(),
                &mut states,
                &mut t,
            ))
        });
    });
    g.bench_function("dpdk_prefetched", |b| {
        b.iter(|| {
            black_box(dpdk::srtcm_burst_many::<true>(
                black_box(&dsr),
                &bursts.next_burst(),
                &mut states,
                &mut t,
            ))
        });
    });
    g.finish();
}

fn red(c: &mut Criterion) {
    let mut g = c.benchmark_group("dpdk/red");
    g.throughput(Throughput::Elements(STEP));
    for (name, spreading) in [
        ("netcond", Spreading::Accumulated),
        ("netcond_dpdk_spreading", Spreading::Dpdk),
        ("netcond_dpdk_law", Spreading::AccumulatedDpdk),
    ] {
        let p = red_profile(false, spreading);
        let pkt = Packet::not_ect(1500);
        let (mut red, mut rng, mut wave, mut now) = (
            Red::new(&p, Instant::ZERO),
            SplitMix64::new(1),
            Wave::new(),
            0u64,
        );
        g.bench_function(name, |b| {
            b.iter(|| {
                let q = wave.step();
                black_box(red_burst(
                    black_box(&p),
                    &mut red,
                    &mut rng,
                    &mut now,
                    q,
                    pkt,
                ))
            });
        });
    }
    let cfg = dpdk::RedConfig::new(9, 32, 128, 10).unwrap();
    let mut rng = dpdk::RedRandom::take().expect("one user of rte_red's generator");
    let (mut red, mut wave, mut now) = (dpdk::RedState::new(), Wave::new(), 0u64);
    g.bench_function("dpdk", |b| {
        b.iter(|| {
            let q = wave.step();
            black_box(dpdk::red_burst(
                black_box(&cfg),
                &mut red,
                &mut now,
                q,
                &mut rng,
            ))
        });
    });
    g.finish();
}

// 500 short samples rather than 100 long ones, as the other bench binaries.
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = meters, red
}
criterion_main!(benches);
