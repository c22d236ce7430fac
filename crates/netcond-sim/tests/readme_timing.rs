//! README.md's timings of `reproduce all` and `reproduce quick` are checked
//! against a fresh run by `crates/netcond-sim/check-timing.sh`, which reads
//! them from the README. This test fails when the README's wording changes so
//! that the script would no longer find them (the script would fail too, but
//! only when someone runs it).

use std::path::Path;

/// README.md on one line with runs of whitespace collapsed, as the script
/// reads it.
fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The number right after `before`, up to `after`.
fn figure(text: &str, before: &str, after: &str) -> Option<f64> {
    let start = text.find(before)? + before.len();
    let rest = &text[start..];
    let end = rest.find(after)?;
    rest[..end].parse().ok()
}

#[test]
fn readme_states_the_timings_the_script_checks() {
    let text = readme();
    let all = figure(&text, "It takes about ", " s of CPU time");
    assert!(
        all.is_some_and(|s| s > 0.0),
        "README.md must say 'It takes about N s of CPU time' (check-timing.sh all reads it)"
    );
    let quick = figure(
        &text,
        "`reproduce quick` is a reduced version (about ",
        " s of CPU",
    );
    assert!(
        quick.is_some_and(|s| s > 0.0),
        "README.md must say '`reproduce quick` is a reduced version (about N s of CPU' \
         (check-timing.sh quick reads it)"
    );
    assert!(
        text.contains("crates/netcond-sim/check-timing.sh"),
        "README.md should name the script that checks its timings"
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("check-timing.sh");
    assert!(script.is_file(), "{} is missing", script.display());
}
