//! Toomey's RBCC report, Scenario 7: the optimum-rate table, reproduced by the per-router
//! computation of routers 2 and 3 and by the network solver.

use netcond_core::{Instant, Rate};
use rbcc_rate::invariants::{interface_is_max_min, interface_within_capacity};
use rbcc_rate::solver::Network;
use rbcc_rate::{AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};

const C: u64 = 64_000;

/// Routers 2 and 3 and their interfaces onto the 64 kbit/s link.
struct Link {
    p23: RbccProfile,
    p32: RbccProfile,
    r2: RbccInterface<16>,
    r3: RbccInterface<16>,
}

impl Link {
    fn new(model: AckModel) -> Link {
        let cfg = |node| {
            RbccConfig::toomey_scenario7(NodeId(node), Rate::from_kbps(64)).with_ack_model(model)
        };
        let p23 = RbccProfile::new(&cfg(23)).unwrap();
        let p32 = RbccProfile::new(&cfg(32)).unwrap();
        Link {
            r2: RbccInterface::new(&p23, Instant::ZERO),
            r3: RbccInterface::new(&p32, Instant::ZERO),
            p23,
            p32,
        }
    }

    /// One packet and its ACK for every flow: forward flows cross 2 -> 3 (their
    /// ACKs 3 -> 2), reverse flows the other way. Returns the returned rates.
    fn round(&mut self, now: u64, fwd: &[u32], rev: &[u32]) -> Vec<FixedRate> {
        let now = Instant::from_ticks(now);
        let mut out = Vec::new();
        for &f in fwd {
            let mut d = RateHeader::new(FixedRate::UNLIMITED);
            self.r2.on_data(&self.p23, now, f, &mut d).unwrap();
            let mut a = d.ack();
            self.r3.on_ack(&self.p32, now, f, &mut a).unwrap();
            self.r2.on_return(&self.p23, now, f, &a);
            out.push(a.rate);
        }
        for &f in rev {
            let mut d = RateHeader::new(FixedRate::UNLIMITED);
            self.r3.on_data(&self.p32, now, f, &mut d).unwrap();
            let mut a = d.ack();
            self.r2.on_ack(&self.p23, now, f, &mut a).unwrap();
            self.r3.on_return(&self.p32, now, f, &a);
            out.push(a.rate);
        }
        assert!(interface_within_capacity(&self.p23, &self.r2));
        assert!(interface_within_capacity(&self.p32, &self.r3));
        assert!(interface_is_max_min(&self.p23, &self.r2));
        assert!(interface_is_max_min(&self.p32, &self.r3));
        out
    }

    /// Rounds until the returned rates repeat; returns them and the round count.
    fn settle(&mut self, now: u64, fwd: &[u32], rev: &[u32]) -> (Vec<FixedRate>, usize) {
        let mut last = self.round(now, fwd, rev);
        for i in 1..100 {
            let next = self.round(now, fwd, rev);
            if next == last {
                return (next, i);
            }
            last = next;
        }
        panic!("no fixed point in 100 round trips: {last:?}");
    }
}

/// |x - num/den| < 1 unit of 2^-16 bit/s, checked exactly in u128.
fn within_one_unit(x: FixedRate, num: u128, den: u128) -> bool {
    let lhs = u128::from(x.raw()) * den;
    let rhs = num << 16;
    lhs.abs_diff(rhs) < den
}

/// The report's model's forward rate with `n` forward flows and one reverse flow:
/// x = C / (n (1 + k)), k = 40/1500, as the fraction C 1500 / (n 1540).
fn report_x(n: u128) -> (u128, u128) {
    (u128::from(C) * 1500, n * 1540)
}

#[test]
fn optimum_rate_table_outside_ack_load() {
    let mut l = Link::new(AckModel::OutsideLoad);
    let mut t = 0;
    // 0 <= t < 12: source 5 alone.
    let (r, _) = l.settle(t, &[5], &[]);
    assert_eq!(r[0], FixedRate::from_bps(64_000));
    // 12 <= t < 18: source 7 joins.
    t += 12_000_000_000;
    let (r, _) = l.settle(t, &[5, 7], &[]);
    assert_eq!(r, vec![FixedRate::from_bps(32_000); 2]);
    // 18 <= t <= 140: reverse source 8 joins; 2400000/77 and 4800000/77.
    t += 6_000_000_000;
    let (r, rounds) = l.settle(t, &[5, 7], &[8]);
    assert!(rounds < 10, "{rounds} round trips");
    let (xn, xd) = report_x(2);
    assert!(within_one_unit(r[0], 2_400_000, 77), "{}", r[0]);
    assert!(within_one_unit(r[1], 2_400_000, 77), "{}", r[1]);
    assert!(within_one_unit(r[2], 4_800_000, 77), "{}", r[2]);
    assert!(within_one_unit(r[0], xn, xd));
    assert_eq!(r[0].to_string(), "31168.831 bit/s");
    assert_eq!(r[2].to_string(), "62337.662 bit/s");
    eprintln!(
        "n=2: x raw {} (exact {}), y raw {} (exact {})",
        r[0].raw(),
        (2_400_000u128 << 16) as f64 / 77.0,
        r[2].raw(),
        (4_800_000u128 << 16) as f64 / 77.0
    );
    // Source 6 joins: 1600000/77 each forward, 4800000/77 reverse.
    t += 122_000_000_000;
    let (r, _) = l.settle(t, &[5, 7, 6], &[8]);
    for x in &r[..3] {
        assert!(within_one_unit(*x, 1_600_000, 77), "{x}");
        assert!(within_one_unit(*x, report_x(3).0, report_x(3).1));
    }
    assert!(within_one_unit(r[3], 4_800_000, 77), "{}", r[3]);
    assert_eq!(r[0].to_string(), "20779.221 bit/s");
    eprintln!(
        "n=3: x raw {} (exact {}), y raw {}",
        r[0].raw(),
        (1_600_000u128 << 16) as f64 / 77.0,
        r[3].raw()
    );
    // Source 6 closes (both routers see it): back to the n = 2 row.
    assert!(l.r2.close(&l.p23, 6));
    assert!(l.r3.close(&l.p32, 6));
    assert!(!l.r3.close(&l.p32, 6));
    let (r, _) = l.settle(t, &[5, 7], &[8]);
    assert!(within_one_unit(r[0], 2_400_000, 77), "{}", r[0]);
    assert!(within_one_unit(r[2], 4_800_000, 77), "{}", r[2]);
    // Source 8 stops sending and expires after the idle timeout (10 s): 32000.
    t += 11_000_000_000;
    l.round(t, &[5, 7], &[]);
    assert!(l.r2.expire(&l.p23, Instant::from_ticks(t)) >= 1);
    assert!(l.r3.expire(&l.p32, Instant::from_ticks(t)) >= 1);
    assert!(l.r2.ack(8).is_none() && l.r3.data(8).is_none());
    let (r, _) = l.settle(t, &[5, 7], &[]);
    assert_eq!(r, vec![FixedRate::from_bps(32_000); 2]);
}

#[test]
fn rows_say_who_is_bottlenecked_where() {
    let mut l = Link::new(AckModel::OutsideLoad);
    l.settle(0, &[5, 7], &[8]);
    // Router 2's 2 -> 3 interface: flows 5 and 7 are bottlenecked there; flow 8
    // is an ACK flow (outside load k y).
    let e5 = l.r2.data(5).unwrap();
    assert!(e5.bottleneck);
    assert_eq!(e5.allocated, l.r2.advertised());
    let a8 = l.r2.ack(8).unwrap();
    assert!(!a8.bottleneck);
    // k y = (2/75) 4800000/77 = 128000/77 bit/s.
    let load = l.r2.ack_load(&l.p23);
    assert!(within_one_unit(load, 128_000, 77), "{load}");
    assert!(l.r3.data(8).unwrap().bottleneck);
}

#[test]
fn strict_coupled_max_min_variant() {
    // ACK flows can be bottlenecked: x = C / (n + k) for every flow, forward and
    // reverse (the reverse flow's ACKs share the forward link).
    let mut l = Link::new(AckModel::Coupled);
    let (r, _) = l.settle(0, &[5, 7], &[8]);
    for x in &r {
        // C / (2 + 2/75) = 4800000/152
        assert!(within_one_unit(*x, 4_800_000, 152), "{x}");
    }
    assert_eq!(r[0].to_string(), "31578.947 bit/s");
    let (r, _) = l.settle(0, &[5, 7, 6], &[8]);
    for x in &r {
        assert!(within_one_unit(*x, 4_800_000, 227), "{x}");
    }
    assert_eq!(r[0].to_string(), "21145.374 bit/s");
}

/// The whole Scenario 7 topology for the solver: 10 Mbit/s access links and the
/// 64 kbit/s link in both directions.
fn scenario7_network(model: AckModel, flows: &[(bool, usize)]) -> Vec<FixedRate> {
    let mut net: Network<16, 8> = Network::new(40, 1500, model);
    let fast = FixedRate::from_bps(10_000_000);
    let l23 = net.add_link(FixedRate::from_bps(C)).unwrap();
    let l32 = net.add_link(FixedRate::from_bps(C)).unwrap();
    for &(forward, _) in flows {
        // source -> router (data), router -> source (ACKs), and at the far end.
        let a_in = net.add_link(fast).unwrap();
        let a_out = net.add_link(fast).unwrap();
        let (d, k) = if forward { (l23, l32) } else { (l32, l23) };
        net.add_flow(FixedRate::UNLIMITED, &[a_in, d], &[k, a_out])
            .unwrap();
    }
    let x = net.solve();
    assert!(rbcc_rate::invariants::network_feasible(&net, &x));
    assert!(rbcc_rate::invariants::network_is_max_min(&net, &x));
    x[..flows.len()].to_vec()
}

#[test]
fn solver_reproduces_the_table() {
    let m = AckModel::OutsideLoad;
    assert_eq!(
        scenario7_network(m, &[(true, 5)])[0],
        FixedRate::from_bps(64_000)
    );
    assert_eq!(
        scenario7_network(m, &[(true, 5), (true, 7)]),
        vec![FixedRate::from_bps(32_000); 2]
    );
    let x = scenario7_network(m, &[(true, 5), (true, 7), (false, 8)]);
    assert!(within_one_unit(x[0], 2_400_000, 77), "{}", x[0]);
    assert!(within_one_unit(x[1], 2_400_000, 77));
    assert!(within_one_unit(x[2], 4_800_000, 77), "{}", x[2]);
    let x = scenario7_network(m, &[(true, 5), (true, 7), (false, 8), (true, 6)]);
    assert!(within_one_unit(x[0], 1_600_000, 77), "{}", x[0]);
    assert!(within_one_unit(x[3], 1_600_000, 77));
    assert!(within_one_unit(x[2], 4_800_000, 77), "{}", x[2]);
    let c = AckModel::Coupled;
    let x = scenario7_network(c, &[(true, 5), (true, 7), (false, 8)]);
    for r in &x {
        assert!(within_one_unit(*r, 4_800_000, 152), "{r}");
    }
    let x = scenario7_network(c, &[(true, 5), (true, 7), (false, 8), (true, 6)]);
    for r in &x {
        assert!(within_one_unit(*r, 4_800_000, 227), "{r}");
    }
}
