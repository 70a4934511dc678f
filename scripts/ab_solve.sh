#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab_solve.sh: side-by-side timing of `devo solve` from two builds (before and after a change),
# for the "not slower than before" promises of BENCHMARKS.md. The runs of A and B alternate in one
# invocation, so both see the same machine state; each gets one warm-up run, then N timed runs.
# The time is the generation loop as the benchmark programs measure it: the JSON's elapsed minus
# init_seconds (allocation, device set-up and the initial population are excluded). Prints the
# medians and B / A.
# usage: scripts/ab_solve.sh DEVO_A DEVO_B N SOLVE_OPTIONS...
#   e.g. scripts/ab_solve.sh base/build/devo build/devo 7 --problem rastrigin --dim 100 --np 250 \
#          --max-evals 10000000 --backend gpu
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '9,11p' "$0" | sed 's/^# //' >&2
  exit 2
fi
a=$1 b=$2 n=$3
shift 3
for p in "$a" "$b"; do
  [ -x "$p" ] || { echo "ab_solve.sh: $p is not an executable" >&2; exit 2; }
done
case $n in '' | *[!0-9]*) echo "ab_solve.sh: N must be a positive integer, got '$n'" >&2; exit 2 ;; esac
[ "$n" -ge 1 ] || { echo "ab_solve.sh: N must be >= 1" >&2; exit 2; }

# one run: the loop seconds, from the one-line JSON
loop_s() {
  local out
  out=$("$@" --json) || { echo "ab_solve.sh: failed: $*" >&2; exit 1; }
  echo "$out" | sed -n 's/.*"elapsed":\([^,}]*\).*"init_seconds":\([^,}]*\).*/\1 \2/p' |
    awk '{ printf "%.6f\n", $1 - $2 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

loop_s "$a" solve "$@" > /dev/null # warm-up
loop_s "$b" solve "$@" > /dev/null
ta=() tb=()
for ((r = 0; r < n; r++)); do
  ta+=("$(loop_s "$a" solve "$@")")
  tb+=("$(loop_s "$b" solve "$@")")
done
ma=$(printf '%s\n' "${ta[@]}" | median)
mb=$(printf '%s\n' "${tb[@]}" | median)
echo "options: $*"
echo "A $a: loop s ${ta[*]}; median $ma"
echo "B $b: loop s ${tb[*]}; median $mb"
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "B / A = %.4f\n", b / a }'
