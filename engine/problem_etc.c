/* SPDX-License-Identifier: MIT */
/* problem_etc.c: the scheduling problem of an ETC matrix as a DE problem (Kromer et al., "Genetic
 * algorithm for the independent task scheduling problem with differential evolution", GECCO 2011
 * style encoding: x in [0, m)^n, task t on machine floor(x_t)), with the classic heuristic
 * schedules (Braun et al. 2001), plain or improved by local search (problems/etc_ls.c), as optional
 * seeds of the initial population. */
#include <math.h>
#include <string.h>

#include "../problems/etc.h"
#include "etc_internal.h"

/* Seed order: the usually strongest first, since the solver keeps only NP - 4 of them. */
const int devo__etc_seed_order[DEVO_HEUR_COUNT] = {DEVO_HEUR_MINMIN, DEVO_HEUR_SUFFERAGE,
                                                   DEVO_HEUR_MAXMIN, DEVO_HEUR_MCT,
                                                   DEVO_HEUR_MET,    DEVO_HEUR_OLB};

/* Local-search steps per seed when devo_problem_set_etc has no deadline to respect: a bound on
 * the time the call can take, far above what the Braun instances need (a few hundred). */
#define SEED_LS_MOVES_PER_TASK 16

/* The distinct schedules as vectors x_t = machine + 0.5 (the middle of the machine's interval,
 * so small DE steps keep the assignment). Returns the count. */
static int encode_seeds(int n, const int *assigns, int count, double *seeds)
{
  int k, i, t, distinct = 0;
  for (i = 0; i < count; ++i) {
    double *x = seeds + (size_t)distinct * n;
    for (t = 0; t < n; ++t)
      x[t] = (double)assigns[(size_t)i * n + t] + 0.5;
    for (k = 0; k < distinct; ++k)
      if (memcmp(seeds + (size_t)k * n, x, (size_t)n * sizeof(double)) == 0)
        break;
    if (k == distinct)
      distinct++;
  }
  return distinct;
}

static int check_args(devo_problem *p, const devo_etc *e, double lambda, int order)
{
  if (!e)
    return devo__problem_err(p, DEVO_E_INVALID, "ETC matrix is NULL");
  if (!(lambda >= 0.0 && lambda <= 1.0))
    return devo__problem_err(p, DEVO_E_INVALID,
                             "lambda %g is out of range: the makespan weight must be in [0, 1]",
                             lambda);
  if (order != DEVO_ORDER_FCFS && order != DEVO_ORDER_SPT)
    return devo__problem_err(
        p, DEVO_E_INVALID, "task order %d is not DEVO_ORDER_FCFS (0) or DEVO_ORDER_SPT (1)", order);
  return DEVO_OK;
}

int devo__problem_set_etc_seeds(devo_problem *p, const devo_etc *e, double lambda, int order,
                                const int *assigns, int count, int borrow)
{
  double *etc = NULL, *ready = NULL, *seeds = NULL;
  size_t cells;
  int n, m, nseeds = 0, rc;
  if (!p)
    return DEVO_E_INVALID;
  if ((rc = check_args(p, e, lambda, order)) != DEVO_OK)
    return rc;
  if (count < 0 || (count > 0 && !assigns))
    return devo__problem_err(p, DEVO_E_INVALID, "bad seed schedules");
  n = e->ntasks;
  m = e->nmach;
  cells = (size_t)n * (size_t)m;
  if (!borrow)
    etc = (double *)devo__alloc(&p->al, cells, sizeof(double));
  ready = (double *)devo__alloc(&p->al, (size_t)m, sizeof(double));
  if (count > 0)
    seeds = (double *)devo__alloc(&p->al, (size_t)count * (size_t)n, sizeof(double));
  if ((!borrow && !etc) || !ready || (count > 0 && !seeds))
    goto nomem;
  if (!borrow)
    memcpy(etc, e->values, cells * sizeof(double));
  memcpy(ready, e->ready, (size_t)m * sizeof(double));
  if (count > 0)
    nseeds = encode_seeds(n, assigns, count, seeds);
  /* only now drop the old configuration: a failed call leaves p as it was */
  devo__problem_reset(p);
  p->etc = etc;
  p->ready = ready;
  p->seeds = seeds;
  p->nseeds = nseeds;
  p->view.kind = DEVO__P_ETC;
  p->view.dim = n;
  p->view.lower = 0.0;
  p->view.upper = (double)m;
  p->view.etc = borrow ? e->values : p->etc;
  p->view.ready = p->ready;
  p->view.ntasks = n;
  p->view.nmach = m;
  p->view.lambda = lambda;
  p->view.order = order;
  p->fstar = (double)NAN;
  snprintf(p->name, sizeof p->name, "etc");
  return DEVO_OK;
nomem:
  devo__free(&p->al, etc);
  devo__free(&p->al, ready);
  devo__free(&p->al, seeds);
  return devo__problem_err(p, DEVO_E_NOMEM, "out of memory for an ETC problem of %d x %d", n, m);
}

int devo_problem_set_etc(devo_problem *p, const devo_etc *e, double lambda, int order,
                         int seed_heuristics)
{
  int *assigns = NULL, h, rc, n;
  if (!p)
    return DEVO_E_INVALID;
  if ((rc = check_args(p, e, lambda, order)) != DEVO_OK)
    return rc;
  if (seed_heuristics != DEVO_ETC_SEED_NONE && seed_heuristics != DEVO_ETC_SEED_PLAIN &&
      seed_heuristics != DEVO_ETC_SEED_LOCAL)
    return devo__problem_err(p, DEVO_E_INVALID,
                             "seed_heuristics %d is not DEVO_ETC_SEED_NONE (0), _PLAIN (1) or "
                             "_LOCAL (2)",
                             seed_heuristics);
  if (seed_heuristics == DEVO_ETC_SEED_NONE)
    return devo__problem_set_etc_seeds(p, e, lambda, order, NULL, 0, 0);
  n = e->ntasks;
  assigns = (int *)devo__alloc(&p->al, (size_t)DEVO_HEUR_COUNT * (size_t)n, sizeof(int));
  if (!assigns)
    return devo__problem_err(p, DEVO_E_NOMEM, "out of memory for the seed schedules");
  for (h = 0; h < DEVO_HEUR_COUNT && rc == DEVO_OK; ++h) {
    int *a = assigns + (size_t)h * n;
    rc = devo_etc_heuristic(e, devo__etc_seed_order[h], a);
    if (rc == DEVO_OK && seed_heuristics == DEVO_ETC_SEED_LOCAL)
      rc = devo_etc_local_search(e, a, order, lambda, (int64_t)SEED_LS_MOVES_PER_TASK * n, 0.0,
                                 NULL);
  }
  if (rc == DEVO_OK)
    rc = devo__problem_set_etc_seeds(p, e, lambda, order, assigns, DEVO_HEUR_COUNT, 0);
  else
    rc = devo__problem_err(p, rc, "seed schedules: %s", devo_status_message(rc));
  devo__free(&p->al, assigns);
  return rc;
}

int devo_problem_etc_decode(const devo_problem *p, const double *x, int *assign)
{
  int t;
  if (!p || p->view.kind != DEVO__P_ETC)
    return DEVO_E_STATE;
  if (!x || !assign)
    return DEVO_E_INVALID;
  for (t = 0; t < p->view.ntasks; ++t)
    assign[t] = devo__etc_machine(x[t], p->view.nmach);
  return DEVO_OK;
}
