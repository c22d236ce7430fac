//! Building a chain's runtime state.

use super::aqm::aqm_rt;
use super::*;
use crate::chain::{tbf_profile, Stage};
use crate::flows::{Classify, FlowTable};
use crate::stats::Stats;
use netcond::base::{Instant, SplitMix64, TickRate};
use netcond::pcn::{
    ExcessMode, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, NodeProfile, NodeRfc5670,
    PcnDscps, ThresholdMeterConfig, ThresholdMeterProfile,
};
use netcond::ras::{Ras, SrRasConfig, SrRasProfile, Tbf, TrRasConfig, TrRasProfile};
use netcond::red::{Red, RedConfig, RedProfile};
use netcond::trtcm::{
    Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};
use std::collections::{BinaryHeap, VecDeque};

impl Engine {
    /// Builds the runtime state of a chain.
    pub fn new(
        chain: &[Stage],
        classify: Classify,
        max_flows: usize,
    ) -> Result<Engine, SetupError> {
        let flows = FlowTable::new(classify, max_flows);
        let n = flows.capacity();
        let now = Instant::ZERO;
        let tick = TickRate::NANOS;
        let mut stages = Vec::new();
        let mut names = Vec::new();
        for s in chain {
            names.push(describe(s));
            let rt = match *s {
                Stage::TrTcm {
                    cir,
                    pir,
                    cbs,
                    pbs,
                    adjust,
                    colors,
                    mode,
                } => {
                    let cfg = TrTcmConfig::new(cir, pir, cbs, pbs)
                        .with_tick(tick)
                        .with_mode(mode);
                    let p = TrTcmProfile::new(&cfg).map_err(|e| tc(e, "trtcm"))?;
                    Rt::TrTcm(p, adjust, colors, vec![TrTcm::new(&p, now); n])
                }
                Stage::SrTcm {
                    cir,
                    cbs,
                    ebs,
                    adjust,
                    colors,
                    mode,
                } => {
                    let cfg = SrTcmConfig::new(cir, cbs, ebs)
                        .with_tick(tick)
                        .with_mode(mode);
                    let p = SrTcmProfile::new(&cfg).map_err(|e| tc(e, "srtcm"))?;
                    Rt::SrTcm(p, adjust, colors, vec![SrTcm::new(&p, now); n])
                }
                Stage::Rfc4115 {
                    cir,
                    eir,
                    cbs,
                    ebs,
                    adjust,
                    colors,
                    mode,
                } => {
                    let cfg = Rfc4115Config::new(cir, eir, cbs, ebs)
                        .with_tick(tick)
                        .with_mode(mode);
                    let p = Rfc4115Profile::new(&cfg).map_err(|e| tc(e, "rfc4115"))?;
                    Rt::Rfc4115(p, adjust, colors, vec![Rfc4115::new(&p, now); n])
                }
                Stage::Dscp(c) => Rt::Dscp(c),
                Stage::DropRed => Rt::DropRed,
                Stage::DropYellow => Rt::DropYellow,
                Stage::PcnIngress { dscp } => Rt::PcnIngress(dscp),
                Stage::PcnNode {
                    threshold,
                    excess,
                    tbs,
                    depth,
                    ebs,
                    dscps,
                } => {
                    let p = NodeProfile {
                        excess: ExcessTrafficMeterProfile::new(
                            &ExcessTrafficMeterConfig::new(excess, ebs)
                                .with_mode(ExcessMode::SizeIndependent)
                                .with_tick(tick),
                        )
                        .map_err(|e| tc(e, "pcn-node excess"))?,
                        threshold: ThresholdMeterProfile::new(
                            &ThresholdMeterConfig::new(threshold, tbs, depth).with_tick(tick),
                        )
                        .map_err(|e| tc(e, "pcn-node threshold"))?,
                    };
                    let mut set = PcnDscps::NONE;
                    for d in 0..64u8 {
                        if dscps >> d & 1 == 1 {
                            set = set.with(d);
                        }
                    }
                    Rt::PcnNode(p, set, vec![NodeRfc5670::new(&p, now); n])
                }
                Stage::Rfc6660 => Rt::Rfc6660,
                Stage::Red {
                    min,
                    max,
                    maxp,
                    wq,
                    link,
                    limit,
                    gentle,
                    ecn,
                    seed,
                } => {
                    let mut cfg = RedConfig::packets(
                        min,
                        max,
                        RedConfig::prob(maxp),
                        RedConfig::prob(wq),
                        limit,
                    );
                    cfg.queue.gentle = gentle;
                    cfg.queue.ecn = ecn;
                    cfg.queue.typical_tx = RedConfig::typical_tx(link, 1500);
                    cfg.tick = tick;
                    let profile = RedProfile::new(&cfg).map_err(|e| tc(e, "red"))?;
                    Rt::Red(Box::new(RedRt {
                        profile,
                        red: Red::new(&profile, now),
                        rng: SplitMix64::new(seed),
                        link_bps: link.bits_per_sec(),
                        queue: VecDeque::new(),
                        busy_until: 0,
                        frac: 0,
                    }))
                }
                Stage::TrRas {
                    cir,
                    pir,
                    mir,
                    line,
                    buffer,
                } => {
                    let mut cfg = TrRasConfig::new(cir, pir, line, buffer);
                    cfg.mir = mir;
                    let p = TrRasProfile::new(&cfg).map_err(|e| tc(e, "trras"))?;
                    Rt::Ras(p.into(), Box::new(Ras::new(&p, now)), false)
                }
                Stage::SrRas {
                    cir,
                    mir,
                    line,
                    buffer,
                } => {
                    let mut cfg = SrRasConfig::new(cir, line, buffer);
                    cfg.mir = mir;
                    let p = SrRasProfile::new(&cfg).map_err(|e| tc(e, "srras"))?;
                    Rt::Ras(p.into(), Box::new(Ras::new(&p, now)), false)
                }
                Stage::Tbf { .. } => {
                    let profile = match tbf_profile(s) {
                        Ok(Some(p)) => p,
                        Ok(None) => return Err(SetupError("tbf: internal".into())),
                        Err(e) => return Err(tc(e, "tbf")),
                    };
                    Rt::Tbf(Box::new(TbfRt {
                        profile,
                        tbf: Tbf::new(&profile, now),
                        fifo: VecDeque::new(),
                        scheduled: false,
                    }))
                }
                Stage::Codel { .. }
                | Stage::FqCodel { .. }
                | Stage::Pie { .. }
                | Stage::FqPie { .. }
                | Stage::DualPi2 { .. } => Rt::Aqm(Box::new(aqm_rt(s)?)),
            };
            stages.push(rt);
        }
        let stats = Stats::new(chain);
        Ok(Engine {
            stages,
            names,
            flows,
            stats,
            events: BinaryHeap::new(),
            seq: 0,
            held: Vec::new(),
            free: Vec::new(),
        })
    }
}
