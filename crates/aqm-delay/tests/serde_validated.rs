//! FqCodel and FqPie refuse a serde form whose flow lists or totals are
//! inconsistent (one test per rule), and any form they accept, however
//! edited, takes a stream of per-packet calls without panicking or looping.
#![cfg(feature = "serde")]

use aqm_delay::{FqCodel, FqCodelConfig, FqCodelProfile, FqPie, FqPieConfig, FqPieProfile, Head};
use netcond_core::{Instant, SplitMix64};
use proptest::prelude::*;
use serde_json::{json, Value};

const N: usize = 8;
const NIL: u64 = u16::MAX as u64;

fn us(t: u64) -> Instant {
    Instant::from_ticks(t * 1_000)
}

fn codel_profile() -> FqCodelProfile {
    FqCodelProfile::new(&FqCodelConfig::rfc8290().with_quantum(300).with_limit(40)).unwrap()
}

/// Flows 1, 2 and 3 hold packets; 1 has been served once (so it is the new
/// list's head with less credit), 0 and 4..8 are on no list.
fn codel_state() -> FqCodel<N> {
    let p = codel_profile();
    let mut fq: FqCodel<N> = FqCodel::new(&p, Instant::ZERO);
    for (flow, len) in [(1, 500), (2, 200), (3, 100), (1, 500), (3, 100)] {
        fq.enqueue(&p, Instant::ZERO, flow, len, |_| None);
    }
    let f = fq.schedule(&p, us(1)).unwrap();
    assert_eq!(f, 1);
    fq.on_dequeue(&p, us(1), f, Head::new(Instant::ZERO, 500, false));
    fq
}

fn codel_json() -> Value {
    serde_json::to_value(codel_state()).unwrap()
}

/// The error `edit` makes reading the FqCodel form give.
fn codel_error(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = codel_json();
    edit(&mut v);
    serde_json::from_value::<FqCodel<N>>(v)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn the_valid_form_is_what_the_rules_expect() {
    let v = codel_json();
    assert_eq!(v["drr"]["new_flows"], json!({"head": 1, "tail": 3}));
    assert_eq!(v["drr"]["old_flows"], json!({"head": NIL, "tail": NIL}));
    assert_eq!(v["drr"]["flows"][1]["next"], json!(2));
    assert_eq!(v["drr"]["flows"][0]["list"], json!("Neither"));
    let back: FqCodel<N> = serde_json::from_value(v).unwrap();
    assert_eq!(back, codel_state());
}

#[test]
fn a_link_out_of_range_is_refused() {
    let e = codel_error(|v| v["drr"]["flows"][2]["next"] = json!(N));
    assert!(e.contains("a list names a flow out of range"), "{e}");
    let e = codel_error(|v| v["drr"]["old_flows"] = json!({"head": 200, "tail": 200}));
    assert!(e.contains("a list names a flow out of range"), "{e}");
}

#[test]
fn a_cycle_is_refused() {
    let e = codel_error(|v| v["drr"]["flows"][3]["next"] = json!(1));
    assert!(e.contains("a flow appears twice on the lists"), "{e}");
    let e = codel_error(|v| v["drr"]["flows"][3]["next"] = json!(3));
    assert!(e.contains("a flow appears twice on the lists"), "{e}");
}

#[test]
fn a_flow_on_both_lists_is_refused() {
    // Flow 3 is the new list's tail; the old list names it too.
    let e = codel_error(|v| v["drr"]["old_flows"] = json!({"head": 3, "tail": 3}));
    assert!(e.contains("a flow appears twice on the lists"), "{e}");
}

#[test]
fn a_flow_marked_as_on_the_other_list_is_refused() {
    let e = codel_error(|v| v["drr"]["flows"][2]["list"] = json!("Old"));
    assert!(
        e.contains("a flow is on a list it is not marked as on"),
        "{e}"
    );
    let e = codel_error(|v| v["drr"]["flows"][2]["list"] = json!("Neither"));
    assert!(
        e.contains("a flow is on a list it is not marked as on"),
        "{e}"
    );
}

#[test]
fn a_wrong_tail_is_refused() {
    let e = codel_error(|v| v["drr"]["new_flows"]["tail"] = json!(2));
    assert!(e.contains("a list's tail is not its last flow"), "{e}");
    let e = codel_error(|v| v["drr"]["old_flows"]["tail"] = json!(5));
    assert!(e.contains("a list's tail is not its last flow"), "{e}");
    // A list cut short: its length disagrees with its links.
    let e = codel_error(|v| v["drr"]["flows"][2]["next"] = json!(NIL));
    assert!(e.contains("a list's tail is not its last flow"), "{e}");
}

#[test]
fn a_flow_marked_as_on_a_list_it_is_not_on_is_refused() {
    let e = codel_error(|v| v["drr"]["flows"][5]["list"] = json!("Old"));
    assert!(
        e.contains("a flow is marked as on a list it is not on"),
        "{e}"
    );
}

#[test]
fn a_flow_on_no_list_with_a_link_is_refused() {
    let e = codel_error(|v| v["drr"]["flows"][6]["next"] = json!(1));
    assert!(e.contains("a flow on no list links to another"), "{e}");
}

#[test]
fn a_flow_holding_packets_on_no_list_is_refused() {
    let e = codel_error(|v| {
        v["drr"]["flows"][0]["packets"] = json!(1);
        let total = v["drr"]["packets"].as_u64().unwrap();
        v["drr"]["packets"] = json!(total + 1);
    });
    assert!(e.contains("a flow holding packets is on no list"), "{e}");
}

#[test]
fn totals_other_than_the_sums_are_refused() {
    let e = codel_error(|v| {
        let total = v["drr"]["packets"].as_u64().unwrap();
        v["drr"]["packets"] = json!(total + 1);
    });
    assert!(
        e.contains("the totals are not the sums over the flows"),
        "{e}"
    );
    let e = codel_error(|v| {
        let total = v["drr"]["bytes"].as_u64().unwrap();
        v["drr"]["bytes"] = json!(total - 1);
    });
    assert!(
        e.contains("the totals are not the sums over the flows"),
        "{e}"
    );
    // Flow byte counts whose sum overflows 64 bits.
    let e = codel_error(|v| {
        v["drr"]["flows"][1]["bytes"] = json!(u64::MAX);
        v["drr"]["flows"][2]["bytes"] = json!(u64::MAX);
    });
    assert!(
        e.contains("the totals are not the sums over the flows"),
        "{e}"
    );
}

#[test]
fn a_flow_to_continue_outside_a_drop_loop_is_refused() {
    let e = codel_error(|v| v["pending"] = json!(N));
    assert!(
        e.contains("the flow to continue is not a flow in a drop loop"),
        "{e}"
    );
    let e = codel_error(|v| v["pending"] = json!(1));
    assert!(
        e.contains("the flow to continue is not a flow in a drop loop"),
        "{e}"
    );
}

#[test]
fn a_flow_to_continue_in_a_drop_loop_is_read_back() {
    // A queue that CoDel drops from: one flow whose packets all waited since
    // the start, soon far over the target.
    let p = codel_profile();
    let mut fq: FqCodel<N> = FqCodel::new(&p, Instant::ZERO);
    let mut t = 0;
    let pending = loop {
        t += 1;
        // Two in, one out: a backlog over one MTU.
        fq.enqueue(&p, us(t * 100), 2, 1000, |_| None);
        fq.enqueue(&p, us(t * 100), 2, 1000, |_| None);
        let f = fq.schedule(&p, us(t * 100)).unwrap();
        let v = fq.on_dequeue(&p, us(t * 100), f, Head::new(Instant::ZERO, 1000, false));
        if v == aqm_delay::Verdict::Drop {
            break f;
        }
        assert!(t < 100_000);
    };
    let v = serde_json::to_value(&fq).unwrap();
    assert_eq!(v["pending"], json!(pending));
    let back: FqCodel<N> = serde_json::from_value(v).unwrap();
    assert_eq!(back, fq);
}

#[test]
fn fq_pie_refuses_a_broken_scheduler() {
    let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
    let mut fq: FqPie<N> = FqPie::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(3);
    for flow in [4, 5, 4] {
        fq.enqueue(
            &p,
            Instant::ZERO,
            flow,
            Head::new(Instant::ZERO, 300, false),
            &mut rng,
        );
    }
    let mut v = serde_json::to_value(&fq).unwrap();
    let back: FqPie<N> = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(back, fq);
    v["drr"]["flows"][5]["next"] = json!(4);
    let e = serde_json::from_value::<FqPie<N>>(v)
        .unwrap_err()
        .to_string();
    assert!(e.contains("a flow appears twice on the lists"), "{e}");
}

/// Every number in `v`, by JSON pointer.
fn number_paths(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Number(_) => out.push(at),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| number_paths(x, format!("{at}/{i}"), out)),
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| number_paths(x, format!("{at}/{k}"), out)),
        _ => {}
    }
}

/// A value for an edited number: the edges the links and counts have, or any.
fn edited(pick: u64, any: u64) -> Value {
    match pick % 8 {
        0 => json!(0),
        1 => json!(any % (N as u64 + 2)),
        2 => json!(NIL),
        3 => json!(u32::MAX),
        4 => json!(u64::MAX),
        5 => json!(any % 4096),
        6 => json!(any),
        _ => json!(any as i64),
    }
}

/// Applies `edits` (which number, which value; or which flow's list mark) to `v`.
fn apply(v: &mut Value, edits: &[(u64, u64, u64)]) {
    let mut paths = Vec::new();
    number_paths(v, String::new(), &mut paths);
    for &(which, pick, any) in edits {
        if pick % 9 == 8 {
            let marks = ["Neither", "New", "Old"];
            v["drr"]["flows"][(which % N as u64) as usize]["list"] =
                json!(marks[(any % 3) as usize]);
        } else if let Some(slot) = v.pointer_mut(&paths[(which % paths.len() as u64) as usize]) {
            *slot = edited(pick, any);
        }
    }
}

/// A stream of per-packet calls on an FqCodel of unknown history: the
/// caller's FIFOs are not modelled (a dropped head has the length asked of
/// it), only that nothing panics or loops.
fn codel_stream(fq: &mut FqCodel<N>, seed: u64) {
    let p = codel_profile();
    let mut r = SplitMix64::new(seed);
    use netcond_core::RandomSource;
    for t in 0..200u64 {
        let now = us(1_000 + t * 50);
        if r.chance(1 << 31) {
            let flow = r.below(2 * N as u32) as usize;
            let mut drops = 0;
            fq.enqueue(&p, now, flow, 1 + r.below(1500), |_| {
                drops += 1;
                (drops < 100).then_some(700)
            });
        } else if let Some(f) = fq.schedule(&p, now) {
            assert!(f < N);
            let len = r.below(1600);
            fq.on_dequeue(&p, now, f, Head::new(us(t * 40), len, r.chance(1 << 31)));
        }
        let _ = (fq.packets(), fq.bytes(), fq.flow_packets(t as usize));
    }
}

fn pie_stream(fq: &mut FqPie<N>, seed: u64) {
    let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
    let mut r = SplitMix64::new(seed);
    use netcond_core::RandomSource;
    for t in 0..200u64 {
        let now = us(1_000 + t * 50);
        fq.poll(&p, now);
        if r.chance(1 << 31) {
            let flow = r.below(2 * N as u32) as usize;
            let h = Head::new(now, 1 + r.below(1500), r.chance(1 << 31));
            fq.enqueue(&p, now, flow, h, &mut r);
        } else if let Some(f) = fq.schedule(&p, now) {
            assert!(f < N);
            fq.on_dequeue(&p, now, f, Head::new(us(t * 40), r.below(1600), false));
        }
    }
}

fn pie_json() -> Value {
    let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
    let mut fq: FqPie<N> = FqPie::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(9);
    for t in 0..400u64 {
        let now = us(t * 100);
        fq.poll(&p, now);
        fq.enqueue(
            &p,
            now,
            (t % 5) as usize,
            Head::new(now, 800, true),
            &mut rng,
        );
        if t % 3 == 0 {
            if let Some(f) = fq.schedule(&p, now) {
                fq.on_dequeue(&p, now, f, Head::new(us(t * 50), 800, true));
            }
        }
    }
    serde_json::to_value(&fq).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 2_000 }))]

    #[test]
    fn edited_fq_codel_forms_are_refused_or_run(
        edits in prop::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 1..4),
        seed in any::<u64>(),
    ) {
        let mut v = codel_json();
        apply(&mut v, &edits);
        if let Ok(mut fq) = serde_json::from_value::<FqCodel<N>>(v) {
            codel_stream(&mut fq, seed);
        }
    }

    #[test]
    fn edited_fq_pie_forms_are_refused_or_run(
        edits in prop::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 1..4),
        seed in any::<u64>(),
    ) {
        let mut v = pie_json();
        apply(&mut v, &edits);
        if let Ok(mut fq) = serde_json::from_value::<FqPie<N>>(v) {
            pie_stream(&mut fq, seed);
        }
    }
}
