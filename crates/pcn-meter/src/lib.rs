//! Pre-Congestion Notification: three-state PCN marking (3sM), RFC 5670 meters, RFC 6660 encoding, PCN edge admission and flow termination.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]

pub mod edge;
pub mod invariants;
mod mark;
mod node;
pub mod reference;
mod rfc5670;
#[cfg(test)]
mod tests;
mod tsm;
mod units;

pub use edge::{
    amount_to_terminate, per_mille, Admission, Cle, CleAdmission, CleAdmissionConfig,
    CleAdmissionProfile, CleDecision, Decision, DecisionConfig, DecisionPoint, DecisionProfile,
    EdgeBehaviour, EdgeError, Egress3sm, EgressMeter, EgressMeterConfig, EgressMeterProfile,
    EgressSignal, Report, StopBlockingConfig, StopBlockingProfile, StopBlockingTimer, Suppression,
    Termination,
};
pub use mark::{dscp_of, ecn_of, remark_ecn, PcnDscps, PcnMark, ThreeState};
pub use node::{Metered, Node3sm, Node3smSim48, NodeMarker, NodeProfile, NodeRfc5670, PcnMeter};
pub use rfc5670::{
    ClassicTie, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig,
    ExcessTrafficMeterProfile, Rfc5670Error, ThresholdMeter, ThresholdMeterConfig,
    ThresholdMeterProfile,
};
pub use tsm::{
    AsForm, AsMarker, AsMarkerConfig, AsMarkerError, AsMarkerProfile, EtMarker, EtMarkerConfig,
    EtMarkerError, EtMarkerProfile, EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Error,
    EtMarkerSim48Profile, EtMarking,
};
pub use units::FLOOR;
