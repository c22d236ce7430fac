//! PIE with hand-computed values (Linux's arithmetic, worked out step by
//! step outside the crate).

use super::ms;
use crate::{DelayError, Head, Pie, PieConfig, PieProfile, Verdict, MAX_PROB};
use core::time::Duration;
use netcond_core::{Instant, SplitMix64, TickRate};

fn linux() -> PieProfile {
    PieProfile::new(&PieConfig::linux()).unwrap()
}

#[test]
fn profile_hand_values() {
    let p = linux();
    // 15 ms = 15e6 / 64 = 234375 psched ticks.
    assert_eq!(p.target(), 234_375);
    assert_eq!(p.t_update(), 15_000_000);
    // MAX_PROB / 15625000 = 4611686018; alpha = 2 * that >> 4, beta = 20 * that >> 4.
    assert_eq!((p.alpha(), p.beta()), (576_460_752, 5_764_607_522));
    assert_eq!(MAX_PROB, (1 << 56) - 1);
}

#[test]
fn psched_clock_from_any_tick_rate() {
    // Nanosecond ticks: psched = ns >> 6.
    let p = linux();
    assert_eq!(p.psched(Instant::from_ticks(1_000_000_000)), 15_625_000);
    // 1,000,003 Hz does not divide a second: ns = ticks * 1e9 / hz, rounded
    // down, then >> 6.
    let hz = TickRate::from_hz(1_000_003).unwrap();
    let q = PieProfile::new(&PieConfig::linux().with_tick(hz)).unwrap();
    assert_eq!(q.psched(Instant::from_ticks(1_000_003)), 15_625_000);
    assert_eq!(q.psched(Instant::from_ticks(1_000)), 15_624);
    assert_eq!(q.psched(Instant::from_ticks(1)), 15);
}

#[test]
fn probability_updates_hand_values() {
    let p = linux();
    let mut pie = Pie::new(&p, ms(100));
    let mut prob = Vec::new();
    for k in 1..=3u64 {
        let t = 100 + 15 * k;
        // Each packet leaves after exactly 100 ms (1562500 psched ticks).
        assert!(!pie.poll(&p, ms(t - 1), 150_000), "not due yet");
        pie.on_dequeue(&p, ms(t), Head::new(ms(t - 100), 1500, false), 150_000);
        assert_eq!(pie.qdelay(), 1_562_500);
        assert!(pie.poll(&p, ms(t), 150_000));
        prob.push(pie.prob());
    }
    // Update 1 (prob 0: alpha, beta / 2 and / 4 five times, i.e. / 2048):
    // 281474 (1562500 - 234375) + 2814749 (1562500 - 0).
    // Update 2 (prob 6.6e-5: / 2 and / 4 three times): 4503599 * 1328125 + 0.
    // Update 3 (prob 1.5e-4: / 2 and / 4 three times): the same step again... and
    // more: see the values.
    assert_eq!(
        prob,
        [4_771_877_968_750, 10_753_220_390_625, 34_678_592_734_375]
    );
    assert_eq!(prob[0], 281_474 * 1_328_125 + 2_814_749 * 1_562_500);
    assert_eq!(prob[1] - prob[0], 4_503_599 * 1_328_125);
    assert_eq!(pie.next_update(), ms(160));
}

#[test]
fn decay_and_nonlinear_boost() {
    let p = linux();
    // prob MAX/5, delay 0 twice with an empty queue: the step -alpha * target,
    // then the decay by 1/64.
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie_set_prob(&mut pie, &p, MAX_PROB / 5);
    pie.on_dequeue(&p, ms(15), Head::new(ms(15), 1500, false), 0);
    assert!(pie.poll(&p, ms(15), 0));
    assert_eq!(pie.prob(), 14_053_341_899_791_281);
    // A delay above 250 ms adds 2 % per update on top of the controller.
    // (First update: qdelay_old is still 0.)
    let mut pie = Pie::new(&p, ms(300));
    for t in [310u64, 315] {
        pie.on_dequeue(&p, ms(t), Head::new(ms(t - 300), 1500, false), 1);
    }
    assert!(pie.poll(&p, ms(315), 1));
    // 281474 (4687500 - 234375) + 2814749 * 4687500 + MAX_PROB / 50.
    assert_eq!(pie.prob(), 1_455_599_455_602_308);
    assert_eq!(
        pie.prob(),
        281_474 * 4_453_125 + 2_814_749 * 4_687_500 + MAX_PROB / 50
    );
}

/// Drives a state to probability `prob` through the public API is slow; the
/// tests set it directly.
fn pie_set_prob(pie: &mut Pie, _p: &PieProfile, prob: u64) {
    pie.set_prob_for_tests(prob);
}

#[test]
fn burst_allowance_protects_the_first_150_ms() {
    let p = linux();
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie_set_prob(&mut pie, &p, MAX_PROB);
    pie.on_dequeue(&p, ms(0), Head::new(ms(0), 1500, false), 100_000);
    let mut rng = SplitMix64::new(5);
    // Each departure 10 ms after the previous takes 10 ms (156250 ticks) off.
    for t in 1..=15u64 {
        let v = pie.on_arrival(
            &p,
            ms(10 * t),
            Head::new(ms(10 * t), 1500, false),
            10,
            100_000,
            &mut rng,
        );
        assert_eq!(v, Verdict::Deliver, "t={t}");
        pie.on_dequeue(&p, ms(10 * t), Head::new(ms(10 * t), 1500, false), 100_000);
    }
    assert_eq!(pie.burst_time(), 0);
    // Now probability one drops everything past two MTUs queued.
    let v = pie.on_arrival(
        &p,
        ms(151),
        Head::new(ms(151), 1500, false),
        10,
        100_000,
        &mut rng,
    );
    assert_eq!(v, Verdict::Drop);
    let v = pie.on_arrival(
        &p,
        ms(151),
        Head::new(ms(151), 1500, false),
        1,
        3027,
        &mut rng,
    );
    assert_eq!(v, Verdict::Deliver, "fewer than 2 MTUs (3028 bytes) queued");
}

#[test]
fn ecn_marks_up_to_ten_percent() {
    // 10,000 arrivals per run (2,000 under Miri), thresholds in proportion.
    const ARRIVALS: u64 = if cfg!(miri) { 2_000 } else { 10_000 };
    let p = PieProfile::new(&PieConfig::linux().with_ecn(true)).unwrap();
    let mut rng = SplitMix64::new(9);
    let mut run = |prob: u64| {
        let mut pie = Pie::new(&p, Instant::ZERO);
        pie_set_prob(&mut pie, &p, prob);
        pie.set_burst_for_tests(0);
        // A delay of 100 ms: above target / 2.
        pie.on_dequeue(&p, ms(100), Head::new(ms(0), 1500, false), 100_000);
        let mut v = [0u32; 3];
        for i in 0..ARRIVALS {
            let ect = i % 2 == 0;
            match pie.on_arrival(
                &p,
                ms(1),
                Head::new(ms(1), 1500, ect),
                10,
                100_000,
                &mut rng,
            ) {
                Verdict::Deliver => v[0] += 1,
                Verdict::Mark => {
                    assert!(ect);
                    v[1] += 1;
                }
                Verdict::Drop => v[2] += 1,
            }
        }
        v
    };
    // 10 %: ECT packets are marked, others dropped. With the derandomization
    // (no draw until the accumulated probability reaches 0.85, and only drops
    // reset it) about 3 % of the packets are marked and 3 % dropped.
    let v = run(MAX_PROB / 10);
    let n = ARRIVALS as u32;
    assert!(
        v[1] > n / 50 && v[2] > n / 50 && v[1] + v[2] < n / 10,
        "{v:?}"
    );
    // Above 10 %: everything selected is dropped.
    let v = run(MAX_PROB / 10 + 1);
    assert_eq!(v[1], 0);
}

#[test]
fn derandomization_and_limit() {
    let p = linux();
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie_set_prob(&mut pie, &p, MAX_PROB / 4);
    pie.set_burst_for_tests(0);
    pie.on_dequeue(&p, ms(1), Head::new(ms(0), 1500, false), 100_000);
    // A source whose draws would drop every time: the first three packets
    // accumulate 0.25, 0.5, 0.75 < 0.85 and pass without a draw.
    let mut zero = crate::tests::ZeroRng;
    for k in 1..=3u64 {
        let v = pie.on_arrival(
            &p,
            ms(1),
            Head::new(ms(1), 1500, false),
            10,
            100_000,
            &mut zero,
        );
        assert_eq!(v, Verdict::Deliver);
        assert_eq!(pie.accu_prob(), k * (MAX_PROB / 4));
    }
    let v = pie.on_arrival(
        &p,
        ms(1),
        Head::new(ms(1), 1500, false),
        10,
        100_000,
        &mut zero,
    );
    assert_eq!((v, pie.accu_prob()), (Verdict::Drop, 0));
    // At the limit: dropped whatever the probability, and accu_prob resets.
    let mut pie = Pie::new(&p, Instant::ZERO);
    let v = pie.on_arrival(&p, ms(1), Head::new(ms(1), 1500, false), 1000, 0, &mut zero);
    assert_eq!(v, Verdict::Drop);
}

#[test]
fn configuration_rules() {
    let c = PieConfig::linux();
    assert_eq!(
        PieProfile::new(&c.with_target(Duration::from_nanos(63))),
        Err(DelayError::ZeroTarget)
    );
    assert_eq!(
        PieProfile::new(
            &c.with_t_update(Duration::from_micros(500))
                .with_tick(TickRate::MILLIS)
        ),
        Err(DelayError::ZeroUpdate)
    );
    assert_eq!(
        PieProfile::new(&c.with_limit(0)),
        Err(DelayError::ZeroLimit)
    );
    assert_eq!(PieProfile::new(&c.with_mtu(0)), Err(DelayError::ZeroMtu));
    assert_eq!(
        PieProfile::new(&c.with_alpha_beta(33, 20)),
        Err(DelayError::PieParameterTooLarge)
    );
    assert_eq!(
        PieProfile::new(&c.with_max_burst(Duration::from_secs(2000))),
        Err(DelayError::PieParameterTooLarge)
    );
    assert!(PieProfile::new(&c.with_bytemode(true).with_tick(TickRate::MICROS)).is_ok());
}

// ---- RFC 8033's law -------------------------------------------------------

fn rfc() -> PieProfile {
    PieProfile::new(&PieConfig::rfc8033()).unwrap()
}

#[test]
fn rfc_configuration_rules() {
    use crate::{PieEstimator, PieLaw};
    let c = PieConfig::rfc8033();
    assert_eq!(c.law, PieLaw::Rfc8033);
    assert!(c.bound_prob && c.derandomize && !c.ecn);
    assert_eq!(
        PieProfile::new(&c.with_bytemode(true)),
        Err(DelayError::PieBytemodeNotInRfc)
    );
    assert_eq!(
        PieProfile::new(&c.with_bound_prob(false)),
        Err(DelayError::PieRfcUnbounded)
    );
    assert_eq!(
        PieProfile::new(&PieConfig::linux().with_estimator(PieEstimator::DepartureRate)),
        Err(DelayError::PieRateEstimatorRfcOnly)
    );
    // QDELAY_REF below one tick of a millisecond clock.
    assert_eq!(
        PieProfile::new(
            &c.with_target(Duration::from_micros(500))
                .with_t_update(Duration::from_millis(15))
                .with_tick(TickRate::MILLIS)
        ),
        Err(DelayError::ZeroTarget)
    );
    let p = rfc();
    assert_eq!(
        (p.target_ticks(), p.burst_ticks()),
        (15_000_000, 150_000_000)
    );
    assert!(DelayError::PieRfcUnbounded.to_string().contains("4.2"));
}

#[test]
fn rfc_updates_hand_values() {
    let p = rfc();
    let mut pie = Pie::new(&p, ms(100));
    // A packet that waited 100 ms, with more queued behind it.
    pie.on_dequeue(&p, ms(115), Head::new(ms(15), 1500, false), 150_000);
    assert_eq!(pie.qdelay(), 100_000_000);
    assert!(pie.poll(&p, ms(115), 150_000));
    // p = 1/8 (0.1 - 0.015) + 5/4 (0.1 - 0) = 0.135625, / 2048 (probability
    // below 0.000001): floor(0.135625 / 2048 * (2^56 - 1)). Linux's rounded
    // alpha and beta give 4771877968750 here.
    assert_eq!(pie.prob(), 4_771_880_464_547);
    // Same delay again: only the integral term, / 128 (below 0.0001).
    pie.on_dequeue(&p, ms(130), Head::new(ms(30), 1500, false), 150_000);
    assert!(pie.poll(&p, ms(130), 150_000));
    assert_eq!(pie.prob(), 10_753_223_719_648);
    // The burst allowance lost T_UPDATE per update (section 4.4).
    assert_eq!(pie.burst_time(), 150_000_000 - 2 * 15_000_000);
}

#[test]
fn rfc_decay_cap_and_bound() {
    let p = rfc();
    // Both samples 0 at probability one half: the step -1/8 * 0.015 (no
    // division at 10 % and more), then times 0.98. The exact result's floor
    // is 35175815249539995; the state machine rounds the sum first, then the
    // product, one unit lower (the bound the differential test checks).
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie.set_prob_for_tests(MAX_PROB / 2);
    assert!(pie.poll(&p, ms(15), 0));
    assert_eq!(pie.prob(), 35_175_815_249_539_994);
    // A long delay at 50 %: the step is capped to 2 % (section 5.5).
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie.set_prob_for_tests(MAX_PROB / 2);
    pie.on_dequeue(&p, ms(10), Head::new(ms(0), 1500, false), 1);
    pie.on_dequeue(&p, ms(1000), Head::new(ms(10), 1500, false), 1);
    assert!(pie.poll(&p, ms(1000), 1));
    assert_eq!(pie.prob(), MAX_PROB / 2 + MAX_PROB / 50);
    // Below 10 % the same delay is not capped: it jumps, and stops at one.
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie.set_prob_for_tests(MAX_PROB / 10 - 1);
    pie.on_dequeue(&p, ms(100_000), Head::new(ms(0), 1500, false), 1);
    assert!(pie.poll(&p, ms(100_000), 1));
    assert_eq!(pie.prob(), MAX_PROB);
    // floor((2^56 - 1) / 10) is just below 10 %: the step -1/8 * 0.015 is
    // halved, then the decay (here both roundings give the exact floor).
    assert_eq!(
        crate::rfc8033_update(&p, MAX_PROB / 10, 0, 0),
        6_995_441_301_194_590
    );
}

#[test]
fn rfc_arrival_rules() {
    let p = PieProfile::new(&PieConfig::rfc8033().with_ecn(true)).unwrap();
    let mut zero = crate::tests::ZeroRng;
    let standing = |prob: u64| {
        let mut pie = Pie::new(&p, Instant::ZERO);
        // qdelay_old becomes 15 ms at the first update.
        pie.on_dequeue(&p, ms(15), Head::new(ms(0), 1500, false), 100_000);
        assert!(pie.poll(&p, ms(15), 100_000));
        assert_eq!(pie.qdelay_old(), 15_000_000);
        pie.set_prob_for_tests(prob);
        pie.set_burst_for_tests(0);
        pie
    };
    // Probability 1/2 accumulates 0.5, then 1.0 >= 0.85 and a draw (0) drops.
    let mut pie = standing(MAX_PROB / 2);
    let h = Head::new(ms(1), 1500, false);
    assert_eq!(
        pie.on_arrival(&p, ms(1), h, 10, 100_000, &mut zero),
        Verdict::Deliver
    );
    assert_eq!(pie.accu_prob(), MAX_PROB / 2);
    assert_eq!(
        pie.on_arrival(&p, ms(1), h, 10, 100_000, &mut zero),
        Verdict::Drop
    );
    assert_eq!(pie.accu_prob(), 0);
    // At most 2 * MEAN_PKTSIZE queued (3028 bytes): no early drop (section
    // 4.1; Linux drops at 3028, only below it is safe).
    let mut pie = standing(MAX_PROB);
    assert_eq!(
        pie.on_arrival(&p, ms(1), h, 1, 3028, &mut zero),
        Verdict::Deliver
    );
    assert_eq!(
        pie.on_arrival(&p, ms(1), h, 1, 3029, &mut zero),
        Verdict::Drop
    );
    // Marking below mark_ecnth = 10 %: 7205759403792793 is below
    // (2^56 - 1) / 10, one unit more is not.
    for (prob, want) in [
        (MAX_PROB / 10, Verdict::Mark),
        (MAX_PROB / 10 + 1, Verdict::Drop),
    ] {
        let mut pie = standing(prob);
        let ect = Head::new(ms(1), 1500, true);
        let mut v = Verdict::Deliver;
        for _ in 0..20 {
            v = pie.on_arrival(&p, ms(1), ect, 10, 100_000, &mut zero);
            if v != Verdict::Deliver {
                break;
            }
        }
        assert_eq!(v, want, "prob {prob}");
    }
    // The bypass looks at qdelay_old (section 4.1), not the current sample:
    // a fresh queue (qdelay_old 0) just below 20 % delivers whatever the
    // current delay; at exactly 20 % ((2^56 - 1) / 5 is whole) it does not.
    for (prob, want) in [
        (MAX_PROB / 5 - 1, Verdict::Deliver),
        (MAX_PROB / 5, Verdict::Drop),
    ] {
        let mut pie = Pie::new(&p, Instant::ZERO);
        pie.set_prob_for_tests(prob);
        pie.set_burst_for_tests(0);
        pie.on_dequeue(&p, ms(500), Head::new(ms(0), 1500, false), 100_000);
        let mut v = Verdict::Deliver;
        for _ in 0..20 {
            v = pie.on_arrival(&p, ms(500), h, 10, 100_000, &mut zero);
            if v != Verdict::Deliver {
                break;
            }
        }
        assert_eq!(v, want, "prob {prob}");
    }
}

#[test]
fn rfc_burst_allowance_and_restore() {
    let p = rfc();
    let mut zero = crate::tests::ZeroRng;
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie.set_prob_for_tests(MAX_PROB);
    pie.on_dequeue(&p, ms(0), Head::new(ms(0), 1500, false), 100_000);
    let h = Head::new(ms(1), 1500, false);
    // Ten updates take the 150 ms off, whatever the departures.
    for k in 1..=10u64 {
        assert_eq!(
            pie.on_arrival(&p, ms(15 * k - 1), h, 10, 100_000, &mut zero),
            Verdict::Deliver,
            "k={k}"
        );
        pie.on_dequeue(&p, ms(15 * k), Head::new(ms(0), 1500, false), 100_000);
        assert!(pie.poll(&p, ms(15 * k), 100_000));
    }
    assert_eq!(pie.burst_time(), 0);
    assert_eq!(
        pie.on_arrival(&p, ms(151), h, 10, 100_000, &mut zero),
        Verdict::Drop
    );
    // Probability 0 and both samples below QDELAY_REF / 2: the next arrival
    // restores MAX_BURST.
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie.set_burst_for_tests(0);
    pie.on_dequeue(&p, ms(10), Head::new(ms(3), 1500, false), 5_000);
    assert_eq!(
        pie.on_arrival(&p, ms(10), h, 1, 5_000, &mut zero),
        Verdict::Deliver
    );
    assert_eq!(pie.burst_time(), 150_000_000);
    // A current sample of 7.5 ms (not below half of 15 ms) does not.
    let mut pie = Pie::new(&p, Instant::ZERO);
    pie.set_burst_for_tests(0);
    pie.on_dequeue(
        &p,
        Instant::from_ticks(7_500_000),
        Head::new(Instant::ZERO, 1500, false),
        5_000,
    );
    let _ = pie.on_arrival(&p, ms(10), h, 1, 5_000, &mut zero);
    assert_eq!(pie.burst_time(), 0);
}

#[test]
fn rfc_departure_rate_estimator() {
    use crate::PieEstimator;
    let p =
        PieProfile::new(&PieConfig::rfc8033().with_estimator(PieEstimator::DepartureRate)).unwrap();
    let mut pie = Pie::new(&p, Instant::ZERO);
    // 16384 bytes queued after this departure: a measurement starts at 1 ms.
    pie.on_dequeue(&p, ms(1), Head::new(ms(0), 1000, false), 20_000);
    assert!(pie.in_measurement() && pie.dq_count() == 0);
    // 16 packets of 1024 bytes leave over 8 ms: avg_dq_time = 8 ms.
    for k in 1..=16u64 {
        pie.on_dequeue(
            &p,
            Instant::from_ticks(1_000_000 + k * 500_000),
            Head::new(ms(0), 1024, false),
            20_000,
        );
    }
    // The cycle ended at 9 ms and a new one started there (20000 bytes left).
    assert_eq!(pie.avg_dq_time(), 8_000_000);
    assert!(pie.in_measurement() && pie.dq_count() == 0);
    // The next 16384 bytes take 4 ms: (4 + 3 * 8) / 4 = 7 ms.
    for k in 1..=16u64 {
        pie.on_dequeue(
            &p,
            Instant::from_ticks(9_000_000 + k * 250_000),
            Head::new(ms(0), 1024, false),
            20_000,
        );
    }
    assert_eq!(pie.avg_dq_time(), 7_000_000);
    // At the update: 32768 bytes queued, 7 ms per 16384: 14 ms.
    assert!(pie.poll(&p, ms(15), 32_768));
    assert_eq!(pie.qdelay(), 14_000_000);
    assert_eq!(crate::rate_qdelay(32_768, 7_000_000), 14_000_000);
}
