//! The fixed-point machinery shared by RED, RIO and AECN: the average queue
//! (EWMA and idle decay) and the drop-probability curve.
//!
//! # Representations
//!
//! - A queue average is a `u32` holding `avg * 2^F`, where `F` (the profile's
//!   `frac` bits) is the largest shift that keeps the buffer limit below 2^32:
//!   `F = leading_zeros(limit)`. A queue of 50 packets gets `F = 26`, one of
//!   10^6 bytes `F = 12`.
//! - `w_q` is `W / 2^32` with `W` in `1..=2^32` (exact for any `U32F32` input).
//! - A probability is a `u64` holding `p * 2^32`, in `0..=2^32`.
//! - The idle-decay factor is a `u64` holding `f * 2^64` (Q0.64).

use fixed::types::U32F32;

/// One in the 2^-32 units of probabilities and weights.
pub(crate) const ONE: u64 = 1 << 32;

/// The EWMA step `avg += w_q (q - avg)` (FJ93 section 4), rounded away from
/// zero. Rounding away from zero makes every step move the average by at least
/// one unit toward `q` and never past it, so a constant queue is reached exactly
/// in a finite number of packets; each step's rounding error is below one unit,
/// so the average stays within `1 / w_q` units of the exact real-valued EWMA.
///
/// Written as `floor((avg (2^32 - w) + q w + bias) / 2^32)`, with `bias =
/// 2^32 - 1` (ceiling) when `q >= avg` and 0 (floor) otherwise, so that the
/// loop-carried path from one average to the next is one multiply, one add and
/// one shift. Both products are nonnegative and their sum is `2^32 avg + (q -
/// avg) w <= 2^32 max(avg, q)`, so nothing overflows a `u64`.
#[inline(always)]
pub(crate) const fn ewma(avg: u32, q_fx: u32, w: u64) -> u32 {
    let a = avg as u64;
    let q = q_fx as u64;
    let bias = if q >= a { ONE - 1 } else { 0 };
    ((a * (ONE - w) + q * w + bias) >> 32) as u32
}

/// [`ewma`] for `w_q = 2^-n` (`w = 2^(32 - n)`) and a queue `q_fx` that is a
/// multiple of `2^n`, with a shift instead of multiplications. The result is
/// `ewma(avg, q_fx, 2^(32 - n))` for every such input.
///
/// Proof. Write `a = avg`, `q = q_fx`, `m = 2^n`, `x = q - a`, `W = 2^(32 - n)`.
/// Since `a (2^32 - W) + q W = a 2^32 + x W` and `a` is an integer,
/// `ewma = a + floor((x W + bias) / 2^32)`. For `x >= 0`, `bias = 2^32 - 1`
/// and, for an integer, `floor((y + 2^32 - 1) / 2^32) = ceil(y / 2^32)`: so
/// `ewma = a + ceil(x / m)`. For `x < 0`, `bias = 0` and `ewma = a + floor(x
/// / m)`. For an integer `x >= 0`, `ceil(x / m) = floor((x - 1) / m) + 1`:
/// both are `floor((x + m - 1) / m)`, and at `x = 0` the floor of `-1 / m` is
/// -1. With `c = 1` when `q >= a` and 0 otherwise, both cases are `(a + c) +
/// floor((q - (a + c)) / m)`, and `floor(y / 2^n)` of an integer `y` is the
/// arithmetic shift `y >> n`. The shifted value `q - (a + c)` is in `[-2^32,
/// 2^32)` and the result is between `a` and `q`, so nothing overflows and the
/// `u32` cast is exact. Tested against [`ewma`] exhaustively on small values
/// and at random (`ewma_shift_is_ewma`, `ewma_shift_is_ewma_anywhere`).
#[inline(always)]
pub(crate) const fn ewma_shift(avg: u32, q_fx: u32, n: u32) -> u32 {
    let c = (q_fx >= avg) as i64;
    let ac = avg as i64 + c;
    (ac + ((q_fx as i64 - ac) >> n)) as u32
}

/// [`AvgProfile::shift`] when `w_q` is not a power of two.
pub(crate) const NO_SHIFT: u32 = u32::MAX;

/// The average-queue parameters shared by every curve of one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AvgProfile {
    /// `w_q * 2^32`, in `1..=2^32`.
    pub w: u64,
    /// `2^32 - w`.
    pub w_rest: u64,
    /// `n` when `w_q = 2^-n` ([`ewma_shift`]), [`NO_SHIFT`] otherwise.
    pub shift: u32,
    /// Fractional bits of the average.
    pub frac: u32,
    /// The buffer limit in queue units.
    pub limit: u32,
    /// `limit << frac`.
    pub limit_fx: u32,
    /// `decay[k] = (1 - w_q)^(2^k / s) * 2^64` (saturated), where `s` is the
    /// typical transmission time in ticks.
    pub decay: [u64; 64],
}

impl AvgProfile {
    /// Builds the constants; the caller has validated `w` in `1..=2^32`,
    /// `limit > 0` and `s > 0`.
    pub(crate) fn new(w: u64, limit: u32, s: u64) -> AvgProfile {
        let frac = limit.leading_zeros();
        let shift = if w.is_power_of_two() {
            // w = 2^(32 - n) with n in 0..=32.
            32 - w.trailing_zeros()
        } else {
            NO_SHIFT
        };
        AvgProfile {
            w,
            w_rest: ONE - w,
            shift,
            frac,
            limit,
            limit_fx: limit << frac,
            decay: decay_table(w, s),
        }
    }

    /// The queue length in fixed point, clamped to the buffer limit.
    #[inline(always)]
    pub(crate) const fn q_fx(&self, q: u32) -> u32 {
        let q = if q > self.limit { self.limit } else { q };
        q << self.frac
    }

    /// True when [`step_shift`](Self::step_shift) applies to every queue
    /// below the limit: `w_q = 2^-n` with `n <= frac`, so that `q << frac` is a
    /// multiple of `2^n`.
    pub(crate) const fn shifts(&self) -> bool {
        self.shift <= self.frac
    }

    /// One EWMA step toward `q_fx` with shifts ([`ewma_shift`]), when
    /// [`shifts`](Self::shifts) and `q_fx` is a multiple of `1 << frac`.
    #[inline(always)]
    pub(crate) const fn step_shift(&self, avg: u32, q_fx: u32) -> u32 {
        ewma_shift(avg, q_fx, self.shift)
    }

    /// One EWMA step toward `q_fx` with multiplications: [`ewma`] with
    /// `2^32 - w` precomputed.
    #[inline(always)]
    pub(crate) const fn step_mul(&self, avg: u32, q_fx: u32) -> u32 {
        let a = avg as u64;
        let q = q_fx as u64;
        let bias = if q >= a { ONE - 1 } else { 0 };
        ((a * self.w_rest + q * self.w + bias) >> 32) as u32
    }

    /// A threshold in fixed point, saturated at `u32::MAX` (above every average).
    pub(crate) const fn th_fx(&self, th: u64) -> u64 {
        let v = (th as u128) << self.frac;
        if v > u32::MAX as u128 {
            u32::MAX as u64 + 1
        } else {
            v as u64
        }
    }

    /// The decay factor `(1 - w_q)^(dt / s)` in Q0.64, or `None` for `dt = 0`.
    /// At most 64 multiplications (one per set bit of `dt`), stopping early
    /// once the factor reaches zero. Kept out of line: it runs once per idle
    /// period.
    #[cold]
    #[inline(never)]
    pub(crate) fn decay_factor(&self, dt: u64) -> Option<u64> {
        if dt == 0 {
            return None;
        }
        let mut f = u64::MAX;
        let mut bits = dt;
        while bits != 0 {
            let k = bits.trailing_zeros();
            bits &= bits - 1;
            f = ((f as u128 * self.decay[k as usize] as u128) >> 64) as u64;
            if f == 0 {
                break;
            }
        }
        Some(f)
    }

    /// Applies an idle period of `dt` ticks to `avg` (FJ93 section 4:
    /// `avg = (1 - w_q)^m avg` with `m = dt / s`, here a real number).
    #[inline]
    pub(crate) fn decay(&self, avg: u32, dt: u64) -> u32 {
        match self.decay_factor(dt) {
            None => avg,
            Some(f) => apply_factor(avg, f),
        }
    }

    /// The average as a `U32F32` number of queue units.
    pub(crate) const fn units_of(&self, avg: u32) -> U32F32 {
        // frac <= 31 so the shift is at most 32 bits of a 64-bit value.
        U32F32::from_bits((avg as u64) << (32 - self.frac))
    }
}

/// `avg * f / 2^64`, rounded to nearest.
#[inline]
pub(crate) const fn apply_factor(avg: u32, f: u64) -> u32 {
    (((avg as u128) * (f as u128) + (1u128 << 63)) >> 64) as u32
}

/// The table `(1 - w)^(2^k / s)` for `k` in `0..64`, in Q0.64.
// Configuration time only: libm's log1p and exp build the table once.
#[allow(clippy::float_arithmetic)]
fn decay_table(w: u64, s: u64) -> [u64; 64] {
    let mut t = [0u64; 64];
    if w >= ONE {
        // (1 - 1)^x = 0 for every x > 0.
        return t;
    }
    // w = W / 2^32 is exact in f64, and so is 1 - w.
    let ln = libm::log1p(-(w as f64) / 4_294_967_296.0);
    let mut k = 0;
    while k < 64 {
        let e = libm::ldexp(1.0, k) / (s as f64) * ln;
        let f = libm::exp(e) * 18_446_744_073_709_551_616.0;
        // `as` saturates: 1.0 becomes u64::MAX, tiny values 0.
        t[k as usize] = f as u64;
        k += 1;
    }
    t
}

/// One linear piece of the probability curve: `p = base + ((avg - lo) * slope) >> sh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
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
    /// ([`Spreading::AccumulatedDpdk`]), 0 otherwise: set once with the
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

/// The spreading of drops over a run of packets since the last drop or mark
/// (FJ93 section 7).
///
/// The count-based variants draw one uniform `u` per packet in a probabilistic
/// region and drop when `u < p_a`. The comparison is made without a division,
/// as `K u < p_b (1 + c u)`, which is `u (K - c p_b) < p_b` and so the same as
/// `u < p_b / (K - c p_b)` when `c p_b < K`, and "always" otherwise.
/// [`Accumulated`](Spreading::Accumulated) and
/// [`AccumulatedDpdk`](Spreading::AccumulatedDpdk) draw one uniform per drop
/// instead.
///
/// The table gives, for a constant `p_b`, the distribution of the gap `X`
/// (packets from one drop to the next, the dropped one included) and the
/// long-run drop fraction `1 / E[X]`. With `N = floor(1 / p_b)`:
///
/// | variant | `p_a` for the n-th packet after a drop | gap `X` | drop fraction |
/// |---|---|---|---|
/// | [`Accumulated`](Spreading::Accumulated) | `p_b / (1 - sum of the p_b since the drop)` | as `Uniform` | as `Uniform` |
/// | [`AccumulatedDpdk`](Spreading::AccumulatedDpdk) | `p_b / (2 - sum of the p_b since the drop)` | as `Dpdk` | as `Dpdk` |
/// | [`Uniform`](Spreading::Uniform) | `p_b / (1 - (n - 1) p_b)` | `P(X = n) = p_b` for `n <= N`, `P(X = N + 1) = 1 - N p_b` | `1 / ((N + 1)(1 - N p_b / 2))`; `2 p_b / (1 + p_b)` when `1/p_b` is whole |
/// | [`UniformCountFirst`](Spreading::UniformCountFirst) | `p_b / (1 - n p_b)` | `P(X = n) = p_b / (1 - p_b)` for `n <= N - 1`, the rest on `N` | `2 p_b` when `1/p_b` is whole |
/// | [`Dpdk`](Spreading::Dpdk) | `p_b / (2 - (n - 1) p_b)` | as `Uniform` with `p_b / 2` | `2 p_b / (2 + p_b)` when `2/p_b` is whole |
/// | [`Geometric`](Spreading::Geometric) | `p_b` | geometric, `P(X = n) = p_b (1 - p_b)^(n-1)` | `p_b` |
///
/// Entering the probabilistic region from below min_th counts as "after a drop"
/// for every variant (FJ93's `count = -1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Spreading {
    /// FJ93's spreading with one uniform `U` per drop: the packet that brings
    /// the sum of the `p_b` seen since the last drop to `U` or more is dropped.
    /// Its hazard is `p_b / (1 - S)` with `S` the sum of the earlier `p_b`
    /// since the drop: FJ93's `p_b / (1 - count p_b)` with `count p_b` read as
    /// that sum, which it is while `p_b` is constant; then the gap is uniform
    /// on `1..=1/p_b` and the drop fraction about `2 p_b`, exactly as
    /// [`Uniform`](Spreading::Uniform). Beyond computing p_b, the decision is
    /// a comparison and a subtraction (a draw at each early drop or mark, for
    /// the next gap, and on entering the region). Linux's `red.h` also draws
    /// once per drop, but compares `count * p_b` (the current `p_b`) with the
    /// draw; the two agree while `p_b` is constant. The draw is `U = (min(r, 2^32 - 2) + 1) / 2^32`:
    /// a bias below 2^-32.
    #[default]
    Accumulated,
    /// DPDK's law with one uniform `U` per drop: as
    /// [`Accumulated`](Spreading::Accumulated), but the packet that brings
    /// the sum of the `p_b / 2` seen since the last drop to `U` or more (the
    /// sum of the `p_b` to `2 U`) is dropped. Its hazard is `p_b / (2 - S)`
    /// with `S` the sum of the earlier `p_b` since the drop: DPDK's `p_a =
    /// p_b / (2 - count p_b)` ([`Dpdk`](Spreading::Dpdk)) while `p_b` is
    /// constant, so the gap is uniform on `1..=2/p_b` and the drop fraction
    /// about `p_b` (`2 p_b / (2 + p_b)` when `2/p_b` is whole), half
    /// [`Accumulated`](Spreading::Accumulated)'s early drops.
    ///
    /// It differs from DPDK 22.11's `rte_red` test, `rand % pa_den < pa_num`
    /// with `pa_num` the average above min_th and `pa_den = 2 (max_th -
    /// min_th) maxp_inv - count pa_num` (its `p_b / (2 - count p_b)` in units
    /// of its average): DPDK also keeps its random value until a drop, but
    /// tests it again with each packet's modulus, so it follows the law only
    /// as far as `rand % pa_den` behaves as a fresh uniform from one packet to
    /// the next (its value is 22 bits of a linear congruential generator
    /// shared by every queue); it multiplies the current `p_b` by `count`
    /// where this sums the `p_b` seen (the same while `p_b` is constant); and
    /// its `max_p` is `1 / maxp_inv` with `maxp_inv` whole.
    ///
    /// The halving is `floor(p / 2)` in 2^-32 units, with `p` the p_b after
    /// byte mode: at most half a unit (2^-33) below `p_b / 2` per packet, so
    /// over a gap of `X` packets the sum lags `X p_b / 2` by under `X 2^-33`,
    /// a relative bias below `2^-32 / p_b` on the drop fraction. The state is
    /// the same 32-bit budget, and the cost that of
    /// [`Accumulated`](Spreading::Accumulated) (the short path shifts by one
    /// more, a constant of the profile), with half as many draws and early
    /// drops.
    AccumulatedDpdk,
    /// `p_a = p_b / (1 - count p_b)` with `count` the packets accepted since
    /// the last drop, as in FJ93 section 7's analysis: gaps uniform on
    /// `1..=1/p_b`, drop fraction about `2 p_b`. One uniform per packet.
    Uniform,
    /// FJ93's pseudo-code taken literally (figure 2: `count` is incremented
    /// before `p_a` is computed, so the first packet after a drop has
    /// `count = 1`): gaps uniform on `1..=1/p_b - 1`, drop fraction `2 p_b`.
    /// This is what ns-2's RED does, and so the RED and ECN runs of the AECN slides (Zheng and Kinicki).
    UniformCountFirst,
    /// DPDK's `rte_red` formula `p_a = p_b / (2 - count p_b)` (with this
    /// crate's count): gaps uniform on `1..=2/p_b`, drop fraction about `p_b`.
    Dpdk,
    /// No spreading: `p_a = p_b`, gaps geometric, drop fraction exactly `p_b`.
    Geometric,
}

/// The spreading state value meaning "draw a new budget" ([`Spreading::Accumulated`]):
/// below min_th and after a forced drop. An early drop or mark draws the next
/// budget at once ([`Spread::after_pick`]), so a packet after one finds its
/// budget ready.
pub(crate) const FRESH: u32 = 0;

/// The spreading constants in a profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spread {
    /// One uniform per drop ([`Spreading::Accumulated`],
    /// [`Spreading::AccumulatedDpdk`]).
    pub budget: bool,
    /// The count-based test's `K = 2^k_shift` ([`hit`](Self::hit)); with
    /// `budget`, the shift of p_b before it is taken from the budget: 1 for
    /// [`Spreading::AccumulatedDpdk`] (p_b / 2), 0 for
    /// [`Spreading::Accumulated`].
    pub k_shift: u32,
    /// The state after a forced drop, and after an early drop or mark for
    /// the count-based spreadings ([`after_pick`](Self::after_pick)); below
    /// min_th it is always 0.
    pub after_drop: u32,
    pub use_count: bool,
}

impl Spread {
    pub(crate) const fn new(s: Spreading) -> Spread {
        let (budget, k_shift, after_drop, use_count) = match s {
            Spreading::Accumulated => (true, 0, FRESH, false),
            Spreading::AccumulatedDpdk => (true, 1, FRESH, false),
            Spreading::Uniform => (false, 0, 0, true),
            Spreading::UniformCountFirst => (false, 0, 1, true),
            Spreading::Dpdk => (false, 1, 0, true),
            Spreading::Geometric => (false, 0, 0, false),
        };
        Spread {
            budget,
            k_shift,
            after_drop,
            use_count,
        }
    }

    /// True when the packet with p_b `p` (2^-32 units) is to be dropped or
    /// marked; updates the spreading state `st` for a packet that is not
    /// (the caller sets [`after_pick`](Self::after_pick) for one that is).
    #[inline(always)]
    pub(crate) fn pick<R: netcond_core::RandomSource + ?Sized>(
        &self,
        p: u64,
        st: &mut u32,
        rng: &mut R,
    ) -> bool {
        if self.budget {
            // The budget b stands for U - S = b / 2^32 (0: draw a new one):
            // the packet is picked when p >= b. AccumulatedDpdk sums p_b / 2,
            // floored in 2^-32 units (k_shift = 1).
            let p = p >> self.k_shift;
            let mut b = *st;
            if b == FRESH {
                b = fresh(rng);
            }
            if p >= b as u64 {
                return true;
            }
            *st = b - p as u32;
            false
        } else {
            let r = rng.next_u32();
            if self.hit(p, *st, r) {
                return true;
            }
            *st = st.saturating_add(1);
            false
        }
    }

    /// The state after an early drop or mark: for the budget spreadings the
    /// next gap's budget, drawn now ([`fresh_budget`]), and `after_drop` for
    /// the others. Drawing at the pick rather than at the next packet keeps
    /// the law (the same uniform serves the same gap) and takes the test for
    /// [`FRESH`] off the packet after a drop. A budget drawn at a drop and then dropped (the
    /// average falls below min_th, or a forced drop, before the next packet
    /// in the region) is a draw the lazy form would not have made; the
    /// decisions for a seed then differ from it, not their law.
    #[inline(always)]
    pub(crate) fn after_pick<R: netcond_core::RandomSource + ?Sized>(&self, rng: &mut R) -> u32 {
        if self.budget {
            fresh_budget(rng)
        } else {
            self.after_drop
        }
    }

    /// True when the budget spreading halves p_b ([`Spreading::AccumulatedDpdk`]).
    pub(crate) const fn halves(&self) -> bool {
        self.budget && self.k_shift == 1
    }

    /// The count-based test: `r 2^(32 + k) < p (2^32 + c r)`, exact in u128,
    /// with `u = r / 2^32`.
    #[inline(always)]
    pub(crate) const fn hit(&self, p: u64, count: u32, r: u32) -> bool {
        let c = if self.use_count { count as u64 } else { 0 };
        // c r < 2^64 - 2^33 + 1, plus 2^32 still fits a u64; p <= 2^32.
        let rhs = (p as u128) * ((ONE + c * r as u64) as u128);
        // k_shift <= 1: r 2^k fits a u64, and the shift by 32 is a constant
        // (a variable shift of a u128 costs a double shift and selects).
        ((((r as u64) << self.k_shift) as u128) << 32) < rhs
    }
}

/// A new budget `b = r + 1` in `1..=2^32 - 1` (`U = b / 2^32` in `(0, 1)`),
/// with `r = 2^32 - 1` folded onto `2^32 - 2`: a bias below 2^-32.
#[cold]
#[inline(never)]
fn fresh<R: netcond_core::RandomSource + ?Sized>(rng: &mut R) -> u32 {
    fresh_budget(rng)
}

/// [`fresh`] inline, for the short path.
#[inline(always)]
pub(crate) fn fresh_budget<R: netcond_core::RandomSource + ?Sized>(rng: &mut R) -> u32 {
    rng.next_u32().saturating_add(1)
}

/// The scale of byte mode: `p * min(len, M) / M`, within one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteMode {
    /// M, the maximum packet size; 0 when byte mode is off.
    pub max_len: u32,
    /// ceil(2^64 / M).
    pub recip: u128,
}

impl ByteMode {
    pub(crate) const OFF: ByteMode = ByteMode {
        max_len: 0,
        recip: 0,
    };

    pub(crate) const fn new(max_len: u32) -> ByteMode {
        if max_len == 0 {
            return ByteMode::OFF;
        }
        let m = max_len as u128;
        ByteMode {
            max_len,
            recip: (1u128 << 64).div_ceil(m),
        }
    }

    /// FJ93 section 4, byte mode: `p_b * PacketSize / MaximumPacketSize`
    /// (sizes above M count as M). Exact at `len = M`; otherwise at most one
    /// unit above the floor of the exact value.
    #[inline(always)]
    pub(crate) const fn scale(&self, p: u64, len: u32) -> u64 {
        if self.max_len == 0 {
            return p;
        }
        let l = if len > self.max_len {
            self.max_len
        } else {
            len
        };
        // p <= 2^32, l < 2^32: p l < 2^64; times recip <= 2^64 / M + 1 stays below 2^128.
        (((p * l as u64) as u128 * self.recip) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ewma_reaches_target_exactly() {
        for w in [1u64, 3, 1 << 23, (1 << 32) / 500, ONE] {
            let mut a = 0u32;
            let q = 1_000_000_007u32;
            let mut steps = 0u64;
            while a != q {
                let b = ewma(a, q, w);
                assert!(b > a && b <= q);
                a = b;
                steps += 1;
                if w > 1000 {
                    assert!(steps < 200_000_000);
                } else {
                    break;
                }
            }
            // And back down.
            let b = ewma(q, 0, w);
            assert!(b < q);
        }
        assert_eq!(ewma(5, 5, ONE), 5);
        assert_eq!(ewma(0, u32::MAX, ONE), u32::MAX);
        assert_eq!(ewma(u32::MAX, 0, ONE), 0);
    }

    /// `ewma_shift` against `ewma` for `w = 2^(32 - n)`:
    /// every average and every multiple of `2^n` below 2^12 for n <= 12
    /// (below 2^5 for n <= 5 under Miri, which interprets every instruction),
    /// the edges of the range for every n <= 31.
    #[test]
    fn ewma_shift_is_ewma() {
        let check = |a: u32, q: u32, n: u32| {
            let w = 1u64 << (32 - n);
            assert_eq!(ewma_shift(a, q, n), ewma(a, q, w), "a {a} q {q} n {n}");
        };
        let bits = if cfg!(miri) { 5 } else { 12 };
        for n in 0..=bits {
            for a in 0..1u32 << bits {
                for k in 0..=(1u32 << (bits - n)) {
                    check(a, k << n, n);
                }
            }
        }
        let edges = |n: u32| {
            let top = u32::MAX >> n << n;
            [
                0,
                1 << n,
                2 << n,
                top - (1 << n),
                top,
                1 << 31,
                (1 << 31) - (1 << n),
            ]
        };
        for n in 0..=31 {
            for q in edges(n) {
                for a in [
                    0,
                    1,
                    2,
                    (1 << n) - 1,
                    1 << n,
                    (1 << n) + 1,
                    q.wrapping_sub(1),
                    q,
                    q.saturating_add(1),
                    u32::MAX - 1,
                    u32::MAX,
                ] {
                    check(a, q, n);
                }
            }
        }
    }

    proptest::proptest! {
        // 20,000 cases natively; under Miri, which interprets every
        // instruction, the default configuration, which honours PROPTEST_CASES.
        #![proptest_config(if cfg!(miri) { proptest::prelude::ProptestConfig::default() } else { proptest::prelude::ProptestConfig::with_cases(20_000) })]

        #[test]
        fn ewma_shift_is_ewma_anywhere(a in proptest::prelude::any::<u32>(), q in proptest::prelude::any::<u32>(), n in 0u32..=31) {
            let q = q >> n << n;
            let want = ewma(a, q, 1 << (32 - n));
            proptest::prop_assert_eq!(ewma_shift(a, q, n), want);
        }
    }

    proptest::proptest! {
        // 20,000 cases natively; under Miri, which interprets every
        // instruction, the default configuration, which honours PROPTEST_CASES.
        #![proptest_config(if cfg!(miri) { proptest::prelude::ProptestConfig::default() } else { proptest::prelude::ProptestConfig::with_cases(20_000) })]

        /// `hit` with its shifts split against the test as written:
        /// `r 2^(32 + k) < p (2^32 + c r)` in u128.
        #[test]
        fn hit_is_the_count_based_test(p in 0u64..=ONE, count in proptest::prelude::any::<u32>(), r in proptest::prelude::any::<u32>(), s in 0usize..6) {
            let s = [Spreading::Accumulated, Spreading::AccumulatedDpdk, Spreading::Uniform, Spreading::UniformCountFirst, Spreading::Dpdk, Spreading::Geometric][s];
            let sp = Spread::new(s);
            let c = if sp.use_count { count as u64 } else { 0 };
            let rhs = (p as u128) * ((ONE + c * r as u64) as u128);
            proptest::prop_assert_eq!(sp.hit(p, count, r), ((r as u128) << (32 + sp.k_shift)) < rhs);
        }
    }

    /// The shift form's parameters: only for `w_q = 2^-n` with `n <= frac`.
    #[test]
    fn shift_parameters() {
        let a = AvgProfile::new(1 << 23, 256, 1000);
        assert_eq!((a.shift, a.frac), (9, 23));
        assert!(a.shifts());
        assert!(!AvgProfile::new(1 << 23, 1 << 24, 1000).shifts());
        assert!(AvgProfile::new(ONE, 1, 1000).shifts());
        let b = AvgProfile::new((1 << 23) + 1, 256, 1000);
        assert!(b.shift == NO_SHIFT && !b.shifts());
        assert_eq!(b.w_rest, ONE - (1 << 23) - 1);
    }

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

    #[test]
    fn byte_scale() {
        let b = ByteMode::new(1500);
        assert_eq!(b.scale(ONE, 1500), ONE);
        assert_eq!(b.scale(ONE, 9000), ONE);
        assert_eq!(b.scale(1 << 20, 750), 1 << 19);
        assert_eq!(b.scale(12345, 0), 0);
        let b = ByteMode::new(1);
        assert_eq!(b.scale(ONE, 1), ONE);
        assert_eq!(b.scale(ONE, u32::MAX), ONE);
        assert_eq!(ByteMode::OFF.scale(77, 5), 77);
    }
}
