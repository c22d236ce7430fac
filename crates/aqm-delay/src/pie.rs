//! PIE (RFC 8033) with the integer arithmetic of Linux's `sch_pie`
//! (`net/sched/sch_pie.c`, `include/net/pie.h`), queue delay from per-packet
//! timestamps.

use core::time::Duration;

use netcond_core::{Instant, RandomSource, TickRate};

use crate::{DelayError, Head, Verdict};

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

/// Configuration of a PIE queue: Linux `sch_pie`'s parameters.
///
/// ```
/// use aqm_delay::{PieConfig, PieProfile};
/// use core::time::Duration;
///
/// let cfg = PieConfig::linux().with_target(Duration::from_millis(20)).with_ecn(true);
/// let p = PieProfile::new(&cfg).unwrap();
/// assert_eq!(p.target(), 312_500); // 20 ms in 64 ns units
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct PieConfig {
    /// QDELAY_REF, the target queue delay (RFC 8033 section 4.2; 15 ms).
    pub target: Duration,
    /// T_UPDATE, the period of the drop probability update (RFC 8033 section
    /// 4.2; 15 ms).
    pub t_update: Duration,
    /// MAX_BURST, the burst allowance (RFC 8033 section 4.4; 150 ms).
    pub max_burst: Duration,
    /// alpha in units of 1/16 Hz (Linux's `tc` units; 2 is 0.125 Hz, RFC 8033
    /// Appendix A's 1/8).
    pub alpha: u32,
    /// beta in units of 1/16 Hz (20 is 1.25 Hz, RFC 8033 Appendix A's 1 + 1/4).
    pub beta: u32,
    /// The packet limit: an arrival to a queue holding this many is dropped
    /// (Linux's `limit`; RFC 8033 gives its tail-drop threshold no value).
    pub limit: u32,
    /// The MTU in bytes (`psched_mtu`): no early drop below two of them
    /// queued (RFC 8033 section 4.1 writes `2 * MEAN_PKTSIZE`); byte mode
    /// scales by it.
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping them while the drop
    /// probability is at most 10 % (Linux; RFC 8033 section 5.1 marks below
    /// `mark_ecnth`, 10 %).
    pub ecn: bool,
    /// Byte mode: scale the probability by `len / mtu` for packets up to the MTU.
    pub bytemode: bool,
    /// Bound the probability to one after each update (RFC 8033 section 4.2).
    /// Linux does not: its probability is capped only when the `u64` would
    /// overflow, so after a long overload it can stand far above one and take
    /// minutes to come back (off in [`linux`](Self::linux), to reproduce it).
    pub bound_prob: bool,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig::linux()
    }
}

impl PieConfig {
    /// Linux `sch_pie`'s defaults: target 15 ms, update every 15 ms, burst
    /// allowance 150 ms, alpha 2/16, beta 20/16 (these five are also RFC 8033's
    /// defaults), limit 1000 packets, MTU 1514 (these two are Linux's), no
    /// ECN, no byte mode, nanosecond ticks.
    #[must_use]
    pub const fn linux() -> PieConfig {
        PieConfig {
            target: Duration::from_millis(15),
            t_update: Duration::from_millis(15),
            max_burst: Duration::from_millis(150),
            alpha: 2,
            beta: 20,
            limit: 1000,
            mtu: 1514,
            ecn: false,
            bytemode: false,
            bound_prob: false,
            tick: TickRate::NANOS,
        }
    }

    /// QDELAY_REF.
    #[must_use]
    pub const fn with_target(mut self, target: Duration) -> PieConfig {
        self.target = target;
        self
    }

    /// T_UPDATE.
    #[must_use]
    pub const fn with_t_update(mut self, t_update: Duration) -> PieConfig {
        self.t_update = t_update;
        self
    }

    /// MAX_BURST.
    #[must_use]
    pub const fn with_max_burst(mut self, max_burst: Duration) -> PieConfig {
        self.max_burst = max_burst;
        self
    }

    /// alpha and beta, in units of 1/16 Hz.
    #[must_use]
    pub const fn with_alpha_beta(mut self, alpha: u32, beta: u32) -> PieConfig {
        self.alpha = alpha;
        self.beta = beta;
        self
    }

    /// The packet limit.
    #[must_use]
    pub const fn with_limit(mut self, limit: u32) -> PieConfig {
        self.limit = limit;
        self
    }

    /// The MTU.
    #[must_use]
    pub const fn with_mtu(mut self, mtu: u32) -> PieConfig {
        self.mtu = mtu;
        self
    }

    /// ECN marking.
    #[must_use]
    pub const fn with_ecn(mut self, ecn: bool) -> PieConfig {
        self.ecn = ecn;
        self
    }

    /// Byte mode.
    #[must_use]
    pub const fn with_bytemode(mut self, bytemode: bool) -> PieConfig {
        self.bytemode = bytemode;
        self
    }

    /// Bounding the probability to one (RFC 8033 section 4.2).
    #[must_use]
    pub const fn with_bound_prob(mut self, bound: bool) -> PieConfig {
        self.bound_prob = bound;
        self
    }

    /// The clock of the `Instant`s passed in (by default nanoseconds).
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> PieConfig {
        self.tick = tick;
        self
    }
}

/// A validated PIE configuration: times in Linux's psched ticks of 64 ns,
/// alpha and beta scaled to probability units per psched tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PieProfile {
    pub(crate) target: u64,
    pub(crate) burst: u64,
    pub(crate) t_update: u64,
    pub(crate) alpha: u64,
    pub(crate) beta: u64,
    pub(crate) limit: u32,
    pub(crate) mtu: u32,
    pub(crate) ecn: bool,
    pub(crate) bytemode: bool,
    pub(crate) bound_prob: bool,
    pub(crate) hz: u64,
    pub(crate) ns_per_tick: u64,
}

impl PieProfile {
    /// Validates `cfg`.
    ///
    /// # Errors
    ///
    /// [`DelayError::ZeroTarget`] (below 64 ns), [`DelayError::ZeroUpdate`]
    /// (T_UPDATE below one tick), [`DelayError::ZeroLimit`],
    /// [`DelayError::ZeroMtu`], [`DelayError::PieParameterTooLarge`] (a time
    /// of 2^40 ns or more, alpha or beta above 32).
    pub fn new(cfg: &PieConfig) -> Result<PieProfile, DelayError> {
        let hz = cfg.tick.hz();
        let limit_ns: u128 = 1 << 40;
        if cfg.target.as_nanos() >= limit_ns
            || cfg.max_burst.as_nanos() >= limit_ns
            || cfg.t_update.as_nanos() >= limit_ns
            || cfg.alpha > 32
            || cfg.beta > 32
        {
            return Err(DelayError::PieParameterTooLarge);
        }
        let target = (cfg.target.as_nanos() >> PSCHED_SHIFT) as u64;
        if target == 0 {
            return Err(DelayError::ZeroTarget);
        }
        let t_update = (cfg.t_update.as_nanos() * u128::from(hz) / 1_000_000_000) as u64;
        if t_update == 0 {
            return Err(DelayError::ZeroUpdate);
        }
        if cfg.limit == 0 {
            return Err(DelayError::ZeroLimit);
        }
        if cfg.mtu == 0 {
            return Err(DelayError::ZeroMtu);
        }
        let scale = MAX_PROB / PSCHED_PER_SEC;
        Ok(PieProfile {
            target,
            burst: (cfg.max_burst.as_nanos() >> PSCHED_SHIFT) as u64,
            t_update,
            alpha: (u64::from(cfg.alpha) * scale) >> 4,
            beta: (u64::from(cfg.beta) * scale) >> 4,
            limit: cfg.limit,
            mtu: cfg.mtu,
            ecn: cfg.ecn,
            bytemode: cfg.bytemode,
            bound_prob: cfg.bound_prob,
            hz,
            ns_per_tick: if 1_000_000_000 % hz == 0 {
                1_000_000_000 / hz
            } else {
                0
            },
        })
    }

    /// QDELAY_REF in psched ticks (64 ns).
    #[must_use]
    pub const fn target(&self) -> u64 {
        self.target
    }

    /// T_UPDATE in ticks of the profile's clock.
    #[must_use]
    pub const fn t_update(&self) -> u64 {
        self.t_update
    }

    /// alpha in probability units (`MAX_PROB` is one) per psched tick of
    /// delay error, before the scaling by the current probability.
    #[must_use]
    pub const fn alpha(&self) -> u64 {
        self.alpha
    }

    /// beta, as [`alpha`](Self::alpha).
    #[must_use]
    pub const fn beta(&self) -> u64 {
        self.beta
    }

    /// Linux's `psched_get_time()` at `t`: nanoseconds >> 6.
    #[inline]
    pub(crate) fn psched(&self, t: Instant) -> u64 {
        let ns = if self.ns_per_tick != 0 {
            t.ticks().wrapping_mul(self.ns_per_tick)
        } else {
            (u128::from(t.ticks()) * 1_000_000_000 / u128::from(self.hz)) as u64
        };
        ns >> PSCHED_SHIFT
    }
}

/// The state of one PIE queue (`struct pie_vars`, plus the update timer and
/// the last instant seen), 64 bytes.
///
/// Call [`on_enqueue`](Self::on_enqueue) for each arrival (it decides drop,
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
///     if pie.on_enqueue(&p, ms(t), Head::new(ms(t), 1500, false), 100, 150_000, &mut rng) == Verdict::Drop {
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
            burst_time: profile.burst,
            dq_tstamp: DTIME_INVALID,
            prob: 0,
            accu_prob: 0,
        }
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
    pub fn on_enqueue<R: RandomSource>(
        &mut self,
        profile: &PieProfile,
        now: Instant,
        pkt: Head,
        qlen: u32,
        backlog: u64,
        rng: &mut R,
    ) -> Verdict {
        self.last.advance_to(now);
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
        self.update(profile, backlog);
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
