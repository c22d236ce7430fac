//! The runs of `reproduce`: the document's figures with its numbers, and
//! the loss and slow-reroute variants.

use super::*;

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
