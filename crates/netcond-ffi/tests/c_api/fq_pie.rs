//! The C test `tests/c/fq_pie_test.c`, of FQ-PIE: its cases, and its seeded
//! streams against the same streams through the Rust API.

use super::*;
use aqm_delay::{FqPie, FqPieConfig, FqPieProfile, Head, PieConfig, Verdict};
use std::collections::VecDeque;

/// The Rust side of `fq_pie_test stream SEED`: the same flows, the same
/// two configurations, through `aqm_delay::FqPie<1024>`.
fn rust_streams(seed: u64) -> Vec<String> {
    const KEYS: [usize; 12] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 1023, 1030, 1060];
    let mut lines = Vec::new();
    for (k, ecn) in [false, true].into_iter().enumerate() {
        let p = FqPieProfile::new(
            &FqPieConfig::linux()
                .with_pie(PieConfig::linux().with_limit(1000).with_ecn(ecn))
                .with_limit(2000),
        )
        .unwrap();
        let mut q: Box<FqPie<1024>> = Box::new(FqPie::new(&p, Instant::ZERO));
        let mut fifos: Vec<VecDeque<(u64, u32)>> = vec![VecDeque::new(); 1024];
        let mut rng = Rng(seed ^ k as u64);
        let mut now = 0u64;
        let mut counts = [0u64; 3];
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let phase = (i / 10_000) % 3;
            now += (r % 100 + 1) * 1000;
            let t = Instant::from_ticks(now);
            q.poll(&p, t);
            let arrive = match phase {
                0 => (r >> 20) % 4 < 3,
                1 => (r >> 20) % 2 == 0,
                _ => (r >> 20) % 4 == 0,
            };
            if arrive {
                let j = if (r >> 30) % 2 == 0 {
                    ((r >> 31) % 2) as usize
                } else {
                    ((r >> 32) % 12) as usize
                };
                let len = 64 + ((r >> 40) % 1451) as u32;
                let e = (r >> 52) % 2 == 0;
                let draw = rng.next_u64();
                let v = q.enqueue(&p, t, KEYS[j], Head::new(t, len, e), &mut Draw(draw, false));
                let code = match v {
                    Verdict::Deliver => 0u64,
                    Verdict::Mark => 1,
                    Verdict::Drop => 2,
                };
                counts[code as usize] += 1;
                hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                if v != Verdict::Drop {
                    fifos[KEYS[j] % 1024].push_back((now, len));
                }
            }
            if (r >> 56) % 2 == 0 {
                if let Some(f) = q.schedule(&p, t) {
                    let (at, len) = fifos[f].pop_front().unwrap();
                    q.on_dequeue(&p, t, f, Head::new(Instant::from_ticks(at), len, false));
                    hash = (hash ^ (3 + f as u64)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
        lines.push(format!(
            "fq_pie_{k} {} {} {} {hash:016x} {} {} {}",
            counts[0],
            counts[1],
            counts[2],
            q.pie(0).prob(),
            q.pie(1).prob(),
            q.totals().0,
        ));
    }
    lines
}

#[test]
fn fq_pie_cases_errors_and_bad_arguments() {
    c_cases("fq_pie_test", "all FQ-PIE cases passed");
}

#[test]
fn fq_pie_streams_through_c_equal_streams_through_rust() {
    c_streams("fq_pie_test", [41, 0xf0_9e11], rust_streams, |rust| {
        // Both dropped early; the ECN profile marked.
        let field = |l: &str, n: usize| -> u64 { l.split(' ').nth(n).unwrap().parse().unwrap() };
        assert!(rust.iter().all(|l| field(l, 3) > 500), "{rust:?}");
        assert!(field(&rust[1], 2) > 10, "{rust:?}");
    });
}
