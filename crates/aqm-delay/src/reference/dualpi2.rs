//! DualPI2: RFC 9332 Appendix A's pseudocode.

use super::*;

/// A FIFO the DualPI2 model pulls packets from and looks into.
pub trait DualFifo {
    /// Removes and returns the head packet.
    fn pop(&mut self) -> Option<crate::DualHead>;
    /// The head packet.
    fn head(&self) -> Option<crate::DualHead>;
    /// Packets queued (`q.len()`).
    fn len(&self) -> usize;
    /// Whether it is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes queued (`q.byt()`).
    fn byt(&self) -> u64;
}

/// RFC 9332 Appendix A's pseudocode (`dualpi2_enqueue`, `dualpi2_dequeue`
/// with Appendix A.2's overload and Th_len lines, `laqm`, `recur`,
/// `dualpi2_update`) in loop form over two FIFOs, in exact integer
/// arithmetic: times in the caller's ticks, `p'` a fraction of 2^32 (the
/// update's exact value rounded down, as the state machine keeps it),
/// likelihoods for `recur()` rounded down to 2^-62, random decisions `u <
/// p` compared exactly with `u = rnd / 2^32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RfcDualPi2 {
    /// The newest instant seen.
    pub last: Instant,
    /// When `dualpi2_update` is due next.
    pub next_update: Instant,
    /// `p'` in units of 2^-32.
    pub p_prime: u64,
    /// `prevq` (ticks).
    pub prevq: u64,
    /// `lq.count` and `cq.count` of `recur()` (units of 2^-62).
    pub lq_count: u64,
    /// See `lq_count`.
    pub cq_count: u64,
    /// The round robin: packets served in the current turn, and whether the
    /// turn is the Classic queue's.
    pub rr: (u16, bool),
}

impl RfcDualPi2 {
    /// `p' = 0`, first update one Tupdate after `now`.
    #[must_use]
    pub fn new(p: &crate::DualPi2Profile, now: Instant) -> RfcDualPi2 {
        RfcDualPi2 {
            last: now,
            next_update: Instant::from_ticks(wrap(
                i128::from(now.ticks()) + i128::from(p.t_update),
            )),
            p_prime: 0,
            prevq: 0,
            lq_count: 0,
            cq_count: 0,
            rr: (0, false),
        }
    }

    fn clock(&mut self, now: Instant) {
        if now.ticks().wrapping_sub(self.last.ticks()) < 1 << 63 {
            self.last = now;
        }
    }

    /// `q.time()`: the queuing time of the head packet, 0 when empty.
    fn time<Q: DualFifo>(&self, q: &Q) -> u64 {
        q.head().map_or(0, |h| self.last.ticks_since(h.enqueued))
    }

    /// `dualpi2_enqueue`: the queue the packet joins, `None` when dropped.
    pub fn enqueue<L: DualFifo, C: DualFifo>(
        &mut self,
        p: &crate::DualPi2Profile,
        now: Instant,
        lq: &L,
        cq: &C,
        ecn: crate::Ecn,
    ) -> Option<crate::DualQueue> {
        self.clock(now);
        // if ( lq.byt() + cq.byt() + MTU > limit) drop(pkt)
        if u128::from(lq.byt()) + u128::from(cq.byt()) + u128::from(p.mtu) > u128::from(p.limit) {
            return None;
        }
        // if ( ecn(pkt) modulo 2 == 1 ) lq.enqueue(pkt) else cq.enqueue(pkt)
        if ecn.bits() % 2 == 1 {
            Some(crate::DualQueue::L4s)
        } else {
            Some(crate::DualQueue::Classic)
        }
    }

    /// `scheduler()`: true for `lq`.
    fn scheduler<L: DualFifo, C: DualFifo>(
        &mut self,
        p: &crate::DualPi2Profile,
        lq: &L,
        cq: &C,
    ) -> bool {
        let pick_l = if lq.is_empty() {
            false
        } else if cq.is_empty() {
            true
        } else if let Some(tshift) = p.tshift {
            // Time-shifted FIFO: the older of l and c + tshift, l on a tie.
            let l = i128::from(lq.head().map_or(0, |h| h.enqueued.ticks()));
            let c = i128::from(cq.head().map_or(0, |h| h.enqueued.ticks()));
            // On serial ticks: (l - (c + tshift)) mod 2^64 in [1, 2^63).
            let d = wrap(l - c - i128::from(tshift));
            !(d > 0 && d < 1 << 63)
        } else {
            !self.rr.1
        };
        if p.tshift.is_none() {
            let classic = !pick_l;
            if classic != self.rr.1 {
                self.rr = (0, classic);
            }
            self.rr.0 = self.rr.0.saturating_add(1);
            let quota = if classic { p.wrr.1 } else { p.wrr.0 };
            if self.rr.0 >= quota {
                self.rr = (0, !classic);
            }
        }
        pick_l
    }

    /// `recur(q, likelihood)`, likelihood in units of 2^-62.
    fn recur(count: &mut u64, likelihood: u128) -> bool {
        // q.count += likelihood
        *count = count.saturating_add(likelihood.min(1 << 62) as u64);
        // if (q.count > 1) { q.count -= 1; return TRUE }
        if *count > 1 << 62 {
            *count -= 1 << 62;
            return true;
        }
        false
    }

    /// `laqm(qdelay)` in units of 2^-62, rounded down.
    fn laqm(p: &crate::DualPi2Profile, qdelay: u64) -> u128 {
        let (q, min_th, range) = (
            u128::from(qdelay),
            u128::from(p.min_th),
            u128::from(p.range),
        );
        // maxTh = minTh + range
        if q >= min_th + range {
            1 << 62
        } else if q > min_th {
            ((q - min_th) << 62) / range
        } else {
            0
        }
    }

    /// `p > rand()` with `rand() = rnd / 2^32` and `p = num / den`.
    fn rand_below<R: netcond_core::RandomSource>(rng: &mut R, num: u128, den: u128) -> bool {
        let rnd = u128::from(rng.next_u32());
        rnd * den < num << 32
    }

    /// One call of `dualpi2_dequeue`: the packet sent, its queue and whether
    /// it was marked, after calling `drop` on each packet dropped on the way.
    #[allow(clippy::too_many_lines)]
    pub fn dequeue<L: DualFifo, C: DualFifo, R: netcond_core::RandomSource, D>(
        &mut self,
        p: &crate::DualPi2Profile,
        now: Instant,
        lq: &mut L,
        cq: &mut C,
        rng: &mut R,
        mut drop: D,
    ) -> Option<(crate::DualQueue, crate::DualHead, bool)>
    where
        D: FnMut(crate::DualQueue, crate::DualHead),
    {
        use crate::{DualDecision, DualQueue};
        self.clock(now);
        let one32 = 1u128 << 32;
        let pp = u128::from(self.p_prime);
        let k16 = u128::from(p.k16);
        // p_CL = k p' (as num / den), p_C = p'^2.
        let (p_cl_num, p_cl_den) = ((k16 * pp).min(16 * one32), 16 * one32);
        let (p_c_num, p_c_den) = (pp * pp, one32 * one32);
        // p_Cmax = min(1 / k^2, 1): p_C >= p_Cmax.
        let overload_c = if k16 >= 16 {
            p_c_num * k16 * k16 >= p_c_den * 256
        } else {
            p_c_num >= p_c_den
        };
        let to62 = |num: u128, den: u128| (num << 62) / den;
        // while ( lq.byt() + cq.byt() > 0 )
        while !lq.is_empty() || !cq.is_empty() {
            if self.scheduler(p, lq, cq) {
                // lq.dequeue(pkt)
                let pkt = lq.pop()?;
                let sojourn = self.last.ticks_since(pkt.enqueued);
                // if ( p_CL < p_Lmax )
                if p_cl_num < p_cl_den {
                    // if (lq.len() > Th_len) p'_L = laqm(lq.time()) else p'_L = 0
                    let native = lq.len() > p.th_len as usize;
                    // p_L = max(p'_L, p_CL); if ( recur(lq, p_L) ) mark(pkt)
                    let mark = match p.decision {
                        DualDecision::Recur => {
                            let p_l = if native { Self::laqm(p, sojourn) } else { 0 }
                                .max(to62(p_cl_num, p_cl_den));
                            Self::recur(&mut self.lq_count, p_l)
                        }
                        DualDecision::Random { .. } => {
                            let rnd = u128::from(rng.next_u32());
                            let (q, lo, r) = (
                                u128::from(sojourn),
                                u128::from(p.min_th),
                                u128::from(p.range),
                            );
                            let native_hit =
                                native && (q >= lo + r || (q > lo && rnd * r < (q - lo) << 32));
                            native_hit || rnd * p_cl_den < p_cl_num << 32
                        }
                    };
                    return Some((DualQueue::L4s, pkt, mark));
                }
                // overload saturation
                let (dropped, mark) = match p.decision {
                    DualDecision::Recur => {
                        // if ( recur(lq, p_C) ) { drop(pkt); continue }
                        if Self::recur(&mut self.lq_count, to62(p_c_num, p_c_den)) {
                            (true, false)
                        } else {
                            // if ( recur(lq, p_CL) ) mark(pkt)
                            (
                                false,
                                Self::recur(&mut self.lq_count, to62(p_cl_num, p_cl_den)),
                            )
                        }
                    }
                    DualDecision::Random { two_draws } => {
                        if self.classic_rand(two_draws, rng) {
                            (true, false)
                        } else {
                            (false, Self::rand_below(rng, p_cl_num, p_cl_den))
                        }
                    }
                };
                if dropped {
                    drop(DualQueue::L4s, pkt);
                    continue;
                }
                return Some((DualQueue::L4s, pkt, mark));
            }
            // cq.dequeue(pkt)
            let pkt = cq.pop()?;
            // if ( recur(cq, p_C) )   (or p_C > rand())
            let hit = match p.decision {
                DualDecision::Recur => Self::recur(&mut self.cq_count, to62(p_c_num, p_c_den)),
                DualDecision::Random { two_draws } => self.classic_rand(two_draws, rng),
            };
            if hit {
                // if ( (ecn(pkt) == 0) OR (p_C >= p_Cmax) ) { drop(pkt); continue }
                if pkt.ecn.bits() == 0 || overload_c {
                    drop(DualQueue::Classic, pkt);
                    continue;
                }
                // mark(pkt)
                return Some((DualQueue::Classic, pkt, true));
            }
            return Some((DualQueue::Classic, pkt, false));
        }
        None
    }

    /// `p_C > rand()`: `p' > max(rand(), rand())`, or `p'^2 > rand()`.
    fn classic_rand<R: netcond_core::RandomSource>(&self, two_draws: bool, rng: &mut R) -> bool {
        let pp = u128::from(self.p_prime);
        if two_draws {
            let a = u128::from(rng.next_u32());
            let b = u128::from(rng.next_u32());
            a.max(b) < pp
        } else {
            Self::rand_below(rng, pp * pp, 1 << 64)
        }
    }

    /// The timer: `dualpi2_update` when due, re-armed from now.
    pub fn update<L: DualFifo, C: DualFifo>(
        &mut self,
        p: &crate::DualPi2Profile,
        now: Instant,
        lq: &L,
        cq: &C,
    ) -> bool {
        self.clock(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= p.t_update {
            return false;
        }
        // curq = max(cq.time(), lq.time())   (Appendix A.1: cq.time())
        let curq = if p.curq_max {
            self.time(cq).max(self.time(lq))
        } else {
            self.time(cq)
        };
        // p' = p' + alpha (curq - target) + beta (curq - prevq), as
        // P = A / (1000 hz 2^32), gains in mHz, times in ticks.
        let hz = i128::from(p.hz);
        let a = i128::from(self.p_prime) * 1000 * hz
            + ((i128::from(p.alpha_mhz) * (i128::from(curq) - i128::from(p.target))
                + i128::from(p.beta_mhz) * (i128::from(curq) - i128::from(self.prevq)))
                << 32);
        // Bound p' to [0, 1], then keep it in units of 2^-32, rounded down.
        let b = 1000 * hz * (1 << 32);
        self.p_prime = if a <= 0 {
            0
        } else if a >= b {
            1 << 32
        } else {
            (a / (1000 * hz)) as u64
        };
        // prevq = curq
        self.prevq = curq;
        self.next_update =
            Instant::from_ticks(wrap(i128::from(self.last.ticks()) + i128::from(p.t_update)));
        true
    }
}
