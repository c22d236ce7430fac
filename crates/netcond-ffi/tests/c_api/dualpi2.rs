//! The C test `tests/c/dualpi2_test.c`, of DualPI2: its cases, and its seeded
//! streams against the same streams through the Rust API.

use super::*;
use aqm_delay::{
    DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, DualScheduler, Ecn,
    Verdict,
};
use std::collections::VecDeque;

/// The Rust side of `dualpi2_test stream SEED`: the same senders, the same
/// two configurations, through `aqm_delay::DualPi2`.
fn rust_streams(seed: u64) -> Vec<String> {
    let cfgs = [
        DualPi2Config::rfc9332(),
        DualPi2Config::rfc9332()
            .with_scheduler(DualScheduler::WeightedRoundRobin { l4s: 3, classic: 1 })
            .with_decision(DualDecision::Random { two_draws: true }),
    ];
    let mut lines = Vec::new();
    for (k, cfg) in cfgs.iter().enumerate() {
        let p = DualPi2Profile::new(cfg).unwrap();
        let mut s = DualPi2::new(&p, Instant::ZERO);
        let mut rng = Rng(seed ^ k as u64);
        let mut fifos: [VecDeque<DualHead>; 2] = Default::default();
        let (mut bytes, mut now) = (0u64, 0u64);
        let mut counts = [0u64; 4];
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        let idx = |q: DualQueue| usize::from(q == DualQueue::Classic);
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let phase = (i / 10_000) % 3;
            now += (r % 100 + 1) * 1000;
            let t = Instant::from_ticks(now);
            let heads = |f: &[VecDeque<DualHead>; 2]| {
                (
                    f[0].front().map(|h| h.enqueued),
                    f[1].front().map(|h| h.enqueued),
                )
            };
            let (l, c) = heads(&fifos);
            s.poll(&p, t, l, c);
            let arrive = match phase {
                0 => (r >> 20) % 4 < 3,
                1 => (r >> 20) % 2 == 0,
                _ => (r >> 20) % 4 == 0,
            };
            if arrive {
                let len = 64 + ((r >> 24) % 1437) as u32;
                let ecn = Ecn::from_bits(((r >> 40) % 4) as u8);
                let q = s.on_arrival(&p, t, ecn, len, bytes);
                let code = q.map_or(2, |q| idx(q) as u64);
                hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                match q {
                    Some(q) if fifos[idx(q)].len() < 4096 => {
                        fifos[idx(q)].push_back(DualHead::new(t, len, ecn));
                        bytes += u64::from(len);
                    }
                    _ => counts[3] += 1,
                }
            }
            if (r >> 50) % 2 == 0 {
                loop {
                    let (l, c) = heads(&fifos);
                    let Some(q) = s.schedule(&p, t, l, c) else {
                        break;
                    };
                    let h = fifos[idx(q)].pop_front().unwrap();
                    bytes -= u64::from(h.len);
                    let left = fifos[idx(q)].len() as u32;
                    let draw = rng.next_u64();
                    let v = s.on_dequeue(&p, t, q, h, left, &mut Draw(draw, false));
                    let code = match v {
                        Verdict::Deliver => 0u64,
                        Verdict::Mark => 1,
                        Verdict::Drop => 2,
                    };
                    counts[code as usize] += 1;
                    hash = (hash ^ (4 + code + 3 * idx(q) as u64)).wrapping_mul(0x0100_0000_01b3);
                    if v != Verdict::Drop {
                        break;
                    }
                }
            }
        }
        let (lc, cc) = s.counts();
        lines.push(format!(
            "dualpi2_{k} {} {} {} {} {hash:016x} {} {} {lc} {cc}",
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            s.p_prime(),
            s.prevq(),
        ));
    }
    lines
}

#[test]
fn dualpi2_cases_errors_and_bad_arguments() {
    c_cases("dualpi2_test", "all DualPI2 cases passed");
}

#[test]
fn dualpi2_streams_through_c_equal_streams_through_rust() {
    c_streams("dualpi2_test", [31, 0x51ed_2701], rust_streams, |rust| {
        // Both profiles marked and dropped: p' rose under the overload.
        for l in &rust {
            let f: Vec<u64> = l
                .split(' ')
                .skip(1)
                .take(3)
                .map(|x| x.parse().unwrap())
                .collect();
            assert!(f[1] > 1000 && f[2] > 100, "{rust:?}");
        }
    });
}
