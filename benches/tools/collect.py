#!/usr/bin/env python3
"""Collects criterion medians into the ns/packet table of docs/performance.md.

Usage: python3 benches/tools/collect.py [target/criterion]

For each benchmark under the criterion directory it reads `new/estimates.json`
(median and mean of the sampled per-iteration times) and `new/benchmark.json`
(the throughput in elements per iteration) and prints a Markdown table of
nanoseconds per element (per packet, per pair, per recomputation). The mean
is there to show how much of the run the machine's other load took: a
sample that spans a preemption raises the mean, not the median.
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


if __name__ == "__main__":
    main()
