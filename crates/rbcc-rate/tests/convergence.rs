//! The distributed per-interface computation converges to the solver's max-min
//! allocation on random topologies.

use core::time::Duration;
use netcond_core::{Instant, RandomSource, Rate, SplitMix64};
use rbcc_rate::invariants::{
    interface_is_max_min, interface_within_capacity, network_feasible, network_is_max_min,
    stamp_only_lowers,
};
use rbcc_rate::solver::Network;
use rbcc_rate::{AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};

const PAIRS: usize = 6; // full-duplex links; directed link 2i is a -> b, 2i + 1 is b -> a
const FLOWS: usize = 10;

struct Topology {
    caps: [u64; PAIRS],
    /// Per flow: requested rate and its directed data links, in path order.
    flows: Vec<(FixedRate, Vec<usize>)>,
}

fn twin(l: usize) -> usize {
    l ^ 1
}

fn random_topology(rng: &mut SplitMix64) -> Topology {
    let mut caps = [0u64; PAIRS];
    for c in &mut caps {
        *c = 1_000 + u64::from(rng.below(1_000_000));
    }
    let n = 1 + rng.below(FLOWS as u32) as usize;
    let flows = (0..n)
        .map(|_| {
            let hops = 1 + rng.below(4) as usize;
            let mut pairs: Vec<usize> = (0..PAIRS).collect();
            // Fisher-Yates on the pairs, then take the first `hops`.
            for i in (1..PAIRS).rev() {
                pairs.swap(i, rng.below(i as u32 + 1) as usize);
            }
            let route = pairs[..hops]
                .iter()
                .map(|&p| 2 * p + rng.below(2) as usize)
                .collect();
            let requested = if rng.chance(1 << 30) {
                FixedRate::from_bps(1 + u64::from(rng.below(300_000)))
            } else {
                FixedRate::UNLIMITED
            };
            (requested, route)
        })
        .collect();
    Topology { caps, flows }
}

fn net_of(t: &Topology, ack_bytes: u32) -> Network<{ 2 * PAIRS }, FLOWS> {
    net_with(t, ack_bytes, AckModel::OutsideLoad)
}

fn net_with(t: &Topology, ack_bytes: u32, model: AckModel) -> Network<{ 2 * PAIRS }, FLOWS> {
    let mut net: Network<{ 2 * PAIRS }, FLOWS> = Network::new(ack_bytes, 1500, model);
    for c in t.caps {
        net.add_link(FixedRate::from_bps(c)).unwrap();
        net.add_link(FixedRate::from_bps(c)).unwrap();
    }
    for (req, route) in &t.flows {
        let acks: Vec<usize> = route.iter().rev().map(|&l| twin(l)).collect();
        net.add_flow(*req, route, &acks).unwrap();
    }
    net
}

fn solve(t: &Topology, ack_bytes: u32, model: AckModel) -> Vec<FixedRate> {
    let net = net_with(t, ack_bytes, model);
    let x = net.solve();
    assert!(network_feasible(&net, &x));
    assert!(network_is_max_min(&net, &x), "solver not max-min: {x:?}");
    x[..t.flows.len()].to_vec()
}

/// Runs round trips (one packet and its ACK per flow, in flow order) until the
/// returned rates are unchanged for three rounds; returns them and the rounds.
fn distributed(t: &Topology, ack_bytes: u32, model: AckModel) -> (Vec<FixedRate>, usize) {
    let profiles: Vec<RbccProfile> = (0..2 * PAIRS)
        .map(|l| {
            RbccProfile::new(
                &RbccConfig::new(
                    NodeId(l as u32 + 1),
                    Rate::from_bits_per_sec(t.caps[l / 2]),
                    ack_bytes,
                    1500,
                )
                .with_ack_model(model)
                .with_idle_timeout(Duration::MAX),
            )
            .unwrap()
        })
        .collect();
    let mut ifs: Vec<RbccInterface<32>> = profiles
        .iter()
        .map(|p| RbccInterface::new(p, Instant::ZERO))
        .collect();
    let mut rates = vec![FixedRate::ZERO; t.flows.len()];
    let mut stable = 0;
    for round in 0..1000 {
        let now = Instant::from_ticks(round);
        let mut changed = false;
        for (f, (req, route)) in t.flows.iter().enumerate() {
            let flow = f as u32;
            let mut d = RateHeader::new(*req);
            for &l in route {
                let before = d;
                ifs[l].on_data(&profiles[l], now, flow, &mut d).unwrap();
                assert!(stamp_only_lowers(profiles[l].node(), &before, &d));
            }
            let mut a = d.ack();
            for &l in route.iter().rev() {
                ifs[twin(l)]
                    .on_ack(&profiles[twin(l)], now, flow, &mut a)
                    .unwrap();
                ifs[l].on_return(&profiles[l], now, flow, &a);
            }
            changed |= rates[f] != a.rate;
            rates[f] = a.rate;
        }
        for (i, p) in ifs.iter().zip(&profiles) {
            assert!(interface_within_capacity(p, i));
            assert!(interface_is_max_min(p, i));
        }
        stable = if changed { 0 } else { stable + 1 };
        if stable == 3 {
            return (rates, round as usize);
        }
    }
    panic!("no convergence in 1000 round trips: {rates:?}");
}

#[test]
fn converges_to_max_min_without_ack_load() {
    let mut rng = SplitMix64::new(0x5EED_0004);
    let mut worst = 0;
    for case in 0..300 {
        let t = random_topology(&mut rng);
        let want = solve(&t, 0, AckModel::OutsideLoad);
        let (got, rounds) = distributed(&t, 0, AckModel::OutsideLoad);
        worst = worst.max(rounds);
        assert!(network_feasible(&net_of(&t, 0), &got));
        assert!(network_is_max_min(&net_of(&t, 0), &got));
        assert_eq!(got, want, "case {case}: {:?}", t.flows);
    }
    // Charny: a number of round trips of the order of the bottleneck levels.
    assert!(worst <= 2 * FLOWS + 3, "{worst} round trips");
}

#[test]
fn converges_to_the_report_model_with_ack_load() {
    let mut rng = SplitMix64::new(0x5EED_0040);
    let mut mismatches = 0;
    let mut worst = 0;
    for case in 0..300 {
        let t = random_topology(&mut rng);
        let want = solve(&t, 40, AckModel::OutsideLoad);
        let (got, _) = distributed(&t, 40, AckModel::OutsideLoad);
        assert!(network_feasible(&net_of(&t, 40), &got), "case {case}");
        for (g, w) in got.iter().zip(&want) {
            // The ACK-load fixed point is reached by both from rounded rates; they
            // may settle on neighbouring units.
            let d = g.raw().abs_diff(w.raw());
            worst = worst.max(d);
            assert!(
                d <= t.flows.len() as u64,
                "case {case}: {got:?} vs {want:?}"
            );
            mismatches += usize::from(g != w);
        }
    }
    eprintln!("unit-level differences: {mismatches}, largest {worst} units");
}

#[test]
fn coupled_variant_stays_feasible_on_random_topologies() {
    // The coupled variant reaches the coupled optimum on Scenario 7 (see
    // scenario7.rs); on general topologies an interface may see a flow's ACK
    // before an ACK interface further back lowers it, so the per-interface
    // computation is only checked to settle on a feasible allocation.
    let mut rng = SplitMix64::new(0x5EED_00C0);
    for case in 0..300 {
        let t = random_topology(&mut rng);
        let net = net_with(&t, 40, AckModel::Coupled);
        let (got, _) = distributed(&t, 40, AckModel::Coupled);
        assert!(network_feasible(&net, &got), "case {case}: {got:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// The solver's allocation is feasible and max-min (to the resolution) for
    /// both models and ACK sizes with k times the longest ACK path (4 hops
    /// here) below one, where the ACK-load iteration settles (that bound alone
    /// does not guarantee it in general: see
    /// `large_ack_ratio_settles_or_is_reported`).
    #[test]
    fn solver_is_feasible_and_max_min(seed in proptest::prelude::any::<u64>(), ack in 0u32..370, coupled in proptest::prelude::any::<bool>()) {
        let mut rng = SplitMix64::new(seed);
        let t = random_topology(&mut rng);
        let model = if coupled { AckModel::Coupled } else { AckModel::OutsideLoad };
        let net = net_with(&t, ack, model);
        let x = net.solve();
        proptest::prop_assert!(network_feasible(&net, &x));
        proptest::prop_assert!(network_is_max_min(&net, &x));
    }
}

#[test]
fn solver_edges() {
    use rbcc_rate::solver::NetworkError;
    let mut net: Network<2, 3> = Network::new(40, 1500, AckModel::OutsideLoad);
    let a = net.add_link(FixedRate::from_bps(1000)).unwrap();
    let z = net.add_link(FixedRate::ZERO).unwrap();
    assert_eq!(
        net.add_link(FixedRate::ZERO),
        Err(NetworkError::TooManyLinks)
    );
    assert_eq!(
        net.add_flow(FixedRate::UNLIMITED, &[5], &[]),
        Err(NetworkError::NoSuchLink)
    );
    // A flow on no link gets what it asks; a zero-capacity link gives nothing.
    net.add_flow(FixedRate::from_bps(77), &[], &[]).unwrap();
    net.add_flow(FixedRate::UNLIMITED, &[z], &[a]).unwrap();
    net.add_flow(FixedRate::UNLIMITED, &[a], &[z]).unwrap();
    assert_eq!(
        net.add_flow(FixedRate::UNLIMITED, &[a], &[]),
        Err(NetworkError::TooManyFlows)
    );
    let x = net.solve();
    assert_eq!(x[0], FixedRate::from_bps(77));
    assert_eq!(x[1], FixedRate::ZERO);
    assert_eq!(x[2], FixedRate::from_bps(1000));
    assert!(network_feasible(&net, &x) && network_is_max_min(&net, &x));
}

/// The fuzz finding's regime (`corpus/rbcc_solver/seed-regress-not-max-min`):
/// `OutsideLoad` with `k = 15483/16517` on links of 31,354, 34,181 and 8,704
/// Mbit/s, four unlimited flows, every assignment of data and ACK routes. Each
/// network either settles (then the allocation is feasible and max-min) or is
/// reported as not settled; 200 plain rounds, the former limit, left some far
/// from the fixed point although they settle.
#[test]
fn large_ack_ratio_settles_or_is_reported() {
    use rbcc_rate::invariants::network_in_max_min_domain;
    use rbcc_rate::solver::{SolveError, MAX_ACK_ITERATIONS};
    let caps = [31_354u64, 34_181, 8_704];
    let mut routes = Vec::new();
    for d in 1u8..8 {
        for a in (0u8..8).filter(|a| a & d == 0) {
            routes.push((d, a));
        }
    }
    let on = |m: u8| -> Vec<usize> { (0..3).filter(|l| m >> l & 1 == 1).collect() };
    let (mut settled, mut unsettled) = (0, 0);
    let n = routes.len();
    for i0 in 0..n {
        for i1 in i0..n {
            for i2 in i1..n {
                for i3 in i2..n {
                    let mut net: Network<4, 6> = Network::new(15483, 16517, AckModel::OutsideLoad);
                    for c in caps {
                        net.add_link(FixedRate::from_bps(c * 1_000_000)).unwrap();
                    }
                    for &(d, a) in [routes[i0], routes[i1], routes[i2], routes[i3]].iter() {
                        net.add_flow(FixedRate::UNLIMITED, &on(d), &on(a)).unwrap();
                    }
                    let x = net.solve();
                    assert!(network_feasible(&net, &x), "{net:?} {x:?}");
                    match net.try_solve() {
                        Ok(y) => {
                            assert_eq!(x, y);
                            assert!(network_in_max_min_domain(&net));
                            assert!(network_is_max_min(&net, &x), "{net:?} {x:?}");
                            settled += 1;
                        }
                        Err(SolveError::NotConverged(y)) => {
                            assert_eq!(x, y);
                            assert!(!network_in_max_min_domain(&net));
                            unsettled += 1;
                        }
                        Err(e) => panic!("an error this test does not know: {e:?}"),
                    }
                }
            }
        }
    }
    eprintln!("settled {settled}, not settled {unsettled} (after 2 x {MAX_ACK_ITERATIONS} rounds)");
    assert!(
        unsettled * 100 < settled,
        "{unsettled} of {}",
        settled + unsettled
    );
}

/// Fuzz finding (`corpus/rbcc_solver/seed-regress-not-max-min`): ACK 32000 B
/// mod data 16517 B, so `k = 15483/16517`, `OutsideLoad`; links of 31,354,
/// 34,181 and 8,704 Mbit/s; flow 0 data on links 1 and 2; flow 1 data on link
/// 1, ACKs on link 0; flows 2 (asking 34,181 Mbit/s) and 3 data on links 0
/// and 2. The coupling loops once through all four flows with gain `k`, so the
/// 200 plain rounds of the former limit stopped far from the fixed point. In
/// closed form `x1 = (C1 + C0 - C2) / (1 + k)`, `x0 = C1 - x1`,
/// `x2 = x3 = (C2 - x0) / 2`.
#[test]
fn fuzz_seed_large_ack_ratio_reaches_the_fixed_point() {
    let mut net: Network<4, 6> = Network::new(32000 % 16517, 16517, AckModel::OutsideLoad);
    let c = [31_354u64, 34_181, 8_704].map(|m| m * 1_000_000);
    for bps in c {
        net.add_link(FixedRate::from_bps(bps)).unwrap();
    }
    net.add_flow(FixedRate::UNLIMITED, &[1, 2], &[]).unwrap();
    net.add_flow(FixedRate::UNLIMITED, &[1], &[0]).unwrap();
    net.add_flow(FixedRate::from_bps(34_181_000_000), &[0, 2], &[])
        .unwrap();
    net.add_flow(FixedRate::UNLIMITED, &[0, 2], &[]).unwrap();
    assert_eq!(net.ack_ratio(), (15483, 16517));
    let x = net.try_solve().expect("the iteration settles");
    assert_eq!(x, net.solve());
    assert!(network_feasible(&net, &x), "{x:?}");
    assert!(network_is_max_min(&net, &x), "{x:?}");
    // Exact rationals, in units of 2^-16 bit/s.
    let (num, den) = (15483u128, 16517u128);
    let one = 1u128 << 16;
    let x1 = (u128::from(c[1] + c[0] - c[2]) * one * den, den + num); // (numerator, denominator)
    let x0 = (u128::from(c[1]) * one * x1.1 - x1.0, x1.1);
    let x2 = (u128::from(c[2]) * one * x0.1 - x0.0, 2 * x0.1);
    for (f, want) in [(0, x0), (1, x1), (2, x2), (3, x2)] {
        let exact = want.0 / want.1;
        let got = u128::from(x[f].raw());
        // The solver rounds once at the end; one unit per flow on a link.
        assert!(got.abs_diff(exact) <= 4, "flow {f}: {got} vs {exact}");
    }
}
