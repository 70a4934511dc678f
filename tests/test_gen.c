/* SPDX-License-Identifier: MIT */
/* test_gen.c: the ETC generator's edges (problems/etc_gen.h and the etc-gen program): parameters
 * that used to hang or overflow are refused with one clear message, every accepted corner gives
 * positive normal values, and the numbers of parameters that worked before are unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "problems/etc_gen.h"
#include "tests/tcheck.h"

/* A hang is the defect under test: end the process (a failure for ctest) long before ctest's
 * own 600 s limit would, since each case takes well under a second when it works. */
static void hang_guard(void)
{
  alarm(60);
}

/* FNV-1a over the values' bit patterns, byte by byte from the low end, so that the result does
 * not depend on the byte order of the machine. */
static uint64_t fnv_values(const double *v, size_t n)
{
  uint64_t h = 1469598103934665603ull;
  size_t i;
  int b;
  for (i = 0; i < n; ++i) {
    uint64_t w;
    memcpy(&w, &v[i], sizeof w);
    for (b = 0; b < 8; ++b) {
      h ^= (w >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

static devo__etcgen cvb(double mean, double v_task, double v_mach)
{
  devo__etcgen g;
  devo__etcgen_defaults(&g);
  g.method = DEVO__ETCGEN_CVB;
  g.ntasks = 3;
  g.nmach = 2;
  g.mean = mean;
  g.v_task = v_task;
  g.v_mach = v_mach;
  return g;
}

/* The parameters that made devo__etcgen_run loop forever (an infinite gamma shape, a mean whose
 * values underflow) and the other edges of the ranges are refused with a message naming the
 * range; the output is left alone. */
TEST_CASE(lib_cvb_refuses_bad_parameters)
{
  static const double bad[][3] = {
      {1000, 1e-160, 0.1}, {1000, 0.1, 1e-160}, {1e-300, 5, 5},  {0, 0.1, 0.1},
      {-1, 0.1, 0.1},      {1e13, 0.1, 0.1},    {1000, 5.5, 1},  {1000, 1, 5.5},
      {1000, 1e-51, 1},    {1000, 1, 1e-51},    {1000, 0, 0.1},  {1000, -0.1, 0.1},
      {1e-101, 0.1, 0.1},  {1000, INFINITY, 1}, {NAN, 0.1, 0.1}, {1000, 0.1, NAN}};
  size_t k;
  hang_guard();
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    devo__etcgen g = cvb(bad[k][0], bad[k][1], bad[k][2]);
    double out[6] = {-7, -7, -7, -7, -7, -7};
    char err[256] = "";
    int rc = devo__etcgen_run(&g, out, err, sizeof err);
    CHECKF(rc == -1, "mean %g v_task %g v_mach %g: returned %d", g.mean, g.v_task, g.v_mach, rc);
    CHECKF(strstr(err, "must be in [") != NULL, "mean %g v_task %g v_mach %g: message '%s'", g.mean,
           g.v_task, g.v_mach, err);
    CHECK(out[0] == -7 && out[5] == -7);
  }
}

/* The corners of the accepted ranges, where the numbers come closest to underflow (a tiny mean
 * with V = 5 redraws some values) or to an enormous gamma shape (V = 1e-50): the call returns
 * 0 and every value is a positive normal double. */
TEST_CASE(lib_cvb_accepted_corners)
{
  static const double corner[][3] = {
      {DEVO__ETCGEN_MEAN_MIN, DEVO__ETCGEN_V_MAX, DEVO__ETCGEN_V_MAX},
      {DEVO__ETCGEN_MEAN_MIN, DEVO__ETCGEN_V_MAX, DEVO__ETCGEN_V_MIN},
      {DEVO__ETCGEN_MEAN_MIN, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX},
      {DEVO__ETCGEN_MEAN_MIN, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MIN},
      {DEVO__ETCGEN_MEAN_MAX, DEVO__ETCGEN_V_MAX, DEVO__ETCGEN_V_MAX},
      {DEVO__ETCGEN_MEAN_MAX, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MIN}};
  const int n = 2000, m = 16;
  double *v = (double *)malloc((size_t)n * m * sizeof(double));
  size_t k, i;
  hang_guard();
  CHECK(v != NULL);
  for (k = 0; k < sizeof corner / sizeof corner[0]; ++k) {
    devo__etcgen g = cvb(corner[k][0], corner[k][1], corner[k][2]);
    char err[256] = "";
    size_t nbad = 0;
    g.ntasks = n;
    g.nmach = m;
    g.seed = 40 + k;
    CHECKF(devo__etcgen_run(&g, v, err, sizeof err) == 0, "corner %zu: %s", k, err);
    for (i = 0; i < (size_t)n * m; ++i)
      nbad += !(v[i] >= DBL_MIN && v[i] <= DBL_MAX);
    CHECKF(nbad == 0, "corner %zu (mean %g, V %g / %g): %zu values not positive normal", k, g.mean,
           g.v_task, g.v_mach, nbad);
  }
  free(v);
}

/* The values of parameters that were accepted before the ranges and redraw rules changed are
 * the same, bit for bit: hashes taken with the generator as it was before that change. */
TEST_CASE(lib_values_unchanged)
{
  static const struct {
    int method, consistency, n, m;
    double a, b, c; /* CVB: mean, V_task, V_mach; range: unused, R_task, R_mach */
    uint64_t seed, hash;
  } p[] = {{DEVO__ETCGEN_CVB, 2, 200, 16, 1000, 5, 5, 11, 0x170dc9d162cbefb4ull},
           {DEVO__ETCGEN_CVB, 0, 200, 16, 1e-3, 2, 0.5, 12, 0x7331cc588534d802ull},
           {DEVO__ETCGEN_CVB, 1, 200, 15, 1e9, 0.01, 1e-3, 13, 0xee81286242f14281ull},
           {DEVO__ETCGEN_CVB, 2, 200, 16, 1e-100, 0.5, 0.5, 14, 0xf82662be7bfbd44eull},
           {DEVO__ETCGEN_CVB, 2, 50, 4, 1e12, 1e-50, 1e-50, 15, 0xeed75f07c59288f3ull},
           {DEVO__ETCGEN_CVB, 2, 300, 32, 1, 1, 1, 16, 0x0645331e4a55b5f7ull},
           {DEVO__ETCGEN_RANGE, 0, 300, 7, 0, 2, 1.5, 21, 0x38df20126fce3174ull},
           {DEVO__ETCGEN_RANGE, 1, 300, 8, 0, 1e9, 1e9, 22, 0x73fbd21cfae75188ull},
           {DEVO__ETCGEN_RANGE, 2, 100, 5, 0, 1.000001, 1.001, UINT64_MAX, 0x7989d6fefca6208full}};
  size_t k;
  hang_guard();
  for (k = 0; k < sizeof p / sizeof p[0]; ++k) {
    devo__etcgen g;
    double *v = (double *)malloc((size_t)p[k].n * p[k].m * sizeof(double));
    char err[256] = "";
    devo__etcgen_defaults(&g);
    g.method = p[k].method;
    g.consistency = p[k].consistency;
    g.ntasks = p[k].n;
    g.nmach = p[k].m;
    g.seed = p[k].seed;
    if (g.method == DEVO__ETCGEN_CVB) {
      g.mean = p[k].a;
      g.v_task = p[k].b;
      g.v_mach = p[k].c;
    } else {
      g.r_task = p[k].b;
      g.r_mach = p[k].c;
    }
    CHECK(v != NULL);
    CHECKF(devo__etcgen_run(&g, v, err, sizeof err) == 0, "set %zu: %s", k, err);
    CHECKF(fnv_values(v, (size_t)p[k].n * p[k].m) == p[k].hash, "set %zu: values changed", k);
    free(v);
  }
}

/* ---- the etc-gen program ---------------------------------------------------------------- */

/* etc-gen's path: ctest names only the devo program (DEVO_BIN), and CMake builds every
 * program (tools/etc_gen.c and the benchmarks) into the same folder, so it is looked for next to
 * that one. */
static const char *etcgen_bin(void)
{
  static char path[4096];
  const char *devo = tc_devo_bin(), *slash = strrchr(devo, '/');
  size_t dir = slash ? (size_t)(slash - devo) + 1 : 0;
  if (dir + sizeof "etc-gen" > sizeof path)
    TC_SKIP("the path of DEVO_BIN is too long");
  memcpy(path, devo, dir);
  memcpy(path + dir, "etc-gen", sizeof "etc-gen");
  if (access(path, X_OK) != 0)
    TC_SKIP("no etc-gen program next to DEVO_BIN");
  return path;
}

/* Runs `etc-gen ARGS` under timeout(1) where there is one (a hang then exits 124, a clear
 * failure, instead of leaving a spinning child behind), and checks exit 2, exactly one line on
 * stderr that contains word, and nothing on stdout. */
static void expect_refused(const char *args, const char *word)
{
  char cmd[1024];
  const char *limit = access("/usr/bin/timeout", X_OK) == 0 ? "/usr/bin/timeout 30 " : "";
  snprintf(cmd, sizeof cmd, "%s'%s' %s", limit, etcgen_bin(), args);
  tc_expect_refused(cmd, 2, "etc-gen: ", word);
}

/* The three commands that hung, and the other edges of the CVB ranges: the message names the
 * option and the accepted range. */
TEST_CASE(tool_cvb_bad_parameters_exit_2)
{
  const char *base = "--method cvb --consistency i --tasks 3 --machines 2";
  char a[512];
  hang_guard();
  snprintf(a, sizeof a, "%s --v-task 1e-160", base);
  expect_refused(a, "--v-task 1e-160: must be in [1e-50, 5]");
  snprintf(a, sizeof a, "%s --v-mach 1e-160", base);
  expect_refused(a, "--v-mach 1e-160: must be in [1e-50, 5]");
  snprintf(a, sizeof a, "%s --mean 1e-300 --v-task 5 --v-mach 5", base);
  expect_refused(a, "--mean 1e-300: must be in [1e-100, 1e+12]");
  snprintf(a, sizeof a, "%s --mean 1e-400", base); /* underflows strtod: still the range line */
  expect_refused(a, "--mean 1e-400: must be in");
  snprintf(a, sizeof a, "%s --v-task nan", base);
  expect_refused(a, "--v-task nan: must be in");
  snprintf(a, sizeof a, "%s --v-mach 5.5", base);
  expect_refused(a, "--v-mach 5.5: must be in");
  snprintf(a, sizeof a, "%s --mean 1e13", base);
  expect_refused(a, "--mean 1e13: must be in");
}

/* Counts outside int's range were cast to int before the range check (undefined behaviour). */
TEST_CASE(tool_count_out_of_range_exit_2)
{
  static const char *const bad[] = {"1e20", "nan", "3e9", "inf", "-inf", "-3e9", "0", "2.5"};
  char a[256];
  size_t k;
  hang_guard();
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    snprintf(a, sizeof a, "--class u_c_hihi --tasks %s --machines 2", bad[k]);
    expect_refused(a, "--tasks: not a valid count");
    snprintf(a, sizeof a, "--class u_c_hihi --tasks 2 --machines %s", bad[k]);
    expect_refused(a, "--machines: not a valid count");
  }
  /* beyond what devo reads: its own message before any allocation, not "out of memory" */
  expect_refused("--class u_c_hihi --tasks 1000000 --machines 4096", "67108864 values");
  expect_refused("--class u_c_hihi --tasks 10 --machines 5000", "4096 machines");
  expect_refused("--class u_c_hihi --tasks 10 --machines 1", "at least 2");
}

/* A seed is decimal digits only: "010" was read as octal 8, "0x8" as hex, " -1" wrapped to
 * 2^64 - 1. Plain decimal seeds, up to 2^64 - 1, still give the library's matrix. */
TEST_CASE(tool_seed_decimal_only)
{
  static const char *const bad[] = {"010",
                                    "0x8",
                                    "' -1'",
                                    "-1",
                                    "+1",
                                    "' 1'",
                                    "'1 '",
                                    "''",
                                    "00",
                                    "18446744073709551616",
                                    "99999999999999999999",
                                    "1e3",
                                    "8a"};
  static const uint64_t good[] = {0, 8, 10, UINT64_MAX};
  char a[256], cmd[1024], *out = NULL, *err = NULL;
  size_t k;
  hang_guard();
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    snprintf(a, sizeof a, "--class u_c_hihi --tasks 2 --machines 2 --seed %s", bad[k]);
    expect_refused(a, "--seed");
  }
  for (k = 0; k < sizeof good / sizeof good[0]; ++k) {
    devo__etcgen g;
    double v[4];
    char want[256], err2[128];
    int rc;
    devo__etcgen_defaults(&g);
    CHECK(devo__etcgen_class(&g, "u_c_hihi") == 0);
    g.ntasks = 2;
    g.nmach = 2;
    g.seed = good[k];
    CHECK(devo__etcgen_run(&g, v, err2, sizeof err2) == 0);
    snprintf(want, sizeof want, "%.17g,%.17g\n%.17g,%.17g\n", v[0], v[1], v[2], v[3]);
    snprintf(cmd, sizeof cmd, "'%s' --class u_c_hihi --tasks 2 --machines 2 --seed %llu",
             etcgen_bin(), (unsigned long long)good[k]);
    rc = tc_run(cmd, &out, &err);
    CHECKF(rc == 0, "seed %llu: exit %d (%s)", (unsigned long long)good[k], rc, err ? err : "");
    CHECKF(out && strcmp(out, want) == 0, "seed %llu: got '%s', expected '%s'",
           (unsigned long long)good[k], out ? out : "", want);
    free(out);
    free(err);
    out = err = NULL;
  }
}

/* --out appears whole or not at all, and output that cannot be written exits 1 (found in review:
 * a write cut short by a file size limit left half a file, as in devo schedule). */
TEST_CASE(tool_out_whole_or_nothing)
{
  char cmd[1024], *text;
  const char *name = "gen_out_half.csv";
  FILE *f;
  remove(name);
  snprintf(cmd, sizeof cmd,
           "trap '' XFSZ; ulimit -f 1; '%s' --class u_c_hihi --tasks 2000 --machines 16 --out %s",
           etcgen_bin(), name);
  CHECK(tc_run(cmd, NULL, NULL) == 1);
  CHECK((f = fopen(name, "r")) == NULL);
  if (f)
    fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' --class u_c_hihi --tasks 3 --machines 2 --out %s", etcgen_bin(),
           name);
  CHECK(tc_run(cmd, NULL, NULL) == 0);
  text = tc_slurp(name, NULL);
  CHECK(text && strchr(text, '\n') && strchr(strchr(text, '\n') + 1, '\n'));
  free(text);
  remove(name);
  if ((f = fopen("/dev/full", "w")) != NULL) {
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' --class u_c_hihi --tasks 3 --machines 2 > /dev/full",
             etcgen_bin());
    CHECK(tc_run(cmd, NULL, NULL) == 1);
  }
}

static const tc_case cases[] = {
    TC(lib_cvb_refuses_bad_parameters), TC(lib_cvb_accepted_corners),
    TC(lib_values_unchanged),           TC(tool_cvb_bad_parameters_exit_2),
    TC(tool_count_out_of_range_exit_2), TC(tool_seed_decimal_only),
    TC(tool_out_whole_or_nothing)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
