/* SPDX-License-Identifier: MIT */
/* shade_state.cuh: the device-side state of a JADE/SHADE/L-SHADE run (kernels/gpu_shade.cu, which
 * includes it first): the launch constants, the control block, the buffers every kernel is handed
 * (devo__sh_dev), where a generation's records go, and the persistent kernel's profile clock. */
#ifndef DEVO_SHADE_STATE_CUH
#define DEVO_SHADE_STATE_CUH

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

#endif /* DEVO_SHADE_STATE_CUH */
