//! The parameters with their defaults (Toomey's where the report gives one).

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
