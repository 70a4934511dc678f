/* SPDX-License-Identifier: MIT */
/* gpu_problem.cu: device copies of a problem's data for the CUDA backend, and
 * devo__gpu_eval_points (engine/internal.h): f at given points, evaluated by the same kernel as
 * the multikernel design's evaluation step (devo__k_mk_eval), so that tests and `devo eval
 * --backend gpu` check the kernels' arithmetic against the CPU row by row.
 * Versions:
 *   devo__k_transpose  one thread per element: the CEC matrices are kept transposed on the
 *                      device (cec_device.cuh: coalesced rows, the same summation order).
 * Every CUDA call is checked; a failure becomes a status with the call, file and line in err. */
#include <stdio.h>
#include <string.h>

#include "gpu_common.cuh"

#define DEVO__PD_FILE "kernels/gpu_problem.cu"

static int devo__pd_err(char *err, size_t errlen, cudaError_t e, const char *call, int line)
{
  const int st = devo__cuda_fail(err, errlen, e, call, DEVO__PD_FILE, line);
  return e == cudaErrorMemoryAllocation ? DEVO_E_NOMEM : st;
}

#define DEVO__PCK(call)                                                                           \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess)                                                                        \
      return devo__pd_err(err, errlen, e_, #call, __LINE__);                                      \
  } while (0)

/* out = in^T for one d x d matrix. */
__global__ void devo__k_transpose(const double *in, double *out, int d)
{
  const int64_t n = (int64_t)d * d;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e / d, j = e - i * d;
    out[j * d + i] = in[e];
  }
}

size_t devo__gpu_blk_work(const devo__pview *v)
{
  if (v->kind == DEVO__P_CEC)
    return devo__cec_scratch(v->dim);
  if (v->kind == DEVO__P_ETC) {
    /* room for either evaluator version */
    const size_t w1 = devo__etc_block_work_doubles(v->ntasks, v->nmach, v->order);
    const size_t w2 = devo__etc_block_work2_doubles(v->ntasks, v->nmach, v->order);
    return w1 > w2 ? w1 : w2;
  }
  return 0;
}

size_t devo__gpu_blk_stage(const devo__pview *v)
{
  if (v->kind == DEVO__P_CEC)
    return v->ncomp == 1 ? (size_t)v->dim * (size_t)v->dim : 0;
  if (v->kind == DEVO__P_ETC)
    return (size_t)v->ntasks * (size_t)v->nmach;
  return 0;
}

void devo__gpu_pdata_free(devo__gpu_pdata *d)
{
  cudaFree(d->shift);
  cudaFree(d->rott);
  cudaFree(d->etc);
  cudaFree(d->ready);
  cudaFree(d->shuffle);
  memset(d, 0, sizeof *d);
}

static int devo__pd_copy(void **dst, const void *src, size_t bytes, cudaStream_t st, char *err,
                         size_t errlen)
{
  DEVO__PCK(cudaMalloc(dst, bytes));
  DEVO__PCK(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, st));
  return DEVO_OK;
}

int devo__gpu_pdata_upload(const devo_problem *p, devo__gpu_pdata *d, devo__pview *v,
                           cudaStream_t st, char *err, size_t errlen)
{
  const devo__pview *hv = &p->view;
  const size_t dim = (size_t)hv->dim;
  int r;
  memset(d, 0, sizeof *d);
  *v = *hv;
  v->shift = NULL;
  v->rot = NULL;
  v->shuffle = NULL;
  v->etc = NULL;
  v->ready = NULL;
  if (hv->kind == DEVO__P_CEC) {
    const size_t nc = (size_t)hv->ncomp, mat = dim * dim;
    double *tmp = NULL;
    if ((r = devo__pd_copy((void **)&d->shift, hv->shift, nc * dim * sizeof(double), st, err,
                           errlen)) != DEVO_OK)
      return r;
    if (hv->shuffle && (r = devo__pd_copy((void **)&d->shuffle, hv->shuffle, dim * sizeof(int),
                                          st, err, errlen)) != DEVO_OK)
      return r;
    DEVO__PCK(cudaMalloc((void **)&d->rott, nc * mat * sizeof(double)));
    DEVO__PCK(cudaMalloc((void **)&tmp, mat * sizeof(double)));
    for (size_t k = 0; k < nc; ++k) {
      cudaError_t e = cudaMemcpyAsync(tmp, hv->rot + k * mat, mat * sizeof(double),
                                      cudaMemcpyHostToDevice, st);
      if (e == cudaSuccess) {
        /* cudaLaunchKernel returns this launch's error; cudaGetLastError after <<< >>> could
         * return an earlier, unrelated one of the caller's and blame the transpose (found in
         * review) */
        const double *in = tmp;
        double *out = d->rott + k * mat;
        int dd = (int)dim;
        void *args[] = {(void *)&in, (void *)&out, (void *)&dd};
        e = cudaLaunchKernel((const void *)devo__k_transpose,
                             dim3((unsigned)((mat + 255) / 256 < 4096 ? (mat + 255) / 256 : 4096)),
                             dim3(256), args, 0, st);
      }
      if (e == cudaSuccess && k + 1 == nc)
        e = cudaStreamSynchronize(st); /* tmp may go now */
      if (e != cudaSuccess) {
        cudaStreamSynchronize(st);
        cudaFree(tmp);
        return devo__pd_err(err, errlen, e, "transpose of the CEC matrices", __LINE__);
      }
    }
    cudaFree(tmp);
    v->shift = d->shift;
    v->shuffle = d->shuffle;
  } else if (hv->kind == DEVO__P_ETC) {
    if ((r = devo__pd_copy((void **)&d->etc, hv->etc,
                           (size_t)hv->ntasks * (size_t)hv->nmach * sizeof(double), st, err,
                           errlen)) != DEVO_OK)
      return r;
    if (hv->ready && (r = devo__pd_copy((void **)&d->ready, hv->ready,
                                        (size_t)hv->nmach * sizeof(double), st, err, errlen)) !=
                         DEVO_OK)
      return r;
    v->etc = d->etc;
    v->ready = d->ready;
  } else if (hv->shift) {
    if ((r = devo__pd_copy((void **)&d->shift, hv->shift, dim * sizeof(double), st, err,
                           errlen)) != DEVO_OK)
      return r;
    v->shift = d->shift;
  }
  DEVO__PCK(cudaStreamSynchronize(st));
  return DEVO_OK;
}

/* ---- devo__gpu_eval_points --------------------------------------------------------------- */

struct devo__ep_mem {
  devo__gpu_pdata pd;
  double *x, *f, *work;
  cudaStream_t st;
};

static int devo__ep_run(const devo_problem *p, const double *x, int n, double *f,
                        devo__ep_mem *m, char *err, size_t errlen)
{
  devo__gpu_ktab kt;
  devo__gpu_args a;
  cudaFuncAttributes fa;
  cudaDeviceProp prop;
  int dev = 0, r;
  const int d = p->view.dim;
  memset(&kt, 0, sizeof kt);
  memset(&a, 0, sizeof a);
  if (devo__gpu_multi_fill(p->view.kind, &kt) != 0) {
    if (err && errlen)
      snprintf(err, errlen, "this problem kind is not evaluated on the GPU");
    return DEVO_E_INVALID;
  }
  DEVO__PCK(cudaGetDevice(&dev));
  DEVO__PCK(cudaGetDeviceProperties(&prop, dev));
  DEVO__PCK(cudaStreamCreateWithFlags(&m->st, cudaStreamNonBlocking));
  if ((r = devo__gpu_pdata_upload(p, &m->pd, &a.v, m->st, err, errlen)) != DEVO_OK)
    return r;
  a.rott = m->pd.rott;
  DEVO__PCK(cudaMalloc((void **)&m->x, (size_t)n * d * sizeof(double)));
  DEVO__PCK(cudaMalloc((void **)&m->f, (size_t)n * sizeof(double)));
  DEVO__PCK(cudaMemcpyAsync(m->x, x, (size_t)n * d * sizeof(double), cudaMemcpyHostToDevice,
                            m->st));

  /* one vector per block, threads = D rounded up to a warp (striding beyond the kernel's
   * limit); the block work in shared memory when it fits, else a global slice per point */
  DEVO__PCK(cudaFuncGetAttributes(&fa, kt.mk_eval));
  int cap = fa.maxThreadsPerBlock < prop.maxThreadsPerBlock ? fa.maxThreadsPerBlock
                                                             : prop.maxThreadsPerBlock;
  cap = cap / 32 * 32;
  int lanes = (d + 31) / 32 * 32;
  if (lanes > cap)
    lanes = cap;
  a.np = n;
  a.dim = d;
  a.lanes = lanes;
  a.vpb = 1;
  a.trial = m->x;
  a.tfit = m->f;
  a.sm_stage = -1;
  a.sm_work = -1;
  a.work_n = (int)devo__gpu_blk_work(&a.v);
  size_t smem = DEVO__RED_DOUBLES * sizeof(double);
  const size_t wbytes = (size_t)a.work_n * sizeof(double);
  const size_t optin = (size_t)prop.sharedMemPerBlockOptin > fa.sharedSizeBytes
                           ? (size_t)prop.sharedMemPerBlockOptin - fa.sharedSizeBytes
                           : 0;
  if (a.work_n > 0 && smem + wbytes <= optin) {
    a.sm_work = DEVO__RED_DOUBLES;
    smem += wbytes;
    if (smem + fa.sharedSizeBytes > prop.sharedMemPerBlock)
      DEVO__PCK(devo__gpu_smem_max(kt.mk_eval, &prop));
  } else if (a.work_n > 0) {
    DEVO__PCK(cudaMalloc((void **)&m->work, (size_t)n * wbytes));
    a.work = m->work;
  }
  uint32_t gen = 1;
  void *args[] = {&a, &gen};
  DEVO__PCK(cudaLaunchKernel(kt.mk_eval, dim3((unsigned)n), dim3((unsigned)lanes), args, smem,
                             m->st));
  DEVO__PCK(cudaMemcpyAsync(f, m->f, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, m->st));
  DEVO__PCK(cudaStreamSynchronize(m->st));
  return DEVO_OK;
}

extern "C" int devo__gpu_eval_points(const devo_problem *p, const double *x, int n, double *f,
                                     char *err, size_t errlen)
{
  char why[300];
  devo__ep_mem m;
  int r;
  if (err && errlen)
    err[0] = 0;
  if (!p || !x || !f || n < 1 || p->view.kind == DEVO__P_NONE || p->view.kind == DEVO__P_USER) {
    if (err && errlen)
      snprintf(err, errlen, "devo__gpu_eval_points: needs a built-in problem and n >= 1 points");
    return DEVO_E_INVALID;
  }
  if (!devo__gpu_probe(why, sizeof why)) {
    if (err && errlen)
      snprintf(err, errlen, "%s", why);
    return DEVO_E_NODEVICE;
  }
  memset(&m, 0, sizeof m);
  r = devo__ep_run(p, x, n, f, &m, err, errlen);
  if (m.st)
    cudaStreamSynchronize(m.st);
  devo__gpu_pdata_free(&m.pd);
  cudaFree(m.x);
  cudaFree(m.f);
  cudaFree(m.work);
  if (m.st)
    cudaStreamDestroy(m.st);
  cudaGetLastError(); /* leave no sticky error for the next caller */
  return r;
}

/* ---- devo__gpu_copy_rate ----------------------------------------------------------------- */

extern "C" int devo__gpu_copy_rate(size_t bytes, int reps, double *bytes_per_s, char *err,
                                   size_t errlen)
{
  char *src = NULL, *dst = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  cudaError_t e = cudaSuccess;
  float t[64];
  int k, n = reps < 1 ? 1 : (reps > 64 ? 64 : reps);
  if (!devo__gpu_probe(err, errlen))
    return DEVO_E_NODEVICE;
  if ((e = cudaMalloc((void **)&src, bytes)) != cudaSuccess ||
      (e = cudaMalloc((void **)&dst, bytes)) != cudaSuccess ||
      (e = cudaMemset(src, 1, bytes)) != cudaSuccess || (e = cudaEventCreate(&e0)) != cudaSuccess ||
      (e = cudaEventCreate(&e1)) != cudaSuccess ||
      (e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)) != cudaSuccess)
    goto out;
  for (k = 0; k < n; ++k) {
    if ((e = cudaEventRecord(e0)) != cudaSuccess ||
        (e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)) != cudaSuccess ||
        (e = cudaEventRecord(e1)) != cudaSuccess || (e = cudaEventSynchronize(e1)) != cudaSuccess ||
        (e = cudaEventElapsedTime(&t[k], e0, e1)) != cudaSuccess)
      goto out;
  }
  for (k = 1; k < n; ++k) /* insertion sort; the median below */
    for (int j = k; j > 0 && t[j] < t[j - 1]; --j) {
      float w = t[j];
      t[j] = t[j - 1];
      t[j - 1] = w;
    }
  *bytes_per_s = 2.0 * (double)bytes / ((double)t[n / 2] * 1e-3);
out:
  if (e0)
    cudaEventDestroy(e0);
  if (e1)
    cudaEventDestroy(e1);
  cudaFree(src);
  cudaFree(dst);
  if (e != cudaSuccess)
    return devo__pd_err(err, errlen, e, "device-to-device copy", __LINE__);
  return DEVO_OK;
}
