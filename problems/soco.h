/* SPDX-License-Identifier: MIT */
/* soco.h: the 19 functions of the SOCO 2010 large-scale suite (Herrera, Lozano, Molina: "Test
 * suite for the Special Issue of Soft Computing on scalability of evolutionary algorithms and
 * other metaheuristics for large scale continuous optimization problems", 2010; F1-F6 are the
 * CEC 2008 large-scale functions of Tang et al.), shared by the CPU backend and the CUDA kernels.
 * Formulas checked against the suite's reference code (funsoft.cpp with cec08data.h and
 * f7f11data.h, as distributed with the suite):
 *   F1  sphere          sum z_j^2                                        - 450   [-100, 100]
 *   F2  Schwefel 2.21   max |z_j|                                        - 450   [-100, 100]
 *   F3  Rosenbrock      sum_{j<D-1} 100 (y_j^2 - y_{j+1})^2 + (y_j - 1)^2 + 390  [-100, 100]
 *                       with y = z + 1
 *   F4  Rastrigin       sum z_j^2 - 10 cos(2 pi z_j) + 10                - 330   [-5, 5]
 *   F5  Griewank        sum z_j^2 / 4000 - prod cos(z_j / sqrt(j+1)) + 1 - 180   [-600, 600]
 *   F6  Ackley          -20 exp(-0.2 sqrt(mean z^2)) - exp(mean cos(2 pi z)) + 20 + e - 140
 *                                                                                [-32, 32]
 *   F7  Schwefel 2.22   sum |z_j| + prod |z_j|                                   [-10, 10]
 *   F8  Schwefel 1.2    sum_j (z_0 + ... + z_j)^2                               [-65.536, 65.536]
 *   F9  extended f10    sum_{j<D-1} f10(z_j, z_{j+1}) + f10(z_{D-1}, z_0)        [-100, 100]
 *                       f10(x, y) = (x^2 + y^2)^0.25 (sin^2(50 (x^2 + y^2)^0.1) + 1)
 *   F10 Bohachevsky     sum_{j<D-1} z_j^2 + 2 z_{j+1}^2 - 0.3 cos(3 pi z_j) - 0.4 cos(4 pi z_{j+1})
 *                       + 0.7                                                    [-15, 15]
 *   F11 Schaffer 2      sum_{j<D-1} f10(z_j, z_{j+1}) (no wrap-around term)      [-100, 100]
 *   F12..F19 hybrids    NS(part1) + S(part2), m_ns the share of the split:
 *       F12 F9+F1 0.25 [-100,100]  F13 F9+F3 0.25 [-100,100]  F14 F9+F4 0.25 [-5,5]
 *       F15 F10+F7 0.25 [-10,10]   F16 F9+F1 0.5 [-100,100]   F17 F9+F3 0.75 [-100,100]
 *       F18 F9+F4 0.75 [-5,5]      F19 F10+F7 0.75 [-10,10]
 *     The split (the reference's divideFunctions): s = floor(D m) for m <= 0.5, else
 *     floor(D (1 - m)); the first 2 s coordinates alternate part1 (even) / part2 (odd), the rest
 *     go in order to part2 (m <= 0.5) or part1 (m > 0.5). No permutation. In F12-F14 and F16-F18
 *     the reference leaves the F9 part unshifted and shifts the second part by its own shift
 *     (the CEC 2008 pieces with their bias removed); in F15 and F19 the whole vector is shifted
 *     before the split. devo stores one per-coordinate optimum o (0 on the unshifted part) and
 *     evaluates every function on z = x - o, which is the same function.
 * Deliberate departures from the reference code, both bugs there: its F2 starts the maximum
 * from |x_0| unshifted (so f(o) != f*); its hybrids read x[-1] when a part is empty (D too small:
 * devo refuses those D, see devo__soco_min_dim). f(o) = f* exactly: every term vanishes at z = 0
 * and F6 is summed as (20 - 20 exp(..)) + (exp(1) - exp(..)), whose both halves are exactly 0
 * there. Known: F7's product overflows to inf at large D away from the optimum, as in the
 * reference (a double there too); the GPU's tree product can differ from the CPU's sequential
 * one only where a partial product overflows or underflows in one order and not the other. */
#ifndef DEVO_SOCO_H
#define DEVO_SOCO_H

#include <math.h>

#include "devo_port.h"
#include "philox.h"
#include "problem_view.h"

#define DEVO__SOCO_N 19
/* Data stream of the shift draw: 65536 + id, above the classic (0) and CEC (256 id + ..) ones. */
#define DEVO__SOCO_STREAM 65536u

/* Piece functions of the hybrids and the whole-vector functions, one code each. */
enum {
  DEVO__SOCO_SPHERE = 1,
  DEVO__SOCO_MAXABS = 2,
  DEVO__SOCO_ROSEN = 3,
  DEVO__SOCO_RASTR = 4,
  DEVO__SOCO_GRIEW = 5,
  DEVO__SOCO_ACKLEY = 6,
  DEVO__SOCO_S222 = 7,
  DEVO__SOCO_S12 = 8,
  DEVO__SOCO_EF10 = 9,
  DEVO__SOCO_BOHA = 10,
  DEVO__SOCO_SCHAF = 11
};

/* The shape of function id (1..19): the NS piece (part1), the separable piece (part2; 0 for the
 * non-hybrids, whose only part is part1 with piece id), m_ns * 4, whether the NS part is shifted
 * (F15, F19 and every non-hybrid), the box half-width and f*. */
typedef struct devo__soco_shape {
  int p1, p2, m4, shift1;
  double half, fstar;
} devo__soco_shape;

static inline DEVO_HD devo__soco_shape devo__soco_shape_of(int id)
{
  devo__soco_shape s;
  static const double halfw[DEVO__SOCO_N] = {100, 100, 100, 5, 600, 32,  10,  65.536, 100, 15,
                                             100, 100, 100, 5, 10,  100, 100, 5,      10};
  s.p2 = 0;
  s.m4 = 4;
  s.shift1 = 1;
  s.half = id >= 1 && id <= DEVO__SOCO_N ? halfw[id - 1] : 100.0;
  s.fstar = 0.0;
  if (id <= 11) {
    static const double bias[6] = {-450.0, -450.0, 390.0, -330.0, -180.0, -140.0};
    s.p1 = id;
    if (id >= 1 && id <= 6)
      s.fstar = bias[id - 1];
    return s;
  }
  /* F12..F19: F9 + (F1, F3, F4), F10 + F7; shares 0.25 (F12-F15), 0.5, 0.75, 0.75, 0.75 */
  {
    static const int sep[8] = {DEVO__SOCO_SPHERE, DEVO__SOCO_ROSEN,  DEVO__SOCO_RASTR,
                               DEVO__SOCO_S222,   DEVO__SOCO_SPHERE, DEVO__SOCO_ROSEN,
                               DEVO__SOCO_RASTR,  DEVO__SOCO_S222};
    static const int m4[8] = {1, 1, 1, 1, 2, 3, 3, 3};
    const int k = id - 12 < 0 ? 0 : (id - 12 > 7 ? 7 : id - 12);
    s.p2 = sep[k];
    s.p1 = s.p2 == DEVO__SOCO_S222 ? DEVO__SOCO_BOHA : DEVO__SOCO_EF10;
    s.m4 = m4[k];
    s.shift1 = s.p2 == DEVO__SOCO_S222;
  }
  return s;
}

/* The split of D coordinates for share m4 / 4: s alternating pairs, then the rest. */
typedef struct devo__soco_split {
  int s, n1, n2, rest2; /* rest2: the rest goes to part2 (m <= 0.5) */
} devo__soco_split;

static inline DEVO_HD devo__soco_split devo__soco_split_of(int m4, int dim)
{
  devo__soco_split sp;
  if (m4 >= 4) { /* not a hybrid: everything in part1 */
    sp.s = 0;
    sp.n1 = dim;
    sp.n2 = 0;
    sp.rest2 = 0;
    return sp;
  }
  sp.rest2 = m4 <= 2;
  /* floor(D m) with m = m4/4 or 1 - m4/4, exactly in integers */
  sp.s = (sp.rest2 ? m4 : 4 - m4) * dim / 4;
  sp.n1 = sp.rest2 ? sp.s : dim - sp.s;
  sp.n2 = dim - sp.n1;
  return sp;
}

/* The coordinate of position k of part (1 or 2). */
static inline DEVO_HD int devo__soco_coord(const devo__soco_split *sp, int part, int k)
{
  return k < sp->s ? 2 * k + (part == 2) : k + sp->s;
}

/* f10 of the suite (Extended f10 and Schaffer 2 terms). */
static inline DEVO_HD double devo__soco_f10(double x, double y)
{
  const double p = DEVO_MUL(x, x) + DEVO_MUL(y, y);
  const double t = sin(DEVO_MUL(50.0, pow(p, 0.1)));
  return DEVO_MUL(pow(p, 0.25), DEVO_MUL(t, t) + 1.0);
}

/* Bohachevsky's pair term, summed as the reference does: (u^2 + 2 v^2) + (0.7 - (0.3 cos(3 pi u)
 * + 0.4 cos(4 pi v))); 0.3 + 0.4 == 0.7 in double, so the term is exactly 0 at (0, 0). */
static inline DEVO_HD double devo__soco_boha(double u, double v)
{
  const double a = DEVO_MUL(u, u) + DEVO_MUL(DEVO_MUL(2.0, v), v);
  const double c = DEVO_MUL(0.3, cos(DEVO_MUL(3.0 * DEVO_PI, u))) +
                   DEVO_MUL(0.4, cos(DEVO_MUL(4.0 * DEVO_PI, v)));
  return a + (0.7 - c);
}

/* Term k of piece fn on a part of n values, z = the part's value at k, zn = at k + 1 (k + 1 = n:
 * the part's first value, for F9's wrap-around term). F2's maximum, F5's, F7's products and F6's
 * cosine sum are separate (devo__soco_aux); F8 is a prefix-sum function (devo__soco_eval,
 * the GPU's scan). */
static inline DEVO_HD double devo__soco_term(int fn, int k, int n, double z, double zn)
{
  double y, yn, t;
  switch (fn) {
  case DEVO__SOCO_SPHERE:
  case DEVO__SOCO_ACKLEY:
    return DEVO_MUL(z, z);
  case DEVO__SOCO_ROSEN:
    if (k >= n - 1)
      return 0.0;
    y = z + 1.0;
    yn = zn + 1.0;
    t = DEVO_MUL(y, y) - yn;
    return DEVO_MUL(100.0, DEVO_MUL(t, t)) + DEVO_MUL(y - 1.0, y - 1.0);
  case DEVO__SOCO_RASTR:
    return DEVO_MUL(z, z) - DEVO_MUL(10.0, cos(DEVO_MUL(2.0 * DEVO_PI, z))) + 10.0;
  case DEVO__SOCO_GRIEW:
    return DEVO_MUL(z, z) / 4000.0;
  case DEVO__SOCO_S222:
    return fabs(z);
  case DEVO__SOCO_EF10:
    return devo__soco_f10(z, zn);
  case DEVO__SOCO_BOHA:
    return k < n - 1 ? devo__soco_boha(z, zn) : 0.0;
  case DEVO__SOCO_SCHAF:
    return k < n - 1 ? devo__soco_f10(z, zn) : 0.0;
  default: /* F2 (maximum only), F8 (prefix sums) */
    return 0.0;
  }
}

/* The second accumulator of piece fn at position k: F2 |z| (a maximum), F5 cos(z / sqrt(k + 1))
 * and F7 |z| (products), F6 cos(2 pi z) (a sum); see devo__soco_aux_op. */
static inline DEVO_HD double devo__soco_aux(int fn, int k, double z)
{
  switch (fn) {
  case DEVO__SOCO_MAXABS:
  case DEVO__SOCO_S222:
    return fabs(z);
  case DEVO__SOCO_GRIEW:
    return cos(z / sqrt((double)(k + 1)));
  case DEVO__SOCO_ACKLEY:
    return cos(DEVO_MUL(2.0 * DEVO_PI, z));
  default:
    return 1.0;
  }
}

/* How piece fn combines its auxiliary values: 0 none, 1 product, 2 sum, 3 maximum. */
static inline DEVO_HD int devo__soco_aux_op(int fn)
{
  return fn == DEVO__SOCO_GRIEW || fn == DEVO__SOCO_S222 ? 1
         : fn == DEVO__SOCO_ACKLEY                       ? 2
         : fn == DEVO__SOCO_MAXABS                       ? 3
                                                         : 0;
}

/* f from the term sum and the auxiliary value of the whole function (hybrids: of part2; the
 * only hybrid auxiliary is F7's product); dim is the whole dimension. */
static inline DEVO_HD double devo__soco_finish(int id, int dim, double sum, double aux)
{
  const devo__soco_shape sh = devo__soco_shape_of(id);
  switch (id) {
  case 2:
    return aux + sh.fstar;
  case 5:
    return (sum - aux + 1.0) + sh.fstar;
  case 6: {
    const double a = 20.0 - DEVO_MUL(20.0, exp(DEVO_MUL(-0.2, sqrt(sum / (double)dim))));
    return (a + (exp(1.0) - exp(aux / (double)dim))) + sh.fstar;
  }
  case 7:
  case 15:
  case 19:
    return sum + aux;
  default:
    return sum + sh.fstar;
  }
}

/* Position and part of coordinate j. */
static inline DEVO_HD int devo__soco_part_of(const devo__soco_split *sp, int j, int *k)
{
  if (j < 2 * sp->s) {
    *k = j >> 1;
    return (j & 1) + 1;
  }
  *k = j - sp->s;
  return sp->rest2 ? 2 : 1;
}

/* The contribution of coordinate j (its term, its auxiliary value and the piece whose
 * auxiliary it is) for the GPU's per-coordinate evaluation; x and o are the whole vectors. */
static inline DEVO_HD double devo__soco_coord_term(const devo__soco_shape *sh,
                                                   const devo__soco_split *sp, int j,
                                                   const double *x, const double *o, double *aux)
{
  int k, part = devo__soco_part_of(sp, j, &k);
  const int fn = part == 1 ? sh->p1 : sh->p2, n = part == 1 ? sp->n1 : sp->n2;
  const int kn = k + 1 < n ? k + 1 : 0, jn = devo__soco_coord(sp, part, kn);
  const double z = x[j] - o[j], zn = x[jn] - o[jn];
  *aux = devo__soco_aux(fn, k, z);
  return devo__soco_term(fn, k, n, z, zn);
}

/* Sequential evaluation (CPU reference): part1's terms in order, then part2's, as the reference
 * code sums them; F8's prefix sums in index order. */
static inline DEVO_HD double devo__soco_eval(const devo__pview *v, const double *x)
{
  const int id = v->soco_id, d = v->dim;
  const devo__soco_shape sh = devo__soco_shape_of(id);
  const devo__soco_split sp = devo__soco_split_of(sh.m4, d);
  const double *o = v->shift;
  double sum = 0.0, aux = 0.0;
  int part, k;
  if (id == DEVO__SOCO_S12) {
    double run = 0.0;
    for (k = 0; k < d; ++k) {
      run += x[k] - o[k];
      sum += DEVO_MUL(run, run);
    }
    return sum;
  }
  for (part = 1; part <= 2; ++part) {
    const int fn = part == 1 ? sh.p1 : sh.p2, n = part == 1 ? sp.n1 : sp.n2,
              op = devo__soco_aux_op(fn);
    double a = op == 1 ? 1.0 : 0.0;
    for (k = 0; k < n; ++k) {
      const int j = devo__soco_coord(&sp, part, k),
                jn = devo__soco_coord(&sp, part, k + 1 < n ? k + 1 : 0);
      const double z = x[j] - o[j], zn = x[jn] - o[jn], w = devo__soco_aux(fn, k, z);
      sum += devo__soco_term(fn, k, n, z, zn);
      if (op == 1)
        a *= w;
      else if (op == 2)
        a += w;
      else if (op == 3)
        a = w > a ? w : a;
    }
    if (op != 0)
      aux = a;
  }
  return devo__soco_finish(id, d, sum, aux);
}

/* Smallest D of function id: 2 for F1..F11; hybrids where both parts are non-empty and each
 * pair piece (Rosenbrock, Bohachevsky) has at least one pair. */
static inline DEVO_HD int devo__soco_min_dim(int id)
{
  static const int m[8] = {4, 4, 4, 8, 2, 8, 4, 4};
  return id >= 12 && id <= DEVO__SOCO_N ? m[id - 12] : 2;
}

/* Coordinate j of the optimum of function id: 0 on a hybrid's unshifted part1, else
 * o_j = -0.8 h + 1.6 h u_j (h the box half-width; uniform in 80% of the box, the proportion of
 * the CEC 2008 shifts) with u_j from Philox(key = data_seed, slot j, stream 65536 + id, purpose
 * DATA). Independent of D except for which coordinates are part1. */
static inline DEVO_HD double devo__soco_shift(uint64_t data_seed, int id, int dim, int j)
{
  const devo__soco_shape sh = devo__soco_shape_of(id);
  const devo__soco_split sp = devo__soco_split_of(sh.m4, dim);
  int k;
  devo__u32x4 w;
  if (!sh.shift1 && devo__soco_part_of(&sp, j, &k) == 1)
    return 0.0;
  w = devo__rng(data_seed, (uint32_t)j, 0u, DEVO__SOCO_STREAM + (uint32_t)id, DEVO__RNG_DATA);
  return DEVO_MUL(-0.8, sh.half) + DEVO_MUL(DEVO_MUL(1.6, sh.half), devo__u01(w.v[0], w.v[1]));
}

#endif /* DEVO_SOCO_H */
