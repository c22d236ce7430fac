//! Adaptive RED: the steps and bounds of max_p, and the closed loop that
//! brings the average into its target band.

use super::*;

#[test]
fn adaptive_red_steps_and_bounds() {
    let mut c = zheng_kinicki_router();
    c.max_p = RedConfig::prob(0.1);
    let ac = AdaptiveConfig {
        interval_ticks: 1000,
    };
    let one = U32F32::from_bits(42_949_673);
    // Above the band (avg 25 > 22): +0.01 per interval while max_p <= 0.5.
    let mut a = AdaptiveRed::new(&c, &ac, t(0)).unwrap();
    let (lo, hi) = a.target();
    assert_eq!((lo, hi), (U32F32::from_num(18), U32F32::from_num(22)));
    let mut rng = SplitMix64::new(1);
    if cfg!(miri) {
        // Some 25,000 arrivals bring the average to 25: too slow under Miri,
        // which starts there (see `settle`).
        a.red = settle(a.profile(), 25, 0);
    }
    while a.red().avg(a.profile()) < 25 {
        a.red
            .on_arrival(&a.profile, t(0), 25, Packet::new(1, Ecn::Ect0), &mut rng);
    }
    let p0 = a.max_p();
    assert_eq!(a.adapt(t(1000)), 1);
    assert_eq!(a.max_p(), p0 + one);
    assert_eq!(a.adapt(t(1999)), 0);
    assert_eq!(a.adapt(t(10_000)), 9);
    let mut prev = a.max_p();
    for k in 0..200u64 {
        a.adapt(t(11_000 + k * 1000));
        let m = a.max_p();
        assert!(m >= prev && m <= U32F32::from_num(0.51), "{m}");
        prev = m;
    }
    assert!(prev > U32F32::from_num(0.5));
    // Small max_p: the increase is max_p / 4.
    let mut small = c;
    small.max_p = RedConfig::prob(0.02);
    let mut b = AdaptiveRed::new(&small, &ac, t(0)).unwrap();
    b.red = a.red;
    let m0 = b.max_p();
    b.adapt(t(1000));
    assert_eq!(b.max_p().to_bits(), m0.to_bits() + m0.to_bits() / 4);
    // Below the band: *0.9 while max_p >= 0.01, never below 0.009.
    let mut d = AdaptiveRed::new(&c, &ac, t(0)).unwrap();
    let m0 = d.max_p();
    d.red = settle(d.profile(), 12, 10_000);
    d.adapt(t(1000));
    assert_eq!(d.max_p().to_bits(), m0.to_bits() * 9 / 10);
    let mut prev = d.max_p();
    for k in 2..300u64 {
        d.adapt(t(k * 1000));
        assert!(d.max_p() <= prev && d.max_p() >= U32F32::from_num(0.009));
        prev = d.max_p();
    }
    assert!(prev < U32F32::from_num(0.01));
    // Inside the band: unchanged. A long silence catches up at most 128 steps.
    let mut e = AdaptiveRed::new(&c, &ac, t(0)).unwrap();
    e.red = settle(e.profile(), 20, 10_000);
    assert_eq!(e.adapt(t(u64::MAX / 2)), 128);
    assert_eq!(e.max_p(), RedConfig::prob(0.1));
    assert_eq!(e.adapt(t(u64::MAX / 2 + 999)), 0);
}

/// A closed loop: each drop or mark shrinks the queue by 19 packets, each
/// accepted packet grows it by one, so the loop settles where the drop
/// fraction is 1/20. Adaptive RED must bring the average into its target
/// band from a max_p far too high and from one far too low.
#[test]
#[cfg_attr(
    miri,
    ignore = "a closed loop of 8 million arrivals: arithmetic, not memory safety; runs natively"
)]
fn adaptive_red_moves_the_average_into_the_band() {
    for start in [0.5, 0.01] {
        let mut c = zheng_kinicki_router();
        c.max_p = RedConfig::prob(start);
        c.queue.w_q = RedConfig::prob(0.002);
        let mut a = AdaptiveRed::new(
            &c,
            &AdaptiveConfig {
                interval_ticks: 2_000 * 100,
            },
            t(0),
        )
        .unwrap();
        let (lo, hi) = a.target();
        let mut rng = SplitMix64::new(3);
        let mut q = 15u32;
        let n = 4_000_000u64;
        let (mut sum, mut cnt) = (0.0, 0.0);
        for i in 0..n {
            let d = a.on_arrival(t(i * 100), q, Packet::new(1, Ecn::Ect0), &mut rng);
            q = if d == Decision::Enqueue {
                (q + 1).min(49)
            } else {
                q.saturating_sub(19).max(1)
            };
            if i > n / 2 {
                sum += a.red().avg(a.profile()).to_num::<f64>();
                cnt += 1.0;
            }
        }
        let mean = sum / cnt;
        assert!(
            mean >= lo.to_num::<f64>() && mean <= hi.to_num::<f64>(),
            "start {start}: mean avg {mean} outside [{lo}, {hi}], max_p {}",
            a.max_p()
        );
    }
}
