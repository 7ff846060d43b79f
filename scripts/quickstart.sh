#!/usr/bin/env bash
# Installs what is missing, builds stubjit (Release) and runs examples/quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/configure.sh
cmake --build build --target quickstart -j "$(nproc)"
build/examples/quickstart
