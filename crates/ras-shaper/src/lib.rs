//! RFC 2963 rate adaptive shapers (srRAS, trRAS, G-srRAS, G-trRAS) with an exact EAR estimator,
//! and a token bucket filter with Linux `tbf`'s semantics ([`tbf`]).
//!
//! A rate adaptive shaper (RAS) sits in front of a three-color meter (RFC 2697
//! srTCM or RFC 2698 trTCM) and smooths the bursts of the traffic it meters, so
//! that more of it is colored green (RFC 2963 section 2.1). It is a tail-drop
//! FIFO emptied at the *shaping rate*
//!
//! ```text
//! rate = max(EAR(t), F(occupancy))        (sections 2.3 and 2.5), capped at MIR
//! ```
//!
//! where the EAR is an exponential average of the incoming rate (section 2.3,
//! see [`ear`]) and F is piecewise linear in the buffer occupancy: CIR below
//! CIR_th, rising to PIR at PIR_th (trRAS only), to MIR at MIR_th, and MIR above
//! (figures 2 and 3, [`RasProfile::rate_function`]). The green variants
//! (section 3) also read the downstream meter and release the head packet at
//! `min(T1, T2)`, T1 from the shaping rate and T2 the earliest instant at which
//! the meter would color it green, taken no earlier than the previous packet has
//! gone out at MIR, so that the output never exceeds MIR ([`GreenRas`]).
//!
//! | shaper | profile | state | meter downstream |
//! |---|---|---|---|
//! | srRAS (s2.2, 2.3) | [`SrRasProfile`] | [`Ras`] | srTCM, metered by the caller |
//! | trRAS (s2.4, 2.5) | [`TrRasProfile`] | [`Ras`] | trTCM, metered by the caller |
//! | G-srRAS (s3.2, 3.3) | [`SrRasProfile`] | [`GreenRas`] | `trtcm::SrTcm`, metered by the shaper |
//! | G-trRAS (s3.4, 3.5) | [`TrRasProfile`] | [`GreenRas`] | `trtcm::TrTcm`, metered by the shaper |
//!
//! Every shaper starts as every state does, with [`State::start`] (its
//! `new(&profile, now)`). [`RasShaper`] and [`GreenRasShaper`] are
//! [`WithProfile`] pairs of a profile (and the meter's, in a
//! [`ShaperMeterProfile`]) with one state (a [`ThenMeter`] of the shaper and the
//! meter for the green one) for single-instance users, driven through
//! [`ShaperPair`]: `enqueue(now, pkt)` (hands the packet back when the buffer is
//! full), `next_release()`, `dequeue(now)`. [`MeteredRasShaper`] is a plain RAS
//! followed by its meter with the same calls as [`GreenRasShaper`] (`dequeue`
//! returns the packet and its color).
//!
//! [`RasCore`] is an srRAS or trRAS without its queue, for callers that keep
//! the packets themselves (a descriptor ring, a list of buffers): it is told
//! each arrival's length and, on release, the head's length and the next
//! packet's arrival time, and makes the decisions [`Ras`] makes (`Ras` is a
//! `RasCore` with the crate's FIFO).
//!
//! # Configuration
//!
//! Every MUST of sections 2.2 and 2.4 is checked, one [`RasError`] variant per
//! rule: `CIR <= MIR <= line rate`, `CIR <= PIR <= MIR <= line rate`,
//! `CIR_th <= [PIR_th <=] MIR_th <= buffer size`. MIR defaults to the line rate
//! (the RFC's typical value); the thresholds default to a quarter, a half
//! (trRAS) and three quarters of the buffer; K to 100 ms ([`DEFAULT_K`]).
//!
//! All the rules: `ZeroCir` (CIR > 0, section 2.3), `CirAboveMir`, `CirAbovePir`,
//! `PirAboveMir`, `MirAboveLineRate` (sections 2.2 and 2.4), `CirThAboveMirTh`,
//! `CirThAbovePirTh`, `PirThAboveMirTh`, `MirThAboveBuffer`, `ZeroBuffer`,
//! `ZeroMaxPacket` and `BufferBelowMaxPacket` (the buffer holds at least one packet
//! of `max_packet_bytes`: a longer packet could never be queued), `ZeroK` and
//! `KTooLong` (1 tick <= K < 2^40 ticks), `LineRateTooHigh` (below 2^40 bytes per
//! tick) and `DrainTooSlow` (a full buffer drains at CIR within 2^61 ticks). The
//! green shapers' meter profiles are checked by `trtcm`.
//!
//! Every shaper starts at the instant its constructor is given. Time is serial
//! ([`Instant`](netcond_core::Instant)): a step of 2^63 ticks or more reads as a
//! step backwards, so the rate estimator counts no time for it, and none until the
//! clock reads less than 2^63 ticks after the last instant it has seen.
//!
//! # Numbers
//!
//! No floating point and no division on the per-packet path: rates are fixed
//! point in units of `2^-S` bytes per tick, the EAR uses three small
//! compile-time tables, and the transmission time `L/R` at CIR or MIR (the flat
//! pieces of F, when the EAR does not exceed them) is one multiply by a
//! constant precomputed with the profile, rounded so that the output is never
//! below CIR nor above MIR; at any other rate it uses a table-plus-Newton
//! reciprocal (relative error below 1e-10). Release schedules keep a 2^-32 tick
//! fraction and do not drift. The green shapers get T2's waits from a
//! multiplier kept per meter bucket ([`T2Cache`]) that gives the exact ceiling
//! with one high-word multiply; it is computed, with one division, when a
//! bucket's rate is first seen. [`ticks_until`] gives the same ceiling without
//! a cache, from the table reciprocal.
//!
//! This arithmetic is the crate's own (a private module of tables, a
//! reciprocal and precomputed multipliers) rather than the `fixed` crate's:
//! `fixed` provides fixed-point number types whose quotients divide, and none
//! of the division-free reciprocals, tables and multipliers above, whose
//! rounding the tests pin bit for bit. The branch-free masks are
//! `netcond_core::branchless`.
//!
//! # Example: a trRAS in front of a trTCM
//!
//! ```
//! use netcond_core::{Color, Instant, Rate, TickRate};
//! use ras_shaper::{
//!     GreenRasShaper, RasShaper, ShaperMeterProfile, ShaperPair, TrRasConfig, TrRasProfile,
//!     TrThresholds,
//! };
//! use trtcm::{TrTcm, TrTcmConfig, TrTcmProfile};
//!
//! // The customer router of RFC 2963 appendix A: CIR 2 Mbit/s, PIR 4 Mbit/s,
//! // CBS 3 KB, PBS 6 KB, on a 34 Mbit/s line; times in nanoseconds.
//! let meter_cfg = TrTcmConfig::new(Rate::from_mbps(2), Rate::from_mbps(4), 3000, 6000)
//!     .with_tick(TickRate::NANOS);
//! let meter_profile = TrTcmProfile::new(&meter_cfg).unwrap();
//! let cfg = TrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(4), Rate::from_mbps(34), 64_000)
//!     .with_thresholds(TrThresholds::new(6_000, 24_000, 48_000));
//! let profile = TrRasProfile::new(&cfg).unwrap();
//!
//! // trRAS, then the meter.
//! let t0 = Instant::ZERO;
//! let mut ras: RasShaper<u32, 64> = RasShaper::new(profile.into(), t0);
//! let mut meter = TrTcm::new(&meter_profile, t0);
//! // A burst of ten 1500-byte packets at 10 Mbit/s (1.2 ms apart).
//! for i in 0..10u64 {
//!     ras.enqueue(Instant::from_ticks(i * 1_200_000), 1500).unwrap();
//! }
//! let mut greens = 0;
//! while let Some(at) = ras.next_release() {
//!     let pkt = ras.dequeue(at).unwrap();
//!     if meter.color_blind(&meter_profile, at, pkt) == Color::Green {
//!         greens += 1;
//!     }
//! }
//! // Unshaped, only the first two packets (CBS 3000 B) plus about one more
//! // would be green; shaped at about 2 Mbit/s most are.
//! assert!(greens >= 8, "{greens}");
//!
//! // G-trRAS: the shaper meters its output itself and never waits when the
//! // meter would already color the head packet green.
//! let both = ShaperMeterProfile::new(profile, meter_profile);
//! let mut g: GreenRasShaper<u32, TrTcm, 64> = GreenRasShaper::new(both, t0);
//! g.enqueue(t0, 1500).unwrap();
//! assert_eq!(g.next_release(), Some(t0));
//! assert_eq!(g.dequeue(t0), Some((1500, Color::Green)));
//! ```
//!
//! # Sources
//!
//! - O. Bonaventure and S. De Cnodder, "A Rate Adaptive Shaper for
//!   Differentiated Services", RFC 2963 (Informational), IETF, October 2000,
//!   <https://www.rfc-editor.org/rfc/rfc2963>. Sections 2.2 to 2.5 (srRAS and
//!   trRAS: configuration, the rate function F of figures 2 and 3, the EAR),
//!   section 3 (G-srRAS and G-trRAS, T1 and T2), the appendix (the customer
//!   routers of figure A.1 and table A.1; the examples use C1).
//! - I. Stoica, S. Shenker and H. Zhang, "Core-Stateless Fair Queueing:
//!   Achieving Approximately Fair Bandwidth Allocations in High Speed
//!   Networks", Proceedings of ACM SIGCOMM '98, Vancouver, September 1998,
//!   pp. 118-130: the exponential average rate estimator that RFC 2963
//!   section 2.3 uses for the EAR ([`ear`]).
//! - J. Heinanen and R. Guerin, "A Single Rate Three Color Marker", RFC 2697,
//!   September 1999, and "A Two Rate Three Color Marker", RFC 2698, September
//!   1999: the downstream meters (crate `trtcm`), read by the green shapers.
//! - S. De Cnodder, "Rate Adaptive Shapers for Data Traffic in DiffServ
//!   Networks", NetWorld+Interop 2000 Engineers Conference, Las Vegas, May
//!   2000: the simulations RFC 2963 summarises (cited, not implemented here).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

mod config;
pub mod ear;
mod fixed;
mod green;
#[cfg(any(test, feature = "invariants"))]
pub mod invariants;
mod pair;
mod profile;
mod ras_core;
mod schedule;
mod shaper;
pub mod tbf;
#[cfg(test)]
mod tests;

pub use config::{
    RasError, RasKind, SrRasConfig, SrThresholds, TrRasConfig, TrThresholds, DEFAULT_K,
    DEFAULT_MAX_PACKET, LINE_BITS, MAX_DRAIN_TICKS, MAX_SCALE,
};
pub use ear::{Ear, EarProfile};
pub use green::{ticks_until, GSrRas, GTrRas, GreenMeter, GreenRas, T2Cache};
pub use netcond_core::{State, WithProfile};
pub use pair::{
    GreenRasShaper, MeteredRasShaper, RasShaper, ShaperMeterProfile, ShaperPair, ThenMeter,
};
pub use profile::{RasProfile, SrRasProfile, TrRasProfile};
pub use ras_core::RasCore;
pub use schedule::{transmission_time, Schedule, MAX_GAP_TICKS};
pub use shaper::{PacketLen, Ras, SrRas, TrRas};
pub use tbf::{Tbf, TbfConfig, TbfDeparture, TbfError, TbfPeak, TbfProfile, TbfVerdict};
