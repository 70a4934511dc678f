/* SPDX-License-Identifier: MIT */
/* test_soco.c: the SOCO 2010 functions soco:f1..soco:f19 (issue 22): f(o) = f* exactly from
 * D = 50 to 5000 (and 10^6 for a few), values computed by hand at D = 2 and 3, the D = 50 reference
 * table (docs/soco.md) against an independent long double implementation written here from the
 * suite's definitions (array-based split, as the reference code's divideFunctions), the
 * generated shifts, and the search-box setters (devo_problem_set_box, devo_problem_set_ranges,
 * --lower/--upper/--ranges). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "problems/soco.h"
#include "tests/tcheck.h"

#define PI_L 3.14159265358979323846264338327950288L

static devo_problem *make(int id, int dim, uint64_t seed)
{
  devo_problem *p = NULL;
  char name[16];
  snprintf(name, sizeof name, "soco:f%d", id);
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, name, dim, seed, NULL) == DEVO_OK, "%s D=%d: %s", name, dim,
         devo_problem_errmsg(p));
  return p;
}

static double eval(const devo_problem *p, const double *x)
{
  double f = NAN;
  CHECK(devo_problem_eval(p, x, &f) == DEVO_OK);
  return f;
}

/* ---- an independent implementation, from the suite's definitions -------------------------- */

static const long double bias_l[7] = {0, -450, -450, 390, -330, -180, -140};

static long double f10_l(long double x, long double y)
{
  long double p = x * x + y * y, t = sinl(50.0L * powl(p, 0.1L));
  return powl(p, 0.25L) * (t * t + 1.0L);
}

/* Basic function b (1..11 as F1..F11, no bias) on n values z (already shifted). */
static long double basic_l(int b, const long double *z, int n)
{
  long double s = 0.0L, p = 1.0L, run = 0.0L;
  int i;
  switch (b) {
  case 1:
    for (i = 0; i < n; ++i)
      s += z[i] * z[i];
    return s;
  case 2:
    for (i = 0; i < n; ++i)
      s = fabsl(z[i]) > s ? fabsl(z[i]) : s;
    return s;
  case 3:
    for (i = 0; i + 1 < n; ++i) {
      long double a = z[i] + 1.0L, c = z[i + 1] + 1.0L;
      s += 100.0L * (a * a - c) * (a * a - c) + (a - 1.0L) * (a - 1.0L);
    }
    return s;
  case 4:
    for (i = 0; i < n; ++i)
      s += z[i] * z[i] - 10.0L * cosl(2.0L * PI_L * z[i]) + 10.0L;
    return s;
  case 5:
    for (i = 0; i < n; ++i) {
      s += z[i] * z[i] / 4000.0L;
      p *= cosl(z[i] / sqrtl((long double)(i + 1)));
    }
    return s - p + 1.0L;
  case 6: {
    long double c = 0.0L;
    for (i = 0; i < n; ++i) {
      s += z[i] * z[i];
      c += cosl(2.0L * PI_L * z[i]);
    }
    return -20.0L * expl(-0.2L * sqrtl(s / n)) - expl(c / n) + 20.0L + expl(1.0L);
  }
  case 7:
    for (i = 0; i < n; ++i) {
      s += fabsl(z[i]);
      p *= fabsl(z[i]);
    }
    return s + p;
  case 8:
    for (i = 0; i < n; ++i) {
      run += z[i];
      s += run * run;
    }
    return s;
  case 9:
    for (i = 0; i + 1 < n; ++i)
      s += f10_l(z[i], z[i + 1]);
    return s + f10_l(z[n - 1], z[0]);
  case 10:
    for (i = 0; i + 1 < n; ++i)
      s += z[i] * z[i] + 2.0L * z[i + 1] * z[i + 1] - 0.3L * cosl(3.0L * PI_L * z[i]) -
           0.4L * cosl(4.0L * PI_L * z[i + 1]) + 0.7L;
    return s;
  default: /* 11 */
    for (i = 0; i + 1 < n; ++i)
      s += f10_l(z[i], z[i + 1]);
    return s;
  }
}

/* The reference code's divideFunctions: s = floor(D m) pairs (m <= 0.5) or floor(D (1 - m)),
 * alternating, then the rest in order to part2 (m <= 0.5) or part1. */
static void divide_l(const long double *v, int dim, double m, long double *p1, int *n1,
                     long double *p2, int *n2)
{
  int shared, i, rest2 = m <= 0.5;
  shared = (int)floor(dim * (rest2 ? m : 1.0 - m));
  for (i = 0; i < shared; ++i) {
    p1[i] = v[2 * i];
    p2[i] = v[2 * i + 1];
  }
  for (i = 2 * shared; i < dim; ++i)
    (rest2 ? p2 : p1)[shared + i - 2 * shared] = v[i];
  *n1 = rest2 ? shared : dim - shared;
  *n2 = dim - *n1;
}

/* f of function id at x, with the library's optimum o (its per-coordinate shift). Hybrids are
 * built as in the reference: F15/F19 shift the whole vector then split; F12-F14, F16-F18 split x
 * and shift only the second part (by the second part of o, whose first part must be 0). */
static long double ref_l(int id, const double *x, const double *o, int dim)
{
  static const int ns[8] = {9, 9, 9, 10, 9, 9, 9, 10}, sep[8] = {1, 3, 4, 7, 1, 3, 4, 7};
  static const double m[8] = {0.25, 0.25, 0.25, 0.25, 0.5, 0.75, 0.75, 0.75};
  long double *v = (long double *)calloc(5 * (size_t)dim, sizeof(long double)), r;
  long double *p1 = v + dim, *p2 = v + 2 * dim, *q1 = v + 3 * dim, *q2 = v + 4 * dim;
  int i, n1, n2, h;
  CHECK(v != NULL);
  if (id <= 11) {
    for (i = 0; i < dim; ++i)
      v[i] = (long double)x[i] - (long double)o[i];
    r = basic_l(id, v, dim) + (id <= 6 ? bias_l[id] : 0.0L);
  } else {
    h = id - 12;
    if (sep[h] == 7) {
      for (i = 0; i < dim; ++i)
        v[i] = (long double)x[i] - (long double)o[i];
      divide_l(v, dim, m[h], p1, &n1, p2, &n2);
    } else {
      for (i = 0; i < dim; ++i)
        v[i] = (long double)x[i];
      divide_l(v, dim, m[h], p1, &n1, p2, &n2);
      for (i = 0; i < dim; ++i)
        v[i] = (long double)o[i];
      divide_l(v, dim, m[h], q1, &n1, q2, &n2);
      for (i = 0; i < n1; ++i)
        CHECKF(q1[i] == 0.0L, "F%d: the optimum's F9 part is not 0 at %d", id, i);
      for (i = 0; i < n2; ++i)
        p2[i] -= q2[i];
    }
    r = basic_l(ns[h], p1, n1) + basic_l(sep[h], p2, n2);
  }
  free(v);
  return r;
}

static int close_to(double got, long double want, double rel)
{
  long double d = fabsl((long double)got - want), m = fabsl(want);
  return d <= (long double)rel * (m > 1.0L ? m : 1.0L);
}

/* ---- cases ------------------------------------------------------------------------------ */

TEST_CASE(optimum_is_fstar)
{
  static const int dims[] = {50, 100, 500, 1000, 5000};
  int id, k;
  for (id = 1; id <= 19; ++id)
    for (k = 0; k < 5; ++k) {
      devo_problem *p = make(id, dims[k], 20100);
      double *o = (double *)malloc((size_t)dims[k] * sizeof(double)), v, lo, hi;
      int j;
      CHECK(o != NULL);
      CHECK(devo_problem_optimum(p, o) == DEVO_OK);
      v = eval(p, o);
      CHECKF(v == devo_problem_fstar(p), "soco:f%d D=%d: f(o) = %.17g, f* = %g", id, dims[k], v,
             devo_problem_fstar(p));
      CHECK(devo_problem_bounds(p, &lo, &hi) == DEVO_OK);
      for (j = 0; j < dims[k]; ++j)
        CHECK(o[j] >= 0.8 * lo && o[j] <= 0.8 * hi);
      devo_problem_destroy(p);
      free(o);
    }
}

/* The CPU to D = 10^6: f(o) = f* and one point against the reference. */
TEST_CASE(million)
{
  static const int ids[] = {1, 4, 6, 8, 9, 12, 19};
  const int dim = 1000000;
  double *o = (double *)malloc((size_t)dim * sizeof(double)), *x, v;
  long double w;
  int k, j;
  CHECK(o != NULL);
  x = (double *)malloc((size_t)dim * sizeof(double));
  CHECK(x != NULL);
  for (k = 0; k < 7; ++k) {
    devo_problem *p = make(ids[k], dim, 5);
    CHECK(devo_problem_optimum(p, o) == DEVO_OK);
    v = eval(p, o);
    CHECKF(v == devo_problem_fstar(p), "soco:f%d D=10^6: f(o) = %.17g", ids[k], v);
    for (j = 0; j < dim; ++j)
      x[j] = o[j] + 0.001 * (double)((int)(((unsigned)j * 7919u) % 13u) - 6);
    v = eval(p, x);
    w = ref_l(ids[k], x, o, dim);
    CHECKF(close_to(v, w, 1e-9), "soco:f%d D=10^6: %.17g vs %.17Lg", ids[k], v, w);
    devo_problem_destroy(p);
  }
  free(o);
  free(x);
}

/* Values worked out by hand at x = o + d (d given), D = 2 and 3 (and D = 4 where a hybrid needs
 * it): the arithmetic is in the comments. */
TEST_CASE(hand_values)
{
  static const struct {
    int id, dim;
    double d[4];
    double want;
  } c[] = {
      /* F1: 1 + 4 - 450 */
      {1, 2, {1, 2}, -445.0},
      /* F2: max(1, 2) - 450 */
      {2, 2, {1, -2}, -448.0},
      /* F3: y = (2, 3): 100 (4 - 3)^2 + (2 - 1)^2 + 390 */
      {3, 2, {1, 2}, 491.0},
      /* F3, D = 3, y = (1, 2, 0): 100 (1 - 2)^2 + 0 + 100 (4 - 0)^2 + 1 + 390 */
      {3, 3, {0, 1, -1}, 2091.0},
      /* F4: (1 - 10 + 10) + (0.25 + 10 + 10) - 330 */
      {4, 2, {1, 0.5}, -308.75},
      /* F5, D = 2: (1 + 4) / 4000 - cos(1) cos(2 / sqrt 2) + 1 - 180 */
      {5, 2, {1, 2}, 0.00125 - 0.54030230586813972 * 0.15594369476537437 + 1.0 - 180.0},
      /* F6, D = 2, z = (1, 1): -20 exp(-0.2) - exp(1) + 20 + e - 140 */
      {6, 2, {1, 1}, -20.0 * 0.81873075307798186 + 20.0 - 140.0},
      /* F7: |1| + |-2| + |0.5| + 1 * 2 * 0.5 */
      {7, 3, {1, -2, 0.5}, 4.5},
      /* F8: prefix sums 1, -1, -0.5: 1 + 1 + 0.25 */
      {8, 3, {1, -2, 0.5}, 2.25},
      /* F9, D = 2, z = (1, 0): f10(1, 0) + f10(0, 1) = 2 (sin^2 50 + 1) */
      {9, 2, {1, 0}, 2.0 * (0.06884056385615803 + 1.0)},
      /* F10, D = 2: 1 + 2 (0.25) - 0.3 cos 3pi - 0.4 cos 2pi + 0.7 = 2.2 - 0.1 */
      {10, 2, {1, 0.5}, 2.1},
      /* F10, D = 3, z = (1, 0.5, 0): 2.1 + (0.25 + 0 - 0.3 cos(1.5 pi) - 0.4 + 0.7) */
      {10, 3, {1, 0.5, 0}, 2.1 + 0.55},
      /* F11, D = 3, z = (1, 0, 0): f10(1, 0) + f10(0, 0) = sin^2 50 + 1 */
      {11, 3, {1, 0, 0}, 0.06884056385615803 + 1.0},
      /* F16, D = 2: s = 1, part1 = (x0) unshifted F9: f10(0, 0) = 0, part2 = (x1) sphere: 9 */
      {16, 2, {0, 3}, 9.0},
      /* F12, D = 4: s = 1, part1 = (x0), part2 = (x1, x2, x3) - o: F9 of one 0 + 1 + 4 + 0 */
      {12, 4, {0, 1, 2, 0}, 5.0},
      /* F19, D = 4: s = 1, part1 = (z0, z2, z3) Bohachevsky, part2 = (z1) Schwefel 2.22:
       * z = (0, 2, 0, 0): |2| + 2 */
      {19, 4, {0, 2, 0, 0}, 4.0},
  };
  size_t k;
  for (k = 0; k < sizeof c / sizeof c[0]; ++k) {
    devo_problem *p = make(c[k].id, c[k].dim, 77);
    double o[4], x[4], v;
    int j;
    CHECK(devo_problem_optimum(p, o) == DEVO_OK);
    for (j = 0; j < c[k].dim; ++j)
      x[j] = o[j] + c[k].d[j];
    v = eval(p, x);
    /* x = o + d is rounded: allow a few ulps of the shift's size */
    CHECKF(fabs(v - c[k].want) <= 1e-11 * (fabs(c[k].want) > 1 ? fabs(c[k].want) : 1.0),
           "soco:f%d D=%d: %.17g, by hand %.17g", c[k].id, c[k].dim, v, c[k].want);
    CHECKF(close_to(v, ref_l(c[k].id, x, o, c[k].dim), 1e-12), "soco:f%d D=%d: %.17g vs %.17Lg",
           c[k].id, c[k].dim, v, ref_l(c[k].id, x, o, c[k].dim));
    devo_problem_destroy(p);
  }
}

/* The table of docs/soco.md: f at the optimum, the origin and the two box corners, D = 50, data
 * seed 1, against the independent implementation (1e-12 relative of max(1, |f|)); and random
 * points in the box at several D, including the split's odd sizes. */
TEST_CASE(reference_table)
{
  const int dim = 50;
  int id, j, k;
  for (id = 1; id <= 19; ++id) {
    devo_problem *p = make(id, dim, 1);
    double o[50], x[50], lo, hi, v;
    CHECK(devo_problem_optimum(p, o) == DEVO_OK);
    CHECK(devo_problem_bounds(p, &lo, &hi) == DEVO_OK);
    for (k = 0; k < 4; ++k) {
      for (j = 0; j < dim; ++j)
        x[j] = k == 0 ? o[j] : k == 1 ? 0.0 : k == 2 ? lo : hi;
      v = eval(p, x);
      CHECKF(close_to(v, ref_l(id, x, o, dim), 1e-12), "soco:f%d point %d: %.17g vs %.17Lg", id, k,
             v, ref_l(id, x, o, dim));
    }
    devo_problem_destroy(p);
  }
}

TEST_CASE(random_points)
{
  static const int dims[] = {8, 9, 10, 11, 13, 50, 101, 1000};
  uint64_t s = 12345;
  int id, k, r, j;
  for (id = 1; id <= 19; ++id)
    for (k = 0; k < 8; ++k) {
      devo_problem *p = make(id, dims[k], 9);
      double *o = (double *)malloc((size_t)dims[k] * sizeof(double)), *x, lo, hi, v;
      CHECK(o != NULL);
      x = (double *)malloc((size_t)dims[k] * sizeof(double));
      CHECK(x != NULL);
      CHECK(devo_problem_optimum(p, o) == DEVO_OK);
      CHECK(devo_problem_bounds(p, &lo, &hi) == DEVO_OK);
      for (r = 0; r < 5; ++r) {
        for (j = 0; j < dims[k]; ++j) {
          s = s * 6364136223846793005ULL + 1442695040888963407ULL;
          /* near the optimum for r < 2 (where the product of F7 stays finite), else anywhere */
          double u = (double)(s >> 11) * (1.0 / 9007199254740992.0);
          x[j] = r < 2 ? o[j] + (u - 0.5) : lo + (hi - lo) * u;
        }
        v = eval(p, x);
        long double w = ref_l(id, x, o, dims[k]);
        if (isinf(v) || isinf(w) || w > 1e300L)
          CHECKF(isinf(v) && (isinf(w) || w > 1e300L), "soco:f%d D=%d: %.17g vs %.17Lg", id,
                 dims[k], v, w);
        else
          CHECKF(close_to(v, w, 1e-11), "soco:f%d D=%d point %d: %.17g vs %.17Lg", id, dims[k], r,
                 v, w);
      }
      devo_problem_destroy(p);
      free(o);
      free(x);
    }
}

/* The GPU's decomposition (kernels/gpu_common.cuh devo__gpu_eval_soco), run here sequentially:
 * per-coordinate terms and auxiliaries in a strided order of `lanes` threads, combined per
 * thread then across threads, and F8 as a chunked scan with a carry; it must match the CPU's
 * devo__soco_eval within 1e-12 relative (only the summation order differs). */
TEST_CASE(gpu_decomposition)
{
  static const int dims[] = {2, 4, 7, 8, 9, 10, 31, 33, 50, 101, 1000, 3000};
  static const int lane_counts[] = {1, 4, 32, 64, 1024};
  int id, di, li;
  for (id = 1; id <= 19; ++id)
    for (di = 0; di < 12; ++di) {
      const int d = dims[di];
      devo_problem *p;
      double *x;
      if (d < devo__soco_min_dim(id))
        continue;
      p = make(id, d, 21);
      x = (double *)malloc((size_t)d * sizeof(double));
      CHECK(x != NULL);
      for (int j = 0; j < d; ++j)
        x[j] = p->shift[j] + 0.37 * (double)((j * 5) % 11 - 5);
      const double want = eval(p, x);
      const devo__soco_shape sh = devo__soco_shape_of(id);
      const devo__soco_split sp = devo__soco_split_of(sh.m4, d);
      for (li = 0; li < 5; ++li) {
        const int lanes = lane_counts[li];
        double sum = 0.0, aux, got;
        const int op = devo__soco_aux_op(sh.p2 ? sh.p2 : sh.p1);
        aux = op == 1 ? 1.0 : 0.0;
        if (id == 8) {
          double carry = 0.0;
          for (int base = 0; base < d; base += lanes) {
            double run = 0.0;
            for (int l = 0; l < lanes && base + l < d; ++l) {
              run += x[base + l] - p->shift[base + l];
              sum += (carry + run) * (carry + run);
            }
            carry += run;
          }
          got = sum;
        } else {
          for (int l = 0; l < lanes; ++l) {
            double ts = 0.0, ta = op == 1 ? 1.0 : 0.0, w;
            for (int j = l; j < d; j += lanes) {
              ts += devo__soco_coord_term(&sh, &sp, j, x, p->shift, &w);
              ta = op == 1 ? ta * w : op == 2 ? ta + w : (w > ta ? w : ta);
            }
            sum += ts;
            aux = op == 1 ? aux * ta : op == 2 ? aux + ta : (ta > aux ? ta : aux);
          }
          got = devo__soco_finish(id, d, sum, op ? aux : 0.0);
        }
        CHECKF(close_to(got, (long double)want, 1e-12), "soco:f%d D=%d lanes %d: %.17g vs %.17g",
               id, d, lanes, got, want);
      }
      devo_problem_destroy(p);
      free(x);
    }
}

/* The generated shift: in 80% of the box, the same coordinate values for every D (outside a
 * hybrid's unshifted part), different between functions and seeds; too small a D is refused. */
TEST_CASE(shift_draw)
{
  devo_problem *a = make(1, 1000, 3), *b = make(1, 10, 3), *c = make(4, 10, 3), *d = make(1, 10, 4),
               *q = NULL;
  double oa[1000], ob[10], oc[10], od[10];
  int j, same_c = 0, same_d = 0;
  CHECK(devo_problem_optimum(a, oa) == DEVO_OK);
  CHECK(devo_problem_optimum(b, ob) == DEVO_OK);
  CHECK(devo_problem_optimum(c, oc) == DEVO_OK);
  CHECK(devo_problem_optimum(d, od) == DEVO_OK);
  for (j = 0; j < 10; ++j) {
    CHECK(oa[j] == ob[j]);
    CHECK(oc[j] >= -4.0 && oc[j] <= 4.0);
    same_c += oc[j] * 20.0 == ob[j];
    same_d += od[j] == ob[j];
  }
  CHECK(same_c == 0 && same_d == 0);
  CHECK(devo_problem_create(&q, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(q, "soco:f17", 7, 1, NULL) == DEVO_E_INVALID);
  CHECK(strstr(devo_problem_errmsg(q), "D >= 8") != NULL);
  CHECK(devo_problem_set_builtin(q, "soco:f20", 50, 1, NULL) == DEVO_E_INVALID);
  CHECK(devo_problem_set_builtin(q, "SOCO:F17", 8, 1, NULL) == DEVO_OK);
  devo_problem_destroy(q);
  devo_problem_destroy(a);
  devo_problem_destroy(b);
  devo_problem_destroy(c);
  devo_problem_destroy(d);
}

/* The catalogue: 19 entries with their range, f* and smallest D. */
TEST_CASE(catalogue)
{
  static const double half[19] = {100, 100, 100, 5, 600, 32,  10,  65.536, 100, 15,
                                  100, 100, 100, 5, 10,  100, 100, 5,      10};
  int n = devo_builtin_count(), id, found = 0, i;
  for (i = 0; i < n; ++i) {
    devo_builtin_info b;
    CHECK(devo_builtin_get(i, &b) == DEVO_OK);
    if (strncmp(b.name, "soco:f", 6) != 0)
      continue;
    id = atoi(b.name + 6);
    CHECK(id >= 1 && id <= 19);
    CHECK(b.lower == -half[id - 1] && b.upper == half[id - 1]);
    CHECK(b.fstar == (double)(id <= 6 ? bias_l[id] : 0.0L));
    CHECK(b.min_dim >= 2 && b.min_dim <= 8);
    found++;
  }
  CHECK(found == 19);
}

/* devo_problem_set_box: validated, the optimum must stay inside; set_ranges("cec2005"). */
TEST_CASE(box_setters)
{
  devo_problem *p = make(4, 50, 1), *q = NULL;
  double o[50], lo, hi, os[10];
  int j;
  CHECK(devo_problem_optimum(p, o) == DEVO_OK);
  CHECK(devo_problem_set_box(p, -4.5, 4.5) == DEVO_OK);
  CHECK(devo_problem_bounds(p, &lo, &hi) == DEVO_OK && lo == -4.5 && hi == 4.5);
  CHECK(devo_problem_set_box(p, 0.0, 5.0) == DEVO_E_INVALID);
  CHECK(strstr(devo_problem_errmsg(p), "excludes the optimum") != NULL);
  CHECK(devo_problem_set_box(p, 5.0, -5.0) == DEVO_E_INVALID);
  CHECK(devo_problem_set_box(p, (double)NAN, 5.0) == DEVO_E_INVALID);
  CHECK(devo_problem_set_box(p, -1e308, 1e308) == DEVO_E_INVALID); /* width overflows */
  CHECK(devo_problem_bounds(p, &lo, &hi) == DEVO_OK && lo == -4.5 && hi == 4.5); /* unchanged */
  CHECK(devo_problem_set_ranges(p, "cec2005") == DEVO_E_INVALID); /* not a classic function */
  CHECK(devo_problem_create(&q, NULL) == DEVO_OK);
  CHECK(devo_problem_set_box(q, -1, 1) == DEVO_E_STATE);
  /* the classic functions: sphere keeps its shift, rastrigin moves into [-4, 4] */
  CHECK(devo_problem_set_builtin(q, "sphere", 10, 8, NULL) == DEVO_OK);
  CHECK(devo_problem_optimum(q, os) == DEVO_OK);
  CHECK(devo_problem_set_ranges(q, "cec2005") == DEVO_OK);
  CHECK(devo_problem_optimum(q, o) == DEVO_OK);
  CHECK(memcmp(o, os, sizeof os) == 0);
  CHECK(devo_problem_set_builtin(q, "rastrigin", 10, 8, NULL) == DEVO_OK);
  CHECK(devo_problem_set_ranges(q, "cec2005") == DEVO_OK);
  CHECK(devo_problem_bounds(q, &lo, &hi) == DEVO_OK && lo == -5.0 && hi == 5.0);
  CHECK(devo_problem_optimum(q, o) == DEVO_OK);
  for (j = 0; j < 10; ++j)
    CHECK(o[j] >= -4.0 && o[j] <= 4.0 && fabs(o[j] * 20.0 - os[j]) <= 1e-13);
  CHECK(eval(q, o) == 0.0);
  CHECK(devo_problem_set_builtin(q, "griewank", 10, 8, NULL) == DEVO_OK);
  CHECK(devo_problem_set_ranges(q, "cec2005") == DEVO_OK);
  CHECK(devo_problem_bounds(q, &lo, &hi) == DEVO_OK && lo == -600.0 && hi == 600.0);
  CHECK(devo_problem_set_ranges(q, "default") == DEVO_OK);
  CHECK(devo_problem_bounds(q, &lo, &hi) == DEVO_OK && lo == -100.0 && hi == 100.0);
  CHECK(devo_problem_optimum(q, o) == DEVO_OK);
  CHECK(memcmp(o, os, sizeof os) == 0);
  CHECK(devo_problem_set_ranges(q, "cec2008") == DEVO_E_INVALID);
  devo_problem_destroy(p);
  devo_problem_destroy(q);
}

/* The CLI: bad boxes exit 2 with one line naming why; a good one solves. */
TEST_CASE(cli_box)
{
  const char *bin = tc_devo_bin();
  char cmd[1024], *out = NULL, *errs = NULL;
  int rc;
  snprintf(cmd, sizeof cmd, "'%s' solve --problem soco:f4 --dim 50 --lower 0 --upper 5", bin);
  tc_expect_refused(cmd, 2, "devo solve: ", "excludes the optimum");
  snprintf(cmd, sizeof cmd, "'%s' solve --problem soco:f4 --dim 50 --lower 5 --upper -5", bin);
  tc_expect_refused(cmd, 2, "devo solve: ", "lower < upper");
  snprintf(cmd, sizeof cmd, "'%s' solve --problem soco:f1 --dim 50 --upper inf", bin);
  tc_expect_refused(cmd, 2, "devo solve: ", "finite");
  snprintf(cmd, sizeof cmd, "'%s' solve --problem soco:f1 --dim 50 --ranges cec2005", bin);
  tc_expect_refused(cmd, 2, "devo solve: ", "classic");
  snprintf(cmd, sizeof cmd, "'%s' eval --problem sphere --dim 2 --ranges cec1999", bin);
  tc_expect_refused(cmd, 2, "devo eval: ", "unknown ranges");
  snprintf(cmd, sizeof cmd,
           "'%s' solve --problem rastrigin --dim 10 --ranges cec2005 --max-evals 2000 --json", bin);
  rc = tc_run(cmd, &out, &errs);
  CHECKF(rc == 0, "rc %d: %s", rc, errs ? errs : "");
  free(out);
  free(errs);
  snprintf(cmd, sizeof cmd, "'%s' list-problems", bin);
  rc = tc_run(cmd, &out, &errs);
  CHECK(rc == 0 && out && strstr(out, "soco:f19") && strstr(out, "[-65.536, 65.536]"));
  free(out);
  free(errs);
}

static const tc_case cases[] = {TC(optimum_is_fstar), TC(million),       TC(hand_values),
                                TC(reference_table),  TC(random_points), TC(shift_draw),
                                TC(catalogue),        TC(box_setters),   TC(cli_box),
                                TC(gpu_decomposition)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
