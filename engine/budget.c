/* SPDX-License-Identifier: MIT */
/* budget.c: devo_schedule_budget, the share of a caller's deadline that the search may use, and
 * the rest of the deadline budget of `devo schedule` and `devo serve` (when to stop reading, how
 * long to wait for the GPU, when a search is no longer worth starting, when an answer is late).
 * The margins were measured for those two programs (BENCHMARKS.md); they live here, once, so that
 * a resource manager that links devo keeps its deadlines the same way. */
#include <math.h>
#include <stdio.h>

#include "internal.h"

/* The fixed time kept back when the process ends after the answer: writing it, freeing memory
 * and the process's exit. 3 ms left the process ending up to 6 ms after its limit in 1 of 80
 * runs measured from outside on the H100 machine (2026-11-22, devo's own clock then at most
 * 1.7 ms before the limit): the start and the exit of a process vary by a few ms. A read that
 * waited the whole limit ended its process 5 to 7 ms after it (2-core machine, 2026-11-24), so
 * the input must have come this long before the deadline too. */
#define EXIT_MARGIN_S 0.006
/* The fixed time kept back when the caller goes on after the answer (devo serve): the timeline
 * and the JSON answer in memory took 0.25 ms at 512 x 16 on the 2-core machine once the writer
 * formatted numbers itself (1.1 ms before, BENCHMARKS.md, issue 26); the rest is room for a
 * thread taken off its core. */
#define ANSWER_MARGIN_S 0.001
/* Per task, for the text lines "task,machine" alone. */
#define PER_TASK_S 2e-7
/* Per task with start and finish times (CSV, JSON with the schedule): two numbers formatted to
 * read back exactly (and in JSON six keys): 1.7 us of CPU time per task more than the text
 * lines, measured at 10^5 x 16 with --heuristic mct (2-core development machine, 2026-11-24);
 * devo serve's answer, formatted by its own writer since issue 26 in about 0.5 us per task,
 * keeps the same 2 us (the rest: room for a thread taken off its core). */
#define PER_TASK_TIMES_S 2e-6
/* Per byte of the matrix given back after the answer. At 16384 x 256 (33.5 MB) the matrix's
 * munmap took 5.1 ms and the exit 0.7 ms (strace -ttt, 2-core machine, 2026-11-25); on the H100
 * machine runs at 1 s ended 11-14 ms after devo's own clock said the answer was out, against
 * 5-6 ms at 4096 x 64 (2 MB): 0.3 ms per MB. */
#define PER_BYTE_S 3e-10
/* A process that used the GPU needs time to end: the driver tears the context down at exit (80
 * to 110 ms measured on the lent H100 after the answer was written), so that much of the limit
 * is kept back when the search uses the GPU in a process that ends after it. */
#define GPU_EXIT_S 0.15
/* GPU start-up (driver and context creation, the first CUDA call of a process) took about 1.1 s
 * on the lent H100 (BENCHMARKS.md): a search that wants the GPU waits for it at most this share
 * of the limit, and then searches on the CPU, so that a slow start leaves half the time. */
#define GPU_WAIT_SHARE 0.5
/* A search shorter than this is not worth starting (devo serve: not worth a slot); the caller
 * answers with a one-pass heuristic instead. */
#define MIN_RUN_S 0.003
/* An answer later than the deadline + this is a missed deadline (the acceptance's 5 ms: devo
 * schedule and devo serve say so on stderr, in the JSON and in the metrics). */
#define DEADLINE_SLACK_S 0.005
/* The least time given to a search: a token amount, so that devo_schedule_run (time_limit > 0)
 * still answers from its first heuristic when reading took the whole limit. */
#define MIN_SEARCH_S 1e-6
/* Bytes per matrix value accepted (a double is 8). */
#define MAX_VALUE_BYTES 64

#define invalid(err, errlen, ...) devo__errf((err), (errlen), DEVO_E_INVALID, __VA_ARGS__)

static int check(const devo_budget_opts *o, char *err, size_t errlen)
{
  const int sized = o->ntasks != 0 || o->nmach != 0;
  if (!(isfinite(o->start) && o->start >= 0.0))
    return invalid(err, errlen, "start %g: must be finite seconds >= 0", o->start);
  if (!(o->time_limit > 0.0 && o->time_limit <= 1e9))
    return invalid(err, errlen, "time limit %g: must be a number of seconds > 0 and <= 1e9",
                   o->time_limit);
  if (!(o->now == 0.0 || (isfinite(o->now) && o->now > 0.0)))
    return invalid(err, errlen, "now %g: must be 0 (read the clock) or finite seconds > 0", o->now);
  if (sized &&
      (o->ntasks < 1 || o->ntasks > DEVO_ETC_MAX_TASKS || o->nmach < 2 ||
       o->nmach > DEVO_ETC_MAX_MACHINES || (int64_t)o->ntasks * o->nmach > DEVO_ETC_MAX_CELLS))
    return invalid(err, errlen,
                   "size %d x %d: must be 0 x 0 (not read yet) or 1..%d tasks, 2..%d machines, at "
                   "most %d values",
                   o->ntasks, o->nmach, DEVO_ETC_MAX_TASKS, DEVO_ETC_MAX_MACHINES,
                   DEVO_ETC_MAX_CELLS);
  if (o->answer != DEVO_ANSWER_ASSIGNMENT && o->answer != DEVO_ANSWER_TIMES)
    return invalid(err, errlen, "answer %d: not a DEVO_ANSWER_* value", o->answer);
  if (o->value_bytes < 0 || o->value_bytes > MAX_VALUE_BYTES)
    return invalid(err, errlen, "value_bytes %d: must be in [0, %d]", o->value_bytes,
                   MAX_VALUE_BYTES);
  if (o->exits != 0 && o->exits != 1)
    return invalid(err, errlen, "exits %d: must be 0 or 1", o->exits);
  if (o->backend != DEVO_BACKEND_CPU && o->backend != DEVO_BACKEND_GPU)
    return invalid(err, errlen, "backend %d: must be DEVO_BACKEND_CPU or DEVO_BACKEND_GPU",
                   o->backend);
  return DEVO_OK;
}

int devo_schedule_budget(const devo_budget_opts *o, devo_budget *b, char *err, size_t errlen)
{
  double fixed, per_task, per_bytes, gpu, now;
  int st;
  if (err && errlen > 0)
    err[0] = 0;
  if (!o || !b)
    return invalid(err, errlen, "NULL argument");
  if ((st = check(o, err, errlen)) != DEVO_OK)
    return st;
  now = o->now != 0.0 ? o->now : devo__now();
  fixed = o->exits ? EXIT_MARGIN_S : ANSWER_MARGIN_S;
  per_task = (o->answer == DEVO_ANSWER_TIMES ? PER_TASK_TIMES_S : PER_TASK_S) * o->ntasks;
  per_bytes = PER_BYTE_S * (double)o->ntasks * (double)o->nmach * (double)o->value_bytes;
  gpu = o->exits && o->backend == DEVO_BACKEND_GPU ? GPU_EXIT_S : 0.0;
  /* taken off the time left one by one, in this order (it fixes the share's last bits) */
  b->search =
      fmax(o->time_limit - (now - o->start) - fixed - per_task - per_bytes - gpu, MIN_SEARCH_S);
  b->reserve = fixed + per_task + per_bytes + gpu;
  b->input_by = o->start + fmax(o->time_limit - fixed, 0.0);
  b->gpu_wait_by = o->start + GPU_WAIT_SHARE * o->time_limit;
  b->start_by = o->start + o->time_limit - MIN_RUN_S;
  b->slack = DEADLINE_SLACK_S;
  return DEVO_OK;
}
