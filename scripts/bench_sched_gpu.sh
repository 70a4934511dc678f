#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_sched_gpu.sh: issue 19's remaining measurements on the GPU machine (16 cores, one H100),
# in two device calls of at most 9 minutes each, run from the repository root:
#   bash scripts/bench_sched_gpu.sh 1   the GPU search's tests (ctest -L gpu -R gpu_ls, first; SKIP_TESTS=1
#                                     skips them), its 1 s column on the 12 Braun instances (5
#                                     seeds, median gap to the best-known of REFERENCE.md), the
#                                     ablation at 1 s (u_c_hihi, u_i_hihi, u_s_lohi x 3 seeds:
#                                     default, no DE, no large neighbourhood, neither, 1 chain,
#                                     4 chains) and the deadline of `devo schedule` timed from
#                                     outside the process (20 runs at 0.1 s and 1 s on a
#                                     4096 x 64 and a 16384 x 256 instance, 1 and 16 threads)
#   bash scripts/bench_sched_gpu.sh deadline   part 1's deadline runs alone
#   bash scripts/bench_sched_gpu.sh 2   etc-gen instances 4096 x 64 and 16384 x 256 of the eight
#                                     classes u_{c,i}_{hihi,hilo,lohi,lolo} (seed 1): the gap to
#                                     Min-min at 1 s and 10 s of the GPU search and of the CPU
#                                     search (16 threads), one seed
# Markdown tables go to $OUT/part1.md or part2.md (and stdout), raw outputs to $OUT/raw/.
# Every search runs in a warm process (bench-gpu-ls --file: devo_schedule_run, the limit counted
# from the call, as a resident caller after devo_gpu_warmup sees it); the deadline runs are
# whole `devo schedule` processes (reading the file counts in their limit).
# The script prints a time estimate first and skips (saying so) what would end past BUDGET_S
# seconds after its start; the 1 s runs of part 2 come before any 10 s run, and the classes in
# the order u_c_hihi, u_i_hihi, u_c_lolo, u_i_lolo, then the other four, so a cut keeps whole
# classes.
# Environment: OUT (default ./out), BUILD_DIR (default build-gpu; configured (Release, sm_90 or
# CUDA_ARCH) and built here when it has no CMakeCache.txt, else the needed targets are brought
# up to date), BUDGET_S (default 530), CPU_THREADS (default: the cores, 16 there), WORK (the
# generated instances, default /tmp/devo-bench-sched), TIME_SCALE (default 1: multiplies every
# time limit, for a try on a machine without a GPU, e.g. 0.05), SIZES (part 2, default
# "4096x64 16384x256"), DEADLINE_SIZES (part 1, default the same), DEADLINE_CLASSES (default
# u_i_hihi), DEADLINE_THREADS (default "1 CPU_THREADS"), CLASSES (part 2, default the eight
# above), SKIP_BUILD=1 (take BUILD_DIR's devo, etc-gen and bench-gpu-ls as they are).
# Without a GPU (a CPU-only build) the GPU runs fail and show as "failed"; the rest
# runs. Needs python3.
set -u
part=${1:-}
case "$part" in
1 | 2 | deadline) ;;
*)
  echo "usage: bash scripts/bench_sched_gpu.sh 1|2|deadline   (see the comment at the top)" >&2
  exit 2
  ;;
esac
T_START=$(date +%s.%N)
export T_START
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
out=${OUT:-$root/out}
build=${BUILD_DIR:-$root/build-gpu}
mkdir -p "$out/raw" || exit 1
command -v python3 >/dev/null || {
  echo "bench_sched_gpu.sh: python3 is needed" >&2
  exit 1
}

# ---- build (only what the runs need) --------------------------------------------------------
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  :
elif [ ! -f "$build/CMakeCache.txt" ]; then
  csv_args=()
  if [ ! -f /usr/include/csv.h ] && [ -f "$root/.devo_dev/csv.h" ]; then
    csv_args=(-DCSV_INCLUDE_DIR="$root/.devo_dev" -DCSV_LIBRARY="$root/.devo_dev/libcsv.a")
  fi
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDEVO_WERROR=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" "${csv_args[@]}" >"$out/raw/build.log" 2>&1 || {
    echo "bench_sched_gpu.sh: configure failed, see $out/raw/build.log" >&2
    exit 1
  }
fi
targets=(devo_cli etc-gen bench-gpu-ls)
[ "$part" = 1 ] && [ "${SKIP_TESTS:-0}" != 1 ] && targets+=(test_gpu_ls)
if [ "${SKIP_BUILD:-0}" != 1 ] &&
  ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >>"$out/raw/build.log" 2>&1; then
  echo "bench_sched_gpu.sh: build failed, see $out/raw/build.log" >&2
  tail -20 "$out/raw/build.log" >&2
  exit 1
fi
echo "build ready after $(python3 -c "import time; print('%.0f' % (time.time() - $T_START))") s ($build)" >&2

exec python3 - "$part" "$root" "$build" "$out" <<'PYEOF'
import concurrent.futures, json, os, re, statistics, subprocess, sys, time

part, root, build, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
T0 = float(os.environ["T_START"])
SCALE = float(os.environ.get("TIME_SCALE", "1"))
BUDGET = float(os.environ.get("BUDGET_S", "530"))
THREADS = int(os.environ.get("CPU_THREADS", str(os.cpu_count() or 1)))
WORK = os.environ.get("WORK", "/tmp/devo-bench-sched")
BRAUN = os.path.join(root, "data", "etc_data", "braun")
BENCH = os.path.join(build, "bench-gpu-ls")
DEVO = os.path.join(build, "devo")
GEN = os.path.join(build, "etc-gen")
NAMES = ["u_c_hihi", "u_c_hilo", "u_c_lohi", "u_c_lolo", "u_i_hihi", "u_i_hilo", "u_i_lohi",
         "u_i_lolo", "u_s_hihi", "u_s_hilo", "u_s_lohi", "u_s_lolo"]
ABL_NAMES = ["u_c_hihi", "u_i_hihi", "u_s_lohi"]
# (name, bench-gpu-ls flags): what each ablation row changes against the default
VARIANTS = [("default", []),
            ("no DE", ["--de-every", "0"]),
            ("no large neighbourhood", ["--perturb", "random"]),
            ("no DE, no large neighbourhood", ["--de-every", "0", "--perturb", "random"]),
            ("1 chain (hence no DE)", ["--chains", "1"]),
            ("4 chains", ["--chains", "4"])]
# reading a CSV matrix (about 19 bytes a value as etc-gen writes it): ~60 MB/s measured on the
# 2-core machine; the CUDA context of a fresh process: up to about a second
READ_BPS, CUDA_INIT, BYTES_PER_VALUE = 60e6, 1.0, 19.0

md = open(os.path.join(out, "part%s.md" % part), "w")


def emit(s=""):
    print(s)
    md.write(s + "\n")
    md.flush()


def log(s):
    sys.stderr.write("[%5.0f s] %s\n" % (time.time() - T0, s))
    sys.stderr.flush()


def left():
    return BUDGET - (time.time() - T0)


def shown(path):
    """path from the repository root where it lies inside it, else as it is"""
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def sz(spec):
    n, m = spec.lower().split("x")
    return int(n), int(m)


def read_s(n, m):
    return n * m * BYTES_PER_VALUE / READ_BPS


def lim(t):
    return t * SCALE


def fmt_t(t):
    return "%g" % lim(t)


def reference():
    ref = {}
    with open(os.path.join(BRAUN, "REFERENCE.md")) as f:
        for line in f:
            mt = re.match(r"^\| (u_[a-z_]+)\.0 \| ([0-9.]+) \| ([0-9.]+) \|", line)
            if mt:
                ref[mt.group(1)] = (float(mt.group(2)), float(mt.group(3)))
    return ref


ROW = re.compile(r"^\| (\d+) \| ([0-9.eE+-]+) \| ([0-9.]+) \| (\d+) \| (\d+) \| (\w+) \|$")


def bench(tag, path, seconds, seeds, flags, est):
    """bench-gpu-ls --file path: [(seed, makespan, seconds, steps, backend)], or an error text."""
    cmd = [BENCH, "--file", path, "--seconds", fmt_t(seconds), "--seeds", str(seeds)] + flags
    raw = os.path.join(out, "raw", tag + ".txt")
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=2 * est + 60)
        text, rc = p.stdout.decode() + p.stderr.decode(), p.returncode
    except subprocess.TimeoutExpired:
        text, rc = "timed out after %.0f s" % (2 * est + 60), -1
    with open(raw, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + text)
    rows = []
    for line in text.splitlines():
        mt = ROW.match(line)
        if mt:
            rows.append((int(mt.group(1)), float(mt.group(2)), float(mt.group(3)),
                         int(mt.group(4)), mt.group(6)))
    if rc != 0 or len(rows) != seeds:
        err = text.strip().splitlines()[-1] if text.strip() else "no output"
        return "failed (exit %d: %s)" % (rc, err.replace("|", "/")[:80])
    return rows


def pct(x, ref):
    return 100.0 * (x - ref) / ref


def cmdline(flags):
    return " ".join(flags) if flags else "(none)"


# ---- part 1 ------------------------------------------------------------------------------------
def gpu_tests():
    """ctest -L gpu -R gpu_ls: the kernels' checks (the CPU reference with both perturbations)."""
    if os.environ.get("SKIP_TESTS", "0") == "1":
        return
    emit("### `ctest --test-dir %s -L gpu -R '^gpu_ls\\.' --timeout 120 -V`" % shown(build))
    emit()
    p = subprocess.run(["ctest", "--test-dir", build, "-L", "gpu", "-R", r"^gpu_ls\.", "--timeout",
                        "120", "-V"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    text = p.stdout.decode(errors="replace")
    with open(os.path.join(out, "raw", "p1_ctest_gpu_ls.txt"), "w") as f:
        f.write(text)
    keep = [re.sub(r"^\d+: ", "", l) for l in text.splitlines()
            if re.search(r"% tests passed|Test +#|^\d+: (ok|FAIL|SKIP) |chains x|tuned|gpu-ls on the", l)]
    emit("```")
    for l in keep:
        emit(l)
    emit("```")
    emit()


def braun_column(ref):
    seeds = 5
    emit("### The GPU search at %s s on the 12 Braun instances (5 seeds, warm process)" % fmt_t(1))
    emit()
    emit("`%s --file data/etc_data/braun/NAME.0 --seconds %s --seeds 5` (devo_schedule_run, "
         "`--search gpu-ls --backend gpu`, the default search options; gap = (median - "
         "best-known) / best-known, best-known from data/etc_data/braun/REFERENCE.md)." %
         (shown(BENCH), fmt_t(1)))
    emit()
    emit("| instance | best-known | makespans, seeds 1..5 | median | gap | largest elapsed s "
         "| steps (median) | backend |")
    emit("|---|---:|---|---:|---:|---:|---:|---|")
    gaps = []
    for name in NAMES:
        est = seeds * lim(1) + 0.05 + CUDA_INIT
        best = ref[name][0]
        if left() < est:
            emit("| %s.0 | %.2f | skipped (time budget) | | | | | |" % (name, best))
            continue
        rows = bench("p1_braun_%s" % name, os.path.join(BRAUN, name + ".0"), 1, seeds, [], est)
        if isinstance(rows, str):
            emit("| %s.0 | %.2f | %s | | | | | |" % (name, best, rows))
            continue
        ms = [r[1] for r in rows]
        med = statistics.median(ms)
        gaps.append((pct(med, best), name))
        emit("| %s.0 | %.2f | %s | %.2f | %.3f%% | %.4f | %d | %s |" % (
            name, best, " / ".join("%.2f" % x for x in ms), med, pct(med, best),
            max(r[2] for r in rows), statistics.median(r[3] for r in rows),
            ",".join(sorted(set(r[4] for r in rows)))))
    emit()
    if gaps:
        worst = max(gaps)
        emit("%d of %d instances measured; largest median gap %.3f%% (%s), mean %.3f%%, at most "
             "1%%: %d of %d." % (len(gaps), len(NAMES), worst[0], worst[1],
                                 sum(g for g, _ in gaps) / len(gaps),
                                 sum(g <= 1.0 for g, _ in gaps), len(gaps)))
    emit()


def ablation(ref):
    seeds = 3
    emit("### Ablation of the GPU search at %s s (%s; 3 seeds each)" % (fmt_t(1), ", ".join(ABL_NAMES)))
    emit()
    emit("`%s --file data/etc_data/braun/NAME.0 --seconds %s --seeds 3 FLAGS`. \"No large "
         "neighbourhood\": the perturbation between descents moves the same 2 to 6 drawn tasks "
         "each to a uniformly drawn other machine (a random kick) instead of iterated greedy's "
         "reinsertion on the machine where each completes first; the descent (moves and swaps "
         "off the critical machine) is the same. DE needs 4 chains or more, so \"1 chain\" has "
         "no DE either: compare it with \"no DE\". Cells: median gap to the best-known (lowest "
         ".. highest of the 3 seeds)." % (shown(BENCH), fmt_t(1)))
    emit()
    emit("| variant | FLAGS | " + " | ".join(n + ".0" for n in ABL_NAMES) +
         " | mean of the medians | steps per run (median) |")
    emit("|---|---|" + "---:|" * len(ABL_NAMES) + "---:|---:|")
    detail = []
    for vname, flags in VARIANTS:
        cells, meds, steps = [], [], []
        for name in ABL_NAMES:
            est = seeds * lim(1) + 0.05 + CUDA_INIT
            if left() < est:
                cells.append("skipped (time budget)")
                continue
            tag = "p1_abl_%s_%s" % (re.sub(r"[^a-z0-9]+", "_", vname.lower()).strip("_"), name)
            rows = bench(tag, os.path.join(BRAUN, name + ".0"), 1, seeds, flags, est)
            if isinstance(rows, str):
                cells.append(rows)
                continue
            best = ref[name][0]
            g = [pct(r[1], best) for r in rows]
            meds.append(statistics.median(g))
            steps += [r[3] for r in rows]
            cells.append("%.3f%% (%.3f .. %.3f)" % (statistics.median(g), min(g), max(g)))
            detail.append("| %s | %s.0 | %s |" % (vname, name,
                                                  " / ".join("%.2f" % r[1] for r in rows)))
        emit("| %s | %s | %s | %s | %s |" % (
            vname, cmdline(flags), " | ".join(cells),
            "%.3f%%" % (sum(meds) / len(meds)) if len(meds) == len(ABL_NAMES) else "",
            "%d" % statistics.median(steps) if steps else ""))
    emit()
    emit("| variant | instance | makespans, seeds 1..3 |")
    emit("|---|---|---|")
    for d in detail:
        emit(d)
    emit()


def gen(cls, n, m):
    """The etc-gen instance (seed 1) as a path, made when missing."""
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "%s_%dx%d.csv" % (cls, n, m))
    if not os.path.exists(path):
        tmp = path + ".part"
        subprocess.run([GEN, "--tasks", str(n), "--machines", str(m), "--class", cls, "--seed", "1",
                        "--out", tmp], check=True, stdin=subprocess.DEVNULL)
        os.rename(tmp, path)
    return path


def gen_all(specs):
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as ex:
        return list(ex.map(lambda s: gen(*s), specs))


def wall(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return time.perf_counter() - t, p


def deadline_check():
    sizes = [sz(s) for s in os.environ.get("DEADLINE_SIZES", "4096x64 16384x256").split()]
    classes = os.environ.get("DEADLINE_CLASSES", "u_i_hihi").split()
    runs = 20
    thread_counts = sorted(set(int(x) for x in os.environ.get(
        "DEADLINE_THREADS", "1 %d" % THREADS).split()))
    emit("### Deadline of `devo schedule`, timed from outside the process")
    emit()
    emit("%d runs per row of `devo schedule FILE --objective makespan --time-limit T --threads N "
         "--seed r` (r = 1..%d; the schedule to a pipe, as a caller reads it), the wall time of "
         "the whole process measured around it (python perf_counter around subprocess.run). FILE: "
         "`etc-gen --class C --seed 1` at each size for C in %s (CSV). The limit counts from process "
         "start, reading included: the last column is the wall time of `devo schedule FILE "
         "--heuristic mct` (read, one O(n m) heuristic, write; median of 3), the floor below "
         "which no limit can be met." % (runs, runs, ", ".join(classes)))
    emit()
    emit("| instance | threads | --time-limit s | runs | min ms | median ms | max ms | max - limit "
         "ms | over limit + 5 ms | failed | largest elapsed reported by devo ms | read + MCT + "
         "write alone ms |")
    emit("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    specs = [(cls, n, m) for cls in classes for n, m in sizes]
    paths = gen_all(specs)
    for (cls, n, m), path in zip(specs, paths):
        fl = [wall([DEVO, "schedule", path, "--heuristic", "mct", "--time-limit", "100"])[0]
              for _ in range(3)]
        floor = statistics.median(fl)
        for th in thread_counts:
            for t in (0.1, 1.0):
                L = lim(t)
                est = runs * (max(L, floor) + 0.05)
                name = "%s %dx%d" % (cls, n, m)
                if left() < est:
                    emit("| %s | %d | %g | skipped (time budget) | | | | | | | | %.1f |" % (
                        name, th, L, floor * 1e3))
                    continue
                ts, failed, inner, errs = [], 0, 0.0, []
                for r in range(runs):
                    dt, p = wall([DEVO, "schedule", path, "--objective", "makespan",
                                  "--time-limit", "%g" % L, "--threads", str(th),
                                  "--seed", str(r + 1)])
                    ts.append(dt)
                    if p.returncode != 0:
                        failed += 1
                        errs.append(p.stderr.decode().strip()[:200])
                    for line in p.stderr.decode().splitlines():
                        mt = re.match(r"^elapsed\s+([0-9.]+) s", line)
                        if mt:
                            inner = max(inner, float(mt.group(1)) * 1e3)
                over = sum(x > L + 0.005 for x in ts)
                emit("| %s | %d | %g | %d | %.1f | %.1f | %.1f | %+.1f | %d of %d | %d | %.1f | %.1f |" % (
                    name, th, L, runs, min(ts) * 1e3, statistics.median(ts) * 1e3, max(ts) * 1e3,
                    (max(ts) - L) * 1e3, over, runs, failed, inner, floor * 1e3))
                with open(os.path.join(out, "raw", "p1_deadline.txt"), "a") as f:
                    f.write("%s threads %d limit %g: %s\n%s\n" % (
                        name, th, L, " ".join("%.1f" % (x * 1e3) for x in ts), "\n".join(errs)))
    emit()


# ---- part 2 ------------------------------------------------------------------------------------
def minmin(path):
    p = subprocess.run([DEVO, "schedule", path, "--heuristic", "min-min", "--objective", "makespan",
                        "--json", "--out", "/dev/null"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return json.loads(p.stdout.decode())["makespan"]


def larger():
    sizes = [sz(s) for s in os.environ.get("SIZES", "4096x64 16384x256").split()]
    classes = os.environ.get("CLASSES", "u_c_hihi u_i_hihi u_c_lolo u_i_lolo u_c_hilo u_i_hilo "
                             "u_c_lohi u_i_lohi").split()
    insts = [(c, n, m) for c in classes for n, m in sizes]
    emit("### Larger instances (etc-gen, seed 1): gap to Min-min, one seed")
    emit()
    emit("GPU: `%s --file FILE --seconds T --seeds 1` (warm process, default GPU search); CPU: "
         "`%s --file FILE --seconds T --seeds 1 --search ig --threads %d` (the default makespan "
         "search of `devo schedule`, %d threads, chains: the larger of threads and 4); both devo_schedule_run with "
         "the limit counted from the call. FILE: `etc-gen --tasks n --machines m --class C --seed "
         "1` (CSV). Min-min: `devo schedule FILE --heuristic min-min --objective makespan`. "
         "Gap = (makespan - Min-min) / Min-min (negative: below Min-min)." %
         (shown(BENCH), shown(BENCH), THREADS, THREADS))
    emit()
    log("generating %d instances in %s" % (len(insts), WORK))
    paths = dict(zip(insts, gen_all(insts)))
    log("Min-min of each")
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as ex:
        mm = dict(zip(insts, ex.map(lambda k: minmin(paths[k]), insts)))
    res = {}
    # every 1 s run before any 10 s run; the 10 s runs class by class (both sizes), so that a
    # cut by the budget leaves whole classes
    plan = [(k, 1) for k in insts] + [(k, 10) for k in insts]
    for k, t in plan:
        c, n, m = k
        runs = (("gpu", [], CUDA_INIT), ("cpu", ["--search", "ig", "--threads", str(THREADS)], 0.2))
        if left() < sum(lim(t) + 0.05 + ovh + read_s(n, m) for _, _, ovh in runs):
            for who, _, _ in runs:  # both or neither: the row compares them
                res[(k, t, who)] = "skipped (time budget)"
            continue
        for who, flags, ovh in runs:
            est = lim(t) + 0.05 + ovh + read_s(n, m)
            rows = bench("p2_%s_%dx%d_%s_%gs" % (c, n, m, who, t), paths[k], t, 1, flags, est)
            res[(k, t, who)] = rows if isinstance(rows, str) else rows[0]
    emit("| instance | Min-min | GPU %ss | gap | CPU %ss | gap | GPU %ss | gap | CPU %ss | gap |" %
         (fmt_t(1), fmt_t(1), fmt_t(10), fmt_t(10)))
    emit("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in insts:
        c, n, m = k
        cells = []
        for t, who in ((1, "gpu"), (1, "cpu"), (10, "gpu"), (10, "cpu")):
            v = res.get((k, t, who), "not run")
            if isinstance(v, str):
                cells += [v, ""]
            else:
                cells += ["%.2f" % v[1], "%+.2f%%" % pct(v[1], mm[k])]
        emit("| %s %dx%d | %.2f | %s |" % (c, n, m, mm[k], " | ".join(cells)))
    emit()
    emit("Seconds from the call to the answer (backend that ran the search):")
    emit()
    emit("| instance | GPU %ss | CPU %ss | GPU %ss | CPU %ss |" % (fmt_t(1), fmt_t(1), fmt_t(10),
                                                             fmt_t(10)))
    emit("|---|---:|---:|---:|---:|")
    for k in insts:
        cells = []
        for t, who in ((1, "gpu"), (1, "cpu"), (10, "gpu"), (10, "cpu")):
            v = res.get((k, t, who), "not run")
            cells.append("" if isinstance(v, str) else "%.4f (%s)" % (v[2], v[4]))
        emit("| %s %dx%d | %s |" % (k[0], k[1], k[2], " | ".join(cells)))
    emit()


def estimate():
    if part in ("1", "deadline"):
        b = len(NAMES) * (5 * lim(1) + 0.05 + CUDA_INIT)
        a = len(VARIANTS) * len(ABL_NAMES) * (3 * lim(1) + 0.05 + CUDA_INIT)
        sizes = [sz(s) for s in os.environ.get("DEADLINE_SIZES", "4096x64 16384x256").split()]
        nth = len(set(os.environ.get("DEADLINE_THREADS", "1 %d" % THREADS).split()))
        ncl = len(os.environ.get("DEADLINE_CLASSES", "u_i_hihi").split())
        d = ncl * sum(3 * read_s(n, m) + nth * 20 * (max(lim(0.1), read_s(n, m)) +
                                                     max(lim(1), read_s(n, m)) + 0.1)
                      for n, m in sizes)
        tst = 0 if os.environ.get("SKIP_TESTS", "0") == "1" else 60
        if part == "deadline":
            return "deadline runs %.0f s" % d, d
        return ("gpu_ls tests ~%d s, Braun 1 s column %.0f s, ablation %.0f s, deadline runs %.0f s" %
                (tst, b, a, d), tst + b + a + d)
    sizes = [sz(s) for s in os.environ.get("SIZES", "4096x64 16384x256").split()]
    ncls = len(os.environ.get("CLASSES", "x x x x x x x x").split())
    g = 15.0
    r = ncls * sum(2 * (lim(t) + 0.05) + CUDA_INIT + 0.2 + 2 * read_s(n, m)
                   for n, m in sizes for t in (1, 10))
    return "generation and Min-min ~%.0f s, searches %.0f s" % (g, r), g + r


what, est = estimate()
emit("## bench_sched_gpu.sh part %s, %s" % (part, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
emit()
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().strip()
except OSError:
    gpu = "none (no nvidia-smi)"
try:
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL).stdout.decode().strip()
except OSError:
    commit = "?"
emit("Commit %s; GPU: %s; %d CPU cores; build %s; time scale %g. Time estimate: %s, about %.0f "
     "s after %.0f s of build check (budget %.0f s; what would end past it is skipped and says "
     "so)." % (commit or "?", gpu or "none", os.cpu_count() or 0, shown(build),
               SCALE, what, est, time.time() - T0, BUDGET))
emit()
if part == "1":
    ref = reference()
    gpu_tests()
    braun_column(ref)
    ablation(ref)
    deadline_check()
elif part == "deadline":
    deadline_check()
else:
    larger()
emit("Part %s ended %.0f s after the script's start." % (part, time.time() - T0))
PYEOF
