/* SPDX-License-Identifier: MIT */
/* clock.c: the monotonic clock and the abort checks that the backends and the solve loop poll. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "internal.h"

double devo__now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int devo__interrupted(const devo_solver *s)
{
  /* an island's solver answers for its parent too (a solver, itself maybe in a batch) */
  for (; s; s = s->parent) {
    if (atomic_load_explicit(&s->interrupt, memory_order_relaxed))
      return 1;
    if (s->ext_interrupt && *s->ext_interrupt)
      return 1;
    if (s->group_stop && atomic_load_explicit(s->group_stop, memory_order_relaxed))
      return 1;
  }
  return 0;
}

int devo__should_abort(devo_solver *s)
{
  if (devo__interrupted(s))
    return 1;
  return s->deadline > 0.0 && devo__now() >= s->deadline;
}
