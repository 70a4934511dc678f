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

/* Braun et al.'s heterogeneity ranges. */
#define DEVO__ETCGEN_TASK_HI 3000.0
#define DEVO__ETCGEN_TASK_LO 100.0
#define DEVO__ETCGEN_MACH_HI 1000.0
#define DEVO__ETCGEN_MACH_LO 10.0

typedef struct devo__etcgen {
  int ntasks, nmach;
  int method;      /* DEVO__ETCGEN_RANGE or _CVB */
  int consistency; /* DEVO__ETCGEN_CONSISTENT, _SEMI, _INCONSISTENT */
  double r_task;   /* range: task heterogeneity R_task (> 1) */
  double r_mach;   /* range: machine heterogeneity R_mach (> 1) */
  double mean;     /* CVB: mean task time mu_task (> 0) */
  double v_task;   /* CVB: coefficient of variation of the task times (> 0) */
  double v_mach;   /* CVB: coefficient of variation across machines (> 0) */
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
 * invalid parameters (sizes as devo_etc_create accepts them, ranges, CVB coefficients). */
int devo__etcgen_run(const devo__etcgen *g, double *out, char *err, size_t errlen);

#endif /* DEVO_ETC_GEN_H */
