//! The allocated-bandwidth table: join, leave, expiry, capacity, recomputation
//! only on change, totality; and proptests of the shared invariants.

use core::time::Duration;
use netcond_core::{Instant, Rate};
use proptest::prelude::*;
use rbcc_rate::invariants::{interface_is_max_min, interface_within_capacity, stamp_only_lowers};
use rbcc_rate::{
    AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};

fn profile(model: AckModel, idle_ns: u64) -> RbccProfile {
    RbccProfile::new(
        &RbccConfig::new(NodeId(7), Rate::from_kbps(64), 40, 1500)
            .with_ack_model(model)
            .with_idle_timeout(Duration::from_nanos(idle_ns)),
    )
    .unwrap()
}

fn t(ns: u64) -> Instant {
    Instant::from_ticks(ns)
}

fn send<const N: usize>(
    i: &mut RbccInterface<N>,
    p: &RbccProfile,
    now: u64,
    flow: u32,
    req: FixedRate,
) -> Result<RateHeader, u32> {
    let mut h = RateHeader::new(req);
    i.on_data(p, t(now), flow, &mut h).map(|()| h)
}

#[test]
fn join_share_and_leave() {
    let p = profile(AckModel::OutsideLoad, 1_000_000_000);
    let mut i: RbccInterface<8> = RbccInterface::new(&p, Instant::ZERO);
    assert_eq!(i.advertised(), FixedRate::from_bps(64_000));
    let h = send(&mut i, &p, 0, 1, FixedRate::UNLIMITED).unwrap();
    assert_eq!(h.rate, FixedRate::from_bps(64_000));
    assert_eq!(h.bottleneck, NodeId(7));
    let h = send(&mut i, &p, 0, 2, FixedRate::UNLIMITED).unwrap();
    assert_eq!(h.rate, FixedRate::from_bps(32_000));
    // A source asking for less than the share is not lowered and keeps its
    // bottleneck field; the others share the rest.
    let mut h = RateHeader::new(FixedRate::from_bps(10_000));
    h.bottleneck = NodeId(99);
    i.on_data(&p, t(0), 3, &mut h).unwrap();
    assert_eq!(
        (h.rate, h.bottleneck),
        (FixedRate::from_bps(10_000), NodeId(99))
    );
    assert_eq!(i.advertised(), FixedRate::from_bps(27_000));
    assert!(!i.data(3).unwrap().bottleneck);
    assert!(i.data(1).unwrap().bottleneck);
    // Flow 2 is held at 5000 bit/s by another router: the rest goes to flow 1.
    i.on_return(
        &p,
        t(0),
        2,
        &AckHeader {
            rate: FixedRate::from_bps(5_000),
            bottleneck: NodeId(8),
        },
    );
    assert_eq!(i.advertised(), FixedRate::from_bps(49_000));
    assert_eq!(i.data(2).unwrap().allocated, FixedRate::from_bps(5_000));
    // ... until an ACK says this interface is its bottleneck again.
    i.on_return(
        &p,
        t(0),
        2,
        &AckHeader {
            rate: FixedRate::from_bps(49_000),
            bottleneck: NodeId(7),
        },
    );
    assert_eq!(i.advertised(), FixedRate::from_bps(27_000));
    assert!(i.close(&p, 1));
    assert!(!i.close(&p, 1));
    assert_eq!(i.advertised(), FixedRate::from_bps(54_000));
    assert_eq!(i.len(), 2);
    // An ACK for an unknown flow is ignored.
    i.on_return(
        &p,
        t(0),
        42,
        &AckHeader {
            rate: FixedRate::ZERO,
            bottleneck: NodeId(1),
        },
    );
    assert!(i.data(42).is_none());
}

#[test]
fn every_source_limited_leaves_the_slack_to_grow() {
    let p = profile(AckModel::OutsideLoad, u64::MAX);
    let mut i: RbccInterface<4> = RbccInterface::new(&p, Instant::ZERO);
    send(&mut i, &p, 0, 1, FixedRate::from_bps(10_000)).unwrap();
    send(&mut i, &p, 0, 2, FixedRate::from_bps(20_000)).unwrap();
    // 34000 bit/s unused: the largest flow could grow by all of it.
    assert_eq!(i.advertised(), FixedRate::from_bps(54_000));
    assert!(interface_within_capacity(&p, &i));
    assert!(interface_is_max_min(&p, &i));
}

#[test]
fn recomputes_only_when_the_table_changes() {
    let p = profile(AckModel::OutsideLoad, u64::MAX);
    let mut i: RbccInterface<8> = RbccInterface::new(&p, Instant::ZERO);
    send(&mut i, &p, 0, 1, FixedRate::UNLIMITED).unwrap();
    let n = i.recomputations();
    for k in 0..1000 {
        send(&mut i, &p, k, 1, FixedRate::UNLIMITED).unwrap();
        i.on_return(
            &p,
            t(k),
            1,
            &AckHeader {
                rate: i.advertised(),
                bottleneck: NodeId(7),
            },
        );
    }
    assert_eq!(
        i.recomputations(),
        n,
        "steady packets and returns change nothing"
    );
    send(&mut i, &p, 0, 1, FixedRate::from_bps(1_000)).unwrap();
    assert_eq!(i.recomputations(), n + 1, "a new requested rate");
    let mut a = AckHeader {
        rate: FixedRate::from_bps(3_000),
        bottleneck: NodeId(3),
    };
    i.on_ack(&p, t(0), 9, &mut a).unwrap();
    i.on_ack(&p, t(0), 9, &mut a).unwrap();
    assert_eq!(
        i.recomputations(),
        n + 2,
        "a new ACK flow, then the same rate"
    );
    // 40/1500 of 3000 bit/s = 80 bit/s of ACK load.
    assert_eq!(i.ack_load(&p), FixedRate::from_bps(80));
    assert_eq!(
        a.rate,
        FixedRate::from_bps(3_000),
        "the report's model: ACKs are not lowered"
    );
}

#[test]
fn full_table_hands_the_flow_back() {
    let p = profile(AckModel::OutsideLoad, u64::MAX);
    let mut i: RbccInterface<4> = RbccInterface::new(&p, Instant::ZERO);
    for f in 0..4 {
        send(&mut i, &p, 0, f, FixedRate::UNLIMITED).unwrap();
    }
    let mut h = RateHeader::new(FixedRate::UNLIMITED);
    assert_eq!(i.on_data(&p, t(0), 99, &mut h), Err(99));
    assert_eq!(h, RateHeader::new(FixedRate::UNLIMITED), "header untouched");
    let mut a = AckHeader {
        rate: FixedRate::from_bps(1),
        bottleneck: NodeId(1),
    };
    assert_eq!(i.on_ack(&p, t(0), 98, &mut a), Err(98));
    assert_eq!(i.advertised(), FixedRate::from_bps(16_000));
    // Known flows still pass.
    assert!(send(&mut i, &p, 0, 3, FixedRate::UNLIMITED).is_ok());
    i.close(&p, 0);
    assert!(send(&mut i, &p, 0, 99, FixedRate::UNLIMITED).is_ok());
}

#[test]
fn idle_flows_expire_and_clocks_going_back_do_not_expire_anything() {
    let p = profile(AckModel::OutsideLoad, 1_000);
    let mut i: RbccInterface<8> = RbccInterface::new(&p, Instant::ZERO);
    send(&mut i, &p, 1_000, 1, FixedRate::UNLIMITED).unwrap();
    send(&mut i, &p, 1_500, 2, FixedRate::UNLIMITED).unwrap();
    let mut a = AckHeader {
        rate: FixedRate::from_bps(7_500),
        bottleneck: NodeId(3),
    };
    i.on_ack(&p, t(1_500), 3, &mut a).unwrap();
    assert_eq!(i.expire(&p, t(1_999)), 0);
    assert_eq!(i.expire(&p, t(500)), 0, "backwards: nothing elapsed");
    // A late, older packet does not move last_seen back.
    send(&mut i, &p, 900, 1, FixedRate::UNLIMITED).unwrap();
    assert_eq!(i.data(1).unwrap().last_seen, t(1_000));
    assert_eq!(i.expire(&p, t(2_000)), 1);
    assert!(i.data(1).is_none());
    assert_eq!(i.advertised(), FixedRate::from_bps(63_800));
    assert_eq!(i.expire(&p, t(2_500)), 2);
    assert!(i.is_empty());
    assert_eq!(i.advertised(), FixedRate::from_bps(64_000));
    // u64::MAX never expires.
    let q = profile(AckModel::OutsideLoad, u64::MAX);
    let mut j: RbccInterface<2> = RbccInterface::new(&q, Instant::ZERO);
    send(&mut j, &q, 0, 1, FixedRate::UNLIMITED).unwrap();
    assert_eq!(j.expire(&q, t(i64::MAX as u64)), 0);
}

#[test]
fn ack_load_above_capacity_gives_nothing_and_no_overflow() {
    let p = profile(AckModel::OutsideLoad, u64::MAX);
    let mut i: RbccInterface<4> = RbccInterface::new(&p, Instant::ZERO);
    let mut a = AckHeader {
        rate: FixedRate::UNLIMITED,
        bottleneck: NodeId::NONE,
    };
    i.on_ack(&p, t(0), 1, &mut a).unwrap();
    let h = send(&mut i, &p, u64::MAX, 2, FixedRate::UNLIMITED).unwrap();
    assert_eq!(h.rate, FixedRate::ZERO);
    assert!(interface_within_capacity(&p, &i));
    assert!(interface_is_max_min(&p, &i));
}

#[test]
fn coupled_ack_flows_share_and_are_lowered() {
    let p = profile(AckModel::Coupled, u64::MAX);
    let mut i: RbccInterface<4> = RbccInterface::new(&p, Instant::ZERO);
    send(&mut i, &p, 0, 1, FixedRate::UNLIMITED).unwrap();
    let mut a = AckHeader {
        rate: FixedRate::UNLIMITED,
        bottleneck: NodeId(3),
    };
    i.on_ack(&p, t(0), 2, &mut a).unwrap();
    // C / (1 + 2/75) = 4800000/77 for both.
    assert_eq!(i.advertised(), FixedRate::from_ratio(4_800_000, 77));
    assert_eq!(a.rate, i.advertised());
    assert_eq!(a.bottleneck, NodeId(7));
    assert!(i.ack(2).unwrap().bottleneck);
    assert_eq!(i.ack_load(&p), FixedRate::ZERO);
}

#[derive(Clone, Debug)]
enum Op {
    Data {
        flow: u32,
        req: u64,
        rate: u64,
        now: u64,
    },
    Return {
        flow: u32,
        rate: u64,
        here: bool,
        now: u64,
    },
    Ack {
        flow: u32,
        rate: u64,
        now: u64,
    },
    Close {
        flow: u32,
    },
    Expire {
        now: u64,
    },
}

fn rate_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![Just(u64::MAX), Just(0u64), 0u64..(1u64 << 33), any::<u64>(),]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let flow = 0u32..24;
    let now = prop_oneof![0u64..10_000, any::<u64>()];
    prop_oneof![
        4 => (flow.clone(), rate_strategy(), rate_strategy(), now.clone())
            .prop_map(|(flow, req, rate, now)| Op::Data { flow, req, rate, now }),
        2 => (flow.clone(), rate_strategy(), any::<bool>(), now.clone())
            .prop_map(|(flow, rate, here, now)| Op::Return { flow, rate, here, now }),
        2 => (flow.clone(), rate_strategy(), now.clone())
            .prop_map(|(flow, rate, now)| Op::Ack { flow, rate, now }),
        1 => flow.prop_map(|flow| Op::Close { flow }),
        1 => now.prop_map(|now| Op::Expire { now }),
    ]
}

/// Charny's advertised rate written as in the papers, on exact rationals: start
/// with no row restricted; the level is (capacity - ACK load - restricted rates)
/// / (rows not restricted); mark every row whose constraint is below the level
/// as restricted; repeat until the marks stop changing. The advertised rate is
/// the level rounded down to 2^-16 bit/s, or, when every row is restricted,
/// the largest constraint plus the slack over that row's weight.
fn charny_reference<const N: usize>(p: &RbccProfile, i: &RbccInterface<N>) -> FixedRate {
    use rbcc_rate::EntryKind;
    let (num, den) = p.ack_ratio();
    let (num, den) = (u128::from(num), u128::from(den));
    let coupled = p.ack_model() == AckModel::Coupled;
    let mut rows: Vec<(u128, u128, bool)> = Vec::new(); // (constraint, weight, restricted)
    let mut ack_load = 0u128;
    for e in i.entries() {
        match e.kind {
            EntryKind::Data => rows.push((u128::from(e.constraint().raw()), den, false)),
            EntryKind::Ack if coupled => {
                if num > 0 {
                    rows.push((u128::from(e.requested.raw()), num, false));
                }
            }
            EntryKind::Ack => ack_load += num * u128::from(e.requested.raw()),
        }
    }
    let avail = (u128::from(p.capacity().raw()) * den).saturating_sub(ack_load);
    if rows.is_empty() {
        return FixedRate::from_raw(u64::try_from(avail / den).unwrap_or(u64::MAX));
    }
    loop {
        let held: u128 = rows.iter().filter(|r| r.2).map(|r| r.0 * r.1).sum();
        let free_w: u128 = rows.iter().filter(|r| !r.2).map(|r| r.1).sum();
        if free_w == 0 {
            // The largest row grows alone by the slack over its own weight (the
            // lighter one when rows of both kinds tie).
            let c_max = rows.iter().map(|r| r.0).max().unwrap_or(0);
            let w_top = rows
                .iter()
                .filter(|r| r.0 == c_max)
                .map(|r| r.1)
                .min()
                .unwrap_or(den);
            let mu = c_max + (avail - held) / w_top;
            return FixedRate::from_raw(u64::try_from(mu).unwrap_or(u64::MAX));
        }
        let rem = avail - held;
        // c < rem / free_w, exactly.
        let mut changed = false;
        for r in rows.iter_mut().filter(|r| !r.2) {
            if r.0 * free_w < rem {
                r.2 = true;
                changed = true;
            }
        }
        if !changed {
            return FixedRate::from_raw(u64::try_from(rem / free_w).unwrap_or(u64::MAX));
        }
    }
}

fn run_ops(model: AckModel, ops: &[Op]) -> Result<(), TestCaseError> {
    let p = profile(model, 5_000);
    let mut i: RbccInterface<16> = RbccInterface::new(&p, Instant::ZERO);
    for op in ops {
        match *op {
            Op::Data {
                flow,
                req,
                rate,
                now,
            } => {
                let mut h = RateHeader {
                    requested: FixedRate::from_raw(req),
                    rate: FixedRate::from_raw(rate),
                    bottleneck: NodeId(3),
                };
                let before = h;
                match i.on_data(&p, t(now), flow, &mut h) {
                    Ok(()) => {
                        prop_assert!(stamp_only_lowers(p.node(), &before, &h));
                        prop_assert!(h.rate <= i.advertised());
                    }
                    Err(f) => {
                        prop_assert_eq!(f, flow);
                        prop_assert_eq!(h, before);
                        prop_assert_eq!(i.len(), 16);
                    }
                }
            }
            Op::Return {
                flow,
                rate,
                here,
                now,
            } => {
                let b = if here { p.node() } else { NodeId(3) };
                i.on_return(
                    &p,
                    t(now),
                    flow,
                    &AckHeader {
                        rate: FixedRate::from_raw(rate),
                        bottleneck: b,
                    },
                );
            }
            Op::Ack { flow, rate, now } => {
                let mut a = AckHeader {
                    rate: FixedRate::from_raw(rate),
                    bottleneck: NodeId(3),
                };
                let before = a;
                if i.on_ack(&p, t(now), flow, &mut a).is_ok() {
                    prop_assert!(a.rate <= before.rate);
                    if model == AckModel::OutsideLoad {
                        prop_assert_eq!(a, before);
                    }
                }
            }
            Op::Close { flow } => {
                i.close(&p, flow);
                prop_assert!(i.data(flow).is_none() && i.ack(flow).is_none());
            }
            Op::Expire { now } => {
                i.expire(&p, t(now));
                for e in i.entries() {
                    prop_assert!(t(now).ticks_since(e.last_seen) < p.idle_ticks());
                }
            }
        }
        prop_assert!(interface_within_capacity(&p, &i));
        prop_assert!(interface_is_max_min(&p, &i));
        prop_assert_eq!(i.advertised(), charny_reference(&p, &i));
        prop_assert!(i.len() <= 16);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_outside_load(ops in proptest::collection::vec(op_strategy(), 1..200)) {
        run_ops(AckModel::OutsideLoad, &ops)?;
    }

    #[test]
    fn invariants_hold_coupled(ops in proptest::collection::vec(op_strategy(), 1..200)) {
        run_ops(AckModel::Coupled, &ops)?;
    }
}

/// Both allocators behind the shared trait.
fn stamp_via<S: rbcc_rate::RateStamp>(s: &mut S, p: &S::Profile, flow: u32) -> RateHeader {
    let mut h = RateHeader::new(FixedRate::UNLIMITED);
    s.on_data(p, t(0), flow, &mut h).unwrap();
    let mut a = h.ack();
    s.on_ack(p, t(0), flow + 1000, &mut a).unwrap();
    s.on_return(p, t(0), flow, &a);
    h
}

#[test]
fn rbcc_and_rcp_share_the_stamping_trait() {
    use rbcc_rate::{RateStamp, Rcp, RcpConfig, RcpProfile};
    let p = profile(AckModel::OutsideLoad, u64::MAX);
    let mut i: RbccInterface<8> = RbccInterface::new(&p, Instant::ZERO);
    assert_eq!(stamp_via(&mut i, &p, 1).rate, FixedRate::from_bps(64_000));
    assert!(RateStamp::close(&mut i, &p, 1));
    let rp = RcpProfile::new(&RcpConfig::new(
        NodeId(5),
        Rate::from_kbps(64),
        Duration::from_millis(1),
    ))
    .unwrap();
    let mut r = Rcp::new(&rp, t(0));
    let h = stamp_via(&mut r, &rp, 1);
    assert_eq!(
        (h.rate, h.bottleneck),
        (FixedRate::from_bps(64_000), NodeId(5))
    );
    assert!(!RateStamp::close(&mut r, &rp, 1));
}

/// Fuzz finding (`corpus/rbcc_table/seed-regress-ack-not-max-min`): under
/// `Coupled`, a table whose only row is an ACK row held below the level. The
/// slack after it (capacity minus `k` times its rate) was divided by the data
/// weight, which left the advertised rate at the row's own rate and flagged
/// the row as bottlenecked here although one more unit for it still fitted.
/// The slack is now divided by the ACK row's weight `k`.
#[test]
fn coupled_lone_ack_row_held_below_the_level_is_not_the_bottleneck() {
    let p = RbccProfile::new(
        &RbccConfig::new(
            NodeId(40),
            Rate::from_bits_per_sec(368_000_000),
            2093,
            65535,
        )
        .with_ack_model(AckModel::Coupled)
        .with_idle_timeout(Duration::MAX),
    )
    .unwrap();
    let (num, den) = p.ack_ratio();
    assert_eq!((num, den), (2093, 65535));
    let mut i: RbccInterface<8> = RbccInterface::new(&p, Instant::ZERO);
    let ack = |i: &mut RbccInterface<8>, rate: FixedRate| {
        let mut a = AckHeader {
            rate,
            bottleneck: NodeId(1),
        };
        i.on_ack(&p, t(0), 3, &mut a).unwrap();
        a
    };
    ack(&mut i, FixedRate::UNLIMITED);
    assert!(interface_within_capacity(&p, &i) && interface_is_max_min(&p, &i));
    let r = FixedRate::from_raw(755_147_562_197_801);
    let a = ack(&mut i, r);
    // The configuration of the finding: the slack is at least one unit of the
    // ACK row's weight but less than one unit of a data row's.
    let slack =
        u128::from(p.capacity().raw()) * u128::from(den) - u128::from(r.raw()) * u128::from(num);
    assert!(
        slack >= u128::from(num) && slack < u128::from(den),
        "{slack}"
    );
    assert_eq!(i.len(), 1);
    let e = i.ack(3).unwrap();
    assert_eq!((a.rate, e.allocated), (r, r));
    assert!(!e.bottleneck);
    assert_eq!(
        i.advertised().raw(),
        r.raw() + u64::try_from(slack / u128::from(num)).unwrap()
    );
    assert!(interface_within_capacity(&p, &i));
    assert!(interface_is_max_min(&p, &i));
    assert_eq!(i.advertised(), charny_reference(&p, &i));
}

/// A random stream of table calls for `check_table`: up to 12 flows on a
/// table of 8 rows (so it fills), rates at the edges and in between, steps
/// forward and back, and both ACK models.
fn table_ops(r: &mut netcond_core::SplitMix64, n: usize) -> Vec<rbcc_rate::invariants::TableOp> {
    use netcond_core::RandomSource;
    use rbcc_rate::invariants::TableOp;
    let rate = |r: &mut netcond_core::SplitMix64| {
        FixedRate::from_raw(match r.below(6) {
            0 => u64::MAX,
            1 => 0,
            2 => r.next_u64(),
            _ => u64::from(r.below(1 << 30)) << 8,
        })
    };
    (0..n)
        .map(|_| {
            let dt = match r.below(8) {
                0 => 0u64.wrapping_sub(u64::from(r.below(1000))),
                1 => r.next_u64(),
                _ => u64::from(r.below(2_000_000)),
            };
            let flow = r.below(12);
            let node = NodeId([0, 3, 7][r.below(3) as usize]);
            match r.below(10) {
                0..=3 => {
                    let mut hdr = RateHeader::new(rate(r));
                    if r.below(2) == 0 {
                        hdr.rate = hdr.rate.min(rate(r));
                        hdr.bottleneck = node;
                    }
                    TableOp::Data { dt, flow, hdr }
                }
                4 | 5 => TableOp::Return {
                    dt,
                    flow,
                    ack: AckHeader {
                        rate: rate(r),
                        bottleneck: node,
                    },
                },
                6 | 7 => TableOp::Ack {
                    dt,
                    flow,
                    ack: AckHeader {
                        rate: rate(r),
                        bottleneck: node,
                    },
                },
                8 => TableOp::Close { flow },
                _ => {
                    if r.below(2) == 0 {
                        TableOp::Expire { dt }
                    } else {
                        TableOp::Recompute
                    }
                }
            }
        })
        .collect()
}

/// The table against the plain model of `invariants::check_table`, after
/// every call: rows, fields, advertised rate and stamped headers.
#[test]
fn table_matches_its_plain_model() {
    use netcond_core::RandomSource;
    let mut r = netcond_core::SplitMix64::new(0x7ab1e);
    for i in 0..400 {
        let cfg = RbccConfig::new(
            NodeId(7),
            Rate::from_bits_per_sec(1 + r.next_u64() % (1 << 40)),
            [0, 40, 1500][r.below(3) as usize],
            [1, 1500][r.below(2) as usize],
        )
        .with_ack_model(if i % 2 == 0 {
            AckModel::OutsideLoad
        } else {
            AckModel::Coupled
        })
        .with_idle_timeout(Duration::from_nanos(1 + u64::from(r.below(5_000_000))));
        let ops = table_ops(&mut r, 200);
        if let Err(e) = rbcc_rate::invariants::check_table::<8>(&cfg, r.next_u64(), &ops) {
            panic!("run {i}: {e}: {cfg:?}");
        }
    }
}
