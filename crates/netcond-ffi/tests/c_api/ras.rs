//! The C test `tests/c/ras_test.c`, of srRAS and trRAS with the library's
//! queue: its cases, and its seeded streams against the same streams through
//! the Rust API.

use super::*;
use ras_shaper::{Ras, RasProfile, SrRasConfig, SrRasProfile, TrRasConfig, TrRasProfile};

const PACKETS: u32 = 100_000;
const FNV: u64 = 0x0100_0000_01b3;

/// The C side's `sr()` and `tr()` shapers (`tests/c/ras_params.h`, also
/// those of `ras_core_test.c` and `green_ras_test.c`).
pub(super) fn profiles() -> [RasProfile; 2] {
    let sr = SrRasProfile::new(
        &SrRasConfig::new(
            Rate::from_bits_per_sec(1_000_000),
            Rate::from_bits_per_sec(10_000_000),
            60_000,
        )
        .with_mir(Rate::from_bits_per_sec(4_000_000))
        .with_max_packet_bytes(1500)
        .with_k(Duration::from_millis(100))
        .with_tick(HZ),
    )
    .unwrap();
    let tr = TrRasProfile::new(
        &TrRasConfig::new(
            Rate::from_bits_per_sec(1_000_000),
            Rate::from_bits_per_sec(2_000_000),
            Rate::from_bits_per_sec(10_000_000),
            60_000,
        )
        .with_mir(Rate::from_bits_per_sec(4_000_000))
        .with_max_packet_bytes(1500)
        .with_k(Duration::from_millis(100))
        .with_tick(HZ),
    )
    .unwrap();
    [sr.into(), tr.into()]
}

/// The C side's streams.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for (kind, p) in profiles().iter().enumerate() {
        let mut s = Box::new(Ras::<(u32, u64), 64>::new(p, t(0)));
        let mut rng = Rng(seed);
        let (mut now, mut hash, mut refused, mut sent) =
            (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let l = 64 + (r % 1437) as u32;
            now += if (r >> 32) % 8 == 0 {
                (r >> 12) % 50_000_000
            } else {
                u64::from(l) * 1000
            };
            while let Some(at) = s.next_release().filter(|a| a.ticks() <= now) {
                let (len, cookie) = s.dequeue(p, at).expect("due");
                hash = (hash ^ at.ticks() ^ (u64::from(len) << 40) ^ cookie).wrapping_mul(FNV);
                sent += 1;
            }
            refused += u64::from(s.enqueue(p, t(now), (l, u64::from(i))).is_err());
        }
        lines.push(format!(
            "ras{kind} {sent} {refused} {} {hash:016x}",
            s.len()
        ));
    }
    lines
}

#[test]
fn ras_cases_errors_and_bad_arguments() {
    c_cases("ras_test", "all RAS cases passed");
}

#[test]
fn ras_streams_through_c_equal_streams_through_rust() {
    c_streams("ras_test", [11, 0x5eed_1234], rust_streams, |_| {});
}
