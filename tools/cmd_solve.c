/* SPDX-License-Identifier: MIT */
/* cmd_solve.c: `devo solve`: minimise a built-in function with DE (DE/rand/1/bin or a variant:
 * tools/cli_variant.c) and report the best value, the work done and why the run stopped. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unistd.h>

#include "cli.h"
#include "cli_progress.h"
#include "json_out.h"
#include "mpi_env.h"
#include "mpi_islands.h"

static const char *const solve_help =
    "usage: devo solve --problem NAME --dim D [options]\n"
    "\n"
    "Minimises a built-in function (devo list-problems) with DE/rand/1/bin.\n"
    "\n"
    "problem:\n"
    "  --problem NAME      sphere, rosenbrock, griewank, rastrigin, cec2017:f5, F03, ...\n"
    "  --dim D             dimension (1 to 10^7; CEC functions 2 to 10,000, hybrids from 5,\n"
    "                      8 or 12: see devo list-problems)\n"
    "  --data-seed S       seed of the generated shift vectors and matrices (default 1)\n"
    "  --cec-data DIR      official CEC input files instead of generated data\n"
    "  --lower L --upper U the search box instead of the function's (the optimum must stay\n"
    "                      inside): one number for every coordinate ([L, U]^D), D numbers\n"
    "                      L1,L2,..,LD (one per coordinate), or @FILE with D numbers (one\n"
    "                      per line, or separated by commas); an absent side keeps the\n"
    "                      function's. Per-coordinate bounds run on the CPU only (--backend\n"
    "                      gpu refuses them, auto takes the CPU)\n"
    "  --ranges cec2005    the CEC 2005 range of a classic function (rastrigin [-5, 5],\n"
    "                      griewank [-600, 600]; docs/soco.md)\n"
    "algorithm:\n"
    "  --np N              population size, >= 4 (default 100)\n"
    "  --f F               differential weight, in (0, 2] (default 0.5)\n"
    "  --cr CR             crossover rate, in [0, 1] (default 0.9)\n"
    "  --seed S            random seed (default 1)\n"
    "  --bounds RULE       reinit (default), clip, reflect or midpoint\n"
    "stopping rules (any combination; without any, --max-evals 10000*D):\n"
    "  --max-evals N       evaluations, the initial population included\n"
    "  --max-gens N        generations\n"
    "  --target E          stop when best - f* <= E (the error; f* of the problem)\n"
    "  --time-limit S      seconds of wall-clock time, counted from the start of the solve\n"
    "execution:\n"
    "  --backend B         cpu (default), gpu or auto (GPU when usable, else CPU); without a\n"
    "                      usable GPU, gpu runs on the CPU too, saying 'no CUDA device' on\n"
    "                      stderr (as devo schedule does)\n"
    "  --gpu-design D      fused (default), multikernel, or naive (DE on one CPU thread, each\n"
    "                      generation evaluated on the GPU: Janssen et al.'s naive GPU model)\n"
    "  --threads T         CPU worker threads (default 1); with islands, the islands' threads\n"
    "                      (one island per thread at a time)\n"
    "islands (docs/library.md: the island model):\n"
    "  --islands K         K populations (1 to 4096, default 1: the plain solve), seeds derived\n"
    "                      from --seed and the island; --max-evals is the total over all\n"
    "                      islands; on the GPU (--backend gpu) one batch launch advances\n"
    "                      them all between migrations, each island computing what it\n"
    "                      computes on the CPU\n"
    "  --migration-interval G  every G generations each island's best replaces the worst of\n"
    "                      the island(s) it goes to, where better (default 50)\n"
    "  --topology T        ring (island k to k + 1 mod K, default) or full (each island gets\n"
    "                      the best of all the others)\n"
    "  mpirun -np N devo solve ... --islands K  spreads the K islands over N MPI ranks in\n"
    "                      blocks (a devo built with MPI; ranks beyond K idle): the answer of\n"
    "                      one process, bit for bit; rank 0 prints it (--json: \"ranks\",\n"
    "                      \"migration_seconds\", \"migration_wait_seconds\": rank 0's time in\n"
    "                      the exchanges, and waiting for the slowest rank before them). Under\n"
    "                      mpirun, --islands 1 is refused\n"
    "output:\n"
    "  --json              one JSON object (with the best vector) instead of the summary\n"
    "  --print-x           also print the best vector\n"
    "  --verbose           print the backend configuration to stderr\n"
    "  --quiet             no progress line (shown on stderr when it is a terminal: evaluations,\n"
    "                      error, elapsed and estimated time left, updated 4 times a second)\n"
    "SIGINT or SIGTERM ends the run with the best so far (stop DEVO_INTERRUPTED, exit 0); a\n"
    "second one exits at once.\n";

/* SIGINT or SIGTERM ends the solve at its next check (devo_interrupt is async-signal-safe); the
 * best so far is reported, stop DEVO_INTERRUPTED. A second signal ends the process at once by the
 * signal's default action, writing nothing more. */
static devo_solver *volatile active_solver;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
  if (stop_signal) {
    sigset_t self;
    signal(sig, SIG_DFL);
    sigemptyset(&self); /* the handler runs with sig blocked: let the raise act now */
    sigaddset(&self, sig);
    sigprocmask(SIG_UNBLOCK, &self, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached */
  }
  stop_signal = sig;
  if (active_solver)
    devo_interrupt(active_solver);
#ifdef DEVO_HAVE_MPI
  cli_mpi_islands_interrupt();
#endif
}

static void catch_signals(void (*handler)(int))
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

typedef struct solve_args {
  const char *problem, *cec_dir, *lower, *upper, *ranges;
  int dim, np, threads, backend, design, bounds, json, print_x, verbose, quiet;
  int backend_set, design_set, threads_set, np_set;
  double f, cr, target, time_limit;
  int64_t max_evals, max_gens;
  int islands, topology;
  int64_t mig_interval;
  uint64_t seed, data_seed;
  cli_variant var;
} solve_args;

static int parse(int argc, char **argv, solve_args *a)
{
  static const char *const names[] = {
      "--problem=", "--dim=", "--np=", "--f=", "--cr=", "--max-evals=", "--max-gens=", "--target=",
      "--time-limit=", "--seed=", "--data-seed=", "--cec-data=", "--threads=", "--backend=",
      "--gpu-design=", "--bounds=", "--json", "--print-x", "--verbose", "--help",
      "--lower=", "--upper=", "--ranges=",
      /* cli_variant_names: */
      "--strategy=", "--algorithm=", "--jde",
      "--jde-tau1=", "--jde-tau2=", "--jde-fl=", "--jde-fu=", "--jde-crl=", "--jde-cru=", "--gobl=",
      "--pbest=", "--archive-rate=", "--memory-size=", "--jade-c=", "--np-min=", "--quiet",
      "--islands=", "--migration-interval=", "--topology=", NULL};
  static const char *const backends[] = {"cpu", "gpu", "auto", NULL};
  static const char *const designs[] = {"fused", "multikernel", "naive", NULL};
  static const char *const rules[] = {"reinit", "clip", "reflect", "midpoint", NULL};
  static const char *const topologies[] = {"ring", "full", NULL}; /* DEVO_TOPOLOGY_* */
  const char *cmd = "solve", *v;
  int64_t n;
  int pos = 1, k, r = 0;
  memset(a, 0, sizeof *a);
  a->np = 100;
  a->f = 0.5;
  a->cr = 0.9;
  a->seed = 1;
  a->data_seed = 1;
  a->threads = 1;
  a->target = (double)NAN;
  a->dim = CLI_DIM_UNSET;
  a->islands = 1;
  a->mig_interval = DEVO_MIGRATION_INTERVAL_DEFAULT;
  a->topology = DEVO_TOPOLOGY_RING;
  cli_variant_init(&a->var);
  while ((k = cli_next(cmd, argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      return cli_usage_error(cmd, "unexpected argument '%s'", v);
    case 0:
      a->problem = v;
      break;
    case 1:
      r = cli_int(cmd, "--dim", v, &a->dim);
      break;
    case 2:
      r = cli_int(cmd, "--np", v, &a->np);
      a->np_set = 1;
      break;
    case 3:
      r = cli_double(cmd, "--f", v, &a->f);
      break;
    case 4:
      r = cli_double(cmd, "--cr", v, &a->cr);
      break;
    case 5:
      r = cli_int64(cmd, "--max-evals", v, &a->max_evals);
      if (!r && a->max_evals <= 0)
        r = cli_usage_error(cmd, "--max-evals must be positive, got %s", v);
      break;
    case 6:
      r = cli_int64(cmd, "--max-gens", v, &a->max_gens);
      if (!r && a->max_gens <= 0)
        r = cli_usage_error(cmd, "--max-gens must be positive, got %s", v);
      break;
    case 7:
      r = cli_double(cmd, "--target", v, &a->target);
      if (!r && a->target < 0)
        r = cli_usage_error(cmd, "--target is an error (best - f*) and must be >= 0, got %s", v);
      break;
    case 8:
      r = cli_time_limit(cmd, v, &a->time_limit); /* the range of every command */
      break;
    case 9:
      r = cli_u64(cmd, "--seed", v, &a->seed);
      break;
    case 10:
      r = cli_u64(cmd, "--data-seed", v, &a->data_seed);
      break;
    case 11:
      a->cec_dir = v;
      break;
    case 20:
      a->lower = v;
      break;
    case 21:
      a->upper = v;
      break;
    case 22:
      a->ranges = v;
      break;
    case 12:
      r = cli_int(cmd, "--threads", v, &a->threads);
      a->threads_set = 1;
      break;
    case 13:
      r = cli_pick(cmd, "--backend", v, backends, &a->backend);
      a->backend_set = 1;
      break;
    case 14:
      r = cli_pick(cmd, "--gpu-design", v, designs, &a->design);
      a->design_set = 1;
      break;
    case 15:
      r = cli_pick(cmd, "--bounds", v, rules, &a->bounds);
      break;
    case 16:
      a->json = 1;
      break;
    case 17:
      a->print_x = 1;
      break;
    case 18:
      a->verbose = 1;
      break;
    case 38:
      a->quiet = 1;
      break;
    case 39:
      r = cli_count(cmd, "--islands", v, 1, DEVO_ISLANDS_MAX, &n);
      a->islands = (int)n;
      break;
    case 40:
      r = cli_count(cmd, "--migration-interval", v, 1, (int64_t)UINT32_MAX - 1, &a->mig_interval);
      break;
    case 41:
      r = cli_pick(cmd, "--topology", v, topologies, &a->topology);
      break;
    case 19:
      fputs(solve_help, stdout);
      fputs("DE variants (docs/variants.md):\n", stdout);
      cli_variant_print_help(stdout);
      exit(CLI_OK);
    default:
      if (cli_variant_index(names, k) >= 0)
        r = cli_variant_option(cmd, cli_variant_index(names, k), v, &a->var);
      break;
    }
    if (r)
      return CLI_USAGE;
  }
  if (!a->problem)
    return cli_usage_error(cmd, "--problem is required (see devo list-problems)");
  if (a->dim == CLI_DIM_UNSET)
    return cli_usage_error(cmd, "--dim is required");
  if (a->design_set && a->backend_set && a->backend == DEVO_BACKEND_CPU)
    return cli_usage_error(cmd, "--gpu-design contradicts --backend cpu");
  if (a->threads_set && a->backend_set && a->backend == DEVO_BACKEND_GPU)
    return cli_usage_error(cmd, "--threads sets CPU workers and contradicts --backend gpu");
  if (cli_variant_finish(cmd, &a->var))
    return CLI_USAGE;
  if (a->var.v.lpsr && !a->np_set) /* L-SHADE's NP_init = 18 D (Tanabe and Fukunaga 2014) */
    a->np = a->dim > 10000000 / 18 ? 10000000 : 18 * a->dim;
  return CLI_OK;
}

/* The algorithm line of a jade/shade/lshade run (without its closing parenthesis) and its final
 * population and archive sizes. */
static void print_shade(const cli_solve_result *r, const solve_args *a)
{
  const devo_variant *v = &a->var.v;
  printf("algorithm    %s (current-to-pbest/1/bin, p %g, archive rate %g", a->var.algorithm, v->p,
         v->arc_rate);
  if (v->adapt == DEVO_ADAPT_JADE)
    printf(", c %g", v->c);
  else
    printf(", H %d", v->hist);
  if (v->lpsr)
    printf(", NP %d -> %d", a->np, v->np_min);
  if (r->have_shade)
    printf("; final NP %d, archive %d of %d", r->shade.np, r->shade.archive_size,
           r->shade.archive_cap);
}

static void print_vector(FILE *f, const double *x, int dim, const char *sep)
{
  int j;
  for (j = 0; j < dim; ++j)
    fprintf(f, "%s%.17g", j ? sep : "", x[j]);
}

/* The search box that ran, coordinate by coordinate (2 D doubles: lower, then upper; NULL when
 * out of memory), and whether it is one box for every coordinate. */
static double *box_of(const devo_problem *p, int *uniform)
{
  const int dim = devo_problem_dim(p);
  double *b = (double *)malloc(2 * (size_t)dim * sizeof(double));
  int k;
  if (!b)
    return NULL;
  devo_problem_bounds_vec(p, b, b + dim);
  *uniform = 1;
  for (k = 1; k < dim && *uniform; ++k)
    *uniform = b[k] == b[0] && b[dim + k] == b[dim];
  return b;
}

/* "ranges" (--ranges or null) and "box": {"lower", "upper"}, each a number when every coordinate
 * has the same bounds, else one per coordinate. -1 when out of memory. */
static int json_box(json_out *j, const devo_problem *p, const char *ranges)
{
  const int dim = devo_problem_dim(p);
  int uniform, side, k;
  double *b = box_of(p, &uniform);
  if (!b)
    return -1;
  json_kv_str(j, "ranges", ranges);
  json_key(j, "box");
  json_obj(j);
  for (side = 0; side < 2; ++side) {
    json_key(j, side ? "upper" : "lower");
    if (uniform) {
      json_num(j, b[side * dim]);
      continue;
    }
    json_arr(j);
    for (k = 0; k < dim; ++k)
      json_num(j, b[side * dim + k]);
    json_end_arr(j);
  }
  json_end_obj(j);
  free(b);
  return 0;
}

/* --verbose: the box on stderr, "[L, U]^D" or its first coordinates. */
static void print_box(const devo_problem *p)
{
  const int dim = devo_problem_dim(p);
  char lo[40], hi[40]; /* every bit, in the fewest digits (json_out.h) */
  int uniform, k;
  double *b = box_of(p, &uniform);
  if (!b)
    return;
  if (uniform)
    fprintf(stderr, "devo solve: box [%s, %s]^%d\n", json_fmt_double(lo, sizeof lo, b[0]),
            json_fmt_double(hi, sizeof hi, b[dim]), dim);
  else {
    fprintf(stderr, "devo solve: box per coordinate:");
    for (k = 0; k < dim && k < 8; ++k)
      fprintf(stderr, " [%s, %s]", json_fmt_double(lo, sizeof lo, b[k]),
              json_fmt_double(hi, sizeof hi, b[dim + k]));
    fprintf(stderr, "%s (%d coordinates)\n", dim > 8 ? " ..." : "", dim);
  }
  free(b);
}

/* The answer of a solve that ended normally, from the solver (r->x: dim doubles). */
static void result_of(devo_solver *s, const solve_args *a, cli_solve_result *r)
{
  devo_solver_best(s, &r->best, r->x);
  devo_solver_stats(s, &r->stats);
  snprintf(r->info, sizeof r->info, "%s", devo_solver_backend_info(s));
  cli_variant_run_state(s, &a->var, a->np, &r->run);
  r->have_shade = a->var.v.adapt != DEVO_ADAPT_NONE &&
                  devo_solver_shade_state(s, &r->shade, NULL, NULL, NULL, NULL, NULL) == DEVO_OK;
}

static int report(const solve_args *a, devo_problem *p, const cli_solve_result *r, int st)
{
  static const char *const rules[] = {"reinit", "clip", "reflect", "midpoint"};
  const devo_stats stats = r->stats;
  const cli_variant_run run = r->run;
  const double best = r->best, *x = r->x, fstar = devo_problem_fstar(p);
  const int dim = devo_problem_dim(p);
  if (a->json) {
    json_out j;
    int k;
    if (json_init(&j, stdout) != 0)
      return cli_runtime_error("solve", "out of memory for the JSON output");
    json_obj(&j);
    json_kv_str(&j, "version", devo_version());
    json_kv_str(&j, "problem", a->problem);
    json_kv_int(&j, "dim", dim);
    json_kv_num(&j, "best", best);
    if (!isnan(fstar)) {
      json_kv_num(&j, "fstar", fstar);
      json_kv_num(&j, "error", best - fstar);
    }
    json_kv_int(&j, "evaluations", stats.evaluations);
    json_kv_int(&j, "generations", stats.generations);
    json_kv_num(&j, "elapsed", stats.elapsed);
    json_kv_num(&j, "init_seconds", stats.init_seconds);
    json_kv_str(&j, "stop", devo_status_name(st));
    json_kv_int(&j, "status", st);
    json_kv_str(&j, "backend", stats.backend == DEVO_BACKEND_GPU ? "gpu" : "cpu");
    json_kv_str(&j, "backend_info", r->info);
    json_kv_uint(&j, "seed", a->seed);
    json_kv_int(&j, "np", a->np);
    if (!a->var.v.jde && a->var.v.adapt == DEVO_ADAPT_NONE) {
      /* jDE and JADE/SHADE draw F and CR per individual: their ranges and means are in "jde" or
       * "shade", and no fixed F and CR ran */
      json_kv_num(&j, "f", a->f);
      json_kv_num(&j, "cr", a->cr);
    }
    json_kv_str(&j, "bounds", rules[a->bounds]);
    if (a->time_limit > 0.0)
      json_kv_num(&j, "time_limit", a->time_limit);
    if (json_box(&j, p, a->ranges) != 0)
      j.failed = 1;
    cli_variant_json_run(&j, &a->var, &run);
    if (a->islands > 1) {
      json_kv_int(&j, "islands", a->islands);
      json_kv_int(&j, "migration_interval", a->mig_interval);
      json_kv_str(&j, "topology", a->topology == DEVO_TOPOLOGY_RING ? "ring" : "full");
    }
    if (r->ranks > 0) { /* over MPI (tools/mpi_islands.c) */
      json_kv_int(&j, "ranks", r->ranks);
      json_kv_num(&j, "migration_seconds", r->migration_seconds);
      json_kv_num(&j, "migration_wait_seconds", r->migration_wait_seconds);
    }
    json_key(&j, "x");
    json_arr(&j);
    for (k = 0; k < dim; ++k)
      json_num(&j, x[k]);
    json_end_arr(&j);
    json_end_obj(&j);
    if (json_done(&j) != 0)
      return cli_runtime_error("solve", "out of memory for the JSON output");
  } else {
    printf("problem      %s (dimension %d)\n", a->problem, dim);
    printf("best         %.17g\n", best);
    if (!isnan(fstar))
      printf("error        %.6e (f* = %.17g)\n", best - fstar, fstar);
    printf("evaluations  %lld\n", (long long)stats.evaluations);
    printf("generations  %lld\n", (long long)stats.generations);
    printf("elapsed      %.6f s\n", stats.elapsed);
    printf("stop         %s (%s)\n", devo_status_name(st), devo_status_message(st));
    printf("backend      %s\n", r->info);
    if (a->islands > 1)
      printf("islands      %d (%s, migration every %lld generations; evaluations of all)\n",
             a->islands, a->topology == DEVO_TOPOLOGY_RING ? "ring" : "full",
             (long long)a->mig_interval);
    if (a->var.v.adapt != DEVO_ADAPT_NONE)
      print_shade(r, a);
    else
      printf("algorithm    %s (%s%s", cli_variant_algorithm(&a->var),
             devo_strategy_name(a->var.v.strategy, a->var.v.crossover),
             a->var.v.jde ? ", jDE" : "");
    if (a->var.v.gobl > 0.0)
      printf(", GOBL p_o = %g", a->var.v.gobl);
    printf(")\n");
    if (a->var.v.jde && !isnan(run.mean_f))
      printf("jde          mean F %.6g, mean CR %.6g\n", run.mean_f, run.mean_cr);
    if (a->var.v.adapt != DEVO_ADAPT_NONE && !isnan(run.mean_f))
      printf("adapted      mean F %.6g, mean CR %.6g of the last generation; memory mean F "
             "%.6g, CR %.6g\n",
             run.mean_f, run.mean_cr, run.memory_f, run.memory_cr);
    if (a->print_x) {
      printf("x            ");
      print_vector(stdout, x, dim, " ");
      printf("\n");
    }
  }
  return cli_stdout_done("solve");
}

/* Applies a setter's status: on error print the solver's message and give the exit code. */
static int setter(devo_solver *s, int st)
{
  if (st == DEVO_OK)
    return 0;
  cli_usage_error("solve", "%s", devo_solver_errmsg(s));
  return 1;
}

/* The objective value of --target E (NAN: none). fstar: the problem's optimum (NAN: unknown;
 * the target is then relative to 0). */
static double target_value(const solve_args *a, double fstar)
{
  double target = (double)NAN;
  if (!isnan(a->target)) {
    /* the largest value whose error best - f* (as printed) is <= E: f* + E rounded up let a run
     * stop with an error above E (found in review: E = 3e-14 at f* = 300 gave 5.7e-14) */
    const double f0 = isnan(fstar) ? 0.0 : fstar;
    target = f0 + a->target;
    while (target - f0 > a->target)
      target = nextafter(target, -(double)INFINITY);
  }
  return target;
}

/* The solver's options from a; 0, or 1 after printing the setter's message. */
static int apply_options(devo_solver *s, const solve_args *a, int backend, double fstar)
{
  const double target = target_value(a, fstar);
  return setter(s, devo_solver_set_np(s, a->np)) || setter(s, devo_solver_set_f(s, a->f)) ||
         setter(s, devo_solver_set_cr(s, a->cr)) || setter(s, devo_solver_set_seed(s, a->seed)) ||
         setter(s, devo_solver_set_bounds(s, a->bounds)) ||
         setter(s, devo_solver_set_threads(s, a->threads)) ||
         setter(s, devo_solver_set_backend(s, backend)) ||
         setter(s, devo_solver_set_gpu_design(s, a->design)) ||
         setter(s, devo_solver_set_max_evals(s, a->max_evals)) ||
         setter(s, devo_solver_set_max_generations(s, a->max_gens)) ||
         setter(s, devo_solver_set_time_limit(s, a->time_limit)) ||
         setter(s, devo_solver_set_target(s, target)) ||
         setter(s, devo_solver_set_variant(s, &a->var.v)) ||
         setter(s, devo_solver_set_islands(s, a->islands, a->mig_interval, a->topology));
}

/* The options checked on a stand-in problem (sphere, D = 2) before the real one is made: making
 * a CEC function's data at a large D takes seconds to minutes (O(D^3)), and a bad option was
 * reported only after that (found in review: 61 s for --np 3 at D = 2000). */
static int check_options(const solve_args *a)
{
  devo_problem *q = NULL;
  devo_solver *s = NULL;
  int rc;
  if (devo_problem_create(&q, NULL) != DEVO_OK ||
      devo_problem_set_builtin(q, "sphere", 2, 1, NULL) != DEVO_OK ||
      devo_solver_create(&s, q, NULL) != DEVO_OK) {
    devo_problem_destroy(q);
    return cli_runtime_error("solve", "out of memory");
  }
  rc = apply_options(s, a, a->backend, (double)NAN) ? CLI_USAGE : CLI_OK;
  devo_solver_destroy(s);
  devo_problem_destroy(q);
  return rc;
}

/* Under a launcher of N > 1 ranks (mpirun): with MPI, the ranks share the islands of one run
 * (tools/mpi_islands.c), so K >= 2 is needed; without MPI, N copies would print N answers. */
static int check_launcher(const solve_args *a)
{
  const int n = cli_launcher_size();
  if (n < 2)
    return CLI_OK;
#ifdef DEVO_HAVE_MPI
  if (a->islands < 2)
    return cli_usage_error("solve",
                           "started as one of %d MPI ranks: the ranks share the islands of one "
                           "run (--islands K, K >= 2); a single population runs without mpirun",
                           n);
  return CLI_OK;
#else
  (void)a;
  return cli_usage_error("solve",
                         "started as one of %d ranks (mpirun), but this devo was built without "
                         "MPI: each copy would print its own answer; run it without mpirun",
                         n);
#endif
}

/* devo_solve in this process, with the progress line on a terminal; the answer or the error in
 * r. */
static int solve_here(const solve_args *a, devo_problem *p, devo_solver *s, cli_solve_result *r)
{
  cli_progress prog;
  int st;
  /* on a terminal only: elsewhere no callback at all, so scripts get the run they always got */
  memset(&prog, 0, sizeof prog);
  if (cli_progress_wanted(a->quiet)) {
    cli_progress_solve(&prog, devo_problem_fstar(p), a->max_evals, a->max_gens, a->time_limit);
    (void)devo_solver_set_progress(s, cli_progress_update, &prog); /* cannot fail here */
  }
  active_solver = s;
  if (stop_signal) /* a signal while the problem was made: stop right after the first population */
    devo_interrupt(s);
  st = devo_solve(s);
  active_solver = NULL;
  cli_progress_done(&prog);
  if (st < 0)
    snprintf(r->err, sizeof r->err, "%s", devo_solver_errmsg(s));
  else
    result_of(s, a, r);
  return st;
}

/* The solve (here, or the islands over the MPI ranks that started this process) and its
 * answer (rank 0's only): the exit code. */
static int solve_and_report(const solve_args *a, devo_problem *p, devo_solver *s, int backend)
{
  cli_solve_result r;
  int st, rc = CLI_OK;
  memset(&r, 0, sizeof r);
  r.x = (double *)malloc((size_t)devo_problem_dim(p) * sizeof(double));
  if (!r.x)
    return cli_runtime_error("solve", "out of memory for the best vector");
#ifdef DEVO_HAVE_MPI
  if (a->islands > 1 && cli_launcher_size() > 1) {
    const cli_islands_job job = {&a->var,
                                 devo_problem_dim(p),
                                 a->np,
                                 a->threads,
                                 backend == DEVO_BACKEND_GPU ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU,
                                 a->max_evals,
                                 a->max_gens,
                                 target_value(a, devo_problem_fstar(p)),
                                 a->time_limit};
    st = cli_mpi_islands(s, &job, &r);
  } else
#endif
    st = solve_here(a, p, s, &r);
  (void)backend; /* the MPI run's only: solve_here's solver has it */
  if (st < 0) {
    rc = cli_exit_for_status(st);
    if (r.err[0])
      fprintf(stderr, "devo solve: %s\n", r.err);
  } else if (!r.silent) {
    if (a->verbose) {
      fprintf(stderr, "devo solve: %s\n", r.info);
      print_box(p);
    }
    rc = report(a, p, &r, st);
  }
  free(r.x);
  return rc;
}

int cmd_solve(int argc, char **argv)
{
  solve_args a;
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  char msg[256];
  int st, rc, backend;
  rc = parse(argc, argv, &a);
  if (!rc)
    rc = check_launcher(&a);
  if (rc)
    return rc;
  stop_signal = 0;
  catch_signals(on_signal);
  if (a.max_evals == 0 && a.max_gens == 0 && isnan(a.target) && a.time_limit == 0)
    a.max_evals = 10000 * (int64_t)a.dim;
  rc = check_options(&a);
  if (rc)
    return rc;
  if (devo_problem_create(&p, NULL) != DEVO_OK)
    return cli_runtime_error("solve", "out of memory");
  st = devo_problem_set_builtin(p, a.problem, a.dim, a.data_seed, a.cec_dir);
  if (st != DEVO_OK) {
    rc = st == DEVO_E_NOMEM ? cli_runtime_error("solve", "%s", devo_problem_errmsg(p))
                            : cli_usage_error("solve", "%s", devo_problem_errmsg(p));
    devo_problem_destroy(p);
    return rc;
  }
  rc = cli_apply_box("solve", p, a.ranges, a.lower, a.upper);
  if (rc) {
    devo_problem_destroy(p);
    return rc;
  }
  if (devo_solver_create(&s, p, NULL) != DEVO_OK) {
    devo_problem_destroy(p);
    return cli_runtime_error("solve", "out of memory");
  }
  backend = a.backend;
  /* probing also creates the CUDA context, so a GPU run's time limit does not pay for it */
  /* one rule for solve and schedule: without a usable GPU the run goes on on the CPU, saying so
   * in one line (the driver's own words only with --verbose); the JSON's "backend" says "cpu" */
  if (backend != DEVO_BACKEND_CPU && !devo_gpu_available(msg, sizeof msg)) {
    if (backend == DEVO_BACKEND_GPU)
      fprintf(stderr, "devo solve: no CUDA device; running on the CPU\n");
    if (a.verbose)
      fprintf(stderr, "devo solve: %s\n", msg);
    backend = DEVO_BACKEND_CPU;
  }
  rc = apply_options(s, &a, backend, devo_problem_fstar(p));
  if (rc) {
    devo_solver_destroy(s);
    devo_problem_destroy(p);
    return CLI_USAGE;
  }
  rc = solve_and_report(&a, p, s, backend);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  return rc;
}
