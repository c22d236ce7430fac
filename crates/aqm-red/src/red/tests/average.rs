//! The average queue size: the fixed-point EWMA against the exact one, its
//! convergence, the idle decay and clocks that start far past zero.

use super::*;

#[test]
fn average_converges_exactly_to_a_constant_queue() {
    // Powers of two and arbitrary weights, packets and bytes.
    for (w, limit, q) in [
        (0.001, 50, 20u32),
        (1.0 / 512.0, 200, 77),
        (0.002, 1000, 999),
        (0.3, 7, 7),
        (1.0, 50, 13),
        (0.004, 10_000_000, 1_234_567),
    ] {
        // Under Miri, which interprets every instruction, only the weights
        // that converge in tens of arrivals rather than tens of thousands.
        if cfg!(miri) && w < 0.25 {
            continue;
        }
        let p = RedProfile::new(&cfg(1, limit.min(40), 0.1, w, limit)).unwrap();
        let target = q << p.avg_frac_bits();
        let mut red = Red::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(1);
        let mut n = 0u64;
        while red.avg_bits() != target {
            let before = red.avg_bits();
            red.on_arrival(&p, t(n), q, Packet::not_ect(100), &mut rng);
            // Monotone, never past the target.
            assert!(red.avg_bits() > before && red.avg_bits() <= target);
            n += 1;
            assert!(n < 200_000, "w {w}: no convergence");
        }
        let settled = if cfg!(miri) { 50 } else { 1000 };
        for _ in 0..settled {
            red.on_arrival(&p, t(n), q, Packet::not_ect(100), &mut rng);
            assert_eq!(red.avg_bits(), target);
        }
        assert_eq!(red.avg(&p), U32F32::from_num(q));
        // And back down to a smaller constant.
        let q2 = q / 3 + 1;
        let mut m = 0;
        while red.avg_bits() != q2 << p.avg_frac_bits() {
            red.on_arrival(&p, t(n), q2, Packet::not_ect(100), &mut rng);
            m += 1;
            assert!(m < 200_000);
        }
    }
}

#[test]
fn average_matches_the_reference_within_its_bound() {
    // Random queue lengths; the fixed-point average stays within 2^-F / w_q of
    // the real-valued EWMA with the same w_q (module fx: each step rounds by
    // less than one unit, and errors decay by (1 - w_q) per step).
    for (w, limit, seed) in [
        (0.002, 1000u32, 1u64),
        (1.0 / 512.0, 200, 2),
        (0.001, 50, 3),
        (0.25, 60_000, 4),
    ] {
        let p = RedProfile::new(&cfg(1, limit / 2, 0.1, w, limit)).unwrap();
        let wq = p.w_q().to_num::<f64>();
        let ulp = (-(p.avg_frac_bits() as f64)).exp2();
        let bound = ulp / wq + 1e-12 * limit as f64;
        let mut model = RefAvg { avg: 0.0, w: wq };
        let mut red = Red::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(seed);
        let mut qs = SplitMix64::new(seed + 100);
        let mut worst = 0.0f64;
        // Miri interprets every instruction: a short walk there.
        let n = if cfg!(miri) { 150 } else { 200_000u64 };
        for i in 0..n {
            // A random walk with jumps, never 0 (idle is tested separately).
            let q = 1 + qs.below(limit);
            red.on_arrival(&p, t(i), q, Packet::not_ect(1), &mut rng);
            model.arrive(f64::from(q));
            let err = (units(&p, &red) - model.avg).abs();
            worst = worst.max(err);
            assert!(
                err <= bound,
                "w {w}, step {i}: {} vs {} (bound {bound})",
                units(&p, &red),
                model.avg
            );
        }
        assert!(worst > 0.0);
    }
}

#[test]
fn average_with_idle_periods_matches_the_bounded_reference() {
    // Arrivals to empty and nonempty queues, departures and backward clock
    // steps, against reference::RefRedAvg and the bound it tracks.
    for (w, limit, s, seed) in [
        (0.002, 1000u32, 1_200_000u64, 1u64),
        (1.0 / 512.0, 50, 171_429, 2),
        (0.25, 60_000, 7, 3),
        (1.0, 30, 1, 4),
        (0.001, u32::MAX, 1_000_000_000, 5),
    ] {
        let mut c = cfg(1, limit / 2, 0.1, w, limit);
        c.queue.typical_tx = core::time::Duration::from_nanos(s);
        let p = RedProfile::new(&c).unwrap();
        let mut model = crate::reference::RefRedAvg::new(&p, &c);
        let mut red = Red::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(seed);
        let mut now = 0u64;
        let mut idle_arrivals = 0;
        // Miri interprets every instruction: a short run there.
        let n = if cfg!(miri) { 100 } else { 100_000u64 };
        for i in 0..n {
            let k = rng.below(10);
            now = match k {
                0 => now.saturating_sub(rng.below(1000).into()),
                1 => now + rng.next_u64() % (s.saturating_mul(64)),
                _ => now + u64::from(rng.below(1 << 20)),
            } & ((1 << 63) - 1);
            if k == 2 {
                red.on_queue_empty(&p, t(now));
                model.queue_empty(now);
            } else {
                let q = if k < 5 { 0 } else { rng.below(limit) };
                idle_arrivals += u32::from(q == 0);
                red.on_arrival(&p, t(now), q, Packet::not_ect(1), &mut rng);
                model.arrive(now, q);
            }
            assert!(
                model.matches(units(&p, &red)),
                "w {w} limit {limit} s {s}, step {i}: {} vs {} (bound {})",
                units(&p, &red),
                model.avg.avg,
                model.bound
            );
        }
        assert!(u64::from(idle_arrivals) > n / 10, "{idle_arrivals}");
    }
}

#[test]
fn idle_decay_matches_the_closed_form() {
    // (1 - w_q)^m with m = idle / s as a real number: within one unit plus a
    // relative 2^-40.
    let mut rng = SplitMix64::new(11);
    for (w, s) in [
        (0.002, 171_429u64),
        (1.0 / 512.0, 1),
        (0.001, 1_200_000),
        (0.5, 3),
        (0.9, 1000),
    ] {
        let mut c = cfg(10, 30, 0.1, w, 50);
        c.queue.typical_tx = core::time::Duration::from_nanos(s);
        let p = RedProfile::new(&c).unwrap();
        let wq = p.w_q().to_num::<f64>();
        // Miri interprets every instruction: a few idle periods there.
        let n = if cfg!(miri) { 4 } else { 2000 };
        for _ in 0..n {
            let red = settle(&p, 1 + rng.below(50), 20_000);
            let a0 = red.avg_bits();
            // Idle times from a fraction of s to 10^5 s's.
            let dt = u64::from(rng.next_u32()) % (s.saturating_mul(1 << rng.below(17)) + 1);
            let mut r2 = red;
            r2.on_queue_empty(&p, t(5_000_000_000));
            r2.on_arrival(&p, t(5_000_000_000 + dt), 0, Packet::not_ect(1), &mut rng);
            let mut model = RefAvg {
                avg: f64::from(a0),
                w: wq,
            };
            model.idle(dt as f64 / s as f64);
            let want = model.avg;
            let got = f64::from(r2.avg_bits());
            assert!(
                (got - want).abs() <= 1.0 + want * 2f64.powi(-40),
                "w {w} s {s} dt {dt}: {got} vs {want}"
            );
        }
    }
    // w_q = 1 forgets everything after any idle time; none with zero idle time.
    let p = RedProfile::new(&cfg(10, 30, 0.1, 1.0, 50)).unwrap();
    let mut red = settle(&p, 20, 10);
    red.on_queue_empty(&p, t(10_000));
    let before = red.avg_bits();
    red.on_arrival(&p, t(10_000), 0, Packet::not_ect(1), &mut Supplied(0));
    assert_eq!(red.avg_bits(), before);
    red.on_arrival(&p, t(10_001), 0, Packet::not_ect(1), &mut Supplied(0));
    assert_eq!(red.avg_bits(), 0);
}

#[test]
fn idle_decay_is_not_counted_twice_and_ignores_backwards_clocks() {
    let p = RedProfile::new(&zheng_kinicki_router()).unwrap();
    let mut a = settle(&p, 25, 30_000);
    let mut b = a;
    a.on_queue_empty(&p, t(1_000_000_000));
    b.on_queue_empty(&p, t(1_000_000_000));
    // One arrival after 2 s against two arrivals at 1.5 s and 2 s: same average.
    a.on_arrival(
        &p,
        t(3_000_000_000),
        0,
        Packet::not_ect(1),
        &mut Supplied(0),
    );
    b.on_arrival(
        &p,
        t(2_500_000_000),
        0,
        Packet::not_ect(1),
        &mut Supplied(0),
    );
    b.on_arrival(
        &p,
        t(3_000_000_000),
        0,
        Packet::not_ect(1),
        &mut Supplied(0),
    );
    let (x, y) = (i64::from(a.avg_bits()), i64::from(b.avg_bits()));
    assert!((x - y).abs() <= 2, "{x} {y}");
    // A clock that steps back decays nothing.
    let before = a.avg_bits();
    a.on_arrival(&p, t(1_000), 0, Packet::not_ect(1), &mut Supplied(0));
    assert_eq!(a.avg_bits(), before);
    assert_eq!(a.idle_since(), t(3_000_000_000));
}

/// A clock that starts 2^63 ticks or more past zero (issue found by
/// adversarial testing): with the time-keeping started at the first instant
/// (`Red::new`'s and `Rio::new`'s `now`, and `AdaptiveRed::new`'s `start`), 10 s idle decay the average
/// from about 25 to nearly 0, as on a clock that starts at zero.
#[test]
fn averages_decay_on_clocks_past_2_pow_63() {
    // w_q 1/4, s = 1 ms: 10 s idle is 10,000 transmissions.
    let mut c = cfg(10, 40, 0.1, 0.25, 100);
    c.queue.typical_tx = core::time::Duration::from_nanos(1_000_000);
    let p = RedProfile::new(&c).unwrap();
    for base in [0u64, 1 << 63, u64::MAX - 20_000_000_000, (1 << 63) + 12_345] {
        let at = |x: u64| Instant::from_ticks(base.wrapping_add(x));
        let mut red = Red::new(&p, at(0));
        for i in 0..40 {
            red.on_arrival(
                &p,
                at(i * 1000),
                25,
                Packet::new(1500, Ecn::NotEct),
                &mut Supplied(u32::MAX),
            );
        }
        let before = units(&p, &red);
        assert!(before > 24.0, "{base}: {before}");
        red.on_queue_empty(&p, at(1_000_000));
        red.on_arrival(
            &p,
            at(10_001_000_000),
            0,
            Packet::new(1500, Ecn::NotEct),
            &mut Supplied(u32::MAX),
        );
        assert!(units(&p, &red) < 0.01, "{base}: {}", units(&p, &red));

        let mut rc = crate::RioConfig::rfc2963(100);
        rc.mode = crate::RioMode::Wred;
        rc.queue.w_q = c.queue.w_q;
        rc.queue.typical_tx = c.queue.typical_tx;
        rc.colors = [crate::Precedence {
            min_th: 10,
            max_th: 40,
            max_p: RedConfig::prob(0.1),
        }; 3];
        let rp = crate::RioProfile::new(&rc).unwrap();
        let mut rio = crate::Rio::new(&rp, at(0));
        for i in 0..40 {
            rio.on_arrival(
                &rp,
                at(i * 1000),
                [25, 0, 0],
                netcond_core::Color::Green,
                Packet::new(1500, Ecn::NotEct),
                &mut Supplied(u32::MAX),
            );
        }
        assert!(rio.avg(&rp, netcond_core::Color::Green).to_num::<f64>() > 24.0);
        rio.on_queue_empty(&rp, at(1_000_000));
        rio.on_arrival(
            &rp,
            at(10_001_000_000),
            [0; 3],
            netcond_core::Color::Green,
            Packet::new(1500, Ecn::NotEct),
            &mut Supplied(u32::MAX),
        );
        assert!(
            rio.avg(&rp, netcond_core::Color::Green).to_num::<f64>() < 0.01,
            "{base}"
        );

        // AdaptiveRed::new used to ignore `start` for its RED state.
        let ap = AdaptiveRedProfile::new(&AdaptiveRedConfig::new(
            c,
            core::time::Duration::from_nanos(1 << 40),
        ))
        .unwrap();
        let mut a = AdaptiveRed::new(&ap, at(0));
        for i in 0..40 {
            a.on_arrival(
                &ap,
                at(i * 1000),
                25,
                Packet::new(1500, Ecn::NotEct),
                &mut Supplied(u32::MAX),
            );
        }
        a.on_queue_empty(&ap, at(1_000_000));
        a.on_arrival(
            &ap,
            at(10_001_000_000),
            0,
            Packet::new(1500, Ecn::NotEct),
            &mut Supplied(u32::MAX),
        );
        assert!(a.red.avg(ap.red()).to_num::<f64>() < 0.01, "{base}");
    }
}
