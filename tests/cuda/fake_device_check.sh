#!/usr/bin/env bash
# CPU-only check of the GPU suite's skip rule, with the fake driver built in the test
# tree (fake_cuda_driver.cpp) standing in for libcuda:
#   - a driver that reports a device on which allocation fails makes the suite FAIL
#     (--stubjit-device-present exits 2, tests fail, memcheck.sh exits 1), never skip;
#   - a driver that reports no device makes it skip (exit 1, tests skipped, exit 77).
# Usage: fake_device_check.sh <stubjit_cuda_gpu_tests> <memcheck.sh> <fake libcuda>
set -uo pipefail
tests=$1
memcheck=$2
export STUBJIT_CUDA_DRIVER_PATH=$3
export STUBJIT_CACHE=off
filter='CudaMemory.CopiesRoundTripAndZeroSizeFieldsWork:CudaDevice.*:CudaGroups.YaklColumnAgainstAHostLoop'
status=0

fail() {
  echo "FAILED: $*"
  status=1
}

# Exit status and output of one command, into $rc and $out.
run() {
  out=$("$@" 2>&1)
  rc=$?
  echo "--- $* (exit $rc)"
  echo "$out" | tail -n 15
}

echo "=== a device on which cuMemAlloc fails"
export STUBJIT_FAKE_CUDA_DEVICES=1 STUBJIT_FAKE_CUDA_FAIL_ALLOC=1
run "$tests" --stubjit-device-present
[ "$rc" -eq 2 ] || fail "--stubjit-device-present exited $rc, expected 2 (device present, unusable)"
run "$tests" --gtest_filter="$filter"
[ "$rc" -ne 0 ] || fail "the GPU tests passed on a device that cannot allocate"
grep -q '\[  FAILED  \]' <<<"$out" || fail "no GPU test reported FAILED"
! grep -q '\[  SKIPPED \]' <<<"$out" || fail "a GPU test was skipped instead of failing"
# Without NVRTC the runtime cannot open at all: still a failure, for another reason.
if [ "${STUBJIT_TEST_REQUIRE_NVRTC:-}" = 1 ]; then
  grep -q 'CUDA_ERROR_OUT_OF_MEMORY' <<<"$out" || fail "the failure does not give the driver's error"
fi
run "$memcheck" "" "$tests"
[ "$rc" -eq 1 ] || fail "memcheck.sh exited $rc, expected 1"

echo "=== no device"
export STUBJIT_FAKE_CUDA_DEVICES=0 STUBJIT_FAKE_CUDA_FAIL_ALLOC=0
run "$tests" --stubjit-device-present
[ "$rc" -eq 1 ] || fail "--stubjit-device-present exited $rc, expected 1 (no device)"
run "$tests" --gtest_filter="$filter"
[ "$rc" -eq 0 ] || fail "the GPU tests did not pass (by skipping) without a device"
grep -q '\[  SKIPPED \]' <<<"$out" || fail "no GPU test was skipped without a device"
run "$memcheck" "" "$tests"
[ "$rc" -eq 77 ] || fail "memcheck.sh exited $rc, expected 77 (skipped)"

exit $status
