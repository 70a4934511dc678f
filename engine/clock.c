/* SPDX-License-Identifier: MIT */
/* clock.c: the monotonic clock and the abort check that the backends poll. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "internal.h"

double devo__now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int devo__should_abort(devo_solver *s)
{
  if (atomic_load_explicit(&s->interrupt, memory_order_relaxed))
    return 1;
  if (s->ext_interrupt && *s->ext_interrupt)
    return 1;
  return s->deadline > 0.0 && devo__now() >= s->deadline;
}
