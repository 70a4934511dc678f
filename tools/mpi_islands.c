/* SPDX-License-Identifier: MIT */
/* mpi_islands.c: `mpirun -np N devo solve ... --islands K`: the K islands of devo_solve spread
 * over the N ranks in contiguous blocks (rank r holds islands first .. first + count - 1; with
 * N > K the last N - K ranks hold none and only take part in the exchanges), each rank stepping
 * its own with a devo_islands handle. After every stretch one MPI_Allgatherv hands every rank
 * every island's migrant (value and vector) with each rank's counts (generations, evaluations,
 * population, how its step ended), so that all ranks take the same decisions from the same
 * numbers: the stopping rules and stretches of engine/islands.c's backend of devo_solve, the
 * migration rule of devo_migration_source, and at the end the best island (the lowest index on
 * ties) whose vector rank 0 then holds. So the answer for (seed, K, G, topology) is that of
 * `devo solve --islands K` in one process, bit for bit, whatever N. */
#include "mpi_islands.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_env.h"

/* Each rank's part of an exchange: HEAD doubles (integers below 2^53 are exact), then one record
 * of 1 + dim doubles (the best value, then the vector) per island it holds. */
enum { H_GENS, H_EVALS, H_NP, H_STATUS, H_TIME_UP, H_INTERRUPTED, HEAD };

typedef struct ctx {
  const cli_islands_job *job;
  int rank, size, K, dim, topology;
  int64_t G;
  int first, count; /* this rank's islands */
  int *cnt, *disp;  /* per rank, in doubles: MPI_Allgatherv's counts and displacements */
  int *owner;       /* per island: the rank that holds it */
  double *mine;     /* this rank's part */
  double *all;      /* every rank's, after an exchange */
  double *bests;    /* every island's best value, after an exchange */
  devo_islands *isl;
  double mig_seconds;  /* in the exchanges (filling, gathering, putting the migrants) */
  double wait_seconds; /* at the barrier before each exchange: waiting for the slowest rank */
} ctx;

/* The state of the whole run after an exchange, the same on every rank. */
typedef struct view {
  int64_t gens, evals, np; /* the largest generations, all evaluations, all populations */
  int best;                /* the island that holds the best (the lowest index on ties) */
  int error, error_rank;   /* the first rank's error (status < 0), or DEVO_OK */
  int interrupted, time_up;
} view;

/* What only the rank of the best island knows at the end, sent to rank 0 (plain data). */
typedef struct final_state {
  cli_variant_run run;
  devo_shade_state shade;
  int have_shade, best_from_seed;
} final_state;

static devo_islands *volatile active;
static volatile sig_atomic_t interrupt_asked;

void cli_mpi_islands_interrupt(void)
{
  interrupt_asked = 1;
  if (active)
    devo_islands_interrupt(active);
}

/* The contiguous block of islands of rank r: the first K % N ranks hold one more. */
static void block(int K, int N, int r, int *first, int *count)
{
  *count = K / N + (r < K % N);
  *first = r * (K / N) + (r < K % N ? r : K % N);
}

static size_t rec_len(const ctx *c)
{
  return 1 + (size_t)c->dim;
}

/* Island k's record in the gathered buffer. */
static const double *record(const ctx *c, int k)
{
  int f, n;
  block(c->K, c->size, c->owner[k], &f, &n);
  return c->all + c->disp[c->owner[k]] + HEAD + (size_t)(k - f) * rec_len(c);
}

static void ctx_free(ctx *c)
{
  free(c->cnt);
  free(c->disp);
  free(c->owner);
  free(c->mine);
  free(c->all);
  free(c->bests);
}

/* The exchange's layout; -1 when out of memory or too large for int counts (the same on every
 * rank: it depends on K, N and D only). */
static int ctx_layout(ctx *c)
{
  int64_t total = 0;
  int r, k;
  c->cnt = (int *)calloc((size_t)c->size, sizeof(int));
  c->disp = (int *)calloc((size_t)c->size, sizeof(int));
  c->owner = (int *)calloc((size_t)c->K, sizeof(int));
  c->bests = (double *)calloc((size_t)c->K, sizeof(double));
  if (!c->cnt || !c->disp || !c->owner || !c->bests)
    return -1;
  for (r = 0; r < c->size; ++r) {
    int f, n;
    block(c->K, c->size, r, &f, &n);
    for (k = f; k < f + n; ++k)
      c->owner[k] = r;
    c->disp[r] = (int)total;
    total += HEAD + (int64_t)n * (int64_t)rec_len(c);
    if (total > INT_MAX)
      return -1;
    c->cnt[r] = (int)(total - c->disp[r]);
  }
  c->mine = (double *)calloc((size_t)c->cnt[c->rank], sizeof(double));
  c->all = (double *)calloc((size_t)total, sizeof(double));
  return c->mine && c->all ? 0 : -1;
}

/* Fills this rank's part (st: how its last step or start ended) and gathers every rank's. */
static void exchange(ctx *c, int st, int time_up)
{
  devo_progress pr;
  const double t = MPI_Wtime();
  int k;
  /* a barrier first, so that the time waiting for the slowest rank (the stretches' imbalance)
   * is told apart from the exchange itself */
  MPI_Barrier(MPI_COMM_WORLD);
  const double tb = MPI_Wtime();
  c->wait_seconds += tb - t;
  memset(c->mine, 0, (size_t)c->cnt[c->rank] * sizeof(double));
  if (c->isl && st >= 0 && devo_islands_progress(c->isl, &pr) == DEVO_OK) {
    c->mine[H_GENS] = (double)pr.generation;
    c->mine[H_EVALS] = (double)pr.evaluations;
    c->mine[H_NP] = (double)devo_islands_np(c->isl);
  }
  c->mine[H_STATUS] = st;
  c->mine[H_TIME_UP] = time_up || st == DEVO_TIME_LIMIT;
  c->mine[H_INTERRUPTED] = interrupt_asked || st == DEVO_INTERRUPTED;
  for (k = 0; k < c->count; ++k) {
    double *rec = c->mine + HEAD + (size_t)k * rec_len(c);
    rec[0] = (double)INFINITY;
    if (c->isl && st >= 0 && devo_islands_migrant(c->isl, k, &rec[0], rec + 1) != DEVO_OK)
      rec[0] = (double)INFINITY;
  }
  MPI_Allgatherv(c->mine, c->cnt[c->rank], MPI_DOUBLE, c->all, c->cnt, c->disp, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  c->mig_seconds += MPI_Wtime() - tb;
}

static void make_view(ctx *c, view *v)
{
  int r, k;
  memset(v, 0, sizeof *v);
  v->error_rank = -1;
  for (r = 0; r < c->size; ++r) {
    const double *h = c->all + c->disp[r];
    if ((int64_t)h[H_GENS] > v->gens)
      v->gens = (int64_t)h[H_GENS];
    v->evals += (int64_t)h[H_EVALS];
    v->np += (int64_t)h[H_NP];
    if (h[H_STATUS] < 0 && v->error_rank < 0) {
      v->error = (int)h[H_STATUS];
      v->error_rank = r;
    }
    v->interrupted |= h[H_INTERRUPTED] != 0;
    v->time_up |= h[H_TIME_UP] != 0;
  }
  for (k = 0; k < c->K; ++k) {
    c->bests[k] = record(c, k)[0];
    if (c->bests[k] < c->bests[v->best])
      v->best = k;
  }
}

/* devo_solve's stopping rules (engine/solver.c's stop_reason, in its order) on the whole run:
 * the reason to stop, or DEVO_OK to go on. */
static int stop_reason(const ctx *c, const view *v)
{
  const cli_islands_job *j = c->job;
  if (v->error_rank >= 0)
    return v->error;
  if (v->interrupted)
    return DEVO_INTERRUPTED;
  if (!isnan(j->target) && c->bests[v->best] <= j->target)
    return DEVO_TARGET_REACHED;
  if (v->time_up)
    return DEVO_TIME_LIMIT;
  if (j->max_gens > 0 && v->gens >= j->max_gens)
    return DEVO_GEN_LIMIT;
  if (j->max_evals > 0 && v->evals + v->np > j->max_evals)
    return DEVO_EVAL_LIMIT;
  return DEVO_OK;
}

/* engine/islands.c's stretch: up to the next migration, within the generation and evaluation
 * limits of the whole run. */
static int64_t stretch(const ctx *c, const view *v)
{
  int64_t m = c->G - v->gens % c->G;
  if (c->job->max_gens > 0 && m > c->job->max_gens - v->gens)
    m = c->job->max_gens - v->gens;
  if (c->job->max_evals > 0 && v->np > 0 && m > (c->job->max_evals - v->evals) / v->np)
    m = (c->job->max_evals - v->evals) / v->np;
  return m < 1 ? 1 : m;
}

/* Each local island receives the migrant of devo_migration_source from the gathered records. */
static int put_migrants(ctx *c)
{
  double t = MPI_Wtime();
  int k, st = DEVO_OK;
  for (k = 0; k < c->count && st == DEVO_OK; ++k) {
    const int src = devo_migration_source(c->topology, c->K, c->first + k, c->bests);
    const double *rec = record(c, src);
    st = devo_islands_put(c->isl, k, rec[0], rec + 1, NULL);
  }
  c->mig_seconds += MPI_Wtime() - t;
  return st;
}

/* The deadline passed, or the next generation would not end before it (devo_solve's checks). */
static int time_is_up(const ctx *c, double deadline, double sec_per_gen)
{
  const double now = MPI_Wtime();
  return c->job->time_limit > 0.0 && (now >= deadline || deadline - now < sec_per_gen);
}

/* Starts this rank's islands (the template's problem and options; the GPU of the node-local rank
 * for the GPU backend): DEVO_OK or an error with its message in err. */
static int start_islands(ctx *c, const devo_solver *tmpl, int local_rank, char *err, size_t len)
{
  int st, n = devo_gpu_count();
  if (c->count < 1)
    return DEVO_OK;
  if (c->job->backend == DEVO_BACKEND_GPU && n > 0 && devo_gpu_select(local_rank % n) != DEVO_OK)
    snprintf(err, len, "rank %d: cannot use GPU %d", c->rank, local_rank % n);
  st = devo_islands_create(&c->isl, tmpl, c->first, c->count, NULL, err, len);
  if (st == DEVO_OK && (st = devo_islands_start(c->isl)) != DEVO_OK)
    snprintf(err, len, "%s", devo_islands_errmsg(c->isl));
  active = c->isl;
  if (interrupt_asked && c->isl)
    devo_islands_interrupt(c->isl);
  return st;
}

/* The loop of devo_solve over the islands of all ranks: exchange, decide, migrate, step. Returns
 * the reason of the end; *v is the last exchange's view. */
static int run_loop(ctx *c, int st, double t_start, view *v)
{
  const double deadline = t_start + c->job->time_limit;
  double sec_per_gen = MPI_Wtime() - t_start; /* the initial populations: one generation */
  int stop;
  for (;;) {
    int64_t m;
    double t;
    exchange(c, st, st >= 0 && time_is_up(c, deadline, sec_per_gen));
    make_view(c, v);
    if ((stop = stop_reason(c, v)) != DEVO_OK)
      return stop;
    /* a migration due after the last generation is made first (engine/islands.c) */
    if (v->gens > 0 && v->gens % c->G == 0 && c->isl && (st = put_migrants(c)) != DEVO_OK)
      continue; /* the error goes round the exchange to every rank */
    m = stretch(c, v);
    t = MPI_Wtime();
    st = c->isl ? devo_islands_step(c->isl, m) : DEVO_OK;
    if (st < 0)
      continue;
    sec_per_gen = (MPI_Wtime() - t) / (double)m;
  }
}

/* The best island's final state (on the rank that holds it), sent to rank 0. */
static void final_of(ctx *c, int best, final_state *fs)
{
  devo_solver *s;
  devo_stats st;
  memset(fs, 0, sizeof *fs);
  fs->run.mean_f = fs->run.mean_cr = fs->run.memory_f = fs->run.memory_cr = (double)NAN;
  fs->run.np = fs->run.archive = -1;
  if (c->owner[best] == c->rank) {
    s = devo_islands_solver(c->isl, best - c->first);
    cli_variant_run_state(s, c->job->var, c->job->np, &fs->run);
    fs->have_shade =
        c->job->var->v.adapt != DEVO_ADAPT_NONE &&
        devo_solver_shade_state(s, &fs->shade, NULL, NULL, NULL, NULL, NULL) == DEVO_OK;
    fs->best_from_seed = devo_solver_stats(s, &st) == DEVO_OK && st.best_from_seed;
  }
  if (c->owner[best] == 0)
    return;
  if (c->rank == c->owner[best])
    MPI_Send(fs, (int)sizeof *fs, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  else if (c->rank == 0)
    MPI_Recv(fs, (int)sizeof *fs, MPI_BYTE, c->owner[best], 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0's answer: devo_solve's statistics of the whole run and the best island's state. */
static void answer(ctx *c, const view *v, int why, double t_begin, double init_s,
                   const char *island_info, cli_solve_result *r)
{
  const double *rec = record(c, v->best);
  final_state fs;
  final_of(c, v->best, &fs);
  if (c->rank != 0)
    return;
  r->best = rec[0];
  memcpy(r->x, rec + 1, (size_t)c->dim * sizeof(double));
  memset(&r->stats, 0, sizeof r->stats);
  r->stats.generations = v->gens;
  r->stats.evaluations = v->evals;
  r->stats.elapsed = MPI_Wtime() - t_begin;
  r->stats.init_seconds = init_s;
  r->stats.status = why;
  r->stats.backend = c->job->backend == DEVO_BACKEND_GPU ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU;
  r->stats.best_from_seed = fs.best_from_seed;
  r->run = fs.run;
  r->shade = fs.shade;
  r->have_shade = fs.have_shade;
  r->ranks = c->size;
  r->migration_seconds = c->mig_seconds;
  r->migration_wait_seconds = c->wait_seconds;
  snprintf(r->info, sizeof r->info,
           "islands: %d x (%s), %s migration every %lld generations, %d MPI ranks, %d thread%s "
           "each",
           c->K, island_info, c->topology == DEVO_TOPOLOGY_RING ? "ring" : "fully connected",
           (long long)c->G, c->size, c->job->threads, c->job->threads > 1 ? "s" : "");
}

/* The error of the run, printed by the first rank that had it only. */
static void keep_error(const ctx *c, const view *v, cli_solve_result *r)
{
  r->silent = 1;
  if (c->rank != v->error_rank)
    r->err[0] = 0;
}

int cli_mpi_islands(const devo_solver *tmpl, const cli_islands_job *job, cli_solve_result *r)
{
  ctx c;
  view v;
  char island_info[512] = "";
  double t_begin, init_s;
  int local_rank = 0, st, why;
  memset(&c, 0, sizeof c);
  memset(&v, 0, sizeof v);
  r->err[0] = 0;
  r->silent = 1;
  if (cli_mpi_begin("solve", &c.rank, &c.size, &local_rank) != 0)
    return DEVO_E_INTERNAL; /* said already */
  c.job = job;
  c.dim = job->dim;
  devo_solver_get_islands(tmpl, &c.K, &c.G, &c.topology);
  block(c.K, c.size, c.rank, &c.first, &c.count);
  st = ctx_layout(&c);
  /* every rank learns of one that could not: the exchanges need them all */
  MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (st != 0) {
    if (c.rank == 0)
      snprintf(r->err, sizeof r->err,
               "no room for the exchange of %d islands of dimension %d over %d ranks (out of "
               "memory, or over 2^31 - 1 numbers)",
               c.K, c.dim, c.size);
    why = DEVO_E_NOMEM;
  } else {
    t_begin = MPI_Wtime();
    st = start_islands(&c, tmpl, local_rank, r->err, sizeof r->err);
    init_s = MPI_Wtime() - t_begin;
    if (c.isl && c.rank == 0)
      snprintf(island_info, sizeof island_info, "%s",
               devo_solver_backend_info(devo_islands_solver(c.isl, 0)));
    why = run_loop(&c, st, t_begin, &v);
    if (why > 0) {
      if (c.isl)
        (void)devo_islands_finish(c.isl, why); /* started, and a positive reason: DEVO_OK */
      r->silent = c.rank != 0;
      answer(&c, &v, why, t_begin, init_s, island_info, r);
    } else {
      if (c.isl)
        (void)devo_islands_finish(c.isl, DEVO_INTERRUPTED);
      keep_error(&c, &v, r);
    }
  }
  active = NULL;
  devo_islands_destroy(c.isl);
  ctx_free(&c);
  cli_mpi_end();
  return why;
}
