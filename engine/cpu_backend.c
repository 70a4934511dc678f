/* SPDX-License-Identifier: MIT */
/* cpu_backend.c: the CPU reference backend. Sequential with one thread; with T threads a pool of
 * T - 1 workers plus the calling thread share each generation (the master-slave model of Janssen
 * et al. 2024: trials are built and evaluated in parallel, selection is per individual). Every
 * individual's trial depends only on the previous generation and on counter-based random numbers
 * (problems/de_ops.h), and the best is reduced in index order, so results are bit-identical for
 * any thread count. Everything is allocated in start(); the generation loop allocates nothing.
 * With the naive GPU model (DEVO_GPU_NAIVE, s->naive_gpu) the same algorithm runs on one thread
 * and each generation's trials are evaluated in one batch by a devo__gpu_evaluator. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "../problems/de_ops.h"
#include "../problems/de_variant.h"
#include "cpu_shade.h"
#include "internal.h"

enum { JOB_INIT = 0, JOB_GEN = 1, JOB_GOBL = 2 };
/* How many individuals a worker handles between two looks at the clock and interrupt flag, at
 * most; fewer where one evaluation is slow (CHECK_SECONDS). */
#define ABORT_STRIDE 8
/* User objectives are called on batches of at most this many vectors (fewer where slow). */
#define USER_BATCH 256
/* The evaluation time between two looks at the clock, at most, estimated from the initial
 * population: the time limit's promise is an overrun of at most max(1 ms, 1%), and with 8
 * individuals (or 256 user vectors) per look a slow objective overran it by tens of ms. */
#define CHECK_SECONDS 1e-4
/* Polls of an atomic before a thread sleeps on a condition variable: a generation of a small
 * problem lasts microseconds, less than a futex wake-up, so waiting threads spin briefly first. */
#define SPIN_POLLS 20000

typedef struct cpu_state cpu_state;

struct gobl_key {
  double f;
  int idx; /* 0..NP-1 parents, NP..2NP-1 opposites */
};

typedef struct cpu_worker {
  cpu_state *st;
  int index;
  pthread_t thread;
  int started;
} cpu_worker;

struct cpu_state {
  devo_solver *s;
  const devo__pview *v;
  devo__box box; /* the search box, coordinate by coordinate */
  int np, dim, nthreads;
  double *pop, *next; /* np * dim each */
  double *fit, *nfit; /* np each */
  double *scratch;    /* nthreads * scratch_n */
  size_t scratch_n;
  int best;
  /* variants (de_variant.h); plain = rand1bin without jDE or GOBL, today's code path */
  devo__variant var;
  int plain, npicks, use_best;
  double *F, *CR, *nF, *nCR; /* jDE: F_i and CR_i, double-buffered (NULL without jDE) */
  /* GOBL (NULL when off): the population's per-coordinate min and max, the survivors' buffer
   * and the (fitness, index) keys of the 2 NP candidates with their merge-sort scratch */
  double *ga, *gb, *gpop;
  struct gobl_key *keys, *keys_tmp;
  double gobl_k;
  int shade; /* JADE/SHADE/L-SHADE (cpu_shade.c): sh holds their state */
  devo__cshade sh;
  int stride, batch;   /* individuals per clock look; user vectors per call (after the start) */
  cpu_worker *workers; /* nthreads - 1 */
  pthread_mutex_t mu;
  pthread_cond_t cv_start, cv_done;
  int sync_ready;              /* mutex and condition variables initialised */
  atomic_uint_fast64_t job_id; /* written under mu, read by spinning workers */
  int job_kind;
  uint32_t gen;
  atomic_int pending; /* workers still busy with the current job */
  atomic_int quit;
  atomic_int aborted;
  atomic_int user_failed;
  devo__gpu_evaluator *gev; /* the naive GPU model's evaluator; NULL otherwise */
  int gpu_status;           /* its failure (DEVO_OK: none), with the message in gpu_err */
  char gpu_err[DEVO__ERRLEN / 2];
};

static void build_trial(const cpu_state *st, int i, double *trial)
{
  const devo__opts *o = &st->s->o;
  int j, d = st->dim;
  devo__de_idx r = devo__de_indices(o->seed, st->gen, (uint32_t)i, (uint32_t)st->np, (uint32_t)d);
  const double *xi = st->pop + (size_t)i * d, *x1 = st->pop + (size_t)r.r1 * d,
               *x2 = st->pop + (size_t)r.r2 * d, *x3 = st->pop + (size_t)r.r3 * d;
  for (j = 0; j < d; ++j)
    trial[j] = devo__de_trial_coord(o->seed, st->gen, (uint32_t)i, (uint32_t)j, r, xi[j], x1[j],
                                    x2[j], x3[j], o->f, o->cr, devo__box_lo(&st->box, (uint32_t)j),
                                    devo__box_hi(&st->box, (uint32_t)j), o->bounds);
}

/* Trial i of any variant (de_variant.h); with jDE its F', CR' go to nF[i], nCR[i]. The
 * exponential crossover copies the parent and visits only its run of L coordinates: the same
 * values as devo__var_trial_coord (whose crossover uniform it does not read), fewer draws. */
static void build_trial_var(const cpu_state *st, int i, double *trial)
{
  const devo__opts *o = &st->s->o;
  const devo__variant *var = &st->var;
  uint32_t d = (uint32_t)st->dim, j, k;
  double x[DEVO__MAX_PICKS];
  const double *xr[DEVO__MAX_PICKS];
  const double *xi = st->pop + (size_t)i * d, *xb = st->pop + (size_t)st->best * d;
  devo__var_ind r = devo__var_draw(var, o->seed, st->gen, (uint32_t)i, (uint32_t)st->np, d,
                                   var->jde ? st->F[i] : o->f, var->jde ? st->CR[i] : o->cr);
  int p;
  for (p = 0; p < st->npicks; ++p)
    xr[p] = st->pop + (size_t)r.r[p] * d;
  if (var->jde) {
    st->nF[i] = r.f;
    st->nCR[i] = r.cr;
  }
  if (var->crossover == DEVO__XOVER_EXP) {
    memcpy(trial, xi, (size_t)d * sizeof(double));
    for (k = 0, j = r.jrand; k < r.len; ++k, j = j + 1u == d ? 0u : j + 1u) {
      devo__de_u u = devo__de_coord(o->seed, st->gen, (uint32_t)i, j);
      for (p = 0; p < st->npicks; ++p)
        x[p] = xr[p][j];
      trial[j] =
          devo__de_repair(devo__strategy_mutant(var->strategy, r.f, xi[j], xb[j], x), xi[j],
                          devo__box_lo(&st->box, j), devo__box_hi(&st->box, j), o->bounds, u.bound);
    }
    return;
  }
  for (j = 0; j < d; ++j) {
    for (p = 0; p < st->npicks; ++p)
      x[p] = xr[p][j];
    trial[j] =
        devo__var_trial_coord(var, &r, o->seed, st->gen, (uint32_t)i, j, d, xi[j], xb[j], x,
                              devo__box_lo(&st->box, j), devo__box_hi(&st->box, j), o->bounds);
  }
}

/* Evaluates rows [a, b) of xs into fs. Returns 0, or -1 if the user function failed. */
static int eval_rows(cpu_state *st, const double *xs, double *fs, int a, int b, double *scratch)
{
  int i, k;
  if (st->gev) {
    st->gpu_status = devo__gpu_evaluator_eval(st->gev, xs + (size_t)a * st->dim, b - a, fs + a,
                                              st->gpu_err, sizeof st->gpu_err);
    return st->gpu_status == DEVO_OK ? 0 : -1;
  }
  if (st->v->kind == DEVO__P_USER) {
    const devo_problem *p = st->s->prob;
    for (i = a; i < b; i += st->batch) {
      int n = b - i < st->batch ? b - i : st->batch;
      if (p->user_fn(p->user_ud, xs + (size_t)i * st->dim, (size_t)n, (size_t)st->dim, fs + i) != 0)
        return -1;
      for (k = i; k < i + n; ++k)
        if (isnan(fs[k]))
          fs[k] = (double)INFINITY;
    }
    return 0;
  }
  for (i = a; i < b; ++i)
    fs[i] = devo__eval_builtin(st->v, xs + (size_t)i * st->dim, scratch);
  return 0;
}

static void do_init(cpu_state *st, int a, int b, double *scratch)
{
  const devo_problem *p = st->s->prob;
  int i, j, d = st->dim, nseeds = p->nseeds < st->np - 4 ? p->nseeds : st->np - 4;
  for (i = a; i < b; ++i) {
    double *x = st->pop + (size_t)i * d;
    if (i < nseeds) {
      memcpy(x, p->seeds + (size_t)i * d, (size_t)d * sizeof(double));
      continue;
    }
    for (j = 0; j < d; ++j)
      x[j] =
          devo__de_init(st->s->o.seed, (uint32_t)i, (uint32_t)j,
                        devo__box_lo(&st->box, (uint32_t)j), devo__box_hi(&st->box, (uint32_t)j));
  }
  if (eval_rows(st, st->pop, st->fit, a, b, scratch) != 0)
    atomic_store(&st->user_failed, 1);
}

/* One generation for individuals [a, b): trials into next, then selection. */
static void do_gen(cpu_state *st, int a, int b, double *scratch)
{
  int d = st->dim, i, lo, hi;
  for (lo = a; lo < b; lo = hi) {
    hi = lo + (st->v->kind == DEVO__P_USER ? st->batch : st->stride);
    if (hi > b)
      hi = b;
    if (atomic_load_explicit(&st->aborted, memory_order_relaxed))
      return;
    if (devo__should_abort(st->s)) {
      atomic_store(&st->aborted, 1);
      return;
    }
    if (st->plain)
      for (i = lo; i < hi; ++i)
        build_trial(st, i, st->next + (size_t)i * d);
    else if (st->shade)
      for (i = lo; i < hi; ++i)
        devo__cshade_trial(&st->sh, st->pop, st->gen, i, st->next + (size_t)i * d, &st->box,
                           st->s->o.bounds);
    else
      for (i = lo; i < hi; ++i)
        build_trial_var(st, i, st->next + (size_t)i * d);
    if (eval_rows(st, st->next, st->nfit, lo, hi, scratch) != 0) {
      atomic_store(&st->user_failed, 1);
      atomic_store(&st->aborted, 1);
      return;
    }
    for (i = lo; i < hi; ++i) {
      if (st->nfit[i] <= st->fit[i])
        continue; /* the trial replaces the target: it already sits in next */
      memcpy(st->next + (size_t)i * d, st->pop + (size_t)i * d, (size_t)d * sizeof(double));
      st->nfit[i] = st->fit[i];
      if (st->var.jde) { /* jDE keeps F', CR' only with the trial */
        st->nF[i] = st->F[i];
        st->nCR[i] = st->CR[i];
      }
    }
  }
}

/* A GOBL jump for individuals [a, b): their opposites into next, evaluated into nfit. */
static void do_gobl(cpu_state *st, int a, int b, double *scratch)
{
  const devo__opts *o = &st->s->o;
  uint32_t d = (uint32_t)st->dim, j;
  int i, lo, hi;
  for (lo = a; lo < b; lo = hi) {
    hi = lo + (st->v->kind == DEVO__P_USER ? st->batch : st->stride);
    if (hi > b)
      hi = b;
    if (atomic_load_explicit(&st->aborted, memory_order_relaxed))
      return;
    if (devo__should_abort(st->s)) {
      atomic_store(&st->aborted, 1);
      return;
    }
    for (i = lo; i < hi; ++i) {
      const double *x = st->pop + (size_t)i * d;
      double *y = st->next + (size_t)i * d;
      for (j = 0; j < d; ++j)
        y[j] =
            devo__gobl_opposite(o->seed, st->gen, (uint32_t)i, j, st->gobl_k, st->ga[j], st->gb[j],
                                x[j], devo__box_lo(&st->box, j), devo__box_hi(&st->box, j));
    }
    if (eval_rows(st, st->next, st->nfit, lo, hi, scratch) != 0) {
      atomic_store(&st->user_failed, 1);
      atomic_store(&st->aborted, 1);
      return;
    }
  }
}

/* The jump's dynamic bounds: a_j, b_j = min, max of coordinate j over the population (exact in
 * any order; computed once, by the calling thread, before the opposites). */
static void gobl_bounds(cpu_state *st)
{
  int i, j, d = st->dim;
  memcpy(st->ga, st->pop, (size_t)d * sizeof(double));
  memcpy(st->gb, st->pop, (size_t)d * sizeof(double));
  for (i = 1; i < st->np; ++i) {
    const double *x = st->pop + (size_t)i * d;
    for (j = 0; j < d; ++j) {
      if (x[j] < st->ga[j])
        st->ga[j] = x[j];
      if (x[j] > st->gb[j])
        st->gb[j] = x[j];
    }
  }
}

/* Sorts n keys by (f, idx) ascending: bottom-up merge sort into the preallocated tmp (the
 * keys are distinct, so any correct sort gives this order). */
static void gobl_sort(struct gobl_key *k, struct gobl_key *tmp, int n)
{
  int w, a, p, q, e, m, t;
  for (w = 1; w < n; w *= 2) {
    for (a = 0; a < n; a += 2 * w) {
      m = a + w < n ? a + w : n;
      e = a + 2 * w < n ? a + 2 * w : n;
      for (p = a, q = m, t = a; t < e; ++t)
        tmp[t] = (q >= e || (p < m && devo__gobl_before(k[p].f, (uint32_t)k[p].idx, k[q].f,
                                                        (uint32_t)k[q].idx)))
                     ? k[p++]
                     : k[q++];
    }
    memcpy(k, tmp, (size_t)n * sizeof *k);
  }
}

/* Survivors of a jump: the NP best of parents (pop, fit) and opposites (next, nfit) by
 * (fitness, index), parents first on ties, into positions 0..NP-1 in that order; an opposite
 * carries its parent's jDE F and CR. */
static void gobl_select(cpu_state *st)
{
  int np = st->np, d = st->dim, r;
  double *tp;
  for (r = 0; r < np; ++r) {
    st->keys[r].f = st->fit[r];
    st->keys[r].idx = r;
    st->keys[np + r].f = st->nfit[r];
    st->keys[np + r].idx = np + r;
  }
  gobl_sort(st->keys, st->keys_tmp, 2 * np);
  for (r = 0; r < np; ++r) {
    int c = st->keys[r].idx, parent = c < np ? c : c - np;
    const double *src = c < np ? st->pop + (size_t)c * d : st->next + (size_t)parent * d;
    memcpy(st->gpop + (size_t)r * d, src, (size_t)d * sizeof(double));
    if (st->var.jde) {
      st->nF[r] = st->F[parent];
      st->nCR[r] = st->CR[parent];
    }
  }
  for (r = 0; r < np; ++r)
    st->fit[r] = st->keys[r].f;
  tp = st->pop;
  st->pop = st->gpop;
  st->gpop = tp;
}

static void do_job(cpu_state *st, int t)
{
  int a = (int)((int64_t)st->np * t / st->nthreads);
  int b = (int)((int64_t)st->np * (t + 1) / st->nthreads);
  double *scratch = st->scratch + (size_t)t * st->scratch_n;
  if (st->job_kind == JOB_INIT)
    do_init(st, a, b, scratch);
  else if (st->job_kind == JOB_GOBL)
    do_gobl(st, a, b, scratch);
  else
    do_gen(st, a, b, scratch);
}

static void *worker_main(void *arg)
{
  cpu_worker *w = (cpu_worker *)arg;
  cpu_state *st = w->st;
  uint64_t seen = 0;
  int k;
  for (;;) {
    for (k = 0; k < SPIN_POLLS && atomic_load(&st->job_id) == seen && !atomic_load(&st->quit); ++k)
      ;
    pthread_mutex_lock(&st->mu);
    while (!atomic_load(&st->quit) && atomic_load(&st->job_id) == seen)
      pthread_cond_wait(&st->cv_start, &st->mu);
    pthread_mutex_unlock(&st->mu);
    if (atomic_load(&st->quit))
      return NULL;
    seen = atomic_load(&st->job_id);
    do_job(st, w->index);
    if (atomic_fetch_sub(&st->pending, 1) == 1) {
      pthread_mutex_lock(&st->mu);
      pthread_cond_signal(&st->cv_done);
      pthread_mutex_unlock(&st->mu);
    }
  }
}

/* Runs one job on all threads and waits for it. */
static void run_job(cpu_state *st, int kind)
{
  int k;
  st->job_kind = kind;
  if (st->nthreads > 1) {
    atomic_store(&st->pending, st->nthreads - 1);
    pthread_mutex_lock(&st->mu);
    atomic_fetch_add(&st->job_id, 1);
    pthread_cond_broadcast(&st->cv_start);
    pthread_mutex_unlock(&st->mu);
  }
  do_job(st, 0);
  if (st->nthreads > 1) {
    for (k = 0; k < SPIN_POLLS && atomic_load(&st->pending) > 0; ++k)
      ;
    pthread_mutex_lock(&st->mu);
    while (atomic_load(&st->pending) > 0)
      pthread_cond_wait(&st->cv_done, &st->mu);
    pthread_mutex_unlock(&st->mu);
  }
}

static void find_best(cpu_state *st)
{
  int i, b = 0;
  for (i = 1; i < st->np; ++i)
    if (st->fit[i] < st->fit[b])
      b = i;
  st->best = b;
  st->s->best_f = st->fit[b];
}

static void cpu_stop(devo_solver *s)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  const devo_allocator *al = &s->al;
  int t;
  if (!st)
    return;
  if (st->workers && st->sync_ready) {
    pthread_mutex_lock(&st->mu);
    atomic_store(&st->quit, 1);
    pthread_cond_broadcast(&st->cv_start);
    pthread_mutex_unlock(&st->mu);
    for (t = 0; t < st->nthreads - 1; ++t)
      if (st->workers[t].started)
        pthread_join(st->workers[t].thread, NULL);
  }
  if (st->sync_ready) {
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv_start);
    pthread_cond_destroy(&st->cv_done);
  }
  devo__gpu_evaluator_destroy(st->gev);
  devo__free(al, st->workers);
  devo__free(al, st->pop);
  devo__free(al, st->next);
  devo__free(al, st->fit);
  devo__free(al, st->nfit);
  devo__free(al, st->scratch);
  devo__free(al, st->F);
  devo__free(al, st->CR);
  devo__free(al, st->nF);
  devo__free(al, st->nCR);
  devo__free(al, st->ga);
  devo__free(al, st->gb);
  devo__free(al, st->gpop);
  devo__free(al, st->keys);
  devo__free(al, st->keys_tmp);
  devo__cshade_free(&st->sh, al);
  devo__free(al, st);
  s->bk_state = NULL;
}

/* The status and message of a failed evaluation: the user objective, or the naive model's GPU. */
static int cpu_fail_status(devo_solver *s)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  if (st->gpu_status != DEVO_OK)
    return devo__set_err(s, st->gpu_status, "naive GPU model: %s", st->gpu_err);
  return devo__set_err(s, DEVO_E_INTERNAL, "the user objective function returned an error");
}

/* Individuals per look at the clock: cap, or fewer so that they take at most CHECK_SECONDS
 * at per seconds each (at least 1). */
static int per_look(double per, int cap)
{
  return per * cap <= CHECK_SECONDS ? cap : per >= CHECK_SECONDS ? 1 : (int)(CHECK_SECONDS / per);
}

/* The variant's arrays (jDE state, GOBL buffers), initial F_i and CR_i. -1: out of memory. */
static int cpu_alloc_variant(cpu_state *st)
{
  const devo_allocator *al = &st->s->al;
  size_t np = (size_t)st->np;
  int i;
  st->var = st->s->o.var;
  st->plain = devo__variant_plain(&st->var);
  st->npicks = devo__strategy_picks(st->var.strategy);
  st->use_best = devo__strategy_uses_best(st->var.strategy);
  st->shade = devo__variant_shade(&st->var);
  if (st->shade && devo__cshade_alloc(&st->sh, al, &st->var, st->s->o.seed, st->np, st->dim) != 0)
    return -1;
  if (st->var.jde) {
    st->F = (double *)devo__alloc(al, np, sizeof(double));
    st->CR = (double *)devo__alloc(al, np, sizeof(double));
    st->nF = (double *)devo__alloc(al, np, sizeof(double));
    st->nCR = (double *)devo__alloc(al, np, sizeof(double));
    if (!st->F || !st->CR || !st->nF || !st->nCR)
      return -1;
    for (i = 0; i < st->np; ++i) {
      st->F[i] = DEVO__JDE_F_INIT;
      st->CR[i] = DEVO__JDE_CR_INIT;
    }
  }
  if (st->var.gobl > 0.0) {
    st->ga = (double *)devo__alloc(al, (size_t)st->dim, sizeof(double));
    st->gb = (double *)devo__alloc(al, (size_t)st->dim, sizeof(double));
    st->gpop = (double *)devo__alloc(al, np * (size_t)st->dim, sizeof(double));
    st->keys = (struct gobl_key *)devo__alloc(al, 2 * np, sizeof(struct gobl_key));
    st->keys_tmp = (struct gobl_key *)devo__alloc(al, 2 * np, sizeof(struct gobl_key));
    if (!st->ga || !st->gb || !st->gpop || !st->keys || !st->keys_tmp)
      return -1;
  }
  return 0;
}

static int cpu_start(devo_solver *s)
{
  const devo_allocator *al = &s->al;
  cpu_state *st;
  size_t n;
  int t, threads = s->o.threads;
  st = (cpu_state *)devo__calloc(al, 1, sizeof *st);
  if (!st)
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for the CPU backend state");
  s->bk_state = st;
  st->s = s;
  st->v = &s->prob->view;
  st->box = devo__problem_box(s->prob);
  st->np = s->o.np;
  st->dim = st->v->dim;
  if (s->naive_gpu)
    threads = 1; /* Janssen et al.'s naive GPU model: DE on one CPU thread */
  if (threads > st->np)
    threads = st->np;
  st->nthreads = threads;
  atomic_init(&st->aborted, 0);
  atomic_init(&st->user_failed, 0);
  atomic_init(&st->job_id, 0);
  atomic_init(&st->pending, 0);
  atomic_init(&st->quit, 0);
  n = (size_t)st->np * (size_t)st->dim;
  st->scratch_n = devo__eval_scratch(st->v);
  st->pop = (double *)devo__alloc(al, n, sizeof(double));
  st->next = (double *)devo__alloc(al, n, sizeof(double));
  st->fit = (double *)devo__alloc(al, (size_t)st->np, sizeof(double));
  st->nfit = (double *)devo__alloc(al, (size_t)st->np, sizeof(double));
  st->scratch = (double *)devo__alloc(al, (size_t)threads, st->scratch_n * sizeof(double));
  if (threads > 1)
    st->workers = (cpu_worker *)devo__calloc(al, (size_t)threads - 1, sizeof(cpu_worker));
  if (cpu_alloc_variant(st) != 0 || !st->pop || !st->next || !st->fit || !st->nfit ||
      !st->scratch || (threads > 1 && !st->workers)) {
    cpu_stop(s);
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for a population of %d x %d doubles",
                         s->o.np, s->prob->view.dim);
  }
  if (s->naive_gpu) {
    char msg[DEVO__ERRLEN / 2];
    const int r = devo__gpu_evaluator_create(s->prob, st->np, al, &st->gev, msg, sizeof msg);
    if (r != DEVO_OK) {
      cpu_stop(s);
      return devo__set_err(s, r, "naive GPU model: %s", msg);
    }
  }
  if (threads > 1) {
    if (pthread_mutex_init(&st->mu, NULL) != 0) {
      cpu_stop(s);
      return devo__set_err(s, DEVO_E_NOMEM, "cannot create a mutex");
    }
    pthread_cond_init(&st->cv_start, NULL);
    pthread_cond_init(&st->cv_done, NULL);
    st->sync_ready = 1;
    for (t = 0; t < threads - 1; ++t) {
      st->workers[t].st = st;
      st->workers[t].index = t + 1;
      if (pthread_create(&st->workers[t].thread, NULL, worker_main, &st->workers[t]) != 0) {
        cpu_stop(s);
        return devo__set_err(s, DEVO_E_NOMEM, "cannot start CPU worker thread %d", t + 1);
      }
      st->workers[t].started = 1;
    }
  }
  st->gen = 0;
  st->stride = ABORT_STRIDE; /* the initial population's batches too */
  st->batch = s->prob->user_batch > 0 ? s->prob->user_batch : USER_BATCH;
  {
    const double t_init = devo__now();
    double per; /* seconds of one individual on one thread */
    run_job(st, JOB_INIT);
    s->gen_estimate = devo__now() - t_init;
    per = s->gen_estimate * (double)threads / (double)st->np;
    st->stride = per_look(per, ABORT_STRIDE);
    if (s->prob->user_batch == 0)
      st->batch = per_look(per, USER_BATCH);
    if (st->gev)
      st->stride = st->np; /* a generation's trials go to the GPU in one batch */
  }
  if (atomic_load(&st->user_failed)) {
    const int r = cpu_fail_status(s);
    cpu_stop(s);
    return r;
  }
  find_best(st);
  s->evals = st->np;
  s->gens = 0;
  if (st->gev)
    snprintf(s->info, sizeof s->info,
             "naive gpu: DE on 1 CPU thread, each generation evaluated on %s, %d individuals of "
             "dimension %d",
             devo__gpu_evaluator_device(st->gev), st->np, st->dim);
  else
    snprintf(s->info, sizeof s->info, "cpu: %d thread%s, %d individuals of dimension %d", threads,
             threads > 1 ? "s" : "", st->np, st->dim);
  s->np_now = st->np;
  if (st->shade) {
    size_t len = strlen(s->info);
    snprintf(s->info + len, sizeof s->info - len, ", %s (current-to-pbest/1/bin, archive %d)",
             st->var.adapt == DEVO__ADAPT_JADE ? "jade" : (st->var.lpsr ? "lshade" : "shade"),
             st->sh.cap_max);
  } else if (!st->plain) {
    size_t len = strlen(s->info);
    snprintf(s->info + len, sizeof s->info - len, ", variant %s%s%s",
             devo_strategy_name(st->var.strategy, st->var.crossover), st->var.jde ? " + jDE" : "",
             st->var.gobl > 0.0 ? " + GOBL" : "");
  }
  return DEVO_OK;
}

static void swap_buf(double **a, double **b)
{
  double *t = *a;
  *a = *b;
  *b = t;
}

static int cpu_run(devo_solver *s, int64_t ngens)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  int64_t k;
  int jump;
  for (k = 0; k < ngens; ++k) {
    st->gen = (uint32_t)(s->gens + 1);
    atomic_store(&st->aborted, 0);
    jump = !st->plain && devo__gobl_jump(s->o.seed, st->gen, st->var.gobl, &st->gobl_k);
    if (jump)
      gobl_bounds(st);
    if (st->shade)
      devo__cshade_rank(&st->sh, st->fit, st->np); /* pbest's ranks, before any trial */
    run_job(st, jump ? JOB_GOBL : JOB_GEN);
    if (atomic_load(&st->user_failed))
      return cpu_fail_status(s);
    if (atomic_load(&st->aborted))
      return DEVO_OK; /* deadline or interrupt: the partial generation (or jump) is dropped */
    if (jump) {
      gobl_select(st);
    } else {
      if (st->shade) /* the parents (pop) and both fitnesses, before the swap */
        devo__cshade_update(&st->sh, st->gen, st->pop, st->fit, st->nfit);
      swap_buf(&st->pop, &st->next);
      swap_buf(&st->fit, &st->nfit);
    }
    if (st->var.jde) {
      swap_buf(&st->F, &st->nF);
      swap_buf(&st->CR, &st->nCR);
    }
    s->gens++;
    s->evals += st->np;
    if (st->shade && st->var.lpsr) {
      st->np = devo__cshade_reduce(&st->sh, st->gen, devo__lpsr_frac(s), st->pop, st->fit);
      s->np_now = st->np;
    }
    find_best(st);
    if (!isnan(s->o.target) && s->best_f <= s->o.target)
      return DEVO_OK;
  }
  return DEVO_OK;
}

static int cpu_best_x(devo_solver *s, double *x)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  memcpy(x, st->pop + (size_t)st->best * st->dim, (size_t)st->dim * sizeof(double));
  return DEVO_OK;
}

static int cpu_population(devo_solver *s, double *pop, double *fit)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  if (pop)
    memcpy(pop, st->pop, (size_t)st->np * st->dim * sizeof(double));
  if (fit)
    memcpy(fit, st->fit, (size_t)st->np * sizeof(double));
  return DEVO_OK;
}

static int cpu_adapt_state(devo_solver *s, double *F, double *CR)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  if (!st->var.jde)
    return devo__set_err(s, DEVO_E_INVALID, "the run has no jDE state (jDE is off)");
  if (F)
    memcpy(F, st->F, (size_t)st->np * sizeof(double));
  if (CR)
    memcpy(CR, st->CR, (size_t)st->np * sizeof(double));
  return DEVO_OK;
}

static int cpu_shade_state(devo_solver *s, devo_shade_state *out, double *archive, double *m_cr,
                           double *m_f, double *F, double *CR)
{
  cpu_state *st = (cpu_state *)s->bk_state;
  const devo__cshade *c = &st->sh;
  if (!st->shade)
    return devo__set_err(s, DEVO_E_INVALID, "the run has no JADE/SHADE state");
  if (out) {
    out->np = c->np;
    out->np_gen = c->np_gen;
    out->archive_size = c->asize;
    out->archive_cap = c->cap;
    out->hist = c->hist;
    out->k = c->k;
  }
  if (archive)
    memcpy(archive, c->arc, (size_t)c->asize * (size_t)c->dim * sizeof(double));
  if (m_cr)
    memcpy(m_cr, c->m_cr, (size_t)c->hist * sizeof(double));
  if (m_f)
    memcpy(m_f, c->m_f, (size_t)c->hist * sizeof(double));
  if (F)
    memcpy(F, c->F, (size_t)c->np_gen * sizeof(double));
  if (CR)
    memcpy(CR, c->CR, (size_t)c->np_gen * sizeof(double));
  return DEVO_OK;
}

int devo__worst_index(const double *fit, int np)
{
  int i, w = 0;
  for (i = 1; i < np; ++i)
    if (fit[i] > fit[w])
      w = i;
  return w;
}

int devo__cpu_put(devo_solver *s, const double *x, double f, int *replaced)
{
  cpu_state *st = s->bk == &devo__cpu_backend ? (cpu_state *)s->bk_state : NULL;
  int w;
  *replaced = 0;
  if (!st)
    return devo__set_err(s, DEVO_E_STATE, "a migrant needs a run on the CPU backend");
  w = devo__worst_index(st->fit, st->np);
  if (!(f < st->fit[w]))
    return DEVO_OK; /* the island keeps its worst: the migrant is not better */
  memcpy(st->pop + (size_t)w * st->dim, x, (size_t)st->dim * sizeof(double));
  st->fit[w] = f;
  find_best(st);
  *replaced = 1;
  return DEVO_OK;
}

const devo_backend devo__cpu_backend = {"cpu",           cpu_start,      cpu_run,
                                        cpu_best_x,      cpu_population, cpu_stop,
                                        cpu_adapt_state, cpu_shade_state};
