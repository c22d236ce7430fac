//! Three-color markers: RFC 2697 srTCM, RFC 2698 trTCM, RFC 4115 trTCM, and a
//! single-rate EF premium policer.
//!
//! Every marker meters a packet stream against token buckets and gives each packet
//! a [`Color`]:
//!
//! | marker | buckets | green | yellow | red |
//! |---|---|---|---|---|
//! | [`SrTcm`] (RFC 2697 section 3) | C (CIR, CBS), E (CIR, EBS) filled by C's overflow | `B <= Tc`, Tc -= B | `B <= Te`, Te -= B | otherwise, nothing taken |
//! | [`TrTcm`] (RFC 2698 section 3) | P (PIR, PBS), C (CIR, CBS) | `B <= Tp` and `B <= Tc`, both -= B | `B <= Tp`, Tp -= B | `Tp < B`, nothing taken |
//! | [`Rfc4115`] (RFC 4115 section 3) | C (CIR, CBS), E (EIR, EBS), independent | `B <= Tc`, Tc -= B | `B <= Te`, Te -= B | otherwise, nothing taken |
//!
//! In color-aware mode a pre-colored packet is never promoted: a yellow packet can
//! only stay yellow or become red, and a red one stays red.
//!
//! [`PremiumPolicer`] is the premium TCP test's EF policer: one token bucket (TBs, committed
//! rate) in front of a premium buffer of PBs bytes, with verdicts admitted / policer
//! drop / buffer drop; see [`policer`] for the premium TCP test's `PBs > TBs + one packet`
//! rule, the exact bound behind it (`PBs >= TBs + one packet - 1 byte` suffices
//! when the buffer is served at least at the committed rate), and why the caller
//! reports departures with [`PremiumPolicer::dequeued`].
//!
//! # Design
//!
//! As everywhere in netcond, a `...Config` in RFC units (rates as
//! [`Rate`](netcond_core::Rate), bursts in bytes, the tick clock) is validated once
//! into a `...Profile` of precomputed constants, shared by any number of flows;
//! the per-flow state (`SrTcm`, `TrTcm`, `Rfc4115`, `PremiumPolicer`) is a
//! 24-byte `Copy` struct (two token counts and the last update time) and each
//! per-packet method takes `(&mut self, &profile, now, len, ...)`. The `...Meter`
//! types pair a profile with one state for single-flow use.
//! Where a profile's buckets hold fewer than 2^32 token units each (nearly
//! every practical one: see [`compact`]), [`Compact<M>`](Compact) stores the
//! same state in 16 bytes and colors every packet exactly as `M` does, for
//! tables of many flows.
//!
//! Buckets are [`BucketProfile`](netcond_core::BucketProfile)s: tokens are counted
//! in units of `1/scale` byte chosen so that one clock tick adds a whole number of
//! units, so refilling is one multiply and testing a packet is one multiply, with
//! no rounding and no division. Over any interval a bucket hands out exactly
//! `size + rate x time` bytes: no drift, however long it runs (the `long_run`
//! tests push 10^9 packets). The RFCs add one whole token (byte) CIR times per
//! second; here tokens arrive continuously in those fine units, which differs
//! from the whole-byte model by less than one byte at any instant. Every per-packet method is total: any length
//! (including 0 and `u32::MAX`), any timestamp (a clock stepping backwards
//! elapses no time and creates no token), no panic, no overflow, no allocation.
//!
//! Where the sources disagree: RFC 4115's text says a packet is green when
//! `Tc - B > 0` and its figure 1 says `B <= Tc`. [`Rfc4115Profile::new`] follows
//! the figure (as DPDK does, and as RFC 2697/2698 do with `>= 0`);
//! [`Rfc4115Profile::with_ties`] with [`Rfc4115Ties::Text`] gives the text's rule.
//!
//! `reference` (feature `reference`) holds exact `u128` models written as plainly as the RFC text, and
//! `invariants` (feature `invariants`) the checks shared by the proptests and the fuzz targets.
//!
//! # Performance
//!
//! A profile decides once, when it is built, whether its constants keep every
//! intermediate of the packet path in range (a `u32::MAX`-byte packet's cost
//! below 2^63, a full bucket plus its longest useful refill below 2^64). Nearly
//! every configuration does: any clock up to 2^28 Hz, or a faster one whose
//! `scale` (`8 hz / gcd(rate bits, 8 hz)`) stays within 2^31, such as a 2.3 GHz
//! cycle counter with rates in whole kilobytes per second, with sizes and rates
//! far from a bucket's 2^62-unit limit. Those packets take the fast path: elapsed
//! time clamped once for both buckets, lengths not clamped, no saturating
//! arithmetic, and whether a packet fits a bucket read from the sign of
//! `tokens - cost`. The other configurations take the general path, out of line
//! (per-bucket clamps of time and length, saturating sums), with the same
//! results; the tests run both on the same streams and compare them packet by
//! packet.
//!
//! On both paths the color decision never becomes a conditional branch (colors
//! follow the traffic and would mispredict): the buckets are updated with masks
//! made from the signs (or borrows) of the tests, and the color is looked up in a
//! table indexed by them. The branches that remain predict well: a clock stepping
//! backwards leaves the fast path for an out-of-line step, and the clamp of a
//! refill to the bucket size is left to the compiler, which may branch on it:
//! whether a bucket is full changes far less often than colors do. The srTCM
//! computes C's overflow into E without a branch (a `min` and a subtraction):
//! with many flows, whether C overflows depends on a state just loaded from
//! memory, and the branch version measured 18 % slower per packet on 65,536
//! flows (5.1-5.3 against 4.1-4.4 ns, same run). A packet costs at most two multiplies per
//! bucket (refill and cost; the srTCM's buckets share both) and no division. See
//! `benches/benches/trtcm.rs`.
//!
//! `cargo run --release -p trtcm --example color_stream` colors 10 s of traffic
//! offered at 1.5 x PIR with all three markers and prints what each lets through
//! against CIR and PIR.
//!
//! # Example
//!
//! Color a stream with a trTCM and count the colors:
//!
//! ```
//! use netcond_core::{Color, Instant, Rate, TickRate};
//! use trtcm::{Counters, TrTcmConfig, TrTcmMeter};
//!
//! // CIR 1 MB/s, PIR 2 MB/s, CBS 3000 B, PBS 6000 B, nanosecond ticks.
//! let cfg = TrTcmConfig::new(
//!     Rate::from_bytes_per_sec(1_000_000),
//!     Rate::from_bytes_per_sec(2_000_000),
//!     3000,
//!     6000,
//! )
//! .with_tick(TickRate::NANOS);
//! let mut meter = TrTcmMeter::new(&cfg, Instant::ZERO).unwrap();
//! let mut counters = Counters::default();
//! // 1000-byte packets every 250 us from 0 to 1 s: 4 MB/s offered.
//! for i in 0..=4000u64 {
//!     let color = meter.color_blind(Instant::from_ticks(i * 250_000), 1000);
//!     counters.record(color, 1000);
//! }
//! // Over that second, green is CBS + CIR x 1 s within one packet, and green plus
//! // yellow is PBS + PIR x 1 s within one packet.
//! let green = counters.bytes(Color::Green);
//! let passed = green + counters.bytes(Color::Yellow);
//! assert!(green <= 3000 + 1_000_000 && green > 3000 + 1_000_000 - 1000);
//! assert!(passed <= 6000 + 2_000_000 && passed > 6000 + 2_000_000 - 1000);
//! assert_eq!(counters.total_packets(), 4001);
//! ```
//!
//! # Sources
//!
//! - J. Heinanen, R. Guerin, "A Single Rate Three Color Marker", RFC 2697,
//!   September 1999: [`SrTcm`].
//! - J. Heinanen, R. Guerin, "A Two Rate Three Color Marker", RFC 2698, September
//!   1999: [`TrTcm`].
//! - O. Aboul-Magd, S. Rabie, "A Differentiated Service Two-Rate, Three-Color Marker
//!   with Efficient Handling of in-Profile Traffic", RFC 4115, July 2005: [`Rfc4115`].
//! - A. Pinizzotto, "Test of a DiffServ Premium TCP stream varying the Committed
//!   Rate": the token bucket (TBs) policer in front of a premium buffer (PBs) on a
//!   2048 kbit/s PPP link, committed rates of 8 % to 19 % of the link, and the rule
//!   `PBs > TBs + one packet` for no buffer drop: [`PremiumPolicer`],
//!   [`PremiumPolicerProfile::pbs_exceeds_tbs_plus_packet`].
//! - B. Davie et al., "An Expedited Forwarding PHB (Per-Hop Behavior)", RFC 3246,
//!   March 2002: the EF behaviour the premium policer polices for.
//! - O. Bonaventure, S. De Cnodder, "A Rate Adaptive Shaper for Differentiated
//!   Services", RFC 2963, October 2000: its simulations (appendix A) meter TCP with a
//!   trTCM in front of RIO, which `netcond-sim` reproduces with `TrTcm`.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]

pub mod burst;
pub mod compact;
mod counters;
#[cfg(any(test, feature = "invariants"))]
pub mod invariants;
mod mutants;
pub mod policer;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod rfc2697;
mod rfc2698;
mod rfc4115;

pub use compact::{Compact, CompactError, CompactProfile, TwoBucket};
pub use counters::Counters;
pub use netcond_core::Color;
pub use policer::{
    PolicerCounters, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerError,
    PremiumPolicerMeter, PremiumPolicerProfile,
};
pub use rfc2697::{SrTcm, SrTcmConfig, SrTcmError, SrTcmMeter, SrTcmProfile};
pub use rfc2698::{TrTcm, TrTcmConfig, TrTcmError, TrTcmMeter, TrTcmProfile};
pub use rfc4115::{
    Rfc4115, Rfc4115Config, Rfc4115Error, Rfc4115Meter, Rfc4115Profile, Rfc4115Ties,
};

use netcond_core::branchless::fits;
use netcond_core::Instant;

/// The color from the masks of the two tests passed: `green` (a subset of
/// `not_red`) and `not_red`, looked up in a table so that no branch is needed.
#[inline(always)]
pub(crate) fn color_of(green: u64, not_red: u64) -> Color {
    // Index bit 1: not red; bit 0: green. Index 1 (green but red) cannot occur.
    const BY_TESTS: [Color; 4] = [Color::Red, Color::Red, Color::Yellow, Color::Green];
    BY_TESTS[((not_red & 2) | (green & 1)) as usize]
}

/// [`BucketProfile::new`](netcond_core::BucketProfile::new), plus one limit of
/// this crate: `size x 8 x tick_hz` must fit in 128 bits. That keeps the exact
/// reference models of [`reference`] (which count in units of `1/(8 tick_hz)`
/// byte, as plainly as the RFCs) total on every accepted configuration; it only
/// refuses clocks above about 2^60 Hz combined with buckets of exabytes.
pub(crate) fn bucket(
    rate: netcond_core::Rate,
    size_bytes: u64,
    tick: netcond_core::TickRate,
) -> Result<netcond_core::BucketProfile, netcond_core::BucketError> {
    if u128::from(size_bytes)
        .checked_mul(8 * u128::from(tick.hz()))
        .is_none()
    {
        return Err(netcond_core::BucketError::TooLarge);
    }
    netcond_core::BucketProfile::new(rate, size_bytes, tick)
}

/// A [`BucketProfile`](netcond_core::BucketProfile) with two more constants that
/// let the general packet path multiply without overflow checks (the fast path
/// needs only `fill_ticks`, through its profile's time clamp).
///
/// - `fill_ticks = ceil(fill / inc)`: after that many ticks the bucket (and, for
///   the srTCM's C, the E bucket its overflow feeds) is full whatever it held, so
///   elapsed time is clamped to it; `fill_ticks x inc < 2^64` (below
///   `fill + inc` when `inc <= fill < 2^63`, equal to `inc` otherwise).
/// - `max_len = size_bytes + 1`: a longer packet fits no bucket sharing this
///   unit, so lengths are clamped to it; `max_len x scale < 2^63`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct Bucket {
    pub(crate) b: netcond_core::BucketProfile,
    pub(crate) fill_ticks: u64,
    max_len: u64,
}

/// The part of a [`Bucket`] that only the general path reads, kept apart so
/// that a profile can hold its fast path's constants in one cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct Limits {
    pub(crate) fill_ticks: u64,
    max_len: u64,
}

impl Bucket {
    /// The general path's constants of this bucket.
    pub(crate) const fn limits(&self) -> Limits {
        Limits {
            fill_ticks: self.fill_ticks,
            max_len: self.max_len,
        }
    }

    /// The bucket of `b` and `limits` (the inverse of splitting a bucket into
    /// `b` and [`limits`](Self::limits)).
    #[inline(always)]
    pub(crate) const fn join(b: netcond_core::BucketProfile, limits: Limits) -> Bucket {
        Bucket {
            b,
            fill_ticks: limits.fill_ticks,
            max_len: limits.max_len,
        }
    }

    /// `fill`: the units of refill after which nothing changes any more (the
    /// bucket's capacity, or C's plus E's for the srTCM); `max_bytes`: the largest
    /// bucket, in bytes, that this bucket's costs are tested against.
    pub(crate) fn new(b: netcond_core::BucketProfile, fill: u64, max_bytes: u64) -> Bucket {
        let fill_ticks = if b.inc() == 0 {
            0
        } else {
            fill.div_ceil(b.inc())
        };
        Bucket {
            b,
            fill_ticks,
            max_len: max_bytes + 1,
        }
    }

    /// The refill of `dt` ticks in units, clamped to `fill_ticks`.
    #[inline(always)]
    pub(crate) fn gain(&self, dt: u64) -> u64 {
        dt.min(self.fill_ticks).wrapping_mul(self.b.inc())
    }

    /// The cost of a `len`-byte packet in units, exact for `len < max_len`.
    #[inline(always)]
    pub(crate) fn cost(&self, len: u32) -> u64 {
        u64::from(len)
            .min(self.max_len)
            .wrapping_mul(self.b.scale())
    }

    /// The capacity in units.
    #[inline(always)]
    pub(crate) const fn full(&self) -> u64 {
        self.b.full()
    }
}

/// One bucket at a packet's arrival.
#[derive(Clone, Copy)]
pub(crate) struct Probe {
    /// The token count after the refill: `min(tokens + gain, size)`.
    pub(crate) tokens: u64,
    /// What the refill could not fit (RFC 2697's overflow from C into E).
    pub(crate) over: u64,
    /// `!0` if `cost + strict <= self.tokens`, else `0`.
    pub(crate) fits: u64,
}

/// Refills a bucket holding `tokens` by `gain` units and tests a packet of
/// `cost` units against it: the values of
/// [`BucketProfile::refill_with_overflow`](netcond_core::BucketProfile::refill_with_overflow),
/// and the test `cost + strict <= tokens` as a mask.
///
/// The test is computed from a borrow, never as a branch: its outcome is the
/// packet's color and follows the traffic. The clamp to the bucket size is left
/// to the compiler, which may branch on it; whether a bucket is full changes far
/// less often than colors do, so that branch predicts well.
#[inline(always)]
pub(crate) fn probe(b: &Bucket, tokens: u64, gain: u64, cost: u64, strict: u64) -> Probe {
    let t = tokens.saturating_add(gain);
    let u = t.min(b.full());
    // cost < 2^63 (see `Bucket`), so adding strict (0 or 1) cannot overflow.
    let need = cost + strict;
    Probe {
        tokens: u,
        over: t - u,
        fits: fits(u, need),
    }
}

// The fast path.
//
// A profile checks once, in `u128`, whether its constants keep every
// intermediate of the packet path in range (`fast_costs` and `fast_refill`); if
// they do, packets take a fast path that clamps elapsed time once for both
// buckets, does not clamp lengths and never saturates. Why it is exact and gives
// the general path's results (`Bucket::gain`, `Bucket::cost`, `probe`), with
// `full < 2^62` (`BucketProfile::new`) and every token count `<= full`:
//
// - Time: `dt <= dt_max`, where `dt_max` is at least every bucket's
//   `fill_ticks = ceil(fill / inc)`. For `dt <= fill_ticks` both paths add
//   `dt x inc`; for longer, both add at least `fill_ticks x inc >= fill`, and the
//   bucket (and for the srTCM, E behind C) ends full either way. A zero rate
//   (`fill_ticks = 0`) adds nothing on either path.
// - Refill: `tokens + dt x inc <= full + dt_max x inc <= u64::MAX`, which
//   `fast_refill(b, dt_max, full)` checks; so neither the product nor the sum
//   overflows, and the general path's saturating add never saturates. For the
//   srTCM, what overflows C is at most the refill, so `Te + overflow <= EBS +
//   dt_max x inc`, which `fast_refill(e, dt_max, e.full())` checks (E's `inc` is
//   C's).
// - Cost: `len x scale + strict <= u32::MAX x scale + 1 < 2^63` (`fast_costs`).
//   The general path clamps `len` to one byte more than the largest bucket it
//   tests; a packet that long fits no bucket on either path, and a packet that
//   does not fit is never subtracted, so the clamp changes nothing.
// - Test: with `tokens < 2^62` and `need < 2^63`, `tokens - need` lies in
//   `(-2^63, 2^62)`: exact as an `i64`, negative exactly when the packet does not
//   fit (`margin`).
// - Update: `settle` returns `tokens` (keep) or `tokens - cost` (pay, only when
//   the margin is not negative), both exact.

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

/// The fast path's clock: `last.advance_to(now).min(dt_max)`, with the rare
/// case of a clock stepping backwards moved out of line so that the common case
/// is one subtraction and a well-predicted branch on its sign.
#[inline(always)]
pub(crate) fn forward(last: &mut Instant, now: Instant, dt_max: u64) -> u64 {
    let d = now.ticks().wrapping_sub(last.ticks());
    if d > i64::MAX as u64 {
        let dt;
        (*last, dt) = backwards(*last, now, dt_max);
        dt
    } else {
        *last = now;
        d.min(dt_max)
    }
}

/// [`forward`]'s rare case, by value so that the caller's state can stay in
/// registers.
#[cold]
#[inline(never)]
fn backwards(mut last: Instant, now: Instant, dt_max: u64) -> (Instant, u64) {
    let dt = last.advance_to(now).min(dt_max);
    (last, dt)
}

/// The whole refill on the fast path: `min(tokens + dt x inc, size)`. No
/// overflow when [`fast_refill`] holds for `dt` and `tokens` (plain operators:
/// the tests, built with overflow checks, check that too).
#[inline(always)]
pub(crate) fn fill(b: &netcond_core::BucketProfile, tokens: u64, dt: u64) -> u64 {
    (tokens + dt * b.inc()).min(b.full())
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
/// `red` negative if it is red (and then `not_green` is too). A table lookup
/// indexed by the two sign bits, so that it never becomes a branch (a `match`
/// on the same index, `Color::from_index`, compiles to compares and jumps:
/// 12 instructions per packet more on the trTCM bench).
#[inline(always)]
pub(crate) fn color_of_signs(not_green: i64, red: i64) -> Color {
    const BY_SIGNS: [Color; 4] = [Color::Green, Color::Yellow, Color::Red, Color::Red];
    BY_SIGNS[((not_green as u64 >> 63) + (red as u64 >> 63)) as usize]
}

// The per-flow states stay at 24 bytes (two token counts and a timestamp).
const _: () = assert!(core::mem::size_of::<SrTcm>() == 24);
const _: () = assert!(core::mem::size_of::<TrTcm>() == 24);
const _: () = assert!(core::mem::size_of::<Rfc4115>() == 24);
const _: () = assert!(core::mem::size_of::<PremiumPolicer>() == 24);

/// What the three markers have in common, for code generic over the marker (a
/// simulator, a benchmark). Each method is the marker's inherent method of the
/// same name.
pub trait ThreeColorMarker: Copy {
    /// The marker's shared constants.
    type Profile: Copy + core::fmt::Debug + PartialEq + Eq + core::hash::Hash;

    /// A marker with full buckets at `now`.
    fn start(profile: &Self::Profile, now: Instant) -> Self;

    /// Colors a packet, color-blind.
    fn color_blind(&mut self, profile: &Self::Profile, now: Instant, len: u32) -> Color;

    /// Colors a packet pre-colored `input`, color-aware.
    fn color_aware(
        &mut self,
        profile: &Self::Profile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color;

    /// The committed bucket's token count at `now`, without changing anything.
    fn tc_at(&self, profile: &Self::Profile, now: Instant) -> u64;
}

macro_rules! impl_marker {
    ($state:ty, $profile:ty) => {
        impl ThreeColorMarker for $state {
            type Profile = $profile;

            #[inline]
            fn start(profile: &$profile, now: Instant) -> Self {
                <$state>::new(profile, now)
            }

            #[inline]
            fn color_blind(&mut self, profile: &$profile, now: Instant, len: u32) -> Color {
                <$state>::color_blind(self, profile, now, len)
            }

            #[inline]
            fn color_aware(
                &mut self,
                profile: &$profile,
                now: Instant,
                len: u32,
                input: Color,
            ) -> Color {
                <$state>::color_aware(self, profile, now, len, input)
            }

            #[inline]
            fn tc_at(&self, profile: &$profile, now: Instant) -> u64 {
                <$state>::tc_at(self, profile, now)
            }
        }
    };
}

/// A marker's profile paired with one flow's state, for single-instance users:
/// [`SrTcmMeter`], [`TrTcmMeter`] and [`Rfc4115Meter`] (each also has a `new`
/// that validates a configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Meter<M: ThreeColorMarker> {
    /// The constants.
    pub profile: M::Profile,
    /// The flow's buckets.
    pub state: M,
}

impl<M: ThreeColorMarker> Meter<M> {
    /// A meter on `profile`, buckets full at `now`.
    #[must_use]
    pub fn from_profile(profile: M::Profile, now: Instant) -> Meter<M> {
        Meter {
            state: M::start(&profile, now),
            profile,
        }
    }

    /// Colors a packet, color-blind.
    #[inline]
    pub fn color_blind(&mut self, now: Instant, len: u32) -> Color {
        self.state.color_blind(&self.profile, now, len)
    }

    /// Colors a packet pre-colored `input`, color-aware.
    #[inline]
    pub fn color_aware(&mut self, now: Instant, len: u32, input: Color) -> Color {
        self.state.color_aware(&self.profile, now, len, input)
    }
}

/// DPDK's meter test facts (CIR 46e6 B/s, PIR/EIR 69e6 B/s, CBS 2048, PBS/EBS
/// 4096, all buckets full, one packet), the same for all three markers:
/// color-blind 2047/2049/4095/4097 bytes give G/Y/Y/R; color-aware with input
/// green G/Y/Y/R, yellow Y/Y/Y/R, red R/R/R/R.
#[cfg(test)]
pub(crate) fn dpdk_facts<M: ThreeColorMarker>(p: &M::Profile) {
    use Color::{Green as G, Red as R, Yellow as Y};
    let t = Instant::from_ticks(1000);
    let lens = [2047, 2049, 4095, 4097];
    let blind: [Color; 4] = lens.map(|l| M::start(p, t).color_blind(p, t, l));
    assert_eq!(blind, [G, Y, Y, R], "color-blind");
    for (input, want) in [(G, [G, Y, Y, R]), (Y, [Y, Y, Y, R]), (R, [R, R, R, R])] {
        let got: [Color; 4] = lens.map(|l| M::start(p, t).color_aware(p, t, l, input));
        assert_eq!(got, want, "color-aware, input {input}");
    }
}

impl_marker!(SrTcm, SrTcmProfile);
impl_marker!(TrTcm, TrTcmProfile);
impl_marker!(Rfc4115, Rfc4115Profile);

/// Test support for the fast path: random streams, and a run of a profile on the
/// fast path against the same profile forced onto the general path.
#[cfg(test)]
pub(crate) mod both_paths {
    use super::*;
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

    #[test]
    fn forward_clock() {
        let mut last = Instant::from_ticks(100);
        assert_eq!(forward(&mut last, Instant::from_ticks(150), 1000), 50);
        assert_eq!(last, Instant::from_ticks(150));
        assert_eq!(forward(&mut last, Instant::from_ticks(10_150), 1000), 1000);
        assert_eq!(last, Instant::from_ticks(10_150));
        // Backwards: nothing elapses and `last` stays, as with `advance_to`.
        assert_eq!(forward(&mut last, Instant::from_ticks(10_000), 1000), 0);
        assert_eq!(last, Instant::from_ticks(10_150));
        let back = Instant::from_ticks(10_150).wrapping_add(1 << 63);
        assert_eq!(forward(&mut last, back, 1000), 0);
        assert_eq!(last, Instant::from_ticks(10_150));
        let ahead = Instant::from_ticks(10_150).wrapping_add(i64::MAX as u64);
        assert_eq!(forward(&mut last, ahead, 1000), 1000);
        assert_eq!(last, ahead);
    }
}
