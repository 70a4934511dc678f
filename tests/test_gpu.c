/* test_gpu.c: the CUDA backend against the CPU reference. Every case skips (exit 77) where no
 * CUDA device is usable. Parity: the same seed gives the same population after K generations on
 * both backends, per coordinate within 1e-12 relative (the DE operators are bit-exact on both
 * sides; only an evaluation, summed in a different order on the GPU, differs by rounding, and
 * only a replacement decided by that rounding could make a coordinate differ). Each parity case
 * prints how many coordinates are bit-identical and the largest differences. */
#include <math.h>
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
static void run_solver(const char *fn, int dim, int np, int backend, int design, int64_t gens,
                       double target, run_out *o)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  memset(o, 0, sizeof *o);
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, fn, dim, 7, NULL), DEVO_OK);
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

static void compare(const char *fn, int dim, int np, int design, const run_out *c,
                    const run_out *g)
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
  CHECKF(worst <= 1e-12, "%s D=%d NP=%d design 0x%x: population differs by %.3g relative", fn,
         dim, np, design, worst);
  CHECKF(worst_fit <= 1e-12, "%s D=%d NP=%d design 0x%x: fitness differs by %.3g relative", fn,
         dim, np, design, worst_fit);
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
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST |
                                        DEVO__GPU_CG_BARRIER,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST |
                                        DEVO__GPU_BAR_RELAXED,
                                    DEVO_GPU_FUSED | DEVO__GPU_HALF_LANES,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_INLINE,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP,
                                    DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL,
                                    DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH |
                                        DEVO__GPU_TRIAL_GLOBAL,
                                    DEVO_GPU_MULTIKERNEL,
                                    -1};

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

/* Every chunk driver, index mode and trial storage, at the small and middle sizes. */
TEST_CASE(parity_variants)
{
  static const int dims[] = {1, 3, 10, 33, 100, 1000, 0};
  static const int nps[] = {4, 64, 0};
  parity("rastrigin", dims, nps, every_variant, 100);
  parity("rosenbrock", dims, nps, every_variant, 60);
}

/* A short case that exercises every kernel once, for compute-sanitizer (tools/gpu_check.sh). */
TEST_CASE(parity_small)
{
  static const int dims[] = {10, 100, 0};
  static const int nps[] = {64, 0};
  parity("rastrigin", dims, nps, every_variant, 20);
  parity("griewank", dims, nps, both, 10);
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
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_CG_BARRIER,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_BAR_RELAXED,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH | DEVO__GPU_IDX_KERNELP,
                                DEVO_GPU_MULTIKERNEL, -1};
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

/* 20 solves with a 0.1 s time limit end by the time limit within max(1 ms, 1%) (+1 ms of
 * scheduling slack); the largest overshoot is printed. */
TEST_CASE(deadline)
{
  devo_problem *p;
  devo_solver *s;
  double worst = -1.0;
  int k;
  need_gpu();
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "rastrigin", 100, 7, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, 250), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_time_limit(s, 0.1), DEVO_OK);
  for (k = 0; k < 21; ++k) {
    devo_stats st;
    int r = devo_solve(s);
    CHECKF(r == DEVO_TIME_LIMIT, "%s: %s", devo_status_name(r), devo_solver_errmsg(s));
    CHECK_EQ_INT(devo_solver_stats(s, &st), DEVO_OK);
    if (k > 0 && st.elapsed - 0.1 > worst) /* run 0 warms up */
      worst = st.elapsed - 0.1;
  }
  printf("  deadline 0.1 s x 20: largest overshoot %.3f ms\n", worst * 1e3);
  CHECK(worst <= 0.002);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(parity_sphere),
                                  TC(parity_rastrigin),
                                  TC(parity_multikernel),
                                  TC(parity_rosenbrock_griewank),
                                  TC(parity_variants),
                                  TC(parity_small),
                                  TC(parity_large_dim),
                                  TC(parity_large_np),
                                  TC(target_stop),
                                  TC(error_too_big),
                                  TC(error_user_problem),
                                  TC(backend_info),
                                  TC(deadline)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
