//! The spreadings of the early drops: the budget spreadings against their
//! plain reading, when the budget is drawn, the long-run drop fraction and
//! the distribution of the gaps between drops.

use super::*;

/// The budget spreadings against the plain reading: draw U in (0, 1] at each
/// early drop (and on entering the region), sum p_b (p_b / 2 for
/// AccumulatedDpdk) over the packets since, and drop the packet that brings
/// the sum to U or more.
#[test]
fn accumulated_matches_its_reference() {
    for (s, k) in [
        (Spreading::Accumulated, 1.0),
        (Spreading::AccumulatedDpdk, 0.5),
    ] {
        accumulated_reference(s, k);
    }
}

fn accumulated_reference(s: Spreading, k: f64) {
    let mut c = cfg(10, 30, 0.5, 0.002, 50);
    c.queue.gentle = true;
    c.queue.spreading = s;
    let p = RedProfile::new(&c).unwrap();
    let mut red = Red::new(&p, Instant::ZERO);
    let mut qs = SplitMix64::new(7);
    let mut rng = SplitMix64::new(8);
    let mut model_rng = SplitMix64::new(8);
    let (mut fresh, mut sum, mut u) = (true, 0.0f64, 0.0f64);
    let mut checked = 0u32;
    let mut q = 20i64;
    // Miri interprets every instruction: a short walk there.
    let (n, min_checked) = if cfg!(miri) {
        (600, 300)
    } else {
        (300_000u64, 100_000)
    };
    for i in 0..n {
        q = (q + i64::from(qs.below(5)) - 2).clamp(1, 49);
        let d = red.on_arrival(&p, t(i), q as u32, Packet::not_ect(1), &mut rng);
        let pb = ref_p_b(units(&p, &red), 10.0, 30.0, 0.5, true);
        if pb == 0.0 || pb >= 1.0 {
            assert_eq!(
                d,
                if pb == 0.0 {
                    Decision::Enqueue
                } else {
                    Decision::DropForced
                }
            );
            fresh = true;
            continue;
        }
        let mut draw =
            || (f64::from(model_rng.next_u32().min(u32::MAX - 1)) + 1.0) / 4_294_967_296.0;
        if fresh {
            u = draw();
            sum = 0.0;
            fresh = false;
        }
        sum += k * pb;
        if (sum - u).abs() < 1e-7 {
            // Within the fixed point's rounding of p_b: the streams may part here.
            break;
        }
        let drop = sum >= u;
        assert_eq!(
            d == Decision::DropEarly,
            drop,
            "{s:?} step {i}: sum {sum} u {u}"
        );
        if drop {
            // The next gap's U, drawn at the drop.
            u = draw();
            sum = 0.0;
        }
        checked += 1;
    }
    assert!(checked > min_checked, "{s:?}: {checked}");
}

/// Counts the values drawn from a generator.
struct Counted<'a>(&'a mut SplitMix64, u32);

impl RandomSource for Counted<'_> {
    fn next_u32(&mut self) -> u32 {
        self.1 += 1;
        self.0.next_u32()
    }
}

/// The budget spreadings draw the next gap's budget at the early drop (or
/// mark) itself, so the state holds a budget right after one. A packet in the
/// region draws only when it finds the state 0 (on entering the region) and
/// when it is picked; a packet below min_th or in the forced region draws
/// nothing and leaves the state 0. Fails on the lazy form, which draws at the
/// packet after a drop. Byte mode (every packet at the maximum size) takes
/// the general path; ECN marks take the pick's place.
#[test]
fn budget_is_drawn_at_the_drop() {
    for (s, ecn, bytes) in [
        (Spreading::Accumulated, false, false),
        (Spreading::AccumulatedDpdk, false, false),
        (Spreading::Accumulated, true, false),
        (Spreading::Accumulated, false, true),
        (Spreading::AccumulatedDpdk, true, true),
    ] {
        // w_q = 1: the average is the queue.
        let mut c = cfg(10, 30, 0.5, 1.0, 100);
        c.queue.spreading = s;
        c.queue.ecn = ecn;
        c.queue.byte_mode = bytes.then_some(1500);
        let p = RedProfile::new(&c).unwrap();
        let (pkt, pick, forced) = if ecn {
            // No hard threshold: the forced region marks ECT packets too.
            (Packet::new(1500, Ecn::Ect0), Decision::Mark, Decision::Mark)
        } else {
            (
                Packet::not_ect(1500),
                Decision::DropEarly,
                Decision::DropForced,
            )
        };
        let mut g = SplitMix64::new(11);
        let mut red = Red::new(&p, Instant::ZERO);
        let mut picks = 0;
        // Region, below, region, forced, region, ...: 40 visits of 30 packets.
        for (i, q) in [25u32, 5, 25, 80].into_iter().cycle().take(40).enumerate() {
            for k in 0..30u64 {
                let fresh = red.count() == 0;
                let mut r = Counted(&mut g, 0);
                let d = red.on_arrival(&p, t(i as u64 * 30 + k), q, pkt, &mut r);
                let draws = r.1;
                match q {
                    25 => {
                        let picked = d == pick;
                        assert!(picked || d == Decision::Enqueue, "{s:?}: {d:?}");
                        assert_eq!(draws, u32::from(fresh) + u32::from(picked), "{s:?}");
                        assert_ne!(red.count(), 0, "{s:?}: a budget is held");
                        picks += u32::from(picked);
                    }
                    5 => assert_eq!((d, draws, red.count()), (Decision::Enqueue, 0, 0)),
                    _ => assert_eq!((d, draws, red.count()), (forced, 0, 0)),
                }
            }
        }
        // p_b = 0.375 at 25: about 0.4 (DPDK's law) to 0.55 of the 600
        // packets in the region are picked (less on entering it).
        assert!(picks > 150, "{s:?}: {picks} picks");
    }
}

/// The long-run drop fraction at a constant p_b, for every spreading, against
/// 1 / E[gap] from the reference gap distribution, over many seeds.
#[test]
#[ignore = "long sweep: cargo test --workspace -- --ignored"]
#[cfg_attr(
    miri,
    ignore = "statistics over 60 million arrivals: arithmetic, not memory safety; runs natively"
)]
fn drop_fraction_matches_the_gap_distribution() {
    // min 10, max 30, max_p 0.5 (gentle, limit 100): queue 11 -> p_b 0.025,
    // 14 -> 0.1, 20 -> 0.25, 26 -> 0.4, 40 -> 2/3 (gentle region).
    let seeds = 24u64;
    let n = 100_000u64;
    for s in ALL_SPREADINGS {
        let mut c = cfg(10, 30, 0.5, 0.002, 100);
        c.queue.gentle = true;
        c.queue.spreading = s;
        let p = RedProfile::new(&c).unwrap();
        for q in [11u32, 14, 20, 26, 40] {
            let warm = settle(&p, q, 30_000);
            assert_eq!(warm.avg(&p), U32F32::from_num(q));
            let pb = p.p_b(warm.avg(&p)).to_num::<f64>();
            let (mean, var) = gap_moments(pb, s);
            let f = 1.0 / mean;
            // Renewal-reward CLT: the drop count in n packets has variance
            // n var / mean^3; 5 sigma per seed, 5 sigma / sqrt(seeds) pooled.
            let sd = (n as f64 * var / mean.powi(3)).sqrt() / n as f64;
            let mut total = 0u64;
            for seed in 0..seeds {
                let mut red = warm;
                let mut rng = SplitMix64::new(seed);
                let mut drops = 0u64;
                for i in 0..n {
                    if red
                        .on_arrival(&p, t(i), q, Packet::not_ect(1), &mut rng)
                        .is_drop()
                    {
                        drops += 1;
                    }
                }
                let got = drops as f64 / n as f64;
                assert!(
                    (got - f).abs() <= 5.0 * sd + 2.0 / n as f64,
                    "{s:?} p_b {pb}: {got} vs {f}"
                );
                total += drops;
            }
            let pooled = total as f64 / (n * seeds) as f64;
            let rel = (pooled - f).abs() / f;
            let bound = (5.0 * sd / (seeds as f64).sqrt() + 2.0 / n as f64) / f;
            assert!(
                rel <= bound,
                "{s:?} p_b {pb}: pooled {pooled} vs {f}, rel {rel} > {bound}"
            );
            // The documented closed forms where 1/p_b (2/p_b for DPDK) is about whole.
            let closed = match s {
                Spreading::Uniform | Spreading::Accumulated => 2.0 * pb / (1.0 + pb),
                Spreading::UniformCountFirst => 2.0 * pb,
                Spreading::Dpdk | Spreading::AccumulatedDpdk => 2.0 * pb / (2.0 + pb),
                Spreading::Geometric => pb,
                // Gaps uniform on 1/p_b..=2/p_b - 1.
                Spreading::Wait => 2.0 * pb / (3.0 - pb),
            };
            let whole = |x: f64| (x - x.round()).abs() < 1e-6;
            let applies = match s {
                Spreading::Dpdk | Spreading::AccumulatedDpdk => whole(2.0 / pb),
                Spreading::Geometric => true,
                // The gate n p_b >= 1 opens at n = 1/p_b only if the
                // fixed-point p_b is not below 1/n (else one packet later).
                Spreading::Wait => whole(1.0 / pb) && (1.0 / pb).round() * pb >= 1.0,
                _ => whole(1.0 / pb),
            };
            if applies {
                assert!(
                    (f - closed).abs() < 1e-6 * closed,
                    "{s:?} {pb}: {f} vs {closed}"
                );
            }
            // DPDK's law drops about p_b (2 p_b / (2 + p_b) = p_b - p_b^2 / 2
            // + ... when 2/p_b is whole), half the FJ93 variants' 2 p_b.
            if matches!(s, Spreading::Dpdk | Spreading::AccumulatedDpdk) {
                assert!(
                    (pooled - pb).abs() <= pb * pb,
                    "{s:?} p_b {pb}: pooled {pooled}"
                );
            }
        }
    }
}

/// Chi-square goodness of fit of the gaps between drops to the distribution
/// derived from p_a (uniform for the FJ93 variants, geometric without count).
#[test]
#[cfg_attr(
    miri,
    ignore = "a chi-square fit over 750,000 gaps: arithmetic, not memory safety; runs natively"
)]
fn gaps_between_drops_follow_the_derived_distribution() {
    for s in ALL_SPREADINGS {
        for q in [14u32, 20, 11] {
            let mut c = cfg(10, 30, 0.5, 0.002, 50);
            c.queue.spreading = s;
            let p = RedProfile::new(&c).unwrap();
            let mut red = settle(&p, q, 30_000);
            let pb = p.p_b(red.avg(&p)).to_num::<f64>();
            let pmf = gap_pmf(pb, s, 100_000);
            let mut hist = vec![0u64; pmf.len() + 1];
            let mut rng = SplitMix64::new(u64::from(q) * 31 + 7);
            // Start right after a drop.
            while !red
                .on_arrival(&p, t(0), q, Packet::not_ect(1), &mut rng)
                .is_drop()
            {}
            let mut gap = 0usize;
            let mut gaps = 0u64;
            while gaps < 50_000 {
                gap += 1;
                if red
                    .on_arrival(&p, t(0), q, Packet::not_ect(1), &mut rng)
                    .is_drop()
                {
                    hist[gap.min(pmf.len())] += 1;
                    gap = 0;
                    gaps += 1;
                }
            }
            // Bins of expected count >= 5; the tail pooled into the last bin.
            let mut bins: Vec<(f64, u64)> = Vec::new();
            let (mut e, mut o) = (0.0, 0u64);
            for (i, &pr) in pmf.iter().enumerate() {
                e += pr * gaps as f64;
                o += hist[i + 1];
                if e >= 5.0 {
                    bins.push((e, o));
                    e = 0.0;
                    o = 0;
                }
            }
            if let Some(last) = bins.last_mut() {
                last.0 += e;
                last.1 += o;
            }
            assert!(bins.len() >= 3);
            let chi2: f64 = bins.iter().map(|&(e, o)| (o as f64 - e).powi(2) / e).sum();
            let df = (bins.len() - 1) as f64;
            // Wilson-Hilferty 0.999 quantile of chi-square(df).
            let z = 3.09;
            let crit = df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3);
            assert!(chi2 < crit, "{s:?} q {q}: chi2 {chi2} >= {crit} (df {df})");
            // FJ93's variants really are uniform: all full bins equal.
            if matches!(s, Spreading::Uniform | Spreading::Accumulated) && q == 14 {
                assert!(pmf.len() <= 11 && pmf[..10].iter().all(|&x| (x - pb).abs() < 1e-12));
            }
            // Waiting: uniform on 1/p_b..=2/p_b - 1 (10..=19 at p_b = 0.1),
            // no drop before.
            if s == Spreading::Wait && q == 14 {
                // The first n with n p_b >= 1 (10, or 11 if the fixed-point
                // p_b is a little below 0.1).
                let n0 = (1.0 / pb).ceil() as usize;
                assert!((10..=11).contains(&n0), "{pb}");
                assert!(pmf.len() <= n0 + 10, "{}", pmf.len());
                assert!(pmf[..n0 - 1].iter().all(|&x| x == 0.0), "{pmf:?}");
                // From n0 on, the hazard p_b / (c - k p_b) with c = 2 - n0 p_b
                // makes every gap equally likely, p_b / c each (p_b when
                // 1/p_b is whole), the remainder on the last.
                let each = pb / (2.0 - n0 as f64 * pb);
                assert!(
                    pmf[n0 - 1..pmf.len() - 1]
                        .iter()
                        .all(|&x| (x - each).abs() < 1e-9),
                    "{pmf:?}"
                );
                assert!(pmf.len() - n0 <= (1.0 / each) as usize, "{pmf:?}");
            }
            // DPDK's law: uniform on 1..=2/p_b (20 packets at p_b = 0.1).
            if matches!(s, Spreading::Dpdk | Spreading::AccumulatedDpdk) && q == 14 {
                assert!(pmf.len() <= 21 && pmf[..20].iter().all(|&x| (x - pb / 2.0).abs() < 1e-12));
            }
        }
    }
}

/// ns-3.37's `RedQueueDisc` with `Wait=true`, as its documentation and
/// FJ93's figure 2 describe it, written plainly in `f64`: `count` is
/// incremented at every arrival; with the average at or above min_th, the
/// first arrival of a stay there is passed with `count = 1` and nothing drawn
/// beyond the arrival's draw; later ones are dropped when `u <= p_a` with
/// `p_a` 0 while `count p_b < 1`, `p_b / (2 - count p_b)` while below 2, and 1
/// beyond; a drop sets `count` to 0; an arrival below min_th ends the stay.
/// (ns-3's rule of no drop at a queue of at most one packet, and its forced
/// region, are outside this walk: the queue stays in 2..=49 and the average
/// below 2 max_th = 60.)
struct Ns3Wait {
    count: u64,
    old: bool,
}

impl Ns3Wait {
    /// True when the arrival with average p_b `pb` (0 below min_th) and
    /// uniform `u` is dropped early.
    fn arrive(&mut self, below: bool, pb: f64, u: f64) -> bool {
        self.count += 1;
        if below {
            self.old = false;
            return false;
        }
        if !self.old {
            self.count = 1;
            self.old = true;
            return false;
        }
        let x = self.count as f64 * pb;
        let pa = if x < 1.0 {
            0.0
        } else if x < 2.0 {
            pb / (2.0 - x)
        } else {
            1.0
        };
        if u <= pa {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

/// `Spreading::Wait` against the model of ns-3's `RedQueueDisc` with
/// `Wait=true` above, draw for draw: the queue wanders between the regions
/// (below min_th, the first probabilistic region, the gentle one), each
/// arrival gets one 32-bit draw `r` (`u = r / 2^32` for the model), and the
/// decisions must agree except where `u` is within 1e-6 of the model's `p_a`
/// (p_b's fixed-point rounding), after which the walk restarts both.
/// Fails on a count kept from one stay in the region to the next, on a first
/// packet in the region that may be dropped, on a count reset to 1 rather
/// than 0 after a drop, and on `p_b / (1 - count p_b)` or `p_b / (2 - (count - 1) p_b)`.
#[test]
fn wait_matches_ns3_red_queue_disc() {
    let mut c = cfg(10, 30, 0.1, 0.02, 60);
    c.queue.gentle = true;
    c.queue.spreading = Spreading::Wait;
    let p = RedProfile::new(&c).unwrap();
    let mut red = Red::new(&p, Instant::ZERO);
    let mut model = Ns3Wait {
        count: 0,
        old: false,
    };
    let mut qs = SplitMix64::new(21);
    let mut draws = SplitMix64::new(22);
    let (mut checked, mut drops, mut entries, mut restarts) = (0u32, 0u32, 0u32, 0u32);
    let mut was_below = true;
    let n = if cfg!(miri) { 2_000 } else { 400_000u64 };
    let mut q = 20i64;
    for i in 0..n {
        // A target that moves every 3000 arrivals: 4, 25, 45, 15, ...
        let target = [4i64, 25, 45, 15][(i / 3000 % 4) as usize];
        q = (q + i64::from(qs.below(5)) - 2 + (target - q).signum()).clamp(2, 49);
        let r = draws.next_u32();
        let d = red.on_arrival(&p, t(i), q as u32, Packet::not_ect(1500), &mut Supplied(r));
        let avg = units(&p, &red);
        let pb = ref_p_b(avg, 10.0, 30.0, 0.1, true);
        assert!(pb < 1.0, "the walk stays below 2 max_th");
        let below = pb == 0.0;
        if was_below && !below {
            entries += 1;
        }
        was_below = below;
        let u = f64::from(r) / 4_294_967_296.0;
        let x = model.count as f64 + 1.0;
        let pa = crate::reference::p_a(pb, x as u64, Spreading::Wait);
        let tested = !below && model.old;
        let dropped = model.arrive(below, pb, u);
        if tested && (u - pa).abs() < 1e-6 {
            // Too close to call: start both again from below min_th's state.
            red = Red { count: 0, ..red };
            model = Ns3Wait {
                count: 0,
                old: false,
            };
            restarts += 1;
            continue;
        }
        assert_eq!(
            d == Decision::DropEarly,
            dropped,
            "step {i}: q {q} avg {avg} p_b {pb} u {u} model count {}",
            model.count
        );
        assert!(
            matches!(d, Decision::Enqueue | Decision::DropEarly),
            "{d:?}"
        );
        checked += 1;
        drops += u32::from(dropped);
    }
    // The walk saw every case many times.
    if !cfg!(miri) {
        assert!(checked > 390_000, "{checked}");
        assert!(drops > 2_000, "{drops} drops");
        assert!(entries > 20, "{entries} entries into the region");
        assert!(restarts < 20, "{restarts} restarts");
    }
}
