#!/usr/bin/env bash
# netcond from Python: builds and installs the wheel of crates/netcond-py
# into a fresh virtual environment with pinned test dependencies from PyPI,
# checks the binding crate's format and lints, runs pytest (exit status
# propagated), and runs every script of examples/python headless.
# Run from anywhere: bash .ci/python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

part() { printf '\n==== python: %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; pstart=$SECONDS; }
took() { echo "---- took $((SECONDS - pstart)) s"; }

PY=${PYTHON:-python3}
VENV=${NETCOND_PY_VENV:-$root/target/py-venv}
PINS=(
  "maturin==1.16.0" "numpy==2.4.6" "pytest==9.2.0" "hypothesis==6.170.27"
  "pandas==3.1.1" "matplotlib==3.11.2" "simpy==4.1.2" "dpkt==1.9.8" "ns.py==0.4.3"
)

part "virtual environment and pinned packages"
"$PY" --version
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
"$VENV/bin/pip" install -q "${PINS[@]}"
echo "installed: ${PINS[*]}"
took

part "format and lints of the binding crate"
(
  cd crates/netcond-py
  export PYO3_PYTHON="$VENV/bin/python"
  cargo fmt --check
  cargo clippy --all-targets --locked -- -D warnings
)
took

part "pip install ./crates/netcond-py"
t0=$SECONDS
"$VENV/bin/pip" install ./crates/netcond-py
echo "pip install ./crates/netcond-py took $((SECONDS - t0)) s"
took

part "the simulator's CLI, for the tests that compare its CSV with Python's"
cargo build --release -q -p netcond-sim
export NETCOND_SIM="${CARGO_TARGET_DIR:-$root/target}/release/netcond-sim"
took

part "pytest"
cd crates/netcond-py
set +e
"$VENV/bin/python" -m pytest -v tests
status=$?
set -e
cd "$root"
if [ "$status" -ne 0 ]; then
  echo "pytest failed with exit status $status"
  exit "$status"
fi
took

part "examples (headless matplotlib)"
export MPLBACKEND=Agg
export NETCOND_EXAMPLES_OUT=${NETCOND_EXAMPLES_OUT:-$root/target/py-examples}
mkdir -p "$NETCOND_EXAMPLES_OUT"
for ex in examples/python/*.py; do
  [ -e "$ex" ] || continue
  echo "---- $ex"
  "$VENV/bin/python" "$ex"
done
took
