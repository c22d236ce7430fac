//! The FIFO: order, tail drop, idle release, extreme inputs, the
//! single-instance wrappers, and the drain-time limit.

use super::*;

#[test]
fn fifo_order_and_no_loss_while_the_buffer_has_room() {
    let p = tr_profile();
    for seed in 0..pick(5, 1) as u64 {
        // Average input below MIR and a buffer large enough: nothing is lost.
        let trace = onoff_trace(seed, pick(5_000, 50), 50_000_000, 40);
        let (out, drops) = run_plain::<256>(&p, &trace);
        assert!(drops.is_empty(), "seed {seed}: {} drops", drops.len());
        assert_eq!(out.len(), trace.len());
        for (k, r) in out.iter().enumerate() {
            assert_eq!(r.pkt.id, k as u32, "FIFO order");
            assert!(r.at >= r.arrival);
        }
    }
}

#[test]
fn tail_drop_exactly_when_full() {
    let p = tr_profile(); // 64,000-byte buffer
    let mut s: Ras<u32, 4> = Ras::new(&p, Instant::ZERO);
    // Entries: the fifth packet is refused although bytes remain.
    for _ in 0..4 {
        assert_eq!(s.enqueue(&p, t(0), 100), Ok(()));
    }
    assert_eq!(s.enqueue(&p, t(0), 100), Err(100));
    assert_eq!(s.len(), 4);
    // Bytes: a packet that would pass 64,000 bytes is refused; one that fits is not.
    let mut s: Ras<u32, 64> = Ras::new(&p, Instant::ZERO);
    for _ in 0..42 {
        s.enqueue(&p, t(0), 1500).unwrap();
    }
    assert_eq!(s.bytes(), 63_000);
    assert_eq!(s.enqueue(&p, t(0), 1001), Err(1001));
    assert_eq!(s.enqueue(&p, t(0), 1000), Ok(()));
    assert_eq!(s.bytes(), 64_000);
    assert_eq!(s.enqueue(&p, t(0), 1), Err(1));
    // A zero-length descriptor still takes an entry.
    assert_eq!(s.enqueue(&p, t(0), 0), Ok(()));
    invariants::shaper_consistent(&p, &s).unwrap();
}

#[test]
fn an_idle_shaper_releases_at_once_and_spaces_the_next() {
    let p = tr_profile();
    let mut s: Ras<u32, 8> = Ras::new(&p, Instant::ZERO);
    s.enqueue(&p, t(1_000), 1500).unwrap();
    assert_eq!(s.next_release(), Some(t(1_000)));
    assert_eq!(s.dequeue(&p, t(999)), None);
    assert_eq!(s.dequeue(&p, t(1_000)), Some(1500));
    assert_eq!(s.next_release(), None);
    // A second packet right behind: spaced by 1500 B at max(EAR, CIR) = 2 Mbit/s,
    // 6 ms (the EAR of one packet over a long silence is tiny).
    s.enqueue(&p, t(2_000), 1500).unwrap();
    let r = s.next_release().unwrap().ticks();
    assert!((5_999_999..=6_001_001).contains(&r), "{r}");
}

#[test]
fn extreme_inputs_do_not_panic() {
    let p = tr_profile();
    let mp = trtcm_profile(3_000);
    let mut s: Ras<u32, 4> = Ras::new(&p, t(u64::MAX - 5));
    let mut g: GreenRas<u32, 4> = GreenRas::new(&p, t(u64::MAX - 5));
    let mut m = TrTcm::new(&mp, t(u64::MAX - 5));
    for (now, len) in [
        (u64::MAX, 0u32),
        (u64::MAX, u32::MAX),
        (3, 1500),
        (0, 64_000),
        (u64::MAX / 2, 1),
        (1, 1),
        (u64::MAX, 40),
    ] {
        let _ = s.enqueue(&p, t(now), len);
        let _ = s.dequeue(&p, t(now));
        let _ = g.enqueue(&p, &mp, &m, t(now), len);
        let _ = g.dequeue(&p, &mp, &mut m, t(now));
        invariants::shaper_consistent(&p, &s).unwrap();
        invariants::shaper_consistent(&p, g.ras()).unwrap();
    }
    // Drain whatever is left, whatever the clock says.
    for k in 0..64 {
        let now = t(k * (u64::MAX / 64));
        let _ = s.dequeue(&p, now);
        let _ = g.dequeue(&p, &mp, &mut m, now);
    }
}

#[test]
fn wrappers_agree_with_the_states() {
    // MeteredRasShaper = Ras + meter; GreenRasShaper = GreenRas + meter.
    let p = TrRasProfile::new(&tr_cfg()).unwrap();
    let mp = trtcm_profile(3_000);
    let trace = onoff_trace(900, pick(2_000, 40), 50_000_000, 40);
    let (plain, _) = run_plain::<256>(&p, &trace);
    let (green, _) = run_green::<TrTcm, 256>(&p, &mp, &trace);
    use crate::ShaperPair;
    let both = crate::ShaperMeterProfile::new(p, mp);
    let mut m: crate::MeteredRasShaper<Pkt, TrTcm, 256> =
        crate::MeteredRasShaper::new(both, Instant::ZERO);
    let mut g: crate::GreenRasShaper<Pkt, TrTcm, 256> =
        crate::GreenRasShaper::new(both, Instant::ZERO);
    let mut meter = TrTcm::new(&mp, Instant::ZERO);
    for (shaper, want, is_green) in [(0, &plain, false), (1, &green, true)] {
        let mut i = 0;
        let mut out = Vec::new();
        loop {
            let rel = if shaper == 0 {
                m.next_release()
            } else {
                g.next_release()
            };
            let arr = trace.get(i).map(|x| x.0);
            match (rel.map(|r| r.ticks()), arr) {
                (None, None) => break,
                (Some(r), a) if a.map_or(true, |a| r < a) => {
                    let (pkt, c) = if shaper == 0 {
                        m.dequeue(t(r)).unwrap()
                    } else {
                        g.dequeue(t(r)).unwrap()
                    };
                    out.push((r, pkt, c));
                }
                (_, Some(a)) => {
                    let _ = if shaper == 0 {
                        m.enqueue(t(a), trace[i].1)
                    } else {
                        g.enqueue(t(a), trace[i].1)
                    };
                    i += 1;
                }
                (Some(_), None) => unreachable!(),
            }
        }
        assert_eq!(out.len(), want.len());
        for ((r, pkt, c), w) in out.iter().zip(want.iter()) {
            assert_eq!((*r, *pkt), (w.at, w.pkt));
            if is_green {
                assert_eq!(Some(*c), w.color);
            } else {
                assert_eq!(*c, meter.color_blind(&mp, t(*r), pkt.len));
            }
        }
    }
}

/// Fuzz finding (ras_trras): with CIR 1 bit/s and a 3.2 GB buffer, packets
/// waited behind gaps of 2^62 ticks until the next release lay more than 2^63
/// ticks after a queued packet's arrival; the serial comparison then took the
/// arrival for the later instant and released that packet out of order. A
/// buffer that cannot drain at CIR within `MAX_DRAIN_TICKS` is now refused, and
/// at the limit a full buffer leaves in order.
#[test]
fn buffers_that_drain_too_slowly_are_refused_and_the_limit_stays_in_order() {
    use crate::{RasError, MAX_DRAIN_TICKS};
    let one_bit = Rate::from_bits_per_sec(1);
    let mut c = TrRasConfig::new(one_bit, one_bit, Rate::from_bits_per_sec(3_200_167_576), 0);
    c.buffer_bytes = 3_200_188_094;
    assert_eq!(TrRasProfile::new(&c), Err(RasError::DrainTooSlow));
    let sr = SrRasConfig::new(one_bit, Rate::from_mbps(1), 3_200_188_094);
    assert_eq!(SrRasProfile::new(&sr), Err(RasError::DrainTooSlow));
    // On a nanosecond clock with this line rate the profile counts rates in
    // 2^-41 byte per tick and rounds 1 bit/s (2^41 / 8e9 = 274.9 units) up to
    // 275, so a buffer drains within 2^61 ticks up to 275 x 2^20 bytes.
    c.buffer_bytes = 1;
    c.max_packet_bytes = 1;
    let small: RasProfile = TrRasProfile::new(&c).unwrap().into();
    assert_eq!((small.scale(), small.cir_units()), (41, 275));
    let max_buffer = 275 << 20;
    assert_eq!(max_buffer, ((MAX_DRAIN_TICKS as u128 * 275) >> 41) as u64);
    c.buffer_bytes = max_buffer + 1;
    assert_eq!(TrRasProfile::new(&c), Err(RasError::DrainTooSlow));
    c.buffer_bytes = max_buffer;
    let p: RasProfile = TrRasProfile::new(&c).unwrap().into();
    for start in [0, 5_714_873_652_877_459_456, u64::MAX - 1000] {
        let mut s: Ras<Pkt, 16> = Ras::new(&p, t(start));
        let each = (max_buffer / 16) as u32;
        for id in 0..16 {
            assert!(s.enqueue(&p, t(start), Pkt { len: each, id }).is_ok());
        }
        let mut last = None;
        let mut now = t(start);
        for id in 0..16 {
            let rel = s.next_release().unwrap();
            assert!(rel.ticks_since(now) < MAX_DRAIN_TICKS);
            now = rel;
            assert_eq!(s.dequeue(&p, now).map(|k| k.id), Some(id));
            assert_eq!(invariants::release_in_order(last, rel, now), Ok(()));
            last = Some(rel);
        }
        assert!(s.is_empty());
    }
}
