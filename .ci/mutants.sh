#!/usr/bin/env bash
# Mutation testing in CI, bounded by work: cargo-mutants (configuration in
# .cargo/mutants.toml) on
#   1. the mutants of the library code changed since the revision whose
#      mutation run docs/verification.md reports (.ci/mutants-baseline), at
#      most MUTANTS_MAX of them: past that, the first of enough shards
#      (cargo-mutants --shard 0/N, a fixed split for a given tree);
#   2. the fixed sample of files in .ci/mutants-sample.txt, each of which had
#      no missed mutant when it was listed there.
# Fails on a missed mutant (cargo-mutants' exit status 2) or when the tests
# fail before any mutation (4). A mutant that makes the tests run past
# cargo-mutants' timeout counts as caught (exit status 3): a test that no
# longer ends has noticed the change. Environment: MUTANTS_MAX (default 60),
# MUTANTS_JOBS (default 2), OUT (default target/mutants).
set -euo pipefail
cd "$(dirname "$0")/.."

version=27.1.0
if ! cargo mutants --version 2>/dev/null | grep -qx "cargo-mutants $version"; then
  # A debug build: cargo-mutants' own work is small next to the builds and
  # tests it starts.
  cargo install --locked --debug "cargo-mutants@$version"
fi
MUTANTS_MAX=${MUTANTS_MAX:-60}
MUTANTS_JOBS=${MUTANTS_JOBS:-2}
OUT=${OUT:-target/mutants}
mkdir -p "$OUT"

# Exit status of cargo-mutants: 0 all caught or unviable, 2 missed, 3 timeouts
# (no missed), 4 the unmutated tests fail; anything else is a usage error.
verdict() {
  case $1 in
    0 | 3) return 0 ;;
    2) echo "missed mutants ($2): see $OUT/$2/mutants.out/missed.txt" >&2; cat "$OUT/$2/mutants.out/missed.txt" >&2; return 1 ;;
    *) echo "cargo-mutants failed ($2): exit status $1" >&2; return 1 ;;
  esac
}

status=0
base=$(grep -v '^#' .ci/mutants-baseline | head -n 1)
git diff "$base" HEAD -- 'crates/*/src/**.rs' 'crates/*/src/*.rs' >"$OUT/changes.diff"
if [ -s "$OUT/changes.diff" ]; then
  n=$(cargo mutants --list --in-diff "$OUT/changes.diff" | wc -l)
  shards=$(((n + MUTANTS_MAX - 1) / MUTANTS_MAX))
  echo "changed since $base: $n mutants; testing shard 0 of $shards"
  if [ "$n" -gt 0 ]; then
    rc=0
    cargo mutants --in-diff "$OUT/changes.diff" --shard "0/$shards" --no-shuffle \
      -j "$MUTANTS_JOBS" -o "$OUT/changes" || rc=$?
    verdict "$rc" changes || status=1
  fi
else
  echo "no library code changed since $base"
fi

mapfile -t sample < <(grep -v -e '^#' -e '^$' .ci/mutants-sample.txt)
args=()
for f in "${sample[@]}"; do args+=(-f "$f"); done
echo "fixed sample: ${sample[*]}"
rc=0
cargo mutants "${args[@]}" --no-shuffle -j "$MUTANTS_JOBS" -o "$OUT/sample" || rc=$?
verdict "$rc" sample || status=1
exit $status
