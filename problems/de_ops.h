/* SPDX-License-Identifier: MIT */
/* de_ops.h: the DE/rand/1/bin operators shared by the CPU backend and the CUDA kernels
 * (Storn and Price, J. Global Optimization 11:341-359, 1997). Everything here is a pure function
 * of (seed, generation, individual, coordinate), so both backends draw the same numbers.
 *
 * Generation g >= 1 builds trial i from the population of generation g - 1:
 *   (r1, r2, r3, j_rand) = devo__de_indices(seed, g, i, NP, D)   one Philox block, slot 0
 *   for coordinate j: (u_cr, u_bound) = devo__de_coord(seed, g, i, j)  one Philox block each
 *   v_j = x_r1,j + F (x_r2,j - x_r3,j); take v_j when u_cr < CR or j == j_rand, else x_i,j;
 *   a taken v_j outside [lo, hi] is repaired by the bound rule (devo__de_repair).
 * Replacement: the trial replaces x_i when f(trial) <= f(x_i). */
#ifndef DEVO_DE_OPS_H
#define DEVO_DE_OPS_H

#include <math.h>

#include "devo_port.h"
#include "philox.h"

/* Bound rules; the numbers are the public DEVO_BOUNDS_* values of devo.h. */
enum {
  DEVO__BOUNDS_REINIT = 0,
  DEVO__BOUNDS_CLIP = 1,
  DEVO__BOUNDS_REFLECT = 2,
  DEVO__BOUNDS_MIDPOINT = 3
};

typedef struct devo__de_idx {
  uint32_t r1, r2, r3, jrand;
} devo__de_idx;

/* r1, r2, r3 mutually distinct and distinct from i, without rejection: r1 is drawn from the
 * NP - 1 values other than i, r2 from the NP - 2 values other than i and r1, r3 from the NP - 3
 * others; each draw k in [0, n) is mapped past the excluded values taken in ascending order.
 * Requires NP >= 4. */
static inline DEVO_HD devo__de_idx devo__de_indices(uint64_t seed, uint32_t gen, uint32_t i,
                                                    uint32_t np, uint32_t dim)
{
  devo__u32x4 w = devo__rng(seed, 0u, gen, i, DEVO__RNG_INDEX);
  devo__de_idx r;
  uint32_t a, b, c, t;
  r.r1 = devo__below(w.v[0], np - 1u);
  if (r.r1 >= i)
    r.r1++;
  a = i < r.r1 ? i : r.r1;
  b = i < r.r1 ? r.r1 : i;
  r.r2 = devo__below(w.v[1], np - 2u);
  if (r.r2 >= a)
    r.r2++;
  if (r.r2 >= b)
    r.r2++;
  /* sort (i, r1, r2) into a <= b <= c */
  c = r.r2;
  if (c < b) {
    t = b;
    b = c;
    c = t;
  }
  if (b < a) {
    t = a;
    a = b;
    b = t;
  }
  r.r3 = devo__below(w.v[2], np - 3u);
  if (r.r3 >= a)
    r.r3++;
  if (r.r3 >= b)
    r.r3++;
  if (r.r3 >= c)
    r.r3++;
  r.jrand = devo__below(w.v[3], dim);
  return r;
}

typedef struct devo__de_u {
  double cr;    /* crossover uniform in [0,1) */
  double bound; /* uniform in [0,1) for the reinit bound rule */
} devo__de_u;

static inline DEVO_HD devo__de_u devo__de_u_of(devo__u32x4 w)
{
  devo__de_u u;
  u.cr = devo__u01(w.v[0], w.v[1]);
  u.bound = devo__u01(w.v[2], w.v[3]);
  return u;
}

static inline DEVO_HD devo__de_u devo__de_coord(uint64_t seed, uint32_t gen, uint32_t i, uint32_t j)
{
  return devo__de_u_of(devo__rng(seed, j, gen, i, DEVO__RNG_COORD));
}

/* The same with the seed's round keys (philox.h; the GPU kernels' draws). */
static inline DEVO_HD devo__de_u devo__de_coord_ks(const devo__philox_keys *ks, uint32_t gen,
                                                   uint32_t i, uint32_t j)
{
  return devo__de_u_of(devo__rng_ks(ks, j, gen, i, DEVO__RNG_COORD));
}

/* Initial coordinate j of individual i: uniform in [lo, hi). */
static inline DEVO_HD double devo__de_init(uint64_t seed, uint32_t i, uint32_t j, double lo,
                                           double hi)
{
  devo__u32x4 w = devo__rng(seed, j, 0u, i, DEVO__RNG_INIT);
  return lo + DEVO_MUL(devo__u01(w.v[0], w.v[1]), hi - lo);
}

/* Repair a mutant coordinate v that left [lo, hi]; parent is x_i,j (inside the bounds).
 * reinit: uniform in the bounds; clip: the nearest bound; reflect: mirrored at the violated
 * bound, then clipped if the mirror image is still outside; midpoint: halfway between the parent
 * and the violated bound. */
static inline DEVO_HD double devo__de_repair(double v, double parent, double lo, double hi,
                                             int rule, double u)
{
  if (v >= lo && v <= hi)
    return v;
  switch (rule) {
  case DEVO__BOUNDS_CLIP:
    return v < lo ? lo : hi;
  case DEVO__BOUNDS_REFLECT:
    v = v < lo ? lo + (lo - v) : hi - (v - hi);
    return v < lo ? lo : (v > hi ? hi : v);
  case DEVO__BOUNDS_MIDPOINT:
    return v < lo ? 0.5 * (parent + lo) : 0.5 * (parent + hi);
  default:
    return lo + DEVO_MUL(u, hi - lo);
  }
}

/* The crossover test without floating point: for the words (w0, w1) behind u.cr,
 * u.cr < cr  <=>  devo__u53(w0, w1) < devo__de_cr_bound(cr). u.cr is m 2^-53 exactly (m the
 * 53-bit integer), and for integer m, m < cr 2^53 <=> m < ceil(cr 2^53); cr 2^53 is exact (a power
 * of two scaling) and at most 2^53, so the ceiling converts exactly. The GPU scheduling kernel
 * uses it to skip a conversion and a double compare per coordinate. */
static inline DEVO_HD uint64_t devo__de_cr_bound(double cr)
{
  if (!(cr > 0.0))
    return 0u;
  if (cr >= 1.0)
    return (uint64_t)1 << 53;
  return (uint64_t)ceil(cr * 9007199254740992.0);
}

/* Binomial crossover: whether coordinate j takes the mutant. */
static inline DEVO_HD int devo__de_take(devo__de_u u, uint32_t j, devo__de_idx r, double cr)
{
  return u.cr < cr || j == r.jrand;
}

/* The mutant coordinate x_r1 + F (x_r2 - x_r3), repaired; ubound is devo__de_u.bound. */
static inline DEVO_HD double devo__de_mutant(double xi, double x1, double x2, double x3, double f,
                                             double lo, double hi, int rule, double ubound)
{
  double v = x1 + DEVO_MUL(f, x2 - x3);
  return devo__de_repair(v, xi, lo, hi, rule, ubound);
}

/* Trial coordinate j of individual i (the two steps above; kernels/gpu_fast.cu calls them
 * separately to draw u before the donors arrive). */
static inline DEVO_HD double devo__de_trial_coord(uint64_t seed, uint32_t gen, uint32_t i,
                                                  uint32_t j, devo__de_idx r, double xi, double x1,
                                                  double x2, double x3, double f, double cr,
                                                  double lo, double hi, int rule)
{
  devo__de_u u = devo__de_coord(seed, gen, i, j);
  if (!devo__de_take(u, j, r, cr))
    return xi;
  return devo__de_mutant(xi, x1, x2, x3, f, lo, hi, rule, u.bound);
}

#endif /* DEVO_DE_OPS_H */
