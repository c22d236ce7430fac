//! TRUMP/RBCC router rate allocation: per-interface max-min fair shares stamped into packets, and an RCP-style controller.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]
