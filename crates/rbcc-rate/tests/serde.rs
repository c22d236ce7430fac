//! An RbccInterface read back from its serde form mid-stream continues
//! exactly as the table it was written from.
#![cfg(feature = "serde")]

use core::time::Duration;
use netcond_core::{Instant, Rate};
use rbcc_rate::{
    AckHeader, AckModel, FixedRate, FlowEntry, NodeId, RateHeader, RbccConfig, RbccInterface,
    RbccProfile,
};

/// More rows than serde's own array impls reach.
const N: usize = 64;

fn profile(model: AckModel) -> RbccProfile {
    RbccProfile::new(
        &RbccConfig::new(NodeId(7), Rate::from_kbps(2_000), 40, 1500)
            .with_ack_model(model)
            .with_idle_timeout(Duration::from_millis(30)),
    )
    .unwrap()
}

/// What one step did: the headers as they leave, the call's result and the
/// table's advertised rate after it.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Data(Result<RateHeader, u32>, FixedRate),
    Ack(Result<AckHeader, u32>, FixedRate),
    Return(FixedRate),
    Close(bool, FixedRate),
    Expire(usize, FixedRate),
}

/// A deterministic stream over 50 flows (more than the table holds at once
/// under load), with requests, returns from other bottlenecks, ACKs,
/// closes and expiries.
fn run(p: &RbccProfile, i: &mut RbccInterface<N>, steps: core::ops::Range<u64>) -> Vec<Event> {
    let mut ev = Vec::new();
    for s in steps {
        let x = s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
        let now = Instant::from_ticks(s * 100_000);
        let flow = (x % 50) as u32;
        let rate = FixedRate::from_bps(10_000 + (x >> 8) % 400_000);
        match x % 16 {
            0 => {
                let mut a = AckHeader {
                    rate,
                    bottleneck: NodeId(7),
                };
                let r = i.on_ack(p, now, flow, &mut a).map(|()| a);
                ev.push(Event::Ack(r, i.advertised()));
            }
            1 => {
                let a = AckHeader {
                    rate,
                    bottleneck: NodeId(3),
                };
                i.on_return(p, now, flow, &a);
                ev.push(Event::Return(i.advertised()));
            }
            2 => ev.push(Event::Close(i.close(p, flow), i.advertised())),
            3 if s % 7 == 0 => ev.push(Event::Expire(i.expire(p, now), i.advertised())),
            _ => {
                let mut h = RateHeader::new(rate);
                let r = i.on_data(p, now, flow, &mut h).map(|()| h);
                ev.push(Event::Data(r, i.advertised()));
            }
        }
    }
    ev
}

fn rows(i: &RbccInterface<N>) -> Vec<FlowEntry> {
    let mut v: Vec<FlowEntry> = i.entries().collect();
    v.sort_by_key(|e| (e.flow, e.kind == rbcc_rate::EntryKind::Ack));
    v
}

#[test]
fn rbcc_interface_continues_after_a_round_trip() {
    for model in [AckModel::OutsideLoad, AckModel::Coupled] {
        let p = profile(model);
        let mut i: RbccInterface<N> = RbccInterface::new(&p, Instant::ZERO);
        let first = run(&p, &mut i, 0..3_000);
        // Mid-stream: rows held, some lowered, the fair share recomputed.
        assert!(i.len() > 10, "{}", i.len());
        assert!(i.recomputations() > 100);
        assert!(first
            .iter()
            .any(|e| matches!(e, Event::Expire(n, _) if *n > 0)));
        assert!(first
            .iter()
            .any(|e| matches!(e, Event::Data(Ok(h), _) if h.rate < h.requested)));

        let text = serde_json::to_string(&i).unwrap();
        let mut back: RbccInterface<N> = serde_json::from_str(&text).unwrap();
        assert_eq!(rows(&back), rows(&i));
        assert_eq!(back.advertised(), i.advertised());
        assert_eq!(back.recomputations(), i.recomputations());
        assert_eq!(back.len(), i.len());

        let a = run(&p, &mut i, 3_000..6_000);
        let b = run(&p, &mut back, 3_000..6_000);
        assert_eq!(a, b);
        assert_eq!(rows(&back), rows(&i));
        assert_eq!(back.recomputations(), i.recomputations());
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&i).unwrap()
        );

        // A table of another size is refused.
        assert!(serde_json::from_str::<RbccInterface<128>>(&text).is_err());
        assert!(serde_json::from_str::<RbccInterface<32>>(&text).is_err());
    }
}
