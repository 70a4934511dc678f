#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mutation_check.sh: proves that the cpu tests catch small deliberate bugs. It copies the working
# tree (tracked and untracked, not ignored files) to a scratch folder, builds it CPU-only once,
# checks that the cpu tests pass there, then applies each mutation of the list below on its own
# (an exact text replacement that must match exactly once, else the script stops: the list
# cannot rot silently), rebuilds, runs `ctest -L cpu`, puts the file back, and prints whether a
# test failed (caught), the build broke (an error of the list) or everything passed or skipped
# (survived). A deadline test that skips as inconclusive (too few runs not preempted) does not
# catch anything: the two deadline mutations need a quiet machine or --rt.
#
# Usage: bash scripts/mutation_check.sh [--list | --check] [--only ID[,ID...]] [--keep] [--rt]
#   --check          only checks that every mutation still applies to the tree as it is (each
#                    text found exactly once; no copy, no build: a second, for CI), exit 0 or 2
#   --rt             (root only) a deadline test that skipped as inconclusive on a loaded machine
#                    is run once more, alone, under SCHED_FIFO (chrt -f 10: a few seconds in which
#                    other processes cannot preempt it) with TC_DEADLINE_SHARED=1 (other work on
#                    the other CPUs does not make a run unclean), so that its promise is tested
#                    after all; the unmutated tree must pass that way first
#   DEVO_SHARED_DIR  the test data (default: the copy's own data/, which the repository holds)
#   JOBS             ctest and build parallelism (default 2)
# Exit status: 0 when every mutation was caught, 1 otherwise, 2 on a usage or setup error.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=${JOBS:-2}
ONLY=""
KEEP=0
LIST=0
CHECK=0
RT=0
while [ $# -gt 0 ]; do
  case "$1" in
  --only) ONLY=",${2:?--only needs a list of ids},"; shift 2 ;;
  --keep) KEEP=1; shift ;;
  --list) LIST=1; shift ;;
  --check) CHECK=1; shift ;;
  --rt) RT=1; shift ;;
  *) echo "mutation_check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

IDS=() FILES=() OLDS=() NEWS=() WHYS=()
# M id file old new why: replace the one occurrence of old in file by new.
M() { IDS+=("$1"); FILES+=("$2"); OLDS+=("$3"); NEWS+=("$4"); WHYS+=("$5"); }

# ---- the four bugs that passed the suite before issue 25 --------------------------------------
M katsuura_30_terms problems/cec.h \
  'for (j = 1; j <= 32; ++j) {' 'for (j = 1; j <= 30; ++j) {' \
  'Katsuura sum of F07 cut from 32 to 30 terms'
M eval_limit_ge engine/solver.c \
  'if (o->max_evals > 0 && s->evals + devo__np_now(s) > o->max_evals)' \
  'if (o->max_evals > 0 && s->evals + devo__np_now(s) >= o->max_evals)' \
  'evaluation limit: > turned into >='
M cpu_ignores_bounds engine/cpu_backend.c \
  'devo__box_hi(&st->box, (uint32_t)j), o->bounds);' \
  'devo__box_hi(&st->box, (uint32_t)j), DEVO__BOUNDS_CLIP);' \
  'the CPU backend ignores --bounds (always clips)'
M replace_strict engine/cpu_backend.c \
  'if (st->nfit[i] <= st->fit[i])' 'if (st->nfit[i] < st->fit[i])' \
  'replacement rule: <= turned into <'

# ---- DE operators ----------------------------------------------------------------------------
M mutant_sign problems/de_ops.h \
  'double v = x1 + DEVO_MUL(f, x2 - x3);' 'double v = x1 + DEVO_MUL(f, x3 - x2);' \
  'mutant x_r1 + F (x_r3 - x_r2)'
M no_jrand problems/de_ops.h \
  'return u.cr < cr || j == r.jrand;' 'return u.cr < cr;' \
  'crossover without the forced coordinate j_rand'
M r1_may_be_i problems/de_ops.h \
  'r.r1 = devo__below(w.v[0], np - 1u);
  if (r.r1 >= i)' \
  'r.r1 = devo__below(w.v[0], np - 1u);
  if (r.r1 > i)' \
  'index r1 may equal i'
M reflect_no_clip problems/de_ops.h \
  'return v < lo ? lo : (v > hi ? hi : v);' 'return v;' \
  'reflect: the mirror image is not clipped'
M midpoint_wrong_bound problems/de_ops.h \
  'return v < lo ? 0.5 * (parent + lo) : 0.5 * (parent + hi);' \
  'return v < lo ? 0.5 * (parent + hi) : 0.5 * (parent + lo);' \
  'midpoint towards the other bound'

# ---- stopping rules --------------------------------------------------------------------------
M gen_limit_late engine/solver.c \
  'if (o->max_gens > 0 && s->gens >= o->max_gens)' 'if (o->max_gens > 0 && s->gens > o->max_gens)' \
  'generation limit: one generation too many'
M target_strict engine/solver.c \
  'if (!isnan(o->target) && s->best_f <= o->target)' 'if (!isnan(o->target) && s->best_f < o->target)' \
  'target rule: <= turned into <'
M cli_target_rounded tools/cmd_solve.c \
  'while (target - f0 > a->target)' 'while (0 && target - f0 > a->target)' \
  'devo solve --target E: f* + E not rounded down to an error <= E'
M clock_3ms_late engine/solver.c \
  's->deadline = s->o.time_limit > 0.0 ? s->t0 + s->o.time_limit : 0.0;' \
  's->deadline = s->o.time_limit > 0.0 ? s->t0 + s->o.time_limit + 0.003 : 0.0;' \
  'deadline: the clock fires 3 ms late'
M schedule_10ms_late engine/schedule.c \
  's->deadline = s->t0 + s->o->time_limit;' 's->deadline = s->t0 + s->o->time_limit + 0.010;' \
  'devo_schedule_run: the deadline 10 ms late (caught under load only with --rt)'
M no_deadline_in_generation engine/cpu_backend.c \
  'int d = st->dim, i, lo, hi;
  for (lo = a; lo < b; lo = hi) {
    hi = lo + (st->v->kind == DEVO__P_USER ? st->batch : st->stride);
    if (hi > b)
      hi = b;
    if (atomic_load_explicit(&st->aborted, memory_order_relaxed))
      return;
    if (devo__should_abort(st->s)) {' \
  'int d = st->dim, i, lo, hi;
  for (lo = a; lo < b; lo = hi) {
    hi = lo + (st->v->kind == DEVO__P_USER ? st->batch : st->stride);
    if (hi > b)
      hi = b;
    if (atomic_load_explicit(&st->aborted, memory_order_relaxed))
      return;
    if (atomic_load(&st->s->interrupt)) {' \
  'deadline: not looked at inside a generation'

# ---- random numbers, classic and CEC functions ------------------------------------------------
M philox_multiplier problems/philox.h \
  'uint64_t p0 = (uint64_t)0xD2511F53u * c[0];' 'uint64_t p0 = (uint64_t)0xD2511F55u * c[0];' \
  'Philox multiplier'
M classic_rastrigin problems/classic.h \
  'return z * z - 10.0 * cos(2.0 * DEVO_PI * z) + 10.0;' \
  'return z * z - 10.0 * cos(2.0 * DEVO_PI * z) + 10.000000001;' \
  'classic Rastrigin constant off by 1e-9'
M cec_ackley problems/cec.h \
  'return DEVO_E - 20.0 * exp(-0.2 * sqrt(A / dn)) - exp(B / dn) + 20.0;' \
  'return DEVO_E - 20.0 * exp(-0.2 * sqrt(A / dn)) - exp(B / dn) + 20.000000000001;' \
  'CEC Ackley constant off by 1e-12'
M cec_composition_inf problems/cec.h \
  '#define DEVO__CEC_INF 1.0e99' '#define DEVO__CEC_INF 1.0e9' \
  'composition weight at distance 0: 1e9 instead of 1e99'
M cec_gram_schmidt_once problems/cec_data.c \
  'for (pass = 0; pass < 2; ++pass)' 'for (pass = 0; pass < 1; ++pass)' \
  'generated rotation: Gram-Schmidt applied once'

# ---- ETC evaluation, heuristics, local search --------------------------------------------------
M etc_flowtime_fcfs problems/etc.h \
  'comp[j] += etc[(long long)t * m + j];
      fsum[j] += comp[j];' \
  'comp[j] += etc[(long long)t * m + j];
      fsum[j] += etc[(long long)t * m + j];' \
  'FCFS flowtime sums run times, not finishing times'
M etc_makespan_min problems/etc.h \
  'if (comp[j] > makespan)' 'if (comp[j] < makespan)' \
  'makespan takes the least loaded machine'
M etc_decode_top problems/etc.h \
  'if (x >= (double)m)
    return m - 1;' \
  'if (x >= (double)m)
    return 0;' \
  'decode: x >= m goes to machine 0'
M heur_mct_tie problems/etc_heur.c \
  ': load[j] + row[j] < load[best] + row[best])' ': load[j] + row[j] <= load[best] + row[best])' \
  'MCT ties to the highest machine'
M heur_minmin_tie problems/etc_heur.c \
  'if (v1[t] < key) {' 'if (v1[t] <= key) {' \
  'Min-min ties to the highest task'
M heur_best_two_tie problems/etc_heur.c \
  'if (c < c1) {' 'if (c <= c1) {' \
  'best machine of a task: ties to the highest machine'
M heur_sufferage_tie problems/etc_heur.c \
  '} else if (v2[t] - v1[t] > key) {' '} else if (v2[t] - v1[t] >= key) {' \
  'Sufferage ties to the highest task'
M ls_no_improvement problems/etc_ls.c \
  'if (c->score < -g->tol)
    return 1;' \
  'if (c->score < -g->tol)
    return 0;' \
  'local search refuses real improvements'
M ls_flow_delta problems/etc_ls.c \
  'return -(s->ready[j] + s->csum[s->start[j] + r]) - p * (double)(cnt - r - 1);' \
  'return -(s->ready[j] + s->csum[s->start[j] + r]) - p * (double)(cnt - r);' \
  'local search: wrong flowtime change of a removal (the restore fallback hid it)'
M price_start_equal problems/etc_vnd.c \
  'mu[j] = ok && sum > 0.0 && isfinite(sum) ? mu[j] / sum : 1.0 / m;' 'mu[j] = 1.0 / m;' \
  'machine prices start equal (the bound 3% below the LP optimum at 4096 x 64)'
M price_rounds_no_ready problems/etc_vnd.c \
  'comp[j] = e->ready[j];' 'comp[j] = 0.0;' \
  'pricing rounds leave the ready times out (the bound 1% below the LP optimum with them)'

# ---- readers and the CLI -----------------------------------------------------------------------
M etc_reader_zero problems/etc_io.c \
  'if (!isfinite(values[k]) || values[k] <= 0.0) {' 'if (!isfinite(values[k]) || values[k] < 0.0) {' \
  'ETC reader accepts 0'
M cec_reader_no_line_end problems/cec_data.c \
  "if (t->len == 0 || t->buf[t->len - 1] == '\\n')" 'if (1)' \
  'CEC data reader accepts a file cut inside its last line'
M cli_usage_exit_1 tools/cli.c \
  'r = vreport(CLI_USAGE, cmd, fmt, ap);' 'r = vreport(CLI_RUNTIME, cmd, fmt, ap);' \
  'CLI: bad usage exits 1 instead of 2'

# ---- SOCO functions, box setters, schedule output, signals -------------------------------------
M soco_f10_exponent problems/soco.h \
  'sin(DEVO_MUL(50.0, pow(p, 0.1)))' 'sin(DEVO_MUL(50.0, pow(p, 0.11)))' \
  'SOCO f10 term: (x^2 + y^2)^0.11 inside the sine instead of ^0.1'
M soco_hybrid_share problems/soco.h \
  'static const int m4[8] = {1, 1, 1, 1, 2, 3, 3, 3};' 'static const int m4[8] = {1, 1, 1, 1, 2, 3, 3, 2};' \
  'SOCO F19: share 0.5 of the non-separable part instead of 0.75'
M box_optimum_unchecked engine/problem.c \
  'st = optimum_inside(p, &lower, &upper, 0);
  if (st != DEVO_OK)
    return st;' \
  'st = DEVO_OK;' \
  'devo_problem_set_box accepts a box that leaves the optimum out'
M timeline_start_at_ready problems/etc_names.c \
  'start[t] = c[j];' 'start[t] = e->ready[j];' \
  'schedule timeline (FCFS): every task starts at its machine ready time'
M json_15_digits tools/json_out.c \
  'if (strtod(buf, NULL) != x)' 'if (0)' \
  'JSON numbers with 15 significant digits only (do not read back exactly)'
M second_signal_ignored tools/cmd_schedule.c \
  'if (stop_signal) {' 'if (0) {' \
  'devo schedule: a second SIGINT/SIGTERM does not end the process at once'

# ------------------------------------------------------------------------------------------------
N=${#IDS[@]}
if [ "$LIST" = 1 ]; then
  for ((k = 0; k < N; ++k)); do printf '%-26s %-24s %s\n' "${IDS[k]}" "${FILES[k]}" "${WHYS[k]}"; done
  exit 0
fi

# count file old: how many times old occurs in file (0 when the file is missing).
count() {
  F="$1" OLD="$2" python3 -c 'import os
try:
    print(open(os.environ["F"]).read().count(os.environ["OLD"]))
except OSError:
    print(0)'
}
if [ "$CHECK" = 1 ]; then
  bad=0
  for ((k = 0; k < N; ++k)); do
    [ -n "$ONLY" ] && [[ "$ONLY" != *",${IDS[k]},"* ]] && continue
    c=$(count "$ROOT/${FILES[k]}" "${OLDS[k]}")
    if [ "$c" != 1 ]; then
      echo "mutation ${IDS[k]}: its text occurs $c times in ${FILES[k]} (expected once): update the list" >&2
      bad=1
    fi
  done
  [ $bad = 0 ] && echo "mutation_check.sh --check: all $N mutations apply"
  exit $((bad * 2))
fi

SHARED=${DEVO_SHARED_DIR:-}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/devo-mutation.XXXXXX") || exit 2
trap '[ "$KEEP" = 1 ] || rm -rf "$SCRATCH"' EXIT
echo "scratch copy: $SCRATCH (test data: ${SHARED:-data/ of the copy})"
(cd "$ROOT" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$SCRATCH" ||
  { echo "mutation_check.sh: could not copy the tree" >&2; exit 2; }
B="$SCRATCH/build"
CMAKE_ARGS=(-S "$SCRATCH" -B "$B" -DDEVO_CUDA=OFF -DCMAKE_BUILD_TYPE=Release)
[ -n "$SHARED" ] && CMAKE_ARGS+=(-DDEVO_SHARED_DIR="$SHARED")
cmake "${CMAKE_ARGS[@]}" >"$SCRATCH/configure.log" 2>&1 ||
  { echo "mutation_check.sh: cmake failed, see $SCRATCH/configure.log" >&2; KEEP=1; exit 2; }

build() { cmake --build "$B" -j "$JOBS" >"$SCRATCH/build.log" 2>&1; }
# Runs the cpu tests; FAILED and SKIPPED get the names. Returns 0 when none failed (124: timed
# out). With --rt, skipped deadline tests run again under SCHED_FIFO (RERUN says which).
names() { sed -n "s/^[[:space:]]*[0-9]* - \([^ ]*\) (\($1\)).*/\1/p" "$2" | tr '\n' ' '; }
run_tests() {
  local log="$SCRATCH/ctest.log" rc re
  timeout 900 ctest --test-dir "$B" -L cpu -j "$JOBS" --output-on-failure >"$log" 2>&1
  rc=$?
  FAILED=$(names 'Failed\|Timeout\|SEGFAULT\|Subprocess aborted\|Exception\|Child aborted\|Not Run' "$log")
  SKIPPED=$(names Skipped "$log")
  TOTAL=$(sed -n 's/^Total Test time (real) = *\(.*\)/\1/p' "$log")
  RERUN=""
  if [ "$RT" = 1 ] && [ $rc -ne 124 ]; then
    re=$(echo "$SKIPPED" | tr ' ' '\n' | grep -E 'time_limit|deadline|short_limits' | paste -sd'|' -)
    if [ -n "$re" ]; then
      RERUN=$re
      TC_DEADLINE_SHARED=1 timeout 300 chrt -f 10 ctest --test-dir "$B" -R "^($re)\$" --output-on-failure \
        >"$SCRATCH/ctest-rt.log" 2>&1
      [ $? -ne 0 ] && rc=8
      FAILED="$FAILED$(names 'Failed\|Timeout\|SEGFAULT\|Subprocess aborted\|Exception\|Child aborted' "$SCRATCH/ctest-rt.log")"
      SKIPPED="$(echo "$SKIPPED" | tr ' ' '\n' | grep -vE "^($re)\$" | paste -sd' ' -) $(names Skipped "$SCRATCH/ctest-rt.log")"
      cat "$SCRATCH/ctest-rt.log" >>"$log"
    fi
  fi
  return $rc
}

# apply file old new: replaces the single occurrence, or fails saying how many there were.
apply() {
  F="$1" OLD="$2" NEW="$3" python3 - <<'EOF'
import os, sys
f, old, new = os.environ["F"], os.environ["OLD"], os.environ["NEW"]
s = open(f).read()
n = s.count(old)
if n != 1:
    sys.stderr.write("%s: the text to mutate occurs %d times (expected once): %r\n" % (f, n, old))
    sys.exit(1)
open(f, "w").write(s.replace(old, new))
EOF
}

# Every mutation must still apply to the tree as it is (checked before the long part).
for ((k = 0; k < N; ++k)); do
  [ -n "$ONLY" ] && [[ "$ONLY" != *",${IDS[k]},"* ]] && continue
  f="$SCRATCH/${FILES[k]}"
  cp "$f" "$f.orig" && apply "$f" "${OLDS[k]}" "${NEWS[k]}" ||
    { echo "mutation ${IDS[k]} no longer applies to ${FILES[k]}: update the list" >&2; KEEP=1; exit 2; }
  mv "$f.orig" "$f"
done

T0=$(date +%s)
build || { echo "mutation_check.sh: the unmutated tree does not build, see $SCRATCH/build.log" >&2; KEEP=1; exit 2; }
if ! run_tests; then
  echo "mutation_check.sh: the unmutated tree fails: $FAILED (see $SCRATCH/ctest.log)" >&2
  KEEP=1
  exit 2
fi
SKIPPED=$(echo $SKIPPED)
echo "baseline: ctest -L cpu passed in $TOTAL; skipped: ${SKIPPED:-none}${RERUN:+; rerun under SCHED_FIFO: ${RERUN//|/ }}"

caught=0 survived=0 broken=0 ran=0
SURV=""
for ((k = 0; k < N; ++k)); do
  [ -n "$ONLY" ] && [[ "$ONLY" != *",${IDS[k]},"* ]] && continue
  ran=$((ran + 1))
  f="$SCRATCH/${FILES[k]}"
  cp "$f" "$f.orig"
  apply "$f" "${OLDS[k]}" "${NEWS[k]}" || exit 2
  if ! build; then
    printf 'BUILD-ERROR %-26s %s (see %s)\n' "${IDS[k]}" "${WHYS[k]}" "$SCRATCH/build.log"
    cp "$SCRATCH/build.log" "$SCRATCH/build-${IDS[k]}.log"
    broken=$((broken + 1))
  else
    run_tests
    rc=$?
    cp "$SCRATCH/ctest.log" "$SCRATCH/ctest-${IDS[k]}.log"
    if [ $rc -ne 0 ]; then
      [ $rc -eq 124 ] && FAILED="$FAILED(timed out) "
      printf 'caught      %-26s %s: %s%s\n' "${IDS[k]}" "${WHYS[k]}" "$FAILED" \
        "${RERUN:+(SCHED_FIFO rerun of: ${RERUN//|/ })}"
      grep -m1 '^FAIL ' "$SCRATCH/ctest.log" | cut -c1-300 | sed 's/^/              /'
      caught=$((caught + 1))
    else
      SKIPPED=$(echo $SKIPPED)
      printf 'SURVIVED    %-26s %s (skipped: %s)\n' "${IDS[k]}" "${WHYS[k]}" "${SKIPPED:-none}"
      survived=$((survived + 1))
      SURV="$SURV ${IDS[k]}"
    fi
  fi
  cat "$f.orig" >"$f" && rm "$f.orig" # a new mtime: make rebuilds what the mutant built
done
build || { echo "mutation_check.sh: the restored tree does not build" >&2; exit 2; }
echo "mutations: $ran, caught $caught, survived $survived${SURV:+ ($SURV )}, build errors $broken; $(($(date +%s) - T0)) s"
[ "$KEEP" = 1 ] && echo "scratch kept: $SCRATCH"
[ $caught -eq $ran ]
