/* SPDX-License-Identifier: MIT */
/* cmd_eval.c: `devo eval`: evaluates a built-in function at points read as CSV rows, so that
 * anyone can check devo's functions against another implementation (the official CEC code
 * prints the same %.17g values). Uses the public API only. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "csv_rows.h"
#include "engine/internal.h"   /* devo__gpu_eval_points: the GPU kernels at given points */
#include "problems/read_src.h" /* the library's bounded reader */

/* The input size limit of devo eval unless --max-input-bytes: points have no count limit of
 * their own; 1 GiB of text is up to 4 GiB of doubles. */
#define EVAL_DEFAULT_MAX_BYTES ((size_t)1 << 30)

static const char *const eval_help =
    "usage: devo eval --problem NAME --dim D [options] [FILE|-]\n"
    "\n"
    "Reads points as CSV rows of D comma-separated numbers (from FILE, or standard input when\n"
    "FILE is - or absent) and prints f(x) of each row, one per line, with %.17g.\n"
    "Every row is checked before anything is printed; a bad row is reported as\n"
    "FILE:ROW:COLUMN and the exit code is 2. Blank lines are skipped.\n"
    "\n"
    "  --problem NAME      sphere, rosenbrock, griewank, rastrigin, cec2017:f5, F03, ...\n"
    "                      (devo list-problems)\n"
    "  --dim D             dimension\n"
    "  --cec-data DIR      official CEC input files (DIR holding cec2017/ and cec2014/, or the\n"
    "                      files themselves) instead of generated data\n"
    "  --data-seed S       seed of the generated data (default 1, as devo solve); --seed is the\n"
    "                      same option\n"
    "  --backend B         cpu (default) or gpu\n"
    "  --lower L --upper U --ranges cec2005   the box, as devo solve (checked, not used)\n"
    "  --max-input-bytes N refuse a larger input (default 1 GiB); a NUL byte or a line longer\n"
    "                      than D fields of 1,023 characters is refused too (exit 2); a failed\n"
    "                      read or allocation exits 1\n";

typedef struct points {
  double *x;
  size_t n, cap; /* rows */
} points;

static int push_row(points *p, const double *row, int dim)
{
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    double *bigger;
    if (cap > ((size_t)-1 / sizeof(double)) / (size_t)dim)
      return -1;
    bigger = (double *)realloc(p->x, cap * (size_t)dim * sizeof(double));
    if (!bigger)
      return -1;
    p->x = bigger;
    p->cap = cap;
  }
  memcpy(p->x + p->n * (size_t)dim, row, (size_t)dim * sizeof(double));
  p->n++;
  return 0;
}

/* One field of a row (its blanks already dropped by the reader); a number must fill it and be
 * finite (up to EVAL_MAX_FIELD characters: valid numbers of over 63 were refused, found in
 * review). */
#define EVAL_MAX_FIELD 1023
static int parse_field(const char *s, double *out)
{
  char *end;
  const size_t n = strlen(s);
  if (n == 0 || n > EVAL_MAX_FIELD)
    return -1;
  errno = 0;
  *out = strtod(s, &end);
  if (*end != 0 || end == s || !isfinite(*out))
    return -1;
  return 0;
}

/* One row into pts; on a bad row prints "name:row:col: reason" and returns CLI_USAGE. Blank
 * rows are skipped. */
static int parse_row(const char *name, const tool_csv_row *r, int dim, double *vals, points *pts)
{
  int col;
  if (r->blank)
    return CLI_OK;
  for (col = 0; col < r->n; ++col) {
    const char *b = r->f[col];
    if (col == dim)
      return cli_usage_error("eval", "%s:%ld:%d: expected %d numbers, found more", name, r->line,
                             col + 1, dim);
    if (parse_field(b, &vals[col]) != 0) {
      const size_t len = strlen(b);
      int n = len > 40 ? 40 : (int)len, k;
      char shown[44];
      for (k = 0; k < n; ++k) /* one line: no control characters */
        shown[k] = (unsigned char)b[k] < 0x20 ? '?' : b[k];
      shown[n] = 0;
      return cli_usage_error("eval", "%s:%ld:%d: '%s%s' is not a finite number", name, r->line,
                             col + 1, shown, len > 40 ? "..." : "");
    }
  }
  if (col < dim)
    return cli_usage_error("eval", "%s:%ld:%d: expected %d numbers, found %d", name, r->line,
                           col + 1, dim, col);
  if (push_row(pts, vals, dim) != 0)
    return cli_runtime_error("eval", "out of memory after %ld rows", r->line);
  return CLI_OK;
}

/* Reads every row of fd into pts; on a bad row prints "name:row:col: reason" and returns
 * CLI_USAGE. The input is read whole by the library's bounded reader (problems/read_src.h): a
 * NUL byte, a line longer than D fields can be, or more than max_bytes are refused as soon as
 * they arrive (exit 2), and a failed allocation or read exits 1 (getline's -1 was taken for the
 * end of the input: the output was cut short, or empty on /dev/zero, with exit 0: issue 21).
 * Then the CSV reader (csv_rows.h) splits it: lines end with LF, CRLF or a CR alone (old Mac
 * files), quoted fields are read as RFC 4180 has them. */
static int read_points(int fd, const char *name, int dim, size_t max_bytes, points *pts)
{
  const tool_csv_opts o = {.max_fields = dim + 1};
  devo__rdlim lim;
  char *text = NULL, err[512];
  size_t len = 0;
  int rc = CLI_OK, st;
  tool_csv *c;
  tool_csv_row r;
  double *vals = (double *)malloc((size_t)dim * sizeof(double));
  if (!vals)
    return cli_runtime_error("eval", "out of memory");
  lim.max_bytes = max_bytes;
  lim.max_line = (size_t)dim * (EVAL_MAX_FIELD + 1) + 64;
  lim.deadline = 0.0;
  st = devo__read_all(NULL, fd, name, &lim, NULL, &text, &len, err, sizeof err);
  if (st != DEVO_OK) {
    free(vals);
    if (st == DEVO_E_PARSE)
      return cli_usage_error("eval", "%s", err);
    return cli_runtime_error("eval", "%s", err);
  }
  c = tool_csv_text(text, len, name, &o);
  if (!c)
    rc = cli_runtime_error("eval", "out of memory");
  while (c && rc == CLI_OK && (st = tool_csv_next(c, &r)) == TOOL_CSV_ROW)
    rc = parse_row(name, &r, dim, vals, pts);
  if (c && rc == CLI_OK && st == TOOL_CSV_BAD)
    rc = cli_usage_error("eval", "%s", tool_csv_error(c));
  else if (c && rc == CLI_OK && st < 0)
    rc = cli_runtime_error("eval", "%s", tool_csv_error(c));
  tool_csv_close(c);
  free(text);
  free(vals);
  return rc;
}

/* A FIFO opened before its writer (cli_open_input does not block) reads as empty until one
 * comes: wait for it (its first bytes, or its close), as a blocking open would, and as devo
 * schedule's poll() does until its deadline. eval has no deadline: it waits as long as cat. */
static void wait_for_writer(int fd)
{
  struct stat st;
  struct pollfd pf;
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    return;
  pf.fd = fd;
  pf.events = POLLIN;
  while (poll(&pf, 1, -1) < 0 && errno == EINTR)
    ;
}

int cmd_eval(int argc, char **argv)
{
  static const char *const names[] = {
      "--problem=",         "--dim=", "--cec-data=", "--data-seed=", "--seed=",
      "--backend=",         "--help", "--lower=",    "--upper=",     "--ranges=",
      "--max-input-bytes=", NULL};
  const char *cmd = "eval", *v, *problem = NULL, *dir = NULL, *file = NULL;
  const char *box[3] = {NULL, NULL, NULL}; /* --lower, --upper, --ranges */
  int pos = 1, k, r = 0, dim = CLI_DIM_UNSET, gpu = 0, st, rc;
  uint64_t data_seed = 1;
  size_t max_bytes = EVAL_DEFAULT_MAX_BYTES;
  devo_problem *p = NULL;
  points pts;
  int fd;
  size_t i;
  while ((k = cli_next(cmd, argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      if (file)
        return cli_usage_error(cmd, "one input file at most (got '%s' and '%s')", file, v);
      file = v;
      break;
    case 0:
      problem = v;
      break;
    case 1:
      r = cli_int(cmd, "--dim", v, &dim);
      break;
    case 2:
      dir = v;
      break;
    case 3:
    case 4:
      r = cli_u64(cmd, k == 3 ? "--data-seed" : "--seed", v, &data_seed);
      break;
    case 5:
      if (strcmp(v, "cpu") == 0)
        gpu = 0;
      else if (strcmp(v, "gpu") == 0)
        gpu = 1;
      else
        r = cli_usage_error(cmd, "--backend: unknown value '%s' (cpu or gpu)", v);
      break;
    case 6:
      fputs(eval_help, stdout);
      return CLI_OK;
    case 7:
    case 8:
    case 9:
      box[k - 7] = v;
      break;
    case 10:
      r = cli_max_bytes(cmd, v, &max_bytes);
      break;
    default:
      break;
    }
    if (r)
      return CLI_USAGE;
  }
  if (!problem)
    return cli_usage_error(cmd, "--problem is required (see devo list-problems)");
  if (dim == CLI_DIM_UNSET)
    return cli_usage_error(cmd, "--dim is required");
  if (dim < 1)
    return cli_usage_error(cmd, "--dim must be positive, got %d", dim);
  st = devo_problem_create(&p, NULL);
  if (st != DEVO_OK)
    return cli_runtime_error(cmd, "%s", devo_status_message(st));
  st = devo_problem_set_builtin(p, problem, dim, data_seed, dir);
  if (st != DEVO_OK) {
    rc = cli_exit_for_status(st);
    if (rc == CLI_USAGE)
      cli_usage_error(cmd, "%s", devo_problem_errmsg(p));
    else
      cli_runtime_error(cmd, "%s", devo_problem_errmsg(p));
    devo_problem_destroy(p);
    return rc;
  }
  if (cli_apply_box(cmd, p, box[2], box[0], box[1])) {
    devo_problem_destroy(p);
    return CLI_USAGE;
  }

  if (!file || strcmp(file, "-") == 0) {
    fd = STDIN_FILENO;
    file = "<stdin>";
  } else {
    fd = cli_open_input(file);
    if (fd < 0) {
      rc = cli_usage_error(cmd, "%s: cannot open: %s", file, strerror(errno));
      devo_problem_destroy(p);
      return rc;
    }
    wait_for_writer(fd);
  }
  memset(&pts, 0, sizeof pts);
  rc = read_points(fd, file, dim, max_bytes, &pts);
  if (fd != STDIN_FILENO)
    close(fd);
  if (rc == CLI_OK && gpu && pts.n > 0) {
    /* all rows in one launch of the backend's evaluation kernel */
    char err[512];
    double *fs = pts.n <= 0x7fffffff ? (double *)malloc(pts.n * sizeof(double)) : NULL;
    if (!fs)
      rc = cli_runtime_error(cmd, "out of memory for %zu values", pts.n);
    else if ((st = devo__gpu_eval_points(p, pts.x, (int)pts.n, fs, err, sizeof err)) != DEVO_OK)
      rc = cli_runtime_error(cmd, "--backend gpu: %s", err);
    for (i = 0; rc == CLI_OK && i < pts.n; ++i)
      printf("%.17g\n", fs[i]);
    free(fs);
  }
  for (i = 0; rc == CLI_OK && !gpu && i < pts.n; ++i) {
    double f;
    st = devo_problem_eval(p, pts.x + i * (size_t)dim, &f);
    if (st != DEVO_OK)
      rc = cli_runtime_error(cmd, "row %zu: %s", i + 1, devo_status_message(st));
    else
      printf("%.17g\n", f);
  }
  if (rc == CLI_OK)
    rc = cli_stdout_done(cmd);
  free(pts.x);
  devo_problem_destroy(p);
  return rc;
}
