/* SPDX-License-Identifier: MIT */
/* shade_shrink.cuh: L-SHADE's population size reduction on the launch path (kernels/gpu_shade.cu):
 * the survivors compacted in index order, the archive's removals planned on indices by one thread,
 * then the moved rows copied. */
#ifndef DEVO_SHADE_SHRINK_CUH
#define DEVO_SHADE_SHRINK_CUH

/* L-SHADE's reduction of buffer cur (np individuals, ranks in h.rank) to its np_next best, in
 * index order (new index = survivors with a lower old index), into buffer cur ^ 1. Block per
 * old index. */
__global__ void devo__k_sh_compact(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np,
                                   int np_next)
{
  __shared__ int part[32];
  if (devo__gpu_done_before(a, gen))
    return;
  const size_t d = (size_t)a.dim;
  for (int i = (int)blockIdx.x; i < np; i += (int)gridDim.x) {
    if (h.rank[i] >= np_next)
      continue; /* uniform over the block */
    int cnt = 0;
    for (int j = (int)threadIdx.x; j < i; j += (int)blockDim.x)
      cnt += h.rank[j] < np_next;
    for (int off = 16; off > 0; off >>= 1)
      cnt += __shfl_xor_sync(0xffffffffu, cnt, off);
    if ((threadIdx.x & 31) == 0)
      part[threadIdx.x >> 5] = cnt;
    __syncthreads();
    int ni = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w)
      ni += part[w];
    __syncthreads(); /* part is rewritten by the next index */
    const double *x = h.pop[cur] + (size_t)i * d;
    double *y = h.pop[cur ^ 1] + (size_t)ni * d;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
      y[j] = x[j];
    if (threadIdx.x == 0) {
      h.fit[cur ^ 1][ni] = h.fit[cur][i];
      h.order[h.rank[i]] = ni; /* the survivors keep their ranks: the next generation's order */
    }
  }
}

/* L-SHADE's archive shrink to cap after generation gen: the removals (de_shade.h's draws) on
 * indices, by one thread: ids[t] = the row that ends in slot t (t < the new size). */
__global__ void devo__k_sh_shrink_plan(devo__gpu_args a, devo__sh_dev h, uint32_t gen, uint32_t cap)
{
  if (devo__gpu_done_before(a, gen) || threadIdx.x != 0)
    return;
  uint32_t asz = h.ctl->asz;
  h.ctl->shrunk = 0u;
  if (asz <= cap)
    return;
  for (uint32_t t = 0; t < asz; ++t)
    h.ids[t] = (int)t;
  for (uint32_t t = 0; asz > cap; ++t) {
    const uint32_t s = devo__sh_arc_remove_slot(a.seed, gen, t, asz);
    h.ids[s] = h.ids[asz - 1u];
    asz--;
  }
  h.ctl->asz = asz;
  h.ctl->shrunk = 1u;
}

/* The rows the shrink moved: slot t < |A| takes row ids[t] (>= |A| whenever ids[t] != t). */
__global__ void devo__k_sh_shrink_copy(devo__gpu_args a, devo__sh_dev h, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen) || !h.ctl->shrunk)
    return;
  const size_t d = (size_t)a.dim;
  const int n = (int)h.ctl->asz;
  for (int t = (int)blockIdx.x; t < n; t += (int)gridDim.x) {
    const int from = h.ids[t];
    if (from == t)
      continue;
    const double *x = h.arc + (size_t)from * d;
    double *y = h.arc + (size_t)t * d;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
      y[j] = x[j];
  }
}

#endif /* DEVO_SHADE_SHRINK_CUH */
