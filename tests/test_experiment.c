/* SPDX-License-Identifier: MIT */
/* test_experiment.c: `devo experiment` from outside: malformed specs refused with file:line
 * (exit 2), the results of a run cut mid-row or interrupted by SIGINT and then resumed equal an
 * uninterrupted run's rows (wall-time columns aside, in any order), a changed spec refused on
 * resume, the trace's last point per trial equal to the trial's row, --dry-run, results read back
 * as CSV (CRLF, quoting), the shards of a grid (--shard K/N, a Slurm job array) together equal to
 * the whole run; under mpirun (MPI) the rows of one process, resumed after a worker killed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/include/devo.h"
#include "tests/tcheck.h"

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(text, f);
  fclose(f);
}

/* A spec whose line 6 is `bad` is refused with exit 2, one line naming spec:6, and `word`. */
static void refused_at(const char *bad, int line, const char *word)
{
  char text[1024], cmd[1024], prefix[300];
  const char *spec = tc_path_in("bad.spec");
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 5\ntrials = 2\nbudget = 1000\n%s\n"
           "[algorithm a]\nf = 0.5\n",
           tc_path_in("bad.csv"), bad);
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
  snprintf(spec, sizeof spec, "%s", tc_path_in("e.spec")); /* path_in's buffers rotate */
  /* an empty grid: an empty list, or a missing axis (named at the end of the file) */
  snprintf(text, sizeof text, "output = %s\nproblems = ,\ndims = 5\ntrials = 2\nbudget = 10\n",
           tc_path_in("x.csv"));
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:2:", spec);
  tc_expect_refused(cmd, 2, prefix, "empty");
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 5\nbudget = 1000\n\n"
           "[algorithm a]\nf = 0.5\n",
           tc_path_in("x.csv"));
  write_file(spec, text);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:7:", spec);
  tc_expect_refused(cmd, 2, prefix, "no 'trials' or 'seeds'");
  snprintf(text, sizeof text,
           "output = %s\nproblems = F01\ndims = 1\ntrials = 1\nbudget = 1000\n"
           "[algorithm a]\n",
           tc_path_in("x.csv"));
  write_file(spec, text);
  snprintf(prefix, sizeof prefix, "devo experiment: %s:2:", spec);
  tc_expect_refused(cmd, 2, prefix, "D = 1");
  /* an unwritable output is named with the spec's line */
  write_file(spec, "output = /nonexistent-dir/r.csv\nproblems = sphere\ndims = 5\ntrials = 1\n"
                   "budget = 1000\n[algorithm a]\n");
  snprintf(prefix, sizeof prefix, "devo experiment: %s:1:", spec);
  tc_expect_refused(cmd, 2, prefix, "/nonexistent-dir/r.csv");
  /* a missing spec */
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), tc_path_in("none.spec"));
  tc_expect_refused(cmd, 2, NULL, "none.spec:0:");
}

/* Runs the spec `text` (its output res) and `devo solve ARGS --json`: the results row that
 * starts with `row` (its columns algorithm .. threads) has the error and the evaluations that
 * devo solve printed, bit for bit, and its stop. */
static void row_equals_solve(const char *spec, const char *res, const char *text, const char *row,
                             const char *args)
{
  char cmd[1024], *csv, *out = NULL, *p = NULL, stop[64] = "?";
  const char *q;
  double e_exp = -1.0, e_solve = -2.0;
  long long v_exp = -1, v_solve = -2;
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s 2>/dev/null", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  csv = tc_slurp(res, NULL);
  if (csv && (p = strstr(csv, row)) != NULL) { /* error,evaluations,generations,time,stop */
    e_exp = strtod(p + strlen(row), &p);
    v_exp = strtoll(p + 1, &p, 10);
    if (sscanf(p, ",%*[^,],%*[^,],%63[^,]", stop) != 1)
      stop[0] = 0;
  }
  CHECKF(p != NULL, "no row '%s' in %s", row, csv ? csv : "(none)");
  snprintf(cmd, sizeof cmd, "%s solve %s --json", tc_devo_bin(), args);
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  q = out ? strstr(out, "\"error\":") : NULL;
  CHECK(q && sscanf(q, "\"error\":%lf", &e_solve) == 1);
  q = out ? strstr(out, "\"evaluations\":") : NULL;
  CHECK(q && sscanf(q, "\"evaluations\":%lld", &v_solve) == 1);
  CHECKF(e_exp == e_solve && v_exp == v_solve,
         "experiment %.17g, %lld evaluations; devo solve "
         "%.17g, %lld",
         e_exp, v_exp, e_solve, v_solve);
  snprintf(cmd, sizeof cmd, "\"stop\":\"%s\"", stop);
  CHECKF(out && strstr(out, cmd), "stop %s, devo solve: %s", stop, out ? out : "");
  free(csv);
  free(out);
}

/* The variant keys (preset, strategy over it, a jDE parameter) give the trial that devo solve
 * gives with the same options. */
TEST_CASE(variant_keys_equal_solve)
{
  char text[1024];
  const char *spec = tc_path_in("v.spec"), *res = tc_path_in("v.csv");
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 10\nnp = 20\nseeds = 1\nbudget = 2000\n"
           "[algorithm go]\npreset = gojde\nstrategy = best1exp\njde_tau1 = 0.3\n",
           res);
  row_equals_solve(spec, res, text,
                   "\ngo,preset=gojde;strategy=best1exp;jde_tau1=0.3,sphere,10,20,1,cpu,1,",
                   "--problem sphere --dim 10 --np 20 --max-evals 2000 --seed 1 --algorithm gojde "
                   "--strategy best1exp --jde --jde-tau1 0.3");
}

static int cmp_line(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of a CSV file without its header lines and without columns c1 and c2 (0-based; -1:
 * none), sorted. */
static char *rows_without(const char *path, int c1, int c2)
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
      else if (col == c1 || col == c2)
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

/* The rows of a results file without the wall-time columns (time = 12th, target_time = 14th),
 * sorted: what two runs with the same seeds must agree on (rows come as trials end, so with
 * --jobs above 1 their order may differ). */
static char *rows_without_times(const char *path)
{
  return rows_without(path, 11, 13);
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
  const char *spec = tc_path_in("cut.spec"), *out = tc_path_in("cut.csv");
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
  const char *spec = tc_path_in("int.spec"), *out = tc_path_in("int.csv");
  const char *rspec = tc_path_in("ref.spec"), *rout = tc_path_in("ref.csv");
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
  const char *spec = tc_path_in("csv.spec"), *res = tc_path_in("csv.csv"),
             *tr = tc_path_in("csv-tr.csv");
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
  const char *spec = tc_path_in("tr.spec"), *out = tc_path_in("tr.csv"),
             *tr = tc_path_in("tr-trace.csv");
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
  const char *spec = tc_path_in("ms.spec"), *out = tc_path_in("ms.csv");
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
  const char *spec = tc_path_in("bar.spec"), *out_csv = tc_path_in("bar.csv");
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
  const char *spec = tc_path_in("dry.spec");
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
  const char *spec = tc_path_in("naive.spec");
  const char *csv = tc_path_in("naive.csv");
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

/* ---- one writer per results file ---------------------------------------------------------- */

/* A spec of 20 trials of about 0.1 s each (rastrigin and F03, 10 seeds, 10^5 evaluations). */
static void long_spec(const char *spec, const char *out)
{
  char text[512];
  snprintf(text, sizeof text,
           "output = %s\nproblems = rastrigin F03\ndims = 10\nnp = 50\ntrials = 10\n"
           "budget = 100000\n[algorithm de]\nf = 0.5\n",
           out);
  write_file(spec, text);
}

/* The results at path hold each trial (algorithm, problem, dim, np, seed, backend) once, and
 * `want` of them; devo rank takes the file (it refuses a trial twice). */
static void each_trial_once(const char *path, int want)
{
  char *text = tc_slurp(path, NULL), *line, *save = NULL, **key = calloc(4096, sizeof *key);
  char cmd[1024];
  int n = 0, k;
  CHECK(text && key);
  for (line = text && key ? strtok_r(text, "\n", &save) : NULL; line && n < 4096;
       line = strtok_r(NULL, "\n", &save)) {
    char f[8][64];
    if (line[0] == '#' || strncmp(line, "algorithm,", 10) == 0)
      continue;
    CHECK(sscanf(line, "%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^,]", f[0], f[1], f[2],
                 f[3], f[4], f[5], f[6]) == 7);
    key[n] = malloc(512);
    if (!key[n])
      break;
    snprintf(key[n], 512, "%s,%s,%s,%s,%s,%s", f[0], f[2], f[3], f[4], f[5], f[6]);
    for (k = 0; k < n; ++k)
      CHECKF(strcmp(key[k], key[n]) != 0, "%s: trial %s twice", path, key[n]);
    n++;
  }
  CHECK_EQ_INT(n, want);
  for (k = 0; k < n; ++k)
    free(key[k]);
  free(key);
  free(text);
  snprintf(cmd, sizeof cmd, "%s rank %s >/dev/null", tc_devo_bin(), path);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
}

/* Two runs of one spec on one results file: started together, one runs every trial and the other
 * exits 2 at once with one line naming the holder's pid; started while the first runs, the
 * second refuses while the first goes on. The file ends with each trial once. */
TEST_CASE(one_writer_per_file)
{
  char cmd[2048], *out = NULL, refusal[512];
  const char *spec = tc_path_in("lock.spec"), *res = tc_path_in("lock.csv");
  int r1 = -1, r2 = -1, p1 = 0, p2 = 0;
  long_spec(spec, res);
  snprintf(cmd, sizeof cmd,
           "%s experiment %s 2>%s.e1 & p1=$!; %s experiment %s 2>%s.e2 & p2=$!; wait $p1; r1=$?; "
           "wait $p2; echo $? $r1 $p1 $p2; cat %s.e1 %s.e2",
           tc_devo_bin(), spec, res, tc_devo_bin(), spec, res, res, res);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && sscanf(out, "%d %d %d %d", &r2, &r1, &p1, &p2) == 4, "%s", out ? out : "");
  CHECKF((r1 == 0 && r2 == 2) || (r1 == 2 && r2 == 0), "exit codes %d and %d:\n%s", r1, r2, out);
  snprintf(refusal, sizeof refusal, "devo experiment: %s: in use by process %d ", res,
           r1 == 2 ? p2 : p1);
  CHECKF(out && strstr(out, refusal) && strstr(out, "20 trials done (20 now)"), "no '%s' in\n%s",
         refusal, out ? out : "");
  free(out);
  each_trial_once(res, 20);
  /* a second run while the first is under way: refused, and the first goes on */
  remove(res);
  snprintf(cmd, sizeof cmd,
           "%s experiment %s 2>/dev/null & a=$!; n=0; i=0; while [ $n -lt 5 ] && [ $i -lt 5000 ]; "
           "do sleep 0.005; i=$((i+1)); n=$(cat %s 2>/dev/null | wc -l); done; "
           "%s experiment %s 2>&1; b=$?; r=ended; kill -0 $a 2>/dev/null && r=running; wait $a; "
           "echo \"$b $? $a $r\"",
           tc_devo_bin(), spec, res, tc_devo_bin(), spec);
  out = NULL;
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  {
    const char *last = out ? strrchr(out, '\n') : NULL;
    char state[16] = "";
    while (last && last > out && last[-1] != '\n')
      --last; /* the start of the last line */
    CHECKF(last && sscanf(last, "%d %d %d %15s", &r2, &r1, &p1, state) == 4 && r2 == 2 && r1 == 0 &&
               strcmp(state, "running") == 0,
           "%s", out ? out : "");
    snprintf(refusal, sizeof refusal, "devo experiment: %s: in use by process %d ", res, p1);
    CHECKF(out && strstr(out, refusal), "no '%s' in\n%s", refusal, out ? out : "");
  }
  free(out);
  each_trial_once(res, 20);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  /* the refusal, seen again while nothing else runs: none (the lock went with its process) */
  out = NULL;
  CHECK_EQ_INT(tc_run(cmd, NULL, &out), 0);
  CHECKF(out && strstr(out, "20 trials done (0 now)"), "%s", out ? out : "");
  free(out);
}

/* kill -9 in the middle of a run, then the same command: the lock died with the process (the
 * rerun is not refused), the run resumes, and every trial is in the file once. */
TEST_CASE(kill9_then_resume)
{
  char cmd[2048], *out = NULL, *err = NULL;
  const char *spec = tc_path_in("k9.spec"), *res = tc_path_in("k9.csv");
  long_spec(spec, res);
  snprintf(cmd, sizeof cmd,
           "%s experiment %s 2>/dev/null & a=$!; n=0; i=0; while [ $n -lt 6 ] && [ $i -lt 5000 ]; "
           "do sleep 0.005; i=$((i+1)); n=$(cat %s 2>/dev/null | wc -l); done; kill -9 $a; "
           "wait $a; echo $?",
           tc_devo_bin(), spec, res);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && atoi(out) == 128 + 9, "the run was not killed: %s", out ? out : "");
  free(out);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
  CHECKF(err && strstr(err, "already done, resuming") && !strstr(err, "in use"), "%s",
         err ? err : "");
  free(err);
  each_trial_once(res, 20);
}

/* A file that holds a trial twice (two runs at once before results files were locked): the run
 * counts it once and names both rows, since devo rank refuses the file. */
TEST_CASE(repeated_rows_named)
{
  char cmd[1024], *err = NULL, *text;
  const char *spec = tc_path_in("rep.spec"), *res = tc_path_in("rep.csv");
  FILE *f;
  make_spec(spec, res, NULL, 1);
  /* one job: the rows in the grid's order (line 3 is the first trial, named below) */
  snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 1", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  text = tc_slurp(res, NULL);
  f = fopen(res, "a");
  CHECK(text && f);
  if (text && f) /* line 3, the first trial, again as line 11 */
    fwrite(strchr(strchr(text, '\n') + 1, '\n') + 1, 1,
           (size_t)(strchr(strchr(strchr(text, '\n') + 1, '\n') + 1, '\n') -
                    strchr(strchr(text, '\n') + 1, '\n')),
           f);
  if (f)
    fclose(f);
  free(text);
  CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
  CHECKF(err && strstr(err, ":11: trial de sphere D=10 NP=20 seed 1 cpu again (first at ") &&
             strstr(err, "rep.csv:3)") && strstr(err, "8 trials done (0 now)"),
         "%s", err ? err : "");
  free(err);
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), res);
  tc_expect_refused(cmd, 2, "devo rank: ", "again (first at ");
}

/* The rows of the files paths[0..n) together, as rows_without_times gives them (sorted). */
static char *union_rows(const char *const *paths, int n)
{
  const char *all = tc_path_in("union.csv");
  FILE *f = fopen(all, "w");
  int k;
  CHECK(f != NULL);
  for (k = 0; f && k < n; ++k) {
    char *text = tc_slurp(paths[k], NULL);
    CHECK(text != NULL);
    if (text)
      fputs(text, f);
    free(text);
  }
  if (f)
    fclose(f);
  return rows_without_times(all);
}

/* --shard K/N runs the trials t of the grid with t mod N = K-1 into OUTPUT with .K-of-N before
 * its extension, a "# shard K/N" line under the hash line (results and trace); the N shards
 * together hold each trial once and equal the whole run's rows; a Slurm job array's variables
 * give the shard when --shard is absent; bad values exit 2 naming --shard or the variable. */
TEST_CASE(shards_cover_grid)
{
  char cmd[2048], want[64], spec[256], shard[3][256], *whole, *parts, *text, *err = NULL;
  const char *out = tc_path_in("sh.csv"), *tr = tc_path_in("sh-trace.csv");
  const char *const files[3] = {shard[0], shard[1], shard[2]},
                    *bad[] = {"0/3", "4/3", "1/0", "a/b", "1/3/4", "", "1/100001"};
  const int size[3] = {6, 5, 5}; /* 16 trials: t = 0, 3, .. 15; 1, 4, .. 13; 2, 5, .. 14 */
  int k;
  snprintf(spec, sizeof spec, "%s", tc_path_in("sh.spec")); /* path_in's buffers rotate */
  make_spec(spec, out, tr, 2);
  snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 1", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  whole = rows_without_times(out);
  CHECK(whole && count_char(whole, '\n') == 16);
  /* shard 1 by --shard; 2 by a job array of ids 1..3 (MIN set); 3 by ids from 0 (MIN unset) */
  snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 1 --shard 1/3", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  snprintf(cmd, sizeof cmd,
           "env SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 %s "
           "experiment %s --jobs 1",
           tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  snprintf(cmd, sizeof cmd,
           "env -u SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3 %s "
           "experiment %s --jobs 1",
           tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  for (k = 0; k < 3; ++k) {
    char name[64];
    snprintf(name, sizeof name, "sh.%d-of-3.csv", k + 1);
    snprintf(shard[k], sizeof shard[k], "%s", tc_path_in(name));
    parts = rows_without_times(shard[k]);
    CHECKF(parts && count_char(parts, '\n') == size[k], "shard %d: %s", k + 1, parts);
    free(parts);
    snprintf(want, sizeof want, "\n# shard %d/3\nalgorithm,", k + 1);
    text = tc_slurp(shard[k], NULL);
    CHECKF(text && strncmp(text, "# devo experiment ", 18) == 0 && strstr(text, want), "%s",
           text ? text : "(none)");
    free(text);
    snprintf(name, sizeof name, "sh-trace.%d-of-3.csv", k + 1);
    text = tc_slurp(tc_path_in(name), NULL);
    CHECKF(text && strstr(text, want), "%s: %s", name, text ? text : "(none)");
    free(text);
  }
  parts = union_rows(files, 3);
  CHECKF(whole && parts && strcmp(whole, parts) == 0, "shards:\n%s\nwhole:\n%s", parts, whole);
  free(parts);
  free(whole);
  /* a shard resumes from its own file: nothing left to run */
  snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 1 --shard 3/3", tc_devo_bin(), spec);
  k = tc_run(cmd, NULL, &err);
  CHECKF(k == 0 && err && strstr(err, "5 trials done (0 now)"), "exit %d: %s", k, err ? err : "");
  free(err);
  for (k = 0; k < (int)(sizeof bad / sizeof bad[0]); ++k) {
    snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --shard='%s'", tc_devo_bin(), spec,
             bad[k]);
    snprintf(want, sizeof want, "'%s'", bad[k]);
    tc_expect_refused(cmd, 2, "devo experiment: --shard: ", want);
  }
  snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --shard 17/17", tc_devo_bin(), spec);
  tc_expect_refused(cmd, 2, "devo experiment: --shard: ", "16 trials");
  snprintf(cmd, sizeof cmd,
           "env SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 %s "
           "experiment %s --dry-run",
           tc_devo_bin(), spec);
  tc_expect_refused(cmd, 2, "devo experiment: SLURM_ARRAY_TASK_ID=4 ", "3 tasks");
  snprintf(cmd, sizeof cmd,
           "env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=x %s experiment %s --dry-run",
           tc_devo_bin(), spec);
  tc_expect_refused(cmd, 2, "devo experiment: SLURM_ARRAY_TASK_COUNT ", "'x'");
}

/* ---- MPI: mpirun -np N devo experiment ------------------------------------------------------ */

/* Skips the case unless mpirun is here and the devo under test links an MPI library. */
static void need_mpi(void)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "command -v mpirun && ldd %s | grep -q libmpi", tc_devo_bin());
  if (tc_run(cmd, NULL, NULL) != 0)
    TC_SKIP("no mpirun, or the devo under test was built without MPI");
}

/* "mpirun ... -np N DEVO experiment ARGS" into cmd: as root too, more ranks than cores. */
static void mpirun_cmd(char *cmd, size_t len, int np, const char *args)
{
  snprintf(cmd, len,
           "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -q --oversubscribe "
           "-np %d %s experiment %s",
           np, tc_devo_bin(), args);
}

/* The data rows of a results file, each checked whole (a line end, 15 fields). */
static int whole_rows(const char *path)
{
  char *text = tc_slurp(path, NULL), *p, *nl;
  int n = 0;
  CHECK(text != NULL);
  for (p = text; p && *p; p = nl + 1) {
    nl = strchr(p, '\n');
    CHECKF(nl != NULL, "%s: an unfinished last row: '%s'", path, p);
    if (!nl)
      break;
    *nl = 0;
    if (p[0] == '#' || strncmp(p, "algorithm,", 10) == 0)
      continue;
    CHECKF(count_char(p, ',') == 14, "%s: not a whole row: '%s'", path, p);
    n++;
  }
  free(text);
  return n;
}

/* With 3 ranks and with 2, and with 3 ranks whose workers take units of 2 trials (--jobs 2: two
 * cpu trials at once), the results and the trace hold the rows of one process (wall times aside,
 * in any order), and rank 0 counts every trial; rank 0 alone prints the dry run; a worker's failure
 * (no GPU for the gpu-naive backend) ends the job with one process's exit code and its one line. */
SLOW_CASE(mpi_rows_equal_single)
{
  char cmd[2048], args[1024], spec[256], *one, *many, *tone, *tmany, *out = NULL;
  const char *res = tc_path_in("mpi1.csv"), *tr = tc_path_in("mpi1-trace.csv");
  const char *mres = tc_path_in("mpi-n.csv"), *mtr = tc_path_in("mpi-n-trace.csv");
  int k;
  need_mpi();
  snprintf(spec, sizeof spec, "%s", tc_path_in("mpi1.spec"));
  make_spec(spec, res, tr, 3);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  one = rows_without_times(res);
  tone = rows_without(tr, 7, -1);
  CHECK(one && count_char(one, '\n') == 24 && tone && count_char(tone, '\n') > 24);
  for (k = 0; k < 3; ++k) {
    const int np = k == 1 ? 2 : 3;
    char *err = NULL;
    make_spec(spec, mres, mtr, 3);
    remove(mres);
    remove(mtr);
    snprintf(args, sizeof args, "%s%s", spec, k == 2 ? " --jobs 2" : "");
    mpirun_cmd(cmd, sizeof cmd, np, args);
    CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
    CHECKF(err && strstr(err, "devo experiment: 24/24 "), "-np %d %s: %s", np, args,
           err ? err : "");
    free(err);
    many = rows_without_times(mres);
    tmany = rows_without(mtr, 7, -1);
    CHECKF(one && many && strcmp(one, many) == 0, "-np %d %s:\n%s\none process:\n%s", np, args,
           many, one);
    CHECKF(tone && tmany && strcmp(tone, tmany) == 0, "-np %d %s: the traces differ", np, args);
    free(many);
    free(tmany);
  }
  /* the dry run: printed once, by rank 0 */
  snprintf(args, sizeof args, "%s --dry-run", spec);
  mpirun_cmd(cmd, sizeof cmd, 3, args);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "trials       24 (24 already in ") &&
             !strstr(strstr(out, "trials       24") + 1, "trials       24"),
         "%s", out ? out : "");
  free(out);
  free(one);
  free(tone);
  /* a worker's failure: one process's exit code (1) and its one line */
  if (devo_gpu_available(NULL, 0))
    TC_SKIP("a GPU is usable here: a worker's failure is not tested");
  snprintf(args, sizeof args,
           "output = %s\nproblems = sphere\ndims = 5\nnp = 20\ntrials = 2\nbudget = 1000\n"
           "backend = cpu gpu-naive\n[algorithm de]\n",
           mres);
  write_file(spec, args);
  remove(mres);
  mpirun_cmd(cmd, sizeof cmd, 3, spec);
  tc_expect_refused(cmd, 1, "devo experiment: backend gpu-naive: no CUDA device", "");
}

/* Under mpirun, a results file that holds some rows resumes: only the missing trials run. A
 * worker killed (kill -9) mid-run ends the job; the file holds whole rows, each trial once, and
 * the same command completes it. Each time the rows equal one process's. */
SLOW_CASE(mpi_resume_and_kill9)
{
  char cmd[2048], text[512], want[128], *ref, *got, *err = NULL, *out = NULL;
  const char *spec = tc_path_in("mk.spec"), *res = tc_path_in("mk.csv");
  int rows, k;
  FILE *f;
  need_mpi();
  snprintf(text, sizeof text,
           "output = %s\nproblems = rastrigin F03\ndims = 10\nnp = 50\ntrials = 10\n"
           "budget = 300000\n[algorithm de]\nf = 0.5\n",
           res);
  write_file(spec, text);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  ref = rows_without_times(res);
  CHECK(ref && count_char(ref, '\n') == 20);
  /* the header and the first 7 rows kept: 13 trials run */
  got = tc_slurp(res, NULL);
  f = fopen(res, "w");
  CHECK(got && f);
  for (k = 0, rows = 0; got && f && got[k] && rows < 2 + 7; ++k) { /* 2 header lines */
    fputc(got[k], f);
    rows += got[k] == '\n';
  }
  if (f)
    fclose(f);
  free(got);
  CHECK_EQ_INT(whole_rows(res), 7);
  mpirun_cmd(cmd, sizeof cmd, 3, spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
  CHECKF(err && strstr(err, "7 of 20 trials already done, resuming") &&
             strstr(err, "20 trials done (13 now)"),
         "%s", err ? err : "");
  free(err);
  got = rows_without_times(res);
  CHECKF(ref && got && strcmp(ref, got) == 0, "resumed:\n%s\none process:\n%s", got, ref);
  free(got);
  /* kill -9 of rank 1 (a child of mpirun whose environment says so) after 4 rows */
  remove(res);
  snprintf(cmd, sizeof cmd,
           "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -q --oversubscribe "
           "-np 3 %s experiment %s 2>/dev/null & m=$!; n=0; i=0; while [ $n -lt 6 ] && "
           "[ $i -lt 5000 ]; do sleep 0.005; i=$((i+1)); n=$(cat %s 2>/dev/null | wc -l); done; "
           "for p in $(pgrep -P $m); do grep -qz '^OMPI_COMM_WORLD_RANK=1$' /proc/$p/environ && "
           "kill -9 $p && echo killed; done; wait $m; echo $?",
           tc_devo_bin(), spec, res);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strncmp(out, "killed\n", 7) == 0 && atoi(out + 7) != 0,
         "no worker killed, or the job went on: %s", out ? out : "");
  free(out);
  rows = whole_rows(res);
  CHECKF(rows >= 4 && rows < 20, "%d rows after the kill", rows);
  each_trial_once(res, rows);
  mpirun_cmd(cmd, sizeof cmd, 3, spec);
  err = NULL;
  CHECK_EQ_INT(tc_run(cmd, NULL, &err), 0);
  snprintf(want, sizeof want, "%d of 20 trials already done, resuming", rows);
  CHECKF(err && strstr(err, want), "no '%s' in %s", want, err ? err : "");
  free(err);
  got = rows_without_times(res);
  CHECKF(ref && got && strcmp(ref, got) == 0, "after the kill:\n%s\none process:\n%s", got, ref);
  free(got);
  free(ref);
}

/* A spec of 2 quick trials into res. */
static void two_trials(const char *spec, const char *res)
{
  char text[512];
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 5\nnp = 20\ntrials = 2\nbudget = 1000\n"
           "[algorithm de]\n",
           res);
  write_file(spec, text);
}

/* A launcher's size of 1, or not a number, is no launcher: every build runs as one process. Bad
 * --gpu values: exit 2, one line. */
TEST_CASE(launcher_size_and_gpu_option)
{
  char cmd[2048];
  const char *spec = tc_path_in("ln.spec"), *res = tc_path_in("ln.csv");
  const char *const bad[] = {"-1", "x", "1.5", "1024", ""};
  const char *const one[] = {"OMPI_COMM_WORLD_SIZE=1",
                             "OMPI_COMM_WORLD_SIZE=x PMI_SIZE=", "PMIX_SIZE=0"};
  int k;
  two_trials(spec, res);
  for (k = 0; k < 3; ++k) {
    remove(res);
    snprintf(cmd, sizeof cmd, "env %s %s experiment %s 2>/dev/null", one[k], tc_devo_bin(), spec);
    CHECKF(tc_run(cmd, NULL, NULL) == 0 && whole_rows(res) == 2, "%s", one[k]);
  }
  for (k = 0; k < (int)(sizeof bad / sizeof bad[0]); ++k) {
    snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run --gpu='%s'", tc_devo_bin(), spec, bad[k]);
    tc_expect_refused(cmd, 2, "devo experiment: --gpu ", bad[k]);
  }
}

/* A devo without MPI started as one of several ranks refuses (exit 2, one line, no file), so that
 * N copies never write one file. Only a devo without MPI can show it: with MPI, skipped. */
TEST_CASE(launcher_refused_without_mpi)
{
  char cmd[2048];
  const char *spec = tc_path_in("lr.spec"), *res = tc_path_in("lr.csv");
  snprintf(cmd, sizeof cmd, "ldd %s | grep -q libmpi", tc_devo_bin());
  if (tc_run(cmd, NULL, NULL) == 0)
    TC_SKIP("the devo under test has MPI: its refusal without MPI is not tested");
  two_trials(spec, res);
  snprintf(cmd, sizeof cmd, "env OMPI_COMM_WORLD_SIZE=3 %s experiment %s", tc_devo_bin(), spec);
  tc_expect_refused(
      cmd, 2, "devo experiment: started by mpirun as one of 3 ranks but built without MPI", "");
  CHECK(access(res, F_OK) != 0);
}

/* Every option of `devo solve --help` has a spec key (the line below is accepted by the spec
 * reader: --dry-run exits 0) or a reason not to be one. A new option of devo solve fails this
 * test until it gets a key here (and in cli_spec.c) or a reason. */
static const struct {
  const char *option, *line, *reason; /* line: a spec's lines for the option; "[a]" starts the
                                         algorithm section */
} solve_keys[] = {
    {"--problem", "problems = rastrigin", NULL},
    {"--dim", "dims = 7", NULL},
    {"--data-seed", "data_seed = 3", NULL},
    {"--cec-data", "cec_data = .", NULL},
    {"--lower", "lower = -90", NULL},
    {"--upper", "upper = 90 90 90 90 90", NULL},
    {"--ranges", "ranges = cec2005", NULL},
    {"--np", "np = 30", NULL},
    {"--seed", "seeds = 3 9", NULL},
    {"--max-evals", "budget = 2000", NULL},
    {"--max-gens", "max_gens = 40", NULL},
    {"--target", "target = 1e-6", NULL},
    {"--time-limit", "time_limit = 2", NULL},
    {"--backend", "backend = cpu gpu", NULL},
    {"--gpu-design", "backend = gpu gpu-multikernel gpu-naive", NULL},
    {"--threads", "backend = cpu-ms\nthreads = 2", NULL},
    {"--f", "[a]f = 0.7", NULL},
    {"--cr", "[a]cr = 0.2", NULL},
    {"--bounds", "[a]bounds = reflect", NULL},
    {"--strategy", "[a]strategy = best2exp", NULL},
    {"--algorithm", "[a]preset = shade", NULL},
    {"--jde", "[a]jde = on", NULL},
    {"--jde-tau1", "[a]preset = jde\njde_tau1 = 0.2", NULL},
    {"--jde-tau2", "[a]preset = jde\njde_tau2 = 0.2", NULL},
    {"--jde-fl", "[a]preset = jde\njde_fl = 0.2", NULL},
    {"--jde-fu", "[a]preset = jde\njde_fu = 0.5", NULL},
    {"--jde-crl", "[a]preset = jde\njde_cru = 0.5\njde_crl = 0.1", NULL},
    {"--jde-cru", "[a]preset = jde\njde_cru = 0.5", NULL},
    {"--gobl", "[a]gobl = 0.1", NULL},
    {"--pbest", "[a]preset = jade\npbest = 0.1", NULL},
    {"--archive-rate", "[a]preset = shade\narchive_rate = 2", NULL},
    {"--memory-size", "[a]preset = shade\nmemory_size = 10", NULL},
    {"--jade-c", "[a]preset = jade\njade_c = 0.2", NULL},
    {"--np-min", "[a]preset = lshade\nnp_min = 5", NULL},
    {"--islands", "[a]islands = 2", NULL},
    {"--migration-interval", "[a]islands = 2\nmigration_interval = 5", NULL},
    {"--topology", "[a]islands = 2\ntopology = full", NULL},
    {"--json", NULL, "the output of one run: a study writes its results CSV (and its trace)"},
    {"--print-x", NULL, "the output of one run: the results hold each trial's error"},
    {"--verbose", NULL, "the output of one run: the spec and --dry-run say the configuration"},
    {"--quiet", NULL, "the output of one run: devo experiment draws its own progress"},
    {"--help", NULL, "not a setting"},
    {"--version", NULL, "not a setting"},
};

TEST_CASE(spec_keys_cover_solve_options)
{
  char cmd[1024], *help = NULL, *p, opt[64], text[1024], *out = NULL, spec[256], res[256];
  const int n = (int)(sizeof solve_keys / sizeof solve_keys[0]);
  int k, walked = 0;
  snprintf(spec, sizeof spec, "%s", tc_path_in("keys.spec")); /* path_in's buffers rotate */
  snprintf(res, sizeof res, "%s", tc_path_in("keys.csv"));
  snprintf(cmd, sizeof cmd, "%s solve --help", tc_devo_bin());
  CHECK_EQ_INT(tc_run(cmd, &help, NULL), 0);
  for (p = help ? strstr(help, "--") : NULL; p; p = strstr(p + 2, "--")) {
    size_t len = 2;
    while (p[len] == '-' || (p[len] >= 'a' && p[len] <= 'z') || (p[len] >= '0' && p[len] <= '9'))
      ++len;
    if (len == 2 || len >= sizeof opt)
      continue;
    memcpy(opt, p, len);
    opt[len] = 0;
    for (k = 0; k < n && strcmp(solve_keys[k].option, opt) != 0; ++k)
      ;
    CHECKF(k < n, "devo solve %s has no spec key and no reason in test_experiment.c", opt);
    if (k == n || !solve_keys[k].line)
      continue;
    /* the key's lines on the grid of a spec that does not set them otherwise */
    {
      const char *line = solve_keys[k].line, *algo = strncmp(line, "[a]", 3) == 0 ? line + 3 : "";
      const char *grid = algo[0] ? "" : line;
      snprintf(text, sizeof text, "output = %s\n%s%s%s%s%s\n[algorithm a]\n%s\n", res,
               strstr(grid, "problems") ? "" : "problems = sphere\n",
               strstr(grid, "dims") ? "" : "dims = 5\n", strstr(grid, "seeds") ? "" : "seeds = 1\n",
               strstr(grid, "budget") ? "" : "budget = 1000\n", grid, algo);
    }
    write_file(spec, text);
    snprintf(cmd, sizeof cmd, "%s experiment %s --dry-run", tc_devo_bin(), spec);
    out = NULL;
    CHECKF(tc_run(cmd, NULL, &out) == 0, "%s: the spec key is refused: %s\n%s", opt, out ? out : "",
           text);
    free(out);
    walked++;
  }
  CHECK(walked >= 30);
  free(help);
}

/* The box keys (ranges, lower, upper as one value or one per coordinate) and max_gens give the
 * trial that devo solve gives with --ranges, --lower, --upper and --max-gens: the same error,
 * evaluations and stop, bit for bit; a bad box is refused with the key's line. */
TEST_CASE(box_keys_equal_solve)
{
  char text[1024];
  const char *spec = tc_path_in("box.spec"), *res = tc_path_in("box.csv");
  snprintf(text, sizeof text,
           "output = %s\nproblems = rastrigin\ndims = 3\nnp = 20\nseeds = 4\nbudget = 5000\n"
           "max_gens = 60\nranges = cec2005\nlower = -5, -4.5, -4\n[algorithm de]\n"
           "bounds = clip\n",
           res);
  row_equals_solve(spec, res, text, "\nde,bounds=clip,rastrigin,3,20,4,cpu,1,",
                   "--problem rastrigin --dim 3 --np 20 --seed 4 --max-evals 5000 --max-gens 60 "
                   "--ranges cec2005 --lower=-5,-4.5,-4 --bounds clip");
  /* one box for every coordinate, and the upper side alone */
  snprintf(text, sizeof text,
           "output = %s\nproblems = sphere\ndims = 4\nnp = 20\nseeds = 2\nbudget = 3000\n"
           "upper = 60\n[algorithm de]\n",
           res);
  remove(res);
  row_equals_solve(spec, res, text, "\nde,,sphere,4,20,2,cpu,1,",
                   "--problem sphere --dim 4 --np 20 --seed 2 --max-evals 3000 --upper 60");
  refused_at("lower = -1 -2", 6, "lower: 2 values, but D = 5");
  refused_at("upper = x", 6, "upper: 'x' is not a finite number");
  refused_at("ranges = cec2013", 6, "ranges: unknown value 'cec2013'");
  refused_at("lower = 10", 6, "excludes the optimum of sphere");
  refused_at("max_gens = 0", 6, "max_gens");
  refused_at("backend = gpu\nlower = -100 -90 -80 -70 -60", 7, "per-coordinate bounds run on");
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(spec_errors),
                                  TC(shards_cover_grid),
                                  TC(one_writer_per_file),
                                  TC(kill9_then_resume),
                                  TC(repeated_rows_named),
                                  TC(spec_keys_cover_solve_options),
                                  TC(box_keys_equal_solve),
                                  TC(variant_keys_equal_solve),
                                  TC(resume_after_cut_row),
                                  TC(resume_after_sigint),
                                  TC(trace_ends_at_row),
                                  TC(master_slave_equals_cpu),
                                  TC(progress_bar_and_lines),
                                  TC(dry_run_and_protocol),
                                  TC(naive_backend),
                                  TC(resume_reads_csv),
                                  TC(mpi_rows_equal_single),
                                  TC(mpi_resume_and_kill9),
                                  TC(launcher_size_and_gpu_option),
                                  TC(launcher_refused_without_mpi)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
