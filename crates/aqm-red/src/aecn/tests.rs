// Tests of AECN: class max_p, mark-front, probabilities, drops, capacities.
#![allow(clippy::float_arithmetic)]

use super::*;
use crate::invariants::TestDescriptor;
use crate::reference::gap_moments;
use crate::Supplied;
use netcond_core::SplitMix64;

fn t(x: u64) -> Instant {
    Instant::from_ticks(x)
}

fn desc(class: FlowClass, ecn: Ecn, seq: u32) -> TestDescriptor {
    TestDescriptor { class, ecn, seq }
}

fn prob(x: f64) -> U32F32 {
    U32F32::from_num(x)
}

#[test]
fn class_max_p_follow_alpha_and_beta() {
    let close = |a: U32F32, b: f64| (a.to_num::<f64>() - b).abs() < 1e-9;
    for (base, robust, fragile) in [
        (0.5, 1.0, 0.2),
        (0.8, 1.0, 0.32),
        (0.2, 0.5, 0.08),
        (0.0, 0.0, 0.0),
        (1.0, 1.0, 0.4),
    ] {
        let p = AecnProfile::new(&AecnConfig::zheng_kinicki(prob(base))).unwrap();
        assert!(close(p.max_p(FlowClass::Robust), robust), "{base}");
        assert!(close(p.max_p(FlowClass::Average), base), "{base}");
        assert!(close(p.max_p(FlowClass::Fragile), fragile), "{base}");
    }
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.alpha = prob(1.0);
    c.beta = prob(1.0);
    let p = AecnProfile::new(&c).unwrap();
    for k in FlowClass::ALL {
        assert_eq!(p.max_p(k), prob(0.5));
    }
}

#[test]
fn configuration_errors() {
    let ok = AecnConfig::zheng_kinicki(prob(0.5));
    let with = |f: &dyn Fn(&mut AecnConfig)| {
        let mut c = ok;
        f(&mut c);
        AecnProfile::new(&c)
    };
    assert_eq!(
        with(&|c| c.beta = U32F32::ZERO).unwrap_err(),
        RedError::ZeroBeta
    );
    assert_eq!(
        with(&|c| c.base_max_p = prob(1.5)).unwrap_err(),
        RedError::MaxPOutOfRange
    );
    assert_eq!(
        with(&|c| c.min_th = 30).unwrap_err(),
        RedError::ThresholdOrder
    );
    assert_eq!(
        with(&|c| c.w_q = U32F32::ZERO).unwrap_err(),
        RedError::WeightOutOfRange
    );
    assert_eq!(
        with(&|c| c.limit = 20).unwrap_err(),
        RedError::ThresholdAboveLimit
    );
    assert_eq!(with(&|c| c.limit = 0).unwrap_err(), RedError::ZeroLimit);
    assert_eq!(
        with(&|c| c.typical_tx = core::time::Duration::from_nanos(0)).unwrap_err(),
        RedError::ZeroTransmissionTime
    );
    assert_eq!(
        with(&|c| c.beta = prob(0.999)).unwrap_err(),
        RedError::BetaBelowOne
    );
    assert_eq!(
        with(&|c| c.alpha = U32F32::ZERO).unwrap_err(),
        RedError::ZeroAlpha
    );
    assert_eq!(
        with(&|c| c.alpha = prob(0.5)).unwrap_err(),
        RedError::AlphaBelowOne
    );
    // alpha = beta = 1 is RED with one max_p for all classes.
    assert!(with(&|c| {
        c.alpha = U32F32::ONE;
        c.beta = U32F32::ONE;
    })
    .is_ok());
    // A huge alpha is capped at 1, not refused.
    assert!(with(&|c| c.alpha = U32F32::from_num(1_000_000)).is_ok());
    assert!(AecnProfile::new(&ok).is_ok());
}

/// A queue of capacity `N` below the profile's buffer limit holds at most `N`:
/// an arrival that RED admits to a full queue is handed back as a forced
/// drop, unchanged, and the queue takes packets again once one leaves.
#[test]
fn a_limit_above_the_capacity_holds_at_most_n() {
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    // Thresholds far above the capacity: RED never refuses an arrival here.
    c.limit = 1000;
    c.min_th = 900;
    c.max_th = 950;
    let p = AecnProfile::new(&c).unwrap();
    let mut q = AecnQueue::<TestDescriptor, 8>::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(5);
    let d = |seq| TestDescriptor {
        class: FlowClass::Average,
        ecn: Ecn::Ect0,
        seq,
    };
    for i in 0..8 {
        assert_eq!(
            q.enqueue(&p, t(i), d(i as u32), &mut rng),
            Ok(Decision::Enqueue)
        );
    }
    assert_eq!(q.len(), 8);
    assert_eq!(
        q.enqueue(&p, t(8), d(8), &mut rng),
        Err(Rejected {
            decision: Decision::DropForced,
            packet: d(8),
        })
    );
    assert_eq!(q.len(), 8);
    assert_eq!(q.dequeue(&p, t(9)), Some(d(0)));
    assert_eq!(q.enqueue(&p, t(10), d(9), &mut rng), Ok(Decision::Enqueue));
    assert_eq!(q.iter().last(), Some(&d(9)));
}

/// Fills a queue to `len` with packets of rotating classes, all ECT(0), then
/// settles the average at `len` by arrivals (which see `len` queued) each
/// followed by a departure.
///
/// Settling takes some 25,000 arrivals, too slow under Miri, which interprets
/// every instruction: there the average starts at `len` and 20 arrivals run.
fn filled(p: &AecnProfile, len: u32) -> AecnQueue<TestDescriptor, 64> {
    let mut q = AecnQueue::<TestDescriptor, 64>::new(p, Instant::ZERO);
    // Supplied(u32::MAX) marks only where p_a reaches 1; marks are harmless here.
    let mut never = Supplied(u32::MAX);
    for i in 0..len {
        q.enqueue(
            p,
            t(0),
            desc(FlowClass::ALL[(i % 3) as usize], Ecn::Ect0, i),
            &mut never,
        )
        .unwrap();
    }
    let mut seq = len;
    if cfg!(miri) {
        q.avg = p.common.avg.q_fx(len);
        for _ in 0..20 {
            let d = desc(FlowClass::ALL[(seq % 3) as usize], Ecn::Ect0, seq);
            assert!(q.enqueue(p, t(0), d, &mut never).is_ok());
            q.dequeue(p, t(0));
            seq += 1;
        }
    }
    while q.avg(p) != len {
        let d = desc(FlowClass::ALL[(seq % 3) as usize], Ecn::Ect0, seq);
        assert!(q.enqueue(p, t(0), d, &mut never).is_ok());
        q.dequeue(p, t(0));
        seq += 1;
        assert!(seq < 1_000_000);
    }
    q
}

#[test]
fn marks_the_front_packet_of_the_arriving_class() {
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.spreading = Spreading::Geometric;
    let p = AecnProfile::new(&c).unwrap();
    let mut q = filled(&p, 20);
    // avg 20: in [10, 30). A fragile arrival that is picked marks the first
    // fragile ECT packet from the front, not itself.
    let front_fragile = q
        .iter()
        .find(|d| d.class == FlowClass::Fragile)
        .unwrap()
        .seq;
    let r = q.enqueue(
        &p,
        t(0),
        desc(FlowClass::Fragile, Ecn::Ect0, 1000),
        &mut Supplied(0),
    );
    assert_eq!(r, Ok(Decision::Mark));
    let marked: Vec<u32> = q
        .iter()
        .filter(|d| d.ecn == Ecn::Ce)
        .map(|d| d.seq)
        .collect();
    assert_eq!(marked, vec![front_fragile]);
    assert_eq!(q.iter().last().unwrap().ecn, Ecn::Ect0);
    // The next pick marks the next fragile packet; other classes untouched.
    q.enqueue(
        &p,
        t(0),
        desc(FlowClass::Fragile, Ecn::Ect0, 1001),
        &mut Supplied(0),
    )
    .unwrap();
    let fragile: Vec<(u32, Ecn)> = q
        .iter()
        .filter(|d| d.class == FlowClass::Fragile)
        .map(|d| (d.seq, d.ecn))
        .collect();
    assert_eq!(fragile[0].1, Ecn::Ce);
    assert_eq!(fragile[1].1, Ecn::Ce);
    assert!(fragile[2..].iter().all(|&(_, e)| e == Ecn::Ect0));
    assert!(q
        .iter()
        .filter(|d| d.class != FlowClass::Fragile)
        .all(|d| d.ecn == Ecn::Ect0));
    // A robust arrival marks the robust front packet.
    let front_robust = q.iter().find(|d| d.class == FlowClass::Robust).unwrap().seq;
    q.enqueue(
        &p,
        t(0),
        desc(FlowClass::Robust, Ecn::Ect0, 1002),
        &mut Supplied(0),
    )
    .unwrap();
    assert_eq!(
        q.iter().find(|d| d.class == FlowClass::Robust).unwrap().seq,
        front_robust
    );
    assert_eq!(
        q.iter().find(|d| d.class == FlowClass::Robust).unwrap().ecn,
        Ecn::Ce
    );
}

#[test]
fn skips_marked_and_not_ect_packets_and_may_mark_the_arrival() {
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.spreading = Spreading::Geometric;
    let p = AecnProfile::new(&c).unwrap();
    let mut q = AecnQueue::<TestDescriptor, 64>::new(&p, Instant::ZERO);
    let mut never = Supplied(u32::MAX);
    // Average queue: 12 packets of class Average, CE or not-ECT, then settle.
    for i in 0..12 {
        let e = if i % 2 == 0 { Ecn::Ce } else { Ecn::NotEct };
        q.enqueue(&p, t(0), desc(FlowClass::Average, e, i), &mut never)
            .unwrap();
    }
    // Some 20,000 arrivals settle the average at 12: under Miri, which
    // interprets every instruction, it starts there and 20 arrivals run.
    let n = if cfg!(miri) {
        q.avg = p.common.avg.q_fx(12);
        20
    } else {
        20_000
    };
    for i in 0..n {
        let d = *q.iter().next().unwrap();
        q.enqueue(&p, t(0), TestDescriptor { seq: 100 + i, ..d }, &mut never)
            .unwrap();
        q.dequeue(&p, t(0));
    }
    assert_eq!(q.avg(&p), 12);
    // Nothing markable queued: the ECT arrival itself is marked.
    q.dequeue(&p, t(0));
    assert_eq!(
        q.enqueue(
            &p,
            t(0),
            desc(FlowClass::Average, Ecn::Ect1, 7),
            &mut Supplied(0)
        ),
        Ok(Decision::Mark)
    );
    assert_eq!(q.iter().last().unwrap().ecn, Ecn::Ce);
    // A not-ECT arrival that is picked is dropped (RED for non-ECN flows).
    q.dequeue(&p, t(0));
    let r = q.enqueue(
        &p,
        t(0),
        desc(FlowClass::Average, Ecn::NotEct, 8),
        &mut Supplied(0),
    );
    assert_eq!(r.unwrap_err().decision, Decision::DropEarly);
    // A CE arrival with nothing to mark: queued unchanged.
    assert_eq!(
        q.enqueue(
            &p,
            t(0),
            desc(FlowClass::Average, Ecn::Ce, 9),
            &mut Supplied(0)
        ),
        Ok(Decision::Enqueue)
    );
}

#[test]
fn drops_at_and_above_max_th_and_when_full() {
    // w_q = 1: the average is the queue each arrival sees.
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.w_q = U32F32::ONE;
    let p = AecnProfile::new(&c).unwrap();
    let mut q = AecnQueue::<TestDescriptor, 64>::new(&p, Instant::ZERO);
    for i in 0..30 {
        assert!(q
            .enqueue(
                &p,
                t(0),
                desc(FlowClass::Robust, Ecn::Ect0, i),
                &mut Supplied(u32::MAX)
            )
            .is_ok());
    }
    assert_eq!(q.len(), 30);
    for k in FlowClass::ALL {
        let d = desc(k, Ecn::Ect0, 5);
        let r = q.enqueue(&p, t(0), d, &mut Supplied(u32::MAX));
        assert_eq!(
            r,
            Err(Rejected {
                decision: Decision::DropForced,
                packet: d
            })
        );
    }
    // A full buffer (limit 50) with a low average.
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.w_q = U32F32::from_bits(1);
    let p = AecnProfile::new(&c).unwrap();
    let mut q = AecnQueue::<TestDescriptor, 50>::new(&p, Instant::ZERO);
    for i in 0..50 {
        assert!(q
            .enqueue(
                &p,
                t(0),
                desc(FlowClass::Robust, Ecn::Ect0, i),
                &mut Supplied(0)
            )
            .is_ok());
    }
    let d = desc(FlowClass::Robust, Ecn::Ect0, 50);
    assert_eq!(
        q.enqueue(&p, t(0), d, &mut Supplied(0)),
        Err(Rejected {
            decision: Decision::DropForced,
            packet: d
        })
    );
    assert_eq!(q.len(), 50);
    for _ in 0..50 {
        q.dequeue(&p, t(1_000));
    }
    assert!(q.is_empty() && q.dequeue(&p, t(2_000)).is_none());
}

#[test]
fn draining_starts_an_idle_period() {
    // the AECN slides' w_q 0.001 and s = 133,333 ns: after 1 s idle the average is
    // 20 (1 - 0.001)^(10^9 / 133,333).
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.spreading = Spreading::Geometric;
    let p = AecnProfile::new(&c).unwrap();
    let mut q = filled(&p, 20);
    while q.dequeue(&p, t(5_000_000_000)).is_some() {}
    q.enqueue(
        &p,
        t(6_000_000_000),
        desc(FlowClass::Robust, Ecn::Ect0, 0),
        &mut Supplied(0),
    )
    .unwrap();
    let want = 20.0 * (1.0 - p.common.avg.w as f64 / 4_294_967_296.0).powf(1e9 / 133_333.0);
    let got = q.avg(&p).to_num::<f64>();
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
}

/// At a constant queue the marks per class arrival follow each class's
/// max_p: the mark fraction is 1 / E[gap] for the class's p_b.
#[test]
#[ignore = "long sweep: cargo test --workspace -- --ignored"]
#[cfg_attr(
    miri,
    ignore = "statistics over 2.4 million arrivals: arithmetic, not memory safety; runs natively"
)]
fn marks_each_class_with_its_probability() {
    for (base, spreading) in [
        (0.5, Spreading::Geometric),
        (0.5, Spreading::UniformCountFirst),
        (0.8, Spreading::Uniform),
        (0.5, Spreading::Accumulated),
    ] {
        let mut c = AecnConfig::zheng_kinicki(prob(base));
        c.spreading = spreading;
        c.min_th = 10;
        let p = AecnProfile::new(&c).unwrap();
        let mut q = filled(&p, 14);
        let mut rng = SplitMix64::new(17);
        let mut marks = [0u64; 3];
        let mut arrivals = [0u64; 3];
        let n = 600_000u32;
        for i in 0..n {
            let k = FlowClass::ALL[(i % 3) as usize];
            let r = q.enqueue(&p, t(0), desc(k, Ecn::Ect0, i), &mut rng);
            q.dequeue(&p, t(0));
            arrivals[k.index()] += 1;
            if r == Ok(Decision::Mark) {
                marks[k.index()] += 1;
            }
            assert!(r.is_ok());
        }
        assert_eq!(q.avg(&p), 14);
        for k in FlowClass::ALL {
            // p_b = max_p (14 - 10) / 20.
            let pb = p.max_p(k).to_num::<f64>() * 0.2;
            let (mean, var) = gap_moments(pb, spreading);
            let f = 1.0 / mean;
            let n = arrivals[k.index()] as f64;
            let sd = (n * var / mean.powi(3)).sqrt() / n;
            let got = marks[k.index()] as f64 / n;
            assert!(
                (got - f).abs() <= 5.0 * sd + 2.0 / n,
                "{base} {spreading:?} {k:?}: {got} vs {f}"
            );
        }
        // Robust flows are marked more than average ones, those more than fragile ones.
        assert!(marks[0] > marks[1] && marks[1] > marks[2]);
        // Every mark went to a queued packet of the right class: the CE
        // packets in the queue are a prefix of each class's packets.
        for k in FlowClass::ALL {
            let es: Vec<Ecn> = q.iter().filter(|d| d.class == k).map(|d| d.ecn).collect();
            let first_unmarked = es.iter().position(|&e| e != Ecn::Ce).unwrap_or(es.len());
            assert!(
                es[first_unmarked..].iter().all(|&e| e == Ecn::Ect0),
                "{k:?}: {es:?}"
            );
        }
    }
}

/// On a clock 2^63 ticks or more past zero, a queue started there with
/// `new(profile, now)` decays its average over an idle period as one at zero does.
#[test]
fn idle_decay_on_clocks_past_2_pow_63() {
    let mut c = AecnConfig::zheng_kinicki(prob(0.5));
    c.spreading = Spreading::Geometric;
    let p = AecnProfile::new(&c).unwrap();
    for base in [1u64 << 63, u64::MAX - 3_000_000_000] {
        let at = |x: u64| Instant::from_ticks(base.wrapping_add(x));
        let mut q: AecnQueue<TestDescriptor, 64> = AecnQueue::new(&p, at(0));
        for i in 0..20u32 {
            q.enqueue(
                &p,
                at(u64::from(i)),
                desc(FlowClass::Robust, Ecn::NotEct, i),
                &mut Supplied(u32::MAX),
            )
            .unwrap();
        }
        assert!(q.avg(&p).to_num::<f64>() > 0.1);
        while q.dequeue(&p, at(1_000)).is_some() {}
        q.enqueue(
            &p,
            at(2_000_001_000),
            desc(FlowClass::Robust, Ecn::Ect0, 0),
            &mut Supplied(0),
        )
        .unwrap();
        assert!(q.avg(&p).to_num::<f64>() < 1e-6, "{base}: {}", q.avg(&p));
    }
}
