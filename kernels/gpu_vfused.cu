/* SPDX-License-Identifier: MIT */
/* gpu_vfused.cu: the general fused kernels for every DE variant (issue 18): every mutation
 * strategy of de_variant.h's table (rand1, rand2, best1, ...), binomial and exponential crossover,
 * jDE's self-adapted F and CR, and GOBL jumps (problems/de_variant.h has the math, shared with the
 * CPU backend). The specialised kernels (gpu_fast.cu, gpu_cec.cu, gpu_etc.cu, gpu_multi.cu) and
 * gpu_fused.cu's plain kernels run only rand1bin without jDE or GOBL; every other variant runs
 * here, for every problem kind (classic: group per vector; CEC, ETC: block per vector), with
 * gpu_fused.cu's thread layout and shared-memory layout.
 *
 * Versions (kernels/gpu_backend.cu picks them for a variant run):
 *   devo__k_vgen       one generation per launch (CUDA-graph chunks; generation ctl->base + k)
 *   devo__k_vpersist   a persistent cooperative kernel running a chunk of DE generations, one grid
 *                      barrier per generation (devo's split barrier or grid.sync())
 *   devo__k_vpersist<KIND, S, X>  version 2 of it (the default for the classic functions where
 *                      gpu_fast.cu's variant kernel does not apply, e.g. D > 128): strategy S and
 *                      crossover X compiled in (devo__vvar), so the de_variant.h calls fold to
 *                      them; version 1 spilled at 1024 threads (64 registers: 48 bytes of spill
 *                      stores for rastrigin, ptxas -v, CUDA 13), reloaded from L2 after every
 *                      barrier. Version 1 stays selectable (DEVO__GPU_VAR_GENERAL) and runs the
 *                      other kinds.
 *   devo__k_vpersistb  version 1 for a batch of trials (the many-runs batch, engine/batch.c):
 *                      each trial's blocks as its own run's grid, one barrier for all of them
 *                      (the block kinds CEC and ETC and the general kinds, whose variant runs
 *                      no specialised kernel hosts)
 *   devo__k_vinit      jDE's initial F_i = 0.5, CR_i = 0.9 (after devo__k_init)
 *   devo__k_gobl_box, devo__k_gobl_opp, devo__k_gobl_select   a GOBL jump generation, three
 *                      launches: per-coordinate min and max, the opposites and their evaluation,
 *                      the survivors by rank
 *   devo__k_gobl_box2  version 2 of the min and max (the default): the rows split over 32 warps
 *                      per 32 coordinates instead of one thread scanning all NP rows
 * (BENCHMARKS.md) State of a variant run, by generation parity (generation g in buffer g & 1, like
 * the population): fitness (a.fit for even g, v.fit1 for odd g: the "best" of generation g - 1 is
 * read by every block while others write generation g's), and jDE's F and CR. Every vector of
 * generation g writes its row, fitness, F and CR into the g & 1 buffers whether or not the trial
 * won, so no buffer is read and written in the same generation.
 * "best" is the argmin (lowest index on ties) of generation g - 1's fitness, reduced by every
 * block for itself after the grid barrier (no extra barrier; min over (value, index) pairs is
 * exact in any order, so every block gets the same index). */
#include <cooperative_groups.h>

#include "gpu_common.cuh"

namespace cg = cooperative_groups;

extern __shared__ double devo__sm[];

/* Groups per block whose next draws devo__k_vpersist keeps in shared memory during the wait. */
#define DEVO__VP_PRE 4

/* ---- draws and operators of one trial (problems/de_variant.h) ------------------------------ */

/* The variant that a kernel instance runs: the run's, with the strategy and crossover replaced
 * by the compiled-in S and X (version 2), or as it is (S = -1, version 1). Every de_variant.h call
 * takes this copy, so with S >= 0 their switches fold to the one strategy and crossover. */
template <int S, int X>
__device__ __forceinline__ devo__variant devo__vvar(const devo__variant &run)
{
  devo__variant var = run;
  if (S >= 0) {
    var.strategy = S;
    var.crossover = X;
  }
  return var;
}

/* Generation gen's per-vector draws for vector i (donors, j_rand, the exponential crossover's
 * length, the trial's F and CR: devo__var_draw) and the vector's current F_i, CR_i (jDE: from
 * generation gen - 1's buffers; kept when the trial loses). */
struct devo__vdraw {
  devo__var_ind d;
  double f0, cr0;
};

template <int S, int X>
__device__ __forceinline__ devo__vdraw devo__gpu_vdraw(const devo__gpu_args &a,
                                                       const devo__gpu_vargs &v, uint32_t gen,
                                                       int i)
{
  const devo__variant var = devo__vvar<S, X>(v.var);
  devo__vdraw w;
  const bool odd = (gen & 1u) != 0;
  w.f0 = v.var.jde ? (odd ? v.F0 : v.F1)[i] : a.f;
  w.cr0 = v.var.jde ? (odd ? v.CR0 : v.CR1)[i] : a.cr;
  w.d =
      devo__var_draw(&var, a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)a.dim, w.f0, w.cr0);
  return w;
}

/* Trial coordinate j of vector i: devo__var_trial_u with the coordinate's uniforms from the
 * seed's round keys. xi, xb: the target's and the best's rows (xb read only by the strategies
 * that use the best); xr: the donors' rows (only the strategy's picks are read). */
template <int S, int X>
__device__ __forceinline__ double
devo__gpu_vcoord(const devo__gpu_args &a, const devo__gpu_vargs &v, uint32_t gen, int i, int j,
                 const devo__vdraw &w, const double *xi, const double *xb,
                 const double *const (&xr)[5], int picks, bool use_best)
{
  const uint32_t dim = (uint32_t)a.dim;
  const devo__variant var = devo__vvar<S, X>(v.var);
  devo__de_u u;
  if (var.crossover == DEVO__XOVER_EXP) {
    /* the run n .. n + L - 1 needs no uniform to decide; a coordinate outside it is the
     * target's, whatever its uniforms (so only taken ones draw, for the repair) */
    if (!devo__exp_take((uint32_t)j, w.d.jrand, w.d.len, dim))
      return xi[j];
    u = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
  } else {
    u = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
    if (!devo__var_take(&var, &w.d, u, (uint32_t)j, dim))
      return xi[j];
  }
  /* the donors' loads only where the mutant is taken */
  double x[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
  for (int k = 0; k < 5; ++k)
    if (k < picks)
      x[k] = xr[k][j];
  return devo__var_trial_u(&var, &w.d, u, (uint32_t)j, dim, xi[j], use_best ? xb[j] : 0.0, x,
                           a.v.lower, a.v.upper, a.bounds);
}

/* ---- generation step ---------------------------------------------------------------------- */

/* The index of the smallest of fit[0..np) (lowest index on ties; all +inf gives 0, like the
 * CPU's scan), every thread of the block gets it. Warp 0 alone scans and reduces (the lanes'
 * loads are independent, so they overlap), then one block barrier publishes the index: one
 * __syncthreads instead of a block reduction's two. Fitness values are never NaN (the
 * evaluators turn NaN into +inf). */
__device__ __forceinline__ int devo__gpu_vbest(const double *fit, int np)
{
  __shared__ int sb;
  if (threadIdx.x < 32) {
    const int bi = devo__gpu_warp_argmin(fit, np);
    if (threadIdx.x == 0)
      sb = bi;
  }
  __syncthreads();
  const int best = sb;
  /* sb is rewritten by the next generation's call only after that call's scan, which every
   * thread reaches after this read: the next barrier of the generation (the evaluation's or
   * the grid barrier's) lies between them */
  return best;
}

/* Generation gen's best index for the strategies that use it (0 otherwise, unread); every
 * thread of the block calls it. */
template <int S, int X>
__device__ __forceinline__ int devo__gpu_vbest_of(const devo__gpu_args &a, const devo__gpu_vargs &v,
                                                  uint32_t gen)
{
  if (!devo__strategy_uses_best(devo__vvar<S, X>(v.var).strategy))
    return 0;
  return devo__gpu_vbest((gen & 1u) ? a.fit : v.fit1, a.np);
}

/* One vector of generation gen: trial i from generation gen - 1's buffers into generation gen's
 * (row, fitness, F, CR: always written). Every thread of the block calls this (the evaluation
 * synchronises). best: generation gen - 1's best index. */
template <int KIND, int S, int X>
__device__ __forceinline__ void
devo__vfused_vector(const devo__gpu_args &a, const devo__gpu_vargs &v, uint32_t gen, int i,
                    int lane, double *s_trial, double *red, int best, const devo__vdraw *pre)
{
  const bool active = i < a.np, odd = (gen & 1u) != 0;
  const int d = a.dim, lanes = a.lanes;
  const double *src = odd ? a.pop0 : a.pop1;
  double *dst = odd ? a.pop1 : a.pop0;
  const double *fsrc = odd ? a.fit : v.fit1;
  double *fdst = odd ? v.fit1 : a.fit;
  const size_t row = (size_t)(active ? i : 0) * (size_t)d;
  double *t = s_trial ? s_trial : dst + row;
  double fo = 0.0;
  devo__vdraw w;
  if (active) {
    w = pre ? *pre : devo__gpu_vdraw<S, X>(a, v, gen, i);
    fo = fsrc[i];
    const devo__variant var = devo__vvar<S, X>(v.var);
    const int picks = devo__strategy_picks(var.strategy);
    const bool use_best = devo__strategy_uses_best(var.strategy) != 0;
    const double *xi = src + row, *xb = src + (size_t)best * d;
    const double *const xr[5] = {src + (size_t)w.d.r[0] * d, src + (size_t)w.d.r[1] * d,
                                 src + (size_t)w.d.r[2] * d, src + (size_t)w.d.r[3] * d,
                                 src + (size_t)w.d.r[4] * d};
    for (int j = lane; j < d; j += lanes)
      t[j] = devo__gpu_vcoord<S, X>(a, v, gen, i, j, w, xi, xb, xr, picks, use_best);
  }
  devo__grp_sync(lanes);
  const double ft = devo__gpu_eval<KIND>(a, t, active, lane, red, i);
  if (active) {
    const bool acc = ft <= fo; /* the CPU's rule: the trial wins ties */
    const double *xi = src + row;
    double *xo = dst + row;
    if (s_trial) {
      for (int j = lane; j < d; j += lanes)
        xo[j] = acc ? t[j] : xi[j];
    } else if (!acc) {
      for (int j = lane; j < d; j += lanes)
        xo[j] = xi[j];
    }
    if (lane == 0) {
      fdst[i] = acc ? ft : fo;
      if (v.var.jde) {
        (odd ? v.F1 : v.F0)[i] = acc ? w.d.f : w.f0;
        (odd ? v.CR1 : v.CR0)[i] = acc ? w.d.cr : w.cr0;
      }
      devo__gpu_note_target(a, acc ? ft : fo, gen);
    }
  }
}

template <int KIND>
__global__ void __launch_bounds__(1024)
    devo__k_vgen(devo__gpu_args a, devo__gpu_vargs v, uint32_t k)
{
  const uint32_t gen = (uint32_t)a.ctl->base + k;
  if (devo__gpu_done_before(a, gen))
    return;
  devo__gpu_stage<KIND>(a, devo__sm);
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  double *s_trial = a.trial_shared ? devo__sm + DEVO__RED_DOUBLES + (size_t)grp * a.dim : NULL;
  const int best = devo__gpu_vbest_of<-1, -1>(a, v, gen);
  devo__vfused_vector<KIND, -1, -1>(a, v, gen, (int)blockIdx.x * a.vpb + grp, lane, s_trial,
                                    devo__sm, best, NULL);
}

/* Generations gen0 + 1 .. gen0 + ngens of the blocks blk (of nblk: the run's grid, or its trial's
 * share of a batch's), with one split barrier per generation counted over the whole grid. A launch
 * after the generation that reached the target (an earlier launch of the same chunk, e.g. before a
 * GOBL jump) does nothing. S, X: the compiled-in strategy and crossover (version 2), or -1 (version
 * 1, the run's). bar: a batch's barrier (a run's is a.ctl->bar). BATCH: a batch launch's trial
 * (devo__k_vpersistb), which stops stepping after gen_end or its target but goes on arriving at the
 * barrier that the other trials share, as devo__gpu_persist_loop_batch does; the loop is written
 * out here rather than through it because the solo loop's CG branch and draws stay as they were
 * measured (the same loop through step and draw lambdas compiled to other PTX, not re-timed). */
template <int KIND, int S, int X, bool BATCH>
__device__ __forceinline__ void
devo__vpersist_run(const devo__gpu_args &a, const devo__gpu_vargs &v, int blk, int nblk,
                   uint32_t gen0, uint32_t ngens, uint32_t gen_end, unsigned int *bar, int barrier)
{
  if (!BATCH && devo__gpu_stopped(a, gen0))
    return; /* (a batch's trials have not stopped: the host takes them out) */
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  double *s_trial = a.trial_shared ? devo__sm + DEVO__RED_DOUBLES + (size_t)grp * a.dim : NULL;
  const int64_t stride = (int64_t)nblk * a.vpb;
  /* with one vector slot per block, the next generation's draws are made while the block waits
   * at the barrier (as devo__k_persist does with its indices): they need no other block's data
   * (jDE's F_i, CR_i of vector i0 were written by this group, before the arrival's
   * __syncthreads). One thread of the group draws them into shared memory (for group 0 one of
   * warp 1 when the group spans warps, so that the draw does not delay thread 0's poll), and
   * the wait's __syncthreads publishes them: no thread keeps them in registers across the
   * barrier (held in registers they spilled at 64 registers: ptxas -v, CUDA 13). Blocks of
   * more than DEVO__VP_PRE groups (D < 32) draw after the barrier. */
  __shared__ devo__vdraw s_pre[DEVO__VP_PRE];
  const bool one_slot = stride >= a.np && a.vpb <= DEVO__VP_PRE;
  const int i0 = blk * a.vpb + grp;
  const int draw_lane = grp == 0 && a.lanes > 32 ? 32 : 0;
  bool have_pre = false, idle = false;
  devo__gpu_stage<KIND>(a, devo__sm);
  for (uint32_t k = 1; k <= ngens; ++k) {
    const uint32_t gen = gen0 + k;
    if (!idle) {
      const int best = devo__gpu_vbest_of<S, X>(a, v, gen);
      for (int64_t b = (int64_t)blk * a.vpb; b < a.np; b += stride)
        devo__vfused_vector<KIND, S, X>(a, v, gen, (int)(b + grp), lane, s_trial, devo__sm, best,
                                        have_pre ? &s_pre[grp] : NULL);
    }
    if (k == ngens)
      break; /* the end of the kernel is the last barrier */
    if (!BATCH && barrier == DEVO__BARRIER_CG) {
      cg::this_grid().sync();
    } else {
      devo__grid_arrive(BATCH ? bar : &a.ctl->bar);
      if (BATCH)
        idle = idle || gen == gen_end;
      if (!idle && one_slot && i0 < a.np) {
        if (lane == draw_lane)
          s_pre[grp] = devo__gpu_vdraw<S, X>(a, v, gen + 1u, i0);
        have_pre = true;
      }
      devo__grid_wait(BATCH ? bar : &a.ctl->bar, k * gridDim.x, barrier == DEVO__BARRIER_RELAXED);
    }
    if (devo__gpu_stopped(a, gen)) {
      if (!BATCH)
        break;
      idle = true;
    }
  }
}

template <int KIND, int S = -1, int X = -1>
__global__ void __launch_bounds__(1024) devo__k_vpersist(devo__gpu_args a, devo__gpu_vargs v,
                                                         uint32_t gen0, uint32_t ngens, int barrier)
{
  devo__vpersist_run<KIND, S, X, false>(a, v, (int)blockIdx.x, (int)gridDim.x, gen0, ngens,
                                        gen0 + ngens, NULL, barrier);
}

/* The batch kernel of version 1 (devo__gpu_batch_launch; the block kinds and the general kinds,
 * which no specialised batch kernel hosts): trial t = blockIdx.x / bpt runs with its slot's
 * arguments, generations slot gen0 + 1 .. gen_end, all trials behind one acquire barrier. */
template <int KIND>
__global__ void __launch_bounds__(1024) devo__k_vpersistb(devo__gpu_batch b, uint32_t ngens)
{
  const int t = (int)blockIdx.x / b.bpt;
  const devo__gpu_bslot *sl = b.slot + t;
  const devo__gpu_args a = sl->a;
  const devo__gpu_vargs v = sl->va;
  devo__vpersist_run<KIND, -1, -1, true>(a, v, (int)blockIdx.x - t * b.bpt, b.bpt, sl->gen0, ngens,
                                         sl->gen_end, b.bar, DEVO__BARRIER_ACQUIRE);
}

/* jDE's initial F_i and CR_i (Brest et al. 2006) into the generation-0 buffers. */
__global__ void devo__k_vinit(devo__gpu_args a, devo__gpu_vargs v)
{
  for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < a.np;
       i += (int)(gridDim.x * blockDim.x)) {
    v.F0[i] = DEVO__JDE_F_INIT;
    v.CR0[i] = DEVO__JDE_CR_INIT;
  }
}

/* ---- GOBL jump (generation gen; Wang, Rahnamayan, Wu 2012) -------------------------------- */

/* a_j = min_i x_ij and b_j = max_i x_ij of generation gen - 1, thread per coordinate, scanning
 * the rows in index order with strict comparisons (the CPU's scan: the first of equal values,
 * which matters only for -0 against +0). */
__global__ void devo__k_gobl_box(devo__gpu_args a, devo__gpu_vargs v, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen))
    return;
  const double *src = (gen & 1u) ? a.pop0 : a.pop1;
  const size_t d = (size_t)a.dim;
  for (int j = (int)(blockIdx.x * blockDim.x + threadIdx.x); j < a.dim;
       j += (int)(gridDim.x * blockDim.x)) {
    double lo = src[j], hi = lo;
    for (int i = 1; i < a.np; ++i) {
      const double x = src[(size_t)i * d + j];
      if (x < lo)
        lo = x;
      if (x > hi)
        hi = x;
    }
    v.gbox[j] = lo;
    v.gbox[d + j] = hi;
  }
}

/* Version 2 of devo__k_gobl_box (the default; version 1 runs with DEVO__GPU_VAR_GENERAL): the
 * same a_j and b_j with the rows split over the block. A block of DEVO__GBOX_ROWS warps takes 32
 * coordinates (a warp's lanes: coalesced); warp w scans rows w, w + DEVO__GBOX_ROWS, ...; the
 * partial results merge by (value, index), ties to the lower index, which is the CPU's scan
 * (strict comparisons in index order keep the first of equal values: the row's own bits, so -0
 * and +0 come out as there). Version 1 ran NP dependent-ish loads per thread on 100 threads
 * (D = 100): most of a jump's time. */
#define DEVO__GBOX_ROWS  32
#define DEVO__GBOX_BATCH 8
__global__ void __launch_bounds__(32 * DEVO__GBOX_ROWS)
    devo__k_gobl_box2(devo__gpu_args a, devo__gpu_vargs v, uint32_t gen)
{
  __shared__ double s_v[2][DEVO__GBOX_ROWS][32];
  __shared__ int s_i[2][DEVO__GBOX_ROWS][32];
  if (devo__gpu_done_before(a, gen))
    return;
  const double *src = (gen & 1u) ? a.pop0 : a.pop1;
  const size_t d = (size_t)a.dim;
  const int lane = (int)threadIdx.x & 31, w = (int)threadIdx.x >> 5, np = a.np;
  for (size_t j0 = (size_t)blockIdx.x * 32; j0 < d; j0 += (size_t)gridDim.x * 32) {
    const size_t j = j0 + (size_t)lane;
    const bool on = j < d;
    double lo = devo__gpu_inf(), hi = -devo__gpu_inf(), x[DEVO__GBOX_BATCH];
    int li = 0x7fffffff, hix = 0x7fffffff;
    /* every load of the first batch before any comparison: one round trip up to NP = 256 */
#pragma unroll
    for (int q = 0; q < DEVO__GBOX_BATCH; ++q) {
      const int i = w + DEVO__GBOX_ROWS * q;
      x[q] = on && i < np ? src[(size_t)i * d + j] : 0.0;
    }
#pragma unroll
    for (int q = 0; q < DEVO__GBOX_BATCH; ++q) {
      const int i = w + DEVO__GBOX_ROWS * q;
      if (on && i < np) {
        devo__gbox_take(lo, li, x[q], i, true);
        devo__gbox_take(hi, hix, x[q], i, false);
      }
    }
    for (int i = w + DEVO__GBOX_ROWS * DEVO__GBOX_BATCH; on && i < np; i += DEVO__GBOX_ROWS) {
      const double y = src[(size_t)i * d + j];
      devo__gbox_take(lo, li, y, i, true);
      devo__gbox_take(hi, hix, y, i, false);
    }
    s_v[0][w][lane] = lo;
    s_i[0][w][lane] = li;
    s_v[1][w][lane] = hi;
    s_i[1][w][lane] = hix;
    __syncthreads();
    for (int h = DEVO__GBOX_ROWS / 2; h > 0; h >>= 1) {
      if (w < h) {
        devo__gbox_take(lo, li, s_v[0][w + h][lane], s_i[0][w + h][lane], true);
        devo__gbox_take(hi, hix, s_v[1][w + h][lane], s_i[1][w + h][lane], false);
        s_v[0][w][lane] = lo;
        s_i[0][w][lane] = li;
        s_v[1][w][lane] = hi;
        s_i[1][w][lane] = hix;
      }
      __syncthreads();
    }
    if (w == 0 && on) {
      v.gbox[j] = lo;
      v.gbox[d + j] = hi;
    }
  }
}

/* The opposite of every vector of generation gen - 1 into v.gx, evaluated into v.gf; the init
 * kernel's layout (group per vector; block kinds: one vector per block, staged matrix). */
template <int KIND>
__global__ void __launch_bounds__(1024)
    devo__k_gobl_opp(devo__gpu_args a, devo__gpu_vargs v, uint32_t gen, double k)
{
  if (devo__gpu_done_before(a, gen))
    return;
  const int grp = (int)threadIdx.x / a.lanes, lane = (int)threadIdx.x % a.lanes;
  const int i = (int)blockIdx.x * a.vpb + grp, d = a.dim;
  const bool active = i < a.np;
  const double *src = (gen & 1u) ? a.pop0 : a.pop1;
  const size_t row = (size_t)(active ? i : 0) * (size_t)d;
  double *x = v.gx + row;
  if (active) {
    for (int j = lane; j < d; j += a.lanes)
      x[j] = devo__gobl_opposite(a.seed, gen, (uint32_t)i, (uint32_t)j, k, v.gbox[j],
                                 v.gbox[(size_t)d + j], src[row + j], a.v.lower, a.v.upper);
  }
  devo__grp_sync(a.lanes); /* rosenbrock reads the neighbour's coordinate */
  devo__gpu_stage<KIND>(a, devo__sm);
  const double f = devo__gpu_eval<KIND>(a, x, active, lane, devo__sm, i);
  if (active && lane == 0)
    v.gf[i] = f;
}

/* Survivors of the 2 NP candidates (c < NP: parent c, else opposite c - NP): candidate c's rank
 * is the number of candidates before it in (fitness, index) order, counted by block c; the NP
 * best go to rank positions of generation gen's buffers, with the parent's F and CR. Counting is
 * O(NP^2) per jump (4e8 comparisons at NP = 10^4), exact and order-free. */
__global__ void devo__k_gobl_select(devo__gpu_args a, devo__gpu_vargs v, uint32_t gen)
{
  __shared__ int part[32];
  if (devo__gpu_done_before(a, gen))
    return;
  const bool odd = (gen & 1u) != 0;
  const double *src = odd ? a.pop0 : a.pop1;
  double *dst = odd ? a.pop1 : a.pop0;
  const double *fsrc = odd ? a.fit : v.fit1;
  double *fdst = odd ? v.fit1 : a.fit;
  const int np = a.np, n2 = 2 * a.np;
  const size_t d = (size_t)a.dim;
  for (int c = (int)blockIdx.x; c < n2; c += (int)gridDim.x) {
    const double fc = c < np ? fsrc[c] : v.gf[c - np];
    int cnt = 0;
    for (int o = (int)threadIdx.x; o < n2; o += (int)blockDim.x) {
      const double fo = o < np ? fsrc[o] : v.gf[o - np];
      cnt += devo__gobl_before(fo, (uint32_t)o, fc, (uint32_t)c);
    }
    for (int off = 16; off > 0; off >>= 1)
      cnt += __shfl_xor_sync(0xffffffffu, cnt, off);
    if ((threadIdx.x & 31) == 0)
      part[threadIdx.x >> 5] = cnt;
    __syncthreads();
    int rank = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w)
      rank += part[w];
    __syncthreads(); /* part is rewritten by the next candidate */
    if (rank >= np)
      continue;
    const int p = c < np ? c : c - np;
    const double *xs = c < np ? src + (size_t)c * d : v.gx + (size_t)p * d;
    double *xd = dst + (size_t)rank * d;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
      xd[j] = xs[j];
    if (threadIdx.x == 0) {
      fdst[rank] = fc;
      if (v.var.jde) {
        (odd ? v.F1 : v.F0)[rank] = (odd ? v.F0 : v.F1)[p];
        (odd ? v.CR1 : v.CR0)[rank] = (odd ? v.CR0 : v.CR1)[p];
      }
      devo__gpu_note_target(a, fc, gen);
    }
  }
}

/* Version 2 of the persistent kernel for a group kind and the run's strategy and crossover (one
 * case per row of de_variant.h's strategy table). */
template <int K> static const void *devo__vpersist_of(int strategy, int crossover)
{
  switch (strategy) {
#define DEVO__VPERSIST_CASE(id, name, picks, best, expr)                                           \
  case DEVO__STRAT_##id:                                                                           \
    return crossover == DEVO__XOVER_EXP                                                            \
               ? (const void *)devo__k_vpersist<K, DEVO__STRAT_##id, DEVO__XOVER_EXP>              \
               : (const void *)devo__k_vpersist<K, DEVO__STRAT_##id, DEVO__XOVER_BIN>;
    DEVO__STRATEGIES(DEVO__VPERSIST_CASE)
#undef DEVO__VPERSIST_CASE
  default:
    return NULL;
  }
}

int devo__gpu_vfused_fill(int kind, const devo__variant *var, devo__gpu_vktab *t)
{
  t->persist2 = NULL;
  switch (kind) {
#define DEVO__VPERSIST2_CASE(K)                                                                    \
  case K:                                                                                          \
    t->persist2 = devo__vpersist_of<K>(var->strategy, var->crossover);                             \
    break;
    DEVO__GPU_FOR_KINDS(DEVO__VPERSIST2_CASE)
#undef DEVO__VPERSIST2_CASE
  default:
    break;
  }
  switch (kind) {
#define DEVO__VFUSED_CASE(K)                                                                       \
  case K:                                                                                          \
    t->gen = (const void *)devo__k_vgen<K>;                                                        \
    t->persist = (const void *)devo__k_vpersist<K>;                                                \
    t->gobl_opp = (const void *)devo__k_gobl_opp<K>;                                               \
    break;
    DEVO__GPU_FOR_KINDS(DEVO__VFUSED_CASE)
    DEVO__GPU_FOR_GENERAL_KINDS(DEVO__VFUSED_CASE)
    DEVO__GPU_FOR_BLOCK_KINDS(DEVO__VFUSED_CASE)
#undef DEVO__VFUSED_CASE
  default:
    return -1;
  }
  t->init = (const void *)devo__k_vinit;
  t->gobl_box = (const void *)devo__k_gobl_box2;
  t->gobl_box1 = (const void *)devo__k_gobl_box;
  t->gobl_select = (const void *)devo__k_gobl_select;
  return 0;
}

const void *devo__gpu_vfused_batch_kernel(int kind)
{
  switch (kind) {
#define DEVO__VPERSISTB_CASE(K)                                                                    \
  case K:                                                                                          \
    return (const void *)devo__k_vpersistb<K>;
    DEVO__GPU_FOR_GENERAL_KINDS(DEVO__VPERSISTB_CASE)
    DEVO__GPU_FOR_BLOCK_KINDS(DEVO__VPERSISTB_CASE)
#undef DEVO__VPERSISTB_CASE
  default:
    return NULL;
  }
}
