//! The token bucket filter's C test (`tests/c/tbf_test.c`): its cases, and
//! its seeded streams against the same streams through the Rust API
//! (`ras_shaper::Tbf`).

use super::*;
use netcond_core::LengthAdjust;
use ras_shaper::{Tbf, TbfConfig, TbfDeparture, TbfProfile, TbfVerdict};
use std::collections::VecDeque;

#[test]
fn tbf_cases_and_bad_arguments() {
    c_cases("tbf_test", "all TBF cases passed");
}

const MS: u64 = 1_000_000;
const FNV: u64 = 0x0100_0000_01b3;

/// The C side's stream, through the Rust API.
fn rust_stream(cfg: &TbfConfig, seed: u64, name: &str) -> String {
    let p = TbfProfile::new(cfg).unwrap();
    let mut s = Tbf::new(&p, Instant::ZERO);
    let mut q: VecDeque<u32> = VecDeque::new();
    let mut rng = Rng(seed);
    let (mut now, mut cur, mut hash) = (0u64, 0u64, 0xcbf2_9ce4_8422_2325u64);
    let (mut acc, mut over, mut big, mut sent) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..=PACKETS {
        let r = rng.next_u64();
        let mut len = 40 + (r % 1461) as u32;
        if (r >> 40) % 64 == 0 {
            len = if (r >> 46) % 2 == 1 { 0 } else { 2000 };
        }
        now += if (r >> 32) % 64 == 0 {
            (r >> 12) % (20 * MS)
        } else {
            u64::from(len) * 400
        };
        if i == PACKETS {
            now = u64::MAX / 2;
        }
        while let Some(&h) = q.front() {
            match s.dequeue(&p, Instant::from_ticks(cur), h) {
                TbfDeparture::Now => {
                    hash = (hash ^ cur ^ (u64::from(h) << 40)).wrapping_mul(FNV);
                    q.pop_front();
                    sent += 1;
                }
                TbfDeparture::At(t) if t.ticks() <= now => cur = t.ticks(),
                _ => break,
            }
        }
        if i == PACKETS {
            break;
        }
        cur = cur.max(now);
        match s.enqueue(&p, Instant::from_ticks(cur), len) {
            TbfVerdict::Accept => {
                q.push_back(len);
                acc += 1;
            }
            TbfVerdict::DropOverLimit => over += 1,
            TbfVerdict::DropTooBig => big += 1,
        }
    }
    format!("{name} accepted={acc} over={over} big={big} sent={sent} hash={hash:016x} last={cur}")
}

#[test]
fn tbf_streams_through_c_equal_streams_through_rust() {
    let peak = TbfConfig::with_limit(Rate::from_bits_per_sec(10_000_000), 16_000, 30_000)
        .with_peak(Rate::from_bits_per_sec(50_000_000), 1600)
        .with_adjust(LengthAdjust::NONE.with_overhead(14));
    let atm = TbfConfig::with_latency(
        Rate::from_bits_per_sec(7_000_001),
        1999,
        Duration::from_millis(25),
    )
    .with_adjust(LengthAdjust::NONE.with_mpu(64).with_atm(true));
    for san in variants() {
        let exe = build_c("tbf_test", "stream", san);
        let seeds: &[u64] = if san { &[29] } else { &[29, 0xfeed_beef_1234] };
        for &seed in seeds {
            let c = run(&exe, &["stream", &seed.to_string()]);
            let want = [
                rust_stream(&peak, seed, "peak"),
                rust_stream(&atm, seed, "atm"),
            ];
            let got: Vec<&str> = c.lines().collect();
            assert_eq!(got, want, "C and Rust differ (seed {seed})");
            // The streams exercise every outcome.
            for line in &want {
                assert!(
                    !line.contains(" over=0 ") && !line.contains(" big=0 "),
                    "{line}"
                );
            }
        }
    }
}
