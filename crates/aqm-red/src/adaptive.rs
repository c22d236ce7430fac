//! Adaptive RED (Floyd, Gummadi and Shenker 2001): max_p follows the load so
//! that the average stays in a target band between the thresholds.

use core::time::Duration;

use fixed::types::U32F32;
use netcond_core::{Instant, RandomSource};

use crate::curve::Curve;
use crate::red::FastLine;
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

/// An Adaptive RED configuration: a [`RedConfig`] (whose `max_p` is the
/// initial one) and the adaptation interval.
///
/// Built with [`paper`](Self::paper) or [`new`](Self::new) and the `with_*`
/// builders (or by setting the public fields of a built value); new fields may
/// be added.
///
/// ```
/// use core::time::Duration;
/// use aqm_red::{AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile, RedConfig};
/// use netcond_core::Instant;
///
/// let red = RedConfig::packets(20, 60, RedConfig::prob(0.1), RedConfig::prob(0.002), 100);
/// let cfg = AdaptiveRedConfig::paper(red);
/// assert_eq!(cfg, AdaptiveRedConfig::new(red, Duration::from_millis(500)));
/// let profile = AdaptiveRedProfile::new(&cfg).unwrap();
/// // 0.5 s on the RED configuration's clock (nanoseconds).
/// assert_eq!(profile.interval_ticks(), 500_000_000);
/// let queue = AdaptiveRed::new(&profile, Instant::ZERO);
/// assert_eq!(queue.max_p(), RedConfig::prob(0.1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct AdaptiveRedConfig {
    /// The RED queue, with the initial max_p; its `tick` is also the clock of
    /// the interval.
    pub red: RedConfig,
    /// The adaptation interval (0.5 s in the paper). The profile converts it
    /// once to whole ticks of `red.tick` (rounded down) and refuses zero
    /// ticks.
    pub interval: Duration,
}

impl AdaptiveRedConfig {
    /// `red` adapted every `interval`.
    #[must_use]
    pub const fn new(red: RedConfig, interval: Duration) -> AdaptiveRedConfig {
        AdaptiveRedConfig { red, interval }
    }

    /// `red` adapted every 0.5 s, the paper's interval.
    #[must_use]
    pub const fn paper(red: RedConfig) -> AdaptiveRedConfig {
        AdaptiveRedConfig::new(red, Duration::from_millis(500))
    }

    /// With the RED configuration `red`.
    #[must_use]
    pub const fn with_red(mut self, red: RedConfig) -> AdaptiveRedConfig {
        self.red = red;
        self
    }

    /// With the adaptation interval `interval`.
    #[must_use]
    pub const fn with_interval(mut self, interval: Duration) -> AdaptiveRedConfig {
        self.interval = interval;
        self
    }
}

/// The constants of one Adaptive RED configuration, shared by every queue
/// that uses it: the RED profile with the initial max_p, the interval in
/// ticks and the target band. The adapted max_p is per queue, in
/// [`AdaptiveRed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdaptiveRedProfile {
    red: RedProfile,
    interval: u64,
    /// Target band in average units.
    lo_fx: u32,
    hi_fx: u32,
}

impl AdaptiveRedProfile {
    /// Checks `cfg` (the interval first: [`RedError::ZeroInterval`] when it
    /// is less than one tick of `cfg.red.tick`; then as
    /// [`RedProfile::new`]) and precomputes the constants.
    pub fn new(cfg: &AdaptiveRedConfig) -> Result<AdaptiveRedProfile, RedError> {
        let interval = cfg.red.tick.ticks_from_duration(cfg.interval);
        if interval == 0 {
            return Err(RedError::ZeroInterval);
        }
        let red = RedProfile::new(&cfg.red)?;
        let c = &red.curve;
        let range = (c.max_fx - c.min_fx as u64) as u32;
        // 0.4 and 0.6 of the range, rounded down (configuration time).
        let lo_fx = c.min_fx + ((range as u64 * 2) / 5) as u32;
        let hi_fx = c.min_fx + ((range as u64 * 3) / 5) as u32;
        Ok(AdaptiveRedProfile {
            red,
            interval,
            lo_fx,
            hi_fx,
        })
    }

    /// The RED profile, with the configured (initial) max_p: for
    /// [`Red::avg`] on [`AdaptiveRed::red`], [`RedProfile::limit`] and the
    /// other constants.
    #[must_use]
    pub const fn red(&self) -> &RedProfile {
        &self.red
    }

    /// The adaptation interval in ticks.
    #[must_use]
    pub const fn interval_ticks(&self) -> u64 {
        self.interval
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
        let a = &self.red.common.avg;
        (a.units_of(self.lo_fx), a.units_of(self.hi_fx))
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
/// The per-queue state: the RED state, the adapted max_p with the curve
/// constants derived from it, and the adaptation clock. The profile
/// ([`AdaptiveRedProfile`]) holds only constants, so any number of queues
/// share one, each adapting on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct AdaptiveRed {
    /// The short path's constants for the current max_p (first: one line).
    fast: FastLine,
    /// The curve for the current max_p.
    curve: Curve,
    pub(crate) red: Red,
    last: Instant,
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

    /// A queue with the profile's initial max_p, adapting from `now` on; its
    /// RED state's time-keeping starts at `now` too ([`Red::new`]).
    #[must_use]
    pub const fn new(profile: &AdaptiveRedProfile, now: Instant) -> AdaptiveRed {
        AdaptiveRed {
            fast: profile.red.fast,
            curve: profile.red.curve,
            red: Red::new(&profile.red, now),
            last: now,
        }
    }

    /// Runs the adaptations due by `now` (one per elapsed interval, at most
    /// 128 per call), then decides as [`Red::on_arrival`] with the current
    /// max_p.
    #[inline]
    pub fn on_arrival<R: RandomSource + ?Sized>(
        &mut self,
        profile: &AdaptiveRedProfile,
        now: Instant,
        queue_len: u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        self.adapt(profile, now);
        self.red.arrive(
            &self.fast,
            &profile.red.common,
            &self.curve,
            now,
            queue_len,
            pkt,
            rng,
        )
    }

    /// See [`Red::on_queue_empty`].
    #[inline]
    pub fn on_queue_empty(&mut self, profile: &AdaptiveRedProfile, now: Instant) {
        self.red.on_queue_empty(&profile.red, now);
    }

    /// Runs the adaptations due by `now`; returns how many ran.
    pub fn adapt(&mut self, profile: &AdaptiveRedProfile, now: Instant) -> u32 {
        let mut elapsed = now.ticks_since(self.last);
        let mut n = 0;
        while elapsed >= profile.interval {
            if n == MAX_CATCH_UP {
                // Far behind (a long silence): resynchronise on now.
                self.last = now;
                return n;
            }
            elapsed -= profile.interval;
            self.last = self.last.wrapping_add(profile.interval);
            self.step(profile);
            n += 1;
        }
        n
    }

    /// One adaptation, as the paper's figure 2.
    fn step(&mut self, profile: &AdaptiveRedProfile) {
        let avg = self.red.avg_bits();
        let p = self.curve.max_p;
        let new = if avg > profile.hi_fx && p <= P_05 {
            let alpha = if p / 4 < P_001 { p / 4 } else { P_001 };
            p + alpha
        } else if avg < profile.lo_fx && p >= P_001 {
            // beta = 0.9, rounded down.
            p * 9 / 10
        } else {
            return;
        };
        let common = &profile.red.common;
        self.curve.set_max_p(&common.avg, new);
        self.fast = FastLine::new(common, &self.curve);
    }

    /// The current max_p.
    #[must_use]
    pub fn max_p(&self) -> U32F32 {
        U32F32::from_bits(self.curve.max_p)
    }

    /// p_b at an average of `avg` queue units with the current max_p, as
    /// [`RedProfile::p_b`].
    #[must_use]
    pub fn p_b(&self, profile: &AdaptiveRedProfile, avg: U32F32) -> U32F32 {
        profile.red.p_b_on(&self.curve, avg)
    }

    /// A RED profile with this queue's current curve: `profile`'s constants
    /// and the adapted max_p (for the invariants and the tests).
    #[cfg(any(test, feature = "invariants"))]
    pub(crate) fn current_profile(&self, profile: &AdaptiveRedProfile) -> RedProfile {
        RedProfile {
            fast: self.fast,
            common: profile.red.common,
            curve: self.curve,
        }
    }

    /// The RED state.
    #[must_use]
    pub const fn red(&self) -> &Red {
        &self.red
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
}
