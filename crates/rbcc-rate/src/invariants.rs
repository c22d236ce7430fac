//! Invariants, written once as plain functions and shared by the unit tests,
//! the proptests and the fuzz targets. Each returns `true` when it holds.

use netcond_core::Instant;

use crate::config::{AckModel, RbccConfig, RbccProfile};
use crate::flowtable::EntryKind;
use crate::rate::{AckHeader, FixedRate, FlowId, NodeId, RateHeader};
use crate::rcp::{Rcp, RcpProfile};
use crate::solver::{LinkUse, Network};
use crate::table::RbccInterface;

/// Stamping only ever lowers the rate field, never touches the requested rate,
/// and writes `node` into the bottleneck field exactly when it lowered the rate.
#[must_use]
pub fn stamp_only_lowers(node: NodeId, before: &RateHeader, after: &RateHeader) -> bool {
    after.requested == before.requested
        && after.rate <= before.rate
        && if after.rate < before.rate {
            after.bottleneck == node
        } else {
            after.bottleneck == before.bottleneck
        }
}

/// Per-interface sums, scaled by the ACK ratio's denominator: (available
/// capacity after outside load, allocated sum, weight of rows at the level).
fn sums<const N: usize>(p: &RbccProfile, t: &RbccInterface<N>) -> (u128, u128, u128) {
    let (num, den) = p.ack_ratio();
    let (num, den) = (u128::from(num), u128::from(den));
    let coupled = p.ack_model() == AckModel::Coupled;
    let mut outside = 0u128;
    let mut used = 0u128;
    let mut w_level = 0u128;
    let mu = t.advertised();
    for e in t.entries() {
        let w = match e.kind {
            EntryKind::Data => den,
            EntryKind::Ack if coupled => num,
            EntryKind::Ack => {
                outside += num * u128::from(e.requested.raw());
                continue;
            }
        };
        used += w * u128::from(e.allocated.raw());
        if e.allocated == mu {
            w_level += w;
        }
    }
    let cap = u128::from(p.capacity().raw()) * den;
    (cap.saturating_sub(outside), used, w_level)
}

/// The allocations of an interface's rows, plus its ACK load, never exceed its
/// capacity (when the ACK load alone exceeds it, the rows get nothing).
#[must_use]
pub fn interface_within_capacity<const N: usize>(p: &RbccProfile, t: &RbccInterface<N>) -> bool {
    let (avail, used, _) = sums(p, t);
    used <= avail
}

/// The interface's allocation is its local max-min fixed point: every row gets
/// `min(constraint, advertised)`; the bottleneck flag says whether the constraint
/// reaches the advertised rate; and when some row is at the advertised rate, one
/// more unit for all such rows would not fit.
#[must_use]
pub fn interface_is_max_min<const N: usize>(p: &RbccProfile, t: &RbccInterface<N>) -> bool {
    let coupled = p.ack_model() == AckModel::Coupled;
    let mu = t.advertised();
    for e in t.entries() {
        let c = match e.kind {
            EntryKind::Data => e.constraint(),
            EntryKind::Ack if coupled => e.requested,
            EntryKind::Ack => {
                if e.allocated != e.requested || e.bottleneck {
                    return false;
                }
                continue;
            }
        };
        if e.allocated != c.min(mu) || e.bottleneck != (c >= mu) {
            return false;
        }
    }
    let (avail, used, w_level) = sums(p, t);
    let at_level = t.entries().any(|e| e.bottleneck);
    !at_level || mu.is_unlimited() || avail - used < w_level
}

/// Per-link load of rates `x` in `net`, scaled by the ACK ratio's denominator:
/// (load counted against capacity, capacity).
fn link_load<const L: usize, const F: usize>(
    net: &Network<L, F>,
    x: &[FixedRate],
    l: usize,
) -> (u128, u128) {
    let (num, den) = net.ack_ratio();
    let (num, den) = (u128::from(num), u128::from(den));
    let mut load = 0u128;
    for (f, r) in x.iter().enumerate().take(net.flows()) {
        load += match net.usage(f, l) {
            LinkUse::None => 0,
            LinkUse::Data => den * u128::from(r.raw()),
            LinkUse::Ack => num * u128::from(r.raw()),
        };
    }
    (load, u128::from(net.capacity(l).raw()) * den)
}

/// No link carries more than its capacity, and no flow gets more than it
/// requested. Under [`AckModel::Coupled`] the load is the data plus `k` times the
/// rates of the flows whose ACKs cross the link; under
/// [`AckModel::OutsideLoad`] the ACK load is outside load and the data must fit
/// in what it leaves (nothing when it exceeds the capacity).
#[must_use]
pub fn network_feasible<const L: usize, const F: usize>(
    net: &Network<L, F>,
    x: &[FixedRate],
) -> bool {
    let outside = net.ack_model() == AckModel::OutsideLoad;
    let (num, _) = net.ack_ratio();
    (0..net.links()).all(|l| {
        let (load, cap) = link_load(net, x, l);
        if outside {
            let acks: u128 = (0..net.flows())
                .filter(|&f| net.usage(f, l) == LinkUse::Ack)
                .map(|f| u128::from(num) * u128::from(x[f].raw()))
                .sum();
            load - acks <= cap.saturating_sub(acks)
        } else {
            load <= cap
        }
    }) && (0..net.flows()).all(|f| x[f] <= net.requested(f))
}

/// The domain of [`network_is_max_min`]: networks whose max-min allocation the
/// solver computes. Always under [`AckModel::Coupled`] or without ACK load
/// (`k = 0`); under [`AckModel::OutsideLoad`] with `k > 0` only when the
/// ACK-load iteration settles ([`Network::try_solve`] is `Ok`). With `k` near
/// one the coupling between links can amplify (a flow slowed by ACK load frees
/// capacity for several others, whose ACKs load further links), and the
/// iteration then need not reach the fixed point; `k` times the longest ACK
/// path below one is not enough to exclude that (the fuzz finding with
/// `k = 15483/16517` and one-hop ACK paths). Costs a full solve.
#[must_use]
pub fn network_in_max_min_domain<const L: usize, const F: usize>(net: &Network<L, F>) -> bool {
    let (num, _) = net.ack_ratio();
    net.ack_model() == AckModel::Coupled || num == 0 || net.try_solve().is_ok()
}

/// Max-min optimality (to the resolution): every flow below its requested rate
/// has a bottleneck link, one that it uses, where no flow counted there has a
/// larger rate and the spare capacity is less than one unit per flow at that
/// rate (with [`AckModel::OutsideLoad`] and `k > 0`, plus one unit per flow
/// crossing the link, the solver's final rounding). Counted there: data flows, and under [`AckModel::Coupled`] ACK flows
/// (weight `k`); under [`AckModel::OutsideLoad`] ACK flows are outside load.
///
/// Stated only for networks in [`network_in_max_min_domain`]: outside it (an
/// `OutsideLoad` ACK coupling whose iteration does not settle) nothing is
/// claimed and this returns `true`; callers that need the distinction ask
/// [`Network::try_solve`].
#[must_use]
pub fn network_is_max_min<const L: usize, const F: usize>(
    net: &Network<L, F>,
    x: &[FixedRate],
) -> bool {
    if !network_in_max_min_domain(net) {
        return true;
    }
    let coupled = net.ack_model() == AckModel::Coupled;
    let (num, den) = net.ack_ratio();
    let counts = |u: LinkUse| match u {
        LinkUse::Data => u128::from(den),
        LinkUse::Ack if coupled => u128::from(num),
        _ => 0,
    };
    // With ACK load the solver rounds down once at the end, so every rate on the
    // link may be short of its exact value by under one unit.
    let slack = |l: usize| -> u128 {
        if coupled || num == 0 {
            return 0;
        }
        (0..net.flows())
            .map(|g| match net.usage(g, l) {
                LinkUse::Data => u128::from(den),
                LinkUse::Ack => u128::from(num),
                LinkUse::None => 0,
            })
            .sum()
    };
    (0..net.flows()).all(|f| {
        if x[f] >= net.requested(f) {
            return true;
        }
        (0..net.links()).any(|l| {
            if counts(net.usage(f, l)) == 0 {
                return false;
            }
            let mut w_level = 0u128;
            for g in 0..net.flows() {
                let w = counts(net.usage(g, l));
                if w == 0 {
                    continue;
                }
                if x[g] > x[f] {
                    return false;
                }
                if x[g] == x[f] {
                    w_level += w;
                }
            }
            let (load, cap) = link_load(net, x, l);
            cap.saturating_sub(load) < w_level + slack(l)
        })
    })
}

/// An accepted [`RcpProfile`] keeps the configuration rules: `0 < C < 2^47`
/// bit/s, `1 bit/s <= min_rate <= initial <= C`, `d0` and `T` at least one
/// tick and `T <= 2^16 d0`.
#[must_use]
pub fn rcp_profile_ok(p: &RcpProfile) -> bool {
    let c = p.capacity();
    c > FixedRate::ZERO
        && c.raw() < 1 << 63
        && p.min_rate() >= FixedRate::from_bps(1)
        && p.min_rate() <= p.initial()
        && p.initial() <= c
        && p.rtt_ticks() >= 1
        && p.interval_ticks() >= 1
        && u128::from(p.interval_ticks()) <= u128::from(p.rtt_ticks()) << 16
}

/// RCP's rate `R` stays within `[min_rate, C]`.
#[must_use]
pub fn rcp_rate_within_bounds(p: &RcpProfile, s: &Rcp) -> bool {
    s.rate() >= p.min_rate() && s.rate() <= p.capacity()
}

/// One RCP update ([`RcpProfile::step`]) from `r` with input rate `y` over `t`
/// ticks and a queue of `q_bytes` gave `next`: `next` is within
/// `[min_rate, C]` for any `r`, and from an `r` within those bounds the update
/// moves where the sign of `alpha (C - y) - beta q / d0` says: spare input
/// (`y <= C`) and no queue never lower it, input at or above `C` never raises
/// it, and `y = C` with no queue is the fixed point.
#[must_use]
pub fn rcp_step_ok(
    p: &RcpProfile,
    r: FixedRate,
    y: FixedRate,
    q_bytes: u64,
    next: FixedRate,
) -> bool {
    let c = p.capacity();
    if next < p.min_rate() || next > c {
        return false;
    }
    if r < p.min_rate() || r > c {
        return true;
    }
    let spare_no_queue = y <= c && q_bytes == 0;
    let overloaded = y >= c;
    let lowered = next < r;
    let raised = next > r;
    let kept = spare_no_queue && overloaded;
    if kept {
        next == r
    } else if spare_no_queue {
        !lowered
    } else if overloaded {
        !raised
    } else {
        true
    }
}

/// [`Rcp::control`] at `now` with a queue of `q_bytes` turned `before` into
/// `after` and returned `updated`: it updates exactly when at least `T` ticks
/// have passed since the interval began (serial arithmetic: never when the
/// clock stands still or steps back, so at most once per interval of forward
/// time), then starts the next interval at `now` with no bytes counted and a
/// rate within bounds, which no arrivals and no queue never lower; without an
/// update nothing changes.
#[must_use]
pub fn rcp_control_ok(
    p: &RcpProfile,
    before: &Rcp,
    after: &Rcp,
    now: Instant,
    q_bytes: u64,
    updated: bool,
) -> bool {
    let due = now.ticks_since(before.interval_start()) >= p.interval_ticks();
    if updated != due {
        return false;
    }
    if !updated {
        return after == before;
    }
    after.interval_start() == now
        && after.arrived_bytes() == 0
        && rcp_rate_within_bounds(p, after)
        && !(before.arrived_bytes() == 0 && q_bytes == 0 && after.rate() < before.rate())
}

/// RCP's stamp of a data packet by controller `s`: [`stamp_only_lowers`]
/// with the profile's node, and the rate field becomes `min(field, R)`.
#[must_use]
pub fn rcp_stamp_ok(p: &RcpProfile, s: &Rcp, before: &RateHeader, after: &RateHeader) -> bool {
    stamp_only_lowers(p.node(), before, after) && after.rate == before.rate.min(s.rate())
}

/// One thing a caller can do to an RCP interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcpOp {
    /// A data packet whose rate field is `rate` leaves `dt` ticks after the
    /// previous operation (wrapping) and is stamped.
    Data {
        /// Ticks since the previous operation.
        dt: u64,
        /// Its rate field (and requested rate).
        rate: FixedRate,
        /// Its bottleneck field.
        node: NodeId,
    },
    /// An ACK carrying `rate` passes (RCP leaves it alone).
    Ack {
        /// Ticks since the previous operation.
        dt: u64,
        /// Its rate field.
        rate: FixedRate,
    },
    /// `len` bytes arrive for the interface.
    Arrive {
        /// Bytes.
        len: u32,
    },
    /// The control timer fires with a queue of `queue` bytes.
    Control {
        /// Ticks since the previous operation.
        dt: u64,
        /// The queue in bytes.
        queue: u64,
    },
    /// The control timer fires `offset` ticks from the instant the next
    /// update is due (the interval start plus `T`), with a queue of `queue`
    /// bytes.
    ControlNearDue {
        /// Ticks from the due instant (wrapping).
        offset: i8,
        /// The queue in bytes.
        queue: u64,
    },
    /// One update computed directly ([`RcpProfile::step`]).
    Step {
        /// The rate before.
        r: FixedRate,
        /// The input rate.
        y: FixedRate,
        /// Ticks elapsed.
        t: u64,
        /// The queue in bytes.
        q: u64,
    },
}

/// Drives an [`Rcp`] started at tick `start` through `ops`, checking
/// [`rcp_profile_ok`] once, then after every operation
/// [`rcp_rate_within_bounds`], and per operation [`rcp_stamp_ok`],
/// [`rcp_control_ok`] and [`rcp_step_ok`]; ACKs stay unchanged and the byte
/// count only grows between updates. Nothing may panic.
pub fn check_rcp(p: &RcpProfile, start: u64, ops: &[RcpOp]) -> Result<(), &'static str> {
    if !rcp_profile_ok(p) {
        return Err("an accepted profile breaks the configuration rules");
    }
    let mut now = Instant::from_ticks(start);
    let mut s = Rcp::new(p, now);
    if s.rate() != p.initial() || s.interval_start() != now || s.arrived_bytes() != 0 {
        return Err("a new controller is not at the initial rate");
    }
    for op in ops {
        match *op {
            RcpOp::Data { dt, rate, node } => {
                now = now.wrapping_add(dt);
                let mut h = RateHeader::new(rate);
                h.bottleneck = node;
                let before = h;
                if s.on_data(p, now, 1, &mut h).is_err() {
                    return Err("RCP refused a data packet");
                }
                if !rcp_stamp_ok(p, &s, &before, &h) {
                    return Err("stamping did not set the rate field to min(field, R)");
                }
            }
            RcpOp::Ack { dt, rate } => {
                now = now.wrapping_add(dt);
                let mut a = AckHeader {
                    rate,
                    bottleneck: p.node(),
                };
                let before = a;
                if s.on_ack(p, now, 1, &mut a).is_err() || a != before {
                    return Err("RCP changed or refused an ACK");
                }
            }
            RcpOp::Arrive { len } => {
                let before = s.arrived_bytes();
                s.on_arrival(p, now, len);
                if s.arrived_bytes() != before.saturating_add(u64::from(len)) {
                    return Err("arrivals not counted");
                }
            }
            RcpOp::Control { .. } | RcpOp::ControlNearDue { .. } => {
                let queue = match *op {
                    RcpOp::Control { dt, queue } => {
                        now = now.wrapping_add(dt);
                        queue
                    }
                    RcpOp::ControlNearDue { offset, queue } => {
                        let due = s.interval_start().wrapping_add(p.interval_ticks());
                        now = due.wrapping_add(i64::from(offset) as u64);
                        queue
                    }
                    _ => 0,
                };
                let before = s;
                let updated = s.control(p, now, queue);
                if !rcp_control_ok(p, &before, &s, now, queue, updated) {
                    return Err("control updated out of time, or out of bounds");
                }
            }
            RcpOp::Step { r, y, t, q } => {
                if !rcp_step_ok(p, r, y, q, p.step(r, y, t, q)) {
                    return Err("an update left [min_rate, C] or moved against its sign");
                }
            }
        }
        if !rcp_rate_within_bounds(p, &s) {
            return Err("R outside [min_rate, C]");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The allocation table against a plain model
// ---------------------------------------------------------------------------

/// One call on an [`RbccInterface`] for [`check_table`]. Time moves by `dt`
/// ticks first (wrapping: 2^63 or more is a step back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableOp {
    /// A data packet of `flow` with this header.
    Data {
        /// Ticks since the previous call.
        dt: u64,
        /// The flow.
        flow: FlowId,
        /// Its header on arrival.
        hdr: RateHeader,
    },
    /// The ACK of `flow`'s data comes back with this header.
    Return {
        /// Ticks since the previous call.
        dt: u64,
        /// The flow.
        flow: FlowId,
        /// The ACK's header.
        ack: AckHeader,
    },
    /// An ACK of `flow` (data the other way) leaves by the interface.
    Ack {
        /// Ticks since the previous call.
        dt: u64,
        /// The flow.
        flow: FlowId,
        /// The ACK's header on arrival.
        ack: AckHeader,
    },
    /// `flow` closes.
    Close {
        /// The flow.
        flow: FlowId,
    },
    /// Rows idle for the timeout are removed.
    Expire {
        /// Ticks since the previous call.
        dt: u64,
    },
    /// The fair share is recomputed.
    Recompute,
}

/// A row of the plain model: the RBCC allocated-bandwidth table of Toomey's RBCC report,
/// one entry per data flow and per ACK flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ModelRow {
    flow: FlowId,
    ack: bool,
    requested: u64,
    elsewhere: u64,
    last_seen: u64,
}

/// The plain model's advertised rate (raw 2^-16 bit/s units): with `cap = C
/// den` and the weights (`den` per data row, `num` per ACK row under
/// [`AckModel::Coupled`]; ACK rows under [`AckModel::OutsideLoad`] take
/// `num x rate` off the capacity), the largest `mu` whose water level fits:
/// `sum w min(c, mu) <= cap - outside`; when every row fits below the level
/// at its constraint, the largest constraint plus the slack over the lightest
/// weight at it (Charny: that row alone may grow); with no row, the whole
/// capacity. Found by bisection, not by the table's partition.
fn model_mu(p: &RbccProfile, rows: &[Option<ModelRow>]) -> u64 {
    let (num, den) = p.ack_ratio();
    let coupled = p.ack_model() == AckModel::Coupled;
    let cap = u128::from(p.capacity().raw()) * u128::from(den);
    let mut outside = 0u128;
    // (constraint, weight) of the rows that share the interface.
    let mut parts = [(0u64, 0u64); 64];
    let mut m = 0;
    for r in rows.iter().flatten() {
        if r.ack && !coupled {
            outside += u128::from(num) * u128::from(r.requested);
            continue;
        }
        let (c, w) = if r.ack {
            (r.requested, num)
        } else {
            (r.requested.min(r.elsewhere), den)
        };
        if w > 0 && m < parts.len() {
            parts[m] = (c, w);
            m += 1;
        }
    }
    let parts = &parts[..m];
    let avail = cap.saturating_sub(outside);
    if parts.is_empty() {
        return u64::try_from(avail / u128::from(den)).unwrap_or(u64::MAX);
    }
    let used = |mu: u64| -> u128 {
        parts
            .iter()
            .map(|&(c, w)| u128::from(c.min(mu)) * u128::from(w))
            .sum()
    };
    let c_max = parts.iter().map(|p| p.0).max().unwrap_or(0);
    if used(c_max) <= avail {
        let w_top = parts
            .iter()
            .filter(|p| p.0 == c_max)
            .map(|p| p.1)
            .min()
            .unwrap_or(1)
            .max(1);
        let mu = u128::from(c_max) + (avail - used(c_max)) / u128::from(w_top);
        return u64::try_from(mu).unwrap_or(u64::MAX);
    }
    // The largest mu in [0, c_max) with used(mu) <= avail (used(0) = 0).
    let (mut lo, mut hi) = (0u64, c_max);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if used(mid) <= avail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Drives an [`RbccInterface`] of `N` rows (`N` at most 32) through `ops` from
/// `start` and compares it after every call with a plain model of the
/// allocation table: which rows exist (a data row from a flow's first data
/// packet, an ACK row from its first ACK when `k > 0`; a full table refuses a
/// new row and leaves the header alone; `close` removes both rows of a flow;
/// `expire` every row idle for the timeout), each row's requested rate, the
/// rate held elsewhere (from the returned ACK: its rate unless this node was
/// the bottleneck) and last-seen time (serial, never back), the advertised
/// rate (see `model_mu`), and each stamped header: lowered to exactly the
/// advertised rate, with this node as bottleneck, when above it, else
/// unchanged. Configurations the profile refuses are skipped.
pub fn check_table<const N: usize>(
    cfg: &RbccConfig,
    start: u64,
    ops: &[TableOp],
) -> Result<(), &'static str> {
    let Ok(p) = RbccProfile::new(cfg) else {
        return Ok(());
    };
    let mut t: RbccInterface<N> = RbccInterface::new(&p, Instant::ZERO);
    let mut rows: [Option<ModelRow>; 32] = [None; 32];
    let rows = &mut rows[..N.min(32)];
    let mut now = start;
    let (num, _) = p.ack_ratio();
    let idle = p.idle_ticks();
    let find = |rows: &[Option<ModelRow>], flow: FlowId, ack: bool| {
        rows.iter()
            .position(|r| r.is_some_and(|r| r.flow == flow && r.ack == ack))
    };
    let later = |last: u64, now: u64| {
        if now.wrapping_sub(last) < 1 << 63 {
            now
        } else {
            last
        }
    };
    for op in ops {
        match *op {
            TableOp::Data { dt, flow, hdr } => {
                now = now.wrapping_add(dt);
                let mut h = hdr;
                let got = t.on_data(&p, Instant::from_ticks(now), flow, &mut h);
                let admitted = match find(rows, flow, false) {
                    Some(i) => {
                        let r = rows[i].as_mut().unwrap_or_else(|| unreachable!());
                        r.requested = hdr.requested.raw();
                        r.last_seen = later(r.last_seen, now);
                        true
                    }
                    None => match rows.iter().position(Option::is_none) {
                        Some(i) => {
                            rows[i] = Some(ModelRow {
                                flow,
                                ack: false,
                                requested: hdr.requested.raw(),
                                elsewhere: u64::MAX,
                                last_seen: now,
                            });
                            true
                        }
                        None => false,
                    },
                };
                if got.is_ok() != admitted {
                    return Err("table: a data row was refused or admitted unlike the model");
                }
                let mu = model_mu(&p, rows);
                let want = if admitted && hdr.rate.raw() > mu {
                    RateHeader {
                        rate: FixedRate::from_raw(mu),
                        bottleneck: p.node(),
                        ..hdr
                    }
                } else {
                    hdr
                };
                if h != want {
                    return Err("table: the data header is not lowered to the advertised rate");
                }
            }
            TableOp::Return { dt, flow, ack } => {
                now = now.wrapping_add(dt);
                t.on_return(&p, Instant::from_ticks(now), flow, &ack);
                if let Some(i) = find(rows, flow, false) {
                    let r = rows[i].as_mut().unwrap_or_else(|| unreachable!());
                    r.last_seen = later(r.last_seen, now);
                    r.elsewhere = if ack.bottleneck == p.node() {
                        u64::MAX
                    } else {
                        ack.rate.raw()
                    };
                }
            }
            TableOp::Ack { dt, flow, ack } => {
                now = now.wrapping_add(dt);
                let mut a = ack;
                let got = t.on_ack(&p, Instant::from_ticks(now), flow, &mut a);
                let admitted = num == 0
                    || match find(rows, flow, true) {
                        Some(i) => {
                            let r = rows[i].as_mut().unwrap_or_else(|| unreachable!());
                            r.requested = ack.rate.raw();
                            r.last_seen = later(r.last_seen, now);
                            true
                        }
                        None => match rows.iter().position(Option::is_none) {
                            Some(i) => {
                                rows[i] = Some(ModelRow {
                                    flow,
                                    ack: true,
                                    requested: ack.rate.raw(),
                                    elsewhere: u64::MAX,
                                    last_seen: now,
                                });
                                true
                            }
                            None => false,
                        },
                    };
                if got.is_ok() != admitted {
                    return Err("table: an ACK row was refused or admitted unlike the model");
                }
                let mu = model_mu(&p, rows);
                let lowers = admitted
                    && p.ack_model() == AckModel::Coupled
                    && ack.rate.raw() > mu
                    && num > 0;
                let want = if lowers {
                    AckHeader {
                        rate: FixedRate::from_raw(mu),
                        bottleneck: p.node(),
                    }
                } else {
                    ack
                };
                if a != want {
                    return Err("table: the ACK header is not what the model stamps");
                }
            }
            TableOp::Close { flow } => {
                let removed = t.close(&p, flow);
                let mut any = false;
                for ack in [false, true] {
                    if let Some(i) = find(rows, flow, ack) {
                        rows[i] = None;
                        any = true;
                    }
                }
                if removed != any {
                    return Err("table: close removed rows unlike the model");
                }
            }
            TableOp::Expire { dt } => {
                now = now.wrapping_add(dt);
                let n = t.expire(&p, Instant::from_ticks(now));
                let mut gone = 0;
                for r in rows.iter_mut() {
                    if let Some(row) = r {
                        let age = now.wrapping_sub(row.last_seen);
                        let age = if age < 1 << 63 { age } else { 0 };
                        if age >= idle {
                            *r = None;
                            gone += 1;
                        }
                    }
                }
                if n != gone {
                    return Err("table: expire removed a different number of rows");
                }
            }
            TableOp::Recompute => t.recompute(&p),
        }
        // After every call: the same rows, fields and advertised rate.
        if t.len() != rows.iter().flatten().count() {
            return Err("table: a different number of rows than the model");
        }
        for r in rows.iter().flatten() {
            let e = if r.ack { t.ack(r.flow) } else { t.data(r.flow) };
            let Some(e) = e else {
                return Err("table: a row of the model is missing");
            };
            if e.requested.raw() != r.requested
                || e.elsewhere.raw() != r.elsewhere
                || e.last_seen.ticks() != r.last_seen
            {
                return Err("table: a row's requested, elsewhere or last-seen differs");
            }
        }
        if t.advertised().raw() != model_mu(&p, rows) {
            return Err("table: the advertised rate is not the model's water level");
        }
    }
    Ok(())
}

/// The checks the fuzz targets run, on random calls: none fires on the real
/// code. (Which broken variants of the code the tests catch is measured by
/// cargo-mutants: docs/verification.md.)
#[cfg(test)]
mod quiet {
    use super::*;
    use netcond_core::{RandomSource, Rate, SplitMix64, TickRate};

    fn rate(r: &mut SplitMix64) -> FixedRate {
        FixedRate::from_raw(match r.below(4) {
            0 => u64::MAX,
            _ => u64::from(r.below(1 << 30)) << 8,
        })
    }

    /// `check_table` (fuzz target rbcc_table) on random calls.
    fn table_caught(seed: u64) -> bool {
        let mut r = SplitMix64::new(seed);
        (0..30).any(|i| {
            let cfg = RbccConfig {
                node: NodeId(7),
                capacity: Rate::from_bits_per_sec(1 + r.next_u64() % (1 << 30)),
                ack_bytes: 40,
                data_bytes: 1500,
                ack_model: if i % 2 == 0 {
                    AckModel::OutsideLoad
                } else {
                    AckModel::Coupled
                },
                idle_timeout: core::time::Duration::from_millis(1),
                tick: TickRate::NANOS,
            };
            let ops: [TableOp; 100] = core::array::from_fn(|_| {
                let dt = u64::from(r.below(600_000));
                let flow = r.below(6);
                let node = NodeId([3, 7][r.below(2) as usize]);
                match r.below(8) {
                    0..=2 => TableOp::Data {
                        dt,
                        flow,
                        hdr: RateHeader::new(rate(&mut r)),
                    },
                    3 => TableOp::Return {
                        dt,
                        flow,
                        ack: AckHeader {
                            rate: rate(&mut r),
                            bottleneck: node,
                        },
                    },
                    4 => TableOp::Ack {
                        dt,
                        flow,
                        ack: AckHeader {
                            rate: rate(&mut r),
                            bottleneck: node,
                        },
                    },
                    5 => TableOp::Close { flow },
                    _ => TableOp::Expire { dt },
                }
            });
            check_table::<8>(&cfg, r.next_u64(), &ops).is_err()
        })
    }

    /// `network_feasible` (fuzz target rbcc_solver) on random two-link networks.
    fn solver_caught(seed: u64) -> bool {
        let mut r = SplitMix64::new(seed);
        (0..50).any(|_| {
            let mut net: Network<2, 3> = Network::new(40, 1500, AckModel::Coupled);
            for _ in 0..2 {
                let _ = net.add_link(FixedRate::from_bps(1 + u64::from(r.below(1_000_000))));
            }
            for _ in 0..3 {
                let links: &[usize] = [&[0][..], &[1], &[0, 1]][r.below(3) as usize];
                let _ = net.add_flow(rate(&mut r), links, &[]);
            }
            !network_feasible(&net, &net.solve())
        })
    }

    /// `check_rcp` (fuzz target rcp) on random calls.
    fn rcp_caught(seed: u64) -> bool {
        let mut r = SplitMix64::new(seed);
        let p = RcpProfile::new(&crate::rcp::RcpConfig::new(
            NodeId(1),
            Rate::from_mbps(10),
            core::time::Duration::from_millis(1),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        (0..20).any(|_| {
            let ops: [RcpOp; 50] = core::array::from_fn(|_| match r.below(3) {
                0 => RcpOp::Arrive { len: r.below(3000) },
                1 => RcpOp::Control {
                    dt: u64::from(r.below(2_000_000)),
                    queue: u64::from(r.below(10_000)),
                },
                _ => RcpOp::Data {
                    dt: u64::from(r.below(100_000)),
                    rate: rate(&mut r),
                    node: NodeId(2),
                },
            });
            check_rcp(&p, r.next_u64(), &ops).is_err()
        })
    }

    #[test]
    #[cfg_attr(miri, ignore = "thousands of packets per detector; Miri takes minutes")]
    fn no_check_fires_on_the_real_code() {
        for seed in 1..=3 {
            assert!(!table_caught(seed), "check_table fires (seed {seed})");
            assert!(!solver_caught(seed), "network_feasible fails (seed {seed})");
            assert!(!rcp_caught(seed), "check_rcp fires (seed {seed})");
        }
    }
}
