/* SPDX-License-Identifier: MIT */
/* gpu_fused.cu: the fused generation kernels (cudaDEi's kernel(MCER), Qin et al. 2012): indices,
 * mutation + crossover into a trial vector, evaluation by a group reduction, and replacement
 * into the other population buffer, in one pass per vector.
 *
 * Versions (all compute the same thing; kernels/gpu_backend.cu picks one, BENCHMARKS.md has the
 * measurements):
 *   devo__k_gen      one generation per launch, for CUDA-graph chunks; the generation number is
 *                    ctl->base + k so one captured graph serves every chunk.
 *   devo__k_persist  a persistent cooperative kernel running a whole chunk, one grid barrier per
 *                    generation (synchronous DE needs every trial of generation g before any of
 *                    g + 1); the barrier is devo's split arrive/wait (gpu_common.cuh) with the
 *                    next indices computed in between, or cooperative_groups' grid.sync().
 *   devo__k_idx      kernel(P): (r1, r2, r3, j_rand) of every individual for one generation,
 *                    launched one generation ahead on a second stream; the generation kernels
 *                    then read the indices instead of computing them (args.idx0 != NULL).
 * Trial storage: shared memory when it fits (opt-in above 48 KB), else the destination row in
 * global memory, rewritten with the target when the trial loses.
 * Problem kinds: the classic and SOCO functions (group per vector) and the block kinds CEC F01..F10
 * and ETC scheduling (one vector per block, cec_device.cuh / etc_device.cuh; the matrix staged in
 * shared memory at kernel entry when the configuration chose it: once per chunk in
 * devo__k_persist, once per launch in devo__k_gen). */
#include <cooperative_groups.h>

#include "gpu_common.cuh"

namespace cg = cooperative_groups;

extern __shared__ double devo__sm[];

/* One vector of generation gen: trial i from the population of gen - 1 (pop[(gen - 1) & 1]) into
 * pop[gen & 1]. Every thread of the block calls this (the reductions synchronise). pre: the
 * indices when have_pre (computed while waiting at the grid barrier); by value, so that they stay
 * in registers. */
template <int KIND>
__device__ __forceinline__ void devo__fused_vector(const devo__gpu_args &a, uint32_t gen, int i,
                                                   int lane, double *s_trial, double *red,
                                                   devo__de_idx pre, bool have_pre)
{
  const bool active = i < a.np;
  const int d = a.dim, lanes = a.lanes;
  const double *src = (gen & 1u) ? a.pop0 : a.pop1;
  double *dst = (gen & 1u) ? a.pop1 : a.pop0;
  const size_t row = (size_t)(active ? i : 0) * (size_t)d;
  double *t = s_trial ? s_trial : dst + row;
  double fo = 0.0;
  if (active) {
    devo__de_idx r;
    if (have_pre)
      r = pre;
    else if (a.idx0)
      r = ((gen & 1u) ? a.idx1 : a.idx0)[i];
    else
      r = devo__de_indices(a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)d);
    /* read before any lane can write it back (the reduction below orders the two) */
    fo = a.fit[i];
    const double *xi = src + row, *x1 = src + (size_t)r.r1 * d, *x2 = src + (size_t)r.r2 * d,
                 *x3 = src + (size_t)r.r3 * d;
    for (int j = lane; j < d; j += lanes)
      t[j] = devo__de_trial_coord(a.seed, gen, (uint32_t)i, (uint32_t)j, r, xi[j], x1[j], x2[j],
                                  x3[j], a.f, a.cr, a.v.lower, a.v.upper, a.bounds);
  }
  devo__grp_sync(lanes);
  const double ft = devo__gpu_eval<KIND>(a, t, active, lane, red, i);
  if (active) {
    const bool acc = ft <= fo; /* the CPU's rule: the trial wins ties */
    const double *xi = src + row;
    double *xo = dst + row;
    if (s_trial) {
      for (int j = lane; j < d; j += lanes)
        xo[j] = acc ? t[j] : xi[j];
    } else if (!acc) {
      for (int j = lane; j < d; j += lanes)
        xo[j] = xi[j];
    }
    if (lane == 0) {
      if (acc)
        a.fit[i] = ft;
      devo__gpu_note_target(a, acc ? ft : fo, gen);
    }
  }
}

template <int KIND>
__global__ void __launch_bounds__(1024) devo__k_gen(devo__gpu_args a, uint32_t k)
{
  const uint32_t gen = (uint32_t)a.ctl->base + k;
  if (devo__gpu_done_before(a, gen))
    return;
  devo__gpu_stage<KIND>(a, devo__sm);
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  double *s_trial = a.trial_shared ? devo__sm + DEVO__RED_DOUBLES + (size_t)grp * a.dim : NULL;
  devo__de_idx none = {0u, 0u, 0u, 0u};
  devo__fused_vector<KIND>(a, gen, (int)blockIdx.x * a.vpb + grp, lane, s_trial, devo__sm, none,
                           false);
}

template <int KIND>
__global__ void __launch_bounds__(1024)
    devo__k_persist(devo__gpu_args a, uint32_t gen0, uint32_t ngens, int barrier)
{
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  double *s_trial = a.trial_shared ? devo__sm + DEVO__RED_DOUBLES + (size_t)grp * a.dim : NULL;
  const int64_t stride = (int64_t)gridDim.x * a.vpb;
  /* with one vector slot per block, the next generation's indices are computed while the block
   * waits at the barrier, off the critical path */
  const bool one_slot = stride >= a.np;
  const int i0 = (int)blockIdx.x * a.vpb + grp;
  devo__de_idx rn = {0u, 0u, 0u, 0u};
  bool have_rn = false;
  devo__gpu_stage<KIND>(a, devo__sm);
  for (uint32_t k = 1; k <= ngens; ++k) {
    const uint32_t gen = gen0 + k;
    for (int64_t b = (int64_t)blockIdx.x * a.vpb; b < a.np; b += stride)
      devo__fused_vector<KIND>(a, gen, (int)(b + grp), lane, s_trial, devo__sm, rn, have_rn);
    if (k == ngens)
      break; /* the end of the kernel is the last barrier */
    if (barrier == DEVO__BARRIER_CG) {
      cg::this_grid().sync();
    } else {
      devo__grid_arrive(&a.ctl->bar);
      if (one_slot && i0 < a.np) {
        rn = devo__de_indices(a.seed, gen + 1u, (uint32_t)i0, (uint32_t)a.np, (uint32_t)a.dim);
        have_rn = true;
      }
      devo__grid_wait(&a.ctl->bar, k * gridDim.x, barrier == DEVO__BARRIER_RELAXED);
    }
    if (devo__gpu_stopped(a, gen))
      break;
  }
}

__global__ void devo__k_idx(devo__gpu_args a, uint32_t k)
{
  const uint32_t gen = (uint32_t)a.ctl->base + k;
  devo__gpu_fill_idx(a, gen, (gen & 1u) ? a.idx1 : a.idx0);
}

int devo__gpu_fused_fill(int kind, devo__gpu_ktab *t)
{
  switch (kind) {
#define DEVO__FUSED_CASE(K)                                                                        \
  case K:                                                                                          \
    t->gen = (const void *)devo__k_gen<K>;                                                         \
    t->persist = (const void *)devo__k_persist<K>;                                                 \
    break;
    DEVO__GPU_FOR_KINDS(DEVO__FUSED_CASE)
    DEVO__GPU_FOR_GENERAL_KINDS(DEVO__FUSED_CASE)
    DEVO__GPU_FOR_BLOCK_KINDS(DEVO__FUSED_CASE)
#undef DEVO__FUSED_CASE
  default:
    return -1;
  }
  t->idx = (const void *)devo__k_idx;
  return 0;
}
