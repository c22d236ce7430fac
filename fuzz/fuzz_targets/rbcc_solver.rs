//! The network-level max-min solver of rbcc-rate (the allocation the
//! distributed per-interface computation converges to), on random networks of
//! up to 4 links and 6 flows, both ACK models: the result must satisfy
//! `rbcc_rate::invariants::network_feasible` and, when the ACK-load iteration
//! settled (`try_solve`), `network_is_max_min`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::RateSel;
use rbcc_rate::invariants::{network_feasible, network_is_max_min};
use rbcc_rate::solver::{Network, SolveError};
use rbcc_rate::{AckModel, FixedRate};

const L: usize = 4;
const F: usize = 6;

#[derive(Arbitrary, Debug)]
struct Flow {
    requested: Option<RateSel>,
    /// Bit l: the flow's data crosses link l.
    data: u8,
    /// Bit l: the flow's ACKs cross link l.
    acks: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    ack_bytes: u16,
    data_bytes: u16,
    coupled: bool,
    links: Vec<RateSel>,
    flows: Vec<Flow>,
}

fn links_of(mask: u8, links: usize) -> ([usize; L], usize) {
    let mut out = [0; L];
    let mut n = 0;
    for l in 0..links {
        if mask & (1 << l) != 0 {
            out[n] = l;
            n += 1;
        }
    }
    (out, n)
}

fuzz_target!(|input: Input| {
    let model = if input.coupled {
        AckModel::Coupled
    } else {
        AckModel::OutsideLoad
    };
    // Under the same rule as RbccProfile: ACKs smaller than data packets.
    let data = u32::from(input.data_bytes).max(1);
    let ack = u32::from(input.ack_bytes) % data;
    let mut net: Network<L, F> = Network::new(ack, data, model);
    for c in input.links.iter().take(L) {
        // Capacities below 2^47 bit/s, as RbccProfile requires.
        let bps = c.get().bits_per_sec() % (1 << 47);
        if net.add_link(FixedRate::from_bps(bps.max(1))).is_err() {
            return;
        }
    }
    let links = net.links();
    if links == 0 {
        return;
    }
    for f in input.flows.iter().take(F) {
        // Every flow's data crosses at least one link.
        let data_mask = if f.data & ((1 << links) - 1) == 0 {
            1
        } else {
            f.data
        };
        let (d, nd) = links_of(data_mask, links);
        let (a, na) = links_of(f.acks & !data_mask, links);
        let req = f
            .requested
            .map_or(FixedRate::UNLIMITED, |r| FixedRate::from_rate(r.get()));
        if net.add_flow(req, &d[..nd], &a[..na]).is_err() {
            return;
        }
    }
    // `try_solve` reports an ACK-load iteration that did not settle; its last
    // iterate (what `solve` returns) must still be feasible, and a settled
    // result must also be max-min (the invariant states its own domain).
    let (x, settled) = match net.try_solve() {
        Ok(x) => (x, true),
        Err(SolveError::NotConverged(x)) => (x, false),
        // A kind of failure this target does not know: nothing to check.
        Err(_) => return,
    };
    assert_eq!(
        net.solve(),
        x,
        "rbcc_solver: solve and try_solve disagree for {net:?}"
    );
    assert!(
        network_feasible(&net, &x),
        "rbcc_solver: infeasible allocation {x:?} for {net:?}"
    );
    assert!(
        !settled || network_is_max_min(&net, &x),
        "rbcc_solver: not max-min {x:?} for {net:?}"
    );
});
