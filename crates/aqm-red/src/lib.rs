//! Active queue management: RED, ECN marking, WRED/RIO with three colors,
//! Adaptive RED and AECN, in fixed point.
//!
//! # The algorithm
//!
//! RED (Floyd and Jacobson 1993, "FJ93"; RFC 2309 section 3, RFC 7567) keeps an
//! exponentially weighted average of the queue length,
//! `avg = (1 - w_q) avg + w_q q` at each arrival, and after an idle period
//! `avg = (1 - w_q)^m avg` with `m` the number of typical packets that could have
//! been sent. Below `min_th` nothing is dropped; between `min_th` and `max_th`
//! the base probability `p_b = max_p (avg - min_th) / (max_th - min_th)` is
//! spread over the packets since the last drop, `p_a = p_b / (1 - count p_b)`, so
//! that drops come at roughly even gaps; at or above `max_th` every packet is
//! dropped, or with *gentle* RED `p_b` rises on from `max_p` to 1 at `2 max_th`.
//! With ECN (RFC 3168 sections 5 and 7) an ECN-capable packet is marked CE where
//! RED would drop it for congestion, except above a configurable hard threshold.
//!
//! The crate implements:
//!
//! - [`Red`] / [`RedProfile`]: RED in packets or bytes, byte mode, gentle mode,
//!   ECN, seven [`Spreading`] variants (FJ93's with one draw per drop, FJ93's
//!   analysis and pseudo-code with one draw per packet, DPDK's
//!   `p_b / (2 - count p_b)` with one draw per packet or per drop, ns-3's
//!   `RedQueueDisc` with `Wait=true`, none). The per-flow state is 16 bytes.
//! - [`Rio`] / [`RioProfile`]: three drop precedences (RFC 2597 section 2) with
//!   per-color `min_th`/`max_th`/`max_p`, in RIO-C, RIO-D and WRED modes, and
//!   RFC 2963 appendix A.1's setting as [`RioConfig::rfc2963`].
//! - [`AdaptiveRed`] / [`AdaptiveRedProfile`]: Floyd, Gummadi and Shenker's
//!   (2001) periodic adaptation of `max_p` toward a target band of the
//!   average, `max_p` kept per queue.
//! - [`AecnQueue`] / [`AecnProfile`]: the AECN slides' Adaptive ECN, with per-class
//!   `max_p` and mark-front over a fixed-capacity descriptor FIFO.
//!
//! Every per-packet path uses integers and fixed point only, no division, and is
//! total: any queue length, any packet length, any timestamp (a clock that steps
//! back counts as no time elapsed). Randomness comes from any
//! [`RandomSource`]: the seedable
//! [`SplitMix64`](netcond_core::SplitMix64), a hardware generator, or a value the
//! caller supplies ([`Supplied`]). The same seed gives the same decisions.
//!
//! # Numbers, and what they guarantee
//!
//! - The average is `avg * 2^F` in a `u32`, `F = leading_zeros(limit)` (26 for a
//!   50-packet buffer). Each EWMA step rounds away from zero, so a constant queue
//!   is reached *exactly*, and the average never differs from the real-valued
//!   EWMA (with the same, exactly represented `w_q`) by more than `2^-F / w_q`.
//! - Idle decay uses a table of `(1 - w_q)^(2^k / s)` built with integer series
//!   (no floating point) when the profile is built, and at most 64
//!   multiplications per idle period; `m = idle
//!   ticks / s` is taken as a real number (no rounding). Relative error below
//!   2^-40 plus half a unit.
//! - `p_b` is at most the exact value and at most 2^-31 below it. The default
//!   spreading, [`Spreading::Accumulated`], draws one uniform `U` per drop and
//!   drops the packet that brings the sum of `p_b` since the last drop to `U`:
//!   FJ93's `p_a = p_b / (1 - count p_b)` with `count p_b` read as that sum.
//!   Per packet that is a subtraction and a comparison. The per-packet-draw
//!   variants test `u < p_b / (K - count p_b)` exactly, as
//!   `K u < p_b (1 + count u)` in 128-bit integers.
//! - The long-run drop fraction: with FJ93's spreading (the default,
//!   [`Spreading::Accumulated`], and [`Spreading::Uniform`]) and a constant
//!   `p_b`, the gap between drops is uniform on `1..=1/p_b` and the drop
//!   fraction is `2 p_b / (1 + p_b)`, about twice `p_b`, when `1/p_b` is whole
//!   (the general formula is in [`Spreading`]). Linux's `red.h` draws one
//!   uniform per drop and gets the same distribution; DPDK's `rte_red` uses
//!   `p_b / (2 - count p_b)` ([`Spreading::Dpdk`]), which halves it to about
//!   `p_b`; [`Spreading::AccumulatedDpdk`] has DPDK's law with one draw per
//!   drop (the sum of `p_b / 2` since the drop against `U`), at the cost of
//!   the default; ns-2 increments `count` before using it
//!   ([`Spreading::UniformCountFirst`], `2 p_b`); ns-3's `RedQueueDisc`, with
//!   its default `Wait=true`, does not drop while `count p_b < 1` and uses
//!   `p_b / (2 - count p_b)` after ([`Spreading::Wait`]: gaps uniform on
//!   `1/p_b..=2/p_b - 1`, about `2 p_b / 3`).
//!
//! # Time
//!
//! [`Red::new`], [`Rio::new`], [`AecnQueue::new`], [`Aecn::new`] and
//! [`AdaptiveRed::new`] take the instant at which the queue's time-keeping (the
//! idle period, and Adaptive RED's interval) starts, as the meters'
//! constructors do: there is no constructor that assumes tick 0. Time is serial
//! ([`Instant`](netcond_core::Instant)): a step of 2^63 ticks or more reads as
//! a step backwards, so no idle time passes, and none until the clock reads
//! less than 2^63 ticks after the last instant the state has seen. A queue
//! started at the clock's current reading decays its average on any clock,
//! including one 2^63 ticks or more past zero.
//!
//! # Configuration rules
//!
//! A profile refuses a configuration with one [`RedError`] variant per rule:
//! `WeightOutOfRange` (0 < w_q <= 1, FJ93 section 4), `ZeroLimit` (a buffer of at
//! least 1), `ZeroTransmissionTime` (FJ93's `s` at least one tick),
//! `ZeroMaxPacketSize` (byte mode's M at least 1), `MaxPOutOfRange` (every max_p in
//! [0, 1]), `ThresholdOrder` (min_th < max_th), `ThresholdAboveLimit` (max_th at most
//! the buffer, RFC 2309 section 3), `PrecedenceOrder` (RIO/WRED: green's p_b <=
//! yellow's <= red's at every average, RFC 2597 section 2), `EcnDropWithoutEcn`
//! (`ecn_drop_th` only with ECN on), `EcnDropBelowMinTh` (`ecn_drop_th` >= min_th:
//! below it every ECN-capable packet RED picks would be dropped), `EcnDropAboveLimit`
//! (`ecn_drop_th` at most the buffer), AECN's `ZeroBeta` and `BetaBelowOne` (beta >=
//! 1: fragile flows' max_p is base_max_p / beta), `ZeroAlpha` and `AlphaBelowOne`
//! (alpha >= 1: robust flows' max_p is alpha base_max_p, at least base_max_p),
//! and Adaptive RED's `ZeroInterval` (an interval of at least one tick). Accepted on purpose: max_p = 0, gentle with 2 max_th above the
//! buffer, Adaptive RED starting outside [0.01, 0.5], a huge AECN alpha (max_p
//! capped at 1).
//!
//! # Example
//!
//! ```
//! use aqm_red::{Decision, Ecn, Packet, Red, RedConfig, RedProfile};
//! use netcond_core::{Instant, SplitMix64};
//!
//! // the AECN slides' router: w_q 0.001, min_th 10, max_th 30, buffer 50 packets,
//! // max_p 0.5, with ECN marking.
//! let mut cfg = RedConfig::packets(10, 30, RedConfig::prob(0.5), RedConfig::prob(0.001), 50);
//! cfg.queue.ecn = true;
//! cfg.queue.ecn_drop_th = Some(30); // RFC 3168 section 7: drop above max_th
//! let profile = RedProfile::new(&cfg).unwrap();
//!
//! let mut red = Red::new(&profile, Instant::ZERO);
//! let mut rng = SplitMix64::new(1);
//! let mut marks = 0;
//! for i in 0..100_000u64 {
//!     let now = Instant::from_ticks(i * 1_000);
//!     // A standing queue of 20 packets.
//!     match red.on_arrival(&profile, now, 20, Packet::new(1500, Ecn::Ect0), &mut rng) {
//!         Decision::Mark => marks += 1,
//!         d => assert_eq!(d, Decision::Enqueue),
//!     }
//! }
//! // avg converges to 20: p_b = 0.25, and FJ93's spreading marks 2 p_b / (1 + p_b) = 40 %.
//! assert_eq!(red.avg(&profile), 20);
//! assert!((39_000..41_000).contains(&marks));
//! ```
//!
//! # Sources
//!
//! - Sally Floyd and Van Jacobson, "Random Early Detection Gateways for
//!   Congestion Avoidance", IEEE/ACM Transactions on Networking 1(4),
//!   pp. 397-413, August 1993 ("FJ93"): the average, the curve, the spreading
//!   of drops (section 7), byte mode and the idle-time decay (section 4).
//! - B. Braden et al., "Recommendations on Queue Management and Congestion
//!   Avoidance in the Internet", RFC 2309, April 1998 (section 3: RED), and
//!   F. Baker and G. Fairhurst (eds.), "IETF Recommendations Regarding Active
//!   Queue Management", RFC 7567 (BCP 197), July 2015 (section 4.4: byte mode
//!   not recommended).
//! - K. Ramakrishnan, S. Floyd and D. Black, "The Addition of Explicit
//!   Congestion Notification (ECN) to IP", RFC 3168, September 2001
//!   (sections 5 and 7: marking instead of dropping, and the hard threshold).
//! - David D. Clark and Wenjia Fang, "Explicit Allocation of Best-Effort
//!   Packet Delivery Service", IEEE/ACM Transactions on Networking 6(4),
//!   pp. 362-373, August 1998: RIO, RED with in and out profiles
//!   ([`RioMode::Coupled`], [`RioMode::Decoupled`]); J. Heinanen, F. Baker, W. Weiss
//!   and J. Wroclawski, "Assured Forwarding PHB Group", RFC 2597, June 1999
//!   (section 2: three drop precedences); O. Bonaventure and S. De Cnodder,
//!   "A Rate Adaptive Shaper for Differentiated Services", RFC 2963, October
//!   2000 (appendix A.1: [`RioConfig::rfc2963`]).
//! - Sally Floyd, Ramakrishna Gummadi and Scott Shenker, "Adaptive RED: An
//!   Algorithm for Increasing the Robustness of RED's Active Queue
//!   Management", ICSI technical report, August 2001: [`AdaptiveRed`].
//! - Zici Zheng and Robert Kinicki, "Adaptive Explicit Congestion
//!   Notification (AECN)", slides, Computer Science Department, Worcester
//!   Polytechnic Institute: [`AecnQueue`] and [`AecnConfig::zheng_kinicki`]
//!   (the router of slide 12, the class `max_p` values of slide 21).
//! - DPDK's `rte_red` (DPDK 22.11): the law `p_b / (2 - count p_b)`
//!   ([`Spreading::Dpdk`], [`Spreading::AccumulatedDpdk`]).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

mod adaptive;
mod aecn;
mod average;
mod byte_mode;
mod curve;
#[cfg(any(test, feature = "invariants"))]
pub mod invariants;
mod queue_settings;
mod red;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod rio;
mod spreading;

/// The bench stream's queue: a triangle wave from 20 to 140 packets and back,
/// one step per call (`q` the current length, `up` the direction), shared by
/// the tests that replay the bench stream.
#[cfg(test)]
pub(crate) fn triangle_step(q: &mut u32, up: &mut bool) {
    if *up {
        *q += 1;
        *up = *q < 140;
    } else {
        *q -= 1;
        *up = *q <= 20;
    }
}

pub use adaptive::{AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile};
pub use aecn::{Aecn, AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, FlowClass, Rejected};
pub use fixed::types::U32F32;
pub use queue_settings::{QueueSettings, QueueUnit};
pub use red::{Red, RedConfig, RedProfile};
pub use rio::{Precedence, Rio, RioConfig, RioMode, RioProfile};
pub use spreading::Spreading;

use netcond_core::RandomSource;

// Every state of the crate starts as `X::new(&profile, now)`, which is also its
// `netcond_core::State::start` (and so a `netcond_core::WithProfile` pair).
netcond_core::impl_state!(Red, RedProfile);
netcond_core::impl_state!(Rio, RioProfile);
netcond_core::impl_state!(Aecn, AecnProfile);
netcond_core::impl_state!(AdaptiveRed, AdaptiveRedProfile);
netcond_core::impl_state!({D: AecnDescriptor, const N: usize} AecnQueue<D, N>, AecnProfile);

/// One in the 2^-32 units of probabilities and weights.
pub(crate) const ONE: u64 = 1 << 32;

netcond_core::config_error! {
    /// Why a RED, RIO, Adaptive RED or AECN configuration was refused.
    pub enum RedError {
        /// `w_q` is zero or above one.
        WeightOutOfRange => "w_q must be greater than 0 and at most 1 (FJ93 section 4)",
        /// A `max_p` is above one.
        MaxPOutOfRange => "max_p must be in [0, 1] (FJ93 section 4)",
        /// `min_th >= max_th`.
        ThresholdOrder => "min_th must be below max_th (FJ93 section 4)",
        /// The buffer limit is zero.
        ZeroLimit => "the buffer limit must be greater than zero",
        /// `max_th` is above the buffer limit.
        ThresholdAboveLimit => "max_th must not exceed the buffer limit (RFC 2309 section 3: \
                                thresholds below the physical queue)",
        /// The typical transmission time `s` is zero.
        ZeroTransmissionTime => "the typical packet transmission time s must be at least one \
                                 tick (FJ93 section 4: m = idle time / s)",
        /// Byte mode with a zero maximum packet size.
        ZeroMaxPacketSize => "byte mode needs a maximum packet size greater than zero \
                              (FJ93 section 4: p_b * size / maximum size)",
        /// A better precedence could be dropped with a higher probability than a worse one.
        PrecedenceOrder => "a lower drop precedence must never get a higher drop probability \
                            than a higher one at the same average (RFC 2597 section 2)",
        /// AECN's `beta` is zero.
        ZeroBeta => "AECN's beta must be greater than 0 (the AECN slides (Zheng and Kinicki): max_p_fragile = base_max_p / beta)",
        /// AECN's `beta` is below one (but not zero).
        BetaBelowOne => "AECN's beta must be at least 1 (the AECN slides (Zheng and Kinicki), slide 21: max_p_fragile = \
                         base_max_p / beta must not exceed the average class's base_max_p)",
        /// AECN's `alpha` is zero.
        ZeroAlpha => "AECN's alpha must be greater than 0 (the AECN slides (Zheng and Kinicki), slide 21: max_p_robust = \
                      alpha base_max_p would be 0, and robust flows never marked)",
        /// AECN's `alpha` is below one (but not zero).
        AlphaBelowOne => "AECN's alpha must be at least 1 (the AECN slides (Zheng and Kinicki), slide 21: max_p_robust = \
                          alpha base_max_p must not be below the average class's base_max_p)",
        /// `ecn_drop_th` is below `min_th` (of some color, for RIO).
        EcnDropBelowMinTh => "ecn_drop_th must be at least min_th (RFC 3168 section 7: drop \
                              instead of marking only above an upper threshold; below min_th \
                              every ECN-capable packet RED picks would be dropped)",
        /// `ecn_drop_th` is above the buffer limit.
        EcnDropAboveLimit => "ecn_drop_th must not exceed the buffer limit (the average never \
                              reaches it)",
        /// `ecn_drop_th` is given with `ecn: false`.
        EcnDropWithoutEcn => "ecn_drop_th applies only with ecn: true (RFC 3168 section 7); \
                              give None without ECN",
        /// Adaptive RED with a zero interval.
        ZeroInterval => "the Adaptive RED interval must be at least one tick \
                         (Floyd, Gummadi and Shenker 2001: every 0.5 s)",
    }
}

/// The ECN field of the IP header (RFC 3168 section 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Ecn {
    /// 00: not ECN-capable.
    #[default]
    NotEct = 0b00,
    /// 01: ECN-capable, ECT(1).
    Ect1 = 0b01,
    /// 10: ECN-capable, ECT(0).
    Ect0 = 0b10,
    /// 11: congestion experienced.
    Ce = 0b11,
}

impl Ecn {
    /// The codepoint of the two low bits of `bits` (RFC 3168 section 5).
    #[inline]
    #[must_use]
    pub const fn from_bits(bits: u8) -> Ecn {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// The two-bit codepoint.
    #[inline]
    #[must_use]
    pub const fn bits(self) -> u8 {
        self as u8
    }

    /// True for ECT(0), ECT(1) and CE: a router may signal congestion to this
    /// packet by CE instead of dropping it (a CE packet stays CE, RFC 3168
    /// section 5).
    #[inline]
    #[must_use]
    pub const fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// What an arriving packet needs for a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Packet {
    /// Length in bytes (used by byte mode and by byte-counted buffers).
    pub len: u32,
    /// The ECN field.
    pub ecn: Ecn,
}

impl Packet {
    /// A packet of `len` bytes with ECN field `ecn`.
    #[inline]
    #[must_use]
    pub const fn new(len: u32, ecn: Ecn) -> Packet {
        Packet { len, ecn }
    }

    /// A packet that is not ECN-capable.
    #[inline]
    #[must_use]
    pub const fn not_ect(len: u32) -> Packet {
        Packet {
            len,
            ecn: Ecn::NotEct,
        }
    }
}

/// The decision for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Decision {
    /// Queue the packet unchanged.
    Enqueue,
    /// Queue the packet with CE set (RFC 3168 section 5). For AECN: the arriving
    /// packet was queued and a queued packet of its class was marked.
    Mark,
    /// Drop: RED's random early drop (or an early drop of a not-ECT packet
    /// where an ECT one would have been marked).
    DropEarly,
    /// Drop: the average is at or above max_th (2 max_th when gentle), or at
    /// or above the ECN hard-drop threshold, or the buffer is full.
    DropForced,
}

impl Decision {
    /// True for the two drops.
    #[inline]
    #[must_use]
    pub const fn is_drop(self) -> bool {
        // The two drops are the variants 2 and 3: bit 1 of the index.
        self as u8 >> 1 != 0
    }

    /// True when the packet goes into the queue (enqueued or marked).
    #[inline]
    #[must_use]
    pub const fn admits(self) -> bool {
        !self.is_drop()
    }

    /// An index 0..4 in declaration order, for counters.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A [`RandomSource`] that returns a value the caller drew: a hardware random
/// number, or a replayed one. Every draw returns the same `u32`. A decision
/// takes at most one draw with the per-packet spreadings, and at most one (on
/// the first packet after a drop, or after the average was below min_th) with
/// [`Spreading::Accumulated`] and [`Spreading::AccumulatedDpdk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Supplied(pub u32);

impl RandomSource for Supplied {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecn_codepoints() {
        for b in 0..4u8 {
            assert_eq!(Ecn::from_bits(b).bits(), b);
        }
        assert_eq!(Ecn::from_bits(0b110), Ecn::Ect0);
        assert!(!Ecn::NotEct.is_capable());
        assert!(Ecn::Ect0.is_capable() && Ecn::Ect1.is_capable() && Ecn::Ce.is_capable());
        assert!(Decision::DropEarly.is_drop() && Decision::DropForced.is_drop());
        assert!(Decision::Mark.admits() && Decision::Enqueue.admits());
        assert_eq!(Decision::DropForced.index(), 3);
        let mut s = Supplied(7);
        assert_eq!(s.next_u32(), 7);
        assert!(RedError::PrecedenceOrder.to_string().contains("RFC 2597"));
    }

    /// `State::start`, and so a `WithProfile` pair, starts a state as its
    /// `new` does.
    #[test]
    fn states_start_as_new() {
        use core::time::Duration;
        use netcond_core::{Instant, WithProfile};
        let t = Instant::from_ticks(77);
        let cfg = RedConfig::packets(5, 15, RedConfig::prob(0.1), RedConfig::prob(0.002), 50);
        let rp = RedProfile::new(&cfg).unwrap();
        assert_eq!(WithProfile::<Red>::new(rp, t).state, Red::new(&rp, t));
        let ap = AdaptiveRedProfile::new(&AdaptiveRedConfig::new(cfg, Duration::from_millis(500)))
            .unwrap();
        let pair = WithProfile::<AdaptiveRed>::new(ap, t);
        assert_eq!(pair.state, AdaptiveRed::new(&ap, t));
    }
}
