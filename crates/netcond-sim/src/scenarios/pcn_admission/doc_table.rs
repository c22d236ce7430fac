//! The document's table of results, per test and size, set beside ours.

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
