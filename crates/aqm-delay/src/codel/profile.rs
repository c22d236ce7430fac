//! CoDel's configuration, its control laws and the validated profile.

use core::time::Duration;

use netcond_core::{Instant, TickRate};

use super::{LINUX_TIME_SHIFT, MAX_EXACT_INTERVAL_TICKS};
use crate::DelayError;

/// How the next drop time is computed from `count` (RFC 8289 section 5.6,
/// `control_law`: `t + interval / sqrt(count)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ControlLaw {
    /// RFC 8289's law computed exactly on the caller's ticks:
    /// `drop_next = t + floor(interval / sqrt(count))`, where the floor is the
    /// largest integer `q` with `q^2 count <= interval^2` (an integer square
    /// root of `floor(interval^2 / count)` in 128-bit arithmetic). No rounding
    /// beyond that one floor, for every `count` up to `u32::MAX` (where it
    /// saturates) and every interval up to 2^57 ticks. The rest of the state
    /// machine follows RFC 8289's pseudocode: `dequeue` (section 5.5) and
    /// `dodequeue` (section 5.6).
    #[default]
    Exact,
    /// Linux's law (`include/net/codel.h`, `codel_impl.h`), as ns-3's
    /// `CoDelQueueDisc` also computes it: times are `u32` counts of 1024 ns
    /// (wrapping after about 73 minutes), `1/sqrt(count)` is cached as a `u16`
    /// (the upper half of a Q0.32 number) updated by one Newton step each time
    /// `count` changes, and `drop_next = t + floor(interval * (r << 16) / 2^32)`.
    /// The surrounding state machine is Linux's or ns-3's, chosen by
    /// [`LinuxVariant`]. With nanosecond ticks, the decisions are those of the
    /// kernel or of ns-3, packet for packet.
    Linux,
}

/// Which implementation's state machine runs around [`ControlLaw::Linux`]
/// (ignored by [`ControlLaw::Exact`]). The two share the law and the clock;
/// they differ in the details listed on each variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinuxVariant {
    /// `include/net/codel_impl.h` (`sch_codel`, `sch_fq_codel`): time
    /// comparisons are serial (`(s32)(a - b)`), the sojourn time is
    /// `(now >> 10) - (enqueue time >> 10)`, the minimum-bytes rule is
    /// `backlog <= mtu`, and an ECN mark in the dropping state schedules the
    /// next one from `drop_next`.
    #[default]
    Kernel,
    /// ns-3's `CoDelQueueDisc` (`src/traffic-control/model/codel-queue-disc.cc`):
    /// time comparisons are plain comparisons of the `u32` values (no
    /// wrap-around), the sojourn time is `(now - enqueue time) >> 10`, the
    /// minimum-bytes rule is `backlog < mtu` (ns-3's `MinBytes`), an ECN mark
    /// in the dropping state schedules the next one from `now`, and the
    /// re-entry test reads `count - lastcount` as a signed `int`.
    Ns3,
}

/// Configuration of a CoDel queue (RFC 8289).
///
/// ```
/// use aqm_delay::{CodelConfig, CodelProfile, ControlLaw};
/// use core::time::Duration;
/// use netcond_core::TickRate;
///
/// let cfg = CodelConfig::rfc8289()
///     .with_target(Duration::from_millis(10))
///     .with_interval(Duration::from_millis(200))
///     .with_ecn(true)
///     .with_tick(TickRate::MICROS);
/// let p = CodelProfile::new(&cfg).unwrap();
/// assert_eq!(p.control_law(), ControlLaw::Exact);
/// assert_eq!(p.target(), 10_000); // in ticks: microseconds
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct CodelConfig {
    /// TARGET, the acceptable standing queue delay (RFC 8289 section 4.3; 5 ms).
    pub target: Duration,
    /// INTERVAL, the sliding window of the minimum delay and the scale of the
    /// control law (RFC 8289 section 4.2; 100 ms).
    pub interval: Duration,
    /// MAXPACKET in bytes (RFC 8289 section 5.3, where the pseudocode's
    /// constant is 512 with a note to use the interface MTU instead; section
    /// 4.1 asks for at least an MTU's worth of bytes to stay queued): no drop
    /// while the bytes left in the queue after the head leaves are at most
    /// this (with [`LinuxVariant::Ns3`]: below this, ns-3's `MinBytes`).
    pub mtu: u32,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 3168 section 5).
    pub ecn: bool,
    /// The control law and its arithmetic.
    pub control_law: ControlLaw,
    /// The state machine around [`ControlLaw::Linux`].
    pub linux_variant: LinuxVariant,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig::rfc8289()
    }
}

impl CodelConfig {
    /// RFC 8289's defaults: target 5 ms (section 4.3), interval 100 ms
    /// (section 4.2), no ECN (the pseudocode drops), [`ControlLaw::Exact`],
    /// nanosecond ticks. MAXPACKET is 1500 bytes, an Ethernet MTU: the RFC's
    /// pseudocode writes 512 (section 5.3) but says to use the interface MTU,
    /// and 1500 is this crate's choice of one, not a number from the RFC.
    #[must_use]
    pub const fn rfc8289() -> CodelConfig {
        CodelConfig {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            mtu: 1500,
            ecn: false,
            control_law: ControlLaw::Exact,
            linux_variant: LinuxVariant::Kernel,
            tick: TickRate::NANOS,
        }
    }

    /// Linux `sch_codel`'s defaults: target 5 ms, interval 100 ms, `mtu` 1514
    /// (`psched_mtu` of an Ethernet device: MTU plus the 14-byte header), no
    /// ECN, [`ControlLaw::Linux`] with [`LinuxVariant::Kernel`], nanosecond ticks.
    #[must_use]
    pub const fn linux() -> CodelConfig {
        CodelConfig {
            mtu: 1514,
            control_law: ControlLaw::Linux,
            ..CodelConfig::rfc8289()
        }
    }

    /// ns-3 `CoDelQueueDisc`'s defaults: target 5 ms, interval 100 ms,
    /// `MinBytes` 1500, no ECN, [`ControlLaw::Linux`] with
    /// [`LinuxVariant::Ns3`], nanosecond ticks.
    #[must_use]
    pub const fn ns3() -> CodelConfig {
        CodelConfig {
            control_law: ControlLaw::Linux,
            linux_variant: LinuxVariant::Ns3,
            ..CodelConfig::rfc8289()
        }
    }

    /// TARGET.
    #[must_use]
    pub const fn with_target(mut self, target: Duration) -> CodelConfig {
        self.target = target;
        self
    }

    /// INTERVAL.
    #[must_use]
    pub const fn with_interval(mut self, interval: Duration) -> CodelConfig {
        self.interval = interval;
        self
    }

    /// MAXPACKET (the minimum-bytes rule).
    #[must_use]
    pub const fn with_mtu(mut self, mtu: u32) -> CodelConfig {
        self.mtu = mtu;
        self
    }

    /// ECN marking of ECN-capable packets instead of dropping.
    #[must_use]
    pub const fn with_ecn(mut self, ecn: bool) -> CodelConfig {
        self.ecn = ecn;
        self
    }

    /// The control law.
    #[must_use]
    pub const fn with_control_law(mut self, law: ControlLaw) -> CodelConfig {
        self.control_law = law;
        self
    }

    /// The state machine around [`ControlLaw::Linux`].
    #[must_use]
    pub const fn with_linux_variant(mut self, variant: LinuxVariant) -> CodelConfig {
        self.linux_variant = variant;
        self
    }

    /// The clock of the `Instant`s passed in (by default nanoseconds).
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> CodelConfig {
        self.tick = tick;
        self
    }
}

/// [`ControlLaw`], [`LinuxVariant`] and the clock as the per-packet path
/// tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) enum Mode {
    /// [`ControlLaw::Exact`].
    Exact,
    /// [`ControlLaw::Linux`] with [`LinuxVariant::Kernel`], a whole number
    /// of nanoseconds per tick.
    Kernel,
    /// [`ControlLaw::Linux`] with [`LinuxVariant::Ns3`], a whole number of
    /// nanoseconds per tick.
    Ns3,
    /// [`ControlLaw::Linux`] on a clock faster than 1 GHz or not dividing it.
    LinuxOddClock,
}

/// A validated CoDel configuration: durations converted once to the units the
/// law works in (ticks for [`ControlLaw::Exact`], 1024 ns units for
/// [`ControlLaw::Linux`]). Shared by any number of [`Codel`](super::Codel) states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CodelProfile {
    pub(crate) law: ControlLaw,
    pub(crate) variant: LinuxVariant,
    /// The law and the variant in one, for the per-packet path's one test.
    pub(crate) mode: Mode,
    pub(crate) ecn: bool,
    pub(crate) mtu: u32,
    /// Exact: ticks; Linux: 1024 ns units (below 2^31).
    pub(crate) target: u64,
    /// Exact: ticks (1..=2^57); Linux: 1024 ns units (1..2^31).
    pub(crate) interval: u64,
    /// Ticks per second.
    pub(crate) hz: u64,
    /// Nanoseconds per tick when whole (10^9 divisible by hz), else 0.
    pub(crate) ns_per_tick: u64,
}

impl CodelProfile {
    /// Validates `cfg`: target and interval at least one unit of the law's
    /// clock, target below interval, interval within the law's range.
    ///
    /// # Errors
    ///
    /// [`DelayError::ZeroTarget`], [`DelayError::ZeroInterval`],
    /// [`DelayError::TargetNotBelowInterval`], [`DelayError::IntervalTooLong`].
    pub fn new(cfg: &CodelConfig) -> Result<CodelProfile, DelayError> {
        let hz = cfg.tick.hz();
        let (target, interval) = match cfg.control_law {
            // Saturating at u64::MAX ticks, past the longest interval.
            ControlLaw::Exact => (
                u128::from(cfg.tick.ticks_from_duration(cfg.target)),
                u128::from(cfg.tick.ticks_from_duration(cfg.interval)),
            ),
            ControlLaw::Linux => {
                let conv = |d: Duration| -> u128 { d.as_nanos() >> LINUX_TIME_SHIFT };
                (conv(cfg.target), conv(cfg.interval))
            }
        };
        let max_interval: u128 = match cfg.control_law {
            ControlLaw::Exact => u128::from(MAX_EXACT_INTERVAL_TICKS),
            // Serial u32 comparisons: below 2^31 units (about 36 minutes).
            ControlLaw::Linux => (1 << 31) - 1,
        };
        if target == 0 {
            return Err(DelayError::ZeroTarget);
        }
        if interval == 0 {
            return Err(DelayError::ZeroInterval);
        }
        if interval > max_interval {
            return Err(DelayError::IntervalTooLong);
        }
        if target >= interval {
            return Err(DelayError::TargetNotBelowInterval);
        }
        let ns_per_tick = if 1_000_000_000 % hz == 0 {
            1_000_000_000 / hz
        } else {
            0
        };
        let mode = match (cfg.control_law, cfg.linux_variant) {
            (ControlLaw::Exact, _) => Mode::Exact,
            (ControlLaw::Linux, _) if ns_per_tick == 0 => Mode::LinuxOddClock,
            (ControlLaw::Linux, LinuxVariant::Kernel) => Mode::Kernel,
            (ControlLaw::Linux, LinuxVariant::Ns3) => Mode::Ns3,
        };
        // Both fit in u64: checked against max_interval above.
        Ok(CodelProfile {
            law: cfg.control_law,
            variant: cfg.linux_variant,
            mode,
            ecn: cfg.ecn,
            mtu: cfg.mtu,
            target: target as u64,
            interval: interval as u64,
            hz,
            ns_per_tick,
        })
    }

    /// The control law.
    #[must_use]
    pub const fn control_law(&self) -> ControlLaw {
        self.law
    }

    /// The Linux variant (meaningful with [`ControlLaw::Linux`]).
    #[must_use]
    pub const fn linux_variant(&self) -> LinuxVariant {
        self.variant
    }

    /// TARGET in the law's units: ticks ([`ControlLaw::Exact`]) or 1024 ns
    /// units ([`ControlLaw::Linux`]).
    #[must_use]
    pub const fn target(&self) -> u64 {
        self.target
    }

    /// INTERVAL in the law's units (see [`target`](Self::target)).
    #[must_use]
    pub const fn interval(&self) -> u64 {
        self.interval
    }

    /// MAXPACKET (or ns-3's `MinBytes`).
    #[must_use]
    pub const fn mtu(&self) -> u32 {
        self.mtu
    }

    /// Whether ECN-capable packets are marked instead of dropped.
    #[must_use]
    pub const fn ecn(&self) -> bool {
        self.ecn
    }

    /// Nanoseconds since the clock's origin at `t` (modulo 2^64), as Linux's
    /// `ktime_get_ns` would read it.
    #[inline]
    pub(crate) fn nanos(&self, t: Instant) -> u64 {
        if self.mode == Mode::LinuxOddClock {
            nanos_of_odd_clock(t.ticks(), self.hz)
        } else {
            t.ticks().wrapping_mul(self.ns_per_tick)
        }
    }

    /// Linux's `codel_get_time()` at `t`: nanoseconds >> 10, truncated to u32.
    #[inline]
    pub(crate) fn codel_time(&self, t: Instant) -> u32 {
        (self.nanos(t) >> LINUX_TIME_SHIFT) as u32
    }
}

/// Nanoseconds at `ticks` of a clock of `hz` that is faster than 1 GHz or
/// does not divide it: the exact floor, modulo 2^64. Out of line, as
/// [`exact_spacing`](super::exact_spacing) is, for its 128-bit division.
#[inline(never)]
fn nanos_of_odd_clock(ticks: u64, hz: u64) -> u64 {
    (u128::from(ticks) * 1_000_000_000 / u128::from(hz)) as u64
}
