/* SPDX-License-Identifier: MIT */
/* etc_bound.c: lower bounds on the optimum of an ETC instance and its exact optimum on tiny
 * instances (etc_bound.h), so that devo_schedule_run can say how far its answer may be from the
 * best possible and stop when it cannot improve. The proofs are in docs/scheduling.md ("Lower
 * bound"); in short, for a schedule with makespan C and machine j's completion W_j + L_j <= C:
 *  - C >= W_j for every machine (an idle machine's completion is its ready time, problems/etc.h);
 *  - C >= min_j (W_j + p_tj) for every task t (it runs somewhere);
 *  - C >= sum_j mu_j (W_j + L_j) / sum_j mu_j >= (sum_t min_j mu_j p_tj + sum_j mu_j W_j) /
 *    sum_j mu_j for any prices mu >= 0 (the dual of the LP relaxation of R||Cmax, Lenstra, Shmoys
 *    & Tardos 1990); with equal prices, the total of the smallest times and of the ready times
 *    over m;
 *  - the flowtime F >= sum_t min_j (W_j + p_tj) + sum_i (ceil(i / m) - 1) c_(i), c_t the task's
 *    smallest time sorted from the largest: under shortest-first (whose flowtime is at most
 *    FCFS's) the k-th task from the end of a machine counts k times, and at most m tasks share
 *    each k;
 *  - when every time and ready time is an integer and no flowtime reaches 2^53, every makespan
 *    and flowtime is an integer, computed exactly: the bounds are rounded up to integers.
 * Every sum here is rounded, and so are the sums of devo_etc_evaluate that the bounds are compared
 * with: the bounds that are sums are lowered by the rounding of both (round_down); the ready times
 * and the smallest completions are compared as devo_etc_evaluate computes them (fl(W_j + p_tj)),
 * and the rounded running sums of a machine never fall below them (rounding is monotone), so
 * they hold exactly. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../engine/internal.h"
#include "devo_alloc.h"
#include "etc.h"
#include "etc_bound.h"

/* The unit roundoff of double, and the first integer from which not every integer is a double. */
#define UNIT      (DBL_EPSILON / 2.0)
#define EXACT_INT 9007199254740992.0
/* Enumeration sizes (devo__etc_enumerable): at most ENUM_MAX assignments; for lambda < 1 every one
 * is evaluated whole, at most ENUM_MAX_WORK of assignments * (tasks + machines): about 20 ms at
 * 19 x 2, 12 x 3 or 6 x 10 on the development machine (the makespan's cut walk: 0.2 ms). */
#define ENUM_MAX       1e6
#define ENUM_MAX_WORK  2e7
#define ENUM_MAX_TASKS 20 /* 2^20 > ENUM_MAX: never more tasks */
/* Bins of the flowtime bound's rearrangement (rearranged). */
#define FLOW_BINS 16384

/* x computed with k roundings, to be compared with sums of up to k roundings as well: lowered by
 * twice their first-order relative error (2 k u; the factor 2 covers the higher orders and the
 * products with the lowering itself), and by an absolute term for results below DBL_MIN, where
 * the rounding error is absolute (terms of them, 4 smallest doubles each). */
static double round_down(double x, double k, double terms)
{
  x = x * (1.0 - 2.0 * k * UNIT) - 4.0 * terms * DBL_TRUE_MIN;
  return x > 0.0 ? x : 0.0;
}

/* The LP relaxation's dual value at prices mu (NULL: equal), rounded down as round_down says; 0
 * when the prices sum to 0. (Leaving out, for a trial makespan T, the machines where a task would
 * end after T, and bisecting on T, raised none of the 12 Braun bounds at these prices: not done.)
 */
static double lp_dual(const devo_etc *e, const double *mu)
{
  const int n = e->ntasks, m = e->nmach;
  double num = 0.0, den = 0.0;
  int t, j;
  for (j = 0; j < m; ++j) {
    const double w = mu ? mu[j] : 1.0;
    num += w * e->ready[j];
    den += w;
  }
  if (!(den > 0.0))
    return 0.0;
  for (t = 0; t < n; ++t) {
    const double *row = e->values + (size_t)t * m;
    double best = (mu ? mu[0] : 1.0) * row[0];
    for (j = 1; j < m; ++j) {
      const double v = (mu ? mu[j] : 1.0) * row[j];
      best = v < best ? v : best;
    }
    num += best;
  }
  /* n products and sums, 2m for the ready part and the prices, the division; the makespans it is
   * compared with are sums of up to n + 1 terms */
  return round_down(num / den, 2.0 * n + 2.0 * m + 8.0, (double)n + m);
}

/* sum_{i < k} floor(i / m): the coefficients of the first k places, counted from 0, exact (below
 * 2^53 for any instance devo reads). */
static double places(double k, int m)
{
  const double q = floor(k / m), r = k - q * m;
  return m * q * (q - 1.0) / 2.0 + r * q;
}

static uint64_t bits_of(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* A lower bound on sum_i floor(i / m) c_(i), the c_t (n values > 0) sorted from the largest,
 * without sorting them (a sort took 0.4 s at 10^6 tasks): each value is counted as the smallest
 * value of its bin (FLOW_BINS bins of the bit patterns, which order positive doubles as their
 * values do), and the bins are walked from the largest; so every value is replaced by one no
 * larger, in the same order, which lowers the sum. The bins are 2^-12 of a value wide or less
 * when the values span fewer than 4 binades (distinct small integers keep their own bins: exact),
 * about 0.1% over 20. bins: 2 FLOW_BINS doubles of scratch. */
static double rearranged(const double *c, int n, int m, double *bins)
{
  double *cnt = bins, *low = bins + FLOW_BINS, sum = 0.0, done = 0.0;
  uint64_t lo = bits_of(c[0]), hi = lo;
  int t, b, shift = 0;
  for (t = 1; t < n; ++t) {
    const uint64_t u = bits_of(c[t]);
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
  }
  while ((hi - lo) >> shift >= FLOW_BINS)
    ++shift;
  for (b = 0; b < FLOW_BINS; ++b) {
    cnt[b] = 0.0;
    low[b] = (double)INFINITY;
  }
  for (t = 0; t < n; ++t) {
    b = (int)((bits_of(c[t]) - lo) >> shift);
    cnt[b] += 1.0;
    low[b] = c[t] < low[b] ? c[t] : low[b];
  }
  for (b = FLOW_BINS - 1; b >= 0; --b)
    if (cnt[b] > 0.0) {
      sum += low[b] * (places(done + cnt[b], m) - places(done, m));
      done += cnt[b];
    }
  return sum;
}

/* The flowtime bound of the header from each task's smallest completion (done) and smallest
 * time (least); bins: scratch for rearranged. */
static double flowtime_bound(const devo_etc *e, const double *done, const double *least,
                             double *bins)
{
  const int n = e->ntasks, m = e->nmach;
  double sum = rearranged(least, n, m, bins);
  int t;
  for (t = 0; t < n; ++t)
    sum += done[t];
  /* 2n terms, n products, n rounded completions; the flowtimes it is compared with sum 2n + m */
  return round_down(sum, 4.0 * n + 2.0 * m + 8.0, 2.0 * n);
}

int devo__etc_lower_bound(const devo_etc *e, double lambda, const double *mu, devo__etc_lb *b)
{
  const int n = e ? e->ntasks : 0, m = e ? e->nmach : 0;
  double *done = NULL, *least = NULL, *bins = NULL, ms = 0.0, lp, worst;
  int t, j, integral = 1;
  if (!e || !b || !(lambda >= 0.0 && lambda <= 1.0))
    return DEVO_E_INVALID;
  if (lambda < 1.0) {
    done = (double *)devo__alloc(&e->al, (size_t)n, sizeof(double));
    least = (double *)devo__alloc(&e->al, (size_t)n, sizeof(double));
    bins = (double *)devo__alloc(&e->al, 2 * FLOW_BINS, sizeof(double));
    if (!done || !least || !bins) {
      devo__free(&e->al, done);
      devo__free(&e->al, least);
      devo__free(&e->al, bins);
      return DEVO_E_NOMEM;
    }
  }
  for (j = 0; j < m; ++j) {
    ms = e->ready[j] > ms ? e->ready[j] : ms;
    integral = integral && e->ready[j] == floor(e->ready[j]);
  }
  worst = ms;
  for (t = 0; t < n; ++t) {
    const double *row = e->values + (size_t)t * m;
    double d = e->ready[0] + row[0], c = row[0], top = row[0];
    for (j = 1; j < m; ++j) {
      const double dj = e->ready[j] + row[j];
      d = dj < d ? dj : d;
      c = row[j] < c ? row[j] : c;
      top = row[j] > top ? row[j] : top;
    }
    for (j = 0; j < m && integral; ++j)
      integral = row[j] == floor(row[j]);
    worst += top; /* >= every completion time */
    ms = d > ms ? d : ms;
    if (done) {
      done[t] = d;
      least[t] = c;
    }
  }
  lp = lp_dual(e, NULL);
  ms = lp > ms ? lp : ms;
  if (mu) {
    lp = lp_dual(e, mu);
    ms = lp > ms ? lp : ms;
  }
  b->makespan = ms;
  b->flowtime = done ? flowtime_bound(e, done, least, bins) : 0.0;
  if (integral && worst * n < EXACT_INT) { /* every completion and flowtime sum is exact */
    b->makespan = ceil(b->makespan);
    b->flowtime = ceil(b->flowtime);
  }
  b->objective = devo__etc_objective(lambda, b->makespan, b->flowtime, m);
  b->rtol = 2.0 * (4.0 * n + 2.0 * m + 8.0) * UNIT;
  devo__free(&e->al, done);
  devo__free(&e->al, least);
  devo__free(&e->al, bins);
  return DEVO_OK;
}

int devo__etc_enumerable(const devo_etc *e, double lambda)
{
  double count = 1.0;
  int t;
  if (!e || e->ntasks > ENUM_MAX_TASKS)
    return 0;
  for (t = 0; t < e->ntasks && count <= ENUM_MAX; ++t)
    count *= e->nmach;
  if (count > ENUM_MAX)
    return 0;
  return lambda == 1.0 || count * (e->ntasks + e->nmach) <= ENUM_MAX_WORK;
}

/* The walk of devo__etc_enumerate: a[t] is task t's machine, comp the machines' completions summed
 * in task index order (etc.h's order: the makespan is devo_etc_evaluate's bit for bit), saved[t]
 * machine a[t]'s completion before task t, pm[t] the largest completion with tasks 0..t placed. */
typedef struct enum_walk {
  const devo_etc *e;
  devo__pview v;
  double *comp, *scratch;
  int a[ENUM_MAX_TASKS];
  double saved[ENUM_MAX_TASKS], pm[ENUM_MAX_TASKS];
} enum_walk;

static int walk(enum_walk *w, double deadline, const volatile sig_atomic_t *stop, int *best_a,
                double *best)
{
  const devo_etc *e = w->e;
  const int n = e->ntasks, m = e->nmach, makespan = w->v.lambda == 1.0;
  double wmax = 0.0;
  long nodes = 0;
  int t = 0, j;
  for (j = 0; j < m; ++j) {
    w->comp[j] = e->ready[j];
    wmax = e->ready[j] > wmax ? e->ready[j] : wmax;
  }
  w->a[0] = -1;
  while (t >= 0) {
    double cur;
    if (w->a[t] >= 0)
      w->comp[w->a[t]] = w->saved[t];
    if (++w->a[t] == m) {
      w->a[t--] = -1;
      continue;
    }
    if ((++nodes & 4095) == 0) {
      if (stop && *stop)
        return DEVO_INTERRUPTED;
      if (deadline > 0.0 && devo__now() >= deadline)
        return DEVO_TIME_LIMIT;
    }
    j = w->a[t];
    w->saved[t] = w->comp[j];
    w->comp[j] += e->values[(size_t)t * m + j];
    cur = t ? w->pm[t - 1] : wmax;
    cur = w->comp[j] > cur ? w->comp[j] : cur;
    w->pm[t] = cur;
    if (makespan && cur >= *best)
      continue; /* completions only grow: nothing below is strictly better */
    if (t < n - 1) {
      w->a[++t] = -1;
      continue;
    }
    if (!makespan)
      cur = devo__etc_eval_parts(&w->v, NULL, w->a, w->scratch, NULL, NULL);
    if (cur < *best) {
      *best = cur;
      memcpy(best_a, w->a, (size_t)n * sizeof(int));
    }
  }
  return DEVO_OK;
}

int devo__etc_enumerate(const devo_etc *e, double lambda, int order, double deadline,
                        const volatile sig_atomic_t *stop, int *assign, double *obj)
{
  enum_walk w;
  int st;
  if (!e || !assign || !obj || !devo__etc_enumerable(e, lambda) ||
      (order != DEVO__ORDER_FCFS && order != DEVO__ORDER_SPT))
    return DEVO_E_INVALID;
  memset(&w, 0, sizeof w);
  w.e = e;
  w.v = devo__etc_view(e, order, lambda);
  w.comp = (double *)devo__alloc(&e->al, (size_t)e->nmach, sizeof(double));
  w.scratch = (double *)devo__alloc(&e->al, devo__etc_scratch(&w.v), sizeof(double));
  if (!w.comp || !w.scratch)
    st = DEVO_E_NOMEM;
  else
    st = walk(&w, deadline, stop, assign, obj);
  devo__free(&e->al, w.comp);
  devo__free(&e->al, w.scratch);
  return st;
}
