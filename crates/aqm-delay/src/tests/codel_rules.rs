//! Each CoDel rule with hand-computed values.

use super::{ms, Queue};
use crate::{
    exact_spacing, linux_control_law, newton_step, Codel, CodelConfig, CodelProfile, ControlLaw,
    DelayError, Head, LinuxVariant, Verdict,
};
use core::time::Duration;
use netcond_core::{Instant, TickRate};

/// `d` ms before `t` ms (wrapping below zero: the serial clock reads it as
/// `d` ms before).
fn ago(t: u64, d: u64) -> Instant {
    Instant::from_ticks(ms(t).ticks().wrapping_sub(d * 1_000_000))
}

fn exact() -> CodelProfile {
    CodelProfile::new(&CodelConfig::rfc8289()).unwrap()
}

/// A standing queue: every ms one packet leaves after waiting 10 ms, with
/// 10 kB behind it. Returns the ms at which a packet was dropped (or marked).
fn standing_queue(p: &CodelProfile, ecn: bool, until_ms: u64) -> (Vec<u64>, Codel) {
    let mut c = Codel::new(p, Instant::ZERO);
    let mut signals = Vec::new();
    for t in 1..=until_ms {
        let h = Head::new(ago(t, 10), 1500, ecn);
        match c.on_dequeue(p, ms(t), h, 10_000) {
            Verdict::Deliver => {}
            Verdict::Mark => signals.push(t),
            Verdict::Drop => {
                signals.push(t);
                // The next head waited just as long: the loop goes on.
                let h2 = Head::new(ago(t, 10), 1500, ecn);
                assert_eq!(c.on_dequeue(p, ms(t), h2, 8_500), Verdict::Deliver, "t={t}");
            }
        }
    }
    (signals, c)
}

#[test]
fn exact_spacing_hand_values() {
    let i = 100_000_000; // 100 ms in ns
    assert_eq!(exact_spacing(i, 1), 100_000_000);
    assert_eq!(exact_spacing(i, 2), 70_710_678); // 1e8 / 1.41421356237...
    assert_eq!(exact_spacing(i, 3), 57_735_026);
    assert_eq!(exact_spacing(i, 4), 50_000_000);
    assert_eq!(exact_spacing(i, 5), 44_721_359);
    assert_eq!(exact_spacing(i, 7), 37_796_447);
    assert_eq!(exact_spacing(i, 100), 10_000_000);
    assert_eq!(exact_spacing(i, 0), 100_000_000, "count 0 reads as 1");
    assert_eq!(exact_spacing(1, u32::MAX), 0);
    assert_eq!(exact_spacing(1 << 57, 1), 1 << 57);
    assert_eq!(exact_spacing(1 << 62, 4), 1 << 61); // beyond what profiles accept: still exact
    assert_eq!(exact_spacing(u64::MAX, 1), u64::MAX);
    // Perfect squares and their neighbours: q^2 count <= I^2 < (q+1)^2 count.
    for (iv, c) in [(999_999_937u64, 3u32), (12_345, 17), (1 << 40, 1_000_003)] {
        let q = u128::from(exact_spacing(iv, c));
        let (i2, c) = (u128::from(iv) * u128::from(iv), u128::from(c));
        assert!(q * q * c <= i2 && (q + 1) * (q + 1) * c > i2);
    }
}

#[test]
fn linux_newton_and_law_hand_values() {
    // From 1/sqrt(1) = 0xFFFF, Linux's steps (x' = x (3 - c x^2) / 2 in Q0.32,
    // computed by hand with the kernel's shifts): a crude first step that
    // converges within a few counts.
    let mut r = 0xFFFF;
    let expect = [32769u16, 36864, 31968, 28935, 26481, 24588, 23037];
    for (c, want) in (2..=8).zip(expect) {
        r = newton_step(r, c);
        assert_eq!(r, want, "count {c}");
    }
    // 65536 / sqrt(8) = 23170.5: within 0.6 %.
    assert!((23_000..23_200).contains(&r));
    assert_eq!(newton_step(0, 1), 0);
    // 100 ms = 97656 units of 1024 ns; the law at count 1 gives one unit less.
    assert_eq!(linux_control_law(0, 97_656, 0xFFFF), 97_654);
    assert_eq!(
        linux_control_law(u32::MAX, 97_656, 0xFFFF),
        97_653,
        "wraps modulo 2^32"
    );
    let p = CodelProfile::new(&CodelConfig::linux()).unwrap();
    assert_eq!((p.target(), p.interval()), (4_882, 97_656));
}

#[test]
fn first_drop_after_an_interval_then_spacing_by_sqrt() {
    let p = exact();
    let (drops, c) = standing_queue(&p, false, 500);
    // First above target at 1 ms: first_above_time = 101 ms; the RFC drops
    // at now >= 101 ms. Then drop_next = 101 + 100 = 201, 201 + 70.710678 =
    // 271.710678 (drop at 272), + 57.735026 = 329.445704 (330), + 50 =
    // 379.445704 (380), + 44.721359 = 424.167063 (425), + 40.824829 =
    // 464.991892 (465).
    assert_eq!(drops, [101, 201, 272, 330, 380, 425, 465]);
    assert_eq!(c.count(), 7);
    assert_eq!(c.drop_next(), 464_991_892 + 37_796_447);
    assert!(c.dropping());
}

#[test]
fn linux_law_standing_queue() {
    // The same queue with Linux's arithmetic: times in 1024 ns units.
    let p = CodelProfile::new(&CodelConfig::linux()).unwrap();
    let (drops, c) = standing_queue(&p, false, 500);
    // 1 ms reads 976 units: first_above = 976 + 97656 = 98632. 101 ms reads
    // 98632 too, and Linux drops only when now is strictly after it: the first
    // drop is at 102 ms (99609 units).
    assert_eq!(drops[0], 102);
    // Entry: count 1, r = 0xFFFF: drop_next = 99609 + 97654 = 197263 units
    // (201.997 ms): the second drop at 202 ms, count 2, r = 32769: next
    // 197263 + floor(97656 * 32769 * 65536 / 2^32) = 197263 + 48829 = 246092
    // (251.998 ms, drop at 252).
    assert_eq!(&drops[..3], [102, 202, 252]);
    assert_eq!(c.count() as usize, drops.len());
}

#[test]
fn ecn_marks_instead_of_dropping() {
    let p = CodelProfile::new(&CodelConfig::rfc8289().with_ecn(true)).unwrap();
    let mut c = Codel::new(&p, Instant::ZERO);
    let mut marks = Vec::new();
    for t in 1..=500 {
        let h = Head::new(ago(t, 10), 1500, true);
        match c.on_dequeue(&p, ms(t), h, 10_000) {
            Verdict::Mark => marks.push(t),
            v => assert_eq!(v, Verdict::Deliver),
        }
    }
    // Marks take the drops' places: same times, same count.
    assert_eq!(marks, [101, 201, 272, 330, 380, 425, 465]);
    assert!(!c.in_drop_loop());
    // A not-ECT packet is still dropped with ECN on.
    let h = Head::new(ms(500), 1500, false);
    assert_eq!(c.on_dequeue(&p, ms(510), h, 10_000), Verdict::Drop);
    // A drop leaves the dequeue in the middle of its loop, until the next
    // head or the empty queue.
    assert!(c.in_drop_loop());
    c.on_queue_empty(&p, ms(510));
    assert!(!c.in_drop_loop());
    // And with ECN off an ECT packet is dropped.
    let (drops, _) = standing_queue(&exact(), true, 150);
    assert_eq!(drops, [101]);
}

#[test]
fn minimum_bytes_rule() {
    let p = exact();
    let mut c = Codel::new(&p, Instant::ZERO);
    // A second of 1 s sojourn times, but at most MAXPACKET (1500) behind.
    for t in 1..1000 {
        let h = Head::new(Instant::ZERO, 1500, false);
        assert_eq!(c.on_dequeue(&p, ms(t), h, 1500), Verdict::Deliver);
        assert_eq!(c.first_above_time(), None);
    }
    // One byte more and the interval starts.
    let h = Head::new(Instant::ZERO, 1500, false);
    assert_eq!(c.on_dequeue(&p, ms(1000), h, 1501), Verdict::Deliver);
    assert_eq!(c.first_above_time(), Some(ms(1100).ticks()));
    // ns-3's MinBytes reads "below": 1500 behind is enough there.
    let ns3 = CodelProfile::new(&CodelConfig::ns3()).unwrap();
    let mut c = Codel::new(&ns3, Instant::ZERO);
    let h = Head::new(Instant::ZERO, 1500, false);
    c.on_dequeue(&ns3, ms(100), h, 1500);
    assert!(c.first_above_time().is_some());
}

#[test]
fn below_target_leaves_dropping_state() {
    let p = exact();
    let (_, mut c) = standing_queue(&p, false, 300);
    assert!(c.dropping());
    // A packet that waited 4.999999 ms: below target.
    let h = Head::new(
        Instant::from_ticks(ms(301).ticks() - 4_999_999),
        1500,
        false,
    );
    assert_eq!(c.on_dequeue(&p, ms(301), h, 10_000), Verdict::Deliver);
    assert!(!c.dropping());
    assert_eq!(c.first_above_time(), None);
    // Exactly target counts as above (RFC 8289 s5.6: sojourn < TARGET is below).
    let h = Head::new(ms(297), 1500, false);
    c.on_dequeue(&p, ms(302), h, 10_000);
    assert_eq!(c.first_above_time(), Some(ms(402).ticks()));
}

#[test]
fn reentry_keeps_the_last_cycles_drop_count() {
    let p = exact();
    let (drops, mut c) = standing_queue(&p, false, 400);
    assert_eq!(drops.len(), 5); // count 5, lastcount 1, drop_next 424.167063 ms
    assert_eq!((c.count(), c.lastcount()), (5, 1));
    // Leave at 401 ms.
    let h = Head::new(ms(401), 1500, false);
    c.on_dequeue(&p, ms(401), h, 10_000);
    assert!(!c.dropping());
    // Above target again from 402 ms: entry at 502 ms, 77.8 ms after
    // drop_next, well within 16 intervals: count = 5 - 1 = 4, and the next
    // drop 100 / sqrt(4) = 50 ms later.
    let mut entered = None;
    for t in 402..=600 {
        let h = Head::new(ago(t, 10), 1500, false);
        if c.on_dequeue(&p, ms(t), h, 10_000) == Verdict::Drop {
            entered = Some(t);
            break;
        }
    }
    assert_eq!(entered, Some(502));
    assert_eq!((c.count(), c.lastcount()), (4, 4));
    assert_eq!(c.drop_next(), ms(552).ticks());
    // Without a further drop, leaving and re-entering gives delta = 0: count 1.
    let h = Head::new(ms(502), 1500, false);
    assert_eq!(c.on_dequeue(&p, ms(502), h, 10_000), Verdict::Deliver); // after the entry drop
    assert!(c.dropping());
    assert_eq!(c.on_dequeue(&p, ms(502), h, 10_000), Verdict::Deliver); // below target
    assert!(!c.dropping());
    let mut t = 503;
    while c.count() != 1 || !c.dropping() {
        let h = Head::new(ago(t, 10), 1500, false);
        if c.on_dequeue(&p, ms(t), h, 10_000) == Verdict::Drop {
            c.on_queue_empty(&p, ms(t));
        }
        t += 1;
        assert!(t < 1000);
    }
}

#[test]
fn reentry_after_sixteen_intervals_restarts_at_one() {
    let p = exact();
    let (_, mut c) = standing_queue(&p, false, 400);
    let h = Head::new(ms(401), 1500, false);
    c.on_dequeue(&p, ms(401), h, 10_000);
    // Above target again only at 2 s: entry at 2.1 s, 1676 ms after
    // drop_next (424.167063 ms) >= 1600 ms.
    let mut t = 2000;
    loop {
        let h = Head::new(ago(t, 10), 1500, false);
        if c.on_dequeue(&p, ms(t), h, 10_000) == Verdict::Drop {
            break;
        }
        t += 1;
    }
    assert_eq!(t, 2100);
    assert_eq!((c.count(), c.lastcount()), (1, 1));
    assert_eq!(c.drop_next(), ms(2200).ticks());
}

#[test]
fn empty_queue_rules() {
    let p = exact();
    let (_, mut c) = standing_queue(&p, false, 250);
    assert!(c.dropping());
    // A dequeue from an empty queue leaves the dropping state (and the RFC
    // forgets first_above_time).
    c.on_queue_empty(&p, ms(251));
    assert!(!c.dropping());
    assert_eq!(c.first_above_time(), None);
    // The entry drop empties the queue: still dropping afterwards (RFC 8289
    // s5.5 and Linux set dropping after the drop whatever follows).
    let mut c = Codel::new(&p, Instant::ZERO);
    for t in 1..=100 {
        c.on_dequeue(&p, ms(t), Head::new(ago(t, 10), 1500, false), 10_000);
    }
    assert_eq!(
        c.on_dequeue(&p, ms(101), Head::new(ms(91), 1500, false), 10_000),
        Verdict::Drop
    );
    c.on_queue_empty(&p, ms(101));
    assert!(c.dropping() && !c.in_drop_loop());
    c.on_queue_empty(&p, ms(102));
    assert!(!c.dropping());
}

#[test]
fn backlog_of_many_drops_at_once() {
    // Far behind schedule with every packet above target: the loop drops
    // packet after packet at one instant until drop_next passes now.
    let p = exact();
    let mut c = Codel::new(&p, Instant::ZERO);
    let mut q = Queue::default();
    // Under Miri, which interprets every instruction, one second behind
    // schedule instead of ten: the same loop, fewer drops.
    let (packets, until_ms, at_least) = if cfg!(miri) {
        (200, 1_000, 10)
    } else {
        (10_000, 10_000, 2000)
    };
    for _ in 0..packets {
        q.push(Head::new(Instant::ZERO, 1000, false));
    }
    let mut dropped = Vec::new();
    assert!(super::codel_dequeue(&mut c, &p, ms(50), &mut q, &mut dropped).is_some());
    assert!(super::codel_dequeue(&mut c, &p, ms(150), &mut q, &mut dropped).is_some());
    assert_eq!(dropped.len(), 1, "the entry drop");
    // At 10 s (1 s under Miri), drop_next (250 ms) is far behind: drop while
    // 250 + sum 100/sqrt(k) <= 10000 ms, i.e. up to the count whose next
    // time passes 10 s.
    let before = dropped.len();
    super::codel_dequeue(&mut c, &p, ms(until_ms), &mut q, &mut dropped);
    let n = dropped.len() - before;
    let mut t = 250_000_000u64;
    let mut k = 1u32;
    let mut expect = 0;
    while t <= until_ms * 1_000_000 {
        k += 1;
        expect += 1;
        t += exact_spacing(100_000_000, k);
    }
    assert_eq!(n, expect);
    assert!(n > at_least, "{n}");
}

#[test]
fn configuration_rules() {
    let base = CodelConfig::rfc8289();
    assert_eq!(
        CodelProfile::new(&base.with_target(Duration::ZERO)),
        Err(DelayError::ZeroTarget)
    );
    assert_eq!(
        CodelProfile::new(&base.with_interval(Duration::from_nanos(0))),
        Err(DelayError::ZeroInterval)
    );
    assert_eq!(
        CodelProfile::new(&base.with_target(Duration::from_millis(100))),
        Err(DelayError::TargetNotBelowInterval)
    );
    // Millisecond ticks: 0.5 ms is no tick.
    let coarse = base.with_tick(TickRate::MILLIS);
    assert_eq!(
        CodelProfile::new(&coarse.with_target(Duration::from_micros(500))),
        Err(DelayError::ZeroTarget)
    );
    assert_eq!(
        CodelProfile::new(&base.with_interval(Duration::from_secs(u64::MAX))),
        Err(DelayError::IntervalTooLong)
    );
    // The longest durations on the fastest clock: no overflow in the
    // conversion (it saturates past the longest interval).
    let fastest = base.with_tick(TickRate::from_hz(u64::MAX).unwrap());
    assert_eq!(
        CodelProfile::new(&fastest.with_interval(Duration::MAX)),
        Err(DelayError::IntervalTooLong)
    );
    assert_eq!(
        CodelProfile::new(
            &fastest
                .with_interval(Duration::from_nanos(1))
                .with_target(Duration::MAX)
        ),
        Err(DelayError::TargetNotBelowInterval)
    );
    // The Linux law: below 1024 ns is zero units; 2^31 units is too long.
    let lx = CodelConfig::linux();
    assert_eq!(
        CodelProfile::new(&lx.with_target(Duration::from_nanos(1023))),
        Err(DelayError::ZeroTarget)
    );
    assert_eq!(
        CodelProfile::new(&lx.with_interval(Duration::from_nanos((1u64 << 31) << 10))),
        Err(DelayError::IntervalTooLong)
    );
    assert!(
        CodelProfile::new(&lx.with_interval(Duration::from_nanos(((1u64 << 31) - 1) << 10)))
            .is_ok()
    );
    assert!(DelayError::TargetNotBelowInterval
        .to_string()
        .contains("RFC 8289 section 4.5"));
    let p = CodelProfile::new(&base.with_tick(TickRate::MICROS)).unwrap();
    assert_eq!((p.target(), p.interval()), (5_000, 100_000));
    assert_eq!(p.control_law(), ControlLaw::Exact);
    assert_eq!(
        CodelProfile::new(&CodelConfig::ns3())
            .unwrap()
            .linux_variant(),
        LinuxVariant::Ns3
    );
}

#[test]
fn other_tick_rates_agree_with_nanoseconds() {
    // The same microsecond-grained stream on a microsecond and a nanosecond
    // clock gives the same decisions with both laws.
    // (The exact law floors in each clock's own units, so its drop times differ
    // below a microsecond between the two clocks; the Linux law works in
    // nanoseconds >> 10 on both.)
    for cfg in [CodelConfig::linux(), CodelConfig::ns3()] {
        let mut drops = 0;
        let pn = CodelProfile::new(&cfg).unwrap();
        let pu = CodelProfile::new(&cfg.with_tick(TickRate::MICROS)).unwrap();
        let (mut a, mut b) = (
            Codel::new(&pn, Instant::ZERO),
            Codel::new(&pu, Instant::ZERO),
        );
        // Every 700 us from 20.3 ms to 2 s (to 0.6 s under Miri).
        let end = if cfg!(miri) { 600_000 } else { 2_000_000u64 };
        for us in (20_300..end).step_by(700) {
            let wait = 6_000 + (us * 7919) % 6_000;
            let (tn, en) = (
                Instant::from_ticks(us * 1000),
                Instant::from_ticks((us - wait) * 1000),
            );
            let (tu, eu) = (Instant::from_ticks(us), Instant::from_ticks(us - wait));
            let va = a.on_dequeue(&pn, tn, Head::new(en, 1500, false), 20_000);
            let vb = b.on_dequeue(&pu, tu, Head::new(eu, 1500, false), 20_000);
            assert_eq!(va, vb, "{cfg:?} at {us} us");
            drops += u32::from(va == Verdict::Drop);
        }
        assert!(drops > if cfg!(miri) { 2 } else { 10 }, "{drops}");
    }
    // A 3 GHz cycle counter with the Linux law converts exactly to ns >> 10.
    let p = CodelProfile::new(
        &CodelConfig::linux().with_tick(TickRate::from_hz(3_000_000_000).unwrap()),
    )
    .unwrap();
    assert_eq!(p.codel_time(Instant::from_ticks(3_072)), 1);
    assert_eq!(p.codel_time(Instant::from_ticks(3_071)), 0);
}

#[test]
fn total_for_extreme_inputs() {
    for cfg in [
        CodelConfig::rfc8289().with_ecn(true),
        CodelConfig::linux(),
        CodelConfig::ns3(),
    ] {
        let p = CodelProfile::new(&cfg).unwrap();
        let mut c = Codel::new(&p, Instant::from_ticks(u64::MAX));
        for (now, enq, len, backlog) in [
            (u64::MAX, 0, 0, u64::MAX),
            (0, u64::MAX, u32::MAX, 0),
            (u64::MAX / 2, 1, 1, u64::MAX),
            (u64::MAX, u64::MAX, 0, 1 << 40),
            (1 << 63, 0, 1500, u64::MAX),
        ] {
            for _ in 0..3 {
                let _ = c.on_dequeue(
                    &p,
                    Instant::from_ticks(now),
                    Head::new(Instant::from_ticks(enq), len, true),
                    backlog,
                );
                crate::invariants::check_codel(&c, &p).unwrap();
            }
            c.on_queue_empty(&p, Instant::from_ticks(now));
        }
        c.on_overflow(&p, Instant::ZERO, u32::MAX);
        c.on_overflow(&p, Instant::ZERO, u32::MAX);
        let _ = c.on_dequeue(
            &p,
            Instant::from_ticks(7),
            Head::new(Instant::ZERO, 1, false),
            1 << 20,
        );
    }
}

#[test]
fn state_sizes() {
    assert_eq!(core::mem::size_of::<Codel>(), 40);
    assert_eq!(
        core::mem::size_of::<crate::drr::FlowQueue<crate::Codel>>(),
        64
    );
    assert_eq!(core::mem::size_of::<crate::Pie>(), 96);
    assert_eq!(core::mem::size_of::<crate::DualPi2>(), 56);
    assert_eq!(
        core::mem::size_of::<crate::drr::FlowQueue<crate::Pie>>(),
        120
    );
}

#[test]
fn ns3_and_kernel_differ_where_their_sources_do() {
    // The Linux law with ECN on a standing queue (10 ms sojourn, a dequeue per
    // ms from 11 ms). Both see the delay above target from 11 ms (10742 units:
    // first_above 108398), enter at 112 ms (109375 units) with drop_next
    // 109375 + 97654 = 207029, and mark again at 212 ms (207031 units), count 2,
    // r = 32769, spacing 48829. The kernel schedules the next mark from
    // drop_next (255858: 262 ms reads 255859); ns-3 from now (255860: 262 ms is
    // too early, 263 ms reads 256835).
    let marks = |cfg: CodelConfig| {
        let p = CodelProfile::new(&cfg.with_ecn(true)).unwrap();
        let mut c = Codel::new(&p, Instant::ZERO);
        let mut at = Vec::new();
        for t in 11..=270 {
            if c.on_dequeue(&p, ms(t), Head::new(ms(t - 10), 1500, true), 10_000) == Verdict::Mark {
                at.push(t);
            }
        }
        (at, c.drop_next())
    };
    // At the third mark, count 3: r = newton(32769, 3) = 36864, spacing
    // floor(97656 * 36864 / 65536) = 54931, from drop_next (kernel) or now (ns-3).
    assert_eq!(newton_step(32_769, 3), 36_864);
    assert_eq!(
        marks(CodelConfig::linux()),
        (vec![112, 212, 262], 255_858 + 54_931)
    );
    assert_eq!(
        marks(CodelConfig::ns3()),
        (vec![112, 212, 263], 256_835 + 54_931)
    );
}

/// With the exact law, a stored instant (here `drop_next`) is moved up to
/// 2^62 ticks behind the clock only once it is more than 2^62 behind: not at
/// 2^62 - 1 or 2^62, and to exactly 2^62 behind at 2^62 + 1 and beyond. Under
/// the Linux law the u32 times are never moved.
#[test]
fn stale_instants_move_up_past_2_62_behind() {
    let p = exact();
    let mut c = Codel::new(&p, Instant::ZERO);
    assert_eq!(c.drop_next(), 0);
    c.on_queue_empty(&p, Instant::from_ticks((1 << 62) - 1));
    assert_eq!(c.drop_next(), 0);
    c.on_queue_empty(&p, Instant::from_ticks(1 << 62));
    assert_eq!(c.drop_next(), 0);
    c.on_queue_empty(&p, Instant::from_ticks((1 << 62) + 1));
    assert_eq!(c.drop_next(), 1);
    c.on_queue_empty(&p, Instant::from_ticks((1 << 62) + 1000));
    assert_eq!(c.drop_next(), 1000);
    let l = CodelProfile::new(&CodelConfig::linux()).unwrap();
    let mut c = Codel::new(&l, Instant::ZERO);
    c.on_queue_empty(&l, Instant::from_ticks((1 << 62) + 1));
    assert_eq!(c.drop_next(), 0);
}

/// The three presets hold their sources' defaults, field by field (RFC 8289;
/// Linux `sch_codel`; ns-3 `CoDelQueueDisc`), each also through its profile.
#[test]
fn presets_hold_their_sources_defaults() {
    let cases = [
        (
            CodelConfig::rfc8289(),
            1500,
            ControlLaw::Exact,
            LinuxVariant::Kernel,
        ),
        (
            CodelConfig::linux(),
            1514,
            ControlLaw::Linux,
            LinuxVariant::Kernel,
        ),
        (
            CodelConfig::ns3(),
            1500,
            ControlLaw::Linux,
            LinuxVariant::Ns3,
        ),
    ];
    for (cfg, mtu, law, variant) in cases {
        assert_eq!(cfg.target, Duration::from_millis(5));
        assert_eq!(cfg.interval, Duration::from_millis(100));
        assert_eq!((cfg.mtu, cfg.ecn, cfg.tick), (mtu, false, TickRate::NANOS));
        assert_eq!((cfg.control_law, cfg.linux_variant), (law, variant));
        let p = CodelProfile::new(&cfg).unwrap();
        assert_eq!((p.mtu(), p.ecn()), (mtu, false));
        assert_eq!((p.control_law(), p.linux_variant()), (law, variant));
    }
    assert_eq!(CodelConfig::default(), CodelConfig::rfc8289());
}
