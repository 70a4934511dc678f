/* problem_etc.c: the scheduling problem of an ETC matrix as a DE problem (Kromer et al., "Genetic
 * algorithm for the independent task scheduling problem with differential evolution", GECCO 2011
 * style encoding: x in [0, m)^n, task t on machine floor(x_t)), with the classic heuristic
 * schedules (Braun et al. 2001) as optional seeds of the initial population. */
#include <math.h>
#include <string.h>

#include "../problems/etc.h"
#include "internal.h"

/* Seed order: the usually strongest first, since the solver keeps only NP - 4 of them. */
static const int seed_order[DEVO_HEUR_COUNT] = {DEVO_HEUR_MINMIN, DEVO_HEUR_SUFFERAGE,
                                                DEVO_HEUR_MAXMIN, DEVO_HEUR_MCT,
                                                DEVO_HEUR_MET,    DEVO_HEUR_OLB};

/* The distinct heuristic schedules as vectors x_t = machine + 0.5 (the middle of the machine's
 * interval, so small DE steps keep the assignment). Returns the count or a negative status. */
static int make_seeds(const devo_problem *p, const devo_etc *e, double *seeds)
{
  const int n = e->ntasks;
  int *a = (int *)devo__alloc(&p->al, (size_t)n, sizeof(int));
  int k, h, t, count = 0, rc;
  if (!a)
    return DEVO_E_NOMEM;
  for (h = 0; h < DEVO_HEUR_COUNT; ++h) {
    double *x = seeds + (size_t)count * n;
    rc = devo_etc_heuristic(e, seed_order[h], a);
    if (rc != DEVO_OK) {
      devo__free(&p->al, a);
      return rc;
    }
    for (t = 0; t < n; ++t)
      x[t] = (double)a[t] + 0.5;
    for (k = 0; k < count; ++k)
      if (memcmp(seeds + (size_t)k * n, x, (size_t)n * sizeof(double)) == 0)
        break;
    if (k == count)
      count++;
  }
  devo__free(&p->al, a);
  return count;
}

int devo_problem_set_etc(devo_problem *p, const devo_etc *e, double lambda, int order,
                         int seed_heuristics)
{
  double *etc = NULL, *ready = NULL, *seeds = NULL;
  size_t cells;
  int n, m, nseeds = 0;
  if (!p)
    return DEVO_E_INVALID;
  if (!e)
    return devo__problem_err(p, DEVO_E_INVALID, "ETC matrix is NULL");
  if (!(lambda >= 0.0 && lambda <= 1.0))
    return devo__problem_err(p, DEVO_E_INVALID,
                             "lambda %g is out of range: the makespan weight must be in [0, 1]",
                             lambda);
  if (order != DEVO_ORDER_FCFS && order != DEVO_ORDER_SPT)
    return devo__problem_err(
        p, DEVO_E_INVALID, "task order %d is not DEVO_ORDER_FCFS (0) or DEVO_ORDER_SPT (1)", order);
  n = e->ntasks;
  m = e->nmach;
  cells = (size_t)n * (size_t)m;
  etc = (double *)devo__alloc(&p->al, cells, sizeof(double));
  ready = (double *)devo__alloc(&p->al, (size_t)m, sizeof(double));
  if (seed_heuristics)
    seeds = (double *)devo__alloc(&p->al, (size_t)DEVO_HEUR_COUNT * (size_t)n, sizeof(double));
  if (!etc || !ready || (seed_heuristics && !seeds))
    goto nomem;
  memcpy(etc, e->values, cells * sizeof(double));
  memcpy(ready, e->ready, (size_t)m * sizeof(double));
  if (seed_heuristics) {
    nseeds = make_seeds(p, e, seeds);
    if (nseeds < 0)
      goto nomem;
  }
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
  p->view.etc = p->etc;
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
