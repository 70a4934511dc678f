/* SPDX-License-Identifier: MIT */
/* classic.h: the four classic shifted functions of Qin et al. 2012 (CEC 2005 shapes), shared by
 * the CPU backend and the CUDA kernels. Search range [-100, 100]^D, optimum o in [-80, 80]^D
 * (generated from the problem's data seed, see devo__classic_shift), f(o) = 0 exactly.
 *   sphere:     sum z_j^2,                                       z = x - o
 *   rosenbrock: sum_{j<D-1} 100 (z_j^2 - z_{j+1})^2 + (z_j - 1)^2, z = x - o + 1
 *   griewank:   sum z_j^2 / 4000 - prod cos(z_j / sqrt(j + 1)) + 1, z = x - o
 *   rastrigin:  sum z_j^2 - 10 cos(2 pi z_j) + 10,                 z = x - o
 * Each function is a sum of per-coordinate terms (griewank adds a product), so the GPU evaluates
 * terms in parallel and reduces; the CPU sums them in index order. */
#ifndef DEVO_CLASSIC_H
#define DEVO_CLASSIC_H

#include <math.h>

#include "devo_port.h"
#include "philox.h"
#include "problem_view.h"

/* o_j = -80 + 160 u_j with u_j from Philox(key = data_seed, slot j, purpose DATA): the same o_j
 * for every dimension, so a prefix of a larger problem's shift is a smaller problem's shift. */
static inline DEVO_HD double devo__classic_shift_in(uint64_t data_seed, uint32_t j, double lo,
                                                    double width)
{
  devo__u32x4 w = devo__rng(data_seed, j, 0u, 0u, DEVO__RNG_DATA);
  return lo + DEVO_MUL(width, devo__u01(w.v[0], w.v[1]));
}

/* The default draw ([-80, 80): 80% of [-100, 100]); devo_problem_set_ranges draws in 80% of
 * another box with the same uniforms. */
static inline DEVO_HD double devo__classic_shift(uint64_t data_seed, uint32_t j)
{
  return devo__classic_shift_in(data_seed, j, -80.0, 160.0);
}

/* Term j of the sum (for rosenbrock it needs x_{j+1}; pass anything for the last j). */
static inline DEVO_HD double devo__classic_term(int kind, int j, int dim, double xj, double xj1,
                                                const double *o)
{
  double z = xj - o[j], t;
  switch (kind) {
  case DEVO__P_SPHERE:
    return z * z;
  case DEVO__P_ROSENBROCK:
    if (j >= dim - 1)
      return 0.0;
    z += 1.0;
    t = xj1 - o[j + 1] + 1.0;
    return 100.0 * (z * z - t) * (z * z - t) + (z - 1.0) * (z - 1.0);
  case DEVO__P_GRIEWANK:
    return z * z / 4000.0;
  default: /* rastrigin */
    return z * z - 10.0 * cos(2.0 * DEVO_PI * z) + 10.0;
  }
}

/* Griewank's product factor of coordinate j (1 for the other functions). */
static inline DEVO_HD double devo__classic_factor(int kind, int j, double xj, const double *o)
{
  if (kind != DEVO__P_GRIEWANK)
    return 1.0;
  return cos((xj - o[j]) / sqrt((double)(j + 1)));
}

/* Combines the term sum and the factor product into f. */
static inline DEVO_HD double devo__classic_finish(int kind, double sum, double prod)
{
  if (kind == DEVO__P_GRIEWANK)
    return sum - prod + 1.0;
  return sum;
}

/* Sequential evaluation (CPU reference): terms summed in index order. */
static inline DEVO_HD double devo__classic_eval(const devo__pview *v, const double *x)
{
  double sum = 0.0, prod = 1.0;
  int j, d = v->dim;
  for (j = 0; j < d; ++j) {
    sum += devo__classic_term(v->kind, j, d, x[j], j + 1 < d ? x[j + 1] : 0.0, v->shift);
    prod *= devo__classic_factor(v->kind, j, x[j], v->shift);
  }
  return devo__classic_finish(v->kind, sum, prod);
}

#endif /* DEVO_CLASSIC_H */
