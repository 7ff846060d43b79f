#!/usr/bin/env python3
"""Whole-process start-up figures: what a user waits for, from exec to exit.

Runs each program as a fresh process, alternating the programs within every round so
that drift of a shared machine reaches all alike, and reports medians and ratios
against a baseline measured in the same run:

  warm   the disk cache populated beforehand (one run of each program), KERNELS kernels
  cold   an empty cache directory for every run, 1 kernel

Programs: stubjit's bench_warm_start_program, OCCA's occa_warm_start (built outside the
repository by bench/peers/build-occa-peer.sh; optional), and bench_dlopen_baseline (an
empty C++ program that dlopens one small shared object).

  bench/whole_process.py --build build [--occa PATH] [--runs 21] [--kernels 1,50]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, env):
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000.0
    if done.returncode != 0:
        sys.exit(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed


def environment(**extra):
    env = dict(os.environ)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="stubjit build directory")
    parser.add_argument("--occa", help="occa_warm_start program (bench/peers/build-occa-peer.sh)")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--kernels", default="1,50")
    parser.add_argument("--cold-runs", type=int, default=7)
    args = parser.parse_args()

    stubjit = os.path.join(args.build, "bench", "bench_warm_start_program")
    baseline = os.path.join(args.build, "bench", "bench_dlopen_baseline")
    module = os.path.join(args.build, "bench", "libbench_dlopen_baseline_module.so")
    scratch = tempfile.mkdtemp(prefix="stubjit-whole-process-")
    try:
        rows = []
        for kernels in [int(k) for k in args.kernels.split(",")]:
            stubjit_env = environment(STUBJIT_CACHE_DIR=os.path.join(scratch, f"s{kernels}"))
            occa_env = environment(OCCA_CACHE_DIR=os.path.join(scratch, f"o{kernels}"))
            programs = {"stubjit": ([stubjit, str(kernels), "--expect-warm"], stubjit_env),
                        "dlopen baseline": ([baseline, module], environment())}
            if args.occa:
                programs["OCCA"] = ([args.occa, str(kernels)], occa_env)
            for argv, env in programs.values():  # populate the caches, warm the page cache
                timed([a for a in argv if a != "--expect-warm"], env)
                timed(argv, env)
            times = {name: [] for name in programs}
            names = list(programs)
            for run in range(args.runs):
                order = names[run % len(names):] + names[:run % len(names)]
                for name in order:
                    times[name].append(timed(*programs[name]))
            rows.append((f"warm, {kernels} kernel{'s' if kernels > 1 else ''}", times))

        times = {"stubjit": [], "stubjit, compile in process": []}
        if args.occa:
            times["OCCA"] = []
        for run in range(args.cold_runs):
            fresh = os.path.join(scratch, f"cold{run}")
            cold = {"stubjit": ([stubjit, "1"], environment(STUBJIT_CACHE_DIR=fresh + "s")),
                    "stubjit, compile in process":
                        ([stubjit, "1"], environment(STUBJIT_CACHE_DIR=fresh + "p",
                                                     STUBJIT_COMPILE_TIMEOUT=0))}
            if args.occa:
                cold["OCCA"] = ([args.occa, "1"], environment(OCCA_CACHE_DIR=fresh + "o"))
            names = list(cold)
            order = names[run % len(names):] + names[:run % len(names)]
            for name in order:
                times[name].append(timed(*cold[name]))
        rows.append(("cold, 1 kernel", times))

        print(f"runs: {args.runs} warm, {args.cold_runs} cold; medians in ms "
              "(min-max in parentheses); ratio = stubjit / reference")
        print()
        print("| figure | program | median ms | range ms | stubjit ratio |")
        print("| --- | --- | --- | --- | --- |")
        for figure, times in rows:
            medians = {name: statistics.median(v) for name, v in times.items()}
            reference = medians.get("OCCA", medians.get("dlopen baseline"))
            for name, values in times.items():
                ratio = ""
                if name.startswith("stubjit") and reference:
                    ratio = f"{medians[name] / reference:.2f}"
                print(f"| {figure} | {name} | {medians[name]:.1f} | "
                      f"{min(values):.1f}-{max(values):.1f} | {ratio} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
