#!/usr/bin/env bash
# Runs every netcond fuzz target for a bounded time.
#
#   bash fuzz/run-all.sh [seconds-per-target]      (default 30)
#
# - installs cargo-fuzz from crates.io if it is missing;
# - uses the nightly toolchain when there is one (`cargo +nightly fuzz`,
#   AddressSanitizer unless FUZZ_SANITIZER says otherwise), else stable with
#   `-s none` (libFuzzer's coverage instrumentation, no sanitizer);
# - builds every target once (release, debug assertions and overflow checks:
#   `-a`), then runs each from its corpus fuzz/corpus/<target>/ (the checked-in
#   `seed-*` files plus whatever earlier runs added);
# - exits non-zero if any target crashed (a panic, a broken invariant, a
#   reference mismatch, an overflow, a timeout or running out of memory), and
#   prints which, with the saved input under fuzz/artifacts/<target>/.
#
# Environment: FUZZ_TARGETS="a b" runs only those; FUZZ_SANITIZER=none|address
# overrides the nightly sanitizer; FUZZ_ARGS adds libFuzzer options;
# FUZZ_SEED sets libFuzzer's random seed (default 1, so that a run from the
# checked-in corpus is reproducible: a short CI run replays the start of a long
# local run with the same seed; FUZZ_SEED=0 lets libFuzzer pick one).
set -u

secs="${1:-30}"
case "$secs" in '' | *[!0-9]*)
    echo "usage: bash fuzz/run-all.sh [seconds-per-target]" >&2
    exit 2
    ;;
esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here" || exit 2

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz from crates.io"
    cargo install cargo-fuzz --locked || {
        echo "fuzz: cannot install cargo-fuzz" >&2
        exit 2
    }
fi

if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
    sanitizer=(-s "${FUZZ_SANITIZER:-address}")
    echo "fuzz: nightly toolchain, sanitizer ${FUZZ_SANITIZER:-address}"
else
    toolchain=()
    sanitizer=(-s none)
    echo "fuzz: stable toolchain, no sanitizer (-s none)"
fi

if [ -n "${FUZZ_TARGETS:-}" ]; then
    read -r -a targets <<<"$FUZZ_TARGETS"
else
    mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list)
fi
if [ "${#targets[@]}" -eq 0 ]; then
    echo "fuzz: no targets found" >&2
    exit 2
fi

echo "fuzz: building every target (running ${#targets[@]})"
if ! cargo "${toolchain[@]}" fuzz build -a "${sanitizer[@]}"; then
    echo "fuzz: build failed" >&2
    exit 1
fi

logs="$here/target/run-all-logs"
mkdir -p "$logs"
failed=()
passed=0
# -timeout: one input running 20 s is a hang and counts as a crash.
# -rss_limit_mb: a leak or runaway allocation counts as a crash.
# shellcheck disable=SC2206
extra=(${FUZZ_ARGS:-})
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    log="$logs/$t.log"
    start=$(date +%s)
    cargo "${toolchain[@]}" fuzz run -a "${sanitizer[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$secs" -seed="${FUZZ_SEED:-1}" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 \
        "${extra[@]}" >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if grep -q "failed to build fuzz script" "$log"; then
        failed+=("$t")
        printf 'fuzz: %-22s BUILD FAILED (log %s)\n' "$t" "$log"
        grep -E "^error" "$log" | head -n 5 | sed 's/^/    /'
    elif [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'fuzz: %-22s ok      %4ss  %10s runs  %s\n' "$t" "$took" "${runs:-?}" "${cov:-}"
    else
        failed+=("$t")
        printf 'fuzz: %-22s CRASHED %4ss  (exit %s, log %s)\n' "$t" "$took" "$rc" "$log"
        # The panic message and the saved input.
        grep -E "panicked at|^thread '|Test unit written to|ERROR: libFuzzer|SUMMARY:" "$log" |
            head -n 8 | sed 's/^/    /'
        grep -A3 "panicked at" "$log" | sed -n '2,3p' | sed 's/^/    /'
    fi
done

echo "fuzz: ${secs}s per target, logs in $logs"
if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz: crashed: ${failed[*]}"
    echo "fuzz: reproduce with: cargo ${toolchain[*]} fuzz run -a ${sanitizer[*]} <target> fuzz/artifacts/<target>/<file>"
fi
echo "fuzz: ${passed} passed, ${#failed[@]} failed"
[ "${#failed[@]}" -eq 0 ]
