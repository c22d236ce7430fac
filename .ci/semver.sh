#!/usr/bin/env bash
# API compatibility of the published library crates: cargo-semver-checks
# compares each crate's public API with the same crate at the baseline
# revision recorded in .ci/semver-baseline, and fails on any change that the
# crate's version (unchanged since the baseline, or raised) does not allow.
# An intended break is recorded by raising the version, or, before the first
# release, by listing it in CHANGELOG.md and moving the baseline to the commit
# that makes it (docs/architecture.md, "First-release checklist").
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.51.0
if ! cargo semver-checks --version 2>/dev/null | grep -qx "cargo-semver-checks $version"; then
  # A debug build: it compiles in a fraction of the release build's time, and
  # the checks themselves take well under a second per crate either way (the
  # time goes to rustdoc).
  cargo install --locked --debug "cargo-semver-checks@$version"
fi
base=$(grep -v '^#' .ci/semver-baseline | head -n 1)
git cat-file -e "$base^{commit}" || { echo "baseline $base is not in this clone's history" >&2; exit 1; }
pkgs=()
for c in netcond-core trtcm pcn-meter aqm-red aqm-delay ras-shaper rbcc-rate netcond; do
  pkgs+=(-p "$c")
done
echo "baseline: $base ($(git log -1 --format=%cs "$base"))"
cargo semver-checks check-release "${pkgs[@]}" --baseline-rev "$base" --all-features
