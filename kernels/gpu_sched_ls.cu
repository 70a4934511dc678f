/* SPDX-License-Identifier: MIT */
/* gpu_sched_ls.cu: the GPU-resident makespan search of issue 19 (item 2), behind
 * devo__gpu_sched_ls (engine/gpu_ls.h): one thread block per schedule ("chain"), hundreds of
 * chains at once, every move chosen on the device.
 * Versions:
 *   devo__k_gls        v1: a chunk of steps of every chain, one block each. A step builds a
 *                      trial (step 0: the chain's start; every de_every-th: DE rand/1/bin over
 *                      the chains' schedules; else an iterated-greedy perturbation), descends
 *                      to a local optimum of the moves and swaps off the critical machine (each
 *                      scan: one candidate per thread in a strided loop, a block reduction by
 *                      (value, index)), sums the loads exactly and accepts the trial when it is
 *                      not worse. Nothing crosses to the host inside a chunk.
 *   devo__k_gls_scan   one scan of one schedule (tests: the move against a CPU brute force).
 *   devo__k_gls_clock  reads %globaltimer once (the device-side deadline's offset).
 *
 * Neighbourhood (the insertion and interchange neighbourhoods of unrelated parallel machines,
 * Fanjul-Peyro & Ruiz, EJOR 207:55-69, 2010; the CPU's problems/etc_vnd.c scans the same two):
 * c is the machine with the largest load (lowest index on ties), L its load, p(t, j) the ETC.
 *   move t (on c) to j != c:   value = max(L - p(t,c), L_j + p(t,j)),
 *                              index = t m + j;
 *   swap t (on c), u (on b):   value = max((L - p(t,c)) + p(u,c), (L_b - p(u,b)) + p(t,b)),
 *                              index = n m + t n + u;
 * exactly these expressions (no product, so no contraction into fused multiply-adds). The
 * best candidate is the lowest (value, index); it is applied when value < L (1 - 1e-12):
 * then c's load falls and the other machine stays below L, so (makespan, machines at it) falls
 * and the descent ends (capped at 4 n + 64 moves anyway). Loads are kept incrementally in a
 * descent and summed again in task order after it (etc.h's order: the makespan that
 * devo_etc_evaluate computes), and acceptance compares those exact makespans.
 *
 * Perturbation (iterated greedy, Ruiz & Stuetzle, EJOR 177:2033-2049, 2007; the reinsertion
 * rule measured best in problems/etc_vnd.c): 2 to 6 random tasks, each in the order drawn put
 * on the machine other than its own where it completes first. For the ablation
 * (devo__gls_opts.perturb = DEVO__GLS_PERTURB_RANDOM) the same drawn tasks go to uniformly
 * drawn other machines instead (devo__gls_kick). DE (Storn & Price 1997, on the
 * encoding of Kromer et al., GECCO 2011): machine a encodes as a + 0.5; the mutant
 * x_r1 + F (x_r2 - x_r3) of de_ops.h, clipped to [0, m], decodes with devo__etc_machine.
 *
 * Determinism: every random number is Philox of (seed, draw, step, chain); a chunk always
 * begins at a DE step (the launch boundary is the barrier that DE's snapshot of the chains
 * needs), and nothing depends on timing or on the order in which threads run, so a step budget
 * gives the same bits on every run. Under a deadline the blocks stop themselves when
 * %globaltimer passes it (between moves), so how many steps ran varies.
 *
 * Several devices (devo__gls_opts.devices): one host thread per listed device ("slot"), each
 * running the loop above on its device with its own memory, stream, chains and seed
 * (devo_island_seed(seed, slot)). Every DEVO__GLS_XCHG_LAUNCHES launches a slot copies its best
 * chain to the host and offers it to a best kept under a mutex (lowest by makespan, slot, chain);
 * a slot whose best is worse than the kept one copies it over its worst chain, schedule and
 * makespan, between launches. With a step budget the offers and the reads meet at a barrier
 * (one that a slot leaves when it ends, so a slot stopped by an error, the deadline or the
 * callback holds up no other), so the exchanges happen at the same step counts with the same
 * schedules on every run; under a deadline alone no slot waits for another. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/gpu_ls.h"
#include "../engine/internal.h"
#include "../problems/de_ops.h"
#include "../problems/etc.h"
#include "../problems/philox.h"
#include "gpu_common.cuh"

#define DEVO__GLS_FILE "kernels/gpu_sched_ls.cu"
/* Tasks of the critical machine staged in shared memory at a time. */
#define DEVO__GLS_TILE 256
/* A move must lower the critical load by this share of it (above the rounding of the
 * incrementally kept loads). */
#define DEVO__GLS_GAP 1e-12
/* Tasks reinserted per perturbation: DMIN .. DMIN + DSPAN - 1 (as etc_vnd.c). */
#define DEVO__GLS_DMIN  2
#define DEVO__GLS_DSPAN 5
/* Steps per launch without DE (with DE a launch runs from one DE step to the next). */
#define DEVO__GLS_CHUNK 8
#define DEVO__GLS_FULL  0xffffffffu

struct devo__gls_args {
  const double *etc;   /* n * m, task-major */
  const double *ready; /* m */
  int n, m, P;         /* tasks, machines, chains */
  int *pop;            /* 2 P n: the chains' accepted schedules, two buffers */
  double *ms;          /* 2 P: their makespans */
  int *list;           /* P n: each block's tasks of the critical machine */
  long long *stats;    /* 3 P: steps, moves, candidates of each chain */
  uint64_t seed;
  int de_every;
  int perturb; /* DEVO__GLS_PERTURB_* */
  double f, cr;
  unsigned long long stop_ns; /* %globaltimer after which blocks stop; ~0 = never */
};

/* A block's shared scalars and reduction scratch. */
struct devo__gls_ctl {
  double rv[32];
  long long ri[32];
  double bv;    /* the scan's best value */
  long long bi; /* and index */
  double cmax;  /* the largest load */
  int c;        /* its machine */
  int kc;       /* tasks of c */
  int late;     /* past stop_ns */
};

/* A block's dynamic shared memory: [load, m][cload, m][tl0, TILE] doubles, then [a, n]
 * [tid, TILE] ints. */
struct devo__gls_sh {
  double *load, *cload, *tl0;
  int *a, *tid;
};

extern __shared__ double devo__gls_sm[];

static size_t devo__gls_smem(int n, int m)
{
  return sizeof(double) * (2 * (size_t)m + DEVO__GLS_TILE) +
         sizeof(int) * ((size_t)n + DEVO__GLS_TILE);
}

__device__ __forceinline__ devo__gls_sh devo__gls_layout(int n, int m)
{
  devo__gls_sh s;
  s.load = devo__gls_sm;
  s.cload = s.load + m;
  s.tl0 = s.cload + m;
  s.a = (int *)(s.tl0 + DEVO__GLS_TILE);
  s.tid = s.a + n;
  return s;
}

__device__ __forceinline__ unsigned long long devo__gls_clock(void)
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ double devo__gls_etc(const devo__gls_args &g, int t, int j)
{
  return __ldg(g.etc + (size_t)t * (size_t)g.m + (size_t)j);
}

/* Whether the block is past stop_ns, the same answer in every thread. The barrier before the
 * write keeps a thread that still reads the last answer from seeing this one. Every thread calls
 * it. */
__device__ __forceinline__ bool devo__gls_poll(const devo__gls_args &g, devo__gls_ctl &ctl)
{
  __syncthreads();
  if (threadIdx.x == 0)
    ctl.late = devo__gls_clock() > g.stop_ns;
  __syncthreads();
  return ctl.late != 0;
}

/* (value, index) lexicographic minimum. */
__device__ __forceinline__ void devo__gls_take(double &v, long long &i, double ov, long long oi)
{
  if (ov < v || (ov == v && oi < i)) {
    v = ov;
    i = oi;
  }
}

/* Block-wide (value, index) minimum into ctl.bv, ctl.bi, seen by every thread on return. Every
 * thread calls it. */
__device__ void devo__gls_argmin(double v, long long i, devo__gls_ctl &ctl)
{
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const int nw = (int)blockDim.x >> 5;
  for (int off = 16; off > 0; off >>= 1)
    devo__gls_take(v, i, __shfl_xor_sync(DEVO__GLS_FULL, v, off),
                   __shfl_xor_sync(DEVO__GLS_FULL, i, off));
  if (lane == 0) {
    ctl.rv[warp] = v;
    ctl.ri[warp] = i;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < nw ? ctl.rv[lane] : devo__gpu_inf();
    i = lane < nw ? ctl.ri[lane] : DEVO__GLS_NONE;
    for (int off = 16; off > 0; off >>= 1)
      devo__gls_take(v, i, __shfl_xor_sync(DEVO__GLS_FULL, v, off),
                     __shfl_xor_sync(DEVO__GLS_FULL, i, off));
    if (lane == 0) {
      ctl.bv = v;
      ctl.bi = i;
    }
  }
  __syncthreads();
}

/* The largest load and its lowest machine into ctl.cmax, ctl.c (warp 0), seen by every thread on
 * return. Every thread calls it. */
__device__ void devo__gls_critical(const double *load, int m, devo__gls_ctl &ctl)
{
  __syncthreads(); /* the loads are final, and ctl.c of the last call has been read */
  if (threadIdx.x < 32) {
    const int lane = (int)threadIdx.x;
    double v = -devo__gpu_inf();
    int j = 0x7fffffff;
    for (int k = lane; k < m; k += 32)
      if (load[k] > v) { /* ascending k: the first of equal loads stays */
        v = load[k];
        j = k;
      }
    for (int off = 16; off > 0; off >>= 1) {
      const double ov = __shfl_xor_sync(DEVO__GLS_FULL, v, off);
      const int oj = __shfl_xor_sync(DEVO__GLS_FULL, j, off);
      if (ov > v || (ov == v && oj < j)) {
        v = ov;
        j = oj;
      }
    }
    if (lane == 0) {
      ctl.cmax = v;
      ctl.c = j;
    }
  }
  __syncthreads();
}

/* Machine loads of the schedule a, summed as etc.h defines them: W_j, then + p(t, j) for the
 * tasks of j in task order (one warp per machine: a ballot per 32 tasks, and the warp's lanes
 * add the found values in lane order, every lane the same sums). Every thread calls it. */
__device__ void devo__gls_exact(const devo__gls_args &g, const int *a, double *load)
{
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const int nw = (int)blockDim.x >> 5;
  __syncthreads(); /* a is final */
  for (int j = warp; j < g.m; j += nw) {
    double s = g.ready ? g.ready[j] : 0.0;
    for (int base = 0; base < g.n; base += 32) {
      const int t = base + lane;
      const bool on = t < g.n && a[t] == j;
      const double e = on ? devo__gls_etc(g, t, j) : 0.0;
      unsigned mask = __ballot_sync(DEVO__GLS_FULL, on);
      while (mask) {
        const int l = __ffs((int)mask) - 1;
        s += __shfl_sync(DEVO__GLS_FULL, e, l);
        mask &= mask - 1u;
      }
    }
    if (lane == 0)
      load[j] = s;
  }
  __syncthreads();
}

/* The moves of the tile's tn tasks of c (tl0[i] = L - p(tid[i], c)) into (bv, bi). */
__device__ __forceinline__ void devo__gls_scan_moves(const devo__gls_args &g, const devo__gls_sh &s,
                                                     int c, int tn, double &bv, long long &bi)
{
  const int m = g.m;
  for (int q = (int)threadIdx.x; q < tn * m; q += (int)blockDim.x) {
    const int i = q / m, j = q - i * m;
    if (j == c)
      continue;
    const int t = s.tid[i];
    const double l0 = s.tl0[i], lj = s.load[j] + devo__gls_etc(g, t, j);
    devo__gls_take(bv, bi, l0 > lj ? l0 : lj, (long long)t * m + j);
  }
}

/* The swaps of the tile's tn tasks of c with every task u off c into (bv, bi): each thread
 * keeps its u's terms in registers and runs over the tile (the same t in every lane: the reads
 * of row t are one or a few cache lines). */
__device__ __forceinline__ void devo__gls_scan_swaps(const devo__gls_args &g, const devo__gls_sh &s,
                                                     int c, int tn, double &bv, long long &bi)
{
  const int n = g.n, m = g.m;
  const long long nm = (long long)n * m;
  for (int u = (int)threadIdx.x; u < n; u += (int)blockDim.x) {
    const int b = s.a[u];
    if (b == c)
      continue;
    const double puc = devo__gls_etc(g, u, c), lb0 = s.load[b] - devo__gls_etc(g, u, b);
    for (int i = 0; i < tn; ++i) {
      const int t = s.tid[i];
      const double lc = s.tl0[i] + puc, lb = lb0 + devo__gls_etc(g, t, b);
      devo__gls_take(bv, bi, lc > lb ? lc : lb, nm + (long long)t * n + u);
    }
  }
}

/* One scan of the neighbourhood off machine c: the best (value, index) into ctl.bv, ctl.bi;
 * returns the candidates scanned (the same in every thread). list: n ints of this block's
 * global scratch. Every thread calls it. */
__device__ long long devo__gls_scan(const devo__gls_args &g, int *list, const devo__gls_sh &s,
                                    devo__gls_ctl &ctl, int c)
{
  const int n = g.n, m = g.m, nt = (int)blockDim.x;
  if (threadIdx.x == 0)
    ctl.kc = 0;
  __syncthreads();
  /* the tasks of c in any order: a candidate's value and index do not depend on it */
  for (int t = (int)threadIdx.x; t < n; t += nt)
    if (s.a[t] == c)
      list[atomicAdd(&ctl.kc, 1)] = t;
  __syncthreads();
  const int kc = ctl.kc;
  const double lc = s.load[c];
  double bv = devo__gpu_inf();
  long long bi = DEVO__GLS_NONE;
  int done = 0;
  for (int base = 0; base < kc; base += DEVO__GLS_TILE) {
    /* one scan of a large instance is long (16384 x 256, consistent classes: with a look at the
     * deadline only between moves, 1 s runs ended up to 30 ms late), so the deadline is also
     * looked at between its tiles; the best candidate of the tiles scanned is still a valid
     * move. With a step budget (no deadline) nothing changes. */
    if (base > 0 && devo__gls_poll(g, ctl))
      break;
    const int tn = kc - base < DEVO__GLS_TILE ? kc - base : DEVO__GLS_TILE;
    done = base + tn;
    for (int i = (int)threadIdx.x; i < tn; i += nt) {
      const int t = list[base + i];
      s.tid[i] = t;
      s.tl0[i] = lc - devo__gls_etc(g, t, c);
    }
    __syncthreads();
    devo__gls_scan_moves(g, s, c, tn, bv, bi);
    devo__gls_scan_swaps(g, s, c, tn, bv, bi);
    __syncthreads(); /* the tile is rewritten next */
  }
  devo__gls_argmin(bv, bi, ctl);
  return (long long)done * (m - 1) + (long long)done * (n - kc);
}

/* Applies candidate idx off machine c (thread 0 alone; the caller synchronises), with the
 * scan's expressions, so the kept loads are the values the scan judged. */
__device__ void devo__gls_apply(const devo__gls_args &g, const devo__gls_sh &s, int c,
                                long long idx)
{
  const int n = g.n, m = g.m;
  const long long nm = (long long)n * m;
  if (idx < nm) {
    const int t = (int)(idx / m), j = (int)(idx % m);
    s.a[t] = j;
    s.load[c] = s.load[c] - devo__gls_etc(g, t, c);
    s.load[j] = s.load[j] + devo__gls_etc(g, t, j);
  } else {
    const long long r = idx - nm;
    const int t = (int)(r / n), u = (int)(r % n), b = s.a[u];
    const double lc = (s.load[c] - devo__gls_etc(g, t, c)) + devo__gls_etc(g, u, c);
    const double lb = (s.load[b] - devo__gls_etc(g, u, b)) + devo__gls_etc(g, t, b);
    s.a[t] = b;
    s.a[u] = c;
    s.load[c] = lc;
    s.load[b] = lb;
  }
}

/* Steepest descent over the moves and swaps off the critical machine, at most cap moves or
 * until stop_ns. Every thread calls it. */
__device__ void devo__gls_descend(const devo__gls_args &g, int *list, const devo__gls_sh &s,
                                  devo__gls_ctl &ctl, int cap, long long &moves, long long &cands)
{
  for (int k = 0; k < cap; ++k) {
    if (devo__gls_poll(g, ctl))
      break;
    devo__gls_critical(s.load, g.m, ctl);
    const int c = ctl.c;
    const double lim = ctl.cmax - DEVO_MUL(DEVO__GLS_GAP, ctl.cmax);
    cands += devo__gls_scan(g, list, s, ctl, c);
    if (!(ctl.bv < lim))
      break;
    if (threadIdx.x == 0)
      devo__gls_apply(g, s, c, ctl.bi);
    ++moves;
    __syncthreads();
  }
}

/* The perturbation of step `step` of chain `chain` (warp 0; every thread calls it). */
__device__ void devo__gls_perturb(const devo__gls_args &g, const devo__gls_sh &s, uint32_t step,
                                  uint32_t chain)
{
  const int m = g.m;
  if (threadIdx.x < 32) {
    const int lane = (int)threadIdx.x;
    const devo__u32x4 w0 = devo__rng(g.seed, 0u, step, chain, DEVO__RNG_GLS);
    const int d = DEVO__GLS_DMIN + (int)devo__below(w0.v[0], DEVO__GLS_DSPAN);
    for (int q = 0; q < d; ++q) {
      const devo__u32x4 w = devo__rng(g.seed, 1u + (uint32_t)q, step, chain, DEVO__RNG_GLS);
      const int t = (int)devo__below(w.v[0], (uint32_t)g.n), j0 = s.a[t];
      double v = devo__gpu_inf();
      int jb = 0x7fffffff;
      for (int j = lane; j < m; j += 32) {
        const double x = s.load[j] + devo__gls_etc(g, t, j);
        if (j != j0 && x < v) {
          v = x;
          jb = j;
        }
      }
      for (int off = 16; off > 0; off >>= 1) {
        const double ov = __shfl_xor_sync(DEVO__GLS_FULL, v, off);
        const int oj = __shfl_xor_sync(DEVO__GLS_FULL, jb, off);
        if (ov < v || (ov == v && oj < jb)) {
          v = ov;
          jb = oj;
        }
      }
      __syncwarp(); /* every lane has read a[t] and the loads */
      if (lane == 0) {
        s.load[j0] = s.load[j0] - devo__gls_etc(g, t, j0);
        s.load[jb] = s.load[jb] + devo__gls_etc(g, t, jb);
        s.a[t] = jb;
      }
      __syncwarp();
    }
  }
  __syncthreads();
}

/* The ablation's perturbation without the large neighbourhood (DEVO__GLS_PERTURB_RANDOM): the
 * same drawn tasks as devo__gls_perturb, each to a machine other than its own drawn uniformly
 * (the random kick of iterated local search, Lourenco, Martin & Stuetzle, Handbook of
 * Metaheuristics, 2003), the loads kept with the same expressions (thread 0; every thread
 * calls it). */
__device__ void devo__gls_kick(const devo__gls_args &g, const devo__gls_sh &s, uint32_t step,
                               uint32_t chain)
{
  if (threadIdx.x == 0) {
    const devo__u32x4 w0 = devo__rng(g.seed, 0u, step, chain, DEVO__RNG_GLS);
    const int d = DEVO__GLS_DMIN + (int)devo__below(w0.v[0], DEVO__GLS_DSPAN);
    for (int q = 0; q < d; ++q) {
      const devo__u32x4 w = devo__rng(g.seed, 1u + (uint32_t)q, step, chain, DEVO__RNG_GLS);
      const int t = (int)devo__below(w.v[0], (uint32_t)g.n), j0 = s.a[t];
      int j = (int)devo__below(w.v[1], (uint32_t)(g.m - 1));
      j += j >= j0; /* m - 1 machines: every one but j0 */
      s.load[j0] = s.load[j0] - devo__gls_etc(g, t, j0);
      s.load[j] = s.load[j] + devo__gls_etc(g, t, j);
      s.a[t] = j;
    }
  }
  __syncthreads();
}

/* DE rand/1/bin trial of chain i at step `step` into a, from the chains' schedules of the last
 * chunk (in_all, P n). Every thread calls it. */
__device__ void devo__gls_de_trial(const devo__gls_args &g, int *a, const int *in_all,
                                   uint32_t step, uint32_t i)
{
  const int n = g.n, m = g.m;
  const devo__de_idx r = devo__de_indices(g.seed, step, i, (uint32_t)g.P, (uint32_t)n);
  const int *xi = in_all + (size_t)i * n, *x1 = in_all + (size_t)r.r1 * n,
            *x2 = in_all + (size_t)r.r2 * n, *x3 = in_all + (size_t)r.r3 * n;
  for (int j = (int)threadIdx.x; j < n; j += (int)blockDim.x) {
    const devo__de_u u = devo__de_coord(g.seed, step, i, (uint32_t)j);
    int mj = xi[j];
    if (devo__de_take(u, (uint32_t)j, r, g.cr)) {
      const double v = devo__de_mutant(xi[j] + 0.5, x1[j] + 0.5, x2[j] + 0.5, x3[j] + 0.5, g.f, 0.0,
                                       (double)m, DEVO__BOUNDS_CLIP, 0.0);
      mj = devo__etc_machine(v, m);
    }
    a[j] = mj;
  }
  __syncthreads();
}

/* Steps s0 .. s0 + nsteps - 1 of every chain (block b = chain b): reads buffer par of pop and
 * ms, writes buffer 1 - par. Dynamic shared memory: devo__gls_smem(n, m) bytes. */
__global__ void __launch_bounds__(1024)
    devo__k_gls(devo__gls_args g, int par, long long s0, int nsteps)
{
  __shared__ devo__gls_ctl ctl;
  const devo__gls_sh s = devo__gls_layout(g.n, g.m);
  const int b = (int)blockIdx.x, n = g.n, m = g.m, nt = (int)blockDim.x;
  const int *in_all = g.pop + (size_t)par * g.P * n, *in = in_all + (size_t)b * n;
  int *out = g.pop + (size_t)(1 - par) * g.P * n + (size_t)b * n;
  int *list = g.list + (size_t)b * n;
  double cur = g.ms[(size_t)par * g.P + b];
  long long steps = 0, moves = 0, cands = 0;
  for (int t = (int)threadIdx.x; t < n; t += nt) {
    const int v = in[t];
    s.a[t] = v;
    out[t] = v;
  }
  devo__gls_exact(g, s.a, s.load);
  for (int j = (int)threadIdx.x; j < m; j += nt)
    s.cload[j] = s.load[j];
  for (int k = 0; k < nsteps; ++k) {
    const long long st = s0 + k;
    if (devo__gls_poll(g, ctl))
      break;
    if (st > 0) {
      if (g.de_every > 0 && st % g.de_every == 0 && k == 0) {
        devo__gls_de_trial(g, s.a, in_all, (uint32_t)st, (uint32_t)b);
        devo__gls_exact(g, s.a, s.load);
      } else if (g.perturb == DEVO__GLS_PERTURB_RANDOM) {
        devo__gls_kick(g, s, (uint32_t)st, (uint32_t)b);
      } else {
        devo__gls_perturb(g, s, (uint32_t)st, (uint32_t)b);
      }
    }
    devo__gls_descend(g, list, s, ctl, st == 0 ? 4 * n + 64 : n + 64, moves, cands);
    devo__gls_exact(g, s.a, s.load);
    devo__gls_critical(s.load, m, ctl);
    const double ms = ctl.cmax;
    ++steps;
    if (ms <= cur) { /* equal is taken too: it moves the chain along plateaus */
      cur = ms;
      for (int t = (int)threadIdx.x; t < n; t += nt)
        out[t] = s.a[t];
      for (int j = (int)threadIdx.x; j < m; j += nt)
        s.cload[j] = s.load[j];
    } else {
      for (int t = (int)threadIdx.x; t < n; t += nt)
        s.a[t] = out[t]; /* this thread wrote out[t] itself */
      for (int j = (int)threadIdx.x; j < m; j += nt)
        s.load[j] = s.cload[j];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    g.ms[(size_t)(1 - par) * g.P + b] = cur;
    g.stats[3 * (size_t)b] += steps;
    g.stats[3 * (size_t)b + 1] += moves;
    g.stats[3 * (size_t)b + 2] += cands;
  }
}

/* One scan of pop's first schedule: res_i[0] the best index (DEVO__GLS_NONE: no candidate),
 * res_i[1] the candidates, res_i[2] the critical machine, res_v[0] the best value. */
__global__ void __launch_bounds__(1024)
    devo__k_gls_scan(devo__gls_args g, long long *res_i, double *res_v)
{
  __shared__ devo__gls_ctl ctl;
  const devo__gls_sh s = devo__gls_layout(g.n, g.m);
  for (int t = (int)threadIdx.x; t < g.n; t += (int)blockDim.x)
    s.a[t] = g.pop[t];
  devo__gls_exact(g, s.a, s.load);
  devo__gls_critical(s.load, g.m, ctl);
  const int c = ctl.c;
  const long long cands = devo__gls_scan(g, g.list, s, ctl, c);
  if (threadIdx.x == 0) {
    res_i[0] = ctl.bi;
    res_i[1] = cands;
    res_i[2] = c;
    res_v[0] = ctl.bv;
  }
}

__global__ void devo__k_gls_clock(unsigned long long *t)
{
  *t = devo__gls_clock();
}

/* ---- host ------------------------------------------------------------------------------- */

/* Everything one call allocates on the device, freed in one place. */
struct devo__gls_mem {
  cudaStream_t st;
  double *etc, *ready, *ms, *res_v;
  int *pop, *list;
  long long *stats, *res_i;
  unsigned long long *clk;
};

static void devo__gls_free(devo__gls_mem *d)
{
  if (d->st)
    cudaStreamSynchronize(d->st);
  cudaFree(d->etc);
  cudaFree(d->ready);
  cudaFree(d->ms);
  cudaFree(d->res_v);
  cudaFree(d->pop);
  cudaFree(d->list);
  cudaFree(d->stats);
  cudaFree(d->res_i);
  cudaFree(d->clk);
  if (d->st)
    cudaStreamDestroy(d->st);
  memset(d, 0, sizeof *d);
  cudaGetLastError(); /* leave no sticky error for the next caller */
}

static int devo__gls_cuerr(char *err, size_t errlen, cudaError_t e, const char *call, int line)
{
  const int st = devo__cuda_fail(err, errlen, e, call, DEVO__GLS_FILE, line);
  return e == cudaErrorMemoryAllocation ? DEVO_E_NOMEM : st;
}

#define DEVO__GCK(call)                                                                            \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess)                                                                         \
      return devo__gls_cuerr(err, errlen, e_, #call, __LINE__);                                    \
  } while (0)

/* The device's limits that the launches need, by attribute queries (cudaGetDeviceProperties
 * fills every field and is slower: this runs on every call, inside its time limit); the
 * kernels' opt-in to their dynamic shared memory. DEVO_OK, DEVO_E_NODEVICE, DEVO_E_CUDA. */
struct devo__gls_dev {
  int optin; /* shared memory per block, opt-in */
  int sms;   /* multiprocessors */
};

static int devo__gls_device(devo__gls_dev *dv, char *err, size_t errlen)
{
  int n = 0, dev = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n < 1)
    return devo__errf(err, errlen, DEVO_E_NODEVICE, "no CUDA device: %s",
                      e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
  DEVO__GCK(cudaGetDevice(&dev));
  DEVO__GCK(cudaDeviceGetAttribute(&dv->optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  DEVO__GCK(cudaDeviceGetAttribute(&dv->sms, cudaDevAttrMultiProcessorCount, dev));
  const void *kern[2] = {(const void *)devo__k_gls, (const void *)devo__k_gls_scan};
  for (int k = 0; k < 2; ++k) {
    cudaFuncAttributes fa;
    DEVO__GCK(cudaFuncGetAttributes(&fa, kern[k]));
    DEVO__GCK(cudaFuncSetAttribute(kern[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   dv->optin - (int)fa.sharedSizeBytes));
  }
  return DEVO_OK;
}

/* Device, shared memory and the matrix: the common set-up of both entries. */
static int devo__gls_setup(const devo_etc *e, int block, int P, const devo__gls_dev *dv,
                           devo__gls_mem *d, devo__gls_args *g, char *err, size_t errlen)
{
  const int n = e->ntasks, m = e->nmach;
  const size_t smem = devo__gls_smem(n, m);
  cudaFuncAttributes fa;
  DEVO__GCK(cudaFuncGetAttributes(&fa, devo__k_gls));
  if (smem + fa.sharedSizeBytes > (size_t)dv->optin)
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "%d tasks x %d machines need %zu bytes of shared memory per block; "
                      "the device has %d",
                      n, m, smem + fa.sharedSizeBytes, dv->optin);
  if (block > fa.maxThreadsPerBlock)
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "block %d: the kernel runs at most %d threads per block", block,
                      fa.maxThreadsPerBlock);
  DEVO__GCK(cudaStreamCreateWithFlags(&d->st, cudaStreamNonBlocking));
  DEVO__GCK(cudaMalloc((void **)&d->etc, (size_t)n * m * sizeof(double)));
  DEVO__GCK(cudaMalloc((void **)&d->ready, (size_t)m * sizeof(double)));
  DEVO__GCK(cudaMemcpyAsync(d->etc, e->values, (size_t)n * m * sizeof(double),
                            cudaMemcpyHostToDevice, d->st));
  if (e->ready)
    DEVO__GCK(cudaMemcpyAsync(d->ready, e->ready, (size_t)m * sizeof(double),
                              cudaMemcpyHostToDevice, d->st));
  else
    DEVO__GCK(cudaMemsetAsync(d->ready, 0, (size_t)m * sizeof(double), d->st));
  DEVO__GCK(cudaMalloc((void **)&d->pop, 2 * (size_t)P * n * sizeof(int)));
  DEVO__GCK(cudaMalloc((void **)&d->ms, 2 * (size_t)P * sizeof(double)));
  DEVO__GCK(cudaMalloc((void **)&d->list, (size_t)P * n * sizeof(int)));
  DEVO__GCK(cudaMalloc((void **)&d->stats, 3 * (size_t)P * sizeof(long long)));
  DEVO__GCK(cudaMemsetAsync(d->stats, 0, 3 * (size_t)P * sizeof(long long), d->st));
  memset(g, 0, sizeof *g);
  g->etc = d->etc;
  g->ready = d->ready;
  g->n = n;
  g->m = m;
  g->P = P;
  g->pop = d->pop;
  g->ms = d->ms;
  g->list = d->list;
  g->stats = d->stats;
  g->stop_ns = ~0ull;
  return DEVO_OK;
}

extern "C" int devo__gpu_sched_ls_scan(const devo_etc *e, const int *assign, int block,
                                       devo__gls_move *mv, char *err, size_t errlen)
{
  devo__gls_mem d;
  devo__gls_args g;
  devo__gls_dev dv;
  long long ri[3];
  double rv;
  int st;
  if (err && errlen)
    err[0] = 0;
  if (!e || !assign || !mv || !devo__etc_assign_ok(e, assign))
    return devo__errf(err, errlen, DEVO_E_INVALID, "NULL argument or a bad assignment");
  if (block < 32 || block > 1024 || block % 32)
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "block %d: must be a multiple of 32 in [32, 1024]", block);
  memset(&d, 0, sizeof d);
  memset(mv, 0, sizeof *mv);
  st = devo__gls_device(&dv, err, errlen);
  if (st == DEVO_OK)
    st = devo__gls_setup(e, block, 1, &dv, &d, &g, err, errlen);
  if (st == DEVO_OK) {
    const int n = e->ntasks, m = e->nmach;
    cudaError_t ce = cudaMalloc((void **)&d.res_i, 3 * sizeof(long long));
    if (ce == cudaSuccess)
      ce = cudaMalloc((void **)&d.res_v, sizeof(double));
    if (ce == cudaSuccess)
      ce = cudaMemcpyAsync(d.pop, assign, (size_t)n * sizeof(int), cudaMemcpyHostToDevice, d.st);
    if (ce == cudaSuccess) {
      void *args[] = {(void *)&g, (void *)&d.res_i, (void *)&d.res_v};
      ce = cudaLaunchKernel((const void *)devo__k_gls_scan, dim3(1), dim3((unsigned)block), args,
                            devo__gls_smem(n, m), d.st);
    }
    if (ce == cudaSuccess)
      ce = cudaMemcpyAsync(ri, d.res_i, sizeof ri, cudaMemcpyDeviceToHost, d.st);
    if (ce == cudaSuccess)
      ce = cudaMemcpyAsync(&rv, d.res_v, sizeof rv, cudaMemcpyDeviceToHost, d.st);
    if (ce == cudaSuccess)
      ce = cudaStreamSynchronize(d.st);
    if (ce != cudaSuccess)
      st = devo__gls_cuerr(err, errlen, ce, "the scan kernel", __LINE__);
    else {
      mv->crit = (int)ri[2];
      mv->candidates = ri[1];
      mv->value = rv;
      devo__gls_move_decode(ri[0], n, m, mv);
    }
  }
  devo__gls_free(&d);
  return st;
}

static int devo__gls_check(const devo_etc *e, const int *starts, int nstarts, const int *assign,
                           const devo__gls_opts *o, devo__gls_result *r, char *err, size_t errlen)
{
  if (!e || !starts || !assign || !o || !r || nstarts < 1)
    return devo__errf(err, errlen, DEVO_E_INVALID, "NULL argument or no start");
  for (int k = 0; k < nstarts; ++k)
    if (!devo__etc_assign_ok(e, starts + (size_t)k * e->ntasks))
      return devo__errf(err, errlen, DEVO_E_INVALID, "start %d names a machine out of range", k);
  if (o->chains < 0 || o->chains > 4096)
    return devo__errf(err, errlen, DEVO_E_INVALID, "chains %d: must be in [0, 4096]", o->chains);
  if (o->block != 0 && (o->block < 32 || o->block > 1024 || o->block % 32))
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "block %d: must be 0 or a multiple of 32 in [32, 1024]", o->block);
  if (o->steps < 0 || (o->steps == 0 && !(o->deadline > 0.0)))
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "steps %lld: must be > 0, or >= 0 with a deadline", (long long)o->steps);
  if (o->de_every < 0)
    return devo__errf(err, errlen, DEVO_E_INVALID, "de_every %d: must be >= 0", o->de_every);
  if (o->perturb != DEVO__GLS_PERTURB_IG && o->perturb != DEVO__GLS_PERTURB_RANDOM)
    return devo__errf(err, errlen, DEVO_E_INVALID, "perturb %d: must be %d (IG) or %d (random)",
                      o->perturb, DEVO__GLS_PERTURB_IG, DEVO__GLS_PERTURB_RANDOM);
  if (o->de_every > 0 && !(o->f > 0.0 && o->f <= 2.0 && o->cr >= 0.0 && o->cr <= 1.0))
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "DE weights f %g, cr %g: need f in (0, 2], cr in [0, 1]", o->f, o->cr);
  if (o->ndevices < 0 || o->ndevices > DEVO__GLS_MAX_DEVICES || (o->ndevices > 0 && !o->devices))
    return devo__errf(err, errlen, DEVO_E_INVALID,
                      "ndevices %d: must be in [0, %d], with a list of that many devices",
                      o->ndevices, DEVO__GLS_MAX_DEVICES);
  return DEVO_OK;
}

/* ---- several devices -------------------------------------------------------------------- */

/* What the slots of one search share, under mu: a barrier that a slot can leave (a slot that
 * ends, by its steps, the deadline or an error, must not leave the others waiting for it), the
 * stop that one slot asks of all, and the best schedule offered so far. */
struct devo__gls_shared {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int live, arrived; /* slots still in the barrier's count; arrived at the current round */
  unsigned round;
  int nslots;
  int sync;            /* steps > 0: the exchanges meet at the barrier (deterministic) */
  int stopped, status; /* a slot asked every slot to stop, with this status */
  int have, best_slot, best_chain;
  double best_ms;
  int *best_a; /* n ints */
};

/* One slot: its call's arguments and results, and its exchange scratch. */
struct devo__gls_peer {
  devo__gls_shared *sh;
  int slot, device;
  const devo_etc *e;
  const int *starts;
  int nstarts;
  devo__gls_opts o; /* the caller's, with the slot's seed; progress only in slot 0 */
  int *assign;      /* n ints: the slot's answer */
  int *a;           /* n ints: a schedule on its way to or from the host's best */
  double *hms;      /* P makespans (allocated at the first exchange) */
  int64_t exchanges, imports;
  devo__gls_result r;
  int st;
  char err[256];
};

static void devo__gls_bar_wait(devo__gls_shared *sh)
{
  pthread_mutex_lock(&sh->mu);
  if (++sh->arrived >= sh->live) {
    sh->arrived = 0;
    ++sh->round;
    pthread_cond_broadcast(&sh->cv);
  } else {
    const unsigned r = sh->round;
    while (r == sh->round)
      pthread_cond_wait(&sh->cv, &sh->mu);
  }
  pthread_mutex_unlock(&sh->mu);
}

/* A slot that ends leaves the barrier's count; the others waiting for it go on. */
static void devo__gls_bar_leave(devo__gls_shared *sh)
{
  pthread_mutex_lock(&sh->mu);
  --sh->live;
  if (sh->arrived > 0 && sh->arrived >= sh->live) {
    sh->arrived = 0;
    ++sh->round;
    pthread_cond_broadcast(&sh->cv);
  }
  pthread_mutex_unlock(&sh->mu);
}

/* Asks every slot to stop before its next launch (the first status asked stays). */
static void devo__gls_stop_all(devo__gls_shared *sh, int status)
{
  pthread_mutex_lock(&sh->mu);
  if (!sh->stopped) {
    sh->stopped = 1;
    sh->status = status;
  }
  pthread_mutex_unlock(&sh->mu);
}

/* 1 when a slot asked every slot to stop; its status into *status. */
static int devo__gls_stop_asked(devo__gls_shared *sh, int *status)
{
  int stopped;
  pthread_mutex_lock(&sh->mu);
  stopped = sh->stopped;
  if (stopped)
    *status = sh->status;
  pthread_mutex_unlock(&sh->mu);
  return stopped;
}

/* Slot's best chain (makespan ms, schedule a) kept when it is lower by (makespan, slot, chain):
 * the kept best after a round of offers does not depend on their order. */
static void devo__gls_offer(devo__gls_shared *sh, int n, double ms, int slot, int chain,
                            const int *a)
{
  pthread_mutex_lock(&sh->mu);
  if (!sh->have || ms < sh->best_ms ||
      (ms == sh->best_ms &&
       (slot < sh->best_slot || (slot == sh->best_slot && chain < sh->best_chain)))) {
    sh->have = 1;
    sh->best_ms = ms;
    sh->best_slot = slot;
    sh->best_chain = chain;
    memcpy(sh->best_a, a, (size_t)n * sizeof(int));
  }
  pthread_mutex_unlock(&sh->mu);
}

/* The kept best into a and *ms when it is lower than *ms; 1 then. */
static int devo__gls_take_best(devo__gls_shared *sh, int n, double *ms, int *a)
{
  int take;
  pthread_mutex_lock(&sh->mu);
  take = sh->have && sh->best_ms < *ms;
  if (take) {
    *ms = sh->best_ms;
    memcpy(a, sh->best_a, (size_t)n * sizeof(int));
  }
  pthread_mutex_unlock(&sh->mu);
  return take;
}

/* One exchange of slot x between launches (no kernel runs on its buffers): its best chain of
 * buffer par (lowest makespan, lowest chain) offered to the kept best; then, when the kept best
 * is lower, it replaces the slot's worst chain (highest makespan, highest chain), schedule and
 * makespan. With sync the slots meet at the barrier after the offers and after the reads, so
 * every slot reads the best of the same round. */
static int devo__gls_exchange(devo__gls_peer *x, devo__gls_mem *d, devo__gls_args *g, int par,
                              char *err, size_t errlen)
{
  devo__gls_shared *sh = x->sh;
  const int P = g->P, n = g->n;
  int bq = 0, wq = 0, take;
  double ms;
  if (!x->hms && !(x->hms = (double *)malloc((size_t)P * sizeof(double))))
    return devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  DEVO__GCK(cudaMemcpyAsync(x->hms, g->ms + (size_t)par * P, (size_t)P * sizeof(double),
                            cudaMemcpyDeviceToHost, d->st));
  DEVO__GCK(cudaStreamSynchronize(d->st));
  for (int q = 1; q < P; ++q) {
    if (x->hms[q] < x->hms[bq])
      bq = q;
    if (x->hms[q] >= x->hms[wq])
      wq = q;
  }
  DEVO__GCK(cudaMemcpyAsync(x->a, g->pop + ((size_t)par * P + bq) * n, (size_t)n * sizeof(int),
                            cudaMemcpyDeviceToHost, d->st));
  DEVO__GCK(cudaStreamSynchronize(d->st));
  devo__gls_offer(sh, n, x->hms[bq], x->slot, bq, x->a);
  if (sh->sync)
    devo__gls_bar_wait(sh);
  ms = x->hms[bq];
  take = devo__gls_take_best(sh, n, &ms, x->a);
  if (sh->sync)
    devo__gls_bar_wait(sh);
  ++x->exchanges;
  if (!take)
    return DEVO_OK;
  ++x->imports;
  DEVO__GCK(cudaMemcpyAsync(g->pop + ((size_t)par * P + wq) * n, x->a, (size_t)n * sizeof(int),
                            cudaMemcpyHostToDevice, d->st));
  DEVO__GCK(
      cudaMemcpyAsync(g->ms + (size_t)par * P + wq, &ms, sizeof ms, cudaMemcpyHostToDevice, d->st));
  DEVO__GCK(cudaStreamSynchronize(d->st));
  return DEVO_OK;
}

/* The step budget spent; the deadline passed. */
static bool devo__gls_steps_done(const devo__gls_opts *o, long long s)
{
  return o->steps > 0 && s >= o->steps;
}

static bool devo__gls_late(const devo__gls_opts *o)
{
  return o->deadline > 0.0 && devo__now() >= o->deadline;
}

/* Whether the search stops before the next launch: its steps are done, the interrupt, the
 * deadline, or (of several slots) another slot asked; why into r->status. */
static int devo__gls_halt(const devo__gls_opts *o, long long s, devo__gls_peer *x,
                          devo__gls_result *r)
{
  if (devo__gls_steps_done(o, s))
    return 1;
  if (o->interrupt && *o->interrupt) {
    r->status = DEVO_INTERRUPTED;
    return 1;
  }
  if (devo__gls_late(o)) {
    r->status = DEVO_TIME_LIMIT;
    return 1;
  }
  return x && devo__gls_stop_asked(x->sh, &r->status);
}

/* The progress callback after a launch: the best of buffer par (hms: P doubles of scratch) and,
 * of several slots, the kept best when lower. *stop = 1 when the callback asks to stop. */
static cudaError_t devo__gls_report(const devo__gls_opts *o, const devo__gls_args *g, int par,
                                    long long s, double *hms, devo__gls_peer *x, int *stop)
{
  const int P = g->P;
  cudaError_t ce =
      cudaMemcpy(hms, g->ms + (size_t)par * P, (size_t)P * sizeof(double), cudaMemcpyDeviceToHost);
  if (ce != cudaSuccess)
    return ce;
  double best = hms[0];
  for (int q = 1; q < P; ++q)
    best = hms[q] < best ? hms[q] : best;
  if (x) {
    pthread_mutex_lock(&x->sh->mu);
    if (x->sh->have && x->sh->best_ms < best)
      best = x->sh->best_ms;
    pthread_mutex_unlock(&x->sh->mu);
  }
  *stop = o->progress(o->progress_ud, s, best) != 0;
  return cudaSuccess;
}

/* The chunk loop: launches until the steps are done, the deadline passes or the callback asks
 * to stop; *par receives the buffer that holds the answer. x: the slot of a search on several
 * devices (its stops and exchanges), NULL for one device. */
static int devo__gls_loop(const devo__gls_opts *o, devo__gls_mem *d, devo__gls_args *g, int block,
                          size_t smem, int *par, devo__gls_result *r, devo__gls_peer *x, char *err,
                          size_t errlen)
{
  const int P = g->P;
  long long s = 0, launches = 0;
  double *hms = NULL;
  cudaError_t ce = cudaSuccess;
  int st = DEVO_OK;
  r->status = DEVO_OK;
  *par = 0;
  if (o->progress && !(hms = (double *)malloc((size_t)P * sizeof(double))))
    return devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  while (!devo__gls_halt(o, s, x, r)) {
    int len = g->de_every > 0 ? g->de_every - (int)(s % g->de_every) : DEVO__GLS_CHUNK;
    if (o->steps > 0 && o->steps - s < len)
      len = (int)(o->steps - s);
    void *args[] = {(void *)g, (void *)par, (void *)&s, (void *)&len};
    ce = cudaLaunchKernel((const void *)devo__k_gls, dim3((unsigned)P), dim3((unsigned)block), args,
                          smem, d->st);
    if (ce == cudaSuccess)
      ce = cudaStreamSynchronize(d->st);
    if (ce != cudaSuccess)
      break;
    s += len;
    *par ^= 1;
    ++launches;
    if (hms) {
      int stop = 0;
      if ((ce = devo__gls_report(o, g, *par, s, hms, x, &stop)) != cudaSuccess)
        break;
      if (stop) {
        r->status = DEVO_STOPPED_BY_CALLBACK;
        if (x)
          devo__gls_stop_all(x->sh, DEVO_STOPPED_BY_CALLBACK);
        break;
      }
    }
    /* not after the last launch: its answer is read anyway */
    if (x && x->sh->nslots > 1 && launches % DEVO__GLS_XCHG_LAUNCHES == 0 &&
        !devo__gls_steps_done(o, s) && !devo__gls_late(o) &&
        (st = devo__gls_exchange(x, d, g, *par, err, errlen)) != DEVO_OK)
      break;
  }
  free(hms);
  if (ce != cudaSuccess)
    return devo__gls_cuerr(err, errlen, ce, "the search kernel", __LINE__);
  return st;
}

/* Chains from the device's residency: as many blocks as fit at once, at most 1024. */
static int devo__gls_auto_chains(int block, size_t smem, const devo__gls_dev *dv, int *P, char *err,
                                 size_t errlen)
{
  int per = 0;
  DEVO__GCK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, devo__k_gls, block, smem));
  *P = per * dv->sms;
  if (*P < 1)
    *P = 1;
  if (*P > 1024)
    *P = 1024;
  return DEVO_OK;
}

/* Starts into buffer 0 (chain q: starts[q % nstarts]) with their exact makespans, and the
 * clock offset for the deadline. */
static int devo__gls_start(const devo_etc *e, const int *starts, int nstarts,
                           const devo__gls_opts *o, devo__gls_mem *d, devo__gls_args *g, char *err,
                           size_t errlen)
{
  const int n = e->ntasks, P = g->P;
  double *hms = (double *)malloc((size_t)P * sizeof(double));
  unsigned long long t_dev = 0;
  if (!hms)
    return devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  for (int q = 0; q < P; ++q) {
    double ft;
    int st;
    if (q < nstarts) {
      st = devo_etc_evaluate(e, starts + (size_t)q * n, DEVO_ORDER_FCFS, hms + q, &ft);
      if (st != DEVO_OK) {
        free(hms);
        return devo__errf(err, errlen, st, "evaluation of start %d failed", q);
      }
    } else {
      hms[q] = hms[q % nstarts];
    }
  }
  cudaError_t ce = cudaSuccess;
  for (int q = 0; q < P && ce == cudaSuccess; ++q)
    ce = cudaMemcpyAsync(g->pop + (size_t)q * n, starts + (size_t)(q % nstarts) * n,
                         (size_t)n * sizeof(int), cudaMemcpyHostToDevice, d->st);
  if (ce == cudaSuccess)
    ce = cudaMemcpyAsync(g->ms, hms, (size_t)P * sizeof(double), cudaMemcpyHostToDevice, d->st);
  if (ce == cudaSuccess)
    ce = cudaStreamSynchronize(d->st); /* hms may go */
  free(hms);
  if (ce != cudaSuccess)
    return devo__gls_cuerr(err, errlen, ce, "upload of the starts", __LINE__);
  if (o->deadline > 0.0) {
    DEVO__GCK(cudaMalloc((void **)&d->clk, sizeof *d->clk));
    {
      void *args[] = {(void *)&d->clk};
      DEVO__GCK(
          cudaLaunchKernel((const void *)devo__k_gls_clock, dim3(1), dim3(1), args, 0, d->st));
    }
    DEVO__GCK(cudaMemcpyAsync(&t_dev, d->clk, sizeof t_dev, cudaMemcpyDeviceToHost, d->st));
    DEVO__GCK(cudaStreamSynchronize(d->st));
    /* the device read its clock before now: the deadline on the device comes a little early,
     * by the copy's latency, never late */
    const double left = o->deadline - devo__now();
    g->stop_ns = left > 0.0 ? t_dev + (unsigned long long)(left * 1e9) : t_dev;
  }
  return DEVO_OK;
}

/* The best chain (lowest makespan, lowest chain on ties) of buffer par into assign. */
static int devo__gls_answer(const devo_etc *e, const devo__gls_args *g, int par, int *assign,
                            devo__gls_result *r, char *err, size_t errlen)
{
  const int P = g->P, n = e->ntasks;
  double *hms = (double *)malloc((size_t)P * sizeof(double));
  long long *hst = (long long *)malloc(3 * (size_t)P * sizeof(long long));
  int bq = 0;
  if (!hms || !hst) {
    free(hms);
    free(hst);
    return devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  }
  cudaError_t ce =
      cudaMemcpy(hms, g->ms + (size_t)par * P, (size_t)P * sizeof(double), cudaMemcpyDeviceToHost);
  if (ce == cudaSuccess)
    ce = cudaMemcpy(hst, g->stats, 3 * (size_t)P * sizeof(long long), cudaMemcpyDeviceToHost);
  if (ce == cudaSuccess) {
    for (int q = 1; q < P; ++q)
      if (hms[q] < hms[bq])
        bq = q;
    ce = cudaMemcpy(assign, g->pop + ((size_t)par * P + bq) * n, (size_t)n * sizeof(int),
                    cudaMemcpyDeviceToHost);
  }
  if (ce == cudaSuccess) {
    r->makespan = hms[bq];
    for (int q = 0; q < P; ++q) {
      r->steps += hst[3 * q];
      r->moves += hst[3 * q + 1];
      r->candidates += hst[3 * q + 2];
    }
  }
  free(hms);
  free(hst);
  if (ce != cudaSuccess)
    return devo__gls_cuerr(err, errlen, ce, "cudaMemcpy(answer)", __LINE__);
  return DEVO_OK;
}

/* The search on the calling thread's current device (devo__gpu_sched_ls's of one device, or one
 * slot's of several: x, else NULL); the options are checked. */
static int devo__gls_search(const devo_etc *e, const int *starts, int nstarts, int *assign,
                            const devo__gls_opts *o, devo__gls_result *r, devo__gls_peer *x,
                            char *err, size_t errlen)
{
  devo__gls_mem d;
  devo__gls_args g;
  devo__gls_dev dv;
  int st, P, block, par = 0;
  memset(r, 0, sizeof *r);
  block = o->block ? o->block : 256;
  const int n = e->ntasks, m = e->nmach;
  const size_t smem = devo__gls_smem(n, m);
  memset(&d, 0, sizeof d);
  if ((st = devo__gls_device(&dv, err, errlen)) != DEVO_OK)
    return st;
  P = o->chains;
  if (P == 0 && (st = devo__gls_auto_chains(block, smem, &dv, &P, err, errlen)) != DEVO_OK)
    return st;
  st = devo__gls_setup(e, block, P, &dv, &d, &g, err, errlen);
  if (st == DEVO_OK) {
    g.seed = o->seed;
    g.de_every = P >= 4 ? o->de_every : 0;
    g.perturb = o->perturb;
    g.f = o->f;
    g.cr = o->cr;
    r->chains = P;
    r->block = block;
    st = devo__gls_start(e, starts, nstarts, o, &d, &g, err, errlen);
  }
  if (st == DEVO_OK) {
    const double t1 = devo__now();
    if (m >= 2)
      st = devo__gls_loop(o, &d, &g, block, smem, &par, r, x, err, errlen);
    r->seconds = devo__now() - t1;
  }
  if (st == DEVO_OK)
    st = devo__gls_answer(e, &g, par, assign, r, err, errlen);
  devo__gls_free(&d);
  r->devices = 1;
  return st;
}

/* One slot's thread (slot 0: the calling thread): its device, its search; an error asks every
 * slot to stop. It leaves the barrier whatever happened. */
static void *devo__gls_slot_main(void *arg)
{
  devo__gls_peer *x = (devo__gls_peer *)arg;
  const cudaError_t ce = cudaSetDevice(x->device);
  if (ce != cudaSuccess)
    x->st = devo__gls_cuerr(x->err, sizeof x->err, ce, "cudaSetDevice", __LINE__);
  else
    x->st = devo__gls_search(x->e, x->starts, x->nstarts, x->assign, &x->o, &x->r, x, x->err,
                             sizeof x->err);
  if (x->st != DEVO_OK)
    devo__gls_stop_all(x->sh, x->st);
  devo__gls_bar_leave(x->sh);
  return NULL;
}

/* The slots' arguments and memory (px: ns of them, zeroed) and the shared state. */
static int devo__gls_slots_init(const devo_etc *e, const int *starts, int nstarts,
                                const devo__gls_opts *o, devo__gls_shared *sh, devo__gls_peer *px,
                                char *err, size_t errlen)
{
  const int ns = o->ndevices, n = e->ntasks;
  sh->live = sh->nslots = ns;
  sh->sync = o->steps > 0;
  if (!(sh->best_a = (int *)malloc((size_t)n * sizeof(int))))
    return devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  for (int k = 0; k < ns; ++k) {
    devo__gls_peer *x = px + k;
    x->sh = sh;
    x->slot = k;
    x->device = o->devices[k];
    x->e = e;
    x->starts = starts;
    x->nstarts = nstarts;
    x->o = *o;
    x->o.seed = devo_island_seed(o->seed, k); /* slot 0: the seed itself */
    x->o.devices = NULL;
    x->o.ndevices = 0;
    if (k > 0) {
      x->o.progress = NULL;
      x->o.progress_ud = NULL;
    }
    x->assign = (int *)malloc((size_t)n * sizeof(int));
    x->a = (int *)malloc((size_t)n * sizeof(int));
    if (!x->assign || !x->a)
      return devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  }
  return DEVO_OK;
}

/* The slots' results into assign and r: the first failed slot's error, else the best answer
 * (lowest makespan, the lowest slot on ties: each slot's answer is already its lowest chain),
 * the counts summed and the status that outranks the others. */
static int devo__gls_combine(const devo__gls_peer *px, int ns, int n, int *assign,
                             devo__gls_result *r, char *err, size_t errlen)
{
  static const int rank[] = {DEVO_OK, DEVO_TIME_LIMIT, DEVO_STOPPED_BY_CALLBACK, DEVO_INTERRUPTED};
  int best = 0, top = 0;
  for (int k = 0; k < ns; ++k)
    if (px[k].st != DEVO_OK)
      return devo__errf(err, errlen, px[k].st, "device %d (slot %d of %d): %s", px[k].device, k, ns,
                        px[k].err);
  memset(r, 0, sizeof *r);
  for (int k = 0; k < ns; ++k) {
    const devo__gls_result *q = &px[k].r;
    r->steps += q->steps;
    r->moves += q->moves;
    r->candidates += q->candidates;
    r->chains += q->chains;
    r->seconds = q->seconds > r->seconds ? q->seconds : r->seconds;
    r->exchanges += px[k].exchanges;
    r->imports += px[k].imports;
    for (int j = 3; j > top; --j)
      if (q->status == rank[j])
        top = j;
    if (q->makespan < px[best].r.makespan)
      best = k;
  }
  r->block = px[0].r.block;
  r->status = rank[top];
  r->devices = ns;
  r->makespan = px[best].r.makespan;
  memcpy(assign, px[best].assign, (size_t)n * sizeof(int));
  return DEVO_OK;
}

/* The search on o->ndevices slots: slot 0 on the calling thread (its current device set back
 * afterwards), every other on a thread of its own. */
static int devo__gls_multi(const devo_etc *e, const int *starts, int nstarts, int *assign,
                           const devo__gls_opts *o, devo__gls_result *r, char *err, size_t errlen)
{
  const int ns = o->ndevices;
  devo__gls_shared sh;
  devo__gls_peer *px = (devo__gls_peer *)calloc((size_t)ns, sizeof *px);
  pthread_t th[DEVO__GLS_MAX_DEVICES];
  int count = 0, prev = 0, st, k;
  memset(r, 0, sizeof *r);
  cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count < 1) {
    free(px);
    return devo__errf(err, errlen, DEVO_E_NODEVICE, "no CUDA device: %s",
                      ce != cudaSuccess ? cudaGetErrorString(ce) : "none visible");
  }
  for (k = 0; k < ns; ++k)
    if (o->devices[k] < 0 || o->devices[k] >= count) {
      free(px);
      return devo__errf(err, errlen, DEVO_E_INVALID,
                        "device %d (slot %d): %d CUDA device(s) visible", o->devices[k], k, count);
    }
  memset(&sh, 0, sizeof sh);
  pthread_mutex_init(&sh.mu, NULL);
  pthread_cond_init(&sh.cv, NULL);
  st = px ? devo__gls_slots_init(e, starts, nstarts, o, &sh, px, err, errlen)
          : devo__errf(err, errlen, DEVO_E_NOMEM, "out of memory");
  if (st == DEVO_OK && (ce = cudaGetDevice(&prev)) != cudaSuccess)
    st = devo__gls_cuerr(err, errlen, ce, "cudaGetDevice", __LINE__);
  if (st == DEVO_OK) {
    int started[DEVO__GLS_MAX_DEVICES] = {0};
    for (k = 1; k < ns; ++k)
      if (!(started[k] = pthread_create(&th[k], NULL, devo__gls_slot_main, px + k) == 0)) {
        px[k].st = devo__errf(px[k].err, sizeof px[k].err, DEVO_E_NOMEM, "cannot start its thread");
        devo__gls_stop_all(&sh, px[k].st);
        devo__gls_bar_leave(&sh);
      }
    devo__gls_slot_main(px);
    for (k = 1; k < ns; ++k)
      if (started[k])
        pthread_join(th[k], NULL);
    cudaSetDevice(prev);
    st = devo__gls_combine(px, ns, e->ntasks, assign, r, err, errlen);
  }
  for (k = 0; px && k < ns; ++k) {
    free(px[k].assign);
    free(px[k].a);
    free(px[k].hms);
  }
  free(px);
  free(sh.best_a);
  pthread_mutex_destroy(&sh.mu);
  pthread_cond_destroy(&sh.cv);
  return st;
}

extern "C" int devo__gpu_sched_ls(const devo_etc *e, const int *starts, int nstarts, int *assign,
                                  const devo__gls_opts *o, devo__gls_result *r, char *err,
                                  size_t errlen)
{
  int st;
  if (err && errlen)
    err[0] = 0;
  if ((st = devo__gls_check(e, starts, nstarts, assign, o, r, err, errlen)) != DEVO_OK)
    return st;
  if (o->ndevices > 0)
    return devo__gls_multi(e, starts, nstarts, assign, o, r, err, errlen);
  return devo__gls_search(e, starts, nstarts, assign, o, r, NULL, err, errlen);
}
