//! Per-operation cost in process CPU time (user + system, from /proc/self/stat),
//! which a loaded machine inflates far less than wall-clock time.
//! `cargo run --release -p rbcc-rate --example cpu_cost`
// Floats only for the printed summary, not the meter's path (the
// workspace's float_arithmetic lint is for the library code).
#![allow(clippy::float_arithmetic)]
use std::hint::black_box;

use netcond_core::{Instant, RandomSource, Rate, SplitMix64};
use rbcc_rate::{AckHeader, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};

fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command name.
    let t: f64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    t / 100.0
}

fn populated<const N: usize>(p: &RbccProfile, flows: u32) -> RbccInterface<N> {
    let mut t = RbccInterface::<N>::new(p, Instant::ZERO);
    let mut r = SplitMix64::new(9);
    for f in 0..flows {
        let mut h = RateHeader::new(FixedRate::UNLIMITED);
        t.on_data(p, Instant::ZERO, f, &mut h).unwrap();
        if r.below(3) == 0 {
            let a = AckHeader {
                rate: FixedRate::from_bps(1_000 + u64::from(r.below(20_000_000))),
                bottleneck: NodeId(2),
            };
            t.on_return(p, Instant::ZERO, f, &a);
        }
    }
    t
}

fn stamp<const N: usize>(p: &RbccProfile, flows: u32, packets: u64) {
    let mut t = populated::<N>(p, flows);
    let mut r = SplitMix64::new(5);
    let idx: Vec<u32> = (0..4096).map(|_| r.below(flows)).collect();
    let t0 = cpu_seconds();
    let mut now = 0u64;
    for i in 0..packets {
        let f = idx[(i & 4095) as usize];
        now += 100;
        let mut h = RateHeader::new(FixedRate::UNLIMITED);
        let _ = t.on_data(p, Instant::from_ticks(now), black_box(f), &mut h);
        black_box(h);
    }
    let dt = cpu_seconds() - t0;
    println!(
        "on_data, {flows} flows: {:.2} ns/packet (CPU time)",
        dt * 1e9 / packets as f64
    );
}

fn recompute<const N: usize>(p: &RbccProfile, flows: u32, reps: u64) {
    let mut t = populated::<N>(p, flows);
    let t0 = cpu_seconds();
    for _ in 0..reps {
        t.recompute(black_box(p));
        black_box(t.advertised());
    }
    let dt = cpu_seconds() - t0;
    println!(
        "recompute, {flows} flows: {:.0} ns (CPU time)",
        dt * 1e9 / reps as f64
    );
    let t0 = cpu_seconds();
    for _ in 0..reps {
        black_box(t.ack_load(black_box(p)));
    }
    let dt = cpu_seconds() - t0;
    println!(
        "  one scan of the table: {:.0} ns (CPU time)",
        dt * 1e9 / reps as f64
    );
}

/// The same loop with a compare-and-store stamp and no table: the floor.
fn baseline(packets: u64) {
    let mut r = SplitMix64::new(5);
    let idx: Vec<u32> = (0..4096).map(|_| r.below(1024)).collect();
    let adv = FixedRate::from_bps(1_000_000);
    let t0 = cpu_seconds();
    for i in 0..packets {
        let f = idx[(i & 4095) as usize];
        let mut h = RateHeader::new(FixedRate::from_raw(u64::from(black_box(f)) << 40));
        if h.rate > adv {
            h.rate = adv;
            h.bottleneck = NodeId(1);
        }
        black_box(h);
    }
    let dt = cpu_seconds() - t0;
    println!(
        "baseline loop: {:.2} ns/packet (CPU time)",
        dt * 1e9 / packets as f64
    );
}

fn main() {
    let p = RbccProfile::new(&RbccConfig::toomey_scenario7(
        NodeId(1),
        Rate::from_mbps(10_000),
    ))
    .unwrap();
    baseline(300_000_000);
    stamp::<32>(&p, 16, 300_000_000);
    stamp::<2048>(&p, 1024, 300_000_000);
    recompute::<32>(&p, 16, 3_000_000);
    recompute::<512>(&p, 256, 300_000);
    recompute::<2048>(&p, 1024, 100_000);
    // No row held elsewhere: the scans alone.
    let mut t = RbccInterface::<2048>::new(&p, Instant::ZERO);
    for f in 0..1024 {
        let mut h = RateHeader::new(FixedRate::UNLIMITED);
        t.on_data(&p, Instant::ZERO, f, &mut h).unwrap();
    }
    let t0 = cpu_seconds();
    for _ in 0..100_000 {
        t.recompute(black_box(&p));
    }
    let dt = cpu_seconds() - t0;
    println!(
        "recompute, 1024 flows none held: {:.0} ns (CPU time)",
        dt * 1e9 / 1e5
    );
}
