/* SPDX-License-Identifier: MIT */
/* bench_cpu.c: benchmark of the CPU backend (the `bench-cpu` program): evaluations per
 * second of DE/rand/1/bin (NP = 100, F = 0.5, CR = 0.9) on the four classic functions at
 * D = 10, 100, 1000 with 1 and 2 threads (or the counts given). Each figure is the median of
 * --reps runs after one warm-up run, counting only the generation loop (elapsed time minus
 * set-up and initial population; bench/bench_util.c). */
#include <stdio.h>

#include "engine/include/devo.h"
#include "bench/bench_util.h"

static const char usage[] =
    "usage: bench-cpu [--reps N] [--threads 1,2,...]\n"
    "\n"
    "Evaluations per second of the CPU backend (DE/rand/1/bin, NP = 100, F = 0.5, CR = 0.9) on\n"
    "sphere, rosenbrock, griewank and rastrigin at D = 10, 100, 1000 per thread count (default\n"
    "1,2); median of --reps runs (default 5) after a warm-up.\n";

int main(int argc, char **argv)
{
  static const char *const fns[] = {"sphere", "rosenbrock", "griewank", "rastrigin"};
  static const int dims[] = {10, 100, 1000};
  int threads[8] = {1, 2}, nthreads = 2, reps = 5, f, d, t;
  const bench_opt opts[] = {BENCH_INT_OPT("reps", &reps, 1, 64),
                            BENCH_INTS_OPT("threads", threads, &nthreads, 8, 1, 1024)};
  if ((t = bench_args("bench-cpu", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return t;
  printf("# devo %s CPU backend, DE/rand/1/bin NP=100 F=0.5 CR=0.9, median of %d runs\n",
         devo_version(), reps);
  printf("%-11s %6s %8s %16s\n", "function", "D", "threads", "evals/s");
  for (f = 0; f < 4; ++f)
    for (d = 0; d < 3; ++d) {
      devo_problem *p = NULL;
      /* about 2e7 coordinate evaluations per run */
      int64_t evals = 20000000 / dims[d];
      if (devo_problem_create(&p, NULL) != DEVO_OK ||
          devo_problem_set_builtin(p, fns[f], dims[d], 1, NULL) != DEVO_OK) {
        fprintf(stderr, "bench-cpu: cannot make %s\n", fns[f]);
        return 1;
      }
      for (t = 0; t < nthreads; ++t) {
        bench_cfg cfg;
        double sec;
        bench_cfg_init(&cfg);
        cfg.cr = 0.9;
        cfg.threads = threads[t];
        cfg.evals = evals;
        sec = bench_median(p, &cfg, reps, "bench-cpu", NULL, 0);
        if (sec <= 0)
          return 1;
        /* a run never exceeds its limit: it ends at the last whole generation */
        printf("%-11s %6d %8d %16.4g\n", fns[f], dims[d], threads[t],
               (double)((evals / 100 - 1) * 100) / sec);
        fflush(stdout);
      }
      devo_problem_destroy(p);
    }
  return 0;
}
