/* SPDX-License-Identifier: MIT */
/* test_rank.c: `devo rank` against SciPy 1.10 (Debian python3-scipy) on fixed data: U-scores,
 * two-sided Mann-Whitney U (exact and normal, with ties), Friedman chi-square, p and mean ranks;
 * bad rows refused with file:row (exit 2); the results read as CSV (quoting, CRLF); the shards of
 * a run (devo experiment --shard) ranked only all together.
 *
 * How the expected values were made: the results files below are written from the arrays of
 * this file; SciPy ranked the same trials by a number that orders them as devo rank does,
 * goodness = 1e6 - target_time for a trial that reached the target, -error for the others
 * (every time is below 1e6), with
 *   r = scipy.stats.rankdata(concatenate of all algorithms' goodness on the function)
 *   U-score of an algorithm = sum of its r - n (n + 1) / 2
 *   scipy.stats.mannwhitneyu(good_A, good_B, alternative='two-sided', method='auto')
 *     -> (statistic = U(A), pvalue)
 *   scipy.stats.friedmanchisquare(U_a, U_b, U_c) over the functions -> (statistic, pvalue)
 * in Python 3 with numpy and scipy.stats imported, the arrays copied from this file (p2 as
 * pairs (error, target_time or None)), values printed with repr(float(...)):
 *   def good(fn, a): return (np.array([1e6 - t if t is not None else -e for e, t in p2[a]])
 *                            if fn == 'p2' else -np.array((p1 if fn == 'p1' else p3)[a]))
 *   allg = np.concatenate([good(fn, a) for a in 'abc']); r = rankdata(allg)
 *   U[fn, a] = r[i:i + n].sum() - n * (n + 1) / 2   (i: the offset of a's n trials) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"

static const char *const header =
    "# devo experiment 0.1.0 spec=test hash=0000000000000000\n"
    "algorithm,params,problem,dim,np,seed,backend,threads,error,evaluations,generations,time,"
    "stop,target_time,target_evals\n";

/* Data set 1: algorithms a, b, c on p1 (errors only, ties), p2 (some trials reached the target:
 * their target_time; NAN = did not), p3 (5, 7 and 6 trials, no ties: exact test). */
static const double p1[3][10] = {{0.5, 0.25, 1.0, 0.5, 2.0, 0.125, 0.75, 3.0, 0.5, 1.5},
                                 {1.0, 2.0, 4.0, 0.5, 3.0, 2.5, 1.0, 5.0, 6.0, 1.75},
                                 {0.25, 0.125, 0.0625, 0.5, 0.375, 1.0, 0.0, 0.0, 0.3125, 0.4375}};
static const double p2_err[3][10] = {{1e-9, 1e-9, 0.5, 2e-9, 1e-9, 3.0, 1e-9, 1e-9, 0.25, 5e-9},
                                     {1e-9, 0.125, 0.25, 1e-9, 4.0, 1e-9, 2.0, 1e-9, 1e-9, 1.0},
                                     {1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 0.5, 1e-9, 1e-9, 1e-9, 1e-9}};
#define NO NAN
static const double p2_tt[3][10] = {
    {0.5, 0.25, NO, 0.75, 1.25, NO, 0.5, 2.0, NO, 1.0},
    {1.5, NO, NO, 0.5, NO, 3.0, NO, 2.5, 1.75, NO},
    {0.125, 0.0625, 0.25, 0.375, 0.5, NO, 0.1875, 0.3125, 0.4375, 0.0078125}};
static const double p3a[] = {3.5, 1.25, 7.0, 2.0, 9.5};
static const double p3b[] = {4.0, 8.0, 6.5, 10.0, 12.0, 5.5, 11.0};
static const double p3c[] = {0.5, 1.0, 1.5, 2.5, 3.0, 4.5};

static void row(FILE *f, const char *alg, const char *prob, int seed, double err, double tt)
{
  if (isnan(tt))
    fprintf(f, "%s,f=0.5,%s,10,20,%d,cpu,1,%.17g,1000,50,9,DEVO_EVAL_LIMIT,,\n", alg, prob, seed,
            err);
  else
    fprintf(f, "%s,f=0.5,%s,10,20,%d,cpu,1,%.17g,1000,50,%.17g,DEVO_TARGET_REACHED,%.17g,1000\n",
            alg, prob, seed, err, tt, tt);
}

static const char *write_set1(void)
{
  const char *path = tc_path_in("set1.csv");
  static const char *const alg[3] = {"a", "b", "c"};
  FILE *f = fopen(path, "w");
  int a, k;
  CHECK(f != NULL);
  if (!f)
    return path;
  fputs(header, f);
  for (a = 0; a < 3; ++a) {
    const double *p3 = a == 0 ? p3a : a == 1 ? p3b : p3c;
    const int n3 = a == 0 ? 5 : a == 1 ? 7 : 6;
    for (k = 0; k < 10; ++k)
      row(f, alg[a], "p1", k + 1, p1[a][k], NO);
    for (k = 0; k < 10; ++k)
      row(f, alg[a], "p2", k + 1, p2_err[a][k], p2_tt[a][k]);
    for (k = 0; k < n3; ++k)
      row(f, alg[a], "p3", k + 1, p3[k], NO);
  }
  fclose(f);
  return path;
}

/* The value of "table,function,algorithm,other,stat," in devo rank's CSV output, or NAN. */
static double value(const char *out, const char *key)
{
  char pat[256];
  const char *p;
  snprintf(pat, sizeof pat, "\n%s,", key);
  p = strstr(out, pat);
  return p ? strtod(p + strlen(pat), NULL) : (double)NAN;
}

static char *rank_csv(const char *path)
{
  char cmd[512], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s rank %s --format csv", tc_devo_bin(), path);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  return out;
}

#define EXPECT(out, key, v)                                                                        \
  do {                                                                                             \
    const double got_ = value(out, key), want_ = (v);                                              \
    CHECKF(fabs(got_ - want_) <= 1e-12 * fabs(want_) + 1e-300, "%s: %.17g, SciPy %.17g", key,      \
           got_, want_);                                                                           \
  } while (0)

TEST_CASE(uscore_against_scipy)
{
  char *out = rank_csv(write_set1());
  CHECK(out != NULL);
  if (!out)
    return;
  /* U from rankdata as in the file's comment */
  EXPECT(out, "uscore,p1,a,,u", 99.5);
  EXPECT(out, "uscore,p1,b,,u", 21.0);
  EXPECT(out, "uscore,p1,c,,u", 179.5);
  EXPECT(out, "uscore,p2,a,,u", 84.5);
  EXPECT(out, "uscore,p2,b,,u", 37.0);
  EXPECT(out, "uscore,p2,c,,u", 178.5);
  EXPECT(out, "uscore,p3,a,,u", 36.0);
  EXPECT(out, "uscore,p3,b,,u", 8.0);
  EXPECT(out, "uscore,p3,c,,u", 63.0);
  EXPECT(out, "uscore,total,a,,u", 99.5 + 84.5 + 36.0);
  EXPECT(out, "uscore,total,c,,rank", 1);
  EXPECT(out, "uscore,total,a,,rank", 2);
  EXPECT(out, "uscore,total,b,,rank", 3);
  EXPECT(out, "uscore,p1,b,,rank", 3);
  free(out);
}

TEST_CASE(mannwhitney_against_scipy)
{
  char *out = rank_csv(write_set1());
  CHECK(out != NULL);
  if (!out)
    return;
  /* mannwhitneyu(good(fn, x), good(fn, y), alternative='two-sided', method='auto'):
   * p1 and p2 have ties (normal approximation), p3 has none and samples <= 8 (exact) */
  EXPECT(out, "mwu,p1,a,b,u1", 81.5);
  EXPECT(out, "mwu,p1,a,b,p", 0.018393316403655127);
  EXPECT(out, "mwu,p1,a,c,u1", 18.0);
  EXPECT(out, "mwu,p1,a,c,p", 0.01667445200296233);
  EXPECT(out, "mwu,p1,b,c,u1", 2.5);
  EXPECT(out, "mwu,p1,b,c,p", 0.00036957562700866523);
  EXPECT(out, "mwu,p2,a,b,u1", 70.5);
  EXPECT(out, "mwu,p2,a,b,p", 0.1298464263339688);
  EXPECT(out, "mwu,p2,a,c,u1", 14.0);
  EXPECT(out, "mwu,p2,a,c,p", 0.007153311639923335);
  EXPECT(out, "mwu,p2,b,c,u1", 7.5);
  EXPECT(out, "mwu,p2,b,c,p", 0.0014927163774879203);
  EXPECT(out, "mwu,p3,a,b,u1", 28.0);
  EXPECT(out, "mwu,p3,a,b,p", 0.10606060606060606);
  EXPECT(out, "mwu,p3,a,c,u1", 8.0);
  EXPECT(out, "mwu,p3,a,c,p", 0.24675324675324672);
  EXPECT(out, "mwu,p3,b,c,u1", 1.0);
  EXPECT(out, "mwu,p3,b,c,p", 0.002331002331002331);
  EXPECT(out, "mwu,p1,a,b,exact", 0);
  EXPECT(out, "mwu,p3,a,b,exact", 1);
  /* friedmanchisquare(U_a, U_b, U_c) over p1, p2, p3 */
  EXPECT(out, "friedman,,,,chi2", 6.0);
  EXPECT(out, "friedman,,,,p", 0.04978706836786395);
  EXPECT(out, "friedman,,,,df", 2);
  free(out);
}

/* No ties, samples of 9 and 10 (> 8): the normal approximation without a tie term.
 *   a = [0.31, 0.82, 0.15, 0.67, 0.44, 0.93, 0.28, 0.59, 0.71]
 *   b = [0.52, 0.97, 0.86, 0.39, 0.77, 1.12, 0.64, 0.88, 1.05, 0.73]
 *   mannwhitneyu(-np.array(a), -np.array(b), alternative='two-sided', method='auto')
 *   -> (69.0, 0.055013832353979004) */
TEST_CASE(mannwhitney_normal_no_ties)
{
  static const double a[] = {0.31, 0.82, 0.15, 0.67, 0.44, 0.93, 0.28, 0.59, 0.71};
  static const double b[] = {0.52, 0.97, 0.86, 0.39, 0.77, 1.12, 0.64, 0.88, 1.05, 0.73};
  const char *path = tc_path_in("set2.csv");
  FILE *f = fopen(path, "w");
  char *out;
  int k;
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(header, f);
  for (k = 0; k < 9; ++k)
    row(f, "a", "p4", k + 1, a[k], NO);
  for (k = 0; k < 10; ++k)
    row(f, "b", "p4", k + 1, b[k], NO);
  fclose(f);
  out = rank_csv(path);
  if (!out)
    return;
  EXPECT(out, "mwu,p4,a,b,u1", 69.0);
  EXPECT(out, "mwu,p4,a,b,p", 0.055013832353979004);
  EXPECT(out, "mwu,p4,a,b,exact", 0);
  free(out);
}

/* Friedman with ties in blocks and df = 3: 4 algorithms x 5 functions, one trial each (so the
 * U-score is the rank within the function minus 1):
 *   fr = {'q1': [1, 2, 3, 4], 'q2': [2, 2, 1, 5], 'q3': [4, 1, 3, 2], 'q4': [3, 3, 3, 1],
 *         'q5': [1.5, 2.5, 0.5, 3.5]}   (errors of w, x, y, z)
 *   friedmanchisquare(*[[-fr[f][i] for f in fr] for i in range(4)])
 *   -> (1.2666666666666673, 0.7370632079087256)
 *   mean ranks (1 = best): (5 - rankdata(-errors)) averaged -> [2.5, 2.3, 2.2, 3.0] */
TEST_CASE(friedman_against_scipy)
{
  static const double e[5][4] = {
      {1, 2, 3, 4}, {2, 2, 1, 5}, {4, 1, 3, 2}, {3, 3, 3, 1}, {1.5, 2.5, 0.5, 3.5}};
  static const char *const alg[4] = {"w", "x", "y", "z"};
  const char *path = tc_path_in("set3.csv");
  FILE *f = fopen(path, "w");
  char prob[8], *out;
  int q, a;
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(header, f);
  for (q = 0; q < 5; ++q)
    for (a = 0; a < 4; ++a) {
      snprintf(prob, sizeof prob, "q%d", q + 1);
      row(f, alg[a], prob, 1, e[q][a], NO);
    }
  fclose(f);
  out = rank_csv(path);
  if (!out)
    return;
  EXPECT(out, "friedman,,,,chi2", 1.2666666666666673);
  EXPECT(out, "friedman,,,,p", 0.7370632079087256);
  EXPECT(out, "friedman,,,,df", 3);
  EXPECT(out, "friedman,,w,,mean_rank", 2.5);
  EXPECT(out, "friedman,,x,,mean_rank", 2.3);
  EXPECT(out, "friedman,,y,,mean_rank", 2.2);
  EXPECT(out, "friedman,,z,,mean_rank", 3.0);
  free(out);
}

/* A file whose lines from 4 on are `bad` (after the comment, the header and one good row) is
 * refused with file:at: and word. */
static void bad_row_at(const char *bad, const char *at, const char *word)
{
  const char *path = tc_path_in("bad.csv");
  char cmd[512], prefix[300];
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(header, f);
  row(f, "a", "p1", 1, 0.5, NO);
  fprintf(f, "%s", bad);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), path);
  snprintf(prefix, sizeof prefix, "devo rank: %s:%s:", path, at);
  tc_expect_refused(cmd, 2, prefix, word);
}

static void bad_row(const char *bad, const char *word)
{
  bad_row_at(bad, "4", word);
}

TEST_CASE(bad_rows_refused)
{
  const char *path;
  char cmd[512], prefix[300];
  FILE *f;
  bad_row("b,f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,\n", "14 fields");
  bad_row("b,f=0.5,p1,10,20,1,cpu,1,abc,1000,50,9,DEVO_EVAL_LIMIT,,\n", "error 'abc'");
  bad_row("b,f=0.5,p1,10,20,1,cpu,1,nan,1000,50,9,DEVO_EVAL_LIMIT,,\n", "error 'nan'");
  bad_row("b,f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_TARGET_REACHED,-1,\n", "target_time");
  bad_row("b,f=0.5,p1,x,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,\n", "dim 'x'");
  bad_row("b,f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,soon,DEVO_EVAL_LIMIT,,\n", "time 'soon'");
  bad_row("b,f=0.5,p1,10,0,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,\n", "np '0'");
  bad_row(",f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,\n", "empty");
  bad_row("b\"x,f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,\n", "malformed CSV");
  bad_row("b,f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,", "unfinished");
  /* an algorithm without trials on a function: the file and both are named */
  path = tc_path_in("gap.csv");
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(header, f);
    row(f, "a", "p1", 1, 0.5, NO);
    row(f, "b", "p2", 1, 0.5, NO);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), path);
  snprintf(prefix, sizeof prefix, "devo rank: %s: b has no trials on p1", path);
  tc_expect_refused(cmd, 2, prefix, "incomplete");
  path = tc_path_in("nohead.csv");
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("algorithm,problem,dim\na,p1,10\n", f);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), path);
  snprintf(prefix, sizeof prefix, "devo rank: %s:1:", path);
  tc_expect_refused(cmd, 2, prefix, "no column 'np'");
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), tc_path_in("missing.csv"));
  tc_expect_refused(cmd, 2, NULL, "missing.csv");
}

/* --models: mean wall time per trial per backend and function, and the speedup against cpu.
 * By hand: on p1, cpu times 1, 2, 3 -> mean 2; gpu 0.25, 0.15 -> 0.2, speedup 10; cpu-ms 0.5 ->
 * speedup 4; on p2, cpu 6 -> 6; gpu 2 -> speedup 3; cpu-ms 1, 2 -> 1.5, speedup 4. */
TEST_CASE(models_table)
{
  static const struct {
    const char *prob, *bk;
    double time;
  } r[] = {{"p1", "cpu", 1},    {"p1", "cpu", 2},      {"p1", "cpu", 3}, {"p1", "gpu", 0.25},
           {"p1", "gpu", 0.15}, {"p1", "cpu-ms", 0.5}, {"p2", "cpu", 6}, {"p2", "gpu", 2},
           {"p2", "cpu-ms", 1}, {"p2", "cpu-ms", 2}};
  const char *path = tc_path_in("models.csv");
  char cmd[512], *out = NULL;
  FILE *f = fopen(path, "w");
  size_t k;
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(header, f);
  for (k = 0; k < sizeof r / sizeof r[0]; ++k)
    fprintf(f, "de,f=0.5,%s,10,20,%d,%s,1,0.5,1000,50,%.17g,DEVO_EVAL_LIMIT,,\n", r[k].prob,
            (int)k + 1, r[k].bk, r[k].time);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s rank %s --models --format csv", tc_devo_bin(), path);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  if (!out)
    return;
  EXPECT(out, "models,p1,de/NP=20,cpu,mean_time", 2.0);
  EXPECT(out, "models,p1,de/NP=20,gpu,mean_time", 0.2);
  EXPECT(out, "models,p1,de/NP=20,gpu,speedup", 10.0);
  EXPECT(out, "models,p1,de/NP=20,cpu-ms,speedup", 4.0);
  EXPECT(out, "models,p2,de/NP=20,cpu,mean_time", 6.0);
  EXPECT(out, "models,p2,de/NP=20,gpu,speedup", 3.0);
  EXPECT(out, "models,p2,de/NP=20,cpu-ms,mean_time", 1.5);
  EXPECT(out, "models,p2,de/NP=20,cpu-ms,speedup", 4.0);
  free(out);
  snprintf(cmd, sizeof cmd, "%s rank %s --models", tc_devo_bin(), path);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "| model | p1 | p2 |") && strstr(out, "| cpu | 2 | 6 |") &&
             strstr(out, "| gpu | 0.2 (x10) | 2 (x3) |"),
         "%s", out);
  free(out);
}

/* The file at src copied to dst with every `from` replaced by `to`. */
static void copy_edit(const char *src, const char *dst, const char *from, const char *to)
{
  char *text = tc_slurp(src, NULL), *p, *q;
  FILE *f = fopen(dst, "w");
  CHECK(text && f);
  if (!text || !f) {
    free(text);
    if (f)
      fclose(f);
    return;
  }
  for (p = text; (q = strstr(p, from)) != NULL; p = q + strlen(from)) {
    fwrite(p, 1, (size_t)(q - p), f);
    fputs(to, f);
  }
  fputs(p, f);
  fclose(f);
  free(text);
}

/* The results are CSV as libcsv reads it: CRLF line ends give the same ranking as LF, a quoted
 * algorithm name may hold a comma (and comes out quoted in the CSV output), a quoted field may
 * span lines, and the rows after it are still named by their physical line. */
TEST_CASE(csv_quoting_and_line_ends)
{
  const char *set1 = write_set1(), *crlf = tc_path_in("crlf.csv"),
             *quoted = tc_path_in("quoted.csv");
  char cmd[512], *lf_out = NULL, *out = NULL, *q_out = NULL, *md_out = NULL;
  snprintf(cmd, sizeof cmd, "%s rank %s --format csv", tc_devo_bin(), set1);
  CHECK_EQ_INT(tc_run(cmd, &lf_out, NULL), 0);
  copy_edit(set1, crlf, "\n", "\r\n");
  snprintf(cmd, sizeof cmd, "%s rank %s --format csv", tc_devo_bin(), crlf);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(lf_out && out && strcmp(lf_out, out) == 0, "CRLF:\n%s\nLF:\n%s", out, lf_out);
  free(out);
  copy_edit(set1, quoted, "\nb,", "\n\"b,2\",");
  snprintf(cmd, sizeof cmd, "%s rank %s --format csv", tc_devo_bin(), quoted);
  CHECK_EQ_INT(tc_run(cmd, &q_out, NULL), 0);
  if (q_out && lf_out) {
    const double u = value(lf_out, "uscore,p1,b,,u"), r = value(lf_out, "uscore,total,b,,rank");
    const double p = value(lf_out, "mwu,p3,a,b,p"), m = value(lf_out, "friedman,,b,,mean_rank");
    EXPECT(q_out, "uscore,p1,\"b,2\",,u", u);
    EXPECT(q_out, "uscore,total,\"b,2\",,rank", r);
    EXPECT(q_out, "mwu,p3,a,\"b,2\",p", p);
    EXPECT(q_out, "friedman,,\"b,2\",,mean_rank", m);
    CHECK(strstr(q_out, "\nuscore,p1,b,") == NULL);
  }
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), quoted);
  CHECK_EQ_INT(tc_run(cmd, &md_out, NULL), 0);
  CHECKF(md_out && strstr(md_out, "| b,2 |"), "%s", md_out ? md_out : "");
  /* a missing column names the row, with CRLF too */
  bad_row("a,f=0.5,p1,10,20,2,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,\r\n",
          "14 fields, the header has 15");
  /* a quoted name over lines 4 and 5: the short row after it is line 6 */
  bad_row_at("\"b\nc\",f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,\n"
             "b,f=0.5,p1,10,20,2,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT\n",
             "6", "13 fields");
  /* a quote left open names where the input ends */
  bad_row_at("\"b,f=0.5,p1,10,20,1,cpu,1,0.5,1000,50,9,DEVO_EVAL_LIMIT,,\n", "5:1",
             "inside a quoted field (of the row of line 4)");
  free(lf_out);
  free(q_out);
  free(md_out);
}

/* Markdown: the U-scores, Friedman and the count of the pairs' results by default; every test
 * with --pairs (set 1: 3 pairs on 3 functions), whose rows the counts agree with. */
TEST_CASE(markdown_output)
{
  char cmd[512], *out = NULL;
  const char *set1 = write_set1();
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), set1);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "| c | 179.5 (1) | 178.5 (1) | 63 (1) | 421 | 1 |") &&
             strstr(out, "chi2 = 6, df = 2, p = 0.04979") &&
             strstr(out, "## Mann-Whitney U, two-sided, per function: 9 tests") &&
             strstr(out, "| algorithm | better | no difference | worse |") &&
             strstr(out, "Every test: --pairs.") && !strstr(out, "| p3 | a | b |"),
         "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s rank %s --pairs", tc_devo_bin(), set1);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "| p3 | a | b | 28 | 5 x 7 | 0.1061 | exact | - |") &&
             strstr(out, "| p1 | b | c | 2.5 | 10 x 10 | 0.0003696 | normal | c |") &&
             strstr(out, "chi2 = 6, df = 2, p = 0.04979") && !strstr(out, "Every test: --pairs."),
         "%s", out);
  if (out) { /* the summary counts the table's rows: each test once for each of its two sides */
    int better[3] = {0}, same[3] = {0}, worse[3] = {0}, k, n = 0;
    char want[128];
    const char *p = strstr(out, "|---|---|---|---:|---:|---:|---|---|\n");
    char f[16], a[16], b[16], m[16], best[16];
    double u, pv;
    int na, nb;
    while (p && (p = strchr(p, '\n')) &&
           sscanf(p + 1, "| %15s | %15s | %15s | %lf | %d x %d | %lf | %15s | %15s |", f, a, b, &u,
                  &na, &nb, &pv, m, best) == 9) {
      const int i = a[0] - 'a', j = b[0] - 'a';
      if (best[0] == '-')
        same[i]++, same[j]++;
      else
        better[best[0] - 'a']++, worse[best[0] - 'a' == i ? j : i]++;
      n++;
      p++;
    }
    CHECK_EQ_INT(n, 9);
    for (k = 0; k < 3; ++k) {
      snprintf(want, sizeof want, "| %c | %d | %d | %d |", 'a' + k, better[k], same[k], worse[k]);
      CHECKF(strstr(out, want) != NULL, "no summary row %s in\n%s", want, out);
    }
  }
  free(out);
  /* --pairs is the Markdown of a ranking: not with --models */
  snprintf(cmd, sizeof cmd, "%s rank %s --pairs --models", tc_devo_bin(), set1);
  tc_expect_refused(cmd, 2, "devo rank: --pairs", "--models");
}

/* The heading says how the trials that reached the target were ordered, under each --tiebreak;
 * the U-scores follow it (set 1's p2: times and evaluations order the trials differently when
 * the evaluations column is rewritten). */
TEST_CASE(headings_follow_tiebreak)
{
  char cmd[512], *out = NULL;
  const char *set1 = write_set1();
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), set1);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, "reached the target rank above the others, by time; the others by "
                            "error."),
         "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s rank %s --tiebreak time", tc_devo_bin(), set1);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, ", by time; the others by error."), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s rank %s --tiebreak evals", tc_devo_bin(), set1);
  CHECK_EQ_INT(tc_run(cmd, &out, NULL), 0);
  CHECKF(out && strstr(out, ", by evaluations (--tiebreak evals); the others by error.") &&
             !strstr(out, "by time"),
         "%s", out);
  free(out);
}

/* The rows of set 1 (after its two header lines) split into two part files, each with the
 * header; first_line replaces the hash line of the second part when not NULL. */
static void split_set1(const char *a, const char *b, int at, const char *first_line)
{
  char *text = tc_slurp(write_set1(), NULL), *line, *save = NULL;
  FILE *fa = fopen(a, "w"), *fb = fopen(b, "w");
  int n = 0;
  CHECK(text && fa && fb);
  for (line = text ? strtok_r(text, "\n", &save) : NULL; fa && fb && line;
       line = strtok_r(NULL, "\n", &save), ++n) {
    if (n == 0) {
      fprintf(fa, "%s\n", line);
      fprintf(fb, "%s\n", first_line ? first_line : line);
    } else if (n == 1) {
      fprintf(fa, "%s\n", line);
      fprintf(fb, "%s\n", line);
    } else
      fprintf(n - 2 < at ? fa : fb, "%s\n", line);
  }
  if (fa)
    fclose(fa);
  if (fb)
    fclose(fb);
  free(text);
}

/* A trial twice (same algorithm, NP, backend, problem, D, seed) is refused naming both rows; the
 * parts of one study (the same spec hash) rank as the whole file; a part of another spec, or one
 * that names no spec, is refused naming the files. */
TEST_CASE(repeats_and_parts)
{
  const char *whole = write_set1();
  char a[256], b[256], dup[256], cmd[1024], prefix[600], *one = NULL, *two = NULL;
  FILE *f;
  snprintf(a, sizeof a, "%s", tc_path_in("part-a.csv"));
  snprintf(b, sizeof b, "%s", tc_path_in("part-b.csv"));
  snprintf(dup, sizeof dup, "%s", tc_path_in("dup.csv"));
  /* b's seed 3 on p1 (line 30) again as the last line, 81 */
  {
    char *text = tc_slurp(whole, NULL);
    f = fopen(dup, "w");
    CHECK(text && f);
    if (text && f) {
      fputs(text, f);
      row(f, "b", "p1", 3, 0.125, NO);
    }
    if (f)
      fclose(f);
    free(text);
  }
  snprintf(cmd, sizeof cmd, "%s rank %s", tc_devo_bin(), dup);
  snprintf(prefix, sizeof prefix,
           "devo rank: %s:81: trial b p1 D=10 NP=20 seed 3 cpu again (first at %s:30)", dup, dup);
  tc_expect_refused(cmd, 2, prefix, "a trial twice");
  /* every row twice: refused, not ranked as half as many trials */
  snprintf(cmd, sizeof cmd, "%s rank %s %s", tc_devo_bin(), whole, whole);
  snprintf(prefix, sizeof prefix,
           "devo rank: %s:3: trial a p1 D=10 NP=20 seed 1 cpu again (first at %s:3)", whole, whole);
  tc_expect_refused(cmd, 2, prefix, "twice");
  /* two parts of one study: the ranking of the whole */
  split_set1(a, b, 40, NULL);
  snprintf(cmd, sizeof cmd, "%s rank %s --format csv", tc_devo_bin(), whole);
  CHECK_EQ_INT(tc_run(cmd, &one, NULL), 0);
  snprintf(cmd, sizeof cmd, "%s rank %s %s --format csv", tc_devo_bin(), a, b);
  CHECK_EQ_INT(tc_run(cmd, &two, NULL), 0);
  CHECKF(one && two && strcmp(one, two) == 0, "parts:\n%s\nwhole:\n%s", two, one);
  free(one);
  free(two);
  snprintf(cmd, sizeof cmd, "%s rank %s %s", tc_devo_bin(), a, b);
  CHECK_EQ_INT(tc_run(cmd, &two, NULL), 0);
  snprintf(prefix, sizeof prefix, "# Ranking of %s, %s\n\n3 algorithms, 3 functions, 78 trials.", a,
           b);
  CHECKF(two && strstr(two, prefix), "%s", two);
  free(two);
  /* a part written by another spec */
  split_set1(a, b, 40, "# devo experiment 0.1.0 spec=other hash=00000000000000ff");
  snprintf(cmd, sizeof cmd, "%s rank %s %s", tc_devo_bin(), a, b);
  snprintf(prefix, sizeof prefix, "devo rank: %s and %s are not parts of one study", a, b);
  tc_expect_refused(cmd, 2, prefix, "hash 0000000000000000 and 00000000000000ff");
  /* a part that names no spec (a CSV without devo experiment's first line) */
  split_set1(a, b, 40, "# made by hand");
  snprintf(prefix, sizeof prefix, "devo rank: %s:1: no '# devo experiment ... hash=' first line",
           b);
  tc_expect_refused(cmd, 2, prefix, "parts of a study");
}

/* The shards of one run (devo experiment --shard K/N) rank together exactly as the whole run,
 * byte for byte; a missing shard (named), a shard twice, shards of two counts N, a shard of
 * another spec and a whole run among shards are refused (exit 2). */
TEST_CASE(shards_rank_as_whole)
{
  char spec[256], out[256], sh[3][256], other[256], cmd[2048], prefix[600];
  char *one = NULL, *three = NULL;
  FILE *f;
  int k;
  snprintf(spec, sizeof spec, "%s", tc_path_in("run.spec")); /* path_in's buffers rotate */
  snprintf(out, sizeof out, "%s", tc_path_in("run.csv"));
  f = fopen(spec, "w");
  CHECK(f != NULL);
  if (f) {
    fprintf(f,
            "output = %s\nproblems = sphere rastrigin\ndims = 5\nnp = 20\ntrials = 3\n"
            "budget = 300*D\n[algorithm de]\nf = 0.5\n[algorithm low-cr]\ncr = 0.2\n",
            out);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 1", tc_devo_bin(), spec);
  CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  for (k = 0; k < 3; ++k) {
    char name[32];
    snprintf(name, sizeof name, "run.%d-of-3.csv", k + 1);
    snprintf(sh[k], sizeof sh[k], "%s", tc_path_in(name));
    snprintf(cmd, sizeof cmd, "%s experiment %s --jobs 1 --shard %d/3", tc_devo_bin(), spec, k + 1);
    CHECK_EQ_INT(tc_run(cmd, NULL, NULL), 0);
  }
  one = rank_csv(out);
  snprintf(cmd, sizeof cmd, "%s rank %s %s %s --format csv", tc_devo_bin(), sh[2], sh[0], sh[1]);
  CHECK_EQ_INT(tc_run(cmd, &three, NULL), 0);
  CHECKF(one && three && strcmp(one, three) == 0, "shards:\n%s\nwhole:\n%s", three, one);
  free(one);
  free(three);
  /* shard 2 missing */
  snprintf(cmd, sizeof cmd, "%s rank %s %s", tc_devo_bin(), sh[0], sh[2]);
  tc_expect_refused(cmd, 2, "devo rank: shard 2 of 3 missing", "every shard");
  /* shard 1 twice */
  snprintf(cmd, sizeof cmd, "%s rank %s %s %s %s", tc_devo_bin(), sh[0], sh[1], sh[2], sh[0]);
  snprintf(prefix, sizeof prefix, "devo rank: %s:2: shard 1/3 again (first in %s)", sh[0], sh[0]);
  tc_expect_refused(cmd, 2, prefix, "a shard twice");
  /* a shard of another count */
  snprintf(other, sizeof other, "%s", tc_path_in("run.2-of-4.csv"));
  copy_edit(sh[1], other, "# shard 2/3", "# shard 2/4");
  snprintf(cmd, sizeof cmd, "%s rank %s %s %s", tc_devo_bin(), sh[0], other, sh[2]);
  snprintf(prefix, sizeof prefix, "devo rank: %s:2: shard 2/4, but %s is a shard of 3", other,
           sh[0]);
  tc_expect_refused(cmd, 2, prefix, "one count");
  /* a shard of another spec */
  copy_edit(sh[1], other, " hash=", " hash=f");
  snprintf(cmd, sizeof cmd, "%s rank %s %s %s", tc_devo_bin(), sh[0], other, sh[2]);
  snprintf(prefix, sizeof prefix, "devo rank: %s and %s are not parts of one study", sh[0], other);
  tc_expect_refused(cmd, 2, prefix, "different specs");
  /* the whole run among shards: no shard line, and every trial again */
  copy_edit(out, other, "\n# shard", "\n# shard"); /* a plain copy */
  snprintf(cmd, sizeof cmd, "%s rank %s %s", tc_devo_bin(), sh[0], other);
  tc_expect_refused(cmd, 2, "devo rank: ", "again");
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {
      TC(uscore_against_scipy),   TC(mannwhitney_against_scipy), TC(mannwhitney_normal_no_ties),
      TC(friedman_against_scipy), TC(bad_rows_refused),          TC(models_table),
      TC(markdown_output),        TC(csv_quoting_and_line_ends), TC(headings_follow_tiebreak),
      TC(repeats_and_parts),      TC(shards_rank_as_whole)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
