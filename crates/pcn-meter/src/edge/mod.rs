//! The PCN edge: what the egress does with the marks, and the decision point.
//!
//! - [`StopBlockingTimer`] and [`Egress3sm`]: draft-babiarz-pcn-explicit-marking-01 section 2.3. Each AS
//!   (ThM) packet signals "block" for its ingress-egress aggregate; the
//!   stop-blocking timer restarts while blocks keep coming and admission resumes
//!   after one silent timeout; each ET (ETM) packet terminates its flow.
//! - [`CleAdmission`]: the CLE-based option of the 3sM draft: per measurement
//!   interval, block when the fraction of marked bytes reaches the admission-stop
//!   threshold, resume when it falls below the admission-continue threshold.
//! - [`EgressMeter`] and [`DecisionPoint`]: RFC 6661 (CL) and RFC 6662 (SM):
//!   NM / ThM / ETM rates per `T_meas`, the congestion level estimate (CLE),
//!   optional report suppression, admit / block and the amount to terminate.
//!
//! Everything is allocation-free with fixed capacities. Time-driven parts take
//! `now` from the caller and report, with `next_wakeup`, when they next need a
//! call to `poll`; calling `poll` late is safe (see each type).

mod cle;
mod cle_admission;
mod decision_point;
mod egress_meter;
mod stop_blocking;

pub use cle::Cle;
pub(crate) use cle::{rate_of, Interval};
pub use cle_admission::{CleAdmission, CleAdmissionConfig, CleAdmissionProfile, CleDecision};
pub use decision_point::{
    amount_to_terminate, Decision, DecisionConfig, DecisionPoint, DecisionProfile, Termination,
};
pub use egress_meter::{
    EdgeBehaviour, EgressMeter, EgressMeterConfig, EgressMeterProfile, Report, Suppression,
};
pub use stop_blocking::{
    Egress3sm, EgressSignal, StopBlockingConfig, StopBlockingProfile, StopBlockingTimer,
};

use fixed::types::U1F31;

/// Admission state of an ingress-egress aggregate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Admission {
    /// New flows may be admitted.
    #[default]
    Admit,
    /// New flows are blocked.
    Block,
}

/// The fraction `k / 1000` (RFC 6661 and 6662 configure CLE values in tenths of
/// a percent, 0 to 1000) as a `U1F31`, rounded down (by less than 2^-31), so
/// that a CLE of exactly `k / 1000` counts as reaching it: with a CLE-limit of
/// `per_mille(50)`, a CLE of exactly 5 % blocks, as RFC 6661 section 3.3.1
/// wants. Values above 1000 give 1.
#[must_use]
pub const fn per_mille(k: u16) -> U1F31 {
    let k = if k > 1000 { 1000 } else { k as u64 };
    U1F31::from_bits(((k << 31) / 1000) as u32)
}

netcond_core::config_error! {
    /// Why an edge configuration was refused.
    pub enum EdgeError {
        /// A timer or interval of zero ticks.
        ZeroDuration => "timeouts and measurement intervals must be at least one clock tick \
                         (draft-babiarz-pcn-explicit-marking-01 section 2.3; RFC 6661 section 3.5)",
        /// A timer or interval longer than [`MAX_DURATION_TICKS`](crate::MAX_DURATION_TICKS).
        DurationTooLong => "timeouts and measurement intervals must not exceed 2^62 clock \
                            ticks: deadlines are compared over half the 64-bit tick range",
        /// The admission-continue threshold lies above the admission-stop one.
        ContinueAboveStop => "the admission-continue threshold must not exceed the \
                              admission-stop threshold (3sM draft: hysteresis)",
        /// A CLE threshold above 1.
        FractionAboveOne => "CLE-limit and CLE thresholds must lie between 0 and 1 (RFC 6661 \
                             section 5.1.2: 0 to 1000 tenths of a percent)",
        /// U not above one.
        UNotAboveOne => "U must be greater than one (RFC 6662 section 3.3.2)",
    }
}
