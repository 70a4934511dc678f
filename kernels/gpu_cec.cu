/* SPDX-License-Identifier: MIT */
/* gpu_cec.cu: the persistent generation kernel for the CEC functions F01..F10 at D <= 128 on
 * sm_90 and later, with every rotation matrix resident in shared memory: of one block where they
 * fit (F01..F07 at D = 100: 80 KB), else of a two-block cluster (the compositions F08..F10 at
 * D = 100: 240 to 400 KB). Issue 4's case: Janssen et al.'s case study 1, D = 100, NP = 250.
 *
 * Versions (kernels/gpu_backend.cu picks one; BENCHMARKS.md has the measurements):
 *   devo__k_persist<CEC>   gpu_fused.cu: one block per vector, cec_device.cuh's block evaluator;
 *                          the single matrix of F01..F07 staged in shared memory per block, the
 *                          3 to 5 matrices of a composition read from L2 by every block in every
 *                          generation; components and hybrid groups one after another, each
 *                          with its own block reductions. Always selectable (DEVO__GPU_CLASSIC and
 *                          the other block options).
 *   devo__k_cecc<ID, VL, 2, 0>  this file, first version (DEVO__GPU_CEC_PAIR where one
 *                          block would do; compositions with DEVO__GPU_CEC_FMA): a cluster of
 *                          two blocks (two SMs) owns 2 VL vectors for the whole chunk. The C
 *                          matrices, stacked into R = C D rows, are split by rows between the
 *                          two blocks and staged once per chunk (F10 at D = 100: 200 KB per
 *                          block).
 *   devo__k_cecc<ID, VL, 1, 0>  this file, second version (the default where every matrix
 *                          fits one block): one block owns VL vectors and all R rows; no
 *                          cluster, no distributed shared memory, block barriers only.
 *                          DEVO__GPU_CEC_VL1: one vector per block (and per block of a pair)
 *                          even where two fit.
 *   devo__k_cecc<ID, VL, CL, 1>  this file, third version (the default for the compositions
 *                          F08..F10, either cluster size; DEVO__GPU_CEC_FMA: the first two):
 *                          phase B on the tensor cores (mma.m16n8k4.f64), the rest the same.
 *   devo__k_ceccv<ID, VL, G>  fourth version (issue 18): every DE variant but plain rand1bin for
 *                          F01..F07 in single blocks (the second version's layout): the draws of
 *                          de_variant.h (devo__var_draw, the coordinate's uniforms, only inside
 *                          the exponential crossover's run) while waiting at the barrier, "best"
 *                          by each warp scanning the previous generation's fitness, the trial by
 *                          devo__var_trial_u, jDE's F_i, CR_i in registers; fitness, F and CR by
 *                          generation parity as gpu_vfused.cu keeps them (the host side and
 *                          GOBL's jump kernels share them). The strategy stays a run-time value
 *                          (one coordinate per thread). gpu_vfused.cu still runs the variants
 *                          where this does not apply and with DEVO__GPU_VAR_GENERAL.
 *                          G (GOBL runs but with DEVO__GPU_GOBL_LAUNCHES): GOBL's jumps inside
 *                          the kernel: the box by the grid's warps before phase A and a grid
 *                          barrier, the opposite as phase A's u (phases B and C evaluate it as a
 *                          trial), a grid barrier, each vector's warps rank its two candidates
 *                          and store the survivors at their ranks (devo__cecc_gobl_select); after
 *                          the generation's barrier each vector is reloaded from its row.
 * Per generation, blocks of 2 or 3 (devo__cecc_tpc) VL x 32-rounded D threads (512 at D = 100,
 * VL = 2; F09 and F10 in pairs 768):
 *   A  each block builds its VL trials (one thread per coordinate; the draws are made while
 *      waiting at the grid barrier, as gpu_fast.cu does) and y_c = s_c (u - o_c) of every
 *      component straight from the registers. Pair: each block builds the partner's VL trials
 *      too (its next VL lv threads; the same draws and donors give the same trials), so
 *      no trial crosses SMs and no cluster barrier is needed here; y of the cluster's V = 2 VL
 *      vectors from the registers too (tensor cores), or from u after a block barrier
 *      (multiply-adds, whose layout would make the stores conflict).
 *   B  each block multiplies its rows of the stacked matrix with its V vectors: one thread per
 *      row, one matrix element read serves V multiply-adds, y read by broadcast, the loads of four
 *      steps issued before their multiply-adds; for a single matrix up to 8 warp groups split j
 *      and their partials are added in group order. Third version: 16-row tiles on the tensor
 *      cores (devo__cecc_mma) and a spare warp computing the composition weights meanwhile. A
 *      pair stores each product row in the block that owns the vector (st.async, counted on the
 *      owner's mbarrier).
 *   C  (pair: each block waits on its mbarrier for the partner's products) each block evaluates
 *      its VL vectors in one pass over every component or hybrid group (the element terms of
 *      all parts at once, one thread per element, an elliptic part's last with its coefficients
 *      computed once per launch; a spare warp computes the composition weights meanwhile
 *      unless phase B did), then one warp per vector (F01..F04, F08, F09) or per
 *      (vector, part) reduces the terms and the parts are combined; replacement, then the split
 *      grid barrier.
 * Rows are summed over j in index order as the CPU does (split into ordered partials for a
 * single matrix; nvcc fuses each multiply-add; the tensor cores in an order of their own), the
 * parts' sums and the composition distances are reduced in ordered partial sums and some device
 * functions differ from the CPU's by an ulp (cec.h), so results agree with the CPU to about
 * 1e-13 relative, not bit for bit. The trials are the CPU's bit for bit.
 * Helpers that take the kernel's arguments by reference are inlined: out of line they put the
 * arguments in local memory, read back from L2 after every barrier (measured, BENCHMARKS.md).
 * Applies (devo__gpu_cecc_plan): CEC kind, compute capability >= 9.0 with cluster launch, D <= 128,
 * VL = 1 or 2 with every block (cluster) co-resident and the shared memory within the opt-in
 * limit; one block is tried before a pair, two vectors per block before one (pairs: one first). */
#include <cooperative_groups.h>

#include "gpu_common.cuh"

namespace cg = cooperative_groups;

extern __shared__ double devo__sm[];

#define DEVO__CECC_MAX_D  128
#define DEVO__CECC_MAX_VL 2
/* Threads per coordinate slot: phase A uses one per coordinate, phases B and C all of them.
 * F09 and F10 in pairs take 3 (768 threads at D = 100, VL = 2: each of F10's 18 tensor-core
 * tiles per block gets a warp of its own, and phase C's 800 or 1,000 elements fewer rounds),
 * although the register cap falls from 128 to 80; F08 measured faster with 2 (H100,
 * BENCHMARKS.md); single blocks (smaller D) keep 2. */
__host__ __device__ constexpr int devo__cecc_tpc(int id, int cl)
{
  return cl > 1 && (id == 9 || id == 10) ? 3 : 2;
}

/* Shared memory of a block (doubles): the block's matrix rows [ms], y of the cluster's V = CL VL
 * vectors [C D V], or [C V yl] for the tensor cores (reused by phase C for the terms a and b of
 * the block's VL vectors: 2 VL R),
 * the products of its VL vectors [VL R], part results and weights [2 VL 5], the vectors'
 * values [VL], the shuffle [D ints], the trials u of the cluster's vectors [D V], the shift
 * vectors of a composition [C D] (its distances), phase B's partial sums [kw rh V] and the
 * elliptic part's coefficients [D]. */
#define DEVO__CECC_EVEN(n) (((n) + 1) & ~1)
struct devo__cecc_lay {
  int rh, kw, yl, ms, y, z, g, w, f, sh, u, o, pb, ec, mb, total;
};

/* The part of function ID whose basic function is the elliptic one, or -1. */
__host__ __device__ static inline int devo__cecc_ellips_part(int id)
{
  int k = 0;
  while (k < devo__cec_nparts(id) && devo__cec_part_fn(id, k) != DEVO__CEC_ELLIPTIC)
    ++k;
  return k < devo__cec_nparts(id) ? k : -1;
}

__host__ __device__ static inline devo__cecc_lay devo__cecc_layout(int id, int d, int vl, int cl,
                                                                   bool mm)
{
  devo__cecc_lay l;
  const int c = devo__cec_nshift(id), r = c * d, v = cl * vl;
  l.rh = cl > 1 ? (r + 1) / 2 : r;
  /* y: [c][j][v] for the multiply-adds (read as double2, so offsets are even), [c][v][j] with rows
   * of yl doubles for the tensor cores, yl = 4 mod 16 so that a B fragment's 4 vectors x 4
   * coordinates fall in distinct banks (yl = d at d = 100); the area also holds phase C's
   * terms, 2 VL R >= V C D */
  l.yl = mm ? d + (20 - d % 16) % 16 : d;
  l.ms = 0;
  l.y = DEVO__CECC_EVEN(l.rh * d);
  l.z = DEVO__CECC_EVEN(l.y + 2 * vl * r + (mm ? c * v * (l.yl - d) : 0));
  l.g = DEVO__CECC_EVEN(l.z + vl * r);
  l.w = l.g + vl * DEVO__CEC_MAXPARTS;
  l.f = l.w + vl * DEVO__CEC_MAXPARTS;
  l.sh = l.f + vl;
  l.u = DEVO__CECC_EVEN(l.sh + (d + 1) / 2);
  l.o = l.u + v * d;
  /* phase B: kw groups of whole warps split j, each group covering every row of the block, so
   * that each y read is one broadcast; kw > 1 (partials in pb, added in group order) only for a
   * single matrix (for a composition's rows it measured slower where the partials fit: F08, F09
   * at D = 100; F10's do not fit) */
  const int grp = ((l.rh + 31) & ~31), nt = devo__cecc_tpc(id, cl) * vl * ((d + 31) & ~31);
  l.kw = c == 1 && !mm ? nt / grp : 1;
  if (l.kw > 8)
    l.kw = 8;
  if (l.kw < 1)
    l.kw = 1;
  l.pb = DEVO__CECC_EVEN(l.o + (cl > 1 || devo__cec_family(id) == DEVO__CEC_COMPOSITION ? r : 0));
  l.ec = l.pb + (l.kw > 1 ? l.kw * l.rh * v : 0);
  l.mb = l.ec + (devo__cecc_ellips_part(id) >= 0 ? d : 0); /* the products' mbarrier (a pair) */
  l.total = l.mb + 1;
  return l;
}

/* Part k of function ID at dimension d: its elements are [start, start + size) of the stacked
 * products (hybrids: positions in the shuffled order), read with scale s. */
template <int ID>
__device__ __forceinline__ void devo__cecc_part(int k, int d, const int *hs, const int *hn,
                                                int &start, int &size, double &s)
{
  const int fam = devo__cec_family(ID);
  if (fam == DEVO__CEC_HYBRID) {
    start = hs[k];
    size = hn[k];
    s = devo__cec_basic_scale(devo__cec_part_fn(ID, k));
  } else {
    start = fam == DEVO__CEC_COMPOSITION ? k * d : 0;
    size = d;
    s = 1.0; /* applied before the rotation */
  }
}

/* acc[v] += y[jj][v] m[jj] for jj = j0 .. j1 - 1 in index order (y: [j][V] rows, m: column
 * stride ms). The loads of U steps are issued before their multiply-adds: written as one loop,
 * nvcc reused one register pair for every y load, so each step waited for two shared-memory
 * round trips (about 80 cycles per step, measured by clock64() in phase B). */
template <int V>
__device__ __forceinline__ void devo__cecc_dot(const double *m, int ms, const double *y, int j0,
                                               int j1, double *acc)
{
  constexpr int U = 4;
  int jj = j0;
  for (; jj + U <= j1; jj += U) {
    double mu[U], yu[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      mu[u] = m[(size_t)(jj + u) * ms];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const double *yr = y + (size_t)(jj + u) * V;
#pragma unroll
      for (int v = 0; v < V; v += 2) {
        if (v + 1 < V) {
          const double2 y2 = *(const double2 *)(yr + v);
          yu[u][v] = y2.x;
          yu[u][v + 1] = y2.y;
        } else {
          yu[u][v] = yr[v];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int v = 0; v < V; ++v)
        acc[v] = acc[v] + yu[u][v] * mu[u];
  }
  for (; jj < j1; ++jj) {
    const double mj = m[(size_t)jj * ms];
#pragma unroll
    for (int v = 0; v < V; ++v)
      acc[v] = acc[v] + y[(size_t)jj * V + v] * mj;
  }
}

/* The composition weights of the block's VL vectors by one warp: cf_cal's distance |u - o_p|^2
 * of each (vector, part) as S ordered partial sums over consecutive j, on S lanes, added in
 * order (a single chain of d dependent additions on one lane was the longest path of the phase
 * it ran in), then a chain of divisions, a square root and an exponential. u: the trials [j][V]
 * from column u0, os: the shifts [P][d]. */
template <int ID, int VL, int V>
__device__ __forceinline__ void devo__cecc_weights(int lane, int d, const double *u, int u0,
                                                   const double *os, double *ws)
{
  const int P = devo__cec_nparts(ID), np = VL * P, S = 32 / np, pair = lane % np, s = lane / np;
  const int w = pair / P, p = pair % P, j0 = s * d / S, j1 = (s + 1) * d / S;
  double dd = 0.0;
  if (s < S) {
    const double *uw = u + u0 + w, *op = os + (size_t)p * d;
#pragma unroll 4
    for (int jj = j0; jj < j1; ++jj) {
      const double t = __dsub_rn(uw[(size_t)jj * V], op[jj]);
      dd = __dadd_rn(dd, __dmul_rn(t, t));
    }
  }
  double sum = dd;
  for (int t = 1; t < S; ++t) {
    const double o = __shfl_down_sync(0xffffffffu, dd, t * np);
    sum = __dadd_rn(sum, o);
  }
  if (s == 0)
    ws[w * DEVO__CEC_MAXPARTS + p] = devo__cec_comp_weight(sum, d, devo__cec_comp_sigma(ID, p));
}

/* A lane's share of a part's sums: its terms (va, vb) l = lane, lane + 32, ... < n folded in
 * order, the loads of the whole part in flight (unrolled over D <= 128). */
__device__ __forceinline__ void devo__cecc_fold_lane(int lane, int n, int mode, const double *va,
                                                     const double *vb, double &A, double &B)
{
#pragma unroll
  for (int k2 = 0; k2 < DEVO__CECC_MAX_D / 32; ++k2) {
    const int l = lane + 32 * k2;
    if (l < n)
      devo__cec_fold(mode, va[l], vb[l], &A, &B);
  }
}

/* g of part p of function ID (a composition's with its lambda and bias, comp_fit) from the
 * part's reduced sums A and B over its n elements. */
template <int ID> __device__ __forceinline__ double devo__cecc_g(int p, int n, double A, double B)
{
  const double g = devo__cec_finish(devo__cec_part_fn(ID, p), n, A, B);
  return devo__cec_family(ID) == DEVO__CEC_COMPOSITION ? devo__cec_comp_fit(ID, p, g) : g;
}

/* A vector's fitness from its parts' g (a composition: combined with its weights wv; else their
 * sum in part order) plus the bias. */
template <int ID>
__device__ __forceinline__ double devo__cecc_value(const double *g, const double *wv)
{
  const int P = devo__cec_nparts(ID);
  double f = 0.0;
  if (devo__cec_family(ID) == DEVO__CEC_COMPOSITION) {
    double fit[DEVO__CEC_MAXPARTS], wt[DEVO__CEC_MAXPARTS];
#pragma unroll
    for (int p = 0; p < DEVO__CEC_MAXPARTS; ++p) {
      fit[p] = p < P ? g[p] : 0.0;
      wt[p] = p < P ? wv[p] : 0.0;
    }
    f = devo__cec_comp_combine(P, wt, fit);
  } else {
#pragma unroll
    for (int p = 0; p < DEVO__CEC_MAXPARTS; ++p)
      if (p < P)
        f += g[p];
  }
  return devo__gpu_fitness(f + devo__cec_bias(ID));
}

/* The barrier between the blocks that share vectors: the cluster's, or the block's alone. */
template <int CL> __device__ __forceinline__ void devo__cecc_sync()
{
  if constexpr (CL > 1)
    cg::this_cluster().sync();
  else
    __syncthreads();
}

/* Where phase B puts a product: the block's own vectors' into zs, the partner's into the
 * partner's zs by st.async, which counts its bytes on the partner's mbarrier, so the partner
 * waits for exactly its products instead of at a cluster barrier (which took about 1,300 cycles
 * per generation in F10's phase profile; without it F08 and F09 measured 2 and 5% faster, F10
 * the same: BENCHMARKS.md). Addresses: 32-bit shared::cluster of the partner (zp: its zs, mbp:
 * its mbarrier). */
struct devo__cecc_out {
  double *zs;
  unsigned zp, mbp;
  int rank, vl;
  __device__ __forceinline__ void put(int v, size_t idx, double val) const
  {
    const unsigned at = zp + 8u * (unsigned)idx;
    if (v / vl == rank)
      zs[idx] = val;
    else
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(at),
          "l"(__double_as_longlong(val)), "r"(mbp)
          : "memory");
  }
};

__device__ __forceinline__ unsigned devo__cecc_saddr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}

/* The partner's address of this block's shared-memory address a (mapa). */
__device__ __forceinline__ unsigned devo__cecc_mapa(unsigned a, int rank)
{
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}

/* This generation's products from the partner: one thread announces the bytes (once per
 * generation, the mbarrier's single arrival), every thread waits for the phase (parity ph). */
__device__ __forceinline__ void devo__cecc_expect(unsigned mb, unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void devo__cecc_await(unsigned mb, unsigned ph)
{
  unsigned done;
  do {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, "
                 "[%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(mb), "r"(ph)
                 : "memory");
  } while (!done);
}

/* Phase B on the tensor cores (third version): D = A B + D by mma.m16n8k4.f64 (sm_90), A = 16 rows
 * of the block's matrix (stored row-major, ms[row][j]), B = 4 coordinates of y of the V vectors
 * (columns V..7 zero), 16 x 4 x 8 multiply-adds per instruction (m8n8k4, the sm_80 shape, was
 * slower than the multiply-adds: F10's phase B 7,275 cycles per generation against 6,338). A
 * tile's 16 rows lie in one component (whose y is B); a tile past the component's end repeats
 * its last row and drops the result. Warp w takes tiles [w tpw, (w + 1) tpw) of the block's,
 * one after another, each as two chains over the two halves of j added at the end (one chain
 * per warp waited for the previous instruction; four chains, two tiles at once sharing y's loads,
 * and loading every fragment of a step before its instructions all measured slower). The sum
 * is in an order of its own, within rounding of the CPU's. The products go to the block that owns
 * the vector, as in the first two versions. Fragments (PTX ISA, mma.m16n8k4 .f64): lane = 4 g + q;
 * A(g + 8 i, q), B(q, g), D(g + 8 (i / 2), 2 q + i % 2). */
#define DEVO__CECC_MMA_M 16
__device__ __forceinline__ void devo__cecc_dmma(double *c, double a0, double a1, double b)
{
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a0), "d"(a1), "d"(b));
}

/* Tile t of the block's rows [r0, r0 + nr), counted component by component: its component c
 * (-1 past the last tile), first row ra and the component's end rb (global row numbers). */
__device__ __forceinline__ void devo__cecc_tile(int t, int d, int C, int r0, int nr, int &c,
                                                int &ra, int &rb)
{
  constexpr int M = DEVO__CECC_MMA_M;
  c = -1;
  ra = rb = r0;
  for (int cc = r0 / d; cc < C && cc * d < r0 + nr; ++cc) {
    const int a0 = max(r0, cc * d), b0 = min(r0 + nr, (cc + 1) * d), nm = (b0 - a0 + M - 1) / M;
    if (t < nm) {
      c = cc;
      ra = a0 + M * t;
      rb = b0;
      return;
    }
    t -= nm;
  }
}

template <int V, int VL>
__device__ __forceinline__ void devo__cecc_mma(int warp, int tpw, int lane, int d, int C, int r0,
                                               int nr, const double *ms, const double *ys, int yl,
                                               const devo__cecc_out &out)
{
  const int g = lane >> 2, q = lane & 3, R = C * d, h = ((d + 7) >> 3) << 2; /* j split at h */
  for (int t = warp * tpw; t < (warp + 1) * tpw; ++t) {
    int c, ra, rb;
    devo__cecc_tile(t, d, C, r0, nr, c, ra, rb);
    if (c < 0)
      return;
    const double *m0 = ms + (size_t)(max(min(ra + g, rb - 1), r0) - r0) * d;
    const double *m1 = ms + (size_t)(max(min(ra + g + 8, rb - 1), r0) - r0) * d;
    const double *yc = ys + ((size_t)c * V + (g < V ? g : 0)) * yl;
    double acc[2][4] = {{0.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}};
    /* unrolled by 7 (13 steps at D = 100): more fragment loads in flight; measured against 1, 2
     * and 4 (BENCHMARKS.md) */
#pragma unroll 7
    for (int j0 = 0; j0 < h; j0 += 4) {
#pragma unroll
      for (int hf = 0; hf < 2; ++hf) {
        const int jj = j0 + hf * h + q;
        const bool in = jj < d;
        devo__cecc_dmma(acc[hf], in ? m0[jj] : 0.0, in ? m1[jj] : 0.0, g < V && in ? yc[jj] : 0.0);
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int v = 2 * q + (k & 1), rr = ra + g + 8 * (k >> 1);
      if (v < V && rr < rb)
        out.put(v, (size_t)(v % VL) * R + rr, acc[0][k] + acc[1][k]);
    }
  }
}

/* The variant kernel's best index: each warp scans the previous generation's fitness itself
 * (gpu_common.cuh: lowest index on ties, the same index in every warp). */
__device__ __forceinline__ int devo__cecc_best(const double *fit, int np)
{
  return devo__gpu_warp_argmin(fit, np);
}

/* A GOBL jump's survivors in the fourth version, after phase C gave fo, the value of the opposite
 * u of this thread's vector: the value is published by a grid barrier, then each warp of the
 * vector (rankw: warp-uniform) ranks the parent and the opposite among the 2 NP candidates and
 * its threads store those among the NP best at their ranks (x or u for coordinate j; lane 0
 * holds the parent's value fi). */
__device__ __forceinline__ void devo__cecc_gobl_select(const devo__gpu_args &a,
                                                       const devo__gpu_vargs &va, uint32_t gen,
                                                       int i, int j, bool rankw, bool act, double x,
                                                       double u, double fi, double fo, double Fi,
                                                       double CRi, unsigned int &nb)
{
  if (act && j == 0)
    va.gf[i] = fo;
  devo__grid_sync_n(a, nb);
  if (!rankw)
    return;
  const bool odd = (gen & 1u) != 0;
  const double fp = __shfl_sync(0xffffffffu, fi, 0);
  int rp, ro;
  devo__gobl_ranks(odd ? a.fit : va.fit1, va.gf, a.np, i, fp, fo, 32, rp, ro);
  if (!act)
    return;
  double *dst = odd ? a.pop1 : a.pop0;
  const size_t d = (size_t)a.dim;
  if (rp < a.np)
    dst[(size_t)rp * d + (size_t)j] = x;
  if (ro < a.np)
    dst[(size_t)ro * d + (size_t)j] = u;
  if (j == 0)
    devo__gobl_keep(a, va, gen, rp, ro, fp, fo, Fi, CRi);
}

/* The kernel body; VAR: the fourth version (a DE variant other than plain rand1bin, one block per
 * VL vectors, CL = 1, no tensor cores), whose state va is kept by generation parity as
 * gpu_vfused.cu keeps it (va is unread without VAR); G (with VAR): GOBL's jumps inside it.
 * blk: with BATCH, the block's index among its trial's blocks (else blockIdx.x is read where it
 * is used: read up front, it moved in the solo kernels' code). BATCH (single blocks, no
 * GOBL): the block belongs to one trial of a batch launch, whose generations end at gen_end, and
 * every trial's blocks share the barrier counter bar (devo__gpu_persist_loop_batch's rule: a
 * trial that ended goes on arriving at the barrier, idle, to the launch's end). */
template <int ID, int VL, int CL, bool MM, bool VAR, bool G, bool BATCH = false>
__device__ __forceinline__ void devo__cecc_body(const devo__gpu_args &a, const devo__gpu_vargs &va,
                                                int blk, uint32_t gen0, uint32_t ngens,
                                                uint32_t gen_end = 0u, unsigned int *bar = NULL)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  static_assert(!VAR || (CL == 1 && !MM), "the variant version runs single blocks only");
  static_assert(VAR || !G, "GOBL's jumps belong to the variant version");
  static_assert(!BATCH || (CL == 1 && !G), "a batch runs single blocks without GOBL's jumps");
  /* the barrier counter, taken where it is used (a copy made here changed the solo kernels' code)
   */
  auto gbar = [&]() -> unsigned int * {
    if constexpr (BATCH)
      return bar;
    else
      return &a.ctl->bar;
  };
  bool idle = false; /* BATCH: the trial ended (its gen_end or its target) */
  constexpr int V = CL * VL;
  const int C = devo__cec_nshift(ID), P = devo__cec_nparts(ID), fam = devo__cec_family(ID);
  const int d = a.dim, lv = (d + 31) & ~31, R = C * d, nt = (int)blockDim.x;
  const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const devo__cecc_lay L = devo__cecc_layout(ID, d, VL, CL, MM);
  double *sm = devo__sm;
  double *ms = sm + L.ms, *ys = sm + L.y, *zs = sm + L.z, *gs = sm + L.g, *ws = sm + L.w,
         *fs = sm + L.f, *us = sm + L.u, *os = sm + L.o, *pb = sm + L.pb, *ecs = sm + L.ec;
  int *shs = (int *)(sm + L.sh);
  int rank = 0;
  devo__cecc_out out = {zs, 0u, 0u, 0, VL};
  const unsigned mb = devo__cecc_saddr(sm + L.mb);
  if constexpr (CL > 1) {
    cg::cluster_group cl = cg::this_cluster();
    rank = (int)cl.block_rank();
    out.rank = rank;
    out.zp = devo__cecc_mapa(devo__cecc_saddr(zs), rank ^ 1);
    out.mbp = devo__cecc_mapa(mb, rank ^ 1);
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mb) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
  }
  /* this block's rows of the stacked matrix: [r0, r0 + nr) */
  const int r0 = rank * L.rh, nr = rank == 0 ? L.rh : R - L.rh;
  const int gw = (L.rh + 31) & ~31; /* threads per group in phase B */
  /* the composition weights: by the last warp during phase B where it has no rows there (they
   * then overlap the product), else beside the terms */
  const int wwarp = (nt >> 5) - 1;
  const bool wts_b = fam == DEVO__CEC_COMPOSITION && (MM ? wwarp > 0 : L.kw * gw <= wwarp * 32);
  /* tensor cores: tiles per warp, over the warps other than the weights' */
  int mma_tpw = 0;
  if constexpr (MM) {
    int c0, ra0, rb0, n8 = 0;
    for (;; ++n8) {
      devo__cecc_tile(n8, d, C, r0, nr, c0, ra0, rb0);
      if (c0 < 0)
        break;
    }
    const int nw = wts_b ? wwarp : nt >> 5;
    mma_tpw = (n8 + nw - 1) / nw;
  }
  /* phase A: thread = (vector vl, coordinate j); in a pair, threads [VL lv, 2 VL lv) build the
   * partner's trials too (the same draws and donors, so the partner's bit for bit): no trial
   * crosses SMs and phase A needs no cluster barrier */
  const int vl = tid / lv, j = tid % lv;
  const bool own = (vl < VL), peer = (CL > 1) && !own && vl < 2 * VL && j < d;
  const int i = own ? (BATCH ? blk : (int)blockIdx.x) * VL + vl
                    : ((BATCH ? blk : (int)blockIdx.x) - rank + (rank ^ 1)) * VL + vl - VL;
  const int vc = own ? rank * VL + vl : (rank ^ 1) * VL + (vl - VL);
  const bool mine = own && j < d, act = mine && i < a.np, build = (mine || peer) && i < a.np;
  const size_t row = (size_t)(act ? i : 0) * (size_t)d;
  int hs[DEVO__CEC_MAXPARTS] = {0}, hn[DEVO__CEC_MAXPARTS] = {0};
  if (fam == DEVO__CEC_HYBRID)
    devo__cec_hybrid_groups(ID, d, hs, hn); /* the host checked that every group is non-empty */

  for (int q = tid; q < L.rh * d; q += nt) {
    const int jj = q / L.rh, rl = q % L.rh, r = r0 + rl;
    /* [j][row] for the multiply-adds (a warp's rows at consecutive addresses), [row][j] for the
     * tensor cores (a fragment's 4 rows x 4 j at d = 100: 16 distinct banks) */
    ms[MM ? (size_t)rl * d + jj : (size_t)q] =
        rl < nr ? __ldg(a.rott + (size_t)(r / d) * d * d + (size_t)jj * d + (r % d)) : 0.0;
  }
  if (fam == DEVO__CEC_HYBRID)
    for (int q = tid; q < d; q += nt)
      shs[q] = a.v.shuffle[q];
  /* the elliptic part's coefficients depend on the position only: computed once here, not in
   * every generation's terms; its terms come last in phase C (ecq), where the element count is
   * not a multiple of the threads' (F09 in pairs: 800 elements, 768 threads), so that the
   * threads with a second element take a cheap one */
  const int pe = devo__cecc_ellips_part(ID);
  int ecq = 0;
  if (pe >= 0) {
    int st, n;
    double s;
    devo__cecc_part<ID>(pe, d, hs, hn, st, n, s);
    for (int q = tid; q < n; q += nt)
      ecs[q] = devo__cec_ellips_coef(q, n);
    ecq = (st + n) % R;
  }
  if (CL > 1 || fam == DEVO__CEC_COMPOSITION)
    for (int q = tid; q < R; q += nt)
      os[q] = a.v.shift[q];
  double x = 0.0, fi = 0.0, o[DEVO__CEC_MAXPARTS];
  /* VAR: the run's variant (its switches stay run-time: one coordinate per thread leaves the
   * registers for it), the vector's jDE F_i, CR_i, and its draws */
  const devo__variant var = va.var;
  double Fi = a.f, CRi = a.cr;
  devo__var_ind vd;
  devo__de_u vu = {0.0, 0.0};
  if constexpr (VAR)
    memset(&vd, 0, sizeof vd);
  {
    const double *cur = (gen0 & 1u) ? a.pop1 : a.pop0;
    if (act) {
      x = cur[row + j];
      if constexpr (VAR) {
        fi = ((gen0 & 1u) ? va.fit1 : a.fit)[i];
        if (var.jde) {
          Fi = ((gen0 & 1u) ? va.F1 : va.F0)[i];
          CRi = ((gen0 & 1u) ? va.CR1 : va.CR0)[i];
        }
      } else {
        fi = a.fit[i];
      }
    }
#pragma unroll
    for (int k = 0; k < DEVO__CEC_MAXPARTS; ++k)
      o[k] = !MM && k < C && j < d ? a.v.shift[(size_t)k * d + j] : 0.0; /* MM: from os */
  }
  devo__de_idx r = {0u, 0u, 0u, 0u};
  bool take[1];
  double ub[1];
  /* VAR: devo__var_draw and the coordinate's uniforms (the exponential crossover's only inside
   * its run, where they are read) */
  auto vdraw = [&](uint32_t gen) {
    take[0] = false;
    ub[0] = 0.0;
    if (!build)
      return;
    vd = devo__var_draw(&var, a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)d, Fi, CRi);
    if (var.crossover == DEVO__XOVER_EXP) {
      if (devo__exp_take((uint32_t)j, vd.jrand, vd.len, (uint32_t)d)) {
        vu = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
        take[0] = true;
      }
    } else {
      vu = devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
      take[0] = devo__var_take(&var, &vd, vu, (uint32_t)j, (uint32_t)d) != 0;
    }
  };
  /* VAR: whether this generation is a GOBL jump (devo__gpu_vpersist_loop's rule: no draws for
   * it; after it the vector is reloaded, and with jDE drawn only then) */
  bool jmp = false;
  devo__gobl_sched js;
  js.init(gen0 + 1u);
  if constexpr (VAR) {
    jmp = G && js.at(a, var.gobl, gen0 + 1u);
    if (!jmp)
      vdraw(gen0 + 1u);
  } else {
    devo__gpu_draw<1>(a, gen0 + 1u, i, j, build, r, take, ub);
  }
  unsigned int nb = 0;   /* grid barriers passed */
  devo__cecc_sync<CL>(); /* the matrix is staged; the partner has started (its shared memory may
                            be written) */

  /* devo__gpu_persist_loop's loop, written out: with this body as its step lambda F08 and F09
   * measured 1% slower (H100, 2026-11-22: 55.5 against 54.8 ms, 62.5 against 62.1 at 2M
   * evaluations, two runs each) */
  for (uint32_t k = 1; k <= ngens; ++k) {
    const uint32_t gen = gen0 + k;
    if constexpr (BATCH) {
      if (idle) { /* (the whole block alike) only the barrier, for the other trials */
        if (k == ngens)
          break;
        ++nb;
        devo__grid_arrive(gbar());
        devo__grid_wait(gbar(), nb * gridDim.x, false);
        continue;
      }
    }
    const double *src = (gen & 1u) ? a.pop0 : a.pop1;
    double *dst = (gen & 1u) ? a.pop1 : a.pop0;
    /* ---- A: the trials, into u of this block (a pair: of the cluster's V vectors), then
     * y_c = s_c (u - o_c) of every component for them ---- */
    if constexpr (CL > 1)
      if (peer && build)
        x = src[(size_t)i * d + j]; /* the partner's parent */
    double u = x;
    if constexpr (G) {
      if (jmp) {
        /* a GOBL jump: the box of generation gen - 1 by the grid's warps, then the opposite of
         * the vector, evaluated below as a trial is */
        double kj;
        devo__gobl_jump(a.seed, gen, var.gobl, &kj);
        devo__gobl_box_warps(a, va, src);
        devo__grid_sync_n(a, nb);
        if (act)
          u = devo__gobl_opposite(a.seed, gen, (uint32_t)i, (uint32_t)j, kj, va.gbox[j],
                                  va.gbox[(size_t)d + j], x, a.v.lower, a.v.upper);
      }
    }
    if constexpr (VAR) {
      /* the CPU's call (de_variant.h): the mutant from the donors' (and the best's) coordinate j
       * where the crossover takes it, repaired */
      const bool ub_ = devo__strategy_uses_best(var.strategy) != 0;
      const int best = ub_ && !jmp ? devo__cecc_best((gen & 1u) ? a.fit : va.fit1, a.np) : 0;
      if (take[0] && !jmp) {
        const int picks = devo__strategy_picks(var.strategy);
        double xs[DEVO__MAX_PICKS];
#pragma unroll
        for (int q = 0; q < DEVO__MAX_PICKS; ++q)
          xs[q] = q < picks ? src[(size_t)vd.r[q] * d + j] : 0.0;
        const double xb = ub_ ? src[(size_t)best * d + j] : 0.0;
        u = devo__var_trial_u(&var, &vd, vu, (uint32_t)j, (uint32_t)d, x, xb, xs, a.v.lower,
                              a.v.upper, a.bounds);
      }
    } else if (take[0]) {
      u = devo__de_mutant(x, src[(size_t)r.r1 * d + j], src[(size_t)r.r2 * d + j],
                          src[(size_t)r.r3 * d + j], a.f, a.v.lower, a.v.upper, a.bounds, ub[0]);
    }
    if ((mine || peer) && (CL > 1 || fam == DEVO__CEC_COMPOSITION)) /* u: y, distances */
      us[(size_t)j * V + vc] = u;
    if constexpr (CL > 1 && !MM) {
      __syncthreads();
      /* y of the cluster's V vectors, thread t = (j, v) with v fastest, so that consecutive lanes
       * read u and write y at consecutive addresses (thread = (v, j) wrote with a stride of V
       * doubles: 8-way bank conflicts at V = 4) */
      for (int t = tid; t < V * d; t += nt) {
        const int jj = t / V;
        const double uu = us[t];
#pragma unroll
        for (int c = 0; c < DEVO__CEC_MAXPARTS; ++c) {
          if (c >= C)
            break;
          ys[(size_t)c * d * V + t] =
              __dmul_rn(__dsub_rn(uu, os[(size_t)c * d + jj]), devo__cec_pre_scale(ID, c));
        }
      }
    } else if (mine || peer) {
      /* y of the thread's trial from the registers: one block, or the tensor cores' layout (rows
       * of j, so consecutive lanes write consecutive addresses; in a pair this replaced a pass
       * over u after a block barrier) */
#pragma unroll
      for (int c = 0; c < DEVO__CEC_MAXPARTS; ++c) {
        if (c >= C)
          break;
        ys[MM ? ((size_t)c * V + vc) * L.yl + j : ((size_t)c * d + j) * V + vc] =
            __dmul_rn(__dsub_rn(u, MM ? os[(size_t)c * d + j] : o[c]), devo__cec_pre_scale(ID, c));
      }
    }
    __syncthreads();
    /* ---- B: this block's rows of the stacked matrix times the cluster's vectors: kw groups of
     * whole warps, group g summing its contiguous share of j in order for every row (thread =
     * row, so each y read is a broadcast and each matrix read is consecutive); with kw > 1 the
     * partials are added in group order afterwards ---- */
    if (CL > 1 && tid == 0) /* the partner's products for this block's VL vectors */
      devo__cecc_expect(mb, (unsigned)((R - nr) * VL * sizeof(double)));
    if (wts_b && warp == wwarp)
      devo__cecc_weights<ID, VL, V>(lane, d, us, rank * VL, os, ws);
    if constexpr (MM)
      devo__cecc_mma<V, VL>(warp, mma_tpw, lane, d, C, r0, nr, ms, ys, L.yl, out);
    for (int t = tid; !MM && t < L.kw * gw; t += nt) {
      const int grp = t / gw, rl = t % gw;
      const bool ok = rl < nr;
      const int rr = r0 + (ok ? rl : 0), c = rr / d;
      const int j0 = grp * d / L.kw, j1 = (grp + 1) * d / L.kw;
      const double *yc = ys + (size_t)c * d * V, *mr = ms + (ok ? rl : 0);
      double acc[V];
#pragma unroll
      for (int v = 0; v < V; ++v)
        acc[v] = 0.0;
      devo__cecc_dot<V>(mr, L.rh, yc, j0, j1, acc);
      if (ok) {
#pragma unroll
        for (int v = 0; v < V; ++v) {
          if (L.kw == 1)
            out.put(v, (size_t)(v % VL) * R + rr, acc[v]);
          else
            pb[((size_t)grp * L.rh + rl) * V + v] = acc[v];
        }
      }
    }
    if (L.kw > 1) {
      __syncthreads();
      for (int q = tid; q < nr * V; q += nt) {
        const int rl2 = q / V, v = q % V;
        double acc = pb[(size_t)rl2 * V + v];
        for (int g2 = 1; g2 < L.kw; ++g2)
          acc += pb[((size_t)g2 * L.rh + rl2) * V + v];
        out.put(v, (size_t)(v % VL) * R + r0 + rl2, acc);
      }
    }
    __syncthreads(); /* this block's products */
    if constexpr (CL > 1)
      devo__cecc_await(mb, (k - 1u) & 1u); /* the partner's: one mbarrier phase per generation */
    /* ---- C: element terms of every part of this block's vectors, into the y area ---- */
    double *ta = ys, *tb = ys + (size_t)VL * R;
    /* every part of every vector in one pass, one thread per element (the parts one after
     * another kept most threads idle, and each thread's elements in series are a chain of
     * dependent double operations); a warp diverges only where a part boundary cuts it */
    for (int q = tid; q < VL * R; q += nt) {
      const int w = q / R, er = q % R + ecq, e = er < R ? er : er - R;
      const double *z = zs + (size_t)w * R;
      double ea = 0.0, eb = 0.0;
#pragma unroll
      for (int p = 0; p < DEVO__CEC_MAXPARTS; ++p) {
        if (p >= P)
          break;
        int st, n;
        double s;
        devo__cecc_part<ID>(p, d, hs, hn, st, n, s);
        if (e < st || e >= st + n)
          continue;
        const int l = e - st, en = st + (l + 1 == n ? 0 : l + 1);
        const double zi = fam == DEVO__CEC_HYBRID ? s * z[shs[e]] : z[e];
        const double zn = fam == DEVO__CEC_HYBRID ? s * z[shs[en]] : z[en];
        if (p == pe)
          ea = devo__cec_ellips_term(ecs[l], zi); /* devo__cec_elem's, bit for bit */
        else
          devo__cec_elem(devo__cec_part_fn(ID, p), l, n, zi, zn, &ea, &eb);
      }
      ta[(size_t)w * R + e] = ea;
      tb[(size_t)w * R + e] = eb;
    }
    static_assert(DEVO__CECC_MAX_VL * DEVO__CEC_MAXPARTS <= 32, "one lane per weight");
    if (fam == DEVO__CEC_COMPOSITION && !wts_b && warp == wwarp)
      devo__cecc_weights<ID, VL, V>(lane, d, us, rank * VL, os, ws);
    __syncthreads();
    /* the parts' sums and g, then the vector's value. Functions of at most 4 parts that are not
     * hybrids (F01..F04, F08, F09): one warp per vector folds, reduces and finishes every part
     * side by side (independent chains), then combines, with no block barrier between; the
     * others (F05..F07, F10): one warp per (vector, part), then one thread per vector after a
     * block barrier (the per-vector warp measured 2 to 5% slower there, 2 to 7% faster for the
     * rest: BENCHMARKS.md). Both fold, reduce and add in the same order. */
    if (fam != DEVO__CEC_HYBRID && P <= 4) {
      for (int w = warp; w < VL; w += nt >> 5) {
        double A[DEVO__CEC_MAXPARTS], B[DEVO__CEC_MAXPARTS];
        int n[DEVO__CEC_MAXPARTS], mode[DEVO__CEC_MAXPARTS];
#pragma unroll
        for (int p = 0; p < DEVO__CEC_MAXPARTS; ++p) {
          if (p >= P)
            break;
          int st;
          double s;
          devo__cecc_part<ID>(p, d, hs, hn, st, n[p], s);
          mode[p] = devo__cec_bmode(devo__cec_part_fn(ID, p));
          A[p] = 0.0;
          B[p] = mode[p] == DEVO__CEC_B_PROD ? 1.0 : 0.0;
          devo__cecc_fold_lane(lane, n[p], mode[p], ta + (size_t)w * R + st,
                               tb + (size_t)w * R + st, A[p], B[p]);
        }
#pragma unroll
        for (int p = 0; p < DEVO__CEC_MAXPARTS; ++p) {
          if (p >= P)
            break;
          A[p] = devo__warp_reduce<DEVO__RED_SUM>(A[p]);
          /* the other modes leave B 0 in every lane: not reduced (the same branches where the
           * mode varies at run time, the warp per part below, measured 5% slower on F05) */
          if (mode[p] == DEVO__CEC_B_PROD)
            B[p] = devo__warp_reduce<DEVO__RED_PROD>(B[p]);
          else if (mode[p] == DEVO__CEC_B_SUM)
            B[p] = devo__warp_reduce<DEVO__RED_SUM>(B[p]);
        }
        if (lane == 0) {
          double g[DEVO__CEC_MAXPARTS];
#pragma unroll
          for (int p = 0; p < DEVO__CEC_MAXPARTS; ++p)
            g[p] = p < P ? devo__cecc_g<ID>(p, n[p], A[p], B[p]) : 0.0;
          fs[w] = devo__cecc_value<ID>(g, ws + w * DEVO__CEC_MAXPARTS);
        }
      }
      __syncthreads();
    } else {
      /* one warp per (vector, part): its terms, then g of the part; one copy of the loop for every
       * part (unrolled per part it was ten copies, cold in the instruction cache) */
      for (int sg = warp; sg < VL * P; sg += nt >> 5) {
        const int w = sg / P, p = sg % P;
        int st = 0, n = d, mode = DEVO__CEC_B_NONE;
        double s;
        /* the part's constants by selects on p, not a switch on it (nvcc made jump tables) */
#pragma unroll
        for (int k2 = 0; k2 < DEVO__CEC_MAXPARTS; ++k2)
          if (k2 < P && k2 == p) {
            devo__cecc_part<ID>(k2, d, hs, hn, st, n, s);
            mode = devo__cec_bmode(devo__cec_part_fn(ID, k2));
          }
        double A = 0.0, B = mode == DEVO__CEC_B_PROD ? 1.0 : 0.0;
        if (fam == DEVO__CEC_COMPOSITION) {
          /* F10: the loads of the whole part in flight, then the butterflies of A and B side by
           * side (the same bits); 3% faster there, 1 to 4% slower for the hybrids
           * (BENCHMARKS.md) */
          devo__cecc_fold_lane(lane, n, mode, ta + (size_t)w * R + st, tb + (size_t)w * R + st, A,
                               B);
          devo__warp_reduce2(A, B, mode == DEVO__CEC_B_PROD);
        } else {
          for (int l = lane; l < n; l += 32) {
            const size_t e = (size_t)w * R + st + l;
            devo__cec_fold(mode, ta[e], tb[e], &A, &B);
          }
          A = devo__warp_reduce<DEVO__RED_SUM>(A);
          B = mode == DEVO__CEC_B_PROD ? devo__warp_reduce<DEVO__RED_PROD>(B)
                                       : devo__warp_reduce<DEVO__RED_SUM>(B);
        }
        if (lane == 0) {
          double g = 0.0;
#pragma unroll
          for (int k2 = 0; k2 < DEVO__CEC_MAXPARTS; ++k2)
            if (k2 < P && k2 == p)
              g = devo__cecc_g<ID>(k2, n, A, B);
          gs[w * DEVO__CEC_MAXPARTS + p] = g;
        }
      }
      __syncthreads();
      if (tid < VL)
        fs[tid] =
            devo__cecc_value<ID>(gs + tid * DEVO__CEC_MAXPARTS, ws + tid * DEVO__CEC_MAXPARTS);
      __syncthreads();
    }
    /* ---- replacement ---- */
    if (G && jmp) {
      devo__cecc_gobl_select(a, va, gen, i, j, vl < VL && i < a.np, act, x, u, fi,
                             vl < VL ? fs[vl] : 0.0, Fi, CRi, nb);
    } else if (act) {
      const double ft = fs[vl];
      if constexpr (VAR) {
        /* every generation writes the vector's fitness, F and CR into its parity's buffers */
        if (ft <= fi) { /* the CPU's rule: the trial wins ties */
          x = u;
          fi = ft;
          Fi = vd.f;
          CRi = vd.cr;
        }
        if (j == 0) {
          ((gen & 1u) ? va.fit1 : a.fit)[i] = fi;
          if (var.jde) {
            ((gen & 1u) ? va.F1 : va.F0)[i] = Fi;
            ((gen & 1u) ? va.CR1 : va.CR0)[i] = CRi;
          }
        }
      } else if (ft <= fi) { /* the CPU's rule: the trial wins ties */
        x = u;
        fi = ft;
        if (j == 0)
          a.fit[i] = ft;
      }
      dst[row + j] = x;
      if (j == 0)
        devo__gpu_note_target(a, fi, gen);
    }
    if (k == ngens)
      break; /* the end of the kernel is the last barrier */
    ++nb;
    devo__grid_arrive(gbar());
    bool jn = false;
    if constexpr (VAR) {
      jn = G && js.at(a, var.gobl, gen + 1u);
      if (!jn && !(jmp && var.jde)) /* jDE's draws read F_i, CR_i: after a jump's reload */
        vdraw(gen + 1u);
    } else {
      devo__gpu_draw<1>(a, gen + 1u, i, j, build, r, take, ub);
    }
    devo__grid_wait(gbar(), nb * gridDim.x, false);
    if constexpr (BATCH)
      idle = gen == gen_end || devo__gpu_stopped(a, gen);
    else if (devo__gpu_stopped(a, gen))
      break;
    if constexpr (G) {
      if (jmp) { /* the vector of this row after the jump (another candidate's, by rank) */
        if (act) {
          x = dst[row + j];
          devo__var_state_load(a, va, gen, i, var.jde, fi, Fi, CRi);
        }
        if (!jn && var.jde)
          vdraw(gen + 1u);
      }
    }
    if constexpr (VAR)
      jmp = jn;
  }
  if constexpr (CL > 1)
    devo__cecc_sync<CL>(); /* no block leaves while its partner may still address its memory */
#endif
}

template <int ID, int VL, int CL, bool MM>
__global__ void __launch_bounds__(devo__cecc_tpc(ID, CL) * DEVO__CECC_MAX_VL * DEVO__CECC_MAX_D, 1)
    devo__k_cecc(devo__gpu_args a, uint32_t gen0, uint32_t ngens)
{
  devo__gpu_vargs none;
  memset(&none, 0, sizeof none); /* unread */
  devo__cecc_body<ID, VL, CL, MM, false, false>(a, none, 0, gen0, ngens);
}

/* The fourth version: every DE variant of de_variant.h (not GOBL's jumps, which run between the
 * chunks) for the single-matrix functions F01..F07 in one block. A launch after the generation
 * that reached the target (an earlier launch of the host's chunk, before a GOBL jump) does
 * nothing. */
template <int ID, int VL, bool G>
__global__ void __launch_bounds__(devo__cecc_tpc(ID, 1) * DEVO__CECC_MAX_VL * DEVO__CECC_MAX_D, 1)
    devo__k_ceccv(devo__gpu_args a, devo__gpu_vargs va, uint32_t gen0, uint32_t ngens)
{
  if (devo__gpu_stopped(a, gen0))
    return;
  devo__cecc_body<ID, VL, 1, false, true, G>(a, va, 0, gen0, ngens);
}

/* The batch kernel of the second version (VAR = false: rand1bin) and of the fourth (VAR: a
 * variant without GOBL), two vectors per block, for devo__gpu_batch_launch: trial t = blockIdx.x
 * / bpt runs with its slot's arguments, generations slot gen0 + 1 .. gen_end, all trials behind
 * one barrier; each trial's blocks stage its matrix as its solo launch does. */
template <int ID, bool VAR>
__global__ void __launch_bounds__(devo__cecc_tpc(ID, 1) * DEVO__CECC_MAX_VL * DEVO__CECC_MAX_D, 1)
    devo__k_ceccb(devo__gpu_batch b, uint32_t ngens)
{
  const int t = (int)blockIdx.x / b.bpt;
  const devo__gpu_bslot *sl = b.slot + t;
  const devo__gpu_args a = sl->a;
  const devo__gpu_vargs va = sl->va;
  devo__cecc_body<ID, 2, 1, false, VAR, false, true>(a, va, (int)blockIdx.x - t * b.bpt, sl->gen0,
                                                     ngens, sl->gen_end, b.bar);
}

/* ---- host side --------------------------------------------------------------------------- */

template <int VL, int CL> static const void *devo__cecc_kernel(int id, bool mm)
{
  if (mm) /* the tensor-core version: compositions only */
    return id == 8    ? (const void *)devo__k_cecc<8, VL, CL, true>
           : id == 9  ? (const void *)devo__k_cecc<9, VL, CL, true>
           : id == 10 ? (const void *)devo__k_cecc<10, VL, CL, true>
                      : NULL;
  switch (id) {
#define DEVO__CECC_CASE(ID)                                                                        \
  case ID:                                                                                         \
    return (const void *)devo__k_cecc<ID, VL, CL, false>;
    DEVO__CECC_CASE(1)
    DEVO__CECC_CASE(2)
    DEVO__CECC_CASE(3)
    DEVO__CECC_CASE(4)
    DEVO__CECC_CASE(5)
    DEVO__CECC_CASE(6)
    DEVO__CECC_CASE(7)
    DEVO__CECC_CASE(8)
    DEVO__CECC_CASE(9)
    DEVO__CECC_CASE(10)
#undef DEVO__CECC_CASE
  default:
    return NULL;
  }
}

template <int VL, bool G> static const void *devo__ceccv_kernel(int id)
{
  switch (id) {
#define DEVO__CECCV_CASE(ID)                                                                       \
  case ID:                                                                                         \
    return (const void *)devo__k_ceccv<ID, VL, G>;
    DEVO__CECCV_CASE(1)
    DEVO__CECCV_CASE(2)
    DEVO__CECCV_CASE(3)
    DEVO__CECCV_CASE(4)
    DEVO__CECCV_CASE(5)
    DEVO__CECCV_CASE(6)
    DEVO__CECCV_CASE(7)
#undef DEVO__CECCV_CASE
  default:
    return NULL;
  }
}

const void *devo__gpu_cecc_batch_kernel(int id, const devo__gpu_fast_cfg *cfg)
{
  switch (id) {
#define DEVO__CECCB_CASE(ID)                                                                       \
  case ID:                                                                                         \
    if (cfg->kern == (const void *)devo__k_cecc<ID, 2, 1, false>)                                  \
      return (const void *)devo__k_ceccb<ID, false>;                                               \
    return cfg->kern == (const void *)devo__k_ceccv<ID, 2, false>                                  \
               ? (const void *)devo__k_ceccb<ID, true>                                             \
               : NULL;
    DEVO__CECCB_CASE(1)
    DEVO__CECCB_CASE(2)
    DEVO__CECCB_CASE(3)
    DEVO__CECCB_CASE(4)
    DEVO__CECCB_CASE(5)
    DEVO__CECCB_CASE(6)
    DEVO__CECCB_CASE(7)
#undef DEVO__CECCB_CASE
  default:
    return NULL;
  }
}

/* Whether the kernel of (vl, cl, mm) applies and every block (cluster) is co-resident; fills
 * cfg. var: the variant version (cl = 1, !mm, F01..F07). */
static cudaError_t devo__cecc_try(int id, int d, int np, int vl, int cl, bool mm, bool var,
                                  const cudaDeviceProp *p, devo__gpu_fast_cfg *cfg, int *ok)
{
  const int groups = (np + cl * vl - 1) / (cl * vl);
  const devo__cecc_lay L = devo__cecc_layout(id, d, vl, cl, mm);
  const size_t smem = (size_t)L.total * sizeof(double);
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute at[2];
  int active = 0;
  *ok = 0;
  if (smem > (size_t)p->sharedMemPerBlockOptin)
    return cudaSuccess;
  if (var && cfg->gobl)
    cfg->kern = vl == 1 ? devo__ceccv_kernel<1, true>(id) : devo__ceccv_kernel<2, true>(id);
  else if (var)
    cfg->kern = vl == 1 ? devo__ceccv_kernel<1, false>(id) : devo__ceccv_kernel<2, false>(id);
  else
    cfg->kern = cl > 1
                    ? (vl == 1 ? devo__cecc_kernel<1, 2>(id, mm) : devo__cecc_kernel<2, 2>(id, mm))
                    : (vl == 1 ? devo__cecc_kernel<1, 1>(id, mm) : devo__cecc_kernel<2, 1>(id, mm));
  if (!cfg->kern)
    return cudaSuccess;
  cfg->lanes = (d + 31) & ~31;
  cfg->c = 1;
  cfg->vpb = vl;
  cfg->threads = devo__cecc_tpc(id, cl) * vl * cfg->lanes;
  cfg->blocks = groups * cl;
  cfg->smem = smem;
  cfg->cluster = cl;
  cfg->mma = mm;
  /* the kernel's body is sm_90 code only: a build whose code for this device came from older
   * PTX has an empty kernel here, which would "run" without changing anything (found in
   * review) */
  cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes(&fa, cfg->kern);
  if (e != cudaSuccess || fa.ptxVersion < 90)
    return e;
  e = devo__gpu_smem_max(cfg->kern, p);
  if (e != cudaSuccess)
    return e;
  if (cl > 1) {
    devo__gpu_fast_launch_cfg(cfg, 0, &lc, at, 0);
    e = cudaOccupancyMaxActiveClusters(&active, cfg->kern, &lc);
  } else {
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, cfg->kern, cfg->threads, smem);
    active *= p->multiProcessorCount;
  }
  /* one vector per thread group for the whole chunk: every block (cluster) must be co-resident */
  *ok = e == cudaSuccess && active >= groups;
  return e;
}

cudaError_t devo__gpu_cecc_plan(const devo__pview *v, const devo__variant *var, int np, int want,
                                const cudaDeviceProp *p, devo__gpu_fast_cfg *cfg, int *ok)
{
  int dev = 0, cluster = 0, hs[DEVO__CEC_MAXPARTS], hn[DEVO__CEC_MAXPARTS];
  *ok = 0;
  const int d = v->dim, id = v->cec_id;
  if (v->kind != DEVO__P_CEC || id < 1 || id > 10 || d < 2 || d > DEVO__CECC_MAX_D || np < 4 ||
      p->major < 9 || !p->cooperativeLaunch)
    return cudaSuccess;
  /* the variant version: single blocks of the single-matrix functions F01..F07 */
  if (var && (id > 7 || devo__cec_nshift(id) != 1 || np < devo__strategy_min_np(var->strategy)))
    return cudaSuccess;
  if (devo__cec_family(id) == DEVO__CEC_HYBRID && !devo__cec_hybrid_groups(id, d, hs, hn))
    return cudaSuccess;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, dev);
  if (e != cudaSuccess || !cluster)
    return e;
  /* one block holding every matrix first (no distributed shared memory, no cluster barriers),
   * two vectors per block before one (each matrix read serves both); then the pairs, one vector
   * per block first (the measured order of the first version) */
  static const int order[4][2] = {{2, 1}, {1, 1}, {1, 2}, {2, 2}};
  cfg->gobl = devo__gpu_gobl_inside(var, want);
  /* phase B on the tensor cores for the compositions (third version) unless asked otherwise */
  const bool mm = devo__cec_nshift(id) > 1 && !(want & DEVO__GPU_CEC_FMA);
  for (int t = 0; t < 4; ++t) {
    const int vl = order[t][0], cl = order[t][1];
    if ((cl == 1 && (want & DEVO__GPU_CEC_PAIR)) || (vl == 2 && (want & DEVO__GPU_CEC_VL1)) ||
        (var && cl > 1))
      continue;
    e = devo__cecc_try(id, d, np, vl, cl, mm && !var, var != NULL, p, cfg, ok);
    if (e != cudaSuccess || *ok)
      return e;
  }
  return cudaSuccess;
}
