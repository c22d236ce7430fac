//! The parameters with their defaults (the document's where it gives one).

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
