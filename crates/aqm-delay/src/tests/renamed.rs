//! The old names of the per-packet verbs (deprecated) do what the new ones do.
#![allow(deprecated)]

use super::ms;
use crate::{
    Codel, CodelConfig, CodelProfile, DualPi2, DualPi2Config, DualPi2Profile, Ecn, Head, Pie,
    PieConfig, PieProfile, Verdict,
};
use netcond_core::{Instant, SplitMix64};

#[test]
fn codel_on_empty_is_on_queue_empty() {
    let p = CodelProfile::new(&CodelConfig::rfc8289()).unwrap();
    let mut old = Codel::new(&p, Instant::ZERO);
    let mut new = Codel::new(&p, Instant::ZERO);
    // A standing queue until the entry drop, then the queue empties.
    let mut dropped = false;
    for t in 11..=160u64 {
        let h = Head::new(Instant::from_ticks(ms(t).ticks() - 10_000_000), 1500, false);
        let v = new.on_dequeue(&p, ms(t), h, 10_000);
        assert_eq!(old.on_dequeue(&p, ms(t), h, 10_000), v);
        if v == Verdict::Drop {
            dropped = true;
            old.on_empty(&p, ms(t));
            new.on_queue_empty(&p, ms(t));
            assert_eq!(old, new, "t={t}");
        }
    }
    assert!(dropped);
    old.on_empty(&p, ms(400));
    new.on_queue_empty(&p, ms(400));
    assert_eq!(old, new);
    assert!(!new.dropping());
    assert_eq!(new.last_seen(), ms(400));
}

#[test]
fn pie_on_enqueue_is_on_arrival() {
    let p = PieProfile::new(&PieConfig::linux()).unwrap();
    let mut old = Pie::new(&p, Instant::ZERO);
    let mut new = Pie::new(&p, Instant::ZERO);
    let (mut ro, mut rn) = (SplitMix64::new(3), SplitMix64::new(3));
    let mut drops = 0;
    // 150 kB queued, each packet leaving after 100 ms: the probability grows
    // until arrivals are dropped.
    for t in 0..if cfg!(miri) { 700 } else { 2_000u64 } {
        for pie in [&mut old, &mut new] {
            pie.poll(&p, ms(t), 150_000);
            if t >= 100 {
                let head = Head::new(ms(t - 100), 1500, false);
                pie.on_dequeue(&p, ms(t), head, 150_000);
            }
        }
        let h = Head::new(ms(t), 1500, t % 3 == 0);
        let v = new.on_arrival(&p, ms(t), h, 100, 150_000, &mut rn);
        assert_eq!(
            old.on_enqueue(&p, ms(t), h, 100, 150_000, &mut ro),
            v,
            "t={t}"
        );
        assert_eq!(old, new, "t={t}");
        drops += u32::from(v == Verdict::Drop);
    }
    assert!(drops > 0);
    let h = Head::new(ms(2_000), 1500, false);
    assert_eq!(
        old.on_enqueue(&p, ms(2_000), h, p.limit, 0, &mut ro),
        Verdict::Drop
    );
}

#[test]
fn dualpi2_on_enqueue_is_on_arrival() {
    let p = DualPi2Profile::new(&DualPi2Config::rfc9332().with_limit(10_000, 1500)).unwrap();
    let mut old = DualPi2::new(&p, Instant::ZERO);
    let mut new = DualPi2::new(&p, Instant::ZERO);
    for (t, ecn, backlog) in [
        (1, Ecn::Ect1, 8_500),
        (2, Ecn::NotEct, 0),
        (3, Ecn::Ect0, 8_501),
    ] {
        let q = new.on_arrival(&p, ms(t), ecn, 64, backlog);
        assert_eq!(old.on_enqueue(&p, ms(t), ecn, 64, backlog), q);
        assert_eq!(q, (backlog <= 8_500).then(|| ecn.queue()));
        assert_eq!(old, new);
        assert_eq!(old.last_seen(), ms(t));
    }
}

#[test]
fn codel_bump_count_is_on_overflow() {
    for cfg in [CodelConfig::rfc8289(), CodelConfig::linux()] {
        let p = CodelProfile::new(&cfg).unwrap();
        let mut old = Codel::new(&p, ms(5));
        let mut new = Codel::new(&p, ms(5));
        old.bump_count(&p, 3);
        new.on_overflow(&p, ms(9), 3);
        assert_eq!((old.count(), new.count()), (3, 3));
        old.bump_count(&p, u32::MAX);
        new.on_overflow(&p, ms(9), u32::MAX);
        assert_eq!(old, new);
        // Saturating with the exact law, wrapping with Linux's; the clock is
        // not moved.
        let want = if cfg.control_law == crate::ControlLaw::Exact {
            u32::MAX
        } else {
            2
        };
        assert_eq!(new.count(), want);
        assert_eq!(new.last_seen(), ms(5));
    }
}
