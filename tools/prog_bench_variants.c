/* prog_bench_variants.c: the DE variants' benchmark of issue 18 (the `bench-variants` program):
 * every strategy x crossover, jDE and GOjDE on shifted Rastrigin and F03 at D = 100, NP = 250,
 * 10^7 evaluations, and on shifted Rastrigin at D = 1000, NP = 128, 5,000,000 evaluations: the
 * GPU's fused time, the 1-thread CPU time (measured on 1/--cpu-div of the budget and scaled to
 * the whole budget by the generation-loop evaluations: marked "scaled"), their ratio, and each
 * variant's time against rand1bin's on the same case. Times are generation loops
 * (devo_stats.elapsed - init_seconds), the median of --reps runs after one warm-up run. Prints a
 * Markdown table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"
#include "tools/bench_util.h"

typedef struct bcase {
  const char *fn;
  int dim, np;
  int64_t evals;
} bcase;

static const bcase cases[] = {{"rastrigin", 100, 250, 10000000},
                              {"F03", 100, 250, 10000000},
                              {"rastrigin", 1000, 128, 5000000}};

/* A variant row: a strategy name with or without jDE, or a preset. */
typedef struct brow {
  char label[40];
  const char *strategy, *preset;
  int jde;
} brow;

static int rows_make(brow *r, int cap)
{
  int n = 0, s, x;
  for (s = 0; devo_strategy_name(s, 0) && n + 2 <= cap; ++s)
    for (x = 0; x < 2; ++x) {
      memset(&r[n], 0, sizeof r[n]);
      r[n].strategy = devo_strategy_name(s, x);
      snprintf(r[n].label, sizeof r[n].label, "%s", r[n].strategy);
      n++;
    }
  if (n + 2 <= cap) {
    memset(&r[n], 0, sizeof r[n]);
    r[n].preset = "jde";
    snprintf(r[n].label, sizeof r[n].label, "jde (rand1bin + jDE)");
    n++;
    memset(&r[n], 0, sizeof r[n]);
    r[n].preset = "gojde";
    snprintf(r[n].label, sizeof r[n].label, "gojde");
    n++;
  }
  return n;
}

/* One solve's generation-loop seconds, or -1 after a message. */
static double timed(devo_problem *p, const bcase *c, const brow *r, int backend, int64_t evals,
                    int64_t *done)
{
  devo_solver *s = NULL;
  devo_stats st;
  double t = -1.0;
  int rc;
  if (devo_solver_create(&s, p, NULL) != DEVO_OK)
    return -1.0;
  rc = devo_solver_set_np(s, c->np) || devo_solver_set_f(s, 0.5) || devo_solver_set_cr(s, 0.9) ||
       devo_solver_set_seed(s, 12345) || devo_solver_set_backend(s, backend) ||
       devo_solver_set_max_evals(s, evals) ||
       (r->preset ? devo_solver_set_algorithm(s, r->preset)
                  : devo_solver_set_strategy_name(s, r->strategy));
  if (rc != DEVO_OK) {
    fprintf(stderr, "bench-variants: %s: %s\n", r->label, devo_solver_errmsg(s));
    devo_solver_destroy(s);
    return -1.0;
  }
  rc = devo_solve(s);
  devo_solver_stats(s, &st);
  if (rc < 0)
    fprintf(stderr, "bench-variants: %s %s D=%d: run failed: %s\n", r->label, c->fn, c->dim,
            devo_solver_errmsg(s));
  else {
    t = st.elapsed - st.init_seconds;
    if (done)
      *done = st.evaluations;
  }
  devo_solver_destroy(s);
  return t;
}

/* Median of reps runs after a warm-up; the CPU on evals / div evaluations scaled up. */
static double median_time(devo_problem *p, const bcase *c, const brow *r, int backend, int reps,
                          int div)
{
  double t[64];
  int64_t e = backend == DEVO_BACKEND_CPU ? c->evals / div : c->evals, done = 0;
  int k;
  if (e < 2 * (int64_t)c->np)
    e = 2 * (int64_t)c->np;
  if (timed(p, c, r, backend, e, &done) < 0)
    return -1.0;
  for (k = 0; k < reps; ++k)
    if ((t[k] = timed(p, c, r, backend, e, &done)) < 0)
      return -1.0;
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
  /* scaled by the loop's evaluations: (budget - NP) / (done - NP) */
  return t[reps / 2] * (double)(c->evals - c->np) / (double)(done - c->np);
}

int main(int argc, char **argv)
{
  brow rows[32];
  int nrows = rows_make(rows, 32), reps = 3, div = 100, cpu = 1, gpu = 1, a, ci, ri;
  double budget_div = 1.0;
  char date[64];
  int cores;
  for (a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--cpu-only") == 0)
      gpu = 0;
    else if (strcmp(argv[a], "--gpu-only") == 0)
      cpu = 0;
    else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
      reps = atoi(argv[++a]);
    else if (strcmp(argv[a], "--cpu-div") == 0 && a + 1 < argc)
      div = atoi(argv[++a]);
    else if (strcmp(argv[a], "--budget-div") == 0 && a + 1 < argc)
      budget_div = atof(argv[++a]);
    else {
      fprintf(stderr, "usage: bench-variants [--cpu-only | --gpu-only] [--reps N] [--cpu-div N] "
                      "[--budget-div X]\n");
      return argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) ? 0 : 2;
    }
  }
  if (reps < 1 || reps > 64 || div < 1 || !(budget_div >= 1.0) || (!cpu && !gpu)) {
    fprintf(stderr, "bench-variants: bad --reps, --cpu-div or --budget-div\n");
    return 2;
  }
  if (gpu && !devo_gpu_available(NULL, 0)) {
    if (!cpu) {
      fprintf(stderr, "bench-variants: no usable GPU\n");
      return 1;
    }
    fprintf(stderr, "bench-variants: no usable GPU; CPU columns only\n");
    gpu = 0;
  }
  cores = bench_stamp(date, sizeof date);
  printf("# devo %s DE variants, %s, %d cores; F = 0.5, CR = 0.9 (jDE/GOjDE adapt theirs); "
         "median of %d runs after a warm-up; CPU: 1 thread on 1/%d of the budget, scaled "
         "(marked *)%s\n\n",
         devo_version(), date, cores, reps, div,
         budget_div > 1.0 ? "; budgets divided by --budget-div" : "");
  printf("| case | variant | GPU s | vs rand1bin | CPU 1-thread s | vs rand1bin | CPU/GPU |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (ci = 0; ci < (int)(sizeof cases / sizeof cases[0]); ++ci) {
    bcase c = cases[ci];
    devo_problem *p = NULL;
    double g0 = -1.0, c0 = -1.0;
    c.evals = (int64_t)((double)c.evals / budget_div);
    if (devo_problem_create(&p, NULL) != DEVO_OK ||
        devo_problem_set_builtin(p, c.fn, c.dim, 1, NULL) != DEVO_OK) {
      fprintf(stderr, "bench-variants: %s D=%d: %s\n", c.fn, c.dim, devo_problem_errmsg(p));
      devo_problem_destroy(p);
      return 1;
    }
    for (ri = 0; ri < nrows; ++ri) {
      double g = gpu ? median_time(p, &c, &rows[ri], DEVO_BACKEND_GPU, reps, 1) : -1.0;
      double t = cpu ? median_time(p, &c, &rows[ri], DEVO_BACKEND_CPU, reps, div) : -1.0;
      if (ri == 0)
        g0 = g, c0 = t;
      printf("| %s D=%d NP=%d %.3g evals | %s |", c.fn, c.dim, c.np, (double)c.evals,
             rows[ri].label);
      if (g > 0)
        printf(" %.3f | %.2fx |", g, g0 > 0 ? g / g0 : (double)NAN);
      else
        printf(" - | - |");
      if (t > 0)
        printf(" %.2f* | %.2fx |", t, c0 > 0 ? t / c0 : (double)NAN);
      else
        printf(" - | - |");
      if (g > 0 && t > 0)
        printf(" %.1f |\n", t / g);
      else
        printf(" - |\n");
      fflush(stdout);
    }
    devo_problem_destroy(p);
  }
  return 0;
}
