//! Fixed-point helpers: compile-time tables of `1/x` and `2^-x`, a division-free
//! reciprocal, and the configuration-time normalisation of ratios.
//!
//! These are not a fixed-point number type, and the `fixed` crate (a
//! dependency elsewhere in the workspace) does not replace them: it has no
//! table-and-Newton reciprocal and no `2^-x` or `h(u)` tables, and its
//! quotients are divisions of the widened bits, which this crate keeps off the
//! per-packet path. The results here are pinned bit for bit by this crate's
//! tests (the reciprocal's error bound, `transmission_time` against its
//! `u128` form, the precomputed gaps against the exact quotients, the EAR
//! against its `u128` forms); the branch-free masks come from
//! `netcond_core::branchless`.
//!
//! The tables hold values in `[0, 1]` in Q63 (`1.0 = 2^63`). The per-packet
//! code works in Q64 fractions (values below 1, `1.0 = 2^64`) and keeps the high
//! word of each 64 x 64-bit product, which costs no shift at all.

/// 1.0 in Q63 (the tables' format).
#[cfg(test)]
pub(crate) const ONE_Q63: u64 = 1 << 63;

/// Entries of the interpolation tables: 256 intervals, 257 points.
const TABLE_BITS: u32 = 8;
const TABLE_LEN: usize = (1 << TABLE_BITS) + 1;

/// `RECIP[i] = 2^63 / (1 + i/256)` in Q63 (rounded to nearest), `i = 0..=256`.
pub(crate) const RECIP: [u64; TABLE_LEN] = build_recip();

/// `RECIP_STEP[i] = (RECIP[i] - RECIP[i + 1]) >> 24`, `i = 0..256`: the
/// interpolation step of [`recip_guess`] per unit of its 24-bit fraction,
/// built at compile time so that the per-packet path loads it instead of
/// subtracting and shifting after the loads (the same value, so the same
/// guess; two operations fewer on the path from the rate to the gap).
pub(crate) const RECIP_STEP: [u64; 1 << TABLE_BITS] = build_recip_step();

/// `EXP2[i] = 2^(-i/256)` in Q63 (rounded to nearest), `i = 0..=256`.
pub(crate) static EXP2: [u64; TABLE_LEN] = build_exp2();

/// Intervals of [`H`], the table of `h(u) = 1 - (1 - e^-u)/u` on `[0, 1/16]`.
pub(crate) const H_BITS: u32 = 6;

/// `H[i] = h(i / 1024)` in Q64 (`1.0 = 2^64`), `i = 0..=64`: `h` rises from 0 to
/// about 0.03 on `[0, 1/16]`.
pub(crate) const H: [u64; (1 << H_BITS) + 1] = build_h();

/// `H_STEP[i] = (H[i + 1] - H[i]) >> 24`, `i = 0..64`: the step of [`h_q64`]
/// per unit of its 24-bit fraction, as [`RECIP_STEP`] is for [`recip_guess`].
pub(crate) const H_STEP: [u64; 1 << H_BITS] = build_h_step();

/// `log2(e)` in Q63 (about 1.4427, so it uses the top bit of the `u64`).
pub(crate) const LOG2_E_Q63: u64 = log2_e_q63();

const fn build_recip() -> [u64; TABLE_LEN] {
    let mut t = [0u64; TABLE_LEN];
    let mut i = 0;
    while i < TABLE_LEN {
        let d = 256 + i as u128;
        t[i] = (((1u128 << 71) + d / 2) / d) as u64;
        i += 1;
    }
    t
}

const fn build_recip_step() -> [u64; 1 << TABLE_BITS] {
    let r = build_recip();
    let mut t = [0u64; 1 << TABLE_BITS];
    let mut i = 0;
    while i < t.len() {
        // RECIP decreases: 1/(1 + i/256) falls with i.
        t[i] = (r[i] - r[i + 1]) >> 24;
        i += 1;
    }
    t
}

const fn build_h_step() -> [u64; 1 << H_BITS] {
    let h = build_h();
    let mut t = [0u64; 1 << H_BITS];
    let mut i = 0;
    while i < t.len() {
        // H increases: h rises on [0, 1/16].
        t[i] = (h[i + 1] - h[i]) >> 24;
        i += 1;
    }
    t
}

/// ln 2 in Q120, from ln 2 = sum over k >= 1 of 1 / (k 2^k) (the error of the
/// truncated terms stays below 2^-110).
const fn ln2_q120() -> u128 {
    let mut s: u128 = 0;
    let mut k: u32 = 1;
    while k < 120 {
        s += (1u128 << (120 - k)) / k as u128;
        k += 1;
    }
    s
}

const fn log2_e_q63() -> u64 {
    // log2(e) = 1 / ln 2; Q63 = 2^(63 + 120) / ln2_q120, done as 2^126 / ln2_q63.
    let ln2_q63 = ln2_q120() >> 57;
    ((1u128 << 126) / ln2_q63) as u64
}

/// e^-y for `y` in Q63 with `0 <= y <= 1`, in Q63, by its Taylor series (the
/// alternating terms are summed separately, so nothing goes negative).
const fn exp_neg_q63(y: u128) -> u128 {
    let one: u128 = 1 << 63;
    let mut even: u128 = one;
    let mut odd: u128 = 0;
    let mut term: u128 = one;
    let mut k: u128 = 1;
    while k < 40 {
        term = ((term * y) >> 63) / k;
        if k % 2 == 1 {
            odd += term;
        } else {
            even += term;
        }
        k += 1;
    }
    even - odd
}

/// h(u) for `u` in Q63 with `0 <= u <= 1/16`, in Q63: the alternating series
/// `u/2 - u^2/6 + u^3/24 - ...` (terms `u^k / (k+1)!`), summed as in
/// [`exp_neg_q63`].
const fn h_q63(u: u128) -> u128 {
    let mut even: u128 = 0;
    let mut odd: u128 = 0;
    let mut term: u128 = u / 2;
    let mut k: u128 = 1;
    while k < 20 {
        if k % 2 == 1 {
            odd += term;
        } else {
            even += term;
        }
        term = ((term * u) >> 63) / (k + 2);
        k += 1;
    }
    odd - even
}

const fn build_h() -> [u64; (1 << H_BITS) + 1] {
    let mut t = [0u64; (1 << H_BITS) + 1];
    let mut i = 0;
    while i < t.len() {
        // u = i / 1024 = i * 2^53 in Q63.
        t[i] = (h_q63((i as u128) << 53) << 1) as u64;
        i += 1;
    }
    t
}

/// `h(u) = 1 - (1 - e^-u)/u` for `u` in Q64 with `u < 1/16`, in Q64, by linear
/// interpolation in [`H`]: error below 5e-8 (the curvature of `h` is below 1/3
/// and the intervals are 1/1024 wide), exact 0 at `u = 0`.
#[inline(always)]
pub(crate) fn h_q64(u: u64) -> u64 {
    let idx = ((u >> (64 - 4 - H_BITS)) & ((1 << H_BITS) - 1)) as usize;
    // The next 24 bits interpolate; H rises by less than 2^54 per interval.
    let frac = (u >> (64 - 4 - H_BITS - 24)) & 0xff_ffff;
    // H[idx] + ((H[idx + 1] - H[idx]) >> 24) frac, the step from its table.
    H[idx] + H_STEP[idx] * frac
}

const fn build_exp2() -> [u64; TABLE_LEN] {
    let ln2_q63 = ln2_q120() >> 57;
    let mut t = [0u64; TABLE_LEN];
    let mut i = 0;
    while i < TABLE_LEN {
        // 2^(-i/256) = e^(-(i/256) ln 2).
        let y = (ln2_q63 * i as u128 + 128) >> 8;
        t[i] = exp_neg_q63(y) as u64;
        i += 1;
    }
    t
}

/// The high half of a 64 x 64-bit product: `a * b / 2^64`, rounded down. With
/// `a` a Q64 fraction this is `a * b` in the units of `b`, with no shift.
#[inline(always)]
pub(crate) fn hi(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) >> 64) as u64
}

/// A division-free reciprocal: for `x >= 1` returns `(y, lz)` with
/// `1/x = y * 2^(lz - 126)` to a relative error below 1e-10.
///
/// `lz` is the count of leading zeros of `x`, `m = x << lz` lies in
/// `[2^63, 2^64)`, and `y ~ 2^126 / m` lies in `[2^62, 2^63]`. The first guess is
/// a linear interpolation in [`RECIP`] (relative error below 4e-6), refined by one
/// Newton step `y <- y (2 - m y / 2^126)`, which squares the error. Only whole
/// 64-bit words of the 128-bit products are used, so no double-word shifts.
/// `x = 0` is treated as 1.
#[inline(always)]
pub(crate) fn recip(x: u64) -> (u64, u32) {
    let (y0, m, lz) = recip_guess(x);
    // Newton step: m y0 / 2^126 = 1 + e / 2^62 with e the high word minus 2^62.
    let ph = hi(m, y0);
    if ph >= 1 << 62 {
        let e = ph - (1 << 62);
        (y0 - hi(y0, e << 2), lz)
    } else {
        let e = (1 << 62) - ph;
        (y0 + hi(y0, e << 2), lz)
    }
}

/// The first guess of [`recip`] alone, `(y, m, lz)`: relative error below 4e-6.
#[inline(always)]
pub(crate) fn recip_guess(x: u64) -> (u64, u64, u32) {
    let x = x | (x == 0) as u64;
    let lz = x.leading_zeros();
    let m = x << lz;
    let idx = ((m >> (63 - TABLE_BITS)) & 0xff) as usize;
    // The next 24 bits interpolate; (a - b) < 2^56, so (a - b) >> 24 times a
    // 24-bit fraction fits a u64 (truncation below 2^25 units of 2^63).
    let frac = (m >> (63 - TABLE_BITS - 24)) & 0xff_ffff;
    // RECIP[idx] - ((RECIP[idx] - RECIP[idx + 1]) >> 24) frac, the step from
    // its table.
    (RECIP[idx] - RECIP_STEP[idx] * frac, m, lz)
}

/// `2^-x` for `x` in Q32 (`x = x_q32 / 2^32`) with `x > 0`, in Q64; zero from
/// `x >= 64` on, and `u64::MAX` (just below 1) for `x = 0`.
///
/// The integer part of `x` is a shift, the fractional part a linear interpolation
/// in [`EXP2`] (relative error below 1e-6).
#[inline(always)]
pub(crate) fn exp2_neg_q64(x_q32: u64) -> u64 {
    let xi = x_q32 >> 32;
    if xi >= 64 {
        return 0;
    }
    let idx = ((x_q32 >> (32 - TABLE_BITS)) & 0xff) as usize;
    let frac = (x_q32 >> (32 - TABLE_BITS - 24)) & 0xff_ffff;
    let a = EXP2[idx];
    let b = EXP2[idx + 1];
    let f = a - ((a - b) >> 24) * frac; // Q63, at most 2^63
    if xi == 0 {
        // f < 2^63 unless x = 0.
        if f >= 1 << 63 {
            u64::MAX
        } else {
            f << 1
        }
    } else {
        f >> (xi - 1)
    }
}

/// The transmission time at one constant rate, precomputed at configuration
/// time: `len * 2^S / rate` in 2^-32 tick is `(len * m) >> sh`, one multiply and
/// a shift below 64 instead of a reciprocal per packet.
///
/// `m / 2^sh` is `2^(S + 32) / rate` rounded down (`up = false`) or up (`up =
/// true`), with `m` at least `2^34`: relative error below `2^-34` (below `2^-63`
/// unless the rate is within `2^-29` of a byte per tick of the scale's top), so
/// the rounded-down gap is never longer than the exact quotient and the
/// rounded-up one, truncated to 2^-32 tick, never shorter than the truncated
/// quotient. `sh >= 2` keeps every gap below [`MAX_GAP_TICKS`](crate::MAX_GAP_TICKS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct ConstGap {
    m: u64,
    sh: u32,
    /// `64 - sh` and `2^sh`: for `len < small` the gap is the high word of
    /// `(len << up) * m` (see [`gap`](Self::gap)).
    up: u32,
    small: u64,
}

impl ConstGap {
    /// `None` when the rate is too slow (2^30 ticks per byte or more) or too fast
    /// for the format; the caller then uses [`transmission_time`](crate::transmission_time).
    pub(crate) fn new(rate: u64, scale: u32, up: bool) -> Option<ConstGap> {
        let (m, e) = normalize_ratio(1u128 << (scale + 32), rate as u128)?;
        if e < 2 {
            return None;
        }
        // Shifts above 63 trade low bits of m for a one-word shift.
        let d = (e - 63).max(0) as u32;
        if d > 29 {
            return None;
        }
        let m = m >> d;
        let m = if up { m.checked_add(1)? } else { m };
        let sh = e as u32 - d; // in [2, 63]
        Some(ConstGap {
            m,
            sh,
            up: 64 - sh,
            small: 1 << sh,
        })
    }

    /// The gap for `len` bytes: whole ticks and 2^-32 tick, from `g = (len m)
    /// >> sh`.
    ///
    /// For `len < 2^sh` (every packet below 4 bytes per 2^-sh: for CIR 40 MB/s
    /// on a 2.3 GHz clock `sh` is 25, 32 MB), `g` is the high word of `(len <<
    /// (64 - sh)) m`: `len << (64 - sh) < 2^64` and `floor(len 2^(64 - sh) m /
    /// 2^64) = floor(len m / 2^sh)`, the same value, below 2^64 (as `len m <
    /// 2^(sh + 64)`), so its two halves are single-word shifts. That takes one
    /// multiply instead of a double-word shift by a variable count and another
    /// by 32. Longer lengths take the `u128` form (a branch on the length,
    /// well predicted).
    #[inline(always)]
    pub(crate) fn gap(&self, len: u32) -> (u64, u32) {
        let l = len as u64;
        if l < self.small {
            let g = hi(l << (self.up & 63), self.m);
            (g >> 32, g as u32)
        } else {
            // sh < 64 by construction; the mask lets the shift compile to one shrd.
            let g = (len as u128 * self.m as u128) >> (self.sh & 63);
            ((g >> 32) as u64, g as u32)
        }
    }
}

/// Configuration time: `num / den = m * 2^-e` with `m` in `[2^63, 2^64)`, `m`
/// rounded down. `None` if `num == 0`, `den == 0` or `den >= 2^127`.
pub(crate) fn normalize_ratio(num: u128, den: u128) -> Option<(u64, i32)> {
    if num == 0 || den == 0 || den >= 1 << 127 {
        return None;
    }
    let ip = num / den;
    let mut rem = num % den;
    if ip >= 1 << 63 {
        let k = (128 - ip.leading_zeros()) - 64;
        return Some(((ip >> k) as u64, -(k as i32)));
    }
    let mut m = ip;
    let mut e: i32 = 0;
    while m < 1 << 63 {
        rem <<= 1;
        let bit = rem >= den;
        if bit {
            rem -= den;
        }
        m = (m << 1) | bit as u128;
        e += 1;
    }
    Some((m as u64, e))
}

#[cfg(test)]
#[allow(clippy::float_arithmetic)] // f64 reference values in tests only
mod tests {
    use super::*;

    fn q63(x: u64) -> f64 {
        x as f64 / ONE_Q63 as f64
    }

    #[test]
    fn tables_match_f64() {
        for i in 0..TABLE_LEN {
            let r = 1.0 / (1.0 + i as f64 / 256.0);
            assert!((q63(RECIP[i]) - r).abs() < 1e-15, "recip {i}");
            let e = (-(i as f64) / 256.0).exp2();
            assert!(
                (q63(EXP2[i]) - e).abs() < 1e-15,
                "exp2 {i}: {} vs {e}",
                q63(EXP2[i])
            );
        }
        assert!((q63(LOG2_E_Q63) - std::f64::consts::LOG2_E).abs() < 1e-15);
    }

    /// The step tables hold exactly the differences the interpolations used
    /// to compute after their loads, for every interval.
    #[test]
    fn step_tables_match_the_differences() {
        for i in 0..1 << TABLE_BITS {
            assert_eq!(RECIP_STEP[i], (RECIP[i] - RECIP[i + 1]) >> 24, "recip {i}");
        }
        for i in 0..1 << H_BITS {
            assert_eq!(H_STEP[i], (H[i + 1] - H[i]) >> 24, "h {i}");
        }
    }

    #[test]
    fn recip_is_accurate() {
        let mut r = netcond_core::SplitMix64::new(7);
        use netcond_core::RandomSource;
        let mut xs: Vec<u64> = vec![1, 2, 3, 255, 256, 257, u64::MAX, 1 << 63, (1 << 63) - 1];
        // Miri interprets every instruction: fewer random values there.
        let n = if cfg!(miri) { 300 } else { 100_000 };
        for _ in 0..n {
            let hi = r.next_u32() as u64;
            let lo = r.next_u32() as u64;
            let sh = r.below(64);
            xs.push(((hi << 32) | lo) >> sh);
        }
        for x in xs {
            let x = x.max(1);
            let (y, lz) = recip(x);
            assert!((1u64 << 62..=1u64 << 63).contains(&y));
            // x * y * 2^(lz - 126) should be 1.
            let prod = (x as u128 * y as u128) as f64 * 2f64.powi(lz as i32 - 126);
            assert!((prod - 1.0).abs() < 1e-10, "x {x}: {prod}");
        }
    }

    #[test]
    fn h_is_accurate() {
        let h = |u: f64| {
            if u == 0.0 {
                0.0
            } else {
                1.0 + (-u).exp_m1() / u
            }
        };
        for (i, &v) in H.iter().enumerate() {
            let u = i as f64 / 1024.0;
            assert!((v as f64 / 2f64.powi(64) - h(u)).abs() < 1e-15, "H {i}");
        }
        assert_eq!(h_q64(0), 0);
        let mut worst = 0.0f64;
        // Miri interprets every instruction: fewer points there.
        let n = if cfg!(miri) { 2_000 } else { 400_000u64 };
        for k in 0..n {
            let u_q64 = k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 4; // below 1/16
            let u = u_q64 as f64 / 2f64.powi(64);
            let got = h_q64(u_q64) as f64 / 2f64.powi(64);
            worst = worst.max((got - h(u)).abs());
        }
        assert!(worst < 5e-8, "{worst}");
    }

    #[test]
    fn exp2_is_accurate() {
        // Under Miri, which interprets every instruction: every 499th point.
        for k in (0..200_000u64).step_by(if cfg!(miri) { 499 } else { 1 }) {
            let x_q32 = k * 1_400_000 + 12_345;
            let x = x_q32 as f64 / 4_294_967_296.0;
            let got = exp2_neg_q64(x_q32) as f64 / 2f64.powi(64);
            let want = (-x).exp2();
            if x < 50.0 {
                assert!(
                    (got - want).abs() <= 1.2e-6 * want + 2e-19,
                    "x {x}: {got} vs {want}"
                );
            }
        }
        assert_eq!(exp2_neg_q64(64 << 32), 0);
        assert_eq!(exp2_neg_q64(u64::MAX), 0);
        assert_eq!(exp2_neg_q64(0), u64::MAX);
        assert_eq!(exp2_neg_q64(1 << 32), 1 << 63);
        assert_eq!(hi(u64::MAX, u64::MAX), u64::MAX - 1);
    }

    /// `ConstGap::gap` equals the `u128` form `(len m) >> sh` split in whole
    /// ticks and 2^-32 tick, for rates giving every shift from 2 to 63 and
    /// lengths on both sides of the `2^sh` switch, the extremes included.
    #[test]
    fn const_gap_matches_the_wide_form() {
        let mut r = netcond_core::SplitMix64::new(17);
        use netcond_core::RandomSource;
        let mut shifts = [false; 64];
        // Under Miri, which interprets every instruction: every seventh rate.
        for scale in [0u32, 20, 40, 47] {
            for e in (0..64).step_by(if cfg!(miri) { 7 } else { 1 }) {
                for rate in [1u64 << e, (1u64 << e) | 1, (1u64 << e).wrapping_sub(1)] {
                    for up in [false, true] {
                        let Some(g) = ConstGap::new(rate.max(1), scale, up) else {
                            continue;
                        };
                        shifts[g.sh as usize] = true;
                        let edge = 1u64 << g.sh;
                        let mut lens = vec![0u64, 1, 64, 1500, u32::MAX as u64];
                        lens.extend([edge - 1, edge, edge + 1]);
                        lens.extend(
                            (0..if cfg!(miri) { 1 } else { 20 }).map(|_| r.next_u32() as u64),
                        );
                        for len in lens.into_iter().filter(|&l| l <= u32::MAX as u64) {
                            let w = (len as u128 * g.m as u128) >> g.sh;
                            let want = ((w >> 32) as u64, w as u32);
                            assert_eq!(g.gap(len as u32), want, "rate {rate} S {scale} len {len}");
                        }
                    }
                }
            }
        }
        assert!(
            shifts[2..].iter().filter(|&&x| x).count() > if cfg!(miri) { 8 } else { 40 },
            "{shifts:?}"
        );
    }

    #[test]
    fn ratios_normalise() {
        let (m, e) = normalize_ratio(1, 3).unwrap();
        assert!(m >= 1 << 63);
        let v = m as f64 * 2f64.powi(-e);
        assert!((v - 1.0 / 3.0).abs() < 1e-15);
        let (m, e) = normalize_ratio(u128::MAX >> 1, 1).unwrap();
        assert!(m >= 1 << 63 && e < 0);
        assert!(normalize_ratio(0, 1).is_none());
        assert!(normalize_ratio(1, 0).is_none());
    }
}
