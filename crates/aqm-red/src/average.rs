//! The average queue: the EWMA (FJ93 section 4) with multiplications or,
//! for `w_q = 2^-n`, a shift, and the decay over an idle period.
//!
//! - A queue average is a `u32` holding `avg * 2^F`, where `F` (the profile's
//!   `frac` bits) is the largest shift that keeps the buffer limit below 2^32:
//!   `F = leading_zeros(limit)`. A queue of 50 packets gets `F = 26`, one of
//!   10^6 bytes `F = 12`.
//! - `w_q` is `W / 2^32` with `W` in `1..=2^32` (exact for any `U32F32` input).
//! - The idle-decay factor is a `u64` holding `f * 2^64` (Q0.64).

use fixed::types::U32F32;

use crate::ONE;

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
/// `u32` cast is exact.
///
/// `a + c` is taken in 32 bits (wrapping), so that on x86-64 it comes from a
/// 32-bit `sbb`, whose result the compiler knows to be zero-extended (no
/// `mov` to clear the upper half of the register that holds the average). It
/// wraps only for `a = 2^32 - 1` with `c = 1`, that is `q = 2^32 - 1`, a
/// multiple of `2^n` only for `n = 0`: then the wrapped `a + c = 0` gives `0 +
/// (q - 0) = q = a`, the value without the wrap. The final sum is taken
/// modulo 2^32, the `u32` cast of the exact sum. Tested against [`ewma`]
/// exhaustively on small values and at random (`ewma_shift_is_ewma`,
/// `ewma_shift_is_ewma_anywhere`).
#[inline(always)]
pub(crate) const fn ewma_shift(avg: u32, q_fx: u32, n: u32) -> u32 {
    let ac = avg.wrapping_add((q_fx >= avg) as u32);
    (((q_fx as i64 - ac as i64) >> n) as u32).wrapping_add(ac)
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

    /// True when [`ewma_shift`] applies to every queue
    /// below the limit: `w_q = 2^-n` with `n <= frac`, so that `q << frac` is a
    /// multiple of `2^n`.
    pub(crate) const fn shifts(&self) -> bool {
        self.shift <= self.frac
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

    /// `avg` queue units as kept (`avg * 2^F`), rounded down to the
    /// average's resolution and at most the buffer (`limit_fx`): the inverse
    /// of [`units_of`](Self::units_of) for the profiles' `p_b` queries.
    pub(crate) const fn fx_of_units(&self, avg: U32F32) -> u32 {
        let bits = avg.to_bits() >> (32 - self.frac);
        if bits > self.limit_fx as u64 {
            self.limit_fx
        } else {
            bits as u32
        }
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
}
