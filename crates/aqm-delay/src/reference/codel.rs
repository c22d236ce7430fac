//! CoDel: RFC 8289's loop form and Linux's / ns-3's.

use super::*;

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
pub(crate) fn ge64(a: u64, b: u64) -> bool {
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
