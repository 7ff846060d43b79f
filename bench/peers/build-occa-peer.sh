#!/usr/bin/env bash
# Builds the OCCA side of the whole-process figures against an OCCA installed outside
# this repository (OCCA is not part of stubjit's build):
#   bench/peers/build-occa-peer.sh OCCA_PREFIX OUT_DIR
# OCCA itself: cmake -S <occa source> -B <build> -DCMAKE_BUILD_TYPE=Release
#   -DCMAKE_INSTALL_PREFIX=OCCA_PREFIX -DOCCA_ENABLE_OPENMP=ON (GPU modes off) && ninja install
set -euo pipefail
prefix=${1:?OCCA install prefix}
out=${2:?output directory}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
g++ -std=c++17 -O2 -I"$prefix/include" "$here/occa_warm_start.cpp" -o "$out/occa_warm_start" \
  -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -locca
echo "$out/occa_warm_start"
