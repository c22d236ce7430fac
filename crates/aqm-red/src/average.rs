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

/// The table `(1 - w_q)^(2^k / s)` for `k` in `0..64`, in Q0.64, rounded down
/// (`1` itself saturates to `u64::MAX`), with `w_q = w / 2^32`.
///
/// Integers only, and no division wider than 64 bits, so that building a
/// profile needs neither floating point nor a 128-bit division routine: with
/// `lambda = -ln(1 - w_q)` ([`neg_ln_one_minus`]), entry `k` is `e^-x`
/// ([`exp_neg`]) for `x = 2^k lambda / s`. `lambda / s` is taken once, as a
/// 64-bit quotient of the two normalized mantissas with its power of two;
/// `x` is then that quotient shifted, in Q56. The error accounting is in
/// docs/aqm-red.md ("Idle decay"): each entry is within a relative `2^-48` of
/// the exact value.
fn decay_table(w: u64, s: u64) -> [u64; 64] {
    let mut t = [0u64; 64];
    if w >= ONE {
        // (1 - 1)^x = 0 for every x > 0.
        return t;
    }
    // lambda = lm 2^-le and s = sm 2^-ls, lm and sm in [2^63, 2^64).
    let (lm, le) = neg_ln_one_minus(w);
    let ls = s.leading_zeros();
    let sm = s << ls;
    // q = floor(lm 2^63 / sm) in [2^62, 2^64), by restoring division (one
    // quotient bit per step, the remainder in 65 bits).
    let (mut q, mut r, d) = (0u64, u128::from(lm), u128::from(sm));
    for _ in 0..64 {
        q <<= 1;
        if r >= d {
            r -= d;
            q |= 1;
        }
        r <<= 1;
    }
    // lambda / s = q 2^(ls - le - 63), so x_k in Q56 is q 2^(k + ls - le - 7).
    for (k, e) in t.iter_mut().enumerate() {
        let sh = k as i64 + i64::from(ls) - i64::from(le) - 7;
        if sh >= 0 {
            // x >= q 2^-56 >= 64 (q >= 2^62): this entry and every later one
            // is below 2^-92, zero.
            break;
        }
        let x = if sh <= -64 { 0 } else { q >> -sh };
        *e = exp_neg(x);
    }
    t
}

/// `ln 2` in Q62, rounded down: `floor(ln 2 x 2^62)`. The test
/// `ln2_in_q62` sums `ln 2 = sum over k >= 1 of 1 / (k 2^k)` and finds the
/// same value.
const LN2_Q62: u64 = 0x2c5c_85fd_f473_de6a;

/// `a b / 2^62` for `a`, `b` in Q62, rounded down (the result must fit).
fn mul_q62(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) >> 62) as u64
}

/// `-ln(1 - w / 2^32)` for `w` in `1..2^32`, as `(m, e)` with the value `m
/// 2^-e` and `m` in `[2^63, 2^64)`, to a relative error below `2^-55`.
///
/// - `w <= 2^31`: `-ln(1 - v) = v (1 + v/2 + v^2/3 + ...)` with `v = w / 2^32
///   <= 1/2`; the bracket, between 1 and `2 ln 2`, in Q62 (62 terms: the rest is
///   below `2^-62`), times `w`, with the bracket's relative error however
///   small `w` is.
/// - `w > 2^31`: with `y = 2^32 - w = 2^e m`, `m` in `[1, 2)`, `e <= 30`,
///   `-ln(y / 2^32) = (32 - e) ln 2 - ln m`, at least `ln 2`; `ln m = 2 atanh(z)`
///   with `z = (m - 1) / (m + 1) < 1/3`, a series whose terms shrink ninefold,
///   in Q62: an absolute error of a few `2^-62`.
fn neg_ln_one_minus(w: u64) -> (u64, u32) {
    // The value as v 2^-f, v < 2^128, then normalized.
    let (v, f): (u128, u32) = if w <= 1 << 31 {
        let x = w << 30;
        let (mut sum, mut pow) = (0u64, 1u64 << 62);
        for n in 1..=62 {
            sum += pow / n;
            pow = mul_q62(pow, x);
        }
        // (w / 2^32) (sum / 2^62): w sum < 2^94.
        (u128::from(w) * u128::from(sum), 94)
    } else {
        let y = (1u64 << 32) - w;
        let e = 63 - y.leading_zeros();
        let base = 1u64 << e;
        // z = floor((y - 2^e) 2^62 / (y + 2^e)), in two 64-bit steps.
        let (num, den) = ((y - base) << 32, y + base);
        let z = ((num / den) << 30) + (((num % den) << 30) / den);
        let z2 = mul_q62(z, z);
        let (mut sum, mut pow, mut n) = (0u64, z, 1u64);
        while pow != 0 {
            sum += pow / n;
            pow = mul_q62(pow, z2);
            n += 2;
        }
        // ln m = 2 sum; (32 - e) ln 2 - ln m in Q62 is below 23 * 2^62.
        let lambda = u128::from(32 - e) * u128::from(LN2_Q62) - 2 * u128::from(sum);
        (lambda, 62)
    };
    let lz = v.leading_zeros();
    // v 2^-f = (v << lz) 2^-(f + lz) = m 2^64 2^-(f + lz), the low word dropped.
    (((v << lz) >> 64) as u64, f + lz - 64)
}

/// `e^-x` for `x` in Q56 (`x < 64`), in Q0.64 rounded down, `u64::MAX` for
/// `x = 0`: `x = n ln 2 + f` with `f` in `[0, ln 2)` in Q62, and `e^-f` by its
/// Taylor series (the alternating terms summed apart, so nothing goes
/// negative; 30 terms leave less than `2^-100`), shifted right by `n`.
fn exp_neg(x: u64) -> u64 {
    let x62 = u128::from(x) << 6;
    let ln2 = u128::from(LN2_Q62);
    // n = floor(x62 / ln 2), first from Q56: the divisor `LN2_Q62 >> 6` is at
    // most ln 2 in Q56, so this quotient is never below the true one (and in
    // fact at most one above it); stepping down while `n ln 2 > x62` then
    // stops at the largest `n` with `n ln 2 <= x62`, which leaves
    // `f = x62 - n ln 2` in `[0, ln 2)`.
    let mut n = x / (LN2_Q62 >> 6);
    while u128::from(n) * ln2 > x62 {
        n -= 1;
    }
    if n >= 64 {
        return 0;
    }
    let f = (x62 - u128::from(n) * ln2) as u64;
    let (mut even, mut odd, mut term) = (1u64 << 62, 0u64, 1u64 << 62);
    for k in 1..=30 {
        term = mul_q62(term, f) / k;
        if k % 2 == 1 {
            odd += term;
        } else {
            even += term;
        }
    }
    // e^-f in (1/2, 1] as Q62; as Q64 it is 4 times that, then 2^-n.
    u64::try_from((u128::from(even - odd) << 2) >> n).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as the `f64` model computes it (`libm`'s `log1p` and `exp`,
    /// within about a relative `2^-47` of the exact value where not zero).
    #[allow(clippy::float_arithmetic)]
    fn decay_table_f64(w: u64, s: u64) -> [u64; 64] {
        let mut t = [0u64; 64];
        let ln = libm::log1p(-(w as f64) / 4_294_967_296.0);
        for (k, e) in t.iter_mut().enumerate() {
            let x = libm::ldexp(1.0, k as i32) / (s as f64) * ln;
            *e = (libm::exp(x) * 18_446_744_073_709_551_616.0) as u64;
        }
        t
    }

    /// Every entry of the integer table within a relative `2^-44` (and two
    /// units) of the `f64` model, for weights from `2^-32` to `1 - 2^-32` and
    /// typical transmission times from one tick to `u64::MAX` ticks; zero
    /// exactly where the model is below one unit, and `u64::MAX` only at 1.
    #[test]
    #[allow(clippy::float_arithmetic)]
    fn decay_table_is_the_f64_model() {
        let ws = [
            1u64,
            2,
            3,
            1000,
            (1 << 32) / 500,
            1 << 20,
            (1 << 31) - 1,
            1 << 31,
            (1 << 31) + 1,
            3 << 30,
            (1 << 32) - (1 << 20),
            (1 << 32) - 3,
            (1 << 32) - 1,
        ];
        let ss = [
            1u64,
            2,
            3,
            7,
            1000,
            1_200_000,
            1 << 40,
            u64::MAX / 3,
            u64::MAX,
        ];
        for &w in &ws {
            for &s in &ss {
                let (int, model) = (decay_table(w, s), decay_table_f64(w, s));
                for k in 0..64 {
                    let (a, b) = (int[k], model[k]);
                    let tol = libm::ldexp(b as f64, -44) as u64 + 2;
                    assert!(a.abs_diff(b) <= tol, "w {w} s {s} k {k}: {a} vs {b}");
                    assert!(a != u64::MAX || b == u64::MAX, "w {w} s {s} k {k}");
                }
            }
        }
        // w_q = 1: every entry 0.
        assert_eq!(decay_table(ONE, 5), [0; 64]);
    }

    /// ln 2 in Q62: the series gives the constant, and `f64`'s `LN_2` (exact
    /// to `2^-53`, so to `2^9` units) agrees.
    #[test]
    #[allow(clippy::float_arithmetic)]
    fn ln2_in_q62() {
        // The series, each term rounded down in Q126 (the error of the sum
        // stays below 2^-118), then rounded down to Q62.
        let mut sum: u128 = 0;
        for k in 1..126u32 {
            sum += (1u128 << (126 - k)) / u128::from(k);
        }
        assert_eq!(LN2_Q62, (sum >> 64) as u64);
        // `libm::ldexp` is exact, and the same under Miri, whose float
        // intrinsics such as `exp2` are deliberately imprecise.
        let model = libm::ldexp(core::f64::consts::LN_2, 62);
        assert!((LN2_Q62 as f64 - model).abs() <= 512.0);
        // e^-(ln 2) = 1/2 and e^-0 = 1 (saturated), from Q56.
        assert!(exp_neg(LN2_Q62 >> 6).abs_diff(1 << 63) <= 1 << 10);
        assert_eq!(exp_neg(0), u64::MAX);
        assert_eq!(exp_neg(64 * (LN2_Q62 >> 6) + 64), 0);
    }

    /// `e^-x` on both sides of each multiple of ln 2 (in Q56, rounded down),
    /// where the reduction's `n` steps up by one: `2^-k` there, to a relative
    /// `2^-40` (x differs from `k ln 2` by at most 2^-56), in Q0.64.
    #[test]
    fn exp_neg_at_multiples_of_ln2() {
        for k in 1..64u32 {
            let at = ((u128::from(k) * u128::from(LN2_Q62)) >> 6) as u64;
            for x in [at - 1, at, at + 1, at + 2] {
                let want = 1u64 << (64 - k);
                let got = exp_neg(x);
                assert!(
                    got.abs_diff(want) <= (want >> 40) + 1,
                    "k {k}, x {x}: {got} vs {want}"
                );
            }
        }
    }

    /// `-ln(1 - w / 2^32)` on both sides of the branch at `w = 2^31` (where it
    /// is `ln 2`) and at the ends, against `libm::log1p`.
    #[test]
    #[allow(clippy::float_arithmetic)]
    fn neg_ln_on_both_branches() {
        for w in [1u64, 7, 1 << 31, (1 << 31) + 1, (1 << 32) - 1] {
            let (m, e) = neg_ln_one_minus(w);
            assert!(m >> 63 == 1, "w {w}: not normalized");
            let got = libm::ldexp(m as f64, -(e as i32));
            let want = -libm::log1p(-(w as f64) / 4_294_967_296.0);
            assert!(
                (got - want).abs() <= libm::ldexp(want, -50),
                "w {w}: {got} vs {want}"
            );
        }
    }

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
