/* SPDX-License-Identifier: MIT */
/* tcheck.c: the test harness behind tcheck.h. */
#define _POSIX_C_SOURCE 200809L
#include "tcheck.h"

/* the repository's data/ folder, which CMake passes in (DEVO_SHARED_DIR) */
#ifndef DEVO_TEST_DATA
#define DEVO_TEST_DATA "data"
#endif

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/stats.h"

int tc_checks = 0;
static const char *tc_current = "?";
static char tc_later[512]; /* tc_skip_after's reason for the running case */

void tc_fail(const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "FAIL %s (%s:%d): ", tc_current, file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

void tc_skip(const char *why)
{
  printf("SKIP %s: %s\n", tc_current, why);
  fflush(stdout);
  exit(77);
}

void tc_skip_after(const char *why)
{
  if (!tc_later[0])
    snprintf(tc_later, sizeof tc_later, "%s", why);
}

static char tc_dir[64];

const char *tc_path_in(const char *name)
{
  static char p[8][256];
  static int k;
  if (!tc_dir[0]) {
    snprintf(tc_dir, sizeof tc_dir, "/tmp/devo_tc_XXXXXX");
    if (!mkdtemp(tc_dir)) {
      tc_dir[0] = 0;
      TC_SKIP("no temporary folder");
    }
  }
  k = (k + 1) % 8;
  snprintf(p[k], sizeof p[k], "%s/%s", tc_dir, name);
  return p[k];
}

static void tc_remove_dir(void)
{
  char cmd[128];
  if (!tc_dir[0])
    return;
  snprintf(cmd, sizeof cmd, "rm -rf %s", tc_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tc_dir);
}

static int tc_run_cases(const tc_case *cases, int ncases, int argc, char **argv);

int tc_main(const tc_case *cases, int ncases, int argc, char **argv)
{
  const int rc = tc_run_cases(cases, ncases, argc, argv);
  tc_remove_dir();
  return rc;
}

static int tc_run_cases(const tc_case *cases, int ncases, int argc, char **argv)
{
  int i, ran = 0, skipped = 0;
  for (i = 0; i < ncases; ++i) {
    int before = tc_checks;
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
      continue;
    tc_current = cases[i].name;
    tc_later[0] = 0;
    cases[i].fn();
    ran++;
    if (tc_checks == before) {
      fprintf(stderr, "FAIL %s: the case made no check\n", cases[i].name);
      return 1;
    }
    if (tc_later[0]) {
      printf("SKIP %s: %s (the rest of the case passed, %d checks)\n", cases[i].name, tc_later,
             tc_checks - before);
      skipped++;
      continue;
    }
    printf("ok %s (%d checks)\n", cases[i].name, tc_checks - before);
  }
  if (argc > 1 && ran == 0) {
    fprintf(stderr, "no test case named %s\n", argv[1]);
    return 1;
  }
  return skipped > 0 && skipped == ran ? 77 : 0;
}

const char *tc_shared(const char *sub)
{
  static char buf[4096];
  struct stat st;
  const char *dir = getenv("DEVO_SHARED");
  if (!dir || !*dir)
    dir = DEVO_TEST_DATA;
  snprintf(buf, sizeof buf, "%s/%s", dir, sub);
  if (stat(buf, &st) != 0)
    return NULL;
  return buf;
}

const char *tc_devo_bin(void)
{
  const char *b = getenv("DEVO_BIN");
  if (!b || !*b || access(b, X_OK) != 0)
    tc_skip("DEVO_BIN does not name the devo program (run through ctest)");
  return b;
}

char *tc_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (buf) {
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = 0;
    if (len)
      *len = (size_t)n;
  }
  fclose(f);
  return buf;
}

int tc_run(const char *cmd, char **out, char **err)
{
  char tmpo[] = "/tmp/devo_tc_outXXXXXX", tmpe[] = "/tmp/devo_tc_errXXXXXX";
  char *full;
  size_t n;
  int fo = mkstemp(tmpo), fe = mkstemp(tmpe), rc;
  if (fo < 0 || fe < 0)
    return -1;
  close(fo);
  close(fe);
  n = strlen(cmd) + 2 * sizeof tmpo + 32;
  full = (char *)malloc(n);
  if (!full)
    return -1;
  snprintf(full, n, "( %s ) >%s 2>%s", cmd, tmpo, tmpe);
  rc = system(full);
  free(full);
  if (out)
    *out = tc_slurp(tmpo, NULL);
  if (err)
    *err = tc_slurp(tmpe, NULL);
  unlink(tmpo);
  unlink(tmpe);
  if (rc == -1 || !WIFEXITED(rc))
    return -1;
  return WEXITSTATUS(rc);
}

static void *fa_alloc(void *ud, size_t size)
{
  tc_fail_alloc *a = (tc_fail_alloc *)ud;
  void *p;
  if (++a->calls == a->fail_at || (a->sticky && a->fail_at > 0 && a->calls > a->fail_at))
    return NULL;
  p = malloc(size);
  if (p)
    a->live++;
  return p;
}

static void fa_free(void *ud, void *p)
{
  tc_fail_alloc *a = (tc_fail_alloc *)ud;
  if (p)
    a->live--;
  free(p);
}

devo_allocator tc_fail_allocator(tc_fail_alloc *fa)
{
  devo_allocator al;
  al.alloc = fa_alloc;
  al.free = fa_free;
  al.ud = fa;
  return al;
}

void tc_expect_refused(const char *cmd, int code, const char *prefix, const char *word)
{
  char *out = NULL, *err = NULL, *nl;
  const int rc = tc_run(cmd, &out, &err);
  CHECKF(rc == code, "'%s' exited %d, expected %d (stderr: %s)", cmd, rc, code, err ? err : "");
  CHECKF(err && (!prefix || strncmp(err, prefix, strlen(prefix)) == 0) && strstr(err, word),
         "'%s': stderr '%s' lacks '%s'", cmd, err ? err : "", word);
  nl = err ? strchr(err, '\n') : NULL;
  CHECKF(nl && nl[1] == 0, "'%s': stderr is not one line: '%s'", cmd, err ? err : "");
  CHECKF(out && out[0] == 0, "'%s': printed a result on stdout: '%s'", cmd, out ? out : "");
  free(out);
  free(err);
}

double tc_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's and its waited-for children's (a CLI run through tc_run) involuntary context
 * switches. */
long tc_preemptions(void)
{
  struct rusage r, c;
  getrusage(RUSAGE_SELF, &r);
  getrusage(RUSAGE_CHILDREN, &c);
  return r.ru_nivcsw + c.ru_nivcsw;
}

/* From /proc/stat: the machine's steal time in clock ticks (the 8th number of the cpu line) and
 * the number of threads running or ready to run on the whole machine (procs_running, this one
 * included); 0 and -1 where unreadable. */
static void tc_stat(long long *steal, int *running)
{
  long long v[8] = {0};
  char line[256];
  FILE *f = fopen("/proc/stat", "r");
  *steal = 0;
  *running = -1;
  if (!f)
    return;
  if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
             &v[5], &v[6], &v[7]) == 8)
    *steal = v[7];
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "procs_running %d", running) == 1)
      break;
  fclose(f);
}

/* TC_DEADLINE_SHARED=1 (set by scripts/mutation_check.sh --rt for its SCHED_FIFO reruns): other
 * runnable threads on the machine do not make a run unclean. */
static int tc_shared_ok(void)
{
  const char *e = getenv("TC_DEADLINE_SHARED");
  return e && e[0] == '1';
}

int tc_procs_running(void)
{
  long long steal;
  int running;
  tc_stat(&steal, &running);
  return running;
}

tc_deadline tc_deadline_init(const char *what, double promise_abs, double promise_rel,
                             double allowance, int min_clean)
{
  tc_deadline d;
  memset(&d, 0, sizeof d);
  d.what = what;
  d.promise_abs = promise_abs;
  d.promise_rel = promise_rel;
  d.allowance = allowance;
  d.hang = 1.0;
  d.min_clean = min_clean;
  return d;
}

static double tc_cpu(void)
{
  struct rusage r, c;
  getrusage(RUSAGE_SELF, &r);
  getrusage(RUSAGE_CHILDREN, &c);
  return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec + c.ru_utime.tv_sec + c.ru_stime.tv_sec) +
         1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec + c.ru_utime.tv_usec +
                         c.ru_stime.tv_usec);
}

tc_mark tc_mark_now(void)
{
  tc_mark m;
  m.cpu = tc_cpu();
  m.ivcsw = tc_preemptions();
  tc_stat(&m.steal, &m.running);
  m.t0 = tc_now(); /* last: the look at /proc/stat is not part of the run */
  return m;
}

double tc_deadline_add(tc_deadline *d, tc_mark m, double limit)
{
  const double t1 = tc_now(), over = t1 - m.t0 - limit; /* first: not the bookkeeping */
  const double cpu = tc_cpu() - m.cpu;
  const double promise =
      (d->promise_abs > d->promise_rel * limit ? d->promise_abs : d->promise_rel * limit) +
      d->allowance;
  /* CPU time the busy threads did not get: a run queue's wait, or a virtual machine's stall that
   * the steal ticks (10 ms) miss (a CLI run "clean" by context switches lost 4 ms of 206) */
  const double lost = d->busy * (t1 - m.t0) - cpu;
  long long steal;
  int running, clean;
  tc_stat(&steal, &running);
  /* other threads ready to run on the machine, before the call (only this one should be) or after
   * it (this one and the call's threads still going to sleep): they share the caches, the memory
   * bus and, on SMT, the core, which slows a run that kept its CPU (a local search 10^5 tasks
   * wide ended 1.15 ms past a 2 ms limit beside a busy machine, at most 0.32 ms in other runs) */
  d->last_running = m.running > running ? m.running : running;
  clean = tc_preemptions() == m.ivcsw && steal == m.steal &&
          (d->busy <= 0.0 || lost <= fmax(0.5e-3, 0.01 * (t1 - m.t0))) &&
          (tc_shared_ok() || (m.running >= 0 && m.running <= 1 && running >= 0 &&
                              running <= (d->busy > 1.0 ? (int)d->busy : 1)));
  if (getenv("TC_VERBOSE"))
    printf("  run %d: %.3f ms past the limit of %g s, %.3f ms of CPU lost, %d running, %s\n",
           d->runs + 1, over * 1e3, limit, lost * 1e3, d->last_running,
           clean ? "clean" : "not clean");
  d->runs++;
  tc_checks++;
  if (clean) {
    d->clean++;
    d->worst = over > d->worst ? over : d->worst;
    if (over > promise)
      tc_fail(__FILE__, __LINE__,
              "%s: run %d (clean) ended %.3f ms after its limit of %g s; the promise is "
              "%.3f ms",
              d->what, d->runs, over * 1e3, limit, promise * 1e3);
  } else {
    d->worst_busy = over > d->worst_busy ? over : d->worst_busy;
    if (over > d->hang)
      tc_fail(__FILE__, __LINE__, "%s: run %d ended %.3f s after its limit of %g s (not clean)",
              d->what, d->runs, over, limit);
  }
  return over;
}

int tc_deadline_enough(const tc_deadline *d)
{
  return d->clean >= d->min_clean;
}

void tc_deadline_end(const tc_deadline *d)
{
  char why[512];
  printf("  %s: %d runs, %d clean (largest overrun %.3f ms), %d not clean (largest %.3f ms)\n",
         d->what, d->runs, d->clean, d->worst * 1e3, d->runs - d->clean, d->worst_busy * 1e3);
  if (d->clean < d->min_clean) {
    snprintf(why, sizeof why,
             "inconclusive: %d of %d runs were clean (not preempted, no other thread ready to "
             "run), %d needed (a loaded machine); the promise was not tested",
             d->clean, d->runs, d->min_clean);
    tc_skip(why);
  }
}

devo_problem *tc_small_problem(int which, devo_etc **e)
{
  devo_problem *p = NULL;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  *e = NULL;
  if (which == 0) {
    CHECK(devo_problem_set_builtin(p, "rastrigin", 12, 1, NULL) == DEVO_OK);
  } else if (which == 1) {
    CHECKF(devo_problem_set_builtin(p, "F03", 10, 1, NULL) == DEVO_OK, "%s",
           devo_problem_errmsg(p));
  } else {
    double v[40 * 5];
    char err[256];
    int t;
    for (t = 0; t < 40 * 5; ++t)
      v[t] = 1.0 + (double)((t * 7919) % 97);
    CHECKF(devo_etc_create(e, 40, 5, v, NULL, err, sizeof err) == DEVO_OK, "%s", err);
    CHECK(devo_problem_set_etc(p, *e, 0.75, DEVO_ORDER_FCFS, DEVO_ETC_SEED_PLAIN) == DEVO_OK);
  }
  return p;
}

devo_problem *tc_etc_small_problem(devo_etc **e)
{
  const char *src = getenv("DEVO_SOURCE");
  char path[4096], err[256];
  devo_problem *p = NULL;
  FILE *f;
  snprintf(path, sizeof path, "%s/etc_data/small_64x8.csv", src ? src : ".");
  f = fopen(path, "r");
  CHECKF(f != NULL, "cannot open %s (run through ctest, or from the source tree)", path);
  CHECKF(devo_etc_read(e, f, path, DEVO_ETC_CSV, 0, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  fclose(f);
  CHECK_EQ_INT(devo_problem_create(&p, NULL), DEVO_OK);
  CHECK_EQ_INT(devo_problem_set_etc(p, *e, 0.75, DEVO_ORDER_FCFS, DEVO_ETC_SEED_PLAIN), DEVO_OK);
  return p;
}

static int tc_cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double tc_median(const double *v, int n)
{
  double t[64];
  if (n < 1 || n > 64) {
    tc_fail(__FILE__, __LINE__, "tc_median: n %d outside 1 .. 64", n);
    return 0.0;
  }
  memcpy(t, v, (size_t)n * sizeof(double));
  qsort(t, (size_t)n, sizeof(double), tc_cmp_double);
  return t[n / 2];
}

double tc_mwu_p(const double *a, int na, const double *b, int nb)
{
  st_key ka[64], kb[64];
  st_mwu w;
  int i;
  if (na < 1 || na > 64 || nb < 1 || nb > 64) {
    tc_fail(__FILE__, __LINE__, "tc_mwu_p: sizes %d, %d outside 1 .. 64", na, nb);
    return 1.0;
  }
  for (i = 0; i < na; ++i) {
    ka[i].cls = 0;
    ka[i].v = -a[i];
  }
  for (i = 0; i < nb; ++i) {
    kb[i].cls = 0;
    kb[i].v = -b[i];
  }
  if (st_mannwhitney(ka, na, kb, nb, &w) != 0) {
    tc_fail(__FILE__, __LINE__, "tc_mwu_p: out of memory");
    return 1.0;
  }
  return w.p;
}

void tc_result_take(devo_solver *s, int np, int d, int status, tc_result *r)
{
  r->status = status;
  devo_solver_stats(s, &r->st);
  r->x = (double *)calloc((size_t)d, sizeof(double));
  r->pop = (double *)calloc((size_t)np * d, sizeof(double));
  r->fit = (double *)calloc((size_t)np, sizeof(double));
  CHECKF(devo_solver_best(s, &r->best, r->x) == DEVO_OK, "%s", devo_solver_errmsg(s));
  CHECK_EQ_INT(devo_solver_population(s, r->pop, r->fit), DEVO_OK);
  snprintf(r->info, sizeof r->info, "%s", devo_solver_backend_info(s));
}

void tc_result_drop(tc_result *r)
{
  free(r->x);
  free(r->pop);
  free(r->fit);
  memset(r, 0, sizeof *r);
}

int tc_result_same(const tc_result *a, const tc_result *b, int np, int d)
{
  return a->status == b->status && a->st.generations == b->st.generations &&
         a->st.evaluations == b->st.evaluations &&
         memcmp(&a->best, &b->best, sizeof a->best) == 0 &&
         memcmp(a->x, b->x, (size_t)d * sizeof(double)) == 0 &&
         memcmp(a->pop, b->pop, (size_t)np * d * sizeof(double)) == 0 &&
         memcmp(a->fit, b->fit, (size_t)np * sizeof(double)) == 0;
}

devo_solver *tc_trial_solver(devo_problem *p, const tc_trial *t)
{
  devo_solver *s = NULL;
  CHECK_EQ_INT(devo_solver_create(&s, p, NULL), DEVO_OK);
  if (t->algo)
    CHECKF(devo_solver_set_algorithm(s, t->algo) == DEVO_OK, "%s", devo_solver_errmsg(s));
  if (t->strategy)
    CHECKF(devo_solver_set_strategy_name(s, t->strategy) == DEVO_OK, "%s", devo_solver_errmsg(s));
  CHECK_EQ_INT(devo_solver_set_np(s, t->np), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_seed(s, t->seed), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_evals(s, t->max_evals), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_max_generations(s, t->max_gens), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_target(s, t->target), DEVO_OK);
  CHECK_EQ_INT(devo_solver_set_time_limit(s, t->time_limit), DEVO_OK);
  return s;
}
