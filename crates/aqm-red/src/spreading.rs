//! How drops are spread over the packets since the last one (FJ93 section
//! 7): the public [`Spreading`] and its constants in a profile.

use crate::ONE;

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
/// | [`Wait`](Spreading::Wait) | 0 while `n p_b < 1`, `p_b / (2 - n p_b)` while `n p_b < 2`, then 1 | with `N = 1/p_b` whole: uniform on `N..=2N - 1`, `P(X = n) = p_b` | `2 p_b / (3 - p_b)` when `1/p_b` is whole: about `2 p_b / 3` |
///
/// Entering the probabilistic region from below min_th counts as "after a drop"
/// for every variant (FJ93's `count = -1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
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
    /// Waiting between drops, the law of ns-3's `RedQueueDisc` with its
    /// default `Wait=true` (ns-2's `wait_`; FJ93 section 7 argues for
    /// spreading drops evenly rather than in clusters, and this law pushes
    /// that further by never dropping early in a gap). With `n` the packets
    /// since the last drop or mark, this one included (`count` incremented
    /// first, as in FJ93's figure 2): `p_a = 0` while `n p_b < 1`, `p_a = p_b /
    /// (2 - n p_b)` while `n p_b < 2`, and 1 beyond. At a constant `p_b` with
    /// `1/p_b = N` whole, the gap is uniform on `N..=2N - 1` and the drop
    /// fraction `2 p_b / (3 - p_b)`, about a third of
    /// [`UniformCountFirst`](Spreading::UniformCountFirst)'s `2 p_b`.
    ///
    /// The first packet on entering the region from below min_th has `n = 1`,
    /// so it is never dropped while `p_b < 1` (ns-3's first packet after a
    /// stay below min_th, which it passes without a test). One uniform per
    /// packet in the region, drawn even where `p_a` is 0, as ns-3 draws; the
    /// test is `u (2 - n p_b) < p_b` in integers, after the test `n p_b >= 1`.
    Wait,
}

/// The spreading state value meaning "draw a new budget" ([`Spreading::Accumulated`]):
/// below min_th and after a forced drop. An early drop or mark draws the next
/// budget at once ([`Spread::after_pick`]), so a packet after one finds its
/// budget ready.
pub(crate) const FRESH: u32 = 0;

/// The spreading constants in a profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Spread {
    /// One uniform per drop ([`Spreading::Accumulated`],
    /// [`Spreading::AccumulatedDpdk`]).
    pub budget: bool,
    /// The count-based test's `K = 2^k_shift` ([`hit`](Self::hit)); with
    /// `budget`, the shift of p_b before it is taken from the budget: 1 for
    /// [`Spreading::AccumulatedDpdk`] (p_b / 2), 0 for
    /// [`Spreading::Accumulated`].
    pub k_shift: u8,
    /// The state after a forced drop, and after an early drop or mark for
    /// the count-based spreadings ([`after_pick`](Self::after_pick)); below
    /// min_th it is always 0.
    pub after_drop: u32,
    pub use_count: bool,
    /// [`Spreading::Wait`]: the count-based test [`wait_hit`](Self::wait_hit)
    /// instead of [`hit`](Self::hit), only off the short path (its curves
    /// have no `early_range`).
    pub wait: bool,
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
            // The state is the packets since the drop before this one (0
            // after a drop and below min_th); wait_hit adds this packet.
            Spreading::Wait => (false, 1, 0, true),
        };
        Spread {
            budget,
            k_shift,
            after_drop,
            use_count,
            wait: matches!(s, Spreading::Wait),
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
            let hit = if self.wait {
                Self::wait_hit(p, *st, r)
            } else {
                self.hit(p, *st, r)
            };
            if hit {
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

    /// [`Spreading::Wait`]'s test for a packet with p_b `p` (2^-32 units,
    /// at most 2^32) after `count` packets since the last drop, with `u = r /
    /// 2^32`: with `n = count + 1`, false while `n p < 2^32` (`n p_b < 1`),
    /// else `2 u < p_b (1 + n u)`, which is `u (2 - n p_b) < p_b`, so `u <
    /// p_b / (2 - n p_b)` while `n p_b < 2` and always beyond (the left side
    /// is then at most 0 and `p_b > 0`). Exact in u128: `n p <= 2^64`,
    /// `p (2^32 + n r) < 2^97`.
    #[inline(always)]
    pub(crate) const fn wait_hit(p: u64, count: u32, r: u32) -> bool {
        let n = count as u128 + 1;
        if n * (p as u128) < ONE as u128 {
            return false;
        }
        ((r as u128) << 33) < (p as u128) * ((ONE as u128) + n * r as u128)
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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        // 20,000 cases natively; under Miri, which interprets every
        // instruction, the default configuration, which honours PROPTEST_CASES.
        #![proptest_config(if cfg!(miri) { proptest::prelude::ProptestConfig::default() } else { proptest::prelude::ProptestConfig::with_cases(20_000) })]

        /// `hit` with its shifts split against the test as written:
        /// `r 2^(32 + k) < p (2^32 + c r)` in u128.
        #[test]
        fn hit_is_the_count_based_test(p in 0u64..=ONE, count in proptest::prelude::any::<u32>(), r in proptest::prelude::any::<u32>(), s in 0usize..6) {
            let s = [Spreading::Accumulated, Spreading::AccumulatedDpdk, Spreading::Uniform, Spreading::UniformCountFirst, Spreading::Dpdk, Spreading::Geometric][s];
            proptest::prop_assert!(!Spread::new(s).wait);
            let sp = Spread::new(s);
            let c = if sp.use_count { count as u64 } else { 0 };
            let rhs = (p as u128) * ((ONE + c * r as u64) as u128);
            proptest::prop_assert_eq!(sp.hit(p, count, r), ((r as u128) << (32 + u32::from(sp.k_shift))) < rhs);
        }

        /// `wait_hit` against ns-3's `ModifyP` with `Wait=true` read as
        /// exact rationals: with `n = count + 1`, `x = n p_b`, no drop while
        /// `x < 1`, `u < p_b / (2 - x)` while `x < 2`, a drop beyond; every
        /// side multiplied out by the positive denominators 2^32 and 2^64.
        #[test]
        fn wait_hit_is_ns3_wait_law(p in 0u64..=ONE, count in proptest::prelude::any::<u32>(), r in proptest::prelude::any::<u32>()) {
            let n = u128::from(count) + 1;
            let x = n * u128::from(p); // n p_b in 2^-32 units
            let one = 1u128 << 32;
            let expect = if x < one {
                false
            } else if x < 2 * one {
                // u (2 - x) < p_b: r (2^33 - x) < p 2^32, both sides times 2^64.
                u128::from(r) * (2 * one - x) < u128::from(p) << 32
            } else {
                true
            };
            proptest::prop_assert_eq!(Spread::wait_hit(p, count, r), expect);
        }
    }

    /// `wait_hit` at its edges: the gate at `n p_b = 1` exactly, the largest
    /// count and p_b = 1, and p_b = 0 (never).
    #[test]
    fn wait_hit_edges() {
        // p_b = 1/4 (2^30): n = 3 -> 3/4 < 1, no drop whatever u; n = 4 ->
        // p_a = p_b / (2 - 1) = 1/4: u = 0 drops, u = 1/4 does not.
        let q = 1u64 << 30;
        assert!(!Spread::wait_hit(q, 2, 0));
        assert!(Spread::wait_hit(q, 3, 0));
        assert!(Spread::wait_hit(q, 3, (1 << 30) - 1));
        assert!(!Spread::wait_hit(q, 3, 1 << 30));
        // n = 7: n p_b = 7/4 -> p_a = (1/4) / (1/4) = 1: every u drops.
        assert!(Spread::wait_hit(q, 6, u32::MAX));
        // n = 8: n p_b = 2, beyond: every u drops.
        assert!(Spread::wait_hit(q, 7, u32::MAX));
        assert!(Spread::wait_hit(ONE, u32::MAX, u32::MAX));
        assert!(Spread::wait_hit(ONE, 0, u32::MAX));
        assert!(!Spread::wait_hit(0, u32::MAX, 0));
    }
}
