//! The C test `tests/c/pie_test.c`, of PIE: its cases, and its seeded streams
//! against the same streams through the Rust API.

use super::*;
use aqm_delay::{Head, Pie, PieConfig, PieProfile, Verdict};
use std::collections::VecDeque;

/// The Rust side of `pie_test stream SEED`: the same queue, the same two
/// configurations, through `aqm_delay::Pie`.
fn rust_streams(seed: u64) -> Vec<String> {
    let cfgs = [(false, false), (true, true)];
    let mut lines = Vec::new();
    for (k, (ecn, bound)) in cfgs.into_iter().enumerate() {
        let p = PieProfile::new(
            &PieConfig::linux()
                .with_limit(1000)
                .with_ecn(ecn)
                .with_bound_prob(bound),
        )
        .unwrap();
        let mut s = Pie::new(&p, Instant::ZERO);
        let mut rng = Rng(seed ^ k as u64);
        let mut q: VecDeque<(u64, u32)> = VecDeque::new();
        let (mut bytes, mut now) = (0u64, 0u64);
        let mut counts = [0u64; 3];
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let phase = (i / 10_000) % 3;
            now += (r % 200 + 1) * 1000;
            s.poll(&p, Instant::from_ticks(now), bytes);
            let arrive = match phase {
                0 => (r >> 20) % 4 < 3,
                1 => (r >> 20) % 2 == 0,
                _ => (r >> 20) % 4 == 0,
            };
            if arrive {
                let l = 64 + ((r >> 24) % 1451) as u32;
                let ecn = (r >> 40) % 2 == 0;
                let draw = rng.next_u64();
                let t = Instant::from_ticks(now);
                let v = s.on_arrival(
                    &p,
                    t,
                    Head::new(t, l, ecn),
                    q.len() as u32,
                    bytes,
                    &mut Draw(draw, false),
                );
                let code = match v {
                    Verdict::Deliver => 0u64,
                    Verdict::Mark => 1,
                    Verdict::Drop => 2,
                };
                counts[code as usize] += 1;
                hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                if v != Verdict::Drop && q.len() < 1024 {
                    q.push_back((now, l));
                    bytes += u64::from(l);
                }
            }
            if (r >> 50) % 2 == 0 {
                if let Some((at, l)) = q.pop_front() {
                    bytes -= u64::from(l);
                    s.on_dequeue(
                        &p,
                        Instant::from_ticks(now),
                        Head::new(Instant::from_ticks(at), l, false),
                        bytes,
                    );
                }
            }
        }
        lines.push(format!(
            "pie_{k} {} {} {} {hash:016x} {} {} {} {}",
            counts[0],
            counts[1],
            counts[2],
            s.prob(),
            s.accu_prob(),
            s.qdelay(),
            s.burst_time()
        ));
    }
    lines
}

#[test]
fn pie_cases_errors_and_bad_arguments() {
    c_cases("pie_test", "all PIE cases passed");
}

#[test]
fn pie_streams_through_c_equal_streams_through_rust() {
    c_streams("pie_test", [23, 0x9e3d_11e5], rust_streams, |rust| {
        // The stream dropped early in both profiles and marked with ECN.
        let drops: Vec<u64> = rust
            .iter()
            .map(|l| l.split(' ').nth(3).unwrap().parse().unwrap())
            .collect();
        assert!(drops.iter().all(|&d| d > 100), "{rust:?}");
        let marks: u64 = rust[1].split(' ').nth(2).unwrap().parse().unwrap();
        assert!(marks > 10, "{rust:?}");
    });
}
