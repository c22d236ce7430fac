//! Property tests of the invariants.

use super::*;
use proptest::prelude::*;

fn any_mark() -> impl Strategy<Value = PcnMark> {
    prop::sample::select(MARKS.to_vec())
}

fn any_tick() -> impl Strategy<Value = TickRate> {
    prop_oneof![
        Just(TickRate::NANOS),
        Just(TickRate::MILLIS),
        (1u64..10_000_000_000).prop_map(|h| TickRate::from_hz(h).unwrap()),
    ]
}

/// Up to 200 packets per case; up to 16 under Miri, which interprets every
/// instruction (generating a case costs there as much as running it).
fn steps() -> impl Strategy<Value = Vec<(u64, u32, PcnMark)>> {
    let max_len = if cfg!(miri) { 16 } else { 200 };
    prop::collection::vec(
        (
            prop_oneof![any::<u64>(), 0u64..100_000, Just(u64::MAX), Just(0)],
            prop_oneof![any::<u32>(), 0u32..2000, Just(u32::MAX)],
            any_mark(),
        ),
        1..max_len,
    )
}

fn run_steps<M: PcnMeter>(
    p: &M::Profile,
    start: u64,
    steps: &[(u64, u32, PcnMark)],
) -> Result<(), TestCaseError> {
    let mut m = M::start(p, ns(start));
    for &(t, len, mark) in steps {
        let r = meter_step(p, &mut m, ns(t), len, mark);
        prop_assert!(r.is_ok(), "{:?}", r);
        let r = not_pcn_is_not_metered(p, &m, ns(t), len);
        prop_assert!(r.is_ok(), "{:?}", r);
    }
    Ok(())
}

proptest! {
    #[test]
    fn et_marker_invariants(rate in any::<u64>(), size in 0u64..1_000_000, s in any::<u64>(),
                            mtu in 1u32..10_000, psi in any::<bool>(), adds in any::<bool>(),
                            tick in any_tick(), start in any::<u64>(), st in steps()) {
        let c = EtMarkerConfig {
            sr: Rate::from_bits_per_sec(rate),
            bucket_size: size.max(u64::from(mtu)),
            s,
            already_et_adds_s: adds,
            marking: if psi { EtMarking::SizeIndependent { mtu } } else { EtMarking::TailMarking },
            tick,
        };
        if let Ok(p) = EtMarkerProfile::new(&c) {
            run_steps::<EtMarker>(&p, start, &st)?;
        }
    }

    #[test]
    fn sim48_invariants(rate in any::<u64>(), tb in 0u64..1_000_000, px in any::<u64>(),
                        tick in any_tick(), start in any::<u64>(), st in steps()) {
        let c = EtMarkerSim48Config { pcn_pt: Rate::from_bits_per_sec(rate), pcn_tb: tb, pcn_px: px, tick };
        if let Ok(p) = EtMarkerSim48Profile::new(&c) {
            run_steps::<EtMarkerSim48>(&p, start, &st)?;
        }
    }

    #[test]
    fn as_and_threshold_invariants(rate in any::<u64>(), size in 0u64..1_000_000, thr in any::<u64>(),
                                   draft in any::<bool>(), tick in any_tick(), start in any::<u64>(),
                                   st in steps()) {
        let thr = thr % (size + 1);
        let c = AsMarkerConfig {
            ar: Rate::from_bits_per_sec(rate),
            bucket_size: size,
            threshold: thr,
            form: if draft { AsForm::Draft3sm01 } else { AsForm::DraftExplicitMarking01 },
            tick,
        };
        if let Ok(p) = AsMarkerProfile::new(&c) {
            run_steps::<AsMarker>(&p, start, &st)?;
        }
        let c = ThresholdMeterConfig { threshold_rate: Rate::from_bits_per_sec(rate), bs_tm: size, threshold: thr, tick };
        if let Ok(p) = ThresholdMeterProfile::new(&c) {
            run_steps::<ThresholdMeter>(&p, start, &st)?;
        }
    }

    /// The node marker, whether it shares the elapsed time (stages last
    /// updated together) or not, equals its stages run one after the other,
    /// for any clocks, times, lengths and markings.
    #[test]
    fn node_marker_equals_its_stages(rate in any::<u64>(), size in 0u64..1_000_000,
                                     tick in any_tick(), start in any::<u64>(),
                                     apart in prop_oneof![Just(0u64), any::<u64>()],
                                     st in steps()) {
        let (r, r2) = (Rate::from_bits_per_sec(rate), Rate::from_bits_per_sec(rate / 2));
        let et = EtMarkerProfile::new(&EtMarkerConfig { tick, ..EtMarkerConfig::draft_explicit_marking_01(r, size, 1064) });
        let at = AsMarkerProfile::new(&AsMarkerConfig { tick, ..AsMarkerConfig::draft_explicit_marking_01(r2, size, size / 2) });
        let ex = ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: r, bs_etm: size, mode: ExcessMode::SizeIndependent, tick });
        let th = ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: r2, bs_tm: size, threshold: size / 2, tick });
        let (t0, t1) = (ns(start), ns(start.wrapping_add(apart)));
        if let (Ok(et), Ok(at)) = (et, at) {
            let p = NodeProfile { excess: et, threshold: at };
            let mut node = Node3sm { excess: EtMarker::new(&et, t0), threshold: AsMarker::new(&at, t1) };
            let (mut e, mut a) = (node.excess, node.threshold);
            for &(t, len, mark) in &st {
                let out = node.mark(&p, ns(t), len, mark);
                prop_assert_eq!(out, a.mark(&at, ns(t), len, e.mark(&et, ns(t), len, mark)));
                prop_assert_eq!((node.excess, node.threshold), (e, a));
            }
        }
        if let (Ok(ex), Ok(th)) = (ex, th) {
            let p = NodeProfile { excess: ex, threshold: th };
            let mut node = NodeRfc5670 {
                excess: ExcessTrafficMeter::new(&ex, t0),
                threshold: ThresholdMeter::new(&th, t1),
            };
            let (mut e, mut a) = (node.excess, node.threshold);
            for &(t, len, mark) in &st {
                let out = node.mark(&p, ns(t), len, mark);
                prop_assert_eq!(out, a.mark(&th, ns(t), len, e.mark(&ex, ns(t), len, mark)));
                prop_assert_eq!((node.excess, node.threshold), (e, a));
            }
        }
    }

    #[test]
    fn excess_and_node_invariants(rate in any::<u64>(), size in 0u64..1_000_000, mode in 0u8..3,
                                  tick in any_tick(), start in any::<u64>(), st in steps()) {
        let mode = match mode {
            0 => ExcessMode::SizeIndependent,
            1 => ExcessMode::Classic(ClassicTie::Section2_4),
            _ => ExcessMode::Classic(ClassicTie::AppendixB6),
        };
        let c = ExcessTrafficMeterConfig { excess_rate: Rate::from_bits_per_sec(rate), bs_etm: size, mode, tick };
        if let Ok(p) = ExcessTrafficMeterProfile::new(&c) {
            run_steps::<ExcessTrafficMeter>(&p, start, &st)?;
            let t = ThresholdMeterConfig { threshold_rate: Rate::from_bits_per_sec(rate / 2), bs_tm: size, threshold: size / 2, tick };
            if let Ok(tp) = ThresholdMeterProfile::new(&t) {
                run_steps::<NodeRfc5670>(&NodeProfile { excess: p, threshold: tp }, start, &st)?;
            }
        }
    }
}
