//! The egress table of draft-babiarz-pcn-explicit-marking-01 section 2.3
//! (`Egress3sm<u8, 4>`: a stop-blocking timer per ingress-egress aggregate,
//! block on AS, terminate on ET) under any sequence of registrations, packets
//! and polls at any times. Each aggregate's
//! timer is mirrored by a standalone `StopBlockingTimer` driven with the same
//! calls: the table's signals, admissions and resumptions must equal the
//! timers', and every timer must pass
//! `pcn_meter::invariants::stop_blocking_consistent` after every operation.
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::{bounded, MarkIn, Step, TickSel};
use pcn_meter::invariants::stop_blocking_consistent;
use pcn_meter::{
    Egress3sm, EgressSignal, PcnMark, StopBlockingConfig, StopBlockingProfile, StopBlockingTimer,
};

const N: usize = 4;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Add(u8),
    Packet {
        step: Step,
        key: u8,
        flow: u16,
        mark: MarkIn,
    },
    Poll(Step),
}

#[derive(Arbitrary, Debug)]
struct Input {
    timeout_ns: u64,
    et_blocks: bool,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let c = StopBlockingConfig::new(Duration::from_nanos(input.timeout_ns), input.et_blocks)
        .with_tick(input.tick.get());
    let Ok(p) = StopBlockingProfile::new(&c) else {
        return;
    };
    let mut e: Egress3sm<u8, N> = Egress3sm::new(&p, Instant::from_ticks(input.start));
    let mut keys: Vec<u8> = Vec::new();
    let mut timers: Vec<StopBlockingTimer> = Vec::new();
    let mut now = input.start;
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        match *op {
            Op::Add(k) => {
                let k = k % 6;
                let r = e.add(k);
                match keys.iter().position(|&x| x == k) {
                    Some(at) => assert_eq!(r, Ok(at), "pcn_egress_3sm: op {i}: re-add"),
                    None if keys.len() < N => {
                        assert_eq!(r, Ok(keys.len()), "pcn_egress_3sm: op {i}: add");
                        keys.push(k);
                        timers.push(StopBlockingTimer::new(&p, Instant::from_ticks(now)));
                    }
                    None => assert_eq!(r, Err(k), "pcn_egress_3sm: op {i}: add to a full table"),
                }
            }
            Op::Packet {
                step,
                key,
                flow,
                mark,
            } => {
                now = step.wild(now);
                let (t, key, mark) = (Instant::from_ticks(now), key % 6, mark.get());
                let got = e.on_packet(&p, t, key, flow, mark);
                let want = match keys.iter().position(|&x| x == key) {
                    None => Err(key),
                    Some(at) => {
                        let tm = &mut timers[at];
                        Ok(match mark {
                            PcnMark::NotPcn | PcnMark::Nm => EgressSignal::Nothing,
                            PcnMark::Thm => EgressSignal::Block {
                                new_period: tm.on_block(&p, t),
                            },
                            PcnMark::Etm => EgressSignal::Terminate {
                                flow,
                                new_block_period: c.et_blocks && tm.on_block(&p, t),
                            },
                        })
                    }
                };
                assert_eq!(got, want, "pcn_egress_3sm: op {i} {op:?} at {now}");
            }
            Op::Poll(step) => {
                now = step.wild(now);
                let t = Instant::from_ticks(now);
                let got = e.poll(&p, t);
                let want = keys
                    .iter()
                    .zip(timers.iter_mut())
                    .find_map(|(k, tm)| tm.poll(&p, t).map(|at| (*k, at)));
                assert_eq!(got, want, "pcn_egress_3sm: op {i} poll at {now}");
            }
        }
        let t = Instant::from_ticks(now);
        for (k, tm) in keys.iter().zip(&timers) {
            assert_eq!(
                e.admission(*k),
                Some(tm.admission()),
                "pcn_egress_3sm: op {i}: admission of aggregate {k}"
            );
            if let Err(err) = stop_blocking_consistent(&p, tm, t) {
                panic!("pcn_egress_3sm: op {i} at {now}: aggregate {k}: {err}");
            }
        }
        let want_wakeup = timers
            .iter()
            .filter_map(StopBlockingTimer::next_wakeup)
            .min();
        assert_eq!(
            e.next_wakeup(),
            want_wakeup,
            "pcn_egress_3sm: op {i}: next wakeup"
        );
    }
});
