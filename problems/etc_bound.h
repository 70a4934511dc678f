/* SPDX-License-Identifier: MIT */
/* etc_bound.h: what devo_schedule_run knows about the optimum of an ETC instance
 * (problems/etc_bound.c): lower bounds on the makespan, the flowtime and the objective of every
 * schedule, and, for tiny instances, the optimum itself by enumerating every assignment. The
 * proofs are in docs/scheduling.md ("Lower bound"). Internal to the library (engine/schedule.c,
 * tests); not installed. */
#ifndef DEVO_ETC_BOUND_H
#define DEVO_ETC_BOUND_H

#include <signal.h>

struct devo_etc;

/* Lower bounds on the numbers devo_etc_evaluate computes (rounding included: every schedule's
 * computed makespan, flowtime and objective are >= these). */
typedef struct devo__etc_lb {
  double makespan;  /* the largest of the ready times, of the tasks' smallest completions and of
                       the LP relaxation's dual values (docs/scheduling.md) */
  double flowtime;  /* under either order; 0 when lambda = 1 (not computed) */
  double objective; /* devo__etc_objective(lambda, makespan, flowtime, m) */
  double rtol;      /* the relative rounding the bounds allowed for: an answer whose objective is
                       <= objective * (1 + 1e-12 + rtol) is optimal within rounding */
} devo__etc_lb;

/* The bounds of e for lambda, in one to three passes over the matrix (and two over the tasks
 * when lambda < 1). mu: machine prices (nmach values >= 0; any scale, e.g. devo__etc_prices'),
 * or NULL: the LP bound at equal prices only. Memory through e's allocator (2n + 32768 doubles
 * when lambda < 1). Returns DEVO_OK, DEVO_E_INVALID, DEVO_E_NOMEM. */
int devo__etc_lower_bound(const struct devo_etc *e, double lambda, const double *mu,
                          devo__etc_lb *b);

/* Whether devo__etc_enumerate may run on e for lambda: nmach^ntasks <= 10^6 assignments, and for
 * lambda < 1 (each assignment evaluated whole) nmach^ntasks * (ntasks + nmach) <= 2 * 10^7. */
int devo__etc_enumerable(const struct devo_etc *e, double lambda);

/* The optimum of e by enumerating every assignment (depth first, tasks in index order; for
 * lambda = 1 branches whose partial makespan is already >= the best so far are cut, which skips
 * only assignments that cannot be strictly better). assign (ntasks) and *obj: in, a schedule and
 * its objective (devo_etc_evaluate's); out, an optimal schedule and its objective: the input
 * unless a strictly better one exists, then the first such optimum in enumeration order. The
 * objective of each assignment is devo_etc_evaluate's number bit for bit. deadline (absolute
 * devo__now() seconds, 0 = none) and stop (may be NULL) are read every 4096 nodes.
 * Returns DEVO_OK (every assignment seen: assign is optimal), DEVO_TIME_LIMIT or DEVO_INTERRUPTED
 * (cut short: assign is the best seen, never worse than the input), DEVO_E_INVALID (NULL, or not
 * devo__etc_enumerable), DEVO_E_NOMEM. */
int devo__etc_enumerate(const struct devo_etc *e, double lambda, int order, double deadline,
                        const volatile sig_atomic_t *stop, int *assign, double *obj);

#endif /* DEVO_ETC_BOUND_H */
