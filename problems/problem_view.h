/* SPDX-License-Identifier: MIT */
/* problem_view.h: the plain description of a problem that both backends evaluate. It holds only
 * sizes, scalars and borrowed pointers, so the CPU backend fills it with host pointers and the
 * GPU backend copies it with device pointers. Each family reads only its own fields. */
#ifndef DEVO_PROBLEM_VIEW_H
#define DEVO_PROBLEM_VIEW_H

#include "devo_port.h"

enum devo__pkind {
  DEVO__P_NONE = 0,
  DEVO__P_SPHERE = 1, /* classic shifted functions (classic.h) */
  DEVO__P_ROSENBROCK = 2,
  DEVO__P_GRIEWANK = 3,
  DEVO__P_RASTRIGIN = 4,
  DEVO__P_CEC = 5, /* CEC 2017/2014 functions (cec.h), cec_id selects F01..F10 */
  DEVO__P_ETC = 6, /* task scheduling on an ETC matrix (etc.h) */
  DEVO__P_USER = 7, /* user callback, CPU only */
  DEVO__P_SOCO = 8  /* SOCO 2010 F1..F19 (soco.h), soco_id selects one */
};

typedef struct devo__pview {
  int kind;
  int dim;
  double lower, upper; /* the search box [lower, upper]^dim */
  /* classic and CEC */
  const double *shift; /* classic: dim values; CEC: ncomp rows of dim values */
  /* CEC */
  int cec_id;         /* 1..10 = F01..F10 */
  int ncomp;          /* number of shift rows and matrices (compositions: 3..5, else 1) */
  const double *rot;  /* ncomp matrices of dim*dim, row-major */
  const int *shuffle; /* hybrids: dim 0-based indices */
  /* SOCO: 1..19 = F1..F19; the optimum (dim values) is in shift */
  int soco_id;
  /* ETC */
  const double *etc;   /* ntasks * nmach, task-major */
  const double *ready; /* nmach ready times */
  int ntasks, nmach;
  double lambda; /* objective weight of the makespan */
  int order;     /* DEVO_ORDER_FCFS or DEVO_ORDER_SPT */
} devo__pview;

#endif /* DEVO_PROBLEM_VIEW_H */
