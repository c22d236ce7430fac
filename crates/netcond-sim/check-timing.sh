#!/usr/bin/env bash
# Checks the timings README.md gives for `netcond-sim reproduce all` and
# `netcond-sim reproduce quick` against a fresh run of the release binary.
#
#   cargo build --release -p netcond-sim
#   bash crates/netcond-sim/check-timing.sh quick|all [BINARY]
#
# BINARY defaults to $CARGO_TARGET_DIR/release/netcond-sim (target/ when
# CARGO_TARGET_DIR is unset). The figures are read from README.md, so the
# README and this check cannot drift apart:
#
# - CPU time (user + system over all threads, as bash's `time` reports it) must
#   lie within 0.7 to 1.4 times the README's figure. CPU time moves with the
#   machine and its load, less than wall time but noticeably (82 s on a 2-core
#   VM at a load average of 9-12 on 2026-12-06, 105 s on a 2-core VM at 14-17 on
#   2026-12-01, on the code of each day); the margin is for that.
# - For `all`, README says that on two idle cores the wall time is little more
#   than half the CPU time. That is checked (wall <= 0.65 x CPU) only on a
#   machine with at least two CPUs that is idle (1-minute load average below
#   0.5 before and after the run); otherwise the script says it did not check.
#
# Prints one line per check; exits 1 if a check fails or README.md no longer
# states the figure in the form this script reads.
set -euo pipefail
cd "$(dirname "$0")/../.."

which=${1:-}
case "$which" in
  all | quick) ;;
  *)
    echo "usage: bash crates/netcond-sim/check-timing.sh quick|all [BINARY]" >&2
    exit 2
    ;;
esac
bin=${2:-${CARGO_TARGET_DIR:-target}/release/netcond-sim}
if [ ! -x "$bin" ]; then
  echo "$bin: not found; build it with 'cargo build --release -p netcond-sim'" >&2
  exit 2
fi

# README.md on one line, so that a sentence wrapped across lines still matches.
readme=$(tr '\n' ' ' < README.md | tr -s ' ')
if [ "$which" = all ]; then
  claim=$(sed -n 's/.*It takes about \([0-9.]*\) s of CPU time.*/\1/p' <<< "$readme")
  phrase="'It takes about N s of CPU time'"
else
  claim=$(sed -n 's/.*`reproduce quick` is a reduced version (about \([0-9.]*\) s of CPU.*/\1/p' <<< "$readme")
  phrase="'\`reproduce quick\` is a reduced version (about N s of CPU'"
fi
if [ -z "$claim" ]; then
  echo "README.md no longer says $phrase: update README.md or this script" >&2
  exit 1
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
load_before=$(cut -d ' ' -f 1 /proc/loadavg)
TIMEFORMAT='%3U %3S %3R'
{ time "$bin" reproduce "$which" --out "$out/out" --quiet > "$out/stdout" 2> "$out/stderr"; } 2> "$out/time"
load_after=$(cut -d ' ' -f 1 /proc/loadavg)
read -r user sys wall < "$out/time"

status=0
line=$(awk -v u="$user" -v s="$sys" -v c="$claim" 'BEGIN {
  cpu = u + s; lo = 0.7 * c; hi = 1.4 * c
  printf "%.1f s of CPU; README: about %s s (accepted %.1f-%.1f s): %s",
    cpu, c, lo, hi, (cpu >= lo && cpu <= hi) ? "ok" : "FAIL"
}')
echo "reproduce $which: $line (wall $wall s, load average $load_before before, $load_after after)"
case "$line" in *FAIL) status=1 ;; esac

if [ "$which" = all ]; then
  cpus=$(nproc)
  idle=$(awk -v a="$load_before" -v b="$load_after" 'BEGIN { print (a < 0.5 && b < 0.5) ? 1 : 0 }')
  if [ "$cpus" -ge 2 ] && [ "$idle" = 1 ]; then
    line=$(awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN {
      cpu = u + s
      printf "wall %.1f s against CPU %.1f s on idle cores (at most 0.65 x CPU = %.1f s): %s",
        w, cpu, 0.65 * cpu, (w <= 0.65 * cpu) ? "ok" : "FAIL"
    }')
    echo "reproduce all: $line"
    case "$line" in *FAIL) status=1 ;; esac
  else
    echo "reproduce all: wall time not checked ($cpus CPUs, load average $load_before / $load_after: not two idle cores)"
  fi
fi
exit "$status"
