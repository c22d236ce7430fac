//! Adaptive RED (Floyd, Gummadi and Shenker 2001): max_p follows the load so
//! that the average stays in a target band between the thresholds.

use fixed::types::U32F32;
use netcond_core::{Instant, RandomSource, TickRate};

use crate::ONE;
use crate::{Decision, Packet, Red, RedConfig, RedError, RedProfile};

/// 0.01 in 2^-32 units (rounded to nearest): the cap of the additive increase
/// and the lower bound below which max_p is not decreased.
const P_001: u64 = 42_949_673;
/// 0.5: the bound above which max_p is not increased.
const P_05: u64 = ONE / 2;
/// At most this many intervals are caught up in one call (more than the 37
/// decreases from 0.5 to 0.01 and the ~60 increases from 0.01 to 0.5).
const MAX_CATCH_UP: u32 = 128;

/// The adaptation's timing.
///
/// Built with [`paper`](Self::paper) or [`new`](Self::new); new fields may be
/// added.
///
/// ```
/// use aqm_red::{AdaptiveConfig, AdaptiveRed, RedConfig};
/// use netcond_core::{Instant, TickRate};
///
/// let cfg = RedConfig::packets(20, 60, RedConfig::prob(0.1), RedConfig::prob(0.002), 100);
/// let paper = AdaptiveConfig::paper(TickRate::NANOS);
/// assert_eq!(paper, AdaptiveConfig::new(500_000_000));
/// assert!(AdaptiveRed::new(&cfg, &paper, Instant::ZERO).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct AdaptiveConfig {
    /// The adaptation interval in ticks (0.5 s in the paper).
    pub interval_ticks: u64,
}

impl AdaptiveConfig {
    /// An adaptation every `interval_ticks` ticks.
    #[must_use]
    pub const fn new(interval_ticks: u64) -> AdaptiveConfig {
        AdaptiveConfig { interval_ticks }
    }

    /// The paper's interval, 0.5 s, on a clock of `tick`.
    #[must_use]
    pub const fn paper(tick: TickRate) -> AdaptiveConfig {
        AdaptiveConfig {
            interval_ticks: tick.ticks_from_secs_ratio(1, 2),
        }
    }
}

/// A RED queue whose max_p adapts (Floyd, Gummadi and Shenker 2001, figure 2):
/// every interval, if the average is above the target band
/// `[min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]` and
/// `max_p <= 0.5`, `max_p += min(0.01, max_p / 4)`; if it is below the band and
/// `max_p >= 0.01`, `max_p *= 0.9`. Hence max_p stays in `[0.009, 0.51]`
/// ([`AdaptiveRed::MAX_P_FLOOR`], [`AdaptiveRed::MAX_P_CEIL`]) once it has entered that range (it starts
/// from the configured value, and an adaptation never moves it away from that
/// range).
///
/// Because max_p changes, this wrapper owns its profile (one per queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdaptiveRed {
    pub(crate) profile: RedProfile,
    pub(crate) red: Red,
    interval: u64,
    last: Instant,
    /// Target band in average units.
    lo_fx: u32,
    hi_fx: u32,
}

impl AdaptiveRed {
    /// The least max_p a decrease can reach: 0.9 times 0.01, rounded down to
    /// 2^-32 (0.009).
    pub const MAX_P_FLOOR: U32F32 = U32F32::from_bits(P_001 * 9 / 10);
    /// The largest max_p an increase can reach: 0.5 + 0.01 (0.51).
    pub const MAX_P_CEIL: U32F32 = U32F32::from_bits(P_05 + P_001);
    /// The most adaptations one call runs; a longer silence resynchronises
    /// the interval on the call's `now` instead.
    pub const MAX_CATCH_UP: u32 = MAX_CATCH_UP;

    /// A queue with `cfg`'s initial max_p, adapting from `start` on; its RED
    /// state's time-keeping starts at `start` too ([`Red::new`]).
    pub fn new(
        cfg: &RedConfig,
        adaptive: &AdaptiveConfig,
        start: Instant,
    ) -> Result<AdaptiveRed, RedError> {
        if adaptive.interval_ticks == 0 {
            return Err(RedError::ZeroInterval);
        }
        let profile = RedProfile::new(cfg)?;
        let c = &profile.curve;
        let range = (c.max_fx - c.min_fx as u64) as u32;
        // 0.4 and 0.6 of the range, rounded down (configuration time).
        let lo_fx = c.min_fx + ((range as u64 * 2) / 5) as u32;
        let hi_fx = c.min_fx + ((range as u64 * 3) / 5) as u32;
        Ok(AdaptiveRed {
            profile,
            red: Red::new(&profile, start),
            interval: adaptive.interval_ticks,
            last: start,
            lo_fx,
            hi_fx,
        })
    }

    /// Runs the adaptations due by `now` (one per elapsed interval, at most
    /// 128 per call), then decides as [`Red::on_arrival`].
    #[inline]
    pub fn on_arrival<R: RandomSource + ?Sized>(
        &mut self,
        now: Instant,
        queue_len: u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        self.adapt(now);
        self.red.on_arrival(&self.profile, now, queue_len, pkt, rng)
    }

    /// See [`Red::on_queue_empty`].
    #[inline]
    pub fn on_queue_empty(&mut self, now: Instant) {
        self.red.on_queue_empty(now);
    }

    /// Runs the adaptations due by `now`; returns how many ran.
    pub fn adapt(&mut self, now: Instant) -> u32 {
        let mut elapsed = now.ticks_since(self.last);
        let mut n = 0;
        while elapsed >= self.interval {
            if n == MAX_CATCH_UP {
                // Far behind (a long silence): resynchronise on now.
                self.last = now;
                return n;
            }
            elapsed -= self.interval;
            self.last = self.last.wrapping_add(self.interval);
            self.step();
            n += 1;
        }
        n
    }

    /// One adaptation, as the paper's figure 2.
    fn step(&mut self) {
        let avg = self.red.avg_bits();
        let p = self.profile.curve.max_p;
        let (lo_fx, hi_fx) = (self.lo_fx, self.hi_fx);
        let new = if avg > hi_fx && p <= P_05 {
            let alpha = if p / 4 < P_001 { p / 4 } else { P_001 };
            p + alpha
        } else if avg < lo_fx && p >= P_001 {
            // beta = 0.9, rounded down.
            p * 9 / 10
        } else {
            return;
        };
        self.profile.set_max_p(new);
    }

    /// The current max_p.
    #[must_use]
    pub fn max_p(&self) -> U32F32 {
        self.profile.max_p()
    }

    /// The profile in force (with the current max_p).
    #[must_use]
    pub const fn profile(&self) -> &RedProfile {
        &self.profile
    }

    /// The RED state.
    #[must_use]
    pub const fn red(&self) -> &Red {
        &self.red
    }

    /// The adaptation interval in ticks.
    #[must_use]
    pub const fn interval_ticks(&self) -> u64 {
        self.interval
    }

    /// The instant the current adaptation interval began: the start, plus one
    /// interval per adaptation so far, or the instant of the last
    /// resynchronisation after a silence of more than
    /// [`MAX_CATCH_UP`](Self::MAX_CATCH_UP)
    /// intervals. The next adaptation is due one interval later.
    #[must_use]
    pub const fn interval_start(&self) -> Instant {
        self.last
    }

    /// The target band `[lo, hi]` as kept: `lo * 2^F` and `hi * 2^F`, in the
    /// units of [`Red::avg_bits`].
    #[must_use]
    pub const fn target_bits(&self) -> (u32, u32) {
        (self.lo_fx, self.hi_fx)
    }

    /// The target band `[lo, hi]` of the average, in queue units.
    #[must_use]
    pub fn target(&self) -> (U32F32, U32F32) {
        let a = &self.profile.common.avg;
        (a.units_of(self.lo_fx), a.units_of(self.hi_fx))
    }
}
