//! The parameters with their defaults (the slides' where they give one).

use super::*;

pub(super) const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "scheme",
        default: "aecn",
        kind: ParamKind::Choice(&["red", "ecn", "aecn"]),
        help: "bottleneck queue: RED (drops), ECN (RED marking), AECN (Zheng & Kinicki slides 7-8, 20)",
    },
    ParamSpec {
        key: "flows",
        default: "60",
        kind: ParamKind::U64 { min: 3, max: 3000 },
        help: "number of flows n = 3m (Zheng & Kinicki: 60 and 120)",
    },
    ParamSpec {
        key: "max_p",
        default: "0.5",
        kind: ParamKind::F64 { min: 0.0, max: 1.0 },
        help: "RED/ECN max_p, AECN base_max_p (Zheng & Kinicki: 0.5 for 60 flows, 0.8 for 120)",
    },
    ParamSpec {
        key: "alpha",
        default: "2.5",
        kind: ParamKind::F64 {
            min: 0.01,
            max: 100.0,
        },
        help: "AECN alpha = beta (Zheng & Kinicki slides 22-31: 2.5)",
    },
    ParamSpec {
        key: "capacity_mbps",
        default: "90",
        kind: ParamKind::F64 {
            min: 0.1,
            max: 10_000.0,
        },
        help: "bottleneck capacity (Zheng & Kinicki: aggregate 90 Mbit/s)",
    },
    ParamSpec {
        key: "duration_s",
        default: "100",
        kind: ParamKind::F64 {
            min: 3.0,
            max: 100_000.0,
        },
        help: "run length (Zheng & Kinicki: 100 s)",
    },
    ParamSpec {
        key: "w_q",
        default: "0.001",
        kind: ParamKind::F64 {
            min: 0.0001,
            max: 1.0,
        },
        help: "RED weight (Zheng & Kinicki: 0.001)",
    },
    ParamSpec {
        key: "min_th",
        default: "10",
        kind: ParamKind::U64 {
            min: 1,
            max: 10_000,
        },
        help: "min_th in packets (Zheng & Kinicki: 10)",
    },
    ParamSpec {
        key: "max_th",
        default: "30",
        kind: ParamKind::U64 {
            min: 2,
            max: 10_000,
        },
        help: "max_th in packets (Zheng & Kinicki: 30)",
    },
    ParamSpec {
        key: "buffer",
        default: "50",
        kind: ParamKind::U64 { min: 2, max: 256 },
        help: "buffer in packets (Zheng & Kinicki: 50)",
    },
    ParamSpec {
        key: "window",
        default: "64",
        kind: ParamKind::U64 {
            min: 1,
            max: 100_000,
        },
        help: "TCP maximum window in packets (Zheng & Kinicki: 64)",
    },
    ParamSpec {
        key: "packet",
        default: "1000",
        kind: ParamKind::U64 {
            min: 100,
            max: 9000,
        },
        help: "packet size in bytes incl. 40 header bytes (chosen: ns-2's default 1000)",
    },
    ParamSpec {
        key: "min_rto_ms",
        default: "1000",
        kind: ParamKind::F64 {
            min: 1.0,
            max: 10_000.0,
        },
        help: "TCP minimum RTO (chosen: RFC 6298's 1 s, as ns-2 before 2004)",
    },
    ParamSpec {
        key: "rtt_ms",
        default: "20,60,150",
        kind: ParamKind::Choice(&["20,60,150", "20,100,300", "40,80,160"]),
        help: "round-trip times of the robust, average and fragile classes (chosen)",
    },
];
