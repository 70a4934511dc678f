/* SPDX-License-Identifier: MIT */
/* test_gpu.c: the CUDA backend against the CPU reference. Every case skips (exit 77) where no
 * CUDA device is usable. Parity (README, "GPU backend"): the same seed gives a bit-identical
 * population after K generations on both backends, every coordinate of every kind (classic, CEC,
 * ETC); fitness values may differ in the last bits (an evaluation summed in a different order),
 * within 1e-12 relative (ETC: bit-identical too). Each parity case prints how many coordinates
 * are bit-identical and the largest differences. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "kernels/gpu_variants.cuh"
#include "tests/tcheck.h"

static void need_gpu(void)
{
  static char msg[256];
  if (!devo_gpu_available(msg, sizeof msg))
    TC_SKIP(msg);
}

typedef struct run_out {
  double *pop, *fit;
  double best;
  int status;
  devo_stats st;
  char info[DEVO__ERRLEN];
} run_out;

/* backend: DEVO_BACKEND_CPU, or DEVO_BACKEND_GPU with design = public design | variant bits. */
static void run_solver_p(devo_problem *p, const char *fn, int dim, int np, int backend, int design,
                         int64_t gens, double target, run_out *o)
{
  devo_solver *s = NULL;
  memset(o, 0, sizeof *o);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, np), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_f(s, 0.5), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_cr(s, 0.3), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_seed(s, 20240611u), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, backend), DEVO_OK);
  if (backend == DEVO_BACKEND_GPU) {
    CHECK_EQ_INT(devo_solver_set_gpu_design(s, design & DEVO__GPU_DESIGN_MASK), DEVO_OK);
    s->o.gpu_design = design; /* internal variant bits */
  }
  CHECK_EQ_INT(devo_solver_set_max_generations(s, gens), DEVO_OK);
  if (!isnan(target))
    CHECK_EQ_INT(devo_solver_set_target(s, target), DEVO_OK);
  o->status = devo_solve(s);
  CHECKF(o->status > 0, "%s D=%d NP=%d backend %d design 0x%x: %s (%s)", fn, dim, np, backend,
         design, devo_status_name(o->status), devo_solver_errmsg(s));
  o->pop = (double *)malloc((size_t)np * dim * sizeof(double));
  o->fit = (double *)malloc((size_t)np * sizeof(double));
  CHECK(o->pop && o->fit);
  CHECK_EQ_INT(devo_solver_population(s, o->pop, o->fit), DEVO_OK);
  CHECK_EQ_INT(devo_solver_best(s, &o->best, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_stats(s, &o->st), DEVO_OK);
  snprintf(o->info, sizeof o->info, "%s", devo_solver_backend_info(s));
  devo_solver_destroy(s);
}

static void run_solver(const char *fn, int dim, int np, int backend, int design, int64_t gens,
                       double target, run_out *o)
{
  devo_problem *p = NULL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, fn, dim, 7, NULL), DEVO_OK);
  run_solver_p(p, fn, dim, np, backend, design, gens, target, o);
  devo_problem_destroy(p);
}

static void free_out(run_out *o)
{
  free(o->pop);
  free(o->fit);
}

static double rel_diff(double a, double b)
{
  double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  if (a == b)
    return 0.0;
  return m > 0.0 ? fabs(a - b) / m : (double)INFINITY;
}

static void compare(const char *fn, int dim, int np, int design, const run_out *c, const run_out *g)
{
  size_t k, n = (size_t)np * dim, same = 0;
  double worst = 0.0, worst_fit = 0.0, rb;
  for (k = 0; k < n; ++k) {
    double r = rel_diff(c->pop[k], g->pop[k]);
    if (memcmp(&c->pop[k], &g->pop[k], sizeof(double)) == 0)
      same++;
    if (r > worst)
      worst = r;
  }
  for (k = 0; k < (size_t)np; ++k) {
    double r = rel_diff(c->fit[k], g->fit[k]);
    if (r > worst_fit)
      worst_fit = r;
  }
  rb = rel_diff(c->best, g->best);
  printf("  %-10s D=%-6d NP=%-4d design 0x%04x: %zu/%zu coordinates bit-identical, max rel "
         "diff %.2g; fitness max rel diff %.2g; best cpu %.17g gpu %.17g (rel %.2g)\n",
         fn, dim, np, design, same, n, worst, worst_fit, c->best, g->best, rb);
  CHECKF(same == n,
         "%s D=%d NP=%d design 0x%x: %zu of %zu coordinates differ (largest %.3g relative)", fn,
         dim, np, design, n - same, n, worst);
  CHECKF(worst_fit <= 1e-12, "%s D=%d NP=%d design 0x%x: fitness differs by %.3g relative", fn, dim,
         np, design, worst_fit);
  CHECKF(rb <= 1e-12, "%s D=%d NP=%d design 0x%x: best %.17g vs %.17g", fn, dim, np, design,
         c->best, g->best);
  CHECK_EQ_INT(g->st.generations, c->st.generations);
  CHECK_EQ_INT(g->st.evaluations, c->st.evaluations);
  CHECK_EQ_INT(g->st.backend, DEVO_BACKEND_GPU);
}

/* CPU once, then each GPU design in designs[] (terminated by -1). */
static void parity(const char *fn, const int *dims, const int *nps, const int *designs,
                   int64_t gens)
{
  int a, b, k;
  need_gpu();
  for (a = 0; dims[a] > 0; ++a)
    for (b = 0; nps[b] > 0; ++b) {
      run_out c, g;
      run_solver(fn, dims[a], nps[b], DEVO_BACKEND_CPU, 0, gens, (double)NAN, &c);
      for (k = 0; designs[k] >= 0; ++k) {
        run_solver(fn, dims[a], nps[b], DEVO_BACKEND_GPU, designs[k], gens, (double)NAN, &g);
        if (a == 0 && b == 0)
          printf("  info: %s\n", g.info);
        compare(fn, dims[a], nps[b], designs[k], &c, &g);
        free_out(&g);
      }
      free_out(&c);
    }
}

static const int dims_std[] = {10, 100, 1000, 0};
static const int nps_std[] = {64, 250, 0};
static const int fused_only[] = {DEVO_GPU_FUSED, -1};
static const int multi_only[] = {DEVO_GPU_MULTIKERNEL, -1};
static const int both[] = {DEVO_GPU_FUSED, DEVO_GPU_MULTIKERNEL, -1};
static const int every_variant[] = {DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_CG_BARRIER,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST |
                                        DEVO__GPU_BAR_RELAXED,
                                    DEVO_GPU_FUSED | DEVO__GPU_HALF_LANES | DEVO__GPU_CLASSIC,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_INLINE,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP,
                                    DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL | DEVO__GPU_CLASSIC,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_TRIAL_GLOBAL,
                                    DEVO_GPU_FUSED | DEVO__GPU_CLASSIC,
                                    DEVO_GPU_FUSED | DEVO__GPU_FAST,
                                    DEVO_GPU_FUSED | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_32,
                                    DEVO_GPU_FUSED | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_64,
                                    DEVO_GPU_MULTIKERNEL,
                                    -1};
/* kernels/gpu_fast.cu: its own choice and each forced width (C = 1, 2, 4 coordinates per
 * thread at D = 100; D = 1000 falls back to gpu_fused.cu) */
static const int fast_variants[] = {DEVO_GPU_FUSED | DEVO__GPU_FAST,
                                    DEVO_GPU_FUSED | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_32,
                                    DEVO_GPU_FUSED | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_64,
                                    DEVO_GPU_FUSED | DEVO__GPU_FAST | DEVO__GPU_FAST_LANES_128, -1};

/* The acceptance matrix: D = 10, 100, 1000, NP = 64, 250, 100 generations. */
TEST_CASE(parity_sphere)
{
  parity("sphere", dims_std, nps_std, fused_only, 100);
}

TEST_CASE(parity_rastrigin)
{
  parity("rastrigin", dims_std, nps_std, fused_only, 100);
}

TEST_CASE(parity_multikernel)
{
  parity("sphere", dims_std, nps_std, multi_only, 100);
  parity("rastrigin", dims_std, nps_std, multi_only, 100);
}

TEST_CASE(parity_rosenbrock_griewank)
{
  parity("rosenbrock", dims_std, nps_std, both, 100);
  parity("griewank", dims_std, nps_std, both, 100);
}

/* The acceptance matrix for gpu_fast.cu's kernel, every classic function. */
TEST_CASE(parity_fast)
{
  static const int dims[] = {10, 100, 200, 500, 0};
  parity("sphere", dims_std, nps_std, fast_variants, 100);
  parity("rastrigin", dims_std, nps_std, fast_variants, 100);
  parity("rastrigin", dims, nps_std, fast_variants, 100);
  parity("rosenbrock", dims, nps_std, fast_variants, 100);
  parity("griewank", dims, nps_std, fast_variants, 100);
}

/* Every chunk driver, index mode and trial storage, at the small and middle sizes. */
TEST_CASE(parity_variants)
{
  static const int dims[] = {1, 3, 10, 33, 100, 1000, 0};
  static const int nps[] = {4, 64, 0};
  parity("rastrigin", dims, nps, every_variant, 100);
  parity("rosenbrock", dims, nps, every_variant, 60);
}

/* A short case that exercises every kernel once, for compute-sanitizer (scripts/gpu_check.sh). */
TEST_CASE(parity_small)
{
  static const int dims[] = {10, 100, 0};
  static const int nps[] = {64, 0};
  parity("rastrigin", dims, nps, every_variant, 20);
  parity("griewank", dims, nps, both, 10);
  parity("griewank", dims, nps, fast_variants, 10);
  parity("rosenbrock", dims, nps, fast_variants, 10);
}

/* Large dimensions: opt-in shared memory above 48 KB (D = 20,000: 160 KB of trial) and the
 * global-memory trial with threads striding over 100,000 coordinates. */
TEST_CASE(parity_large_dim)
{
  static const int dims[] = {20000, 100000, 0};
  static const int nps[] = {8, 0};
  parity("rastrigin", dims, nps, both, 10);
  parity("rosenbrock", dims, nps, fused_only, 5);
}

/* Many vectors: the persistent kernel walks several rows per block. */
TEST_CASE(parity_large_np)
{
  static const int dims[] = {5, 200, 0};
  static const int nps[] = {20000, 0};
  parity("sphere", dims, nps, every_variant, 20);
}

/* A target reached inside a chunk stops at the end of that generation: the CPU and every GPU
 * variant stop at the same generation with the same best. The backend is also driven directly
 * with one chunk of 1000 generations, so the stop must come from the device flag. */
TEST_CASE(target_stop)
{
  static const int designs[] = {DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST,
                                DEVO_GPU_FUSED | DEVO__GPU_FAST,
                                DEVO_GPU_FUSED | DEVO__GPU_CLASSIC,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_CG_BARRIER,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_BAR_RELAXED,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP,
                                DEVO_GPU_MULTIKERNEL,
                                -1};
  run_out c50, c, g;
  double target;
  int k;
  need_gpu();
  run_solver("sphere", 20, 64, DEVO_BACKEND_CPU, 0, 50, (double)NAN, &c50);
  target = c50.best * (1.0 + 1e-9);
  run_solver("sphere", 20, 64, DEVO_BACKEND_CPU, 0, 1000, target, &c);
  CHECK_EQ_INT(c.status, DEVO_TARGET_REACHED);
  CHECK(c.st.generations <= 50);
  for (k = 0; designs[k] >= 0; ++k) {
    devo_problem *p;
    devo_solver *s;
    run_solver("sphere", 20, 64, DEVO_BACKEND_GPU, designs[k], 1000, target, &g);
    CHECK_EQ_INT(g.status, DEVO_TARGET_REACHED);
    CHECK_EQ_INT(g.st.generations, c.st.generations);
    CHECK_CLOSE(g.best, c.best, 1e-12, 0.0);
    compare("sphere", 20, 64, designs[k], &c, &g);
    free_out(&g);

    CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_problem_set_builtin(p, "sphere", 20, 7, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_np(s, 64), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_f(s, 0.5), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_cr(s, 0.3), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_seed(s, 20240611u), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_target(s, target), DEVO_OK);
    s->o.gpu_design = designs[k];
    CHECKF(devo__gpu_backend.start(s) == DEVO_OK, "start: %s", s->err);
    s->bk = &devo__gpu_backend;
    CHECKF(devo__gpu_backend.run(s, 1000) == DEVO_OK, "run: %s", s->err);
    CHECK_EQ_INT(s->gens, c.st.generations);
    CHECK_EQ_INT(s->evals, 64 * (c.st.generations + 1));
    CHECK_CLOSE(s->best_f, c.best, 1e-12, 0.0);
    devo__gpu_backend.stop(s);
    CHECK(s->bk_state == NULL);
    s->bk = NULL;
    devo_solver_destroy(s);
    devo_problem_destroy(p);
  }
  free_out(&c);
  free_out(&c50);
}

/* A population that cannot fit in device memory is refused before anything runs, with a clear
 * message; the same solver then runs a normal population (stop() after a failed start). */
TEST_CASE(error_too_big)
{
  devo_problem *p;
  devo_solver *s;
  int st;
  need_gpu();
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "sphere", 1000000, 7, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, 10000000), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_generations(s, 10), DEVO_OK);
  st = devo_solve(s);
  printf("  too big: %s: %s\n", devo_status_name(st), devo_solver_errmsg(s));
  CHECK_EQ_INT(st, DEVO_E_NOMEM);
  CHECK(strstr(devo_solver_errmsg(s), "does not fit in device memory") != NULL);
  CHECK(devo_solver_population(s, NULL, NULL) != DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, 16), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_generations(s, 3), DEVO_OK);
  st = devo_solve(s);
  CHECKF(st == DEVO_GEN_LIMIT, "%s: %s", devo_status_name(st), devo_solver_errmsg(s));
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

static int user_sum(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i, j;
  (void)ud;
  for (i = 0; i < n; ++i) {
    f[i] = 0.0;
    for (j = 0; j < dim; ++j)
      f[i] += x[i * dim + j];
  }
  return 0;
}

/* User objectives stay on the CPU; a stopped GPU state frees cleanly twice. */
TEST_CASE(error_user_problem)
{
  devo_problem *p;
  devo_solver *s;
  need_gpu();
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_user(p, 4, -1.0, 1.0, user_sum, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_generations(s, 3), DEVO_OK);
  CHECK_EQ_INT(devo_solve(s), DEVO_E_INVALID);
  /* the backend itself refuses it too */
  CHECK_EQ_INT(devo__gpu_backend.start(s), DEVO_E_INVALID);
  CHECK(s->bk_state == NULL);
  devo__gpu_backend.stop(s);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* The launch configuration is reported. */
TEST_CASE(backend_info)
{
  run_out g;
  need_gpu();
  run_solver("rastrigin", 100, 250, DEVO_BACKEND_GPU, DEVO_GPU_FUSED, 2, (double)NAN, &g);
  printf("  %s\n", g.info);
  CHECK(strncmp(g.info, "gpu: ", 5) == 0);
  CHECK(strstr(g.info, "threads/block") != NULL);
  CHECK(strstr(g.info, "fused") != NULL);
  free_out(&g);
  run_solver("sphere", 5, 1000, DEVO_BACKEND_GPU, DEVO_GPU_MULTIKERNEL, 2, (double)NAN, &g);
  printf("  %s\n", g.info);
  CHECK(strstr(g.info, "multikernel") != NULL);
  CHECK(strstr(g.info, "vectors/block") != NULL);
  free_out(&g);
}

/* Solves with a 0.1 s time limit end by the time limit within the library's promise,
 * max(1 ms, 1% of the limit) = 1 ms, measured around the call; the first solve of the process is
 * a warm-up (it creates the CUDA context, about 1 s) and is not counted. Every run not preempted
 * must keep the promise; fewer than 8 such runs: skipped as inconclusive. */
TIMED_CASE(deadline)
{
  devo_problem *p;
  devo_solver *s;
  tc_deadline d = tc_deadline_init("gpu, time limit 0.1 s", 0.001, 0.01, 0.0, 8);
  int k, r;
  need_gpu();
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "rastrigin", 100, 7, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, 250), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_time_limit(s, 0.1), DEVO_OK);
  r = devo_solve(s); /* warm-up */
  CHECKF(r == DEVO_TIME_LIMIT, "%s: %s", devo_status_name(r), devo_solver_errmsg(s));
  for (k = 0; k < 40 && !(tc_deadline_enough(&d) && k >= 20); ++k) {
    tc_mark m = tc_mark_now();
    r = devo_solve(s);
    tc_deadline_add(&d, m, 0.1);
    CHECKF(r == DEVO_TIME_LIMIT, "%s: %s", devo_status_name(r), devo_solver_errmsg(s));
  }
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  tc_deadline_end(&d);
}

/* ---- CEC F01..F10 and ETC scheduling (block kinds) ------------------------------------------ */

static uint64_t lcg_state = 0x9e3779b97f4a7c15ULL;
static double urand(void) /* [0, 1) */
{
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

/* GPU f at n points against devo_problem_eval, within tol relative; returns the largest
 * relative difference. */
static double gpu_vs_cpu_points(devo_problem *p, const double *x, int n, int dim, double tol,
                                const char *what)
{
  char err[512];
  double *f = (double *)malloc((size_t)n * sizeof(double)), worst = 0.0;
  int k, same = 0, st;
  CHECK(f != NULL);
  st = devo__gpu_eval_points(p, x, n, f, err, sizeof err);
  CHECKF(st == DEVO_OK, "%s: devo__gpu_eval_points: %s (%s)", what, devo_status_name(st), err);
  for (k = 0; k < n; ++k) {
    double c, r;
    CHECK_EQ_INT(devo_problem_eval(p, x + (size_t)k * dim, &c), DEVO_OK);
    r = rel_diff(c, f[k]);
    same += memcmp(&c, &f[k], sizeof c) == 0;
    if (r > worst)
      worst = r;
    CHECKF(r <= tol, "%s point %d: cpu %.17g gpu %.17g (rel %.3g)", what, k, c, f[k], r);
  }
  free(f);
  printf("  %s: %d points, %d bit-identical, max rel diff %.3g\n", what, n, same, worst);
  return worst;
}

/* Issue 4: every row of data/cec/reference, plus f(o) and 32 random points per function and
 * dimension, on the official data: the GPU kernel agrees with the CPU within 1e-12 relative. */
TEST_CASE(cec_reference)
{
  static const int dims[] = {10, 30, 50, 100};
  char dir[4096];
  const char *sh;
  double worst = 0.0;
  int id, di;
  need_gpu();
  sh = tc_shared("cec/reference/F01_D10.csv");
  if (!sh)
    TC_SKIP("data/cec/reference not found; set DEVO_SHARED");
  sh = tc_shared("cec");
  CHECK(sh != NULL);
  snprintf(dir, sizeof dir, "%s", sh);
  for (id = 1; id <= 10; ++id)
    for (di = 0; di < 4; ++di) {
      const int dim = dims[di], nrand = 32;
      char name[8], sub[64], what[96], *line = NULL;
      size_t cap = 0;
      int rows = 0, k;
      double *x = (double *)malloc((size_t)(16 + nrand) * (dim + 1) * sizeof(double)), w;
      devo_problem *p = NULL;
      FILE *f;
      CHECK(x != NULL);
      snprintf(name, sizeof name, "F%02d", id);
      CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
      CHECKF(devo_problem_set_builtin(p, name, dim, 0, dir) == DEVO_OK, "%s D=%d: %s", name, dim,
             devo_problem_errmsg(p));
      snprintf(sub, sizeof sub, "cec/reference/F%02d_D%d.csv", id, dim);
      sh = tc_shared(sub);
      CHECKF(sh != NULL, "missing %s", sub);
      f = fopen(sh, "r");
      CHECK(f != NULL);
      while (rows < 16 && getline(&line, &cap, f) > 0) {
        char *q = line, *end;
        for (k = 0; k < dim; ++k) {
          x[(size_t)rows * dim + k] = strtod(q, &end);
          CHECKF(end != q, "%s:%d: bad number", sub, rows + 1);
          q = end;
          if (*q == ',')
            ++q;
        }
        rows++;
      }
      fclose(f);
      free(line);
      CHECKF(rows >= 7, "%s: %d rows", sub, rows);
      /* f(o) (the first shift row) and random points of the box */
      memcpy(x + (size_t)rows * dim, p->view.shift, (size_t)dim * sizeof(double));
      rows++;
      for (k = 0; k < nrand; ++k, ++rows)
        for (int j = 0; j < dim; ++j)
          x[(size_t)rows * dim + j] = -100.0 + 200.0 * urand();
      snprintf(what, sizeof what, "%s D=%-3d official data (reference rows, f(o), random)", name,
               dim);
      w = gpu_vs_cpu_points(p, x, rows, dim, 1e-12, what);
      if (w > worst)
        worst = w;
      devo_problem_destroy(p);
      free(x);
    }
  printf("  cec_reference: largest GPU/CPU relative difference %.3g\n", worst);
}

/* Generated data (no data/ needed), including dimensions above the block size. Within
 * 1e-12 up to D = 200; at D = 1500, 1e-10: Schwefel (F04) near its optimum sums 1500 terms of
 * about -420 that cancel against +418.98 * D, so the summation order alone moves the result by
 * ~1e-10 of the bias (measured on the H100: 1.2e-11). */
TEST_CASE(cec_generated)
{
  static const int dims[] = {10, 50, 200, 1500, 0};
  int id, di;
  need_gpu();
  for (id = 1; id <= 10; ++id)
    for (di = 0; dims[di]; ++di) {
      const int dim = dims[di], n = dim > 500 ? 8 : 64;
      char name[8], what[64];
      double *x = (double *)malloc((size_t)n * dim * sizeof(double));
      devo_problem *p = NULL;
      CHECK(x != NULL);
      snprintf(name, sizeof name, "F%02d", id);
      CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
      CHECKF(devo_problem_set_builtin(p, name, dim, 3, NULL) == DEVO_OK, "%s D=%d: %s", name, dim,
             devo_problem_errmsg(p));
      memcpy(x, p->view.shift, (size_t)dim * sizeof(double));
      for (size_t k = (size_t)dim; k < (size_t)n * dim; ++k)
        x[k] = -100.0 + 200.0 * urand();
      snprintf(what, sizeof what, "%s D=%d generated data", name, dim);
      gpu_vs_cpu_points(p, x, n, dim, dim > 200 ? 1e-10 : 1e-12, what);
      devo_problem_destroy(p);
      free(x);
    }
}

/* DE parity on CEC functions: a simple (rotation staged in the persistent kernel), a hybrid and
 * a composition, every design; generated data (official data where present for D = 100). */
static void cec_parity(const char *fn, int dim, int np, int64_t gens, const int *designs)
{
  char dir[4096];
  const char *sh = tc_shared("cec/cec2017");
  devo_problem *p = NULL;
  run_out c, g;
  int k;
  dir[0] = 0;
  if (sh && (dim == 10 || dim == 30 || dim == 50 || dim == 100)) {
    sh = tc_shared("cec");
    snprintf(dir, sizeof dir, "%s", sh ? sh : "");
  }
  if (!dir[0] && (dim == 10 || dim == 30 || dim == 50 || dim == 100))
    tc_skip_after("the official-data runs need data/cec (set DEVO_SHARED); generated data "
                  "ran instead");
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, fn, dim, 7, dir[0] ? dir : NULL) == DEVO_OK, "%s: %s", fn,
         devo_problem_errmsg(p));
  run_solver_p(p, fn, dim, np, DEVO_BACKEND_CPU, 0, gens, (double)NAN, &c);
  for (k = 0; designs[k] >= 0; ++k) {
    run_solver_p(p, fn, dim, np, DEVO_BACKEND_GPU, designs[k], gens, (double)NAN, &g);
    printf("  info (%s, %s data): %s\n", fn, dir[0] ? "official" : "generated", g.info);
    if (dim <= 128 && !strstr(g.info, "(sm_9"))
      tc_skip_after("the kernel-choice checks (gpu_cec.cu, tensor cores, clusters) need sm_90");
    /* the default at D <= 128 on sm_90 is gpu_cec.cu (one block where a single matrix is
     * staged, else two-block clusters): prove that it ran; DEVO__GPU_CEC_PAIR: the clusters */
    if (designs[k] == DEVO_GPU_FUSED && dim <= 128 && strstr(g.info, "(sm_9")) {
      CHECKF(strstr(g.info, "gpu_cec.cu") != NULL, "%s D=%d NP=%d: default not gpu_cec.cu: %s", fn,
             dim, np, g.info);
      if (p->view.ncomp == 1)
        CHECKF(strstr(g.info, "gpu_cec.cu (one block") != NULL, "%s D=%d: not one block: %s", fn,
               dim, g.info);
    }
    /* a composition's products: the tensor cores by default, multiply-adds when asked */
    if ((designs[k] & ~DEVO__GPU_CEC_FMA) == DEVO_GPU_FUSED && dim <= 128 && p->view.ncomp > 1 &&
        strstr(g.info, "(sm_9"))
      CHECKF((strstr(g.info, "tensor cores") != NULL) == (designs[k] == DEVO_GPU_FUSED),
             "%s D=%d design %#x: %s", fn, dim, (unsigned)designs[k], g.info);
    if (designs[k] == (DEVO_GPU_FUSED | DEVO__GPU_CEC_PAIR) && dim <= 128 &&
        strstr(g.info, "(sm_9"))
      CHECKF(strstr(g.info, "gpu_cec.cu (two-block clusters") != NULL, "%s D=%d: no pair: %s", fn,
             dim, g.info);
    compare(fn, dim, np, designs[k], &c, &g);
    free_out(&g);
  }
  free_out(&c);
  devo_problem_destroy(p);
}

static const int blk_designs[] = {DEVO_GPU_FUSED,
                                  DEVO_GPU_FUSED | DEVO__GPU_CLASSIC,
                                  DEVO_GPU_FUSED | DEVO__GPU_STAGE_OFF,
                                  DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_INLINE,
                                  DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP |
                                      DEVO__GPU_STAGE_ON,
                                  DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL | DEVO__GPU_MAX_LANES(64),
                                  DEVO_GPU_FUSED | DEVO__GPU_CEC_FMA,
                                  DEVO_GPU_FUSED | DEVO__GPU_CEC_VL1,
                                  DEVO_GPU_FUSED | DEVO__GPU_CEC_PAIR,
                                  DEVO_GPU_MULTIKERNEL,
                                  -1};

TEST_CASE(cec_parity_de)
{
  need_gpu();
  cec_parity("F03", 100, 250, 50, blk_designs);
  cec_parity("F05", 100, 64, 50, blk_designs);
  cec_parity("F10", 100, 250, 30, blk_designs);
  cec_parity("F01", 30, 64, 50, blk_designs);
  cec_parity("F07", 50, 64, 50, blk_designs);
  cec_parity("F08", 10, 16, 50, blk_designs);
  /* the other four through the default (gpu_cec.cu at NP = 64: one vector per block) and the
   * block evaluator */
  {
    static const int two[] = {DEVO_GPU_FUSED, DEVO_GPU_FUSED | DEVO__GPU_CLASSIC,
                              DEVO_GPU_FUSED | DEVO__GPU_CEC_PAIR, -1};
    cec_parity("F02", 100, 250, 40, two);
    cec_parity("F04", 50, 64, 40, two);
    cec_parity("F06", 100, 250, 40, two);
    cec_parity("F09", 30, 64, 40, two);
    cec_parity("F09", 100, 250, 30, two);
    cec_parity("F07", 100, 250, 30, two);
  }
}

/* ---- SOCO 2010 F1..F19 (issue 22): group kind of the general kernels ---------------------- */

/* f on the GPU against the CPU at the optimum (f* exactly on both) and 31 points uniform in the
 * box, from each function's smallest D to 10,000 (lanes striding above the block limit; D < 32:
 * several vectors per warp, where F8's scan is a segment scan). */
TEST_CASE(soco_eval)
{
  static const int dims[] = {0, 5, 31, 50, 33, 1000, 1500, 10000, -1};
  int id, di;
  need_gpu();
  for (id = 1; id <= 19; ++id)
    for (di = 0; dims[di] >= 0; ++di) {
      const int n = 32;
      char name[16], what[64], err[256];
      double lo, hi, fo = 0.0;
      devo_problem *p = NULL;
      devo_builtin_info b;
      CHECK_EQ_INT(devo_builtin_get(devo_builtin_count() - 19 + id - 1, &b), DEVO_OK);
      const int dim = dims[di] ? dims[di] : b.min_dim;
      if (dim < b.min_dim)
        continue;
      double *x = (double *)malloc((size_t)n * dim * sizeof(double));
      CHECK(x != NULL);
      snprintf(name, sizeof name, "soco:f%d", id);
      CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
      CHECKF(devo_problem_set_builtin(p, name, dim, 3, NULL) == DEVO_OK, "%s",
             devo_problem_errmsg(p));
      CHECK_EQ_INT(devo_problem_bounds(p, &lo, &hi), DEVO_OK);
      CHECK_EQ_INT(devo_problem_optimum(p, x), DEVO_OK);
      CHECKF(devo__gpu_eval_points(p, x, 1, &fo, err, sizeof err) == DEVO_OK, "%s", err);
      CHECKF(fo == devo_problem_fstar(p), "%s D=%d: GPU f(o) = %.17g", name, dim, fo);
      for (size_t k = (size_t)dim; k < (size_t)n * dim; ++k)
        x[k] = lo + (hi - lo) * urand();
      snprintf(what, sizeof what, "%s D=%d", name, dim);
      gpu_vs_cpu_points(p, x, n, dim, 1e-12, what);
      devo_problem_destroy(p);
      free(x);
    }
}

/* DE parity (populations after K generations, as the classic parity cases) on every SOCO
 * function at D = 10 (several vectors per warp), 50 and 1000, both designs. */
TEST_CASE(soco_parity_de)
{
  static const int dims[] = {10, 50, 1000, 0};
  static const int nps[] = {64, 0};
  int id;
  for (id = 1; id <= 19; ++id) {
    char name[16];
    snprintf(name, sizeof name, "soco:f%d", id);
    parity(name, dims, nps, both, 30);
  }
}

/* A random Braun-like matrix (U[1,3000) * U[1,1000)). */
static devo_etc *random_etc(int n, int m)
{
  devo_etc *e = NULL;
  double *v = (double *)malloc((size_t)n * m * sizeof(double));
  char err[256];
  CHECK(v != NULL);
  for (size_t k = 0; k < (size_t)n * m; ++k)
    v[k] = (1.0 + 2999.0 * urand()) * (1.0 + 999.0 * urand());
  CHECKF(devo_etc_create(&e, n, m, v, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  free(v);
  return e;
}

/* Issue 5: makespan and flowtime of 10,000 random schedules on the GPU equal the CPU's
 * (devo_etc_evaluate) bit for bit, FCFS and SPT, three sizes. The GPU returns the objective:
 * a lambda = 1 problem gives the makespan itself, a lambda = 0 problem flowtime / m (m is a
 * power of two here, so the division is exact and equal quotients mean equal flowtimes); the
 * default lambda = 0.75 objective is compared with devo_problem_eval as well. Random vectors
 * include integral values, the bounds, values outside [0, m) (clamped), NaN, infinities and
 * values beyond the int range (the device decode clamps them without branches). */
TEST_CASE(etc_eval_parity)
{
  static const int sizes[3][2] = {{128, 8}, {512, 16}, {4096, 64}};
  const int total = 10000, batch = 2500;
  int si;
  need_gpu();
  for (si = 0; si < 3; ++si) {
    const int n = sizes[si][0], m = sizes[si][1];
    devo_etc *e = random_etc(n, m);
    double ready[64];
    char err[256];
    for (int j = 0; j < m; ++j)
      ready[j] = j % 3 == 0 ? 0.0 : 1000.0 * urand();
    if (si == 1)
      CHECKF(devo_etc_set_ready(e, ready, err, sizeof err) == DEVO_OK, "%s", err);
    for (int order = DEVO_ORDER_FCFS; order <= DEVO_ORDER_SPT; ++order) {
      devo_problem *pm = NULL, *pf = NULL, *po = NULL;
      double *x = (double *)malloc((size_t)batch * n * sizeof(double));
      double *fm = (double *)malloc((size_t)batch * sizeof(double));
      double *ff = (double *)malloc((size_t)batch * sizeof(double));
      double *fo = (double *)malloc((size_t)batch * sizeof(double));
      int *as = (int *)malloc((size_t)n * sizeof(int)), done = 0, same = 0;
      CHECK(x && fm && ff && fo && as);
      CHECK_EQ_INT(devo_problem_create(&pm, NULL), DEVO_OK);
      CHECK_EQ_INT(devo_problem_create(&pf, NULL), DEVO_OK);
      CHECK_EQ_INT(devo_problem_create(&po, NULL), DEVO_OK);
      CHECK_EQ_INT(devo_problem_set_etc(pm, e, 1.0, order, DEVO_ETC_SEED_NONE), DEVO_OK);
      CHECK_EQ_INT(devo_problem_set_etc(pf, e, 0.0, order, DEVO_ETC_SEED_NONE), DEVO_OK);
      CHECK_EQ_INT(devo_problem_set_etc(po, e, 0.75, order, DEVO_ETC_SEED_NONE), DEVO_OK);
      while (done < total) {
        for (int k = 0; k < batch; ++k) {
          /* skewed schedules too: a share of tasks crowded on one machine (long segments) */
          const int crowd = k % 7 == 0 ? (int)(urand() * m) : -1;
          for (int t = 0; t < n; ++t) {
            double r = urand(), v = r * m;
            if (crowd >= 0 && urand() < 0.6)
              v = crowd + urand();
            else if (r < 0.01)
              v = (double)(int)(urand() * (m + 1)); /* integral, m included */
            else if (r < 0.012) { /* what the decode must clamp: NaN, infinities, beyond int */
              const double sp[] = {(double)NAN,  (double)INFINITY, -(double)INFINITY,    -0.0,
                                   1e300,        -1e300,           0x1.fffffffffffffp-1, m - 1e-12,
                                   2147483648.0, -2147483649.0};
              v = sp[(int)(urand() * 10) % 10];
            } else if (r > 0.995)
              v = urand() < 0.5 ? -0.5 - urand() : m + urand() * 3.0;
            x[(size_t)k * n + t] = v;
          }
        }
        CHECKF(devo__gpu_eval_points(pm, x, batch, fm, err, sizeof err) == DEVO_OK, "%s", err);
        CHECKF(devo__gpu_eval_points(pf, x, batch, ff, err, sizeof err) == DEVO_OK, "%s", err);
        CHECKF(devo__gpu_eval_points(po, x, batch, fo, err, sizeof err) == DEVO_OK, "%s", err);
        for (int k = 0; k < batch; ++k) {
          double ms, ft, obj;
          CHECK_EQ_INT(devo_problem_etc_decode(pm, x + (size_t)k * n, as), DEVO_OK);
          CHECK_EQ_INT(devo_etc_evaluate(e, as, order, &ms, &ft), DEVO_OK);
          CHECK_EQ_INT(devo_problem_eval(po, x + (size_t)k * n, &obj), DEVO_OK);
          CHECKF(memcmp(&ms, &fm[k], sizeof ms) == 0,
                 "%dx%d order %d schedule %d: makespan cpu %.17g gpu %.17g", n, m, order, done + k,
                 ms, fm[k]);
          CHECKF(ft / m == ff[k], "%dx%d order %d schedule %d: flowtime cpu %.17g gpu %.17g", n, m,
                 order, done + k, ft, ff[k] * m);
          CHECKF(memcmp(&obj, &fo[k], sizeof obj) == 0,
                 "%dx%d order %d schedule %d: objective cpu %.17g gpu %.17g", n, m, order, done + k,
                 obj, fo[k]);
          same++;
        }
        done += batch;
      }
      printf("  etc %dx%d %s%s: %d random schedules, makespan, flowtime and objective "
             "bit-identical on GPU and CPU\n",
             n, m, order == DEVO_ORDER_SPT ? "SPT" : "FCFS", si == 1 ? " (ready times)" : "", same);
      devo_problem_destroy(pm);
      devo_problem_destroy(pf);
      devo_problem_destroy(po);
      free(x);
      free(fm);
      free(ff);
      free(fo);
      free(as);
    }
    devo_etc_destroy(e);
  }
}

/* DE parity on an ETC problem with heuristic seeds: the GPU's initial population starts with
 * the seeds (checked right after start), and the populations after 50 generations equal the
 * CPU's (the schedule evaluation is exact on both sides). */
static void etc_parity_ex(int n, int m, int order, int np, const int *designs, int with_ready)
{
  devo_etc *e = random_etc(n, m);
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  run_out c, g;
  char fn[32];
  int k;
  if (with_ready) {
    double ready[64];
    char err[256];
    for (k = 0; k < m && k < 64; ++k)
      ready[k] = k % 3 == 0 ? 0.0 : 1000.0 * urand();
    CHECKF(devo_etc_set_ready(e, ready, err, sizeof err) == DEVO_OK, "%s", err);
  }
  snprintf(fn, sizeof fn, "etc%dx%d%s%s", n, m, order == DEVO_ORDER_SPT ? "spt" : "",
           with_ready ? "W" : "");
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_etc(p, e, 0.75, order, DEVO_ETC_SEED_PLAIN), DEVO_OK);
  CHECK(p->nseeds >= 1 && p->seeds != NULL);
  /* the seeds over the first individuals of the GPU's initial population */
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, np), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_seed(s, 20240611u), DEVO_OK);
  CHECKF(devo__gpu_backend.start(s) == DEVO_OK, "start: %s", s->err);
  s->bk = &devo__gpu_backend;
  {
    double *pop = (double *)malloc((size_t)np * n * sizeof(double));
    const int ns = p->nseeds < np - 4 ? p->nseeds : np - 4;
    CHECK(pop != NULL);
    CHECK_EQ_INT(devo__gpu_backend.population(s, pop, NULL), DEVO_OK);
    CHECK(memcmp(pop, p->seeds, (size_t)ns * n * sizeof(double)) == 0);
    printf("  %s: %d heuristic seeds are the first individuals of the GPU's population\n", fn, ns);
    free(pop);
  }
  devo__gpu_backend.stop(s);
  s->bk = NULL;
  devo_solver_destroy(s);
  run_solver_p(p, fn, n, np, DEVO_BACKEND_CPU, 0, 50, (double)NAN, &c);
  for (k = 0; designs[k] >= 0; ++k) {
    run_solver_p(p, fn, n, np, DEVO_BACKEND_GPU, designs[k], 50, (double)NAN, &g);
    printf("  info (%s): %s\n", fn, g.info);
    /* a forced warp kernel runs where it applies (FCFS, m <= 32, n <= 512), version 1 when
     * asked for or where the others' shared memory does not fit */
    if (!strstr(g.info, "(sm_"))
      tc_skip_after("backend info names no sm_ architecture: the kernel-choice checks did not run");
    if ((designs[k] & DEVO__GPU_ETC_WARP) && order == DEVO_ORDER_FCFS && m <= 32 && n <= 512 &&
        strstr(g.info, "(sm_")) {
      CHECKF(strstr(g.info, "generations by gpu_etc.cu version") != NULL,
             "%s design %#x: no warp kernel: %s", fn, (unsigned)designs[k], g.info);
      if ((designs[k] & DEVO__GPU_ETC_WARP1) == DEVO__GPU_ETC_WARP1)
        CHECKF(strstr(g.info, "gpu_etc.cu version 1") != NULL, "%s: not version 1: %s", fn, g.info);
    }
    compare(fn, n, np, designs[k], &c, &g);
    {
      /* the schedule evaluation is exact on both sides: every bit, not within 1e-12 */
      size_t q, same_x = 0, same_f = 0;
      for (q = 0; q < (size_t)np * n; ++q)
        same_x += memcmp(&c.pop[q], &g.pop[q], sizeof(double)) == 0;
      for (q = 0; q < (size_t)np; ++q)
        same_f += memcmp(&c.fit[q], &g.fit[q], sizeof(double)) == 0;
      CHECKF(same_x == (size_t)np * n && same_f == (size_t)np,
             "%s design 0x%x: %zu/%zu coordinates, %zu/%d fitness values bit-identical", fn,
             designs[k], same_x, (size_t)np * n, same_f, np);
    }
    free_out(&g);
  }
  free_out(&c);
  devo_problem_destroy(p);
  devo_etc_destroy(e);
}

/* The block designs plus the block evaluator v2 in the persistent kernel: where gpu_etc.cu's
 * warp kernel applies (FCFS, m <= 32, n <= 512), DEVO_GPU_FUSED runs it, so both evaluators of
 * the default path are compared with the CPU. (DEVO__GPU_CEC_VL1 and DEVO__GPU_CEC_PAIR are the
 * bits of DEVO__GPU_ETC_WARP and DEVO__GPU_ETC_BLOCK: listed here too, they ran those twice.) */
static const int etc_designs[] = {DEVO_GPU_FUSED,
                                  DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP,
                                  DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP | DEVO__GPU_ETC_SOLO,
                                  DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP1,
                                  DEVO_GPU_FUSED | DEVO__GPU_ETC_BLOCK,
                                  DEVO_GPU_FUSED | DEVO__GPU_STAGE_OFF,
                                  DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_INLINE,
                                  DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP |
                                      DEVO__GPU_STAGE_ON,
                                  DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL | DEVO__GPU_MAX_LANES(64),
                                  DEVO_GPU_FUSED | DEVO__GPU_ETC_V1,
                                  DEVO_GPU_MULTIKERNEL,
                                  -1};

static void etc_parity(int n, int m, int order, int np, const int *designs)
{
  etc_parity_ex(n, m, order, np, designs, 0);
}

TEST_CASE(etc_parity_de)
{
  static const int np1024[] = {DEVO_GPU_FUSED, DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP,
                               DEVO_GPU_FUSED | DEVO__GPU_ETC_SOLO,
                               DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP1, -1};
  need_gpu();
  etc_parity(512, 16, DEVO_ORDER_FCFS, 64, etc_designs);
  etc_parity(512, 16, DEVO_ORDER_SPT, 64, etc_designs);
  etc_parity(100, 8, DEVO_ORDER_FCFS, 30, etc_designs);
  etc_parity(4096, 64, DEVO_ORDER_FCFS, 32, etc_designs);
  /* the warp kernels with ready times: 8 schedules per block; 3 per block with m = 32 lanes
   * (version 3 with C = 4 by default, version 2 with C = 8 by DEVO__GPU_ETC_SOLO); 8 per block
   * where version 2's shared memory does not fit (version 1 runs) */
  etc_parity_ex(512, 16, DEVO_ORDER_FCFS, 1024, np1024, 1);
  etc_parity_ex(200, 32, DEVO_ORDER_FCFS, 300, np1024, 1);
  etc_parity_ex(400, 32, DEVO_ORDER_FCFS, 1024, np1024, 1);
}

/* The ETC part of blk_small alone (a quicker compute-sanitizer target): SPT through the block
 * evaluators, FCFS through gpu_etc.cu's warp kernel by default, every design (DEVO__GPU_CEC_FMA:
 * the CEC compositions by multiply-adds; for ETC the same bit is DEVO__GPU_ETC_V1). */
static const int blk_small_designs[] = {DEVO_GPU_FUSED,
                                        DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP,
                                        DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP | DEVO__GPU_ETC_SOLO,
                                        DEVO_GPU_FUSED | DEVO__GPU_ETC_WARP1,
                                        DEVO_GPU_FUSED | DEVO__GPU_STAGE_OFF,
                                        DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_STAGE_ON,
                                        DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL |
                                            DEVO__GPU_MAX_LANES(32),
                                        DEVO_GPU_FUSED | DEVO__GPU_ETC_V1 | DEVO__GPU_MAX_LANES(64),
                                        DEVO_GPU_FUSED | DEVO__GPU_CEC_PAIR,
                                        DEVO_GPU_FUSED | DEVO__GPU_CEC_FMA,
                                        DEVO_GPU_MULTIKERNEL,
                                        -1};

TEST_CASE(etc_small)
{
  need_gpu();
  etc_parity(96, 8, DEVO_ORDER_SPT, 16, blk_small_designs);
  etc_parity(96, 8, DEVO_ORDER_FCFS, 16, blk_small_designs); /* gpu_etc.cu's warp kernel */
  /* n = 200: version 3 (two warps per schedule, 4 coordinates per lane; the last chunks
   * partly past n) by DEVO__GPU_ETC_WARP, version 2 (8 per lane) with DEVO__GPU_ETC_SOLO */
  etc_parity(200, 8, DEVO_ORDER_FCFS, 16, blk_small_designs);
}

/* Two solvers on two threads share the kernels (devo.h: every function is re-entrant across
 * handles). Found in review: each plan set the kernel's dynamic shared memory attribute to its
 * own need, so B's plan of the same warp kernel (devo__k_etcw<8, 2>: 300 x 16 with one schedule
 * per block, 57 KB) made every later launch of A (512 x 16, eight per block, 208 KB) fail. B
 * starts once A has run a chunk (A's progress callback), while A has many chunks to go. */
typedef struct conc_job {
  devo_etc *e;
  int np;
  int64_t gens;
  int status, wait_for_a;
  char err[DEVO__ERRLEN];
} conc_job;

static atomic_int conc_a_running, conc_a_done; /* B never waits for an A that failed */

static int conc_progress(void *ud, const devo_progress *pr)
{
  (void)ud;
  if (pr->generation > 0)
    atomic_store(&conc_a_running, 1);
  return 0;
}

static void *conc_run(void *arg)
{
  conc_job *j = (conc_job *)arg;
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  while (j->wait_for_a && !atomic_load(&conc_a_running) && !atomic_load(&conc_a_done))
    ;
  j->status = devo_problem_create(&p, NULL);
  if (j->status == DEVO_OK)
    j->status = devo_problem_set_etc(p, j->e, 0.75, DEVO_ORDER_FCFS, DEVO_ETC_SEED_NONE);
  if (j->status == DEVO_OK)
    j->status = devo_solver_create(&s, p, NULL);
  if (j->status == DEVO_OK && (j->status = devo_solver_set_np(s, j->np)) == DEVO_OK &&
      (j->status = devo_solver_set_backend(s, DEVO_BACKEND_GPU)) == DEVO_OK &&
      (j->status = devo_solver_set_max_generations(s, j->gens)) == DEVO_OK &&
      (j->status = devo_solver_set_progress(s, j->wait_for_a ? NULL : conc_progress, NULL)) ==
          DEVO_OK)
    j->status = devo_solve(s);
  snprintf(j->err, sizeof j->err, "%s", s ? devo_solver_errmsg(s) : "");
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  if (!j->wait_for_a)
    atomic_store(&conc_a_done, 1);
  return NULL;
}

TEST_CASE(concurrent_solvers)
{
  conc_job a, b;
  pthread_t ta, tb;
  need_gpu();
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.e = random_etc(512, 16);
  a.np = 1024;
  a.gens = 100000;
  b.e = random_etc(300, 16);
  b.np = 64;
  b.gens = 50;
  b.wait_for_a = 1;
  atomic_store(&conc_a_running, 0);
  atomic_store(&conc_a_done, 0);
  CHECK(pthread_create(&ta, NULL, conc_run, &a) == 0);
  CHECK(pthread_create(&tb, NULL, conc_run, &b) == 0);
  pthread_join(tb, NULL);
  pthread_join(ta, NULL);
  printf("  A (512 x 16, NP 1024): %s; B (300 x 16, NP 64): %s\n", devo_status_name(a.status),
         devo_status_name(b.status));
  CHECKF(a.status == DEVO_GEN_LIMIT, "A: %s: %s", devo_status_name(a.status), a.err);
  CHECKF(b.status == DEVO_GEN_LIMIT, "B: %s: %s", devo_status_name(b.status), b.err);
  devo_etc_destroy(a.e);
  devo_etc_destroy(b.e);
}

/* A short case of the block kinds for compute-sanitizer (scripts/gpu_check.sh). */
TEST_CASE(blk_small)
{
  const int *designs = blk_small_designs;
  need_gpu();
  cec_parity("F10", 10, 16, 5, designs);
  cec_parity("F09", 30, 16, 5, designs); /* gpu_cec.cu's elliptic coefficients */
  cec_parity("F06", 30, 16, 5, designs);
  cec_parity("F02", 40, 16, 5, designs);
  etc_small();
}

/* ---- the naive GPU model (DEVO_GPU_NAIVE, issue 23) -------------------------------------- */

/* DE on the CPU, each generation's trials evaluated on the GPU: the trials and selections are
 * the 1-thread CPU's, so the population after K generations equals the CPU's bit for bit
 * (compare(): memcmp of every coordinate) wherever no trial and its target are closer than the
 * GPU/CPU fitness difference; the fitness values themselves agree within 1e-12 relative (the
 * evaluation kernel sums in another order, and CUDA's cos/exp may differ from libm's in the last
 * bit), ETC exactly. The same K, the same evaluation counts, devo_stats.backend = GPU. */
static const int naive_only[] = {DEVO_GPU_NAIVE, -1};

/* A variant (best2exp + jDE + GOBL) on the naive model against the 1-thread CPU: every
 * coordinate, and jDE's F_i and CR_i (computed on the CPU on both sides) bit for bit. */
static void naive_variant(const char *fn, int dim, int np, int64_t gens)
{
  double *pop[2], *F[2], *CR[2];
  devo_problem *p = NULL;
  size_t n = (size_t)np * dim, same = 0, k;
  int b;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, fn, dim, 7, NULL), DEVO_OK);
  for (b = 0; b < 2; ++b) {
    devo_solver *s = NULL;
    devo_stats st;
    int r;
    pop[b] = (double *)malloc(n * sizeof(double));
    F[b] = (double *)malloc((size_t)np * sizeof(double));
    CR[b] = (double *)malloc((size_t)np * sizeof(double));
    CHECK(pop[b] && F[b] && CR[b]);
    CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_np(s, np), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_seed(s, 20240611u), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_strategy_name(s, "best2exp"), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, 0.0, 1.0), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_gobl(s, 0.05), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_max_generations(s, gens), DEVO_OK);
    if (b == 1) {
      CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
      CHECK_EQ_INT(devo_solver_set_gpu_design(s, DEVO_GPU_NAIVE), DEVO_OK);
    }
    r = devo_solve(s);
    CHECKF(r > 0, "%s naive variant: %s (%s)", fn, devo_status_name(r), devo_solver_errmsg(s));
    CHECK_EQ_INT(devo_solver_population(s, pop[b], NULL), DEVO_OK);
    CHECK_EQ_INT(devo_solver_jde_state(s, F[b], CR[b]), DEVO_OK);
    CHECK_EQ_INT(devo_solver_stats(s, &st), DEVO_OK);
    CHECK_EQ_INT(st.generations, gens);
    CHECK_EQ_INT(st.backend, b ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU);
    if (b)
      printf("  info: %s\n", devo_solver_backend_info(s));
    devo_solver_destroy(s);
  }
  for (k = 0; k < n; ++k)
    same += memcmp(&pop[0][k], &pop[1][k], sizeof(double)) == 0;
  printf("  %s D=%d NP=%d best2exp+jDE+GOBL naive: %zu/%zu coordinates bit-identical\n", fn, dim,
         np, same, n);
  CHECKF(same == n, "%s naive variant: %zu of %zu coordinates differ", fn, n - same, n);
  CHECK(memcmp(F[0], F[1], (size_t)np * sizeof(double)) == 0);
  CHECK(memcmp(CR[0], CR[1], (size_t)np * sizeof(double)) == 0);
  for (b = 0; b < 2; ++b) {
    free(pop[b]);
    free(F[b]);
    free(CR[b]);
  }
  devo_problem_destroy(p);
}

TEST_CASE(naive_parity)
{
  static const int dims[] = {10, 100, 0};
  static const int nps[] = {64, 250, 0};
  static const char *const cec[] = {"F01", "F02", "F03", "F04", "F05",
                                    "F06", "F07", "F08", "F09", "F10"};
  int k;
  need_gpu();
  parity("rastrigin", dims, nps, naive_only, 50);
  parity("griewank", dims, nps, naive_only, 50);
  for (k = 0; k < 10; ++k)
    cec_parity(cec[k], 100, 100, 40, naive_only);
  cec_parity("F05", 30, 64, 50, naive_only);
  naive_variant("rastrigin", 100, 64, 40);
  etc_parity(100, 8, DEVO_ORDER_FCFS, 30, naive_only); /* ETC: every fitness bit too */
}

/* Without a usable device (or CUDA) the naive model fails at the start with DEVO_E_NODEVICE and
 * a message naming it; a user objective is refused as for every GPU design. */
static int user_sphere(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i, j;
  (void)ud;
  for (i = 0; i < n; ++i) {
    f[i] = 0.0;
    for (j = 0; j < dim; ++j)
      f[i] += x[i * dim + j] * x[i * dim + j];
  }
  return 0;
}

TEST_CASE(naive_refusals)
{
  devo_problem *p = NULL, *u = NULL;
  devo_solver *s = NULL;
  int r;
  CHECK_EQ_INT(devo_problem_create(&u, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_user(u, 3, -1.0, 1.0, user_sphere, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_create(&s, u, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_gpu_design(s, DEVO_GPU_NAIVE), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_generations(s, 3), DEVO_OK);
  CHECK_EQ_INT(devo_solve(s), DEVO_E_INVALID);
  devo_solver_destroy(s);
  devo_problem_destroy(u);
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "sphere", 10, 1, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_gpu_design(s, 3), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_gpu_design(s, DEVO_GPU_NAIVE), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_generations(s, 3), DEVO_OK);
  r = devo_solve(s);
  if (devo_gpu_available(NULL, 0)) {
    CHECKF(r == DEVO_GEN_LIMIT, "%s", devo_solver_errmsg(s));
    CHECK(strstr(devo_solver_backend_info(s), "naive gpu") != NULL);
  } else {
    CHECK_EQ_INT(r, DEVO_E_NODEVICE);
    CHECKF(strstr(devo_solver_errmsg(s), "naive GPU model") != NULL, "%s", devo_solver_errmsg(s));
    printf("  no device: %s\n", devo_solver_errmsg(s));
  }
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(parity_sphere),      TC(parity_rastrigin),
                                  TC(parity_multikernel), TC(parity_rosenbrock_griewank),
                                  TC(parity_fast),        TC(parity_variants),
                                  TC(parity_small),       TC(parity_large_dim),
                                  TC(parity_large_np),    TC(target_stop),
                                  TC(error_too_big),      TC(error_user_problem),
                                  TC(backend_info),       TC(deadline),
                                  TC(cec_reference),      TC(cec_generated),
                                  TC(cec_parity_de),      TC(etc_eval_parity),
                                  TC(etc_parity_de),      TC(etc_small),
                                  TC(blk_small),          TC(concurrent_solvers),
                                  TC(soco_eval),          TC(soco_parity_de),
                                  TC(naive_parity),       TC(naive_refusals)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
