//! Scaled token units shared by the meters of this crate.
//!
//! Every bucket here counts tokens in units of `1 / (scale * k)` byte, where
//! `scale` and the per-tick increment `inc` come from
//! [`netcond_core::BucketProfile`] (one tick adds exactly `inc` units, one byte
//! costs exactly `scale` units) and `k` is an extra refinement factor, 1 except
//! for the proportional reduction of 3sM (`s * size / MTU`), where
//! `k = MTU / gcd(s * scale, MTU)` makes `s * scale * k / MTU` a whole number of
//! units per byte, so that the reduction is exact too.
//!
//! Capacities stay below 2^62 units, so a full bucket plus one more addition of
//! at most 2^62 units never overflows a `u64`, and a signed fill bounded below by
//! [`FLOOR`] never overflows an `i64`.

use netcond_core::{BucketProfile, Instant, Rate, TickRate};

/// 2^62: the largest capacity (exclusive) and the cap of any per-packet amount.
pub(crate) const MAX_UNITS: u64 = 1 << 62;

/// The lowest value a signed fill may take: -2^62 units. Only a bucket driven
/// down by an unbounded run of marks (seed 000 section 4.8 with `px` smaller than
/// the packets) or by packets of about 2^62 units can reach it; a fill that
/// would go lower is held there. A packet's cost is itself held at 2^62 units
/// first, so one packet takes at most 2^62 units from a non-negative fill. The
/// reference models ([`reference`](mod@crate::reference)) model both limits.
pub const FLOOR: i64 = -(1 << 62);

/// The precomputed units of one bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Units {
    /// Units added per tick (saturated at `u64::MAX`: then any tick fills it).
    pub inc: u64,
    /// Units per byte.
    pub scale: u64,
    /// Capacity in units, below 2^62.
    pub cap: u64,
}

impl Units {
    /// Units of a bucket of `size` bytes at `rate`, refined by `k`. `None` if the
    /// capacity or the scale does not stay below 2^62.
    pub(crate) fn new(rate: Rate, size: u64, tick: TickRate, k: u64) -> Option<Units> {
        let b = BucketProfile::new(rate, size, tick).ok()?;
        let scale = b.scale() as u128 * k as u128;
        let cap = b.full() as u128 * k as u128;
        if scale >= MAX_UNITS as u128 || cap >= MAX_UNITS as u128 {
            return None;
        }
        Some(Units {
            inc: b.inc().saturating_mul(k),
            scale: scale as u64,
            cap: cap as u64,
        })
    }

    /// Units of `bytes` bytes, `None` at or above 2^62.
    pub(crate) fn bytes(&self, bytes: u64) -> Option<u64> {
        let u = bytes as u128 * self.scale as u128;
        if u >= MAX_UNITS as u128 {
            None
        } else {
            Some(u as u64)
        }
    }

    /// The tokens `dt` ticks bring, held at 2^62 (more than any capacity). It
    /// depends on time only, so it stays off the fill's dependency chain.
    #[inline(always)]
    pub(crate) fn gain(&self, dt: u64) -> u64 {
        let g = dt.saturating_mul(self.inc);
        if g > MAX_UNITS {
            MAX_UNITS
        } else {
            g
        }
    }

    /// `min(x, cap)`.
    #[inline(always)]
    pub(crate) fn cap_at(&self, x: u64) -> u64 {
        if x > self.cap {
            self.cap
        } else {
            x
        }
    }

    /// The unsigned fill after `dt` ticks, capped at the capacity. `fill` must
    /// not exceed the capacity (true of every unsigned bucket here), so the sum
    /// stays below 2^63.
    #[inline(always)]
    pub(crate) fn refill(&self, fill: u64, dt: u64) -> u64 {
        self.cap_at(fill + self.gain(dt))
    }

    /// The signed fill after `dt` ticks: `min(fill + dt * inc, cap)`.
    #[inline(always)]
    pub(crate) fn refill_signed(&self, fill: i64, dt: u64) -> i64 {
        let cap = self.cap as i64;
        if fill >= cap {
            return cap;
        }
        // fill >= FLOOR = -2^62 and cap < 2^62, so the room is below 2^63.
        let room = (cap - fill) as u64;
        let gain = dt.saturating_mul(self.inc);
        if gain >= room {
            cap
        } else {
            fill + gain as i64
        }
    }

    /// The cost of a `len`-byte packet in units, capped at 2^62.
    #[inline(always)]
    pub(crate) fn cost(&self, len: u32) -> u64 {
        let c = (len as u64).saturating_mul(self.scale);
        if c > MAX_UNITS {
            MAX_UNITS
        } else {
            c
        }
    }
}

/// `fill - cost` held at [`FLOOR`]; `cost` is at most 2^62.
#[inline(always)]
pub(crate) fn sub_floor(fill: i64, cost: u64) -> i64 {
    // fill >= FLOOR and cost <= 2^62: the difference is >= -2^63, no overflow.
    let t = fill - cost as i64;
    if t < FLOOR {
        FLOOR
    } else {
        t
    }
}

/// True when serial time `now` has reached `deadline` (modulo 2^64, half range).
#[inline(always)]
pub(crate) fn reached(now: Instant, deadline: Instant) -> bool {
    now.ticks().wrapping_sub(deadline.ticks()) <= i64::MAX as u64
}

/// The longest timer or interval, in ticks: 2^62 (146 years at 1 ns). The
/// deadlines are serial times compared over half the 64-bit range, so a
/// duration must stay well below 2^63 ticks for "reached" to mean anything.
pub const MAX_DURATION_TICKS: u64 = 1 << 62;

/// Ticks in `nanos` nanoseconds of clock `tick`, refused when zero or longer
/// than [`MAX_DURATION_TICKS`].
pub(crate) fn duration_ticks(tick: TickRate, nanos: u64) -> Result<u64, crate::EdgeError> {
    match tick.ticks_from_nanos(nanos) {
        0 => Err(crate::EdgeError::ZeroDuration),
        t if t > MAX_DURATION_TICKS => Err(crate::EdgeError::DurationTooLong),
        t => Ok(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_refill_caps_and_never_overflows() {
        let u = Units::new(Rate::from_bytes_per_sec(1_000), 100, TickRate::MILLIS, 1).unwrap();
        assert_eq!((u.inc, u.scale, u.cap), (1, 1, 100));
        assert_eq!(u.refill_signed(-50, 30), -20);
        assert_eq!(u.refill_signed(-50, u64::MAX), 100);
        assert_eq!(u.refill_signed(FLOOR, u64::MAX), 100);
        assert_eq!(u.refill_signed(500, 0), 100);
        assert_eq!(sub_floor(FLOOR, MAX_UNITS), FLOOR);
        assert_eq!(sub_floor(10, 4), 6);
        assert_eq!(u.cost(u32::MAX), u32::MAX as u64);
    }

    #[test]
    fn serial_deadlines() {
        let d = Instant::from_ticks(u64::MAX - 5);
        assert!(reached(Instant::from_ticks(3), d));
        assert!(reached(d, d));
        assert!(!reached(Instant::from_ticks(u64::MAX - 6), d));
    }

    #[test]
    fn durations_are_bounded_both_ways() {
        use crate::EdgeError;
        let ghz4 = TickRate::from_hz(4_000_000_000).unwrap();
        assert_eq!(
            duration_ticks(TickRate::NANOS, 0),
            Err(EdgeError::ZeroDuration)
        );
        assert_eq!(
            duration_ticks(TickRate::MILLIS, 999_999),
            Err(EdgeError::ZeroDuration)
        );
        assert_eq!(duration_ticks(TickRate::NANOS, 1), Ok(1));
        assert_eq!(duration_ticks(TickRate::NANOS, 1 << 62), Ok(1 << 62));
        assert_eq!(
            duration_ticks(TickRate::NANOS, (1 << 62) + 1),
            Err(EdgeError::DurationTooLong)
        );
        // 2^63 ticks: "reached" cannot tell such a deadline from a past one.
        assert_eq!(
            duration_ticks(ghz4, 1 << 61),
            Err(EdgeError::DurationTooLong)
        );
        assert_eq!(
            duration_ticks(ghz4, u64::MAX),
            Err(EdgeError::DurationTooLong)
        );
    }
}
