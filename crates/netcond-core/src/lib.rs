//! Shared primitives of the netcond traffic conditioners.
//!
//! Every netcond state machine is called once per packet with a timestamp and a
//! length, and this crate holds what they have in common:
//!
//! - [`Instant`] and [`TickRate`]: time as a `u64` count of ticks of a clock whose
//!   frequency is fixed when a profile is built (nanoseconds by default, or CPU
//!   cycles, microseconds, ...). Elapsed time is computed with wrapping (serial
//!   number) arithmetic, and a timestamp older than the last one seen counts as zero
//!   elapsed time, so a clock that steps backwards never creates tokens. A step of
//!   2^63 ticks or more (modulo 2^64) reads as a step backwards too: no time passes,
//!   and none until the clock reads less than 2^63 ticks after the last instant
//!   seen ([`Instant`] states the rule exactly).
//! - [`Rate`]: an information rate, kept exactly in bits per second; it and
//!   [`ByteSize`] parse tc's units (`10mbit`, `32k`, see [`units`]).
//! - [`BucketProfile`]: the exact token bucket the meters share. Tokens are counted
//!   in units of `1/scale` byte where `scale` is chosen at configuration time so that
//!   one clock tick adds a whole number of units: refilling is one multiply, testing
//!   a packet is one multiply, and there is no rounding at all. Over any interval whose
//!   timestamps are each less than 2^63 ticks after the one before, the bucket hands
//!   out at most `size + rate x time` bytes, and exactly that, to within one packet,
//!   to a stream that keeps it busy.
//! - [`Color`]: the green / yellow / red of the three-color markers, and
//!   [`ColorTable`]: a packet's input color from its DSCP or VLAN PCP (with
//!   RFC 2597's AF drop precedences as a ready table).
//! - [`SplitMix64`] and the [`RandomSource`] trait: a small seedable PRNG for the
//!   RED family, or any source the caller supplies (a hardware RNG, a replayed trace).
//! - [`branchless`]: masks from the borrow of a subtraction (`fits`, `borrow`,
//!   `mask`), `select` and a saturation, for per-packet decisions that follow the
//!   traffic and so must not become conditional branches.
//! - [`hint::prefetch`]: a cache prefetch hint for callers that meter packets
//!   against a large table of states and know the next packets' flows (the
//!   only `unsafe` code of the library crates, one instruction; a no-op under
//!   Miri and on targets other than `x86_64` and `aarch64`).
//! - [`LengthAdjust`]: the bytes a packet is charged as Linux `tc` counts them
//!   (`overhead`, `mpu`, `linklayer atm`), for a caller to apply before metering.
//! - [`State`] and [`WithProfile`]: a state started from a profile at an
//!   instant (`start(&profile, now)`, every library state's `new`), and the one
//!   pair of a profile and a state for single-flow users ([`impl_state!`]
//!   implements the trait from a state's `new`).
//! - `serde_array` (feature `serde`): serde for arrays of any length, as
//!   `#[serde(with = "netcond_core::serde_array")]` on a `[T; N]` field.
//! - [`config_error!`]: the convention for configuration errors: small `Copy` enums,
//!   one variant per rule, each with a message naming the rule it enforces.
//!
//! # Configuration rules
//!
//! [`BucketProfile::new`] refuses a byte or a bucket of 2^62 token units or more
//! ([`BucketError::TooLarge`]); a zero rate (a bucket that never refills) and a zero
//! size (a bucket that never holds a token) are accepted here and refused by the
//! meters whose sources make them meaningless. A tick rate of 0 Hz cannot be
//! built ([`TickRate::from_hz`] returns `None`). [`Rate`] and [`ByteSize`] parsing
//! refuses, one [`ParseUnitError`] variant each: an empty value, a value that is not
//! a number, a negative one, an unknown unit, a fraction of a bit per second or of
//! a byte, and a value above `u64::MAX`.
//!
//! # Example
//!
//! ```
//! use netcond_core::{BucketProfile, Instant, Rate, TickRate};
//!
//! // 1 MB/s, 1500-byte bucket, nanosecond ticks.
//! let b = BucketProfile::new(Rate::from_bytes_per_sec(1_000_000), 1500, TickRate::NANOS).unwrap();
//! let mut tokens = b.full();
//! let mut last = Instant::from_ticks(0);
//! assert!(tokens >= b.cost(1500));
//! tokens -= b.cost(1500); // take a full packet
//! // 750 us later, 750 bytes have arrived, exactly.
//! let dt = last.advance_to(Instant::from_ticks(750_000));
//! tokens = b.refill(tokens, dt);
//! assert_eq!(b.whole_bytes(tokens), 750);
//! ```
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]
// The one exception to `forbid(unsafe_code)` in the library crates is
// `hint::prefetch` (its safety argued there): `deny` here, since `forbid`
// cannot be lifted for one function, and `forbid` on every other module.
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

#[cfg(feature = "arbitrary")]
#[forbid(unsafe_code)]
pub mod arbitrary;
#[forbid(unsafe_code)]
pub mod branchless;
#[forbid(unsafe_code)]
mod bucket;
#[forbid(unsafe_code)]
pub mod burst;
#[forbid(unsafe_code)]
mod color;
#[forbid(unsafe_code)]
mod color_table;
#[forbid(unsafe_code)]
mod error;
pub mod hint;
#[forbid(unsafe_code)]
mod length;
#[forbid(unsafe_code)]
mod rate;
#[forbid(unsafe_code)]
mod rng;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
#[forbid(unsafe_code)]
pub mod serde_array;
#[forbid(unsafe_code)]
mod state;
#[forbid(unsafe_code)]
mod time;
#[forbid(unsafe_code)]
pub mod units;

pub use bucket::{BucketError, BucketProfile};
pub use color::Color;
pub use color_table::ColorTable;
pub use length::LengthAdjust;
pub use rate::Rate;
pub use rng::{RandomSource, SplitMix64};
pub use state::{State, WithProfile};
pub use time::{Instant, TickRate};
pub use units::{ByteSize, ParseUnitError};

/// Greatest common divisor (Euclid). `gcd(0, b) == b`.
#[must_use]
pub const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}
