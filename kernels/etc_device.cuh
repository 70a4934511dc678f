/* etc_device.cuh: block-level GPU evaluation of independent-task schedules on an ETC matrix:
 * one schedule per thread block, one thread per task (threads stride over tasks when n exceeds
 * the block), as in Kromer et al., GECCO 2011. The result is bit for bit the value of the CPU
 * reference devo__etc_eval (problems/etc.h), for both task orders:
 *
 *   1. decode: mach[t] = devo__etc_machine(x_t, m); count the tasks of each machine (integer
 *      atomics: the counts do not depend on timing);
 *   2. one thread scans the counts into segment offsets; tasks are dropped into their machine's
 *      segment by an integer atomic cursor (any order within the segment);
 *   3. each task computes its rank inside its segment under the run order (task index for FCFS;
 *      (etc, index) for SPT, plus the index rank, which the completion sum uses) and writes itself
 *      to that rank: the segment is now sorted, whatever order step 2 produced;
 *   4. one thread per machine walks its sorted segment and adds exactly what the CPU adds, in the
 *      same order: c = W_j; c += e; F += c;
 *   5. makespan = block max (exact in any order); flowtime = F_0 + F_1 + ... in machine order by
 *      one thread; objective by devo__etc_objective (no fused multiply-add).
 *
 * No floating-point atomics are used anywhere, so the result does not depend on scheduling.
 * Cost: step 3 is O(k_j) per task of a machine with k_j tasks, O(sum_j k_j^2) per schedule:
 * n^2/m for a balanced schedule, n^2 in the worst case (all tasks on one machine). Step 4 is
 * O(max_j k_j) for the machine threads. Machines: any m up to DEVO_ETC_MAX_MACHINES (threads
 * stride over machines when m exceeds the block).
 *
 * Memory: work holds devo__etc_block_work_doubles(n, m, order) doubles (shared memory when it
 * fits, else a per-block slice of global memory); red is block_reduce.cuh's shared scratch (at
 * least 33 doubles). The ETC matrix may be staged in shared memory once per block by
 * devo__etc_stage (n*m doubles) and passed to devo__etc_eval_block_etc: a persistent block that
 * evaluates many schedules then reads it from shared memory. Requires blockDim.x to be a multiple
 * of 32; every thread of the block must make the call (it contains __syncthreads). */
#ifndef DEVO_ETC_DEVICE_CUH
#define DEVO_ETC_DEVICE_CUH

#include "../problems/etc.h"
#include "block_reduce.cuh"

/* Doubles of work memory: completion and flowtime per machine (2m), one result slot, then ints:
 * mach[n], offsets[m + 1], cursor[m], segment[n], sorted[n] (and a second sorted[n] for SPT),
 * rounded up to whole doubles. */
__host__ __device__ inline size_t devo__etc_block_work_doubles(int n, int m, int order)
{
  size_t ints = (size_t)n * (order == DEVO__ORDER_SPT ? 4u : 3u) + 2u * (size_t)m + 1u;
  return 2u * (size_t)m + 2u + (ints + 1u) / 2u;
}

/* Copies the ETC matrix (n*m doubles, task-major) into smem; all threads call it. */
__device__ inline void devo__etc_stage(const devo__pview *v, double *smem)
{
  const size_t cells = (size_t)v->ntasks * (size_t)v->nmach;
  for (size_t k = threadIdx.x; k < cells; k += blockDim.x)
    smem[k] = v->etc[k];
  __syncthreads();
}

/* Evaluates the schedule x (n doubles, typically in shared memory) with the ETC values at etc
 * (v->etc or a staged copy). Every thread gets the objective; each non-NULL makespan_out and
 * flowtime_out receives its value (all threads store the same value, so one shared location is
 * fine). */
__device__ inline double devo__etc_eval_block_etc(const devo__pview *v, const double *etc,
                                                  const double *x, double *work, double *red,
                                                  double *makespan_out, double *flowtime_out)
{
  const int n = v->ntasks, m = v->nmach, spt = v->order == DEVO__ORDER_SPT;
  const int tid = threadIdx.x, nt = blockDim.x;
  double *comp = work, *fsum = work + m, *result = work + 2 * m;
  int *mach = (int *)(work + 2 * m + 2);
  int *off = mach + n;       /* m + 1 */
  int *cursor = off + m + 1; /* m */
  int *seg = cursor + m;     /* n */
  int *byidx = seg + n;      /* n: segments sorted by task index */
  int *byspt = byidx + n;    /* n: segments sorted by (etc, index), SPT only */
  double local_max = -1.0;   /* completions are >= 0 */
  int t, j, k;

  /* 1: decode and count */
  for (j = tid; j < m; j += nt)
    cursor[j] = 0;
  __syncthreads();
  for (t = tid; t < n; t += nt) {
    j = devo__etc_machine(x[t], m);
    mach[t] = j;
    atomicAdd(&cursor[j], 1);
  }
  __syncthreads();
  /* 2: offsets (a serial scan: m is at most a few thousand), then bucket */
  if (tid == 0) {
    int s = 0;
    for (j = 0; j < m; ++j) {
      off[j] = s;
      s += cursor[j];
      cursor[j] = off[j];
    }
    off[m] = s;
  }
  __syncthreads();
  for (t = tid; t < n; t += nt)
    seg[atomicAdd(&cursor[mach[t]], 1)] = t;
  __syncthreads();
  /* 3: rank inside the segment; the ranks are a permutation, so the writes do not collide */
  for (k = tid; k < n; k += nt) {
    const int me = seg[k];
    const int b = off[mach[me]], e = off[mach[me] + 1], jm = mach[me];
    int r_idx = 0, r_spt = 0;
    const double em = etc[(size_t)me * m + jm];
    for (int q = b; q < e; ++q) {
      const int u = seg[q];
      r_idx += u < me;
      if (spt)
        r_spt += devo__etc_spt_less(etc[(size_t)u * m + jm], u, em, me);
    }
    byidx[b + r_idx] = me;
    if (spt)
      byspt[b + r_spt] = me;
  }
  __syncthreads();
  /* 4: per machine, the CPU's additions in the CPU's order */
  for (j = tid; j < m; j += nt) {
    const double w = v->ready ? v->ready[j] : 0.0;
    double c = w, f = 0.0;
    for (k = off[j]; k < off[j + 1]; ++k) {
      c += etc[(size_t)byidx[k] * m + j];
      if (!spt)
        f += c;
    }
    comp[j] = c;
    if (spt) {
      double c2 = w;
      for (k = off[j]; k < off[j + 1]; ++k) {
        c2 += etc[(size_t)byspt[k] * m + j];
        f += c2;
      }
    }
    fsum[j] = f;
    local_max = c > local_max ? c : local_max;
  }
  /* 5: makespan (block_max synchronises, so fsum is complete afterwards), flowtime in order */
  {
    const double makespan = devo__block_max(local_max, red);
    if (tid == 0) {
      double ft = 0.0;
      for (j = 0; j < m; ++j)
        ft += fsum[j];
      result[0] = ft;
    }
    __syncthreads();
    const double flowtime = result[0];
    if (makespan_out)
      *makespan_out = makespan;
    if (flowtime_out)
      *flowtime_out = flowtime;
    const double obj = devo__etc_objective(v->lambda, makespan, flowtime, m);
    __syncthreads(); /* work may be reused by the caller right after the return */
    return obj;
  }
}

/* The same, reading the ETC matrix from v->etc (global memory). */
__device__ inline double devo__etc_eval_block(const devo__pview *v, const double *x,
                                              double *work, double *red, double *makespan_out,
                                              double *flowtime_out)
{
  return devo__etc_eval_block_etc(v, v->etc, x, work, red, makespan_out, flowtime_out);
}

#endif /* DEVO_ETC_DEVICE_CUH */
