//! `pcn-admission`: PCN admission control with the 3sM AR-meter / AS-marker
//! (draft-babiarz-pcn-explicit-marking-01 sections 2.3, 3.2 and the table of 3.2.1).
//!
//! Flows of one or two ingress-egress aggregates arrive as a Poisson process,
//! hold for an exponential time and, once admitted, send after a media delay.
//! Every node on an aggregate's route meters its packets with the pcn-meter
//! crate's AS-marker (TB.rate = AR, TB.size 20 KB, threshold 10 KB) and sends
//! them over a link of twice the load's rate (unlimited buffer). At the egress,
//! the pcn-meter crate's `Egress3sm` turns AS marks into block signals with the
//! 1 s stop-blocking timer; the block and start-admission signals reach the
//! ingress 50 ms (RTT) later, and a flow arriving while its aggregate is blocked
//! is refused.
//!
//! Measured over the 120 s observation window, per run, then averaged over the
//! runs: blocking probability (refused / arrived), data rate (bytes entering
//! the first node per 50 ms interval, averaged), bandwidth utilization (data
//! rate / (N x mean flow rate)), and worst overshoot: the largest number of
//! active flows above N, in % of N, worst of the runs.
//!
//! Choices where the document is silent (documented in docs/reproductions.md):
//! "overshoot" is read as admitted flows above the base load N (a flow is
//! active from the end of its media delay to its departure); a flow's holding
//! time runs from its arrival (the media delay is part of it); the initial
//! flows are active at once with random phases; links are FIFOs with unlimited
//! buffers, so a packet's departure time is computed without an event; with
//! cross traffic, AR at the nodes both aggregates cross is doubled ("increased
//! proportionally to the combined load").

use crate::engine::{derive_seed, instant, secs, to_secs, Rng, Time, MS};
use crate::erlang::erlang_b;
use crate::net::{Link, Model, Network, Sim};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::pcn_loop::{Markers, Meter, PcnPacket};
use crate::progress::Progress;
use crate::report::{fmt_num, Axis, Comparison, Plot, Report, RunRecord, Series, Table};
use crate::runner::run_jobs;
use crate::scenarios::{ReproduceOpts, Scenario};
use crate::traffic::{
    Codec, FlowArrivals, VoiceSource, G711_10_VBR, G711_20_CBR, G711_20_VBR, G729_20_VBR,
};
use crate::SimError;
use netcond::pcn::{Egress3sm, EgressSignal, StopBlockingConfig, StopBlockingProfile};

mod doc_table;
mod params;
mod plot;
mod sweep;
use doc_table::*;
use params::*;
use plot::*;
use sweep::precision;
pub use sweep::{sweep, Summary};

/// The scenario.
pub struct PcnAdmission;

/// The tests of draft-babiarz-pcn-explicit-marking-01 section 3.2.
pub const TESTS: &[&str] = &["erlang", "overload", "parking", "cross", "vbr", "mix"];

/// One aggregate: route (node indices), codec mix, arrival rate.
#[derive(Clone, Debug)]
struct Agg {
    route: Vec<usize>,
    codecs: Vec<Codec>,
    /// The holding time starts after the media delay.
    hold_after_media: bool,
    arrivals: FlowArrivals,
    /// Target rate N x mean flow rate, bps (for utilization).
    target_bps: f64,
    /// Base load N (for overshoot).
    n: u64,
}

/// One test's network.
#[derive(Clone, Debug)]
struct Net {
    aggs: Vec<Agg>,
    /// AR per node, bps.
    ar: Vec<u64>,
    /// Link rate per node, bps.
    link: Vec<u64>,
}

/// An upper estimate of one `run`'s peak memory: the live flows of the
/// runs that rayon runs side by side (Little's law: arrival rate x (holding
/// time + media delay), plus the initial flows, with half again for the
/// fluctuation), about 200 bytes each with their pending events and the
/// heap's growth, plus the first run's samples (32 bytes per interval and
/// aggregate, doubled for the vector's growth).
fn memory_estimate(p: &Params) -> u64 {
    let net = build(p.str("test"), p.u64("n"), p);
    let live: f64 = net
        .aggs
        .iter()
        .map(|a| {
            let lambda = a.arrivals.rate_per_sec;
            let hold = to_secs(a.arrivals.mean_holding);
            lambda * hold + lambda * (hold + to_secs(a.arrivals.max_media_delay)) * 1.5
        })
        .sum::<f64>()
        + 1000.0;
    let side_by_side = (p.u64("runs") as f64).min(rayon::current_num_threads() as f64);
    let samples = p.f64("observe_s") / (p.f64("interval_ms") / 1e3) * net.aggs.len() as f64;
    (live * 200.0 * side_by_side + samples * 64.0) as u64
}

fn mean_rate(codecs: &[Codec]) -> f64 {
    codecs.iter().map(Codec::mean_bps).sum::<f64>() / codecs.len() as f64
}

fn build(test: &str, n: u64, p: &Params) -> Net {
    let per_hour = p.f64("arrivals_per_n_hour");
    let arr = |mult: f64| FlowArrivals {
        rate_per_sec: per_hour * n as f64 * mult / 3600.0,
        batch_mean: 1.0,
        mean_holding: secs(p.f64("holding_s")),
        max_media_delay: secs(p.f64("media_delay_s")),
    };
    let codecs: Vec<Codec> = match test {
        "vbr" => vec![G711_20_VBR],
        "mix" => vec![G711_20_VBR, G711_10_VBR, G729_20_VBR],
        _ => vec![G711_20_CBR],
    };
    let r = mean_rate(&codecs);
    let base = n as f64 * r;
    // AR = base load rate x (N-1)/N.
    let ar1 = ((n - 1) as f64 * r).round() as u64;
    let agg = |route: Vec<usize>, mult: f64| Agg {
        route,
        codecs: codecs.clone(),
        hold_after_media: p.str("holding_from") == "media",
        arrivals: arr(mult),
        target_bps: base,
        n,
    };
    let link = |load: f64| (2.0 * load).round() as u64;
    match test {
        "overload" => Net {
            aggs: vec![agg(vec![0], 2.0)],
            ar: vec![ar1],
            link: vec![link(2.0 * base)],
        },
        "parking" => Net {
            aggs: vec![agg(vec![0, 1, 2], 2.0)],
            ar: vec![ar1; 3],
            link: vec![link(2.0 * base); 3],
        },
        "cross" => Net {
            aggs: vec![agg(vec![0, 1, 2], 2.0), agg(vec![1, 2, 3], 1.0)],
            ar: vec![ar1, 2 * ar1, 2 * ar1, ar1],
            link: vec![
                link(2.0 * base),
                link(3.0 * base),
                link(3.0 * base),
                link(base),
            ],
        },
        _ => Net {
            aggs: vec![agg(vec![0], 1.0)],
            ar: vec![ar1],
            link: vec![link(base)],
        },
    }
}

/// Flow events carry the flow's slot and the slot's generation: a slot is
/// reused once its flow departed, and the departed flow's events still
/// waiting (its next packet, its activation) see another generation and do
/// nothing, as they did for a dead flow.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrival(u8),
    Src(u32, u32),
    Activate(u32, u32),
    Depart(u32),
    Hop(PcnPacket),
    Poll,
    Ingress(u8, bool),
    Sample,
}

/// The PCN nodes: each its AS-marker, then its link.
type Nodes = Sim<PcnPacket, Markers, Ev>;

#[derive(Clone, Copy, Debug)]
struct Flow {
    src: VoiceSource,
    gen: u32,
    agg: u8,
    alive: bool,
    active: bool,
}

/// The flows alive, in slots reused after a departure (memory stays
/// proportional to the flows alive, not to all flows ever admitted).
#[derive(Default)]
struct Flows {
    slots: Vec<Flow>,
    free: Vec<u32>,
}

/// One run's per-aggregate result.
#[derive(Clone, Debug, Default)]
pub struct AggResult {
    /// Flows arrived during the observation.
    pub arrived: u64,
    /// Flows refused during the observation.
    pub blocked: u64,
    /// Mean data rate at the ingress over the observation, bps.
    pub rate_bps: f64,
    /// Largest number of active flows seen at a sample.
    pub max_active: u32,
    /// Target rate N x flow rate, bps.
    pub target_bps: f64,
    /// Base load N.
    pub n: u64,
    /// Samples (t, Mbps, active flows).
    pub samples: Vec<(f64, f64, u32)>,
}

/// Admits a flow of aggregate `ai` arriving at `t`, sending after `media`.
fn admit(
    flows: &mut Flows,
    q: &mut Nodes,
    rng: &mut Rng,
    a: &Agg,
    ai: usize,
    t: Time,
    media: Time,
) {
    let codec = a.codecs[rng.below(a.codecs.len() as u64) as usize];
    let (src, first) = VoiceSource::start(codec, t + media, rng);
    let mut flow = Flow {
        src,
        gen: 0,
        agg: ai as u8,
        alive: true,
        active: false,
    };
    let idx = if let Some(i) = flows.free.pop() {
        flow.gen = flows.slots[i as usize].gen.wrapping_add(1);
        flows.slots[i as usize] = flow;
        i
    } else {
        flows.slots.push(flow);
        (flows.slots.len() - 1) as u32
    };
    let gen = flow.gen;
    q.schedule(t + media, Ev::Activate(idx, gen));
    q.schedule(first, Ev::Src(idx, gen));
    let from = if a.hold_after_media { t + media } else { t };
    q.schedule(from + a.arrivals.holding(rng), Ev::Depart(idx));
}

/// A run's aggregates, flows, ingress and egress.
struct Run<'a> {
    net: &'a Net,
    progress: &'a Progress,
    rng: Rng,
    warm: Time,
    interval: Time,
    rtt: Time,
    sb: StopBlockingProfile,
    egress: Egress3sm<u8, 4>,
    poll_at: Option<Time>,
    blocked: Vec<bool>,
    flows: Flows,
    res: Vec<AggResult>,
    active: Vec<u32>,
    bytes: Vec<u64>,
    sums: Vec<(f64, u64)>,
}

impl Run<'_> {
    /// `pk` left a node at `d`: on to the next node, or to the egress.
    fn forward(&mut self, nodes: &mut Nodes, d: Time, pk: PcnPacket) {
        if pk.hop as usize + 1 == self.net.aggs[pk.agg as usize].route.len() {
            self.at_egress(nodes, d, pk);
        } else {
            nodes.schedule(d, Ev::Hop(pk));
        }
    }

    /// The egress (draft-babiarz-pcn-explicit-marking-01 section 2.3,
    /// pcn-meter's Egress3sm) reads `pk` at `t`, at or after every earlier
    /// egress call (one FIFO).
    fn at_egress(&mut self, nodes: &mut Nodes, t: Time, pk: PcnPacket) {
        let sig = self
            .egress
            .on_packet_at(&self.sb, instant(t), pk.agg as usize, pk.flow, pk.mark);
        let new = match sig {
            EgressSignal::Block { new_period } => new_period,
            EgressSignal::Terminate {
                new_block_period, ..
            } => new_block_period,
            EgressSignal::Nothing => false,
        };
        if new {
            nodes.schedule(t + self.rtt, Ev::Ingress(pk.agg, true));
            if let Some(w) = self.egress.next_wakeup() {
                let w = w.ticks();
                if !matches!(self.poll_at, Some(p) if p <= w) {
                    self.poll_at = Some(w);
                    nodes.schedule(w, Ev::Poll);
                }
            }
        }
    }

    fn arrival(&mut self, nodes: &mut Nodes, now: Time, ai: u8) {
        let a = &self.net.aggs[ai as usize];
        nodes.schedule(now + a.arrivals.next_gap(&mut self.rng), Ev::Arrival(ai));
        for _ in 0..a.arrivals.batch(&mut self.rng) {
            let observing = now >= self.warm;
            if observing {
                self.res[ai as usize].arrived += 1;
            }
            if self.blocked[ai as usize] {
                if observing {
                    self.res[ai as usize].blocked += 1;
                }
                continue;
            }
            let media = a.arrivals.media_delay(&mut self.rng);
            let (flows, rng) = (&mut self.flows, &mut self.rng);
            admit(flows, nodes, rng, a, ai as usize, now, media);
        }
    }

    fn sample(&mut self, nodes: &mut Nodes, now: Time) {
        nodes.schedule(now + self.interval, Ev::Sample);
        self.progress.advance(self.interval / MS);
        let dt = to_secs(self.interval);
        for ai in 0..self.res.len() {
            let bps = self.bytes[ai] as f64 * 8.0 / dt;
            self.bytes[ai] = 0;
            if now > self.warm {
                let r = &mut self.res[ai];
                self.sums[ai].0 += bps;
                self.sums[ai].1 += 1;
                r.max_active = r.max_active.max(self.active[ai]);
                r.samples.push((to_secs(now), bps / 1e6, self.active[ai]));
            }
        }
    }
}

impl Model<PcnPacket, Markers> for Run<'_> {
    type Ev = Ev;

    #[inline]
    fn on_event(&mut self, nodes: &mut Nodes, now: Time, ev: Ev) {
        match ev {
            Ev::Arrival(ai) => self.arrival(nodes, now, ai),
            Ev::Activate(f, g) => {
                let fl = &mut self.flows.slots[f as usize];
                if fl.gen == g && fl.alive && !fl.active {
                    fl.active = true;
                    self.active[fl.agg as usize] += 1;
                }
            }
            Ev::Src(f, g) => {
                let fl = &mut self.flows.slots[f as usize];
                if fl.gen != g || !fl.alive {
                    return;
                }
                let (pkt, next) = fl.src.fire(now, &mut self.rng);
                nodes.schedule(next, Ev::Src(f, g));
                if let Some(len) = pkt {
                    let ai = fl.agg as usize;
                    self.bytes[ai] += u64::from(len);
                    let node = self.net.aggs[ai].route[0] as u32;
                    nodes.send(self, node, PcnPacket::new(f, len, ai as u8));
                }
            }
            Ev::Depart(f) => {
                let fl = &mut self.flows.slots[f as usize];
                if fl.alive {
                    fl.alive = false;
                    if fl.active {
                        self.active[fl.agg as usize] -= 1;
                    }
                    self.flows.free.push(f);
                }
            }
            Ev::Hop(mut pk) => {
                pk.hop += 1;
                let node = self.net.aggs[pk.agg as usize].route[pk.hop as usize] as u32;
                nodes.send(self, node, pk);
            }
            Ev::Poll => {
                while let Some((agg, at)) = self.egress.poll(&self.sb, instant(now)) {
                    nodes.schedule(at.ticks() + self.rtt, Ev::Ingress(agg, false));
                }
                self.poll_at = None;
                if let Some(w) = self.egress.next_wakeup() {
                    let w = w.ticks().max(now + 1);
                    self.poll_at = Some(w);
                    nodes.schedule(w, Ev::Poll);
                }
            }
            Ev::Ingress(ai, b) => self.blocked[ai as usize] = b,
            Ev::Sample => self.sample(nodes, now),
        }
    }

    /// A node's link hands the packet back at once (a pipe), with its
    /// departure: on to the next node, or to the egress.
    fn on_deliver(&mut self, nodes: &mut Nodes, _link: u32, at: Time, pkt: PcnPacket) {
        self.forward(nodes, at, pkt);
    }
}

/// Simulates one run; returns one result per aggregate and the event count.
fn simulate(
    net: &Net,
    p: &Params,
    seed: u64,
    progress: &Progress,
) -> Result<(Vec<AggResult>, u64), SimError> {
    let warm = secs(p.f64("warmup_s"));
    let end = warm + secs(p.f64("observe_s"));
    let interval = secs(p.f64("interval_ms") / 1e3).max(1);
    progress.add_total(end / MS);
    let meters = net
        .ar
        .iter()
        .map(|&ar| Meter::as_explicit_marking(ar, p.u64("tb_bytes"), p.u64("threshold_bytes")))
        .collect::<Result<Vec<_>, _>>()?;
    // Node i: its AS-marker, then link i. Unlimited buffers: each node's FIFO
    // reduces to departure times.
    let mut links = Network::new(Markers::new(meters));
    for &l in &net.link {
        links.add(Link::pipe(l, 0));
    }
    let sb = StopBlockingProfile::new(
        &StopBlockingConfig::draft_explicit_marking_01()
            .with_timeout(std::time::Duration::from_nanos(secs(p.f64("timeout_s")))),
    )
    .map_err(|e| SimError::Config(e.to_string()))?;
    let mut egress: Egress3sm<u8, 4> = Egress3sm::new(&sb, instant(0));
    for a in 0..net.aggs.len() {
        egress
            .add(a as u8)
            .map_err(|_| SimError::Config("too many aggregates".into()))?;
    }
    let na = net.aggs.len();
    let res = net
        .aggs
        .iter()
        .map(|a| AggResult {
            target_bps: a.target_bps,
            n: a.n,
            ..AggResult::default()
        })
        .collect();
    let mut run = Run {
        net,
        progress,
        rng: Rng::new(seed),
        warm,
        interval,
        rtt: secs(p.f64("rtt_ms") / 1e3),
        sb,
        egress,
        poll_at: None,
        blocked: vec![false; na],
        flows: Flows::default(),
        res,
        active: vec![0; na],
        bytes: vec![0; na],
        sums: vec![(0.0, 0); na],
    };
    let mut nodes: Nodes = Sim::new(links);
    // Initial flows: arrival rate x mean holding, already past their media delay.
    for (ai, a) in net.aggs.iter().enumerate() {
        let n0 = (a.arrivals.rate_per_sec * to_secs(a.arrivals.mean_holding)).round() as usize;
        for _ in 0..n0 {
            admit(&mut run.flows, &mut nodes, &mut run.rng, a, ai, 0, 0);
        }
        nodes.schedule(a.arrivals.next_gap(&mut run.rng), Ev::Arrival(ai as u8));
    }
    nodes.schedule(interval, Ev::Sample);
    nodes.run(&mut run, end);
    for (r, s) in run.res.iter_mut().zip(&run.sums) {
        r.rate_bps = s.0 / s.1.max(1) as f64;
    }
    Ok((run.res, nodes.events()))
}

const SIZES: [(&str, u64); 3] = [("S", 10), ("M", 50), ("L", 200)];

impl Scenario for PcnAdmission {
    fn name(&self) -> &'static str {
        "pcn-admission"
    }

    fn description(&self) -> &'static str {
        "PCN admission control with the 3sM AS-marker (draft-babiarz-pcn-explicit-marking-01 s3.2, table of s3.2.1)"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn validate(&self, p: &Params) -> Result<(), SimError> {
        if p.f64("interval_ms") / 1e3 > p.f64("observe_s") {
            return Err(SimError::Param(format!(
                "interval_ms={} is longer than the observation (observe_s={}): no sample",
                p.f64("interval_ms"),
                p.f64("observe_s")
            )));
        }
        if p.u64("threshold_bytes") > p.u64("tb_bytes") {
            return Err(SimError::Param(format!(
                "threshold_bytes={} above tb_bytes={}: the AS-marker would never mark",
                p.u64("threshold_bytes"),
                p.u64("tb_bytes")
            )));
        }
        Ok(())
    }

    fn memory_estimate(&self, p: &Params) -> u64 {
        memory_estimate(p)
    }

    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError> {
        let test = params.str("test").to_string();
        let n = params.u64("n");
        let s = sweep(&test, n, params, seed, progress)?;
        let net = build(&test, n, params);
        let mut rep = Report::new(self.name(), self.description());
        rep.params = params.listing();
        let mut rows = Vec::new();
        for a in 0..s.blocking_pct.len() {
            rows.push(vec![
                format!("A{}", a + 1),
                format!("{:.2}", s.blocking_pct[a]),
                format!("{:.1}", s.util_pct[a]),
                format!("{:.3}", s.rate_mbps[a]),
                format!("{:.1}", s.max_active[a]),
                format!("{:.1}", s.overshoot_pct[a]),
            ]);
        }
        rep.tables.push(Table {
            name: "summary".into(),
            title: format!("{test}, N = {n}, {} runs", params.u64("runs")),
            header: [
                "aggregate",
                "blocking %",
                "utilization %",
                "data rate Mbps",
                "max active flows",
                "worst overshoot %",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows,
        });
        rep.plots.push(plot_of(
            "rate",
            &format!("{test}, N = {n}: run 1"),
            &s,
            net.aggs[0].target_bps / 1e6,
        ));
        rep.events = s.events;
        rep.sim_seconds =
            params.u64("runs") as f64 * (params.f64("warmup_s") + params.f64("observe_s"));
        Ok(rep)
    }

    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        let mut base = self.defaults();
        let tests: Vec<&str> = if opts.quick {
            vec!["erlang", "overload"]
        } else {
            TESTS.to_vec()
        };
        if opts.quick {
            base.set("runs", "4")?;
        }
        let jobs: Vec<(usize, &str, usize, u64)> = tests
            .iter()
            .enumerate()
            .flat_map(|(ti, t)| {
                SIZES
                    .iter()
                    .enumerate()
                    .map(move |(si, &(_, n))| (ti, *t, si, n))
            })
            .collect();
        let work = |_: &(usize, &str, usize, u64)| {
            base.u64("runs") * secs(base.f64("warmup_s") + base.f64("observe_s")) / MS
        };
        let results = run_jobs(&jobs, progress, work, |_, &(ti, t, si, n)| {
            let seed = derive_seed(opts.seed, (ti * 3 + si) as u64);
            sweep(t, n, &base, seed, progress)
        })?;
        let docs = doc_rows();
        let mut rep = Report::new(self.name(), self.description());
        // Each row is one `run` (its `runs` runs averaged) seeded with the
        // row's derived seed.
        for &(ti, t, si, n) in &jobs {
            let p = base.with(&[format!("test={t}"), format!("n={n}")])?;
            rep.runs.push(RunRecord::new(
                (ti * 3 + si) as u64,
                &format!("{t} {}", SIZES[si].0),
                opts.seed,
                &p,
                &self.defaults(),
            ));
        }
        let mut table = Vec::new();
        for ((_, t, si, n), s) in jobs.iter().zip(results) {
            let d = docs
                .iter()
                .find(|d| d.test == *t)
                .expect("every test has a row");
            let size = SIZES[*si].0;
            let case = format!("{} {size}", d.label);
            let bl = Comparison::new(
                &case,
                "blocking %",
                d.blocking[*si],
                Some(s.blocking_pct[0]),
            );
            rep.comparisons.push(if d.blocking[*si].is_none() {
                bl.doc_text("*")
            } else {
                bl
            });
            rep.comparisons.push(Comparison::new(
                &case,
                "utilization %",
                Some(d.util[*si]),
                Some(s.util_pct[0]),
            ));
            rep.comparisons.push(Comparison::new(
                &case,
                "data rate Mbps",
                Some(d.rate[*si]),
                Some(s.rate_mbps[0]),
            ));
            let ov = Comparison::new(
                &case,
                "worst overshoot %",
                d.overshoot[*si],
                Some(s.overshoot_pct[0]),
            );
            rep.comparisons.push(if d.overshoot[*si].is_none() {
                ov.doc_text("*")
            } else {
                ov
            });
            if let Some(th) = d.theory_rate {
                // The document's "theoretical" row: Erlang-B with N servers and A = 0.75 N.
                let b = erlang_b(*n as u32, 0.75 * *n as f64);
                let th_case = format!("{} {size} Erlang-B theory", d.label);
                rep.comparisons.push(Comparison::new(
                    &th_case,
                    "blocking %",
                    Some([10.0, 1.0, 0.0][*si]),
                    Some(100.0 * b),
                ));
                rep.comparisons.push(Comparison::new(
                    &th_case,
                    "data rate Mbps",
                    Some(th[*si]),
                    Some(0.75 * *n as f64 * mean_rate(&build(t, *n, &base).aggs[0].codecs) / 1e6),
                ));
            }
            let mut row = vec![
                case.clone(),
                format!("{:.2}", s.blocking_pct[0]),
                format!("{:.1}", s.util_pct[0]),
                format!("{:.3}", s.rate_mbps[0]),
                format!("{:.1}", s.max_active[0]),
                format!("{:.1}", s.overshoot_pct[0]),
            ];
            if s.blocking_pct.len() > 1 {
                row.push(format!(
                    "A2: {:.2}% blocked, {:.1}% util, {:.1}% overshoot",
                    s.blocking_pct[1], s.util_pct[1], s.overshoot_pct[1]
                ));
            } else {
                row.push(String::new());
            }
            table.push(row);
            if *si == 1 || *t == "erlang" {
                let net = build(t, *n, &base);
                rep.plots.push(plot_of(
                    &format!("{t}_{size}"),
                    &format!("{} {size} (N = {n}), run 1", d.label),
                    &s,
                    net.aggs[0].target_bps / 1e6,
                ));
            }
            rep.events += s.events;
            rep.sim_seconds +=
                base.u64("runs") as f64 * (base.f64("warmup_s") + base.f64("observe_s"));
        }
        rep.tables.push(Table {
            name: "summary".into(),
            title: format!(
                "all tests, mean of {} runs (overshoot: worst run)",
                base.u64("runs")
            ),
            header: [
                "case",
                "blocking %",
                "utilization %",
                "data rate Mbps",
                "max active flows",
                "worst overshoot %",
                "second aggregate",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows: table,
        });
        rep.notes.push("data rate: bytes entering the first node per 50 ms interval, averaged; overshoot: largest number of active flows (admitted, past their media delay, not yet departed) above N, worst of the runs".into());
        rep.notes.push("Erlang-B theory rows: B(N, 0.75 N) and 0.75 N x flow rate; the document prints them rounded (10%, 1%, 0%)".into());
        if !opts.quick {
            precision(&mut rep, &base, opts.seed, progress)?;
        }
        if opts.quick {
            rep.notes
                .push("quick: Erlang-B and 2x overload tests only, 4 runs each".into());
        }
        Ok(rep)
    }
}
