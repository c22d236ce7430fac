//! DualPI2 (RFC 9332): the DualQ Coupled AQM with a PI2 base controller, an
//! L4S queue with a native ramp (or step) and a Classic queue with the squared
//! probability, on the caller's two FIFOs.

use core::time::Duration;

use netcond_core::{Instant, RandomSource, TickRate};

use crate::{DelayError, Verdict};

mod profile;
pub use profile::*;

/// Probability one for the base probability `p'`: 2^32 (`p'` is kept in
/// units of 2^-32, from 0 to 2^32 inclusive).
pub const P_ONE: u64 = 1 << 32;

/// The unit of the `recur()` accumulators: 2^-62 (a likelihood of one is
/// 2^62; an accumulator stays below 2).
pub const RECUR_ONE: u64 = 1 << 62;

/// The ECN field of a packet (RFC 3168 section 5, RFC 9331's L4S identifier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Ecn {
    /// Not-ECT (`00`).
    #[default]
    NotEct,
    /// ECT(1) (`01`): the L4S identifier.
    Ect1,
    /// ECT(0) (`10`): Classic ECN.
    Ect0,
    /// CE (`11`).
    Ce,
}

impl Ecn {
    /// The codepoint of the two ECN bits (the low two bits of `bits`).
    #[must_use]
    pub const fn from_bits(bits: u8) -> Ecn {
        match bits & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// The two ECN bits.
    #[must_use]
    pub const fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        }
    }

    /// RFC 9332's classifier (Appendix A, `dualpi2_enqueue`: `ecn(pkt) modulo
    /// 2 == 1`): ECT(1) and CE go to the L4S queue, Not-ECT and ECT(0) to the
    /// Classic queue.
    #[must_use]
    pub const fn queue(self) -> DualQueue {
        if self.bits() % 2 == 1 {
            DualQueue::L4s
        } else {
            DualQueue::Classic
        }
    }
}

/// One of the two queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DualQueue {
    /// The L4S (low latency) queue, `lq`.
    L4s,
    /// The Classic queue, `cq`.
    Classic,
}

/// How the scheduler chooses between the two queues' heads (RFC 9332 section
/// 4.1 and Appendix A's `scheduler()`, whose parameter the RFC's pseudocode
/// leaves out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DualScheduler {
    /// Time-shifted FIFO: the L4S head goes first unless the Classic head has
    /// waited more than `tshift` longer (its enqueue instant plus `tshift` is
    /// before the L4S head's).
    TimeShifted {
        /// The time shift.
        tshift: Duration,
    },
    /// Weighted round robin in packets: with both queues backlogged, `l4s`
    /// L4S packets, then `classic` Classic packets.
    WeightedRoundRobin {
        /// L4S packets per round.
        l4s: u16,
        /// Classic packets per round.
        classic: u16,
    },
}

/// How a probability becomes a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DualDecision {
    /// Random draws from the caller's source (one `u32` is `u = rnd / 2^32`;
    /// a decision with probability `p` is `u < p`, compared exactly). The
    /// Classic probability `p' ^ 2` is applied as two draws, `max(u1, u2) <
    /// p'` ("think twice to drop"; RFC 9332 section 2.5.2), or as one draw
    /// against the square.
    Random {
        /// `max(u1, u2) < p'` (true) or `u < p'^2` (false).
        two_draws: bool,
    },
    /// RFC 9332 Appendix A.2's deterministic `recur()`: an accumulator per
    /// queue gains the likelihood and signals each time it passes one (in
    /// units of 2^-62, likelihoods rounded down to that unit).
    Recur,
}

/// A packet at the head of one of the two queues, as DualPI2 needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DualHead {
    /// When it was enqueued (the RFC's `timestamp(pkt)`).
    pub enqueued: Instant,
    /// Its length in bytes.
    pub len: u32,
    /// Its ECN field.
    pub ecn: Ecn,
}

impl DualHead {
    /// A packet enqueued at `enqueued`.
    #[must_use]
    pub const fn new(enqueued: Instant, len: u32, ecn: Ecn) -> DualHead {
        DualHead { enqueued, len, ecn }
    }
}

/// The state of a DualPI2 queue pair (the base probability, the PI update's
/// timer and previous delay, the `recur()` accumulators and the scheduler's
/// round), 56 bytes. The packets stay in the caller's two FIFOs.
///
/// Per arrival, [`on_arrival`](Self::on_arrival) says which queue takes it
/// (or that the shared buffer is full). To send, [`schedule`](Self::schedule)
/// says which queue's head to take given both heads' enqueue instants;
/// [`on_dequeue`](Self::on_dequeue) then decides deliver, mark or drop; after
/// a drop the caller schedules again at the same instant. [`poll`](Self::poll)
/// runs the PI update every Tupdate.
///
/// ```
/// use aqm_delay::{DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, Ecn, Verdict};
/// use netcond_core::{Instant, SplitMix64};
/// use std::collections::VecDeque;
///
/// let p = DualPi2Profile::new(&DualPi2Config::rfc9332()).unwrap();
/// let mut aqm = DualPi2::new(&p, Instant::ZERO);
/// let mut rng = SplitMix64::new(7);
/// let (mut lq, mut cq) = (VecDeque::new(), VecDeque::new());
/// let (mut l_marks, mut c_signals, mut sent) = (0u32, 0u32, 0u32);
/// // 100 Mb/s link (120 us per 1500 bytes); an L4S and a Classic sender each
/// // offering 60 Mb/s for 5 s.
/// for us in (0..5_000_000u64).step_by(10) {
///     let now = Instant::from_ticks(us * 1_000);
///     let heads = |lq: &VecDeque<DualHead>, cq: &VecDeque<DualHead>| {
///         (lq.front().map(|h: &DualHead| h.enqueued), cq.front().map(|h: &DualHead| h.enqueued))
///     };
///     let (l, c) = heads(&lq, &cq);
///     aqm.poll(&p, now, l, c);
///     if us % 200 == 0 {
///         for ecn in [Ecn::Ect1, Ecn::NotEct] {
///             let bytes: u64 = lq.iter().chain(cq.iter()).map(|h: &DualHead| u64::from(h.len)).sum();
///             match aqm.on_arrival(&p, now, ecn, 1500, bytes) {
///                 Some(DualQueue::L4s) => lq.push_back(DualHead::new(now, 1500, ecn)),
///                 Some(DualQueue::Classic) => cq.push_back(DualHead::new(now, 1500, ecn)),
///                 None => {}
///             }
///         }
///     }
///     if us % 120 == 0 {
///         loop {
///             let (l, c) = heads(&lq, &cq);
///             let Some(q) = aqm.schedule(&p, now, l, c) else { break };
///             let fifo = if q == DualQueue::L4s { &mut lq } else { &mut cq };
///             let h = fifo.pop_front().unwrap();
///             let left = fifo.len() as u32;
///             match aqm.on_dequeue(&p, now, q, h, left, &mut rng) {
///                 Verdict::Drop => c_signals += 1,
///                 v => {
///                     sent += 1;
///                     if v == Verdict::Mark {
///                         if q == DualQueue::L4s { l_marks += 1 } else { c_signals += 1 }
///                     }
///                     break;
///                 }
///             }
///         }
///     }
/// }
/// // The link stays busy, the L4S flow sees marks, the Classic flow drops.
/// assert!(sent > 40_000 && l_marks > 1_000 && c_signals > 1_000, "{sent} {l_marks} {c_signals}");
/// assert!(aqm.p_prime() > 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DualPi2 {
    last: Instant,
    next_update: Instant,
    p_prime: u64,
    prevq: u64,
    l_count: u64,
    c_count: u64,
    /// Packets served in the current WRR turn, and whose turn it is.
    wrr_served: u16,
    wrr_classic_turn: bool,
}

impl DualPi2 {
    /// A queue pair at `now`: `p' = 0`, the first update one Tupdate later.
    #[must_use]
    pub fn new(profile: &DualPi2Profile, now: Instant) -> DualPi2 {
        DualPi2 {
            last: now,
            next_update: now.wrapping_add(profile.t_update),
            p_prime: 0,
            prevq: 0,
            l_count: 0,
            c_count: 0,
            wrr_served: 0,
            wrr_classic_turn: false,
        }
    }

    /// The base probability `p'` in units of 2^-32 ([`P_ONE`] is one).
    #[must_use]
    pub const fn p_prime(&self) -> u64 {
        self.p_prime
    }

    /// The queue delay of the previous update (`prevq`), in ticks.
    #[must_use]
    pub const fn prevq(&self) -> u64 {
        self.prevq
    }

    /// The `recur()` accumulators of the L4S and Classic queues (units of
    /// 2^-62).
    #[must_use]
    pub const fn counts(&self) -> (u64, u64) {
        (self.l_count, self.c_count)
    }

    /// When the next update is due.
    #[must_use]
    pub const fn next_update(&self) -> Instant {
        self.next_update
    }

    /// The newest instant seen.
    #[must_use]
    pub const fn last_seen(&self) -> Instant {
        self.last
    }

    /// The WRR scheduler's position: packets served in this turn, and whether
    /// it is the Classic queue's turn.
    #[must_use]
    pub const fn wrr_position(&self) -> (u16, bool) {
        (self.wrr_served, self.wrr_classic_turn)
    }

    /// The coupled L4S probability `p_CL = min(k p', 1)`, in units of 2^-32.
    #[must_use]
    pub fn p_cl(&self, profile: &DualPi2Profile) -> u64 {
        (u128::from(profile.k16) * u128::from(self.p_prime) / 16).min(u128::from(P_ONE)) as u64
    }

    /// The Classic probability `p_C = p'^2`, in units of 2^-64 (saturating at
    /// `u64::MAX` when `p' = 1`).
    #[must_use]
    pub fn p_c(&self) -> u64 {
        u64::try_from(u128::from(self.p_prime) * u128::from(self.p_prime)).unwrap_or(u64::MAX)
    }

    /// `p_C` in units of 2^-62 (the `recur()` unit), rounded down.
    fn p_c_recur(&self) -> u64 {
        ((u128::from(self.p_prime) * u128::from(self.p_prime)) >> 2) as u64
    }

    /// Whether the Classic probability is at or above `p_Cmax = min(1 / k^2,
    /// 1)` (RFC 9332 section 4.2.3: overload; Classic ECN then drops).
    #[must_use]
    pub fn classic_overloaded(&self, profile: &DualPi2Profile) -> bool {
        let pp = u128::from(self.p_prime) * u128::from(self.p_prime);
        let k2 = u128::from(profile.k16) * u128::from(profile.k16);
        if k2 >= 256 {
            // p'^2 >= 1 / k^2  <=>  p'^2 k16^2 >= 2^64 * 256.
            pp * k2 >= (1u128 << 64) * 256
        } else {
            self.p_prime >= P_ONE
        }
    }

    /// Whether `p_CL` has reached `p_Lmax = 1` (the L4S queue's overload
    /// saturation, RFC 9332 Appendix A.2).
    #[must_use]
    pub fn l4s_saturated(&self, profile: &DualPi2Profile) -> bool {
        u128::from(profile.k16) * u128::from(self.p_prime) >= 16 * u128::from(P_ONE)
    }

    /// The decision for an arriving packet with the ECN field `ecn` and `len`
    /// bytes, with `backlog` bytes in both queues before it: `None` when the
    /// shared buffer cannot take one more MTU (`lq.byt() + cq.byt() + MTU >
    /// limit`), else the queue to append it to (RFC 9332's classifier).
    pub fn on_arrival(
        &mut self,
        profile: &DualPi2Profile,
        now: Instant,
        ecn: Ecn,
        len: u32,
        backlog: u64,
    ) -> Option<DualQueue> {
        let _ = len;
        self.last.advance_to(now);
        if u128::from(backlog) + u128::from(profile.mtu) > u128::from(profile.limit) {
            return None;
        }
        Some(ecn.queue())
    }

    /// The queue for an arriving packet: the old name of
    /// [`on_arrival`](Self::on_arrival).
    #[deprecated(since = "0.1.0", note = "renamed to `on_arrival`")]
    #[inline]
    pub fn on_enqueue(
        &mut self,
        profile: &DualPi2Profile,
        now: Instant,
        ecn: Ecn,
        len: u32,
        backlog: u64,
    ) -> Option<DualQueue> {
        self.on_arrival(profile, now, ecn, len, backlog)
    }

    /// Which queue to take the next packet from, given the enqueue instants
    /// of the two heads (`None` for an empty queue); `None` when both are
    /// empty. The time-shifted FIFO serves the L4S head unless the Classic
    /// head's instant plus `tshift` is earlier; the weighted round robin
    /// serves its weights in turn, skipping an empty queue. A scheduled
    /// packet counts for the round robin when it is taken ([`on_dequeue`]).
    ///
    /// [`on_dequeue`]: Self::on_dequeue
    pub fn schedule(
        &mut self,
        profile: &DualPi2Profile,
        now: Instant,
        l_head: Option<Instant>,
        c_head: Option<Instant>,
    ) -> Option<DualQueue> {
        self.last.advance_to(now);
        match (l_head, c_head) {
            (None, None) => None,
            (Some(_), None) => Some(DualQueue::L4s),
            (None, Some(_)) => Some(DualQueue::Classic),
            (Some(l), Some(c)) => Some(match profile.tshift {
                Some(shift) => {
                    // c + tshift < l, on serial ticks.
                    let shifted = c.wrapping_add(shift);
                    if l.ticks_since(shifted) > 0 {
                        DualQueue::Classic
                    } else {
                        DualQueue::L4s
                    }
                }
                None => {
                    if self.wrr_classic_turn {
                        DualQueue::Classic
                    } else {
                        DualQueue::L4s
                    }
                }
            }),
        }
    }

    /// Counts a packet taken from `q` for the round robin.
    fn served(&mut self, profile: &DualPi2Profile, q: DualQueue) {
        if profile.tshift.is_some() {
            return;
        }
        let classic = q == DualQueue::Classic;
        if classic != self.wrr_classic_turn {
            // The other queue was empty: its turn is lost, this one starts.
            self.wrr_classic_turn = classic;
            self.wrr_served = 0;
        }
        self.wrr_served = self.wrr_served.saturating_add(1);
        let quota = if classic {
            profile.wrr.1
        } else {
            profile.wrr.0
        };
        if self.wrr_served >= quota {
            self.wrr_classic_turn = !classic;
            self.wrr_served = 0;
        }
    }

    /// `recur(q, likelihood)` on the accumulator `count`, likelihood in
    /// units of 2^-62.
    fn recur(count: &mut u64, likelihood: u64) -> bool {
        *count = count.saturating_add(likelihood.min(RECUR_ONE));
        if *count > RECUR_ONE {
            *count -= RECUR_ONE;
            return true;
        }
        false
    }

    /// The native L4S probability `laqm(qdelay)` (RFC 9332 Appendix A.2's
    /// ramp: 1 from `minTh + range`, `(qdelay - minTh) / range` above minTh,
    /// 0 below), in units of 2^-62, rounded down.
    #[must_use]
    pub fn laqm(profile: &DualPi2Profile, qdelay: u64) -> u64 {
        let max_th = u128::from(profile.min_th) + u128::from(profile.range);
        let q = u128::from(qdelay);
        if q >= max_th {
            RECUR_ONE
        } else if qdelay > profile.min_th {
            ((q - u128::from(profile.min_th)) * u128::from(RECUR_ONE) / u128::from(profile.range))
                as u64
        } else {
            0
        }
    }

    /// The decision for the packet `head` just taken from queue `q`, with
    /// `left` packets still in that queue (RFC 9332 Appendix A.2's
    /// `dualpi2_dequeue`).
    ///
    /// L4S (while `p_CL < 1`): the native probability `laqm` of the packet's
    /// sojourn time (0 with at most Th_len packets left), combined as
    /// `p_L = max(laqm, p_CL)`, marks. At `p_CL = 1` (overload saturation) the
    /// L4S queue drops with `p_C` and marks the rest with `p_CL`. Classic:
    /// with probability `p_C = p'^2`, a Not-ECT packet, or any packet while
    /// `p_C >= p_Cmax`, is dropped, another is marked.
    ///
    /// Random draws (`u32` each, from `rng`): the L4S queue draws one
    /// (`u < laqm` or `u < p_CL`, as `u < max(...)`; overload: one for the
    /// drop, one for the mark); the Classic queue two (`max(u1, u2) < p'`)
    /// or one (`u < p'^2`). With `recur()` no draw is taken.
    pub fn on_dequeue<R: RandomSource>(
        &mut self,
        profile: &DualPi2Profile,
        now: Instant,
        q: DualQueue,
        head: DualHead,
        left: u32,
        rng: &mut R,
    ) -> Verdict {
        self.last.advance_to(now);
        self.served(profile, q);
        let p_cl = self.p_cl(profile);
        let p_c = self.p_c_recur();
        // p_CL in units of 2^-62: k16 p' 2^26, at most one.
        let p_cl62 = ((u128::from(profile.k16) * u128::from(self.p_prime)) << 26)
            .min(u128::from(RECUR_ONE)) as u64;
        match q {
            DualQueue::L4s => {
                if !self.l4s_saturated(profile) {
                    let mark = match profile.decision {
                        DualDecision::Recur => {
                            let native = if left > profile.th_len {
                                Self::laqm(profile, self.last.ticks_since(head.enqueued))
                            } else {
                                0
                            };
                            let p_l = native.max(p_cl62);
                            Self::recur(&mut self.l_count, p_l)
                        }
                        DualDecision::Random { .. } => {
                            let u = u128::from(rng.next_u32());
                            // u / 2^32 < max(laqm, p_CL), compared exactly.
                            let native = left > profile.th_len
                                && ramp_above(profile, self.last.ticks_since(head.enqueued), u);
                            // u < k p', exactly: 16 u < k16 p'.
                            native || 16 * u < u128::from(profile.k16) * u128::from(self.p_prime)
                        }
                    };
                    if mark {
                        Verdict::Mark
                    } else {
                        Verdict::Deliver
                    }
                } else {
                    let (drop, mark) = match profile.decision {
                        DualDecision::Recur => {
                            let drop = Self::recur(&mut self.l_count, p_c);
                            let mark = !drop && Self::recur(&mut self.l_count, p_cl62);
                            (drop, mark)
                        }
                        DualDecision::Random { two_draws } => {
                            let drop = self.classic_draw(two_draws, rng);
                            let mark = !drop && u128::from(rng.next_u32()) < u128::from(p_cl);
                            (drop, mark)
                        }
                    };
                    if drop {
                        Verdict::Drop
                    } else if mark {
                        Verdict::Mark
                    } else {
                        Verdict::Deliver
                    }
                }
            }
            DualQueue::Classic => {
                let hit = match profile.decision {
                    DualDecision::Recur => Self::recur(&mut self.c_count, p_c),
                    DualDecision::Random { two_draws } => self.classic_draw(two_draws, rng),
                };
                if !hit {
                    Verdict::Deliver
                } else if head.ecn == Ecn::NotEct || self.classic_overloaded(profile) {
                    Verdict::Drop
                } else {
                    Verdict::Mark
                }
            }
        }
    }

    /// Sets `p'` (tests only).
    #[cfg(test)]
    pub(crate) fn set_p_prime_for_tests(&mut self, p: u64) {
        self.p_prime = p;
    }

    /// `p_C` as a random decision: `max(u1, u2) < p'` or `u < p'^2`.
    fn classic_draw<R: RandomSource>(&self, two_draws: bool, rng: &mut R) -> bool {
        let p = u128::from(self.p_prime);
        if two_draws {
            let u1 = u128::from(rng.next_u32());
            let u2 = u128::from(rng.next_u32());
            u1.max(u2) < p
        } else {
            // u / 2^32 < p'^2 / 2^64.
            (u128::from(rng.next_u32()) << 32) < p * p
        }
    }

    /// Runs the PI update (`dualpi2_update`) if it is due (one Tupdate after
    /// the previous one, or after the start), with the enqueue instants of the
    /// two heads; the next is then due one Tupdate after `now`. Returns
    /// whether it ran.
    ///
    /// `curq` is the queuing time of the Classic head (`cq.time()`), or the
    /// larger of both heads' (`curq_max`), 0 for an empty queue; then
    /// `p' += alpha (curq - target) + beta (curq - prevq)` with the gains in
    /// hertz and the times in seconds, rounded down to 2^-32 and bounded to
    /// [0, 1], and `prevq = curq`.
    pub fn poll(
        &mut self,
        profile: &DualPi2Profile,
        now: Instant,
        l_head: Option<Instant>,
        c_head: Option<Instant>,
    ) -> bool {
        self.last.advance_to(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= profile.t_update {
            return false;
        }
        let time = |h: Option<Instant>| h.map_or(0, |t| self.last.ticks_since(t));
        let curq = if profile.curq_max {
            time(c_head).max(time(l_head))
        } else {
            time(c_head)
        };
        self.p_prime = pi2_update(profile, self.p_prime, curq, self.prevq);
        self.prevq = curq;
        self.next_update = self.last.wrapping_add(profile.t_update);
        true
    }
}

/// `u / 2^32 < laqm(qdelay)`, exactly: 1 from `minTh + range`, `(qdelay -
/// minTh) / range` above minTh, 0 below.
fn ramp_above(profile: &DualPi2Profile, qdelay: u64, u: u128) -> bool {
    let q = u128::from(qdelay);
    if q >= u128::from(profile.min_th) + u128::from(profile.range) {
        return true;
    }
    qdelay > profile.min_th
        && u * u128::from(profile.range) < (q - u128::from(profile.min_th)) << 32
}

/// One PI update of `p'` (units of 2^-32) with `curq` and `prevq` in ticks:
/// `p' + alpha (curq - target) + beta (curq - prevq)`, the gains in
/// millihertz over the clock's hertz, exactly as a fraction, rounded down,
/// bounded to [0, [`P_ONE`]].
#[must_use]
pub fn pi2_update(profile: &DualPi2Profile, p_prime: u64, curq: u64, prevq: u64) -> u64 {
    let e = |g: u32, b: u64| i128::from(g) * (i128::from(curq) - i128::from(b));
    // |.| < 2^20 * 2^65 * 2 * 2^32 = 2^118.
    let n = (e(profile.alpha_mhz, profile.target) + e(profile.beta_mhz, prevq)) << 32;
    let d = 1000 * i128::from(profile.hz);
    let v = i128::from(p_prime) + n.div_euclid(d);
    v.clamp(0, i128::from(P_ONE)) as u64
}
