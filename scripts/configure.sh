#!/usr/bin/env bash
# Configures build/ the one way every script does (Release, Ninja, warnings as errors),
# so that quickstart.sh, test.sh and the fresh-machine check reuse each other's build.
# STUBJIT_WERROR=OFF drops -Werror, for compilers newer than the CI's GCC 12.
#
#   scripts/configure.sh [CMAKE-ARGS...]               everything: the library, tools,
#                                                      examples, tests, benchmarks and
#                                                      the bindings whose packages are found
#   scripts/configure.sh --quickstart [CMAKE-ARGS...]  the library, tools and examples
#                                                      (what install-deps.sh --quickstart
#                                                      installs is enough)
#
# Every option that differs between the two is set either way: a configure keeps what
# the last one set, and a test.sh after a quickstart must get every suite back. The
# bindings are not even looked for by a quickstart, so that a compiler or package it
# did not find is not remembered as missing once test.sh has installed it.
set -euo pipefail
cd "$(dirname "$0")/.."
suites=ON
cmake_args=()
for argument in "$@"; do
  if [ "$argument" = --quickstart ]; then suites=OFF; else cmake_args+=("$argument"); fi
done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSTUBJIT_WERROR="${STUBJIT_WERROR:-ON}" -DSTUBJIT_BUILD_EXAMPLES=ON \
  -DSTUBJIT_BUILD_TESTS=$suites -DSTUBJIT_BUILD_BENCH=$suites -DSTUBJIT_FORTRAN=$suites \
  -DSTUBJIT_PYTHON=$suites -DSTUBJIT_MPI=$suites "${cmake_args[@]}"
