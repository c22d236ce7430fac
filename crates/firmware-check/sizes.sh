#!/usr/bin/env bash
# Code size of each per-packet entry point of the firmware: the bytes of its own
# function and of every function it can reach through direct calls and
# branches (its share of flash if it were the only one linked), from
# `nm -S` and `objdump -d` of the ARM binutils. Calls into core's panic
# functions are counted (column "panics": distinct panic functions the code can
# branch to, i.e. checks the compiler could not prove never fail) but their size
# is not added.
#
#   sizes.sh ELF                 one line per entry point:
#                                name own reachable panics callees...
#   sizes.sh --check BUDGET ELF OPT
#                                fails if an entry point's reachable bytes exceed
#                                its budget for opt-level OPT (lines "OPT name bytes")
set -euo pipefail
NM=${NM:-arm-none-eabi-nm}
OBJDUMP=${OBJDUMP:-arm-none-eabi-objdump}

report() {
  local elf=$1
  # File 1: "addr size type name" of every sized symbol; file 2: the disassembly.
  awk '
    function hex(s,   i, c, v) {
      v = 0; s = tolower(s)
      for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1)) - 1
        v = v * 16 + c
      }
      return v
    }
    FNR == NR { if (NF >= 4 && $3 ~ /^[tTwW]$/) size[$4] = hex($2); next }
    /^[0-9a-f]+ <[^>]+>:$/ {
      cur = $2; sub(/^</, "", cur); sub(/>:$/, "", cur); next
    }
    cur != "" && /^ +[0-9a-f]+:\t(b|cb)[a-z.]*\t/ {
      # A branch or call whose target is the start of another function.
      if (match($0, /<[^>+]+>$/)) {
        t = substr($0, RSTART + 1, RLENGTH - 2)
        if (t != cur && !((cur, t) in edge)) { edge[cur, t] = 1; out[cur] = out[cur] " " t }
      }
    }
    END {
      for (f in size) {
        if (f !~ /^fw_/) continue
        # Breadth-first over the call graph.
        delete seen; n = 0; q[n++] = f; seen[f] = 1; total = 0; panics = 0; list = ""
        for (i = 0; i < n; i++) {
          g = q[i]
          # The panic machinery (core::panicking, the slice index failures) is
          # counted, not followed: what it costs is the application panic
          # handler, shared by everything. Never reached at run time here.
          if (g ~ /panicking|panic_|slice_index_fail|index_fail/) { panics++; continue }
          total += size[g]
          if (g != f) list = list " " g
          m = split(out[g], next_, " ")
          for (j = 1; j <= m; j++) if (!(next_[j] in seen)) { seen[next_[j]] = 1; q[n++] = next_[j] }
        }
        printf "%s %d %d %d%s\n", f, size[f], total, panics, list
      }
    }
  ' <("$NM" -S --defined-only "$elf") <("$OBJDUMP" -d --no-show-raw-insn "$elf") | sort
}

if [ "${1:-}" = "--check" ]; then
  budget=$2 elf=$3 opt=$4
  report "$elf" | awk -v opt="$opt" '
    FNR == NR { if ($1 == opt) limit[$2] = $3; next }
    {
      seen[$1] = 1
      if (!($1 in limit)) { printf "no budget for %s at opt-level %s\n", $1, opt; bad++; next }
      if ($3 > limit[$1]) { printf "OVER BUDGET: %s is %d bytes at opt-level %s, budget %d\n", $1, $3, opt, limit[$1]; bad++ }
    }
    END {
      for (f in limit) if (!(f in seen)) { printf "missing entry point %s (opt-level %s)\n", f, opt; bad++ }
      if (bad) exit 1
      print "sizes within budget at opt-level " opt
    }
  ' "$budget" -
else
  report "$1"
fi
