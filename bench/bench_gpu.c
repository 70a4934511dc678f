/* SPDX-License-Identifier: MIT */
/* bench_gpu.c: benchmark of the CUDA backend (the `bench-gpu` program), the table of
 * BENCHMARKS.md: DE/rand/1/bin, F = 0.5, CR = 0.3, shifted Rastrigin, double precision, at
 * D=100 NP=250 (10^7 evaluations, the target: fused loop <= 100 ms on an H100),
 * D=1000 NP=1000 and D=10 NP=50. Columns: the fused design with its defaults (persistent
 * kernel, devo's split grid barrier with acquire polls, threads per vector chosen by the wave
 * rule of kernels/gpu_backend.cu), side by side the two persistent kernels, gpu_fused.cu's
 * ("classic") and gpu_fast.cu's (its own width and 32/64/128 threads per vector; the table says
 * where it does not apply), then one choice changed at a time: relaxed polls, always
 * full threads per vector, cooperative_groups' grid.sync(), CUDA graphs with indices inline and
 * with kernel(P); the multikernel design; the CPU backend with 1 thread and one per core.
 * Time = the generation loop (devo_stats.elapsed - init_seconds), median of --reps runs after
 * one warm-up. CPU columns run E / --cpu-div evaluations and are scaled to E (a generation costs
 * the same all run long); the table says so. Each case is validated first: after 20 generations
 * the fused GPU best equals the CPU best within 1e-12. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"
#include "bench/bench_util.h"
#include "kernels/gpu_variants.cuh"

enum {
  COL_FUSED,
  COL_CLASSIC,
  COL_FAST,
  COL_FAST32,
  COL_FAST64,
  COL_FAST128,
  COL_RELAXED,
  COL_FULL,
  COL_PERSIST_CG,
  COL_GRAPH,
  COL_GRAPH_P,
  COL_MULTI,
  COL_CPU1,
  COL_CPUN,
  NCOL
};
static const char *const col_name[NCOL] = {
    "fused",      "classic",    "fast",  "fast-32", "fast-64", "fast-128", "relaxed-poll",
    "full-lanes", "persist-cg", "graph", "graph+P", "multi",   "cpu-1thr", "cpu-all"};
static const int col_design[NCOL] = {
    DEVO_GPU_FUSED,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_CLASSIC,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_FAST,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_32,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_64,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_128,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_BAR_RELAXED,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_FULL_LANES | DEVO__GPU_CLASSIC,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_CG_BARRIER,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_INLINE,
    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP,
    DEVO_GPU_MULTIKERNEL,
    -1,
    -1};

typedef struct bcase {
  int dim, np;
  int64_t evals;
} bcase;

static const char usage[] =
    "usage: bench-gpu [--reps N] [--cpu-div N] [--no-cpu] [--quick]\n"
    "\n"
    "Generation-loop time of DE/rand/1/bin on shifted Rastrigin (D = 100 NP = 250, D = 1000\n"
    "NP = 1000, D = 10 NP = 50) per GPU design and on the CPU backend; median of --reps runs\n"
    "(default 5). --quick runs a twentieth of the evaluations.\n";

int main(int argc, char **argv)
{
  bcase cases[3] = {{100, 250, 10000000}, {1000, 1000, 2000000}, {10, 50, 10000000}};
  int reps = 5, cpu_div = 20, no_cpu = 0, quick = 0, ncores, a, c, k;
  char dev[256], date[64], info[DEVO__ERRLEN];
  double ms[3][NCOL];
  const bench_opt opts[] = {
      BENCH_INT_OPT("reps", &reps, 1, 64), BENCH_INT_OPT("cpu-div", &cpu_div, 1, INT_MAX),
      BENCH_FLAG_OPT("no-cpu", &no_cpu, 1), BENCH_FLAG_OPT("quick", &quick, 1)};
  if ((a = bench_args("bench-gpu", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return a;
  if (!devo_gpu_available(dev, sizeof dev)) {
    fprintf(stderr, "bench-gpu: %s\n", dev);
    return 1;
  }
  if (quick)
    for (c = 0; c < 3; ++c)
      cases[c].evals /= 20;
  ncores = bench_stamp(date, sizeof date);
  printf("# devo %s bench-gpu: %s, %s, %d CPU cores\n", devo_version(), dev, date, ncores);
  printf("# DE/rand/1/bin F=0.5 CR=0.3, shifted Rastrigin, double; generation loop ms "
         "(elapsed - init), median of %d after a warm-up\n",
         reps);
  printf("# CPU columns: measured on evals/%d, scaled to the case's evals\n", cpu_div);
  for (c = 0; c < 3; ++c) {
    const bcase *b = &cases[c];
    devo_problem *p = NULL;
    bench_cfg cfg;
    double gbest, cbest;
    if (devo_problem_create(&p, NULL) != DEVO_OK ||
        devo_problem_set_builtin(p, "rastrigin", b->dim, 1, NULL) != DEVO_OK) {
      fprintf(stderr, "bench-gpu: cannot make the problem\n");
      return 1;
    }
    bench_cfg_init(&cfg);
    cfg.np = b->np;
    /* validate before timing */
    if (bench_validate(p, &cfg, ncores, 1e-12, "bench-gpu", &gbest, &cbest, info, sizeof info) != 0)
      return 1;
    printf("# D=%d NP=%d validated (best after 20 generations %.17g on both); %s\n", b->dim, b->np,
           gbest, info);
    fflush(stdout);
    for (k = 0; k < NCOL; ++k) {
      double t;
      ms[c][k] = -1.0;
      if (col_design[k] >= 0) {
        info[0] = '\0';
        cfg.backend = DEVO_BACKEND_GPU;
        cfg.design = col_design[k];
        cfg.evals = b->evals;
        t = bench_median(p, &cfg, reps, "bench-gpu", info, sizeof info);
        ms[c][k] = t < 0 ? -1.0 : t * 1e3;
        if (k >= COL_FAST && k <= COL_FAST128) /* which kernel ran (D > 512 falls back) */
          printf("# D=%d NP=%d %s: %s\n", b->dim, b->np, col_name[k],
                 strstr(info, "gpu_fast.cu") ? strstr(info, "gpu_fast.cu")
                                             : "gpu_fast.cu does not apply, gpu_fused.cu ran");
      } else if (!no_cpu) {
        cfg.backend = DEVO_BACKEND_CPU;
        cfg.threads = k == COL_CPU1 ? 1 : ncores;
        ms[c][k] = bench_cpu_scaled_ms(p, &cfg, b->evals, cpu_div, reps, "bench-gpu");
      }
      fprintf(stderr, "bench-gpu: D=%d NP=%d %s: %.2f ms\n", b->dim, b->np, col_name[k], ms[c][k]);
    }
    devo_problem_destroy(p);
  }
  printf("\n| case | evals |");
  for (k = 0; k < NCOL; ++k)
    printf(" %s ms |", col_name[k]);
  printf(" fused vs multi | fused vs cpu-1thr | fused vs cpu-all |\n|---|---|");
  for (k = 0; k < NCOL + 3; ++k)
    printf("---|");
  printf("\n");
  for (c = 0; c < 3; ++c) {
    printf("| D=%d NP=%d | %lld |", cases[c].dim, cases[c].np, (long long)cases[c].evals);
    for (k = 0; k < NCOL; ++k) {
      if (ms[c][k] < 0)
        printf(" - |");
      else
        printf(" %.2f |", ms[c][k]);
    }
    bench_print_ratios(ms[c], COL_MULTI, COL_CPUN, COL_FUSED);
    printf("\n");
  }
  return 0;
}
