/* cmd_schedule.c: `devo schedule`: the time-bounded anytime scheduler. Reads an ETC matrix, and
 * answers with the best assignment of tasks to machines found before the deadline, which counts
 * from process start (issue 5): reading the input, the heuristics, the solve and writing the
 * answer all fit inside --time-limit. The classic heuristics (Braun et al. 2001) run first; they
 * seed the DE population and are the answer on their own when too little time is left for DE. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const schedule_help =
    "usage: devo schedule FILE|- [options]\n"
    "\n"
    "Maps independent tasks to machines from an ETC matrix (expected time of each task on each\n"
    "machine) and prints one line 'task,machine' per task (0-based), then a summary on stderr\n"
    "(on stdout with --out). DE (Kromer et al. 2011 encoding) searches from the classic\n"
    "heuristic schedules until the time limit, counted from the start of the process.\n"
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
    "  --heuristic NAME     just run one heuristic: olb, met, mct, min-min, max-min, sufferage\n"
    "  --no-seed-heuristics start DE from random schedules only\n"
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

/* Time kept back for writing the answer and freeing memory, and the smallest solver budget
 * worth starting DE for (below it the heuristics answer alone). */
#define OUTPUT_MARGIN_S 0.003
#define OUTPUT_PER_TASK_S 2e-7
#define MIN_SOLVE_S 0.002
/* A GPU start-up can take a few hundred milliseconds: auto only tries it with this much left. */
#define AUTO_GPU_MIN_S 0.5

typedef struct sched_args {
  const char *file, *ready, *out, *heuristic;
  int format, nmach, order, no_seed, np, threads, backend, json, lambda_set, objective;
  double lambda, time_limit, f, cr;
  uint64_t seed;
} sched_args;

static devo_solver *volatile active_solver;

static void on_sigint(int sig)
{
  (void)sig;
  if (active_solver)
    devo_interrupt(active_solver);
}

static int pick(const char *opt, const char *val, const char *const *names, int *out)
{
  int k;
  for (k = 0; names[k]; ++k)
    if (strcmp(val, names[k]) == 0) {
      *out = k;
      return 0;
    }
  return cli_usage_error("schedule", "%s: unknown value '%s'", opt, val);
}

static int parse(int argc, char **argv, sched_args *a)
{
  static const char *const names[] = {
      "--format=", "--machines=", "--ready=",     "--time-limit=",        "--objective=",
      "--lambda=", "--order=",    "--heuristic=", "--no-seed-heuristics", "--np=",
      "--f=",      "--cr=",       "--seed=",      "--threads=",           "--backend=",
      "--out=",    "--json",      "--help",       NULL};
  static const char *const formats[] = {"auto", "csv", "braun", NULL};
  static const char *const objectives[] = {"weighted", "makespan", NULL};
  static const char *const orders[] = {"fcfs", "spt", NULL};
  static const char *const backends[] = {"cpu", "gpu", "auto", NULL};
  const char *cmd = "schedule", *v;
  int pos = 1, k, r = 0;
  memset(a, 0, sizeof *a);
  a->lambda = 0.75;
  a->time_limit = 1.0;
  a->np = 64;
  a->f = 0.5;
  a->cr = 0.9;
  a->seed = 1;
  a->threads = 1;
  while ((k = cli_next(cmd, argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      if (a->file)
        return cli_usage_error(cmd, "unexpected argument '%s' (one input file)", v);
      a->file = v;
      break;
    case 0: r = pick("--format", v, formats, &a->format); break;
    case 1:
      r = cli_int(cmd, "--machines", v, &a->nmach);
      if (!r && (a->nmach < 2 || a->nmach > DEVO_ETC_MAX_MACHINES))
        r = cli_usage_error(cmd, "--machines must be 2 .. %d, got %s", DEVO_ETC_MAX_MACHINES,
                            v);
      break;
    case 2: a->ready = v; break;
    case 3:
      r = cli_double(cmd, "--time-limit", v, &a->time_limit);
      if (!r && !(a->time_limit > 0))
        r = cli_usage_error(cmd, "--time-limit must be a positive number of seconds, got %s", v);
      break;
    case 4: r = pick("--objective", v, objectives, &a->objective); break;
    case 5:
      r = cli_double(cmd, "--lambda", v, &a->lambda);
      if (!r && !(a->lambda >= 0 && a->lambda <= 1))
        r = cli_usage_error(cmd, "--lambda must be in [0, 1], got %s", v);
      a->lambda_set = 1;
      break;
    case 6: r = pick("--order", v, orders, &a->order); break;
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
    case 14: r = pick("--backend", v, backends, &a->backend); break;
    case 15: a->out = v; break;
    case 16: a->json = 1; break;
    case 17:
      fputs(schedule_help, stdout);
      exit(CLI_OK);
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
  int k = 0, rc = 0;
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
  while (i < len && rc == 0) {
    char c = text[i];
    if (c == '\n') {
      row++;
      col = 1;
      i++;
    } else if (c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\r') {
      i++;
      col++;
    } else {
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
      if (end == text + b || *end || errno || !isfinite(x) || x < 0)
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
  int *assign;
  double makespan, flowtime, objective;
  int64_t evals, gens;
  const char *stop_name, *stop_msg;
  const char *from;      /* "de" or "heuristic" */
  const char *heuristic; /* which one, when from a heuristic */
  const char *backend;
} answer;

static double objective_of(double lambda, double ms, double ft, int m)
{
  return lambda * ms + (1.0 - lambda) * (ft / (double)m);
}

static int write_answer(const sched_args *a, const devo_etc *e, const answer *ans)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  FILE *af = NULL, *sf;
  int t, rc = CLI_OK;
  if (a->out) {
    af = fopen(a->out, "w");
    if (!af)
      return cli_runtime_error("schedule", "%s: %s", a->out, strerror(errno));
    for (t = 0; t < n; ++t)
      fprintf(af, "%d,%d\n", t, ans->assign[t]);
    if (ferror(af) | fclose(af))
      return cli_runtime_error("schedule", "%s: write error", a->out);
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
  if (fflush(stdout) != 0)
    rc = cli_runtime_error("schedule", "stdout: write error");
  return rc;
}

/* The heuristic schedules: the best by the objective goes to ans (the fallback answer), and all
 * are kept to name the heuristic behind a seeded best. */
static int run_heuristics(const sched_args *a, const devo_etc *e, int *all, answer *ans)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  int h, only = a->heuristic ? devo_heuristic_from_name(a->heuristic) : -1, st;
  ans->objective = (double)INFINITY;
  for (h = 0; h < DEVO_HEUR_COUNT; ++h) {
    double ms, ft, obj;
    int *x = all + (size_t)h * n;
    if (only >= 0 && h != only)
      continue;
    st = devo_etc_heuristic(e, h, x);
    if (st == DEVO_OK)
      st = devo_etc_evaluate(e, x, a->order, &ms, &ft);
    if (st != DEVO_OK)
      return cli_runtime_error("schedule", "heuristic %s: %s", devo_heuristic_name(h),
                               devo_status_message(st));
    obj = objective_of(a->lambda, ms, ft, m);
    if (obj < ans->objective) {
      ans->objective = obj;
      ans->makespan = ms;
      ans->flowtime = ft;
      ans->heuristic = devo_heuristic_name(h);
      memcpy(ans->assign, x, (size_t)n * sizeof(int));
    }
  }
  ans->evals = only >= 0 ? 1 : DEVO_HEUR_COUNT;
  ans->from = "heuristic";
  ans->backend = "cpu";
  return CLI_OK;
}

/* Seconds the solver may use now: the rest of the limit minus the output margin, and minus the
 * solve's own allowed overrun of max(1 ms, 1%) (devo.h). */
static double solver_budget(const sched_args *a, int n)
{
  double b = a->time_limit - cli_process_elapsed() - OUTPUT_MARGIN_S - OUTPUT_PER_TASK_S * n;
  return fmin(b - 0.001, b / 1.01);
}

static int setter(devo_solver *s, int st)
{
  if (st == DEVO_OK)
    return 0;
  cli_usage_error("schedule", "%s", devo_solver_errmsg(s));
  return 1;
}

/* DE within the budget; on success ans holds the better of DE's best and the heuristics'. */
static int run_de(const sched_args *a, const devo_etc *e, const int *heur, double budget,
                  answer *ans)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  devo_stats stats;
  double *x = NULL, ms, ft, obj, best;
  int *assign = NULL, st, rc = CLI_OK, backend = a->backend, h;
  char msg[256];
  if (backend == DEVO_BACKEND_AUTO)
    backend = budget >= AUTO_GPU_MIN_S && devo_gpu_available(msg, sizeof msg)
                  ? DEVO_BACKEND_GPU
                  : DEVO_BACKEND_CPU;
  if (devo_problem_create(&p, NULL) != DEVO_OK)
    return cli_runtime_error("schedule", "out of memory");
  st = devo_problem_set_etc(p, e, a->lambda, a->order, !a->no_seed);
  if (st != DEVO_OK) {
    rc = cli_exit_for_status(st);
    fprintf(stderr, "devo schedule: %s\n", devo_problem_errmsg(p));
    goto done;
  }
  if (devo_solver_create(&s, p, NULL) != DEVO_OK) {
    rc = cli_runtime_error("schedule", "out of memory");
    goto done;
  }
  budget = solver_budget(a, n); /* the seeds took time too: measure again */
  if (setter(s, devo_solver_set_np(s, a->np)) || setter(s, devo_solver_set_f(s, a->f)) ||
      setter(s, devo_solver_set_cr(s, a->cr)) || setter(s, devo_solver_set_seed(s, a->seed)) ||
      setter(s, devo_solver_set_threads(s, a->threads)) ||
      setter(s, devo_solver_set_backend(s, backend))) {
    rc = CLI_USAGE;
    goto done;
  }
  if (budget < MIN_SOLVE_S)
    goto done; /* the heuristics' answer stands */
  if (setter(s, devo_solver_set_time_limit(s, budget))) {
    rc = CLI_USAGE;
    goto done;
  }
  x = (double *)malloc((size_t)n * sizeof(double));
  assign = (int *)malloc((size_t)n * sizeof(int));
  if (!x || !assign) {
    rc = cli_runtime_error("schedule", "out of memory");
    goto done;
  }
  active_solver = s;
  signal(SIGINT, on_sigint);
  st = devo_solve(s);
  signal(SIGINT, SIG_DFL);
  active_solver = NULL;
  if (st < 0) {
    rc = cli_exit_for_status(st);
    fprintf(stderr, "devo schedule: %s\n", devo_solver_errmsg(s));
    goto done;
  }
  devo_solver_best(s, &best, x);
  devo_solver_stats(s, &stats);
  devo_problem_etc_decode(p, x, assign);
  devo_etc_evaluate(e, assign, a->order, &ms, &ft);
  obj = objective_of(a->lambda, ms, ft, m);
  ans->evals = stats.evaluations;
  ans->gens = stats.generations;
  ans->stop_name = devo_status_name(st);
  ans->stop_msg = devo_status_message(st);
  ans->backend = stats.backend == DEVO_BACKEND_GPU ? "gpu" : "cpu";
  if (a->no_seed || obj <= ans->objective) {
    ans->objective = obj;
    ans->makespan = ms;
    ans->flowtime = ft;
    memcpy(ans->assign, assign, (size_t)n * sizeof(int));
    ans->from = stats.best_from_seed ? "heuristic" : "de";
    ans->heuristic = NULL;
    if (stats.best_from_seed)
      for (h = 0; h < DEVO_HEUR_COUNT; ++h)
        if (memcmp(heur + (size_t)h * n, assign, (size_t)n * sizeof(int)) == 0) {
          ans->heuristic = devo_heuristic_name(h);
          break;
        }
  }
done:
  free(x);
  free(assign);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  return rc;
}

int cmd_schedule(int argc, char **argv)
{
  sched_args a;
  devo_etc *e = NULL;
  answer ans;
  int *heur = NULL, rc, st, n, m;
  char err[512];
  double budget;
  FILE *in;
  rc = parse(argc, argv, &a);
  if (rc)
    return rc;
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
  memset(&ans, 0, sizeof ans);
  ans.assign = (int *)malloc((size_t)n * sizeof(int));
  heur = (int *)calloc((size_t)DEVO_HEUR_COUNT * (size_t)n, sizeof(int));
  if (!ans.assign || !heur) {
    rc = cli_runtime_error("schedule", "out of memory");
    goto done;
  }
  rc = run_heuristics(&a, e, heur, &ans);
  if (rc)
    goto done;
  if (a.heuristic) {
    ans.stop_name = "heuristic";
    ans.stop_msg = "--heuristic: no search";
  } else {
    ans.stop_name = "heuristics_only";
    ans.stop_msg = "too little time left for DE: the best heuristic";
    budget = solver_budget(&a, n);
    if (budget >= MIN_SOLVE_S)
      rc = run_de(&a, e, heur, budget, &ans);
  }
  if (rc == CLI_OK)
    rc = write_answer(&a, e, &ans);
done:
  free(ans.assign);
  free(heur);
  devo_etc_destroy(e);
  return rc;
}
