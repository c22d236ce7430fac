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
use netcond::core::{Color, Instant, SplitMix64};
use netcond::red::{
    AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Ecn, FlowClass, Packet, Precedence, Red,
    RedConfig, RedProfile, Rio, RioConfig, RioMode, RioProfile, Spreading, U32F32,
};
use netcond_benches::flow_indices;

const STEP: u64 = 1024;
const TICKS: u64 = 100;

fn w_q() -> U32F32 {
    U32F32::from_bits(1 << 23)
}

/// The triangle wave: 20, 21, ..., 140, 139, ..., 21, 20, ...
struct Wave {
    q: u32,
    up: bool,
}

impl Wave {
    fn new() -> Wave {
        Wave { q: 20, up: true }
    }
    fn step(&mut self) -> u32 {
        let q = self.q;
        if self.up {
            self.q += 1;
            self.up = self.q < 140;
        } else {
            self.q -= 1;
            self.up = self.q <= 20;
        }
        q
    }
}

fn red_profile(ecn: bool, spreading: Spreading) -> RedProfile {
    let mut c = RedConfig::packets(32, 128, U32F32::from_num(0.1), w_q(), 256);
    c.spreading = spreading;
    c.ecn = ecn;
    c.ecn_drop_th = if ecn { Some(128) } else { None };
    c.idle_tx_ticks = 1200;
    RedProfile::new(&c).unwrap()
}

/// One step of the wave (`STEP` arrivals at queue length `q`) through RED. Not
/// inlined, with the profile as a `&` argument, as in a router's per-burst
/// function (the caller passes it through `black_box`, so its constants cannot
/// be folded); the state, clock and generator are in locals for the burst.
#[inline(never)]
fn red_burst(
    p: &RedProfile,
    red: &mut Red,
    rng: &mut SplitMix64,
    now: &mut u64,
    q: u32,
    pkt: Packet,
) -> u32 {
    let (mut r, mut g, mut t) = (*red, *rng, *now);
    let mut drops = 0u32;
    for _ in 0..STEP {
        t += TICKS;
        // The queue length is opaque per packet, as a real queue's would be.
        let d = r.on_arrival(p, Instant::from_ticks(t), black_box(q), pkt, &mut g);
        drops += u32::from(d.is_drop());
    }
    (*red, *rng, *now) = (r, g, t);
    drops
}

/// One step of the wave through RIO, the colors from a table; as [`red_burst`].
#[inline(never)]
fn rio_burst(
    p: &RioProfile,
    rio: &mut Rio,
    rng: &mut SplitMix64,
    now: &mut u64,
    split: [u32; 3],
    colors: &[Color],
) -> u32 {
    let (mut r, mut g, mut t) = (*rio, *rng, *now);
    let mut drops = 0u32;
    for &color in colors {
        t += TICKS;
        let d = r.on_arrival(
            p,
            Instant::from_ticks(t),
            black_box(split),
            color,
            Packet::not_ect(1500),
            &mut g,
        );
        drops += u32::from(d.is_drop());
    }
    (*rio, *rng, *now) = (r, g, t);
    drops
}

fn bench_red(c: &mut Criterion) {
    let mut g = c.benchmark_group("red");
    g.throughput(Throughput::Elements(STEP));
    for (name, ecn, spreading) in [
        ("enqueue_decision", false, Spreading::Accumulated),
        ("enqueue_decision_ecn", true, Spreading::Accumulated),
        ("enqueue_decision_uniform", false, Spreading::Uniform),
    ] {
        let p = red_profile(ecn, spreading);
        let pkt = Packet::new(1500, if ecn { Ecn::Ect0 } else { Ecn::NotEct });
        let mut red = Red::new();
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
    let colors: Vec<Color> = flow_indices(STEP as usize, 8, 2)
        .into_iter()
        .map(|c| match c {
            0 => Color::Red,
            1 => Color::Yellow,
            _ => Color::Green,
        })
        .collect();
    for (name, mode) in [("wred", RioMode::Wred), ("rio_c", RioMode::Coupled)] {
        let mut cfg = RioConfig::rfc2963(256);
        cfg.mode = mode;
        cfg.w_q = w_q();
        cfg.idle_tx_ticks = 1200;
        cfg.colors = [
            Precedence {
                min_th: 64,
                max_th: 128,
                max_p: U32F32::from_num(0.05),
            },
            Precedence {
                min_th: 48,
                max_th: 128,
                max_p: U32F32::from_num(0.1),
            },
            Precedence {
                min_th: 32,
                max_th: 128,
                max_p: U32F32::from_num(0.1),
            },
        ];
        let p = RioProfile::new(&cfg).unwrap();
        let mut rio = Rio::new();
        let mut rng = SplitMix64::new(1);
        let mut wave = Wave::new();
        let mut now = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                let q = wave.step();
                let split = [q / 2, q / 4, q - q / 2 - q / 4];
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
    let mut cfg = AecnConfig::seed002(U32F32::from_num(0.1));
    cfg.w_q = w_q();
    cfg.min_th = 32;
    cfg.max_th = 128;
    cfg.limit = 256;
    cfg.idle_tx_ticks = 1200;
    cfg.spreading = Spreading::Accumulated;
    let p = AecnProfile::new(&cfg).unwrap();
    let classes: Vec<FlowClass> = flow_indices(STEP as usize, 3, 4)
        .into_iter()
        .map(|k| FlowClass::ALL[k as usize])
        .collect();
    let mut q = AecnQueue::<Desc, 256>::new(&p).unwrap();
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
                let _ = q.dequeue(Instant::from_ticks(now));
            }
            let mut bytes = 0u32;
            for &class in &classes {
                now += TICKS;
                let t = Instant::from_ticks(now);
                // A refused arrival has no departure to pair with: the
                // queue length stays on the wave either way.
                if black_box(q.enqueue(&p, t, desc(class), &mut rng)).is_ok() {
                    if let Some(d) = q.dequeue(t) {
                        bytes += u32::from(d.len);
                    }
                }
            }
            black_box(bytes)
        });
    });
    g.finish();
}

/// The machine's state before and after this binary's benches
/// (`netcond_benches::machine`): two lines per run in the table.
fn machine_start(c: &mut Criterion) {
    netcond_benches::machine::bench(c, "red/start");
}

fn machine_end(c: &mut Criterion) {
    netcond_benches::machine::bench(c, "red/end");
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = machine_start, bench_red, bench_rio, bench_aecn, machine_end
}
criterion_main!(benches);
