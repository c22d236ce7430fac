//! The estimated average rate (EAR) of RFC 2963 section 2.3.
//!
//! ```text
//! EAR_new = (1 - e^(-T/K)) L/T + e^(-T/K) EAR_old
//! ```
//!
//! with `L` the length of the arriving packet, `T` the time since the previous
//! arrival and `K` a constant (the exponential averaging of core-stateless fair
//! queueing, which section 2.3 cites).
//!
//! # Fixed point, and why not `1 - w` from a table
//!
//! Write `u = T/K` and `w = e^-u`. Computing `(1 - w) L / T` with `w` from a table
//! cancels catastrophically when `T` is much smaller than `K`: `w` is then close
//! to 1, and a table error of 1e-6 on `w` becomes an error of `1e-6 / u` on
//! `1 - w`, several percent for back-to-back packets. This module uses the
//! identity `(1 - w) L / T = g(u) L / K` with `g(u) = (1 - e^-u) / u` and two
//! regimes:
//!
//! - `u < 1/16` (including `T = 0`, where `g = 1` and `EAR_new = L/K + EAR_old`,
//!   the limit of the formula): `h = 1 - g` by linear interpolation in a
//!   65-entry table of its alternating series `u/2 - u^2/6 + u^3/24 - ...`
//!   (error below 5e-8, exact at `u = 0`; one low multiply where the series
//!   took three high ones), and `w = 1 - u g`, which has no cancellation either;
//! - `u >= 1/16`: `w = 2^-(u log2 e)`, an integer shift and a 256-entry table of
//!   `2^-f` with linear interpolation (relative error below 1e-6), and
//!   `L/T` from a table reciprocal of `T` (linear interpolation, relative error
//!   below 4e-6).
//!   Here `1 - w >= 0.06`, so the table error grows at most 16-fold.
//!
//! The relative error of one update is below 2e-5, and it does not accumulate
//! (each update shrinks the old error by `w`); the tests check 1e-4 against an
//! `f64` reference on mixed traces. No division on the update path.
//!
//! # Units
//!
//! The estimate is kept in units of `2^-(S + 16)` bytes per tick, where `S` is the
//! profile's rate scale (see [`RasProfile`](crate::RasProfile)): the shaping-rate
//! units of the profile with 16 more fraction bits. It saturates at `u64::MAX`,
//! which is at least 256 times the line rate. As the scale keeps the line rate
//! between 2^39 and 2^40 units (unless `S` is capped at 47), the resolution of
//! the estimate is `2^(k - 55)` relative for a rate `2^-k` times the line rate:
//! better than 1e-5 down to `2^-38` times the line rate (K long and packets
//! sparse beyond that lose resolution, never range).

use netcond_core::branchless::saturate_u64;
use netcond_core::Instant;

use crate::fixed::{exp2_neg_q64, h_q64, hi, normalize_ratio, recip_guess};

/// K must be below 2^40 ticks (see [`EarProfile`]).
pub const MAX_K_TICKS: u64 = 1 << 40;

/// Extra fraction bits of the EAR over the shaping-rate units.
pub const EAR_EXTRA_BITS: u32 = 16;

/// Precomputed constants of the EAR estimator for one `K`, tick rate and rate scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EarProfile {
    /// K in ticks (at least 1).
    k_ticks: u64,
    /// Below this many ticks, `u = T/K < 1/16`: the table regime of `h = 1 - g`.
    t_small: u64,
    /// floor(2^64 / K): u = T/K in Q64 is one multiply (relative error below
    /// K / 2^64 < 2^-24).
    inv_k: u64,
    /// log2(e)/K = c_m * 2^-c_e (for x in Q32: shift by c_e - 32).
    c_m: u64,
    c_sh: u32,
    /// 2^(S+16)/K = lk_m * 2^-lk_sh: L/K in EAR units. `lk_sh <= 63` (for
    /// longer K, lk_m drops low bits but keeps at least 39).
    lk_m: u64,
    lk_sh: u32,
    /// `(64 - lk_sh) & 63` and `2^lk_sh`: for `len < lk_small`, L/K is the
    /// high word of `(len << lk_up) * lk_m` (see `l_over_k`).
    lk_up: u32,
    lk_small: u64,
    /// Shift that turns L * recip(T) into EAR units: 126 - S - 16 (before the lz term).
    lt_base: u32,
}

/// Why an EAR profile could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EarBuildError {
    ZeroK,
    KTooLong,
}

impl EarProfile {
    /// Builds the constants for `K = k_ticks` ticks on a profile whose rate units
    /// are `2^-scale` bytes per tick (`scale <= 47`).
    pub(crate) fn new(k_ticks: u64, scale: u32) -> Result<EarProfile, EarBuildError> {
        if k_ticks == 0 {
            return Err(EarBuildError::ZeroK);
        }
        if k_ticks >= MAX_K_TICKS {
            return Err(EarBuildError::KTooLong);
        }
        let k = k_ticks as u128;
        // log2(e)/K = (LOG2_E_Q63 / K) * 2^-63.
        let (c_m, c_e) =
            normalize_ratio(crate::fixed::LOG2_E_Q63 as u128, k).ok_or(EarBuildError::ZeroK)?;
        let c_e = c_e + 63;
        let (lk_m, lk_e) =
            normalize_ratio(1u128 << (scale + EAR_EXTRA_BITS), k).ok_or(EarBuildError::ZeroK)?;
        // inv_k_e >= 63; c_e >= 63 since log2(e)/K < 2; lk_e >= 0 since 2^(S+16) < 2^64.
        Ok(EarProfile {
            k_ticks,
            t_small: k_ticks.div_ceil(16),
            // K = 1 never takes the short-gap branch with T > 0.
            inv_k: if k_ticks == 1 {
                u64::MAX
            } else {
                ((1u128 << 64) / k) as u64
            },
            c_m,
            c_sh: (c_e - 32).clamp(0, 127) as u32,
            lk_m: lk_m >> (lk_e - 63).clamp(0, 63),
            lk_sh: lk_e.clamp(0, 63) as u32,
            lk_up: (64 - lk_e.clamp(0, 63) as u32) & 63,
            lk_small: 1 << lk_e.clamp(0, 63),
            lt_base: 126 - scale - EAR_EXTRA_BITS,
        })
    }

    /// K in ticks.
    #[must_use]
    pub const fn k_ticks(&self) -> u64 {
        self.k_ticks
    }
}

/// The per-flow EAR state: the estimate and the time of the last arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ear {
    ear: u64,
    last: Instant,
}

impl Ear {
    /// An estimator holding `raw` (units of `2^-(S + 16)` bytes per tick),
    /// last updated at tick 0.
    #[cfg(test)]
    pub(crate) const fn from_raw(raw: u64) -> Ear {
        Ear {
            ear: raw,
            last: Instant::ZERO,
        }
    }

    /// A zero estimate at `now`, for the tests' models, which keep no profile.
    #[cfg(test)]
    pub(crate) const fn zero_at(now: Instant) -> Ear {
        Ear { ear: 0, last: now }
    }

    /// An estimator that starts at zero at `now`.
    #[must_use]
    pub const fn new(_profile: &EarProfile, now: Instant) -> Ear {
        Ear { ear: 0, last: now }
    }

    /// The estimate in units of `2^-(S + 16)` bytes per tick.
    #[inline]
    #[must_use]
    pub const fn raw(&self) -> u64 {
        self.ear
    }

    /// The time of the last arrival.
    #[inline]
    #[must_use]
    pub const fn last_arrival(&self) -> Instant {
        self.last
    }

    /// Folds in the arrival of a packet of `len` bytes at `now` (RFC 2963
    /// section 2.3). A `now` older than the previous arrival counts as `T = 0`.
    #[inline(always)]
    pub fn update(&mut self, p: &EarProfile, now: Instant, len: u32) {
        let t = self.last.advance_to(now);
        // All fractions below are Q64 (1.0 = 2^64, so only values below 1 are
        // stored) and every product keeps the high word: no double-word shifts.
        let (term1, term2) = if t < p.t_small {
            // u = T/K < 1/16; h = 1 - g(u) from its table (error below 5e-8).
            let u = t.wrapping_mul(p.inv_k);
            let h = h_q64(u);
            // 1 - w = u g = u - u h.
            let v = u - hi(u, h);
            // L/K in EAR units, then g L/K = L/K - h L/K and w EAR = EAR - v EAR.
            let lk = l_over_k(p, len);
            (lk - hi(h, lk), self.ear - hi(v, self.ear))
        } else {
            long_gap(p, self.ear, t, len)
        };
        self.ear = term1.saturating_add(term2);
    }
}

/// `L/K` in EAR units: `saturate_u64(len * lk_m >> lk_sh)`.
///
/// For `len < 2^lk_sh` it is computed as the high word of `(len << lk_up) *
/// lk_m` with `lk_up = 64 - lk_sh`: `len << lk_up < 2^64`, and `floor(len 2^lk_up
/// lk_m / 2^64) = floor(len lk_m / 2^lk_sh)`, the same value with no rounding
/// of its own; it is below `2^64` (as `len lk_m < 2^(lk_sh + 64)`), so the
/// saturation does nothing. That takes one multiply and a one-word shift
/// instead of a double-word shift and a saturation. (`lk_sh = 0` takes this
/// branch only for `len = 0`, where both are 0 whatever the shift.) Longer
/// packets take the general form (a branch on the length, well predicted:
/// `lk_sh` is 31 for K = 100 ms at 2.3 GHz, and larger for shorter K).
#[inline(always)]
fn l_over_k(p: &EarProfile, len: u32) -> u64 {
    let l = len as u64;
    if l < p.lk_small {
        hi(l << (p.lk_up & 63), p.lk_m)
    } else {
        // lk_sh < 64: one double-word shift, no select.
        saturate_u64((len as u128 * p.lk_m as u128) >> (p.lk_sh & 63))
    }
}

/// The two terms of the update for `T >= K/16`, out of line: the rare branch
/// for any stream of more than a few packets per K.
#[inline(never)]
fn long_gap(p: &EarProfile, ear: u64, t: u64, len: u32) -> (u64, u64) {
    // x = u log2(e) in Q32; w = 2^-x in Q64 (zero beyond x = 64).
    let x = saturate_u64((t as u128 * p.c_m as u128) >> p.c_sh);
    let w = exp2_neg_q64(x);
    let v = if w == 0 { u64::MAX } else { w.wrapping_neg() };
    // 1/T from the table guess alone (relative error below 4e-6).
    let (y, _, lz) = recip_guess(t);
    // (1 - w) L / T in EAR units = (1-w) y L 2^(lz - 126 + S + 16); the
    // shift lt_base - lz lies in [0, 110].
    let a = hi(v, y) as u128;
    (
        saturate_u64((a * len as u128) >> (p.lt_base - lz)),
        hi(w, ear),
    )
}

#[cfg(test)]
#[allow(clippy::float_arithmetic)] // f64 reference values in tests only
mod tests {
    use super::*;
    use netcond_core::{RandomSource, SplitMix64};

    /// The f64 reference: the formula of section 2.3, with expm1 so that small T
    /// does not cancel, in bytes per tick.
    fn reference(ear: f64, t: f64, k: f64, l: f64) -> f64 {
        let u = t / k;
        let g = if u == 0.0 { 1.0 } else { -(-u).exp_m1() / u };
        g * l / k + (-u).exp() * ear
    }

    fn to_bpt(raw: u64, scale: u32) -> f64 {
        raw as f64 / 2f64.powi((scale + EAR_EXTRA_BITS) as i32)
    }

    fn run_trace(k_ticks: u64, scale: u32, seed: u64, n: usize) -> f64 {
        let p = EarProfile::new(k_ticks, scale).unwrap();
        let mut e = Ear::new(&p, Instant::ZERO);
        let mut now = 0u64;
        let mut r = SplitMix64::new(seed);
        let mut want = 0.0f64;
        let mut worst = 0.0f64;
        for _ in 0..n {
            let l = match r.below(4) {
                0 => 40,
                1 => 576,
                2 => 1500,
                _ => 40 + r.below(9000),
            };
            // Gaps: zero, much smaller than K, around K, and larger than K.
            let t = match r.below(6) {
                0 => 0,
                1 => r.below(1 + (k_ticks / 10_000).min(u32::MAX as u64) as u32) as u64,
                2 => r.below(1 + (k_ticks / 100).min(u32::MAX as u64) as u32) as u64,
                3 => r.below(1 + (k_ticks / 4).min(u32::MAX as u64) as u32) as u64,
                4 => k_ticks / 16 + r.below(1 + (2 * k_ticks).min(u32::MAX as u64) as u32) as u64,
                _ => (k_ticks as f64 * (1.0 + r.below(40) as f64)) as u64,
            };
            now += t;
            e.update(&p, Instant::from_ticks(now), l);
            want = reference(want, t as f64, k_ticks as f64, l as f64);
            let got = to_bpt(e.raw(), scale);
            let rel = (got - want).abs() / want;
            worst = worst.max(rel);
        }
        worst
    }

    /// Miri interprets every instruction: under it the traces are short.
    const TRACE: usize = if cfg!(miri) { 150 } else { 200_000 };

    #[test]
    fn ear_matches_f64_reference_on_mixed_traces() {
        // K = 100 ms on a ns clock with a 34 Mbit/s line (S = 47), K = 1 ms on a
        // 2.3 GHz clock, tiny Ks, and a coarse scale. Each scale leaves the EAR
        // room for 64 times the largest L/K (the estimate saturates above).
        for (k, scale, seed) in [
            (100_000_000u64, 47u32, 1u64),
            (2_300_000, 40, 2),
            (50, 30, 3),
            (1_000_000_000, 36, 4),
            (7, 30, 5),
        ] {
            let worst = run_trace(k, scale, seed, TRACE);
            assert!(worst <= 1e-4, "K {k} S {scale}: relative error {worst}");
        }
    }

    #[test]
    fn back_to_back_packets_have_no_cancellation() {
        // T much smaller than K: the naive (1 - w) L / T with a table w errs by
        // percents here.
        let k = 100_000_000u64;
        let p = EarProfile::new(k, 47).unwrap();
        let mut e = Ear::new(&p, Instant::ZERO);
        let mut want = 0.0;
        let mut now = 0;
        for _ in 0..TRACE.min(10_000) {
            now += 1200; // 1500 B at 10 Gbit/s
            e.update(&p, Instant::from_ticks(now), 1500);
            want = reference(want, 1200.0, k as f64, 1500.0);
            let got = to_bpt(e.raw(), 47);
            assert!((got - want).abs() <= 1e-5 * want, "{got} vs {want}");
        }
    }

    /// `l_over_k` equals the general `saturate_u64(len lk_m >> lk_sh)` for every
    /// shift the profiles produce (K from 1 tick to 2^40, scales 0 to 47) and
    /// lengths on both sides of its `2^lk_sh` switch, the extremes included.
    #[test]
    fn l_over_k_matches_the_general_form() {
        let mut r = SplitMix64::new(9);
        let mut shifts = [false; 64];
        // Under Miri, which interprets every instruction: every fifth power of two.
        let ks = (0..40)
            .step_by(if cfg!(miri) { 5 } else { 1 })
            .map(|e| 1u64 << e)
            .chain([3, 7, 100_000_000, MAX_K_TICKS - 1]);
        for k in ks {
            for scale in [0u32, 1, 16, 30, 40, 44, 47] {
                let p = EarProfile::new(k, scale).unwrap();
                shifts[p.lk_sh as usize] = true;
                let edge = 1u64 << p.lk_sh;
                let mut lens: Vec<u64> = vec![0, 1, 2, 64, 1500, u32::MAX as u64];
                lens.extend([edge.wrapping_sub(1), edge, edge + 1]);
                lens.extend((0..if cfg!(miri) { 2 } else { 50 }).map(|_| r.next_u32() as u64));
                for len in lens.into_iter().filter(|&l| l <= u32::MAX as u64) {
                    let len = len as u32;
                    let want = saturate_u64((len as u128 * p.lk_m as u128) >> p.lk_sh);
                    assert_eq!(l_over_k(&p, len), want, "K {k} S {scale} len {len}");
                }
            }
        }
        // Both sides of lk_sh = 32, and the extremes, were exercised.
        assert!(
            shifts[0] && shifts[31] && shifts[32] && shifts[63],
            "{shifts:?}"
        );
    }

    #[test]
    fn zero_gap_adds_l_over_k() {
        let k = 1 << 20;
        let p = EarProfile::new(k, 40).unwrap();
        let mut e = Ear::new(&p, Instant::from_ticks(5));
        e.update(&p, Instant::from_ticks(5), 1000);
        let want = 1000.0 / k as f64;
        let got = to_bpt(e.raw(), 40);
        assert!((got - want).abs() <= 1e-9 * want);
        // Backwards time is T = 0 too.
        e.update(&p, Instant::from_ticks(1), 1000);
        let got = to_bpt(e.raw(), 40);
        assert!((got - 2.0 * want).abs() <= 1e-9 * want);
        assert_eq!(e.last_arrival(), Instant::from_ticks(5));
    }

    #[test]
    fn steady_stream_converges_to_its_rate() {
        // 1000 B every 1 ms = 1e6 B/s = 1e-3 B/ns.
        let p = EarProfile::new(100_000_000, 47).unwrap();
        let mut e = Ear::new(&p, Instant::ZERO);
        // 5 s natively; 1.5 s under Miri, which interprets every instruction
        // (15 K: the start is forgotten to well below the 1e-7 asked).
        let n = if cfg!(miri) { 1_500 } else { 5_000u64 };
        for i in 1..=n {
            e.update(&p, Instant::from_ticks(i * 1_000_000), 1000);
        }
        let got = to_bpt(e.raw(), 47);
        assert!((got - 1e-3).abs() < 1e-7, "{got}");
    }

    #[test]
    fn extremes_do_not_overflow() {
        let p = EarProfile::new(1, 47).unwrap();
        let mut e = Ear::new(&p, Instant::ZERO);
        for _ in 0..100 {
            e.update(&p, Instant::ZERO, u32::MAX);
        }
        assert_eq!(e.raw(), u64::MAX);
        e.update(&p, Instant::from_ticks(i64::MAX as u64), 0);
        assert_eq!(e.raw(), 0);
        assert!(EarProfile::new(u64::MAX, 0).is_err());
        assert!(EarProfile::new(MAX_K_TICKS, 0).is_err());
        let p = EarProfile::new(MAX_K_TICKS - 1, 0).unwrap();
        let mut e = Ear::new(&p, Instant::ZERO);
        e.update(&p, Instant::from_ticks(u64::MAX / 3), u32::MAX);
        e.update(&p, Instant::from_ticks(u64::MAX / 3 * 2), 0);
        assert!(EarProfile::new(0, 10).is_err());
    }
}
