#!/usr/bin/env bash
# Throughput of netcond-pcap on a 1 M-packet capture with a trTCM chain, and
# where the instructions go (callgrind on 100 k packets of the same traffic).
# usage: bash crates/netcond-pcap/bench.sh     (needs valgrind for the profile)
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p netcond-pcap --examples --bins
W=$(mktemp -d /tmp/netcond-pcap-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
CHAIN='trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13'
# 1 M UDP/IPv4 packets of 106 bytes (64-byte payload), 1000 flows, 1 us apart.
"$T/release/examples/gen_capture" "$W/1m.pcap" 1000000 1000 64 1000
"$T/release/examples/gen_capture" "$W/100k.pcap" 100000 1000 64 1000
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
# Wall time, and the CPU time the process itself used (user + system, from
# GNU time): on a machine shared with other work the wall time includes the
# waits for a core and the disk, the CPU time is what one core spent.
run() { # $1 label, rest: arguments
  local label=$1; shift
  for i in 1 2 3; do
    local s e cpu=""
    s=$(date +%s%N)
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "%U %S" -o "$W/time" "$T/release/netcond-pcap" -q "$@" >/dev/null
      cpu=$(awk '{print $1 + $2}' "$W/time")
    else
      "$T/release/netcond-pcap" -q "$@" >/dev/null
    fi
    e=$(date +%s%N)
    awk -v l="$label" -v ns=$((e - s)) -v cpu="$cpu" 'BEGIN {
      printf "%-46s wall %6.3f s  %5.2f M packets/s", l, ns / 1e9, 1e6 / (ns / 1e9) / 1e6
      if (cpu != "" && cpu > 0) printf "   cpu %6.3f s  %5.2f M packets/s", cpu, 1e6 / cpu / 1e6
      printf "\n" }'
  done
}
run "aggregate, summary only" "$W/1m.pcap" -c "$CHAIN"
run "aggregate, output written (fsync, rename)" "$W/1m.pcap" "$W/out.pcap" -c "$CHAIN"
run "five-tuple (1000 flows), output written" "$W/1m.pcap" "$W/out.pcap" --classify five-tuple -c "$CHAIN"

command -v valgrind >/dev/null || { echo "valgrind not installed: no instruction profile"; exit 0; }
valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$T/release/netcond-pcap" -q \
  "$W/100k.pcap" "$W/out.pcap" -c "$CHAIN" >/dev/null 2>"$W/cg.err"
# Exclusive instruction counts grouped by where the code comes from (the
# file of each line; std code inlined into the loop is counted by the
# function it was inlined into).
callgrind_annotate --threshold=100 "$W/cg.out" 2>/dev/null | sed -n '/file:function/,$p' | tail -n +3 |
  python3 -c '
import re, sys, collections
g = collections.Counter(); tot = 0
for l in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+?):(.*)$", l.rstrip())
    if not m:
        continue
    ir = int(m.group(1).replace(",", "")); f = m.group(2); fn = m.group(3); tot += ir
    if "crates/trtcm/" in f or "crates/netcond-core/" in f:
        k = "netcond: the trTCM meter"
    elif f.endswith(("engine.rs", "stats.rs", "flows.rs")):
        k = "chain dispatch, counters, flow table"
    elif f.endswith("packet.rs") or "etherparse" in f or "set_tos" in fn or "packet::parse" in fn:
        k = "parsing (etherparse) and DSCP rewrite with checksum"
    elif ("pcap-file" in f or f.endswith("capture.rs") or "memmove" in f or "emit" in fn
          or "/io/" in f or "read_buffer" in f or "pcap_file" in fn):
        k = "capture read and write (pcap-file, copies, buffers)"
    elif "netcond_pcap::run" in fn or f.endswith("lib.rs"):
        k = "driver loop (with std code inlined into it)"
    else:
        k = "start-up and everything else"
    g[k] += ir
for k, v in g.most_common():
    print(f"{v / 100000:8.0f} instructions/packet {100 * v / tot:5.1f} %  {k}")
print(f"{tot / 100000:8.0f} instructions/packet in all (callgrind, 100 000 packets)")
'
