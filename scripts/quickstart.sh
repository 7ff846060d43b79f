#!/usr/bin/env bash
# Installs what is missing, builds stubjit (Release) and runs examples/quickstart. Only
# what the library, the stubjit command and the C++ examples need is installed and
# configured; scripts/test.sh adds the rest on the same build/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --quickstart
scripts/configure.sh --quickstart
cmake --build build --target quickstart -j "$(nproc)"
build/examples/quickstart
