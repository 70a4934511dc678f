/* SPDX-License-Identifier: MIT */
/* bench_gpu_ls.c: bench-gpu-ls, issue 19's GPU search (kernels/gpu_sched_ls.cu) measured.
 * Two modes:
 *  - throughput (default): neighbourhood candidates (moves and swaps off the critical machine,
 *    each an O(1) evaluation) evaluated per second by all chains together, at 512 x 16 and
 *    4096 x 64 (etc-gen class, seed 1, every chain from the MCT schedule); the median of --reps
 *    runs of --seconds each after a warm-up run, each run validated first (a valid schedule whose
 *    makespan, recomputed on the host, is the reported one exactly);
 *  - answers (--file F): devo_schedule_run as `devo schedule --objective makespan --search S`
 *    runs it, in a process whose GPU is already warm (devo_gpu_warmup and one short search
 *    first), for seeds 1 .. --seeds at --seconds each: the makespan, the time taken and the
 *    steps, for the gap to the best-known makespans of the Braun instances at 1 s and 10 s.
 *    The ablation of issue 19 (item 2) runs here too: --de-every K (0 = no DE), --perturb random
 *    (no large neighbourhood: random kicks instead of iterated greedy), --chains N (1 = one
 *    chain), through devo__schedule_run_tuned (engine/gpu_ls.h); without them the call is
 *    devo_schedule_run itself. scripts/bench_sched_gpu.sh runs the tables.
 * In both, --gpus N,M,... runs the table once per GPU count, the search on devices 0 .. N - 1
 * at once (devo__gls_opts.devices; devo_schedule_opts.gpus), for 1, 2, 4 GPUs side by side. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gpu_ls.h"
#include "engine/internal.h"
#include "problems/etc_gen.h"
#include "bench/bench_util.h"

static const char *const usage =
    "usage: bench-gpu-ls [--seconds S] [--reps N] [--class C] [--chains N] [--block B]\n"
    "                    [--de-every K] [--perturb ig|random] [--gpus N,...]\n"
    "       bench-gpu-ls --file F [--seconds S] [--seeds N] [--search gpu-ls|ig] [--threads T]\n"
    "                    [--chains N] [--de-every K] [--perturb ig|random] [--gpus N,...]\n"
    "\n"
    "Without --file: candidates evaluated per second by the GPU search, all chains together,\n"
    "at 512 x 16 and 4096 x 64 (etc-gen class C, default u_c_hihi, seed 1; every chain from the\n"
    "MCT schedule); the median of N runs (default 5) of S seconds (default 1) after a warm-up.\n"
    "chains 0 (default): as many as the device keeps resident; block 0: 256 threads; DE every\n"
    "K steps (default 8, 0 = none); --perturb as below.\n"
    "With --file: devo_schedule_run (--objective makespan) on the instance F for seeds 1 .. N\n"
    "(default 5) at S seconds each, in a warm process: makespan, seconds, steps. The GPU\n"
    "search's ablation (gpu-ls only): --chains N (0 = as many as the device keeps resident;\n"
    "DE needs 4 or more), --de-every K (default 8, 0 = no DE), --perturb ig (default: the\n"
    "iterated greedy's removal and greedy reinsertion, the large neighbourhood) or random (the\n"
    "same 2 to 6 drawn tasks each to a uniformly drawn other machine).\n"
    "--gpus N,M,...: the table once per count, the search on GPUs 0 .. N-1 at once, each with\n"
    "its own chains (--chains per GPU) and seed, the best schedules exchanged every 4 launches\n"
    "(default 1: one GPU).\n";

typedef struct bopts {
  double seconds;
  int reps, chains, block, de_every, seeds, threads, search, perturb;
  int tuned; /* --de-every or --perturb given: the answers go through devo__schedule_run_tuned */
  int gpus[8], ngpus; /* --gpus: the GPU counts, one table each */
  int ndev;           /* the count of the table being made */
  int devices[64];    /* 0 .. 63: devices 0 .. ndev - 1 */
  const char *cls, *file;
} bopts;

/* One timed search of every chain from start; 0 when valid. */
static int one_run(const devo_etc *e, const int *start, const bopts *b, int *out,
                   devo__gls_result *r)
{
  devo__gls_opts o;
  char err[300];
  double ms;
  int st;
  memset(&o, 0, sizeof o);
  o.seed = 1;
  o.chains = b->chains;
  o.block = b->block;
  o.de_every = b->de_every;
  o.perturb = b->perturb;
  o.f = 0.5;
  o.cr = 0.9;
  o.deadline = devo__now() + b->seconds;
  o.devices = b->devices;
  o.ndevices = b->ndev;
  st = devo__gpu_sched_ls(e, start, 1, out, &o, r, err, sizeof err);
  if (st != DEVO_OK) {
    fprintf(stderr, "bench-gpu-ls: %s: %s\n", devo_status_name(st), err);
    return 1;
  }
  if (devo_etc_evaluate(e, out, DEVO_ORDER_FCFS, &ms, NULL) != DEVO_OK || ms != r->makespan) {
    fprintf(stderr, "bench-gpu-ls: invalid answer (host makespan %.17g, reported %.17g)\n", ms,
            r->makespan);
    return 1;
  }
  return 0;
}

static int run_size(const bopts *b, int n, int m)
{
  devo__etcgen g;
  devo_etc *e = NULL;
  double *v = (double *)malloc((size_t)n * m * sizeof(double)), rate[64], mrate[64], srate[64];
  int *start = (int *)malloc((size_t)n * sizeof(int)), *a = (int *)malloc((size_t)n * sizeof(int));
  char err[256];
  devo__gls_result r;
  double ms0 = 0.0, msf = 0.0;
  int k;
  devo__etcgen_defaults(&g);
  if (!v || !start || !a || devo__etcgen_class(&g, b->cls) != 0) {
    fprintf(stderr, "bench-gpu-ls: bad class %s or out of memory\n", b->cls);
    return 2;
  }
  g.ntasks = n;
  g.nmach = m;
  if (devo__etcgen_run(&g, v, err, sizeof err) != 0 ||
      devo_etc_create(&e, n, m, v, NULL, err, sizeof err) != DEVO_OK ||
      devo_etc_heuristic(e, DEVO_HEUR_MCT, start) != DEVO_OK ||
      devo_etc_evaluate(e, start, DEVO_ORDER_FCFS, &ms0, NULL) != DEVO_OK) {
    fprintf(stderr, "bench-gpu-ls: %s\n", err);
    return 1;
  }
  memset(&r, 0, sizeof r);
  for (k = -1; k < b->reps; ++k) { /* k = -1: warm-up */
    if (one_run(e, start, b, a, &r) != 0)
      return 1;
    if (k >= 0) {
      rate[k] = (double)r.candidates / r.seconds;
      mrate[k] = (double)r.moves / r.seconds;
      srate[k] = (double)r.steps / r.seconds;
      msf = r.makespan;
    }
  }
  qsort(rate, (size_t)b->reps, sizeof rate[0], bench_cmp_double);
  qsort(mrate, (size_t)b->reps, sizeof mrate[0], bench_cmp_double);
  qsort(srate, (size_t)b->reps, sizeof srate[0], bench_cmp_double);
  printf("| %d | %s | %d x %d | %d x %d | %.1f M/s | %.1f M/s | %.1f M/s | %.3g | %.0f | %lld | "
         "%.6g -> %.6g |\n",
         r.devices, b->cls, n, m, r.chains, r.block, rate[b->reps / 2] * 1e-6, rate[0] * 1e-6,
         rate[b->reps - 1] * 1e-6, mrate[b->reps / 2], srate[b->reps / 2], (long long)r.exchanges,
         ms0, msf);
  devo_etc_destroy(e);
  free(v);
  free(start);
  free(a);
  return 0;
}

static int throughput(bopts *b)
{
  char date[64], msg[256];
  int rc, k;
  if (!devo_gpu_available(msg, sizeof msg)) {
    fprintf(stderr, "bench-gpu-ls: %s\n", msg);
    return 1;
  }
  bench_stamp(date, sizeof date);
  printf("bench-gpu-ls: devo %s, %s; %s; DE every %d steps; perturbation %s; %d runs of %g s "
         "after a warm-up\n\n",
         devo_version(), date, msg, b->de_every,
         b->perturb == DEVO__GLS_PERTURB_RANDOM ? "random" : "ig", b->reps, b->seconds);
  printf("| GPUs | class | size | chains x threads | candidates/s median | lowest | highest | "
         "moves/s | steps/s | exchanges | makespan (MCT -> last run) |\n"
         "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (k = 0; k < b->ngpus; ++k) {
    b->ndev = b->gpus[k];
    if ((rc = run_size(b, 512, 16)) != 0 || (rc = run_size(b, 4096, 64)) != 0)
      return rc;
  }
  return 0;
}

/* The seeds' rows of the answers' table for the GPU count b->ndev (after a warm-up run). */
static int answer_rows(const bopts *b, const devo_etc *e, const devo__gls_tune *tune, int *a)
{
  devo_schedule_opts so;
  devo_schedule_result r;
  int s;
  for (s = 0; s <= b->seeds; ++s) { /* s = 0: warm-up, 0.05 s, not printed */
    devo_schedule_opts_init(&so);
    so.lambda = 1.0;
    so.search = b->search;
    so.backend = b->search == DEVO_SEARCH_GPU_LS ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU;
    so.threads = b->threads;
    so.chains = b->chains;
    so.gpus = b->ndev;
    so.seed = (uint64_t)(s ? s : 1);
    so.time_limit = s ? b->seconds : 0.05;
    if (devo__schedule_run_tuned(e, &so, b->tuned ? tune : NULL, a, &r) != DEVO_OK) {
      fprintf(stderr, "bench-gpu-ls: %s\n", r.message);
      return 1;
    }
    if (s)
      printf("| %d | %d | %.6f | %.4f | %lld | %lld | %s |\n", b->ndev, s, r.makespan, r.elapsed,
             (long long)r.ils_rounds, (long long)r.candidates,
             r.backend == DEVO_BACKEND_GPU ? "gpu" : "cpu");
  }
  return 0;
}

static int answers(bopts *b)
{
  devo_etc *e = NULL;
  devo__gls_tune tune;
  char err[256], date[64], msg[256];
  int *a, k, rc;
  FILE *f = fopen(b->file, "rb");
  if (!f || devo_etc_read(&e, f, b->file, DEVO_ETC_AUTO, 0, NULL, err, sizeof err) != DEVO_OK) {
    fprintf(stderr, "bench-gpu-ls: %s: %s\n", b->file, f ? err : "cannot open");
    if (f)
      fclose(f);
    return 1;
  }
  fclose(f);
  a = (int *)malloc((size_t)devo_etc_ntasks(e) * sizeof(int));
  if (!a)
    return 1;
  if (b->search == DEVO_SEARCH_GPU_LS && devo_gpu_warmup() != DEVO_OK) {
    devo_gpu_available(msg, sizeof msg);
    fprintf(stderr, "bench-gpu-ls: %s\n", msg);
    return 1;
  }
  tune.de_every = b->de_every;
  tune.perturb = b->perturb;
  bench_stamp(date, sizeof date);
  printf("bench-gpu-ls: devo %s, %s; %s, %s, %g s, warm process", devo_version(), date, b->file,
         b->search == DEVO_SEARCH_GPU_LS ? "gpu-ls" : "ig", b->seconds);
  if (b->search == DEVO_SEARCH_GPU_LS)
    printf("; chains %d (0: auto), DE every %d steps (0: none), perturbation %s", b->chains,
           b->de_every, b->perturb == DEVO__GLS_PERTURB_RANDOM ? "random" : "ig");
  else
    printf("; %d thread(s), chains %d (0: auto)", b->threads, b->chains);
  printf("\n\n");
  printf("| GPUs | seed | makespan | seconds | steps | candidates | backend |\n"
         "|---:|---:|---:|---:|---:|---:|---|\n");
  for (k = 0, rc = 0; k < b->ngpus && rc == 0; ++k) {
    b->ndev = b->gpus[k];
    rc = answer_rows(b, e, &tune, a);
  }
  free(a);
  devo_etc_destroy(e);
  return rc;
}

int main(int argc, char **argv)
{
  static const char *const perturbs[] = {"ig", "random", NULL};
  static const int perturb_v[] = {DEVO__GLS_PERTURB_IG, DEVO__GLS_PERTURB_RANDOM};
  static const char *const searches[] = {"gpu-ls", "ig", NULL};
  static const int search_v[] = {DEVO_SEARCH_GPU_LS, DEVO_SEARCH_IG};
  bopts b;
  int rc, d;
  memset(&b, 0, sizeof b);
  b.seconds = 1.0;
  b.reps = 5;
  b.de_every = DEVO__GLS_DE_EVERY;
  b.perturb = DEVO__GLS_PERTURB_IG;
  b.seeds = 5;
  b.threads = 1;
  b.cls = "u_c_hihi";
  b.search = DEVO_SEARCH_GPU_LS;
  b.gpus[0] = 1;
  b.ngpus = 1;
  for (d = 0; d < 64; ++d)
    b.devices[d] = d;
  {
    /* --de-every and --perturb, given, send the answers through devo__schedule_run_tuned */
    const bench_opt opts[] = {BENCH_POS_OPT("seconds", &b.seconds, 600),
                              BENCH_INT_OPT("reps", &b.reps, 1, 64),
                              BENCH_STR_OPT("class", &b.cls),
                              BENCH_INT_OPT("chains", &b.chains, 0, 4096),
                              BENCH_INT_OPT("block", &b.block, 0, 1024),
                              {.name = "de-every",
                               .kind = BENCH_INT,
                               .dst = &b.de_every,
                               .hi = 1000000,
                               .seen = &b.tuned},
                              {.name = "perturb",
                               .kind = BENCH_CHOICE,
                               .dst = &b.perturb,
                               .names = perturbs,
                               .values = perturb_v,
                               .seen = &b.tuned},
                              BENCH_STR_OPT("file", &b.file),
                              BENCH_INT_OPT("seeds", &b.seeds, 1, 100),
                              BENCH_INT_OPT("threads", &b.threads, 1, 1024),
                              BENCH_CHOICE_OPT("search", &b.search, searches, search_v),
                              BENCH_INTS_OPT("gpus", b.gpus, &b.ngpus, 8, 1, 64)};
    if ((rc = bench_args("bench-gpu-ls", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) !=
        BENCH_GO)
      return rc;
  }
  if (b.tuned && b.file && b.search != DEVO_SEARCH_GPU_LS) {
    fprintf(stderr, "bench-gpu-ls: --de-every and --perturb are the GPU search's: they need "
                    "--search gpu-ls\n");
    return 2;
  }
  return b.file ? answers(&b) : throughput(&b);
}
