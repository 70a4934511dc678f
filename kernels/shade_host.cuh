/* SPDX-License-Identifier: MIT */
/* shade_host.cuh: the host side of a JADE/SHADE/L-SHADE run (kernels/gpu_shade.cu), its start:
 * the run's state, the kernel table, the block layout, the plan of the persistent kernel (where it
 * applies, its shared memory, the draws' buffers), the device buffers and the initial
 * re-evaluation. */
#ifndef DEVO_SHADE_HOST_CUH
#define DEVO_SHADE_HOST_CUH

/* where this file's CUDA errors say they happened (shade_run.cuh sets its own) */
#define DEVO__SH_FILE "kernels/shade_host.cuh"

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

static int devo__sh_cuerr(devo_solver *s, cudaError_t e, const char *call, const char *file,
                          int line)
{
  char msg[DEVO__ERRLEN];
  const int status = devo__cuda_fail(msg, sizeof msg, e, call, file, line);
  return devo__set_err(s, status, "%s", msg);
}

#define DEVO__SCK(call)                                                                            \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess)                                                                         \
      return devo__sh_cuerr(s, e_, #call, DEVO__SH_FILE, __LINE__);                                \
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
      return devo__sh_cuerr(s, e, "cudaMemcpy(SHADE memory)", DEVO__SH_FILE, __LINE__);
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

#endif /* DEVO_SHADE_HOST_CUH */
