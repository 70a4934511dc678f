/* SPDX-License-Identifier: MIT */
/* test_gpu_shade.c: issue 24's GPU parity, JADE, SHADE and L-SHADE on the CUDA backend
 * (kernels/gpu_shade.cu) against the CPU reference (1 thread): after K generations the whole
 * state is memcmp-equal: population and fitness (NP_g rows), the best, the archive (size,
 * capacity and rows), the memory (M_CR, M_F; JADE's mu's), its slot k, NP_g, NP of the last
 * generation and its F_i, CR_i, and the generation and evaluation counts.
 * Problems where the CPU's objective is reproducible bit for bit on the device (+ - * / and sqrt
 * only: gpu_shade.cu sums them in the CPU's order): rosenbrock D = 30 (classic), CEC F02 D = 10
 * (CEC 2017's shifted rotated Rosenbrock) and the ETC instance etc_data/small_64x8.csv. Where the
 * objective calls cos (rastrigin, CEC F03) the device's and glibc's cos may differ in the last
 * bit: the case close_cos asserts only closeness there and prints how many values are
 * bit-identical. L-SHADE runs with an evaluation budget and with a generation budget (the
 * population shrinks from 40 to 4 within the run, the archive with it), and a target stop inside
 * a sub-chunk. Every case exits 77 where no CUDA device is usable. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "kernels/gpu_variants.cuh"
#include "tests/tcheck.h"

#define SEED 20261124u

static void need_gpu(void)
{
  static char msg[256];
  if (!devo_gpu_available(msg, sizeof msg))
    TC_SKIP(msg);
}

/* A run's configuration: the preset, NP, and the budget (gens or evals; target NAN = off). */
typedef struct scase {
  const char *algo;
  int np;
  int64_t gens, evals;
  double target;
} scase;

/* Everything a run leaves (buffers sized for NP_init). */
typedef struct sout {
  devo_shade_state st;
  double *pop, *fit, *arc, *mcr, *mf, *F, *CR;
  double best;
  devo_stats stats;
  char info[DEVO__ERRLEN];
} sout;

static void sout_free(sout *o)
{
  free(o->pop);
  free(o->fit);
  free(o->arc);
  free(o->mcr);
  free(o->mf);
  free(o->F);
  free(o->CR);
  memset(o, 0, sizeof *o);
}

/* design: the GPU's internal bits (DEVO__GPU_SHADE_SPLIT: the four-launch path). */
static void srun(devo_problem *p, const scase *c, int backend, int design, sout *o)
{
  devo_solver *s = NULL;
  const int dim = p->view.dim;
  devo_variant v;
  int st;
  memset(o, 0, sizeof *o);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_algorithm(s, c->algo), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_np(s, c->np), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_seed(s, SEED), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, backend), DEVO_OK);
  if (backend == DEVO_BACKEND_CPU)
    CHECK_EQ_INT(devo_solver_set_threads(s, 1), DEVO_OK);
  else
    s->o.gpu_design |= design; /* internal bits, kernels/gpu_variants.cuh */
  if (c->gens > 0)
    CHECK_EQ_INT(devo_solver_set_max_generations(s, c->gens), DEVO_OK);
  if (c->evals > 0)
    CHECK_EQ_INT(devo_solver_set_max_evals(s, c->evals), DEVO_OK);
  if (!isnan(c->target))
    CHECK_EQ_INT(devo_solver_set_target(s, c->target), DEVO_OK);
  st = devo_solve(s);
  CHECKF(st > 0, "%s backend %d: %s (%s)", c->algo, backend, devo_status_name(st),
         devo_solver_errmsg(s));
  devo_solver_get_variant(s, &v);
  {
    const size_t np = (size_t)c->np, d = (size_t)dim;
    const size_t cap = (size_t)floor(v.arc_rate * (double)c->np + 0.5) + 1;
    const size_t hist = v.adapt == DEVO_ADAPT_SHADE ? (size_t)v.hist : 1;
    o->pop = (double *)calloc(np * d, sizeof(double));
    o->fit = (double *)calloc(np, sizeof(double));
    o->arc = (double *)calloc(cap * d, sizeof(double));
    o->mcr = (double *)calloc(hist, sizeof(double));
    o->mf = (double *)calloc(hist, sizeof(double));
    o->F = (double *)calloc(np, sizeof(double));
    o->CR = (double *)calloc(np, sizeof(double));
    CHECK(o->pop && o->fit && o->arc && o->mcr && o->mf && o->F && o->CR);
  }
  CHECK_EQ_INT(devo_solver_population(s, o->pop, o->fit), DEVO_OK);
  CHECKF(devo_solver_shade_state(s, &o->st, o->arc, o->mcr, o->mf, o->F, o->CR) == DEVO_OK,
         "shade_state: %s", devo_solver_errmsg(s));
  CHECK_EQ_INT(devo_solver_best(s, &o->best, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_stats(s, &o->stats), DEVO_OK);
  snprintf(o->info, sizeof o->info, "%s", devo_solver_backend_info(s));
  devo_solver_destroy(s);
}

/* Values of n doubles that differ bit for bit. */
static size_t ndiff(const double *a, const double *b, size_t n)
{
  size_t k, d = 0;
  for (k = 0; k < n; ++k)
    d += memcmp(a + k, b + k, sizeof(double)) != 0;
  return d;
}

/* The GPU state g against the CPU's c; exact: every value memcmp-equal (else only the sizes
 * equal and the best within 1e-9 relative). Returns the values that differ. */
static size_t scompare(const char *what, int dim, const sout *c, const sout *g, int exact)
{
  const devo_shade_state *a = &c->st, *b = &g->st;
  size_t np = (size_t)a->np, d = (size_t)dim, diff = 0, dp, dfit, darc, dm, dF;
  CHECK_EQ_INT(b->np, a->np);
  CHECK_EQ_INT(b->np_gen, a->np_gen);
  CHECK_EQ_INT(b->archive_cap, a->archive_cap);
  CHECK_EQ_INT(b->hist, a->hist);
  CHECK_EQ_INT(g->stats.generations, c->stats.generations);
  CHECK_EQ_INT(g->stats.evaluations, c->stats.evaluations);
  CHECK_EQ_INT(g->stats.status, c->stats.status);
  CHECK_EQ_INT(g->stats.backend, DEVO_BACKEND_GPU);
  dp = ndiff(c->pop, g->pop, np * d);
  dfit = ndiff(c->fit, g->fit, np);
  darc = a->archive_size == b->archive_size ? ndiff(c->arc, g->arc, (size_t)a->archive_size * d)
                                            : (size_t)-1;
  dm = ndiff(c->mcr, g->mcr, (size_t)a->hist) + ndiff(c->mf, g->mf, (size_t)a->hist);
  dF = ndiff(c->F, g->F, (size_t)a->np_gen) + ndiff(c->CR, g->CR, (size_t)a->np_gen);
  diff = dp + dfit + (darc == (size_t)-1 ? 1 : darc) + dm + dF + (a->k != b->k) +
         (memcmp(&c->best, &g->best, sizeof(double)) != 0);
  printf("  %-34s gens %lld evals %lld NP %d |A| %d/%d k %d: differing values: %zu coordinates, "
         "%zu fitness, %s archive rows, %zu memory, %zu F/CR%s\n",
         what, (long long)c->stats.generations, (long long)c->stats.evaluations, a->np,
         a->archive_size, a->archive_cap, a->k, dp, dfit,
         darc == (size_t)-1 ? "(sizes differ)" : (darc ? "some" : "0"), dm, dF,
         diff ? "" : " (bit-identical)");
  if (exact) {
    CHECK_EQ_INT(b->archive_size, a->archive_size);
    CHECK_EQ_INT(b->k, a->k);
    CHECKF(dp == 0, "%s: %zu of %zu coordinates differ", what, dp, np * d);
    CHECKF(dfit == 0, "%s: %zu fitness values differ", what, dfit);
    CHECKF(darc == 0, "%s: the archives differ", what);
    CHECKF(dm == 0, "%s: %zu memory entries differ", what, dm);
    CHECKF(dF == 0, "%s: %zu F/CR values differ", what, dF);
    CHECKF(memcmp(&c->best, &g->best, sizeof(double)) == 0, "%s: best %.17g vs %.17g", what,
           c->best, g->best);
  } else {
    CHECK_CLOSE(g->best, c->best, 1e-9, 0.0);
  }
  return diff;
}

/* The CPU (1 thread) and the GPU's three paths (the default: JADE and SHADE by the persistent
 * kernel, L-SHADE by two launches per generation up to NP 1024; DEVO__GPU_SHADE_LAUNCHES: two
 * launches for all; DEVO__GPU_SHADE_SPLIT: four), on case c; returns the values that differ. */
static size_t sparity(devo_problem *p, const char *pname, const scase *c, int exact)
{
  static const int designs[3] = {0, DEVO__GPU_SHADE_LAUNCHES, DEVO__GPU_SHADE_SPLIT};
  static const char *const names[3] = {"", " launches", " split"};
  char what[160];
  sout cpu, gpu;
  size_t d = 0;
  int k;
  srun(p, c, DEVO_BACKEND_CPU, 0, &cpu);
  for (k = 0; k < 3; ++k) {
    /* the persistent kernel: JADE, SHADE, one thread per coordinate up to 128 */
    const int persist = k == 0 && strcmp(c->algo, "lshade") != 0 && p->view.dim <= 128;
    snprintf(what, sizeof what, "%s %s NP=%d%s", pname, c->algo, c->np, names[k]);
    srun(p, c, DEVO_BACKEND_GPU, designs[k], &gpu);
    CHECKF(strstr(gpu.info, "gpu_shade.cu") != NULL, "%s: info: %s", what, gpu.info);
    CHECKF((strstr(gpu.info, "persistent") != NULL) == persist, "%s: info: %s", what, gpu.info);
    d += scompare(what, p->view.dim, &cpu, &gpu, exact);
    sout_free(&gpu);
  }
  sout_free(&cpu);
  return d;
}

static scase mk(const char *algo, int np, int64_t gens, int64_t evals)
{
  scase c;
  c.algo = algo;
  c.np = np;
  c.gens = gens;
  c.evals = evals;
  c.target = (double)NAN;
  return c;
}

/* The four runs of every exact problem: JADE for 40 generations and SHADE for 41 at NP 32 (the
 * persistent kernel's records of an odd last generation move to the even set), L-SHADE from NP 40
 * with 1200 evaluations and with 40 generations (NP reaches 4 within either). */
static void parity_all(devo_problem *p, const char *pname)
{
  const scase cs[4] = {mk("jade", 32, 40, 0), mk("shade", 32, 41, 0), mk("lshade", 40, 0, 1200),
                       mk("lshade", 40, 40, 0)};
  int k;
  for (k = 0; k < 4; ++k)
    sparity(p, pname, &cs[k], 1);
}

static devo_problem *builtin(const char *name, int dim)
{
  devo_problem *p = NULL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, name, dim, 7, NULL) == DEVO_OK, "%s: %s", name,
         devo_problem_errmsg(p));
  return p;
}

TEST_CASE(parity_classic)
{
  devo_problem *p;
  need_gpu();
  p = builtin("rosenbrock", 30);
  parity_all(p, "rosenbrock D=30");
  devo_problem_destroy(p);
}

TEST_CASE(parity_cec)
{
  devo_problem *p;
  need_gpu();
  p = builtin("F02", 10);
  parity_all(p, "F02 D=10");
  devo_problem_destroy(p);
}

TEST_CASE(parity_etc)
{
  devo_etc *e = NULL;
  devo_problem *p;
  need_gpu();
  p = tc_etc_small_problem(&e);
  parity_all(p, "etc 64x8");
  devo_problem_destroy(p);
  devo_etc_destroy(e);
}

/* A target reached inside the GPU's sub-chunk: both backends stop at the same generation with the
 * same state (the GPU's host loop rolls its NP schedule back to that generation). The target is
 * the CPU's best after 25 generations of the same run (an evaluation budget of 2400 drives
 * L-SHADE's schedule in both runs, so the first 25 generations are the same). */
TEST_CASE(target_stop)
{
  const char *algos[3] = {"jade", "shade", "lshade"};
  devo_problem *p;
  int k;
  need_gpu();
  p = builtin("rosenbrock", 30);
  for (k = 0; k < 3; ++k) {
    scase c = mk(algos[k], 40, 25, 2400);
    sout o, g;
    srun(p, &c, DEVO_BACKEND_CPU, 0, &o);
    c.gens = 0;
    c.target = o.best;
    sout_free(&o);
    srun(p, &c, DEVO_BACKEND_CPU, 0, &o);
    srun(p, &c, DEVO_BACKEND_GPU, 0, &g);
    CHECK_EQ_INT(o.stats.status, DEVO_TARGET_REACHED);
    CHECK(o.stats.generations <= 25);
    CHECK(scompare("rosenbrock D=30 target", p->view.dim, &o, &g, 1) == 0);
    sout_free(&o);
    sout_free(&g);
  }
  devo_problem_destroy(p);
}

/* rastrigin and CEC F03 (the objective calls cos: glibc's and the device's may differ in the
 * last bit, and the weights of the means follow): the best within 1e-9 relative, the counts of
 * bit-identical values printed. */
TEST_CASE(close_cos)
{
  const scase cs[3] = {mk("jade", 32, 30, 0), mk("shade", 32, 30, 0), mk("lshade", 40, 30, 0)};
  devo_problem *p;
  int k;
  need_gpu();
  p = builtin("rastrigin", 30);
  for (k = 0; k < 3; ++k)
    sparity(p, "rastrigin D=30", &cs[k], 0);
  devo_problem_destroy(p);
  p = builtin("F03", 10);
  for (k = 0; k < 3; ++k)
    sparity(p, "F03 D=10", &cs[k], 0);
  devo_problem_destroy(p);
}

/* Other block layouts: D = 5 (one warp per vector, 27 idle lanes), D = 1500 (threads striding
 * over coordinates, several rounds of the in-order sum), L-SHADE from NP 300 (several rank tiles,
 * a compaction over blocks) and from NP 1200 (above DEVO__SH_FUSE_NP: the four-launch path until
 * NP falls to 1024, then the two-launch one), on rosenbrock; and SHADE for 2,501 generations
 * (three launches of the persistent kernel, the state carried across them), and JADE at NP 300
 * (more individuals than threads per block in the persistent kernel's ranks and slots; D = 1500
 * runs on the launch path). */
TEST_CASE(shapes)
{
  const int dims[6] = {5, 1500, 20, 10, 10, 10};
  const scase cs[6] = {mk("shade", 16, 30, 0),   mk("jade", 12, 10, 0),
                       mk("lshade", 300, 60, 0), mk("lshade", 1200, 0, 30000),
                       mk("shade", 16, 2501, 0), mk("jade", 300, 50, 0)};
  int k;
  need_gpu();
  for (k = 0; k < 6; ++k) {
    char name[64];
    devo_problem *p = builtin("rosenbrock", dims[k]);
    snprintf(name, sizeof name, "rosenbrock D=%d", dims[k]);
    sparity(p, name, &cs[k], 1);
    devo_problem_destroy(p);
  }
}

/* L-SHADE under a time limit alone (its schedule follows the elapsed time, taken when each
 * generation is enqueued): the run ends by the limit, NP fell below NP_init and never below
 * np_min, the archive within its capacity, evaluations = NP_init + the sum of the NP_g. */
TEST_CASE(lshade_time)
{
  devo_problem *p;
  devo_solver *s = NULL;
  devo_shade_state st;
  devo_stats stats;
  need_gpu();
  p = builtin("sphere", 10);
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_algorithm(s, "lshade"), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_seed(s, SEED), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_time_limit(s, 0.5), DEVO_OK);
  CHECK_EQ_INT(devo_solve(s), DEVO_TIME_LIMIT);
  CHECK_EQ_INT(devo_solver_shade_state(s, &st, NULL, NULL, NULL, NULL, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_solver_stats(s, &stats), DEVO_OK);
  printf("  lshade D=10 0.5 s: %lld generations, %lld evaluations, NP 180 -> %d, |A| %d/%d\n",
         (long long)stats.generations, (long long)stats.evaluations, st.np, st.archive_size,
         st.archive_cap);
  CHECK(st.np < 180 && st.np >= 4);
  CHECK(st.archive_size <= st.archive_cap);
  CHECK(stats.generations > 0);
  CHECK(stats.evaluations >= 180 + (int64_t)stats.generations * st.np);
  CHECK(stats.evaluations <= 180 + (int64_t)stats.generations * 180);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* A short case for compute-sanitizer (memcheck, racecheck, synccheck): every kernel of
 * gpu_shade.cu once or a few times, small sizes: L-SHADE from NP 12 to 4 on sphere D = 8 and
 * F02 D = 10, SHADE on the ETC instance. */
TEST_CASE(small)
{
  devo_etc *e = NULL;
  devo_problem *p;
  scase c;
  need_gpu();
  p = builtin("sphere", 8);
  c = mk("lshade", 12, 12, 0);
  CHECK(sparity(p, "sphere D=8", &c, 1) == 0);
  devo_problem_destroy(p);
  p = builtin("F02", 10);
  c = mk("lshade", 12, 0, 150);
  CHECK(sparity(p, "F02 D=10", &c, 1) == 0);
  devo_problem_destroy(p);
  p = tc_etc_small_problem(&e);
  c = mk("shade", 8, 6, 0);
  CHECK(sparity(p, "etc 64x8", &c, 1) == 0);
  devo_problem_destroy(p);
  devo_etc_destroy(e);
  p = builtin("sphere", 8); /* the persistent kernel with the archive full (NP 8, 25 generations) */
  c = mk("jade", 8, 25, 0);
  CHECK(sparity(p, "sphere D=8", &c, 1) == 0);
  devo_problem_destroy(p);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(parity_classic), TC(parity_cec), TC(parity_etc),
                                  TC(target_stop),    TC(close_cos),  TC(shapes),
                                  TC(lshade_time),    TC(small)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
