/* SPDX-License-Identifier: MIT */
/* bench_ls.c: bench-ls, issue 19's local-search throughput: neighbourhood candidates
 * (moves, swaps, ejection chains, compaction moves; each one O(1) evaluation from kept loads)
 * evaluated per second by the iterated greedy of problems/etc_vnd.c on one CPU thread, one
 * chain, from the Min-min schedule, on etc-gen instances (seed 1) of 512 x 16 and 4096 x 64.
 * Median of --reps runs of --seconds each, after a warm-up run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "problems/etc_gen.h"
#include "problems/etc_vnd.h"
#include "bench/bench_util.h"

static const char *const usage =
    "usage: bench-ls [--seconds S] [--reps N] [--class C]\n"
    "\n"
    "Candidates evaluated per second by the iterated greedy (problems/etc_vnd.c), one thread,\n"
    "one chain, at 512 x 16 and 4096 x 64 (etc-gen class C, default u_c_hihi, seed 1); the\n"
    "median of N runs (default 5) of S seconds (default 1) after a warm-up.\n";

static int run_size(const char *cls, int n, int m, double seconds, int reps)
{
  devo__etcgen g;
  devo_etc *e = NULL;
  double *v = (double *)malloc((size_t)n * m * sizeof(double)), rate[64];
  int *start = (int *)malloc((size_t)n * sizeof(int)), *a = (int *)malloc((size_t)n * sizeof(int));
  char err[256];
  int k;
  int64_t steps = 0;
  devo__etcgen_defaults(&g);
  if (!v || !start || !a || devo__etcgen_class(&g, cls) != 0) {
    fprintf(stderr, "bench-ls: bad class %s or out of memory\n", cls);
    return 2;
  }
  g.ntasks = n;
  g.nmach = m;
  if (devo__etcgen_run(&g, v, err, sizeof err) != 0 ||
      devo_etc_create(&e, n, m, v, NULL, err, sizeof err) != DEVO_OK ||
      devo_etc_heuristic(e, DEVO_HEUR_MINMIN, start) != DEVO_OK) {
    fprintf(stderr, "bench-ls: %s\n", err);
    return 1;
  }
  for (k = -1; k < reps; ++k) { /* k = -1: warm-up */
    devo__ig_opts o;
    devo__ig_result r;
    double t0;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    o.chains = 1;
    o.threads = 1;
    o.epoch = 64;
    memcpy(a, start, (size_t)n * sizeof(int));
    t0 = devo__now();
    o.deadline = t0 + seconds;
    if (devo__etc_ig(e, a, &o, &r) != DEVO_OK) {
      fprintf(stderr, "bench-ls: the search failed\n");
      return 1;
    }
    if (k >= 0) {
      rate[k] = (double)r.candidates / (devo__now() - t0);
      steps += r.steps;
    }
  }
  qsort(rate, (size_t)reps, sizeof rate[0], bench_cmp_double);
  printf("| %s | %d x %d | %.1f M/s | %.1f M/s | %.1f M/s | %.0f |\n", cls, n, m,
         rate[reps / 2] * 1e-6, rate[0] * 1e-6, rate[reps - 1] * 1e-6,
         (double)steps / (reps * seconds));
  devo_etc_destroy(e);
  free(v);
  free(start);
  free(a);
  return 0;
}

int main(int argc, char **argv)
{
  const char *cls = "u_c_hihi";
  double seconds = 1.0;
  int reps = 5, rc;
  char date[64];
  const bench_opt opts[] = {BENCH_POS_OPT("seconds", &seconds, 600),
                            BENCH_INT_OPT("reps", &reps, 1, 64), BENCH_STR_OPT("class", &cls)};
  if ((rc = bench_args("bench-ls", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return rc;
  bench_stamp(date, sizeof date);
  printf("bench-ls: devo %s, %s; 1 thread, 1 chain, %d runs of %g s after a warm-up\n\n",
         devo_version(), date, reps, seconds);
  printf(
      "| class | size | median | lowest | highest | IG steps/s |\n|---|---|---:|---:|---:|---:|\n");
  if ((rc = run_size(cls, 512, 16, seconds, reps)) != 0)
    return rc;
  return run_size(cls, 4096, 64, seconds, reps);
}
