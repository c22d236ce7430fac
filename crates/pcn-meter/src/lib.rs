//! Pre-Congestion Notification: three-state PCN marking (3sM), RFC 5670 meters, RFC 6660 encoding, PCN edge admission and flow termination.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]
