#!/usr/bin/env bash
# CI step: netcond inside ns-3. Installs Debian's ns-3 (libns3-dev, ns-3.37)
# with cmake, g++ and pkg-config, then runs integrations/ns3/run.sh (build
# libnetcond and the ns-3 programs; tests; the RED cross-check against ns-3's
# RedQueueDisc; the PCN example; an AddressSanitizer run). Exits non-zero on
# any failure. Skips (exit 0) only where Debian's package cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - t0 )) s"; }

echo "== ns3: install (libns3-dev cmake g++ pkg-config libgsl-dev libsqlite3-dev)"
# libgsl-dev and libsqlite3-dev: Debian's ns3-core.pc names libgsl.so,
# libgslcblas.so and libsqlite3.so by path, and libns3-dev does not depend
# on the packages that hold them.
pkgs=(libns3-dev cmake g++ pkg-config libgsl-dev libsqlite3-dev)
export DEBIAN_FRONTEND=noninteractive
# (the policy text is read whole: grep -q on a pipe under pipefail can fail
# the pipeline when it stops reading early)
candidate() { apt-cache policy libns3-dev 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
c=$(candidate)
if [ -z "$c" ] || [ "$c" = "(none)" ]; then
  apt-get update -o DPkg::Lock::Timeout=900 >/dev/null
  c=$(candidate)
fi
if [ -z "$c" ] || [ "$c" = "(none)" ]; then
  echo "SKIP: libns3-dev is not available from this machine's Debian sources"
  exit 0
fi
df_before=$(df -Pk / | awk 'NR == 2 { print $3 }')
apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=900 "${pkgs[@]}" >/dev/null
df_after=$(df -Pk / | awk 'NR == 2 { print $3 }')
echo "installed in $(elapsed), $(( (df_after - df_before) / 1024 )) MiB more used on /"
pkg-config --modversion ns3-core

echo "== ns3: integrations/ns3/run.sh"
t1=$(date +%s)
bash integrations/ns3/run.sh
echo "== ns3: run.sh took $(( $(date +%s) - t1 )) s; whole step $(elapsed)"
