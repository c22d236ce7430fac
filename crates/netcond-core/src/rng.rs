//! Randomness for the RED family: seedable, small, and replaceable.

/// A source of uniformly distributed 32-bit values.
///
/// netcond's randomized algorithms take any `RandomSource`, so a simulation can
/// use the seedable [`SplitMix64`] and firmware can wrap its hardware generator.
pub trait RandomSource {
    /// The next uniform `u32`.
    fn next_u32(&mut self) -> u32;

    /// A uniform value in `0..n` (Lemire's multiply-shift; `n == 0` gives 0). The
    /// bias is below `n / 2^32`.
    #[inline]
    fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }

    /// True with probability `p / 2^32`.
    #[inline]
    fn chance(&mut self, p: u32) -> bool {
        self.next_u32() < p
    }
}

impl<R: RandomSource + ?Sized> RandomSource for &mut R {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        (**self).next_u32()
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): 8 bytes of state, passes BigCrush,
/// and every seed, including zero, gives a full-period sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started from `seed`; the same seed gives the same sequence.
    #[inline]
    #[must_use]
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next uniform `u64`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl RandomSource for SplitMix64 {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_reference_value() {
        // First output for seed 0 of the reference SplitMix64.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut a = SplitMix64::new(42);
        let mut b = SplitMix64::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "200,000 draws are too slow under miri")]
    fn below_and_chance_are_uniform() {
        let mut r = SplitMix64::new(7);
        let mut counts = [0u32; 10];
        let n = 100_000;
        for _ in 0..n {
            counts[r.below(10) as usize] += 1;
        }
        // Chi-square with 9 degrees of freedom; 27.88 is the 0.001 critical value.
        let e = f64::from(n) / 10.0;
        let chi2: f64 = counts.iter().map(|&c| (f64::from(c) - e).powi(2) / e).sum();
        assert!(chi2 < 27.88, "chi2 = {chi2}");
        let hits = (0..n).filter(|_| r.chance(1 << 30)).count();
        // p = 1/4; 5 sigma is about 0.0068 n.
        assert!((hits as f64 / f64::from(n) - 0.25).abs() < 0.007, "{hits}");
        assert_eq!(r.below(0), 0);
        assert!(!r.chance(0));
    }
}
