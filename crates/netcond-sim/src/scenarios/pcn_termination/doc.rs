//! The document's figures and variants, and the parameters with their defaults.

use super::*;

pub(super) static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "mix",
        default: "cbr",
        kind: ParamKind::Choice(&["cbr", "3vbr+cbr"]),
        help: "traffic: G.711/20 CBR, or 3 VBR codecs + the dual-rate codec (s3.1)",
    },
    ParamSpec {
        key: "sr_mbps",
        default: "40",
        kind: ParamKind::F64 {
            min: 0.01,
            max: 10_000.0,
        },
        help: "supportable rate SR (s3.1.1: 40 large, s3.1.2: 0.8 small)",
    },
    ParamSpec {
        key: "tb_bytes",
        default: "50000",
        kind: ParamKind::U64 {
            min: 1,
            max: 1 << 32,
        },
        help: "ET-meter token bucket size (s3.1.1: 50000 large, s3.1.2: 10000 small)",
    },
    ParamSpec {
        key: "s_bytes",
        default: "1064",
        kind: ParamKind::U64 {
            min: 0,
            max: 1 << 32,
        },
        help: "marking slow-down s (Fig. 2: 1064; 2064, 4064, 8064 elsewhere)",
    },
    ParamSpec {
        key: "rtt_ms",
        default: "50",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 100_000.0,
        },
        help: "termination delay after the mark (s3.1.1: 50; 200, 800)",
    },
    ParamSpec {
        key: "load_pct",
        default: "200",
        kind: ParamKind::U64 {
            min: 100,
            max: 1000,
        },
        help: "load after the reroute, % of SR (200 or 150)",
    },
    ParamSpec {
        key: "reroute",
        default: "instant",
        kind: ParamKind::Choice(&["instant", "slow"]),
        help: "instant, or 80% within 1 s and 20% within 5 s more (s4.1)",
    },
    ParamSpec {
        key: "marker",
        default: "3sm",
        kind: ParamKind::Choice(&["3sm", "sim48"]),
        help: "ET-marker: 3sM (s1.2, Figs 2-7) or the s4.8 simulated form",
    },
    ParamSpec {
        key: "fwd_mbps",
        default: "0",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 100_000.0,
        },
        help: "forwarding rate; 0 = no loss (s4.2); 48 or 40 for the loss variants (s4.4)",
    },
    ParamSpec {
        key: "buffer_ms",
        default: "20",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 10_000.0,
        },
        help: "buffer, in ms at the forwarding rate (chosen; the document gives none)",
    },
    ParamSpec {
        key: "warmup_s",
        default: "3",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 1000.0,
        },
        help: "time at 100% of SR before the overload (chosen)",
    },
    ParamSpec {
        key: "duration_s",
        default: "17",
        kind: ParamKind::F64 {
            min: 0.1,
            max: 10_000.0,
        },
        help: "simulated time after the overload",
    },
    ParamSpec {
        key: "interval_ms",
        default: "40",
        kind: ParamKind::F64 {
            min: 1.0,
            max: 10_000.0,
        },
        help: "rate measurement interval (chosen: 40 ms, a multiple of the codec periods)",
    },
    ParamSpec {
        key: "stats_from_s",
        default: "5",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 10_000.0,
        },
        help: "start of the 12 s statistics window after the overload (chosen)",
    },
    ParamSpec {
        key: "stats_len_s",
        default: "12",
        kind: ParamKind::F64 {
            min: 0.1,
            max: 10_000.0,
        },
        help: "length of the statistics window (s3.1.1: 12 s)",
    },
];

/// A figure row of the document: name, parameters, and the document's numbers
/// (t150, t125, t110, t100, avg, max, min, var; `None` for "-").
pub(super) struct Case {
    pub(super) fig: &'static str,
    pub(super) mix: Mix,
    pub(super) set: &'static [&'static str],
    pub(super) doc: [Option<f64>; 8],
    pub(super) approx_t100: bool,
}

pub(super) const LARGE: &[&str] = &["sr_mbps=40", "tb_bytes=50000"];

pub(super) const SMALL: &[&str] = &["sr_mbps=0.8", "tb_bytes=10000"];

pub(super) fn cases() -> Vec<Case> {
    let n = |v: f64| Some(v);
    let mut v = Vec::new();
    type Fig = (
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
        [[Option<f64>; 8]; 2],
        [bool; 2],
    );
    let figs: &[Fig] = &[
        (
            "Fig. 2 (200%, s 1064, RTT 50 ms, large)",
            LARGE,
            &["s_bytes=1064", "rtt_ms=50", "load_pct=200"],
            [
                [
                    n(0.15),
                    n(0.20),
                    n(0.25),
                    n(0.50),
                    n(40.0),
                    n(40.0),
                    n(40.0),
                    n(0.0),
                ],
                [
                    n(0.15),
                    n(0.20),
                    n(0.30),
                    n(2.0),
                    n(38.9),
                    n(41.7),
                    n(36.7),
                    n(5.00),
                ],
            ],
            [false, true],
        ),
        (
            "Fig. 3 (200%, s 2064, RTT 50 ms, large)",
            LARGE,
            &["s_bytes=2064", "rtt_ms=50", "load_pct=200"],
            [
                [
                    n(0.15),
                    n(0.30),
                    n(0.45),
                    n(1.20),
                    n(40.0),
                    n(40.0),
                    n(40.0),
                    n(0.0),
                ],
                [
                    n(0.20),
                    n(0.35),
                    n(0.85),
                    n(3.0),
                    n(38.9),
                    n(41.8),
                    n(36.3),
                    n(5.52),
                ],
            ],
            [false, true],
        ),
        (
            "Fig. 4 (150%, s 2064, RTT 50 ms, large)",
            LARGE,
            &["s_bytes=2064", "rtt_ms=50", "load_pct=150"],
            [
                [
                    None,
                    n(0.20),
                    n(0.35),
                    n(1.05),
                    n(40.0),
                    n(40.0),
                    n(40.0),
                    n(0.0),
                ],
                [
                    None,
                    n(0.20),
                    n(0.40),
                    n(2.0),
                    n(38.7),
                    n(41.6),
                    n(35.4),
                    n(6.30),
                ],
            ],
            [false, true],
        ),
        (
            "Fig. 5 (200%, s 1064, RTT 50 ms, small)",
            SMALL,
            &["s_bytes=1064", "rtt_ms=50", "load_pct=200"],
            [
                [
                    n(0.20),
                    n(0.25),
                    n(0.30),
                    n(0.40),
                    n(0.80),
                    n(0.80),
                    n(0.80),
                    n(0.0),
                ],
                [
                    n(0.25),
                    n(0.35),
                    n(0.40),
                    n(2.0),
                    n(0.74),
                    n(1.07),
                    n(0.50),
                    n(0.57),
                ],
            ],
            [false, true],
        ),
        (
            "Fig. 6 (200%, s 2064, RTT 50 ms, small)",
            SMALL,
            &["s_bytes=2064", "rtt_ms=50", "load_pct=200"],
            [
                [
                    n(0.30),
                    n(0.40),
                    n(0.60),
                    n(0.65),
                    n(0.80),
                    n(0.80),
                    n(0.80),
                    n(0.0),
                ],
                [
                    n(0.30),
                    n(0.35),
                    n(0.45),
                    n(4.0),
                    n(0.74),
                    n(1.05),
                    n(0.51),
                    n(0.54),
                ],
            ],
            [false, true],
        ),
        (
            "Fig. 7 (200%, s 4064, RTT 200 ms, large)",
            LARGE,
            &["s_bytes=4064", "rtt_ms=200", "load_pct=200"],
            [
                [
                    n(0.45),
                    n(0.65),
                    n(0.90),
                    n(1.6),
                    n(40.0),
                    n(40.0),
                    n(40.0),
                    n(0.0),
                ],
                [
                    n(0.45),
                    n(0.75),
                    n(1.7),
                    n(4.0),
                    n(38.9),
                    n(42.3),
                    n(36.1),
                    n(6.24),
                ],
            ],
            [false, true],
        ),
    ];
    for (fig, size, set, docs, approx) in figs {
        for (k, mix) in [Mix::Cbr, Mix::VbrMix].into_iter().enumerate() {
            let mut s: Vec<&'static str> = size.to_vec();
            s.extend_from_slice(set);
            s.push(if mix == Mix::Cbr {
                "mix=cbr"
            } else {
                "mix=3vbr+cbr"
            });
            v.push(Case {
                fig,
                mix,
                set: Box::leak(s.into_boxed_slice()),
                doc: docs[k],
                approx_t100: approx[k],
            });
        }
    }
    v
}

/// Loss and slow-reroute variants (draft-babiarz-pcn-explicit-marking-01 sections 4.4, 4.5, 4.1): no table in
/// the document, only the observation that CBR over-terminates at s 8064 with RTT
/// 800 ms and not with RTT 200 ms.
pub(super) fn variants() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "loss 48 Mbps, s 8064, RTT 200 ms, CBR",
            vec!["fwd_mbps=48", "s_bytes=8064", "rtt_ms=200"],
        ),
        (
            "loss 48 Mbps, s 8064, RTT 800 ms, CBR",
            vec!["fwd_mbps=48", "s_bytes=8064", "rtt_ms=800"],
        ),
        (
            "loss 40 Mbps, s 8064, RTT 200 ms, CBR",
            vec!["fwd_mbps=40", "s_bytes=8064", "rtt_ms=200"],
        ),
        (
            "loss 40 Mbps, s 8064, RTT 800 ms, CBR",
            vec!["fwd_mbps=40", "s_bytes=8064", "rtt_ms=800"],
        ),
        (
            "loss 40 Mbps, s 8064, RTT 800 ms, 3VBR+CBR",
            vec!["fwd_mbps=40", "s_bytes=8064", "rtt_ms=800", "mix=3vbr+cbr"],
        ),
        (
            "small, loss 0.8 Mbps, s 8064, RTT 800 ms, CBR",
            vec![
                "sr_mbps=0.8",
                "tb_bytes=10000",
                "fwd_mbps=0.8",
                "s_bytes=8064",
                "rtt_ms=800",
            ],
        ),
        (
            "slow reroute, s 1064, RTT 50 ms, CBR",
            vec!["reroute=slow", "duration_s=20", "stats_from_s=8"],
        ),
        (
            "slow reroute, s 1064, RTT 50 ms, 3VBR+CBR",
            vec![
                "reroute=slow",
                "duration_s=20",
                "stats_from_s=8",
                "mix=3vbr+cbr",
            ],
        ),
    ]
}
