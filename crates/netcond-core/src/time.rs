//! Time as ticks of a clock fixed at configuration time.

/// A point in time: a count of ticks of the caller's clock.
///
/// The tick frequency is not stored here: it is fixed once, when a profile is
/// built (see [`TickRate`]). Instants compare with serial-number arithmetic in
/// [`ticks_since`](Instant::ticks_since): the difference is taken modulo 2^64 and
/// a difference of 2^63 ticks or more means "earlier", so a free-running counter
/// may wrap around.
///
/// The serial-time rule, exactly: with `d = now - last` modulo 2^64, a `d` below
/// 2^63 is `d` ticks forward; a `d` of 2^63 or more is read as a step backwards,
/// whatever the caller meant: no time passes and the last-seen instant stays
/// where it was ([`advance_to`](Instant::advance_to)). So a forward step of 2^63
/// ticks or more (292 years of nanosecond ticks, 73 years at 4 GHz) is lost:
/// every state machine in netcond counts no time for it, and keeps counting none
/// for every later instant until the clock again reads less than 2^63 ticks
/// after the last-seen one (modulo 2^64). A caller whose clock can jump that far
/// restarts the state at the new instant: every state's constructor takes its
/// start instant, `State::new(&profile, now)` (docs/architecture.md, "The
/// state contract").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Instant(u64);

impl Instant {
    /// Tick zero.
    pub const ZERO: Instant = Instant(0);

    /// The instant `ticks` ticks after the clock's origin.
    #[inline]
    #[must_use]
    pub const fn from_ticks(ticks: u64) -> Instant {
        Instant(ticks)
    }

    /// The tick count.
    #[inline]
    #[must_use]
    pub const fn ticks(self) -> u64 {
        self.0
    }

    /// Ticks elapsed from `earlier` to `self`, or zero when `self` is older than
    /// `earlier` (serial-number comparison: modulo 2^64, half range).
    #[inline]
    #[must_use]
    pub const fn ticks_since(self, earlier: Instant) -> u64 {
        let d = self.0.wrapping_sub(earlier.0);
        if d > i64::MAX as u64 {
            0
        } else {
            d
        }
    }

    /// The instant `ticks` later, wrapping modulo 2^64.
    #[inline]
    #[must_use]
    pub const fn wrapping_add(self, ticks: u64) -> Instant {
        Instant(self.0.wrapping_add(ticks))
    }

    /// Moves this "last seen" instant forward to `now` and returns the ticks
    /// elapsed. A `now` older than `self` returns zero and leaves `self` as it
    /// was, so that the interval is not counted twice when the clock catches up:
    /// a clock that steps backwards never creates tokens.
    #[inline]
    pub fn advance_to(&mut self, now: Instant) -> u64 {
        let d = now.0.wrapping_sub(self.0);
        let backwards = d > i64::MAX as u64;
        // Written as selects so that it compiles without branches.
        self.0 = if backwards { self.0 } else { now.0 };
        if backwards {
            0
        } else {
            d
        }
    }

    /// `advance_to(now).min(cap)`, for a per-packet path where the clock almost
    /// never steps backwards: the same result and the same effect on `self` as
    /// [`advance_to`](Instant::advance_to) with the elapsed ticks capped, the
    /// backwards case a branch marked cold ([`hint::cold_path`](crate::hint::cold_path))
    /// instead of a select, with no call in it, so that a function built around a
    /// per-packet step needs no callee-saved registers for that case. The cap is
    /// taken on the common branch only (a meter's longest useful elapsed time;
    /// `u64::MAX` for none). The meters' fast paths use it.
    ///
    /// ```
    /// use netcond_core::Instant;
    ///
    /// let mut last = Instant::from_ticks(100);
    /// assert_eq!(last.advance_to_capped(Instant::from_ticks(150), u64::MAX), 50);
    /// assert_eq!(last, Instant::from_ticks(150));
    /// // Capped: the instant still moves all the way.
    /// assert_eq!(last.advance_to_capped(Instant::from_ticks(1_150), 300), 300);
    /// assert_eq!(last, Instant::from_ticks(1_150));
    /// // Backwards: no time passes and `last` stays.
    /// assert_eq!(last.advance_to_capped(Instant::from_ticks(120), 300), 0);
    /// assert_eq!(last, Instant::from_ticks(1_150));
    /// ```
    #[inline(always)]
    pub fn advance_to_capped(&mut self, now: Instant, cap: u64) -> u64 {
        self.advance_hot::<true>(now, cap)
    }

    /// [`advance_to_capped`](Instant::advance_to_capped) with no cap: the same
    /// result as [`advance_to`](Instant::advance_to), the backwards case a cold
    /// branch.
    #[inline(always)]
    pub fn advance_to_hot(&mut self, now: Instant) -> u64 {
        self.advance_hot::<false>(now, u64::MAX)
    }

    /// The two forms above: with `CAPPED` false the cap is not applied at all,
    /// which gives the compiler one operation fewer to fold away.
    #[inline(always)]
    fn advance_hot<const CAPPED: bool>(&mut self, now: Instant, cap: u64) -> u64 {
        let d = now.0.wrapping_sub(self.0);
        if d > i64::MAX as u64 {
            crate::hint::cold_path();
            // A zero the compiler cannot see through, only on this rare path,
            // so that the two arms are not merged into selects on the common one.
            core::hint::black_box(0)
        } else {
            self.0 = now.0;
            if CAPPED {
                d.min(cap)
            } else {
                d
            }
        }
    }
}

/// The frequency of the tick clock, in ticks per second (never zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TickRate(u64);

/// Any clock but zero ticks per second: a zero from the input is read as one.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for TickRate {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(TickRate(u64::arbitrary(u)?.max(1)))
    }

    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        u64::size_hint(depth)
    }
}

impl Default for TickRate {
    fn default() -> Self {
        TickRate::NANOS
    }
}

impl TickRate {
    /// Nanosecond ticks (10^9 per second), the default.
    pub const NANOS: TickRate = TickRate(1_000_000_000);
    /// Microsecond ticks.
    pub const MICROS: TickRate = TickRate(1_000_000);
    /// Millisecond ticks.
    pub const MILLIS: TickRate = TickRate(1_000);

    /// A clock of `hz` ticks per second; `None` for zero.
    #[inline]
    #[must_use]
    pub const fn from_hz(hz: u64) -> Option<TickRate> {
        if hz == 0 {
            None
        } else {
            Some(TickRate(hz))
        }
    }

    /// Ticks per second.
    #[inline]
    #[must_use]
    pub const fn hz(self) -> u64 {
        self.0
    }

    /// The number of ticks in `nanos` nanoseconds, rounded down (configuration
    /// time helper; saturates).
    #[must_use]
    pub const fn ticks_from_nanos(self, nanos: u64) -> u64 {
        let t = (nanos as u128) * (self.0 as u128) / 1_000_000_000;
        if t > u64::MAX as u128 {
            u64::MAX
        } else {
            t as u64
        }
    }

    /// The number of ticks in the duration `d`, rounded down (saturates): how
    /// every configuration's durations become ticks, once, when its profile is
    /// built. Exact: whole seconds times `hz` (below 2^128) plus the
    /// nanoseconds' ticks rounded down, for any duration and clock.
    ///
    /// ```
    /// use core::time::Duration;
    /// use netcond_core::TickRate;
    ///
    /// let ghz = TickRate::from_hz(2_300_000_000).unwrap();
    /// assert_eq!(ghz.ticks_from_duration(Duration::from_nanos(1)), 2);
    /// assert_eq!(TickRate::MICROS.ticks_from_duration(Duration::from_millis(5)), 5_000);
    /// assert_eq!(TickRate::NANOS.ticks_from_duration(Duration::MAX), u64::MAX);
    /// ```
    #[must_use]
    pub const fn ticks_from_duration(self, d: core::time::Duration) -> u64 {
        let hz = self.0 as u128;
        let t = d.as_secs() as u128 * hz + d.subsec_nanos() as u128 * hz / 1_000_000_000;
        if t > u64::MAX as u128 {
            u64::MAX
        } else {
            t as u64
        }
    }

    /// The number of ticks in `num/den` seconds, rounded down (saturates; a zero
    /// `den` saturates too).
    #[must_use]
    pub const fn ticks_from_secs_ratio(self, num: u64, den: u64) -> u64 {
        if den == 0 {
            return u64::MAX;
        }
        let t = (num as u128) * (self.0 as u128) / (den as u128);
        if t > u64::MAX as u128 {
            u64::MAX
        } else {
            t as u64
        }
    }

    /// The nanoseconds in `ticks` ticks, rounded down (saturates).
    #[must_use]
    pub const fn nanos_from_ticks(self, ticks: u64) -> u64 {
        let t = (ticks as u128) * 1_000_000_000 / (self.0 as u128);
        if t > u64::MAX as u128 {
            u64::MAX
        } else {
            t as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_forward_and_backward() {
        let a = Instant::from_ticks(100);
        let b = Instant::from_ticks(250);
        assert_eq!(b.ticks_since(a), 150);
        assert_eq!(a.ticks_since(b), 0);
        assert_eq!(a.ticks_since(a), 0);
    }

    #[test]
    fn elapsed_across_wrap() {
        let a = Instant::from_ticks(u64::MAX - 9);
        let b = a.wrapping_add(30);
        assert_eq!(b.ticks(), 20);
        assert_eq!(b.ticks_since(a), 30);
        assert_eq!(a.ticks_since(b), 0);
    }

    #[test]
    fn advance_never_counts_twice() {
        let mut last = Instant::from_ticks(1_000);
        assert_eq!(last.advance_to(Instant::from_ticks(1_500)), 500);
        // Clock steps back: nothing elapses, and `last` keeps the newest time.
        assert_eq!(last.advance_to(Instant::from_ticks(1_200)), 0);
        assert_eq!(last, Instant::from_ticks(1_500));
        // Catching up again only counts the time after 1_500.
        assert_eq!(last.advance_to(Instant::from_ticks(1_600)), 100);
    }

    /// The per-packet forms against `advance_to`: the same result (capped, or
    /// not) and the same last-seen instant on each side of the serial-time
    /// edge (2^63 - 1 ticks forward, 2^63 "backwards"), at zero, and across
    /// the wrap.
    #[test]
    fn per_packet_forms_are_advance_to() {
        let edge = i64::MAX as u64;
        for start in [0u64, 1_000, u64::MAX - 9, 1 << 63] {
            for step in [
                0u64,
                1,
                500,
                edge - 1,
                edge,
                edge + 1,
                u64::MAX,
                u64::MAX - 299,
            ] {
                let now = Instant::from_ticks(start).wrapping_add(step);
                for cap in [0u64, 1, 499, 500, 501, edge, u64::MAX] {
                    let (mut a, mut b) = (Instant::from_ticks(start), Instant::from_ticks(start));
                    let want = a.advance_to(now).min(cap);
                    assert_eq!(b.advance_to_capped(now, cap), want, "{start} {step} {cap}");
                    assert_eq!(a, b, "{start} {step} {cap}");
                }
                let (mut a, mut b) = (Instant::from_ticks(start), Instant::from_ticks(start));
                assert_eq!(a.advance_to(now), b.advance_to_hot(now), "{start} {step}");
                assert_eq!(a, b, "{start} {step}");
            }
        }
        let mut last = Instant::from_ticks(7);
        assert_eq!(
            last.advance_to_capped(Instant::from_ticks(7 + edge), u64::MAX),
            edge
        );
        assert_eq!(last, Instant::from_ticks(7 + edge));
    }

    #[test]
    fn tick_rate_conversions() {
        assert!(TickRate::from_hz(0).is_none());
        let cyc = TickRate::from_hz(2_300_000_000).unwrap();
        assert_eq!(cyc.ticks_from_nanos(1_000), 2_300);
        assert_eq!(cyc.nanos_from_ticks(2_300), 1_000);
        assert_eq!(TickRate::NANOS.ticks_from_secs_ratio(1, 2), 500_000_000);
        assert_eq!(TickRate::NANOS.ticks_from_secs_ratio(1, 0), u64::MAX);
        assert_eq!(TickRate::default(), TickRate::NANOS);
        assert_eq!(TickRate::NANOS.ticks_from_nanos(u64::MAX), u64::MAX);
    }
}
