/* SPDX-License-Identifier: MIT */
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
#include "cli_progress.h"
#include "json_out.h"
#include "sched_json.h"
#include "tool_util.h"

/* GPU start-up (driver and context creation, the first CUDA call of a process) took about 1.1 s
 * on the lent H100 (BENCHMARKS.md), and a process cannot end while a thread is inside that
 * call. So below DEVO_SCHED_GPU_MIN_S the search stays on the CPU; above it the GPU starts on its
 * own thread at the start of the command, beside reading the input; with --backend gpu the search
 * waits for it until the budget's gpu_wait_by (devo_schedule_budget), with auto it takes the GPU
 * only if ready. */
enum { GPU_PENDING = 0, GPU_READY = 1, GPU_NONE = 2, GPU_SKIPPED = 3 };
static atomic_int gpu_state;
static char gpu_msg[256];
static int warm_gpus; /* --gpus: the devices after the first to start too (0: none) */

static void *gpu_warm_up(void *arg)
{
  int n, d, count;
  (void)arg;
  atomic_store(&gpu_state, devo_gpu_available(gpu_msg, sizeof gpu_msg) ? GPU_READY : GPU_NONE);
  if (atomic_load(&gpu_state) != GPU_READY)
    return NULL;
  /* --gpus: the other devices' contexts after the first is ready: the search begins on device
   * 0 meanwhile, and a device still starting holds up only its own share */
  count = devo_gpu_count();
  n = warm_gpus == DEVO_GPUS_ALL || warm_gpus > count ? count : warm_gpus;
  for (d = 1; d < n; ++d)
    if (devo_gpu_select(d) == DEVO_OK)
      devo_gpu_warmup();
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
  /* one rule for solve and schedule: without a usable GPU the search runs on the CPU, with one
   * line on stderr (the driver's own words are not for this line) */
  if (wanted == DEVO_BACKEND_GPU)
    fprintf(stderr, "devo schedule: %s; searching on the CPU\n",
            g == GPU_PENDING ? "the GPU is still starting"
            : g == GPU_NONE  ? "no CUDA device"
                             : gpu_msg);
  return DEVO_BACKEND_CPU;
}

static const char *const schedule_help =
    "usage: devo schedule FILE|- [options]\n"
    "\n"
    "Maps independent tasks to machines from an ETC matrix (expected time of each task on each\n"
    "machine) and prints one line 'task,machine' per task (0-based indices, or the names of\n"
    "the input), then a summary on stderr (on stdout with --out FILE). DE (Kromer et al. 2011 "
    "encoding) searches from the classic\n"
    "heuristic schedules, improved by local search (moves and swaps of tasks off the\n"
    "machine that ends last), until the time limit, counted from the start of the process;\n"
    "local search then polishes DE's best, and iterated local search continues from the\n"
    "best schedule until the deadline. With --objective makespan the search after the\n"
    "heuristics is an annealing at LP machine prices instead (--search).\n"
    "\n"
    "input:\n"
    "  FILE or -            CSV (rows = tasks, columns = machines; ',' ';' or tab; optional\n"
    "                       header row) or the Braun format (one value per line, task-major,\n"
    "                       optional 'n m 0' first line); - reads standard input\n"
    "  --input-format F     auto (default), csv or braun\n"
    "  --task-names         the first CSV column holds task names (detected without this\n"
    "                       when every row starts with text); a header row names machines\n"
    "  --machines M         machines of a Braun file without the 'n m 0' line\n"
    "  --ready FILE|a,b,..  machine ready times (one per machine, >= 0; default 0)\n"
    "  --max-input-bytes N  refuse a larger input (default 2 GiB: 32 bytes a value at the\n"
    "                       largest size, 2^26 values)\n";

/* The help in three strings: one would pass the 4095 characters C99 compilers must support. */
static const char *const schedule_help_search =
    "objective (minimised: lambda * makespan + (1 - lambda) * flowtime / machines):\n"
    "  --objective O        weighted (default, lambda 0.75) or makespan (lambda 1)\n"
    "  --lambda L           weight of the makespan, in [0, 1] (implies weighted)\n"
    "  --order O            fcfs (default: each machine runs its tasks in index order) or spt\n"
    "                       (shortest first); changes the flowtime only\n"
    "search:\n"
    "  --time-limit S       seconds from process start (default 1), reading included; the\n"
    "                       answer comes in time when the CPU is not oversubscribed and the\n"
    "                       input can be read in time (else exit 1: docs/io.md)\n"
    "  --heuristic NAME     just run one heuristic: olb, met, mct, min-min, max-min, sufferage\n"
    "                       (to its end, whatever the limit; the last three are O(n^2 m))\n"
    "  --no-seed-heuristics start DE from random schedules only\n"
    "  --local-search on|off on (default): improve the heuristic seeds and DE's best by local\n"
    "                       search; off: plain DE from the plain heuristics\n"
    "  --search S           auto (default: ig for --objective makespan, else pipeline), ig\n"
    "                       (heuristics, then annealing of moves and swaps at the LP machine\n"
    "                       prices, with iterated-greedy steps and ejection chains; makespan\n"
    "                       only), pipeline (the DE pipeline described above) or gpu-ls\n"
    "                       (heuristics, then hundreds of descents of moves and swaps at once\n"
    "                       on the GPU, recombined by DE; makespan only; with --backend gpu and\n"
    "                       a GPU ready in time, else ig on the CPU)\n"
    "  --steps N            ig: stop after N steps per chain (with the seed and --chains the\n"
    "                       answer is then the same on every run and thread count, unless\n"
    "                       the time limit comes first; default: until the time limit)\n"
    "  --chains N           ig: chains, merged every 64 steps (default: the larger of\n"
    "                       --threads and 4); gpu-ls: chains per GPU (default: as many as\n"
    "                       it keeps resident)\n"
    "  --gpus N|all         gpu-ls: search on GPUs 0 .. N-1 (or every GPU) at once, one\n"
    "                       search each, their best schedules exchanged every 4 launches\n"
    "                       (default: one GPU; docs/scheduling.md, \"Several GPUs\")\n"
    "  --gap G              end the search once the answer is within G of the lower bound\n"
    "                       ((objective - bound) / bound <= G), a fraction in [0, 1]\n"
    "                       (default 0: until the time limit; a proven optimum always ends it)\n"
    "  --ils-share S        share of the search time for iterated local search (random\n"
    "                       reassignments + local search) on the best answer after DE, in\n"
    "                       [0, 1) (default 0.8; 0 = DE gets all of it)\n"
    "  --np N               population size, >= 4 (default 64)\n"
    "  --f F                differential weight, in (0, 2] (default 0.5)\n"
    "  --cr CR              crossover rate, in [0, 1] (default 0.9)\n"
    "  --seed S             random seed (default 1)\n"
    "  --threads T          CPU worker threads (default 1)\n"
    "  --backend B          cpu (default), gpu or auto (the GPU when usable and the limit leaves\n"
    "                       time for its start-up, else the CPU); gpu without a usable GPU\n"
    "                       searches on the CPU, saying 'no CUDA device' on stderr\n";
static const char *const schedule_help_output =
    "output (docs/schedule-output.md):\n"
    "  --format F           text (default: 'task,machine' lines), csv (a header, then\n"
    "                       task,machine,start,finish per task) or json (= --json)\n"
    "  --out FILE           write the schedule to FILE (- = standard output); the summary\n"
    "                       goes to stdout when FILE is a file\n"
    "  --json               the summary as one JSON object on stdout, with the schedule (task,\n"
    "                       machine, start, finish) unless --out FILE has it\n"
    "  --quiet              no progress line (shown on stderr when it is a terminal and the\n"
    "                       limit is above 2 s: elapsed / limit, best objective, DE's\n"
    "                       evaluations, local-search steps)\n"
    "signals: SIGINT or SIGTERM ends the search and writes the best schedule so far (stop\n"
    "DEVO_INTERRUPTED, exit 0); a second one exits at once, writing nothing more.\n"
    "An answer later than the limit + 5 ms is said on stderr (and deadline_met false in the\n"
    "JSON); the exit code stays 0 since the answer is valid.\n";

enum { OUT_TEXT = 0, OUT_CSV = 1, OUT_JSON = 2 };

typedef struct sched_args {
  const char *file, *ready, *out, *heuristic;
  int format, nmach, order, no_seed, np, threads, backend, json, lambda_set, objective;
  int task_names, out_format, quiet;
  int local_search; /* 0 = on, 1 = off (index into on_off) */
  double lambda, time_limit, f, cr, ils_share;
  double gap; /* --gap: the search ends within this relative gap of the lower bound */
  uint64_t seed;
  size_t max_bytes;   /* --max-input-bytes; 0: the reader's default */
  int64_t steps;      /* issue 19: IG steps per chain, 0 = until the limit */
  int chains, search; /* IG chains (0 = max(threads, 4)), DEVO_SEARCH_* */
  int gpus;           /* devo_schedule_opts.gpus: 0, a count or DEVO_GPUS_ALL */
  cli_variant var;    /* DE's variant */
} sched_args;

/* SIGINT or SIGTERM (what Slurm, systemd and Kubernetes send) stops the search, which still
 * writes the best schedule so far: the handler sets this flag, which devo_schedule_run watches in
 * every step (devo_schedule_opts.interrupt). A second signal ends the process at once, by the
 * signal's default action, after removing the temporary --out file (its path kept here while it
 * exists, so that nothing half-written is left beside the target). */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t out_tmp_live;
static char out_tmp_path[4096 + 32];

static void on_signal(int sig)
{
  if (stop_signal) {
    if (out_tmp_live)
      unlink(out_tmp_path);
    sigset_t self;
    signal(sig, SIG_DFL);
    sigemptyset(&self); /* the handler runs with sig blocked: let the raise act now */
    sigaddset(&self, sig);
    sigprocmask(SIG_UNBLOCK, &self, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the default action of SIGINT and SIGTERM ends the process */
  }
  stop_signal = sig;
}

static void catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART; /* reading stdin goes on; the search sees the flag */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static int parse(int argc, char **argv, sched_args *a)
{
  static const char *const names[] = {
      "--format=", "--machines=", "--ready=", "--time-limit=", "--objective=", "--lambda=",
      "--order=", "--heuristic=", "--no-seed-heuristics",
      "--np=", "--f=", "--cr=", "--seed=", "--threads=", "--backend=", "--out=", "--json", "--help",
      "--local-search=", "--ils-share=", "--input-format=", "--task-names",
      /* cli_variant_names: */
      "--strategy=", "--algorithm=", "--jde",
      "--jde-tau1=", "--jde-tau2=", "--jde-fl=", "--jde-fu=", "--jde-crl=", "--jde-cru=", "--gobl=",
      "--steps=", "--chains=", "--search=", "--max-input-bytes=",
      /* cli_variant_names (issue 24): */
      "--pbest=", "--archive-rate=", "--memory-size=", "--jade-c=", "--np-min=", "--quiet",
      "--gap=", "--gpus=", NULL};
  static const char *const formats[] = {"auto", "csv", "braun", NULL};
  static const char *const out_formats[] = {"text", "csv", "json", NULL};
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
  cli_variant_init(&a->var);
  while ((k = cli_next(cmd, argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      if (a->file)
        return cli_usage_error(cmd, "unexpected argument '%s' (one input file)", v);
      a->file = v;
      break;
    case 0:
      if (strcmp(v, "auto") == 0 || strcmp(v, "braun") == 0)
        r = cli_usage_error(cmd,
                            "--format %s: --format is the output format now (text, csv, "
                            "json); the input format is --input-format",
                            v);
      else
        r = cli_pick(cmd, "--format", v, out_formats, &a->out_format);
      break;
    case 20:
      r = cli_pick(cmd, "--input-format", v, formats, &a->format);
      break;
    case 21:
      a->task_names = 1;
      break;
    case 1:
      r = cli_int(cmd, "--machines", v, &a->nmach);
      if (!r && (a->nmach < 2 || a->nmach > DEVO_ETC_MAX_MACHINES))
        r = cli_usage_error(cmd, "--machines must be 2 .. %d, got %s", DEVO_ETC_MAX_MACHINES, v);
      break;
    case 2:
      a->ready = v;
      break;
    case 3:
      r = cli_time_limit(cmd, v, &a->time_limit);
      break;
    case 4:
      r = cli_pick(cmd, "--objective", v, objectives, &a->objective);
      break;
    case 5:
      r = cli_real(cmd, "--lambda", v, 0.0, 1.0, &a->lambda);
      a->lambda_set = 1;
      break;
    case 6:
      r = cli_pick(cmd, "--order", v, orders, &a->order);
      break;
    case 7:
      a->heuristic = v;
      if (devo_heuristic_from_name(v) < 0)
        r = cli_usage_error(cmd,
                            "--heuristic: unknown '%s' (olb, met, mct, min-min, max-min, "
                            "sufferage)",
                            v);
      break;
    case 8:
      a->no_seed = 1;
      break;
    case 9:
      r = cli_int(cmd, "--np", v, &a->np);
      break;
    case 10:
      r = cli_double(cmd, "--f", v, &a->f);
      break;
    case 11:
      r = cli_double(cmd, "--cr", v, &a->cr);
      break;
    case 12:
      r = cli_u64(cmd, "--seed", v, &a->seed);
      break;
    case 13:
      r = cli_int(cmd, "--threads", v, &a->threads);
      break;
    case 14:
      r = cli_pick(cmd, "--backend", v, backends, &a->backend);
      break;
    case 15:
      a->out = v;
      break;
    case 16:
      a->json = 1;
      break;
    case 17:
      fputs(schedule_help, stdout);
      fputs(schedule_help_search, stdout);
      fputs(schedule_help_output, stdout);
      fputs("DE variants (docs/variants.md):\n", stdout);
      cli_variant_print_help(stdout);
      exit(CLI_OK);
    case 18:
      r = cli_pick(cmd, "--local-search", v, on_off, &a->local_search);
      break;
    case 19:
      r = cli_double(cmd, "--ils-share", v, &a->ils_share);
      if (!r && !(a->ils_share >= 0.0 && a->ils_share < 1.0))
        r = cli_usage_error(cmd, "--ils-share must be in [0, 1), got %s", v);
      break;
    case 32:
      r = cli_int64(cmd, "--steps", v, &a->steps);
      if (!r && a->steps < 1)
        r = cli_usage_error(cmd, "--steps must be >= 1, got %s", v);
      break;
    case 33:
      r = cli_int(cmd, "--chains", v, &a->chains);
      if (!r && (a->chains < 1 || a->chains > 4096))
        r = cli_usage_error(cmd, "--chains must be 1 .. 4096, got %s", v);
      break;
    case 34:
      r = cli_pick(cmd, "--search", v, searches, &a->search);
      break;
    case 35:
      r = cli_max_bytes(cmd, v, &a->max_bytes);
      break;
    case 41:
      a->quiet = 1;
      break;
    case 42:
      /* a fraction: a percentage given as a number (--gap 5 for 5%) is refused, not taken as
       * 500% */
      r = cli_double(cmd, "--gap", v, &a->gap);
      if (!r && !(a->gap >= 0.0 && a->gap <= 1.0))
        r = cli_usage_error(cmd, "--gap must be a fraction in [0, 1] (0.01 = 1%%), got %s", v);
      break;
    case 43:
      if (strcmp(v, "all") == 0)
        a->gpus = DEVO_GPUS_ALL;
      else if (!(r = cli_int(cmd, "--gpus", v, &a->gpus)) &&
               (a->gpus < 1 || a->gpus > DEVO_GPUS_MAX))
        r = cli_usage_error(cmd, "--gpus must be 1 .. %d or all, got %s", DEVO_GPUS_MAX, v);
      break;
    default:
      if (cli_variant_index(names, k) >= 0)
        r = cli_variant_option(cmd, cli_variant_index(names, k), v, &a->var);
      break;
    }
    if (r)
      return CLI_USAGE;
  }
  if (cli_variant_finish(cmd, &a->var))
    return CLI_USAGE;
  if (!a->file)
    return cli_usage_error(cmd, "an input file (or - for standard input) is required");
  if (a->out_format == OUT_JSON)
    a->json = 1;
  if (a->json && a->out_format == OUT_CSV && (!a->out || strcmp(a->out, "-") == 0))
    return cli_usage_error(cmd, "--format csv with --json: both would go to standard output; "
                                "give the CSV a file with --out FILE");
  if (a->task_names && a->format == DEVO_ETC_BRAUN)
    return cli_usage_error(cmd, "--task-names: the Braun format has no names");
  if (a->out && strcmp(a->out, "-") == 0)
    a->out = NULL; /* standard output, as without --out */
  if (a->objective == 1) {
    if (a->lambda_set && a->lambda != 1.0)
      return cli_usage_error(cmd, "--lambda contradicts --objective makespan");
    a->lambda = 1.0;
  }
  return 0;
}

/* The numbers of field f of row r (blanks separate them too: "0 10 0" is three) into w[*k..];
 * 0, or the exit code after the one-line refusal naming the row and column. */
/* Ready times from a list "a,b,c" or from a file of numbers separated by commas, semicolons or
 * white space; errors name the file, row and column. */
static int read_ready(const char *spec, int m, double *w, double deadline)
{
  const int fd = cli_open_input(spec);
  cli_numbers ns;
  if (fd < 0 && !strchr(spec, ',') && strspn(spec, "0123456789.eE+-") != strlen(spec))
    return cli_usage_error("schedule", "--ready %s: %s (not a file, nor a list a,b,c)", spec,
                           strerror(errno));
  ns.name = fd >= 0 ? spec : "--ready";
  ns.opt = "--ready";
  ns.what = "ready time";
  ns.per = "machine";
  ns.n = m;
  ns.min = 0.0;
  ns.say_index = 0;
  return cli_read_numbers("schedule", &ns, fd, spec, deadline, w);
}

/* What the search gave, for the outputs. */
typedef struct answer {
  const int *assign;
  const double *start, *finish; /* devo_etc_timeline */
  const devo_schedule_result *res;
  double answer_at; /* seconds since process start when the answer was ready */
  int deadline_met; /* answer_at <= limit + the budget's slack */
} answer;

/* A task or machine as the outputs name it: its name when the input gave one, else its index;
 * CSV-quoted (RFC 4180) when it holds a separator, a quote or blanks at its ends. */
static void put_id(FILE *f, const char *name, int index)
{
  const char *c;
  size_t len;
  if (!name) {
    fprintf(f, "%d", index);
    return;
  }
  len = strlen(name);
  if (!strpbrk(name, ",;\"\t") && name[0] != ' ' && name[len - 1] != ' ') {
    fputs(name, f);
    return;
  }
  fputc('"', f);
  for (c = name; *c; ++c) {
    if (*c == '"')
      fputc('"', f);
    fputc(*c, f);
  }
  fputc('"', f);
}

/* The schedule as text ('task,machine' lines) or CSV (header, task,machine,start,finish). */
static void write_schedule(FILE *f, int format, const devo_etc *e, const answer *ans)
{
  const int n = devo_etc_ntasks(e);
  char b1[40], b2[40];
  int t;
  if (format == OUT_CSV)
    fputs("task,machine,start,finish\n", f);
  for (t = 0; t < n; ++t) {
    const int j = ans->assign[t];
    put_id(f, devo_etc_task_name(e, t), t);
    fputc(',', f);
    put_id(f, devo_etc_machine_name(e, j), j);
    if (format == OUT_CSV)
      fprintf(f, ",%s,%s", json_fmt_double(b1, sizeof b1, ans->start[t]),
              json_fmt_double(b2, sizeof b2, ans->finish[t]));
    fputc('\n', f);
  }
}

/* The JSON object (tools/sched_json.c): the summary, the machines, and the schedule when
 * with_schedule. */
static int write_json(FILE *f, const sched_args *a, const devo_etc *e, const answer *ans,
                      int with_schedule)
{
  sched_answer sa;
  memset(&sa, 0, sizeof sa);
  sa.assign = ans->assign;
  sa.start = ans->start;
  sa.finish = ans->finish;
  sa.res = ans->res;
  sa.lambda = a->lambda;
  sa.time_limit = a->time_limit;
  sa.order = a->order;
  sa.seed = a->seed;
  sa.elapsed = ans->answer_at;
  sa.deadline_met = ans->deadline_met;
  sa.var = &a->var;
  if (sched_json_write(f, e, &sa, with_schedule) != 0)
    return cli_runtime_error("schedule", "out of memory for the JSON output");
  return CLI_OK;
}

static void text_summary(FILE *sf, const sched_args *a, const devo_etc *e, const answer *ans)
{
  const devo_schedule_result *r = ans->res;
  char b[40];
  fprintf(sf, "tasks        %d\nmachines     %d\n", devo_etc_ntasks(e), devo_etc_nmach(e));
  fprintf(sf, "makespan     %s\n", json_fmt_double(b, sizeof b, r->makespan));
  fprintf(sf, "flowtime     %s\n", json_fmt_double(b, sizeof b, r->flowtime));
  fprintf(sf, "objective    %s (lambda %g, order %s)\n", json_fmt_double(b, sizeof b, r->objective),
          a->lambda, a->order ? "spt" : "fcfs");
  if (r->lower_bound > 0.0) {
    fprintf(sf, "lower bound  %s (of the objective)\n",
            json_fmt_double(b, sizeof b, r->lower_bound));
    fprintf(sf, "gap          %s (at most %.3g%% above the optimum)\n",
            json_fmt_double(b, sizeof b, r->gap), 100.0 * r->gap);
  } else {
    fputs("lower bound  none (no time was left for it)\ngap          unknown\n", sf);
  }
  fprintf(sf, "evaluations  %lld\ngenerations  %lld\n", (long long)r->evaluations,
          (long long)r->generations);
  fprintf(
      sf, "stop         %s (%s)%s\n", devo_status_name(r->status), devo_status_message(r->status),
      r->status == DEVO_TIME_LIMIT && !r->de_ran && r->candidates == 0 ? ": too little time for DE"
                                                                       : "");
  fprintf(sf, "best from    %s%s%s%s\n", devo_schedule_source_name(r->source),
          r->heuristic >= 0 ? " (" : "", r->heuristic >= 0 ? devo_heuristic_name(r->heuristic) : "",
          r->heuristic >= 0 ? ")" : "");
  fprintf(sf, "search       %s\n", r->search >= 0 ? devo_schedule_search_name(r->search) : "none");
  fprintf(sf, "backend      %s\n", r->backend == DEVO_BACKEND_GPU ? "gpu" : "cpu");
  fprintf(sf, "elapsed      %.6f s since process start%s\n", ans->answer_at,
          ans->deadline_met ? "" : " (deadline missed)");
}

/* Writes the answer: the schedule into af (the --out file opened by cli_out_open before the
 * search, tmp its temporary name; closed here) or stdout, and the summary. */
static int write_answer(const sched_args *a, const devo_etc *e, const answer *ans, FILE *af,
                        const char *tmp)
{
  int rc = CLI_OK;
  if (af) {
    if (a->json && a->out_format == OUT_JSON)
      rc = write_json(af, a, e, ans, 1);
    else
      write_schedule(af, a->out_format, e, ans);
    if (rc != CLI_OK)
      out_file_discard(af, tmp); /* never a partial file */
    else if (cli_out_close("schedule", af, tmp, a->out) != CLI_OK)
      rc = CLI_RUNTIME;
    out_tmp_live = 0; /* renamed or removed */
    if (rc != CLI_OK)
      return rc;
    if (a->json && a->out_format == OUT_JSON)
      return cli_stdout_done("schedule");
  }
  if (a->json) {
    rc = write_json(stdout, a, e, ans, !a->out);
  } else {
    if (!a->out)
      write_schedule(stdout, a->out_format, e, ans);
    fflush(stdout);
    text_summary(a->out ? stdout : stderr, a, e, ans);
  }
  if (rc != CLI_OK)
    return rc;
  return cli_stdout_done("schedule");
}

/* The deadline budget (devo_schedule_budget) at this moment: the limit counts from the process's
 * start; the answer is written in the chosen format, then the process ends and gives the matrix
 * (e, NULL before it is read) back. */
static int budget_now(const sched_args *a, const devo_etc *e, int backend, devo_budget *b)
{
  const int schedule_in_json = a->json && (!a->out || a->out_format == OUT_JSON);
  devo_budget_opts bo;
  char err[256];
  memset(&bo, 0, sizeof bo);
  bo.start = cli_deadline_from_start(0.0); /* the process's start */
  bo.time_limit = a->time_limit;
  bo.ntasks = e ? devo_etc_ntasks(e) : 0;
  bo.nmach = e ? devo_etc_nmach(e) : 0;
  bo.answer =
      a->out_format == OUT_CSV || schedule_in_json ? DEVO_ANSWER_TIMES : DEVO_ANSWER_ASSIGNMENT;
  bo.value_bytes = (int)sizeof(double);
  bo.exits = 1;
  bo.backend = backend;
  if (devo_schedule_budget(&bo, b, err, sizeof err) != DEVO_OK)
    return cli_runtime_error("schedule", "deadline budget: %s", err);
  return CLI_OK;
}

/* Reads, searches and writes; returns the exit code. */
static int schedule(const sched_args *ap)
{
  sched_args a = *ap;
  devo_etc *e = NULL;
  devo_schedule_opts so;
  devo_schedule_result res;
  cli_progress prog;
  answer ans;
  int *assign = NULL, rc, st, n, m;
  double *start = NULL, *finish = NULL, end_at;
  char err[512], *tmp = out_tmp_path;
  FILE *af = NULL;
  const int std_in = strcmp(a.file, "-") == 0;
  devo_read_limits lim;
  devo_budget b;
  int fd;
  /* the reading counts inside the time limit: a pipe that never closes ends at the deadline,
   * less the margin the answer keeps for the message and the process's exit */
  if ((rc = budget_now(&a, NULL, DEVO_BACKEND_CPU, &b)) != CLI_OK)
    return rc;
  lim.max_bytes = a.max_bytes;
  lim.deadline = b.input_by;
  fd = std_in ? STDIN_FILENO : cli_open_input(a.file);
  if (fd < 0)
    return cli_usage_error("schedule", "%s: %s", a.file, strerror(errno));
  st = devo_etc_read_fd(&e, fd, std_in ? "<stdin>" : a.file,
                        a.format | (a.task_names ? DEVO_ETC_TASK_NAMES : 0), a.nmach, &lim, NULL,
                        err, sizeof err);
  if (!std_in)
    close(fd);
  if (st != DEVO_OK) {
    fprintf(stderr, "devo schedule: %s%s\n", err,
            st == DEVO_E_DEADLINE ? " (--time-limit; exit 1)" : "");
    return cli_exit_for_status(st);
  }
  n = devo_etc_ntasks(e);
  m = devo_etc_nmach(e);
  if (a.ready) {
    double *w = (double *)malloc((size_t)m * sizeof(double));
    rc = w ? read_ready(a.ready, m, w, lim.deadline)
           : cli_runtime_error("schedule", "out of memory");
    if (rc == 0 && devo_etc_set_ready(e, w, err, sizeof err) != DEVO_OK)
      rc = cli_usage_error("schedule", "%s", err);
    free(w);
    if (rc) {
      devo_etc_destroy(e);
      return rc;
    }
  }
  assign = (int *)malloc((size_t)n * sizeof(int));
  start = (double *)malloc((size_t)n * sizeof(double));
  finish = (double *)malloc((size_t)n * sizeof(double));
  if (!assign || !start || !finish) {
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
    af = cli_out_open("schedule", a.out, tmp, sizeof out_tmp_path);
    if (!af) {
      rc = CLI_RUNTIME;
      goto done;
    }
    out_tmp_live = tmp[0] != 0; /* the second signal's handler removes it ("": written through) */
  }
  if (a.backend == DEVO_BACKEND_GPU)
    while (atomic_load(&gpu_state) == GPU_PENDING &&
           cli_process_elapsed() < b.gpu_wait_by - cli_deadline_from_start(0.0)) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
  devo_schedule_opts_init(&so);
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
  so.variant = a.var.v;
  so.seed = a.seed;
  so.threads = a.threads;
  so.backend = backend_now(a.backend);
  so.steps = a.steps;
  so.chains = a.chains;
  so.search = a.search;
  so.gap = a.gap;
  so.gpus = a.gpus;
  /* what is left of the limit after reading, less the time to write the answer, to give the
   * matrix's memory back and to end the process (the GPU's context too) */
  if ((rc = budget_now(&a, e, so.backend, &b)) != CLI_OK)
    goto done;
  so.time_limit = b.search;
  so.interrupt = &stop_signal;
  /* the progress line on a terminal only (elsewhere no callback at all), and above 2 s: a
   * shorter run ends before a line would tell anything */
  memset(&prog, 0, sizeof prog);
  if (a.time_limit > 2.0 && cli_progress_wanted(a.quiet)) {
    cli_progress_schedule(&prog, a.time_limit);
    so.progress = cli_progress_update;
    so.progress_ud = &prog;
  }
  st = devo_schedule_run(e, &so, assign, &res);
  cli_progress_done(&prog);
  if (st == DEVO_OK)
    st = devo_etc_timeline(e, assign, a.order, start, finish);
  if (st != DEVO_OK) {
    fprintf(stderr, "devo schedule: %s\n", res.message[0] ? res.message : devo_status_message(st));
    rc = cli_exit_for_status(st);
    goto done;
  }
  memset(&ans, 0, sizeof ans);
  ans.assign = assign;
  ans.start = start;
  ans.finish = finish;
  ans.res = &res;
  ans.answer_at = cli_process_elapsed();
  ans.deadline_met = ans.answer_at <= a.time_limit + b.slack;
  rc = write_answer(&a, e, &ans, af, tmp);
  af = NULL; /* closed */
  /* never silent about a late answer: reading alone can take longer than the limit */
  end_at = cli_process_elapsed();
  if (!ans.deadline_met || end_at > a.time_limit + b.slack)
    fprintf(stderr,
            "devo schedule: deadline missed: the answer was ready at %.3f s and written at %.3f s "
            "since process start, the limit was %.3f s (+ %.0f ms)\n",
            ans.answer_at, end_at, a.time_limit, 1e3 * b.slack);
done:
  if (af) {
    out_file_discard(af, tmp);
    out_tmp_live = 0;
  }
  free(assign);
  free(start);
  free(finish);
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
  stop_signal = 0;
  catch_signals();
  atomic_store(&gpu_state, GPU_PENDING);
  warm_gpus = a.gpus;
  if (a.backend != DEVO_BACKEND_CPU && a.time_limit >= DEVO_SCHED_GPU_MIN_S &&
      pthread_create(&warm, NULL, gpu_warm_up, NULL) == 0) {
    pthread_detach(warm);
    warming = 1;
  } else {
    atomic_store(&gpu_state, GPU_SKIPPED);
    snprintf(gpu_msg, sizeof gpu_msg, "%s",
             a.time_limit < DEVO_SCHED_GPU_MIN_S
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
