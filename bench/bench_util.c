/* SPDX-License-Identifier: MIT */
/* bench_util.c: the timed solves shared by the benchmark programs (see bench_util.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"
#include "kernels/gpu_variants.cuh"

void bench_cfg_init(bench_cfg *c)
{
  c->np = 100;
  c->f = 0.5;
  c->cr = 0.3;
  c->seed = 12345;
  c->backend = DEVO_BACKEND_CPU;
  c->design = DEVO_GPU_FUSED;
  c->threads = 1;
  c->evals = c->gens = 0;
}

int bench_stamp(char *date, size_t len)
{
  time_t now = time(NULL);
  struct tm tmv;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  gmtime_r(&now, &tmv);
  strftime(date, len, "%Y-%m-%d %H:%M UTC", &tmv);
  return n < 1 ? 1 : (int)n;
}

int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int bench_apply(devo_solver *s, const bench_cfg *c)
{
  int r = c->np > 0 ? devo_solver_set_np(s, c->np) : DEVO_OK;
  if (r == DEVO_OK)
    r = devo_solver_set_f(s, c->f);
  if (r == DEVO_OK)
    r = devo_solver_set_cr(s, c->cr);
  if (r == DEVO_OK)
    r = devo_solver_set_seed(s, c->seed);
  if (r == DEVO_OK)
    r = devo_solver_set_backend(s, c->backend);
  if (r == DEVO_OK && c->backend != DEVO_BACKEND_GPU)
    r = devo_solver_set_threads(s, c->threads);
  if (r == DEVO_OK && c->backend == DEVO_BACKEND_GPU) {
    r = devo_solver_set_gpu_design(s, c->design & DEVO__GPU_DESIGN_MASK);
    s->o.gpu_design = c->design; /* the internal variant bits, kernels/gpu_variants.cuh */
  }
  if (r == DEVO_OK && c->evals > 0)
    r = devo_solver_set_max_evals(s, c->evals);
  if (r == DEVO_OK && c->gens > 0)
    r = devo_solver_set_max_generations(s, c->gens);
  return r;
}

double bench_one(devo_problem *p, const bench_cfg *c, const char *who, double *best,
                 devo_stats *stats, char *info, size_t infolen)
{
  devo_solver *s = NULL;
  devo_stats st;
  double t = -1.0;
  int r = devo_solver_create(&s, p, NULL);
  if (r == DEVO_OK)
    r = bench_apply(s, c);
  if (r == DEVO_OK)
    r = devo_solve(s);
  if (r > 0 && devo_solver_stats(s, &st) == DEVO_OK) {
    t = st.elapsed - st.init_seconds;
    if (best)
      devo_solver_best(s, best, NULL);
    if (stats)
      *stats = st;
    if (info)
      snprintf(info, infolen, "%s", devo_solver_backend_info(s));
  } else {
    fprintf(stderr, "%s: run failed: %s: %s\n", who, devo_status_name(r),
            s ? devo_solver_errmsg(s) : "out of memory");
  }
  devo_solver_destroy(s);
  return t;
}

double bench_median(devo_problem *p, const bench_cfg *c, int reps, const char *who, char *info,
                    size_t infolen)
{
  double t[64];
  int r;
  if (reps < 1 || reps > 64 || bench_one(p, c, who, NULL, NULL, info, infolen) < 0)
    return -1.0;
  for (r = 0; r < reps; ++r)
    if ((t[r] = bench_one(p, c, who, NULL, NULL, NULL, 0)) < 0)
      return -1.0;
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
  return t[reps / 2];
}

int bench_validate(devo_problem *p, const bench_cfg *c, int cpu_threads, double rel_tol,
                   const char *who, double *gbest, double *cbest, char *info, size_t infolen)
{
  bench_cfg g = *c, h = *c;
  g.backend = DEVO_BACKEND_GPU;
  g.design = DEVO_GPU_FUSED;
  g.evals = h.evals = 0;
  g.gens = h.gens = 20;
  h.backend = DEVO_BACKEND_CPU;
  h.threads = cpu_threads;
  if (bench_one(p, &g, who, gbest, NULL, info, infolen) < 0 ||
      bench_one(p, &h, who, cbest, NULL, NULL, 0) < 0)
    return -1;
  /* equal infinities (a product overflowing on both backends) agree; inf - inf would not */
  if (*gbest == *cbest || fabs(*gbest - *cbest) <= rel_tol * fabs(*cbest))
    return 0;
  fprintf(stderr, "%s: GPU best %.17g != CPU best %.17g after 20 generations\n", who, *gbest,
          *cbest);
  return 1;
}

double bench_cpu_scaled_ms(devo_problem *p, bench_cfg *c, int64_t evals, int cpu_div, int reps,
                           const char *who)
{
  int64_t e = evals / cpu_div;
  double t;
  if (e < 2 * (int64_t)c->np)
    e = 2 * (int64_t)c->np;
  c->evals = e;
  t = reps > 0 ? bench_median(p, c, reps, who, NULL, 0) : bench_one(p, c, who, NULL, NULL, NULL, 0);
  return t < 0 ? -1.0 : t * 1e3 * (double)(evals - c->np) / (double)(e - c->np);
}

void bench_print_ratios(const double *row, int from, int to, int base)
{
  int k;
  for (k = from; k <= to; ++k) {
    if (row[k] < 0 || row[base] <= 0)
      printf(" - |");
    else
      printf(" %.1fx |", row[k] / row[base]);
  }
}
