//! The CLI's argument handling.

use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("netcond-sim-cli-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_netcond-sim"))
        .args(args)
        .args(["--out", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn list_names_every_scenario() {
    let (code, out, _) = sim(&["list"]);
    assert_eq!(code, 0);
    for n in ["pcn-termination", "pcn-admission", "rbcc-scenario7"] {
        assert!(out.contains(n));
    }
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
    assert!(err.contains("--seed"), "{err}");
}

#[test]
fn run_writes_csv_and_svg() {
    let dir = std::env::temp_dir().join(format!("netcond-sim-cli-{}", std::process::id()));
    let (code, out, _) = sim(&[
        "run",
        "pcn-termination",
        "--set",
        "sr_mbps=0.8",
        "--set",
        "duration_s=2",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("G.711CBR"));
    let run = dir.join("pcn-termination").join("run");
    assert!(run.join("rate.svg").exists());
    assert!(run.join("rate.csv").exists());
    assert!(run.join("summary.csv").exists());
}
