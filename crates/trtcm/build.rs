//! Detects `core::hint::select_unpredictable` (Rust 1.88), which the srTCM's
//! and the RFC 4115 marker's fast paths use to keep their decisions
//! branch-free; on an older compiler the same choices are plain `if`s, with
//! the same results (`fast_path::tests::hinted_select_is_the_plain_select`).
//! With the hint, the srTCM's packet takes 3 instructions fewer and the RFC
//! 4115 marker's 1 to 2 (docs/performance.md).
use std::env;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(trtcm_select_unpredictable)");
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
        println!("cargo::rustc-cfg=trtcm_select_unpredictable");
    }
}
