/* SPDX-License-Identifier: MIT */
/* bench_batch.c: benchmark of many trials at once (the `bench-batch` program): the wall time of
 * devo_batch_solve over B trials of one shape (seeds 1 .. B) for each thread count, beside the
 * wall time of one trial alone, and so the batch's throughput in trials per one trial's time.
 * Times are whole calls (set-up, initial population and device work included), the median of
 * --reps after a warm-up; the GPU's context is made before the first. Every trial of the first
 * batch is checked against the same seed solved alone (best value and vector, bit for bit):
 * the figures of a batch that changed a result are not printed. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/include/devo.h"
#include "bench/bench_util.h"

static const char usage[] =
    "usage: bench-batch [--backend cpu|gpu] [--fn NAME] [--dim D] [--np NP] [--evals N]\n"
    "                   [--trials B] [--threads 1,8,...] [--reps N] [--strategy S] [--jde]\n"
    "\n"
    "Wall seconds of devo_batch_solve over B trials (seeds 1 .. B; default 64) of one shape\n"
    "(default: DE/rand/1/bin F = 0.5 CR = 0.9 on rastrigin, D = 10, NP = 50, 10^7 evaluations,\n"
    "GPU) for each batch thread count (default 1,8,64), beside one trial alone: the median of\n"
    "--reps (default 3) after a warm-up. Every trial of a batch is checked against its seed\n"
    "solved alone first (the best value and vector bit for bit).\n";

typedef struct run_cfg {
  devo_problem *p;
  int backend, np, jde;
  int64_t evals;
  const char *strategy;
} run_cfg;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static devo_solver *make_solver(const run_cfg *c, uint64_t seed)
{
  devo_solver *s = NULL;
  if (devo_solver_create(&s, c->p, NULL) != DEVO_OK)
    return NULL;
  if (devo_solver_set_np(s, c->np) != DEVO_OK || devo_solver_set_f(s, 0.5) != DEVO_OK ||
      devo_solver_set_cr(s, 0.9) != DEVO_OK || devo_solver_set_seed(s, seed) != DEVO_OK ||
      devo_solver_set_backend(s, c->backend) != DEVO_OK ||
      devo_solver_set_max_evals(s, c->evals) != DEVO_OK ||
      devo_solver_set_strategy_name(s, c->strategy) != DEVO_OK ||
      (c->jde && devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, 0.0, 1.0) != DEVO_OK)) {
    fprintf(stderr, "bench-batch: %s\n", devo_solver_errmsg(s));
    devo_solver_destroy(s);
    return NULL;
  }
  return s;
}

/* Wall seconds of one solve of seed (best value and vector into f, x), or -1. */
static double solo(const run_cfg *c, uint64_t seed, double *f, double *x)
{
  devo_solver *s = make_solver(c, seed);
  double t;
  int st;
  if (!s)
    return -1.0;
  t = now_s();
  st = devo_solve(s);
  t = now_s() - t;
  if (st < 0 || devo_solver_best(s, f, x) != DEVO_OK) {
    fprintf(stderr, "bench-batch: solo seed %llu: %s\n", (unsigned long long)seed,
            devo_solver_errmsg(s));
    t = -1.0;
  }
  devo_solver_destroy(s);
  return t;
}

/* Wall seconds of one devo_batch_solve of trials seeds 1 .. b on threads, or -1; with ref_f,
 * ref_x (b values, b * dim) every trial is compared with them, and a difference gives -2. */
static double batch(const run_cfg *c, int b, int threads, const double *ref_f, const double *ref_x,
                    int dim)
{
  devo_batch *bt = NULL;
  devo_solver **s = calloc((size_t)b, sizeof *s);
  double *x = malloc((size_t)dim * sizeof *x), t = -1.0;
  int k, st,
      ok = s && x && devo_batch_create(&bt, NULL) == DEVO_OK &&
           devo_batch_set_threads(bt, threads) == DEVO_OK;
  for (k = 0; ok && k < b; ++k)
    ok = (s[k] = make_solver(c, (uint64_t)k + 1)) && devo_batch_add(bt, s[k]) == DEVO_OK;
  if (ok) {
    t = now_s();
    st = devo_batch_solve(bt);
    t = now_s() - t;
    if (st != DEVO_OK) {
      fprintf(stderr, "bench-batch: batch: %s\n", devo_batch_errmsg(bt));
      t = -1.0;
    }
  }
  for (k = 0; t > 0 && ref_f && k < b; ++k) {
    double f;
    if (devo_solver_best(s[k], &f, x) != DEVO_OK || memcmp(&f, &ref_f[k], sizeof f) != 0 ||
        memcmp(x, ref_x + (size_t)k * dim, (size_t)dim * sizeof *x) != 0) {
      fprintf(stderr, "bench-batch: trial %d (seed %d) differs from its solve alone\n", k, k + 1);
      t = -2.0;
    }
  }
  for (k = 0; s && k < b; ++k)
    devo_solver_destroy(s[k]);
  devo_batch_destroy(bt);
  free(s);
  free(x);
  return t;
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
  static const char *const backends[] = {"cpu", "gpu", NULL};
  static const int bk_values[] = {DEVO_BACKEND_CPU, DEVO_BACKEND_GPU};
  int backend = DEVO_BACKEND_GPU, dim = 10, np = 50, trials = 64, reps = 3, jde = 0, r, k, t;
  int threads[16] = {1, 8, 64}, nthreads = 3;
  int64_t evals = 10000000;
  const char *fn = "rastrigin", *strategy = "rand1bin";
  char date[64];
  const bench_opt opts[] = {BENCH_CHOICE_OPT("backend", &backend, backends, bk_values),
                            BENCH_STR_OPT("fn", &fn),
                            BENCH_INT_OPT("dim", &dim, 1, 100000),
                            BENCH_INT_OPT("np", &np, 4, 1000000),
                            BENCH_I64_OPT("evals", &evals, 4, 1e12),
                            BENCH_INT_OPT("trials", &trials, 1, 100000),
                            BENCH_INTS_OPT("threads", threads, &nthreads, 16, 1, 1024),
                            BENCH_INT_OPT("reps", &reps, 1, 64),
                            BENCH_STR_OPT("strategy", &strategy),
                            BENCH_FLAG_OPT("jde", &jde, 1)};
  if ((r = bench_args("bench-batch", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return r;
  run_cfg c = {NULL, backend, np, jde, evals, strategy};
  if (devo_problem_create(&c.p, NULL) != DEVO_OK ||
      devo_problem_set_builtin(c.p, fn, dim, 1, NULL) != DEVO_OK) {
    fprintf(stderr, "bench-batch: cannot make %s at D = %d\n", fn, dim);
    return 1;
  }
  if (backend == DEVO_BACKEND_GPU && devo_gpu_warmup() != DEVO_OK) {
    fprintf(stderr, "bench-batch: no usable GPU\n");
    return 1;
  }
  double *ref_f = malloc((size_t)trials * sizeof *ref_f);
  double *ref_x = malloc((size_t)trials * dim * sizeof *ref_x), v[64], one;
  if (!ref_f || !ref_x)
    return 1;
  /* the references: every seed alone (seed 1 twice: the first is the warm-up) */
  if (solo(&c, 1, ref_f, ref_x) < 0)
    return 1;
  for (k = 0; k < trials; ++k)
    if (solo(&c, (uint64_t)k + 1, ref_f + k, ref_x + (size_t)k * dim) < 0)
      return 1;
  for (r = 0; r < reps; ++r)
    if ((v[r] = solo(&c, 1, ref_f, ref_x)) < 0)
      return 1;
  one = median(v, reps);
  const int cores = bench_stamp(date, sizeof date);
  printf("# devo %s bench-batch, %s, %s, %s %s%s D=%d NP=%d, %lld evaluations per trial, %d "
         "cores; whole calls, median of %d after a warm-up\n",
         devo_version(), date, backend == DEVO_BACKEND_GPU ? "GPU" : "CPU", fn, strategy,
         jde ? "+jde" : "", dim, np, (long long)evals, cores, reps);
  printf("%8s %8s %12s %14s %12s\n", "trials", "threads", "seconds", "x one trial", "throughput");
  printf("%8d %8s %12.4f %14.2f %12.2f\n", 1, "-", one, 1.0, 1.0);
  for (t = 0; t < nthreads; ++t) {
    double sec;
    if (batch(&c, trials, threads[t], ref_f, ref_x, dim) < 0) /* warm-up, checked */
      return 1;
    for (r = 0; r < reps; ++r)
      if ((v[r] = batch(&c, trials, threads[t], NULL, NULL, dim)) < 0)
        return 1;
    sec = median(v, reps);
    printf("%8d %8d %12.4f %14.2f %12.2f\n", trials, threads[t], sec, sec / one,
           (double)trials * one / sec);
    fflush(stdout);
  }
  free(ref_f);
  free(ref_x);
  devo_problem_destroy(c.p);
  return 0;
}
