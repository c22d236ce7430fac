//! The C test `tests/c/egress3sm_test.c`, of the 3sM egress traffic control:
//! its cases, and its seeded streams against the same streams through the Rust
//! API.

use super::*;
use pcn_meter::{
    Admission, Egress3sm, EgressSignal, PcnMark, StopBlockingConfig, StopBlockingProfile,
};

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x0100_0000_01b3)
}

/// The Rust side of `egress3sm_test stream SEED`.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for v in 0..2u32 {
        let p = StopBlockingProfile::new(
            &StopBlockingConfig::new(Duration::from_millis(100), v == 1)
                .with_tick(TickRate::from_hz(1_000_000_000).unwrap()),
        )
        .unwrap();
        let mut e = Egress3sm::<u32, 64>::new(&p, t(0));
        let mut rng = Rng(seed);
        let mut index = [None::<usize>; 80];
        let mut counts = [0u64; 4];
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        let mut now = 0u64;
        for i in 0..100_000u32 {
            let r = rng.next_u64();
            let key = ((r >> 10) % 80) as u32;
            let flow = (r >> 20) & 0xfffff;
            let sel = (r >> 44) & 511;
            let mark = match sel {
                0 | 1 => PcnMark::Thm,
                2 => PcnMark::Etm,
                3 => PcnMark::NotPcn,
                _ => PcnMark::from_ecn(((r >> 56) & 2) as u8),
            };
            now += (r >> 4) % 200_000;
            if index[key as usize].is_none() {
                match e.add(key) {
                    Ok(i) => {
                        index[key as usize] = Some(i);
                        hash = mix(hash, 0);
                    }
                    Err(_) => hash = mix(hash, 1),
                }
            }
            let s = match index[key as usize] {
                Some(ix) if i % 2 == 1 => Ok(e.on_packet_at(&p, t(now), ix, flow, mark)),
                _ => e.on_packet(&p, t(now), key, flow, mark),
            };
            match s {
                Ok(s) => {
                    let (action, new, f) = match s {
                        EgressSignal::Nothing => (0, false, 0),
                        EgressSignal::Block { new_period } => (1, new_period, 0),
                        EgressSignal::Terminate {
                            flow,
                            new_block_period,
                        } => (2, new_block_period, flow),
                    };
                    counts[action as usize] += 1;
                    hash = mix(hash, action + 4 * u64::from(new) + 8 * f);
                }
                Err(_) => counts[3] += 1,
            }
            while let Some((k, at)) = e.poll(&p, t(now)) {
                hash = mix(mix(hash, u64::from(k)), at.ticks());
            }
        }
        let mut adm = 0u64;
        for k in 0..80u32 {
            let a = match e.admission(k) {
                Some(Admission::Admit) => 0,
                Some(Admission::Block) => 1,
                None => 2,
            };
            adm = mix(adm, a);
        }
        lines.push(format!(
            "egress3sm_{v} {} {} {} {} {hash:016x} {adm:016x} {}",
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            e.len()
        ));
    }
    lines
}

#[test]
fn egress3sm_cases_and_bad_arguments() {
    c_cases("egress3sm_test", "all egress3sm cases passed");
}

#[test]
fn egress3sm_streams_through_c_equal_streams_through_rust() {
    c_streams(
        "egress3sm_test",
        [13u64, 0x1357_9bdf_2468],
        rust_streams,
        |rust| {
            // Nothing, block, terminate and unregistered all occurred.
            for line in &rust {
                let f = counts(line, 4);
                assert!(f.iter().all(|&n| n > 0), "{line}");
            }
        },
    );
}
