/* SPDX-License-Identifier: MIT */
/* sched_json.h: the JSON answer of a schedule, one writer for `devo schedule --format json` and
 * `devo serve` (the same fields in the same order: docs/schedule-output.md), through
 * json_out.c. */
#ifndef DEVO_SCHED_JSON_H
#define DEVO_SCHED_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "engine/include/devo.h"
#include "json_out.h"

/* What the search gave and what it was asked, for the JSON. */
typedef struct sched_answer {
  const int *assign;            /* ntasks machine indices */
  const double *start, *finish; /* devo_etc_timeline of assign (read only with the schedule) */
  const devo_schedule_result *res;
  double lambda, time_limit;
  int order; /* DEVO_ORDER_* */
  uint64_t seed;
  double elapsed;   /* seconds from where the deadline counts to the answer */
  int deadline_met; /* elapsed <= time_limit + the caller's slack */
  const struct cli_variant *var; /* DE's variant (tools/cli.h); NULL = the default, rand1bin */
  /* optional: more members of the top-level object, written after the summary (NULL = none) */
  void (*extra)(json_out *j, const void *ud);
  const void *extra_ud;
} sched_answer;

/* Writes the JSON object (summary, per_machine, and with with_schedule the schedule and the
 * assignment) and its line end to f. Returns 0, or -1 when out of memory (the stream's own
 * errors are the caller's to check). Prints nothing. Thread-safe (f is the caller's). */
int sched_json_write(FILE *f, const devo_etc *e, const sched_answer *ans, int with_schedule);

#endif /* DEVO_SCHED_JSON_H */
