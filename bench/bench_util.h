/* SPDX-License-Identifier: MIT */
/* bench_util.h: what the benchmark programs of bench/ share: their option parsing (one
 * table per program, read by getopt_long, every value checked), one timed solve with a given
 * configuration, and the median of repeated solves after a warm-up. The time of a solve is its
 * generation loop: devo_stats.elapsed - init_seconds (set-up, device start and the initial
 * population excluded). */
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

/* ---- options ------------------------------------------------------------------------------ */

/* What an option takes, and so what bench_opt.dst points to. Numbers are read by
 * tools/tool_util.c's parsers (the devo CLI's and etc-gen's): a value that is not a number, has
 * trailing text, is NaN, overflows, is not whole where an integer is wanted, or is outside
 * [lo, hi] is refused. */
typedef enum bench_kind {
  BENCH_FLAG,   /* no value: *(int *)dst = set */
  BENCH_INT,    /* int in [lo, hi] */
  BENCH_I64,    /* int64_t in [lo, hi] (|lo|, |hi| <= 2^53: whole doubles are exact there) */
  BENCH_U64,    /* uint64_t, plain decimal digits (tool_parse_u64: a seed) */
  BENCH_REAL,   /* double in [lo, hi], or (lo, hi] with open_lo */
  BENCH_STR,    /* const char *, as given */
  BENCH_CHOICE, /* int: values[k] (values NULL: k) for the value names[k] (names NULL-ended) */
  BENCH_INTS,   /* int[max]: 1 .. max (<= 64) comma-separated integers in [lo, hi]; n in count */
  BENCH_REALS   /* double[max]: the same with numbers in [lo, hi] (or (lo, hi] with open_lo) */
} bench_kind;

/* One option "--name": a row of a program's table for bench_args. */
typedef struct bench_opt {
  const char *name; /* without the leading "--" */
  bench_kind kind;
  void *dst;
  double lo, hi;
  int open_lo; /* lo itself refused */
  int set;     /* BENCH_FLAG's value */
  const char *const *names;
  const int *values;
  int *count, max;
  int *seen; /* where not NULL: set to 1 when the option is given */
} bench_opt;

/* The largest integer every double below it represents exactly: BENCH_I64's bound. */
#define BENCH_I64_MAX 9007199254740992.0

/* p as a void * for dst, after the compiler checked that it points to a T. */
#define BENCH_PTR(T, p) ((void *)(1 ? (p) : (T *)0))
#define BENCH_FLAG_OPT(n, p, v)                                                                    \
  {                                                                                                \
    .name = (n), .kind = BENCH_FLAG, .dst = BENCH_PTR(int, p), .set = (v)                          \
  }
#define BENCH_INT_OPT(n, p, l, h)                                                                  \
  {                                                                                                \
    .name = (n), .kind = BENCH_INT, .dst = BENCH_PTR(int, p), .lo = (l), .hi = (h)                 \
  }
#define BENCH_I64_OPT(n, p, l, h)                                                                  \
  {                                                                                                \
    .name = (n), .kind = BENCH_I64, .dst = BENCH_PTR(int64_t, p), .lo = (l), .hi = (h)             \
  }
#define BENCH_U64_OPT(n, p)                                                                        \
  {                                                                                                \
    .name = (n), .kind = BENCH_U64, .dst = BENCH_PTR(uint64_t, p)                                  \
  }
/* a positive number up to h: (0, h] */
#define BENCH_POS_OPT(n, p, h)                                                                     \
  {                                                                                                \
    .name = (n), .kind = BENCH_REAL, .dst = BENCH_PTR(double, p), .hi = (h), .open_lo = 1          \
  }
#define BENCH_STR_OPT(n, p)                                                                        \
  {                                                                                                \
    .name = (n), .kind = BENCH_STR, .dst = BENCH_PTR(const char *, p)                              \
  }
#define BENCH_CHOICE_OPT(n, p, nm, v)                                                              \
  {                                                                                                \
    .name = (n), .kind = BENCH_CHOICE, .dst = BENCH_PTR(int, p), .names = (nm), .values = (v)      \
  }
#define BENCH_INTS_OPT(n, p, c, m, l, h)                                                           \
  {                                                                                                \
    .name = (n), .kind = BENCH_INTS, .dst = BENCH_PTR(int, p), .lo = (l), .hi = (h), .count = (c), \
    .max = (m)                                                                                     \
  }
/* 1 .. m positive numbers up to h */
#define BENCH_POS_LIST_OPT(n, p, c, m, h)                                                          \
  {                                                                                                \
    .name = (n), .kind = BENCH_REALS, .dst = BENCH_PTR(double, p), .hi = (h), .open_lo = 1,        \
    .count = (c), .max = (m)                                                                       \
  }
#define BENCH_NOPTS(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* What bench_args returns when the program goes on. */
#define BENCH_GO (-1)

/* A program's command line: -h/--help (usage on standard output) and --version ("prog VERSION")
 * as tool_std_args answers them, then the options of opts[0 .. nopts-1] by getopt_long ("--name
 * value" or "--name=value"; a unique prefix of a name is that name), each value checked and
 * stored. operand: where the program takes one argument that is not an option (bench-etc's
 * folder), filled when one is given; NULL: none is taken. Returns BENCH_GO, or the exit status:
 * 0 after --help or --version, 2 after one line on standard error naming what was refused (an
 * unknown option, a missing or bad value, an unexpected argument), 1 when out of memory. */
int bench_args(const char *prog, const char *usage, int argc, char **argv, const bench_opt *opts,
               int nopts, const char **operand);

#endif /* DEVO_BENCH_UTIL_H */
