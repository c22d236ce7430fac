//! The bottleneck's queueing disciplines: drop-tail, RED (aqm-red), CoDel,
//! FQ-CoDel, PIE, FQ-PIE and DualPI2 (aqm-delay), each over packets the queue
//! keeps with their enqueue instants, and a shared log of what each packet met.
//!
//! The state machines decide; this module only keeps the packets (one FIFO,
//! one per flow for FQ-CoDel and FQ-PIE, two for DualPI2) and asks them at
//! each arrival and each departure, as their crate docs describe. PIE's,
//! FQ-PIE's and DualPI2's periodic updates run lazily: before an arrival or a departure at `now`,
//! every update due at or before `now` runs at its own instant, in order. The
//! queue does not change between two of its events, so each update sees what
//! a timer firing at that instant would see.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use netcond::base::{Instant, Rate, TickRate};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue,
    Ecn as DualEcn, FqCodel, FqCodelConfig, FqCodelProfile, FqPie, FqPieConfig, FqPieProfile, Head,
    Pie, PieConfig, PieProfile, Verdict,
};
use netcond::red::{Decision, Ecn, Packet as RedPacket, Red, RedConfig, RedProfile};

use super::codel_trace::CodelTrace;
use crate::engine::{Rng, Time};
use crate::tcp::net::{Deq, Packet, Qdisc, QdiscStats};
use crate::SimError;

/// Flow queues of FQ-CoDel and FQ-PIE (RFC 8290 section 5.2.5: Linux's
/// default 1024; `sch_fq_pie`'s too). The flow index is the TCP flow's id
/// (no hashing, so no collisions).
pub const FQ_FLOWS: usize = 1024;

/// The disciplines compared, in report order.
pub const DISCIPLINES: &[&str] = &[
    "droptail", "red", "codel", "fq_codel", "pie", "fq_pie", "dualpi2",
];

/// Index of a packet's log class: 0 for Classic senders' packets (DualPI2's
/// Classic queue), 1 for scalable senders' (DualPI2's L4S queue).
fn class_of(p: &Packet) -> usize {
    usize::from(p.class.min(1))
}

/// One packet sent: when it started transmission, how long it waited, and
/// whose it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// Start of its transmission (its dequeue instant), ns.
    pub at: Time,
    /// Its queueing delay (sojourn time), ns.
    pub sojourn: u64,
    /// The TCP flow's id.
    pub flow: u32,
    /// Its log class: 0 Classic, 1 scalable.
    pub class: u8,
    /// It arrived to an empty queue of its own: its flow's queue in FQ-CoDel
    /// and FQ-PIE, its class's in DualPI2, the one FIFO in the others.
    pub alone: bool,
}

/// What every packet met at the bottleneck, shared between the queue (in
/// the link) and the scenario. Counters marked "since reset" restart at the
/// end of the warm-up; the totals never do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueLog {
    /// Since reset: each sent packet's queueing delay (dequeue instant minus
    /// enqueue instant), ns, by class (Classic, scalable).
    pub delays: [Vec<u64>; 2],
    /// Since reset: every packet sent, in order.
    pub sent: Vec<Sent>,
    /// Since reset: the instants at which a dequeue found no packet to send
    /// (the link went idle).
    pub idle: Vec<Time>,
    /// Since reset: packets dropped (at arrival or at the head), by class.
    pub drops: [u64; 2],
    /// Since reset: packets CE-marked, by class.
    pub marks: [u64; 2],
    /// Since reset: packets offered to the queue, by TCP flow id.
    pub flow_arrivals: Vec<u64>,
    /// Since reset: packets dropped (at arrival or at the head), by TCP flow id.
    pub flow_drops: Vec<u64>,
    /// Total bytes offered to the queue.
    pub arrived_bytes: u64,
    /// Total bytes dropped (at arrival, at the head, or by FQ-CoDel's overflow).
    pub dropped_bytes: u64,
    /// Total bytes handed to the link.
    pub sent_bytes: u64,
    /// Bytes waiting now.
    pub queued_bytes: u64,
    /// Since reset: CoDel's dropping episodes (the CoDel discipline only).
    pub codel: CodelTrace,
}

impl QueueLog {
    fn reset(&mut self) {
        self.delays.iter_mut().for_each(Vec::clear);
        self.sent.clear();
        self.idle.clear();
        self.drops = [0; 2];
        self.marks = [0; 2];
        self.flow_arrivals.clear();
        self.flow_drops.clear();
        self.codel = CodelTrace::default();
    }
}

/// Adds one to `v[i]`, growing `v` as needed.
fn count(v: &mut Vec<u64>, i: u32) {
    let i = i as usize;
    if v.len() <= i {
        v.resize(i + 1, 0);
    }
    v[i] += 1;
}

/// A packet waiting, with its enqueue instant.
#[derive(Clone, Copy, Debug)]
struct Held {
    pkt: Packet,
    at: Time,
    /// It arrived to an empty queue of its own (see [`Sent::alone`]).
    alone: bool,
}

impl Held {
    fn ecn_capable(&self) -> bool {
        self.pkt.seg.ect || self.pkt.seg.ce
    }
    fn head(&self) -> Head {
        Head::new(
            Instant::from_ticks(self.at),
            self.pkt.seg.wire_len,
            self.ecn_capable(),
        )
    }
    fn dual_head(&self) -> DualHead {
        DualHead::new(
            Instant::from_ticks(self.at),
            self.pkt.seg.wire_len,
            dual_ecn(&self.pkt),
        )
    }
}

fn dual_ecn(p: &Packet) -> DualEcn {
    match (p.seg.ce, p.seg.ect, p.seg.ect1) {
        (true, _, _) => DualEcn::Ce,
        (false, true, true) => DualEcn::Ect1,
        (false, true, false) => DualEcn::Ect0,
        (false, false, _) => DualEcn::NotEct,
    }
}

fn red_ecn(p: &Packet) -> Ecn {
    match dual_ecn(p) {
        DualEcn::Ce => Ecn::Ce,
        DualEcn::Ect1 => Ecn::Ect1,
        DualEcn::Ect0 => Ecn::Ect0,
        DualEcn::NotEct => Ecn::NotEct,
    }
}

/// What a discipline decided for an arriving packet.
enum Outcome {
    /// Queue it (marked CE first if `mark`; in DualPI2's L4S queue if `l4s`).
    Queue { mark: bool, l4s: bool },
    /// Already queued by FQ-CoDel (in its flow's FIFO).
    Queued,
    /// Drop it: by an early decision, or because the queue is full.
    Drop { early: bool },
}

/// The discipline's state machine and whatever packets it keeps beyond the
/// main FIFO.
enum Kind {
    DropTail,
    Red {
        profile: Box<RedProfile>,
        red: Red,
        rng: Rng,
    },
    Codel {
        profile: CodelProfile,
        codel: Codel,
    },
    FqCodel {
        profile: FqCodelProfile,
        fq: Box<FqCodel<FQ_FLOWS>>,
        fifos: Vec<VecDeque<Held>>,
    },
    Pie {
        profile: PieProfile,
        pie: Pie,
        rng: Rng,
    },
    FqPie {
        profile: FqPieProfile,
        fq: Box<FqPie<FQ_FLOWS>>,
        fifos: Vec<VecDeque<Held>>,
        rng: Rng,
    },
    DualPi2 {
        profile: DualPi2Profile,
        dual: DualPi2,
        /// The L4S queue (`fifo` is the Classic queue).
        l4s: VecDeque<Held>,
        rng: Rng,
    },
}

/// How the bottleneck is configured (the scenario's parameters).
#[derive(Clone, Copy, Debug)]
pub struct QueueSetup {
    /// Packets that may wait (every discipline's limit; DualPI2's is this
    /// many MTUs of bytes).
    pub limit: u32,
    /// Mark ECN-capable packets instead of dropping them (RED, CoDel,
    /// FQ-CoDel, PIE, FQ-PIE; DualPI2 always marks).
    pub ecn: bool,
    /// The link rate, for RED's idle-time estimate.
    pub rate_bps: u64,
    /// Bytes on the wire of a full-sized packet (the MTU).
    pub mtu: u32,
}

/// The bottleneck's queue: one of [`DISCIPLINES`] over the packets it keeps.
pub struct Bottleneck {
    kind: Kind,
    /// The single FIFO (DualPI2: the Classic queue; FQ-CoDel, FQ-PIE: unused).
    fifo: VecDeque<Held>,
    packets: u32,
    bytes: u64,
    limit: u32,
    stats: QdiscStats,
    log: Arc<Mutex<QueueLog>>,
}

fn cfg_err<E: core::fmt::Display>(what: &str) -> impl Fn(E) -> SimError + '_ {
    move |e| SimError::Config(format!("{what}: {e}"))
}

impl Bottleneck {
    /// The discipline `name` (one of [`DISCIPLINES`]) with `setup`, drawing
    /// from `rng`, logging into `log`.
    pub fn new(
        name: &str,
        setup: QueueSetup,
        mut rng: Rng,
        log: Arc<Mutex<QueueLog>>,
    ) -> Result<Bottleneck, SimError> {
        let now = Instant::ZERO;
        let kind = match name {
            "droptail" => Kind::DropTail,
            "red" => {
                // ns-2's RED defaults: thresh 5, maxthresh 15, linterm 10
                // (max_p 0.1), q_weight 0.002.
                let mut cfg = RedConfig::packets(
                    5,
                    15,
                    RedConfig::prob(0.1),
                    RedConfig::prob(0.002),
                    setup.limit,
                );
                cfg.queue.typical_tx =
                    RedConfig::typical_tx(Rate::from_bits_per_sec(setup.rate_bps), setup.mtu);
                cfg.queue.ecn = setup.ecn;
                let profile = RedProfile::new(&cfg).map_err(cfg_err("red"))?;
                Kind::Red {
                    red: Red::new(&profile, now),
                    profile: Box::new(profile),
                    rng: rng.fork(1),
                }
            }
            "codel" => {
                let cfg = CodelConfig::rfc8289()
                    .with_ecn(setup.ecn)
                    .with_tick(TickRate::NANOS);
                let profile = CodelProfile::new(&cfg).map_err(cfg_err("codel"))?;
                Kind::Codel {
                    codel: Codel::new(&profile, now),
                    profile,
                }
            }
            "fq_codel" => {
                let codel = CodelConfig::rfc8289()
                    .with_ecn(setup.ecn)
                    .with_tick(TickRate::NANOS);
                let cfg = FqCodelConfig::rfc8290()
                    .with_codel(codel)
                    .with_limit(setup.limit);
                let profile = FqCodelProfile::new(&cfg).map_err(cfg_err("fq_codel"))?;
                Kind::FqCodel {
                    fq: Box::new(FqCodel::new(&profile, now)),
                    profile,
                    fifos: vec![VecDeque::new(); FQ_FLOWS],
                }
            }
            "pie" => {
                let cfg = PieConfig::rfc8033()
                    .with_limit(setup.limit)
                    .with_mtu(setup.mtu)
                    .with_ecn(setup.ecn)
                    .with_tick(TickRate::NANOS);
                let profile = PieProfile::new(&cfg).map_err(cfg_err("pie"))?;
                Kind::Pie {
                    pie: Pie::new(&profile, now),
                    profile,
                    rng: rng.fork(2),
                }
            }
            "fq_pie" => {
                // sch_fq_pie's defaults (Linux's PIE law, quantum 1514,
                // ecn_prob 10 %) with the scenario's limit, MTU and ECN.
                let pie = PieConfig::linux()
                    .with_mtu(setup.mtu)
                    .with_ecn(setup.ecn)
                    .with_tick(TickRate::NANOS);
                let cfg = FqPieConfig::linux().with_pie(pie).with_limit(setup.limit);
                let profile = FqPieProfile::new(&cfg).map_err(cfg_err("fq_pie"))?;
                Kind::FqPie {
                    fq: Box::new(FqPie::new(&profile, now)),
                    profile,
                    fifos: vec![VecDeque::new(); FQ_FLOWS],
                    rng: rng.fork(4),
                }
            }
            "dualpi2" => {
                let cfg = DualPi2Config::rfc9332()
                    .with_limit(u64::from(setup.limit) * u64::from(setup.mtu), setup.mtu)
                    .with_tick(TickRate::NANOS);
                let profile = DualPi2Profile::new(&cfg).map_err(cfg_err("dualpi2"))?;
                Kind::DualPi2 {
                    dual: DualPi2::new(&profile, now),
                    profile,
                    l4s: VecDeque::new(),
                    rng: rng.fork(3),
                }
            }
            other => {
                return Err(SimError::Param(format!(
                    "unknown discipline {other:?} (one of {})",
                    DISCIPLINES.join(", ")
                )))
            }
        };
        Ok(Bottleneck {
            kind,
            fifo: VecDeque::new(),
            packets: 0,
            bytes: 0,
            limit: setup.limit,
            stats: QdiscStats::default(),
            log,
        })
    }

    /// Runs PIE's, FQ-PIE's and DualPI2's updates due at or before `now`,
    /// each at its own instant.
    fn catch_up(&mut self, now: Time) {
        match &mut self.kind {
            Kind::Pie { profile, pie, .. } => {
                while pie.next_update().ticks() <= now {
                    let t = pie.next_update();
                    if !pie.poll(profile, t, self.bytes) {
                        break;
                    }
                }
            }
            Kind::FqPie { profile, fq, .. } => {
                while fq.next_update().ticks() <= now {
                    let t = fq.next_update();
                    if !fq.poll(profile, t) {
                        break;
                    }
                }
            }
            Kind::DualPi2 {
                profile, dual, l4s, ..
            } => {
                let l = l4s.front().map(|h| Instant::from_ticks(h.at));
                let c = self.fifo.front().map(|h| Instant::from_ticks(h.at));
                while dual.next_update().ticks() <= now {
                    let t = dual.next_update();
                    if !dual.poll(profile, t, l, c) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }

    fn drop_counted(&mut self, log: &mut QueueLog, p: &Packet, early: bool) {
        if early {
            self.stats.early_drops += 1;
        } else {
            self.stats.forced_drops += 1;
        }
        log.drops[class_of(p)] += 1;
        count(&mut log.flow_drops, p.seg.flow);
        log.dropped_bytes += u64::from(p.seg.wire_len);
    }

    fn mark(&mut self, log: &mut QueueLog, p: &mut Packet) {
        p.seg.mark_ce();
        self.stats.marks += 1;
        log.marks[class_of(p)] += 1;
    }
}

impl Qdisc<Packet> for Bottleneck {
    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Result<(), Packet> {
        self.catch_up(now);
        let log = Arc::clone(&self.log);
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        self.stats.arrived += 1;
        let len = pkt.seg.wire_len;
        log.arrived_bytes += u64::from(len);
        count(&mut log.flow_arrivals, pkt.seg.flow);
        let full = self.packets >= self.limit;
        let held = Held {
            pkt,
            at: now,
            alone: false,
        };
        let flow = pkt.seg.flow as usize % FQ_FLOWS;
        let mut victims: Vec<Held> = Vec::new();
        let outcome = match &mut self.kind {
            Kind::DropTail | Kind::Codel { .. } => {
                if full {
                    Outcome::Drop { early: false }
                } else {
                    Outcome::Queue {
                        mark: false,
                        l4s: false,
                    }
                }
            }
            Kind::Red { profile, red, rng } => {
                let d = red.on_arrival(
                    profile,
                    Instant::from_ticks(now),
                    self.packets,
                    RedPacket::new(len, red_ecn(&pkt)),
                    rng,
                );
                match d {
                    Decision::Enqueue => Outcome::Queue {
                        mark: false,
                        l4s: false,
                    },
                    Decision::Mark => Outcome::Queue {
                        mark: true,
                        l4s: false,
                    },
                    Decision::DropEarly => Outcome::Drop { early: true },
                    Decision::DropForced => Outcome::Drop { early: false },
                }
            }
            Kind::Pie { profile, pie, rng } => {
                let v = pie.on_arrival(
                    profile,
                    Instant::from_ticks(now),
                    held.head(),
                    self.packets,
                    self.bytes,
                    rng,
                );
                match v {
                    _ if full => Outcome::Drop { early: false },
                    Verdict::Drop => Outcome::Drop { early: true },
                    Verdict::Mark => Outcome::Queue {
                        mark: true,
                        l4s: false,
                    },
                    Verdict::Deliver => Outcome::Queue {
                        mark: false,
                        l4s: false,
                    },
                }
            }
            Kind::FqPie {
                profile, fq, rng, ..
            } => {
                // FQ-PIE's limit (the scenario's) is checked inside: a drop
                // while `limit` packets wait is the limit's, else PIE's.
                match fq.enqueue(profile, Instant::from_ticks(now), flow, held.head(), rng) {
                    Verdict::Drop => Outcome::Drop { early: !full },
                    v => Outcome::Queue {
                        mark: v == Verdict::Mark,
                        l4s: false,
                    },
                }
            }
            Kind::DualPi2 { profile, dual, .. } => {
                match dual.on_arrival(
                    profile,
                    Instant::from_ticks(now),
                    dual_ecn(&pkt),
                    len,
                    self.bytes,
                ) {
                    None => Outcome::Drop { early: false },
                    Some(q) => Outcome::Queue {
                        mark: false,
                        l4s: q == DualQueue::L4s,
                    },
                }
            }
            Kind::FqCodel { profile, fq, fifos } => {
                // Push first, then let FQ-CoDel drop from the fattest flow's
                // head when the whole queue is over its limit.
                let alone = fifos[flow].is_empty();
                fifos[flow].push_back(Held { alone, ..held });
                fq.enqueue(profile, Instant::from_ticks(now), flow, len, |v| {
                    let h = fifos.get_mut(v)?.pop_front()?;
                    victims.push(h);
                    Some(h.pkt.seg.wire_len)
                });
                Outcome::Queued
            }
        };
        let result = match outcome {
            Outcome::Drop { early } => {
                self.drop_counted(&mut log, &pkt, early);
                Err(pkt)
            }
            Outcome::Queued => {
                self.packets += 1;
                self.bytes += u64::from(len);
                Ok(())
            }
            Outcome::Queue { mark, l4s } => {
                if mark {
                    self.mark(&mut log, &mut pkt);
                }
                self.packets += 1;
                self.bytes += u64::from(len);
                let queue = match &mut self.kind {
                    Kind::DualPi2 { l4s: lq, .. } if l4s => lq,
                    Kind::FqPie { fifos, .. } => &mut fifos[flow],
                    _ => &mut self.fifo,
                };
                let alone = queue.is_empty();
                queue.push_back(Held {
                    pkt,
                    at: now,
                    alone,
                });
                Ok(())
            }
        };
        for h in &victims {
            self.packets -= 1;
            self.bytes -= u64::from(h.pkt.seg.wire_len);
            self.drop_counted(&mut log, &h.pkt, false);
        }
        log.queued_bytes = self.bytes;
        result
    }

    fn dequeue(&mut self, now: Time) -> Deq {
        self.catch_up(now);
        let t = Instant::from_ticks(now);
        let log = Arc::clone(&self.log);
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        // The packet sent, whether to mark it, and its log class.
        let mut out: Option<(Held, bool, usize)> = None;
        let mut dropped: Vec<Held> = Vec::new();
        match &mut self.kind {
            Kind::DropTail | Kind::Red { .. } => {
                if let Some(h) = self.fifo.pop_front() {
                    out = Some((h, false, class_of(&h.pkt)));
                }
                if self.fifo.is_empty() {
                    if let Kind::Red { red, profile, .. } = &mut self.kind {
                        red.on_queue_empty(profile, t);
                    }
                }
            }
            Kind::Codel { profile, codel } => loop {
                let was = codel.dropping();
                let Some(h) = self.fifo.pop_front() else {
                    codel.on_queue_empty(profile, t);
                    let (dropping, n) = (codel.dropping(), codel.count());
                    log.codel.step(now, was, dropping, n, false, true);
                    break;
                };
                let left = self.bytes - u64::from(h.pkt.seg.wire_len);
                self.bytes = left;
                self.packets -= 1;
                let verdict = codel.on_dequeue(profile, t, h.head(), left);
                let (dropping, n) = (codel.dropping(), codel.count());
                log.codel
                    .step(now, was, dropping, n, verdict == Verdict::Drop, false);
                match verdict {
                    Verdict::Drop => dropped.push(h),
                    v => {
                        out = Some((h, v == Verdict::Mark, class_of(&h.pkt)));
                        break;
                    }
                }
            },
            Kind::FqCodel { profile, fq, fifos } => {
                while let Some(f) = fq.schedule(profile, t) {
                    let Some(h) = fifos.get_mut(f).and_then(VecDeque::pop_front) else {
                        break;
                    };
                    self.bytes -= u64::from(h.pkt.seg.wire_len);
                    self.packets -= 1;
                    match fq.on_dequeue(profile, t, f, h.head()) {
                        Verdict::Drop => dropped.push(h),
                        v => {
                            out = Some((h, v == Verdict::Mark, class_of(&h.pkt)));
                            break;
                        }
                    }
                }
            }
            Kind::FqPie {
                profile, fq, fifos, ..
            } => {
                if let Some(f) = fq.schedule(profile, t) {
                    if let Some(h) = fifos.get_mut(f).and_then(VecDeque::pop_front) {
                        self.bytes -= u64::from(h.pkt.seg.wire_len);
                        self.packets -= 1;
                        fq.on_dequeue(profile, t, f, h.head());
                        out = Some((h, false, class_of(&h.pkt)));
                    }
                }
            }
            Kind::Pie { profile, pie, .. } => {
                if let Some(h) = self.fifo.pop_front() {
                    self.bytes -= u64::from(h.pkt.seg.wire_len);
                    self.packets -= 1;
                    pie.on_dequeue(profile, t, h.head(), self.bytes);
                    out = Some((h, false, class_of(&h.pkt)));
                }
            }
            Kind::DualPi2 {
                profile,
                dual,
                l4s,
                rng,
            } => loop {
                let l = l4s.front().map(|h| Instant::from_ticks(h.at));
                let c = self.fifo.front().map(|h| Instant::from_ticks(h.at));
                let Some(q) = dual.schedule(profile, t, l, c) else {
                    break;
                };
                let (fifo, class) = match q {
                    DualQueue::L4s => (&mut *l4s, 1),
                    DualQueue::Classic => (&mut self.fifo, 0),
                };
                let Some(h) = fifo.pop_front() else {
                    break;
                };
                let left = fifo.len() as u32;
                self.bytes -= u64::from(h.pkt.seg.wire_len);
                self.packets -= 1;
                match dual.on_dequeue(profile, t, q, h.dual_head(), left, rng) {
                    Verdict::Drop => dropped.push(h),
                    v => {
                        out = Some((h, v == Verdict::Mark, class));
                        break;
                    }
                }
            },
        }
        // DropTail and RED count the packet here (the others already did, as
        // their calls need the bytes left).
        if let Some((h, _, _)) = &out {
            if matches!(self.kind, Kind::DropTail | Kind::Red { .. }) {
                self.bytes -= u64::from(h.pkt.seg.wire_len);
                self.packets -= 1;
            }
        }
        for h in &dropped {
            self.drop_counted(&mut log, &h.pkt, true);
        }
        log.queued_bytes = self.bytes;
        let Some((mut h, mark, class)) = out else {
            log.idle.push(now);
            return Deq::Empty;
        };
        if mark {
            self.mark(&mut log, &mut h.pkt);
        }
        log.sent_bytes += u64::from(h.pkt.seg.wire_len);
        log.delays[class].push(now - h.at);
        log.sent.push(Sent {
            at: now,
            sojourn: now - h.at,
            flow: h.pkt.seg.flow,
            class: class as u8,
            alone: h.alone,
        });
        Deq::Packet(h.pkt)
    }

    fn waiting(&self) -> usize {
        self.packets as usize
    }

    fn stats(&self) -> &QdiscStats {
        &self.stats
    }

    fn reset_stats(&mut self) {
        self.stats = QdiscStats::default();
        self.log.lock().unwrap_or_else(|e| e.into_inner()).reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::Segment;

    fn setup() -> QueueSetup {
        QueueSetup {
            limit: 10,
            ecn: false,
            rate_bps: 10_000_000,
            mtu: 1500,
        }
    }

    fn pkt(flow: u32, seq: u64, l4s: bool) -> Packet {
        Packet {
            seg: Segment {
                flow,
                seq,
                wire_len: 1500,
                retransmit: false,
                ect: l4s,
                ect1: l4s,
                ce: false,
                cwr: false,
                ts: 0,
            },
            color: netcond::base::Color::Green,
            class: u8::from(l4s),
            hop: 0,
        }
    }

    fn queue(name: &str) -> (Bottleneck, Arc<Mutex<QueueLog>>) {
        let log = Arc::new(Mutex::new(QueueLog::default()));
        let q = Bottleneck::new(name, setup(), Rng::new(1), Arc::clone(&log)).unwrap();
        (q, log)
    }

    #[test]
    fn periodic_updates_run_at_their_own_instants_before_an_event() {
        for name in ["pie", "fq_pie", "dualpi2"] {
            let (mut q, _) = queue(name);
            q.enqueue(0, pkt(0, 0, false)).unwrap();
            assert!(matches!(q.dequeue(0), Deq::Packet(_)));
            // Idle for a second: the updates at 15, 30, ..., 990 ms run when
            // the next packet arrives, so the next one is due at 1005 ms.
            q.enqueue(1000 * MS, pkt(0, 1, false)).unwrap();
            let next = match &q.kind {
                Kind::Pie { pie, .. } => pie.next_update().ticks(),
                Kind::FqPie { fq, .. } => fq.next_update().ticks(),
                Kind::DualPi2 { dual, .. } => dual.next_update().ticks(),
                _ => unreachable!(),
            };
            assert_eq!(next, 1005 * MS, "{name}");
        }
    }

    #[test]
    fn droptail_limit_counts_the_waiting_packets_and_the_log_balances() {
        let (mut q, log) = queue("droptail");
        for i in 0..12 {
            let r = q.enqueue(0, pkt(0, i, false));
            assert_eq!(r.is_ok(), i < 10, "{i}");
        }
        assert_eq!(q.waiting(), 10);
        assert_eq!(q.stats().forced_drops, 2);
        for k in 0..10 {
            assert!(matches!(q.dequeue(k * 1_200_000), Deq::Packet(_)));
        }
        assert!(matches!(q.dequeue(20 * MS), Deq::Empty));
        let l = log.lock().unwrap();
        assert_eq!(l.arrived_bytes, 12 * 1500);
        assert_eq!(l.dropped_bytes, 2 * 1500);
        assert_eq!(l.sent_bytes, 10 * 1500);
        assert_eq!(l.queued_bytes, 0);
        // The k-th packet waited k x 1.2 ms.
        assert_eq!(
            l.delays[0],
            (0..10).map(|k| k * 1_200_000).collect::<Vec<_>>()
        );
        // Each packet's record: its start, its wait (equal to its start
        // here, as every packet arrived at 0), its flow and class; the
        // dequeue that found nothing is the link going idle.
        assert_eq!(l.sent.len(), 10);
        assert!(l
            .sent
            .iter()
            .enumerate()
            .all(|(k, s)| s.at == k as u64 * 1_200_000
                && s.sojourn == s.at
                && s.flow == 0
                && s.class == 0));
        assert_eq!(l.idle, [20 * MS]);
    }

    #[test]
    fn dualpi2_serves_the_l4s_queue_first_and_logs_it_apart() {
        let (mut q, log) = queue("dualpi2");
        q.enqueue(0, pkt(0, 0, false)).unwrap();
        q.enqueue(MS, pkt(1, 0, true)).unwrap();
        q.enqueue(MS, pkt(0, 1, false)).unwrap();
        // The L4S packet goes first although it arrived after a Classic one
        // (time-shifted FIFO: the Classic head is not 40 ms older).
        let Deq::Packet(p) = q.dequeue(2 * MS) else {
            panic!()
        };
        assert!(p.seg.ect1);
        let l = log.lock().unwrap();
        assert_eq!((l.delays[0].len(), l.delays[1].to_vec()), (0, vec![MS]));
    }

    #[test]
    fn fq_codel_and_fq_pie_serve_flows_by_deficit_round_robin() {
        // FQ-PIE runs FQ-CoDel's scheduler, so both give the same order.
        for name in ["fq_codel", "fq_pie"] {
            let (mut q, _) = queue(name);
            for i in 0..3 {
                q.enqueue(0, pkt(1, i, false)).unwrap();
            }
            for i in 0..3 {
                q.enqueue(0, pkt(2, i, false)).unwrap();
            }
            let mut order = Vec::new();
            while let Deq::Packet(p) = q.dequeue(0) {
                order.push(p.seg.flow);
            }
            // Deficit round robin with a quantum of 1514 bytes: after one
            // 1500-byte packet a flow still has 14 bytes of deficit, so it
            // sends a second one (deficit -1486) before the other flow's turn;
            // the next quantum then lets each send one.
            assert_eq!(order, [1, 1, 2, 2, 1, 2], "{name}");
            assert_eq!(q.waiting(), 0, "{name}");
        }
    }

    #[test]
    fn fq_pie_limit_is_over_all_flows_and_its_drops_are_forced() {
        let (mut q, log) = queue("fq_pie");
        // PIE's probability is zero at the start: only the limit (10) drops.
        for i in 0..12 {
            let r = q.enqueue(0, pkt((i % 3) as u32, i, false));
            assert_eq!(r.is_ok(), i < 10, "{i}");
        }
        assert_eq!(q.waiting(), 10);
        assert_eq!((q.stats().forced_drops, q.stats().early_drops), (2, 0));
        let mut sent = 0;
        while let Deq::Packet(_) = q.dequeue(MS) {
            sent += 1;
        }
        assert_eq!(sent, 10);
        let l = log.lock().unwrap();
        assert_eq!(l.dropped_bytes, 2 * 1500);
        assert_eq!(l.sent_bytes, 10 * 1500);
        assert_eq!(l.queued_bytes, 0);
        assert_eq!(l.delays[0], vec![MS; 10]);
    }
}
