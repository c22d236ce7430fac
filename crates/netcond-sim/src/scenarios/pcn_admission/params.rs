//! The parameters with their defaults (the document's where it gives one).

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
