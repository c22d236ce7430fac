//! The C test `tests/c/aecn_test.c`, of AECN: its cases, and its seeded streams
//! against the same streams through the Rust API.

use super::*;
use aqm_red::{
    AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Ecn, FlowClass, Spreading, Supplied, U32F32,
};
use netcond_core::SplitMix64;

const PACKETS: u64 = 100_000;

#[derive(Clone, Copy)]
struct D {
    cookie: u64,
    class: FlowClass,
    ecn: Ecn,
}

impl AecnDescriptor for D {
    fn class(&self) -> FlowClass {
        self.class
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) {
        self.ecn = Ecn::Ce;
    }
}

/// The C side's `aecn_params` with spreading `v`.
fn config(v: u64) -> AecnConfig {
    let mut c = AecnConfig::zheng_kinicki(U32F32::from_bits(1 << 31));
    c.w_q = U32F32::from_bits((1u64 << 32) / 1000);
    c.spreading = [
        Spreading::Accumulated,
        Spreading::AccumulatedDpdk,
        Spreading::Uniform,
        Spreading::UniformCountFirst,
        Spreading::Dpdk,
        Spreading::Geometric,
    ][v as usize];
    c
}

/// The Rust side of `aecn_test stream SEED`.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for v in 0..6 {
        for supplied in [false, true] {
            let p = AecnProfile::new(&config(v)).unwrap();
            let mut q = AecnQueue::<D, 128>::new(&p, t(0));
            let mut gen = SplitMix64::new(seed ^ 0xaec0);
            let mut rng = Rng(seed);
            let mut counts = [0u64; 4];
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            let mut deq = 0xcbf2_9ce4_8422_2325u64;
            let mut now = 0u64;
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let draw = (rng.next_u64() >> 32) as u32;
                let class = FlowClass::ALL[((r >> 40) % 3) as usize];
                let ecn = Ecn::from_bits(((r >> 50) & 3) as u8);
                let u = (r >> 20) & 7;
                now += (r >> 8) % 2_000_000;
                let d = D {
                    cookie: i,
                    class,
                    ecn,
                };
                let res = if supplied {
                    q.enqueue(&p, t(now), d, &mut Supplied(draw))
                } else {
                    q.enqueue(&p, t(now), d, &mut gen)
                };
                let dec = match res {
                    Ok(d) => d,
                    Err(r) => r.decision,
                };
                let x = dec.index() as u64;
                counts[x as usize] += 1;
                hash = (hash ^ x).wrapping_mul(0x0100_0000_01b3);
                let phase = (now / 100_000_000) % 200;
                let mut k = if phase < 100 {
                    [0, 0, 0, 1, 1, 1, 1, 2][u as usize]
                } else {
                    [0, 0, 1, 1, 1, 2, 2, 2][u as usize]
                };
                if (r >> 30) & 4095 == 0 {
                    k = 128;
                }
                for _ in 0..k {
                    let Some(o) = q.dequeue(&p, t(now + 1)) else {
                        break;
                    };
                    deq = (deq ^ (o.cookie * 4 + o.ecn as u64)).wrapping_mul(0x0100_0000_01b3);
                }
            }
            let c3 = q.counts();
            lines.push(format!(
                "aecn_{}{v} {} {} {} {} {hash:016x} {deq:016x} {} {} {} {} {}",
                if supplied { "draw" } else { "rng" },
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                q.avg(&p).to_bits(),
                q.len(),
                c3[0],
                c3[1],
                c3[2]
            ));
        }
    }
    lines
}

#[test]
fn aecn_cases_errors_and_bad_arguments() {
    c_cases("aecn_test", "all AECN cases passed");
}

#[test]
fn aecn_streams_through_c_equal_streams_through_rust() {
    c_streams(
        "aecn_test",
        [5u64, 0x0fed_cba9_8765],
        rust_streams,
        |rust| {
            // Each queue queued, marked, dropped early and dropped forced.
            for line in &rust {
                let f = counts(line, 4);
                assert!(f.iter().all(|&n| n > 0), "{line}");
            }
        },
    );
}
