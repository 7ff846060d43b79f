#!/usr/bin/env bash
# The GPU shape matrix (bench_gpu_shapes, issue #16) on a lent GPU machine, after
# scripts/gpu-check.sh has built build-gpu/ there: a call of its own, since the whole
# matrix and the check together do not fit the device tool's 10 minutes.
#
#   scripts/gpu-shapes.sh [--build DIR] [--quick] [FILTER]
#
#   FILTER       a --benchmark_filter (default: every case); ^saxpy/ and ^stencil/ split
#                the matrix in two calls where one does not fit
#   --quick      every case once at 4096 elements: the element-by-element checks only
#   --build DIR  the build directory gpu-check.sh used (default build-gpu; after
#                gpu-check.sh --prebuilt, the link it made or the pack itself)
#
# Writes gpu-shapes-<date>[-quick].json and its log into $OUT when set (the device tool
# brings $OUT back), else <build>/gpu-shapes/; bench/shape_table.py --target 0.97 makes
# the table. Exit status: 0 when every case ran; 1 when one reported an error (a
# result that differs from the hand-written kernel's, no device); 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-gpu
quick=0
filter=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-shapes: unknown argument '$1' (--help)" >&2; exit 2 ;;
    *) filter=$1; shift ;;
  esac
done

program=$build/bench/bench_gpu_shapes
[ -x "$program" ] || { echo "gpu-shapes: no $program: run scripts/gpu-check.sh first" >&2; exit 1; }
build=$(cd "$build" && pwd)  # --build may be relative or absolute
program=$build/bench/bench_gpu_shapes
# A tree gpu-check.sh built from a bundle: the bundle's libraries lie in deps/ (no deps/
# in a prebuilt tree: nothing is added then).
spdlog_config=$(find "$build/deps" -name 'spdlogConfig.cmake' -print -quit 2>/dev/null || true)
if [ -n "$spdlog_config" ]; then
  libdir=$(dirname "$spdlog_config")
  libdir=${libdir%/cmake/spdlog}
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# A tree from scripts/gpu-prebuild.sh carries its libraries in lib/.
if [ -d "$build/lib" ]; then
  export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

out_dir=${OUT:-$build/gpu-shapes}
mkdir -p "$out_dir"
name=gpu-shapes-$(date -u +%F)
# (Not $([ ... ] && echo -quick) in the assignment: its status would be the
# assignment's, and set -e would end the script without a word whenever it is false.)
if [ "$quick" -eq 1 ]; then name=$name-quick; fi
args=(--benchmark_out="$out_dir/$name.json" --benchmark_out_format=json)
[ -n "$filter" ] && args+=(--benchmark_filter="$filter")
if [ "$quick" -eq 1 ]; then
  export STUBJIT_SHAPES_TOTAL=4096 STUBJIT_SHAPES_ITERATIONS=1
fi
set +e
"$program" "${args[@]}" >"$out_dir/$name.log" 2>&1
rc=$?
set -e
errors=$(grep -c "ERROR OCCURRED" "$out_dir/$name.log" || true)
echo "gpu-shapes: exit $rc, $errors cases with an error; $out_dir/$name.json and .log"
[ "$rc" -eq 0 ] && [ "$errors" -eq 0 ]
