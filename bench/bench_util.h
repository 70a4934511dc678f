/* SPDX-License-Identifier: MIT */
/* bench_util.h: what devo's benchmark programs (bench/bench_*.c) share: one timed solve
 * with a given configuration, and the median of repeated solves after a warm-up. The time of a
 * solve is its generation loop: devo_stats.elapsed - init_seconds (set-up, device start and the
 * initial population excluded). */
#ifndef DEVO_BENCH_UTIL_H
#define DEVO_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/include/devo.h"

typedef struct bench_cfg {
  int np; /* 0: the solver's own (L-SHADE's preset: 18 D) */
  double f, cr;
  uint64_t seed;
  int backend; /* DEVO_BACKEND_* */
  int design;  /* DEVO_GPU_* plus the internal variant bits of kernels/gpu_variants.cuh */
  int threads;
  int64_t evals, gens; /* stopping rules; 0 = off */
} bench_cfg;

/* NP 100, F 0.5, CR 0.3, seed 12345, CPU, fused, 1 thread, no stopping rule. */
void bench_cfg_init(bench_cfg *c);
/* c's settings on s (NP, F, CR, seed, backend, threads or GPU design, stopping rules; np 0
 * keeps the solver's own, e.g. a preset's); the first failing setter's status, or DEVO_OK. */
int bench_apply(devo_solver *s, const bench_cfg *c);
/* One solve. Returns its generation-loop seconds, or -1 after printing "who: run failed: ...".
 * best, stats, info: filled when not NULL. */
double bench_one(devo_problem *p, const bench_cfg *c, const char *who, double *best,
                 devo_stats *stats, char *info, size_t infolen);
/* The median generation-loop seconds of reps (1..64) solves after one warm-up solve (info from
 * the warm-up), or -1. */
double bench_median(devo_problem *p, const bench_cfg *c, int reps, const char *who, char *info,
                    size_t infolen);
/* Validation before timing: 20 generations of c on the GPU (fused design) and on the CPU
 * (cpu_threads), the same seed. Returns 0 when the best values agree within rel_tol relative
 * (0: exactly), 1 when they do not (message on stderr), -1 when a run failed. gbest, cbest,
 * info: filled. */
int bench_validate(devo_problem *p, const bench_cfg *c, int cpu_threads, double rel_tol,
                   const char *who, double *gbest, double *cbest, char *info, size_t infolen);
/* A CPU column scaled to a GPU column's work: c (backend CPU) runs evals / cpu_div evaluations,
 * at least 2 NP, the median of reps runs after a warm-up (reps = 0: one run, no warm-up), and
 * the time is scaled by the loop evaluations (evals - NP) / (e - NP). Milliseconds, or -1.
 * Sets c->evals. */
double bench_cpu_scaled_ms(devo_problem *p, bench_cfg *c, int64_t evals, int cpu_div, int reps,
                           const char *who);
/* The ratio cells " %.1fx |" of row[k] / row[base] for k = from .. to (" - |" where a value is
 * missing: negative, or a base <= 0). */
void bench_print_ratios(const double *row, int from, int to, int base);
/* Writes the current time as "YYYY-MM-DD HH:MM UTC" into date and returns the number of online
 * CPU cores (at least 1): what every benchmark table's header says. */
int bench_stamp(char *date, size_t len);
/* qsort comparator for doubles. */
int bench_cmp_double(const void *a, const void *b);

#endif /* DEVO_BENCH_UTIL_H */
