//! `aecn`: RED vs ECN vs Adaptive ECN with many heterogeneous TCP flows (Zheng & Kinicki's AECN slides).
//!
//! `n = 3m` bulk TCP flows in three RTT classes (robust: short RTT, average,
//! fragile: long RTT) share one bottleneck whose queue is the workspace's
//! `aqm-red` RED (drop), RED with ECN marking, or AECN (per-class max_p,
//! mark-front). Half the flows start at 0 s and half at 2 s; runs last 100 s.
//!
//! From the slides (slides 12, 15-17, 20-26): w_q 0.001, min_th 10, max_th 30, buffer 50
//! packets, TCP maximum window 64 packets, aggregate capacity 90 Mbit/s,
//! staggered start, 100 s, 60 and 120 flows, AECN alpha = beta = 2.5 with
//! base_max_p 0.5 (60 flows) and 0.8 (120 flows); RED and ECN are run with the
//! same max_p, and a max_p sweep reproduces the RED/ECN figures 2-4.
//!
//! Chosen (the topology figure is not in the text): one 90 Mbit/s bottleneck
//! with 5 ms of propagation; each flow has its own 100 Mbit/s access link of
//! 5 ms (robust), 25 ms (average) or 70 ms (fragile), so round-trip times of
//! 20, 60 and 150 ms; ACKs return uncongested. ns-2's defaults for the TCP: 1000-byte
//! packets (960 payload), SACK, no delayed ACKs, initial window 1, 1 s minimum
//! RTO; ns-2's RED spreading (FJ93's pseudo-code) for all three queues. Flow `i`
//! has class `i mod 3` and starts at 0 s (even `i`) or 2 s (odd `i`), plus a
//! random 0-10 ms jitter. Goodput and fairness are measured from 2 s to the end,
//! when every flow is running.

use netcond::base::{Instant, Rate, TickRate};
use netcond::red::{
    Aecn as AecnState, AecnConfig, AecnProfile, Decision, Ecn, FlowClass, Packet as AqmPacket, Red,
    RedConfig, RedProfile, Spreading,
};

use crate::engine::{derive_seed, secs, Rng, Time, MS, SEC};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::progress::Progress;
use crate::report::{fmt_num, Axis, Comparison, Plot, Report, RunRecord, Table};
use crate::runner::run_jobs;
use crate::scenarios::{ReproduceOpts, Scenario};
use crate::tcp::net::{jain_index, Aqm, AqmQueue, DropTail, Network, Packet, Qdisc, Verdict};
use crate::tcp::TcpConfig;
use crate::SimError;

mod params;
use params::*;

/// The `aecn` scenario.
pub struct Aecn;

/// The outcome of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AecnOutcome {
    /// Scheme name.
    pub scheme: String,
    /// Number of flows.
    pub flows: usize,
    /// max_p / base_max_p.
    pub max_p: f64,
    /// Aggregate goodput, Mbit/s, over the measured interval.
    pub goodput_mbps: f64,
    /// Aggregate throughput (all data sent into the bottleneck incl. retransmissions), Mbit/s.
    pub throughput_mbps: f64,
    /// Per-flow goodput, Mbit/s.
    pub per_flow: Vec<f64>,
    /// Per-class mean goodput (robust, average, fragile), Mbit/s.
    pub per_class: [f64; 3],
    /// Jain's fairness index over the flows' goodputs.
    pub jain: f64,
    /// Smallest and largest per-flow goodput.
    pub min_max: (f64, f64),
    /// Early and forced drops, marks at the bottleneck.
    pub early_drops: u64,
    /// Forced drops (average at or above max_th, or full buffer).
    pub forced_drops: u64,
    /// ECN marks.
    pub marks: u64,
    /// Retransmission timeouts over all flows.
    pub timeouts: u64,
    /// Events.
    pub events: u64,
}

fn ecn_of(p: &Packet) -> Ecn {
    if p.seg.ce {
        Ecn::Ce
    } else if p.seg.ect {
        Ecn::Ect0
    } else {
        Ecn::NotEct
    }
}

/// RED or RED+ECN in front of the bottleneck's FIFO.
struct RedAqm {
    profile: RedProfile,
    red: Red,
    rng: Rng,
}

impl Aqm<Packet> for RedAqm {
    fn on_arrival(&mut self, now: Time, fifo: &DropTail, pkt: &mut Packet) -> Verdict {
        let d = self.red.on_arrival(
            &self.profile,
            Instant::from_ticks(now),
            fifo.len() as u32,
            AqmPacket::new(pkt.seg.wire_len, ecn_of(pkt)),
            &mut self.rng,
        );
        match d {
            Decision::Enqueue => Verdict::Enqueue,
            Decision::Mark => {
                pkt.seg.mark_ce();
                Verdict::Mark
            }
            Decision::DropEarly => Verdict::DropEarly,
            Decision::DropForced => Verdict::DropForced,
        }
    }
    fn on_dequeue(&mut self, now: Time, fifo: &DropTail, _pkt: Option<&Packet>) {
        if fifo.is_empty() {
            self.red
                .on_queue_empty(&self.profile, Instant::from_ticks(now));
        }
    }
}

fn class_of(p: &Packet) -> FlowClass {
    FlowClass::ALL[usize::from(p.class).min(2)]
}

/// AECN in front of the bottleneck's FIFO: the aqm-red crate's decision, and
/// its mark-front on the queue (a cursor per class: everything of that class
/// before it is marked or not ECN-capable, so each packet is scanned at most
/// once per class).
struct AecnAqm {
    profile: AecnProfile,
    aecn: AecnState,
    cursor: [usize; 3],
    class: usize,
    rng: Rng,
}

impl Aqm<Packet> for AecnAqm {
    fn on_arrival(&mut self, now: Time, fifo: &DropTail, pkt: &mut Packet) -> Verdict {
        let class = class_of(pkt);
        self.class = class.index();
        let d = self.aecn.on_arrival(
            &self.profile,
            Instant::from_ticks(now),
            fifo.len() as u32,
            class,
            ecn_of(pkt),
            &mut self.rng,
        );
        match d {
            Decision::Enqueue => Verdict::Enqueue,
            Decision::Mark => Verdict::MarkQueued,
            Decision::DropEarly => Verdict::DropEarly,
            Decision::DropForced => Verdict::DropForced,
        }
    }
    fn mark_queued(&mut self, fifo: &mut DropTail) -> bool {
        let k = self.class;
        let start = self.cursor[k];
        let mut found = false;
        let mut i = start;
        for p in fifo.iter_mut().skip(start) {
            i += 1;
            if class_of(p).index() == k && matches!(ecn_of(p), Ecn::Ect0 | Ecn::Ect1) {
                p.seg.mark_ce();
                found = true;
                break;
            }
        }
        self.cursor[k] = i;
        found
    }
    fn on_dequeue(&mut self, now: Time, fifo: &DropTail, pkt: Option<&Packet>) {
        if pkt.is_none() {
            return;
        }
        for c in &mut self.cursor {
            *c = c.saturating_sub(1);
        }
        if fifo.is_empty() {
            self.aecn
                .on_queue_empty(&self.profile, Instant::from_ticks(now));
        }
    }
}

fn prob(x: f64) -> netcond::red::U32F32 {
    RedConfig::prob(x)
}

fn rtts(p: &Params) -> [Time; 3] {
    let mut out = [20 * MS, 60 * MS, 150 * MS];
    for (i, v) in p.str("rtt_ms").split(',').enumerate().take(3) {
        out[i] = v.trim().parse::<u64>().unwrap_or(20) * MS;
    }
    out
}

/// The bottleneck's queue for `p`'s scheme: RED, RED with ECN, or AECN, in
/// front of a FIFO of `buffer` packets, drawing from `qrng`.
fn bottleneck(p: &Params, cap_bps: u64, qrng: Rng) -> Result<Box<dyn Qdisc<Packet>>, SimError> {
    let scheme = p.str("scheme");
    let max_p = p.f64("max_p");
    let packet = p.u64("packet") as u32;
    let buffer = p.u64("buffer") as u32;
    let min_th = p.u64("min_th") as u32;
    let max_th = p.u64("max_th") as u32;
    let s = RedConfig::typical_tx(Rate::from_bits_per_sec(cap_bps), packet);
    let cfg_err = |e: netcond::red::RedError| SimError::Config(e.to_string());
    let fifo = DropTail::packets(buffer as usize);
    if scheme == "aecn" {
        let a = p.f64("alpha");
        let cfg = AecnConfig::new(
            prob(p.f64("w_q")),
            min_th,
            max_th,
            prob(max_p),
            prob(a),
            prob(a),
            buffer,
        )
        .with_typical_tx(s)
        .with_tick(TickRate::NANOS)
        .with_spreading(Spreading::UniformCountFirst);
        let profile = AecnProfile::new(&cfg).map_err(cfg_err)?;
        let aqm = AecnAqm {
            aecn: AecnState::new(&profile, Instant::ZERO),
            profile,
            cursor: [0; 3],
            class: 0,
            rng: qrng,
        };
        return Ok(Box::new(AqmQueue::new(fifo, aqm)));
    }
    let mut cfg = RedConfig::packets(min_th, max_th, prob(max_p), prob(p.f64("w_q")), buffer);
    cfg.queue.typical_tx = s;
    cfg.queue.spreading = Spreading::UniformCountFirst;
    if scheme == "ecn" {
        cfg.queue.ecn = true;
        cfg.queue.ecn_drop_th = Some(max_th); // RFC 3168 section 7
    }
    let profile = RedProfile::new(&cfg).map_err(cfg_err)?;
    let aqm = RedAqm {
        red: Red::new(&profile, Instant::ZERO),
        profile,
        rng: qrng,
    };
    Ok(Box::new(AqmQueue::new(fifo, aqm)))
}

/// One run with `p`'s parameters.
pub fn run_aecn(p: &Params, seed: u64, progress: &Progress) -> Result<AecnOutcome, SimError> {
    let scheme = p.str("scheme").to_string();
    let n = p.u64("flows") as usize;
    let max_p = p.f64("max_p");
    let cap_bps = (p.f64("capacity_mbps") * 1e6).round() as u64;
    let packet = p.u64("packet") as u32;
    let mut rng = Rng::new(seed);
    let bottleneck = bottleneck(p, cap_bps, rng.fork(1))?;
    let mss = packet.saturating_sub(40).max(1);
    let tcp = TcpConfig {
        mss,
        header: 40,
        max_window: (p.u64("window") as u32).saturating_mul(mss),
        initial_cwnd: 1,
        min_rto_ns: secs(p.f64("min_rto_ms") / 1000.0),
        ecn: scheme != "red",
        ..TcpConfig::default()
    };
    let bdelay = 5 * MS;
    let rtt = rtts(p);
    let mut net = Network::new();
    let b = net.add_link(cap_bps, bdelay, bottleneck);
    for i in 0..n {
        let class = (i % 3) as u8;
        let access = (rtt[usize::from(class)] / 2).saturating_sub(bdelay);
        let a = net.add_pipe_link(100_000_000, access);
        let start = if i % 2 == 1 { 2 * SEC } else { 0 } + rng.time_below(10 * MS);
        net.add_flow(tcp, &[a, b], access + bdelay, class, start);
    }
    let end = secs(p.f64("duration_s"));
    let warm = 2 * SEC + 10 * MS;
    let mut t = 0;
    let mut g0 = vec![0u64; n];
    let mut s0 = vec![0u64; n];
    let mut rto0 = 0;
    while t < end {
        let next = (t + SEC).min(end);
        if t < warm && next >= warm {
            net.run_until(warm);
            net.reset_link_stats();
            for (i, f) in net.flows().iter().enumerate() {
                g0[i] = f.receiver.stats().delivered;
                s0[i] = f.sender.stats().segments_sent;
                rto0 += f.sender.stats().timeouts;
            }
        }
        net.run_until(next);
        progress.advance((next - t) / MS);
        t = next;
    }
    let span = crate::engine::to_secs(end.saturating_sub(warm)).max(1e-9);
    let bits = |segs: u64, bytes: u32| segs as f64 * f64::from(bytes) * 8.0 / span / 1e6;
    let per_flow: Vec<f64> = net
        .flows()
        .iter()
        .enumerate()
        .map(|(i, f)| bits(f.receiver.stats().delivered - g0[i], mss))
        .collect();
    let sent: u64 = net
        .flows()
        .iter()
        .enumerate()
        .map(|(i, f)| f.sender.stats().segments_sent - s0[i])
        .sum();
    let mut per_class = [0.0; 3];
    let mut cnt = [0usize; 3];
    for (i, g) in per_flow.iter().enumerate() {
        per_class[i % 3] += g;
        cnt[i % 3] += 1;
    }
    for k in 0..3 {
        per_class[k] /= cnt[k].max(1) as f64;
    }
    let q = net.links()[b as usize].qdisc_stats();
    let lo = per_flow.iter().cloned().fold(f64::MAX, f64::min);
    let hi = per_flow.iter().cloned().fold(f64::MIN, f64::max);
    let timeouts: u64 = net
        .flows()
        .iter()
        .map(|f| f.sender.stats().timeouts)
        .sum::<u64>()
        - rto0;
    Ok(AecnOutcome {
        scheme,
        flows: n,
        max_p,
        goodput_mbps: per_flow.iter().sum(),
        throughput_mbps: bits(sent, packet),
        jain: jain_index(&per_flow),
        per_flow,
        per_class,
        min_max: (lo, hi),
        early_drops: q.early_drops,
        forced_drops: q.forced_drops,
        marks: q.marks,
        timeouts,
        events: net.events(),
    })
}

/// The alpha (= beta) values of the sweep (Zheng & Kinicki slide 22 sets alpha =
/// beta; slides 23, 24 and 26 call 2.5 the fairest) and the number of seeds per
/// value.
const ALPHAS: &[f64] = &[1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0];
const ALPHA_SEEDS: u64 = 3;

fn job_label(p: &Params) -> String {
    format!(
        "{} flows, {}, max_p {}, alpha {}",
        p.u64("flows"),
        p.str("scheme").to_uppercase(),
        fmt_num(p.f64("max_p")),
        fmt_num(p.f64("alpha"))
    )
}

/// Mean and sample standard deviation.
fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (m, sd)
}

/// The alpha sweep's table (mean and standard deviation over the seeds) and
/// its plot (Jain's index vs alpha).
fn alpha_report(r: &mut Report, runs: &[(u64, f64, f64, u64)], outs: &[AecnOutcome]) {
    let mut rows = Vec::new();
    let mut plot = Plot {
        name: "alpha_jain".into(),
        title: format!("AECN: Jain's index vs alpha = beta (mean of {ALPHA_SEEDS} seeds)"),
        x_label: "alpha = beta".into(),
        y_label: "Jain's index".into(),
        ..Plot::default()
    };
    for (n, mp) in [(60u64, 0.5), (120, 0.8)] {
        let mut pts = Vec::new();
        for &a in ALPHAS {
            let sel: Vec<&AecnOutcome> = runs
                .iter()
                .zip(outs)
                .filter(|((rn, rmp, ra, _), _)| *rn == n && *rmp == mp && *ra == a)
                .map(|(_, o)| o)
                .collect();
            let col = |f: &dyn Fn(&AecnOutcome) -> f64| {
                mean_sd(&sel.iter().map(|o| f(o)).collect::<Vec<_>>())
            };
            let (j, jsd) = col(&|o| o.jain);
            let (g, gsd) = col(&|o| o.goodput_mbps);
            let (mn, _) = col(&|o| o.min_max.0);
            let (fr, _) = col(&|o| o.per_class[2]);
            rows.push(vec![
                n.to_string(),
                fmt_num(mp),
                fmt_num(a),
                sel.len().to_string(),
                format!("{j:.4}"),
                format!("{jsd:.4}"),
                fmt_num(g),
                fmt_num(gsd),
                fmt_num(mn),
                fmt_num(fr),
            ]);
            pts.push((a, j));
        }
        plot.line(&format!("{n} flows"), Axis::Left, pts);
    }
    r.tables.push(Table {
        name: "alpha_sweep".into(),
        title: format!(
            "AECN alpha = beta sweep: mean (sd) over {ALPHA_SEEDS} seeds; slides 23, 24 and 26 call 2.5 the fairest"
        ),
        header: [
            "flows",
            "base_max_p",
            "alpha",
            "runs",
            "Jain",
            "Jain sd",
            "goodput Mbps",
            "goodput sd",
            "min Mbps",
            "fragile Mbps",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
    r.plots.push(plot);
}

fn header() -> Vec<String> {
    [
        "flows",
        "scheme",
        "max_p",
        "goodput Mbps",
        "throughput Mbps",
        "Jain",
        "min Mbps",
        "max Mbps",
        "robust",
        "average",
        "fragile",
        "early drops",
        "forced drops",
        "marks",
        "RTOs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn row(o: &AecnOutcome) -> Vec<String> {
    vec![
        o.flows.to_string(),
        o.scheme.to_uppercase(),
        fmt_num(o.max_p),
        fmt_num(o.goodput_mbps),
        fmt_num(o.throughput_mbps),
        format!("{:.4}", o.jain),
        fmt_num(o.min_max.0),
        fmt_num(o.min_max.1),
        fmt_num(o.per_class[0]),
        fmt_num(o.per_class[1]),
        fmt_num(o.per_class[2]),
        o.early_drops.to_string(),
        o.forced_drops.to_string(),
        o.marks.to_string(),
        o.timeouts.to_string(),
    ]
}

const NOTES: &[&str] = &[
    "Zheng & Kinicki's AECN document is a slide deck: its figures are not in the text, so the document column holds \
     its claims, not numbers",
    "chosen (topology figure not in the text): one 90 Mbit/s bottleneck, RTTs 20 / 60 / 150 ms \
     for robust / average / fragile flows, 1000-byte packets, SACK TCP, initial window 1, min \
     RTO 1 s, no delayed ACKs; ns-2's RED spreading for all three queues",
    "goodput, Jain's index and the min/max gap are measured from 2 s (all flows started) to the end",
];

impl Scenario for Aecn {
    fn name(&self) -> &'static str {
        "aecn"
    }

    fn description(&self) -> &'static str {
        "Zheng & Kinicki's AECN: RED vs ECN vs AECN, 60 and 120 TCP flows in three RTT classes on 90 Mbit/s"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn validate(&self, p: &Params) -> Result<(), SimError> {
        let n = p.u64("flows");
        if n % 3 != 0 {
            return Err(SimError::Param(format!(
                "flows={n} is not a multiple of 3: the scenario has n = 3m flows, m per RTT class (try {} or {})",
                (n / 3 * 3).max(3),
                n / 3 * 3 + 3
            )));
        }
        if p.u64("min_th") >= p.u64("max_th") {
            return Err(SimError::Param(format!(
                "min_th={} must be below max_th={}",
                p.u64("min_th"),
                p.u64("max_th")
            )));
        }
        Ok(())
    }

    fn memory_estimate(&self, p: &Params) -> u64 {
        // A sender keeps only the segments in flight, at most its window and
        // in all at most the bottleneck's bandwidth-delay product (longest
        // RTT class, 300 ms, with a full buffer) plus one window of
        // retransmissions per flow; about 64 bytes per segment and event.
        let n = p.u64("flows") as f64;
        let pkt = p.u64("packet") as f64;
        let bdp = p.f64("capacity_mbps") * 1e6 * 0.3 / (8.0 * pkt) + p.u64("buffer") as f64;
        let per_flow = (p.u64("window") as f64).min(bdp);
        ((n * per_flow).min(n * 4.0 + 2.0 * bdp) * 64.0 + n * 1024.0) as u64
    }

    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError> {
        progress.add_total(secs(params.f64("duration_s")) / MS);
        let o = run_aecn(params, seed, progress)?;
        let mut r = Report::new(self.name(), self.description());
        r.params = params.listing();
        r.tables.push(Table {
            name: "run".into(),
            title: "one run (per-flow goodput in Mbit/s)".into(),
            header: header(),
            rows: vec![row(&o)],
        });
        r.notes = NOTES.iter().map(|s| s.to_string()).collect();
        r.events = o.events;
        r.sim_seconds = params.f64("duration_s");
        Ok(r)
    }

    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        let duration = if opts.quick { 30.0 } else { 100.0 };
        let base = self.defaults();
        // (flows, scheme, max_p): the three schemes at the document's max_p, then the
        // RED/ECN max_p sweep of figures 2-4 (full runs only).
        let mut jobs: Vec<(u64, &str, f64)> = Vec::new();
        for (n, mp) in [(60u64, 0.5), (120, 0.8)] {
            for s in ["red", "ecn", "aecn"] {
                jobs.push((n, s, mp));
            }
        }
        let main_jobs = jobs.len();
        if !opts.quick {
            for n in [60u64, 120] {
                for mp in [0.1, 0.2, 0.5, 0.8, 1.0] {
                    for s in ["red", "ecn"] {
                        if !jobs.contains(&(n, s, mp)) {
                            jobs.push((n, s, mp));
                        }
                    }
                }
            }
        }
        // Slide 17's "ECN drops significant" is made at max_p 0.5 with 120
        // flows: AECN there too, so the three schemes can be compared.
        let extra_jobs = jobs.len();
        if !opts.quick {
            jobs.push((120, "aecn", 0.5));
        }
        // The alpha (= beta) sweep: several seeds per value, appended after the
        // runs above so that their seeds (the job's number) do not change.
        let alpha_runs: Vec<(u64, f64, f64, u64)> = if opts.quick {
            Vec::new()
        } else {
            let mut v = Vec::new();
            for (n, mp) in [(60u64, 0.5), (120, 0.8)] {
                for &a in ALPHAS {
                    for k in 0..ALPHA_SEEDS {
                        v.push((n, mp, a, k));
                    }
                }
            }
            v
        };
        let total = jobs.len() + alpha_runs.len();
        let job_params = |i: usize| -> Result<Params, SimError> {
            if i < jobs.len() {
                let (n, s, mp) = jobs[i];
                base.with(&[
                    format!("flows={n}"),
                    format!("scheme={s}"),
                    format!("max_p={mp}"),
                    format!("duration_s={duration}"),
                ])
            } else {
                let (n, mp, a, _) = alpha_runs[i - jobs.len()];
                base.with(&[
                    format!("flows={n}"),
                    "scheme=aecn".to_string(),
                    format!("max_p={mp}"),
                    format!("alpha={a}"),
                    format!("duration_s={duration}"),
                ])
            }
        };
        let runs: Vec<usize> = (0..total).collect();
        let mut all = run_jobs(
            &runs,
            progress,
            |_| secs(duration) / MS,
            |_, &i| run_aecn(&job_params(i)?, derive_seed(opts.seed, i as u64), progress),
        )?;
        let alpha_outs = all.split_off(jobs.len());
        let outs = all;
        let mut r = Report::new(self.name(), self.description());
        r.params = base.with(&[format!("duration_s={duration}")])?.listing();
        for o in outs.iter().chain(&alpha_outs) {
            r.events += o.events;
            r.sim_seconds += duration;
        }
        let defaults = self.defaults();
        for i in 0..total {
            let (label, p) = (job_label(&job_params(i)?), job_params(i)?);
            r.runs
                .push(RunRecord::new(i as u64, &label, opts.seed, &p, &defaults));
        }
        let find = |n: usize, s: &str, mp: f64| {
            outs.iter()
                .find(|o| o.flows == n && o.scheme == s && (o.max_p - mp).abs() < 1e-9)
        };
        let cases: &[(usize, f64)] = if opts.quick {
            &[(60, 0.5), (120, 0.8)]
        } else {
            &[(60, 0.5), (120, 0.8), (120, 0.5)]
        };
        for &(n, mp) in cases {
            let (Some(red), Some(ecn), Some(aecn)) =
                (find(n, "red", mp), find(n, "ecn", mp), find(n, "aecn", mp))
            else {
                continue;
            };
            let case = format!("{n} flows, max_p {mp}");
            let c = |m: &str, t: &str, v: f64| Comparison::new(&case, m, None, Some(v)).doc_text(t);
            r.comparisons.push(c(
                "goodput ECN - RED, Mbps",
                "> 0 (ECN better)",
                ecn.goodput_mbps - red.goodput_mbps,
            ));
            r.comparisons.push(c(
                "ECN drops",
                if n == 60 {
                    "almost none"
                } else {
                    "significant"
                },
                (ecn.early_drops + ecn.forced_drops) as f64,
            ));
            r.comparisons.push(c("ECN marks", "many", ecn.marks as f64));
            r.comparisons.push(c(
                "RED drops",
                "many",
                (red.early_drops + red.forced_drops) as f64,
            ));
            r.comparisons.push(c(
                "Jain AECN - ECN",
                "> 0 (AECN fairer)",
                aecn.jain - ecn.jain,
            ));
            r.comparisons.push(c(
                "goodput AECN - ECN, Mbps",
                "> 0 with many flows",
                aecn.goodput_mbps - ecn.goodput_mbps,
            ));
            r.comparisons.push(c(
                "min goodput AECN - ECN, Mbps",
                "> 0 (smaller gap)",
                aecn.min_max.0 - ecn.min_max.0,
            ));
            r.comparisons.push(c(
                "max-min gap AECN - ECN, Mbps",
                "< 0",
                (aecn.min_max.1 - aecn.min_max.0) - (ecn.min_max.1 - ecn.min_max.0),
            ));
        }
        r.tables.push(Table {
            name: "schemes".into(),
            title: format!(
                "RED vs ECN vs AECN ({duration} s runs; goodput per flow in Mbit/s, class means)"
            ),
            header: header(),
            rows: outs[..main_jobs].iter().map(row).collect(),
        });
        if outs.len() > main_jobs {
            r.tables.push(Table {
                name: "red_ecn_sweep".into(),
                title: "RED and ECN vs max_p (figures 2-4)".into(),
                header: header(),
                rows: outs[main_jobs..extra_jobs].iter().map(row).collect(),
            });
            r.tables.push(Table {
                name: "max_p_05_120".into(),
                title: "120 flows at max_p 0.5 (slide 17: ECN drops significant): RED, ECN, AECN"
                    .into(),
                header: header(),
                rows: [
                    find(120, "red", 0.5),
                    find(120, "ecn", 0.5),
                    find(120, "aecn", 0.5),
                ]
                .into_iter()
                .flatten()
                .map(row)
                .collect(),
            });
        }
        if !alpha_outs.is_empty() {
            alpha_report(&mut r, &alpha_runs, &alpha_outs);
        }
        // Plots: per-flow goodput sorted (the "visual max-min gap"), per scheme.
        for (n, mp) in [(60usize, 0.5), (120, 0.8)] {
            let mut plot = Plot {
                name: format!("goodput_per_flow_{n}"),
                title: format!("Per-flow goodput, {n} flows, max_p {mp} (flows by class)"),
                x_label: "flow (robust, average, fragile)".into(),
                y_label: "goodput, Mbit/s".into(),
                ..Plot::default()
            };
            for s in ["red", "ecn", "aecn"] {
                if let Some(o) = find(n, s, mp) {
                    let mut idx: Vec<usize> = (0..o.per_flow.len()).collect();
                    idx.sort_by_key(|&i| (i % 3, i));
                    let pts = idx
                        .iter()
                        .enumerate()
                        .map(|(x, &i)| (x as f64, o.per_flow[i]))
                        .collect();
                    plot.line(&s.to_uppercase(), Axis::Left, pts);
                }
            }
            r.plots.push(plot);
        }
        if outs.len() > main_jobs {
            for (metric, name) in [("goodput", "sweep_goodput"), ("jain", "sweep_jain")] {
                let mut plot = Plot {
                    name: name.into(),
                    title: format!("RED and ECN {metric} vs max_p"),
                    x_label: "max_p".into(),
                    y_label: if metric == "goodput" {
                        "Mbit/s".into()
                    } else {
                        "Jain's index".into()
                    },
                    ..Plot::default()
                };
                for n in [60usize, 120] {
                    for s in ["red", "ecn"] {
                        let mut pts: Vec<(f64, f64)> = outs
                            .iter()
                            .filter(|o| o.flows == n && o.scheme == s)
                            .map(|o| {
                                (
                                    o.max_p,
                                    if metric == "goodput" {
                                        o.goodput_mbps
                                    } else {
                                        o.jain
                                    },
                                )
                            })
                            .collect();
                        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                        plot.line(&format!("{} {n} flows", s.to_uppercase()), Axis::Left, pts);
                    }
                }
                r.plots.push(plot);
            }
        }
        r.notes = NOTES.iter().map(|s| s.to_string()).collect();
        if opts.quick {
            r.notes
                .push("quick: 30 s runs, no max_p sweep, no alpha sweep".into());
        }
        Ok(r)
    }
}
