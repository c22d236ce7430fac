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

mod red {
    use super::*;
    use aqm_red::{
        AdaptiveConfig, AdaptiveRed, Decision, Ecn, Packet, Precedence, QueueSettings, QueueUnit,
        Red, RedConfig, RedProfile, Rio, RioConfig, RioMode, RioProfile, Spreading, Supplied,
        U32F32,
    };
    use netcond_core::SplitMix64;

    const PACKETS: u32 = 100_000;

    fn prob(num: u64, den: u64) -> U32F32 {
        U32F32::from_bits((num << 32) / den)
    }

    struct Arrival {
        now: u64,
        q: u32,
        len: u32,
        ecn: Ecn,
        color: Color,
        draw: u32,
        emptied: bool,
    }

    /// The C side's `next_arrival`.
    fn next_arrival(rng: &mut Rng, now: &mut u64, q: &mut u32) -> Arrival {
        let r = rng.next_u64();
        *now += (r >> 8) % 2_000_000;
        let phase = (*now / 100_000_000) % 200;
        let center = 10 + if phase < 100 { phase } else { 200 - phase } as u32;
        let pull = if *q < center { 1 } else { -1 };
        let step = (r % 5) as i64 - 2 + ((r >> 3) & 1) as i64 * pull;
        if step < 0 && *q < 2 {
            *q = 0;
        } else {
            *q = (*q as i64 + step) as u32;
        }
        *q = (*q).min(110);
        let emptied = (r >> 30) & 4095 == 0;
        if emptied {
            *q = 0;
        }
        Arrival {
            now: *now,
            q: *q,
            len: 64 + ((r >> 36) % 1455) as u32,
            ecn: Ecn::from_bits(((r >> 50) & 3) as u8),
            color: Color::from_index(((r >> 52) % 3) as usize),
            draw: (rng.next_u64() >> 32) as u32,
            emptied,
        }
    }

    struct Tally {
        counts: [u64; 4],
        hash: u64,
    }

    impl Tally {
        fn new() -> Tally {
            Tally {
                counts: [0; 4],
                hash: 0xcbf2_9ce4_8422_2325,
            }
        }
        fn add(&mut self, d: Decision) {
            let v = d.index();
            self.counts[v] += 1;
            self.hash = (self.hash ^ v as u64).wrapping_mul(0x0100_0000_01b3);
        }
        fn line(&self, name: &str, variant: u32, avg: U32F32) -> String {
            let c = self.counts;
            format!(
                "{name}{variant} {} {} {} {} {:016x} {}",
                c[0],
                c[1],
                c[2],
                c[3],
                self.hash,
                avg.to_bits()
            )
        }
    }

    fn base() -> RedConfig {
        RedConfig::packets(20, 60, prob(1, 10), prob(1, 500), 100)
    }

    fn variant(v: u32) -> RedConfig {
        let mut c = base();
        c.queue.spreading = [
            Spreading::Accumulated,
            Spreading::AccumulatedDpdk,
            Spreading::Uniform,
            Spreading::UniformCountFirst,
            Spreading::Dpdk,
            Spreading::Geometric,
        ][(v % 6) as usize];
        if v >= 6 {
            c.queue.unit = QueueUnit::Bytes;
            c.min_th = 20_000;
            c.max_th = 60_000;
            c.queue.limit = 100_000;
            c.queue.gentle = true;
            c.queue.byte_mode = Some(1500);
            c.queue.ecn = true;
            c.queue.ecn_drop_th = Some(80_000);
            c.queue.w_q = prob(1, 512);
        }
        c
    }

    fn rio(mode: RioMode) -> RioConfig {
        let p = Precedence::new;
        RioConfig::new(
            mode,
            prob(1, 512),
            [
                p(40, 70, prob(1, 50)),
                p(25, 50, prob(1, 10)),
                p(10, 30, prob(1, 5)),
            ],
            100,
        )
        .with_queue(
            QueueSettings::new(prob(1, 512), 100)
                .with_unit(QueueUnit::Packets)
                .with_typical_tx(std::time::Duration::from_micros(1200))
                .with_spreading(Spreading::Accumulated),
        )
    }

    /// The Rust side of `red_test stream SEED`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for v in 0..12 {
            for supplied in [false, true] {
                let cfg = variant(v);
                let p = RedProfile::new(&cfg).unwrap();
                let mut m = Red::new(&p, t(0));
                let mut gen = SplitMix64::new(seed ^ 0x5555);
                let mut rng = Rng(seed);
                let (mut now, mut q) = (0, 0);
                let mut tally = Tally::new();
                for _ in 0..PACKETS {
                    let a = next_arrival(&mut rng, &mut now, &mut q);
                    let ql = if cfg.queue.unit == QueueUnit::Bytes {
                        a.q * 1000
                    } else {
                        a.q
                    };
                    if a.emptied {
                        m.on_queue_empty(t(a.now - 1));
                    }
                    let pkt = Packet::new(a.len, a.ecn);
                    let d = if supplied {
                        m.on_arrival(&p, t(a.now), ql, pkt, &mut Supplied(a.draw))
                    } else {
                        m.on_arrival(&p, t(a.now), ql, pkt, &mut gen)
                    };
                    tally.add(d);
                }
                let name = if supplied { "red_draw" } else { "red_rng" };
                lines.push(tally.line(name, v, m.avg(&p)));
            }
        }
        for (i, mode) in [RioMode::Coupled, RioMode::Decoupled, RioMode::Wred]
            .into_iter()
            .enumerate()
        {
            let p = RioProfile::new(&rio(mode)).unwrap();
            let mut m = Rio::new(&p, t(0));
            let mut gen = SplitMix64::new(seed ^ 0x7777);
            let mut rng = Rng(seed);
            let (mut now, mut q) = (0, 0);
            let mut tally = Tally::new();
            for k in 0..PACKETS {
                let a = next_arrival(&mut rng, &mut now, &mut q);
                let q3 = [a.q / 2, a.q / 3, a.q - a.q / 2 - a.q / 3];
                if a.emptied {
                    m.on_queue_empty(t(a.now - 1));
                }
                let pkt = Packet::new(a.len, a.ecn);
                let d = if k % 2 == 1 {
                    m.on_arrival(&p, t(a.now), q3, a.color, pkt, &mut gen)
                } else {
                    m.on_arrival(&p, t(a.now), q3, a.color, pkt, &mut Supplied(a.draw))
                };
                tally.add(d);
            }
            lines.push(tally.line("rio", i as u32, m.avg(&p, Color::Yellow)));
        }
        let mut ar = AdaptiveRed::new(&base(), &AdaptiveConfig::new(500_000_000), t(0)).unwrap();
        let mut gen = SplitMix64::new(seed ^ 0x9999);
        let mut rng = Rng(seed);
        let (mut now, mut q) = (0, 0);
        let mut tally = Tally::new();
        for k in 0..PACKETS {
            let a = next_arrival(&mut rng, &mut now, &mut q);
            if a.emptied {
                ar.on_queue_empty(t(a.now - 1));
            }
            let pkt = Packet::new(a.len, a.ecn);
            let d = if k % 2 == 1 {
                ar.on_arrival(t(a.now), a.q, pkt, &mut gen)
            } else {
                ar.on_arrival(t(a.now), a.q, pkt, &mut Supplied(a.draw))
            };
            tally.add(d);
        }
        lines.push(tally.line("adaptive", 0, ar.red().avg(ar.profile())));
        lines.push(format!("adaptive_max_p {}", ar.max_p().to_bits()));
        lines
    }

    #[test]
    fn red_cases_errors_and_bad_arguments() {
        c_cases("red_test", "all RED cases passed");
    }

    #[test]
    fn red_streams_through_c_equal_streams_through_rust() {
        c_streams("red_test", [3u64, 0x1234_5678_9abc], rust_streams, |rust| {
            // Each queue saw early drops or marks and forced drops.
            for line in rust.iter().filter(|l| !l.starts_with("adaptive_max_p")) {
                let f = counts(line, 4);
                assert!(f[0] > 0 && f[1] + f[2] > 0 && f[3] > 0, "{line}");
            }
        });
    }
}

#[test]
fn docs_trtcm_example_runs() {
    for san in variants() {
        let exe = build_c("trtcm_example", "docs", san);
        let out = run(&exe, &[]);
        assert_eq!(out.trim(), "green 668 yellow 669 red 664");
    }
}

// ------------------------------------------------------------- PCN

mod pcn {
    use super::*;
    use pcn_meter::{
        AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, ClassicTie, EtMarker, EtMarkerConfig,
        EtMarkerProfile, EtMarking, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig,
        ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670, PcnMark, PcnMeter,
        ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
    };

    const PACKETS: u32 = 100_000;

    struct Pkt {
        now: u64,
        len: u32,
        mark: PcnMark,
    }

    /// The C side's `next_pkt`.
    fn next_pkt(rng: &mut Rng, now: &mut u64) -> Pkt {
        let r = rng.next_u64();
        let kind = (r >> 8) % 1000;
        let m = (r >> 40) % 8;
        if kind == 0 && *now > 1_000_000 {
            *now -= 1_000_000;
        } else {
            *now += r % 900_000;
        }
        let mut len = 64 + ((r >> 20) % 1455) as u32;
        if kind == 1 {
            len = 0;
        }
        if kind == 2 {
            len = u32::MAX;
        }
        let code = match m {
            0..=4 => 2,
            7 => 3,
            _ => (m - 5) as u8,
        };
        Pkt {
            now: *now,
            len,
            mark: PcnMark::from_ecn(code),
        }
    }

    fn stream(
        name: &str,
        variant: u32,
        seed: u64,
        mut mark: impl FnMut(u64, u32, PcnMark) -> PcnMark,
    ) -> String {
        let mut rng = Rng(seed);
        let mut now = 0;
        let mut counts = [0u64; 4];
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for _ in 0..PACKETS {
            let k = next_pkt(&mut rng, &mut now);
            let v = mark(k.now, k.len, k.mark).ecn() as u64;
            counts[v as usize] += 1;
            hash = (hash ^ v).wrapping_mul(0x0100_0000_01b3);
        }
        format!(
            "{name}{variant} {} {} {} {} {hash:016x}",
            counts[0], counts[1], counts[2], counts[3]
        )
    }

    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for v in 0..3u32 {
            let p = EtMarkerProfile::new(
                &EtMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_000_000), 30_000, 3000)
                    .with_already_et_adds_s(v != 1)
                    .with_marking(if v == 2 {
                        EtMarking::SizeIndependent { mtu: 1500 }
                    } else {
                        EtMarking::TailMarking
                    })
                    .with_tick(HZ),
            )
            .unwrap();
            let mut m = EtMarker::new(&p, t(0));
            lines.push(stream("et", v, seed, |n, l, k| m.mark(&p, t(n), l, k)));
        }
        for (v, form) in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01]
            .into_iter()
            .enumerate()
        {
            let p = AsMarkerProfile::new(
                &AsMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                    .with_form(form)
                    .with_tick(HZ),
            )
            .unwrap();
            let mut m = AsMarker::new(&p, t(0));
            lines.push(stream("as", v as u32, seed, |n, l, k| {
                m.mark(&p, t(n), l, k)
            }));
        }
        let p = ThresholdMeterProfile::new(
            &ThresholdMeterConfig::new(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                .with_tick(HZ),
        )
        .unwrap();
        let mut m = ThresholdMeter::new(&p, t(0));
        lines.push(stream("tm", 0, seed, |n, l, k| m.mark(&p, t(n), l, k)));
        let modes = [
            ExcessMode::SizeIndependent,
            ExcessMode::Classic(ClassicTie::Section2_4),
            ExcessMode::Classic(ClassicTie::AppendixB6),
        ];
        for (v, mode) in modes.into_iter().enumerate() {
            let p = ExcessTrafficMeterProfile::new(
                &ExcessTrafficMeterConfig::new(Rate::from_bytes_per_sec(1_000_000), 30_000)
                    .with_mode(mode)
                    .with_tick(HZ),
            )
            .unwrap();
            let mut m = ExcessTrafficMeter::new(&p, t(0));
            lines.push(stream("etm", v as u32, seed, |n, l, k| {
                m.mark(&p, t(n), l, k)
            }));
        }
        let p3 = NodeProfile {
            excess: EtMarkerProfile::new(
                &EtMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_000_000), 30_000, 3000)
                    .with_tick(HZ),
            )
            .unwrap(),
            threshold: AsMarkerProfile::new(
                &AsMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                    .with_tick(HZ),
            )
            .unwrap(),
        };
        let mut m = <Node3sm as PcnMeter>::start(&p3, t(0));
        lines.push(stream("node3sm", 0, seed, |n, l, k| {
            m.mark(&p3, t(n), l, k)
        }));
        let p5 = NodeProfile {
            excess: ExcessTrafficMeterProfile::new(
                &ExcessTrafficMeterConfig::new(Rate::from_bytes_per_sec(1_000_000), 30_000)
                    .with_mode(ExcessMode::Classic(ClassicTie::Section2_4))
                    .with_tick(HZ),
            )
            .unwrap(),
            threshold: ThresholdMeterProfile::new(
                &ThresholdMeterConfig::new(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                    .with_tick(HZ),
            )
            .unwrap(),
        };
        let mut m = <NodeRfc5670 as PcnMeter>::start(&p5, t(0));
        lines.push(stream("node5670", 0, seed, |n, l, k| {
            m.mark(&p5, t(n), l, k)
        }));
        lines.extend(edge_streams(seed));
        lines
    }

    /// The C side's stop-blocking and CLE admission streams.
    fn edge_streams(seed: u64) -> Vec<String> {
        use pcn_meter::{
            per_mille, Admission, CleAdmission, CleAdmissionConfig, CleAdmissionProfile,
            StopBlockingConfig, StopBlockingProfile, StopBlockingTimer,
        };
        const FNV: u64 = 0x0100_0000_01b3;
        let sp = StopBlockingProfile::new(
            &StopBlockingConfig::new(Duration::from_millis(1), false).with_tick(HZ),
        )
        .unwrap();
        let cp = CleAdmissionProfile::new(
            &CleAdmissionConfig::new(Duration::from_millis(20), per_mille(300), per_mille(200))
                .with_tick(HZ),
        )
        .unwrap();
        let mut tmr = StopBlockingTimer::new(&sp, t(0));
        let mut ca = CleAdmission::new(&cp, t(0));
        let mut rng = Rng(seed);
        let mut now = 0;
        let (mut c1, mut h1) = ([0u64; 4], 0xcbf2_9ce4_8422_2325u64);
        let (mut c2, mut h2) = ([0u64; 4], 0xcbf2_9ce4_8422_2325u64);
        let adm = |a: Admission| u64::from(a == Admission::Block);
        for _ in 0..PACKETS {
            let k = next_pkt(&mut rng, &mut now);
            if k.mark == PcnMark::Etm {
                let v = u64::from(tmr.on_block(&sp, t(k.now)));
                c1[v as usize] += 1;
                h1 = (h1 ^ v).wrapping_mul(FNV);
            }
            if let Some(at) = tmr.poll(&sp, t(k.now)) {
                h1 = (h1 ^ at.ticks()).wrapping_mul(FNV);
            }
            let v = adm(tmr.admission()) + 2;
            c1[v as usize] += 1;
            h1 = (h1 ^ v).wrapping_mul(FNV);
            ca.on_packet(&cp, t(k.now), k.len, k.mark);
            if let Some(d) = ca.poll(&cp, t(k.now)) {
                let v = adm(d.admission) + 2 * u64::from(d.changed);
                c2[v as usize] += 1;
                h2 = (h2 ^ v).wrapping_mul(FNV);
                h2 = (h2 ^ d.cle.marked ^ (d.cle.total << 20) ^ d.end.ticks()).wrapping_mul(FNV);
            }
        }
        let line = |name: &str, c: [u64; 4], h: u64| {
            format!("{name}0 {} {} {} {} {h:016x}", c[0], c[1], c[2], c[3])
        };
        let mut lines = vec![line("stopblock", c1, h1), line("cle", c2, h2)];
        lines.extend((0..2).map(|b| egress_stream(seed, b)));
        lines
    }

    /// The C side's egress and decision stream for behaviour `b` (0 CL, 1 SM).
    fn egress_stream(seed: u64, b: u32) -> String {
        use fixed::types::{U16F16, U1F31};
        use pcn_meter::{
            per_mille, Admission, DecisionConfig, DecisionPoint, DecisionProfile, EdgeBehaviour,
            EgressMeter, EgressMeterConfig, EgressMeterProfile, Suppression, Termination,
        };
        const FNV: u64 = 0x0100_0000_01b3;
        let behaviour = if b == 0 {
            EdgeBehaviour::ControlledLoad
        } else {
            EdgeBehaviour::SingleMarking {
                u: U16F16::from_bits(3 << 15),
            }
        };
        let ep = EgressMeterProfile::new(
            &EgressMeterConfig::controlled_load()
                .with_behaviour(behaviour)
                .with_t_meas(Duration::from_millis(20))
                .with_record_etm_flows(b == 0)
                .with_suppression(
                    (b == 1)
                        .then_some(Suppression::new(per_mille(100), Duration::from_millis(100))),
                )
                .with_tick(HZ),
        )
        .unwrap();
        let dp = DecisionProfile::new(
            &DecisionConfig::controlled_load()
                .with_behaviour(behaviour)
                .with_cle_limit(U1F31::from_bits(((50u64 << 31) / 1000) as u32))
                .with_admission_enabled(true)
                .with_termination_enabled(true),
        )
        .unwrap();
        let mut m = EgressMeter::<u32, 16>::new(&ep, t(0));
        let mut pt = DecisionPoint::new(&dp, t(0));
        let mut rng = Rng(seed);
        let mut now = 0;
        let (mut c, mut h) = ([0u64; 4], 0xcbf2_9ce4_8422_2325u64);
        for _ in 0..PACKETS {
            let k = next_pkt(&mut rng, &mut now);
            m.on_packet(&ep, t(k.now), k.len, k.mark, ((k.now >> 20) % 40) as u32);
            if let Some(r) = m.poll(&ep, t(k.now)) {
                let d = pt.on_report(&dp, &r);
                let (term, sar) = match d.termination {
                    Termination::None => (0, 0),
                    Termination::RequestSentRate => (1, 0),
                    Termination::Terminate { sar } => (2, sar),
                    // A step the C side cannot report: a value it never
                    // produces, so the comparison fails.
                    _ => (u64::MAX / 4, 0),
                };
                let v = u64::from(d.admission == Admission::Block) + 2 * term;
                // As the C side's run_add: counts for 0..3, every value hashed.
                if let Some(n) = c.get_mut(v as usize) {
                    *n += 1;
                }
                h = (h ^ v).wrapping_mul(FNV);
                h = (h ^ r.nm_bytes ^ (r.etm_rate << 7) ^ sar ^ r.end.ticks()).wrapping_mul(FNV);
                for f in &r.etm_flows {
                    h = (h ^ u64::from(*f)).wrapping_mul(FNV);
                }
            }
        }
        format!("egress{b} {} {} {} {} {h:016x}", c[0], c[1], c[2], c[3])
    }

    #[test]
    fn pcn_cases_errors_and_bad_arguments() {
        c_cases("pcn_test", "all PCN cases passed");
    }

    #[test]
    fn pcn_streams_through_c_equal_streams_through_rust() {
        c_streams("pcn_test", [5u64, 0xfeed_f00d], rust_streams, |rust| {
            // Every meter marked some packets (ThM or ETM out of NM in);
            // the timer blocked and admitted; CLE admission blocked and
            // admitted again.
            for line in &rust {
                let f = counts(line, 4);
                if line.starts_with("egress") {
                    assert!(f.iter().sum::<u64>() > 100, "{line}");
                } else if line.starts_with("cle") {
                    assert!(f[2] > 0 && f[3] > 0, "{line}");
                } else {
                    assert!(f[2] > 0 && f[1] + f[3] > 0, "{line}");
                }
            }
        });
    }
}

// ------------------------------------------------------------- RBCC

mod rbcc {
    use super::*;
    use rbcc_rate::{
        AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
    };

    const PACKETS: u32 = 100_000;
    const FNV: u64 = 0x0100_0000_01b3;

    /// The C side's streams.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for (model, ack_model) in [AckModel::OutsideLoad, AckModel::Coupled]
            .into_iter()
            .enumerate()
        {
            let p = RbccProfile::new(
                &RbccConfig::new(NodeId(7), Rate::from_bits_per_sec(10_000_000), 40, 1500)
                    .with_ack_model(ack_model)
                    .with_idle_timeout(Duration::from_secs(2))
                    .with_tick(HZ),
            )
            .unwrap();
            let mut table = Box::new(RbccInterface::<256>::new(&p, Instant::ZERO));
            let mut rng = Rng(seed);
            let (mut now, mut hash, mut full) = (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64);
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let flow = (r % 160) as u32;
                now += (r >> 10) % 200_000;
                let requested = if flow % 4 == 0 {
                    FixedRate::from_raw(u64::MAX)
                } else {
                    FixedRate::from_raw((u64::from(flow * 7919 % 3_000_000) + 1000) << 16)
                };
                let mut h = RateHeader::new(requested);
                full += u64::from(table.on_data(&p, t(now), flow, &mut h).is_err());
                hash = (hash ^ h.rate.raw() ^ (u64::from(h.bottleneck.0) << 60)).wrapping_mul(FNV);
                let mut a = AckHeader {
                    rate: h.rate,
                    bottleneck: h.bottleneck,
                };
                if (r >> 50) & 1 == 1 {
                    table.on_return(&p, t(now), flow, &a);
                }
                if (r >> 51) & 3 == 0 {
                    full += u64::from(table.on_ack(&p, t(now), flow ^ 1, &mut a).is_err());
                    hash = (hash ^ a.rate.raw()).wrapping_mul(FNV);
                }
                if (r >> 53) & 63 == 0 {
                    hash = (hash ^ u64::from(table.close(&p, flow))).wrapping_mul(FNV);
                }
                if i % 1000 == 999 {
                    hash = (hash ^ table.expire(&p, t(now)) as u64).wrapping_mul(FNV);
                }
                hash = (hash ^ table.advertised().raw()).wrapping_mul(FNV);
            }
            lines.push(format!("rbcc{model} {full} {} {hash:016x}", table.len()));
        }
        lines.push(rcp_stream(seed));
        lines
    }

    /// The C side's RCP stream.
    fn rcp_stream(seed: u64) -> String {
        use rbcc_rate::{Rcp, RcpConfig, RcpProfile};
        let p = RcpProfile::new(
            &RcpConfig::new(
                NodeId(9),
                Rate::from_bits_per_sec(10_000_000),
                Duration::from_millis(100),
            )
            .with_alpha((1, 10))
            .with_beta((1, 1))
            .with_interval(Duration::from_millis(10))
            .with_initial(Rate::from_bits_per_sec(10_000_000))
            .with_min_rate(Rate::from_bits_per_sec(1))
            .with_tick(HZ),
        )
        .unwrap();
        let mut m = Rcp::new(&p, t(0));
        let mut rng = Rng(seed);
        let (mut now, mut hash, mut q, mut updates) = (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let len = 64 + (r % 1455) as u32;
            let bps = 5_000_000 + u64::from(i / 20_000 % 3) * 5_000_000;
            now += u64::from(len) * 8 * 1_000_000_000 / bps;
            q += u64::from(len);
            q = q.saturating_sub(1250);
            let requested = if (r >> 32) % 2 == 1 {
                FixedRate::from_raw(u64::MAX)
            } else {
                FixedRate::from_raw(((r >> 40) % 20_000_000 + 1) << 16)
            };
            let mut h = RateHeader::new(requested);
            m.on_arrival(&p, t(now), len);
            let _ = m.on_data(&p, t(now), 0, &mut h);
            updates += u64::from(m.control(&p, t(now), q));
            hash = (hash ^ h.rate.raw() ^ (u64::from(h.bottleneck.0) << 60)).wrapping_mul(FNV);
        }
        format!("rcp {updates} {} {hash:016x}", m.rate().raw())
    }

    #[test]
    fn rbcc_cases_errors_and_bad_arguments() {
        c_cases("rbcc_test", "all RBCC cases passed");
    }

    #[test]
    fn rbcc_streams_through_c_equal_streams_through_rust() {
        c_streams("rbcc_test", [9u64, 0xabcd_ef01], rust_streams, |_| {});
    }
}

// ------------------------------------------------------------- RAS

mod ras {
    use super::*;
    use ras_shaper::{Ras, RasProfile, SrRasConfig, SrRasProfile, TrRasConfig, TrRasProfile};

    const PACKETS: u32 = 100_000;
    const FNV: u64 = 0x0100_0000_01b3;

    /// The C side's `sr()` and `tr()` shapers (also those of
    /// `ras_core_test.c`).
    pub(super) fn profiles() -> [RasProfile; 2] {
        let sr = SrRasProfile::new(
            &SrRasConfig::new(
                Rate::from_bits_per_sec(1_000_000),
                Rate::from_bits_per_sec(10_000_000),
                60_000,
            )
            .with_mir(Rate::from_bits_per_sec(4_000_000))
            .with_max_packet_bytes(1500)
            .with_k(Duration::from_millis(100))
            .with_tick(HZ),
        )
        .unwrap();
        let tr = TrRasProfile::new(
            &TrRasConfig::new(
                Rate::from_bits_per_sec(1_000_000),
                Rate::from_bits_per_sec(2_000_000),
                Rate::from_bits_per_sec(10_000_000),
                60_000,
            )
            .with_mir(Rate::from_bits_per_sec(4_000_000))
            .with_max_packet_bytes(1500)
            .with_k(Duration::from_millis(100))
            .with_tick(HZ),
        )
        .unwrap();
        [sr.into(), tr.into()]
    }

    /// The C side's streams.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for (kind, p) in profiles().iter().enumerate() {
            let mut s = Box::new(Ras::<(u32, u64), 64>::new(p, t(0)));
            let mut rng = Rng(seed);
            let (mut now, mut hash, mut refused, mut sent) =
                (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let l = 64 + (r % 1437) as u32;
                now += if (r >> 32) % 8 == 0 {
                    (r >> 12) % 50_000_000
                } else {
                    u64::from(l) * 1000
                };
                while let Some(at) = s.next_release().filter(|a| a.ticks() <= now) {
                    let (len, cookie) = s.dequeue(p, at).expect("due");
                    hash = (hash ^ at.ticks() ^ (u64::from(len) << 40) ^ cookie).wrapping_mul(FNV);
                    sent += 1;
                }
                refused += u64::from(s.enqueue(p, t(now), (l, u64::from(i))).is_err());
            }
            lines.push(format!(
                "ras{kind} {sent} {refused} {} {hash:016x}",
                s.len()
            ));
        }
        lines
    }

    #[test]
    fn ras_cases_errors_and_bad_arguments() {
        c_cases("ras_test", "all RAS cases passed");
    }

    #[test]
    fn ras_streams_through_c_equal_streams_through_rust() {
        c_streams("ras_test", [11, 0x5eed_1234], rust_streams, |_| {});
    }
}

mod ras_core {
    use super::*;
    use ras_shaper::Ras;

    const PACKETS: u32 = 100_000;
    const FNV: u64 = 0x0100_0000_01b3;

    use super::ras::profiles;

    /// The C side's streams through the shaper with its own queue
    /// (`ras_core_test.c` ties the C queue-less shaper to it packet by packet):
    /// the same counts, release hash and final state.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for (kind, p) in profiles().iter().enumerate() {
            let mut s = Box::new(Ras::<(u32, u64), 64>::new(p, t(0)));
            let mut rng = Rng(seed);
            let (mut now, mut hash, mut refused, mut sent) =
                (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let mut l = 64 + (r % 1437) as u32;
                let late = (r >> 8) & 1 == 1;
                if (r >> 40) % 8 == 0 {
                    l = if (r >> 44) % 2 == 0 { 0 } else { 9000 };
                }
                now += if (r >> 32) % 8 == 0 {
                    (r >> 12) % 50_000_000
                } else {
                    u64::from(l) * 1000
                };
                while let Some(at) = s.next_release().filter(|a| a.ticks() <= now) {
                    let when = if late { t(now) } else { at };
                    let (len, cookie) = s.dequeue(p, when).expect("due");
                    hash = (hash ^ at.ticks() ^ (u64::from(len) << 40) ^ cookie).wrapping_mul(FNV);
                    sent += 1;
                }
                refused += u64::from(s.enqueue(p, t(now), (l, u64::from(i))).is_err());
            }
            let c = s.core();
            lines.push(format!(
                "ras_core{kind} {sent} {refused} {} {} {} {} {} {} {} {} {} {hash:016x}",
                s.len(),
                c.bytes(),
                c.ear().raw(),
                c.ear().last_arrival().ticks(),
                c.head_schedule().at.ticks(),
                c.head_schedule().frac,
                c.next_start().at.ticks(),
                c.next_start().frac,
                p.units_to_bits_per_sec(c.shaping_rate(p)),
            ));
        }
        lines
    }

    #[test]
    fn ras_core_cases_and_bad_arguments() {
        c_cases("ras_core_test", "all RAS core cases passed");
    }

    /// 10^5 packets per kind through the C shaper with the C caller's queue
    /// (checked there against the C shaper with the library's queue, answer
    /// by answer) and through the Rust shaper with its own queue.
    #[test]
    fn ras_core_streams_through_c_equal_streams_through_rust() {
        c_streams(
            "ras_core_test",
            [23, 0x0123_4567_89ab],
            rust_streams,
            |_| {},
        );
    }
}

mod aecn {
    use super::*;
    use aqm_red::{
        AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Ecn, FlowClass, Spreading, Supplied,
        U32F32,
    };
    use netcond_core::SplitMix64;

    const PACKETS: u64 = 100_000;

    #[derive(Clone, Copy)]
    struct D {
        cookie: u64,
        class: FlowClass,
        ecn: Ecn,
    }

    impl AecnDescriptor for D {
        fn class(&self) -> FlowClass {
            self.class
        }
        fn ecn(&self) -> Ecn {
            self.ecn
        }
        fn set_ce(&mut self) {
            self.ecn = Ecn::Ce;
        }
    }

    /// The C side's `aecn_params` with spreading `v`.
    fn config(v: u64) -> AecnConfig {
        let mut c = AecnConfig::zheng_kinicki(U32F32::from_bits(1 << 31));
        c.w_q = U32F32::from_bits((1u64 << 32) / 1000);
        c.spreading = [
            Spreading::Accumulated,
            Spreading::AccumulatedDpdk,
            Spreading::Uniform,
            Spreading::UniformCountFirst,
            Spreading::Dpdk,
            Spreading::Geometric,
        ][v as usize];
        c
    }

    /// The Rust side of `aecn_test stream SEED`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for v in 0..6 {
            for supplied in [false, true] {
                let p = AecnProfile::new(&config(v)).unwrap();
                let mut q = AecnQueue::<D, 128>::new(&p, t(0)).unwrap();
                let mut gen = SplitMix64::new(seed ^ 0xaec0);
                let mut rng = Rng(seed);
                let mut counts = [0u64; 4];
                let mut hash = 0xcbf2_9ce4_8422_2325u64;
                let mut deq = 0xcbf2_9ce4_8422_2325u64;
                let mut now = 0u64;
                for i in 0..PACKETS {
                    let r = rng.next_u64();
                    let draw = (rng.next_u64() >> 32) as u32;
                    let class = FlowClass::ALL[((r >> 40) % 3) as usize];
                    let ecn = Ecn::from_bits(((r >> 50) & 3) as u8);
                    let u = (r >> 20) & 7;
                    now += (r >> 8) % 2_000_000;
                    let d = D {
                        cookie: i,
                        class,
                        ecn,
                    };
                    let res = if supplied {
                        q.enqueue(&p, t(now), d, &mut Supplied(draw))
                    } else {
                        q.enqueue(&p, t(now), d, &mut gen)
                    };
                    let dec = match res {
                        Ok(d) => d,
                        Err(r) => r.decision,
                    };
                    let x = dec.index() as u64;
                    counts[x as usize] += 1;
                    hash = (hash ^ x).wrapping_mul(0x0100_0000_01b3);
                    let phase = (now / 100_000_000) % 200;
                    let mut k = if phase < 100 {
                        [0, 0, 0, 1, 1, 1, 1, 2][u as usize]
                    } else {
                        [0, 0, 1, 1, 1, 2, 2, 2][u as usize]
                    };
                    if (r >> 30) & 4095 == 0 {
                        k = 128;
                    }
                    for _ in 0..k {
                        let Some(o) = q.dequeue(t(now + 1)) else {
                            break;
                        };
                        deq = (deq ^ (o.cookie * 4 + o.ecn as u64)).wrapping_mul(0x0100_0000_01b3);
                    }
                }
                let c3 = q.counts();
                lines.push(format!(
                    "aecn_{}{v} {} {} {} {} {hash:016x} {deq:016x} {} {} {} {} {}",
                    if supplied { "draw" } else { "rng" },
                    counts[0],
                    counts[1],
                    counts[2],
                    counts[3],
                    q.avg(&p).to_bits(),
                    q.len(),
                    c3[0],
                    c3[1],
                    c3[2]
                ));
            }
        }
        lines
    }

    #[test]
    fn aecn_cases_errors_and_bad_arguments() {
        c_cases("aecn_test", "all AECN cases passed");
    }

    #[test]
    fn aecn_streams_through_c_equal_streams_through_rust() {
        c_streams(
            "aecn_test",
            [5u64, 0x0fed_cba9_8765],
            rust_streams,
            |rust| {
                // Each queue queued, marked, dropped early and dropped forced.
                for line in &rust {
                    let f = counts(line, 4);
                    assert!(f.iter().all(|&n| n > 0), "{line}");
                }
            },
        );
    }
}

mod et48 {
    use super::*;
    use pcn_meter::{EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, PcnMark};

    /// The C side's `params(v)`.
    fn config(v: u32) -> EtMarkerSim48Config {
        if v == 0 {
            EtMarkerSim48Config::new(Rate::from_bytes_per_sec(1_000_000), 3000, 1500)
                .with_tick(TickRate::from_hz(1_000_000_000).unwrap())
        } else {
            EtMarkerSim48Config::new(Rate::from_bytes_per_sec(1_250_000), 1500, 0)
                .with_tick(TickRate::from_hz(1_000_000).unwrap())
        }
    }

    /// The Rust side of `et48_test stream SEED`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for v in 0..2 {
            let p = EtMarkerSim48Profile::new(&config(v)).unwrap();
            let mut m = EtMarkerSim48::new(&p, t(0));
            let mut rng = Rng(seed);
            let mut counts = [0u64; 4];
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            let mut now = 0u64;
            for _ in 0..100_000 {
                let r = rng.next_u64();
                let gap_ns = (r >> 8) % 1_215_000;
                let mut len = 64 + ((r >> 36) % 1455) as u32;
                let mut input = PcnMark::from_ecn(((r >> 50) & 3) as u8);
                now += if v == 0 { gap_ns } else { gap_ns / 1000 };
                let mut at = now;
                if (r >> 20) & 1023 == 0 {
                    at = now.saturating_sub(5000);
                }
                if (r >> 40) & 1023 == 0 {
                    len = 0;
                }
                if (r >> 52) & 511 == 0 {
                    input = PcnMark::NotPcn;
                }
                let out = m.mark(&p, t(at), len, input) as u64;
                counts[out as usize] += 1;
                hash = (hash ^ out).wrapping_mul(0x0100_0000_01b3);
            }
            let tokens = m.tokens_units().div_euclid(i128::from(p.units_per_byte()));
            lines.push(format!(
                "et48_{v} {} {} {} {} {hash:016x} {}",
                counts[0], counts[1], counts[2], counts[3], tokens
            ));
        }
        lines
    }

    #[test]
    fn et48_cases_errors_and_bad_arguments() {
        c_cases("et48_test", "all ET48 cases passed");
    }

    #[test]
    fn et48_streams_through_c_equal_streams_through_rust() {
        c_streams(
            "et48_test",
            [11u64, 0x2468_ace0_1357],
            rust_streams,
            |rust| {
                // Every output state occurred, ET marks included.
                for line in &rust {
                    let f = counts(line, 4);
                    assert!(f.iter().all(|&n| n > 0), "{line}");
                }
            },
        );
    }
}

mod egress3sm {
    use super::*;
    use pcn_meter::{
        Admission, Egress3sm, EgressSignal, PcnMark, StopBlockingConfig, StopBlockingProfile,
    };

    fn mix(h: u64, v: u64) -> u64 {
        (h ^ v).wrapping_mul(0x0100_0000_01b3)
    }

    /// The Rust side of `egress3sm_test stream SEED`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let mut lines = Vec::new();
        for v in 0..2u32 {
            let p = StopBlockingProfile::new(
                &StopBlockingConfig::new(Duration::from_millis(100), v == 1)
                    .with_tick(TickRate::from_hz(1_000_000_000).unwrap()),
            )
            .unwrap();
            let mut e = Egress3sm::<u32, 64>::new(&p, t(0));
            let mut rng = Rng(seed);
            let mut index = [None::<usize>; 80];
            let mut counts = [0u64; 4];
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            let mut now = 0u64;
            for i in 0..100_000u32 {
                let r = rng.next_u64();
                let key = ((r >> 10) % 80) as u32;
                let flow = (r >> 20) & 0xfffff;
                let sel = (r >> 44) & 511;
                let mark = match sel {
                    0 | 1 => PcnMark::Thm,
                    2 => PcnMark::Etm,
                    3 => PcnMark::NotPcn,
                    _ => PcnMark::from_ecn(((r >> 56) & 2) as u8),
                };
                now += (r >> 4) % 200_000;
                if index[key as usize].is_none() {
                    match e.add(key) {
                        Ok(i) => {
                            index[key as usize] = Some(i);
                            hash = mix(hash, 0);
                        }
                        Err(_) => hash = mix(hash, 1),
                    }
                }
                let s = match index[key as usize] {
                    Some(ix) if i % 2 == 1 => Ok(e.on_packet_at(&p, t(now), ix, flow, mark)),
                    _ => e.on_packet(&p, t(now), key, flow, mark),
                };
                match s {
                    Ok(s) => {
                        let (action, new, f) = match s {
                            EgressSignal::Nothing => (0, false, 0),
                            EgressSignal::Block { new_period } => (1, new_period, 0),
                            EgressSignal::Terminate {
                                flow,
                                new_block_period,
                            } => (2, new_block_period, flow),
                        };
                        counts[action as usize] += 1;
                        hash = mix(hash, action + 4 * u64::from(new) + 8 * f);
                    }
                    Err(_) => counts[3] += 1,
                }
                while let Some((k, at)) = e.poll(&p, t(now)) {
                    hash = mix(mix(hash, u64::from(k)), at.ticks());
                }
            }
            let mut adm = 0u64;
            for k in 0..80u32 {
                let a = match e.admission(k) {
                    Some(Admission::Admit) => 0,
                    Some(Admission::Block) => 1,
                    None => 2,
                };
                adm = mix(adm, a);
            }
            lines.push(format!(
                "egress3sm_{v} {} {} {} {} {hash:016x} {adm:016x} {}",
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                e.len()
            ));
        }
        lines
    }

    #[test]
    fn egress3sm_cases_and_bad_arguments() {
        c_cases("egress3sm_test", "all egress3sm cases passed");
    }

    #[test]
    fn egress3sm_streams_through_c_equal_streams_through_rust() {
        c_streams(
            "egress3sm_test",
            [13u64, 0x1357_9bdf_2468],
            rust_streams,
            |rust| {
                // Nothing, block, terminate and unregistered all occurred.
                for line in &rust {
                    let f = counts(line, 4);
                    assert!(f.iter().all(|&n| n > 0), "{line}");
                }
            },
        );
    }
}

mod green_ras {
    use super::*;
    use core::time::Duration;
    use ras_shaper::{GreenRas, RasProfile, SrRasConfig, SrRasProfile, TrRasConfig, TrRasProfile};

    const FNV: u64 = 0x0100_0000_01b3;

    /// The C side's `sr()` / `tr()` shapers and `srm()` / `trm()` meters.
    fn profiles() -> (RasProfile, RasProfile, SrTcmProfile, TrTcmProfile) {
        let sr = SrRasProfile::new(
            &SrRasConfig::new(
                Rate::from_bits_per_sec(1_000_000),
                Rate::from_bits_per_sec(10_000_000),
                60_000,
            )
            .with_mir(Rate::from_bits_per_sec(4_000_000))
            .with_max_packet_bytes(1500)
            .with_k(Duration::from_millis(100))
            .with_tick(HZ),
        )
        .unwrap();
        let tr = TrRasProfile::new(
            &TrRasConfig::new(
                Rate::from_bits_per_sec(1_000_000),
                Rate::from_bits_per_sec(2_000_000),
                Rate::from_bits_per_sec(10_000_000),
                60_000,
            )
            .with_mir(Rate::from_bits_per_sec(4_000_000))
            .with_max_packet_bytes(1500)
            .with_k(Duration::from_millis(100))
            .with_tick(HZ),
        )
        .unwrap();
        let sm = SrTcmProfile::new(
            &SrTcmConfig::new(Rate::from_bytes_per_sec(125_000), 3000, 3000).with_tick(HZ),
        )
        .unwrap();
        let tm = TrTcmProfile::new(
            &TrTcmConfig::new(
                Rate::from_bytes_per_sec(125_000),
                Rate::from_bytes_per_sec(250_000),
                3000,
                3000,
            )
            .with_tick(HZ),
        )
        .unwrap();
        (sr.into(), tr.into(), sm, tm)
    }

    /// One stream through a green shaper with meter `M`; `read` gives the
    /// meter's (tc, te or tp, last).
    fn one<M: ras_shaper::GreenMeter>(
        kind: u32,
        seed: u64,
        p: &RasProfile,
        mp: &M::Profile,
        read: impl Fn(&M) -> (u64, u64, u64),
    ) -> String {
        let mut s = Box::new(GreenRas::<(u32, u64), 64>::new(p, t(0)));
        let mut meter = M::start(mp, t(0));
        let mut rng = Rng(seed);
        let (mut now, mut hash, mut refused, mut sent) =
            (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
        let mut colors = [0u64; 3];
        for i in 0..100_000u32 {
            let r = rng.next_u64();
            let l = 64 + (r % 1437) as u32;
            now += if (r >> 32) % 8 == 0 {
                (r >> 12) % 50_000_000
            } else {
                u64::from(l) * 1000
            };
            while let Some(at) = s.next_release().filter(|a| a.ticks() <= now) {
                let ((len, cookie), color) = s.dequeue(p, mp, &mut meter, at).expect("due");
                let c = color.index() as u64;
                colors[c as usize] += 1;
                hash = (hash ^ at.ticks() ^ (u64::from(len) << 40) ^ cookie ^ (c << 60))
                    .wrapping_mul(FNV);
                sent += 1;
            }
            refused += u64::from(s.enqueue(p, mp, &meter, t(now), (l, u64::from(i))).is_err());
        }
        let (tc, te, last) = read(&meter);
        format!(
            "green_ras{kind} {sent} {refused} {} {} {} {} {hash:016x} {tc} {te} {last}",
            colors[0],
            colors[1],
            colors[2],
            s.ras().len()
        )
    }

    fn rust_streams(seed: u64) -> Vec<String> {
        let (sr, tr, sm, tm) = profiles();
        vec![
            one::<SrTcm>(0, seed, &sr, &sm, |m| (m.tc(), m.te(), m.last().ticks())),
            one::<TrTcm>(1, seed, &tr, &tm, |m| (m.tc(), m.tp(), m.last().ticks())),
        ]
    }

    #[test]
    fn green_ras_cases_and_bad_arguments() {
        c_cases("green_ras_test", "all green RAS cases passed");
    }

    #[test]
    fn green_ras_streams_through_c_equal_streams_through_rust() {
        c_streams(
            "green_ras_test",
            [17, 0x00c0_ffee_1234],
            rust_streams,
            |rust| {
                // Most packets were released, most of them green.
                for line in &rust {
                    let f = counts(line, 3);
                    assert!(f[0] > 50_000 && f[2] * 2 > f[0], "{line}");
                }
            },
        );
    }
}

mod codel {
    use super::*;
    use aqm_delay::{Codel, CodelConfig, CodelProfile, ControlLaw, Head, LinuxVariant, Verdict};
    use std::collections::VecDeque;

    const MS: u64 = 1_000_000;

    /// The Rust side of `codel_test stream SEED`: the same queue, the same
    /// configurations, through `aqm_delay::Codel`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let cfgs = [
            (ControlLaw::Exact, LinuxVariant::Kernel, true),
            (ControlLaw::Linux, LinuxVariant::Kernel, false),
            (ControlLaw::Linux, LinuxVariant::Kernel, true),
            (ControlLaw::Linux, LinuxVariant::Ns3, true),
        ];
        let mut lines = Vec::new();
        for (k, &(law, variant, ecn)) in cfgs.iter().enumerate() {
            let p = CodelProfile::new(
                &CodelConfig::rfc8289()
                    .with_mtu(1500)
                    .with_ecn(ecn)
                    .with_control_law(law)
                    .with_linux_variant(variant)
                    .with_tick(HZ),
            )
            .unwrap();
            let mut now = 1000u64;
            let mut c = Codel::new(&p, t(now));
            let mut rng = Rng(seed);
            let mut q: VecDeque<Head> = VecDeque::new();
            let (mut bytes, mut counts, mut hash) = (0u64, [0u64; 3], 0xcbf2_9ce4_8422_2325u64);
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let phase = (i / 4000) % 3;
                now += (r % 400) * 1000 + 1;
                if (r >> 9) % 997 == 0 {
                    now += 2000 * MS;
                }
                let arrive = match phase {
                    0 => (r >> 30) % 3 != 0,
                    1 => (r >> 30) % 2 == 0,
                    _ => (r >> 30) % 4 == 0,
                };
                if arrive && q.len() < 4096 {
                    let kind = ((r >> 40) % 64) as u32;
                    let len = match kind {
                        0 => 0,
                        1 => 9000,
                        _ => 40 + kind * 23,
                    };
                    q.push_back(Head::new(t(now), len, (r >> 50) % 3 != 0));
                    bytes += u64::from(len);
                }
                if (r >> 33) % 2 == 0 {
                    continue;
                }
                loop {
                    let Some(h) = q.pop_front() else {
                        c.on_empty(&p, t(now));
                        break;
                    };
                    bytes -= u64::from(h.len);
                    let v = c.on_dequeue(&p, t(now), h, bytes);
                    let n = match v {
                        Verdict::Deliver => 0,
                        Verdict::Mark => 1,
                        Verdict::Drop => 2,
                    };
                    counts[n] += 1;
                    hash = (hash ^ n as u64).wrapping_mul(0x0100_0000_01b3);
                    if v != Verdict::Drop {
                        break;
                    }
                }
            }
            lines.push(format!(
                "codel_{k} {} {} {} {hash:016x} {} {} {} {} {}",
                counts[0],
                counts[1],
                counts[2],
                c.drop_next(),
                c.last_seen().ticks(),
                c.count(),
                c.lastcount(),
                u32::from(c.dropping())
            ));
        }
        lines
    }

    #[test]
    fn codel_cases_errors_and_bad_arguments() {
        c_cases("codel_test", "all CoDel cases passed");
    }

    #[test]
    fn codel_streams_through_c_equal_streams_through_rust() {
        c_streams("codel_test", [19, 0x0c0d_e1c0_de15], rust_streams, |rust| {
            // Deliveries and drops in every run, marks in those with ECN.
            for (k, line) in rust.iter().enumerate() {
                let f = counts(line, 3);
                assert!(f[0] > 10_000 && f[2] > 100, "{line}");
                assert_eq!(f[1] > 100, k != 1, "{line}");
            }
        });
    }
}

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

mod pie {
    use super::*;
    use aqm_delay::{Head, Pie, PieConfig, PieProfile, Verdict};
    use netcond_core::RandomSource;
    use std::collections::VecDeque;

    /// A supplied 64-bit draw, read high half first (as the C call does).
    struct Draw(u64, bool);

    impl RandomSource for Draw {
        fn next_u32(&mut self) -> u32 {
            self.1 = !self.1;
            if self.1 {
                (self.0 >> 32) as u32
            } else {
                self.0 as u32
            }
        }
    }

    /// The Rust side of `pie_test stream SEED`: the same queue, the same two
    /// configurations, through `aqm_delay::Pie`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let cfgs = [(false, false), (true, true)];
        let mut lines = Vec::new();
        for (k, (ecn, bound)) in cfgs.into_iter().enumerate() {
            let p = PieProfile::new(
                &PieConfig::linux()
                    .with_limit(1000)
                    .with_ecn(ecn)
                    .with_bound_prob(bound),
            )
            .unwrap();
            let mut s = Pie::new(&p, Instant::ZERO);
            let mut rng = Rng(seed ^ k as u64);
            let mut q: VecDeque<(u64, u32)> = VecDeque::new();
            let (mut bytes, mut now) = (0u64, 0u64);
            let mut counts = [0u64; 3];
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let phase = (i / 10_000) % 3;
                now += (r % 200 + 1) * 1000;
                s.poll(&p, Instant::from_ticks(now), bytes);
                let arrive = match phase {
                    0 => (r >> 20) % 4 < 3,
                    1 => (r >> 20) % 2 == 0,
                    _ => (r >> 20) % 4 == 0,
                };
                if arrive {
                    let l = 64 + ((r >> 24) % 1451) as u32;
                    let ecn = (r >> 40) % 2 == 0;
                    let draw = rng.next_u64();
                    let t = Instant::from_ticks(now);
                    let v = s.on_enqueue(
                        &p,
                        t,
                        Head::new(t, l, ecn),
                        q.len() as u32,
                        bytes,
                        &mut Draw(draw, false),
                    );
                    let code = match v {
                        Verdict::Deliver => 0u64,
                        Verdict::Mark => 1,
                        Verdict::Drop => 2,
                    };
                    counts[code as usize] += 1;
                    hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                    if v != Verdict::Drop && q.len() < 1024 {
                        q.push_back((now, l));
                        bytes += u64::from(l);
                    }
                }
                if (r >> 50) % 2 == 0 {
                    if let Some((at, l)) = q.pop_front() {
                        bytes -= u64::from(l);
                        s.on_dequeue(
                            &p,
                            Instant::from_ticks(now),
                            Head::new(Instant::from_ticks(at), l, false),
                            bytes,
                        );
                    }
                }
            }
            lines.push(format!(
                "pie_{k} {} {} {} {hash:016x} {} {} {} {}",
                counts[0],
                counts[1],
                counts[2],
                s.prob(),
                s.accu_prob(),
                s.qdelay(),
                s.burst_time()
            ));
        }
        lines
    }

    #[test]
    fn pie_cases_errors_and_bad_arguments() {
        c_cases("pie_test", "all PIE cases passed");
    }

    #[test]
    fn pie_streams_through_c_equal_streams_through_rust() {
        c_streams("pie_test", [23, 0x9e3d_11e5], rust_streams, |rust| {
            // The stream dropped early in both profiles and marked with ECN.
            let drops: Vec<u64> = rust
                .iter()
                .map(|l| l.split(' ').nth(3).unwrap().parse().unwrap())
                .collect();
            assert!(drops.iter().all(|&d| d > 100), "{rust:?}");
            let marks: u64 = rust[1].split(' ').nth(2).unwrap().parse().unwrap();
            assert!(marks > 10, "{rust:?}");
        });
    }
}

mod dualpi2 {
    use super::*;
    use aqm_delay::{
        DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, DualScheduler,
        Ecn, Verdict,
    };
    use netcond_core::RandomSource;
    use std::collections::VecDeque;

    /// A supplied 64-bit draw, read high half first (as the C call does).
    struct Draw(u64, bool);

    impl RandomSource for Draw {
        fn next_u32(&mut self) -> u32 {
            self.1 = !self.1;
            if self.1 {
                (self.0 >> 32) as u32
            } else {
                self.0 as u32
            }
        }
    }

    /// The Rust side of `dualpi2_test stream SEED`: the same senders, the same
    /// two configurations, through `aqm_delay::DualPi2`.
    fn rust_streams(seed: u64) -> Vec<String> {
        let cfgs = [
            DualPi2Config::rfc9332(),
            DualPi2Config::rfc9332()
                .with_scheduler(DualScheduler::WeightedRoundRobin { l4s: 3, classic: 1 })
                .with_decision(DualDecision::Random { two_draws: true }),
        ];
        let mut lines = Vec::new();
        for (k, cfg) in cfgs.iter().enumerate() {
            let p = DualPi2Profile::new(cfg).unwrap();
            let mut s = DualPi2::new(&p, Instant::ZERO);
            let mut rng = Rng(seed ^ k as u64);
            let mut fifos: [VecDeque<DualHead>; 2] = Default::default();
            let (mut bytes, mut now) = (0u64, 0u64);
            let mut counts = [0u64; 4];
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            let idx = |q: DualQueue| usize::from(q == DualQueue::Classic);
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let phase = (i / 10_000) % 3;
                now += (r % 100 + 1) * 1000;
                let t = Instant::from_ticks(now);
                let heads = |f: &[VecDeque<DualHead>; 2]| {
                    (
                        f[0].front().map(|h| h.enqueued),
                        f[1].front().map(|h| h.enqueued),
                    )
                };
                let (l, c) = heads(&fifos);
                s.poll(&p, t, l, c);
                let arrive = match phase {
                    0 => (r >> 20) % 4 < 3,
                    1 => (r >> 20) % 2 == 0,
                    _ => (r >> 20) % 4 == 0,
                };
                if arrive {
                    let len = 64 + ((r >> 24) % 1437) as u32;
                    let ecn = Ecn::from_bits(((r >> 40) % 4) as u8);
                    let q = s.on_enqueue(&p, t, ecn, len, bytes);
                    let code = q.map_or(2, |q| idx(q) as u64);
                    hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                    match q {
                        Some(q) if fifos[idx(q)].len() < 4096 => {
                            fifos[idx(q)].push_back(DualHead::new(t, len, ecn));
                            bytes += u64::from(len);
                        }
                        _ => counts[3] += 1,
                    }
                }
                if (r >> 50) % 2 == 0 {
                    loop {
                        let (l, c) = heads(&fifos);
                        let Some(q) = s.schedule(&p, t, l, c) else {
                            break;
                        };
                        let h = fifos[idx(q)].pop_front().unwrap();
                        bytes -= u64::from(h.len);
                        let left = fifos[idx(q)].len() as u32;
                        let draw = rng.next_u64();
                        let v = s.on_dequeue(&p, t, q, h, left, &mut Draw(draw, false));
                        let code = match v {
                            Verdict::Deliver => 0u64,
                            Verdict::Mark => 1,
                            Verdict::Drop => 2,
                        };
                        counts[code as usize] += 1;
                        hash =
                            (hash ^ (4 + code + 3 * idx(q) as u64)).wrapping_mul(0x0100_0000_01b3);
                        if v != Verdict::Drop {
                            break;
                        }
                    }
                }
            }
            let (lc, cc) = s.counts();
            lines.push(format!(
                "dualpi2_{k} {} {} {} {} {hash:016x} {} {} {lc} {cc}",
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                s.p_prime(),
                s.prevq(),
            ));
        }
        lines
    }

    #[test]
    fn dualpi2_cases_errors_and_bad_arguments() {
        c_cases("dualpi2_test", "all DualPI2 cases passed");
    }

    #[test]
    fn dualpi2_streams_through_c_equal_streams_through_rust() {
        c_streams("dualpi2_test", [31, 0x51ed_2701], rust_streams, |rust| {
            // Both profiles marked and dropped: p' rose under the overload.
            for l in &rust {
                let f: Vec<u64> = l
                    .split(' ')
                    .skip(1)
                    .take(3)
                    .map(|x| x.parse().unwrap())
                    .collect();
                assert!(f[1] > 1000 && f[2] > 100, "{rust:?}");
            }
        });
    }
}

mod fq_pie {
    use super::*;
    use aqm_delay::{FqPie, FqPieConfig, FqPieProfile, Head, PieConfig, Verdict};
    use netcond_core::RandomSource;
    use std::collections::VecDeque;

    /// A supplied 64-bit draw, read high half first (as the C call does).
    struct Draw(u64, bool);

    impl RandomSource for Draw {
        fn next_u32(&mut self) -> u32 {
            self.1 = !self.1;
            if self.1 {
                (self.0 >> 32) as u32
            } else {
                self.0 as u32
            }
        }
    }

    /// The Rust side of `fq_pie_test stream SEED`: the same flows, the same
    /// two configurations, through `aqm_delay::FqPie<1024>`.
    fn rust_streams(seed: u64) -> Vec<String> {
        const KEYS: [usize; 12] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 1023, 1030, 1060];
        let mut lines = Vec::new();
        for (k, ecn) in [false, true].into_iter().enumerate() {
            let p = FqPieProfile::new(
                &FqPieConfig::linux()
                    .with_pie(PieConfig::linux().with_limit(1000).with_ecn(ecn))
                    .with_limit(2000),
            )
            .unwrap();
            let mut q: Box<FqPie<1024>> = Box::new(FqPie::new(&p, Instant::ZERO));
            let mut fifos: Vec<VecDeque<(u64, u32)>> = vec![VecDeque::new(); 1024];
            let mut rng = Rng(seed ^ k as u64);
            let mut now = 0u64;
            let mut counts = [0u64; 3];
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            for i in 0..PACKETS {
                let r = rng.next_u64();
                let phase = (i / 10_000) % 3;
                now += (r % 100 + 1) * 1000;
                let t = Instant::from_ticks(now);
                q.poll(&p, t);
                let arrive = match phase {
                    0 => (r >> 20) % 4 < 3,
                    1 => (r >> 20) % 2 == 0,
                    _ => (r >> 20) % 4 == 0,
                };
                if arrive {
                    let j = if (r >> 30) % 2 == 0 {
                        ((r >> 31) % 2) as usize
                    } else {
                        ((r >> 32) % 12) as usize
                    };
                    let len = 64 + ((r >> 40) % 1451) as u32;
                    let e = (r >> 52) % 2 == 0;
                    let draw = rng.next_u64();
                    let v = q.enqueue(&p, t, KEYS[j], Head::new(t, len, e), &mut Draw(draw, false));
                    let code = match v {
                        Verdict::Deliver => 0u64,
                        Verdict::Mark => 1,
                        Verdict::Drop => 2,
                    };
                    counts[code as usize] += 1;
                    hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                    if v != Verdict::Drop {
                        fifos[KEYS[j] % 1024].push_back((now, len));
                    }
                }
                if (r >> 56) % 2 == 0 {
                    if let Some(f) = q.schedule(&p, t) {
                        let (at, len) = fifos[f].pop_front().unwrap();
                        q.on_dequeue(&p, t, f, Head::new(Instant::from_ticks(at), len, false));
                        hash = (hash ^ (3 + f as u64)).wrapping_mul(0x0100_0000_01b3);
                    }
                }
            }
            lines.push(format!(
                "fq_pie_{k} {} {} {} {hash:016x} {} {} {}",
                counts[0],
                counts[1],
                counts[2],
                q.pie(0).prob(),
                q.pie(1).prob(),
                q.totals().0,
            ));
        }
        lines
    }

    #[test]
    fn fq_pie_cases_errors_and_bad_arguments() {
        c_cases("fq_pie_test", "all FQ-PIE cases passed");
    }

    #[test]
    fn fq_pie_streams_through_c_equal_streams_through_rust() {
        c_streams("fq_pie_test", [41, 0xf0_9e11], rust_streams, |rust| {
            // Both dropped early; the ECN profile marked.
            let field =
                |l: &str, n: usize| -> u64 { l.split(' ').nth(n).unwrap().parse().unwrap() };
            assert!(rust.iter().all(|l| field(l, 3) > 500), "{rust:?}");
            assert!(field(&rust[1], 2) > 10, "{rust:?}");
        });
    }
}
