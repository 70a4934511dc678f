/* SPDX-License-Identifier: MIT */
/* de_shade.h: JADE, SHADE and L-SHADE (issue 24, docs/shade.md) shared by the CPU backend
 * and the CUDA kernels, in the C subset that nvcc compiles (devo_port.h). Pure functions only:
 * every draw is a function of (seed, generation, individual, slot, purpose) and every
 * floating-point result is built from + - * / and sqrt in a fixed order with DEVO_MUL (no libm
 * log/tan/cos, no FMA contraction), so the CPU (any thread count) and the GPU give the same bits.
 *
 * Sources: JADE: Zhang and Sanderson, IEEE TEC 13(5):945-958, 2009; SHADE: Tanabe and Fukunaga,
 * IEEE CEC 2013, 71-78; L-SHADE: Tanabe and Fukunaga, IEEE CEC 2014, 1658-1665. docs/shade.md
 * has every formula and default.
 *
 * Generation g >= 1 (the initial population is generation 0), individual i, population size
 * NP = NP_g, archive size A = |A| before the generation, H history slots (JADE: H = 1, its mu's).
 * The Philox words (devo__rng(seed, slot, g, i, purpose), words w0..w3):
 *   INDEX (2), slot 0 (de_ops.h's block):
 *     w0 -> r1 = devo__below(w0, NP - 1) mapped past i             (population only)
 *     w1 -> r2 = devo__below(w1, NP + A - 2) mapped past {i, r1}   (r2 >= NP: archive row r2 - NP)
 *     w2    unused
 *     w3 -> j_rand = devo__below(w3, D)
 *   COORD (3), slot j: de_ops.h's devo__de_coord: (w0, w1) crossover uniform, (w2, w3) the
 *     uniform of the reinit bound rule.
 *   SHADE (12), slot 0: w0 -> history slot r_i = devo__below(w0, H) (JADE: w0 unused, r_i = 0);
 *                       w1 unused; (w2, w3) -> u2 = devo__u01 (Box-Muller's angle)
 *   SHADE (12), slot 1: (w0, w1) -> u1 = (devo__u53 + 1) 2^-53 in (0, 1] (Box-Muller's radius);
 *                       w2 -> pbest rank k = devo__below(w2, npb); w3 unused
 *   SHADE (12), slot 2 + t, t = 0..63: the Cauchy attempt t: u = devo__u01(w0, w1); the attempt
 *     with u == 0 (tan(-pi/2)) is rejected like F <= 0; w2, w3 unused.
 *   ARCHIVE (13), slot 0, individual i: w0 -> the overwrite slot devo__below(w0, cap) of
 *     inserter i (only when the archive is full for it, see devo__sh_arc_slot).
 *   ARCHIVE (13), slot t + 1, individual 0: w0 -> the slot devo__below(w0, |A|) of archive
 *     removal t (t = 0, 1, ...) in L-SHADE's shrink after generation g.
 *
 * F_i = M_F[r_i] + 0.1 tan(pi (u - 1/2)) for the first attempt with F_i > 0 (cut at 1); all 64
 * attempts failing (probability about 2^-64) gives F_i = M_F[r_i].
 * CR_i = M_CR[r_i] + 0.1 sqrt(-2 ln u1) cos(2 pi u2), clipped to [0, 1]; M_CR[r_i] terminal
 * (DEVO__SH_TERMINAL, L-SHADE) gives CR_i = 0.
 * Trial: v_j = (x_ij + F (xpbest_j - x_ij)) + F (x_r1,j - x_r2,j), binomial crossover with CR_i
 * and j_rand, then devo__de_repair. pbest = order[k], order sorted by (f, index) ascending over
 * the population of generation g - 1.
 * After selection: the sums over the successes (f(u_i) < f(x_i) strictly) in the 32-lane order
 * (devo__sh_sum32), then devo__sh_update_shade / devo__sh_update_jade; archive inserts
 * (devo__sh_arc_slot) after all trials of g are built; L-SHADE: devo__sh_lpsr_np, the worst leave
 * (stable compaction), archive shrink (devo__sh_arc_remove_slot). */
#ifndef DEVO_DE_SHADE_H
#define DEVO_DE_SHADE_H

#include "de_variant.h"

/* ---- defaults (the presets; docs/shade.md) ---- */
#define DEVO__SH_M_INIT         0.5    /* initial M_CR, M_F (JADE: mu_CR, mu_F) */
#define DEVO__SH_TERMINAL       (-1.0) /* L-SHADE's terminal value of M_CR */
#define DEVO__SH_CAUCHY_TRIES   64
#define DEVO__JADE_P            0.05
#define DEVO__JADE_C            0.1
#define DEVO__JADE_ARC          1.0
#define DEVO__SHADE_H           100
#define DEVO__SHADE_P           0.11
#define DEVO__SHADE_ARC         1.0
#define DEVO__LSHADE_H          6
#define DEVO__LSHADE_P          0.11
#define DEVO__LSHADE_ARC        2.6
#define DEVO__LSHADE_NP_MIN     4
#define DEVO__LSHADE_NP_PER_DIM 18

/* ---- closed-form math ---- */

/* Round half away from zero for x >= 0 (x - floor(x) is exact). */
static inline DEVO_HD double devo__sh_round(double x)
{
  double r = floor(x);
  return x - r >= 0.5 ? r + 1.0 : r;
}

/* ln x for x in (0, 1] (Box-Muller's u1 >= 2^-53): x = m 2^e exactly with m in [sqrt(1/2), 1]
 * (exact scalings by powers of two), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172, by its
 * odd series through s^27 (the first term left out is below 1e-20 relative), plus e ln 2 with ln 2
 * split hi/lo (fdlibm's split: e * ln2_hi is exact for |e| < 2^11). All terms are <= 0: no
 * cancellation. */
static inline DEVO_HD double devo__sh_log(double x)
{
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  double e = 0.0, s, z, p;
  while (x < 2.3283064365386963e-10) { /* 2^-32 (a loop for x below 2^-63, subnormals too) */
    x = DEVO_MUL(x, 4294967296.0);
    e -= 32.0;
  }
  if (x < 1.52587890625e-05) { /* 2^-16 */
    x = DEVO_MUL(x, 65536.0);
    e -= 16.0;
  }
  if (x < 0.00390625) { /* 2^-8 */
    x = DEVO_MUL(x, 256.0);
    e -= 8.0;
  }
  if (x < 0.0625) {
    x = DEVO_MUL(x, 16.0);
    e -= 4.0;
  }
  if (x < 0.25) {
    x = DEVO_MUL(x, 4.0);
    e -= 2.0;
  }
  if (x < 0.5) {
    x = DEVO_MUL(x, 2.0);
    e -= 1.0;
  }
  if (x < 0.70710678118654752440) {
    x = DEVO_MUL(x, 2.0);
    e -= 1.0;
  }
  s = (x - 1.0) / (x + 1.0);
  z = DEVO_MUL(s, s);
  p = 0.037037037037037035; /* 1/27 */
  p = 0.04 + DEVO_MUL(z, p);
  p = 0.043478260869565216 + DEVO_MUL(z, p);
  p = 0.047619047619047616 + DEVO_MUL(z, p);
  p = 0.05263157894736842 + DEVO_MUL(z, p);
  p = 0.058823529411764705 + DEVO_MUL(z, p);
  p = 0.06666666666666667 + DEVO_MUL(z, p);
  p = 0.07692307692307693 + DEVO_MUL(z, p);
  p = 0.09090909090909091 + DEVO_MUL(z, p);
  p = 0.1111111111111111 + DEVO_MUL(z, p);
  p = 0.14285714285714285 + DEVO_MUL(z, p);
  p = 0.2 + DEVO_MUL(z, p);
  p = 0.3333333333333333 + DEVO_MUL(z, p);
  p = 1.0 + DEVO_MUL(z, p);
  return DEVO_MUL(e, ln2_hi) + (DEVO_MUL(e, ln2_lo) + DEVO_MUL(2.0, DEVO_MUL(s, p)));
}

/* sin(pi b) and cos(pi b) for b in [0, 1/4]: Taylor series in x = pi b (x <= 0.786) through
 * x^19 / 19! and x^20 / 20! (first terms left out below 1e-19), Horner in z = x^2. */
static inline DEVO_HD void devo__sh_sincospi_q(double b, double *s, double *c)
{
  double x = DEVO_MUL(DEVO_PI, b), z = DEVO_MUL(x, x), ps, pc;
  ps = -8.22063524662433e-18;                     /* -1/19! */
  ps = 2.8114572543455206e-15 + DEVO_MUL(z, ps);  /* 1/17! */
  ps = -7.647163731819816e-13 + DEVO_MUL(z, ps);  /* -1/15! */
  ps = 1.6059043836821613e-10 + DEVO_MUL(z, ps);  /* 1/13! */
  ps = -2.505210838544172e-08 + DEVO_MUL(z, ps);  /* -1/11! */
  ps = 2.7557319223985893e-06 + DEVO_MUL(z, ps);  /* 1/9! */
  ps = -0.0001984126984126984 + DEVO_MUL(z, ps);  /* -1/7! */
  ps = 0.008333333333333333 + DEVO_MUL(z, ps);    /* 1/5! */
  ps = -0.16666666666666666 + DEVO_MUL(z, ps);    /* -1/3! */
  pc = 4.110317623312165e-19;                     /* 1/20! */
  pc = -1.5619206968586225e-16 + DEVO_MUL(z, pc); /* -1/18! */
  pc = 4.779477332387385e-14 + DEVO_MUL(z, pc);   /* 1/16! */
  pc = -1.1470745597729725e-11 + DEVO_MUL(z, pc); /* -1/14! */
  pc = 2.08767569878681e-09 + DEVO_MUL(z, pc);    /* 1/12! */
  pc = -2.755731922398589e-07 + DEVO_MUL(z, pc);  /* -1/10! */
  pc = 2.48015873015873e-05 + DEVO_MUL(z, pc);    /* 1/8! */
  pc = -0.001388888888888889 + DEVO_MUL(z, pc);   /* -1/6! */
  pc = 0.041666666666666664 + DEVO_MUL(z, pc);    /* 1/4! */
  pc = -0.5 + DEVO_MUL(z, pc);
  *s = x + DEVO_MUL(DEVO_MUL(x, z), ps);
  *c = 1.0 + DEVO_MUL(z, pc);
}

/* sin(pi t) and cos(pi t) for t in [-1, 1], reduced to [0, 1/4] by exact symmetries
 * (1 - a and 1/2 - a are exact for the a where they are taken). */
static inline DEVO_HD void devo__sh_sincospi(double t, double *s, double *c)
{
  double a = t < 0.0 ? -t : t, sa, ca, ss, cc;
  int flip_c = 0;
  if (a > 0.5) {
    a = 1.0 - a; /* sin(pi a) = sin(pi (1 - a)), cos(pi a) = -cos(pi (1 - a)) */
    flip_c = 1;
  }
  if (a > 0.25) {
    devo__sh_sincospi_q(0.5 - a, &cc, &ss); /* sin(pi a) = cos(pi (1/2 - a)) and vice versa */
    sa = ss;
    ca = cc;
  } else {
    devo__sh_sincospi_q(a, &sa, &ca);
  }
  *s = t < 0.0 ? -sa : sa;
  *c = flip_c ? -ca : ca;
}

/* tan(pi t) for t in (-1/2, 1/2): sin / cos of the reduced argument (for |t| > 1/4 the cosine
 * comes from a sine of 1/2 - |t|, so the quotient keeps its relative accuracy near +-1/2). */
static inline DEVO_HD double devo__sh_tanpi(double t)
{
  double s, c;
  devo__sh_sincospi(t, &s, &c);
  return s / c;
}

/* ---- draws ---- */

/* The Cauchy attempt t's scaled term 0.1 tan(pi (u - 1/2)) (purpose SHADE, slot 2 + t), NaN
 * where u == 0 (tan(-pi/2): the attempt gives no positive F, and mu + NaN > 0 is false). It does
 * not depend on mu, so the GPU's persistent kernel draws it ahead (devo__sh_pre). */
static inline DEVO_HD double devo__sh_cauchy_q(uint64_t seed, uint32_t gen, uint32_t i, int t)
{
  devo__u32x4 w = devo__rng(seed, 2u + (uint32_t)t, gen, i, DEVO__RNG_SHADE);
  uint64_t m = devo__u53(w.v[0], w.v[1]);
  if (m == 0u)
    return (double)NAN;
  return DEVO_MUL(0.1, devo__sh_tanpi((double)m * (1.0 / 9007199254740992.0) - 0.5));
}

/* F from a Cauchy(mu, 0.1) (JADE's and SHADE's rule): the first of the 64 attempts with
 * F = mu + q_t > 0, cut at 1; if none, mu. q[0..nq): attempts drawn ahead (q may be NULL). */
static inline DEVO_HD double devo__sh_cauchy_f_from(const double *q, int nq, uint64_t seed,
                                                    uint32_t gen, uint32_t i, double mu)
{
  int t;
  for (t = 0; t < DEVO__SH_CAUCHY_TRIES; ++t) {
    double f = mu + (t < nq ? q[t] : devo__sh_cauchy_q(seed, gen, i, t));
    if (f > 0.0)
      return f > 1.0 ? 1.0 : f;
  }
  return mu;
}

static inline DEVO_HD double devo__sh_cauchy_f(uint64_t seed, uint32_t gen, uint32_t i, double mu)
{
  return devo__sh_cauchy_f_from((const double *)0, 0, seed, gen, i, mu);
}

/* Box-Muller's scaled normal term 0.1 sqrt(-2 ln u1) cos(2 pi u2) (independent of mu).
 * b0, b1: the SHADE blocks of slots 0 and 1 of (g, i). */
static inline DEVO_HD double devo__sh_normal_q(devo__u32x4 b0, devo__u32x4 b1)
{
  double u1, u2, s, c, r;
  u1 = (double)(devo__u53(b1.v[0], b1.v[1]) + 1u) * (1.0 / 9007199254740992.0);
  u2 = devo__u01(b0.v[2], b0.v[3]);
  devo__sh_sincospi(2.0 * u2 > 1.0 ? 2.0 * u2 - 2.0 : 2.0 * u2, &s, &c); /* cos(2 pi u2) */
  r = sqrt(DEVO_MUL(-2.0, devo__sh_log(u1)));
  return DEVO_MUL(0.1, DEVO_MUL(r, c));
}

/* CR from a normal(mu, 0.1): mu + the term nq, clipped to [0, 1]; mu terminal -> 0. */
static inline DEVO_HD double devo__sh_normal_cr_from(double mu, double nq)
{
  double cr;
  if (mu < 0.0)
    return 0.0;
  cr = mu + nq;
  return cr < 0.0 ? 0.0 : (cr > 1.0 ? 1.0 : cr);
}

/* CR from a normal(mu, 0.1) by Box-Muller, clipped to [0, 1]; mu terminal -> 0. */
static inline DEVO_HD double devo__sh_normal_cr(double mu, devo__u32x4 b0, devo__u32x4 b1)
{
  return mu < 0.0 ? 0.0 : devo__sh_normal_cr_from(mu, devo__sh_normal_q(b0, b1));
}

/* The size of the pbest pool: max(2, round(p NP)), at most NP. */
static inline DEVO_HD uint32_t devo__sh_npb(double p, uint32_t np)
{
  double r = devo__sh_round(DEVO_MUL(p, (double)np));
  uint32_t k = r < 2.0 ? 2u : (uint32_t)r;
  return k > np ? np : k;
}

/* The archive capacity for a population of np: round(arc_rate np). */
static inline DEVO_HD uint32_t devo__sh_arc_cap(double arc_rate, uint32_t np)
{
  return (uint32_t)devo__sh_round(DEVO_MUL(arc_rate, (double)np));
}

/* What individual i draws once per generation. */
typedef struct devo__sh_ind {
  uint32_t r1;    /* population index != i */
  uint32_t r2;    /* in [0, NP + A) minus {i, r1}; >= NP: archive row r2 - NP */
  uint32_t kbest; /* pbest = order[kbest] (rank) */
  uint32_t jrand;
  uint32_t slot; /* history slot r_i (JADE: 0) */
  double f, cr;
} devo__sh_ind;

/* What of individual i's draws for generation gen depends on neither the memory nor NP nor |A|:
 * the Philox words and the closed forms (the GPU's persistent kernel has them drawn for a whole
 * launch beforehand, kernels/gpu_shade.cu's devo__k_sh_pre). */
#define DEVO__SH_PRE_Q 4 /* Cauchy attempts drawn ahead (the rare later ones: on the spot) */
typedef struct devo__sh_pre {
  devo__u32x4 wi, b0, b1;   /* INDEX slot 0, SHADE slots 0 and 1 */
  double q[DEVO__SH_PRE_Q]; /* devo__sh_cauchy_q of attempts 0.. */
  double nq;                /* devo__sh_normal_q */
} devo__sh_pre;

static inline DEVO_HD void devo__sh_pre_words(devo__sh_pre *p, uint64_t seed, uint32_t gen,
                                              uint32_t i)
{
  p->wi = devo__rng(seed, 0u, gen, i, DEVO__RNG_INDEX);
  p->b0 = devo__rng(seed, 0u, gen, i, DEVO__RNG_SHADE);
  p->b1 = devo__rng(seed, 1u, gen, i, DEVO__RNG_SHADE);
}

/* The parts of devo__sh_draw_pre (the GPU's persistent kernel computes them on different
 * threads): the indices (r1, r2, j_rand, the pbest rank) and the history slot. */
static inline DEVO_HD void devo__sh_draw_idx(const devo__variant *v, const devo__sh_pre *p,
                                             uint32_t i, uint32_t np, uint32_t asize, uint32_t dim,
                                             devo__sh_ind *d)
{
  uint32_t ex[DEVO__MAX_PICKS + 1]; /* devo__var_map_past's size */
  ex[0] = i;
  d->r1 = devo__var_map_past(devo__below(p->wi.v[0], np - 1u), ex, 1);
  d->r2 = devo__var_map_past(devo__below(p->wi.v[1], np + asize - 2u), ex, 2);
  d->jrand = devo__below(p->wi.v[3], dim);
  d->kbest = devo__below(p->b1.v[2], devo__sh_npb(v->p, np));
}

static inline DEVO_HD uint32_t devo__sh_draw_slot(const devo__variant *v, const devo__sh_pre *p)
{
  return v->adapt == DEVO__ADAPT_SHADE ? devo__below(p->b0.v[0], (uint32_t)v->hist) : 0u;
}

/* The draws from p (words and terms drawn ahead) with the memory m_cr, m_f (H = hist entries;
 * JADE: one entry, its mu_CR and mu_F), np >= 4 (NP_min) and asize = |A| before the generation;
 * nq: how many Cauchy terms p holds (later attempts are drawn here). */
static inline DEVO_HD devo__sh_ind devo__sh_draw_pre(const devo__variant *v, const devo__sh_pre *p,
                                                     int nq, uint64_t seed, uint32_t gen,
                                                     uint32_t i, uint32_t np, uint32_t asize,
                                                     uint32_t dim, const double *m_cr,
                                                     const double *m_f)
{
  devo__sh_ind d;
  devo__sh_draw_idx(v, p, i, np, asize, dim, &d);
  d.slot = devo__sh_draw_slot(v, p);
  d.f = devo__sh_cauchy_f_from(p->q, nq, seed, gen, i, m_f[d.slot]);
  d.cr = devo__sh_normal_cr_from(m_cr[d.slot], p->nq);
  return d;
}

/* All of individual i's draws for generation gen (the arguments as devo__sh_draw_pre's). */
static inline DEVO_HD devo__sh_ind devo__sh_draw(const devo__variant *v, uint64_t seed,
                                                 uint32_t gen, uint32_t i, uint32_t np,
                                                 uint32_t asize, uint32_t dim, const double *m_cr,
                                                 const double *m_f)
{
  devo__sh_pre p;
  devo__sh_pre_words(&p, seed, gen, i);
  p.nq = devo__sh_normal_q(p.b0, p.b1);
  return devo__sh_draw_pre(v, &p, 0, seed, gen, i, np, asize, dim, m_cr, m_f);
}

/* Trial coordinate j (current-to-pbest/1/bin): xi the parent's, xpb the pbest's, x1 the r1's,
 * x2 the r2's (population or archive row) coordinate j; u: devo__de_coord(seed, gen, i, j). */
static inline DEVO_HD double devo__sh_trial_u(const devo__sh_ind *d, devo__de_u u, uint32_t j,
                                              double xi, double xpb, double x1, double x2,
                                              double lo, double hi, int rule)
{
  double m;
  if (!(u.cr < d->cr || j == d->jrand))
    return xi;
  m = (xi + DEVO_MUL(d->f, xpb - xi)) + DEVO_MUL(d->f, x1 - x2);
  return devo__de_repair(m, xi, lo, hi, rule, u.bound);
}

static inline DEVO_HD double devo__sh_trial_coord(const devo__sh_ind *d, uint64_t seed,
                                                  uint32_t gen, uint32_t i, uint32_t j, double xi,
                                                  double xpb, double x1, double x2, double lo,
                                                  double hi, int rule)
{
  return devo__sh_trial_u(d, devo__de_coord(seed, gen, i, j), j, xi, xpb, x1, x2, lo, hi, rule);
}

/* ---- ranks ---- */

/* (fa, a) < (fb, b): the sort order (fitness never NaN; ties to the lower index). */
static inline DEVO_HD int devo__sh_before(double fa, uint32_t a, double fb, uint32_t b)
{
  return fa < fb || (fa == fb && a < b);
}

/* ---- archive ---- */

/* The word of ARCHIVE (slot 0, gen, i) that picks success i's overwrite slot. */
static inline DEVO_HD uint32_t devo__sh_arc_word(uint64_t seed, uint32_t gen, uint32_t i)
{
  return devo__rng(seed, 0u, gen, i, DEVO__RNG_ARCHIVE).v[0];
}

/* The archive slot that success i (q = successes with a lower index in this generation) writes,
 * given the archive size asize before the generation and the capacity cap of the generation:
 * append at asize + q while there is room, else overwrite devo__below(w0, cap) of ARCHIVE
 * (slot 0, gen, i); cap 0: no insertion (returns -1). Two inserters on one slot: the higher
 * index wins (the sequential order). After the generation |A| = min(cap, asize + |S|). */
static inline DEVO_HD int32_t devo__sh_arc_slot(uint64_t seed, uint32_t gen, uint32_t i,
                                                uint32_t asize, uint32_t q, uint32_t cap)
{
  if (cap == 0u)
    return -1;
  if (asize + q < cap)
    return (int32_t)(asize + q);
  return (int32_t)devo__below(devo__sh_arc_word(seed, gen, i), cap);
}

/* The same with the word w = devo__sh_arc_word(seed, gen, i) drawn ahead. */
static inline DEVO_HD int32_t devo__sh_arc_slot_w(uint32_t w, uint32_t asize, uint32_t q,
                                                  uint32_t cap)
{
  if (cap == 0u)
    return -1;
  return (int32_t)(asize + q < cap ? asize + q : devo__below(w, cap));
}

/* Removal t (t = 0, 1, ...) of L-SHADE's archive shrink after generation gen, when the archive
 * holds asize (> cap) members: the slot s to empty; the last member (asize - 1) moves into s and
 * the size drops by one. */
static inline DEVO_HD uint32_t devo__sh_arc_remove_slot(uint64_t seed, uint32_t gen, uint32_t t,
                                                        uint32_t asize)
{
  return devo__below(devo__rng(seed, t + 1u, gen, 0u, DEVO__RNG_ARCHIVE).v[0], asize);
}

/* ---- L-SHADE's linear population size reduction ---- */

/* NP for the next generation: round((np_min - np_init) frac + np_init) (half away from zero),
 * frac = NFE / MAX_NFE (or g / max_gens, or elapsed / time limit), never below np_min nor above
 * np_cur. */
static inline DEVO_HD uint32_t devo__sh_lpsr_np(uint32_t np_init, uint32_t np_min, double frac,
                                                uint32_t np_cur)
{
  double x = DEVO_MUL((double)np_min - (double)np_init, frac) + (double)np_init;
  double r = x <= (double)np_min ? (double)np_min : devo__sh_round(x);
  uint32_t n = (uint32_t)r;
  if (n < np_min)
    n = np_min;
  return n > np_cur ? np_cur : n;
}

/* ---- sums in the 32-lane order ---- */

/* Lane l (0..31) adds vals[i] for i = l, l + 32, ... (where use[i]; use == NULL: all) in
 * increasing i starting from 0.0, then the partials combine as for off = 16, 8, 4, 2, 1:
 * p[l] = p[l] + p[l + off] for l < off. The result is p[0]: what one warp gets with a lane loop
 * and p = p + __shfl_down_sync(full, p, off). */
static inline DEVO_HD double devo__sh_sum32(const double *vals, const unsigned char *use, int n)
{
  double p[32];
  int l, i, off;
  for (l = 0; l < 32; ++l) {
    p[l] = 0.0;
    for (i = l; i < n; i += 32)
      if (!use || use[i])
        p[l] = p[l] + vals[i];
  }
  for (off = 16; off > 0; off >>= 1)
    for (l = 0; l < off; ++l)
      p[l] = p[l] + p[l + off];
  return p[0];
}

/* The improvement of success i, d = f(x_i) - f(u_i) > 0, capped at 1e300: a parent at +inf
 * (NaN mapped to +inf) would make the weights inf / inf = NaN, and 1e7 capped terms still sum
 * to a finite value. */
static inline DEVO_HD double devo__sh_delta(double fx, double fu)
{
  double d = fx - fu;
  return d < 1e300 ? d : 1e300;
}

/* The per-success terms (d from devo__sh_delta), each product DEVO_MUL in this order. */
static inline DEVO_HD double devo__sh_dff(double d, double f)
{
  return DEVO_MUL(DEVO_MUL(d, f), f);
}

static inline DEVO_HD double devo__sh_df(double d, double f)
{
  return DEVO_MUL(d, f);
}

/* ---- memory updates (after selection of generation g, from the 32-lane sums) ---- */

/* SHADE / L-SHADE (Tanabe and Fukunaga 2014, Algorithm 1 and eq. (7)-(9)): with |S| = nsucc > 0,
 * M_F[k] = (sum d F^2) / (sum d F) (the weighted Lehmer mean; its weights d / sum d cancel, so it
 * is computed from the raw sums), M_CR[k] likewise from sum d CR^2 and sum d CR; lpsr: M_CR[k]
 * terminal or max S_CR == 0 -> terminal; without lpsr sum d CR == 0 -> 0; sum d F == 0 (every
 * d F underflowed) keeps M_F[k]. Then k = (k + 1) mod H.
 * nsucc == 0: nothing changes. */
static inline DEVO_HD void devo__sh_update_shade(double *m_cr, double *m_f, uint32_t *k,
                                                 uint32_t hist, int lpsr, uint32_t nsucc,
                                                 double s_dff, double s_df, double s_dcc,
                                                 double s_dc, double max_cr)
{
  uint32_t kk = *k;
  if (nsucc == 0u)
    return;
  if (s_df > 0.0) /* d F underflowing to 0 for every success (d < 1e-308) would give 0 / 0 */
    m_f[kk] = s_dff / s_df;
  if (lpsr && (m_cr[kk] < 0.0 || !(max_cr > 0.0)))
    m_cr[kk] = DEVO__SH_TERMINAL;
  else
    m_cr[kk] = s_dc > 0.0 ? s_dcc / s_dc : 0.0;
  *k = kk + 1u == hist ? 0u : kk + 1u;
}

/* JADE (Zhang and Sanderson 2009, eq. (10)-(12)): with |S| > 0,
 * mu_CR = (1 - c) mu_CR + c (sum CR) / |S|, mu_F = (1 - c) mu_F + c (sum F^2) / (sum F). */
static inline DEVO_HD void devo__sh_update_jade(double *mu_cr, double *mu_f, double c,
                                                uint32_t nsucc, double s_cr, double s_ff,
                                                double s_f)
{
  if (nsucc == 0u)
    return;
  *mu_cr = DEVO_MUL(1.0 - c, *mu_cr) + DEVO_MUL(c, s_cr / (double)nsucc);
  *mu_f = DEVO_MUL(1.0 - c, *mu_f) + DEVO_MUL(c, s_ff / s_f);
}

#endif /* DEVO_DE_SHADE_H */
