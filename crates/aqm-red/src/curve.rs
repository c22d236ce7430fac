//! The drop-probability curve of one precedence: `p_b` as a function of the
//! average, in linear segments (FJ93 section 4 and gentle RED). A probability
//! is a `u64` holding `p * 2^32`, in `0..=2^32`.

use crate::average::AvgProfile;
use crate::ONE;

/// One linear piece of the probability curve: `p = base + ((avg - lo) * slope) >> sh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Segment {
    pub lo: u32,
    pub base: u64,
    pub slope: u64,
    pub sh: u32,
}

impl Segment {
    /// The segment rising from `base` at `lo` by `rise` (2^-32 units, at most
    /// 2^32) over `run` average units (below 2^32), for averages in
    /// `[lo, lo + run)`; `slope = floor(rise 2^sh / run)` with the largest
    /// `sh <= 62` that keeps `slope * run < 2^64`, so that `(avg - lo) * slope`
    /// fits a u64. As `rise * run < 2^64` and `run < 2^32 <= 2^62`, that `sh`
    /// has `2^sh >= run`: the slope's rounding costs less than `(avg - lo) /
    /// 2^sh < 1` unit, the final shift less than one more. The result is at
    /// most the exact value and less than two units (2^-31) below it.
    ///
    /// The cap at 62 leaves room for the short path's shift by one more
    /// ([`Curve::fast_sh`]). It changes no value: without it `sh` reaches 63
    /// only for `rise = 1`, where `(avg - lo) * slope <= (run - 1) 2^63 / run`
    /// is below 2^63 with either shift, so the segment is flat at `base`.
    pub(crate) fn new(lo: u32, base: u64, rise: u64, run: u64) -> Segment {
        if rise == 0 || run == 0 {
            return Segment {
                lo,
                base,
                slope: 0,
                sh: 0,
            };
        }
        let mut sh = 0u32;
        let mut slope = 0u64;
        while sh < 63 {
            let s = ((rise as u128) << sh) / run as u128;
            if s * run as u128 > u64::MAX as u128 {
                break;
            }
            slope = s as u64;
            sh += 1;
        }
        Segment {
            lo,
            base,
            slope,
            sh: sh.saturating_sub(1),
        }
    }

    /// The probability at `avg` (which the caller keeps at or above `lo`).
    #[inline(always)]
    pub(crate) const fn at(&self, avg: u32) -> u64 {
        // avg - lo < run and slope * run < 2^64: the product fits a u64.
        self.base + (((avg - self.lo) as u64 * self.slope) >> self.sh)
    }
}

/// Where an average falls on a curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    /// Below min_th: never drop.
    Below,
    /// In a probabilistic region, with this p_b (2^-32 units).
    Early(u64),
    /// At or above max_th (or 2 max_th when gentle): every packet.
    Forced,
}

/// The drop-probability curve of one precedence (FJ93 section 4 and the
/// gentle variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Curve {
    pub min_th: u32,
    pub max_th: u32,
    pub max_p: u64,
    pub gentle: bool,
    pub min_fx: u32,
    pub max_fx: u64,
    pub top_fx: u64,
    pub seg: [Segment; 2],
    /// `max_fx - min_fx` where the short path of the default spreading
    /// applies ([`Common::decide_fast`](crate::red::Common::decide_fast)), 0
    /// where it does not: `avg - min_fx < fast_range` (wrapping) is then "in
    /// the first probabilistic region, short path allowed" in one comparison.
    pub fast_range: u64,
    /// `max_fx - min_fx` for the per-packet spreadings without byte mode, 0
    /// otherwise: their short path in the first probabilistic region.
    pub early_range: u64,
    /// 1 when the budget spreading halves p_b
    /// ([`Spreading::AccumulatedDpdk`](crate::Spreading::AccumulatedDpdk)), 0 otherwise: set once with the
    /// spreading, kept by [`set_max_p`](Self::set_max_p).
    pub fast_half: u32,
    /// `seg[0].sh + fast_half`, at most 63 ([`Segment::new`]): the short
    /// paths' p in the first probabilistic region is `((avg - min_fx) *
    /// seg[0].slope) >> fast_sh`, which is `seg[0].at(avg) >> fast_half` as
    /// `floor(floor(x / 2^sh) / 2) = floor(x / 2^(sh + 1))`; so the short
    /// path of either budget spreading is the same instructions.
    pub fast_sh: u32,
}

impl Curve {
    /// The caller has validated `min_th < max_th` and `max_p <= 2^32`.
    pub(crate) fn new(a: &AvgProfile, min_th: u32, max_th: u32, max_p: u64, gentle: bool) -> Curve {
        let min_fx = a.th_fx(min_th as u64) as u32;
        let max_fx = a.th_fx(max_th as u64);
        let top_fx = if gentle {
            a.th_fx(2 * max_th as u64)
        } else {
            max_fx
        };
        let mut c = Curve {
            min_th,
            max_th,
            max_p,
            gentle,
            min_fx,
            max_fx,
            top_fx,
            seg: [Segment::default(); 2],
            fast_range: 0,
            early_range: 0,
            fast_half: 0,
            fast_sh: 0,
        };
        c.set_max_p(a, max_p);
        c
    }

    /// Sets [`fast_half`](Self::fast_half) and [`fast_sh`](Self::fast_sh).
    pub(crate) fn set_fast_half(&mut self, half: bool) {
        self.fast_half = half as u32;
        self.fast_sh = self.seg[0].sh + self.fast_half;
    }

    /// Recomputes the slopes for a new max_p (Adaptive RED).
    pub(crate) fn set_max_p(&mut self, a: &AvgProfile, max_p: u64) {
        let max_p = if max_p > ONE { ONE } else { max_p };
        self.max_p = max_p;
        let range = ((self.max_th - self.min_th) as u64) << a.frac;
        self.seg[0] = Segment::new(self.min_fx, 0, max_p, range);
        // Gentle RED: from max_p at max_th to 1 at 2 max_th.
        let lo = if self.max_fx > u32::MAX as u64 {
            u32::MAX
        } else {
            self.max_fx as u32
        };
        self.seg[1] = Segment::new(lo, max_p, ONE - max_p, (self.max_th as u64) << a.frac);
        self.fast_sh = self.seg[0].sh + self.fast_half;
    }

    /// The region and p_b for an average.
    #[inline(always)]
    pub(crate) fn region(&self, avg: u32) -> Region {
        if avg < self.min_fx {
            Region::Below
        } else if (avg as u64) < self.max_fx {
            Region::Early(self.seg[0].at(avg))
        } else if (avg as u64) < self.top_fx {
            Region::Early(self.seg[1].at(avg))
        } else {
            Region::Forced
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fixed::types::U32F32;

    #[test]
    fn segment_is_close_below() {
        let s = Segment::new(0, 0, 429_496_730, 96 << 25);
        for x in [0u32, 1, 12345, 1 << 30, (96 << 25) - 1] {
            let exact = (x as u128 * 429_496_730) / (96u128 << 25);
            let got = s.at(x) as u128;
            assert!(got <= exact && exact - got <= 2, "{x}: {got} vs {exact}");
        }
    }

    /// Regression (fuzz: red_reference, seed-regress-p-b-steep-segment): a
    /// segment rising by more than 2^31 units (max_p above 0.5, or gentle
    /// RED's `1 - max_p` above 0.5) over a run that is not a power of two
    /// kept `slope < 2^32` with `run / 2^sh` up to 2, and p_b fell up to
    /// three units below the exact value; the documented bound is two.
    #[test]
    fn steep_segments_stay_within_two_units() {
        for (rise, run) in [
            (ONE, 48_316u64),
            (ONE, (1 << 31) + 12_345),
            (ONE - 429_496_730, 30 << 26),
            (3_000_000_000, 1_000_003),
            (ONE, 3),
            (1, u32::MAX as u64),
            (ONE / 2 + 1, 77_777),
        ] {
            let s = Segment::new(0, 0, rise, run);
            // Some 20,000 points per segment; 200 under Miri, which
            // interprets every instruction. The last point always runs.
            let step = (run / if cfg!(miri) { 200 } else { 20_000 }).max(1);
            let mut x = 0u64;
            while x < run {
                let got = u128::from(s.at(x as u32));
                // exact = x rise / run: got <= exact and exact - got < 2.
                let (num, den) = (u128::from(x) * u128::from(rise), u128::from(run));
                assert!(got * den <= num, "rise {rise} run {run} x {x}: above exact");
                assert!(
                    num < (got + 2) * den,
                    "rise {rise} run {run} x {x}: {got} vs {num}/{den}"
                );
                x += if x + step >= run && x != run - 1 {
                    run - 1 - x
                } else {
                    step
                };
            }
        }
        // The fuzz case through the profile: p_b at an average of 22368.5.
        let cfg = crate::RedConfig::packets(
            0,
            24_158,
            U32F32::ONE,
            U32F32::from_bits(3_553_916_348),
            1_532_713_819,
        );
        let p = crate::RedProfile::new(&cfg).unwrap();
        let avg = U32F32::from_num(22_368.5);
        let got = u128::from(p.p_b(avg).to_bits());
        // 22368.5 / 24158 = 223685 / 241580.
        let (num, den) = (223_685_u128 << 32, 241_580_u128);
        assert!(
            got * den <= num && num < (got + 2) * den,
            "{got} vs {num}/{den}"
        );
    }
}
