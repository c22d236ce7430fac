//! The document's optimum-rate table, phase by phase, and the rbcc-rate
//! solver's max-min rates set beside it.

use super::*;

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
