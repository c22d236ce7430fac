//! Tests that span the crate's markers and policer.

mod pairs;
mod quiet_checks;
mod two_bucket;
