#!/usr/bin/env bash
# The performance step of CI: instruction counts of every per-packet operation
# (gungraun under valgrind's callgrind, with DPDK 22.11's rte_meter and rte_red
# on the same streams), the gate against benches/budget.json, the DPDK
# agreement tests, and each criterion bench once as a smoke test; also the
# format and clippy checks of the benches workspace, which the main
# workspace's checks no longer cover, and a build of netcond-core for aarch64,
# whose prefetch hint is an asm! that no x86_64 build compiles.
# Run from anywhere as `bash .ci/perf.sh`; installs what it needs (apt:
# valgrind, libdpdk-dev, pkg-config; cargo: gungraun-runner). See
# docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# The version of the gungraun library in benches/Cargo.lock: the runner must match it.
GUNGRAUN_VERSION=0.20.0
MANIFEST=benches/Cargo.toml
export CARGO_INCREMENTAL=0

t0=$SECONDS
part() {
  printf '\n==== perf: %s (%s, %d s so far)\n' "$1" "$(date -u +%H:%M:%S)" "$((SECONDS - t0))"
}

part "apt: valgrind, libdpdk-dev, pkg-config"
need=()
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
pkg-config --exists libdpdk 2>/dev/null || need+=(libdpdk-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if [ "${#need[@]}" -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-cache policy "${need[@]}" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    "${sudo_cmd[@]}" apt-get update -o DPkg::Lock::Timeout=900
  fi
  "${sudo_cmd[@]}" apt-get install -y -o DPkg::Lock::Timeout=900 "${need[@]}"
fi
valgrind --version
echo "libdpdk $(pkg-config --modversion libdpdk)"

part "gungraun-runner $GUNGRAUN_VERSION"
if ! gungraun-runner --version 2>/dev/null | grep -q " $GUNGRAUN_VERSION\$"; then
  cargo install --locked gungraun-runner --version "$GUNGRAUN_VERSION"
fi
export PATH="$HOME/.cargo/bin:$PATH"
gungraun-runner --version
# The lockfile must name the same library version, or the runner refuses.
grep -A1 '^name = "gungraun"$' benches/Cargo.lock | grep -q "version = \"$GUNGRAUN_VERSION\"" \
  || { echo "benches/Cargo.lock does not pin gungraun $GUNGRAUN_VERSION"; exit 1; }

part "netcond_core::hint::prefetch's aarch64 form builds (the asm! no x86_64 build compiles)"
if rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-none \
  || rustup target add aarch64-unknown-none; then
  cargo build --locked -p netcond-core --target aarch64-unknown-none
else
  echo "note: no aarch64-unknown-none target: the aarch64 form of the hint was not built"
fi

part "format and clippy of the benches workspace (not part of the main workspace)"
cargo fmt --manifest-path "$MANIFEST" -- --check
cargo clippy --locked --manifest-path "$MANIFEST" --features dpdk --all-targets -- -D warnings

part "instruction counts (benches/benches/instructions.rs, with DPDK)"
target_dir="${CARGO_TARGET_DIR:-benches/target}"
rm -rf "$target_dir/gungraun"
cargo bench --locked --manifest-path "$MANIFEST" --features dpdk --bench instructions \
  -- --save-summary=json --output-format=json >"$target_dir/icount-run.json" \
  || { tail -c 20000 "$target_dir/icount-run.json"; exit 1; }
python3 benches/tools/perf.py icount --gungraun "$target_dir/gungraun" \
  --json "$target_dir/icount.json"

part "the gate (benches/budget.json)"
python3 benches/tools/perf.py gate --gungraun "$target_dir/gungraun"

part "the DPDK side agrees with netcond (benches/dpdk/tests.rs) and the benches library's tests"
cargo test --locked --manifest-path "$MANIFEST" --features dpdk --release

part "criterion benches, each once (smoke test)"
cargo bench --locked --manifest-path "$MANIFEST" --features dpdk \
  --bench trtcm --bench pcn --bench red --bench ras --bench rbcc --bench many_flows --bench dpdk \
  -- --test
cargo run --locked --release --manifest-path "$MANIFEST" --features dpdk --example contention -- 1 \
  >/dev/null
cargo run --locked --release --manifest-path "$MANIFEST" --example sizes >/dev/null

part "done"
echo "perf step took $((SECONDS - t0)) s"
