//! Runs a chain over packets in time order.
//!
//! Meters and markers (`trtcm`, `srtcm`, `rfc4115`, `pcn-node`) keep one state
//! per flow in a [`FlowTable`]; the queue stages (`red`, `trras`, `srras`) model
//! one queue, the link's, shared by every packet that reaches them, and hold
//! packets until they leave: their output timestamps are the departure times.
//! Departures are events ordered by time; before a packet arriving at `t` is
//! processed, every departure at or before `t` is, so the output is in time
//! order whenever the input is.

use crate::chain::Stage;
use crate::flows::{Classify, FlowTable};
use crate::packet::{self, IpInfo, Link};
use crate::stats::Stats;
use netcond::base::{Color, Instant, LengthAdjust, Rate, SplitMix64, TickRate};
use netcond::pcn::{
    ExcessMode, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, NodeProfile, NodeRfc5670,
    PcnDscps, PcnMark, PcnMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};
use netcond::ras::{
    PacketLen, Ras, RasProfile, SrRasConfig, SrRasProfile, TrRasConfig, TrRasProfile,
};
use netcond::red::{Decision, Ecn, Packet, Red, RedConfig, RedProfile};
use netcond::trtcm::{
    Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Packets a shaper queue holds at most (its byte buffer usually fills first).
pub const RAS_SLOTS: usize = 4096;

/// Where a packet goes.
pub trait Sink {
    /// A packet leaves the chain at `ts_ns` (forwarded, or dropped when `dropped`).
    fn emit(
        &mut self,
        ts_ns: u64,
        frame: &[u8],
        orig_len: u32,
        iface: u32,
        dropped: bool,
    ) -> std::io::Result<()>;
}

/// A packet on its way through the chain.
#[derive(Debug)]
struct Pkt {
    frame: Vec<u8>,
    orig_len: u32,
    iface: u32,
    info: IpInfo,
    slot: u32,
    color: Color,
    pcn: PcnMark,
}

#[derive(Clone, Copy, Debug)]
struct Held {
    id: u32,
    len: u32,
}

impl PacketLen for Held {
    fn packet_len(&self) -> u32 {
        self.len
    }
}

enum Rt {
    TrTcm(TrTcmProfile, LengthAdjust, Vec<TrTcm>),
    SrTcm(SrTcmProfile, LengthAdjust, Vec<SrTcm>),
    Rfc4115(Rfc4115Profile, LengthAdjust, Vec<Rfc4115>),
    Dscp([u8; 3]),
    DropRed,
    DropYellow,
    PcnIngress(u8),
    PcnNode(
        NodeProfile<ExcessTrafficMeterProfile, ThresholdMeterProfile>,
        PcnDscps,
        Vec<NodeRfc5670>,
    ),
    Rfc6660,
    Red(Box<RedRt>),
    Ras(RasProfile, Box<Ras<Held, RAS_SLOTS>>, bool),
}

struct RedRt {
    profile: RedProfile,
    red: Red,
    rng: SplitMix64,
    link_bps: u64,
    /// Departure times (ns) of the packets in the queue, oldest first.
    queue: VecDeque<u64>,
    busy_until: u64,
    /// Remainder of `busy_until` in 1/link_bps ns.
    frac: u64,
}

/// A configuration the library refused, or an impossible combination.
#[derive(Debug)]
pub struct SetupError(pub String);

/// The chain, its state, and its counters.
pub struct Engine {
    stages: Vec<Rt>,
    /// Names for the summary.
    pub names: Vec<String>,
    flows: FlowTable,
    /// Counters.
    pub stats: Stats,
    events: BinaryHeap<Reverse<(u64, u64, u64)>>,
    seq: u64,
    held: Vec<Option<(Pkt, usize)>>,
    free: Vec<u32>,
}

const RAS_TAG: u64 = 1 << 63;

fn tc(e: impl std::fmt::Display, stage: &str) -> SetupError {
    SetupError(format!("{stage}: {e}"))
}

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
                } => {
                    let p =
                        TrTcmProfile::new(&TrTcmConfig::new(cir, pir, cbs, pbs).with_tick(tick))
                            .map_err(|e| tc(e, "trtcm"))?;
                    Rt::TrTcm(p, adjust, vec![TrTcm::new(&p, now); n])
                }
                Stage::SrTcm {
                    cir,
                    cbs,
                    ebs,
                    adjust,
                } => {
                    let p = SrTcmProfile::new(&SrTcmConfig::new(cir, cbs, ebs).with_tick(tick))
                        .map_err(|e| tc(e, "srtcm"))?;
                    Rt::SrTcm(p, adjust, vec![SrTcm::new(&p, now); n])
                }
                Stage::Rfc4115 {
                    cir,
                    eir,
                    cbs,
                    ebs,
                    adjust,
                } => {
                    let p = Rfc4115Profile::new(
                        &Rfc4115Config::new(cir, eir, cbs, ebs).with_tick(tick),
                    )
                    .map_err(|e| tc(e, "rfc4115"))?;
                    Rt::Rfc4115(p, adjust, vec![Rfc4115::new(&p, now); n])
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
                    Rt::PcnNode(p, set, vec![NodeRfc5670::start(&p, now); n])
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
                    cfg.queue.idle_tx_ticks = RedConfig::typical_tx_ticks(link, 1500, tick);
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

    /// Flows seen and evicted.
    pub fn flow_counts(&self) -> (u64, u64, usize) {
        (self.flows.seen, self.flows.evicted, self.flows.capacity())
    }

    /// True when some stage holds packets (queues).
    pub fn has_queues(&self) -> bool {
        self.stages
            .iter()
            .any(|s| matches!(s, Rt::Red(_) | Rt::Ras(..)))
    }

    /// Runs every departure due at or before `t`.
    pub fn advance<S: Sink>(&mut self, t: u64, sink: &mut S) -> std::io::Result<()> {
        while let Some(&Reverse((at, _, tag))) = self.events.peek() {
            if at > t {
                break;
            }
            self.events.pop();
            self.fire(at, tag, sink)?;
        }
        Ok(())
    }

    /// The time of the next departure from a queue stage, if a packet is held.
    pub fn next_departure(&self) -> Option<u64> {
        self.events.peek().map(|&Reverse((at, _, _))| at)
    }

    /// Runs every remaining departure (end of the capture).
    pub fn finish<S: Sink>(&mut self, sink: &mut S) -> std::io::Result<()> {
        self.advance(u64::MAX, sink)
    }

    fn schedule(&mut self, at: u64, tag: u64) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, tag)));
    }

    fn hold(&mut self, p: Pkt, stage: usize) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.held[i as usize] = Some((p, stage));
                i
            }
            None => {
                self.held.push(Some((p, stage)));
                (self.held.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, id: u32) -> Option<(Pkt, usize)> {
        let x = self.held.get_mut(id as usize)?.take();
        if x.is_some() {
            self.free.push(id);
        }
        x
    }

    fn fire<S: Sink>(&mut self, at: u64, tag: u64, sink: &mut S) -> std::io::Result<()> {
        if tag & RAS_TAG != 0 {
            let stage = (tag & !RAS_TAG) as usize;
            let now = Instant::from_ticks(at);
            let (out, next) = match &mut self.stages[stage] {
                Rt::Ras(p, ras, scheduled) => {
                    *scheduled = false;
                    let out = ras.dequeue(p, now);
                    (out, ras.next_release())
                }
                _ => (None, None),
            };
            if let Some(n) = next {
                if let Rt::Ras(_, _, scheduled) = &mut self.stages[stage] {
                    *scheduled = true;
                }
                self.schedule(n.ticks().max(at), tag);
            }
            if let Some(h) = out {
                if let Some((p, _)) = self.take(h.id) {
                    self.run(p, stage + 1, at, sink)?;
                }
            }
        } else if let Some((p, stage)) = self.take(tag as u32) {
            if let Rt::Red(r) = &mut self.stages[stage] {
                // The packet has been sent: leave the FIFO.
                if r.queue.front().is_some_and(|&d| d <= at) {
                    r.queue.pop_front();
                    if r.queue.is_empty() {
                        r.red.on_queue_empty(Instant::from_ticks(at));
                    }
                }
            }
            self.run(p, stage + 1, at, sink)?;
        }
        Ok(())
    }

    /// Offers one frame arriving at `ts_ns` (not before the previous one).
    /// Frames that are not IP pass untouched. Returns `Err` for an IP header
    /// that cannot be read.
    pub fn push<S: Sink>(
        &mut self,
        ts_ns: u64,
        link: Link,
        frame: &mut Vec<u8>,
        orig_len: u32,
        iface: u32,
        sink: &mut S,
    ) -> Result<Option<IpInfo>, PushError> {
        self.advance(ts_ns, sink).map_err(PushError::Io)?;
        let info = match packet::parse(link, frame) {
            Ok(Some(i)) => i,
            Ok(None) => {
                self.stats.non_ip(frame.len() as u64);
                sink.emit(ts_ns, frame, orig_len, iface, false)
                    .map_err(PushError::Io)?;
                return Ok(None);
            }
            Err(_) => return Err(PushError::BadIp),
        };
        let (slot, _fresh) = self.flows.lookup(&info, ts_ns);
        if _fresh {
            self.reset_slot(slot, ts_ns);
        }
        self.stats.arrival(ts_ns, info.len);
        if self.has_queues_cached() {
            let p = Pkt {
                frame: std::mem::take(frame),
                orig_len,
                iface,
                info,
                slot,
                color: Color::Green,
                pcn: PcnMark::NotPcn,
            };
            let r = self.run(p, 0, ts_ns, sink).map_err(PushError::Io);
            r.map(|_| Some(info))
        } else {
            // Fast path: no stage holds packets, so the frame is conditioned in place.
            let (tos, dropped) = self.run_inplace(&info, slot, ts_ns);
            if tos != info.tos {
                packet::set_tos(frame, &info, tos);
            }
            self.stats.leave(ts_ns, info.len, tos, dropped);
            sink.emit(ts_ns, frame, orig_len, iface, dropped)
                .map_err(PushError::Io)?;
            Ok(Some(info))
        }
    }

    fn has_queues_cached(&self) -> bool {
        self.stats.has_queues
    }

    fn reset_slot(&mut self, slot: u32, ts: u64) {
        let now = Instant::from_ticks(ts);
        let s = slot as usize;
        for st in &mut self.stages {
            match st {
                Rt::TrTcm(p, _, v) => v[s] = TrTcm::new(p, now),
                Rt::SrTcm(p, _, v) => v[s] = SrTcm::new(p, now),
                Rt::Rfc4115(p, _, v) => v[s] = Rfc4115::new(p, now),
                Rt::PcnNode(p, _, v) => v[s] = NodeRfc5670::start(p, now),
                _ => {}
            }
        }
    }

    /// The stages without queues: the new TOS, and whether the packet was
    /// dropped (a dropped packet keeps the marks it had when dropped).
    #[inline]
    fn run_inplace(&mut self, info: &IpInfo, slot: u32, ts: u64) -> (u8, bool) {
        let mut st = State {
            tos: info.tos,
            color: Color::Green,
            pcn: PcnMark::NotPcn,
        };
        for i in 0..self.stages.len() {
            if !self.step(i, &mut st, info.len, slot, ts) {
                return (st.tos, true);
            }
        }
        (st.tos, false)
    }

    /// One stage without a queue. Returns false if the packet is dropped.
    #[inline(always)]
    fn step(&mut self, i: usize, st: &mut State, len: u32, slot: u32, ts: u64) -> bool {
        let now = Instant::from_ticks(ts);
        let s = slot as usize;
        match &mut self.stages[i] {
            Rt::TrTcm(p, a, v) => {
                st.color = v[s].color_blind(p, now, a.apply(len));
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::SrTcm(p, a, v) => {
                st.color = v[s].color_blind(p, now, a.apply(len));
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::Rfc4115(p, a, v) => {
                st.color = v[s].color_blind(p, now, a.apply(len));
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::Dscp(c) => {
                let d = c[st.color.index()];
                st.tos = (d << 2) | (st.tos & 3);
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::DropRed => {
                if st.color == Color::Red {
                    self.stats.count(i, 1, len, ts);
                    return false;
                }
                self.stats.count(i, 0, len, ts);
            }
            Rt::DropYellow => {
                if st.color != Color::Green {
                    self.stats.count(i, 1, len, ts);
                    return false;
                }
                self.stats.count(i, 0, len, ts);
            }
            Rt::PcnIngress(d) => {
                st.tos = (*d << 2) | PcnMark::Nm.ecn();
                self.stats.count(i, 0, len, ts);
            }
            Rt::PcnNode(p, set, v) => match set.decode_tos(st.tos) {
                Some(m) if m.is_pcn() => {
                    st.pcn = v[s].mark(p, now, len, m);
                    self.stats.count(i, pcn_index(st.pcn), len, ts);
                }
                _ => {
                    st.pcn = PcnMark::NotPcn;
                    self.stats.count(i, 0, len, ts);
                }
            },
            Rt::Rfc6660 => {
                if st.pcn.is_pcn() {
                    st.tos = (st.tos & !3) | st.pcn.ecn();
                    self.stats.count(i, 1, len, ts);
                } else {
                    self.stats.count(i, 0, len, ts);
                }
            }
            Rt::Red(_) | Rt::Ras(..) => {}
        }
        true
    }

    /// Runs a packet from stage `from` at time `at`, holding it where a queue takes it.
    fn run<S: Sink>(
        &mut self,
        mut p: Pkt,
        from: usize,
        at: u64,
        sink: &mut S,
    ) -> std::io::Result<()> {
        let len = p.info.len;
        // The TOS as the frame has it now (earlier stages may have changed it).
        let mut st = State {
            tos: current_tos(&p),
            color: p.color,
            pcn: p.pcn,
        };
        for i in from..self.stages.len() {
            match &mut self.stages[i] {
                Rt::Red(r) => {
                    // Packets whose transmission ended by now have left.
                    while let Some(&d) = r.queue.front() {
                        if d > at {
                            break;
                        }
                        r.queue.pop_front();
                        if r.queue.is_empty() {
                            r.red.on_queue_empty(Instant::from_ticks(d));
                        }
                    }
                    let qlen = r.queue.len() as u32;
                    let now = Instant::from_ticks(at);
                    let d = r.red.on_arrival(
                        &r.profile,
                        now,
                        qlen,
                        Packet::new(len, Ecn::from_bits(st.tos & 3)),
                        &mut r.rng,
                    );
                    self.stats.count(i, d.index(), len, at);
                    match d {
                        Decision::Enqueue | Decision::Mark => {
                            if d == Decision::Mark {
                                st.tos |= 3;
                            }
                            let start = r.busy_until.max(at);
                            if start > r.busy_until {
                                r.frac = 0;
                            }
                            let num = u128::from(len) * 8 * 1_000_000_000 + u128::from(r.frac);
                            let bps = u128::from(r.link_bps);
                            let dep =
                                start.saturating_add((num / bps).min(u128::from(u64::MAX)) as u64);
                            r.frac = (num % bps) as u64;
                            r.busy_until = dep;
                            r.queue.push_back(dep);
                            apply_tos(&mut p, st.tos);
                            p.color = st.color;
                            p.pcn = st.pcn;
                            let id = self.hold(p, i);
                            self.schedule(dep, u64::from(id));
                            return Ok(());
                        }
                        Decision::DropEarly | Decision::DropForced => {
                            return self.leave(p, at, true, sink);
                        }
                    }
                }
                Rt::Ras(prof, ras, scheduled) => {
                    apply_tos(&mut p, st.tos);
                    p.color = st.color;
                    p.pcn = st.pcn;
                    let now = Instant::from_ticks(at);
                    let was_scheduled = *scheduled;
                    // Reserve the slot id first; give it back if the queue refuses.
                    let id = match self.free.last() {
                        Some(&i) => i,
                        None => self.held.len() as u32,
                    };
                    let r = ras.enqueue(prof, now, Held { id, len });
                    let next = ras.next_release();
                    match r {
                        Ok(()) => {
                            self.stats.count(i, 0, len, at);
                            let got = self.hold(p, i);
                            debug_assert_eq!(got, id);
                            if !was_scheduled {
                                if let Some(n) = next {
                                    if let Rt::Ras(_, _, sch) = &mut self.stages[i] {
                                        *sch = true;
                                    }
                                    self.schedule(n.ticks().max(at), RAS_TAG | i as u64);
                                }
                            }
                            return Ok(());
                        }
                        Err(_) => {
                            self.stats.count(i, 1, len, at);
                            return self.leave(p, at, true, sink);
                        }
                    }
                }
                _ => {
                    if !self.step(i, &mut st, len, p.slot, at) {
                        apply_tos(&mut p, st.tos);
                        return self.leave(p, at, true, sink);
                    }
                }
            }
        }
        apply_tos(&mut p, st.tos);
        self.leave(p, at, false, sink)
    }

    fn leave<S: Sink>(
        &mut self,
        p: Pkt,
        at: u64,
        dropped: bool,
        sink: &mut S,
    ) -> std::io::Result<()> {
        self.stats.leave(at, p.info.len, current_tos(&p), dropped);
        sink.emit(at, &p.frame, p.orig_len, p.iface, dropped)
    }
}

/// Why a frame could not be taken.
#[derive(Debug)]
pub enum PushError {
    /// Writing the output failed.
    Io(std::io::Error),
    /// The IP header is cut short or invalid.
    BadIp,
}

struct State {
    tos: u8,
    color: Color,
    pcn: PcnMark,
}

fn current_tos(p: &Pkt) -> u8 {
    let ip = &p.frame[p.info.off..];
    if p.info.version == 4 {
        ip[1]
    } else {
        (ip[0] << 4) | (ip[1] >> 4)
    }
}

fn apply_tos(p: &mut Pkt, tos: u8) {
    if current_tos(p) != tos {
        let info = p.info;
        packet::set_tos(&mut p.frame, &info, tos);
    }
}

/// Summary index of a PCN mark: 0 not-PCN, 1 NM, 2 ThM, 3 ETM.
fn pcn_index(m: PcnMark) -> usize {
    match m {
        PcnMark::NotPcn => 0,
        PcnMark::Nm => 1,
        PcnMark::Thm => 2,
        PcnMark::Etm => 3,
    }
}

fn rate(r: Rate) -> String {
    let b = r.bits_per_sec();
    if b % 1_000_000_000 == 0 && b > 0 {
        format!("{}gbit", b / 1_000_000_000)
    } else if b % 1_000_000 == 0 && b > 0 {
        format!("{}mbit", b / 1_000_000)
    } else if b % 1000 == 0 && b > 0 {
        format!("{}kbit", b / 1000)
    } else {
        format!("{b}bit")
    }
}

/// A meter's length adjustment as tc writes it (nothing when there is none).
fn describe_adjust(a: &LengthAdjust) -> String {
    let mut s = String::new();
    if a.overhead != 0 {
        s += &format!(" overhead={}B", a.overhead);
    }
    if a.mpu != 0 {
        s += &format!(" mpu={}B", a.mpu);
    }
    if a.atm {
        s += " linklayer=atm";
    }
    s
}

/// A stage as the summary names it, with its parameters in plain units.
pub fn describe(s: &Stage) -> String {
    match s {
        Stage::TrTcm {
            cir,
            pir,
            cbs,
            pbs,
            adjust,
        } => format!(
            "trtcm cir={} pir={} cbs={cbs}B pbs={pbs}B{}",
            rate(*cir),
            rate(*pir),
            describe_adjust(adjust)
        ),
        Stage::SrTcm {
            cir,
            cbs,
            ebs,
            adjust,
        } => format!(
            "srtcm cir={} cbs={cbs}B ebs={ebs}B{}",
            rate(*cir),
            describe_adjust(adjust)
        ),
        Stage::Rfc4115 {
            cir,
            eir,
            cbs,
            ebs,
            adjust,
        } => format!(
            "rfc4115 cir={} eir={} cbs={cbs}B ebs={ebs}B{}",
            rate(*cir),
            rate(*eir),
            describe_adjust(adjust)
        ),
        Stage::Dscp(c) => format!("dscp {},{},{}", c[0], c[1], c[2]),
        Stage::DropRed => "drop-red".into(),
        Stage::DropYellow => "drop-yellow".into(),
        Stage::PcnIngress { dscp } => format!("pcn-ingress dscp={dscp}"),
        Stage::PcnNode {
            threshold,
            excess,
            tbs,
            depth,
            ebs,
            ..
        } => format!(
            "pcn-node threshold={} excess={} tbs={tbs}B depth={depth}B ebs={ebs}B",
            rate(*threshold),
            rate(*excess)
        ),
        Stage::Rfc6660 => "rfc6660".into(),
        Stage::Red {
            min,
            max,
            maxp,
            wq,
            link,
            limit,
            gentle,
            ecn,
            ..
        } => format!(
            "red min={min} max={max} maxp={maxp} wq={wq} link={} limit={limit}{}{}",
            rate(*link),
            if *gentle { " gentle" } else { "" },
            if *ecn { " -> ecn-or-drop" } else { "" }
        ),
        Stage::TrRas {
            cir,
            pir,
            mir,
            line,
            buffer,
        } => format!(
            "trras cir={} pir={} mir={} line={} buffer={buffer}B",
            rate(*cir),
            rate(*pir),
            rate(mir.unwrap_or(*line)),
            rate(*line)
        ),
        Stage::SrRas {
            cir,
            mir,
            line,
            buffer,
        } => format!(
            "srras cir={} mir={} line={} buffer={buffer}B",
            rate(*cir),
            rate(mir.unwrap_or(*line)),
            rate(*line)
        ),
    }
}
