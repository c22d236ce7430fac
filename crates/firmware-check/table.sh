#!/usr/bin/env bash
# Builds the firmware three ways (thumbv7em-none-eabihf at opt-level "s" and 3,
# thumbv6m-none-eabi at "s"), runs each under QEMU, and prints the flash, RAM
# and stack table of docs/firmware.md.
#
#   bash crates/firmware-check/table.sh            print the markdown table
#   bash crates/firmware-check/table.sh --budget   rewrite budget.txt: today's
#                                                  reachable bytes + 25 %
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
target_dir=${CARGO_TARGET_DIR:-$here/target}
export CARGO_TARGET_DIR=$target_dir
QEMU="qemu-system-arm -icount shift=5 -nographic -monitor none -serial none -semihosting-config enable=on,target=native"

# name: target profile qemu-machine
builds=(
  "v7em-s thumbv7em-none-eabihf release mps2-an386"
  "v7em-3 thumbv7em-none-eabihf release-o3 mps2-an386"
  "v6m-s thumbv6m-none-eabi release mps2-an385"
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for b in "${builds[@]}"; do
  read -r name target profile machine <<<"$b"
  cargo build --quiet --profile "$profile" --target "$target"
  elf=$target_dir/$target/$profile/firmware-check
  timeout 120 $QEMU -machine "$machine" -kernel "$elf" >"$work/$name.log"
  bash "$here/sizes.sh" "$elf" >"$work/$name.sizes"
done

if [ "${1:-}" = "--budget" ]; then
  {
    echo "# Budget of each per-packet entry point: bytes of code reachable from it"
    echo "# (sizes.sh), today's figures + 25 %. Regenerate: bash table.sh --budget"
    for name in v7em-s v7em-3; do
      awk -v n="$name" '{ printf "%s %s %d\n", n, $1, int(($3 * 125 + 99) / 100) }' "$work/$name.sizes"
    done
  } >"$here/budget.txt"
  echo "wrote $here/budget.txt"
  exit 0
fi

describe() {
  case $1 in
    fw_trtcm_color_blind) echo "RFC 2698 trTCM, color-blind" ;;
    fw_trtcm_color_aware) echo "RFC 2698 trTCM, color-aware" ;;
    fw_srtcm_color_blind) echo "RFC 2697 srTCM, color-blind" ;;
    fw_srtcm_color_aware) echo "RFC 2697 srTCM, color-aware" ;;
    fw_rfc4115_color_blind) echo "RFC 4115 trTCM, color-blind" ;;
    fw_rfc4115_color_aware) echo "RFC 4115 trTCM, color-aware" ;;
    fw_ef_policer_offer) echo "EF premium policer" ;;
    fw_et_marker) echo "3sM ET-marker" ;;
    fw_et_marker_sim48) echo "3sM ET-marker (explicit-marking-01 s4.8)" ;;
    fw_as_marker) echo "3sM AS-marker" ;;
    fw_node_3sm) echo "node marker, 3sM (ET + AS)" ;;
    fw_node_rfc5670) echo "node marker, RFC 5670 (ETM + ThM)" ;;
    fw_rfc5670_threshold) echo "RFC 5670 threshold meter" ;;
    fw_rfc5670_excess) echo "RFC 5670 excess-traffic meter" ;;
    fw_red_arrival) echo "RED decision" ;;
    fw_rio_arrival) echo "RIO / WRED decision" ;;
    fw_aecn_enqueue) echo "AECN enqueue" ;;
    fw_aecn_dequeue) echo "AECN dequeue" ;;
    fw_ras_enqueue) echo "RAS enqueue" ;;
    fw_ras_dequeue) echo "RAS dequeue" ;;
    fw_rbcc_stamp) echo "RBCC stamp (table update)" ;;
    fw_codel_dequeue) echo "CoDel dequeue verdict" ;;
    fw_fq_codel_enqueue) echo "FQ-CoDel enqueue (4 flows)" ;;
    fw_fq_codel_dequeue) echo "FQ-CoDel dequeue (schedule + verdict)" ;;
    fw_pie_enqueue) echo "PIE enqueue decision" ;;
    fw_pie_dequeue) echo "PIE departure (estimators)" ;;
    fw_pie_poll) echo "PIE probability update" ;;
    fw_fq_pie_enqueue) echo "FQ-PIE enqueue (4 flows)" ;;
    fw_fq_pie_dequeue) echo "FQ-PIE dequeue (schedule + departure)" ;;
    fw_dualpi2_enqueue) echo "DualPI2 classification" ;;
    fw_dualpi2_dequeue) echo "DualPI2 dequeue (schedule + verdict)" ;;
    fw_dualpi2_poll) echo "DualPI2 PI update" ;;
    fw_tbf_enqueue) echo "TBF enqueue" ;;
    fw_tbf_dequeue) echo "TBF dequeue" ;;
    *) echo "$1" ;;
  esac
}

echo "| entry point | what | flash, opt \"s\" (own / reachable) | flash, opt 3 (own / reachable) | flash, M0 opt \"s\" (reachable) | M0 helpers called | profile (B) | state (B) | stack, opt \"s\" / 3 / M0 (B) | instructions per call, opt \"s\" / 3 / M0 |"
echo "|---|---|---|---|---|---|---|---|---|---|"
while read -r ep own total panics rest; do
  read -r own3 total3 panics3 <<<"$(awk -v e="$ep" '$1 == e { print $2, $3, $4 }' "$work/v7em-3.sizes")"
  total0=$(awk -v e="$ep" '$1 == e { print $3 }' "$work/v6m-s.sizes")
  helpers=$(awk -v e="$ep" '$1 == e { for (i = 5; i <= NF; i++) if ($i ~ /^__(aeabi|[a-z]+[sdt]i[0-9])/) h = h " " $i; print h }' "$work/v6m-s.sizes" |
    sed -e 's/__aeabi_//g' -e 's/^ //' -e 's/ /, /g')
  # Profile and state sizes are the same at every opt-level (printed by the firmware).
  sizes=$(awk -v e="$ep" '$1 == "size" && $2 == e { print $4, $6 }' "$work/v7em-s.log")
  [ -n "$sizes" ] || sizes=$(case $ep in
    fw_*_color_aware) awk -v e="${ep%_aware}_blind" '$1 == "size" && $2 == e { print $4, $6 }' "$work/v7em-s.log" ;;
    fw_aecn_dequeue) awk '$1 == "size" && $2 == "fw_aecn_enqueue" { print $4, $6 }' "$work/v7em-s.log" ;;
    fw_ras_dequeue) awk '$1 == "size" && $2 == "fw_ras_enqueue" { print $4, $6 }' "$work/v7em-s.log" ;;
    fw_fq_codel_dequeue | fw_pie_* | fw_fq_pie_dequeue | fw_dualpi2_* | fw_tbf_dequeue)
      awk -v e="$(sed -e 's/_dequeue$/_enqueue/' -e 's/_poll$/_enqueue/' <<<"$ep")" '$1 == "size" && $2 == e { print $4, $6 }' "$work/v7em-s.log" ;;
    *) echo "? ?" ;;
  esac)
  read -r psize ssize <<<"$sizes"
  st() { awk -v e="$ep" '$1 == "stack" && $2 == "per-packet" && $3 == e ":" { print $4 }' "$1"; }
  ins() { awk -v e="$ep" '$1 == "insns" && $2 == "per-packet" && $3 == e ":" { print $4 }' "$1"; }
  panic_note="" panic_note3=""
  [ "$panics" = 0 ] || panic_note=" (panic calls: $panics)"
  [ "$panics3" = 0 ] || panic_note3=" (panic calls: $panics3)"
  echo "| \`$ep\` | $(describe "$ep") | $own / $total$panic_note | $own3 / $total3$panic_note3 | $total0 | ${helpers:--} | $psize | $ssize | $(st "$work/v7em-s.log") / $(st "$work/v7em-3.log") / $(st "$work/v6m-s.log") | $(ins "$work/v7em-s.log") / $(ins "$work/v7em-3.log") / $(ins "$work/v6m-s.log") |"
done < <(for e in fw_trtcm_color_blind fw_trtcm_color_aware fw_srtcm_color_blind \
  fw_srtcm_color_aware fw_rfc4115_color_blind fw_rfc4115_color_aware fw_ef_policer_offer \
  fw_et_marker fw_et_marker_sim48 fw_as_marker fw_node_3sm fw_node_rfc5670 \
  fw_rfc5670_threshold fw_rfc5670_excess fw_red_arrival fw_rio_arrival fw_aecn_enqueue \
  fw_aecn_dequeue fw_ras_enqueue fw_ras_dequeue fw_rbcc_stamp fw_codel_dequeue \
  fw_fq_codel_enqueue fw_fq_codel_dequeue fw_pie_enqueue fw_pie_dequeue fw_pie_poll \
  fw_fq_pie_enqueue fw_fq_pie_dequeue fw_dualpi2_enqueue fw_dualpi2_dequeue fw_dualpi2_poll \
  fw_tbf_enqueue fw_tbf_dequeue; do
  grep "^$e " "$work/v7em-s.sizes" || true
done)
echo
echo "Configuration (profile building, bytes, opt-level \"s\" / 3 / ARMv6-M \"s\"):"
echo
echo "| profile | stack |"
echo "|---|---|"
paste -d'\t' \
  <(grep '^stack configuration' "$work/v7em-s.log") \
  <(grep '^stack configuration' "$work/v7em-3.log" | sed 's/.*: //') \
  <(grep '^stack configuration' "$work/v6m-s.log" | sed 's/.*: //') |
  sed -e 's/^stack configuration /| `/' -e 's/: \([0-9]*\) bytes\t/` | \1 \/ /' -e 's/ bytes\t/ \/ /' -e 's/ bytes$/ |/'
