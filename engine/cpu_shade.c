/* SPDX-License-Identifier: MIT */
/* cpu_shade.c: JADE, SHADE and L-SHADE on the CPU (engine/cpu_shade.h): the rank sort, the
 * trials of current-to-pbest/1/bin, the memory update with the 32-lane sums, the archive and
 * L-SHADE's reduction, each step exactly as problems/de_shade.h and docs/shade.md define it, so
 * that the GPU kernels reproduce them bit for bit. The sequential steps allocate nothing. */
#include <string.h>

#include "cpu_shade.h"

int devo__cshade_alloc(devo__cshade *c, const devo_allocator *al, const devo__variant *v,
                       uint64_t seed, int np, int dim)
{
  size_t n = (size_t)np;
  int h;
  memset(c, 0, sizeof *c);
  c->var = *v;
  c->seed = seed;
  c->dim = dim;
  c->np_init = c->np = np;
  c->hist = v->adapt == DEVO__ADAPT_SHADE ? v->hist : 1;
  c->cap_max = c->cap = (int)devo__sh_arc_cap(v->arc_rate, (uint32_t)np);
  c->arc = (double *)devo__alloc(al, (size_t)(c->cap_max > 0 ? c->cap_max : 1) * (size_t)dim,
                                 sizeof(double));
  c->m_cr = (double *)devo__alloc(al, (size_t)c->hist, sizeof(double));
  c->m_f = (double *)devo__alloc(al, (size_t)c->hist, sizeof(double));
  c->F = (double *)devo__calloc(al, n, sizeof(double));
  c->CR = (double *)devo__calloc(al, n, sizeof(double));
  c->order = (int *)devo__alloc(al, n, sizeof(int));
  c->tmp = (int *)devo__alloc(al, n, sizeof(int));
  c->use = (unsigned char *)devo__alloc(al, n, 1);
  c->terms = (double *)devo__alloc(al, 4 * n, sizeof(double));
  if (!c->arc || !c->m_cr || !c->m_f || !c->F || !c->CR || !c->order || !c->tmp || !c->use ||
      !c->terms)
    return -1;
  for (h = 0; h < c->hist; ++h)
    c->m_cr[h] = c->m_f[h] = DEVO__SH_M_INIT;
  return 0;
}

void devo__cshade_free(devo__cshade *c, const devo_allocator *al)
{
  devo__free(al, c->arc);
  devo__free(al, c->m_cr);
  devo__free(al, c->m_f);
  devo__free(al, c->F);
  devo__free(al, c->CR);
  devo__free(al, c->order);
  devo__free(al, c->tmp);
  devo__free(al, c->use);
  devo__free(al, c->terms);
  memset(c, 0, sizeof *c);
}

/* Bottom-up merge sort of the indices by (fit, index) into the preallocated scratch; the keys
 * are distinct, so any correct sort gives this order. */
void devo__cshade_rank(devo__cshade *c, const double *fit, int np)
{
  int *k = c->order, *t = c->tmp, w, a, p, q, e, m, x;
  for (x = 0; x < np; ++x)
    k[x] = x;
  for (w = 1; w < np; w *= 2) {
    for (a = 0; a < np; a += 2 * w) {
      m = a + w < np ? a + w : np;
      e = a + 2 * w < np ? a + 2 * w : np;
      for (p = a, q = m, x = a; x < e; ++x)
        t[x] = (q >= e ||
                (p < m && devo__sh_before(fit[k[p]], (uint32_t)k[p], fit[k[q]], (uint32_t)k[q])))
                   ? k[p++]
                   : k[q++];
    }
    memcpy(k, t, (size_t)np * sizeof *k);
  }
}

void devo__cshade_trial(devo__cshade *c, const double *pop, uint32_t gen, int i, double *trial,
                        const devo__box *box, int rule)
{
  uint32_t d = (uint32_t)c->dim, np = (uint32_t)c->np, j;
  devo__sh_ind r =
      devo__sh_draw(&c->var, c->seed, gen, (uint32_t)i, np, (uint32_t)c->asize, d, c->m_cr, c->m_f);
  const double *xi = pop + (size_t)i * d, *xpb = pop + (size_t)c->order[r.kbest] * d,
               *x1 = pop + (size_t)r.r1 * d,
               *x2 = r.r2 < np ? pop + (size_t)r.r2 * d : c->arc + (size_t)(r.r2 - np) * d;
  c->F[i] = r.f;
  c->CR[i] = r.cr;
  for (j = 0; j < d; ++j)
    trial[j] = devo__sh_trial_coord(&r, c->seed, gen, (uint32_t)i, j, xi[j], xpb[j], x1[j], x2[j],
                                    devo__box_lo(box, j), devo__box_hi(box, j), rule);
}

/* The memory update from the successes flagged in c->use (de_shade.h, 32-lane sums). */
static void update_memory(devo__cshade *c, const double *fit, const double *sel, uint32_t nsucc)
{
  int i, n = c->np;
  double *t0 = c->terms, *t1 = t0 + n, *t2 = t1 + n, *t3 = t2 + n, max_cr = 0.0;
  if (nsucc == 0u)
    return;
  for (i = 0; i < n; ++i) {
    double d;
    if (!c->use[i])
      continue;
    if (c->var.adapt == DEVO__ADAPT_JADE) {
      t0[i] = c->CR[i];
      t1[i] = DEVO_MUL(c->F[i], c->F[i]);
      t2[i] = c->F[i];
      continue;
    }
    d = devo__sh_delta(fit[i], sel[i]);
    t0[i] = devo__sh_dff(d, c->F[i]);
    t1[i] = devo__sh_df(d, c->F[i]);
    t2[i] = devo__sh_dff(d, c->CR[i]);
    t3[i] = devo__sh_df(d, c->CR[i]);
    if (c->CR[i] > max_cr)
      max_cr = c->CR[i];
  }
  if (c->var.adapt == DEVO__ADAPT_JADE) {
    devo__sh_update_jade(c->m_cr, c->m_f, c->var.c, nsucc, devo__sh_sum32(t0, c->use, n),
                         devo__sh_sum32(t1, c->use, n), devo__sh_sum32(t2, c->use, n));
  } else {
    uint32_t k = (uint32_t)c->k;
    devo__sh_update_shade(c->m_cr, c->m_f, &k, (uint32_t)c->hist, c->var.lpsr, nsucc,
                          devo__sh_sum32(t0, c->use, n), devo__sh_sum32(t1, c->use, n),
                          devo__sh_sum32(t2, c->use, n), devo__sh_sum32(t3, c->use, n), max_cr);
    c->k = (int)k;
  }
}

void devo__cshade_update(devo__cshade *c, uint32_t gen, const double *pop, const double *fit,
                         const double *sel)
{
  int i, n = c->np;
  uint32_t q = 0u;
  size_t row = (size_t)c->dim * sizeof(double);
  for (i = 0; i < n; ++i) {
    c->use[i] = sel[i] < fit[i];
    q += c->use[i];
  }
  c->np_gen = n;
  update_memory(c, fit, sel, q);
  /* archive: the parents of the successes in index order (a later one wins a shared slot) */
  for (i = 0, q = 0u; i < n; ++i) {
    int32_t slot;
    if (!c->use[i])
      continue;
    slot = devo__sh_arc_slot(c->seed, gen, (uint32_t)i, (uint32_t)c->asize, q++, (uint32_t)c->cap);
    if (slot >= 0)
      memcpy(c->arc + (size_t)slot * c->dim, pop + (size_t)i * c->dim, row);
  }
  c->asize = c->asize + (int)q < c->cap ? c->asize + (int)q : c->cap;
}

int devo__cshade_reduce(devo__cshade *c, uint32_t gen, double frac, double *pop, double *fit)
{
  int next =
      (int)devo__sh_lpsr_np((uint32_t)c->np_init, (uint32_t)c->var.np_min, frac, (uint32_t)c->np);
  int i, r, m = 0, t = 0;
  size_t row = (size_t)c->dim * sizeof(double);
  if (next >= c->np)
    return c->np;
  devo__cshade_rank(c, fit, c->np);
  memset(c->use, 0, (size_t)c->np);
  for (r = 0; r < next; ++r)
    c->use[c->order[r]] = 1; /* the next best by rank stay; ties: the higher index leaves */
  for (i = 0; i < c->np; ++i) {
    if (!c->use[i])
      continue;
    if (m != i) {
      memmove(pop + (size_t)m * c->dim, pop + (size_t)i * c->dim, row);
      fit[m] = fit[i];
    }
    m++;
  }
  c->np = next;
  c->cap = (int)devo__sh_arc_cap(c->var.arc_rate, (uint32_t)next);
  while (c->asize > c->cap) {
    uint32_t s = devo__sh_arc_remove_slot(c->seed, gen, (uint32_t)t++, (uint32_t)c->asize);
    if ((int)s != c->asize - 1)
      memcpy(c->arc + (size_t)s * c->dim, c->arc + (size_t)(c->asize - 1) * c->dim, row);
    c->asize--;
  }
  return next;
}
