//! Detects `core::hint::select_unpredictable` (Rust 1.88), which the meters
//! use to keep their marking decisions branch-free, and `core::hint::cold_path`
//! (Rust 1.95), which keeps the rare backwards step of the clock a branch; on
//! an older compiler they fall back to a plain `if`, with the same results
//! (`units::tests::hinted_select_is_the_plain_select`). The two hints save
//! 14.6 % of the instructions of the RFC 5670 excess meter in size-independent
//! mode (one link), and up to 7.3 % on the other meters (docs/pcn-meter.md).
use std::env;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(pcn_select_unpredictable)");
    println!("cargo::rustc-check-cfg=cfg(pcn_cold_path)");
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
        println!("cargo::rustc-cfg=pcn_select_unpredictable");
    }
    if minor.is_some_and(|m| m >= 95) {
        println!("cargo::rustc-cfg=pcn_cold_path");
    }
}
