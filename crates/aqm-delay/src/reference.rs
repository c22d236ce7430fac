//! Reference models for differential tests: CoDel written in the loop form of
//! its sources, owning the dequeue loop, next to which the crate's step-wise
//! [`Codel`](crate::Codel) is checked packet for packet, PIE, FQ-PIE and
//! DualPI2.
//!
//! - [`RfcCodel`]: RFC 8289's `dequeue` and `dodequeue` (sections 5.5 and
//!   5.6), with the control law `t + floor(interval / sqrt(count))` found by
//!   a binary search for the largest `q` with `q^2 <= floor(interval^2 /
//!   count)` (a different computation from the crate's Newton square root).
//!   ECN marking as Linux does it, which the RFC's pseudocode leaves out.
//! - [`LinuxCodel`]: Linux's `codel_dequeue` and `codel_should_drop`
//!   (`include/net/codel_impl.h`), with ns-3's differences where
//!   [`LinuxVariant::Ns3`] is chosen, in 32-bit codel time.
//! - [`FqCodelRef`]: Linux's `fq_codel_dequeue` and `fq_codel_drop` loops over
//!   plain index rings, with either model as each flow's CoDel.
//! - [`LinuxPie`]: Linux's `sch_pie` with timestamps, in 128-bit arithmetic
//!   with explicit reductions modulo 2^64 where the C code wraps.
//! - [`RfcPie`]: RFC 8033's pseudocode (Appendix B, sections 4.1 to 4.4, 5.1,
//!   5.2, 5.4, 5.5) statement by statement in exact integer arithmetic.
//! - [`FqPieRef`]: Linux's `sch_fq_pie` over index rings, a [`LinuxPie`] per
//!   flow.
//! - [`RfcDualPi2`]: RFC 9332 Appendix A's DualPI2 pseudocode in loop form
//!   over two [`DualFifo`]s, exact integer arithmetic.
//!
//! They take the configuration from a [`CodelProfile`] (its converted target
//! and interval) and the packets from any [`Fifo`]. Not on any per-packet path.

use netcond_core::Instant;

use crate::{CodelProfile, ControlLaw, FqCodelProfile, Head, LinuxVariant};

/// A queue the reference models pull packets from.
pub trait Fifo {
    /// Removes and returns the head packet.
    fn pop(&mut self) -> Option<Head>;
    /// Bytes queued (after the last `pop`).
    fn bytes(&self) -> u64;
}

mod codel;
mod dualpi2;
mod fq_codel;
mod fq_pie;
mod pie;

pub use codel::*;
pub use dualpi2::*;
pub use fq_codel::*;
pub use fq_pie::*;
pub use pie::*;
