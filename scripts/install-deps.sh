#!/usr/bin/env bash
# Installs the Debian 12 packages stubjit builds and tests with, on any Debian 12
# system, a minimal one included. With --quickstart, only those of the library, its CPU
# compiler plugin, the stubjit command and the C++ examples (scripts/quickstart.sh),
# without what the test suites, the benchmarks, the Fortran, Python and MPI bindings
# and hipRTC add. A package counts as installed only when the file the build reads
# from it is there (a CMake config file, a header, a library), so "all build
# dependencies are installed" is never printed before a configure that fails.
# Only what is missing is installed: a second run does nothing. GPU toolkits are not
# needed: the CUDA and HIP backends load their libraries at run time.
set -euo pipefail

# package | what the build reads from it (a glob; the first match counts)
requirements=(
  "cmake|/usr/bin/cmake"
  "ninja-build|/usr/bin/ninja"
  "pkg-config|/usr/bin/pkg-config"
  "g++|/usr/bin/g++"
  "llvm-14-dev|/usr/lib/llvm-14/lib/cmake/llvm/LLVMConfig.cmake"
  # ClangConfig.cmake and ClangTargets.cmake come with clang-14, not libclang-14-dev.
  "clang-14|/usr/lib/llvm-14/lib/cmake/clang/ClangConfig.cmake"
  # ClangTargets.cmake refuses to load unless the static Clang libraries it names exist.
  "libclang-14-dev|/usr/lib/llvm-14/lib/libclangBasic.a"
  "libclang-cpp14-dev|/usr/lib/llvm-14/lib/libclang-cpp.so"
  # Clang's own headers (stddef.h, ...), which the CPU backend's stubs compile against.
  "libclang-common-14-dev|/usr/lib/llvm-14/lib/clang/*/include/stddef.h"
  # lld as a library: the CPU compiler plugin links stubs into shared objects with it.
  "liblld-14-dev|/usr/lib/llvm-14/lib/cmake/lld/LLDConfig.cmake"
  # LLVMConfig.cmake looks for zlib and reports "Could NOT find ZLIB" without it.
  "zlib1g-dev|/usr/include/zlib.h"
  "libspdlog-dev|/usr/lib/*/cmake/spdlog/spdlogConfig.cmake"
  "libfmt-dev|/usr/lib/*/cmake/fmt/fmt-config.cmake"
  "libxxhash-dev|/usr/lib/*/pkgconfig/libxxhash.pc"
  "libcli11-dev|/usr/share/cmake/CLI11/CLI11Config.cmake"
  "nlohmann-json3-dev|/usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake"
)
# What the test suites, the benchmarks and the bindings add (all but --quickstart).
suite_requirements=(
  "libgtest-dev|/usr/lib/*/cmake/GTest/GTestConfig.cmake"
  "libgmock-dev|/usr/include/gmock/gmock.h"
  "libbenchmark-dev|/usr/lib/*/cmake/benchmark/benchmarkConfig.cmake"
  # The Fortran module (bindings/fortran) and its tests.
  "gfortran|/usr/bin/gfortran"
  # Not for building: the whole-process benchmark harness (bench/whole_process.py).
  "python3|/usr/bin/python3"
  # The Python package (bindings/python) and its tests, for Debian's /usr/bin/python3.
  "pybind11-dev|/usr/lib/cmake/pybind11/pybind11Config.cmake"
  "python3-dev|/usr/include/python3*/Python.h"
  "python3-numpy|/usr/lib/python3/dist-packages/numpy/__init__.py"
  "python3-pytest|/usr/lib/python3/dist-packages/pytest/__init__.py"
  # stubjit::mpi (src/mpi) and its tests under mpirun (tests/mpi).
  "libopenmpi-dev|/usr/lib/*/openmpi/include/mpi.h"
  "openmpi-bin|/usr/bin/orterun"
  # Not for building: ROCm 5.2's hipRTC, which the HIP compile tests run without a GPU.
  "libamdhip64-dev|/usr/lib/*/libamdhip64.so"
)

# Extra groups, asked for by the scripts that need them.
quickstart=false
for group in "$@"; do
  case "$group" in
    # scripts/quickstart.sh: the core set alone.
    --quickstart) quickstart=true ;;
    # scripts/test.sh --sanitize=...: GCC's sanitizer runtimes (g++ usually brings them).
    --sanitize)
      requirements+=("libasan8|/usr/lib/*/libasan.so.8*" "libubsan1|/usr/lib/*/libubsan.so.1*"
        "libtsan2|/usr/lib/*/libtsan.so.2*")
      ;;
    # scripts/fuzz.sh: Clang's libFuzzer and sanitizer runtimes.
    --fuzz)
      requirements+=("libclang-rt-14-dev|/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a")
      ;;
    # scripts/fresh-machine-check.sh (which installs it itself where missing; .ci/run
    # asks for it here, before it downloads the base system beside the first stage).
    --fresh-check)
      requirements+=("debootstrap|/usr/sbin/debootstrap")
      ;;
    *)
      echo "scripts/install-deps.sh: unknown argument '$group'" \
        "(--quickstart, --sanitize, --fuzz, --fresh-check)" >&2
      exit 2
      ;;
  esac
done
$quickstart || requirements+=("${suite_requirements[@]}")

present() { compgen -G "$1" >/dev/null; }

missing=()
missing_files=()
for requirement in "${requirements[@]}"; do
  package=${requirement%%|*}
  file=${requirement#*|}
  if ! present "$file"; then
    missing+=("$package")
    missing_files+=("$file")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "stubjit: all build dependencies are installed"
  exit 0
fi

command=(apt-get install -y --no-install-recommends "${missing[@]}")
# dpkg may list a package whose files were removed by hand: install it again.
for package in "${missing[@]}"; do
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    command=(apt-get install -y --no-install-recommends --reinstall "${missing[@]}")
    break
  fi
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    {
      echo "stubjit: installing the build dependencies needs root, and sudo is not available."
      echo "stubjit: as root, run"
      echo "    apt-get update && ${command[*]}"
      echo "stubjit: then run this script again."
    } >&2
    exit 1
  fi
  echo "stubjit: installing the build dependencies needs root: using sudo"
  sudo_cmd=(sudo)
fi

if [ -r /etc/os-release ]; then
  # shellcheck disable=SC1091
  . /etc/os-release
  if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ]; then
    echo "stubjit: note: this script is tested on Debian 12 only; this is ${PRETTY_NAME:-an unknown system} (see README.md, Supported systems)" >&2
  fi
fi

echo "stubjit: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" "${command[@]}" -q

# Never report success for a package that did not bring what the build reads.
still_missing=()
for i in "${!missing[@]}"; do
  present "${missing_files[$i]}" || still_missing+=("${missing[$i]} (${missing_files[$i]})")
done
if [ ${#still_missing[@]} -ne 0 ]; then
  echo "stubjit: installed, but still missing: ${still_missing[*]}" >&2
  exit 1
fi
echo "stubjit: all build dependencies are installed"
