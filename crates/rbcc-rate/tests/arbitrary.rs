//! The `arbitrary` feature: configurations and headers generated from fuzzer
//! bytes, each configuration accepted or refused by its profile without a
//! panic.
#![cfg(feature = "arbitrary")]

use arbitrary::{Arbitrary, Unstructured};
use netcond_core::SplitMix64;
use rbcc_rate::{AckHeader, RateHeader, RbccConfig, RbccProfile, RcpConfig, RcpProfile};

/// `n` values of `T` from seeded bytes.
fn generate<T: for<'a> Arbitrary<'a>>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let bytes: Vec<u8> = (0..64).flat_map(|_| rng.next_u64().to_le_bytes()).collect();
            T::arbitrary(&mut Unstructured::new(&bytes)).unwrap()
        })
        .collect()
}

#[test]
fn generated_configurations_are_checked() {
    let rbcc: Vec<RbccConfig> = generate(1000, 1);
    assert!(rbcc.windows(2).any(|w| w[0] != w[1]));
    let accepted = rbcc.iter().filter(|c| RbccProfile::new(c).is_ok()).count();
    assert!(accepted < rbcc.len());
    let rcp: Vec<RcpConfig> = generate(1000, 2);
    assert!(rcp.windows(2).any(|w| w[0] != w[1]));
    assert!(rcp.iter().any(|c| RcpProfile::new(c).is_err()));
}

#[test]
fn generated_headers_vary() {
    let rate: Vec<RateHeader> = generate(100, 3);
    assert!(rate.windows(2).any(|w| w[0] != w[1]));
    let ack: Vec<AckHeader> = generate(100, 4);
    assert!(ack.windows(2).any(|w| w[0] != w[1]));
}
