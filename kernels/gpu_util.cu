/* SPDX-License-Identifier: MIT */
/* gpu_util.cu: the kernels both designs share.
 * Versions:
 *   devo__k_mig_take, devo__k_mig_put   the GPU islands' migration (engine/islands.c's rule, all
 *                    islands in two launches): every migrant copied aside first, then block k
 *                    finds island k's worst (the highest value, the lowest index among equals)
 *                    and puts its migrant there where the migrant is lower.
 *   devo__k_init     initial population (devo__de_init per coordinate, the problem's seed vectors
 *                    over the first individuals) and its evaluation; group per vector (block
 *                    kinds: one vector per block, matrix staged when configured).
 *   devo__k_best     best value and its lowest index (the CPU's tie rule) in one launch: a
 *                    grid-stride pass, block partials, the last block to finish reduces them.
 *   devo__k_setbase, devo__k_advance   the generation base that graph-mode kernels count from.
 */
#include "gpu_common.cuh"

extern __shared__ double devo__sm[];

template <int KIND>
__global__ void __launch_bounds__(1024)
    devo__k_init(devo__gpu_args a, const double *seeds, int nseeds)
{
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  const int i = (int)blockIdx.x * a.vpb + grp, d = a.dim;
  const bool active = i < a.np;
  double *x = a.pop0 + (size_t)(active ? i : 0) * (size_t)d;
  if (active) {
    for (int j = lane; j < d; j += a.lanes)
      x[j] = i < nseeds ? seeds[(size_t)i * d + j]
                        : devo__de_init(a.seed, (uint32_t)i, (uint32_t)j, a.v.lower, a.v.upper);
  }
  devo__grp_sync(a.lanes); /* rosenbrock reads the neighbour's coordinate */
  devo__gpu_stage<KIND>(a, devo__sm);
  const double f = devo__gpu_eval<KIND>(a, x, active, lane, devo__sm, i);
  if (active && lane == 0)
    a.fit[i] = f;
}

/* (v, i) lexicographic minimum: the lowest index among equal values. */
__device__ __forceinline__ void devo__pair_min(double &v, int &i, double ov, int oi)
{
  if (ov < v || (ov == v && oi < i)) {
    v = ov;
    i = oi;
  }
}

/* Block-wide pair minimum; the result is valid in thread 0. blockDim.x is a multiple of 32. */
__device__ void devo__block_pair_min(double &v, int &i)
{
  __shared__ double sv[32];
  __shared__ int si[32];
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const int nwarps = (int)blockDim.x >> 5;
  for (int off = 16; off > 0; off >>= 1)
    devo__pair_min(v, i, __shfl_xor_sync(0xffffffffu, v, off),
                   __shfl_xor_sync(0xffffffffu, i, off));
  if (lane == 0) {
    sv[warp] = v;
    si[warp] = i;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < nwarps ? sv[lane] : devo__gpu_inf();
    i = lane < nwarps ? si[lane] : 0x7fffffff;
    for (int off = 16; off > 0; off >>= 1)
      devo__pair_min(v, i, __shfl_xor_sync(0xffffffffu, v, off),
                     __shfl_xor_sync(0xffffffffu, i, off));
  }
}

__global__ void devo__k_best(devo__gpu_args a)
{
  __shared__ bool last;
  double v = devo__gpu_inf();
  int bi = 0x7fffffff;
  for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < a.np;
       i += (int)(gridDim.x * blockDim.x))
    devo__pair_min(v, bi, a.fit[i], i);
  devo__block_pair_min(v, bi);
  if (threadIdx.x == 0) {
    a.part_val[blockIdx.x] = v;
    a.part_idx[blockIdx.x] = bi;
    __threadfence();
    last = atomicAdd(&a.ctl->done_blocks, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  v = devo__gpu_inf();
  bi = 0x7fffffff;
  for (int b = (int)threadIdx.x; b < (int)gridDim.x; b += (int)blockDim.x)
    devo__pair_min(v, bi, __ldcg(a.part_val + b), __ldcg(a.part_idx + b));
  devo__block_pair_min(v, bi);
  if (threadIdx.x == 0) {
    /* all values +inf: index 0, like the CPU's scan */
    a.ctl->best = v;
    a.ctl->best_idx = bi == 0x7fffffff ? 0 : bi;
    a.ctl->done_blocks = 0;
  }
}

__global__ void devo__k_setbase(devo__gpu_args a, unsigned long long base)
{
  a.ctl->base = base;
}

__global__ void devo__k_advance(devo__gpu_args a, unsigned int n)
{
  a.ctl->base += n;
}

/* block k: island k's migrant (its source's best row) into stage row k */
__global__ void devo__k_mig_take(const devo__gpu_mig *m, double *stage, int d)
{
  const devo__gpu_mig mk = m[blockIdx.x];
  for (int j = (int)threadIdx.x; j < d; j += (int)blockDim.x)
    stage[(size_t)blockIdx.x * d + j] = mk.src_row[j];
}

/* block k (DEVO__FLAT_THREADS threads): island k's worst, then the migrant where it is lower */
__global__ void __launch_bounds__(DEVO__FLAT_THREADS)
    devo__k_mig_put(const devo__gpu_mig *m, const double *stage, int d)
{
  __shared__ double sv[DEVO__FLAT_THREADS];
  __shared__ int si[DEVO__FLAT_THREADS];
  const devo__gpu_mig mk = m[blockIdx.x];
  const int t = (int)threadIdx.x;
  double v = -INFINITY;
  int w = mk.np;
  for (int i = t; i < mk.np; i += DEVO__FLAT_THREADS)
    if (mk.fit[i] > v || w == mk.np) { /* ascending i: the first of equals stays */
      v = mk.fit[i];
      w = i;
    }
  sv[t] = v;
  si[t] = w;
  __syncthreads();
  for (int h = DEVO__FLAT_THREADS / 2; h > 0; h >>= 1) {
    if (t < h && (sv[t + h] > sv[t] || (sv[t + h] == sv[t] && si[t + h] < si[t]))) {
      sv[t] = sv[t + h];
      si[t] = si[t + h];
    }
    __syncthreads();
  }
  w = si[0];
  if (!(mk.f < sv[0]))
    return; /* the island keeps its worst: the migrant is not better */
  for (int j = t; j < d; j += DEVO__FLAT_THREADS)
    mk.pop[(size_t)w * d + j] = stage[(size_t)blockIdx.x * d + j];
  if (t == 0)
    mk.fit[w] = mk.f;
}

cudaError_t devo__gpu_mig_launch(const devo__gpu_mig *d_m, double *d_stage, int k, int d,
                                 cudaStream_t st)
{
  void *args[] = {&d_m, &d_stage, &d};
  cudaError_t e = cudaLaunchKernel((const void *)devo__k_mig_take, dim3((unsigned)k),
                                   dim3(DEVO__FLAT_THREADS), args, 0, st);
  if (e == cudaSuccess)
    e = cudaLaunchKernel((const void *)devo__k_mig_put, dim3((unsigned)k), dim3(DEVO__FLAT_THREADS),
                         args, 0, st);
  return e;
}

int devo__gpu_util_fill(int kind, devo__gpu_ktab *t)
{
  switch (kind) {
#define DEVO__UTIL_CASE(K)                                                                         \
  case K:                                                                                          \
    t->init = (const void *)devo__k_init<K>;                                                       \
    break;
    DEVO__GPU_FOR_KINDS(DEVO__UTIL_CASE)
    DEVO__GPU_FOR_GENERAL_KINDS(DEVO__UTIL_CASE)
    DEVO__GPU_FOR_BLOCK_KINDS(DEVO__UTIL_CASE)
#undef DEVO__UTIL_CASE
  default:
    return -1;
  }
  t->best = (const void *)devo__k_best;
  t->setbase = (const void *)devo__k_setbase;
  t->advance = (const void *)devo__k_advance;
  return 0;
}
