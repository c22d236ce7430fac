//! What the C boundary costs on the trTCM color-blind path: the same stream of
//! packets through one driver loop that makes a call per packet through a
//! function pointer the compiler cannot see through, once to a Rust function
//! calling `TrTcm::color_blind` (`rust`), once to the exported
//! `netcond_trtcm_color_blind_check` (`c`: the NULL and profile checks and the
//! C calling convention, as a C program calls it). The profile pointer is
//! passed with every call in both. A third loop (`inline`) calls
//! `TrTcm::color_blind` directly, inlined into the loop as a Rust program gets
//! it, where the compiler also hoists the profile's loads out of the loop.
//!
//! ```text
//! cargo run --release -p netcond-ffi --example call_cost            # ns/packet, best of 9 alternations
//! cargo run --release -p netcond-ffi --example call_cost -- rust N  # one loop of N packets (for callgrind)
//! cargo run --release -p netcond-ffi --example call_cost -- c N
//! cargo run --release -p netcond-ffi --example call_cost -- inline N
//! ```

use std::hint::black_box;
use std::time::Instant as Clock;

use netcond::{
    netcond_color, netcond_trtcm, netcond_trtcm_color_blind_check, netcond_trtcm_config,
    netcond_trtcm_params, netcond_trtcm_profile, netcond_trtcm_profile_config,
};
use netcond_core::{Instant, Rate, TickRate};
use trtcm::{TrTcm, TrTcmConfig, TrTcmProfile};

/// A packet of 64..1518 bytes every 8.8 us: about 1.3 x PIR of DPDK's test profile.
const GAP: u64 = 8_800;
const LENS: usize = 4096;

fn lengths() -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..LENS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            64 + (x % 1455) as u32
        })
        .collect()
}

type CheckFn = unsafe extern "C" fn(
    *mut netcond_trtcm,
    *const netcond_trtcm_profile,
    u64,
    u32,
) -> netcond_color;

type RustFn = fn(&mut TrTcm, &TrTcmProfile, u64, u32) -> netcond_core::Color;

/// The Rust call: `TrTcm::color_blind` behind a function pointer.
#[inline(never)]
fn rust_check(m: &mut TrTcm, p: &TrTcmProfile, t: u64, len: u32) -> netcond_core::Color {
    m.color_blind(p, Instant::from_ticks(t), len)
}

#[inline(never)]
fn rust_call_loop(f: RustFn, p: &TrTcmProfile, lens: &[u32], n: u64) -> [u64; 3] {
    let mut m = TrTcm::new(p, Instant::from_ticks(0));
    let mut counts = [0u64; 3];
    let mut t = 0;
    for i in 0..n {
        t += GAP;
        let len = lens[(i as usize) & (LENS - 1)];
        counts[f(&mut m, p, t, len).index()] += 1;
    }
    counts
}

#[inline(never)]
fn rust_loop(p: &TrTcmProfile, lens: &[u32], n: u64) -> [u64; 3] {
    let mut m = TrTcm::new(p, Instant::from_ticks(0));
    let mut counts = [0u64; 3];
    let mut t = 0;
    for i in 0..n {
        t += GAP;
        let len = lens[(i as usize) & (LENS - 1)];
        counts[m.color_blind(p, Instant::from_ticks(t), len).index()] += 1;
    }
    counts
}

#[inline(never)]
fn c_loop(f: CheckFn, p: &netcond_trtcm_profile, lens: &[u32], n: u64) -> [u64; 3] {
    let mut m = netcond_trtcm { opaque: [0; 3] };
    // SAFETY: `m` and `p` are valid; `p` was configured by the caller.
    let rc = unsafe { netcond_trtcm_config(&mut m, p, 0) };
    assert_eq!(rc, 0);
    let mut counts = [0u64; 3];
    let mut t = 0;
    for i in 0..n {
        t += GAP;
        let len = lens[(i as usize) & (LENS - 1)];
        // SAFETY: as above; `m` is used by this thread only.
        let c = unsafe { f(&mut m, p, t, len) };
        counts[c as usize] += 1;
    }
    counts
}

fn main() {
    let cfg = TrTcmConfig::new(
        Rate::from_bytes_per_sec(46_000_000),
        Rate::from_bytes_per_sec(69_000_000),
        2048,
        4096,
    );
    let rp = TrTcmProfile::new(&cfg).expect("valid profile");
    let params = netcond_trtcm_params {
        cir: 46_000_000,
        pir: 69_000_000,
        cbs: 2048,
        pbs: 4096,
        tick_hz: 1_000_000_000,
    };
    let mut cp = netcond_trtcm_profile { opaque: [0; 32] };
    // SAFETY: both pointers are valid.
    assert_eq!(unsafe { netcond_trtcm_profile_config(&mut cp, &params) }, 0);
    let lens = lengths();
    let f: CheckFn = black_box(netcond_trtcm_color_blind_check);
    let g: RustFn = black_box(rust_check);

    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 {
        let n: u64 = args[2].parse().expect("a packet count");
        let counts = match args[1].as_str() {
            "rust" => rust_call_loop(g, &rp, &lens, n),
            "inline" => rust_loop(&rp, &lens, n),
            "c" => c_loop(f, &cp, &lens, n),
            other => panic!("unknown loop {other}"),
        };
        println!("{} {:?}", args[1], counts);
        return;
    }

    let n = 20_000_000u64;
    let mut best = [f64::MAX; 3];
    for _ in 0..9 {
        let t = Clock::now();
        let a = black_box(rust_call_loop(g, &rp, &lens, n));
        best[0] = best[0].min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        let t = Clock::now();
        let b = black_box(c_loop(f, &cp, &lens, n));
        best[1] = best[1].min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        let t = Clock::now();
        let c = black_box(rust_loop(&rp, &lens, n));
        best[2] = best[2].min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        assert_eq!(a, b, "the loops must color identically");
        assert_eq!(a, c, "the loops must color identically");
    }
    println!(
        "trTCM color-blind, {n} packets, best of 9 alternations: Rust call {:.2} ns/packet, \
         C call {:.2} ns/packet (difference {:+.2}); Rust inlined into the loop {:.2} ns/packet",
        best[0],
        best[1],
        best[1] - best[0],
        best[2]
    );
}
