//! DualPI2's configuration and the profile built from it.

use super::*;

/// Configuration of a DualPI2 queue pair.
///
/// ```
/// use aqm_delay::{DualPi2Config, DualPi2Profile};
///
/// let p = DualPi2Profile::new(&DualPi2Config::rfc9332()).unwrap();
/// assert_eq!(p.t_update(), 15_000_000); // min(target, RTT_max / 3), in ns
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct DualPi2Config {
    /// The Classic queue delay target (RFC 9332 Appendix A: 15 ms).
    pub target: Duration,
    /// Tupdate, the period of the PI update (`min(target, RTT_max / 3)`).
    pub t_update: Duration,
    /// alpha, the integral gain, in millihertz (`0.1 Tupdate / RTT_max^2`).
    pub alpha_mhz: u32,
    /// beta, the proportional gain, in millihertz (`0.3 / RTT_max`).
    pub beta_mhz: u32,
    /// The coupling factor k in sixteenths (2 is 32).
    pub k16: u32,
    /// minTh, where the L4S ramp starts (800 us).
    pub min_th: Duration,
    /// The ramp's range (400 us); zero makes it a step at `min_th`.
    pub range: Duration,
    /// Th_len: no native L4S marking with at most this many packets left in
    /// the L4S queue (1 packet).
    pub th_len: u32,
    /// The shared buffer in bytes: an arrival is dropped when the bytes queued
    /// plus one MTU exceed it (RFC 9332: `MAX_LINK_RATE * 250 ms`).
    pub limit: u64,
    /// The MTU of the limit test.
    pub mtu: u32,
    /// Whether the PI update uses the larger of the two queues' delays (RFC
    /// 9332 Appendix A.2: `max(cq.time(), lq.time())`) or the Classic
    /// queue's alone (Appendix A.1: `cq.time()`).
    pub curq_max: bool,
    /// The scheduler.
    pub scheduler: DualScheduler,
    /// How probabilities become decisions.
    pub decision: DualDecision,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config::rfc9332()
    }
}

impl DualPi2Config {
    /// RFC 9332 Appendix A's parameters: k = 2, target 15 ms, RTT_max 100 ms
    /// giving Tupdate = min(15 ms, 33 ms) = 15 ms, alpha = 0.1 * 0.015 / 0.1^2
    /// = 0.15 Hz and beta = 0.3 / 0.1 = 3 Hz, the ramp from minTh 800 us over
    /// 400 us, Th_len 1 packet, the delay of the larger queue (Appendix
    /// A.2), `recur()` decisions (Appendix A.2). The limit is 250 ms at 100
    /// Mb/s (3,125,000 bytes; the RFC writes `MAX_LINK_RATE * 250 ms`), MTU
    /// 1500; the scheduler, which the RFC's pseudocode leaves out, is a
    /// time-shifted FIFO with a shift of 40 ms (an example value).
    #[must_use]
    pub const fn rfc9332() -> DualPi2Config {
        DualPi2Config {
            target: Duration::from_millis(15),
            t_update: Duration::from_millis(15),
            alpha_mhz: 150,
            beta_mhz: 3_000,
            k16: 32,
            min_th: Duration::from_micros(800),
            range: Duration::from_micros(400),
            th_len: 1,
            limit: 3_125_000,
            mtu: 1500,
            curq_max: true,
            scheduler: DualScheduler::TimeShifted {
                tshift: Duration::from_millis(40),
            },
            decision: DualDecision::Recur,
            tick: TickRate::NANOS,
        }
    }

    /// The parameters of Linux's `sch_dualpi2` defaults where it sets them
    /// (target 15 ms, Tupdate 16 ms, alpha 0.16 Hz, beta 3.2 Hz, k = 2, a step
    /// at 1 ms, random draws with the Classic probability as two draws), with
    /// this crate's scheduler (a time-shifted FIFO, 40 ms) and limit; not
    /// Linux's arithmetic.
    #[must_use]
    pub const fn linux_defaults() -> DualPi2Config {
        let mut c = DualPi2Config::rfc9332();
        c.t_update = Duration::from_millis(16);
        c.alpha_mhz = 160;
        c.beta_mhz = 3_200;
        c.min_th = Duration::from_millis(1);
        c.range = Duration::ZERO;
        c.decision = DualDecision::Random { two_draws: true };
        c
    }

    /// The target, Tupdate and gains from RFC 9332 Appendix A's formulas for
    /// a worst-case RTT of `rtt_max`: Tupdate = min(target, RTT_max / 3),
    /// alpha = 0.1 Tupdate / RTT_max^2, beta = 0.3 / RTT_max (rounded down to
    /// millihertz).
    #[must_use]
    pub const fn with_rtt_max(mut self, target: Duration, rtt_max: Duration) -> DualPi2Config {
        let rtt_ns = rtt_max.as_nanos();
        let third = rtt_ns / 3;
        let t_ns = if target.as_nanos() < third {
            target.as_nanos()
        } else {
            third
        };
        self.target = target;
        self.t_update = Duration::from_nanos(t_ns as u64);
        if rtt_ns > 0 {
            // 0.1 t / r^2 Hz in mHz = 100 t 1e9 / r^2 (times in ns).
            let a = 100 * t_ns * 1_000_000_000 / (rtt_ns * rtt_ns);
            // 0.3 / r Hz in mHz = 300 1e9 / r.
            let b = 300 * 1_000_000_000 / rtt_ns;
            self.alpha_mhz = if a > u32::MAX as u128 {
                u32::MAX
            } else {
                a as u32
            };
            self.beta_mhz = if b > u32::MAX as u128 {
                u32::MAX
            } else {
                b as u32
            };
        }
        self
    }

    /// alpha and beta in millihertz.
    #[must_use]
    pub const fn with_gains(mut self, alpha_mhz: u32, beta_mhz: u32) -> DualPi2Config {
        self.alpha_mhz = alpha_mhz;
        self.beta_mhz = beta_mhz;
        self
    }

    /// The Classic target.
    #[must_use]
    pub const fn with_target(mut self, target: Duration) -> DualPi2Config {
        self.target = target;
        self
    }

    /// Tupdate.
    #[must_use]
    pub const fn with_t_update(mut self, t_update: Duration) -> DualPi2Config {
        self.t_update = t_update;
        self
    }

    /// The coupling factor, in sixteenths.
    #[must_use]
    pub const fn with_k16(mut self, k16: u32) -> DualPi2Config {
        self.k16 = k16;
        self
    }

    /// The L4S ramp: minTh and range (zero range: a step).
    #[must_use]
    pub const fn with_ramp(mut self, min_th: Duration, range: Duration) -> DualPi2Config {
        self.min_th = min_th;
        self.range = range;
        self
    }

    /// Th_len, in packets.
    #[must_use]
    pub const fn with_th_len(mut self, th_len: u32) -> DualPi2Config {
        self.th_len = th_len;
        self
    }

    /// The shared buffer in bytes and the MTU of its test.
    #[must_use]
    pub const fn with_limit(mut self, limit: u64, mtu: u32) -> DualPi2Config {
        self.limit = limit;
        self.mtu = mtu;
        self
    }

    /// The PI update's delay: the larger queue's (true) or the Classic's.
    #[must_use]
    pub const fn with_curq_max(mut self, curq_max: bool) -> DualPi2Config {
        self.curq_max = curq_max;
        self
    }

    /// The scheduler.
    #[must_use]
    pub const fn with_scheduler(mut self, scheduler: DualScheduler) -> DualPi2Config {
        self.scheduler = scheduler;
        self
    }

    /// How probabilities become decisions.
    #[must_use]
    pub const fn with_decision(mut self, decision: DualDecision) -> DualPi2Config {
        self.decision = decision;
        self
    }

    /// The clock of the `Instant`s passed in.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> DualPi2Config {
        self.tick = tick;
        self
    }
}

/// A validated DualPI2 configuration: times in ticks of the profile's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DualPi2Profile {
    pub(crate) target: u64,
    pub(crate) t_update: u64,
    pub(crate) alpha_mhz: u32,
    pub(crate) beta_mhz: u32,
    pub(crate) k16: u32,
    pub(crate) min_th: u64,
    pub(crate) range: u64,
    pub(crate) th_len: u32,
    pub(crate) limit: u64,
    pub(crate) mtu: u32,
    pub(crate) curq_max: bool,
    pub(crate) tshift: Option<u64>,
    pub(crate) wrr: (u16, u16),
    pub(crate) decision: DualDecision,
    pub(crate) hz: u64,
}

/// The largest alpha or beta accepted, in millihertz (1 kHz).
pub const MAX_GAIN_MHZ: u32 = 1_000_000;

impl DualPi2Profile {
    /// Validates `cfg`.
    ///
    /// # Errors
    ///
    /// [`DelayError::DualPi2ZeroTarget`], [`DelayError::DualPi2ZeroUpdate`],
    /// [`DelayError::DualPi2ZeroCoupling`], [`DelayError::DualPi2ZeroThreshold`],
    /// [`DelayError::DualPi2LimitBelowMtu`], [`DelayError::DualPi2ZeroWeight`],
    /// [`DelayError::DualPi2ParameterTooLarge`].
    pub fn new(cfg: &DualPi2Config) -> Result<DualPi2Profile, DelayError> {
        let limit_ns: u128 = 1 << 40;
        let tshift = match cfg.scheduler {
            DualScheduler::TimeShifted { tshift } => Some(tshift),
            DualScheduler::WeightedRoundRobin { .. } => None,
        };
        if cfg.target.as_nanos() >= limit_ns
            || cfg.t_update.as_nanos() >= limit_ns
            || cfg.min_th.as_nanos() >= limit_ns
            || cfg.range.as_nanos() >= limit_ns
            || tshift.is_some_and(|t| t.as_nanos() >= limit_ns)
            || cfg.alpha_mhz > MAX_GAIN_MHZ
            || cfg.beta_mhz > MAX_GAIN_MHZ
            || cfg.k16 > 256
        {
            return Err(DelayError::DualPi2ParameterTooLarge);
        }
        let t = |d: Duration| cfg.tick.ticks_from_duration(d);
        let target = t(cfg.target);
        if target == 0 {
            return Err(DelayError::DualPi2ZeroTarget);
        }
        let t_update = t(cfg.t_update);
        if t_update == 0 {
            return Err(DelayError::DualPi2ZeroUpdate);
        }
        if cfg.k16 == 0 {
            return Err(DelayError::DualPi2ZeroCoupling);
        }
        let (min_th, range) = (t(cfg.min_th), t(cfg.range));
        if min_th + range == 0 {
            return Err(DelayError::DualPi2ZeroThreshold);
        }
        if cfg.limit < u64::from(cfg.mtu) || cfg.mtu == 0 {
            return Err(DelayError::DualPi2LimitBelowMtu);
        }
        let wrr = match cfg.scheduler {
            DualScheduler::WeightedRoundRobin { l4s, classic } => {
                if l4s == 0 || classic == 0 {
                    return Err(DelayError::DualPi2ZeroWeight);
                }
                (l4s, classic)
            }
            DualScheduler::TimeShifted { .. } => (1, 1),
        };
        Ok(DualPi2Profile {
            target,
            t_update,
            alpha_mhz: cfg.alpha_mhz,
            beta_mhz: cfg.beta_mhz,
            k16: cfg.k16,
            min_th,
            range,
            th_len: cfg.th_len,
            limit: cfg.limit,
            mtu: cfg.mtu,
            curq_max: cfg.curq_max,
            tshift: tshift.map(t),
            wrr,
            decision: cfg.decision,
            hz: cfg.tick.hz(),
        })
    }

    /// The target in ticks.
    #[must_use]
    pub const fn target(&self) -> u64 {
        self.target
    }

    /// Tupdate in ticks.
    #[must_use]
    pub const fn t_update(&self) -> u64 {
        self.t_update
    }

    /// minTh and the ramp's range in ticks.
    #[must_use]
    pub const fn ramp(&self) -> (u64, u64) {
        (self.min_th, self.range)
    }

    /// The coupling factor in sixteenths.
    #[must_use]
    pub const fn k16(&self) -> u32 {
        self.k16
    }

    /// How probabilities become decisions.
    #[must_use]
    pub const fn decision(&self) -> DualDecision {
        self.decision
    }
}
