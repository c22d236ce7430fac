//! `rbcc-scenario7`: TRUMP/RBCC against TCP on Toomey's Scenario 7.
//!
//! Topology (the document's Figure 2 is not in the text; this is the smallest
//! network with its links and flows): hosts 5, 6, 7 and 9 hang off router 2,
//! hosts 8, 10, 11 and 12 off router 3, all by 10 Mbps links with no latency;
//! routers 2 and 3 are joined by a full-duplex 64 kbps link of 1 s latency. Data
//! flows 5->10, 6->11, 7->12 and the reverse flow 8->9 cross it, each with its
//! ACK flow the other way. Data packets are 1500 bytes, ACKs 40. Every router
//! output interface is a drop-tail FIFO of 15,000 bytes (10 data packets);
//! hosts' interfaces are unlimited. The minimum one-way delay of a data packet
//! is then 1.2 ms + 187.5 ms + 1 s + 1.2 ms = 1.1899 s (the document: "at least
//! 1.188 s", measured 1.19 s).
//!
//! Schedule (chosen; the document's table gives the order and the first times):
//! source 5 from 0 s, 7 from 12 s, 8 from 18 s to 260 s, 6 from 140 s to 200 s,
//! end at 300 s.
//!
//! RBCC: every router output interface runs the rbcc-rate crate's
//! `RbccInterface` (Toomey's profile: ACK load as outside load). A TRUMP source
//! opens with one packet asking for an unlimited rate, waits for its ACK (the
//! handshake), then paces 1500-byte packets at the rate the last ACK returned.
//! Data packets are stamped by each interface they leave by (`on_data`), ACKs by
//! the interfaces they leave by (`on_ack`) and, passing back through the router
//! the data left, tell its interface the returned rate and bottleneck
//! (`on_return`). A closing source sends a FIN along the data path and the sink
//! a FIN-ACK along the ACK path; both remove the flow's rows (`close`).
//!
//! Inferred, not stated in Toomey's report: the 40-byte ACK and its accounting as
//! outside load. The document gives neither; this choice reproduces its optimum
//! table exactly (31168.83 = 64000 / (2 (1 + 40/1500))), while coupled max-min
//! gives 31578.95 and 21145.37 bit/s, a 52-byte ACK 30927.84 and no ACK load
//! 32000 (the report's `ack_accounting` table; docs/reproductions.md).
//!
//! TCP: the crate's TCP model (`tcp::TcpSender`/`TcpReceiver`) with NewReno
//! recovery (no SACK), the closest it offers to the document's TCP Reno, MSS 1460
//! (1500 on the wire), ACK every segment, receiver window 64 KB (chosen).

use crate::engine::{derive_seed, instant, secs, to_secs, Time, MS, SEC};
use crate::net::{self, Buffer, Conditioner, Link, Model, Packet, Sim};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::progress::Progress;
use crate::report::{Axis, Comparison, Plot, Report, RunRecord, Series, Table};
use crate::runner::run_jobs;
use crate::scenarios::{ReproduceOpts, Scenario};
use crate::tcp::{self, TcpConfig, TcpReceiver, TcpSender};
use crate::SimError;
use netcond::base::Rate;
use netcond::rbcc::solver::Network;
use netcond::rbcc::{
    AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};

mod optimum;
mod params;
mod run_report;
use optimum::*;
use params::*;
use run_report::*;

/// The scenario.
pub struct RbccScenario7;

const DATA_BYTES: u32 = 1500;
const ACK_BYTES: u32 = 40;
/// Hosts in port order: 5, 6, 7, 9 at router 2; 8, 10, 11, 12 at router 3.
const HOSTS: [u32; 8] = [5, 6, 7, 9, 8, 10, 11, 12];
const R2R3: usize = 16;
const R3R2: usize = 17;

fn host_index(h: u32) -> usize {
    HOSTS.iter().position(|&x| x == h).unwrap_or(0)
}
fn up(h: u32) -> usize {
    host_index(h)
}
fn down(h: u32) -> usize {
    8 + host_index(h)
}
fn router_of_host(h: u32) -> u8 {
    if host_index(h) < 4 {
        2
    } else {
        3
    }
}
/// The router a port belongs to (hosts' ports: none).
fn router_of_port(p: usize) -> Option<u8> {
    match p {
        R2R3 => Some(2),
        R3R2 => Some(3),
        8..=15 => Some(router_of_host(HOSTS[p - 8])),
        _ => None,
    }
}

/// A flow: source, sink, start and stop times.
#[derive(Clone, Copy, Debug)]
pub struct FlowSpec {
    /// Source host.
    pub src: u32,
    /// Destination host.
    pub dst: u32,
    /// Start, s.
    pub start: f64,
    /// Stop, s.
    pub stop: f64,
}

/// The flows of Scenario 7 (schedule chosen; see the module docs).
pub const FLOWS: [FlowSpec; 4] = [
    FlowSpec {
        src: 5,
        dst: 10,
        start: 0.0,
        stop: 1e9,
    },
    FlowSpec {
        src: 6,
        dst: 11,
        start: 140.0,
        stop: 200.0,
    },
    FlowSpec {
        src: 7,
        dst: 12,
        start: 12.0,
        stop: 1e9,
    },
    FlowSpec {
        src: 8,
        dst: 9,
        start: 18.0,
        stop: 260.0,
    },
];

fn path(src: u32, dst: u32) -> [usize; 3] {
    let mid = if router_of_host(src) == 2 { R2R3 } else { R3R2 };
    [up(src), mid, down(dst)]
}

#[derive(Clone, Copy, Debug)]
enum Body {
    Data(RateHeader),
    Ack(AckHeader),
    Fin,
    FinAck,
    Seg(tcp::Segment),
    TAck(tcp::Ack),
}

impl Body {
    fn forward(&self) -> bool {
        matches!(self, Body::Data(_) | Body::Fin | Body::Seg(_))
    }
}

#[derive(Clone, Copy, Debug)]
struct Pkt {
    flow: u8,
    hop: u8,
    len: u32,
    sent: Time,
    body: Body,
}

impl Packet for Pkt {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.len
    }
}

/// The routers' RBCC interfaces as the network's conditioner: data packets
/// are stamped by each interface they leave by, ACKs too and, passing back
/// through the router the data left, tell its interface the returned rate
/// (`on_return`); FIN and FIN-ACK remove the flow's rows.
struct Rbcc {
    ifaces: Vec<Option<RbccInterface<16>>>,
    profiles: Vec<Option<RbccProfile>>,
    data_paths: [[usize; 3]; 4],
}

impl Conditioner<Pkt> for Rbcc {
    fn condition(&mut self, now: Time, link: u32, pkt: &mut Pkt) -> bool {
        let port = link as usize;
        let (Some(ifc), Some(pr)) = (self.ifaces[port].as_mut(), self.profiles[port].as_ref())
        else {
            return true;
        };
        let t = instant(now);
        let f = u32::from(pkt.flow);
        match &mut pkt.body {
            Body::Data(h) => {
                let _ = ifc.on_data(pr, t, f, h);
            }
            Body::Ack(a) => {
                let _ = ifc.on_ack(pr, t, f, a);
                // The ACK passes back through the router its data left by.
                let r = router_of_port(port);
                let path = &self.data_paths[pkt.flow as usize];
                if let Some(&dp) = path.iter().find(|&&dp| router_of_port(dp) == r) {
                    if let (Some(di), Some(dpr)) =
                        (self.ifaces[dp].as_mut(), self.profiles[dp].as_ref())
                    {
                        di.on_return(dpr, t, f, a);
                    }
                }
            }
            Body::Fin | Body::FinAck => {
                ifc.close(pr, f);
            }
            Body::Seg(_) | Body::TAck(_) => {}
        }
        true
    }
}

/// Hosts' interfaces (unlimited), the routers' interfaces to the hosts and
/// the bottleneck in both directions, each router interface with RBCC.
fn build_network(
    p: &Params,
    data_paths: [[usize; 3]; 4],
) -> Result<net::Network<Pkt, Rbcc>, SimError> {
    let bott = (p.f64("bottleneck_kbps") * 1e3).round() as u64;
    let lat = secs(p.f64("bottleneck_latency_s"));
    let buf = p.u64("buffer_bytes");
    let mut links = Vec::new();
    for _ in 0..8 {
        links.push(Link::fifo(10_000_000, 0, Buffer::Unlimited));
    }
    for _ in 0..8 {
        links.push(Link::fifo(10_000_000, 0, Buffer::Bytes(buf)));
    }
    links.push(Link::fifo(bott, lat, Buffer::Bytes(buf)));
    links.push(Link::fifo(bott, lat, Buffer::Bytes(buf)));
    let mut rbcc = Rbcc {
        ifaces: Vec::new(),
        profiles: Vec::new(),
        data_paths,
    };
    for (i, link) in links.iter().enumerate() {
        if router_of_port(i).is_some() {
            let cap = (link.rate_bps as f64 * p.f64("rbcc_capacity_pct") / 100.0).round() as u64;
            let c =
                RbccConfig::toomey_scenario7(NodeId(i as u32 + 1), Rate::from_bits_per_sec(cap));
            let pr = RbccProfile::new(&c).map_err(|e| SimError::Config(e.to_string()))?;
            rbcc.ifaces.push(Some(RbccInterface::new(&pr, instant(0))));
            rbcc.profiles.push(Some(pr));
        } else {
            rbcc.ifaces.push(None);
            rbcc.profiles.push(None);
        }
    }
    let mut net = net::Network::new(rbcc);
    for l in links {
        net.add(l);
    }
    Ok(net)
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(u8),
    Stop(u8),
    Send(u8),
    Arrive(Pkt),
    Timer(u8),
    Sample,
}

/// The routers' interfaces and the hosts' links, with RBCC as conditioner.
type S7 = Sim<Pkt, Rbcc, Ev>;

struct FlowState {
    data_path: [usize; 3],
    ack_path: [usize; 3],
    active: bool,
    /// RBCC: the rate the last ACK returned (None before the handshake).
    rate: Option<FixedRate>,
    sent_bytes: u64,
    tcp_tx: Option<TcpSender>,
    tcp_rx: Option<TcpReceiver>,
    timer_at: Option<Time>,
}

/// One run's measurements.
#[derive(Clone, Debug, Default)]
pub struct S7Result {
    /// Samples: time (s), per-flow rate (bps; RBCC: the returned rate, TCP: the
    /// sending rate over the last sample period), router 2 queue (packets).
    pub samples: Vec<(f64, [f64; 4], u32)>,
    /// Per-flow sending rate over the last sample period (bps), both protocols.
    pub throughput: Vec<(f64, [f64; 4])>,
    /// 2->3 utilisation per period: (end time s, fraction).
    pub util: Vec<(f64, f64)>,
    /// Source 5 end-to-end delays: (arrival time s, delay s).
    pub delay5: Vec<(f64, f64)>,
    /// Drops at router 2's and router 3's interfaces.
    pub drops: u64,
    /// Largest router 2 queue (packets, including the one on the wire) after the
    /// first 20 s, and while source 6 starts (140-150 s).
    pub max_queue: u32,
    /// Events.
    pub events: u64,
}

fn fixed_interval(rate: FixedRate) -> Time {
    // 1500 bytes at `rate` (Q48.16 bit/s): 12000 * 1e9 * 2^16 / raw ns.
    let raw = u128::from(rate.raw().max(1));
    ((12_000u128 * 1_000_000_000 * 65_536) / raw) as Time
}

/// The four flows in their initial state (TCP: a sender and a receiver each).
fn make_flows(p: &Params, tcp_mode: bool) -> Vec<FlowState> {
    let tcfg = TcpConfig {
        mss: DATA_BYTES - 40,
        header: 40,
        max_window: p.u64("tcp_window_bytes") as u32,
        initial_cwnd: 1,
        sack: false,
        ..TcpConfig::default()
    };
    FLOWS
        .iter()
        .enumerate()
        .map(|(i, s)| FlowState {
            data_path: path(s.src, s.dst),
            ack_path: path(s.dst, s.src),
            active: false,
            rate: None,
            sent_bytes: 0,
            tcp_tx: tcp_mode.then(|| TcpSender::new(tcfg, i as u32)),
            tcp_rx: tcp_mode.then(|| TcpReceiver::new(tcfg, i as u32)),
            timer_at: None,
        })
        .collect()
}

/// TCP timers: keeps one event at each active sender's deadline.
fn sync_tcp_timers(flows: &mut [FlowState], q: &mut S7) {
    for (i, fl) in flows.iter_mut().enumerate() {
        if let Some(d) = fl.tcp_tx.as_ref().and_then(TcpSender::deadline) {
            if fl.active && fl.timer_at != Some(d) {
                fl.timer_at = Some(d);
                q.schedule(d, Ev::Timer(i as u8));
            }
        }
    }
}

/// The periodic measurements: rates, router 2's queue, the bottleneck's
/// utilisation.
struct Sampler {
    sample: Time,
    util_period: Time,
    bott: u64,
    last_sent: [u64; 4],
    util_mark: u64,
    next_util: Time,
}

impl Sampler {
    /// One sample at `now`; `r2r3` is router 2's interface to router 3.
    fn take(
        &mut self,
        now: Time,
        flows: &[FlowState],
        r2r3: &Link<Pkt>,
        tcp_mode: bool,
        res: &mut S7Result,
    ) {
        let mut rates = [0f64; 4];
        let mut thr = [0f64; 4];
        for (i, fl) in flows.iter().enumerate() {
            thr[i] = (fl.sent_bytes - self.last_sent[i]) as f64 * 8.0 / to_secs(self.sample);
            self.last_sent[i] = fl.sent_bytes;
            rates[i] = if tcp_mode {
                thr[i]
            } else if fl.active {
                fl.rate.map_or(0.0, |r| r.raw() as f64 / 65_536.0)
            } else {
                0.0
            };
        }
        let qlen = r2r3.len_packets() as u32;
        if now >= 20 * SEC {
            res.max_queue = res.max_queue.max(qlen);
        }
        res.samples.push((to_secs(now), rates, qlen));
        res.throughput.push((to_secs(now), thr));
        if now >= self.next_util {
            let b = r2r3.stats.done_bytes;
            let period = to_secs(self.util_period);
            let bits = (b - self.util_mark) as f64 * 8.0;
            res.util
                .push((to_secs(now), bits / (self.bott as f64 * period)));
            self.util_mark = b;
            self.next_util += self.util_period;
        }
    }
}

/// A run's hosts: TRUMP or TCP sources and sinks, and the samples.
struct Run<'a> {
    progress: &'a Progress,
    tcp_mode: bool,
    sample: Time,
    flows: Vec<FlowState>,
    sampler: Sampler,
    res: S7Result,
    segs: Vec<tcp::Segment>,
}

impl Run<'_> {
    /// Host `flow` sends a packet of `len` bytes at `now` on its first link.
    fn send(&mut self, sim: &mut S7, now: Time, flow: u8, len: u32, body: Body) {
        let fl = &self.flows[flow as usize];
        let first = if body.forward() {
            fl.data_path[0]
        } else {
            fl.ack_path[0]
        };
        let pkt = Pkt {
            flow,
            hop: 0,
            len,
            sent: now,
            body,
        };
        sim.send(self, first as u32, pkt);
    }

    /// TCP sender `f` sends the segments in `segs`.
    fn send_segs(&mut self, sim: &mut S7, now: Time, f: u8) {
        for s in self.segs.clone() {
            self.flows[f as usize].sent_bytes += u64::from(s.wire_len);
            self.send(sim, now, f, s.wire_len, Body::Seg(s));
        }
    }

    fn start(&mut self, sim: &mut S7, now: Time, f: u8) {
        let fl = &mut self.flows[f as usize];
        fl.active = true;
        if self.tcp_mode {
            self.segs.clear();
            if let Some(tx) = fl.tcp_tx.as_mut() {
                tx.start(now, &mut self.segs);
            }
            self.send_segs(sim, now, f);
        } else {
            // Handshake: one packet asking for an unlimited rate.
            fl.sent_bytes += u64::from(DATA_BYTES);
            let h = RateHeader::new(FixedRate::UNLIMITED);
            self.send(sim, now, f, DATA_BYTES, Body::Data(h));
        }
    }

    /// `pkt` arrives at the end of its current hop: on to the next link, or
    /// delivered to its host.
    fn arrive(&mut self, sim: &mut S7, now: Time, mut pkt: Pkt) {
        pkt.hop += 1;
        let f = pkt.flow;
        if pkt.hop < 3 {
            let fl = &self.flows[f as usize];
            let path = if pkt.body.forward() {
                &fl.data_path
            } else {
                &fl.ack_path
            };
            let link = path[pkt.hop as usize] as u32;
            sim.send(self, link, pkt);
            return;
        }
        match pkt.body {
            Body::Data(h) => {
                if f == 0 {
                    self.res
                        .delay5
                        .push((to_secs(now), to_secs(now - pkt.sent)));
                }
                self.send(sim, now, f, ACK_BYTES, Body::Ack(h.ack()));
            }
            Body::Ack(a) => {
                let fl = &mut self.flows[f as usize];
                let first = fl.rate.is_none();
                fl.rate = Some(a.rate);
                if first && fl.active {
                    sim.schedule(now, Ev::Send(f));
                }
            }
            Body::Fin => self.send(sim, now, f, ACK_BYTES, Body::FinAck),
            Body::FinAck => {}
            Body::Seg(s) => {
                if f == 0 {
                    self.res
                        .delay5
                        .push((to_secs(now), to_secs(now - pkt.sent)));
                }
                let rx = self.flows[f as usize].tcp_rx.as_mut();
                if let Some(a) = rx.and_then(|rx| rx.on_segment(now, &s)) {
                    self.send(sim, now, f, tcp::ACK_WIRE_BYTES, Body::TAck(a));
                }
            }
            Body::TAck(a) => {
                self.segs.clear();
                let fl = &mut self.flows[f as usize];
                if let Some(tx) = fl.tcp_tx.as_mut() {
                    tx.on_ack(now, &a, &mut self.segs);
                }
                if fl.active {
                    self.send_segs(sim, now, f);
                }
            }
        }
    }
}

impl Model<Pkt, Rbcc> for Run<'_> {
    type Ev = Ev;

    #[inline]
    fn on_event(&mut self, sim: &mut S7, now: Time, ev: Ev) {
        match ev {
            Ev::Start(f) => self.start(sim, now, f),
            Ev::Stop(f) => {
                self.flows[f as usize].active = false;
                if !self.tcp_mode {
                    self.send(sim, now, f, ACK_BYTES, Body::Fin);
                }
            }
            Ev::Send(f) => {
                let fl = &mut self.flows[f as usize];
                let Some(rate) = fl.rate.filter(|_| fl.active) else {
                    return;
                };
                fl.sent_bytes += u64::from(DATA_BYTES);
                sim.schedule(now + fixed_interval(rate), Ev::Send(f));
                let h = RateHeader::new(FixedRate::UNLIMITED);
                self.send(sim, now, f, DATA_BYTES, Body::Data(h));
            }
            Ev::Arrive(pkt) => self.arrive(sim, now, pkt),
            Ev::Timer(f) => {
                let fl = &mut self.flows[f as usize];
                fl.timer_at = None;
                self.segs.clear();
                if let Some(tx) = fl.tcp_tx.as_mut() {
                    if tx.deadline().is_some_and(|d| d <= now) {
                        tx.on_timer(now, &mut self.segs);
                    }
                }
                if fl.active {
                    self.send_segs(sim, now, f);
                }
            }
            Ev::Sample => {
                sim.schedule(now + self.sample, Ev::Sample);
                self.progress.advance(self.sample / MS);
                let r2r3 = &sim.net.links[R2R3];
                let (flows, res) = (&self.flows, &mut self.res);
                self.sampler.take(now, flows, r2r3, self.tcp_mode, res);
            }
        }
        // Only the hosts' events change a TCP sender's deadline.
        if self.tcp_mode {
            sync_tcp_timers(&mut self.flows, sim);
        }
    }

    /// A packet reaches the far end of a link: it arrives there at `at`.
    fn on_deliver(&mut self, sim: &mut S7, _link: u32, at: Time, pkt: Pkt) {
        sim.schedule(at, Ev::Arrive(pkt));
    }
}

/// Simulates one run.
pub fn simulate(p: &Params, seed: u64, progress: &Progress) -> Result<S7Result, SimError> {
    let _ = seed; // the scenario is deterministic: no random draw
    let tcp_mode = p.str("protocol") == "tcp";
    let end = secs(p.f64("duration_s"));
    let sample = secs(p.f64("sample_ms") / 1e3).max(1);
    progress.add_total(end / MS);

    let flows = make_flows(p, tcp_mode);
    let mut sim: S7 = Sim::new(build_network(p, [0, 1, 2, 3].map(|i| flows[i].data_path))?);
    for (i, f) in FLOWS.iter().enumerate() {
        sim.schedule(secs(f.start), Ev::Start(i as u8));
        if f.stop < 1e8 {
            sim.schedule(secs(f.stop), Ev::Stop(i as u8));
        }
    }
    sim.schedule(sample, Ev::Sample);
    let util_period = secs(p.f64("util_period_s")).max(1);
    let mut run = Run {
        progress,
        tcp_mode,
        sample,
        flows,
        sampler: Sampler {
            sample,
            util_period,
            bott: (p.f64("bottleneck_kbps") * 1e3).round() as u64,
            last_sent: [0; 4],
            util_mark: 0,
            next_util: util_period,
        },
        res: S7Result::default(),
        segs: Vec::new(),
    };
    sim.run(&mut run, end);
    run.res.drops = sim.net.links[8..].iter().map(|l| l.stats.drops).sum();
    run.res.events = sim.events();
    Ok(run.res)
}

impl Scenario for RbccScenario7 {
    fn name(&self) -> &'static str {
        "rbcc-scenario7"
    }

    fn description(&self) -> &'static str {
        "TRUMP/RBCC Scenario 7 against TCP (Toomey): rates vs the optimum table, queue, delay, utilisation"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn validate(&self, p: &Params) -> Result<(), SimError> {
        let dur = p.f64("duration_s");
        if p.f64("sample_ms") / 1e3 > dur {
            return Err(SimError::Param(format!(
                "sample_ms={} is longer than the run (duration_s={dur}): no sample",
                p.f64("sample_ms")
            )));
        }
        if p.f64("util_period_s") > dur {
            return Err(SimError::Param(format!(
                "util_period_s={} is longer than the run (duration_s={dur}): no utilization sample",
                p.f64("util_period_s")
            )));
        }
        Ok(())
    }

    fn memory_estimate(&self, p: &Params) -> u64 {
        // Per sample (every sample_ms): about 56 bytes; per packet of source 5
        // (one delay each, at most the bottleneck's rate in 40-byte packets):
        // 16 bytes; both doubled for the vectors' growth.
        let dur = p.f64("duration_s");
        let samples = dur / (p.f64("sample_ms") / 1e3) + dur / p.f64("util_period_s");
        let delays = dur * p.f64("bottleneck_kbps") * 1e3 / (8.0 * 40.0);
        (samples * 112.0 + delays * 32.0) as u64
    }

    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError> {
        let r = simulate(params, seed, progress)?;
        let tag = params.str("protocol").to_string();
        let mut rep = Report::new(self.name(), self.description());
        rep.params = params.listing();
        rep.tables.push(Table {
            name: "summary".into(),
            title: "source 5 delay, router 2 queue, 2->3 utilisation".into(),
            header: summary_header(),
            rows: summary_rows(&tag, &r),
        });
        rep.plots.push(rate_plot(
            "rates",
            &format!("{tag}: rate of each source"),
            &r,
        ));
        rep.plots.extend(extra_plots(&tag, &r));
        rep.events = r.events;
        rep.sim_seconds = params.f64("duration_s");
        Ok(rep)
    }

    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        let base = self.defaults();
        let sets = [
            ["protocol=rbcc", "rbcc_capacity_pct=100"],
            ["protocol=tcp", "rbcc_capacity_pct=100"],
            ["protocol=rbcc", "rbcc_capacity_pct=99"],
        ];
        let work = |_: &[&str; 2]| secs(base.f64("duration_s")) / MS;
        let runs = run_jobs(&sets, progress, work, |i, set| {
            let p = base.with(set)?;
            simulate(&p, derive_seed(opts.seed, i as u64), progress)
        })?;
        let [rb, tc, rb99]: [S7Result; 3] = runs
            .try_into()
            .map_err(|_| SimError::Config("no run".into()))?;
        let mut rep = Report::new(self.name(), self.description());
        for (i, (label, set)) in [
            ("RBCC", ["protocol=rbcc", "rbcc_capacity_pct=100"]),
            ("TCP", ["protocol=tcp", "rbcc_capacity_pct=100"]),
            (
                "RBCC, 99% capacity",
                ["protocol=rbcc", "rbcc_capacity_pct=99"],
            ),
        ]
        .iter()
        .enumerate()
        {
            rep.runs.push(RunRecord::new(
                i as u64,
                label,
                opts.seed,
                &base.with(set)?,
                &self.defaults(),
            ));
        }
        let bott = (base.f64("bottleneck_kbps") * 1e3).round() as u64;
        let mut rows = Vec::new();
        for ph in phases() {
            let active = [
                ph.doc[0].is_some(),
                ph.doc[1].is_some(),
                ph.doc[2].is_some(),
                ph.doc[3].is_some(),
            ];
            let sol = solver_rates(active, bott);
            for i in 0..4 {
                let Some(doc) = ph.doc[i] else { continue };
                let (last, mean) = phase_rates(&rb, &ph, i);
                let case = format!("{:.0}-{:.0} s {}", ph.from, ph.to, NAMES[i]);
                rep.comparisons
                    .push(Comparison::new(&case, "RBCC rate bit/s", Some(doc), last));
                let (tl, tm) = phase_rates(&tc, &ph, i);
                let _ = tl;
                rows.push(vec![
                    case,
                    format!("{doc:.1}"),
                    sol[i].map_or("-".into(), |v| format!("{v:.2}")),
                    last.map_or("-".into(), |v| format!("{v:.2}")),
                    mean.map_or("-".into(), |v| format!("{v:.1}")),
                    last.map_or("-".into(), |v| format!("{:+.3}", 100.0 * (v / doc - 1.0))),
                    tm.map_or("-".into(), |v| format!("{v:.0}")),
                ]);
            }
        }
        rep.tables.push(Table {
            name: "rates".into(),
            title: "optimum table (Toomey) and rbcc-rate solver vs RBCC's returned rate at the end of each phase and its mean after 5 s; TCP's mean sending rate".into(),
            header: ["phase / source", "Toomey optimum", "solver", "RBCC at end", "RBCC mean", "RBCC vs Toomey %", "TCP mean bit/s"].iter().map(|s| s.to_string()).collect(),
            rows,
        });
        // ACK accounting: the document's table is reproduced by 40-byte ACKs
        // counted as outside load; the alternatives' max-min rates differ.
        let mut arows = Vec::new();
        for ph in phases() {
            let active = ph.doc.map(|d| d.is_some());
            let alts = [
                solver_rates_with(active, bott, ACK_BYTES, AckModel::OutsideLoad),
                solver_rates_with(active, bott, ACK_BYTES, AckModel::Coupled),
                solver_rates_with(active, bott, 52, AckModel::OutsideLoad),
                solver_rates_with(active, bott, 0, AckModel::OutsideLoad),
            ];
            for i in 0..4 {
                let Some(doc) = ph.doc[i] else { continue };
                let mut row = vec![
                    format!("{:.0}-{:.0} s {}", ph.from, ph.to, NAMES[i]),
                    format!("{doc:.1}"),
                ];
                row.extend(
                    alts.iter()
                        .map(|a| a[i].map_or("-".into(), |v| format!("{v:.2}"))),
                );
                arows.push(row);
            }
        }
        rep.tables.push(Table {
            name: "ack_accounting".into(),
            title: "max-min rates (rbcc-rate solver) under ACK accounting choices; Toomey states none of them: only 40-byte ACKs as outside load give its optimum table".into(),
            header: [
                "phase / source",
                "Toomey optimum",
                "40 B ACK, outside load (used)",
                "40 B ACK, coupled max-min",
                "52 B ACK, outside load",
                "no ACK load",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows: arows,
        });
        let mut srows = summary_rows("RBCC", &rb);
        srows.extend(summary_rows("TCP", &tc));
        srows.extend(summary_rows("RBCC, 99% capacity", &rb99));
        rep.tables.push(Table { name: "summary".into(), title: "source 5 end-to-end delay (seed: >= 1.188 s; TRUMP 1.19-1.38 s, TCP 1.19-3.06 s), router 2 queue (seed: RBCC 0-2 packets, 3 when source 6 starts), 2->3 utilisation".into(), header: summary_header(), rows: srows });
        let d: Vec<f64> = rb.delay5.iter().map(|x| x.1).collect();
        let dt: Vec<f64> = tc.delay5.iter().map(|x| x.1).collect();
        rep.comparisons.push(Comparison::new(
            "source 5 delay RBCC",
            "min s",
            Some(1.19),
            d.iter().copied().reduce(f64::min),
        ));
        rep.comparisons.push(Comparison::new(
            "source 5 delay RBCC",
            "max s",
            Some(1.38),
            d.iter().copied().reduce(f64::max),
        ));
        rep.comparisons.push(Comparison::new(
            "source 5 delay TCP",
            "min s",
            Some(1.19),
            dt.iter().copied().reduce(f64::min),
        ));
        rep.comparisons.push(Comparison::new(
            "source 5 delay TCP",
            "max s",
            Some(3.06),
            dt.iter().copied().reduce(f64::max),
        ));
        rep.comparisons.push(Comparison::new(
            "router 2 queue RBCC",
            "max packets after 20 s",
            Some(3.0),
            Some(f64::from(rb.max_queue)),
        ));
        rep.comparisons.push(Comparison::new(
            "drops RBCC",
            "packets",
            Some(0.0),
            Some(rb.drops as f64),
        ));
        rep.plots.push(rate_plot(
            "rbcc_rates",
            "RBCC: rate returned to each source",
            &rb,
        ));
        rep.plots.push(rate_plot(
            "tcp_rates",
            "TCP: sending rate of each source (100 ms)",
            &tc,
        ));
        rep.plots.extend(extra_plots("rbcc", &rb));
        rep.plots.extend(extra_plots("tcp", &tc));
        rep.notes.push("schedule chosen: 5 from 0 s, 7 from 12 s, 8 from 18 s to 260 s, 6 from 140 s to 200 s; topology: hosts directly on routers 2 and 3".into());
        rep.notes.push(
            "TCP baseline: the crate's TCP model in NewReno mode (no SACK), window 64 KB".into(),
        );
        rep.notes.push("RBCC at 100% fills the 2->3 link exactly (data + ACK load = capacity), so a backlog built while sources still use their old rates (one RTT after each change) never drains; the run with RBCC allocating 99% of each link shows the queue draining".into());
        rep.plots.extend(extra_plots("rbcc99", &rb99));
        rep.events = rb.events + tc.events + rb99.events;
        rep.sim_seconds = 3.0 * base.f64("duration_s");
        Ok(rep)
    }
}
