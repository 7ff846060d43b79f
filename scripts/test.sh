#!/usr/bin/env bash
# Installs what is missing, builds (Release, warnings as errors) and runs the whole
# ctest suite. This is what CI runs. It reuses a build quickstart.sh made.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
jobs=$(nproc)
scripts/configure.sh
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
