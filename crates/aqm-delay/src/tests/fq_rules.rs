//! FQ-CoDel rules with hand-computed values.

use super::{fq_dequeue, ms, Store};
use crate::reference::FlowFifos;
use crate::{
    CodelConfig, DelayError, Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, Head, OverflowDrop,
    Verdict,
};
use netcond_core::Instant;

fn profile(quantum: u32, limit: u32, overflow: OverflowDrop) -> FqCodelProfile {
    FqCodelProfile::new(
        &FqCodelConfig::rfc8290()
            .with_quantum(quantum)
            .with_limit(limit)
            .with_overflow(overflow),
    )
    .unwrap()
}

fn push<const N: usize>(
    fq: &mut FqCodel<N>,
    p: &FqCodelProfile,
    s: &mut Store<N>,
    f: usize,
    len: u32,
    t: Instant,
) -> Enqueued {
    s.push(f, Head::new(t, len, false));
    fq.enqueue(p, t, f, len, |v| s.pop(v).map(|h| h.len))
}

#[test]
fn drr_shares_bytes_by_quantum() {
    // Quantum 1000: flow 0 sends 1000-byte packets, flow 1 250-byte packets.
    // Per round each sends a quantum: 1 packet of flow 0 for 4 of flow 1.
    let p = profile(1000, 10_000, OverflowDrop::Single);
    let mut fq: FqCodel<2> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<2>::new();
    for _ in 0..40 {
        push(&mut fq, &p, &mut s, 0, 1000, Instant::ZERO);
    }
    for _ in 0..160 {
        push(&mut fq, &p, &mut s, 1, 250, Instant::ZERO);
    }
    let mut bytes = [0u64; 2];
    let mut dropped = Vec::new();
    for _ in 0..100 {
        let (f, h, _) = fq_dequeue(&mut fq, &p, Instant::ZERO, &mut s, &mut dropped).unwrap();
        bytes[f] += u64::from(h.len);
    }
    // 100 packets = 20 rounds of 1 + 4.
    assert_eq!(bytes, [20_000, 20_000]);
    assert!(dropped.is_empty());
    crate::invariants::check_fq_codel(&fq, &p).unwrap();
}

#[test]
fn new_flows_go_first_and_empty_new_flows_visit_old_list() {
    let p = profile(1500, 10_000, OverflowDrop::Single);
    let mut fq: FqCodel<8> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<8>::new();
    let mut dropped = Vec::new();
    for _ in 0..3 {
        push(&mut fq, &p, &mut s, 5, 1500, Instant::ZERO);
    }
    // Flow 5 sends one packet, spends its quantum, and is moved to the old list.
    assert_eq!(
        fq_dequeue(&mut fq, &p, Instant::ZERO, &mut s, &mut dropped)
            .unwrap()
            .0,
        5
    );
    assert!(fq.is_new(5));
    assert_eq!(fq.deficit(5), 0);
    // A sparse flow arrives: it is new and goes before flow 5.
    push(&mut fq, &p, &mut s, 3, 100, Instant::ZERO);
    assert!(fq.is_new(3));
    assert_eq!(
        fq_dequeue(&mut fq, &p, Instant::ZERO, &mut s, &mut dropped)
            .unwrap()
            .0,
        3
    );
    assert!(fq.is_old(5));
    // Flow 3 is empty with credit left: at the next schedule it moves to the
    // old list (old flows exist), behind flow 5.
    assert_eq!(
        fq_dequeue(&mut fq, &p, Instant::ZERO, &mut s, &mut dropped)
            .unwrap()
            .0,
        5
    );
    assert!(fq.is_old(3));
    // A packet for flow 3 now: it is on the old list, so it is not new again.
    push(&mut fq, &p, &mut s, 3, 100, Instant::ZERO);
    assert!(fq.is_old(3));
    // Flow 5 is out of credit: refilled and moved behind flow 3, which has
    // credit left and goes first.
    assert_eq!(
        fq_dequeue(&mut fq, &p, Instant::ZERO, &mut s, &mut dropped)
            .unwrap()
            .0,
        3
    );
    assert_eq!(fq.deficit(5), 1500);
    crate::invariants::check_fq_codel(&fq, &p).unwrap();
    // The queue's byte count is the sum of its flows' (some are still queued).
    let flows: u64 = (0..8).map(|f| fq.flow_bytes(f)).sum();
    assert!(flows > 0);
    assert_eq!(fq.bytes(), flows);
    while fq_dequeue(&mut fq, &p, Instant::ZERO, &mut s, &mut dropped).is_some() {}
    assert!(!fq.is_new(3) && !fq.is_old(3) && !fq.is_old(5));
    assert_eq!((fq.packets(), fq.bytes()), (0, 0));
}

#[test]
fn empty_new_flow_without_old_flows_leaves_the_lists() {
    // Linux's fq_codel_dequeue, which the crate follows: a new flow found
    // empty goes to the old list only if there are old flows, and otherwise
    // leaves the lists. RFC 8290 section 4.2, read as written, always moves it
    // to the old list. The two orders differ when other new flows follow it.
    let p = profile(1500, 10_000, OverflowDrop::Single);
    let mut fq: FqCodel<8> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<8>::new();
    let mut dropped = Vec::new();
    push(&mut fq, &p, &mut s, 0, 100, Instant::ZERO);
    push(&mut fq, &p, &mut s, 2, 100, Instant::ZERO);
    let mut next = |fq: &mut FqCodel<8>, s: &mut Store<8>| {
        fq_dequeue(fq, &p, Instant::ZERO, s, &mut dropped)
            .unwrap()
            .0
    };
    assert_eq!(next(&mut fq, &mut s), 0);
    // Flow 0 heads the new list, empty with credit left, and no flow is old:
    // it leaves the lists (the RFC's text: it joins the old list), and flow 2
    // is served.
    assert_eq!(next(&mut fq, &mut s), 2);
    assert!(!fq.is_new(0) && !fq.is_old(0));
    // Flow 0, then flow 3, send again. Flow 0 is a new flow once more, with a
    // fresh quantum, and goes first (the RFC's text: flow 0 would still be
    // old, and the new flow 3 would go first).
    push(&mut fq, &p, &mut s, 0, 100, Instant::ZERO);
    push(&mut fq, &p, &mut s, 3, 100, Instant::ZERO);
    assert!(fq.is_new(0));
    assert_eq!(fq.deficit(0), 1500);
    assert_eq!(next(&mut fq, &mut s), 0);
    assert_eq!(next(&mut fq, &mut s), 3);
    crate::invariants::check_fq_codel(&fq, &p).unwrap();
}

#[test]
fn overflow_drops_from_the_fattest_flow() {
    // Limit 10 packets: flow 1 holds 6000 bytes, flow 2 2000 bytes, flow 0 the
    // rest; one more packet drops the head of flow 1.
    let p = profile(1514, 10, OverflowDrop::Single);
    let mut fq: FqCodel<4> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<4>::new();
    for (f, len) in [
        (1, 1500),
        (1, 1500),
        (1, 1500),
        (1, 1500),
        (2, 1000),
        (2, 1000),
    ] {
        assert_eq!(
            push(&mut fq, &p, &mut s, f, len, Instant::ZERO),
            Enqueued::Queued
        );
    }
    for _ in 0..4 {
        assert_eq!(
            push(&mut fq, &p, &mut s, 0, 100, Instant::ZERO),
            Enqueued::Queued
        );
    }
    let e = push(&mut fq, &p, &mut s, 2, 1000, Instant::ZERO);
    assert_eq!(
        e,
        Enqueued::Overflow {
            victim: 1,
            packets: 1,
            bytes: 1500
        }
    );
    assert_eq!(
        (fq.packets(), fq.flow_packets(1), fq.flow_bytes(1)),
        (10, 3, 4500)
    );
    crate::invariants::check_fq_codel(&fq, &p).unwrap();
}

#[test]
fn batch_drop_takes_half_the_fattest_flow() {
    // Linux's batch: drop from the head until half the bytes are gone.
    let p = profile(1514, 20, OverflowDrop::Batch { max_packets: 64 });
    let mut fq: FqCodel<4> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<4>::new();
    for _ in 0..16 {
        push(&mut fq, &p, &mut s, 3, 1000, Instant::ZERO);
    }
    for _ in 0..4 {
        push(&mut fq, &p, &mut s, 0, 1500, Instant::ZERO);
    }
    // 21 packets: flow 3 holds 16000 bytes; threshold 8000: 8 packets go.
    let e = push(&mut fq, &p, &mut s, 0, 1500, Instant::ZERO);
    assert_eq!(
        e,
        Enqueued::Overflow {
            victim: 3,
            packets: 8,
            bytes: 8000
        }
    );
    assert_eq!(fq.packets(), 13);
    // At most max_packets.
    let p2 = profile(1514, 20, OverflowDrop::Batch { max_packets: 3 });
    let mut fq: FqCodel<4> = FqCodel::new(&p2, Instant::ZERO);
    let mut s = Store::<4>::new();
    for _ in 0..21 {
        push(&mut fq, &p2, &mut s, 3, 1000, Instant::ZERO);
    }
    assert_eq!(fq.packets(), 18);
    // The Linux law adds the drops to the victim's count.
    let pl = FqCodelProfile::new(&FqCodelConfig::linux().with_limit(2)).unwrap();
    let mut fq: FqCodel<4> = FqCodel::new(&pl, Instant::ZERO);
    let mut s = Store::<4>::new();
    for _ in 0..3 {
        push(&mut fq, &pl, &mut s, 1, 1000, Instant::ZERO);
    }
    // Threshold 1500 of 3000 bytes: two 1000-byte packets go, count += 2.
    // (RFC 8290 section 4.1's text halves the packets: one of three.)
    assert_eq!(fq.packets(), 1);
    assert_eq!(fq.codel(1).count(), 2);
}

#[test]
fn per_flow_codel_drops_only_the_slow_flow() {
    // Flow 0 keeps a standing queue (one packet in, one out per ms, each
    // waiting 20 ms); flow 1 sends a packet every 10 ms that leaves at once.
    let p =
        FqCodelProfile::new(&FqCodelConfig::rfc8290().with_codel(CodelConfig::rfc8289())).unwrap();
    let mut fq: FqCodel<2> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<2>::new();
    for k in 0..20 {
        push(&mut fq, &p, &mut s, 0, 1500, ms(k));
    }
    let mut drops = [0u32; 2];
    let mut dropped = Vec::new();
    for t in 20..if cfg!(miri) { 1_000 } else { 2_000 } {
        push(&mut fq, &p, &mut s, 0, 1500, ms(t));
        if t % 10 == 0 {
            push(&mut fq, &p, &mut s, 1, 200, ms(t));
        }
        dropped.clear();
        while let Some((f, _, _)) = fq_dequeue(&mut fq, &p, ms(t), &mut s, &mut dropped) {
            if f == 0 {
                break;
            }
        }
        for (f, _) in &dropped {
            drops[*f] += 1;
        }
        crate::invariants::check_fq_codel(&fq, &p).unwrap();
    }
    assert!(drops[0] > 5, "{drops:?}");
    assert_eq!(drops[1], 0);
}

#[test]
fn drop_loop_continues_on_the_same_flow() {
    let p =
        FqCodelProfile::new(&FqCodelConfig::rfc8290().with_codel(CodelConfig::rfc8289())).unwrap();
    let mut fq: FqCodel<2> = FqCodel::new(&p, Instant::ZERO);
    let mut s = Store::<2>::new();
    for _ in 0..50 {
        push(&mut fq, &p, &mut s, 0, 1500, Instant::ZERO);
        push(&mut fq, &p, &mut s, 1, 1500, Instant::ZERO);
    }
    // Serve until flow 0's CoDel drops; the next schedule must be flow 0.
    let mut t = 1;
    loop {
        let f = fq.schedule(&p, ms(t)).unwrap();
        let h = s.pop(f).unwrap();
        if fq.on_dequeue(&p, ms(t), f, h) == Verdict::Drop {
            assert_eq!(fq.schedule(&p, ms(t)), Some(f));
            break;
        }
        t += 5;
        assert!(t < 1000);
    }
}

#[test]
fn configuration_rules() {
    let c = FqCodelConfig::rfc8290();
    assert_eq!(
        FqCodelProfile::new(&c.with_quantum(0)),
        Err(DelayError::ZeroQuantum)
    );
    assert_eq!(
        FqCodelProfile::new(&c.with_quantum(1 << 31)),
        Err(DelayError::QuantumTooLarge)
    );
    assert_eq!(
        FqCodelProfile::new(&c.with_limit(0)),
        Err(DelayError::ZeroLimit)
    );
    assert_eq!(
        FqCodelProfile::new(&c.with_overflow(OverflowDrop::Batch { max_packets: 0 })),
        Err(DelayError::ZeroDropBatch)
    );
    assert_eq!(
        FqCodelProfile::new(
            &c.with_codel(CodelConfig::rfc8289().with_target(core::time::Duration::ZERO))
        ),
        Err(DelayError::ZeroTarget)
    );
    let p = FqCodelProfile::new(&c).unwrap();
    assert_eq!((p.quantum(), p.limit(), p.drop_batch()), (1514, 10240, 1));
    assert!(p.codel().ecn());
}

#[test]
fn total_for_caller_errors() {
    let p = profile(1, 3, OverflowDrop::Batch { max_packets: 2 });
    let mut fq: FqCodel<3> = FqCodel::new(&p, Instant::from_ticks(u64::MAX));
    // Flow indices beyond N, lengths 0 and u32::MAX, a callback that has
    // nothing to drop, dequeues from empty flows.
    for (f, len) in [
        (usize::MAX, u32::MAX),
        (7, 0),
        (1, u32::MAX),
        (2, 5),
        (0, 1),
    ] {
        let _ = fq.enqueue(&p, Instant::ZERO, f, len, |_| None);
        crate::invariants::check_fq_codel(&fq, &p).unwrap();
    }
    for f in [0, 1, 2, 5, usize::MAX] {
        let _ = fq.on_dequeue(
            &p,
            Instant::from_ticks(u64::MAX),
            f,
            Head::new(Instant::ZERO, u32::MAX, true),
        );
        crate::invariants::check_fq_codel(&fq, &p).unwrap();
    }
    let mut n = 0;
    while let Some(f) = fq.schedule(&p, Instant::from_ticks(1 << 63)) {
        let _ = fq.on_dequeue(
            &p,
            Instant::from_ticks(1 << 63),
            f,
            Head::new(Instant::ZERO, 7, false),
        );
        crate::invariants::check_fq_codel(&fq, &p).unwrap();
        n += 1;
        assert!(n < 100);
    }
    assert_eq!(fq.packets(), 0);
}
