//! Pre-Congestion Notification (PCN): three-state PCN marking (3sM), the RFC 5670
//! meters, the RFC 6660 encoding, and the PCN edge (admission control and flow
//! termination).
//!
//! PCN protects inelastic traffic (voice, video) inside a Diffserv domain: every
//! link meters its PCN traffic against two rates below its capacity and marks
//! packets when they are exceeded; the egress turns the marks into "stop
//! admitting flows of this ingress-egress aggregate" and "terminate these flows"
//! (RFC 5559). This crate is the per-link metering and marking, the encoding in
//! the IP header, and the edge logic, all `no_std`, allocation-free, in exact
//! integer arithmetic.
//!
//! # Interior meters and markers
//!
//! Every meter is a token bucket: a `Copy` state of 16 bytes (fill and last
//! update) driven by an immutable profile, called once per packet with
//! `(profile, now, len, mark)` and returning the packet's new [`PcnMark`]
//! (all implement [`PcnMeter`]).
//!
//! | type | source | marks |
//! |---|---|---|
//! | [`EtMarker`] | draft-babiarz-pcn-explicit-marking-01 section 1.2; draft-babiarz-pcn-3sm-01 s3.1.2 and appendix A.1.5 | ET when `fill < size` (tail) or `fill < MTU` (size independent), then adds `s` (or `s * size / MTU`) |
//! | [`EtMarkerSim48`] | draft-babiarz-pcn-explicit-marking-01 section 4.8, Figure 9 (what the draft's simulations ran) | takes the packet first; ET when the bucket is at or below zero, then adds `pcn_px` |
//! | [`AsMarker`] | draft-babiarz-pcn-explicit-marking-01 section 1.2 ([`AsForm::DraftExplicitMarking01`]) or 3sm-01 s3.2.2 ([`AsForm::Draft3sm01`]) | AS below the threshold; meters only non-ET packets |
//! | [`ThresholdMeter`] | RFC 5670 s2.3, appendix A.1 | ThM when `F_tm < threshold` after taking the packet; meters all PCN packets |
//! | [`ExcessTrafficMeter`] | RFC 5670 s2.4, appendix A.2 | ETM, size independent (bucket may go one packet negative) or classic |
//! | [`NodeMarker`] | RFC 6660 s5.2.2 | both stages of a link, excess first: [`Node3sm`], [`Node3smSim48`], [`NodeRfc5670`] |
//!
//! Where the sources disagree, both are here under their own names:
//! draft-babiarz-pcn-explicit-marking-01's ET-marker of section 1.2 ([`EtMarker`]) and the one its section 4
//! simulations ran ([`EtMarkerSim48`]); the AS-marker of explicit-marking-01 and of 3sm-01
//! ([`AsForm`]); RFC 5670's section 2.4 and appendix B.6 tie rule for the classic
//! excess meter ([`ClassicTie`]; section 2.4, marking a packet of exactly the
//! fill, is the default).
//!
//! Tokens are counted in units of `1 / (scale * k)` byte, where one clock tick
//! adds a whole number of units (`netcond_core::BucketProfile`'s scale) and `k`
//! makes 3sM's proportional reduction `s * size / MTU` whole too: nothing is
//! ever rounded, and every meter agrees exactly, packet by packet, with a plain
//! `i128` model of its source text (module `reference`, feature `reference`). Sizes (`TB.size`, `s`,
//! `MTU`, thresholds) are in bytes, including RFC 5670's bucket sizes, which the
//! RFC gives in bits. A not-PCN packet is never metered or marked.
//!
//! # Time
//!
//! Every meter, marker and edge timer starts at the instant its constructor is
//! given. Time is serial ([`Instant`](netcond_core::Instant)): a step of 2^63
//! ticks or more reads as a step backwards, so no time passes (no token is
//! added, no timer runs), and none until the clock reads less than 2^63 ticks
//! after the last instant the state has seen. Timeouts and measurement intervals
//! are at most 2^62 ticks ([`MAX_DURATION_TICKS`]), so a deadline is always less
//! than 2^63 ticks ahead.
//!
//! # Configuration rules
//!
//! A profile refuses a configuration with one error variant per rule:
//!
//! | configuration | refused (variant) |
//! |---|---|
//! | [`ThresholdMeterConfig`], [`ExcessTrafficMeterConfig`] ([`Rfc5670Error`]) | a zero reference rate (`ZeroRate`: RFC 5670 sections 2.3 and 2.4 add tokens at that rate, so none would ever be added); a zero bucket (`ZeroBucket`: the bucket holds tokens "to a maximum value BS", none at 0); a threshold above BS_tm (`ThresholdAboveSize`, section 2.3); a bucket of 2^62 token units or more (`TooLarge`) |
//! | [`EtMarkerConfig`] ([`EtMarkerError`]) | a zero SR or TB.size (`ZeroRate`, `ZeroBucket`, as RFC 5670 section 2.4); a zero MTU (`ZeroMtu`); with size-independent marking, TB.size below the MTU (`MtuAboveBucket`, 3sm-01 appendix A.1.5); units of 2^62 or more (`TooLarge`) |
//! | [`EtMarkerSim48Config`] ([`EtMarkerSim48Error`]) | a zero `pcn_pt` or `pcn_tb` (`ZeroRate`, `ZeroBucket`); `pcn_tb` or `pcn_px` of 2^62 units or more (`TooLarge`) |
//! | [`AsMarkerConfig`] ([`AsMarkerError`]) | a zero AR or TB.size (`ZeroRate`, `ZeroBucket`, as RFC 5670 section 2.3); a threshold above TB.size (`ThresholdAboveSize`); units of 2^62 or more (`TooLarge`) |
//! | edge configurations ([`EdgeError`]) | a zero timeout or interval (`ZeroDuration`) or one above 2^62 ticks (`DurationTooLong`); admission-continue above admission-stop (`ContinueAboveStop`); a CLE-limit or threshold above 1 (`FractionAboveOne`); SM's U not above 1 (`UNotAboveOne`, RFC 6662 section 3.3.2) |
//!
//! Accepted on purpose: `pcn_px` = 0 (Fig. 9 adds no token after a mark) and `s` = 0
//! (no proportional reduction). RFC 6661's "CLE-reporting-threshold must not exceed
//! the CLE-limit" spans two nodes' configurations and cannot be checked here.
//!
//! # Encoding
//!
//! [`PcnMark`] is the RFC 6660 "3-in-1" state of the ECN field for a
//! PCN-compatible DSCP (`00` not-PCN, `10` NM, `01` ThM, `11` ETM; 3sM's NP / AS /
//! ET map to NM / ThM / ETM, [`ThreeState`]). [`PcnMark::remark`] only raises
//! severity and never touches not-PCN; [`PcnDscps`] applies it to a whole IPv4
//! TOS or IPv6 traffic-class byte.
//!
//! # Edge
//!
//! [`edge`] holds draft-babiarz-pcn-explicit-marking-01's egress ([`Egress3sm`]: a block signal per AS packet,
//! the stop-blocking timer, a flow termination per ET packet), the 3sM draft's
//! CLE-based option ([`CleAdmission`]), and RFC 6661 (CL) / RFC 6662 (SM)
//! measurement per `T_meas` ([`EgressMeter`]) and decision point
//! ([`DecisionPoint`]). Time-driven parts take `now` and say, with
//! `next_wakeup`, when `poll` next has work.
//!
//! # Example: a link overloaded at 150 % of SR, and the egress reacting
//!
//! ```
//! use netcond_core::{Instant, Rate};
//! use pcn_meter::{
//!     Admission, AsMarkerConfig, AsMarkerProfile, Egress3sm, EgressSignal, EtMarkerConfig,
//!     EtMarkerProfile, Node3sm, NodeProfile, PcnMark, PcnMeter, StopBlockingConfig,
//!     StopBlockingProfile,
//! };
//!
//! // One link of draft-babiarz-pcn-explicit-marking-01: SR 1 Mbps with a 10 kB bucket and s = 1064 B;
//! // AR 0.8 Mbps with a 20 kB bucket and a 10 kB threshold. Nanosecond clock.
//! let node = NodeProfile {
//!     excess: EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(Rate::from_kbps(1000), 10_000, 1064))
//!         .unwrap(),
//!     threshold: AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(Rate::from_kbps(800), 20_000, 10_000))
//!         .unwrap(),
//! };
//! let mut link = Node3sm::new(&node, Instant::ZERO);
//!
//! // The egress of the one ingress-egress aggregate, with the draft's 1 s timer.
//! let timer = StopBlockingProfile::new(&StopBlockingConfig::draft_explicit_marking_01()).unwrap();
//! let mut egress: Egress3sm<u32, 4> = Egress3sm::new(&timer, Instant::ZERO);
//! let agg = egress.add(7).unwrap();
//!
//! // 15 flows of 100 kbps (200-byte packets every 16 ms each, staggered): 1.5 Mbps.
//! // A terminated flow stops at once (no signalling delay in this example).
//! let mut active = [true; 15];
//! let mut blocked = false;
//! for i in 0..15 * 250u64 {
//!     let flow = (i % 15) as usize;
//!     if !active[flow] {
//!         continue;
//!     }
//!     let now = Instant::from_ticks(i * 16_000_000 / 15);
//!     let mark = link.mark(&node, now, 200, PcnMark::Nm);
//!     match egress.on_packet_at(&timer, now, agg, flow, mark) {
//!         EgressSignal::Block { .. } => blocked = true,
//!         EgressSignal::Terminate { flow, .. } => active[flow] = false,
//!         EgressSignal::Nothing => {}
//!     }
//! }
//! // Above AR the aggregate was blocked; above SR flows were terminated until
//! // the rest fit under SR (10 x 100 kbps).
//! let left = active.iter().filter(|a| **a).count();
//! assert!(blocked && (8..=10).contains(&left), "{left} flows left");
//! assert_eq!(egress.admission(7), Some(Admission::Block));
//!
//! // Once the AS marks stop, admission resumes after one silent timeout.
//! let later = Instant::from_ticks(60_000_000_000);
//! let (key, _resumed_at) = egress.poll(&timer, later).unwrap();
//! assert_eq!(key, 7);
//! assert_eq!(egress.admission(7), Some(Admission::Admit));
//! ```
//!
//! # Sources
//!
//! - J. Babiarz, X-G. Liu, "Simulations Results for 3sM",
//!   draft-babiarz-pcn-explicit-marking-01, Internet-Draft (Informational, work
//!   in progress), IETF, July 2007: section 1.2 (the AR-meter / AS-marker and
//!   the SR-meter / ET-marker: [`AsForm::DraftExplicitMarking01`],
//!   [`EtMarkerConfig::draft_explicit_marking_01`]), section 2.3 (the egress:
//!   block signals, the stop-blocking timer, flow termination: [`Egress3sm`],
//!   [`StopBlockingConfig::draft_explicit_marking_01`]), section 3.2 (the 1 s
//!   timeout) and section 4.8, Figure 9 (the excess-marking algorithm its
//!   simulations ran: [`EtMarkerSim48`]).
//! - J. Babiarz et al., "Three State PCN Marking", draft-babiarz-pcn-3sm-01,
//!   Internet-Draft (work in progress), IETF, 2007: section 3.1.2 and appendix
//!   A.1.5 (ET-marker, [`EtMarkerConfig::draft_3sm01`] and
//!   [`EtMarkerConfig::draft_3sm01_size_independent`]), section 3.2.2
//!   (AS-marker, [`AsForm::Draft3sm01`]), and the CLE-based admission option
//!   ([`CleAdmission`]).
//! - P. Eardley, Ed., "Pre-Congestion Notification (PCN) Architecture",
//!   RFC 5559, June 2009: the roles of PCN-interior and PCN-boundary nodes.
//! - P. Eardley, Ed., "Metering and Marking Behaviour of PCN-Nodes", RFC 5670,
//!   November 2009: section 2.3 and appendix A.1 ([`ThresholdMeter`]), section
//!   2.4 and appendix A.2 ([`ExcessTrafficMeter`]), appendix B.6
//!   ([`ClassicTie`]).
//! - B. Briscoe, T. Moncaster, M. Menth, "Encoding Three Pre-Congestion
//!   Notification (PCN) States in the IP Header Using a Single Diffserv
//!   Codepoint (DSCP)", RFC 6660, July 2012: sections 3 and 5.2 ([`PcnMark`],
//!   [`PcnDscps`]), section 5.2.2 ([`NodeMarker`]).
//! - A. Charny, F. Huang, G. Karagiannis, M. Menth, T. Taylor, Ed.,
//!   "Pre-Congestion Notification (PCN) Boundary-Node Behavior for the
//!   Controlled Load (CL) Mode of Operation", RFC 6661 (Experimental), July
//!   2012: sections 3.2 and 3.3 ([`EgressMeter`], [`DecisionPoint`] with
//!   [`EdgeBehaviour::ControlledLoad`]).
//! - A. Charny, J. Zhang, G. Karagiannis, M. Menth, T. Taylor, Ed.,
//!   "Pre-Congestion Notification (PCN) Boundary-Node Behavior for the Single
//!   Marking (SM) Mode of Operation", RFC 6662 (Experimental), July 2012:
//!   sections 3.2 and 3.3 ([`EgressMeter`], [`DecisionPoint`] with
//!   [`EdgeBehaviour::SingleMarking`]).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

mod as_marker;
mod bucket;
pub mod burst;
pub mod edge;
mod et_marker;
mod et_marker_sim48;
mod excess_traffic_meter;
#[cfg(any(test, feature = "invariants"))]
pub mod invariants;
mod mark;
mod node;
mod out_table;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod rfc5670;
mod state;
#[cfg(test)]
mod tests;
mod threshold_meter;
mod units;

pub use as_marker::{AsForm, AsMarker, AsMarkerConfig, AsMarkerError, AsMarkerProfile};
pub use edge::{
    amount_to_terminate, per_mille, Admission, Cle, CleAdmission, CleAdmissionConfig,
    CleAdmissionProfile, CleDecision, Decision, DecisionConfig, DecisionPoint, DecisionProfile,
    EdgeBehaviour, EdgeError, Egress3sm, EgressMeter, EgressMeterConfig, EgressMeterProfile,
    EgressSignal, Report, StopBlockingConfig, StopBlockingProfile, StopBlockingTimer, Suppression,
    Termination,
};
pub use et_marker::{EtMarker, EtMarkerConfig, EtMarkerError, EtMarkerProfile, EtMarking};
pub use et_marker_sim48::{
    EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Error, EtMarkerSim48Profile,
};
pub use excess_traffic_meter::{
    ClassicTie, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile,
};
pub use mark::{dscp_of, ecn_of, remark_ecn, PcnDscps, PcnMark, ThreeState};
pub use netcond_core::WithProfile;
pub use node::{Node3sm, Node3smSim48, NodeMarker, NodeProfile, NodeRfc5670, PcnMeter};
pub use rfc5670::Rfc5670Error;
pub use state::{Metered, PcnPair};
pub use threshold_meter::{ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile};
pub use units::{FLOOR, MAX_DURATION_TICKS};
