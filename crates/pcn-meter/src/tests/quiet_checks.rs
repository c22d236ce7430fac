//! The invariant checks on the detector streams: quiet on the real code.

use super::egress::{egress_configs, egress_ops};
use super::*;

/// A stream that keeps a 1 MB/s bucket busy: 64- to 1500-byte packets 0 to
/// 2 ms apart (3 MB/s on average), every marking, now and then a step back.
fn detector_packets(seed: u64) -> Vec<(u64, u32, PcnMark)> {
    let mut r = SplitMix64::new(seed);
    let mut t = 1_000u64;
    (0..2_000)
        .map(|_| {
            t = if r.below(50) == 0 {
                t.saturating_sub(5_000)
            } else {
                t + u64::from(r.below(1_000_000))
            };
            let len = 64 + r.below(1_437);
            let mark = [
                PcnMark::Nm,
                PcnMark::Nm,
                PcnMark::Thm,
                PcnMark::Etm,
                PcnMark::NotPcn,
            ][r.below(5) as usize];
            (t, len, mark)
        })
        .collect()
}

/// True when `meter_step` (the fuzz targets' per-packet invariants) fails or
/// the meter parts from its reference model (the fuzz targets' differential
/// check) on `packets`.
fn diverges<M: PcnMeter, R: Model>(
    p: &M::Profile,
    per_byte: u64,
    packets: &[(u64, u32, PcnMark)],
    make: impl FnOnce(Instant) -> R,
) -> bool {
    let mut m = M::start(p, ns(0));
    let mut r = make(ns(0));
    for &(t, len, mark) in packets {
        let Ok(fast) = meter_step(p, &mut m, ns(t), len, mark) else {
            return true;
        };
        if fast != r.step(ns(t), len, mark) || !r.same(m.level(), per_byte) {
            return true;
        }
    }
    false
}

/// Runs check `id`'s detector on a few streams: true when any run catches it.
fn caught(id: u32) -> bool {
    let rate = Rate::from_bytes_per_sec(1_000_000);
    let tick = TickRate::NANOS;
    (1..=4u64).any(|seed| {
        let pk = detector_packets(seed);
        match id {
            1 => {
                let c = ThresholdMeterConfig {
                    threshold_rate: rate,
                    bs_tm: 3000,
                    threshold: 1500,
                    tick,
                };
                let p = ThresholdMeterProfile::new(&c).unwrap();
                diverges::<ThresholdMeter, _>(&p, p.units_per_byte(), &pk, |t| {
                    RefThresholdMeter::new(c, t)
                })
            }
            2 => {
                let c = ExcessTrafficMeterConfig {
                    excess_rate: rate,
                    bs_etm: 3000,
                    mode: ExcessMode::SizeIndependent,
                    tick,
                };
                let p = ExcessTrafficMeterProfile::new(&c).unwrap();
                diverges::<ExcessTrafficMeter, _>(&p, p.units_per_byte(), &pk, |t| {
                    RefExcessTrafficMeter::new(c, t)
                })
            }
            3 => {
                let c = EtMarkerConfig::draft_explicit_marking_01(rate, 3000, 500);
                let p = EtMarkerProfile::new(&c).unwrap();
                diverges::<EtMarker, _>(&p, p.units_per_byte(), &pk, |t| RefEtMarker::new(c, t))
            }
            4 => {
                let c = EtMarkerSim48Config {
                    pcn_pt: rate,
                    pcn_tb: 3000,
                    pcn_px: 1000,
                    tick,
                };
                let p = EtMarkerSim48Profile::new(&c).unwrap();
                diverges::<EtMarkerSim48, _>(&p, p.units_per_byte(), &pk, |t| {
                    RefEtMarkerSim48::new(c, t)
                })
            }
            5 => {
                let c = AsMarkerConfig {
                    ar: rate,
                    bucket_size: 3000,
                    threshold: 1500,
                    form: AsForm::DraftExplicitMarking01,
                    tick,
                };
                let p = AsMarkerProfile::new(&c).unwrap();
                diverges::<AsMarker, _>(&p, p.units_per_byte(), &pk, |t| RefAsMarker::new(c, t))
            }
            6 => {
                // The node against its two stages' reference models in order.
                let ec = ExcessTrafficMeterConfig {
                    excess_rate: rate,
                    bs_etm: 3000,
                    mode: ExcessMode::SizeIndependent,
                    tick,
                };
                let tc = ThresholdMeterConfig {
                    threshold_rate: Rate::from_bytes_per_sec(700_000),
                    bs_tm: 3000,
                    threshold: 1500,
                    tick,
                };
                let np = NodeProfile {
                    excess: ExcessTrafficMeterProfile::new(&ec).unwrap(),
                    threshold: ThresholdMeterProfile::new(&tc).unwrap(),
                };
                let mut node = NodeRfc5670::new(&np, ns(0));
                let (mut re, mut rt) = (
                    RefExcessTrafficMeter::new(ec, ns(0)),
                    RefThresholdMeter::new(tc, ns(0)),
                );
                pk.iter().any(|&(t, len, mark)| {
                    let fast = meter_step(&np, &mut node, ns(t), len, mark);
                    fast != Ok(rt.mark(ns(t), len, re.mark(ns(t), len, mark)))
                })
            }
            7 => {
                let p = StopBlockingProfile::new(&StopBlockingConfig::draft_explicit_marking_01())
                    .unwrap();
                let mut timer = StopBlockingTimer::new(&p, ns(0));
                pk.iter().any(|&(t, _, mark)| {
                    let now = ns(t * 1000);
                    if mark == PcnMark::Thm {
                        timer.on_block(&p, now);
                    } else {
                        let _ = timer.poll(&p, now);
                    }
                    stop_blocking_consistent(&p, &timer, now).is_err()
                })
            }
            8..=10 => {
                let mut r = SplitMix64::new(seed);
                (0..20).any(|i| {
                    let (ec, dc, cc) = egress_configs(&mut r, i);
                    let ops = egress_ops(&mut r, 300, ec.tick.ticks_from_duration(ec.t_meas));
                    check_egress(&ec, &dc, &cc, Instant::from_ticks(r.next_u64()), &ops).is_err()
                })
            }
            _ => false,
        }
    })
}

/// None of the invariant checks the fuzz targets run fires on the real code,
/// on the streams of every detector. (Which broken variants of the code the
/// tests catch is measured by cargo-mutants: docs/verification.md.)
#[test]
#[cfg_attr(miri, ignore = "thousands of packets per detector; Miri takes minutes")]
fn no_check_fires_on_the_real_code() {
    for id in 1..=10 {
        assert!(!caught(id), "detector {id} fires on the real code");
    }
}
