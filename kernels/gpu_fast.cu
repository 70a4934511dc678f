/* SPDX-License-Identifier: MIT */
/* gpu_fast.cu: the latency-bound fused generation kernel for small dimensions (D <= 512) with the
 * whole population co-resident, as in the issue-3 benchmark (D=100 NP=250: every generation is a
 * chain of dependent steps, not work). Same algorithm, counters and replacement rule as
 * gpu_fused.cu; only what lies on the chain after each grid barrier changes.
 *
 * Versions (kernels/gpu_backend.cu picks one; BENCHMARKS.md has the measurements):
 *   devo__k_fast<KIND, C>  persistent cooperative chunk, one split grid barrier per generation
 *                          (gpu_common.cuh), a group of `lanes` threads per vector (a warp
 *                          segment, a warp, or 2 to 4 warps), C coordinates per thread
 *                          (j = lane + c * lanes), several vectors per block so that the grid is
 *                          about one block per SM. Against devo__k_persist it removes from the
 *                          post-barrier chain:
 *                          - the own row x_i, its fitness and the shift vector o: kept in
 *                            registers for the whole chunk (a group always owns the same vector);
 *                            the acquire poll invalidates L1, so each was an L2 round trip, and
 *                            o's load could only start after the trial's __syncthreads;
 *                          - the crossover draws: (r1, r2, r3, j_rand) and each coordinate's
 *                            (u_cr, u_bound) of generation g + 1 are drawn while the block waits
 *                            at the barrier, so the donor loads are the first thing after it;
 *                          - the trial in shared memory and its __syncthreads: the thread that
 *                            builds coordinate j also evaluates it (rosenbrock, which needs
 *                            x_{j+1}, still stages the trial in shared memory);
 *                          - the sine/cosine coefficient table of CUDA's cos (an indexed global
 *                            load after the argument reduction, another L2 round trip behind the
 *                            L1 invalidation): devo__fast_cos is libdevice's fast path with the
 *                            coefficients as immediates, the same bits for |x| < 2^31;
 *                          - the block-wide reduction: warp shuffles, plus one named barrier per
 *                            vector when its group spans several warps.
 *   devo__k_fastv<KIND, S, X, C, G>  version 2 (issue 18): the same kernel for every DE
 *                          variant: strategy S and crossover X of de_variant.h's table
 *                          compiled in (a local copy of the run's devo__variant with both fields
 *                          constant, passed to the same de_variant.h functions, which fold to
 *                          the one strategy), jDE a run-time flag with F_i, CR_i in registers.
 *                          While the block waits at the barrier it draws devo__var_draw (donors,
 *                          jDE's F' and CR', the exponential run) and each coordinate's
 *                          uniforms; the exponential crossover draws them only for the
 *                          coordinates of its run (the others keep the target's value whatever
 *                          their uniforms). After the barrier, in one memory round trip: the
 *                          donors' loads, for strategies that read "best" the row of the last
 *                          generation's best index (a guess, loaded again when wrong) and each
 *                          warp's scan of the previous generation's fitness (no block barrier;
 *                          all its loads before any comparison); then the trial by
 *                          devo__var_trial_u, the evaluation and the replacement. State by
 *                          generation parity as gpu_vfused.cu keeps it (fitness, F, CR written
 *                          every generation), so the host side, GOBL's jump launches and the
 *                          general kernel work on the same buffers. Only C = 1 is instantiated
 *                          (D <= 128, the default rule of version 1). The general kernel stays
 *                          selectable (DEVO__GPU_VAR_GENERAL).
 *                          G (GOBL runs): GOBL's jumps inside the kernel
 *                          (devo__gpu_vpersist_loop): the box by the grid's warps and a grid
 *                          barrier, each group's opposite from its registers evaluated as a
 *                          trial, a grid barrier, each group ranks its two candidates among the
 *                          2 NP and stores the survivors at their ranks; after the generation's
 *                          barrier each group reloads its row. G = false: GOBL runs with
 *                          DEVO__GPU_GOBL_LAUNCHES, whose jumps gpu_vfused.cu's three jump
 *                          kernels run between the chunks (the way before G), and every run
 *                          without GOBL.
 * Terms use explicitly rounded operations (no contraction into fused multiply-adds), so each
 * term has the CPU's bits whenever cos does; the sum is over lanes, not in index order. */
#include "gpu_common.cuh"

extern __shared__ double devo__sm[];

/* Doubles of reduction scratch per vector: one partial per warp (up to 4), for the sum and for
 * griewank's product. */
#define DEVO__FAST_RED       8
#define DEVO__FAST_MAX_LANES 128
#define DEVO__FAST_MAX_C     4
/* 512 threads per block leave 128 registers per thread: C = 4 keeps 4 x (x, o, t, 3 donors, u)
 * in registers without spilling (a spill reload after the barrier's L1 invalidation would be
 * another L2 round trip) */
#define DEVO__FAST_MAX_THREADS 512

#define DEVO__D(bits) __longlong_as_double((long long)(bits))

/* cos(x): libdevice's (CUDA 13) double cos for |x| < 2^31, step for step (Cody-Waite reduction by
 * pi/2 in three parts, then the sine or cosine polynomial by quadrant), with the coefficient pair
 * chosen by selects instead of loaded from __cudart_sin_cos_coeffs; the library's cos beyond. */
__device__ __forceinline__ double devo__fast_cos(double x)
{
  if (!(fabs(x) < 2147483648.0))
    return cos(x);
  const int q = __double2int_rn(__dmul_rn(x, DEVO__D(0x3FE45F306DC9C883ULL)));
  const double qd = (double)q;
  double r = __fma_rn(-qd, DEVO__D(0x3FF921FB54442D18ULL), x);
  r = __fma_rn(-qd, DEVO__D(0x3C91A62633145C00ULL), r);
  r = __fma_rn(-qd, DEVO__D(0x397B839A252049C0ULL), r);
  const int qq = q + 1;
  const bool sn = (qq & 1) == 0; /* sine polynomial */
  const double r2 = __dmul_rn(r, r);
  double p = sn ? DEVO__D(0x3DE5DB65F9785EBAULL) : DEVO__D(0xBDA8FF8320FD8164ULL);
  p = __fma_rn(p, r2, sn ? DEVO__D(0xBE5AE5F12CB0D246ULL) : DEVO__D(0x3E21EEA7C1EF8528ULL));
  p = __fma_rn(p, r2, sn ? DEVO__D(0x3EC71DE369ACE392ULL) : DEVO__D(0xBE927E4F8E06E6D9ULL));
  p = __fma_rn(p, r2, sn ? DEVO__D(0xBF2A01A019DB62A1ULL) : DEVO__D(0x3EFA01A019DDBCE9ULL));
  p = __fma_rn(p, r2, sn ? DEVO__D(0x3F81111111110818ULL) : DEVO__D(0xBF56C16C16C15D47ULL));
  p = __fma_rn(p, r2, sn ? DEVO__D(0xBFC5555555555554ULL) : DEVO__D(0x3FA5555555555551ULL));
  p = __fma_rn(p, r2, sn ? 0.0 : DEVO__D(0xBFE0000000000000ULL));
  double c = sn ? __fma_rn(p, r, r) : __fma_rn(p, r2, 1.0);
  if (qq & 2)
    c = __fma_rn(c, -1.0, 0.0);
  return c;
}

/* Barrier of one vector's group: the warp when the group lies in one warp (all lanes of a warp
 * reach it), else a named barrier per group (ids 1..15; 0 is __syncthreads). */
__device__ __forceinline__ void devo__fast_grp_sync(int lanes, int grp)
{
  if (lanes <= 32)
    __syncwarp();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(1 + grp), "r"(lanes) : "memory");
}

/* Group reduction; every thread of the block calls it, every lane of the group gets the result.
 * Fixed order: a butterfly inside each warp, then the warp partials in index order. */
template <int OP>
__device__ __forceinline__ double devo__fast_reduce(double v, int lanes, int grp, double *red)
{
  const int w = lanes < 32 ? lanes : 32;
  for (int off = w >> 1; off > 0; off >>= 1)
    v = devo__red_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, off));
  if (lanes <= 32)
    return v;
  double *r = red + grp * (DEVO__FAST_RED / 2);
  const int nw = lanes >> 5;
  if ((threadIdx.x & 31) == 0)
    r[((int)threadIdx.x & (lanes - 1)) >> 5] = v;
  devo__fast_grp_sync(lanes, grp);
  v = r[0];
  for (int k = 1; k < nw; ++k)
    v = devo__red_op<OP>(v, r[k]);
  return v;
}

/* f(trial) over the group. Must compute classic.h's devo__classic_term (the parity tests check
 * it): sphere z^2, griewank z^2 / 4000 and cos(z / sqrt(j + 1)), rastrigin
 * z^2 - 10 cos(2 pi z) + 10, z = x_j - o_j; rosenbrock through classic.h itself. */
template <int KIND, int C>
__device__ __forceinline__ double devo__fast_eval(const devo__gpu_args &a, const double (&t)[C],
                                                  const double (&o)[C], int lane, int grp,
                                                  bool active, double *red, double *s_row)
{
  const int lanes = a.lanes, d = a.dim;
  double sum = 0.0, prod = 1.0;
  if (KIND == DEVO__P_ROSENBROCK) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      if (active && j < d)
        s_row[j] = t[c];
    }
    devo__fast_grp_sync(lanes, grp);
  }
  if (active) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      if (j >= d)
        continue;
      if (KIND == DEVO__P_ROSENBROCK) {
        sum += devo__classic_term(KIND, j, d, t[c], j + 1 < d ? s_row[j + 1] : 0.0, a.v.shift);
      } else {
        const double z = __dsub_rn(t[c], o[c]), zz = __dmul_rn(z, z);
        if (KIND == DEVO__P_SPHERE) {
          sum += zz;
        } else if (KIND == DEVO__P_GRIEWANK) {
          sum += __ddiv_rn(zz, 4000.0);
          prod = __dmul_rn(prod, devo__fast_cos(__ddiv_rn(z, sqrt((double)(j + 1)))));
        } else {
          const double cs = devo__fast_cos(__dmul_rn(2.0 * DEVO_PI, z));
          sum += __dadd_rn(__dsub_rn(zz, __dmul_rn(10.0, cs)), 10.0);
        }
      }
    }
  }
  sum = devo__fast_reduce<DEVO__RED_SUM>(sum, lanes, grp, red);
  if (KIND == DEVO__P_GRIEWANK)
    prod = devo__fast_reduce<DEVO__RED_PROD>(prod, lanes, grp, red + DEVO__FAST_RED / 2 * a.vpb);
  const double f = devo__classic_finish(KIND, sum, prod);
  return devo__gpu_fitness(f);
}

/* Generations gen0 + 1 .. gen0 + ngens; block blk's group g owns vector blk * vpb + g
 * throughout. BATCH: blk is the block's index within its trial's blocks, and the loop is the
 * batch's (gen_end, bar: devo__gpu_persist_loop_batch). */
template <int KIND, int C, bool BATCH>
__device__ __forceinline__ void devo__fast_run(const devo__gpu_args &a, int blk, uint32_t gen0,
                                               uint32_t ngens, uint32_t gen_end, unsigned int *bar)
{
  const int lanes = a.lanes, d = a.dim;
  const int grp = (int)threadIdx.x / lanes, lane = (int)threadIdx.x % lanes;
  const int i = blk * a.vpb + grp;
  const bool active = i < a.np;
  const size_t row = (size_t)(active ? i : 0) * (size_t)d;
  double *red = devo__sm;
  double *s_row = devo__sm + DEVO__FAST_RED * a.vpb + (size_t)grp * lanes * C;
  double x[C], o[C], ub[C];
  bool take[C];
  {
    const double *cur = (gen0 & 1u) ? a.pop1 : a.pop0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      x[c] = active && j < d ? cur[row + j] : 0.0;
      o[c] = KIND != DEVO__P_ROSENBROCK && j < d ? a.v.shift[j] : 0.0;
    }
  }
  double fi = active ? a.fit[i] : 0.0;
  devo__de_idx r = {0u, 0u, 0u, 0u};
  auto draw = [&](uint32_t gen) { devo__gpu_draw<C>(a, gen, i, lane, active, r, take, ub); };
  auto step = [&](uint32_t gen) {
    double t[C];
    devo__gpu_trial<C>(a, (gen & 1u) ? a.pop0 : a.pop1, r, take, ub, lane, lanes, x, t);
    const double ft = devo__fast_eval<KIND, C>(a, t, o, lane, grp, active, red, s_row);
    if (active)
      devo__gpu_replace<C>(a, i, lane, lanes, ft, fi, x, t, ((gen & 1u) ? a.pop1 : a.pop0) + row,
                           gen);
  };
  draw(gen0 + 1u);
  if constexpr (BATCH)
    devo__gpu_persist_loop_batch(a, gen0, ngens, gen_end, bar, step, draw);
  else
    devo__gpu_persist_loop(a, gen0, ngens, step, draw);
}

template <int KIND, int C>
__global__ void __launch_bounds__(DEVO__FAST_MAX_THREADS)
    devo__k_fast(devo__gpu_args a, uint32_t gen0, uint32_t ngens)
{
  devo__fast_run<KIND, C, false>(a, (int)blockIdx.x, gen0, ngens, 0u, NULL);
}

/* The batch kernel of version 1 (devo__gpu_batch_launch): trial t = blockIdx.x / bpt runs with
 * its slot's arguments, generations slot gen0 + 1 .. gen_end, all trials behind one barrier. */
template <int KIND, int C>
__global__ void __launch_bounds__(DEVO__FAST_MAX_THREADS)
    devo__k_fastb(devo__gpu_batch b, uint32_t ngens)
{
  const int t = (int)blockIdx.x / b.bpt;
  const devo__gpu_bslot *sl = b.slot + t;
  const devo__gpu_args a = sl->a;
  devo__fast_run<KIND, C, true>(a, (int)blockIdx.x - t * b.bpt, sl->gen0, ngens, sl->gen_end,
                                b.bar);
}

/* ---- version 2: every DE variant (issue 18) ---------------------------------------------- */

/* Generations gen0 + 1 .. gen0 + ngens of variant (S, X) with the run's jDE flag and numbers in
 * va.var; block b's group g owns vector b * vpb + g throughout. A launch after the generation
 * that reached the target (an earlier launch of the host's chunk, before a GOBL jump) does
 * nothing. */
template <int KIND, int S, int X, int C, bool G, bool BATCH>
__device__ __forceinline__ void devo__fastv_run(const devo__gpu_args &a, const devo__gpu_vargs &va,
                                                int blk, uint32_t gen0, uint32_t ngens,
                                                uint32_t gen_end, unsigned int *bar)
{
  if (!BATCH && devo__gpu_stopped(a, gen0))
    return; /* (a batch's trials have not stopped: the host takes them out) */
  const int lanes = a.lanes, d = a.dim;
  const int grp = (int)threadIdx.x / lanes, lane = (int)threadIdx.x % lanes;
  const int i = blk * a.vpb + grp;
  const bool active = i < a.np;
  const size_t row = (size_t)(active ? i : 0) * (size_t)d;
  double *red = devo__sm;
  double *s_row = devo__sm + DEVO__FAST_RED * a.vpb + (size_t)grp * lanes * C;
  /* the run's variant with the compiled strategy and crossover: every de_variant.h call below
   * folds to them */
  devo__variant var = va.var;
  var.strategy = S;
  var.crossover = X;
  const int picks = devo__strategy_picks(S);
  const bool use_best = devo__strategy_uses_best(S) != 0;
  const bool jde = var.jde != 0;
  double x[C], o[C];
  devo__de_u u[C];
  bool take[C];
  const bool odd0 = (gen0 & 1u) != 0;
  {
    const double *cur = odd0 ? a.pop1 : a.pop0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      x[c] = active && j < d ? cur[row + j] : 0.0;
      o[c] = KIND != DEVO__P_ROSENBROCK && j < d ? a.v.shift[j] : 0.0;
    }
  }
  /* the vector's fitness and jDE's F_i, CR_i of generation gen0 (parity buffers) */
  double fi = active ? (odd0 ? va.fit1 : a.fit)[i] : 0.0;
  double Fi = a.f, CRi = a.cr;
  if (jde && active) {
    Fi = (odd0 ? va.F1 : va.F0)[i];
    CRi = (odd0 ? va.CR1 : va.CR0)[i];
  }
  devo__var_ind w;
  memset(&w, 0, sizeof w);
  int pbest = 0; /* the best index of the last generation (the same in every warp) */
  auto draw = [&](uint32_t gen) {
    if (active)
      w = devo__var_draw(&var, a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)d, Fi, CRi);
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      take[c] = false;
      u[c].cr = 0.0;
      u[c].bound = 0.0;
      if (active && j < d) {
        if (X == DEVO__XOVER_EXP) {
          /* the run decides without a uniform; only its coordinates need one (the repair's) */
          if (devo__exp_take((uint32_t)j, w.jrand, w.len, (uint32_t)d)) {
            u[c] = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
            take[c] = true;
          }
        } else {
          u[c] = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
          take[c] = devo__var_take(&var, &w, u[c], (uint32_t)j, (uint32_t)d) != 0;
        }
      }
    }
  };
  auto step = [&](uint32_t gen) {
    const bool odd = (gen & 1u) != 0;
    const double *src = odd ? a.pop0 : a.pop1;
    const double *xr[DEVO__MAX_PICKS];
#pragma unroll
    for (int k = 0; k < DEVO__MAX_PICKS; ++k)
      xr[k] = src + (size_t)(k < picks ? w.r[k] : 0u) * d;
    /* every load of the trial issued before the first use (one L2 round trip): the donors', the
     * best's row as guessed (the last generation's best index: the best rarely changes), and the
     * fitness values that say which is the best; a wrong guess loads the row again */
    double v[C][DEVO__MAX_PICKS], vb[C], t[C];
    const double *xg = src + (size_t)pbest * d;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      vb[c] = 0.0;
#pragma unroll
      for (int k = 0; k < DEVO__MAX_PICKS; ++k) {
        v[c][k] = 0.0;
        if (take[c] && k < picks)
          v[c][k] = xr[k][j];
      }
      if (take[c] && use_best)
        vb[c] = xg[j];
    }
    if (use_best) {
      const int best = devo__gpu_warp_argmin(odd ? a.fit : va.fit1, a.np);
      if (best != pbest) {
        const double *xb = src + (size_t)best * d;
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (take[c])
            vb[c] = xb[lane + c * lanes];
        pbest = best;
      }
    }
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      /* the CPU's call (de_variant.h): the mutant where the crossover takes it, repaired */
      t[c] = take[c] ? devo__var_trial_u(&var, &w, u[c], (uint32_t)j, (uint32_t)d, x[c], vb[c],
                                         v[c], a.v.lower, a.v.upper, a.bounds)
                     : x[c];
    }
    const double ft = devo__fast_eval<KIND, C>(a, t, o, lane, grp, active, red, s_row);
    if (active) {
      double *dst = (odd ? a.pop1 : a.pop0) + row;
      if (ft <= fi) { /* the CPU's rule: the trial wins ties */
#pragma unroll
        for (int c = 0; c < C; ++c)
          x[c] = t[c];
        fi = ft;
        Fi = w.f;
        CRi = w.cr;
      }
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int j = lane + c * lanes;
        if (j < d)
          dst[j] = x[c];
      }
      if (lane == 0) {
        devo__var_state_store(a, va, gen, i, jde, fi, Fi, CRi);
        devo__gpu_note_target(a, fi, gen);
      }
    }
  };
  /* a GOBL jump (de_variant.h's math, the CPU's order): the box of generation gen - 1 by the
   * grid's warps; the group's opposite from the registers, evaluated as a trial is; each group
   * ranks its parent and its opposite among the 2 NP candidates and stores those among the NP
   * best at their ranks, with the parent's F and CR */
  auto jump = [&](uint32_t gen, double k, auto &bar) {
    const bool odd = (gen & 1u) != 0;
    devo__gobl_box_warps(a, va, odd ? a.pop0 : a.pop1);
    bar();
    double t[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      t[c] = active && j < d
                 ? devo__gobl_opposite(a.seed, gen, (uint32_t)i, (uint32_t)j, k, va.gbox[j],
                                       va.gbox[(size_t)d + j], x[c], a.v.lower, a.v.upper)
                 : x[c];
    }
    const double fo = devo__fast_eval<KIND, C>(a, t, o, lane, grp, active, red, s_row);
    if (active && lane == 0)
      va.gf[i] = fo;
    bar();
    int rp, ro;
    devo__gobl_ranks(odd ? a.fit : va.fit1, va.gf, a.np, i, fi, fo, lanes < 32 ? lanes : 32, rp,
                     ro);
    if (!active)
      return;
    double *dst = odd ? a.pop1 : a.pop0;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      if (j < d && rp < a.np)
        dst[(size_t)rp * d + j] = x[c];
      if (j < d && ro < a.np)
        dst[(size_t)ro * d + j] = t[c];
    }
    if (lane == 0)
      devo__gobl_keep(a, va, gen, rp, ro, fi, fo, Fi, CRi);
  };
  /* after a jump: the group's vector of generation gen (another candidate's, by rank) */
  auto reload = [&](uint32_t gen) {
    if (!active)
      return;
    const bool odd = (gen & 1u) != 0;
    const double *cur = (odd ? a.pop1 : a.pop0) + row;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int j = lane + c * lanes;
      if (j < d)
        x[c] = cur[j];
    }
    devo__var_state_load(a, va, gen, i, jde, fi, Fi, CRi);
  };
  if constexpr (BATCH) {
    static_assert(!G, "a batch runs no GOBL jumps (their barriers differ by trial)");
    draw(gen0 + 1u);
    devo__gpu_persist_loop_batch(a, gen0, ngens, gen_end, bar, step, draw);
  } else {
    devo__gpu_vpersist_loop<G>(a, va.var.gobl, gen0, ngens, jde, step, draw, jump, reload);
  }
}

template <int KIND, int S, int X, int C, bool G>
__global__ void __launch_bounds__(DEVO__FAST_MAX_THREADS)
    devo__k_fastv(devo__gpu_args a, devo__gpu_vargs va, uint32_t gen0, uint32_t ngens)
{
  devo__fastv_run<KIND, S, X, C, G, false>(a, va, (int)blockIdx.x, gen0, ngens, 0u, NULL);
}

/* The batch kernel of version 2, for rand1bin (with or without jDE; no GOBL): as devo__k_fastb. */
template <int KIND>
__global__ void __launch_bounds__(DEVO__FAST_MAX_THREADS)
    devo__k_fastvb(devo__gpu_batch b, uint32_t ngens)
{
  const int t = (int)blockIdx.x / b.bpt;
  const devo__gpu_bslot *sl = b.slot + t;
  const devo__gpu_args a = sl->a;
  const devo__gpu_vargs va = sl->va;
  devo__fastv_run<KIND, DEVO__STRAT_RAND1, DEVO__XOVER_BIN, 1, false, true>(
      a, va, (int)blockIdx.x - t * b.bpt, sl->gen0, ngens, sl->gen_end, b.bar);
}

/* ---- host side --------------------------------------------------------------------------- */

static const void *devo__fast_kernel(int kind, int c)
{
  switch (kind) {
#define DEVO__FAST_CASE(K)                                                                         \
  case K:                                                                                          \
    return c == 1                                                                                  \
               ? (const void *)devo__k_fast<K, 1>                                                  \
               : (c == 2 ? (const void *)devo__k_fast<K, 2> : (const void *)devo__k_fast<K, 4>);
    DEVO__GPU_FOR_KINDS(DEVO__FAST_CASE)
#undef DEVO__FAST_CASE
  default:
    return NULL;
  }
}

/* Version 2's instantiation for a strategy and crossover (C = 1 only); one case per row of
 * de_variant.h's strategy table. */
template <int K, bool G> static const void *devo__fastv_of(int strategy, int crossover)
{
  switch (strategy) {
#define DEVO__FASTV_CASE(id, name, picks, best, expr)                                              \
  case DEVO__STRAT_##id:                                                                           \
    return crossover == DEVO__XOVER_EXP                                                            \
               ? (const void *)devo__k_fastv<K, DEVO__STRAT_##id, DEVO__XOVER_EXP, 1, G>           \
               : (const void *)devo__k_fastv<K, DEVO__STRAT_##id, DEVO__XOVER_BIN, 1, G>;
    DEVO__STRATEGIES(DEVO__FASTV_CASE)
#undef DEVO__FASTV_CASE
  default:
    return NULL;
  }
}

static const void *devo__fastv_kernel(int kind, const devo__variant *var, int c, bool g)
{
  if (c != 1)
    return NULL;
  switch (kind) {
#define DEVO__FASTV_KIND(K)                                                                        \
  case K:                                                                                          \
    return g ? devo__fastv_of<K, true>(var->strategy, var->crossover)                              \
             : devo__fastv_of<K, false>(var->strategy, var->crossover);
    DEVO__GPU_FOR_KINDS(DEVO__FASTV_KIND)
#undef DEVO__FASTV_KIND
  default:
    return NULL;
  }
}

cudaError_t devo__gpu_fast_plan(int kind, const devo__variant *var, int np, int dim, int want,
                                const cudaDeviceProp *p, devo__gpu_fast_cfg *cfg, int *ok)
{
  int lanes, c, vpb, occ = 0, per = 1;
  *ok = 0;
  if (dim < 1 || dim > DEVO__FAST_MAX_LANES * DEVO__FAST_MAX_C || np < 4 ||
      (var && np < devo__strategy_min_np(var->strategy)))
    return cudaSuccess;
  /* lanes: asked for (D >= 32), else the power of two >= D up to 128 threads, one coordinate
   * each (the shortest chain per generation), C coordinates each beyond */
  const int code = (want >> DEVO__GPU_FAST_LANES_SHIFT) & 3;
  if (code && dim >= 32) {
    lanes = 16 << code; /* 32, 64, 128 */
  } else {
    for (lanes = 1; lanes < dim && lanes < DEVO__FAST_MAX_LANES; lanes <<= 1) {
    }
  }
  c = (dim + lanes - 1) / lanes;
  if (c == 3)
    c = 4;
  if (c > DEVO__FAST_MAX_C)
    return cudaSuccess;
  /* about one block per SM: the fewest barrier arrivals that still use every SM; threads a
   * multiple of 32 (full-warp shuffles); at most 15 groups of several warps (named barriers) */
  if (lanes < 32)
    per = 32 / lanes;
  vpb = (np + p->multiProcessorCount - 1) / p->multiProcessorCount;
  vpb = (vpb + per - 1) / per * per;
  if (vpb * lanes > DEVO__FAST_MAX_THREADS)
    vpb = DEVO__FAST_MAX_THREADS / lanes;
  if (lanes > 32 && vpb > 15)
    vpb = 15;
  cfg->gobl = devo__gpu_gobl_inside(var, want);
  cfg->kern = var ? devo__fastv_kernel(kind, var, c, cfg->gobl != 0) : devo__fast_kernel(kind, c);
  if (!cfg->kern)
    return cudaSuccess;
  cfg->lanes = lanes;
  cfg->c = c;
  cfg->vpb = vpb;
  cfg->threads = vpb * lanes;
  cfg->blocks = (np + vpb - 1) / vpb;
  cfg->smem = (size_t)DEVO__FAST_RED * vpb * sizeof(double);
  if (kind == DEVO__P_ROSENBROCK)
    cfg->smem += (size_t)vpb * lanes * c * sizeof(double);
  if (cfg->smem > (size_t)p->sharedMemPerBlock)
    return cudaSuccess;
  cudaError_t e =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, cfg->kern, cfg->threads, cfg->smem);
  if (e != cudaSuccess)
    return e;
  /* one vector per group for the whole chunk: the grid must be co-resident */
  *ok = (int64_t)occ * p->multiProcessorCount >= cfg->blocks;
  return cudaSuccess;
}

void devo__gpu_fast_launch_cfg(const devo__gpu_fast_cfg *cfg, cudaStream_t st,
                               cudaLaunchConfig_t *lc, cudaLaunchAttribute *at, int coop)
{
  unsigned n = 0;
  *lc = cudaLaunchConfig_t();
  lc->gridDim = dim3((unsigned)cfg->blocks);
  lc->blockDim = dim3((unsigned)cfg->threads);
  lc->dynamicSmemBytes = cfg->smem;
  lc->stream = st;
  if (cfg->cluster > 1) {
    at[n].id = cudaLaunchAttributeClusterDimension;
    at[n].val.clusterDim.x = (unsigned)cfg->cluster;
    at[n].val.clusterDim.y = 1;
    at[n].val.clusterDim.z = 1;
    ++n;
  }
  if (coop) {
    at[n].id = cudaLaunchAttributeCooperative;
    at[n].val.cooperative = 1;
    ++n;
  }
  lc->attrs = at;
  lc->numAttrs = n;
}

cudaError_t devo__gpu_fast_launch(const devo__gpu_fast_cfg *cfg, devo__gpu_args a, uint32_t gen0,
                                  uint32_t ngens, cudaStream_t st)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute at[2];
  void *args[] = {&a, &gen0, &ngens};
  a.lanes = cfg->lanes;
  a.vpb = cfg->vpb;
  devo__gpu_fast_launch_cfg(cfg, st, &lc, at, 1);
  return cudaLaunchKernelExC(&lc, cfg->kern, args);
}

cudaError_t devo__gpu_fastv_launch(const devo__gpu_fast_cfg *cfg, devo__gpu_args a,
                                   devo__gpu_vargs va, uint32_t gen0, uint32_t ngens,
                                   cudaStream_t st)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute at[2];
  void *args[] = {&a, &va, &gen0, &ngens};
  a.lanes = cfg->lanes;
  a.vpb = cfg->vpb;
  devo__gpu_fast_launch_cfg(cfg, st, &lc, at, 1);
  return cudaLaunchKernelExC(&lc, cfg->kern, args);
}

/* ---- batches (engine/batch.c through kernels/gpu_backend.cu) ------------------------------ */

const void *devo__gpu_fast_batch_kernel(int kind, const devo__variant *var,
                                        const devo__gpu_fast_cfg *cfg)
{
  switch (kind) {
#define DEVO__FASTB_CASE(K)                                                                        \
  case K:                                                                                          \
    if (!var)                                                                                      \
      return cfg->kern == devo__fast_kernel(K, cfg->c)                                             \
                 ? (cfg->c == 1 ? (const void *)devo__k_fastb<K, 1>                                \
                                : (cfg->c == 2 ? (const void *)devo__k_fastb<K, 2>                 \
                                               : (const void *)devo__k_fastb<K, 4>))               \
                 : NULL;                                                                           \
    return var->strategy == DEVO__STRAT_RAND1 && var->crossover == DEVO__XOVER_BIN &&              \
                   var->gobl == 0.0 && cfg->c == 1 &&                                              \
                   cfg->kern == (const void *)                                                     \
                                    devo__k_fastv<K, DEVO__STRAT_RAND1, DEVO__XOVER_BIN, 1, false> \
               ? (const void *)devo__k_fastvb<K>                                                   \
               : NULL;
    DEVO__GPU_FOR_KINDS(DEVO__FASTB_CASE)
#undef DEVO__FASTB_CASE
  default:
    return NULL;
  }
}

/* The batch's own layout: as many vectors per block as a block holds (the fewest blocks, so the
 * fewest arrivals at the barrier that all trials share; a vector's arithmetic does not depend on
 * its block), the rest of solo's plan kept. */
void devo__gpu_fast_batch_layout(int kind, int np, const devo__gpu_fast_cfg *solo,
                                 devo__gpu_fast_cfg *out)
{
  const int lanes = solo->lanes, per = lanes < 32 ? 32 / lanes : 1;
  int vmax = DEVO__FAST_MAX_THREADS / lanes / per * per;
  if (lanes > 32 && vmax > 15)
    vmax = 15; /* named barriers, one per group of several warps */
  int vpb = (np + per - 1) / per * per;
  if (vpb > vmax)
    vpb = vmax;
  *out = *solo;
  out->vpb = vpb;
  out->threads = vpb * lanes;
  out->blocks = (np + vpb - 1) / vpb;
  out->smem = (size_t)DEVO__FAST_RED * vpb * sizeof(double);
  if (kind == DEVO__P_ROSENBROCK)
    out->smem += (size_t)vpb * lanes * solo->c * sizeof(double);
}

cudaError_t devo__gpu_batch_capacity(const void *kern, const devo__gpu_fast_cfg *cfg,
                                     const cudaDeviceProp *p, int *trials)
{
  int occ = 0;
  cudaError_t e =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, cfg->threads, cfg->smem);
  *trials = e == cudaSuccess ? occ * p->multiProcessorCount / cfg->blocks : 0;
  return e;
}

cudaError_t devo__gpu_batch_launch(const void *kern, const devo__gpu_fast_cfg *cfg,
                                   devo__gpu_batch b, int ntrials, uint32_t ngens, cudaStream_t st)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute at[2];
  void *args[] = {&b, &ngens};
  b.bpt = cfg->blocks;
  devo__gpu_fast_launch_cfg(cfg, st, &lc, at, 1);
  lc.gridDim = dim3((unsigned)(cfg->blocks * ntrials));
  return cudaLaunchKernelExC(&lc, kern, args);
}
