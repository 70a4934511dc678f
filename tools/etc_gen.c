/* SPDX-License-Identifier: MIT */
/* etc_gen.c: etc-gen, the Braun-style ETC instance generator (problems/etc_gen.h) as a
 * program. Writes CSV, one row per task, values printed with %.17g so that reading the file back
 * gives the generated doubles exactly. Option parsing is its own (it does not link tools/cli.c). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"
#include "problems/etc_gen.h"
#include "tool_util.h"

static const char usage[] =
    "usage: etc-gen --tasks N --machines M [--class u_c_hihi | --method range|cvb\n"
    "               --consistency c|s|i [--task-het hi|lo] [--mach-het hi|lo]\n"
    "               [--mean MU --v-task V --v-mach V]] [--seed S] [--out FILE]\n"
    "\n"
    "Generates an ETC matrix (expected time to compute of each task on each machine) as CSV:\n"
    "one row per task, one column per machine, no header.\n"
    "  range method (Braun et al. 2001; Ali et al. 2000): ETC = q_t * U[1, R_mach),\n"
    "    q_t ~ U[1, R_task); R_task hi 3000 / lo 100, R_mach hi 1000 / lo 10 (default hi/hi)\n"
    "  cvb method (Ali et al. 2000): q_t ~ Gamma with mean MU (default 1000) and CoV V_task,\n"
    "    ETC ~ Gamma with mean q_t and CoV V_mach (defaults 0.1); MU in [1e-100, 1e12],\n"
    "    V_task and V_mach in [1e-50, 5] (beyond these, values would underflow or overflow)\n"
    "  consistency: c = every row sorted ascending, s = even columns sorted, i = as drawn\n"
    "  --class u_X_YYZZ sets the range method, consistency X, task/machine heterogeneity\n"
    "  sizes: 1 .. 1000000 tasks, 2 .. 4096 machines, at most 67108864 values (what devo reads)\n"
    "  --seed S (default 1): 0 .. 18446744073709551615, decimal digits only; the same\n"
    "    parameters and seed give the same file, byte for byte\n";

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int bad(const char *fmt, ...)
{
  va_list ap;
  fputs("etc-gen: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 2;
}

/* A double (tool_parse_real, the devo CLI's parser); an overflow is not refused here because
 * every caller checks the value against its accepted range next, which names that range in its
 * message. */
static int parse_num(const char *opt, const char *s, double *out)
{
  const int r = tool_parse_real(s, out);
  if (r == -1)
    return bad("%s: not a number: '%s'", opt, s);
  if (r == -2)
    *out = s[0] == '-' ? -HUGE_VAL : HUGE_VAL; /* NaN too: out of every range */
  return 0;
}

/* A seed is plain decimal digits (tool_parse_u64). */
static int parse_seed(const char *opt, const char *s, uint64_t *out)
{
  if (tool_parse_u64(s, out) != 0)
    return bad("%s '%s': expected decimal digits only (no sign, space, 0x or leading zero), "
               "at most %llu",
               opt, s, (unsigned long long)UINT64_MAX);
  return 0;
}

/* x in [lo, hi], written so that NaN is refused too. */
static int in_range(double x, double lo, double hi)
{
  return x >= lo && x <= hi;
}

int main(int argc, char **argv)
{
  devo__etcgen g;
  const char *out = NULL, *class_name = NULL, *cons = NULL, *th = NULL, *mh = NULL;
  /* the values as given, for messages (the defaults are within the ranges) */
  const char *mean_s = "(default)", *vt_s = "(default)", *vm_s = "(default)";
  char err[256], tmp[4096 + 32];
  double *v, x;
  FILE *f;
  int i, t, j, rc = 0, have_n = 0, have_m = 0, have_method = 0;
  devo__etcgen_defaults(&g);
  if ((i = tool_std_args("etc-gen", usage, &argc, &argv)) != 0)
    return i > 0 ? 0 : 1;
  for (i = 1; i < argc; ++i) {
    const char *o = argv[i], *val;
    if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
    if (strncmp(o, "--", 2) != 0)
      return bad("unexpected argument '%s' (see --help)", o);
    if (i + 1 >= argc)
      return bad("%s needs a value", o);
    val = argv[++i];
    if (strcmp(o, "--tasks") == 0 || strcmp(o, "--machines") == 0) {
      if ((rc = parse_num(o, val, &x)) != 0)
        return rc;
      /* the range first: casting a double outside int's range (1e20, inf, NaN) to int is
       * undefined behaviour */
      if (!in_range(x, 1, DEVO_ETC_MAX_TASKS) || x != (double)(int)x)
        return bad("%s: not a valid count: '%s'", o, val);
      if (o[2] == 't') {
        g.ntasks = (int)x;
        have_n = 1;
      } else {
        g.nmach = (int)x;
        have_m = 1;
      }
    } else if (strcmp(o, "--method") == 0) {
      if (strcmp(val, "range") == 0)
        g.method = DEVO__ETCGEN_RANGE;
      else if (strcmp(val, "cvb") == 0)
        g.method = DEVO__ETCGEN_CVB;
      else
        return bad("%s: expected range or cvb, got '%s'", o, val);
      have_method = 1;
    } else if (strcmp(o, "--consistency") == 0) {
      cons = val;
    } else if (strcmp(o, "--class") == 0) {
      class_name = val;
    } else if (strcmp(o, "--task-het") == 0) {
      th = val;
    } else if (strcmp(o, "--mach-het") == 0) {
      mh = val;
    } else if (strcmp(o, "--mean") == 0 || strcmp(o, "--v-task") == 0 ||
               strcmp(o, "--v-mach") == 0) {
      if ((rc = parse_num(o, val, &x)) != 0)
        return rc;
      /* the text too: the range check below quotes what was given, not its rounding */
      if (o[2] == 'm') {
        g.mean = x;
        mean_s = val;
      } else if (o[4] == 't') {
        g.v_task = x;
        vt_s = val;
      } else {
        g.v_mach = x;
        vm_s = val;
      }
    } else if (strcmp(o, "--seed") == 0) {
      if ((rc = parse_seed(o, val, &g.seed)) != 0)
        return rc;
    } else if (strcmp(o, "--out") == 0) {
      out = val;
    } else {
      return bad("unknown option '%s' (see --help)", o);
    }
  }
  if (!have_n || !have_m)
    return bad("--tasks and --machines are required (see --help)");
  if (class_name) {
    if (have_method || cons || th || mh)
      return bad("--class sets the method, consistency and heterogeneities: do not combine it "
                 "with --method, --consistency, --task-het or --mach-het");
    if (devo__etcgen_class(&g, class_name) != 0)
      return bad("--class: expected u_c_hihi ... u_s_lolo (c/s/i, hi/lo, hi/lo), got '%s'",
                 class_name);
  } else {
    if (!cons)
      return bad("--consistency c|s|i (or --class) is required");
    if (strcmp(cons, "c") == 0)
      g.consistency = DEVO__ETCGEN_CONSISTENT;
    else if (strcmp(cons, "s") == 0)
      g.consistency = DEVO__ETCGEN_SEMI;
    else if (strcmp(cons, "i") == 0)
      g.consistency = DEVO__ETCGEN_INCONSISTENT;
    else
      return bad("--consistency: expected c, s or i, got '%s'", cons);
    if (th && strcmp(th, "hi") != 0 && strcmp(th, "lo") != 0)
      return bad("--task-het: expected hi or lo, got '%s'", th);
    if (mh && strcmp(mh, "hi") != 0 && strcmp(mh, "lo") != 0)
      return bad("--mach-het: expected hi or lo, got '%s'", mh);
    if (th)
      g.r_task = th[0] == 'h' ? DEVO__ETCGEN_TASK_HI : DEVO__ETCGEN_TASK_LO;
    if (mh)
      g.r_mach = mh[0] == 'h' ? DEVO__ETCGEN_MACH_HI : DEVO__ETCGEN_MACH_LO;
  }
  /* CVB's ranges are checked here, not only by devo__etcgen_run, so that the message names the
   * option; the range method does not use these three, as before. */
  if (g.method == DEVO__ETCGEN_CVB) {
    if (!in_range(g.mean, DEVO__ETCGEN_MEAN_MIN, DEVO__ETCGEN_MEAN_MAX))
      return bad("--mean %s: must be in [%g, %g]", mean_s, DEVO__ETCGEN_MEAN_MIN,
                 DEVO__ETCGEN_MEAN_MAX);
    if (!in_range(g.v_task, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX))
      return bad("--v-task %s: must be in [%g, %g]", vt_s, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX);
    if (!in_range(g.v_mach, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX))
      return bad("--v-mach %s: must be in [%g, %g]", vm_s, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX);
  }
  /* the size limits before the allocation, so that a matrix too large to read gets its own
   * message (exit 2), not "out of memory" (found in review) */
  if (g.nmach < 2 || g.nmach > DEVO_ETC_MAX_MACHINES ||
      (long long)g.ntasks * g.nmach > DEVO_ETC_MAX_CELLS)
    return bad("%d x %d: at most %d machines (at least 2) and %d values", g.ntasks, g.nmach,
               DEVO_ETC_MAX_MACHINES, DEVO_ETC_MAX_CELLS);
  v = (double *)malloc((size_t)g.ntasks * (size_t)g.nmach * sizeof(double));
  if (!v) {
    fprintf(stderr, "etc-gen: out of memory\n");
    return 1;
  }
  if (devo__etcgen_run(&g, v, err, sizeof err) != 0) {
    free(v);
    return bad("%s", err);
  }
  /* --out: whole or not at all (tool_util.h) */
  if (out && strlen(out) > 4096) {
    free(v);
    return bad("--out: a path of more than 4096 bytes");
  }
  f = out ? out_file_open(out, tmp, sizeof tmp) : stdout;
  if (!f) {
    fprintf(stderr, "etc-gen: %s: %s\n", out, strerror(errno));
    free(v);
    return 1;
  }
  for (t = 0; t < g.ntasks; ++t)
    for (j = 0; j < g.nmach; ++j)
      fprintf(f, "%.17g%c", v[(size_t)t * g.nmach + j], j + 1 < g.nmach ? ',' : '\n');
  free(v);
  if (out) {
    const int e = out_file_close(f, tmp, out);
    if (e) {
      fprintf(stderr, "etc-gen: %s: write error: %s\n", out, strerror(e));
      return 1;
    }
  } else if (fflush(f) != 0 || ferror(f)) {
    fprintf(stderr, "etc-gen: stdout: write error: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
