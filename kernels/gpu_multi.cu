/* SPDX-License-Identifier: MIT */
/* gpu_multi.cu: the multikernel design, Janssen et al.'s "All-GPU DE" (2024): one kernel per DE
 * step, launched from the host every generation, the trial population in global memory. It is
 * deliberately simple and kept as the comparison point for the fused design; it computes the
 * same numbers (same operators, same counters, same reduction as the fused kernel).
 * Versions (one each, run in this order every generation):
 *   devo__k_mk_idx      thread per individual: (r1, r2, r3, j_rand) into idx0
 *   devo__k_mk_trial    thread per coordinate: mutation + crossover into trial
 *   devo__k_mk_eval     group per vector: f(trial) into tfit
 *   devo__k_mk_replace  group per vector: the winner into the other buffer, fitness, target flag
 * Each kernel returns at once for a generation after the one that reached the target.
 * devo__k_mk_eval serves every kind (block kinds: one vector per block, matrix staged per launch
 * when configured); it is also the kernel of devo__gpu_eval_points (kernels/gpu_problem.cu). */
#include "gpu_common.cuh"

extern __shared__ double devo__sm[];

__global__ void devo__k_mk_idx(devo__gpu_args a, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen))
    return;
  devo__gpu_fill_idx(a, gen, a.idx0);
}

__global__ void devo__k_mk_trial(devo__gpu_args a, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen))
    return;
  const double *src = (gen & 1u) ? a.pop0 : a.pop1;
  const int64_t d = a.dim, n = (int64_t)a.np * d;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int i = (int)(e / d), j = (int)(e - (int64_t)i * d);
    const devo__de_idx r = a.idx0[i];
    a.trial[e] = devo__de_trial_coord(a.seed, gen, (uint32_t)i, (uint32_t)j, r, src[e],
                                      src[r.r1 * d + j], src[r.r2 * d + j], src[r.r3 * d + j], a.f,
                                      a.cr, a.v.lower, a.v.upper, a.bounds);
  }
}

template <int KIND>
__global__ void __launch_bounds__(1024) devo__k_mk_eval(devo__gpu_args a, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen))
    return;
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  const int i = (int)blockIdx.x * a.vpb + grp;
  const bool active = i < a.np;
  devo__gpu_stage<KIND>(a, devo__sm);
  const double f = devo__gpu_eval<KIND>(a, a.trial + (size_t)(active ? i : 0) * a.dim, active, lane,
                                        devo__sm, i);
  if (active && lane == 0)
    a.tfit[i] = f;
}

__global__ void __launch_bounds__(1024) devo__k_mk_replace(devo__gpu_args a, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen))
    return;
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  const int i = (int)blockIdx.x * a.vpb + grp, d = a.dim;
  const bool active = i < a.np;
  double fo = 0.0, ft = 0.0;
  if (active) {
    const double *src = (gen & 1u) ? a.pop0 : a.pop1;
    double *dst = (gen & 1u) ? a.pop1 : a.pop0;
    const size_t row = (size_t)i * d;
    fo = a.fit[i];
    ft = a.tfit[i];
    const double *from = ft <= fo ? a.trial + row : src + row;
    for (int j = lane; j < d; j += a.lanes)
      dst[row + j] = from[j];
  }
  devo__grp_sync(a.lanes); /* every lane has read fit[i] before lane 0 rewrites it */
  if (active && lane == 0) {
    if (ft <= fo)
      a.fit[i] = ft;
    devo__gpu_note_target(a, ft <= fo ? ft : fo, gen);
  }
}

int devo__gpu_multi_fill(int kind, devo__gpu_ktab *t)
{
  switch (kind) {
#define DEVO__MULTI_CASE(K)                                                                        \
  case K:                                                                                          \
    t->mk_eval = (const void *)devo__k_mk_eval<K>;                                                 \
    break;
    DEVO__GPU_FOR_KINDS(DEVO__MULTI_CASE)
    DEVO__GPU_FOR_GENERAL_KINDS(DEVO__MULTI_CASE)
    DEVO__GPU_FOR_BLOCK_KINDS(DEVO__MULTI_CASE)
#undef DEVO__MULTI_CASE
  default:
    return -1;
  }
  t->mk_idx = (const void *)devo__k_mk_idx;
  t->mk_trial = (const void *)devo__k_mk_trial;
  t->mk_replace = (const void *)devo__k_mk_replace;
  return 0;
}
