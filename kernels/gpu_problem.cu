/* SPDX-License-Identifier: MIT */
/* gpu_problem.cu: device copies of a problem's data for the CUDA backend, and the persistent GPU
 * evaluator (engine/internal.h: devo__gpu_evaluator_*, the naive GPU model's evaluation) with
 * devo__gpu_eval_points on top of it: f at given points, evaluated by the same kernel as the
 * multikernel design's evaluation step (devo__k_mk_eval), so that tests and `devo eval --backend
 * gpu` check the kernels' arithmetic against the CPU row by row.
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

#define DEVO__PCK(call)                                                                            \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess)                                                                         \
      return devo__pd_err(err, errlen, e_, #call, __LINE__);                                       \
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
    if (hv->shuffle && (r = devo__pd_copy((void **)&d->shuffle, hv->shuffle, dim * sizeof(int), st,
                                          err, errlen)) != DEVO_OK)
      return r;
    DEVO__PCK(cudaMalloc((void **)&d->rott, nc * mat * sizeof(double)));
    DEVO__PCK(cudaMalloc((void **)&tmp, mat * sizeof(double)));
    for (size_t k = 0; k < nc; ++k) {
      cudaError_t e =
          cudaMemcpyAsync(tmp, hv->rot + k * mat, mat * sizeof(double), cudaMemcpyHostToDevice, st);
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
    if (hv->ready &&
        (r = devo__pd_copy((void **)&d->ready, hv->ready, (size_t)hv->nmach * sizeof(double), st,
                           err, errlen)) != DEVO_OK)
      return r;
    v->etc = d->etc;
    v->ready = d->ready;
  } else if (hv->shift) {
    if ((r = devo__pd_copy((void **)&d->shift, hv->shift, dim * sizeof(double), st, err, errlen)) !=
        DEVO_OK)
      return r;
    v->shift = d->shift;
  }
  DEVO__PCK(cudaStreamSynchronize(st));
  return DEVO_OK;
}

/* ---- the persistent evaluator (devo__gpu_evaluator_*) and devo__gpu_eval_points ----------- */

struct devo__gpu_evaluator {
  devo_allocator al;
  int dev, nmax, dim;
  devo__gpu_pdata pd;
  devo__gpu_args a;  /* the evaluation kernel's arguments; a.trial, a.tfit: device buffers */
  const void *kern;  /* devo__k_mk_eval<kind> */
  int lanes;         /* threads per block (one vector per block) */
  size_t smem;       /* dynamic shared bytes of a launch */
  double *h_x, *h_f; /* pinned: nmax * dim and nmax doubles */
  cudaStream_t st;
  char device[160];
};

/* Everything of create after the state exists: device, data, buffers, launch plan. */
static int devo__ev_setup(devo__gpu_evaluator *e, const devo_problem *p, char *err, size_t errlen)
{
  devo__gpu_ktab kt;
  cudaFuncAttributes fa;
  cudaDeviceProp prop;
  const int d = p->view.dim;
  const size_t n = (size_t)e->nmax;
  int r;
  memset(&kt, 0, sizeof kt);
  if (devo__gpu_multi_fill(p->view.kind, &kt) != 0) {
    if (err && errlen)
      snprintf(err, errlen, "this problem kind is not evaluated on the GPU");
    return DEVO_E_INVALID;
  }
  e->kern = kt.mk_eval;
  DEVO__PCK(cudaGetDevice(&e->dev));
  DEVO__PCK(cudaGetDeviceProperties(&prop, e->dev));
  snprintf(e->device, sizeof e->device, "%.100s (sm_%d%d)", prop.name, prop.major, prop.minor);
  DEVO__PCK(cudaStreamCreateWithFlags(&e->st, cudaStreamNonBlocking));
  if ((r = devo__gpu_pdata_upload(p, &e->pd, &e->a.v, e->st, err, errlen)) != DEVO_OK)
    return r;
  e->a.rott = e->pd.rott;
  DEVO__PCK(cudaMalloc((void **)&e->a.trial, n * (size_t)d * sizeof(double)));
  DEVO__PCK(cudaMalloc((void **)&e->a.tfit, n * sizeof(double)));
  DEVO__PCK(cudaMallocHost((void **)&e->h_x, n * (size_t)d * sizeof(double)));
  DEVO__PCK(cudaMallocHost((void **)&e->h_f, n * sizeof(double)));

  /* one vector per block, threads = D rounded up to a warp (striding beyond the kernel's
   * limit); the block work in shared memory when it fits, else a global slice per point */
  DEVO__PCK(cudaFuncGetAttributes(&fa, e->kern));
  int cap = fa.maxThreadsPerBlock < prop.maxThreadsPerBlock ? fa.maxThreadsPerBlock
                                                            : prop.maxThreadsPerBlock;
  cap = cap / 32 * 32;
  e->lanes = (d + 31) / 32 * 32;
  if (e->lanes > cap)
    e->lanes = cap;
  e->a.dim = d;
  e->a.lanes = e->lanes;
  e->a.vpb = 1;
  e->a.sm_stage = -1;
  e->a.sm_work = -1;
  e->a.work_n = (int)devo__gpu_blk_work(&e->a.v);
  e->smem = DEVO__RED_DOUBLES * sizeof(double);
  const size_t wbytes = (size_t)e->a.work_n * sizeof(double);
  const size_t optin = (size_t)prop.sharedMemPerBlockOptin > fa.sharedSizeBytes
                           ? (size_t)prop.sharedMemPerBlockOptin - fa.sharedSizeBytes
                           : 0;
  if (e->a.work_n > 0 && e->smem + wbytes <= optin) {
    e->a.sm_work = DEVO__RED_DOUBLES;
    e->smem += wbytes;
    if (e->smem + fa.sharedSizeBytes > prop.sharedMemPerBlock)
      DEVO__PCK(devo__gpu_smem_max(e->kern, &prop));
  } else if (e->a.work_n > 0) {
    DEVO__PCK(cudaMalloc((void **)&e->a.work, n * wbytes));
  }
  return DEVO_OK;
}

extern "C" void devo__gpu_evaluator_destroy(devo__gpu_evaluator *e)
{
  if (!e)
    return;
  cudaSetDevice(e->dev);
  if (e->st)
    cudaStreamSynchronize(e->st);
  devo__gpu_pdata_free(&e->pd);
  cudaFree(e->a.trial);
  cudaFree(e->a.tfit);
  cudaFree(e->a.work);
  if (e->h_x)
    cudaFreeHost(e->h_x);
  if (e->h_f)
    cudaFreeHost(e->h_f);
  if (e->st)
    cudaStreamDestroy(e->st);
  cudaGetLastError(); /* leave no sticky error for the next caller */
  devo_allocator al = e->al;
  devo__free(&al, e);
}

extern "C" int devo__gpu_evaluator_create(const devo_problem *p, int nmax, const devo_allocator *al,
                                          devo__gpu_evaluator **out, char *err, size_t errlen)
{
  char why[300];
  devo_allocator a = devo__allocator_or_default(al);
  devo__gpu_evaluator *e;
  int r;
  if (err && errlen)
    err[0] = 0;
  if (!out || !p || nmax < 1 || p->view.kind == DEVO__P_NONE || p->view.kind == DEVO__P_USER) {
    if (err && errlen)
      snprintf(err, errlen, "the GPU evaluator needs a built-in problem and n >= 1 points");
    return DEVO_E_INVALID;
  }
  *out = NULL;
  if (!devo__gpu_probe(why, sizeof why)) {
    if (err && errlen)
      snprintf(err, errlen, "%s", why);
    return DEVO_E_NODEVICE;
  }
  e = (devo__gpu_evaluator *)devo__calloc(&a, 1, sizeof *e);
  if (!e) {
    if (err && errlen)
      snprintf(err, errlen, "out of memory for the GPU evaluator");
    return DEVO_E_NOMEM;
  }
  e->al = a;
  e->nmax = nmax;
  e->dim = p->view.dim;
  r = devo__ev_setup(e, p, err, errlen);
  if (r != DEVO_OK) {
    devo__gpu_evaluator_destroy(e);
    return r;
  }
  *out = e;
  return DEVO_OK;
}

extern "C" int devo__gpu_evaluator_eval(devo__gpu_evaluator *e, const double *x, int n, double *f,
                                        char *err, size_t errlen)
{
  if (!e || !x || !f || n < 1 || n > e->nmax) {
    if (err && errlen)
      snprintf(err, errlen, "GPU evaluation of %d points (1 .. %d)", n, e ? e->nmax : 0);
    return DEVO_E_INVALID;
  }
  const size_t xbytes = (size_t)n * (size_t)e->dim * sizeof(double);
  /* through pinned memory: the copies are then true DMA transfers on the evaluator's stream */
  memcpy(e->h_x, x, xbytes);
  DEVO__PCK(cudaSetDevice(e->dev));
  DEVO__PCK(cudaMemcpyAsync(e->a.trial, e->h_x, xbytes, cudaMemcpyHostToDevice, e->st));
  devo__gpu_args a = e->a;
  a.np = n;
  uint32_t gen = 1;
  void *args[] = {&a, &gen};
  DEVO__PCK(
      cudaLaunchKernel(e->kern, dim3((unsigned)n), dim3((unsigned)e->lanes), args, e->smem, e->st));
  DEVO__PCK(cudaMemcpyAsync(e->h_f, e->a.tfit, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost,
                            e->st));
  DEVO__PCK(cudaStreamSynchronize(e->st));
  memcpy(f, e->h_f, (size_t)n * sizeof(double));
  return DEVO_OK;
}

extern "C" const char *devo__gpu_evaluator_device(const devo__gpu_evaluator *e)
{
  return e ? e->device : "";
}

extern "C" int devo__gpu_eval_points(const devo_problem *p, const double *x, int n, double *f,
                                     char *err, size_t errlen)
{
  devo__gpu_evaluator *e = NULL;
  int r;
  if (!x || !f) {
    if (err && errlen)
      snprintf(err, errlen, "devo__gpu_eval_points: needs a built-in problem and n >= 1 points");
    return DEVO_E_INVALID;
  }
  r = devo__gpu_evaluator_create(p, n, NULL, &e, err, errlen);
  if (r == DEVO_OK)
    r = devo__gpu_evaluator_eval(e, x, n, f, err, errlen);
  devo__gpu_evaluator_destroy(e);
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
