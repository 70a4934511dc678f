/* SPDX-License-Identifier: MIT */
/* test_signals.c: SIGINT and SIGTERM end `devo schedule` and `devo solve` with the best answer so
 * far, whole, in every phase of the search (heuristics, local search, DE, iterated local search),
 * soon after the signal; a second signal ends the process at once with no output and no
 * temporary --out file; a missed deadline is said on stderr and in the JSON. The answers are
 * checked against the matrix: every task on a machine, and the makespan recomputed here. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <pthread.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/tcheck.h"

/* The promise: the search ends within 10 ms of the signal. From outside, the exit also waits for
 * the answer to be written (a few ms for the summary of JSON and a schedule file of 20,000 text
 * lines) and for the process to end; on the shared 2-core machine that was measured up to about
 * 20 ms more (see the report printed by each case). A later exit fails the case only where the
 * machine was quiet (check_latency); beside other work it says nothing about the promise (exits
 * 66 to 203 ms after the signal were seen on the loaded 2-core machine, in builds whose only
 * change was elsewhere), and the case is then skipped as inconclusive once the rest of it has
 * passed, never passed. */
#define SEARCH_STOP_S    0.010
#define EXIT_ALLOWANCE_S 0.040

/* A matrix of n x m values, uniform in [1, 1000) with 3 decimals (a small LCG: any values do),
 * written as CSV to a temporary file; its name (static) is returned, the values kept in *v. */
static const char *make_matrix(int n, int m, const char *tag, double **v)
{
  static char path[4][256];
  static int next;
  char *p = path[next++ % 4];
  uint64_t s = 88172645463325252ull;
  FILE *f;
  int t, j;
  snprintf(p, 256, "/tmp/devo_sig_%s_%ld.csv", tag, (long)getpid());
  f = fopen(p, "w");
  *v = (double *)malloc((size_t)n * m * sizeof(double));
  if (!f || !*v) {
    TC_SKIP("cannot write a temporary matrix");
    return NULL;
  }
  for (t = 0; t < n; ++t)
    for (j = 0; j < m; ++j) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      (*v)[(size_t)t * m + j] = 1.0 + (double)((s >> 33) % 999000u) / 1000.0;
      fprintf(f, "%s%.3f", j ? "," : "", (*v)[(size_t)t * m + j]);
      if (j == m - 1)
        fputc('\n', f);
    }
  fclose(f);
  /* the text as written is what devo reads: take the values back from it */
  for (t = 0; t < n * m; ++t) {
    char b[32];
    snprintf(b, sizeof b, "%.3f", (*v)[t]);
    (*v)[t] = strtod(b, NULL);
  }
  return p;
}

typedef struct run_result {
  int exited, code, signaled, termsig;
  int quiet; /* nothing but devo and this test was ready to run at the signal and after the exit */
  double t_signal, t_second, t_exit; /* seconds since the spawn */
  char *out, *err;
} run_result;

/* Waits (at most 2 s) until signal sig is no longer pending for process pid. */
static void wait_delivered(pid_t pid, int sig)
{
  char path[64], line[256];
  double t0 = tc_now();
  snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
  while (tc_now() - t0 < 2.0) {
    FILE *f = fopen(path, "r");
    int pending = 0;
    struct timespec ts = {0, 100000};
    if (!f)
      return;
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "SigPnd:", 7) == 0 || strncmp(line, "ShdPnd:", 7) == 0)
        pending |= (int)((strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1u);
    fclose(f);
    if (!pending)
      return;
    nanosleep(&ts, NULL);
  }
}

/* Whether nothing but this thread and process pid's threads is ready to run on the machine. */
static int quiet_beside(pid_t pid)
{
  char path[64], line[256];
  int threads = 0, running;
  FILE *f;
  snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
  f = fopen(path, "r");
  if (!f)
    return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &threads) == 1)
      break;
  fclose(f);
  running = tc_procs_running();
  return running >= 1 && threads >= 1 && running <= 1 + threads;
}

/* The exit within the promise after the signal. Later: a failure where the machine was quiet,
 * else (load) the case ends as skipped, inconclusive, once the rest of it has passed; beyond 1 s
 * a hang, which fails anyway. */
static void check_latency(const run_result *r, const char *what)
{
  const double late = r->t_exit - r->t_signal;
  char why[256];
  CHECKF(late <= SEARCH_STOP_S + EXIT_ALLOWANCE_S || (!r->quiet && late <= 1.0),
         "%s: exit %.1f ms after the signal (%s machine)", what, 1e3 * late,
         r->quiet ? "quiet" : "busy");
  if (late > SEARCH_STOP_S + EXIT_ALLOWANCE_S) {
    snprintf(why, sizeof why,
             "inconclusive: %s: exit %.1f ms after the signal beside other work (the promise: "
             "%.0f ms); the promise was not tested",
             what, 1e3 * late, 1e3 * (SEARCH_STOP_S + EXIT_ALLOWANCE_S));
    tc_skip_after(why);
  }
}

/* Runs devo with argv (NULL-terminated, argv[0] ignored) and stdout/stderr into files; sends sig
 * at `at` seconds after the spawn (0: none) and, when second > 0, sig (run_devo2: sig2) again
 * `second` seconds after the first. */
static void run_devo2(const char *const *argv, int sig, double at, int sig2, double second,
                      run_result *r);
static void run_devo(const char *const *argv, int sig, double at, double second, run_result *r)
{
  run_devo2(argv, sig, at, sig, second, r);
}

/* The same, the second signal being sig2. */
static void run_devo2(const char *const *argv, int sig, double at, int sig2, double second,
                      run_result *r)
{
  char outp[128], errp[128];
  double t0;
  pid_t pid;
  int st;
  memset(r, 0, sizeof *r);
  snprintf(outp, sizeof outp, "/tmp/devo_sig_out_%ld", (long)getpid());
  snprintf(errp, sizeof errp, "/tmp/devo_sig_err_%ld", (long)getpid());
  t0 = tc_now();
  pid = fork();
  if (pid == 0) {
    int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char *av[32];
    int k;
    for (k = 0; k < 31 && argv[k]; ++k)
      av[k] = strdup(argv[k]);
    av[k] = NULL;
    dup2(fo, 1);
    dup2(fe, 2);
    execv(tc_devo_bin(), av);
    _exit(127);
  }
  CHECK(pid > 0);
  if (sig) {
    struct timespec ts;
    double left = at - (tc_now() - t0);
    if (left > 0) {
      ts.tv_sec = (time_t)left;
      ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
      nanosleep(&ts, NULL);
    }
    r->quiet = quiet_beside(pid);
    r->t_signal = tc_now() - t0;
    kill(pid, sig);
    if (second > 0) {
      /* two signals of one kind that are both pending are one: the second waits until the
       * first was delivered (gone from the pending sets of /proc/PID/status) */
      wait_delivered(pid, sig);
      ts.tv_sec = 0;
      ts.tv_nsec = (long)(second * 1e9);
      nanosleep(&ts, NULL);
      r->t_second = tc_now() - t0;
      kill(pid, sig2);
    }
  }
  waitpid(pid, &st, 0);
  r->t_exit = tc_now() - t0;
  r->quiet = r->quiet && tc_procs_running() == 1;
  r->exited = WIFEXITED(st);
  r->code = r->exited ? WEXITSTATUS(st) : -1;
  r->signaled = WIFSIGNALED(st);
  r->termsig = r->signaled ? WTERMSIG(st) : 0;
  r->out = tc_slurp(outp, NULL);
  r->err = tc_slurp(errp, NULL);
  remove(outp);
  remove(errp);
}

static void run_free(run_result *r)
{
  free(r->out);
  free(r->err);
}

/* The makespan of an assignment summed here in task order from ready times 0 (the order of
 * problems/etc.h), compared bit for bit. */
static double makespan_of(const double *v, int n, int m, const int *a)
{
  double *c = (double *)calloc((size_t)m, sizeof(double)), ms = 0.0;
  int t, j;
  for (t = 0; t < n; ++t)
    c[a[t]] += v[(size_t)t * m + a[t]];
  for (j = 0; j < m; ++j)
    ms = c[j] > ms ? c[j] : ms;
  free(c);
  return ms;
}

/* Reads a schedule of 'task,machine' lines (n of them, in task order) into a. */
static int read_lines(const char *text, int n, int m, int *a)
{
  const char *p = text;
  int t, task, mach, k;
  for (t = 0; t < n; ++t) {
    if (!p || sscanf(p, "%d,%d%n", &task, &mach, &k) != 2 || task != t || mach < 0 || mach >= m)
      return 0;
    a[t] = mach;
    p = strchr(p + k, '\n');
    if (p)
      p++;
  }
  return p && *p == 0;
}

static double jnum(const cJSON *o, const char *k)
{
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(x) ? x->valuedouble : (double)NAN;
}

static const char *jstr(const cJSON *o, const char *k)
{
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(x) ? x->valuestring : "";
}

enum { PHASE_HEUR, PHASE_LS, PHASE_DE, PHASE_ILS };
static const char *const phase_names[] = {"heuristics", "local search", "DE",
                                          "iterated local search"};

/* One signal in one phase: the schedule goes to a file as text, the summary as JSON to stdout;
 * both are checked, and the phase is told by the summary's counters. */
static void one_phase(int phase, int sig, const char *path, const double *v, int n, int m,
                      const char *limit, const char *extra1, const char *extra2, double at)
{
  char outfile[128];
  const char *argv[16];
  int k = 0, *a = (int *)malloc((size_t)n * sizeof(int)), ok;
  run_result r;
  cJSON *j;
  char *sched;
  snprintf(outfile, sizeof outfile, "/tmp/devo_sig_sched_%ld.txt", (long)getpid());
  argv[k++] = "devo";
  argv[k++] = "schedule";
  argv[k++] = path;
  argv[k++] = "--time-limit";
  argv[k++] = limit;
  argv[k++] = "--json";
  argv[k++] = "--out";
  argv[k++] = outfile;
  if (extra1)
    argv[k++] = extra1;
  if (extra2)
    argv[k++] = extra2;
  argv[k] = NULL;
  run_devo(argv, sig, at, 0.0, &r);
  CHECKF(r.exited && r.code == 0, "%s, signal %d: exit %d (signal %d), stderr %s",
         phase_names[phase], sig, r.code, r.termsig, r.err ? r.err : "");
  j = r.out ? cJSON_Parse(r.out) : NULL;
  CHECKF(j != NULL, "%s: the JSON summary does not parse: %s", phase_names[phase],
         r.out ? r.out : "(none)");
  sched = tc_slurp(outfile, NULL);
  ok = sched && read_lines(sched, n, m, a);
  CHECKF(ok, "%s: the schedule file is not %d whole lines", phase_names[phase], n);
  if (j && ok) {
    const double gens = jnum(j, "generations"), ils = jnum(j, "ils_rounds");
    const double evals = jnum(j, "evaluations");
    CHECKF(strcmp(jstr(j, "stop"), "DEVO_INTERRUPTED") == 0, "%s: stop %s", phase_names[phase],
           jstr(j, "stop"));
    CHECK(jnum(j, "makespan") == makespan_of(v, n, m, a));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "deadline_met")));
    switch (phase) {
    case PHASE_HEUR: /* OLB, MET, MCT finished, the batch heuristic cut short */
      CHECKF(gens == 0 && evals == 3, "heuristics: generations %g, heuristics %g", gens, evals);
      break;
    case PHASE_LS:
      CHECKF(gens == 0 && ils == 0, "local search: generations %g, rounds %g", gens, ils);
      break;
    case PHASE_DE:
      CHECKF(gens > 0 && ils == 0, "DE: generations %g, rounds %g", gens, ils);
      break;
    default:
      CHECKF(gens > 0 && ils > 0, "ILS: generations %g, rounds %g", gens, ils);
      break;
    }
    fprintf(stderr,
            "%-22s %s at %.3f s: answer at %.3f s (process clock), exit %.1f ms after the "
            "signal, stop %s\n",
            phase_names[phase], sig == SIGINT ? "SIGINT " : "SIGTERM", r.t_signal,
            jnum(j, "elapsed"), 1e3 * (r.t_exit - r.t_signal), jstr(j, "stop"));
  }
  check_latency(&r, phase_names[phase]);
  cJSON_Delete(j);
  free(sched);
  free(a);
  remove(outfile);
  run_free(&r);
}

static void phase_case(int phase)
{
  const int big = phase == PHASE_HEUR || phase == PHASE_LS;
  const int n = big ? 20000 : 512, m = 16;
  double *v = NULL;
  const char *path = make_matrix(n, m, big ? "big" : "small", &v);
  const int sigs[2] = {SIGINT, SIGTERM};
  int k;
  for (k = 0; k < 2; ++k) {
    switch (phase) {
    case PHASE_HEUR: /* Min-min of 20,000 tasks takes seconds; it starts after reading */
      one_phase(phase, sigs[k], path, v, n, m, "30", NULL, NULL, 1.0);
      break;
    case PHASE_LS: /* the batch heuristics are dropped at 20% of the limit (2 s), the local
                      search of the seeds runs until 30% (3 s) */
      one_phase(phase, sigs[k], path, v, n, m, "10", NULL, NULL, 2.6);
      break;
    case PHASE_DE: /* no local search, no ILS: DE has the time */
      one_phase(phase, sigs[k], path, v, n, m, "10", "--local-search=off", "--ils-share=0", 1.0);
      break;
    default: /* DE the first 5% of the time, ILS the rest */
      one_phase(phase, sigs[k], path, v, n, m, "10", "--ils-share=0.95", NULL, 2.0);
      break;
    }
  }
  remove(path);
  free(v);
}

TIMED_CASE(signal_in_heuristics)
{
  phase_case(PHASE_HEUR);
}
TIMED_CASE(signal_in_local_search)
{
  phase_case(PHASE_LS);
}
TIMED_CASE(signal_in_de)
{
  phase_case(PHASE_DE);
}
TIMED_CASE(signal_in_ils)
{
  phase_case(PHASE_ILS);
}

/* No file whose name starts with prefix in /tmp. */
static int no_file_like(const char *prefix)
{
  DIR *d = opendir("/tmp");
  struct dirent *de;
  int none = 1;
  if (!d)
    return 1;
  while ((de = readdir(d)) != NULL)
    if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
      none = 0;
  closedir(d);
  return none;
}

/* The second signal ends the process at once: killed by that signal, nothing on stdout, neither
 * the --out file nor its temporary file left. The schedule goes to the file as CSV (60,000 rows
 * with times: tens of ms to write), so that a second signal 5 ms after the first comes while the
 * answer is being written, not after (with 20,000 rows the answer was once complete when a second
 * signal, sent late on a loaded machine, came 9 ms after the first). Two signals of one kind sent
 * too close together are one (the kernel keeps one pending signal of each kind), so the pair of
 * two kinds is also sent 0.2 ms apart. */
TEST_CASE(second_signal_exits_at_once)
{
  double *v = NULL;
  const char *path = make_matrix(60000, 16, "second", &v);
  const int first[3] = {SIGINT, SIGTERM, SIGINT}, then[3] = {SIGINT, SIGTERM, SIGTERM};
  const double gap[3] = {0.005, 0.005, 0.0002};
  char outfile[128], prefix[64];
  int k;
  snprintf(prefix, sizeof prefix, "devo_sig_second_out_%ld", (long)getpid());
  snprintf(outfile, sizeof outfile, "/tmp/%s", prefix);
  for (k = 0; k < 3; ++k) {
    const char *argv[] = {"devo",  "schedule", path,       "--time-limit", "30", "--json",
                          "--out", outfile,    "--format", "csv",          NULL};
    run_result r;
    run_devo2(argv, first[k], 1.0, then[k], gap[k], &r);
    /* two kinds pending at once may be handled in either order: either ends the process */
    CHECKF(r.signaled && (r.termsig == then[k] || r.termsig == first[k]),
           "signals %d, %d: exit %d, signal %d", first[k], then[k], r.code, r.termsig);
    CHECKF(r.out && r.out[0] == 0, "stdout: %s", r.out ? r.out : "");
    CHECKF(no_file_like(prefix), "an output or temporary file was left: %s*", outfile);
    fprintf(stderr, "%s then %s %.2f ms later: ended by the second %.1f ms after it\n",
            first[k] == SIGINT ? "SIGINT" : "SIGTERM", then[k] == SIGINT ? "SIGINT" : "SIGTERM",
            1e3 * (r.t_second - r.t_signal), 1e3 * (r.t_exit - r.t_second));
    run_free(&r);
  }
  remove(path);
  free(v);
}

/* devo solve: SIGINT and SIGTERM end DE with the best so far (DEVO_INTERRUPTED, exit 0, the
 * vector whole); a second signal kills it with no output. */
TIMED_CASE(solve_signals)
{
  const int sigs[2] = {SIGINT, SIGTERM};
  int k;
  for (k = 0; k < 2; ++k) {
    const char *argv[] = {"devo", "solve",        "--problem", "rastrigin", "--dim",
                          "200",  "--time-limit", "30",        "--json",    NULL};
    run_result r;
    cJSON *j;
    run_devo(argv, sigs[k], 0.5, 0.0, &r);
    CHECKF(r.exited && r.code == 0, "solve, signal %d: exit %d", sigs[k], r.code);
    j = r.out ? cJSON_Parse(r.out) : NULL;
    CHECK(j != NULL);
    if (j) {
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "x");
      CHECK(strcmp(jstr(j, "stop"), "DEVO_INTERRUPTED") == 0);
      CHECK(cJSON_IsArray(x) && cJSON_GetArraySize(x) == 200);
      CHECK(jnum(j, "elapsed") < 5.0);
      fprintf(stderr, "solve %s at %.3f s: exit %.1f ms after the signal, stop %s\n",
              k ? "SIGTERM" : "SIGINT ", r.t_signal, 1e3 * (r.t_exit - r.t_signal),
              jstr(j, "stop"));
    }
    check_latency(&r, "solve");
    cJSON_Delete(j);
    run_free(&r);
  }
  /* the second signal: both come while the problem is made or the initial population of 10^6
   * coordinates is evaluated (always done first, hundreds of ms), so before any output */
  for (k = 0; k < 2; ++k) {
    const char *argv[] = {"devo",    "solve",        "--problem", "sphere", "--dim",
                          "1000000", "--time-limit", "30",        "--json", NULL};
    run_result r;
    run_devo(argv, sigs[k], 0.05, 0.005, &r);
    CHECKF(r.signaled && r.termsig == sigs[k], "solve, signal %d twice: exit %d", sigs[k], r.code);
    CHECK(r.out && r.out[0] == 0);
    fprintf(stderr, "solve: second %s %.1f ms after the first: ended %.1f ms after it\n",
            k ? "SIGTERM" : "SIGINT", 1e3 * (r.t_second - r.t_signal),
            1e3 * (r.t_exit - r.t_second));
    run_free(&r);
  }
}

/* Reading 20,000 x 16 takes longer than a limit of 10 ms: the answer still comes, whole, exit 0,
 * with one line on stderr giving both times and "deadline_met": false. */
TEST_CASE(missed_deadline_is_said)
{
  double *v = NULL;
  const int n = 20000, m = 16;
  const char *path = make_matrix(n, m, "late", &v);
  const char *argv[] = {"devo", "schedule", path, "--time-limit", "0.01", "--json", NULL};
  run_result r;
  cJSON *j;
  run_devo(argv, 0, 0.0, 0.0, &r);
  CHECKF(r.exited && r.code == 0, "exit %d", r.code);
  j = r.out ? cJSON_Parse(r.out) : NULL;
  CHECK(j != NULL);
  if (j) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "deadline_met");
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(j, "assignment");
    CHECK(cJSON_IsFalse(d));
    CHECK(jnum(j, "elapsed") > 0.015);
    CHECK(cJSON_IsArray(as) && cJSON_GetArraySize(as) == n);
    if (cJSON_IsArray(as) && cJSON_GetArraySize(as) == n) {
      int *a = (int *)malloc((size_t)n * sizeof(int)), t;
      for (t = 0; t < n; ++t)
        a[t] = (int)cJSON_GetArrayItem(as, t)->valuedouble;
      CHECK(jnum(j, "makespan") == makespan_of(v, n, m, a));
      free(a);
    }
  }
  /* exactly one line on stderr, with both times */
  CHECKF(r.err && strstr(r.err, "deadline missed") && strstr(r.err, "0.010 s") &&
             strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
         "stderr: %s", r.err ? r.err : "");
  if (r.err)
    fprintf(stderr, "%s", r.err);
  cJSON_Delete(j);
  run_free(&r);
  remove(path);
  free(v);
}

/* The library's flag (devo_schedule_opts.interrupt): set before the call, the answer is MCT's
 * schedule (the first heuristic always runs); a single --heuristic cut short maps the rest as
 * MCT does, so a Min-min stopped before its first step is MCT exactly; set by another thread
 * during a 10 s search, the call returns soon after with DEVO_INTERRUPTED. */
static volatile sig_atomic_t lib_flag;

static void *raise_flag_later(void *arg)
{
  struct timespec ts = {0, 100000000}; /* 0.1 s */
  (void)arg;
  nanosleep(&ts, NULL);
  lib_flag = 1;
  return NULL;
}

TEST_CASE(library_interrupt_flag)
{
  double *v = NULL;
  const int n = 512, m = 16;
  const char *path = make_matrix(n, m, "lib", &v);
  devo_etc *e = NULL;
  devo_schedule_opts o;
  devo_schedule_result r;
  int *a = (int *)malloc((size_t)n * sizeof(int)), *mct = (int *)malloc((size_t)n * sizeof(int));
  char err[256];
  FILE *f = fopen(path, "rb");
  pthread_t th;
  double t0;
  int t, same = 1;
  CHECK(f && devo_etc_read(&e, f, path, DEVO_ETC_AUTO, 0, NULL, err, sizeof err) == DEVO_OK);
  fclose(f);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MCT, mct) == DEVO_OK);
  devo_schedule_opts_init(&o);
  o.time_limit = 10.0;
  o.interrupt = &lib_flag;
  lib_flag = 1;
  t0 = tc_now();
  CHECK(devo_schedule_run(e, &o, a, &r) == DEVO_OK);
  CHECK(tc_now() - t0 < 1.0);
  CHECK_EQ_INT(r.status, DEVO_INTERRUPTED);
  CHECK(r.source == DEVO_SCHED_FROM_HEURISTIC && r.heuristic == DEVO_HEUR_MCT && !r.de_ran);
  for (t = 0; t < n; ++t)
    same &= a[t] == mct[t];
  CHECK(same);
  o.heuristic = DEVO_HEUR_MINMIN;
  CHECK(devo_schedule_run(e, &o, a, &r) == DEVO_OK);
  CHECK_EQ_INT(r.status, DEVO_INTERRUPTED);
  for (t = 0, same = 1; t < n; ++t)
    same &= a[t] == mct[t];
  CHECK(same);
  /* without the flag, the heuristic alone ends with DEVO_OK */
  lib_flag = 0;
  CHECK(devo_schedule_run(e, &o, a, &r) == DEVO_OK);
  CHECK_EQ_INT(r.status, DEVO_OK);
  o.heuristic = -1;
  CHECK(pthread_create(&th, NULL, raise_flag_later, NULL) == 0);
  t0 = tc_now();
  CHECK(devo_schedule_run(e, &o, a, &r) == DEVO_OK);
  t0 = tc_now() - t0;
  pthread_join(th, NULL);
  CHECKF(t0 < 1.0, "returned %.3f s after the start", t0);
  CHECK_EQ_INT(r.status, DEVO_INTERRUPTED);
  {
    double ms;
    CHECK(devo_etc_evaluate(e, a, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
    CHECK(ms == r.makespan && ms == makespan_of(v, n, m, a));
  }
  /* the makespan search (issue 19's annealing and iterated greedy on two chains) too */
  lib_flag = 0;
  o.lambda = 1.0;
  o.threads = 2;
  CHECK(pthread_create(&th, NULL, raise_flag_later, NULL) == 0);
  t0 = tc_now();
  CHECK(devo_schedule_run(e, &o, a, &r) == DEVO_OK);
  t0 = tc_now() - t0;
  pthread_join(th, NULL);
  CHECKF(t0 < 1.0, "makespan search: returned %.3f s after the start", t0);
  CHECK_EQ_INT(r.status, DEVO_INTERRUPTED);
  CHECK(r.candidates > 0);
  CHECK(r.makespan == makespan_of(v, n, m, a));
  devo_etc_destroy(e);
  free(a);
  free(mct);
  free(v);
  remove(path);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {
      TC(signal_in_heuristics),    TC(signal_in_local_search),      TC(signal_in_de),
      TC(signal_in_ils),           TC(second_signal_exits_at_once), TC(solve_signals),
      TC(missed_deadline_is_said), TC(library_interrupt_flag)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
