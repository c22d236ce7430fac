//! The combined per-link PCN node markers (excess stage first, then threshold):
//! the 3sM node (ET-marker + AS-marker), the 3sM node with the section 4.8
//! ET-marker, and the RFC 5670 node (excess-traffic + threshold meter).
//! `pcn_meter::invariants::meter_step` and `not_pcn_is_not_metered` on the node
//! at every packet, and, with timestamps below 2^63, the two reference models
//! chained in the same order (marking and both stages' fills).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::pcn::{self, Model};
use netcond_fuzz::{bounded, Burst, RateSel, TickSel};
use pcn_meter::invariants::{meter_step, not_pcn_is_not_metered};
use pcn_meter::reference::{
    RefAsMarker, RefEtMarker, RefEtMarkerSim48, RefExcessTrafficMeter, RefThresholdMeter,
};
use pcn_meter::{
    AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, ClassicTie, EtMarker, EtMarkerConfig,
    EtMarkerProfile, EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, EtMarking,
    ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile,
    NodeMarker, NodeProfile, PcnMeter, ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};

#[derive(Arbitrary, Debug)]
enum Node {
    Tsm {
        sr: RateSel,
        et_bucket: Burst,
        s: Burst,
        adds_s: bool,
        mtu: Option<u16>,
        ar: RateSel,
        as_bucket: Burst,
        threshold: Burst,
        draft: bool,
    },
    TsmSim48 {
        pt: RateSel,
        tb: Burst,
        px: Burst,
        ar: RateSel,
        as_bucket: Burst,
        threshold: Burst,
        draft: bool,
    },
    Rfc5670 {
        excess_rate: RateSel,
        bs_etm: Burst,
        mode: u8,
        threshold_rate: RateSel,
        bs_tm: Burst,
        threshold: Burst,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    node: Node,
    tick: TickSel,
    wild: bool,
    start: u64,
    ops: Vec<pcn::Op>,
}

fn as_cfg(ar: RateSel, b: Burst, th: Burst, draft: bool, tick: TickSel) -> AsMarkerConfig {
    AsMarkerConfig::draft_3sm01(ar.get(), b.get(), th.get())
        .with_form(if draft {
            AsForm::Draft3sm01
        } else {
            AsForm::DraftExplicitMarking01
        })
        .with_tick(tick.get())
}

#[allow(clippy::too_many_arguments)]
fn run<E: PcnMeter, T: PcnMeter, RE: Model, RT: Model>(
    p: &NodeProfile<E::Profile, T::Profile>,
    per_byte: (u64, u64),
    start: u64,
    wild: bool,
    ops: &[pcn::Op],
    re: impl FnOnce(Instant) -> RE,
    rt: impl FnOnce(Instant) -> RT,
) {
    let mut now = if wild { start } else { start >> 1 };
    let mut m = NodeMarker::<E, T>::new(p, Instant::from_ticks(now));
    let (mut re, mut rt) = (re(Instant::from_ticks(now)), rt(Instant::from_ticks(now)));
    for (i, op) in bounded(ops).iter().enumerate() {
        now = if wild {
            op.step.wild(now)
        } else {
            op.step.bounded(now)
        };
        let (t, len, mark) = (Instant::from_ticks(now), op.len.get(), op.mark.get());
        let out = match meter_step(p, &mut m, t, len, mark) {
            Ok(out) => out,
            Err(e) => panic!("pcn_node_marker: packet {i} at {now} len {len} {mark:?}: {e}"),
        };
        if let Err(e) = not_pcn_is_not_metered(p, &m, t, len) {
            panic!("pcn_node_marker: after packet {i} at {now} len {len}: {e}");
        }
        if !wild {
            let want = rt.step(t, len, re.step(t, len, mark));
            assert!(
                out == want
                    && re.same(m.excess.level(), per_byte.0)
                    && rt.same(m.threshold.level(), per_byte.1),
                "pcn_node_marker: packet {i} at {now} len {len} {mark:?}: fast {out:?} \
                 (levels {}, {}), reference {want:?}",
                m.excess.level(),
                m.threshold.level()
            );
        }
    }
}

fuzz_target!(|input: Input| {
    let tick = input.tick;
    match input.node {
        Node::Tsm {
            sr,
            et_bucket,
            s,
            adds_s,
            mtu,
            ar,
            as_bucket,
            threshold,
            draft,
        } => {
            let ec = EtMarkerConfig::draft_3sm01(sr.get(), et_bucket.get(), s.get())
                .with_already_et_adds_s(adds_s)
                .with_marking(match mtu {
                    None => EtMarking::TailMarking,
                    Some(mtu) => EtMarking::SizeIndependent {
                        mtu: u32::from(mtu),
                    },
                })
                .with_tick(tick.get());
            let ac = as_cfg(ar, as_bucket, threshold, draft, tick);
            let (Ok(e), Ok(t)) = (EtMarkerProfile::new(&ec), AsMarkerProfile::new(&ac)) else {
                return;
            };
            let p = NodeProfile {
                excess: e,
                threshold: t,
            };
            run::<EtMarker, AsMarker, _, _>(
                &p,
                (e.units_per_byte(), t.units_per_byte()),
                input.start,
                input.wild,
                &input.ops,
                |t| RefEtMarker::new(ec, t),
                |t| RefAsMarker::new(ac, t),
            );
        }
        Node::TsmSim48 {
            pt,
            tb,
            px,
            ar,
            as_bucket,
            threshold,
            draft,
        } => {
            let ec = EtMarkerSim48Config::new(pt.get(), tb.get(), px.get()).with_tick(tick.get());
            let ac = as_cfg(ar, as_bucket, threshold, draft, tick);
            let (Ok(e), Ok(t)) = (EtMarkerSim48Profile::new(&ec), AsMarkerProfile::new(&ac)) else {
                return;
            };
            let p = NodeProfile {
                excess: e,
                threshold: t,
            };
            run::<EtMarkerSim48, AsMarker, _, _>(
                &p,
                (e.units_per_byte(), t.units_per_byte()),
                input.start,
                input.wild,
                &input.ops,
                |t| RefEtMarkerSim48::new(ec, t),
                |t| RefAsMarker::new(ac, t),
            );
        }
        Node::Rfc5670 {
            excess_rate,
            bs_etm,
            mode,
            threshold_rate,
            bs_tm,
            threshold,
        } => {
            let ec = ExcessTrafficMeterConfig::new(excess_rate.get(), bs_etm.get())
                .with_mode(match mode % 3 {
                    0 => ExcessMode::SizeIndependent,
                    1 => ExcessMode::Classic(ClassicTie::Section2_4),
                    _ => ExcessMode::Classic(ClassicTie::AppendixB6),
                })
                .with_tick(tick.get());
            let tc = ThresholdMeterConfig::new(threshold_rate.get(), bs_tm.get(), threshold.get())
                .with_tick(tick.get());
            let (Ok(e), Ok(t)) = (
                ExcessTrafficMeterProfile::new(&ec),
                ThresholdMeterProfile::new(&tc),
            ) else {
                return;
            };
            let p = NodeProfile {
                excess: e,
                threshold: t,
            };
            run::<ExcessTrafficMeter, ThresholdMeter, _, _>(
                &p,
                (e.units_per_byte(), t.units_per_byte()),
                input.start,
                input.wild,
                &input.ops,
                |t| RefExcessTrafficMeter::new(ec, t),
                |t| RefThresholdMeter::new(tc, t),
            );
        }
    }
});
