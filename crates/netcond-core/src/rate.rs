//! Information rates.

/// An information rate, kept exactly as a whole number of bits per second.
///
/// The RFCs of the markers give rates in bytes per second (RFC 2697, RFC 2698) or
/// bits per second (RFC 4115, RFC 2963); both convert without loss. Constructors
/// saturate at `u64::MAX` bits per second rather than overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rate {
    bits_per_sec: u64,
}

impl Rate {
    /// The zero rate.
    pub const ZERO: Rate = Rate { bits_per_sec: 0 };

    /// A rate of `bits` bits per second.
    #[inline]
    #[must_use]
    pub const fn from_bits_per_sec(bits: u64) -> Rate {
        Rate { bits_per_sec: bits }
    }

    /// A rate of `bytes` bytes per second (saturating).
    #[inline]
    #[must_use]
    pub const fn from_bytes_per_sec(bytes: u64) -> Rate {
        Rate {
            bits_per_sec: bytes.saturating_mul(8),
        }
    }

    /// A rate of `kbit` kilobits (1000 bits) per second (saturating).
    #[inline]
    #[must_use]
    pub const fn from_kbps(kbit: u64) -> Rate {
        Rate {
            bits_per_sec: kbit.saturating_mul(1000),
        }
    }

    /// A rate of `mbit` megabits (10^6 bits) per second (saturating).
    #[inline]
    #[must_use]
    pub const fn from_mbps(mbit: u64) -> Rate {
        Rate {
            bits_per_sec: mbit.saturating_mul(1_000_000),
        }
    }

    /// The rate in bits per second.
    #[inline]
    #[must_use]
    pub const fn bits_per_sec(self) -> u64 {
        self.bits_per_sec
    }

    /// The rate in whole bytes per second (rounded down).
    #[inline]
    #[must_use]
    pub const fn bytes_per_sec(self) -> u64 {
        self.bits_per_sec / 8
    }

    /// True for the zero rate.
    #[inline]
    #[must_use]
    pub const fn is_zero(self) -> bool {
        self.bits_per_sec == 0
    }
}

impl core::fmt::Display for Rate {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} bit/s", self.bits_per_sec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(
            Rate::from_bytes_per_sec(46_000_000).bits_per_sec(),
            368_000_000
        );
        assert_eq!(Rate::from_kbps(64).bytes_per_sec(), 8000);
        assert_eq!(Rate::from_mbps(10).bits_per_sec(), 10_000_000);
        assert_eq!(Rate::from_bytes_per_sec(u64::MAX).bits_per_sec(), u64::MAX);
        assert!(Rate::ZERO.is_zero());
        assert_eq!(Rate::from_bits_per_sec(12).to_string(), "12 bit/s");
    }
}
