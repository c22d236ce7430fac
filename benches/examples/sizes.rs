//! Prints the size in bytes of every per-flow (per-link) state and profile, as
//! listed in docs/performance.md: `cargo run --manifest-path benches/Cargo.toml --example
//! sizes`.
use core::mem::size_of;

use netcond::pcn::{
    AsMarker, AsMarkerProfile, EtMarker, EtMarkerProfile, EtMarkerSim48, EtMarkerSim48Profile,
    ExcessTrafficMeter, ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670,
    ThresholdMeter, ThresholdMeterProfile,
};
use netcond::ras::{Ear, EarProfile, RasProfile};
use netcond::rbcc::{FlowEntry, RbccInterface, RbccProfile, Rcp, RcpProfile};
use netcond::red::{Red, RedProfile, Rio, RioProfile};
use netcond::trtcm::{
    Compact, CompactProfile, PremiumPolicer, PremiumPolicerProfile, Rfc4115, Rfc4115Profile, SrTcm,
    SrTcmProfile, TrTcm, TrTcmProfile,
};

fn row(what: &str, state: usize, profile: usize) {
    println!("| {what} | {state} | {profile} |");
}

fn main() {
    println!("| state machine | state (bytes) | profile (bytes) |");
    println!("|---|---:|---:|");
    row(
        "srTCM (RFC 2697)",
        size_of::<SrTcm>(),
        size_of::<SrTcmProfile>(),
    );
    row(
        "trTCM (RFC 2698)",
        size_of::<TrTcm>(),
        size_of::<TrTcmProfile>(),
    );
    row(
        "RFC 4115 trTCM",
        size_of::<Rfc4115>(),
        size_of::<Rfc4115Profile>(),
    );
    row(
        "srTCM / trTCM / RFC 4115, 16-byte state (`Compact`)",
        size_of::<Compact<TrTcm>>(),
        size_of::<CompactProfile<TrTcmProfile>>(),
    );
    row(
        "EF premium policer",
        size_of::<PremiumPolicer>(),
        size_of::<PremiumPolicerProfile>(),
    );
    row(
        "3sM ET-marker",
        size_of::<EtMarker>(),
        size_of::<EtMarkerProfile>(),
    );
    row(
        "3sM ET-marker as simulated in s4.8",
        size_of::<EtMarkerSim48>(),
        size_of::<EtMarkerSim48Profile>(),
    );
    row(
        "3sM AS-marker",
        size_of::<AsMarker>(),
        size_of::<AsMarkerProfile>(),
    );
    row(
        "RFC 5670 threshold meter",
        size_of::<ThresholdMeter>(),
        size_of::<ThresholdMeterProfile>(),
    );
    row(
        "RFC 5670 excess-traffic meter",
        size_of::<ExcessTrafficMeter>(),
        size_of::<ExcessTrafficMeterProfile>(),
    );
    row(
        "3sM node marker (both meters)",
        size_of::<Node3sm>(),
        size_of::<NodeProfile<EtMarkerProfile, AsMarkerProfile>>(),
    );
    row(
        "RFC 5670 node marker (both meters)",
        size_of::<NodeRfc5670>(),
        size_of::<NodeProfile<ExcessTrafficMeterProfile, ThresholdMeterProfile>>(),
    );
    row("RED", size_of::<Red>(), size_of::<RedProfile>());
    row(
        "RIO / WRED (three colors)",
        size_of::<Rio>(),
        size_of::<RioProfile>(),
    );
    row(
        "RAS EAR estimator",
        size_of::<Ear>(),
        size_of::<EarProfile>(),
    );
    row("RAS profile", 0, size_of::<RasProfile>());
    row(
        "RBCC table row (per flow)",
        size_of::<FlowEntry>(),
        size_of::<RbccProfile>(),
    );
    row(
        "RBCC interface, 1024 flows",
        size_of::<RbccInterface<1024>>(),
        size_of::<RbccProfile>(),
    );
    row("RCP controller", size_of::<Rcp>(), size_of::<RcpProfile>());
}
