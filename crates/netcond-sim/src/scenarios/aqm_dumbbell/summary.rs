//! The report of `aqm-dumbbell`: tables, the comparison with the published
//! targets, plots.

use super::{DelayStats, DumbbellOutcome, StandingStats};
use crate::report::{fmt_num, Axis, Comparison, Plot, Report, Table};

/// The factor within which a measured delay counts as meeting a published
/// target (docs/reproductions.md says why 2).
pub const TOLERANCE: f64 = 2.0;

/// The notes printed under the report.
pub const NOTES: &[&str] = &[
    "queue delay: each sent packet's wait at the bottleneck, from its arrival to the start of its transmission",
    "all: every packet sent; Classic / scalable: the packets of the Reno flows / of the DCTCP-style ECT(1) flows (DualPI2's Classic and L4S queues)",
    "utilization: bytes the bottleneck started sending over the measured interval, over its rate; goodput: in-order payload at the receivers",
    "standing queue (RFC 8289 sections 3, 4.3): the measured period cut into 100 ms windows (CoDel's INTERVAL); per window the smallest queue delay of the packets that started transmission in it, 0 if the link went idle in it (a dequeue found no packet) or none of those packets started in it; median and 90th percentile over the windows; per flow: each flow's minima over its own packets, over every window and flow",
    "targets: RFC 8289 TARGET 5 ms (CoDel, FQ-CoDel medians; CoDel's standing-queue median, FQ-CoDel's per-flow one), RFC 8033 QDELAY_REF 15 ms (PIE's mean and standing-queue median; FQ-PIE's, each flow's PIE at 15 ms, and its per-flow standing-queue median), RFC 9332 target 15 ms (DualPI2 Classic mean and standing-queue median) and L4S ramp 0.8-1.2 ms (DualPI2 L4S median and 99th percentile); 'within' means ours / target in [1/2, 2]",
];

fn ms(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v < 10.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.1}")
    }
}

fn pcts(d: &DelayStats) -> [String; 3] {
    if d.packets == 0 {
        return [String::new(), String::new(), String::new()];
    }
    [ms(d.p50), ms(d.p95), ms(d.p99)]
}

/// The one-row-per-run table.
pub(super) fn summary_table(outs: &[DumbbellOutcome]) -> Table {
    let header = [
        "discipline",
        "utilization %",
        "goodput Mbps",
        "Jain",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "mean ms",
        "Classic p50 ms",
        "Classic p95 ms",
        "Classic p99 ms",
        "Classic mean ms",
        "scalable p50 ms",
        "scalable p95 ms",
        "scalable p99 ms",
        "drops Classic",
        "drops scalable",
        "marks Classic",
        "marks scalable",
        "timeouts",
    ];
    let rows = outs
        .iter()
        .map(|o| {
            let mut row = vec![
                o.discipline.clone(),
                format!("{:.2}", o.utilization * 100.0),
                format!("{:.3}", o.goodput_mbps),
                format!("{:.4}", o.jain),
            ];
            row.extend(pcts(&o.delay[0]));
            row.push(ms(o.delay[0].mean));
            row.extend(pcts(&o.delay[1]));
            row.push(ms(o.delay[1].mean));
            row.extend(pcts(&o.delay[2]));
            row.extend(
                [o.drops[0], o.drops[1], o.marks[0], o.marks[1], o.timeouts].map(|v| v.to_string()),
            );
            row
        })
        .collect();
    Table {
        name: "summary".into(),
        title: "per discipline: utilization, goodput, Jain's index, queue delay percentiles (all packets, Classic, scalable), drops, marks".into(),
        header: header.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

/// The per-flow goodput table: one row per flow, one column per run.
fn flow_table(outs: &[DumbbellOutcome]) -> Table {
    let mut header: Vec<String> = ["flow", "kind", "base RTT ms"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    header.extend(outs.iter().map(|o| format!("{} Mbps", o.discipline)));
    let n = outs.first().map_or(0, |o| o.flows.len());
    let rows = (0..n)
        .map(|i| {
            let f = &outs[0].flows[i];
            let mut row = vec![
                i.to_string(),
                if f.scalable { "scalable" } else { "Classic" }.to_string(),
                fmt_num(f.rtt_ms),
            ];
            row.extend(outs.iter().map(|o| {
                o.flows
                    .get(i)
                    .map_or(String::new(), |f| format!("{:.3}", f.goodput_mbps))
            }));
            row
        })
        .collect();
    Table {
        name: "flows".into(),
        title: "goodput per flow, Mbit/s".into(),
        header,
        rows,
    }
}

fn standing_cells(s: &StandingStats) -> [String; 2] {
    if s.windows == 0 {
        return [String::new(), String::new()];
    }
    [ms(s.p50), ms(s.p90)]
}

/// The standing-queue table: one row per run.
fn standing_table(outs: &[DumbbellOutcome]) -> Table {
    let header = [
        "discipline",
        "windows",
        "p50 ms",
        "p90 ms",
        "Classic p50 ms",
        "Classic p90 ms",
        "scalable p50 ms",
        "scalable p90 ms",
        "per-flow p50 ms",
        "per-flow p90 ms",
    ];
    let rows = outs
        .iter()
        .map(|o| {
            let mut row = vec![o.discipline.clone(), o.standing[0].windows.to_string()];
            for s in o.standing.iter().chain([&o.standing_per_flow]) {
                row.extend(standing_cells(s));
            }
            row
        })
        .collect();
    Table {
        name: "standing".into(),
        title: "standing queue (RFC 8289): per 100 ms window the smallest queue delay, median and 90th percentile over the windows (all packets, Classic, scalable, per flow)".into(),
        header: header.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

pub(super) fn tables(r: &mut Report, outs: &[DumbbellOutcome]) {
    r.tables.push(summary_table(outs));
    r.tables.push(standing_table(outs));
    r.tables.push(flow_table(outs));
}

/// A published target, what of ours is set beside it, and whether it is
/// within [`TOLERANCE`].
struct Target {
    discipline: &'static str,
    metric: &'static str,
    doc_text: &'static str,
    target_ms: f64,
    ours: fn(&DumbbellOutcome) -> Option<f64>,
}

fn some(d: &DelayStats, v: f64) -> Option<f64> {
    (d.packets > 0).then_some(v)
}

fn standing_p50(s: &StandingStats) -> Option<f64> {
    (s.windows > 0).then_some(s.p50)
}

const TARGETS: &[Target] = &[
    Target {
        discipline: "codel",
        metric: "median queue delay, ms",
        doc_text: "5 (RFC 8289 TARGET)",
        target_ms: 5.0,
        ours: |o| some(&o.delay[0], o.delay[0].p50),
    },
    Target {
        discipline: "codel",
        metric: "standing queue median, ms",
        doc_text: "5 (RFC 8289 TARGET, on the standing queue)",
        target_ms: 5.0,
        ours: |o| standing_p50(&o.standing[0]),
    },
    Target {
        discipline: "fq_codel",
        metric: "median queue delay, ms",
        doc_text: "5 (RFC 8290 / 8289 TARGET)",
        target_ms: 5.0,
        ours: |o| some(&o.delay[0], o.delay[0].p50),
    },
    Target {
        discipline: "fq_codel",
        metric: "per-flow standing queue median, ms",
        doc_text: "5 (RFC 8290 / 8289 TARGET, each flow's standing queue)",
        target_ms: 5.0,
        ours: |o| standing_p50(&o.standing_per_flow),
    },
    Target {
        discipline: "pie",
        metric: "mean queue delay, ms",
        doc_text: "15 (RFC 8033 QDELAY_REF)",
        target_ms: 15.0,
        ours: |o| some(&o.delay[0], o.delay[0].mean),
    },
    Target {
        discipline: "pie",
        metric: "standing queue median, ms",
        doc_text: "15 (RFC 8033 QDELAY_REF)",
        target_ms: 15.0,
        ours: |o| standing_p50(&o.standing[0]),
    },
    Target {
        discipline: "fq_pie",
        metric: "mean queue delay, ms",
        doc_text: "15 (each flow's RFC 8033 QDELAY_REF)",
        target_ms: 15.0,
        ours: |o| some(&o.delay[0], o.delay[0].mean),
    },
    Target {
        discipline: "fq_pie",
        metric: "per-flow standing queue median, ms",
        doc_text: "15 (each flow's RFC 8033 QDELAY_REF)",
        target_ms: 15.0,
        ours: |o| standing_p50(&o.standing_per_flow),
    },
    Target {
        discipline: "dualpi2",
        metric: "Classic queue mean delay, ms",
        doc_text: "15 (RFC 9332 target)",
        target_ms: 15.0,
        ours: |o| some(&o.delay[1], o.delay[1].mean),
    },
    Target {
        discipline: "dualpi2",
        metric: "Classic standing queue median, ms",
        doc_text: "15 (RFC 9332 target)",
        target_ms: 15.0,
        ours: |o| standing_p50(&o.standing[1]),
    },
    Target {
        discipline: "dualpi2",
        metric: "L4S queue median delay, ms",
        doc_text: "about 1 (RFC 9332 ramp 0.8-1.2 ms)",
        target_ms: 1.0,
        ours: |o| some(&o.delay[2], o.delay[2].p50),
    },
    Target {
        discipline: "dualpi2",
        metric: "L4S queue p99 delay, ms",
        doc_text: "about 1 (RFC 9332 ramp 0.8-1.2 ms)",
        target_ms: 1.0,
        ours: |o| some(&o.delay[2], o.delay[2].p99),
    },
];

/// Whether `ours` is within [`TOLERANCE`] of `target` (either way).
#[must_use]
pub fn within(ours: f64, target: f64) -> bool {
    ours >= target / TOLERANCE && ours <= target * TOLERANCE
}

pub(super) fn comparisons(r: &mut Report, outs: &[DumbbellOutcome]) {
    let mut rows = Vec::new();
    for t in TARGETS {
        let Some(o) = outs.iter().find(|o| o.discipline == t.discipline) else {
            continue;
        };
        let ours = (t.ours)(o);
        r.comparisons.push(
            Comparison::new(t.discipline, t.metric, Some(t.target_ms), ours).doc_text(t.doc_text),
        );
        if let Some(v) = ours {
            rows.push(vec![
                t.discipline.to_string(),
                t.metric.to_string(),
                fmt_num(t.target_ms),
                ms(v),
                format!("{:.2}", v / t.target_ms),
                fmt_num(TOLERANCE),
                if within(v, t.target_ms) { "yes" } else { "no" }.to_string(),
            ]);
        }
    }
    // Context rows without a published number: drop-tail's delay at the
    // same utilization, and each discipline's utilization.
    for o in outs {
        r.comparisons.push(
            Comparison::new(
                &o.discipline,
                "utilization %",
                None,
                Some(o.utilization * 100.0),
            )
            .doc_text("-"),
        );
    }
    r.tables.push(Table {
        name: "targets".into(),
        title: format!("published targets: ours / target, within a factor of {TOLERANCE}"),
        header: [
            "discipline",
            "metric",
            "target ms",
            "ours ms",
            "ours / target",
            "tolerance factor",
            "within",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
}

/// log10 of a delay in ms, with zero delays shown at 1 us.
fn log_ms(v: f64) -> f64 {
    v.max(0.001).log10()
}

pub(super) fn plots(r: &mut Report, outs: &[DumbbellOutcome]) {
    let mut cdf = Plot {
        name: "delay_cdf".into(),
        title: "Queue delay CDF per discipline (x: log10 of the delay in ms; 0 = 1 ms, 1 = 10 ms)"
            .into(),
        x_label: "log10(queue delay / 1 ms)".into(),
        y_label: "fraction of packets".into(),
        ..Plot::default()
    };
    for (k, o) in outs.iter().enumerate() {
        let pts = |d: &DelayStats| d.cdf.iter().map(|&(x, y)| (log_ms(x), y)).collect();
        if o.discipline == "dualpi2" {
            cdf.styled_line("dualpi2 Classic", pts(&o.delay[1]), k, false);
            cdf.styled_line("dualpi2 L4S", pts(&o.delay[2]), k, true);
        } else {
            cdf.styled_line(&o.discipline, pts(&o.delay[0]), k, false);
        }
    }
    r.plots.push(cdf);
    let mut gp = Plot {
        name: "goodput_per_flow".into(),
        title: "Goodput per flow (the Classic flows, base RTTs taken round-robin, then the scalable ones)".into(),
        x_label: "flow".into(),
        y_label: "goodput, Mbit/s".into(),
        ..Plot::default()
    };
    for o in outs {
        let pts = o
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (i as f64, f.goodput_mbps))
            .collect();
        gp.line(&o.discipline, Axis::Left, pts);
    }
    if let Some(o) = outs.first() {
        if !o.flows.is_empty() {
            let fair = outs.iter().map(|o| o.goodput_mbps).sum::<f64>()
                / outs.len() as f64
                / o.flows.len() as f64;
            gp.hlines.push((fair, "equal share".into()));
        }
    }
    r.plots.push(gp);
}

/// The spread over seeds of each target's metric, utilization and Jain's
/// index: `outs` holds every discipline's runs, all seeds.
pub(super) fn spread(r: &mut Report, outs: &[DumbbellOutcome]) {
    let mut rows = Vec::new();
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
        (lo, mean, hi)
    };
    for t in TARGETS {
        let v: Vec<f64> = outs
            .iter()
            .filter(|o| o.discipline == t.discipline)
            .filter_map(|o| (t.ours)(o))
            .collect();
        if v.is_empty() {
            continue;
        }
        let (lo, mean, hi) = range(&v);
        let ok = v.iter().filter(|&&x| within(x, t.target_ms)).count();
        rows.push(vec![
            t.discipline.to_string(),
            t.metric.to_string(),
            v.len().to_string(),
            ms(lo),
            ms(mean),
            ms(hi),
            format!("{ok} of {}", v.len()),
        ]);
    }
    for d in super::DISCIPLINES {
        let sel: Vec<&DumbbellOutcome> = outs.iter().filter(|o| o.discipline == *d).collect();
        for (metric, f) in [
            (
                "utilization %",
                (|o: &DumbbellOutcome| o.utilization * 100.0) as fn(&DumbbellOutcome) -> f64,
            ),
            ("Jain", |o: &DumbbellOutcome| o.jain),
            ("p50 ms (all packets)", |o: &DumbbellOutcome| o.delay[0].p50),
        ] {
            let v: Vec<f64> = sel.iter().map(|o| f(o)).collect();
            let (lo, mean, hi) = range(&v);
            let fmt = |x: f64| {
                if metric == "Jain" {
                    format!("{x:.4}")
                } else {
                    ms(x)
                }
            };
            rows.push(vec![
                d.to_string(),
                metric.to_string(),
                v.len().to_string(),
                fmt(lo),
                fmt(mean),
                fmt(hi),
                String::new(),
            ]);
        }
    }
    r.tables.push(Table {
        name: "seeds".into(),
        title: format!("over seeds: min, mean and max, and how many runs meet the target within a factor of {TOLERANCE}"),
        header: ["discipline", "metric", "runs", "min", "mean", "max", "within"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        rows,
    });
}
