/* SPDX-License-Identifier: MIT */
/* test_gpu_batch.c: devo_batch on the GPU's fused design. A group's trials that a batch kernel
 * takes advance together, one launch per chunk, and each ends bit for bit where and as it ends
 * alone (population, fitness, best, counts, status), stopping by evaluations, generations or a
 * target reached by some trials only: gpu_fast.cu's (classic functions at small D, rand1bin with
 * and without jDE), gpu_vfused.cu's general kernel's (the CEC compositions, ETC), gpu_cec.cu's
 * (CEC F01..F07, rand1bin and the variants without GOBL). The trials that no batch kernel takes
 * (another strategy on a classic function, GOBL, a trial of another kernel while the batch is
 * busy) run alone inside the same batch with the same result; a batch of one; a group larger than
 * the device keeps resident (trials begun as others end); islands on the GPU against the CPU's.
 * Every case exits 77 where no CUDA device is usable. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"
#include "tests/tcheck.h"

static void need_gpu(void)
{
  static char msg[256];
  if (!devo_gpu_available(msg, sizeof msg))
    TC_SKIP(msg);
}

static devo_problem *make(const char *name, int dim)
{
  devo_problem *p = NULL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, name, dim, 1, NULL) == DEVO_OK, "%s", devo_problem_errmsg(p));
  return p;
}

/* A trial of tcheck's record on the GPU, and whether a batch kernel takes it. */
typedef struct gpu_trial {
  tc_trial t;
  int batched;
} gpu_trial;

static devo_solver *gpu_solver(devo_problem *p, const gpu_trial *g)
{
  devo_solver *s = tc_trial_solver(p, &g->t);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  return s;
}

/* Every trial alone, then all as one batch on `threads` threads: each the same run, bit for bit;
 * the batched ones say so. Returns how many reached their target. */
static int batch_vs_solo(devo_problem *const *probs, const gpu_trial *mix, int n, int threads)
{
  devo_solver **s = (devo_solver **)calloc((size_t)n, sizeof *s);
  tc_result *solo = (tc_result *)calloc((size_t)n, sizeof *solo), inb;
  devo_batch *b = NULL;
  int k, targets = 0;
  CHECK(s && solo);
  for (k = 0; k < n; ++k) {
    const int d = devo_problem_dim(probs[mix[k].t.prob]);
    s[k] = gpu_solver(probs[mix[k].t.prob], &mix[k]);
    tc_result_take(s[k], mix[k].t.np, d, devo_solve(s[k]), &solo[k]);
    CHECKF(!strstr(solo[k].info, "in a batch"), "trial %d alone: %s", k, solo[k].info);
    devo_solver_destroy(s[k]);
    s[k] = gpu_solver(probs[mix[k].t.prob], &mix[k]);
  }
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_batch_set_threads(b, threads), DEVO_OK);
  for (k = 0; k < n; ++k)
    CHECK_EQ_INT(devo_batch_add(b, s[k]), DEVO_OK);
  CHECKF(devo_batch_solve(b) == DEVO_OK, "%s", devo_batch_errmsg(b));
  for (k = 0; k < n; ++k) {
    const int d = devo_problem_dim(probs[mix[k].t.prob]);
    tc_result_take(s[k], mix[k].t.np, d, devo_batch_status(b, k), &inb);
    CHECKF(tc_result_same(&solo[k], &inb, mix[k].t.np, d),
           "trial %d (%s, seed %llu): alone %s after %lld evaluations, best %.17g; in the batch %s "
           "after %lld, best %.17g",
           k, mix[k].t.algo ? mix[k].t.algo : mix[k].t.strategy, (unsigned long long)mix[k].t.seed,
           devo_status_name(solo[k].status), (long long)solo[k].st.evaluations, solo[k].best,
           devo_status_name(inb.status), (long long)inb.st.evaluations, inb.best);
    CHECKF((strstr(inb.info, "in a batch") != NULL) == mix[k].batched, "trial %d: %s", k, inb.info);
    targets += inb.status == DEVO_TARGET_REACHED;
    tc_result_drop(&inb);
    tc_result_drop(&solo[k]);
    devo_solver_destroy(s[k]);
  }
  devo_batch_destroy(b);
  free(s);
  free(solo);
  return targets;
}

/* The mix: rastrigin D = 10 and sphere D = 16 (batch kernels), rand1bin and jDE, stopping by
 * evaluations, generations and a target (sphere: 1e-3 within 60,000 evaluations at NP = 32,
 * not within 3,000); best2exp and GOjDE (GOBL) alone inside the same batch; F05, a group of its
 * own, a batch of one on gpu_cec.cu's batch kernel. */
TEST_CASE(batch_equals_solo)
{
  need_gpu();
  devo_problem *probs[3] = {make("rastrigin", 10), make("sphere", 16), make("F05", 10)};
  static const gpu_trial mix[] = {
      {{0, NULL, "rand1bin", 50, 1, 20000, 0, NAN, 0}, 1},
      {{0, NULL, "rand1bin", 50, 2, 35050, 0, NAN, 0}, 1},
      {{0, NULL, "rand1bin", 50, 3, 0, 333, NAN, 0}, 1},
      {{0, "jde", NULL, 50, 4, 30000, 0, NAN, 0}, 1},
      {{0, "jde", NULL, 50, 5, 0, 210, NAN, 0}, 1},
      {{0, NULL, "best2exp", 50, 6, 15000, 0, NAN, 0}, 0},
      {{0, "gojde", NULL, 50, 7, 15000, 0, NAN, 0}, 0},
      {{1, NULL, "rand1bin", 32, 8, 60000, 0, 1e-3, 0}, 1},
      {{1, NULL, "rand1bin", 32, 9, 3000, 0, 1e-3, 0}, 1},
      {{1, NULL, "rand1bin", 32, 10, 0, 97, NAN, 0}, 1},
      {{2, NULL, "rand1bin", 40, 11, 8000, 0, NAN, 0}, 1},
  };
  const int n = (int)(sizeof mix / sizeof mix[0]);
  CHECK_EQ_INT(batch_vs_solo(probs, mix, n, 1), 1);
  CHECK_EQ_INT(batch_vs_solo(probs, mix, n, 2), 1);
  for (int k = 0; k < 3; ++k)
    devo_problem_destroy(probs[k]);
}

/* gpu_vfused.cu's batch kernel: the variants that no specialised kernel hosts (jDE and
 * rand2bin on the CEC compositions, jDE on an ETC problem) batch with their own layout; stops by
 * evaluations, generations and a target (F09's value 2740, f* 2400 + an error of 340, at NP = 30:
 * on the CPU the long trial reaches it after 6,120 evaluations, the short one ends at 370.8 after
 * its 1,500); jDE on F02 (gpu_cec.cu's variant kernel) runs alone in between. */
TEST_CASE(batch_general_variants)
{
  need_gpu();
  devo_etc *e = NULL;
  devo_problem *probs[5] = {make("F08", 10), make("F09", 10), make("F02", 10), make("F10", 10),
                            tc_small_problem(2, &e)};
  static const gpu_trial mix[] = {
      {{0, "jde", NULL, 30, 31, 12000, 0, NAN, 0}, 1},
      {{0, "jde", NULL, 30, 32, 0, 150, NAN, 0}, 1},
      {{1, "jde", NULL, 30, 33, 60000, 0, 2740.0, 0}, 1},
      {{1, "jde", NULL, 30, 34, 1500, 0, 2740.0, 0}, 1},
      {{0, NULL, "rand2bin", 30, 35, 9000, 0, NAN, 0}, 1},
      {{2, "jde", NULL, 30, 36, 9000, 0, NAN, 0}, 0},
      {{3, "jde", NULL, 30, 37, 9000, 0, NAN, 0}, 1},
      {{3, "jde", NULL, 30, 38, 0, 77, NAN, 0}, 1},
      {{4, "jde", NULL, 30, 39, 6000, 0, NAN, 0}, 1},
      {{4, "jde", NULL, 30, 40, 0, 90, NAN, 0}, 1},
  };
  const int n = (int)(sizeof mix / sizeof mix[0]);
  CHECK_EQ_INT(batch_vs_solo(probs, mix, n, 1), 1);
  for (int k = 0; k < 5; ++k)
    devo_problem_destroy(probs[k]);
  devo_etc_destroy(e);
}

/* gpu_cec.cu's batch kernel (F01..F07, two vectors per block, each trial's matrix in its blocks'
 * shared memory): rand1bin on F05 stopping by evaluations, generations and a target that one of
 * two trials reaches (1850, f* 1800 + 50: on the CPU seed 43 reaches it after 5,160 evaluations,
 * seed 44 ends far above after its 3,000), then jDE and best1bin on F02 (the variant kernel: the
 * strategy is a run-time value, so both batch in one launch); GOjDE (GOBL) alone. */
TEST_CASE(batch_cec)
{
  need_gpu();
  devo_problem *probs[2] = {make("F05", 10), make("F02", 10)};
  static const gpu_trial five[] = {
      {{0, NULL, "rand1bin", 40, 41, 20000, 0, NAN, 0}, 1},
      {{0, NULL, "rand1bin", 40, 42, 0, 150, NAN, 0}, 1},
      {{0, NULL, "rand1bin", 40, 43, 60000, 0, 1850.0, 0}, 1},
      {{0, NULL, "rand1bin", 40, 44, 3000, 0, 1850.0, 0}, 1},
  };
  static const gpu_trial two[] = {
      {{1, "jde", NULL, 40, 45, 15000, 0, NAN, 0}, 1},
      {{1, "jde", NULL, 40, 46, 0, 200, NAN, 0}, 1},
      {{1, NULL, "best1bin", 40, 47, 8000, 0, NAN, 0}, 1},
      {{1, "gojde", NULL, 40, 48, 8000, 0, NAN, 0}, 0},
  };
  CHECK_EQ_INT(batch_vs_solo(probs, five, 4, 1), 1);
  CHECK_EQ_INT(batch_vs_solo(probs, two, 4, 1), 0);
  for (int k = 0; k < 2; ++k)
    devo_problem_destroy(probs[k]);
}

/* gpu_cec.cu's batch kernel in a few generations, for compute-sanitizer (memcheck, racecheck):
 * rand1bin on F05, jDE and best1bin on F02, two trials each. */
TEST_CASE(batch_cec_short)
{
  need_gpu();
  devo_problem *probs[2] = {make("F05", 10), make("F02", 10)};
  static const gpu_trial mix[] = {
      {{0, NULL, "rand1bin", 40, 51, 0, 12, NAN, 0}, 1},
      {{0, NULL, "rand1bin", 40, 52, 0, 9, NAN, 0}, 1},
  };
  static const gpu_trial var[] = {
      {{1, "jde", NULL, 40, 53, 0, 10, NAN, 0}, 1},
      {{1, NULL, "best1bin", 40, 54, 0, 7, NAN, 0}, 1},
  };
  CHECK_EQ_INT(batch_vs_solo(probs, mix, 2, 1), 0);
  CHECK_EQ_INT(batch_vs_solo(probs, var, 2, 1), 0);
  for (int k = 0; k < 2; ++k)
    devo_problem_destroy(probs[k]);
}

/* A batch of one trial is its solve. */
TEST_CASE(batch_of_one)
{
  need_gpu();
  devo_problem *p = make("griewank", 12);
  static const gpu_trial one[] = {{{0, "jde", NULL, 24, 12, 9000, 0, NAN, 0}, 1}};
  CHECK_EQ_INT(batch_vs_solo(&p, one, 1, 1), 0);
  devo_problem_destroy(p);
}

/* More trials than the device keeps resident (sphere D = 32, NP = 1000: a few hundred blocks of
 * 256 threads per trial): trials begin as others end, each still its solve alone. */
TEST_CASE(batch_refills)
{
  need_gpu();
  devo_problem *p = make("sphere", 32);
  gpu_trial mix[24];
  for (int k = 0; k < 24; ++k) {
    const gpu_trial c = {
        {0, NULL, "rand1bin", 1000, (uint64_t)k + 21, 20000 + 3000 * (k % 5), 0, NAN, 0}, 1};
    mix[k] = c;
  }
  CHECK_EQ_INT(batch_vs_solo(&p, mix, 24, 1), 0);
  devo_problem_destroy(p);
}

/* A GPU run against its CPU twin as tests/test_gpu.c's parity holds them: status, counts and
 * every coordinate of the best vector and of the population bit for bit; fitness and best within
 * 1e-12 relative (the GPU sums a vector's terms over lanes, the CPU in index order). */
static int same_as_cpu(const tc_result *c, const tc_result *g, int np, int d)
{
  int ok = c->status == g->status && c->st.generations == g->st.generations &&
           c->st.evaluations == g->st.evaluations &&
           memcmp(c->x, g->x, (size_t)d * sizeof(double)) == 0 &&
           memcmp(c->pop, g->pop, (size_t)np * d * sizeof(double)) == 0 &&
           fabs(c->best - g->best) <= 1e-12 * fabs(c->best);
  for (int i = 0; ok && i < np; ++i)
    ok = fabs(c->fit[i] - g->fit[i]) <= 1e-12 * fabs(c->fit[i]);
  return ok;
}

/* Islands on the GPU (engine/islands.c through devo__gpu_batch_step and devo__gpu_put) are the
 * CPU's islands on the classic functions (same_as_cpu, the best island's population): ring and
 * full, an evaluation limit inside a stretch, generations, a target that one island reaches,
 * jDE; rand1bin and jDE batched in one launch per stretch, best1bin (no batch kernel) one island
 * after another; K = 1 is the plain GPU solve. */
TEST_CASE(islands_gpu_equals_cpu)
{
  need_gpu();
  devo_problem *probs[2] = {make("rastrigin", 10), make("sphere", 16)};
  static const struct {
    tc_trial t;
    int k, interval, topology, batched;
  } cfg[] = {
      {{0, NULL, "rand1bin", 20, 3, 8030, 0, NAN, 0}, 4, 7, DEVO_TOPOLOGY_RING, 1},
      {{1, "jde", NULL, 16, 4, 0, 61, NAN, 0}, 5, 10, DEVO_TOPOLOGY_FULL, 1},
      {{1, NULL, "rand1bin", 24, 5, 400000, 0, 1e-6, 0}, 3, 9, DEVO_TOPOLOGY_RING, 1},
      {{0, NULL, "best1bin", 20, 6, 6000, 0, NAN, 0}, 4, 5, DEVO_TOPOLOGY_FULL, 0},
      {{0, "jde", NULL, 20, 7, 0, 40, NAN, 0}, 1, 5, DEVO_TOPOLOGY_RING, 0},
  };
  for (int c = 0; c < (int)(sizeof cfg / sizeof cfg[0]); ++c) {
    const int d = devo_problem_dim(probs[cfg[c].t.prob]), np = cfg[c].t.np;
    tc_result r[2];
    for (int gpu = 0; gpu < 2; ++gpu) {
      devo_solver *s = tc_trial_solver(probs[cfg[c].t.prob], &cfg[c].t);
      CHECK_EQ_INT(devo_solver_set_islands(s, cfg[c].k, cfg[c].interval, cfg[c].topology), DEVO_OK);
      CHECK_EQ_INT(devo_solver_set_backend(s, gpu ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU), DEVO_OK);
      const int st = devo_solve(s);
      CHECKF(st > 0, "case %d %s: %s", c, gpu ? "gpu" : "cpu", devo_solver_errmsg(s));
      tc_result_take(s, np, d, st, &r[gpu]);
      devo_solver_destroy(s);
    }
    CHECKF(same_as_cpu(&r[0], &r[1], np, d),
           "case %d: cpu %s after %lld evaluations, best %.17g; gpu %s after %lld, best %.17g", c,
           devo_status_name(r[0].status), (long long)r[0].st.evaluations, r[0].best,
           devo_status_name(r[1].status), (long long)r[1].st.evaluations, r[1].best);
    CHECKF((strstr(r[1].info, "in a batch") != NULL) == cfg[c].batched, "case %d: %s", c,
           r[1].info);
    CHECKF(strstr(r[1].info, cfg[c].k > 1 ? "islands: " : "gpu") != NULL, "case %d: %s", c,
           r[1].info);
    if (c == 0)
      CHECK_EQ_INT(r[1].st.evaluations, 8000); /* 8030 / 4 = 2007: 20 + 99 generations of 20 */
    if (c == 2)
      CHECK_EQ_INT(r[1].status, DEVO_TARGET_REACHED);
    tc_result_drop(&r[0]);
    tc_result_drop(&r[1]);
  }
  for (int k = 0; k < 2; ++k)
    devo_problem_destroy(probs[k]);
}

/* The islands of one GPU solve (K = 3, full; migration on the device, devo__gpu_migrate) and the
 * same islands in two handles (islands 0-1 and 2, as over two MPI ranks) whose migrants the caller
 * takes and puts (devo__gpu_put): the same best and population bit for bit. jDE on F05
 * (gpu_cec.cu's batch kernel) and rand1bin on rastrigin. */
TEST_CASE(islands_gpu_split_equals_local)
{
  devo_problem *probs[2] = {make("F05", 10), make("rastrigin", 10)};
  static const tc_trial cfg[] = {{0, "jde", NULL, 12, 33, 0, 24, NAN, 0},
                                 {1, NULL, "rand1bin", 16, 34, 0, 24, NAN, 0}};
  need_gpu();
  for (int c = 0; c < 2; ++c) {
    const int K = 3, G = 4, np = cfg[c].np, d = 10;
    devo_solver *s = tc_trial_solver(probs[cfg[c].prob], &cfg[c]);
    devo_islands *h[2] = {NULL, NULL};
    double f[3], x[3][10], pop[160], fit[16];
    tc_result local;
    char err[256];
    int b = 0;
    CHECK_EQ_INT(devo_solver_set_islands(s, K, G, DEVO_TOPOLOGY_FULL), DEVO_OK);
    CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
    tc_result_take(s, np, d, devo_solve(s), &local);
    CHECKF(local.status == DEVO_GEN_LIMIT, "case %d: %s", c, devo_solver_errmsg(s));
    CHECKF(strstr(local.info, "in a batch") != NULL, "case %d: %s", c, local.info);
    for (int k = 0; k < 2; ++k) {
      CHECKF(devo_islands_create(&h[k], s, 2 * k, 2 - k, NULL, err, sizeof err) == DEVO_OK, "%s",
             err);
      CHECK_EQ_INT(devo_islands_start(h[k]), DEVO_OK);
    }
    for (int g = G; g <= 24; g += G) {
      for (int k = 0; k < 2; ++k)
        CHECK_EQ_INT(devo_islands_step(h[k], G), DEVO_OK);
      for (int k = 0; k < K; ++k) /* the gather (after the last stretch: the answer) */
        CHECK_EQ_INT(devo_islands_migrant(h[k / 2], k % 2, &f[k], x[k]), DEVO_OK);
      for (int k = 0; g < 24 && k < K; ++k) {
        const int src = devo_migration_source(DEVO_TOPOLOGY_FULL, K, k, f);
        CHECK_EQ_INT(devo_islands_put(h[k / 2], k % 2, f[src], x[src], NULL), DEVO_OK);
      }
    }
    for (int k = 1; k < K; ++k)
      b = f[k] < f[b] ? k : b;
    CHECKF(memcmp(&f[b], &local.best, sizeof f[b]) == 0, "case %d: %.17g vs %.17g", c, f[b],
           local.best);
    CHECK(memcmp(x[b], local.x, (size_t)d * sizeof(double)) == 0);
    CHECK_EQ_INT(devo_solver_population(devo_islands_solver(h[b / 2], b % 2), pop, fit), DEVO_OK);
    CHECK(memcmp(pop, local.pop, (size_t)np * d * sizeof(double)) == 0 &&
          memcmp(fit, local.fit, (size_t)np * sizeof(double)) == 0);
    for (int k = 0; k < 2; ++k) {
      CHECK_EQ_INT(devo_islands_finish(h[k], DEVO_GEN_LIMIT), DEVO_OK);
      devo_islands_destroy(h[k]);
    }
    tc_result_drop(&local);
    devo_solver_destroy(s);
  }
  for (int k = 0; k < 2; ++k)
    devo_problem_destroy(probs[k]);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(batch_equals_solo),
                                  TC(batch_general_variants),
                                  TC(batch_cec),
                                  TC(batch_cec_short),
                                  TC(batch_of_one),
                                  TC(batch_refills),
                                  TC(islands_gpu_equals_cpu),
                                  TC(islands_gpu_split_equals_local)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
