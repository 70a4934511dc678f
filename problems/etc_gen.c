/* etc_gen.c: the ETC matrix generator of etc_gen.h (range-based method of Braun et al. 2001 and
 * Ali et al. 2000; CVB method of Ali et al. 2000), with gamma variates by G. Marsaglia and
 * W. W. Tsang, "A simple method for generating gamma variables", ACM TOMS 26(3):363-372, 2000,
 * and normals by Marsaglia's polar method (Marsaglia and Bray, SIAM Review 6(3), 1964). */
#include "etc_gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../engine/include/devo.h"
#include "philox.h"

/* The purpose word of the generator's counters ("ETCG"): apart from every purpose the solver
 * uses, so a matrix never shares random numbers with a run that has the same seed. */
#define ETCGEN_PURPOSE 0x45544347u

/* A sequential stream for one task: block k of Philox(seed; k, task, 0, purpose), two uniforms
 * per block. */
typedef struct gstream {
  uint64_t seed;
  uint32_t task, k;
  uint32_t w[4];
  int half; /* 0: next uniform from w[0..1] of a fresh block; 1: from w[2..3] */
} gstream;

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

/* U[a, b) with b > a; a rounded-up product is drawn again. */
static double g_uniform(gstream *s, double a, double b)
{
  for (;;) {
    double x = a + (b - a) * g_u01(s);
    if (x < b)
      return x;
  }
}

static double g_normal(gstream *s)
{
  for (;;) {
    double u = 2.0 * g_u01(s) - 1.0, v = 2.0 * g_u01(s) - 1.0, q = u * u + v * v;
    if (q > 0.0 && q < 1.0)
      return u * sqrt(-2.0 * log(q) / q);
  }
}

/* Gamma(shape a, scale 1) by Marsaglia-Tsang; for a < 1 the boost Gamma(a + 1) * U^(1/a) of the
 * same paper. Redrawn when the result underflows to 0, since ETC values must be > 0. */
static double g_gamma(gstream *s, double a)
{
  for (;;) {
    double boost = 1.0, aa = a, d, c, x, v, u, r;
    if (aa < 1.0) {
      boost = pow(g_u01(s), 1.0 / aa);
      aa += 1.0;
    }
    d = aa - 1.0 / 3.0;
    c = 1.0 / sqrt(9.0 * d);
    for (;;) {
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
    if (!(g->r_task > 1.0 && g->r_task <= 1e9) || !(g->r_mach > 1.0 && g->r_mach <= 1e9))
      return gen_err(err, errlen, "heterogeneity ranges must be in (1, 1e9]: %g, %g", g->r_task,
                     g->r_mach);
  } else if (g->method == DEVO__ETCGEN_CVB) {
    if (!(g->mean > 0.0 && g->mean <= 1e12))
      return gen_err(err, errlen, "mean task time %g: must be in (0, 1e12]", g->mean);
    if (!(g->v_task > 0.0 && g->v_task <= 5.0) || !(g->v_mach > 0.0 && g->v_mach <= 5.0))
      return gen_err(err, errlen, "coefficients of variation must be in (0, 5]: %g, %g",
                     g->v_task, g->v_mach);
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
      double q = g_uniform(&s, 1.0, g->r_task);
      for (j = 0; j < m; ++j)
        row[j] = q * g_uniform(&s, 1.0, g->r_mach);
    } else {
      double at = 1.0 / (g->v_task * g->v_task), am = 1.0 / (g->v_mach * g->v_mach);
      double q = g_gamma(&s, at) * (g->mean / at);
      for (j = 0; j < m; ++j) {
        double x;
        do
          x = g_gamma(&s, am) * (q / am);
        while (!(x > 0.0)); /* a product that underflows */
        row[j] = x;
      }
    }
    if (g->consistency == DEVO__ETCGEN_CONSISTENT)
      sort_strided(row, m, 1);
    else if (g->consistency == DEVO__ETCGEN_SEMI)
      sort_strided(row, (m + 1) / 2, 2);
  }
  return 0;
}
