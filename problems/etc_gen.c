/* SPDX-License-Identifier: MIT */
/* etc_gen.c: the ETC matrix generator of etc_gen.h (range-based method of Braun et al. 2001 and
 * Ali et al. 2000; CVB method of Ali et al. 2000), with gamma variates by G. Marsaglia and
 * W. W. Tsang, "A simple method for generating gamma variables", ACM TOMS 26(3):363-372, 2000,
 * and normals by Marsaglia's polar method (Marsaglia and Bray, SIAM Review 6(3), 1964). */
#include "etc_gen.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../engine/include/devo.h"
#include "philox.h"

/* The purpose word of the generator's counters ("ETCG"): apart from every purpose the solver
 * uses, so a matrix never shares random numbers with a run that has the same seed. */
#define ETCGEN_PURPOSE 0x45544347u

/* Random blocks one value (a baseline q_t or a matrix entry) may use, its redraws included. A
 * value takes about two blocks on average (a gamma draw uses ~4 uniforms, two per block), so
 * reaching the cap takes on the order of a thousand rejections in a row, which accepted
 * parameters do not produce in practice; the cap is what makes each loop finite whatever the
 * numbers do. Small enough that k cannot wrap: a row uses at most
 * (DEVO_ETC_MAX_MACHINES + 1) * (cap + a few) blocks, far below 2^32. */
#define ETCGEN_VALUE_BLOCKS 4096u

/* A sequential stream for one task: block k of Philox(seed; k, task, 0, purpose), two uniforms
 * per block. */
typedef struct gstream {
  uint64_t seed;
  uint32_t task, k;
  uint32_t kmax; /* the block index where the current value's budget ends (g_budget) */
  int failed;    /* a loop of draws stopped at kmax: the row must be reported, not used */
  uint32_t w[4];
  int half; /* 0: next uniform from w[0..1] of a fresh block; 1: from w[2..3] */
} gstream;

/* Opens the budget of the next value. */
static void g_budget(gstream *s)
{
  s->kmax = s->k + ETCGEN_VALUE_BLOCKS;
}

/* Checked at the top of every loop of draws: true once the value's budget is spent (marking the
 * stream failed) or an inner loop has already given up, so that all enclosing loops end too. It
 * draws nothing, so the numbers of a value that stays within its budget do not change. */
static int g_stop(gstream *s)
{
  if (s->k >= s->kmax)
    s->failed = 1;
  return s->failed;
}

/* A value the matrix may hold: positive, finite and normal (a subnormal has lost precision and
 * a 0 would make a machine free for that task). Also false for NaN. */
static int g_good(double x)
{
  return x >= DBL_MIN && x <= DBL_MAX;
}

static double g_u01(gstream *s)
{
  if (s->half == 0) {
    devo__u32x4 b = devo__rng(s->seed, s->k++, s->task, 0u, ETCGEN_PURPOSE);
    memcpy(s->w, b.v, sizeof s->w);
    s->half = 1;
    return devo__u01(s->w[0], s->w[1]);
  }
  s->half = 0;
  return devo__u01(s->w[2], s->w[3]);
}

/* U[a, b) with b > a; a rounded-up product is drawn again. Returns a after g_stop (the caller
 * discards the row then). */
static double g_uniform(gstream *s, double a, double b)
{
  while (!g_stop(s)) {
    double x = a + (b - a) * g_u01(s);
    if (x < b)
      return x;
  }
  return a;
}

/* A standard normal; 0 after g_stop. */
static double g_normal(gstream *s)
{
  while (!g_stop(s)) {
    double u = 2.0 * g_u01(s) - 1.0, v = 2.0 * g_u01(s) - 1.0, q = u * u + v * v;
    if (q > 0.0 && q < 1.0)
      return u * sqrt(-2.0 * log(q) / q);
  }
  return 0.0;
}

/* Gamma(shape a, scale 1) by Marsaglia-Tsang; for a < 1 the boost Gamma(a + 1) * U^(1/a) of the
 * same paper. Redrawn when the result underflows to 0, since ETC values must be > 0. Needs a
 * finite a > 0 (devo__etcgen_run checks 1/V^2); returns 1 after g_stop. */
static double g_gamma(gstream *s, double a)
{
  while (!g_stop(s)) {
    double boost = 1.0, aa = a, d, c, x, v, u, r;
    if (aa < 1.0) {
      boost = pow(g_u01(s), 1.0 / aa);
      aa += 1.0;
    }
    d = aa - 1.0 / 3.0;
    c = 1.0 / sqrt(9.0 * d);
    for (;;) {
      if (g_stop(s))
        return 1.0;
      x = g_normal(s);
      v = 1.0 + c * x;
      if (v <= 0.0)
        continue;
      v = v * v * v;
      u = g_u01(s);
      if (u < 1.0 - 0.0331 * (x * x) * (x * x))
        break;
      if (u > 0.0 && log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
        break;
    }
    r = d * v * boost;
    if (r > 0.0)
      return r;
  }
  return 1.0;
}

/* Ascending insertion sort of n values with stride: rows are short (machines). */
static void sort_strided(double *x, int n, int stride)
{
  int i, k;
  for (i = 1; i < n; ++i) {
    double v = x[i * stride];
    for (k = i - 1; k >= 0 && x[k * stride] > v; --k)
      x[(k + 1) * stride] = x[k * stride];
    x[(k + 1) * stride] = v;
  }
}

void devo__etcgen_defaults(devo__etcgen *g)
{
  memset(g, 0, sizeof *g);
  g->ntasks = 512;
  g->nmach = 16;
  g->method = DEVO__ETCGEN_RANGE;
  g->consistency = DEVO__ETCGEN_INCONSISTENT;
  g->r_task = DEVO__ETCGEN_TASK_HI;
  g->r_mach = DEVO__ETCGEN_MACH_HI;
  g->mean = 1000.0;
  g->v_task = 0.1;
  g->v_mach = 0.1;
  g->seed = 1;
}

int devo__etcgen_class(devo__etcgen *g, const char *name)
{
  static const char cons[3] = {'c', 's', 'i'};
  static const int consv[3] = {DEVO__ETCGEN_CONSISTENT, DEVO__ETCGEN_SEMI,
                               DEVO__ETCGEN_INCONSISTENT};
  int k;
  if (!name || strlen(name) != 8 || name[0] != 'u' || name[1] != '_' || name[3] != '_')
    return -1;
  for (k = 0; k < 3 && name[2] != cons[k]; ++k)
    ;
  if (k == 3)
    return -1;
  if ((strncmp(name + 4, "hi", 2) != 0 && strncmp(name + 4, "lo", 2) != 0) ||
      (strcmp(name + 6, "hi") != 0 && strcmp(name + 6, "lo") != 0))
    return -1;
  g->method = DEVO__ETCGEN_RANGE;
  g->consistency = consv[k];
  g->r_task = name[4] == 'h' ? DEVO__ETCGEN_TASK_HI : DEVO__ETCGEN_TASK_LO;
  g->r_mach = name[6] == 'h' ? DEVO__ETCGEN_MACH_HI : DEVO__ETCGEN_MACH_LO;
  return 0;
}

const char *devo__etcgen_class_name(const devo__etcgen *g)
{
  static const char *const names[3][2][2] = {
      {{"u_c_lolo", "u_c_lohi"}, {"u_c_hilo", "u_c_hihi"}},
      {{"u_s_lolo", "u_s_lohi"}, {"u_s_hilo", "u_s_hihi"}},
      {{"u_i_lolo", "u_i_lohi"}, {"u_i_hilo", "u_i_hihi"}}};
  int th, mh;
  if (g->method != DEVO__ETCGEN_RANGE || g->consistency < 0 || g->consistency > 2)
    return NULL;
  if (g->r_task == DEVO__ETCGEN_TASK_HI)
    th = 1;
  else if (g->r_task == DEVO__ETCGEN_TASK_LO)
    th = 0;
  else
    return NULL;
  if (g->r_mach == DEVO__ETCGEN_MACH_HI)
    mh = 1;
  else if (g->r_mach == DEVO__ETCGEN_MACH_LO)
    mh = 0;
  else
    return NULL;
  return names[g->consistency][th][mh];
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int gen_err(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  if (err && errlen) {
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int devo__etcgen_run(const devo__etcgen *g, double *out, char *err, size_t errlen)
{
  int n, m, t, j;
  if (!g || !out)
    return gen_err(err, errlen, "etc-gen: NULL argument");
  n = g->ntasks;
  m = g->nmach;
  if (n < 1 || n > DEVO_ETC_MAX_TASKS)
    return gen_err(err, errlen, "%d tasks: must be 1 .. %d", n, DEVO_ETC_MAX_TASKS);
  if (m < 2 || m > DEVO_ETC_MAX_MACHINES)
    return gen_err(err, errlen, "%d machines: must be 2 .. %d", m, DEVO_ETC_MAX_MACHINES);
  if ((long long)n * m > DEVO_ETC_MAX_CELLS)
    return gen_err(err, errlen, "%d x %d values: more than %d", n, m, DEVO_ETC_MAX_CELLS);
  if (g->consistency < DEVO__ETCGEN_CONSISTENT || g->consistency > DEVO__ETCGEN_INCONSISTENT)
    return gen_err(err, errlen, "unknown consistency %d", g->consistency);
  if (g->method == DEVO__ETCGEN_RANGE) {
    if (!(g->r_task > 1.0 && g->r_task <= DEVO__ETCGEN_R_MAX) ||
        !(g->r_mach > 1.0 && g->r_mach <= DEVO__ETCGEN_R_MAX))
      return gen_err(err, errlen, "heterogeneity ranges must be in (1, %g]: %g, %g",
                     DEVO__ETCGEN_R_MAX, g->r_task, g->r_mach);
  } else if (g->method == DEVO__ETCGEN_CVB) {
    /* written as "in range" tests so that NaN fails them too */
    if (!(g->mean >= DEVO__ETCGEN_MEAN_MIN && g->mean <= DEVO__ETCGEN_MEAN_MAX))
      return gen_err(err, errlen, "CVB mean task time %g: must be in [%g, %g]", g->mean,
                     DEVO__ETCGEN_MEAN_MIN, DEVO__ETCGEN_MEAN_MAX);
    if (!(g->v_task >= DEVO__ETCGEN_V_MIN && g->v_task <= DEVO__ETCGEN_V_MAX))
      return gen_err(err, errlen, "CVB task coefficient of variation %g: must be in [%g, %g]",
                     g->v_task, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX);
    if (!(g->v_mach >= DEVO__ETCGEN_V_MIN && g->v_mach <= DEVO__ETCGEN_V_MAX))
      return gen_err(err, errlen, "CVB machine coefficient of variation %g: must be in [%g, %g]",
                     g->v_mach, DEVO__ETCGEN_V_MIN, DEVO__ETCGEN_V_MAX);
  } else {
    return gen_err(err, errlen, "unknown method %d", g->method);
  }
  for (t = 0; t < n; ++t) {
    double *row = out + (size_t)t * m;
    gstream s;
    memset(&s, 0, sizeof s);
    s.seed = g->seed;
    s.task = (uint32_t)t;
    if (g->method == DEVO__ETCGEN_RANGE) {
      double q;
      g_budget(&s);
      q = g_uniform(&s, 1.0, g->r_task);
      for (j = 0; j < m; ++j) {
        g_budget(&s);
        row[j] = q * g_uniform(&s, 1.0, g->r_mach);
      }
    } else {
      double at = 1.0 / (g->v_task * g->v_task), am = 1.0 / (g->v_mach * g->v_mach), q;
      /* A draw is redrawn only when it is not a good value, which happens only in the far lower
       * tail of a gamma with a large V (an underflow): rows whose numbers were all good before
       * stay the same. The baseline must also leave the row's scale q / am good: at 0 (or a
       * subnormal) no redraw of an entry could give a good value. */
      g_budget(&s);
      do
        q = g_gamma(&s, at) * (g->mean / at);
      while (!(g_good(q) && g_good(q / am)) && !g_stop(&s));
      for (j = 0; j < m; ++j) {
        double x;
        g_budget(&s);
        do
          x = g_gamma(&s, am) * (q / am);
        while (!g_good(x) && !g_stop(&s));
        row[j] = x;
      }
    }
    if (s.failed)
      return gen_err(err, errlen,
                     "task %d: no positive normal value within %u random blocks; the parameters "
                     "are too extreme",
                     t, ETCGEN_VALUE_BLOCKS);
    if (g->consistency == DEVO__ETCGEN_CONSISTENT)
      sort_strided(row, m, 1);
    else if (g->consistency == DEVO__ETCGEN_SEMI)
      sort_strided(row, (m + 1) / 2, 2);
  }
  return 0;
}
