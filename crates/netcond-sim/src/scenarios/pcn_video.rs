//! `pcn-video`: PCN flow termination of AR(1) video flows (draft-babiarz-pcn-explicit-marking-01 section 4.7).
//!
//! Video flows of 400 kbps mean (Maglaris et al. AR(1) model, 30 frames/s, the
//! document's 1356-byte MTU packetization) cross one PCN node that meters them with
//! the pcn-meter crate's section 4.8 ET-marker (`pcn_pt` = SR, `pcn_tb`,
//! `pcn_px`) and forwards at twice SR with an unlimited buffer. Each ET-marked
//! packet terminates its flow RTT later. Flow steps, relative to the end of the
//! warm-up (section 4.7): small (SR 4 Mbps) 8 flows, +10 at 3 s, +10 at 24 s;
//! medium (40 Mbps) 80, +100, +100; large (200 Mbps) 400, +500, +500.
//!
//! The document gives no numbers for these runs, only observations: termination
//! works as for voice, and (pcn_tb 400 KB, pcn_px 200 KB) is the most stable of
//! the four settings. We report, per setting and RTT, the rate's mean and
//! standard deviation after each step has settled, against SR.
//!
//! Chosen: a frame's packets leave one by one at the forwarding rate from the
//! end of the frame interval; the warm-up is 3 s; statistics use 50 ms samples
//! from 10 s after each step to the next step (or the end, 45 s after the
//! warm-up).

use crate::engine::{derive_seed, secs, serialization_ns, to_secs, Rng, Time, MS};
use crate::net::{Link, Model, Network, Sim};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::pcn_loop::{Markers, Meter, PcnMark, PcnPacket, Termination};
use crate::progress::Progress;
use crate::report::{Axis, Plot, Report, RunRecord, Series, Table};
use crate::runner::run_jobs;
use crate::scenarios::{ReproduceOpts, Scenario};
use crate::traffic::{VideoModel, VideoSource};
use crate::SimError;

/// The scenario.
pub struct PcnVideo;

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "size",
        default: "medium",
        kind: ParamKind::Choice(&["small", "medium", "large"]),
        help: "SR 4 / 40 / 200 Mbps with 8+10+10 / 80+100+100 / 400+500+500 flows (s4.7)",
    },
    ParamSpec {
        key: "pcn_tb_kb",
        default: "400",
        kind: ParamKind::U64 {
            min: 1,
            max: 1 << 20,
        },
        help: "token bucket depth, KB (s4.7: 400, 200, 300, 250)",
    },
    ParamSpec {
        key: "pcn_px_kb",
        default: "200",
        kind: ParamKind::U64 {
            min: 0,
            max: 1 << 20,
        },
        help: "bytes added per mark, KB (s4.7: 200, 100, 200, 50)",
    },
    ParamSpec {
        key: "rtt_ms",
        default: "50",
        kind: ParamKind::F64 { min: 0.0, max: 1e5 },
        help: "termination delay (s4.7: 50, 200, 800)",
    },
    ParamSpec {
        key: "marker",
        default: "sim48",
        kind: ParamKind::Choice(&["sim48", "3sm"]),
        help: "ET-marker: the s4.8 form the document's video runs used, or 3sM (s1.2)",
    },
    ParamSpec {
        key: "video_kbps",
        default: "400",
        kind: ParamKind::F64 { min: 1.0, max: 1e6 },
        help: "mean payload rate of a video flow (s4.7: 400 kbps)",
    },
    ParamSpec {
        key: "warmup_s",
        default: "3",
        kind: ParamKind::F64 { min: 0.0, max: 1e4 },
        help: "warm-up before the step times (chosen)",
    },
    ParamSpec {
        key: "duration_s",
        default: "45",
        kind: ParamKind::F64 { min: 1.0, max: 1e5 },
        help: "time after the warm-up",
    },
    ParamSpec {
        key: "interval_ms",
        default: "50",
        kind: ParamKind::F64 { min: 1.0, max: 1e5 },
        help: "rate sampling interval (the document's graphs: 50 ms)",
    },
];

#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(u32),
    Frame(u32),
    Pkt(u32, u32),
    Stop(u32),
    Sample,
}

/// The PCN node: the ET-marker, then a link of twice SR.
type Node = Sim<PcnPacket, Markers, Ev>;

/// One run's result.
#[derive(Clone, Debug, Default)]
pub struct VideoResult {
    /// SR, Mbps.
    pub sr_mbps: f64,
    /// Samples: (t s, offered Mbps, flows alive).
    pub samples: Vec<(f64, f64, u32)>,
    /// Per step (after step 1, after step 2): mean and standard deviation of the
    /// rate, Mbps, and flows alive at the end of the window.
    pub windows: Vec<(f64, f64, u32)>,
    /// Flows terminated.
    pub terminated: u64,
    /// Events.
    pub events: u64,
}

fn sizes(size: &str) -> (f64, [usize; 3]) {
    match size {
        "small" => (4e6, [8, 10, 10]),
        "large" => (200e6, [400, 500, 500]),
        _ => (40e6, [80, 100, 100]),
    }
}

/// A run's video sources, the egress's termination signals and the samples.
struct Run<'a> {
    progress: &'a Progress,
    model: VideoModel,
    rng: Rng,
    link_bps: u64,
    interval: Time,
    srcs: Vec<Option<VideoSource>>,
    alive: Vec<bool>,
    n_alive: u32,
    term: Termination,
    bytes: u64,
    frame: Vec<u32>,
    samples: Vec<(f64, f64, u32)>,
}

impl Model<PcnPacket, Markers> for Run<'_> {
    type Ev = Ev;

    #[inline]
    fn on_event(&mut self, node: &mut Node, now: Time, ev: Ev) {
        match ev {
            Ev::Start(f) => {
                let (src, first) = VideoSource::start(self.model, now, &mut self.rng);
                self.srcs[f as usize] = Some(src);
                self.alive[f as usize] = true;
                self.n_alive += 1;
                node.schedule(first, Ev::Frame(f));
            }
            Ev::Frame(f) => {
                if !self.alive[f as usize] {
                    return;
                }
                if let Some(src) = self.srcs[f as usize].as_mut() {
                    src.frame(&mut self.rng, &mut self.frame);
                }
                // One by one at the forwarding rate from the end of the interval.
                let mut t = now;
                for &len in &self.frame {
                    node.schedule(t, Ev::Pkt(f, len));
                    t += serialization_ns(len, self.link_bps);
                }
                node.schedule(now + self.model.frame_interval(), Ev::Frame(f));
            }
            Ev::Pkt(f, len) => {
                if !self.alive[f as usize] {
                    return;
                }
                self.bytes += u64::from(len);
                node.send(self, 0, PcnPacket::new(f, len, 0));
            }
            Ev::Stop(f) => {
                if self.alive[f as usize] {
                    self.alive[f as usize] = false;
                    self.n_alive -= 1;
                }
            }
            Ev::Sample => {
                node.schedule(now + self.interval, Ev::Sample);
                self.progress.advance(self.interval / MS);
                let mbps = self.bytes as f64 * 8.0 / to_secs(self.interval) / 1e6;
                self.samples.push((to_secs(now), mbps, self.n_alive));
                self.bytes = 0;
            }
        }
    }

    /// A packet at the egress, at its departure from the node: an ET-marked
    /// one signals its flow's termination.
    fn on_deliver(&mut self, node: &mut Node, _link: u32, at: Time, pkt: PcnPacket) {
        if pkt.mark == PcnMark::Etm {
            if let Some(t) = self.term.on_et(pkt.flow as usize, at) {
                node.schedule(t, Ev::Stop(pkt.flow));
            }
        }
    }
}

/// Simulates one run.
pub fn simulate(p: &Params, seed: u64, progress: &Progress) -> Result<VideoResult, SimError> {
    let (sr, steps) = sizes(p.str("size"));
    let sr_bps = sr as u64;
    let tb = p.u64("pcn_tb_kb") * 1000;
    let px = p.u64("pcn_px_kb") * 1000;
    let meter = if p.str("marker") == "sim48" {
        Meter::et_sim48(sr_bps, tb, px)?
    } else {
        Meter::et_3sm(sr_bps, tb, px)?
    };
    // One PCN node: the marker, then a link of twice SR with an unlimited buffer.
    let mut net = Network::new(Markers::new(vec![meter]));
    net.add(Link::pipe(2 * sr_bps, 0));
    let warm = secs(p.f64("warmup_s"));
    let end = warm + secs(p.f64("duration_s"));
    let interval = secs(p.f64("interval_ms") / 1e3).max(1);
    let mut node: Node = Sim::new(net);
    progress.add_total(end / MS);
    let total: usize = steps.iter().sum();
    let step_times = [0, warm + 3_000 * MS, warm + 24_000 * MS];
    let mut k = 0u32;
    for (s, &n) in steps.iter().enumerate() {
        for _ in 0..n {
            node.schedule(step_times[s], Ev::Start(k));
            k += 1;
        }
    }
    node.schedule(interval, Ev::Sample);
    let mut run = Run {
        progress,
        model: VideoModel::maglaris(p.f64("video_kbps") * 1e3),
        rng: Rng::new(seed),
        link_bps: 2 * sr_bps,
        interval,
        srcs: vec![None; total],
        alive: vec![false; total],
        n_alive: 0,
        term: Termination::new(total, secs(p.f64("rtt_ms") / 1e3)),
        bytes: 0,
        frame: Vec::new(),
        samples: Vec::new(),
    };
    node.run(&mut run, end);
    let mut res = VideoResult {
        sr_mbps: sr / 1e6,
        samples: run.samples,
        terminated: run.term.signals,
        events: node.events(),
        ..VideoResult::default()
    };
    let w = [
        (to_secs(step_times[1]) + 10.0, to_secs(step_times[2])),
        (to_secs(step_times[2]) + 10.0, to_secs(end)),
    ];
    for (a, b) in w {
        let xs: Vec<&(f64, f64, u32)> = res
            .samples
            .iter()
            .filter(|s| s.0 > a && s.0 < b - 1e-9)
            .collect();
        let n = xs.len().max(1) as f64;
        let mean = xs.iter().map(|s| s.1).sum::<f64>() / n;
        let var = xs.iter().map(|s| (s.1 - mean) * (s.1 - mean)).sum::<f64>() / n;
        res.windows
            .push((mean, var.sqrt(), xs.last().map_or(0, |s| s.2)));
    }
    Ok(res)
}

const SETTINGS: [(u64, u64); 4] = [(400, 200), (200, 100), (300, 200), (250, 50)];
const RTTS: [u64; 3] = [50, 200, 800];

fn plot_of(name: &str, title: &str, r: &VideoResult) -> Plot {
    let mut p = Plot {
        name: name.into(),
        title: title.into(),
        x_label: "time (s)".into(),
        y_label: "rate (Mbps)".into(),
        y2_label: Some("flows".into()),
        ..Plot::default()
    };
    p.series.push(Series {
        label: "offered rate".into(),
        points: r.samples.iter().map(|s| (s.0, s.1)).collect(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    p.line(
        "flows",
        Axis::Right,
        r.samples.iter().map(|s| (s.0, f64::from(s.2))).collect(),
    );
    p.hlines.push((r.sr_mbps, "SR".into()));
    p
}

fn row(label: &str, r: &VideoResult) -> Vec<String> {
    let mut v = vec![label.to_string()];
    for &(m, sd, n) in &r.windows {
        v.push(format!("{:.1}", 100.0 * m / r.sr_mbps));
        v.push(format!("{:.1}", 100.0 * sd / r.sr_mbps));
        v.push(n.to_string());
    }
    v.push(r.terminated.to_string());
    v
}

fn header() -> Vec<String> {
    [
        "setting",
        "step 1 mean % SR",
        "step 1 sd % SR",
        "step 1 flows",
        "step 2 mean % SR",
        "step 2 sd % SR",
        "step 2 flows",
        "terminated",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

impl Scenario for PcnVideo {
    fn name(&self) -> &'static str {
        "pcn-video"
    }

    fn description(&self) -> &'static str {
        "PCN flow termination of AR(1) video flows (draft-babiarz-pcn-explicit-marking-01 s4.7; no table in the document)"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn validate(&self, p: &Params) -> Result<(), SimError> {
        if p.f64("interval_ms") / 1e3 > p.f64("duration_s") {
            return Err(SimError::Param(format!(
                "interval_ms={} is longer than the run (duration_s={}): no sample",
                p.f64("interval_ms"),
                p.f64("duration_s")
            )));
        }
        Ok(())
    }

    fn memory_estimate(&self, p: &Params) -> u64 {
        // Samples of 48 bytes per interval, doubled for the vector's growth.
        let samples = (p.f64("warmup_s") + p.f64("duration_s")) / (p.f64("interval_ms") / 1e3);
        (samples * 96.0) as u64
    }

    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError> {
        let r = simulate(params, seed, progress)?;
        let mut rep = Report::new(self.name(), self.description());
        rep.params = params.listing();
        rep.tables.push(Table {
            name: "summary".into(),
            title: "rate after each step (from 10 s after it), % of SR".into(),
            header: header(),
            rows: vec![row("run", &r)],
        });
        rep.plots.push(plot_of("rate", "video: rate and flows", &r));
        rep.events = r.events;
        rep.sim_seconds = params.f64("warmup_s") + params.f64("duration_s");
        Ok(rep)
    }

    fn in_quick(&self) -> bool {
        false
    }

    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        let base = self.defaults();
        let mut jobs = Vec::new();
        for &(tb, px) in &SETTINGS {
            for &rtt in &RTTS {
                jobs.push((
                    format!("medium, tb {tb} KB, px {px} KB, RTT {rtt} ms"),
                    base.with(&[
                        format!("pcn_tb_kb={tb}"),
                        format!("pcn_px_kb={px}"),
                        format!("rtt_ms={rtt}"),
                    ])?,
                ));
            }
        }
        let work = |(_, p): &(String, Params)| secs(p.f64("warmup_s") + p.f64("duration_s")) / MS;
        let out = run_jobs(&jobs, progress, work, |i, (_, p)| {
            simulate(p, derive_seed(opts.seed, i as u64), progress)
        })?;
        let mut rep = Report::new(self.name(), self.description());
        for (i, (label, p)) in jobs.iter().enumerate() {
            rep.runs
                .push(RunRecord::new(i as u64, label, opts.seed, p, &base));
        }
        let mut rows = Vec::new();
        for ((label, p), r) in jobs.iter().zip(out) {
            rows.push(row(label, &r));
            if p.f64("rtt_ms") == 200.0 {
                let name = label.replace([',', ' '], "_").replace("__", "_");
                rep.plots.push(plot_of(&name, label, &r));
            }
            rep.events += r.events;
            rep.sim_seconds += p.f64("warmup_s") + p.f64("duration_s");
        }
        rep.tables.push(Table {
            name: "summary".into(),
            title: "medium video (SR 40 Mbps, 80 + 100 + 100 flows): rate after each step, % of SR"
                .into(),
            header: header(),
            rows,
        });
        rep.notes.push("the document gives no numbers for the video runs; it finds (tb 400 KB, px 200 KB) the most stable setting".into());
        Ok(rep)
    }
}
