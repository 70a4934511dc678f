/* SPDX-License-Identifier: MIT */
/* eval.c: CPU evaluation of one vector of a built-in problem, dispatching on the problem kind to
 * the shared DEVO_HD code in problems/ (the same code the GPU kernels call). */
#include <math.h>

#include "../problems/cec.h"
#include "../problems/classic.h"
#include "../problems/etc.h"
#include "../problems/soco.h"
#include "internal.h"

size_t devo__eval_scratch(const devo__pview *v)
{
  switch (v->kind) {
  case DEVO__P_CEC:
    return devo__cec_scratch(v->dim);
  case DEVO__P_ETC:
    return devo__etc_scratch(v);
  default:
    return 1;
  }
}

double devo__eval_builtin(const devo__pview *v, const double *x, double *scratch)
{
  double f;
  switch (v->kind) {
  case DEVO__P_CEC:
    f = devo__cec_eval(v, x, scratch);
    break;
  case DEVO__P_ETC:
    f = devo__etc_eval(v, x, scratch);
    break;
  case DEVO__P_SOCO:
    f = devo__soco_eval(v, x);
    break;
  case DEVO__P_SPHERE:
  case DEVO__P_ROSENBROCK:
  case DEVO__P_GRIEWANK:
  case DEVO__P_RASTRIGIN:
    f = devo__classic_eval(v, x);
    break;
  default:
    f = (double)NAN;
    break;
  }
  /* a NaN must never win a comparison: it would corrupt the replacement rule */
  return isnan(f) ? (double)INFINITY : f;
}
