#!/usr/bin/env bash
# Builds tests/consumer_c/main.c with the C compiler and nothing but pkg-config's flags
# for the stubjit installed in PREFIX, then runs it.
#   pkg_config_check.sh <C compiler> <prefix> <work dir>
set -euo pipefail
cc=$1
prefix=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
pc=$(find "$prefix" -name stubjit.pc -print -quit)
[ -n "$pc" ] || { echo "no stubjit.pc under $prefix"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
mkdir -p "$work"
# shellcheck disable=SC2046  # the flags are words
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags stubjit) \
  "$here/main.c" -o "$work/c_consumer_pkg_config" $(pkg-config --libs stubjit)
LD_LIBRARY_PATH="$(pkg-config --variable=libdir stubjit)" "$work/c_consumer_pkg_config"
