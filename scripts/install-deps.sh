#!/usr/bin/env bash
# Installs the Debian packages stubjit builds and tests with; installs only what is
# missing, so a second run does nothing. GPU toolkits are not needed: the CUDA and
# HIP backends load their libraries at run time.
set -euo pipefail

packages=(
  cmake ninja-build pkg-config g++
  llvm-14-dev libclang-14-dev libclang-cpp14-dev libclang-common-14-dev
  libspdlog-dev libfmt-dev libxxhash-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # Not for building: ROCm 5.2's hipRTC, which the HIP compile tests run without a GPU.
  libamdhip64-dev
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "stubjit: all build dependencies are installed"
  exit 0
fi

echo "stubjit: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "stubjit: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
