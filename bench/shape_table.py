#!/usr/bin/env python3
"""Turns bench_shapes' or bench_gpu_shapes' JSON output (--benchmark_out=FILE
--benchmark_out_format=json) into the markdown table of bench/results/shapes.md: one row
per case, then the geometric mean and the minimum of the ratios (hand-written time /
stubjit time), overall, per kernel and per layout, and the cases below the target
(--target: 0.95 for the CPU matrix, 0.97 for the GPU one). Cases a device refused (a
forced mode beyond its limits) are listed after the table."""
import argparse
import json
import math
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = []
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            rows.append({"name": b["run_name"], "error": b.get("error_message", "error")})
            continue
        if b.get("refused"):
            rows.append({"name": b["run_name"], "refused": b.get("label", "refused")})
            continue
        parts = b["run_name"].split("/")[:5]
        kernel, rank, inner, layout, mode = parts
        rows.append({
            "name": "/".join(parts), "kernel": kernel, "rank": int(rank[1:]), "inner": inner,
            "layout": layout, "mode": mode, "ran": b.get("label", ""),
            "points": int(b["points"]), "stubjit": b["stubjit_GBps"], "hand": b["hand_GBps"],
            "ratio": b["ratio"],
        })
    return data.get("context", {}), rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summary_line(label, rows, target):
    ratios = [r["ratio"] for r in rows]
    worst = min(rows, key=lambda r: r["ratio"])
    return (f"| {label} | {len(rows)} | {geomean(ratios):.2f} | {worst['ratio']:.2f} "
            f"({worst['name']}) | {sum(1 for x in ratios if x < target)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("json")
    parser.add_argument("--target", type=float, default=0.95)
    args = parser.parse_args()
    context, rows = load(args.json)
    errors = [r for r in rows if "error" in r]
    refused = [r for r in rows if "refused" in r]
    good = [r for r in rows if "error" not in r and "refused" not in r]
    out = []
    out.append(f"| group | cases | geometric mean | minimum (case) | below {args.target:g} |")
    out.append("| --- | --- | --- | --- | --- |")
    out.append(summary_line("all", good, args.target))
    groups = defaultdict(list)
    for r in good:
        groups[f"kernel {r['kernel']}"].append(r)
        groups[f"layout {r['layout']}"].append(r)
        groups[f"{r['kernel']}, {r['layout']}"].append(r)
        groups[f"mode {r['mode']}"].append(r)
    for label in sorted(groups):
        out.append(summary_line(label, groups[label], args.target))
    out.append("")
    out.append("| kernel | rank | innermost | layout | mode asked | ran as | points | "
               "stubjit GB/s | hand GB/s | ratio |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in good:
        flag = " **" if r["ratio"] < args.target else ""
        out.append(f"| {r['kernel']} | {r['rank']} | {r['inner']} | {r['layout']} | {r['mode']} | "
                   f"{r['ran']} | {r['points']} | {r['stubjit']:.1f} | {r['hand']:.1f} | "
                   f"{flag.strip()}{r['ratio']:.2f}{flag.strip()} |")
    for r in refused:
        out.append(f"\nREFUSED {r['name']}: {r['refused']}")
    for r in errors:
        out.append(f"\nERROR {r['name']}: {r['error']}")
    print("\n".join(out))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
