/* SPDX-License-Identifier: MIT */
/* gpu_etc.cu: the persistent generation kernel for ETC scheduling with one warp per schedule
 * (issue 5's throughput case: 512x16 FCFS at NP = 1024).
 *
 * Versions (kernels/gpu_backend.cu picks one; BENCHMARKS.md has the measurements):
 *   devo__k_persist<ETC>   gpu_fused.cu: one block per schedule, etc_device.cuh's block
 *                          evaluators (about ten block barriers per schedule), the ETC matrix
 *                          staged only when the population fits one resident wave with it;
 *                          always selectable (DEVO__GPU_ETC_BLOCK and the other block options).
 *   devo__k_etcw1<C>       this file, version 1: a warp owns schedule i for the whole chunk
 *                          (x_i, f(x_i), its crossover draws in registers, as gpu_fast.cu does
 *                          for the classic functions), C = ceil(n / 32) rounded to 4, 8 or 16
 *                          tasks per lane (task t = lane + 32 c); up to 8 schedules per block
 *                          share the ETC matrix, staged in shared memory once per chunk. FCFS,
 *                          m <= 32, n <= 512 only. Runs where version 2's shared memory does
 *                          not fit (8 schedules per block on an H100: m = 32 beyond 346 tasks,
 *                          m = 24 beyond 446), and with DEVO__GPU_ETC_WARP1.
 *   devo__k_etcw<C, 1>     version 2 (below): the same schedule per warp and the same bits,
 *                          straight-line phases, parent and trial in shared memory; 31% faster
 *                          than version 1 at 512x16 NP = 1024 (H100). The default where a warp
 *                          kernel applies with at least 2 schedules per block (where it
 *                          measured faster than the block evaluator: 512x16 NP = 256, 1024)
 *                          and version 3 does not, else with DEVO__GPU_ETC_WARP; where version 3
 *                          would run, with DEVO__GPU_ETC_SOLO.
 *   devo__k_etcw<C, 2>     version 3: version 2's code on two warps per schedule, each with half
 *                          the coordinates (C = 4 or 8), three named barriers of the pair per
 *                          evaluation; twice the warps to cover the same chains: 9% faster than
 *                          version 2 at 512x16 NP = 1024, 35% at NP = 256 (H100). The default
 *                          where version 2 would take 8 or 16 coordinates per lane (n > 128)
 *                          and its shared memory fits, also with one schedule per block.
 *
 * The evaluation keeps problems/etc.h's order exactly: completion(j) and F_j are left folds
 * over machine j's tasks in index order, so they are computed by one lane per machine walking a
 * contiguous, index-ordered copy of its ETC values (lane j adds what the CPU adds, in the CPU's
 * order); no regrouping, since a tree over a machine's tasks would change the bits. Building the
 * copy needs no block barrier: per chunk of 32 tasks, warp votes (version 1: ballots on the
 * machine number's bits, versions 2 and 3: __match_any_sync) give each task its rank among the
 * chunk's tasks of its machine, the group leaders write the chunk's count per machine,
 * and after one __syncwarp lane j turns its column of counts into positions (a prefix over
 * chunks plus the machine's offset, a shuffle scan over the lanes). The makespan is a max
 * (exact in any order); the flowtime F_0 + F_1 + ... is added in machine order by every lane.
 * Every barrier inside the evaluation is a __syncwarp (version 3: the pair's named barrier). */
#include "gpu_common.cuh"

extern __shared__ double devo__sm[];

#define DEVO__ETCW_MAX_WARPS 8  /* schedules per block: NP = 1024 fills 128 of 132 SMs */
#define DEVO__ETCW_MAX_M     32 /* one lane per machine */
#define DEVO__ETCW_MAX_N     512

/* Inclusive prefix sum of v over the warp's lanes (every lane calls it). */
__device__ __forceinline__ int devo__etcw_scan(int v, int lane)
{
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int u = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d)
      v += u;
  }
  return v;
}

/* Objective of the trial t (task lane + 32 c in t[c]) by the whole warp; every lane gets it.
 * stage: the ETC matrix with row stride ms (odd, so that a chunk's gathers spread over the
 * banks); sev: n doubles, cnt: C * m ints of this warp's shared memory; w: W_lane (lane < m). */
template <int C>
__device__ __forceinline__ double devo__etcw1_eval(const devo__gpu_args &a, const double (&t)[C],
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
  const int incl = devo__etcw_scan(tot, lane);
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

/* Every version's chunk: stages the ETC matrix (row stride ms), draws generation gen0 + 1's
 * numbers, then runs devo__gpu_persist_loop (which draws each next generation's while the block
 * waits at the grid barrier; drawn instead while the donors load, version 2's measured 20%
 * slower, BENCHMARKS.md). Every thread of the block calls it. */
template <class Step, class Draw>
__device__ __forceinline__ void devo__etcw_chunk(const devo__gpu_args &a, double *stage, int ms,
                                                 uint32_t gen0, uint32_t ngens, Step &step,
                                                 Draw &draw)
{
  const int n = a.dim, m = a.v.nmach;
  for (int k = (int)threadIdx.x; k < n * m; k += (int)blockDim.x)
    stage[(k / m) * ms + k % m] = __ldg(a.v.etc + k);
  draw(gen0 + 1u);
  __syncthreads(); /* the staged matrix */
  devo__gpu_persist_loop(a, gen0, ngens, step, draw);
}

/* Where every version's kernel starts, with k warps per schedule and c coordinates per lane:
 * block b's warp w (sched = w / k, h = w % k) owns coordinates j0 + lane + 32 c' (j0 = 32 c h) of
 * schedule i = b vpb + sched (active: i < NP) for the whole chunk, row is its offset in a
 * population buffer; dynamic shared memory begins with the staged ETC matrix (row stride ms) and
 * every schedule's n doubles of sev, then each version's own areas (after); w: W_lane (lane <
 * m). */
struct devo__etcw_own {
  int n, m, ms, warp, lane, sched, h, j0, i;
  bool active;
  size_t row;
  double *stage, *sev, *after;
  double w;
};

__device__ __forceinline__ devo__etcw_own devo__etcw_owner(const devo__gpu_args &a, int k, int c)
{
  devo__etcw_own o;
  o.n = a.dim;
  o.m = a.v.nmach;
  o.ms = o.m | 1;
  o.warp = (int)threadIdx.x >> 5;
  o.lane = (int)threadIdx.x & 31;
  o.sched = o.warp / k;
  o.h = o.warp % k;
  o.j0 = 32 * c * o.h;
  o.i = (int)blockIdx.x * a.vpb + o.sched;
  o.active = o.i < a.np;
  o.row = (size_t)(o.active ? o.i : 0) * (size_t)o.n;
  o.stage = devo__sm;
  o.sev = devo__sm + (size_t)o.n * o.ms + (size_t)o.sched * o.n;
  o.after = devo__sm + (size_t)o.n * o.ms + (size_t)a.vpb * o.n;
  o.w = o.lane < o.m && a.v.ready ? a.v.ready[o.lane] : 0.0;
  return o;
}

/* Coordinate lane + 32 c of schedule i at generation gen0 (0 past n and for an inactive warp). */
__device__ __forceinline__ double devo__etcw_x0(const devo__gpu_args &a, const devo__etcw_own &o,
                                                uint32_t gen0, int c)
{
  const int j = o.j0 + o.lane + 32 * c;
  return o.active && j < o.n ? ((gen0 & 1u) ? a.pop1 : a.pop0)[o.row + j] : 0.0;
}

/* Generations gen0 + 1 .. gen0 + ngens. Dynamic shared memory: [ETC matrix, n * ms]
 * [sev, vpb * n][cnt, vpb * C * m ints]. */
template <int C>
__global__ void __launch_bounds__(DEVO__ETCW_MAX_WARPS * 32, 1)
    devo__k_etcw1(devo__gpu_args a, uint32_t gen0, uint32_t ngens)
{
  const devo__etcw_own o = devo__etcw_owner(a, 1, C);
  int *cnt = (int *)o.after + o.warp * C * o.m;
  double x[C], ub[C];
  bool take[C];
#pragma unroll
  for (int c = 0; c < C; ++c)
    x[c] = devo__etcw_x0(a, o, gen0, c);
  double fi = o.active ? a.fit[o.i] : 0.0;
  devo__de_idx r = {0u, 0u, 0u, 0u};
  /* a.lanes = 32: coordinate lane + 32 c in x[c] */
  auto draw = [&](uint32_t gen) { devo__gpu_draw<C>(a, gen, o.i, o.lane, o.active, r, take, ub); };
  auto step = [&](uint32_t gen) {
    if (!o.active)
      return;
    double t[C];
    devo__gpu_trial<C>(a, (gen & 1u) ? a.pop0 : a.pop1, r, take, ub, o.lane, 32, x, t);
    const double ft = devo__etcw1_eval<C>(a, t, o.lane, o.stage, o.ms, o.sev, cnt, o.w);
    devo__gpu_replace<C>(a, o.i, o.lane, 32, ft, fi, x, t, ((gen & 1u) ? a.pop1 : a.pop0) + o.row,
                         gen);
  };
  devo__etcw_chunk(a, o.stage, o.ms, gen0, ngens, step, draw);
}

/* ---- version 2: the same algorithm and the same bits, written for instruction-level
 * parallelism. Version 1's profile (clock64 per phase, H100, 512x16 NP = 1024; BENCHMARKS.md)
 * showed a lone warp as slow as eight per SM, about 5 cycles per instruction: every coordinate's
 * draw, mutant and decode sat behind its own branch, so the compiler could not interleave the C
 * independent chains, and with 233 registers it issued the 48 donor loads in 11 rounds of L2
 * round trips. Here each phase is straight-line over the C coordinates (predicated loads,
 * selects, the branch-free device decode of etc.h), the crossover test is an integer comparison
 * (devo__de_cr_bound), the bound-repair words wait in shared memory, the parent and the trial
 * live in shared memory (two buffers per warp that swap when the trial wins), so all donor loads
 * are in flight at once; shared memory is read in whole passes before it is written (the
 * compiler cannot tell cnt, sev and stage apart), the ranks come from one __match_any_sync per
 * chunk, and the makespan and flowtime from shared memory instead of 2 m shuffles. Later, from
 * an ncu profile (stall samples per instruction): the bound repair is straight-line too (the
 * branch per coordinate, meant for a rare case, ran in nearly every warp and generation: 14% of
 * the samples), a winning trial is stored from the registers, and a row that two generations
 * left unchanged is not stored again. */

/* Generation gen's draws for schedule i: indices, take bits, and each coordinate's two raw
 * words for the bound repair (devo__u01 of them is devo__de_coord's u.bound) into ubw[32 c +
 * lane], this warp's shared memory (in registers they left too few for the donor loads). The
 * warp's coordinates are j0 + lane + 32 c. */
template <int C>
__device__ __forceinline__ void devo__etcw_draw(const devo__gpu_args &a, uint64_t crb, uint32_t gen,
                                                int i, int j0, int lane, bool active,
                                                devo__de_idx &r, unsigned &take, uint2 *ubw)
{
  r = devo__de_indices(a.seed, gen, (uint32_t)i, (uint32_t)a.np, (uint32_t)a.dim);
  take = 0u;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const uint32_t j = (uint32_t)(j0 + lane + 32 * c);
    const devo__u32x4 u = devo__rng_ks(&a.ks, j, gen, (uint32_t)i, DEVO__RNG_COORD);
    const bool tk = devo__u53(u.v[0], u.v[1]) < crb || j == r.jrand;
    take |= (tk && active && j < (uint32_t)a.dim) ? 1u << c : 0u;
    ubw[32 * c + lane] = make_uint2(u.v[2], u.v[3]);
  }
}

/* The donors' coordinates j0 + lane + 32 c that schedule i's trial takes (all loads issued
 * before any use). */
template <int C>
__device__ __forceinline__ void devo__etcw_load(const devo__gpu_args &a, const double *src,
                                                const devo__de_idx &r, unsigned take, int j0,
                                                double (&v1)[C], double (&v2)[C], double (&v3)[C])
{
  const int n = a.dim;
  const double *x1 = src + (size_t)r.r1 * n + j0, *x2 = src + (size_t)r.r2 * n + j0,
               *x3 = src + (size_t)r.r3 * n + j0;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const bool tk = (take >> c) & 1u;
    v1[c] = tk ? x1[32 * c] : 0.0;
    v2[c] = tk ? x2[32 * c] : 0.0;
    v3[c] = tk ? x3[32 * c] : 0.0;
  }
}

/* The bound rule R (a constant: devo__de_repair without its branches) on the coordinates whose
 * bit is set in out, all C read and selected in one pass. */
template <int C, int R>
__device__ __forceinline__ void devo__etcw_fix(unsigned out, int lane, double lo, double hi,
                                               const double *xs, const uint2 *ubw, double (&t)[C])
{
  double p[C];
  uint2 w[C];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    p[c] = xs[32 * c + lane];
    w[c] = ubw[32 * c + lane];
  }
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const double v = devo__de_repair(t[c], p[c], lo, hi, R,
                                     R == DEVO__BOUNDS_REINIT ? devo__u01(w[c].x, w[c].y) : 0.0);
    t[c] = (out >> c) & 1u ? v : t[c];
  }
}

/* Trial of schedule i (devo__de_mutant on the taken coordinates, x elsewhere) into t and into
 * ts; xs: the parent, ubw: the bound-repair words (all in this warp's shared memory, coordinate
 * lane + 32 c at 32 c + lane). */
template <int C>
__device__ __forceinline__ void devo__etcw_mix(const devo__gpu_args &a, unsigned take, int lane,
                                               const double (&v1)[C], const double (&v2)[C],
                                               const double (&v3)[C], const double *xs,
                                               const uint2 *ubw, double (&t)[C], double *ts)
{
  const double lo = a.v.lower, hi = a.v.upper;
  unsigned out = 0u;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const bool tk = (take >> c) & 1u;
    const double v = v1[c] + DEVO_MUL(a.f, v2[c] - v3[c]);
    t[c] = tk ? v : xs[32 * c + lane];
    out |= (tk && !(v >= lo && v <= hi)) ? 1u << c : 0u;
  }
  /* some coordinate of the warp needs a repair in nearly every generation (512 mutants), so the
   * repair is straight-line over the C coordinates, one branch on the rule for the warp */
  if (__any_sync(0xffffffffu, out != 0u)) {
    switch (a.bounds) {
    case DEVO__BOUNDS_CLIP:
      devo__etcw_fix<C, DEVO__BOUNDS_CLIP>(out, lane, lo, hi, xs, ubw, t);
      break;
    case DEVO__BOUNDS_REFLECT:
      devo__etcw_fix<C, DEVO__BOUNDS_REFLECT>(out, lane, lo, hi, xs, ubw, t);
      break;
    case DEVO__BOUNDS_MIDPOINT:
      devo__etcw_fix<C, DEVO__BOUNDS_MIDPOINT>(out, lane, lo, hi, xs, ubw, t);
      break;
    default:
      devo__etcw_fix<C, DEVO__BOUNDS_REINIT>(out, lane, lo, hi, xs, ubw, t);
    }
  }
#pragma unroll
  for (int c = 0; c < C; ++c)
    ts[32 * c + lane] = t[c];
}

/* The barrier of the K warps that share schedule sched of the block (named barrier 1 + sched;
 * __syncthreads is barrier 0). */
template <int K> __device__ __forceinline__ void devo__etcw_sync(int sched)
{
  if constexpr (K == 1)
    __syncwarp();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(1 + sched), "r"(32 * K) : "memory");
}

/* Objective of the trial by the schedule's K warps, as devo__etcw1_eval computes it; this warp
 * holds tasks o.j0 + lane + 32 c in t[c] (chunks C h .. C h + C - 1 of 32 tasks). Shared memory
 * of the schedule: sev (n doubles), cnt and pos (K C m 16-bit numbers each: per chunk and
 * machine, its task count, then where its tasks start in the machine-major copy), res (32
 * double2: completion and F of each machine). Shared memory is read into registers in whole passes
 * before it is written back: the compiler cannot tell cnt, sev and stage apart, so a load after
 * a store in the same loop would wait for the one before it. */
template <int C, int K>
__device__ __forceinline__ double
devo__etcw_eval(const devo__gpu_args &a, const double (&t)[C], const devo__etcw_own &o, double *sev,
                unsigned short *cnt, unsigned short *pos, double2 *res)
{
  const int n = o.n, m = o.m, lane = o.lane, h = o.h;
  const unsigned lt = (1u << lane) - 1u;
  unsigned short *mc = cnt + C * h * m, *mp = pos + C * h * m; /* this warp's chunks */
  int jb[C]; /* the machine (-1 past n), then its rank << 8 added, then the task's position */
  double e[C];
  for (int k = lane; k < C * m; k += 32)
    mc[k] = 0;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const int tk = o.j0 + lane + 32 * c;
    jb[c] = tk < n ? devo__etc_machine(t[c], m) : -1;
    e[c] = tk < n ? o.stage[tk * o.ms + jb[c]] : 0.0;
  }
  __syncwarp();
  /* rank of each task among the chunk's tasks of its machine; the group's first lane writes
   * the group's size */
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const unsigned peers = __match_any_sync(0xffffffffu, jb[c]);
    const int below = __popc(peers & lt);
    if (jb[c] >= 0 && below == 0)
      mc[c * m + jb[c]] = (unsigned short)__popc(peers);
    if (jb[c] >= 0)
      jb[c] += below << 8;
  }
  devo__etcw_sync<K>(o.sched); /* every chunk's counts */
  /* lane j: machine j's tasks in the chunks before each of this warp's, over all K C chunks,
   * then the machine's offset by a scan over the lanes */
  int cv[K * C], pre[C], tot = 0;
#pragma unroll
  for (int k = 0; k < K * C; ++k)
    cv[k] = lane < m ? cnt[k * m + lane] : 0;
#pragma unroll
  for (int k = 0; k < K * C; ++k) {
    if (k / C == h)
      pre[k % C] = tot;
    tot += cv[k];
  }
  const int incl = devo__etcw_scan(tot, lane);
  const int off = incl - tot;
  if (lane < m) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      mp[c * m + lane] = (unsigned short)(off + pre[c]);
  }
  __syncwarp();
#pragma unroll
  for (int c = 0; c < C; ++c)
    jb[c] = jb[c] >= 0 ? mp[c * m + (jb[c] & 255)] + (jb[c] >> 8) : -1;
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (jb[c] >= 0)
      sev[jb[c]] = e[c];
  devo__etcw_sync<K>(o.sched); /* the whole machine-major copy */
  /* the CPU's additions in the CPU's order: c = W_j; c += e; F += c (machine j on lane j of
   * warp j % K) */
  if (lane < m && lane % K == h) {
    double cj = o.w, f = 0.0;
#pragma unroll 8
    for (int q = off; q < incl; ++q) {
      cj += sev[q];
      f += cj;
    }
    res[lane] = make_double2(cj, f);
  }
  devo__etcw_sync<K>(o.sched);
  /* makespan: a max (exact in any order); flowtime: F_0 + F_1 + ... in machine order */
  double mk = 0.0, ft = 0.0;
#pragma unroll 4
  for (int j = 0; j < m; ++j) {
    const double2 q = res[j];
    mk = q.x > mk ? q.x : mk;
    ft += q.y;
  }
  __syncwarp(); /* this warp's cnt, pos, and (K = 1) sev and res are rewritten by the next
                   generation; with K > 1 the next generation's barriers order the rest */
  return devo__gpu_fitness(devo__etc_objective(a.v.lambda, mk, ft, m));
}

/* Version 2's kernel (K = 1) and version 3's (K = 2): the chunk driver with the functions
 * above, the schedule's K warps each with C coordinates per lane, the parent and the trial in
 * shared memory (two buffers per warp that swap roles when the trial wins): in registers they
 * left too few for the evaluation's arrays. Dynamic shared memory (W = K vpb warps):
 * [ETC matrix, n * ms][sev, vpb * n][res, vpb * 32 double2][ubw, W * 32 C uint2]
 * [parent and trial buffers, W * 64 C][cnt and pos, vpb * 2 K C m unsigned shorts]. */
template <int C, int K>
__global__ void __launch_bounds__(DEVO__ETCW_MAX_WARPS * 32 * K, 1)
    devo__k_etcw(devo__gpu_args a, uint32_t gen0, uint32_t ngens)
{
  const devo__etcw_own o = devo__etcw_owner(a, K, C);
  const int lane = o.lane, vpb = a.vpb, nw = K * vpb;
  double2 *res = (double2 *)o.after + o.sched * 32;
  uint2 *ubw = (uint2 *)(o.after + (size_t)vpb * 64) + o.warp * 32 * C;
  double *xs = o.after + (size_t)vpb * 64 + (size_t)nw * 32 * C + o.warp * 64 * C;
  double *ts = xs + 32 * C;
  unsigned short *cnt = (unsigned short *)(o.after + (size_t)vpb * 64 + (size_t)nw * 96 * C) +
                        o.sched * 2 * K * C * o.m;
  unsigned short *pos = cnt + K * C * o.m;
  const uint64_t crb = devo__de_cr_bound(a.cr);
  unsigned take = 0u;
#pragma unroll
  for (int c = 0; c < C; ++c)
    xs[32 * c + lane] = devo__etcw_x0(a, o, gen0, c);
  double fi = o.active ? a.fit[o.i] : 0.0;
  uint32_t won = gen0; /* the last generation whose trial won (gen0: as if it had) */
  devo__de_idx r;
  auto draw = [&](uint32_t gen) {
    devo__etcw_draw<C>(a, crb, gen, o.i, o.j0, lane, o.active, r, take, ubw);
  };
  auto step = [&](uint32_t gen) {
    if (!o.active)
      return;
    const double *src = (gen & 1u) ? a.pop0 : a.pop1;
    double *dst = ((gen & 1u) ? a.pop1 : a.pop0) + o.row + o.j0;
    double t[C], v1[C], v2[C], v3[C];
    devo__etcw_load<C>(a, src, r, take, o.j0 + lane, v1, v2, v3);
    devo__etcw_mix<C>(a, take, lane, v1, v2, v3, xs, ubw, t, ts);
    const double ft = devo__etcw_eval<C, K>(a, t, o, o.sev, cnt, pos, res);
    const bool lead = lane == 0 && o.h == 0;
    if (ft <= fi) { /* the CPU's rule: the trial wins ties; the row from the registers */
      double *q = xs;
      xs = ts;
      ts = q;
      fi = ft;
      won = gen;
      if (lead)
        a.fit[o.i] = ft;
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (o.j0 + lane + 32 * c < o.n)
          dst[lane + 32 * c] = t[c];
    } else if (gen - won < 2u) {
      /* dst holds generation gen - 2's row, which is x unless x changed in gen - 1 (or dst
       * predates this launch); else the store is skipped */
      double p[C];
#pragma unroll
      for (int c = 0; c < C; ++c)
        p[c] = xs[32 * c + lane];
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (o.j0 + lane + 32 * c < o.n)
          dst[lane + 32 * c] = p[c];
    }
    if (lead)
      devo__gpu_note_target(a, fi, gen);
  };
  devo__etcw_chunk(a, o.stage, o.ms, gen0, ngens, step, draw);
}

/* ---- host side --------------------------------------------------------------------------- */

cudaError_t devo__gpu_etcw_plan(const devo__pview *v, int np, int want, const cudaDeviceProp *p,
                                devo__gpu_fast_cfg *cfg, int *ok)
{
  const int n = v->ntasks, m = v->nmach, ms = m | 1;
  const int force = (want & DEVO__GPU_ETC_WARP) != 0;
  int v1 = (want & DEVO__GPU_ETC_WARP1) == DEVO__GPU_ETC_WARP1;
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
  /* version 3 (two warps per schedule, C halved) where version 2 would take 8 or 16
   * coordinates per lane, unless DEVO__GPU_ETC_SOLO asks for version 2 */
  int k = !v1 && !(want & DEVO__GPU_ETC_SOLO) && c >= 8 ? 2 : 1;
  /* measured at 512x16 (BENCHMARKS.md): version 2 beats the block evaluator with 8 schedules
   * per block (NP = 1024) and with 2 (NP = 256), and loses with 1 (NP = 64: a warp's own chain
   * per generation is longer than a block's, so it pays only with several warps per SM);
   * version 3 beats it with 1 too (NP = 64: 14.6 against 9.5 M/s) */
  if (!force && vpb < 2 && k == 1)
    return cudaSuccess;
  /* shared memory: version 1 [ETC][sev][cnt, ints]; versions 2 and 3 (the same sizes) [ETC][sev]
   * [res][ubw][parent and trial buffers][cnt and pos, unsigned shorts], which do not always fit
   * with m > 16 (8 schedules per block on an H100: m = 32 beyond 346 tasks, m = 24 beyond 446);
   * then version 1 runs, by default only with 8 schedules per block (with fewer it measured
   * slower than the block evaluator) */
  const size_t dbl = (size_t)n * ms + (size_t)vpb * n, dbl2 = (size_t)vpb * (64 + 96 * c),
               shorts = (size_t)vpb * 2 * c * m * sizeof(unsigned short);
  if (!v1 && (dbl + dbl2) * sizeof(double) + shorts > (size_t)p->sharedMemPerBlockOptin) {
    if (!force && vpb < DEVO__ETCW_MAX_WARPS)
      return cudaSuccess;
    v1 = 1;
    k = 1; /* version 1 has one warp per schedule */
  }
  if (v1)
    cfg->kern = c == 4
                    ? (const void *)devo__k_etcw1<4>
                    : (c == 8 ? (const void *)devo__k_etcw1<8> : (const void *)devo__k_etcw1<16>);
  else if (k == 2)
    cfg->kern = c == 8 ? (const void *)devo__k_etcw<4, 2> : (const void *)devo__k_etcw<8, 2>;
  else
    cfg->kern = c == 4   ? (const void *)devo__k_etcw<4, 1>
                : c == 8 ? (const void *)devo__k_etcw<8, 1>
                         : (const void *)devo__k_etcw<16, 1>;
  cfg->version = v1 ? 1 : (k == 2 ? 3 : 2);
  cfg->lanes = 32 * k; /* threads per schedule (version 1 draws with a.lanes = 32) */
  cfg->c = c / k;
  cfg->vpb = vpb;
  cfg->threads = vpb * 32 * k;
  cfg->blocks = (np + vpb - 1) / vpb;
  cfg->smem = v1 ? dbl * sizeof(double) + (size_t)vpb * c * m * sizeof(int)
                 : (dbl + dbl2) * sizeof(double) + shorts;
  if (cfg->smem > (size_t)p->sharedMemPerBlockOptin)
    return cudaSuccess;
  cudaError_t e = devo__gpu_smem_max(cfg->kern, p);
  if (e != cudaSuccess)
    return e;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, cfg->kern, cfg->threads, cfg->smem);
  if (e != cudaSuccess)
    return e;
  /* one schedule per warp for the whole chunk: the grid must be co-resident */
  *ok = (int64_t)occ * p->multiProcessorCount >= cfg->blocks;
  return cudaSuccess;
}
