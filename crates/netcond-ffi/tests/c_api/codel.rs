//! The C test `tests/c/codel_test.c`, of CoDel and FQ-CoDel: its cases, and its
//! seeded streams against the same streams through the Rust API.

use super::*;
use aqm_delay::{Codel, CodelConfig, CodelProfile, ControlLaw, Head, LinuxVariant, Verdict};
use std::collections::VecDeque;

const MS: u64 = 1_000_000;

/// The Rust side of `codel_test stream SEED`: the same queue, the same
/// configurations, through `aqm_delay::Codel`.
fn rust_streams(seed: u64) -> Vec<String> {
    let cfgs = [
        (ControlLaw::Exact, LinuxVariant::Kernel, true),
        (ControlLaw::Linux, LinuxVariant::Kernel, false),
        (ControlLaw::Linux, LinuxVariant::Kernel, true),
        (ControlLaw::Linux, LinuxVariant::Ns3, true),
    ];
    let mut lines = Vec::new();
    for (k, &(law, variant, ecn)) in cfgs.iter().enumerate() {
        let p = CodelProfile::new(
            &CodelConfig::rfc8289()
                .with_mtu(1500)
                .with_ecn(ecn)
                .with_control_law(law)
                .with_linux_variant(variant)
                .with_tick(HZ),
        )
        .unwrap();
        let mut now = 1000u64;
        let mut c = Codel::new(&p, t(now));
        let mut rng = Rng(seed);
        let mut q: VecDeque<Head> = VecDeque::new();
        let (mut bytes, mut counts, mut hash) = (0u64, [0u64; 3], 0xcbf2_9ce4_8422_2325u64);
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let phase = (i / 4000) % 3;
            now += (r % 400) * 1000 + 1;
            if (r >> 9) % 997 == 0 {
                now += 2000 * MS;
            }
            let arrive = match phase {
                0 => (r >> 30) % 3 != 0,
                1 => (r >> 30) % 2 == 0,
                _ => (r >> 30) % 4 == 0,
            };
            if arrive && q.len() < 4096 {
                let kind = ((r >> 40) % 64) as u32;
                let len = match kind {
                    0 => 0,
                    1 => 9000,
                    _ => 40 + kind * 23,
                };
                q.push_back(Head::new(t(now), len, (r >> 50) % 3 != 0));
                bytes += u64::from(len);
            }
            if (r >> 33) % 2 == 0 {
                continue;
            }
            loop {
                let Some(h) = q.pop_front() else {
                    c.on_queue_empty(&p, t(now));
                    break;
                };
                bytes -= u64::from(h.len);
                let v = c.on_dequeue(&p, t(now), h, bytes);
                let n = match v {
                    Verdict::Deliver => 0,
                    Verdict::Mark => 1,
                    Verdict::Drop => 2,
                };
                counts[n] += 1;
                hash = (hash ^ n as u64).wrapping_mul(0x0100_0000_01b3);
                if v != Verdict::Drop {
                    break;
                }
            }
        }
        lines.push(format!(
            "codel_{k} {} {} {} {hash:016x} {} {} {} {} {}",
            counts[0],
            counts[1],
            counts[2],
            c.drop_next(),
            c.last_seen().ticks(),
            c.count(),
            c.lastcount(),
            u32::from(c.dropping())
        ));
    }
    lines
}

#[test]
fn codel_cases_errors_and_bad_arguments() {
    c_cases("codel_test", "all CoDel cases passed");
}

#[test]
fn codel_streams_through_c_equal_streams_through_rust() {
    c_streams("codel_test", [19, 0x0c0d_e1c0_de15], rust_streams, |rust| {
        // Deliveries and drops in every run, marks in those with ECN.
        for (k, line) in rust.iter().enumerate() {
            let f = counts(line, 3);
            assert!(f[0] > 10_000 && f[2] > 100, "{line}");
            assert_eq!(f[1] > 100, k != 1, "{line}");
        }
    });
}
