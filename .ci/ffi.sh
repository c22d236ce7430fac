#!/usr/bin/env bash
# The C interface's CI step: installs what it needs (cbindgen, a C and C++
# compiler, pkg-config, CMake, libdpdk-dev, the sanitizer runtimes), checks
# that include/netcond.h is what cbindgen generates from crates/netcond-ffi,
# runs the crate's tests (which compile and run the C tests, with
# -fsanitize=address,undefined), checks netcond.pc and the CMake snippet of
# docs/c-api.md on the trTCM example, builds and runs the DPDK client in
# integrations/dpdk, and times the C call against the Rust call (ns/packet,
# interleaved in one process). Prints how long each part took.
#
#   bash .ci/ffi.sh           everything
#   bash .ci/ffi.sh --regen   only regenerate include/netcond.h
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
CBINDGEN_VERSION=0.29.4
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

step_start=0
step() {
    step_start=$(date +%s)
    echo "==> ffi: $*"
}
done_step() {
    echo "    ($(( $(date +%s) - step_start )) s)"
}

generate_header() {
    (cd crates/netcond-ffi && cbindgen --quiet --config cbindgen.toml --crate netcond-ffi --output "$1")
}

have_cbindgen() {
    command -v cbindgen >/dev/null && cbindgen --version | grep -q " $CBINDGEN_VERSION\$"
}

if [ "${1:-}" = "--regen" ]; then
    have_cbindgen || cargo install --locked cbindgen --version "$CBINDGEN_VERSION"
    generate_header "$ROOT/include/netcond.h"
    echo "include/netcond.h regenerated"
    exit 0
fi

total_start=$(date +%s)

step "install packages"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    pkgs="build-essential pkg-config cmake libdpdk-dev libasan8 libubsan1"
    missing=""
    for p in $pkgs; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        if ! apt-cache policy libdpdk-dev | grep -q Candidate; then
            apt-get update -q
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=900 $missing
    fi
else
    echo "    not root or no apt-get: using the packages already installed"
fi
done_step

step "install cbindgen $CBINDGEN_VERSION"
have_cbindgen || cargo install --locked cbindgen --version "$CBINDGEN_VERSION"
done_step

step "header freshness"
fresh=$(mktemp)
generate_header "$fresh"
if ! diff -u include/netcond.h "$fresh"; then
    echo "include/netcond.h differs from a fresh cbindgen run: run bash .ci/ffi.sh --regen" >&2
    exit 1
fi
rm -f "$fresh"
echo "    include/netcond.h is fresh"
done_step

step "cargo test -p netcond-ffi (C tests plain and under ASan + UBSan; the C++17 and header tests)"
log=$(mktemp)
set +e
# NETCOND_C_SANITIZERS=1: every C test also under the sanitizers, which must
# build (libasan8, libubsan1 above); --include-ignored: the tests that need
# a C++ compiler and cbindgen, installed above.
NETCOND_C_SANITIZERS=1 cargo test -p netcond-ffi -- --include-ignored --nocapture >"$log" 2>&1
rc=$?
set -e
grep -E "^test |test result|panicked|error" "$log" || true
if [ "$rc" != 0 ]; then
    cat "$log" >&2
    exit 1
fi
rm -f "$log"
done_step

step "build the static and shared libraries (release)"
cargo build --release -p netcond-ffi
ls -l "$CARGO_TARGET_DIR/release/libnetcond.a" "$CARGO_TARGET_DIR/release/libnetcond.so"
done_step

step "link a C program against the shared library"
tmp=$(mktemp -d)
cat > "$tmp/shared.c" <<'C'
#include <stdio.h>
#include "netcond.h"
int main(void)
{
	netcond_trtcm_params params = {46000000, 69000000, 2048, 4096, 1000000000};
	netcond_trtcm_profile p;
	netcond_trtcm m;
	int rc = netcond_trtcm_profile_config(&p, &params);
	if (rc != 0 || netcond_trtcm_config(&m, &p, 0) != 0)
		return 1;
	if (netcond_trtcm_color_blind_check(&m, &p, 1000, 4097) != NETCOND_RED)
		return 1;
	printf("shared library: ok (netcond %u)\n", netcond_version());
	return 0;
}
C
cc -std=c99 -Wall -Wextra -Werror -I include "$tmp/shared.c" -L "$CARGO_TARGET_DIR/release" -lnetcond -o "$tmp/shared"
LD_LIBRARY_PATH="$CARGO_TARGET_DIR/release" "$tmp/shared"
rm -rf "$tmp"
done_step

step "pkg-config file and CMake snippet (docs/c-api.md)"
tmp=$(mktemp -d)
mkdir -p "$tmp/prefix/include" "$tmp/prefix/lib/pkgconfig"
cp include/netcond.h "$tmp/prefix/include/"
cp "$CARGO_TARGET_DIR/release/libnetcond.a" "$CARGO_TARGET_DIR/release/libnetcond.so" "$tmp/prefix/lib/"
sed "s|@PREFIX@|$tmp/prefix|" crates/netcond-ffi/netcond.pc.in > "$tmp/prefix/lib/pkgconfig/netcond.pc"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror crates/netcond-ffi/tests/c/trtcm_example.c \
    $(pkg-config --cflags --libs netcond) -o "$tmp/shared"
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/shared" >/dev/null
# Static: with only libnetcond.a installed, --static adds its system libraries.
rm "$tmp/prefix/lib/libnetcond.so"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror crates/netcond-ffi/tests/c/trtcm_example.c \
    $(pkg-config --cflags --libs --static netcond) -o "$tmp/static"
"$tmp/static" >/dev/null
echo "    pkg-config: the example builds and runs, shared and static"
mkdir -p "$tmp/cmake"
cp crates/netcond-ffi/tests/c/trtcm_example.c "$tmp/cmake/app.c"
cat > "$tmp/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.11)
project(netcond_cmake_check C)
add_executable(my_app app.c)
add_library(netcond STATIC IMPORTED)
set_target_properties(netcond PROPERTIES
  IMPORTED_LOCATION "\${NETCOND_DIR}/target/release/libnetcond.a"
  INTERFACE_INCLUDE_DIRECTORIES "\${NETCOND_DIR}/include"
  INTERFACE_LINK_LIBRARIES "gcc_s;util;rt;pthread;m;dl")
target_link_libraries(my_app PRIVATE netcond)
CMAKE
# The snippet expects NETCOND_DIR/target/release and NETCOND_DIR/include.
mkdir -p "$tmp/nc/target"
ln -s "$CARGO_TARGET_DIR/release" "$tmp/nc/target/release"
ln -s "$ROOT/include" "$tmp/nc/include"
cmake -S "$tmp/cmake" -B "$tmp/cmake/build" -DNETCOND_DIR="$tmp/nc" >/dev/null
cmake --build "$tmp/cmake/build" >/dev/null
"$tmp/cmake/build/my_app" >/dev/null
echo "    CMake: the snippet builds the example, which runs"
rm -rf "$tmp"
done_step

step "DPDK client (integrations/dpdk)"
if pkg-config --exists libdpdk; then
    make -s -C integrations/dpdk clean
    make -s -C integrations/dpdk NETCOND_LIB="$CARGO_TARGET_DIR/release/libnetcond.a"
    set +e
    integrations/dpdk/netcond-dpdk-meter -- -n 2000000 -f 16
    rc=$?
    # The check of the check: netcond's rates 100 ppm off DPDK's must color
    # some packet differently, so the run must fail.
    x_rc=0
    if [ "$rc" = 0 ]; then
        integrations/dpdk/netcond-dpdk-meter -- -n 200000 -f 4 -x 100 >/tmp/ffi-dpdk-x.log 2>&1
        x_rc=$?
    fi
    set -e
    # rte_pie against netcond's PIE (no EAL needed): netcond within the
    # tolerance of RFC 8033's update in double, rte_pie's documented
    # behaviours reproduced (integrations/dpdk/README.md).
    make -s -C integrations/dpdk netcond-pie-compare NETCOND_LIB="$CARGO_TARGET_DIR/release/libnetcond.a"
    integrations/dpdk/netcond-pie-compare | tail -5
    make -s -C integrations/dpdk clean
    if [ "$rc" = 0 ]; then
        if [ "$x_rc" = 0 ]; then
            cat /tmp/ffi-dpdk-x.log
            echo "the DPDK client passed with netcond's rates 100 ppm off: its check cannot fail" >&2
            exit 1
        fi
        echo "    with netcond's rates 100 ppm off, the client fails as it must:"
        grep 'colored differently' /tmp/ffi-dpdk-x.log | sed 's/^/    /'
    fi
    if [ "$rc" = 77 ]; then
        echo "    SKIPPED running the DPDK client: rte_eal_init cannot start on this machine (built fine)"
    elif [ "$rc" != 0 ]; then
        echo "the DPDK client failed ($rc)" >&2
        exit 1
    fi
else
    echo "pkg-config finds no libdpdk after installing libdpdk-dev" >&2
    exit 1
fi
done_step

step "C call against Rust call (trTCM color-blind, benches/benches/c_call.rs)"
# Interleaved in one process; the instruction counts of the same loops are the
# ffi_* operations of .ci/perf.sh's gate.
cargo bench --locked --manifest-path benches/Cargo.toml --bench c_call -- 21
done_step

echo "==> ffi: all done in $(( $(date +%s) - total_start )) s"
