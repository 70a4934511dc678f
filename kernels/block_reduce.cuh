/* SPDX-License-Identifier: MIT */
/* block_reduce.cuh: deterministic block-wide reductions for the evaluation kernels.
 * The order of operations is fixed (warp shuffles in a butterfly, then warp 0 over the warp
 * partials), so a result depends only on the inputs and blockDim.x, never on timing: two runs of
 * the same launch give the same bits. Every thread of the block must call these (they contain
 * __syncthreads), and every thread receives the result. red: shared scratch of at least 33
 * doubles, not used by anything else between the call and its return. blockDim.x is a multiple of
 * 32 (the launch configuration guarantees it). */
#ifndef DEVO_BLOCK_REDUCE_CUH
#define DEVO_BLOCK_REDUCE_CUH

enum { DEVO__RED_SUM = 0, DEVO__RED_PROD = 1, DEVO__RED_MAX = 2, DEVO__RED_MIN = 3 };

template <int OP> __device__ __forceinline__ double devo__red_op(double a, double b)
{
  if (OP == DEVO__RED_SUM)
    return a + b;
  if (OP == DEVO__RED_PROD)
    return a * b;
  if (OP == DEVO__RED_MAX)
    return a > b ? a : b;
  return a < b ? a : b;
}

template <int OP> __device__ __forceinline__ double devo__warp_reduce(double v)
{
  for (int off = 16; off > 0; off >>= 1)
    v = devo__red_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

/* devo__warp_reduce's sum of a and, side by side (two independent chains), its sum or, with
 * prod, product of b: the same bits as two calls, in about the time of one. */
__device__ __forceinline__ void devo__warp_reduce2(double &a, double &b, bool prod)
{
  for (int off = 16; off > 0; off >>= 1) {
    const double a2 = __shfl_xor_sync(0xffffffffu, a, off);
    const double b2 = __shfl_xor_sync(0xffffffffu, b, off);
    a = devo__red_op<DEVO__RED_SUM>(a, a2);
    b = prod ? devo__red_op<DEVO__RED_PROD>(b, b2) : devo__red_op<DEVO__RED_SUM>(b, b2);
  }
}

template <int OP> __device__ double devo__block_reduce(double v, double *red)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  v = devo__warp_reduce<OP>(v);
  __syncthreads(); /* red may still be read by a previous reduction */
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    double w = lane < nwarps ? red[lane]
                             : (OP == DEVO__RED_PROD ? 1.0 : (OP == DEVO__RED_SUM ? 0.0 : red[0]));
    w = devo__warp_reduce<OP>(w);
    if (lane == 0)
      red[32] = w;
  }
  __syncthreads();
  return red[32];
}

__device__ __forceinline__ double devo__block_sum(double v, double *red)
{
  return devo__block_reduce<DEVO__RED_SUM>(v, red);
}
__device__ __forceinline__ double devo__block_prod(double v, double *red)
{
  return devo__block_reduce<DEVO__RED_PROD>(v, red);
}
__device__ __forceinline__ double devo__block_max(double v, double *red)
{
  return devo__block_reduce<DEVO__RED_MAX>(v, red);
}

#endif /* DEVO_BLOCK_REDUCE_CUH */
