#!/usr/bin/env bash
# Configures build/ the one way every script does (Release, Ninja, warnings as errors),
# so that quickstart.sh, test.sh and the fresh-machine check reuse each other's build.
# STUBJIT_WERROR=OFF drops -Werror, for compilers newer than the CI's GCC 12.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSTUBJIT_WERROR="${STUBJIT_WERROR:-ON}" "$@"
