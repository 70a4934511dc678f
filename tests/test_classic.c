/* SPDX-License-Identifier: MIT */
/* test_classic.c: the four classic shifted functions: f(o) = 0 exactly, values at fixed points
 * against an independent computation written out here, and the generated shift vectors. */
#include <math.h>
#include <stdlib.h>

#include "engine/include/devo.h"
#include "tests/tcheck.h"

static const char *const names[] = {"sphere", "rosenbrock", "griewank", "rastrigin"};

/* Independent formulas, written from the definitions (issue 2 / CEC 2005), not from classic.h. */
static double ref_value(int f, const double *x, const double *o, int d)
{
  long double s = 0.0L, p = 1.0L;
  int i;
  for (i = 0; i < d; ++i) {
    long double z = (long double)x[i] - (long double)o[i];
    switch (f) {
    case 0:
      s += z * z;
      break;
    case 1:
      if (i + 1 < d) {
        long double zi = z + 1.0L, zn = (long double)x[i + 1] - (long double)o[i + 1] + 1.0L;
        s += 100.0L * (zn - zi * zi) * (zn - zi * zi) + (zi - 1.0L) * (zi - 1.0L);
      }
      break;
    case 2:
      s += z * z / 4000.0L;
      p *= cosl(z / sqrtl((long double)(i + 1)));
      break;
    default:
      s += z * z - 10.0L * cosl(2.0L * 3.14159265358979323846264L * z) + 10.0L;
      break;
    }
  }
  return (double)(f == 2 ? s - p + 1.0L : s);
}

static devo_problem *make(const char *name, int dim, uint64_t seed)
{
  devo_problem *p = NULL;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECKF(devo_problem_set_builtin(p, name, dim, seed, NULL) == DEVO_OK, "%s",
         devo_problem_errmsg(p));
  return p;
}

TEST_CASE(optimum_is_zero)
{
  static const int dims[] = {2, 10, 30, 100, 1000};
  int f, k;
  for (f = 0; f < 4; ++f)
    for (k = 0; k < 5; ++k) {
      devo_problem *p = make(names[f], dims[k], 12345);
      double *o = (double *)malloc((size_t)dims[k] * sizeof(double)), v = -1.0;
      CHECK(devo_problem_optimum(p, o) == DEVO_OK);
      CHECK(devo_problem_eval(p, o, &v) == DEVO_OK);
      CHECKF(v == 0.0, "%s D=%d: f(o) = %.17g", names[f], dims[k], v);
      CHECK(devo_problem_fstar(p) == 0.0);
      free(o);
      devo_problem_destroy(p);
    }
}

/* Three fixed points per function: o + (1, 1, ...), o + (0.5, -0.25, 2, ...) pattern, and the
 * origin; compared with the long-double formulas above. */
TEST_CASE(fixed_points)
{
  int f, k, j, d = 10;
  double o[10], x[10], v;
  for (f = 0; f < 4; ++f) {
    devo_problem *p = make(names[f], d, 7);
    CHECK(devo_problem_optimum(p, o) == DEVO_OK);
    for (k = 0; k < 3; ++k) {
      for (j = 0; j < d; ++j) {
        if (k == 0)
          x[j] = o[j] + 1.0;
        else if (k == 1)
          x[j] = o[j] + (j % 3 == 0 ? 0.5 : (j % 3 == 1 ? -0.25 : 2.0));
        else
          x[j] = 0.0;
      }
      CHECK(devo_problem_eval(p, x, &v) == DEVO_OK);
      CHECK_CLOSE(v, ref_value(f, x, o, d), 1e-13, 1e-12);
      CHECK(v > 0.0);
    }
    devo_problem_destroy(p);
  }
}

/* Values worked out by hand with o chosen so that x - o is exact: at D = 2 with z = (1, 0) the
 * sphere is 1 and Rastrigin is 1 - 10 cos(2 pi) + 10 = 1; at z = (0.5, 0.5) Rastrigin is
 * 2 (0.25 + 20) = 40.5; Rosenbrock at z = (0, 0) (z + 1 = (1, 1)) is 0 and at z = (1, 0) it is
 * 100 (1 - 4)^2 + 1 = 901. The shift o is read back and x built as o + z, so z is exact when the
 * additions are (they are: |o| <= 80 and z has few bits). */
TEST_CASE(hand_values)
{
  double o[2], x[2], v;
  devo_problem *p = make("sphere", 2, 3);
  CHECK(devo_problem_optimum(p, o) == DEVO_OK);
  x[0] = o[0] + 1.0;
  x[1] = o[1];
  /* sum (x_j - o_j)^2 with the difference actually represented (o_0 + 1 may round): one term */
  CHECK(devo_problem_eval(p, x, &v) == DEVO_OK);
  CHECK(v == (x[0] - o[0]) * (x[0] - o[0]));
  CHECK(fabs(v - 1.0) <= 1e-13);
  devo_problem_destroy(p);
  p = make("rastrigin", 2, 3);
  x[0] = o[0] + 0.5;
  x[1] = o[1] + 0.5;
  CHECK(devo_problem_eval(p, x, &v) == DEVO_OK);
  CHECK_CLOSE(v, 40.5, 1e-14, 0.0);
  devo_problem_destroy(p);
  p = make("rosenbrock", 2, 3);
  x[0] = o[0] + 1.0;
  x[1] = o[1];
  CHECK(devo_problem_eval(p, x, &v) == DEVO_OK);
  CHECK_CLOSE(v, 901.0, 1e-13, 0.0);
  devo_problem_destroy(p);
}

TEST_CASE(shift_range_and_prefix)
{
  devo_problem *a = make("sphere", 1000, 99), *b = make("rastrigin", 10, 99),
               *c = make("sphere", 10, 100);
  double oa[1000], ob[10], oc[10], lo, hi;
  int j, same = 0;
  CHECK(devo_problem_optimum(a, oa) == DEVO_OK);
  CHECK(devo_problem_optimum(b, ob) == DEVO_OK);
  CHECK(devo_problem_optimum(c, oc) == DEVO_OK);
  for (j = 0; j < 1000; ++j)
    CHECK(oa[j] >= -80.0 && oa[j] <= 80.0);
  for (j = 0; j < 10; ++j) {
    CHECK(oa[j] == ob[j]);
    same += oa[j] == oc[j];
  }
  CHECK(same == 0);
  CHECK(devo_problem_bounds(a, &lo, &hi) == DEVO_OK);
  CHECK(lo == -100.0 && hi == 100.0);
  devo_problem_destroy(a);
  devo_problem_destroy(b);
  devo_problem_destroy(c);
}

static const tc_case cases[] = {TC(optimum_is_zero), TC(fixed_points), TC(hand_values),
                                TC(shift_range_and_prefix)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
