/* SPDX-License-Identifier: MIT */
/* cec_device.cuh: block-level GPU evaluation of the CEC functions F01..F10 (problems/cec.h): one
 * vector per thread block, one thread per coordinate (threads stride when dim > blockDim.x).
 *
 * The math is cec.h's (devo__cec_elem / devo__cec_finish / the composition helpers); this file
 * only distributes it: the shift-scale as an element-wise pass, the rotation as a block
 * matrix-vector product (thread i computes row i, summing over j in index order as the CPU does),
 * the per-element terms of each basic function one thread per element, reduced with the
 * deterministic block reductions of block_reduce.cuh. Hybrids evaluate their groups one after
 * another on the rotated vector, reading it through the shuffle (no permuted copy); compositions
 * evaluate their components one after another in the same call.
 *
 * Results agree with the CPU reference up to summation order and nvcc's fused multiply-adds
 * (about 1e-15 relative; the acceptance tolerance is 1e-12).
 *
 * Contract of devo__cec_eval_block_ex:
 * - called by every thread of the block, with uniform arguments (they contain __syncthreads);
 *   blockDim.x is a multiple of 32; every thread receives the value;
 * - x: the vector (dim doubles), in shared memory, not written during the call;
 * - work: shared scratch of devo__cec_scratch(dim) doubles (cec.h), free for the call;
 * - red: shared scratch for block_reduce.cuh (>= 33 doubles), free for the call;
 * - it takes the shift rows and matrices from the caller (e.g. copies staged in shared memory):
 *   shift = ncomp rows of dim doubles; element (i, j) of matrix k at rot[k * ms + i * rs + j * cs].
 *   Row-major: rs = ldm (>= dim), cs = 1, ms = dim * ldm. Transposed (each matrix stored
 *   column-major, rs = 1, cs = dim, ms = dim * dim): thread i then reads consecutive addresses
 *   with its neighbours, coalesced in global memory and free of bank conflicts in shared memory,
 *   with the same summation order. The backend (kernels/gpu_problem.cu) keeps them transposed.
 *   The plain version reads v->shift and v->rot (global memory, row-major).
 * The caller must __syncthreads() between writing x and the call; the call ends with every
 * thread past its last read of x and work only after the final reduction (so x and work may be
 * rewritten after a further __syncthreads()). */
#ifndef DEVO_CEC_DEVICE_CUH
#define DEVO_CEC_DEVICE_CUH

#include "../problems/cec.h"
#include "block_reduce.cuh"

/* z = M y, rows strided over the threads; M(i, j) at m[i * rs + j * cs]. */
__device__ inline void devo__cec_blk_matvec(const double *m, size_t rs, size_t cs, int d,
                                            const double *y, double *z)
{
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const double *row = m + (size_t)i * rs;
    double acc = 0.0;
#pragma unroll 4
    for (int j = 0; j < d; ++j)
      acc = acc + y[j] * row[(size_t)j * cs];
    z[i] = acc;
  }
}

/* g over the n values s * z[idx[l]] (idx NULL: s * z[l]); every thread gets the value. Each
 * thread accumulates its strided elements in order, then the block reduces the partials. */
__device__ inline double devo__cec_blk_basic(int fn, const double *z, const int *idx, int n,
                                             double s, double *red)
{
  const int mode = devo__cec_bmode(fn);
  double A = 0.0, B = mode == DEVO__CEC_B_PROD ? 1.0 : 0.0;
  for (int l = threadIdx.x; l < n; l += blockDim.x) {
    const int ln = l + 1 == n ? 0 : l + 1;
    double a, b;
    devo__cec_elem(fn, l, n, s * z[idx ? idx[l] : l], s * z[idx ? idx[ln] : ln], &a, &b);
    devo__cec_fold(mode, a, b, &A, &B);
  }
  A = devo__block_sum(A, red);
  if (mode == DEVO__CEC_B_SUM)
    B = devo__block_sum(B, red);
  else if (mode == DEVO__CEC_B_PROD)
    B = devo__block_prod(B, red);
  return devo__cec_finish(fn, n, A, B);
}

__device__ inline double devo__cec_eval_block_ex(const devo__pview *v, const double *x,
                                                 double *work, double *red, const double *shift,
                                                 const double *rot, size_t rs, size_t cs, size_t ms)
{
  const int id = v->cec_id, d = v->dim, fam = devo__cec_family(id);
  const int n = devo__cec_nparts(id);
  double *y = work, *z = work + d;

  if (fam != DEVO__CEC_COMPOSITION) {
    /* simple: y = s (x - o) before the rotation; hybrid: scale 1 here, each group's own scale
     * after the shuffle */
    const double s = devo__cec_pre_scale(id, 0);
    for (int i = threadIdx.x; i < d; i += blockDim.x)
      y[i] = (x[i] - shift[i]) * s;
    __syncthreads();
    devo__cec_blk_matvec(rot, rs, cs, d, y, z);
    __syncthreads();
    if (fam == DEVO__CEC_SIMPLE)
      return devo__cec_blk_basic(devo__cec_part_fn(id, 0), z, NULL, d, 1.0, red) +
             devo__cec_bias(id);
    int start[DEVO__CEC_MAXPARTS], size[DEVO__CEC_MAXPARTS];
    if (!devo__cec_hybrid_groups(id, d, start, size))
      return (double)NAN; /* the host rejects such dims; uniform, so no thread hangs */
    double f = 0.0;
    for (int k = 0; k < n; ++k) {
      const int fn = devo__cec_part_fn(id, k);
      f += devo__cec_blk_basic(fn, z, v->shuffle + start[k], size[k], devo__cec_basic_scale(fn),
                               red);
    }
    return f + devo__cec_bias(id);
  }

  double fit[DEVO__CEC_MAXPARTS], w[DEVO__CEC_MAXPARTS];
  for (int k = 0; k < n; ++k) {
    const int fn = devo__cec_part_fn(id, k);
    const double s = devo__cec_pre_scale(id, k);
    const double *o = shift + (size_t)k * (size_t)d;
    double d2 = 0.0;
    /* y of the previous component was last read by the matrix-vector product, which every
     * thread finished before the barrier that preceded the previous reductions */
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
      const double t = x[i] - o[i];
      y[i] = t * s;
      d2 += devo__cec_pow2(t); /* cf_cal: raw x, no scale or rotation */
    }
    __syncthreads();
    devo__cec_blk_matvec(rot + (size_t)k * ms, rs, cs, d, y, z);
    __syncthreads();
    fit[k] = devo__cec_comp_fit(id, k, devo__cec_blk_basic(fn, z, NULL, d, 1.0, red));
    w[k] = devo__cec_comp_weight(devo__block_sum(d2, red), d, devo__cec_comp_sigma(id, k));
  }
  return devo__cec_comp_combine(n, w, fit) + devo__cec_bias(id);
}

#endif /* DEVO_CEC_DEVICE_CUH */
