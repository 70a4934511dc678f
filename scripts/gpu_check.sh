#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu_check.sh: the GPU machine's check, run from the repository root: `bash scripts/gpu_check.sh`.
# Configures and builds with CUDA (sm_90 unless CUDA_ARCH says otherwise; line tables on for the
# sanitizer's source lines), runs the gpu-labelled
# tests, compute-sanitizer memcheck / racecheck / synccheck on the short parity case (where the
# machine has compute-sanitizer), the RNG micro-benchmark and the GPU benchmark, and prints a
# short table last. Logs go to $OUT when it is set (the lent device machine), else to
# gpu-check-out/. Environment: BUILD_DIR (default /tmp/devo-gpu-build), CUDA_ARCH (default 90),
# BENCH_ARGS (extra bench-gpu arguments, e.g. "--quick"), SKIP_BENCH=1 (every benchmark),
# SKIP_SANITIZER=1, SKIP_TESTS=1, CTEST_REGEX (only the gpu tests matching it), SKIP_PHILOX=1
# (the RNG micro-benchmark and its sanitizer run), CLASSIC_SAN_TOOLS / BLK_SAN_TOOLS (the
# compute-sanitizer tools for parity_small and blk_small; empty = none).
# Block kinds: SKIP_BENCH_GPU=1 (the classic bench-gpu), SKIP_BENCH_CEC=1
# (bench-cec, Janssen et al.'s case study 1 on F01..F10, ~2 min), SKIP_BENCH_SCHED=1 (bench-sched,
# schedule evaluations per second, ~1.5 min; SCHED_ARGS e.g. "--reps 3"), SKIP_DEADLINE=1 (20 runs each of `devo schedule
# etc_data/512x16/u_c_hihi.csv --time-limit 0.1 / 1` per backend, timed from outside, ~1 min;
# DEADLINE_LIMITS="0.1 1 3" changes the limits),
# SKIP_SOLVE_DEADLINE=1 (20 runs of `devo solve --backend gpu --time-limit 0.1`),
# SKIP_ETC_QUALITY=1 (bench-etc on the 12 Braun instances with ETC_QUALITY_ARGS, default
# "--times 1 --seeds 5", ~1.2 min). The whole script with every part takes more than one
# 10-minute device call: split it with the SKIP_ flags.
# Data (official CEC files, Braun instances): $DEVO_SHARED, else the repository's data/.
# If libcsv is not installed, a copy of csv.h and libcsv.a in .devo_dev/ is used.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
out=${OUT:-$root/gpu-check-out}
build=${BUILD_DIR:-/tmp/devo-gpu-build}
arch=${CUDA_ARCH:-90}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

note "# devo gpu_check $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/# gpu: /' | tee -a "$summary"
note "# nvcc: $(nvcc --version 2>/dev/null | tail -1)"

csv_args=()
if [ ! -f /usr/include/csv.h ] && [ -f "$root/.devo_dev/csv.h" ]; then
  csv_args=(-DCSV_INCLUDE_DIR="$root/.devo_dev" -DCSV_LIBRARY="$root/.devo_dev/libcsv.a")
  note "# libcsv: not installed here, using .devo_dev/"
fi

shared=${DEVO_SHARED:-$root/data}
export DEVO_SHARED=$shared
note "# data: ${shared:-none (CEC reference and Braun parts skip)}"

# ---- build ----------------------------------------------------------------------------------
t0=$(date +%s)
build_ok=yes
if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDEVO_WERROR=ON \
     -DCMAKE_CUDA_ARCHITECTURES="$arch" -DDEVO_CUDA_LINEINFO=ON "${csv_args[@]}" ${shared:+-DDEVO_SHARED_DIR="$shared"} \
     >"$out/build.log" 2>&1; then
  build_ok="no (configure failed)"
fi
if [ "$build_ok" = yes ]; then
  # keep going past a broken target so that everything else still gets built and tested
  cmake --build "$build" -j "$(nproc)" -- -k >>"$out/build.log" 2>&1 || build_ok="partial"
fi
note "# build: $build_ok ($(( $(date +%s) - t0 )) s), log build.log"
grep -E "error|Error" "$out/build.log" | head -20 | sed 's/^/#   /'

# ---- gpu tests ------------------------------------------------------------------------------
t0=$(date +%s)
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # verbose: the parity cases print their figures (bit-identical counts, largest differences)
  ctest --test-dir "$build" -L gpu -V -j 1 --timeout 180 ${CTEST_REGEX:+-R "$CTEST_REGEX"} \
    >"$out/ctest_gpu.log" 2>&1
  ctest_line=$(grep -E "tests passed|tests failed" "$out/ctest_gpu.log" | tail -1)
  note "# ctest -L gpu: ${ctest_line:-no result} ($(( $(date +%s) - t0 )) s), log ctest_gpu.log"
  grep -E "\*\*\*Failed|Not Run|Timeout|\(Failed\)" "$out/ctest_gpu.log" | sed 's/^/#   /' | tee -a "$summary"
fi

# ---- benchmarks -----------------------------------------------------------------------------
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  [ -x "$build/test_gpu_philox" ] && [ "${SKIP_PHILOX:-0}" != 1 ] && timeout 120 "$build/test_gpu_philox" --bench >"$out/bench.txt" 2>&1
  if [ -x "$build/bench-gpu" ] && [ "${SKIP_BENCH_GPU:-0}" != 1 ]; then
    # shellcheck disable=SC2086
    timeout 240 "$build/bench-gpu" ${BENCH_ARGS:-} >>"$out/bench.txt" 2>"$out/bench_progress.log"
    note "# bench-gpu exit $?, table in bench.txt"
  fi
  if [ -x "$build/bench-cec" ] && [ "${SKIP_BENCH_CEC:-0}" != 1 ]; then
    t0=$(date +%s)
    if [ -n "$shared" ] && [ -d "$shared/cec" ]; then
      timeout 300 "$build/bench-cec" --cec-data "$shared/cec" >"$out/bench_cec.txt" 2>"$out/bench_cec_progress.log"
      note "# bench-cec exit $? ($(( $(date +%s) - t0 )) s), table in bench_cec.txt"
    else
      note "# bench-cec: not run (no shared/cec with the official data)"
    fi
  fi
  if [ -x "$build/bench-sched" ] && [ "${SKIP_BENCH_SCHED:-0}" != 1 ]; then
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout 240 "$build/bench-sched" --etc "$root/etc_data/512x16/u_c_hihi.csv" ${SCHED_ARGS:-} >"$out/bench_sched.txt" 2>"$out/bench_sched_progress.log"
    note "# bench-sched exit $? ($(( $(date +%s) - t0 )) s), table in bench_sched.txt"
  fi
  if [ -x "$build/devo" ] && [ "${SKIP_SOLVE_DEADLINE:-0}" != 1 ] && command -v python3 >/dev/null; then
    # 20 runs of `devo solve --backend gpu --time-limit 0.1`; the overshoot is counted
    # from the start of devo_solve (the JSON "elapsed"), the outside wall time is shown beside it
    t0=$(date +%s)
    python3 - "$build/devo" >"$out/solve_deadline.txt" 2>&1 <<'PYEOF'
import json, subprocess, sys, time
devo = sys.argv[1]
rows = []
for r in range(20):
    t0 = time.perf_counter()
    p = subprocess.run([devo, "solve", "--problem", "rastrigin", "--dim", "100", "--np", "250",
                        "--cr", "0.3", "--max-evals", "1e12", "--backend", "gpu",
                        "--time-limit", "0.1", "--seed", str(r + 1), "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    try:
        j = json.loads(p.stdout.decode())
        rows.append((j["stop"], j["elapsed"], j["init_seconds"], j["generations"], wall, p.returncode))
    except Exception:
        rows.append(("FAILED rc=%d %s" % (p.returncode, p.stderr.decode().strip()), 0, 0, 0, wall, p.returncode))
print("| run | stop | elapsed in devo_solve ms | overshoot ms | init ms | generations | process wall ms |")
print("|---:|---|---:|---:|---:|---:|---:|")
for k, (stop, el, ini, g, wall, rc) in enumerate(rows):
    print("| %d | %s | %.3f | %+.3f | %.1f | %d | %.1f |" % (k + 1, stop, el * 1e3, (el - 0.1) * 1e3, ini * 1e3, g, wall * 1e3))
ok = all(r[0] == "DEVO_TIME_LIMIT" for r in rows)
print("all DEVO_TIME_LIMIT: %s; largest overshoot from the start of devo_solve: %+.3f ms" % (
    "yes" if ok else "NO", max(r[1] - 0.1 for r in rows) * 1e3))
PYEOF
    note "# solve deadline runs exit $? ($(( $(date +%s) - t0 )) s): $(tail -1 "$out/solve_deadline.txt")"
  fi
  if [ -x "$build/devo" ] && [ "${SKIP_DEADLINE:-0}" != 1 ] && command -v python3 >/dev/null; then
    # wall time of whole processes, measured from outside (process start, reading, device
    # start-up and writing the answer included)
    t0=$(date +%s)
    python3 - "$build/devo" "$root/etc_data/512x16/u_c_hihi.csv" >"$out/deadline.txt" 2>&1 <<'PYEOF'
import subprocess, sys, time
devo, path = sys.argv[1], sys.argv[2]
print("| backend | --time-limit s | runs | min ms | median ms | max ms | max - limit ms | within limit + 5 ms | backend used | largest elapsed reported by devo ms |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|---:|")
import os
for backend in ("gpu", "cpu"):
    for lim in os.environ.get("DEADLINE_LIMITS", "0.1 1").split():
        ts, used, bad, inner = [], set(), 0, 0.0
        for r in range(20):
            t0 = time.perf_counter()
            p = subprocess.run([devo, "schedule", path, "--time-limit", lim, "--backend", backend,
                                "--seed", str(r + 1)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ts.append(time.perf_counter() - t0)
            bad += p.returncode != 0
            for line in (p.stdout + p.stderr).decode().splitlines():
                if line.startswith("backend"):
                    used.add(line.split()[-1])
                if line.startswith("elapsed"):
                    try:
                        inner = max(inner, float(line.split()[1]) * 1e3)
                    except (IndexError, ValueError):
                        pass
        ts.sort()
        over = (ts[-1] - float(lim)) * 1e3
        print("| %s | %s | 20 | %.1f | %.1f | %.1f | %+.1f | %s | %s | %.1f |" % (
            backend, lim, ts[0] * 1e3, ts[10] * 1e3, ts[-1] * 1e3, over,
            "yes" if over <= 5.0 and bad == 0 else "NO (%d failed)" % bad if bad else "NO",
            ",".join(sorted(used)), inner))
        sys.stdout.flush()
PYEOF
    note "# deadline runs exit $? ($(( $(date +%s) - t0 )) s), table in deadline.txt"
  fi
  if [ -x "$build/bench-etc" ] && [ "${SKIP_ETC_QUALITY:-0}" != 1 ]; then
    t0=$(date +%s)
    if [ -n "$shared" ] && [ -f "$shared/etc_data/braun/u_c_hihi.0" ]; then
      # shellcheck disable=SC2086
      timeout 560 "$build/bench-etc" "$shared/etc_data/braun" --backend gpu ${ETC_QUALITY_ARGS:---times 1 --seeds 5} \
        >"$out/bench_etc.txt" 2>"$out/bench_etc_progress.log"
      note "# bench-etc --backend gpu ${ETC_QUALITY_ARGS:---times 1 --seeds 5}: exit $? ($(( $(date +%s) - t0 )) s), table in bench_etc.txt"
    else
      note "# bench-etc: not run (no shared/etc_data/braun)"
    fi
  fi
fi

# ---- compute-sanitizer ----------------------------------------------------------------------
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
# san_case CASE TIMEOUT TOOL...: test_gpu CASE under each tool, its summary line in the note
san_case() {
  local tc=$1 limit=$2 tool rc errs
  shift 2
  for tool in "$@"; do
    t0=$(date +%s)
    timeout "$limit" "$san" --tool "$tool" --error-exitcode 9 "$build/test_gpu" "$tc" \
      >>"$out/sanitizer.log" 2>&1
    rc=$?
    errs=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.log" | tail -1)
    note "# compute-sanitizer $tool on test_gpu $tc: exit $rc; ${errs:-no summary} ($(( $(date +%s) - t0 )) s)"
  done
}
if [ "${SKIP_SANITIZER:-0}" != 1 ] && [ -n "$san" ] && [ -x "$build/test_gpu" ]; then
  : >"$out/sanitizer.log"
  # shellcheck disable=SC2086
  san_case parity_small 100 ${CLASSIC_SAN_TOOLS-memcheck racecheck synccheck}
  if [ -x "$build/test_gpu_philox" ] && [ "${SKIP_PHILOX:-0}" != 1 ]; then
    timeout 120 "$san" --tool memcheck --error-exitcode 9 "$build/test_gpu_philox" >>"$out/sanitizer.log" 2>&1
    note "# compute-sanitizer memcheck on test_gpu_philox: exit $?"
  fi
  # the block kinds: CEC F10/F06/F02 and an SPT schedule, every design and staging choice
  # shellcheck disable=SC2086
  san_case blk_small 150 ${BLK_SAN_TOOLS:-memcheck racecheck}
else
  note "# compute-sanitizer: not run (${san:-not found})"
fi

# ---- the short table ------------------------------------------------------------------------
echo
cat "$summary"
echo
grep -E ": +(sphere|rastrigin) +D=" "$out/ctest_gpu.log" 2>/dev/null | grep -E "design 0x0000" | sed 's/^[0-9]*: //' | head -12
grep -E "deadline 0.1|too big:|counters:|DE draws:" "$out/ctest_gpu.log" 2>/dev/null | sed 's/^[0-9]*: //' 
grep -E "cec_reference: largest|etc [0-9]+x[0-9]+ .*random schedules|heuristic seeds are" "$out/ctest_gpu.log" 2>/dev/null | sed 's/^[0-9]*: //'
echo
cat "$out/bench.txt" "$out/bench_cec.txt" "$out/bench_sched.txt" "$out/deadline.txt" "$out/bench_etc.txt" 2>/dev/null
