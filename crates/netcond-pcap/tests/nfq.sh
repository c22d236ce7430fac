#!/usr/bin/env bash
# Live test of netcond-nfq: three network namespaces joined by veth pairs,
#
#   sender (10.201.1.1) -- router (10.201.1.2 | 10.201.2.2) -- receiver (10.201.2.1)
#
# the router's forwarded sender->receiver packets go to NFQUEUE 0 (nftables),
# netcond-nfq polices them, iperf3 sends UDP at a fixed rate and then TCP, and
# tshark on the receiver's interface checks the DSCP/ECN marks and the
# delivered rate against the policer; then ECN-capable UDP through RED on a
# 10 Mbit/s link, whose queue holds the packets in the kernel until they leave. All addresses live inside the namespaces made here;
# everything is torn down on exit, failure included.
#
# usage: tests/nfq.sh [path/to/netcond-nfq]   (default: target dir's release build)
# With NFQ_BENCH=1 it also measures the packets/s the NFQUEUE path sustains.
set -euo pipefail

BIN=${1:-${CARGO_TARGET_DIR:-target}/release/netcond-nfq}
T=${NFQ_SECONDS:-4}
ID=$$
SND=ncsnd$ID RTR=ncrtr$ID RCV=ncrcv$ID
WORK=$(mktemp -d /tmp/netcond-nfq.XXXXXX)
PIDS=()

cleanup() {
  for p in "${PIDS[@]:-}"; do
    [ -n "$p" ] && kill "$p" 2>/dev/null || true
  done
  sleep 0.2
  for n in "$SND" "$RTR" "$RCV"; do
    ip netns del "$n" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

skip() { echo "SKIPPED nfq.sh: $*"; exit 0; }
die() { echo "FAILED nfq.sh: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, nftables, NFQUEUE)"
ip netns add "$SND" 2>/dev/null || skip "cannot create network namespaces here"
ip netns add "$RTR" && ip netns add "$RCV"
for t in iperf3 tshark nft; do
  command -v $t >/dev/null || die "$t is not installed (bash .ci/pcap.sh installs it)"
done
[ -x "$BIN" ] || die "no netcond-nfq binary at $BIN (cargo build --release -p netcond-pcap)"

ip link add s0 netns "$SND" type veth peer name r0 netns "$RTR" \
  || skip "cannot create veth pairs here"
ip link add r1 netns "$RTR" type veth peer name c0 netns "$RCV"
ip -n "$SND" addr add 10.201.1.1/24 dev s0
ip -n "$RTR" addr add 10.201.1.2/24 dev r0
ip -n "$RTR" addr add 10.201.2.2/24 dev r1
ip -n "$RCV" addr add 10.201.2.1/24 dev c0
for n in "$SND" "$RTR" "$RCV"; do ip -n "$n" link set lo up; done
ip -n "$SND" link set s0 up
ip -n "$RTR" link set r0 up
ip -n "$RTR" link set r1 up
ip -n "$RCV" link set c0 up
ip -n "$SND" route add default via 10.201.1.2
ip -n "$RCV" route add default via 10.201.2.2
ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1
# No offloads on the veths: tshark sees the packets as they are on the wire.
for x in "$SND s0" "$RTR r0" "$RTR r1" "$RCV c0"; do
  set -- $x
  ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1 || true
done
ip netns exec "$SND" ping -c 1 -W 2 10.201.2.1 >/dev/null || die "no route across the router"

# The queue rule, in nftables. Kernels built without nft's native `queue`
# expression (nft_queue) still have the xtables NFQUEUE target through
# nft_compat: iptables-nft then writes the same rule into the nftables ruleset.
if ip netns exec "$RTR" nft -f - 2>"$WORK/nft.err" <<'EOF'
table inet netcond {
  chain fwd_queue {
    type filter hook forward priority 0; policy accept;
    ip saddr 10.201.1.0/24 ip daddr 10.201.2.0/24 queue num 0
  }
}
EOF
then
  QUEUE_RULE="nft: queue num 0"
  unqueue() { ip netns exec "$RTR" nft flush chain inet netcond fwd_queue; }
else
  command -v iptables >/dev/null || die "nft has no queue expression here and iptables is not installed"
  ip netns exec "$RTR" nft delete table inet netcond 2>/dev/null || true
  ip netns exec "$RTR" iptables -A FORWARD -s 10.201.1.0/24 -d 10.201.2.0/24 -j NFQUEUE --queue-num 0 \
    || die "cannot install an NFQUEUE rule (nft said: $(head -1 "$WORK/nft.err"))"
  QUEUE_RULE="iptables-nft (nft_compat): -j NFQUEUE --queue-num 0; native nft queue unavailable: $(grep -m1 Error "$WORK/nft.err" || true)"
  unqueue() { ip netns exec "$RTR" iptables -F FORWARD; }
fi
echo "queue rule: $QUEUE_RULE"
ip netns exec "$RTR" nft list ruleset | sed 's/^/  /'

ip netns exec "$RCV" iperf3 -s -D -I "$WORK/iperf3.pid" >/dev/null
sleep 0.3
PIDS+=("$(cat "$WORK/iperf3.pid" 2>/dev/null || true)")

# One run: $1 name, $2 chain, $3 iperf3 client arguments, $4 more
# netcond-nfq arguments. Leaves the summary
# in $WORK/$1.nfq, the receiver capture in $WORK/$1.pcapng.
run() {
  local name=$1 chain=$2 args=$3 more=${4:-}
  ip netns exec "$RCV" tshark -q -n -i c0 -s 128 -f "src host 10.201.1.1" \
    -w "$WORK/$name.pcapng" 2>"$WORK/$name.tshark" &
  local tpid=$!
  PIDS+=("$tpid")
  for _ in $(seq 50); do grep -q "Capturing on" "$WORK/$name.tshark" 2>/dev/null && break; sleep 0.1; done
  # shellcheck disable=SC2086
  ip netns exec "$RTR" "$BIN" --queue 0 --duration $((T + 3)) $more --chain "$chain" >"$WORK/$name.nfq" 2>&1 &
  local npid=$!
  PIDS+=("$npid")
  sleep 0.5
  # shellcheck disable=SC2086
  ip netns exec "$SND" iperf3 -c 10.201.2.1 -t "$T" $args >"$WORK/$name.iperf" 2>&1 \
    || { cat "$WORK/$name.iperf"; die "$name: iperf3 failed"; }
  wait "$npid" || { cat "$WORK/$name.nfq"; die "$name: netcond-nfq failed"; }
  sleep 0.5
  kill -INT "$tpid" 2>/dev/null || true
  wait "$tpid" 2>/dev/null || true
}

# Per DSCP on the receiver: packets, IP bytes, first and last time
# ($2: more of the display filter, e.g. "&& udp").
by_dscp() {
  tshark -n -r "$WORK/$1.pcapng" -Y "ip.src==10.201.1.1 ${2:-}" -T fields \
    -e ip.dsfield.dscp -e ip.len -e frame.time_epoch 2>/dev/null |
    awk '{p[$1]++; b[$1]+=$2; if (!f || $3<f) f=$3; if ($3>l) l=$3}
         END {for (d in p) printf "%s %d %d\n", d, p[d], b[d]; printf "span %.6f\n", l-f}'
}

# Per DSCP and ECN on the receiver: packets, IP bytes.
by_mark() {
  tshark -n -r "$WORK/$1.pcapng" -Y "ip.src==10.201.1.1" -T fields \
    -e ip.dsfield.dscp -e ip.dsfield.ecn -e ip.len 2>/dev/null |
    awk '{k=$1 " " $2; p[k]++; b[k]+=$3} END {for (k in p) printf "%s %d %d\n", k, p[k], b[k]}' | sort
}

# The tool's table of forwarded packets by DSCP and ECN.
tool_mark() {
  awk '/^forwarded IP packets by DSCP/ {on=1; next} on && $1 != "dscp" {printf "%s %s %d %d\n", $1, $2, $3, $4}' \
    "$WORK/$1.nfq" | sort
}

check_counts() {
  local name=$1
  diff <(by_mark "$name") <(tool_mark "$name") >/dev/null \
    || { echo "receiver (dscp ecn packets bytes):"; by_mark "$name"; echo "netcond-nfq:"; tool_mark "$name";
         cat "$WORK/$name.nfq"; die "$name: tshark's DSCP/ECN counts differ from netcond-nfq's"; }
  echo "$name: receiver's DSCP/ECN counts (packets, bytes) equal netcond-nfq's: $(by_mark "$name" | tr '\n' ';')"
}

failed=0
check() { # $1 description, $2 awk condition (true = pass)
  if awk "BEGIN {exit !($2)}"; then echo "  ok: $1"; else echo "  FAIL: $1"; failed=1; fi
}

# --- UDP at 20 Mbit/s against a trTCM with CIR 5 Mbit/s, PIR 10 Mbit/s ---------
CIR=5000000 PIR=10000000 CBS=32768 PBS=65536
run udp "trtcm cir=5mbit pir=10mbit cbs=32k pbs=64k -> dscp af11,af12,af13 -> drop-red" \
  "-u -b 20M -l 1400"
check_counts udp
read -r span < <(by_dscp udp | awk '$1=="span" {print $2}')
g=$(by_dscp udp | awk '$1==10 {print $3}'); g=${g:-0}
y=$(by_dscp udp | awk '$1==12 {print $3}'); y=${y:-0}
r=$(by_dscp udp | awk '$1==14 {print $3}'); r=${r:-0}
echo "udp: receiver saw green $g B, yellow $y B, red $r B over $span s"
# The meter is exact on the router's clock. Between that clock and the
# receiver's capture timestamps each packet is delayed by its time in the
# kernel queue and in netcond-nfq (below a few ms), so the bounds are taken
# over the span plus 10 ms, and the lower ones allow 10 % for packets the
# kernel queue or the veths lost under the 20 Mbit/s offered.
check "green bytes <= CBS + CIR x (T + 10 ms)" "$g <= $CBS + $CIR / 8 * ($span + 0.01)"
check "green+yellow bytes <= PBS + PIR x (T + 10 ms)" "$g + $y <= $PBS + $PIR / 8 * ($span + 0.01)"
check "green bytes >= 0.9 CIR x T" "$g >= 0.9 * $CIR / 8 * $span"
check "delivered >= 0.9 PIR x T" "$g + $y >= 0.9 * $PIR / 8 * $span"
check "no red packet delivered" "$r == 0"

# --- TCP through an srTCM policer that drops red ------------------------------
CIR=8000000 CBS=65536 EBS=131072
run tcp "srtcm cir=8mbit cbs=64k ebs=128k -> dscp af21,af22,af23 -> drop-red" ""
check_counts tcp
read -r span < <(by_dscp tcp | awk '$1=="span" {print $2}')
g=$(by_dscp tcp | awk '$1==18 {print $3}'); g=${g:-0}
y=$(by_dscp tcp | awk '$1==20 {print $3}'); y=${y:-0}
r=$(by_dscp tcp | awk '$1==22 {print $3}'); r=${r:-0}
echo "tcp: receiver saw green $g B, yellow $y B, red $r B over $span s"
# srTCM: green <= CBS + CIR T, and everything that passes (green + yellow)
# <= CBS + EBS + CIR T. TCP backs off from the drops; it should still get
# at least a third of CIR.
check "green bytes <= CBS + CIR x (T + 10 ms)" "$g <= $CBS + $CIR / 8 * ($span + 0.01)"
check "delivered <= CBS + EBS + CIR x (T + 10 ms)" "$g + $y <= $CBS + $EBS + $CIR / 8 * ($span + 0.01)"
check "delivered >= CIR x T / 3" "$g + $y >= $CIR / 8 * $span / 3"
check "no red packet delivered" "$r == 0"

# --- UDP again through the built-in netlink client with batched verdicts ------
# Accepted packets are unchanged (no dscp stage), so runs of them share one
# NFQNL_MSG_VERDICT_BATCH; red ones are dropped one by one.
CIR=5000000 PIR=10000000 CBS=32768 PBS=65536
run udpb "trtcm cir=5mbit pir=10mbit cbs=32k pbs=64k -> drop-red" "-u -b 20M -l 1400" --batch-verdicts
check_counts udpb
read -r span < <(by_dscp udpb | awk '$1=="span" {print $2}')
d=$(by_dscp udpb | awk '$1==0 {print $3}'); d=${d:-0}
echo "udp, batched verdicts: receiver saw $d B over $span s; $(head -1 "$WORK/udpb.nfq")"
check "delivered <= PBS + PIR x (T + 10 ms)" "$d <= $PBS + $PIR / 8 * ($span + 0.01)"
check "delivered >= 0.9 PIR x T" "$d >= 0.9 * $PIR / 8 * $span"

# --- RED on a 10 Mbit/s link, live: ECN-capable UDP at 20 Mbit/s ------------
# The packets RED takes wait in the kernel's queue until their departure
# time at the link rate; RED marks CE (the packets are ECT(0): iperf3 --tos 2)
# and the full queue drops the excess.
LINK=10000000
run red "red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit limit=60 -> ecn-or-drop" "-u -b 20M -l 1400 --tos 2"
check_counts red
# The rate over iperf3's UDP datagrams (its TCP control connection, not
# ECN-capable, crosses RED too, before and after them).
read -r span < <(by_dscp red "&& udp" | awk '$1=="span" {print $2}')
d=$(by_dscp red "&& udp" | awk '$1==0 {print $3}'); d=${d:-0}
ce=$(by_mark red | awk '$1==0 && $2==3 {print $3}'); ce=${ce:-0}
ect=$(by_mark red | awk '$1==0 && $2==2 {print $3}'); ect=${ect:-0}
drops=$(awk '$1=="dropped" {print $2}' "$WORK/red.nfq"); drops=${drops:-0}
echo "red: receiver saw $d B of UDP over $span s; packets CE-marked $ce, ECT(0) $ect; netcond-nfq dropped $drops packets"
check "delivered <= link x (T + 10 ms) + a packet" "$d <= $LINK / 8 * ($span + 0.01) + 1428"
check "delivered >= 0.9 link x T" "$d >= 0.9 * $LINK / 8 * $span"
check "CE marks arrive" "$ce > 0"
check "the full queue dropped the excess" "$drops > 0"

# --- CoDel, FQ-CoDel and PIE on a 10 Mbit/s link, live ----------------------
# ECN-capable UDP at 20 Mbit/s: each AQM stage holds the packets in the
# kernel's queue until their transmission at `rate` ends, signals (marks CE
# or drops), and its limit drops what an unresponsive sender keeps adding.
# fq_codel's limit is set below the kernel queue's 4096 packets: a backlog
# still held when --duration ends leaves at once, above the link rate.
for aqm in "codel rate=10mbit ecn" "fq_codel rate=10mbit limit=300" "pie rate=10mbit ecn"; do
  name=${aqm%% *}
  run "$name" "$aqm" "-u -b 20M -l 1400 --tos 2"
  check_counts "$name"
  read -r span < <(by_dscp "$name" "&& udp" | awk '$1=="span" {print $2}')
  d=$(by_dscp "$name" "&& udp" | awk '$1==0 {print $3}'); d=${d:-0}
  ce=$(by_mark "$name" | awk '$1==0 && $2==3 {print $3}'); ce=${ce:-0}
  drops=$(awk '/^dropped/ {print $2}' "$WORK/$name.nfq"); drops=${drops:-0}
  echo "$name: receiver saw $d B of UDP over $span s; packets CE-marked $ce; netcond-nfq dropped $drops packets"
  check "$name: delivered <= link x (T + 10 ms) + a packet" "$d <= $LINK / 8 * ($span + 0.01) + 1428"
  check "$name: delivered >= 0.9 link x T" "$d >= 0.9 * $LINK / 8 * $span"
  check "$name: congestion signalled (CE marks or drops)" "$ce + $drops > 0"
done

if [ "${NFQ_BENCH:-0}" = 1 ]; then
  # --- packets/s through the queue: small UDP packets as fast as iperf3 sends --
  ip netns exec "$RTR" "$BIN" --queue 0 --duration $((T + 2)) \
    --chain "trtcm cir=10gbit pir=20gbit cbs=1m pbs=2m -> dscp af11,af12,af13" \
    >"$WORK/bench.nfq" 2>&1 &
  npid=$!; PIDS+=("$npid")
  sleep 0.5
  ip netns exec "$SND" iperf3 -c 10.201.2.1 -t "$T" -u -b 0 -l 64 >"$WORK/bench.iperf" 2>&1 || true
  wait "$npid" || true
  echo "bench (NFQUEUE, nfq crate, one verdict message per packet):"
  head -1 "$WORK/bench.nfq"
  grep -E "receiver" "$WORK/bench.iperf" | tail -1 || true
  for mode in --own-client --batch-verdicts; do
    # Metering only: every packet is accepted unchanged.
    ip netns exec "$RTR" "$BIN" --queue 0 --duration $((T + 2)) $mode \
      --chain "trtcm cir=10gbit pir=20gbit cbs=1m pbs=2m" >"$WORK/bench$mode.nfq" 2>&1 &
    npid=$!; PIDS+=("$npid")
    sleep 0.5
    ip netns exec "$SND" iperf3 -c 10.201.2.1 -t "$T" -u -b 0 -l 64 >"$WORK/bench$mode.iperf" 2>&1 || true
    wait "$npid" || true
    echo "bench (NFQUEUE, $mode, metering only):"
    head -1 "$WORK/bench$mode.nfq"
    grep -E "receiver" "$WORK/bench$mode.iperf" | tail -1 || true
  done
  # The same without the queue rule: the kernel alone.
  unqueue
  ip netns exec "$SND" iperf3 -c 10.201.2.1 -t "$T" -u -b 0 -l 64 >"$WORK/bench0.iperf" 2>&1 || true
  echo "bench (kernel forwarding, no queue):"
  grep -E "receiver" "$WORK/bench0.iperf" | tail -1 || true
fi

[ "$failed" = 0 ] || { for n in udp tcp udpb red; do echo "--- $n"; cat "$WORK/$n.nfq"; done; die "checks failed"; }
echo "nfq.sh: all checks passed"
