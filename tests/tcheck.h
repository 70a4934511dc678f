/* SPDX-License-Identifier: MIT */
/* tcheck.h: the tiny test harness of devo's ctest programs. A program defines cases with
 * TEST_CASE(name) / SLOW_CASE(name) / TIMED_CASE(name) at the start of a line (CMake reads those
 * lines to register one ctest entry per case; slow and timed cases run alone, since timing
 * promises do not hold beside other tests), lists them in a TCASES table, and calls tc_main. A case
 * fails by CHECK*; TC_SKIP(msg) exits 77, which ctest reports as skipped. A case that made no check
 * fails (it proved nothing); a part of a case that cannot run calls tc_skip_after(msg), and the
 * case then ends as skipped with that message once the rest of it has passed, never as passed. */
#ifndef DEVO_TCHECK_H
#define DEVO_TCHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "engine/include/devo.h"

#define TEST_CASE(name)  static void name(void)
#define SLOW_CASE(name)  static void name(void)
#define TIMED_CASE(name) static void name(void)

typedef struct tc_case {
  const char *name;
  void (*fn)(void);
} tc_case;
#define TC(name)                                                                                   \
  {                                                                                                \
#name, name                                                                                    \
  }

int tc_main(const tc_case *cases, int ncases, int argc, char **argv);
/* FOLDER/name, FOLDER the program's own temporary folder (made at the first call; a case that
 * cannot make it is skipped; tc_main removes it when the cases end), in one of 8 rotating
 * buffers: copy a path that must outlive 8 more calls. */
const char *tc_path_in(const char *name);
void tc_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void tc_skip(const char *why);
/* Marks the running case as skipped (exit 77, with why) once it returns: for a part of it that
 * cannot run here while the rest still runs and is checked. */
void tc_skip_after(const char *why);
extern int tc_checks;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    tc_checks++;                                                                                   \
    if (!(cond))                                                                                   \
      tc_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                                             \
  } while (0)
#define CHECKF(cond, ...)                                                                          \
  do {                                                                                             \
    tc_checks++;                                                                                   \
    if (!(cond))                                                                                   \
      tc_fail(__FILE__, __LINE__, __VA_ARGS__);                                                    \
  } while (0)
#define CHECK_EQ_INT(a, b)                                                                         \
  do {                                                                                             \
    long long tc_a_ = (long long)(a), tc_b_ = (long long)(b);                                      \
    tc_checks++;                                                                                   \
    if (tc_a_ != tc_b_)                                                                            \
      tc_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, tc_a_, #b, tc_b_);        \
  } while (0)
/* |a - b| <= rel * max(|a|, |b|) + abs_tol */
#define CHECK_CLOSE(a, b, rel, abs_tol)                                                            \
  do {                                                                                             \
    double tc_a_ = (a), tc_b_ = (b);                                                               \
    double tc_m_ = fabs(tc_a_) > fabs(tc_b_) ? fabs(tc_a_) : fabs(tc_b_);                          \
    tc_checks++;                                                                                   \
    if (!(fabs(tc_a_ - tc_b_) <= (rel)*tc_m_ + (abs_tol)))                                         \
      tc_fail(__FILE__, __LINE__, "%s = %.17g vs %s = %.17g", #a, tc_a_, #b, tc_b_);               \
  } while (0)
#define TC_SKIP(msg) tc_skip(msg)

/* Path of the test data folder: $DEVO_SHARED, else the repository's data/ (the DEVO_SHARED_DIR
 * the tests were built with); the result is a static buffer
 * holding dir + "/" + sub. Returns NULL (and the case should skip) when it does not exist. */
const char *tc_shared(const char *sub);
/* Path of the devo CLI ($DEVO_BIN), or skips the case. */
const char *tc_devo_bin(void);
/* The whole file as a malloc'd, NUL-terminated string (its length in *len unless len is NULL),
 * or NULL. */
char *tc_slurp(const char *path, size_t *len);
/* Runs a shell command, captures stdout (and stderr when err != NULL) into malloc'd strings,
 * returns the exit code (or -1). */
int tc_run(const char *cmd, char **out, char **err);

/* Runs cmd (a shell command) and checks that it exits with code, that stderr is exactly one line
 * starting with prefix (NULL: any) and containing word, and that stdout is empty: a refused
 * input or option. */
void tc_expect_refused(const char *cmd, int code, const char *prefix, const char *word);

/* Monotonic seconds. */
double tc_now(void);

/* The median (the upper one for even n) of v[0..n), n <= 64; v is left as it is. */
double tc_median(const double *v, int n);

/* Two-sided Mann-Whitney p of the errors a[0..na) against b[0..nb) (tools/stats.h's test, as SciPy
 * computes it: a lower error is the better trial). */
double tc_mwu_p(const double *a, int na, const double *b, int nb);

/* Deadline promises. A run counts as clean when the kernel did not take the CPU from the process
 * during it: its involuntary context switches (getrusage, children included) and the machine's
 * steal time (/proc/stat, a virtual machine's stalls) did not go up, and, where the caller says how
 * many threads the call keeps busy (d.busy), it got that much CPU time; and when nothing else
 * was ready to run on the machine before and after it (/proc/stat procs_running: other work slows
 * a run through the shared caches and memory even where it keeps its CPU; TC_DEADLINE_SHARED=1
 * waives this, for the SCHED_FIFO reruns of scripts/mutation_check.sh --rt). Every clean run must
 * end within the promise, measured by the test around the call; a run that was not clean says
 * nothing about the promise (it is only held to the hang ceiling). Too few clean runs: the case is
 * skipped as inconclusive, never passed. Use: d = tc_deadline_init(...); for each run m =
 * tc_mark_now(); call; tc_deadline_add(&d, m, limit); at the end tc_deadline_end(&d). */
typedef struct tc_mark {
  long ivcsw;
  long long steal;
  double cpu, t0; /* the process's CPU seconds (children included), the monotonic clock */
  int running;    /* threads ready to run on the machine (procs_running), -1: unknown */
} tc_mark;
typedef struct tc_deadline {
  const char *what;
  double promise_abs, promise_rel; /* allowed past the limit: max(abs, rel * limit) ... */
  double allowance;                /* ... + this (stated: process start-up for a CLI run) */
  double hang;                     /* any run, clean or not: past limit + hang fails */
  double busy; /* threads the call keeps busy all along (0: not known): a run in which they got
                  less CPU time than busy x wall time - max(0.5 ms, 1% of it) waited for a CPU
                  (a woken thread left in the run queue is no context switch; a virtual
                  machine's stall shows no steal tick below 10 ms) and is not clean */
  int min_clean, runs, clean;
  int last_running;         /* the larger procs_running of the last run (before or after it) */
  double worst, worst_busy; /* largest overrun of a clean run, of one that was not */
} tc_deadline;
long tc_preemptions(void);
/* Threads running or ready to run on the whole machine, this one included (/proc/stat
 * procs_running), -1 where unknown: for timing checks that cannot use tc_deadline. */
int tc_procs_running(void);
tc_deadline tc_deadline_init(const char *what, double promise_abs, double promise_rel,
                             double allowance, int min_clean);
tc_mark tc_mark_now(void);
/* After the call: measures, fails the case at once on a clean run past the promise; returns the
 * seconds past the limit. */
double tc_deadline_add(tc_deadline *d, tc_mark m, double limit);
/* Whether enough clean runs were seen (callers may stop early). */
int tc_deadline_enough(const tc_deadline *d);
/* Prints the summary; skips the case (exit 77) when fewer than min_clean runs were clean. */
void tc_deadline_end(const tc_deadline *d);

/* A counting allocator (devo_allocator) that fails the fail_at-th allocation (0: none), and
 * with sticky every one after it too (code that retries smaller, as libcsv does, then still
 * fails), and counts the blocks still live, for the allocation-failure tests. */
typedef struct tc_fail_alloc {
  long calls, fail_at, live;
  int sticky;
} tc_fail_alloc;
devo_allocator tc_fail_allocator(tc_fail_alloc *fa);

/* A small problem of three kinds, for tests that compare runs (threads, backends): which = 0
 * shifted Rastrigin D = 12, 1 CEC F03 D = 10 (generated data), 2 a 40 x 5 ETC instance (lambda
 * 0.75, FCFS; *e receives it, the caller destroys it after the problem; else *e = NULL). */
devo_problem *tc_small_problem(int which, devo_etc **e);

/* etc_data/small_64x8.csv of the source tree ($DEVO_SOURCE, set by ctest; else the current
 * directory) as a problem (lambda 0.75, FCFS). The matrix must outlive the problem: it is returned
 * in *e. */
devo_problem *tc_etc_small_problem(devo_etc **e);

/* One trial of a batch test: its problem (an index into the test's own table), a preset or a
 * strategy (either may be NULL), NP, seed and stopping rules (0 or NAN: off); tc_trial_solver
 * makes its solver on p (the solver's default backend, the CPU). */
typedef struct tc_trial {
  int prob;
  const char *algo, *strategy;
  int np;
  uint64_t seed;
  int64_t max_evals, max_gens;
  double target, time_limit;
} tc_trial;
devo_solver *tc_trial_solver(devo_problem *p, const tc_trial *t);

/* What a solve leaves, to compare two runs of one trial (alone, in a batch, ...): status, counts,
 * best value and vector, the final population and fitness (np rows of d; L-SHADE fills fewer),
 * the backend's description. tc_result_take checks that s has a best; tc_result_same compares every
 * bit of them and the counts. */
typedef struct tc_result {
  int status;
  devo_stats st;
  double best;
  double *x, *pop, *fit;
  char info[2048];
} tc_result;
void tc_result_take(devo_solver *s, int np, int d, int status, tc_result *r);
void tc_result_drop(tc_result *r);
int tc_result_same(const tc_result *a, const tc_result *b, int np, int d);

#endif /* DEVO_TCHECK_H */
