#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh: runs tests/test_gpu_ls.c against the device code of kernels/gpu_sched_ls.cu executed on
# the CPU (tests/gpu_ls_emu/emu.cpp: every CUDA thread a coroutine, barriers, shuffles and
# ballots emulated), for checking the kernels' logic on a machine without a GPU. A developer
# check, not part of the build or CI: it emulates the warp primitives, not the hardware (no
# races, no timing, no %globaltimer: the deadline case cannot run).
# usage: tests/gpu_ls_emu/run.sh BUILD_DIR [CASE...]   (BUILD_DIR: a CPU-only build with tests)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [CASE...]}" && pwd)
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cu=$src/kernels/gpu_sched_ls.cu
first=$(grep -n '^#define DEVO__GLS_FILE' "$cu" | cut -d: -f1)
last=$(($(grep -n '^/\* ---- host' "$cu" | cut -d: -f1) - 1))
# the device part of the kernel file, with the shared array and the clock made host-side
sed -n "${first},${last}p" "$cu" |
  sed -e 's/^extern __shared__ double devo__gls_sm\[\];/static double devo__gls_sm[1 << 17];/' \
      -e 's/asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));/t = 0;/' \
      -e 's/^static size_t devo__gls_smem/static inline size_t devo__gls_smem/' >"$work/dev_part.inc"
cmake --build "$build" --target test_gpu_ls >/dev/null
g++ -std=c++17 -O2 -Wall -Wno-unused-function -I"$work" -I"$src" -I"$src/engine/include" \
  -c "$src/tests/gpu_ls_emu/emu.cpp" -o "$work/emu.o"
obj=$build/CMakeFiles/test_gpu_ls.dir/tests
g++ -o "$work/emu_test" "$work/emu.o" "$obj/test_gpu_ls.c.o" "$obj/tcheck.c.o" "$build/libdevo.a" \
  -lcsv -lpthread -lm -Wl,--allow-multiple-definition
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(scan_matches_brute_force search_matches_cpu_reference bad_options)
for c in "${cases[@]}"; do
  DEVO_SHARED=$src/data "$work/emu_test" "$c"
done
