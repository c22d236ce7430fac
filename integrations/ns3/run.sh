#!/usr/bin/env bash
# Builds libnetcond (crates/netcond-ffi), the ns-3 programs of this directory
# against the installed ns-3 (Debian's libns3-dev), and runs:
#   1. netcond-ns3-tests: the queue discs packet by packet, and bad attributes;
#   2. the RED cross-check: two dumbbells, each with ns-3's RedQueueDisc and
#      with NetcondRedQueueDisc given the same attribute lines (so both at
#      their defaults elsewhere, Wait=true), compared by netcond-red-compare
#      against the tolerances of README.md: "ten-flows" (60 s, SEEDS seeds,
#      without and with ECN) and "many-flows" (8 flows, fast access links,
#      20 s, MANY_SEEDS seeds); FJ_SEEDS runs of NetcondRedQueueDisc with
#      Fj93=true beside each, unchecked;
#   3. the PCN example, with RFC 5670's meters (CSV and SVG in the output
#      directory) and with 3sM's markers (CSV);
#   4. the CoDel cross-check: the same packet traces through ns-3's
#      CoDelQueueDisc and through netcond's CoDel (linux law, ns3 variant),
#      every packet's fate, the dequeue order and the final CoDel variables
#      compared (netcond-codel-crosscheck; fails on any difference);
#   5. the RED cross-check's NetcondRedQueueDisc run, the tests, the PCN
#      example and the CoDel cross-check again, built with AddressSanitizer
#      and UBSan (ASAN=0 skips it);
#   6. the FQ-CoDel cross-check: the same traces through ns-3's
#      FqCoDelQueueDisc and netcond's FQ-CoDel, flows given by a packet
#      filter, every fate and the dequeue order compared (fails on any
#      difference), and under ASan;
#   7. the PIE cross-check: the same queue delays into ns-3's PieQueueDisc
#      and netcond's PIE, the drop probability compared after every update
#      within the tolerance of tests/netcond-pie-crosscheck.cc, and under
#      ASan; then the many-flows dumbbell with PieQueueDisc and with
#      NetcondPieQueueDisc (MANY_SEEDS seeds each), compared statistically;
#   8. the TBF cross-check: the same packet traces through ns-3's
#      TbfQueueDisc and through netcond's token bucket filter, every packet's
#      fate and departure instant compared (netcond-tbf-crosscheck), plain
#      and with AddressSanitizer and UBSan.
#   9. the DualPI2 check (ns-3.37 has no DualPI2): the same traces through
#      NetcondDualPi2QueueDisc and through netcond_dualpi2_* driven directly,
#      every packet's fate, the departures and p' compared, and the bad
#      attributes; then the C side with k one sixteenth off, which must fail;
#      under ASan; then the DualPI2 dumbbell (Classic NewReno and L4S DCTCP
#      flows), whose Classic and L4S delays must be within bounds;
#  10. the FQ-PIE cross-check: the same traces through ns-3's FqPieQueueDisc
#      and NetcondFqPieQueueDisc, the scheduler compared packet for packet and
#      the flows' PIE statistically, and the bad attributes; then netcond's
#      target 20 ms, which must fail; under ASan.
# Exits non-zero on any failure. Environment: CARGO_TARGET_DIR (default
# <repo>/target), SEEDS (default 3), MANY_SEEDS (default 5), FJ_SEEDS
# (default 1), JOBS (default nproc), ASAN (default 1), OUT (default
# $CARGO_TARGET_DIR/ns3/out).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
SEEDS=${SEEDS:-3}
MANY_SEEDS=${MANY_SEEDS:-5}
FJ_SEEDS=${FJ_SEEDS:-1}
JOBS=${JOBS:-$(nproc)}
ASAN=${ASAN:-1}
build=$CARGO_TARGET_DIR/ns3/build
build_asan=$CARGO_TARGET_DIR/ns3/build-asan
OUT=${OUT:-$CARGO_TARGET_DIR/ns3/out}
mkdir -p "$OUT"

t0=$(date +%s)
step() { echo; echo "== $* ($(( $(date +%s) - t0 )) s)"; }

step "libnetcond: cargo build --release -p netcond-ffi"
(cd "$root" && cargo build --release -p netcond-ffi)
libdir=$CARGO_TARGET_DIR/release
test -f "$libdir/libnetcond.a" || { echo "no $libdir/libnetcond.a" >&2; exit 1; }

step "ns-3 programs (cmake, $JOBS jobs)"
cmake -S "$here" -B "$build" -DNETCOND_LIB_DIR="$libdir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$JOBS"

step "tests"
"$build/netcond-ns3-tests"
# The same checks through ns-3's own test runner (TestSuite netcond-queue-discs).
"$build/netcond-ns3-tests" --test-runner --suite=netcond-queue-discs --verbose | grep -E '^ *(PASS|FAIL|CRASH)'

step "RED cross-check: ten-flows {drops, ECN} x (${SEEDS} seeds x {ns3, netcond} + ${FJ_SEEDS} x netcond-fj93), 60 s each; many-flows ${MANY_SEEDS} seeds x {ns3, netcond} + ${FJ_SEEDS} x netcond-fj93, 20 s each"
# The setups: label and the dumbbell's arguments besides disc, ECN and run.
many_args="--flows=8 --accessDelay=5ms --bottleneckDelay=10ms --duration=20 --warmup=0"
runs=$OUT/red-runs.txt
: >"$runs"
for ecn in 0 1; do
  for run in $(seq 1 "$SEEDS"); do
    echo "ten-flows ns3 $ecn $run" >>"$runs"
    echo "ten-flows netcond $ecn $run" >>"$runs"
  done
  for run in $(seq 1 "$FJ_SEEDS"); do
    echo "ten-flows netcond-fj93 $ecn $run" >>"$runs"
  done
done
for run in $(seq 1 "$MANY_SEEDS"); do
  echo "many-flows ns3 0 $run" >>"$runs"
  echo "many-flows netcond 0 $run" >>"$runs"
done
for run in $(seq 1 "$FJ_SEEDS"); do
  echo "many-flows netcond-fj93 0 $run" >>"$runs"
done
rm -f "$OUT"/red-*.csv "$OUT"/red-*.csv.tmp
# One CSV per run; a run that fails leaves no CSV and fails the step.
export OUT many_args
xargs -P "$JOBS" -L 1 sh -c '
  extra=""
  if [ "$1" = many-flows ]; then extra=$many_args; fi
  "$0" --label="$1" --disc="$2" --ecn="$3" --run="$4" $extra --header >"$OUT/red-$1-$2-$3-$4.csv.tmp" &&
  mv "$OUT/red-$1-$2-$3-$4.csv.tmp" "$OUT/red-$1-$2-$3-$4.csv"' \
  "$build/netcond-red-dumbbell" <"$runs" || true
missing=0
while read -r label disc ecn run; do
  test -f "$OUT/red-$label-$disc-$ecn-$run.csv" || { echo "run failed: $label $disc ecn=$ecn run=$run" >&2; missing=1; }
done <"$runs"
test $missing -eq 0
"$build/netcond-red-compare" "$OUT"/red-*.csv | tee "$OUT/red-crosscheck.md"

step "PCN example: RFC 5670 meters, then 3sM markers"
if [ ! -x "$build/netcond-pcn-cle" ]; then
  echo "the PCN example was not built: include/netcond.h has no PCN functions (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-pcn-cle" --csv="$OUT/pcn-cle.csv" --svg="$OUT/pcn-cle.svg"
"$build/netcond-pcn-cle" --marker=ThreeState --csv="$OUT/pcn-cle-3sm.csv" --svg=none | tail -3

step "CoDel cross-check: ns-3's CoDelQueueDisc against netcond's CoDel (linux law, ns3 variant), 2 traces x {defaults, UseEcn}, 100 cycles of 14.5 s each (over 10^6 packets a run)"
if [ ! -x "$build/netcond-codel-crosscheck" ]; then
  echo "the CoDel cross-check was not built: include/netcond.h has no CoDel functions (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-codel-crosscheck" | tee "$OUT/codel-crosscheck.txt"

if [ "$ASAN" = 1 ]; then
  step "AddressSanitizer + UBSan build of the cross-check program"
  cmake -S "$here" -B "$build_asan" -DNETCOND_LIB_DIR="$libdir" -DNETCOND_ASAN=ON \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" >/dev/null
  # Every target in one parallel build (naming several targets makes CMake
  # build them one after the other).
  cmake --build "$build_asan" -j "$JOBS"
  step "ASan runs: the cross-check's NetcondRedQueueDisc (ten-flows, ECN on, 60 s), the tests, the PCN example, the CoDel cross-check"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  "$build_asan/netcond-red-dumbbell" --label=ten-flows --disc=netcond --ecn=1 --header >"$OUT/red-asan.csv" &
  p1=$!
  status=0
  "$build_asan/netcond-ns3-tests" >"$OUT/tests-asan.txt" || status=1
  tail -1 "$OUT/tests-asan.txt"
  "$build_asan/netcond-pcn-cle" --pktSize=1000 --csv="$OUT/pcn-cle-asan.csv" --svg=none | tail -1 || status=1
  "$build_asan/netcond-codel-crosscheck" >"$OUT/codel-crosscheck-asan.txt" || status=1
  tail -1 "$OUT/codel-crosscheck-asan.txt"
  # The sanitized cross-check prints what the plain one printed.
  if ! cmp -s "$OUT/codel-crosscheck-asan.txt" "$OUT/codel-crosscheck.txt"; then
    echo "the sanitized CoDel cross-check's output differs from the plain run's" >&2
    status=1
  fi
  wait $p1 || status=1
  cat "$OUT/red-asan.csv"
  # The sanitized simulation is the cross-check's own run: the same CSV row.
  if [ "$(tail -1 "$OUT/red-asan.csv")" != "$(tail -1 "$OUT/red-ten-flows-netcond-1-1.csv")" ]; then
    echo "the sanitized run's row differs from the cross-check's (red-ten-flows-netcond-1-1.csv)" >&2
    status=1
  fi
  if [ $status != 0 ]; then
    echo "a sanitizer run failed" >&2
    exit 1
  fi
fi

step "TBF cross-check: ns-3's TbfQueueDisc against netcond's token bucket filter, exact and rounded setups x 2 seeds"
if [ ! -x "$build/netcond-tbf-crosscheck" ]; then
  echo "the TBF cross-check was not built: include/netcond.h has no token bucket filter (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-tbf-crosscheck" | tee "$OUT/tbf-crosscheck.txt"
if [ "$ASAN" = 1 ]; then
  cmake -S "$here" -B "$build_asan" -DNETCOND_LIB_DIR="$libdir" -DNETCOND_ASAN=ON \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" >/dev/null
  cmake --build "$build_asan" -j "$JOBS" --target netcond-tbf-crosscheck
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build_asan/netcond-tbf-crosscheck" >"$OUT/tbf-crosscheck-asan.txt"
  # The sanitized cross-check prints what the plain one printed.
  cmp "$OUT/tbf-crosscheck-asan.txt" "$OUT/tbf-crosscheck.txt" \
    || { echo "the sanitized TBF cross-check's output differs from the plain run's" >&2; exit 1; }
  echo "ASan + UBSan: the TBF cross-check prints the same"
fi

# FQ-CoDel cross-check (and its ASan run): ns-3's FqCoDelQueueDisc against
# netcond's FQ-CoDel, flows given by a packet filter; then the kernel CoDel
# variant, which must differ (the check can fail).
step "FQ-CoDel cross-check: ns-3's FqCoDelQueueDisc against netcond's FQ-CoDel, 2 traces of 100 s (over 10^6 packets a run)"
if [ ! -x "$build/netcond-fq-codel-crosscheck" ]; then
  echo "the FQ-CoDel cross-check was not built: include/netcond.h has no CoDel functions (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-fq-codel-crosscheck" | tee "$OUT/fq-codel-crosscheck.txt"
if "$build/netcond-fq-codel-crosscheck" --netcond-variant=kernel --seconds=10 --seeds=1 >"$OUT/fq-codel-crosscheck-kernel.txt"; then
  cat "$OUT/fq-codel-crosscheck-kernel.txt"
  echo "the FQ-CoDel cross-check passed with netcond's kernel CoDel variant: it cannot fail" >&2
  exit 1
fi
echo "with the kernel CoDel variant the cross-check fails, as it must: $(tail -1 "$OUT/fq-codel-crosscheck-kernel.txt")"
if [ "$ASAN" = 1 ]; then
  step "ASan run: the FQ-CoDel cross-check"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build_asan/netcond-fq-codel-crosscheck" >"$OUT/fq-codel-crosscheck-asan.txt"
  tail -1 "$OUT/fq-codel-crosscheck-asan.txt"
  if ! cmp -s "$OUT/fq-codel-crosscheck-asan.txt" "$OUT/fq-codel-crosscheck.txt"; then
    echo "the sanitized FQ-CoDel cross-check's output differs from the plain run's" >&2
    exit 1
  fi
fi

# PIE cross-check (and its ASan run): the same queue-delay inputs into ns-3's
# PieQueueDisc and netcond's PIE, the drop probability compared after every
# update; then netcond with alpha one sixteenth off, which must fail.
step "PIE cross-check: ns-3's PieQueueDisc against netcond's PIE, 2 configurations x 2 traces of 20000 updates"
if [ ! -x "$build/netcond-pie-crosscheck" ]; then
  echo "the PIE cross-check was not built: include/netcond.h has no PIE functions (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-pie-crosscheck" | tee "$OUT/pie-crosscheck.txt"
if "$build/netcond-pie-crosscheck" --alpha-bias --updates=2000 >"$OUT/pie-crosscheck-bias.txt"; then
  cat "$OUT/pie-crosscheck-bias.txt"
  echo "the PIE cross-check passed with netcond's alpha off by 1/16: it cannot fail" >&2
  exit 1
fi
echo "with alpha off by 1/16 the cross-check fails, as it must: $(tail -1 "$OUT/pie-crosscheck-bias.txt")"
if [ "$ASAN" = 1 ]; then
  step "ASan run: the PIE cross-check"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build_asan/netcond-pie-crosscheck" >"$OUT/pie-crosscheck-asan.txt"
  tail -1 "$OUT/pie-crosscheck-asan.txt"
  if ! cmp -s "$OUT/pie-crosscheck-asan.txt" "$OUT/pie-crosscheck.txt"; then
    echo "the sanitized PIE cross-check's output differs from the plain run's" >&2
    exit 1
  fi
fi

# PIE dumbbell: the many-flows setup with ns-3's PieQueueDisc and with
# NetcondPieQueueDisc (both derandomizing), compared by netcond-red-compare
# with the RED cross-check's metrics and tolerances (no ECN: see README.md
# for why the ECN runs differ).
step "PIE dumbbell: many-flows ${MANY_SEEDS} seeds x {ns3, netcond}, 20 s each, compared"
pie_runs=$OUT/pie-runs.txt
: >"$pie_runs"
for run in $(seq 1 "$MANY_SEEDS"); do
  echo "ns3 $run" >>"$pie_runs"
  echo "netcond $run" >>"$pie_runs"
done
rm -f "$OUT"/pie-dumbbell-*.csv "$OUT"/pie-dumbbell-*.csv.tmp
export OUT many_args
xargs -P "$JOBS" -L 1 sh -c '
  "$0" --aqm=pie --label=pie-many-flows --disc="$1" --ecn=0 --run="$2" $many_args --header >"$OUT/pie-dumbbell-$1-$2.csv.tmp" &&
  mv "$OUT/pie-dumbbell-$1-$2.csv.tmp" "$OUT/pie-dumbbell-$1-$2.csv"' \
  "$build/netcond-red-dumbbell" <"$pie_runs" || true
missing=0
while read -r disc run; do
  test -f "$OUT/pie-dumbbell-$disc-$run.csv" || { echo "run failed: pie $disc run=$run" >&2; missing=1; }
done <"$pie_runs"
test $missing -eq 0
"$build/netcond-red-compare" "$OUT"/pie-dumbbell-*.csv | tee "$OUT/pie-dumbbell.md"

# DualPI2 check (and its ASan run): NetcondDualPi2QueueDisc against the C
# calls on the same traces; then the C side's k one sixteenth off, which
# must fail; then the dumbbell.
step "DualPI2 check: NetcondDualPi2QueueDisc against netcond_dualpi2_* driven directly, 3 configurations x 2 traces of 24 s"
if [ ! -x "$build/netcond-dualpi2-crosscheck" ]; then
  echo "the DualPI2 check was not built: include/netcond.h has no DualPI2 functions (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-dualpi2-crosscheck" | tee "$OUT/dualpi2-crosscheck.txt"
if "$build/netcond-dualpi2-crosscheck" --k-bias --seconds=10 --seeds=1 >"$OUT/dualpi2-crosscheck-bias.txt"; then
  cat "$OUT/dualpi2-crosscheck-bias.txt"
  echo "the DualPI2 check passed with the C side's k off by 1/16: it cannot fail" >&2
  exit 1
fi
echo "with k off by 1/16 the check fails, as it must: $(tail -1 "$OUT/dualpi2-crosscheck-bias.txt")"

# FQ-PIE cross-check: ns-3's FqPieQueueDisc against NetcondFqPieQueueDisc;
# then netcond's QueueDelayReference 20 ms, which must fail.
step "FQ-PIE cross-check: ns-3's FqPieQueueDisc against NetcondFqPieQueueDisc, 2 seeds x {scheduler, aqm} runs of 20 s"
if [ ! -x "$build/netcond-fq-pie-crosscheck" ]; then
  echo "the FQ-PIE cross-check was not built: include/netcond.h has no FQ-PIE functions (see CMake's warning)" >&2
  exit 1
fi
"$build/netcond-fq-pie-crosscheck" | tee "$OUT/fq-pie-crosscheck.txt"
if "$build/netcond-fq-pie-crosscheck" --netcond-target-ms=20 --seeds=1 --seconds=16 >"$OUT/fq-pie-crosscheck-bias.txt"; then
  cat "$OUT/fq-pie-crosscheck-bias.txt"
  echo "the FQ-PIE cross-check passed with netcond's target at 20 ms: it cannot fail" >&2
  exit 1
fi
echo "with netcond's target at 20 ms the cross-check fails, as it must: $(tail -1 "$OUT/fq-pie-crosscheck-bias.txt")"

if [ "$ASAN" = 1 ]; then
  step "ASan runs: the DualPI2 check and the FQ-PIE cross-check"
  cmake -S "$here" -B "$build_asan" -DNETCOND_LIB_DIR="$libdir" -DNETCOND_ASAN=ON \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" >/dev/null
  cmake --build "$build_asan" -j "$JOBS"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  "$build_asan/netcond-dualpi2-crosscheck" >"$OUT/dualpi2-crosscheck-asan.txt"
  tail -1 "$OUT/dualpi2-crosscheck-asan.txt"
  "$build_asan/netcond-fq-pie-crosscheck" >"$OUT/fq-pie-crosscheck-asan.txt"
  tail -1 "$OUT/fq-pie-crosscheck-asan.txt"
  # The sanitized runs print what the plain ones printed.
  for f in dualpi2-crosscheck fq-pie-crosscheck; do
    cmp "$OUT/$f-asan.txt" "$OUT/$f.txt" \
      || { echo "the sanitized $f output differs from the plain run's" >&2; exit 1; }
  done
fi

# DualPI2 dumbbell: 5 Classic (NewReno, Not-ECT) and 5 L4S (DCTCP, ECT(1))
# flows over 40 Mbit/s; the Classic mean sojourn within 5 ms of the 15 ms
# target and the L4S mean below 3 ms (README.md has the numbers).
step "DualPI2 dumbbell: 5 Classic + 5 L4S flows, 40 s, checked"
"$build/netcond-dualpi2-dumbbell" --classic=5 --l4s=5 --check | tee "$OUT/dualpi2-dumbbell.txt"

step "done"
