#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh: the test command of the README: configure, build and run the cpu-labelled tests.
# DEVO_WERROR=1 turns compiler warnings into errors (CI does this). BUILD_DIR (default build)
# and DEVO_CUDA (default ON: CUDA is built when nvcc exists). The gpu-labelled tests run first:
# where no device is visible each reports itself skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
werror=OFF
[ "${DEVO_WERROR:-0}" = 1 ] && werror=ON
cmake -S . -B "$build" -DDEVO_WERROR="$werror" -DDEVO_CUDA="${DEVO_CUDA:-ON}"
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -L gpu --output-on-failure
ctest --test-dir "$build" -L cpu --output-on-failure -j 2
