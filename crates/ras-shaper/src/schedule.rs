//! The release schedule's arithmetic: points in time with a fraction of a
//! tick ([`Schedule`]) and the transmission time of a packet at a rate
//! ([`transmission_time`]), by a reciprocal instead of a division.

use netcond_core::Instant;

use crate::fixed::{hi, recip};

/// The largest gap between two releases, in ticks (2^62: 146 years of
/// nanoseconds); longer gaps are clamped so that serial time comparisons hold.
pub const MAX_GAP_TICKS: u64 = 1 << 62;

/// A point of the release schedule: whole ticks plus a 32-bit fraction of a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Schedule {
    /// Whole ticks.
    pub at: Instant,
    /// Fraction of a tick, in units of 2^-32 tick.
    pub frac: u32,
}

impl Schedule {
    /// A schedule point on a whole tick.
    #[inline]
    #[must_use]
    pub const fn whole(at: Instant) -> Schedule {
        Schedule { at, frac: 0 }
    }

    /// The first whole tick at or after this point (the RFC's "not sooner than").
    #[inline]
    #[must_use]
    pub const fn ceil(self) -> Instant {
        self.at.wrapping_add((self.frac != 0) as u64)
    }

    #[inline(always)]
    pub(crate) fn plus(self, gap: (u64, u32)) -> Schedule {
        let f = self.frac as u64 + gap.1 as u64;
        Schedule {
            at: self.at.wrapping_add(gap.0.wrapping_add(f >> 32)),
            frac: f as u32,
        }
    }

    /// `self <= other` in serial time.
    #[inline(always)]
    pub(crate) fn not_after(self, other: Schedule) -> bool {
        let d = other.at.ticks().wrapping_sub(self.at.ticks());
        if d == 0 {
            self.frac <= other.frac
        } else {
            d <= i64::MAX as u64
        }
    }
}

/// The time to send `len` bytes at `rate` units (`2^-scale` bytes per tick), in
/// whole ticks and 2^-32 tick: `len * 2^scale / rate`, by a table-and-Newton
/// reciprocal instead of a division (relative error below 1e-10), clamped at
/// [`MAX_GAP_TICKS`]. `rate` 0 counts as 1.
#[inline(always)]
#[must_use]
pub fn transmission_time(len: u32, rate: u64, scale: u32) -> (u64, u32) {
    let (y, lz) = recip(rate);
    // gap in Q32 ticks = len y 2^(scale + 32 + lz - 126); the exponent is at
    // most 16. When it is -k with 1 <= k <= 63 and len < 2^k (k = 26 for 80
    // MB/s in the bench's units: any packet below 64 MB), the gap `floor(len y
    // / 2^k)` is the high word of `(len << (64 - k)) y`: `len << (64 - k) <
    // 2^64`, the value is the same with no rounding of its own, and it is below
    // 2^64, so its whole part (below 2^32) needs no clamp. One multiply instead
    // of double-word shifts by a variable count.
    let k = 126u32.wrapping_sub(scale + 32 + lz);
    let l = len as u64;
    if k.wrapping_sub(1) < 63 && l >> k == 0 {
        let g = hi(l << (64 - k), y);
        return (g >> 32, g as u32);
    }
    let v = len as u128 * y as u128; // < 2^95
    let e = (scale + 32 + lz) as i32 - 126;
    let g = if e >= 0 { v << e } else { v >> (-e).min(127) };
    let whole = g >> 32;
    if whole >= MAX_GAP_TICKS as u128 {
        (MAX_GAP_TICKS, 0)
    } else {
        (whole as u64, g as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `transmission_time` equals its `u128` form (the shift of `len y` by the
    /// exponent, clamped at `MAX_GAP_TICKS`) for every scale, rates of every
    /// magnitude, and lengths either side of the high-word form's `2^k` switch.
    #[test]
    fn transmission_time_matches_the_wide_form() {
        use netcond_core::{RandomSource, SplitMix64};
        fn wide(len: u32, rate: u64, scale: u32) -> (u64, u32) {
            let (y, lz) = recip(rate);
            let v = len as u128 * y as u128;
            let e = (scale + 32 + lz) as i32 - 126;
            let g = if e >= 0 { v << e } else { v >> (-e).min(127) };
            let whole = g >> 32;
            if whole >= MAX_GAP_TICKS as u128 {
                (MAX_GAP_TICKS, 0)
            } else {
                (whole as u64, g as u32)
            }
        }
        let mut r = SplitMix64::new(5);
        let mut n = 0;
        // Under Miri, which interprets every instruction: every seventh rate.
        for scale in [0u32, 1, 20, 31, 32, 44, 47] {
            for b in (0..64).step_by(if cfg!(miri) { 7 } else { 1 }) {
                for rate in [0u64, 1u64 << b, (1u64 << b) + 1, (1u64 << b) - 1, u64::MAX] {
                    let k = 126 - (scale + 32 + rate.max(1).leading_zeros()) as i64;
                    let mut lens = vec![0u64, 1, 64, 1500, u32::MAX as u64];
                    if (1..64).contains(&k) {
                        let edge = 1u64 << k;
                        lens.extend([edge - 1, edge, edge + 1]);
                    }
                    lens.extend((0..if cfg!(miri) { 1 } else { 10 }).map(|_| r.next_u32() as u64));
                    for len in lens.into_iter().filter(|&l| l <= u32::MAX as u64) {
                        let len = len as u32;
                        assert_eq!(
                            transmission_time(len, rate, scale),
                            wide(len, rate, scale),
                            "len {len} rate {rate} S {scale}"
                        );
                        n += 1;
                    }
                }
            }
        }
        assert!(n > if cfg!(miri) { 300 } else { 1000 });
    }
}
