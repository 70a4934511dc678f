/* SPDX-License-Identifier: MIT */
/* pool.c: the worker threads of a batch (engine/batch.c) and of the islands (engine/islands.c):
 * a job is n independent calls fn(ud, i), handed out one index at a time to whichever thread
 * is free (the calling thread included), so that trials of unequal length keep every thread
 * busy. The threads sleep on a condition variable between jobs: a job here is a whole trial or
 * a stretch of generations of an island, long beside a wake-up. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "internal.h"

typedef struct pool_worker {
  devo__pool *p;
  pthread_t thread;
} pool_worker;

struct devo__pool {
  devo_allocator al;
  int nworkers;
  pool_worker *workers;
  pthread_mutex_t mu;
  pthread_cond_t cv_job, cv_done;
  /* the job, written under mu */
  void (*fn)(void *ud, int i);
  void *ud;
  int n;
  uint64_t job;    /* counts the jobs: a worker takes part once in each */
  int busy;        /* workers still in the current job */
  atomic_int next; /* the next index to hand out */
  int quit;
};

/* Takes indices of the current job until none is left. */
static void take_indices(devo__pool *p, void (*fn)(void *, int), void *ud, int n)
{
  int i;
  while ((i = atomic_fetch_add(&p->next, 1)) < n)
    fn(ud, i);
}

static void *worker_main(void *arg)
{
  pool_worker *w = (pool_worker *)arg;
  devo__pool *p = w->p;
  uint64_t seen = 0;
  for (;;) {
    void (*fn)(void *, int);
    void *ud;
    int n;
    pthread_mutex_lock(&p->mu);
    while (!p->quit && p->job == seen)
      pthread_cond_wait(&p->cv_job, &p->mu);
    if (p->quit) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    seen = p->job;
    fn = p->fn;
    ud = p->ud;
    n = p->n;
    pthread_mutex_unlock(&p->mu);
    take_indices(p, fn, ud, n);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0)
      pthread_cond_signal(&p->cv_done);
    pthread_mutex_unlock(&p->mu);
  }
}

int devo__pool_create(devo__pool **out, const devo_allocator *al, int threads)
{
  devo__pool *p = (devo__pool *)devo__calloc(al, 1, sizeof *p);
  int t;
  *out = NULL;
  if (!p)
    return DEVO_E_NOMEM;
  p->al = *al;
  atomic_init(&p->next, 0);
  if (pthread_mutex_init(&p->mu, NULL) != 0) {
    devo__free(al, p);
    return DEVO_E_NOMEM;
  }
  pthread_cond_init(&p->cv_job, NULL);
  pthread_cond_init(&p->cv_done, NULL);
  if (threads > 1) {
    p->workers = (pool_worker *)devo__calloc(al, (size_t)threads - 1, sizeof *p->workers);
    if (!p->workers) {
      devo__pool_destroy(p);
      return DEVO_E_NOMEM;
    }
    for (t = 0; t < threads - 1; ++t) {
      p->workers[t].p = p;
      if (pthread_create(&p->workers[t].thread, NULL, worker_main, &p->workers[t]) != 0) {
        devo__pool_destroy(p);
        return DEVO_E_NOMEM;
      }
      p->nworkers = t + 1;
    }
  }
  *out = p;
  return DEVO_OK;
}

void devo__pool_run(devo__pool *p, int n, void (*fn)(void *ud, int i), void *ud)
{
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->ud = ud;
  p->n = n;
  atomic_store(&p->next, 0);
  p->busy = p->nworkers;
  p->job++;
  pthread_cond_broadcast(&p->cv_job);
  pthread_mutex_unlock(&p->mu);
  take_indices(p, fn, ud, n);
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0)
    pthread_cond_wait(&p->cv_done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void devo__pool_destroy(devo__pool *p)
{
  int t;
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  pthread_cond_broadcast(&p->cv_job);
  pthread_mutex_unlock(&p->mu);
  for (t = 0; t < p->nworkers; ++t)
    pthread_join(p->workers[t].thread, NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv_job);
  pthread_cond_destroy(&p->cv_done);
  devo__free(&p->al, p->workers);
  devo__free(&p->al, p);
}
