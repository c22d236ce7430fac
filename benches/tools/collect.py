#!/usr/bin/env python3
"""Collects criterion medians into the ns/packet table of docs/performance.md.

Usage: python3 benches/tools/collect.py [target/criterion]

For each benchmark under the criterion directory it reads `new/estimates.json`
(median and mean of the sampled per-iteration times) and `new/benchmark.json`
(the throughput in elements per iteration) and prints a Markdown table of
nanoseconds per element (per packet, per pair, per recomputation). The mean
is there to show how much of the run the machine's other load took: a
sample that spans a preemption raises the mean, not the median.

The `machine/<binary>/<start|end>` rows (netcond_benches::machine) are then
summarized as the clock (from the dependent additions) and the additions per
cycle this thread got (dependent over independent time): a drop in the second
alone means another hardware thread shared the core while that binary ran.
"""
import json
import os
import sys


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "criterion")
    rows = []
    for dirpath, _dirs, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in files:
            continue
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        elements = 1
        tp = bench.get("throughput") or {}
        if "Elements" in tp:
            elements = tp["Elements"]
        elif "Bytes" in tp:
            elements = tp["Bytes"]
        med = est["median"]["point_estimate"] / elements
        lo = est["median"]["confidence_interval"]["lower_bound"] / elements
        hi = est["median"]["confidence_interval"]["upper_bound"] / elements
        mean = est["mean"]["point_estimate"] / elements
        rows.append((bench.get("full_id", dirpath), med, lo, hi, mean, elements))
    rows.sort()
    print("| benchmark | median ns/element | 95% CI of the median | mean | elements/iter |")
    print("|---|---:|---|---:|---:|")
    for name, med, lo, hi, mean, n in rows:
        print(f"| {name} | {med:.2f} | {lo:.2f} .. {hi:.2f} | {mean:.2f} | {n} |")
    probes = {}
    for name, med, _lo, _hi, _mean, _n in rows:
        parts = name.split("/")
        if len(parts) == 4 and parts[0] == "machine":
            probes.setdefault((parts[1], parts[2]), {})[parts[3]] = med
    if probes:
        print()
        print("| machine reading | clock GHz | additions per cycle |")
        print("|---|---:|---:|")
        order = {"start": 0, "end": 1}
        for (binary, when), p in sorted(probes.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 2))):
            dep, ind = p.get("dependent_adds"), p.get("independent_adds")
            if dep and ind:
                print(f"| {binary} {when} | {1.0 / dep:.2f} | {dep / ind:.2f} |")


if __name__ == "__main__":
    main()
