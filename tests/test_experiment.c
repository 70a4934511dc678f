/* SPDX-License-Identifier: MIT */
/* test_experiment.c: `devo experiment` from outside: malformed specs refused with file:line
 * (exit 2), the results of a run cut mid-row or interrupted by SIGINT and then resumed equal an
 * uninterrupted run's rows (wall-time columns aside, in any order), a changed spec refused on
 * resume, the trace's last point per trial equal to the trial's row, --dry-run, results read back
 * as CSV (CRLF, quoting). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/include/devo.h"
#include "tests/tcheck.h"

static char dir[64];

static const char *tmpdir(void)
{
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/devo_exp_XXXXXX");
    if (!mkdtemp(dir))
      TC_SKIP("no temporary folder");
  }
  return dir;
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(text, f);
  fclose(f);
}

/* dir/name in one of 8 rotating buffers: copy a path that must outlive 8 more calls. */
static const char *path_in(const char *name)
{
  static char p[8][256];
  static int k;
  k = (k + 1) % 8;
  snprintf(p[k], sizeof p[k], "%s/%s", tmpdir(), name);
  return p[k];
}

/* A spec whose line 6 is `bad` is refused with exit 2, one line naming spec:6, and `word`. */
static void refused_at(const char *bad, int line, const char *word)
{
  char text[1024], cmd[1024], prefix[300];
  const char *spec = path_in("bad.spec");
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 5\ntrials = 2\nbudget = 1000\n%s\n"
           "[algorithm a]\nf = 0.5\n",
           path_in("bad.csv"), bad);
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run", tc_devo_bin(), spec);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:%d:", spec, line);
  tc_expect_refused(cmd, 2, prefix, word);
}

TEST_CASE(spec_errors)
{
  char text[512], cmd[1024], prefix[300], spec[256];
  refused_at("bogus = 1", 6, "unknown key 'bogus'");
  refused_at("np = 3", 6, "np");
  refused_at("np = 10 abc", 6, "'abc'");
  refused_at("np = 10, 20, 10", 6, "np: 10 given twice");
  refused_at("target = -1", 6, "target");
  refused_at("time_limit = 0", 6, "time_limit");
  refused_at("backend = tpu", 6, "tpu");
  refused_at("protocol = cec", 6, "protocol");
  refused_at("threads = 0", 6, "threads");
  refused_at("threads = 2", 6, "only the cpu-ms backend");
  refused_at("seeds = 1 2", 6, "not both");
  refused_at("[algorithm a", 6, "section");
  refused_at("[experiment x]", 6, "unknown section");
  refused_at("no equals sign", 6, "key = value");
  refused_at("dims = 10", 6, "given twice (first at line 3)");
  refused_at("[algorithm b]\nf = 0.5\ncr = 1.5", 8, "CR");
  refused_at("[algorithm b]\nf = 0", 7, "F = 0");
  refused_at("[algorithm b]\nstrategy = best9bin", 7, "best9bin");
  /* the DE variants' keys (docs/variants.md) */
  refused_at("[algorithm b]\npreset = mshade", 7, "mshade");
  refused_at("[algorithm b]\njde = maybe", 7, "on or off");
  refused_at("[algorithm b]\njde = on\njde_tau1 = 1.5", 8, "tau1");
  refused_at("[algorithm b]\njde_fl = 0", 7, "F_l");
  refused_at("[algorithm b]\njde_cru = x", 7, "finite number");
  refused_at("[algorithm b]\ngobl = 2", 7, "GOBL");
  refused_at("[algorithm b]\nnp = 50", 7, "grid keys go before");
  refused_at("[algorithm b]\nmutation = 2", 7, "unknown algorithm parameter");
  refused_at("[algorithm a]", 7, "defined twice (first at line 6)");
  refused_at("[algorithm b]\nf = 0.5\nf = 0.6", 8, "given twice");
  refused_at("np = 2000", 5, "below NP = 2000");
  snprintf(spec, sizeof spec, "%s", path_in("e.spec")); /* path_in's buffers rotate */
  /* an empty grid: an empty list, or a missing axis (named at the end of the file) */
  snprintf(text, sizeof text, "output = %s\nproblems = ,\ndims = 5\ntrials = 2\nbudget = 10\n",
           path_in("x.csv"));
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:2:", spec);
  tc_expect_refused(cmd, 2, prefix, "empty");
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 5\nbudget = 1000\n\n"
           "[algorithm a]\nf = 0.5\n",
           path_in("x.csv"));
  write_file(spec, text);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:7:", spec);
  tc_expect_refused(cmd, 2, prefix, "no 'trials' or 'seeds'");
  snprintf(text, sizeof text,
           "output = %s\nproblems = F01\ndims = 1\ntrials = 1\nbudget = 1000\n"
           "[algorithm a]\n",
           path_in("x.csv"));
  write_file(spec, text);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:2:", spec);
  tc_expect_refused(cmd, 2, prefix, "D = 1");
  /* an unwritable output is named with the spec's line */
  write_file(spec, "output = /nonexistent-dir/r.csv\nproblems = sphere\ndims = 5\ntrials = 1\n"
                   "budget = 1000\n[algorithm a]\n");
  snprintf(prefix, sizeof prefix, "devo experiment: %s:1:", spec);
  tc_expect_refused(cmd, 2, prefix, "/nonexistent-dir/r.csv");
  /* a missing spec */
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), path_in("none.spec"));
  tc_expect_refused(cmd, 2, NULL, "none.spec:0:");
}

/* The variant keys (preset, strategy over it, a jDE parameter) give the trial that devo solve
 * gives with the same options: the same error, bit for bit. */
TEST_CASE(variant_keys_equal_solve)
{
  char text[1024], cmd[1024], *csv, *out = NULL, *row, *q;
  const char *spec = path_in("v.spec"), *res = path_in("v.csv");
  double e_exp = -1.0, e_solve = -2.0;
  int col;
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 10\nnp = 20\nseeds = 1\nbudget = 2000\n"
           "[algorithm go]\npreset = gojde\nstrategy = best1exp\njde_tau1 = 0.3\n",
           res);
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s 2>/dev/null", tc_devo_bin(), spec);
  CHECK(tc_run(cmd, NULL, NULL) == 0);
  csv = tc_slurp(res, NULL);
  row =
      csv ? strstr(csv, "\ngo,preset=gojde;strategy=best1exp;jde_tau1=0.3,sphere,10,20,1,") : NULL;
  CHECKF(row != NULL, "no variant row in %s", csv ? csv : "(none)");
  for (q = row, col = 0; q && *q && col < 8; ++q) /* the error is the 9th column */
    col += *q == ',';
  if (row)
    e_exp = strtod(q, NULL);
  snprintf(cmd, sizeof cmd,
           "%s solve --problem sphere --dim 10 --np 20 --max-evals 2000 --seed 1 --algorithm gojde "
           "--strategy best1exp --jde --jde-tau1 0.3 --json",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  q = out ? strstr(out, "\"error\":") : NULL;
  CHECK(q && sscanf(q, "\"error\":%lf", &e_solve) == 1);
  CHECKF(e_exp == e_solve, "experiment error %.17g, devo solve %.17g", e_exp, e_solve);
  free(csv);
  free(out);
}

static int cmp_line(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of a results file without the header lines and the wall-time columns (time = 12th,
 * target_time = 14th), sorted: what two runs with the same seeds must agree on (rows come as
 * trials end, so with --jobs above 1 their order may differ). */
static char *rows_without_times(const char *path)
{
  char *text = tc_slurp(path, NULL), *out, *line, *save = NULL, **lines;
  size_t n = 0, nl = 0, k;
  if (!text)
    return NULL;
  out = calloc(strlen(text) + 1, 1);
  lines = calloc(strlen(text) + 1, sizeof *lines);
  for (line = strtok_r(text, "\n", &save); out && lines && line;
       line = strtok_r(NULL, "\n", &save)) {
    char *p = line, *q = line;
    int col = 0;
    if (line[0] == '#' || strncmp(line, "algorithm,", 10) == 0)
      continue;
    for (; *p; ++p) {
      if (*p == ',')
        ++col;
      else if (col == 11 || col == 13)
        continue;
      *q++ = *p;
    }
    *q = 0;
    lines[nl++] = line;
  }
  if (lines)
    qsort(lines, nl, sizeof *lines, cmp_line);
  for (k = 0; out && lines && k < nl; ++k)
    n += (size_t)sprintf(out + n, "%s\n", lines[k]);
  free(lines);
  free(text);
  return out;
}

static int count_char(const char *s, char c)
{
  int n = 0;
  for (; s && *s; ++s)
    n += *s == c;
  return n;
}

static void make_spec(const char *spec, const char *out, const char *trace, int trials)
{
  char text[1024];
  snprintf(text, sizeof text,
           "# two algorithms, two problems\noutput = %s\n%s%s\nproblems = sphere rastrigin\n"
           "dims = 10\nnp = 20 30\ntrials = %d\nbudget = 1500*D\ntarget = 1e-8\n\n"
           "[algorithm de]\nf = 0.5\ncr = 0.9\n[algorithm low-cr]\nf = 0.7\ncr = 0.2\n",
           out, trace ? "trace = " : "", trace ? trace : "", trials);
  write_file(spec, text);
}

TEST_CASE(resume_after_cut_row)
{
  char cmd[1024], *full, *resumed, *text;
  const char *spec = path_in("cut.spec"), *out = path_in("cut.csv");
  size_t len;
  FILE *f;
  make_spec(spec, out, NULL, 3);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  full = rows_without_times(out);
  CHECK(full && count_char(full, '\n') == 2 * 2 * 2 * 3);
  /* a kill in the middle of a row's write: the unfinished row is cut and that trial rerun */
  text = tc_slurp(out, &len);
  CHECK(text && len > 100);
  f = fopen(out, "w");
  CHECK(f != NULL);
  if (f && text) {
    fwrite(text, 1, len * 2 / 3, f);
    fclose(f);
  }
  free(text);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  resumed = rows_without_times(out);
  CHECK(full && resumed && strcmp(full, resumed) == 0);
  free(resumed);
  /* a changed spec does not resume into this output */
  make_spec(spec, out, NULL, 4);
  tc_expect_refused(cmd, 2, NULL, "another spec");
  free(full);
}

TEST_CASE(resume_after_sigint)
{
  char cmd[2048], *ref, *resumed, *out_text = NULL, *err_text = NULL;
  const char *spec = path_in("int.spec"), *out = path_in("int.csv");
  const char *rspec = path_in("ref.spec"), *rout = path_in("ref.csv");
  const int trials = 6;
  make_spec(rspec, rout, NULL, trials);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), rspec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  ref = rows_without_times(rout);
  make_spec(spec, out, NULL, trials);
  /* SIGINT once 5 rows (3 of them data) are in the file */
  snprintf(cmd, sizeof cmd,
           "%s experiment %s 2>%s.err & pid=$!; n=0; while [ $n -lt 5 ]; do sleep 0.002; "
           "n=$(cat %s 2>/dev/null | wc -l); done; kill -INT $pid; wait $pid; echo $?; cat %s.err",
           tc_devo_bin(), spec, out, out, out);
  CHECK_EQ_INT(tc_run(cmd, &out_text, NULL), 0);
  CHECKF(out_text && strncmp(out_text, "1\n", 2) == 0, "interrupted run: %s", out_text);
  CHECKF(out_text && strstr(out_text, "interrupted:") && strstr(out_text, "to resume"),
         "message: %s", out_text);
  resumed = rows_without_times(out);
  CHECK(resumed && count_char(resumed, '\n') < count_char(ref, '\n'));
  free(resumed);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, &err_text), 0);
  CHECKF(err_text && strstr(err_text, "already done, resuming"), "%s", err_text);
  resumed = rows_without_times(out);
  CHECK(ref && resumed && strcmp(ref, resumed) == 0);
  free(ref);
  free(resumed);
  free(out_text);
  free(err_text);
}

/* The file rewritten with CRLF line ends and its rows' algorithm "de" quoted; returns its data
 * rows (lines after the first two). */
static int crlf_quoted(const char *path)
{
  char *text = tc_slurp(path, NULL), *line, *save = NULL;
  FILE *f = text ? fopen(path, "w") : NULL;
  int n = 0;
  CHECK(f != NULL);
  for (line = strtok_r(text, "\n", &save); f && line; line = strtok_r(NULL, "\n", &save), ++n)
    fprintf(f, "%s%s\r\n", strncmp(line, "de,", 3) == 0 ? "\"de\"" : "",
            line + (strncmp(line, "de,", 3) == 0 ? 2 : 0));
  if (f)
    fclose(f);
  free(text);
  return n - 2;
}

/* The results and the trace are read back as CSV (libcsv): rows with CRLF line ends and a quoted
 * field are the same trials (nothing rerun, every trace row kept); a row missing a column is
 * refused with its line. */
TEST_CASE(resume_reads_csv)
{
  char cmd[1024], *out = NULL, *err = NULL, *trace;
  const char *spec = path_in("csv.spec"), *res = path_in("csv.csv"), *tr = path_in("csv-tr.csv");
  int rows, trows;
  FILE *f;
  make_spec(spec, res, tr, 1);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  rows = crlf_quoted(res);
  trows = crlf_quoted(tr);
  CHECK_EQ_INT(rows, 8);
  CHECK(trows > 8);
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "(8 already in "), "%s", out ? out : "");
  free(out);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
  CHECKF(err && strstr(err, "8 trials done (0 now)"), "%s", err ? err : "");
  free(err);
  trace = tc_slurp(tr, NULL);
  CHECK(trace && count_char(trace, '\r') == trows && count_char(trace, '\n') == trows + 2);
  free(trace);
  f = fopen(res, "a");
  CHECK(f != NULL && fputs("de,f=0.5;cr=0.9,sphere,10,20,1,cpu\r\n", f) >= 0 && fclose(f) == 0);
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run", tc_devo_bin(), spec);
  {
    char prefix[300];
    snprintf(prefix, sizeof prefix, "devo experiment: %s:11:", res);
    tc_expect_refused(cmd, 2, prefix, "not a trial of this spec");
  }
}

/* Each trial's trace ends at its row's evaluations and error; evaluations grow within a trial. */
TEST_CASE(trace_ends_at_row)
{
  char cmd[1024], *rows, *trace, *line, *save = NULL;
  const char *spec = path_in("tr.spec"), *out = path_in("tr.csv"), *tr = path_in("tr-trace.csv");
  int nrows = 0, matched = 0;
  make_spec(spec, out, tr, 2);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  rows = tc_slurp(out, NULL);
  trace = tc_slurp(tr, NULL);
  CHECK(rows && trace);
  if (!rows || !trace)
    return;
  for (line = strtok_r(rows, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char alg[64], params[64], prob[64], back[16], err[64], key[256], *p, *best = NULL;
    int dim, np, thr;
    long long seed, evals, last = -1;
    if (line[0] == '#' || strncmp(line, "algorithm,", 10) == 0)
      continue;
    nrows++;
    CHECK(sscanf(line, "%63[^,],%63[^,],%63[^,],%d,%d,%lld,%15[^,],%d,%63[^,],%lld", alg, params,
                 prob, &dim, &np, &seed, back, &thr, err, &evals) == 10);
    snprintf(key, sizeof key, "\n%s,%s,%d,%d,%lld,%s,", alg, prob, dim, np, seed, back);
    for (p = strstr(trace, key); p; p = strstr(p + 1, key)) {
      long long e = strtoll(p + strlen(key), &best, 10);
      CHECK(e > last);
      last = e;
    }
    CHECK_EQ_INT(last, evals);
    p = strstr(trace, key);
    while (p && strstr(p + 1, key))
      p = strstr(p + 1, key);
    if (p) { /* the last point: evaluations,time,error */
      char *c = strchr(p + strlen(key), ',');
      c = c ? strchr(c + 1, ',') : NULL;
      if (c && strncmp(c + 1, err, strlen(err)) == 0 && c[1 + strlen(err)] == '\n')
        matched++;
    }
  }
  CHECK_EQ_INT(nrows, 2 * 2 * 2 * 2);
  CHECK_EQ_INT(matched, nrows);
  free(rows);
  free(trace);
}

/* The master-slave CPU model (cpu-ms, 2 threads) runs the same populations as the standard CPU
 * model (1 thread): every row agrees in error, evaluations, generations and stop; only backend,
 * threads and the times differ. */
TEST_CASE(master_slave_equals_cpu)
{
  char text[1024], cmd[1024], *rows, *line, *save = NULL, *cpu[64] = {0};
  const char *spec = path_in("ms.spec"), *out = path_in("ms.csv");
  int ncpu = 0, nms = 0;
  snprintf(text, sizeof text,
           "output = %s\nproblems = rastrigin F03\ndims = 10\nnp = 20\ntrials = 3\n"
           "budget = 1000*D\nbackend = cpu cpu-ms\nthreads = 2\n[algorithm de]\nf = 0.5\n",
           out);
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  rows = tc_slurp(out, NULL);
  CHECK(rows != NULL);
  for (line = strtok_r(rows, "\n", &save); rows && line; line = strtok_r(NULL, "\n", &save)) {
    char key[256], rest[256], *f[16], copy[512];
    int n = 0;
    if (line[0] == '#' || strncmp(line, "algorithm,", 10) == 0)
      continue;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *p = strtok(copy, ","); p && n < 16; p = strtok(NULL, ","))
      f[n++] = p;
    CHECK(n >= 13);
    if (n < 13)
      continue;
    /* algorithm..seed, then error, evaluations, generations, stop */
    snprintf(key, sizeof key, "%s,%s,%s,%s,%s,%s|%s,%s,%s,%s", f[0], f[1], f[2], f[3], f[4], f[5],
             f[8], f[9], f[10], f[12]);
    if (strcmp(f[6], "cpu") == 0) {
      CHECK(strcmp(f[7], "1") == 0);
      if (ncpu < 64)
        cpu[ncpu++] = strdup(key);
    } else { /* the cpu row of the same trial (rows come as trials end: any order) */
      int k, same = 0;
      CHECK(strcmp(f[6], "cpu-ms") == 0 && strcmp(f[7], "2") == 0);
      snprintf(rest, sizeof rest, "%s", key);
      for (k = 0; k < ncpu; ++k)
        same += strcmp(cpu[k], rest) == 0;
      CHECKF(same == 1, "cpu-ms row %s is not one of the cpu rows", rest);
      nms++;
    }
  }
  CHECK_EQ_INT(ncpu, 6);
  CHECK_EQ_INT(nms, 6);
  for (int k = 0; k < ncpu; ++k)
    free(cpu[k]);
  free(rows);
}

/* On a terminal (a pseudo-terminal from script(1)) stderr carries the bar: trials done of all,
 * the current trial, elapsed and time left; through a pipe, one plain line per trial. */
TEST_CASE(progress_bar_and_lines)
{
  char cmd[1024], *out = NULL, *err = NULL;
  const char *spec = path_in("bar.spec"), *out_csv = path_in("bar.csv");
  make_spec(spec, out_csv, NULL, 1);
  if (tc_run("command -v script >/dev/null", NULL, NULL) != 0)
    TC_SKIP("no script(1) to make a terminal");
  /* one trial at a time: the bar names each trial as it starts, in the grid's order */
  snprintf(cmd, sizeof cmd, "script -qec '%s experiment %s --jobs 1' /dev/null", tc_devo_bin(),
           spec);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "\r[") && strstr(out, "] 0/8 de sphere D=10 NP=20 seed 1 cpu") &&
             strstr(out, " elapsed, ~") && strstr(out, " left") && !strstr(out, "8/8 low-cr"),
         "%s", out);
  free(out);
  remove(out_csv);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
  /* the default --jobs (the processors): the lines come as trials end, in any order */
  CHECKF(err && !strchr(err, '\r') && strstr(err, "devo experiment: 8/8 ") &&
             strstr(err, " low-cr rastrigin D=10 NP=30 seed 1 cpu: error ") &&
             strstr(err, "8 trials done (8 now)"),
         "%s", err);
  free(err);
}

TEST_CASE(dry_run_and_protocol)
{
  char cmd[1024], *out = NULL;
  const char *spec = path_in("dry.spec");
  write_file(spec, "output = /tmp/never-written.csv\nproblems = F01 F02\ndims = 50 100\n"
                   "np = 50 100 250 500\nbackend = cpu\n[algorithm de]\nf = 0.5\ncr = 0.9\n");
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --protocol janssen2024", tc_devo_bin(),
           spec);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "trials       480 ") && strstr(out, "D=50: 5000000") &&
             strstr(out, "D=100: 10000000") && strstr(out, "target       1e-08"),
         "%s", out);
  CHECK(access("/tmp/never-written.csv", F_OK) != 0);
  free(out);
  /* --trials N: the protocol's budget and target with seeds 1..N (480 / 30 * 3 = 48 trials) */
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --protocol janssen2024 --trials 3",
           tc_devo_bin(), spec);
  out = NULL;
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "trials       48 ") && strstr(out, "seeds        3: 1 2 3\n") &&
             strstr(out, "D=100: 10000000") && strstr(out, "reduced to 3 trials"),
         "%s", out);
  free(out);
  /* without a protocol --trials is refused (named at the spec's last line), as is a bad count */
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --trials 3", tc_devo_bin(), spec);
  {
    char prefix[300];
    snprintf(prefix, sizeof prefix, "devo experiment: %s:8:", spec);
    tc_expect_refused(cmd, 2, prefix, "only with a protocol");
  }
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --protocol janssen2024 --trials 0",
           tc_devo_bin(), spec);
  tc_expect_refused(cmd, 2, "devo experiment: --trials", "0");
}

/* The naive GPU model is a backend of the grid (gpu-naive); without a usable device the run
 * stops before the first trial with exit 1 and one line naming the backend, writing nothing. */
TEST_CASE(naive_backend)
{
  char cmd[1024], text[512], *out = NULL;
  const char *spec = path_in("naive.spec");
  const char *csv = path_in("naive.csv");
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 5\nnp = 20\ntrials = 2\nbudget = 1000\n"
           "backend = cpu gpu-naive\n[algorithm de]\nf = 0.5\n",
           csv);
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "backends     2: cpu gpu-naive") && strstr(out, "trials       4 "),
         "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  if (devo_gpu_available(NULL, 0))
    TC_SKIP("a GPU is usable here: the refusal without one is not tested");
  tc_expect_refused(cmd, 1, "devo experiment: backend gpu-naive: no CUDA device", "");
  CHECK(access(csv, F_OK) != 0);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(spec_errors),
                                  TC(variant_keys_equal_solve),
                                  TC(resume_after_cut_row),
                                  TC(resume_after_sigint),
                                  TC(trace_ends_at_row),
                                  TC(master_slave_equals_cpu),
                                  TC(progress_bar_and_lines),
                                  TC(dry_run_and_protocol),
                                  TC(naive_backend),
                                  TC(resume_reads_csv)};
  int rc = tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
  char cmd[128];
  if (dir[0]) {
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", dir);
  }
  return rc;
}
