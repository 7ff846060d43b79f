#!/usr/bin/env bash
# CPU-only check of the HIP GPU suite's skip rule, with the fake runtime built in the
# test tree (fake_hip_runtime.cpp, as libamdhip64.so.7) first on the loader's path:
#   - a runtime that reports a device on which hipMalloc fails makes the suite FAIL;
#   - a runtime that reports no device makes it skip.
# Usage: fake_device_check.sh <stubjit_hip_tests> <directory of the fake libamdhip64.so.7>
set -uo pipefail
tests=$1
export LD_LIBRARY_PATH=$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STUBJIT_CACHE=off
filter='HipGpu.CopiesRoundTripAndZeroSizeFieldsWork:HipGpu.DeviceIsDescribedWithItsTarget:HipGroups.YaklColumnAgainstAHostLoop'
status=0

fail() {
  echo "FAILED: $*"
  status=1
}

echo "=== a device on which hipMalloc fails"
out=$(STUBJIT_FAKE_HIP_DEVICES=1 STUBJIT_FAKE_HIP_FAIL_ALLOC=1 "$tests" --gtest_filter="$filter" 2>&1)
rc=$?
echo "$out" | tail -n 15
[ "$rc" -ne 0 ] || fail "the GPU tests passed on a device that cannot allocate"
grep -q '\[  FAILED  \]' <<<"$out" || fail "no GPU test reported FAILED"
! grep -q '\[  SKIPPED \]' <<<"$out" || fail "a GPU test was skipped instead of failing"

echo "=== no device"
out=$(STUBJIT_FAKE_HIP_DEVICES=0 "$tests" --gtest_filter="$filter" 2>&1)
rc=$?
echo "$out" | tail -n 15
[ "$rc" -eq 0 ] || fail "the GPU tests did not pass (by skipping) without a device"
grep -q '\[  SKIPPED \]' <<<"$out" || fail "no GPU test was skipped without a device"
grep -q 'libamdhip64.so.7) reports no device' <<<"$out" || fail "the skip does not come from the fake runtime"

exit $status
