#!/usr/bin/env bash
# Installs what is missing, builds and runs the tests. This is what CI runs.
#
#   scripts/test.sh                        Release build in build/ (warnings as errors),
#                                          every suite; reuses a build quickstart.sh made
#   scripts/test.sh --sanitize=address,undefined
#   scripts/test.sh --sanitize=thread      an instrumented build of its own, in
#                                          build-sanitize-<list>/, running the suites that
#                                          need no GPU toolkit: cpu, unit, cache, tools
#                                          and the fuzz inputs' replay
#
# A sanitizer report fails the test it happens in. LLVM, Clang and libgomp come from
# Debian uninstrumented; tests/sanitizers/ holds ThreadSanitizer's suppressions for
# their code (its README says why each is there).
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
for argument in "$@"; do
  case "$argument" in
    --sanitize=*)
      sanitize=${argument#--sanitize=}
      if [ -z "$sanitize" ]; then
        echo "scripts/test.sh: --sanitize needs a list, e.g. --sanitize=address,undefined" >&2
        exit 2
      fi
      ;;
    -h | --help)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "scripts/test.sh: unknown argument '$argument' (see --help)" >&2
      exit 2
      ;;
  esac
done

if [ -z "$sanitize" ]; then scripts/install-deps.sh; else scripts/install-deps.sh --sanitize; fi
jobs=$(nproc)

if [ -z "$sanitize" ]; then
  scripts/configure.sh
  cmake --build build -j "$jobs"
  ctest --test-dir build --output-on-failure -j "$jobs"
  exit 0
fi

case "$sanitize" in
  address | undefined | address,undefined | undefined,address | thread) ;;
  *)
    echo "scripts/test.sh: --sanitize takes address, undefined, address,undefined or thread," \
      "not '$sanitize'" >&2
    exit 2
    ;;
esac

build="build-sanitize-${sanitize//,/-}"
suppressions="$PWD/tests/sanitizers"
# Line tables only, and assertions on. AddressSanitizer and UndefinedBehaviorSanitizer
# at -O0: every access is checked as written, and GCC's optimizers over instrumented
# code were most of the build (cpu/sort_test.cpp 74 s at -O1, 22 s at -O0; the whole
# build 1629 compile-seconds in a CI run at -O1, 788 at -O0; the suites 386 s on two
# cores with only the tests at -O0, 428 s with everything). ThreadSanitizer keeps -O1 (its run by hand has not been timed at -O0).
optimize="-O0"
[ "$sanitize" != thread ] || optimize="-O1"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$optimize -g1" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$optimize -g1" \
  -DSTUBJIT_WERROR="${STUBJIT_WERROR:-ON}" -DSTUBJIT_SANITIZE="$sanitize" \
  -DSTUBJIT_BUILD_BENCH=OFF -DSTUBJIT_BUILD_EXAMPLES=OFF
# Only the programs of the suites run here: the GPU suites need their toolkits'
# libraries, which are not instrumented (and HIP's loader refuses AddressSanitizer).
# The GPU emulator's suite (label emulator) runs in the Release pass only: its stubs
# are compiled by the plugin, which is not instrumented either.
cmake --build "$build" -j "$jobs" --target \
  stubjit stubjit_compile_worker stubjit_cpu_compiler stubjit_unit_tests stubjit_cpu_tests stubjit_hot_path_tests \
  stubjit_fusion_matrix_tests \
  stubjit_serial_backend_tests stubjit_cache_unit_tests stubjit_cache_tests \
  stubjit_cache_child stubjit_compile_cap_tests stubjit_compile_cap_child \
  stubjit_cli_tests stubjit_cli stubjit_fuzz_plan_replay \
  stubjit_fuzz_kernel_file_replay stubjit_fuzz_cache_entry_replay \
  stubjit_fuzz_bundle_manifest_replay stubjit_capi_test

# allocator_may_return_null: an allocation too large to serve returns null, as glibc's
# does, so that the tests of allocation failure see what a user's process would.
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer need no suppression
# (UBSan's could not apply anyway: suppressions only act on recoverable checks).
# intercept_tls_get_addr=0: LeakSanitizer's walk of dynamic TLS blocks (GCC 12's runtime
# with glibc 2.36) reads a bogus block and crashes at exit in a process that dlopened
# the CPU compiler plugin (LLVM's thread_locals); tests/sanitizers/README.md.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1:suppressions=$suppressions/tsan.supp"
# A suite of these labels whose program is missing from the list above would show up
# as an unlabelled <program>_NOT_BUILT test that the label filter drops: refuse that.
# (A sharded program's tests, stubjit_sharded_tests, keep their labels: a missing one
# fails them as not run.)
unbuilt=$(ctest --test-dir "$build" -N 2>/dev/null |
  sed -n 's/^ *Test *#[0-9]*: \(.*_NOT_BUILT\)$/\1/p' | grep -Ev '^stubjit_(cuda|hip|emulator)_' || true)
if [ -n "$unbuilt" ]; then
  echo "scripts/test.sh: test programs not built for the sanitizer pass: $unbuilt" \
    "(add them to the target list in scripts/test.sh)" >&2
  exit 1
fi
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L '^(cpu|unit|cache|tools|fuzz)$'
