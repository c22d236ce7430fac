//! Shared helpers for the netcond benchmarks: deterministic packet streams.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use netcond::core::{RandomSource, SplitMix64};

/// The packet-length mix of the meter benches: 64, 576 and 1518 bytes in
/// proportions 4:3:1, as a precomputed table of `n` lengths (a power of two).
#[must_use]
pub fn imix_lengths(n: usize, seed: u64) -> Vec<u32> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| match r.below(8) {
            0..=3 => 64,
            4..=6 => 576,
            _ => 1518,
        })
        .collect()
}

/// A table of `n` pseudo-random flow indices in `0..flows`.
#[must_use]
pub fn flow_indices(n: usize, flows: u32, seed: u64) -> Vec<u32> {
    let mut r = SplitMix64::new(seed);
    (0..n).map(|_| r.below(flows)).collect()
}

/// Mean packet length of [`imix_lengths`]'s mix: (4 x 64 + 3 x 576 + 1518) / 8.
pub const IMIX_MEAN: u64 = (4 * 64 + 3 * 576 + 1518) / 8;

/// Ticks between packets on a 2.3 GHz clock so that the offered load of the
/// 4:3:1 mix is about 80 MB/s: 2.3e9 x mean / 80e6.
pub const BENCH_TICKS_PER_PACKET: u64 = 2_300_000_000 * IMIX_MEAN / 80_000_000;
