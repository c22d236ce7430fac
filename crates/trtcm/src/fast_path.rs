//! The fast path of the three markers: what a profile checks once so that its
//! packets can skip the general path's clamps and saturations, the operations
//! of that path, and why it gives the general path's results.
//!
//! # Why it gives the general path's results
//!
//! A profile checks once, in `u128`, whether its constants keep every
//! intermediate of the packet path in range (`fast_costs` and `fast_refill`); if
//! they do, packets take a fast path that tests elapsed time once for both
//! buckets, does not clamp lengths and never saturates. Why it is exact and gives
//! the general path's results (`Bucket::gain`, `Bucket::cost`, `probe`), with
//! `full < 2^62` (`BucketProfile::new`) and every token count `<= full`:
//!
//! - Time: `dt_max` is at least every bucket's `fill_ticks = ceil(fill / inc)`.
//!   For `dt <= fill_ticks` both paths add `dt x inc`; for longer, both add at
//!   least `fill_ticks x inc >= fill`, and the bucket (and for the srTCM, E
//!   behind C) ends full either way. So the srTCM and the trTCM, whose rates are
//!   never zero, take both buckets full when `dt >= dt_max`, with no arithmetic,
//!   and refill by `dt < dt_max` otherwise; the RFC 4115 marker, whose rates may
//!   be zero, clamps `dt` to `dt_max` (a zero rate, `fill_ticks = 0`, adds
//!   nothing on either path).
//! - Refill: `tokens + dt x inc <= full + dt_max x inc <= u64::MAX`, which
//!   `fast_refill(b, dt_max, full)` checks; so neither the product nor the sum
//!   overflows, and the general path's saturating add never saturates. For the
//!   srTCM, what overflows C is at most the refill, so `Te + overflow <= EBS +
//!   dt_max x inc`, which `fast_refill(e, dt_max, e.full())` checks (E's `inc` is
//!   C's).
//! - Cost: `len x scale + strict <= u32::MAX x scale + 1 < 2^63` (`fast_costs`).
//!   The general path clamps `len` to one byte more than the largest bucket it
//!   tests; a packet that long fits no bucket on either path, and a packet that
//!   does not fit is never subtracted, so the clamp changes nothing.
//! - Test: with `tokens < 2^62` and `need < 2^63`, `tokens - need` lies in
//!   `(-2^63, 2^62)`: exact as an `i64`, negative exactly when the packet does not
//!   fit (`margin`).
//! - Update: `settle` returns `tokens` (keep) or `tokens - cost` (pay, only when
//!   the margin is not negative), both exact. The srTCM and the RFC 4115 marker,
//!   which branch on the color, test `tokens >= cost + strict` on the same `u64`s
//!   and pay `tokens - cost` only when it holds: exact for the same reasons.

use netcond_core::Color;

/// Whether every cost on the fast path, `len x scale + strict` for any `u32`
/// length, stays below 2^63, so that [`margin`] is exact.
pub(crate) fn fast_costs(b: &netcond_core::BucketProfile, strict: u64) -> bool {
    u128::from(u32::MAX) * u128::from(b.scale()) + u128::from(strict) < 1 << 63
}

/// Whether `tokens + dt x inc` fits in a `u64` for every `tokens <= max_tokens`
/// and `dt <= dt_max`, so that [`fill`] is exact.
pub(crate) fn fast_refill(b: &netcond_core::BucketProfile, dt_max: u64, max_tokens: u64) -> bool {
    u128::from(max_tokens) + u128::from(dt_max) * u128::from(b.inc()) <= u128::from(u64::MAX)
}

/// The whole refill on the fast path: `min(tokens + dt x inc, size)`. No
/// overflow when [`fast_refill`] holds for `dt` and `tokens` (plain operators:
/// the tests, built with overflow checks, check that too).
#[inline(always)]
pub(crate) fn fill(b: &netcond_core::BucketProfile, tokens: u64, dt: u64) -> u64 {
    let sum = tokens + dt * b.inc();
    // Marked unpredictable, since whether a bucket fills up follows the
    // traffic. The mark is a hint, not a guarantee: where the compiler judges a
    // branch cheaper it may still emit one (docs/performance.md, "The C call").
    select(sum > b.full(), b.full(), sum)
}

/// `tokens - need` as an `i64`: negative exactly when the packet does not fit
/// (`need > tokens`), given `tokens < 2^62` and `need < 2^63` (see
/// [`fast_costs`]): the difference lies in `(-2^63, 2^62)`.
#[inline(always)]
pub(crate) fn margin(tokens: u64, need: u64) -> i64 {
    tokens.wrapping_sub(need) as i64
}

/// The token count after a packet of `cost` units whose test left
/// `margin = tokens - cost - strict`: `tokens` when `keep` is negative (the
/// bucket keeps its tokens), else `tokens - cost` (it pays; the caller only lets
/// it when `margin >= 0`). A mask from a sign and an addition rather than a
/// branch: whether a packet fits follows the traffic, and a branch on it would
/// mispredict.
#[inline(always)]
pub(crate) fn settle(margin: i64, strict: u64, cost: u64, keep: i64) -> u64 {
    (margin as u64)
        .wrapping_add(strict)
        .wrapping_add(cost & (keep >> 63) as u64)
}

/// A pre-color as two signs: the first negative if it is red, the second
/// negative unless it is green.
#[inline(always)]
pub(crate) fn signs_of(input: Color) -> (i64, i64) {
    let i = input.index() as i64;
    // Green 0, yellow 1, red 2: only red reaches bit 63 when shifted by 62.
    (i << 62, -i)
}

/// The color from two signs: `not_green` negative unless the packet is green,
/// `red` negative if it is red (and then `not_green` is too). Written as two
/// tests of signs, which the trTCM's packet path compiles to a shift of
/// `not_green`'s sign and a conditional move of red over it: three
/// instructions fewer per packet than a table indexed by the two sign bits,
/// whose address its packet loop had to rebuild (docs/performance.md).
#[inline(always)]
pub(crate) fn color_of_signs(not_green: i64, red: i64) -> Color {
    if red < 0 {
        Color::Red
    } else if not_green < 0 {
        Color::Yellow
    } else {
        Color::Green
    }
}

/// `if c { a } else { b }`, marked unpredictable where the compiler has the
/// hint (netcond-core's `select_unpredictable`), so that the compiler emits a
/// conditional move rather than a branch: whether a packet fits follows the
/// traffic.
pub(crate) use netcond_core::branchless::select_unpredictable as select;

/// Test support for the fast path: random streams, and a run of a profile on the
/// fast path against the same profile forced onto the general path.
#[cfg(test)]
pub(crate) mod both_paths {
    use crate::ThreeColorMarker;
    use netcond_core::{Color, Instant};
    use netcond_core::{Rate, TickRate};
    use proptest::prelude::*;

    /// One packet: time step (wrapping; 2^63 or more steps backwards), length,
    /// pre-color (`None`: color-blind).
    pub(crate) type Op = (u64, u32, Option<Color>);

    pub(crate) fn ops() -> impl Strategy<Value = Vec<Op>> {
        let dt = prop_oneof![
            Just(0u64),
            1u64..10_000,
            0u64..100_000_000,
            any::<u32>().prop_map(u64::from),
            Just(i64::MAX as u64),
            Just(1u64 << 63),
            (0u64..1_000_000).prop_map(|d| u64::MAX - d),
            any::<u64>(),
        ];
        let len = prop_oneof![
            Just(0u32),
            Just(u32::MAX),
            1u32..3000,
            1u32..200_000,
            any::<u32>(),
        ];
        let input = prop_oneof![
            Just(None),
            Just(Some(Color::Green)),
            Just(Some(Color::Yellow)),
            Just(Some(Color::Red)),
        ];
        // Up to 4 packets under Miri, which interprets every instruction:
        // there each packet's three `prop_oneof!` cost more to generate than
        // a whole stream of packets to run.
        let max_len = if cfg!(miri) { 5 } else { 200 };
        proptest::collection::vec((dt, len, input), 1..max_len)
    }

    pub(crate) fn tick() -> impl Strategy<Value = TickRate> {
        prop_oneof![
            Just(TickRate::NANOS),
            Just(TickRate::MILLIS),
            Just(TickRate::from_hz(2_300_000_000).unwrap()),
            // Scale 2^31, the largest the fast path takes, for odd bit rates.
            Just(TickRate::from_hz(1 << 28).unwrap()),
            (1u64..1 << 40).prop_map(|hz| TickRate::from_hz(hz).unwrap()),
        ]
    }

    pub(crate) fn rate() -> impl Strategy<Value = Rate> {
        prop_oneof![
            (1u64..1_000_000).prop_map(Rate::from_bits_per_sec),
            (1u64..10_000_000_000).prop_map(Rate::from_bytes_per_sec),
            any::<u64>().prop_map(Rate::from_bits_per_sec),
        ]
    }

    pub(crate) fn burst() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            1u64..100,
            1000u64..100_000,
            any::<u32>().prop_map(u64::from)
        ]
    }

    /// Runs `ops` from `start` on `fast` and on `general` (the same constants on
    /// the general path): colors and states must be identical after every packet.
    pub(crate) fn same<M>(
        fast: &M::Profile,
        general: &M::Profile,
        start: u64,
        ops: &[Op],
    ) -> Result<(), TestCaseError>
    where
        M: ThreeColorMarker + PartialEq + core::fmt::Debug,
    {
        let mut now = Instant::from_ticks(start);
        let (mut a, mut b) = (M::start(fast, now), M::start(general, now));
        prop_assert_eq!(a, b);
        for (i, &(dt, len, input)) in ops.iter().enumerate() {
            now = now.wrapping_add(dt);
            let (ca, cb) = both(fast, general, &mut a, &mut b, now, len, input);
            prop_assert_eq!(ca, cb, "packet {} {:?}", i, (dt, len, input));
            prop_assert_eq!(a, b, "packet {} {:?}", i, (dt, len, input));
        }
        Ok(())
    }

    /// Elapsed times at and around each of `ticks`, every length of `lens`, every
    /// pre-color and color-blind.
    pub(crate) fn grid<'a>(ticks: &'a [u64], lens: &'a [u32]) -> Grid<'a> {
        Grid { ticks, lens }
    }

    /// The packets of [`grid`], worked out from their index rather than stored
    /// (under Miri, which interprets every instruction, [`same_from`] takes a
    /// sample, and building them all would cost more than running it).
    pub(crate) struct Grid<'a> {
        ticks: &'a [u64],
        lens: &'a [u32],
    }

    impl Grid<'_> {
        /// How many packets.
        pub(crate) fn packets(&self) -> usize {
            self.ticks.len() * 3 * self.lens.len() * 4
        }

        /// Packet `i`: by tick, each one tick early, on time and one tick late,
        /// then by length, then color-blind, green, yellow and red.
        pub(crate) fn op(&self, i: usize) -> Op {
            let inputs = [
                None,
                Some(Color::Green),
                Some(Color::Yellow),
                Some(Color::Red),
            ];
            let j = i / 4 / self.lens.len();
            let t = self.ticks[j / 3];
            let dt = [t.saturating_sub(1), t, t.saturating_add(1)][j % 3];
            (dt, self.lens[i / 4 % self.lens.len()], inputs[i % 4])
        }
    }

    /// One packet through `a` on the fast profile and `b` on the general one,
    /// color-blind when `input` is `None`: the two colors.
    fn both<M: ThreeColorMarker>(
        fast: &M::Profile,
        general: &M::Profile,
        a: &mut M,
        b: &mut M,
        now: Instant,
        len: u32,
        input: Option<Color>,
    ) -> (Color, Color) {
        match input {
            None => (
                a.color_blind(fast, now, len),
                b.color_blind(general, now, len),
            ),
            Some(c) => (
                a.color_aware(fast, now, len, c),
                b.color_aware(general, now, len, c),
            ),
        }
    }

    /// Every packet of `ops`, from every one of `states` (last updated at tick 0,
    /// so that an op's time step is its elapsed time): one step on each path.
    ///
    /// Under Miri, which interprets every instruction, every 53rd pair of a
    /// state and a packet (a prime, so that the pairs taken spread over the
    /// states, times, lengths and pre-colors).
    pub(crate) fn same_from<M>(fast: &M::Profile, general: &M::Profile, states: &[M], ops: &Grid)
    where
        M: ThreeColorMarker + PartialEq + core::fmt::Debug,
    {
        let stride = if cfg!(miri) { 53 } else { 1 };
        let n = ops.packets();
        for k in (0..states.len() * n).step_by(stride) {
            let s = &states[k / n];
            let (dt, len, input) = ops.op(k % n);
            let (mut a, mut b) = (*s, *s);
            let now = Instant::from_ticks(dt);
            let (ca, cb) = both(fast, general, &mut a, &mut b, now, len, input);
            assert_eq!(
                (ca, a),
                (cb, b),
                "from {s:?}, packet {:?}",
                (dt, len, input)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcond_core::{BucketProfile, Rate, TickRate};

    #[test]
    fn hinted_select_is_the_plain_select() {
        use netcond_core::branchless::select as plain;
        for c in [false, true] {
            assert_eq!(select(c, 3u64, u64::MAX), plain(c, 3u64, u64::MAX));
            assert_eq!(
                select(c, Color::Red, Color::Green),
                plain(c, Color::Red, Color::Green)
            );
        }
        assert_eq!(select(true, 1u64, 2), 1);
        assert_eq!(select(false, 1u64, 2), 2);
    }

    #[test]
    fn fast_costs_boundary() {
        // 1 bit/s on a 2^28 Hz clock: scale 8 x 2^28 = 2^31, the largest for which
        // u32::MAX x scale (+ 1) stays below 2^63.
        let hz = |h: u64| TickRate::from_hz(h).unwrap();
        let b = BucketProfile::new(Rate::from_bits_per_sec(1), 1, hz(1 << 28)).unwrap();
        assert_eq!(b.scale(), 1 << 31);
        assert_eq!(u64::from(u32::MAX) * b.scale(), (1 << 63) - (1 << 31));
        assert!(fast_costs(&b, 0) && fast_costs(&b, 1));
        // 1 byte/s on a 2^31 + 1 Hz clock: scale 2^31 + 1, one too many.
        let b = BucketProfile::new(Rate::from_bytes_per_sec(1), 1, hz((1 << 31) + 1)).unwrap();
        assert_eq!(b.scale(), (1 << 31) + 1);
        assert!(!fast_costs(&b, 0) && !fast_costs(&b, 1));
    }

    #[test]
    fn fast_refill_boundary() {
        // On a 1 Hz clock an odd rate of r bit/s gives inc = r, scale 8: a 1-byte
        // bucket holds 8 units and fills in one tick.
        let one = TickRate::from_hz(1).unwrap();
        let b = BucketProfile::new(Rate::from_bits_per_sec(u64::MAX - 8), 1, one).unwrap();
        assert_eq!((b.inc(), b.full()), (u64::MAX - 8, 8));
        // A full bucket plus one tick of refill is exactly u64::MAX.
        assert!(fast_refill(&b, 1, b.full()));
        assert_eq!(fill(&b, b.full(), 1), b.full());
        assert!(!fast_refill(&b, 2, b.full()));
        let b = BucketProfile::new(Rate::from_bits_per_sec(u64::MAX - 6), 1, one).unwrap();
        assert!(!fast_refill(&b, 1, b.full()));
    }

    #[test]
    fn margin_sign_is_the_test() {
        // The largest need (u32::MAX bytes at scale 2^31) against an empty and a
        // full bucket (below 2^62 units): always negative, never wrapped.
        let need = u64::from(u32::MAX) << 31;
        assert!(margin(0, need) < 0);
        assert!(margin((1 << 62) - 1, need) < 0);
        assert!(margin((1 << 62) - 1, 0) > 0);
        assert_eq!(margin(5, 5), 0);
        assert_eq!(margin(4, 5), -1);
        // settle: keep or pay.
        assert_eq!(settle(margin(9, 5), 0, 5, -1), 9);
        assert_eq!(settle(margin(9, 5), 0, 5, 0), 4);
        assert_eq!(settle(margin(9, 6), 1, 5, 0), 4);
        assert_eq!(settle(margin(9, 6), 1, 5, i64::MIN), 9);
    }

    #[test]
    fn color_from_signs_and_pre_colors() {
        use Color::{Green as G, Red as R, Yellow as Y};
        assert_eq!(color_of_signs(0, 0), G);
        assert_eq!(color_of_signs(-1, 0), Y);
        assert_eq!(color_of_signs(-1, i64::MIN), R);
        assert_eq!(signs_of(G), (0, 0));
        let (red, not_green) = signs_of(Y);
        assert!(red >= 0 && not_green < 0);
        let (red, not_green) = signs_of(R);
        assert!(red < 0 && not_green < 0);
    }
}
