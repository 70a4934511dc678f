/* SPDX-License-Identifier: MIT */
/* cli_progress.h: the one-line progress display of `devo solve` and `devo schedule` on a
 * terminal's stderr, fed by the library's progress callback (devo_progress_fn). The library never
 * prints; this is where a run's progress becomes text. */
#ifndef DEVO_CLI_PROGRESS_H
#define DEVO_CLI_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "engine/include/devo.h"

/* Seconds between two redraws of the line (the first one comes after as long). */
#define CLI_PROGRESS_PERIOD_S 0.25

typedef struct cli_progress {
  FILE *f;
  double origin;     /* cli_process_elapsed() at the start of what the line times */
  double next;       /* elapsed seconds of the next redraw */
  double fstar;      /* solve: the optimum (the line shows best - fstar); NAN: the best itself */
  double time_limit; /* seconds after origin; 0: none */
  int64_t max_evals, max_gens; /* solve: the budget; 0: none */
  int schedule;  /* the schedule's line: elapsed / limit, best so far, evaluations, steps */
  int64_t evals; /* schedule: DE's evaluations so far */
  int64_t steps; /* schedule: rounds (or steps per chain) of the local search after DE */
  double best;   /* schedule: the lowest best reported */
  int drawn;     /* a line is on the terminal */
} cli_progress;

/* 1 when a progress line is wanted: stderr is a terminal and quiet is 0. Without it no callback
 * is installed at all, so runs for scripts and tests are untouched. */
int cli_progress_wanted(int quiet);

/* The line of `devo solve`, timed from now: evaluations (of max_evals), the error (or the best
 * when fstar is NAN), elapsed seconds and an estimate of the time left by whichever budget
 * (evaluations, generations, time limit; 0 = none) ends first at the rate so far. */
void cli_progress_solve(cli_progress *p, double fstar, int64_t max_evals, int64_t max_gens,
                        double time_limit);
/* The line of `devo schedule`, timed from process start (its time limit counts from there):
 * elapsed / limit, the best objective so far, DE's evaluations and the rounds of the iterated
 * local search (or the steps per chain of the IG search) after it. */
void cli_progress_schedule(cli_progress *p, double time_limit);

/* A devo_progress_fn (ud: a cli_progress): reads the clock and redraws the line at most every
 * CLI_PROGRESS_PERIOD_S; never stops the run (returns 0). */
int cli_progress_update(void *ud, const devo_progress *pr);

/* Clears the line (if one was drawn), so that what is printed next starts on a clean line. */
void cli_progress_done(cli_progress *p);

#endif /* DEVO_CLI_PROGRESS_H */
