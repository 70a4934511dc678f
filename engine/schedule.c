/* SPDX-License-Identifier: MIT */
/* schedule.c: devo_schedule_run, the time-bounded scheduling pipeline behind `devo schedule`
 * and bench-etc: heuristics, local search on them, DE seeded with the results, local search on
 * DE's best. Kept in the library (not in tools/) so that a resource manager that links devo gets
 * exactly what the command does (issue 5). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../problems/etc.h"
#include "../problems/etc_bound.h"
#include "../problems/etc_vnd.h"
#include "../problems/philox.h"
#include "etc_internal.h"
#include "gpu_ls.h"

/* Share of the limit that the local search of the seeds may use at most: on the Braun sizes it
 * needs well under a millisecond, the cap only matters on very large instances. */
#define SEED_LS_SHARE 0.3
/* Share of the limit by which Min-min, Sufferage and Max-min must have ended (O(n^2 m): 2 to 3 ms
 * each at 512x16, seconds from 10^4 tasks): given the whole limit, from about 5,000 tasks they
 * used it up and were dropped unfinished, and the answer was a plain OLB, MET or MCT schedule
 * with no local search or DE at any limit (found in review). */
#define BATCH_HEUR_SHARE 0.2
/* The smallest DE budget worth a solve (below it the heuristics answer alone). */
#define MIN_SOLVE_S 0.002
/* Reserve for the final local search: this multiple of the quickest seed's local search, within
 * [MIN_POLISH_S, MAX_POLISH_SHARE * limit]; without seed timings, NOSEED_POLISH_SHARE of it.
 * The quickest, because DE's best is usually a few steps from a seed's local optimum, while the
 * slowest seed (OLB, MET) starts far from one; a polish cut short by the deadline still returns
 * a valid, never worse, schedule. */
#define POLISH_PER_SEED_LS  3.0
#define MIN_POLISH_S        0.001
#define MAX_POLISH_SHARE    0.2
#define NOSEED_POLISH_SHARE 0.1
/* IG steps between two merges of the chains: often enough that the chains share their best
 * (and the progress callback, Ctrl-C, is heard) within milliseconds at 512x16, seldom enough
 * that they explore apart. */
#define IG_EPOCH 64
/* Chains by default, also on one thread: four chains merged every 64 steps stalled less than
 * one (1 s, one thread, one seed, loaded 2-core machine, 2026-11-24: u_c_hihi 0.35% above the
 * best-known against 0.59%, u_s_hihi 0.40% against 1.03%, u_c_lolo 0.48% against 0.70%,
 * u_i_hihi 0.26% against 0.30%, u_s_lohi 0.59% against 0.55%; 8 and 16 chains were worse than
 * 4 on 3 and 4 of these 5). With one chain u_c_hihi ended at the same 0.59% after 1, 3 and
 * 10 s. */
#define IG_MIN_CHAINS 4
/* The machine prices (problems/etc_vnd.c), for the lower bound (problems/etc_bound.c) and the
 * makespan search's start, must end within this share of the limit from their start, unless a
 * step budget asks for the same answer on every run (then by the deadline): up to 3e8 cells of
 * pricing, 0.2 s on the development machine, for 8192 x 128 and larger. (From their start, not
 * the call's: reading and the heuristics can take a tenth of a short limit at 4096 x 64, and
 * prices cut to 8 rounds left u_s_hihi 21% above the bound at 1 s.) */
#define BOUND_SHARE 0.1
/* The enumeration of a tiny instance must end by this share of the limit (or by the deadline
 * with steps), else the search goes on without it: at most 10^6 assignments, about 10 to 50 ms. */
#define ENUM_SHARE 0.3
/* "Within rounding" (DEVO_OPTIMAL): objective <= lower_bound * (1 + OPT_RTOL + the bound's own
 * rounding allowance, devo__etc_lb.rtol). */
#define OPT_RTOL 1e-12
/* --search auto's rule (devo_schedule_search_for), from the H100 machine's measurements of the
 * GPU search against IG (BENCHMARKS.md, "The GPU search at 1 s", "... at 10 s", "Larger
 * instances"; medians over the 12 Braun instances at 512 x 16 and the etc-gen classes at 4096 x
 * 64 and 16384 x 256):
 *  - 512 x 16, 1 s: GPU mean 0.215% above the best-known against IG on 1 thread 0.25% and on 16
 *    threads 0.20%; 10 s: GPU 0.07% against IG on 16 threads 0.17%;
 *  - 4096 x 64: within 0.2 points of IG on 16 threads at 1 s and 10 s but for u_c_lolo, where the
 *    GPU was 1.5 points ahead at 1 s;
 *  - 16384 x 256 at 1 s: the GPU behind IG on three classes of four (u_c_hihi 37.7% above Min-min
 *    against 35.9%).
 * So the GPU search from AUTO_GPU_LS_MIN_TASKS to AUTO_GPU_LS_MAX_TASKS tasks and
 * AUTO_GPU_LS_MIN_MACHINES machines, from AUTO_GPU_LS_MIN_S seconds when IG would run on fewer
 * than AUTO_GPU_LS_IG_THREADS threads (measured at 1 and 16; between them interpolated: the
 * GPU), and from AUTO_GPU_LS_LONG_S seconds whatever the threads; IG elsewhere. */
#define AUTO_GPU_LS_MIN_TASKS    512
#define AUTO_GPU_LS_MAX_TASKS    4096
#define AUTO_GPU_LS_MIN_MACHINES 16
#define AUTO_GPU_LS_MIN_S        1.0
#define AUTO_GPU_LS_LONG_S       10.0
#define AUTO_GPU_LS_IG_THREADS   16

void devo_schedule_opts_init(devo_schedule_opts *o)
{
  memset(o, 0, sizeof *o);
  o->time_limit = 1.0;
  o->lambda = 0.75;
  o->order = DEVO_ORDER_FCFS;
  o->heuristic = -1;
  o->seeds = DEVO_ETC_SEED_LOCAL;
  o->polish = 1;
  o->ils_share = 0.8;
  o->np = 64;
  o->f = 0.5;
  o->cr = 0.9;
  o->seed = 1;
  o->threads = 1;
  o->backend = DEVO_BACKEND_CPU;
  o->search = DEVO_SEARCH_AUTO;
  o->steps = 0;
  o->chains = 0;
  o->gap = 0.0;
  devo_variant_init(&o->variant);
}

int devo_schedule_search_for(const devo_schedule_opts *o, int ntasks, int nmach, int gpu_ready)
{
  if (!o)
    return DEVO_SEARCH_PIPELINE;
  if (o->search != DEVO_SEARCH_AUTO)
    return o->search;
  if (o->lambda != 1.0)
    return DEVO_SEARCH_PIPELINE;
  if (gpu_ready && ntasks >= AUTO_GPU_LS_MIN_TASKS && ntasks <= AUTO_GPU_LS_MAX_TASKS &&
      nmach >= AUTO_GPU_LS_MIN_MACHINES &&
      (o->time_limit >= AUTO_GPU_LS_LONG_S ||
       (o->time_limit >= AUTO_GPU_LS_MIN_S && o->threads < AUTO_GPU_LS_IG_THREADS)))
    return DEVO_SEARCH_GPU_LS;
  return DEVO_SEARCH_IG;
}

static const char *const search_names[] = {"auto", "pipeline", "ig", "gpu-ls"};

const char *devo_schedule_search_name(int search)
{
  if (search < 0 || search >= (int)(sizeof search_names / sizeof search_names[0]))
    return NULL;
  return search_names[search];
}

#define fail(r, ...) devo__errf((r)->message, sizeof(r)->message, __VA_ARGS__)

/* 1 when the caller's interrupt flag is up (devo.h: o->interrupt). */
static int interrupted(const devo_schedule_opts *o)
{
  return o->interrupt && *o->interrupt;
}

static const char *const source_names[] = {"heuristic", "heuristic+ls", "de",         "de+ls",
                                           "ils",       "ig",           "enumeration"};

const char *devo_schedule_source_name(int source)
{
  if (source < 0 || source >= (int)(sizeof source_names / sizeof source_names[0]))
    return NULL;
  return source_names[source];
}

/* A candidate answer and where it came from. */
typedef struct cand {
  const int *assign;
  double ms, ft, obj;
  int source, heuristic;
} cand;

static int eval_cand(const devo_etc *e, const devo_schedule_opts *o, const int *a, int source,
                     int heuristic, cand *c)
{
  int st = devo_etc_evaluate(e, a, o->order, &c->ms, &c->ft);
  c->assign = a;
  c->obj = devo__etc_objective(o->lambda, c->ms, c->ft, e->nmach);
  c->source = source;
  c->heuristic = heuristic;
  return st;
}

/* Keeps the better by the objective; ties keep the earlier (cheaper) one. */
static void take_if_better(cand *best, const cand *c)
{
  if (!best->assign || c->obj < best->obj)
    *best = *c;
}

/* Whether o asks for a search that counts steps: the iterated greedy or its GPU form, whatever
 * the instance (devo_schedule_search_for chooses between them). */
static int uses_ig(const devo_schedule_opts *o)
{
  return o->search == DEVO_SEARCH_IG || o->search == DEVO_SEARCH_GPU_LS ||
         (o->search == DEVO_SEARCH_AUTO && o->lambda == 1.0);
}

static int check_opts(const devo_schedule_opts *o, devo_schedule_result *r)
{
  if (!(o->time_limit > 0.0 && o->time_limit <= 1e9))
    return fail(r, DEVO_E_INVALID, "time limit %g: must be a number of seconds > 0 and <= 1e9",
                o->time_limit);
  if (!(o->lambda >= 0.0 && o->lambda <= 1.0))
    return fail(r, DEVO_E_INVALID, "lambda %g: must be in [0, 1]", o->lambda);
  if (o->order != DEVO_ORDER_FCFS && o->order != DEVO_ORDER_SPT)
    return fail(r, DEVO_E_INVALID, "order %d: not a DEVO_ORDER_* value", o->order);
  if (o->heuristic < -1 || o->heuristic >= DEVO_HEUR_COUNT)
    return fail(r, DEVO_E_INVALID, "heuristic %d: not -1 or a DEVO_HEUR_* value", o->heuristic);
  if (o->seeds != DEVO_ETC_SEED_NONE && o->seeds != DEVO_ETC_SEED_PLAIN &&
      o->seeds != DEVO_ETC_SEED_LOCAL)
    return fail(r, DEVO_E_INVALID, "seeds %d: not a DEVO_ETC_SEED_* value", o->seeds);
  if (o->polish != 0 && o->polish != 1)
    return fail(r, DEVO_E_INVALID, "polish %d: must be 0 or 1", o->polish);
  if (!(o->ils_share >= 0.0 && o->ils_share < 1.0))
    return fail(r, DEVO_E_INVALID, "ils_share %g: must be in [0, 1)", o->ils_share);
  if (o->backend != DEVO_BACKEND_CPU && o->backend != DEVO_BACKEND_GPU &&
      o->backend != DEVO_BACKEND_AUTO)
    return fail(r, DEVO_E_INVALID, "backend %d: not a DEVO_BACKEND_* value", o->backend);
  /* DE's options too, although DE may not run: whether a bad one is refused must not depend
   * on the time left */
  if (!devo__np_ok(o->np))
    return fail(r, DEVO_E_INVALID, "np %d: must be in [4, %d]", o->np, DEVO__MAX_NP);
  if (!devo__f_ok(o->f))
    return fail(r, DEVO_E_INVALID, "f %g: must be in (0, 2]", o->f);
  if (!devo__cr_ok(o->cr))
    return fail(r, DEVO_E_INVALID, "cr %g: must be in [0, 1]", o->cr);
  if (!devo__threads_ok(o->threads))
    return fail(r, DEVO_E_INVALID, "threads %d: must be in [1, 1024]", o->threads);
  if (o->search != DEVO_SEARCH_AUTO && o->search != DEVO_SEARCH_PIPELINE &&
      o->search != DEVO_SEARCH_IG && o->search != DEVO_SEARCH_GPU_LS)
    return fail(r, DEVO_E_INVALID, "search %d: not a DEVO_SEARCH_* value", o->search);
  if ((o->search == DEVO_SEARCH_IG || o->search == DEVO_SEARCH_GPU_LS) && o->lambda != 1.0)
    return fail(r, DEVO_E_INVALID, "search %s optimises the makespan: lambda must be 1, got %g",
                o->search == DEVO_SEARCH_IG ? "IG" : "GPU_LS", o->lambda);
  if (o->steps < 0)
    return fail(r, DEVO_E_INVALID, "steps %lld: must be >= 0", (long long)o->steps);
  if (o->steps > 0 && !uses_ig(o))
    return fail(r, DEVO_E_INVALID,
                "steps: only the IG search counts steps (lambda = 1, search "
                "IG or AUTO)");
  if (o->chains < 0 || o->chains > 4096)
    return fail(r, DEVO_E_INVALID, "chains %d: must be in [0, 4096]", o->chains);
  if (!(o->gap >= 0.0 && o->gap <= 1.0))
    return fail(r, DEVO_E_INVALID, "gap %g: must be a fraction in [0, 1] (0.01 = 1%%)", o->gap);
  if (o->gpus < DEVO_GPUS_ALL || o->gpus > DEVO_GPUS_MAX)
    return fail(r, DEVO_E_INVALID,
                "gpus %d: must be a count 1 .. %d, 0 (the calling thread's device) or %d (every "
                "device)",
                o->gpus, DEVO_GPUS_MAX, DEVO_GPUS_ALL);
  /* without any device the GPU search falls back to the CPU, as it does for one GPU; with the
   * CPU backend no device is asked (the driver's start would count against the limit) */
  if (o->gpus > 1 && o->backend != DEVO_BACKEND_CPU) {
    const int count = devo__gpu_count();
    if (count >= 1 && o->gpus > count)
      return fail(r, DEVO_E_INVALID, "gpus %d: only %d CUDA device(s) visible", o->gpus, count);
  }
  {
    char msg[256];
    if (devo_variant_check(&o->variant, msg, sizeof msg) != DEVO_OK)
      return fail(r, DEVO_E_INVALID, "variant: %s", msg);
    if (o->np < devo_strategy_min_np(o->variant.strategy))
      return fail(r, DEVO_E_INVALID, "np %d: strategy %s needs at least %d", o->np,
                  devo_strategy_name(o->variant.strategy, o->variant.crossover),
                  devo_strategy_min_np(o->variant.strategy));
  }
  return DEVO_OK;
}

/* Everything the DE step allocates, freed in one place. */
typedef struct de_run {
  devo_problem *p;
  devo_solver *s;
  double *x;
  int *a;
} de_run;

static void de_free(const devo_allocator *al, de_run *d)
{
  devo_solver_destroy(d->s);
  devo_problem_destroy(d->p);
  devo__free(al, d->x);
  devo__free(al, d->a);
}

/* jDE's mean F_i and CR_i of the solver's final population into r (left NaN without jDE or
 * when the state cannot be read or its memory taken). */
static void jde_means(devo_solver *s, const devo_allocator *al, const devo_schedule_opts *o,
                      devo_schedule_result *r)
{
  double *fc, sf = 0.0, scr = 0.0;
  int i;
  if (!o->variant.jde)
    return;
  fc = (double *)devo__alloc(al, 2 * (size_t)o->np, sizeof(double));
  if (fc && devo_solver_jde_state(s, fc, fc + o->np) == DEVO_OK) {
    for (i = 0; i < o->np; ++i) {
      sf += fc[i];
      scr += fc[o->np + i];
    }
    r->jde_mean_f = sf / o->np;
    r->jde_mean_cr = scr / o->np;
  }
  devo__free(al, fc);
}

static int solver_setup(devo_solver *s, const devo_schedule_opts *o, int backend, double budget)
{
  int st;
  if ((st = devo_solver_set_np(s, o->np)) != DEVO_OK ||
      (st = devo_solver_set_f(s, o->f)) != DEVO_OK ||
      (st = devo_solver_set_cr(s, o->cr)) != DEVO_OK ||
      (st = devo_solver_set_variant(s, &o->variant)) != DEVO_OK ||
      (st = devo_solver_set_seed(s, o->seed)) != DEVO_OK ||
      (st = devo_solver_set_threads(s, o->threads)) != DEVO_OK ||
      (st = devo_solver_set_backend(s, backend)) != DEVO_OK ||
      (st = devo_solver_set_progress(s, o->progress, o->progress_ud)) != DEVO_OK ||
      (st = devo_solver_set_time_limit(s, budget)) != DEVO_OK)
    return st;
  return DEVO_OK;
}

/* Perturbations of one round: 2 to 6 tasks, so that the local search can leave the basin of
 * its last optimum without forgetting the schedule. */
#define ILS_MIN_KICK  2
#define ILS_KICK_SPAN 5

/* Step 5: iterated local search from cur (a schedule with objective *cur_obj) until the
 * deadline; cur and *cur_obj receive the best found. work: n ints of scratch. Returns a status;
 * *rounds counts the rounds. Each round's objective comes from one view and one scratch block
 * made here (devo_etc_evaluate would allocate and check the assignment again every round). */
static int iterated_ls(const devo_etc *e, const devo_schedule_opts *o, int *cur, double *cur_obj,
                       int *work, double t0, double deadline, int64_t *rounds, int *stopped)
{
  const devo__pview v = devo__etc_view(e, o->order, o->lambda);
  double *scratch = (double *)devo__alloc(&e->al, devo__etc_scratch(&v), sizeof(double));
  int n = e->ntasks, m = e->nmach, q, k, st = DEVO_OK;
  uint32_t round;
  if (!scratch)
    return DEVO_E_NOMEM;
  for (round = 0;; ++round) {
    double left = deadline - devo__now(), obj;
    int64_t moves = 0;
    if (left <= 0.0)
      break;
    if (interrupted(o)) {
      *stopped = DEVO_INTERRUPTED;
      break;
    }
    memcpy(work, cur, (size_t)n * sizeof(int));
    k = ILS_MIN_KICK + (int)(round % ILS_KICK_SPAN);
    for (q = 0; q < k; ++q) {
      devo__u32x4 w = devo__rng(o->seed, (uint32_t)q, round, 0u, DEVO__RNG_SCHED);
      int t = (int)devo__below(w.v[0], (uint32_t)n), j = (int)devo__below(w.v[1], (uint32_t)m - 1);
      work[t] = j >= work[t] ? j + 1 : j; /* any machine but its own */
    }
    st = devo__etc_local_search_stop(e, work, o->order, o->lambda, 0, left, &moves, o->interrupt);
    if (st != DEVO_OK)
      break;
    ++*rounds;
    obj = devo__etc_eval_parts(&v, NULL, work, scratch, NULL, NULL);
    if (obj <= *cur_obj) { /* equal is kept too: it moves the search along plateaus */
      memcpy(cur, work, (size_t)n * sizeof(int));
      *cur_obj = obj;
    }
    /* the progress callback may end this step too (devo schedule's Ctrl-C was ignored here,
     * where most of the time goes: found in review) */
    if (o->progress) {
      devo_progress pr;
      pr.generation = *rounds;
      pr.evaluations = *rounds;
      pr.elapsed = devo__now() - t0;
      pr.best = *cur_obj;
      if (o->progress(o->progress_ud, &pr) != 0) {
        *stopped = DEVO_STOPPED_BY_CALLBACK;
        break;
      }
    }
  }
  devo__free(&e->al, scratch);
  return st;
}

/* Step 1: the heuristics' schedules into plain (n ints each): o->heuristic alone (always run to
 * its end: it is the answer), or all six, OLB, MET and MCT first (one pass over the matrix each,
 * always finished, so an answer exists), then Min-min, Sufferage and Max-min, each dropped when
 * deadline (the caller's share of the limit) passes before it ends (they take 2 to 3 ms each at
 * 512x16: run regardless, they overran short limits). The finished ones are stored in seed
 * order (devo__etc_seed_order), heur[] naming them, *count of them. Returns a status. */
static int run_heuristics(const devo_etc *e, const devo_schedule_opts *o, double deadline,
                          int *plain, int *heur, int *count)
{
  const int n = e->ntasks;
  int done[DEVO_HEUR_COUNT] = {0}, pass, k, q, any, st;
  *count = 0;
  if (o->heuristic >= 0) {
    heur[0] = o->heuristic;
    *count = 1;
    /* DEVO_INTERRUPTED: complete, the rest mapped as MCT would */
    st = devo__etc_heuristic_stop(e, o->heuristic, plain, 0.0, o->interrupt);
    return st == DEVO_INTERRUPTED ? DEVO_OK : st;
  }
  for (pass = 0; pass < 2; ++pass)
    for (k = 0; k < DEVO_HEUR_COUNT; ++k) {
      const int h = devo__etc_seed_order[k];
      if (devo__etc_heuristic_immediate(h) != (pass == 0))
        continue;
      /* the first one (MCT) always runs, so that an interrupted call has an answer */
      for (q = 0, any = 0; q < DEVO_HEUR_COUNT; ++q)
        any |= done[q];
      if (any && interrupted(o))
        continue;
      st = devo__etc_heuristic_stop(e, h, plain + (size_t)k * n, pass == 0 ? 0.0 : deadline,
                                    o->interrupt);
      if (st != DEVO_OK && st != DEVO_TIME_LIMIT && st != DEVO_INTERRUPTED)
        return st;
      done[k] = st == DEVO_OK;
    }
  for (k = 0; k < DEVO_HEUR_COUNT; ++k)
    if (done[k]) {
      if (*count != k)
        memcpy(plain + (size_t)*count * n, plain + (size_t)k * n, (size_t)n * sizeof(int));
      heur[(*count)++] = devo__etc_seed_order[k];
    }
  return DEVO_OK;
}

/* The progress callback of the IG chains' merges, as devo_progress. */
typedef struct ig_progress {
  const devo_schedule_opts *o;
  double t0;
} ig_progress;

static int ig_report(void *ud, int64_t steps, double best)
{
  const ig_progress *p = (const ig_progress *)ud;
  devo_progress pr;
  pr.generation = steps;
  pr.evaluations = steps;
  pr.elapsed = devo__now() - p->t0;
  pr.best = best;
  return p->o->progress(p->o->progress_ud, &pr);
}

/* The answer of a makespan search (cur) evaluated and kept if it beats *best. */
static int keep_search_answer(const devo_etc *e, const devo_schedule_opts *o, const int *cur,
                              cand *best, devo_schedule_result *r)
{
  cand c;
  int st = eval_cand(e, o, cur, DEVO_SCHED_FROM_IG, -1, &c);
  if (st != DEVO_OK)
    return fail(r, st, "evaluation: %s", devo_status_message(st));
  if (c.obj < best->obj)
    *best = c;
  return DEVO_OK;
}

/* The machine prices of the makespan search (devo__etc_prices), computed once for the lower bound
 * and the search. */
typedef struct prices {
  double *mu; /* nmach prices; NULL when not priced */
  int *arg;   /* ntasks: each task's cheapest machine at them */
  double lb;  /* devo__etc_prices's dual value */
} prices;

/* The IG stage (issue 19): from the best schedule so far (cur, n ints; *best describes it) to
 * the deadline or o->steps per chain; cur and *best receive the answer when it is better. pz:
 * the prices when already computed. */
static int stage_ig(const devo_etc *e, const devo_schedule_opts *o, const prices *pz, double t0,
                    double deadline, int *cur, cand *best, devo_schedule_result *r)
{
  devo__ig_opts io;
  devo__ig_result ir;
  ig_progress pp;
  int st;
  if (deadline - devo__now() <= 0.0)
    return DEVO_OK;
  memcpy(cur, best->assign, (size_t)e->ntasks * sizeof(int));
  memset(&io, 0, sizeof io);
  io.seed = o->seed;
  io.threads = o->threads;
  io.chains = o->chains > 0 ? o->chains : o->threads > IG_MIN_CHAINS ? o->threads : IG_MIN_CHAINS;
  io.steps = o->steps;
  io.epoch = IG_EPOCH;
  io.deadline = deadline;
  io.interrupt = o->interrupt;
  io.mu = pz->mu;
  io.arg = pz->arg;
  io.lower_bound = pz->lb;
  pp.o = o;
  pp.t0 = t0;
  if (o->progress) {
    io.progress = ig_report;
    io.progress_ud = &pp;
  }
  st = devo__etc_ig(e, cur, &io, &ir);
  if (st != DEVO_OK)
    return fail(r, st, "iterated greedy: %s", devo_status_message(st));
  r->ils_rounds = ir.steps;
  r->candidates = ir.candidates;
  r->status = ir.status;
  return keep_search_answer(e, o, cur, best, r);
}

/* devo_schedule_opts.gpus as the GPU search's device list (gpu_ls.h) in devs (DEVO_GPUS_MAX
 * ints): none for 0 (the calling thread's device), else devices 0 .. N - 1, N every visible one
 * for DEVO_GPUS_ALL (none when no device is visible: the one-device search then fails as it
 * would alone). Returns the count. */
static int gls_devices(int gpus, int *devs)
{
  int n = gpus == DEVO_GPUS_ALL ? devo__gpu_count() : gpus, k;
  if (n > DEVO_GPUS_MAX)
    n = DEVO_GPUS_MAX;
  for (k = 0; k < n; ++k)
    devs[k] = k;
  return n;
}

/* The GPU stage (issue 19 item 2, kernels/gpu_sched_ls.cu): the chains start from the best
 * schedule so far, the heuristics' (plain, nheur of them) and the prices' start, round robin,
 * and search to the deadline or o->steps per chain; cur and *best receive the answer when it is
 * better. *ran = 0 when the GPU could not run it (no device, an instance too large for its shared
 * memory): the caller then runs the CPU search, and r->message says why. tune: the ablation's
 * DE period and perturbation (gpu_ls.h), NULL = the defaults. */
static int stage_gls(const devo_etc *e, const devo_schedule_opts *o, const devo__gls_tune *tune,
                     const prices *pz, double t0, double deadline, const int *plain, int nheur,
                     int *cur, cand *best, devo_schedule_result *r, int *ran)
{
  const int n = e->ntasks;
  devo__gls_opts go;
  devo__gls_result gr;
  ig_progress pp;
  int *starts, st, devs[DEVO_GPUS_MAX];
  *ran = 0;
  if (deadline - devo__now() <= 0.0)
    return DEVO_OK;
  starts = (int *)devo__alloc(&e->al, (size_t)(nheur + 2) * (size_t)n, sizeof(int));
  if (!starts)
    return fail(r, DEVO_E_NOMEM, "out of memory for the GPU search's starts");
  memcpy(starts, best->assign, (size_t)n * sizeof(int));
  memcpy(starts + n, plain, (size_t)nheur * (size_t)n * sizeof(int));
  /* one more start near the LP optimum: every task on its cheapest machine at the machine
   * prices of problems/etc_vnd.c (where the CPU search starts its chains) */
  memcpy(starts + (size_t)(nheur + 1) * n, pz->arg, (size_t)n * sizeof(int));
  memset(&go, 0, sizeof go);
  go.seed = o->seed;
  go.chains = o->chains;
  go.steps = o->steps;
  go.de_every = tune ? tune->de_every : DEVO__GLS_DE_EVERY;
  go.perturb = tune ? tune->perturb : DEVO__GLS_PERTURB_IG;
  go.f = o->f;
  go.cr = o->cr;
  go.deadline = deadline;
  go.interrupt = o->interrupt;
  go.ndevices = gls_devices(o->gpus, devs);
  go.devices = devs;
  pp.o = o;
  pp.t0 = t0;
  if (o->progress) {
    go.progress = ig_report;
    go.progress_ud = &pp;
  }
  st = devo__gpu_sched_ls(e, starts, nheur + 2, cur, &go, &gr, r->message, sizeof r->message);
  devo__free(&e->al, starts);
  if (st == DEVO_E_NODEVICE || st == DEVO_E_INVALID)
    return DEVO_OK; /* the CPU searches instead; the message stays */
  if (st != DEVO_OK)
    return fail(r, st, "GPU local search: %s", r->message);
  *ran = 1;
  r->message[0] = 0;
  r->backend = DEVO_BACKEND_GPU;
  r->ils_rounds = gr.steps;
  r->candidates = gr.candidates;
  r->ls_moves = gr.moves;
  r->status = gr.status;
  return keep_search_answer(e, o, cur, best, r);
}

/* ---- the pipeline: stages over one state ------------------------------------------------ */

/* Everything one call works on: its arguments, its clock, the schedules of its stages and the
 * best answer so far. Each stage returns a status; the first error ends the call, and sched_free
 * gives everything back whichever stage it came from. */
typedef struct sched_state {
  const devo_etc *e;
  const devo_schedule_opts *o; /* &oo: the caller's options with the progress callback below */
  devo_schedule_opts oo;
  devo_progress_fn user_progress; /* the caller's callback (NULL = none) and its data */
  void *user_ud;
  const devo__gls_tune *tune;
  devo_schedule_result *r;
  const devo_allocator *al;  /* e's; set by sched_alloc */
  int n;                     /* tasks */
  double t0, deadline;       /* the call's start, and t0 + o->time_limit */
  int *plain;                /* the heuristics' schedules, n ints each, in seed order */
  int *improved;             /* the same after the seeds' local search (step 2) */
  int *ils;                  /* 2n ints: the makespan search's or step 5's schedule, and scratch */
  int heur[DEVO_HEUR_COUNT]; /* the heuristic behind each of plain's schedules */
  int changed[DEVO_HEUR_COUNT]; /* 1 when step 2 moved that schedule */
  int nheur;
  const int *seeds; /* DE's seeds: improved, or NULL with DEVO_ETC_SEED_NONE */
  int nseeds;
  int ls_ran;      /* step 2 ran at least once */
  double ls_min;   /* its quickest run, seconds (the polish reserve scales with it) */
  int ig_done;     /* the makespan search did its o->steps before the deadline */
  int search;      /* devo_schedule_search_for: the search after the heuristics */
  cand best;       /* the answer so far */
  de_run d;        /* step 3's problem, solver and DE's best */
  prices pz;       /* the machine prices (not for a lone heuristic) */
  int *enum_a;     /* n ints: the enumeration's schedule */
  devo__etc_lb lb; /* the lower bound; lb.objective is the optimum once enumerated */
  int enumerated;  /* every assignment was evaluated: best is optimal */
  double target;   /* an answer with objective <= target is good enough: optimal within
                      rounding or within o->gap; the stages stop there */
  int target_hit;  /* a stage stopped because its best reached target (through sched_progress) */
} sched_state;

/* The progress callback of every stage (devo_progress): stops the stage once its best reaches
 * the target, else asks the caller's callback, if any. */
static int sched_progress(void *ud, const devo_progress *p)
{
  sched_state *s = (sched_state *)ud;
  if (p->best <= s->target) {
    s->target_hit = 1;
    return 1;
  }
  return s->user_progress ? s->user_progress(s->user_ud, p) : 0;
}

/* Starts the clock, resets r and checks the arguments; allocates nothing. */
static int sched_prepare(sched_state *s, const devo_etc *e, const devo_schedule_opts *o,
                         const devo__gls_tune *tune, const int *assign, devo_schedule_result *r)
{
  memset(s, 0, sizeof *s);
  s->t0 = devo__now();
  s->e = e;
  s->tune = tune;
  s->r = r;
  s->ls_min = (double)INFINITY;
  s->target = -(double)INFINITY; /* nothing stops the stages before the bound is known */
  memset(r, 0, sizeof *r);
  r->heuristic = -1;
  r->backend = -1;
  r->search = -1;
  r->jde_mean_f = r->jde_mean_cr = (double)NAN;
  if (!e || !o || !assign)
    return fail(r, DEVO_E_INVALID, "NULL argument");
  /* every stage reports its best through sched_progress, which stops it at the target and
   * passes the rest on to the caller's callback */
  s->oo = *o;
  s->o = &s->oo;
  s->user_progress = o->progress;
  s->user_ud = o->progress_ud;
  s->oo.progress = sched_progress;
  s->oo.progress_ud = s;
  s->search = devo_schedule_search_for(o, e->ntasks, e->nmach, o->backend == DEVO_BACKEND_GPU);
  return check_opts(o, r);
}

static int sched_alloc(sched_state *s)
{
  const size_t n = (size_t)s->e->ntasks;
  s->al = &s->e->al;
  s->n = s->e->ntasks;
  s->deadline = s->t0 + s->o->time_limit;
  s->plain = (int *)devo__alloc(s->al, (size_t)DEVO_HEUR_COUNT * n, sizeof(int));
  s->improved = (int *)devo__alloc(s->al, (size_t)DEVO_HEUR_COUNT * n, sizeof(int));
  s->ils = (int *)devo__alloc(s->al, 2 * n, sizeof(int));
  if (!s->plain || !s->improved || !s->ils)
    return fail(s->r, DEVO_E_NOMEM, "out of memory for the heuristic schedules");
  return DEVO_OK;
}

static void sched_free(sched_state *s)
{
  if (!s->al)
    return; /* nothing was allocated */
  de_free(s->al, &s->d);
  devo__free(s->al, s->pz.mu);
  devo__free(s->al, s->pz.arg);
  devo__free(s->al, s->enum_a);
  devo__free(s->al, s->plain);
  devo__free(s->al, s->improved);
  devo__free(s->al, s->ils);
}

/* Step 1: the heuristics (in seed order, the order in which they are kept as seeds); the best
 * of them is the first answer. */
static int sched_seed_heuristics(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  const double end = o->steps > 0 ? s->deadline : s->t0 + BATCH_HEUR_SHARE * o->time_limit;
  cand c;
  int k, st = run_heuristics(s->e, o, end, s->plain, s->heur, &s->nheur);
  for (k = 0; st == DEVO_OK && k < s->nheur; ++k) {
    st = eval_cand(s->e, o, s->plain + (size_t)k * s->n, DEVO_SCHED_FROM_HEURISTIC, s->heur[k], &c);
    if (st == DEVO_OK)
      take_if_better(&s->best, &c);
  }
  if (st != DEVO_OK)
    return fail(s->r, st, "heuristics: %s", devo_status_message(st));
  s->r->evaluations = s->nheur;
  return DEVO_OK;
}

/* Step 1b for a tiny instance: the optimum by enumerating every assignment (devo__etc_enumerate)
 * from the best heuristic schedule, unless it takes longer than ENUM_SHARE of the limit (with
 * o->steps: the deadline); a better schedule found before that is kept all the same. */
static int sched_enumerate(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  const double end = o->steps > 0 ? s->deadline : s->t0 + ENUM_SHARE * o->time_limit;
  double obj = s->best.obj;
  cand c;
  int st;
  if (!devo__etc_enumerable(s->e, o->lambda))
    return DEVO_OK;
  s->enum_a = (int *)devo__alloc(s->al, (size_t)s->n, sizeof(int));
  if (!s->enum_a)
    return fail(s->r, DEVO_E_NOMEM, "out of memory for the enumeration");
  memcpy(s->enum_a, s->best.assign, (size_t)s->n * sizeof(int));
  st = devo__etc_enumerate(s->e, o->lambda, o->order, end, o->interrupt, s->enum_a, &obj);
  if (st < 0)
    return fail(s->r, st, "enumeration: %s", devo_status_message(st));
  s->enumerated = st == DEVO_OK;
  if (!(obj < s->best.obj))
    return DEVO_OK;
  if ((st = eval_cand(s->e, o, s->enum_a, DEVO_SCHED_FROM_ENUMERATION, -1, &c)) != DEVO_OK)
    return fail(s->r, st, "evaluation: %s", devo_status_message(st));
  s->best = c;
  return DEVO_OK;
}

/* The machine prices (devo__etc_prices) for the lower bound and the makespan search: for
 * BOUND_SHARE of the limit at most, or until the deadline with steps. */
static int sched_prices(sched_state *s)
{
  const double end = s->o->steps > 0
                         ? s->deadline
                         : fmin(s->deadline, devo__now() + BOUND_SHARE * s->o->time_limit);
  int st;
  s->pz.mu = (double *)devo__alloc(s->al, (size_t)s->e->nmach, sizeof(double));
  s->pz.arg = (int *)devo__alloc(s->al, (size_t)s->n, sizeof(int));
  if (!s->pz.mu || !s->pz.arg)
    return fail(s->r, DEVO_E_NOMEM, "out of memory for the machine prices");
  if ((st = devo__etc_prices(s->e, end, s->pz.mu, s->pz.arg, &s->pz.lb)) != DEVO_OK)
    return fail(s->r, st, "machine prices: %s", devo_status_message(st));
  return DEVO_OK;
}

/* Step 1b: the lower bound (problems/etc_bound.c), and the target that ends the stages. cheap
 * (a lone heuristic, an interrupt): the bound at equal prices, one to three passes over the
 * matrix, and none once the deadline has passed (a quick answer must not wait for it: 46 ms at
 * 10^6 x 4 with lambda < 1); else the enumeration of a tiny instance (whose optimum is then the
 * bound), or the machine prices and the bound at them. */
static int sched_bound(sched_state *s, int cheap)
{
  const devo_schedule_opts *o = s->o;
  int st;
  if (cheap && devo__now() >= s->deadline)
    return DEVO_OK; /* no bound: lower_bound 0 */
  if (!cheap && (st = sched_enumerate(s)) != DEVO_OK)
    return st;
  if (s->enumerated) {
    memset(&s->lb, 0, sizeof s->lb);
    s->lb.objective = s->best.obj;
  } else {
    if (!cheap && (st = sched_prices(s)) != DEVO_OK)
      return st;
    st = devo__etc_lower_bound(s->e, o->lambda, s->pz.mu, &s->lb);
    if (st != DEVO_OK)
      return fail(s->r, st, "lower bound: %s", devo_status_message(st));
  }
  s->target = s->lb.objective * (1.0 + fmax(OPT_RTOL + s->lb.rtol, o->gap));
  return DEVO_OK;
}

/* 1 when the answer so far reaches the target: no stage needs to run any more. */
static int target_met(const sched_state *s)
{
  return s->best.obj <= s->target;
}

/* The makespan search that replaces steps 2 to 5 (s->search IG or GPU_LS): on the GPU when
 * asked for and it runs there, else the iterated greedy on the CPU. */
static int sched_makespan_search(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  devo_schedule_result *r = s->r;
  int st, ran = 0;
  if (s->search == DEVO_SEARCH_GPU_LS && o->backend == DEVO_BACKEND_GPU) {
    st = stage_gls(s->e, o, s->tune, &s->pz, s->t0, s->deadline, s->plain, s->nheur, s->ils,
                   &s->best, r, &ran);
    if (st != DEVO_OK || ran) {
      r->search = DEVO_SEARCH_GPU_LS;
      s->ig_done = ran && r->status == DEVO_OK; /* o->steps done before the deadline */
      return st;
    }
  }
  if (s->search == DEVO_SEARCH_GPU_LS) /* the GPU did not run it: say where it ran */
    r->backend = DEVO_BACKEND_CPU;
  r->search = DEVO_SEARCH_IG;
  if ((st = stage_ig(s->e, o, &s->pz, s->t0, s->deadline, s->ils, &s->best, r)) != DEVO_OK)
    return st;
  s->ig_done = r->candidates > 0 && r->status == DEVO_OK; /* o->steps done before the deadline */
  return DEVO_OK;
}

/* Step 2: local search on each heuristic schedule, within SEED_LS_SHARE of the limit; the
 * results are DE's seeds (none with DEVO_ETC_SEED_NONE). */
static int sched_seed_ls(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  const double ls_end = s->t0 + SEED_LS_SHARE * o->time_limit;
  const size_t n = (size_t)s->n;
  cand c;
  int k, st;
  memcpy(s->improved, s->plain, (size_t)s->nheur * n * sizeof(int));
  if (o->seeds != DEVO_ETC_SEED_NONE) {
    s->seeds = s->improved;
    s->nseeds = s->nheur;
  }
  for (k = 0; o->seeds == DEVO_ETC_SEED_LOCAL && k < s->nheur; ++k) {
    int64_t moves = 0;
    double t1 = devo__now(), left = ls_end - t1, dt;
    if (left <= 0.0 || interrupted(o))
      break;
    st = devo__etc_local_search_stop(s->e, s->improved + (size_t)k * n, o->order, o->lambda, 0,
                                     left, &moves, o->interrupt);
    if (st != DEVO_OK)
      return fail(s->r, st, "local search: %s", devo_status_message(st));
    s->ls_ran = 1;
    dt = devo__now() - t1;
    if (dt < s->ls_min)
      s->ls_min = dt;
    s->r->ls_moves += moves;
    s->changed[k] = moves > 0;
    if (!s->changed[k])
      continue;
    st = eval_cand(s->e, o, s->improved + (size_t)k * n, DEVO_SCHED_FROM_HEURISTIC_LS, s->heur[k],
                   &c);
    if (st != DEVO_OK)
      return fail(s->r, st, "evaluation: %s", devo_status_message(st));
    take_if_better(&s->best, &c);
  }
  return DEVO_OK;
}

/* The time kept back from DE for steps 4 and 5 (the POLISH_* constants, and ils_share of what
 * is left now). */
static double de_reserve(const sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  double reserve = 0.0;
  if (o->polish)
    reserve = s->ls_ran ? fmin(MAX_POLISH_SHARE * o->time_limit,
                               fmax(MIN_POLISH_S, POLISH_PER_SEED_LS * s->ls_min))
                        : NOSEED_POLISH_SHARE * o->time_limit;
  if (o->polish && o->ils_share > 0.0)
    reserve = fmax(reserve, o->ils_share * (s->deadline - devo__now()));
  return reserve;
}

/* DE's time limit in avail seconds: less the solve's own allowed overrun of max(1 ms, 1%)
 * (devo.h). */
static double de_budget(double avail)
{
  return fmin(avail - 0.001, avail / 1.01);
}

/* Step 3's set-up: the ETC problem with the seeds, its solver, and room for DE's best. */
static int de_create(sched_state *s)
{
  de_run *d = &s->d;
  int st;
  if (devo_problem_create(&d->p, s->al) != DEVO_OK)
    return fail(s->r, DEVO_E_NOMEM, "out of memory for the DE problem");
  /* the caller's matrix read where it is: d->p ends before devo_schedule_run returns */
  st = devo__problem_set_etc_seeds(d->p, s->e, s->o->lambda, s->o->order, s->seeds, s->nseeds, 1);
  if (st != DEVO_OK)
    return fail(s->r, st, "%s", devo_problem_errmsg(d->p));
  if ((st = devo_solver_create(&d->s, d->p, s->al)) != DEVO_OK)
    return fail(s->r, st, "out of memory for the solver");
  d->x = (double *)devo__alloc(s->al, (size_t)s->n, sizeof(double));
  d->a = (int *)devo__alloc(s->al, (size_t)s->n, sizeof(int));
  if (!d->x || !d->a)
    return fail(s->r, DEVO_E_NOMEM, "out of memory for DE's best");
  return DEVO_OK;
}

/* Step 4: local search on DE's best (s->d.a) until the deadline; *source becomes the "+ls" form
 * when it moved. */
static int sched_polish(sched_state *s, int *source)
{
  const devo_schedule_opts *o = s->o;
  const double left = s->deadline - devo__now();
  int64_t moves = 0;
  int st;
  if (left <= 0.0)
    return DEVO_OK;
  st =
      devo__etc_local_search_stop(s->e, s->d.a, o->order, o->lambda, 0, left, &moves, o->interrupt);
  if (st != DEVO_OK)
    return fail(s->r, st, "local search: %s", devo_status_message(st));
  s->r->ls_moves += moves;
  if (moves > 0)
    *source = *source == DEVO_SCHED_FROM_DE ? DEVO_SCHED_FROM_DE_LS : DEVO_SCHED_FROM_HEURISTIC_LS;
  return DEVO_OK;
}

/* DE's answer after devo_solve ended with ds: where it came from (a seed that stayed the best
 * names its heuristic), step 4 on it unless DE was stopped, and kept when not worse than the
 * best so far, or always with random seeds only (so that plain DE stays measurable). */
static int sched_de_answer(sched_state *s, int ds)
{
  const devo_schedule_opts *o = s->o;
  const size_t n = (size_t)s->n;
  devo_schedule_result *r = s->r;
  devo_stats stats;
  double value;
  cand c;
  int k, st;
  devo_solver_best(s->d.s, &value, s->d.x);
  devo_solver_stats(s->d.s, &stats);
  devo_problem_etc_decode(s->d.p, s->d.x, s->d.a);
  r->de_ran = 1;
  r->status = ds;
  r->evaluations = stats.evaluations;
  r->generations = stats.generations;
  r->backend = stats.backend;
  jde_means(s->d.s, s->al, o, r);
  c.source = DEVO_SCHED_FROM_DE;
  c.heuristic = -1;
  for (k = 0; stats.best_from_seed && k < s->nseeds; ++k)
    if (memcmp(s->seeds + (size_t)k * n, s->d.a, n * sizeof(int)) == 0) {
      c.source = s->changed[k] ? DEVO_SCHED_FROM_HEURISTIC_LS : DEVO_SCHED_FROM_HEURISTIC;
      c.heuristic = s->heur[k];
      break;
    }
  if (o->polish && ds != DEVO_STOPPED_BY_CALLBACK && ds != DEVO_INTERRUPTED &&
      (st = sched_polish(s, &c.source)) != DEVO_OK)
    return st;
  st = eval_cand(s->e, o, s->d.a, c.source, c.heuristic, &c);
  if (st != DEVO_OK)
    return fail(r, st, "evaluation: %s", devo_status_message(st));
  if (o->seeds == DEVO_ETC_SEED_NONE || c.obj <= s->best.obj)
    s->best = c;
  return DEVO_OK;
}

/* Step 3: DE seeded with step 2's schedules until the time left less de_reserve and the solve's
 * allowed overrun, then its answer (step 4). Skipped when less than MIN_SOLVE_S would be left,
 * also after the set-up. */
static int sched_de(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  const double reserve = de_reserve(s);
  const double avail = s->deadline - reserve - devo__now();
  int backend = o->backend, st, ds;
  if (!(de_budget(avail) >= MIN_SOLVE_S) || interrupted(o))
    return DEVO_OK;
  /* the probe comes before DE's budget is measured, so its cost stays inside the limit */
  if (backend == DEVO_BACKEND_AUTO)
    backend = avail >= DEVO_SCHED_GPU_MIN_S && devo_gpu_available(NULL, 0) ? DEVO_BACKEND_GPU
                                                                           : DEVO_BACKEND_CPU;
  if ((st = de_create(s)) != DEVO_OK)
    return st;
  /* the set-up took time too: measure again */
  {
    const double budget = de_budget(s->deadline - reserve - devo__now());
    if (budget < MIN_SOLVE_S)
      return DEVO_OK;
    if ((st = solver_setup(s->d.s, o, backend, budget)) != DEVO_OK)
      return fail(s->r, st, "%s", devo_solver_errmsg(s->d.s));
  }
  devo__solver_watch(s->d.s, o->interrupt);
  ds = devo_solve(s->d.s);
  if (ds < 0)
    return fail(s->r, ds, "%s", devo_solver_errmsg(s->d.s));
  return sched_de_answer(s, ds);
}

/* Step 5: iterated local search on the best so far until the deadline, unless polish is off,
 * ils_share is 0, no time is left, or DE was stopped (the callback or the interrupt). */
static int sched_ils(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  devo_schedule_result *r = s->r;
  const int de_stopped =
      r->de_ran && (r->status == DEVO_STOPPED_BY_CALLBACK || r->status == DEVO_INTERRUPTED);
  double obj = s->best.obj;
  int stopped = 0, st;
  cand c;
  if (!(o->polish && o->ils_share > 0.0 && s->deadline - devo__now() > 0.0) || de_stopped)
    return DEVO_OK;
  memcpy(s->ils, s->best.assign, (size_t)s->n * sizeof(int));
  st = iterated_ls(s->e, o, s->ils, &obj, s->ils + s->n, s->t0, s->deadline, &r->ils_rounds,
                   &stopped);
  if (st != DEVO_OK)
    return fail(r, st, "iterated local search: %s", devo_status_message(st));
  if (stopped)
    r->status = stopped;
  if (!(obj < s->best.obj))
    return DEVO_OK;
  st = eval_cand(s->e, o, s->ils, DEVO_SCHED_FROM_ILS, -1, &c);
  if (st != DEVO_OK)
    return fail(r, st, "evaluation: %s", devo_status_message(st));
  s->best = c;
  return DEVO_OK;
}

/* Steps 1 to 5 (devo.h), or step 1 and the makespan search; the first error ends them. */
static int sched_search(sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  int st;
  if ((st = sched_alloc(s)) != DEVO_OK || (st = sched_seed_heuristics(s)) != DEVO_OK)
    return st;
  if (o->heuristic >= 0 || interrupted(o))
    return sched_bound(s, 1);
  if ((st = sched_bound(s, 0)) != DEVO_OK || target_met(s))
    return st;
  if (s->search != DEVO_SEARCH_PIPELINE)
    return sched_makespan_search(s);
  s->r->search = DEVO_SEARCH_PIPELINE;
  if ((st = sched_seed_ls(s)) != DEVO_OK || target_met(s) || (st = sched_de(s)) != DEVO_OK)
    return st;
  return sched_ils(s);
}

/* Why the search ended (devo.h, devo_schedule_result.status): the interrupt wins, then the
 * caller's callback, a lone heuristic, then what is proven of the answer (enumerated, optimal,
 * within o->gap), else the steps or the clock. */
static int end_status(const sched_state *s)
{
  const devo_schedule_opts *o = s->o;
  const double obj = s->best.obj, lb = s->lb.objective;
  const int st = s->r->status;
  if (interrupted(o) || st == DEVO_INTERRUPTED)
    return DEVO_INTERRUPTED;
  if (st == DEVO_STOPPED_BY_CALLBACK && !s->target_hit)
    return st;
  if (o->heuristic >= 0)
    return DEVO_OK;
  if (s->enumerated)
    return DEVO_ENUMERATED;
  if (obj <= lb * (1.0 + OPT_RTOL + s->lb.rtol))
    return DEVO_OPTIMAL;
  if (o->gap > 0.0 && obj <= lb * (1.0 + o->gap))
    return DEVO_GAP_REACHED;
  return s->ig_done ? DEVO_OK : DEVO_TIME_LIMIT;
}

/* Step 6: the best answer into assign and r, with why the search ended and its bound. */
static void sched_finish(sched_state *s, int *assign)
{
  devo_schedule_result *r = s->r;
  r->status = end_status(s);
  r->lower_bound = s->lb.objective;
  r->gap =
      r->lower_bound > 0.0 ? (s->best.obj - r->lower_bound) / r->lower_bound : (double)INFINITY;
  memcpy(assign, s->best.assign, (size_t)s->n * sizeof(int));
  r->makespan = s->best.ms;
  r->flowtime = s->best.ft;
  r->objective = s->best.obj;
  r->source = s->best.source;
  r->heuristic = s->best.heuristic;
}

static int schedule_run(const devo_etc *e, const devo_schedule_opts *o, const devo__gls_tune *tune,
                        int *assign, devo_schedule_result *r)
{
  sched_state s;
  int st;
  if (!r)
    return DEVO_E_INVALID;
  if ((st = sched_prepare(&s, e, o, tune, assign, r)) != DEVO_OK)
    return st;
  st = sched_search(&s);
  if (st == DEVO_OK)
    sched_finish(&s, assign);
  sched_free(&s);
  r->elapsed = devo__now() - s.t0;
  return st;
}

int devo_schedule_run(const devo_etc *e, const devo_schedule_opts *o, int *assign,
                      devo_schedule_result *r)
{
  return schedule_run(e, o, NULL, assign, r);
}

int devo__schedule_run_tuned(const devo_etc *e, const devo_schedule_opts *o,
                             const devo__gls_tune *tune, int *assign, devo_schedule_result *r)
{
  if (tune && r &&
      (tune->de_every < 0 ||
       (tune->perturb != DEVO__GLS_PERTURB_IG && tune->perturb != DEVO__GLS_PERTURB_RANDOM))) {
    memset(r, 0, sizeof *r);
    r->heuristic = -1;
    r->backend = -1;
    r->jde_mean_f = r->jde_mean_cr = (double)NAN;
    return fail(r, DEVO_E_INVALID, "GPU search tune: de_every %d (>= 0), perturb %d (%d or %d)",
                tune->de_every, tune->perturb, DEVO__GLS_PERTURB_IG, DEVO__GLS_PERTURB_RANDOM);
  }
  return schedule_run(e, o, tune, assign, r);
}
