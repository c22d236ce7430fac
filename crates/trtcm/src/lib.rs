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
//! Every marker and the policer also meter in packets ([`Mode::Packets`], as
//! DPDK's `packet_mode` and tc police's `pkt_rate` / `pkt_burst`): rates in
//! packets per second, bursts in packets, every packet one token whatever its
//! length. A packet-mode profile is built with the same exact arithmetic as a
//! byte-mode one, one packet in the place of one byte, so the exactness
//! statement below holds in packets; the `..._packet` methods
//! ([`SrTcm::color_blind_packet`], [`PremiumPolicer::offer_packet`], ...) take
//! the fast path with a one-unit length, and the markers' length-taking methods
//! ignore the length they are given on a packet-mode profile (the policer's
//! `offer` does not: it charges `len` units, see [`PremiumPolicer::offer`]).
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
//! per-packet method takes `(&mut self, &profile, now, len, ...)`. Every state
//! starts with [`State::start`] (its `new(&profile, now)`); the `...Meter` types
//! are [`WithProfile`]s, the profile paired with one state for single-flow use,
//! colored through [`ThreeColorPair`] (and the policer's through [`PolicerPair`]).
//! Where a profile's buckets hold fewer than 2^32 token units each (nearly
//! every practical one: see [`compact`]), [`Compact<M>`](Compact) stores the
//! same state in 16 bytes and colors every packet exactly as `M` does, for
//! tables of many flows.
//!
//! Buckets are [`BucketProfile`](netcond_core::BucketProfile)s: tokens are counted
//! in units of `1/scale` byte chosen so that one clock tick adds a whole number of
//! units, so refilling is one multiply and testing a packet is one multiply, with
//! no rounding and no division. Over any interval whose timestamps are each less
//! than 2^63 ticks after the one before, a bucket hands out at most
//! `size + rate x time` bytes, and exactly that, to within one packet, to a stream
//! that keeps it busy: no drift, however long it runs (the `long_run`
//! tests push 10^9 packets). The RFCs add one whole token (byte) CIR times per
//! second; here tokens arrive continuously in those fine units, which differs
//! from the whole-byte model by less than one byte at any instant. Every per-packet method is total: any length
//! (including 0 and `u32::MAX`), any timestamp (a clock stepping backwards
//! elapses no time and creates no token), no panic, no overflow, no allocation.
//! Time is serial ([`Instant`]): a step of 2^63 ticks or
//! more reads as a step backwards, so no time passes, and none until the clock
//! reads less than 2^63 ticks after the last instant the state has seen.
//!
//! Where the sources disagree: RFC 4115's text says a packet is green when
//! `Tc - B > 0` and its figure 1 says `B <= Tc`. [`Rfc4115Profile::new`] follows
//! the figure (as DPDK does, and as RFC 2697/2698 do with `>= 0`);
//! [`Rfc4115Profile::with_ties`] with [`Rfc4115Ties::Text`] gives the text's rule.
//!
//! # Profile updates
//!
//! `move_to(&mut self, &old, &new, now)` moves a flow's state from one profile
//! to another ([`SrTcm::move_to`], [`TrTcm::move_to`], [`Rfc4115::move_to`],
//! [`PremiumPolicer::move_to`], [`Compact::move_to`]; DPDK's
//! `rte_mtr_meter_profile_update` for one flow). The rule: the buckets are
//! refilled to `now` under `old` (the clock is kept: an instant older than the
//! last update refills nothing); each token count, `t` units of
//! `1/scale_old` byte, becomes `floor(t x scale_new / scale_old)` units of
//! `1/scale_new` byte (exact in bytes, dropping at most a fraction of one new
//! unit, so never more than the flow had), capped at the new bucket's size;
//! the policer's buffer occupancy is kept. A change between byte and packet
//! mode has no exchange rate, so the buckets then start full under `new`. It
//! is O(1) and allocates nothing, but divides: for configuration changes, not
//! for every packet. The `reference` models change rates the same way
//! (`SrTcmRef::move_to`, ...), and `tests/profile_update.rs` compares the two
//! packet by packet across updates.
//!
//! `reference` (feature `reference`) holds exact `u128` models written as plainly as the RFC text, and
//! `invariants` (feature `invariants`) the checks shared by the proptests and the fuzz targets.
//!
//! # Configuration rules
//!
//! A profile refuses a configuration with one error variant per rule:
//!
//! | configuration | variant | rule |
//! |---|---|---|
//! | [`SrTcmConfig`] | [`SrTcmError::ZeroCir`] | CIR > 0 (RFC 2697 section 2; a zero rate never refills) |
//! | | [`SrTcmError::ZeroBursts`] | CBS > 0 or EBS > 0 (RFC 2697 section 2) |
//! | [`TrTcmConfig`] | [`TrTcmError::ZeroCir`], [`ZeroPir`](TrTcmError::ZeroPir) | CIR > 0, PIR > 0 (RFC 2698 section 2) |
//! | | [`TrTcmError::ZeroCbs`], [`ZeroPbs`](TrTcmError::ZeroPbs) | CBS > 0, PBS > 0 (RFC 2698 section 2) |
//! | | [`TrTcmError::PirBelowCir`] | PIR >= CIR (RFC 2698 section 2) |
//! | [`Rfc4115Config`] | [`Rfc4115Error::ZeroRates`] | CIR > 0 or EIR > 0 (RFC 4115 section 2; otherwise every packet is red) |
//! | | [`Rfc4115Error::ZeroBursts`] | CBS > 0 or EBS > 0 (RFC 4115 section 2) |
//! | [`PremiumPolicerConfig`] | [`PremiumPolicerError::ZeroRate`], [`ZeroTbs`](PremiumPolicerError::ZeroTbs), [`ZeroMaxPacket`](PremiumPolicerError::ZeroMaxPacket) | committed rate, TBs and the largest packet > 0 |
//! | | [`PremiumPolicerError::TbsBelowMaxPacket`], [`PbsBelowMaxPacket`](PremiumPolicerError::PbsBelowMaxPacket) | TBs and PBs hold the largest packet |
//! | all four | `...Error::TooLarge` | each bucket below 2^62 token units (`bytes x 8 x tick_hz / gcd(rate bits, 8 x tick_hz)`) |
//! | [`CompactProfile`] | [`CompactError::TooLarge`] | each bucket below 2^32 token units (for the 16-byte state) |
//!
//! A zero tick rate cannot be built ([`TickRate::from_hz`](netcond_core::TickRate::from_hz)
//! returns `None`). Accepted on purpose: one of srTCM's or RFC 4115's bursts zero, or
//! one of RFC 4115's rates zero (that bucket then never holds a token), CBS above PBS,
//! and buckets smaller than the largest packet (RFC 2697 and 2698 only recommend
//! them at least that large; a packet longer than a bucket never takes from it).
//! Tests: `config_rules` in `rfc2697.rs`, `rfc2698.rs`, `rfc4115.rs` and `policer.rs`.
//!
//! # Performance
//!
//! A profile decides once, when it is built, whether its constants keep every
//! intermediate of the packet path in range (a `u32::MAX`-byte packet's cost
//! below 2^63, a full bucket plus its longest useful refill below 2^64). Nearly
//! every configuration does: any clock up to 2^28 Hz, or a faster one whose
//! `scale` (`8 hz / gcd(rate bits, 8 hz)`) stays within 2^31, such as a 2.3 GHz
//! cycle counter with rates in whole kilobytes per second, with sizes and rates
//! far from a bucket's 2^62-unit limit. Those packets take the fast path: one
//! test of the elapsed time for both buckets (for the srTCM and the trTCM a
//! flow idle for at least the longer fill time finds both full, with no
//! arithmetic, which is how most packets of a large flow table find them),
//! lengths not clamped, no saturating
//! arithmetic, and whether a packet fits a bucket read from the sign of
//! `tokens - cost`. The other configurations take the general path, out of line
//! (per-bucket clamps of time and length, saturating sums), with the same
//! results; the tests run both on the same streams and compare them packet by
//! packet. `src/fast_path.rs` holds the fast path and the proof that it gives
//! the general path's results.
//!
//! How the fast path decides a color was measured, not assumed
//! (docs/performance.md, "Branching on the color"). The srTCM and the RFC 4115
//! marker branch on it as their RFCs state the rule, as rte_meter does: a
//! packet that C accepts returns green before E is looked at, and the srTCM
//! computes C's overflow into E only when there is one. That takes a fifth to a
//! third fewer instructions than computing every test and choosing with masks;
//! for the srTCM it measured as fast or faster (by up to 14 %) wherever states
//! come from memory (65,536 and a million flows), whether the colors were
//! predictable or a coin flip, while on one flow whose colors are a coin flip
//! the mispredicted branches make it slower than the mask form, and still
//! faster than rte_meter. The trTCM keeps the mask form: it decides among three
//! outcomes on two tests of two independent buckets, and branching measured
//! slower on the benches' one-flow stream. There the buckets are updated with
//! masks made from the signs of the tests, and the color chosen by conditional
//! moves. On every marker a clock stepping backwards is a cold branch, and the
//! clamp of a refill to the bucket size a conditional move. The general path,
//! out of line, keeps the mask form. A packet costs at most two multiplies per
//! bucket (refill and cost; the srTCM's buckets share both) and no division.
//! See `benches/benches/trtcm.rs`.
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
//! use trtcm::{Counters, ThreeColorPair, TrTcmConfig};
//!
//! // CIR 1 MB/s, PIR 2 MB/s, CBS 3000 B, PBS 6000 B, nanosecond ticks.
//! let cfg = TrTcmConfig::new(
//!     Rate::from_bytes_per_sec(1_000_000),
//!     Rate::from_bytes_per_sec(2_000_000),
//!     3000,
//!     6000,
//! )
//! .with_tick(TickRate::NANOS);
//! let mut meter = cfg.meter(Instant::ZERO).unwrap();
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

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

#[macro_use]
mod two_bucket;
pub mod burst;
pub mod compact;
mod counters;
mod fast_path;
#[cfg(any(test, feature = "invariants"))]
pub mod invariants;
mod mode;
pub mod policer;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod rfc2697;
mod rfc2698;
mod rfc4115;
#[cfg(test)]
mod tests;

pub use compact::{Compact, CompactError, CompactProfile, TwoBucket};
pub use counters::Counters;
pub use mode::Mode;
pub use netcond_core::{Color, ColorTable};
pub use policer::{
    PolicerCounters, PolicerPair, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig,
    PremiumPolicerError, PremiumPolicerMeter, PremiumPolicerProfile,
};
pub use rfc2697::{SrTcm, SrTcmConfig, SrTcmError, SrTcmMeter, SrTcmProfile};
pub use rfc2698::{TrTcm, TrTcmConfig, TrTcmError, TrTcmMeter, TrTcmProfile};
pub use rfc4115::{
    Rfc4115, Rfc4115Config, Rfc4115Error, Rfc4115Meter, Rfc4115Profile, Rfc4115Ties,
};

use netcond_core::branchless::fits;
use netcond_core::Instant;
pub use netcond_core::{State, WithProfile};

#[cfg(test)]
pub(crate) use fast_path::both_paths;

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
/// needs only `fill_ticks`, through its profile's `dt_max`).
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

/// Tokens counted in `from`'s units (`1/from.scale()` byte) carried into
/// `to`'s: exact in bytes, rounded down to a whole unit of `to` (so never more
/// than they were), capped at `to`'s capacity. Divides: for profile updates.
pub(crate) fn carry(
    tokens: u64,
    from: &netcond_core::BucketProfile,
    to: &netcond_core::BucketProfile,
) -> u64 {
    // tokens < 2^64 and scale < 2^62: the product fits in a u128.
    let t = u128::from(tokens) * u128::from(to.scale()) / u128::from(from.scale());
    // Capped at `to.full() < 2^62`: fits in a u64.
    t.min(u128::from(to.full())) as u64
}

/// The end of every marker's `move_to`: the two counts `tokens` (C's and the
/// second bucket's, refilled to now under the old profile) carried from the
/// buckets `from` into `to` ([`carry`]) when the mode stays, or `to`'s two
/// full buckets when it changes (bytes and packets have no exchange rate);
/// `packets` is whether each profile is in packet mode, old then new.
pub(crate) fn carry_pair(
    tokens: [u64; 2],
    from: [&netcond_core::BucketProfile; 2],
    to: [&netcond_core::BucketProfile; 2],
    packets: [bool; 2],
) -> [u64; 2] {
    if packets[0] == packets[1] {
        [
            carry(tokens[0], from[0], to[0]),
            carry(tokens[1], from[1], to[1]),
        ]
    } else {
        [to[0].full(), to[1].full()]
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

// The per-flow states stay at 24 bytes (two token counts and a timestamp).
const _: () = assert!(core::mem::size_of::<SrTcm>() == 24);
const _: () = assert!(core::mem::size_of::<TrTcm>() == 24);
const _: () = assert!(core::mem::size_of::<Rfc4115>() == 24);
const _: () = assert!(core::mem::size_of::<PremiumPolicer>() == 24);

/// What the three markers have in common, for code generic over the marker (a
/// simulator, a benchmark). Each method is the marker's inherent method of the
/// same name.
///
/// A marker starts as every state does, with [`State::start`] (its supertrait;
/// the marker's `new`: full buckets at `now`), and its profile is
/// [`State::Profile`].
pub trait ThreeColorMarker:
    Copy + State<Profile: Copy + core::fmt::Debug + PartialEq + Eq + core::hash::Hash>
{
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

    /// [`color_blind`](Self::color_blind), then the packet recorded in `counters`.
    #[inline]
    fn color_blind_counted(
        &mut self,
        profile: &Self::Profile,
        now: Instant,
        len: u32,
        counters: &mut Counters,
    ) -> Color {
        let color = self.color_blind(profile, now, len);
        counters.record(color, len);
        color
    }

    /// [`color_aware`](Self::color_aware), then the packet recorded in `counters`.
    #[inline]
    fn color_aware_counted(
        &mut self,
        profile: &Self::Profile,
        now: Instant,
        len: u32,
        input: Color,
        counters: &mut Counters,
    ) -> Color {
        let color = self.color_aware(profile, now, len, input);
        counters.record(color, len);
        color
    }

    /// Moves the state from profile `old` to profile `new` at `now`: the
    /// marker's inherent `move_to` (tokens carried over exactly in bytes,
    /// rounded down to the new unit, capped at the new sizes; the clock kept).
    /// The default starts afresh on `new` at `now`, for markers without one.
    #[inline]
    fn move_to(&mut self, old: &Self::Profile, new: &Self::Profile, now: Instant) {
        let _ = old;
        *self = Self::start(new, now);
    }

    /// Colors one packet, color-blind, charging one unit (for packet-mode
    /// profiles, [`Mode::Packets`]).
    #[inline]
    fn color_blind_packet(&mut self, profile: &Self::Profile, now: Instant) -> Color {
        self.color_blind(profile, now, 1)
    }

    /// Colors one packet pre-colored `input`, color-aware, charging one unit.
    #[inline]
    fn color_aware_packet(&mut self, profile: &Self::Profile, now: Instant, input: Color) -> Color {
        self.color_aware(profile, now, 1, input)
    }
}

macro_rules! impl_marker {
    ($state:ty, $profile:ty) => {
        netcond_core::impl_state!($state, $profile);

        impl ThreeColorMarker for $state {
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

            #[inline]
            fn color_blind_packet(&mut self, profile: &$profile, now: Instant) -> Color {
                <$state>::color_blind_packet(self, profile, now)
            }

            #[inline]
            fn move_to(&mut self, old: &$profile, new: &$profile, now: Instant) {
                <$state>::move_to(self, old, new, now)
            }

            #[inline]
            fn color_aware_packet(
                &mut self,
                profile: &$profile,
                now: Instant,
                input: Color,
            ) -> Color {
                <$state>::color_aware_packet(self, profile, now, input)
            }
        }
    };
}

/// A marker's profile paired with one flow's state, for single-instance users:
/// [`SrTcmMeter`], [`TrTcmMeter`] and [`Rfc4115Meter`] are
/// [`WithProfile`]s of the markers, colored with [`ThreeColorPair`]'s methods
/// (each configuration's `meter(now)` validates it and starts one).
pub type Meter<M> = WithProfile<M>;

/// The per-packet methods of a marker paired with its profile
/// ([`WithProfile`], [`Meter`]): the marker's methods of the same name, given
/// the pair's profile.
pub trait ThreeColorPair {
    /// Colors a packet, color-blind.
    fn color_blind(&mut self, now: Instant, len: u32) -> Color;

    /// Colors a packet pre-colored `input`, color-aware.
    fn color_aware(&mut self, now: Instant, len: u32, input: Color) -> Color;
}

impl<M: ThreeColorMarker> ThreeColorPair for WithProfile<M> {
    #[inline]
    fn color_blind(&mut self, now: Instant, len: u32) -> Color {
        self.state.color_blind(&self.profile, now, len)
    }

    #[inline]
    fn color_aware(&mut self, now: Instant, len: u32, input: Color) -> Color {
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

/// The `..._counted` methods of a marker: each colors as the plain method of
/// its name does, then records the packet (its color and the `len` passed) in
/// a caller's [`Counters`]. Nothing is counted by the plain methods.
macro_rules! impl_counted {
    ($state:ty, $profile:ty) => {
        impl $state {
            /// [`color_blind`](Self::color_blind), then the packet recorded in
            /// `counters` (its color, one packet and `len` bytes).
            #[inline]
            pub fn color_blind_counted(
                &mut self,
                profile: &$profile,
                now: Instant,
                len: u32,
                counters: &mut Counters,
            ) -> Color {
                let color = self.color_blind(profile, now, len);
                counters.record(color, len);
                color
            }

            /// [`color_aware`](Self::color_aware), then the packet recorded in
            /// `counters`.
            #[inline]
            pub fn color_aware_counted(
                &mut self,
                profile: &$profile,
                now: Instant,
                len: u32,
                input: Color,
                counters: &mut Counters,
            ) -> Color {
                let color = self.color_aware(profile, now, len, input);
                counters.record(color, len);
                color
            }

            /// [`color_blind_packet`](Self::color_blind_packet) (packet mode's
            /// fast path), then the packet recorded in `counters` with its
            /// length `len` in bytes.
            #[inline]
            pub fn color_blind_packet_counted(
                &mut self,
                profile: &$profile,
                now: Instant,
                len: u32,
                counters: &mut Counters,
            ) -> Color {
                let color = self.color_blind_packet(profile, now);
                counters.record(color, len);
                color
            }

            /// [`color_aware_packet`](Self::color_aware_packet), then the packet
            /// recorded in `counters` with its length `len` in bytes.
            #[inline]
            pub fn color_aware_packet_counted(
                &mut self,
                profile: &$profile,
                now: Instant,
                len: u32,
                input: Color,
                counters: &mut Counters,
            ) -> Color {
                let color = self.color_aware_packet(profile, now, input);
                counters.record(color, len);
                color
            }
        }
    };
}

impl_counted!(SrTcm, SrTcmProfile);
impl_counted!(TrTcm, TrTcmProfile);
impl_counted!(Rfc4115, Rfc4115Profile);

impl_marker!(SrTcm, SrTcmProfile);
impl_marker!(TrTcm, TrTcmProfile);
impl_marker!(Rfc4115, Rfc4115Profile);
