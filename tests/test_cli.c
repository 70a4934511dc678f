/* SPDX-License-Identifier: MIT */
/* test_cli.c: the devo program seen from outside: exit codes (0 ok, 2 bad usage or input), one
 * clear line per error, --help/--version, the solve command's outputs, and the progress line on
 * a terminal; the same command-line promises of the other programs (etc-gen, bench/'s benchmark
 * programs). */
#define _DEFAULT_SOURCE /* openpty */
#include <errno.h>
#include <math.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/include/devo.h"
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
  CHECK(out && strstr(out, "--time-limit") && strstr(out, "--max-evals") && strstr(out, "--quiet"));
  free(out);
  snprintf(cmd, sizeof cmd, "%s schedule --help", tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0);
  CHECK(out && strstr(out, "--quiet"));
  free(out);
  snprintf(cmd, sizeof cmd, "%s", tc_devo_bin());
  CHECK(tc_run(cmd, NULL, NULL) == 2);
}

/* The commands that `devo --help` lists (its "commands:" block), as malloc'd "name\0name\0\0"
 * with their count in *n, or NULL. */
static char *listed_commands(int *n)
{
  char cmd[1024], *out = NULL, *list, *p, *q;
  size_t len = 0;
  *n = 0;
  snprintf(cmd, sizeof cmd, "%s --help", tc_devo_bin());
  if (tc_run(cmd, &out, NULL) != 0 || !out || !(p = strstr(out, "\ncommands:\n"))) {
    free(out);
    return NULL;
  }
  list = calloc(strlen(p) + 2, 1);
  for (p = strchr(p + 1, '\n') + 1; list && strncmp(p, "  ", 2) == 0; p = strchr(p, '\n') + 1) {
    p += 2;
    for (q = p; *q && *q != ' '; ++q)
      list[len++] = *q;
    list[len++] = 0;
    ++*n;
  }
  free(out);
  return list;
}

/* Every command answers --version as devo does (README: every program does), wherever it stands
 * before "--"; `devo` alone is one usage line naming every command of the build. */
TEST_CASE(every_command_answers_version)
{
  char cmd[1024], *version = NULL, *out = NULL, *err = NULL, *names, *c;
  int n = 0, k;
  snprintf(cmd, sizeof cmd, "%s --version", tc_devo_bin());
  CHECK(tc_run(cmd, &version, NULL) == 0 && version && strncmp(version, "devo 0.", 7) == 0);
  names = listed_commands(&n);
  CHECKF(names && n >= 6, "devo --help lists %d commands", n);
  for (c = names, k = 0; names && k < n; c += strlen(c) + 1, ++k) {
    snprintf(cmd, sizeof cmd, "%s %s --version", tc_devo_bin(), c);
    CHECKF(tc_run(cmd, &out, &err) == 0, "'%s' did not exit 0: %s", cmd, err ? err : "");
    CHECKF(out && version && strcmp(out, version) == 0, "'%s' printed '%s'", cmd, out ? out : "");
    CHECKF(err && err[0] == 0, "'%s' wrote '%s' on stderr", cmd, err ? err : "");
    free(out);
    free(err);
  }
  /* after other options too; a --help before it, and "--", keep their meaning */
  snprintf(cmd, sizeof cmd, "%s solve --problem sphere --version", tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out && version && strcmp(out, version) == 0);
  free(out);
  snprintf(cmd, sizeof cmd, "%s rank --help --version", tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out && strncmp(out, "usage: devo rank", 16) == 0);
  free(out);
  expect_error("rank -- --version", 2, "--version");
  /* devo alone: the usage error names every command, serve too where it is built */
  snprintf(cmd, sizeof cmd, "%s", tc_devo_bin());
  CHECK(tc_run(cmd, &out, &err) == 2);
  for (c = names, k = 0; names && err && k < n; c += strlen(c) + 1, ++k) {
    char word[64];
    snprintf(word, sizeof word, " %s", c);
    CHECKF(strstr(err, word), "'devo' alone does not name %s: %s", c, err);
  }
  tc_expect_refused(cmd, 2, "devo: a command is needed", "see devo --help");
  free(out);
  free(err);
  free(names);
  free(version);
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
 * process ends within the library's promise, limit + max(1 ms, 1% of the limit), plus an
 * allowance for what lies outside the solve's clock: the program's start-up and exit, measured
 * here (the median of 5 runs of devo --version through the same shell and pipes, 6 to 7 ms on
 * the 2-core development machine), and 3 ms for making the problem, writing the answer and the
 * machine's noise. The start-up is measured, not assumed: 2 ms of it were assumed once, but the
 * program alone now takes 4 ms to start and exit there (perf stat; /bin/true 0.5 ms), most of it
 * the loader's and the kernel's work on 24 shared libraries (MPI's, and GnuTLS under
 * libmicrohttpd), and a clean run under SCHED_FIFO ended 9.9 ms late in CI. Measured
 * around the command; every run not preempted (children included) must keep it; fewer than 3
 * such runs: skipped as inconclusive. */
TIMED_CASE(time_limit_exit_0)
{
  char cmd[1024];
  double up[5];
  int k;
  tc_deadline d;
  snprintf(cmd, sizeof cmd, "%s --version", tc_devo_bin());
  for (k = 0; k < 5; ++k) {
    const double t0 = tc_now();
    CHECK(tc_run(cmd, NULL, NULL) == 0);
    up[k] = tc_now() - t0;
  }
  d = tc_deadline_init("devo solve --time-limit 0.2, whole process", 0.001, 0.01,
                       tc_median(up, 5) + 0.003, 3);
  printf("  start-up and exit of devo --version: %.3f ms (median of 5)\n", tc_median(up, 5) * 1e3);
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

/* Runs the shell command cmd with stderr on a pseudo-terminal (output post-processing off, so
 * the bytes arrive as written) and stdout in a file: the exit code (-1 when it could not run),
 * *term what reached the terminal and *out stdout, both malloc'd. */
static int run_on_pty(const char *cmd, char **term, char **out)
{
  char tmpo[] = "/tmp/devo_tc_ptyXXXXXX", buf[4096];
  struct termios tio;
  size_t len = 0, cap = 1;
  int master, slave, fo, status;
  pid_t pid;
  *term = *out = NULL;
  if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
    return -1;
  if (tcgetattr(slave, &tio) == 0) {
    tio.c_oflag &= ~(tcflag_t)OPOST;
    tcsetattr(slave, TCSANOW, &tio);
  }
  if ((fo = mkstemp(tmpo)) < 0 || (pid = fork()) < 0) {
    close(master);
    close(slave);
    return -1;
  }
  if (pid == 0) {
    dup2(slave, STDERR_FILENO);
    dup2(fo, STDOUT_FILENO);
    close(master);
    close(slave);
    close(fo);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  close(slave);
  close(fo);
  *term = (char *)calloc(1, cap);
  for (;;) { /* until the last holder of the terminal's other end is gone (EIO) */
    ssize_t r = read(master, buf, sizeof buf);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    if (*term && len + (size_t)r + 1 > cap) {
      char *t = (char *)realloc(*term, cap = 2 * (len + (size_t)r + 1));
      if (!t)
        free(*term);
      *term = t;
    }
    if (*term) {
      memcpy(*term + len, buf, (size_t)r);
      len += (size_t)r;
      (*term)[len] = 0;
    }
  }
  close(master);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  *out = tc_slurp(tmpo, NULL);
  unlink(tmpo);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The counts after "\r<word> " (or "  <word> " in a line that starts after a "\r") on the
 * terminal: how many redraws showed one, and whether each was larger than the one before. */
static int progress_counts(const char *term, const char *word, int *increasing)
{
  char pat[32];
  const char *line = term;
  long long prev = -1;
  int n = 0;
  *increasing = 1;
  snprintf(pat, sizeof pat, "%s ", word);
  while ((line = strchr(line, '\r')) != NULL) {
    const char *end = strchr(line + 1, '\r'), *w = strstr(line + 1, pat);
    line++;
    if (!w || (end && w > end))
      continue;
    {
      const long long v = strtoll(w + strlen(pat), NULL, 10);
      *increasing = *increasing && v > prev;
      prev = v;
      n++;
    }
  }
  return n;
}

/* The text without its lines that start with prefix (the times of a run). */
static void drop_lines(char *text, const char *prefix)
{
  char *p = text;
  while (p && *p) {
    char *nl = strchr(p, '\n');
    if (strncmp(p, prefix, strlen(prefix)) == 0)
      memmove(p, nl ? nl + 1 : p + strlen(p), strlen(nl ? nl + 1 : p + strlen(p)) + 1);
    else
      p = nl ? nl + 1 : NULL;
  }
}

/* devo solve on a terminal redraws one progress line (\r, clear to the end) a few times a second
 * with the evaluations growing, and clears it at the end; --quiet, or stderr not a terminal, shows
 * none; the results on stdout are the same in all three. */
TEST_CASE(solve_progress_line)
{
  char cmd[1024], *term = NULL, *out = NULL, *qterm = NULL, *qout = NULL, *fout = NULL;
  char *ferr = NULL;
  int inc = 0, n;
  snprintf(cmd, sizeof cmd, "%s solve --problem rastrigin --dim 30 --max-evals 1500000 --seed 3",
           tc_devo_bin());
  CHECK(run_on_pty(cmd, &term, &out) == 0);
  CHECK(term && out);
  if (!term || !out)
    return;
  n = progress_counts(term, "evals", &inc);
  CHECKF(n >= 2 && inc, "%d redraws (increasing %d): '%s'", n, inc, term);
  CHECK(strstr(term, "/ 1500000 (") && strstr(term, "error ") && strstr(term, " left\033[K"));
  n = (int)strlen(term);
  CHECKF(n >= 4 && strcmp(term + n - 4, "\r\033[K") == 0, "the line is not cleared: '%s'", term);
  /* --quiet: nothing on the terminal */
  snprintf(cmd, sizeof cmd,
           "%s solve --problem rastrigin --dim 30 --max-evals 1500000 --seed 3 --quiet",
           tc_devo_bin());
  CHECK(run_on_pty(cmd, &qterm, &qout) == 0);
  CHECKF(qterm && qterm[0] == 0, "--quiet wrote '%s'", qterm ? qterm : "");
  /* stderr to a file: nothing there */
  snprintf(cmd, sizeof cmd, "%s solve --problem rastrigin --dim 30 --max-evals 1500000 --seed 3",
           tc_devo_bin());
  CHECK(tc_run(cmd, &fout, &ferr) == 0);
  CHECKF(ferr && ferr[0] == 0, "stderr not a terminal: '%s'", ferr ? ferr : "");
  CHECK(qout && fout);
  if (qout && fout) {
    drop_lines(out, "elapsed ");
    drop_lines(qout, "elapsed ");
    drop_lines(fout, "elapsed ");
    CHECK(strstr(out, "evaluations  1500000\n") != NULL);
    CHECKF(strcmp(out, qout) == 0 && strcmp(out, fout) == 0, "'%s' / '%s' / '%s'", out, qout, fout);
  }
  free(term);
  free(out);
  free(qterm);
  free(qout);
  free(fout);
  free(ferr);
}

/* devo schedule above 2 s on a terminal: the line (elapsed / limit, best, steps growing) before
 * the summary, which starts on a cleared line; the schedule is the same with --quiet (--steps
 * makes it repeatable), which shows none, as a limit of 2 s shows none. */
TEST_CASE(schedule_progress_line)
{
  const char *in = tc_shared("etc_data/braun/u_c_hihi.0");
  char cmd[2048], *term = NULL, *out = NULL, *qterm = NULL, *qout = NULL;
  int inc = 0, n;
  if (!in)
    TC_SKIP("no etc_data/braun/u_c_hihi.0");
  snprintf(cmd, sizeof cmd,
           "%s schedule %s --objective makespan --steps 5000 --chains 4 --time-limit 60",
           tc_devo_bin(), in);
  CHECK(run_on_pty(cmd, &term, &out) == 0);
  CHECK(term && out);
  if (!term || !out)
    return;
  n = progress_counts(term, "steps", &inc);
  CHECKF(n >= 2 && inc, "%d redraws (increasing %d): '%s'", n, inc, term);
  CHECK(strstr(term, " / 60.0 s  best ") != NULL);
  CHECKF(strstr(term, "\r\033[Ktasks        512\n") != NULL, "'%s'", term);
  CHECK(strstr(term, "stop         DEVO_OK") != NULL);
  strcat(cmd, " --quiet");
  CHECK(run_on_pty(cmd, &qterm, &qout) == 0);
  CHECKF(qterm && strncmp(qterm, "tasks ", 6) == 0 && !strchr(qterm, '\r'), "--quiet: '%s'",
         qterm ? qterm : "");
  CHECK(qout && strstr(out, "\n511,") && strcmp(out, qout) == 0);
  free(term);
  free(out);
  free(qterm);
  free(qout);
  snprintf(cmd, sizeof cmd, "%s schedule %s --time-limit 2 --steps 300 --objective makespan",
           tc_devo_bin(), in);
  CHECK(run_on_pty(cmd, &term, &out) == 0);
  CHECKF(term && strncmp(term, "tasks ", 6) == 0 && !strchr(term, '\r'), "2 s: '%s'",
         term ? term : "");
  free(term);
  free(out);
}

/* ---- the other programs ------------------------------------------------------------------ */

/* Every program with a main of its own beside devo (tools/etc_gen.c, bench/'s *.c). */
static const char *const progs[] = {"etc-gen",        "bench-cec",    "bench-cpu",   "bench-etc",
                                    "bench-gpu",      "bench-gpu-ls", "bench-ls",    "bench-read",
                                    "bench-sched",    "bench-serve",  "bench-shade", "bench-soco",
                                    "bench-variants", "soco-table"};

/* A program's path: ctest names only the devo program (DEVO_BIN), and CMake builds every program
 * into the same folder (the benchmarks with the tests), so it is looked for next to that one. */
static const char *prog_path(const char *name)
{
  static char path[4096];
  const char *devo = tc_devo_bin(), *slash = strrchr(devo, '/');
  const int dir = slash ? (int)(slash - devo) + 1 : 0;
  if (snprintf(path, sizeof path, "%.*s%s", dir, devo, name) >= (int)sizeof path)
    TC_SKIP("the path of DEVO_BIN is too long");
  if (access(path, X_OK) != 0)
    TC_SKIP("a program is missing next to DEVO_BIN (built without the benchmarks?)");
  return path;
}

/* Runs `prog ARGS` under timeout(1) where there is one (an option taken instead of refused then
 * starts no long benchmark) and checks exit 2, one line on stderr, "prog: " and word in it, and
 * nothing on stdout. */
static void expect_prog_refused(const char *prog, const char *args, const char *word)
{
  char cmd[8192], prefix[64];
  const char *limit = access("/usr/bin/timeout", X_OK) == 0 ? "/usr/bin/timeout 30 " : "";
  snprintf(cmd, sizeof cmd, "%s'%s' %s", limit, prog_path(prog), args);
  snprintf(prefix, sizeof prefix, "%s: ", prog);
  tc_expect_refused(cmd, 2, prefix, word);
}

/* --version prints "PROG VERSION" alone, --help the usage on stdout; both exit 0 with nothing
 * on stderr, before any work (with or without a GPU). */
TEST_CASE(programs_help_and_version)
{
  char cmd[8192], want[128], *out = NULL, *err = NULL;
  size_t k;
  for (k = 0; k < sizeof progs / sizeof progs[0]; ++k) {
    snprintf(cmd, sizeof cmd, "'%s' --version", prog_path(progs[k]));
    CHECKF(tc_run(cmd, &out, &err) == 0, "%s", cmd);
    snprintf(want, sizeof want, "%s %s\n", progs[k], devo_version());
    CHECKF(out && strcmp(out, want) == 0, "%s: '%s'", cmd, out ? out : "");
    CHECKF(err && err[0] == 0, "%s: stderr '%s'", cmd, err ? err : "");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "'%s' --help", prog_path(progs[k]));
    CHECKF(tc_run(cmd, &out, &err) == 0, "%s", cmd);
    snprintf(want, sizeof want, "usage: %s ", progs[k]);
    CHECKF(out && strncmp(out, want, strlen(want)) == 0, "%s: '%s'", cmd, out ? out : "");
    CHECKF(err && err[0] == 0, "%s: stderr '%s'", cmd, err ? err : "");
    free(out);
    free(err);
  }
}

/* The benchmark programs refuse an unknown option, an argument that is no option and a bad
 * numeric value (not a number, trailing text, NaN, overflow, not whole, outside the range) with
 * exit 2 and one line naming the option, before any work. */
TEST_CASE(bench_bad_options_exit_2)
{
  /* a bad value of each program's main numeric options */
  static const char *const bad[][3] = {
      {"bench-cec", "--reps abc", "--reps: 'abc' is not an integer in [1, 64]"},
      {"bench-cec", "--evals 499", "--evals: '499'"},
      {"bench-cpu", "--reps 0", "--reps: '0'"},
      {"bench-cpu", "--threads 1,x", "--threads: '1,x'"},
      {"bench-cpu", "--threads 1,2,3,4,5,6,7,8,9", "--threads"},
      {"bench-etc", "--seeds 102", "--seeds: '102' is not an integer in [1, 101]"},
      {"bench-etc", "--times 1,nan", "--times: '1,nan'"},
      {"bench-etc", "--backend gpx", "--backend: 'gpx' is not one of cpu, gpu, auto"},
      {"bench-gpu", "--cpu-div 0", "--cpu-div: '0'"},
      {"bench-gpu-ls", "--seconds 0", "--seconds: '0' is not a number in (0, 600]"},
      {"bench-gpu-ls", "--de-every -1", "--de-every: '-1'"},
      {"bench-ls", "--reps 65", "--reps: '65'"},
      {"bench-ls", "--seconds inf", "--seconds: 'inf'"},
      {"bench-read", "--mb 1e999", "--mb: '1e999'"},
      {"bench-read", "--reps=2.5", "--reps: '2.5'"},
      {"bench-sched", "--gens 99", "--gens: '99'"},
      {"bench-serve", "--iters 5x", "--iters: '5x'"},
      {"bench-serve", "--only parser", "--only: 'parser'"},
      {"bench-shade", "--case 2", "--case: '2' is not an integer in [0, 1]"},
      {"bench-soco", "--dim 7", "--dim: '7'"},
      {"bench-variants", "--reps 99999999999999999999", "--reps: '99999999999999999999'"},
      {"soco-table", "--data-seed -1", "--data-seed: '-1'"},
      {"soco-table", "--dim", "--dim needs a value"}};
  size_t k;
  for (k = 1; k < sizeof progs / sizeof progs[0]; ++k) { /* progs[0]: etc-gen, test_gen.c's */
    expect_prog_refused(progs[k], "--bogus 1", "unknown option '--bogus'");
    expect_prog_refused(progs[k], "-x", "unknown option '-x'");
    if (strcmp(progs[k], "bench-etc") != 0) /* bench-etc's one argument is its folder */
      expect_prog_refused(progs[k], "stray", "unexpected argument 'stray'");
  }
  expect_prog_refused("bench-etc", "data one two", "unexpected argument 'one'");
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k)
    expect_prog_refused(bad[k][0], bad[k][1], bad[k][2]);
}

/* What the table of a benchmark program takes in both spellings, with the values given: the
 * same table as with the other spelling. soco-table: no timing, the same numbers every run. */
TEST_CASE(bench_options_taken)
{
  char cmd[8192], *a = NULL, *b = NULL;
  snprintf(cmd, sizeof cmd, "'%s' --dim 8 --data-seed 2", prog_path("soco-table"));
  CHECKF(tc_run(cmd, &a, NULL) == 0, "%s", cmd);
  snprintf(cmd, sizeof cmd, "'%s' --dim=8 --data=2", prog_path("soco-table"));
  CHECKF(tc_run(cmd, &b, NULL) == 0, "%s", cmd);
  CHECKF(a && b && strstr(a, "| soco:f19 |") && strcmp(a, b) == 0, "'%s' vs '%s'", a ? a : "",
         b ? b : "");
  free(b);
  /* another data seed: other numbers (the value was read, not a default kept) */
  snprintf(cmd, sizeof cmd, "'%s' --dim 8 --data-seed 3", prog_path("soco-table"));
  CHECKF(tc_run(cmd, &b, NULL) == 0, "%s", cmd);
  CHECK(a && b && strcmp(a, b) != 0);
  free(a);
  free(b);
}

/* The x line of `devo solve --print-x` (dim values), and the whole output in *text. */
static int solve_x(const char *args, double *x, int dim, char **text)
{
  char cmd[1024], *out = NULL, *p;
  int j, rc;
  snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim %d --max-evals 3000 --print-x %s",
           tc_devo_bin(), dim, args);
  rc = tc_run(cmd, &out, NULL);
  CHECKF(rc == 0, "rc %d: %s", rc, cmd);
  p = out ? strstr(out, "\nx ") : NULL;
  CHECK(p != NULL);
  for (j = 0, p = p ? p + 2 : NULL; p && j < dim; ++j)
    x[j] = strtod(p, &p);
  *text = out;
  return rc;
}

/* Whether two outputs of solve_x give the same best value and vector, bit for bit as printed
 * (%.17g; the elapsed time differs). */
static int same_answer(const char *a, const char *b)
{
  const char *pa = a ? strstr(a, "\nbest ") : NULL, *pb = b ? strstr(b, "\nbest ") : NULL;
  const char *xa = a ? strstr(a, "\nx ") : NULL, *xb = b ? strstr(b, "\nx ") : NULL;
  return pa && pb && xa && xb && strncmp(pa, pb, strcspn(pa + 1, "\n") + 1) == 0 &&
         strcmp(xa, xb) == 0;
}

/* --lower/--upper as D numbers (a list, or @FILE one per line or with commas): each coordinate
 * keeps to its own box; the same box for every coordinate in a list gives the bits of one
 * number; bad lists exit 2 with one line naming the option and the coordinate. The shifted
 * sphere's optimum at D = 3, data seed 1, is (-30.11..., -48.44..., 13.61...). */
TEST_CASE(solve_coord_bounds)
{
  const double lo[3] = {-31.0, -100.0, 13.0}, hi[3] = {-30.0, 100.0, 14.0};
  double x[3], y[3];
  char *a = NULL, *b = NULL, cmd[512];
  const char *base = "solve --problem sphere --dim 3 --max-evals 3000";
  FILE *f;
  int j;
  solve_x("--lower=-31,-100,13 --upper -30,100,14", x, 3, &a);
  for (j = 0; j < 3; ++j)
    CHECKF(x[j] >= lo[j] && x[j] <= hi[j], "coordinate %d: %.17g", j, x[j]);
  /* the same bounds from files: one per line, and comma-separated with blanks */
  f = fopen("cli_lower.txt", "w");
  CHECK(f != NULL);
  fputs("-31\n-100\n13\n", f);
  fclose(f);
  f = fopen("cli_upper.txt", "w");
  CHECK(f != NULL);
  fputs("-30, 100, 14\n", f);
  fclose(f);
  solve_x("--lower @cli_lower.txt --upper @cli_upper.txt", y, 3, &b);
  CHECKF(same_answer(a, b), "list:\n%s\nfiles:\n%s", a ? a : "", b ? b : "");
  free(a);
  free(b);
  /* one side listed, the other one number or absent (the function's [-100, 100]) */
  solve_x("--lower -31,-100,13", x, 3, &a);
  for (j = 0; j < 3; ++j)
    CHECKF(x[j] >= lo[j] && x[j] <= 100.0, "coordinate %d: %.17g", j, x[j]);
  free(a);
  /* the same box on every coordinate: the bits of a single number */
  solve_x("--lower -90,-90,-90 --upper 90,90,90", x, 3, &a);
  solve_x("--lower -90 --upper 90", y, 3, &b);
  CHECKF(same_answer(a, b), "list:\n%s\none number:\n%s", a ? a : "", b ? b : "");
  free(a);
  free(b);
  /* refusals: one line, exit 2 */
  snprintf(cmd, sizeof cmd, "%s --lower -31,-100", base);
  expect_error(cmd, 2, "--lower:1:9: 2 lower bounds, expected one per coordinate (3)");
  snprintf(cmd, sizeof cmd, "%s --upper 1,2,3,4", base);
  expect_error(cmd, 2, "--upper:1:7: more than 3 upper bounds");
  snprintf(cmd, sizeof cmd, "%s --upper -30,nan,14", base);
  expect_error(cmd, 2, "--upper:1:5: upper bound 'nan' (coordinate 1): not a finite number");
  snprintf(cmd, sizeof cmd, "%s --lower -31,,13", base);
  expect_error(cmd, 2, "--lower:1:5: empty field (coordinate 1)");
  snprintf(cmd, sizeof cmd, "%s --lower -31,5,13 --upper -30,4,14", base);
  expect_error(cmd, 2, "--lower/--upper: coordinate 1: bounds [5, 4]");
  snprintf(cmd, sizeof cmd, "%s --lower -31,-100,20 --upper -30,100,25", base);
  expect_error(cmd, 2, "excludes the optimum of sphere: coordinate 2");
  f = fopen("cli_lower.txt", "w");
  CHECK(f != NULL);
  fputs("-31\n-100\n1e999\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s --lower @cli_lower.txt", base);
  expect_error(cmd, 2, "--lower @cli_lower.txt:3:1: lower bound '1e999' (coordinate 2)");
  snprintf(cmd, sizeof cmd, "%s --lower @cli_missing.txt", base);
  expect_error(cmd, 2, "--lower @cli_missing.txt: ");
  remove("cli_lower.txt");
  remove("cli_upper.txt");
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

/* `devo solve ARGS --json` parsed (cJSON), or NULL after a failed check. */
static cJSON *solve_json(const char *args)
{
  char cmd[1024], *out = NULL;
  cJSON *j;
  snprintf(cmd, sizeof cmd, "%s solve %s --json", tc_devo_bin(), args);
  CHECKF(tc_run(cmd, &out, NULL) == 0 && out, "%s", cmd);
  j = out ? cJSON_Parse(out) : NULL;
  CHECKF(j != NULL, "not JSON: %s", out ? out : "");
  free(out);
  return j;
}

static double jnum(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : (double)NAN;
}

/* The pair [lo, hi] at o's key equals (lo, hi). */
static int jrange(const cJSON *o, const char *key, double lo, double hi)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_GetArraySize(v) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
         cJSON_IsNumber(cJSON_GetArrayItem(v, 1)) && cJSON_GetArrayItem(v, 0)->valuedouble == lo &&
         cJSON_GetArrayItem(v, 1)->valuedouble == hi;
}

/* --json reports the parameters that ran, per preset: a fixed F and CR only for DE without
 * adaptation; jDE's ranges of new F_i and CR_i and the final population's means inside what it can
 * hold; JADE/SHADE/L-SHADE's ranges, the means of the last generation's F_i and CR_i and of the
 * memories, the final NP (L-SHADE: down to np_min) and archive; and the search box (--ranges
 * cec2005: rastrigin's [-5, 5]). */
TEST_CASE(solve_json_per_preset)
{
  static const char *const presets[] = {"de", "jde", "gojde", "jade", "shade", "lshade"};
  char args[256];
  int k;
  for (k = 0; k < 6; ++k) {
    const int adapt = k >= 3, jde = k == 1 || k == 2;
    cJSON *j, *box, *sh, *jd;
    snprintf(args, sizeof args,
             "--problem rastrigin --dim 4 --max-evals 4000 --ranges cec2005 --algorithm %s",
             presets[k]);
    if (!(j = solve_json(args)))
      continue;
    box = cJSON_GetObjectItemCaseSensitive(j, "box");
    sh = cJSON_GetObjectItemCaseSensitive(j, "shade");
    jd = cJSON_GetObjectItemCaseSensitive(j, "jde");
    CHECKF(jnum(box, "lower") == -5.0 && jnum(box, "upper") == 5.0, "%s: box", presets[k]);
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "ranges")), "cec2005") ==
          0);
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "bounds")), "reinit") ==
          0);
    /* a fixed F and CR only where they ran */
    CHECKF(cJSON_HasObjectItem(j, "f") == !(adapt || jde) &&
               cJSON_HasObjectItem(j, "cr") == !(adapt || jde),
           "%s: f/cr", presets[k]);
    if (!adapt && !jde)
      CHECK(jnum(j, "f") == 0.5 && jnum(j, "cr") == 0.9 && cJSON_IsNull(sh) && cJSON_IsNull(jd));
    if (jde) {
      const double fl = jnum(jd, "fl"), fu = jnum(jd, "fu"), crl = jnum(jd, "crl");
      const double cru = jnum(jd, "cru"), mf = jnum(jd, "mean_f"), mcr = jnum(jd, "mean_cr");
      CHECKF(jrange(jd, "f_range", fl, fl + fu) && jrange(jd, "cr_range", crl, crl + cru),
             "%s: ranges", presets[k]);
      CHECK(jnum(jd, "f_init") == 0.5 && jnum(jd, "cr_init") == 0.9);
      /* each F_i is 0.5 or was drawn in f_range (likewise CR_i): so is their mean */
      CHECKF(mf >= fmin(fl, 0.5) && mf <= fmax(fl + fu, 0.5) && mcr >= fmin(crl, 0.9) &&
                 mcr <= fmax(crl + cru, 0.9),
             "%s: means %g %g", presets[k], mf, mcr);
      CHECK(cJSON_IsNull(sh));
    }
    if (adapt) {
      const double mf = jnum(sh, "mean_f"), mcr = jnum(sh, "mean_cr");
      const double np = jnum(j, "np"), fnp = jnum(sh, "final_np");
      CHECK(jrange(sh, "f_range", 0.0, 1.0) && jrange(sh, "cr_range", 0.0, 1.0));
      CHECKF(mf > 0.0 && mf <= 1.0 && mcr >= 0.0 && mcr <= 1.0, "%s: means %g %g", presets[k], mf,
             mcr);
      CHECK(jnum(sh, "memory_mean_f") > 0.0 && jnum(sh, "memory_mean_cr") >= 0.0);
      CHECKF(k == 5 ? fnp >= 4 && fnp < np : fnp == np, "%s: final NP %g of %g", presets[k], fnp,
             np);
      CHECK(jnum(sh, "archive") >= 0 && cJSON_IsNull(jd));
    }
    cJSON_Delete(j);
  }
}

/* The box that ran is in --json (a number per side, or one per coordinate) and in --verbose's
 * stderr. */
TEST_CASE(solve_box_reported)
{
  char cmd[512], *err = NULL;
  cJSON *j = solve_json("--problem sphere --dim 3 --lower=-100,-90,-80 --upper 70 --max-evals "
                        "1000");
  const cJSON *box = j ? cJSON_GetObjectItemCaseSensitive(j, "box") : NULL;
  const cJSON *lo = cJSON_GetObjectItemCaseSensitive(box, "lower");
  const cJSON *hi = cJSON_GetObjectItemCaseSensitive(box, "upper");
  CHECK(cJSON_GetArraySize(lo) == 3 && cJSON_GetArraySize(hi) == 3);
  if (cJSON_GetArraySize(lo) == 3 && cJSON_GetArraySize(hi) == 3)
    CHECK(cJSON_GetArrayItem(lo, 1)->valuedouble == -90.0 &&
          cJSON_GetArrayItem(hi, 2)->valuedouble == 70.0);
  CHECK(j && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "ranges")));
  cJSON_Delete(j);
  j = solve_json("--problem sphere --dim 3 --max-evals 1000");
  box = j ? cJSON_GetObjectItemCaseSensitive(j, "box") : NULL;
  CHECK(jnum(box, "lower") == -100.0 && jnum(box, "upper") == 100.0);
  cJSON_Delete(j);
  snprintf(cmd, sizeof cmd,
           "%s solve --problem rastrigin --dim 3 --ranges cec2005 --max-evals 1000 --verbose",
           tc_devo_bin());
  CHECK(tc_run(cmd, NULL, &err) == 0);
  CHECKF(err && strstr(err, "devo solve: box [-5, 5]^3\n"), "%s", err ? err : "");
  free(err);
  snprintf(cmd, sizeof cmd,
           "%s solve --problem sphere --dim 3 --lower=-100,-90,-80 --max-evals 1000 --verbose",
           tc_devo_bin());
  CHECK(tc_run(cmd, NULL, &err) == 0);
  CHECKF(err && strstr(err, "devo solve: box per coordinate: [-100, 100] [-90, 100] [-80, 100] "
                            "(3 coordinates)"),
         "%s", err ? err : "");
  free(err);
}

static const tc_case cases[] = {TC(bad_usage_exits_2),
                                TC(help_and_version),
                                TC(every_command_answers_version),
                                TC(solve_outputs),
                                TC(time_limit_exit_0),
                                TC(output_failures_exit_1),
                                TC(eval_line_ends_and_long_numbers),
                                TC(target_error_within_e),
                                TC(solve_progress_line),
                                TC(schedule_progress_line),
                                TC(programs_help_and_version),
                                TC(bench_bad_options_exit_2),
                                TC(bench_options_taken),
                                TC(solve_coord_bounds),
                                TC(eval_csv_quoting),
                                TC(solve_json_per_preset),
                                TC(solve_box_reported)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
