/* SPDX-License-Identifier: MIT */
/* test_batch.c: many runs at once. A batch's trials equal the same trials run alone, bit for
 * bit (populations, bests, counts), for several strategies, jDE, SHADE, GOBL and an ETC problem,
 * stopping at different times and by different rules, on 1 to 3 threads; a batch of one; stops,
 * refusals and groups. Islands: the same run on 1 and 2 threads, one island equal to the plain
 * solve, the migration rule checked by hand, the islands spread over two handles (as over MPI
 * ranks) equal to the local run, the evaluation budget. The commands: devo experiment --jobs 2
 * gives the rows of --jobs 1, devo solve --islands, and the one-line refusals of bad values. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"
#include "tests/tcheck.h"

static devo_problem *make(const char *name, int dim)
{
  devo_problem *p = NULL;
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, name, dim, 1, NULL) == DEVO_OK, "%s", devo_problem_errmsg(p));
  return p;
}

/* The mix: rand1bin, best2exp, jDE, SHADE, GOJDE (GOBL) on classic, CEC and ETC problems; by
 * evaluations, generations, a target that only some trials reach, and a time limit. */
static const tc_trial mix[] = {
    {0, NULL, "rand1bin", 20, 1, 4000, 0, NAN, 0},
    {0, NULL, "rand1bin", 20, 2, 0, 150, NAN, 0},
    {1, NULL, "best2exp", 24, 3, 6000, 0, NAN, 0},
    {1, "jde", NULL, 20, 4, 0, 120, NAN, 0},
    {2, "shade", NULL, 30, 5, 9000, 0, NAN, 0},
    {0, "gojde", NULL, 20, 6, 5000, 0, NAN, 0},
    {3, NULL, "currenttobest1bin", 32, 7, 0, 60, NAN, 0},
    /* sphere D = 10: 1e-2 is reached within 40,000 evaluations with NP = 20, not with 2,000 */
    {0, NULL, "rand1bin", 20, 8, 40000, 0, 1e-2, 0},
    {0, NULL, "rand1bin", 20, 9, 2000, 0, 1e-2, 0},
    {2, "jde", NULL, 20, 10, 100000000, 0, NAN, 0.05},
};
#define NMIX ((int)(sizeof mix / sizeof mix[0]))

static devo_problem *probs[4];
static devo_etc *etc;

static void make_problems(void)
{
  probs[0] = make("sphere", 10);
  probs[1] = make("rastrigin", 8);
  probs[2] = make("F05", 10);
  probs[3] = tc_etc_small_problem(&etc);
}

static void free_problems(void)
{
  int k;
  for (k = 0; k < 4; ++k)
    devo_problem_destroy(probs[k]);
  devo_etc_destroy(etc);
  etc = NULL;
}

/* Every trial of the mix alone, then all of them as one batch on `threads` threads: every
 * deterministic trial is the same run bit for bit; the timed one ends by its time limit. */
static void batch_vs_solo(int threads)
{
  devo_solver *s[NMIX];
  tc_result solo[NMIX], inb;
  devo_batch *b = NULL;
  int k, targets = 0;
  make_problems();
  for (k = 0; k < NMIX; ++k) {
    s[k] = tc_trial_solver(probs[mix[k].prob], &mix[k]);
    tc_result_take(s[k], mix[k].np, devo_problem_dim(probs[mix[k].prob]), devo_solve(s[k]),
                   &solo[k]);
    devo_solver_destroy(s[k]);
    s[k] = tc_trial_solver(probs[mix[k].prob], &mix[k]);
  }
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_batch_set_threads(b, threads), DEVO_OK);
  for (k = NMIX - 1; k >= 0; --k) /* the slow trials first: the others overlap them */
    CHECK_EQ_INT(devo_batch_add(b, s[k]), DEVO_OK);
  CHECKF(devo_batch_solve(b) == DEVO_OK, "%s", devo_batch_errmsg(b));
  for (k = 0; k < NMIX; ++k) {
    const int d = devo_problem_dim(probs[mix[k].prob]);
    CHECK_EQ_INT(devo_batch_status(b, NMIX - 1 - k), solo[k].status);
    tc_result_take(s[k], mix[k].np, devo_problem_dim(probs[mix[k].prob]),
                   devo_batch_status(b, NMIX - 1 - k), &inb);
    if (mix[k].time_limit > 0)
      CHECK_EQ_INT(inb.status, DEVO_TIME_LIMIT);
    else
      CHECKF(tc_result_same(&solo[k], &inb, mix[k].np, d),
             "trial %d (%s): %s %lld evals vs %s %lld", k,
             mix[k].algo ? mix[k].algo : mix[k].strategy, devo_status_name(solo[k].status),
             (long long)solo[k].st.evaluations, devo_status_name(inb.status),
             (long long)inb.st.evaluations);
    targets += inb.status == DEVO_TARGET_REACHED;
    tc_result_drop(&inb);
    tc_result_drop(&solo[k]);
    devo_solver_destroy(s[k]);
  }
  CHECK_EQ_INT(targets, 1); /* the target reached by one of its two trials only */
  devo_batch_destroy(b);
  free_problems();
}

TEST_CASE(batch_equals_solo)
{
  batch_vs_solo(2);
  batch_vs_solo(3);
}

/* A batch of one trial on one thread is the solve. */
TEST_CASE(batch_of_one)
{
  devo_problem *p = make("rosenbrock", 6);
  const tc_trial c = {0, "jde", NULL, 16, 11, 3000, 0, NAN, 0};
  devo_solver *s = tc_trial_solver(p, &c);
  devo_batch *b = NULL;
  tc_result a, r;
  tc_result_take(s, c.np, devo_problem_dim(p), devo_solve(s), &a);
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_batch_add(b, s), DEVO_OK);
  CHECK_EQ_INT(devo_batch_size(b), 1);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_OK);
  tc_result_take(s, c.np, devo_problem_dim(p), devo_batch_status(b, 0), &r);
  CHECK(tc_result_same(&a, &r, c.np, 6));
  CHECK_EQ_INT(r.status, DEVO_EVAL_LIMIT);
  tc_result_drop(&a);
  tc_result_drop(&r);
  devo_batch_destroy(b);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

typedef struct done_log {
  int calls, stop_after, order[16];
} done_log;

static int on_done(void *ud, int trial, devo_solver *s, int status)
{
  done_log *l = (done_log *)ud;
  double best;
  CHECK(status > 0 && devo_solver_best(s, &best, NULL) == DEVO_OK);
  if (l->calls < 16)
    l->order[l->calls] = trial;
  return ++l->calls == l->stop_after;
}

/* The done callback comes once per trial; its non-zero return stops the batch (the trials not
 * begun are not run: status 0); an interrupt before the call stops every trial before it begins,
 * and is cleared by the return. */
TEST_CASE(batch_stops)
{
  devo_problem *p = make("sphere", 5);
  tc_trial c = {0, NULL, "rand1bin", 12, 1, 0, 30, NAN, 0};
  devo_solver *s[6];
  devo_batch *b = NULL;
  done_log log;
  int k, not_run = 0;
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  for (k = 0; k < 6; ++k) {
    c.seed = (uint64_t)k + 1;
    s[k] = tc_trial_solver(p, &c);
    CHECK_EQ_INT(devo_batch_add(b, s[k]), DEVO_OK);
  }
  memset(&log, 0, sizeof log);
  CHECK_EQ_INT(devo_batch_set_done(b, on_done, &log), DEVO_OK);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_OK);
  CHECK_EQ_INT(log.calls, 6);
  for (k = 0; k < 6; ++k) /* one thread: in the order of the trials */
    CHECK_EQ_INT(log.order[k], k);
  memset(&log, 0, sizeof log);
  log.stop_after = 2;
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_STOPPED_BY_CALLBACK);
  CHECK_EQ_INT(log.calls, 2);
  for (k = 0; k < 6; ++k)
    not_run += devo_batch_status(b, k) == DEVO_OK;
  CHECK_EQ_INT(not_run, 4);
  CHECK_EQ_INT(devo_batch_status(b, 1), DEVO_GEN_LIMIT);
  CHECK(strstr(devo_batch_errmsg(b), "4 of 6 trials not run") != NULL);
  memset(&log, 0, sizeof log);
  devo_batch_interrupt(b);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_INTERRUPTED);
  CHECK_EQ_INT(log.calls, 0);
  CHECK_EQ_INT(devo_batch_status(b, 0), DEVO_OK);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_OK); /* the interrupt was cleared */
  CHECK_EQ_INT(log.calls, 6);
  devo_batch_destroy(b);
  for (k = 0; k < 6; ++k)
    devo_solver_destroy(s[k]);
  devo_problem_destroy(p);
}

/* Bad batches are refused with a message; a trial's own error is its status, the others run. */
TEST_CASE(batch_refusals)
{
  devo_problem *p = make("sphere", 5);
  tc_trial c = {0, NULL, "rand1bin", 12, 1, 0, 20, NAN, 0};
  devo_solver *a = tc_trial_solver(p, &c), *z = NULL;
  devo_batch *b = NULL;
  CHECK_EQ_INT(devo_batch_create(NULL, NULL), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_E_INVALID);
  CHECK(strstr(devo_batch_errmsg(b), "no trials") != NULL);
  CHECK_EQ_INT(devo_batch_set_threads(b, 0), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_batch_set_threads(b, 1025), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_batch_add(b, NULL), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_batch_add(b, a), DEVO_OK);
  CHECK_EQ_INT(devo_batch_add(b, a), DEVO_OK);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_E_INVALID);
  CHECK(strstr(devo_batch_errmsg(b), "twice") != NULL);
  devo_batch_destroy(b);
  /* trial 1 has no stopping rule: its status is devo_solve's refusal, trial 0 ran */
  CHECK_EQ_INT(devo_solver_create(&z, p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_batch_set_threads(b, 2), DEVO_OK);
  CHECK_EQ_INT(devo_batch_add(b, a), DEVO_OK);
  CHECK_EQ_INT(devo_batch_add(b, z), DEVO_OK);
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_E_INVALID);
  CHECKF(strstr(devo_batch_errmsg(b), "trial 1: no stopping rule") != NULL, "%s",
         devo_batch_errmsg(b));
  CHECK_EQ_INT(devo_batch_status(b, 0), DEVO_GEN_LIMIT);
  CHECK_EQ_INT(devo_batch_status(b, 2), DEVO_E_INVALID);
  devo_batch_destroy(b);
  devo_solver_destroy(a);
  devo_solver_destroy(z);
  devo_problem_destroy(p);
}

/* Trials of one shape (problem kind and dimension, NP, variant family, backend) form one group,
 * whatever their seeds, F, CR and rules; another dimension, NP or variant is another group. */
TEST_CASE(batch_groups)
{
  devo_problem *p5 = make("sphere", 5), *q5 = make("rastrigin", 5), *p6 = make("sphere", 6);
  tc_trial c = {0, NULL, "rand1bin", 12, 1, 0, 5, NAN, 0};
  devo_solver *s[6];
  devo_batch *b = NULL;
  int k;
  s[0] = tc_trial_solver(p5, &c);
  c.seed = 2;
  c.max_gens = 7;
  s[1] = tc_trial_solver(p5, &c);
  s[2] = tc_trial_solver(p6, &c); /* another dimension */
  s[3] = tc_trial_solver(q5, &c); /* another kind (rastrigin) */
  c.np = 14;
  s[4] = tc_trial_solver(p5, &c); /* another NP */
  c.np = 12;
  c.algo = "jde";
  c.strategy = NULL;
  s[5] = tc_trial_solver(p5, &c); /* another variant family */
  CHECK_EQ_INT(devo_solver_set_f(s[1], 0.7), DEVO_OK);
  CHECK_EQ_INT(devo_batch_create(&b, NULL), DEVO_OK);
  for (k = 0; k < 6; ++k)
    CHECK_EQ_INT(devo_batch_add(b, s[k]), DEVO_OK);
  CHECK_EQ_INT(devo_batch_group(b, 0), -1); /* before a solve */
  CHECK_EQ_INT(devo_batch_solve(b), DEVO_OK);
  CHECK_EQ_INT(devo_batch_groups(b), 5);
  CHECK_EQ_INT(devo_batch_group(b, 0), 0);
  CHECK_EQ_INT(devo_batch_group(b, 1), 0);
  for (k = 2; k < 6; ++k)
    CHECK_EQ_INT(devo_batch_group(b, k), k - 1);
  devo_batch_destroy(b);
  for (k = 0; k < 6; ++k)
    devo_solver_destroy(s[k]);
  devo_problem_destroy(p5);
  devo_problem_destroy(q5);
  devo_problem_destroy(p6);
}

/* ---- islands ------------------------------------------------------------------------------ */

static devo_solver *island_solver(devo_problem *p, const tc_trial *c, int k, int64_t interval,
                                  int topology, int threads)
{
  devo_solver *s = tc_trial_solver(p, c);
  CHECKF(devo_solver_set_islands(s, k, interval, topology) == DEVO_OK, "%s", devo_solver_errmsg(s));
  CHECK_EQ_INT(devo_solver_set_threads(s, threads), DEVO_OK);
  return s;
}

/* The same islands run on 1 and 2 threads: the same result bit for bit (best, counts and the
 * best island's population), for ring and full topologies, a variant, and a target. */
TEST_CASE(islands_threads_equal)
{
  static const tc_trial cfg[] = {
      {0, NULL, "rand1bin", 16, 3, 8000, 0, NAN, 0},
      {1, "jde", NULL, 16, 4, 0, 60, NAN, 0},
      {2, "lshade", NULL, 20, 5, 12000, 0, NAN, 0},
      {0, NULL, "best1bin", 16, 6, 200000, 0, 1e-4, 0},
  };
  int c, topo, t;
  make_problems();
  for (c = 0; c < 4; ++c)
    for (topo = DEVO_TOPOLOGY_RING; topo <= DEVO_TOPOLOGY_FULL; ++topo) {
      tc_result r[2];
      for (t = 0; t < 2; ++t) {
        devo_solver *s = island_solver(probs[cfg[c].prob], &cfg[c], 4, 7, topo, t + 1);
        const int st = devo_solve(s);
        CHECKF(st > 0, "%s", devo_solver_errmsg(s));
        tc_result_take(s, cfg[c].np, devo_problem_dim(probs[cfg[c].prob]), st, &r[t]);
        devo_solver_destroy(s);
      }
      CHECKF(tc_result_same(&r[0], &r[1], cfg[c].np, devo_problem_dim(probs[cfg[c].prob])),
             "config %d topology %d: %.17g vs %.17g", c, topo, r[0].best, r[1].best);
      if (c == 0)
        CHECK_EQ_INT(r[0].st.evaluations, 8000); /* the total over the 4 islands */
      if (c == 3)
        CHECK_EQ_INT(r[0].status, DEVO_TARGET_REACHED);
      tc_result_drop(&r[0]);
      tc_result_drop(&r[1]);
    }
  free_problems();
}

/* One island is the plain solve: devo_solve with islands = 1, and the islands handle stepped by
 * hand (with steps of unequal length) give the plain solve's population bit for bit. */
TEST_CASE(islands_one_equals_solve)
{
  devo_problem *p = make("rastrigin", 8);
  const tc_trial c = {0, "gojde", NULL, 18, 12, 0, 90, NAN, 0};
  devo_solver *s = tc_trial_solver(p, &c);
  devo_islands *isl = NULL;
  tc_result a, r;
  char err[256];
  devo_progress pr;
  tc_result_take(s, c.np, devo_problem_dim(p), devo_solve(s), &a);
  CHECK_EQ_INT(devo_solver_set_islands(s, 1, 10, DEVO_TOPOLOGY_RING), DEVO_OK);
  tc_result_take(s, c.np, devo_problem_dim(p), devo_solve(s), &r);
  CHECK(tc_result_same(&a, &r, c.np, 8));
  tc_result_drop(&r);
  CHECKF(devo_islands_create(&isl, s, 0, 1, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  CHECK_EQ_INT(devo_islands_start(isl), DEVO_OK);
  CHECK_EQ_INT(devo_islands_step(isl, 40), DEVO_OK);
  CHECK_EQ_INT(devo_islands_migrate(isl), DEVO_OK); /* one island: nothing moves */
  CHECK_EQ_INT(devo_islands_step(isl, 1), DEVO_OK);
  CHECK_EQ_INT(devo_islands_step(isl, 49), DEVO_OK);
  CHECK_EQ_INT(devo_islands_progress(isl, &pr), DEVO_OK);
  CHECK_EQ_INT(pr.generation, 90);
  CHECK_EQ_INT(pr.evaluations, 18 * 91);
  CHECK_EQ_INT(devo_islands_finish(isl, DEVO_GEN_LIMIT), DEVO_OK);
  tc_result_take(devo_islands_solver(isl, 0), c.np, devo_problem_dim(p), DEVO_GEN_LIMIT, &r);
  CHECK(tc_result_same(&a, &r, c.np, 8));
  tc_result_drop(&a);
  tc_result_drop(&r);
  devo_islands_destroy(isl);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* The migration rule on K = 3 by hand: after a step, each island's worst is replaced by the
 * previous best of its source (ring: island k - 1; full: the best of the others) where that is
 * better, every other individual unchanged, no evaluation counted. */
static void check_migration(int topology)
{
  devo_problem *p = make("rastrigin", 6);
  const tc_trial c = {0, NULL, "rand1bin", 10, 21, 0, 100, NAN, 0};
  const int np = 10, d = 6, K = 3;
  devo_solver *s = island_solver(p, &c, K, 5, topology, 1);
  devo_islands *isl = NULL;
  double pop[3][60], fit[3][10], mf[3], mx[3][6], after[60], afit[10];
  devo_progress before, now;
  char err[256];
  int k, i, replaced = 0;
  CHECKF(devo_islands_create(&isl, s, 0, K, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  CHECK_EQ_INT(devo_islands_start(isl), DEVO_OK);
  CHECK_EQ_INT(devo_islands_step(isl, 5), DEVO_OK);
  for (k = 0; k < K; ++k) {
    CHECK_EQ_INT(devo_solver_population(devo_islands_solver(isl, k), pop[k], fit[k]), DEVO_OK);
    CHECK_EQ_INT(devo_islands_migrant(isl, k, &mf[k], mx[k]), DEVO_OK);
  }
  CHECK_EQ_INT(devo_islands_progress(isl, &before), DEVO_OK);
  CHECK_EQ_INT(devo_islands_migrate(isl), DEVO_OK);
  CHECK_EQ_INT(devo_islands_progress(isl, &now), DEVO_OK);
  CHECK_EQ_INT(now.evaluations, before.evaluations);
  for (k = 0; k < K; ++k) {
    int w = 0, src;
    if (topology == DEVO_TOPOLOGY_RING)
      src = (k + K - 1) % K;
    else
      src = k == 0   ? (mf[1] <= mf[2] ? 1 : 2)
            : k == 1 ? (mf[0] <= mf[2] ? 0 : 2)
                     : (mf[0] <= mf[1] ? 0 : 1);
    CHECK_EQ_INT(devo_migration_source(topology, K, k, mf), src);
    for (i = 1; i < np; ++i)
      if (fit[k][i] > fit[k][w])
        w = i;
    CHECK_EQ_INT(devo_solver_population(devo_islands_solver(isl, k), after, afit), DEVO_OK);
    for (i = 0; i < np; ++i) {
      const int moved = i == w && mf[src] < fit[k][w];
      replaced += moved;
      CHECK(memcmp(after + i * d, moved ? mx[src] : pop[k] + i * d, d * sizeof(double)) == 0);
      CHECK(afit[i] == (moved ? mf[src] : fit[k][i]));
    }
  }
  CHECK(replaced >= 2); /* the islands' bests beat the others' worst here */
  CHECK_EQ_INT(devo_islands_finish(isl, DEVO_GEN_LIMIT), DEVO_OK);
  devo_islands_destroy(isl);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

TEST_CASE(islands_migration_rule)
{
  check_migration(DEVO_TOPOLOGY_RING);
  check_migration(DEVO_TOPOLOGY_FULL);
  CHECK_EQ_INT(devo_migration_source(DEVO_TOPOLOGY_RING, 3, 0, NULL), 2);
  CHECK_EQ_INT(devo_migration_source(DEVO_TOPOLOGY_RING, 1, 0, NULL), -1);
  CHECK_EQ_INT(devo_migration_source(DEVO_TOPOLOGY_FULL, 3, 0, NULL), -1);
  CHECK_EQ_INT(devo_migration_source(7, 3, 0, NULL), -1);
  CHECK(devo_island_seed(42, 0) == 42);
  CHECK(devo_island_seed(42, 2) == 42 + 2 * 0x9E3779B97F4A7C15ull);
}

/* The islands spread over two handles (islands 0-1 and 2 of 3, as over two MPI ranks), the
 * migrants gathered and put by the caller after each interval: the result of devo_solve with
 * K = 3, bit for bit (best, and the population of the island that holds it). */
TEST_CASE(islands_split_equals_local)
{
  devo_problem *p = make("F05", 10);
  const tc_trial c = {0, "jde", NULL, 12, 33, 0, 24, NAN, 0};
  const int K = 3, G = 4, np = 12, d = 10;
  devo_solver *s = island_solver(p, &c, K, G, DEVO_TOPOLOGY_FULL, 2);
  devo_islands *h[2] = {NULL, NULL};
  double f[3], x[3][10], best = INFINITY, pop[120], fit[12];
  tc_result local;
  char err[256];
  int g, k, hb = 0, kb = 0;
  tc_result_take(s, np, devo_problem_dim(p), devo_solve(s), &local);
  CHECK_EQ_INT(local.status, DEVO_GEN_LIMIT);
  CHECK_EQ_INT(local.st.evaluations, (int64_t)K * np * 25);
  CHECKF(devo_islands_create(&h[0], s, 0, 2, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  CHECKF(devo_islands_create(&h[1], s, 2, 1, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  CHECK_EQ_INT(devo_islands_migrate(h[0]), DEVO_E_STATE); /* not all islands here */
  CHECK_EQ_INT(devo_islands_np(h[0]), 0);                 /* not started */
  CHECK_EQ_INT(devo_islands_start(h[0]), DEVO_OK);
  CHECK_EQ_INT(devo_islands_start(h[1]), DEVO_OK);
  CHECK_EQ_INT(devo_islands_np(h[0]), 2 * np); /* what a generation of the handle's islands costs */
  CHECK_EQ_INT(devo_islands_np(h[1]), np);
  CHECK_EQ_INT(devo_islands_np(NULL), 0);
  for (g = 0; g < 24; g += G) {
    CHECK_EQ_INT(devo_islands_step(h[0], G), DEVO_OK);
    CHECK_EQ_INT(devo_islands_step(h[1], G), DEVO_OK);
    if (g + G == 24)
      break;                /* the run ends here: no migration */
    for (k = 0; k < K; ++k) /* the gather */
      CHECK_EQ_INT(devo_islands_migrant(h[k / 2], k % 2, &f[k], x[k]), DEVO_OK);
    for (k = 0; k < K; ++k) {
      const int src = devo_migration_source(DEVO_TOPOLOGY_FULL, K, k, f);
      CHECK_EQ_INT(devo_islands_put(h[k / 2], k % 2, f[src], x[src], NULL), DEVO_OK);
    }
  }
  for (k = 0; k < K; ++k) {
    CHECK_EQ_INT(devo_islands_migrant(h[k / 2], k % 2, &f[k], x[k]), DEVO_OK);
    if (f[k] < best) {
      best = f[k];
      hb = k / 2;
      kb = k % 2;
    }
  }
  CHECK(memcmp(&best, &local.best, sizeof best) == 0);
  CHECK(memcmp(x[2 * hb + kb], local.x, d * sizeof(double)) == 0);
  CHECK_EQ_INT(devo_solver_population(devo_islands_solver(h[hb], kb), pop, fit), DEVO_OK);
  CHECK(memcmp(pop, local.pop, sizeof pop) == 0 && memcmp(fit, local.fit, sizeof fit) == 0);
  for (k = 0; k < 2; ++k) {
    CHECK_EQ_INT(devo_islands_finish(h[k], DEVO_GEN_LIMIT), DEVO_OK);
    devo_islands_destroy(h[k]);
  }
  tc_result_drop(&local);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* The evaluation limit is the total over all islands; too small a total, a GPU design other than
 * naive, and bad settings are refused with a message. */
TEST_CASE(islands_budget_and_refusals)
{
  devo_problem *p = make("sphere", 5);
  const tc_trial c = {0, NULL, "rand1bin", 20, 1, 4010, 0, NAN, 0};
  devo_solver *s = island_solver(p, &c, 4, 10, DEVO_TOPOLOGY_RING, 2);
  devo_islands *isl = NULL;
  devo_stats st;
  char err[256];
  CHECK_EQ_INT(devo_solve(s), DEVO_EVAL_LIMIT);
  CHECK_EQ_INT(devo_solver_stats(s, &st), DEVO_OK);
  CHECK_EQ_INT(st.evaluations, 4000); /* each island 1002 / 20 - 1 = 49 generations */
  CHECK_EQ_INT(st.generations, 49);
  CHECK(strstr(devo_solver_backend_info(s), "islands: 4 x (cpu: 1 thread") != NULL);
  CHECK_EQ_INT(devo_solver_set_max_evals(s, 79), DEVO_OK);
  CHECK_EQ_INT(devo_solve(s), DEVO_E_INVALID);
  CHECKF(strstr(devo_solver_errmsg(s), "over 4 islands") != NULL, "%s", devo_solver_errmsg(s));
  CHECK_EQ_INT(devo_solver_set_max_evals(s, 4000), DEVO_OK);
  /* GPU islands run where there is a device (tests/test_gpu_batch.c compares them with the
   * CPU's); JADE/SHADE islands on the GPU's fused design are refused before anything starts */
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_GPU), DEVO_OK);
  CHECK_EQ_INT(devo_solve(s), devo_gpu_count() > 0 ? DEVO_EVAL_LIMIT : DEVO_E_NODEVICE);
  CHECK_EQ_INT(devo_solver_set_algorithm(s, "shade"), DEVO_OK);
  CHECK_EQ_INT(devo_solve(s), DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "cannot take migrants") != NULL);
  CHECK_EQ_INT(devo_islands_create(&isl, s, 0, 4, NULL, err, sizeof err), DEVO_E_INVALID);
  CHECK(strstr(err, "cannot take migrants") != NULL && isl == NULL);
  CHECK_EQ_INT(devo_solver_set_gpu_design(s, DEVO_GPU_NAIVE), DEVO_OK);
  CHECK_EQ_INT(devo_islands_create(&isl, s, 0, 4, NULL, err, sizeof err), DEVO_OK);
  devo_islands_destroy(isl);
  isl = NULL;
  CHECK_EQ_INT(devo_solver_set_algorithm(s, "de"), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_gpu_design(s, DEVO_GPU_FUSED), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_backend(s, DEVO_BACKEND_CPU), DEVO_OK);
  CHECK_EQ_INT(devo_islands_create(&isl, s, 3, 2, NULL, err, sizeof err), DEVO_E_INVALID);
  CHECK(strstr(err, "islands 3 .. 4 are not islands of the template's 4") != NULL);
  CHECK_EQ_INT(devo_solver_set_islands(s, 0, 10, DEVO_TOPOLOGY_RING), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_solver_set_islands(s, 2, 0, DEVO_TOPOLOGY_RING), DEVO_E_INVALID);
  CHECK_EQ_INT(devo_solver_set_islands(s, 2, 10, 5), DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "topology") != NULL);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* ---- the commands -------------------------------------------------------------------------- */

static int cmp_line(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The data rows of a results file without the wall-time columns (time, target_time), sorted. */
static char *sorted_rows(const char *path)
{
  char *text = tc_slurp(path, NULL), *line, *save = NULL, *lines[256], *out;
  int n = 0, k;
  size_t len = 0;
  if (!text)
    return NULL;
  out = (char *)calloc(strlen(text) + 1, 1);
  for (line = strtok_r(text, "\n", &save); line && n < 256; line = strtok_r(NULL, "\n", &save)) {
    char *p, *q;
    int col = 0;
    if (line[0] == '#' || strncmp(line, "algorithm,", 10) == 0)
      continue;
    for (p = q = line; *p; ++p) {
      col += *p == ',';
      if (*p == ',' || (col != 11 && col != 13))
        *q++ = *p;
    }
    *q = 0;
    lines[n++] = line;
  }
  qsort(lines, (size_t)n, sizeof *lines, cmp_line);
  for (k = 0; k < n; ++k)
    len += (size_t)sprintf(out + len, "%s\n", lines[k]);
  free(text);
  return out;
}

/* devo experiment --jobs 2 writes the rows of --jobs 1 (in another order, maybe): 24 trials of
 * classic and CEC functions, with a target that some reach, and an islands algorithm. */
TEST_CASE(experiment_jobs_equal)
{
  char text[1024], cmd[1024], *one, *two;
  const char *spec = tc_path_in("j.spec"), *o1 = tc_path_in("j1.csv"), *o2 = tc_path_in("j2.csv");
  FILE *f = fopen(spec, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  snprintf(text, sizeof text,
           "problems = sphere F03\ndims = 6\nnp = 16\ntrials = 4\nbudget = 1500*D\n"
           "target = 1e-3\n[algorithm de]\nf = 0.5\n[algorithm jde]\npreset = jde\n"
           "[algorithm isl]\nislands = 3\nmigration_interval = 5\ntopology = full\n");
  fputs(text, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s experiment %s --out %s --jobs 1 2>/dev/null", tc_devo_bin(), spec,
           o1);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  snprintf(cmd, sizeof cmd, "%s experiment %s --out %s --jobs 2 2>/dev/null", tc_devo_bin(), spec,
           o2);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  one = sorted_rows(o1);
  two = sorted_rows(o2);
  CHECK(one && two && strlen(one) > 100);
  CHECKF(one && two && strcmp(one, two) == 0, "--jobs 1:\n%s--jobs 2:\n%s", one, two);
  CHECK(one && strstr(one, "isl,islands=3;migration_interval=5;topology=full,sphere,6,16,1,"));
  free(one);
  free(two);
}

/* devo solve --islands: 1 is the plain solve; K islands give the same answer on 1 and 2
 * threads; the summary says so. */
TEST_CASE(solve_islands)
{
  /* the JSON object without the wall-time fields and the backend's description */
  static const char *strip =
      "sed -E 's/\"(elapsed|init_seconds)\":[^,]*,//g; s/\"backend_info\":\"[^\"]*\",//'";
  char cmd[1024], *plain = NULL, *one = NULL, *t1 = NULL, *t2 = NULL;
  const char *base = "solve --problem rastrigin --dim 6 --np 20 --max-evals 12000 --json";
  snprintf(cmd, sizeof cmd, "%s %s | %s", tc_devo_bin(), base, strip);
  CHECK_EQ_INT(tc_run(cmd, &plain, NULL), 0);
  snprintf(cmd, sizeof cmd, "%s %s --islands 1 | %s", tc_devo_bin(), base, strip);
  CHECK_EQ_INT(tc_run(cmd, &one, NULL), 0);
  CHECKF(plain && one && strcmp(plain, one) == 0 && !strstr(plain, "elapsed"), "%s\nvs\n%s", plain,
         one);
  snprintf(cmd, sizeof cmd,
           "%s %s --islands 3 --migration-interval 4 --topology ring --threads 1 | %s",
           tc_devo_bin(), base, strip);
  CHECK_EQ_INT(tc_run(cmd, &t1, NULL), 0);
  snprintf(cmd, sizeof cmd,
           "%s %s --islands 3 --migration-interval 4 --topology ring --threads 2 | %s",
           tc_devo_bin(), base, strip);
  CHECK_EQ_INT(tc_run(cmd, &t2, NULL), 0);
  CHECKF(t1 && t2 && plain && strcmp(t1, t2) == 0 && strcmp(t1, plain) != 0, "%s\nvs\n%s", t1, t2);
  CHECK(t1 && strstr(t1, "\"islands\":3") && strstr(t1, "\"evaluations\":12000"));
  free(plain);
  free(one);
  free(t1);
  free(t2);
  plain = NULL;
  snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim 4 --np 10 --max-gens 20 --islands 2",
           tc_devo_bin());
  CHECK_EQ_INT(tc_run(cmd, &plain, NULL), 0);
  CHECKF(plain && strstr(plain, "islands      2 (ring, migration every 50 generations"), "%s",
         plain);
  free(plain);
}

/* mpirun with the environment it needs as root, on this many ranks (more than cores) */
#define MPIRUN                                                                                     \
  "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np"

/* The text of member key ("best", "x") of a JSON object as devo printed it, into buf ("" when
 * absent): the exact digits, so that two answers compare bit for bit. */
static const char *json_text(const char *json, const char *key, char *buf, size_t len)
{
  char pat[64];
  const char *p, *e;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  buf[0] = 0;
  if (!json || !(p = strstr(json, pat)))
    return buf;
  p += strlen(pat);
  e = *p == '[' ? strchr(p, ']') + 1 : p + strcspn(p, ",}");
  if ((size_t)(e - p) < len)
    snprintf(buf, len, "%.*s", (int)(e - p), p);
  return buf;
}

/* One configuration on N = 1, 2 and 3 ranks against the run without mpirun: the same JSON
 * object but for the wall times and the backend's description (so best, x, stop, generations,
 * evaluations and a variant's final state to the last digit); one answer, from rank 0, that
 * names the ranks and the time spent migrating. */
static void mpi_same(const char *args, const char *stop)
{
  static const char *strip =
      "sed -E 's/\"(elapsed|init_seconds|migration_seconds|migration_wait_seconds)\":[^,]*,//g; "
      "s/\"backend_info\":\"[^\"]*\",//; s/\"ranks\":[0-9]+,//'";
  char cmd[1024], ranks[32], x[4096], *ref = NULL, *raw = NULL;
  int n;
  snprintf(cmd, sizeof cmd, "%s solve %s --json | %s", tc_devo_bin(), args, strip);
  CHECK_EQ_INT(tc_run(cmd, &ref, NULL), 0);
  CHECKF(ref && strstr(ref, stop) && json_text(ref, "x", x, sizeof x)[0] == '[', "%s", ref);
  for (n = 1; n <= 3; ++n) {
    char *out = NULL;
    const char *v, *path = tc_path_in("mpi.json");
    snprintf(cmd, sizeof cmd, "%s %d %s solve %s --json > %s", MPIRUN, n, tc_devo_bin(), args,
             path);
    CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
    raw = tc_slurp(path, NULL);
    v = raw ? strstr(raw, "\"version\"") : NULL;
    CHECKF(v && !strstr(v + 1, "\"version\""), "one answer: %s", raw);
    json_text(raw, "ranks", ranks, sizeof ranks);
    CHECKF(n == 1 ? ranks[0] == 0 : atoi(ranks) == n, "%d ranks: \"ranks\":%s", n, ranks);
    CHECK(n == 1 || (raw && strstr(raw, "\"migration_seconds\":")));
    free(raw);
    raw = NULL;
    snprintf(cmd, sizeof cmd, "%s < %s", strip, path);
    CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
    CHECKF(ref && out && strcmp(ref, out) == 0, "%d ranks:\n%s\nvs\n%s", n, out, ref);
    free(out);
  }
  free(ref);
}

/* mpirun -np N devo solve --islands K: the answer of the run in one process (best and x to the
 * last digit) whatever N, N > K included: ring with an evaluation limit that ends inside a
 * stretch, full topology with a target reached inside one, a variant whose state comes from the
 * rank of the best island. Skipped without mpirun or in a devo built without MPI. Slow: it runs
 * Open MPI, which scripts/sanitize_check.sh's AddressSanitizer run (-LE slow) leaves out (its
 * leak check aborts inside libmpi's own allocations). */
SLOW_CASE(solve_islands_mpi)
{
  char cmd[1024], *out = NULL, *err = NULL;
  if (tc_run("command -v mpirun >/dev/null", NULL, NULL) != 0) {
    TC_SKIP("no mpirun");
    return;
  }
  snprintf(cmd, sizeof cmd,
           "%s 2 %s solve --problem sphere --dim 2 --np 4 --max-gens 1 --islands 2 --json", MPIRUN,
           tc_devo_bin());
  tc_run(cmd, &out, &err);
  if (err && strstr(err, "built without MPI")) {
    free(out);
    free(err);
    TC_SKIP("devo built without MPI");
    return;
  }
  CHECKF(out && strstr(out, "\"ranks\":2"), "%s\n%s", out, err);
  free(out);
  free(err);
  mpi_same("--problem F05 --dim 10 --np 20 --max-evals 31111 --islands 6 --migration-interval 7",
           "DEVO_EVAL_LIMIT");
  mpi_same("--problem sphere --dim 10 --np 20 --max-evals 100000 --target 1e-3 --islands 5 "
           "--migration-interval 7 --topology full",
           "DEVO_TARGET_REACHED");
  mpi_same("--problem F03 --dim 10 --algorithm jade --np 20 --max-gens 40 --islands 2 "
           "--migration-interval 6 --topology full",
           "DEVO_GEN_LIMIT");
}

/* The spec `text` at `spec` is refused by --dry-run: one line naming spec:line and `word`. */
static void spec_refused(const char *spec, const char *text, int line, const char *word)
{
  char cmd[1024], prefix[300];
  FILE *f = fopen(spec, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(text, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run", tc_devo_bin(), spec);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:%d:", spec, line);
  tc_expect_refused(cmd, 2, prefix, word);
}

/* Bad values: one line, exit 2. */
TEST_CASE(bad_values_exit_2)
{
  static const char *grid = "output = x.csv\nproblems = sphere\ndims = 4\ntrials = 1\n";
  char cmd[1024], text[512];
  const char *spec = tc_path_in("bad.spec");
  const char *solve = "solve --problem sphere --dim 4 --max-gens 5";
  snprintf(cmd, sizeof cmd, "%s %s --islands 0", tc_devo_bin(), solve);
  tc_expect_refused(cmd, 2, "devo solve: --islands", "0");
  snprintf(cmd, sizeof cmd, "%s %s --islands 5000", tc_devo_bin(), solve);
  tc_expect_refused(cmd, 2, "devo solve: --islands", "5000");
  snprintf(cmd, sizeof cmd, "%s %s --islands 2 --migration-interval 0", tc_devo_bin(), solve);
  tc_expect_refused(cmd, 2, "devo solve: --migration-interval", "0");
  snprintf(cmd, sizeof cmd, "%s %s --islands 2 --topology star", tc_devo_bin(), solve);
  tc_expect_refused(cmd, 2, "devo solve: --topology", "star");
  snprintf(cmd, sizeof cmd, "%s %s --islands 4 --max-evals 100 --np 30", tc_devo_bin(),
           "solve --problem sphere --dim 4");
  tc_expect_refused(cmd, 2, "devo solve: evaluation limit 100 over 4 islands", "");
  /* one of several ranks of a launcher (mpirun's environment): with MPI the ranks share the
   * islands of one run, so one population is refused; without MPI every run is (N answers) */
  snprintf(cmd, sizeof cmd, "OMPI_COMM_WORLD_SIZE=3 %s %s", tc_devo_bin(), solve);
  tc_expect_refused(cmd, 2, "devo solve: started as one of 3", "");
  snprintf(text, sizeof text, "%sbudget = 1000\n[algorithm a]\nislands = 0\n", grid);
  spec_refused(spec, text, 7, "islands: expects an integer in 1 .. 4096");
  snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 0", tc_devo_bin(), spec);
  tc_expect_refused(cmd, 2, "devo experiment: --jobs", "0");
  snprintf(text, sizeof text, "%sbudget = 1000\n[algorithm a]\ntopology = star\n", grid);
  spec_refused(spec, text, 7, "star");
  /* JADE/SHADE islands need a backend that takes migrants; the budget is the islands' total */
  snprintf(text, sizeof text,
           "%sbudget = 1000\nbackend = cpu gpu\n[algorithm a]\npreset = shade\nislands = 2\n",
           grid);
  spec_refused(spec, text, 9, "SHADE and L-SHADE islands run on the cpu, cpu-ms and gpu-naive");
  snprintf(text, sizeof text, "%sbudget = 100\nnp = 30\n[algorithm a]\nislands = 4\n", grid);
  spec_refused(spec, text, 5, "over the 4 islands of algorithm a");
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(batch_equals_solo),
                                  TC(batch_of_one),
                                  TC(batch_stops),
                                  TC(batch_refusals),
                                  TC(batch_groups),
                                  TC(islands_threads_equal),
                                  TC(islands_one_equals_solve),
                                  TC(islands_migration_rule),
                                  TC(islands_split_equals_local),
                                  TC(islands_budget_and_refusals),
                                  TC(experiment_jobs_equal),
                                  TC(solve_islands),
                                  TC(solve_islands_mpi),
                                  TC(bad_values_exit_2)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
