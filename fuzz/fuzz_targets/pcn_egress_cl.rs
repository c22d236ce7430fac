//! The PCN egress measurement tables and decision points: RFC 6661 (CL) and
//! RFC 6662 (SM) `EgressMeter<u16, 4>` with optional report suppression, fed to
//! a `DecisionPoint`, and the 3sM draft's CLE-based `CleAdmission`, under any
//! sequence of packets and polls at any times. pcn-meter has no invariant
//! functions for these yet, so the checks are the documented facts that need no
//! model: a CLE's marked bytes never exceed its total, a report covers an
//! interval of one `T_meas` or more whose bytes and flows were counted in it,
//! recorded ETM flows fit the table, a decision with admission control off
//! always admits, and the CLE-based admission is the one its last decision
//! reported.
#![no_main]

use arbitrary::Arbitrary;
use fixed::types::{U16F16, U1F31};
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::{bounded, Frac, Len, MarkIn, Step, TickSel};
use pcn_meter::{
    Admission, CleAdmission, CleAdmissionConfig, CleAdmissionProfile, DecisionConfig,
    DecisionPoint, DecisionProfile, EdgeBehaviour, EgressMeter, EgressMeterConfig,
    EgressMeterProfile, Suppression, Termination,
};

const M: usize = 4;

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
    let ec = EgressMeterConfig {
        behaviour,
        t_meas_ns: input.t_meas_ns,
        record_etm_flows: input.record_etm_flows,
        suppression: input.suppression.map(|(f, t)| Suppression {
            cle_reporting_threshold: U1F31::from_bits(f.u1f31_bits()),
            t_maxsuppress_ns: t,
        }),
        tick,
    };
    let dc = DecisionConfig {
        behaviour,
        cle_limit: U1F31::from_bits(input.cle_limit.u1f31_bits()),
        admission_enabled: input.admission_enabled,
        termination_enabled: input.termination_enabled,
    };
    let cc = CleAdmissionConfig {
        interval_ns: input.cle_interval_ns,
        stop: U1F31::from_bits(input.stop.u1f31_bits()),
        resume: U1F31::from_bits(input.resume.u1f31_bits()),
        tick,
    };
    let (ep, dp, cp) = (
        EgressMeterProfile::new(&ec),
        DecisionProfile::new(&dc),
        CleAdmissionProfile::new(&cc),
    );
    let mut now = input.start;
    let t0 = Instant::from_ticks(now);
    let mut meter = ep.as_ref().ok().map(|p| EgressMeter::<u16, M>::new(p, t0));
    let mut point = DecisionPoint::new();
    let mut cle = cp.as_ref().ok().map(|p| CleAdmission::new(p, t0));
    let mut admission = Admission::Admit;
    // PCN bytes and ETM flows seen since the start (an upper bound for any
    // one report).
    let mut seen_bytes: u64 = 0;
    let mut seen_flows: Vec<u16> = Vec::new();
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        let (step, packet) = match *op {
            Op::Packet {
                step,
                len,
                mark,
                flow,
            } => (step, Some((len.get(), mark.get(), flow))),
            Op::Poll(step) => (step, None),
        };
        now = step.wild(now);
        let t = Instant::from_ticks(now);
        if let Some((len, mark, flow)) = packet {
            if let (Ok(p), Some(m)) = (&ep, meter.as_mut()) {
                m.on_packet(p, t, len, mark, flow);
            }
            if let (Ok(p), Some(c)) = (&cp, cle.as_mut()) {
                c.on_packet(p, t, len, mark);
            }
            if mark.is_pcn() {
                seen_bytes = seen_bytes.saturating_add(u64::from(len));
                if mark == pcn_meter::PcnMark::Etm {
                    seen_flows.push(flow);
                }
            }
            continue;
        }
        if let (Ok(p), Some(m)) = (&ep, meter.as_mut()) {
            let _ = m.next_wakeup();
            if let Some(r) = m.poll(p, t) {
                assert!(
                    r.cle.marked <= r.cle.total,
                    "pcn_egress_cl: op {i}: CLE above 1"
                );
                let sum = r
                    .nm_bytes
                    .saturating_add(r.thm_bytes)
                    .saturating_add(r.etm_bytes);
                assert!(
                    sum <= seen_bytes && r.cle.total <= sum,
                    "pcn_egress_cl: op {i}: report counts bytes never seen: {r:?}"
                );
                assert!(
                    r.etm_flows.len() <= M && r.etm_flows.iter().all(|f| seen_flows.contains(f)),
                    "pcn_egress_cl: op {i}: report lists flows never seen ETM: {r:?}"
                );
                assert!(
                    r.end != r.start,
                    "pcn_egress_cl: op {i}: report interval is empty: {r:?}"
                );
                if let Ok(dp) = &dp {
                    let d = point.on_report(dp, &r);
                    if !dc.admission_enabled {
                        assert_eq!(d.admission, Admission::Admit, "pcn_egress_cl: op {i}");
                    }
                    if !dc.termination_enabled {
                        assert_eq!(d.termination, Termination::None, "pcn_egress_cl: op {i}");
                    }
                    let _ = dp.sar(&r);
                }
            }
        }
        if let (Ok(p), Some(c)) = (&cp, cle.as_mut()) {
            let _ = c.next_wakeup();
            if let Some(d) = c.poll(p, t) {
                assert!(
                    d.cle.marked <= d.cle.total,
                    "pcn_egress_cl: op {i}: CLE above 1"
                );
                admission = d.admission;
            }
            assert_eq!(
                c.admission(),
                admission,
                "pcn_egress_cl: op {i}: CLE admission"
            );
        }
    }
});
