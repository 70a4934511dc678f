/* SPDX-License-Identifier: MIT */
/* prog_bench_cec.c: bench-cec, the CEC GPU benchmark: Janssen et al.'s case study 1
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
 * generations the fused GPU best equals the CPU best within 1e-12 relative. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/internal.h"
#include "tools/bench_util.h"
#include "tools/tool_util.h"
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
    "                 [--no-cpu]\n"
    "\n"
    "Janssen et al.'s case study 1 on the GPU: DE/rand/1/bin, NP = 250, D = 100, 10^7\n"
    "evaluations of each CEC function F01..F10 with the official data (default data/cec), per\n"
    "GPU design, median of --reps runs (default 5); the CPU column runs evals / --cpu-div.\n";

int main(int argc, char **argv)
{
  const char *dir = "data/cec";
  int reps = 5, cpu_div = 500, no_cpu = 0, dim = 100, np = 250, only = 0, a, id, k, fail = 0;
  int64_t evals = 10000000;
  char dev[256], date[64], info[DEVO__ERRLEN];
  double ms[11][NCOL];
  if ((a = tool_std_args("bench-cec", usage, &argc, &argv)) != 0)
    return a > 0 ? 0 : 1;
  for (a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--cec-data") == 0 && a + 1 < argc)
      dir = argv[++a];
    else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
      reps = atoi(argv[++a]);
    else if (strcmp(argv[a], "--cpu-div") == 0 && a + 1 < argc)
      cpu_div = atoi(argv[++a]);
    else if (strcmp(argv[a], "--evals") == 0 && a + 1 < argc)
      evals = atoll(argv[++a]);
    else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc)
      only = atoi(argv[++a]);
    else if (strcmp(argv[a], "--no-cpu") == 0)
      no_cpu = 1;
    else {
      fputs(usage, stderr);
      return 2;
    }
  }
  if (reps < 1 || reps > 64 || cpu_div < 1 || evals < 2 * np || only < 0 || only > 10) {
    fprintf(stderr, "bench-cec: bad --reps, --cpu-div, --evals or --only\n");
    return 2;
  }
  if (!devo_gpu_available(dev, sizeof dev)) {
    fprintf(stderr, "bench-cec: %s\n", dev);
    return 1;
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
