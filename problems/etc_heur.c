/* SPDX-License-Identifier: MIT */
/* etc_heur.c: the classic mapping heuristics for independent tasks on heterogeneous machines, as
 * defined by T. D. Braun et al., "A comparison of eleven static heuristics for mapping a class of
 * independent tasks onto heterogeneous distributed computing systems", JPDC 61(6):810-837, 2001
 * (Sufferage from M. Maheswaran et al., "Dynamic mapping of a class of independent tasks onto
 * heterogeneous computing systems", JPDC 59(2), 1999). They give the classic baselines and the
 * seeds of the DE population (engine/problem_etc.c).
 *
 * All heuristics start from the machines' ready times W_j and keep the machine loads
 * (availability times) in double precision, added in assignment order. Ties go to the lowest
 * task index, then to the lowest machine index (every comparison below is strict, scanning
 * indices upwards). Sufferage maps one task per step (the task whose best completion time is
 * furthest below its second-best), as data/etc_data/braun/REFERENCE.md describes; the
 * original batch formulation of Maheswaran et al. differs in how conflicts within a pass are
 * resolved. */
#include <string.h>

#include "../engine/internal.h"
#include "devo_alloc.h"

static const char *const heur_names[DEVO_HEUR_COUNT] = {"olb",     "met",     "mct",
                                                        "min-min", "max-min", "sufferage"};

const char *devo_heuristic_name(int heuristic)
{
  if (heuristic < 0 || heuristic >= DEVO_HEUR_COUNT)
    return NULL;
  return heur_names[heuristic];
}

int devo_heuristic_from_name(const char *name)
{
  int h;
  if (!name)
    return -1;
  for (h = 0; h < DEVO_HEUR_COUNT; ++h)
    if (strcmp(name, heur_names[h]) == 0)
      return h;
  /* common spellings: "minmin", "min_min", "MinMin" */
  {
    char buf[16];
    size_t i, k = 0;
    for (i = 0; name[i] && k < sizeof buf - 1; ++i) {
      char c = name[i];
      if (c == '-' || c == '_')
        continue;
      buf[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    if (name[i])
      return -1;
    buf[k] = 0;
    if (strcmp(buf, "minmin") == 0)
      return DEVO_HEUR_MINMIN;
    if (strcmp(buf, "maxmin") == 0)
      return DEVO_HEUR_MAXMIN;
    for (h = 0; h < DEVO_HEUR_COUNT; ++h)
      if (strcmp(buf, heur_names[h]) == 0)
        return h;
  }
  return -1;
}

/* Best and second-best machine of task t given the loads: (completion, index) order. */
static void best_two(const double *row, const double *load, int m, int *b1, double *v1, int *b2,
                     double *v2)
{
  int j, i1 = 0, i2 = 1;
  double c1 = load[0] + row[0], c2 = load[1] + row[1];
  if (c2 < c1) {
    double tc = c1;
    c1 = c2;
    c2 = tc;
    i1 = 1;
    i2 = 0;
  }
  for (j = 2; j < m; ++j) {
    double c = load[j] + row[j];
    if (c < c1) {
      c2 = c1;
      i2 = i1;
      c1 = c;
      i1 = j;
    } else if (c < c2) {
      c2 = c;
      i2 = j;
    }
  }
  *b1 = i1;
  *v1 = c1;
  if (b2) {
    *b2 = i2;
    *v2 = c2;
  }
}

/* Steps of a batch heuristic between two looks at the clock (a step costs O(n)). */
#define HEUR_CLOCK_EVERY 8

/* Min-min, Max-min and Sufferage: n steps; each maps one unmapped task to its best machine.
 * The per-task best (and second best) are cached: a step only makes one machine j later, so
 * only the tasks whose best (or second best) was j need a new scan. deadline: absolute monotonic
 * seconds (0 = none); past it the mapping stops unfinished (DEVO_TIME_LIMIT). */
static int batch_heuristic(const devo_etc *e, int h, int *assign, double deadline,
                           const volatile sig_atomic_t *stop)
{
  const int n = e->ntasks, m = e->nmach;
  const double *etc = e->values;
  double *load = (double *)devo__alloc(&e->al, (size_t)m, sizeof(double));
  double *v1 = (double *)devo__alloc(&e->al, (size_t)n, sizeof(double));
  double *v2 = (double *)devo__alloc(&e->al, (size_t)n, sizeof(double));
  int *b1 = (int *)devo__alloc(&e->al, (size_t)n, sizeof(int));
  int *b2 = (int *)devo__alloc(&e->al, (size_t)n, sizeof(int));
  int *todo = (int *)devo__alloc(&e->al, (size_t)n, sizeof(int)); /* unmapped, ascending */
  int rc = DEVO_OK, suff = h == DEVO_HEUR_SUFFERAGE, step, nt = n, k, j;
  if (!load || !v1 || !v2 || !b1 || !b2 || !todo) {
    rc = DEVO_E_NOMEM;
    goto done;
  }
  memcpy(load, e->ready, (size_t)m * sizeof(double));
  for (k = 0; k < n; ++k) {
    todo[k] = k;
    best_two(etc + (size_t)k * m, load, m, &b1[k], &v1[k], &b2[k], &v2[k]);
  }
  for (step = 0; step < n; ++step) {
    int pick = 0, t;
    if (deadline > 0.0 && step % HEUR_CLOCK_EVERY == 0 && devo__now() >= deadline) {
      rc = DEVO_TIME_LIMIT;
      break;
    }
    if (stop && step % HEUR_CLOCK_EVERY == 0 && *stop) {
      /* the rest as MCT maps it, so that the caller still has a complete schedule */
      for (k = 0; k < nt; ++k) {
        t = todo[k];
        best_two(etc + (size_t)t * m, load, m, &j, &v1[t], NULL, NULL);
        assign[t] = j;
        load[j] += etc[(size_t)t * m + j];
      }
      rc = DEVO_INTERRUPTED;
      break;
    }
    double key = h == DEVO_HEUR_SUFFERAGE ? v2[todo[0]] - v1[todo[0]] : v1[todo[0]];
    for (k = 1; k < nt; ++k) {
      t = todo[k];
      if (h == DEVO_HEUR_MINMIN) {
        if (v1[t] < key) {
          key = v1[t];
          pick = k;
        }
      } else if (h == DEVO_HEUR_MAXMIN) {
        if (v1[t] > key) {
          key = v1[t];
          pick = k;
        }
      } else if (v2[t] - v1[t] > key) {
        key = v2[t] - v1[t];
        pick = k;
      }
    }
    t = todo[pick];
    j = b1[t];
    assign[t] = j;
    load[j] += etc[(size_t)t * m + j];
    memmove(todo + pick, todo + pick + 1, (size_t)(nt - pick - 1) * sizeof(int));
    nt--;
    for (k = 0; k < nt; ++k) {
      int u = todo[k];
      if (b1[u] == j || (suff && b2[u] == j))
        best_two(etc + (size_t)u * m, load, m, &b1[u], &v1[u], &b2[u], &v2[u]);
    }
  }
done:
  devo__free(&e->al, load);
  devo__free(&e->al, v1);
  devo__free(&e->al, v2);
  devo__free(&e->al, b1);
  devo__free(&e->al, b2);
  devo__free(&e->al, todo);
  return rc;
}

/* OLB, MET, MCT: tasks in index order, each mapped once. */
static int immediate_heuristic(const devo_etc *e, int h, int *assign)
{
  const int n = e->ntasks, m = e->nmach;
  double *load = (double *)devo__alloc(&e->al, (size_t)m, sizeof(double));
  int t, j;
  if (!load)
    return DEVO_E_NOMEM;
  memcpy(load, e->ready, (size_t)m * sizeof(double));
  for (t = 0; t < n; ++t) {
    const double *row = e->values + (size_t)t * m;
    int best = 0;
    for (j = 1; j < m; ++j) {
      if (h == DEVO_HEUR_OLB   ? load[j] < load[best]
          : h == DEVO_HEUR_MET ? row[j] < row[best]
                               : load[j] + row[j] < load[best] + row[best])
        best = j;
    }
    assign[t] = best;
    load[best] += row[best];
  }
  devo__free(&e->al, load);
  return DEVO_OK;
}

int devo__etc_heuristic_stop(const devo_etc *e, int heuristic, int *assign, double deadline,
                             const volatile sig_atomic_t *stop)
{
  if (!e || !assign || heuristic < 0 || heuristic >= DEVO_HEUR_COUNT)
    return DEVO_E_INVALID;
  if (devo__etc_heuristic_immediate(heuristic))
    return immediate_heuristic(e, heuristic, assign);
  return batch_heuristic(e, heuristic, assign, deadline, stop);
}

int devo__etc_heuristic_until(const devo_etc *e, int heuristic, int *assign, double deadline)
{
  return devo__etc_heuristic_stop(e, heuristic, assign, deadline, NULL);
}

int devo_etc_heuristic(const devo_etc *e, int heuristic, int *assign)
{
  return devo__etc_heuristic_until(e, heuristic, assign, 0.0);
}
