//! The parameters with their defaults and where each comes from.

use super::*;

/// The parameters.
pub(super) const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "discipline",
        default: "codel",
        kind: ParamKind::Choice(DISCIPLINES),
        help: "bottleneck queue: drop-tail, RED (ns-2 defaults), CoDel (RFC 8289), FQ-CoDel \
               (RFC 8290), PIE (RFC 8033), FQ-PIE (Linux's sch_fq_pie), DualPI2 (RFC 9332); \
               `reproduce` runs all seven",
    },
    ParamSpec {
        key: "flows",
        default: "8",
        kind: ParamKind::U64 { min: 1, max: 500 },
        help: "Classic (Reno, SACK) flows, spread round-robin over the RTTs of rtt_ms (chosen)",
    },
    ParamSpec {
        key: "rtt_ms",
        default: "10,20,50,100",
        kind: ParamKind::Choice(&["10,20,50,100", "20,40,80,160", "20", "50", "100"]),
        help: "base round-trip times of the Classic flows, ms (chosen)",
    },
    ParamSpec {
        key: "l4s_flows",
        default: "1",
        kind: ParamKind::U64 { min: 0, max: 64 },
        help: "scalable (DCTCP-style, ECT(1)) flows, DualPI2's L4S traffic (chosen)",
    },
    ParamSpec {
        key: "l4s_rtt_ms",
        default: "20",
        kind: ParamKind::F64 {
            min: 5.0,
            max: 1000.0,
        },
        help: "base round-trip time of the scalable flows, ms (chosen: that of two Classic flows)",
    },
    ParamSpec {
        key: "capacity_mbps",
        default: "10",
        kind: ParamKind::F64 {
            min: 0.5,
            max: 1000.0,
        },
        help: "bottleneck rate, Mbit/s (10 Mbit/s)",
    },
    ParamSpec {
        key: "buffer",
        default: "1000",
        kind: ParamKind::U64 {
            min: 4,
            max: 100_000,
        },
        help:
            "packets that may wait at the bottleneck, for every discipline (Linux's \
               txqueuelen and the limit of its codel and pie: 1000; DualPI2: as many MTUs of bytes)",
    },
    ParamSpec {
        key: "ecn",
        default: "false",
        kind: ParamKind::Bool,
        help: "Classic flows use ECN (RFC 3168, ECT(0)) and RED, CoDel, FQ-CoDel and PIE mark \
               ECN-capable packets instead of dropping them (DualPI2 always marks)",
    },
    ParamSpec {
        key: "duration_s",
        default: "60",
        kind: ParamKind::F64 {
            min: 2.0,
            max: 100_000.0,
        },
        help: "run length, s (chosen)",
    },
    ParamSpec {
        key: "warmup_s",
        default: "10",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 100_000.0,
        },
        help: "statistics start after this, s (chosen: past slow start's overshoot)",
    },
    ParamSpec {
        key: "send_jitter_ms",
        default: "1.2",
        kind: ParamKind::F64 {
            min: 0.0,
            max: 100.0,
        },
        help: "random host processing time before each data segment, uniform in [0, this), ms, \
               against traffic phase effects (chosen: one packet time at 10 Mbit/s; 0: none)",
    },
    ParamSpec {
        key: "packet",
        default: "1500",
        kind: ParamKind::U64 {
            min: 100,
            max: 9000,
        },
        help: "packet size on the wire incl. 40 header bytes (an Ethernet MTU)",
    },
    ParamSpec {
        key: "min_rto_ms",
        default: "200",
        kind: ParamKind::F64 {
            min: 1.0,
            max: 10_000.0,
        },
        help: "TCP minimum RTO, ms (Linux's 200 ms)",
    },
    ParamSpec {
        key: "initial_cwnd",
        default: "10",
        kind: ParamKind::U64 { min: 1, max: 100 },
        help: "TCP initial window, segments (RFC 6928)",
    },
];
