//! The short paths against the general path: fixed and random
//! configurations, the benchmark's stream, max_p = 1, DPDK's law's shift,
//! when the short path applies, and its forced region.

use super::*;

/// The short path of the default spreading against the general path: byte
/// mode with every packet at the maximum size scales nothing but forces the
/// general path; the decisions and states must be identical.
#[test]
fn short_path_equals_general_path() {
    let mut fast = cfg(32, 128, 0.1, 1.0 / 512.0, 256);
    fast.queue.gentle = true;
    let mut general = fast;
    general.queue.byte_mode = Some(1500);
    let (pf, pg) = (
        RedProfile::new(&fast).unwrap(),
        RedProfile::new(&general).unwrap(),
    );
    assert!(pf.common.fast && !pg.common.fast);
    let (mut a, mut b) = (Red::new(&pf, Instant::ZERO), Red::new(&pg, Instant::ZERO));
    let (mut ra, mut rb) = (SplitMix64::new(4), SplitMix64::new(4));
    let mut qs = SplitMix64::new(5);
    let mut q = 100i64;
    let mut drops = 0;
    // Miri interprets every instruction: a short walk there.
    let (n, min_drops) = if cfg!(miri) {
        (400, 3)
    } else {
        (500_000u64, 1000)
    };
    for i in 0..n {
        q = (q + i64::from(qs.below(7)) - 3).clamp(0, 255);
        if q == 0 {
            a.on_queue_empty(&pf, t(i * 100));
            b.on_queue_empty(&pg, t(i * 100));
        }
        let pkt = Packet::not_ect(1500);
        let da = a.on_arrival(&pf, t(i * 100 + 50), q as u32, pkt, &mut ra);
        let db = b.on_arrival(&pg, t(i * 100 + 50), q as u32, pkt, &mut rb);
        assert_eq!((da, a), (db, b), "step {i}");
        drops += u32::from(da.is_drop());
    }
    assert!(drops > min_drops);
}

/// One step of the queue-length walk of the differential tests: steps of
/// -3..=3, and now and then a jump anywhere in `0..=limit + 2` (an empty
/// queue, an arrival that does not fit).
fn walk(r: &mut SplitMix64, q: &mut i64, limit: u32) -> u32 {
    let hi = i64::from(limit) + 2;
    *q = match r.below(64) {
        0 => i64::from(r.below(limit.saturating_add(3))),
        1 => 0,
        _ => (*q + i64::from(r.below(7)) - 3).clamp(0, hi),
    };
    *q as u32
}

/// Drives two copies of a queue with the same arrivals, one by `on_arrival`
/// (short paths included) and one by the general path alone, and checks that
/// the decisions, the states and the random streams stay identical.
fn red_paths_agree(c: &RedConfig, seed: u64, steps: u32) -> Result<(), TestCaseError> {
    let p = RedProfile::new(c).unwrap();
    let (mut a, mut b) = (Red::new(&p, Instant::ZERO), Red::new(&p, Instant::ZERO));
    let (mut ra, mut rb) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let mut r = SplitMix64::new(seed ^ 0x5555);
    let mut q = i64::from(r.below(p.limit().saturating_add(1)));
    let mut now = 0u64;
    for i in 0..steps {
        now += u64::from(r.below(2000));
        if r.below(128) == 0 {
            a.on_queue_empty(&p, t(now));
            b.on_queue_empty(&p, t(now));
            now += u64::from(r.below(100_000));
        }
        let len = walk(&mut r, &mut q, p.limit());
        let pkt = Packet::new(r.below(3000), Ecn::from_bits(r.below(4) as u8));
        let da = a.on_arrival(&p, t(now), len, pkt, &mut ra);
        let db = b.on_arrival(&p.general_path_only(), t(now), len, pkt, &mut rb);
        prop_assert_eq!((da, a, ra), (db, b, rb), "step {} of {:?}", i, c);
    }
    Ok(())
}

/// Configurations the short paths apply to about half of the time: packets,
/// `w_q = 2^-n`.
fn arb_short_config() -> impl Strategy<Value = RedConfig> {
    (
        arb_config(),
        0u32..=14,
        any::<bool>(),
        any::<bool>(),
        0u8..10,
    )
        .prop_map(|(mut c, n, pow2, packets, s)| {
            if pow2 {
                c.queue.w_q = U32F32::from_bits(1u64 << (32 - n));
            }
            if packets {
                c.queue.unit = QueueUnit::Packets;
                c.queue.byte_mode = None;
            }
            // The budget spreadings (the short decision path) most often.
            let i = (s as usize).saturating_sub(4);
            c.queue.spreading = ALL_SPREADINGS[if i == 0 { s as usize % 2 } else { i }];
            c
        })
}

proptest! {
    // 300 cases of 3000 packets natively; under Miri, which interprets every
    // instruction, the default configuration, which honours PROPTEST_CASES,
    // and 100 packets.
    #![proptest_config(if cfg!(miri) { ProptestConfig::default() } else { ProptestConfig::with_cases(300) })]

    #[test]
    fn short_paths_equal_the_general_path(c in arb_short_config(), seed in any::<u64>()) {
        red_paths_agree(&c, seed, if cfg!(miri) { 100 } else { 3000 })?;
    }
}

/// The differential test on fixed configurations, with many packets: the
/// benchmark's (w_q = 2^-9, thresholds 32 and 128 of 256, ECN or not, every
/// spreading), the AECN slides' (w_q = 0.001: the general EWMA with the short
/// decision), gentle, bytes, byte mode, and a weight of one.
#[test]
fn short_paths_equal_the_general_path_at_length() {
    let mut configs = Vec::new();
    for s in ALL_SPREADINGS {
        for ecn in [false, true] {
            let mut c = cfg(32, 128, 0.1, 1.0 / 512.0, 256);
            c.queue.spreading = s;
            c.queue.ecn = ecn;
            c.queue.ecn_drop_th = if ecn { Some(128) } else { None };
            c.queue.typical_tx = core::time::Duration::from_nanos(1200);
            configs.push(c);
        }
    }
    let mut g = cfg(5, 15, 0.3, 1.0 / 16.0, 40);
    g.queue.gentle = true;
    configs.push(g);
    configs.push(zheng_kinicki_router());
    let mut bytes = cfg(20_000, 60_000, 0.2, 1.0 / 256.0, 100_000);
    bytes.queue.unit = QueueUnit::Bytes;
    configs.push(bytes);
    let mut bm = cfg(10, 40, 0.25, 1.0 / 64.0, 64);
    bm.queue.byte_mode = Some(1500);
    configs.push(bm);
    configs.push(cfg(3, 9, 0.5, 1.0, 12));
    // Miri interprets every instruction: a short walk there.
    let steps = if cfg!(miri) { 100 } else { 200_000 };
    for (k, c) in configs.iter().enumerate() {
        red_paths_agree(c, k as u64, steps).unwrap();
    }
}

/// The benchmark's stream (a triangle wave 20..140 packets, one step every
/// 1024 packets, arrivals 100 ticks apart), one full period: the short paths
/// against the general path. Under Miri, which interprets every instruction,
/// one step every 2 packets: the average lags far behind the queue and the
/// ECN run marks but does not drop, so there the test counts the packets
/// dropped or marked (more than two per run; more than one with DPDK's law,
/// which picks about half as many).
#[test]
fn short_paths_equal_the_general_path_on_the_bench_stream() {
    let (per_step, least) = if cfg!(miri) { (2, 2) } else { (1024, 10_000) };
    for (ecn, s) in [
        (false, Spreading::Accumulated),
        (true, Spreading::Accumulated),
        (false, Spreading::AccumulatedDpdk),
        (true, Spreading::AccumulatedDpdk),
        (false, Spreading::Uniform),
    ] {
        let mut c = cfg(32, 128, 0.1, 1.0 / 512.0, 256);
        c.queue.spreading = s;
        c.queue.ecn = ecn;
        c.queue.ecn_drop_th = if ecn { Some(128) } else { None };
        c.queue.typical_tx = core::time::Duration::from_nanos(1200);
        let p = RedProfile::new(&c).unwrap();
        assert!(p.fast.short(20) && p.fast.short(140));
        let pkt = Packet::new(1500, if ecn { Ecn::Ect0 } else { Ecn::NotEct });
        let (mut a, mut b) = (Red::new(&p, Instant::ZERO), Red::new(&p, Instant::ZERO));
        let (mut ra, mut rb) = (SplitMix64::new(1), SplitMix64::new(1));
        let (mut q, mut up, mut now) = (20u32, true, 0u64);
        let mut drops = 0u32;
        for _ in 0..240 {
            for _ in 0..per_step {
                now += 100;
                let da = a.on_arrival(&p, t(now), q, pkt, &mut ra);
                let db = b.on_arrival(&p.general_path_only(), t(now), q, pkt, &mut rb);
                assert_eq!((da, a, ra), (db, b, rb));
                let counted = if cfg!(miri) {
                    da != Decision::Enqueue
                } else {
                    da.is_drop()
                };
                drops += u32::from(counted);
            }
            crate::triangle_step(&mut q, &mut up);
        }
        // DPDK's law picks about half as many packets as the default.
        let least = if s == Spreading::AccumulatedDpdk {
            least / 2
        } else {
            least
        };
        assert!(drops > least, "{s:?}: {drops}");
    }
}

/// The short path compares p_b with the budget in 32 bits: p_b stays below
/// 2^32 up to max_th even at max_p = 1, where it comes closest. With w_q = 1
/// the average is the queue, held just below max_th and across it.
#[test]
fn short_path_at_max_p_one_equals_general_path() {
    for (gentle, s) in [
        (false, Spreading::Accumulated),
        (true, Spreading::Accumulated),
        (false, Spreading::AccumulatedDpdk),
        (true, Spreading::AccumulatedDpdk),
    ] {
        let mut c = cfg(32, 128, 1.0, 1.0, 256);
        c.queue.gentle = gentle;
        c.queue.spreading = s;
        let p = RedProfile::new(&c).unwrap();
        assert_eq!(p.max_p(), U32F32::ONE);
        assert!(p.fast.short(127));
        let pkt = Packet::not_ect(1500);
        let (mut a, mut b) = (Red::new(&p, Instant::ZERO), Red::new(&p, Instant::ZERO));
        let (mut ra, mut rb) = (SplitMix64::new(7), SplitMix64::new(7));
        let mut early = 0u32;
        for i in 0..20_000u64 {
            let q = 120 + (i % 10) as u32; // 120..=129
            let da = a.on_arrival(&p, t(i * 100), q, pkt, &mut ra);
            let db = b.on_arrival(&p.general_path_only(), t(i * 100), q, pkt, &mut rb);
            assert_eq!((da, a, ra), (db, b, rb), "packet {i}, queue {q}");
            early += u32::from(da == Decision::DropEarly);
        }
        assert!(early > 1000, "{s:?}: {early}");
    }
}

/// `AccumulatedDpdk`'s short path shifts by one more than p_b's segment
/// (`fast_sh = seg[0].sh + 1`, at most 63 as segments stop at 62), with the
/// default's instructions; the general path halves by `Spread::k_shift`.
/// Checked at the steepest and the flattest first segments (max_p = 1 over a
/// short range; max_p = 2^-32 over a long one, where p_b is 0 throughout).
#[test]
fn dpdk_law_short_path_shift() {
    for (min_th, max_th, max_p, limit) in [
        (32u32, 128u32, U32F32::from_num(0.1), 256u32),
        (1, 2, U32F32::ONE, 2),
        (0, 1 << 20, U32F32::from_bits(1), 1 << 20),
        (0, 1, U32F32::from_bits(1), 1),
    ] {
        let mut c = RedConfig::packets(min_th, max_th, max_p, U32F32::from_num(0.25), limit);
        let acc = RedProfile::new(&c).unwrap();
        c.queue.spreading = Spreading::AccumulatedDpdk;
        let p = RedProfile::new(&c).unwrap();
        assert!(p.common.fast && p.common.spread.halves() && !acc.common.spread.halves());
        assert_eq!(p.curve.seg, acc.curve.seg);
        assert!(p.curve.seg[0].sh <= 62 && p.curve.seg[1].sh <= 62);
        assert_eq!(acc.curve.fast_sh, acc.curve.seg[0].sh);
        assert_eq!(p.curve.fast_sh, p.curve.seg[0].sh + 1);
        // The short path's p against the general path's p_b >> 1 over the
        // whole first region (every average when it is short, else a stride).
        let (lo, hi) = (p.curve.min_fx, p.curve.max_fx);
        let step = ((hi - u64::from(lo)) / 10_000).max(1);
        let mut avg = u64::from(lo);
        while avg < hi {
            let a = avg as u32;
            let s = &p.curve.seg[0];
            let short = (u64::from(a - lo) * s.slope) >> p.curve.fast_sh;
            assert_eq!(short, s.at(a) >> 1, "{c:?} avg {a}");
            avg += step;
        }
        // And the decisions, states and draws, the average held in the region.
        let (mut x, mut y) = (Red::new(&p, Instant::ZERO), Red::new(&p, Instant::ZERO));
        let (mut rx, mut ry) = (SplitMix64::new(3), SplitMix64::new(3));
        let mut r = SplitMix64::new(4);
        let steps = if cfg!(miri) { 200 } else { 20_000 };
        for i in 0..steps {
            // In 1..limit where the buffer allows (else 0: the long path).
            let q = (min_th + r.below(max_th - min_th + 1)).clamp(1, limit.max(2) - 1);
            let q = if limit > 1 { q } else { 0 };
            let pkt = Packet::not_ect(1500);
            let dx = x.on_arrival(&p, t(i * 100), q, pkt, &mut rx);
            let dy = y.on_arrival(&p.general_path_only(), t(i * 100), q, pkt, &mut ry);
            assert_eq!((dx, x, rx), (dy, y, ry), "step {i} of {c:?}");
        }
    }
}

#[test]
fn short_path_conditions() {
    let p = RedProfile::new(&cfg(32, 128, 0.1, 1.0 / 512.0, 256)).unwrap();
    let c = &p.fast;
    assert!(!c.short(0) && c.short(1) && c.short(255) && !c.short(256) && !c.short(u32::MAX));
    // Not a power of two, or in bytes: never.
    let p = RedProfile::new(&zheng_kinicki_router()).unwrap();
    assert!(!p.fast.short(20));
    let mut b = cfg(100, 200, 0.1, 1.0 / 512.0, 1000);
    b.queue.unit = QueueUnit::Bytes;
    assert!(!RedProfile::new(&b).unwrap().fast.short(500));
    // w_q = 2^-n needs n <= frac: 2^-9 with a limit of 2^23 packets has
    // frac = 8, not enough.
    let p = RedProfile::new(&cfg(32, 128, 0.1, 1.0 / 512.0, 1 << 23)).unwrap();
    assert!(p.common.avg.frac == 8 && !p.fast.short(20));
    let p = RedProfile::new(&cfg(32, 128, 0.1, 1.0 / 256.0, 1 << 23)).unwrap();
    assert!(p.fast.short(20));
}

/// The short path's forced region (`avg >= top_fx`, tested before the early
/// region's other tests) against the general path: classic and gentle, with
/// and without ECN and its hard threshold, the queue held in and around the
/// forced region so that forced drops, marks and early decisions alternate.
#[test]
fn forced_short_path_equals_general_path() {
    let steps = if cfg!(miri) { 300 } else { 20_000 };
    for (gentle, ecn, hard) in [
        (false, false, None),
        (true, false, None),
        (false, true, None),
        (false, true, None),
        (true, true, Some(35)),
    ] {
        let mut c = cfg(10, 20, 0.1, 1.0 / 4.0, 100);
        c.queue.gentle = gentle;
        c.queue.ecn = ecn;
        c.queue.ecn_drop_th = hard;
        let p = RedProfile::new(&c).unwrap();
        assert!(p.common.fast);
        let (mut a, mut b) = (Red::new(&p, Instant::ZERO), Red::new(&p, Instant::ZERO));
        let (mut ra, mut rb) = (SplitMix64::new(8), SplitMix64::new(8));
        let mut r = SplitMix64::new(9);
        let mut forced = 0u32;
        for i in 0..steps {
            // Mostly at or above the top of the curve (20, or 40 when gentle).
            let q = 15 + r.below(60);
            let pkt = Packet::new(1500, Ecn::from_bits(r.below(4) as u8));
            let da = a.on_arrival(&p, t(i * 100), q, pkt, &mut ra);
            let db = b.on_arrival(&p.general_path_only(), t(i * 100), q, pkt, &mut rb);
            assert_eq!((da, a, ra), (db, b, rb), "step {i} of {c:?}");
            forced += u32::from(da == Decision::DropForced);
        }
        assert!(
            forced > steps as u32 / 20,
            "{gentle} {ecn} {hard:?}: {forced}"
        );
    }
}
