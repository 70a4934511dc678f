#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh: the ctest cases install.consumer and docs.library_examples. Installs an already-built
# devo tree into a temporary prefix and builds and runs tests/consumer/main.c against it twice:
# as a CMake project with find_package(devo), and with the compiler alone and
# `pkg-config --cflags --libs --static devo`.
# With DOC (docs/library.md), the examples of that page too: every ```c block that follows a
# line "<!-- test: NAME -->" becomes NAME.c, built both ways with warnings as errors, and run
# and checked by check_NAME below against the installed devo program's answer.
# usage: run.sh CMAKE BUILD_DIR CC [DOC]
set -euo pipefail
cmake=${1:?cmake}
build=${2:?build dir}
cc=${3:-cc}
doc=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/devo-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the examples every page must keep (a lost marker fails the test, not skips the example)
required="example_solve example_schedule example_bounds"

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
test -f "$tmp/prefix/include/devo.h" || { echo "no devo.h installed"; exit 1; }
pcdir=$(dirname "$(find "$tmp/prefix" -name devo.pc | head -1)")
export LD_LIBRARY_PATH="$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" # for a shared libdevo
devo="$tmp/prefix/bin/devo"

examples=()
cmake_examples=()
if [ -n "$doc" ]; then
  mkdir "$tmp/examples"
  awk -v dir="$tmp/examples" '
    /^<!-- test: [A-Za-z0-9_]+ -->$/ { name = $3; want = NR; next }
    want && /^```c$/ { out = dir "/" name ".c"; want = 0; grab = 1; next }
    want && NF { printf "%s:%d: no ```c block after the marker of %s\n", FILENAME, want, name; bad = 1; exit }
    grab && /^```$/ { grab = 0; close(out); next }
    grab { print > out }
    END { if (!bad && (want || grab)) { printf "%s: the block of %s does not end\n", FILENAME, name; bad = 1 }
          exit bad }' "$doc"
  for n in $required; do
    test -f "$tmp/examples/$n.c" || { echo "$doc: no example $n (<!-- test: $n --> and a \`\`\`c block)"; exit 1; }
  done
  for f in "$tmp/examples"/*.c; do
    examples+=("$(basename "$f" .c)")
  done
  echo "examples of $doc: ${examples[*]}"
  cmake_examples=(-DDEVO_EXAMPLES_DIR="$tmp/examples")
fi

echo "== find_package(devo) from $tmp/prefix"
"$cmake" -S "$here" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
  "${cmake_examples[@]}" >"$tmp/cm.log" || { cat "$tmp/cm.log"; exit 1; }
"$cmake" --build "$tmp/cm" >"$tmp/cm-build.log" || { cat "$tmp/cm-build.log"; exit 1; }
"$tmp/cm/consumer"

echo "== pkg-config --static devo"
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static devo)
echo "pkg-config: $flags"
# shellcheck disable=SC2086 # the flags are words
# CFLAGS/LDFLAGS: as CMake takes them above (scripts/sanitize_check.sh sets the sanitizer's)
"$cc" -std=c11 ${CFLAGS:-} -o "$tmp/consumer-pc" "$here/main.c" $flags ${LDFLAGS:-}
"$tmp/consumer-pc"
mkdir -p "$tmp/pc"
for n in "${examples[@]}"; do
  # shellcheck disable=SC2086
  "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} -o "$tmp/pc/$n" \
    "$tmp/examples/$n.c" $flags ${LDFLAGS:-}
done

# ---- the examples' checks: $1 = the program (built one way) ----
# the best value printed equals devo solve's for the same run
check_example_solve() {
  local out want
  out=$("$1") || { echo "exit $?: $out"; return 1; }
  echo "$out"
  want=$("$devo" solve --problem rastrigin --dim 30 --np 100 --cr 0.3 --max-evals 300000 \
    --time-limit 60 | awk '$1 == "best" { print $2 }')
  [ "$out" = "best $want (DEVO_EVAL_LIMIT)" ] || { echo "devo solve: best $want"; return 1; }
}
# the makespan and every task's machine equal devo schedule's for the same instance and steps
check_example_schedule() {
  local in="$src/etc_data/small_64x8.csv" out want
  out=$("$1" "$in") || { echo "exit $?"; return 1; }
  echo "$out" | head -1
  "$devo" schedule "$in" --objective makespan --steps 200 --time-limit 30 \
    >"$tmp/sched.out" 2>"$tmp/sched.err" || { cat "$tmp/sched.err"; return 1; }
  want=$(awk '$1 == "makespan" { print $2 }' "$tmp/sched.err")
  [ "$(echo "$out" | head -1)" = "makespan $want (from ig, DEVO_OK)" ] ||
    { echo "devo schedule: makespan $want"; return 1; }
  [ "$(echo "$out" | tail -n +2)" = "$(cat "$tmp/sched.out")" ] ||
    { echo "the assignment differs from devo schedule's"; return 1; }
  [ "$(echo "$out" | tail -n +2 | wc -l)" -eq 64 ] || { echo "not 64 tasks"; return 1; }
}
# the minimum in the box, on its corner: x_0 and x_1 at their bounds
check_example_bounds() {
  local out
  out=$("$1") || { echo "exit $?: $out"; return 1; }
  echo "$out"
  [ "$out" = "best 65.000000 at x = (1.0000, 10.0000, 2.0000)" ]
}

for n in "${examples[@]}"; do
  declare -F "check_$n" >/dev/null || { echo "run.sh: no check_$n for the example $n"; exit 1; }
  for how in cm pc; do
    echo "== $n ($how)"
    "check_$n" "$tmp/$how/$n" || { echo "$n ($how) failed"; exit 1; }
  done
done
