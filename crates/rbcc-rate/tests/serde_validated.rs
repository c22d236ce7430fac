//! An RbccInterface refuses a serde form whose flow table is inconsistent
//! (one test per rule), and any form it accepts, however edited, takes a
//! stream of per-packet calls without panicking or looping.
#![cfg(feature = "serde")]

use core::time::Duration;
use netcond_core::{Instant, RandomSource, Rate, SplitMix64};
use proptest::prelude::*;
use rbcc_rate::{AckHeader, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};
use serde_json::{json, Value};

const N: usize = 8;

fn profile() -> RbccProfile {
    RbccProfile::new(
        &RbccConfig::new(NodeId(7), Rate::from_kbps(2_000), 40, 1500)
            .with_idle_timeout(Duration::from_millis(30)),
    )
    .unwrap()
}

/// Five data rows and one ACK row in eight slots.
fn table() -> RbccInterface<N> {
    let p = profile();
    let mut i: RbccInterface<N> = RbccInterface::new(&p, Instant::ZERO);
    for flow in [3, 9, 14, 20, 31] {
        let mut h = RateHeader::new(FixedRate::from_bps(100_000 * u64::from(flow)));
        i.on_data(&p, Instant::from_ticks(u64::from(flow)), flow, &mut h)
            .unwrap();
    }
    let mut a = AckHeader {
        rate: FixedRate::from_bps(50_000),
        bottleneck: NodeId(2),
    };
    i.on_ack(&p, Instant::ZERO, 9, &mut a).unwrap();
    assert_eq!(i.len(), 6);
    i
}

fn slots(v: &Value) -> &Vec<Value> {
    v["map"]["slots"].as_array().unwrap()
}

/// The error `edit` makes reading the table's form give.
fn error(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = serde_json::to_value(table()).unwrap();
    edit(&mut v);
    serde_json::from_value::<RbccInterface<N>>(v)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn the_valid_form_is_read_back() {
    let v = serde_json::to_value(table()).unwrap();
    assert_eq!(v["map"]["len"], json!(6));
    assert_eq!(slots(&v).iter().filter(|s| !s.is_null()).count(), 6);
    let back: RbccInterface<N> = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), v);
}

#[test]
fn a_wrong_row_count_is_refused() {
    for len in [0, 5, 7, 8, 9, u64::MAX] {
        let e = error(|v| v["map"]["len"] = json!(len));
        assert!(e.contains("the row count is not the number of rows"), "{e}");
    }
}

#[test]
fn a_key_stored_twice_is_refused() {
    let e = error(|v| {
        // A copy of a row in the first empty slot after it: both are on its
        // probe run, the first the one found.
        let s = slots(v).clone();
        let i = s.iter().position(|x| !x.is_null()).unwrap();
        let free = (1..N)
            .map(|d| (i + d) % N)
            .find(|&j| s[j].is_null())
            .unwrap();
        v["map"]["slots"][free] = s[i].clone();
        v["map"]["len"] = json!(7);
    });
    assert!(e.contains("a key is stored twice"), "{e}");
}

#[test]
fn a_row_cut_off_from_its_home_is_refused() {
    // Every move of a row to an empty slot: the count is kept and no key is
    // repeated, so a form refused is refused for a row whose probe run now
    // has a gap (the moved row, or one after the slot it left).
    let v = serde_json::to_value(table()).unwrap();
    let s = slots(&v).clone();
    let mut refused = 0;
    for i in (0..N).filter(|&i| !s[i].is_null()) {
        for j in (0..N).filter(|&j| s[j].is_null()) {
            let mut w = v.clone();
            w["map"]["slots"][j] = s[i].clone();
            w["map"]["slots"][i] = Value::Null;
            if let Err(e) = serde_json::from_value::<RbccInterface<N>>(w) {
                let e = e.to_string();
                assert!(
                    e.contains("a row is cut off from its home slot by an empty slot"),
                    "{e}"
                );
                refused += 1;
            }
        }
    }
    assert!(refused > 0);
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

/// Edits: a number set to an edge or any value, a slot emptied, or a slot
/// copied over another.
fn apply(v: &mut Value, edits: &[(u64, u64, u64)]) {
    let mut paths = Vec::new();
    number_paths(v, String::new(), &mut paths);
    for &(which, pick, any) in edits {
        let (a, b) = ((which % N as u64) as usize, (any % N as u64) as usize);
        match pick % 8 {
            0 => v["map"]["slots"][a] = Value::Null,
            1 => v["map"]["slots"][a] = v["map"]["slots"][b].clone(),
            2 => v["map"]["len"] = json!(any % (N as u64 + 2)),
            3 => v["map"]["slots"].as_array_mut().unwrap().swap(a, b),
            p => {
                let value = match p {
                    4 => json!(0),
                    5 => json!(any % 64),
                    6 => json!(u64::MAX),
                    _ => json!(any),
                };
                if let Some(slot) = v.pointer_mut(&paths[(which % paths.len() as u64) as usize]) {
                    *slot = value;
                }
            }
        }
    }
}

/// A stream of calls on a table of unknown history: only that nothing
/// panics or loops, and the table's count stays within its size.
fn stream(i: &mut RbccInterface<N>, seed: u64) {
    let p = profile();
    let mut r = SplitMix64::new(seed);
    for s in 0..300u64 {
        let now = Instant::from_ticks(s * 1_000_000);
        let flow = r.below(40);
        let rate = FixedRate::from_bps(u64::from(r.below(3_000_000)));
        match r.below(6) {
            0 => {
                let mut a = AckHeader {
                    rate,
                    bottleneck: NodeId(r.below(9)),
                };
                let _ = i.on_ack(&p, now, flow, &mut a);
            }
            1 => {
                let a = AckHeader {
                    rate,
                    bottleneck: NodeId(r.below(9)),
                };
                i.on_return(&p, now, flow, &a);
            }
            2 => {
                i.close(&p, flow);
            }
            3 => {
                i.expire(&p, now);
            }
            _ => {
                let mut h = RateHeader::new(rate);
                let _ = i.on_data(&p, now, flow, &mut h);
            }
        }
        assert!(i.len() <= N);
        assert_eq!(i.entries().count(), i.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 3_000 }))]

    #[test]
    fn edited_forms_are_refused_or_run(
        edits in prop::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 1..4),
        seed in any::<u64>(),
    ) {
        let mut v = serde_json::to_value(table()).unwrap();
        apply(&mut v, &edits);
        if let Ok(mut i) = serde_json::from_value::<RbccInterface<N>>(v) {
            stream(&mut i, seed);
        }
    }
}
