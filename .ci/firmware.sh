#!/usr/bin/env bash
# Firmware CI step: the library crates on bare-metal targets.
#
#  1. builds the library crates for thumbv6m-none-eabi (Cortex-M0) and
#     riscv32imc-unknown-none-elf, warnings denied, and checks them there
#     with each no_std feature (serde, defmt, reference, invariants) and
#     each family alone;
#  2. builds crates/firmware-check for thumbv7em-none-eabihf at opt-level "s"
#     and 3 and for thumbv6m-none-eabi at "s", and runs each under QEMU
#     (mps2-an386, Cortex-M4F; the ARMv6-M build on mps2-an385, Cortex-M3):
#     known-answer tests, host-computed streams, stack depth; exit status 0
#     only if every check passed;
#  3. runs the port_policer example on the 1 MHz timer;
#  4. runs two examples that must fail (a reached panic, a HardFault) and
#     fails unless each exits non-zero with its message;
#  5. fails if a per-packet entry point's code grew past
#     crates/firmware-check/budget.txt.
#
# Installs qemu-system-arm and binutils-arm-none-eabi (apt) and the rustup
# targets. Run from anywhere: bash .ci/firmware.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

t_all=$SECONDS
t_part=$SECONDS
part() {
  local now=$SECONDS
  if [ -n "${part_name:-}" ]; then
    printf '==== firmware: %s took %d s\n' "$part_name" $((now - t_part))
  fi
  part_name=$1
  t_part=$now
  printf '\n==== firmware: %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"
}

part "install qemu-system-arm, binutils-arm-none-eabi, rustup targets"
need=()
command -v qemu-system-arm >/dev/null || need+=(qemu-system-arm)
command -v arm-none-eabi-objdump >/dev/null || need+=(binutils-arm-none-eabi)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=900 "${need[@]}" >/tmp/firmware-apt.log 2>&1; then
    apt-get update -o DPkg::Lock::Timeout=900 >>/tmp/firmware-apt.log 2>&1
    apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=900 "${need[@]}" >>/tmp/firmware-apt.log 2>&1 ||
      { tail -n 20 /tmp/firmware-apt.log; echo "firmware: could not install ${need[*]}"; exit 1; }
  fi
fi
qemu-system-arm --version | head -n 1
qemu-system-arm -machine help | grep -q '^mps2-an386 ' ||
  { echo "firmware: this QEMU has no mps2-an386 board"; exit 1; }
TARGETS=(thumbv7em-none-eabihf thumbv6m-none-eabi riscv32imc-unknown-none-elf)
installed=$(rustup target list --installed)
for t in "${TARGETS[@]}"; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

part "library crates for thumbv6m-none-eabi and riscv32imc-unknown-none-elf"
LIB=(netcond-core trtcm pcn-meter aqm-red aqm-delay ras-shaper rbcc-rate netcond)
pkgs=()
for c in "${LIB[@]}"; do pkgs+=(-p "$c"); done
SMALL=(--target thumbv6m-none-eabi --target riscv32imc-unknown-none-elf)
# Warnings are errors on these targets too. RUSTFLAGS only reaches the target
# crates (build scripts and proc macros are built without it when --target is
# given), and only these library builds: the firmware's own builds below use
# its .cargo/config.toml.
# One invocation for both targets, so that the two cores share the work.
RUSTFLAGS="-D warnings" cargo build --quiet "${pkgs[@]}" "${SMALL[@]}"
echo "built for thumbv6m-none-eabi and riscv32imc-unknown-none-elf: ${LIB[*]}"

part "feature matrix for thumbv6m-none-eabi and riscv32imc-unknown-none-elf (cargo check)"
# As heapless and smoltcp check their no_std targets: every optional feature
# that is meant for no_std, one at a time (serde, defmt, reference,
# invariants: `std` is for hosted targets only), and the umbrella crate with
# no default features and with each family alone.
feature_sets=(
  "-p netcond --no-default-features"
  "-p netcond --features serde"
  "-p netcond --features defmt"
  "-p netcond --features reference"
  "-p netcond --features invariants"
  "-p netcond --features serde,defmt,reference,invariants"
)
for fam in trtcm pcn-meter aqm-red aqm-delay ras-shaper rbcc-rate; do
  feature_sets+=("-p netcond --no-default-features --features $fam")
done
for fs in "${feature_sets[@]}"; do
  # shellcheck disable=SC2086 # $fs is a list of arguments
  RUSTFLAGS="-D warnings" cargo check --quiet $fs "${SMALL[@]}" ||
    { echo "firmware: cargo check $fs failed for thumbv6m-none-eabi or riscv32imc-unknown-none-elf"; exit 1; }
  echo "checked for thumbv6m-none-eabi and riscv32imc-unknown-none-elf: $fs"
done

# The firmware crate is its own workspace; its .cargo/config.toml sets the
# target, the linker script and the QEMU runner.
cd "$repo/crates/firmware-check"
fw_target_dir=${CARGO_TARGET_DIR:-$repo/crates/firmware-check/target}
export CARGO_TARGET_DIR=$fw_target_dir
QEMU=(qemu-system-arm -icount shift=5 -nographic -monitor none -serial none
  -semihosting-config enable=on,target=native)

run_fw() { # label machine elf
  local label=$1 machine=$2 elf=$3 rc=0
  timeout 120 "${QEMU[@]}" -machine "$machine" -kernel "$elf" >"/tmp/firmware-$label.log" 2>&1 || rc=$?
  grep -v '^size \|^stack ' "/tmp/firmware-$label.log" || true
  # The deepest three per-packet entry points and the deepest configuration,
  # by the figure before "bytes".
  { grep '^stack per-packet' "/tmp/firmware-$label.log" || true; } |
    awk '{ print $(NF - 1), $0 }' | sort -n | tail -n 3 | cut -d' ' -f2- | sed 's/^/  deepest: /'
  { grep '^stack configuration' "/tmp/firmware-$label.log" || true; } |
    awk '{ print $(NF - 1), $0 }' | sort -n | tail -n 1 | cut -d' ' -f2- | sed 's/^/  deepest: /'
  if [ "$rc" != 0 ]; then
    echo "firmware: $label FAILED (exit status $rc)"
    tail -n 60 "/tmp/firmware-$label.log"
    exit 1
  fi
}

part "firmware crate: rustfmt and clippy (its own workspace, so the workspace's steps miss it)"
cargo fmt -- --check
cargo clippy --quiet --release --all-targets -- -D warnings
echo "rustfmt and clippy clean: crates/firmware-check"

part "firmware for thumbv7em-none-eabihf, opt-level s: build and run on mps2-an386"
cargo build --quiet --release
run_fw v7em-s mps2-an386 "$fw_target_dir/thumbv7em-none-eabihf/release/firmware-check"

part "firmware for thumbv7em-none-eabihf, opt-level 3: build and run on mps2-an386"
cargo build --quiet --profile release-o3
run_fw v7em-3 mps2-an386 "$fw_target_dir/thumbv7em-none-eabihf/release-o3/firmware-check"

part "firmware for thumbv6m-none-eabi, opt-level s: build and run on mps2-an385"
cargo build --quiet --release --target thumbv6m-none-eabi
run_fw v6m-s mps2-an385 "$fw_target_dir/thumbv6m-none-eabi/release/firmware-check"

part "example port_policer (1 MHz timer) on mps2-an386"
cargo build --quiet --release --example port_policer
run_fw port-policer mps2-an386 "$fw_target_dir/thumbv7em-none-eabihf/release/examples/port_policer"

part "a reached panic and a HardFault fail the run (examples must_fail_panic, must_fail_fault)"
cargo build --quiet --release --example must_fail_panic --example must_fail_fault
must_fail() { # example expected-line
  local rc=0
  timeout 120 "${QEMU[@]}" -machine mps2-an386 -kernel "$fw_target_dir/thumbv7em-none-eabihf/release/examples/$1" \
    >"/tmp/firmware-$1.log" 2>&1 || rc=$?
  cat "/tmp/firmware-$1.log"
  if [ "$rc" = 0 ] || [ "$rc" = 124 ] || ! grep -q "^$2" "/tmp/firmware-$1.log"; then
    echo "firmware: $1 should have printed '$2' and exited non-zero (exit status $rc)"
    exit 1
  fi
  echo "  -> exit status $rc, as it must be"
}
must_fail must_fail_panic "FAIL: panic"
must_fail must_fail_fault "FAIL: HardFault"

part "code size of the per-packet entry points against budget.txt"
bash sizes.sh --check budget.txt "$fw_target_dir/thumbv7em-none-eabihf/release/firmware-check" v7em-s
bash sizes.sh --check budget.txt "$fw_target_dir/thumbv7em-none-eabihf/release-o3/firmware-check" v7em-3

part "done"
if [ "${CI:-}" = true ] && [ "$fw_target_dir" = "$repo/crates/firmware-check/target" ]; then
  rm -rf "$fw_target_dir" "$repo/target/thumbv6m-none-eabi" "$repo/target/riscv32imc-unknown-none-elf"
fi
printf 'firmware: all steps passed in %d s\n' $((SECONDS - t_all))
