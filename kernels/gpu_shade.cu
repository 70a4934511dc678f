/* SPDX-License-Identifier: MIT */
/* gpu_shade.cu: JADE, SHADE and L-SHADE (issue 24; the math is problems/de_shade.h, shared with
 * the CPU backend) on the CUDA backend, the whole run on the device: population, fitness,
 * archive, parameter memory, ranks and L-SHADE's population size reduction never cross to the
 * host during a run; between sub-chunks only the control block (best, target generation) does.
 *
 * Versions (kernels/gpu_backend.cu hands a JADE/SHADE/L-SHADE run to devo__gpu_shade_*):
 *   devo__k_sh_rank      rank_i = #{j : (f_j, j) < (f_i, i)} over NP_g, order[rank_i] = i; thread
 *                        per individual, fitness tiled through shared memory (O(NP^2), exact)
 *   devo__k_sh_trial<K>  generation g's trial, evaluation and selection, one block per vector:
 *                        devo__sh_draw, current-to-pbest/1/bin from generation g - 1's buffers
 *                        (population, archive of g - 1, memory of g - 1) into the other buffer;
 *                        records F_i, CR_i, success, delta_i
 *   devo__k_sh_update    one block: the successes' prefix counts, each success's archive slot
 *                        (devo__sh_arc_slot; the highest inserter of a slot wins by atomicMax on
 *                        an int), the memory update from the 32-lane sums of one warp
 *                        (de_shade.h's devo__sh_sum32 order), the new |A|
 *   devo__k_sh_arc_copy  the winners' parents (generation g - 1's rows) into the archive
 *   devo__k_sh_post      up to NP = DEVO__SH_FUSE_NP (default): update, archive rows and the next
 *                        generation's ranks in one block, so two launches per generation
 *   devo__k_sh_compact   L-SHADE: the survivors (rank < NP_next) into the other buffer, stable
 *   devo__k_sh_shrink_plan, devo__k_sh_shrink_copy   L-SHADE: the archive's removals simulated
 *                        on indices by one thread, then the moved rows copied
 *   devo__k_sh_eval0<K>  the initial population re-evaluated in the CPU's order
 *   devo__k_sh_persist<K>  version 3, JADE and SHADE (the default where D <= 128 threads, one
 *                        per coordinate, and every vector's block is co-resident;
 *                        DEVO__GPU_SHADE_LAUNCHES keeps the launches): up to DEVO__SH_PSUB
 *                        generations per cooperative launch, one grid barrier per generation,
 *                        after which every block computes for itself, a warp per task, what
 *                        devo__k_sh_post computes once (archive slots, memory update, |A|) from
 *                        the generation's records, copies its own parent (kept in registers) into
 *                        the archive and ranks the population's best npb (devo__sh_top_warp: only
 *                        the individuals at or below the last ranking's npb-th key can enter it,
 *                        since selection never raises a fitness). Three population buffers, so
 *                        that a parent on its way to the archive stays readable for the next
 *                        generation's trials. The closed-form draws (Cauchy, normal) and the
 *                        archive words of a whole launch come from devo__k_sh_pre beforehand.
 *   devo__k_sh_pre       those draws, a thread per (generation, individual)
 *
 * Bit-identity with the CPU reference: every draw and formula is de_shade.h's, and this file is
 * compiled with --fmad=false (CMakeLists.txt), so no product is fused into an addition here,
 * not even inside the shared problem code. The weighted means need the fitness values bit for
 * bit (delta_i = f(x_i) - f(u_i) weights them), so the objective is summed in the CPU's order:
 * classic functions and CEC F01..F04 (one rotation) by terms in parallel and one thread adding
 * them in index order (devo__sh_eval); ETC's block evaluator already gives the CPU's bits. The
 * transcendental functions (cos, sin, exp; the CPU's pow) are the device's and glibc's: where they
 * differ in the last bit (rastrigin, griewank, CEC F01, F03, F04) so may the runs; sphere,
 * rosenbrock, CEC F02 and ETC use + - * / and sqrt only and are bit-identical. CEC hybrids and
 * compositions and SOCO use the tree-ordered evaluators (last bits differ from the CPU).
 *
 * Generation g on the launch path (host loop, no synchronisation per generation; src = buffer
 * cur, dst = cur ^ 1):
 *   NP_g <= DEVO__SH_FUSE_NP: trial(g) -> post(g); cur ^= 1 (post ranked the new population);
 *   else (or DEVO__GPU_SHADE_SPLIT): rank(fit[cur]) -> trial(g) -> update(g) -> arc_copy(g);
 *   L-SHADE with NP_next < NP_g: [rank(fit[cur])] -> compact (also writes the survivors' order)
 *   -> cur ^= 1; shrink_plan, shrink_copy.
 * No kernel reads a buffer that another block of the same kernel writes: trial reads pop/fit[cur],
 * the archive, memory and order and writes pop/fit[cur ^ 1] and per-index records; update writes
 * only per-index slots, the owner words and the memory; arc_copy reads pop[cur] and writes
 * archive rows, one writer per row; post is one block (its steps separated by barriers); compact
 * reads buffer cur and writes buffer cur ^ 1; shrink_copy reads rows at positions >= the new size
 * and writes rows below it (a removal moves the last member down, so a moved row always comes from
 * at or beyond the final size). */
#include <math.h>
#include <string.h>

#include "../problems/de_shade.h"
#include "gpu_common.cuh"

#define DEVO__SH_FILE "kernels/gpu_shade.cu"

extern __shared__ double devo__sm[];

/* Up to DEVO__SH_FUSE_NP individuals the update, the archive rows and the next ranks run as one
 * block (devo__k_sh_post): two launches per generation instead of four. */
#define DEVO__SH_FUSE_NP 1024
/* Threads of the rank, copy and compaction kernels, and of the one-block update. */
#define DEVO__SH_RANK_THREADS 256
#define DEVO__SH_COPY_THREADS 128
#define DEVO__SH_UPD_THREADS  512
/* Generations launched between two looks at the control block (the target, the deadline). */
#define DEVO__SH_SUB 512
/* Threads per block of the persistent kernel (at most; D above it: the launch path). Its launch
 * bounds (these threads, at least 1 block per SM) leave it the registers it needs without
 * spilling, 136 to 186 (at 64 registers, 1024 threads, it spilled, and after the grid barrier's
 * acquire a spilled value comes back from L2, not L1; with the bounds' second argument left out
 * ptxas kept 128 and still spilled a few bytes). */
#define DEVO__SH_PMAX_THREADS 128
/* Generations of one launch of the persistent kernel (at most). */
#define DEVO__SH_PSUB 1024u
/* Profiled steps (devo__gpu_shade_profile): ranks, trial, update, archive rows, reduction; the
 * events of one generation: before each step and after the last. */
#define DEVO__SH_STEPS 5
#define DEVO__SH_EVS   (DEVO__SH_STEPS + 1)
/* Profiled phases of the persistent kernel (block 0's thread 0 reads clock64 between them; the
 * cycles become time by the launch's cycles per globaltimer nanosecond): the draws, the trial's
 * build (the donors' loads), its evaluation, the selection's stores, the arrival and the next
 * draws' fetch, the wait, the records' loads, the archive slots + memory update + ranks (a warp
 * each), the archive row. */
#define DEVO__SH_PSTEPS 9

/* Device-side control of a run (one copy, device memory). */
struct devo__sh_ctl {
  unsigned int asz;    /* |A| */
  unsigned int k;      /* SHADE: the next memory slot */
  unsigned int nsucc;  /* |S| of the last generation */
  unsigned int shrunk; /* the last shrink plan moved rows */
};

/* Everything the kernels need beside devo__gpu_args (by value). */
struct devo__sh_dev {
  devo__variant var;
  double *pop[3], *fit[3]; /* [2]: the persistent kernel's third buffer (NULL without it) */
  /* generation g's trial F_i, CR_i, f(x_i) - f(u_i), by index; two sets of np_init each (the
   * persistent kernel's by generation parity; the launch path and the host read the first) */
  double *F, *CR, *delta;
  unsigned char *succ; /* 1: f(u_i) < f(x_i) */
  int *order, *rank;   /* order[rank] = index; rank by index */
  int *aslot, *owner;  /* archive slot of success i (-1: none); winner of each slot */
  int *ids;            /* archive shrink: the row that ends in each slot */
  double *arc;         /* archive rows, capacity cap_max */
  double *mcr, *mf;    /* memory (hist entries; JADE: 1, mu_CR and mu_F) */
  devo__sh_ctl *ctl;
  double *terms; /* the in-order evaluation's buffer per block when not in shared memory */
  int sm_terms;  /* its offset (doubles) in dynamic shared memory, -1: terms */
};

/* ---- evaluation in the CPU's order --------------------------------------------------------- */

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

/* ---- kernels ------------------------------------------------------------------------------ */

/* Ranks of fit[0..np) for i = first + threadIdx.x, first + step + threadIdx.x, ...: rank_i and
 * order[rank_i] = i. Every thread of the block calls it (the loops are uniform); tf: blockDim.x
 * doubles of shared memory, the fitness tiled through it. */
__device__ void devo__sh_rank_range(const devo__sh_dev &h, const double *fit, int np, int first,
                                    int step, double *tf)
{
  const int bd = (int)blockDim.x, tid = (int)threadIdx.x;
  for (int i0 = first; i0 < np; i0 += step) {
    const int i = i0 + tid;
    const double fi = i < np ? fit[i] : 0.0;
    int r = 0;
    for (int t0 = 0; t0 < np; t0 += bd) {
      const int n = np - t0 < bd ? np - t0 : bd;
      __syncthreads(); /* the previous tile is read */
      if (tid < n)
        tf[tid] = fit[t0 + tid];
      __syncthreads();
      for (int k = 0; k < n; ++k)
        r += devo__sh_before(tf[k], (uint32_t)(t0 + k), fi, (uint32_t)i);
    }
    if (i < np) {
      h.rank[i] = r;
      h.order[r] = i;
    }
  }
}

/* Ranks of the np fitness values of buffer cur. Grid of ceil(np / DEVO__SH_RANK_THREADS) blocks. */
__global__ void __launch_bounds__(DEVO__SH_RANK_THREADS)
    devo__k_sh_rank(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np)
{
  __shared__ double tf[DEVO__SH_RANK_THREADS];
  if (devo__gpu_done_before(a, gen))
    return;
  devo__sh_rank_range(h, h.fit[cur], np, (int)(blockIdx.x * blockDim.x),
                      (int)(gridDim.x * blockDim.x), tf);
}

/* Where generation gen's per-individual records go (the persistent kernel keeps two sets, by
 * generation parity: the next generation writes its records while slower blocks still read these).
 */
struct devo__sh_rec {
  double *F, *CR, *delta;
  unsigned char *succ;
};

__device__ __forceinline__ devo__sh_rec devo__sh_rec_at(const devo__sh_dev &h, int par, int np)
{
  const size_t o = par ? (size_t)np : 0u;
  devo__sh_rec r = {h.F + o, h.CR + o, h.delta + o, h.succ + o};
  return r;
}

/* The persistent kernel's profile clock (block 0's thread 0): cycles per phase, the last read. */
struct devo__sh_clock {
  unsigned long long acc[DEVO__SH_PSTEPS];
  long long t;
};

/* Adds the cycles since the last tick to phase ph (c: NULL when not profiling). */
__device__ __forceinline__ void devo__sh_tick(devo__sh_clock *c, int ph)
{
  if (c) {
    const long long now = clock64();
    c->acc[ph] += (unsigned long long)(now - c->t);
    c->t = now;
  }
}

__device__ __forceinline__ unsigned long long devo__sh_ns(void)
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Vector i's trial of generation gen with the draws w, from its row xi (fitness fo), the pbest's
 * row xp, r1's row in src and r2's row x2 (population or archive), evaluated and selected into
 * its row of dst and fdst[i]; lane 0 records F_i, CR_i, success and improvement in rec. Every
 * thread of the block calls it; ends before any block barrier after the stores. */
template <int KIND>
__device__ __forceinline__ void
devo__sh_trial_one(const devo__gpu_args &a, const devo__sh_dev &h, const devo__sh_rec &rec,
                   uint32_t gen, int i, const devo__sh_ind &w, const double *src, const double *xp,
                   const double *x2, double fo, double *dst, double *fdst,
                   const devo__de_u *u0 = NULL, devo__sh_clock *ck = NULL, const double *xr = NULL,
                   double *xnew = NULL)
{
  const int d = a.dim, lane = (int)threadIdx.x, lanes = (int)blockDim.x;
  const size_t row = (size_t)i * (size_t)d;
  const double *xi = src + row, *x1 = src + (size_t)w.r1 * d;
  double *t = a.trial_shared ? devo__sm + DEVO__RED_DOUBLES : dst + row;
  for (int j = lane; j < d; j += lanes) {
    /* the persistent kernel (D <= threads): coordinate lane's uniforms drawn ahead (u0) and its
     * own coordinate kept in a register (xr; the new one goes to *xnew) */
    const bool mine = j == lane;
    const devo__de_u u = u0 && mine ? *u0 : devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
    const double xij = xr && mine ? *xr : xi[j];
    /* the donors' loads only where the mutant is taken (devo__sh_trial_u's test) */
    t[j] = (u.cr < w.cr || (uint32_t)j == w.jrand)
               ? devo__sh_trial_u(&w, u, (uint32_t)j, xij, xp[j], x1[j], x2[j], a.v.lower,
                                  a.v.upper, a.bounds)
               : xij;
  }
  __syncthreads();
  devo__sh_tick(ck, 1);
  const double ft = devo__sh_eval<KIND>(a, h, t, i, devo__sm);
  devo__sh_tick(ck, 2);
  const bool acc = ft <= fo; /* devo's rule: the trial wins ties */
  double *xo = dst + row;
  if (xr) { /* D <= threads: one coordinate per thread, the parent's in a register */
    if (lane < d) {
      *xnew = acc ? t[lane] : *xr;
      if (a.trial_shared || !acc)
        xo[lane] = *xnew;
    }
  } else if (a.trial_shared) {
    for (int j = lane; j < d; j += lanes)
      xo[j] = acc ? t[j] : xi[j];
  } else if (!acc) {
    for (int j = lane; j < d; j += lanes)
      xo[j] = xi[j];
  }
  if (lane == 0) {
    fdst[i] = acc ? ft : fo;
    rec.F[i] = w.f;
    rec.CR[i] = w.cr;
    rec.succ[i] = ft < fo ? 1 : 0;
    rec.delta[i] = devo__sh_delta(fo, ft);
    devo__gpu_note_target(a, acc ? ft : fo, gen);
  }
}

/* Generation gen's trial of vector blockIdx.x (< np), evaluated and selected into buffer
 * cur ^ 1. Every thread of the block runs it. */
template <int KIND>
__global__ void __launch_bounds__(1024)
    devo__k_sh_trial(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np)
{
  __shared__ devo__sh_ind s_draw;
  __shared__ int s_pbest;
  if (devo__gpu_done_before(a, gen))
    return;
  devo__gpu_stage<KIND>(a, devo__sm);
  const int i = (int)blockIdx.x, d = a.dim;
  const double *src = h.pop[cur];
  const uint32_t asz = h.ctl->asz;
  if (threadIdx.x == 0) {
    s_draw = devo__sh_draw(&h.var, a.seed, gen, (uint32_t)i, (uint32_t)np, asz, (uint32_t)d, h.mcr,
                           h.mf);
    s_pbest = h.order[s_draw.kbest];
  }
  __syncthreads();
  const devo__sh_ind w = s_draw;
  const double *x2 =
      w.r2 < (uint32_t)np ? src + (size_t)w.r2 * d : h.arc + (size_t)(w.r2 - (uint32_t)np) * d;
  devo__sh_trial_one<KIND>(a, h, devo__sh_rec_at(h, 0, np), gen, i, w, src,
                           src + (size_t)s_pbest * d, x2, h.fit[cur][i], h.pop[cur ^ 1],
                           h.fit[cur ^ 1]);
}

/* Inclusive scan of v over the block (blockDim.x <= 1024); *total gets the block's sum. ws: 32
 * ints of shared memory. Ends with a barrier. */
__device__ __forceinline__ unsigned int devo__sh_block_scan(unsigned int v, unsigned int *ws,
                                                            unsigned int *total)
{
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const int nw = (int)blockDim.x >> 5;
  for (int off = 1; off < 32; off <<= 1) {
    const unsigned int o = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off)
      v += o;
  }
  if (lane == 31)
    ws[warp] = v;
  __syncthreads();
  unsigned int before = 0, all = 0;
  for (int k = 0; k < nw; ++k) {
    if (k < warp)
      before += ws[k];
    all += ws[k];
  }
  __syncthreads();
  *total = all;
  return before + v;
}

/* The memory update after a generation whose successes are recorded in rec: |S| and the 32-lane
 * sums (de_shade.h's devo__sh_sum32 order: lane l adds i = l, l + 32, ... in increasing i, then
 * the shuffle tree), then lane 0 applies devo__sh_update_jade or devo__sh_update_shade to m_cr,
 * m_f (and *k, SHADE's next slot). Returns |S| to every lane. Every lane of one warp calls it. */
__device__ __forceinline__ uint32_t devo__sh_warp_update(const devo__sh_dev &h,
                                                         const devo__sh_rec &rec, int np,
                                                         double *m_cr, double *m_f, uint32_t *k)
{
  const int lane = (int)threadIdx.x & 31;
  const bool jade = h.var.adapt == DEVO__ADAPT_JADE;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, mx = 0.0;
  uint32_t nsucc = 0;
  for (int i = lane; i < np; i += 32) {
    if (!rec.succ[i])
      continue;
    ++nsucc;
    const double f = rec.F[i], cr = rec.CR[i], dl = rec.delta[i];
    if (jade) {
      s0 = s0 + cr;
      s1 = s1 + DEVO_MUL(f, f);
      s2 = s2 + f;
    } else {
      s0 = s0 + devo__sh_dff(dl, f);
      s1 = s1 + devo__sh_df(dl, f);
      s2 = s2 + devo__sh_dff(dl, cr);
      s3 = s3 + devo__sh_df(dl, cr);
      mx = cr > mx ? cr : mx;
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    s0 = s0 + __shfl_down_sync(0xffffffffu, s0, off);
    s1 = s1 + __shfl_down_sync(0xffffffffu, s1, off);
    s2 = s2 + __shfl_down_sync(0xffffffffu, s2, off);
    s3 = s3 + __shfl_down_sync(0xffffffffu, s3, off);
    const double om = __shfl_down_sync(0xffffffffu, mx, off);
    mx = om > mx ? om : mx;
    nsucc += __shfl_down_sync(0xffffffffu, nsucc, off);
  }
  nsucc = __shfl_sync(0xffffffffu, nsucc, 0);
  if (lane == 0) {
    if (jade)
      devo__sh_update_jade(m_cr, m_f, h.var.c, nsucc, s0, s1, s2);
    else
      devo__sh_update_shade(m_cr, m_f, k, (uint32_t)h.var.hist, h.var.lpsr, nsucc, s0, s1, s2, s3,
                            mx);
  }
  return nsucc;
}

/* The archive slots of generation gen's successes (succ; |A| = asz before, capacity cap): each
 * success's slot by devo__sh_arc_slot, owner[slot] = the highest inserter (the sequential order;
 * owner preset to -1); aslot[i] = i's slot or -1. Returns |S|. (The persistent kernel's
 * devo__sh_slots_warp does the same by one warp with the words drawn ahead; that warp here, drawing
 * the words itself, made the launch path 6 to 13% slower: L-SHADE F03 1229 -> 1341 ms,
 * Rastrigin 773 -> 874 ms, H100, bench-shade --reps 3 --no-cpu, 2026-11-25 06:09 and 06:17 UTC.)
 * Every thread of the block calls it; ws: 32 ints of shared memory; ends with a barrier before
 * the owners' atomics (the caller synchronises before reading owner). */
__device__ unsigned int devo__sh_slots(const devo__gpu_args &a, const unsigned char *succ,
                                       uint32_t gen, int np, uint32_t asz, uint32_t cap, int *owner,
                                       unsigned int *ws, int *aslot)
{
  unsigned int base = 0;
  for (int c0 = 0; c0 < np; c0 += (int)blockDim.x) {
    const int i = c0 + (int)threadIdx.x;
    const unsigned int su = i < np ? succ[i] : 0u;
    unsigned int tot;
    const unsigned int q = base + devo__sh_block_scan(su, ws, &tot) - su;
    if (i < np) {
      int32_t slot = -1;
      if (su) {
        slot = devo__sh_arc_slot(a.seed, gen, (uint32_t)i, asz, q, cap);
        if (slot >= 0)
          atomicMax(owner + slot, i); /* the sequential order: the highest inserter wins */
      }
      aslot[i] = slot;
    }
    base += tot;
  }
  return base;
}

/* One block: archive slots of generation gen's successes (aslot, owner) and the memory update;
 * |A| after. Every thread of the block calls it; ws: 32 ints of shared memory. */
__device__ void devo__sh_update_body(const devo__gpu_args &a, const devo__sh_dev &h, uint32_t gen,
                                     int np, uint32_t cap, unsigned int *ws)
{
  const uint32_t asz = h.ctl->asz;
  for (uint32_t s = threadIdx.x; s < cap; s += blockDim.x)
    h.owner[s] = -1;
  __syncthreads();
  devo__sh_slots(a, h.succ, gen, np, asz, cap, h.owner, ws, h.aslot);
  if (threadIdx.x < 32) {
    uint32_t k = h.ctl->k;
    const uint32_t nsucc = devo__sh_warp_update(h, devo__sh_rec_at(h, 0, np), np, h.mcr, h.mf, &k);
    if (threadIdx.x == 0) {
      h.ctl->k = k;
      h.ctl->asz = asz + nsucc < cap ? asz + nsucc : cap;
      h.ctl->nsucc = nsucc;
    }
  }
}

/* The update alone (the split path: NP above DEVO__SH_FUSE_NP, or DEVO__GPU_SHADE_SPLIT). */
__global__ void __launch_bounds__(DEVO__SH_UPD_THREADS)
    devo__k_sh_update(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int np, uint32_t cap)
{
  __shared__ unsigned int ws[32];
  if (devo__gpu_done_before(a, gen))
    return;
  devo__sh_update_body(a, h, gen, np, cap, ws);
}

/* One block after generation gen's trials (NP <= DEVO__SH_FUSE_NP): the update, the archive rows
 * (a warp per success: its parent, row i of buffer cur, where it won its slot) and the ranks of
 * the selected population (buffer cur ^ 1) for the next generation's pbest or the reduction. */
__global__ void __launch_bounds__(DEVO__SH_UPD_THREADS)
    devo__k_sh_post(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np, uint32_t cap)
{
  __shared__ unsigned int ws[32];
  __shared__ double tf[DEVO__SH_UPD_THREADS];
  if (devo__gpu_done_before(a, gen))
    return;
  devo__sh_update_body(a, h, gen, np, cap, ws);
  __syncthreads(); /* aslot and the owners' atomics of every thread */
  const size_t d = (size_t)a.dim;
  const int lane = (int)threadIdx.x & 31, nw = (int)blockDim.x >> 5;
  for (int i = (int)threadIdx.x >> 5; i < np; i += nw) {
    const int slot = h.aslot[i];
    if (slot < 0 || h.owner[slot] != i)
      continue; /* uniform over the warp */
    const double *x = h.pop[cur] + (size_t)i * d;
    double *y = h.arc + (size_t)slot * d;
    for (size_t j = (size_t)lane; j < d; j += 32)
      y[j] = x[j];
  }
  devo__sh_rank_range(h, h.fit[cur ^ 1], np, 0, (int)blockDim.x, tf);
}

/* The archive's new rows: success i's parent (generation gen - 1's row i, buffer cur) into its
 * slot where it won the slot. */
__global__ void devo__k_sh_arc_copy(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np)
{
  if (devo__gpu_done_before(a, gen))
    return;
  const size_t d = (size_t)a.dim;
  for (int i = (int)blockIdx.x; i < np; i += (int)gridDim.x) {
    const int slot = h.aslot[i];
    if (slot < 0 || h.owner[slot] != i)
      continue;
    const double *x = h.pop[cur] + (size_t)i * d;
    double *y = h.arc + (size_t)slot * d;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
      y[j] = x[j];
  }
}

/* L-SHADE's reduction of buffer cur (np individuals, ranks in h.rank) to its np_next best, in
 * index order (new index = survivors with a lower old index), into buffer cur ^ 1. Block per
 * old index. */
__global__ void devo__k_sh_compact(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np,
                                   int np_next)
{
  __shared__ int part[32];
  if (devo__gpu_done_before(a, gen))
    return;
  const size_t d = (size_t)a.dim;
  for (int i = (int)blockIdx.x; i < np; i += (int)gridDim.x) {
    if (h.rank[i] >= np_next)
      continue; /* uniform over the block */
    int cnt = 0;
    for (int j = (int)threadIdx.x; j < i; j += (int)blockDim.x)
      cnt += h.rank[j] < np_next;
    for (int off = 16; off > 0; off >>= 1)
      cnt += __shfl_xor_sync(0xffffffffu, cnt, off);
    if ((threadIdx.x & 31) == 0)
      part[threadIdx.x >> 5] = cnt;
    __syncthreads();
    int ni = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w)
      ni += part[w];
    __syncthreads(); /* part is rewritten by the next index */
    const double *x = h.pop[cur] + (size_t)i * d;
    double *y = h.pop[cur ^ 1] + (size_t)ni * d;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
      y[j] = x[j];
    if (threadIdx.x == 0) {
      h.fit[cur ^ 1][ni] = h.fit[cur][i];
      h.order[h.rank[i]] = ni; /* the survivors keep their ranks: the next generation's order */
    }
  }
}

/* L-SHADE's archive shrink to cap after generation gen: the removals (de_shade.h's draws) on
 * indices, by one thread: ids[t] = the row that ends in slot t (t < the new size). */
__global__ void devo__k_sh_shrink_plan(devo__gpu_args a, devo__sh_dev h, uint32_t gen, uint32_t cap)
{
  if (devo__gpu_done_before(a, gen) || threadIdx.x != 0)
    return;
  uint32_t asz = h.ctl->asz;
  h.ctl->shrunk = 0u;
  if (asz <= cap)
    return;
  for (uint32_t t = 0; t < asz; ++t)
    h.ids[t] = (int)t;
  for (uint32_t t = 0; asz > cap; ++t) {
    const uint32_t s = devo__sh_arc_remove_slot(a.seed, gen, t, asz);
    h.ids[s] = h.ids[asz - 1u];
    asz--;
  }
  h.ctl->asz = asz;
  h.ctl->shrunk = 1u;
}

/* The rows the shrink moved: slot t < |A| takes row ids[t] (>= |A| whenever ids[t] != t). */
__global__ void devo__k_sh_shrink_copy(devo__gpu_args a, devo__sh_dev h, uint32_t gen)
{
  if (devo__gpu_done_before(a, gen) || !h.ctl->shrunk)
    return;
  const size_t d = (size_t)a.dim;
  const int n = (int)h.ctl->asz;
  for (int t = (int)blockIdx.x; t < n; t += (int)gridDim.x) {
    const int from = h.ids[t];
    if (from == t)
      continue;
    const double *x = h.arc + (size_t)from * d;
    double *y = h.arc + (size_t)t * d;
    for (size_t j = threadIdx.x; j < d; j += blockDim.x)
      y[j] = x[j];
  }
}

/* ---- the persistent kernel (JADE, SHADE) --------------------------------------------------- */

/* Sizes of a persistent run and where its arrays lie in the dynamic shared memory. */
struct devo__sh_pk {
  int np, cap, hist, npb; /* NP, archive capacity, memory entries, the pbest pool's size */
  int xoff;               /* offset (doubles) of the arrays below, after the trial's layout */
  /* the launch's draws ahead (devo__k_sh_pre), generation-major, np per generation: the draws
   * devo__sh_draw_pre takes, and each individual's archive word (devo__sh_arc_word) */
  const devo__sh_pre *pre;
  const uint32_t *aw;
  /* DEVO__GPU_SHADE_PROFILE: block 0's cycles per phase (DEVO__SH_PSTEPS), then its total
   * cycles and globaltimer nanoseconds, written at the end of the launch; NULL: none */
  unsigned long long *clk;
};

/* Doubles, ints and bytes of the persistent kernel's shared arrays (devo__k_sh_persist). */
static inline size_t devo__sh_pk_bytes(const devo__sh_pk &k)
{
  return (5 * (size_t)k.np + 2 * (size_t)k.hist) * sizeof(double) +
         ((size_t)k.cap + 2 * (size_t)k.np + (size_t)k.npb) * sizeof(int) + (size_t)k.np;
}

/* Generations gen1 .. gen1 + n - 1 of np individuals: each (generation, individual)'s draws that
 * need neither the memory nor |A| nor the ranks (devo__sh_pre, all its Cauchy terms drawn) and its
 * archive word, a thread each (grid-stride). The closed forms (tan, log, cos) are long dependent
 * chains: drawn here, all at once, they stay off the persistent kernel's path. */
__global__ void devo__k_sh_pre(devo__gpu_args a, devo__sh_pre *pre, uint32_t *aw, uint32_t gen1,
                               uint32_t n, int np)
{
  const size_t total = (size_t)n * (size_t)np;
  for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < total;
       x += (size_t)gridDim.x * blockDim.x) {
    const uint32_t gen = gen1 + (uint32_t)(x / (size_t)np), i = (uint32_t)(x % (size_t)np);
    devo__sh_pre p;
    devo__sh_pre_words(&p, a.seed, gen, i);
    for (int t = 0; t < DEVO__SH_PRE_Q; ++t)
      p.q[t] = devo__sh_cauchy_q(a.seed, gen, i, t);
    p.nq = devo__sh_normal_q(p.b0, p.b1);
    pre[x] = p;
    aw[x] = devo__sh_arc_word(a.seed, gen, i);
  }
}

/* The population's first npb in the rank order ((f, index) ascending) into ord[0..npb), from fit
 * (shared memory), by one warp. (*tf, *ti) is the key of rank npb - 1 of the previous ranking of
 * the same indices, or (+inf, UINT32_MAX) for none: since a selection never raises an
 * individual's fitness, the npb keys at or below it are still there, so only the candidates at or
 * below it can rank below npb, and their ranks among themselves are their ranks in the
 * population. The new key of rank npb - 1 goes to (*tf, *ti). cand, cf: np ints and doubles. Every
 * lane of the warp calls it; the caller synchronises the block before ord is read. */
__device__ void devo__sh_top_warp(const double *fit, int np, int npb, int *cand, double *cf,
                                  int *ord, double *tf, uint32_t *ti)
{
  const int lane = (int)threadIdx.x & 31;
  const double t_f = *tf;
  const uint32_t t_i = *ti;
  int nc = 0;
  for (int c0 = 0; c0 < np; c0 += 32) {
    const int j = c0 + lane;
    const double fj = j < np ? fit[j] : 0.0;
    const bool in = j < np && !devo__sh_before(t_f, t_i, fj, (uint32_t)j);
    const unsigned int bal = __ballot_sync(0xffffffffu, in);
    if (in) {
      const int q = nc + __popc(bal & ((1u << lane) - 1u));
      cand[q] = j;
      cf[q] = fj;
    }
    nc += __popc(bal);
  }
  __syncwarp();
  for (int t = lane; t < nc; t += 32) {
    const int j = cand[t];
    const double fj = cf[t];
    int r = 0;
    for (int u = 0; u < nc; ++u)
      r += devo__sh_before(cf[u], (uint32_t)cand[u], fj, (uint32_t)j);
    if (r < npb)
      ord[r] = j;
  }
  __syncwarp();
  if (lane == 0) {
    *ti = (uint32_t)ord[npb - 1];
    *tf = fit[ord[npb - 1]];
  }
}

/* Generation gen's archive slots by one warp (succ, aw: the successes and their archive words in
 * shared memory; |A| = asz before, capacity cap): owner[slot] = the highest inserter (preset to
 * -1), *my = me's slot or -1. Every lane of the warp calls it. */
__device__ void devo__sh_slots_warp(const unsigned char *succ, const uint32_t *aw, int np,
                                    uint32_t asz, uint32_t cap, int *owner, int me, int *my)
{
  const int lane = (int)threadIdx.x & 31;
  unsigned int base = 0;
  for (int c0 = 0; c0 < np; c0 += 32) {
    const int j = c0 + lane;
    const bool su = j < np && succ[j];
    const unsigned int bal = __ballot_sync(0xffffffffu, su);
    int32_t slot = -1;
    if (su) {
      slot = devo__sh_arc_slot_w(aw[j], asz, base + __popc(bal & ((1u << lane) - 1u)), cap);
      if (slot >= 0)
        atomicMax(owner + slot, j); /* the sequential order: the highest inserter wins */
    }
    if (j == me)
      *my = slot;
    base += __popc(bal);
  }
}

/* Generations gen0 + 1 .. gen0 + ngens (fewer where the target stops them) as one cooperative
 * launch, one block per vector, all co-resident, one grid barrier per generation. Population and
 * fitness rotate through three buffers (generation g reads buffer c, writes c + 1 mod 3), so that
 * after the barrier a success's parent (its row in buffer c) can go to the archive while the next
 * generation's trials run: a trial whose r2 names a slot written in this round reads the parent
 * from buffer c instead (owner). After the barrier every block computes, from the whole
 * generation's records, what the launch path's one-block kernels compute once: the archive slots
 * and their owners, the memory update (the same sums in the same order), |A|, and the pbest
 * ranks, each by its own warp (devo__sh_slots_warp, devo__sh_warp_update, devo__sh_top_warp); its
 * copies of the memory and of |A| and k stay in shared memory during the launch. The draws that
 * need neither the memory nor |A| nor the ranks come from k.pd (devo__k_sh_pre), the next
 * generation's record and coordinate uniforms fetched while the block waits at the barrier.
 * Records (F, CR, success, improvement) alternate between two sets by generation parity. At the
 * end block 0 writes the memory, k and |A| back, and records of an odd last generation move to the
 * even set, where the host and the launch path read them. */
template <int KIND>
__global__ void __launch_bounds__(DEVO__SH_PMAX_THREADS, 1)
    devo__k_sh_persist(devo__gpu_args a, devo__sh_dev h, devo__sh_pk k, uint32_t gen0,
                       uint32_t ngens, int cur0)
{
  __shared__ devo__sh_ind s_draw;
  __shared__ devo__sh_pre s_pre; /* this generation's draws ahead */
  __shared__ int s_pbest, s_my;
  __shared__ uint32_t s_asz, s_k, s_ti;
  __shared__ double s_tf;
  const int np = k.np;
  double *s_fit = devo__sm + k.xoff, *s_cf = s_fit + np, *s_F = s_cf + np, *s_CR = s_F + np;
  double *s_dl = s_CR + np, *s_mcr = s_dl + np, *s_mf = s_mcr + k.hist;
  int *s_owner = (int *)(s_mf + k.hist), *s_cand = s_owner + k.cap, *s_ord = s_cand + np;
  uint32_t *s_aw = (uint32_t *)(s_ord + k.npb);
  unsigned char *s_succ = (unsigned char *)(s_aw + np);
  const devo__sh_rec srec = {s_F, s_CR, s_dl, s_succ}; /* the last generation's records */
  const int i = (int)blockIdx.x, tid = (int)threadIdx.x, nt = (int)blockDim.x;
  const int warp = tid >> 5, nw = nt >> 5;
  const size_t d = (size_t)a.dim;
  const uint32_t cap = (uint32_t)k.cap;
  const unsigned long long *pre64 = (const unsigned long long *)k.pre;
  unsigned long long *s_pre64 = (unsigned long long *)&s_pre;
  const int prew = (int)(sizeof(devo__sh_pre) / 8);
  devo__de_u upre = {0.0, 0.0};
  /* in shared memory: a local array would come back from L2 after every grid barrier */
  __shared__ devo__sh_clock clock_;
  devo__sh_clock *ck = k.clk && i == 0 && tid == 0 ? &clock_ : NULL;
  const unsigned long long ns0 = ck ? devo__sh_ns() : 0u;
  const long long tk0 = clock64();
  if (ck)
    for (int q = 0; q < DEVO__SH_PSTEPS; ++q)
      clock_.acc[q] = 0u;
  devo__gpu_stage<KIND>(a, devo__sm);
  for (int t = tid; t < k.hist; t += nt) {
    s_mcr[t] = h.mcr[t];
    s_mf[t] = h.mf[t];
  }
  for (int t = tid; t < k.cap; t += nt)
    s_owner[t] = -1; /* no parent is on its way to the archive at the start */
  for (int t = tid; t < np; t += nt)
    s_fit[t] = h.fit[cur0][t];
  double xr = tid < (int)d ? h.pop[cur0][(size_t)i * d + (size_t)tid] : 0.0, xnew = xr;
  if (tid < prew)
    s_pre64[tid] = pre64[(size_t)i * prew + tid];
  if (tid < (int)d)
    upre = devo__de_coord_ks(&a.ks, gen0 + 1u, (uint32_t)i, (uint32_t)tid);
  if (tid == 0) {
    s_asz = h.ctl->asz;
    s_k = h.ctl->k;
    s_tf = devo__gpu_inf();
    s_ti = 0xffffffffu;
  }
  __syncthreads();
  if (warp == 0)
    devo__sh_top_warp(s_fit, np, k.npb, s_cand, s_cf, s_ord, &s_tf, &s_ti);
  __syncthreads();
  int c = cur0;
  uint32_t gen = gen0, nsucc = 0;
  if (ck)
    clock_.t = clock64();
  for (uint32_t kk = 1; kk <= ngens; ++kk) {
    gen = gen0 + kk;
    const int cn = c == 2 ? 0 : c + 1, cp = cn == 2 ? 0 : cn + 1; /* cp: the last round's c */
    const double *src = h.pop[c];
    /* devo__sh_draw_pre's parts on three warps' first threads (one where the block is one warp) */
    if (tid == 0) {
      devo__sh_draw_idx(&h.var, &s_pre, (uint32_t)i, (uint32_t)np, s_asz, (uint32_t)d, &s_draw);
      s_pbest = s_ord[s_draw.kbest];
    }
    if (tid == 32 % nt) {
      const uint32_t slot = devo__sh_draw_slot(&h.var, &s_pre);
      s_draw.slot = slot;
      s_draw.f =
          devo__sh_cauchy_f_from(s_pre.q, DEVO__SH_PRE_Q, a.seed, gen, (uint32_t)i, s_mf[slot]);
    }
    if (tid == 64 % nt)
      s_draw.cr = devo__sh_normal_cr_from(s_mcr[devo__sh_draw_slot(&h.var, &s_pre)], s_pre.nq);
    __syncthreads();
    devo__sh_tick(ck, 0);
    const devo__sh_ind w = s_draw;
    const double *x2 = src + (size_t)w.r2 * d;
    if (w.r2 >= (uint32_t)np) {
      const int o = s_owner[w.r2 - (uint32_t)np];
      x2 = o >= 0 ? h.pop[cp] + (size_t)o * d : h.arc + (size_t)(w.r2 - (uint32_t)np) * d;
    }
    const devo__sh_rec rec = devo__sh_rec_at(h, (int)(gen & 1u), np);
    devo__sh_trial_one<KIND>(a, h, rec, gen, i, w, src, src + (size_t)s_pbest * d, x2, s_fit[i],
                             h.pop[cn], h.fit[cn], &upre, ck, &xr, &xnew);
    devo__sh_tick(ck, 3);
    devo__grid_arrive(&a.ctl->bar);
    if (kk < ngens) { /* the next generation's draws, fetched while the barrier completes */
      if (tid < prew)
        s_pre64[tid] = pre64[((size_t)kk * (size_t)np + (size_t)i) * prew + tid];
      if (tid < (int)d)
        upre = devo__de_coord_ks(&a.ks, gen + 1u, (uint32_t)i, (uint32_t)tid);
    }
    devo__sh_tick(ck, 4);
    devo__grid_wait(&a.ctl->bar, kk * gridDim.x, false);
    devo__sh_tick(ck, 5);
    /* generation gen's fitness, records and archive words into shared memory, all loads in one
     * round trip */
    const uint32_t asz = s_asz;
    const uint32_t *awg = k.aw + (size_t)(kk - 1u) * (size_t)np;
    for (int t0 = 0; t0 < np; t0 += 4 * nt) {
      double f[4], fF[4], fC[4], fD[4];
      uint32_t wa[4];
      unsigned char su[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int t = t0 + q * nt + tid;
        if (t < np) {
          f[q] = h.fit[cn][t];
          su[q] = rec.succ[t];
          fF[q] = rec.F[t];
          fC[q] = rec.CR[t];
          fD[q] = rec.delta[t];
          wa[q] = awg[t];
        }
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int t = t0 + q * nt + tid;
        if (t < np) {
          s_fit[t] = f[q];
          s_succ[t] = su[q];
          s_F[t] = fF[q];
          s_CR[t] = fC[q];
          s_dl[t] = fD[q];
          s_aw[t] = wa[q];
        }
      }
    }
    for (int t = tid; t < k.cap; t += nt)
      s_owner[t] = -1;
    __syncthreads();
    devo__sh_tick(ck, 6);
    /* the archive slots, the memory update and |A|, and the ranks: one warp each */
    if (warp == 0)
      devo__sh_slots_warp(s_succ, s_aw, np, asz, cap, s_owner, i, &s_my);
    if (warp == 1 % nw) {
      uint32_t kq = (tid & 31) == 0 ? s_k : 0u; /* lane 0 alone reads and writes it */
      nsucc = devo__sh_warp_update(h, srec, np, s_mcr, s_mf, &kq);
      __syncwarp(); /* every lane's reads of s_k, s_asz before lane 0 writes them */
      if ((tid & 31) == 0) {
        s_k = kq;
        s_asz = asz + nsucc < cap ? asz + nsucc : cap;
      }
    }
    if (warp == 2 % nw)
      devo__sh_top_warp(s_fit, np, k.npb, s_cand, s_cf, s_ord, &s_tf, &s_ti);
    __syncthreads();
    devo__sh_tick(ck, 7);
    if (s_my >= 0 && s_owner[s_my] == i && tid < (int)d)
      h.arc[(size_t)s_my * d + (size_t)tid] = xr; /* the parent, still in its register */
    xr = xnew;
    devo__sh_tick(ck, 8);
    c = cn;
    if (kk == ngens || devo__gpu_stopped(a, gen))
      break;
  }
  if (i == 0) {
    for (int t = tid; t < k.hist; t += nt) {
      h.mcr[t] = s_mcr[t];
      h.mf[t] = s_mf[t];
    }
    if (tid == 0) {
      h.ctl->k = s_k;
      h.ctl->asz = s_asz;
    }
    if (warp == 1 % nw && (tid & 31) == 0)
      h.ctl->nsucc = nsucc;
  }
  if (tid == 0 && (gen & 1u)) {
    const devo__sh_rec r1 = devo__sh_rec_at(h, 1, np), r0 = devo__sh_rec_at(h, 0, np);
    r0.F[i] = r1.F[i];
    r0.CR[i] = r1.CR[i];
    r0.delta[i] = r1.delta[i];
    r0.succ[i] = r1.succ[i];
  }
  if (ck) {
    for (int q = 0; q < DEVO__SH_PSTEPS; ++q)
      k.clk[q] = clock_.acc[q];
    k.clk[DEVO__SH_PSTEPS] = (unsigned long long)(clock64() - tk0);
    k.clk[DEVO__SH_PSTEPS + 1] = devo__sh_ns() - ns0;
  }
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

/* ---- host side ---------------------------------------------------------------------------- */

struct devo__gpu_shade {
  devo__gpu_args a; /* the backend's, with this file's block layout */
  devo__sh_dev h;
  const void *ktrial, *keval0, *kpersist;
  int threads;
  size_t smem;
  int cur, np, np_init, cap_max;
  int np_gen;   /* NP of the last generation (the length of F and CR); 0 before the first */
  int split;    /* DEVO__GPU_SHADE_SPLIT: the four-launch path at every NP */
  int persist;  /* devo__k_sh_persist runs the generations (devo__sh_persist_plan) */
  size_t psmem; /* its dynamic shared memory */
  devo__sh_pk pk;
  devo__gpu_args pa;   /* the persistent kernel's arguments (a, with the matrix staged where it
                          fits) */
  uint32_t psub;       /* generations per launch (the draws ahead: psub * np records) */
  devo__sh_pre *d_pre; /* the draws ahead: psub * np of each */
  uint32_t *d_aw;
  int order_ok; /* order holds the current population's ranks (no rank launch needed) */
  int64_t nfe;  /* evaluations so far, the initial population's included */
  /* the sub-chunk's state after each generation (restored where the target stopped it) */
  int rec_cur[DEVO__SH_SUB + 1], rec_np[DEVO__SH_SUB + 1], rec_ok[DEVO__SH_SUB + 1];
  int64_t rec_nfe[DEVO__SH_SUB + 1];
  /* DEVO__GPU_SHADE_PROFILE: events around each step of each generation of a sub-chunk, the
   * accumulated milliseconds per step and the generations they cover */
  cudaEvent_t *ev; /* DEVO__SH_SUB * DEVO__SH_EVS, NULL when not profiling */
  int ev_n;
  double prof_ms[DEVO__SH_PSTEPS]; /* DEVO__SH_STEPS on the launch paths */
  unsigned long long *d_clk;       /* the persistent kernel's profile (pk.clk) */
  int64_t prof_gens;
};

static int devo__sh_cuerr(devo_solver *s, cudaError_t e, const char *call, int line)
{
  char msg[DEVO__ERRLEN];
  const int status = devo__cuda_fail(msg, sizeof msg, e, call, DEVO__SH_FILE, line);
  return devo__set_err(s, status, "%s", msg);
}

#define DEVO__SCK(call)                                                                            \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess)                                                                         \
      return devo__sh_cuerr(s, e_, #call, __LINE__);                                               \
  } while (0)

static int devo__sh_fill(int kind, devo__gpu_shade *g)
{
  switch (kind) {
#define DEVO__SH_CASE(K)                                                                           \
  case K:                                                                                          \
    g->ktrial = (const void *)devo__k_sh_trial<K>;                                                 \
    g->keval0 = (const void *)devo__k_sh_eval0<K>;                                                 \
    g->kpersist = (const void *)devo__k_sh_persist<K>;                                             \
    break;
    DEVO__GPU_FOR_KINDS(DEVO__SH_CASE)
    DEVO__GPU_FOR_GENERAL_KINDS(DEVO__SH_CASE)
    DEVO__GPU_FOR_BLOCK_KINDS(DEVO__SH_CASE)
#undef DEVO__SH_CASE
  default:
    return -1;
  }
  return 0;
}

static int devo__sh_alloc(devo_solver *s, void **p, size_t bytes, const char *what)
{
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 8);
  if (e != cudaSuccess) {
    *p = NULL;
    return devo__set_err(s, e == cudaErrorMemoryAllocation ? DEVO_E_NOMEM : DEVO_E_CUDA,
                         "cudaMalloc failed for %s (%zu bytes): %s (%s)", what, bytes,
                         cudaGetErrorString(e), DEVO__SH_FILE);
  }
  return DEVO_OK;
}

void devo__gpu_shade_free(devo__gpu_shade *g)
{
  if (!g)
    return;
  cudaFree(g->h.fit[1]);
  cudaFree(g->h.pop[2]);
  cudaFree(g->h.fit[2]);
  cudaFree(g->h.F);
  cudaFree(g->h.CR);
  cudaFree(g->h.delta);
  cudaFree(g->h.succ);
  cudaFree(g->h.order);
  cudaFree(g->h.rank);
  cudaFree(g->h.aslot);
  cudaFree(g->h.owner);
  cudaFree(g->h.ids);
  cudaFree(g->h.arc);
  cudaFree(g->h.mcr);
  cudaFree(g->h.mf);
  cudaFree(g->h.ctl);
  cudaFree(g->h.terms);
  cudaFree(g->d_clk);
  cudaFree(g->d_pre);
  cudaFree(g->d_aw);
  for (int k = 0; k < g->ev_n; ++k)
    cudaEventDestroy(g->ev[k]);
  free(g->ev);
  free(g);
}

/* The block layout of the trial kernel: the backend's for the block kinds (CEC, ETC: threads,
 * work and staged matrix as configured, blk_smem bytes), one block of D rounded up to a warp
 * (at most the kernel's limit) per vector for the others, the trial in shared memory where it
 * fits; then the ordered evaluation's 2 * threads doubles in shared memory where they fit. */
static int devo__sh_layout(devo_solver *s, devo__gpu_shade *g, const cudaDeviceProp *p, int blk,
                           size_t blk_smem)
{
  cudaFuncAttributes fa, fe;
  DEVO__SCK(cudaFuncGetAttributes(&fa, g->ktrial));
  DEVO__SCK(cudaFuncGetAttributes(&fe, g->keval0));
  const size_t stat =
      fa.sharedSizeBytes > fe.sharedSizeBytes ? fa.sharedSizeBytes : fe.sharedSizeBytes;
  const size_t optin =
      (size_t)p->sharedMemPerBlockOptin > stat ? (size_t)p->sharedMemPerBlockOptin - stat : 0;
  int cap = p->maxThreadsPerBlock;
  if (fa.maxThreadsPerBlock < cap)
    cap = fa.maxThreadsPerBlock;
  if (fe.maxThreadsPerBlock < cap)
    cap = fe.maxThreadsPerBlock;
  cap = cap / 32 * 32;
  const int d = g->a.dim;
  size_t base;
  if (blk) {
    g->threads = g->a.lanes;
    base = blk_smem;
  } else {
    int t = (d < 32 ? 32 : d + 31) / 32 * 32;
    g->threads = t > cap ? cap : t;
    g->a.lanes = g->threads;
    g->a.vpb = 1;
    g->a.sm_work = g->a.sm_stage = -1;
    base = DEVO__RED_DOUBLES * sizeof(double);
    g->a.trial_shared = 0;
    if (!(s->o.gpu_design & DEVO__GPU_TRIAL_GLOBAL) &&
        base + (size_t)d * sizeof(double) + 2 * (size_t)g->threads * sizeof(double) <= optin) {
      g->a.trial_shared = 1;
      base += (size_t)d * sizeof(double);
    }
  }
  if (g->threads > cap || g->threads < 32)
    return devo__set_err(s, DEVO_E_CUDA, "the SHADE kernels cannot run %d threads per block on %s",
                         g->threads, p->name);
  const size_t terms = 2 * (size_t)g->threads * sizeof(double);
  g->h.sm_terms = -1;
  g->smem = base;
  if (base + terms <= optin) {
    g->h.sm_terms = (int)(base / sizeof(double));
    g->smem = base + terms;
  }
  if (g->smem + stat > (size_t)p->sharedMemPerBlock) {
    DEVO__SCK(devo__gpu_smem_max(g->ktrial, p));
    DEVO__SCK(devo__gpu_smem_max(g->keval0, p));
  }
  int occ = 0;
  DEVO__SCK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, g->ktrial, g->threads, g->smem));
  if (occ < 1)
    return devo__set_err(s, DEVO_E_CUDA,
                         "no block of %d threads with %zu bytes of shared memory fits on an SM of "
                         "%s (SHADE kernels)",
                         g->threads, g->smem, p->name);
  return DEVO_OK;
}

/* The persistent kernel where it applies: JADE and SHADE (L-SHADE's population shrinks: the
 * launch path), no design bit asking for the launches or their profile, a device that launches
 * cooperatively, and every vector's block co-resident with the kernel's shared arrays. */
/* Whether the persistent kernel's block fits need bytes of dynamic shared memory with np blocks
 * co-resident (1), or not (0); a CUDA error's status (< 0, set on s). */
static int devo__sh_persist_fits(devo_solver *s, const devo__gpu_shade *g, const cudaDeviceProp *p,
                                 size_t need)
{
  cudaFuncAttributes fa;
  DEVO__SCK(cudaFuncGetAttributes(&fa, g->kpersist));
  if (fa.maxThreadsPerBlock < g->threads ||
      need + fa.sharedSizeBytes > (size_t)p->sharedMemPerBlockOptin)
    return 0;
  if (need + fa.sharedSizeBytes > (size_t)p->sharedMemPerBlock)
    DEVO__SCK(devo__gpu_smem_max(g->kpersist, p));
  int occ = 0;
  DEVO__SCK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, g->kpersist, g->threads, need));
  return (int64_t)occ * p->multiProcessorCount >= (int64_t)g->np;
}

/* The persistent kernel where it applies: JADE and SHADE (L-SHADE's population shrinks: the
 * launch path), no design bit asking for the launches, a device that launches cooperatively, and
 * every vector's block co-resident with the kernel's shared arrays. A CEC function with one
 * matrix whose launch layout reads it from global memory gets it staged in shared memory, where
 * the blocks stay co-resident with it (the CPU-ordered rotation reads it D times per trial). */
static int devo__sh_persist_plan(devo_solver *s, devo__gpu_shade *g, const cudaDeviceProp *p)
{
  const int want = s->o.gpu_design;
  g->persist = 0;
  if (g->split || g->h.var.lpsr || (want & DEVO__GPU_SHADE_LAUNCHES) || !p->cooperativeLaunch ||
      g->threads > DEVO__SH_PMAX_THREADS || g->a.dim > g->threads)
    return DEVO_OK;
  devo__sh_pk k;
  memset(&k, 0, sizeof k);
  k.np = g->np;
  k.cap = (int)devo__sh_arc_cap(g->h.var.arc_rate, (uint32_t)g->np);
  k.hist = g->h.var.adapt == DEVO__ADAPT_SHADE ? g->h.var.hist : 1;
  k.npb = (int)devo__sh_npb(g->h.var.p, (uint32_t)g->np);
  k.xoff = (int)((g->smem + sizeof(double) - 1) / sizeof(double));
  size_t need = ((size_t)k.xoff * sizeof(double) + devo__sh_pk_bytes(k) + 7) / 8 * 8;
  g->pa = g->a;
  const devo__pview *v = &g->a.v;
  if (v->kind == DEVO__P_CEC && v->ncomp == 1 && devo__cec_family(v->cec_id) == DEVO__CEC_SIMPLE &&
      g->a.sm_stage < 0 && !(want & DEVO__GPU_STAGE_OFF)) {
    const size_t stage = (size_t)g->a.dim * (size_t)g->a.dim * sizeof(double);
    const int fits = devo__sh_persist_fits(s, g, p, need + stage);
    if (fits < 0)
      return fits;
    if (fits) {
      g->pa.sm_stage = (int)(need / sizeof(double));
      g->pa.stage_n = g->a.dim * g->a.dim;
      need += stage;
    }
  }
  const int fits = devo__sh_persist_fits(s, g, p, need);
  if (fits <= 0)
    return fits; /* 0: the launch path; < 0: the CUDA error */
  /* the draws ahead: at most DEVO__SH_PSUB generations, at most 32 MiB of them */
  const size_t per_gen = (size_t)g->np * (sizeof(devo__sh_pre) + sizeof(uint32_t));
  size_t psub = ((size_t)32 << 20) / per_gen;
  g->psub = psub > DEVO__SH_PSUB ? DEVO__SH_PSUB : (psub < 1 ? 1u : (uint32_t)psub);
  DEVO__SCK(cudaMalloc((void **)&g->d_pre, (size_t)g->psub * g->np * sizeof(devo__sh_pre)));
  DEVO__SCK(cudaMalloc((void **)&g->d_aw, (size_t)g->psub * g->np * sizeof(uint32_t)));
  k.pre = g->d_pre;
  k.aw = g->d_aw;
  if (want & DEVO__GPU_SHADE_PROFILE)
    DEVO__SCK(cudaMalloc((void **)&g->d_clk, (DEVO__SH_PSTEPS + 2) * sizeof(unsigned long long)));
  k.clk = g->d_clk;
  g->persist = 1;
  g->psmem = need;
  g->pk = k;
  return DEVO_OK;
}

/* The allocations of a run; the archive at its largest capacity (NP_init's). */
static int devo__sh_buffers(devo_solver *s, devo__gpu_shade *g)
{
  const size_t np = (size_t)g->np_init, d = (size_t)g->a.dim;
  const size_t hist = g->h.var.adapt == DEVO__ADAPT_SHADE ? (size_t)g->h.var.hist : 1u;
  devo__sh_dev *h = &g->h;
  int st;
#define DEVO__SH_ALLOC(ptr, bytes, what)                                                           \
  do {                                                                                             \
    if ((st = devo__sh_alloc(s, (void **)&(ptr), (bytes), (what))) != DEVO_OK)                     \
      return st;                                                                                   \
  } while (0)
  DEVO__SH_ALLOC(h->fit[1], np * sizeof(double), "the fitness");
  DEVO__SH_ALLOC(h->F, 2 * np * sizeof(double), "the F values");
  DEVO__SH_ALLOC(h->CR, 2 * np * sizeof(double), "the CR values");
  DEVO__SH_ALLOC(h->delta, 2 * np * sizeof(double), "the improvements");
  DEVO__SH_ALLOC(h->succ, 2 * np, "the success flags");
  if (g->persist) {
    DEVO__SH_ALLOC(h->pop[2], np * d * sizeof(double), "the population");
    DEVO__SH_ALLOC(h->fit[2], np * sizeof(double), "the fitness");
  }
  DEVO__SH_ALLOC(h->order, np * sizeof(int), "the ranks");
  DEVO__SH_ALLOC(h->rank, np * sizeof(int), "the ranks");
  DEVO__SH_ALLOC(h->aslot, np * sizeof(int), "the archive slots");
  DEVO__SH_ALLOC(h->owner, (size_t)g->cap_max * sizeof(int), "the archive slots");
  DEVO__SH_ALLOC(h->ids, (size_t)g->cap_max * sizeof(int), "the archive shrink");
  DEVO__SH_ALLOC(h->arc, (size_t)g->cap_max * d * sizeof(double), "the archive");
  DEVO__SH_ALLOC(h->mcr, hist * sizeof(double), "the memory");
  DEVO__SH_ALLOC(h->mf, hist * sizeof(double), "the memory");
  DEVO__SH_ALLOC(h->ctl, sizeof(devo__sh_ctl), "the SHADE control block");
  if (h->sm_terms < 0)
    DEVO__SH_ALLOC(h->terms, np * 2 * (size_t)g->threads * sizeof(double), "the evaluation terms");
#undef DEVO__SH_ALLOC
  return DEVO_OK;
}

int devo__gpu_shade_start(devo_solver *s, const devo__gpu_args *a, const cudaDeviceProp *p, int blk,
                          size_t blk_smem, cudaStream_t st, devo__gpu_shade **out)
{
  devo__gpu_shade *g = (devo__gpu_shade *)calloc(1, sizeof *g);
  int r;
  *out = g;
  if (!g)
    return devo__set_err(s, DEVO_E_NOMEM, "out of memory for the SHADE state");
  g->a = *a;
  g->h.var = s->o.var;
  g->h.pop[0] = a->pop0;
  g->h.pop[1] = a->pop1;
  g->h.fit[0] = a->fit;
  g->np = g->np_init = a->np;
  g->nfe = a->np;
  g->cap_max = (int)devo__sh_arc_cap(g->h.var.arc_rate, (uint32_t)a->np);
  g->split = (s->o.gpu_design & DEVO__GPU_SHADE_SPLIT) != 0;
  if (devo__sh_fill(a->v.kind, g) != 0)
    return devo__set_err(s, DEVO_E_INVALID, "this problem kind has no SHADE kernel");
  if (g->h.var.adapt == DEVO__ADAPT_SHADE && g->h.var.hist < 1)
    return devo__set_err(s, DEVO_E_INVALID, "SHADE's history size %d is below 1", g->h.var.hist);
  if ((r = devo__sh_layout(s, g, p, blk, blk_smem)) != DEVO_OK ||
      (r = devo__sh_persist_plan(s, g, p)) != DEVO_OK || (r = devo__sh_buffers(s, g)) != DEVO_OK)
    return r;
  {
    const int hist = g->h.var.adapt == DEVO__ADAPT_SHADE ? g->h.var.hist : 1;
    double *m = (double *)malloc((size_t)hist * sizeof(double));
    devo__sh_ctl c;
    if (!m)
      return devo__set_err(s, DEVO_E_NOMEM, "out of memory for the SHADE memory");
    for (int k = 0; k < hist; ++k)
      m[k] = DEVO__SH_M_INIT;
    memset(&c, 0, sizeof c);
    cudaError_t e = cudaMemcpy(g->h.mcr, m, (size_t)hist * sizeof(double), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
      e = cudaMemcpy(g->h.mf, m, (size_t)hist * sizeof(double), cudaMemcpyHostToDevice);
    free(m);
    if (e == cudaSuccess)
      e = cudaMemcpy(g->h.ctl, &c, sizeof c, cudaMemcpyHostToDevice);
    /* F_i, CR_i read 0 before the first generation (the CPU's calloc) */
    if (e == cudaSuccess)
      e = cudaMemset(g->h.F, 0, (size_t)g->np_init * sizeof(double));
    if (e == cudaSuccess)
      e = cudaMemset(g->h.CR, 0, (size_t)g->np_init * sizeof(double));
    if (e != cudaSuccess)
      return devo__sh_cuerr(s, e, "cudaMemcpy(SHADE memory)", __LINE__);
  }
  if (s->o.gpu_design & DEVO__GPU_SHADE_PROFILE) {
    g->ev = (cudaEvent_t *)calloc((size_t)DEVO__SH_SUB * DEVO__SH_EVS, sizeof(cudaEvent_t));
    if (!g->ev)
      return devo__set_err(s, DEVO_E_NOMEM, "out of memory for the profiling events");
    for (; g->ev_n < DEVO__SH_SUB * DEVO__SH_EVS; ++g->ev_n)
      DEVO__SCK(cudaEventCreate(&g->ev[g->ev_n]));
  }
  /* the initial fitness in the CPU's order (devo__k_init summed it in tree order) */
  void *args[] = {&g->a, &g->h, &g->np};
  DEVO__SCK(cudaLaunchKernel(g->keval0, dim3((unsigned)g->np), dim3((unsigned)g->threads), args,
                             g->smem, st));
  DEVO__SCK(cudaStreamSynchronize(st));
  return DEVO_OK;
}

/* frac of L-SHADE's schedule after generation gen with nfe evaluations done: the CPU's
 * devo__lpsr_frac (engine/solver.c) with the solver's counts as the CPU has them then (the time
 * budget's frac is taken when the generation is enqueued, not when it runs: docs/shade.md). */
static double devo__sh_frac(devo_solver *s, uint32_t gen, int64_t nfe)
{
  const int64_t gens = s->gens, evals = s->evals;
  s->gens = gen;
  s->evals = nfe;
  const double f = devo__lpsr_frac(s);
  s->gens = gens;
  s->evals = evals;
  return f;
}

/* Generation gen's launches (state g->cur, g->np advanced as the device will have them). */
/* Profiling: event e of the k-th generation of the sub-chunk (nothing when not profiling). */
static cudaError_t devo__sh_mark(devo__gpu_shade *g, int k, int e, cudaStream_t st)
{
  return g->ev ? cudaEventRecord(g->ev[(size_t)k * DEVO__SH_EVS + (size_t)e], st) : cudaSuccess;
}

static int devo__sh_enqueue(devo_solver *s, devo__gpu_shade *g, uint32_t gen, int k0,
                            cudaStream_t st)
{
  int np = g->np, cur = g->cur;
  uint32_t cap = devo__sh_arc_cap(g->h.var.arc_rate, (uint32_t)np);
  const int fused = !g->split && np <= DEVO__SH_FUSE_NP;
  const unsigned rblocks = (unsigned)((np + DEVO__SH_RANK_THREADS - 1) / DEVO__SH_RANK_THREADS);
  const unsigned cblocks = (unsigned)(np < 4096 ? np : 4096);
  void *rargs[] = {&g->a, &g->h, &gen, &cur, &np};
  void *uargs[] = {&g->a, &g->h, &gen, &np, &cap};
  void *pargs[] = {&g->a, &g->h, &gen, &cur, &np, &cap};
  DEVO__SCK(devo__sh_mark(g, k0, 0, st));
  if (!g->order_ok)
    DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_rank, dim3(rblocks),
                               dim3(DEVO__SH_RANK_THREADS), rargs, 0, st));
  DEVO__SCK(devo__sh_mark(g, k0, 1, st));
  DEVO__SCK(cudaLaunchKernel(g->ktrial, dim3((unsigned)np), dim3((unsigned)g->threads), rargs,
                             g->smem, st));
  DEVO__SCK(devo__sh_mark(g, k0, 2, st));
  if (fused)
    DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_post, dim3(1), dim3(DEVO__SH_UPD_THREADS),
                               pargs, 0, st));
  else
    DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_update, dim3(1), dim3(DEVO__SH_UPD_THREADS),
                               uargs, 0, st));
  DEVO__SCK(devo__sh_mark(g, k0, 3, st));
  if (!fused)
    DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_arc_copy, dim3(cblocks),
                               dim3(DEVO__SH_COPY_THREADS), rargs, 0, st));
  DEVO__SCK(devo__sh_mark(g, k0, 4, st));
  g->order_ok = fused; /* post ranked the selected population */
  cur ^= 1;
  g->nfe += np;
  if (g->h.var.adapt == DEVO__ADAPT_SHADE && g->h.var.lpsr) {
    int np_next = (int)devo__sh_lpsr_np((uint32_t)g->np_init, (uint32_t)g->h.var.np_min,
                                        devo__sh_frac(s, gen, g->nfe), (uint32_t)np);
    if (np_next < np) {
      uint32_t cap_next = devo__sh_arc_cap(g->h.var.arc_rate, (uint32_t)np_next);
      const unsigned sblocks = cap_next < 1024u ? (cap_next ? cap_next : 1u) : 1024u;
      void *cargs[] = {&g->a, &g->h, &gen, &cur, &np, &np_next};
      void *spargs[] = {&g->a, &g->h, &gen, &cap_next};
      void *sargs[] = {&g->a, &g->h, &gen};
      /* rargs point at cur, flipped above: the ranks of the selected population (post ranked
       * them already) */
      if (!fused)
        DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_rank, dim3(rblocks),
                                   dim3(DEVO__SH_RANK_THREADS), rargs, 0, st));
      DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_compact, dim3(cblocks),
                                 dim3(DEVO__SH_RANK_THREADS), cargs, 0, st));
      DEVO__SCK(
          cudaLaunchKernel((const void *)devo__k_sh_shrink_plan, dim3(1), dim3(32), spargs, 0, st));
      DEVO__SCK(cudaLaunchKernel((const void *)devo__k_sh_shrink_copy, dim3(sblocks),
                                 dim3(DEVO__SH_COPY_THREADS), sargs, 0, st));
      cur ^= 1;
      np = np_next;
      g->order_ok = 1; /* the compaction wrote the survivors' order */
    }
  }
  DEVO__SCK(devo__sh_mark(g, k0, 5, st));
  g->cur = cur;
  g->np = np;
  return DEVO_OK;
}

/* Profiling: the first m generations' step times of the sub-chunk just synchronised. */
static int devo__sh_prof_add(devo_solver *s, devo__gpu_shade *g, int m)
{
  for (int k = 0; k < m; ++k)
    for (int e = 0; e < DEVO__SH_STEPS; ++e) {
      float ms = 0.0f;
      DEVO__SCK(cudaEventElapsedTime(&ms, g->ev[(size_t)k * DEVO__SH_EVS + (size_t)e],
                                     g->ev[(size_t)k * DEVO__SH_EVS + (size_t)e + 1]));
      g->prof_ms[e] += (double)ms;
    }
  g->prof_gens += m;
  return DEVO_OK;
}

/* The persistent path of devo__gpu_shade_run: cooperative launches of up to DEVO__SH_PSUB
 * generations; after each, the control block says whether the target stopped it. */
static int devo__sh_run_persist(devo_solver *s, devo__gpu_shade *g, devo__gpu_ctl *h_ctl,
                                const devo__gpu_ctl *d_ctl, uint32_t gen0, int64_t ngens,
                                cudaStream_t st, int64_t *done, int64_t *evals)
{
  uint32_t gen = gen0;
  while (*done < ngens) {
    uint32_t n = ngens - *done < (int64_t)g->psub ? (uint32_t)(ngens - *done) : g->psub;
    int cur = g->cur, np = g->np;
    uint32_t gen1 = gen + 1u;
    void *args[] = {&g->pa, &g->h, &g->pk, &gen, &n, &cur};
    void *pargs[] = {&g->pa, &g->d_pre, &g->d_aw, &gen1, &n, &np};
    const size_t total = (size_t)n * (size_t)np;
    const unsigned pblocks = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
    DEVO__SCK(
        cudaLaunchKernel((const void *)devo__k_sh_pre, dim3(pblocks), dim3(256), pargs, 0, st));
    DEVO__SCK(cudaMemsetAsync(&g->a.ctl->bar, 0, sizeof g->a.ctl->bar, st));
    DEVO__SCK(cudaLaunchCooperativeKernel(g->kpersist, dim3((unsigned)g->np),
                                          dim3((unsigned)g->threads), args, g->psmem, st));
    DEVO__SCK(cudaMemcpyAsync(h_ctl, d_ctl, sizeof *h_ctl, cudaMemcpyDeviceToHost, st));
    unsigned long long clk[DEVO__SH_PSTEPS + 2];
    if (g->d_clk)
      DEVO__SCK(cudaMemcpyAsync(clk, g->d_clk, sizeof clk, cudaMemcpyDeviceToHost, st));
    DEVO__SCK(cudaStreamSynchronize(st));
    if (g->d_clk && clk[DEVO__SH_PSTEPS] > 0) { /* cycles -> ms by the launch's own rate */
      const double ms_per_cycle =
          1e-6 * (double)clk[DEVO__SH_PSTEPS + 1] / (double)clk[DEVO__SH_PSTEPS];
      for (int q = 0; q < DEVO__SH_PSTEPS; ++q)
        g->prof_ms[q] += ms_per_cycle * (double)clk[q];
      g->prof_gens += n;
    }
    int64_t m = n;
    const int stopped = g->a.has_target && h_ctl->stop_gen != DEVO__NO_STOP;
    if (stopped) {
      const int64_t at = (int64_t)(uint32_t)((uint32_t)h_ctl->stop_gen - gen);
      if (at >= 1 && at < m)
        m = at;
    }
    g->cur = (int)((g->cur + m) % 3);
    g->np_gen = g->np;
    g->nfe += m * g->np;
    *evals += m * g->np;
    *done += m;
    gen += (uint32_t)m;
    if (stopped || devo__should_abort(s))
      break; /* the completed generations stand; the solver reports the reason */
  }
  return DEVO_OK;
}

int devo__gpu_shade_run(devo_solver *s, devo__gpu_shade *g, devo__gpu_ctl *h_ctl,
                        const devo__gpu_ctl *d_ctl, uint32_t gen0, int64_t ngens, cudaStream_t st,
                        int64_t *done, int64_t *evals)
{
  *done = 0;
  *evals = 0;
  if (g->persist)
    return devo__sh_run_persist(s, g, h_ctl, d_ctl, gen0, ngens, st, done, evals);
  uint32_t gen = gen0;
  while (*done < ngens) {
    const int n = ngens - *done < DEVO__SH_SUB ? (int)(ngens - *done) : DEVO__SH_SUB;
    g->rec_cur[0] = g->cur;
    g->rec_ok[0] = g->order_ok;
    g->rec_np[0] = g->np;
    g->rec_nfe[0] = g->nfe;
    const int np_gen0 = g->np_gen;
    for (int k = 1; k <= n; ++k) {
      const int r = devo__sh_enqueue(s, g, gen + (uint32_t)k, k - 1, st);
      if (r != DEVO_OK)
        return r;
      g->rec_cur[k] = g->cur;
      g->rec_ok[k] = g->order_ok;
      g->rec_np[k] = g->np;
      g->rec_nfe[k] = g->nfe;
    }
    DEVO__SCK(cudaMemcpyAsync(h_ctl, d_ctl, sizeof *h_ctl, cudaMemcpyDeviceToHost, st));
    DEVO__SCK(cudaStreamSynchronize(st));
    int m = n;
    if (g->a.has_target && h_ctl->stop_gen != DEVO__NO_STOP) {
      const int64_t at = (int64_t)(uint32_t)((uint32_t)h_ctl->stop_gen - gen);
      if (at >= 1 && at < m)
        m = (int)at;
    }
    if (g->ev) {
      const int r = devo__sh_prof_add(s, g, m);
      if (r != DEVO_OK)
        return r;
    }
    g->cur = g->rec_cur[m];
    g->order_ok = g->rec_ok[m];
    g->np_gen = m > 0 ? g->rec_np[m - 1] : np_gen0;
    g->np = g->rec_np[m];
    *evals += g->rec_nfe[m] - g->rec_nfe[0];
    g->nfe = g->rec_nfe[m];
    *done += m;
    gen += (uint32_t)m;
    if (m < n || (g->a.has_target && h_ctl->stop_gen != DEVO__NO_STOP))
      break;
    if (devo__should_abort(s))
      break; /* the completed generations stand; the solver reports the reason */
  }
  return DEVO_OK;
}

void devo__gpu_shade_current(const devo__gpu_shade *g, devo__gpu_args *a)
{
  a->pop0 = g->h.pop[g->cur];
  a->fit = g->h.fit[g->cur];
  a->np = g->np;
}

int devo__gpu_shade_np(const devo__gpu_shade *g)
{
  return g->np;
}

void devo__gpu_shade_describe(const devo__gpu_shade *g, char *buf, size_t len)
{
  const devo__variant *v = &g->h.var;
  const int blk =
      g->a.v.kind == DEVO__P_SOCO ||
      (g->a.v.kind == DEVO__P_CEC && devo__cec_family(g->a.v.cec_id) != DEVO__CEC_SIMPLE);
  snprintf(buf, len,
           "%s (kernels/gpu_shade.cu): %s; trial + evaluation + selection with one block of %d "
           "threads per vector%s; objective summed in the CPU's order%s; trial in %s memory, %zu B "
           "dynamic shared/block, evaluation terms in %s memory%s",
           v->adapt == DEVO__ADAPT_JADE ? "JADE" : (v->lpsr ? "L-SHADE" : "SHADE"),
           g->persist ? "a persistent cooperative kernel, one grid barrier per generation (each "
                        "block computes the archive slots, memory update and pbest ranks itself)"
           : g->split ? "4 launches per generation (ranks, trial, archive slots + memory update, "
                        "archive rows)"
                      : "2 launches per generation up to NP 1024 (trial, then archive slots + "
                        "memory update + archive rows + next ranks in one block), 4 above",
           g->threads,
           v->lpsr ? ", 3 or 4 more where the population shrinks (ranks, compaction, archive "
                     "shrink)"
                   : "",
           blk ? " (not for this function: tree-ordered sums)" : "",
           g->a.trial_shared ? "shared" : "global", g->persist ? g->psmem : g->smem,
           g->h.sm_terms >= 0 ? "shared" : "global",
           !DEVO__GPU_IS_BLOCK_KIND(g->a.v.kind) ? ""
           : (g->persist ? g->pa.sm_stage : g->a.sm_stage) >= 0
               ? "; the matrix staged in shared memory"
               : "; the matrix read from global memory");
}

int devo__gpu_shade_prof(const devo__gpu_shade *g, double *ms_per_gen, int n)
{
  const int steps = g->persist ? DEVO__SH_PSTEPS : DEVO__SH_STEPS;
  if ((!g->ev && !g->d_clk) || g->prof_gens == 0)
    return 0;
  for (int e = 0; e < n && e < steps; ++e)
    ms_per_gen[e] = g->prof_ms[e] / (double)g->prof_gens;
  return n < steps ? n : steps;
}

int devo__gpu_shade_state(devo_solver *s, devo__gpu_shade *g, cudaStream_t st,
                          devo_shade_state *out, double *archive, double *m_cr, double *m_f,
                          double *F, double *CR)
{
  const int hist = g->h.var.adapt == DEVO__ADAPT_SHADE ? g->h.var.hist : 1;
  const size_t d = (size_t)g->a.dim;
  devo__sh_ctl c;
  DEVO__SCK(cudaMemcpyAsync(&c, g->h.ctl, sizeof c, cudaMemcpyDeviceToHost, st));
  DEVO__SCK(cudaStreamSynchronize(st));
  if (out) {
    out->np = g->np;
    out->np_gen = g->np_gen;
    out->archive_size = (int)c.asz;
    out->archive_cap = (int)devo__sh_arc_cap(g->h.var.arc_rate, (uint32_t)g->np);
    out->hist = hist;
    out->k = (int)c.k;
  }
  if (archive && c.asz > 0)
    DEVO__SCK(cudaMemcpyAsync(archive, g->h.arc, (size_t)c.asz * d * sizeof(double),
                              cudaMemcpyDeviceToHost, st));
  if (m_cr)
    DEVO__SCK(
        cudaMemcpyAsync(m_cr, g->h.mcr, (size_t)hist * sizeof(double), cudaMemcpyDeviceToHost, st));
  if (m_f)
    DEVO__SCK(
        cudaMemcpyAsync(m_f, g->h.mf, (size_t)hist * sizeof(double), cudaMemcpyDeviceToHost, st));
  if (F && g->np_gen > 0)
    DEVO__SCK(
        cudaMemcpyAsync(F, g->h.F, (size_t)g->np_gen * sizeof(double), cudaMemcpyDeviceToHost, st));
  if (CR && g->np_gen > 0)
    DEVO__SCK(cudaMemcpyAsync(CR, g->h.CR, (size_t)g->np_gen * sizeof(double),
                              cudaMemcpyDeviceToHost, st));
  DEVO__SCK(cudaStreamSynchronize(st));
  return DEVO_OK;
}
