//! The C call against the Rust call on the trTCM color-blind path, timed side
//! by side in one process (`benches/src/c_call.rs` has the loops).
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench c_call [-- ROUNDS]
//! ```
//!
//! Each round runs 64 bursts of 4096 packets through each loop, interleaved
//! burst by burst (the order rotates), so that a change of the machine's
//! load during the round falls on all loops alike. A round's figure for a
//! loop is the median of its 64 burst times (a burst that lost the CPU to
//! another process is an outlier, not an average), and its C - Rust
//! difference is the median over the 64 adjacent pairs of the two bursts'
//! difference. The driver prints per round the Rust call, the C call, their
//! difference, the bulk call and the Rust loop with the meter inlined
//! (ns/packet), then the medians over the rounds and the spread of the
//! rounds' differences (minimum, quartiles, maximum). Before timing it checks
//! that every loop colors the stream identically and ends in the same state.
use std::hint::black_box;
use std::time::Instant as Clock;

use netcond::base::Instant;
use netcond::trtcm::{State, TrTcm};
use netcond_benches::c_call::{
    burst_c_bulk, burst_c_call, burst_rust_call, c_check, c_tokens, rust_call, rust_tokens,
    Profiles,
};
use netcond_benches::meter_stream::{burst_one, stream, PACKETS};

/// Burst pairs per round.
const PAIRS: usize = 64;

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let i = (q * (s.len() - 1) as f64).round() as usize;
    s[i]
}

// `i` picks the first loop of a pair and indexes each loop's burst times.
#[allow(clippy::needless_range_loop)]
fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(21);
    let s = stream();
    let ps = Profiles::new();
    let (f, g) = (c_check(), rust_call());
    let mut times = vec![0u64; PACKETS];
    let mut out = vec![0u8; PACKETS];

    // The loops must agree: colors and final states.
    {
        let (mut mr, mut tr) = (TrTcm::new(&ps.rust, Instant::ZERO), 0u64);
        let (mut mc, mut tc) = (ps.c_state(), 0u64);
        let (mut mb, mut tb) = (ps.c_state(), 0u64);
        let (mut mi, mut ti) = (TrTcm::start(&ps.rust, Instant::ZERO), 0u64);
        for _ in 0..64 {
            let a = burst_rust_call(g, &ps.rust, &s.lens, &mut mr, &mut tr);
            let b = burst_c_call(f, &ps.c, &s.lens, &mut mc, &mut tc);
            let c = burst_c_bulk(&ps.c, &mut times, &s.lens, &mut out, &mut mb, &mut tb);
            let d = burst_one::<TrTcm, false>(&ps.rust, &s.lens, &s.colors, &mut mi, &mut ti);
            assert!(a == b && a == c && a == d, "the loops color differently");
        }
        assert_eq!(rust_tokens(&mr), c_tokens(&mc));
        assert_eq!(rust_tokens(&mr), c_tokens(&mb));
        assert_eq!(rust_tokens(&mr), rust_tokens(&mi));
    }

    let (mut mr, mut tr) = (TrTcm::new(&ps.rust, Instant::ZERO), 0u64);
    let (mut mc, mut tc) = (ps.c_state(), 0u64);
    let (mut mb, mut tb) = (ps.c_state(), 0u64);
    let (mut mi, mut ti) = (TrTcm::start(&ps.rust, Instant::ZERO), 0u64);
    let (mut rust, mut c, mut diff, mut bulk, mut inline) =
        (vec![], vec![], vec![], vec![], vec![]);
    println!("round  rust_call  c_call  c-rust  c_bulk  inlined   (ns/packet)");
    for r in 0..rounds {
        let mut ns = [[0f64; PAIRS]; 4];
        for i in 0..PAIRS {
            // Rotate which loop goes first.
            for k in 0..4 {
                let which = (k + i) % 4;
                let t0 = Clock::now();
                match which {
                    0 => {
                        black_box(burst_rust_call(
                            g,
                            black_box(&ps.rust),
                            &s.lens,
                            &mut mr,
                            &mut tr,
                        ));
                    }
                    1 => {
                        black_box(burst_c_call(f, black_box(&ps.c), &s.lens, &mut mc, &mut tc));
                    }
                    2 => {
                        black_box(burst_c_bulk(
                            black_box(&ps.c),
                            &mut times,
                            &s.lens,
                            &mut out,
                            &mut mb,
                            &mut tb,
                        ));
                    }
                    _ => {
                        black_box(burst_one::<TrTcm, false>(
                            black_box(&ps.rust),
                            &s.lens,
                            &s.colors,
                            &mut mi,
                            &mut ti,
                        ));
                    }
                }
                ns[which][i] = t0.elapsed().as_nanos() as f64 / PACKETS as f64;
            }
        }
        let per = ns.map(|v| quantile(&v, 0.5));
        let pairs: Vec<f64> = ns[1].iter().zip(&ns[0]).map(|(c, r)| c - r).collect();
        let d = quantile(&pairs, 0.5);
        println!(
            "{r:5}  {:9.2}  {:6.2}  {d:+6.2}  {:6.2}  {:7.2}",
            per[0], per[1], per[2], per[3]
        );
        rust.push(per[0]);
        c.push(per[1]);
        diff.push(d);
        bulk.push(per[2]);
        inline.push(per[3]);
    }
    println!(
        "\ntrTCM color-blind, {rounds} rounds of {PAIRS} x {PACKETS} packets per loop, medians: \
         Rust call {:.2} ns/packet, C call {:.2}, C bulk call {:.2}, Rust inlined into the loop {:.2}",
        quantile(&rust, 0.5),
        quantile(&c, 0.5),
        quantile(&bulk, 0.5),
        quantile(&inline, 0.5)
    );
    println!(
        "C call - Rust call per round: median {:+.2} ns/packet; min {:+.2}, quartiles {:+.2} / {:+.2}, max {:+.2}; \
         rounds above +1 ns: {} of {rounds}",
        quantile(&diff, 0.5),
        quantile(&diff, 0.0),
        quantile(&diff, 0.25),
        quantile(&diff, 0.75),
        quantile(&diff, 1.0),
        diff.iter().filter(|&&d| d > 1.0).count()
    );
}
