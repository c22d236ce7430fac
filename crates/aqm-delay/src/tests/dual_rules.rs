//! DualPI2 with hand-computed values (RFC 9332 Appendix A's pseudocode worked
//! out by hand).

use super::ms;
use crate::{
    DelayError, DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue,
    DualScheduler, Ecn, Verdict, P_ONE, RECUR_ONE,
};
use core::time::Duration;
use netcond_core::{Instant, SplitMix64, TickRate};

fn rfc() -> DualPi2Profile {
    DualPi2Profile::new(&DualPi2Config::rfc9332()).unwrap()
}

#[test]
fn classifier_and_limit() {
    // ecn(pkt) modulo 2 == 1: ECT(1) and CE to the L4S queue.
    assert_eq!(Ecn::from_bits(0b01).queue(), DualQueue::L4s);
    assert_eq!(Ecn::from_bits(0b11).queue(), DualQueue::L4s);
    assert_eq!(Ecn::from_bits(0b00).queue(), DualQueue::Classic);
    assert_eq!(Ecn::from_bits(0b10).queue(), DualQueue::Classic);
    let p = DualPi2Profile::new(&DualPi2Config::rfc9332().with_limit(10_000, 1500)).unwrap();
    let mut d = DualPi2::new(&p, Instant::ZERO);
    // lq.byt() + cq.byt() + MTU > limit drops.
    assert_eq!(
        d.on_arrival(&p, ms(1), Ecn::Ect1, 64, 8_500),
        Some(DualQueue::L4s)
    );
    assert_eq!(d.on_arrival(&p, ms(1), Ecn::Ect1, 64, 8_501), None);
}

#[test]
fn defaults_and_formulas() {
    let c = DualPi2Config::rfc9332();
    assert_eq!((c.alpha_mhz, c.beta_mhz, c.k16), (150, 3_000, 32));
    assert_eq!(c.t_update, Duration::from_millis(15));
    // Tupdate = min(target, RTT_max / 3), alpha = 0.1 Tupdate / RTT_max^2,
    // beta = 0.3 / RTT_max.
    let f = c.with_rtt_max(Duration::from_millis(15), Duration::from_millis(100));
    assert_eq!(
        (f.t_update, f.alpha_mhz, f.beta_mhz),
        (Duration::from_millis(15), 150, 3_000)
    );
    let g = c.with_rtt_max(Duration::from_millis(15), Duration::from_millis(30));
    assert_eq!(
        (g.t_update, g.alpha_mhz, g.beta_mhz),
        (Duration::from_millis(10), 1_111, 10_000)
    );
    // A 3 ns RTT: Tupdate = RTT / 3 = 1 ns; alpha = 0.1 * 1e-9 / 9e-18 Hz and
    // beta = 0.3 / 3e-9 Hz are both past u32::MAX millihertz and saturate.
    let h = c.with_rtt_max(Duration::from_millis(15), Duration::from_nanos(3));
    assert_eq!(
        (h.t_update, h.alpha_mhz, h.beta_mhz),
        (Duration::from_nanos(1), u32::MAX, u32::MAX)
    );
    // No RTT: Tupdate = 0 and the gains are left as they were.
    let z = c.with_rtt_max(Duration::from_millis(15), Duration::ZERO);
    assert_eq!(
        (z.t_update, z.alpha_mhz, z.beta_mhz),
        (Duration::ZERO, 150, 3_000)
    );
    let l = DualPi2Config::linux_defaults();
    assert_eq!(
        (l.alpha_mhz, l.beta_mhz, l.t_update),
        (160, 3_200, Duration::from_millis(16))
    );
}

#[test]
fn profile_in_ticks() {
    // RFC 9332's target of 15 ms and Tupdate of 15 ms, in nanosecond ticks
    // and in microsecond ticks.
    let p = rfc();
    assert_eq!(
        (p.target(), p.t_update(), p.k16()),
        (15_000_000, 15_000_000, 32)
    );
    // The L4S ramp: minTh 800 us over a range of 400 us.
    assert_eq!(p.ramp(), (800_000, 400_000));
    let q = DualPi2Profile::new(
        &DualPi2Config::rfc9332()
            .with_target(Duration::from_millis(20))
            .with_tick(TickRate::MICROS),
    )
    .unwrap();
    assert_eq!((q.target(), q.t_update()), (20_000, 15_000));
}

#[test]
fn configuration_rules() {
    let c = DualPi2Config::rfc9332();
    let e = |c: DualPi2Config| DualPi2Profile::new(&c).err();
    assert_eq!(
        e(c.with_target(Duration::ZERO)),
        Some(DelayError::DualPi2ZeroTarget)
    );
    assert_eq!(
        e(c.with_t_update(Duration::from_micros(10))
            .with_tick(TickRate::MILLIS)),
        Some(DelayError::DualPi2ZeroUpdate)
    );
    assert_eq!(e(c.with_k16(0)), Some(DelayError::DualPi2ZeroCoupling));
    assert_eq!(
        e(c.with_ramp(Duration::ZERO, Duration::ZERO)),
        Some(DelayError::DualPi2ZeroThreshold)
    );
    assert_eq!(
        e(c.with_limit(1499, 1500)),
        Some(DelayError::DualPi2LimitBelowMtu)
    );
    assert_eq!(
        e(c.with_limit(1500, 0)),
        Some(DelayError::DualPi2LimitBelowMtu)
    );
    assert_eq!(
        e(c.with_scheduler(DualScheduler::WeightedRoundRobin { l4s: 0, classic: 1 })),
        Some(DelayError::DualPi2ZeroWeight)
    );
    assert_eq!(
        e(c.with_gains(1_000_001, 1)),
        Some(DelayError::DualPi2ParameterTooLarge)
    );
    assert_eq!(
        e(c.with_k16(257)),
        Some(DelayError::DualPi2ParameterTooLarge)
    );
    assert!(DelayError::DualPi2ZeroUpdate
        .to_string()
        .contains("RFC 9332"));
    assert!(e(c.with_ramp(Duration::from_millis(1), Duration::ZERO)).is_none());
}

#[test]
fn pi_update_hand_values() {
    let p = rfc();
    let mut d = DualPi2::new(&p, Instant::ZERO);
    assert!(!d.poll(&p, ms(14), None, Some(ms(0))));
    // curq = 100 ms (the Classic head), prevq 0: p' = 0.15 (0.1 - 0.015) + 3
    // (0.1 - 0) = 0.31275, in units of 2^-32 rounded down.
    assert!(d.poll(&p, ms(115), Some(ms(114)), Some(ms(15))));
    assert_eq!(d.p_prime(), 1_343_251_021);
    assert_eq!(d.prevq(), 100_000_000);
    // p_CL = 2 p', p_C = p'^2.
    assert_eq!(d.p_cl(&p), 2 * 1_343_251_021);
    assert_eq!(d.p_c(), 1_343_251_021u64 * 1_343_251_021);
}

#[test]
fn pi_update_uses_the_larger_delay_and_bounds() {
    let p = rfc();
    let mut d = DualPi2::new(&p, ms(200));
    // L head waited 200 ms, C head 50 ms: curq = 200 ms.
    assert!(d.poll(&p, ms(215), Some(ms(15)), Some(ms(165))));
    // 0.15 * 0.185 + 3 * 0.2 = 0.62775.
    assert_eq!(d.p_prime(), (62_775u128 * (1 << 32) / 100_000) as u64);
    let q = DualPi2Profile::new(&DualPi2Config::rfc9332().with_curq_max(false)).unwrap();
    let mut e = DualPi2::new(&q, ms(200));
    assert!(e.poll(&q, ms(215), Some(ms(15)), Some(ms(165))));
    // cq.time() alone: 0.15 * 0.035 + 3 * 0.05 = 0.15525.
    assert_eq!(e.p_prime(), (15_525u128 * (1 << 32) / 100_000) as u64);
    // Bounded to one, and to zero.
    assert!(d.poll(&p, ms(1230), Some(ms(0)), None));
    assert_eq!(d.p_prime(), P_ONE);
    assert!(d.l4s_saturated(&p) && d.classic_overloaded(&p));
    for t in 1..=20u64 {
        d.poll(&p, ms(1230 + 15 * t), None, None);
    }
    assert_eq!(d.p_prime(), 0);
}

#[test]
fn laqm_ramp_and_step() {
    let p = rfc();
    let us = |u: u64| u * 1_000;
    assert_eq!(DualPi2::laqm(&p, us(800)), 0);
    assert_eq!(DualPi2::laqm(&p, us(1000)), RECUR_ONE / 2);
    assert_eq!(DualPi2::laqm(&p, us(1100)), RECUR_ONE / 4 * 3);
    assert_eq!(DualPi2::laqm(&p, us(1200)), RECUR_ONE);
    let s = DualPi2Profile::new(
        &DualPi2Config::rfc9332().with_ramp(Duration::from_millis(1), Duration::ZERO),
    )
    .unwrap();
    assert_eq!(DualPi2::laqm(&s, us(999)), 0);
    assert_eq!(DualPi2::laqm(&s, us(1000)), RECUR_ONE);
}

#[test]
fn recur_marks_every_other_packet_at_one_half() {
    let p = rfc();
    let mut d = DualPi2::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(1);
    // Sojourn 1 ms: laqm = 0.5; p' = 0 so p_L = 0.5. recur: 0.5, 1.0 (not
    // above one), 1.5 -> mark (0.5), 1.0, 1.5 -> mark, ...
    let h = DualHead::new(ms(9), 100, Ecn::Ect1);
    let v: Vec<Verdict> = (0..6)
        .map(|_| d.on_dequeue(&p, ms(10), DualQueue::L4s, h, 5, &mut rng))
        .collect();
    use Verdict::{Deliver as D, Mark as M};
    assert_eq!(v, [D, D, M, D, M, D]);
    // With at most Th_len (1) packet left: no native marking.
    let mut d = DualPi2::new(&p, Instant::ZERO);
    for _ in 0..6 {
        assert_eq!(d.on_dequeue(&p, ms(10), DualQueue::L4s, h, 1, &mut rng), D);
    }
}

#[test]
fn overload_rules() {
    let p = rfc();
    let mut rng = SplitMix64::new(3);
    // p' = 1/2 with k = 2: p_CL = 1 (L4S saturated), p_C = 1/4 = p_Cmax.
    let mut d = DualPi2::new(&p, Instant::ZERO);
    d.set_p_prime_for_tests(P_ONE / 2);
    assert!(d.l4s_saturated(&p) && d.classic_overloaded(&p));
    let mut d2 = d;
    d2.set_p_prime_for_tests(P_ONE / 2 - 1);
    assert!(!d2.l4s_saturated(&p) && !d2.classic_overloaded(&p));
    // Classic ECT(0) packets: every fourth is hit (recur: 0.25 per packet),
    // and dropped, not marked, in overload.
    let c = DualHead::new(ms(0), 1500, Ecn::Ect0);
    let v: Vec<Verdict> = (0..8)
        .map(|_| d.on_dequeue(&p, ms(10), DualQueue::Classic, c, 5, &mut rng))
        .collect();
    assert_eq!(v.iter().filter(|v| **v == Verdict::Drop).count(), 1);
    assert!(!v.contains(&Verdict::Mark));
    // Below overload (p' just under 1/2) the hit ECT(0) packet is marked.
    let v: Vec<Verdict> = (0..8)
        .map(|_| d2.on_dequeue(&p, ms(10), DualQueue::Classic, c, 5, &mut rng))
        .collect();
    assert_eq!(v.iter().filter(|v| **v == Verdict::Mark).count(), 1);
    assert!(!v.contains(&Verdict::Drop));
    // Saturated L4S queue: recur(lq, p_C = 1/4) drops, then recur(lq, p_CL
    // = 1) marks the rest: over 8 packets, the drops take the accumulator
    // past one on their own turns, the others are all marked.
    let l = DualHead::new(ms(0), 1500, Ecn::Ect1);
    let v: Vec<Verdict> = (0..8)
        .map(|_| d.on_dequeue(&p, ms(10), DualQueue::L4s, l, 5, &mut rng))
        .collect();
    assert!(v.contains(&Verdict::Drop), "{v:?}");
    assert!(!v.contains(&Verdict::Deliver), "{v:?}");
}

#[test]
fn random_decisions_are_exact() {
    let p = DualPi2Profile::new(
        &DualPi2Config::rfc9332().with_decision(DualDecision::Random { two_draws: true }),
    )
    .unwrap();
    // A source whose draws are all 2^31 (u = 1/2): a Not-ECT Classic packet
    // is dropped iff p' > 1/2 in both draws; an L4S packet marked iff
    // 2 p' > 1/2.
    struct Half;
    impl netcond_core::RandomSource for Half {
        fn next_u32(&mut self) -> u32 {
            1 << 31
        }
    }
    let c = DualHead::new(ms(0), 1500, Ecn::NotEct);
    let l = DualHead::new(ms(10), 1500, Ecn::Ect1);
    for (pp, drop, mark) in [
        (P_ONE / 2, false, true),
        (P_ONE / 2 + 1, true, true),
        (P_ONE / 4, false, false),
        (P_ONE / 4 + 1, false, true),
    ] {
        let mut d = DualPi2::new(&p, Instant::ZERO);
        d.set_p_prime_for_tests(pp);
        let v = d.on_dequeue(&p, ms(10), DualQueue::Classic, c, 5, &mut Half);
        assert_eq!(v == Verdict::Drop, drop, "p' {pp}");
        let v = d.on_dequeue(&p, ms(10), DualQueue::L4s, l, 0, &mut Half);
        // p' = 1/2 + 1 saturates p_CL; then p_C (> 1/4) is drawn first.
        if pp <= P_ONE / 2 {
            assert_eq!(v == Verdict::Mark, mark, "p' {pp}");
        }
    }
}

#[test]
fn schedulers() {
    let p = rfc();
    let mut d = DualPi2::new(&p, Instant::ZERO);
    // Time-shifted FIFO, tshift 40 ms: the L4S head goes first unless the
    // Classic head is more than 40 ms older.
    assert_eq!(
        d.schedule(&p, ms(100), Some(ms(50)), Some(ms(10))),
        Some(DualQueue::L4s)
    );
    assert_eq!(
        d.schedule(&p, ms(100), Some(ms(51)), Some(ms(10))),
        Some(DualQueue::Classic)
    );
    assert_eq!(
        d.schedule(&p, ms(100), None, Some(ms(99))),
        Some(DualQueue::Classic)
    );
    assert_eq!(d.schedule(&p, ms(100), None, None), None);
    // Weighted round robin 2:1.
    let w = DualPi2Profile::new(
        &DualPi2Config::rfc9332()
            .with_scheduler(DualScheduler::WeightedRoundRobin { l4s: 2, classic: 1 }),
    )
    .unwrap();
    let mut d = DualPi2::new(&w, Instant::ZERO);
    let mut rng = SplitMix64::new(1);
    let mut order = Vec::new();
    for _ in 0..6 {
        let q = d.schedule(&w, ms(1), Some(ms(1)), Some(ms(0))).unwrap();
        let h = DualHead::new(
            ms(1),
            100,
            if q == DualQueue::L4s {
                Ecn::Ect1
            } else {
                Ecn::NotEct
            },
        );
        let _ = d.on_dequeue(&w, ms(1), q, h, 5, &mut rng);
        order.push(q);
    }
    use DualQueue::{Classic as C, L4s as L};
    assert_eq!(order, [L, L, C, L, L, C]);
}
