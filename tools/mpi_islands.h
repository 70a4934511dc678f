/* SPDX-License-Identifier: MIT */
/* mpi_islands.h: what `devo solve` reports, however it ran (devo_solve in this process, or the
 * islands spread over the ranks of mpirun), and the MPI run of `devo solve --islands K`
 * (tools/mpi_islands.c, built with MPI only). */
#ifndef DEVO_MPI_ISLANDS_H
#define DEVO_MPI_ISLANDS_H

#include "cli.h"

/* The answer of a solve, as report() in cmd_solve.c prints it. */
typedef struct cli_solve_result {
  double best;
  double *x; /* dim doubles, the caller's */
  devo_stats stats;
  char info[1024];        /* devo_solver_backend_info, or the MPI run's own */
  cli_variant_run run;    /* cli_variant_run_state of the solver (MPI: of the best island) */
  devo_shade_state shade; /* JADE/SHADE: the final state (have_shade) */
  int have_shade;
  int ranks;                     /* > 0: the MPI ranks the islands ran on */
  double migration_seconds;      /* MPI: rank 0's seconds in the exchanges (gather and put) */
  double migration_wait_seconds; /* MPI: rank 0's seconds waiting for the slowest rank first */
  int silent;                    /* 1 on the ranks other than 0: rank 0 reports */
  char err[512]; /* the error to print (empty: printed already, or another rank's) */
} cli_solve_result;

/* What the islands run needs besides the template solver: the variant (for the final state),
 * the problem's dimension, NP, the threads of each rank, the backend, and the stopping rules as
 * devo_solve applies them (target: the objective value, NaN for none; time_limit 0: none). */
typedef struct cli_islands_job {
  const cli_variant *var;
  int dim, np, threads, backend; /* backend: DEVO_BACKEND_CPU or _GPU, the one that runs */
  int64_t max_evals, max_gens;
  double target, time_limit;
} cli_islands_job;

#ifdef DEVO_HAVE_MPI
/* Runs the template's K islands spread over the ranks of MPI_COMM_WORLD (MPI started and ended
 * here) with the result of devo_solve on the template, bit for bit: best, its vector, the
 * generations and evaluations (engine/islands.c's stretches and stopping rules). Rank 0 gets the
 * answer in r (x: dim doubles), the others r->silent. Returns devo_solve's status: the stop, or
 * an error (r->err on the first rank that had it; empty where cli_mpi_begin printed already). */
int cli_mpi_islands(const devo_solver *tmpl, const cli_islands_job *job, cli_solve_result *r);
/* Stops the run at the islands' next check (DEVO_INTERRUPTED); async-signal-safe. */
void cli_mpi_islands_interrupt(void);
#endif

#endif
