//! Detects two hints of `core::hint` that are newer than the crates' minimum
//! Rust version: `select_unpredictable` (Rust 1.88), behind
//! `branchless::select_unpredictable`, and `cold_path` (Rust 1.95), behind
//! `hint::cold_path`. On an older compiler the two functions are a plain
//! `if` and nothing, with the same results; the meters that use them (trtcm's
//! and pcn-meter's fast paths) are then a few instructions longer per packet
//! (docs/performance.md, docs/pcn-meter.md).
use std::env;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(netcond_select_unpredictable)");
    println!("cargo::rustc-check-cfg=cfg(netcond_cold_path)");
    println!("cargo::rerun-if-env-changed=RUSTC");
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| {
            // "rustc 1.88.0 (...)"
            let v = v.split_whitespace().nth(1)?;
            let mut parts = v.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next()?.parse().ok()?;
            Some(if major > 1 { u32::MAX } else { minor })
        });
    if minor.is_some_and(|m| m >= 88) {
        println!("cargo::rustc-cfg=netcond_select_unpredictable");
    }
    if minor.is_some_and(|m| m >= 95) {
        println!("cargo::rustc-cfg=netcond_cold_path");
    }
}
