#!/usr/bin/env python3
"""netcond's performance figures: instruction counts, the CI gate, same-run
ratios, and docs/performance.md. Python 3 standard library only.

  perf.py icount [--gungraun DIR] [--json OUT]
      Per-packet figures of every instruction-count benchmark
      (benches/benches/instructions.rs, run by gungraun with --save-summary):
      instructions, L1 and LL misses and estimated cycles per packet. DIR is
      gungraun's output directory ($CARGO_TARGET_DIR/gungraun or
      benches/target/gungraun).

  perf.py gate [--gungraun DIR] [--budget benches/budget.json]
      Fails (exit 1) when an operation's instructions per packet exceed its
      budget by more than the budget file's tolerance (3 %), when an operation
      of the budget file was not measured, or when netcond's count on an
      operation that the budget file pairs with a DPDK operation exceeds
      DPDK's while the budget says it is below it today.

  perf.py budget [--gungraun DIR] [--budget benches/budget.json]
      Rewrites the budget file from the figures measured now (see
      docs/performance.md, "The gate", for when to do it).

  perf.py ratios CSV
      The median ratio of each pair of loops of a `contention` CSV, with the
      spread over rounds (quartiles and 10th-90th percentiles).

  valgrind --tool=lackey --trace-mem=yes PROFILE_LINES 2>&1 | perf.py lines
      Which 64-byte lines of each profile the packet path read (the
      `profile_lines` example announces the profiles' address ranges).

  perf.py doc --contention CSV [--gungraun DIR] [--sizes FILE] [--criterion DIR]
              [--out docs/performance.md]
      Writes docs/performance.md from these outputs, with the CPU model, the
      date and the load average read from this machine.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_BUDGET = os.path.join(ROOT, "benches", "budget.json")

# Same-run ratios: (label, numerator column, denominator column, target, how
# the target reads). A ratio above 1 means the denominator is faster.
RATIOS = [
    ("trTCM color-blind, 1 flow: DPDK / netcond", "dpdk_trtcm_1flow", "trtcm_1flow", 2.5, ">="),
    ("srTCM color-blind, 1 flow: DPDK / netcond", "dpdk_srtcm_1flow", "srtcm_1flow", None, ""),
    ("RFC 4115 color-blind, 1 flow: DPDK / netcond", "dpdk_rfc4115_1flow", "rfc4115_1flow", None,
     ""),
    # The coin-flip streams (contention.rs): colors no predictor can learn.
    ("srTCM, 1 flow, coin flips: DPDK / netcond", "dpdk_srtcm_1flow_coin", "srtcm_1flow_coin",
     None, ""),
    ("trTCM, 1 flow, coin flips: DPDK / netcond", "dpdk_trtcm_1flow_coin", "trtcm_1flow_coin",
     None, ""),
    ("RFC 4115, 1 flow, coin flips: DPDK / netcond", "dpdk_rfc4115_1flow_coin",
     "rfc4115_1flow_coin", None, ""),
    ("srTCM, 65,536 flows, coin flips, prefetched: DPDK / netcond",
     "dpdk_srtcm_65536_coin_prefetched", "srtcm_65536_coin_prefetched", None, ""),
    ("srTCM, 65,536 flows, prefetched: DPDK / netcond", "dpdk_srtcm_65536_prefetched",
     "srtcm_65536_prefetched", 1.25, ">="),
    ("trTCM, 65,536 flows, prefetched: DPDK / netcond", "dpdk_trtcm_65536_prefetched",
     "trtcm_65536_prefetched", None, ""),
    ("RFC 4115, 65,536 flows, prefetched: DPDK / netcond", "dpdk_rfc4115_65536_prefetched",
     "rfc4115_65536_prefetched", None, ""),
    ("3sM node marker, 65,536 flows, prefetched: DPDK trTCM / netcond node",
     "dpdk_trtcm_65536_prefetched", "node_65536_prefetched", None, ""),
    # A million flows: DPDK's loop, prefetched by its caller eight packets
    # ahead, against netcond per packet prefetched the same way (the fair race)
    # and against netcond's burst API.
    ("trTCM, 1 M flows: DPDK per packet (prefetched) / netcond per packet prefetched",
     "dpdk_trtcm_1m_prefetched", "trtcm_1m_prefetched", 1.0, ">="),
    ("trTCM, 1 M flows: DPDK per packet (prefetched) / netcond burst API",
     "dpdk_trtcm_1m_prefetched", "trtcm_1m_burst", 1.5, ">="),
    ("srTCM, 1 M flows: DPDK per packet (prefetched) / netcond per packet prefetched",
     "dpdk_srtcm_1m_prefetched", "srtcm_1m_prefetched", 1.0, ">="),
    ("RFC 4115, 1 M flows: DPDK per packet (prefetched) / netcond per packet prefetched",
     "dpdk_rfc4115_1m_prefetched", "rfc4115_1m_prefetched", None, ""),
    ("srTCM, 1 M flows: DPDK per packet (prefetched) / netcond burst API",
     "dpdk_srtcm_1m_prefetched", "srtcm_1m_burst", 1.5, ">="),
    # The same race with netcond's 16-byte `Compact` states (same colors and
    # counts as the 24-byte ones, for buckets below 2^32 units).
    ("trTCM, 1 M flows: DPDK per packet (prefetched) / netcond Compact (16-byte state) per packet "
     "prefetched", "dpdk_trtcm_1m_prefetched", "trtcm_1m_compact_prefetched", 1.0, ">="),
    ("srTCM, 1 M flows: DPDK per packet (prefetched) / netcond Compact (16-byte state) per packet "
     "prefetched", "dpdk_srtcm_1m_prefetched", "srtcm_1m_compact_prefetched", 1.0, ">="),
    ("3sM node marker, 1 M flows: DPDK trTCM (prefetched) / netcond node, per packet prefetched",
     "dpdk_trtcm_1m_prefetched", "node_1m_prefetched", None, ""),
    ("3sM node marker, 1 M flows: DPDK trTCM (prefetched) / netcond node, burst API",
     "dpdk_trtcm_1m_prefetched", "node_1m_burst", None, ""),
    ("trTCM, 1 M flows: DPDK per packet (prefetched) / netcond per packet, not prefetched",
     "dpdk_trtcm_1m_prefetched", "trtcm_1m_plain", None, ""),
    ("srTCM, 1 M flows: DPDK per packet (prefetched) / netcond per packet, not prefetched",
     "dpdk_srtcm_1m_prefetched", "srtcm_1m_plain", None, ""),
    ("trTCM, 1 M flows: per packet / burst API (the burst path's saving)",
     "trtcm_1m_plain", "trtcm_1m_burst", 1.1, ">="),
    ("srTCM, 1 M flows: per packet / burst API", "srtcm_1m_plain", "srtcm_1m_burst", 1.1, ">="),
    ("3sM node marker, 1 M flows: per packet / burst API", "node_1m_plain", "node_1m_burst",
     1.1, ">="),
    ("trTCM, 1 M flows: per packet prefetched / burst API", "trtcm_1m_prefetched",
     "trtcm_1m_burst", None, ""),
    ("srTCM, 1 M flows: per packet prefetched / burst API", "srtcm_1m_prefetched",
     "srtcm_1m_burst", None, ""),
    ("3sM node marker, 1 M flows: per packet prefetched / burst API", "node_1m_prefetched",
     "node_1m_burst", None, ""),
    # Bounds: DPDK's loop against the memory floor, a "meter" with a state of
    # the same size that reads and writes it and computes nothing
    # (`harness_floor::Touch`), on the same stream with the same prefetching.
    # No meter with that state can beat DPDK by more than these ratios.
    ("bound: srTCM, 65,536 flows, prefetched: DPDK / floor (24-byte state, nothing computed)",
     "dpdk_srtcm_65536_prefetched", "floor24_65536_prefetched", None, ""),
    ("bound: srTCM, 1 M flows: DPDK per packet (prefetched) / floor (24-byte state) per packet "
     "prefetched", "dpdk_srtcm_1m_prefetched", "floor24_1m_prefetched", None, ""),
    ("bound: trTCM, 1 M flows: DPDK per packet (prefetched) / floor (24-byte state) per packet "
     "prefetched", "dpdk_trtcm_1m_prefetched", "floor24_1m_prefetched", None, ""),
    ("bound: srTCM, 1 M flows: DPDK per packet (prefetched) / floor (24-byte state) through the "
     "burst API", "dpdk_srtcm_1m_prefetched", "floor24_1m_burst", None, ""),
    ("bound: trTCM, 1 M flows: DPDK per packet (prefetched) / floor (24-byte state) through the "
     "burst API", "dpdk_trtcm_1m_prefetched", "floor24_1m_burst", None, ""),
    ("bound: srTCM, 1 M flows: DPDK per packet (prefetched) / floor (16-byte state) per packet "
     "prefetched", "dpdk_srtcm_1m_prefetched", "floor16_1m_prefetched", None, ""),
    ("bound: trTCM, 1 M flows: DPDK per packet (prefetched) / floor (16-byte state) per packet "
     "prefetched", "dpdk_trtcm_1m_prefetched", "floor16_1m_prefetched", None, ""),
    ("srTCM, 65,536 flows, prefetched: netcond / floor (24-byte state)",
     "srtcm_65536_prefetched", "floor24_65536_prefetched", None, ""),
    ("srTCM, 1 M flows, per packet prefetched: netcond / floor (24-byte state)",
     "srtcm_1m_prefetched", "floor24_1m_prefetched", None, ""),
    ("srTCM, 1 M flows, burst API: netcond / floor (24-byte state) through the burst API",
     "srtcm_1m_burst", "floor24_1m_burst", None, ""),
    ("RED, DPDK's law: rte_red / netcond", "dpdk_red", "red_dpdk_law", 1.25, ">="),
    ("RED, FJ93's law: rte_red / netcond", "dpdk_red", "red_fj93", 1.0, ">="),
    ("PIE enqueue (Linux's law): rte_pie / netcond", "dpdk_pie", "pie", 2.0, ">="),
    ("PIE enqueue, drawing at 20-30 %: rte_pie / netcond", "dpdk_pie_draw", "pie_draw", 2.0,
     ">="),
    ("RIO-C / RED (FJ93's law)", "rio_c", "red_fj93", 1.5, "<="),
    ("3sM node marker + RED / trTCM 1 flow", "node_3sm_then_red", "trtcm_1flow", 2.0, "<="),
]


def percentile(v, q):
    s = sorted(v)
    if not s:
        return float("nan")
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def gungraun_dir(arg):
    if arg:
        return arg
    for d in (os.environ.get("CARGO_TARGET_DIR"), os.path.join(ROOT, "benches", "target")):
        if d and os.path.isdir(os.path.join(d, "gungraun")):
            return os.path.join(d, "gungraun")
    sys.exit("no gungraun output found: pass --gungraun DIR")


def read_icount(root):
    """{operation: {ir, d1, ll, cycles, n}} per packet, from summary.json files."""
    ops = {}
    for dirpath, _dirs, files in os.walk(root):
        if "summary.json" not in files:
            continue
        with open(os.path.join(dirpath, "summary.json")) as f:
            s = json.load(f)
        m = re.fullmatch(r"(.+)_n(\d+)", s.get("id") or "")
        if not m or not s.get("benchmark_file", "").endswith("instructions.rs"):
            continue
        name, n = m.group(1), int(m.group(2))
        prof = [p for p in s["profiles"] if p["data"]["total"]["metrics"].get("Ir")]
        if not prof:
            continue
        met = prof[0]["data"]["total"]["metrics"]

        def get(k):
            v = met.get(k, {}).get("values", {}).get("new")
            return float(v) if v is not None else float("nan")

        ops[name] = {
            "n": n,
            "ir": get("Ir") / n,
            "l1_misses": (get("I1mr") + get("D1mr") + get("D1mw")) / n,
            "ll_misses": (get("ILmr") + get("DLmr") + get("DLmw")) / n,
            "cycles": get("EstimatedCycles") / n,
        }
    return ops


def icount_table(ops):
    lines = [
        "| operation | instructions | L1 misses | LL misses | estimated cycles |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in sorted(ops):
        o = ops[name]
        lines.append(
            f"| {name} | {o['ir']:.2f} | {o['l1_misses']:.3f} | {o['ll_misses']:.3f} | "
            f"{o['cycles']:.1f} |"
        )
    return "\n".join(lines)


def cmd_icount(a):
    ops = read_icount(gungraun_dir(a.gungraun))
    if not ops:
        sys.exit("no instruction-count summaries found")
    print(icount_table(ops))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(ops, f, indent=1, sort_keys=True)


def cmd_gate(a):
    ops = read_icount(gungraun_dir(a.gungraun))
    with open(a.budget) as f:
        b = json.load(f)
    tol = b["tolerance"]
    fails = []
    for name, budget in sorted(b["instructions_per_packet"].items()):
        if name not in ops:
            fails.append(f"{name}: not measured")
            continue
        got = ops[name]["ir"]
        limit = budget * (1 + tol)
        mark = "ok"
        if got > limit:
            mark = "OVER"
            fails.append(f"{name}: {got:.2f} instructions per packet, budget {budget:.2f} "
                         f"(+{tol:.0%} = {limit:.2f})")
        print(f"{mark:4} {name}: {got:.2f} (budget {budget:.2f})")
    for ours, theirs in sorted(b["below_dpdk"].items()):
        if ours not in ops or theirs not in ops:
            fails.append(f"{ours} vs {theirs}: not measured")
            continue
        o, t = ops[ours]["ir"], ops[theirs]["ir"]
        ok = o <= t
        print(f"{'ok' if ok else 'OVER':4} {ours} {o:.2f} <= {theirs} {t:.2f}")
        if not ok:
            fails.append(f"{ours}: {o:.2f} instructions per packet, above DPDK's {theirs} ({t:.2f})")
    if fails:
        print("\nthe instruction-count gate failed:")
        for f in fails:
            print("  " + f)
        sys.exit(1)
    print(f"\nthe instruction-count gate passed ({len(b['instructions_per_packet'])} budgets, "
          f"{len(b['below_dpdk'])} pairs below DPDK)")


def cmd_budget(a):
    ops = read_icount(gungraun_dir(a.gungraun))
    old = {}
    if os.path.exists(a.budget):
        with open(a.budget) as f:
            old = json.load(f)
    pairs = {}
    # netcond's operation and DPDK's on the same stream.
    for ours, theirs in [
        ("trtcm_blind_1flow", "dpdk_trtcm_blind_1flow"),
        ("srtcm_blind_1flow", "dpdk_srtcm_blind_1flow"),
        ("trtcm_blind_65536", "dpdk_trtcm_blind_65536"),
        ("trtcm_blind_65536_prefetched", "dpdk_trtcm_blind_65536_prefetched"),
        ("srtcm_blind_65536", "dpdk_srtcm_blind_65536"),
        ("srtcm_blind_65536_prefetched", "dpdk_srtcm_blind_65536_prefetched"),
        ("million_trtcm_plain", "dpdk_million_trtcm_plain"),
        ("million_trtcm_prefetched", "dpdk_million_trtcm_prefetched"),
        ("million_trtcm_burst", "dpdk_million_trtcm_prefetched"),
        ("million_srtcm_plain", "dpdk_million_srtcm_plain"),
        ("million_srtcm_prefetched", "dpdk_million_srtcm_prefetched"),
        ("million_srtcm_burst", "dpdk_million_srtcm_prefetched"),
        ("million_trtcm_compact_prefetched", "dpdk_million_trtcm_prefetched"),
        ("million_srtcm_compact_prefetched", "dpdk_million_srtcm_prefetched"),
        ("red_decision", "dpdk_red_decision"),
        ("red_decision_dpdk_law", "dpdk_red_decision"),
        *[(f"{m}_{v}_{n}", f"dpdk_{m}_{v}_{n}")
          for m, v in [("srtcm", "aware"), ("trtcm", "aware"), ("rfc4115", "blind"),
                       ("rfc4115", "aware")]
          for n in ["1flow", "65536", "65536_prefetched"]],
        ("ffi_c_call_trtcm_blind_1flow", "dpdk_c_call_trtcm_blind_1flow"),
        ("ffi_c_call_srtcm_blind_1flow", "dpdk_c_call_srtcm_blind_1flow"),
        ("pie_enqueue", "dpdk_pie_enqueue"),
        ("pie_enqueue_drawing", "dpdk_pie_enqueue_drawing"),
    ]:
        if ours in ops and theirs in ops and ops[ours]["ir"] <= ops[theirs]["ir"]:
            pairs[ours] = theirs
    out = {
        "comment": old.get("comment") or (
            "Instructions per packet of each operation of benches/benches/instructions.rs, "
            "written by `perf.py budget`; checked by `perf.py gate` (.ci/perf.sh). Lower a "
            "budget in the commit that makes the code faster: docs/performance.md, 'The gate'."),
        "tolerance": old.get("tolerance", 0.03),
        "instructions_per_packet": {
            k: round(v["ir"], 2) for k, v in sorted(ops.items()) if not k.startswith("dpdk_")
        },
        "below_dpdk": pairs,
    }
    with open(a.budget, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {a.budget}: {len(out['instructions_per_packet'])} budgets, {len(pairs)} pairs")


def read_csv(path):
    with open(path) as f:
        rows = [line.strip().split(",") for line in f if line.strip()]
    head = rows[0]
    cols = {h: [] for h in head[1:]}
    for r in rows[1:]:
        for h, v in zip(head[1:], r[1:]):
            cols[h].append(float(v))
    return cols


def ratio_rows(cols):
    out = []
    for label, num, den, target, how in RATIOS:
        if num not in cols or den not in cols:
            continue
        r = [a / b for a, b in zip(cols[num], cols[den]) if b > 0]
        med = percentile(r, 0.5)
        met = ""
        if target is not None:
            ok = med >= target if how == ">=" else med <= target
            met = "yes" if ok else "no"
        out.append({
            "label": label, "median": med, "q1": percentile(r, 0.25), "q3": percentile(r, 0.75),
            "p10": percentile(r, 0.1), "p90": percentile(r, 0.9), "target": target, "how": how,
            "met": met, "rounds": len(r),
        })
    return out


def ratios_table(cols):
    lines = [
        "| ratio | median | quartiles | 10th-90th percentile | target | met |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in ratio_rows(cols):
        t = f"{r['how']} {r['target']}" if r["target"] is not None else ""
        lines.append(
            f"| {r['label']} | {r['median']:.2f} | {r['q1']:.2f}-{r['q3']:.2f} | "
            f"{r['p10']:.2f}-{r['p90']:.2f} | {t} | {r['met']} |"
        )
    return "\n".join(lines)


def ns_table(cols):
    lines = ["| loop | median ns | quartiles |", "|---|---:|---:|"]
    for h, v in cols.items():
        lines.append(f"| {h} | {percentile(v, 0.5):.2f} | "
                     f"{percentile(v, 0.25):.2f}-{percentile(v, 0.75):.2f} |")
    return "\n".join(lines)


def cmd_ratios(a):
    cols = read_csv(a.csv)
    n = len(next(iter(cols.values())))
    print(f"{n} rounds\n")
    print(ratios_table(cols))
    print()
    print(ns_table(cols))


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = os.cpu_count()
    try:
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    kernel = platform.release()
    try:
        rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        rustc = "rustc (unknown)"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "unknown"
    return {"cpu": cpu, "cores": cores, "load": load, "kernel": kernel, "rustc": rustc,
            "date": now, "commit": commit}


def criterion_table(root):
    rows = []
    for dirpath, _dirs, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in files:
            continue
        try:
            with open(os.path.join(dirpath, "estimates.json")) as f:
                est = json.load(f)
            with open(os.path.join(dirpath, "benchmark.json")) as f:
                bench = json.load(f)
        except (OSError, ValueError):
            continue
        per = (bench.get("throughput") or {}).get("Elements") or 1
        rows.append((bench["full_id"], est["median"]["point_estimate"] / per,
                     est["mean"]["point_estimate"] / per))
    rows.sort()
    lines = ["| benchmark | median ns | mean ns |", "|---|---:|---:|"]
    lines += [f"| {n} | {m:.2f} | {mean:.2f} |" for n, m, mean in rows]
    return "\n".join(lines) if rows else ""


def cmd_doc(a):
    with open(os.path.join(HERE, "performance.md.in")) as f:
        tpl = f.read()
    m = machine()
    ops = read_icount(gungraun_dir(a.gungraun))
    cols = read_csv(a.contention)
    rounds = len(next(iter(cols.values())))
    lines = "(run with --lines)"
    if a.lines:
        with open(a.lines) as f:
            lines = f.read().strip()
    sizes = ""
    if a.sizes:
        with open(a.sizes) as f:
            sizes = f.read().strip()
    crit = criterion_table(a.criterion) if a.criterion else ""
    subst = {
        "MACHINE": (f"{m['cpu']}, {m['cores']} logical CPUs; Linux {m['kernel']}; {m['rustc']}"),
        "DATE": a.date or m["date"],
        "LOAD": a.load or m["load"],
        "COMMIT": m["commit"],
        "ROUNDS": str(rounds),
        "RATIOS": ratios_table(cols),
        "NS": ns_table(cols),
        "ICOUNT": icount_table(ops),
        "SIZES": sizes or "(run with --sizes)",
        "LINES": lines,
        "CRITERION": crit or "(no criterion run given: pass --criterion DIR)",
    }
    for k, v in subst.items():
        tpl = tpl.replace("{{" + k + "}}", v)
    for k, v in ops.items():
        tpl = tpl.replace("{{ir:" + k + "}}", f"{v['ir']:.1f}")
        tpl = tpl.replace("{{cy:" + k + "}}", f"{v['cycles']:.1f}")
    # {{r:a/b}}: the median over the rounds of loop a's time over loop b's;
    # {{ns:a}}: loop a's median ns per packet.
    def ratio(m):
        num, den = m.group(1), m.group(2)
        if num not in cols or den not in cols:
            return m.group(0)
        r = [x / y for x, y in zip(cols[num], cols[den]) if y > 0]
        return f"{percentile(r, 0.5):.2f}"

    def ns(m):
        if m.group(1) not in cols:
            return m.group(0)
        return f"{percentile(cols[m.group(1)], 0.5):.2f}"

    tpl = re.sub(r"\{\{r:([a-z0-9_]+)/([a-z0-9_]+)\}\}", ratio, tpl)
    tpl = re.sub(r"\{\{ns:([a-z0-9_]+)\}\}", ns, tpl)
    left = re.findall(r"\{\{[^}]+\}\}", tpl)
    if left:
        sys.exit(f"the template names figures that were not measured: {sorted(set(left))}")
    with open(a.out, "w") as f:
        f.write(tpl)
    print(f"wrote {a.out}")


def read_lines(trace):
    """[(name, size, lines of the profile, lines read)] from a lackey trace in
    which the `profile_lines` example announced each profile's range."""
    ranges, read = [], []
    for line in trace:
        if line.startswith("profile-range "):
            _, addr, size, name = line.rstrip("\n").split(" ", 3)
            ranges.append((name, int(addr, 16), int(size)))
            read.append(set())
            continue
        if len(line) < 4 or line[0] != " " or line[1] not in "LM":
            continue
        try:
            addr, size = line[3:].strip().split(",")
            a, n = int(addr, 16), int(size)
        except ValueError:
            continue
        for i, (_name, start, length) in enumerate(ranges):
            if a < start + length and a + n > start:
                lo, hi = max(a, start), min(a + n, start + length) - 1
                for ln in range((lo - start) // 64, (hi - start) // 64 + 1):
                    read[i].add(ln)
    return [(name, length, (length + 63) // 64, sorted(read[i]))
            for i, (name, _s, length) in enumerate(ranges)]


def lines_table(rows):
    out = ["| profile | bytes | 64-byte lines | lines the packet path read |", "|---|---:|---:|---:|"]
    for name, size, total, read in rows:
        which = ", ".join(str(x) for x in read)
        out.append(f"| {name} | {size} | {total} | {len(read)} (line {which}) |")
    return "\n".join(out)


def cmd_lines(a):
    print(lines_table(read_lines(sys.stdin)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("icount")
    s.add_argument("--gungraun")
    s.add_argument("--json")
    s.set_defaults(f=cmd_icount)
    for name, f in (("gate", cmd_gate), ("budget", cmd_budget)):
        s = sub.add_parser(name)
        s.add_argument("--gungraun")
        s.add_argument("--budget", default=DEFAULT_BUDGET)
        s.set_defaults(f=f)
    s = sub.add_parser("lines")
    s.set_defaults(f=cmd_lines)
    s = sub.add_parser("ratios")
    s.add_argument("csv")
    s.set_defaults(f=cmd_ratios)
    s = sub.add_parser("doc")
    s.add_argument("--contention", required=True)
    s.add_argument("--gungraun")
    s.add_argument("--sizes")
    s.add_argument("--lines")
    s.add_argument("--criterion")
    # When the timed runs were made some time before the file is generated
    # (the instruction counts do not depend on the load): their date and the
    # load average read at the time, as the header should give them.
    s.add_argument("--date", help="when the timed runs were made (default: now)")
    s.add_argument("--load", help="the load average during the timed runs (default: now)")
    s.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    s.set_defaults(f=cmd_doc)
    a = p.parse_args()
    a.f(a)


if __name__ == "__main__":
    main()
