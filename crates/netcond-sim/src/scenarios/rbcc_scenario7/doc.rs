//! The document's optimum-rate table, the parameters with their defaults, and the tables and plots of a run.

use super::*;

pub(super) static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "protocol",
        default: "rbcc",
        kind: ParamKind::Choice(&["rbcc", "tcp"]),
        help: "TRUMP/RBCC, or TCP (NewReno) with drop-tail routers",
    },
    ParamSpec {
        key: "duration_s",
        default: "300",
        kind: ParamKind::F64 { min: 1.0, max: 1e5 },
        help: "simulated time (chosen)",
    },
    ParamSpec {
        key: "bottleneck_kbps",
        default: "64",
        kind: ParamKind::F64 { min: 1.0, max: 1e7 },
        help: "router 2 <-> router 3 link (Toomey: 64 kbps)",
    },
    ParamSpec {
        key: "bottleneck_latency_s",
        default: "1",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 100.0,
        },
        help: "router 2 <-> router 3 latency (Toomey: 1 s)",
    },
    ParamSpec {
        key: "buffer_bytes",
        default: "15000",
        kind: ParamKind::U64 {
            min: 0,
            max: 1 << 40,
        },
        help: "router output buffer (Toomey: 15,000 bytes)",
    },
    ParamSpec {
        key: "rbcc_capacity_pct",
        default: "100",
        kind: ParamKind::F64 {
            min: 1.0,
            max: 100.0,
        },
        help: "capacity RBCC allocates, % of each link's rate (100: the document's optimum table)",
    },
    ParamSpec {
        key: "tcp_window_bytes",
        default: "65535",
        kind: ParamKind::U64 {
            min: 1500,
            max: 1 << 30,
        },
        help: "TCP receiver window (chosen)",
    },
    ParamSpec {
        key: "sample_ms",
        default: "100",
        kind: ParamKind::F64 { min: 1.0, max: 1e5 },
        help: "sampling interval of rates and queue",
    },
    ParamSpec {
        key: "util_period_s",
        default: "2",
        kind: ParamKind::F64 {
            min: 0.01,
            max: 1e4,
        },
        help: "link utilisation period (Toomey: 2 s)",
    },
];

/// A phase of the optimum-rate table: interval and the optimum rate per flow
/// (order 5, 6, 7, 8; None: not sending), as the document prints it.
pub(super) struct Phase {
    pub(super) from: f64,
    pub(super) to: f64,
    pub(super) doc: [Option<f64>; 4],
}

pub(super) fn phases() -> Vec<Phase> {
    let (a, b, c) = (31_168.8, 62_337.7, 20_779.2);
    vec![
        Phase {
            from: 0.0,
            to: 12.0,
            doc: [Some(64_000.0), None, None, None],
        },
        Phase {
            from: 12.0,
            to: 18.0,
            doc: [Some(32_000.0), None, Some(32_000.0), None],
        },
        Phase {
            from: 18.0,
            to: 140.0,
            doc: [Some(a), None, Some(a), Some(b)],
        },
        Phase {
            from: 140.0,
            to: 200.0,
            doc: [Some(c), Some(c), Some(c), Some(b)],
        },
        Phase {
            from: 200.0,
            to: 260.0,
            doc: [Some(a), None, Some(a), Some(b)],
        },
        Phase {
            from: 260.0,
            to: 300.0,
            doc: [Some(32_000.0), None, Some(32_000.0), None],
        },
    ]
}

/// The rbcc-rate solver's max-min rates for the flows active in a phase
/// (bit/s; links 0 = 2->3, 1 = 3->2).
pub(super) fn solver_rates(active: [bool; 4], bott: u64) -> [Option<f64>; 4] {
    solver_rates_with(active, bott, ACK_BYTES, AckModel::OutsideLoad)
}

/// The same with another ACK size and ACK accounting (Toomey states
/// neither: the 40-byte ACK counted as outside load is inferred from its
/// optimum table, which it reproduces exactly; the alternatives do not).
pub(super) fn solver_rates_with(
    active: [bool; 4],
    bott: u64,
    ack_bytes: u32,
    model: AckModel,
) -> [Option<f64>; 4] {
    let mut net: Network<2, 4> = Network::new(ack_bytes, DATA_BYTES, model);
    let c = FixedRate::from_bps(bott);
    let _ = net.add_link(c);
    let _ = net.add_link(c);
    let mut idx = [None; 4];
    for (i, f) in FLOWS.iter().enumerate() {
        if active[i] {
            let (d, a) = if router_of_host(f.src) == 2 {
                (0, 1)
            } else {
                (1, 0)
            };
            idx[i] = net.add_flow(FixedRate::UNLIMITED, &[d], &[a]).ok();
        }
    }
    let sol = net.solve();
    let mut out = [None; 4];
    for i in 0..4 {
        out[i] = idx[i].map(|k| sol[k].raw() as f64 / 65_536.0);
    }
    out
}

pub(super) const NAMES: [&str; 4] = ["source 5", "source 6", "source 7", "source 8"];

pub(super) fn rate_plot(name: &str, title: &str, r: &S7Result) -> Plot {
    let mut p = Plot {
        name: name.into(),
        title: title.into(),
        x_label: "time (s)".into(),
        y_label: "rate (bit/s)".into(),
        ..Plot::default()
    };
    for (i, n) in NAMES.iter().enumerate() {
        p.series.push(Series {
            label: (*n).into(),
            points: r.samples.iter().map(|s| (s.0, s.1[i])).collect(),
            axis: Axis::Left,
            step: true,
            color: None,
            dashed: false,
        });
    }
    for (v, l) in [
        (64_000.0, "64000"),
        (31_168.8, "31168.8"),
        (20_779.2, "20779.2"),
    ] {
        p.hlines.push((v, l.into()));
    }
    p
}

pub(super) fn extra_plots(tag: &str, r: &S7Result) -> Vec<Plot> {
    let mut q = Plot {
        name: format!("{tag}_router2_queue"),
        title: format!("{tag}: router 2 queue (2->3)"),
        x_label: "time (s)".into(),
        y_label: "packets".into(),
        ..Plot::default()
    };
    q.series.push(Series {
        label: "queue".into(),
        points: r.samples.iter().map(|s| (s.0, f64::from(s.2))).collect(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    let mut d = Plot {
        name: format!("{tag}_delay5"),
        title: format!("{tag}: source 5 end-to-end delay"),
        x_label: "time (s)".into(),
        y_label: "delay (s)".into(),
        ..Plot::default()
    };
    d.line("source 5", Axis::Left, r.delay5.clone());
    let mut u = Plot {
        name: format!("{tag}_util23"),
        title: format!("{tag}: 2->3 link utilisation (2 s periods)"),
        x_label: "time (s)".into(),
        y_label: "utilisation".into(),
        ..Plot::default()
    };
    u.series.push(Series {
        label: "2->3".into(),
        points: r.util.clone(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    vec![q, d, u]
}

/// Per phase and flow: (the rate at the end of the phase, mean over the phase
/// after 5 s of settling).
pub(super) fn phase_rates(r: &S7Result, ph: &Phase, flow: usize) -> (Option<f64>, Option<f64>) {
    let inside: Vec<f64> = r
        .samples
        .iter()
        .filter(|s| s.0 > ph.from + 5.0 && s.0 < ph.to - 1e-9)
        .map(|s| s.1[flow])
        .collect();
    let last = r
        .samples
        .iter()
        .rfind(|s| s.0 < ph.to - 1e-9)
        .map(|s| s.1[flow]);
    let mean = if inside.is_empty() {
        None
    } else {
        Some(inside.iter().sum::<f64>() / inside.len() as f64)
    };
    (last, mean)
}

pub(super) fn summary_rows(tag: &str, r: &S7Result) -> Vec<Vec<String>> {
    let d: Vec<f64> = r.delay5.iter().map(|x| x.1).collect();
    let min = d.iter().copied().fold(f64::INFINITY, f64::min);
    let max = d.iter().copied().fold(0.0, f64::max);
    let util: Vec<f64> = r.util.iter().map(|u| u.1).collect();
    let umean = util.iter().sum::<f64>() / util.len().max(1) as f64;
    let qmean = r
        .samples
        .iter()
        .filter(|s| s.0 >= 20.0)
        .map(|s| f64::from(s.2))
        .sum::<f64>()
        / r.samples.iter().filter(|s| s.0 >= 20.0).count().max(1) as f64;
    vec![vec![
        tag.into(),
        format!("{min:.4}"),
        format!("{max:.3}"),
        r.max_queue.to_string(),
        format!("{qmean:.2}"),
        format!("{:.1}", 100.0 * umean),
        r.drops.to_string(),
    ]]
}

pub(super) fn summary_header() -> Vec<String> {
    [
        "protocol",
        "delay5 min s",
        "delay5 max s",
        "max queue (>20 s)",
        "mean queue",
        "2->3 util %",
        "drops",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}
