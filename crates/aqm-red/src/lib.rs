//! Active queue management: RED, ECN marking, WRED/RIO with three colors, Adaptive RED and AECN, in fixed point.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]
