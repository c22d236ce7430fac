//! Per-packet cost of the RED family.
//!
//! Stream (the same for every bench): w_q = 2^-9, min_th 32, max_th 128
//! packets, max_p 0.1; the queue length follows a triangle wave from 20 to 140
//! packets and back, one step every 1024 packets; arrivals 100 ticks apart. Each
//! criterion iteration runs the 1024 packets of one step (the state and the
//! wave carry over from one iteration to the next), so throughput is per packet.
//!
//! - `red/enqueue_decision`: [`Red::on_arrival`], not-ECT packets of 1500 bytes,
//!   the default (accumulated) spreading, randomness from `SplitMix64`.
//! - `red/enqueue_decision_uniform`: the same with FJ93's per-packet draw
//!   (`Spreading::Uniform`).
//! - `red/enqueue_decision_dpdk_law`: the same with DPDK's law and one draw
//!   per drop (`Spreading::AccumulatedDpdk`).
//! - `red/enqueue_decision_ecn`: the same with ECT(0) packets and ECN on.
//! - `rio/wred`, `rio/rio_c`: three colors (6 green : 1 yellow : 1 red from a
//!   table), the queue split green q/2, yellow q/4, red the rest; green 64/128
//!   max_p 0.05, yellow 48/128 max_p 0.1, red 32/128 max_p 0.1.
//! - `aecn/enqueue_dequeue`: one enqueue and one dequeue per packet on an
//!   `AecnQueue` of capacity 256 (classes from a table, all ECT(0)), base_max_p
//!   0.1, alpha = beta = 2.5, the default (accumulated) spreading; the queue length follows the triangle by one extra
//!   enqueue or dequeue per step (a refused arrival is not paired with a
//!   departure).
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use netcond::base::{Instant, SplitMix64};
use netcond::red::{
    AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Ecn, FlowClass, Packet, Red, Rio, RioMode,
    Spreading, U32F32,
};
use netcond_benches::flow_indices;
use netcond_benches::red_stream::{
    red_burst, red_profile, rio_burst, rio_colors, rio_profile, rio_split, w_q, Wave, STEP, TICKS,
};

fn bench_red(c: &mut Criterion) {
    let mut g = c.benchmark_group("red");
    g.throughput(Throughput::Elements(STEP));
    for (name, ecn, spreading) in [
        ("enqueue_decision", false, Spreading::Accumulated),
        ("enqueue_decision_ecn", true, Spreading::Accumulated),
        ("enqueue_decision_uniform", false, Spreading::Uniform),
        (
            "enqueue_decision_dpdk_law",
            false,
            Spreading::AccumulatedDpdk,
        ),
    ] {
        let p = red_profile(ecn, spreading);
        let pkt = Packet::new(1500, if ecn { Ecn::Ect0 } else { Ecn::NotEct });
        let mut red = Red::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(1);
        let mut wave = Wave::new();
        let mut now = 0u64;
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
    g.finish();
}

fn bench_rio(c: &mut Criterion) {
    let mut g = c.benchmark_group("rio");
    g.throughput(Throughput::Elements(STEP));
    let colors = rio_colors();
    for (name, mode) in [("wred", RioMode::Wred), ("rio_c", RioMode::Coupled)] {
        let p = rio_profile(mode);
        let mut rio = Rio::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(1);
        let mut wave = Wave::new();
        let mut now = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                let q = wave.step();
                let split = rio_split(q);
                black_box(rio_burst(
                    black_box(&p),
                    &mut rio,
                    &mut rng,
                    &mut now,
                    split,
                    &colors,
                ))
            });
        });
    }
    g.finish();
}

#[derive(Clone, Copy)]
struct Desc {
    class: FlowClass,
    ecn: Ecn,
    len: u16,
}

impl AecnDescriptor for Desc {
    fn class(&self) -> FlowClass {
        self.class
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) {
        self.ecn = Ecn::Ce;
    }
}

fn bench_aecn(c: &mut Criterion) {
    let mut g = c.benchmark_group("aecn");
    g.throughput(Throughput::Elements(STEP));
    let mut cfg = AecnConfig::zheng_kinicki(U32F32::from_num(0.1));
    cfg.w_q = w_q();
    cfg.min_th = 32;
    cfg.max_th = 128;
    cfg.limit = 256;
    cfg.typical_tx = std::time::Duration::from_nanos(1200);
    cfg.spreading = Spreading::Accumulated;
    let p = AecnProfile::new(&cfg).unwrap();
    let classes: Vec<FlowClass> = flow_indices(STEP as usize, 3, 4)
        .into_iter()
        .map(|k| FlowClass::ALL[k as usize])
        .collect();
    let mut q = AecnQueue::<Desc, 256>::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(1);
    let mut now = 0u64;
    let desc = |class| Desc {
        class,
        ecn: Ecn::Ect0,
        len: 1500,
    };
    for _ in 0..20 {
        let _ = q.enqueue(
            &p,
            Instant::from_ticks(0),
            desc(FlowClass::Average),
            &mut rng,
        );
    }
    let mut wave = Wave::new();
    let _ = wave.step();
    g.bench_function("enqueue_dequeue", |b| {
        b.iter(|| {
            // Follow the wave: one more or one fewer packet per step.
            let target = wave.step() as usize;
            if q.len() < target {
                let _ = q.enqueue(
                    &p,
                    Instant::from_ticks(now),
                    desc(FlowClass::Average),
                    &mut rng,
                );
            } else if q.len() > target {
                let _ = q.dequeue(&p, Instant::from_ticks(now));
            }
            let mut bytes = 0u32;
            for &class in &classes {
                now += TICKS;
                let t = Instant::from_ticks(now);
                // A refused arrival has no departure to pair with: the
                // queue length stays on the wave either way.
                if black_box(q.enqueue(&p, t, desc(class), &mut rng)).is_ok() {
                    if let Some(d) = q.dequeue(&p, t) {
                        bytes += u32::from(d.len);
                    }
                }
            }
            black_box(bytes)
        });
    });
    g.finish();
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = bench_red, bench_rio, bench_aecn
}
criterion_main!(benches);
