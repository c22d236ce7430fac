//! The C test `tests/c/ras_core_test.c`, of srRAS and trRAS with the caller's
//! queue: its cases, and its seeded streams against the same streams through
//! the Rust API.

use super::*;
use ras_shaper::Ras;

const PACKETS: u32 = 100_000;
const FNV: u64 = 0x0100_0000_01b3;

use super::ras::profiles;

/// The C side's streams through the shaper with its own queue
/// (`ras_core_test.c` ties the C queue-less shaper to it packet by packet):
/// the same counts, release hash and final state.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for (kind, p) in profiles().iter().enumerate() {
        let mut s = Box::new(Ras::<(u32, u64), 64>::new(p, t(0)));
        let mut rng = Rng(seed);
        let (mut now, mut hash, mut refused, mut sent) =
            (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let mut l = 64 + (r % 1437) as u32;
            let late = (r >> 8) & 1 == 1;
            if (r >> 40) % 8 == 0 {
                l = if (r >> 44) % 2 == 0 { 0 } else { 9000 };
            }
            now += if (r >> 32) % 8 == 0 {
                (r >> 12) % 50_000_000
            } else {
                u64::from(l) * 1000
            };
            while let Some(at) = s.next_release().filter(|a| a.ticks() <= now) {
                let when = if late { t(now) } else { at };
                let (len, cookie) = s.dequeue(p, when).expect("due");
                hash = (hash ^ at.ticks() ^ (u64::from(len) << 40) ^ cookie).wrapping_mul(FNV);
                sent += 1;
            }
            refused += u64::from(s.enqueue(p, t(now), (l, u64::from(i))).is_err());
        }
        let c = s.core();
        lines.push(format!(
            "ras_core{kind} {sent} {refused} {} {} {} {} {} {} {} {} {} {hash:016x}",
            s.len(),
            c.bytes(),
            c.ear().raw(),
            c.ear().last_arrival().ticks(),
            c.head_schedule().at.ticks(),
            c.head_schedule().frac,
            c.next_start().at.ticks(),
            c.next_start().frac,
            p.units_to_bits_per_sec(c.shaping_rate(p)),
        ));
    }
    lines
}

#[test]
fn ras_core_cases_and_bad_arguments() {
    c_cases("ras_core_test", "all RAS core cases passed");
}

/// 10^5 packets per kind through the C shaper with the C caller's queue
/// (checked there against the C shaper with the library's queue, answer
/// by answer) and through the Rust shaper with its own queue.
#[test]
fn ras_core_streams_through_c_equal_streams_through_rust() {
    c_streams(
        "ras_core_test",
        [23, 0x0123_4567_89ab],
        rust_streams,
        |_| {},
    );
}
