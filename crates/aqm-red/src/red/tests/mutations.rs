//! The fuzz targets' checks on the real code, in the runs that catch the
//! mutants cargo-mutants makes of the buffer test, the idle decay and
//! Adaptive RED's band (docs/verification.md, "Mutation testing with
//! cargo-mutants"): no check fires on the unbroken code.

use super::*;

/// Random operations for the mutation checks: arrivals at queue lengths up
/// to past the limit, departures, steps back.
fn mutant_ops(r: &mut SplitMix64, limit: u32, n: usize) -> Vec<Op> {
    (0..n)
        .map(|_| match r.below(10) {
            0 => Op::Depart {
                dt: u64::from(r.below(1_000_000)),
            },
            1 => Op::ClockBack {
                back: u64::from(r.below(1000)),
            },
            _ => Op::Arrive {
                dt: u64::from(r.below(100_000)),
                queue_len: r.below(limit + 3),
                len: 1 + r.below(1500),
                ecn: r.below(4) as u8,
                color: r.below(3) as u8,
            },
        })
        .collect()
}

/// Check `id`'s detector, the check its fuzz target runs: true if it fails.
fn aqm_caught(id: u32) -> bool {
    let mut r = SplitMix64::new(u64::from(id) + 7);
    let c = cfg(10, 30, 0.1, 0.25, 40);
    (0..20).any(|_| {
        let ops = mutant_ops(&mut r, 40, 400);
        let seed = r.next_u64();
        match id {
            1 => invariants::check_red(&RedProfile::new(&c).unwrap(), &ops, seed).is_err(),
            2 => {
                let mut rc = crate::RioConfig::rfc2963(40);
                rc.colors = [crate::Precedence {
                    min_th: 10,
                    max_th: 30,
                    max_p: c.max_p,
                }; 3];
                rc.queue.w_q = c.queue.w_q;
                let p = crate::RioProfile::new(&rc).unwrap();
                invariants::check_rio(&p, &ops, seed).is_err()
            }
            3 => {
                // The buffer at max_th, a slow average: the queue reaches the
                // buffer before the average reaches max_th.
                let mut ac = crate::AecnConfig::zheng_kinicki(RedConfig::prob(0.5));
                ac.limit = ac.max_th;
                ac.w_q = RedConfig::prob(0.002);
                let p = crate::AecnProfile::new(&ac).unwrap();
                invariants::check_aecn(&p, &ops, seed).is_err()
            }
            4 => {
                let ac = AdaptiveRedConfig::new(c, core::time::Duration::from_nanos(50_000));
                invariants::check_adaptive(&ac, 0, &ops, seed).is_err()
            }
            5 => {
                // red_reference's own check: the average within the bound
                // `RefRedAvg` tracks, after every call of a stream of
                // arrivals, arrivals to an empty queue and queue-empty
                // signals on a forward clock (the target's three operations).
                let mut c = c;
                c.queue.typical_tx = core::time::Duration::from_nanos(1_000_000);
                let p = RedProfile::new(&c).unwrap();
                let mut red = Red::new(&p, Instant::ZERO);
                let mut model = crate::reference::RefRedAvg::new(&p, &c);
                let mut now = 0u64;
                let mut rng = SplitMix64::new(seed);
                (0..400).any(|_| {
                    now += u64::from(r.below(2_000_000));
                    let at = t(now);
                    match r.below(8) {
                        0 => {
                            red.on_queue_empty(&p, at);
                            model.queue_empty(now);
                        }
                        1 => {
                            red.on_arrival(&p, at, 0, Packet::not_ect(1), &mut rng);
                            model.arrive(now, 0);
                        }
                        _ => {
                            let q = r.below(45);
                            red.on_arrival(&p, at, q, Packet::not_ect(1), &mut rng);
                            model.arrive(now, q);
                        }
                    }
                    !model.matches(units(&p, &red))
                })
            }
            _ => false,
        }
    })
}

/// No detector fires on the real code.
#[test]
#[cfg_attr(miri, ignore = "thousands of packets per detector; Miri takes minutes")]
fn detectors_pass_on_the_real_code() {
    for id in 1..=5 {
        assert!(!aqm_caught(id), "detector {id} fires on the unbroken code");
    }
}
