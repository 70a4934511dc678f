/* SPDX-License-Identifier: MIT */
/* etc_gen.h: generation of ETC matrices for independent-task scheduling benchmarks, as a library
 * function (the etc-gen tool and the tests call it). Two methods:
 *   range-based: T. D. Braun et al., JPDC 61(6):810-837, 2001, and S. Ali, H. J. Siegel,
 *     M. Maheswaran, D. Hensgen, S. Ali, "Representing task and machine heterogeneities for
 *     heterogeneous computing systems", Tamkang J. Sci. Eng. 3(3):195-207, 2000: a task baseline
 *     q_t ~ U[1, R_task), then ETC[t][j] = q_t * U[1, R_mach);
 *   CVB (coefficient-of-variation based, Ali et al. 2000): q_t ~ Gamma(a_task, mu_task / a_task)
 *     with a_task = 1 / V_task^2, then ETC[t][j] ~ Gamma(a_mach, q_t / a_mach), a_mach = 1/V_mach^2
 *     (shape-scale form: mean = shape * scale).
 * Consistency (both methods): consistent = every row sorted ascending (machine 0 fastest for all
 * tasks); semi-consistent = in every row the even columns 0, 2, 4, ... sorted among themselves,
 * odd columns as drawn; inconsistent = as drawn.
 * Every number comes from Philox4x32-10 (philox.h) addressed by (seed, task, draw), so the output
 * depends only on the parameters, bit for bit, and row t does not depend on the number of tasks. */
#ifndef DEVO_ETC_GEN_H
#define DEVO_ETC_GEN_H

#include <stddef.h>
#include <stdint.h>

enum { DEVO__ETCGEN_RANGE = 0, DEVO__ETCGEN_CVB = 1 };
enum { DEVO__ETCGEN_CONSISTENT = 0, DEVO__ETCGEN_SEMI = 1, DEVO__ETCGEN_INCONSISTENT = 2 };

/* Accepted CVB parameters: mean in [MEAN_MIN, MEAN_MAX], each coefficient of variation in
 * [V_MIN, V_MAX]. The bounds keep every number of the method a normal double with room to spare:
 * the gamma shape 1/V^2 is at most 1e100 (smaller V gives an infinite shape, whose draws are
 * NaN), the task gamma's scale mean * V_task^2 is at least 1e-200 and the values, whose typical
 * size is the mean, stay far from the underflow limit (~2.2e-308) and from overflow. The cap on
 * V is there because a gamma of mean 1 and shape 1/V^2 has about (1e-300 / V^2)^(1/V^2) of its
 * mass below 1e-300: ~1e-12 for V = 5, but already ~1e-3 for V = 10, so values would underflow
 * often. */
#define DEVO__ETCGEN_MEAN_MIN 1e-100
#define DEVO__ETCGEN_MEAN_MAX 1e12
#define DEVO__ETCGEN_V_MIN    1e-50
#define DEVO__ETCGEN_V_MAX    5.0
/* Range method: R_task and R_mach in (1, R_MAX]. */
#define DEVO__ETCGEN_R_MAX 1e9

/* Braun et al.'s heterogeneity ranges. */
#define DEVO__ETCGEN_TASK_HI 3000.0
#define DEVO__ETCGEN_TASK_LO 100.0
#define DEVO__ETCGEN_MACH_HI 1000.0
#define DEVO__ETCGEN_MACH_LO 10.0

typedef struct devo__etcgen {
  int ntasks, nmach;
  int method;      /* DEVO__ETCGEN_RANGE or _CVB */
  int consistency; /* DEVO__ETCGEN_CONSISTENT, _SEMI, _INCONSISTENT */
  double r_task;   /* range: task heterogeneity R_task, in (1, 1e9] */
  double r_mach;   /* range: machine heterogeneity R_mach, in (1, 1e9] */
  double mean;     /* CVB: mean task time mu_task, in [1e-100, 1e12] */
  double v_task;   /* CVB: coefficient of variation of the task times, in [1e-50, 5] */
  double v_mach;   /* CVB: coefficient of variation across machines, in [1e-50, 5] */
  uint64_t seed;
} devo__etcgen;

/* Range method, inconsistent, hi/hi, mean 1000, V 0.1/0.1 (used by CVB only), seed 1. */
void devo__etcgen_defaults(devo__etcgen *g);
/* Sets method, consistency and ranges from a Braun class name "u_c_hihi" ... "u_s_lolo"
 * (u = uniform = the range method; c/s/i; task then machine heterogeneity). 0, or -1 if the name
 * is not one of the 12. */
int devo__etcgen_class(devo__etcgen *g, const char *name);
/* "u_c_hihi" etc. for a range-method configuration whose ranges are Braun's, else NULL. */
const char *devo__etcgen_class_name(const devo__etcgen *g);
/* Fills out (ntasks * nmach doubles, task-major). Returns 0, or -1 with a message in err for
 * invalid parameters (sizes as devo_etc_create accepts them, the ranges above). Every value is a
 * positive normal double: a CVB draw that is not (an underflow in the far lower tail of a gamma
 * with a large V, a chance of about 1e-12 per draw at V = 5) is drawn again. Every loop of draws
 * stops after a bounded number of random blocks per value, so the call always returns; running
 * out of them returns -1 with a message, which needs a long run of such underflows in a row and
 * is not expected with accepted parameters. */
int devo__etcgen_run(const devo__etcgen *g, double *out, char *err, size_t errlen);

#endif /* DEVO_ETC_GEN_H */
