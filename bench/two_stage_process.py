#!/usr/bin/env python3
"""Whole-process figures for a two-stage launch's first compiles (docs/patterns.md, "Two
stages, compiled side by side"): `stubjit cache prewarm --target host` of one kernel's
split launch, a fresh process and an empty cache directory each run, from exec to exit.

Each case runs with compiles capped at one at a time on the node
(STUBJIT_MAX_PARALLEL_COMPILES=1: the stages one after the other, the baseline) and with
the default cap (the processors online: side by side where stubjit starts them so),
alternating which goes first in every round. Cases:

  sort        a sort of one pencil of 40000 int64 keys (runs, then merges)
  scan        a sum scan of one pencil of 2^22 doubles (partials, then the scan)
  saxpy+sort  a saxpy compiled first, so that one compile worker is ready
  saxpy+scan  the same before the scan

Prints per case the medians and baseline / default (above 1: side by side faster).

  bench/two_stage_process.py --build build [--runs 9]
"""
import argparse
import json
import os
import shutil
import statistics
import tempfile

from whole_process import timed

SAXPY = {"name": "saxpy",
         "params": [{"name": "a", "kind": "scalar", "type": "float"},
                    {"name": "x", "kind": "in", "type": "float"},
                    {"name": "y", "kind": "inout", "type": "float"}],
         "body": "y = a * x + y;", "launches": [{"domain": [1000]}]}
SORT = {"name": "sort_keys", "params": [{"name": "x", "kind": "sort", "type": "int64"}],
        "body": "", "launches": [{"domain": [40000]}]}
SCAN = {"name": "scan_sum",
        "params": [{"name": "x", "kind": "in", "type": "double"},
                   {"name": "s", "kind": "scan", "type": "double", "combiner": "sum"}],
        "body": "s = x;", "launches": [{"domain": [1 << 22]}]}
CASES = {"sort": [SORT], "scan": [SCAN], "saxpy+sort": [SAXPY, SORT],
         "saxpy+scan": [SAXPY, SCAN]}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="stubjit build directory")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    tool = os.path.join(args.build, "tools", "stubjit")
    scratch = tempfile.mkdtemp(prefix="stubjit-two-stage-")
    try:
        files = {}
        for name, kernels in CASES.items():
            files[name] = os.path.join(scratch, name.replace("+", "_") + ".json")
            with open(files[name], "w") as out:
                json.dump({"kernels": kernels}, out)
        cache = os.path.join(scratch, "cache")
        times = {(name, side): [] for name in CASES for side in ("one", "default")}
        for run in range(args.runs):
            for name in CASES:
                sides = ["one", "default"] if run % 2 == 0 else ["default", "one"]
                for side in sides:
                    shutil.rmtree(cache, ignore_errors=True)
                    env = dict(os.environ)
                    env.pop("STUBJIT_MAX_PARALLEL_COMPILES", None)
                    if side == "one":
                        env["STUBJIT_MAX_PARALLEL_COMPILES"] = "1"
                    argv = [tool, "cache", "--cache-dir", cache, "prewarm", "--target", "host",
                            files[name]]
                    times[(name, side)].append(timed(argv, env))
        print(f"{'case':12} {'one at a time':>14} {'default':>10} {'ratio':>7}   ({args.runs} runs)")
        for name in CASES:
            one = statistics.median(times[(name, "one")])
            default = statistics.median(times[(name, "default")])
            print(f"{name:12} {one:11.0f} ms {default:7.0f} ms {one / default:7.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
