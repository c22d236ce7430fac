//! TRUMP/RBCC router rate allocation: per-interface max-min fair shares stamped
//! into packets, and an RCP-style controller.
//!
//! # The algorithm
//!
//! RBCC (Toomey's rate-based congestion control, Toomey's RBCC report) keeps, for every
//! output interface of a router, an allocated-bandwidth table of the flows
//! crossing it ([`RbccInterface`]). TRUMP data packets carry a requested rate, a
//! rate field and a bottleneck-node id ([`RateHeader`]); every router lowers the
//! rate field to its interface's advertised rate and, when it lowers it, writes
//! its id into the bottleneck field. The destination returns rate and bottleneck
//! in the acknowledgement ([`AckHeader`]), and the source sends at that rate.
//!
//! The advertised rate is Charny's: the capacity, minus the ACK load, minus the
//! rates of the flows held by a bottleneck elsewhere, divided by the number of
//! flows bottlenecked here, iterated to the max-min fixed point (done exactly by
//! water-filling the constraints, [`RbccInterface::recompute`]). An
//! interface learns that a flow is held elsewhere from the returned ACK
//! ([`RbccInterface::on_return`]). ACKs leaving by an interface are charged to it
//! as outside load of `k = ack/data` times their rate ([`RbccInterface::on_ack`],
//! [`AckModel::OutsideLoad`]: the report's Scenario 7 section states neither its
//! ACK size nor how its routers count ACK load, and this model with 40-byte ACKs
//! is the one inferred from its optimum-rate table, which it reproduces exactly); a strict coupled
//! max-min, where ACK flows can be bottlenecked too, is offered as
//! [`AckModel::Coupled`].
//!
//! Per packet: one lookup in an open-addressing table (one probe at moderate
//! load), a compare and at most three stores (`O(1)`); the fair share is
//! recomputed only when the table changes (a flow joins, leaves, expires, or its
//! requested or returned rate changes), in expected `O(N)` (partitioning, no
//! sort), and no row is written by it.
//!
//! Rates are [`FixedRate`]: Q48.16 bits per second, a resolution of 2^-16 bit/s.
//! Shares round down, so allocations never exceed capacity. On Scenario 7 every
//! rate is within one unit of the exact rational value (tested in `u128`).
//!
//! [`FixedRate`] is a `u64` newtype rather than the `fixed` crate's `U48F16`
//! (which other netcond crates use): the packet path only compares rates, and
//! every computation on them (the water-filling of
//! [`RbccInterface::recompute`], the ACK load `k x rate`, [`FixedRate::from_ratio`],
//! the RCP update) is integer arithmetic on the raw values in `u128` or `i128`,
//! with one rounding at the end, not a chain of Q48.16 products and quotients
//! each rounded on its own, which is what `U48F16`'s operators give; its
//! all-ones value means
//! "unlimited", which a fixed-point number type would treat as an ordinary
//! rate. Wrapping the same `u64` in `U48F16` would change no result and add a
//! dependency to this crate.
//!
//! Also here: [`solver::Network`], the network-wide max-min allocation the
//! distributed computation converges to (for tests and simulators), and
//! [`rcp::Rcp`], an RCP-style controller with no per-flow state and the same
//! stamping interface.
//!
//! # Time and configuration rules
//!
//! Time is serial ([`Instant`]): a step of 2^63 ticks or
//! more reads as a step backwards, so no time passes (no row expires, no RCP
//! interval ends), and none until the clock reads less than 2^63 ticks after the
//! last instant the state has seen. [`Rcp::new`] starts its interval at the instant
//! given.
//!
//! [`RbccProfile::new`] refuses, one [`RbccError`] variant per rule: `NoNodeId` (the
//! id is not 0, which means "no bottleneck"), `ZeroCapacity`, `CapacityTooLarge`
//! (below 2^47 bit/s), `ZeroDataBytes`, `AckNotSmaller` (k = ack/data < 1) and
//! `ZeroIdleTimeout`. [`RcpProfile::new`] refuses, one [`RcpError`] variant each:
//! `NoNodeId`, `BadCapacity`, `ZeroDenominator`, `ZeroTime`, `IntervalTooLong`
//! (T <= 2^16 d0), `BadMinRate`, `BadInitial`, and the gains: `NoGain` (alpha =
//! beta = 0 pins the rate at its initial value, C by default), `ZeroAlpha` (the rate
//! could only fall) and `AlphaUnstable` (alpha < pi/2, the stability limit of RCP's
//! fluid model linearised at the fair share; the derivation is in docs/rbcc-rate.md).
//!
//! # Example: Toomey's RBCC report, Scenario 7
//!
//! Flows 5 and 7 cross the 64 kbit/s link from router 2 to router 3 and flow 8
//! crosses it the other way; each flow's ACKs cross it in the opposite direction.
//! After a few round trips the rates are those of the report's optimum-rate table: 2400000/77 bit/s for
//! each forward flow and 4800000/77 bit/s for the reverse flow.
//!
//! ```
//! use netcond_core::{Instant, Rate};
//! use rbcc_rate::{FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};
//!
//! let p23 = RbccProfile::new(&RbccConfig::toomey_scenario7(NodeId(23), Rate::from_kbps(64))).unwrap();
//! let p32 = RbccProfile::new(&RbccConfig::toomey_scenario7(NodeId(32), Rate::from_kbps(64))).unwrap();
//! let mut r2: RbccInterface<16> = RbccInterface::new(&p23, Instant::ZERO); // router 2 -> router 3
//! let mut r3: RbccInterface<16> = RbccInterface::new(&p32, Instant::ZERO); // router 3 -> router 2
//! let now = Instant::ZERO;
//! let mut rate = [FixedRate::ZERO; 3];
//! for _round_trip in 0..5 {
//!     for (i, flow) in [5u32, 7].into_iter().enumerate() {
//!         let mut data = RateHeader::new(FixedRate::UNLIMITED);
//!         r2.on_data(&p23, now, flow, &mut data).unwrap(); // data leaves router 2
//!         let mut ack = data.ack(); // the destination returns the fields
//!         r3.on_ack(&p32, now, flow, &mut ack).unwrap(); // ACK leaves router 3
//!         r2.on_return(&p23, now, flow, &ack); // and passes back through router 2
//!         rate[i] = ack.rate;
//!     }
//!     let mut data = RateHeader::new(FixedRate::UNLIMITED);
//!     r3.on_data(&p32, now, 8, &mut data).unwrap();
//!     let mut ack = data.ack();
//!     r2.on_ack(&p23, now, 8, &mut ack).unwrap();
//!     r3.on_return(&p32, now, 8, &ack);
//!     rate[2] = ack.rate;
//! }
//! assert_eq!(rate[0].to_string(), "31168.831 bit/s"); // 2400000/77
//! assert_eq!(rate[1].to_string(), "31168.831 bit/s");
//! assert_eq!(rate[2].to_string(), "62337.662 bit/s"); // 4800000/77
//! ```
//!
//! # Calling it from a simulator
//!
//! Per hop: a data packet leaving by interface `I` calls `I.on_data`; an ACK
//! leaving by interface `J` calls `J.on_ack`; the ACK arriving back at the router
//! whose interface `I` the flow's data left by calls `I.on_return`; a closing flow
//! calls `close` on every interface it crossed, or `expire` removes it after the
//! idle timeout. [`RateStamp`] is the same set of calls as a trait, implemented
//! by [`RbccInterface`] and [`Rcp`]. Design notes: `docs/rbcc-rate.md`.
//!
//! # Sources
//!
//! - W. Toomey, TRUMP/RBCC: the TRUMP rate-based transport protocol and the RBCC
//!   router rate calculation, compared with TCP Reno on S. Keshav's REAL network
//!   simulator. Scenario 7 (four flows across a 64 kbit/s link between routers 2
//!   and 3, 1500-byte data packets): the optimum-rate table of its section 5.1,
//!   which [`RbccConfig::toomey_scenario7`] and `tests/scenario7.rs` reproduce.
//!   That section gives neither the ACK size nor the ACK accounting, and refers
//!   for the calculation to the report's Appendix B, which is not in the text
//!   this crate was built from: the 40-byte ACK and [`AckModel::OutsideLoad`]
//!   are inferred, as the choice that gives the table's rates exactly
//!   (2400000/77 bit/s = C / (2 (1 + 40/1500))).
//! - A. Charny, "An Algorithm for Rate Allocation in a Packet-Switching Network
//!   with Feedback", M.S. thesis, MIT, 1994: the advertised rate and its max-min
//!   fixed point.
//! - N. Dukkipati, M. Kobayashi, R. Zhang-Shen, N. McKeown, "Processor Sharing
//!   Flows in the Internet", IWQoS 2005: the RCP update
//!   `R <- R (1 + (T/d0)(alpha (C - y) - beta q/d0)/C)`, here with alpha 0.1 and
//!   beta 1 ([`rcp`]).
//!
//! The ACK model ([`AckModel`]) and the exact rational values the tests check
//! are derived in `docs/rbcc-rate.md`.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

mod config;
mod flowtable;
#[cfg(any(test, feature = "invariants"))]
pub mod invariants;
mod rate;
pub mod rcp;
pub mod solver;
mod table;

pub use config::{AckModel, RbccConfig, RbccError, RbccProfile};
pub use flowtable::EntryKind;
pub use rate::{AckHeader, FixedRate, FlowId, NodeId, RateHeader, FRAC_BITS, ONE_BPS};
pub use rcp::{Rcp, RcpConfig, RcpError, RcpProfile};
pub use table::{FlowEntry, RbccInterface};

// Both states start as `X::new(&profile, now)`, which is also their
// `netcond_core::State::start` (and so a `netcond_core::WithProfile` pair).
netcond_core::impl_state!(Rcp, RcpProfile);
netcond_core::impl_state!({const N: usize} RbccInterface<N>, RbccProfile);

use netcond_core::Instant;

/// The per-packet calls of a rate-stamping output interface, shared by
/// [`RbccInterface`] and [`Rcp`] so that a simulator can run either.
pub trait RateStamp {
    /// The validated configuration the calls take.
    type Profile;

    /// A data packet of `flow` leaves by this interface: lower its rate field.
    ///
    /// # Errors
    /// The flow is handed back when it cannot be tracked (table full).
    fn on_data(
        &mut self,
        p: &Self::Profile,
        now: Instant,
        flow: FlowId,
        hdr: &mut RateHeader,
    ) -> Result<(), FlowId>;

    /// An ACK of `flow` leaves by this interface.
    ///
    /// # Errors
    /// The flow is handed back when it cannot be tracked (table full).
    fn on_ack(
        &mut self,
        p: &Self::Profile,
        now: Instant,
        flow: FlowId,
        ack: &mut AckHeader,
    ) -> Result<(), FlowId>;

    /// The ACK of `flow`, whose data leaves by this interface, passes back
    /// through this router.
    fn on_return(&mut self, p: &Self::Profile, now: Instant, flow: FlowId, ack: &AckHeader);

    /// `flow` closed; true if this interface held state for it.
    fn close(&mut self, p: &Self::Profile, flow: FlowId) -> bool;
}
