//! The command line, run as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_netcond-sim");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netcond-sim-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs the binary with `args` as given; (status, stdout, stderr).
fn raw(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(BIN);
    c.args(args);
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
    ] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs with `--out <a temporary dir> --quiet` appended.
fn sim(args: &[&str]) -> (i32, String, String) {
    let dir = tmp("out");
    let mut a: Vec<&str> = args.to_vec();
    let d = dir.to_str().unwrap().to_string();
    a.extend(["--out", &d, "--quiet"]);
    raw(&a, &[])
}

#[test]
fn list_names_every_scenario() {
    let (code, out, _) = raw(&["list"], &[]);
    assert_eq!(code, 0);
    for n in ["pcn-termination", "pcn-admission", "rbcc-scenario7"] {
        assert!(out.contains(n));
    }
    let (code, out, _) = raw(&["list", "--names"], &[]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), netcond_sim::registry().len(), "{out}");
    assert_eq!(out.lines().count(), 8, "{out}");
}

#[test]
fn help_and_version_on_every_subcommand() {
    for sub in [
        vec![],
        vec!["list"],
        vec!["run"],
        vec!["reproduce"],
        vec!["sweep"],
        vec!["merge"],
    ] {
        let mut a = sub.clone();
        a.push("--help");
        let (code, out, err) = raw(&a, &[]);
        assert_eq!(code, 0, "{a:?}: {err}");
        assert!(out.contains("Usage: netcond-sim"), "{a:?}: {out}");
        let mut a = sub.clone();
        a.push("--version");
        let (code, out, err) = raw(&a, &[]);
        assert_eq!(code, 0, "{a:?}: {err}");
        assert!(
            out.starts_with("netcond-sim") && out.contains(env!("CARGO_PKG_VERSION")),
            "{a:?}: {out}"
        );
    }
}

/// `run <scenario> --help` lists every key of the scenario with its unit,
/// range and default.
#[test]
fn per_scenario_help_lists_keys_units_ranges_defaults() {
    let (code, out, _) = raw(&["run", "pcn-admission", "--help"], &[]);
    assert_eq!(code, 0);
    let sc = netcond_sim::find("pcn-admission").unwrap();
    for p in sc.params() {
        let at = out
            .find(&format!("\n  {}\n", p.key))
            .or_else(|| out.find(&format!("\n  {} (also as ", p.key)))
            .unwrap_or_else(|| panic!("{} missing: {out}", p.key));
        let block: String = out[at..].lines().take(4).collect::<Vec<_>>().join("\n");
        assert!(
            block.contains(&format!("default: {}", p.default)),
            "{block}"
        );
        assert!(block.contains(&p.accepts()), "{block}");
        assert!(block.contains("unit: "), "{block}");
    }
    assert!(out.contains("unit: s;"), "holding_s in seconds: {out}");
    assert!(out.contains("unit: bytes;"), "tb_bytes in bytes: {out}");
    assert!(out.contains("tb_bytes (also as tb=<tc value>)"), "{out}");
    // Without a scenario: the list of scenarios.
    let (_, out, _) = raw(&["run", "--help"], &[]);
    assert!(
        out.contains("pcn-termination") && out.contains("rbcc-scenario7"),
        "{out}"
    );
}

#[test]
fn values_take_tc_units() {
    let sc = netcond_sim::find("pcn-termination").unwrap();
    let p = sc
        .defaults()
        .with(&["sr_mbps=800kbit", "tb_bytes=10k"])
        .unwrap();
    assert_eq!(p.f64("sr_mbps"), 0.8);
    assert_eq!(p.u64("tb_bytes"), 10 * 1024);
    let p = sc.defaults().with(&["sr_mbps=1.5gbit"]).unwrap();
    assert_eq!(p.f64("sr_mbps"), 1500.0);
    // tc's bps are bytes per second.
    let p = sc.defaults().with(&["sr_mbps=100kbps"]).unwrap();
    assert_eq!(p.f64("sr_mbps"), 0.8);
    // The key without its unit suffix takes a tc value (a plain number is bit/s).
    let p = sc.defaults().with(&["sr=10mbit", "tb=32k"]).unwrap();
    assert_eq!(p.f64("sr_mbps"), 10.0);
    assert_eq!(p.u64("tb_bytes"), 32768);
    let p = sc.defaults().with(&["sr=2500000"]).unwrap();
    assert_eq!(p.f64("sr_mbps"), 2.5);
    let aecn = netcond_sim::find("aecn").unwrap();
    let p = aecn.defaults().with(&["capacity=10mbit"]).unwrap();
    assert_eq!(p.f64("capacity_mbps"), 10.0);
    assert!(
        sc.defaults().with(&["rtt=50"]).is_err(),
        "times have no alias"
    );
    let e = sc
        .defaults()
        .with(&["sr_mbps=10mbits"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sr_mbps=10mbits") && e.contains("unknown unit"),
        "{e}"
    );
    let (code, _, err) = sim(&["run", "pcn-termination", "--set", "tb_bytes=1.5q"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn unknown_key_lists_the_valid_ones() {
    let (code, _, err) = sim(&["run", "pcn-termination", "--set", "bogus=1"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown key `bogus`") && err.contains("s_bytes"),
        "{err}"
    );
    let (code, _, err) = sim(&["run", "pcn-termination", "--set", "s_bytes=abc"]);
    assert_eq!(code, 2);
    assert!(err.contains("s_bytes=abc"), "{err}");
}

#[test]
fn unknown_scenario_and_option() {
    let (code, _, err) = sim(&["run", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("valid: pcn-termination"), "{err}");
    let (code, _, err) = sim(&["reproduce", "pcn-termination", "--frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("--frobnicate"), "{err}");
}

#[test]
fn run_writes_csv_and_svg_and_prints_its_seed() {
    let dir = tmp("run");
    let d = dir.to_str().unwrap();
    let (code, out, err) = raw(
        &[
            "run",
            "pcn-termination",
            "--set",
            "sr_mbps=0.8",
            "--set",
            "duration_s=2",
            "--set",
            "stats_from_s=0.5",
            "--set",
            "stats_len_s=1",
            "--seed",
            "9",
            "--out",
            d,
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("seed: 9\n"), "{out}");
    assert!(out.contains("G.711CBR"));
    let run = dir.join("pcn-termination").join("run");
    assert!(run.join("rate.svg").exists());
    assert!(run.join("rate.csv").exists());
    assert!(run.join("summary.csv").exists());
    // No progress bar on a captured stderr: no carriage return at all.
    assert!(!err.contains('\r'), "{err:?}");
}

/// `--seed-of-row I` runs with the seed that `reproduce` gives its run I.
#[test]
fn seed_of_row_is_the_derived_seed() {
    for (i, s) in [(0u64, 1u64), (3, 1), (5, 42)] {
        let (code, out, err) = sim(&[
            "run",
            "pcn-termination",
            "--seed-of-row",
            &i.to_string(),
            "--reproduce-seed",
            &s.to_string(),
            "--set",
            "sr_mbps=0.8",
            "--set",
            "duration_s=1",
            "--set",
            "stats_from_s=0.2",
            "--set",
            "stats_len_s=0.5",
        ]);
        assert_eq!(code, 0, "{err}");
        let want = netcond_sim::engine::derive_seed(s, i);
        assert!(out.starts_with(&format!("seed: {want}\n")), "{out}");
    }
}

/// A closed pipe ends the program quietly (as `list | head -1` does).
#[test]
fn closed_stdout_exits_quietly() {
    // The reader is gone before the writer starts: every write fails with EPIPE.
    for args in ["list", "--help", "run pcn-admission --help"] {
        let script = format!("{{ sleep 0.3; \"$0\" {args}; echo \"rc=$?\" >&2; }} | true");
        let o = Command::new("bash")
            .args(["-c", &script, BIN])
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim(), "rc=0", "{args}: {err}");
    }
}

/// `--out` that cannot take the output is reported at once (nothing is
/// simulated: nothing on stdout), naming the path, with status 2.
#[test]
fn bad_output_directory_is_refused_before_running() {
    let base = tmp("badout");
    std::fs::create_dir_all(&base).unwrap();
    let file = base.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let missing = base.join("no").join("such").join("dir");
    let cases: Vec<PathBuf> = vec![
        file.clone(),
        missing.clone(),
        PathBuf::from("/proc/netcond-sim-out"),
    ];
    for out in &cases {
        for cmd in [
            vec!["reproduce", "all"],
            vec!["run", "pcn-termination"],
            vec!["sweep", "rbcc-scenario7", "--seeds", "1..2"],
        ] {
            let mut a = cmd.clone();
            a.extend(["--out", out.to_str().unwrap(), "--quiet"]);
            let (code, stdout, err) = raw(&a, &[]);
            assert_eq!(code, 2, "{a:?}: {err}");
            assert!(stdout.is_empty(), "{a:?} simulated: {stdout}");
            assert_eq!(err.lines().count(), 1, "{a:?}: {err}");
            assert!(err.contains(out.to_str().unwrap()), "{a:?}: {err}");
        }
    }
    // A directory below --out that is a file is refused too.
    let d = base.join("d");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("pcn-termination"), "x").unwrap();
    let (code, stdout, err) = raw(
        &["run", "pcn-termination", "--out", d.to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        stdout.is_empty() && err.contains("pcn-termination"),
        "{err}"
    );
}

/// Parameter sets that make no sense are refused with a message naming
/// the keys, status 2.
#[test]
fn nonsensical_combinations_are_refused() {
    for (args, key) in [
        (
            vec!["run", "pcn-termination", "--set", "stats_from_s=20"],
            "stats_from_s",
        ),
        (
            vec!["run", "pcn-termination", "--set", "stats_len_s=0.01"],
            "stats_len_s",
        ),
        (
            vec![
                "run",
                "rbcc-scenario7",
                "--set",
                "duration_s=10",
                "--set",
                "sample_ms=20000",
            ],
            "sample_ms",
        ),
        (vec!["run", "aecn", "--set", "flows=61"], "multiple of 3"),
        (
            vec!["run", "aecn", "--set", "min_th=30", "--set", "max_th=30"],
            "min_th",
        ),
    ] {
        let (code, out, err) = sim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(key), "{args:?}: {err}");
    }
}

/// A parameter set that would need more memory than the budget is refused
/// up front with the estimate; the window of a TCP sender is not reserved.
#[test]
fn memory_budget_refuses_up_front() {
    let (code, out, err) = sim(&[
        "run",
        "pcn-admission",
        "--set",
        "n=100000",
        "--set",
        "holding_s=1000000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("would need about") && err.contains("GiB"),
        "{err}"
    );
    let (code, _, err) = sim(&[
        "run",
        "rbcc-scenario7",
        "--set",
        "duration_s=100000",
        "--set",
        "bottleneck_kbps=10000000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("would need about"), "{err}");
    // Every default, and the large TCP case of the report, fit.
    for sc in netcond_sim::registry() {
        assert!(sc.check(&sc.defaults(), 2 << 30).is_ok(), "{}", sc.name());
    }
    let aecn = netcond_sim::find("aecn").unwrap();
    let p = aecn
        .defaults()
        .with(&["flows=3000", "window=100000"])
        .unwrap();
    let need = aecn.memory_estimate(&p);
    assert!(need < 1 << 30, "{need}");
    // A smaller budget is the user's to choose.
    let (code, _, err) = sim(&[
        "run",
        "pcn-admission",
        "--set",
        "n=2000",
        "--memory-budget",
        "1m",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1.0 MiB"), "{err}");
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// One machine, 4 shards and 7 shards (from --shard, Slurm's and
/// Kubernetes' variables) merge to the same files, byte for byte.
#[test]
fn sweep_shards_merge_to_the_single_run_byte_for_byte() {
    let sweep = [
        "sweep",
        "pcn-termination",
        "--grid",
        "s_bytes=1064,2064",
        "--grid",
        "mix=cbr,3vbr+cbr",
        "--seeds",
        "1..5",
        "--set",
        "sr_mbps=0.8",
        "--set",
        "tb_bytes=10000",
        "--set",
        "duration_s=1.5",
        "--set",
        "stats_from_s=0.5",
        "--set",
        "stats_len_s=1",
        "--quiet",
    ];
    let one = tmp("sweep1");
    let mut a = sweep.to_vec();
    a.extend(["--out", one.to_str().unwrap()]);
    let (code, _, err) = raw(&a, &[]);
    assert_eq!(code, 0, "{err}");
    let single = files(&one);
    let names: Vec<&str> = single.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["manifest.txt", "results.csv", "summary.csv"]);
    let results = String::from_utf8_lossy(&single[1].1).into_owned();
    assert!(
        results.starts_with("point,s_bytes,mix,seed,table,row,column,value\n"),
        "{results}"
    );
    // 20 points, numbered 0..19, seeds fastest.
    assert!(results.contains("\n19,2064,3vbr+cbr,5,"), "{results}");
    assert!(results.contains("\n1,1064,cbr,2,"), "{results}");

    for n in [4usize, 7] {
        let shards = tmp(&format!("shards{n}"));
        for i in 0..n {
            let mut a = sweep.to_vec();
            a.extend(["--out", shards.to_str().unwrap()]);
            let (code, _, err) = match (n, i % 3) {
                (4, _) | (7, 0) => {
                    let s = format!("{i}/{n}");
                    let mut b = a.clone();
                    b.extend(["--shard", &s]);
                    raw(&b, &[])
                }
                // Slurm array numbered from 1.
                (7, 1) => raw(
                    &a,
                    &[
                        ("SLURM_ARRAY_TASK_ID", &(i + 1).to_string()),
                        ("SLURM_ARRAY_TASK_MIN", "1"),
                        ("SLURM_ARRAY_TASK_COUNT", "7"),
                    ],
                ),
                _ => {
                    let mut b = a.clone();
                    b.extend(["--shards", "7"]);
                    raw(&b, &[("JOB_COMPLETION_INDEX", &i.to_string())])
                }
            };
            assert_eq!(code, 0, "shard {i}/{n}: {err}");
        }
        let merged = tmp(&format!("merged{n}"));
        let (code, _, err) = raw(
            &[
                "merge",
                shards.to_str().unwrap(),
                "--out",
                merged.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            files(&merged) == single,
            "{n} shards differ from one machine"
        );
    }

    // A missing shard is named.
    let shards = tmp("shards3");
    for i in [0, 2] {
        let mut a = sweep.to_vec();
        let s = format!("{i}/3");
        a.extend(["--out", shards.to_str().unwrap(), "--shard", &s]);
        assert_eq!(raw(&a, &[]).0, 0);
    }
    let (code, _, err) = raw(
        &[
            "merge",
            shards.to_str().unwrap(),
            "--out",
            tmp("m3").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("missing shards: 1/3"), "{err}");
}
