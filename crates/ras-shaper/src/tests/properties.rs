//! Property tests over the invariants, on random profiles and operations.

use super::*;

fn arb_profile() -> impl Strategy<Value = RasProfile> {
    (
        1u64..50_000_000,
        1u64..4,
        1u64..4,
        1u64..4,
        1_000u64..200_000,
        0u64..100,
        0u64..100,
        0u64..100,
        prop::bool::ANY,
        1_000u64..1_000_000_000,
        prop_oneof![Just(1_000_000_000u64), Just(2_300_000_000), Just(1_000_000)],
    )
        .prop_map(|(cir, pm, mm, lm, buf, a, b, c, two, k, hz)| {
            let tick = TickRate::from_hz(hz).unwrap();
            let pir = cir * pm;
            let mir = pir * mm;
            let line = mir * lm;
            let mut th = [buf * a / 100, buf * b / 100, buf * c / 100];
            th.sort_unstable();
            let k = core::time::Duration::from_nanos(k);
            if two {
                let mut c = TrRasConfig::new(
                    Rate::from_bits_per_sec(cir),
                    Rate::from_bits_per_sec(pir),
                    Rate::from_bits_per_sec(line),
                    buf,
                );
                c.mir = Some(Rate::from_bits_per_sec(mir));
                c.thresholds = Some(TrThresholds {
                    cir_th: th[0],
                    pir_th: th[1],
                    mir_th: th[2],
                });
                c.k = k;
                c.tick = tick;
                // Buffers from one byte: the largest packet fits.
                c.max_packet_bytes = buf.clamp(1, 1500) as u32;
                TrRasProfile::new(&c).unwrap().into()
            } else {
                let mut c = SrRasConfig::new(
                    Rate::from_bits_per_sec(cir),
                    Rate::from_bits_per_sec(line),
                    buf,
                );
                c.mir = Some(Rate::from_bits_per_sec(mir));
                c.thresholds = Some(SrThresholds {
                    cir_th: th[0],
                    mir_th: th[2],
                });
                c.k = k;
                c.tick = tick;
                c.max_packet_bytes = buf.clamp(1, 1500) as u32;
                SrRasProfile::new(&c).unwrap().into()
            }
        })
}

#[derive(Clone, Debug)]
enum Op {
    Enq(u64, u32),
    Deq(u64),
    DeqAtRelease,
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            (0u64..20_000_000, 0u32..3_000).prop_map(|(d, l)| Op::Enq(d, l)),
            (0u64..20_000_000).prop_map(Op::Deq),
            Just(Op::DeqAtRelease),
        ],
        // Generating a case costs as much as running it under Miri.
        1..pick(200, 16),
    )
}

proptest! {
    #[test]
    fn prop_plain_shaper_invariants(p in arb_profile(), ops in arb_ops(), occ in 0u64..300_000) {
        let mut s: Ras<Pkt, 16> = Ras::new(&p, Instant::ZERO);
        let mut now = 0u64;
        let mut next_id = 0u32;
        let mut expect_id = 0u32;
        let mut last: Option<Instant> = None;
        let mut last_len: Option<u32> = None;
        let mut dropped = 0u32;
        for op in ops {
            match op {
                Op::Enq(d, len) => {
                    now += d;
                    let room = s.len() < 16 && s.bytes() + len as u64 <= p.buffer_bytes();
                    let r = s.enqueue(&p, t(now), Pkt { len, id: next_id });
                    // No loss while the buffer has room; tail drop otherwise.
                    prop_assert_eq!(r.is_ok(), room);
                    if r.is_err() { dropped += 1; }
                    next_id += 1;
                }
                Op::Deq(d) => { now += d; }
                Op::DeqAtRelease => {
                    if let Some(r) = s.next_release() { now = now.max(r.ticks()); }
                }
            }
            while let Some(rel) = s.next_release() {
                if rel.ticks() > now { break; }
                let pkt = s.dequeue(&p, t(now)).unwrap();
                prop_assert!(invariants::release_in_order(last, rel, t(now)).is_ok());
                prop_assert_eq!(invariants::mir_spacing(&p, last.zip(last_len), rel), Ok(()));
                last = Some(rel);
                last_len = Some(pkt.len);
                // FIFO: ids come out in order, skipping only the dropped ones.
                prop_assert!(pkt.id >= expect_id && pkt.id - expect_id <= dropped);
                expect_id = pkt.id + 1;
            }
            prop_assert_eq!(invariants::shaper_consistent(&p, &s), Ok(()));
            prop_assert_eq!(invariants::rate_bounds(&p, s.ear(), s.bytes()), Ok(()));
            prop_assert_eq!(invariants::rate_bounds(&p, s.ear(), occ), Ok(()));
        }
    }

    /// Differential: the shaper with the precomputed CIR / MIR gaps against the
    /// same shaper computing every gap with the reciprocal, in lockstep (both see
    /// the same arrivals and release together): same packets, same drops, and
    /// schedules that differ only by the reciprocal's rounding.
    #[test]
    fn prop_const_gaps_match_the_reciprocal_path(p in arb_profile(), ops in arb_ops()) {
        let q = p.without_const_gaps();
        let mut a: Ras<Pkt, 16> = Ras::new(&p, Instant::ZERO);
        let mut b: Ras<Pkt, 16> = Ras::new(&p, Instant::ZERO);
        let mut now = 0u64;
        let mut id = 0u32;
        // Allowed difference of the schedules, in 2^-32 tick: 2^-30 of every gap
        // plus a few units, summed over the releases.
        let mut tol: u128 = 0;
        let q32 = |s: Schedule| ((s.at.ticks() as u128) << 32) | s.frac as u128;
        for op in ops {
            match op {
                Op::Enq(d, len) => {
                    now += d;
                    let ra = a.enqueue(&p, t(now), Pkt { len, id });
                    let rb = b.enqueue(&q, t(now), Pkt { len, id });
                    prop_assert_eq!(ra, rb);
                    id += 1;
                }
                Op::Deq(d) => now += d,
                Op::DeqAtRelease => {
                    if let Some(r) = a.next_release() { now = now.max(r.ticks()); }
                }
            }
            while let (Some(ra), Some(rb)) = (a.next_release(), b.next_release()) {
                prop_assert!(ra.ticks().abs_diff(rb.ticks()) <= 1, "{:?} {:?}", ra, rb);
                if ra.ticks().min(rb.ticks()) > now { break; }
                now = now.max(ra.ticks()).max(rb.ticks());
                let before = q32(b.head_schedule());
                let pa = a.dequeue(&p, t(now));
                let pb = b.dequeue(&q, t(now));
                prop_assert!(pa.is_some());
                prop_assert_eq!(pa, pb);
                let gap = q32(b.next_start()).saturating_sub(before);
                tol += (gap >> 30) + 4;
                let (sa, sb) = (q32(a.next_start()), q32(b.next_start()));
                prop_assert!(sa.abs_diff(sb) <= tol, "{} {} {}", sa, sb, tol);
            }
            prop_assert_eq!(a.len(), b.len());
            prop_assert_eq!(a.bytes(), b.bytes());
            prop_assert_eq!(a.ear(), b.ear());
            prop_assert_eq!(invariants::shaper_consistent(&p, &a), Ok(()));
            prop_assert_eq!(invariants::shaper_consistent(&q, &b), Ok(()));
        }
    }

    #[test]
    fn prop_green_shaper_invariants(p in arb_profile(), ops in arb_ops(), cbs in 1_000u64..20_000) {
        let mp = trtcm_profile(cbs);
        let mut m = TrTcm::new(&mp, Instant::ZERO);
        let mut g: GreenRas<u32, 16> = GreenRas::new(&p, Instant::ZERO);
        let mut now = 0u64;
        let mut last: Option<Instant> = None;
        let mut last_len: Option<u32> = None;
        for op in ops {
            match op {
                Op::Enq(d, len) => {
                    now += d;
                    let _ = g.enqueue(&p, &mp, &m, t(now), len);
                }
                Op::Deq(d) => { now += d; }
                Op::DeqAtRelease => {
                    if let Some(r) = g.next_release() { now = now.max(r.ticks()); }
                }
            }
            while let Some(rel) = g.next_release() {
                if rel.ticks() > now { break; }
                let at_t2 = g.head_at_t2();
                let (len, color) = g.dequeue(&p, &mp, &mut m, t(now)).unwrap();
                prop_assert_eq!(invariants::green_at_t2(at_t2, color), Ok(()));
                prop_assert!(invariants::release_in_order(last, rel, t(now)).is_ok());
                prop_assert_eq!(invariants::mir_spacing(&p, last.zip(last_len), rel), Ok(()));
                last = Some(rel);
                last_len = Some(len);
            }
            prop_assert_eq!(invariants::shaper_consistent(&p, g.ras()), Ok(()));
        }
    }
}
