/* SPDX-License-Identifier: MIT */
/* bench_cec.c: bench-cec, the CEC GPU benchmark: Janssen et al.'s case study 1
 * (DE/rand/1/bin, NP = 250, F = 0.5, CR = 0.3, D = 100, 10,000,000 evaluations, official CEC
 * data) for each of F01..F10. Columns: the fused design with its defaults (at D <= 128 on sm_90
 * kernels/gpu_cec.cu, the matrices resident in shared memory: of one block where they fit, else
 * of a two-block cluster; a composition's products on the tensor cores), the compositions with
 * their products by multiply-adds (DEVO__GPU_CEC_FMA), gpu_cec.cu with one vector per block
 * (DEVO__GPU_CEC_VL1) and with two-block clusters for a single matrix too (DEVO__GPU_CEC_PAIR,
 * its first version), the fused design with one block per vector (gpu_fused.cu's kernel,
 * DEVO__GPU_CLASSIC: the single matrix of F01..F07 staged per block), the same with the matrix
 * read from global memory (L2), the multikernel design, and the 1-thread CPU backend. Time = the
 * generation loop (devo_stats.elapsed - init_seconds); GPU columns: median of --reps runs after a
 * warm-up; the CPU column runs evals / --cpu-div evaluations once and is scaled to the full count
 * (a generation costs the same all run long). Each function is validated first: after 20
 * generations the fused GPU best equals the CPU best within 1e-12 relative.
 * --models: Janssen et al.'s five implementation models instead (their Table 3 layout: rows =
 * models, columns = functions, time and speedup against the standard CPU): standard CPU (1
 * thread) and master-slave CPU (all online cores) on evals / --cpu-div, naive GPU (DE on one CPU
 * thread, each generation evaluated on the GPU) on evals / --naive-div, each scaled; All-GPU DE
 * (multikernel) and All-GPU iDE (fused) on the full count. --csv FILE also writes the cells as
 * rows that `scripts/plot.py times` draws. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/internal.h"
#include "bench/bench_util.h"
#include "kernels/gpu_variants.cuh"

enum { COL_FUSED, COL_FMA, COL_VL1, COL_PAIR, COL_BLOCK, COL_GLOBAL, COL_MULTI, COL_CPU1, NCOL };
static const char *const col_name[NCOL] = {"fused",
                                           "fused, products by multiply-adds",
                                           "fused, 1 vector per block",
                                           "fused, two-block clusters",
                                           "fused, block per vector",
                                           "fused, block per vector, matrix in L2",
                                           "multikernel",
                                           "cpu 1 thread"};
static const int col_design[NCOL] = {DEVO_GPU_FUSED,
                                     DEVO_GPU_FUSED | DEVO__GPU_CEC_FMA,
                                     DEVO_GPU_FUSED | DEVO__GPU_CEC_VL1,
                                     DEVO_GPU_FUSED | DEVO__GPU_CEC_PAIR,
                                     DEVO_GPU_FUSED | DEVO__GPU_CLASSIC,
                                     DEVO_GPU_FUSED | DEVO__GPU_STAGE_OFF,
                                     DEVO_GPU_MULTIKERNEL,
                                     -1};

static const char usage[] =
    "usage: bench-cec [--cec-data DIR] [--reps N] [--cpu-div N] [--evals N] [--only ID]\n"
    "                 [--no-cpu] [--models [--naive-div N] [--csv FILE]]\n"
    "\n"
    "Janssen et al.'s case study 1 on the GPU: DE/rand/1/bin, NP = 250, D = 100, 10^7\n"
    "evaluations of each CEC function F01..F10 with the official data (default data/cec), per\n"
    "GPU design, median of --reps runs (default 5); the CPU column runs evals / --cpu-div.\n"
    "--models: the five implementation models of Janssen et al. (2024) as rows (standard CPU,\n"
    "master-slave CPU, naive GPU, All-GPU DE, All-GPU iDE), F01..F10 as columns, ms and the\n"
    "speedup against the standard CPU; the CPU rows run evals / --cpu-div, the naive GPU evals /\n"
    "--naive-div (default 50), scaled; --csv FILE writes the cells for scripts/plot.py times.\n";

/* ---- --models ------------------------------------------------------------------------------ */

enum { M_CPU, M_MS, M_NAIVE, M_MULTI, M_FUSED, NMODEL };
static const char *const model_name[NMODEL] = {"standard CPU (1 thread)", "master-slave CPU",
                                               "naive GPU", "All-GPU DE (multikernel)",
                                               "All-GPU iDE (fused)"};
/* the names of devo experiment's backends, for scripts/plot.py times */
static const char *const model_key[NMODEL] = {"cpu", "cpu-ms", "gpu-naive", "gpu-multikernel",
                                              "gpu"};

typedef struct models_opts {
  const char *dir, *csv;
  int reps, cpu_div, naive_div, only, np, dim, cores;
  int64_t evals;
} models_opts;

/* The naive model against the 1-thread CPU after 20 generations: the same best within 1e-12
 * relative (tests/test_gpu.c naive_parity checks the populations bit for bit). 0, 1 or -1. */
static int models_validate(devo_problem *p, const bench_cfg *base, const char *name)
{
  bench_cfg n = *base, c = *base;
  double nb, cb;
  char info[DEVO__ERRLEN];
  n.backend = DEVO_BACKEND_GPU;
  n.design = DEVO_GPU_NAIVE;
  n.evals = c.evals = 0;
  n.gens = c.gens = 20;
  c.backend = DEVO_BACKEND_CPU;
  c.threads = 1;
  if (bench_one(p, &n, "bench-cec", &nb, NULL, info, sizeof info) < 0 ||
      bench_one(p, &c, "bench-cec", &cb, NULL, NULL, 0) < 0)
    return -1;
  printf("# %s naive GPU validated (best after 20 generations: naive %.17g cpu %.17g); %s\n", name,
         nb, cb, info);
  if (nb == cb || fabs(nb - cb) <= 1e-12 * fabs(cb))
    return 0;
  fprintf(stderr, "bench-cec: %s: naive GPU best %.17g != CPU best %.17g\n", name, nb, cb);
  return 1;
}

/* The five models on one function into ms[NMODEL] (-1 where a run failed). */
static int models_row(devo_problem *p, const models_opts *o, const char *name, double *ms)
{
  char info[DEVO__ERRLEN];
  bench_cfg cfg;
  int k, v;
  bench_cfg_init(&cfg);
  cfg.np = o->np;
  v = models_validate(p, &cfg, name);
  if (v < 0)
    return -1;
  for (k = 0; k < NMODEL; ++k) {
    bench_cfg c = cfg;
    double t;
    c.backend = k <= M_MS ? DEVO_BACKEND_CPU : DEVO_BACKEND_GPU;
    c.threads = k == M_MS ? o->cores : 1;
    c.design = k == M_NAIVE ? DEVO_GPU_NAIVE : k == M_MULTI ? DEVO_GPU_MULTIKERNEL : DEVO_GPU_FUSED;
    if (k <= M_MS) {
      ms[k] = bench_cpu_scaled_ms(p, &c, o->evals, o->cpu_div, 0, "bench-cec");
    } else if (k == M_NAIVE) {
      ms[k] = bench_cpu_scaled_ms(p, &c, o->evals, o->naive_div, o->reps, "bench-cec");
    } else {
      c.evals = o->evals;
      t = bench_median(p, &c, o->reps, "bench-cec", info, sizeof info);
      ms[k] = t < 0 ? -1.0 : t * 1e3;
    }
    fprintf(stderr, "bench-cec: %s %s: %.2f ms\n", name, model_name[k], ms[k]);
  }
  return v;
}

static void models_print(const models_opts *o, double ms[11][NMODEL])
{
  int id, k;
  printf("\n| model |");
  for (id = 1; id <= 10; ++id)
    if (!o->only || id == o->only)
      printf(" F%02d |", id);
  printf("\n|---|");
  for (id = 1; id <= 10; ++id)
    if (!o->only || id == o->only)
      printf("---:|");
  printf("\n");
  for (k = 0; k < NMODEL; ++k) {
    if (k == M_MS)
      printf("| %s (%d threads) |", model_name[k], o->cores);
    else
      printf("| %s |", model_name[k]);
    for (id = 1; id <= 10; ++id) {
      if (o->only && id != o->only)
        continue;
      if (ms[id][k] < 0)
        printf(" - |");
      else if (k == M_CPU || ms[id][M_CPU] <= 0)
        printf(" %.1f ms |", ms[id][k]);
      else
        printf(" %.1f ms (x%.1f) |", ms[id][k], ms[id][M_CPU] / ms[id][k]);
    }
    printf("\n");
  }
}

/* The cells as rows of scripts/plot.py times (time in seconds, the scaled or median run). */
static int models_csv(const models_opts *o, double ms[11][NMODEL])
{
  FILE *f = fopen(o->csv, "w");
  int id, k;
  if (!f) {
    fprintf(stderr, "bench-cec: --csv %s: cannot write\n", o->csv);
    return 1;
  }
  fprintf(f, "# bench-cec --models: generation-loop seconds (CPU rows and the naive GPU scaled "
             "from a part of the run)\nalgorithm,problem,dim,np,backend,time\n");
  for (id = 1; id <= 10; ++id)
    for (k = 0; k < NMODEL; ++k)
      if ((!o->only || id == o->only) && ms[id][k] >= 0)
        fprintf(f, "rand1bin,F%02d,%d,%d,%s,%.6g\n", id, o->dim, o->np, model_key[k],
                ms[id][k] * 1e-3);
  if (fclose(f) != 0) {
    fprintf(stderr, "bench-cec: --csv %s: write error\n", o->csv);
    return 1;
  }
  return 0;
}

static int models_main(models_opts *o)
{
  double ms[11][NMODEL];
  char date[64];
  int id, k, fail = 0;
  o->cores = bench_stamp(date, sizeof date);
  printf("# devo %s bench-cec --models: %s, %d CPU cores\n", devo_version(), date, o->cores);
  printf(
      "# Janssen et al. Table 3 layout: DE/rand/1/bin NP=%d F=0.5 CR=0.3 D=%d, %lld "
      "evaluations, official data %s; generation-loop ms; CPU rows: evals/%d once, scaled; naive "
      "GPU: evals/%d, median of %d after a warm-up, scaled; All-GPU rows: median of %d after a "
      "warm-up; (xN) = speedup against the standard CPU\n",
      o->np, o->dim, (long long)o->evals, o->dir, o->cpu_div, o->naive_div, o->reps, o->reps);
  fflush(stdout);
  for (id = 1; id <= 10; ++id) {
    devo_problem *p = NULL;
    char name[8];
    int v;
    for (k = 0; k < NMODEL; ++k)
      ms[id][k] = -1.0;
    if (o->only && id != o->only)
      continue;
    snprintf(name, sizeof name, "F%02d", id);
    if (devo_problem_create(&p, NULL) != DEVO_OK ||
        devo_problem_set_builtin(p, name, o->dim, 0, o->dir) != DEVO_OK) {
      fprintf(stderr, "bench-cec: %s D=%d: %s\n", name, o->dim, p ? devo_problem_errmsg(p) : "");
      return 1;
    }
    v = models_row(p, o, name, ms[id]);
    devo_problem_destroy(p);
    if (v < 0)
      return 1;
    fail |= v;
    fflush(stdout);
  }
  models_print(o, ms);
  if (o->csv && models_csv(o, ms) != 0)
    return 1;
  return fail;
}

int main(int argc, char **argv)
{
  const char *dir = "data/cec", *csv = NULL;
  int reps = 5, cpu_div = 500, no_cpu = 0, dim = 100, np = 250, only = 0, a, id, k, fail = 0;
  int models = 0, naive_div = 50;
  int64_t evals = 10000000;
  char dev[256], date[64], info[DEVO__ERRLEN];
  double ms[11][NCOL];
  const bench_opt opts[] = {BENCH_STR_OPT("cec-data", &dir),
                            BENCH_INT_OPT("reps", &reps, 1, 64),
                            BENCH_INT_OPT("cpu-div", &cpu_div, 1, INT_MAX),
                            BENCH_I64_OPT("evals", &evals, 2 * np, BENCH_I64_MAX),
                            BENCH_INT_OPT("only", &only, 0, 10),
                            BENCH_FLAG_OPT("no-cpu", &no_cpu, 1),
                            BENCH_FLAG_OPT("models", &models, 1),
                            BENCH_INT_OPT("naive-div", &naive_div, 1, INT_MAX),
                            BENCH_STR_OPT("csv", &csv)};
  if ((a = bench_args("bench-cec", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return a;
  if ((csv || naive_div != 50) && !models) {
    fprintf(stderr, "bench-cec: --csv and --naive-div go with --models\n");
    return 2;
  }
  if (!devo_gpu_available(dev, sizeof dev)) {
    fprintf(stderr, "bench-cec: %s\n", dev);
    return 1;
  }
  if (models) {
    models_opts o = {dir, csv, reps, cpu_div, naive_div, only, np, dim, 1, evals};
    printf("# device: %s\n", dev);
    return models_main(&o);
  }
  bench_stamp(date, sizeof date);
  printf("# devo %s bench-cec: %s, %s\n", devo_version(), dev, date);
  printf("# Janssen et al. case study 1: DE/rand/1/bin NP=%d F=0.5 CR=0.3 D=%d, %lld evaluations, "
         "official data %s; generation loop ms, GPU median of %d after a warm-up; CPU 1 thread: "
         "evals/%d once, scaled\n",
         np, dim, (long long)evals, dir, reps, cpu_div);
  for (id = 1; id <= 10; ++id) {
    devo_problem *p = NULL;
    char name[8];
    bench_cfg cfg;
    double gbest, cbest;
    int v;
    for (k = 0; k < NCOL; ++k)
      ms[id][k] = -1.0;
    if (only && id != only)
      continue;
    snprintf(name, sizeof name, "F%02d", id);
    if (devo_problem_create(&p, NULL) != DEVO_OK ||
        devo_problem_set_builtin(p, name, dim, 0, dir) != DEVO_OK) {
      fprintf(stderr, "bench-cec: %s D=%d: %s\n", name, dim, p ? devo_problem_errmsg(p) : "");
      return 1;
    }
    bench_cfg_init(&cfg);
    cfg.np = np;
    v = bench_validate(p, &cfg, 1, 1e-12, name, &gbest, &cbest, info, sizeof info);
    if (v < 0)
      return 1;
    fail |= v;
    printf("# %s validated (best after 20 generations: gpu %.17g cpu %.17g); %s\n", name, gbest,
           cbest, info);
    fflush(stdout);
    for (k = 0; k < NCOL; ++k) {
      double t;
      if (col_design[k] >= 0) {
        if ((k == COL_GLOBAL || k == COL_VL1 || k == COL_PAIR) && p->view.ncomp != 1)
          continue; /* a composition never stages (the block-per-vector column); at D = 100 its
                       matrices need a pair with two vectors per block (the default column) */
        if (k == COL_FMA && p->view.ncomp == 1)
          continue; /* a single matrix is multiplied by multiply-adds in the default column */
        cfg.backend = DEVO_BACKEND_GPU;
        cfg.design = col_design[k];
        cfg.evals = evals;
        t = bench_median(p, &cfg, reps, "bench-cec", info, sizeof info);
        ms[id][k] = t < 0 ? -1.0 : t * 1e3;
        if (k == COL_FMA || k == COL_VL1 || k == COL_PAIR) /* which kernel each variant ran */
          fprintf(stderr, "bench-cec: %s %s ran: %s\n", name, col_name[k],
                  strstr(info, "generations by") ? strstr(info, "generations by") : info);
      } else if (!no_cpu) {
        cfg.backend = DEVO_BACKEND_CPU;
        ms[id][k] = bench_cpu_scaled_ms(p, &cfg, evals, cpu_div, 0, "bench-cec");
      }
      fprintf(stderr, "bench-cec: %s %s: %.2f ms\n", name, col_name[k], ms[id][k]);
    }
    devo_problem_destroy(p);
  }
  printf("\n| function |");
  for (k = 0; k < NCOL; ++k)
    printf(" %s ms |", col_name[k]);
  printf(" fused vs multikernel | fused vs cpu |\n|---|");
  for (k = 0; k < NCOL + 2; ++k)
    printf("---:|");
  printf("\n");
  for (id = 1; id <= 10; ++id) {
    if (only && id != only)
      continue;
    printf("| F%02d |", id);
    for (k = 0; k < NCOL; ++k) {
      if (ms[id][k] < 0)
        printf(" %s |", k == COL_GLOBAL                                 ? "(= block per vector)"
                        : k == COL_VL1 || k == COL_PAIR || k == COL_FMA ? "(n/a)"
                                                                        : "-");
      else
        printf(" %.1f |", ms[id][k]);
    }
    bench_print_ratios(ms[id], COL_MULTI, COL_CPU1, COL_FUSED);
    printf("\n");
  }
  return fail;
}
