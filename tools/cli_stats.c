/* SPDX-License-Identifier: MIT */
/* cli_stats.c: ranks, Mann-Whitney U and Friedman for `devo rank` (stats.h). Formulas: Mann and
 * Whitney 1947 (U, its null distribution as the coefficients of the Gaussian binomial
 * [m+n choose m]_q), the normal approximation with the tie and continuity corrections and
 * Friedman's statistic with its tie correction as SciPy 1.10 writes them (scipy.stats
 * mannwhitneyu, friedmanchisquare), the incomplete gamma function by its series and its
 * continued fraction (Abramowitz and Stegun 6.5.29, 6.5.31). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct keyed {
  st_key k;
  int i;
} keyed;

static int key_cmp(const st_key *a, const st_key *b)
{
  if (a->cls != b->cls)
    return a->cls < b->cls ? -1 : 1;
  return a->v < b->v ? -1 : a->v > b->v ? 1 : 0;
}

static int keyed_cmp(const void *x, const void *y)
{
  const keyed *a = (const keyed *)x, *b = (const keyed *)y;
  const int c = key_cmp(&a->k, &b->k);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

int st_rank(const st_key *k, int n, double *rank, double *tie_term)
{
  keyed *s = (keyed *)malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
  int i, j;
  double ties = 0.0;
  if (!s)
    return -1;
  for (i = 0; i < n; ++i) {
    s[i].k = k[i];
    s[i].i = i;
  }
  qsort(s, (size_t)n, sizeof *s, keyed_cmp);
  for (i = 0; i < n; i = j) {
    double avg, t;
    for (j = i + 1; j < n && key_cmp(&s[j].k, &s[i].k) == 0; ++j)
      ;
    avg = 0.5 * (double)(i + 1 + j); /* positions i+1 .. j */
    t = (double)(j - i);
    ties += t * t * t - t;
    for (int m = i; m < j; ++m)
      rank[s[m].i] = avg;
  }
  if (tie_term)
    *tie_term = ties;
  free(s);
  return 0;
}

/* P(U >= u) under the null for samples of m and n, by the counts of the Gaussian binomial
 * coefficient; -1 when the total count does not fit a long double exactly (then the caller uses
 * the normal approximation). */
static double exact_sf(int m, int n, double u)
{
  long double *c, total = 1.0L, tail = 0.0L;
  int len, j, v;
  if (m > n) {
    int t = m;
    m = n;
    n = t;
  }
  for (j = 1; j <= m; ++j)
    total = total * (long double)(n + j) / (long double)j;
  if (total > 1e19L)
    return -1.0;
  len = m * n + 1;
  c = (long double *)calloc((size_t)len, sizeof *c);
  if (!c)
    return -1.0;
  c[0] = 1.0L;
  /* prod_{j=1..m} (1 - q^(n+j)) / (1 - q^j), as power series truncated at q^len: exact, since
   * the product is a polynomial of degree m n */
  for (j = 1; j <= m; ++j) {
    for (v = len - 1; v >= n + j; --v)
      c[v] -= c[v - (n + j)];
    for (v = j; v < len; ++v)
      c[v] += c[v - j];
  }
  for (v = len - 1; v >= 0 && (double)v >= u; --v)
    tail += c[v];
  free(c);
  return (double)(tail / total);
}

int st_mannwhitney(const st_key *a, int na, const st_key *b, int nb, st_mwu *out)
{
  const int n = na + nb;
  st_key *all = (st_key *)malloc(sizeof *all * (size_t)n);
  double *r = (double *)malloc(sizeof *r * (size_t)n), ties = 0.0, r1 = 0.0, u, p = -1.0;
  int i;
  if (!all || !r || na < 1 || nb < 1) {
    free(all);
    free(r);
    return -1;
  }
  memcpy(all, a, sizeof *a * (size_t)na);
  memcpy(all + na, b, sizeof *b * (size_t)nb);
  if (st_rank(all, n, r, &ties) != 0) {
    free(all);
    free(r);
    return -1;
  }
  for (i = 0; i < na; ++i)
    r1 += r[i];
  free(all);
  free(r);
  out->u1 = r1 - 0.5 * na * (na + 1.0);
  u = fmax(out->u1, (double)na * nb - out->u1);
  out->exact = 0;
  if ((na <= 8 || nb <= 8) && ties == 0.0) {
    p = exact_sf(na, nb, u);
    out->exact = p >= 0.0;
  }
  if (!out->exact) {
    const double mu = 0.5 * na * nb;
    const double s = sqrt((double)na * nb / 12.0 * ((n + 1.0) - ties / ((double)n * (n - 1.0))));
    const double z = (u - mu - 0.5) / s;
    p = s > 0.0 ? 0.5 * erfc(z / sqrt(2.0)) : 1.0; /* all tied: no evidence */
  }
  out->p = fmin(2.0 * p, 1.0);
  return 0;
}

/* Regularized lower incomplete gamma P(a, x) by its series (x < a + 1). */
static double gamma_p_series(double a, double x)
{
  double ap = a, del = 1.0 / a, sum = del;
  int i;
  for (i = 0; i < 10000; ++i) {
    ap += 1.0;
    del *= x / ap;
    sum += del;
    if (fabs(del) < fabs(sum) * 1e-17)
      break;
  }
  return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Regularized upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1), evaluated
 * with the modified Lentz method. */
static double gamma_q_cf(double a, double x)
{
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  int i;
  for (i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    double del;
    b += 2.0;
    d = an * d + b;
    if (fabs(d) < tiny)
      d = tiny;
    c = b + an / c;
    if (fabs(c) < tiny)
      c = tiny;
    d = 1.0 / d;
    del = d * c;
    h *= del;
    if (fabs(del - 1.0) < 1e-16)
      break;
  }
  return exp(-x + a * log(x) - lgamma(a)) * h;
}

double st_chi2_sf(double x, double df)
{
  const double a = 0.5 * df, y = 0.5 * x;
  if (!(x > 0.0))
    return 1.0;
  return y < a + 1.0 ? 1.0 - gamma_p_series(a, y) : gamma_q_cf(a, y);
}

int st_friedman_test(const double *x, int nb, int k, double *mean_rank, st_friedman *out)
{
  st_key *row = (st_key *)malloc(sizeof *row * (size_t)(k > 0 ? k : 1));
  double *r = (double *)malloc(sizeof *r * (size_t)(k > 0 ? k : 1)), ties = 0.0, ss = 0.0, c;
  int b, j;
  if (!row || !r || nb < 2 || k < 2) {
    free(row);
    free(r);
    return -1;
  }
  for (j = 0; j < k; ++j)
    mean_rank[j] = 0.0;
  for (b = 0; b < nb; ++b) {
    double t;
    for (j = 0; j < k; ++j) {
      row[j].cls = 0;
      row[j].v = x[(size_t)b * k + j];
    }
    if (st_rank(row, k, r, &t) != 0) {
      free(row);
      free(r);
      return -1;
    }
    ties += t;
    for (j = 0; j < k; ++j)
      mean_rank[j] += r[j]; /* rank sums, 1 = worst */
  }
  for (j = 0; j < k; ++j)
    ss += mean_rank[j] * mean_rank[j];
  c = 1.0 - ties / ((double)k * (k * (double)k - 1.0) * nb);
  out->df = k - 1;
  out->chi2 = (12.0 / ((double)k * nb * (k + 1.0)) * ss - 3.0 * nb * (k + 1.0)) / c;
  out->p = c > 0.0 ? st_chi2_sf(out->chi2, out->df) : (double)NAN;
  if (!(c > 0.0))
    out->chi2 = (double)NAN;
  for (j = 0; j < k; ++j)
    mean_rank[j] = (k + 1.0) - mean_rank[j] / nb; /* 1 = best */
  free(row);
  free(r);
  return 0;
}
