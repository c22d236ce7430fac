//! The shared DRR flow scheduler (`drr.rs`) on its own, with a counter as
//! each flow's "AQM": list moves, the Linux rule for empty new flows,
//! unlinking from the middle of a list, and the skipped rounds agreeing with
//! one refill at a time.

use crate::drr::{Drr, ListId, NIL};

/// Flows with the given packet counts, activated in the given order.
fn with_flows<const N: usize>(flows: &[(usize, u32)], quantum: u32) -> Drr<u32, N> {
    let mut d: Drr<u32, N> = Drr::new(0);
    for &(f, n) in flows {
        d.flows[f].packets += n;
        d.packets += n;
        d.activate(f, quantum);
    }
    d
}

fn list<const N: usize>(d: &Drr<u32, N>, id: ListId) -> Vec<usize> {
    let mut out = Vec::new();
    let mut cur = match id {
        ListId::New => d.new_flows.head,
        _ => d.old_flows.head,
    };
    while cur != NIL {
        out.push(usize::from(cur));
        cur = d.flows[usize::from(cur)].next;
        assert!(out.len() <= N, "cycle");
    }
    out
}

fn tail<const N: usize>(d: &Drr<u32, N>, id: ListId) -> u16 {
    match id {
        ListId::New => d.new_flows.tail,
        _ => d.old_flows.tail,
    }
}

#[test]
fn activate_joins_the_new_flows_once_with_a_quantum() {
    let mut d = with_flows::<8>(&[(3, 1), (5, 1)], 1500);
    assert_eq!(list(&d, ListId::New), [3, 5]);
    assert_eq!((d.flows[3].deficit, d.flows[3].list), (1500, ListId::New));
    assert_eq!(tail(&d, ListId::New), 5);
    // Already listed: no second quantum, no move.
    d.flows[3].deficit = 7;
    d.activate(3, 1500);
    assert_eq!(d.flows[3].deficit, 7);
    assert_eq!(list(&d, ListId::New), [3, 5]);
    assert_eq!(d.flows[0].list, ListId::Neither);
}

#[test]
fn new_flows_first_then_refills_to_the_old_tail() {
    let mut d = with_flows::<8>(&[(1, 2), (2, 2)], 100);
    assert_eq!(d.next_flow(100, |_| {}), Some(1));
    // Flow 1 spends its credit: it is refilled and moves to the old tail;
    // flow 2, still new, goes next.
    d.flows[1].deficit = 0;
    assert_eq!(d.next_flow(100, |_| {}), Some(2));
    assert_eq!(list(&d, ListId::Old), [1]);
    assert_eq!(d.flows[1].deficit, 100);
    d.flows[2].deficit = -50;
    assert_eq!(d.next_flow(100, |_| {}), Some(1));
    assert_eq!(list(&d, ListId::Old), [1, 2]);
    assert_eq!(d.flows[2].deficit, 50);
    assert_eq!(list(&d, ListId::New), Vec::<usize>::new());
    assert_eq!(tail(&d, ListId::New), NIL);
}

#[test]
fn empty_flows_are_retired_and_told() {
    // New flows 6 (a packet, no credit) and 4 (empty).
    let mut d = with_flows::<8>(&[(6, 1), (4, 0)], 100);
    d.flows[6].deficit = 0;
    let mut told = Vec::new();
    // 6 is refilled to the old list; 4, empty and new while old flows
    // exist, is told and moves behind it (Linux); then 6 is served.
    let got = d.next_flow(100, |a| {
        *a += 1;
        told.push(*a);
    });
    assert_eq!(got, Some(6));
    assert_eq!(told, [1]);
    assert_eq!((d.flows[4].aqm, d.flows[6].aqm), (1, 0));
    assert_eq!(list(&d, ListId::Old), [6, 4]);
    assert_eq!(list(&d, ListId::New), Vec::<usize>::new());
    // Both empty: each is told once more and leaves the old list.
    d.flows[6].packets = 0;
    assert_eq!(d.next_flow(100, |a| *a += 10), None);
    assert_eq!((d.flows[4].aqm, d.flows[6].aqm), (11, 10));
    assert_eq!(d.flows[6].list, ListId::Neither);
    assert_eq!(d.flows[4].list, ListId::Neither);
    assert_eq!((d.old_flows.head, d.old_flows.tail), (NIL, NIL));
}

#[test]
fn an_empty_new_flow_goes_behind_the_old_ones() {
    let mut d = with_flows::<8>(&[(2, 1)], 100);
    d.flows[2].deficit = 0;
    assert_eq!(d.next_flow(100, |_| {}), Some(2)); // 2 now old
    d.activate(5, 100); // 5 new, empty
    assert_eq!(d.next_flow(100, |_| {}), Some(2));
    assert_eq!(list(&d, ListId::Old), [2, 5]);
    assert_eq!(d.flows[5].list, ListId::Old);
    assert_eq!(tail(&d, ListId::Old), 5);
}

#[test]
fn retire_unlinks_from_the_middle_and_the_tail() {
    let mut d = with_flows::<8>(&[(0, 1), (1, 1), (2, 1), (3, 1)], 100);
    d.retire(1);
    assert_eq!(list(&d, ListId::New), [0, 2, 3]);
    assert_eq!(tail(&d, ListId::New), 3);
    assert_eq!(d.flows[1].list, ListId::Neither);
    assert_eq!(d.flows[1].next, NIL);
    // No old flows: a retired new flow leaves the lists.
    d.retire(3);
    assert_eq!(list(&d, ListId::New), [0, 2]);
    assert_eq!(tail(&d, ListId::New), 2);
    assert_eq!(d.flows[2].next, NIL);
    d.retire(0);
    assert_eq!(list(&d, ListId::New), [2]);
    assert_eq!((d.new_flows.head, d.new_flows.tail), (2, 2));
    // Retiring a flow on no list changes nothing.
    let before = d.clone();
    d.retire(7);
    assert_eq!(d, before);
    // A new flow retired while old flows exist moves to the old tail.
    d.flows[2].deficit = 0;
    d.activate(6, 100);
    d.flows[6].packets = 1;
    assert_eq!(d.next_flow(100, |_| {}), Some(6));
    assert_eq!(list(&d, ListId::Old), [2]);
    d.retire(6);
    assert_eq!(list(&d, ListId::Old), [2, 6]);
    assert_eq!(d.flows[6].list, ListId::Old);
}

#[test]
fn skipped_rounds_equal_one_refill_at_a_time() {
    for (quantum, deficits) in [
        (1u32, [-10_000i64, -9_999, -12_345, -10_001]),
        (7, [-70_000, -3, -700_001, -69_999]),
        (300, [-1_000_000_000, -999_999_999, -5, -1_000_000_001]),
        (1514, [-1514, -1513, -3028, 0]),
    ] {
        let mut d = with_flows::<4>(&[(0, 1), (1, 1), (2, 1), (3, 1)], quantum);
        // Move all four to the old list in order, with the deficits given.
        for f in 0..4 {
            d.flows[f].deficit = 0;
        }
        for _ in 0..4 {
            let g = d.next_flow(quantum, |_| {}).unwrap();
            d.flows[g].deficit = 0;
        }
        assert_eq!(list(&d, ListId::Old).len(), 4);
        for (f, &x) in deficits.iter().enumerate() {
            d.flows[f].deficit = x;
        }
        let order = list(&d, ListId::Old);
        // The model: refill in turn until one is positive.
        let mut want: Vec<i64> = order.iter().map(|&f| d.flows[f].deficit).collect();
        let q = i64::from(quantum);
        let mut k = 0usize;
        let served = loop {
            if want[k % 4] > 0 {
                break order[k % 4];
            }
            want[k % 4] += q;
            k += 1;
        };
        let got = d.next_flow(quantum, |_| {});
        assert_eq!(got, Some(served), "quantum {quantum}");
        for (i, &f) in order.iter().enumerate() {
            assert_eq!(d.flows[f].deficit, want[i], "quantum {quantum}, flow {f}");
        }
        // The old list rotated by the number of refills, modulo 4.
        let rotated: Vec<usize> = (0..4).map(|i| order[(k + i) % 4]).collect();
        assert_eq!(list(&d, ListId::Old), rotated, "quantum {quantum}");
    }
}
