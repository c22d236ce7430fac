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
        let v = pie.on_enqueue(
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
    let v = pie.on_enqueue(
        &p,
        ms(151),
        Head::new(ms(151), 1500, false),
        10,
        100_000,
        &mut rng,
    );
    assert_eq!(v, Verdict::Drop);
    let v = pie.on_enqueue(
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
    let p = PieProfile::new(&PieConfig::linux().with_ecn(true)).unwrap();
    let mut rng = SplitMix64::new(9);
    let mut run = |prob: u64| {
        let mut pie = Pie::new(&p, Instant::ZERO);
        pie_set_prob(&mut pie, &p, prob);
        pie.set_burst_for_tests(0);
        // A delay of 100 ms: above target / 2.
        pie.on_dequeue(&p, ms(100), Head::new(ms(0), 1500, false), 100_000);
        let mut v = [0u32; 3];
        for i in 0..10_000u64 {
            let ect = i % 2 == 0;
            match pie.on_enqueue(
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
    assert!(v[1] > 200 && v[2] > 200 && v[1] + v[2] < 1_000, "{v:?}");
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
        let v = pie.on_enqueue(
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
    let v = pie.on_enqueue(
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
    let v = pie.on_enqueue(&p, ms(1), Head::new(ms(1), 1500, false), 1000, 0, &mut zero);
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
