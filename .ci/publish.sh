#!/usr/bin/env bash
# Publishability of the library crates, run from the repository root (or
# anywhere: it changes there) as `bash .ci/publish.sh`:
#
#  1. msrv:    the library crates build with the declared rust-version (the
#              toolchain comes from rustup) against the committed Cargo.lock;
#  2. package: `cargo package` of the library crates and the umbrella, each
#              built from its packaged sources (unpublished siblings come from
#              a local registry: Cargo >= 1.90);
#  3. machete: no unused dependency in the library crates (cargo-machete from
#              crates.io; the rest of the repository is reported only);
#
# The long sweeps that the default `cargo test` skips (#[ignore]) run in
# .ci/run, right after the workspace's tests, on the same build.
#
# Needs network access to crates.io and rustup's server. Exits non-zero on any
# failure. Prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."

LIB_CRATES=(netcond-core trtcm pcn-meter aqm-red aqm-delay ras-shaper rbcc-rate netcond)
MACHETE_VERSION=0.9.2
export CARGO_INCREMENTAL=0
export CARGO_TERM_COLOR=never
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
pkg_args=()
for c in "${LIB_CRATES[@]}"; do pkg_args+=(-p "$c"); done

start_all=$SECONDS
part_start=$SECONDS
part() {
  if [ -n "${part_name:-}" ]; then
    printf '==== publish: %s took %d s\n' "$part_name" $((SECONDS - part_start))
  fi
  part_name=$1
  part_start=$SECONDS
  [ -n "$part_name" ] && printf '\n==== publish: %s (%s)\n' "$part_name" "$(date -u +%H:%M:%S)"
  return 0
}

# ---------------------------------------------------------------------------
part "msrv: library crates on the declared rust-version"
# rust-version of [workspace.package], which every library crate inherits.
msrv=$(awk '
  /^\[/ { in_pkg = ($0 == "[workspace.package]") }
  in_pkg && /^rust-version[ \t]*=/ { gsub(/.*=[ \t]*"|".*/, ""); print; exit }
' Cargo.toml)
if [ -z "$msrv" ]; then
  echo "no rust-version in [workspace.package]" >&2
  exit 1
fi
for c in "${LIB_CRATES[@]}"; do
  if ! grep -q '^rust-version.workspace = true' "crates/$c/Cargo.toml"; then
    echo "crates/$c/Cargo.toml does not inherit rust-version from the workspace" >&2
    exit 1
  fi
done
echo "declared rust-version: $msrv"
rustup toolchain install "$msrv" --profile minimal --no-self-update
toolchain=$(rustup run "$msrv" rustc --version)
echo "using $toolchain"

# The check runs in a workspace that holds only the library crates, so that
# the other members (the simulator, the C ABI, the pcap tool, ...) may need a
# newer compiler or a newer Cargo without affecting it. It gets the committed
# Cargo.lock; Cargo drops the entries the library crates do not use and keeps
# the versions of the others, and the comparison below proves that no version
# was added or changed: what builds is what the lock says.
msrv_dir=$target_dir/publish-msrv
rm -rf "$msrv_dir"
mkdir -p "$msrv_dir/crates" "$msrv_dir/.cargo"
tar -C crates -ch --exclude='*/target' -f - "${LIB_CRATES[@]}" | tar -x -C "$msrv_dir/crates"
cp Cargo.lock "$msrv_dir/Cargo.lock"
cp .cargo/config.toml "$msrv_dir/.cargo/config.toml"
{
  echo '[workspace]'
  echo 'resolver = "2"'
  printf 'members = ['
  for c in "${LIB_CRATES[@]}"; do printf '"crates/%s", ' "$c"; done
  echo ']'
  # [workspace.package], [workspace.dependencies] and [workspace.lints.*], as they are.
  awk '/^\[/ { keep = ($0 == "[workspace.package]" || $0 == "[workspace.dependencies]" || $0 ~ /^\[workspace\.lints/) } keep' Cargo.toml
} >"$msrv_dir/Cargo.toml"
(
  cd "$msrv_dir"
  export CARGO_TARGET_DIR=$msrv_dir/target
  # Default features, then every feature.
  cargo "+$msrv" check --workspace
  cargo "+$msrv" check --workspace --all-features
)
# Registry packages (name version) of a lockfile.
lock_pkgs() {
  awk '
    /^\[\[package\]\]/ { if (name != "" && src) print name, ver; name = ""; ver = ""; src = 0 }
    /^name = / { name = $3 }
    /^version = / { ver = $3 }
    /^source = "registry/ { src = 1 }
    END { if (name != "" && src) print name, ver }
  ' "$1" | tr -d '"' | sort -u
}
changed=$(comm -23 <(lock_pkgs "$msrv_dir/Cargo.lock") <(lock_pkgs Cargo.lock))
if [ -n "$changed" ]; then
  echo "the committed Cargo.lock does not cover the library crates; $msrv resolved these instead:" >&2
  echo "$changed" >&2
  echo "(run 'cargo update' with Cargo >= 1.84 and commit Cargo.lock)" >&2
  exit 1
fi
echo "ok: the library crates build with $toolchain from the committed Cargo.lock ($(lock_pkgs "$msrv_dir/Cargo.lock" | wc -l) registry packages)"
rm -rf "$msrv_dir"

# ---------------------------------------------------------------------------
part "package: cargo package of the library crates and the umbrella"
cargo --version
dirty=$(git status --porcelain -- "${LIB_CRATES[@]/#/crates/}" 2>/dev/null || true)
allow_dirty=()
if [ -n "$dirty" ]; then
  echo "uncommitted changes in the library crates (packaged as they are):"
  echo "$dirty"
  allow_dirty=(--allow-dirty)
fi
# Each package must carry its README and the LICENSE.
for c in "${LIB_CRATES[@]}"; do
  files=$(cargo package "${allow_dirty[@]}" --list -p "$c")
  for f in README.md LICENSE Cargo.toml src/lib.rs; do
    if ! grep -qx "$f" <<<"$files"; then
      echo "package $c does not contain $f" >&2
      exit 1
    fi
  done
done
echo "ok: every package lists README.md and LICENSE"
# Builds every package from its .crate, siblings from a local registry. Cargo
# extracts that registry's crates under $CARGO_HOME/registry/src/-<hash>/ and
# reuses an extraction of the same name and version, so a second run on this
# machine would verify the first run's sources: drop our crates' extractions.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for c in "${LIB_CRATES[@]}"; do
  rm -rf "$cargo_home"/registry/src/-*/"$c"-[0-9]*
done
cargo package "${allow_dirty[@]}" "${pkg_args[@]}"
ls -l "$target_dir"/package/*.crate

# ---------------------------------------------------------------------------
part "machete: unused dependencies of the library crates"
if ! cargo machete --version 2>/dev/null | grep -q "$MACHETE_VERSION"; then
  cargo install --locked cargo-machete --version "$MACHETE_VERSION"
fi
cargo machete --version
cargo machete "${LIB_CRATES[@]/#/crates/}"
# The rest of the repository (the simulator, the tools, benches/, fuzz/, ...):
# reported here, not failed on; it was clean when this step was written.
echo "the whole repository, for information:"
cargo machete || echo "note: cargo-machete reports unused dependencies outside the library crates (above)"

part ""
printf '\n==== publish: all parts took %d s\n' $((SECONDS - start_all))
