#!/usr/bin/env bash
# The CUDA checks for a lent GPU machine: one with a C++ compiler, CMake, ninja and the
# CUDA toolkit, but no package registry. Run from the repository root, with the folder
# scripts/gpu-bundle.sh made on a Debian 12 machine:
#
#   scripts/gpu-check.sh [--bundle DIR | --prebuilt DIR] [--build DIR] [--jobs N] [--quick-bench]
#                        [--no-memcheck] [--no-gpu-ok]
#
#   1. unpacks the bundle's packages (deps.tar) into <build>/deps: no root, no apt;
#   2. builds the library without the CPU backend (-DSTUBJIT_CPU_BACKEND=OFF: no LLVM),
#      the CUDA suites and bench_cuda;
#   3. runs the CUDA suites (ctest -L cuda, memcheck.sh through cuda_gpu_memcheck
#      included), then bench_cuda;
#   4. writes one results file, gpu-check-<date>-<gpu>.md, into $OUT when it is set (the
#      device tool brings $OUT back), else <build>/gpu-check/: it goes into bench/results/.
#
# Exit status: 0 when everything ran and passed on a GPU; 1 when a step or a test failed
# (with a GPU, a skipped test or a benchmark that errored too);
# 3 when no CUDA device was found, so that the GPU tests skipped: on a machine lent for
# its GPU that is a failed check, whatever else passed (--no-gpu-ok accepts it: the
# clean-container check of docs/cuda.md, which has no GPU).
#
#   --bundle DIR     the packages (default build/gpu-bundle)
#   --prebuilt DIR   no steps 1 and 2: the tree scripts/gpu-prebuild.sh built and packed
#                    into DIR here, linked to the paths it was configured at (they must
#                    be free on the GPU machine, or be this repository and DIR)
#   --build DIR      the build directory (default build-gpu)
#   --jobs N         tests run at once (default 4: a few of them take several GiB of the
#                    device's memory each)
#   --quick-bench    bench_cuda briefly (--benchmark_min_time=0.05) instead of in full
#   --no-memcheck    leave out cuda_gpu_memcheck (the GPU suite under compute-sanitizer,
#                    the longest step): for a first call within a 10-minute limit; run
#                    it alone later with ctest --test-dir <build> -R cuda_gpu_memcheck
#   --no-gpu-ok      exit 0 without a GPU when everything else passed
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; }
bundle=build/gpu-bundle
build="build-gpu"
prebuilt=
quick_bench=0
jobs=4
no_gpu_ok=0
ctest_exclude=()
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --prebuilt) prebuilt=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --quick-bench) quick_bench=1; shift ;;
    --no-gpu-ok) no_gpu_ok=1; shift ;;
    --no-memcheck) ctest_exclude=(-E cuda_gpu_memcheck); shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done

say() { echo "gpu-check: $*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}

cuda_home=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
[ -d "$cuda_home" ] || say "no CUDA toolkit at $cuda_home: NVRTC must be on the loader's path"
built_at=

if [ -n "$prebuilt" ]; then
  # --- 1 and 2, prebuilt: the paths the tree was configured at lead here ---------------------
  command -v ctest >/dev/null || fail "needs ctest"
  [ -f "$prebuilt/prebuilt.env" ] || fail "no $prebuilt/prebuilt.env: run scripts/gpu-prebuild.sh" \
    "on a Debian 12 machine and carry its pack here"
  value() {
    local found
    found=$(sed -n "s/^$1=//p" "$prebuilt/prebuilt.env")
    [ -n "$found" ] || fail "$prebuilt/prebuilt.env has no $1: make the pack again with" \
      "scripts/gpu-prebuild.sh"
    echo "$found"
  }
  source_root=$(value source_root)
  build=$(value build_dir)
  built_at=$(value commit)
  pack=$(cd "$prebuilt" && pwd)
  here=$(git describe --always --dirty 2>/dev/null || echo unknown)
  if [ "$here" != unknown ] && [ "$here" != "$built_at" ]; then
    say "warning: the pack was built at $built_at, this checkout is $here: the tests run" \
      "the pack's programs against this checkout's scripts and sources"
  fi
  if [ ! "$source_root" -ef "$PWD" ]; then
    [ ! -e "$source_root" ] && [ ! -L "$source_root" ] ||
      fail "the tree was configured at $source_root, which is something else here"
    mkdir -p "$(dirname "$source_root")"
    ln -s "$PWD" "$source_root"
    say "linked $source_root to this repository"
  fi
  if [ ! "$build" -ef "$pack" ]; then
    [ ! -e "$build" ] && [ ! -L "$build" ] ||
      fail "the tree was built at $build, which is something else here"
    ln -s "$pack" "$build"
    say "linked $build to $pack"
  fi
  log=$build/gpu-check.log
  : >"$log"
  export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "prebuilt at $built_at ($(sed -n 's/^built_on=//p' "$prebuilt/prebuilt.env");" \
    "$(sed -n 's/^compiler=//p' "$prebuilt/prebuilt.env"))"
else
  for tool in cmake ninja tar; do
    command -v "$tool" >/dev/null || fail "needs $tool"
  done
  command -v c++ >/dev/null || command -v g++ >/dev/null || fail "needs a C++ compiler (c++ or g++)"
  [ -d "$bundle" ] || fail "no bundle at $bundle: run scripts/gpu-bundle.sh on a Debian 12 machine" \
    "and carry the folder here"

  # --- 1. the packages, unpacked on the bundling machine: only tar here ----------------------
  deps=$PWD/$build/deps
  [ -f "$bundle/deps.tar" ] || fail "no $bundle/deps.tar: run scripts/gpu-bundle.sh on a Debian 12" \
    "machine and carry the folder here"
  rm -rf "$deps"
  mkdir -p "$deps"
  tar -xf "$bundle/deps.tar" -C "$deps" || fail "cannot unpack $bundle/deps.tar"
  say "unpacked $(wc -l <"$bundle/packages.txt" 2>/dev/null || echo "the") packages into $deps"
  libdir=$(dirname "$(find "$deps" -name 'spdlogConfig.cmake' -print -quit)")
  libdir=${libdir%/cmake/spdlog}
  [ -d "$libdir" ] || fail "the bundle has no spdlog CMake package"

  # --- 2. build -------------------------------------------------------------------------------
  log=$PWD/$build/gpu-check.log
  : >"$log"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTUBJIT_CPU_BACKEND=OFF \
    -DSTUBJIT_PYTHON=OFF -DSTUBJIT_FORTRAN=OFF \
    -DCMAKE_PREFIX_PATH="$deps/usr" -Dspdlog_DIR="$libdir/cmake/spdlog" -Dfmt_DIR="$libdir/cmake/fmt" \
    -DGTest_DIR="$libdir/cmake/GTest" -Dbenchmark_DIR="$libdir/cmake/benchmark" \
    -Dxxhash_INCLUDE_DIRS="$deps/usr/include" >>"$log" 2>&1 || fail "configure (see $log)"
  ninja -C "$build" -k 0 >>"$log" 2>&1 || fail "build (see $log; -k 0: every failing file is in it)"
  say "built in $build"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  case $build in /*) ;; *) build=$PWD/$build ;; esac
fi

# --- 3. the results file's head --------------------------------------------------------------
gpu_name=unknown
smi="no nvidia-smi"
if command -v nvidia-smi >/dev/null; then
  smi=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true)
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
fi
slug=$(tr -cs '[:alnum:]' '-' <<<"${gpu_name:-unknown}" | sed 's/^-//; s/-$//' | tr '[:upper:]' '[:lower:]')
out_dir=${OUT:-$build/gpu-check}
mkdir -p "$out_dir"
results=$out_dir/gpu-check-$(date -u +%F)-${slug:-unknown}.md
nvcc_version=$("$cuda_home/bin/nvcc" --version 2>/dev/null | tail -2 | tr '\n' ' ' || true)
gpu_tests=$build/tests/cuda/stubjit_cuda_gpu_tests
set +e
presence=$("$gpu_tests" --stubjit-device-present 2>&1)
present=$?
set -e
{
  echo "# scripts/gpu-check.sh on $(date -u '+%F %H:%M UTC')"
  echo
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)${built_at:+ (programs prebuilt at $built_at)}"
  echo "- device (nvidia-smi):"
  echo '```'
  echo "$smi"
  echo '```'
  echo "- CUDA toolkit: ${nvcc_version:-unknown} ($cuda_home)"
  echo "- compiler: $( (c++ --version 2>/dev/null || g++ --version) | head -1)"
  echo "- OS: $(grep -s '^PRETTY_NAME=' /etc/os-release | cut -d= -f2- | tr -d '"') $(uname -sr)"
  echo "- stubjit's view of the device: exit $present of --stubjit-device-present" \
    "(0: usable, 1: none, 2: present but unusable) ${presence}"
} >"$results"
say "results in $results"

# --- 4. the CUDA suites, then bench_cuda, each written down as it ends ------------------------
set +e
ctest_out=$(ctest --test-dir "$build" -L cuda "${ctest_exclude[@]}" -j "$jobs" --output-on-failure 2>&1)
ctest_rc=$?
set -e
echo "$ctest_out" >>"$log"
summary=$(grep -E '[0-9]+% tests passed' <<<"$ctest_out" || echo "no ctest summary")
failed_tests=$(sed -n '/The following tests FAILED:/,/^$/p' <<<"$ctest_out" | tail -n +2)
skipped_tests=$(sed -n '/The following tests did not run:/,/^$/p' <<<"$ctest_out" | tail -n +2)
{
  echo
  echo "## CUDA suites (ctest -L cuda ${ctest_exclude[*]} -j $jobs)"
  echo
  echo "$summary (ctest exit $ctest_rc)"
  echo
  echo "Failed:"
  echo '```'
  echo "${failed_tests:-none}"
  echo '```'
  echo "Skipped or not run:"
  echo '```'
  echo "${skipped_tests:-none}"
  echo '```'
} >>"$results"
say "CUDA suites: $summary"

bench_args=(--benchmark_counters_tabular=true)
[ "$quick_bench" -eq 1 ] && bench_args+=(--benchmark_min_time=0.05)
set +e
bench_out=$("$build/bench/bench_cuda" "${bench_args[@]}" 2>&1)
bench_rc=$?
set -e
echo "$bench_out" >>"$log"
{
  echo
  echo "## bench_cuda (exit $bench_rc)"
  echo
  echo '```'
  echo "$bench_out"
  echo '```'
} >>"$results"

# --- the verdict -----------------------------------------------------------------------------
[ "$ctest_rc" -eq 0 ] || fail "CUDA suites: $summary"
[ "$bench_rc" -eq 0 ] || fail "bench_cuda exited $bench_rc"
if [ "$present" -ne 0 ]; then
  if [ "$no_gpu_ok" -eq 1 ]; then
    say "no usable CUDA device (accepted: --no-gpu-ok); the GPU tests skipped"
    exit 0
  fi
  say "NO USABLE CUDA DEVICE: the GPU tests skipped, so this machine checked nothing of the" \
    "launch path ($presence)" >&2
  exit 3
fi
# With a device, nothing may have been left out: a skipped test or a benchmark that
# errored checked nothing. Only the CudaTwoDevices suite may skip, and only where
# nvidia-smi lists fewer than two GPUs.
gpu_count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
unexpected_skips=$skipped_tests
[ "${gpu_count:-0}" -ge 2 ] || unexpected_skips=$(grep -v ' - CudaTwoDevices\.' <<<"$skipped_tests" || true)
[ -z "$unexpected_skips" ] || fail "tests skipped on a machine with a CUDA device:
$unexpected_skips"
! grep -q "ERROR OCCURRED" <<<"$bench_out" || fail "bench_cuda: $(grep "ERROR OCCURRED" <<<"$bench_out" | head -3)"
say "passed on ${gpu_name}: $summary"
