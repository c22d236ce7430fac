//! The PCN egress measurement tables and decision points: RFC 6661 (CL) and
//! RFC 6662 (SM) `EgressMeter<u16, 4>` with optional report suppression, fed to
//! a `DecisionPoint`, and the 3sM draft's CLE-based `CleAdmission`, under any
//! sequence of packets and polls at any times, compared after every call with
//! the exact per-interval model of `pcn_meter::invariants::check_egress`: NM,
//! ThM and ETM bytes per T_meas, the rates, the CLE, the ETM flows, report
//! suppression, admit/block, the termination steps and the SAR the amount to
//! terminate comes from, the CLE admission's hysteresis, and every wakeup.
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use fixed::types::{U16F16, U1F31};
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::{bounded, Frac, Len, MarkIn, Step, TickSel};
use pcn_meter::invariants::{check_egress, EgressOp};
use pcn_meter::{
    CleAdmissionConfig, DecisionConfig, EdgeBehaviour, EgressMeterConfig, Suppression,
};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Packet {
        step: Step,
        len: Len,
        mark: MarkIn,
        flow: u16,
    },
    Poll(Step),
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// `None`: controlled load (RFC 6661); `Some(u)`: single marking (RFC 6662).
    sm_u: Option<u32>,
    t_meas_ns: u64,
    record_etm_flows: bool,
    suppression: Option<(Frac, u64)>,
    cle_limit: Frac,
    admission_enabled: bool,
    termination_enabled: bool,
    cle_interval_ns: u64,
    stop: Frac,
    resume: Frac,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let tick = input.tick.get();
    let behaviour = match input.sm_u {
        None => EdgeBehaviour::ControlledLoad,
        Some(u) => EdgeBehaviour::SingleMarking {
            u: U16F16::from_bits(u),
        },
    };
    let ec = EgressMeterConfig::controlled_load()
        .with_behaviour(behaviour)
        .with_t_meas(Duration::from_nanos(input.t_meas_ns))
        .with_record_etm_flows(input.record_etm_flows)
        .with_suppression(input.suppression.map(|(f, t)| {
            Suppression::new(U1F31::from_bits(f.u1f31_bits()), Duration::from_nanos(t))
        }))
        .with_tick(tick);
    let dc = DecisionConfig::controlled_load()
        .with_behaviour(behaviour)
        .with_cle_limit(U1F31::from_bits(input.cle_limit.u1f31_bits()))
        .with_admission_enabled(input.admission_enabled)
        .with_termination_enabled(input.termination_enabled);
    let cc = CleAdmissionConfig::new(
        Duration::from_nanos(input.cle_interval_ns),
        U1F31::from_bits(input.stop.u1f31_bits()),
        U1F31::from_bits(input.resume.u1f31_bits()),
    )
    .with_tick(tick);
    let ops: Vec<EgressOp> = bounded(&input.ops)
        .iter()
        .scan(input.start, |now, op| {
            let step = match *op {
                Op::Packet { step, .. } | Op::Poll(step) => step,
            };
            let next = step.wild(*now);
            let dt = next.wrapping_sub(*now);
            *now = next;
            Some(match *op {
                Op::Packet {
                    len, mark, flow, ..
                } => EgressOp::Packet {
                    dt,
                    len: len.get(),
                    mark: mark.get(),
                    flow,
                },
                Op::Poll(_) => EgressOp::Poll { dt },
            })
        })
        .collect();
    if let Err(e) = check_egress(&ec, &dc, &cc, Instant::from_ticks(input.start), &ops) {
        panic!("pcn_egress_cl: {e}: {ec:?} {dc:?} {cc:?}");
    }
});
