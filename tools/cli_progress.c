/* SPDX-License-Identifier: MIT */
/* cli_progress.c: the progress line of `devo solve` and `devo schedule` (cli_progress.h). The
 * callback runs between the solver's chunks (every 50 ms or so) and after every round of the
 * schedule's local search (often under a millisecond apart), so all it does between redraws is read
 * the monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include "cli_progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_progress_wanted(int quiet)
{
  return !quiet && isatty(STDERR_FILENO);
}

static void init(cli_progress *p, double origin, double time_limit)
{
  memset(p, 0, sizeof *p);
  p->f = stderr;
  p->origin = origin;
  p->next = CLI_PROGRESS_PERIOD_S;
  p->fstar = (double)NAN;
  p->time_limit = time_limit;
  p->best = (double)INFINITY;
}

void cli_progress_solve(cli_progress *p, double fstar, int64_t max_evals, int64_t max_gens,
                        double time_limit)
{
  init(p, cli_process_elapsed(), time_limit);
  p->fstar = fstar;
  p->max_evals = max_evals;
  p->max_gens = max_gens;
}

void cli_progress_schedule(cli_progress *p, double time_limit)
{
  init(p, 0.0, time_limit);
  p->schedule = 1;
}

/* Seconds as people read them: "12.3 s", "4 min 05 s", "2 h 07 min". */
static void fmt_seconds(char *b, size_t n, double s)
{
  if (s < 100.0)
    snprintf(b, n, "%.1f s", s);
  else if (s < 3600.0)
    snprintf(b, n, "%d min %02d s", (int)(s / 60.0), (int)fmod(s, 60.0));
  else
    snprintf(b, n, "%.0f h %02d min", floor(s / 3600.0), (int)fmod(s / 60.0, 60.0));
}

/* Seconds left by the budget that ends first at the rate so far; negative when none is known. */
static double solve_left(const cli_progress *p, const devo_progress *pr, double t)
{
  double left = -1.0, x;
  if (p->time_limit > 0.0)
    left = fmax(p->time_limit - t, 0.0);
  if (p->max_evals > 0 && pr->evaluations > 0) {
    x = (double)(p->max_evals - pr->evaluations) * t / (double)pr->evaluations;
    left = left < 0.0 ? x : fmin(left, x);
  }
  if (p->max_gens > 0 && pr->generation > 0) {
    x = (double)(p->max_gens - pr->generation) * t / (double)pr->generation;
    left = left < 0.0 ? x : fmin(left, x);
  }
  return left < 0.0 ? left : fmax(left, 0.0);
}

static void solve_line(char *b, size_t n, const cli_progress *p, const devo_progress *pr, double t)
{
  char el[32], lf[32];
  const double left = solve_left(p, pr, t);
  size_t k = (size_t)snprintf(b, n, "evals %lld", (long long)pr->evaluations);
  if (k < n && p->max_evals > 0)
    k += (size_t)snprintf(b + k, n - k, " / %lld (%.0f%%)", (long long)p->max_evals,
                          100.0 * (double)pr->evaluations / (double)p->max_evals);
  fmt_seconds(el, sizeof el, t);
  if (k < n)
    k += (size_t)snprintf(b + k, n - k, "  %s %.4e  %s", isnan(p->fstar) ? "best" : "error",
                          isnan(p->fstar) ? pr->best : pr->best - p->fstar, el);
  if (k < n && left >= 0.0) {
    fmt_seconds(lf, sizeof lf, left);
    snprintf(b + k, n - k, "  ~%s left", lf);
  }
}

static void schedule_line(char *b, size_t n, const cli_progress *p, double t)
{
  char el[32], lim[32];
  size_t k;
  fmt_seconds(el, sizeof el, t);
  fmt_seconds(lim, sizeof lim, p->time_limit);
  k = (size_t)snprintf(b, n, "%s / %s  best %.10g", el, lim, p->best);
  if (k < n && p->evals > 0)
    k += (size_t)snprintf(b + k, n - k, "  evals %lld", (long long)p->evals);
  if (k < n && p->steps > 0)
    snprintf(b + k, n - k, "  steps %lld", (long long)p->steps);
}

int cli_progress_update(void *ud, const devo_progress *pr)
{
  cli_progress *p = (cli_progress *)ud;
  char line[192];
  double t;
  if (p->schedule) {
    /* the local searches report generation = evaluations = their rounds or steps (devo.h);
     * DE's evaluations are always more than its generations */
    if (pr->generation == pr->evaluations)
      p->steps = pr->evaluations;
    else
      p->evals = pr->evaluations;
    if (pr->best < p->best)
      p->best = pr->best;
  }
  t = cli_process_elapsed() - p->origin;
  if (t < p->next)
    return 0;
  p->next = t + CLI_PROGRESS_PERIOD_S;
  if (p->schedule)
    schedule_line(line, sizeof line, p, t);
  else
    solve_line(line, sizeof line, p, pr, t);
  /* back to the line's start, the text, then clear what a longer line before left */
  fprintf(p->f, "\r%s\033[K", line);
  fflush(p->f);
  p->drawn = 1;
  return 0;
}

void cli_progress_done(cli_progress *p)
{
  if (!p->drawn)
    return;
  fputs("\r\033[K", p->f);
  fflush(p->f);
  p->drawn = 0;
}
