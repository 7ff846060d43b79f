#!/usr/bin/env bash
# scripts/gpu-check.sh where a lent GPU machine would run it, as far as this machine can
# show: a minimal Debian 12 root (debootstrap) with only a C++ compiler, CMake and ninja
# installed, the CUDA toolkit bind-mounted read-only from this machine, the committed
# repository and the bundle of scripts/gpu-bundle.sh copied in; no package registry used
# by the check itself, no LLVM. Without a GPU:
#   1. gpu-check.sh must build, pass every CUDA test that needs no GPU, and exit 3 (no GPU);
#   2. with --no-gpu-ok, on the same build, exit 0 and leave its results file.
# Needs root (debootstrap, chroot, mount) and Debian's mirror (for the root and its three
# packages). Everything lives under build/gpu-container/ (STUBJIT_GPU_CONTAINER_DIR).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${STUBJIT_GPU_CONTAINER_DIR:-$repo/build/gpu-container}
mirror=${STUBJIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
root=$work/root
cuda=${CUDA_HOME:-/usr/local/cuda}

say() { echo "gpu-check-container: $*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mount)"
[ -d "$cuda" ] || fail "no CUDA toolkit at $cuda (CUDA_HOME)"

mount_points=(usr/local/cuda dev proc sys)
# shellcheck source=scripts/lib/minimal-root.sh
. "$repo/scripts/lib/minimal-root.sh"
trap unmount_all EXIT

"$repo/scripts/gpu-bundle.sh" "$work/bundle" | tail -n 1
make_minimal_root
say "installing only g++, cmake and ninja-build in the root"
in_root bash -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  --no-install-recommends g++ cmake ninja-build" >"$work/packages.log" 2>&1 ||
  fail "installing the compiler, CMake and ninja (log: $work/packages.log)"
! in_root test -e /usr/lib/llvm-14 || fail "LLVM is in the root"
mkdir -p "$root/usr/local/cuda"
mount --bind "$cuda" "$root/usr/local/cuda"
mount -o remount,bind,ro "$root/usr/local/cuda"
git clone --quiet --no-hardlinks "$repo" "$root/work/stubjit"
mkdir -p "$root/work/stubjit/build"
cp -r "$work/bundle" "$root/work/stubjit/build/gpu-bundle"

say "1/2: scripts/gpu-check.sh (no GPU here: must exit 3)"
status=0
in_root bash -c "cd /work/stubjit && scripts/gpu-check.sh --quick-bench" >"$work/check.log" 2>&1 ||
  status=$?
sed 's/^/    | /' "$work/check.log"
[ "$status" -eq 3 ] || fail "gpu-check.sh exited $status, expected 3 (no GPU; log: $work/check.log)"
grep -q "NO USABLE CUDA DEVICE" "$work/check.log" || fail "gpu-check.sh did not say that no GPU was found"

say "2/2: scripts/gpu-check.sh --no-gpu-ok (must exit 0 and write its results)"
in_root bash -c "cd /work/stubjit && scripts/gpu-check.sh --quick-bench --no-gpu-ok" \
  >"$work/check-no-gpu-ok.log" 2>&1 || fail "gpu-check.sh --no-gpu-ok (log: $work/check-no-gpu-ok.log)"
results=$(find "$root/work/stubjit/build-gpu/gpu-check" -name 'gpu-check-*.md' | head -n 1)
[ -n "$results" ] || fail "no results file"
grep -q "tests passed" "$results" || fail "the results file has no test summary"
sed 's/^/    | /' "$results" | head -n 40
cp "$results" "$work/"
say "passed; results: $work/$(basename "$results")"
