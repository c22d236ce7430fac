//! Nothing happens here unless the `dpdk` feature is on. With it, the C shim
//! `dpdk/shim.c` is compiled (-O3, -march=x86-64 as the Rust side) and linked
//! with DPDK's libraries as `pkg-config --libs libdpdk` lists them (Debian:
//! `apt-get install libdpdk-dev`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_DPDK").is_some() {
        #[cfg(feature = "dpdk")]
        dpdk::build();
    }
}

#[cfg(feature = "dpdk")]
mod dpdk {
    use std::process::Command;

    fn pkg_config(arg: &str) -> Vec<String> {
        let out = Command::new("pkg-config")
            .args([arg, "libdpdk"])
            .output()
            .expect("the dpdk feature needs pkg-config");
        assert!(
            out.status.success(),
            "pkg-config found no libdpdk: the dpdk feature needs DPDK's headers and \
             libraries (Debian: apt-get install libdpdk-dev)"
        );
        String::from_utf8(out.stdout)
            .expect("pkg-config prints text")
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    pub fn build() {
        println!("cargo:rerun-if-changed=dpdk/shim.c");
        println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
        let mut cc = cc::Build::new();
        cc.file("dpdk/shim.c")
            .opt_level(3)
            // DPDK's own --cflags carry -march=corei7; the shim is built for
            // the same CPU as the Rust code instead (rustc's default).
            .flag("-march=x86-64")
            .flag("-include")
            .flag("rte_config.h")
            // rte_pie's functions are experimental API in DPDK 22.11.
            .define("ALLOW_EXPERIMENTAL_API", None)
            .warnings(true);
        for f in pkg_config("--cflags-only-I") {
            if let Some(dir) = f.strip_prefix("-I") {
                cc.include(dir);
            }
        }
        cc.compile("netcond_dpdk_shim");
        for f in pkg_config("--libs") {
            if let Some(dir) = f.strip_prefix("-L") {
                println!("cargo:rustc-link-search=native={dir}");
            } else if let Some(lib) = f.strip_prefix("-l") {
                println!("cargo:rustc-link-lib={lib}");
            }
        }
        // ceil() in the profile rule.
        println!("cargo:rustc-link-lib=m");
    }
}
