//! Three-color markers: RFC 2697 srTCM, RFC 2698 trTCM, RFC 4115 trTCM, and a single-rate EF premium policer.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]
