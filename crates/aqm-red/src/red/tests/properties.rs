//! Property tests of the invariants (`crate::invariants`) of RED, Adaptive
//! RED, RIO and AECN over random operation sequences.

use super::*;

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u64..1_000_000, 0u32..2000, 0u32..10_000, 0u8..4, 0u8..3).prop_map(|(dt, queue_len, len, ecn, color)| Op::Arrive { dt, queue_len, len, ecn, color }),
        1 => (any::<u64>(), any::<u32>(), any::<u32>(), any::<u8>(), any::<u8>()).prop_map(|(dt, queue_len, len, ecn, color)| Op::Arrive { dt, queue_len, len, ecn, color }),
        1 => (0u64..100_000_000).prop_map(|dt| Op::Depart { dt }),
        1 => any::<u64>().prop_map(|back| Op::ClockBack { back }),
    ]
}

/// Up to `max - 1` operations; up to 24 under Miri, which interprets every
/// instruction (generating a case costs there as much as running it).
fn arb_ops(max: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(arb_op(), 1..if cfg!(miri) { 24 } else { max })
}

proptest! {
    // 400 cases natively; under Miri, which interprets every instruction, the
    // default configuration, which honours PROPTEST_CASES.
    #![proptest_config(if cfg!(miri) { ProptestConfig::default() } else { ProptestConfig::with_cases(400) })]

    #[test]
    fn red_invariants_hold(c in arb_config(), ops in arb_ops(400), seed in any::<u64>()) {
        let p = RedProfile::new(&c).unwrap();
        prop_assert_eq!(invariants::check_red(&p, &ops, seed), Ok(()));
    }

    #[test]
    fn adaptive_invariants_hold(
        c in arb_config(),
        interval in prop_oneof![1u64..10_000_000, any::<u64>()],
        start in any::<u64>(),
        ops in arb_ops(400),
        seed in any::<u64>(),
    ) {
        // arb_config's clock is in nanoseconds: `interval` ticks.
        let ac = AdaptiveRedConfig::new(c, core::time::Duration::from_nanos(interval));
        prop_assert_eq!(invariants::check_adaptive(&ac, start, &ops, seed), Ok(()));
    }

    #[test]
    fn rio_invariants_hold(c in arb_config(), mode in 0u8..3, ops in arb_ops(300), seed in any::<u64>()) {
        // The same curve for all colors (ordered trivially), a worse one for red.
        let pr = crate::Precedence { min_th: c.min_th, max_th: c.max_th, max_p: c.max_p };
        let rc = crate::RioConfig {
            mode: [crate::RioMode::Coupled, crate::RioMode::Decoupled, crate::RioMode::Wred][mode as usize],
            colors: [pr, pr, crate::Precedence { max_p: U32F32::ONE, ..pr }],
            queue: c.queue,
            tick: c.tick,
        };
        let p = crate::RioProfile::new(&rc).unwrap();
        prop_assert_eq!(invariants::check_rio(&p, &ops, seed), Ok(()));
    }

    #[test]
    fn aecn_invariants_hold(
        min_th in 0u32..30, span in 1u32..30, extra in 0u32..10,
        base in 0u64..=1 << 32, alpha in (1u64 << 32)..(8 << 32), beta in (1u64 << 32)..(8 << 32),
        w in 1u64..=1 << 32, ops in arb_ops(400), seed in any::<u64>(), s in 0..ALL_SPREADINGS.len(),
    ) {
        let c = crate::AecnConfig {
            w_q: U32F32::from_bits(w), min_th, max_th: min_th + span,
            base_max_p: U32F32::from_bits(base), alpha: U32F32::from_bits(alpha), beta: U32F32::from_bits(beta),
            limit: min_th + span + extra, typical_tx: core::time::Duration::from_nanos(1000), tick: netcond_core::TickRate::NANOS, spreading: ALL_SPREADINGS[s],
        };
        let p = crate::AecnProfile::new(&c).unwrap();
        prop_assert_eq!(invariants::check_aecn(&p, &ops, seed), Ok(()));
    }
}
