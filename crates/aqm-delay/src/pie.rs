//! PIE (RFC 8033) under two named laws ([`PieLaw`]): the integer arithmetic
//! of Linux's `sch_pie` (`net/sched/sch_pie.c`, `include/net/pie.h`), queue
//! delay from per-packet timestamps, and RFC 8033's own rules (sections 4.1 to
//! 4.4, 5.1, 5.2, 5.4 and 5.5) in exact integer arithmetic on the caller's
//! ticks, with either of the RFC's delay estimators ([`PieEstimator`]).

use core::time::Duration;

use netcond_core::{Instant, RandomSource, TickRate};

use crate::{DelayError, Head, Verdict};

mod profile;
pub use profile::*;

/// Probability one: Linux's `MAX_PROB`, `2^56 - 1`.
pub const MAX_PROB: u64 = u64::MAX >> 8;

/// Linux's psched clock: one tick is 2^6 ns (`PSCHED_SHIFT`).
pub const PSCHED_SHIFT: u32 = 6;

/// psched ticks per second (`PSCHED_TICKS_PER_SEC`, 10^9 >> 6).
const PSCHED_PER_SEC: u64 = 1_000_000_000 >> PSCHED_SHIFT;

/// `DTIME_INVALID`: no dequeue timestamp yet.
const DTIME_INVALID: u64 = u64::MAX;

/// 250 ms in psched ticks: above it Linux adds 2 % per update.
const NONLINEAR_QDELAY: u64 = 250_000_000 >> PSCHED_SHIFT;

/// RFC 8033 section 5.2's DQ_THRESHOLD: a departure-rate measurement cycle
/// starts with at least this many bytes queued and ends after this many bytes
/// have left (2^14, 16 KB, a power of two as the RFC asks).
pub const DQ_THRESHOLD: u64 = 1 << 14;

/// The auto-tuning table of RFC 8033 section 4.2: while the drop probability
/// is below `bound / den`, the step is divided by `div` (the first row that
/// applies). At 10 % and above the step is not divided.
pub const RFC8033_SCALING: [(u64, u64); 6] = [
    // (den: probability below 1/den, div)
    (1_000_000, 2048),
    (100_000, 512),
    (10_000, 128),
    (1_000, 32),
    (100, 8),
    (10, 2),
];

/// Which rules a [`Pie`] follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PieLaw {
    /// Linux `sch_pie`'s integer code: probability in units of 2^-56, time in
    /// psched ticks of 64 ns, the burst allowance spent between departures,
    /// the 250 ms boost, decay by 1/64, no bound unless
    /// [`PieConfig::bound_prob`].
    #[default]
    Linux,
    /// RFC 8033 as written: the work-conserving bypass on the previous delay
    /// sample and `2 * MEAN_PKTSIZE` (section 4.1), the update with the
    /// section 4.2 scaling table, the 2 % cap from 10 % (section 5.5), decay by
    /// 0.98 when both samples are 0 and the bound to [0, 1] (section 4.2), the
    /// burst allowance spent by T_UPDATE per update and restored at arrival
    /// (section 4.4), marking below `mark_ecnth` (section 5.1), the optional
    /// derandomization (section 5.4). Time on the caller's ticks, probability
    /// in units of `1 / MAX_PROB`, every comparison exact; the update rounds
    /// down (see [`Pie::poll`]).
    Rfc8033,
}

/// How the RFC law estimates the queue delay (RFC 8033 section 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PieEstimator {
    /// From timestamps: the sojourn time of the packet that left last (0 once
    /// the queue is empty).
    #[default]
    Timestamp,
    /// From the departure rate (section 5.2, Little's law):
    /// `byte_length * avg_dq_time / DQ_THRESHOLD` at each update, with
    /// `avg_dq_time` the time [`DQ_THRESHOLD`] bytes took to leave, averaged
    /// with weight `DQ_THRESHOLD / 2^16` (1/4).
    DepartureRate,
}

/// The state of one PIE queue (`struct pie_vars`, plus the update timer and
/// the last instant seen, and RFC 8033 section 5.2's departure-rate
/// measurement), 96 bytes.
///
/// Call [`on_arrival`](Self::on_arrival) for each arrival (it decides drop,
/// mark or enqueue), [`on_dequeue`](Self::on_dequeue) for each departure (it
/// measures the queue delay from the packet's timestamp), and
/// [`poll`](Self::poll) on every event or from a timer: it runs the drop
/// probability update once T_UPDATE has passed since the last one (Linux's
/// timer).
///
/// ```
/// use aqm_delay::{Head, Pie, PieConfig, PieProfile, Verdict};
/// use netcond_core::{Instant, SplitMix64};
///
/// let p = PieProfile::new(&PieConfig::linux()).unwrap();
/// let mut pie = Pie::new(&p, Instant::ZERO);
/// let mut rng = SplitMix64::new(1);
/// let ms = |m: u64| Instant::from_ticks(m * 1_000_000);
/// let mut drops = 0;
/// // A standing queue of 100 ms: packets leave after 100 ms, 150 kB queued.
/// for t in 0..3_000u64 {
///     pie.poll(&p, ms(t), 150_000);
///     pie.on_dequeue(&p, ms(t), Head::new(ms(t.saturating_sub(100)), 1500, false), 150_000);
///     if pie.on_arrival(&p, ms(t), Head::new(ms(t), 1500, false), 100, 150_000, &mut rng) == Verdict::Drop {
///         drops += 1;
///     }
/// }
/// // No drop during the 150 ms burst allowance; then the probability climbs.
/// assert!(pie.prob() > 0 && drops > 100, "{drops}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pie {
    last: Instant,
    next_update: Instant,
    qdelay: u64,
    qdelay_old: u64,
    burst_time: u64,
    dq_tstamp: u64,
    prob: u64,
    accu_prob: u64,
    /// RFC 8033 section 5.2's `in_measurement_`, `dq_count_`,
    /// `measurement_start_` and `avg_dq_time_` (ticks), for
    /// [`PieEstimator::DepartureRate`].
    in_measurement: bool,
    dq_count: u64,
    measurement_start: u64,
    avg_dq_time: u64,
}

impl Pie {
    /// A queue at `now` with Linux's initial variables (`pie_vars_init` on
    /// zeroed memory: the full burst allowance, probability 0); the first
    /// update is due one T_UPDATE after `now`.
    #[must_use]
    pub fn new(profile: &PieProfile, now: Instant) -> Pie {
        Pie {
            last: now,
            next_update: now.wrapping_add(profile.t_update),
            qdelay: 0,
            qdelay_old: 0,
            burst_time: match profile.law {
                PieLaw::Linux => profile.burst,
                PieLaw::Rfc8033 => profile.burst_ticks,
            },
            dq_tstamp: DTIME_INVALID,
            prob: 0,
            accu_prob: 0,
            in_measurement: false,
            dq_count: 0,
            measurement_start: 0,
            avg_dq_time: 0,
        }
    }

    /// The departure-rate estimator's average time for [`DQ_THRESHOLD`] bytes
    /// to leave, in ticks (RFC 8033 section 5.2's `avg_dq_time_`; 0 before the
    /// first measurement).
    #[must_use]
    pub const fn avg_dq_time(&self) -> u64 {
        self.avg_dq_time
    }

    /// Whether a departure-rate measurement cycle is running (`in_measurement_`).
    #[must_use]
    pub const fn in_measurement(&self) -> bool {
        self.in_measurement
    }

    /// The bytes counted in the current measurement cycle (`dq_count_`).
    #[must_use]
    pub const fn dq_count(&self) -> u64 {
        self.dq_count
    }

    /// The drop probability, in units of [`MAX_PROB`] (it may exceed it, as in
    /// Linux, and then every early-drop candidate is dropped).
    #[must_use]
    pub const fn prob(&self) -> u64 {
        self.prob
    }

    /// The accumulated probability of the derandomization.
    #[must_use]
    pub const fn accu_prob(&self) -> u64 {
        self.accu_prob
    }

    /// The current queue delay estimate, in psched ticks (64 ns).
    #[must_use]
    pub const fn qdelay(&self) -> u64 {
        self.qdelay
    }

    /// The queue delay at the previous update, in psched ticks.
    #[must_use]
    pub const fn qdelay_old(&self) -> u64 {
        self.qdelay_old
    }

    /// The burst allowance left, in psched ticks.
    #[must_use]
    pub const fn burst_time(&self) -> u64 {
        self.burst_time
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

    /// The decision for an arriving packet (`pie_qdisc_enqueue`): `qlen` and
    /// `backlog` are the packets and bytes queued before it. Drops when the
    /// queue is at its limit, else runs `pie_drop_early`; an early-drop
    /// candidate is marked instead when ECN is on, the packet is ECN-capable
    /// and the probability is at most 10 %. Every drop resets the
    /// accumulated probability. Draws one `u64` (two `u32`s, high half first)
    /// from `rng` only when the accumulated probability is between 0.85 and
    /// 8.5.
    pub fn on_arrival<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut R,
    ) -> Verdict {
        self.last.advance_to(now);
        if profile.law == PieLaw::Rfc8033 {
            return self.rfc_enqueue(profile, pkt, qlen, backlog, rng);
        }
        let verdict = if qlen >= profile.limit {
            Verdict::Drop
        } else if !self.drop_early(profile, backlog, pkt.len, rng) {
            Verdict::Deliver
        } else if profile.ecn && self.prob <= MAX_PROB / 10 && pkt.ecn_capable {
            Verdict::Mark
        } else {
            Verdict::Drop
        };
        if verdict == Verdict::Drop {
            self.accu_prob = 0;
        }
        verdict
    }

    /// The decision for an arriving packet: the old name of
    /// [`on_arrival`](Self::on_arrival).
    #[deprecated(since = "0.1.0", note = "renamed to `on_arrival`")]
    #[inline]
    pub fn on_enqueue<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut R,
    ) -> Verdict {
        self.on_arrival(profile, now, pkt, qlen, backlog, rng)
    }

    /// `pie_drop_early`.
    fn drop_early<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        backlog: u64,
        len: u32,
        rng: &mut R,
    ) -> bool {
        // RFC 8033 s4.4: no random drop while burst allowance is left.
        if self.burst_time > 0 {
            return false;
        }
        // RFC 8033 s4.1: keep work conserving at low delay and probability.
        if self.qdelay < profile.target / 2 && self.prob < MAX_PROB / 5 {
            return false;
        }
        // Fewer than two MTUs queued (RFC 8033 s4.1: at most 2 MEAN_PKTSIZE;
        // Linux: below 2 mtu).
        if backlog < 2 * u64::from(profile.mtu) {
            return false;
        }
        let local = if profile.bytemode && len <= profile.mtu {
            u64::from(len).wrapping_mul(self.prob / u64::from(profile.mtu))
        } else {
            self.prob
        };
        // Derandomization (RFC 8033 s5.4): accumulate, drop surely past 8.5,
        // never below 0.85.
        if local == 0 {
            self.accu_prob = 0;
        } else {
            self.accu_prob = self.accu_prob.wrapping_add(local);
        }
        if self.accu_prob < (MAX_PROB / 100) * 85 {
            return false;
        }
        if self.accu_prob >= (MAX_PROB / 2) * 17 {
            return true;
        }
        let rnd = (u64::from(rng.next_u32()) << 32) | u64::from(rng.next_u32());
        if (rnd >> 8) < local {
            self.accu_prob = 0;
            return true;
        }
        false
    }

    /// A packet left the queue (`pie_process_dequeue` with timestamps):
    /// `backlog` is the bytes left after it. The queue delay becomes the
    /// packet's sojourn time (0 when the queue is now empty), and the time
    /// since the previous departure is taken from the burst allowance.
    pub fn on_dequeue(&mut self, profile: &PieProfile, now: Instant, head: Head, backlog: u64) {
        self.last.advance_to(now);
        if profile.law == PieLaw::Rfc8033 {
            self.rfc_dequeue(profile, head, backlog);
            return;
        }
        let now = profile.psched(self.last);
        self.qdelay = now.wrapping_sub(profile.psched(head.enqueued));
        // Linux keeps the time since the last departure in a u32.
        let dtime = if self.dq_tstamp == DTIME_INVALID {
            0
        } else {
            now.wrapping_sub(self.dq_tstamp) as u32
        };
        self.dq_tstamp = now;
        if backlog == 0 {
            self.qdelay = 0;
        }
        if dtime == 0 {
            return;
        }
        self.burst_time = self.burst_time.saturating_sub(u64::from(dtime));
    }

    /// Runs the drop probability update if it is due (one T_UPDATE after the
    /// previous one, or after the start), with `backlog` the bytes queued now;
    /// the next is then due one T_UPDATE after `now`, as Linux re-arms its
    /// timer. Returns whether it ran. At most one update per call.
    pub fn poll(&mut self, profile: &PieProfile, now: Instant, backlog: u64) -> bool {
        self.last.advance_to(now);
        // Due when the clock reached next_update; a next_update more than one
        // period ahead can only be stale (the clock moved 2^63 ticks on).
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= profile.t_update {
            return false;
        }
        match profile.law {
            PieLaw::Linux => self.update(profile, backlog),
            PieLaw::Rfc8033 => self.rfc_update(profile, backlog),
        }
        self.next_update = self.last.wrapping_add(profile.t_update);
        true
    }

    /// `pie_calculate_probability` (timestamps, no rate estimator).
    fn update(&mut self, profile: &PieProfile, backlog: u64) {
        let qdelay = self.qdelay;
        let qdelay_old = self.qdelay_old;
        // A zero delay with packets queued: too few to measure; no decay.
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let (mut alpha, mut beta) = (profile.alpha, profile.beta);
        // RFC 8033 s4.2: smaller steps at small probabilities.
        if self.prob < MAX_PROB / 10 {
            alpha >>= 1;
            beta >>= 1;
            let mut power = 100u64;
            while self.prob < MAX_PROB / power && power <= 1_000_000 {
                alpha >>= 2;
                beta >>= 2;
                power *= 10;
            }
        }
        // Linux computes these in u64 and adds them to an s64.
        let mut delta = alpha
            .wrapping_mul(qdelay.wrapping_sub(profile.target))
            .wrapping_add(beta.wrapping_mul(qdelay.wrapping_sub(qdelay_old)))
            as i64;
        let old = self.prob;
        // RFC 8033 s5.5: at 10 % or more, steps of at most 2 %.
        if delta > (MAX_PROB / 50) as i64 && self.prob >= MAX_PROB / 10 {
            delta = ((MAX_PROB / 100) * 2) as i64;
        }
        // Linux: 2 % more per update above 250 ms.
        if qdelay > NONLINEAR_QDELAY {
            delta = delta.wrapping_add((MAX_PROB / 50) as i64);
        }
        self.prob = self.prob.wrapping_add(delta as u64);
        if delta > 0 {
            if self.prob < old {
                self.prob = MAX_PROB;
                update_prob = false;
            }
        } else if self.prob > old {
            self.prob = 0;
        }
        // RFC 8033 s4.2's decay when the delay stays 0 (Linux: by 1/64).
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            self.prob -= self.prob / 64;
        }
        if profile.bound_prob {
            self.prob = self.prob.min(MAX_PROB);
        }
        if self.qdelay < profile.target / 2
            && self.qdelay_old < profile.target / 2
            && self.prob == 0
        {
            // pie_vars_init: the burst allowance is back (RFC 8033 s4.4 does
            // this at arrival, Linux at the update).
            self.burst_time = profile.burst;
            self.dq_tstamp = DTIME_INVALID;
            self.accu_prob = 0;
        }
        self.qdelay_old = qdelay;
    }

    /// RFC 8033's `enque` (Appendix B, with sections 4.4 and 5.1): a full queue
    /// drops; no early drop while burst allowance is left (section 4.4: the
    /// random drop is bypassed); an early-drop candidate is marked when ECN is
    /// on, the packet is ECN-capable and the probability is below
    /// `mark_ecnth` (10 %), else dropped; every drop resets the accumulated
    /// probability. Then the burst allowance is restored when the probability
    /// is 0 and both delay samples are below QDELAY_REF / 2 (section 4.4).
    fn rfc_enqueue<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut R,
    ) -> Verdict {
        let verdict = if qlen >= profile.limit {
            Verdict::Drop
        } else if self.burst_time == 0 && self.rfc_drop_early(profile, backlog, rng) {
            if profile.ecn && pkt.ecn_capable && below_mark_ecnth(self.prob) {
                Verdict::Mark
            } else {
                Verdict::Drop
            }
        } else {
            Verdict::Deliver
        };
        if verdict == Verdict::Drop {
            self.accu_prob = 0;
        }
        let half = |d: u64| 2 * u128::from(d) < u128::from(profile.target_ticks);
        if self.prob == 0 && half(self.qdelay) && half(self.qdelay_old) {
            self.burst_time = profile.burst_ticks;
        }
        verdict
    }

    /// RFC 8033's `drop_early` (section 4.1, with section 5.4's
    /// derandomization when on). Draws one `u64` (two `u32`s, high half first)
    /// as `u = rnd / 2^64`, and drops when `u < drop_prob`, exactly
    /// (`rnd * MAX_PROB < prob * 2^64`).
    fn rfc_drop_early<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        backlog: u64,
        rng: &mut R,
    ) -> bool {
        // Section 4.1: work conserving at low delay and probability, and with
        // at most two packets queued.
        let old_low = 2 * u128::from(self.qdelay_old) < u128::from(profile.target_ticks);
        let prob_low = 5 * u128::from(self.prob) < u128::from(MAX_PROB);
        if (old_low && prob_low) || u128::from(backlog) <= 2 * u128::from(profile.mtu) {
            return false;
        }
        if profile.derandomize {
            // Section 5.4.
            if self.prob == 0 {
                self.accu_prob = 0;
            }
            self.accu_prob = self.accu_prob.saturating_add(self.prob);
            let accu = 100 * u128::from(self.accu_prob);
            if accu < 85 * u128::from(MAX_PROB) {
                return false;
            }
            if accu >= 850 * u128::from(MAX_PROB) {
                return true;
            }
        }
        let rnd = (u64::from(rng.next_u32()) << 32) | u64::from(rng.next_u32());
        if u128::from(rnd) * u128::from(MAX_PROB) < u128::from(self.prob) << 64 {
            self.accu_prob = 0;
            return true;
        }
        false
    }

    /// RFC 8033's `deque`: the timestamp estimator takes the packet's sojourn
    /// time (0 once the queue is empty); the departure-rate estimator runs
    /// section 5.2's measurement cycle.
    fn rfc_dequeue(&mut self, profile: &PieProfile, head: Head, backlog: u64) {
        let now = self.last.ticks();
        match profile.estimator {
            PieEstimator::Timestamp => {
                self.qdelay = if backlog == 0 {
                    0
                } else {
                    self.last.ticks_since(head.enqueued)
                };
            }
            PieEstimator::DepartureRate => {
                if self.in_measurement {
                    self.dq_count = self.dq_count.saturating_add(u64::from(head.len));
                    if self.dq_count >= DQ_THRESHOLD {
                        let dq_time = now.wrapping_sub(self.measurement_start);
                        self.avg_dq_time = if self.avg_dq_time == 0 {
                            dq_time
                        } else {
                            // weight = DQ_THRESHOLD / 2^16 = 1/4, exactly.
                            ((u128::from(dq_time) + 3 * u128::from(self.avg_dq_time)) / 4) as u64
                        };
                        self.in_measurement = false;
                    }
                }
                if backlog >= DQ_THRESHOLD && !self.in_measurement {
                    self.in_measurement = true;
                    self.measurement_start = now;
                    self.dq_count = 0;
                }
            }
        }
    }

    /// RFC 8033's `calculate_drop_prob` (section 4.2, with sections 4.4 and
    /// 5.5): see [`rfc8033_update`].
    fn rfc_update(&mut self, profile: &PieProfile, backlog: u64) {
        if profile.estimator == PieEstimator::DepartureRate {
            self.qdelay = rate_qdelay(backlog, self.avg_dq_time);
        }
        self.prob = rfc8033_update(profile, self.prob, self.qdelay, self.qdelay_old);
        self.qdelay_old = self.qdelay;
        self.burst_time = self.burst_time.saturating_sub(profile.t_update);
    }

    /// Linux's `pie_drop_early` for FQ-PIE (`sch_fq_pie` calls it with the
    /// flow's backlog), at `now`.
    pub(crate) fn fq_drop_early<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        now: Instant,
        backlog: u64,
        len: u32,
        rng: &mut R,
    ) -> bool {
        self.last.advance_to(now);
        self.drop_early(profile, backlog, len, rng)
    }

    /// Moves the clock to `now` (serial: an earlier instant leaves it).
    pub(crate) fn advance(&mut self, now: Instant) {
        self.last.advance_to(now);
    }

    /// A drop: the accumulated probability restarts (`sch_fq_pie`'s `out:`).
    pub(crate) fn reset_accu(&mut self) {
        self.accu_prob = 0;
    }

    /// `pie_calculate_probability` at `now` without the per-queue timer (FQ-PIE
    /// runs one timer for all flows).
    pub(crate) fn update_at(&mut self, profile: &PieProfile, now: Instant, backlog: u64) {
        self.last.advance_to(now);
        self.update(profile, backlog);
        self.next_update = self.last.wrapping_add(profile.t_update);
    }

    /// Sets the probability (tests only).
    #[cfg(test)]
    pub(crate) fn set_prob_for_tests(&mut self, prob: u64) {
        self.prob = prob;
    }

    /// Sets the burst allowance (tests only).
    #[cfg(test)]
    pub(crate) fn set_burst_for_tests(&mut self, burst: u64) {
        self.burst_time = burst;
    }
}

/// `drop_prob < mark_ecnth` (10 %, RFC 8033 section 5.1), exactly.
#[inline]
fn below_mark_ecnth(prob: u64) -> bool {
    10 * u128::from(prob) < u128::from(MAX_PROB)
}

/// RFC 8033 section 5.2's `current_qdelay = byte_length * avg_dq_time /
/// DQ_THRESHOLD` (the RFC's integer form, rounded down, saturating).
#[must_use]
pub fn rate_qdelay(backlog: u64, avg_dq_time: u64) -> u64 {
    let d = (u128::from(backlog) * u128::from(avg_dq_time)) >> 14;
    u64::try_from(d).unwrap_or(u64::MAX)
}

/// `n / d > m / k` for `d > 0`, `0 < k` small, without overflow: `n = q d + r`.
fn frac_gt(q: i128, r: i128, d: i128, m: i128, k: i128) -> bool {
    let kq = q.saturating_mul(k);
    if kq > m {
        return true;
    }
    if m - kq >= k {
        return false;
    }
    (m - kq) * d < k * r
}

/// One RFC 8033 probability update from `prob` (units of `1 / MAX_PROB`) with
/// the delay samples `qdelay` and `qdelay_old` (ticks):
///
/// `p = alpha (qdelay - QDELAY_REF) + beta (qdelay - qdelay_old)`, alpha and
/// beta in hertz and the delays in seconds, exactly as a fraction; divided by
/// the section 4.2 table's divisor for the current probability
/// ([`RFC8033_SCALING`]); capped to 2 % when the probability is 10 % or more
/// and `p > 2 %` (section 5.5); added; multiplied by 0.98 when both samples
/// are 0 (section 4.2); bounded to [0, 1]. The threshold tests are exact; the
/// result is the exact value rounded down, except after the decay, where it
/// is `floor(floor(prob + p) * 49 / 50)`, at most one unit below the exact
/// value's floor.
#[must_use]
pub fn rfc8033_update(profile: &PieProfile, prob: u64, qdelay: u64, qdelay_old: u64) -> u64 {
    let max = i128::from(MAX_PROB);
    let p128 = u128::from(prob);
    let div = RFC8033_SCALING
        .iter()
        .find(|(den, _)| p128 * u128::from(*den) < u128::from(MAX_PROB))
        .map_or(1, |&(_, div)| div);
    let err = |a: u32, b: u64| i128::from(a) * (i128::from(qdelay) - i128::from(b));
    // Numerator over 16 * hz * div, in units of 1 / MAX_PROB: |.| < 2^126.
    let n = (err(profile.alpha16, profile.target_ticks) + err(profile.beta16, qdelay_old)) * max;
    let d = 16 * i128::from(profile.hz) * i128::from(div);
    let (q, r) = (n.div_euclid(d), n.rem_euclid(d));
    // Section 5.5: at 10 % or more, at most 2 % per update.
    let step = if 10 * p128 >= u128::from(MAX_PROB) && frac_gt(q, r, d, max, 50) {
        max / 50
    } else {
        q
    };
    let mut v = (i128::from(prob) + step).clamp(-(1 << 62), 1 << 62);
    if qdelay == 0 && qdelay_old == 0 {
        v = (v * 49).div_euclid(50);
    }
    v.clamp(0, max) as u64
}
