//! The C test `tests/c/et48_test.c`, of the ET-marker of draft-babiarz section
//! 4.8: its cases, and its seeded streams against the same streams through the
//! Rust API.

use super::*;
use pcn_meter::{EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, PcnMark};

/// The C side's `params(v)`.
fn config(v: u32) -> EtMarkerSim48Config {
    if v == 0 {
        EtMarkerSim48Config::new(Rate::from_bytes_per_sec(1_000_000), 3000, 1500)
            .with_tick(TickRate::from_hz(1_000_000_000).unwrap())
    } else {
        EtMarkerSim48Config::new(Rate::from_bytes_per_sec(1_250_000), 1500, 0)
            .with_tick(TickRate::from_hz(1_000_000).unwrap())
    }
}

/// The Rust side of `et48_test stream SEED`.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for v in 0..2 {
        let p = EtMarkerSim48Profile::new(&config(v)).unwrap();
        let mut m = EtMarkerSim48::new(&p, t(0));
        let mut rng = Rng(seed);
        let mut counts = [0u64; 4];
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        let mut now = 0u64;
        for _ in 0..100_000 {
            let r = rng.next_u64();
            let gap_ns = (r >> 8) % 1_215_000;
            let mut len = 64 + ((r >> 36) % 1455) as u32;
            let mut input = PcnMark::from_ecn(((r >> 50) & 3) as u8);
            now += if v == 0 { gap_ns } else { gap_ns / 1000 };
            let mut at = now;
            if (r >> 20) & 1023 == 0 {
                at = now.saturating_sub(5000);
            }
            if (r >> 40) & 1023 == 0 {
                len = 0;
            }
            if (r >> 52) & 511 == 0 {
                input = PcnMark::NotPcn;
            }
            let out = m.mark(&p, t(at), len, input) as u64;
            counts[out as usize] += 1;
            hash = (hash ^ out).wrapping_mul(0x0100_0000_01b3);
        }
        let tokens = m.tokens_units().div_euclid(i128::from(p.units_per_byte()));
        lines.push(format!(
            "et48_{v} {} {} {} {} {hash:016x} {}",
            counts[0], counts[1], counts[2], counts[3], tokens
        ));
    }
    lines
}

#[test]
fn et48_cases_errors_and_bad_arguments() {
    c_cases("et48_test", "all ET48 cases passed");
}

#[test]
fn et48_streams_through_c_equal_streams_through_rust() {
    c_streams(
        "et48_test",
        [11u64, 0x2468_ace0_1357],
        rust_streams,
        |rust| {
            // Every output state occurred, ET marks included.
            for line in &rust {
                let f = counts(line, 4);
                assert!(f.iter().all(|&n| n > 0), "{line}");
            }
        },
    );
}
