//! RFC 2963 rate adaptive shapers (srRAS, trRAS, G-srRAS, G-trRAS) with an exact EAR estimator.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]
