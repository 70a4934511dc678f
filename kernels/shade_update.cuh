/* SPDX-License-Identifier: MIT */
/* shade_update.cuh: after a generation's trials, the archive and the memory (kernels/gpu_shade.cu):
 * each success's archive slot and its owner, the memory update from one warp's 32-lane sums, the
 * new |A|; the launch paths' kernels for them (the update alone, or fused with the archive rows and
 * the next ranks for NP up to DEVO__SH_FUSE_NP; the archive rows), and the persistent kernel's
 * one-warp slots. */
#ifndef DEVO_SHADE_UPDATE_CUH
#define DEVO_SHADE_UPDATE_CUH

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

#endif /* DEVO_SHADE_UPDATE_CUH */
