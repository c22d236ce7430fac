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
    fn codel_keeps_invariants(cfg in config(), start in any::<u64>(), calls in prop::collection::vec(call(), 1..if cfg!(miri) { 20 } else { 300 })) {
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
                    c.on_queue_empty(&p, Instant::from_ticks(now));
                    prop_assert!(!c.in_drop_loop());
                }
                Call::Back { back } => now = now.wrapping_sub(back),
                Call::Bump { n } => c.on_overflow(&p, Instant::from_ticks(now), n),
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
        ops in prop::collection::vec((0..4u8, any::<usize>(), prop_oneof![0..3000u32, any::<u32>()], 0..5_000_000u64), 1..if cfg!(miri) { 20 } else { 400 }),
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
            1..if cfg!(miri) { 20 } else { 300 },
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
                    let v = pie.on_arrival(&p, t, Head::new(t, len, len % 2 == 0), len % 1200, backlog, &mut rng);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, ..ProptestConfig::default() })]

    /// RFC 8033's law against `reference::RfcPie` on any sequence of calls
    /// (any instants, ages, lengths and backlogs): every verdict and variable
    /// equal, the probability at the exact update's floor (or one unit below
    /// it after the decay), the invariants kept.
    #[test]
    fn rfc_pie_matches_model_on_any_calls(
        ecn in any::<bool>(),
        rate in any::<bool>(),
        derandomize in any::<bool>(),
        alpha in 0..=32u32,
        beta in 0..=32u32,
        target_us in 1..200_000u64,
        start in any::<u64>(),
        ops in prop::collection::vec(
            (0..4u8, prop_oneof![0..20_000_000u64, any::<u64>()], any::<u32>(), prop_oneof![0..400_000u64, any::<u64>()], any::<u64>()),
            1..if cfg!(miri) { 20 } else { 300 },
        ),
    ) {
        use crate::reference::RfcPie;
        let cfg = crate::PieConfig::rfc8033()
            .with_ecn(ecn)
            .with_derandomize(derandomize)
            .with_estimator(if rate { crate::PieEstimator::DepartureRate } else { crate::PieEstimator::Timestamp })
            .with_target(core::time::Duration::from_micros(target_us))
            .with_alpha_beta(alpha, beta);
        let p = crate::PieProfile::new(&cfg).unwrap();
        let mut pie = crate::Pie::new(&p, Instant::from_ticks(start));
        let mut r = RfcPie::new(&p, Instant::from_ticks(start));
        let mut ra = netcond_core::SplitMix64::new(start);
        let mut rb = netcond_core::SplitMix64::new(start);
        let mut now = start;
        for (kind, dt, len, backlog, age) in ops {
            now = now.wrapping_add(dt);
            let t = Instant::from_ticks(now);
            r.drop_prob_ = pie.prob();
            match kind {
                0 => {
                    let h = Head::new(t, len, len % 2 == 0);
                    let a = pie.on_arrival(&p, t, h, len % 1200, backlog, &mut ra);
                    let b = r.enque(&p, t, h, len % 1200, backlog, &mut rb);
                    prop_assert_eq!(a, b);
                }
                1 => {
                    let h = Head::new(Instant::from_ticks(now.wrapping_sub(age)), len, false);
                    pie.on_dequeue(&p, t, h, backlog);
                    r.deque(&p, t, h, backlog);
                }
                2 => {
                    let a = pie.poll(&p, t, backlog);
                    prop_assert_eq!(a, r.calculate_drop_prob(&p, t, backlog));
                    if a {
                        let floor = r.last_exact.0;
                        prop_assert!(pie.prob() == floor || (pie.prob() + 1 == floor && pie.qdelay_old() == 0));
                        r.drop_prob_ = pie.prob();
                    }
                }
                _ => now = now.wrapping_sub(dt / 2),
            }
            prop_assert_eq!(
                (pie.prob(), pie.accu_prob(), pie.qdelay(), pie.qdelay_old(), pie.burst_time(), pie.next_update()),
                (r.drop_prob_, r.accu_prob_, r.current_qdelay, r.qdelay_old_, r.burst_allowance_, r.next_update)
            );
            prop_assert_eq!(
                (pie.avg_dq_time(), pie.in_measurement(), pie.dq_count()),
                (r.avg_dq_time_, r.in_measurement_, r.dq_count_)
            );
            let c = crate::invariants::check_pie(&pie, &p);
            prop_assert!(c.is_ok(), "{:?}", c);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, ..ProptestConfig::default() })]

    /// DualPI2 against `reference::RfcDualPi2` on any sequence of arrivals,
    /// departures, polls and backward clocks, with any configuration the
    /// profile accepts: every enqueue decision, every dequeue's sent and
    /// dropped packets, and the state equal; the invariants kept.
    #[test]
    fn dualpi2_matches_model_on_any_calls(
        decision in 0..3u8,
        curq_max in any::<bool>(),
        wrr in prop::option::of((1..5u16, 1..5u16)),
        k16 in 1..=256u32,
        alpha in 0..=1_000_000u32,
        beta in 0..=1_000_000u32,
        min_th_us in 0..3_000u64,
        range_us in 0..3_000u64,
        th_len in 0..4u32,
        limit in 1_500..200_000u64,
        start in any::<u64>(),
        ops in prop::collection::vec(
            (0..5u8, prop_oneof![0..5_000_000u64, any::<u64>()], any::<u32>(), 0..4u8),
            1..if cfg!(miri) { 20 } else { 300 },
        ),
    ) {
        use super::{dual_dequeue, DualFifoQ};
        use crate::reference::RfcDualPi2;
        use crate::{DualDecision, DualHead, DualPi2Config, DualPi2Profile, DualQueue, DualScheduler, Ecn};
        let cfg = DualPi2Config::rfc9332()
            .with_decision(match decision {
                0 => DualDecision::Recur,
                1 => DualDecision::Random { two_draws: true },
                _ => DualDecision::Random { two_draws: false },
            })
            .with_curq_max(curq_max)
            .with_scheduler(match wrr {
                Some((l4s, classic)) => DualScheduler::WeightedRoundRobin { l4s, classic },
                None => DualScheduler::TimeShifted { tshift: core::time::Duration::from_millis(3) },
            })
            .with_k16(k16)
            .with_gains(alpha, beta)
            .with_ramp(core::time::Duration::from_micros(min_th_us), core::time::Duration::from_micros(range_us + 1))
            .with_th_len(th_len)
            .with_limit(limit, 1500);
        let p = DualPi2Profile::new(&cfg).unwrap();
        let mut d = crate::DualPi2::new(&p, Instant::from_ticks(start));
        let mut r = RfcDualPi2::new(&p, Instant::from_ticks(start));
        let (mut ra, mut rb) = (netcond_core::SplitMix64::new(start), netcond_core::SplitMix64::new(start));
        let (mut la, mut ca, mut lb, mut cb) = (DualFifoQ::default(), DualFifoQ::default(), DualFifoQ::default(), DualFifoQ::default());
        let mut now = start;
        for (kind, dt, len, ecn) in ops {
            now = now.wrapping_add(dt);
            let t = Instant::from_ticks(now);
            match kind {
                0 | 1 => {
                    let ecn = Ecn::from_bits(ecn);
                    let h = DualHead::new(t, len % 9_000, ecn);
                    let x = d.on_arrival(&p, t, ecn, h.len, la.bytes + ca.bytes);
                    prop_assert_eq!(x, r.enqueue(&p, t, &lb, &cb, ecn));
                    match x {
                        Some(DualQueue::L4s) => { la.push(h); lb.push(h); }
                        Some(DualQueue::Classic) => { ca.push(h); cb.push(h); }
                        None => {}
                    }
                }
                2 => {
                    let (mut da, mut db) = (Vec::new(), Vec::new());
                    let x = dual_dequeue(&mut d, &p, t, &mut la, &mut ca, &mut ra, &mut da);
                    let y = r.dequeue(&p, t, &mut lb, &mut cb, &mut rb, |q, h| db.push((q, h)));
                    prop_assert_eq!(x, y);
                    prop_assert_eq!(da, db);
                }
                3 => {
                    let heads = |q: &DualFifoQ| q.items.front().map(|h| h.enqueued);
                    let a = d.poll(&p, t, heads(&la), heads(&ca));
                    prop_assert_eq!(a, r.update(&p, t, &lb, &cb));
                }
                _ => now = now.wrapping_sub(dt / 2),
            }
            prop_assert_eq!(
                (d.p_prime(), d.prevq(), d.counts(), d.next_update(), d.wrr_position()),
                (r.p_prime, r.prevq, (r.lq_count, r.cq_count), r.next_update, r.rr)
            );
            let c = crate::invariants::check_dualpi2(&d, &p);
            prop_assert!(c.is_ok(), "{:?}", c);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, ..ProptestConfig::default() })]

    /// FQ-PIE against `reference::FqPieRef` on any sequence of arrivals to
    /// any flow, dequeues, polls and backward clocks: every verdict, every
    /// dequeued packet, every flow's PIE and DRR variables equal; the
    /// invariants kept.
    #[test]
    fn fq_pie_matches_model_on_any_calls(
        ecn in any::<bool>(),
        bytemode in any::<bool>(),
        quantum in 1..3_000u32,
        limit in 1..64u32,
        ecn_prob in 0..=100u32,
        start in any::<u64>(),
        ops in prop::collection::vec(
            (0..5u8, prop_oneof![0..20_000_000u64, any::<u64>()], any::<u32>(), 0..6usize),
            1..if cfg!(miri) { 20 } else { 300 },
        ),
    ) {
        use super::Store;
        use crate::reference::{FlowFifos, FqPieRef};
        let cfg = crate::FqPieConfig::linux()
            .with_pie(crate::PieConfig::linux().with_ecn(ecn).with_bytemode(bytemode).with_max_burst(core::time::Duration::ZERO))
            .with_quantum(quantum)
            .with_limit(limit)
            .with_ecn_prob(ecn_prob);
        let p = crate::FqPieProfile::new(&cfg).unwrap();
        let mut fq: crate::FqPie<4> = crate::FqPie::new(&p, Instant::from_ticks(start));
        let mut r: FqPieRef<4> = FqPieRef::new(&p, Instant::from_ticks(start));
        let (mut ra, mut rb) = (netcond_core::SplitMix64::new(start), netcond_core::SplitMix64::new(start));
        let (mut sa, mut sb) = (Store::<4>::new(), Store::<4>::new());
        let mut now = start;
        for (kind, dt, len, flow) in ops {
            now = now.wrapping_add(dt);
            let t = Instant::from_ticks(now);
            match kind {
                0 | 1 => {
                    let h = Head::new(t, len % 9_000, len % 3 == 0);
                    let a = fq.enqueue(&p, t, flow, h, &mut ra);
                    prop_assert_eq!(a, r.enqueue(&p, t, flow, h, &mut rb));
                    if a.sends() {
                        sa.push(flow % 4, h);
                        sb.push(flow % 4, h);
                    }
                }
                2 => {
                    let a = fq.schedule(&p, t).map(|f| {
                        let h = sa.pop(f).unwrap();
                        fq.on_dequeue(&p, t, f, h);
                        (f, h)
                    });
                    prop_assert_eq!(a, r.dequeue(&p, t, &mut sb));
                }
                3 => prop_assert_eq!(fq.poll(&p, t), r.timer(&p, t)),
                _ => now = now.wrapping_sub(dt / 2),
            }
            for f in 0..4 {
                let (x, y) = (fq.pie(f), &r.pies[f]);
                prop_assert_eq!(
                    (x.prob(), x.accu_prob(), x.qdelay(), x.qdelay_old(), x.burst_time(), fq.flow(f)),
                    (y.prob, y.accu_prob, y.qdelay, y.qdelay_old, y.burst_time, (r.qlen[f], r.backlog[f], r.deficit[f]))
                );
            }
            let c = crate::invariants::check_fq_pie(&fq, &p);
            prop_assert!(c.is_ok(), "{:?}", c);
        }
    }
}
