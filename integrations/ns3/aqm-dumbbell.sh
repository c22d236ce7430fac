#!/usr/bin/env bash
# The simulator's aqm-dumbbell in ns-3 (examples/aqm-dumbbell.cc), for manual
# runs (not in CI: 60 simulated seconds a run, about 8 CPU-seconds each):
# every AQM (codel, fq_codel, pie, fq_pie) with ns-3's queue disc and with
# netcond's, and drop-tail, for RUNS runs (RngSeedManager run numbers 1..),
# with the scalable (DCTCP) flow (L4S=1, the simulator's default) or without
# it (L4S=0). Prints CSV: for each L4S setting a header, then a row per run. Needs the build
# of run.sh (it builds nothing): BUILD, default $CARGO_TARGET_DIR/ns3/build.
# Environment: RUNS (default 1), L4S (default "1 0"), JOBS (default nproc).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-${CARGO_TARGET_DIR:-$root/target}/ns3/build}
RUNS=${RUNS:-1}
L4S=${L4S:-"1 0"}
JOBS=${JOBS:-$(nproc)}
prog=$BUILD/netcond-aqm-dumbbell
test -x "$prog" || { echo "no $prog: run integrations/ns3/run.sh first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for l in $L4S; do
  for run in $(seq 1 "$RUNS"); do
    echo "droptail ns3 $l $run"
    for aqm in codel fq_codel pie fq_pie; do
      for impl in ns3 netcond; do
        echo "$aqm $impl $l $run"
      done
    done
  done
done >"$tmp/runs"
# A run that fails leaves no row and fails the script.
export tmp
xargs -P "$JOBS" -L 1 sh -c '"$0" --aqm="$1" --impl="$2" --l4s="$3" --run="$4" >"$tmp/$1-$2-$3-$4.csv"' \
  "$prog" <"$tmp/runs" \
  || true
missing=0
shown=
while read -r aqm impl l run; do
  f=$tmp/$aqm-$impl-$l-$run.csv
  if [ ! -s "$f" ]; then
    echo "run failed: $aqm $impl l4s=$l run=$run" >&2
    missing=1
    continue
  fi
  # A header before the first row of each L4S setting (its flow columns).
  if [ "$shown" != "$l" ]; then
    "$prog" --aqm=codel --duration=2 --warmup=1 --l4s="$l" --header | head -1 | sed 's/^/l4s,/'
    shown=$l
  fi
  sed "s/^/$l,/" "$f"
done <"$tmp/runs"
test $missing -eq 0
