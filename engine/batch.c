/* SPDX-License-Identifier: MIT */
/* batch.c: many independent solves in one call (devo_batch). Each trial is a configured solver
 * of the caller's; devo_batch_solve runs them on a pool of threads, one trial per thread at a
 * time, each through devo_solve, so that every trial's result is the one it gets alone, bit for
 * bit on the CPU. Trials are sorted into groups of one shape (backend and design, problem kind
 * and dimension, population size, variant family, islands). A group on the GPU's fused design
 * is one work item of the pool: kernels/gpu_backend.cu's batch runner advances its trials
 * together, one persistent launch for all of them per chunk (the batch kernels of
 * kernels/gpu_fast.cu and kernels/gpu_vfused.cu), each computing what it computes alone; every
 * other trial is an item of its own, through devo_solve. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct devo_batch {
  devo_allocator al;
  char err[DEVO__ERRLEN];
  devo_solver **trial; /* borrowed */
  int *status;         /* each trial's last status: DEVO_OK = not run */
  int *group;          /* each trial's group */
  int n, cap, ngroups;
  /* the pool's work items: item i is trials order[first[i] .. first[i] + count[i] - 1] */
  int *order, *first, *count, nitems;
  int dev; /* the caller's CUDA device, for the pool's threads (-1: none asked) */
  int threads;
  devo_batch_done_fn done;
  void *done_ud;
  atomic_int stop; /* devo_batch_interrupt, or the done callback's stop */
  int by_callback; /* the done callback asked to stop */
  int running;
  pthread_mutex_t mu; /* one done callback at a time */
};

/* the batch's message (devo__errf), returning the status */
#define batch_err(b, ...) devo__errf((b)->err, sizeof(b)->err, __VA_ARGS__)

int devo_batch_create(devo_batch **out, const devo_allocator *alloc)
{
  devo_allocator a = devo__allocator_or_default(alloc);
  devo_batch *b;
  if (!out)
    return DEVO_E_INVALID;
  *out = NULL;
  b = (devo_batch *)devo__calloc(&a, 1, sizeof *b);
  if (!b)
    return DEVO_E_NOMEM;
  if (pthread_mutex_init(&b->mu, NULL) != 0) {
    devo__free(&a, b);
    return DEVO_E_NOMEM;
  }
  b->al = a;
  b->threads = 1;
  atomic_init(&b->stop, 0);
  *out = b;
  return DEVO_OK;
}

void devo_batch_destroy(devo_batch *b)
{
  devo_allocator a;
  if (!b)
    return;
  a = b->al;
  pthread_mutex_destroy(&b->mu);
  devo__free(&a, b->trial);
  devo__free(&a, b->status);
  devo__free(&a, b->group);
  devo__free(&a, b->order);
  devo__free(&a, b->first);
  devo__free(&a, b->count);
  devo__free(&a, b);
}

const char *devo_batch_errmsg(const devo_batch *b)
{
  return b ? b->err : "no batch handle";
}

/* Room for one more trial: the three arrays grow together (doubling). */
static int grow(devo_batch *b)
{
  const int cap = b->cap ? 2 * b->cap : 16;
  devo_solver **t = (devo_solver **)devo__alloc(&b->al, (size_t)cap, sizeof *t);
  int *st = (int *)devo__alloc(&b->al, (size_t)cap, sizeof *st);
  int *g = (int *)devo__alloc(&b->al, (size_t)cap, sizeof *g);
  if (!t || !st || !g) {
    devo__free(&b->al, t);
    devo__free(&b->al, st);
    devo__free(&b->al, g);
    return batch_err(b, DEVO_E_NOMEM, "out of memory for %d trials", cap);
  }
  if (b->n) {
    memcpy(t, b->trial, (size_t)b->n * sizeof *t);
    memcpy(st, b->status, (size_t)b->n * sizeof *st);
    memcpy(g, b->group, (size_t)b->n * sizeof *g);
  }
  devo__free(&b->al, b->trial);
  devo__free(&b->al, b->status);
  devo__free(&b->al, b->group);
  b->trial = t;
  b->status = st;
  b->group = g;
  b->cap = cap;
  return DEVO_OK;
}

#define BATCH_GUARD(b)                                                                             \
  do {                                                                                             \
    if (!(b))                                                                                      \
      return DEVO_E_INVALID;                                                                       \
    if ((b)->running)                                                                              \
      return batch_err((b), DEVO_E_STATE, "cannot change a batch while it solves");                \
  } while (0)

int devo_batch_add(devo_batch *b, devo_solver *s)
{
  int st;
  BATCH_GUARD(b);
  if (!s)
    return batch_err(b, DEVO_E_INVALID, "trial %d: no solver", b->n);
  if (b->n == DEVO_BATCH_MAX)
    return batch_err(b, DEVO_E_INVALID, "a batch holds at most %d trials", DEVO_BATCH_MAX);
  if (b->n == b->cap && (st = grow(b)) != DEVO_OK)
    return st;
  b->trial[b->n] = s;
  b->status[b->n] = DEVO_OK;
  b->group[b->n] = -1;
  b->n++;
  return DEVO_OK;
}

int devo_batch_size(const devo_batch *b)
{
  return b ? b->n : 0;
}

int devo_batch_set_threads(devo_batch *b, int threads)
{
  BATCH_GUARD(b);
  if (!devo__threads_ok(threads))
    return batch_err(b, DEVO_E_INVALID, "thread count %d is out of range (1 to 1024)", threads);
  b->threads = threads;
  return DEVO_OK;
}

int devo_batch_set_done(devo_batch *b, devo_batch_done_fn fn, void *ud)
{
  BATCH_GUARD(b);
  b->done = fn;
  b->done_ud = ud;
  return DEVO_OK;
}

void devo_batch_interrupt(devo_batch *b)
{
  if (b)
    atomic_store(&b->stop, 1);
}

int devo_batch_status(const devo_batch *b, int trial)
{
  return b && trial >= 0 && trial < b->n ? b->status[trial] : DEVO_E_INVALID;
}

int devo_batch_group(const devo_batch *b, int trial)
{
  return b && trial >= 0 && trial < b->n && b->group[trial] >= 0 ? b->group[trial] : -1;
}

int devo_batch_groups(const devo_batch *b)
{
  return b ? b->ngroups : 0;
}

/* ---- groups ----------------------------------------------------------------------------- */

/* 1 when trials a and b have one shape: a kernel-level batch could advance them together
 * (their problems' data and their seeds, F, CR and stopping rules may differ). */
static int same_shape(const devo_solver *a, const devo_solver *b)
{
  const devo__opts *x = &a->o, *y = &b->o;
  return x->backend == y->backend &&
         (x->backend == DEVO_BACKEND_CPU || x->gpu_design == y->gpu_design) &&
         a->prob->view.kind == b->prob->view.kind && a->prob->view.dim == b->prob->view.dim &&
         x->np == y->np && x->islands == y->islands && x->var.strategy == y->var.strategy &&
         x->var.crossover == y->var.crossover && x->var.jde == y->var.jde &&
         (x->var.gobl > 0.0) == (y->var.gobl > 0.0) && x->var.adapt == y->var.adapt &&
         x->var.lpsr == y->var.lpsr;
}

/* Numbers the groups in the order of their first trials. */
static void make_groups(devo_batch *b)
{
  int i, j;
  b->ngroups = 0;
  for (i = 0; i < b->n; ++i) {
    b->group[i] = -1;
    for (j = 0; j < i && b->group[i] < 0; ++j)
      if (b->group[j] >= 0 && same_shape(b->trial[i], b->trial[j]))
        b->group[i] = b->group[j];
    if (b->group[i] < 0)
      b->group[i] = b->ngroups++;
  }
}

/* 1 when the trials of s's group run as one item (the GPU batch runner): the fused GPU design
 * asked for, no islands. */
static int gpu_group(const devo_solver *s)
{
  return s->o.backend == DEVO_BACKEND_GPU && (s->o.gpu_design & 0xff) == DEVO_GPU_FUSED &&
         s->o.islands <= 1;
}

/* The pool's items: a GPU group's trials together (in the order they were added), every other
 * trial alone; items in the order of their first trials. */
static int make_items(devo_batch *b)
{
  int i, j, n = 0;
  devo__free(&b->al, b->order);
  devo__free(&b->al, b->first);
  devo__free(&b->al, b->count);
  b->order = (int *)devo__alloc(&b->al, (size_t)b->n, sizeof *b->order);
  b->first = (int *)devo__alloc(&b->al, (size_t)b->n, sizeof *b->first);
  b->count = (int *)devo__alloc(&b->al, (size_t)b->n, sizeof *b->count);
  if (!b->order || !b->first || !b->count)
    return batch_err(b, DEVO_E_NOMEM, "out of memory for %d trials", b->n);
  b->nitems = 0;
  b->dev = -1;
  for (i = 0; i < b->n; ++i) {
    const int gpu = gpu_group(b->trial[i]);
    for (j = 0; gpu && j < i; ++j)
      if (b->group[j] == b->group[i])
        break;
    if (gpu && j < i)
      continue; /* taken with its group's first trial */
    b->first[b->nitems] = n;
    b->order[n++] = i;
    for (j = i + 1; gpu && j < b->n; ++j)
      if (b->group[j] == b->group[i])
        b->order[n++] = j;
    b->count[b->nitems] = n - b->first[b->nitems];
    b->nitems++;
    if (b->trial[i]->o.backend != DEVO_BACKEND_CPU && b->dev < 0)
      b->dev = devo__gpu_get_device();
  }
  return DEVO_OK;
}

/* ---- solving ---------------------------------------------------------------------------- */

static int cmp_ptr(const void *x, const void *y)
{
  const uintptr_t a = (uintptr_t) * (devo_solver *const *)x,
                  b = (uintptr_t) * (devo_solver *const *)y;
  return a < b ? -1 : a > b;
}

/* A solver twice in the batch, or one that is running, is refused before anything runs. */
static int check_trials(devo_batch *b)
{
  devo_solver **sorted;
  int i, st = DEVO_OK;
  if (b->n == 0)
    return batch_err(b, DEVO_E_INVALID, "the batch has no trials");
  for (i = 0; i < b->n; ++i)
    if (b->trial[i]->running)
      return batch_err(b, DEVO_E_STATE, "trial %d: its solver is running", i);
  sorted = (devo_solver **)devo__alloc(&b->al, (size_t)b->n, sizeof *sorted);
  if (!sorted)
    return batch_err(b, DEVO_E_NOMEM, "out of memory for %d trials", b->n);
  memcpy(sorted, b->trial, (size_t)b->n * sizeof *sorted);
  qsort(sorted, (size_t)b->n, sizeof *sorted, cmp_ptr);
  for (i = 1; i < b->n && st == DEVO_OK; ++i)
    if (sorted[i] == sorted[i - 1])
      st = batch_err(b, DEVO_E_INVALID, "a solver is in the batch twice (one run each)");
  devo__free(&b->al, sorted);
  return st;
}

/* Trial i ended with st (DEVO_OK: not run): its status and the caller's callback. */
static void trial_done(devo_batch *b, int i, int st)
{
  devo_solver *s = b->trial[i];
  s->group_stop = NULL;
  if (st == DEVO_OK)
    return; /* stopped before this trial began: not run (status DEVO_OK) */
  b->status[i] = st;
  pthread_mutex_lock(&b->mu);
  if (b->done && b->done(b->done_ud, i, s, st) != 0 && !atomic_exchange(&b->stop, 1))
    b->by_callback = 1;
  pthread_mutex_unlock(&b->mu);
}

/* devo__gpu_batch_run's callback: k indexes the item's trials. */
typedef struct item_ctx {
  devo_batch *b;
  const int *idx;
} item_ctx;

static void item_trial_done(void *ud, int k, int st)
{
  const item_ctx *c = (const item_ctx *)ud;
  trial_done(c->b, c->idx[k], st);
}

/* One work item of the pool: a GPU group through the batch runner, or one trial through
 * devo_solve. */
static void run_item(void *ud, int it)
{
  devo_batch *b = (devo_batch *)ud;
  const int *idx = b->order + b->first[it], n = b->count[it];
  int k;
  if (atomic_load(&b->stop))
    return; /* stopped before this item began: not run (status DEVO_OK) */
  for (k = 0; k < n; ++k)
    b->trial[idx[k]]->group_stop = &b->stop;
  if (b->dev >= 0)
    devo__gpu_set_device(b->dev); /* the caller's device, not the pool thread's default */
  if (gpu_group(b->trial[idx[0]])) {
    devo_solver **tr = (devo_solver **)devo__alloc(&b->al, (size_t)n, sizeof *tr);
    item_ctx c = {b, idx};
    if (!tr) {
      for (k = 0; k < n; ++k) {
        devo__set_err(b->trial[idx[k]], DEVO_E_NOMEM, "out of memory for the batch's group");
        trial_done(b, idx[k], DEVO_E_NOMEM);
      }
      return;
    }
    for (k = 0; k < n; ++k)
      tr[k] = b->trial[idx[k]];
    devo__gpu_batch_run(tr, n, item_trial_done, &c);
    devo__free(&b->al, tr);
    return;
  }
  trial_done(b, idx[0], devo_solve(b->trial[idx[0]]));
}

int devo_batch_solve(devo_batch *b)
{
  devo__pool *pool = NULL;
  int i, st, threads, not_run = 0;
  BATCH_GUARD(b);
  b->err[0] = 0;
  if ((st = check_trials(b)) != DEVO_OK)
    return st;
  make_groups(b);
  if ((st = make_items(b)) != DEVO_OK)
    return st;
  for (i = 0; i < b->n; ++i)
    b->status[i] = DEVO_OK;
  threads = b->threads < b->nitems ? b->threads : b->nitems;
  if (devo__pool_create(&pool, &b->al, threads) != DEVO_OK)
    return batch_err(b, DEVO_E_NOMEM, "cannot start %d threads for the batch", threads);
  b->running = 1;
  b->by_callback = 0;
  devo__pool_run(pool, b->nitems, run_item, b);
  devo__pool_destroy(pool);
  b->running = 0;
  st = DEVO_OK;
  for (i = 0; i < b->n; ++i) {
    if (b->status[i] < 0 && st == DEVO_OK)
      st = batch_err(b, b->status[i], "trial %d: %s", i, devo_solver_errmsg(b->trial[i]));
    not_run += b->status[i] == DEVO_OK;
  }
  if (st == DEVO_OK && atomic_load(&b->stop))
    st = b->by_callback ? DEVO_STOPPED_BY_CALLBACK : DEVO_INTERRUPTED;
  if (st > 0)
    batch_err(b, st, "%s: %d of %d trials not run", devo_status_message(st), not_run, b->n);
  atomic_store(&b->stop, 0); /* cleared on every return, like a solver's interrupt */
  return st;
}
