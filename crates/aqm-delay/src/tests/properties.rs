//! Property tests: any sequence of calls keeps the invariants and never
//! panics or overflows.

use proptest::prelude::*;

use crate::invariants::{check_codel, check_fq_codel};
use crate::{
    Codel, CodelConfig, CodelProfile, FqCodel, FqCodelConfig, FqCodelProfile, Head, OverflowDrop,
};
use netcond_core::Instant;

#[derive(Clone, Copy, Debug)]
enum Call {
    Dequeue {
        dt: u64,
        age: u64,
        len: u32,
        ecn: bool,
        backlog: u64,
    },
    Empty {
        dt: u64,
    },
    Back {
        back: u64,
    },
    Bump {
        n: u32,
    },
}

fn call() -> impl Strategy<Value = Call> {
    let dt = prop_oneof![
        0..3_000_000u64,
        Just(u64::MAX),
        Just(1u64 << 63),
        any::<u64>()
    ];
    prop_oneof![
        6 => (dt.clone(), prop_oneof![0..50_000_000u64, any::<u64>()], any::<u32>(), any::<bool>(), prop_oneof![0..20_000u64, any::<u64>()])
            .prop_map(|(dt, age, len, ecn, backlog)| Call::Dequeue { dt, age, len, ecn, backlog }),
        1 => dt.prop_map(|dt| Call::Empty { dt }),
        1 => any::<u64>().prop_map(|back| Call::Back { back }),
        1 => any::<u32>().prop_map(|n| Call::Bump { n }),
    ]
}

fn config() -> impl Strategy<Value = CodelConfig> {
    (0..3u8, any::<bool>(), 1..200u64, 0..3000u32).prop_map(|(k, ecn, iv_ms, mtu)| {
        let base = match k {
            0 => CodelConfig::rfc8289(),
            1 => CodelConfig::linux(),
            _ => CodelConfig::ns3(),
        };
        base.with_ecn(ecn)
            .with_interval(core::time::Duration::from_millis(iv_ms + 5))
            .with_target(core::time::Duration::from_millis(iv_ms / 20 + 1))
            .with_mtu(mtu)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, ..ProptestConfig::default() })]

    #[test]
    fn codel_keeps_invariants(cfg in config(), start in any::<u64>(), calls in prop::collection::vec(call(), 1..300)) {
        let p = CodelProfile::new(&cfg).unwrap();
        let mut c = Codel::new(&p, Instant::from_ticks(start));
        let mut now = start;
        for call in calls {
            match call {
                Call::Dequeue { dt, age, len, ecn, backlog } => {
                    now = now.wrapping_add(dt);
                    let h = Head::new(Instant::from_ticks(now.wrapping_sub(age)), len, ecn);
                    let v = c.on_dequeue(&p, Instant::from_ticks(now), h, backlog);
                    // Marks only with ECN on, for ECN-capable packets.
                    prop_assert!(v != crate::Verdict::Mark || (p.ecn() && ecn));
                    // Never a signal with at most MAXPACKET left.
                    if backlog < u64::from(p.mtu()) {
                        prop_assert!(!v.signals() || c.in_drop_loop() || v == crate::Verdict::Deliver || c.dropping());
                    }
                }
                Call::Empty { dt } => {
                    now = now.wrapping_add(dt);
                    c.on_empty(&p, Instant::from_ticks(now));
                    prop_assert!(!c.in_drop_loop());
                }
                Call::Back { back } => now = now.wrapping_sub(back),
                Call::Bump { n } => c.bump_count(&p, n),
            }
            let r = check_codel(&c, &p);
            prop_assert!(r.is_ok(), "{:?}", r);
        }
    }

    #[test]
    fn fq_codel_keeps_invariants(
        linux in any::<bool>(),
        quantum in 1..3000u32,
        limit in 1..40u32,
        batch in 1..8u32,
        ops in prop::collection::vec((0..4u8, any::<usize>(), prop_oneof![0..3000u32, any::<u32>()], 0..5_000_000u64), 1..400),
    ) {
        let base = if linux { FqCodelConfig::linux() } else { FqCodelConfig::rfc8290() };
        let p = FqCodelProfile::new(&base.with_quantum(quantum).with_limit(limit).with_overflow(OverflowDrop::Batch { max_packets: batch })).unwrap();
        let mut fq: FqCodel<5> = FqCodel::new(&p, Instant::ZERO);
        let mut store = super::Store::<5>::new();
        let mut now = 0u64;
        let mut obedient = true;
        for (kind, flow, len, dt) in ops {
            now = now.wrapping_add(dt);
            let t = Instant::from_ticks(now);
            match kind {
                0 | 1 => {
                    store.push(flow % 5, Head::new(t, len, flow % 2 == 0));
                    let _ = fq.enqueue(&p, t, flow, len, |f| {
                        use crate::reference::FlowFifos;
                        store.pop(f).map(|h| h.len)
                    });
                    prop_assert!(!obedient || fq.packets() <= p.limit());
                }
                2 => {
                    let mut dropped = Vec::new();
                    let _ = super::fq_dequeue(&mut fq, &p, t, &mut store, &mut dropped);
                }
                _ => {
                    // A caller that disobeys the scheduler.
                    obedient = false;
                    let _ = fq.on_dequeue(&p, t, flow, Head::new(t, len, false));
                }
            }
            let r = check_fq_codel(&fq, &p);
            prop_assert!(r.is_ok(), "{:?}", r);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, ..ProptestConfig::default() })]

    #[test]
    fn pie_keeps_invariants(
        ecn in any::<bool>(),
        bytemode in any::<bool>(),
        bound in any::<bool>(),
        alpha in 0..=32u32,
        beta in 0..=32u32,
        start in any::<u64>(),
        ops in prop::collection::vec(
            (0..4u8, prop_oneof![0..20_000_000u64, any::<u64>()], any::<u32>(), prop_oneof![0..400_000u64, any::<u64>()], any::<u64>()),
            1..300,
        ),
    ) {
        let cfg = crate::PieConfig::linux()
            .with_ecn(ecn)
            .with_bytemode(bytemode)
            .with_bound_prob(bound)
            .with_alpha_beta(alpha, beta);
        let p = crate::PieProfile::new(&cfg).unwrap();
        let mut pie = crate::Pie::new(&p, Instant::from_ticks(start));
        let mut rng = netcond_core::SplitMix64::new(start);
        let mut now = start;
        for (kind, dt, len, backlog, age) in ops {
            now = now.wrapping_add(dt);
            let t = Instant::from_ticks(now);
            match kind {
                0 => {
                    let v = pie.on_enqueue(&p, t, Head::new(t, len, len % 2 == 0), len % 1200, backlog, &mut rng);
                    prop_assert!(v != crate::Verdict::Mark || (ecn && len % 2 == 0));
                }
                1 => pie.on_dequeue(&p, t, Head::new(Instant::from_ticks(now.wrapping_sub(age)), len, false), backlog),
                2 => {
                    let _ = pie.poll(&p, t, backlog);
                }
                _ => now = now.wrapping_sub(dt / 2),
            }
            if bound {
                prop_assert!(pie.prob() <= crate::MAX_PROB);
            }
            let r = crate::invariants::check_pie(&pie, &p);
            prop_assert!(r.is_ok(), "{:?}", r);
        }
    }
}
