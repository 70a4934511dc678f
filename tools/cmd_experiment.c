/* SPDX-License-Identifier: MIT */
/* cmd_experiment.c: `devo experiment SPEC`: runs a grid of algorithms x problems x dimensions x
 * population sizes x seeds x backends (docs/experiment.md), one CSV row per trial written and
 * flushed as the trial ends, optional convergence traces, resumable from its own output (a spec
 * hash in the header), a progress bar on a terminal, SIGINT/SIGTERM keeping every finished row.
 * The trials of one problem and backend run as batches of the library (devo_batch): the cpu
 * backend's on --jobs threads at once, the others one at a time. --shard K/N (or a Slurm job
 * array's task) runs one of N round-robin parts of the grid into a file of its own. Started by
 * mpirun as N ranks, rank 0 hands the trials out to the others (tools/mpi_experiment.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "csv_rows.h"
#include "experiment.h"
#include "json_out.h"
#include "mpi_env.h"
#include "mpi_experiment.h"
#include "tool_util.h"

static const char *const experiment_help =
    "usage: devo experiment SPEC [options]\n"
    "\n"
    "Runs every trial of the grid described in SPEC (format: docs/experiment.md): algorithms x\n"
    "problems x dims x np x seeds x backends, each stopped by the budget, the target or the time\n"
    "limit. One CSV row per trial is appended to the output as the trial ends; rerunning the\n"
    "same command skips the trials already there (the spec's hash is in the file's first line).\n"
    "\n"
    "options:\n"
    "  --out FILE             results CSV (instead of the spec's 'output')\n"
    "  --protocol janssen2024 30 trials, target 1e-8, budget 100000*D (Janssen et al. 2024)\n"
    "  --trials N             with a protocol: seeds 1..N instead of its 30 (a reduced run;\n"
    "                         the results' hash differs from the full protocol's)\n"
    "  --dry-run              print the grid and its size, run nothing\n"
    "  --jobs N               trials of the cpu backend at once, 1 .. 1024 (default: the\n"
    "                         online processors); each row is the trial's run alone, rows\n"
    "                         come as trials end (their order may differ from --jobs 1)\n"
    "  --shard K/N            part K of N of the grid, 1 <= K <= N <= 100000: trial t of the\n"
    "                         grid's order when t mod N = K-1 (round-robin), into the output\n"
    "                         with .K-of-N before its extension (results.3-of-8.csv); default:\n"
    "                         a Slurm job array's task (SLURM_ARRAY_TASK_ID, _MIN, _STEP and\n"
    "                         _COUNT); devo rank takes all N files together\n"
    "  --gpu K                the CUDA device K (0 .. 1023) of the gpu backends (default: 0;\n"
    "                         with MPI, a rank's node-local rank modulo the devices)\n"
    "MPI: mpirun -np N devo experiment SPEC runs the trials on N-1 ranks, handed out by rank 0\n"
    "in units of one cell's seeds (a gpu unit: up to 64 trials, run as one batch; a cpu unit: up\n"
    "to --jobs trials, default 1 under MPI), longest first; rank 0 writes the one results file;\n"
    "the rows equal one process's; after a crash the same command resumes (docs/experiment.md).\n"
    "SIGINT or SIGTERM stops after the running trials' rows are dropped: the finished rows stay,\n"
    "and the same command resumes (exit 1). A second signal ends the process at once.\n"
    "One writer: the results and trace files are locked for the whole run; a second run on\n"
    "them is refused at once, naming the first one's pid (exit 2).\n"
    "Exit: 0 all trials done, 1 runtime failure or interrupted, 2 bad spec or usage.\n";

#define CMD "experiment"
static const char *const columns =
    "algorithm,params,problem,dim,np,seed,backend,threads,error,evaluations,generations,time,"
    "stop,target_time,target_evals";
#define NCOLS 15

static devo_batch *volatile active_batch;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
  if (stop_signal) {
    sigset_t self;
    signal(sig, SIG_DFL);
    sigemptyset(&self);
    sigaddset(&self, sig);
    sigprocmask(SIG_UNBLOCK, &self, NULL);
    raise(sig);
    _exit(128 + sig);
  }
  stop_signal = sig;
  if (active_batch)
    devo_batch_interrupt(active_batch); /* async-signal-safe: one atomic store */
}

/* ---- the grid -------------------------------------------------------------------------------- */

typedef struct trial {
  int a, pr, d, n, sd, b;
} trial;

static int64_t trial_index(const exp_spec *s, const trial *t)
{
  return (((((int64_t)t->b * s->nalgos + t->a) * s->nproblems + t->pr) * s->ndims + t->d) *
              s->nnps +
          t->n) *
             s->nseeds +
         t->sd;
}

/* Whether trial t is one of this run's: all without shards; else trial number t mod N = K-1. */
static int in_shard(const exp_spec *s, const trial *t)
{
  return !s->nshards || trial_index(s, t) % s->nshards == s->shard - 1;
}

/* The trials of this run's shard (the whole grid without shards). */
static int64_t shard_size(const exp_spec *s)
{
  const int64_t g = exp_grid_size(s);
  return !s->nshards ? g : g < s->shard ? 0 : (g - s->shard) / s->nshards + 1;
}

/* Whether the comment row is the shard line of this run. */
static int is_shard_line(const exp_spec *s, const tool_csv_row *r)
{
  int k, n;
  return r->comment && exp_shard_parse(r->raw, &k, &n) == 0 && k == s->shard && n == s->nshards;
}

static int find_str(const char *v, int n, const char *(*get)(const exp_spec *, int),
                    const exp_spec *s)
{
  int k;
  for (k = 0; k < n; ++k)
    if (strcmp(v, get(s, k)) == 0)
      return k;
  return -1;
}
static const char *algo_name(const exp_spec *s, int k)
{
  return s->algos[k].name;
}
static const char *problem_name(const exp_spec *s, int k)
{
  return s->problems[k];
}
static const char *backend_name(const exp_spec *s, int k)
{
  return exp_backend_name(s->backends[k]);
}

static int find_int(long long v, const int *a, int n)
{
  int k;
  for (k = 0; k < n; ++k)
    if (a[k] == v)
      return k;
  return -1;
}

/* The trial of row fields f[0..]: the key columns algorithm, problem, dim, np, seed, backend at
 * cols[0..5]. 0 when it is one of the grid's. */
static int row_trial(const exp_spec *s, char *const *f, const int *cols, trial *t)
{
  char *end;
  uint64_t seed;
  long long d, n;
  int k;
  t->a = find_str(f[cols[0]], s->nalgos, algo_name, s);
  t->pr = find_str(f[cols[1]], s->nproblems, problem_name, s);
  t->b = find_str(f[cols[5]], s->nbackends, backend_name, s);
  d = strtoll(f[cols[2]], &end, 10);
  t->d = *end ? -1 : find_int(d, s->dims, s->ndims);
  n = strtoll(f[cols[3]], &end, 10);
  t->n = *end ? -1 : find_int(n, s->nps, s->nnps);
  t->sd = -1;
  if (tool_parse_u64(f[cols[4]], &seed) == 0)
    for (k = 0; k < s->nseeds; ++k)
      if (s->seeds[k] == seed)
        t->sd = k;
  return t->a < 0 || t->pr < 0 || t->b < 0 || t->d < 0 || t->n < 0 || t->sd < 0 ? -1 : 0;
}

/* ---- output files ---------------------------------------------------------------------------- */

/* Whether the row is the header of the results (the fields of `columns`). */
static int is_columns(const tool_csv_row *r)
{
  char joined[512];
  size_t len = 0;
  int k;
  for (k = 0; k < r->n && k < NCOLS && len < sizeof joined; ++k)
    len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", k ? "," : "", r->f[k]);
  return r->n == NCOLS && len < sizeof joined && strcmp(joined, columns) == 0;
}

/* A trial that the file holds twice (written by two runs at once, before results files were
 * locked) counts once here; the first such row is named, since devo rank refuses the file (the
 * one check of results files: exp_trialset). */
static void note_repeat(const exp_spec *s, exp_trialset *seen, const trial *t, long line,
                        int *warned)
{
  char msg[1024];
  if (seen && !*warned &&
      exp_trialset_add(seen, line, s->algos[t->a].name, s->nps[t->n],
                       exp_backend_name(s->backends[t->b]), s->problems[t->pr], s->dims[t->d],
                       s->seeds[t->sd], msg, sizeof msg) == 1) {
    fprintf(stderr,
            "devo experiment: warning: %s; devo rank refuses the file until one of the two rows "
            "is removed\n",
            msg);
    *warned = 1;
  }
}

/* Reads an existing results file through the CSV reader (csv_rows.h): marks its trials in done[]
 * and cuts a last row that a kill left unfinished. *fresh = 1 when the file is absent or empty.
 * Returns 0, or the exit code after printing the one-line refusal. */
static int read_results(const exp_spec *s, char *done, int64_t *ndone, int *fresh, int cut)
{
  static const int key_cols[6] = {0, 2, 3, 4, 5, 6};
  const tool_csv_opts o = {.max_fields = NCOLS + 1, .comments = 1};
  size_t keep = 0;
  uint64_t h;
  const int head = s->nshards ? 3 : 2; /* the hash line, the shard's, the columns */
  int rows = 0, st = TOOL_CSV_END, rc = 0, unfinished = 0, warned = 0;
  tool_csv_row r;
  tool_csv *c;
  exp_trialset *seen;
  FILE *in = fopen(s->output, "rb");
  *fresh = 1;
  *ndone = 0;
  if (!in)
    return errno == ENOENT ? 0 : cli_usage_error(CMD, "%s: %s", s->output, strerror(errno));
  if (!(c = tool_csv_file(in, s->output, &o))) {
    fclose(in);
    return cli_runtime_error(CMD, "%s: out of memory", s->output);
  }
  if ((seen = exp_trialset_new(1)) && exp_trialset_file(seen, s->output, NULL, NULL, 0) != 0) {
    exp_trialset_free(seen); /* out of memory: no warning then */
    seen = NULL;
  }
  while (!rc && (st = tool_csv_next(c, &r)) == TOOL_CSV_ROW) {
    trial t;
    *fresh = 0;
    if (!r.ended) {
      unfinished = 1; /* cut below */
      break;
    }
    if (++rows == 1 && (!r.comment || exp_header_hash(r.raw, &h) != 0 || h != s->hash))
      rc = -1;
    else if (rows == 2 && head == 3 && !is_shard_line(s, &r))
      rc = cli_usage_error(CMD, "%s:%ld: not the results of shard %d/%d (no '# shard %d/%d' line)",
                           s->output, r.line, s->shard, s->nshards, s->shard, s->nshards);
    else if (rows == head && (r.comment || !is_columns(&r)))
      rc = cli_usage_error(CMD, "%s:%ld: not the header of devo experiment's results", s->output,
                           r.line);
    else if (rows > head && (r.comment || r.n != NCOLS || row_trial(s, r.f, key_cols, &t) != 0))
      rc = cli_usage_error(CMD, "%s:%ld: not a trial of this spec", s->output, r.line);
    else if (rows > head && !in_shard(s, &t))
      rc = cli_usage_error(CMD, "%s:%ld: not a trial of shard %d/%d", s->output, r.line, s->shard,
                           s->nshards);
    else if (rows > head && !done[trial_index(s, &t)]) {
      done[trial_index(s, &t)] = 1;
      ++*ndone;
    }
    if (!rc && rows > head)
      note_repeat(s, seen, &t, r.line, &warned);
    keep = r.offset;
  }
  if (!rc && st == TOOL_CSV_BAD && rows == 0)
    rc = -1;
  else if (!rc && st == TOOL_CSV_BAD)
    rc = cli_usage_error(CMD, "%s", tool_csv_error(c));
  else if (!rc && st < 0)
    rc = cli_runtime_error(CMD, "%s", tool_csv_error(c));
  if (rc == -1)
    rc = cli_usage_error(CMD,
                         "%s: written by another spec (its hash is not %016llx); give another "
                         "output or remove it",
                         s->output, (unsigned long long)s->hash);
  tool_csv_close(c);
  exp_trialset_free(seen);
  fclose(in);
  if (rc)
    return rc;
  if (cut && unfinished && truncate(s->output, (off_t)keep) != 0)
    return cli_runtime_error(CMD, "%s: cannot cut the unfinished last row: %s", s->output,
                             strerror(errno));
  if (rows < head) { /* a kill before the header was complete: start again */
    *fresh = 1;
    *ndone = 0;
  }
  return 0;
}

/* The refusal of an output that cannot be opened: "SPEC:LINE: output PATH: why" (or "--out PATH:
 * why"), "SPEC:LINE: trace PATH: why". */
static int output_refused(const exp_spec *s, int trace, int err)
{
  if (trace)
    return cli_usage_error(CMD, "%s:%d: trace %s: %s", s->path, s->trace_line, s->trace,
                           strerror(err));
  if (s->output_line)
    return cli_usage_error(CMD, "%s:%d: output %s: %s", s->path, s->output_line, s->output,
                           strerror(err));
  return cli_usage_error(CMD, "--out %s: %s", s->output, strerror(err));
}

/* One writer per file (docs/experiment.md): the results and the trace are locked from before the
 * results are read until the run ends (cli_results.c: an OS lock, gone with the process). */
typedef struct out_locks {
  int out, trace; /* the descriptors that hold the locks; -1: none */
  int out_made, trace_made;
} out_locks;

static int lock_outputs(const exp_spec *s, out_locks *lk)
{
  char err[1024] = "";
  int rc;
  lk->out = lk->trace = -1;
  rc = exp_lock_open(s->output, &lk->out, &lk->out_made, err, sizeof err);
  if (rc < 0)
    return output_refused(s, 0, errno);
  if (!rc && err[0])
    fprintf(stderr, "devo experiment: warning: %s\n", err);
  if (!rc && s->trace) {
    err[0] = 0;
    rc = exp_lock_open(s->trace, &lk->trace, &lk->trace_made, err, sizeof err);
    if (rc < 0)
      return output_refused(s, 1, errno);
    if (!rc && err[0])
      fprintf(stderr, "devo experiment: warning: %s\n", err);
  }
  return rc ? cli_usage_error(CMD, "%s", err) : 0;
}

/* Releases one lock; a file made only to be locked and still empty (nothing ran: a refusal before
 * the first row) is removed, as if never made. */
static void unlock_output(const char *path, int *fd, int made)
{
  struct stat a, b;
  if (*fd < 0)
    return;
  if (made && fstat(*fd, &a) == 0 && a.st_size == 0 && stat(path, &b) == 0 &&
      a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    unlink(path);
  close(*fd);
  *fd = -1;
}

/* The first lines of a results or trace file: the spec's hash, a shard's K/N. */
static void write_head(FILE *f, const exp_spec *s)
{
  char line[1024];
  exp_header_line(line, sizeof line, s->path, s->hash);
  fputs(line, f);
  if (s->nshards) {
    exp_shard_line(line, sizeof line, s->shard, s->nshards);
    fputs(line, f);
  }
}

/* Opens the results for appending (a fresh file gets the header). NULL after the message. */
static FILE *open_results(const exp_spec *s, int fresh)
{
  FILE *f = fopen(s->output, fresh ? "w" : "a");
  if (!f) {
    output_refused(s, 0, errno);
    return NULL;
  }
  if (fresh) {
    write_head(f, s);
    fprintf(f, "%s\n", columns);
    fflush(f);
  }
  return f;
}

static const char *const trace_columns = "algorithm,problem,dim,np,seed,backend,evaluations,time,"
                                         "error";

/* The trace file: fresh, or the old one with only the rows of finished trials (a trial's trace
 * is written before its result row, so a kill between them leaves trace rows of an unfinished
 * trial). The old rows are read by the CSV reader and copied as they were; a malformed row
 * ends the copy. The new file is locked before it replaces the old one, whose lock (*lock) is
 * then released. NULL after the message. */
static FILE *open_trace(const exp_spec *s, const char *done, int fresh, int *lock)
{
  static const int key_cols[6] = {0, 1, 2, 3, 4, 5};
  const tool_csv_opts o = {.max_fields = 10, .comments = 1};
  const int nhead = s->nshards ? 3 : 2;
  char head[1024], tmp[4096];
  uint64_t h;
  FILE *in = fresh ? NULL : fopen(s->trace, "r"), *out;
  tool_csv *c = NULL;
  tool_csv_row r;
  int rows = 0;
  if (snprintf(tmp, sizeof tmp, "%s.tmp", s->trace) >= (int)sizeof tmp ||
      !(out = fopen(tmp, "w"))) {
    if (in)
      fclose(in);
    output_refused(s, 1, errno);
    return NULL;
  }
  (void)exp_lock_fd(fileno(out), tmp, head, sizeof head); /* a new file: nobody else holds it */
  write_head(out, s);
  fprintf(out, "%s\n", trace_columns);
  if (in && !(c = tool_csv_file(in, s->trace, &o))) {
    fclose(in);
    fclose(out);
    remove(tmp);
    cli_runtime_error(CMD, "%s: out of memory", s->trace);
    return NULL;
  }
  while (c && tool_csv_next(c, &r) == TOOL_CSV_ROW) {
    trial t;
    if (++rows == 1 && (!r.comment || exp_header_hash(r.raw, &h) != 0 || h != s->hash))
      break; /* another spec's traces: replaced */
    if (rows == 2 && nhead == 3 && !is_shard_line(s, &r))
      break; /* another shard's: replaced */
    if (rows > nhead && r.ended && !r.comment && r.n == 9 && row_trial(s, r.f, key_cols, &t) == 0 &&
        done[trial_index(s, &t)] == 1)
      fwrite(r.raw, 1, r.raw_len, out);
  }
  tool_csv_close(c);
  if (in)
    fclose(in);
  if (fflush(out) != 0 || ferror(out) || rename(tmp, s->trace) != 0) {
    cli_runtime_error(CMD, "%s: %s", s->trace, strerror(errno));
    fclose(out);
    remove(tmp);
    return NULL;
  }
  close(*lock); /* the old file's, now replaced */
  *lock = -1;
  return out; /* the stream now writes to the renamed file */
}

/* ---- progress -------------------------------------------------------------------------------- */

typedef struct tpoint {
  int64_t evals;
  double time, error;
} tpoint;

/* The whole run: totals for the bar and the lines; the lock keeps the bar's lines whole while
 * trials report from several threads. */
typedef struct run_state {
  const exp_spec *s;
  int tty, jobs;
  int64_t total, done_before, done_now;
  double t_start, last_draw;
  pthread_mutex_t mu;
  FILE *lines; /* an MPI worker's: each trial's line, without the count, for rank 0 */
  void (*trial_written)(void); /* an MPI worker's: sends a trial's texts to rank 0 */
} run_state;

/* One trial of a batch: its place in the grid, its solver and its trace. */
typedef struct trial_run {
  trial t;
  run_state *r;
  devo_solver *v;
  double fstar;
  tpoint *pts;
  int npts, cap, shown;
} trial_run;

static void fmt_hms(char *b, size_t n, double sec)
{
  long t = sec < 0 ? 0 : (long)(sec + 0.5);
  snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* The bar, about trial t (the one that reported last); the caller holds r->mu. */
static void draw_bar(run_state *r, const trial *t, int64_t evals)
{
  const exp_spec *s = r->s;
  const int64_t done = r->done_before + r->done_now;
  const double el = tool_now() - r->t_start;
  char e[32], left[32];
  int k, fill = r->total ? (int)(30 * done / r->total) : 30;
  fmt_hms(e, sizeof e, el);
  if (r->done_now > 0)
    fmt_hms(left, sizeof left, el / (double)r->done_now * (double)(r->total - done));
  else
    snprintf(left, sizeof left, "?");
  fputs("\r[", stderr);
  for (k = 0; k < 30; ++k)
    fputc(k < fill ? '#' : '.', stderr);
  fprintf(stderr,
          "] %lld/%lld %s %s D=%d NP=%d seed %llu %s (%lld evals) %s elapsed, ~%s left\033[K",
          (long long)done, (long long)r->total, s->algos[t->a].name, s->problems[t->pr],
          s->dims[t->d], s->nps[t->n], (unsigned long long)s->seeds[t->sd],
          exp_backend_name(s->backends[t->b]), (long long)evals, e, left);
  fflush(stderr);
  r->last_draw = tool_now();
}

static void add_point(trial_run *tr, int64_t evals, double time, double err, int force)
{
  tpoint *p;
  if (tr->npts > 0 && !force) {
    /* about 10 points per decade of evaluations or of time: a log-spaced trace */
    const tpoint *l = &tr->pts[tr->npts - 1];
    if (evals < l->evals * 1.2589 && time < l->time * 1.2589)
      return;
  }
  if (tr->npts == tr->cap) {
    int cap = tr->cap ? 2 * tr->cap : 64;
    p = realloc(tr->pts, sizeof *p * (size_t)cap);
    if (!p)
      return; /* a thinner trace; the run itself goes on */
    tr->pts = p;
    tr->cap = cap;
  }
  p = &tr->pts[tr->npts++];
  p->evals = evals;
  p->time = time;
  p->error = err;
}

/* From the thread that runs the trial: its own trace, and the bar (its first report at once,
 * then 4 times a second whichever trial reports). */
static int on_progress(void *ud, const devo_progress *p)
{
  trial_run *tr = (trial_run *)ud;
  run_state *r = tr->r;
  if (r->s->trace)
    add_point(tr, p->evaluations, p->elapsed, p->best - tr->fstar, 0);
  if (r->tty) {
    pthread_mutex_lock(&r->mu);
    if (!tr->shown || tool_now() - r->last_draw > 0.25)
      draw_bar(r, &tr->t, p->evaluations);
    tr->shown = 1;
    pthread_mutex_unlock(&r->mu);
  }
  return 0;
}

/* ---- one trial ------------------------------------------------------------------------------- */

/* The largest value whose error best - f* is <= E (as devo solve sets it). */
static double target_value(double fstar, double e)
{
  double t = fstar + e;
  while (t - fstar > e)
    t = nextafter(t, -(double)INFINITY);
  return t;
}

static int is_cpu(int backend)
{
  return backend == EXP_BK_CPU || backend == EXP_BK_CPU_MS;
}

static int configure(devo_solver *v, const exp_spec *s, const trial *t, double fstar, char *err,
                     size_t errlen)
{
  const int bk = s->backends[t->b];
  int bad, st;
  if ((st = exp_algo_apply(v, &s->algos[t->a], s->path, &bad, err, errlen)) != DEVO_OK)
    return st;
  st = devo_solver_set_np(v, s->nps[t->n]);
  if (!st)
    st = devo_solver_set_seed(v, s->seeds[t->sd]);
  if (!st)
    st = devo_solver_set_backend(v, is_cpu(bk) ? DEVO_BACKEND_CPU : DEVO_BACKEND_GPU);
  if (!st && is_cpu(bk))
    st = devo_solver_set_threads(v, bk == EXP_BK_CPU_MS ? s->threads : 1);
  if (!st && !is_cpu(bk))
    st = devo_solver_set_gpu_design(v, bk == EXP_BK_GPU         ? DEVO_GPU_FUSED
                                       : bk == EXP_BK_GPU_NAIVE ? DEVO_GPU_NAIVE
                                                                : DEVO_GPU_MULTIKERNEL);
  if (!st)
    st = devo_solver_set_max_evals(v, exp_budget(s, s->dims[t->d]));
  if (!st && s->max_gens > 0)
    st = devo_solver_set_max_generations(v, s->max_gens);
  if (!st && s->time_limit > 0)
    st = devo_solver_set_time_limit(v, s->time_limit);
  if (!st && !isnan(s->target))
    st = devo_solver_set_target(v, target_value(isnan(fstar) ? 0.0 : fstar, s->target));
  if (st)
    snprintf(err, errlen, "%s", devo_solver_errmsg(v));
  return st;
}

static void write_trace(FILE *tf, const exp_spec *s, const trial_run *tr)
{
  const trial *t = &tr->t;
  char e[40], tm[40];
  int k;
  for (k = 0; k < tr->npts; ++k)
    fprintf(tf, "%s,%s,%d,%d,%llu,%s,%lld,%s,%s\n", s->algos[t->a].name, s->problems[t->pr],
            s->dims[t->d], s->nps[t->n], (unsigned long long)s->seeds[t->sd],
            exp_backend_name(s->backends[t->b]), (long long)tr->pts[k].evals,
            json_fmt_double(tm, sizeof tm, tr->pts[k].time),
            json_fmt_double(e, sizeof e, tr->pts[k].error));
  fflush(tf);
}

static void write_row(FILE *out, const exp_spec *s, const trial *t, const devo_stats *st,
                      double err)
{
  char e[40], tm[40];
  const int hit = st->status == DEVO_TARGET_REACHED;
  fprintf(out, "%s,%s,%s,%d,%d,%llu,%s,%d,%s,%lld,%lld,%s,%s,%s,", s->algos[t->a].name,
          s->algos[t->a].desc, s->problems[t->pr], s->dims[t->d], s->nps[t->n],
          (unsigned long long)s->seeds[t->sd], exp_backend_name(s->backends[t->b]),
          s->backends[t->b] == EXP_BK_CPU_MS
              ? s->threads
              : s->backends[t->b] == EXP_BK_CPU || s->backends[t->b] == EXP_BK_GPU_NAIVE,
          json_fmt_double(e, sizeof e, err), (long long)st->evaluations, (long long)st->generations,
          json_fmt_double(tm, sizeof tm, st->elapsed), devo_status_name(st->status), hit ? tm : "");
  if (hit)
    fprintf(out, "%lld", (long long)st->evaluations);
  fputc('\n', out);
  fflush(out);
}

/* A batch of trials on one problem and backend, and what its done callback came to. */
typedef struct batch_run {
  run_state *r;
  trial_run *tr;
  FILE *out, *tf;
  int rc; /* 0, or the exit code of the first failure (3: interrupted by a signal) */
} batch_run;

/* One more trial done, and its line when stderr is no terminal (the bar shows it at the next
 * report of a running trial): "devo experiment: DONE/ALL what" (the caller holds r->mu). */
static void count_done(run_state *r, const char *what)
{
  r->done_now++;
  if (!r->tty)
    fprintf(stderr, "devo experiment: %lld/%lld %s\n", (long long)(r->done_before + r->done_now),
            (long long)r->total, what);
}

/* The end of one trial (the batch calls this one at a time): its trace and row, then the
 * line or the bar. Non-zero stops the batch. */
static int on_trial_done(void *ud, int idx, devo_solver *v, int status)
{
  batch_run *br = (batch_run *)ud;
  run_state *r = br->r;
  const exp_spec *s = r->s;
  trial_run *tr = &br->tr[idx];
  const trial *t = &tr->t;
  devo_stats st;
  double best;
  char line[1024];
  if (br->rc)
    return 1; /* the batch stops after a failure: the trials it cut short write no row */
  if (status < 0) {
    br->rc = cli_runtime_error(CMD, "%s %s D=%d NP=%d seed %llu: %s", s->algos[t->a].name,
                               s->problems[t->pr], s->dims[t->d], s->nps[t->n],
                               (unsigned long long)s->seeds[t->sd], devo_solver_errmsg(v));
    return 1;
  }
  if (status == DEVO_INTERRUPTED) { /* a signal (nothing else interrupts): no row, the trial */
    br->rc = 3;                     /* runs again on resume */
    return 1;
  }
  devo_solver_stats(v, &st);
  devo_solver_best(v, &best, NULL);
  best -= isnan(tr->fstar) ? 0.0 : tr->fstar;
  if (br->tf) {
    add_point(tr, st.evaluations, st.elapsed, best, 1); /* the end is always a point */
    write_trace(br->tf, s, tr);
  }
  write_row(br->out, s, t, &st, best);
  if (ferror(br->out) || (br->tf && ferror(br->tf))) {
    br->rc = cli_runtime_error(CMD, "%s: write error: %s", s->output, strerror(errno));
    return 1;
  }
  snprintf(line, sizeof line,
           "%s %s D=%d NP=%d seed %llu %s: error %.3e, %lld evaluations, %.3f s, %s",
           s->algos[t->a].name, s->problems[t->pr], s->dims[t->d], s->nps[t->n],
           (unsigned long long)s->seeds[t->sd], exp_backend_name(s->backends[t->b]), best,
           (long long)st.evaluations, st.elapsed, devo_status_name(st.status));
  pthread_mutex_lock(&r->mu);
  if (r->lines) { /* a worker's unit: one line per trial, and the trial's texts go at once */
    fprintf(r->lines, "%s\n", line);
    if (r->trial_written)
      r->trial_written();
  } else
    count_done(r, line);
  pthread_mutex_unlock(&r->mu);
  return 0;
}

/* Gives back what trials tr[0..n) hold and clears them for the next batch (tr stays). */
static void clear_trials(trial_run *tr, int n)
{
  int k;
  for (k = 0; k < n; ++k) {
    devo_solver_destroy(tr[k].v);
    free(tr[k].pts);
  }
  memset(tr, 0, (size_t)n * sizeof *tr);
}

/* Runs trials tr[0..n) (configured here) on problem p as one batch: the cpu backend's on
 * r->jobs threads, the others one at a time (cpu-ms trials take the spec's threads each, GPU
 * trials the device). Returns 0, or the exit code (3: interrupted by a signal). */
static int run_batch(run_state *r, devo_problem *p, trial_run *tr, int n, FILE *out, FILE *tf)
{
  const exp_spec *s = r->s;
  batch_run br;
  devo_batch *b = NULL;
  char err[512];
  int k, rc = 0;
  memset(&br, 0, sizeof br);
  br.r = r;
  br.tr = tr;
  br.out = out;
  br.tf = tf;
  if (devo_batch_create(&b, NULL) != DEVO_OK)
    return cli_runtime_error(CMD, "out of memory");
  for (k = 0; !rc && k < n; ++k) {
    const trial *t = &tr[k].t;
    tr[k].r = r;
    tr[k].fstar = devo_problem_fstar(p);
    if (devo_solver_create(&tr[k].v, p, NULL) != DEVO_OK || devo_batch_add(b, tr[k].v) != 0)
      rc = cli_runtime_error(CMD, "out of memory");
    else if (configure(tr[k].v, s, t, tr[k].fstar, err, sizeof err) != DEVO_OK ||
             devo_solver_set_progress(tr[k].v, on_progress, &tr[k]) != DEVO_OK)
      rc = cli_usage_error(CMD, "%s %s D=%d NP=%d: %s", s->algos[t->a].name, s->problems[t->pr],
                           s->dims[t->d], s->nps[t->n], err);
  }
  if (!rc) {
    devo_batch_set_threads(b, s->backends[tr[0].t.b] == EXP_BK_CPU ? r->jobs : 1);
    devo_batch_set_done(b, on_trial_done, &br);
    active_batch = b;
    if (stop_signal)
      devo_batch_interrupt(b);
    devo_batch_solve(b); /* each trial's end, failures included, went to on_trial_done */
    active_batch = NULL;
    rc = br.rc ? br.rc : stop_signal ? 3 : 0;
  }
  devo_batch_destroy(b);
  return rc;
}

/* ---- the whole grid -------------------------------------------------------------------------- */

static void print_list_int(const char *what, const int *v, int n)
{
  int k;
  printf("%-12s %d:", what, n);
  for (k = 0; k < n; ++k)
    printf(" %d", v[k]);
  printf("\n");
}

/* The search box when the spec sets it (ranges, lower, upper). */
static void print_box(const exp_spec *s)
{
  const double *side[2] = {s->lower, s->upper};
  const int n[2] = {s->nlower, s->nupper};
  const char *sep = " ";
  int k;
  if (!s->ranges && !n[0] && !n[1])
    return;
  printf("box         ");
  if (s->ranges) {
    printf(" ranges %s", s->ranges);
    sep = ", ";
  }
  for (k = 0; k < 2; ++k) {
    if (n[k] == 1)
      printf("%s%s %g", sep, k ? "upper" : "lower", side[k][0]);
    else if (n[k] > 1)
      printf("%s%s: %d values (one per coordinate)", sep, k ? "upper" : "lower", n[k]);
    sep = n[k] ? ", " : sep;
  }
  printf("\n");
}

static int dry_run(const exp_spec *s, int64_t ndone)
{
  int k;
  printf("spec         %s (hash %016llx)\n", s->path, (unsigned long long)s->hash);
  printf("algorithms   %d:", s->nalgos);
  for (k = 0; k < s->nalgos; ++k)
    printf(" %s(%s)", s->algos[k].name, s->algos[k].desc);
  printf("\nproblems     %d:", s->nproblems);
  for (k = 0; k < s->nproblems; ++k)
    printf(" %s", s->problems[k]);
  printf("\n");
  print_list_int("dims", s->dims, s->ndims);
  print_list_int("np", s->nps, s->nnps);
  printf("seeds        %d:", s->nseeds);
  for (k = 0; k < s->nseeds && k < 10; ++k)
    printf(" %llu", (unsigned long long)s->seeds[k]);
  printf("%s\nbackends     %d:", s->nseeds > 10 ? " ..." : "", s->nbackends);
  for (k = 0; k < s->nbackends; ++k)
    printf(" %s", exp_backend_name(s->backends[k]));
  printf(" (cpu: 1 thread, cpu-ms: %d)\nbudget      ", s->threads);
  for (k = 0; k < s->ndims; ++k)
    printf(" D=%d: %lld", s->dims[k], (long long)exp_budget(s, s->dims[k]));
  printf("%s\n", s->budget_kind == EXP_BUDGET_NONE ? " none" : "");
  if (isnan(s->target))
    printf("target       none\n");
  else
    printf("target       %g (error)\n", s->target);
  if (s->time_limit > 0)
    printf("time limit   %g s per trial\n", s->time_limit);
  else
    printf("time limit   none\n");
  if (s->max_gens > 0)
    printf("generations  %lld per trial\n", (long long)s->max_gens);
  print_box(s);
  if (s->protocol[0] && s->protocol_trials > 0)
    printf("protocol     %s, reduced to %d trials (--trials)\n", s->protocol, s->protocol_trials);
  else if (s->protocol[0])
    printf("protocol     %s\n", s->protocol);
  if (s->nshards)
    printf("shard        %d/%d: %lld of the %lld trials (trial t when t mod %d = %d)\n", s->shard,
           s->nshards, (long long)shard_size(s), (long long)exp_grid_size(s), s->nshards,
           s->shard - 1);
  printf("trials       %lld (%lld already in %s)\n", (long long)shard_size(s), (long long)ndone,
         s->output);
  printf("output       %s\ntrace        %s\n", s->output, s->trace ? s->trace : "none");
  return cli_stdout_done(CMD);
}

/* The trials not yet done of problem p and backend t->b (t->pr, t->d set), in the grid's order,
 * as batches of at most max(64, 8 jobs) trials on the CPU (finished trials give their memory
 * back while the threads stay busy) and 256 on the fused GPU design (a group's trials share its
 * launches: the more of them, the fuller the device). */
static int run_backend(run_state *r, const char *done, devo_problem *p, trial t, FILE *out,
                       FILE *tf)
{
  const exp_spec *s = r->s;
  const int most = s->backends[t.b] == EXP_BK_GPU ? 256 : r->jobs > 8 ? 8 * r->jobs : 64;
  trial_run *tr = calloc((size_t)most, sizeof *tr);
  int n = 0, rc = 0;
  if (!tr)
    return cli_runtime_error(CMD, "out of memory");
  for (t.a = 0; !rc && t.a < s->nalgos; ++t.a)
    for (t.n = 0; !rc && t.n < s->nnps; ++t.n)
      for (t.sd = 0; !rc && t.sd < s->nseeds; ++t.sd) {
        const int last = t.a == s->nalgos - 1 && t.n == s->nnps - 1 && t.sd == s->nseeds - 1;
        if (!done[trial_index(s, &t)])
          tr[n++].t = t;
        if (n == most || (n > 0 && last)) {
          rc = stop_signal ? 3 : run_batch(r, p, tr, n, out, tf);
          clear_trials(tr, n);
          n = 0;
        }
      }
  free(tr);
  return rc;
}

/* Problem t->pr at dimension t->d into *p: 0, or the exit code after the message. */
static int make_problem(const exp_spec *s, const trial *t, devo_problem **p)
{
  char err[512];
  int rc, line;
  if ((rc = exp_problem_make(s, t->pr, s->dims[t->d], p, &line, err, sizeof err)) == 0)
    return 0;
  return rc == DEVO_E_NOMEM ? cli_runtime_error(CMD, "%s", err)
         : line             ? cli_usage_error(CMD, "%s:%d: %s", s->path, line, err)
                            : cli_usage_error(CMD, "%s", err);
}

/* Every trial not yet done, problem by problem (each problem's data is made once). */
static int run_grid(run_state *r, const char *done, FILE *out, FILE *tf)
{
  const exp_spec *s = r->s;
  trial t;
  int rc = 0;
  for (t.pr = 0; !rc && t.pr < s->nproblems; ++t.pr)
    for (t.d = 0; !rc && t.d < s->ndims; ++t.d) {
      devo_problem *p = NULL;
      int pending = 0;
      for (t.b = 0; t.b < s->nbackends; ++t.b)
        for (t.a = 0; t.a < s->nalgos; ++t.a)
          for (t.n = 0; t.n < s->nnps; ++t.n)
            for (t.sd = 0; t.sd < s->nseeds; ++t.sd)
              pending += !done[trial_index(s, &t)];
      if (!pending)
        continue;
      if ((rc = make_problem(s, &t, &p)) != 0)
        return rc;
      for (t.b = 0; !rc && t.b < s->nbackends; ++t.b)
        rc = run_backend(r, done, p, t, out, tf);
      devo_problem_destroy(p);
    }
  return rc;
}

/* The options of the command line, and the shard of a Slurm job array's task. */
typedef struct exp_args {
  const char *spec, *out, *protocol;
  int trials, dry, jobs, shard, nshards;
  const char *shard_from; /* "--shard" or the Slurm variable of its count */
  int gpu;                /* --gpu K; -1: not given */
  int jobs_given;         /* --jobs N as given, 0: not given (MPI's cpu units then hold one) */
  int rank, size, local;  /* of MPI (size 1: one process) and among the ranks of this node */
  int led;                /* rank 0 handed out the trials (or told the workers to stop) */
} exp_args;

/* One variable of a Slurm job array's task (lo .. INT32_MAX) into *out; def when unset. */
static int slurm_var(const char *name, int64_t lo, int64_t def, int64_t *out)
{
  const char *v = getenv(name);
  *out = def;
  return v ? cli_count(CMD, name, v, lo, INT32_MAX, out) : 0;
}

/* Without --shard, the shard of a Slurm job array's task (docs/experiment.md): K = (ID - MIN) /
 * STEP + 1 (MIN unset: ids from 0; STEP unset: 1), N = COUNT; nothing without ID and COUNT. */
static int slurm_shard(exp_args *a)
{
  int64_t id, count, min, step;
  if (!getenv("SLURM_ARRAY_TASK_ID") || !getenv("SLURM_ARRAY_TASK_COUNT"))
    return 0;
  if (slurm_var("SLURM_ARRAY_TASK_ID", 0, 0, &id) ||
      slurm_var("SLURM_ARRAY_TASK_COUNT", 1, 1, &count) ||
      slurm_var("SLURM_ARRAY_TASK_MIN", 0, 0, &min) ||
      slurm_var("SLURM_ARRAY_TASK_STEP", 1, 1, &step))
    return CLI_USAGE;
  if (id < min || (id - min) % step != 0 || (id - min) / step >= count || count > EXP_SHARDS_MAX)
    return cli_usage_error(CMD,
                           "SLURM_ARRAY_TASK_ID=%lld is not one of the %lld tasks from "
                           "SLURM_ARRAY_TASK_MIN=%lld by SLURM_ARRAY_TASK_STEP=%lld (at most "
                           "%d; a list of ids: give --shard K/N)",
                           (long long)id, (long long)count, (long long)min, (long long)step,
                           EXP_SHARDS_MAX);
  a->shard = (int)((id - min) / step + 1);
  a->nshards = (int)count;
  a->shard_from = "SLURM_ARRAY_TASK_COUNT";
  return 0;
}

static int parse_args(int argc, char **argv, exp_args *a)
{
  static const char *const names[] = {"--out=",  "--protocol=", "--dry-run", "--help", "--trials=",
                                      "--jobs=", "--shard=",    "--gpu=",    NULL};
  const char **spec = &a->spec, **out = &a->out, **protocol = &a->protocol;
  int *trials = &a->trials, *dry = &a->dry, *jobs = &a->jobs;
  const char *v;
  int pos = 1, k;
  *spec = *out = *protocol = NULL;
  *dry = *trials = 0;
  a->gpu = -1;
  a->size = 1;
  while ((k = cli_next(CMD, argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      if (*spec)
        return cli_usage_error(CMD, "unexpected argument '%s' (one SPEC)", v);
      *spec = v;
      break;
    case 0:
      *out = v;
      break;
    case 1:
      if (strcmp(v, "janssen2024") != 0)
        return cli_usage_error(CMD, "--protocol: unknown value '%s' (janssen2024)", v);
      *protocol = v;
      break;
    case 2:
      *dry = 1;
      break;
    case 4: {
      int64_t n;
      if (cli_count(CMD, "--trials", v, 1, EXP_LIST_MAX, &n) != 0)
        return CLI_USAGE;
      *trials = (int)n;
      break;
    }
    case 5: {
      int64_t n;
      if (cli_count(CMD, "--jobs", v, 1, 1024, &n) != 0)
        return CLI_USAGE;
      *jobs = (int)n;
      break;
    }
    case 6:
      if (exp_shard_value(v, &a->shard, &a->nshards) != 0)
        return cli_usage_error(CMD, "--shard: '%s' is not K/N with 1 <= K <= N <= %d", v,
                               EXP_SHARDS_MAX);
      a->shard_from = "--shard";
      break;
    case 7: {
      int64_t n;
      if (cli_count(CMD, "--gpu", v, 0, 1023, &n) != 0)
        return CLI_USAGE;
      a->gpu = (int)n;
      break;
    }
    default:
      fputs(experiment_help, stdout);
      exit(CLI_OK);
    }
  }
  if (!*spec)
    return cli_usage_error(CMD, "a SPEC file is needed (see devo experiment --help)");
  return a->nshards ? 0 : slurm_shard(a);
}

static void catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* With a gpu backend in the grid: this process's device (--gpu K; under MPI the node-local rank
 * modulo the devices; else the default, 0) chosen and usable. 0, or the exit code. */
static int gpu_check(const exp_spec *s, const exp_args *a)
{
  char msg[256];
  int k;
  for (k = 0; k < s->nbackends; ++k)
    if (!is_cpu(s->backends[k])) {
      const int n = devo_gpu_count();
      if (n > 0 && a->gpu >= n)
        return cli_usage_error(CMD, "--gpu %d: not a CUDA device of this machine (%d: 0 .. %d)",
                               a->gpu, n, n - 1);
      if (n > 0 && (a->gpu >= 0 || a->size > 1) &&
          devo_gpu_select(a->gpu >= 0 ? a->gpu : a->local % n) != DEVO_OK)
        return cli_runtime_error(CMD, "GPU %d cannot be chosen",
                                 a->gpu >= 0 ? a->gpu : a->local % n);
      /* also creates the CUDA context before the first trial, out of every trial's time */
      if (!devo_gpu_available(msg, sizeof msg))
        return cli_runtime_error(CMD, "backend %s: no CUDA device (%s)",
                                 exp_backend_name(s->backends[k]), msg);
      return 0;
    }
  return 0;
}

/* ---- MPI (tools/mpi_experiment.c) ------------------------------------------------------------ */
#ifdef DEVO_HAVE_MPI

/* What rank 0 writes the workers' rows through, and what a worker runs its trials with. */
typedef struct rank_state {
  run_state *r;
  FILE *out, *tf;
  devo_problem *p; /* a worker's problem, made for at.pr and at.d: kept for the next trial */
  trial at;
} rank_state;

/* Trial number idx of the grid (trial_index's inverse). */
static trial trial_at(const exp_spec *s, int64_t idx)
{
  trial t;
  t.sd = (int)(idx % s->nseeds);
  idx /= s->nseeds;
  t.n = (int)(idx % s->nnps);
  idx /= s->nnps;
  t.d = (int)(idx % s->ndims);
  idx /= s->ndims;
  t.pr = (int)(idx % s->nproblems);
  idx /= s->nproblems;
  t.a = (int)(idx % s->nalgos);
  t.b = (int)(idx / s->nalgos);
  return t;
}

/* A worker's unit: trials idx[0..n) of one cell, as one batch (the rows exactly as one process
 * writes them). */
static int work_unit(void *ud, const int64_t *idx, int n, FILE *trace, FILE *row, FILE *line)
{
  rank_state *w = (rank_state *)ud;
  const exp_spec *s = w->r->s;
  trial_run *tr = calloc((size_t)n, sizeof *tr);
  int rc, k;
  if (!tr)
    return cli_runtime_error(CMD, "out of memory for %d trials", n);
  for (k = 0; k < n; ++k)
    tr[k].t = trial_at(s, idx[k]);
  if (!w->p || w->at.pr != tr[0].t.pr || w->at.d != tr[0].t.d) {
    devo_problem_destroy(w->p);
    w->p = NULL;
    if ((rc = make_problem(s, &tr[0].t, &w->p)) != 0) {
      free(tr);
      return rc;
    }
    w->at = tr[0].t;
  }
  w->r->lines = line;
  rc = run_batch(w->r, w->p, tr, n, row, s->trace ? trace : NULL);
  clear_trials(tr, n);
  free(tr);
  return rc;
}

/* Rank 0: a worker's unit, written as run_batch writes it (the trace's rows first), and each of
 * its trials counted with its line. */
static int lead_done(void *ud, const char *trace, size_t ntrace, const char *row, size_t nrow,
                     const char *line)
{
  rank_state *l = (rank_state *)ud;
  if (l->tf && ntrace) {
    fwrite(trace, 1, ntrace, l->tf);
    fflush(l->tf);
  }
  fwrite(row, 1, nrow, l->out);
  fflush(l->out);
  if (ferror(l->out) || (l->tf && ferror(l->tf)))
    return cli_runtime_error(CMD, "%s: write error: %s", l->r->s->output, strerror(errno));
  while (*line) {
    const char *end = strchr(line, '\n');
    const size_t len = end ? (size_t)(end - line) : strlen(line);
    char one[1024];
    snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), line);
    count_done(l->r, one);
    line += len + (end != NULL);
  }
  return 0;
}

/* A trial's generations at most (its evaluation budget over NP, or the spec's generations): the
 * measure of its length for the MPI queue (a GPU generation costs about the same at every NP:
 * BENCHMARKS.md), 0 when it has neither bound. */
static int64_t trial_gens(const exp_spec *s, const trial *t)
{
  const int64_t budget = exp_budget(s, s->dims[t->d]);
  int64_t g = budget > 0 ? budget / s->nps[t->n] : 0;
  if (s->max_gens > 0 && (g == 0 || s->max_gens < g))
    g = s->max_gens;
  return g;
}

typedef struct todo_key {
  int64_t gens, pos, idx; /* length, place in run_grid's order, trial number */
} todo_key;

/* The longest first (the queue's tail is then its short trials), else run_grid's order. */
static int cmp_longest(const void *x, const void *y)
{
  const todo_key *a = (const todo_key *)x, *b = (const todo_key *)y;
  if (a->gens != b->gens)
    return a->gens > b->gens ? -1 : 1;
  return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The trials not yet done into *todo (*n of them), the longest first and otherwise in run_grid's
 * order (a worker keeps its problem from one trial to the next): 0, or the exit code. */
static int todo_list(const exp_spec *s, const char *done, int64_t **todo, int64_t *n)
{
  trial t;
  todo_key *k;
  int64_t i;
  *n = 0;
  *todo = malloc(sizeof **todo * (size_t)(exp_grid_size(s) + 1));
  k = malloc(sizeof *k * (size_t)(exp_grid_size(s) + 1));
  if (!*todo || !k) {
    free(k);
    return cli_runtime_error(CMD, "out of memory for %lld trials", (long long)exp_grid_size(s));
  }
  for (t.pr = 0; t.pr < s->nproblems; ++t.pr)
    for (t.d = 0; t.d < s->ndims; ++t.d)
      for (t.b = 0; t.b < s->nbackends; ++t.b)
        for (t.a = 0; t.a < s->nalgos; ++t.a)
          for (t.n = 0; t.n < s->nnps; ++t.n)
            for (t.sd = 0; t.sd < s->nseeds; ++t.sd)
              if (!done[trial_index(s, &t)]) {
                k[*n].gens = trial_gens(s, &t);
                k[*n].pos = *n;
                k[(*n)++].idx = trial_index(s, &t);
              }
  qsort(k, (size_t)*n, sizeof *k, cmp_longest);
  for (i = 0; i < *n; ++i)
    (*todo)[i] = k[i].idx;
  free(k);
  return 0;
}

/* The trials a worker runs as one batch under MPI: a gpu backend's up to 64 (a batch kernel takes
 * a group's trials together), a cpu backend's up to --jobs when given (1 by default: one rank per
 * core), the others' one. */
static int unit_most(const exp_spec *s, const trial *t, const exp_args *a)
{
  if (s->backends[t->b] == EXP_BK_GPU)
    return 64;
  if (s->backends[t->b] == EXP_BK_CPU && a->jobs_given > 0)
    return a->jobs_given;
  return 1;
}

/* todo[0..n) cut into units of consecutive trials of one cell (problem, dimension, backend,
 * algorithm, NP) of at most unit_most trials: *unit (freed by the caller) gets their starts and
 * n at the end, *nunits their number. 0, or the exit code. */
static int make_units(const exp_spec *s, const exp_args *a, const int64_t *todo, int64_t n,
                      int64_t **unit, int64_t *nunits)
{
  int64_t i, len = 0;
  trial first;
  *nunits = 0;
  if (!(*unit = malloc(sizeof **unit * (size_t)(n + 1))))
    return cli_runtime_error(CMD, "out of memory for %lld trials", (long long)n);
  memset(&first, 0, sizeof first);
  for (i = 0; i < n; ++i) {
    const trial t = trial_at(s, todo[i]);
    if (len == 0 || t.pr != first.pr || t.d != first.d || t.b != first.b || t.a != first.a ||
        t.n != first.n || len == unit_most(s, &first, a)) {
      (*unit)[(*nunits)++] = i;
      first = t;
      len = 0;
    }
    ++len;
  }
  (*unit)[*nunits] = n;
  return 0;
}

/* Rank 0 under MPI: the trials not yet done handed out to the workers in units, their rows
 * written. */
static int lead_ranks(run_state *r, const char *done, FILE *out, FILE *tf, exp_args *a)
{
  rank_state l;
  int64_t *todo = NULL, *unit = NULL, n = 0, nunits = 0;
  int rc = todo_list(r->s, done, &todo, &n);
  const exp_mpi_hooks h = {&l, NULL, lead_done};
  if (!rc)
    rc = make_units(r->s, a, todo, n, &unit, &nunits);
  memset(&l, 0, sizeof l);
  l.r = r;
  l.out = out;
  l.tf = tf;
  r->tty = 0; /* lines, not the bar: trials end on other ranks */
  a->led = 1;
  rc = exp_mpi_lead(a->size, todo, unit, nunits, rc, &h);
  free(unit);
  free(todo);
  return rc;
}

/* A worker: trials from rank 0 until told to stop; rc: its own failure before. */
static int work_ranks(const exp_spec *s, const exp_args *a, int rc)
{
  run_state r;
  rank_state w;
  memset(&r, 0, sizeof r);
  memset(&w, 0, sizeof w);
  r.s = s;
  r.jobs = a->jobs_given > 0 ? a->jobs_given : 1; /* a cpu unit's threads */
  r.trial_written = exp_mpi_trial_done;
  pthread_mutex_init(&r.mu, NULL);
  w.r = &r;
  if (!rc && !a->dry)
    rc = gpu_check(s, a);
  {
    const exp_mpi_hooks h = {&w, work_unit, NULL};
    rc = exp_mpi_work(rc, &h);
  }
  devo_problem_destroy(w.p);
  pthread_mutex_destroy(&r.mu);
  return rc;
}
#endif /* DEVO_HAVE_MPI */

static int run_all(const exp_spec *s, char *done, int64_t ndone, int fresh, out_locks *lk,
                   exp_args *a)
{
  run_state r;
  FILE *out, *tf = NULL;
  int rc;
  memset(&r, 0, sizeof r);
  r.s = s;
  r.jobs = a->jobs;
  pthread_mutex_init(&r.mu, NULL);
  r.tty = isatty(STDERR_FILENO);
  r.total = shard_size(s);
  r.done_before = ndone;
  r.t_start = tool_now();
  if (a->size == 1 && (rc = gpu_check(s, a)) != 0)
    return rc;
  if (!(out = open_results(s, fresh)))
    return CLI_USAGE;
  if (s->trace && !(tf = open_trace(s, done, fresh, &lk->trace))) {
    fclose(out);
    return CLI_USAGE;
  }
  if (ndone)
    fprintf(stderr, "devo experiment: %s: %lld of %lld trials already done, resuming\n", s->output,
            (long long)ndone, (long long)r.total);
#ifdef DEVO_HAVE_MPI
  if (a->size > 1) /* no signal handlers: mpirun ends the job, and the rows stay whole */
    rc = lead_ranks(&r, done, out, tf, a);
  else
#endif
  {
    catch_signals();
    rc = run_grid(&r, done, out, tf);
  }
  pthread_mutex_destroy(&r.mu);
  if (r.tty)
    fputs("\r\033[K", stderr);
  if (fclose(out) != 0 && !rc)
    rc = cli_runtime_error(CMD, "%s: write error: %s", s->output, strerror(errno));
  if (tf && fclose(tf) != 0 && !rc)
    rc = cli_runtime_error(CMD, "%s: write error: %s", s->trace, strerror(errno));
  if (rc == 3) {
    fprintf(stderr,
            "devo experiment: interrupted: %lld of %lld trials in %s; run the same "
            "command again to resume\n",
            (long long)(r.done_before + r.done_now), (long long)r.total, s->output);
    return CLI_RUNTIME;
  }
  if (!rc)
    fprintf(stderr, "devo experiment: %lld trials done (%lld now) in %s\n",
            (long long)(r.done_before + r.done_now), (long long)r.done_now, s->output);
  return rc;
}

/* This run's shard into s: its K/N, and its own results and trace files (.K-of-N before the
 * extension). 0, or the exit code after the message. */
static int take_shard(exp_spec *s, const exp_args *a)
{
  char *out, *trace = NULL;
  if (!a->nshards)
    return 0;
  if (a->nshards > exp_grid_size(s))
    return cli_usage_error(CMD, "%s: shard %d/%d, but the grid has %lld trials, fewer than %d",
                           a->shard_from, a->shard, a->nshards, (long long)exp_grid_size(s),
                           a->nshards);
  if (!(out = exp_shard_path(s->output, a->shard, a->nshards)) ||
      (s->trace && !(trace = exp_shard_path(s->trace, a->shard, a->nshards)))) {
    free(out);
    return cli_runtime_error(CMD, "out of memory");
  }
  free(s->output);
  s->output = out;
  if (trace) {
    free(s->trace);
    s->trace = trace;
  }
  s->shard = a->shard;
  s->nshards = a->nshards;
  return 0;
}

/* Rank 0 (the one process without MPI): the results read, the trials run or handed out, or the
 * dry run's grid. */
static int lead(exp_spec *s, exp_args *a)
{
  out_locks lk;
  char *done = calloc((size_t)exp_grid_size(s), 1);
  int rc, fresh = 1;
  int64_t ndone = 0, k;
  if (!done)
    return cli_runtime_error(CMD, "out of memory for %lld trials", (long long)exp_grid_size(s));
  stop_signal = 0;
  lk.out = lk.trace = -1;
  rc = a->dry ? 0 : lock_outputs(s, &lk); /* before the results are read: one writer */
  if (!rc)
    rc = read_results(s, done, &ndone, &fresh, !a->dry);
  if (!rc && !a->dry)
    exp_lock_mark(lk.out); /* read_results closed a descriptor of the file */
  for (k = 0; s->nshards && k < exp_grid_size(s); ++k)
    if (k % s->nshards != s->shard - 1)
      done[k] = 2; /* another shard's: never run here (1: a row in the results) */
  if (!rc)
    rc = a->dry ? dry_run(s, ndone) : run_all(s, done, ndone, fresh, &lk, a);
  unlock_output(s->trace, &lk.trace, lk.trace_made);
  unlock_output(s->output, &lk.out, lk.out_made);
  free(done);
  return rc;
}

/* Started by a launcher as one of several ranks: MPI started (a->rank, a->size, a->local), or
 * without MPI the refusal, so that N copies never write one file. 0, or the exit code. */
static int start_ranks(exp_args *a)
{
  const int n = cli_launcher_size();
  if (n < 2)
    return 0;
#ifdef DEVO_HAVE_MPI
  return exp_mpi_begin(&a->rank, &a->size, &a->local);
#else
  (void)a;
  return cli_usage_error(CMD,
                         "started by mpirun as one of %d ranks but built without MPI: run it "
                         "without mpirun, or build devo with MPI (libopenmpi-dev)",
                         n);
#endif
}

int cmd_experiment(int argc, char **argv)
{
  exp_args a;
  exp_spec s;
  char err[1024];
  int rc, loaded;
  memset(&a, 0, sizeof a);
  if ((rc = parse_args(argc, argv, &a)) != 0 || (rc = start_ranks(&a)) != 0)
    return rc;
  a.jobs_given = a.jobs;
  if (a.jobs == 0) { /* the default: every online processor */
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    a.jobs = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
  }
  loaded = exp_spec_load(a.spec, a.protocol, a.trials, a.out, &s, err, sizeof err) == 0;
  rc = loaded ? take_shard(&s, &a) : cli_usage_error(CMD, "%s", err);
#ifdef DEVO_HAVE_MPI
  if (a.rank > 0)
    rc = work_ranks(&s, &a, rc); /* s is not read after a failure */
  else if (!rc)
    rc = lead(&s, &a);
  if (a.size > 1 && a.rank == 0 && !a.led) /* the workers told to stop */
    rc = exp_mpi_lead(a.size, NULL, NULL, 0, rc, NULL);
#else
  if (!rc)
    rc = lead(&s, &a);
#endif
  if (loaded)
    exp_spec_free(&s);
#ifdef DEVO_HAVE_MPI
  if (a.size > 1)
    exp_mpi_end();
#endif
  return rc;
}
