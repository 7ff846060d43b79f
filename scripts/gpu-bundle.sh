#!/usr/bin/env bash
# Downloads, on this machine (Debian 12 with its package mirror), the Debian packages that
# scripts/gpu-check.sh builds with on a lent GPU machine: one that has a C++ compiler,
# CMake, ninja and the CUDA toolkit, but no package registry. Headers and static
# libraries mostly (spdlog and fmt header-only, xxHash inlined, GoogleTest static); the
# few shared libraries are there because their packages' CMake files name them, and
# Google Benchmark's is what bench_cuda links.
#
#   scripts/gpu-bundle.sh [DIR]     (default: build/gpu-bundle)
#
# The packages are unpacked here, into one uncompressed DIR/deps.tar (about 5 MB), so
# that the GPU machine needs nothing but tar (a minimal system may have no xz, zstd or
# dpkg-deb); DIR/packages.txt lists them. The folder then travels with the repository to
# the GPU machine (docs/cuda.md, "On a lent GPU"): well under the 64 MiB a command
# there may carry.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
dest=${1:-build/gpu-bundle}
packages=(libspdlog-dev libspdlog1.10 libfmt-dev libfmt9 libxxhash-dev libgtest-dev libgmock-dev
  libbenchmark-dev libbenchmark1debian)

command -v apt-get >/dev/null || {
  echo "gpu-bundle: needs apt-get (run it on a Debian 12 machine)" >&2
  exit 1
}
mkdir -p "$dest"
debs=$dest/debs
rm -rf "$debs" "$dest/deps" "$dest/deps.tar" "$dest"/*.deb
mkdir -p "$debs"
# apt-get download writes into the current directory; as root, its sandbox user
# (_apt) could not write there, so it runs unsandboxed.
(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${packages[@]}")
count=$(find "$debs" -maxdepth 1 -name '*.deb' | wc -l)
[ "$count" -eq "${#packages[@]}" ] || {
  echo "gpu-bundle: expected ${#packages[@]} packages in $debs, found $count" >&2
  exit 1
}
for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$dest/deps"; done
rm -rf "$dest/deps/usr/share/doc" "$dest/deps/usr/share/man"
tar -cf "$dest/deps.tar" -C "$dest/deps" .
(cd "$debs" && ls ./*.deb) | sed 's|^\./||' >"$dest/packages.txt"
rm -rf "$dest/deps" "$debs"
echo "gpu-bundle: $count packages unpacked into $dest/deps.tar, $(du -sh "$dest" | cut -f1) in all"
