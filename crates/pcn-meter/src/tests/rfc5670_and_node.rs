//! RFC 5670 details and the node marker.

use super::*;

#[test]
fn rfc5670_tie_rules() {
    let mk = |mode| {
        ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: Rate::from_bits_per_sec(1),
            bs_etm: 1000,
            mode,
            tick: TickRate::NANOS,
        })
        .unwrap()
    };
    // A packet of exactly F_etm bytes: s2.4 marks it, B.6 does not; both empty the bucket.
    for (tie, marked) in [
        (ClassicTie::Section2_4, true),
        (ClassicTie::AppendixB6, false),
    ] {
        let p = mk(ExcessMode::Classic(tie));
        let mut m = ExcessTrafficMeter::new(&p, ns(0));
        assert_eq!(m.mark(&p, ns(0), 1000, PcnMark::Nm) == PcnMark::Etm, marked);
        assert_eq!(m.fill_units(), 0);
        assert_eq!(m.mark(&p, ns(0), 1, PcnMark::Nm), PcnMark::Etm);
    }
    // Size independent: the packet that takes the bucket below zero passes,
    // the next one is marked whatever its size, and marked ones take nothing.
    let p = mk(ExcessMode::SizeIndependent);
    let mut m = ExcessTrafficMeter::new(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), 999, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::Thm), PcnMark::Thm);
    let low = m.fill_units();
    assert!(low < 0);
    assert_eq!(m.mark(&p, ns(0), 1, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(m.mark(&p, ns(0), 9000, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(m.fill_units(), low);
    // Already-ETM packets are not metered.
    let mut m = ExcessTrafficMeter::new(&p, ns(0));
    m.mark(&p, ns(0), 5000, PcnMark::Etm);
    assert_eq!(m.fill_units(), p.capacity_units() as i128);
}

#[test]
fn threshold_meter_meters_etm_but_does_not_thm_it() {
    let p = ThresholdMeterProfile::new(&ThresholdMeterConfig {
        threshold_rate: Rate::from_bits_per_sec(1),
        bs_tm: 3000,
        threshold: 1000,
        tick: TickRate::NANOS,
    })
    .unwrap();
    let mut m = ThresholdMeter::new(&p, ns(0));
    // The bucket starts full: BS_tm bytes in units.
    assert_eq!(p.capacity_units(), 3000 * p.units_per_byte());
    assert_eq!(m.fill_units(), p.capacity_units());
    assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::Etm), PcnMark::Etm);
    assert_eq!(m.fill_units(), 1500 * p.units_per_byte());
    assert_eq!(m.mark(&p, ns(0), 400, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(m.mark(&p, ns(0), 200, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(m.mark(&p, ns(0), 200, PcnMark::Etm), PcnMark::Etm);
    assert_eq!(m.mark(&p, ns(0), 5000, PcnMark::Thm), PcnMark::Thm);
    assert_eq!(m.fill_units(), 0);
}

fn rfc_node(mode: ExcessMode) -> NodeProfile<ExcessTrafficMeterProfile, ThresholdMeterProfile> {
    NodeProfile {
        excess: ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: Rate::from_mbps(10),
            bs_etm: 20_000,
            mode,
            tick: TickRate::NANOS,
        })
        .unwrap(),
        threshold: ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: Rate::from_mbps(8),
            bs_tm: 20_000,
            threshold: 10_000,
            tick: TickRate::NANOS,
        })
        .unwrap(),
    }
}

#[test]
fn node_marker_equals_its_stages_in_order() {
    let p = rfc_node(ExcessMode::SizeIndependent);
    let mut node = NodeRfc5670::new(&p, ns(0));
    let mut e = ExcessTrafficMeter::new(&p.excess, ns(0));
    let mut th = ThresholdMeter::new(&p.threshold, ns(0));
    let mut rf_e = RefExcessTrafficMeter::new(
        ExcessTrafficMeterConfig {
            excess_rate: Rate::from_mbps(10),
            bs_etm: 20_000,
            mode: ExcessMode::SizeIndependent,
            tick: TickRate::NANOS,
        },
        ns(0),
    );
    let mut rf_t = RefThresholdMeter::new(
        ThresholdMeterConfig {
            threshold_rate: Rate::from_mbps(8),
            bs_tm: 20_000,
            threshold: 10_000,
            tick: TickRate::NANOS,
        },
        ns(0),
    );
    let mut r = SplitMix64::new(9);
    let (mut t, mut seen) = (0u64, [0usize; 3]);
    let (n, min_seen) = if cfg!(miri) {
        (400, 10)
    } else {
        (200_000, 1000)
    };
    for _ in 0..n {
        let len = pick_len(&mut r);
        t += u64::from(r.below(2 * len + 1)) * 800; // about 10 Mbps on average
        let mark = pick_mark(&mut r);
        let out = meter_step(&p, &mut node, ns(t), len, mark).unwrap();
        let by_hand = th.mark(
            &p.threshold,
            ns(t),
            len,
            e.mark(&p.excess, ns(t), len, mark),
        );
        let by_ref = rf_t.mark(ns(t), len, rf_e.mark(ns(t), len, mark));
        assert_eq!(out, by_hand);
        assert_eq!(out, by_ref);
        if out != mark {
            seen[out.severity() as usize] += 1;
        }
    }
    // Both stages marked packets in this stream.
    assert!(seen[1] > min_seen && seen[2] > min_seen, "{seen:?}");
}

#[test]
fn node_3sm_et_first_then_as() {
    let p = NodeProfile {
        excess: EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(
            Rate::from_mbps(1),
            1000,
            500,
        ))
        .unwrap(),
        threshold: AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
            Rate::from_mbps(1),
            20_000,
            10_000,
        ))
        .unwrap(),
    };
    let mut n = Node3sm::new(&p, ns(0));
    // 1200 B > ET fill 1000: ET-marked here, so the AS-marker does not take it.
    assert_eq!(n.mark(&p, ns(0), 1200, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(n.threshold.fill_units(), p.threshold.capacity_units());
    // 800 B passes the ET-marker and is metered by the AS-marker.
    assert_eq!(n.mark(&p, ns(0), 800, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(
        n.threshold.fill_units(),
        19_200 * p.threshold.units_per_byte()
    );
    // The convenience wrapper gives the same results.
    let mut w = Metered::<Node3sm>::new(p, ns(0));
    assert_eq!(w.mark(ns(0), 1200, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(w.mark(ns(0), 800, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(w.state, n);
}

/// A meter that only forwards to an [`AsMarker`]: it keeps the default
/// [`PcnMeter::mark_elapsed`], as a meter from outside this crate would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plain(AsMarker);

impl netcond_core::State for Plain {
    type Profile = AsMarkerProfile;
    fn start(p: &AsMarkerProfile, now: Instant) -> Self {
        Plain(AsMarker::new(p, now))
    }
}

impl PcnMeter for Plain {
    fn mark(&mut self, p: &AsMarkerProfile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        self.0.mark(p, now, len, mark)
    }
    fn level(&self) -> i128 {
        self.0.level()
    }
    fn level_bounds(p: &AsMarkerProfile) -> (i128, i128) {
        AsMarker::level_bounds(p)
    }
    fn last_update(&self) -> Instant {
        PcnMeter::last_update(&self.0)
    }
}

/// The node marker works the elapsed time out once when its stages were last
/// updated together, and for each stage when they were not (states set
/// apart): both give what the stages give one after the other, and so does a
/// stage that keeps the default `mark_elapsed`.
#[test]
fn node_marker_shares_the_elapsed_time_only_when_it_may() {
    let et = EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(
        Rate::from_mbps(8),
        20_000,
        1064,
    ))
    .unwrap();
    let at = AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
        Rate::from_mbps(6),
        20_000,
        10_000,
    ))
    .unwrap();
    let p = NodeProfile {
        excess: et,
        threshold: at,
    };
    let mut r = SplitMix64::new(11);
    // Miri interprets every instruction: a few short rounds there, still
    // alternating between stages together and apart.
    let (rounds, packets) = if cfg!(miri) { (4, 40) } else { (200u64, 500) };
    for round in 0..rounds {
        let t0 = (1 << 40) + u64::from(r.next_u32());
        // Every other round the stages start apart (by up to a second, either way).
        let t1 = if round % 2 == 0 {
            t0
        } else {
            t0.wrapping_add(u64::from(r.next_u32()))
                .wrapping_sub(1 << 31)
        };
        let mut node = Node3sm {
            excess: EtMarker::new(&et, ns(t0)),
            threshold: AsMarker::new(&at, ns(t1)),
        };
        let mut plain = NodeMarker {
            excess: EtMarker::new(&et, ns(t0)),
            threshold: Plain(AsMarker::new(&at, ns(t1))),
        };
        let (mut e, mut a) = (node.excess, node.threshold);
        let mut t = t0.max(t1);
        for _ in 0..packets {
            let len = pick_len(&mut r);
            let (step, back) = pick_step(&mut r, Rate::from_mbps(7), TickRate::NANOS, len);
            t = if back {
                t.saturating_sub(step)
            } else {
                t + step
            };
            let mark = pick_mark(&mut r);
            let out = node.mark(&p, ns(t), len, mark);
            let by_hand = a.mark(&at, ns(t), len, e.mark(&et, ns(t), len, mark));
            assert_eq!(out, by_hand);
            assert_eq!((node.excess, node.threshold), (e, a));
            assert_eq!(plain.mark(&p, ns(t), len, mark), out);
            assert_eq!((plain.excess, plain.threshold.0), (e, a));
        }
    }
}

#[test]
fn per_link_state_is_small() {
    assert!(core::mem::size_of::<EtMarker>() <= 16);
    // The two signed levels are 128-bit (exact for every u32 length).
    assert_eq!(core::mem::size_of::<EtMarkerSim48>(), 24);
    assert!(core::mem::size_of::<AsMarker>() <= 16);
    assert!(core::mem::size_of::<ThresholdMeter>() <= 16);
    assert_eq!(core::mem::size_of::<ExcessTrafficMeter>(), 24);
    assert!(core::mem::size_of::<Node3sm>() <= 32);
    assert!(core::mem::size_of::<NodeRfc5670>() <= 40);
    assert!(core::mem::size_of::<StopBlockingTimer>() <= 32);
}

#[test]
fn config_errors() {
    let r = Rate::from_mbps(1);
    let mut c = EtMarkerConfig::draft_3sm01_size_independent(r, 1000, 100, 0);
    assert_eq!(EtMarkerProfile::new(&c), Err(EtMarkerError::ZeroMtu));
    c.marking = EtMarking::SizeIndependent { mtu: 1001 };
    assert_eq!(EtMarkerProfile::new(&c), Err(EtMarkerError::MtuAboveBucket));
    let mut big = EtMarkerConfig::draft_explicit_marking_01(Rate::from_bits_per_sec(1), 1 << 40, 1);
    big.tick = TickRate::from_hz(1 << 30).unwrap();
    assert_eq!(EtMarkerProfile::new(&big), Err(EtMarkerError::TooLarge));
    assert_eq!(
        AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(r, 100, 101)),
        Err(AsMarkerError::ThresholdAboveSize)
    );
    assert_eq!(
        ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: r,
            bs_tm: 100,
            threshold: 101,
            tick: TickRate::NANOS
        }),
        Err(Rfc5670Error::ThresholdAboveSize)
    );
    assert!(EtMarkerError::MtuAboveBucket.to_string().contains("A.1.5"));
    assert!(Rfc5670Error::ThresholdAboveSize
        .to_string()
        .contains("RFC 5670"));
}
