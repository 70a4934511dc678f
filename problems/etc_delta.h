/* SPDX-License-Identifier: MIT */
/* etc_delta.h: the change of makespan and flowtime caused by moving one task to another machine
 * or swapping two tasks of different machines, from kept per-machine quantities, in O(1) once
 * the positions are known. Shared by the CPU searches (problems/etc_vnd.c) and, later, a GPU
 * search that scans one candidate per thread; tested against a full recomputation
 * (devo_etc_evaluate) on random moves and swaps in tests/test_etc.c (local_search_deltas).
 *
 * Derivation. Let machine j run k tasks in its run order p_1, ..., p_k (ETC values on j) from its
 * ready time W_j. Task i finishes at C_i = W_j + p_1 + ... + p_i, and the machine's flowtime is
 *   F_j = sum_i C_i = k W_j + sum_i p_i (k - i + 1),
 * i.e. each task's time counts once for itself and once for every task after it.
 * Removing the task at (0-based) run position r, with finish time C and time p: its own term C
 * goes, and each of the k - r - 1 tasks after it finishes p earlier:
 *   dF_remove = -C - p (k - r - 1).
 * Inserting a task of time p so that r tasks run before it (their times summing to h): it
 * finishes at W_j + h + p, and each of the k - r tasks after it finishes p later:
 *   dF_insert = (W_j + h + p) + p (k - r).
 * Only the position depends on the order:
 *   FCFS (task-index order, etc.h): r = the number of tasks of j with a smaller index;
 *   SPT: r = the number of tasks of j that come before it in the (ETC on j, task index) order
 *        (Smith's rule, Smith 1956, "Various optimizers for single-stage production", Naval
 *        Research Logistics Quarterly 3:59-66; the rank form is the usual incremental
 *        evaluation of insertion neighbourhoods, e.g. Fanjul-Peyro & Ruiz, EJOR 207:55-69,
 *        2010, for the makespan part).
 * A swap of t (on a) with u (on b) is two removals and two insertions; the insertion of u into
 * a happens after t left, so u's rank and head on a are corrected for t (if t ran before u's
 * place, the rank is one less and the head lacks t's time), and the same for t into b.
 * Makespan: only the two machines change, so the new makespan is the larger of their new loads
 * and the largest load of the other machines, which the three largest loads give in O(1).
 * Written in the C subset that nvcc also compiles (DEVO_HD). */
#ifndef DEVO_ETC_DELTA_H
#define DEVO_ETC_DELTA_H

#include "devo_port.h"

/* Flowtime change of a machine with k tasks when the task at run position r (0-based), with
 * finish time c and time p on it, leaves. */
static inline DEVO_HD double devo__etc_flow_remove(double c, double p, int k, int r)
{
  return -c - p * (double)(k - r - 1);
}

/* Flowtime change of a machine with ready time w and k tasks when a task of time p joins it
 * with r tasks (times summing to h) before it. */
static inline DEVO_HD double devo__etc_flow_insert(double w, double h, double p, int k, int r)
{
  return (w + h + p) + p * (double)(k - r);
}

/* The insertion position of a task into a machine that another task has just left: rank r and
 * head h as computed with the leaving task still there (r_gone: its run position, p_gone: its
 * time on that machine); k becomes k - 1 for the insertion. */
static inline DEVO_HD void devo__etc_rank_without(int *r, double *h, int r_gone, double p_gone)
{
  if (r_gone < *r) {
    *r -= 1;
    *h -= p_gone;
  }
}

/* The largest load of all machines but a and b, from the indices of the three largest loads
 * (top[0] >= top[1] >= top[2]; -1 where m < 3) and the loads. */
static inline DEVO_HD double devo__etc_max_other(const int *top, const double *load, int a, int b)
{
  int q;
  for (q = 0; q < 3; ++q)
    if (top[q] >= 0 && top[q] != a && top[q] != b)
      return load[top[q]];
  return 0.0;
}

/* The makespan after machines a and b get the loads la and lb. */
static inline DEVO_HD double devo__etc_pair_makespan(const int *top, const double *load, int a,
                                                     int b, double la, double lb)
{
  double ms = devo__etc_max_other(top, load, a, b);
  if (la > ms)
    ms = la;
  if (lb > ms)
    ms = lb;
  return ms;
}

/* ---- the annealing of the makespan search (etc_vnd.c, sa_step; issue 19) ---------------------
 * Energy of a schedule at a load target T and machine prices mu (etc_vnd.c's price_machines):
 *   E = sum_j max(0, L_j - T) + beta * sum_t mu_{a(t)} p_{t,a(t)},
 * the loads' overflow above T plus beta times the priced work. A move or a swap changes two
 * loads, so its delta is O(1). The GPU search uses the same functions (one candidate per
 * thread), so both sides accept the same candidates. */

/* The overflow of a load above the target. */
static inline DEVO_HD double devo__etc_overflow(double load, double target)
{
  return load > target ? load - target : 0.0;
}

/* The change of E when a task of time pa on its machine a (load la, price mua) moves to b (load
 * lb, price mub, its time there pb); *na and *nb receive the new loads of a and b. */
static inline DEVO_HD double devo__etc_sa_move_delta(double la, double lb, double pa, double pb,
                                                     double mua, double mub, double target,
                                                     double beta, double *na, double *nb)
{
  *na = la - pa;
  *nb = lb + pb;
  return devo__etc_overflow(*na, target) + devo__etc_overflow(*nb, target) -
         devo__etc_overflow(la, target) - devo__etc_overflow(lb, target) +
         beta * (mub * pb - mua * pa);
}

/* The change of E when task t of machine a (times ta on a, tb on b) and task u of machine b
 * (times ua on a, ub on b) swap; loads la, lb, prices mua, mub; *na, *nb the new loads. */
static inline DEVO_HD double devo__etc_sa_swap_delta(double la, double lb, double ta, double tb,
                                                     double ua, double ub, double mua, double mub,
                                                     double target, double beta, double *na,
                                                     double *nb)
{
  *na = la - ta + ua;
  *nb = lb - ub + tb;
  return devo__etc_overflow(*na, target) + devo__etc_overflow(*nb, target) -
         devo__etc_overflow(la, target) - devo__etc_overflow(lb, target) +
         beta * (mua * (ua - ta) + mub * (tb - ub));
}

#endif /* DEVO_ETC_DELTA_H */
