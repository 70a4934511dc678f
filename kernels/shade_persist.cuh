/* SPDX-License-Identifier: MIT */
/* shade_persist.cuh: version 3, the persistent cooperative kernel of JADE and SHADE
 * (kernels/gpu_shade.cu): its sizes and shared-memory layout, and the generations of one launch
 * with one grid barrier each, every block computing the archive slots, memory update and pbest
 * ranks itself. */
#ifndef DEVO_SHADE_PERSIST_CUH
#define DEVO_SHADE_PERSIST_CUH

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
 * need neither the memory nor |A| nor the ranks come from k.pre and k.aw (devo__k_sh_pre), the next
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

#endif /* DEVO_SHADE_PERSIST_CUH */
