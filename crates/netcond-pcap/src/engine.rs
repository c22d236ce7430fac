//! Runs a chain over packets in time order.
//!
//! Meters and markers (`trtcm`, `srtcm`, `rfc4115`, `pcn-node`) keep one state
//! per flow in a [`FlowTable`]; the queue stages (`red`, `trras`, `srras`, `tbf`) model
//! one queue, the link's, shared by every packet that reaches them, and hold
//! packets until they leave: their output timestamps are the departure times.
//! Departures are events ordered by time; before a packet arriving at `t` is
//! processed, every departure at or before `t` is, so the output is in time
//! order whenever the input is.

use crate::chain::{tbf_profile, ColorBy, Colors, QueueLimit, Stage, FQ_FLOWS_MAX};
use crate::flows::{five_tuple_hash, Classify, FlowTable};
use crate::packet::{self, IpInfo, Link};
use crate::stats::Stats;
use netcond::base::{Color, Instant, LengthAdjust, Rate, SplitMix64, TickRate};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, DelayError, DualHead, DualPi2, DualPi2Config, DualPi2Profile,
    DualQueue, DualScheduler, Ecn as DualEcn, FqCodel, FqCodelConfig, FqCodelProfile, FqPie,
    FqPieConfig, FqPieProfile, Head, OverflowDrop, Pie, PieConfig, PieProfile, Verdict,
};
use netcond::pcn::{
    ExcessMode, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, NodeProfile, NodeRfc5670,
    PcnDscps, PcnMark, PcnMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};
use netcond::ras::{
    PacketLen, Ras, RasProfile, SrRasConfig, SrRasProfile, Tbf, TbfDeparture, TbfProfile,
    TbfVerdict, TrRasConfig, TrRasProfile,
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
    TrTcm(TrTcmProfile, LengthAdjust, Option<Colors>, Vec<TrTcm>),
    SrTcm(SrTcmProfile, LengthAdjust, Option<Colors>, Vec<SrTcm>),
    Rfc4115(Rfc4115Profile, LengthAdjust, Option<Colors>, Vec<Rfc4115>),
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
    Tbf(Box<TbfRt>),
    Aqm(Box<AqmRt>),
}

/// A packet in an AQM stage's queue.
#[derive(Clone, Copy, Debug)]
struct AqmHeld {
    id: u32,
    len: u32,
    enqueued: u64,
    /// The ECN field when it arrived.
    ecn: u8,
}

impl AqmHeld {
    fn head(&self) -> Head {
        Head::new(Instant::from_ticks(self.enqueued), self.len, self.ecn != 0)
    }

    fn dual_head(&self) -> DualHead {
        DualHead::new(
            Instant::from_ticks(self.enqueued),
            self.len,
            DualEcn::from_bits(self.ecn),
        )
    }
}

/// The enqueue instants of DualPI2's two heads (L4S, Classic).
fn dual_heads(q: &[VecDeque<AqmHeld>; 2]) -> (Option<Instant>, Option<Instant>) {
    let at = |f: &VecDeque<AqmHeld>| f.front().map(|h| Instant::from_ticks(h.enqueued));
    (at(&q[0]), at(&q[1]))
}

/// DualPI2's FIFO index of a queue: 0 L4S, 1 Classic.
fn dual_index(q: DualQueue) -> usize {
    usize::from(q == DualQueue::Classic)
}

enum AqmKind {
    Codel {
        profile: CodelProfile,
        codel: Codel,
        limit: QueueLimit,
    },
    Fq {
        profile: FqCodelProfile,
        fq: Box<FqCodel<{ FQ_FLOWS_MAX as usize }>>,
        fifos: Vec<VecDeque<AqmHeld>>,
        flows: u32,
    },
    Pie {
        profile: PieProfile,
        pie: Pie,
        rng: SplitMix64,
        /// The update timer is running (it stops while the queue is empty).
        timer: bool,
        limit: u32,
        t_update_ns: u64,
    },
    FqPie {
        profile: FqPieProfile,
        fq: Box<FqPie<{ FQ_FLOWS_MAX as usize }>>,
        fifos: Vec<VecDeque<AqmHeld>>,
        flows: u32,
        rng: SplitMix64,
        /// The update timer is running (it stops while the queue is empty).
        timer: bool,
        t_update_ns: u64,
    },
    Dual {
        profile: DualPi2Profile,
        dual: DualPi2,
        /// The L4S queue and the Classic queue.
        queues: Box<[VecDeque<AqmHeld>; 2]>,
        rng: SplitMix64,
        /// The update timer is running (it stops while the queue is empty).
        timer: bool,
        t_update_ns: u64,
    },
}

impl AqmKind {
    /// The periodic update at `at` (PIE, FQ-PIE, DualPI2) with `bytes`
    /// queued: the time of the next one, or `None` when the timer stops
    /// (`empty`: the updates while idle are replayed at the next arrival).
    fn timer_poll(&mut self, at: u64, bytes: u64, empty: bool) -> Option<u64> {
        let t = Instant::from_ticks(at);
        let (next, timer) = match self {
            AqmKind::Pie {
                profile,
                pie,
                timer,
                ..
            } => {
                pie.poll(profile, t, bytes);
                (pie.next_update(), timer)
            }
            AqmKind::FqPie {
                profile, fq, timer, ..
            } => {
                fq.poll(profile, t);
                (fq.next_update(), timer)
            }
            AqmKind::Dual {
                profile,
                dual,
                queues,
                timer,
                ..
            } => {
                let (l, c) = dual_heads(queues);
                dual.poll(profile, t, l, c);
                (dual.next_update(), timer)
            }
            AqmKind::Codel { .. } | AqmKind::Fq { .. } => return None,
        };
        if empty {
            *timer = false;
            return None;
        }
        Some(next.ticks().max(at.saturating_add(1)))
    }

    /// A packet was queued at `at`: starts the stopped update timer and
    /// returns when it fires next (`None` if it was running, or for CoDel
    /// and FQ-CoDel).
    fn timer_arm(&mut self, at: u64) -> Option<u64> {
        let (next, timer) = match self {
            AqmKind::Pie { pie, timer, .. } => (pie.next_update(), timer),
            AqmKind::FqPie { fq, timer, .. } => (fq.next_update(), timer),
            AqmKind::Dual { dual, timer, .. } => (dual.next_update(), timer),
            AqmKind::Codel { .. } | AqmKind::Fq { .. } => return None,
        };
        if *timer {
            return None;
        }
        *timer = true;
        Some(next.ticks().max(at))
    }

    /// At an arrival at `at` with the timer stopped (before the decision):
    /// runs the updates it would have run while the queue was empty, up to
    /// the first that changes nothing (every later one is the same), then
    /// the last one due, which sets the next update time.
    fn timer_replay(&mut self, at: u64) {
        match self {
            AqmKind::Pie {
                profile,
                pie,
                timer: false,
                t_update_ns,
                ..
            } => {
                let mut k = 0u32;
                while pie.next_update().ticks() <= at && k < 1_000_000 {
                    let before = (pie.prob(), pie.qdelay_old(), pie.burst_time());
                    let t = pie.next_update();
                    pie.poll(profile, t, 0);
                    k += 1;
                    if (pie.prob(), pie.qdelay_old(), pie.burst_time()) == before {
                        let nu = pie.next_update().ticks();
                        if nu <= at {
                            let last = nu + (at - nu) / *t_update_ns * *t_update_ns;
                            pie.poll(profile, Instant::from_ticks(last), 0);
                        }
                        break;
                    }
                }
            }
            AqmKind::FqPie {
                profile,
                fq,
                timer: false,
                t_update_ns,
                ..
            } => {
                let state = |fq: &FqPie<{ FQ_FLOWS_MAX as usize }>| -> Vec<(u64, u64, u64)> {
                    (0..FQ_FLOWS_MAX as usize)
                        .map(|f| {
                            let p = fq.pie(f);
                            (p.prob(), p.qdelay_old(), p.burst_time())
                        })
                        .collect()
                };
                let mut k = 0u32;
                while fq.next_update().ticks() <= at && k < 1_000_000 {
                    let before = state(fq);
                    let t = fq.next_update();
                    fq.poll(profile, t);
                    k += 1;
                    if state(fq) == before {
                        let nu = fq.next_update().ticks();
                        if nu <= at {
                            let last = nu + (at - nu) / *t_update_ns * *t_update_ns;
                            fq.poll(profile, Instant::from_ticks(last));
                        }
                        break;
                    }
                }
            }
            AqmKind::Dual {
                profile,
                dual,
                timer: false,
                t_update_ns,
                ..
            } => {
                let mut k = 0u32;
                while dual.next_update().ticks() <= at && k < 1_000_000 {
                    let before = (dual.p_prime(), dual.prevq());
                    let t = dual.next_update();
                    dual.poll(profile, t, None, None);
                    k += 1;
                    if (dual.p_prime(), dual.prevq()) == before {
                        let nu = dual.next_update().ticks();
                        if nu <= at {
                            let last = nu + (at - nu) / *t_update_ns * *t_update_ns;
                            dual.poll(profile, Instant::from_ticks(last), None, None);
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
}

/// A `codel`, `fq_codel` or `pie` stage: the AQM, its queue, and the link
/// of `rate` that drains it one packet at a time.
struct AqmRt {
    kind: AqmKind,
    /// The FIFO of `codel` and `pie` (`fq_codel` keeps one per flow).
    fifo: VecDeque<AqmHeld>,
    packets: u32,
    bytes: u64,
    link_bps: u64,
    /// The packet being sent, and when its transmission ends.
    tx: Option<u32>,
    /// A link event is pending.
    scheduled: bool,
    busy_until: u64,
    frac: u64,
}

/// A `tbf` stage: the library's state and the FIFO of held packets it
/// leaves to its caller.
struct TbfRt {
    profile: TbfProfile,
    tbf: Tbf,
    fifo: VecDeque<Held>,
    /// A departure event is pending.
    scheduled: bool,
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
const TBF_TAG: u64 = 1 << 62;
/// An AQM stage's link: the packet in transmission leaves, the next starts.
const AQM_TAG: u64 = 1 << 61;
/// A PIE stage's probability update.
const PIE_TAG: u64 = 1 << 60;
const KIND_TAGS: u64 = RAS_TAG | TBF_TAG | AQM_TAG | PIE_TAG;

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
                    colors,
                } => {
                    let p =
                        TrTcmProfile::new(&TrTcmConfig::new(cir, pir, cbs, pbs).with_tick(tick))
                            .map_err(|e| tc(e, "trtcm"))?;
                    Rt::TrTcm(p, adjust, colors, vec![TrTcm::new(&p, now); n])
                }
                Stage::SrTcm {
                    cir,
                    cbs,
                    ebs,
                    adjust,
                    colors,
                } => {
                    let p = SrTcmProfile::new(&SrTcmConfig::new(cir, cbs, ebs).with_tick(tick))
                        .map_err(|e| tc(e, "srtcm"))?;
                    Rt::SrTcm(p, adjust, colors, vec![SrTcm::new(&p, now); n])
                }
                Stage::Rfc4115 {
                    cir,
                    eir,
                    cbs,
                    ebs,
                    adjust,
                    colors,
                } => {
                    let p = Rfc4115Profile::new(
                        &Rfc4115Config::new(cir, eir, cbs, ebs).with_tick(tick),
                    )
                    .map_err(|e| tc(e, "rfc4115"))?;
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

    /// Flows seen and evicted.
    pub fn flow_counts(&self) -> (u64, u64, usize) {
        (self.flows.seen, self.flows.evicted, self.flows.capacity())
    }

    /// True when some stage holds packets (queues).
    pub fn has_queues(&self) -> bool {
        self.stages
            .iter()
            .any(|s| matches!(s, Rt::Red(_) | Rt::Ras(..) | Rt::Tbf(_) | Rt::Aqm(_)))
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
        if tag & KIND_TAGS == AQM_TAG {
            self.aqm_link(at, (tag & !AQM_TAG) as usize, sink)?;
        } else if tag & KIND_TAGS == PIE_TAG {
            let stage = (tag & !PIE_TAG) as usize;
            if let Rt::Aqm(a) = &mut self.stages[stage] {
                let (bytes, empty) = (a.bytes, a.packets == 0);
                if let Some(next) = a.kind.timer_poll(at, bytes, empty) {
                    self.schedule(next, tag);
                }
            }
        } else if tag & TBF_TAG != 0 && tag & RAS_TAG == 0 {
            let stage = (tag & !TBF_TAG) as usize;
            // Every head the buckets let go now leaves, as one run of
            // Linux's dequeue; the first that may not sets the watchdog.
            let mut out = Vec::new();
            let mut next = None;
            if let Rt::Tbf(t) = &mut self.stages[stage] {
                t.scheduled = false;
                let now = Instant::from_ticks(at);
                while let Some(&h) = t.fifo.front() {
                    match t.tbf.dequeue(&t.profile, now, h.len) {
                        TbfDeparture::Now => {
                            t.fifo.pop_front();
                            out.push(h.id);
                        }
                        TbfDeparture::At(w) => {
                            t.scheduled = true;
                            next = Some(w.ticks().max(at));
                            break;
                        }
                        // Not for a packet `enqueue` accepted; leave it rather than spin.
                        TbfDeparture::Never => {
                            t.fifo.pop_front();
                            out.push(h.id);
                        }
                    }
                }
            }
            if let Some(n) = next {
                self.schedule(n, tag);
            }
            for id in out {
                if let Some((p, _)) = self.take(id) {
                    self.run(p, stage + 1, at, sink)?;
                }
            }
        } else if tag & RAS_TAG != 0 {
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
                Rt::TrTcm(p, _, _, v) => v[s] = TrTcm::new(p, now),
                Rt::SrTcm(p, _, _, v) => v[s] = SrTcm::new(p, now),
                Rt::Rfc4115(p, _, _, v) => v[s] = Rfc4115::new(p, now),
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
            pcp: info.pcp,
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
            Rt::TrTcm(p, a, c, v) => {
                st.color = match c {
                    None => v[s].color_blind(p, now, a.apply(len)),
                    Some(c) => v[s].color_aware(p, now, a.apply(len), input_color(c, st)),
                };
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::SrTcm(p, a, c, v) => {
                st.color = match c {
                    None => v[s].color_blind(p, now, a.apply(len)),
                    Some(c) => v[s].color_aware(p, now, a.apply(len), input_color(c, st)),
                };
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::Rfc4115(p, a, c, v) => {
                st.color = match c {
                    None => v[s].color_blind(p, now, a.apply(len)),
                    Some(c) => v[s].color_aware(p, now, a.apply(len), input_color(c, st)),
                };
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
            Rt::Red(_) | Rt::Ras(..) | Rt::Tbf(_) | Rt::Aqm(_) => {}
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
            pcp: p.info.pcp,
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
                Rt::Tbf(t) => {
                    apply_tos(&mut p, st.tos);
                    p.color = st.color;
                    p.pcn = st.pcn;
                    let now = Instant::from_ticks(at);
                    match t.tbf.enqueue(&t.profile, now, len) {
                        TbfVerdict::Accept => {
                            let kick = !t.scheduled;
                            t.scheduled = true;
                            self.stats.count(i, 0, len, at);
                            let id = self.hold(p, i);
                            if let Rt::Tbf(t) = &mut self.stages[i] {
                                t.fifo.push_back(Held { id, len });
                            }
                            if kick {
                                self.schedule(at, TBF_TAG | i as u64);
                            }
                            return Ok(());
                        }
                        v => {
                            let k = if v == TbfVerdict::DropTooBig { 2 } else { 1 };
                            self.stats.count(i, k, len, at);
                            return self.leave(p, at, true, sink);
                        }
                    }
                }
                Rt::Aqm(_) => {
                    apply_tos(&mut p, st.tos);
                    p.color = st.color;
                    p.pcn = st.pcn;
                    return self.aqm_enqueue(p, i, at, sink);
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

/// The input color of a packet for a color-aware meter.
#[inline(always)]
fn input_color(c: &Colors, st: &State) -> Color {
    match c.by {
        ColorBy::Dscp => c.table.ds_field(st.tos),
        ColorBy::Pcp => c.table.pcp(st.pcp),
    }
}

fn delay_err(stage: &str, e: DelayError) -> SetupError {
    SetupError(format!("{stage}: {e}"))
}

/// The library profiles of an AQM stage, checked (used by the chain parser
/// so that a bad configuration is refused with the library's message).
pub fn check_aqm(s: &Stage) -> Result<(), SetupError> {
    aqm_rt(s).map(|_| ())
}

fn aqm_rt(s: &Stage) -> Result<AqmRt, SetupError> {
    let now = Instant::ZERO;
    let (kind, rate) = match *s {
        Stage::Codel {
            rate,
            target,
            interval,
            limit,
            ecn,
            linux,
        } => {
            let base = if linux {
                CodelConfig::linux()
            } else {
                CodelConfig::rfc8289()
            };
            let cfg = base
                .with_target(target)
                .with_interval(interval)
                .with_ecn(ecn)
                .with_tick(TickRate::NANOS);
            let profile = CodelProfile::new(&cfg).map_err(|e| delay_err("codel", e))?;
            (
                AqmKind::Codel {
                    profile,
                    codel: Codel::new(&profile, now),
                    limit,
                },
                rate,
            )
        }
        Stage::FqCodel {
            rate,
            flows,
            quantum,
            target,
            interval,
            limit,
            ecn,
        } => {
            let codel = CodelConfig::linux()
                .with_target(target)
                .with_interval(interval)
                .with_ecn(ecn)
                .with_tick(TickRate::NANOS);
            let cfg = FqCodelConfig::linux()
                .with_codel(codel)
                .with_quantum(quantum)
                .with_limit(limit)
                .with_overflow(OverflowDrop::Batch { max_packets: 64 });
            let profile = FqCodelProfile::new(&cfg).map_err(|e| delay_err("fq_codel", e))?;
            (
                AqmKind::Fq {
                    profile,
                    fq: Box::new(FqCodel::new(&profile, now)),
                    fifos: vec![VecDeque::new(); flows as usize],
                    flows,
                },
                rate,
            )
        }
        Stage::Pie {
            rate,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            bytemode,
        } => {
            let cfg = PieConfig::linux()
                .with_target(target)
                .with_t_update(tupdate)
                .with_alpha_beta(alpha, beta)
                .with_limit(limit)
                .with_ecn(ecn)
                .with_bytemode(bytemode)
                .with_tick(TickRate::NANOS);
            let profile = PieProfile::new(&cfg).map_err(|e| delay_err("pie", e))?;
            (
                AqmKind::Pie {
                    profile,
                    pie: Pie::new(&profile, now),
                    rng: SplitMix64::new(1),
                    timer: false,
                    limit,
                    t_update_ns: u64::try_from(tupdate.as_nanos()).unwrap_or(u64::MAX).max(1),
                },
                rate,
            )
        }
        Stage::FqPie {
            rate,
            flows,
            quantum,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            ecn_prob,
            bytemode,
        } => {
            let pie = PieConfig::linux()
                .with_target(target)
                .with_t_update(tupdate)
                .with_alpha_beta(alpha, beta)
                .with_ecn(ecn)
                .with_bytemode(bytemode)
                .with_tick(TickRate::NANOS);
            let cfg = FqPieConfig::linux()
                .with_pie(pie)
                .with_quantum(quantum)
                .with_limit(limit)
                .with_ecn_prob(ecn_prob);
            let profile = FqPieProfile::new(&cfg).map_err(|e| delay_err("fq_pie", e))?;
            (
                AqmKind::FqPie {
                    profile,
                    fq: Box::new(FqPie::new(&profile, now)),
                    fifos: vec![VecDeque::new(); flows as usize],
                    flows,
                    rng: SplitMix64::new(1),
                    timer: false,
                    t_update_ns: u64::try_from(tupdate.as_nanos()).unwrap_or(u64::MAX).max(1),
                },
                rate,
            )
        }
        Stage::DualPi2 {
            rate,
            target,
            tupdate,
            alpha_mhz,
            beta_mhz,
            k16,
            step,
            limit,
            tshift,
        } => {
            let cfg = DualPi2Config::linux_defaults()
                .with_target(target)
                .with_t_update(tupdate)
                .with_gains(alpha_mhz, beta_mhz)
                .with_k16(k16)
                .with_ramp(step, std::time::Duration::ZERO)
                .with_limit(limit, 1500)
                .with_scheduler(DualScheduler::TimeShifted { tshift })
                .with_tick(TickRate::NANOS);
            let profile = DualPi2Profile::new(&cfg).map_err(|e| delay_err("dualpi2", e))?;
            (
                AqmKind::Dual {
                    profile,
                    dual: DualPi2::new(&profile, now),
                    queues: Box::default(),
                    rng: SplitMix64::new(1),
                    timer: false,
                    t_update_ns: u64::try_from(tupdate.as_nanos()).unwrap_or(u64::MAX).max(1),
                },
                rate,
            )
        }
        _ => return Err(SetupError("internal: not an AQM stage".into())),
    };
    if rate.is_zero() {
        return Err(SetupError(format!("{}: rate must be above zero", s.name())));
    }
    Ok(AqmRt {
        kind,
        fifo: VecDeque::new(),
        packets: 0,
        bytes: 0,
        link_bps: rate.bits_per_sec(),
        tx: None,
        scheduled: false,
        busy_until: 0,
        frac: 0,
    })
}

/// The `fq_codel` flow queue of a packet: the upper 32 bits of
/// [`five_tuple_hash`] scaled to `flows` as Linux's `reciprocal_scale`
/// (`hash * flows >> 32`).
pub fn fq_flow(info: &IpInfo, flows: u32) -> usize {
    let h = five_tuple_hash(info) >> 32;
    ((h * u64::from(flows)) >> 32) as usize
}

impl Engine {
    /// A packet reaches AQM stage `i` at `at`.
    fn aqm_enqueue<S: Sink>(
        &mut self,
        p: Pkt,
        i: usize,
        at: u64,
        sink: &mut S,
    ) -> std::io::Result<()> {
        let len = p.info.len;
        let ecn = current_tos(&p) & 3;
        let id = match self.free.last() {
            Some(&x) => x,
            None => self.held.len() as u32,
        };
        let h = AqmHeld {
            id,
            len,
            enqueued: at,
            ecn,
        };
        let now = Instant::from_ticks(at);
        let Rt::Aqm(a) = &mut self.stages[i] else {
            return Ok(());
        };
        a.kind.timer_replay(at);
        // Counter index: 0 enqueued, 1 ce-marked, 2 dropped, 3 overlimit.
        let mut counts: Vec<(usize, u32)> = Vec::new();
        let mut head_drops: Vec<(u32, u32)> = Vec::new();
        let mut accept = true;
        let mut mark = false;
        match &mut a.kind {
            AqmKind::Codel { limit, .. } => {
                let over = match *limit {
                    QueueLimit::Packets(n) => a.packets >= n,
                    QueueLimit::Bytes(b) => a.bytes + u64::from(len) > b,
                };
                if over {
                    accept = false;
                    counts.push((3, len));
                } else {
                    a.fifo.push_back(h);
                }
            }
            AqmKind::Fq {
                profile,
                fq,
                fifos,
                flows,
            } => {
                let f = fq_flow(&p.info, *flows);
                fifos[f].push_back(h);
                let r = fq.enqueue(profile, now, f, len, |v| {
                    let d = fifos.get_mut(v)?.pop_front()?;
                    head_drops.push((d.id, d.len));
                    Some(d.len)
                });
                let _ = r;
            }
            AqmKind::Pie {
                profile,
                pie,
                rng,
                limit,
                ..
            } => {
                let over = a.packets >= *limit;
                let v = pie.on_enqueue(profile, now, h.head(), a.packets, a.bytes, rng);
                match v {
                    _ if over => {
                        accept = false;
                        counts.push((3, len));
                    }
                    Verdict::Drop => {
                        accept = false;
                        counts.push((2, len));
                    }
                    Verdict::Mark => {
                        mark = true;
                        counts.push((1, len));
                        a.fifo.push_back(h);
                    }
                    Verdict::Deliver => a.fifo.push_back(h),
                }
            }
            AqmKind::FqPie {
                profile,
                fq,
                fifos,
                flows,
                rng,
                ..
            } => {
                let f = fq_flow(&p.info, *flows);
                let over = fq.totals().0 >= profile.limit();
                match fq.enqueue(profile, now, f, h.head(), rng) {
                    Verdict::Drop => {
                        accept = false;
                        counts.push((if over { 3 } else { 2 }, len));
                    }
                    Verdict::Mark => {
                        mark = true;
                        counts.push((1, len));
                        fifos[f].push_back(h);
                    }
                    Verdict::Deliver => fifos[f].push_back(h),
                }
            }
            AqmKind::Dual {
                profile,
                dual,
                queues,
                ..
            } => match dual.on_enqueue(profile, now, DualEcn::from_bits(ecn), len, a.bytes) {
                None => {
                    accept = false;
                    counts.push((3, len));
                }
                Some(q) => queues[dual_index(q)].push_back(h),
            },
        }
        let mut pie_timer = None;
        let mut kick = false;
        if accept {
            a.packets += 1;
            a.bytes += u64::from(len);
            counts.insert(0, (0, len));
            kick = !a.scheduled;
            a.scheduled = true;
            pie_timer = a.kind.timer_arm(at);
        }
        for &(_, l) in &head_drops {
            // fq_codel's overflow: the head packets dropped left the queue.
            if let Rt::Aqm(a) = &mut self.stages[i] {
                a.packets = a.packets.saturating_sub(1);
                a.bytes = a.bytes.saturating_sub(u64::from(l));
            }
            counts.push((3, l));
        }
        for (k, l) in counts {
            self.stats.count(i, k, l, at);
        }
        let mut p = p;
        if mark {
            let t = current_tos(&p) | 3;
            apply_tos(&mut p, t);
        }
        if accept {
            let got = self.hold(p, i);
            debug_assert_eq!(got, id);
        } else {
            self.leave(p, at, true, sink)?;
        }
        if let Some(t) = pie_timer {
            self.schedule(t, PIE_TAG | i as u64);
        }
        if kick {
            self.schedule(at, AQM_TAG | i as u64);
        }
        for (d, _) in head_drops {
            if let Some((q, _)) = self.take(d) {
                self.leave(q, at, true, sink)?;
            }
        }
        Ok(())
    }

    /// AQM stage `i`'s link at `at`: the packet sent leaves the stage, and
    /// the queue gives the next (dropping or marking on the way).
    fn aqm_link<S: Sink>(&mut self, at: u64, i: usize, sink: &mut S) -> std::io::Result<()> {
        let now = Instant::from_ticks(at);
        let Rt::Aqm(a) = &mut self.stages[i] else {
            return Ok(());
        };
        let sent = a.tx.take();
        let mut dropped: Vec<u32> = Vec::new();
        let mut marked = None;
        let mut next: Option<AqmHeld> = None;
        match &mut a.kind {
            AqmKind::Codel { profile, codel, .. } => loop {
                let Some(h) = a.fifo.pop_front() else {
                    codel.on_empty(profile, now);
                    break;
                };
                a.packets -= 1;
                a.bytes -= u64::from(h.len);
                match codel.on_dequeue(profile, now, h.head(), a.bytes) {
                    Verdict::Drop => dropped.push(h.id),
                    Verdict::Mark => {
                        marked = Some(h.id);
                        next = Some(h);
                        break;
                    }
                    Verdict::Deliver => {
                        next = Some(h);
                        break;
                    }
                }
            },
            AqmKind::Fq {
                profile, fq, fifos, ..
            } => {
                while let Some(f) = fq.schedule(profile, now) {
                    let Some(h) = fifos.get_mut(f).and_then(VecDeque::pop_front) else {
                        break;
                    };
                    a.packets -= 1;
                    a.bytes -= u64::from(h.len);
                    match fq.on_dequeue(profile, now, f, h.head()) {
                        Verdict::Drop => dropped.push(h.id),
                        Verdict::Mark => {
                            marked = Some(h.id);
                            next = Some(h);
                            break;
                        }
                        Verdict::Deliver => {
                            next = Some(h);
                            break;
                        }
                    }
                }
            }
            AqmKind::Pie { profile, pie, .. } => {
                if let Some(h) = a.fifo.pop_front() {
                    a.packets -= 1;
                    a.bytes -= u64::from(h.len);
                    pie.on_dequeue(profile, now, h.head(), a.bytes);
                    next = Some(h);
                }
            }
            AqmKind::FqPie {
                profile, fq, fifos, ..
            } => {
                if let Some(f) = fq.schedule(profile, now) {
                    if let Some(h) = fifos.get_mut(f).and_then(VecDeque::pop_front) {
                        a.packets -= 1;
                        a.bytes -= u64::from(h.len);
                        fq.on_dequeue(profile, now, f, h.head());
                        next = Some(h);
                    }
                }
            }
            AqmKind::Dual {
                profile,
                dual,
                queues,
                rng,
                ..
            } => loop {
                let (l, c) = dual_heads(queues);
                let Some(q) = dual.schedule(profile, now, l, c) else {
                    break;
                };
                let fifo = &mut queues[dual_index(q)];
                let Some(h) = fifo.pop_front() else {
                    break;
                };
                let left = fifo.len() as u32;
                a.packets -= 1;
                a.bytes -= u64::from(h.len);
                match dual.on_dequeue(profile, now, q, h.dual_head(), left, rng) {
                    Verdict::Drop => dropped.push(h.id),
                    Verdict::Mark => {
                        marked = Some(h.id);
                        next = Some(h);
                        break;
                    }
                    Verdict::Deliver => {
                        next = Some(h);
                        break;
                    }
                }
            },
        }
        let mut end = None;
        if let Some(h) = next {
            let start = a.busy_until.max(at);
            if start > a.busy_until {
                a.frac = 0;
            }
            let num = u128::from(h.len) * 8 * 1_000_000_000 + u128::from(a.frac);
            let bps = u128::from(a.link_bps);
            let dep = start.saturating_add((num / bps).min(u128::from(u64::MAX)) as u64);
            a.frac = (num % bps) as u64;
            a.busy_until = dep;
            a.tx = Some(h.id);
            end = Some(dep);
        } else {
            a.scheduled = false;
        }
        if let Some(dep) = end {
            self.schedule(dep, AQM_TAG | i as u64);
        }
        if let Some(id) = marked {
            let len = self
                .held
                .get(id as usize)
                .and_then(|x| x.as_ref())
                .map_or(0, |x| x.0.info.len);
            self.stats.count(i, 1, len, at);
            if let Some(Some((p, _))) = self.held.get_mut(id as usize) {
                let t = current_tos(p) | 3;
                apply_tos(p, t);
            }
        }
        for d in dropped {
            if let Some((p, _)) = self.take(d) {
                self.stats.count(i, 2, p.info.len, at);
                self.leave(p, at, true, sink)?;
            }
        }
        if let Some(id) = sent {
            if let Some((p, _)) = self.take(id) {
                self.run(p, i + 1, at, sink)?;
            }
        }
        Ok(())
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
    pcp: u8,
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
            colors,
        } => format!(
            "trtcm cir={} pir={} cbs={cbs}B pbs={pbs}B{}{}",
            rate(*cir),
            rate(*pir),
            describe_adjust(adjust),
            describe_colors(colors)
        ),
        Stage::SrTcm {
            cir,
            cbs,
            ebs,
            adjust,
            colors,
        } => format!(
            "srtcm cir={} cbs={cbs}B ebs={ebs}B{}{}",
            rate(*cir),
            describe_adjust(adjust),
            describe_colors(colors)
        ),
        Stage::Rfc4115 {
            cir,
            eir,
            cbs,
            ebs,
            adjust,
            colors,
        } => format!(
            "rfc4115 cir={} eir={} cbs={cbs}B ebs={ebs}B{}{}",
            rate(*cir),
            rate(*eir),
            describe_adjust(adjust),
            describe_colors(colors)
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
        Stage::Tbf {
            rate: r,
            burst,
            latency,
            peak,
            adjust,
            ..
        } => {
            let limit = match tbf_profile(s) {
                Ok(Some(p)) => format!(" limit={}B", p.limit()),
                _ => String::new(),
            };
            let lat = latency.map_or(String::new(), |l| format!(" (latency {l:?})"));
            let pk = peak.map_or(String::new(), |(pr, mtu)| {
                format!(" peakrate={} mtu={mtu}B", rate(pr))
            });
            format!(
                "tbf rate={} burst={burst}B{limit}{lat}{pk}{}",
                rate(*r),
                describe_adjust(adjust)
            )
        }
        Stage::Codel {
            rate: r,
            target,
            interval,
            limit,
            ecn,
            linux,
        } => format!(
            "codel rate={} target={target:?} interval={interval:?} limit={}{} law={}",
            rate(*r),
            match limit {
                QueueLimit::Packets(n) => format!("{n}p"),
                QueueLimit::Bytes(b) => format!("{b}B"),
            },
            if *ecn { " ecn" } else { "" },
            if *linux { "linux" } else { "exact" }
        ),
        Stage::FqCodel {
            rate: r,
            flows,
            quantum,
            target,
            interval,
            limit,
            ecn,
        } => format!(
            "fq_codel rate={} flows={flows} quantum={quantum}B target={target:?} interval={interval:?} limit={limit}p{}",
            rate(*r),
            if *ecn { " ecn" } else { " noecn" }
        ),
        Stage::Pie {
            rate: r,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            bytemode,
        } => format!(
            "pie rate={} target={target:?} tupdate={tupdate:?} alpha={alpha} beta={beta} limit={limit}p{}{}",
            rate(*r),
            if *ecn { " ecn" } else { "" },
            if *bytemode { " bytemode" } else { "" }
        ),
        Stage::FqPie {
            rate: r,
            flows,
            quantum,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            ecn_prob,
            bytemode,
        } => format!(
            "fq_pie rate={} flows={flows} quantum={quantum}B target={target:?} tupdate={tupdate:?} alpha={alpha} beta={beta} limit={limit}p{} ecn_prob={ecn_prob}{}",
            rate(*r),
            if *ecn { " ecn" } else { "" },
            if *bytemode { " bytemode" } else { "" }
        ),
        Stage::DualPi2 {
            rate: r,
            target,
            tupdate,
            alpha_mhz,
            beta_mhz,
            k16,
            step,
            limit,
            tshift,
        } => format!(
            "dualpi2 rate={} target={target:?} tupdate={tupdate:?} alpha={}Hz beta={}Hz coupling_factor={} step_thresh={step:?} limit={limit}B tshift={tshift:?}",
            rate(*r),
            f64::from(*alpha_mhz) / 1000.0,
            f64::from(*beta_mhz) / 1000.0,
            f64::from(*k16) / 16.0,
        ),
    }
}

fn describe_colors(c: &Option<Colors>) -> String {
    match c {
        None => String::new(),
        Some(c) if *c == Colors::RFC2597 => " colors=rfc2597".into(),
        Some(c) => {
            let (name, table): (&str, &[Color]) = match c.by {
                ColorBy::Dscp => ("dscp", c.table.dscp_table()),
                ColorBy::Pcp => ("pcp", c.table.pcp_table()),
            };
            let items: Vec<String> = table
                .iter()
                .enumerate()
                .filter(|(_, &k)| k != Color::Green)
                .map(|(i, k)| format!("{i}={}", if *k == Color::Yellow { "yellow" } else { "red" }))
                .collect();
            format!(" colors={name}:{}", items.join(","))
        }
    }
}
