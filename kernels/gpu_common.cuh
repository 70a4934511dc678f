/* SPDX-License-Identifier: MIT */
/* gpu_common.cuh: what the CUDA backend's translation units share: the kernel argument block,
 * the device control block, the per-vector "group" of threads with its reductions, the objective
 * dispatch, and the kernel table that each kernel family fills for the host side
 * (kernels/gpu_backend.cu). Device math comes only from the shared problems/ headers.
 *
 * Thread layout of every per-vector kernel: a group of `lanes` threads handles one vector, a
 * block holds `vpb` groups. For dim >= 32, lanes = dim rounded up to a warp (capped by the
 * device and the kernel's register limit; threads then stride over coordinates) and vpb = 1, so
 * the group is the block. For dim < 32, lanes = the next power of two >= dim and several groups
 * share a warp (Qin et al. 2012), so a group reduction is a segment of a warp butterfly.
 *
 * Block kinds (CEC F01..F10, ETC scheduling; DEVO__GPU_FOR_BLOCK_KINDS) always run one vector per
 * block (vpb = 1, lanes = blockDim.x >= 32) with the block evaluators of cec_device.cuh and
 * etc_device.cuh. Dynamic shared memory of every group kernel is laid out as
 *   [reduction scratch, DEVO__RED_DOUBLES][trial, vpb * dim, when trial_shared]
 *   [block work, work_n, at sm_work when >= 0][staged matrix, stage_n, at sm_stage when >= 0];
 * work that does not fit lives in global memory, work_n doubles per vector index. */
#ifndef DEVO_GPU_COMMON_CUH
#define DEVO_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "../engine/internal.h"
static_assert(sizeof(atomic_int) == sizeof(int), "atomic_int layout differs between C and C++");

#include "../problems/classic.h"
#include "../problems/de_ops.h"
#include "../problems/de_variant.h"
#include "../problems/soco.h"
#include "block_reduce.cuh"
#include "cec_device.cuh"
#include "etc_device.cuh"

#include "gpu_variants.cuh"

/* Doubles of shared scratch for group reductions: two sets of 32 warp partials (a sum and, for
 * griewank, a product right after it). */
#define DEVO__RED_DOUBLES 64
/* Threads of the element-wise and best-reduction kernels. */
#define DEVO__FLAT_THREADS 256
/* Blocks of the best reduction's first pass (at most). */
#define DEVO__BEST_BLOCKS 256
#define DEVO__NO_STOP     0xffffffffffffffffULL
/* Grid barriers of the persistent kernel. */
enum { DEVO__BARRIER_ACQUIRE = 0, DEVO__BARRIER_RELAXED = 1, DEVO__BARRIER_CG = 2 };

/* A failed CUDA call as "<call up to its '('> failed: <CUDA's text> (<file>:<line>)" into err
 * (when err and errlen), and its status: DEVO_E_NODEVICE where no usable device or driver is
 * there, DEVO_E_NOMEM where device or pinned memory ran out, else DEVO_E_CUDA. */
static inline int devo__cuda_fail(char *err, size_t errlen, cudaError_t e, const char *call,
                                  const char *file, int line)
{
  int n = 0;
  while (call[n] && call[n] != '(')
    n++;
  if (err && errlen)
    snprintf(err, errlen, "%.*s failed: %s (%s:%d)", n, call, cudaGetErrorString(e), file, line);
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? DEVO_E_NODEVICE
         : e == cudaErrorMemoryAllocation                           ? DEVO_E_NOMEM
                                                                    : DEVO_E_CUDA;
}

/* Lets kern take up to the device's opt-in shared memory per block (less its static shared
 * memory). The attribute belongs to the kernel function, shared by every solver of the process,
 * so each plan sets this one value instead of its own need: a smaller need set by one solver's
 * plan made another solver's launch of the same kernel fail (found in review). The launches and
 * occupancy queries still name their own sizes. */
static inline cudaError_t devo__gpu_smem_max(const void *kern, const cudaDeviceProp *p)
{
  cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes(&fa, kern);
  if (e != cudaSuccess)
    return e;
  return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int)p->sharedMemPerBlockOptin - (int)fa.sharedSizeBytes);
}

/* Device control block: a few words shared by all kernels of a run. Only this crosses to the
 * host between chunks (pinned memory, one asynchronous copy). */
struct devo__gpu_ctl {
  double best;                 /* best fitness of the current population */
  int best_idx;                /* its lowest index */
  unsigned int done_blocks;    /* last-block-done counter of the best reduction */
  unsigned long long base;     /* generation that graph-mode kernels count from */
  unsigned long long stop_gen; /* first generation whose population reached the target */
  unsigned int bar;            /* arrivals at the persistent kernel's grid barrier */
};

/* Everything a kernel needs, passed by value (a few hundred bytes of kernel parameters). */
struct devo__gpu_args {
  devo__pview v;             /* device pointers */
  double *pop0, *pop1;       /* double buffer: generation g lives in pop[g & 1] */
  double *fit;               /* fitness of the current population (each block owns its rows) */
  devo__de_idx *idx0, *idx1; /* kernel(P) output per generation parity; NULL = inline */
  double *trial;             /* multikernel: np * dim trial vectors */
  double *tfit;              /* multikernel: np trial fitness values */
  double *part_val;          /* best reduction partials */
  int *part_idx;
  devo__gpu_ctl *ctl;
  uint64_t seed;
  devo__philox_keys ks; /* the round keys of seed (in the parameters: constant memory) */
  double f, cr, target;
  int np, dim, bounds, has_target;
  int lanes, vpb;   /* threads per vector, vectors per block */
  int trial_shared; /* 1: the fused kernel keeps the trial vector in shared memory */
  /* block kinds (CEC, ETC) */
  const double *rott; /* CEC: the ncomp matrices, each transposed (column-major), device */
  double *work;       /* global work: work_n doubles per vector index; NULL when in shared */
  int work_n;         /* doubles of block work per vector */
  int sm_work;        /* offset (doubles) of the work in dynamic shared memory, -1: global */
  int sm_stage;       /* offset of the staged matrix (CEC: rott of one matrix; ETC: the ETC
                         matrix), -1: read from global memory */
  int stage_n;        /* doubles staged */
  int etc_v1;         /* ETC: the first block evaluator (etc_device.cuh v1) instead of v2 */
};

/* A variant run's extra state (kernels/gpu_vfused.cu), passed to its kernels beside
 * devo__gpu_args (whose layout the plain kernels keep). Buffers by generation parity: generation
 * g's fitness in a.fit (g even) or fit1 (g odd); jDE's F and CR in F0/CR0 (even) or F1/CR1. */
struct devo__gpu_vargs {
  devo__variant var;
  double *fit1;
  double *F0, *F1, *CR0, *CR1; /* jDE; NULL when off */
  double *gx, *gf;             /* GOBL: the NP opposites (NULL where the specialised kernel
                                  runs the jumps: they stay in its registers) and their fitness;
                                  NULL when off */
  double *gbox;                /* GOBL: per-coordinate min (dim) then max (dim) */
};

/* One trial of a batch launch (devo__gpu_batch: the slots in device memory): its arguments, its
 * first generation's predecessor and its last generation in this launch. */
struct devo__gpu_bslot {
  devo__gpu_args a;
  devo__gpu_vargs va;
  uint32_t gen0, gen_end;
};
/* A batch launch's parameters: trial t owns blocks t * bpt .. t * bpt + bpt - 1. */
struct devo__gpu_batch {
  const devo__gpu_bslot *slot;
  unsigned int *bar; /* the launch's one grid barrier counter, zeroed before it */
  int bpt;
};

/* The variant kernels of one run (kernels/gpu_vfused.cu), host-side handles. */
struct devo__gpu_vktab {
  const void *gen;         /* (args, vargs, k): one generation, base + k (graph mode) */
  const void *persist;     /* (args, vargs, gen0, ngens, barrier) */
  const void *init;        /* (args, vargs): jDE's initial F and CR */
  const void *gobl_box;    /* (args, vargs, gen): per-coordinate min and max (version 2:
                              blocks of 1024 threads per 32 coordinates) */
  const void *gobl_box1;   /* version 1 (DEVO__GPU_VAR_GENERAL): a thread per coordinate */
  const void *gobl_opp;    /* (args, vargs, gen, k): opposites and their evaluation */
  const void *gobl_select; /* (args, vargs, gen): survivors into generation gen's buffers */
  const void *persist2;    /* as persist, the run's strategy and crossover compiled in (group
                              kinds of DEVO__GPU_FOR_KINDS; NULL for the others) */
};
int devo__gpu_vfused_fill(int kind, const devo__variant *var, devo__gpu_vktab *t);
/* The batch kernel of gpu_vfused.cu's version 1 (devo__k_vpersistb: the block kinds and the
 * general kinds, launched by devo__gpu_batch_launch with the trials' own layout), NULL for the
 * other kinds. */
const void *devo__gpu_vfused_batch_kernel(int kind);

/* JADE, SHADE and L-SHADE (kernels/gpu_shade.cu): a run's device state and host loop.
 * start: after the initial population (a->pop0, a->fit) exists: the SHADE buffers, the initial
 *   fitness re-evaluated in the CPU's order; blk, blk_smem: a block kind's configured layout.
 *   *out is set even on failure (free it). Synchronises st.
 * run: generations gen0 + 1 .. gen0 + ngens (fewer where the target or devo__should_abort stops
 *   them); *done generations, *evals evaluations completed; h_ctl (pinned) gets d_ctl.
 * current: a's pop0, fit and np set to the current population (for the best and the copies).
 * state: the state for devo__backend's shade_state hook. */
struct devo__gpu_shade;
int devo__gpu_shade_start(devo_solver *s, const devo__gpu_args *a, const cudaDeviceProp *p, int blk,
                          size_t blk_smem, cudaStream_t st, devo__gpu_shade **out);
int devo__gpu_shade_run(devo_solver *s, devo__gpu_shade *g, devo__gpu_ctl *h_ctl,
                        const devo__gpu_ctl *d_ctl, uint32_t gen0, int64_t ngens, cudaStream_t st,
                        int64_t *done, int64_t *evals);
void devo__gpu_shade_current(const devo__gpu_shade *g, devo__gpu_args *a);
int devo__gpu_shade_np(const devo__gpu_shade *g);
void devo__gpu_shade_describe(const devo__gpu_shade *g, char *buf, size_t len);
int devo__gpu_shade_state(devo_solver *s, devo__gpu_shade *g, cudaStream_t st,
                          devo_shade_state *out, double *archive, double *m_cr, double *m_f,
                          double *F, double *CR);
/* DEVO__GPU_SHADE_PROFILE runs: milliseconds per generation of each step (ranks, trial,
 * update, archive rows, reduction), up to n; returns how many (0: not profiled). */
int devo__gpu_shade_prof(const devo__gpu_shade *g, double *ms_per_gen, int n);
void devo__gpu_shade_free(devo__gpu_shade *g);

/* Kernels of one run, for the problem kind, as the host-side handles that cudaLaunchKernel,
 * cudaFuncGetAttributes and the occupancy API take. */
struct devo__gpu_ktab {
  const void *init;    /* (args, seeds, nseeds): initial population + evaluation */
  const void *gen;     /* (args, k): one fused generation, base + k (graph mode) */
  const void *persist; /* (args, gen0, ngens): persistent cooperative chunk */
  const void *idx;     /* (args, k): kernel(P), indices of generation base + k */
  const void *best;    /* (args): best value and lowest index into ctl */
  const void *setbase; /* (args, base) */
  const void *advance; /* (args, n): base += n */
  const void *mk_idx, *mk_trial, *mk_eval, *mk_replace; /* multikernel steps, (args, gen) */
};

/* Each family fills its entries for a problem kind; returns 0, or -1 when the kind is not
 * supported on the GPU. */
int devo__gpu_fused_fill(int kind, devo__gpu_ktab *t);
int devo__gpu_multi_fill(int kind, devo__gpu_ktab *t);
int devo__gpu_util_fill(int kind, devo__gpu_ktab *t);

/* kernels/gpu_fast.cu: the small-D persistent kernel's launch, planned once per run. plan sets
 * *ok = 0 where it does not apply (kind, D > 512, population not co-resident). */
struct devo__gpu_fast_cfg {
  const void *kern;
  int lanes, c, vpb, threads, blocks; /* threads per vector, coordinates per thread, ... */
  size_t smem;
  int cluster; /* kernels/gpu_cec.cu: blocks per cluster (1 = no cluster, 2); 0 = other kernels */
  int mma;     /* kernels/gpu_cec.cu: the matrix products on the tensor cores */
  int version; /* kernels/gpu_etc.cu: kernel version (1, 2 or 3) */
  int gobl;    /* variant kernels: the kernel runs GOBL's jumps itself (compiled in) */
};
cudaError_t devo__gpu_fast_plan(int kind, const devo__variant *var, int np, int dim, int want,
                                const cudaDeviceProp *p, devo__gpu_fast_cfg *cfg, int *ok);
/* Whether a specialised variant kernel (gpu_fast.cu version 2, gpu_cec.cu version 4) for var
 * and the design bits want runs GOBL's jumps itself: GOBL on, DEVO__GPU_GOBL_LAUNCHES off. */
static inline int devo__gpu_gobl_inside(const devo__variant *var, int want)
{
  return var && var->gobl > 0.0 && !(want & DEVO__GPU_GOBL_LAUNCHES);
}
/* var: NULL for plain rand1bin (version 1), else the variant of version 2 (devo__k_fastv, one
 * coordinate per thread only: *ok = 0 where D > 128), launched by devo__gpu_fastv_launch; with
 * GOBL its jumps are compiled in (cfg->gobl) unless want has DEVO__GPU_GOBL_LAUNCHES. */
cudaError_t devo__gpu_fastv_launch(const devo__gpu_fast_cfg *cfg, devo__gpu_args a,
                                   devo__gpu_vargs va, uint32_t gen0, uint32_t ngens,
                                   cudaStream_t st);
/* kernels/gpu_etc.cu: ETC scheduling (FCFS, m <= 32, n <= 512) with one warp per schedule;
 * *ok = 0 where it does not apply, or (without DEVO__GPU_ETC_WARP in want) where the block
 * evaluator measured faster; DEVO__GPU_ETC_WARP1 in want picks the first version. Launched by
 * devo__gpu_fast_launch. */
cudaError_t devo__gpu_etcw_plan(const devo__pview *v, int np, int want, const cudaDeviceProp *p,
                                devo__gpu_fast_cfg *cfg, int *ok);
/* Every kernel planned into a devo__gpu_fast_cfg is launched here: cooperative (the grid is
 * co-resident), with a cluster attribute when cfg->cluster > 1. _cfg fills the launch
 * configuration (at: room for 2 attributes; coop = 0 for occupancy queries). */
void devo__gpu_fast_launch_cfg(const devo__gpu_fast_cfg *cfg, cudaStream_t st,
                               cudaLaunchConfig_t *lc, cudaLaunchAttribute *at, int coop);
cudaError_t devo__gpu_fast_launch(const devo__gpu_fast_cfg *cfg, devo__gpu_args a, uint32_t gen0,
                                  uint32_t ngens, cudaStream_t st);
/* Batches (kernels/gpu_fast.cu, devo__gpu_persist_loop_batch): the batch kernel that advances
 * several trials planned alike (cfg from devo__gpu_fast_plan for kind and var) in one launch, or
 * NULL where there is none (version 1's kernels; version 2's for rand1bin without GOBL only);
 * the batch's layout from a trial's (the largest blocks: fewer arrivals at the shared barrier);
 * how many such trials the device keeps resident at once; the launch of ntrials trials (slots in
 * b.slot, each with lanes and vpb set; b.bar zeroed; cooperative, so that a grid that cannot be
 * co-resident fails instead of hanging). */
const void *devo__gpu_fast_batch_kernel(int kind, const devo__variant *var,
                                        const devo__gpu_fast_cfg *cfg);
void devo__gpu_fast_batch_layout(int kind, int np, const devo__gpu_fast_cfg *solo,
                                 devo__gpu_fast_cfg *out);
cudaError_t devo__gpu_batch_capacity(const void *kern, const devo__gpu_fast_cfg *cfg,
                                     const cudaDeviceProp *p, int *trials);
cudaError_t devo__gpu_batch_launch(const void *kern, const devo__gpu_fast_cfg *cfg,
                                   devo__gpu_batch b, int ntrials, uint32_t ngens, cudaStream_t st);
/* The GPU islands' migration (kernels/gpu_util.cu): island k's current population and fitness
 * (np rows of d), its migrant's row in its source island (the source's best, read before any
 * island takes its migrant) and value. devo__gpu_mig_launch runs it for k islands on st (d_m:
 * k entries in device memory; d_stage: k * d doubles). */
struct devo__gpu_mig {
  double *pop, *fit;
  const double *src_row;
  double f;
  int np;
};
cudaError_t devo__gpu_mig_launch(const devo__gpu_mig *d_m, double *d_stage, int k, int d,
                                 cudaStream_t st);
/* The batch kernel of gpu_cec.cu (devo__k_ceccb) for CEC function id planned as cfg (its solo
 * layout, launched by devo__gpu_batch_launch), NULL where there is none: F01..F07 in single
 * blocks of two vectors, rand1bin or a variant without GOBL. */
const void *devo__gpu_cecc_batch_kernel(int id, const devo__gpu_fast_cfg *cfg);
/* kernels/gpu_cec.cu: CEC F01..F10 at D <= 128 with the matrices resident in the shared memory of
 * one block or of a two-block cluster (sm_90); want: DEVO__GPU_CEC_PAIR, DEVO__GPU_CEC_VL1; *ok = 0
 * where it does not apply. Launched by devo__gpu_fast_launch (cluster = 1 or 2). */
cudaError_t devo__gpu_cecc_plan(const devo__pview *v, const devo__variant *var, int np, int want,
                                const cudaDeviceProp *p, devo__gpu_fast_cfg *cfg, int *ok);
/* var: NULL for plain rand1bin, else a variant (F01..F07 in single blocks only), launched by
 * devo__gpu_fastv_launch. */

/* Device copies of a problem's data (kernels/gpu_problem.cu): CEC shift rows, matrices
 * (transposed, see cec_device.cuh) and shuffle; classic shift; ETC matrix and ready times. */
struct devo__gpu_pdata {
  double *shift, *rott, *etc, *ready;
  int *shuffle;
};
/* Uploads p's data on stream st (synchronised before the return) and sets *v to p's view with
 * the device pointers (v->rot = NULL: the kernels read d->rott). Returns DEVO_OK, or
 * DEVO_E_CUDA / DEVO_E_NOMEM with a message in err; d holds what was allocated either way. */
int devo__gpu_pdata_upload(const devo_problem *p, devo__gpu_pdata *d, devo__pview *v,
                           cudaStream_t st, char *err, size_t errlen);
void devo__gpu_pdata_free(devo__gpu_pdata *d);
/* Block kinds: doubles of block work per vector, and of the matrix that may be staged in shared
 * memory (0 when none can be: CEC compositions use several matrices). 0 for other kinds. */
size_t devo__gpu_blk_work(const devo__pview *v);
size_t devo__gpu_blk_stage(const devo__pview *v);

/* ---- device helpers --------------------------------------------------------------------- */

#ifdef __CUDACC__

__device__ __forceinline__ double devo__gpu_inf(void)
{
  return __longlong_as_double(0x7ff0000000000000LL);
}

/* A fitness value as selection sees it: NaN counts as +inf (the CPU's rule), so it never wins. */
__device__ __forceinline__ double devo__gpu_fitness(double f)
{
  return isnan(f) ? devo__gpu_inf() : f;
}

/* Barrier for one group: the block when the group is the block, else the warp (groups of a
 * warp tile it exactly, and every lane of every warp reaches this point). */
__device__ __forceinline__ void devo__grp_sync(int lanes)
{
  if (lanes > 32)
    __syncthreads();
  else
    __syncwarp();
}

/* Group-wide reduction; every thread of the block calls it, every lane gets the result. For a
 * whole-block group: a warp butterfly, one barrier, then every thread combines the warp partials
 * in the same fixed order (one __syncthreads instead of block_reduce.cuh's three; deterministic,
 * and the same in every thread). red: DEVO__RED_DOUBLES / 2 doubles per reduction; the caller
 * separates two reductions in a row by using the other half, and reductions further apart by a
 * __syncthreads (the trial phase has one). */
template <int OP>
__device__ __forceinline__ double devo__grp_reduce(double v, int lanes, double *red)
{
  if (lanes > 32) {
    const int nw = (int)blockDim.x >> 5;
    v = devo__warp_reduce<OP>(v);
    if ((threadIdx.x & 31) == 0)
      red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = red[0];
    for (int w = 1; w < nw; ++w)
      v = devo__red_op<OP>(v, red[w]);
    return v;
  }
  for (int off = lanes >> 1; off > 0; off >>= 1)
    v = devo__red_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

/* Split grid barrier of the persistent kernel (all blocks co-resident: cooperative launch).
 * arrive: the block's writes are published (bar.sync, then a release add at GPU scope by one
 * thread, no round trip); wait: one thread polls with acquire loads until every block of this
 * round arrived, then bar.sync. Work that needs no other block's data (the next generation's
 * indices) runs between the two. ctr counts arrivals from 0 (reset before each launch); round k
 * (1-based) is complete at k * gridDim.x, compared modulo 2^32. */
__device__ __forceinline__ void devo__grid_arrive(unsigned int *ctr)
{
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(ctr) : "memory");
}

__device__ __forceinline__ void devo__grid_wait(const unsigned int *ctr, unsigned int target,
                                                bool relaxed)
{
  if (threadIdx.x == 0) {
    unsigned int v;
    if (relaxed) {
      /* relaxed polls skip the L1 invalidation of every acquire load; one fence after */
      do {
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ctr) : "memory");
      } while ((int)(v - target) < 0);
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    } else {
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ctr) : "memory");
      } while ((int)(v - target) < 0);
    }
  }
  __syncthreads();
}

/* One more grid barrier of a persistent kernel that counts the barriers of its launch in nb
 * (the counter was reset before the launch, so the nb-th wait is for nb * gridDim.x arrivals). */
__device__ __forceinline__ void devo__grid_sync_n(const devo__gpu_args &a, unsigned int &nb)
{
  ++nb;
  devo__grid_arrive(&a.ctl->bar);
  devo__grid_wait(&a.ctl->bar, nb * gridDim.x, false);
}

/* A variant run's state of vector r in generation gen's buffers (by parity, devo__gpu_vargs):
 * its fitness and, with jDE (jde: the caller's copy of va.var.jde), its F and CR (left as they
 * are without jDE). */
__device__ __forceinline__ void devo__var_state_load(const devo__gpu_args &a,
                                                     const devo__gpu_vargs &va, uint32_t gen, int r,
                                                     bool jde, double &f, double &F, double &CR)
{
  const bool odd = (gen & 1u) != 0;
  f = (odd ? va.fit1 : a.fit)[r];
  if (jde) {
    F = (odd ? va.F1 : va.F0)[r];
    CR = (odd ? va.CR1 : va.CR0)[r];
  }
}

__device__ __forceinline__ void devo__var_state_store(const devo__gpu_args &a,
                                                      const devo__gpu_vargs &va, uint32_t gen,
                                                      int r, bool jde, double f, double F,
                                                      double CR)
{
  const bool odd = (gen & 1u) != 0;
  (odd ? va.fit1 : a.fit)[r] = f;
  if (jde) {
    (odd ? va.F1 : va.F0)[r] = F;
    (odd ? va.CR1 : va.CR0)[r] = CR;
  }
}

/* The index of the smallest of fit[0..np) (lowest index on ties; all +inf gives 0, the CPU's
 * scan), computed by one warp on its own: every lane scans a stride of the array, then a
 * butterfly; min over (value, index) pairs is exact in any order, so every warp of the grid that
 * calls it gets the same index. Every lane of the warp calls it; fitness is never NaN. The first
 * DEVO__ARGMIN_BATCH values of each lane are loaded before any is compared, so that up to
 * 32 x DEVO__ARGMIN_BATCH individuals cost one memory round trip (a loop unrolled by 4 took two
 * at NP = 250, on the chain after the grid barrier). */
#define DEVO__ARGMIN_BATCH 8
__device__ __forceinline__ int devo__gpu_warp_argmin(const double *fit, int np)
{
  const int l = (int)threadIdx.x & 31;
  double v = devo__gpu_inf(), f[DEVO__ARGMIN_BATCH];
  int bi = 0x7fffffff;
#pragma unroll
  for (int q = 0; q < DEVO__ARGMIN_BATCH; ++q) {
    const int k = l + 32 * q;
    f[q] = k < np ? fit[k] : devo__gpu_inf();
  }
#pragma unroll
  for (int q = 0; q < DEVO__ARGMIN_BATCH; ++q)
    if (f[q] < v) { /* k ascends per lane: ties keep the lower index */
      v = f[q];
      bi = l + 32 * q;
    }
#pragma unroll 4
  for (int k = l + 32 * DEVO__ARGMIN_BATCH; k < np; k += 32) {
    const double x = fit[k];
    if (x < v) {
      v = x;
      bi = k;
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    const double ov = __shfl_xor_sync(0xffffffffu, v, off);
    const int oi = __shfl_xor_sync(0xffffffffu, bi, off);
    if (ov < v || (ov == v && oi < bi)) {
      v = ov;
      bi = oi;
    }
  }
  return bi == 0x7fffffff ? 0 : bi;
}

/* ---- GOBL jumps inside the persistent variant kernels (gpu_fast.cu version 2, gpu_cec.cu
 * version 4): a jump costs two grid barriers there, instead of ending the kernel for three
 * launches of gpu_vfused.cu's jump kernels and starting it again ---- */

/* (v, vi) takes (x, xi) when x is lower (lower) or higher, or equal with a lower index: the CPU's
 * scan in index order with strict comparisons keeps the first of equal values (which matters
 * only for -0 against +0: the row's own bits come out). */
__device__ __forceinline__ void devo__gbox_take(double &v, int &vi, double x, int xi, bool lower)
{
  if ((lower ? x < v : x > v) || (x == v && xi < vi)) {
    v = x;
    vi = xi;
  }
}

/* GOBL's a_j = min_i x_ij and b_j = max_i x_ij of src (generation gen - 1) into va.gbox, one
 * warp of the grid per coordinate: lane l takes rows l, l + 32, ... (its first
 * DEVO__ARGMIN_BATCH loads before any comparison: one round trip up to NP = 256), then a
 * butterfly over (value, index). Every thread of the grid calls it (blockDim.x a multiple of 32);
 * the caller's grid barrier publishes the box. */
__device__ __forceinline__ void devo__gobl_box_warps(const devo__gpu_args &a,
                                                     const devo__gpu_vargs &va, const double *src)
{
  const int l = (int)threadIdx.x & 31, wpb = (int)blockDim.x >> 5, np = a.np;
  const size_t d = (size_t)a.dim;
  for (int j = (int)blockIdx.x * wpb + ((int)threadIdx.x >> 5); j < a.dim;
       j += (int)gridDim.x * wpb) {
    double lo = devo__gpu_inf(), hi = -devo__gpu_inf(), x[DEVO__ARGMIN_BATCH];
    int li = 0x7fffffff, hix = 0x7fffffff;
#pragma unroll
    for (int q = 0; q < DEVO__ARGMIN_BATCH; ++q) {
      const int i = l + 32 * q;
      x[q] = i < np ? src[(size_t)i * d + (size_t)j] : 0.0;
    }
#pragma unroll
    for (int q = 0; q < DEVO__ARGMIN_BATCH; ++q) {
      const int i = l + 32 * q;
      if (i < np) {
        devo__gbox_take(lo, li, x[q], i, true);
        devo__gbox_take(hi, hix, x[q], i, false);
      }
    }
    for (int i = l + 32 * DEVO__ARGMIN_BATCH; i < np; i += 32) {
      const double y = src[(size_t)i * d + (size_t)j];
      devo__gbox_take(lo, li, y, i, true);
      devo__gbox_take(hi, hix, y, i, false);
    }
    for (int off = 16; off > 0; off >>= 1) {
      const double ol = __shfl_xor_sync(0xffffffffu, lo, off);
      const int oli = __shfl_xor_sync(0xffffffffu, li, off);
      const double oh = __shfl_xor_sync(0xffffffffu, hi, off);
      const int ohi = __shfl_xor_sync(0xffffffffu, hix, off);
      devo__gbox_take(lo, li, ol, oli, true);
      devo__gbox_take(hi, hix, oh, ohi, false);
    }
    if (l == 0) {
      va.gbox[j] = lo;
      va.gbox[d + (size_t)j] = hi;
    }
  }
}

/* The ranks among a jump's 2 NP candidates (parents 0..NP-1 with fitness fpar, opposites
 * NP..2NP-1 with fopp) of parent i, fitness fp, and of its opposite NP + i, fitness fo, in
 * devo__gobl_before's order (the CPU's sort): the number of candidates before each. Counted by
 * a segment of seg lanes of a warp (seg a power of two <= 32, aligned; one candidate pair per
 * segment, the same i, fp, fo in all its lanes); every lane of the warp calls it and every lane
 * of a segment gets both ranks. */
__device__ __forceinline__ void devo__gobl_ranks(const double *fpar, const double *fopp, int np,
                                                 int i, double fp, double fo, int seg, int &rp,
                                                 int &ro)
{
  const int l = (int)threadIdx.x & (seg - 1), n2 = 2 * np;
  const uint32_t ip = (uint32_t)i, io = (uint32_t)(np + i);
  double f[2 * DEVO__ARGMIN_BATCH];
  int cp = 0, co = 0;
#pragma unroll
  for (int q = 0; q < 2 * DEVO__ARGMIN_BATCH; ++q) {
    const int c = l + seg * q;
    f[q] = c < np ? fpar[c] : c < n2 ? fopp[c - np] : 0.0;
  }
#pragma unroll
  for (int q = 0; q < 2 * DEVO__ARGMIN_BATCH; ++q) {
    const int c = l + seg * q;
    if (c < n2) {
      cp += devo__gobl_before(f[q], (uint32_t)c, fp, ip);
      co += devo__gobl_before(f[q], (uint32_t)c, fo, io);
    }
  }
  for (int c = l + seg * 2 * DEVO__ARGMIN_BATCH; c < n2; c += seg) {
    const double y = c < np ? fpar[c] : fopp[c - np];
    cp += devo__gobl_before(y, (uint32_t)c, fp, ip);
    co += devo__gobl_before(y, (uint32_t)c, fo, io);
  }
  for (int off = seg >> 1; off > 0; off >>= 1) {
    cp += __shfl_xor_sync(0xffffffffu, cp, off);
    co += __shfl_xor_sync(0xffffffffu, co, off);
  }
  rp = cp;
  ro = co;
}

/* Generation gen left a vector with fitness fi: record it when fi reached the target (the host
 * reads the smallest such generation after the chunk). */
__device__ __forceinline__ void devo__gpu_note_target(const devo__gpu_args &a, double fi,
                                                      uint32_t gen)
{
  if (a.has_target && fi <= a.target)
    atomicMin(&a.ctl->stop_gen, (unsigned long long)gen);
}

/* A jump's survivors among one vector's pair (parent: rank rp, value fp; opposite: ro, fo), by
 * one thread of its group: the value, and jDE's F and CR of the parent (both carry them), at
 * each rank below NP of generation gen's buffers; a value that reached the target is recorded.
 * The group stores the rows. */
__device__ __forceinline__ void devo__gobl_keep(const devo__gpu_args &a, const devo__gpu_vargs &va,
                                                uint32_t gen, int rp, int ro, double fp, double fo,
                                                double Fi, double CRi)
{
  for (int q = 0; q < 2; ++q) {
    const int r = q ? ro : rp;
    const double f = q ? fo : fp;
    if (r >= a.np)
      continue;
    devo__var_state_store(a, va, gen, r, va.var.jde != 0, f, Fi, CRi);
    devo__gpu_note_target(a, f, gen);
  }
}

/* Persistent kernels, right after the grid barrier that ends generation gen: whether some vector
 * reached the target by then. Values <= gen were written before the barrier, so every block
 * decides alike. */
__device__ __forceinline__ bool devo__gpu_stopped(const devo__gpu_args &a, uint32_t gen)
{
  return a.has_target && *(volatile unsigned long long *)&a.ctl->stop_gen <= gen;
}

/* Generation gen's draws for vector i: indices, and per coordinate whether it takes the mutant
 * and the bound-repair uniform, for coordinates lane + c a.lanes (the persistent kernels draw
 * generation g + 1's while they wait at the barrier). Coordinates past D and inactive groups take
 * nothing. */
template <int C>
__device__ __forceinline__ void devo__gpu_draw(const devo__gpu_args &a, uint32_t gen, int i,
                                               int lane, bool active, devo__de_idx &r,
                                               bool (&take)[C], double (&ub)[C])
{
  if (active)
    r = devo__de_indices(a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)a.dim);
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int j = lane + c * a.lanes;
    take[c] = false;
    ub[c] = 0.0;
    if (active && j < a.dim) {
      const devo__de_u u = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
      take[c] = devo__de_take(u, (uint32_t)j, r, a.cr) != 0;
      ub[c] = u.bound;
    }
  }
}

/* Persistent kernels that keep each vector in registers (kernels/gpu_fast.cu, gpu_etc.cu's
 * version 1), coordinate lane + c stride in x[c]: the trial t from the donors' rows in src
 * (devo__de_mutant where take[c], x[c] elsewhere), every donor load issued before the first use
 * (one L2 round trip after the barrier). */
template <int C>
__device__ __forceinline__ void devo__gpu_trial(const devo__gpu_args &a, const double *src,
                                                const devo__de_idx &r, const bool (&take)[C],
                                                const double (&ub)[C], int lane, int stride,
                                                const double (&x)[C], double (&t)[C])
{
  const size_t d = (size_t)a.dim;
  const double *x1 = src + r.r1 * d, *x2 = src + r.r2 * d, *x3 = src + r.r3 * d;
  double v1[C], v2[C], v3[C];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int j = lane + c * stride;
    v1[c] = v2[c] = v3[c] = 0.0;
    if (take[c]) {
      v1[c] = x1[j];
      v2[c] = x2[j];
      v3[c] = x3[j];
    }
  }
#pragma unroll
  for (int c = 0; c < C; ++c)
    t[c] = take[c] ? devo__de_mutant(x[c], v1[c], v2[c], v3[c], a.f, a.v.lower, a.v.upper, a.bounds,
                                     ub[c])
                   : x[c];
}

/* The same kernels' replacement of vector i: the trial t with fitness ft replaces x when
 * ft <= fi (the CPU's rule: the trial wins ties), then the vector goes to its row dst
 * (coordinates below D) and lane 0 records its fitness and whether it reached the target. */
template <int C>
__device__ __forceinline__ void devo__gpu_replace(const devo__gpu_args &a, int i, int lane,
                                                  int stride, double ft, double &fi, double (&x)[C],
                                                  const double (&t)[C], double *dst, uint32_t gen)
{
  if (ft <= fi) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      x[c] = t[c];
    fi = ft;
    if (lane == 0)
      a.fit[i] = ft;
  }
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int j = lane + c * stride;
    if (j < a.dim)
      dst[j] = x[c];
  }
  if (lane == 0)
    devo__gpu_note_target(a, fi, gen);
}

/* The generation loop of these persistent kernels (and gpu_etc.cu's version 2; gpu_cec.cu
 * writes it out): generations gen0 + 1 .. gen0 + ngens; step(gen) builds, evaluates and stores
 * generation gen's trials; draw(gen) draws generation gen's numbers while the block waits at the
 * grid barrier (where they hide its round trip; the caller draws gen0 + 1's before the loop).
 * Every thread of the block calls it. */
template <class Step, class Draw>
__device__ __forceinline__ void devo__gpu_persist_loop(const devo__gpu_args &a, uint32_t gen0,
                                                       uint32_t ngens, Step &step, Draw &draw)
{
  for (uint32_t k = 1; k <= ngens; ++k) {
    const uint32_t gen = gen0 + k;
    step(gen);
    if (k == ngens)
      break; /* the end of the kernel is the last barrier */
    devo__grid_arrive(&a.ctl->bar);
    draw(gen + 1u);
    devo__grid_wait(&a.ctl->bar, k * gridDim.x, false);
    if (devo__gpu_stopped(a, gen))
      break;
  }
}

/* The same loop for a batch launch (gpu_fast.cu's batch kernels): the grid holds the blocks of
 * several trials, each with its own a (its buffers, seed, counters) and its own generations
 * gen0 + 1 .. gen_end (gen_end <= gen0 + ngens), and one barrier counter bar serves them all. A
 * trial that reached its target or its gen_end cannot leave: the others still count its blocks'
 * arrivals, so its blocks go on arriving, idle (no step, no draws), to the launch's end. */
template <class Step, class Draw>
__device__ __forceinline__ void
devo__gpu_persist_loop_batch(const devo__gpu_args &a, uint32_t gen0, uint32_t ngens,
                             uint32_t gen_end, unsigned int *bar, Step &step, Draw &draw)
{
  bool idle = false;
  for (uint32_t k = 1; k <= ngens; ++k) {
    const uint32_t gen = gen0 + k;
    if (!idle)
      step(gen);
    if (k == ngens)
      break;
    devo__grid_arrive(bar);
    idle = idle || gen == gen_end;
    if (!idle)
      draw(gen + 1u);
    devo__grid_wait(bar, k * gridDim.x, false);
    idle = idle || devo__gpu_stopped(a, gen);
  }
}

/* GOBL's jump decisions (devo__gobl_jump) of a persistent kernel, 32 generations at a time: lane
 * l of every warp decides generation base + l and a ballot gives every thread the window's mask,
 * so that a generation's decision is a bit test, not a Philox block on the chain between the
 * barrier's arrival and its wait (the window's refill out of line: inlined, the ceccv kernel's
 * loop grew and best2exp+jde+gobl on F03 ran 11% slower, H100). Every lane of the warp calls at()
 * with the same g, ascending. */
static __device__ __noinline__ uint32_t devo__gobl_mask(uint64_t seed, uint32_t g, double p_o)
{
  return __ballot_sync(0xffffffffu, devo__gobl_jump(seed, g + (threadIdx.x & 31u), p_o, NULL) != 0);
}

struct devo__gobl_sched {
  uint32_t base, mask;
  __device__ __forceinline__ void init(uint32_t g0)
  {
    base = g0 - 32u; /* the first at() fills the window */
    mask = 0u;
  }
  __device__ __forceinline__ bool at(const devo__gpu_args &a, double p_o, uint32_t g)
  {
    if (g - base >= 32u) {
      base = g;
      mask = devo__gobl_mask(a.seed, g, p_o);
    }
    return (mask >> (g - base)) & 1u;
  }
};

/* The same loop for the persistent variant kernels that run GOBL's jumps themselves (gpu_fast.cu
 * version 2, gpu_cec.cu version 4; G = false: the loop above, so that the kernels without GOBL
 * keep their code: with the jump's code in the same kernel the others ran 3 to 10% slower,
 * H100, BENCHMARKS.md): a
 * generation that devo__gobl_jump names runs jump(gen, k, bar) instead of step(gen), where bar()
 * is one more grid barrier (a jump calls it twice: the box, then the opposites' values, are
 * published), and no draws are made for it. A jump moves vectors between rows (the survivors go to
 * their ranks), so after its generation's barrier reload(gen) fetches the group's vector of
 * generation gen; with late_draw (jDE: the draws read F_i and CR_i) the next generation is drawn
 * only then, else while the block waits at the barrier as after a DE step. The decisions come
 * from devo__gobl_sched. Every thread of the block calls it. */
template <bool G, class Step, class Draw, class Jump, class Reload>
__device__ __forceinline__ void
devo__gpu_vpersist_loop(const devo__gpu_args &a, double p_o, uint32_t gen0, uint32_t ngens,
                        bool late_draw, Step &step, Draw &draw, Jump &jump, Reload &reload)
{
  if constexpr (!G) {
    draw(gen0 + 1u);
    devo__gpu_persist_loop(a, gen0, ngens, step, draw);
    return;
  }
  unsigned int nb = 0; /* grid barriers passed in this launch */
  auto bar = [&]() { devo__grid_sync_n(a, nb); };
  devo__gobl_sched js;
  js.init(gen0 + 1u);
  bool jmp = js.at(a, p_o, gen0 + 1u);
  if (!jmp)
    draw(gen0 + 1u);
  for (uint32_t t = 1; t <= ngens; ++t) {
    const uint32_t gen = gen0 + t;
    if (jmp) {
      double k;
      devo__gobl_jump(a.seed, gen, p_o, &k);
      jump(gen, k, bar);
    } else {
      step(gen);
    }
    if (t == ngens)
      break; /* the end of the kernel is the last barrier */
    ++nb;
    devo__grid_arrive(&a.ctl->bar);
    const bool jn = js.at(a, p_o, gen + 1u);
    const bool late = jmp && late_draw;
    if (!jn && !late)
      draw(gen + 1u);
    devo__grid_wait(&a.ctl->bar, nb * gridDim.x, false);
    if (devo__gpu_stopped(a, gen))
      break;
    if (jmp)
      reload(gen);
    if (!jn && late)
      draw(gen + 1u);
    jmp = jn;
  }
}

/* Kernels launched per generation (graphs, multikernel): whether a generation before gen reached
 * the target; then generation gen does nothing. stop_gen changes only to gen inside the launch,
 * so the whole grid takes the same branch. */
__device__ __forceinline__ bool devo__gpu_done_before(const devo__gpu_args &a, uint32_t gen)
{
  return a.has_target && a.ctl->stop_gen < gen;
}

/* Generation gen's donor indices of every vector into out, by a grid-stride loop. */
__device__ __forceinline__ void devo__gpu_fill_idx(const devo__gpu_args &a, uint32_t gen,
                                                   devo__de_idx *out)
{
  for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < a.np;
       i += (int)(gridDim.x * blockDim.x))
    out[i] = devo__de_indices(a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)a.dim);
}

/* Kinds evaluated by a whole block per vector (cec_device.cuh, etc_device.cuh). */
#define DEVO__GPU_FOR_BLOCK_KINDS(M) M(DEVO__P_CEC) M(DEVO__P_ETC)
#define DEVO__GPU_IS_BLOCK_KIND(K)   ((K) == DEVO__P_CEC || (K) == DEVO__P_ETC)

template <int KIND>
__device__ __forceinline__ double devo__gpu_eval_blk(const devo__gpu_args &a, const double *x,
                                                     int i, double *sm);

/* Group-wide inclusive prefix sum of v in lane order; every thread of the block calls it (the
 * groups of a block alike), *total gets the group's sum. Uses red[0..31] and ends with a
 * __syncthreads where the group is the block, so red is free again at the return. */
__device__ __forceinline__ double devo__grp_scan(double v, int lane, int lanes, double *red,
                                                 double *total)
{
  if (lanes > 32) {
    const int w = lane >> 5, nw = lanes >> 5, l32 = lane & 31;
    for (int off = 1; off < 32; off <<= 1) {
      const double t = __shfl_up_sync(0xffffffffu, v, off);
      if (l32 >= off)
        v += t;
    }
    if (l32 == 31)
      red[w] = v;
    __syncthreads();
    double before = 0.0, all = 0.0;
    for (int k = 0; k < nw; ++k) {
      if (k < w)
        before += red[k];
      all += red[k];
    }
    __syncthreads();
    *total = all;
    return before + v;
  }
  for (int off = 1; off < lanes; off <<= 1) {
    const double t = __shfl_up_sync(0xffffffffu, v, off, lanes);
    if (lane >= off)
      v += t;
  }
  *total = __shfl_sync(0xffffffffu, v, lanes - 1, lanes);
  return v;
}

/* f(x) of SOCO F1..F19 (soco.h) by the group: each thread its coordinates' terms and auxiliary
 * values (F2's maximum, F5's and F7's products, F6's cosine sum), then two group reductions;
 * F8's prefix sums by a group scan in chunks of `lanes` coordinates. Sums in tree order, so the
 * value differs from the CPU's sequential one by rounding only. */
__device__ __forceinline__ double devo__gpu_eval_soco(const devo__gpu_args &a, const double *x,
                                                      bool active, int lane, double *red)
{
  const int d = a.dim, lanes = a.lanes, id = a.v.soco_id;
  const devo__soco_shape sh = devo__soco_shape_of(id);
  const devo__soco_split sp = devo__soco_split_of(sh.m4, d);
  const double *o = a.v.shift;
  double sum = 0.0;
  if (id == DEVO__SOCO_S12) {
    double carry = 0.0;
    for (int base = 0; base < d; base += lanes) {
      const int j = base + lane;
      double tot;
      double p = devo__grp_scan(active && j < d ? x[j] - o[j] : 0.0, lane, lanes, red, &tot);
      if (j < d) {
        p = carry + p;
        sum += DEVO_MUL(p, p);
      }
      carry += tot;
    }
    sum = devo__grp_reduce<DEVO__RED_SUM>(sum, lanes, red);
    return devo__gpu_fitness(sum);
  }
  const int op = devo__soco_aux_op(sh.p2 ? sh.p2 : sh.p1);
  double aux = op == 1 ? 1.0 : 0.0;
  if (active) {
    for (int j = lane; j < d; j += lanes) {
      double w;
      sum += devo__soco_coord_term(&sh, &sp, j, x, o, &w);
      if (op == 1)
        aux = DEVO_MUL(aux, w);
      else if (op == 2)
        aux += w;
      else if (op == 3)
        aux = w > aux ? w : aux;
    }
  }
  sum = devo__grp_reduce<DEVO__RED_SUM>(sum, lanes, red);
  if (op == 1)
    aux = devo__grp_reduce<DEVO__RED_PROD>(aux, lanes, red + DEVO__RED_DOUBLES / 2);
  else if (op == 2)
    aux = devo__grp_reduce<DEVO__RED_SUM>(aux, lanes, red + DEVO__RED_DOUBLES / 2);
  else if (op == 3)
    aux = devo__grp_reduce<DEVO__RED_MAX>(aux, lanes, red + DEVO__RED_DOUBLES / 2);
  return devo__gpu_fitness(devo__soco_finish(id, d, sum, aux));
}

/* f(x) for the classic functions: per-coordinate terms over the group, then a reduction
 * (griewank also reduces its product). Inactive groups contribute nothing and get garbage. NaN
 * becomes +inf like the CPU's devo__eval_builtin. Block kinds go to devo__gpu_eval_blk: i is the
 * vector's index (their work slices are per vector); they have vpb = 1, so `active` is uniform
 * over the block there. */
template <int KIND>
__device__ __forceinline__ double devo__gpu_eval(const devo__gpu_args &a, const double *x,
                                                 bool active, int lane, double *red, int i = 0)
{
  if (DEVO__GPU_IS_BLOCK_KIND(KIND))
    return active ? devo__gpu_eval_blk<KIND>(a, x, i, red) : devo__gpu_inf();
  if (KIND == DEVO__P_SOCO)
    return devo__gpu_eval_soco(a, x, active, lane, red);
  const int d = a.dim, lanes = a.lanes;
  double sum = 0.0, prod = 1.0;
  if (active) {
    for (int j = lane; j < d; j += lanes) {
      double xj = x[j];
      double xn = (KIND == DEVO__P_ROSENBROCK && j + 1 < d) ? x[j + 1] : 0.0;
      sum += devo__classic_term(KIND, j, d, xj, xn, a.v.shift);
      if (KIND == DEVO__P_GRIEWANK)
        prod *= devo__classic_factor(KIND, j, xj, a.v.shift);
    }
  }
  sum = devo__grp_reduce<DEVO__RED_SUM>(sum, lanes, red);
  if (KIND == DEVO__P_GRIEWANK)
    prod = devo__grp_reduce<DEVO__RED_PROD>(prod, lanes, red + DEVO__RED_DOUBLES / 2);
  double f = devo__classic_finish(KIND, sum, prod);
  return devo__gpu_fitness(f);
}

/* The kinds with kernels; the host maps a run-time kind to one of these instantiations. */
#define DEVO__GPU_FOR_KINDS(M)                                                                     \
  M(DEVO__P_SPHERE) M(DEVO__P_ROSENBROCK) M(DEVO__P_GRIEWANK) M(DEVO__P_RASTRIGIN)
/* Group kinds that only the general kernels (fused, multikernel) host: gpu_fast.cu hands them
 * over. */
#define DEVO__GPU_FOR_GENERAL_KINDS(M) M(DEVO__P_SOCO)

/* Block kinds: copies the matrix that the launch configuration chose to stage (sm_stage >= 0)
 * into shared memory; every thread of the block calls it once at kernel entry. sm is the
 * dynamic shared memory. A no-op for the other kinds. */
template <int KIND>
__device__ __forceinline__ void devo__gpu_stage(const devo__gpu_args &a, double *sm)
{
  if (!DEVO__GPU_IS_BLOCK_KIND(KIND) || a.sm_stage < 0)
    return;
  const double *src = KIND == DEVO__P_CEC ? a.rott : a.v.etc;
  double *dst = sm + a.sm_stage;
  for (int k = (int)threadIdx.x; k < a.stage_n; k += (int)blockDim.x)
    dst[k] = __ldg(src + k);
  __syncthreads();
}

/* Block kinds: f(x) of vector i by the whole block (uniform arguments; every thread calls it
 * and gets the value). x: the vector, written before a block barrier; sm: the dynamic shared
 * memory (its first DEVO__RED_DOUBLES are the reduction scratch). NaN becomes +inf. */
template <int KIND>
__device__ __forceinline__ double devo__gpu_eval_blk(const devo__gpu_args &a, const double *x,
                                                     int i, double *sm)
{
  double *work = a.sm_work >= 0 ? sm + a.sm_work : a.work + (size_t)i * (size_t)a.work_n;
  double f;
  if (KIND == DEVO__P_CEC) {
    const size_t d = (size_t)a.dim;
    const double *rot = a.sm_stage >= 0 ? sm + a.sm_stage : a.rott;
    f = devo__cec_eval_block_ex(&a.v, x, work, sm, a.v.shift, rot, 1, d, d * d);
  } else {
    const double *etc = a.sm_stage >= 0 ? sm + a.sm_stage : a.v.etc;
    f = a.etc_v1 ? devo__etc_eval_block_etc(&a.v, etc, x, work, sm)
                 : devo__etc_eval_block2(&a.v, etc, x, work, sm);
  }
  return devo__gpu_fitness(f);
}

#endif /* __CUDACC__ */

#endif /* DEVO_GPU_COMMON_CUH */
