/* SPDX-License-Identifier: MIT */
/* shade_run.cuh: the host loops of a JADE/SHADE/L-SHADE run (kernels/gpu_shade.cu): a generation's
 * launches on the launch path (with L-SHADE's schedule), sub-chunks of them with the target's
 * stop taken back, the persistent kernel's launches, and what the backend reads afterwards (the
 * current population, the description, the profile, the state). */
#ifndef DEVO_SHADE_RUN_CUH
#define DEVO_SHADE_RUN_CUH

#undef DEVO__SH_FILE /* shade_host.cuh's: this file's CUDA errors name this file */
#define DEVO__SH_FILE "kernels/shade_run.cuh"

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

/* Profiling: event e of the k-th generation of the sub-chunk (nothing when not profiling). */
static cudaError_t devo__sh_mark(devo__gpu_shade *g, int k, int e, cudaStream_t st)
{
  return g->ev ? cudaEventRecord(g->ev[(size_t)k * DEVO__SH_EVS + (size_t)e], st) : cudaSuccess;
}

/* Generation gen's launches (state g->cur, g->np advanced as the device will have them). */
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

#endif /* DEVO_SHADE_RUN_CUH */
