#!/usr/bin/env bash
# Installs what is missing, builds stubjit (Release) and runs examples/quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target quickstart -j "$(nproc)"
build/examples/quickstart
