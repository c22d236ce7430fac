//! The `arbitrary` feature: configurations generated from fuzzer bytes, each
//! accepted or refused by its profile without a panic.
#![cfg(feature = "arbitrary")]

use arbitrary::{Arbitrary, Unstructured};
use netcond_core::SplitMix64;
use ras_shaper::{SrRasConfig, SrRasProfile, TbfConfig, TbfProfile, TrRasConfig, TrRasProfile};

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
    let sr: Vec<SrRasConfig> = generate(1000, 1);
    assert!(sr.windows(2).any(|w| w[0] != w[1]));
    assert!(sr.iter().any(|c| SrRasProfile::new(c).is_err()));
    let tr: Vec<TrRasConfig> = generate(1000, 2);
    assert!(tr.windows(2).any(|w| w[0] != w[1]));
    assert!(tr.iter().any(|c| TrRasProfile::new(c).is_err()));
    let tbf: Vec<TbfConfig> = generate(1000, 3);
    assert!(tbf.windows(2).any(|w| w[0] != w[1]));
    assert!(tbf.iter().any(|c| TbfProfile::new(c).is_err()));
}
