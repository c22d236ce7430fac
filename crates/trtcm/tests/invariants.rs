//! Property tests of the invariants in `trtcm::invariants`, for any input: any
//! accepted configuration, any timestamps (including `u64::MAX` and backward
//! steps), any lengths (including 0 and `u32::MAX`), any input colors, and any
//! starting token counts. A panic anywhere fails the test too.

use netcond_core::{Color, Instant, Rate, TickRate};
use proptest::prelude::*;
use trtcm::invariants::{
    never_promotes, policer_step, rfc4115_step, srtcm_step, trtcm_step, Violation,
};
use trtcm::{
    PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115, Rfc4115Config,
    Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};

fn color() -> impl Strategy<Value = Option<Color>> {
    prop_oneof![
        Just(None),
        Just(Some(Color::Green)),
        Just(Some(Color::Yellow)),
        Just(Some(Color::Red)),
    ]
}

fn packets() -> impl Strategy<Value = Vec<(u64, u32, Option<Color>)>> {
    proptest::collection::vec((any::<u64>(), any::<u32>(), color()), 1..64)
}

fn tick() -> impl Strategy<Value = TickRate> {
    prop_oneof![
        Just(TickRate::NANOS),
        Just(TickRate::MICROS),
        Just(TickRate::from_hz(2_300_000_000).unwrap()),
        (1u64..=u64::MAX).prop_map(|hz| TickRate::from_hz(hz).unwrap()),
        any::<u64>().prop_map(|hz| TickRate::from_hz((hz >> (hz % 64)).max(1)).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn srtcm_invariants(
        cir in any::<u64>(), cbs in any::<u64>(), ebs in any::<u64>(), tick in tick(),
        tc in any::<u64>(), te in any::<u64>(), last in any::<u64>(), pkts in packets(),
    ) {
        let cfg = SrTcmConfig::new(Rate::from_bits_per_sec(cir), cbs >> (cbs % 64), ebs >> (ebs % 64)).with_tick(tick);
        if let Ok(p) = SrTcmProfile::new(&cfg) {
            let mut s = SrTcm::from_parts(&p, tc, te, Instant::from_ticks(last));
            for (t, len, input) in pkts {
                prop_assert!(srtcm_step(&p, &mut s, Instant::from_ticks(t), len, input).is_ok());
            }
        }
    }

    #[test]
    fn trtcm_invariants(
        cir in any::<u64>(), pir in any::<u64>(), cbs in any::<u64>(), pbs in any::<u64>(),
        tick in tick(), tc in any::<u64>(), tp in any::<u64>(), last in any::<u64>(),
        pkts in packets(),
    ) {
        let cfg = TrTcmConfig::new(Rate::from_bits_per_sec(cir.min(pir)), Rate::from_bits_per_sec(cir.max(pir)), cbs >> (cbs % 64), pbs >> (pbs % 64)).with_tick(tick);
        if let Ok(p) = TrTcmProfile::new(&cfg) {
            let mut s = TrTcm::from_parts(&p, tc, tp, Instant::from_ticks(last));
            for (t, len, input) in pkts {
                prop_assert!(trtcm_step(&p, &mut s, Instant::from_ticks(t), len, input).is_ok());
            }
        }
    }

    #[test]
    fn rfc4115_invariants(
        cir in any::<u64>(), eir in any::<u64>(), cbs in any::<u64>(), ebs in any::<u64>(),
        text in any::<bool>(), tick in tick(), tc in any::<u64>(), te in any::<u64>(),
        last in any::<u64>(), pkts in packets(),
    ) {
        let cfg = Rfc4115Config::new(Rate::from_bits_per_sec(cir >> (cir % 64)), Rate::from_bits_per_sec(eir >> (eir % 64)), cbs >> (cbs % 64), ebs >> (ebs % 64)).with_tick(tick);
        let ties = if text { Rfc4115Ties::Text } else { Rfc4115Ties::Figure1 };
        if let Ok(p) = Rfc4115Profile::with_ties(&cfg, ties) {
            let mut s = Rfc4115::from_parts(&p, tc, te, Instant::from_ticks(last));
            for (t, len, input) in pkts {
                prop_assert!(rfc4115_step(&p, &mut s, Instant::from_ticks(t), len, input).is_ok());
            }
        }
    }

    #[test]
    fn policer_invariants(
        rate in any::<u64>(), tbs in any::<u64>(), pbs in any::<u64>(), max_packet in any::<u32>(),
        tick in tick(), last in any::<u64>(), pkts in packets(),
    ) {
        let cfg = PremiumPolicerConfig::new(Rate::from_bits_per_sec(rate), tbs >> (tbs % 64), pbs >> (pbs % 64), max_packet >> (max_packet % 32)).with_tick(tick);
        if let Ok(p) = PremiumPolicerProfile::new(&cfg) {
            let mut s = PremiumPolicer::new(&p, Instant::from_ticks(last));
            for (t, len, input) in pkts {
                if input == Some(Color::Red) {
                    s.dequeued(len);
                } else {
                    prop_assert!(policer_step(&p, &mut s, Instant::from_ticks(t), len).is_ok());
                }
            }
        }
    }
}

/// Time going backwards creates nothing, and the meter's clock stays put.
#[test]
fn backwards_time_creates_nothing() {
    let p = TrTcmProfile::new(&TrTcmConfig::default()).unwrap();
    let t = Instant::from_ticks(10_000_000);
    let mut s = TrTcm::new(&p, t);
    assert_eq!(s.color_blind(&p, t, 4000), Color::Yellow);
    let before = s;
    // Every earlier instant, up to half the clock's range back.
    for back in [1u64, 1000, 9_999_999, 10_000_000, 1 << 40, (1 << 63) - 1] {
        let earlier = Instant::from_ticks(t.ticks().wrapping_sub(back));
        assert_eq!(s.tc_at(&p, earlier), before.tc());
        assert_eq!(s.tp_at(&p, earlier), before.tp());
        let mut x = s;
        assert_eq!(x.color_blind(&p, earlier, 0), Color::Green);
        assert_eq!((x.tc(), x.tp(), x.last()), (before.tc(), before.tp(), t));
        assert_eq!(trtcm_step(&p, &mut x, earlier, 1, None).map(|_| ()), Ok(()));
    }
}

/// Huge sizes on fast clocks are refused, not a panic.
#[test]
fn huge_configurations_are_refused() {
    let tick = TickRate::from_hz(u64::MAX).unwrap();
    let sr = SrTcmConfig::default().with_cbs(u64::MAX).with_tick(tick);
    assert_eq!(SrTcmProfile::new(&sr), Err(trtcm::SrTcmError::TooLarge));
    let tr = TrTcmConfig::default().with_pbs(u64::MAX).with_tick(tick);
    assert_eq!(TrTcmProfile::new(&tr), Err(trtcm::TrTcmError::TooLarge));
}

/// The invariant checks themselves can fail.
#[test]
fn invariant_checks_can_fail() {
    assert!(never_promotes(Color::Yellow, Color::Red));
    assert!(!never_promotes(Color::Yellow, Color::Green));
    assert!(!never_promotes(Color::Red, Color::Yellow));
    // A state whose tokens exceed a smaller profile's buckets is reported.
    let big = SrTcmProfile::new(&SrTcmConfig::default()).unwrap();
    let small = SrTcmProfile::new(&SrTcmConfig::default().with_cbs(100)).unwrap();
    let mut s = SrTcm::new(&big, Instant::ZERO);
    assert_eq!(
        srtcm_step(&small, &mut s, Instant::ZERO, 1, None),
        Err(Violation::TokensAboveBucket)
    );
    assert!(!Violation::Promoted.to_string().is_empty());
}
