/* SPDX-License-Identifier: MIT */
/* etc_internal.h: what engine/schedule.c needs from engine/problem_etc.c beyond the public API:
 * configuring an ETC problem with seed schedules computed by the caller, so that the pipeline
 * can run the heuristics and the local search once, under its own deadline. Not installed. */
#ifndef DEVO_ETC_INTERNAL_H
#define DEVO_ETC_INTERNAL_H

#include "internal.h"

/* devo_problem_set_etc with the seeds given as count assignments (count * ntasks machine
 * indices, borrowed; count may be 0): the distinct ones become seed vectors, in this order.
 * borrow: 1 makes p read e's matrix where it is instead of a copy of its own, for a caller whose
 * e outlives p (devo_schedule_run's DE problem: one matrix less in memory); 0 copies it.
 * Same statuses and messages as devo_problem_set_etc; a failed call leaves p as it was. */
int devo__problem_set_etc_seeds(devo_problem *p, const devo_etc *e, double lambda, int order,
                                const int *assigns, int count, int borrow);

/* The order in which devo_problem_set_etc seeds the heuristics (the usually strongest first,
 * since the solver keeps only NP - 4 seeds): DEVO_HEUR_COUNT entries. */
extern const int devo__etc_seed_order[DEVO_HEUR_COUNT];

/* devo__etc_local_search_stop (stop: the interrupt flag, may be NULL), also saying in *restored
 * (when not NULL) whether the search ended worse than its input (rounding) so that the input was
 * put back (1; *moves_done is then 0) or not (0). For the tests: the fallback must not be what
 * keeps the search "never worse". */
int devo__etc_local_search_ex(const devo_etc *e, int *assign, int order, double lambda,
                              int64_t max_moves, double deadline_seconds_from_now,
                              int64_t *moves_done, const volatile sig_atomic_t *stop,
                              int *restored);

#endif /* DEVO_ETC_INTERNAL_H */
