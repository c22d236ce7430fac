//! PIE's configuration and the profile built from it.

use super::*;

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
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
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
    /// The rules: Linux's (the default) or RFC 8033's.
    pub law: PieLaw,
    /// The RFC law's delay estimator (the Linux law always uses timestamps).
    pub estimator: PieEstimator,
    /// The RFC law's derandomization (RFC 8033 section 5.4, optional): no drop
    /// while the accumulated probability is below 0.85, a sure drop from 8.5.
    /// Without it each candidate is dropped with the probability alone. The
    /// Linux law always derandomizes.
    pub derandomize: bool,
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
            law: PieLaw::Linux,
            estimator: PieEstimator::Timestamp,
            derandomize: true,
        }
    }

    /// RFC 8033's law and defaults: QDELAY_REF 15 ms, T_UPDATE 15 ms, MAX_BURST
    /// 150 ms (sections 4.2 and 4.4), alpha 1/8 and beta 1 + 1/4 per second
    /// (2 and 20 sixteenths, Appendix A), timestamps, derandomization (section
    /// 5.4), the probability bounded to [0, 1], no ECN. The RFC gives the
    /// tail-drop limit and MEAN_PKTSIZE no value: 1000 packets and 1514 bytes,
    /// as Linux.
    #[must_use]
    pub const fn rfc8033() -> PieConfig {
        let mut c = PieConfig::linux();
        c.law = PieLaw::Rfc8033;
        c.bound_prob = true;
        c
    }

    /// The law.
    #[must_use]
    pub const fn with_law(mut self, law: PieLaw) -> PieConfig {
        self.law = law;
        self
    }

    /// The RFC law's delay estimator.
    #[must_use]
    pub const fn with_estimator(mut self, estimator: PieEstimator) -> PieConfig {
        self.estimator = estimator;
        self
    }

    /// The RFC law's derandomization.
    #[must_use]
    pub const fn with_derandomize(mut self, derandomize: bool) -> PieConfig {
        self.derandomize = derandomize;
        self
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
    pub(crate) law: PieLaw,
    pub(crate) estimator: PieEstimator,
    pub(crate) derandomize: bool,
    /// The RFC law's alpha and beta in sixteenths of a hertz.
    pub(crate) alpha16: u32,
    pub(crate) beta16: u32,
    /// The RFC law's QDELAY_REF and MAX_BURST in ticks of the profile's clock.
    pub(crate) target_ticks: u64,
    pub(crate) burst_ticks: u64,
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
        let target_ticks = cfg.tick.ticks_from_duration(cfg.target);
        if cfg.law == PieLaw::Rfc8033 {
            if target_ticks == 0 {
                return Err(DelayError::ZeroTarget);
            }
            if cfg.bytemode {
                return Err(DelayError::PieBytemodeNotInRfc);
            }
            if !cfg.bound_prob {
                return Err(DelayError::PieRfcUnbounded);
            }
        } else if cfg.estimator == PieEstimator::DepartureRate {
            return Err(DelayError::PieRateEstimatorRfcOnly);
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
            law: cfg.law,
            estimator: cfg.estimator,
            derandomize: cfg.derandomize,
            alpha16: cfg.alpha,
            beta16: cfg.beta,
            target_ticks,
            burst_ticks: cfg.tick.ticks_from_duration(cfg.max_burst),
        })
    }

    /// QDELAY_REF in psched ticks (64 ns).
    #[must_use]
    pub const fn target(&self) -> u64 {
        self.target
    }

    /// QDELAY_REF in ticks of the profile's clock (the RFC law's unit).
    #[must_use]
    pub const fn target_ticks(&self) -> u64 {
        self.target_ticks
    }

    /// MAX_BURST in ticks of the profile's clock (the RFC law's unit).
    #[must_use]
    pub const fn burst_ticks(&self) -> u64 {
        self.burst_ticks
    }

    /// The law.
    #[must_use]
    pub const fn law(&self) -> PieLaw {
        self.law
    }

    /// The RFC law's delay estimator.
    #[must_use]
    pub const fn estimator(&self) -> PieEstimator {
        self.estimator
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
