//! The single-rate EF / premium policer of the premium TCP test ("Test of a
//! DiffServ Premium TCP stream varying the Committed Rate"): invariants of
//! `trtcm::invariants::policer_step` at every packet, and the exact reference
//! model `trtcm::reference::PremiumPolicerRef` (verdicts, tokens and backlog
//! after every operation). Operations are arrivals and departures from the
//! premium buffer.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::{bounded, Burst, Len, RateSel, Step, TickSel};
use trtcm::invariants::policer_step;
use trtcm::reference::{to_reference_units, PremiumPolicerRef};
use trtcm::{PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile};

#[derive(Arbitrary, Debug)]
enum Op {
    Arrive(Step, Len),
    Depart(Len),
}

#[derive(Arbitrary, Debug)]
struct Input {
    rate: RateSel,
    tbs: Burst,
    pbs: Burst,
    max_packet: Len,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let cfg = PremiumPolicerConfig::new(
        input.rate.get(),
        input.tbs.get(),
        input.pbs.get(),
        input.max_packet.get(),
    )
    .with_tick(input.tick.get());
    let Ok(p) = PremiumPolicerProfile::new(&cfg) else {
        return;
    };
    let _ = p.pbs_exceeds_tbs_plus_packet();
    let mut now = input.start;
    let mut s = PremiumPolicer::new(&p, Instant::from_ticks(now));
    let mut r = PremiumPolicerRef::new(&cfg, now);
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        match *op {
            Op::Arrive(step, len) => {
                now = step.wild(now);
                let len = len.get();
                let got = match policer_step(&p, &mut s, Instant::from_ticks(now), len) {
                    Ok(v) => v,
                    Err(v) => panic!("ef_policer: packet {i} at {now} len {len}: {v}"),
                };
                let want = r.offer(now, len);
                assert_eq!(
                    got.index(),
                    want,
                    "ef_policer: packet {i} at {now} len {len}: fast {got:?}, reference {want}"
                );
            }
            Op::Depart(len) => {
                let len = len.get();
                s.dequeued(len);
                r.dequeued(len);
            }
        }
        let tokens = to_reference_units(p.committed(), s.tokens(), cfg.tick);
        assert!(
            tokens == r.tokens && u128::from(s.backlog()) == r.backlog,
            "ef_policer: op {i} {op:?}: fast (tokens {tokens}, backlog {}), reference ({}, {})",
            s.backlog(),
            r.tokens,
            r.backlog
        );
    }
});
