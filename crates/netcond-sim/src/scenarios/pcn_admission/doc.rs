//! The document's table and the parameters with their defaults.

use super::*;

pub(super) static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "test",
        default: "erlang",
        kind: ParamKind::Choice(TESTS),
        help: "Erlang-B, 2x overload, parking lot (1->2->3, 2x), cross traffic, VBR, traffic mix (s3.2)",
    },
    ParamSpec {
        key: "n",
        default: "50",
        kind: ParamKind::U64 { min: 2, max: 100_000 },
        help: "base load N in flows (S 10, M 50, L 200)",
    },
    ParamSpec {
        key: "runs",
        default: "10",
        kind: ParamKind::U64 { min: 1, max: 10_000 },
        help: "independent runs averaged (s3.2: 10)",
    },
    ParamSpec {
        key: "arrivals_per_n_hour",
        default: "45",
        kind: ParamKind::F64 { min: 0.01, max: 1e6 },
        help: "Poisson arrivals per hour per unit of base load (s3.2: 45 N/hour)",
    },
    ParamSpec {
        key: "holding_s",
        default: "60",
        kind: ParamKind::F64 { min: 0.001, max: 1e6 },
        help: "mean holding time (s3.2: 1 minute)",
    },
    ParamSpec {
        key: "media_delay_s",
        default: "10",
        kind: ParamKind::F64 { min: 0.0, max: 1e4 },
        help: "maximum media delay (s3.2: 10 s)",
    },
    ParamSpec {
        key: "holding_from",
        default: "arrival",
        kind: ParamKind::Choice(&["arrival", "media"]),
        help: "the holding time runs from the flow's arrival (media delay included) or from the end of its media delay (chosen: arrival)",
    },
    ParamSpec {
        key: "tb_bytes",
        default: "20000",
        kind: ParamKind::U64 { min: 1, max: 1 << 32 },
        help: "AS-marker TB.size (s3.2: 20 KB)",
    },
    ParamSpec {
        key: "threshold_bytes",
        default: "10000",
        kind: ParamKind::U64 { min: 0, max: 1 << 32 },
        help: "AS-marker TB.threshold (s3.2: 10 KB)",
    },
    ParamSpec {
        key: "timeout_s",
        default: "1",
        kind: ParamKind::F64 { min: 0.001, max: 1e4 },
        help: "stop-blocking timer (s3.2: 1 s)",
    },
    ParamSpec {
        key: "rtt_ms",
        default: "50",
        kind: ParamKind::F64 { min: 0.0, max: 1e5 },
        help: "signalling delay (s3.2: 50 ms)",
    },
    ParamSpec {
        key: "warmup_s",
        default: "99",
        kind: ParamKind::F64 { min: 0.0, max: 1e5 },
        help: "warm-up (s3.2: 99 s)",
    },
    ParamSpec {
        key: "observe_s",
        default: "120",
        kind: ParamKind::F64 { min: 0.05, max: 1e5 },
        help: "observation period (s3.2: 120 s)",
    },
    ParamSpec {
        key: "interval_ms",
        default: "50",
        kind: ParamKind::F64 { min: 1.0, max: 1e5 },
        help: "observation interval (s3.2: 50 ms)",
    },
];

/// The document's table: per test, S/M/L blocking %, utilization %, data rate
/// Mbps, overshoot % (None for "*"), and the Erlang-B theoretical row's data rate.
pub(super) struct DocRow {
    pub(super) test: &'static str,
    pub(super) label: &'static str,
    pub(super) blocking: [Option<f64>; 3],
    pub(super) util: [f64; 3],
    pub(super) rate: [f64; 3],
    pub(super) overshoot: [Option<f64>; 3],
    pub(super) theory_rate: Option<[f64; 3]>,
}

pub(super) fn doc_rows() -> Vec<DocRow> {
    vec![
        DocRow {
            test: "erlang",
            label: "Erlang-B test",
            blocking: [Some(12.0), Some(0.3), Some(0.0)],
            util: [62.0, 72.0, 73.0],
            rate: [0.5, 2.9, 11.8],
            overshoot: [Some(0.0), Some(4.0), Some(0.0)],
            theory_rate: Some([0.6, 3.0, 12.0]),
        },
        DocRow {
            test: "overload",
            label: "2x overload",
            blocking: [Some(37.0), Some(32.0), Some(40.0)],
            util: [80.0, 93.0, 97.0],
            rate: [0.6, 3.7, 15.6],
            overshoot: [Some(16.0), Some(20.0), Some(17.0)],
            theory_rate: None,
        },
        DocRow {
            test: "parking",
            label: "multiple-congestion-node (2x)",
            blocking: [None; 3],
            util: [80.0, 93.0, 97.0],
            rate: [0.6, 3.7, 15.5],
            overshoot: [None; 3],
            theory_rate: None,
        },
        DocRow {
            test: "cross",
            label: "cross traffic (2x)",
            blocking: [None; 3],
            util: [80.0, 95.0, 97.0],
            rate: [0.6, 3.8, 15.5],
            overshoot: [None; 3],
            theory_rate: None,
        },
        DocRow {
            test: "vbr",
            label: "VBR test",
            blocking: [Some(7.0), Some(4.0), Some(1.0)],
            util: [51.0, 71.0, 77.0],
            rate: [0.16, 1.1, 4.8],
            overshoot: [Some(0.0); 3],
            theory_rate: Some([0.24, 1.2, 4.7]),
        },
        DocRow {
            test: "mix",
            label: "traffic mix",
            blocking: [Some(20.0), Some(11.0), Some(0.2)],
            util: [58.0, 71.0, 72.0],
            rate: [0.14, 0.9, 3.8],
            overshoot: [Some(0.0); 3],
            theory_rate: Some([0.19, 0.96, 3.8]),
        },
    ]
}

pub(super) fn plot_of(name: &str, title: &str, s: &Summary, target_mbps: f64) -> Plot {
    let mut p = Plot {
        name: name.into(),
        title: title.into(),
        x_label: "time (s)".into(),
        y_label: "data rate (Mbps)".into(),
        y2_label: Some("active flows".into()),
        ..Plot::default()
    };
    p.series.push(Series {
        label: "data rate".into(),
        points: s.samples.iter().map(|x| (x.0, x.1)).collect(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    p.line(
        "active flows",
        Axis::Right,
        s.samples.iter().map(|x| (x.0, f64::from(x.2))).collect(),
    );
    p.hlines.push((target_mbps, "N x mean flow rate".into()));
    p
}
