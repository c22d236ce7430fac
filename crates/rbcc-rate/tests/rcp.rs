//! Proptests of the RCP controller with the shared invariants
//! (`rbcc_rate::invariants::check_rcp`): any configuration the profile
//! accepts, any sequence of packets, ACKs, arrivals, control ticks (at any
//! time, backwards too) and direct updates.

use core::time::Duration;
use netcond_core::{Rate, TickRate};
use proptest::prelude::*;
use rbcc_rate::invariants::{check_rcp, RcpOp};
use rbcc_rate::{FixedRate, NodeId, RcpConfig, RcpProfile};

fn arb_rate() -> impl Strategy<Value = FixedRate> {
    prop_oneof![
        (0u64..20_000_000).prop_map(FixedRate::from_bps),
        any::<u64>().prop_map(FixedRate::from_raw),
        Just(FixedRate::UNLIMITED),
        Just(FixedRate::ZERO),
    ]
}

fn arb_dt() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0u64..300_000_000,
        1 => any::<u64>(),
        1 => (0u64..1000).prop_map(|d| d.wrapping_neg()),
    ]
}

fn arb_op() -> impl Strategy<Value = RcpOp> {
    prop_oneof![
        (arb_dt(), arb_rate(), 0u32..4).prop_map(|(dt, rate, n)| RcpOp::Data {
            dt,
            rate,
            node: NodeId(n)
        }),
        (arb_dt(), arb_rate()).prop_map(|(dt, rate)| RcpOp::Ack { dt, rate }),
        prop_oneof![0u32..100_000, any::<u32>()].prop_map(|len| RcpOp::Arrive { len }),
        (
            arb_dt(),
            prop_oneof![Just(0u64), 0u64..1_000_000, any::<u64>()]
        )
            .prop_map(|(dt, queue)| RcpOp::Control { dt, queue }),
        (any::<i8>(), prop_oneof![Just(0u64), 0u64..1_000_000])
            .prop_map(|(offset, queue)| RcpOp::ControlNearDue { offset, queue }),
        (
            arb_rate(),
            arb_rate(),
            any::<u64>(),
            prop_oneof![Just(0u64), any::<u64>()]
        )
            .prop_map(|(r, y, t, q)| RcpOp::Step { r, y, t, q }),
    ]
}

fn arb_config() -> impl Strategy<Value = RcpConfig> {
    (
        (
            0u32..3,
            prop_oneof![1u64..100_000_000_000, any::<u64>()],
            (0u32..100, 0u32..100),
            (0u32..100, 0u32..100),
        ),
        (
            prop_oneof![1u64..1_000_000_000, any::<u64>()],
            prop_oneof![1u64..1_000_000_000, any::<u64>()],
            any::<u64>(),
            any::<u64>(),
            prop_oneof![Just(1_000_000_000u64), 1u64..10_000_000_000],
        ),
    )
        .prop_map(|((node, c, alpha, beta), (rtt, iv, init, min, hz))| {
            let cap = Rate::from_bits_per_sec(c);
            let mut cfg = RcpConfig::new(NodeId(node), cap, Duration::from_nanos(rtt));
            cfg.alpha = alpha;
            cfg.beta = beta;
            cfg.interval = Duration::from_nanos(iv);
            // Mostly valid floors and initial rates, sometimes anything.
            let c = c.max(1);
            cfg.min_rate = Rate::from_bits_per_sec(if min % 4 == 0 { min } else { 1 + min % c });
            cfg.initial = Rate::from_bits_per_sec(if init % 4 == 0 {
                init
            } else {
                c.min(1 + init % c.max(1)).max(1 + min % c)
            });
            cfg.tick = TickRate::from_hz(hz).unwrap_or(TickRate::NANOS);
            cfg
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn rcp_invariants_hold(cfg in arb_config(), start in any::<u64>(), ops in prop::collection::vec(arb_op(), 1..300)) {
        if let Ok(p) = RcpProfile::new(&cfg) {
            prop_assert_eq!(check_rcp(&p, start, &ops), Ok(()));
        }
    }
}
