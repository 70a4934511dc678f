#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh: the ctest case install.consumer. Installs an already-built devo tree into a temporary
# prefix and builds and runs tests/consumer/main.c against it twice: as a CMake project with
# find_package(devo), and with the compiler alone and `pkg-config --cflags --libs --static devo`.
# usage: run.sh CMAKE BUILD_DIR CC
set -euo pipefail
cmake=${1:?cmake}
build=${2:?build dir}
cc=${3:-cc}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/devo-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
test -f "$tmp/prefix/include/devo.h" || { echo "no devo.h installed"; exit 1; }

echo "== find_package(devo) from $tmp/prefix"
"$cmake" -S "$here" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
  >"$tmp/cm.log" || { cat "$tmp/cm.log"; exit 1; }
"$cmake" --build "$tmp/cm" >"$tmp/cm-build.log" || { cat "$tmp/cm-build.log"; exit 1; }
"$tmp/cm/consumer"

echo "== pkg-config --static devo"
pcdir=$(dirname "$(find "$tmp/prefix" -name devo.pc | head -1)")
export LD_LIBRARY_PATH="$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" # for a shared libdevo
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static devo)
echo "pkg-config: $flags"
# shellcheck disable=SC2086 # the flags are words
# CFLAGS/LDFLAGS: as CMake takes them above (scripts/sanitize_check.sh sets the sanitizer's)
"$cc" -std=c11 ${CFLAGS:-} -o "$tmp/consumer-pc" "$here/main.c" $flags ${LDFLAGS:-}
"$tmp/consumer-pc"
