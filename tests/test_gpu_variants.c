/* SPDX-License-Identifier: MIT */
/* test_gpu_variants.c: issue 18's parity matrix, the DE variants on the CUDA backend against the
 * CPU reference. For each strategy x crossover, without and with jDE and GOBL, on a classic
 * function (rastrigin, D = 30), a CEC function (F03, generated data, D = 10) and an ETC instance
 * (etc_data/small_64x8.csv): K generations on the CPU with 1, 2 and 4 threads and on the GPU
 * (persistent chunks and CUDA-graph chunks). Asserted: the populations and jDE's F_i, CR_i are
 * bit-identical (memcmp) on every run; fitness values and the best agree within the README's
 * 1e-12 relative (the GPU sums an objective in another order); generation and evaluation counts
 * are equal; a variant run reports the hand-over to the general kernel and plain rand1bin does
 * not. The GOBL runs use a seed whose generations 1..K hold at least two jumps, checked with
 * devo__gobl_jump. Prints a matrix (rows = variant, columns = problem): PASS, or FAIL with the
 * largest number of coordinates that differ from the 1-thread CPU run. Every case exits 77
 * where no CUDA device is usable. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "kernels/gpu_variants.cuh"
#include "problems/de_variant.h"
#include "tests/tcheck.h"

#define K_GENS   30
#define P_GOBL   0.2
#define SEED0    20240611u
#define MAX_ROWS (DEVO__STRAT_COUNT * 2 * 4)

static void need_gpu(void)
{
  static char msg[256];
  if (!devo_gpu_available(msg, sizeof msg))
    TC_SKIP(msg);
}

typedef struct vcase {
  int strategy, crossover, jde;
  double gobl;
  int bounds; /* DEVO_BOUNDS_*; 0 (reinit) = the default */
} vcase;

typedef struct vout {
  double *pop, *fit, *F, *CR;
  double best;
  devo_stats st;
  char info[DEVO__INFOLEN];
} vout;

static void vout_free(vout *o)
{
  free(o->pop);
  free(o->fit);
  free(o->F);
  free(o->CR);
  memset(o, 0, sizeof *o);
}

/* The first seed from SEED0 whose generations 1..12 (the shortest run here) hold at least two
 * GOBL jumps at P_GOBL; its jump generations up to K_GENS are printed once. */
static uint64_t gobl_seed(void)
{
  static uint64_t found;
  uint64_t seed;
  uint32_t g;
  double k;
  if (found)
    return found;
  for (seed = SEED0; seed < SEED0 + 1000u; ++seed) {
    int jumps = 0;
    for (g = 1; g <= 12; ++g)
      jumps += devo__gobl_jump(seed, g, P_GOBL, &k) != 0;
    if (jumps >= 2)
      break;
  }
  CHECKF(seed < SEED0 + 1000u, "no seed in [%u, %u) with two GOBL jumps in 12 generations", SEED0,
         SEED0 + 1000u);
  printf("  GOBL runs: seed %llu, p_o = %g, jump generations:", (unsigned long long)seed, P_GOBL);
  for (g = 1; g <= K_GENS; ++g)
    if (devo__gobl_jump(seed, g, P_GOBL, &k))
      printf(" %u (k = %.3f)", g, k);
  printf("\n");
  found = seed;
  return seed;
}

static void variant_name(const vcase *c, char *buf, size_t n)
{
  snprintf(buf, n, "%s%s%s", devo_strategy_name(c->strategy, c->crossover), c->jde ? "+jde" : "",
           c->gobl > 0.0 ? "+gobl" : "");
}

/* One run of c on p: backend CPU with threads, or GPU with design (public design | variant
 * bits); K generations. */
static void vrun(devo_problem *p, const vcase *c, int np, int backend, int threads, int design,
                 int64_t gens, vout *o)
{
  devo_solver *s = NULL;
  const int dim = p->view.dim;
  int st;
  memset(o, 0, sizeof *o);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, np), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_f(s, 0.5), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_cr(s, 0.7), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_seed(s, c->gobl > 0.0 ? gobl_seed() : SEED0), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_strategy(s, c->strategy, c->crossover), DEVO_OK);
  if (c->jde)
    CHECK_EQ_INT(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, 0.0, 1.0), DEVO_OK);
  if (c->gobl > 0.0)
    CHECK_EQ_INT(devo_solver_set_gobl(s, c->gobl), DEVO_OK);
  if (c->bounds)
    CHECK_EQ_INT(devo_solver_set_bounds(s, c->bounds), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, backend), DEVO_OK);
  if (backend == DEVO_BACKEND_GPU) {
    CHECK_EQ_INT(devo_solver_set_gpu_design(s, design & DEVO__GPU_DESIGN_MASK), DEVO_OK);
    s->o.gpu_design = design; /* internal variant bits */
  } else {
    CHECK_EQ_INT(devo_solver_set_threads(s, threads), DEVO_OK);
  }
  CHECK_EQ_INT(devo_solver_set_max_generations(s, gens), DEVO_OK);
  st = devo_solve(s);
  CHECKF(st > 0, "backend %d threads %d design %#x: %s (%s)", backend, threads, (unsigned)design,
         devo_status_name(st), devo_solver_errmsg(s));
  o->pop = (double *)malloc((size_t)np * dim * sizeof(double));
  o->fit = (double *)malloc((size_t)np * sizeof(double));
  o->F = (double *)malloc((size_t)np * sizeof(double));
  o->CR = (double *)malloc((size_t)np * sizeof(double));
  CHECK(o->pop && o->fit && o->F && o->CR);
  CHECK_EQ_INT(devo_solver_population(s, o->pop, o->fit), DEVO_OK);
  if (c->jde)
    CHECKF(devo_solver_jde_state(s, o->F, o->CR) == DEVO_OK, "jde_state: %s",
           devo_solver_errmsg(s));
  CHECK_EQ_INT(devo_solver_best(s, &o->best, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_stats(s, &o->st), DEVO_OK);
  snprintf(o->info, sizeof o->info, "%s", devo_solver_backend_info(s));
  devo_solver_destroy(s);
}

/* One GPU generation of c on p with design: its backend info must contain want (the kernel that
 * ran it). */
static void expect_kernel(devo_problem *p, const vcase *c, int np, int design, const char *want)
{
  vout o;
  char name[64];
  vrun(p, c, np, DEVO_BACKEND_GPU, 1, design, 1, &o);
  variant_name(c, name, sizeof name);
  CHECKF(strstr(o.info, want) != NULL, "%s D=%d: not \"%s\": %s", name, p->view.dim, want, o.info);
  vout_free(&o);
}

static double rel_diff(double a, double b)
{
  double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  if (a == b)
    return 0.0;
  return m > 0.0 ? fabs(a - b) / m : (double)INFINITY;
}

/* Coordinates (and jDE values) of o that differ from ref bit for bit; asserts the rest. */
static size_t vcompare(const char *what, const vcase *c, int np, int dim, const vout *ref,
                       const vout *o)
{
  size_t k, n = (size_t)np * dim, diff = 0, fdiff = 0;
  double worst_fit = 0.0;
  for (k = 0; k < n; ++k)
    diff += memcmp(&ref->pop[k], &o->pop[k], sizeof(double)) != 0;
  for (k = 0; k < (size_t)np; ++k) {
    double r = rel_diff(ref->fit[k], o->fit[k]);
    if (r > worst_fit)
      worst_fit = r;
    if (c->jde)
      fdiff += memcmp(&ref->F[k], &o->F[k], sizeof(double)) != 0 ||
               memcmp(&ref->CR[k], &o->CR[k], sizeof(double)) != 0;
  }
  CHECKF(diff == 0, "%s: %zu of %zu coordinates differ", what, diff, n);
  CHECKF(fdiff == 0, "%s: jDE F/CR differ for %zu of %d individuals", what, fdiff, np);
  CHECKF(worst_fit <= 1e-12, "%s: fitness differs by %.3g relative", what, worst_fit);
  CHECKF(rel_diff(ref->best, o->best) <= 1e-12, "%s: best %.17g vs %.17g", what, ref->best,
         o->best);
  CHECK_EQ_INT(o->st.generations, ref->st.generations);
  CHECK_EQ_INT(o->st.evaluations, ref->st.evaluations);
  return diff + fdiff;
}

/* One cell of the matrix: CPU 1 thread (the reference), CPU 2 and 4 threads, the GPU with each
 * design of designs[] (terminated by -1; a design may be negative). Returns the largest count of
 * differing values. */
static size_t vcell(devo_problem *p, const char *pname, const vcase *c, int np, const int *designs,
                    int64_t gens)
{
  static const int threads[] = {2, 4};
  const int dim = p->view.dim;
  const int plain = c->strategy == DEVO__STRAT_RAND1 && c->crossover == DEVO__XOVER_BIN &&
                    !c->jde && !(c->gobl > 0.0);
  char name[64], what[256];
  size_t worst = 0, d;
  vout ref, o;
  int k;
  variant_name(c, name, sizeof name);
  vrun(p, c, np, DEVO_BACKEND_CPU, 1, 0, gens, &ref);
  CHECK_EQ_INT(ref.st.generations, gens);
  for (k = 0; k < 2; ++k) {
    vrun(p, c, np, DEVO_BACKEND_CPU, threads[k], 0, gens, &o);
    snprintf(what, sizeof what, "%s %s cpu %d threads", pname, name, threads[k]);
    d = vcompare(what, c, np, dim, &ref, &o);
    worst = d > worst ? d : worst;
    vout_free(&o);
  }
  for (k = 0; designs[k] != -1; ++k) { /* DEVO__GPU_VAR_GENERAL is bit 31: negative */
    vrun(p, c, np, DEVO_BACKEND_GPU, 1, designs[k], gens, &o);
    snprintf(what, sizeof what, "%s %s gpu design %#x", pname, name, (unsigned)designs[k]);
    d = vcompare(what, c, np, dim, &ref, &o);
    worst = d > worst ? d : worst;
    /* a variant run names the kernel that ran it; the general one where it was asked for */
    CHECKF((strstr(o.info, "; variant ") != NULL) == !plain, "%s: info: %s", what, o.info);
    if (!plain && (designs[k] & DEVO__GPU_VAR_GENERAL))
      CHECKF(strstr(o.info, "general fused kernel (gpu_vfused.cu") != NULL, "%s: info: %s", what,
             o.info);
    CHECK_EQ_INT(o.st.backend, DEVO_BACKEND_GPU);
    vout_free(&o);
  }
  vout_free(&ref);
  return worst;
}

static int make_cases(vcase *cs)
{
  int n = 0, s, x, m;
  for (s = 0; s < DEVO__STRAT_COUNT; ++s)
    for (x = 0; x < 2; ++x)
      for (m = 0; m < 4; ++m) {
        cs[n].strategy = s;
        cs[n].crossover = x;
        cs[n].jde = m & 1;
        cs[n].gobl = (m & 2) ? P_GOBL : 0.0;
        cs[n].bounds = 0;
        n++;
      }
  return n;
}

static devo_problem *problem_classic(void)
{
  devo_problem *p = NULL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "rastrigin", 30, 7, NULL), DEVO_OK);
  return p;
}

static devo_problem *problem_cec(void)
{
  devo_problem *p = NULL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, "F03", 10, 7, NULL) == DEVO_OK, "F03: %s",
         devo_problem_errmsg(p));
  return p;
}

/* The default (persistent chunks: gpu_fast.cu's variant kernel where it applies, the general
 * kernel elsewhere), the general kernel in persistent chunks, and CUDA-graph chunks. */
static const int designs_std[] = {DEVO_GPU_FUSED, DEVO_GPU_FUSED | DEVO__GPU_VAR_GENERAL,
                                  DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH, -1};

/* Column col of the matrix for every variant; results[row][col] = differing values. */
static size_t results[MAX_ROWS][3];

static void matrix_column(int col, devo_problem *p, const char *pname, int np)
{
  vcase cs[MAX_ROWS];
  int n = make_cases(cs), r;
  need_gpu();
  for (r = 0; r < n; ++r)
    results[r][col] = vcell(p, pname, &cs[r], np, designs_std, K_GENS);
}

static void print_matrix(const int *cols, int ncols)
{
  static const char *names[3] = {"rastrigin D=30", "F03 D=10", "ETC 64x8"};
  vcase cs[MAX_ROWS];
  int n = make_cases(cs), r, k;
  char name[64], cell[32];
  printf("  %-28s", "variant");
  for (k = 0; k < ncols; ++k)
    printf(" %-16s", names[cols[k]]);
  printf("\n");
  for (r = 0; r < n; ++r) {
    variant_name(&cs[r], name, sizeof name);
    printf("  %-28s", name);
    for (k = 0; k < ncols; ++k) {
      const size_t d = results[r][cols[k]];
      if (d == 0)
        snprintf(cell, sizeof cell, "PASS");
      else
        snprintf(cell, sizeof cell, "FAIL(%zu)", d);
      printf(" %-16s", cell);
    }
    printf("\n");
  }
}

TEST_CASE(matrix_classic)
{
  static const int cols[] = {0};
  devo_problem *p;
  need_gpu();
  p = problem_classic();
  matrix_column(0, p, "rastrigin", 32);
  print_matrix(cols, 1);
  devo_problem_destroy(p);
}

TEST_CASE(matrix_cec)
{
  static const int cols[] = {1};
  devo_problem *p;
  need_gpu();
  p = problem_cec();
  matrix_column(1, p, "F03", 32);
  print_matrix(cols, 1);
  devo_problem_destroy(p);
}

TEST_CASE(matrix_etc)
{
  static const int cols[] = {2};
  devo_etc *e = NULL;
  devo_problem *p;
  need_gpu();
  p = tc_etc_small_problem(&e);
  matrix_column(2, p, "etc64x8", 32);
  print_matrix(cols, 1);
  devo_problem_destroy(p);
  devo_etc_destroy(e);
}

/* The whole matrix in one table (the three columns above in one run). */
SLOW_CASE(matrix_all)
{
  static const int cols[] = {0, 1, 2};
  devo_etc *e = NULL;
  devo_problem *p;
  need_gpu();
  p = problem_classic();
  matrix_column(0, p, "rastrigin", 32);
  devo_problem_destroy(p);
  p = problem_cec();
  matrix_column(1, p, "F03", 32);
  devo_problem_destroy(p);
  p = tc_etc_small_problem(&e);
  matrix_column(2, p, "etc64x8", 32);
  devo_problem_destroy(p);
  devo_etc_destroy(e);
  print_matrix(cols, 3);
}

/* A short case for compute-sanitizer (memcheck, racecheck, synccheck): best2exp + jDE + GOBL at
 * NP = 16, D = 8 through every chunk driver and barrier, the global-memory trial and the
 * multikernel design's hand-over, then F03 and the ETC instance with the default design. Kernels:
 * the default runs gpu_fast.cu's version 2 (and F03 gpu_cec.cu's version 4), the other barriers
 * and the multikernel design gpu_vfused.cu's version 2, DEVO__GPU_VAR_GENERAL its version 1. */
TEST_CASE(small)
{
  static const int designs[] = {DEVO_GPU_FUSED,
                                DEVO_GPU_FUSED | DEVO__GPU_VAR_GENERAL,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_CG_BARRIER,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_PERSIST | DEVO__GPU_BAR_RELAXED,
                                DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL,
                                DEVO_GPU_MULTIKERNEL,
                                -1};
  static const int dflt[] = {DEVO_GPU_FUSED, -1};
  vcase c = {0, 0, 0, 0.0, 0};
  devo_problem *p;
  devo_etc *e = NULL;
  need_gpu();
  c.strategy = DEVO__STRAT_BEST2;
  c.crossover = DEVO__XOVER_EXP;
  c.jde = 1;
  c.gobl = P_GOBL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "rastrigin", 8, 7, NULL), DEVO_OK);
  CHECK_EQ_INT(vcell(p, "rastrigin8", &c, 16, designs, 12), 0);
  devo_problem_destroy(p);
  p = problem_cec();
  CHECK_EQ_INT(vcell(p, "F03", &c, 16, dflt, 12), 0);
  devo_problem_destroy(p);
  p = tc_etc_small_problem(&e);
  CHECK_EQ_INT(vcell(p, "etc64x8", &c, 16, dflt, 12), 0);
  devo_problem_destroy(p);
  devo_etc_destroy(e);
}

/* Other thread layouts through the general kernel: D = 100 (a whole block per vector, and half
 * the lanes with two coordinates each), D = 1000 (threads striding over coordinates, the trial
 * in shared and in global memory), NP = 3000 at D = 5 (many vectors per block; the persistent
 * grid walks several rows per block), for two variants that use every part (best and GOBL). */
TEST_CASE(shapes)
{
  static const int designs[] = {DEVO_GPU_FUSED,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH,
                                DEVO_GPU_FUSED | DEVO__GPU_HALF_LANES,
                                DEVO_GPU_FUSED | DEVO__GPU_FULL_LANES,
                                DEVO_GPU_FUSED | DEVO__GPU_TRIAL_GLOBAL,
                                -1};
  static const int dims[] = {100, 1000, 5};
  static const int nps[] = {64, 16, 3000};
  vcase c[2] = {{0, 0, 0, 0.0, 0}, {0, 0, 0, 0.0, 0}};
  int k, v;
  need_gpu();
  c[0].strategy = DEVO__STRAT_BEST2;
  c[0].crossover = DEVO__XOVER_EXP;
  c[0].jde = 1;
  c[0].gobl = P_GOBL;
  c[1].strategy = DEVO__STRAT_CURRENTTOBEST1;
  c[1].crossover = DEVO__XOVER_BIN;
  c[1].jde = 0;
  c[1].gobl = P_GOBL;
  for (k = 0; k < 3; ++k) {
    devo_problem *p = NULL;
    CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_problem_set_builtin(p, "rosenbrock", dims[k], 7, NULL), DEVO_OK);
    for (v = 0; v < 2; ++v) {
      const size_t d = vcell(p, "rosenbrock", &c[v], nps[k], designs, 20);
      printf("  rosenbrock D=%d NP=%d variant %d: %s (%zu values differ)\n", dims[k], nps[k], v,
             d == 0 ? "PASS" : "FAIL", d);
    }
    devo_problem_destroy(p);
  }
}

/* The SOCO 2010 functions (GOjDE's benchmark; a group kind that only the general kernels host)
 * through the variant kernels: a separable one (F1), the prefix-sum one (F8, the group scan),
 * a hybrid (F12) and F19 (the last), D = 50, for rand1exp + jDE + GOBL (GOjDE's operators) and
 * best2bin, with both chunk drivers. */
TEST_CASE(soco)
{
  static const char *const fns[] = {"soco:f1", "soco:f8", "soco:f12", "soco:f19"};
  vcase c[2] = {{0, 0, 0, 0.0, 0}, {0, 0, 0, 0.0, 0}};
  int k, v;
  need_gpu();
  c[0].strategy = DEVO__STRAT_RAND1;
  c[0].crossover = DEVO__XOVER_EXP;
  c[0].jde = 1;
  c[0].gobl = P_GOBL;
  c[1].strategy = DEVO__STRAT_BEST2;
  c[1].crossover = DEVO__XOVER_BIN;
  c[1].jde = 0;
  c[1].gobl = 0.0;
  for (k = 0; k < 4; ++k) {
    devo_problem *p = NULL;
    CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
    CHECKF(devo_problem_set_builtin(p, fns[k], 50, 7, NULL) == DEVO_OK, "%s: %s", fns[k],
           devo_problem_errmsg(p));
    for (v = 0; v < 2; ++v) {
      const size_t d = vcell(p, fns[k], &c[v], 32, designs_std, 20);
      printf("  %s D=50 NP=32 variant %d: %s (%zu values differ)\n", fns[k], v,
             d == 0 ? "PASS" : "FAIL", d);
    }
    devo_problem_destroy(p);
  }
}

/* gpu_fast.cu's variant kernel (version 2) on bench-variants' first case, shifted Rastrigin
 * D = 100 NP = 250 (two 128-thread groups per block), for every strategy x crossover with and
 * without jDE; gpu_cec.cu's version 4 on its second, F03 D = 100 NP = 250, the same variants;
 * gpu_vfused.cu's version 2 on its third, D = 1000 NP = 128, for every strategy x crossover
 * (rand1 with jDE); and gpu_fast.cu's on the other classic kinds (sphere, griewank: its
 * product reduction, rosenbrock: the trial staged in shared memory) and a small D (16 lanes, two
 * vectors per warp: the best scan and the group reductions shared by a warp) for a variant that
 * reads the best: the default design must run it (the backend's info says so) and the general
 * kernel (DEVO__GPU_VAR_GENERAL) must still run where asked; both bit-identical to the CPU after 20
 * generations. */
TEST_CASE(fast_kernel)
{
  static const int designs[] = {DEVO_GPU_FUSED, DEVO_GPU_FUSED | DEVO__GPU_VAR_GENERAL, -1};
  static const char *const fns[] = {"sphere", "griewank", "rosenbrock"};
  vcase c = {0, 0, 0, 0.0, 0};
  devo_problem *p = NULL;
  int s, x, m, k, fails = 0;
  need_gpu();
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "rastrigin", 100, 7, NULL), DEVO_OK);
  for (s = 0; s < DEVO__STRAT_COUNT; ++s)
    for (x = 0; x < 2; ++x)
      for (m = 0; m < 2; ++m) {
        char name[64];
        size_t d;
        c = (vcase){s, x, m, 0.0, 0};
        variant_name(&c, name, sizeof name);
        if (!(s == DEVO__STRAT_RAND1 && x == DEVO__XOVER_BIN && !m))
          expect_kernel(p, &c, 250, DEVO_GPU_FUSED, "gpu_fast.cu version 2");
        d = vcell(p, "rastrigin100", &c, 250, designs, 20);
        printf("  rastrigin D=100 NP=250 %-22s %s (%zu values differ)\n", name,
               d == 0 ? "PASS" : "FAIL", d);
        fails += d != 0;
      }
  devo_problem_destroy(p);
  /* bench-variants' second case, F03 D = 100 NP = 250: gpu_cec.cu's version 4 */
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, "F03", 100, 7, NULL) == DEVO_OK, "F03: %s",
         devo_problem_errmsg(p));
  for (s = 0; s < DEVO__STRAT_COUNT; ++s)
    for (x = 0; x < 2; ++x)
      for (m = 0; m < 2; ++m) {
        char name[64];
        size_t d;
        c = (vcase){s, x, m, 0.0, 0};
        if (s == DEVO__STRAT_RAND1 && x == DEVO__XOVER_BIN && !m)
          continue;
        variant_name(&c, name, sizeof name);
        expect_kernel(p, &c, 250, DEVO_GPU_FUSED, "gpu_cec.cu version 4");
        d = vcell(p, "F03_100", &c, 250, designs, 20);
        printf("  F03 D=100 NP=250 %-22s %s (%zu values differ)\n", name, d == 0 ? "PASS" : "FAIL",
               d);
        fails += d != 0;
      }
  devo_problem_destroy(p);
  /* bench-variants' third case, D = 1000 NP = 128: gpu_vfused.cu's version 2 */
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "rastrigin", 1000, 7, NULL), DEVO_OK);
  for (s = 0; s < DEVO__STRAT_COUNT; ++s)
    for (x = 0; x < 2; ++x) {
      char name[64];
      size_t d;
      c = (vcase){s, x, s == DEVO__STRAT_RAND1, 0.0, 0};
      variant_name(&c, name, sizeof name);
      expect_kernel(p, &c, 128, DEVO_GPU_FUSED, "gpu_vfused.cu version 2");
      d = vcell(p, "rastrigin1000", &c, 128, designs, 10);
      printf("  rastrigin D=1000 NP=128 %-22s %s (%zu values differ)\n", name,
             d == 0 ? "PASS" : "FAIL", d);
      fails += d != 0;
    }
  devo_problem_destroy(p);
  c.strategy = DEVO__STRAT_RANDTOBEST1;
  c.crossover = DEVO__XOVER_EXP;
  c.jde = 1;
  c.gobl = 0.0;
  for (k = 0; k < 4; ++k) {
    const int dim = k < 3 ? 100 : 13, np = k < 3 ? 64 : 40;
    size_t d;
    CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_problem_set_builtin(p, k < 3 ? fns[k] : "rastrigin", dim, 7, NULL), DEVO_OK);
    d = vcell(p, k < 3 ? fns[k] : "rastrigin", &c, np, designs, 20);
    printf("  %s D=%d NP=%d randtobest1exp+jde: %s (%zu values differ)\n",
           k < 3 ? fns[k] : "rastrigin", dim, np, d == 0 ? "PASS" : "FAIL", d);
    fails += d != 0;
    devo_problem_destroy(p);
  }
  CHECK_EQ_INT(fails, 0);
}

/* GOBL's jumps inside the specialised kernels: on bench-variants' first two cases (shifted
 * Rastrigin D = 100 by gpu_fast.cu version 2, F03 D = 100 by gpu_cec.cu version 4; NP 250, a seed
 * with at least two jumps in 12 generations), every strategy x crossover with GOBL (jDE on every
 * other one) runs its jumps inside the persistent kernel by default (the backend's info says so),
 * and with DEVO__GPU_GOBL_LAUNCHES by the jump launches between chunks; both, and the general
 * kernel, bit-identical to the CPU after 20 generations; also sphere D = 4 in the box [0, 100]
 * with the clip rule (jump bounds of exactly zero), 30 generations. */
TEST_CASE(gobl_inside)
{
  static const int designs[] = {DEVO_GPU_FUSED, DEVO_GPU_FUSED | DEVO__GPU_GOBL_LAUNCHES,
                                DEVO_GPU_FUSED | DEVO__GPU_VAR_GENERAL, -1};
  static const char *const fns[] = {"rastrigin", "F03"};
  vcase c = {0, 0, 0, 0.0, 0};
  int s, x, k, fails = 0;
  need_gpu();
  for (k = 0; k < 2; ++k) {
    devo_problem *p = NULL;
    CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
    CHECKF(devo_problem_set_builtin(p, fns[k], 100, 7, NULL) == DEVO_OK, "%s: %s", fns[k],
           devo_problem_errmsg(p));
    for (s = 0; s < DEVO__STRAT_COUNT; ++s)
      for (x = 0; x < 2; ++x) {
        char name[64];
        size_t d;
        c = (vcase){s, x, (s + x) & 1, P_GOBL, 0};
        variant_name(&c, name, sizeof name);
        expect_kernel(p, &c, 250, designs[0], "GOBL jumps inside it");
        expect_kernel(p, &c, 250, designs[1], "GOBL jumps by gpu_vfused.cu's jump kernels");
        d = vcell(p, fns[k], &c, 250, designs, 20);
        printf("  %s D=100 NP=250 %-26s %s (%zu values differ)\n", fns[k], name,
               d == 0 ? "PASS" : "FAIL", d);
        fails += d != 0;
      }
    devo_problem_destroy(p);
  }
  /* a box whose lower bound 0 the clip rule puts coordinates on: the jumps' lower bounds are
   * often exactly zero (the box's merge by (value, index) must keep the CPU's first zero) */
  {
    devo_problem *p = NULL;
    uint32_t seed;
    size_t d;
    CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
    for (seed = 1; seed < 1000; ++seed) /* a shift (the optimum) inside [0, 100]^4 */
      if (devo_problem_set_builtin(p, "sphere", 4, seed, NULL) == DEVO_OK &&
          devo_problem_set_box(p, 0.0, 100.0) == DEVO_OK)
        break;
    CHECK(seed < 1000);
    c = (vcase){DEVO__STRAT_BEST1, DEVO__XOVER_BIN, 1, P_GOBL, DEVO_BOUNDS_CLIP};
    expect_kernel(p, &c, 32, designs[0], "GOBL jumps inside it");
    d = vcell(p, "sphere4_box0", &c, 32, designs, 30);
    printf("  sphere D=4 box [0, 100] clip best1bin+jde+gobl %s (%zu values differ)\n",
           d == 0 ? "PASS" : "FAIL", d);
    fails += d != 0;
    devo_problem_destroy(p);
  }
  CHECK_EQ_INT(fails, 0);
}

/* A target reached inside a chunk that holds GOBL jumps stops at the end of that generation:
 * the CPU and the GPU (persistent with the jumps inside the variant kernel, persistent with the
 * jump launches, graphs) stop at the same generation with the same population, also when the
 * backend is driven directly with one chunk of 200 generations (the device flag must stop the
 * launches after it, including the jump launches). */
TEST_CASE(target_stop)
{
  static const int designs[] = {DEVO_GPU_FUSED, DEVO_GPU_FUSED | DEVO__GPU_GOBL_LAUNCHES,
                                DEVO_GPU_FUSED | DEVO__GPU_CHUNK_GRAPH, -1};
  vcase c = {0, 0, 0, 0.0, 0};
  devo_problem *p;
  vout c20, o;
  double target;
  int k;
  need_gpu();
  c.strategy = DEVO__STRAT_CURRENTTOBEST1;
  c.crossover = DEVO__XOVER_BIN;
  c.jde = 1;
  c.gobl = P_GOBL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_builtin(p, "sphere", 20, 7, NULL), DEVO_OK);
  vrun(p, &c, 32, DEVO_BACKEND_CPU, 1, 0, 20, &c20);
  target = c20.best * (1.0 + 1e-9);
  for (k = 0; designs[k] >= 0; ++k) {
    devo_solver *s = NULL;
    double *pop = (double *)malloc(32 * 20 * sizeof(double));
    CHECK(pop != NULL);
    CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_np(s, 32), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_f(s, 0.5), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_cr(s, 0.7), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_seed(s, gobl_seed()), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_strategy(s, c.strategy, c.crossover), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, 0.0, 1.0), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_gobl(s, c.gobl), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_target(s, target), DEVO_OK);
    s->o.gpu_design = designs[k];
    CHECKF(devo__gpu_backend.start(s) == DEVO_OK, "start: %s", s->err);
    s->bk = &devo__gpu_backend;
    CHECKF(devo__gpu_backend.run(s, 200) == DEVO_OK, "run: %s", s->err);
    printf("  design %#x: stopped after generation %lld (CPU reached the target at <= 20)\n",
           (unsigned)designs[k], (long long)s->gens);
    CHECK(s->gens >= 1 && s->gens <= 20);
    CHECK_EQ_INT(s->evals, 32 * (s->gens + 1));
    CHECK(s->best_f <= target);
    /* the first such generation: one earlier, the CPU's best is above the target */
    if (s->gens > 1) {
      vrun(p, &c, 32, DEVO_BACKEND_CPU, 1, 0, s->gens - 1, &o);
      CHECKF(o.best > target, "generation %lld already reached the target",
             (long long)(s->gens - 1));
      vout_free(&o);
    }
    /* the CPU's run to the same generation: the same population */
    vrun(p, &c, 32, DEVO_BACKEND_CPU, 1, 0, s->gens, &o);
    CHECK_EQ_INT(devo__gpu_backend.population(s, pop, NULL), DEVO_OK);
    CHECK(memcmp(pop, o.pop, 32 * 20 * sizeof(double)) == 0);
    CHECK_CLOSE(s->best_f, o.best, 1e-12, 0.0);
    vout_free(&o);
    free(pop);
    devo__gpu_backend.stop(s);
    s->bk = NULL;
    devo_solver_destroy(s);
  }
  vout_free(&c20);
  devo_problem_destroy(p);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {
      TC(matrix_classic), TC(matrix_cec), TC(matrix_etc),  TC(matrix_all),  TC(small),
      TC(shapes),         TC(soco),       TC(target_stop), TC(fast_kernel), TC(gobl_inside)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
