/* SPDX-License-Identifier: MIT */
/* mpi_experiment.h: devo experiment over the ranks of mpirun (docs/experiment.md, "MPI"). Rank 0
 * reads the results file as one process would, hands the trials not yet there out a unit at a
 * time (the trials of one cell that a worker runs as one batch) to the ranks that ask, and writes
 * the rows they send back through the one writer; the other ranks (workers) run them. Only the
 * protocol is here (tools/mpi_experiment.c, built with MPI): what a trial is and how its rows read
 * stays in cmd_experiment.c, lent through exp_mpi_hooks. */
#ifndef DEVO_MPI_EXPERIMENT_H
#define DEVO_MPI_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct exp_mpi_hooks {
  void *ud;
  /* A worker's unit: the grid's trials idx[0..n) (one problem, dimension, backend, algorithm and
   * NP), run as one batch: their trace rows, their results rows and their progress lines (one
   * per trial, each ending in a newline: the trial and its outcome, without the count) written to
   * the three streams, exp_mpi_trial_done called after each trial's. 0, or the exit code after the
   * one-line message (collected for rank 0: exp_mpi_begin). */
  int (*run)(void *ud, const int64_t *idx, int n, FILE *trace, FILE *row, FILE *line);
  /* Rank 0: a finished unit's texts as a worker wrote them (ntrace may be 0), written to the
   * files and counted. 0, or the exit code after the one-line message. */
  int (*done)(void *ud, const char *trace, size_t ntrace, const char *row, size_t nrow,
              const char *line);
} exp_mpi_hooks;

/* MPI started (cli_mpi_begin): this rank, the ranks, the rank among those of its node. On a
 * worker (rank > 0) the one-line errors are collected from now on and go to rank 0 with its next
 * message, so that the job prints one. 0, or the exit code after the message. */
int exp_mpi_begin(int *rank, int *size, int *local_rank);
/* Rank 0 of size ranks: todo[0..n) (trial numbers) handed out in that order to the workers as
 * they ask, in units: unit u is todo[unit[u] .. unit[u + 1]) (nunits units, unit[0] = 0,
 * unit[nunits] = n), until all came back or one failed (the units still running then come back
 * and are written; no new one starts). rc: rank 0's own failure before, printed (nothing is
 * handed out). Returns the job's exit code: rc, else the first failure (a worker's one line
 * printed here). */
int exp_mpi_lead(int size, const int64_t *todo, const int64_t *unit, int64_t nunits, int rc,
                 const exp_mpi_hooks *h);
/* A worker: asks rank 0 for units and runs them (h->run) until told to stop. rc: this rank's own
 * failure before the first (sent instead of asking). Returns 0: the job's exit code is rank 0's. */
int exp_mpi_work(int rc, const exp_mpi_hooks *h);
/* A worker, inside h->run: the trial that just ended wrote its texts to the three streams; they
 * go to rank 0 now (rank 0 writes them at once, so a worker killed later loses no finished
 * trial). Called by one thread at a time (the batch's done callback); a no-op outside a unit. */
void exp_mpi_trial_done(void);
/* The end of MPI (cli_mpi_end) and of the worker's collected errors. */
void exp_mpi_end(void);

#endif
