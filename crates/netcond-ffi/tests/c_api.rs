//! Compiles the C tests in `tests/c/` against `include/netcond.h` and the static
//! library `libnetcond.a` that cargo built for this test, runs them (with
//! `-fsanitize=address,undefined` where the C toolchain has those runtimes),
//! and compares their streams with the same streams through the Rust API.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use core::time::Duration;
use netcond_core::{Color, Instant, Rate, TickRate};
use trtcm::{
    Compact, CompactProfile, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig,
    PremiumPolicerProfile, Rfc4115, Rfc4115Config, Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig,
    SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile,
};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn include_dir() -> PathBuf {
    crate_dir().join("../../include")
}

/// `libnetcond.a`, next to the directory of this test's executable.
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory");
    // `deps` first: it holds the library this `cargo test` built, while the
    // profile directory's copy is whatever `cargo build` left there last.
    for dir in [deps, deps.parent().expect("profile directory")] {
        let lib = dir.join("libnetcond.a");
        if lib.exists() {
            return lib;
        }
    }
    panic!("libnetcond.a not found near {}", deps.display());
}

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("netcond-ffi-c");
    std::fs::create_dir_all(&d).expect("temporary directory");
    d
}

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_owned())
}

/// Whether to build the C tests with AddressSanitizer and UBSan as well:
/// when `NETCOND_C_SANITIZERS=1` (as `.ci/ffi.sh` sets it, after installing
/// libasan8 and libubsan1). Then the C compiler must build and run such a
/// program, or every C test fails: a run that asked for the sanitizers never
/// passes without them. Without the variable, the C tests are built once,
/// plain.
fn sanitizers() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        if std::env::var("NETCOND_C_SANITIZERS").as_deref() != Ok("1") {
            return false;
        }
        let dir = out_dir();
        let src = dir.join("probe.c");
        std::fs::write(&src, "int main(void) { return 0; }\n").expect("write probe");
        let exe = dir.join("probe");
        let built = Command::new(cc())
            .args(["-fsanitize=address,undefined", "-o"])
            .arg(&exe)
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success());
        let ran = built && Command::new(&exe).status().is_ok_and(|s| s.success());
        assert!(
            ran,
            "NETCOND_C_SANITIZERS=1, but this C toolchain cannot build and run \
             -fsanitize=address,undefined: install libasan8 and libubsan1"
        );
        true
    })
}

/// Builds `tests/c/<name>.c` into an executable named after `name`, `test`
/// (each test builds its own: they run in parallel) and `san`, with sanitizers
/// if `san`.
fn build_c(name: &str, test: &str, san: bool) -> PathBuf {
    let src = crate_dir().join("tests/c").join(format!("{name}.c"));
    let exe = out_dir().join(format!("{name}-{test}{}", if san { "-san" } else { "" }));
    let mut cmd = Command::new(cc());
    cmd.args(["-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror"]);
    if san {
        cmd.args([
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]);
    }
    cmd.arg("-I").arg(include_dir()).arg(&src).arg(static_lib());
    cmd.args(["-lpthread", "-ldl", "-lm", "-o"]).arg(&exe);
    let out = cmd.output().expect("run the C compiler");
    assert!(
        out.status.success(),
        "compiling {}: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, args: &[&str]) -> String {
    let out = Command::new(exe)
        .args(args)
        .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        .output()
        .expect("run the C test");
    assert!(
        out.status.success(),
        "{} {:?} failed ({}):\n{}\n{}",
        exe.display(),
        args,
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The stream seeds: two for the plain build, the first only for the
/// sanitized one (which runs several times slower).
fn seeds(san: bool, a: u64, b: u64) -> Vec<u64> {
    if san {
        vec![a]
    } else {
        vec![a, b]
    }
}

fn variants() -> Vec<bool> {
    if sanitizers() {
        vec![false, true]
    } else {
        vec![false]
    }
}

/// Builds `tests/c/<name>.c` and runs its `cases` mode, plain and (when
/// asked) with sanitizers; it must print `passed`.
fn c_cases(name: &str, passed: &str) {
    for san in variants() {
        let out = run(&build_c(name, "cases", san), &["cases"]);
        assert!(out.contains(passed), "{out}");
    }
}

/// Runs `<name> stream SEED` for `seeds` (the sanitized build the first only)
/// and asserts that it prints the lines of `rust(seed)`, one for one; then
/// `check` on those lines (that the stream exercised what it is meant to).
fn c_streams(
    name: &str,
    [a, b]: [u64; 2],
    rust: impl Fn(u64) -> Vec<String>,
    check: impl Fn(Vec<String>),
) {
    for san in variants() {
        let exe = build_c(name, "stream", san);
        for seed in seeds(san, a, b) {
            let c = run(&exe, &["stream", &seed.to_string()]);
            let c: Vec<&str> = c.lines().collect();
            let rust = rust(seed);
            assert_eq!(c.len(), rust.len(), "{name}: one line per run");
            for (c, r) in c.iter().zip(&rust) {
                assert_eq!(*c, r, "{name}: C and Rust differ (seed {seed})");
            }
            check(rust);
        }
    }
}

/// A supplied 64-bit draw, read high half first, as the C calls of PIE,
/// FQ-PIE and DualPI2 read it.
struct Draw(u64, bool);

impl netcond_core::RandomSource for Draw {
    fn next_u32(&mut self) -> u32 {
        self.1 = !self.1;
        if self.1 {
            (self.0 >> 32) as u32
        } else {
            self.0 as u32
        }
    }
}

/// The first `n` counts of a stream line, after its name.
fn counts(line: &str, n: usize) -> Vec<u64> {
    line.split(' ')
        .skip(1)
        .take(n)
        .map(|x| x.parse().unwrap())
        .collect()
}

#[test]
fn header_compiles_as_c99_and_c11() {
    let dir = out_dir();
    let c = dir.join("inc.c");
    std::fs::write(
        &c,
        "#include \"netcond.h\"\n#include \"netcond.h\"\nint main(void) { return NETCOND_OK; }\n",
    )
    .unwrap();
    for std in ["-std=c99", "-std=c11"] {
        let ok = Command::new(cc())
            .args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", "-o"])
            .arg(dir.join("inc.o"))
            .arg("-I")
            .arg(include_dir())
            .arg(&c)
            .status()
            .unwrap()
            .success();
        assert!(ok, "netcond.h with {std}");
    }
}

/// The header compiles as C++17 too (needs a C++ compiler).
#[test]
#[ignore = "needs a C++ compiler: bash .ci/ffi.sh runs it"]
fn header_compiles_as_cxx17() {
    let dir = out_dir();
    let cpp = dir.join("inc.cpp");
    std::fs::write(
        &cpp,
        "#include \"netcond.h\"\nint main() { netcond_trtcm_params p{}; \
         netcond_trtcm_profile q; return netcond_trtcm_profile_config(&q, &p); }\n",
    )
    .unwrap();
    let status = Command::new("c++")
        .args([
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-c",
            "-o",
        ])
        .arg(dir.join("inc_cpp.o"))
        .arg("-I")
        .arg(include_dir())
        .arg(&cpp)
        .status()
        .expect("a C++ compiler (c++): install g++");
    assert!(status.success(), "netcond.h as C++17");
}

#[test]
#[ignore = "needs cbindgen 0.29.4: bash .ci/ffi.sh installs it and runs this"]
fn header_is_fresh() {
    let fresh = out_dir().join("netcond.h");
    let status = Command::new("cbindgen")
        .current_dir(crate_dir())
        .args([
            "--quiet",
            "--config",
            "cbindgen.toml",
            "--crate",
            "netcond-ffi",
            "--output",
        ])
        .arg(&fresh)
        .status();
    let status =
        status.expect("cbindgen does not run here: cargo install cbindgen --version 0.29.4");
    assert!(status.success(), "cbindgen failed");
    let want = std::fs::read_to_string(&fresh).unwrap();
    let have = std::fs::read_to_string(include_dir().join("netcond.h")).unwrap();
    assert!(
        want == have,
        "include/netcond.h differs from a fresh cbindgen run: regenerate it \
         (bash .ci/ffi.sh --regen)"
    );
}

#[test]
fn dpdk_meter_cases_errors_and_bad_arguments() {
    c_cases("meter_test", "all meter cases passed");
}

#[test]
fn profile_update_cases_and_bad_arguments() {
    c_cases("meter_update_test", "all profile update cases passed");
}

#[test]
fn color_table_cases_and_bad_arguments() {
    c_cases("color_table_test", "all color table cases passed");
}

#[test]
fn length_adjustment_cases() {
    c_cases("length_test", "all length adjustment cases passed");
}

// ------------------------------------------------------------- streams

/// SplitMix64, as the C side.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

const PACKETS: u32 = 100_000;

struct Pkt {
    now: u64,
    len: u32,
    color: Color,
}

/// The C side's `next_pkt`.
fn next_pkt(rng: &mut Rng, now: &mut u64) -> Pkt {
    let r = rng.next_u64();
    let step = r % 17_600;
    let kind = (r >> 8) % 1000;
    if kind == 0 && *now > 50_000 {
        *now -= 50_000;
    } else {
        *now += step;
    }
    let mut len = 64 + ((r >> 20) % 1455) as u32;
    if kind == 1 {
        len = 0;
    }
    if kind == 2 {
        len = u32::MAX;
    }
    Pkt {
        now: *now,
        len,
        color: Color::from_index(((r >> 40) % 3) as usize),
    }
}

struct Run {
    counts: [u64; 3],
    hash: u64,
}

impl Run {
    fn new() -> Run {
        Run {
            counts: [0; 3],
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }

    fn add(&mut self, v: usize) {
        self.counts[v] += 1;
        self.hash = (self.hash ^ v as u64).wrapping_mul(0x0100_0000_01b3);
    }

    fn line(&self, name: &str, state: [u64; 3]) -> String {
        format!(
            "{name} {} {} {} {:016x} {} {} {}",
            self.counts[0], self.counts[1], self.counts[2], self.hash, state[0], state[1], state[2]
        )
    }
}

/// Runs the stream through `color` and returns the C program's line for it.
fn stream<S>(
    name: &str,
    seed: u64,
    mut s: S,
    mut color: impl FnMut(&mut S, &Pkt) -> Color,
    read: impl Fn(&S) -> [u64; 3],
) -> String {
    let mut rng = Rng(seed);
    let mut now = 1000;
    let mut run = Run::new();
    for _ in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        run.add(color(&mut s, &k).index());
    }
    run.line(name, read(&s))
}

const HZ: TickRate = TickRate::NANOS;

fn srtcm() -> SrTcmProfile {
    SrTcmProfile::new(
        &SrTcmConfig::new(Rate::from_bytes_per_sec(46_000_000), 2048, 4096).with_tick(HZ),
    )
    .unwrap()
}

fn trtcm() -> TrTcmProfile {
    TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(46_000_000),
            Rate::from_bytes_per_sec(69_000_000),
            2048,
            4096,
        )
        .with_tick(HZ),
    )
    .unwrap()
}

fn rfc4115(ties: Rfc4115Ties) -> Rfc4115Profile {
    Rfc4115Profile::with_ties(
        &Rfc4115Config::new(
            Rate::from_bytes_per_sec(46_000_000),
            Rate::from_bytes_per_sec(69_000_000),
            2048,
            4096,
        )
        .with_tick(HZ),
        ties,
    )
    .unwrap()
}

fn t(x: u64) -> Instant {
    Instant::from_ticks(x)
}

/// The Rust side of `meter_test stream SEED`, line by line.
fn rust_streams(seed: u64) -> Vec<String> {
    let start = t(1000);
    let sp = srtcm();
    let tp = trtcm();
    let fig = rfc4115(Rfc4115Ties::Figure1);
    let text = rfc4115(Rfc4115Ties::Text);
    let csp = CompactProfile::new(sp).unwrap();
    let ctp = CompactProfile::new(tp).unwrap();
    let cep = CompactProfile::new(text).unwrap();
    let sr = |s: &SrTcm| [s.tc(), s.te(), s.last().ticks()];
    let tr = |s: &TrTcm| [s.tc(), s.tp(), s.last().ticks()];
    let er = |s: &Rfc4115| [s.tc(), s.te(), s.last().ticks()];
    let mut lines = vec![
        stream(
            "srtcm_blind",
            seed,
            SrTcm::new(&sp, start),
            |s, k| s.color_blind(&sp, t(k.now), k.len),
            sr,
        ),
        stream(
            "srtcm_aware",
            seed,
            SrTcm::new(&sp, start),
            |s, k| s.color_aware(&sp, t(k.now), k.len, k.color),
            sr,
        ),
        stream(
            "trtcm_blind",
            seed,
            TrTcm::new(&tp, start),
            |s, k| s.color_blind(&tp, t(k.now), k.len),
            tr,
        ),
        stream(
            "trtcm_aware",
            seed,
            TrTcm::new(&tp, start),
            |s, k| s.color_aware(&tp, t(k.now), k.len, k.color),
            tr,
        ),
        stream(
            "rfc4115_figure1_blind",
            seed,
            Rfc4115::new(&fig, start),
            |s, k| s.color_blind(&fig, t(k.now), k.len),
            er,
        ),
        stream(
            "rfc4115_text_aware",
            seed,
            Rfc4115::new(&text, start),
            |s, k| s.color_aware(&text, t(k.now), k.len, k.color),
            er,
        ),
        stream(
            "srtcm_compact_aware",
            seed,
            Compact::<SrTcm>::new(&csp, start),
            |s, k| s.color_aware(&csp, t(k.now), k.len, k.color),
            |s| sr(&s.to_state()),
        ),
        stream(
            "trtcm_compact_blind",
            seed,
            Compact::<TrTcm>::new(&ctp, start),
            |s, k| s.color_blind(&ctp, t(k.now), k.len),
            |s| tr(&s.to_state()),
        ),
        stream(
            "rfc4115_compact_blind",
            seed,
            Compact::<Rfc4115>::new(&cep, start),
            |s, k| s.color_blind(&cep, t(k.now), k.len),
            |s| er(&s.to_state()),
        ),
    ];
    // The policer, as the C side drives it.
    let pp = PremiumPolicerProfile::new(
        &PremiumPolicerConfig::new(Rate::from_bytes_per_sec(20_480), 11_000, 13_000, 1500)
            .with_tick(HZ),
    )
    .unwrap();
    let mut m = PremiumPolicer::new(&pp, start);
    let mut rng = Rng(seed);
    let mut now = 1000;
    let mut run = Run::new();
    for i in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        now += 30_000_000;
        let v: PolicerVerdict = m.offer(&pp, t(now), k.len);
        run.add(v.index());
        if i % 16 == 15 {
            m.dequeued(1500);
        }
    }
    lines.push(run.line("policer", [m.tokens(), m.backlog(), m.last().ticks()]));
    lines
}

#[test]
fn streams_through_c_equal_streams_through_rust() {
    c_streams("meter_test", [1u64, 0xdead_beef], rust_streams, |rust| {
        // The stream exercised every color (so the comparison means something).
        for line in &rust {
            let f = counts(line, 3);
            assert!(f.iter().all(|&n| n > 0), "{line}");
        }
    });
}

// ------------------------------------------------------------- RED family

#[path = "c_api/red.rs"]
mod red;

#[test]
fn docs_trtcm_example_runs() {
    for san in variants() {
        let exe = build_c("trtcm_example", "docs", san);
        let out = run(&exe, &[]);
        assert_eq!(out.trim(), "green 668 yellow 669 red 664");
    }
}

// ------------------------------------------------------------- PCN

#[path = "c_api/pcn.rs"]
mod pcn;

// ------------------------------------------------------------- RBCC

#[path = "c_api/rbcc.rs"]
mod rbcc;

// ------------------------------------------------------------- RAS

#[path = "c_api/ras.rs"]
mod ras;

#[path = "c_api/ras_core.rs"]
mod ras_core;

#[path = "c_api/aecn.rs"]
mod aecn;

#[path = "c_api/et48.rs"]
mod et48;

#[path = "c_api/egress3sm.rs"]
mod egress3sm;

#[path = "c_api/green_ras.rs"]
mod green_ras;

#[path = "c_api/codel.rs"]
mod codel;

#[path = "c_api/tbf.rs"]
mod tbf;

#[path = "c_api/meter_counted.rs"]
mod meter_counted;
/// Every profile constructor refuses a non-zero `reserved` field
/// (`tests/c/reserved_test.c`).
#[test]
fn reserved_fields_must_be_zero() {
    c_cases("reserved_test", "all reserved-field cases passed");
}

#[path = "c_api/pie.rs"]
mod pie;

#[path = "c_api/dualpi2.rs"]
mod dualpi2;

#[path = "c_api/fq_pie.rs"]
mod fq_pie;
