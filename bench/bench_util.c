/* SPDX-License-Identifier: MIT */
/* bench_util.c: the option parsing and the timed solves shared by the benchmark programs (see
 * bench_util.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/internal.h"
#include "kernels/gpu_variants.cuh"
#include "tools/tool_util.h"

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

/* ---- options ------------------------------------------------------------------------------ */

enum {
  OPT_VAL0 = 256, /* getopt_long's value for opts[k]: OPT_VAL0 + k, beyond every short option */
  OPT_MAX = 32,   /* options in a table */
  LIST_MAX = 64   /* values in a list */
};

static int opt_whole(const bench_opt *o)
{
  return o->kind == BENCH_INT || o->kind == BENCH_I64 || o->kind == BENCH_INTS;
}

/* The one line that refuses s as o's value; returns the exit status 2. */
static int opt_refuse(const char *prog, const bench_opt *o, const char *s)
{
  const int whole = opt_whole(o);
  int k;
  fprintf(stderr, "%s: --%s: '%s' is not ", prog, o->name, s);
  if (o->kind == BENCH_CHOICE) {
    fputs("one of", stderr);
    for (k = 0; o->names[k]; ++k)
      fprintf(stderr, "%s %s", k ? "," : "", o->names[k]);
  } else if (o->kind == BENCH_U64) {
    fprintf(stderr, "a decimal integer in [0, %llu] (digits only, no sign or leading zero)",
            (unsigned long long)UINT64_MAX);
  } else {
    if (o->kind == BENCH_INTS || o->kind == BENCH_REALS)
      fprintf(stderr, "a comma-separated list of 1 to %d %s", o->max,
              whole ? "integers" : "numbers");
    else
      fputs(whole ? "an integer" : "a number", stderr);
    fprintf(stderr, whole ? " in %c%.0f, %.0f]" : " in %c%g, %g]", o->open_lo ? '(' : '[', o->lo,
            o->hi);
  }
  fputc('\n', stderr);
  return 2;
}

/* s as a number of o's range (a whole one for the integer kinds) into *v: 0, or -1. */
static int opt_number(const bench_opt *o, const char *s, double *v)
{
  if (tool_parse_real(s, v) != 0 || !(o->open_lo ? *v > o->lo : *v >= o->lo) || !(*v <= o->hi))
    return -1;
  return opt_whole(o) && *v != floor(*v) ? -1 : 0;
}

/* A number, or a list of them, into o->dst: 0, or the exit status 2 after the line. */
static int opt_numbers(const char *prog, const bench_opt *o, const char *s)
{
  const int list = o->kind == BENCH_INTS || o->kind == BENCH_REALS;
  char buf[512], *f[LIST_MAX];
  int n = 1, k;
  double v;
  f[0] = buf;
  if (strlen(s) >= sizeof buf || (list && o->max > LIST_MAX))
    return opt_refuse(prog, o, s);
  memcpy(buf, s, strlen(s) + 1);
  if (list) { /* an option's list "a,b,c" (option syntax, not a CSV file) */
    char *c = buf;
    while ((c = strchr(c, ',')) != NULL) {
      if (n == o->max)
        return opt_refuse(prog, o, s);
      *c++ = 0;
      f[n++] = c;
    }
  }
  for (k = 0; k < n; ++k) {
    if (opt_number(o, f[k], &v) != 0)
      return opt_refuse(prog, o, s);
    if (o->kind == BENCH_INT || o->kind == BENCH_INTS)
      ((int *)o->dst)[k] = (int)v; /* in range: the cast is defined */
    else if (o->kind == BENCH_I64)
      *(int64_t *)o->dst = (int64_t)v;
    else
      ((double *)o->dst)[k] = v;
  }
  if (list)
    *o->count = n;
  return 0;
}

/* o's value s (NULL for a flag) into o->dst: 0, or the exit status 2 after the line. */
static int opt_store(const char *prog, const bench_opt *o, const char *s)
{
  int k;
  switch (o->kind) {
  case BENCH_FLAG:
    *(int *)o->dst = o->set;
    return 0;
  case BENCH_STR:
    *(const char **)o->dst = s;
    return 0;
  case BENCH_U64:
    return tool_parse_u64(s, (uint64_t *)o->dst) == 0 ? 0 : opt_refuse(prog, o, s);
  case BENCH_CHOICE:
    for (k = 0; o->names[k]; ++k)
      if (strcmp(s, o->names[k]) == 0) {
        *(int *)o->dst = o->values ? o->values[k] : k;
        return 0;
      }
    return opt_refuse(prog, o, s);
  default:
    return opt_numbers(prog, o, s);
  }
}

/* What getopt_long refused in arg ("--name" or "-c"): no option, or the prefix of several. */
static int opt_unknown(const char *prog, const bench_opt *opts, int nopts, const char *arg)
{
  const size_t len = strncmp(arg, "--", 2) == 0 ? strlen(arg + 2) : 0;
  int k, n = 0;
  for (k = 0; k < nopts && len > 0; ++k)
    n += strncmp(opts[k].name, arg + 2, len) == 0;
  fprintf(stderr, "%s: %s option '%s' (see --help)\n", prog, n > 1 ? "ambiguous" : "unknown", arg);
  return 2;
}

/* arg, an argument that is no option: the program's one operand (*n of them so far), or refused
 * with its line (exit status 2). */
static int opt_operand(const char *prog, const char **operand, int *n, const char *arg)
{
  if (!operand || (*n)++ > 0) {
    fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, arg);
    return 2;
  }
  *operand = arg;
  return 0;
}

int bench_args(const char *prog, const char *usage, int argc, char **argv, const bench_opt *opts,
               int nopts, const char **operand)
{
  struct option lo[OPT_MAX + 1];
  char shortopt[3] = "-?";
  int k, c, operands = 0;
  if (nopts > OPT_MAX) {
    fprintf(stderr, "%s: more than %d options in its table\n", prog, OPT_MAX);
    return 1;
  }
  if ((k = tool_std_args(prog, usage, &argc, &argv)) != 0)
    return k > 0 ? 0 : 1;
  memset(lo, 0, sizeof lo);
  for (k = 0; k < nopts; ++k) {
    lo[k].name = opts[k].name;
    lo[k].has_arg = opts[k].kind == BENCH_FLAG ? no_argument : required_argument;
    lo[k].val = OPT_VAL0 + k;
  }
  opterr = 0; /* the messages are ours: one line each */
  /* "-": an argument that is no option comes as 1 in its place, whatever POSIXLY_CORRECT says;
   * ":": a missing value is told apart from an unknown option */
  while ((c = getopt_long(argc, argv, "-:", lo, NULL)) != -1) {
    const bench_opt *o = c >= OPT_VAL0 && c < OPT_VAL0 + nopts ? &opts[c - OPT_VAL0] : NULL;
    if (c == 1) {
      if ((k = opt_operand(prog, operand, &operands, optarg)) != 0)
        return k;
      continue;
    }
    if (c == ':' && optopt >= OPT_VAL0 && optopt < OPT_VAL0 + nopts) {
      fprintf(stderr, "%s: --%s needs a value\n", prog, opts[optopt - OPT_VAL0].name);
      return 2;
    }
    if (!o && optopt > 0 && optopt < OPT_VAL0) { /* a short option: only -h is one */
      shortopt[1] = (char)optopt;
      return opt_unknown(prog, opts, nopts, shortopt);
    }
    if (!o)
      return opt_unknown(prog, opts, nopts, argv[optind - 1]);
    if ((k = opt_store(prog, o, optarg)) != 0)
      return k;
    if (o->seen)
      *o->seen = 1;
  }
  for (k = optind; k < argc; ++k) /* after "--" */
    if ((c = opt_operand(prog, operand, &operands, argv[k])) != 0)
      return c;
  return BENCH_GO;
}
