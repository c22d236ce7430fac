//! netcond: `no_std`, allocation-free, fixed-point traffic conditioners.
//!
//! This umbrella crate re-exports the workspace's algorithm crates, each behind a
//! default-on feature of the same name:
//!
//! | module | feature | what |
//! |---|---|---|
//! | [`base`] | always | ticks, rates, exact token buckets, colors, PRNG (crate `netcond-core`) |
//! | `trtcm` | `trtcm` | RFC 2697 srTCM, RFC 2698 trTCM, RFC 4115, EF premium policer |
//! | `pcn` | `pcn-meter` | 3sM and RFC 5670 PCN meters, RFC 6660 encoding, PCN edge |
//! | `red` | `aqm-red` | RED, ECN, WRED/RIO, Adaptive RED, AECN |
//! | `delay` | `aqm-delay` | CoDel (RFC 8289, exact and Linux/ns-3 laws), FQ-CoDel (RFC 8290), PIE (RFC 8033) |
//! | `ras` | `ras-shaper` | RFC 2963 rate adaptive shapers |
//! | `rbcc` | `rbcc-rate` | TRUMP/RBCC max-min rate allocation, RCP |
//!
//! Other features: `std`, `serde` (derives on configurations) and `defmt`
//! (derives `Format` for firmware logging), passed on to every enabled crate;
//! `reference` (the exact reference models) and `invariants` (the invariant
//! checks, for property tests and fuzzers) of the enabled crates.
//!
//! The shared primitives are `netcond::base`, not `netcond::core`: a module
//! named `core` would shadow the language's `core` crate in any module that
//! glob-imports `netcond::*`.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

pub use netcond_core as base;

#[cfg(feature = "trtcm")]
pub use trtcm;

#[cfg(feature = "pcn-meter")]
pub use pcn_meter as pcn;

#[cfg(feature = "aqm-red")]
pub use aqm_red as red;

#[cfg(feature = "aqm-delay")]
pub use aqm_delay as delay;

#[cfg(feature = "ras-shaper")]
pub use ras_shaper as ras;

#[cfg(feature = "rbcc-rate")]
pub use rbcc_rate as rbcc;

/// The README's Rust example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "trtcm"))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctest;
