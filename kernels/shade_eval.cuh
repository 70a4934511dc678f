/* SPDX-License-Identifier: MIT */
/* shade_eval.cuh: the objective summed in the CPU's order (kernels/gpu_shade.cu's top comment:
 * why), by the whole block of one vector, and the initial population's re-evaluation with it. */
#ifndef DEVO_SHADE_EVAL_CUH
#define DEVO_SHADE_EVAL_CUH

/* The terms buffer of this block: 2 * blockDim.x doubles. */
__device__ __forceinline__ double *devo__sh_tb(const devo__sh_dev &h, double *sm)
{
  return h.sm_terms >= 0 ? sm + h.sm_terms : h.terms + (size_t)blockIdx.x * 2u * (size_t)blockDim.x;
}

/* Classic f(x) as devo__classic_eval computes it: terms (and griewank's factors) of a round of
 * blockDim.x coordinates in parallel, thread 0 adds them in index order. Every thread calls it
 * and gets f (NaN as +inf). red: the reduction scratch (red[0] carries the result). */
template <int KIND>
__device__ double devo__sh_eval_classic(const devo__gpu_args &a, const double *x, double *tb,
                                        double *red)
{
  const int d = a.dim, lane = (int)threadIdx.x, lanes = (int)blockDim.x;
  double sum = 0.0, prod = 1.0;
  for (int base = 0; base < d; base += lanes) {
    const int j = base + lane;
    if (j < d) {
      tb[lane] = devo__classic_term(KIND, j, d, x[j], j + 1 < d ? x[j + 1] : 0.0, a.v.shift);
      tb[lanes + lane] = devo__classic_factor(KIND, j, x[j], a.v.shift);
    }
    __syncthreads();
    if (lane == 0) {
      const int n = d - base < lanes ? d - base : lanes;
#pragma unroll 16 /* the loads ahead of the dependent adds */
      for (int k = 0; k < n; ++k) {
        sum += tb[k];
        prod *= tb[lanes + k];
      }
    }
    __syncthreads();
  }
  if (lane == 0)
    red[0] = devo__gpu_fitness(devo__classic_finish(KIND, sum, prod));
  __syncthreads();
  return red[0];
}

/* CEC F01..F04 (one shift, one matrix) as devo__cec_eval computes them: y = s (x - o), z_r by one
 * thread per row summing over j in index order (the device keeps M transposed: M_rj at
 * rot[j d + r]), the element terms in parallel, thread 0 folding them in index order. */
__device__ double devo__sh_eval_cec1(const devo__gpu_args &a, const double *x, int i, double *sm,
                                     double *tb)
{
  const int d = a.dim, lane = (int)threadIdx.x, lanes = (int)blockDim.x, id = a.v.cec_id;
  double *work = a.sm_work >= 0 ? sm + a.sm_work : a.work + (size_t)i * (size_t)a.work_n;
  double *y = work, *z = work + d;
  const double *rot = a.sm_stage >= 0 ? sm + a.sm_stage : a.rott;
  const double *o = a.v.shift, s = devo__cec_pre_scale(id, 0);
  const int fn = devo__cec_part_fn(id, 0), mode = devo__cec_bmode(fn);
  for (int j = lane; j < d; j += lanes)
    y[j] = (x[j] - o[j]) * s;
  __syncthreads();
  for (int r = lane; r < d; r += lanes) {
    double acc = 0.0;
#pragma unroll 8
    for (int j = 0; j < d; ++j)
      acc = acc + y[j] * rot[(size_t)j * (size_t)d + (size_t)r];
    z[r] = acc;
  }
  __syncthreads();
  double A = 0.0, B = mode == DEVO__CEC_B_PROD ? 1.0 : 0.0;
  for (int base = 0; base < d; base += lanes) {
    const int l = base + lane;
    if (l < d) {
      const int ln = l + 1 == d ? 0 : l + 1;
      double ta, tb2;
      devo__cec_elem(fn, l, d, 1.0 * z[l], 1.0 * z[ln], &ta, &tb2);
      tb[lane] = ta;
      tb[lanes + lane] = tb2;
    }
    __syncthreads();
    if (lane == 0) {
      const int n = d - base < lanes ? d - base : lanes;
#pragma unroll 16
      for (int k = 0; k < n; ++k)
        devo__cec_fold(mode, tb[k], tb[lanes + k], &A, &B);
    }
    __syncthreads();
  }
  if (lane == 0)
    sm[0] = devo__gpu_fitness(devo__cec_finish(fn, d, A, B) + devo__cec_bias(id));
  __syncthreads();
  return sm[0];
}

/* f(x) of vector i by the whole block (every thread calls it and gets the value); x is complete
 * (written before a block barrier). sm: the dynamic shared memory. */
template <int KIND>
__device__ double devo__sh_eval(const devo__gpu_args &a, const devo__sh_dev &h, const double *x,
                                int i, double *sm)
{
  if (KIND == DEVO__P_SPHERE || KIND == DEVO__P_ROSENBROCK || KIND == DEVO__P_GRIEWANK ||
      KIND == DEVO__P_RASTRIGIN)
    return devo__sh_eval_classic<KIND>(a, x, devo__sh_tb(h, sm), sm);
  if (KIND == DEVO__P_CEC && a.v.ncomp == 1 && devo__cec_family(a.v.cec_id) == DEVO__CEC_SIMPLE)
    return devo__sh_eval_cec1(a, x, i, sm, devo__sh_tb(h, sm));
  return devo__gpu_eval<KIND>(a, x, true, (int)threadIdx.x, sm, i);
}

/* The initial population (buffer 0) re-evaluated in the CPU's order into fit[0]. */
template <int KIND>
__global__ void __launch_bounds__(1024) devo__k_sh_eval0(devo__gpu_args a, devo__sh_dev h, int np)
{
  const int i = (int)blockIdx.x;
  if (i >= np)
    return;
  devo__gpu_stage<KIND>(a, devo__sm);
  const double f = devo__sh_eval<KIND>(a, h, h.pop[0] + (size_t)i * (size_t)a.dim, i, devo__sm);
  if (threadIdx.x == 0)
    h.fit[0][i] = f;
}

#endif /* DEVO_SHADE_EVAL_CUH */
