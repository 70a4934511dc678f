/* SPDX-License-Identifier: MIT */
/* bench_soco.c: bench-soco, issue 22's benchmark on the SOCO 2010 suite (GOjDE's setting,
 * Wang, Rahnamayan, Wu 2012): DE/rand/1/bin, F = 0.5, CR = 0.9.
 *   Table 1: every function soco:f1..f19 at D = 1000, NP = 128, 5,000 x D evaluations: the GPU
 *     (fused design, defaults) generation-loop time, median of --reps after a warm-up, each
 *     function validated first (best after 20 generations on the GPU and the CPU within 1e-12
 *     relative); the 1-thread CPU time, from evals / --cpu-div evaluations run once and scaled
 *     to the full count (marked "scaled"); their ratio.
 *   Table 2: D = 10,000, NP = 256, 10^7 evaluations on F1, F4 and F12: the GPU time and the
 *     achieved bandwidth under a minimal traffic model (per evaluation: the target, three donor
 *     rows and the shift read, the new row written: 6 x 8 x D bytes), against the device's
 *     device-to-device cudaMemcpy rate measured here (bytes read + written per second).
 * --cpu-only runs the CPU column of table 1 alone (no GPU needed: a machine without a device
 * shows that the program works); --only ID restricts both tables to one function. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "engine/internal.h"
#include "bench/bench_util.h"

static const char usage[] =
    "usage: bench-soco [--reps N] [--cpu-div N] [--only ID] [--dim D] [--cpu-only]\n"
    "\n"
    "Issue 22's benchmark on the SOCO 2010 suite: DE/rand/1/bin F = 0.5 CR = 0.9, every\n"
    "soco:f1..f19 at D = 1000 (--dim), NP = 128, 5,000 x D evaluations on the GPU (median of\n"
    "--reps, default 3) and the 1-thread CPU (evals / --cpu-div, default 100, scaled); then\n"
    "D = 10,000, NP = 256, 10^7 evaluations on F1, F4, F12 with the achieved bandwidth against\n"
    "the measured device-to-device copy rate. --cpu-only: the CPU column alone.\n";

static devo_problem *soco(int id, int dim)
{
  devo_problem *p = NULL;
  char name[16];
  snprintf(name, sizeof name, "soco:f%d", id);
  if (devo_problem_create(&p, NULL) != DEVO_OK || devo_problem_set_builtin(p, name, dim, 1, NULL)) {
    fprintf(stderr, "bench-soco: %s D=%d: %s\n", name, dim, p ? devo_problem_errmsg(p) : "");
    devo_problem_destroy(p);
    return NULL;
  }
  return p;
}

static void cfg_of(bench_cfg *c, int np)
{
  bench_cfg_init(c);
  c->np = np;
  c->f = 0.5;
  c->cr = 0.9;
}

/* Table 1; returns 1 when a validation failed, -1 on a failed run. */
static int table1(int dim, int np, int reps, int cpu_div, int gpu, int only)
{
  const int64_t evals = 5000 * (int64_t)dim;
  char info[DEVO__ERRLEN];
  int id, fail = 0;
  printf("\n## D = %d, NP = %d, %lld evaluations (5,000 x D); generation loop ms\n\n", dim, np,
         (long long)evals);
  printf("| function | GPU ms | CPU 1 thread ms (scaled from evals/%d) | GPU vs CPU |\n", cpu_div);
  printf("|---|---:|---:|---:|\n");
  for (id = 1; id <= 19; ++id) {
    devo_problem *p;
    bench_cfg cfg;
    double g = -1.0, c = -1.0;
    if (only && id != only)
      continue;
    if (!(p = soco(id, dim)))
      return -1;
    cfg_of(&cfg, np);
    if (gpu) {
      double gb, cb;
      int v = bench_validate(p, &cfg, 1, 1e-12, "bench-soco", &gb, &cb, info, sizeof info);
      if (v < 0)
        return -1;
      fail |= v;
      fprintf(stderr, "bench-soco: soco:f%d %s (gpu %.17g cpu %.17g); %s\n", id,
              v ? "NOT validated" : "validated", gb, cb, info);
      cfg_of(&cfg, np);
      cfg.backend = DEVO_BACKEND_GPU;
      cfg.design = DEVO_GPU_FUSED;
      cfg.evals = evals;
      g = bench_median(p, &cfg, reps, "bench-soco", info, sizeof info);
      g = g < 0 ? -1.0 : g * 1e3;
    }
    cfg_of(&cfg, np);
    cfg.backend = DEVO_BACKEND_CPU;
    c = bench_cpu_scaled_ms(p, &cfg, evals, cpu_div, 0, "bench-soco");
    printf("| soco:f%d |", id);
    if (g >= 0)
      printf(" %.1f |", g);
    else
      printf(" - |");
    printf(" %.0f (scaled) |", c);
    if (g > 0 && c > 0)
      printf(" %.0fx |\n", c / g);
    else
      printf(" - |\n");
    fflush(stdout);
    devo_problem_destroy(p);
  }
  return fail;
}

/* Table 2 (GPU only). */
static int table2(int reps, int only)
{
  static const int ids[] = {1, 4, 12};
  const int dim = 10000, np = 256;
  const int64_t evals = 10000000;
  char info[DEVO__ERRLEN], err[256];
  double rate = 0.0;
  int k;
  if (devo__gpu_copy_rate((size_t)1 << 30, 11, &rate, err, sizeof err) != DEVO_OK) {
    fprintf(stderr, "bench-soco: %s\n", err);
    return -1;
  }
  printf("\n## D = %d, NP = %d, %lld evaluations; device-to-device cudaMemcpy of 1 GiB: %.0f GB/s "
         "(read + write)\n\n",
         dim, np, (long long)evals, rate * 1e-9);
  printf("| function | GPU ms | evaluations/s | traffic model GB/s | of the copy rate |\n");
  printf("|---|---:|---:|---:|---:|\n");
  for (k = 0; k < 3; ++k) {
    devo_problem *p;
    bench_cfg cfg;
    double t, bw;
    if (only && ids[k] != only)
      continue;
    if (!(p = soco(ids[k], dim)))
      return -1;
    cfg_of(&cfg, np);
    cfg.backend = DEVO_BACKEND_GPU;
    cfg.design = DEVO_GPU_FUSED;
    cfg.evals = evals;
    t = bench_median(p, &cfg, reps, "bench-soco", info, sizeof info);
    if (t <= 0)
      return -1;
    fprintf(stderr, "bench-soco: soco:f%d D=%d: %s\n", ids[k], dim, info);
    /* the loop's evaluations: the initial population is outside the timed loop */
    bw = (double)(evals - np) * 6.0 * 8.0 * dim / t;
    printf("| soco:f%d | %.1f | %.3g | %.0f | %.0f%% |\n", ids[k], t * 1e3,
           (double)(evals - np) / t, bw * 1e-9, 100.0 * bw / rate);
    fflush(stdout);
    devo_problem_destroy(p);
  }
  return 0;
}

int main(int argc, char **argv)
{
  int reps = 3, cpu_div = 100, cpu_only = 0, only = 0, dim = 1000, a, r1, r2 = 0;
  char dev[256], date[64];
  const bench_opt opts[] = {
      BENCH_INT_OPT("reps", &reps, 1, 64), BENCH_INT_OPT("cpu-div", &cpu_div, 1, INT_MAX),
      BENCH_INT_OPT("only", &only, 0, 19), BENCH_INT_OPT("dim", &dim, 8, 100000),
      BENCH_FLAG_OPT("cpu-only", &cpu_only, 1)};
  if ((a = bench_args("bench-soco", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return a;
  if (!cpu_only && !devo_gpu_available(dev, sizeof dev)) {
    fprintf(stderr, "bench-soco: %s (--cpu-only runs the CPU column alone)\n", dev);
    return 1;
  }
  bench_stamp(date, sizeof date);
  printf("# devo %s bench-soco: %s, %s\n", devo_version(), cpu_only ? "CPU only" : dev, date);
  printf("# DE/rand/1/bin F=0.5 CR=0.9, data seed 1; GPU: fused design, median of %d after a "
         "warm-up; CPU: 1 thread, evals/%d once, scaled\n",
         reps, cpu_div);
  r1 = table1(dim, 128, reps, cpu_div, !cpu_only, only);
  if (r1 >= 0 && !cpu_only)
    r2 = table2(reps, only);
  return r1 < 0 || r2 < 0 ? 1 : r1;
}
