/* SPDX-License-Identifier: MIT */
/* etc.h: evaluation of independent-task schedules on an ETC matrix (Expected Time to Compute;
 * Braun et al., JPDC 61(6), 2001), shared by the CPU backend and the CUDA kernels.
 *
 * Model (issue 5): n tasks, m machines, etc[t*m + j] > 0, ready times W_j >= 0.
 * DE encoding (Kromer et al., GECCO 2011): a real vector x in [0, m)^n; task t runs on machine
 * floor(x_t) clamped to [0, m - 1] (NaN goes to machine 0).
 *
 * The floating-point order of every sum is part of the definition, so that the GPU
 * (kernels/etc_device.cuh) reproduces the CPU's bits:
 *   completion(j) = ((W_j + e_a) + e_b) + ...  over the tasks a < b < ... of machine j in task
 *                   index order, whatever the order option says (so the makespan is the same
 *                   number under FCFS and SPT);
 *   makespan      = max_j completion(j)  (a max is exact in any order);
 *   finish times  : FCFS: the running sum of the completion above, task by task;
 *                   SPT:  c = W_j, then c = c + e for the machine's tasks in ascending
 *                         (etc, task index) order;
 *   F_j           = ((0 + f_1) + f_2) + ...  the machine's finish times in its run order;
 *   flowtime      = ((0 + F_0) + F_1) + ... + F_{m-1}  in machine order;
 *   objective     = lambda * makespan + (1 - lambda) * (flowtime / m), both products rounded
 *                   on their own (DEVO_MUL: no fused multiply-add on the GPU).
 * Written in the C subset that nvcc compiles as C++ (see devo_port.h). */
#ifndef DEVO_ETC_H
#define DEVO_ETC_H

#include <stddef.h>

#include "devo_port.h"
#include "problem_view.h"

/* The public DEVO_ORDER_* values of devo.h (this header does not include devo.h). */
enum { DEVO__ORDER_FCFS = 0, DEVO__ORDER_SPT = 1 };

/* Machine of one coordinate: floor(x) clamped to [0, m - 1]; NaN -> 0. */
static inline DEVO_HD int devo__etc_machine(double x, int m)
{
#ifdef __CUDA_ARCH__
  /* without branches (the warp kernel decodes 16 coordinates per lane in one stretch): the
   * device's truncating conversion saturates out-of-range values and turns NaN into 0 (PTX
   * cvt.rzi), values in (-1, 1) truncate to 0, and the clamp does the rest; for x in [1, m)
   * it is (int)x, so the same value as the host code */
  const int j = __double2int_rz(x);
  return j < 0 ? 0 : (j < m ? j : m - 1);
#else
  if (!(x >= 1.0)) /* also catches NaN */
    return 0;
  if (x >= (double)m)
    return m - 1;
  return (int)x; /* truncation is floor for x >= 1 */
#endif
}

/* lambda * makespan + (1 - lambda) * flowtime / m, rounded the same way on host and device. */
static inline DEVO_HD double devo__etc_objective(double lambda, double makespan, double flowtime,
                                                int m)
{
  return DEVO_MUL(lambda, makespan) + DEVO_MUL(1.0 - lambda, flowtime / (double)m);
}

/* SPT key order: (etc value, task index) ascending; a strict total order, so the sorted list
 * does not depend on the sorting algorithm. */
static inline DEVO_HD int devo__etc_spt_less(double ea, int a, double eb, int b)
{
  return ea < eb || (ea == eb && a < b);
}

/* Heap sift-down of idx[root] within idx[0..end) under the SPT order of machine j. */
static inline DEVO_HD void devo__etc_spt_sift(const double *etc, int m, int j, double *idx,
                                             int root, int end)
{
  int child;
  double tmp;
  for (; (child = 2 * root + 1) < end; root = child) {
    if (child + 1 < end &&
        devo__etc_spt_less(etc[(long long)idx[child] * m + j], (int)idx[child],
                           etc[(long long)idx[child + 1] * m + j], (int)idx[child + 1]))
      child++;
    if (!devo__etc_spt_less(etc[(long long)idx[root] * m + j], (int)idx[root],
                            etc[(long long)idx[child] * m + j], (int)idx[child]))
      break;
    tmp = idx[root];
    idx[root] = idx[child];
    idx[child] = tmp;
  }
}

/* Sorts the task indices idx[0..k) of machine j into SPT order (heap sort: in place, O(k log k),
 * no recursion, so it also runs on the device). Indices are stored as doubles (exact below
 * 2^53) because the scratch space is an array of doubles. */
static inline DEVO_HD void devo__etc_spt_sort(const double *etc, int m, int j, double *idx, int k)
{
  int i;
  double tmp;
  for (i = k / 2 - 1; i >= 0; --i)
    devo__etc_spt_sift(etc, m, j, idx, i, k);
  for (i = k - 1; i > 0; --i) {
    tmp = idx[0];
    idx[0] = idx[i];
    idx[i] = tmp;
    devo__etc_spt_sift(etc, m, j, idx, 0, i);
  }
}

/* Doubles of scratch that devo__etc_eval needs: 2m for FCFS; 3m + 1 + n for SPT. */
static inline DEVO_HD size_t devo__etc_scratch(const devo__pview *v)
{
  size_t m = (size_t)v->nmach, n = (size_t)v->ntasks;
  return v->order == DEVO__ORDER_SPT ? 3 * m + 1 + n : 2 * m;
}

/* Makespan and flowtime (either pointer may be NULL) of the schedule x (n doubles, decoded) or,
 * when x is NULL, of the assignment a (n ints in 0..m-1). Returns the objective. The sequential
 * reference of the summation order documented at the top of this file. */
static inline DEVO_HD double devo__etc_eval_parts(const devo__pview *v, const double *x,
                                                 const int *a, double *scratch,
                                                 double *makespan_out, double *flowtime_out)
{
  const int n = v->ntasks, m = v->nmach;
  const double *etc = v->etc;
  double *comp = scratch, *fsum = scratch + m;
  double makespan, flowtime = 0.0;
  int t, j;
  for (j = 0; j < m; ++j) {
    comp[j] = v->ready ? v->ready[j] : 0.0;
    fsum[j] = 0.0;
  }
  if (v->order != DEVO__ORDER_SPT) {
    for (t = 0; t < n; ++t) {
      j = x ? devo__etc_machine(x[t], m) : a[t];
      comp[j] += etc[(long long)t * m + j];
      fsum[j] += comp[j];
    }
  } else {
    /* counting sort of the tasks by machine (stable), then SPT order within each machine */
    double *off = scratch + 2 * m; /* m + 1 offsets */
    double *idx = off + m + 1;     /* n task indices */
    for (j = 0; j <= m; ++j)
      off[j] = 0.0;
    for (t = 0; t < n; ++t) {
      j = x ? devo__etc_machine(x[t], m) : a[t];
      comp[j] += etc[(long long)t * m + j];
      off[j + 1] += 1.0;
    }
    for (j = 0; j < m; ++j)
      off[j + 1] += off[j];
    for (t = 0; t < n; ++t) {
      j = x ? devo__etc_machine(x[t], m) : a[t];
      idx[(long long)off[j]] = (double)t;
      off[j] += 1.0;
    }
    /* off[j] is now the end of machine j's segment; its start is off[j - 1] (0 for j = 0) */
    for (j = 0; j < m; ++j) {
      long long b = j ? (long long)off[j - 1] : 0, e = (long long)off[j], k;
      double c = v->ready ? v->ready[j] : 0.0;
      devo__etc_spt_sort(etc, m, j, idx + b, (int)(e - b));
      for (k = b; k < e; ++k) {
        c += etc[(long long)idx[k] * m + j];
        fsum[j] += c;
      }
    }
  }
  makespan = comp[0];
  for (j = 0; j < m; ++j) {
    if (comp[j] > makespan)
      makespan = comp[j];
    flowtime += fsum[j];
  }
  if (makespan_out)
    *makespan_out = makespan;
  if (flowtime_out)
    *flowtime_out = flowtime;
  return devo__etc_objective(v->lambda, makespan, flowtime, m);
}

/* Objective of the vector x; scratch has devo__etc_scratch(v) doubles. */
static inline DEVO_HD double devo__etc_eval(const devo__pview *v, const double *x, double *scratch)
{
  return devo__etc_eval_parts(v, x, (const int *)0, scratch, (double *)0, (double *)0);
}

#endif /* DEVO_ETC_H */
