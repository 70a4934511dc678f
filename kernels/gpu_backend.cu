/* SPDX-License-Identifier: MIT */
/* gpu_backend.cu: the host side of the CUDA backend (engine/internal.h's devo_backend): device
 * probe, launch configuration from the device's limits, device memory, and the chunk drivers of
 * the two designs. Kernels live in gpu_fused.cu, gpu_fast.cu (small D), gpu_etc.cu (ETC, one warp
 * per schedule), gpu_cec.cu (CEC at D <= 128, two-block clusters), gpu_multi.cu and gpu_util.cu.
 *
 * A run keeps population (double-buffered: generation g in pop[g & 1]), fitness and the best on
 * the device; between chunks only a small control block (best value and index, the generation
 * that reached the target) crosses to pinned host memory. Chunk drivers:
 *   fused + persistent  one cooperative launch per chunk, one grid barrier per generation;
 *   fused + graph       CUDA graphs of 1, 16 and 256 generation launches (built on first use),
 *                       optionally with kernel(P) computing indices one generation ahead on a
 *                       second stream;
 *   multikernel         four launches per generation from the host.
 * Problem kinds: the classic functions, and the block kinds CEC F01..F10 and ETC scheduling (one
 * vector per block; block work and, in the persistent kernel, the rotation or ETC matrix in
 * shared memory when they fit; problem data uploaded by kernels/gpu_problem.cu).
 * Every CUDA call is checked; a failure becomes DEVO_E_CUDA with the call, file and line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../problems/de_shade.h"
#include "gpu_common.cuh"

#define DEVO__GPU_FILE "kernels/gpu_backend.cu"

/* Chunk mode and index mode used when no variant bit asks otherwise. Measured on an H100 with
 * bench/bench_gpu.c (BENCHMARKS.md): the persistent kernel beats graphs of launches, and
 * inline indices beat kernel(P) (a Philox block costs less than the load it would replace). */
#define DEVO__GPU_DEFAULT_PERSIST 1
#define DEVO__GPU_DEFAULT_KERNELP 0
#define DEVO__GPU_DEFAULT_BARRIER DEVO__BARRIER_ACQUIRE
/* Persistent chunks with kernels/gpu_fast.cu's kernel where it applies (classic kinds, whole
 * population co-resident) with one coordinate per thread, i.e. D <= 128: measured on an H100
 * (BENCHMARKS.md) 77 ms instead of 112 at D=100 NP=250 and 340 instead of 535 at D=10 NP=50;
 * with 4 coordinates per thread it lost (123 ms at D=100), so D = 129..512 only with
 * DEVO__GPU_FAST. 0 = only with DEVO__GPU_FAST. */
#define DEVO__GPU_DEFAULT_FAST 1

/* ETC scheduling in persistent chunks with kernels/gpu_etc.cu's warp-per-schedule kernel where
 * it applies (FCFS, m <= 32, n <= 512); 0 = etc_device.cuh's block evaluators always. */
#define DEVO__GPU_DEFAULT_ETC_WARP 1
/* CEC at D <= 128: kernels/gpu_cec.cu's cluster kernel where it applies (persistent chunks, no
 * block option asked for). 0 = never. */
#define DEVO__GPU_DEFAULT_CEC_CLUSTER 1

/* Graph sizes (generations per graph launch), largest first. */
static const int devo__graph_sizes[3] = {256, 16, 1};

/* Device memory left unclaimed by the fit check: the context, graphs and fragmentation. */
#define DEVO__GPU_RESERVE ((size_t)256 << 20)

struct devo__gpu_state {
  int dev;
  cudaDeviceProp prop;
  devo__gpu_ktab kt;
  devo__gpu_args a;     /* device pointers live here */
  devo__gpu_pdata pd;   /* problem data */
  int blk;              /* block kind (CEC, ETC): one vector per block */
  devo__gpu_ctl *h_ctl; /* pinned */
  cudaStream_t st, st2; /* NULL until created */
  cudaEvent_t ev_fork, ev_idx, ev_gen;
  int design, persist, kernelp, barrier;
  int fast; /* persistent chunks run gpu_fast.cu's kernel with fc */
  devo__gpu_fast_cfg fc;
  int threads, blocks, occ, pgrid;
  size_t smem;     /* dynamic shared bytes of the fused kernels */
  size_t smem_red; /* of the kernels that only reduce */
  int flat_blocks, idx_blocks, best_blocks;
  cudaGraphExec_t gx[3];
  int best_idx;
  /* a variant other than plain rand1bin (issue 18): gpu_vfused.cu's kernels run the
   * generations (vk.gen, vk.persist in kt.gen, kt.persist) with va beside a */
  int var;
  int var_multi; /* the multikernel design was asked for; the fused variant kernel runs */
  devo__gpu_vargs va;
  devo__gpu_vktab vk;
  /* JADE, SHADE, L-SHADE (issue 24): kernels/gpu_shade.cu runs the generations; NULL otherwise */
  devo__gpu_shade *sh;
};

/* GOBL: the specialised variant kernel that runs the chunks (fast) runs the jumps itself (its plan
 * compiled them in, fc.gobl; the design bit DEVO__GPU_GOBL_LAUNCHES keeps them out). */
static int devo__gpu_jumps_inside(const devo__gpu_state *g)
{
  return g->var && g->fast && g->fc.gobl;
}

static int devo__cuerr(devo_solver *s, cudaError_t e, const char *call, int line)
{
  char msg[DEVO__ERRLEN];
  const int status = devo__cuda_fail(msg, sizeof msg, e, call, DEVO__GPU_FILE, line);
  return devo__set_err(s, status, "%s", msg);
}

#define DEVO__CK(call)                                                                             \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess)                                                                         \
      return devo__cuerr(s, e_, #call, __LINE__);                                                  \
  } while (0)

/* ---- probe ------------------------------------------------------------------------------- */

/* The device this thread would use (cudaGetDevice, 0 unless the program chose another), checked
 * for a kernel image of this build; makes the primary context so that a timed solve later does
 * not pay for it. */
static int devo__gpu_pick(int *dev, char *msg, size_t msglen)
{
  int n = 0, d = 0;
  cudaDeviceProp p;
  cudaFuncAttributes fa;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n < 1) {
    if (msg && msglen)
      snprintf(msg, msglen, "no CUDA device: %s",
               e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
    return 0;
  }
  if ((e = cudaGetDevice(&d)) != cudaSuccess || (e = cudaSetDevice(d)) != cudaSuccess ||
      (e = cudaGetDeviceProperties(&p, d)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess) {
    if (msg && msglen)
      snprintf(msg, msglen, "CUDA device %d is not usable: %s", d, cudaGetErrorString(e));
    return 0;
  }
  devo__gpu_ktab kt;
  memset(&kt, 0, sizeof kt);
  devo__gpu_util_fill(DEVO__P_SPHERE, &kt);
  if ((e = cudaFuncGetAttributes(&fa, kt.best)) != cudaSuccess) {
    if (msg && msglen)
      snprintf(msg, msglen, "%.100s (sm_%d%d) cannot run this build's kernels: %s", p.name, p.major,
               p.minor, cudaGetErrorString(e));
    return 0;
  }
  if (msg && msglen)
    snprintf(msg, msglen, "%.100s (sm_%d%d, %d SMs, %.1f GiB)", p.name, p.major, p.minor,
             p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30));
  if (dev)
    *dev = d;
  return 1;
}

extern "C" int devo__gpu_probe(char *msg, size_t msglen)
{
  return devo__gpu_pick(NULL, msg, msglen);
}

extern "C" int devo__gpu_count(void)
{
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" int devo__gpu_set_device(int d)
{
  return cudaSetDevice(d) == cudaSuccess;
}

extern "C" int devo__gpu_get_device(void)
{
  int d = -1;
  return cudaGetDevice(&d) == cudaSuccess ? d : -1;
}

/* ---- stop -------------------------------------------------------------------------------- */

static void devo__gpu_stop(devo_solver *s)
{
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  if (!g)
    return;
  cudaSetDevice(g->dev);
  if (g->st)
    cudaStreamSynchronize(g->st);
  if (g->st2)
    cudaStreamSynchronize(g->st2);
  for (int k = 0; k < 3; ++k)
    if (g->gx[k])
      cudaGraphExecDestroy(g->gx[k]);
  cudaFree(g->a.pop0);
  cudaFree(g->a.pop1);
  cudaFree(g->a.fit);
  cudaFree(g->a.idx0);
  cudaFree(g->a.idx1);
  cudaFree(g->a.trial);
  cudaFree(g->a.tfit);
  cudaFree(g->a.part_val);
  cudaFree(g->a.part_idx);
  cudaFree(g->a.ctl);
  devo__gpu_pdata_free(&g->pd);
  cudaFree(g->a.work);
  cudaFree(g->va.fit1);
  cudaFree(g->va.F0);
  cudaFree(g->va.F1);
  cudaFree(g->va.CR0);
  cudaFree(g->va.CR1);
  cudaFree(g->va.gx);
  cudaFree(g->va.gf);
  cudaFree(g->va.gbox);
  devo__gpu_shade_free(g->sh);
  if (g->h_ctl)
    cudaFreeHost(g->h_ctl);
  if (g->ev_fork)
    cudaEventDestroy(g->ev_fork);
  if (g->ev_idx)
    cudaEventDestroy(g->ev_idx);
  if (g->ev_gen)
    cudaEventDestroy(g->ev_gen);
  if (g->st)
    cudaStreamDestroy(g->st);
  if (g->st2)
    cudaStreamDestroy(g->st2);
  /* a failed run may leave an error that the next CUDA call would report as its own */
  cudaGetLastError();
  devo__free(&s->al, g);
  s->bk_state = NULL;
}

/* ---- launch configuration ---------------------------------------------------------------- */

static int devo__round_up(int x, int m)
{
  return (x + m - 1) / m * m;
}

/* Persistent chunks (one cooperative launch per chunk) or graphs: the default, unless a variant
 * bit asks otherwise or the device cannot launch cooperatively. */
static int devo__gpu_want_persist(int want, const cudaDeviceProp *p)
{
  int persist = DEVO__GPU_DEFAULT_PERSIST;
  if (want & DEVO__GPU_CHUNK_GRAPH)
    persist = 0;
  if (want & DEVO__GPU_CHUNK_PERSIST)
    persist = 1;
  return p->cooperativeLaunch ? persist : 0;
}

/* Block kinds: one vector per block. Shared memory holds, by preference, the block work, the
 * trial and the staged matrix (layout in gpu_common.cuh); what does not fit is dropped in the
 * reverse order (the matrix is read from global memory / L2, the trial lives in the destination
 * row, the work in a global slice per vector). The matrix is staged only where a block reuses
 * it: in the persistent kernel (loaded once per chunk), unless a variant bit says otherwise,
 * and only when the population still fits in one resident wave with it (else more, smaller
 * blocks per SM win). Every group kernel gets the same dynamic shared memory. */
static int devo__gpu_fit_blk(devo_solver *s, devo__gpu_state *g, int lanes, size_t static_smem)
{
  const cudaDeviceProp *p = &g->prop;
  const int d = g->a.dim, np = g->a.np, want = s->o.gpu_design;
  const size_t optin = (size_t)p->sharedMemPerBlockOptin > static_smem
                           ? (size_t)p->sharedMemPerBlockOptin - static_smem
                           : 0;
  const size_t red = DEVO__RED_DOUBLES * sizeof(double), trial = (size_t)d * sizeof(double);
  const size_t work = (size_t)g->a.work_n * sizeof(double);
  const size_t stage = devo__gpu_blk_stage(&g->a.v) * sizeof(double);
  const void *kernels[] = {g->kt.init, g->kt.gen, g->kt.persist, g->kt.mk_eval};
  const int persist = devo__gpu_want_persist(want, p) && g->design != DEVO_GPU_MULTIKERNEL;
  int tr = !(want & DEVO__GPU_TRIAL_GLOBAL), wk = 1;
  int sg = stage > 0 && !(want & DEVO__GPU_STAGE_OFF) && (persist || (want & DEVO__GPU_STAGE_ON));
  size_t need;
  g->a.lanes = lanes;
  g->a.vpb = 1;
  g->threads = lanes;
  g->blocks = np;
  for (;;) {
    need = red + (tr ? trial : 0) + (wk ? work : 0) + (sg ? stage : 0);
    g->occ = 0;
    if (need <= optin) {
      if (need + static_smem > (size_t)p->sharedMemPerBlock)
        for (const void *k : kernels)
          DEVO__CK(devo__gpu_smem_max(k, p));
      DEVO__CK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->occ, g->kt.persist, g->threads, need));
      if (g->occ >= 1 &&
          (!sg || (want & DEVO__GPU_STAGE_ON) || (int64_t)g->occ * p->multiProcessorCount >= np))
        break;
    }
    if (sg)
      sg = 0;
    else if (tr)
      tr = 0;
    else if (wk)
      wk = 0;
    else
      return devo__set_err(s, DEVO_E_CUDA,
                           "no block of %d threads with %zu bytes of shared memory fits on an SM "
                           "of %s",
                           g->threads, need, p->name);
  }
  g->a.trial_shared = tr;
  g->a.sm_work = wk && work > 0 ? DEVO__RED_DOUBLES + (tr ? d : 0) : -1;
  g->a.sm_stage = sg ? DEVO__RED_DOUBLES + (tr ? d : 0) + (wk ? g->a.work_n : 0) : -1;
  g->a.stage_n = sg ? (int)(stage / sizeof(double)) : 0;
  g->smem = need;
  g->smem_red = need;
  return DEVO_OK;
}

/* Threads, blocks, shared memory and occupancy for a given geometry. */
static int devo__gpu_fit(devo_solver *s, devo__gpu_state *g, int lanes, int vpb, size_t static_smem)
{
  if (g->blk)
    return devo__gpu_fit_blk(s, g, lanes, static_smem);
  const cudaDeviceProp *p = &g->prop;
  const int d = g->a.dim, np = g->a.np;
  g->a.lanes = lanes;
  g->a.vpb = vpb;
  g->threads = lanes * vpb;
  g->blocks = (int)(((int64_t)np + vpb - 1) / vpb);
  g->smem_red = DEVO__RED_DOUBLES * sizeof(double);

  /* the trial vectors of a block in shared memory when they fit, opting in above the default
   * 48 KB only when needed; else the destination row serves as the trial's storage */
  size_t need = g->smem_red + (size_t)vpb * (size_t)d * sizeof(double);
  size_t optin = (size_t)p->sharedMemPerBlockOptin > static_smem
                     ? (size_t)p->sharedMemPerBlockOptin - static_smem
                     : 0;
  g->a.trial_shared = 0;
  g->smem = g->smem_red;
  if (!(s->o.gpu_design & DEVO__GPU_TRIAL_GLOBAL) && need <= optin) {
    g->a.trial_shared = 1;
    g->smem = need;
    if (need + static_smem > (size_t)p->sharedMemPerBlock) {
      DEVO__CK(devo__gpu_smem_max(g->kt.gen, p));
      DEVO__CK(devo__gpu_smem_max(g->kt.persist, p));
    }
  }
  DEVO__CK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->occ, g->kt.persist, g->threads, g->smem));
  if (g->occ < 1 && g->a.trial_shared) {
    /* e.g. shared memory claimed by something else: fall back to the global trial */
    g->a.trial_shared = 0;
    g->smem = g->smem_red;
    DEVO__CK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->occ, g->kt.persist, g->threads, g->smem));
  }
  if (g->occ < 1)
    return devo__set_err(s, DEVO_E_CUDA,
                         "no block of %d threads with %zu bytes of shared memory fits on an SM "
                         "of %s",
                         g->threads, g->smem, p->name);
  return DEVO_OK;
}

static int devo__gpu_config(devo_solver *s, devo__gpu_state *g)
{
  const cudaDeviceProp *p = &g->prop;
  const int d = g->a.dim, np = g->a.np;
  cudaFuncAttributes fa;
  int cap = p->maxThreadsPerBlock, lanes, vpb;
  size_t static_smem = 0;
  const void *group_kernels[] = {g->kt.init, g->kt.gen, g->kt.persist, g->kt.mk_eval,
                                 g->kt.mk_replace};
  /* the cap is the device's block limit and each kernel's register-limited maximum */
  for (const void *k : group_kernels) {
    DEVO__CK(cudaFuncGetAttributes(&fa, k));
    if (fa.maxThreadsPerBlock < cap)
      cap = fa.maxThreadsPerBlock;
    if (fa.sharedSizeBytes > static_smem)
      static_smem = fa.sharedSizeBytes;
  }
  cap = cap / 32 * 32;
  if (cap < 32)
    return devo__set_err(s, DEVO_E_CUDA, "the kernels cannot run 32 threads per block on %s",
                         p->name);
  const int max_lanes = DEVO__GPU_MAX_LANES_OF(s->o.gpu_design);
  if (g->blk) {
    /* block kinds: whole warps, one vector per block, whatever the dimension */
    lanes = devo__round_up(d < 32 ? 32 : d, 32);
    if (lanes > cap)
      lanes = cap;
    if (max_lanes >= 32 && lanes > max_lanes)
      lanes = max_lanes;
    vpb = 1;
  } else if (d >= 32) {
    lanes = devo__round_up(d, 32);
    if (lanes > cap)
      lanes = cap; /* threads stride over the coordinates */
    vpb = 1;
  } else {
    /* power-of-two lanes tile a warp; enough warps per block to keep blocks few when NP is
     * large, few enough that small populations still spread over the SMs */
    int warps;
    int64_t lane_total;
    for (lanes = 1; lanes < d; lanes <<= 1) {
    }
    lane_total = (int64_t)np * lanes;
    warps =
        (int)((lane_total + 32LL * p->multiProcessorCount - 1) / (32LL * p->multiProcessorCount));
    if (warps < 1)
      warps = 1;
    if (warps > 4)
      warps = 4;
    vpb = warps * 32 / lanes;
  }
  int st = devo__gpu_fit(s, g, lanes, vpb, static_smem);
  if (st != DEVO_OK)
    return st;
  /* measured (BENCHMARKS.md): when the population needs more than one wave of resident blocks
   * the run is throughput-bound, and half the threads per vector (two coordinates each) keeps
   * twice the vectors resident (D=1000 NP=1000: 46 ms instead of 67); when it fits in one wave
   * the run is latency-bound and full blocks are faster (D=100 NP=250: 111 ms instead of 138) */
  const int want_lanes = s->o.gpu_design;
  if (d >= 64 && vpb == 1 && !(want_lanes & DEVO__GPU_FULL_LANES) && !(g->blk && max_lanes) &&
      ((want_lanes & DEVO__GPU_HALF_LANES) ||
       (int64_t)g->blocks > (int64_t)g->occ * p->multiProcessorCount)) {
    int half = devo__round_up((d + 1) / 2, 32);
    if (half > cap)
      half = cap;
    if (half < lanes) {
      st = devo__gpu_fit(s, g, half, vpb, static_smem);
      if (st != DEVO_OK)
        return st;
    }
    /* block kinds: halve again while the population still needs more than one wave, down to
     * 64 threads (bench-sched on an H100, 512x16 FCFS at NP = 1024: 128 threads 59.9 M
     * evaluations/s, 256 threads 48.6 M/s) */
    while (g->blk && !(want_lanes & DEVO__GPU_HALF_LANES) && g->a.lanes > 64 &&
           (int64_t)g->blocks > (int64_t)g->occ * p->multiProcessorCount) {
      const int occ0 = g->occ, lanes0 = g->a.lanes;
      st = devo__gpu_fit(s, g, devo__round_up(lanes0 / 2, 32), vpb, static_smem);
      if (st != DEVO_OK)
        return st;
      if (g->occ <= occ0) { /* limited by something else: keep the wider blocks */
        st = devo__gpu_fit(s, g, lanes0, vpb, static_smem);
        if (st != DEVO_OK)
          return st;
        break;
      }
    }
  }
  int64_t resident = (int64_t)g->occ * p->multiProcessorCount;
  g->pgrid = (int)(g->blocks < resident ? g->blocks : resident);

  int64_t nel = (int64_t)np * d;
  int64_t fb = (nel + DEVO__FLAT_THREADS - 1) / DEVO__FLAT_THREADS;
  int64_t fmax = 32LL * p->multiProcessorCount;
  g->flat_blocks = (int)(fb < fmax ? fb : fmax);
  int64_t ib = ((int64_t)np + DEVO__FLAT_THREADS - 1) / DEVO__FLAT_THREADS;
  g->idx_blocks = (int)(ib < fmax ? ib : fmax);
  g->best_blocks = (int)(ib < DEVO__BEST_BLOCKS ? ib : DEVO__BEST_BLOCKS);

  /* chunk and index modes */
  int want = s->o.gpu_design;
  g->persist = devo__gpu_want_persist(want, p);
  g->kernelp = DEVO__GPU_DEFAULT_KERNELP;
  if (want & DEVO__GPU_IDX_KERNELP)
    g->kernelp = 1;
  if (want & DEVO__GPU_IDX_INLINE)
    g->kernelp = 0;
  if (g->persist || g->design == DEVO_GPU_MULTIKERNEL)
    g->kernelp = 0; /* the multikernel design has its own index step */
  g->barrier = DEVO__GPU_DEFAULT_BARRIER;
  if (want & DEVO__GPU_BAR_RELAXED)
    g->barrier = DEVO__BARRIER_RELAXED;
  if (want & DEVO__GPU_BAR_ACQUIRE)
    g->barrier = DEVO__BARRIER_ACQUIRE;
  if (want & DEVO__GPU_CG_BARRIER)
    g->barrier = DEVO__BARRIER_CG;
  g->fast = 0;
  memset(&g->fc, 0, sizeof g->fc);
  /* the register-held and cluster kernels run as persistent chunks with devo's split barrier;
   * every explicit block option (thread cap, staging, the classic kernel) keeps the block
   * evaluators, so that each stays measurable and tested */
  const int fast_ok =
      g->persist && g->design == DEVO_GPU_FUSED && g->barrier == DEVO__BARRIER_ACQUIRE;
  const int blk_opts =
      DEVO__GPU_CLASSIC | DEVO__GPU_MAX_LANES(63 * 32) | DEVO__GPU_STAGE_ON | DEVO__GPU_STAGE_OFF;
  if (g->var) {
    g->kernelp = 0; /* gpu_vfused.cu draws its indices inline */
    /* classic kinds at D <= 128: gpu_fast.cu's version 2 with the variant compiled in; CEC
     * F01..F07 at D <= 128: gpu_cec.cu's fourth version (the multikernel design, graphs,
     * other barriers and the block options keep the general kernel, as they keep
     * gpu_fused.cu's for rand1bin); the rest: gpu_vfused.cu */
    if (!fast_ok || g->var_multi || (want & (DEVO__GPU_CLASSIC | DEVO__GPU_VAR_GENERAL)))
      return DEVO_OK;
    if (g->a.v.kind == DEVO__P_CEC) {
      if (DEVO__GPU_DEFAULT_CEC_CLUSTER && !(want & (blk_opts | DEVO__GPU_TRIAL_GLOBAL)))
        DEVO__CK(devo__gpu_cecc_plan(&g->a.v, &g->va.var, np, want, p, &g->fc, &g->fast));
    } else if (!g->blk && g->a.v.kind != DEVO__P_SOCO &&
               (DEVO__GPU_DEFAULT_FAST || (want & DEVO__GPU_FAST))) {
      DEVO__CK(devo__gpu_fast_plan(g->a.v.kind, &g->va.var, np, d, want, p, &g->fc, &g->fast));
      if (g->fc.c > 1)
        g->fast = 0;
    }
    return DEVO_OK;
  }
  if (g->a.v.kind == DEVO__P_CEC) {
    if (fast_ok && DEVO__GPU_DEFAULT_CEC_CLUSTER && !(want & (blk_opts | DEVO__GPU_TRIAL_GLOBAL)))
      DEVO__CK(devo__gpu_cecc_plan(&g->a.v, NULL, np, want, p, &g->fc, &g->fast));
  } else if (g->a.v.kind == DEVO__P_ETC) {
    /* bit 28 means the block evaluator v1, or with bit 29 the warp kernel's version 1 */
    const int v1 = (want & DEVO__GPU_ETC_WARP) ? 0 : DEVO__GPU_ETC_V1;
    if (fast_ok && (DEVO__GPU_DEFAULT_ETC_WARP || (want & DEVO__GPU_ETC_WARP)) &&
        !(want & (blk_opts | DEVO__GPU_ETC_BLOCK | v1)))
      DEVO__CK(devo__gpu_etcw_plan(&g->a.v, np, want, p, &g->fc, &g->fast));
  } else if (g->a.v.kind != DEVO__P_SOCO && fast_ok && !(want & DEVO__GPU_CLASSIC) &&
             (DEVO__GPU_DEFAULT_FAST || (want & DEVO__GPU_FAST))) {
    DEVO__CK(devo__gpu_fast_plan(g->a.v.kind, NULL, np, d, want, p, &g->fc, &g->fast));
    if (!(want & DEVO__GPU_FAST) && g->fc.c > 1)
      g->fast = 0;
  }
  return DEVO_OK;
}

/* A strategy's name from de_variant.h's table. */
static const char *devo__gpu_strat_name(int strategy)
{
#define DEVO__GPU_STRAT_NAME_(id, name, picks, best, expr)                                         \
  case DEVO__STRAT_##id:                                                                           \
    return name;
  switch (strategy) {
    DEVO__STRATEGIES(DEVO__GPU_STRAT_NAME_)
  default:
    return "?";
  }
#undef DEVO__GPU_STRAT_NAME_
}

static void devo__gpu_describe(devo_solver *s, const devo__gpu_state *g)
{
  const char *mode;
  char grid[96];
  if (g->sh) {
    int used = snprintf(s->info, sizeof s->info, "gpu: %.100s (sm_%d%d, %d SMs), ", g->prop.name,
                        g->prop.major, g->prop.minor, g->prop.multiProcessorCount);
    if (used > 0 && (size_t)used < sizeof s->info)
      devo__gpu_shade_describe(g->sh, s->info + used, sizeof s->info - (size_t)used);
    return;
  }
  if (g->design == DEVO_GPU_MULTIKERNEL)
    mode = "multikernel (4 launches per generation)";
  else if (g->persist)
    mode = g->barrier == DEVO__BARRIER_CG
               ? "fused, persistent cooperative kernel (1 grid.sync per generation)"
               : (g->barrier == DEVO__BARRIER_RELAXED
                      ? "fused, persistent cooperative kernel (1 split grid barrier per "
                        "generation, relaxed polls)"
                      : "fused, persistent cooperative kernel (1 split grid barrier per "
                        "generation, acquire polls)");
  else
    mode = g->kernelp ? "fused, CUDA graphs of 256/16/1 generations, indices by kernel(P)"
                      : "fused, CUDA graphs of 256/16/1 generations, indices inline";
  if (g->design != DEVO_GPU_MULTIKERNEL && g->persist)
    snprintf(grid, sizeof grid, "grid %d blocks (%d per SM x %d SMs resident)", g->pgrid, g->occ,
             g->prop.multiProcessorCount);
  else
    snprintf(grid, sizeof grid, "grid %d blocks, %d per SM resident", g->blocks, g->occ);
  snprintf(s->info, sizeof s->info,
           "gpu: %.100s (sm_%d%d, %d SMs), %s; %d threads/block, %d vector%s/block, %d "
           "threads/vector, trial in %s memory, %zu B dynamic shared/block, %s",
           g->prop.name, g->prop.major, g->prop.minor, g->prop.multiProcessorCount, mode,
           g->threads, g->a.vpb, g->a.vpb > 1 ? "s" : "", g->a.lanes,
           g->a.trial_shared && g->design != DEVO_GPU_MULTIKERNEL ? "shared" : "global", g->smem,
           grid);
  if (g->fast && g->design != DEVO_GPU_MULTIKERNEL) {
    size_t used = strlen(s->info);
    snprintf(s->info + used, sizeof s->info - used,
             "; generations by %s%s: %d blocks of %d threads, %d vector%s/block, %d "
             "threads/vector x %d coordinate%s",
             g->a.v.kind == DEVO__P_ETC
                 ? (g->fc.version == 1   ? "gpu_etc.cu version 1 (one warp per schedule)"
                    : g->fc.version == 2 ? "gpu_etc.cu version 2 (one warp per schedule)"
                                         : "gpu_etc.cu version 3 (two warps per schedule)")
                 : (g->fc.cluster > 1    ? "gpu_cec.cu (two-block clusters, matrices resident in "
                                           "distributed shared memory)"
                    : g->fc.cluster == 1 ? "gpu_cec.cu (one block, matrices resident in shared "
                                           "memory)"
                                         : "gpu_fast.cu"),
             g->fc.mma ? " with the matrix products on the tensor cores" : "", g->fc.blocks,
             g->fc.threads, g->fc.vpb, g->fc.vpb > 1 ? "s" : "", g->fc.lanes, g->fc.c,
             g->fc.c > 1 ? "s" : "");
  }
  if (g->var) {
    size_t used = strlen(s->info);
    const devo__variant *v = &g->va.var;
    if (g->fast)
      snprintf(s->info + used, sizeof s->info - used,
               "; variant %s%s%s%s: specialised variant kernel (%s%s)",
               devo__gpu_strat_name(v->strategy), v->crossover == DEVO__XOVER_EXP ? "exp" : "bin",
               v->jde ? "+jde" : "", v->gobl > 0.0 ? "+gobl" : "",
               g->a.v.kind == DEVO__P_CEC
                   ? "gpu_cec.cu version 4"
                   : "gpu_fast.cu version 2, strategy and crossover compiled in",
               !(v->gobl > 0.0)            ? ""
               : devo__gpu_jumps_inside(g) ? "; GOBL jumps inside it"
                                           : "; GOBL jumps by gpu_vfused.cu's jump kernels");
    else if (g->persist && g->kt.persist == g->vk.persist2)
      snprintf(s->info + used, sizeof s->info - used,
               "; variant %s%s%s%s: fused variant kernel (gpu_vfused.cu version 2, strategy and "
               "crossover compiled in%s)",
               devo__gpu_strat_name(v->strategy), v->crossover == DEVO__XOVER_EXP ? "exp" : "bin",
               v->jde ? "+jde" : "", v->gobl > 0.0 ? "+gobl" : "",
               g->var_multi ? "; the multikernel design was asked for" : "");
    else
      snprintf(s->info + used, sizeof s->info - used,
               "; variant %s%s%s%s: general fused kernel (gpu_vfused.cu%s; gpu_fast.cu's version 2 "
               "and gpu_cec.cu's version 4 host the variants for the classic functions and CEC "
               "F01..F07 at D <= 128 in persistent chunks; gpu_etc.cu and the multikernel design "
               "run rand1bin only)",
               devo__gpu_strat_name(v->strategy), v->crossover == DEVO__XOVER_EXP ? "exp" : "bin",
               v->jde ? "+jde" : "", v->gobl > 0.0 ? "+gobl" : "",
               g->var_multi ? "; the multikernel design was asked for" : "");
  }
  if (g->blk) {
    size_t used = strlen(s->info);
    snprintf(s->info + used, sizeof s->info - used,
             "; block work (%d doubles) in %s memory, %s matrix %s", g->a.work_n,
             g->a.sm_work >= 0 ? "shared" : "global",
             g->a.v.kind == DEVO__P_CEC ? "rotation" : "ETC",
             g->a.sm_stage >= 0 ? "staged in shared memory" : "read from global memory");
  }
}

/* ---- chunks ------------------------------------------------------------------------------ */

/* The reduction of generation gen's population into ctl, and ctl's copy into *h_ctl, on st. */
static int devo__gpu_best_enqueue(devo_solver *s, devo__gpu_state *g, int64_t gen, cudaStream_t st)
{
  devo__gpu_args a = g->a;
  if (g->sh)
    devo__gpu_shade_current(g->sh, &a); /* its buffer and size follow the reduction */
  else if (g->var && (gen & 1))
    a.fit = g->va.fit1; /* variant runs keep fitness by generation parity */
  void *args[] = {&a};
  DEVO__CK(
      cudaLaunchKernel(g->kt.best, dim3(g->best_blocks), dim3(DEVO__FLAT_THREADS), args, 0, st));
  DEVO__CK(cudaMemcpyAsync(g->h_ctl, g->a.ctl, sizeof *g->h_ctl, cudaMemcpyDeviceToHost, st));
  return DEVO_OK;
}

/* Best value and index of generation gen's population into ctl, *h_ctl, s->best_f. */
static int devo__gpu_best(devo_solver *s, devo__gpu_state *g, int64_t gen)
{
  const int st = devo__gpu_best_enqueue(s, g, gen, g->st);
  if (st != DEVO_OK)
    return st;
  DEVO__CK(cudaStreamSynchronize(g->st));
  g->best_idx = g->h_ctl->best_idx;
  s->best_f = g->h_ctl->best;
  return DEVO_OK;
}

/* Fused generations base + 1 .. base + n on g->st (captured into a graph by the caller). */
static int devo__gpu_enqueue_fused(devo_solver *s, devo__gpu_state *g, int n)
{
  for (uint32_t k = 1; k <= (uint32_t)n; ++k) {
    void *args[] = {&g->a, &k};
    void *vargs[] = {&g->a, &g->va, &k};
    if (g->var) {
      DEVO__CK(
          cudaLaunchKernel(g->kt.gen, dim3(g->blocks), dim3(g->threads), vargs, g->smem, g->st));
    } else if (g->kernelp) {
      /* idx(k) runs on st2 while gen(k - 1) runs on st; it overwrites the index buffer that
       * gen(k - 2) read, hence the wait on ev_gen (recorded after gen(k - 1)'s predecessor) */
      if (k == 1) {
        DEVO__CK(cudaEventRecord(g->ev_fork, g->st));
        DEVO__CK(cudaStreamWaitEvent(g->st2, g->ev_fork, 0));
        DEVO__CK(cudaLaunchKernel(g->kt.idx, dim3(g->idx_blocks), dim3(DEVO__FLAT_THREADS), args, 0,
                                  g->st2));
        DEVO__CK(cudaEventRecord(g->ev_idx, g->st2));
      }
      DEVO__CK(cudaStreamWaitEvent(g->st, g->ev_idx, 0));
      DEVO__CK(
          cudaLaunchKernel(g->kt.gen, dim3(g->blocks), dim3(g->threads), args, g->smem, g->st));
      if (k < (uint32_t)n) {
        uint32_t k1 = k + 1;
        void *args1[] = {&g->a, &k1};
        if (k > 1)
          DEVO__CK(cudaStreamWaitEvent(g->st2, g->ev_gen, 0));
        DEVO__CK(cudaLaunchKernel(g->kt.idx, dim3(g->idx_blocks), dim3(DEVO__FLAT_THREADS), args1,
                                  0, g->st2));
        DEVO__CK(cudaEventRecord(g->ev_idx, g->st2));
      }
      DEVO__CK(cudaEventRecord(g->ev_gen, g->st));
    } else {
      DEVO__CK(
          cudaLaunchKernel(g->kt.gen, dim3(g->blocks), dim3(g->threads), args, g->smem, g->st));
    }
  }
  if (g->kernelp) {
    /* join st2 back into st */
    DEVO__CK(cudaEventRecord(g->ev_idx, g->st2));
    DEVO__CK(cudaStreamWaitEvent(g->st, g->ev_idx, 0));
  }
  unsigned int un = (unsigned int)n;
  void *aargs[] = {&g->a, &un};
  DEVO__CK(cudaLaunchKernel(g->kt.advance, dim3(1), dim3(1), aargs, 0, g->st));
  return DEVO_OK;
}

static int devo__gpu_graph(devo_solver *s, devo__gpu_state *g, int level)
{
  cudaGraph_t graph = NULL;
  int st;
  DEVO__CK(cudaStreamBeginCapture(g->st, cudaStreamCaptureModeThreadLocal));
  st = devo__gpu_enqueue_fused(s, g, devo__graph_sizes[level]);
  cudaError_t e = cudaStreamEndCapture(g->st, &graph);
  if (st != DEVO_OK) {
    if (graph)
      cudaGraphDestroy(graph);
    return st;
  }
  if (e != cudaSuccess)
    return devo__cuerr(s, e, "cudaStreamEndCapture", __LINE__);
  e = cudaGraphInstantiate(&g->gx[level], graph, 0);
  cudaGraphDestroy(graph);
  if (e != cudaSuccess) {
    g->gx[level] = NULL;
    return devo__cuerr(s, e, "cudaGraphInstantiate", __LINE__);
  }
  return DEVO_OK;
}

static int devo__gpu_run_graphs(devo_solver *s, devo__gpu_state *g, uint32_t gen0, int64_t n)
{
  unsigned long long base = gen0;
  void *args[] = {&g->a, &base};
  DEVO__CK(cudaLaunchKernel(g->kt.setbase, dim3(1), dim3(1), args, 0, g->st));
  for (int level = 0; level < 3; ++level) {
    int64_t size = devo__graph_sizes[level];
    while (n >= size) {
      if (!g->gx[level]) {
        int st = devo__gpu_graph(s, g, level);
        if (st != DEVO_OK)
          return st;
      }
      DEVO__CK(cudaGraphLaunch(g->gx[level], g->st));
      n -= size;
    }
  }
  return DEVO_OK;
}

static int devo__gpu_run_persist(devo_solver *s, devo__gpu_state *g, uint32_t gen0, int64_t n)
{
  int barrier = g->barrier;
  while (n > 0) {
    uint32_t m = n > (1 << 30) ? (1u << 30) : (uint32_t)n;
    void *args[] = {&g->a, &gen0, &m, &barrier};
    void *vargs[] = {&g->a, &g->va, &gen0, &m, &barrier};
    DEVO__CK(cudaMemsetAsync(&g->a.ctl->bar, 0, sizeof g->a.ctl->bar, g->st));
    if (g->var && g->fast) {
      DEVO__CK(devo__gpu_fastv_launch(&g->fc, g->a, g->va, gen0, m, g->st));
    } else if (g->var) {
      DEVO__CK(cudaLaunchCooperativeKernel(g->kt.persist, dim3(g->pgrid), dim3(g->threads), vargs,
                                           g->smem, g->st));
    } else if (g->fast) {
      DEVO__CK(devo__gpu_fast_launch(&g->fc, g->a, gen0, m, g->st));
    } else {
      DEVO__CK(cudaLaunchCooperativeKernel(g->kt.persist, dim3(g->pgrid), dim3(g->threads), args,
                                           g->smem, g->st));
    }
    gen0 += m;
    n -= m;
  }
  return DEVO_OK;
}

static int devo__gpu_run_multi(devo_solver *s, devo__gpu_state *g, uint32_t gen0, int64_t n)
{
  for (int64_t k = 1; k <= n; ++k) {
    uint32_t gen = gen0 + (uint32_t)k;
    void *args[] = {&g->a, &gen};
    DEVO__CK(cudaLaunchKernel(g->kt.mk_idx, dim3(g->idx_blocks), dim3(DEVO__FLAT_THREADS), args, 0,
                              g->st));
    DEVO__CK(cudaLaunchKernel(g->kt.mk_trial, dim3(g->flat_blocks), dim3(DEVO__FLAT_THREADS), args,
                              0, g->st));
    DEVO__CK(cudaLaunchKernel(g->kt.mk_eval, dim3(g->blocks), dim3(g->threads), args, g->smem_red,
                              g->st));
    DEVO__CK(cudaLaunchKernel(g->kt.mk_replace, dim3(g->blocks), dim3(g->threads), args, 0, g->st));
  }
  return DEVO_OK;
}

/* Generations of the chunk gen0 + 1 .. gen0 + ngens that ran: up to the one whose population
 * reached the target (h_ctl read back after the chunk). */
static int64_t devo__gpu_done(const devo__gpu_state *g, uint32_t gen0, int64_t ngens)
{
  int64_t done = ngens;
  if (g->a.has_target && g->h_ctl->stop_gen != DEVO__NO_STOP) {
    /* the generation (relative to this chunk) whose population reached the target */
    int64_t at = (int64_t)(uint32_t)((uint32_t)g->h_ctl->stop_gen - gen0);
    if (at >= 1 && at < done)
      done = at;
  }
  return done;
}

/* GOBL jump generation gen with the jump's k: three launches on st (min/max, opposites and
 * their evaluation, survivors); each does nothing after the generation that reached the target. */
static int devo__gpu_run_jump(devo_solver *s, devo__gpu_state *g, uint32_t gen, double k)
{
  void *args[] = {&g->a, &g->va, &gen};
  void *oargs[] = {&g->a, &g->va, &gen, &k};
  const int64_t fmax = 32LL * g->prop.multiProcessorCount;
  int64_t bb = ((int64_t)g->a.dim + DEVO__FLAT_THREADS - 1) / DEVO__FLAT_THREADS;
  int64_t sb = 2 * (int64_t)g->a.np;
  if (bb > fmax)
    bb = fmax;
  if (sb > (1 << 20))
    sb = 1 << 20;
  if (s->o.gpu_design & DEVO__GPU_VAR_GENERAL) {
    DEVO__CK(cudaLaunchKernel(g->vk.gobl_box1, dim3((unsigned)bb), dim3(DEVO__FLAT_THREADS), args,
                              0, g->st));
  } else {
    const int64_t cb = ((int64_t)g->a.dim + 31) / 32;
    DEVO__CK(cudaLaunchKernel(g->vk.gobl_box, dim3((unsigned)(cb < fmax ? cb : fmax)), dim3(1024),
                              args, 0, g->st));
  }
  DEVO__CK(cudaLaunchKernel(g->vk.gobl_opp, dim3(g->blocks), dim3(g->threads), oargs, g->smem_red,
                            g->st));
  DEVO__CK(cudaLaunchKernel(g->vk.gobl_select, dim3((unsigned)sb), dim3(DEVO__FLAT_THREADS), args,
                            0, g->st));
  return DEVO_OK;
}

/* A variant run's chunk: DE generations by the variant kernel (persistent or graphs), split at
 * GOBL jump generations (devo__gobl_jump is a pure function of (seed, generation), so the host
 * knows them), which run as their own launches, unless the specialised kernel runs the jumps
 * itself (devo__gpu_jumps_inside: the whole chunk is one persistent launch). The scan for jumps
 * looks at most 2^16 generations ahead per step. */
static int devo__gpu_run_var(devo_solver *s, devo__gpu_state *g, uint32_t gen0, int64_t n)
{
  const double p = g->va.var.gobl;
  uint32_t gen = gen0;
  int st;
  if (devo__gpu_jumps_inside(g))
    return devo__gpu_run_persist(s, g, gen0, n);
  while (n > 0) {
    int64_t m = n, lim = n < 65536 ? n : 65536;
    double k = 0.0;
    if (p > 0.0)
      for (m = 0; m < lim && !devo__gobl_jump(g->a.seed, gen + (uint32_t)m + 1u, p, &k); ++m) {
      }
    if (m == 0) {
      st = devo__gpu_run_jump(s, g, gen + 1u, k);
      m = 1;
    } else {
      st = g->persist ? devo__gpu_run_persist(s, g, gen, m) : devo__gpu_run_graphs(s, g, gen, m);
    }
    if (st != DEVO_OK)
      return st;
    gen += (uint32_t)m;
    n -= m;
  }
  return DEVO_OK;
}

static int devo__gpu_run(devo_solver *s, int64_t ngens)
{
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  int st;
  if (!g)
    return devo__set_err(s, DEVO_E_STATE, "the GPU backend was not started");
  if (ngens <= 0)
    return DEVO_OK;
  DEVO__CK(cudaSetDevice(g->dev));
  /* generation numbers are 32-bit counters, as on the CPU (uint32_t)(gens + 1) */
  const uint32_t gen0 = (uint32_t)s->gens;
  if (g->sh) {
    int64_t done = 0, evals = 0;
    st = devo__gpu_shade_run(s, g->sh, g->h_ctl, g->a.ctl, gen0, ngens, g->st, &done, &evals);
    if (st == DEVO_OK)
      st = devo__gpu_best(s, g, s->gens + done);
    s->gens += done;
    s->evals += evals;
    s->np_now = devo__gpu_shade_np(g->sh); /* the solver's budget arithmetic (L-SHADE) */
    return st;
  }
  if (g->var)
    st = devo__gpu_run_var(s, g, gen0, ngens);
  else if (g->design == DEVO_GPU_MULTIKERNEL)
    st = devo__gpu_run_multi(s, g, gen0, ngens);
  else if (g->persist)
    st = devo__gpu_run_persist(s, g, gen0, ngens);
  else
    st = devo__gpu_run_graphs(s, g, gen0, ngens);
  if (st != DEVO_OK)
    return st;
  if (g->var) {
    /* the stop generation first: the fitness buffer to reduce is that generation's parity */
    DEVO__CK(cudaMemcpyAsync(g->h_ctl, g->a.ctl, sizeof *g->h_ctl, cudaMemcpyDeviceToHost, g->st));
    DEVO__CK(cudaStreamSynchronize(g->st));
    st = devo__gpu_best(s, g, (int64_t)s->gens + devo__gpu_done(g, gen0, ngens));
  } else {
    st = devo__gpu_best(s, g, s->gens);
  }
  if (st != DEVO_OK)
    return st;
  const int64_t done = devo__gpu_done(g, gen0, ngens);
  s->gens += done;
  s->evals += done * (int64_t)g->a.np;
  return DEVO_OK;
}

/* ---- start ------------------------------------------------------------------------------- */

static const char *devo__kind_name(int kind)
{
  switch (kind) {
  case DEVO__P_CEC:
    return "CEC";
  case DEVO__P_ETC:
    return "ETC scheduling";
  case DEVO__P_USER:
    return "user objective";
  default:
    return "this";
  }
}

static int devo__gpu_alloc(devo_solver *s, void **p, size_t bytes, const char *what, int line)
{
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = NULL;
    /* out of device memory is DEVO_E_NOMEM, as when the size check before finds too little */
    return devo__set_err(s, e == cudaErrorMemoryAllocation ? DEVO_E_NOMEM : DEVO_E_CUDA,
                         "cudaMalloc failed for %s (%zu bytes): %s (%s:%d)", what, bytes,
                         cudaGetErrorString(e), DEVO__GPU_FILE, line);
  }
  return DEVO_OK;
}

static int devo__gpu_start_inner(devo_solver *s, devo__gpu_state *g)
{
  const devo__pview *hv = &s->prob->view;
  const devo_problem *pr = s->prob;
  const int np = s->o.np, d = hv->dim;
  const size_t n = (size_t)np * (size_t)d;
  int nseeds = pr->nseeds < np - 4 ? pr->nseeds : np - 4;
  double *d_seeds = NULL;
  int st;
  if (nseeds < 0 || !pr->seeds)
    nseeds = 0;

  DEVO__CK(cudaSetDevice(g->dev));
  DEVO__CK(cudaGetDeviceProperties(&g->prop, g->dev));
  g->design = s->o.gpu_design & DEVO__GPU_DESIGN_MASK;
  if (g->design != DEVO_GPU_FUSED && g->design != DEVO_GPU_MULTIKERNEL)
    return devo__set_err(s, DEVO_E_INVALID, "unknown GPU design %d", g->design);
  g->va.var = s->o.var;
  const int shade = devo__variant_shade(&s->o.var);
  g->var = !shade && !devo__variant_plain(&s->o.var);
  if (shade)
    g->design = DEVO_GPU_FUSED; /* kernels/gpu_shade.cu's launches, whatever the design */
  if (g->var) {
    /* hand-over: every variant but plain rand1bin runs gpu_vfused.cu's fused kernels */
    if (devo__gpu_vfused_fill(hv->kind, &s->o.var, &g->vk) != 0)
      return devo__set_err(s, DEVO_E_INVALID, "%s problem kind has no variant kernel",
                           devo__kind_name(hv->kind));
    /* the solver validates this; the kernels would read past the population without it */
    if (np < devo__strategy_min_np(s->o.var.strategy))
      return devo__set_err(s, DEVO_E_INVALID,
                           "population size %d is below %d, the strategy's minimum", np,
                           devo__strategy_min_np(s->o.var.strategy));
    g->kt.gen = g->vk.gen;
    /* persistent chunks: version 2 (strategy and crossover compiled in) unless the general
     * kernel is asked for; gpu_fast.cu's variant kernel may still take over (config) */
    g->kt.persist = g->vk.persist2 && !(s->o.gpu_design & DEVO__GPU_VAR_GENERAL) ? g->vk.persist2
                                                                                 : g->vk.persist;
    g->var_multi = g->design == DEVO_GPU_MULTIKERNEL;
    g->design = DEVO_GPU_FUSED;
  }

  g->a.v = *hv;
  g->a.np = np;
  g->a.dim = d;
  g->a.seed = s->o.seed;
  devo__philox_keys_init(&g->a.ks, s->o.seed);
  g->a.f = s->o.f;
  g->a.cr = s->o.cr;
  g->a.bounds = s->o.bounds;
  g->a.has_target = !isnan(s->o.target);
  g->a.target = g->a.has_target ? s->o.target : 0.0;
  g->blk = hv->kind == DEVO__P_CEC || hv->kind == DEVO__P_ETC;
  g->a.work_n = (int)devo__gpu_blk_work(hv);
  g->a.sm_work = -1;
  g->a.sm_stage = -1;
  g->a.etc_v1 = (s->o.gpu_design & DEVO__GPU_ETC_WARP1) == DEVO__GPU_ETC_V1;
  st = devo__gpu_config(s, g);
  if (st != DEVO_OK)
    return st;

  /* will it fit? (checked before anything is allocated or run) */
  size_t need = 2 * n * sizeof(double) + (size_t)np * sizeof(double) + (size_t)d * sizeof(double) +
                (size_t)nseeds * d * sizeof(double) +
                (size_t)DEVO__BEST_BLOCKS * (sizeof(double) + sizeof(int)) + sizeof(devo__gpu_ctl);
  if (g->kernelp || g->design == DEVO_GPU_MULTIKERNEL)
    need += 2 * (size_t)np * sizeof(devo__de_idx);
  if (g->design == DEVO_GPU_MULTIKERNEL)
    need += n * sizeof(double) + (size_t)np * sizeof(double);
  if (hv->kind == DEVO__P_CEC)
    need += (size_t)hv->ncomp * (size_t)d * ((size_t)d + 2) * sizeof(double);
  else if (hv->kind == DEVO__P_ETC)
    need += ((size_t)hv->ntasks + 1) * (size_t)hv->nmach * sizeof(double);
  if (g->blk && g->a.sm_work < 0)
    need += (size_t)np * (size_t)g->a.work_n * sizeof(double);
  if (g->var)
    need += (size_t)np * sizeof(double) * (s->o.var.jde ? 5 : 1);
  if (g->var && s->o.var.gobl > 0.0)
    need += (n + (size_t)np + 2 * (size_t)d) * sizeof(double);
  if (shade) /* a third population and fitness and the draws ahead (the persistent kernel);
              * fitness, two sets of F, CR, delta and success, the ranks and slots; the archive at
              * NP_init's capacity */
    need += n * sizeof(double) + (size_t)np * (9 * sizeof(double) + 4 * sizeof(int) + 2) +
            ((size_t)np * 1024 * (sizeof(devo__sh_pre) + 4) < ((size_t)32 << 20)
                 ? (size_t)np * 1024 * (sizeof(devo__sh_pre) + 4)
                 : ((size_t)32 << 20)) + /* draws ahead */
            (size_t)devo__sh_arc_cap(s->o.var.arc_rate, (uint32_t)np) * ((size_t)d + 1) *
                sizeof(double);
  size_t mfree = 0, mtotal = 0;
  DEVO__CK(cudaMemGetInfo(&mfree, &mtotal));
  if (need > mfree || mfree - need < DEVO__GPU_RESERVE)
    return devo__set_err(s, DEVO_E_NOMEM,
                         "the population does not fit in device memory: NP = %d x D = %d needs "
                         "%.2f GiB on %s, %.2f GiB of %.2f GiB free (keeping %d MiB in reserve)",
                         np, d, (double)need / (1 << 30), g->prop.name, (double)mfree / (1 << 30),
                         (double)mtotal / (1 << 30), (int)(DEVO__GPU_RESERVE >> 20));

  DEVO__CK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
  DEVO__CK(cudaStreamCreateWithFlags(&g->st2, cudaStreamNonBlocking));
  DEVO__CK(cudaEventCreateWithFlags(&g->ev_fork, cudaEventDisableTiming));
  DEVO__CK(cudaEventCreateWithFlags(&g->ev_idx, cudaEventDisableTiming));
  DEVO__CK(cudaEventCreateWithFlags(&g->ev_gen, cudaEventDisableTiming));
  DEVO__CK(cudaMallocHost((void **)&g->h_ctl, sizeof *g->h_ctl));

#define DEVO__ALLOC(ptr, bytes, what)                                                              \
  do {                                                                                             \
    if ((st = devo__gpu_alloc(s, (void **)&(ptr), (bytes), (what), __LINE__)) != DEVO_OK)          \
      return st;                                                                                   \
  } while (0)
  DEVO__ALLOC(g->a.pop0, n * sizeof(double), "the population");
  DEVO__ALLOC(g->a.pop1, n * sizeof(double), "the population");
  DEVO__ALLOC(g->a.fit, (size_t)np * sizeof(double), "the fitness");
  DEVO__ALLOC(g->a.part_val, DEVO__BEST_BLOCKS * sizeof(double), "the best reduction");
  DEVO__ALLOC(g->a.part_idx, DEVO__BEST_BLOCKS * sizeof(int), "the best reduction");
  DEVO__ALLOC(g->a.ctl, sizeof(devo__gpu_ctl), "the control block");
  if (g->kernelp || g->design == DEVO_GPU_MULTIKERNEL) {
    DEVO__ALLOC(g->a.idx0, (size_t)np * sizeof(devo__de_idx), "the indices");
    DEVO__ALLOC(g->a.idx1, (size_t)np * sizeof(devo__de_idx), "the indices");
  }
  if (g->design == DEVO_GPU_MULTIKERNEL) {
    DEVO__ALLOC(g->a.trial, n * sizeof(double), "the trial population");
    DEVO__ALLOC(g->a.tfit, (size_t)np * sizeof(double), "the trial fitness");
  }
  if (g->blk && g->a.sm_work < 0)
    DEVO__ALLOC(g->a.work, (size_t)np * (size_t)g->a.work_n * sizeof(double), "the block work");
  if (g->var)
    DEVO__ALLOC(g->va.fit1, (size_t)np * sizeof(double), "the fitness");
  if (g->var && s->o.var.jde) {
    DEVO__ALLOC(g->va.F0, (size_t)np * sizeof(double), "jDE's F");
    DEVO__ALLOC(g->va.F1, (size_t)np * sizeof(double), "jDE's F");
    DEVO__ALLOC(g->va.CR0, (size_t)np * sizeof(double), "jDE's CR");
    DEVO__ALLOC(g->va.CR1, (size_t)np * sizeof(double), "jDE's CR");
  }
  if (g->var && s->o.var.gobl > 0.0) {
    if (!devo__gpu_jumps_inside(g)) /* the jump kernels' opposites; inside, in registers */
      DEVO__ALLOC(g->va.gx, n * sizeof(double), "the GOBL opposites");
    DEVO__ALLOC(g->va.gf, (size_t)np * sizeof(double), "the GOBL opposites' fitness");
    DEVO__ALLOC(g->va.gbox, 2 * (size_t)d * sizeof(double), "the GOBL bounds");
    /* launched with the init kernel's shared memory, which may be above the default 48 KB */
    DEVO__CK(devo__gpu_smem_max(g->vk.gobl_opp, &g->prop));
  }
  {
    char why[300];
    st = devo__gpu_pdata_upload(pr, &g->pd, &g->a.v, g->st, why, sizeof why);
    if (st != DEVO_OK)
      return devo__set_err(s, st, "problem data: %s", why);
    g->a.rott = g->pd.rott;
  }

  g->h_ctl->best = 0.0;
  g->h_ctl->best_idx = 0;
  g->h_ctl->done_blocks = 0;
  g->h_ctl->base = 0;
  g->h_ctl->stop_gen = DEVO__NO_STOP;
  g->h_ctl->bar = 0;
  DEVO__CK(cudaMemcpyAsync(g->a.ctl, g->h_ctl, sizeof *g->h_ctl, cudaMemcpyHostToDevice, g->st));

  if (nseeds > 0) {
    DEVO__ALLOC(d_seeds, (size_t)nseeds * d * sizeof(double), "the seed vectors");
    cudaError_t e = cudaMemcpyAsync(d_seeds, pr->seeds, (size_t)nseeds * d * sizeof(double),
                                    cudaMemcpyHostToDevice, g->st);
    if (e != cudaSuccess) {
      cudaFree(d_seeds);
      return devo__cuerr(s, e, "cudaMemcpyAsync", __LINE__);
    }
  }
#undef DEVO__ALLOC
  {
    void *args[] = {&g->a, &d_seeds, &nseeds};
    /* the uploads first, out of the timing below */
    cudaError_t e = cudaStreamSynchronize(g->st);
    const double t0 = devo__now();
    if (e == cudaSuccess)
      e = cudaLaunchKernel(g->kt.init, dim3(g->blocks), dim3(g->threads), args, g->smem_red, g->st);
    if (e == cudaSuccess && g->va.F0) {
      void *vargs[] = {&g->a, &g->va};
      e = cudaLaunchKernel(g->vk.init, dim3(g->idx_blocks), dim3(DEVO__FLAT_THREADS), vargs, 0,
                           g->st);
    }
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(g->st); /* the seeds may go now */
    cudaFree(d_seeds);
    if (e != cudaSuccess)
      return devo__cuerr(s, e, "cudaLaunchKernel(init) or cudaStreamSynchronize", __LINE__);
    /* NP evaluations and a launch: what the first generation will cost at least, so that
     * solve_loop does not start it too close to the deadline (found in review: the GPU set no
     * estimate, and a first generation longer than the slack overran the limit) */
    s->gen_estimate = devo__now() - t0;
  }
  if (shade) {
    st = devo__gpu_shade_start(s, &g->a, &g->prop, g->blk, g->smem, g->st, &g->sh);
    if (st != DEVO_OK)
      return st;
  }
  st = devo__gpu_best(s, g, 0);
  if (st != DEVO_OK)
    return st;
  s->evals = np;
  s->gens = 0;
  s->np_now = np;
  devo__gpu_describe(s, g);
  return DEVO_OK;
}

static int devo__gpu_start(devo_solver *s)
{
  devo__gpu_state *g;
  int dev = 0, st, kind = s->prob->view.kind;
  char why[400];
  if (!devo__gpu_pick(&dev, why, sizeof why))
    return devo__set_err(s, DEVO_E_NODEVICE, "%s", why);
  g = (devo__gpu_state *)devo__calloc(&s->al, 1, sizeof *g);
  if (!g)
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for the GPU backend state");
  s->bk_state = g;
  g->dev = dev;
  if (devo__gpu_util_fill(kind, &g->kt) != 0 || devo__gpu_fused_fill(kind, &g->kt) != 0 ||
      devo__gpu_multi_fill(kind, &g->kt) != 0) {
    devo__gpu_stop(s);
    return devo__set_err(s, DEVO_E_INVALID, "%s problem kind is not supported on the GPU yet",
                         devo__kind_name(kind));
  }
  st = devo__gpu_start_inner(s, g);
  if (st != DEVO_OK)
    devo__gpu_stop(s); /* the message is set; stop() is also safe to call again */
  return st;
}

/* ---- results ----------------------------------------------------------------------------- */

static int devo__gpu_best_x(devo_solver *s, double *x)
{
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  if (!g)
    return devo__set_err(s, DEVO_E_STATE, "the GPU backend was not started");
  devo__gpu_args cur = g->a;
  if (g->sh)
    devo__gpu_shade_current(g->sh, &cur);
  const double *pop = g->sh ? cur.pop0 : (s->gens & 1) ? g->a.pop1 : g->a.pop0;
  DEVO__CK(cudaSetDevice(g->dev));
  DEVO__CK(cudaMemcpyAsync(x, pop + (size_t)g->best_idx * g->a.dim,
                           (size_t)g->a.dim * sizeof(double), cudaMemcpyDeviceToHost, g->st));
  DEVO__CK(cudaStreamSynchronize(g->st));
  return DEVO_OK;
}

static int devo__gpu_population(devo_solver *s, double *pop, double *fit)
{
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  if (!g)
    return devo__set_err(s, DEVO_E_STATE, "the GPU backend was not started");
  devo__gpu_args c = g->a;
  if (g->sh)
    devo__gpu_shade_current(g->sh, &c); /* L-SHADE: NP_g rows */
  const double *cur = g->sh ? c.pop0 : (s->gens & 1) ? g->a.pop1 : g->a.pop0;
  DEVO__CK(cudaSetDevice(g->dev));
  if (pop)
    DEVO__CK(cudaMemcpyAsync(pop, cur, (size_t)c.np * g->a.dim * sizeof(double),
                             cudaMemcpyDeviceToHost, g->st));
  const double *cfit = g->sh ? c.fit : g->var && (s->gens & 1) ? g->va.fit1 : g->a.fit;
  if (fit)
    DEVO__CK(
        cudaMemcpyAsync(fit, cfit, (size_t)c.np * sizeof(double), cudaMemcpyDeviceToHost, g->st));
  DEVO__CK(cudaStreamSynchronize(g->st));
  return DEVO_OK;
}

/* jDE's F_i and CR_i of the current population (np each; either may be NULL). */
static int devo__gpu_adapt_state(devo_solver *s, double *F, double *CR)
{
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  if (!g)
    return devo__set_err(s, DEVO_E_STATE, "the GPU backend was not started");
  if (!g->va.F0)
    return devo__set_err(s, DEVO_E_INVALID, "jDE is off in this run");
  const int odd = (int)(s->gens & 1);
  const size_t bytes = (size_t)g->a.np * sizeof(double);
  DEVO__CK(cudaSetDevice(g->dev));
  if (F)
    DEVO__CK(cudaMemcpyAsync(F, odd ? g->va.F1 : g->va.F0, bytes, cudaMemcpyDeviceToHost, g->st));
  if (CR)
    DEVO__CK(
        cudaMemcpyAsync(CR, odd ? g->va.CR1 : g->va.CR0, bytes, cudaMemcpyDeviceToHost, g->st));
  DEVO__CK(cudaStreamSynchronize(g->st));
  return DEVO_OK;
}

extern "C" int devo__gpu_shade_profile(struct devo_solver *s, double *ms, int n)
{
  const devo__gpu_state *g =
      s && s->bk == &devo__gpu_backend ? (devo__gpu_state *)s->bk_state : NULL;
  return g && g->sh ? devo__gpu_shade_prof(g->sh, ms, n) : 0;
}

/* devo_solver_shade_state's copy of a JADE/SHADE/L-SHADE run (kernels/gpu_shade.cu). */
static int devo__gpu_shade_state_hook(devo_solver *s, devo_shade_state *st, double *archive,
                                      double *m_cr, double *m_f, double *F, double *CR)
{
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  if (!g)
    return devo__set_err(s, DEVO_E_STATE, "the GPU backend was not started");
  if (!g->sh)
    return devo__set_err(s, DEVO_E_INVALID, "the run has no JADE/SHADE state");
  DEVO__CK(cudaSetDevice(g->dev));
  return devo__gpu_shade_state(s, g->sh, g->st, st, archive, m_cr, m_f, F, CR);
}

/* ---- batches (engine/batch.c) ----------------------------------------------------------- */

/* A group's trials on one GPU, those that a batch kernel (gpu_fast.cu's, gpu_vfused.cu's) can
 * take advanced together: each chunk is one launch of every such trial's blocks behind one grid
 * barrier, each trial with its own chunk length from devo_solve's rules (devo__solve_step), so
 * that it stops where it would alone and computes what it would alone. Trials that no batch
 * kernel takes (another kernel, GOBL, SHADE, another configuration than the batch's) run alone
 * through devo_solve's loop as they come. */
struct devo__bt_trial {
  devo_solver *s;
  int k;        /* index among the caller's trials */
  int64_t m;    /* this chunk's generations (the next one grows from it: devo__solve_step) */
  int64_t done; /* of them, those that ran (up to the target) */
};

struct devo__bt {
  devo_solver *const *tr;
  int n, next; /* trials begun: tr[0 .. next - 1] */
  devo__trial_done_fn done;
  void *ud;
  const void *kern;            /* the batch kernel, NULL until a first trial joins */
  devo__gpu_fast_cfg fc, solo; /* the batch's layout, and its trials' own (theirs alike) */
  int np, dev, cap, nact;
  devo__bt_trial *act; /* cap, the trials in the batch */
  devo__gpu_bslot *h_slot, *d_slot;
  unsigned int *d_bar;
  cudaStream_t st;
  double sec_per_gen; /* of the last chunk; 0 = unknown */
  /* the GPU islands' migration (devo__gpu_migrate): room for mig_n islands */
  int mig_n;
  devo__gpu_mig *h_mig, *d_mig;
  double *d_stage;
};

/* Ends active trial i with status st (devo__solve_end, then the caller's callback). */
static void devo__bt_finish(devo__bt *b, int i, int st)
{
  devo__bt_trial t = b->act[i];
  b->act[i] = b->act[--b->nact];
  b->done(b->ud, t.k, devo__solve_end(t.s, st));
}

/* Frees what devo__bt_setup made (also after a set-up that failed half-way). */
static void devo__bt_release(devo__bt *b)
{
  if (b->st)
    cudaStreamDestroy(b->st);
  cudaFree(b->d_slot);
  cudaFree(b->d_bar);
  free(b->act);
  free(b->h_slot);
  cudaFree(b->d_mig);
  cudaFree(b->d_stage);
  free(b->h_mig);
  b->d_mig = NULL;
  b->d_stage = NULL;
  b->h_mig = NULL;
  b->mig_n = 0;
  b->st = NULL;
  b->d_slot = NULL;
  b->d_bar = NULL;
  b->act = NULL;
  b->h_slot = NULL;
  b->kern = NULL;
}

/* The batch kernel that can take trial s (started), NULL if none, and into *solo the layout its
 * run has alone: a specialised kernel's (gpu_fast.cu: rand1bin with or without jDE), or the
 * general variant kernel's (gpu_vfused.cu version 1: the variants of the block and general
 * kinds that no specialised kernel hosts, e.g. jDE on the CEC compositions). GOBL (jumps between
 * launches), SHADE, the multikernel design and other barriers run alone. */
static const void *devo__bt_kernel(const devo_solver *s, const devo__gpu_state *g,
                                   devo__gpu_fast_cfg *solo)
{
  if (!g || g->sh || !g->persist || g->design == DEVO_GPU_MULTIKERNEL ||
      (g->var && s->o.var.gobl > 0.0))
    return NULL;
  if (g->fast) {
    *solo = g->fc;
    return g->a.v.kind == DEVO__P_CEC
               ? devo__gpu_cecc_batch_kernel(g->a.v.cec_id, &g->fc)
               : devo__gpu_fast_batch_kernel(g->a.v.kind, g->var ? &g->va.var : NULL, &g->fc);
  }
  if (!g->var || g->var_multi || g->barrier != DEVO__BARRIER_ACQUIRE ||
      g->kt.persist != g->vk.persist)
    return NULL;
  memset(solo, 0, sizeof *solo);
  solo->kern = g->kt.persist;
  solo->lanes = g->a.lanes;
  solo->vpb = g->a.vpb;
  solo->c = 1;
  solo->threads = g->threads;
  solo->blocks = g->pgrid;
  solo->smem = g->smem;
  return devo__gpu_vfused_batch_kernel(g->a.v.kind);
}

/* The batch's set-up from its first trial: kernel, layout (a specialised kernel's own, the
 * general variant kernel's the trial's), capacity, slots, barrier, stream. */
static int devo__bt_setup(devo__bt *b, devo_solver *s, devo__gpu_state *g, const void *kern,
                          const devo__gpu_fast_cfg *solo)
{
  int cap = 0;
  devo__gpu_fast_cfg fc = *solo;
  if (g->fast && g->a.v.kind != DEVO__P_CEC)
    devo__gpu_fast_batch_layout(g->a.v.kind, g->a.np, solo, &fc);
  else /* the trials' own layout (gpu_cec.cu: the matrices in each block's shared memory) */
    DEVO__CK(devo__gpu_smem_max(kern, &g->prop));
  DEVO__CK(devo__gpu_batch_capacity(kern, &fc, &g->prop, &cap));
  if (cap < 1)
    return devo__set_err(s, DEVO_E_CUDA, "the batch kernel cannot run one trial resident");
  b->cap = cap < b->n ? cap : b->n;
  b->act = (devo__bt_trial *)calloc((size_t)b->cap, sizeof *b->act);
  b->h_slot = (devo__gpu_bslot *)calloc((size_t)b->cap, sizeof *b->h_slot);
  if (!b->act || !b->h_slot)
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for a batch of %d trials", b->cap);
  DEVO__CK(cudaMalloc((void **)&b->d_slot, (size_t)b->cap * sizeof *b->d_slot));
  DEVO__CK(cudaMalloc((void **)&b->d_bar, sizeof *b->d_bar));
  DEVO__CK(cudaStreamCreateWithFlags(&b->st, cudaStreamNonBlocking));
  b->kern = kern;
  b->fc = fc;
  b->solo = *solo;
  b->np = g->a.np;
  b->dev = g->dev;
  return DEVO_OK;
}

/* Whether trial s (started) joins the batch: 1 joined, 0 not (it runs alone), < 0 an error. A
 * batch with no trial left takes the next trial's kernel and layout (a group's trials of
 * another kernel, e.g. the CEC compositions after F01..F07, batch in their turn). */
static int devo__bt_join(devo__bt *b, devo_solver *s, int k)
{
  if (s->bk != &devo__gpu_backend)
    return 0;
  devo__gpu_state *g = (devo__gpu_state *)s->bk_state;
  devo__gpu_fast_cfg solo;
  const void *kern = devo__bt_kernel(s, g, &solo);
  if (!kern)
    return 0;
  const int same = kern == b->kern && g->dev == b->dev && g->a.np == b->np &&
                   solo.blocks == b->solo.blocks && solo.threads == b->solo.threads &&
                   solo.smem == b->solo.smem && solo.lanes == b->solo.lanes &&
                   solo.vpb == b->solo.vpb;
  if (b->kern && !same && b->nact == 0)
    devo__bt_release(b);
  if (!b->kern) {
    const int st = devo__bt_setup(b, s, g, kern, &solo);
    if (st != DEVO_OK) {
      devo__bt_release(b);
      return st;
    }
  } else if (!same || b->nact == b->cap) {
    return 0;
  }
  b->act[b->nact].s = s;
  b->act[b->nact].k = k;
  b->act[b->nact].m = 1; /* devo_solve's first chunk */
  b->nact++;
  return 1;
}

/* Says in s's backend description, once, that a batch kernel runs it (up to cap units a launch). */
static void devo__bt_mark(devo_solver *s, int cap, const char *units)
{
  const size_t used = strlen(s->info);
  if (!strstr(s->info, "; in a batch"))
    snprintf(s->info + used, sizeof s->info - used, "; in a batch (up to %d %s per launch)", cap,
             units);
}

/* Begins the next trial: into the batch, or run alone to its end. */
static void devo__bt_begin(devo__bt *b)
{
  const int k = b->next++;
  devo_solver *s = b->tr[k];
  if (devo__interrupted(s)) {
    b->done(b->ud, k, DEVO_OK); /* stopped before it began: not run */
    return;
  }
  int st = devo__solve_begin(s, devo__now());
  if (!s->running) {
    b->done(b->ud, k, st); /* refused before the run */
    return;
  }
  if (st == DEVO_OK) {
    const int j = devo__bt_join(b, s, k);
    if (j > 0) {
      devo__bt_mark(s, b->cap, "trials");
      return;
    }
    st = j < 0 ? j : devo__solve_loop(s);
  }
  b->done(b->ud, k, devo__solve_end(s, st));
}

/* devo_solve's checks before a chunk for every trial of the batch: those that stop end; the
 * others get their chunk. Returns the longest chunk (0: none left). */
static int64_t devo__bt_plan(devo__bt *b)
{
  int64_t ngens = 0;
  for (int i = 0; i < b->nact;) {
    devo__bt_trial *t = &b->act[i];
    devo_solver *s = t->s;
    const int st = devo__solve_step(s, b->sec_per_gen, &t->m);
    if (st != DEVO_OK) {
      devo__bt_finish(b, i, st);
      continue;
    }
    if (t->m > ngens)
      ngens = t->m;
    ++i;
  }
  return ngens;
}

/* One chunk of every trial in the batch (ngens: the longest), then each trial's generations,
 * evaluations and best as its own run would count them. s: the solver to blame for an error. */
static int devo__bt_chunk(devo__bt *b, int64_t ngens, devo_solver *s)
{
  const double t0 = devo__now();
  for (int i = 0; i < b->nact; ++i) {
    const devo__gpu_state *g = (const devo__gpu_state *)b->act[i].s->bk_state;
    devo__gpu_bslot *sl = &b->h_slot[i];
    sl->a = g->a;
    sl->a.lanes = b->fc.lanes;
    sl->a.vpb = b->fc.vpb;
    sl->va = g->va;
    sl->gen0 = (uint32_t)b->act[i].s->gens;
    sl->gen_end = sl->gen0 + (uint32_t)b->act[i].m;
  }
  DEVO__CK(cudaMemcpyAsync(b->d_slot, b->h_slot, (size_t)b->nact * sizeof *b->d_slot,
                           cudaMemcpyHostToDevice, b->st));
  DEVO__CK(cudaMemsetAsync(b->d_bar, 0, sizeof *b->d_bar, b->st));
  devo__gpu_batch bp = {b->d_slot, b->d_bar, 0};
  DEVO__CK(devo__gpu_batch_launch(b->kern, &b->fc, bp, b->nact, (uint32_t)ngens, b->st));
  for (int i = 0; i < b->nact; ++i) {
    const devo__gpu_state *g = (const devo__gpu_state *)b->act[i].s->bk_state;
    DEVO__CK(cudaMemcpyAsync(g->h_ctl, g->a.ctl, sizeof *g->h_ctl, cudaMemcpyDeviceToHost, b->st));
  }
  DEVO__CK(cudaStreamSynchronize(b->st));
  b->sec_per_gen = (devo__now() - t0) / (double)ngens;
  /* each trial's generations up to its stop, and the best of that generation's population */
  for (int i = 0; i < b->nact; ++i) {
    devo__bt_trial *t = &b->act[i];
    devo__gpu_state *g = (devo__gpu_state *)t->s->bk_state;
    t->done = devo__gpu_done(g, b->h_slot[i].gen0, t->m);
    const int st = devo__gpu_best_enqueue(t->s, g, t->s->gens + t->done, b->st);
    if (st != DEVO_OK)
      return st;
  }
  DEVO__CK(cudaStreamSynchronize(b->st));
  for (int i = 0; i < b->nact; ++i) {
    devo__bt_trial *t = &b->act[i];
    devo__gpu_state *g = (devo__gpu_state *)t->s->bk_state;
    g->best_idx = g->h_ctl->best_idx;
    t->s->best_f = g->h_ctl->best;
    t->s->gens += t->done;
    t->s->evals += t->done * (int64_t)g->a.np;
  }
  return DEVO_OK;
}

extern "C" int devo__gpu_batch_run(devo_solver *const *tr, int n, devo__trial_done_fn done,
                                   void *ud)
{
  devo__bt b;
  memset(&b, 0, sizeof b);
  b.tr = tr;
  b.n = n;
  b.done = done;
  b.ud = ud;
  while (b.next < n || b.nact > 0) {
    while (b.next < n && (!b.kern || b.nact < b.cap))
      devo__bt_begin(&b);
    if (b.nact == 0)
      continue;
    devo_solver *blame = b.act[0].s;
    const int64_t ngens = devo__bt_plan(&b);
    int st = DEVO_OK;
    if (ngens > 0) {
      cudaSetDevice(b.dev);
      st = devo__bt_chunk(&b, ngens, blame);
    }
    if (st != DEVO_OK) { /* the device failed: every trial of the batch shares the error */
      for (int i = 0; i < b.nact; ++i)
        if (b.act[i].s != blame)
          devo__set_err(b.act[i].s, st, "%s", devo_solver_errmsg(blame));
      while (b.nact > 0)
        devo__bt_finish(&b, b.nact - 1, st);
    }
  }
  devo__bt_release(&b);
  return DEVO_OK;
}

/* ---- islands (engine/islands.c) --------------------------------------------------------- */

/* The batch's trials of one stretch, run together: every one for ngens generations (fewer up to
 * its target), its status into st. */
static void devo__bt_step_flush(devo__bt *b, int64_t ngens, int *st)
{
  if (b->nact == 0)
    return;
  for (int i = 0; i < b->nact; ++i)
    b->act[i].m = ngens;
  cudaSetDevice(b->dev);
  devo_solver *blame = b->act[0].s;
  const int e = devo__bt_chunk(b, ngens, blame);
  for (int i = 0; i < b->nact; ++i) {
    if (e != DEVO_OK && b->act[i].s != blame)
      devo__set_err(b->act[i].s, e, "%s", devo_solver_errmsg(blame));
    st[b->act[i].k] = e;
  }
  b->nact = 0;
}

extern "C" int devo__gpu_batch_step(void **state, devo_solver *const *tr, int n, int64_t ngens,
                                    int *st)
{
  devo__bt *b = (devo__bt *)*state;
  if (!b && (b = (devo__bt *)calloc(1, sizeof *b)) != NULL)
    *state = b;
  for (int k = 0; k < n; ++k) {
    int j = 0;
    if (b) {
      b->n = n; /* the set-up's capacity: at most the islands */
      j = devo__bt_join(b, tr[k], k);
      if (j == 0 && b->nact > 0) { /* another kernel, or the batch is full: run it, then again */
        devo__bt_step_flush(b, ngens, st);
        j = devo__bt_join(b, tr[k], k);
      }
    }
    if (j < 0)
      st[k] = j;
    else if (j == 0) /* no batch kernel takes it (or no memory for the batch): alone */
      st[k] = tr[k]->bk->run(tr[k], ngens);
    else
      devo__bt_mark(tr[k], b->cap, "islands");
  }
  if (b)
    devo__bt_step_flush(b, ngens, st);
  return DEVO_OK;
}

/* The population and fitness of generation gens (a run without SHADE: variant runs keep fitness
 * by generation parity). */
static void devo__gpu_current(const devo__gpu_state *g, int64_t gens, double **pop, double **fit)
{
  *pop = (gens & 1) ? g->a.pop1 : g->a.pop0;
  *fit = g->var && (gens & 1) ? g->va.fit1 : g->a.fit;
}

/* Island k's entry of a migration: its current population, its migrant from island src. */
static int devo__gpu_mig_entry(devo_solver *s, devo_solver *src, devo_solver *blame,
                               devo__gpu_mig *m)
{
  const devo__gpu_state *g =
      s->bk == &devo__gpu_backend ? (const devo__gpu_state *)s->bk_state : NULL;
  const devo__gpu_state *gs =
      src->bk == &devo__gpu_backend ? (const devo__gpu_state *)src->bk_state : NULL;
  if (!g || !gs || g->sh || gs->sh)
    return devo__set_err(blame, DEVO_E_STATE,
                         "a migration on the GPU needs started GPU runs "
                         "(not JADE/SHADE)");
  double *spop, *sfit;
  devo__gpu_current(g, s->gens, &m->pop, &m->fit);
  devo__gpu_current(gs, src->gens, &spop, &sfit);
  m->np = g->a.np;
  m->src_row = spop + (size_t)gs->best_idx * gs->a.dim;
  m->f = src->best_f;
  return DEVO_OK;
}

extern "C" int devo__gpu_migrate(void **state, devo_solver *const *isl, int n, const int *src)
{
  devo__bt *b = (devo__bt *)*state;
  devo_solver *s = isl[0];
  if (!b && (b = (devo__bt *)calloc(1, sizeof *b)) != NULL)
    *state = b;
  if (!b)
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for a migration");
  const devo__gpu_state *g0 = (const devo__gpu_state *)s->bk_state;
  const int d = g0->a.dim;
  DEVO__CK(cudaSetDevice(g0->dev));
  if (b->mig_n < n) {
    cudaFree(b->d_mig);
    cudaFree(b->d_stage);
    free(b->h_mig);
    b->d_mig = NULL;
    b->d_stage = NULL;
    b->mig_n = 0;
    if (!(b->h_mig = (devo__gpu_mig *)calloc((size_t)n, sizeof *b->h_mig)))
      return devo__set_err(s, DEVO_E_NOMEM, "out of memory for a migration");
    DEVO__CK(cudaMalloc((void **)&b->d_mig, (size_t)n * sizeof *b->d_mig));
    DEVO__CK(cudaMalloc((void **)&b->d_stage, (size_t)n * d * sizeof *b->d_stage));
    b->mig_n = n;
  }
  for (int k = 0; k < n; ++k) {
    const int st = devo__gpu_mig_entry(isl[k], isl[src[k]], s, &b->h_mig[k]);
    if (st != DEVO_OK)
      return st;
  }
  DEVO__CK(cudaMemcpyAsync(b->d_mig, b->h_mig, (size_t)n * sizeof *b->d_mig, cudaMemcpyHostToDevice,
                           g0->st));
  DEVO__CK(devo__gpu_mig_launch(b->d_mig, b->d_stage, n, d, g0->st));
  /* every island's best after the puts, each as after a chunk (on the one stream: in order) */
  for (int k = 0; k < n; ++k) {
    const int st =
        devo__gpu_best_enqueue(isl[k], (devo__gpu_state *)isl[k]->bk_state, isl[k]->gens, g0->st);
    if (st != DEVO_OK)
      return st;
  }
  DEVO__CK(cudaStreamSynchronize(g0->st));
  for (int k = 0; k < n; ++k) {
    devo__gpu_state *g = (devo__gpu_state *)isl[k]->bk_state;
    g->best_idx = g->h_ctl->best_idx;
    isl[k]->best_f = g->h_ctl->best;
  }
  return DEVO_OK;
}

extern "C" void devo__gpu_step_free(void *state)
{
  devo__bt *b = (devo__bt *)state;
  if (!b)
    return;
  devo__bt_release(b);
  free(b);
}

/* The current population (devo__gpu_population's buffers) takes the migrant as devo__cpu_put's
 * rule says; then the run's best is the reduction's, as after a chunk. */
extern "C" int devo__gpu_put(devo_solver *s, const double *x, double f, int *replaced)
{
  devo__gpu_state *g = s->bk == &devo__gpu_backend ? (devo__gpu_state *)s->bk_state : NULL;
  *replaced = 0;
  if (!g)
    return devo__set_err(s, DEVO_E_STATE, "a migrant needs a started run");
  if (g->sh)
    return devo__set_err(s, DEVO_E_STATE, "the GPU's JADE/SHADE runs cannot take migrants");
  const int np = g->a.np, d = g->a.dim;
  double *pop, *fit;
  devo__gpu_current(g, s->gens, &pop, &fit);
  double *h_fit = (double *)malloc((size_t)np * sizeof *h_fit);
  if (!h_fit)
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for a migrant");
  cudaError_t e = cudaSetDevice(g->dev);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(h_fit, fit, (size_t)np * sizeof *h_fit, cudaMemcpyDeviceToHost, g->st);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(g->st);
  const int w = e == cudaSuccess ? devo__worst_index(h_fit, np) : 0;
  const int take = e == cudaSuccess && f < h_fit[w];
  free(h_fit);
  DEVO__CK(e);
  if (!take)
    return DEVO_OK; /* the island keeps its worst: the migrant is not better */
  DEVO__CK(cudaMemcpyAsync(pop + (size_t)w * d, x, (size_t)d * sizeof *x, cudaMemcpyHostToDevice,
                           g->st));
  DEVO__CK(cudaMemcpyAsync(fit + w, &f, sizeof f, cudaMemcpyHostToDevice, g->st));
  const int st = devo__gpu_best(s, g, s->gens); /* synchronises: x and f may go */
  if (st == DEVO_OK)
    *replaced = 1;
  return st;
}

extern "C" const devo_backend devo__gpu_backend = {"gpu",
                                                   devo__gpu_start,
                                                   devo__gpu_run,
                                                   devo__gpu_best_x,
                                                   devo__gpu_population,
                                                   devo__gpu_stop,
                                                   devo__gpu_adapt_state,
                                                   devo__gpu_shade_state_hook};
