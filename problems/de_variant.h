/* SPDX-License-Identifier: MIT */
/* de_variant.h: the DE variants (mutation strategies, exponential crossover, jDE, GOBL) shared by
 * the CPU backend and the CUDA kernels, in the C subset that nvcc compiles (devo_port.h). Every
 * draw is a pure function of (seed, generation, individual, coordinate, purpose), so both
 * backends build the same trials bit for bit. The plain variant (rand1, binomial, no jDE, no
 * GOBL) draws exactly what de_ops.h draws: today's DE/rand/1/bin.
 *
 * Per individual i of generation g (once): devo__var_draw() gives the donors r1..r5 (bounded
 * mapping, no rejection), j_rand, the jDE values F and CR of the trial and, for the exponential
 * crossover, its start n and length L. Per coordinate j: devo__var_trial_coord() builds trial
 * coordinate j from the parent's, the best's and the donors' coordinate j. GOBL generations
 * (devo__gobl_jump) replace the DE step by an opposition jump (devo__gobl_opposite).
 *
 * Sources: strategy names and formulas as SciPy's differential_evolution documents them
 * (docs.scipy.org, scipy.optimize.differential_evolution, "strategy"); jDE: Brest, Greiner,
 * Boskovic, Mernik, Zumer, IEEE TEC 10(6):646-657, 2006; GOBL / GOjDE: Wang, Rahnamayan, Wu,
 * J. Parallel Distrib. Comput. 73(1):62-73, 2013 ("A GPU-based parallel differential evolution
 * with generalized opposition-based learning"); the one-uniform draw of the exponential
 * crossover's length: the NEC paper (issue 18). docs/variants.md has every formula. */
#ifndef DEVO_DE_VARIANT_H
#define DEVO_DE_VARIANT_H

#include "de_ops.h"

/* THE strategy table: adding a strategy is one row here (and its tests).
 * X(ID, name, picks, uses_best, mutant expression). The expression is the mutant coordinate in
 * terms of xi (parent), xb (best of the previous generation), x1..x5 (donors r1..r5) and f, in a
 * fixed floating-point order, with DEVO_MUL so that nvcc cannot contract into an FMA. The sums
 * are evaluated left to right as SciPy writes them. */
#define DEVO__STRATEGIES(X)                                                                        \
  X(RAND1, "rand1", 3, 0, x1 + DEVO_MUL(f, x2 - x3))                                               \
  X(RAND2, "rand2", 5, 0, x1 + DEVO_MUL(f, x2 + x3 - x4 - x5))                                     \
  X(BEST1, "best1", 2, 1, xb + DEVO_MUL(f, x1 - x2))                                               \
  X(BEST2, "best2", 4, 1, xb + DEVO_MUL(f, x1 + x2 - x3 - x4))                                     \
  X(CURRENTTOBEST1, "currenttobest1", 2, 1, xi + DEVO_MUL(f, xb - xi + x1 - x2))                   \
  X(RANDTOBEST1, "randtobest1", 3, 1, x1 + DEVO_MUL(f, xb - x1 + x2 - x3))

/* Strategy ids (== the public DEVO_STRATEGY_* of devo.h, in table order). */
#define DEVO__STRAT_ENUM_(id, name, picks, best, expr) DEVO__STRAT_##id,
enum { DEVO__STRATEGIES(DEVO__STRAT_ENUM_) DEVO__STRAT_COUNT };
#undef DEVO__STRAT_ENUM_

/* Crossovers (== the public DEVO_CROSSOVER_*). */
enum { DEVO__XOVER_BIN = 0, DEVO__XOVER_EXP = 1 };

#define DEVO__MAX_PICKS 5

/* Parameter adaptation (devo__variant.adapt). jDE stays the jde flag (DEVO__ADAPT_JDE names it;
 * adapt is not set for it); JADE and SHADE (with lpsr: L-SHADE) are de_shade.h's family, which
 * always runs current-to-pbest/1/bin with its archive (strategy, crossover, F, CR unused). */
enum { DEVO__ADAPT_NONE = 0, DEVO__ADAPT_JDE = 1, DEVO__ADAPT_JADE = 2, DEVO__ADAPT_SHADE = 3 };

/* The variant of a run (engine/internal.h keeps one in devo__opts). */
typedef struct devo__variant {
  int strategy, crossover;             /* DEVO__STRAT_*, DEVO__XOVER_* */
  int jde;                             /* 0/1 */
  double tau1, tau2, fl, fu, crl, cru; /* jDE's probabilities and ranges */
  double gobl;                         /* GOBL jump probability p_o; 0 = off */
  /* de_shade.h (adapt JADE or SHADE): */
  int adapt;       /* DEVO__ADAPT_NONE, _JADE or _SHADE */
  double p;        /* pbest rate: the best max(2, round(p NP)) */
  double arc_rate; /* archive capacity = round(arc_rate NP); 0 = no archive */
  int hist;        /* SHADE: history size H */
  double c;        /* JADE: learning rate c */
  int lpsr;        /* SHADE: 1 = L-SHADE's linear population size reduction */
  int np_min;      /* L-SHADE: final population size */
} devo__variant;

/* jDE's published settings (Brest et al. 2006, section III) and initial F_i, CR_i. */
#define DEVO__JDE_TAU1    0.1
#define DEVO__JDE_TAU2    0.1
#define DEVO__JDE_FL      0.1
#define DEVO__JDE_FU      0.9
#define DEVO__JDE_CRL     0.0
#define DEVO__JDE_CRU     1.0
#define DEVO__JDE_F_INIT  0.5
#define DEVO__JDE_CR_INIT 0.9

/* The default variant: rand1bin, jDE off (its parameters at jDE's defaults), GOBL off, no
 * JADE/SHADE (their fields at SHADE's defaults, de_shade.h). */
static inline DEVO_HD devo__variant devo__variant_default(void)
{
  devo__variant v;
  v.strategy = DEVO__STRAT_RAND1;
  v.crossover = DEVO__XOVER_BIN;
  v.jde = 0;
  v.tau1 = DEVO__JDE_TAU1;
  v.tau2 = DEVO__JDE_TAU2;
  v.fl = DEVO__JDE_FL;
  v.fu = DEVO__JDE_FU;
  v.crl = DEVO__JDE_CRL;
  v.cru = DEVO__JDE_CRU;
  v.gobl = 0.0;
  v.adapt = DEVO__ADAPT_NONE;
  v.p = 0.11;
  v.arc_rate = 1.0;
  v.hist = 100;
  v.c = 0.1;
  v.lpsr = 0;
  v.np_min = 4;
  return v;
}

/* Whether v runs de_shade.h's family (JADE, SHADE, L-SHADE). */
static inline DEVO_HD int devo__variant_shade(const devo__variant *v)
{
  return v->adapt == DEVO__ADAPT_JADE || v->adapt == DEVO__ADAPT_SHADE;
}

/* Whether v is today's DE/rand/1/bin (what the specialised GPU kernels run). */
static inline DEVO_HD int devo__variant_plain(const devo__variant *v)
{
  return v->strategy == DEVO__STRAT_RAND1 && v->crossover == DEVO__XOVER_BIN && !v->jde &&
         !(v->gobl > 0.0) && v->adapt == DEVO__ADAPT_NONE;
}

/* Donors a strategy draws (r1..r_picks), and whether it reads the best individual. */
static inline DEVO_HD int devo__strategy_picks(int strategy)
{
#define DEVO__STRAT_PICKS_(id, name, picks, best, expr)                                            \
  case DEVO__STRAT_##id:                                                                           \
    return picks;
  switch (strategy) {
    DEVO__STRATEGIES(DEVO__STRAT_PICKS_)
  default:
    return 3;
  }
#undef DEVO__STRAT_PICKS_
}

static inline DEVO_HD int devo__strategy_uses_best(int strategy)
{
#define DEVO__STRAT_BEST_(id, name, picks, best, expr)                                             \
  case DEVO__STRAT_##id:                                                                           \
    return best;
  switch (strategy) {
    DEVO__STRATEGIES(DEVO__STRAT_BEST_)
  default:
    return 0;
  }
#undef DEVO__STRAT_BEST_
}

/* The smallest population a strategy runs with: its donors plus the target, and at least 4
 * (de_ops.h's three picks are always drawn). */
static inline DEVO_HD int devo__strategy_min_np(int strategy)
{
  int n = devo__strategy_picks(strategy) + 1;
  return n < 4 ? 4 : n;
}

/* The mutant coordinate of a strategy (not repaired). x holds the donors' coordinate j
 * (x[0] = x_r1,j ... ; only the first picks are read), xi the parent's, xb the best's. */
static inline DEVO_HD double devo__strategy_mutant(int strategy, double f, double xi, double xb,
                                                   const double *x)
{
  double x1 = x[0], x2 = x[1], x3 = 0.0, x4 = 0.0, x5 = 0.0;
  int k = devo__strategy_picks(strategy);
  (void)xi;
  (void)xb;
  if (k > 2)
    x3 = x[2];
  if (k > 3)
    x4 = x[3];
  if (k > 4)
    x5 = x[4];
#define DEVO__STRAT_MUT_(id, name, picks, best, expr)                                              \
  case DEVO__STRAT_##id:                                                                           \
    return expr;
  switch (strategy) {
    DEVO__STRATEGIES(DEVO__STRAT_MUT_)
  default:
    return x1 + DEVO_MUL(f, x2 - x3);
  }
#undef DEVO__STRAT_MUT_
}

/* ---- donors: picks 1-3 and j_rand are de_ops.h's (purpose INDEX); picks 4 and 5 come from
 * words w0, w1 of the INDEX2 block (slot 0), whose words w2, w3 give the exponential crossover's
 * length uniform. ---- */

/* Inserts v (not among them) into the ascending ex[0..m-1], m <= DEVO__MAX_PICKS (ex holds
 * DEVO__MAX_PICKS + 1). Constant indices only: the loops run over every slot under guards, so a
 * GPU compiler unrolls them and keeps ex in registers; a shift by a run-time index put ex in a
 * thread's local memory, which the persistent kernels touched between their grid barriers. */
static inline DEVO_HD void devo__var_insert(uint32_t *ex, int m, uint32_t v)
{
  int a, pos = 0;
  DEVO_UNROLL
  for (a = 0; a < DEVO__MAX_PICKS; ++a)
    pos += a < m && ex[a] < v;
  DEVO_UNROLL
  for (a = DEVO__MAX_PICKS; a >= 1; --a)
    if (a <= m) {
      if (a > pos)
        ex[a] = ex[a - 1];
      else if (a == pos)
        ex[a] = v;
    }
  if (pos == 0)
    ex[0] = v;
}

/* Maps a draw k in [0, NP - m) past the m excluded values ex[0..m-1] (sorted ascending; ex holds
 * DEVO__MAX_PICKS + 1), giving a value uniform over the NP - m others. Keeps ex sorted with the
 * new value inserted. */
static inline DEVO_HD uint32_t devo__var_map_past(uint32_t k, uint32_t *ex, int m)
{
  int a;
  DEVO_UNROLL
  for (a = 0; a < DEVO__MAX_PICKS; ++a)
    if (a < m && k >= ex[a])
      k++;
  devo__var_insert(ex, m, k);
  return k;
}

/* Picks 4 and 5 (npicks > 3) after de_ops.h's r1..r3, into r[3], r[4]. Requires NP >= npicks + 1.
 * w: the INDEX2 block. Pick k (k = 4, 5) is drawn in [0, NP - k) and mapped past i, r1..r_{k-1}
 * in ascending order. */
static inline DEVO_HD void devo__var_picks45(devo__u32x4 w, uint32_t i, uint32_t np, int npicks,
                                             uint32_t *r)
{
  uint32_t ex[DEVO__MAX_PICKS + 1];
  int m = 1, k;
  ex[0] = i; /* i, r1, r2, r3 sorted ascending by insertion */
  DEVO_UNROLL
  for (k = 0; k < 3; ++k)
    devo__var_insert(ex, m++, r[k]);
  DEVO_UNROLL
  for (k = 3; k < DEVO__MAX_PICKS; ++k)
    if (k < npicks) {
      r[k] = devo__var_map_past(devo__below(w.v[k - 3], np - (uint32_t)(k + 1)), ex, m);
      m++;
    }
}

/* ---- exponential crossover ---- */

/* Dimensions with D - 1 < 2^DEVO__EXP_NB_REG take devo__exp_length's short path: the powers
 * CR^(2^b), b < DEVO__EXP_NB_REG, computed once in a fixed-size array that a GPU compiler keeps in
 * registers (constant indices after unrolling). */
#define DEVO__EXP_NB_REG 10

/* The length L in [1, D] from the uniform u in (0, 1]: the smallest k >= 1 with CR^k < u, capped
 * at D, so P(L > k) = CR^k for 1 <= k < D (P(L = k) = CR^(k-1) (1 - CR), P(L = D) = CR^(D-1)):
 * the inverse of the truncated geometric law (NEC). L - 1 is the largest t <= D - 1 with
 * CR^t >= u, found by binary lifting: p_b = CR^(2^b) by repeated squaring, then greedily from
 * the top bit, with DEVO_MUL (same bits on CPU and GPU; no loop over coordinates). CR = 0 gives
 * L = 1 (0 >= u never holds) and CR = 1 gives L = D exactly.
 * Two paths, the same products in the same order (so the same bits: test_variants checks both
 * against the array form): for D - 1 < 2^DEVO__EXP_NB_REG the powers are squared once into an
 * array (9 dependent squarings, then at most 10 products); beyond, each p_b is squared again
 * from CR (O(log^2 D) products, no array: an array indexed by a run-time b would live in a GPU
 * thread's local memory). The short path exists for the GPU's post-barrier chain: the long one
 * cost a chain of 28 dependent products and loop steps at D = 100, 55 at D = 1000. */
static inline DEVO_HD uint32_t devo__exp_length(double cr, double u, uint32_t dim)
{
  double acc = 1.0;
  uint32_t tmax = dim - 1u, t = 0u;
  int nb = 0, b, k;
  if (dim <= 1u)
    return 1u;
  if (cr >= 1.0)
    return dim;
  if (!(cr > 0.0))
    return 1u;
  if (tmax < (1u << DEVO__EXP_NB_REG)) {
    double p[DEVO__EXP_NB_REG];
    p[0] = cr;
    for (b = 1; b < DEVO__EXP_NB_REG; ++b)
      p[b] = DEVO_MUL(p[b - 1], p[b - 1]);
    for (b = DEVO__EXP_NB_REG - 1; b >= 0; --b) {
      const uint32_t step = (uint32_t)1 << b;
      const double c = DEVO_MUL(acc, p[b]);
      if (t + step <= tmax && c >= u) {
        acc = c;
        t += step;
      }
    }
    return t + 1u;
  }
  while (nb < 31 && ((uint32_t)1 << (nb + 1)) <= tmax)
    nb++;
  for (b = nb; b >= 0; --b) {
    uint32_t step = (uint32_t)1 << b;
    if (t + step <= tmax) {
      double c, pb = cr;
      for (k = 0; k < b; ++k)
        pb = DEVO_MUL(pb, pb);
      c = DEVO_MUL(acc, pb);
      if (c >= u) {
        acc = c;
        t += step;
      }
    }
  }
  return t + 1u;
}

/* The length uniform in (0, 1]: (m + 1) 2^-53 for the 53-bit integer m of words (w2, w3) of the
 * INDEX2 block. */
static inline DEVO_HD double devo__exp_u(devo__u32x4 w)
{
  return (double)(devo__u53(w.v[2], w.v[3]) + 1u) * (1.0 / 9007199254740992.0);
}

/* Whether coordinate j lies in the cyclic run n, n + 1, ..., n + L - 1 (mod D). */
static inline DEVO_HD int devo__exp_take(uint32_t j, uint32_t n, uint32_t len, uint32_t dim)
{
  uint32_t off = j >= n ? j - n : j + dim - n;
  return off < len;
}

/* ---- jDE (Brest et al. 2006, eq. (10), (11)): purpose JDE, slot 0 for F, slot 1 for CR;
 * (w0, w1) the uniform a1 compared with tau, (w2, w3) the uniform a2 of the new value. ---- */

static inline DEVO_HD double devo__jde_f(uint64_t seed, uint32_t gen, uint32_t i,
                                         const devo__variant *v, double fi)
{
  devo__u32x4 w = devo__rng(seed, 0u, gen, i, DEVO__RNG_JDE);
  if (devo__u01(w.v[0], w.v[1]) < v->tau1)
    return v->fl + DEVO_MUL(devo__u01(w.v[2], w.v[3]), v->fu);
  return fi;
}

static inline DEVO_HD double devo__jde_cr(uint64_t seed, uint32_t gen, uint32_t i,
                                          const devo__variant *v, double cri)
{
  devo__u32x4 w = devo__rng(seed, 1u, gen, i, DEVO__RNG_JDE);
  if (devo__u01(w.v[0], w.v[1]) < v->tau2)
    return v->crl + DEVO_MUL(devo__u01(w.v[2], w.v[3]), v->cru);
  return cri;
}

/* ---- what individual i draws once per generation ---- */

typedef struct devo__var_ind {
  uint32_t r[DEVO__MAX_PICKS]; /* donors r1..r_picks (the rest unset) */
  uint32_t jrand;              /* binomial: the coordinate always taken; exponential: start n */
  uint32_t len;                /* exponential: L (binomial: 0) */
  double f, cr;                /* the trial's F and CR (jDE: F', CR'; else the run's) */
} devo__var_ind;

/* All of individual i's per-generation draws for the variant v. f, cr: the run's F and CR, or
 * with jDE the individual's current F_i, CR_i (the trial's F', CR' come back in the result).
 * Requires NP >= devo__strategy_min_np(v->strategy). */
static inline DEVO_HD devo__var_ind devo__var_draw(const devo__variant *v, uint64_t seed,
                                                   uint32_t gen, uint32_t i, uint32_t np,
                                                   uint32_t dim, double f, double cr)
{
  devo__var_ind d;
  devo__de_idx r = devo__de_indices(seed, gen, i, np, dim);
  int npicks = devo__strategy_picks(v->strategy);
  d.r[0] = r.r1;
  d.r[1] = r.r2;
  d.r[2] = r.r3;
  d.r[3] = 0u;
  d.r[4] = 0u;
  d.jrand = r.jrand;
  d.len = 0u;
  d.f = f;
  d.cr = cr;
  if (v->jde) {
    d.f = devo__jde_f(seed, gen, i, v, f);
    d.cr = devo__jde_cr(seed, gen, i, v, cr);
  }
  if (npicks > 3 || v->crossover == DEVO__XOVER_EXP) {
    devo__u32x4 w = devo__rng(seed, 0u, gen, i, DEVO__RNG_INDEX2);
    if (npicks > 3)
      devo__var_picks45(w, i, np, npicks, d.r);
    if (v->crossover == DEVO__XOVER_EXP)
      d.len = devo__exp_length(d.cr, devo__exp_u(w), dim);
  }
  return d;
}

/* Whether trial coordinate j takes the mutant: binomial (u.cr < CR or j == j_rand) or
 * exponential (j in the run from n = j_rand of length L). u: devo__de_coord's uniforms. */
static inline DEVO_HD int devo__var_take(const devo__variant *v, const devo__var_ind *d,
                                         devo__de_u u, uint32_t j, uint32_t dim)
{
  if (v->crossover == DEVO__XOVER_EXP)
    return devo__exp_take(j, d->jrand, d->len, dim);
  return u.cr < d->cr || j == d->jrand;
}

/* Trial coordinate j from the parent's xi, the best's xb (read only by best strategies) and the
 * donors' coordinates x[0..picks-1], with the coordinate uniforms u (devo__de_coord or
 * devo__de_coord_ks): the mutant, repaired by the bound rule, where the crossover takes it,
 * else xi. For rand1bin these are de_ops.h's operations in de_ops.h's order. */
static inline DEVO_HD double devo__var_trial_u(const devo__variant *v, const devo__var_ind *d,
                                               devo__de_u u, uint32_t j, uint32_t dim, double xi,
                                               double xb, const double *x, double lo, double hi,
                                               int rule)
{
  double m;
  if (!devo__var_take(v, d, u, j, dim))
    return xi;
  m = devo__strategy_mutant(v->strategy, d->f, xi, xb, x);
  return devo__de_repair(m, xi, lo, hi, rule, u.bound);
}

/* The same, drawing u itself: the one call a kernel or the CPU backend needs per coordinate. */
static inline DEVO_HD double devo__var_trial_coord(const devo__variant *v, const devo__var_ind *d,
                                                   uint64_t seed, uint32_t gen, uint32_t i,
                                                   uint32_t j, uint32_t dim, double xi, double xb,
                                                   const double *x, double lo, double hi, int rule)
{
  return devo__var_trial_u(v, d, devo__de_coord(seed, gen, i, j), j, dim, xi, xb, x, lo, hi, rule);
}

/* ---- GOBL (Wang, Rahnamayan, Wu 2013): purpose GOBL ---- */

/* Whether generation gen (>= 1) is an opposition jump, and its k in [0, 1): the uniforms of
 * words (w0, w1) and (w2, w3) of the block (slot 0, gen, individual 0). p_o = 0: never. */
static inline DEVO_HD int devo__gobl_jump(uint64_t seed, uint32_t gen, double p_o, double *k)
{
  devo__u32x4 w;
  if (!(p_o > 0.0) || gen == 0u)
    return 0;
  w = devo__rng(seed, 0u, gen, 0u, DEVO__RNG_GOBL);
  if (k)
    *k = devo__u01(w.v[2], w.v[3]);
  return devo__u01(w.v[0], w.v[1]) < p_o;
}

/* Opposite coordinate j of individual i: x* = k (a_j + b_j) - x_ij, with a_j, b_j the
 * population's min and max of coordinate j; outside the box [lo, hi] it is replaced by
 * a_j + u (b_j - a_j), u the uniform of words (w0, w1) of the block (slot j + 1, gen,
 * individual i) (slot 0 of individual 0 holds the jump decision). */
static inline DEVO_HD double devo__gobl_opposite(uint64_t seed, uint32_t gen, uint32_t i,
                                                 uint32_t j, double k, double a, double b, double x,
                                                 double lo, double hi)
{
  double o = DEVO_MUL(k, a + b) - x;
  devo__u32x4 w;
  if (o >= lo && o <= hi)
    return o;
  w = devo__rng(seed, j + 1u, gen, i, DEVO__RNG_GOBL);
  return a + DEVO_MUL(devo__u01(w.v[0], w.v[1]), b - a);
}

/* Survivor order of a jump: candidate p (parents 0..NP-1, opposites NP..2NP-1) before q when
 * (f_p, p) < (f_q, q); fitness is never NaN (evaluation maps NaN to +inf). */
static inline DEVO_HD int devo__gobl_before(double fp, uint32_t p, double fq, uint32_t q)
{
  return fp < fq || (fp == fq && p < q);
}

#endif /* DEVO_DE_VARIANT_H */
