/* SPDX-License-Identifier: MIT */
/* cpu_shade.h: the CPU backend's JADE/SHADE/L-SHADE state and its steps (engine/cpu_shade.c),
 * over problems/de_shade.h. engine/cpu_backend.c drives them: rank, then the trials (in parallel,
 * any split of the individuals), then selection, then devo__cshade_update and, for L-SHADE,
 * devo__cshade_reduce (sequential). Everything is allocated by devo__cshade_alloc. */
#ifndef DEVO_CPU_SHADE_H
#define DEVO_CPU_SHADE_H

#include "internal.h"

typedef struct devo__cshade {
  devo__variant var;
  uint64_t seed;
  int dim, np_init, np; /* NP_init and NP_g (the population's rows now) */
  int np_gen;           /* NP of the last generation: the length of F, CR */
  int cap_max;          /* archive rows allocated: round(arc_rate NP_init) */
  int asize, cap;       /* |A| and the capacity for np */
  int hist, k;          /* H (JADE: 1) and the next memory slot */
  double *arc;          /* cap_max * dim */
  double *m_cr, *m_f;   /* hist each (JADE: mu_CR, mu_F) */
  double *F, *CR;       /* np_init each: the F_i, CR_i of the last generation */
  int *order, *tmp;     /* np_init each: order[rank] = index, and the sort's scratch */
  unsigned char *use;   /* np_init: success flags; reduction: survivor flags */
  double *terms;        /* 4 * np_init: the per-success terms of the sums */
} devo__cshade;

/* -1: out of memory (what was allocated is freed by devo__cshade_free). */
int devo__cshade_alloc(devo__cshade *c, const devo_allocator *al, const devo__variant *v,
                       uint64_t seed, int np, int dim);
void devo__cshade_free(devo__cshade *c, const devo_allocator *al);
/* order = the individuals of (fit, np) sorted by (fitness, index). */
void devo__cshade_rank(devo__cshade *c, const double *fit, int np);
/* Trial i of generation gen from pop (NP_g rows), the archive and order, inside box; F_i, CR_i
 * kept. Thread-safe for distinct i. */
void devo__cshade_trial(devo__cshade *c, const double *pop, uint32_t gen, int i, double *trial,
                        const devo__box *box, int rule);
/* After selection of generation gen: fit = the parents' fitness, sel = the selected fitness
 * (< fit[i] exactly for the successes), pop = the parents: memory update, then archive inserts. */
void devo__cshade_update(devo__cshade *c, uint32_t gen, const double *pop, const double *fit,
                         const double *sel);
/* L-SHADE after generation gen: NP_next from frac; the worst of (pop, fit) leave (stable
 * compaction in place), the archive shrinks. Returns the new NP. */
int devo__cshade_reduce(devo__cshade *c, uint32_t gen, double frac, double *pop, double *fit);

#endif /* DEVO_CPU_SHADE_H */
