/* SPDX-License-Identifier: MIT */
/* shade_rank.cuh: the pbest ranks (kernels/gpu_shade.cu): the exact ranks of the whole population
 * (O(NP^2), tiled through shared memory) for the launch paths, and the persistent kernel's ranks
 * of the best npb only, by one warp. */
#ifndef DEVO_SHADE_RANK_CUH
#define DEVO_SHADE_RANK_CUH

/* Ranks of fit[0..np) for i = first + threadIdx.x, first + step + threadIdx.x, ...: rank_i and
 * order[rank_i] = i. Every thread of the block calls it (the loops are uniform); tf: blockDim.x
 * doubles of shared memory, the fitness tiled through it. */
__device__ void devo__sh_rank_range(const devo__sh_dev &h, const double *fit, int np, int first,
                                    int step, double *tf)
{
  const int bd = (int)blockDim.x, tid = (int)threadIdx.x;
  for (int i0 = first; i0 < np; i0 += step) {
    const int i = i0 + tid;
    const double fi = i < np ? fit[i] : 0.0;
    int r = 0;
    for (int t0 = 0; t0 < np; t0 += bd) {
      const int n = np - t0 < bd ? np - t0 : bd;
      __syncthreads(); /* the previous tile is read */
      if (tid < n)
        tf[tid] = fit[t0 + tid];
      __syncthreads();
      for (int k = 0; k < n; ++k)
        r += devo__sh_before(tf[k], (uint32_t)(t0 + k), fi, (uint32_t)i);
    }
    if (i < np) {
      h.rank[i] = r;
      h.order[r] = i;
    }
  }
}

/* Ranks of the np fitness values of buffer cur. Grid of ceil(np / DEVO__SH_RANK_THREADS) blocks. */
__global__ void __launch_bounds__(DEVO__SH_RANK_THREADS)
    devo__k_sh_rank(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np)
{
  __shared__ double tf[DEVO__SH_RANK_THREADS];
  if (devo__gpu_done_before(a, gen))
    return;
  devo__sh_rank_range(h, h.fit[cur], np, (int)(blockIdx.x * blockDim.x),
                      (int)(gridDim.x * blockDim.x), tf);
}

/* The population's first npb in the rank order ((f, index) ascending) into ord[0..npb), from fit
 * (shared memory), by one warp. (*tf, *ti) is the key of rank npb - 1 of the previous ranking of
 * the same indices, or (+inf, UINT32_MAX) for none: since a selection never raises an
 * individual's fitness, the npb keys at or below it are still there, so only the candidates at or
 * below it can rank below npb, and their ranks among themselves are their ranks in the
 * population. The new key of rank npb - 1 goes to (*tf, *ti). cand, cf: np ints and doubles. Every
 * lane of the warp calls it; the caller synchronises the block before ord is read. */
__device__ void devo__sh_top_warp(const double *fit, int np, int npb, int *cand, double *cf,
                                  int *ord, double *tf, uint32_t *ti)
{
  const int lane = (int)threadIdx.x & 31;
  const double t_f = *tf;
  const uint32_t t_i = *ti;
  int nc = 0;
  for (int c0 = 0; c0 < np; c0 += 32) {
    const int j = c0 + lane;
    const double fj = j < np ? fit[j] : 0.0;
    const bool in = j < np && !devo__sh_before(t_f, t_i, fj, (uint32_t)j);
    const unsigned int bal = __ballot_sync(0xffffffffu, in);
    if (in) {
      const int q = nc + __popc(bal & ((1u << lane) - 1u));
      cand[q] = j;
      cf[q] = fj;
    }
    nc += __popc(bal);
  }
  __syncwarp();
  for (int t = lane; t < nc; t += 32) {
    const int j = cand[t];
    const double fj = cf[t];
    int r = 0;
    for (int u = 0; u < nc; ++u)
      r += devo__sh_before(cf[u], (uint32_t)cand[u], fj, (uint32_t)j);
    if (r < npb)
      ord[r] = j;
  }
  __syncwarp();
  if (lane == 0) {
    *ti = (uint32_t)ord[npb - 1];
    *tf = fit[ord[npb - 1]];
  }
}

#endif /* DEVO_SHADE_RANK_CUH */
