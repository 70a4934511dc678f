/* SPDX-License-Identifier: MIT */
/* test_cli.c: the devo program seen from outside: exit codes (0 ok, 2 bad usage or input), one
 * clear line per error, --help/--version, and the solve command's outputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcheck.h"

/* Runs `devo ARGS`, checks the exit code, that stderr is exactly one line, and that it contains
 * the expected word. */
static void expect_error(const char *args, int code, const char *word)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s", tc_devo_bin(), args);
  tc_expect_refused(cmd, code, NULL, word);
}

TEST_CASE(bad_usage_exits_2)
{
  const char *base = "solve --problem sphere --dim 10 --max-evals 1000";
  char a[512];
  expect_error("frobnicate", 2, "unknown command");
  expect_error("", 2, "a command is needed");
  expect_error("solve --problem nosuch --dim 10", 2, "nosuch");
  expect_error("solve --problem sphere --dim 10 --bogus 3", 2, "--bogus");
  expect_error("solve --problem sphere --dim 10 --np", 2, "needs a value");
  expect_error("solve --dim 10", 2, "--problem");
  expect_error("solve --problem sphere", 2, "--dim");
  snprintf(a, sizeof a, "%s --np 3", base);
  expect_error(a, 2, "population size 3");
  snprintf(a, sizeof a, "%s --np abc", base);
  expect_error(a, 2, "abc");
  snprintf(a, sizeof a, "%s --f 0", base);
  expect_error(a, 2, "F = 0");
  snprintf(a, sizeof a, "%s --f -1", base);
  expect_error(a, 2, "F = -1");
  snprintf(a, sizeof a, "%s --f nan", base);
  expect_error(a, 2, "--f");
  snprintf(a, sizeof a, "%s --f inf", base);
  expect_error(a, 2, "--f");
  snprintf(a, sizeof a, "%s --cr 1.5", base);
  expect_error(a, 2, "CR = 1.5");
  snprintf(a, sizeof a, "%s --cr -0.1", base);
  expect_error(a, 2, "CR");
  expect_error("solve --problem sphere --dim 0 --max-evals 100", 2, "dimension 0");
  /* found in review: a negative --dim was "required", seeds were octal or hex, an F just above
   * 2 was printed as 2, and a too large integer was "not an integer" */
  expect_error("solve --problem sphere --dim -1 --max-evals 100", 2, "dimension -1");
  expect_error("eval --problem sphere --dim -1", 2, "-1");
  snprintf(a, sizeof a, "%s --seed 0x8", base);
  expect_error(a, 2, "decimal");
  snprintf(a, sizeof a, "%s --seed 010", base);
  expect_error(a, 2, "leading zeros");
  snprintf(a, sizeof a, "%s --seed ' 1'", base);
  expect_error(a, 2, "decimal");
  snprintf(a, sizeof a, "%s --seed -1", base);
  expect_error(a, 2, "--seed");
  snprintf(a, sizeof a, "%s --f 2.0000001", base);
  expect_error(a, 2, "F = 2.0000000999");
  expect_error("solve --problem sphere --dim 10 --max-evals 1e19", 2, "out of range");
  /* a bad option is reported before the problem's data is made (F10's at D = 2000 took 61 s:
   * timeout would exit 124) */
  {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "timeout 20 %s solve --problem F10 --dim 2000 --np 3", tc_devo_bin());
    CHECK(tc_run(cmd, NULL, NULL) == 2);
  }
  expect_error("solve --problem sphere --dim 10000001 --max-evals 100", 2, "10000001");
  expect_error("solve --problem sphere --dim 99999999999 --max-evals 100", 2, "--dim");
  snprintf(a, sizeof a, "%s --time-limit -1", base);
  expect_error(a, 2, "--time-limit");
  snprintf(a, sizeof a, "%s --time-limit nan", base);
  expect_error(a, 2, "--time-limit");
  snprintf(a, sizeof a, "%s --backend cpu --gpu-design multikernel", base);
  expect_error(a, 2, "contradicts");
  snprintf(a, sizeof a, "%s --backend gpu --threads 4", base);
  expect_error(a, 2, "contradicts");
  expect_error("solve --problem sphere --dim 10 --np 100 --max-evals 50", 2,
               "below the population");
  snprintf(a, sizeof a, "%s --bounds wrap", base);
  expect_error(a, 2, "wrap");
  snprintf(a, sizeof a, "%s --max-evals 0", base);
  expect_error(a, 2, "--max-evals");
  snprintf(a, sizeof a, "%s --seed -4", base);
  expect_error(a, 2, "--seed");
  snprintf(a, sizeof a, "%s extra", base);
  expect_error(a, 2, "extra");
}

TEST_CASE(help_and_version)
{
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s --version", tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECK(out && strncmp(out, "devo 0.", 7) == 0);
  free(out);
  snprintf(cmd, sizeof cmd, "%s --help", tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECK(out && strstr(out, "solve") && strstr(out, "schedule"));
  free(out);
  snprintf(cmd, sizeof cmd, "%s solve --help", tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECK(out && strstr(out, "--time-limit") && strstr(out, "--max-evals"));
  free(out);
  snprintf(cmd, sizeof cmd, "%s", tc_devo_bin());
  CHECK(tc_run(cmd, NULL, NULL) == 2);
}

static double json_number(const char *json, const char *key)
{
  char pat[64];
  const char *p;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  p = strstr(json, pat);
  return p ? strtod(p + strlen(pat), NULL) : (double)NAN;
}

/* The example of issue 2 runs, and --json carries the same numbers and the vector. */
TEST_CASE(solve_outputs)
{
  char cmd[1024], *out = NULL, *x;
  int commas = 0;
  snprintf(cmd, sizeof cmd,
           "%s solve --problem rastrigin --dim 30 --np 100 --f 0.5 --cr 0.3 --max-evals 300000 "
           "--target 1e-8 --time-limit 2.5 --seed 7 --threads 2 --json",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECK(out != NULL);
  CHECK(strstr(out, "\"stop\":\"DEVO_") != NULL);
  CHECK(json_number(out, "evaluations") <= 300000);
  CHECK(json_number(out, "best") >= 0.0);
  x = strstr(out, "\"x\":[");
  CHECK(x != NULL);
  for (; x && *x && *x != ']'; ++x)
    commas += *x == ',';
  CHECK(commas == 29);
  free(out);
  snprintf(cmd, sizeof cmd,
           "%s solve --problem sphere --dim 30 --np 100 --f 0.5 --cr 0.9 --max-evals 300000 "
           "--target 1e-8 --seed 3 --print-x",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECK(out && strstr(out, "target value reached") && strstr(out, "x  "));
  free(out);
}

/* --target E stops only at an error (best - f*, as printed) <= E, also for E below f*'s
 * rounding (found in review: E = 3e-14 at f* = 300 stopped at 5.7e-14). */
TEST_CASE(target_error_within_e)
{
  char cmd[1024], *out = NULL;
  const double es[3] = {3e-14, 1e-13, 1e-8};
  int k;
  for (k = 0; k < 3; ++k) {
    snprintf(cmd, sizeof cmd,
             "%s solve --problem F01 --dim 10 --np 50 --target %g --max-gens 100000 --json",
             tc_devo_bin(), es[k]);
    CHECK(tc_run(cmd, &out, NULL) == 0);
    CHECK(out && strstr(out, "DEVO_TARGET_REACHED"));
    CHECKF(json_number(out, "error") <= es[k], "E = %g: error %.17g", es[k],
           json_number(out, "error"));
    free(out);
  }
}

/* A run ended by its time limit is a success (exit 0) with the time-limit reason, and the
 * process ends within the library's promise, limit + max(1 ms, 1% of the limit), plus one stated
 * allowance of 5 ms for what lies outside the solve's clock: the shell, exec and loading of the
 * program (1.7 to 2 ms measured on the 2-core development machine), making the problem and the
 * exit. Measured around the command; every run not preempted (children included) must keep it;
 * fewer than 3 such runs: skipped as inconclusive. */
TIMED_CASE(time_limit_exit_0)
{
  char cmd[1024];
  tc_deadline d =
      tc_deadline_init("devo solve --time-limit 0.2, whole process", 0.001, 0.01, 0.005, 3);
  int k;
  d.busy = 1; /* one solver thread; the shell and the start-up are short */
  snprintf(cmd, sizeof cmd,
           "%s solve --problem rastrigin --dim 500 --np 500 --max-evals 1e9 --time-limit 0.2 "
           "--threads 1 --json",
           tc_devo_bin());
  for (k = 0; k < 15 && !(tc_deadline_enough(&d) && k >= 5); ++k) {
    char *out = NULL;
    tc_mark m = tc_mark_now();
    const int rc = tc_run(cmd, &out, NULL);
    tc_deadline_add(&d, m, 0.2);
    CHECK(rc == 0);
    CHECK(out && strstr(out, "DEVO_TIME_LIMIT"));
    free(out);
  }
  tc_deadline_end(&d);
}

/* An answer that cannot be written is a failure (exit 1), and an --out file appears whole or
 * not at all (found in review: output to a full disk exited 0, and a write cut short by a file
 * size limit left half a file behind). An unwritable --out fails before the search. */
TEST_CASE(output_failures_exit_1)
{
  const char *src = getenv("DEVO_SOURCE"), *bin = tc_devo_bin();
  char cmd[2048], in[1024], *out = NULL, *err = NULL, *text;
  FILE *f;
  if (!src)
    TC_SKIP("DEVO_SOURCE is not set (run through ctest)");
  snprintf(in, sizeof in, "%s/etc_data/512x16/u_c_hihi.csv", src);
  f = fopen("/dev/full", "w");
  if (f) {
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s schedule %s --time-limit 0.05 > /dev/full", bin, in);
    CHECK(tc_run(cmd, NULL, &err) == 1);
    CHECK(err && strstr(err, "cannot write the output"));
    free(err);
    snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim 2 --max-evals 100 > /dev/full", bin);
    CHECK(tc_run(cmd, NULL, NULL) == 1);
    snprintf(cmd, sizeof cmd, "%s list-problems > /dev/full", bin);
    CHECK(tc_run(cmd, NULL, NULL) == 1);
  }
  /* a file size limit of 1 KB (SIGXFSZ ignored, so the write fails with EFBIG): exit 1, no
   * file, and an older file of that name untouched */
  remove("cli_out_half.csv");
  snprintf(cmd, sizeof cmd,
           "trap '' XFSZ; ulimit -f 1; %s schedule %s --time-limit 0.05 --out cli_out_half.csv",
           bin, in);
  CHECK(tc_run(cmd, NULL, NULL) == 1);
  CHECK((f = fopen("cli_out_half.csv", "r")) == NULL);
  if (f)
    fclose(f);
  f = fopen("cli_out_half.csv", "w");
  CHECK(f != NULL);
  fputs("old\n", f);
  fclose(f);
  CHECK(tc_run(cmd, NULL, NULL) == 1);
  text = tc_slurp("cli_out_half.csv", NULL);
  CHECK(text && strcmp(text, "old\n") == 0);
  free(text);
  /* a complete run replaces it */
  snprintf(cmd, sizeof cmd, "%s schedule %s --time-limit 0.05 --out cli_out_half.csv", bin, in);
  CHECK(tc_run(cmd, &out, NULL) == 0);
  free(out);
  text = tc_slurp("cli_out_half.csv", NULL);
  CHECK(text && strncmp(text, "0,", 2) == 0 && strstr(text, "\n511,"));
  free(text);
  remove("cli_out_half.csv");
  /* an --out in a missing directory: exit 1 at once, not after a 30 s search */
  snprintf(cmd, sizeof cmd, "%s schedule %s --time-limit 30 --out /nonexistent-devo-dir/x.csv", bin,
           in);
  CHECK(tc_run(cmd, &out, &err) == 1);
  CHECK(out && out[0] == 0);
  CHECK(err && strstr(err, "/nonexistent-devo-dir/x.csv"));
  free(out);
  free(err);
}

/* devo eval's rows end at LF, CRLF or a CR alone (found in review: CR-only rows were one row,
 * the error named its second field), and long valid numbers are read. */
TEST_CASE(eval_line_ends_and_long_numbers)
{
  const char *bin = tc_devo_bin();
  char cmd[1024], *out = NULL, *err = NULL;
  snprintf(cmd, sizeof cmd, "printf '1,2\\r3,x\\r' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &out, &err) == 2);
  CHECKF(err && strstr(err, "<stdin>:2:2:"), "stderr '%s'", err ? err : "");
  CHECK(out && out[0] == 0);
  free(out);
  free(err);
  /* the same values as with LF line ends, and a 73-character number as its short form */
  snprintf(cmd, sizeof cmd, "printf '1,2\\r3,4\\r' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &out, NULL) == 0);
  snprintf(cmd, sizeof cmd, "printf '1,2\\n3,4\\n' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &err, NULL) == 0);
  CHECKF(out && err && strcmp(out, err) == 0 && strchr(out, '\n') != strrchr(out, '\n'),
         "'%s' vs '%s'", out ? out : "", err ? err : "");
  free(out);
  free(err);
  snprintf(cmd, sizeof cmd, "printf '0.%%070d1,3\\n' 0 | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &out, NULL) == 0);
  snprintf(cmd, sizeof cmd, "printf '1e-71,3\\n' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &err, NULL) == 0);
  CHECKF(out && err && out[0] && strcmp(out, err) == 0, "'%s' vs '%s'", out ? out : "",
         err ? err : "");
  free(out);
  free(err);
}

static int count_lines(const char *s)
{
  int n = 0;
  for (; *s; ++s)
    n += *s == '\n';
  return n;
}

/* devo eval reads its rows as CSV (libcsv): quoted fields and CRLF line ends give the values of
 * plain ones; a quoted comma is inside its field; a missing or a malformed field names its row
 * and column. */
TEST_CASE(eval_csv_quoting)
{
  const char *bin = tc_devo_bin();
  char cmd[1024], *plain = NULL, *out = NULL, *err = NULL;
  snprintf(cmd, sizeof cmd, "printf '1,2\\n3,4\\n' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &plain, NULL) == 0);
  snprintf(cmd, sizeof cmd,
           "printf '\"1\", 2\\r\\n\\r\\n3,\"4\"\\r\\n' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECKF(plain && out && strcmp(plain, out) == 0 && count_lines(out) == 2, "'%s' vs '%s'",
         out ? out : "", plain ? plain : "");
  free(plain);
  free(out);
  snprintf(cmd, sizeof cmd, "printf '1,2\\n\"3,5\",4\\n' | %s eval --problem sphere --dim 2 -",
           bin);
  CHECK(tc_run(cmd, NULL, &err) == 2);
  CHECKF(err && strstr(err, "<stdin>:2:1: '3,5' is not a finite number"), "%s", err ? err : "");
  free(err);
  snprintf(cmd, sizeof cmd, "printf '1,2\\r\\n3\\r\\n' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, NULL, &err) == 2);
  CHECKF(err && strstr(err, "<stdin>:2:2: expected 2 numbers, found 1"), "%s", err ? err : "");
  free(err);
  snprintf(cmd, sizeof cmd, "printf '1,2\"3\\n' | %s eval --problem sphere --dim 2 -", bin);
  CHECK(tc_run(cmd, NULL, &err) == 2);
  CHECKF(err && strstr(err, "<stdin>:1:4: malformed CSV"), "%s", err ? err : "");
  free(err);
}

static const tc_case cases[] = {TC(bad_usage_exits_2),      TC(help_and_version),
                                TC(solve_outputs),          TC(time_limit_exit_0),
                                TC(output_failures_exit_1), TC(eval_line_ends_and_long_numbers),
                                TC(eval_csv_quoting),       TC(target_error_within_e)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
