/* SPDX-License-Identifier: MIT */
/* cli.c: shared helpers of the devo command-line program: strict number parsing, option
 * iteration, one-line errors and the exit codes of DESIGN.md. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "csv_rows.h"
#include "mpi_env.h"
#include "problems/read_src.h" /* the library's bounded reader, for lists of numbers in files */
#include "tool_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE *report_to; /* NULL: stderr */

void cli_report_to(FILE *f)
{
  report_to = f;
}

static int vreport(int code, const char *cmd, const char *fmt, va_list ap)
{
  FILE *f = report_to ? report_to : stderr;
  fprintf(f, "devo%s%s: ", cmd ? " " : "", cmd ? cmd : "");
  vfprintf(f, fmt, ap);
  fputc('\n', f);
  return code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vreport(CLI_USAGE, cmd, fmt, ap);
  va_end(ap);
  return r;
}

int cli_pick(const char *cmd, const char *opt, const char *val, const char *const *names, int *out)
{
  int k;
  for (k = 0; names[k]; ++k)
    if (strcmp(val, names[k]) == 0) {
      *out = k;
      return 0;
    }
  return cli_usage_error(cmd, "%s: unknown value '%s'", opt, val);
}

int cli_runtime_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vreport(CLI_RUNTIME, cmd, fmt, ap);
  va_end(ap);
  return r;
}

int cli_stdout_done(const char *cmd)
{
  /* ferror too: a failed flush drops the buffer, so a later fflush can return 0 */
  if (fflush(stdout) != 0 || ferror(stdout))
    return cli_runtime_error(cmd, "cannot write the output: %s", strerror(errno));
  return CLI_OK;
}

FILE *cli_out_open(const char *cmd, const char *path, char *tmp, size_t tmplen)
{
  FILE *f = out_file_open(path, tmp, tmplen);
  if (!f)
    cli_runtime_error(cmd, "%s: %s", path, strerror(errno));
  return f;
}

int cli_out_close(const char *cmd, FILE *f, const char *tmp, const char *path)
{
  const int e = out_file_close(f, tmp, path);
  if (e == 0)
    return CLI_OK;
  return cli_runtime_error(cmd, "%s: write error: %s", path, strerror(e));
}

int cli_exit_for_status(int status)
{
  if (status >= 0)
    return CLI_OK;
  switch (status) {
  case DEVO_E_INVALID:
  case DEVO_E_PARSE:
  case DEVO_E_IO:
    return CLI_USAGE;
  default:
    return CLI_RUNTIME;
  }
}

int cli_double(const char *cmd, const char *opt, const char *val, double *out)
{
  /* an underflow (1e-320) is a number; only NaN and overflow are not finite (issue 21) */
  if (tool_parse_real(val, out) != 0)
    return cli_usage_error(cmd, "%s expects a finite number, got '%s'", opt, val);
  return 0;
}

int cli_real(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out)
{
  double v = 0.0;
  if (cli_double(cmd, opt, val, &v) != 0)
    return CLI_USAGE;
  if (!(v >= lo && v <= hi))
    return cli_usage_error(cmd, "%s must be in [%g, %g], got %s", opt, lo, hi, val);
  *out = v;
  return 0;
}

int cli_count(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi,
              int64_t *out)
{
  int64_t v = 0;
  if (cli_int64(cmd, opt, val, &v) != 0)
    return CLI_USAGE;
  if (v < lo || v > hi)
    return cli_usage_error(cmd, "%s must be %lld .. %lld, got %s", opt, (long long)lo,
                           (long long)hi, val);
  *out = v;
  return 0;
}

int cli_time_limit(const char *cmd, const char *val, double *out)
{
  double v = 0.0;
  if (cli_double(cmd, "--time-limit", val, &v) != 0)
    return CLI_USAGE;
  if (!(v > 0 && v <= CLI_TIME_LIMIT_MAX))
    return cli_usage_error(cmd, "--time-limit must be a number of seconds > 0 and <= 1e9, got %s",
                           val);
  *out = v;
  return 0;
}

int cli_max_bytes(const char *cmd, const char *val, size_t *out)
{
  uint64_t v = 0;
  if (cli_u64(cmd, "--max-input-bytes", val, &v) != 0)
    return CLI_USAGE;
  if (v < 1 || v > (uint64_t)(SIZE_MAX / 2))
    return cli_usage_error(cmd, "--max-input-bytes must be 1 .. %zu, got %s", SIZE_MAX / 2, val);
  *out = (size_t)v;
  return 0;
}

int cli_open_input(const char *path)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), fl;
  if (fd < 0)
    return -1;
  /* blocking again: the readers poll() before each read where a deadline exists */
  fl = fcntl(fd, F_GETFL);
  if (fl != -1)
    (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

int cli_int64(const char *cmd, const char *opt, const char *val, int64_t *out)
{
  char *end;
  long long v;
  double d;
  errno = 0;
  v = strtoll(val, &end, 10);
  if (end != val && *end == 0 && errno == 0) {
    *out = (int64_t)v;
    return 0;
  }
  /* also accept an exact integer written in floating notation, such as 1e7 */
  errno = 0;
  d = strtod(val, &end);
  if (end != val && *end == 0 && errno == 0 && d == floor(d) && fabs(d) < 9.2e18) {
    *out = (int64_t)d;
    return 0;
  }
  if (end != val && *end == 0 && (d == floor(d) || !isfinite(d)))
    return cli_usage_error(cmd, "%s value %s is out of range", opt, val);
  return cli_usage_error(cmd, "%s expects an integer, got '%s'", opt, val);
}

int cli_int(const char *cmd, const char *opt, const char *val, int *out)
{
  int64_t v = 0;
  if (cli_int64(cmd, opt, val, &v) != 0)
    return CLI_USAGE;
  if (v < -2147483647 || v > 2147483647)
    return cli_usage_error(cmd, "%s value %s is out of range", opt, val);
  *out = (int)v;
  return 0;
}

int cli_u64(const char *cmd, const char *opt, const char *val, uint64_t *out)
{
  const int r = tool_parse_u64(val, out);
  if (r == -1)
    return cli_usage_error(cmd, "%s expects a decimal integer >= 0 without leading zeros, got '%s'",
                           opt, val);
  if (r == -2)
    return cli_usage_error(cmd, "%s value %s is out of range (at most 2^64 - 1)", opt, val);
  return 0;
}

int cli_next(const char *cmd, int argc, char **argv, int *pos, const char *const *names,
             const char **val)
{
  const char *arg, *eq;
  size_t len;
  int k;
  if (*pos >= argc)
    return -1;
  arg = argv[(*pos)++];
  *val = NULL;
  /* "--" ends the options: what follows is positional (a file named "-x"); it was taken for a
   * file name itself (found in review) */
  for (k = 1; k < *pos - 1; ++k)
    if (strcmp(argv[k], "--") == 0) {
      *val = arg;
      return -3;
    }
  if (strcmp(arg, "--") == 0)
    return cli_next(cmd, argc, argv, pos, names, val);
  if (arg[0] != '-' || arg[1] == 0) {
    *val = arg; /* "-" is a positional argument: standard input */
    return -3;
  }
  if (strcmp(arg, "-h") == 0)
    arg = "--help"; /* the one short option, the same everywhere */
  eq = strchr(arg, '=');
  len = eq ? (size_t)(eq - arg) : strlen(arg);
  for (k = 0; names[k]; ++k) {
    size_t nl = strlen(names[k]);
    int takes = nl > 0 && names[k][nl - 1] == '=';
    if (takes)
      nl--;
    if (nl != len || strncmp(arg, names[k], len) != 0)
      continue;
    if (takes) {
      if (eq)
        *val = eq + 1;
      else if (*pos < argc)
        *val = argv[(*pos)++];
      else {
        cli_usage_error(cmd, "option %.*s needs a value", (int)len, arg);
        return -2;
      }
    } else if (eq) {
      cli_usage_error(cmd, "option %.*s takes no value", (int)len, arg);
      return -2;
    }
    return k;
  }
  cli_usage_error(cmd, "unknown option '%.*s' (see devo %s --help)", (int)len, arg, cmd ? cmd : "");
  return -2;
}

static double process_start = -1.0;

static double mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cli_deadline_from_start(double limit)
{
  if (process_start < 0.0)
    cli_mark_start();
  return process_start + limit;
}

void cli_mark_start(void)
{
  if (process_start < 0.0)
    process_start = mono_now();
}

double cli_process_elapsed(void)
{
  if (process_start < 0.0)
    cli_mark_start();
  return mono_now() - process_start;
}

/* One field of a numbers row: blank-separated values, each checked and stored at out[*k]. */
static int number_field(const char *cmd, const cli_numbers *ns, const tool_csv_row *r, int f,
                        double *out, int *k)
{
  char *const s = r->f[f];
  char *p = s, at[48] = "";
  if (ns->say_index)
    snprintf(at, sizeof at, " (%s %d)", ns->per, *k);
  if (!*s)
    return cli_usage_error(cmd, "%s:%ld:%ld: empty field%s", ns->name, r->line, r->end[f], at);
  for (p += strspn(p, " \t\r"); *p; p += strspn(p, " \t\r")) {
    const size_t n = strcspn(p, " \t\r");
    const long col = r->col[f] + (long)(p - s);
    const char save = p[n];
    char *end;
    double x;
    int rc = 0;
    if (ns->say_index)
      snprintf(at, sizeof at, " (%s %d)", ns->per, *k);
    p[n] = 0;
    errno = 0;
    x = strtod(p, &end);
    if (end == p || *end || errno || !isfinite(x) || x < ns->min ||
        strspn(p, "0123456789.eE+-") != n)
      rc = cli_usage_error(cmd, "%s:%ld:%ld: %s '%s'%s: not a finite number%s", ns->name, r->line,
                           col, ns->what, p, at, ns->min == 0.0 ? " >= 0" : "");
    else if (*k >= ns->n)
      rc = cli_usage_error(cmd, "%s:%ld:%ld: more than %d %ss (one per %s)", ns->name, r->line, col,
                           ns->n, ns->what, ns->per);
    else
      out[(*k)++] = x;
    p[n] = save;
    if (rc)
      return rc;
    p += n;
  }
  return 0;
}

/* The values of text (len bytes; ';' turned into ',') into out through the CSV reader
 * (csv_rows.h), which keeps the columns of the fields for the messages: separated by blanks, or
 * by one ',' or ';' each. An empty field (between two separators, or before or after one on its
 * line) is an error, not skipped (it shifted the later values to other machines: found in
 * review); blank lines are skipped. */
static int parse_numbers(const char *cmd, const cli_numbers *ns, char *text, size_t len,
                         double *out)
{
  const tool_csv_opts o = {.max_fields = ns->n + 1, .columns = 1};
  tool_csv *c;
  tool_csv_row r;
  long line, col;
  int k = 0, rc = 0, st = TOOL_CSV_END, f;
  size_t i;
  for (i = 0; i < len; ++i) /* libcsv takes one delimiter */
    if (text[i] == ';')
      text[i] = ',';
  if (!(c = tool_csv_text(text, len, ns->name, &o)))
    return cli_runtime_error(cmd, "out of memory");
  while (!rc && (st = tool_csv_next(c, &r)) == TOOL_CSV_ROW)
    for (f = 0; !rc && !r.blank && f < r.n && f <= ns->n; ++f)
      rc = number_field(cmd, ns, &r, f, out, &k);
  if (!rc && st == TOOL_CSV_NOMEM)
    rc = cli_runtime_error(cmd, "%s", tool_csv_error(c));
  else if (!rc && st < 0)
    rc = cli_usage_error(cmd, "%s", tool_csv_error(c));
  if (!rc && k != ns->n) {
    tool_csv_end_at(c, &line, &col);
    rc = cli_usage_error(cmd, "%s:%ld:%ld: %d %ss, expected one per %s (%d)", ns->name, line, col,
                         k, ns->what, ns->per, ns->n);
  }
  tool_csv_close(c);
  return rc;
}

int cli_read_numbers(const char *cmd, const cli_numbers *ns, int fd, const char *list,
                     double deadline, double *out)
{
  char *text = NULL, err[512];
  size_t len = 0;
  int rc;
  if (fd >= 0) {
    /* bounded like an ETC matrix: n values of at most DEVO_ETC_MAX_FIELD characters each, with a
     * separator, and under the deadline */
    devo__rdlim lim;
    lim.max_bytes = (size_t)ns->n * (DEVO_ETC_MAX_FIELD + 2) + 4096;
    lim.max_line = lim.max_bytes;
    lim.deadline = deadline;
    /* the option first, unless the name starts with it already ("--lower @FILE") */
    const char *opt = strncmp(ns->name, ns->opt, strlen(ns->opt)) == 0 ? "" : ns->opt;
    rc = devo__read_all(NULL, fd, ns->name, &lim, NULL, &text, &len, err, sizeof err);
    close(fd);
    if (rc == DEVO_E_IO &&
        strstr(err, strerror(EISDIR))) /* a directory opens, and its reading fails */
      return cli_usage_error(cmd, "%s%s%s: %s", opt, *opt ? " " : "", ns->name, strerror(EISDIR));
    if (rc != DEVO_OK) {
      fprintf(stderr, "devo %s: %s%s%s\n", cmd, opt, *opt ? " " : "", err);
      return cli_exit_for_status(rc);
    }
  } else {
    len = strlen(list);
    text = (char *)malloc(len + 1);
    if (!text)
      return cli_runtime_error(cmd, "out of memory");
    memcpy(text, list, len + 1);
  }
  rc = parse_numbers(cmd, ns, text, len, out);
  free(text);
  return rc;
}

/* One side of the box, coordinate by coordinate, into out (dim values): a single number for
 * every coordinate, a list a,b,c, or @FILE; an absent side (val NULL) leaves out as it is. */
static int box_side(const char *cmd, const char *opt, const char *val, int dim, double *out)
{
  char name[4096];
  cli_numbers ns;
  int fd = -1, j;
  if (!val)
    return 0;
  if (val[0] != '@' && !strchr(val, ',')) {
    double x;
    if (cli_double(cmd, opt, val, &x))
      return CLI_USAGE;
    for (j = 0; j < dim; ++j)
      out[j] = x;
    return 0;
  }
  if (val[0] == '@') {
    fd = cli_open_input(val + 1);
    if (fd < 0)
      return cli_usage_error(cmd, "%s %s: %s", opt, val, strerror(errno));
  }
  snprintf(name, sizeof name, "%s%s%s", opt, fd >= 0 ? " " : "", fd >= 0 ? val : "");
  ns.name = name;
  ns.opt = opt;
  ns.what = strcmp(opt, "--lower") == 0 ? "lower bound" : "upper bound";
  ns.per = "coordinate";
  ns.n = dim;
  ns.min = -(double)INFINITY;
  ns.say_index = 1;
  return cli_read_numbers(cmd, &ns, fd, val, 0.0, out);
}

/* A box side given as a list or a file, not as one number. */
static int box_listed(const char *val)
{
  return val && (val[0] == '@' || strchr(val, ','));
}

int cli_apply_box(const char *cmd, devo_problem *p, const char *ranges, const char *lower,
                  const char *upper)
{
  double lo, hi, *box;
  int rc, dim;
  if (ranges && devo_problem_set_ranges(p, ranges) != DEVO_OK)
    return cli_usage_error(cmd, "--ranges: %s", devo_problem_errmsg(p));
  if (!lower && !upper)
    return 0;
  if (devo_problem_bounds(p, &lo, &hi) != DEVO_OK)
    return cli_usage_error(cmd, "no problem is configured");
  if (!box_listed(lower) && !box_listed(upper)) { /* one box for every coordinate */
    if ((lower && cli_double(cmd, "--lower", lower, &lo)) ||
        (upper && cli_double(cmd, "--upper", upper, &hi)))
      return CLI_USAGE;
    if (devo_problem_set_box(p, lo, hi) != DEVO_OK)
      return cli_usage_error(cmd, "--lower/--upper: %s", devo_problem_errmsg(p));
    return 0;
  }
  dim = devo_problem_dim(p);
  box = (double *)malloc(2 * (size_t)dim * sizeof(double));
  if (!box)
    return cli_runtime_error(cmd, "out of memory for the bounds of %d coordinates", dim);
  devo_problem_bounds_vec(p, box, box + dim); /* an absent side keeps the problem's */
  rc = box_side(cmd, "--lower", lower, dim, box);
  if (!rc)
    rc = box_side(cmd, "--upper", upper, dim, box + dim);
  if (!rc && devo_problem_set_bounds(p, box, box + dim) != DEVO_OK)
    rc = cli_usage_error(cmd, "--lower/--upper: %s", devo_problem_errmsg(p));
  free(box);
  return rc;
}

int cli_launcher_size(void)
{
  /* Open MPI's mpirun, then PMIx and PMI launchers (srun, Hydra) */
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; ++k) {
    const char *v = getenv(vars[k]);
    char *end;
    long n;
    if (!v || !*v)
      continue;
    n = strtol(v, &end, 10);
    if (*end == '\0' && n >= 1 && n <= 1000000)
      return (int)n;
  }
  return 1;
}
