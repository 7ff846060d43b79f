#!/usr/bin/env bash
# Builds the fuzz targets with clang-14's libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (tests/fuzz, a build of its own in build-fuzz/) and runs
# each for a bounded time, starting from the committed seed corpus and regression
# inputs, as many targets at a time as there are cores. CI runs it as it is.
#
#   scripts/fuzz.sh [--seconds N] [TARGET...]    N seconds per target (default 60);
#                                                targets: plan kernel_file cache_entry
#                                                bundle_manifest
#
# New inputs the fuzzer finds go to a temporary folder, never into the repository. An
# input that breaks a target is kept in out/fuzz/<target>/ and fails the run: fix the
# defect, then add the input to tests/fuzz/regressions/<target>/, where every ctest run
# replays it (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
    --seconds=*) seconds=${1#--seconds=}; shift ;;
    -h | --help) awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    plan | kernel_file | cache_entry | bundle_manifest)
      [[ " ${targets[*]-} " == *" $1 "* ]] || targets+=("$1")
      shift
      ;;
    *) echo "scripts/fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# libFuzzer takes -max_total_time=0 for "no limit": only a positive number bounds it.
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "scripts/fuzz.sh: --seconds takes a positive whole number, not '$seconds'" >&2
  exit 2
fi
[ ${#targets[@]} -gt 0 ] || targets=(plan kernel_file cache_entry bundle_manifest)

scripts/install-deps.sh --fuzz
cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DSTUBJIT_WERROR="${STUBJIT_WERROR:-ON}" >/dev/null
cmake --build build-fuzz -j "$(nproc)"

# One fuzzer per core at a time (each runs on one thread); each writes its log, and
# its exit status beside it, under out/fuzz/<target>/.
run_target() {
  local target=$1 artifacts="out/fuzz/$1" new_inputs status=0
  new_inputs=$(mktemp -d)
  local seeds=(tests/fuzz/corpus/"$target")
  [ -d tests/fuzz/regressions/"$target" ] && seeds+=(tests/fuzz/regressions/"$target")
  "build-fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$new_inputs" "${seeds[@]}" \
    >"$artifacts/fuzz.log" 2>&1 || status=$?
  rm -rf "$new_inputs"
  echo "$status" >"$artifacts/status"
}

jobs=$(nproc)
running=0
# An interrupted run stops its fuzzers too.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
for target in "${targets[@]}"; do
  mkdir -p "out/fuzz/$target"
  rm -f "out/fuzz/$target/status"
  echo "fuzz: $target for ${seconds} s (log in out/fuzz/$target/fuzz.log)"
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

found=()
for target in "${targets[@]}"; do
  log="out/fuzz/$target/fuzz.log"
  grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)" "$log" |
    sed "s/^/fuzz: $target /" || true
  status=$(cat "out/fuzz/$target/status" 2>/dev/null || echo "no status")
  if [ "$status" != 0 ]; then
    echo "fuzz: $target FAILED (exit $status); the end of its log:"
    tail -n 40 "$log" 2>/dev/null || true
    found+=("$target")
  fi
done

if [ ${#found[@]} -ne 0 ]; then
  echo "fuzz: inputs that break ${found[*]} are in out/fuzz/; replay one with" \
    "build-fuzz/fuzz_<target> FILE, fix the defect, then add it to tests/fuzz/regressions/<target>/"
  exit 1
fi
echo "fuzz: no target failed"
