//! The RBCC interface table and rate stamping (Toomey's TRUMP/RBCC): flows join, change
//! their requested rate, get the end-to-end rate back from their ACKs, send
//! ACKs the other way, close and expire, in any order and at any time. After
//! every operation: `rbcc_rate::invariants::interface_within_capacity` and
//! `interface_is_max_min` on the table, and `stamp_only_lowers` on every data
//! packet's rate header; then the same operations through
//! `rbcc_rate::invariants::check_table`, which compares the table after every
//! call with a plain model of the allocation table (rows, their fields, the
//! advertised rate, the stamped headers).
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::{bounded, RateSel, Step, TickSel};
use rbcc_rate::invariants::{
    check_table, interface_is_max_min, interface_within_capacity, stamp_only_lowers, TableOp,
};
use rbcc_rate::{
    AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};

/// Table capacity (a power of two).
const N: usize = 8;

/// A rate in the packet headers.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum HdrRate {
    Bps(RateSel),
    Raw(u64),
    Unlimited,
    Zero,
}

impl HdrRate {
    fn get(self) -> FixedRate {
        match self {
            HdrRate::Bps(r) => FixedRate::from_rate(r.get()),
            HdrRate::Raw(v) => FixedRate::from_raw(v),
            HdrRate::Unlimited => FixedRate::UNLIMITED,
            HdrRate::Zero => FixedRate::ZERO,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    /// A data packet of `flow` (its rate field already lowered upstream to
    /// `rate` if given, its bottleneck field `node`).
    Data {
        step: Step,
        flow: u8,
        requested: HdrRate,
        rate: Option<HdrRate>,
        node: u8,
    },
    /// The ACK of `flow` comes back with the end-to-end rate and bottleneck.
    Return {
        step: Step,
        flow: u8,
        rate: HdrRate,
        node: u8,
    },
    /// An ACK of `flow` (data the other way) leaves by this interface.
    Ack {
        step: Step,
        flow: u8,
        rate: HdrRate,
        node: u8,
    },
    Close(u8),
    Expire(Step),
    Recompute,
}

#[derive(Arbitrary, Debug)]
struct Input {
    node: u8,
    capacity: RateSel,
    ack_bytes: u16,
    data_bytes: u16,
    coupled: bool,
    idle_timeout_ns: u64,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fn flow_id(f: u8) -> u32 {
    // Mostly a few flows (so rows are revisited), sometimes more than fit.
    u32::from(f % 12)
}

fuzz_target!(|input: Input| {
    let cfg = RbccConfig::new(
        NodeId(u32::from(input.node)),
        input.capacity.get(),
        u32::from(input.ack_bytes),
        u32::from(input.data_bytes),
    )
    .with_ack_model(if input.coupled {
        AckModel::Coupled
    } else {
        AckModel::OutsideLoad
    })
    // u64::MAX nanoseconds: never, as the C interface reads it.
    .with_idle_timeout(if input.idle_timeout_ns == u64::MAX {
        Duration::MAX
    } else {
        Duration::from_nanos(input.idle_timeout_ns)
    })
    .with_tick(input.tick.get());
    let Ok(p) = RbccProfile::new(&cfg) else {
        return;
    };
    let mut t: RbccInterface<N> = RbccInterface::new(&p, Instant::from_ticks(input.start));
    let mut now = input.start;
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        match *op {
            Op::Data {
                step,
                flow,
                requested,
                rate,
                node,
            } => {
                now = step.wild(now);
                let mut h = RateHeader::new(requested.get());
                if let Some(r) = rate {
                    h.rate = h.rate.min(r.get());
                    h.bottleneck = NodeId(u32::from(node));
                }
                let before = h;
                let r = t.on_data(&p, Instant::from_ticks(now), flow_id(flow), &mut h);
                if r.is_err() {
                    assert_eq!(
                        h, before,
                        "rbcc_table: op {i}: a refused flow's header changed"
                    );
                }
                assert!(
                    stamp_only_lowers(p.node(), &before, &h),
                    "rbcc_table: op {i} {op:?}: stamping broke the header: {before:?} -> {h:?}"
                );
            }
            Op::Return {
                step,
                flow,
                rate,
                node,
            } => {
                now = step.wild(now);
                let ack = AckHeader {
                    rate: rate.get(),
                    bottleneck: NodeId(u32::from(node)),
                };
                t.on_return(&p, Instant::from_ticks(now), flow_id(flow), &ack);
            }
            Op::Ack {
                step,
                flow,
                rate,
                node,
            } => {
                now = step.wild(now);
                let mut ack = AckHeader {
                    rate: rate.get(),
                    bottleneck: NodeId(u32::from(node)),
                };
                let before = ack;
                let _ = t.on_ack(&p, Instant::from_ticks(now), flow_id(flow), &mut ack);
                assert!(
                    ack.rate <= before.rate,
                    "rbcc_table: op {i} {op:?}: an ACK's rate was raised: {before:?} -> {ack:?}"
                );
            }
            Op::Close(flow) => {
                let _ = t.close(&p, flow_id(flow));
            }
            Op::Expire(step) => {
                now = step.wild(now);
                let _ = t.expire(&p, Instant::from_ticks(now));
            }
            Op::Recompute => t.recompute(&p),
        }
        assert!(t.len() <= N, "rbcc_table: op {i}: more rows than capacity");
        assert!(
            interface_within_capacity(&p, &t),
            "rbcc_table: op {i} {op:?}: allocations exceed the capacity ({t:?})"
        );
        assert!(
            interface_is_max_min(&p, &t),
            "rbcc_table: op {i} {op:?}: not the local max-min fixed point ({t:?})"
        );
        let _ = t.ack_load(&p);
    }
    // The plain model, over the same calls.
    let mut now = input.start;
    let mut ops = Vec::new();
    for op in bounded(&input.ops) {
        let mut dt_of = |step: Step| {
            let next = step.wild(now);
            let dt = next.wrapping_sub(now);
            now = next;
            dt
        };
        ops.push(match *op {
            Op::Data {
                step,
                flow,
                requested,
                rate,
                node,
            } => {
                let dt = dt_of(step);
                let mut hdr = RateHeader::new(requested.get());
                if let Some(r) = rate {
                    hdr.rate = hdr.rate.min(r.get());
                    hdr.bottleneck = NodeId(u32::from(node));
                }
                TableOp::Data {
                    dt,
                    flow: flow_id(flow),
                    hdr,
                }
            }
            Op::Return {
                step,
                flow,
                rate,
                node,
            } => TableOp::Return {
                dt: dt_of(step),
                flow: flow_id(flow),
                ack: AckHeader {
                    rate: rate.get(),
                    bottleneck: NodeId(u32::from(node)),
                },
            },
            Op::Ack {
                step,
                flow,
                rate,
                node,
            } => TableOp::Ack {
                dt: dt_of(step),
                flow: flow_id(flow),
                ack: AckHeader {
                    rate: rate.get(),
                    bottleneck: NodeId(u32::from(node)),
                },
            },
            Op::Close(flow) => TableOp::Close {
                flow: flow_id(flow),
            },
            Op::Expire(step) => TableOp::Expire { dt: dt_of(step) },
            Op::Recompute => TableOp::Recompute,
        });
    }
    if let Err(e) = check_table::<N>(&cfg, input.start, &ops) {
        panic!("rbcc_table: {e}: {cfg:?}");
    }
});
