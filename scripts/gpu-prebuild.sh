#!/usr/bin/env bash
# Builds here (Debian 12 with the project's packages: scripts/install-deps.sh) what
# scripts/gpu-check.sh --prebuilt runs on a lent GPU machine, so that none of the
# machine's time goes to building: the tree gpu-check.sh would build there (Release,
# no CPU backend), packed without its objects and archives, with the shared libraries
# its programs load that are not part of the C and C++ runtimes.
#
#   scripts/gpu-prebuild.sh [--build DIR] [--pack DIR]
#
#   --build DIR   the build directory (default build-gpu)
#   --pack DIR    the folder to carry to the GPU machine (default build-prebuilt): the
#                 device tool's carry ["build-prebuilt"]; it must stay under 64 MiB
#
# The pack records where the tree was configured (prebuilt.env): ctest and the test
# programs name files by those absolute paths, so gpu-check.sh --prebuilt links them to
# where the repository and the pack lie on the GPU machine. The programs are built by
# this machine's GCC against its glibc and libstdc++; a GPU machine with the same or
# newer ones runs them (the lent machines have had newer).
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-gpu
pack=build-prebuilt
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --pack) pack=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-prebuild: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
say() { echo "gpu-prebuild: $*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}
for folder in "$build" "$pack"; do
  case $folder in /* | ..*) fail "--build and --pack are folders inside the repository" ;; esac
done
# The pack is removed and made again: never the build tree, nor a folder holding it or
# inside it.
build_path=$(realpath -m "$build")
pack_path=$(realpath -m "$pack")
case $build_path/ in "$pack_path"/*) fail "--pack $pack holds the build tree $build" ;; esac
case $pack_path/ in "$build_path"/*) fail "--pack $pack lies inside the build tree $build" ;; esac

cuda_home=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
# The memcheck test runs compute-sanitizer by the path configured here: the GPU
# machine's, which this machine's toolkit may lack.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTUBJIT_CPU_BACKEND=OFF \
  -DSTUBJIT_PYTHON=OFF -DSTUBJIT_FORTRAN=OFF -DSTUBJIT_MPI=OFF -DSTUBJIT_BUILD_EXAMPLES=OFF \
  -DSTUBJIT_COMPUTE_SANITIZER="$cuda_home/bin/compute-sanitizer" >/dev/null ||
  fail "configure $build"
ninja -C "$build" >/dev/null || fail "build $build (ninja -C $build shows why)"
say "built $build"

rm -rf "$pack"
mkdir -p "$pack/lib"
tar -C "$build" --exclude=CMakeFiles --exclude='*.a' --exclude='*.o' --exclude=./deps \
  --exclude=./gpu-check --exclude=./gpu-shapes --exclude=./.ninja_deps --exclude=./.ninja_log \
  -cf - . | tar -C "$pack" -xf -

# The shared libraries the programs load from this system (Google Benchmark's, say),
# but not the C and C++ runtimes the GPU machine has in newer versions, nor CUDA's,
# which the library opens at run time from the machine's own toolkit.
find "$pack" -type f -perm -u+x | while read -r program; do
  head -c 4 "$program" | grep -q ELF || continue
  if ! needed=$(ldd "$program" 2>&1); then
    case $needed in *"not a dynamic executable"*) continue ;; esac  # loads nothing
    fail "ldd cannot list what $program loads: $needed"
  fi
  echo "$needed" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r library; do
  case $(basename "$library") in
    libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | libdl.so* | libpthread.so* | librt.so* | \
      ld-linux* | libcuda* | libnvrtc* | libstubjit*) ;;
    *) cp -L "$library" "$pack/lib/" ;;
  esac
done

{
  echo "source_root=$PWD"
  echo "build_dir=$PWD/$build"
  echo "commit=$(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "built_on=$(uname -n) $(grep -s '^PRETTY_NAME=' /etc/os-release | cut -d= -f2- | tr -d '"')"
  echo "compiler=$( (c++ --version 2>/dev/null || g++ --version) | head -1)"
} >"$pack/prebuilt.env"
size=$(du -sm "$pack" | cut -f1)
# A device call carries the working tree too (tracked files and untracked ones git does
# not ignore), beside the pack.
# (du fails on a tracked file deleted here; its total is still the last line.)
tree=$( (git ls-files -z --cached --others --exclude-standard 2>/dev/null || true) |
  (du -cm --files0-from=- 2>/dev/null || true) | tail -n 1 | cut -f1)
tree=${tree:-0}
[ $((size + tree)) -lt 64 ] ||
  fail "$pack is $size MiB and the working tree $tree MiB: over the 64 MiB a device call carries"
say "$pack: $size MiB (with the working tree: $((size + tree)) MiB), libraries: $(ls "$pack/lib" | tr '\n' ' ')"
say "on the GPU machine: carry [\"$pack\"], run scripts/gpu-check.sh --prebuilt $pack"
