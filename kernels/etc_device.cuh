/* SPDX-License-Identifier: MIT */
/* etc_device.cuh: block-level GPU evaluation of independent-task schedules on an ETC matrix:
 * one schedule per thread block, one thread per task (threads stride over tasks when n exceeds
 * the block), as in Kromer et al., GECCO 2011. The result is bit for bit the value of the CPU
 * reference devo__etc_eval (problems/etc.h), for both task orders:
 *
 *   1. decode: mach[t] = devo__etc_machine(x_t, m), and gather ev[t] = etc[t][mach[t]] (every
 *      thread loads at once, so the serial walks below read shared memory only); count the tasks
 *      of each machine (integer atomics: the counts do not depend on timing);
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
 * Versions: devo__etc_eval_block_etc (v1, below: atomics and an O(k_j) rank per task) and
 * devo__etc_eval_block2 (v2, the default of the backend: a stable partition by warp match, O(n));
 * both give the CPU's bits.
 *
 * Memory: work holds devo__etc_block_work_doubles(n, m, order) doubles (v2:
 * devo__etc_block_work2_doubles) (shared memory when it
 * fits, else a per-block slice of global memory); red is block_reduce.cuh's shared scratch (at
 * least 33 doubles). etc is v->etc or a copy the persistent kernel staged in shared memory once
 * per chunk (gpu_common.cuh's devo__gpu_stage, n*m doubles). Requires blockDim.x to be a multiple
 * of 32; every thread of the block must make the call (it contains __syncthreads). */
#ifndef DEVO_ETC_DEVICE_CUH
#define DEVO_ETC_DEVICE_CUH

#include "../problems/etc.h"
#include "block_reduce.cuh"

/* Doubles of work memory: completion and flowtime per machine (2m), two result slots, the
 * gathered ETC values ev[n], then ints: mach[n], offsets[m + 1], cursor[m], segment[n], sorted[n]
 * (and a second sorted[n] for SPT), rounded up to whole doubles. */
__host__ __device__ inline size_t devo__etc_block_work_doubles(int n, int m, int order)
{
  size_t ints = (size_t)n * (order == DEVO__ORDER_SPT ? 4u : 3u) + 2u * (size_t)m + 1u;
  return 2u * (size_t)m + 2u + (size_t)n + (ints + 1u) / 2u;
}

/* Step 5 of both block evaluators: makespan (block_max synchronises, so every fsum[j] is
 * complete afterwards), flowtime added in machine order by one thread, the objective. result:
 * one double of shared work. Ends with a barrier: work may be reused right after the return. */
__device__ inline double devo__etc_blk_finish(const devo__pview *v, double local_max,
                                              const double *fsum, double *result, double *red)
{
  const double makespan = devo__block_max(local_max, red);
  if (threadIdx.x == 0) {
    double ft = 0.0;
    for (int j = 0; j < v->nmach; ++j)
      ft += fsum[j];
    result[0] = ft;
  }
  __syncthreads();
  const double obj = devo__etc_objective(v->lambda, makespan, result[0], v->nmach);
  __syncthreads();
  return obj;
}

/* Evaluates the schedule x (n doubles, typically in shared memory) with the ETC values at etc
 * (v->etc or a staged copy). Every thread gets the objective. */
__device__ inline double devo__etc_eval_block_etc(const devo__pview *v, const double *etc,
                                                  const double *x, double *work, double *red)
{
  const int n = v->ntasks, m = v->nmach, spt = v->order == DEVO__ORDER_SPT;
  const int tid = threadIdx.x, nt = blockDim.x;
  double *comp = work, *fsum = work + m, *result = work + 2 * m;
  double *ev = work + 2 * m + 2; /* n: etc of each task on its machine */
  int *mach = (int *)(ev + n);
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
    ev[t] = etc[(size_t)t * m + j];
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
    const int b = off[mach[me]], e = off[mach[me] + 1];
    int r_idx = 0, r_spt = 0;
    const double em = ev[me];
    for (int q = b; q < e; ++q) {
      const int u = seg[q];
      r_idx += u < me;
      if (spt)
        r_spt += devo__etc_spt_less(ev[u], u, em, me);
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
      c += ev[byidx[k]];
      if (!spt)
        f += c;
    }
    comp[j] = c;
    if (spt) {
      double c2 = w;
      for (k = off[j]; k < off[j + 1]; ++k) {
        c2 += ev[byspt[k]];
        f += c2;
      }
    }
    fsum[j] = f;
    local_max = c > local_max ? c : local_max;
  }
  return devo__etc_blk_finish(v, local_max, fsum, result, red);
}

/* ---- version 2: stable partition by warp match ---------------------------------------------
 * The same values as devo__etc_eval_block_etc, with O(n) work instead of O(sum_j k_j^2) and no
 * atomics: each warp owns a contiguous range of tasks (whole chunks of 32) and walks it chunk by
 * chunk; __match_any_sync groups the lanes of a chunk by machine, so a task's rank among the
 * tasks of its machine inside the warp's range is a running count plus the peers below it. A
 * column scan over the warps and a scan over the machines give each task its place in its
 * machine's segment in task-index order (the order of the CPU's sums), where its ETC value is
 * written, so the per-machine walks read one contiguous array. SPT still ranks inside each
 * segment by (etc, index) (O(k_j) per task).
 * Work (doubles): comp[m], fsum[m], result[2], ev[n], sev[n] (segments, index order), SPT: pev[n]
 * (segments, SPT order); then ints: mach[n], rank[n], off[m + 1], tot[m], cnt[R * m] with
 * R = min(32, ceil(n / 32)) ranges, SPT: byidx[n]. */
__host__ __device__ inline size_t devo__etc_block_work2_doubles(int n, int m, int order)
{
  const size_t spt = order == DEVO__ORDER_SPT, nc = ((size_t)n + 31u) / 32u;
  const size_t ranges = nc < 32u ? nc : 32u;
  size_t ints = (2u + spt) * (size_t)n + 2u * (size_t)m + 1u + ranges * (size_t)m;
  return 2u * (size_t)m + 2u + (2u + spt) * (size_t)n + (ints + 1u) / 2u;
}

__device__ inline double devo__etc_eval_block2(const devo__pview *v, const double *etc,
                                               const double *x, double *work, double *red)
{
  const int n = v->ntasks, m = v->nmach, spt = v->order == DEVO__ORDER_SPT;
  const int tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, warp = tid >> 5;
  const int nchunks = (n + 31) >> 5;
  const int nranges = nchunks < 32 ? nchunks : 32;
  /* chunks per range: every warp below nranges gets L chunks (the last range may be short) */
  const int per = (nchunks + (nt >> 5) - 1) / (nt >> 5);
  const int L = per < 1 ? 1 : per; /* ranges with tasks: ceil(nchunks / L) <= nranges */
  double *comp = work, *fsum = work + m, *result = work + 2 * m;
  double *ev = result + 2, *sev = ev + n, *pev = sev + n; /* pev: SPT only */
  int *mach = (int *)(sev + n + (spt ? n : 0));
  int *rank = mach + n, *off = rank + n, *tot = off + m + 1, *cnt = tot + m;
  int *byidx = cnt + (size_t)nranges * m; /* SPT only */
  double local_max = -1.0;
  int t, j, k;

  for (k = tid; k < nranges * m; k += nt)
    cnt[k] = 0;
  __syncthreads();
  /* 1: decode, gather, and rank inside the warp's range */
  if (warp * L < nchunks) {
    int *row = cnt + (size_t)warp * m;
    const int c_end = (warp + 1) * L < nchunks ? (warp + 1) * L : nchunks;
    for (int c = warp * L; c < c_end; ++c) {
      t = (c << 5) + lane;
      const bool ok = t < n;
      j = ok ? devo__etc_machine(x[t], m) : 0;
      const unsigned peers = __match_any_sync(0xffffffffu, ok ? j : m + lane);
      const int below = __popc(peers & ((1u << lane) - 1u));
      int base = 0;
      if (ok) {
        mach[t] = j;
        ev[t] = etc[(size_t)t * m + j];
        base = row[j];
      }
      __syncwarp();
      if (ok) {
        rank[t] = base + below;
        if (below == 0)
          row[j] = base + __popc(peers);
      }
      __syncwarp();
    }
  }
  __syncthreads();
  /* 2: per machine, the ranges' counts become their starts (column scan), then the offsets */
  for (j = tid; j < m; j += nt) {
    int sum = 0;
    for (int r = 0; r < nranges; ++r) {
      const int c = cnt[(size_t)r * m + j];
      cnt[(size_t)r * m + j] = sum;
      sum += c;
    }
    tot[j] = sum;
  }
  __syncthreads();
  if (tid == 0) {
    int sum = 0;
    for (j = 0; j < m; ++j) {
      off[j] = sum;
      sum += tot[j];
    }
    off[m] = sum;
  }
  __syncthreads();
  /* 3: each task to its place: its machine's segment, task-index order */
  for (t = tid; t < n; t += nt) {
    j = mach[t];
    const int pos = off[j] + cnt[(size_t)((t >> 5) / L) * m + j] + rank[t];
    sev[pos] = ev[t];
    if (spt)
      byidx[pos] = t;
  }
  __syncthreads();
  if (spt) {
    for (k = tid; k < n; k += nt) {
      const int me = byidx[k], b = off[mach[me]], e = off[mach[me] + 1];
      const double em = sev[k];
      int r = 0;
      for (int q = b; q < e; ++q)
        r += devo__etc_spt_less(sev[q], byidx[q], em, me);
      pev[b + r] = em;
    }
    __syncthreads();
  }
  /* 4: per machine, the CPU's additions in the CPU's order */
  for (j = tid; j < m; j += nt) {
    const double w = v->ready ? v->ready[j] : 0.0;
    const int b = off[j], e = off[j + 1];
    double c = w, f = 0.0;
    if (!spt) {
#pragma unroll 4
      for (k = b; k < e; ++k) {
        c += sev[k];
        f += c;
      }
    } else {
      double c2 = w;
#pragma unroll 4
      for (k = b; k < e; ++k) {
        c += sev[k];
        c2 += pev[k];
        f += c2;
      }
    }
    comp[j] = c;
    fsum[j] = f;
    local_max = c > local_max ? c : local_max;
  }
  return devo__etc_blk_finish(v, local_max, fsum, result, red);
}

#endif /* DEVO_ETC_DEVICE_CUH */
