/* SPDX-License-Identifier: MIT */
/* bench_etc.c: bench-etc, the scheduling quality benchmark. For the 12 Braun et al. instances
 * (512 tasks x 16 machines) it runs the library's scheduling pipeline (devo_schedule_run: the
 * same as `devo schedule`) with --objective makespan for each time limit and seed, and prints
 * the median makespan beside Min-min and the best-known makespans of REFERENCE.md (Gogos et al.,
 * FGCS 60:48-66, 2016), read from the instance folder so that the numbers keep one source.
 * The time limit counts from the call, reading the file excluded (the CLI counts it too). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/internal.h"
#include "bench/bench_util.h"

#define NINST     12
#define MAX_TIMES 8
#define MAX_SEEDS 101

/* NULL-ended: the choices of --only too */
static const char *const classes[NINST + 1] = {
    "u_c_hihi", "u_c_hilo", "u_c_lohi", "u_c_lolo", "u_i_hihi", "u_i_hilo", "u_i_lohi",
    "u_i_lolo", "u_s_hihi", "u_s_hilo", "u_s_lohi", "u_s_lolo", NULL};
static const char *const backends[] = {"cpu", "gpu", "auto", NULL};
static const int backend_v[] = {DEVO_BACKEND_CPU, DEVO_BACKEND_GPU, DEVO_BACKEND_AUTO};
static const char *const onoff[] = {"on", "off", NULL};
static const int onoff_v[] = {1, 0};
static const char *const searches[] = {"auto", "ig", "pipeline", NULL};
static const int search_v[] = {DEVO_SEARCH_AUTO, DEVO_SEARCH_IG, DEVO_SEARCH_PIPELINE};

static const char *const usage =
    "usage: bench-etc [DIR] [options]\n"
    "\n"
    "Runs devo_schedule_run (the pipeline of `devo schedule`: heuristics, local search, DE,\n"
    "local search) with --objective makespan on the 12 Braun instances DIR/u_*_*.0 (default\n"
    "data/etc_data/braun) and prints the median makespan per time limit against Min-min\n"
    "and the best-known makespans of DIR/REFERENCE.md.\n"
    "\n"
    "  --times T1,T2,..   time limits in seconds (default 1,10)\n"
    "  --seeds N          seeds 1..N per instance and limit (default 5)\n"
    "  --threads N        CPU worker threads (default 1)\n"
    "  --backend B        cpu (default), gpu or auto\n"
    "  --np N             DE population (default 64)\n"
    "  --local-search on|off  on (default); off = plain DE from the plain heuristics\n"
    "  --only NAME        one instance, e.g. u_c_hihi\n"
    "  --search S         auto (default: the makespan search of etc_vnd.c), ig or pipeline\n"
    "                     (the DE pipeline of issue 5, for comparison)\n"
    "  --chains N         IG chains (default 0 = the larger of threads and 4)\n";

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The best-known and Min-min columns of REFERENCE.md: "| name.0 | best | minmin | ..." */
static int reference(const char *dir, const char *cls, double *best, double *minmin)
{
  char path[1024], line[512], key[64];
  FILE *f;
  int found = 0;
  snprintf(path, sizeof path, "%s/REFERENCE.md", dir);
  snprintf(key, sizeof key, "| %s.0 |", cls);
  f = fopen(path, "r");
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, strlen(key)) == 0 &&
        sscanf(line + strlen(key), " %lf | %lf", best, minmin) == 2) {
      found = 1;
      break;
    }
  fclose(f);
  return found ? 0 : -1;
}

static const char *source_name(int s)
{
  return s == DEVO_SCHED_FROM_HEURISTIC_LS ? "heur+ls"
         : s == DEVO_SCHED_FROM_DE         ? "de"
         : s == DEVO_SCHED_FROM_DE_LS      ? "de+ls"
         : s == DEVO_SCHED_FROM_ILS        ? "ils"
         : s == DEVO_SCHED_FROM_IG         ? "ig"
                                           : "heur";
}

int main(int argc, char **argv)
{
  const char *dir = "data/etc_data/braun";
  double times[MAX_TIMES] = {1, 10};
  int ntimes = 2, nseeds = 5, threads = 1, backend = DEVO_BACKEND_CPU, np = 64, ls = 1, i, k, ti;
  int search = DEVO_SEARCH_AUTO, chains = 0, only = -1; /* only: an index of classes, -1: all */
  double worst_over = -1e9, max_gap[MAX_TIMES], sum_gap[MAX_TIMES];
  int all_below = 1, ninst = 0;
  const char *max_at[MAX_TIMES];
  char date[64];
  /* the limits of devo_schedule_run (engine/schedule.c), refused here with the option's name */
  const bench_opt opts[] = {BENCH_POS_LIST_OPT("times", times, &ntimes, MAX_TIMES, 1e9),
                            BENCH_INT_OPT("seeds", &nseeds, 1, MAX_SEEDS),
                            BENCH_INT_OPT("threads", &threads, 1, 1024),
                            BENCH_CHOICE_OPT("backend", &backend, backends, backend_v),
                            BENCH_INT_OPT("np", &np, 4, DEVO__MAX_NP),
                            BENCH_CHOICE_OPT("local-search", &ls, onoff, onoff_v),
                            BENCH_CHOICE_OPT("only", &only, classes, NULL),
                            BENCH_CHOICE_OPT("search", &search, searches, search_v),
                            BENCH_INT_OPT("chains", &chains, 0, 4096)};
  if ((i = bench_args("bench-etc", usage, argc, argv, opts, BENCH_NOPTS(opts), &dir)) != BENCH_GO)
    return i;
  for (ti = 0; ti < MAX_TIMES; ++ti) {
    max_gap[ti] = -1e9;
    sum_gap[ti] = 0.0;
    max_at[ti] = "";
  }
  bench_stamp(date, sizeof date);
  printf("bench-etc: devo %s, %s; search %s, %d chain(s); %s backend, %d thread(s), NP %d, local "
         "search %s, %d seed(s), --objective makespan; best-known from %s/REFERENCE.md (Gogos et "
         "al. 2016)\n",
         devo_version(), date,
         search == DEVO_SEARCH_PIPELINE ? "pipeline"
         : search == DEVO_SEARCH_IG     ? "ig"
                                        : "auto",
         chains,
         backend == DEVO_BACKEND_GPU    ? "gpu"
         : backend == DEVO_BACKEND_AUTO ? "auto"
                                        : "cpu",
         threads, np, ls ? "on" : "off", nseeds, dir);
  printf("\n| instance | Min-min | best-known |");
  for (ti = 0; ti < ntimes; ++ti)
    printf(" median %gs | gap %gs | <Min-min %gs | from %gs |", times[ti], times[ti], times[ti],
           times[ti]);
  printf("\n|---|---:|---:|");
  for (ti = 0; ti < ntimes; ++ti)
    printf("---:|---:|---:|---|");
  printf("\n");
  fflush(stdout);
  for (k = 0; k < NINST; ++k) {
    char path[1024], err[512];
    double best_known, ref_minmin, minmin;
    devo_etc *e = NULL;
    int *a;
    FILE *f;
    if (only >= 0 && k != only)
      continue;
    snprintf(path, sizeof path, "%s/%s.0", dir, classes[k]);
    f = fopen(path, "rb");
    if (!f) {
      fprintf(stderr, "bench-etc: %s: %s\n", path, strerror(errno));
      return 2;
    }
    if (devo_etc_read(&e, f, path, DEVO_ETC_BRAUN, 16, NULL, err, sizeof err) != DEVO_OK) {
      fclose(f);
      fprintf(stderr, "bench-etc: %s\n", err);
      return 2;
    }
    fclose(f);
    if (reference(dir, classes[k], &best_known, &ref_minmin)) {
      fprintf(stderr, "bench-etc: %s/REFERENCE.md has no row for %s\n", dir, classes[k]);
      devo_etc_destroy(e);
      return 2;
    }
    a = (int *)malloc((size_t)devo_etc_ntasks(e) * sizeof(int));
    if (!a || devo_etc_heuristic(e, DEVO_HEUR_MINMIN, a) != DEVO_OK ||
        devo_etc_evaluate(e, a, DEVO_ORDER_FCFS, &minmin, NULL) != DEVO_OK) {
      fprintf(stderr, "bench-etc: Min-min failed on %s\n", classes[k]);
      return 1;
    }
    printf("| %s.0 | %.2f | %.2f |", classes[k], minmin, best_known);
    fflush(stdout);
    for (ti = 0; ti < ntimes; ++ti) {
      double ms[MAX_SEEDS], med;
      int s, below = 0, src_count[DEVO_SCHED_FROM_IG + 1] = {0}, top = 0;
      for (s = 0; s < nseeds; ++s) {
        devo_schedule_opts o;
        devo_schedule_result r;
        int st;
        devo_schedule_opts_init(&o);
        o.time_limit = times[ti];
        o.lambda = 1.0;
        o.seed = (uint64_t)s + 1;
        o.threads = threads;
        o.backend = backend;
        o.np = np;
        o.seeds = ls ? DEVO_ETC_SEED_LOCAL : DEVO_ETC_SEED_PLAIN;
        o.polish = ls;
        o.search = search;
        o.chains = chains;
        st = devo_schedule_run(e, &o, a, &r);
        if (st != DEVO_OK) {
          fprintf(stderr, "\nbench-etc: %s: %s (%s)\n", classes[k], r.message,
                  devo_status_name(st));
          return 1;
        }
        ms[s] = r.makespan;
        below += r.makespan < minmin;
        src_count[r.source]++;
        if (r.elapsed - times[ti] > worst_over)
          worst_over = r.elapsed - times[ti];
      }
      for (s = 1; s <= DEVO_SCHED_FROM_IG; ++s)
        if (src_count[s] > src_count[top])
          top = s;
      med = median(ms, nseeds);
      all_below &= below == nseeds;
      sum_gap[ti] += 100.0 * (med - best_known) / best_known;
      if (100.0 * (med - best_known) / best_known > max_gap[ti]) {
        max_gap[ti] = 100.0 * (med - best_known) / best_known;
        max_at[ti] = classes[k];
      }
      printf(" %.2f | %.2f%% | %d/%d | %s |", med, 100.0 * (med - best_known) / best_known, below,
             nseeds, source_name(top));
      fflush(stdout);
    }
    printf("\n");
    ninst++;
    free(a);
    devo_etc_destroy(e);
  }
  printf("\ngap = (median - best-known) / best-known; <Min-min = runs below Min-min's makespan; "
         "from = the most common source of the answer; largest overrun of a time limit: "
         "%.2f ms\n%s\n",
         1e3 * worst_over,
         all_below ? "every run is below Min-min" : "NOT every run is below Min-min");
  for (ti = 0; ti < ntimes && ninst > 0; ++ti)
    printf("%gs: largest median gap %.2f%% (%s), mean of the medians %.2f%%\n", times[ti],
           max_gap[ti], max_at[ti], sum_gap[ti] / ninst);
  return all_below ? 0 : 1;
}
