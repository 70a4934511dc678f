/* SPDX-License-Identifier: MIT */
/* etc_vnd.h: the iterated-greedy search of devo_schedule_run for the makespan (problems/
 * etc_vnd.c): independent chains, each a Philox stream of its own, merged at fixed step counts.
 * Internal to the library (engine/schedule.c, tests); not installed. */
#ifndef DEVO_ETC_VND_H
#define DEVO_ETC_VND_H

#include <signal.h>
#include <stdint.h>

struct devo_etc;

typedef struct devo__ig_opts {
  uint64_t seed;
  int chains;      /* independent chains, >= 1: the answer depends on it, not on threads */
  int threads;     /* >= 1; the chains are spread over this many threads (the caller's included) */
  int64_t steps;   /* steps (destroy, reinsert, local search) per chain; 0 = until the deadline */
  int epoch;       /* steps between two merges of the chains (each restarts from the best) */
  double deadline; /* absolute devo__now() seconds; 0 = none (then steps must be > 0) */
  /* called by the calling thread after each merge with the steps done per chain and the best
   * makespan; non-zero stops the search (DEVO_STOPPED_BY_CALLBACK). May be NULL. */
  int (*progress)(void *ud, int64_t steps, double best);
  void *progress_ud;
  /* borrowed stop flag (devo_schedule_opts.interrupt), NULL = none: read every few thousand
   * candidates by every chain; when up, the search ends with DEVO_INTERRUPTED */
  const volatile sig_atomic_t *interrupt;
  /* optional: the machine prices of devo__etc_prices for e (mu, arg and lower_bound as it gave
   * them, borrowed), so that a caller that already priced does not pay for it twice; mu NULL =
   * priced here */
  const double *mu;
  const int *arg;
  double lower_bound;
} devo__ig_opts;

typedef struct devo__ig_result {
  int64_t steps;      /* steps done, all chains together */
  int64_t candidates; /* neighbourhood candidates evaluated, all chains together */
  int64_t improved;   /* steps that improved their chain's best */
  double lower_bound; /* a lower bound on the optimal makespan: the LP relaxation's dual value
                         at the prices found (sum_t min_j mu_j p_tj + sum_j mu_j W_j, prices
                         summing to 1) */
  int status;         /* DEVO_OK (steps done), DEVO_TIME_LIMIT, DEVO_STOPPED_BY_CALLBACK,
                         DEVO_INTERRUPTED */
} devo__ig_result;

/* Improves assign (ntasks machine indices, read as the start of every chain and overwritten
 * with the best found, never worse by the makespan of devo_etc_evaluate) for the makespan.
 * Deterministic for a fixed seed, chains and steps (with no deadline reached), whatever the
 * thread count. Returns DEVO_OK, DEVO_E_INVALID, DEVO_E_NOMEM, DEVO_E_INTERNAL (a thread could
 * not be started). */
int devo__etc_ig(const struct devo_etc *e, int *assign, const devo__ig_opts *o, devo__ig_result *r);

/* One local search (moves, swaps, ejection chains off the critical machine, to a local optimum
 * or the deadline) from assign, in place; *candidates receives the candidates evaluated. For
 * tests and the throughput benchmark. Returns DEVO_OK, DEVO_E_INVALID, DEVO_E_NOMEM. */
int devo__etc_vnd(const struct devo_etc *e, int *assign, double deadline, int64_t *candidates);

/* The machine prices of the makespan search (for a GPU search to share): mu (nmach) receives
 * prices scaled to sum to nmach (priced times in time units), arg (ntasks) each task's cheapest
 * machine at them, *lower_bound the LP relaxation's dual value there with the ready times (a
 * lower bound on the optimal makespan). Deterministic (a fixed number of rounds for the size);
 * deadline (absolute devo__now() seconds, 0 = none) cuts it short: about 2 ms at 512x16.
 * Returns DEVO_OK, DEVO_E_INVALID, DEVO_E_NOMEM. */
int devo__etc_prices(const struct devo_etc *e, double deadline, double *mu, int *arg,
                     double *lower_bound);

#endif /* DEVO_ETC_VND_H */
