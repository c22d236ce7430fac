//! Reference models for differential tests: CoDel written in the loop form of
//! its sources, owning the dequeue loop, next to which the crate's step-wise
//! [`Codel`](crate::Codel) is checked packet for packet, and PIE.
//!
//! - [`RfcCodel`]: RFC 8289's `dequeue` and `dodequeue` (sections 5.5 and
//!   5.6), with the control law `t + floor(interval / sqrt(count))` found by
//!   a binary search for the largest `q` with `q^2 <= floor(interval^2 /
//!   count)` (a different computation from the crate's Newton square root).
//!   ECN marking as Linux does it, which the RFC's pseudocode leaves out.
//! - [`LinuxCodel`]: Linux's `codel_dequeue` and `codel_should_drop`
//!   (`include/net/codel_impl.h`), with ns-3's differences where
//!   [`LinuxVariant::Ns3`] is chosen, in 32-bit codel time.
//! - [`FqCodelRef`]: Linux's `fq_codel_dequeue` and `fq_codel_drop` loops over
//!   plain index rings, with either model as each flow's CoDel.
//! - [`LinuxPie`]: Linux's `sch_pie` with timestamps, in 128-bit arithmetic
//!   with explicit reductions modulo 2^64 where the C code wraps.
//!
//! They take the configuration from a [`CodelProfile`] (its converted target
//! and interval) and the packets from any [`Fifo`]. Not on any per-packet path.

use netcond_core::Instant;

use crate::{CodelProfile, ControlLaw, FqCodelProfile, Head, LinuxVariant};

/// A queue the reference models pull packets from.
pub trait Fifo {
    /// Removes and returns the head packet.
    fn pop(&mut self) -> Option<Head>;
    /// Bytes queued (after the last `pop`).
    fn bytes(&self) -> u64;
}

/// RFC 8289 sections 5.5 and 5.6 as written, on the caller's ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RfcCodel {
    /// The newest instant seen.
    pub last: Instant,
    /// `first_above_time_`, `None` for the RFC's 0.
    pub first_above_time: Option<u64>,
    /// `drop_next_`.
    pub drop_next: u64,
    /// `count_`.
    pub count: u32,
    /// `lastcount_`.
    pub lastcount: u32,
    /// `dropping_`.
    pub dropping: bool,
}

/// `a >= b` on serial 64-bit ticks.
fn ge64(a: u64, b: u64) -> bool {
    a.wrapping_sub(b) < 1 << 63
}

/// `floor(interval / sqrt(count))` by bisection on `q^2 <= interval^2 / count`.
#[must_use]
pub fn spacing_by_bisection(interval: u64, count: u32) -> u64 {
    let bound = u128::from(interval) * u128::from(interval) / u128::from(count.max(1));
    let (mut lo, mut hi) = (0u128, u128::from(interval));
    // Invariant: lo^2 <= bound, and every q > hi has q^2 > bound.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if mid * mid <= bound {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo as u64
}

impl RfcCodel {
    /// The RFC's initial state, clock at `now` (the profile is taken as every
    /// state takes it, `State::new(&profile, now)`).
    #[must_use]
    pub fn new(_profile: &CodelProfile, now: Instant) -> RfcCodel {
        RfcCodel {
            last: now,
            first_above_time: None,
            drop_next: now.ticks(),
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    fn control_law(p: &CodelProfile, t: u64, count: u32) -> u64 {
        t.wrapping_add(spacing_by_bisection(p.interval, count))
    }

    fn dodequeue<Q: Fifo>(
        &mut self,
        p: &CodelProfile,
        now: u64,
        q: &mut Q,
    ) -> (Option<Head>, bool) {
        let Some(pkt) = q.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = self.last.ticks_since(pkt.enqueued);
        if sojourn < p.target || q.bytes() <= u64::from(p.mtu) {
            self.first_above_time = None;
            return (Some(pkt), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now.wrapping_add(p.interval));
                (Some(pkt), false)
            }
            Some(t) => (Some(pkt), ge64(now, t)),
        }
    }

    /// One call of the RFC's `dequeue()`: the packet sent (with whether it was
    /// marked CE), after calling `drop` on each packet dropped on the way.
    pub fn dequeue<Q: Fifo, D: FnMut(Head)>(
        &mut self,
        p: &CodelProfile,
        now: Instant,
        q: &mut Q,
        mut drop: D,
    ) -> Option<(Head, bool)> {
        self.last.advance_to(now);
        let now = self.last.ticks();
        let (mut pkt, ok) = self.dodequeue(p, now, q);
        let mut marked = false;
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && ge64(now, self.drop_next) {
                let Some(h) = pkt else { break };
                self.count = self.count.saturating_add(1);
                if p.ecn && h.ecn_capable {
                    marked = true;
                    self.drop_next = Self::control_law(p, self.drop_next, self.count);
                    break;
                }
                drop(h);
                let (next, ok) = self.dodequeue(p, now, q);
                pkt = next;
                if ok {
                    self.drop_next = Self::control_law(p, self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            if let Some(h) = pkt {
                if p.ecn && h.ecn_capable {
                    marked = true;
                } else {
                    drop(h);
                    pkt = self.dodequeue(p, now, q).0;
                }
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            let since = if ge64(now, self.drop_next) {
                now.wrapping_sub(self.drop_next)
            } else {
                0
            };
            if delta > 1 && u128::from(since) < 16 * u128::from(p.interval) {
                self.count = delta;
            }
            self.drop_next = Self::control_law(p, now, self.count);
            self.lastcount = self.count;
        }
        pkt.map(|h| (h, marked))
    }
}

/// Linux's `codel_dequeue` (or ns-3's `DoDequeue`), in 32-bit codel time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxCodel {
    /// The newest instant seen.
    pub last: Instant,
    /// `count`.
    pub count: u32,
    /// `lastcount`.
    pub lastcount: u32,
    /// `dropping`.
    pub dropping: bool,
    /// `rec_inv_sqrt`.
    pub rec_inv_sqrt: u16,
    /// `first_above_time` (0 = unset).
    pub first_above_time: u32,
    /// `drop_next`.
    pub drop_next: u32,
}

/// `codel_Newton_step` written out with 128-bit intermediates and explicit
/// reductions modulo 2^64, as C's `u64` arithmetic does them.
#[must_use]
pub fn newton_by_formula(rec: u16, count: u32) -> u16 {
    const M64: u128 = (1 << 64) - 1;
    let x = u128::from(rec) * 65536;
    let x2 = (x * x) / (1 << 32);
    let v = ((3u128 << 32).wrapping_sub(u128::from(count) * x2) & M64) / 4;
    let y = ((v * x) & M64) / (1 << 31);
    ((y / 65536) % 65536) as u16
}

impl LinuxCodel {
    /// `codel_vars_init`: everything zero; clock at `now` (the profile is
    /// taken as every state takes it, `State::new(&profile, now)`).
    #[must_use]
    pub fn new(_profile: &CodelProfile, now: Instant) -> LinuxCodel {
        LinuxCodel {
            last: now,
            count: 0,
            lastcount: 0,
            dropping: false,
            rec_inv_sqrt: 0,
            first_above_time: 0,
            drop_next: 0,
        }
    }

    fn after(p: &CodelProfile, a: u32, b: u32) -> bool {
        match p.variant {
            LinuxVariant::Kernel => (a.wrapping_sub(b) as i32) > 0,
            LinuxVariant::Ns3 => i64::from(a) - i64::from(b) > 0,
        }
    }

    fn after_eq(p: &CodelProfile, a: u32, b: u32) -> bool {
        match p.variant {
            LinuxVariant::Kernel => (a.wrapping_sub(b) as i32) >= 0,
            LinuxVariant::Ns3 => i64::from(a) - i64::from(b) >= 0,
        }
    }

    fn control_law(&self, p: &CodelProfile, t: u32) -> u32 {
        let r = u64::from(self.rec_inv_sqrt) << 16;
        t.wrapping_add(((u64::from(p.interval as u32) * r) >> 32) as u32)
    }

    fn should_drop<Q: Fifo>(
        &mut self,
        p: &CodelProfile,
        skb: Option<Head>,
        now: u32,
        q: &Q,
    ) -> bool {
        let Some(skb) = skb else {
            self.first_above_time = 0;
            return false;
        };
        let ldelay = match p.variant {
            LinuxVariant::Kernel => now.wrapping_sub(p.codel_time(skb.enqueued)),
            LinuxVariant::Ns3 => {
                let d = p.nanos(self.last).saturating_sub(p.nanos(skb.enqueued));
                (d >> 10) as u32
            }
        };
        let few = match p.variant {
            LinuxVariant::Kernel => q.bytes() <= u64::from(p.mtu),
            LinuxVariant::Ns3 => q.bytes() < u64::from(p.mtu),
        };
        if Self::after(p, p.target as u32, ldelay) || few {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now.wrapping_add(p.interval as u32);
            false
        } else {
            Self::after(p, now, self.first_above_time)
        }
    }

    /// One call of `codel_dequeue`.
    pub fn dequeue<Q: Fifo, D: FnMut(Head)>(
        &mut self,
        p: &CodelProfile,
        now: Instant,
        q: &mut Q,
        mut drop: D,
    ) -> Option<(Head, bool)> {
        self.last.advance_to(now);
        let mut skb = q.pop();
        if skb.is_none() {
            self.dropping = false;
            return None;
        }
        let now = p.codel_time(self.last);
        let mut marked = false;
        let ok = self.should_drop(p, skb, now, q);
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else if Self::after_eq(p, now, self.drop_next) {
                while self.dropping && Self::after_eq(p, now, self.drop_next) {
                    let Some(h) = skb else { break };
                    self.count = self.count.wrapping_add(1);
                    self.rec_inv_sqrt = newton_by_formula(self.rec_inv_sqrt, self.count);
                    if p.ecn && h.ecn_capable {
                        marked = true;
                        let base = match p.variant {
                            LinuxVariant::Kernel => self.drop_next,
                            LinuxVariant::Ns3 => now,
                        };
                        self.drop_next = self.control_law(p, base);
                        break;
                    }
                    drop(h);
                    skb = q.pop();
                    if self.should_drop(p, skb, now, q) {
                        self.drop_next = self.control_law(p, self.drop_next);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if ok {
            let h = skb.unwrap_or_default();
            if p.ecn && h.ecn_capable {
                marked = true;
            } else {
                drop(h);
                skb = q.pop();
                let _ = self.should_drop(p, skb, now, q);
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let since = now.wrapping_sub(self.drop_next);
            let window = 16u32.wrapping_mul(p.interval as u32);
            let carry = match p.variant {
                LinuxVariant::Kernel => delta > 1 && Self::after(p, window, since),
                LinuxVariant::Ns3 => (delta as i32) > 1 && i64::from(since) - i64::from(window) < 0,
            };
            if carry {
                self.count = delta;
                self.rec_inv_sqrt = newton_by_formula(self.rec_inv_sqrt, self.count);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = 0xFFFF;
            }
            self.lastcount = self.count;
            self.drop_next = self.control_law(p, now);
        }
        skb.map(|h| (h, marked))
    }
}

/// Either reference CoDel, as the profile's law says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefCodel {
    /// RFC 8289 with the exact law.
    Rfc(RfcCodel),
    /// Linux or ns-3.
    Linux(LinuxCodel),
}

impl RefCodel {
    /// The model for `p`'s law, clock at `now`.
    #[must_use]
    pub fn new(p: &CodelProfile, now: Instant) -> RefCodel {
        match p.law {
            ControlLaw::Exact => RefCodel::Rfc(RfcCodel::new(p, now)),
            ControlLaw::Linux => RefCodel::Linux(LinuxCodel::new(p, now)),
        }
    }

    /// One dequeue.
    pub fn dequeue<Q: Fifo, D: FnMut(Head)>(
        &mut self,
        p: &CodelProfile,
        now: Instant,
        q: &mut Q,
        drop: D,
    ) -> Option<(Head, bool)> {
        match self {
            RefCodel::Rfc(c) => c.dequeue(p, now, q, drop),
            RefCodel::Linux(c) => c.dequeue(p, now, q, drop),
        }
    }

    /// `(count, lastcount, dropping, drop_next)`.
    #[must_use]
    pub fn vars(&self) -> (u32, u32, bool, u64) {
        match self {
            RefCodel::Rfc(c) => (c.count, c.lastcount, c.dropping, c.drop_next),
            RefCodel::Linux(c) => (c.count, c.lastcount, c.dropping, u64::from(c.drop_next)),
        }
    }

    /// Adds `n` to `count` (Linux's overflow drops).
    pub fn bump(&mut self, n: u32) {
        match self {
            RefCodel::Rfc(c) => c.count = c.count.saturating_add(n),
            RefCodel::Linux(c) => c.count = c.count.wrapping_add(n),
        }
    }
}

/// Per-flow packet storage for [`FqCodelRef`].
pub trait FlowFifos {
    /// Removes and returns the head of flow `f`.
    fn pop(&mut self, f: usize) -> Option<Head>;
    /// Whether flow `f` is empty.
    fn is_empty(&self, f: usize) -> bool;
    /// Bytes in flow `f`.
    fn flow_bytes(&self, f: usize) -> u64;
    /// Bytes in all flows.
    fn total_bytes(&self) -> u64;
}

/// A fixed ring of flow indices, the reference's `list_head`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ring<const N: usize> {
    items: [usize; N],
    start: usize,
    len: usize,
}

impl<const N: usize> Ring<N> {
    fn new() -> Self {
        Ring {
            items: [0; N],
            start: 0,
            len: 0,
        }
    }
    fn first(&self) -> Option<usize> {
        (self.len > 0).then(|| self.items[self.start])
    }
    fn pop_front(&mut self) {
        if self.len > 0 {
            self.start = (self.start + 1) % N;
            self.len -= 1;
        }
    }
    fn push_back(&mut self, f: usize) {
        if self.len < N {
            self.items[(self.start + self.len) % N] = f;
            self.len += 1;
        }
    }
}

/// Linux's `fq_codel_enqueue`, `fq_codel_drop` and `fq_codel_dequeue` over
/// two rings of flow indices, each flow's CoDel a [`RefCodel`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FqCodelRef<const N: usize> {
    codels: [RefCodel; N],
    deficits: [i64; N],
    listed: [bool; N],
    new_flows: Ring<N>,
    old_flows: Ring<N>,
    qlen: u64,
}

/// Adapts one flow of a [`FlowFifos`] to a [`Fifo`] whose `bytes` is the
/// total backlog, as `sch->qstats.backlog` is.
struct OneFlow<'a, S: FlowFifos> {
    store: &'a mut S,
    flow: usize,
}

impl<S: FlowFifos> Fifo for OneFlow<'_, S> {
    fn pop(&mut self) -> Option<Head> {
        self.store.pop(self.flow)
    }
    fn bytes(&self) -> u64 {
        self.store.total_bytes()
    }
}

impl<const N: usize> FqCodelRef<N> {
    /// An empty queue, clocks at `now`.
    #[must_use]
    pub fn new(p: &FqCodelProfile, now: Instant) -> Self {
        FqCodelRef {
            codels: [RefCodel::new(&p.codel, now); N],
            deficits: [0; N],
            listed: [false; N],
            new_flows: Ring::new(),
            old_flows: Ring::new(),
            qlen: 0,
        }
    }

    /// The CoDel model of flow `f`.
    #[must_use]
    pub fn codel(&self, f: usize) -> &RefCodel {
        &self.codels[f % N]
    }

    /// The packet was already added to flow `f % N` of `store`. Returns the
    /// overflow victim and how many packets were dropped from its head.
    pub fn enqueue<S: FlowFifos>(
        &mut self,
        p: &FqCodelProfile,
        f: usize,
        store: &mut S,
    ) -> Option<(usize, u32)> {
        let f = f % N;
        if !self.listed[f] {
            self.listed[f] = true;
            self.new_flows.push_back(f);
            self.deficits[f] = i64::from(p.quantum);
        }
        self.qlen += 1;
        if self.qlen <= u64::from(p.limit) {
            return None;
        }
        let (mut idx, mut max) = (f, 0);
        for i in 0..N {
            if store.flow_bytes(i) > max {
                max = store.flow_bytes(i);
                idx = i;
            }
        }
        let threshold = max / 2;
        let (mut i, mut len) = (0u32, 0u64);
        while let Some(h) = store.pop(idx) {
            len += u64::from(h.len);
            i += 1;
            self.qlen = self.qlen.saturating_sub(1);
            if i >= p.batch || len >= threshold {
                break;
            }
        }
        if p.codel.law == ControlLaw::Linux {
            self.codels[idx].bump(i);
        }
        Some((idx, i))
    }

    /// One `fq_codel_dequeue`: the flow and packet sent (and whether marked),
    /// calling `drop` on each packet CoDel dropped.
    pub fn dequeue<S: FlowFifos, D: FnMut(usize, Head)>(
        &mut self,
        p: &FqCodelProfile,
        now: Instant,
        store: &mut S,
        mut drop: D,
    ) -> Option<(usize, Head, bool)> {
        loop {
            let (from_new, f) = match (self.new_flows.first(), self.old_flows.first()) {
                (Some(f), _) => (true, f),
                (None, Some(f)) => (false, f),
                (None, None) => return None,
            };
            if self.deficits[f] <= 0 {
                self.deficits[f] = self.deficits[f].saturating_add(i64::from(p.quantum));
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(f);
                continue;
            }
            let mut fifo = OneFlow { store, flow: f };
            let mut dropped = 0u64;
            let got = self.codels[f].dequeue(&p.codel, now, &mut fifo, |h| {
                dropped += 1;
                drop(f, h);
            });
            self.qlen = self.qlen.saturating_sub(dropped);
            match got {
                Some((h, marked)) => {
                    self.qlen = self.qlen.saturating_sub(1);
                    self.deficits[f] = self.deficits[f].saturating_sub(i64::from(h.len));
                    return Some((f, h, marked));
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                    } else {
                        self.old_flows.pop_front();
                    }
                    if from_new && self.old_flows.first().is_some() {
                        self.old_flows.push_back(f);
                    } else {
                        self.listed[f] = false;
                    }
                }
            }
        }
    }
}

/// Linux's `sch_pie` with timestamps (`pie_drop_early`, `pie_qdisc_enqueue`,
/// `pie_process_dequeue`, `pie_calculate_probability`), transcribed with
/// 128-bit intermediates and explicit reductions modulo 2^64 where the C code
/// relies on `u64` and `s64` wrap-around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxPie {
    /// The newest instant seen.
    pub last: Instant,
    /// When the timer fires next.
    pub next_update: Instant,
    /// `qdelay` (psched ticks).
    pub qdelay: u64,
    /// `qdelay_old`.
    pub qdelay_old: u64,
    /// `burst_time`.
    pub burst_time: u64,
    /// `dq_tstamp` (`u64::MAX` for `DTIME_INVALID`).
    pub dq_tstamp: u64,
    /// `prob`.
    pub prob: u64,
    /// `accu_prob`.
    pub accu_prob: u64,
}

const M64: u128 = 1 << 64;

/// `x mod 2^64` for any signed 128-bit value.
fn wrap(x: i128) -> u64 {
    x.rem_euclid(M64 as i128) as u64
}

/// A `u64` read as C's `s64`.
fn as_s64(x: u64) -> i128 {
    if x >= 1 << 63 {
        i128::from(x) - M64 as i128
    } else {
        i128::from(x)
    }
}

impl LinuxPie {
    /// `pie_vars_init` on zeroed memory; first update one T_UPDATE after `now`.
    #[must_use]
    pub fn new(p: &crate::PieProfile, now: Instant) -> LinuxPie {
        LinuxPie {
            last: now,
            next_update: Instant::from_ticks(wrap(
                i128::from(now.ticks()) + i128::from(p.t_update),
            )),
            qdelay: 0,
            qdelay_old: 0,
            burst_time: p.burst,
            dq_tstamp: u64::MAX,
            prob: 0,
            accu_prob: 0,
        }
    }

    fn clock(&mut self, now: Instant) {
        if now.ticks().wrapping_sub(self.last.ticks()) < 1 << 63 {
            self.last = now;
        }
    }

    /// `pie_qdisc_enqueue`'s decision.
    pub fn enqueue<R: netcond_core::RandomSource>(
        &mut self,
        p: &crate::PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut R,
    ) -> crate::Verdict {
        self.clock(now);
        let max = i128::from(crate::MAX_PROB);
        let v = if qlen >= p.limit {
            crate::Verdict::Drop
        } else {
            // pie_drop_early
            let early = 'early: {
                if self.burst_time > 0 {
                    break 'early false;
                }
                if 2 * i128::from(self.qdelay) < i128::from(p.target) - i128::from(p.target % 2)
                    && i128::from(self.prob) < max / 5
                {
                    break 'early false;
                }
                if i128::from(backlog) < 2 * i128::from(p.mtu) {
                    break 'early false;
                }
                let local = if p.bytemode && pkt.len <= p.mtu {
                    wrap(i128::from(pkt.len) * (i128::from(self.prob) / i128::from(p.mtu)))
                } else {
                    self.prob
                };
                self.accu_prob = if local == 0 {
                    0
                } else {
                    wrap(i128::from(self.accu_prob) + i128::from(local))
                };
                if i128::from(self.accu_prob) < (max / 100) * 85 {
                    break 'early false;
                }
                if i128::from(self.accu_prob) >= (max / 2) * 17 {
                    break 'early true;
                }
                let hi = u64::from(rng.next_u32());
                let lo = u64::from(rng.next_u32());
                let rnd = hi * (1 << 32) + lo;
                if rnd / 256 < local {
                    self.accu_prob = 0;
                    break 'early true;
                }
                false
            };
            if !early {
                crate::Verdict::Deliver
            } else if p.ecn && i128::from(self.prob) <= max / 10 && pkt.ecn_capable {
                crate::Verdict::Mark
            } else {
                crate::Verdict::Drop
            }
        };
        if v == crate::Verdict::Drop {
            self.accu_prob = 0;
        }
        v
    }

    /// `pie_process_dequeue` with timestamps.
    pub fn dequeue(&mut self, p: &crate::PieProfile, now: Instant, head: Head, backlog: u64) {
        self.clock(now);
        let now = p.psched(self.last);
        self.qdelay = wrap(i128::from(now) - i128::from(p.psched(head.enqueued)));
        let mut dtime: u64 = 0;
        if self.dq_tstamp != u64::MAX {
            dtime = wrap(i128::from(now) - i128::from(self.dq_tstamp)) % (1 << 32);
        }
        self.dq_tstamp = now;
        if backlog == 0 {
            self.qdelay = 0;
        }
        if dtime == 0 {
            return;
        }
        if self.burst_time > 0 {
            if self.burst_time > dtime {
                self.burst_time -= dtime;
            } else {
                self.burst_time = 0;
            }
        }
    }

    /// The timer: `pie_calculate_probability` when due, re-armed from now.
    pub fn timer(&mut self, p: &crate::PieProfile, now: Instant, backlog: u64) -> bool {
        self.clock(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= p.t_update {
            return false;
        }
        let max = i128::from(crate::MAX_PROB);
        let qdelay = self.qdelay;
        let qdelay_old = self.qdelay_old;
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let (mut alpha, mut beta) = (i128::from(p.alpha), i128::from(p.beta));
        if i128::from(self.prob) < max / 10 {
            alpha /= 2;
            beta /= 2;
            let mut power = 100;
            while i128::from(self.prob) < max / power && power <= 1_000_000 {
                alpha /= 4;
                beta /= 4;
                power *= 10;
            }
        }
        // u64 products and sums, then read as s64.
        let sum = wrap(
            alpha * i128::from(wrap(i128::from(qdelay) - i128::from(p.target)))
                + beta * i128::from(wrap(i128::from(qdelay) - i128::from(qdelay_old))),
        );
        let mut delta = as_s64(sum);
        let old = self.prob;
        if delta > max / 50 && i128::from(self.prob) >= max / 10 {
            delta = (max / 100) * 2;
        }
        if u128::from(qdelay) * 64 > 250_000_000 + 63 {
            delta = as_s64(wrap(delta + max / 50));
        }
        self.prob = wrap(i128::from(self.prob) + delta);
        if delta > 0 {
            if self.prob < old {
                self.prob = crate::MAX_PROB;
                update_prob = false;
            }
        } else if self.prob > old {
            self.prob = 0;
        }
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            self.prob -= self.prob / 64;
        }
        if p.bound_prob && i128::from(self.prob) > max {
            self.prob = crate::MAX_PROB;
        }
        if 2 * i128::from(qdelay) < i128::from(p.target) - i128::from(p.target % 2)
            && 2 * i128::from(self.qdelay_old) < i128::from(p.target) - i128::from(p.target % 2)
            && self.prob == 0
        {
            self.burst_time = p.burst;
            self.dq_tstamp = u64::MAX;
            self.accu_prob = 0;
        }
        self.qdelay_old = qdelay;
        self.next_update =
            Instant::from_ticks(wrap(i128::from(self.last.ticks()) + i128::from(p.t_update)));
        true
    }
}
