#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sanitize_check.sh: the audit's checks of issue 21, for CI (.ci/run calls it) and by hand:
# 1. the cpu tests built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc or clang; any
#    report fails the test that made it, and so this script);
# 2. when clang is installed: the libFuzzer harnesses of tests/fuzz (-DDEVO_FUZZ=ON), each run
#    for FUZZ_SECONDS (default 60; 0: not run) from its seed corpus (which holds the regression inputs).
# BUILD_SAN (default build-san) and BUILD_FUZZ (default build-fuzz) are the build folders.
set -euo pipefail
cd "$(dirname "$0")/.."
san=${BUILD_SAN:-build-san}
fuzz=${BUILD_FUZZ:-build-fuzz}
secs=${FUZZ_SECONDS:-60}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B "$san" -DDEVO_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$san" -j "$(nproc)"
# leaks are reports too; timing promises do not hold under the sanitizers' slowdown, so the
# timed and slow cases are left to the plain build
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# install.consumer builds a program against the installed (instrumented) libdevo: with the same
# flags, which CMake and tests/consumer/run.sh take from the environment
export CFLAGS="$flags" LDFLAGS="$flags"
timed=$(grep -ho '^TIMED_CASE([a-z0-9_]*)' tests/test_*.c | sed 's/TIMED_CASE(\(.*\))/\1/' |
  paste -sd '|' -)
ctest --test-dir "$san" -L cpu -LE slow ${timed:+-E "\\.($timed)\$"} --output-on-failure -j 2
if [ "$secs" = 0 ]; then # FUZZ_SECONDS=0: the sanitizer build only
  exit 0
fi
if ! command -v clang >/dev/null; then
  echo "sanitize_check: clang not installed: the fuzzers were not run"
  exit 0
fi
# libFuzzer's runtime comes with clang's compiler-rt (Debian libclang-rt-NN-dev, a recommends of
# clang): without it no harness links, which says nothing about devo
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return (int)(d && n) * 0; }\n' >"$probe/p.c"
if ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  rm -rf "$probe"
  echo "sanitize_check: clang cannot link libFuzzer (install libclang-rt-dev): the fuzzers were not run"
  exit 0
fi
rm -rf "$probe"
unset CFLAGS LDFLAGS # the fuzz build sets its own
CC=clang cmake -S . -B "$fuzz" -DDEVO_FUZZ=ON -DDEVO_CUDA=OFF -DBUILD_TESTING=OFF >/dev/null
cmake --build "$fuzz" -j "$(nproc)"
for f in "$fuzz"/fuzz_*; do
  name=$(basename "$f" | sed 's/^fuzz_//')
  work=$(mktemp -d)
  echo "sanitize_check: $name for $secs s"
  if ! "$f" -max_total_time="$secs" -timeout=10 -max_len=8192 -print_final_stats=1 -close_fd_mask=2 \
    "$work" "tests/fuzz/corpus/$name" >"$work.log" 2>&1; then
    tail -n 40 "$work.log"
    echo "sanitize_check: fuzz_$name found a fault (the input is in the line above 'Test unit')"
    exit 1
  fi
  grep -E '^stat::number_of_executed_units' "$work.log"
  rm -rf "$work" "$work.log"
done
