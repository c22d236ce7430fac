//! The `arbitrary` feature: configurations generated from fuzzer bytes, each
//! accepted or refused by its profile without a panic.
#![cfg(feature = "arbitrary")]

use netcond_core::arbitrary::values;
use ras_shaper::{SrRasConfig, SrRasProfile, TbfConfig, TbfProfile, TrRasConfig, TrRasProfile};

#[test]
fn generated_configurations_are_checked() {
    let sr: Vec<SrRasConfig> = values(1000, 1).unwrap();
    assert!(sr.windows(2).any(|w| w[0] != w[1]));
    assert!(sr.iter().any(|c| SrRasProfile::new(c).is_err()));
    let tr: Vec<TrRasConfig> = values(1000, 2).unwrap();
    assert!(tr.windows(2).any(|w| w[0] != w[1]));
    assert!(tr.iter().any(|c| TrRasProfile::new(c).is_err()));
    let tbf: Vec<TbfConfig> = values(1000, 3).unwrap();
    assert!(tbf.windows(2).any(|w| w[0] != w[1]));
    assert!(tbf.iter().any(|c| TbfProfile::new(c).is_err()));
}
