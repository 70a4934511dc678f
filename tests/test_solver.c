/* SPDX-License-Identifier: MIT */
/* test_solver.c: the solver through the public API: convergence, reproducibility across thread
 * counts, every stopping rule (evaluations, generations, target, time limit, interrupt, callback),
 * validation of bad options by status, bound rules, user objectives, and allocation failures. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/include/devo.h"
#include "problems/de_ops.h"
#include "tests/tcheck.h"

static devo_problem *make(const char *name, int dim)
{
  devo_problem *p = NULL;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, name, dim, 1, NULL) == DEVO_OK, "%s", devo_problem_errmsg(p));
  return p;
}

static devo_solver *solver(devo_problem *p, int np, double f, double cr, uint64_t seed)
{
  devo_solver *s = NULL;
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_np(s, np) == DEVO_OK);
  CHECK(devo_solver_set_f(s, f) == DEVO_OK);
  CHECK(devo_solver_set_cr(s, cr) == DEVO_OK);
  CHECK(devo_solver_set_seed(s, seed) == DEVO_OK);
  return s;
}

/* Issue 2: shifted sphere, D=30, NP=100, F=0.5, CR=0.9 reaches error <= 1e-8 within 300,000
 * evaluations for 10 seeds out of 10. */
TEST_CASE(sphere_converges_10_of_10)
{
  devo_problem *p = make("sphere", 30);
  uint64_t seed;
  for (seed = 1; seed <= 10; ++seed) {
    devo_solver *s = solver(p, 100, 0.5, 0.9, seed);
    devo_stats st;
    double best;
    CHECK(devo_solver_set_max_evals(s, 300000) == DEVO_OK);
    CHECK(devo_solver_set_target(s, 1e-8) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_TARGET_REACHED);
    CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK);
    CHECK(devo_solver_stats(s, &st) == DEVO_OK);
    CHECK(best <= 1e-8);
    CHECK(st.evaluations <= 300000);
    CHECK(st.evaluations == 100 * (st.generations + 1));
    devo_solver_destroy(s);
  }
  devo_problem_destroy(p);
}

/* Issue 2: shifted Rastrigin, D=10, NP=100, F=0.5, CR=0.3, 100,000 evaluations, 25 seeds: the
 * success rate (error < 1e-8) is reported; DE/rand/1/bin with CR = 0.3 solves this separable
 * function reliably, so fewer than 20 of 25 would be a regression. */
TEST_CASE(rastrigin_success_rate)
{
  devo_problem *p = make("rastrigin", 10);
  uint64_t seed;
  int ok = 0;
  for (seed = 1; seed <= 25; ++seed) {
    devo_solver *s = solver(p, 100, 0.5, 0.3, seed);
    double best;
    CHECK(devo_solver_set_max_evals(s, 100000) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
    CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK);
    ok += best < 1e-8;
    devo_solver_destroy(s);
  }
  printf("rastrigin D=10 NP=100 F=0.5 CR=0.3 100000 evals: %d/25 successes\n", ok);
  CHECK(ok >= 20);
  devo_problem_destroy(p);
}

/* Runs a solve and returns best, vector and population (malloc'd). */
static void run_capture(devo_problem *p, uint64_t seed, int threads, double *best, double *x,
                        double *pop)
{
  devo_solver *s = solver(p, 40, 0.5, 0.9, seed);
  CHECK(devo_solver_set_threads(s, threads) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 150) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_best(s, best, x) == DEVO_OK);
  CHECK(devo_solver_population(s, pop, NULL) == DEVO_OK);
  devo_solver_destroy(s);
}

TEST_CASE(threads_bit_identical)
{
  static const char *const fns[] = {"sphere", "rosenbrock", "griewank", "rastrigin"};
  int f, t, d = 17;
  for (f = 0; f < 4; ++f) {
    devo_problem *p = make(fns[f], d);
    double b1, b, x1[17], x[17], *p1 = (double *)malloc(40 * 17 * sizeof(double)),
                                 *pp = (double *)malloc(40 * 17 * sizeof(double));
    run_capture(p, 7, 1, &b1, x1, p1);
    for (t = 2; t <= 4; t *= 2) {
      run_capture(p, 7, t, &b, x, pp);
      CHECK(memcmp(&b, &b1, sizeof b) == 0);
      CHECK(memcmp(x, x1, sizeof x) == 0);
      CHECK(memcmp(pp, p1, 40 * 17 * sizeof(double)) == 0);
    }
    /* threads > NP: the pool is capped at NP */
    run_capture(p, 7, 64, &b, x, pp);
    CHECK(memcmp(pp, p1, 40 * 17 * sizeof(double)) == 0);
    run_capture(p, 8, 1, &b, x, pp);
    CHECK(memcmp(pp, p1, 40 * 17 * sizeof(double)) != 0);
    CHECK(memcmp(x, x1, sizeof x) != 0);
    free(p1);
    free(pp);
    devo_problem_destroy(p);
  }
}

TEST_CASE(limits_are_exact)
{
  devo_problem *p = make("rastrigin", 5);
  devo_solver *s = solver(p, 10, 0.5, 0.9, 3);
  devo_stats st;
  CHECK(devo_solver_set_max_evals(s, 1005) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  CHECK_EQ_INT(st.evaluations, 1000);
  CHECK_EQ_INT(st.generations, 99);
  CHECK(devo_solver_set_max_evals(s, 0) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 37) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  CHECK_EQ_INT(st.generations, 37);
  CHECK_EQ_INT(st.evaluations, 380);
  CHECK(st.status == DEVO_GEN_LIMIT && st.backend == DEVO_BACKEND_CPU);
  CHECK(st.elapsed >= st.init_seconds && st.init_seconds >= 0.0);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

typedef struct trace {
  int calls, stop_after;
  int64_t last_gen, last_evals;
  double last_best, last_elapsed;
  int monotone;
} trace;

static int on_progress(void *ud, const devo_progress *pr)
{
  trace *t = (trace *)ud;
  if (t->calls > 0 && (pr->generation < t->last_gen || pr->evaluations < t->last_evals ||
                       pr->best > t->last_best || pr->elapsed < t->last_elapsed))
    t->monotone = 0;
  t->calls++;
  t->last_gen = pr->generation;
  t->last_evals = pr->evaluations;
  t->last_best = pr->best;
  t->last_elapsed = pr->elapsed;
  return t->stop_after > 0 && t->calls >= t->stop_after;
}

TEST_CASE(callback_stops_and_sees_progress)
{
  devo_problem *p = make("sphere", 20);
  devo_solver *s = solver(p, 30, 0.5, 0.9, 11);
  trace t;
  devo_stats st;
  double best;
  memset(&t, 0, sizeof t);
  t.monotone = 1;
  t.stop_after = 5;
  CHECK(devo_solver_set_progress(s, on_progress, &t) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_STOPPED_BY_CALLBACK);
  CHECK(t.calls == 5 && t.monotone);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK);
  CHECK(st.generations == t.last_gen && best == t.last_best);
  /* best-so-far never gets worse over a long run */
  memset(&t, 0, sizeof t);
  t.monotone = 1;
  CHECK(devo_solver_set_max_generations(s, 2000) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(t.calls >= 1 && t.monotone);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

TEST_CASE(target_stops_at_generation)
{
  devo_problem *p = make("sphere", 10);
  devo_solver *s = solver(p, 40, 0.5, 0.9, 5);
  double best;
  CHECK(devo_solver_set_target(s, 1e-3) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 100000) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_TARGET_REACHED);
  CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK);
  CHECK(best <= 1e-3);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

static void *interrupter(void *arg)
{
  struct timespec ts = {0, 100000000};
  nanosleep(&ts, NULL);
  devo_interrupt((devo_solver *)arg);
  return NULL;
}

TEST_CASE(interrupt_from_another_thread)
{
  devo_problem *p = make("rastrigin", 200);
  devo_solver *s = solver(p, 200, 0.5, 0.9, 1);
  pthread_t th;
  devo_stats st;
  double best;
  int threads;
  for (threads = 1; threads <= 2; ++threads) {
    CHECK(devo_solver_set_threads(s, threads) == DEVO_OK);
    CHECK(devo_solver_set_max_generations(s, 100000000) == DEVO_OK);
    CHECK(pthread_create(&th, NULL, interrupter, s) == 0);
    CHECK(devo_solve(s) == DEVO_INTERRUPTED);
    pthread_join(th, NULL);
    CHECK(devo_solver_stats(s, &st) == DEVO_OK);
    /* the interrupter's 100 ms can start before devo_solve's clock does (the thread may begin
     * its sleep while the solve is still setting up), so elapsed can fall a little short of
     * 0.1 s: a fresh clone's test run measured it below 0.1 once */
    CHECK(st.elapsed >= 0.09 && st.elapsed < 0.5);
    CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK && isfinite(best));
  }
  /* an interrupt before a solve is not lost: that solve stops at its first check */
  devo_interrupt(s);
  CHECK(devo_solve(s) == DEVO_INTERRUPTED);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK && st.generations == 0);
  /* and it is consumed */
  CHECK(devo_solver_set_max_generations(s, 3) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  /* also by a solve that returns an error (here: no stopping rule; found in review) */
  CHECK(devo_solver_set_max_generations(s, 0) == DEVO_OK);
  devo_interrupt(s);
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  CHECK(devo_solver_set_max_generations(s, 3) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* Issue 2: the time-limit promise, limit + max(1 ms, 1% of the limit), on a problem that cannot
 * finish, 1 and 2 threads, limits of 30 ms (1 ms) and 0.2 s (2 ms). Measured around the call;
 * every run that was not preempted must keep the promise; fewer than 6 such runs: skipped as
 * inconclusive (tcheck.h). */
SLOW_CASE(time_limit_overshoot)
{
  const double limits[2] = {0.03, 0.2};
  devo_problem *p = make("rastrigin", 300);
  double best;
  tc_deadline d = tc_deadline_init("time limit 30 ms and 0.2 s", 0.001, 0.01, 0.0, 6);
  int k;
  for (k = 0; k < 40 && !(tc_deadline_enough(&d) && k >= 12); ++k) {
    devo_solver *s = solver(p, 300, 0.5, 0.3, (uint64_t)k + 1);
    const double limit = limits[k % 2];
    tc_mark m;
    int rc;
    d.busy = 1 + (k / 2) % 2;
    CHECK(devo_solver_set_threads(s, (int)d.busy) == DEVO_OK);
    CHECK(devo_solver_set_max_evals(s, 1000000000) == DEVO_OK);
    CHECK(devo_solver_set_time_limit(s, limit) == DEVO_OK);
    m = tc_mark_now();
    rc = devo_solve(s);
    tc_deadline_add(&d, m, limit);
    CHECK(rc == DEVO_TIME_LIMIT);
    CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK && isfinite(best));
    devo_solver_destroy(s);
  }
  devo_problem_destroy(p);
  tc_deadline_end(&d);
}

/* A user objective that spins: 20 us per point for the first np points (the initial
 * population), 40 us after, so that the first generation, planned from the initial population,
 * is twice as slow as planned and the deadline falls inside it. */
typedef struct slow_obj {
  long calls, cheap;
} slow_obj;

static int slow_fn(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  slow_obj *o = (slow_obj *)ud;
  size_t k;
  for (k = 0; k < n; ++k) {
    const double until = tc_now() + (o->calls++ < o->cheap ? 20e-6 : 40e-6);
    f[k] = x[k * dim] * x[k * dim];
    while (tc_now() < until)
      ;
  }
  return 0;
}

/* The time-limit promise with slow evaluations (found in review: the CPU backend looked at the
 * clock only every 8 individuals or 256 user vectors, and the first generation was started
 * whatever its cost, so a 21 ms limit ended at 29 ms). The initial population takes 4 ms, so the
 * first generation is planned at 4 ms but takes 8 ms, far longer than the 1 ms slack: with limits
 * of 8.5 and 10 ms it is started and the deadline falls inside it (only the check inside a
 * generation can keep the promise); with 5 ms it is not started. Measured around the call, every
 * run not preempted within 1 ms; at least 3 such runs of each kind, else skipped. */
SLOW_CASE(time_limit_slow_objective)
{
  const double limits[3] = {0.005, 0.010, 0.0085};
  double best;
  tc_deadline inside = tc_deadline_init("slow objective, deadline inside a generation (8.5, 10 ms)",
                                        0.001, 0.01, 0.0, 3),
              before = tc_deadline_init("slow objective, generation not started (5 ms)", 0.001,
                                        0.01, 0.0, 3);
  int k;
  inside.busy = before.busy = 1; /* one thread, spinning in the objective */
  for (k = 0; k < 90 && !(tc_deadline_enough(&inside) && tc_deadline_enough(&before) && k >= 15);
       ++k) {
    devo_problem *p = NULL;
    devo_solver *s = NULL;
    slow_obj o = {0, 200};
    devo_stats st;
    const double limit = limits[k % 3];
    tc_mark m;
    int rc;
    CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
    CHECK(devo_problem_set_user(p, 2, -1.0, 1.0, slow_fn, &o) == DEVO_OK);
    s = solver(p, 200, 0.5, 0.9, (uint64_t)k + 1);
    CHECK(devo_solver_set_max_evals(s, 1000000000) == DEVO_OK);
    CHECK(devo_solver_set_time_limit(s, limit) == DEVO_OK);
    m = tc_mark_now();
    rc = devo_solve(s);
    tc_deadline_add(k % 3 == 0 ? &before : &inside, m, limit);
    CHECK(rc == DEVO_TIME_LIMIT);
    CHECK(devo_solver_stats(s, &st) == DEVO_OK);
    CHECK_EQ_INT(st.generations, 0); /* no generation fits: 4 ms of start + 8 ms > 10 ms */
    CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK && isfinite(best));
    devo_solver_destroy(s);
    devo_problem_destroy(p);
  }
  tc_deadline_end(&before);
  tc_deadline_end(&inside);
}

TEST_CASE(bad_options_rejected)
{
  devo_problem *p = NULL, *empty = NULL;
  devo_solver *s = NULL;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_create(&empty, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(p, "nosuch", 10, 1, NULL) == DEVO_E_INVALID);
  CHECK(strstr(devo_problem_errmsg(p), "nosuch") != NULL);
  CHECK(devo_problem_set_builtin(p, "sphere", 0, 1, NULL) == DEVO_E_INVALID);
  CHECK(devo_problem_set_builtin(p, "sphere", -3, 1, NULL) == DEVO_E_INVALID);
  CHECK(devo_problem_set_builtin(p, "sphere", 10000001, 1, NULL) == DEVO_E_INVALID);
  CHECK(strstr(devo_problem_errmsg(p), "10000001") != NULL);
  CHECK(devo_problem_set_builtin(p, NULL, 10, 1, NULL) == DEVO_E_INVALID);
  /* a box whose width overflows: every draw would be inf (found in review) */
  CHECK(devo_problem_set_user(p, 3, -1e308, 1e308, slow_fn, NULL) == DEVO_E_INVALID);
  CHECK(strstr(devo_problem_errmsg(p), "width") != NULL);
  CHECK(devo_solver_create(&s, empty, NULL) == DEVO_E_INVALID && s == NULL);
  CHECK(devo_problem_set_builtin(p, "sphere", 10, 1, NULL) == DEVO_OK);
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_np(s, 3) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "3") != NULL);
  CHECK(devo_solver_set_np(s, -1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_f(s, 0.0) == DEVO_E_INVALID);
  CHECK(devo_solver_set_f(s, -0.5) == DEVO_E_INVALID);
  CHECK(devo_solver_set_f(s, (double)NAN) == DEVO_E_INVALID);
  CHECK(devo_solver_set_f(s, (double)INFINITY) == DEVO_E_INVALID);
  CHECK(devo_solver_set_cr(s, -0.01) == DEVO_E_INVALID);
  CHECK(devo_solver_set_cr(s, 1.01) == DEVO_E_INVALID);
  CHECK(devo_solver_set_cr(s, (double)NAN) == DEVO_E_INVALID);
  CHECK(devo_solver_set_time_limit(s, -1.0) == DEVO_E_INVALID);
  CHECK(devo_solver_set_time_limit(s, (double)NAN) == DEVO_E_INVALID);
  CHECK(devo_solver_set_time_limit(s, (double)INFINITY) == DEVO_E_INVALID);
  CHECK(devo_solver_set_threads(s, 0) == DEVO_E_INVALID);
  CHECK(devo_solver_set_bounds(s, 9) == DEVO_E_INVALID);
  CHECK(devo_solver_set_backend(s, 7) == DEVO_E_INVALID);
  CHECK(devo_solver_set_max_evals(s, -5) == DEVO_E_INVALID);
  CHECK(devo_solver_set_target(s, (double)INFINITY) == DEVO_E_INVALID);
  /* nothing was changed by the rejected calls: the defaults still run */
  CHECK(devo_solve(s) == DEVO_E_INVALID); /* no stopping rule */
  CHECK(strstr(devo_solver_errmsg(s), "stopping rule") != NULL);
  CHECK(devo_solver_best(s, NULL, NULL) == DEVO_E_STATE);
  CHECK(devo_solver_set_max_evals(s, 50) == DEVO_OK); /* below NP = 100: contradictory */
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  CHECK(devo_solver_set_max_evals(s, 100) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  devo_problem_destroy(empty);
  CHECK(strcmp(devo_status_name(DEVO_TIME_LIMIT), "DEVO_TIME_LIMIT") == 0);
  CHECK(strcmp(devo_status_message(DEVO_E_NOMEM), "out of memory") == 0);
  CHECK(strcmp(devo_status_name(12345), "DEVO_UNKNOWN") == 0);
  CHECK(devo_version_number() == DEVO_VERSION_NUMBER);
  CHECK(strcmp(devo_version(), DEVO_VERSION_STRING) == 0);
}

static int user_sphere(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i, j;
  int *calls = (int *)ud;
  __atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
  for (i = 0; i < n; ++i) {
    double s = 0.0;
    for (j = 0; j < dim; ++j)
      s += (x[i * dim + j] - 1.0) * (x[i * dim + j] - 1.0);
    f[i] = s;
  }
  return 0;
}

static int user_fails(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  (void)ud;
  (void)x;
  (void)dim;
  (void)f;
  (void)n;
  return 1;
}

TEST_CASE(user_objective)
{
  devo_problem *p = NULL;
  devo_solver *s;
  int calls = 0, t;
  double best[2], x[2][8];
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user(p, 8, -5.0, 5.0, NULL, NULL) == DEVO_E_INVALID);
  CHECK(devo_problem_set_user(p, 8, 5.0, -5.0, user_sphere, &calls) == DEVO_E_INVALID);
  CHECK(devo_problem_set_user(p, 8, -5.0, 5.0, user_sphere, &calls) == DEVO_OK);
  for (t = 0; t < 2; ++t) {
    s = solver(p, 30, 0.5, 0.9, 4);
    CHECK(devo_solver_set_threads(s, 1 + t) == DEVO_OK);
    CHECK(devo_solver_set_max_generations(s, 300) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
    CHECK(devo_solver_best(s, &best[t], x[t]) == DEVO_OK);
    CHECK(best[t] < 1e-6);
    devo_solver_destroy(s);
  }
  CHECK(memcmp(x[0], x[1], sizeof x[0]) == 0);
  CHECK(calls > 300);
  s = solver(p, 30, 0.5, 0.9, 4);
  CHECK(devo_solver_set_backend(s, DEVO_BACKEND_GPU) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 3) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  devo_solver_destroy(s);
  CHECK(devo_problem_set_user(p, 8, -5.0, 5.0, user_fails, NULL) == DEVO_OK);
  s = solver(p, 30, 0.5, 0.9, 4);
  CHECK(devo_solver_set_max_generations(s, 3) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_E_INTERNAL);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* devo_problem_set_user_batch: with a batch of NP and one thread the objective sees one call
 * per generation (plus one for the initial population), each with NP vectors; the result is the
 * same bits as devo's own batching; bad values and other problems are refused. */
TEST_CASE(user_batch_whole_generation)
{
  devo_problem *p = NULL, *q = NULL;
  devo_solver *s;
  int calls = 0, k;
  double best[2], x[2][8];
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user_batch(p, 40) == DEVO_E_STATE); /* not a user objective yet */
  CHECK(devo_problem_set_user(p, 8, -5.0, 5.0, user_sphere, &calls) == DEVO_OK);
  CHECK(devo_problem_set_user_batch(p, -1) == DEVO_E_INVALID);
  CHECK(devo_problem_set_user_batch(p, 10000001) == DEVO_E_INVALID);
  for (k = 0; k < 2; ++k) {
    CHECK(devo_problem_set_user_batch(p, k ? 300 : 0) == DEVO_OK);
    calls = 0;
    s = solver(p, 300, 0.5, 0.9, 4);
    CHECK(devo_solver_set_threads(s, 1) == DEVO_OK);
    CHECK(devo_solver_set_max_generations(s, 20) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
    CHECK(devo_solver_best(s, &best[k], x[k]) == DEVO_OK);
    devo_solver_destroy(s);
    /* devo's own batches hold at most 256 vectors: two calls per generation of 300 */
    CHECKF(k ? calls == 21 : calls >= 42, "batch %d: %d calls for 20 generations and the start",
           k ? 300 : 0, calls);
  }
  CHECK(best[0] == best[1] && memcmp(x[0], x[1], sizeof x[0]) == 0);
  CHECK(devo_problem_create(&q, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(q, "sphere", 4, 1, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user_batch(q, 10) == DEVO_E_STATE);
  devo_problem_destroy(q);
  devo_problem_destroy(p);
}

TEST_CASE(bound_rules_keep_population_inside)
{
  devo_problem *p = make("rastrigin", 12);
  double pop[50 * 12];
  int rule, k;
  for (rule = DEVO_BOUNDS_REINIT; rule <= DEVO_BOUNDS_MIDPOINT; ++rule) {
    devo_solver *s = solver(p, 50, 1.9, 0.9, 2); /* F = 1.9 pushes mutants out of bounds */
    CHECK(devo_solver_set_bounds(s, rule) == DEVO_OK);
    CHECK(devo_solver_set_max_generations(s, 50) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
    CHECK(devo_solver_population(s, pop, NULL) == DEVO_OK);
    for (k = 0; k < 50 * 12; ++k)
      CHECK(pop[k] >= -100.0 && pop[k] <= 100.0);
    devo_solver_destroy(s);
  }
  devo_problem_destroy(p);
}

/* Every allocation failure inside create, configure and solve returns DEVO_E_NOMEM and leaks
 * nothing; the loop ends when a run needs no more allocations than were allowed. */
TEST_CASE(allocation_failures)
{
  long n;
  int finished = 0, t;
  for (t = 1; t <= 2; ++t)
    for (n = 1, finished = 0; n < 200 && !finished; ++n) {
      tc_fail_alloc fa = {0, 0, 0, 0};
      devo_allocator al = tc_fail_allocator(&fa);
      devo_problem *p = NULL;
      devo_solver *s = NULL;
      int st;
      fa.fail_at = n;
      st = devo_problem_create(&p, &al);
      if (st == DEVO_OK)
        st = devo_problem_set_builtin(p, "griewank", 9, 1, NULL);
      if (st == DEVO_OK)
        st = devo_solver_create(&s, p, &al);
      if (st == DEVO_OK) {
        CHECK(devo_solver_set_threads(s, t) == DEVO_OK);
        CHECK(devo_solver_set_max_generations(s, 5) == DEVO_OK);
        st = devo_solve(s);
      }
      if (fa.calls >= n)
        CHECKF(st == DEVO_E_NOMEM, "allocation %ld failed but status %d", n, st);
      else {
        CHECK(st == DEVO_GEN_LIMIT);
        finished = 1;
      }
      devo_solver_destroy(s);
      devo_problem_destroy(p);
      CHECKF(fa.live == 0, "allocation %ld: %ld blocks leaked", n, fa.live);
    }
  CHECK(finished);
}

/* ---- the documented rules, each against a computation written out here ------------------- */

/* README: "A run never exceeds its evaluation limit (it stops before a generation that would)":
 * at an exact multiple of NP the last generation that fits runs. The solver runs generations in
 * chunks (1, 2, 4, ... on a fast problem) and looks at the rules between chunks, so the limit
 * rule decides only where a chunk ends one generation before the limit: every limit of 2 to 81
 * generations is tried, so that some chunk ends there whatever the timing. */
TEST_CASE(eval_limit_exact_multiple)
{
  devo_problem *p = make("rastrigin", 5);
  devo_solver *s = solver(p, 10, 0.5, 0.9, 3);
  devo_stats st;
  int g;
  for (g = 1; g <= 80; ++g) {
    CHECK(devo_solver_set_max_evals(s, 10 * ((int64_t)g + 1)) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
    CHECK(devo_solver_stats(s, &st) == DEVO_OK);
    CHECKF(st.evaluations == 10 * (g + 1) && st.generations == g,
           "limit %d evaluations (NP = 10): %lld evaluations, %lld generations", 10 * (g + 1),
           (long long)st.evaluations, (long long)st.generations);
  }
  CHECK(devo_solver_set_max_evals(s, 10) == DEVO_OK); /* the initial population alone */
  CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  CHECK_EQ_INT(st.evaluations, 10);
  CHECK_EQ_INT(st.generations, 0);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* A user objective that records every vector it is asked for, in order (one thread: the
 * initial population, then each generation's trials by index), and returns kind 0: 1.0
 * everywhere (a plateau), kind 1: floor(x_0 / 40) (many ties, some strict), kind 2: x_0. */
typedef struct rec_obj {
  double *x;
  size_t n, cap;
  int kind;
} rec_obj;

static double rec_value(int kind, const double *x)
{
  return kind == 0 ? 1.0 : kind == 1 ? floor(x[0] / 40.0) : x[0];
}

static int rec_fn(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  rec_obj *o = (rec_obj *)ud;
  size_t k;
  for (k = 0; k < n; ++k) {
    if (o->n < o->cap)
      memcpy(o->x + o->n * dim, x + k * dim, dim * sizeof(double));
    o->n++;
    f[k] = rec_value(o->kind, x + k * dim);
  }
  return 0;
}

typedef struct hand_count {
  long taken, low, high, mirror_clipped, ties, kept;
} hand_count;

/* The repair of a taken mutant coordinate v as README.md words each rule. */
static double hand_repair(int rule, double v, double parent, double lo, double hi, double u)
{
  double r;
  if (v >= lo && v <= hi)
    return v;
  switch (rule) {
  case DEVO_BOUNDS_CLIP: /* the nearest bound */
    return v < lo ? lo : hi;
  case DEVO_BOUNDS_REFLECT: /* mirrored at the violated bound, then clipped */
    r = v < lo ? 2.0 * lo - v : 2.0 * hi - v;
    return r < lo ? lo : r > hi ? hi : r;
  case DEVO_BOUNDS_MIDPOINT: /* halfway between the parent and the violated bound */
    return (parent + (v < lo ? lo : hi)) / 2.0;
  default: /* reinit: uniform in the bounds, from the draw the README names */
    return lo + u * (hi - lo);
  }
}

/* gens generations of DE/rand/1/bin (README "Algorithm") by hand from the recorded initial
 * population: each trial against the recorded one bit for bit, then the replacement rule
 * f(trial) <= f(target), and the solver's final population against the hand-made one. The
 * random draws (indices, u) are devo__de_indices and devo__de_coord, whose streams test_philox
 * checks; everything built from them is computed here. */
static hand_count hand_de(int rule, int kind, int np, int dim, double f, double cr, int gens)
{
  const double lo = -10.0, hi = 10.0;
  const uint64_t seed = 99;
  const size_t nd = (size_t)np * dim;
  rec_obj o;
  hand_count c;
  devo_problem *p = NULL;
  devo_solver *s;
  double *pop = (double *)malloc(nd * sizeof(double)), *got = (double *)malloc(nd * sizeof(double)),
         *fit = (double *)malloc((size_t)np * sizeof(double));
  int g, i, j;
  memset(&c, 0, sizeof c);
  o.cap = (size_t)np * (gens + 1);
  o.x = (double *)malloc(o.cap * dim * sizeof(double));
  o.n = 0;
  o.kind = kind;
  CHECK(pop && got && fit && o.x);
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user(p, dim, lo, hi, rec_fn, &o) == DEVO_OK);
  s = solver(p, np, f, cr, seed);
  CHECK(devo_solver_set_bounds(s, rule) == DEVO_OK);
  CHECK(devo_solver_set_threads(s, 1) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, gens) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK_EQ_INT(o.n, (size_t)np * (gens + 1));
  CHECK(devo_solver_population(s, got, NULL) == DEVO_OK);
  memcpy(pop, o.x, nd * sizeof(double));
  for (i = 0; i < np; ++i)
    fit[i] = rec_value(kind, pop + (size_t)i * dim);
  for (g = 1; g <= gens; ++g) {
    const double *trials = o.x + (size_t)g * nd;
    double *next = (double *)malloc(nd * sizeof(double));
    CHECK(next != NULL);
    for (i = 0; i < np; ++i) {
      devo__de_idx r =
          devo__de_indices(seed, (uint32_t)g, (uint32_t)i, (uint32_t)np, (uint32_t)dim);
      const double *xi = pop + (size_t)i * dim, *t = trials + (size_t)i * dim;
      double ft;
      CHECK(r.r1 != (uint32_t)i && r.r2 != (uint32_t)i && r.r3 != (uint32_t)i && r.r1 != r.r2 &&
            r.r1 != r.r3 && r.r2 != r.r3);
      for (j = 0; j < dim; ++j) {
        devo__de_u u = devo__de_coord(seed, (uint32_t)g, (uint32_t)i, (uint32_t)j);
        volatile double fd = f * (pop[(size_t)r.r2 * dim + j] - pop[(size_t)r.r3 * dim + j]);
        const double v = pop[(size_t)r.r1 * dim + j] + fd;
        double want = xi[j];
        if (u.cr < cr || (uint32_t)j == r.jrand) {
          c.taken++;
          c.low += v < lo;
          c.high += v > hi;
          c.mirror_clipped += v < lo - (hi - lo) || v > hi + (hi - lo);
          want = hand_repair(rule, v, xi[j], lo, hi, u.bound);
        }
        if (memcmp(&want, &t[j], sizeof want) != 0)
          tc_fail(__FILE__, __LINE__,
                  "bounds rule %d, generation %d, trial %d, coordinate %d: %.17g, by hand %.17g "
                  "(mutant %.17g)",
                  rule, g, i, j, t[j], want, v);
        tc_checks++;
      }
      ft = rec_value(kind, t);
      c.ties += ft == fit[i] && memcmp(t, xi, (size_t)dim * sizeof(double)) != 0;
      if (ft <= fit[i]) {
        memcpy(next + (size_t)i * dim, t, (size_t)dim * sizeof(double));
        fit[i] = ft;
      } else {
        memcpy(next + (size_t)i * dim, xi, (size_t)dim * sizeof(double));
        c.kept++;
      }
    }
    memcpy(pop, next, nd * sizeof(double));
    free(next);
  }
  CHECKF(memcmp(pop, got, nd * sizeof(double)) == 0,
         "bounds rule %d objective %d: the population after %d generations differs from the "
         "replacement f(trial) <= f(target) done by hand",
         rule, kind, gens);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  free(o.x);
  free(pop);
  free(got);
  free(fit);
  return c;
}

/* README: mutant coordinates outside the box are repaired by --bounds (reinit, clip, reflect,
 * midpoint). F = 2 sends many mutants out on both sides, some beyond a whole box width (where
 * reflect's mirror image is clipped). */
TEST_CASE(bound_rules_by_hand)
{
  int rule;
  for (rule = DEVO_BOUNDS_REINIT; rule <= DEVO_BOUNDS_MIDPOINT; ++rule) {
    hand_count c = hand_de(rule, 0, 40, 6, 2.0, 0.7, 3);
    printf("  bounds rule %d: %ld coordinates taken, %ld below the box, %ld above, %ld beyond a "
           "box width\n",
           rule, c.taken, c.low, c.high, c.mirror_clipped);
    CHECK(c.low >= 20 && c.high >= 20 && c.mirror_clipped >= 5);
  }
}

/* README: "the trial replaces the target when f(trial) <= f(target)": on a plateau every trial
 * replaces its target; on a staircase, equal steps replace and worse ones do not. */
TEST_CASE(replacement_on_equal_fitness)
{
  hand_count c = hand_de(DEVO_BOUNDS_CLIP, 0, 20, 4, 0.5, 0.9, 2);
  CHECK(c.ties >= 20 && c.kept == 0);
  c = hand_de(DEVO_BOUNDS_REINIT, 1, 30, 3, 0.8, 0.9, 4);
  printf("  staircase: %ld trials equal to their target's value, %ld worse ones not taken\n",
         c.ties, c.kept);
  CHECK(c.ties >= 10 && c.kept >= 10);
  c = hand_de(DEVO_BOUNDS_REFLECT, 2, 30, 3, 0.8, 0.9, 4);
  CHECK(c.kept >= 10);
}

/* README: the run stops when best <= target (devo_solver_set_target takes the value), checked
 * after the initial population and after every generation. */
TEST_CASE(target_rule_inclusive)
{
  rec_obj o = {NULL, 0, 0, 0};
  devo_problem *p = NULL;
  devo_solver *s;
  devo_stats st;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user(p, 3, -1.0, 1.0, rec_fn, &o) == DEVO_OK); /* 1.0 everywhere */
  s = solver(p, 10, 0.5, 0.9, 1);
  CHECK(devo_solver_set_max_generations(s, 50) == DEVO_OK);
  CHECK(devo_solver_set_target(s, 1.0) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_TARGET_REACHED);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  CHECK_EQ_INT(st.generations, 0);
  CHECK(devo_solver_set_target(s, nextafter(1.0, 0.0)) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  CHECK_EQ_INT(st.generations, 50);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* ---- per-coordinate bounds (devo_problem_set_bounds) ------------------------------------- */

/* A sum of the coordinates: every minimum sits on the lower corner, so the search pushes mutants
 * out of the box below on every coordinate. */
static int user_sum(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i, j;
  (void)ud;
  for (i = 0; i < n; ++i) {
    double s = 0.0;
    for (j = 0; j < dim; ++j)
      s += x[i * dim + j];
    f[i] = s;
  }
  return 0;
}

/* Six boxes that do not overlap, of widths from 0.5 to 16: a run that used one box for every
 * coordinate (the enclosing one, or the first) would leave some of them. */
#define CB_D 6
static void coord_box(double *lo, double *hi)
{
  int j;
  for (j = 0; j < CB_D; ++j) {
    lo[j] = 100.0 * j - 50.0;
    hi[j] = lo[j] + ldexp(0.5, j);
  }
}

/* Validation: each refusal names the coordinate, and leaves the problem as it was. */
TEST_CASE(coord_bounds_rejected)
{
  devo_problem *p = NULL, *q = NULL;
  devo_etc *e = NULL;
  double lo[CB_D], hi[CB_D], got_lo[CB_D], got_hi[CB_D], l1, h1, o[4];
  const double bad[][2] = {
      {(double)NAN, 1.0}, {-1.0, (double)INFINITY}, {2.0, 2.0}, {3.0, -3.0}, {-1e308, 1e308}};
  int k, j;
  tc_fail_alloc fa = {0, 0, 0, 0};
  devo_allocator al = tc_fail_allocator(&fa);
  coord_box(lo, hi);
  CHECK(devo_problem_set_bounds(NULL, lo, hi) == DEVO_E_INVALID);
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_bounds(p, lo, hi) == DEVO_E_STATE); /* not configured */
  CHECK(devo_problem_bounds_vec(p, got_lo, got_hi) == DEVO_E_STATE);
  CHECK(devo_problem_set_user(p, CB_D, -1.0, 1.0, user_sum, NULL) == DEVO_OK);
  CHECK(devo_problem_set_bounds(p, NULL, hi) == DEVO_E_INVALID);
  CHECK(devo_problem_set_bounds(p, lo, NULL) == DEVO_E_INVALID);
  for (k = 0; k < (int)(sizeof bad / sizeof bad[0]); ++k) {
    double blo[CB_D], bhi[CB_D];
    memcpy(blo, lo, sizeof lo);
    memcpy(bhi, hi, sizeof hi);
    blo[k] = bad[k][0];
    bhi[k] = bad[k][1];
    char want[32];
    snprintf(want, sizeof want, "coordinate %d", k);
    CHECK(devo_problem_set_bounds(p, blo, bhi) == DEVO_E_INVALID);
    CHECKF(strstr(devo_problem_errmsg(p), want) != NULL, "case %d: %s", k, devo_problem_errmsg(p));
    CHECK(devo_problem_bounds_vec(p, got_lo, got_hi) == DEVO_OK); /* unchanged: [-1, 1] */
    for (j = 0; j < CB_D; ++j)
      CHECK(got_lo[j] == -1.0 && got_hi[j] == 1.0);
  }
  /* accepted: copied, read back, the enclosing box from the scalar getter */
  CHECK(devo_problem_set_bounds(p, lo, hi) == DEVO_OK);
  lo[0] = hi[0] = 7.0; /* the caller's arrays are not kept */
  CHECK(devo_problem_bounds_vec(p, got_lo, got_hi) == DEVO_OK);
  coord_box(lo, hi);
  CHECK(memcmp(got_lo, lo, sizeof lo) == 0 && memcmp(got_hi, hi, sizeof hi) == 0);
  CHECK(devo_problem_bounds(p, &l1, &h1) == DEVO_OK && l1 == lo[0] && h1 == hi[CB_D - 1]);
  /* a built-in problem: the optimum must stay inside, coordinate by coordinate */
  q = make("sphere", 4);
  CHECK(devo_problem_optimum(q, o) == DEVO_OK);
  {
    double qlo[4], qhi[4];
    for (j = 0; j < 4; ++j) {
      qlo[j] = o[j] - 1.0 - j;
      qhi[j] = o[j] + 0.5;
    }
    qhi[2] = o[2] - 0.25; /* coordinate 2 excludes it */
    CHECK(devo_problem_set_bounds(q, qlo, qhi) == DEVO_E_INVALID);
    CHECKF(strstr(devo_problem_errmsg(q), "coordinate 2") &&
               strstr(devo_problem_errmsg(q), "optimum"),
           "%s", devo_problem_errmsg(q));
    qhi[2] = o[2] + 0.25;
    CHECK(devo_problem_set_bounds(q, qlo, qhi) == DEVO_OK);
    /* devo_problem_set_box gives every coordinate one box again */
    CHECK(devo_problem_set_box(q, -90.0, 90.0) == DEVO_OK);
    CHECK(devo_problem_bounds_vec(q, qlo, qhi) == DEVO_OK);
    for (j = 0; j < 4; ++j)
      CHECK(qlo[j] == -90.0 && qhi[j] == 90.0);
  }
  devo_problem_destroy(q);
  /* an ETC problem's box is its decoding */
  q = tc_small_problem(2, &e);
  CHECK(devo_problem_set_bounds(q, lo, hi) == DEVO_E_INVALID);
  devo_problem_destroy(q);
  devo_etc_destroy(e);
  /* out of memory: refused, nothing changed, nothing leaked */
  q = NULL;
  CHECK(devo_problem_create(&q, &al) == DEVO_OK);
  CHECK(devo_problem_set_user(q, CB_D, -1.0, 1.0, user_sum, NULL) == DEVO_OK);
  fa.fail_at = fa.calls + 1;
  CHECK(devo_problem_set_bounds(q, lo, hi) == DEVO_E_NOMEM);
  CHECK(devo_problem_bounds(q, &l1, &h1) == DEVO_OK && l1 == -1.0 && h1 == 1.0);
  devo_problem_destroy(q);
  CHECK(fa.live == 0);
  devo_problem_destroy(p);
}

/* The GPU backend takes one box for every coordinate: refused with per-coordinate bounds (before
 * any device is looked for, so in every build), auto runs them on the CPU. */
TEST_CASE(coord_bounds_backends)
{
  devo_problem *p = make("sphere", CB_D);
  devo_solver *s;
  devo_stats st;
  double lo[CB_D], hi[CB_D];
  int j;
  CHECK(devo_problem_optimum(p, lo) == DEVO_OK);
  for (j = 0; j < CB_D; ++j) { /* boxes of several widths around the optimum */
    hi[j] = lo[j] + ldexp(1.0, j);
    lo[j] -= 1.0;
  }
  CHECK(devo_problem_set_bounds(p, lo, hi) == DEVO_OK);
  s = solver(p, 20, 0.5, 0.9, 1);
  CHECK(devo_solver_set_max_generations(s, 5) == DEVO_OK);
  CHECK(devo_solver_set_backend(s, DEVO_BACKEND_GPU) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  CHECKF(strstr(devo_solver_errmsg(s), "per-coordinate bounds"), "%s", devo_solver_errmsg(s));
  CHECK(devo_solver_set_backend(s, DEVO_BACKEND_AUTO) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK && st.backend == DEVO_BACKEND_CPU);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* Every vector of the initial population inside its coordinate's box, spread over it; every
 * vector of the final population and the best inside, for every bound rule and every family of
 * trial code (plain rand1bin, a variant with the binomial and with the exponential crossover and
 * GOBL's opposites, SHADE); the same bits on 1 and 3 threads. */
TEST_CASE(coord_bounds_respected)
{
  enum { NP = 40 };
  static const char *const algos[] = {"de", "jde", "gojde", "shade"};
  devo_problem *p = NULL;
  double lo[CB_D], hi[CB_D], pop[2][NP * CB_D], best[CB_D];
  int rule, a, t, i, j;
  coord_box(lo, hi);
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user(p, CB_D, -1.0, 1.0, user_sum, NULL) == DEVO_OK);
  CHECK(devo_problem_set_bounds(p, lo, hi) == DEVO_OK);
  { /* the initial population alone */
    devo_solver *s = solver(p, NP, 0.5, 0.9, 3);
    CHECK(devo_solver_set_max_evals(s, NP) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
    CHECK(devo_solver_population(s, pop[0], NULL) == DEVO_OK);
    for (j = 0; j < CB_D; ++j) {
      double mn = hi[j], mx = lo[j];
      for (i = 0; i < NP; ++i) {
        const double x = pop[0][i * CB_D + j];
        CHECK(x >= lo[j] && x < hi[j]);
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
      }
      CHECKF(mx - mn > 0.5 * (hi[j] - lo[j]), "coordinate %d: drawn in [%g, %g] of [%g, %g]", j, mn,
             mx, lo[j], hi[j]);
    }
    devo_solver_destroy(s);
  }
  for (a = 0; a < 4; ++a)
    for (rule = DEVO_BOUNDS_REINIT; rule <= DEVO_BOUNDS_MIDPOINT; ++rule) {
      for (t = 0; t < 2; ++t) {
        devo_solver *s = solver(p, NP, 1.9, 0.9, 5); /* F = 1.9 sends mutants out */
        double f;
        CHECK(devo_solver_set_algorithm(s, algos[a]) == DEVO_OK);
        CHECK(devo_solver_set_bounds(s, rule) == DEVO_OK);
        CHECK(devo_solver_set_threads(s, 1 + 2 * t) == DEVO_OK);
        CHECK(devo_solver_set_max_generations(s, 60) == DEVO_OK);
        CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
        CHECK(devo_solver_population(s, pop[t], NULL) == DEVO_OK);
        CHECK(devo_solver_best(s, &f, best) == DEVO_OK);
        for (i = 0; i < NP; ++i)
          for (j = 0; j < CB_D; ++j)
            CHECKF(pop[t][i * CB_D + j] >= lo[j] && pop[t][i * CB_D + j] <= hi[j],
                   "%s, rule %d: individual %d coordinate %d is %.17g, outside [%g, %g]", algos[a],
                   rule, i, j, pop[t][i * CB_D + j], lo[j], hi[j]);
        for (j = 0; j < CB_D; ++j)
          CHECK(best[j] >= lo[j] && best[j] <= hi[j]);
        devo_solver_destroy(s);
      }
      CHECK(memcmp(pop[0], pop[1], sizeof pop[0]) == 0);
    }
  devo_problem_destroy(p);
}

/* One run's final population and best (np x dim, np + 1 rows in out). */
static void run_pop(devo_problem *p, const char *algo, int np, int dim, double *out)
{
  devo_solver *s = solver(p, np, 0.7, 0.9, 11);
  CHECK(devo_solver_set_algorithm(s, algo) == DEVO_OK);
  CHECK(devo_solver_set_bounds(s, DEVO_BOUNDS_REFLECT) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 40) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_population(s, out, NULL) == DEVO_OK);
  CHECK(devo_solver_best(s, NULL, out + (size_t)np * dim) == DEVO_OK);
  devo_solver_destroy(s);
}

/* The same bounds on every coordinate through devo_problem_set_bounds give the bits of the one
 * box of devo_problem_set_box / devo_problem_set_user: built-in and user problems, every family
 * of trial code. */
TEST_CASE(coord_bounds_uniform_same_bits)
{
  enum { NP = 24, D = 12 };
  static const char *const algos[] = {"de", "jde", "gojde", "shade"};
  double a[(NP + 1) * D], b[(NP + 1) * D], lo[D], hi[D];
  int k, j;
  for (k = 0; k < 4; ++k) {
    devo_problem *p = make("rastrigin", D), *q = make("rastrigin", D), *u = NULL, *v = NULL;
    CHECK(devo_problem_set_box(p, -90.0, 90.0) == DEVO_OK); /* the shift is in [-80, 80] */
    for (j = 0; j < D; ++j) {
      lo[j] = -90.0;
      hi[j] = 90.0;
    }
    CHECK(devo_problem_set_bounds(q, lo, hi) == DEVO_OK);
    run_pop(p, algos[k], NP, D, a);
    run_pop(q, algos[k], NP, D, b);
    CHECKF(memcmp(a, b, sizeof a) == 0, "%s: rastrigin", algos[k]);
    CHECK(devo_problem_create(&u, NULL) == DEVO_OK && devo_problem_create(&v, NULL) == DEVO_OK);
    CHECK(devo_problem_set_user(u, D, -90.0, 90.0, user_sum, NULL) == DEVO_OK);
    CHECK(devo_problem_set_user(v, D, -1.0, 1.0, user_sum, NULL) == DEVO_OK);
    CHECK(devo_problem_set_bounds(v, lo, hi) == DEVO_OK);
    run_pop(u, algos[k], NP, D, a);
    run_pop(v, algos[k], NP, D, b);
    CHECKF(memcmp(a, b, sizeof a) == 0, "%s: user objective", algos[k]);
    devo_problem_destroy(p);
    devo_problem_destroy(q);
    devo_problem_destroy(u);
    devo_problem_destroy(v);
  }
}

static const tc_case cases[] = {TC(sphere_converges_10_of_10),
                                TC(rastrigin_success_rate),
                                TC(threads_bit_identical),
                                TC(limits_are_exact),
                                TC(callback_stops_and_sees_progress),
                                TC(target_stops_at_generation),
                                TC(interrupt_from_another_thread),
                                TC(time_limit_slow_objective),
                                TC(time_limit_overshoot),
                                TC(bad_options_rejected),
                                TC(user_objective),
                                TC(user_batch_whole_generation),
                                TC(bound_rules_keep_population_inside),
                                TC(allocation_failures),
                                TC(eval_limit_exact_multiple),
                                TC(bound_rules_by_hand),
                                TC(replacement_on_equal_fitness),
                                TC(target_rule_inclusive),
                                TC(coord_bounds_rejected),
                                TC(coord_bounds_backends),
                                TC(coord_bounds_respected),
                                TC(coord_bounds_uniform_same_bits)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
