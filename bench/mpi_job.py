#!/usr/bin/env python3
"""Cluster figures: cold and warm starts of an MPI job of N ranks with KERNELS kernels.

Each run is a whole `mpirun` (what a user waits for), alternating the scenarios within
every round so that drift of a shared machine reaches all alike; medians over the runs.

  collective   stubjit::mpi::prepare first: each stub compiled once in the job
  shared       no collective; the ranks share one cache root, so a rank that finds a
               stub being compiled waits on the build lock and then loads it
  private      no collective; each rank its own cache root (ranks on different nodes
               with node-local caches): every rank compiles every stub
  bundle       warm: a fresh cache root filled by `stubjit cache import` of a bundle
               exported once from a filled cache; the job must compile nothing
               (the import's own time is given apart)

Compile seconds are summed over every compile of the job, from the compile trace
(STUBJIT_COMPILE_TRACE: each compile's slot held to released), with the seconds spent
waiting for a compile slot (STUBJIT_MAX_PARALLEL_COMPILES, default the core count)
given apart.

  bench/mpi_job.py --build build [--ranks 4,8] [--kernels 20] [--runs 5]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv, env):
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-2000:]}"
                 f"\n{done.stderr[-2000:]}")
    return elapsed, done.stdout


def fields(line):
    return dict(word.split("=", 1) for word in line.split() if "=" in word)


def trace_seconds(path):
    """(compile seconds, slot-wait seconds, compiles) from a compile trace."""
    if not os.path.exists(path):
        return 0.0, 0.0, 0
    held, waited, count, open_at = 0, 0, 0, {}
    with open(path) as trace:
        for line in trace:
            event, values = line.split(" ", 1)
            f = fields(values)
            who = (f["pid"], f["tid"])
            if event == "acquired":
                open_at[who] = int(f["t_ns"])
                waited += int(f["wait_ns"])
            elif event == "released" and who in open_at:
                held += int(f["t_ns"]) - open_at.pop(who)
                count += 1
    return held / 1e9, waited / 1e9, count


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="stubjit build directory")
    parser.add_argument("--ranks", default="4,8")
    parser.add_argument("--kernels", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    program = os.path.join(args.build, "bench", "bench_mpi_job")
    cli = os.path.join(args.build, "tools", "stubjit")
    mpirun = shutil.which("mpirun") or sys.exit("mpirun not found (openmpi-bin)")
    scratch = tempfile.mkdtemp(prefix="stubjit-mpi-job-")
    scenarios = ["collective", "shared", "private", "bundle"]
    try:
        # The bundle: one filled cache, exported once.
        filled = os.path.join(scratch, "filled")
        bundle = os.path.join(scratch, "job.stubjit-bundle")
        env = dict(os.environ, STUBJIT_CACHE_DIR=filled)
        run([mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root", program,
             str(args.kernels), "--collective"], env)
        run([cli, "cache", "export", bundle], env)

        rows = []
        for ranks in [int(r) for r in args.ranks.split(",")]:
            results = {s: [] for s in scenarios}
            imports = []
            for round_ in range(args.runs):
                order = scenarios[round_ % len(scenarios):] + scenarios[:round_ % len(scenarios)]
                for scenario in order:
                    root = tempfile.mkdtemp(dir=scratch)
                    trace = os.path.join(root, "trace")
                    env = dict(os.environ, STUBJIT_CACHE_DIR=os.path.join(root, "cache"),
                               STUBJIT_COMPILE_TRACE=trace)
                    flags = {"collective": ["--collective"], "shared": [],
                             "private": ["--private-cache"], "bundle": ["--expect-warm"]}[scenario]
                    if scenario == "bundle":
                        imports.append(run([cli, "cache", "import", bundle], env)[0])
                    wall, out = run([mpirun, "-np", str(ranks), "--oversubscribe",
                                     "--allow-run-as-root", program, str(args.kernels)] + flags,
                                    env)
                    line = fields(out.strip().splitlines()[-1])
                    held, waited, traced = trace_seconds(trace)
                    results[scenario].append((wall, float(line["ready_s"]), int(line["compiles"]),
                                              held, waited, traced))
                    shutil.rmtree(root)
            for scenario in scenarios:
                runs = results[scenario]
                median = lambda i: statistics.median(r[i] for r in runs)
                rows.append((ranks, scenario, median(0), median(1), median(2), median(3), median(4)))
            rows.append((ranks, "import", statistics.median(imports), None, None, None, None))

        print(f"| ranks | scenario | wall (mpirun) | slowest rank ready | compiles | "
              f"compile seconds | slot wait seconds |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for ranks, scenario, wall, ready, compiles, held, waited in rows:
            if scenario == "import":
                print(f"| {ranks} | `stubjit cache import` alone | {wall:.3f} s | | | | |")
                continue
            print(f"| {ranks} | {scenario} | {wall:.3f} s | {ready:.3f} s | {compiles:g} | "
                  f"{held:.2f} s | {waited:.2f} s |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
