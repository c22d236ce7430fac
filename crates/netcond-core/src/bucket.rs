//! The exact token bucket shared by the meters.
//!
//! # Representation
//!
//! A bucket of `rate` bits per second on a clock of `hz` ticks per second gains
//! `rate / (8 hz)` bytes per tick, which is rarely a whole number. Instead of
//! rounding it, tokens are counted in units of `1/scale` byte, with
//!
//! ```text
//! g     = gcd(rate_bits, 8 hz)
//! inc   = rate_bits / g        units gained per tick
//! scale = 8 hz / g             units per byte
//! ```
//!
//! so that one tick adds exactly `inc` units. Refilling `dt` ticks is one multiply
//! (`dt * inc`), the cost of a `B`-byte packet is one multiply (`B * scale`), and
//! nothing is ever rounded: over any interval whose timestamps are each less than
//! 2^63 ticks after the one before (the serial-time rule of [`Instant`](crate::Instant)),
//! the bucket hands out at most `size + rate x time` bytes, and exactly that, to
//! within one packet, to a stream that keeps it busy, with no drift however long it
//! runs. The divisions above happen once, when the profile is built.
//!
//! # Bounds
//!
//! The bucket's capacity `size * scale` must stay below 2^62 units (checked by
//! [`BucketProfile::new`]). The products `dt * inc` and `B * scale` saturate
//! instead of overflowing; a saturated refill means the bucket is full anyway,
//! and a saturated cost means the packet cannot conform, both of which are the
//! exact answers. Hence no input overflows.

use crate::{Rate, TickRate};

/// The largest capacity, in units, that a bucket may have: 2^62. Two full buckets
/// plus a refill then still fit in a `u64`.
pub const MAX_UNITS: u64 = 1 << 62;

crate::config_error! {
    /// Why a token bucket could not be represented.
    pub enum BucketError {
        /// `size x scale` does not fit the token counter.
        TooLarge => "bucket size times the clock's resolution must be below 2^62 token units \
                     (size_bytes * 8 * tick_hz / gcd(rate_bits, 8 * tick_hz)); \
                     use a coarser clock or a smaller bucket",
    }
}

/// The precomputed constants of one token bucket: rate, size and clock.
///
/// This is the immutable part, shared by every flow metered with the same
/// parameters; the token count itself is a plain `u64` kept by the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BucketProfile {
    inc: u64,
    scale: u64,
    cap: u64,
}

impl BucketProfile {
    /// Builds the constants of a bucket of `size_bytes` bytes filled at `rate`,
    /// with time counted in ticks of `tick`.
    ///
    /// A zero rate is accepted (the bucket never refills) and so is a zero size
    /// (the bucket never holds a token); callers enforce their own RFC rules.
    pub fn new(rate: Rate, size_bytes: u64, tick: TickRate) -> Result<BucketProfile, BucketError> {
        let per_sec = 8u128 * tick.hz() as u128;
        let rate_bits = rate.bits_per_sec() as u128;
        // gcd over u128 (per_sec may exceed u64); rate 0 gives g = per_sec.
        let mut a = rate_bits;
        let mut b = per_sec;
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
        }
        let g = a;
        let scale = per_sec / g;
        let inc = rate_bits / g;
        if scale >= MAX_UNITS as u128 {
            return Err(BucketError::TooLarge);
        }
        // scale < 2^62 and size < 2^64, so the product fits in a u128.
        let cap = scale * size_bytes as u128;
        if cap >= MAX_UNITS as u128 {
            return Err(BucketError::TooLarge);
        }
        Ok(BucketProfile {
            inc: inc as u64,
            scale: scale as u64,
            cap: cap as u64,
        })
    }

    /// Units gained per tick.
    #[inline]
    #[must_use]
    pub const fn inc(&self) -> u64 {
        self.inc
    }

    /// Units per byte.
    #[inline]
    #[must_use]
    pub const fn scale(&self) -> u64 {
        self.scale
    }

    /// The capacity in units (`size_bytes * scale`): the token count of a full bucket.
    #[inline]
    #[must_use]
    pub const fn full(&self) -> u64 {
        self.cap
    }

    /// The token count after `dt` ticks of refill, capped at the capacity.
    #[inline(always)]
    #[must_use]
    pub const fn refill(&self, tokens: u64, dt: u64) -> u64 {
        let t = tokens.saturating_add(dt.saturating_mul(self.inc));
        if t > self.cap {
            self.cap
        } else {
            t
        }
    }

    /// Like [`refill`](Self::refill), but also returns the units that did not fit
    /// (RFC 2697's overflow from Tc into Te). The overflow saturates at `u64::MAX`.
    #[inline(always)]
    #[must_use]
    pub const fn refill_with_overflow(&self, tokens: u64, dt: u64) -> (u64, u64) {
        let t = tokens.saturating_add(dt.saturating_mul(self.inc));
        if t > self.cap {
            (self.cap, t - self.cap)
        } else {
            (t, 0)
        }
    }

    /// Adds `units` to `tokens`, capped at the capacity.
    #[inline(always)]
    #[must_use]
    pub const fn add(&self, tokens: u64, units: u64) -> u64 {
        let t = tokens.saturating_add(units);
        if t > self.cap {
            self.cap
        } else {
            t
        }
    }

    /// The cost in units of a packet of `len` bytes.
    #[inline(always)]
    #[must_use]
    pub const fn cost(&self, len: u32) -> u64 {
        (len as u64).saturating_mul(self.scale)
    }

    /// The cost in units of `bytes` bytes (saturating).
    #[inline(always)]
    #[must_use]
    pub const fn cost_bytes(&self, bytes: u64) -> u64 {
        bytes.saturating_mul(self.scale)
    }

    /// The whole bytes in `tokens` units (rounded down). Not for the per-packet path:
    /// it divides.
    #[inline]
    #[must_use]
    pub const fn whole_bytes(&self, tokens: u64) -> u64 {
        tokens / self.scale
    }

    /// How many ticks of refill it takes for `tokens` to reach `need` units:
    /// `Some(0)` if it already has, `None` if it never will (more than the capacity,
    /// or a zero rate). Rounds up, so after that many ticks the bucket holds at
    /// least `need`. Divides: for shapers and schedulers, not for meters.
    #[inline]
    #[must_use]
    pub const fn ticks_until(&self, tokens: u64, need: u64) -> Option<u64> {
        if need <= tokens {
            Some(0)
        } else if need > self.cap || self.inc == 0 {
            None
        } else {
            Some((need - tokens).div_ceil(self.inc))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cyc() -> TickRate {
        TickRate::from_hz(2_300_000_000).unwrap()
    }

    #[test]
    fn constants_are_reduced() {
        // 46,000,000 B/s on a 2.3 GHz clock: 0.02 B per tick = 1/50.
        let b = BucketProfile::new(Rate::from_bytes_per_sec(46_000_000), 2048, cyc()).unwrap();
        assert_eq!((b.inc(), b.scale()), (1, 50));
        assert_eq!(b.full(), 2048 * 50);
        // 1 B/s in ns: scale 10^9.
        let b = BucketProfile::new(Rate::from_bytes_per_sec(1), 10, TickRate::NANOS).unwrap();
        assert_eq!((b.inc(), b.scale()), (1, 1_000_000_000));
    }

    #[test]
    fn exact_over_a_long_interval() {
        // 7 bit/s on a 3 Hz clock: nothing divides, still exact.
        let b = BucketProfile::new(
            Rate::from_bits_per_sec(7),
            1_000_000,
            TickRate::from_hz(3).unwrap(),
        )
        .unwrap();
        let mut t = 0;
        let mut ticks = 0u64;
        for _ in 0..1_000 {
            t = b.refill(t, 17);
            ticks += 17;
        }
        // 17,000 ticks = 17000/3 s at 7/8 B/s = 4958.33 B.
        assert_eq!(b.whole_bytes(t), 17_000 * 7 / 24);
        assert_eq!(t as u128 * 24, ticks as u128 * 7 * (b.scale() as u128));
    }

    #[test]
    fn zero_rate_and_zero_size() {
        let b = BucketProfile::new(Rate::ZERO, 100, TickRate::NANOS).unwrap();
        assert_eq!(b.refill(0, u64::MAX), 0);
        assert_eq!(b.ticks_until(0, 1), None);
        let b = BucketProfile::new(Rate::from_bytes_per_sec(100), 0, TickRate::NANOS).unwrap();
        assert_eq!(b.full(), 0);
        assert_eq!(b.refill(0, 1_000_000_000), 0);
        assert!(b.cost(1) > b.full());
        assert_eq!(b.cost(0), 0);
    }

    #[test]
    fn too_large_is_refused() {
        // 1 bit/s with a 2^40 Hz clock and a 1 GB bucket.
        let r = BucketProfile::new(
            Rate::from_bits_per_sec(1),
            1 << 30,
            TickRate::from_hz(1 << 40).unwrap(),
        );
        assert_eq!(r, Err(BucketError::TooLarge));
        let r = BucketProfile::new(
            Rate::from_bits_per_sec(1),
            0,
            TickRate::from_hz(u64::MAX).unwrap(),
        );
        assert_eq!(r, Err(BucketError::TooLarge));
        assert!(BucketError::TooLarge.to_string().contains("2^62"));
    }

    #[test]
    fn ticks_until_rounds_up() {
        let b = BucketProfile::new(
            Rate::from_bytes_per_sec(3),
            10,
            TickRate::from_hz(2).unwrap(),
        )
        .unwrap();
        // 1.5 B per tick: inc 3, scale 2.
        assert_eq!((b.inc(), b.scale()), (3, 2));
        assert_eq!(b.ticks_until(0, b.cost(2)), Some(2));
        assert_eq!(b.ticks_until(0, b.cost(3)), Some(2));
        assert_eq!(b.ticks_until(b.cost(5), b.cost(3)), Some(0));
        assert_eq!(b.ticks_until(0, b.cost(11)), None);
    }

    #[test]
    fn overflow_goes_out() {
        let b = BucketProfile::new(Rate::from_bytes_per_sec(1_000), 100, TickRate::MILLIS).unwrap();
        // 1 byte per tick, scale 1.
        assert_eq!(b.refill_with_overflow(90, 30), (100, 20));
        assert_eq!(b.refill_with_overflow(50, 30), (80, 0));
        assert_eq!(b.refill_with_overflow(50, u64::MAX).0, 100);
    }

    proptest! {
        #[test]
        fn refill_is_bounded_and_exact(
            rate in 0u64..1_000_000_000_000,
            size in 0u64..10_000_000,
            hz in 1u64..10_000_000_000,
            start in any::<u64>(),
            steps in proptest::collection::vec(0u64..1_000_000_000, 1..20),
        ) {
            let Ok(b) = BucketProfile::new(Rate::from_bytes_per_sec(rate), size, TickRate::from_hz(hz).unwrap()) else {
                return Ok(());
            };
            let mut t = start % (b.full() + 1);
            for dt in steps {
                let before = t;
                t = b.refill(t, dt);
                prop_assert!(t <= b.full());
                prop_assert!(t >= before);
                // Below the cap, the gain is exactly dt * inc.
                if t < b.full() {
                    prop_assert_eq!(t as u128 - before as u128, dt as u128 * b.inc() as u128);
                }
            }
        }

        #[test]
        fn new_never_panics(rate in any::<u64>(), size in any::<u64>(), hz in 1u64..) {
            if let Ok(b) = BucketProfile::new(Rate::from_bits_per_sec(rate), size, TickRate::from_hz(hz).unwrap()) {
                prop_assert!(b.full() < MAX_UNITS && b.scale() < MAX_UNITS);
                prop_assert_eq!(b.full() as u128, b.scale() as u128 * size as u128);
            }
        }

        #[test]
        fn cost_never_overflows(len in any::<u32>(), hz in 1u64..u64::MAX / 16) {
            if let Ok(b) = BucketProfile::new(Rate::from_bits_per_sec(1), 1, TickRate::from_hz(hz).unwrap()) {
                let c = b.cost(len);
                prop_assert!(len <= 1 || c > b.full());
            }
        }
    }
}
