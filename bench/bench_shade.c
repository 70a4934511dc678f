/* SPDX-License-Identifier: MIT */
/* bench_shade.c: benchmark of JADE, SHADE and L-SHADE on the GPU (kernels/gpu_shade.cu) and
 * on the CPU with one thread (the `bench-shade` program), beside rand1bin on the same case
 * (issue 24's performance item). Cases: F03 (generated data) and shifted Rastrigin at D = 100
 * with 10^7 evaluations; NP = 250 for rand1bin (F = 0.5, CR = 0.9), JADE and SHADE, L-SHADE
 * from 18 D = 1800 (its preset). Columns per case: GPU ms, CPU 1-thread ms (measured on
 * evals / --cpu-div evaluations and scaled, as bench-variants does; L-SHADE's schedule is then
 * that of the shorter budget, so its CPU column is an estimate), CPU / GPU, and GPU time over
 * rand1bin's (the target: SHADE within 2x); the "(launches)" rows run JADE and SHADE on
 * the launch path (DEVO__GPU_SHADE_LAUNCHES) instead of the persistent kernel, GPU only, for the
 * side-by-side. Then, from a separate profiled GPU run of
 * each algorithm on the four-launch path (DEVO__GPU_SHADE_PROFILE | DEVO__GPU_SHADE_SPLIT: CUDA
 * events around every step, which separate the launches, so only the shares count; the default
 * path fuses the update, the archive rows and the ranks into one launch up to NP 1024), the
 * microseconds per generation of the ranks (sort),
 * the trial + evaluation + selection, the archive slots + memory update (the means), the archive
 * rows and L-SHADE's reduction.
 * Time = the generation loop (devo_stats.elapsed - init_seconds), median of --reps runs after one
 * warm-up. Each algorithm is validated first: 20 generations on the GPU and the CPU give the same
 * best within 1e-9 relative (bit-identical populations need an objective without cos:
 * tests/test_gpu_shade.c). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "kernels/gpu_variants.cuh"
#include "bench/bench_util.h"

typedef struct balgo {
  const char *name;  /* "de" = rand1bin */
  int np;            /* 0: the preset's (L-SHADE: 18 D) */
  int design;        /* GPU design bits (DEVO__GPU_SHADE_LAUNCHES: the launch path) */
  const char *label; /* the table's row */
} balgo;

#define NALGO 6
static const balgo algos[NALGO] = {{"de", 250, 0, "rand1bin"},
                                   {"jade", 250, 0, "jade"},
                                   {"jade", 250, DEVO__GPU_SHADE_LAUNCHES, "jade (launches)"},
                                   {"shade", 250, 0, "shade"},
                                   {"shade", 250, DEVO__GPU_SHADE_LAUNCHES, "shade (launches)"},
                                   {"lshade", 0, 0, "lshade"}};

/* One solve: the generation loop's seconds, or -1 (message on stderr). design: GPU design bits;
 * gens/evals: the budget; prof: the profiled steps' ms per generation when not NULL (5 on the
 * four-launch path, 9 phases of the persistent kernel). */
static double one(devo_problem *p, const balgo *a, int backend, int design, int64_t evals,
                  int64_t gens, double *best, double *prof)
{
  devo_solver *s = NULL;
  devo_stats st;
  double t = -1.0;
  const int nprof = (design & DEVO__GPU_SHADE_SPLIT) ? 5 : 9; /* launches' steps, kernel phases */
  bench_cfg c;
  int r;
  bench_cfg_init(&c);
  c.np = a->np;
  c.cr = 0.9;
  c.backend = backend;
  c.design = DEVO_GPU_FUSED | design; /* internal bits, kernels/gpu_variants.cuh */
  c.evals = evals;
  c.gens = gens;
  r = devo_solver_create(&s, p, NULL);
  if (r == DEVO_OK)
    r = devo_solver_set_algorithm(s, a->name);
  if (r == DEVO_OK)
    r = bench_apply(s, &c);
  if (r == DEVO_OK)
    r = devo_solve(s);
  if (r > 0 && devo_solver_stats(s, &st) == DEVO_OK) {
    t = st.elapsed - st.init_seconds;
    if (gens > 0 && backend == DEVO_BACKEND_GPU) /* the validation run: which path ran */
      fprintf(stderr, "bench-shade: %s: %s\n", a->label, devo_solver_backend_info(s));
    if (best)
      devo_solver_best(s, best, NULL);
    if (prof && devo__gpu_shade_profile(s, prof, nprof) != nprof)
      t = -1.0;
  }
  if (r < 0 || t < 0)
    fprintf(stderr, "bench-shade: %s on the %s: run failed: %s: %s\n", a->name,
            backend == DEVO_BACKEND_GPU ? "GPU" : "CPU", devo_status_name(r),
            s ? devo_solver_errmsg(s) : "out of memory");
  devo_solver_destroy(s);
  return r < 0 ? -1.0 : t;
}

static double median_gpu(devo_problem *p, const balgo *a, int64_t evals, int reps)
{
  double t[64];
  int k;
  if (one(p, a, DEVO_BACKEND_GPU, a->design, evals, 0, NULL, NULL) < 0)
    return -1.0;
  for (k = 0; k < reps; ++k)
    if ((t[k] = one(p, a, DEVO_BACKEND_GPU, a->design, evals, 0, NULL, NULL)) < 0)
      return -1.0;
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
  return t[reps / 2];
}

/* The rows of a profile table: each case and algorithm that ran (not the launch rows; L-SHADE
 * only where lshade), n steps' microseconds per generation from ms. */
static void prof_table(const char *const fns[2], double gms[2][NALGO], double ms[2][NALGO][9],
                       int n, int lshade)
{
  int c, k, a;
  for (c = 0; c < 2; ++c)
    for (k = 1; k < NALGO; ++k) {
      if (gms[c][k] < 0 || algos[k].design || (!lshade && strcmp(algos[k].name, "lshade") == 0))
        continue;
      printf("| %s | %s |", fns[c], algos[k].name);
      for (a = 0; a < n; ++a)
        printf(" %.2f |", ms[c][k][a] * 1e3);
      printf("\n");
    }
}

static const char usage[] =
    "usage: bench-shade [--reps N] [--cpu-div N] [--no-cpu] [--quick] [--case 0|1]\n"
    "\n"
    "Generation-loop time of rand1bin, JADE, SHADE and L-SHADE on the GPU and on the CPU (1\n"
    "thread, measured on evals / --cpu-div and scaled): F03 and shifted Rastrigin at D = 100 with\n"
    "10^7 evaluations (NP 250; L-SHADE from 18 D), median of --reps runs (default 5) after a\n"
    "warm-up; then the microseconds per generation of each GPU step from a profiled run.\n"
    "--quick: a twentieth of the evaluations.\n";

int main(int argc, char **argv)
{
  const char *fns[2] = {"F03", "rastrigin"};
  const int dim = 100;
  int64_t evals = 10000000;
  int reps = 5, cpu_div = 20, no_cpu = 0, quick = 0, only = -1, a, c, k;
  static double gms[2][NALGO], cms[2][NALGO], prof[2][NALGO][9], pprof[2][NALGO][9];
  char dev[256], date[64];
  const bench_opt opts[] = {
      BENCH_INT_OPT("reps", &reps, 1, 64), BENCH_INT_OPT("cpu-div", &cpu_div, 1, INT_MAX),
      BENCH_INT_OPT("case", &only, 0, 1), BENCH_FLAG_OPT("no-cpu", &no_cpu, 1),
      BENCH_FLAG_OPT("quick", &quick, 1)};
  if ((a = bench_args("bench-shade", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return a;
  if (quick)
    evals /= 20;
  if (!devo_gpu_available(dev, sizeof dev)) {
    fprintf(stderr, "bench-shade: %s\n", dev);
    return 1;
  }
  k = bench_stamp(date, sizeof date);
  printf("# devo %s bench-shade: %s, %s, %d CPU cores\n", devo_version(), dev, date, k);
  printf("# D=%d, %lld evaluations; rand1bin/JADE/SHADE NP 250 (rand1bin F 0.5 CR 0.9), L-SHADE "
         "NP 18 D -> 4; generation loop ms, median of %d after a warm-up; CPU 1 thread on "
         "evals/%d, scaled\n",
         dim, (long long)evals, reps, cpu_div);
  for (c = 0; c < 2; ++c) {
    devo_problem *p = NULL;
    for (k = 0; k < NALGO; ++k)
      gms[c][k] = cms[c][k] = -1.0;
    if (only >= 0 && c != only)
      continue;
    if (devo_problem_create(&p, NULL) != DEVO_OK ||
        devo_problem_set_builtin(p, fns[c], dim, 1, NULL) != DEVO_OK) {
      fprintf(stderr, "bench-shade: cannot make %s D=%d\n", fns[c], dim);
      return 1;
    }
    for (k = 0; k < NALGO; ++k) {
      double bg = 0.0, bc = 0.0;
      if (one(p, &algos[k], DEVO_BACKEND_GPU, algos[k].design, 0, 20, &bg, NULL) < 0 ||
          one(p, &algos[k], DEVO_BACKEND_CPU, 0, 0, 20, &bc, NULL) < 0)
        return 1;
      if (!(fabs(bg - bc) <= 1e-9 * fabs(bc))) {
        fprintf(stderr, "bench-shade: %s %s: after 20 generations GPU best %.17g, CPU %.17g\n",
                fns[c], algos[k].name, bg, bc);
        return 1;
      }
      gms[c][k] = median_gpu(p, &algos[k], evals, reps) * 1e3;
      if (k > 0 && !algos[k].design &&
          one(p, &algos[k], DEVO_BACKEND_GPU, DEVO__GPU_SHADE_PROFILE | DEVO__GPU_SHADE_SPLIT,
              evals, 0, NULL, prof[c][k]) < 0)
        return 1;
      /* JADE and SHADE: the persistent kernel's phases (block 0's clock) */
      if (k > 0 && !algos[k].design && strcmp(algos[k].name, "lshade") != 0 &&
          one(p, &algos[k], DEVO_BACKEND_GPU, DEVO__GPU_SHADE_PROFILE, evals, 0, NULL,
              pprof[c][k]) < 0)
        return 1;
      if (!no_cpu && !algos[k].design) { /* the launch rows: the same algorithm on the CPU */
        const int np0 = algos[k].np > 0 ? algos[k].np : 18 * dim;
        int64_t e = evals / cpu_div;
        if (e < 2 * (int64_t)np0)
          e = 2 * (int64_t)np0;
        const double t = one(p, &algos[k], DEVO_BACKEND_CPU, 0, e, 0, NULL, NULL);
        cms[c][k] = t < 0 ? -1.0 : t * 1e3 * (double)(evals - np0) / (double)(e - np0);
      }
      fprintf(stderr, "bench-shade: %s %s: GPU %.2f ms, CPU %.2f ms\n", fns[c], algos[k].label,
              gms[c][k], cms[c][k]);
    }
    devo_problem_destroy(p);
  }
  printf("\n| algorithm |");
  for (c = 0; c < 2; ++c)
    printf(" %s: GPU ms | CPU-1thr ms | CPU/GPU | GPU vs rand1bin |", fns[c]);
  printf("\n|---|---|---|---|---|---|---|---|---|\n");
  for (k = 0; k < NALGO; ++k) {
    printf("| %s |", algos[k].label);
    for (c = 0; c < 2; ++c) {
      const double g = gms[c][k], h = cms[c][k], r0 = gms[c][0];
      printf(g > 0 ? " %.1f |" : " - |", g);
      printf(h > 0 ? " %.0f |" : " - |", h);
      printf(g > 0 && h > 0 ? " %.1fx |" : " - |", g > 0 ? h / g : 0.0);
      printf(g > 0 && r0 > 0 ? " %.2fx |" : " - |", r0 > 0 ? g / r0 : 0.0);
    }
    printf("\n");
  }
  printf("\nGPU microseconds per generation by step (profiled run, four-launch path: events "
         "between launches)\n\n"
         "| case | algorithm | ranks (sort) | trial + eval + selection | archive slots + memory "
         "(means) | archive rows | L-SHADE reduction |\n|---|---|---|---|---|---|---|\n");
  prof_table(fns, gms, prof, 5, 1);
  printf("\nThe persistent kernel's microseconds per generation by phase (profiled run, block 0's "
         "clock)\n\n| case | algorithm | draws | trial build | evaluation | selection | arrive + "
         "next draws' fetch | wait | records' loads | slots, memory update, ranks (a warp each) | "
         "archive row |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  prof_table(fns, gms, pprof, 9, 0);
  return 0;
}
