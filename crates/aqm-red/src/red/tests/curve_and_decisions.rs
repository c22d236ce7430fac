//! The state's size, the drop-probability curve p_b, the decisions against
//! the reference model, determinism per seed, and gentle against classic
//! RED above max_th.

use super::*;

#[test]
fn state_is_16_bytes() {
    assert_eq!(core::mem::size_of::<Red>(), 16);
}

#[test]
fn p_b_matches_the_reference() {
    for gentle in [false, true] {
        let mut c = cfg(32, 128, 0.1, 1.0 / 512.0, 400);
        c.queue.gentle = gentle;
        let p = RedProfile::new(&c).unwrap();
        let max_p = p.max_p().to_num::<f64>();
        let f = p.avg_frac_bits();
        let mut rng = SplitMix64::new(5);
        // Miri interprets every instruction: fewer draws there.
        let n = if cfg!(miri) { 300 } else { 200_000 };
        for _ in 0..n {
            let bits = rng.below(400 << f);
            let avg = U32F32::from_bits(u64::from(bits) << (32 - f));
            let a = avg.to_num::<f64>();
            let got = p.p_b(avg).to_num::<f64>();
            let want = ref_p_b(a, 32.0, 128.0, max_p, gentle);
            // At most the exact value and at most 2^-31 below it.
            assert!(
                got <= want + 1e-15 && want - got <= 2f64.powi(-31) + 1e-15,
                "{a}: {got} vs {want}"
            );
        }
        // The corners.
        assert_eq!(p.p_b(U32F32::from_num(31)), 0);
        assert_eq!(p.p_b(U32F32::from_num(32)), 0);
        assert_eq!(p.p_b(U32F32::from_num(128)).to_bits() == 1 << 32, !gentle);
        assert_eq!(p.p_b(U32F32::from_num(256)), 1);
    }
}

#[test]
fn decisions_match_the_reference_model() {
    // The same draws through the reference (f64, FJ93's formulas) and the
    // fixed-point decision; the only allowed difference is where the draw is
    // within 1e-6 of p_a, from p_b's 2^-31 rounding.
    for s in ALL_SPREADINGS {
        if matches!(s, Spreading::Accumulated | Spreading::AccumulatedDpdk) {
            continue; // One draw per drop: see accumulated_matches_its_reference.
        }
        let mut c = cfg(10, 30, 0.5, 0.002, 50);
        c.queue.spreading = s;
        c.queue.gentle = true;
        let p = RedProfile::new(&c).unwrap();
        let mut red = Red::new(&p, Instant::ZERO);
        let mut qs = SplitMix64::new(7);
        let mut draws = SplitMix64::new(8);
        let (mut close, mut checked) = (0u32, 0u32);
        let mut q = 20i64;
        // Miri interprets every instruction: a short walk there.
        let (n, min_checked) = if cfg!(miri) {
            (300, 80)
        } else {
            (300_000u64, 200_000)
        };
        for i in 0..n {
            q = (q + i64::from(qs.below(5)) - 2).clamp(1, 49);
            let r = draws.next_u32();
            let count = red.count();
            let d = red.on_arrival(&p, t(i), q as u32, Packet::not_ect(1), &mut Supplied(r));
            let avg = units(&p, &red);
            let pb = ref_p_b(avg, 10.0, 30.0, 0.5, true);
            if pb == 0.0 {
                assert_eq!(d, Decision::Enqueue);
                continue;
            }
            if pb >= 1.0 {
                assert_eq!(d, Decision::DropForced);
                continue;
            }
            // The stored count is FJ93's count for each variant.
            let (k, c) = match s {
                Spreading::Dpdk => (2.0, f64::from(count)),
                Spreading::Geometric | Spreading::Accumulated | Spreading::AccumulatedDpdk => {
                    (1.0, 0.0)
                }
                _ => (1.0, f64::from(count)),
            };
            let pa = if s == Spreading::Wait {
                // The stored count is the packets before this one since the
                // drop: ns-3's count is one more.
                crate::reference::p_a(pb, u64::from(count) + 1, s)
            } else {
                crate::reference::p_a_from(pb, k, c)
            };
            let u = f64::from(r) / 4_294_967_296.0;
            if (u - pa).abs() < 1e-6 {
                close += 1;
                continue;
            }
            checked += 1;
            assert_eq!(
                d == Decision::DropEarly,
                u < pa,
                "{s:?} step {i}: u {u} p_a {pa} count {count}"
            );
        }
        assert!(
            checked > min_checked && close < 100,
            "{s:?}: {checked} checked, {close} close"
        );
    }
}

#[test]
fn same_seed_same_decisions() {
    let p = RedProfile::new(&zheng_kinicki_router()).unwrap();
    // Miri interprets every instruction: a shorter run there.
    let n = if cfg!(miri) { 700 } else { 20_000u64 };
    let run = |seed| {
        let mut red = Red::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|i| {
                red.on_arrival(
                    &p,
                    t(i * 10),
                    (i % 45) as u32 + 1,
                    Packet::not_ect(1),
                    &mut rng,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn gentle_and_classic_above_max_th() {
    let mut classic = cfg(10, 30, 0.5, 0.01, 100);
    let p_classic = RedProfile::new(&classic).unwrap();
    classic.queue.gentle = true;
    let p_gentle = RedProfile::new(&classic).unwrap();
    let mut rng = SplitMix64::new(1);
    // Queue 45: classic drops all; gentle at p_b = 0.5 + 0.5 * 15/30 = 0.75.
    let mut a = settle(&p_classic, 45, 5000);
    let mut b = settle(&p_gentle, 45, 5000);
    let pb = p_gentle.p_b(b.avg(&p_gentle)).to_num::<f64>();
    assert!(pb <= 0.75 && pb >= 0.75 - 2f64.powi(-31), "{pb}");
    let (mut forced, mut early, mut kept) = (0, 0, 0);
    // Miri interprets every instruction: fewer arrivals there.
    let (n, min_early, min_kept) = if cfg!(miri) {
        (500, 350, 50)
    } else {
        (10_000, 7000, 1000)
    };
    for i in 0..n {
        assert_eq!(
            a.on_arrival(&p_classic, t(i), 45, Packet::not_ect(1), &mut rng),
            Decision::DropForced
        );
        match b.on_arrival(&p_gentle, t(i), 45, Packet::not_ect(1), &mut rng) {
            Decision::DropForced => forced += 1,
            Decision::DropEarly => early += 1,
            _ => kept += 1,
        }
    }
    assert_eq!(forced, 0);
    assert!(early > min_early && kept > min_kept, "{early} {kept}");
    // At 2 max_th and above, gentle drops everything.
    let mut b = settle(&p_gentle, 60, 5000);
    let n = if cfg!(miri) { 100 } else { 1000 };
    for i in 0..n {
        assert_eq!(
            b.on_arrival(&p_gentle, t(i), 60, Packet::not_ect(1), &mut rng),
            Decision::DropForced
        );
    }
}
