#!/usr/bin/env bash
# Runs every netcond fuzz target, bounded by work or by time.
#
#   bash fuzz/run-all.sh --runs                   (CI: a fixed number of executions)
#   bash fuzz/run-all.sh [seconds-per-target]     (a campaign: default 30 s each)
#
# --runs: each target runs the number of executions fuzz/runs.txt gives it,
#   with libFuzzer's seed FUZZ_SEED (default 1), from a fresh copy of the
#   checked-in corpus alone (corpus/<target>/seed-* and regress-*, copied to
#   target/runs-corpus/<target>/), and without libFuzzer's tracing of
#   compared values (-use_cmp=0: with it, runs part ways; see below). Nothing
#   on the machine but the commit decides what runs, so the same commit passes
#   or fails everywhere; the machine's speed changes only how long it takes.
#   A target without a line in runs.txt is an error.
# seconds: each target runs for that long (wall clock) from its growing corpus
#   corpus/<target>/ (the checked-in files plus whatever earlier runs added):
#   the longer campaigns before a release. How far it gets depends on the
#   machine, so CI does not use it.
#
# Both modes:
# - install cargo-fuzz from crates.io if it is missing;
# - use the nightly toolchain when there is one (`cargo +nightly fuzz`,
#   AddressSanitizer unless FUZZ_SANITIZER says otherwise), else stable with
#   `-s none` (libFuzzer's coverage instrumentation, no sanitizer);
# - build every target once (release, debug assertions and overflow checks:
#   `-a`);
# - exit non-zero if any target crashed (a panic, a broken invariant, a
#   reference mismatch, an overflow, a hang, or running out of memory), and
#   print which, with the saved input under fuzz/artifacts/<target>/. An input
#   that crashed once is kept as corpus/<target>/regress-<what>, so that every
#   later run replays it first.
#
# Environment: FUZZ_TARGETS="a b" runs only those; FUZZ_SANITIZER=none|address
# overrides the nightly sanitizer; FUZZ_ARGS adds libFuzzer options;
# FUZZ_SEED sets libFuzzer's random seed (default 1; FUZZ_SEED=0 lets libFuzzer
# pick one, for campaigns); FUZZ_JOBS=K runs K targets at a time (default 1).
set -u

mode=time
secs=30
case "${1:-}" in
--runs) mode=runs ;;
'') ;;
*[!0-9]*)
    echo "usage: bash fuzz/run-all.sh --runs | bash fuzz/run-all.sh [seconds-per-target]" >&2
    exit 2
    ;;
*) secs=$1 ;;
esac
jobs="${FUZZ_JOBS:-1}"
case "$jobs" in '' | *[!0-9]* | 0)
    echo "fuzz: FUZZ_JOBS must be a positive number" >&2
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

# The executions of each target in --runs mode.
declare -A budget=()
if [ "$mode" = runs ]; then
    while read -r name n _; do
        case "$name" in '' | '#'*) continue ;; esac
        budget[$name]=$n
    done <runs.txt
    missing=()
    for t in "${targets[@]}"; do
        [ -n "${budget[$t]:-}" ] || missing+=("$t")
    done
    if [ "${#missing[@]}" -ne 0 ]; then
        echo "fuzz: no executions in fuzz/runs.txt for: ${missing[*]}" >&2
        exit 2
    fi
fi

echo "fuzz: building every target (running ${#targets[@]}, $jobs at a time)"
if ! cargo "${toolchain[@]}" fuzz build -a "${sanitizer[@]}"; then
    echo "fuzz: build failed" >&2
    exit 1
fi

logs="$here/target/run-all-logs"
rm -rf "$logs"
mkdir -p "$logs"
# -timeout: one input running 20 s is a hang and counts as a crash (no
#   input here takes a millisecond, so the verdict does not depend on the
#   machine's speed).
# -rss_limit_mb: a leak or runaway allocation counts as a crash.
# shellcheck disable=SC2206
extra=(${FUZZ_ARGS:-})

# Runs target $1 and writes its one-line verdict to $logs/$1.verdict (the
# first word "ok" or "failed").
run_one() {
    local t=$1 corpus bound log start rc took runs cov
    log="$logs/$t.log"
    if [ "$mode" = runs ]; then
        corpus="$here/target/runs-corpus/$t"
        rm -rf "$corpus"
        mkdir -p "$corpus"
        find "corpus/$t" -maxdepth 1 -type f \( -name 'seed-*' -o -name 'regress-*' \) \
            -exec cp {} "$corpus/" \;
        # -use_cmp=0: with libFuzzer's tracing of compared values on, two
        # runs of the same binary, seed and corpus part ways after some
        # thousands of executions (values that differ from run to run reach
        # its table of compared operands); with it off they are identical.
        bound=(-runs="${budget[$t]}" -use_cmp=0)
    else
        corpus="corpus/$t"
        mkdir -p "$corpus"
        bound=(-max_total_time="$secs")
    fi
    start=$(date +%s)
    cargo "${toolchain[@]}" fuzz run -a "${sanitizer[@]}" "$t" "$corpus" -- \
        "${bound[@]}" -seed="${FUZZ_SEED:-1}" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    {
        if grep -q "failed to build fuzz script" "$log"; then
            printf 'failed fuzz: %-22s BUILD FAILED (log %s)\n' "$t" "$log"
            grep -E "^error" "$log" | head -n 5 | sed 's/^/    /'
        elif [ "$rc" -eq 0 ]; then
            printf 'ok fuzz: %-22s ok      %4ss  %10s runs  %s\n' "$t" "$took" "${runs:-?}" "${cov:-}"
        else
            printf 'failed fuzz: %-22s CRASHED %4ss  (exit %s, log %s)\n' "$t" "$took" "$rc" "$log"
            # The panic message and the saved input.
            grep -E "panicked at|^thread '|Test unit written to|ERROR: libFuzzer|SUMMARY:" "$log" |
                head -n 8 | sed 's/^/    /'
            grep -A3 "panicked at" "$log" | sed -n '2,3p' | sed 's/^/    /'
        fi
    } >"$logs/$t.verdict"
    # Print the verdict as soon as it is known (without its first word).
    sed '1s/^[a-z]* //' "$logs/$t.verdict"
}

running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    run_one "$t" &
    running=$((running + 1))
done
wait

failed=()
passed=0
for t in "${targets[@]}"; do
    if [ "$(head -c 2 "$logs/$t.verdict" 2>/dev/null)" = ok ]; then
        passed=$((passed + 1))
    else
        failed+=("$t")
    fi
done

if [ "$mode" = runs ]; then
    echo "fuzz: the executions of fuzz/runs.txt per target, seed ${FUZZ_SEED:-1}, logs in $logs"
else
    echo "fuzz: ${secs}s per target, seed ${FUZZ_SEED:-1}, logs in $logs"
fi
if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz: crashed: ${failed[*]}"
    echo "fuzz: reproduce with: cargo ${toolchain[*]} fuzz run -a ${sanitizer[*]} <target> fuzz/artifacts/<target>/<file>"
fi
echo "fuzz: ${passed} passed, ${#failed[@]} failed"
[ "${#failed[@]}" -eq 0 ]
