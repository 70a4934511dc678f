/* SPDX-License-Identifier: MIT */
/* bench_sched.c: bench-sched, the scheduling throughput benchmark: schedule evaluations per
 * second of DE on an ETC matrix (default etc_data/512x16/u_c_hihi.csv, lambda 0.75, FCFS and
 * SPT) at NP = 64, 256 and 1024. Columns: the fused GPU design with its defaults; with
 * kernels/gpu_etc.cu's warp kernel wherever it applies (FCFS; version 3 where it applies, else
 * version 2), its version 2 and its version 1; with the block evaluator (etc_device.cuh v2, the
 * default before gpu_etc.cu); with at most 128 threads per schedule; with the first block
 * evaluator (etc_device.cuh v1); with the ETC matrix staged in shared memory whenever it fits;
 * the multikernel design; the CPU backend with 1 thread and one per core. Rate = generations x
 * NP / generation-loop seconds (devo_stats.elapsed - init_seconds): every trial of the loop is
 * one schedule evaluation.
 * GPU: median of --reps runs of --gens generations after a warm-up; CPU: one run of
 * gens / --cpu-div generations. Validated first: after 20 generations the GPU best equals the
 * CPU best exactly (the evaluation is exact on both sides). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"
#include "bench/bench_util.h"
#include "kernels/gpu_variants.cuh"

enum {
  COL_FUSED,
  COL_WARP,
  COL_WARP2,
  COL_WARP1,
  COL_BLOCK,
  COL_L128,
  COL_V1,
  COL_STAGE,
  COL_MULTI,
  COL_CPU1,
  COL_CPUN,
  NCOL
};
static const char *const col_name[NCOL] = {"fused",
                                           "fused, warp eval",
                                           "fused, warp eval v2",
                                           "fused, warp eval v1",
                                           "fused, block eval v2",
                                           "fused <=128 thr",
                                           "fused, v1 eval",
                                           "fused staged",
                                           "multikernel",
                                           "cpu 1 thread",
                                           "cpu all cores"};
static const int col_design[NCOL] = {DEVO_GPU_FUSED,
                                     DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP,
                                     DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP | DEVO__GPU_ETC_SOLO,
                                     DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP1,
                                     DEVO_GPU_FUSED | DEVO__GPU_ETC_BLOCK,
                                     DEVO_GPU_FUSED | DEVO__GPU_MAX_LANES(128),
                                     DEVO_GPU_FUSED | DEVO__GPU_ETC_V1,
                                     DEVO_GPU_FUSED | DEVO__GPU_STAGE_ON,
                                     DEVO_GPU_MULTIKERNEL,
                                     -1,
                                     -1};

static const char usage[] =
    "usage: bench-sched [--etc FILE] [--reps N] [--cpu-div N] [--gens N]\n"
    "\n"
    "Schedule evaluations per second of DE on an ETC matrix (default\n"
    "etc_data/512x16/u_c_hihi.csv) at NP = 64, 256, 1024, FCFS and SPT, per GPU design and on\n"
    "the CPU backend; median of --reps runs (default 5) of --gens generations (default 20000).\n";

int main(int argc, char **argv)
{
  static const int nps[3] = {64, 256, 1024};
  const char *file = "etc_data/512x16/u_c_hihi.csv";
  int reps = 5, cpu_div = 200, ncores, a, c, k, order, fail = 0;
  int64_t gens = 20000;
  char dev[256], date[64], info[DEVO__ERRLEN], err[512];
  double rate[2][3][NCOL];
  devo_etc *e = NULL;
  FILE *f;
  const bench_opt opts[] = {BENCH_STR_OPT("etc", &file), BENCH_INT_OPT("reps", &reps, 1, 64),
                            BENCH_INT_OPT("cpu-div", &cpu_div, 1, INT_MAX),
                            BENCH_I64_OPT("gens", &gens, 100, BENCH_I64_MAX)};
  if ((a = bench_args("bench-sched", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return a;
  if (!devo_gpu_available(dev, sizeof dev)) {
    fprintf(stderr, "bench-sched: %s\n", dev);
    return 1;
  }
  f = fopen(file, "r");
  if (!f || devo_etc_read(&e, f, file, DEVO_ETC_AUTO, 0, NULL, err, sizeof err) != DEVO_OK) {
    fprintf(stderr, "bench-sched: %s: %s\n", file, f ? err : "cannot open");
    return 1;
  }
  fclose(f);
  ncores = bench_stamp(date, sizeof date);
  printf("# devo %s bench-sched: %s, %s, %d CPU cores\n", devo_version(), dev, date, ncores);
  printf("# %s (%d x %d), DE/rand/1/bin F=0.5 CR=0.9 defaults, lambda 0.75, random initial "
         "population; %lld generations per GPU run; million schedule evaluations per second of "
         "the generation loop; GPU median of %d after a warm-up; CPU: generations/%d once\n",
         file, devo_etc_ntasks(e), devo_etc_nmach(e), (long long)gens, reps, cpu_div);
  for (order = 0; order < 2; ++order)
    for (c = 0; c < 3; ++c) {
      devo_problem *p = NULL;
      const int np = nps[c];
      bench_cfg cfg;
      double gbest, cbest;
      int v;
      if (devo_problem_create(&p, NULL) != DEVO_OK ||
          devo_problem_set_etc(p, e, 0.75, order, DEVO_ETC_SEED_NONE) != DEVO_OK) {
        fprintf(stderr, "bench-sched: cannot make the problem\n");
        return 1;
      }
      bench_cfg_init(&cfg);
      cfg.np = np;
      cfg.cr = 0.9; /* the solver's defaults: F 0.5, CR 0.9 */
      v = bench_validate(p, &cfg, 1, 0.0, "bench-sched", &gbest, &cbest, info, sizeof info);
      if (v < 0)
        return 1;
      fail |= v;
      printf("# %s NP=%d validated (best after 20 generations %.17g on both); %s\n",
             order ? "SPT" : "FCFS", np, gbest, info);
      fflush(stdout);
      for (k = 0; k < NCOL; ++k) {
        double r = -1.0;
        double sec;
        if (col_design[k] >= 0) {
          cfg.backend = DEVO_BACKEND_GPU;
          cfg.design = col_design[k];
          cfg.gens = gens;
          sec = bench_median(p, &cfg, reps, "bench-sched", NULL, 0);
        } else {
          cfg.backend = DEVO_BACKEND_CPU;
          cfg.threads = k == COL_CPU1 ? 1 : ncores;
          cfg.gens = gens / cpu_div < 20 ? 20 : gens / cpu_div;
          sec = bench_one(p, &cfg, "bench-sched", NULL, NULL, NULL, 0);
        }
        /* a generation-limited run evaluates exactly gens * NP schedules in its loop */
        if (sec > 0)
          r = (double)cfg.gens * np / sec;
        rate[order][c][k] = r;
        fprintf(stderr, "bench-sched: %s NP=%d %s: %.2f M/s\n", order ? "SPT" : "FCFS", np,
                col_name[k], r / 1e6);
      }
      devo_problem_destroy(p);
    }
  printf("\n| order | NP |");
  for (k = 0; k < NCOL; ++k)
    printf(" %s |", col_name[k]);
  printf(" fused vs cpu 1 thread |\n|---|---:|");
  for (k = 0; k <= NCOL; ++k)
    printf("---:|");
  printf("\n");
  for (order = 0; order < 2; ++order)
    for (c = 0; c < 3; ++c) {
      printf("| %s | %d |", order ? "SPT" : "FCFS", nps[c]);
      for (k = 0; k < NCOL; ++k) {
        if (rate[order][c][k] < 0)
          printf(" - |");
        else
          printf(" %.1f M/s |", rate[order][c][k] / 1e6);
      }
      if (rate[order][c][COL_FUSED] > 0 && rate[order][c][COL_CPU1] > 0)
        printf(" %.0fx |\n", rate[order][c][COL_FUSED] / rate[order][c][COL_CPU1]);
      else
        printf(" - |\n");
    }
  devo_etc_destroy(e);
  return fail;
}
