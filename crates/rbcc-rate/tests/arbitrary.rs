//! The `arbitrary` feature: configurations and headers generated from fuzzer
//! bytes, each configuration accepted or refused by its profile without a
//! panic.
#![cfg(feature = "arbitrary")]

use netcond_core::arbitrary::values;
use rbcc_rate::{AckHeader, RateHeader, RbccConfig, RbccProfile, RcpConfig, RcpProfile};

#[test]
fn generated_configurations_are_checked() {
    let rbcc: Vec<RbccConfig> = values(1000, 1).unwrap();
    assert!(rbcc.windows(2).any(|w| w[0] != w[1]));
    let accepted = rbcc.iter().filter(|c| RbccProfile::new(c).is_ok()).count();
    assert!(accepted < rbcc.len());
    let rcp: Vec<RcpConfig> = values(1000, 2).unwrap();
    assert!(rcp.windows(2).any(|w| w[0] != w[1]));
    assert!(rcp.iter().any(|c| RcpProfile::new(c).is_err()));
}

#[test]
fn generated_headers_vary() {
    let rate: Vec<RateHeader> = values(100, 3).unwrap();
    assert!(rate.windows(2).any(|w| w[0] != w[1]));
    let ack: Vec<AckHeader> = values(100, 4).unwrap();
    assert!(ack.windows(2).any(|w| w[0] != w[1]));
}
