/* cmd_schedule.c: `devo schedule`: the time-bounded anytime scheduler. Reads an ETC matrix, and
 * answers with the best assignment of tasks to machines found before the deadline, which counts
 * from process start: reading the input, the search and writing the answer all fit
 * inside --time-limit. The search itself is the library's devo_schedule_run (engine/schedule.c):
 * the classic heuristics (Braun et al. 2001), local search on them, DE seeded with the results,
 * local search on DE's best; this file only parses, reads and writes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tool_util.h"

/* GPU start-up (driver and context creation, the first CUDA call of a process) took about 1.1 s
 * on the lent H100 (BENCHMARKS.md), and a process cannot end while a thread is inside that
 * call. So below GPU_WARMUP_MIN_S the search stays on the CPU; above it the GPU starts on its own
 * thread at the start of the command, beside reading the input; with --backend gpu the search
 * waits for it at most GPU_WAIT_SHARE of the limit, with auto it takes the GPU only if ready. */
#define GPU_WARMUP_MIN_S 2.0
#define GPU_WAIT_SHARE 0.5
/* A process that used the GPU needs time to end: the driver tears the context down at exit
 * (80 to 110 ms measured on the lent H100 after the answer was written), so that much of the
 * limit is kept back when the search uses the GPU. */
#define GPU_EXIT_S 0.15
enum { GPU_PENDING = 0, GPU_READY = 1, GPU_NONE = 2 };
static atomic_int gpu_state;
static char gpu_msg[256];

static void *gpu_warm_up(void *arg)
{
  (void)arg;
  atomic_store(&gpu_state, devo_gpu_available(gpu_msg, sizeof gpu_msg) ? GPU_READY : GPU_NONE);
  return NULL;
}

/* The backend to search with: the GPU only when it was asked for and is ready now. */
static int backend_now(int wanted)
{
  int g;
  if (wanted == DEVO_BACKEND_CPU)
    return DEVO_BACKEND_CPU;
  g = atomic_load(&gpu_state);
  if (g == GPU_READY)
    return DEVO_BACKEND_GPU;
  if (wanted == DEVO_BACKEND_GPU)
    fprintf(stderr, "devo schedule: %s; searching on the CPU\n",
            g == GPU_PENDING ? "the GPU is still starting" : gpu_msg);
  return DEVO_BACKEND_CPU;
}

static const char *const schedule_help =
    "usage: devo schedule FILE|- [options]\n"
    "\n"
    "Maps independent tasks to machines from an ETC matrix (expected time of each task on each\n"
    "machine) and prints one line 'task,machine' per task (0-based), then a summary on stderr\n"
    "(on stdout with --out). DE (Kromer et al. 2011 encoding) searches from the classic\n"
    "heuristic schedules, improved by local search (moves and swaps of tasks off the\n"
    "machine that ends last), until the time limit, counted from the start of the process;\n"
    "local search then polishes DE's best, and iterated local search continues from the\n"
    "best schedule until the deadline.\n"
    "\n"
    "input:\n"
    "  FILE or -            CSV (rows = tasks, columns = machines; ',' ';' or tab; optional\n"
    "                       header row) or the Braun format (one value per line, task-major,\n"
    "                       optional 'n m 0' first line); - reads standard input\n"
    "  --format F           auto (default), csv or braun\n"
    "  --machines M         machines of a Braun file without the 'n m 0' line\n"
    "  --ready FILE|a,b,..  machine ready times (one per machine, >= 0; default 0)\n"
    "objective (minimised: lambda * makespan + (1 - lambda) * flowtime / machines):\n"
    "  --objective O        weighted (default, lambda 0.75) or makespan (lambda 1)\n"
    "  --lambda L           weight of the makespan, in [0, 1] (implies weighted)\n"
    "  --order O            fcfs (default: each machine runs its tasks in index order) or spt\n"
    "                       (shortest first); changes the flowtime only\n"
    "search:\n"
    "  --time-limit S       seconds from process start (default 1); the answer comes in time\n"
    "                       (unless reading the input alone takes longer: about 30 MB/s)\n"
    "  --heuristic NAME     just run one heuristic: olb, met, mct, min-min, max-min, sufferage\n"
    "                       (to its end, whatever the limit; the last three are O(n^2 m))\n"
    "  --no-seed-heuristics start DE from random schedules only\n"
    "  --local-search on|off on (default): improve the heuristic seeds and DE's best by local\n"
    "                       search; off: plain DE from the plain heuristics\n"
    "  --search S           auto (default: ig for --objective makespan, else pipeline), ig\n"
    "                       (heuristics, then iterated greedy: random reassignments + moves,\n"
    "                       swaps and ejection chains off the machine that ends last; makespan\n"
    "                       only), pipeline (the DE pipeline described above) or gpu-ls\n"
    "                       (heuristics, then hundreds of such searches at once on the GPU,\n"
    "                       recombined by DE; makespan only; with --backend gpu and a GPU\n"
    "                       ready in time, else ig on the CPU)\n"
    "  --steps N            ig: stop after N steps per chain (with the seed and --chains the\n"
    "                       answer is then the same on every run and thread count, unless\n"
    "                       the time limit comes first; default: until the time limit)\n"
    "  --chains N           ig: independent chains, merged every 64 steps (default: --threads)\n"
    "  --ils-share S        share of the search time for iterated local search (random\n"
    "                       reassignments + local search) on the best answer after DE, in\n"
    "                       [0, 1) (default 0.8; 0 = DE gets all of it)\n"
    "  --np N               population size, >= 4 (default 64)\n"
    "  --f F                differential weight, in (0, 2] (default 0.5)\n"
    "  --cr CR              crossover rate, in [0, 1] (default 0.9)\n"
    "  --seed S             random seed (default 1)\n"
    "  --threads T          CPU worker threads (default 1)\n"
    "  --backend B          cpu (default), gpu or auto (the GPU when usable and the limit leaves\n"
    "                       time for its start-up, else the CPU)\n"
    "output:\n"
    "  --out FILE           write the assignment to FILE (the summary goes to stdout)\n"
    "  --json               one JSON object on stdout (with the assignment unless --out)\n";

/* Time kept back for writing the answer, freeing memory and the process's exit. 3 ms left the
 * process ending up to 6 ms after its limit in 1 of 80 runs measured from outside on the H100
 * machine (2026-11-22, devo's own clock then at most 1.7 ms before the limit): the start and the
 * exit of a process vary by a few ms. */
#define OUTPUT_MARGIN_S 0.006
#define OUTPUT_PER_TASK_S 2e-7

typedef struct sched_args {
  const char *file, *ready, *out, *heuristic;
  int format, nmach, order, no_seed, np, threads, backend, json, lambda_set, objective;
  int local_search; /* 0 = on, 1 = off (index into on_off) */
  double lambda, time_limit, f, cr, ils_share;
  uint64_t seed;
  int64_t steps;      /* issue 19: IG steps per chain, 0 = until the limit */
  int chains, search; /* IG chains (0 = threads), DEVO_SEARCH_* */
} sched_args;

/* Ctrl-C stops the search and still writes the best so far: the handler only sets this flag,
 * which DE's progress callback reads between chunks. */
static volatile sig_atomic_t sigint_seen;

static void on_sigint(int sig)
{
  (void)sig;
  sigint_seen = 1;
}

static int stop_on_sigint(void *ud, const devo_progress *pr)
{
  (void)ud;
  (void)pr;
  return sigint_seen != 0;
}

static int parse(int argc, char **argv, sched_args *a)
{
  static const char *const names[] = {
      "--format=", "--machines=", "--ready=",     "--time-limit=",        "--objective=",
      "--lambda=", "--order=",    "--heuristic=", "--no-seed-heuristics", "--np=",
      "--f=",      "--cr=",       "--seed=",      "--threads=",           "--backend=",
      "--out=",    "--json",      "--help",       "--local-search=",      "--ils-share=",
      "--steps=",  "--chains=",   "--search=",    NULL};
  static const char *const formats[] = {"auto", "csv", "braun", NULL};
  static const char *const objectives[] = {"weighted", "makespan", NULL};
  static const char *const orders[] = {"fcfs", "spt", NULL};
  static const char *const backends[] = {"cpu", "gpu", "auto", NULL};
  static const char *const on_off[] = {"on", "off", NULL};
  static const char *const searches[] = {"auto", "pipeline", "ig", "gpu-ls",
                                         NULL}; /* DEVO_SEARCH_* */
  const char *cmd = "schedule", *v;
  devo_schedule_opts d;
  int pos = 1, k, r = 0;
  memset(a, 0, sizeof *a);
  devo_schedule_opts_init(&d); /* the library's defaults are the command's */
  a->lambda = d.lambda;
  a->ils_share = d.ils_share;
  a->time_limit = d.time_limit;
  a->np = d.np;
  a->f = d.f;
  a->cr = d.cr;
  a->seed = d.seed;
  a->threads = d.threads;
  while ((k = cli_next(cmd, argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      if (a->file)
        return cli_usage_error(cmd, "unexpected argument '%s' (one input file)", v);
      a->file = v;
      break;
    case 0: r = cli_pick(cmd, "--format", v, formats, &a->format); break;
    case 1:
      r = cli_int(cmd, "--machines", v, &a->nmach);
      if (!r && (a->nmach < 2 || a->nmach > DEVO_ETC_MAX_MACHINES))
        r = cli_usage_error(cmd, "--machines must be 2 .. %d, got %s", DEVO_ETC_MAX_MACHINES,
                            v);
      break;
    case 2: a->ready = v; break;
    case 3:
      r = cli_double(cmd, "--time-limit", v, &a->time_limit);
      if (!r && !(a->time_limit > 0 && a->time_limit <= 1e9))
        r = cli_usage_error(cmd, "--time-limit must be a number of seconds > 0 and <= 1e9, got %s",
                            v);
      break;
    case 4: r = cli_pick(cmd, "--objective", v, objectives, &a->objective); break;
    case 5:
      r = cli_double(cmd, "--lambda", v, &a->lambda);
      if (!r && !(a->lambda >= 0 && a->lambda <= 1))
        r = cli_usage_error(cmd, "--lambda must be in [0, 1], got %s", v);
      a->lambda_set = 1;
      break;
    case 6: r = cli_pick(cmd, "--order", v, orders, &a->order); break;
    case 7:
      a->heuristic = v;
      if (devo_heuristic_from_name(v) < 0)
        r = cli_usage_error(cmd, "--heuristic: unknown '%s' (olb, met, mct, min-min, max-min, "
                                 "sufferage)",
                            v);
      break;
    case 8: a->no_seed = 1; break;
    case 9: r = cli_int(cmd, "--np", v, &a->np); break;
    case 10: r = cli_double(cmd, "--f", v, &a->f); break;
    case 11: r = cli_double(cmd, "--cr", v, &a->cr); break;
    case 12: r = cli_u64(cmd, "--seed", v, &a->seed); break;
    case 13: r = cli_int(cmd, "--threads", v, &a->threads); break;
    case 14: r = cli_pick(cmd, "--backend", v, backends, &a->backend); break;
    case 15: a->out = v; break;
    case 16: a->json = 1; break;
    case 17:
      fputs(schedule_help, stdout);
      exit(CLI_OK);
    case 18:
      r = cli_pick(cmd, "--local-search", v, on_off, &a->local_search);
      break;
    case 19:
      r = cli_double(cmd, "--ils-share", v, &a->ils_share);
      if (!r && !(a->ils_share >= 0.0 && a->ils_share < 1.0))
        r = cli_usage_error(cmd, "--ils-share must be in [0, 1), got %s", v);
      break;
    case 20:
      r = cli_int64(cmd, "--steps", v, &a->steps);
      if (!r && a->steps < 1)
        r = cli_usage_error(cmd, "--steps must be >= 1, got %s", v);
      break;
    case 21:
      r = cli_int(cmd, "--chains", v, &a->chains);
      if (!r && (a->chains < 1 || a->chains > 4096))
        r = cli_usage_error(cmd, "--chains must be 1 .. 4096, got %s", v);
      break;
    case 22: r = cli_pick(cmd, "--search", v, searches, &a->search); break;
    default: break;
    }
    if (r)
      return CLI_USAGE;
  }
  if (!a->file)
    return cli_usage_error(cmd, "an input file (or - for standard input) is required");
  if (a->objective == 1) {
    if (a->lambda_set && a->lambda != 1.0)
      return cli_usage_error(cmd, "--lambda contradicts --objective makespan");
    a->lambda = 1.0;
  }
  return 0;
}

/* Ready times from a list "a,b,c" or from a file of numbers separated by commas, semicolons or
 * white space; errors name the file, row and column. */
static int read_ready(const char *spec, int m, double *w)
{
  FILE *f = fopen(spec, "rb");
  const char *name = f ? spec : "--ready";
  char *text = NULL;
  size_t len = 0, i = 0;
  long row = 1, col = 1;
  int k = 0, rc = 0, have = 0, hard = 0;
  if (f) {
    size_t cap = 4096, got;
    text = (char *)malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
      len += got;
      if (cap - len < 2) {
        char *nt = (char *)realloc(text, cap * 2);
        if (!nt) {
          free(text);
          text = NULL;
        }
        text = nt;
        cap *= 2;
      }
    }
    if (ferror(f)) { /* a directory opens, and its reading fails */
      fclose(f);
      free(text);
      return cli_usage_error("schedule", "--ready %s: %s", spec, strerror(EISDIR));
    }
    fclose(f);
    if (!text)
      return cli_runtime_error("schedule", "out of memory");
    text[len] = 0;
  } else if (strchr(spec, ',') || strspn(spec, "0123456789.eE+-") == strlen(spec)) {
    len = strlen(spec);
    text = (char *)malloc(len + 1);
    if (!text)
      return cli_runtime_error("schedule", "out of memory");
    memcpy(text, spec, len + 1);
  } else {
    return cli_usage_error("schedule", "--ready %s: %s (not a file, nor a list a,b,c)", spec,
                           strerror(errno));
  }
  /* values separated by blanks, or by one ',' or ';' each: an empty field between two of those
   * (or before or after one on its line) is an error, not skipped (it shifted the later values
   * to other machines: found in review) */
  while (i <= len && rc == 0) {
    char c = i < len ? text[i] : '\n';
    if (c == '\n' || c == ',' || c == ';') {
      if ((c != '\n' && !have) || (c == '\n' && hard && !have)) {
        rc = cli_usage_error("schedule", "%s:%ld:%ld: empty field", name, row, col);
        break;
      }
      hard = c != '\n';
      have = 0;
      if (c != '\n')
        col++;
      else if (i < len) { /* not the end of the text */
        row++;
        col = 1;
      }
      i++;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      i++;
      col++;
    } else {
      have = 1;
      size_t b = i;
      char *end;
      double x;
      char save;
      while (i < len && !strchr(",; \t\r\n", text[i]))
        i++;
      save = text[i];
      text[i] = 0;
      errno = 0;
      x = strtod(text + b, &end);
      if (end == text + b || *end || errno || !isfinite(x) || x < 0 ||
          strspn(text + b, "0123456789.eE+-") != (size_t)(i - b))
        rc = cli_usage_error("schedule", "%s:%ld:%ld: ready time '%s': not a finite number >= 0",
                             name, row, col, text + b);
      else if (k >= m)
        rc = cli_usage_error("schedule", "%s:%ld:%ld: more than %d ready times (one per machine)",
                             name, row, col, m);
      else
        w[k++] = x;
      text[i] = save;
      col += (long)(i - b);
    }
  }
  if (rc == 0 && k != m)
    rc = cli_usage_error("schedule", "%s:%ld:%ld: %d ready times, expected one per machine (%d)",
                         name, row, col, k, m);
  free(text);
  return rc;
}

typedef struct answer {
  const int *assign;
  double makespan, flowtime, objective;
  int64_t evals, gens;
  const char *stop_name, *stop_msg;
  const char *from;      /* "heuristic", "heuristic+ls", "de" or "de+ls" */
  const char *heuristic; /* which one, when from a heuristic */
  const char *backend;
} answer;

/* Writes the answer: the assignment into af (the --out file opened by cli_out_open before the
 * search, tmp its temporary name; closed here) or stdout, and the summary. */
static int write_answer(const sched_args *a, const devo_etc *e, const answer *ans, FILE *af,
                        const char *tmp)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  FILE *sf;
  int t;
  if (af) {
    for (t = 0; t < n; ++t)
      fprintf(af, "%d,%d\n", t, ans->assign[t]);
    if (cli_out_close("schedule", af, tmp, a->out) != CLI_OK)
      return CLI_RUNTIME;
  }
  if (a->json) {
    printf("{\"tasks\":%d,\"machines\":%d,\"makespan\":%.17g,\"flowtime\":%.17g,"
           "\"objective\":%.17g,\"lambda\":%.17g,\"order\":\"%s\",\"evaluations\":%lld,"
           "\"generations\":%lld,\"stop\":\"%s\",\"stop_message\":\"%s\",\"best_from\":\"%s\","
           "\"heuristic\":%s%s%s,\"backend\":\"%s\",\"elapsed\":%.6f",
           n, m, ans->makespan, ans->flowtime, ans->objective, a->lambda,
           a->order ? "spt" : "fcfs", (long long)ans->evals, (long long)ans->gens,
           ans->stop_name, ans->stop_msg, ans->from, ans->heuristic ? "\"" : "",
           ans->heuristic ? ans->heuristic : "null", ans->heuristic ? "\"" : "", ans->backend,
           cli_process_elapsed());
    if (!a->out) {
      printf(",\"assignment\":[");
      for (t = 0; t < n; ++t)
        printf("%s%d", t ? "," : "", ans->assign[t]);
      printf("]");
    }
    printf("}\n");
  } else {
    if (!a->out)
      for (t = 0; t < n; ++t)
        printf("%d,%d\n", t, ans->assign[t]);
    sf = a->out ? stdout : stderr;
    fflush(stdout);
    fprintf(sf, "tasks        %d\nmachines     %d\n", n, m);
    fprintf(sf, "makespan     %.17g\nflowtime     %.17g\n", ans->makespan, ans->flowtime);
    fprintf(sf, "objective    %.17g (lambda %g, order %s)\n", ans->objective, a->lambda,
            a->order ? "spt" : "fcfs");
    fprintf(sf, "evaluations  %lld\ngenerations  %lld\n", (long long)ans->evals,
            (long long)ans->gens);
    fprintf(sf, "stop         %s (%s)\n", ans->stop_msg, ans->stop_name);
    fprintf(sf, "best from    %s%s%s%s\n", ans->from, ans->heuristic ? " (" : "",
                ans->heuristic ? ans->heuristic : "", ans->heuristic ? ")" : "");
    fprintf(sf, "backend      %s\n", ans->backend);
    fprintf(sf, "elapsed      %.6f s since process start\n", cli_process_elapsed());
  }
  return cli_stdout_done("schedule");
}

static const char *source_name(int source)
{
  switch (source) {
  case DEVO_SCHED_FROM_HEURISTIC_LS:
    return "heuristic+ls";
  case DEVO_SCHED_FROM_DE:
    return "de";
  case DEVO_SCHED_FROM_DE_LS:
    return "de+ls";
  case DEVO_SCHED_FROM_ILS:
    return "ils";
  case DEVO_SCHED_FROM_IG:
    return "ig";
  default:
    return "heuristic";
  }
}

/* Reads, searches and writes; returns the exit code. */
static int schedule(const sched_args *ap)
{
  sched_args a = *ap;
  devo_etc *e = NULL;
  devo_schedule_opts so;
  devo_schedule_result res;
  answer ans;
  int *assign = NULL, rc, st, n, m;
  char err[512], tmp[4096 + 32];
  FILE *af = NULL;
  FILE *in;
  in = strcmp(a.file, "-") == 0 ? stdin : fopen(a.file, "rb");
  if (!in)
    return cli_usage_error("schedule", "%s: %s", a.file, strerror(errno));
  st = devo_etc_read(&e, in, strcmp(a.file, "-") == 0 ? "<stdin>" : a.file, a.format, a.nmach,
                     NULL, err, sizeof err);
  if (in != stdin)
    fclose(in);
  if (st != DEVO_OK) {
    fprintf(stderr, "devo schedule: %s\n", err);
    return cli_exit_for_status(st);
  }
  n = devo_etc_ntasks(e);
  m = devo_etc_nmach(e);
  if (a.ready) {
    double *w = (double *)malloc((size_t)m * sizeof(double));
    rc = w ? read_ready(a.ready, m, w) : cli_runtime_error("schedule", "out of memory");
    if (rc == 0 && devo_etc_set_ready(e, w, err, sizeof err) != DEVO_OK)
      rc = cli_usage_error("schedule", "%s", err);
    free(w);
    if (rc) {
      devo_etc_destroy(e);
      return rc;
    }
  }
  assign = (int *)malloc((size_t)n * sizeof(int));
  if (!assign) {
    rc = cli_runtime_error("schedule", "out of memory");
    goto done;
  }
  /* the output file before the search: a path that cannot be written fails now, not after the
   * whole limit was spent */
  if (a.out) {
    if (strlen(a.out) > 4096) {
      rc = cli_usage_error("schedule", "--out: a path of more than 4096 bytes");
      goto done;
    }
    af = cli_out_open("schedule", a.out, tmp, sizeof tmp);
    if (!af) {
      rc = CLI_RUNTIME;
      goto done;
    }
  }
  if (a.backend == DEVO_BACKEND_GPU)
    while (atomic_load(&gpu_state) == GPU_PENDING &&
           cli_process_elapsed() < GPU_WAIT_SHARE * a.time_limit) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
  devo_schedule_opts_init(&so);
  /* what is left of the limit after reading, minus the time to write the answer; at least a
   * token amount, so that the heuristics still answer when reading took it all */
  so.time_limit =
      fmax(a.time_limit - cli_process_elapsed() - OUTPUT_MARGIN_S - OUTPUT_PER_TASK_S * n, 1e-6);
  so.lambda = a.lambda;
  so.order = a.order;
  so.heuristic = a.heuristic ? devo_heuristic_from_name(a.heuristic) : -1;
  so.seeds = a.no_seed             ? DEVO_ETC_SEED_NONE
             : a.local_search == 0 ? DEVO_ETC_SEED_LOCAL
                                   : DEVO_ETC_SEED_PLAIN;
  so.polish = a.local_search == 0;
  so.ils_share = a.ils_share;
  so.np = a.np;
  so.f = a.f;
  so.cr = a.cr;
  so.seed = a.seed;
  so.threads = a.threads;
  so.backend = backend_now(a.backend);
  so.steps = a.steps;
  so.chains = a.chains;
  so.search = a.search;
  if (so.backend == DEVO_BACKEND_GPU)
    so.time_limit = fmax(so.time_limit - GPU_EXIT_S, 1e-6);
  so.progress = stop_on_sigint;
  sigint_seen = 0;
  signal(SIGINT, on_sigint);
  st = devo_schedule_run(e, &so, assign, &res);
  signal(SIGINT, SIG_DFL);
  if (st != DEVO_OK) {
    fprintf(stderr, "devo schedule: %s\n", res.message);
    rc = cli_exit_for_status(st);
    goto done;
  }
  memset(&ans, 0, sizeof ans);
  ans.assign = assign;
  ans.makespan = res.makespan;
  ans.flowtime = res.flowtime;
  ans.objective = res.objective;
  ans.evals = res.evaluations;
  ans.gens = res.generations;
  if (a.heuristic) {
    ans.stop_name = "heuristic";
    ans.stop_msg = "--heuristic: no search";
  } else if (sigint_seen) { /* Ctrl-C: the library saw a callback that asked to stop */
    ans.stop_name = devo_status_name(DEVO_INTERRUPTED);
    ans.stop_msg = "interrupted (Ctrl-C): the best schedule so far";
  } else if (res.candidates > 0) { /* the iterated greedy ran */
    ans.stop_name = devo_status_name(res.status);
    ans.stop_msg = res.status == DEVO_OK ? "--steps done" : devo_status_message(res.status);
  } else if (!res.de_ran) {
    ans.stop_name = "heuristics_only";
    ans.stop_msg = "too little time left for DE: the best heuristic";
  } else {
    ans.stop_name = devo_status_name(res.status);
    ans.stop_msg = devo_status_message(res.status);
  }
  ans.from = source_name(res.source);
  ans.heuristic = res.heuristic >= 0 ? devo_heuristic_name(res.heuristic) : NULL;
  ans.backend = res.backend == DEVO_BACKEND_GPU ? "gpu" : "cpu";
  rc = write_answer(&a, e, &ans, af, tmp);
  af = NULL; /* closed */
done:
  if (af)
    out_file_discard(af, tmp);
  free(assign);
  devo_etc_destroy(e);
  return rc;
}

int cmd_schedule(int argc, char **argv)
{
  sched_args a;
  pthread_t warm;
  int rc, warming = 0;
  rc = parse(argc, argv, &a);
  if (rc)
    return rc;
  atomic_store(&gpu_state, GPU_PENDING);
  if (a.backend != DEVO_BACKEND_CPU && a.time_limit >= GPU_WARMUP_MIN_S &&
      pthread_create(&warm, NULL, gpu_warm_up, NULL) == 0) {
    pthread_detach(warm);
    warming = 1;
  } else {
    atomic_store(&gpu_state, GPU_NONE);
    snprintf(gpu_msg, sizeof gpu_msg, "%s",
             a.time_limit < GPU_WARMUP_MIN_S
                 ? "a time limit below 2 s is shorter than the GPU's start-up (about 1 s)"
                 : "cannot start the GPU start-up thread");
  }
  rc = schedule(&a);
  if (warming) {
    /* The answer is out. Leave without the CUDA runtime's clean-up at exit (it took 50 to 100 ms
     * on an H100 after the deadline), and without waiting for a driver still starting. */
    fflush(NULL);
    _exit(rc);
  }
  return rc;
}
