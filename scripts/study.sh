#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# study.sh: the worked study of docs/study.md in one call (issue 23): docs/study_janssen.spec
# (rand1bin against jDE, NP = 50 .. 500, F01..F10, D = 100, GPU) under Janssen et al.'s protocol
# with `devo experiment`, then `devo rank` (U-scores), `bench-cec --models` (the five
# implementation models) and scripts/plot.py (convergence, box plot, model times). Everything goes
# under $OUT (default build/study).
#
# The full protocol is 2 x 10 x 4 x 30 = 2400 trials of up to 10^7 evaluations; where that does
# not fit the time given (--seconds, default 500), the trials are reduced: a calibration run
# (the same grid, 1 trial, 10^6 evaluations, no target) measures the cost of one seed, ten times
# that is taken as a full seed's (an upper bound: a trial that reaches the target stops early,
# and the calibration includes each trial's set-up), and the largest N <= 30 seeds that fit the
# time left are run (`--protocol janssen2024 --trials N`). The number used is printed and is in
# $OUT/summary.txt.
#
# usage: scripts/study.sh [--seconds S] [--trials N] [--build DIR] [--models-evals N] [--smoke]
#                       [--spec FILE] [--no-models]
#   --seconds S        the whole script's time budget (default 500)
#   --trials N         run N seeds, no calibration (1 .. 30)
#   --build DIR        where devo and bench-cec are (default build)
#   --models-evals N   bench-cec --models --evals (default 2000000)
#   --smoke            the same steps on the CPU on a tiny grid, no GPU needed: D = 10, 2 trials,
#                      1000*D evaluations, target 1e-8 (no protocol), and the model times from
#                      a small cpu / cpu-ms experiment instead of bench-cec (a check of the
#                      script, not a study)
#   --spec FILE        another study spec (default docs/study_janssen.spec; its output and trace
#                      lines are replaced by files under $OUT)
#   --no-models        skip the models table and its figure
# Run from the repository root. Exit 0 when every step succeeded, 1 otherwise, 2 on bad usage.
set -euo pipefail

seconds=500
trials=""
build=build
models_evals=2000000
smoke=0
study_spec=docs/study_janssen.spec
no_models=0
while [ $# -gt 0 ]; do
  case $1 in
  --seconds) seconds=$2; shift 2 ;;
  --trials) trials=$2; shift 2 ;;
  --build) build=$2; shift 2 ;;
  --models-evals) models_evals=$2; shift 2 ;;
  --smoke) smoke=1; shift ;;
  --spec) study_spec=$2; shift 2 ;;
  --no-models) no_models=1; shift ;;
  -h | --help) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "study.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in "$seconds" "$models_evals" ${trials:+"$trials"}; do
  case $v in '' | *[!0-9]*) echo "study.sh: '$v' is not a positive integer" >&2; exit 2 ;; esac
done
if [ -n "$trials" ] && { [ "$trials" -lt 1 ] || [ "$trials" -gt 30 ]; }; then
  echo "study.sh: --trials must be 1 .. 30" >&2
  exit 2
fi
[ -f scripts/plot.py ] || { echo "study.sh: run from the repository root" >&2; exit 2; }
[ -f "$study_spec" ] || { echo "study.sh: no spec $study_spec" >&2; exit 2; }

start=$(date +%s)
out=${OUT:-build/study}
mkdir -p "$out"
devo=$build/devo
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do # the first with matplotlib
  if [ -n "$cand" ] && "$cand" -c 'import matplotlib' 2>/dev/null; then
    py=$cand
    break
  fi
done
[ -n "$py" ] || { echo "study.sh: no python3 with matplotlib (apt-get install python3-matplotlib)" >&2; exit 1; }
need=("$devo")
[ $smoke = 1 ] || [ $no_models = 1 ] || need+=("$build/bench-cec")
for b in "${need[@]}"; do
  if [ ! -x "$b" ]; then # a fresh machine: build here (inside the time budget; ~1 min on 16 cores)
    echo "study.sh: no $b: building $build (log: $out/build.log)" >&2
    { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release &&
      cmake --build "$build" -j "$(nproc)"; } > "$out/build.log" 2>&1 ||
      { echo "study.sh: the build failed ($out/build.log)" >&2; exit 1; }
    break
  fi
done
left() { echo $((seconds - ($(date +%s) - start))); }
say() { echo "study.sh: $*" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"
say "$(date -u '+%Y-%m-%d %H:%M UTC'), $("$devo" --version), output in $out"

# The study's spec with its outputs under $out (the spec's hash leaves the paths out).
spec=$out/study.spec
sed -e "s#^output .*#output   = $out/study.csv#" -e "s#^trace .*#trace    = $out/study_trace.csv#" \
  "$study_spec" > "$spec"
if [ $smoke = 1 ]; then
  # a tiny grid on the CPU: D = 10, 2 trials, 1000*D evaluations, the protocol's target
  sed -i -e 's#^dims .*#dims     = 10#' -e 's#^backend .*#backend  = cpu\ntrials   = 2\nbudget   = 1000*D\ntarget   = 1e-8#' "$spec"
  protocol=()
  trials=2
fi

# 1. The implementation models (before the study: the trial count is fitted to what is left).
models_label=""
if [ $no_models = 1 ]; then
  :
elif [ $smoke = 1 ]; then
  cat > "$out/models.spec" <<SPEC
output   = $out/models.csv
problems = F01 F02 F03 F04 F05 F06 F07 F08 F09 F10
dims     = 10
np       = 50
trials   = 1
budget   = 1000*D
cec_data = data/cec
backend  = cpu cpu-ms
threads  = 2
[algorithm rand1bin]
f  = 0.5
cr = 0.3
SPEC
  rm -f "$out/models.csv"
  "$devo" experiment "$out/models.spec" 2> "$out/models.log"
  "$devo" rank "$out/models.csv" --models > "$out/models.md"
  models_label="median wall time per trial (s)"
else
  models=(--models --evals "$models_evals" --reps 3 --cpu-div 100 --naive-div 10 --csv "$out/models.csv")
  "$build/bench-cec" "${models[@]}" > "$out/models.md" 2> "$out/models.log"
  models_label="generation-loop seconds (CPU rows, naive GPU: scaled from a part of the run)"
fi
[ $no_models = 1 ] || say "models table in $out/models.md ($(($(date +%s) - start)) s so far)"

# 2. How many trials fit.
if [ -z "$trials" ]; then
  sed -e "s#^output .*#output   = $out/calib.csv#" -e '/^trace /d' \
    -e 's#^backend .*#&\ntrials   = 1\nbudget   = 10000*D#' "$study_spec" > "$out/calib.spec"
  rm -f "$out/calib.csv"
  "$devo" experiment "$out/calib.spec" 2> "$out/calib.log" || {
    rc=$?
    echo "study.sh: the calibration run failed (exit $rc): $(tail -1 "$out/calib.log")" >&2
    exit 1
  }
  calib=$(awk -F, 'NR > 2 { t += $12 } END { printf "%.3f", t }' "$out/calib.csv")
  reserve=40 # devo rank and the plots
  trials=$(awk -v c="$calib" -v l="$(left)" -v r="$reserve" \
    'BEGIN { n = int((l - r) / (10 * c)); print (n < 1 ? 1 : (n > 30 ? 30 : n)) }')
  [ "$((10 * ${calib%.*} + reserve))" -le "$(left)" ] ||
    say "warning: even one seed may not fit ($(left) s left); the study stops at the time limit"
  say "calibration: one seed of the grid at a tenth of the budget took $calib s, so up to $(awk -v c="$calib" 'BEGIN { printf "%.0f", 10 * c }') s per seed at the full budget; $(left) s left"
fi
if [ $smoke = 0 ]; then
  protocol=(--protocol janssen2024 --trials "$trials")
  say "running the Janssen protocol with $trials of its 30 trials (seeds 1..$trials)"
else
  say "smoke run: $trials trials per configuration at D = 10 on the CPU (not the protocol)"
fi

# 3. The study (a fresh output: the trial count, hence the spec's hash, may differ from a
# previous call's).
rm -f "$out/study.csv" "$out/study_trace.csv"
"$devo" experiment "$spec" "${protocol[@]}" --dry-run > "$out/grid.txt"
# SIGINT at the time limit keeps every finished row (a rerun with --trials N resumes)
set +e
timeout --signal=INT "$(($(left) > 30 ? $(left) - 20 : 10))" \
  "$devo" experiment "$spec" "${protocol[@]}" 2> "$out/study.log"
rc=$?
set -e
say "$(tail -n 1 "$out/study.log")"
if [ $rc != 0 ]; then
  say "the study did not finish (exit $rc; $out/study.log): no ranking or study plots"
  [ $no_models = 1 ] || "$py" scripts/plot.py times "$out/models.csv" -o "$out/study_times.png" \
    --width 1200 --height 600 --ylabel "$models_label" || true
  exit 1
fi

# 4. Ranking and plots.
"$devo" rank "$out/study.csv" > "$out/rank.md"
"$devo" rank "$out/study.csv" --format csv > "$out/rank.csv"
# four functions spread over the spec's list (F01, F04, F07, F10 of F01..F10), or all up to four
fns=$(awk '$1 == "problems" { for (i = 3; i <= NF; i++) p[n++] = $i }
  END { for (k = 0; k < (n < 4 ? n : 4); k++) printf "%s%s", k ? "," : "", p[n < 4 ? k : int(k * (n - 1) / 3 + 0.5)] }' "$spec")
"$py" scripts/plot.py convergence "$out/study_trace.csv" --functions "$fns" \
  -o "$out/study_convergence.png" --width 1400 --height 1400
"$py" scripts/plot.py box "$out/study.csv" -o "$out/study_box.png" --width 1600 --height 1200
[ $no_models = 1 ] ||
  "$py" scripts/plot.py times "$out/models.csv" -o "$out/study_times.png" --width 1200 \
    --height 600 --ylabel "$models_label"
say "trials used: $trials per configuration, $(($(wc -l < "$out/study.csv") - 2)) rows in $out/study.csv"
say "done in $(($(date +%s) - start)) s: $(cd "$out" && ls rank.md rank.csv models.md study_*.png 2>/dev/null | paste -sd' ')"
echo
# the U-scores and the Friedman test (the pairwise tests are in rank.md)
awk '/^## Mann-Whitney/ { skip = 1 } /^## Friedman/ { skip = 0 } !skip' "$out/rank.md"
[ $no_models = 1 ] || { echo; cat "$out/models.md"; }
