/* gpu_etc.cu: the persistent generation kernel for ETC scheduling with one warp per schedule
 * (issue 5's throughput case: 512x16 FCFS at NP = 1024).
 *
 * Versions (kernels/gpu_backend.cu picks one; BENCHMARKS.md has the measurements):
 *   devo__k_persist<ETC>   gpu_fused.cu: one block per schedule, etc_device.cuh's block
 *                          evaluators (about ten block barriers per schedule), the ETC matrix
 *                          staged only when the population fits one resident wave with it;
 *                          always selectable (DEVO__GPU_ETC_BLOCK and the other block options).
 *   devo__k_etcw<C>        this file: a warp owns schedule i for the whole chunk (x_i, f(x_i),
 *                          its crossover draws in registers, as gpu_fast.cu does for the
 *                          classic functions), C = ceil(n / 32) rounded to 4, 8 or 16 tasks per
 *                          lane (task t = lane + 32 c); up to 8 schedules per block share the
 *                          ETC matrix, staged in shared memory once per chunk. FCFS, m <= 32,
 *                          n <= 512 only; the default only with 8 schedules per block (where
 *                          it measured faster: 512x16 NP = 1024), else with DEVO__GPU_ETC_WARP.
 *
 * The evaluation keeps problems/etc.h's order exactly: completion(j) and F_j are left folds
 * over machine j's tasks in index order, so they are computed by one lane per machine walking a
 * contiguous, index-ordered copy of its ETC values (lane j adds what the CPU adds, in the CPU's
 * order); no regrouping, since a tree over a machine's tasks would change the bits. Building the
 * copy needs no block barrier: per chunk of 32 tasks, ballots on the machine number's bits give
 * each task its rank
 * among the chunk's tasks of its machine, the group leaders write the chunk's count per machine,
 * and after one __syncwarp lane j turns its column of counts into positions (a prefix over
 * chunks plus the machine's offset, a shuffle scan over the lanes). The makespan is a warp max
 * (exact in any order); the flowtime F_0 + F_1 + ... is added in machine order by every lane
 * from shuffles. Every barrier inside the evaluation is a __syncwarp. */
#include "gpu_common.cuh"

extern __shared__ double devo__sm[];

#define DEVO__ETCW_MAX_WARPS 8  /* schedules per block: NP = 1024 fills 128 of 132 SMs */
#define DEVO__ETCW_MAX_M     32 /* one lane per machine */
#define DEVO__ETCW_MAX_N     512

/* Generation gen's draws for schedule i: indices, and per task whether it takes the mutant
 * (bit c of *take) and the bound-repair uniform. Drawn while the block waits at the barrier. */
template <int C>
__device__ __forceinline__ void devo__etcw_draw(const devo__gpu_args &a, uint32_t gen, int i,
                                                int lane, bool active, devo__de_idx &r,
                                                unsigned &take, double (&ub)[C])
{
  if (active)
    r = devo__de_indices(a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)a.dim);
  take = 0u;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int j = lane + 32 * c;
    ub[c] = 0.0;
    if (active && j < a.dim) {
      const devo__de_u u = devo__de_coord(a.seed, gen, (uint32_t)i, (uint32_t)j);
      if (devo__de_take(u, (uint32_t)j, r, a.cr))
        take |= 1u << c;
      ub[c] = u.bound;
    }
  }
}

/* Objective of the trial t (task lane + 32 c in t[c]) by the whole warp; every lane gets it.
 * stage: the ETC matrix with row stride ms (odd, so that a chunk's gathers spread over the
 * banks); sev: n doubles, cnt: C * m ints of this warp's shared memory; w: W_lane (lane < m). */
template <int C>
__device__ __forceinline__ double devo__etcw_eval(const devo__gpu_args &a, const double (&t)[C],
                                                  int lane, const double *stage, int ms,
                                                  double *sev, int *cnt, double w)
{
  const int n = a.dim, m = a.v.nmach;
  const unsigned lt = (1u << lane) - 1u;
  const int nb = m > 1 ? 32 - __clz(m - 1) : 0; /* bits of a machine number */
  int jm[C], below[C];
  double e[C];
  for (int k = lane; k < C * m; k += 32)
    cnt[k] = 0;
  __syncwarp();
  /* decode, gather, rank inside the chunk; chunks are independent (no chain through memory) */
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int tk = lane + 32 * c;
    const bool ok = tk < n;
    jm[c] = ok ? devo__etc_machine(t[c], m) : 0;
    e[c] = ok ? stage[tk * ms + jm[c]] : 0.0;
    /* the lanes of the same machine: one ballot per bit of the machine number (at most 5;
     * ballots are cheaper than __match_any_sync) */
    unsigned peers = __ballot_sync(0xffffffffu, ok);
    for (int b = 0; b < nb; ++b) {
      const bool bit = (jm[c] >> b) & 1;
      const unsigned v = __ballot_sync(0xffffffffu, bit);
      peers &= bit ? v : ~v;
    }
    below[c] = __popc(peers & lt);
    if (ok && below[c] == 0)
      cnt[c * m + jm[c]] = __popc(peers);
  }
  __syncwarp();
  /* lane j: where each chunk's tasks of machine j start in the machine-major copy */
  int tot = 0;
  if (lane < m) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int k = cnt[c * m + lane];
      cnt[c * m + lane] = tot;
      tot += k;
    }
  }
  int incl = tot;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int u = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d)
      incl += u;
  }
  const int off = incl - tot;
  if (lane < m) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      cnt[c * m + lane] += off;
  }
  __syncwarp();
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (lane + 32 * c < n)
      sev[cnt[c * m + jm[c]] + below[c]] = e[c];
  __syncwarp();
  /* the CPU's additions in the CPU's order: c = W_j; c += e; F += c */
  double cj = w, f = 0.0;
  if (lane < m) {
#pragma unroll 4
    for (int q = off; q < incl; ++q) {
      cj += sev[q];
      f += cj;
    }
  }
  double mk = lane < m ? cj : -1.0; /* completions are >= 0 */
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    const double o = __shfl_xor_sync(0xffffffffu, mk, d);
    mk = o > mk ? o : mk;
  }
  /* all shuffles issued before the first add; the adds in machine order */
  double fj[DEVO__ETCW_MAX_M], ft = 0.0;
#pragma unroll
  for (int j = 0; j < DEVO__ETCW_MAX_M; ++j)
    fj[j] = __shfl_sync(0xffffffffu, f, j);
#pragma unroll
  for (int j = 0; j < DEVO__ETCW_MAX_M; ++j)
    if (j < m)
      ft += fj[j];
  __syncwarp(); /* sev and cnt are rewritten by the next generation */
  const double obj = devo__etc_objective(a.v.lambda, mk, ft, m);
  return devo__gpu_fitness(obj);
}

/* Generations gen0 + 1 .. gen0 + ngens; block b's warp w owns schedule b * vpb + w throughout.
 * Dynamic shared memory: [ETC matrix, n * ms][sev, vpb * n][cnt, vpb * C * m ints]. */
template <int C>
__global__ void __launch_bounds__(DEVO__ETCW_MAX_WARPS * 32, 1)
    devo__k_etcw(devo__gpu_args a, uint32_t gen0, uint32_t ngens)
{
  const int n = a.dim, m = a.v.nmach, ms = m | 1;
  const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
  const int i = (int)blockIdx.x * a.vpb + warp;
  const bool active = i < a.np;
  const size_t row = (size_t)(active ? i : 0) * (size_t)n;
  double *stage = devo__sm;
  double *sev = devo__sm + (size_t)n * ms + (size_t)warp * n;
  int *cnt = (int *)(devo__sm + (size_t)n * ms + (size_t)a.vpb * n) + warp * C * m;
  for (int k = (int)threadIdx.x; k < n * m; k += (int)blockDim.x)
    stage[(k / m) * ms + k % m] = __ldg(a.v.etc + k);
  const double w = lane < m && a.v.ready ? a.v.ready[lane] : 0.0;
  double x[C], ub[C];
  unsigned take = 0u;
  {
    const double *cur = (gen0 & 1u) ? a.pop1 : a.pop0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + 32 * c;
      x[c] = active && j < n ? cur[row + j] : 0.0;
    }
  }
  double fi = active ? a.fit[i] : 0.0;
  devo__de_idx r = {0u, 0u, 0u, 0u};
  devo__etcw_draw<C>(a, gen0 + 1u, i, lane, active, r, take, ub);
  __syncthreads(); /* the staged matrix */
  for (uint32_t k = 1; k <= ngens; ++k) {
    const uint32_t gen = gen0 + k;
    const double *src = (gen & 1u) ? a.pop0 : a.pop1;
    double *dst = (gen & 1u) ? a.pop1 : a.pop0;
    if (active) {
      double t[C];
      {
        /* every donor load is issued before the first use: one L2 round trip after the barrier */
        const double *x1 = src + (size_t)r.r1 * n, *x2 = src + (size_t)r.r2 * n,
                     *x3 = src + (size_t)r.r3 * n;
        double v1[C], v2[C], v3[C];
#pragma unroll
        for (int c = 0; c < C; ++c) {
          const int j = lane + 32 * c;
          v1[c] = v2[c] = v3[c] = 0.0;
          if ((take >> c) & 1u) {
            v1[c] = x1[j];
            v2[c] = x2[j];
            v3[c] = x3[j];
          }
        }
#pragma unroll
        for (int c = 0; c < C; ++c)
          t[c] = ((take >> c) & 1u) ? devo__de_mutant(x[c], v1[c], v2[c], v3[c], a.f, a.v.lower,
                                                      a.v.upper, a.bounds, ub[c])
                                    : x[c];
      }
      const double ft = devo__etcw_eval<C>(a, t, lane, stage, ms, sev, cnt, w);
      if (ft <= fi) { /* the CPU's rule: the trial wins ties */
#pragma unroll
        for (int c = 0; c < C; ++c)
          x[c] = t[c];
        fi = ft;
        if (lane == 0)
          a.fit[i] = ft;
      }
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int j = lane + 32 * c;
        if (j < n)
          dst[row + j] = x[c];
      }
      if (lane == 0)
        devo__gpu_note_target(a, fi, gen);
    }
    if (k == ngens)
      break; /* the end of the kernel is the last barrier */
    devo__grid_arrive(&a.ctl->bar);
    devo__etcw_draw<C>(a, gen + 1u, i, lane, active, r, take, ub);
    devo__grid_wait(&a.ctl->bar, k * gridDim.x, false);
    if (devo__gpu_stopped(a, gen))
      break;
  }
}

/* ---- host side --------------------------------------------------------------------------- */

cudaError_t devo__gpu_etcw_plan(const devo__pview *v, int np, int force, const cudaDeviceProp *p,
                                devo__gpu_fast_cfg *cfg, int *ok)
{
  const int n = v->ntasks, m = v->nmach, ms = m | 1;
  int c, vpb, occ = 0;
  *ok = 0;
  if (v->kind != DEVO__P_ETC || v->order != DEVO__ORDER_FCFS || m < 1 || m > DEVO__ETCW_MAX_M ||
      n < 1 || n > DEVO__ETCW_MAX_N || np < 4)
    return cudaSuccess;
  c = (n + 31) / 32;
  c = c <= 4 ? 4 : (c <= 8 ? 8 : 16);
  /* about one block per SM (the fewest barrier arrivals that still use every SM) */
  vpb = (np + p->multiProcessorCount - 1) / p->multiProcessorCount;
  if (vpb > DEVO__ETCW_MAX_WARPS)
    vpb = DEVO__ETCW_MAX_WARPS;
  /* measured (BENCHMARKS.md): it wins with 8 schedules per block (512x16 NP = 1024) and loses
   * to the block evaluator with 1 or 2 (NP = 64, 256): a warp's own chain per generation is
   * longer than a block's, so it pays only where the SMs are full of warps */
  if (!force && vpb < DEVO__ETCW_MAX_WARPS)
    return cudaSuccess;
  cfg->kern = c == 4 ? (const void *)devo__k_etcw<4>
                     : (c == 8 ? (const void *)devo__k_etcw<8> : (const void *)devo__k_etcw<16>);
  cfg->lanes = 32;
  cfg->c = c;
  cfg->vpb = vpb;
  cfg->threads = vpb * 32;
  cfg->blocks = (np + vpb - 1) / vpb;
  cfg->smem =
      ((size_t)n * ms + (size_t)vpb * n) * sizeof(double) + (size_t)vpb * c * m * sizeof(int);
  if (cfg->smem > (size_t)p->sharedMemPerBlockOptin)
    return cudaSuccess;
  cudaError_t e =
      cudaFuncSetAttribute(cfg->kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cfg->smem);
  if (e != cudaSuccess)
    return e;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, cfg->kern, cfg->threads, cfg->smem);
  if (e != cudaSuccess)
    return e;
  /* one schedule per warp for the whole chunk: the grid must be co-resident */
  *ok = (int64_t)occ * p->multiProcessorCount >= cfg->blocks;
  return cudaSuccess;
}
