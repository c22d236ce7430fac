#!/usr/bin/env bash
# netcond on real packets: installs tshark, tcpdump, iperf3, nftables and
# iptables, runs netcond-pcap's tests with the tshark tests switched on, and
# the live NFQUEUE test across three network namespaces, and the tbf stage
# against Linux's tbf qdisc on the same traffic.
# Run from anywhere as root: bash .ci/pcap.sh
set -euo pipefail
cd "$(dirname "$0")/.."

t0=$SECONDS
part() { printf '\n==== pcap: %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; pstart=$SECONDS; }
took() { echo "---- took $((SECONDS - pstart)) s"; }

part "packages"
export DEBIAN_FRONTEND=noninteractive
need=()
for p in tshark tcpdump iperf3 nftables iptables iproute2 iputils-ping ethtool; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  # tshark's package asks whether non-root users may capture: answer no, non-interactively.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -qq -o DPkg::Lock::Timeout=900
  apt-get install -y -qq -o DPkg::Lock::Timeout=900 --no-install-recommends "${need[@]}" >/dev/null
fi
tshark -v | head -1
tcpdump --version 2>&1 | head -1
iperf3 --version | head -1
took

part "netcond-pcap: clippy and tests, tshark tests on"
cargo clippy -p netcond-pcap --all-targets -- -D warnings
mkdir -p target
# The tshark tests are #[ignore]d in a plain `cargo test` (they need tshark,
# and the loopback capture tcpdump and root): here, with what they need
# installed, they run with the others.
if ! cargo test -p netcond-pcap -- --include-ignored --nocapture 2>&1 | tee target/pcap-tests.log; then
  echo "netcond-pcap tests failed"
  exit 1
fi
took

part "netcond-nfq: live test across network namespaces"
cargo build --release -p netcond-pcap --bin netcond-nfq
bin="${CARGO_TARGET_DIR:-target}/release/netcond-nfq"
NFQ_BENCH=${NFQ_BENCH:-0} bash crates/netcond-pcap/tests/nfq.sh "$bin"
took

part "netcond-nfq tbf against Linux's tbf qdisc, live"
# Same traffic through Linux's tbf and through netcond-nfq's tbf stage:
# throughput, ping percentiles and drops compared (crates/netcond-pcap/tests/tbf_live.sh).
bash crates/netcond-pcap/tests/tbf_live.sh "$bin"
took

echo "pcap: all done in $((SECONDS - t0)) s"
