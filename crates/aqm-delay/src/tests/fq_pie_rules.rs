//! FQ-PIE with hand-worked cases (Linux's `sch_fq_pie` rules).

use super::ms;
use crate::{
    DelayError, FqPie, FqPieConfig, FqPieProfile, Head, PieConfig, PieLaw, Verdict, MAX_PROB,
};
use netcond_core::Instant;

#[test]
fn configuration_rules() {
    let c = FqPieConfig::linux();
    let e = |c: FqPieConfig| FqPieProfile::new(&c).err();
    assert_eq!(
        e(c.with_pie(PieConfig::rfc8033())),
        Some(DelayError::FqPieLinuxOnly)
    );
    assert_eq!(
        e(c.with_pie(PieConfig::linux().with_law(PieLaw::Rfc8033))),
        Some(DelayError::FqPieLinuxOnly)
    );
    assert_eq!(e(c.with_quantum(0)), Some(DelayError::ZeroQuantum));
    assert_eq!(
        e(c.with_quantum(1 << 31)),
        Some(DelayError::QuantumTooLarge)
    );
    assert_eq!(e(c.with_limit(0)), Some(DelayError::ZeroLimit));
    assert_eq!(
        e(c.with_ecn_prob(101)),
        Some(DelayError::FqPieEcnProbTooLarge)
    );
    assert_eq!(
        e(c.with_pie(PieConfig::linux().with_mtu(0))),
        Some(DelayError::ZeroMtu)
    );
    let p = FqPieProfile::new(&c).unwrap();
    assert_eq!((p.quantum(), p.limit()), (1514, 10240));
}

/// A flow whose PIE drops every candidate: probability one, no burst
/// allowance, a standing delay.
fn hot(p: &FqPieProfile, fq: &mut FqPie<4>, f: usize, prob: u64) {
    let pie = &mut fq.drr.flows[f].aqm;
    pie.set_prob_for_tests(prob);
    pie.set_burst_for_tests(0);
    pie.on_dequeue(p.pie(), ms(100), Head::new(ms(0), 1500, false), 100_000);
}

#[test]
fn drop_decision_uses_the_flows_own_backlog() {
    let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
    let mut fq: FqPie<4> = FqPie::new(&p, Instant::ZERO);
    let mut zero = crate::tests::ZeroRng;
    hot(&p, &mut fq, 0, MAX_PROB);
    hot(&p, &mut fq, 1, MAX_PROB);
    // Flow 1 holds 10 packets; flow 0 is empty: below two MTUs of its own
    // backlog, flow 0's arrivals pass whatever the other flows hold.
    for _ in 0..10 {
        fq.drr.flows[1].bytes += 1500;
        fq.drr.flows[1].packets += 1;
    }
    let h = Head::new(ms(100), 1500, false);
    assert_eq!(fq.enqueue(&p, ms(100), 0, h, &mut zero), Verdict::Deliver);
    assert_eq!(fq.enqueue(&p, ms(100), 0, h, &mut zero), Verdict::Deliver);
    // 3000 bytes < 2 * 1514: still passes; at 4500 bytes, the hot PIE drops.
    assert_eq!(fq.enqueue(&p, ms(100), 0, h, &mut zero), Verdict::Deliver);
    assert_eq!(fq.enqueue(&p, ms(100), 0, h, &mut zero), Verdict::Drop);
    assert_eq!(fq.flow(0).0, 3);
    assert_eq!(fq.pie(0).accu_prob(), 0);
}

#[test]
fn ecn_threshold_is_linux_fq_pies() {
    // ecn_prob 10: marking while prob <= (MAX_PROB / 100) * 10, which is 3
    // units below sch_pie's MAX_PROB / 10.
    let p = FqPieProfile::new(&FqPieConfig::linux().with_pie(PieConfig::linux().with_ecn(true)))
        .unwrap();
    let mut zero = crate::tests::ZeroRng;
    for (prob, want) in [
        ((MAX_PROB / 100) * 10, Verdict::Mark),
        ((MAX_PROB / 100) * 10 + 1, Verdict::Drop),
    ] {
        let mut fq: FqPie<4> = FqPie::new(&p, Instant::ZERO);
        hot(&p, &mut fq, 2, prob);
        fq.drr.flows[2].bytes = 100_000;
        fq.drr.flows[2].packets = 60;
        let h = Head::new(ms(100), 1500, true);
        let mut v = Verdict::Deliver;
        for _ in 0..20 {
            v = fq.enqueue(&p, ms(100), 2, h, &mut zero);
            if v != Verdict::Deliver {
                break;
            }
        }
        assert_eq!(v, want, "prob {prob}");
    }
}

#[test]
fn limit_and_drr_order() {
    let p = FqPieProfile::new(&FqPieConfig::linux().with_limit(4).with_quantum(1500)).unwrap();
    let mut fq: FqPie<4> = FqPie::new(&p, Instant::ZERO);
    let mut rng = netcond_core::SplitMix64::new(1);
    let h = Head::new(ms(1), 1500, false);
    for f in [1, 1, 1, 2] {
        assert_eq!(fq.enqueue(&p, ms(1), f, h, &mut rng), Verdict::Deliver);
    }
    // The limit counts all flows.
    assert_eq!(fq.enqueue(&p, ms(1), 3, h, &mut rng), Verdict::Drop);
    let mut order = Vec::new();
    while let Some(f) = fq.schedule(&p, ms(2)) {
        fq.on_dequeue(&p, ms(2), f, h);
        order.push(f);
    }
    // Both new flows get a quantum each before flow 1 goes on.
    assert_eq!(order, [1, 2, 1, 1]);
    assert_eq!(fq.totals(), (0, 0));
}

#[test]
fn one_timer_updates_every_flow() {
    let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
    let mut fq: FqPie<4> = FqPie::new(&p, Instant::ZERO);
    let mut rng = netcond_core::SplitMix64::new(1);
    assert!(!fq.poll(&p, ms(14)));
    // Flow 3 has a 100 ms standing queue, the others nothing.
    for _ in 0..3 {
        let _ = fq.enqueue(&p, ms(1), 3, Head::new(ms(1), 1500, false), &mut rng);
    }
    fq.on_dequeue(&p, ms(101), 3, Head::new(ms(1), 1500, false));
    assert!(fq.poll(&p, ms(101)));
    // The same first step as a single PIE (sch_pie's hand value).
    assert_eq!(
        fq.pie(3).prob(),
        281_474 * 1_328_125 + 2_814_749 * 1_562_500
    );
    assert_eq!(fq.pie(0).prob(), 0);
    assert_eq!(fq.next_update(), ms(116));
}
