/* emu.cpp: kernels/gpu_sched_ls.cu's device code run on the CPU (tests/gpu_ls_emu/run.sh): every
 * CUDA thread of a block is a coroutine, barriers yield round robin until their group arrived,
 * warp shuffles and ballots go through per-warp slots. It replaces devo__gpu_sched_ls(_scan) and
 * devo__gpu_probe at link time (--allow-multiple-definition), with the host loop of the .cu
 * written again without CUDA, so tests/test_gpu_ls.c runs the kernels' logic against its
 * brute force and its sequential reference on a machine without a GPU. Blocks of EMU_BLOCK
 * threads (default 32) for the search: the answer does not depend on the block size. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "problems/de_ops.h"
#include "problems/etc.h"
#include "problems/philox.h"
#include "engine/internal.h"
#include "engine/gpu_ls.h"

struct emu_dim {
  unsigned x;
};
static emu_dim threadIdx, blockIdx;
static emu_dim blockDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __shared__ static
#include <ucontext.h>
// every CUDA thread of a block is a coroutine on one OS thread; a barrier yields round robin
// until every member of its group (the block, or the warp) has arrived
static ucontext_t emu_main, *emu_ctx;
static int emu_n, emu_cur, emu_finished;
static unsigned emu_tid_of[1024];
struct emu_group {
  int size, count;
  unsigned gen;
};
static emu_group emu_block, emu_warp[32];
static void emu_yield()
{
  const int me = emu_cur;
  int nx = (me + 1) % emu_n;
  emu_cur = nx;
  threadIdx.x = emu_tid_of[nx];
  swapcontext(&emu_ctx[me], &emu_ctx[nx]);
  threadIdx.x = emu_tid_of[me];
}
static void emu_barrier(emu_group &g)
{
  const unsigned gen = g.gen;
  if (++g.count == g.size) {
    g.count = 0;
    g.gen++;
    return;
  }
  while (g.gen == gen)
    emu_yield();
}
static inline void __syncthreads()
{
  emu_barrier(emu_block);
}
static inline void __syncwarp(unsigned = 0xffffffffu)
{
  emu_barrier(emu_warp[threadIdx.x / 32]);
}
template <class T> struct slots {
  static T v[32][32];
};
template <class T> T slots<T>::v[32][32];
template <class T> static T xchg(T val, int src)
{
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  slots<T>::v[w][lane] = val;
  __syncwarp();
  T r = slots<T>::v[w][src];
  __syncwarp();
  return r;
}
template <class T> static T __shfl_xor_sync(unsigned, T v, int off)
{
  return xchg(v, (int)(threadIdx.x % 32) ^ off);
}
template <class T> static T __shfl_sync(unsigned, T v, int src)
{
  return xchg(v, src);
}
static unsigned __ballot_sync(unsigned, bool p)
{
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  slots<int>::v[w][lane] = p;
  __syncwarp();
  unsigned r = 0;
  for (int k = 0; k < 32; ++k)
    r |= slots<int>::v[w][k] ? 1u << k : 0u;
  __syncwarp();
  return r;
}
static inline int __ffs(int x)
{
  return __builtin_ffs(x);
}
template <class T> static inline T __ldg(const T *p)
{
  return *p;
}
static inline int atomicAdd(int *p, int v)
{
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline double devo__gpu_inf()
{
  return HUGE_VAL;
}

#include "dev_part.inc" /* made by run.sh from the .cu */

// ---- launching: one coroutine per CUDA thread, blocks one after another
struct emu_launch {
  int kind; // 0 search, 1 scan
  devo__gls_args g;
  int par;
  long long s0;
  int nsteps;
  long long *res_i;
  double *res_v;
};
static emu_launch *emu_L;
static void emu_entry()
{
  if (emu_L->kind == 0)
    devo__k_gls(emu_L->g, emu_L->par, emu_L->s0, emu_L->nsteps);
  else
    devo__k_gls_scan(emu_L->g, emu_L->res_i, emu_L->res_v);
  emu_finished++;
  // a finished thread keeps yielding until all are done (nobody waits on it at a barrier)
  while (emu_finished < emu_n)
    emu_yield();
  swapcontext(&emu_ctx[emu_cur], &emu_main);
}
static void emu_launch_grid(emu_launch *L, int grid, int block)
{
  static std::vector<char> stacks;
  const size_t ss = 1 << 16;
  blockDim.x = (unsigned)block;
  emu_L = L;
  emu_n = block;
  emu_ctx = (ucontext_t *)realloc(emu_ctx, (size_t)block * sizeof(ucontext_t));
  stacks.resize((size_t)block * ss);
  for (int b = 0; b < grid; ++b) {
    blockIdx.x = (unsigned)b;
    emu_block.size = block;
    emu_block.count = 0;
    emu_block.gen = 0;
    for (int w = 0; w < block / 32; ++w) {
      emu_warp[w].size = 32;
      emu_warp[w].count = 0;
      emu_warp[w].gen = 0;
    }
    memset(devo__gls_sm, 0xff, sizeof devo__gls_sm); // poison: unwritten shared reads show
    emu_finished = 0;
    for (int k = 0; k < block; ++k) {
      emu_tid_of[k] = (unsigned)k;
      getcontext(&emu_ctx[k]);
      emu_ctx[k].uc_stack.ss_sp = stacks.data() + (size_t)k * ss;
      emu_ctx[k].uc_stack.ss_size = ss;
      emu_ctx[k].uc_link = &emu_main;
      makecontext(&emu_ctx[k], emu_entry, 0);
    }
    emu_cur = 0;
    threadIdx.x = 0;
    swapcontext(&emu_main, &emu_ctx[0]);
    if (emu_finished != block) {
      fprintf(stderr, "emu: block ended with %d of %d threads\n", emu_finished, block);
      exit(3);
    }
  }
}

extern "C" int devo__gpu_probe(char *msg, size_t msglen)
{
  if (msg && msglen)
    snprintf(msg, msglen, "emulated");
  return 1;
}

static devo__gls_args emu_args(const devo_etc *e, int P, std::vector<int> &pop,
                               std::vector<double> &ms, std::vector<int> &list,
                               std::vector<long long> &stats)
{
  devo__gls_args g;
  memset(&g, 0, sizeof g);
  const int n = e->ntasks;
  pop.assign(2 * (size_t)P * n, 0);
  ms.assign(2 * (size_t)P, 0.0);
  list.assign((size_t)P * n, 0);
  stats.assign(3 * (size_t)P, 0);
  g.etc = e->values;
  g.ready = e->ready;
  g.n = n;
  g.m = e->nmach;
  g.P = P;
  g.pop = pop.data();
  g.ms = ms.data();
  g.list = list.data();
  g.stats = stats.data();
  g.stop_ns = ~0ull;
  return g;
}

extern "C" int devo__gpu_sched_ls_scan(const devo_etc *e, const int *assign, int block,
                                       devo__gls_move *mv, char *err, size_t errlen)
{
  if (!e || !assign || !mv || !devo__etc_assign_ok(e, assign)) {
    snprintf(err, errlen, "NULL argument or a bad assignment");
    return DEVO_E_INVALID;
  }
  if (block < 32 || block > 1024 || block % 32) {
    snprintf(err, errlen, "block %d: must be a multiple of 32 in [32, 1024]", block);
    return DEVO_E_INVALID;
  }
  std::vector<int> pop, list;
  std::vector<double> ms;
  std::vector<long long> stats;
  emu_launch L;
  memset(&L, 0, sizeof L);
  L.kind = 1;
  L.g = emu_args(e, 1, pop, ms, list, stats);
  memcpy(pop.data(), assign, (size_t)e->ntasks * sizeof(int));
  long long ri[3];
  double rv;
  L.res_i = ri;
  L.res_v = &rv;
  emu_launch_grid(&L, 1, block);
  memset(mv, 0, sizeof *mv);
  mv->crit = (int)ri[2];
  mv->candidates = ri[1];
  mv->value = rv;
  devo__gls_move_decode(ri[0], e->ntasks, e->nmach, mv);
  return DEVO_OK;
}

// the host loop of devo__gpu_sched_ls without deadline handling on the device (no clock)
extern "C" int devo__gpu_sched_ls(const devo_etc *e, const int *starts, int nstarts, int *assign,
                                  const devo__gls_opts *o, devo__gls_result *r, char *err,
                                  size_t errlen)
{
  if (!e || !starts || !assign || !o || !r || nstarts < 1) {
    snprintf(err, errlen, "NULL");
    return DEVO_E_INVALID;
  }
  for (int k = 0; k < nstarts; ++k)
    if (!devo__etc_assign_ok(e, starts + (size_t)k * e->ntasks)) {
      snprintf(err, errlen, "start");
      return DEVO_E_INVALID;
    }
  if (o->block != 0 && (o->block < 32 || o->block > 1024 || o->block % 32)) {
    snprintf(err, errlen, "block %d: must be 0 or a multiple of 32 in [32, 1024]", o->block);
    return DEVO_E_INVALID;
  }
  if (o->steps < 0 || (o->steps == 0 && !(o->deadline > 0.0))) {
    snprintf(err, errlen, "steps");
    return DEVO_E_INVALID;
  }
  if (o->perturb != DEVO__GLS_PERTURB_IG && o->perturb != DEVO__GLS_PERTURB_RANDOM) {
    snprintf(err, errlen, "perturb %d", o->perturb);
    return DEVO_E_INVALID;
  }
  memset(r, 0, sizeof *r);
  const int P = o->chains ? o->chains : 8, n = e->ntasks,
            block = getenv("EMU_BLOCK") ? atoi(getenv("EMU_BLOCK")) : 32;
  std::vector<int> pop, list;
  std::vector<double> ms;
  std::vector<long long> stats;
  emu_launch L;
  memset(&L, 0, sizeof L);
  L.kind = 0;
  L.g = emu_args(e, P, pop, ms, list, stats);
  L.g.seed = o->seed;
  L.g.de_every = P >= 4 ? o->de_every : 0;
  L.g.perturb = o->perturb;
  L.g.f = o->f;
  L.g.cr = o->cr;
  for (int q = 0; q < P; ++q) {
    memcpy(pop.data() + (size_t)q * n, starts + (size_t)(q % nstarts) * n, (size_t)n * sizeof(int));
    double ft;
    devo_etc_evaluate(e, starts + (size_t)(q % nstarts) * n, DEVO_ORDER_FCFS, &ms[q], &ft);
  }
  r->chains = P;
  r->block = block;
  long long s = 0;
  int par = 0;
  const double t1 = devo__now();
  for (;;) {
    if (o->steps > 0 && s >= o->steps)
      break;
    if (o->deadline > 0.0 && devo__now() >= o->deadline) {
      r->status = DEVO_TIME_LIMIT;
      break;
    }
    int len = L.g.de_every > 0 ? L.g.de_every - (int)(s % L.g.de_every) : DEVO__GLS_CHUNK;
    if (o->steps > 0 && o->steps - s < len)
      len = (int)(o->steps - s);
    L.par = par;
    L.s0 = s;
    L.nsteps = len;
    emu_launch_grid(&L, P, block);
    s += len;
    par ^= 1;
  }
  r->seconds = devo__now() - t1;
  int bq = 0;
  for (int q = 1; q < P; ++q)
    if (ms[(size_t)par * P + q] < ms[(size_t)par * P + bq])
      bq = q;
  memcpy(assign, pop.data() + ((size_t)par * P + bq) * n, (size_t)n * sizeof(int));
  r->makespan = ms[(size_t)par * P + bq];
  for (int q = 0; q < P; ++q) {
    r->steps += stats[3 * q];
    r->moves += stats[3 * q + 1];
    r->candidates += stats[3 * q + 2];
  }
  return DEVO_OK;
}
