//! `aqm-dumbbell`: TCP flows over one 10 Mbit/s bottleneck, with the
//! bottleneck's queue drop-tail, RED, CoDel, FQ-CoDel, PIE, FQ-PIE or DualPI2.
//!
//! `flows` Classic (Reno, SACK) bulk flows with base round-trip times spread
//! round-robin over `rtt_ms`, and `l4s_flows` scalable (DCTCP-style, ECT(1))
//! flows, share one bottleneck link whose queue is one of the workspace's
//! state machines (module [`queues`]). Each flow has its own 100 Mbit/s
//! access link; the bottleneck has 2 ms of propagation delay and the access
//! link the rest of half the base RTT; ACKs return uncongested (a pure
//! delay). Each data segment leaves its host after a random processing time
//! (uniform below `send_jitter_ms`), so that arrivals are not locked to the
//! bottleneck's departures. Flows start at random instants in the first
//! second; statistics start after `warmup_s`.
//!
//! Measured per discipline: every sent packet's queueing delay at the
//! bottleneck (its wait before transmission), as percentiles over all
//! packets and per class (Classic senders' packets, scalable senders'
//! packets: DualPI2's Classic and L4S queues), the link's utilization,
//! each flow's goodput and Jain's fairness index over the flows, drops and
//! marks, and the standing queue (module [`standing`]: per 100 ms window the
//! smallest queueing delay, the quantity RFC 8289 defines TARGET on), over all
//! packets, per class and per flow. `reproduce` runs the seven disciplines
//! with the same flows and seed (and, in full, again for [`SPREAD_SEEDS`]
//! seeds in all), and sets delay statistics beside the published targets:
//! RFC 8289's 5 ms (CoDel's and FQ-CoDel's medians, CoDel's standing queue
//! and FQ-CoDel's per-flow one), RFC 8033's 15 ms QDELAY_REF (PIE's and
//! FQ-PIE's means and standing queues; DualPI2's Classic mean and standing
//! queue, RFC 9332 Appendix A) and RFC 9332's L4S marking ramp from 0.8 to
//! 1.2 ms (about 1 ms: the L4S median and 99th percentile), within a factor
//! of [`summary::TOLERANCE`] (docs/reproductions.md says why).
//!
//! Per flow, over the measured interval: its loss fraction at the bottleneck
//! (drops over arrivals), its congestion window averaged over samples every
//! [`CWND_SAMPLE`], its fast recoveries and RTOs, set beside the square-root
//! law of TCP congestion avoidance (module [`law`]). The full reproduction
//! adds a sweep of the number of Classic flows for CoDel, FQ-CoDel and PIE
//! (module [`flowcount`]).

use std::sync::{Arc, Mutex};

use crate::engine::{derive_seed, secs, Rng, Time, MS, SEC};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::progress::Progress;
use crate::report::{Report, RunRecord, Table};
use crate::runner::run_jobs;
use crate::scenarios::{ReproduceOpts, Scenario};
use crate::tcp::net::{jain_index, Network};
use crate::tcp::TcpConfig;
use crate::SimError;

pub mod codel_trace;
pub mod flowcount;
mod flowstats;
pub mod law;
mod params;
pub mod queues;
pub mod standing;
pub mod summary;

use params::PARAMS;
use queues::{Bottleneck, QueueLog, QueueSetup, DISCIPLINES};
pub use standing::StandingStats;

/// The `aqm-dumbbell` scenario.
pub struct AqmDumbbell;

/// Queueing-delay statistics of one set of packets, ms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DelayStats {
    /// Packets measured.
    pub packets: usize,
    /// Mean.
    pub mean: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// The empirical CDF at up to 200 points: (delay in ms, fraction at or below).
    pub cdf: Vec<(f64, f64)>,
}

impl DelayStats {
    /// The statistics of `ns` (delays in ns; sorted here).
    #[must_use]
    pub fn of(mut ns: Vec<u64>) -> DelayStats {
        ns.sort_unstable();
        let n = ns.len();
        if n == 0 {
            return DelayStats::default();
        }
        let ms = |v: u64| v as f64 / 1e6;
        // Nearest rank: the smallest value with at least p n values at or below it.
        let rank = |p: f64| ms(ns[((p * n as f64).ceil() as usize).clamp(1, n) - 1]);
        let step = (n / 200).max(1);
        let mut cdf: Vec<(f64, f64)> = (step - 1..n)
            .step_by(step)
            .map(|i| (ms(ns[i]), (i + 1) as f64 / n as f64))
            .collect();
        if cdf.last().map(|p| p.1) != Some(1.0) {
            cdf.push((ms(ns[n - 1]), 1.0));
        }
        DelayStats {
            packets: n,
            mean: ns.iter().map(|&v| v as f64).sum::<f64>() / n as f64 / 1e6,
            p50: rank(0.50),
            p95: rank(0.95),
            p99: rank(0.99),
            cdf,
        }
    }
}

/// One flow's result.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    /// Base round-trip time, ms.
    pub rtt_ms: f64,
    /// A scalable (ECT(1)) sender.
    pub scalable: bool,
    /// Goodput over the measured interval, Mbit/s.
    pub goodput_mbps: f64,
    /// Its packets offered to the bottleneck over the measured interval.
    pub arrivals: u64,
    /// Of those (and of its packets queued before), dropped there.
    pub drops: u64,
    /// Its congestion window, segments, averaged over samples every
    /// [`CWND_SAMPLE`] of the measured interval.
    pub mean_cwnd: f64,
    /// Its segments in flight (sent, not cumulatively acknowledged),
    /// averaged over the same samples.
    pub mean_flight: f64,
    /// Data segments sent over the measured interval (retransmissions
    /// included).
    pub segments_sent: u64,
    /// Fast recoveries (entered on duplicate ACKs / SACK) over the measured
    /// interval.
    pub fast_recoveries: u64,
    /// Retransmission timeouts over the measured interval.
    pub timeouts: u64,
}

impl FlowResult {
    /// The fraction of its packets offered to the bottleneck that were
    /// dropped there (0 when none arrived).
    #[must_use]
    pub fn loss(&self) -> f64 {
        if self.arrivals == 0 {
            0.0
        } else {
            self.drops as f64 / self.arrivals as f64
        }
    }
}

/// How often each flow's congestion window is sampled for
/// [`FlowResult::mean_cwnd`].
pub const CWND_SAMPLE: u64 = 10 * MS;

/// The outcome of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DumbbellOutcome {
    /// The discipline.
    pub discipline: String,
    /// Bytes the bottleneck started sending over the measured interval,
    /// over what its rate allows.
    pub utilization: f64,
    /// Sum of the flows' goodputs, Mbit/s.
    pub goodput_mbps: f64,
    /// Per flow, Classic ones first.
    pub flows: Vec<FlowResult>,
    /// Jain's index over every flow's goodput.
    pub jain: f64,
    /// Queueing delay of every packet sent, of the Classic senders' packets
    /// and of the scalable senders' packets.
    pub delay: [DelayStats; 3],
    /// The standing queue (module [`standing`]: per 100 ms window, the
    /// smallest queueing delay) of every packet, of the Classic senders'
    /// packets and of the scalable senders' packets.
    pub standing: [StandingStats; 3],
    /// The standing queue per flow: each flow's per-window minimum over its
    /// own packets, over every window and flow.
    pub standing_per_flow: StandingStats,
    /// How each flow's standing queue comes about ([`standing::per_flow_alone`]):
    /// the share of flow-windows whose smallest sojourn was a packet that
    /// arrived to an empty queue of its own, and the per-flow standing queue
    /// over the packets that queued behind their own queue's.
    pub per_flow_alone: (f64, StandingStats),
    /// Drops at the bottleneck (Classic, scalable).
    pub drops: [u64; 2],
    /// CE marks at the bottleneck (Classic, scalable).
    pub marks: [u64; 2],
    /// Retransmission timeouts over all flows (measured interval).
    pub timeouts: u64,
    /// The queue's byte totals over the whole run.
    pub totals: QueueLog,
    /// The bottleneck's rate in packets of the configured size per second.
    pub link_pps: f64,
    /// Events.
    pub events: u64,
    /// The measured span: from the end of the warm-up to the end of the
    /// run, ns.
    pub measured: (Time, Time),
}

fn rtts(p: &Params) -> Vec<u64> {
    p.str("rtt_ms")
        .split(',')
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .map(|v| v * MS)
        .collect()
}

/// The bottleneck's propagation delay.
const BOTTLENECK_DELAY: u64 = 2 * MS;

/// One run with `p`'s parameters.
pub fn run_dumbbell(
    p: &Params,
    seed: u64,
    progress: &Progress,
) -> Result<DumbbellOutcome, SimError> {
    let discipline = p.str("discipline").to_string();
    let cap_bps = (p.f64("capacity_mbps") * 1e6).round() as u64;
    let packet = p.u64("packet") as u32;
    let mss = packet.saturating_sub(40).max(1);
    let ecn = p.bool("ecn");
    let mut rng = Rng::new(seed);
    let log = Arc::new(Mutex::new(QueueLog::default()));
    let setup = QueueSetup {
        limit: p.u64("buffer").min(u64::from(u32::MAX)) as u32,
        ecn,
        rate_bps: cap_bps,
        mtu: packet,
    };
    let queue = Bottleneck::new(&discipline, setup, rng.fork(1), Arc::clone(&log))?;
    let classic = TcpConfig {
        mss,
        header: 40,
        // Large enough never to limit a flow: the buffer and the bottleneck
        // decide the windows.
        max_window: mss.saturating_mul(20_000),
        initial_cwnd: p.u64("initial_cwnd") as u32,
        min_rto_ns: secs(p.f64("min_rto_ms") / 1000.0),
        initial_rto_ns: SEC,
        timestamps: true,
        ecn,
        ..TcpConfig::default()
    };
    let scalable = TcpConfig {
        ecn: true,
        scalable: true,
        ..classic
    };
    let mut net = Network::new();
    net.set_send_jitter(secs(p.f64("send_jitter_ms") / 1000.0), rng.fork(2));
    let b = net.add_link(cap_bps, BOTTLENECK_DELAY, Box::new(queue));
    let mut kinds = Vec::new();
    let rtt = rtts(p);
    let n = p.u64("flows") as usize;
    let l4s_rtt = secs(p.f64("l4s_rtt_ms") / 1000.0);
    let mut add = |net: &mut Network, cfg: TcpConfig, class: u8, rtt: u64, rng: &mut Rng| {
        let access = (rtt / 2).saturating_sub(BOTTLENECK_DELAY);
        let a = net.add_pipe_link(100_000_000, access);
        let start = rng.time_below(SEC);
        net.add_flow(cfg, &[a, b], access + BOTTLENECK_DELAY, class, start);
        kinds.push((rtt, class == 1));
    };
    for i in 0..n {
        add(&mut net, classic, 0, rtt[i % rtt.len().max(1)], &mut rng);
    }
    for _ in 0..p.u64("l4s_flows") {
        add(&mut net, scalable, 1, l4s_rtt, &mut rng);
    }
    let end = secs(p.f64("duration_s"));
    let warm = secs(p.f64("warmup_s")).min(end);
    let flows = kinds.len();
    // Each flow's counters at the end of the warm-up: delivered, segments
    // sent, fast recoveries, timeouts.
    let mut at_warm = vec![[0u64; 4]; flows];
    let counters = |net: &Network| -> Vec<[u64; 4]> {
        net.flows()
            .iter()
            .map(|f| {
                let s = f.sender.stats();
                [
                    f.receiver.stats().delivered,
                    s.segments_sent,
                    s.fast_recoveries,
                    s.timeouts,
                ]
            })
            .collect()
    };
    // Sums of the sampled windows and flights (segments) and the samples.
    let mut cwnd_sum = vec![0f64; flows];
    let mut flight_sum = vec![0f64; flows];
    let mut samples = 0u64;
    let seg = f64::from(mss);
    let mut t = 0;
    let mut warmed = false;
    while t < end {
        let next = (t + SEC).min(end);
        if !warmed && next >= warm {
            net.run_until(warm);
            net.reset_link_stats();
            at_warm = counters(&net);
            warmed = true;
        }
        // From the warm-up on, the windows are sampled every CWND_SAMPLE;
        // stopping the run at those instants changes nothing in it.
        let mut s = if warmed { t.max(warm) } else { next };
        while s < next {
            s = (s + CWND_SAMPLE).min(next);
            net.run_until(s);
            for (i, f) in net.flows().iter().enumerate() {
                cwnd_sum[i] += f.sender.cwnd() as f64 / seg;
                flight_sum[i] += f.sender.snd_nxt().saturating_sub(f.sender.snd_una()) as f64;
            }
            samples += 1;
        }
        net.run_until(next);
        progress.advance((next - t) / MS);
        t = next;
    }
    let span = crate::engine::to_secs(end - warm).max(1e-9);
    let (flow_arrivals, flow_drops) = {
        let l = log.lock().unwrap_or_else(|e| e.into_inner());
        (l.flow_arrivals.clone(), l.flow_drops.clone())
    };
    let per_flow = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    let at_end = counters(&net);
    let results: Vec<FlowResult> = at_end
        .iter()
        .zip(&at_warm)
        .zip(&kinds)
        .enumerate()
        .map(|(i, ((e, w), &(rtt, scalable)))| FlowResult {
            rtt_ms: rtt as f64 / 1e6,
            scalable,
            goodput_mbps: (e[0] - w[0]) as f64 * seg * 8.0 / span / 1e6,
            arrivals: per_flow(&flow_arrivals, i),
            drops: per_flow(&flow_drops, i),
            mean_cwnd: cwnd_sum[i] / samples.max(1) as f64,
            mean_flight: flight_sum[i] / samples.max(1) as f64,
            segments_sent: e[1] - w[1],
            fast_recoveries: e[2] - w[2],
            timeouts: e[3] - w[3],
        })
        .collect();
    let goodputs: Vec<f64> = results.iter().map(|f| f.goodput_mbps).collect();
    let link = &net.links()[b as usize];
    let utilization = link.stats.tx_bytes as f64 * 8.0 / span / cap_bps as f64;
    let timeouts = results.iter().map(|f| f.timeouts).sum();
    let totals = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
    let [classic_ns, l4s_ns] = totals.delays.clone();
    let (standing, standing_per_flow) = standing::standing(warm, end, &totals.sent, &totals.idle);
    let per_flow_alone = standing::per_flow_alone(warm, end, &totals.sent);
    let mut all = classic_ns.clone();
    all.extend_from_slice(&l4s_ns);
    Ok(DumbbellOutcome {
        discipline,
        utilization,
        goodput_mbps: goodputs.iter().sum(),
        jain: jain_index(&goodputs),
        flows: results,
        delay: [
            DelayStats::of(all),
            DelayStats::of(classic_ns),
            DelayStats::of(l4s_ns),
        ],
        standing,
        standing_per_flow,
        per_flow_alone,
        drops: totals.drops,
        marks: totals.marks,
        timeouts,
        totals: QueueLog {
            delays: [Vec::new(), Vec::new()],
            sent: Vec::new(),
            idle: Vec::new(),
            ..totals
        },
        measured: (warm, end),
        link_pps: law::link_pps(cap_bps as f64, u64::from(packet)),
        events: net.events(),
    })
}

/// Seeds of the full reproduction: the tables, plots and comparisons are
/// the first seed's; a table gives the range of the targets' metrics over
/// all of them.
pub const SPREAD_SEEDS: u64 = 5;

/// The reduced size of `reproduce quick`: shorter runs, one seed.
const QUICK_DURATION_S: f64 = 30.0;

impl Scenario for AqmDumbbell {
    fn name(&self) -> &'static str {
        "aqm-dumbbell"
    }

    fn description(&self) -> &'static str {
        "TCP flows over a 10 Mbit/s bottleneck: drop-tail, RED, CoDel (RFC 8289), FQ-CoDel \
         (RFC 8290), PIE (RFC 8033), FQ-PIE and DualPI2 (RFC 9332) compared"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn validate(&self, p: &Params) -> Result<(), SimError> {
        if p.f64("warmup_s") + 1.0 > p.f64("duration_s") {
            return Err(SimError::Param(format!(
                "warmup_s={} leaves less than 1 s of duration_s={} to measure",
                p.f64("warmup_s"),
                p.f64("duration_s")
            )));
        }
        if p.u64("flows") + p.u64("l4s_flows") > queues::FQ_FLOWS as u64 {
            return Err(SimError::Param(format!(
                "flows + l4s_flows must be at most {} (FQ-CoDel's flow queues, one per flow)",
                queues::FQ_FLOWS
            )));
        }
        Ok(())
    }

    fn memory_estimate(&self, p: &Params) -> u64 {
        // Per packet sent after the warm-up an 8-byte delay and a 24-byte
        // record (`queues::Sent`), plus the queued packets (about 80 bytes
        // each) and the flows.
        let pkts = p.f64("capacity_mbps") * 1e6 / 8.0 / p.u64("packet") as f64
            * (p.f64("duration_s") - p.f64("warmup_s")).max(0.0);
        (pkts * 32.0 * 2.0 + p.u64("buffer") as f64 * 80.0 + 2e5) as u64
            + (p.u64("flows") + p.u64("l4s_flows")) * 4096
    }

    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError> {
        progress.add_total(secs(params.f64("duration_s")) / MS);
        let o = run_dumbbell(params, seed, progress)?;
        let mut r = Report::new(self.name(), self.description());
        r.params = params.listing();
        summary::tables(&mut r, std::slice::from_ref(&o));
        flow_tables(&mut r, std::slice::from_ref(&o));
        r.notes = summary::NOTES.iter().map(|s| s.to_string()).collect();
        r.events = o.events;
        r.sim_seconds = params.f64("duration_s");
        Ok(r)
    }

    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        let base = if opts.quick {
            self.defaults()
                .with(&[format!("duration_s={QUICK_DURATION_S}")])?
        } else {
            self.defaults()
        };
        let duration = base.f64("duration_s");
        let job_params = |d: &str| base.with(&[format!("discipline={d}")]);
        // Every discipline with the same seed (the same flows, starts and
        // RTTs); the full reproduction repeats that for SPREAD_SEEDS seeds.
        let seeds = if opts.quick { 1 } else { SPREAD_SEEDS };
        let jobs: Vec<(u64, &'static str)> = (0..seeds)
            .flat_map(|k| DISCIPLINES.iter().map(move |d| (k, *d)))
            .collect();
        // The full reproduction adds the flow-count sweep (module
        // `flowcount`), with the default run's seed.
        let sweep = if opts.quick {
            Vec::new()
        } else {
            flowcount::points()
        };
        let work: Vec<Job> = jobs
            .iter()
            .map(|&(k, d)| Job::Main(k, d))
            .chain(sweep.iter().map(|&p| Job::Sweep(p)))
            .collect();
        let mut all = run_jobs(
            &work,
            progress,
            |_| secs(duration) / MS,
            |_, job| match *job {
                Job::Main(k, d) => {
                    run_dumbbell(&job_params(d)?, derive_seed(opts.seed, k), progress)
                }
                Job::Sweep(p) => run_dumbbell(
                    &flowcount::params(&base, p)?,
                    derive_seed(opts.seed, 0),
                    progress,
                ),
            },
        )?;
        let swept = all.split_off(jobs.len());
        let spread = all.split_off(DISCIPLINES.len());
        let outs = all;
        let mut r = Report::new(self.name(), self.description());
        r.params = base.listing();
        let defaults = self.defaults();
        for (i, &(k, d)) in jobs.iter().enumerate() {
            let label = format!("{d}, seed {k}");
            let mut rec = RunRecord::new(k, &label, opts.seed, &job_params(d)?, &defaults);
            rec.run = i as u64;
            r.runs.push(rec);
        }
        for (i, &p) in sweep.iter().enumerate() {
            let mut rec = RunRecord::new(
                0,
                &flowcount::label(p),
                opts.seed,
                &flowcount::params(&base, p)?,
                &defaults,
            );
            rec.run = (jobs.len() + i) as u64;
            r.runs.push(rec);
        }
        for o in outs.iter().chain(&spread).chain(&swept) {
            r.events += o.events;
            r.sim_seconds += duration;
        }
        summary::tables(&mut r, &outs);
        summary::comparisons(&mut r, &outs);
        if !spread.is_empty() {
            let mut every = outs.clone();
            every.extend(spread);
            summary::spread(&mut r, &every);
        }
        summary::plots(&mut r, &outs);
        flow_tables(&mut r, &outs);
        if !swept.is_empty() {
            flowcount::report(&mut r, &swept);
        }
        r.notes = summary::NOTES.iter().map(|s| s.to_string()).collect();
        if opts.quick {
            r.notes.push(format!(
                "quick: {QUICK_DURATION_S} s runs instead of {} s",
                { defaults.f64("duration_s") }
            ));
        }
        Ok(r)
    }
}

/// A run of the full reproduction: seed `k` of a discipline, or a point of
/// the flow-count sweep.
enum Job {
    Main(u64, &'static str),
    Sweep(flowcount::SweepPoint),
}

/// The per-flow TCP table and the square-root law's table.
fn flow_tables(r: &mut Report, outs: &[DumbbellOutcome]) {
    r.tables.push(flowstats::flow_tcp_table(outs));
    r.tables.push(flowstats::law_table(outs));
    if let Some(o) = outs.first() {
        let (warm, end) = o.measured;
        r.tables.push(codel_trace::table(outs, end, end - warm));
    }
    r.tables.push(standing::alone_table(outs));
}

/// The runs' table header and rows, shared with the tests.
#[must_use]
pub fn summary_table(outs: &[DumbbellOutcome]) -> Table {
    summary::summary_table(outs)
}
