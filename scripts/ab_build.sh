#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab_build.sh: two source trees of devo (before and after a change) built and compared side by
# side on one machine, for the "no slower, no larger" promises of BENCHMARKS.md:
#   build  configure + build each tree with its own defaults (both at once, -j half the cores
#          each): wall seconds, CPU seconds (user + sys), size of devo, libdevo.a, the build folder
#   sass   the machine code of devo's kernels, disassembled (cuobjdump -sass), addresses and
#          encodings stripped: how many lines differ
#   load   the first launch: a process that runs one small GPU solve, wall time, A and B
#          alternating, RUNS times each (default 7), the median
#   bench  the GPU benchmark programs, A and B alternating ROUNDS times (default 2): bench-gpu,
#          bench-cec (F03), bench-variants (case 0), bench-gpu-ls (their arguments below;
#          BENCH_ONLY=name,... chooses)
#   gputest  ctest -L gpu of B
# usage: ab_build.sh OLD_SRC NEW_SRC OUT_DIR STAGE...
# Build folders: $AB_BUILD/{a,b} (default .devo_dev/ab, kept for later calls on the same machine).
# CMAKE_ARGS: extra configure arguments of both trees, CMAKE_ARGS_A / CMAKE_ARGS_B of one.
# Data: NEW_SRC/data.
set -u
[ $# -ge 4 ] || { echo "usage: ab_build.sh OLD_SRC NEW_SRC OUT_DIR STAGE..." >&2; exit 2; }
src_a=$(cd "$1" && pwd) src_b=$(cd "$2" && pwd) out=$3
shift 3
mkdir -p "$out"
base=${AB_BUILD:-.devo_dev/ab}
mkdir -p "$base"
base=$(cd "$base" && pwd)
data=$src_b/data
jobs=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))

build_one() { # $1 label, $2 source
  local b=$base/$1 t0 t1
  rm -rf "$b"
  t0=$(date +%s.%N)
  local TIMEFORMAT='%3U %3S' # bash's own: the CPU seconds of the children too
  # shellcheck disable=SC2046,SC2086
  { time (cmake -S "$2" -B "$b" -DDEVO_WERROR=ON -DDEVO_SHARED_DIR="$data" ${CMAKE_ARGS:-} \
    $([ "$1" = a ] && echo "${CMAKE_ARGS_A:-}" || echo "${CMAKE_ARGS_B:-}") >"$out/build_$1.log" 2>&1 &&
    cmake --build "$b" -j "$jobs" >>"$out/build_$1.log" 2>&1); } 2>"$out/cpu_$1.txt"
  local rc=$?
  t1=$(date +%s.%N)
  local cpu
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$out/cpu_$1.txt")
  printf '%s rc=%d wall_s=%.0f cpu_s=%s devo_bytes=%s libdevo_bytes=%s build_dir_MB=%s arch=%s\n' "$1" "$rc" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$cpu" "$(stat -c %s "$b/devo" 2>/dev/null)" \
    "$(stat -c %s "$b/libdevo.a" 2>/dev/null)" "$(du -sm "$b" | cut -f1)" \
    "$(grep -o 'CUDA architectures [^ ]*' "$out/build_$1.log" | head -1 | cut -d' ' -f3)" >"$out/build_$1.txt"
}

sass_of() { # the instructions of every kernel, in a stable form
  cuobjdump -sass "$1" 2>/dev/null | sed -E 's@/\*[0-9a-f]{4,}\*/@@; s@/\* 0x[0-9a-f]+ \*/@@; s/[[:space:]]+/ /g' |
    grep -vE '^ ?$|^ ?(code for|Fatbin|arch =|code version|host =|compile_size|identifier|ptxasOptions)'
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for stage in "$@"; do
  case $stage in
  build)
    build_one a "$src_a" &
    build_one b "$src_b" &
    wait
    cat "$out/build_a.txt" "$out/build_b.txt"
    ;;
  sass)
    sass_of "$base/a/devo" >"$out/sass_a.txt"
    sass_of "$base/b/devo" >"$out/sass_b.txt"
    echo "sass: a $(wc -l <"$out/sass_a.txt") lines, b $(wc -l <"$out/sass_b.txt") lines, $(diff "$out/sass_a.txt" "$out/sass_b.txt" | grep -c '^[<>]') differ"
    ;;
  load)
    for _ in $(seq "${RUNS:-7}"); do
      for l in a b; do
        t0=$(date +%s%N)
        "$base/$l/devo" solve --backend gpu --problem sphere --dim 10 --np 20 --max-evals 2000 >/dev/null 2>&1
        echo "$l $(( ($(date +%s%N) - t0) / 1000 ))" >>"$out/load.txt"
      done
    done
    for l in a b; do
      echo "load $l: median $(grep "^$l " "$out/load.txt" | cut -d' ' -f2 | median) us (process with one GPU solve)"
    done
    ;;
  bench)
    for round in $(seq "${ROUNDS:-2}"); do
      for l in a b; do
        b=$base/$l
        for spec in "bench-gpu --reps 3 --no-cpu" "bench-cec --reps 3 --no-cpu --only 3 --cec-data $data/cec" \
          "bench-variants --case 0 --gpu-only --reps 3" "bench-gpu-ls --reps 3"; do
          name=${spec%% *}
          case ",${BENCH_ONLY:-$name}," in *",$name,"*) ;; *) continue ;; esac
          echo "== $l round $round: $spec" >>"$out/bench_$name.txt"
          # shellcheck disable=SC2086
          timeout 300 "$b"/$spec >>"$out/bench_$name.txt" 2>>"$out/bench_$name.err"
        done
      done
    done
    ls -l "$out"/bench_*.txt
    ;;
  gputest)
    ctest --test-dir "$base/b" -L gpu -j 1 --timeout 300 >"$out/ctest_gpu_b.log" 2>&1
    grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" "$out/ctest_gpu_b.log"
    ;;
  *)
    echo "ab_build.sh: unknown stage '$stage'" >&2
    exit 2
    ;;
  esac
done
