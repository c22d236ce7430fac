//! The congestion level estimate (CLE) and the measurement intervals the
//! edge's measuring parts share.

use fixed::types::U1F31;
use netcond_core::branchless::saturate_u64;
use netcond_core::Instant;

/// A congestion level estimate kept as the exact ratio `marked / total` of
/// bytes (equal to the ratio of the rates, RFC 6661 section 3.2.3); zero when
/// no traffic was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cle {
    /// Marked bytes (the numerator).
    pub marked: u64,
    /// All bytes counted (the denominator).
    pub total: u64,
}

impl Cle {
    /// The CLE of `marked` out of `total` bytes (`marked` is capped at `total`).
    #[must_use]
    pub const fn new(marked: u64, total: u64) -> Cle {
        Cle {
            marked: if marked > total { total } else { marked },
            total,
        }
    }

    /// True if the CLE is strictly below `limit`, compared exactly
    /// (`marked * 2^31 < limit_bits * total`). A CLE with no traffic is zero.
    #[inline]
    #[must_use]
    pub const fn is_below(self, limit: U1F31) -> bool {
        (self.marked as u128) << 31 < (limit.to_bits() as u128) * (self.total as u128)
    }

    /// True if the CLE is strictly above `threshold`, compared exactly.
    #[inline]
    #[must_use]
    pub const fn is_above(self, threshold: U1F31) -> bool {
        (self.marked as u128) << 31 > (threshold.to_bits() as u128) * (self.total as u128)
    }

    /// The CLE as a `U1F31`, rounded down (0 with no traffic). Divides: for
    /// reports and logs, not for the per-packet path.
    #[must_use]
    pub const fn to_fixed(self) -> U1F31 {
        if self.total == 0 {
            return U1F31::ZERO;
        }
        U1F31::from_bits((((self.marked as u128) << 31) / self.total as u128) as u32)
    }
}

/// Bytes per second over `ticks` ticks of a `hz` clock, rounded down
/// (saturating; zero for an empty interval).
pub(crate) fn rate_of(bytes: u64, ticks: u64, hz: u64) -> u64 {
    if ticks == 0 {
        return 0;
    }
    saturate_u64(bytes as u128 * hz as u128 / ticks as u128)
}

/// A grid of measurement intervals `[start, end)` of `len` ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct Interval {
    pub(crate) start: Instant,
    pub(crate) end: Instant,
}

impl Interval {
    pub(crate) fn first(now: Instant, len: u64) -> Interval {
        Interval {
            start: now,
            end: now.wrapping_add(len),
        }
    }

    /// Moves on to the interval of the grid that contains `now` (the intervals
    /// skipped over, if any, saw no call). Divides, once per interval.
    pub(crate) fn roll(&mut self, now: Instant, len: u64) {
        let behind = now.ticks_since(self.end);
        let skip = behind / len * len;
        self.start = self.end.wrapping_add(skip);
        self.end = self.start.wrapping_add(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::*;

    #[test]
    fn cle_arithmetic() {
        assert_eq!(per_mille(1000), U1F31::ONE);
        assert_eq!(per_mille(2000), U1F31::ONE);
        assert_eq!(per_mille(500).to_bits(), 1 << 30);
        assert!(!Cle::new(50, 1000).is_below(per_mille(50)));
        assert!(Cle::new(49, 1000).is_below(per_mille(50)));
        assert_eq!(per_mille(0), U1F31::ZERO);
        let third = Cle::new(1, 3);
        assert!(third.is_below(per_mille(334)));
        assert!(!third.is_below(per_mille(333)));
        assert!(third.is_above(per_mille(333)));
        assert_eq!(third.to_fixed().to_bits(), (1u32 << 31) / 3);
        assert_eq!(Cle::new(0, 0).to_fixed(), U1F31::ZERO);
        assert_eq!(Cle::new(5, 3), Cle::new(3, 3));
        assert_eq!(Cle::new(3, 3).to_fixed(), U1F31::ONE);
        // A CLE of 0 is not below a CLE-limit of 0 (RFC 6661 s3.3.1: block).
        assert!(!Cle::new(0, 0).is_below(U1F31::ZERO));
        // Against exact rationals: every marked/total up to 60 and every limit.
        // Under Miri, which interprets every instruction: totals up to 8, and
        // every 125th limit plus those at and next to marked/total.
        let (max_total, step) = if cfg!(miri) { (8, 125) } else { (60u64, 1) };
        for total in 0..=max_total {
            for marked in 0..=total {
                let c = Cle::new(marked, total);
                let at = (marked * 1000).checked_div(total).unwrap_or(0);
                let near = cfg!(miri).then(|| at.saturating_sub(1)..=(at + 1).min(1000));
                for k in (0..=1000u64)
                    .step_by(step)
                    .chain(near.into_iter().flatten())
                {
                    let lhs = marked * 1000;
                    let rhs = k * total;
                    // per_mille rounds down: "below" is exact for every k, "above"
                    // wherever k / 1000 is representable or the CLE differs from it.
                    assert_eq!(
                        c.is_below(per_mille(k as u16)),
                        lhs < rhs,
                        "{marked}/{total} vs {k}"
                    );
                    if lhs != rhs || k % 125 == 0 {
                        assert_eq!(
                            c.is_above(per_mille(k as u16)),
                            lhs > rhs,
                            "{marked}/{total} vs {k}"
                        );
                    }
                }
            }
        }
        // No overflow at the extremes.
        let big = Cle::new(u64::MAX, u64::MAX);
        assert!(!big.is_below(U1F31::ONE));
        assert_eq!(big.to_fixed(), U1F31::ONE);
    }
}
