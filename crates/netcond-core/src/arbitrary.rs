//! Values of any [`Arbitrary`](::arbitrary::Arbitrary) type from a seed, for
//! property tests and fuzzers that want many varied configurations or inputs
//! without a fuzzer to feed them bytes (feature `arbitrary`).
//!
//! Each value is built from 512 bytes of a [`SplitMix64`] stream started at
//! the seed, so the same seed gives the same values on every platform.
//!
//! ```
//! use netcond_core::{arbitrary::values, Rate};
//!
//! let rates: Vec<Rate> = values(100, 7).unwrap();
//! assert_eq!(rates.len(), 100);
//! assert_eq!(rates, values::<Rate>(100, 7).unwrap());
//! assert!(rates.windows(2).any(|w| w[0] != w[1]));
//! ```

use std::vec::Vec;

use ::arbitrary::{Arbitrary, Result, Unstructured};

use crate::SplitMix64;

/// The bytes each value is built from: enough for every configuration of the
/// library crates to take each field from fresh bytes.
pub const BYTES_PER_VALUE: usize = 512;

/// One value of `T` from the next [`BYTES_PER_VALUE`] bytes of `rng`.
///
/// # Errors
/// `T::arbitrary`'s error, for a type that refuses some byte strings.
pub fn next_value<T: for<'a> Arbitrary<'a>>(rng: &mut SplitMix64) -> Result<T> {
    let mut bytes = [0u8; BYTES_PER_VALUE];
    for chunk in bytes.chunks_exact_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    T::arbitrary(&mut Unstructured::new(&bytes))
}

/// `n` values of `T`, each from its own [`BYTES_PER_VALUE`] bytes of one
/// [`SplitMix64`] stream started at `seed`.
///
/// # Errors
/// The first error of `T::arbitrary`, for a type that refuses some byte
/// strings.
pub fn values<T: for<'a> Arbitrary<'a>>(n: usize, seed: u64) -> Result<Vec<T>> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| next_value(&mut rng)).collect()
}
