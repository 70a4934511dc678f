/* SPDX-License-Identifier: MIT */
/* test_shade.c: JADE, SHADE and L-SHADE (issue 24; problems/de_shade.h, engine/cpu_shade.c, the
 * API and the CLI): the closed-form log, sin/cos and tan against libm, the laws of the Cauchy and
 * normal draws, the donors' ranges, the 32-lane sums, the memory updates and the archive rule by
 * hand, an independent sequential JADE/SHADE/L-SHADE written here from the papers' formulas that
 * the CPU backend must equal bit for bit after K generations, bit-identity across 1, 2 and 4
 * threads (classic, CEC and ETC problems), L-SHADE's population size against the schedule's
 * formula evaluated here, the archive never above its capacity, bad values at the API and the
 * CLI, and (slow) L-SHADE's quality against jDE and rand1bin on F03 and F05. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "engine/internal.h"
#include "problems/de_shade.h"
#include "tests/tcheck.h"

/* ---- closed-form math against libm ---- */

TEST_CASE(log_matches_libm)
{
  double worst = 0.0, at = 0.0;
  int k;
  for (k = 1; k <= 100000; ++k) {
    /* a spread over (0, 1]: uniform points, points near 1 and points down to 2^-60 */
    double x = k <= 40000   ? k / 40000.0
               : k <= 70000 ? 1.0 - (k - 40000) * 1e-12
                            : pow(2.0, -60.0 * (k - 70000) / 30000.0) * (1.0 - 1e-7 * (k % 7));
    double a = devo__sh_log(x), b = log(x), r;
    if (b == 0.0) {
      CHECK(a == 0.0);
      continue;
    }
    r = fabs(a - b) / fabs(b);
    if (r > worst)
      worst = r, at = x;
  }
  printf("devo__sh_log: largest relative error %.3g (at x = %.17g) over 1e5 points\n", worst, at);
  CHECKF(worst < 1e-14, "log: relative error %g at %.17g", worst, at);
  CHECK(devo__sh_log(1.0) == 0.0);
  CHECK_CLOSE(devo__sh_log(0x1p-53), -53.0 * log(2.0), 1e-15, 0.0);
}

TEST_CASE(sincospi_tanpi_match_libm)
{
  double ws = 0.0, wc = 0.0, wt = 0.0;
  int k;
  for (k = 0; k <= 100000; ++k) {
    double t = -1.0 + 2.0 * k / 100000.0, s, c;
    devo__sh_sincospi(t, &s, &c);
    /* libm's sin(pi t) carries pi t's rounding (about 4e-16 absolute at |t| = 1) */
    if (fabs(s - sin(DEVO_PI * t)) > ws)
      ws = fabs(s - sin(DEVO_PI * t));
    if (fabs(c - cos(DEVO_PI * t)) > wc)
      wc = fabs(c - cos(DEVO_PI * t));
    if (fabs(t) < 0.45) { /* tan(pi t) well conditioned here; near 1/2 the sin and cos above */
      double a = devo__sh_tanpi(t), b = tan(DEVO_PI * t);
      double r = b == 0.0 ? fabs(a) : fabs(a - b) / fabs(b);
      if (r > wt)
        wt = r;
    }
  }
  printf("sincospi: largest |error| sin %.3g cos %.3g; tanpi relative %.3g\n", ws, wc, wt);
  CHECK(ws < 1e-15 && wc < 1e-15);
  CHECK(wt < 1e-13);
  /* exact values at the reduction points */
  {
    double s, c;
    devo__sh_sincospi(0.5, &s, &c);
    CHECK(s == 1.0 && c == 0.0);
    devo__sh_sincospi(-1.0, &s, &c);
    CHECK(s == 0.0 && c == -1.0);
    devo__sh_sincospi(0.25, &s, &c);
    CHECK_CLOSE(s, sqrt(0.5), 3e-16, 0.0);
    CHECK_CLOSE(c, sqrt(0.5), 3e-16, 0.0);
  }
}

/* The rounding helpers by hand (round half away from zero). */
TEST_CASE(sizes_by_hand)
{
  CHECK(devo__sh_npb(0.11, 100) == 11u);
  CHECK(devo__sh_npb(0.05, 20) == 2u); /* 1 -> at least 2 */
  CHECK(devo__sh_npb(0.05, 30) == 2u); /* 1.5 -> 2 */
  CHECK(devo__sh_npb(0.11, 50) == 6u); /* 5.5 -> 6 */
  CHECK(devo__sh_npb(1.0, 7) == 7u);
  CHECK(devo__sh_npb(0.9, 4) == 4u);
  CHECK(devo__sh_arc_cap(2.6, 540) == 1404u);
  CHECK(devo__sh_arc_cap(2.6, 5) == 13u);
  CHECK(devo__sh_arc_cap(0.5, 5) == 3u); /* 2.5 -> 3 */
  CHECK(devo__sh_arc_cap(0.0, 100) == 0u);
  CHECK(devo__sh_lpsr_np(540, 4, 0.0, 540) == 540u);
  CHECK(devo__sh_lpsr_np(540, 4, 1.0, 540) == 4u);
  CHECK(devo__sh_lpsr_np(540, 4, 0.5, 540) == 272u);
  CHECK(devo__sh_lpsr_np(540, 4, 0.5, 100) == 100u); /* never above NP_g */
  CHECK(devo__sh_lpsr_np(540, 4, 1.5, 540) == 4u);   /* never below NP_min */
  CHECK(devo__sh_lpsr_np(100, 4, 0.25, 100) == 76u);
}

/* ---- the draws' laws ---- */

static double cauchy_cdf(double x, double mu)
{
  return 0.5 + atan((x - mu) / 0.1) / DEVO_PI;
}

/* F of 2e5 individuals for mu = 0.5 and 0.2: the Cauchy(mu, 0.1) truncated to F > 0 and cut at
 * 1: P(F <= x) for x < 1 and P(F = 1) against the law; tolerance 5 binomial standard errors. */
TEST_CASE(cauchy_law)
{
  static const double mus[2] = {0.5, 0.2}, xs[5] = {0.1, 0.3, 0.5, 0.6, 0.9};
  const int n = 200000;
  int m, q, i;
  for (m = 0; m < 2; ++m) {
    double mu = mus[m], c0 = cauchy_cdf(0.0, mu);
    int below[5] = {0}, ones = 0, bad = 0;
    for (i = 0; i < n; ++i) {
      double f = devo__sh_cauchy_f(42u, 3u, (uint32_t)i, mu);
      bad += !(f > 0.0 && f <= 1.0);
      ones += f == 1.0;
      for (q = 0; q < 5; ++q)
        below[q] += f <= xs[q];
    }
    CHECK(bad == 0);
    for (q = 0; q < 5; ++q) {
      double p = (cauchy_cdf(xs[q], mu) - c0) / (1.0 - c0), got = (double)below[q] / n;
      CHECKF(fabs(got - p) <= 5.0 * sqrt(p * (1.0 - p) / n), "mu %g: P(F <= %g) = %g, law %g", mu,
             xs[q], got, p);
    }
    {
      double p = (1.0 - cauchy_cdf(1.0, mu)) / (1.0 - c0), got = (double)ones / n;
      CHECKF(fabs(got - p) <= 5.0 * sqrt(p * (1.0 - p) / n), "mu %g: P(F = 1) = %g, law %g", mu,
             got, p);
    }
  }
}

/* CR of 2e5 individuals for mu = 0.5: z = (CR - mu) / 0.1 ~ N(0, 1) (clipping 5 sd away): mean
 * within 5 standard errors, sd within 5 of its standard errors (sqrt(1 / (2n))), and
 * P(|z| < 1) = 0.682689. Terminal mu gives CR = 0. */
TEST_CASE(normal_law)
{
  const int n = 200000;
  double s = 0.0, s2 = 0.0, mean, sd, in1 = 0.0, p1 = 0.6826894921370859;
  int i;
  for (i = 0; i < n; ++i) {
    devo__u32x4 b0 = devo__rng(9u, 0u, 4u, (uint32_t)i, DEVO__RNG_SHADE);
    devo__u32x4 b1 = devo__rng(9u, 1u, 4u, (uint32_t)i, DEVO__RNG_SHADE);
    double z = (devo__sh_normal_cr(0.5, b0, b1) - 0.5) / 0.1;
    s += z;
    s2 += z * z;
    in1 += fabs(z) < 1.0;
    if (i < 1000)
      CHECK(devo__sh_normal_cr(DEVO__SH_TERMINAL, b0, b1) == 0.0);
  }
  mean = s / n;
  sd = sqrt(s2 / n - mean * mean);
  printf("normal: mean %.5f sd %.5f P(|z| < 1) %.5f over %d draws\n", mean, sd, in1 / n, n);
  CHECK(fabs(mean) < 5.0 / sqrt((double)n));
  CHECK(fabs(sd - 1.0) < 5.0 * sqrt(0.5 / n));
  CHECK(fabs(in1 / n - p1) < 5.0 * sqrt(p1 * (1.0 - p1) / n));
  { /* clipping: mu = 0.95 puts about 31% above 1 */
    int ones = 0;
    for (i = 0; i < 20000; ++i) {
      double cr = devo__sh_normal_cr(0.95, devo__rng(9u, 0u, 5u, (uint32_t)i, DEVO__RNG_SHADE),
                                     devo__rng(9u, 1u, 5u, (uint32_t)i, DEVO__RNG_SHADE));
      CHECK(cr >= 0.0 && cr <= 1.0);
      ones += cr == 1.0;
    }
    CHECKF(fabs(ones / 20000.0 - 0.3085375) < 5.0 * sqrt(0.31 * 0.69 / 20000), "%d ones", ones);
  }
}

/* Donors, pbest rank, slot and j_rand: ranges and distinctness; every r2 value (population and
 * archive) is drawn. */
TEST_CASE(draw_ranges)
{
  devo__variant v = devo__variant_default();
  double mcr[7], mf[7];
  int seen[40] = {0}, h, i, g, all = 1;
  v.adapt = DEVO__ADAPT_SHADE;
  v.hist = 7;
  v.p = 0.2;
  for (h = 0; h < 7; ++h)
    mcr[h] = mf[h] = 0.5;
  for (g = 1; g <= 300; ++g)
    for (i = 0; i < 25; ++i) {
      devo__sh_ind d = devo__sh_draw(&v, 3u, (uint32_t)g, (uint32_t)i, 25u, 15u, 9u, mcr, mf);
      CHECK(d.r1 < 25u && d.r1 != (uint32_t)i);
      CHECK(d.r2 < 40u && d.r2 != (uint32_t)i && d.r2 != d.r1);
      CHECK(d.kbest < 5u && d.slot < 7u && d.jrand < 9u);
      CHECK(d.f > 0.0 && d.f <= 1.0 && d.cr >= 0.0 && d.cr <= 1.0);
      seen[d.r2]++;
    }
  for (h = 0; h < 40; ++h)
    all &= seen[h] > 0;
  CHECK(all);
}

/* ---- sums, memory, archive by hand ---- */

TEST_CASE(sum32_order)
{
  double v[33];
  unsigned char use[33];
  int i;
  for (i = 0; i < 33; ++i)
    v[i] = 1.0, use[i] = 1;
  v[0] = 9007199254740992.0; /* 2^53: adding 1 to it rounds back (ties to even) */
  /* by hand: lane 0 = 2^53 + v[32] = 2^53; lanes 1..31 = 1. Tree: off 16: p[0] = 2^53 + 1 =
   * 2^53, p[1..15] = 2; off 8: p[0] = 2^53 + 2, p[1..7] = 4; off 4: p[0] = 2^53 + 6,
   * p[1..3] = 8; off 2: p[0] = 2^53 + 14, p[1] = 16; off 1: 2^53 + 30. (In index order every
   * 1 would be lost: 2^53.) */
  CHECK(devo__sh_sum32(v, use, 33) == 9007199254740992.0 + 30.0);
  use[0] = 0; /* skipped elements contribute nothing */
  CHECK(devo__sh_sum32(v, use, 33) == 32.0);
  CHECK(devo__sh_sum32(v, NULL, 0) == 0.0);
}

TEST_CASE(memory_update_by_hand)
{
  double mcr[3] = {0.5, 0.5, 0.5}, mf[3] = {0.5, 0.5, 0.5}, mu_cr = 0.5, mu_f = 0.5;
  uint32_t k = 2;
  /* successes (d, F, CR) = (1, 0.6, 0.2), (3, 0.8, 0.4) */
  double sdff = 1 * 0.6 * 0.6 + 3 * 0.8 * 0.8, sdf = 1 * 0.6 + 3 * 0.8;
  double sdcc = 1 * 0.2 * 0.2 + 3 * 0.4 * 0.4, sdc = 1 * 0.2 + 3 * 0.4;
  devo__sh_update_shade(mcr, mf, &k, 3, 0, 2, sdff, sdf, sdcc, sdc, 0.4);
  CHECK(k == 0u);
  CHECK_CLOSE(mf[2], (0.36 + 1.92) / 3.0, 1e-15, 0.0);
  CHECK_CLOSE(mcr[2], (0.04 + 0.48) / 1.4, 1e-15, 0.0);
  devo__sh_update_shade(mcr, mf, &k, 3, 0, 0, 1, 1, 1, 1, 1); /* no success: nothing */
  CHECK(k == 0u && mf[0] == 0.5 && mcr[0] == 0.5);
  devo__sh_update_shade(mcr, mf, &k, 3, 1, 1, 0.25, 0.5, 0.0, 0.0, 0.0); /* max CR 0: terminal */
  CHECK(k == 1u && mcr[0] == DEVO__SH_TERMINAL && mf[0] == 0.5);
  mcr[1] = DEVO__SH_TERMINAL; /* a terminal slot stays terminal */
  devo__sh_update_shade(mcr, mf, &k, 3, 1, 1, 0.25, 0.5, 0.09, 0.3, 0.3);
  CHECK(k == 2u && mcr[1] == DEVO__SH_TERMINAL);
  devo__sh_update_shade(mcr, mf, &k, 3, 0, 1, 0.25, 0.5, 0.0, 0.0, 0.0); /* SHADE: 0 */
  CHECK(k == 0u && mcr[2] == 0.0);
  mf[0] = 0.7;
  devo__sh_update_shade(mcr, mf, &k, 3, 0, 1, 0.0, 0.0, 0.0, 0.0, 0.0); /* d F underflowed */
  CHECK(k == 1u && mf[0] == 0.7 && mcr[0] == 0.0);
  /* JADE: S = {(F, CR)} = {(0.6, 0.2), (0.8, 0.4)}, c = 0.1 */
  devo__sh_update_jade(&mu_cr, &mu_f, 0.1, 2, 0.6, 0.36 + 0.64, 1.4);
  CHECK_CLOSE(mu_cr, 0.9 * 0.5 + 0.1 * 0.3, 1e-15, 0.0);
  CHECK_CLOSE(mu_f, 0.9 * 0.5 + 0.1 * (1.0 / 1.4), 1e-15, 0.0);
}

TEST_CASE(archive_rule)
{
  uint32_t i;
  /* room: appends at |A| + q */
  CHECK(devo__sh_arc_slot(1u, 1u, 5u, 3u, 0u, 10u) == 3);
  CHECK(devo__sh_arc_slot(1u, 1u, 9u, 3u, 6u, 10u) == 9);
  CHECK(devo__sh_arc_slot(1u, 1u, 9u, 3u, 2u, 0u) == -1); /* no archive */
  /* full: a slot below cap from the inserter's own word */
  for (i = 0; i < 200; ++i) {
    int32_t s = devo__sh_arc_slot(1u, 7u, i, 10u, 0u, 10u);
    CHECK(s >= 0 && s < 10);
    CHECK(s == (int32_t)devo__below(devo__rng(1u, 0u, 7u, i, DEVO__RNG_ARCHIVE).v[0], 10u));
  }
  for (i = 0; i < 50; ++i)
    CHECK(devo__sh_arc_remove_slot(1u, 7u, i, 20u - i % 5) < 20u - i % 5);
}

/* ---- an independent sequential JADE / SHADE / L-SHADE ----
 * Written from Zhang and Sanderson 2009, Tanabe and Fukunaga 2013/2014 and docs/shade.md's draw
 * layout with plain loops and its own sort; it shares with the backend only the Philox block
 * function and the closed-form log/sin/cos/tan (checked against libm above). */

static int user_obj(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i, j;
  (void)ud;
  for (i = 0; i < n; ++i) {
    double s = 0.0;
    for (j = 0; j < dim; ++j) {
      double y = x[i * dim + j] - 0.3 * (double)j;
      s += y * y + 2.0 * (1.0 - cos(3.0 * y));
    }
    f[i] = s;
  }
  return 0;
}

static double ref_u(uint32_t a, uint32_t b) /* 53 bits of two words, as a fraction */
{
  uint64_t m = ((uint64_t)(a >> 5) << 26) | (uint64_t)(b >> 6);
  return (double)m / 9007199254740992.0;
}

static uint32_t ref_below(uint32_t w, uint32_t n)
{
  return (uint32_t)(((uint64_t)w * n) >> 32);
}

typedef struct ref_run {
  int adapt, lpsr, np_min, hist, d, np_init;
  double p, arc_rate, c, lo, hi;
  uint64_t seed;
  int64_t max_gens, max_evals;
  /* state */
  int np, asize, k, np_gen;
  int64_t nfe;
  double *pop, *fit, *arc, *mcr, *mf, *F, *CR, *trial, *tf;
  int *order;
} ref_run;

/* order = indices sorted by (fitness, index): insertion sort */
static void ref_sort(const double *fit, int n, int *order)
{
  int i, j;
  for (i = 0; i < n; ++i) {
    int x = order[i] = i;
    for (j = i; j > 0; --j) {
      int y = order[j - 1];
      if (fit[y] < fit[x] || (fit[y] == fit[x] && y < x))
        break;
      order[j] = y;
      order[j - 1] = x;
    }
  }
}

/* 32 lanes, each summing its elements in increasing index, then the halving tree */
static double ref_lanes(const double *v, const int *succ, int n)
{
  double lane[32];
  int l, i, w;
  for (l = 0; l < 32; ++l) {
    lane[l] = 0.0;
    for (i = l; i < n; i += 32)
      if (succ[i])
        lane[l] += v[i];
  }
  for (w = 16; w >= 1; w /= 2)
    for (l = 0; l < w; ++l)
      lane[l] += lane[l + w];
  return lane[0];
}

static void ref_init(ref_run *r)
{
  int i, j, n = r->np_init, d = r->d;
  int cap = (int)lround(r->arc_rate * n);
  r->np = n;
  r->pop = calloc((size_t)n * d, sizeof(double));
  r->trial = calloc((size_t)n * d, sizeof(double));
  r->arc = calloc((size_t)(cap + 1) * d, sizeof(double));
  r->fit = calloc((size_t)n, sizeof(double));
  r->tf = calloc((size_t)n, sizeof(double));
  r->F = calloc((size_t)n, sizeof(double));
  r->CR = calloc((size_t)n, sizeof(double));
  r->order = calloc((size_t)n, sizeof(int));
  r->mcr = calloc((size_t)r->hist, sizeof(double));
  r->mf = calloc((size_t)r->hist, sizeof(double));
  for (i = 0; i < r->hist; ++i)
    r->mcr[i] = r->mf[i] = 0.5;
  for (i = 0; i < n; ++i)
    for (j = 0; j < d; ++j) {
      devo__u32x4 w = devo__rng(r->seed, (uint32_t)j, 0u, (uint32_t)i, DEVO__RNG_INIT);
      r->pop[i * d + j] = r->lo + ref_u(w.v[0], w.v[1]) * (r->hi - r->lo);
    }
  user_obj(NULL, r->pop, (size_t)n, (size_t)d, r->fit);
  r->nfe = n;
  r->asize = r->k = r->np_gen = 0;
}

static void ref_free(ref_run *r)
{
  free(r->pop), free(r->trial), free(r->arc), free(r->fit), free(r->tf), free(r->F);
  free(r->CR), free(r->order), free(r->mcr), free(r->mf);
}

/* F_i: Cauchy(mu, 0.1) by its inverse CDF mu + 0.1 tan(pi (u - 1/2)), redrawn while <= 0 */
static double ref_cauchy(const ref_run *r, uint32_t g, uint32_t i, double mu)
{
  int t;
  for (t = 0; t < 64; ++t) {
    devo__u32x4 w = devo__rng(r->seed, 2u + (uint32_t)t, g, i, DEVO__RNG_SHADE);
    double u = ref_u(w.v[0], w.v[1]), f;
    if (u == 0.0)
      continue;
    f = mu + 0.1 * devo__sh_tanpi(u - 0.5);
    if (f > 0.0)
      return f < 1.0 ? f : 1.0;
  }
  return mu;
}

/* CR_i: Box-Muller z = sqrt(-2 ln u1) cos(2 pi u2), CR = mu + 0.1 z clipped */
static double ref_normal(const ref_run *r, uint32_t g, uint32_t i, double mu)
{
  devo__u32x4 b0 = devo__rng(r->seed, 0u, g, i, DEVO__RNG_SHADE);
  devo__u32x4 b1 = devo__rng(r->seed, 1u, g, i, DEVO__RNG_SHADE);
  double u1 = ref_u(b1.v[0], b1.v[1]) + 1.0 / 9007199254740992.0;
  double u2 = ref_u(b0.v[2], b0.v[3]), s, c, cr;
  if (mu == -1.0)
    return 0.0;
  devo__sh_sincospi(u2 <= 0.5 ? 2.0 * u2 : 2.0 * u2 - 2.0, &s, &c);
  cr = mu + 0.1 * (sqrt(-2.0 * devo__sh_log(u1)) * c);
  return cr < 0.0 ? 0.0 : cr > 1.0 ? 1.0 : cr;
}

static void ref_trials(ref_run *r, uint32_t g)
{
  int i, j, np = r->np, d = r->d;
  int npb = (int)lround(r->p * np);
  npb = npb < 2 ? 2 : npb > np ? np : npb;
  ref_sort(r->fit, np, r->order);
  for (i = 0; i < np; ++i) {
    devo__u32x4 wi = devo__rng(r->seed, 0u, g, (uint32_t)i, DEVO__RNG_INDEX);
    devo__u32x4 b0 = devo__rng(r->seed, 0u, g, (uint32_t)i, DEVO__RNG_SHADE);
    devo__u32x4 b1 = devo__rng(r->seed, 1u, g, (uint32_t)i, DEVO__RNG_SHADE);
    int r1 = (int)ref_below(wi.v[0], (uint32_t)(np - 1)), r2, lo, hi, slot, pb, jr;
    const double *xi = r->pop + i * d, *xp, *x1, *x2;
    if (r1 >= i)
      r1++;
    lo = i < r1 ? i : r1;
    hi = i < r1 ? r1 : i;
    r2 = (int)ref_below(wi.v[1], (uint32_t)(np + r->asize - 2));
    if (r2 >= lo)
      r2++;
    if (r2 >= hi)
      r2++;
    jr = (int)ref_below(wi.v[3], (uint32_t)d);
    slot = r->adapt == DEVO_ADAPT_SHADE ? (int)ref_below(b0.v[0], (uint32_t)r->hist) : 0;
    pb = r->order[ref_below(b1.v[2], (uint32_t)npb)];
    r->F[i] = ref_cauchy(r, g, (uint32_t)i, r->mf[slot]);
    r->CR[i] = ref_normal(r, g, (uint32_t)i, r->mcr[slot]);
    xp = r->pop + pb * d;
    x1 = r->pop + r1 * d;
    x2 = r2 < np ? r->pop + r2 * d : r->arc + (r2 - np) * d;
    for (j = 0; j < d; ++j) {
      devo__u32x4 w = devo__rng(r->seed, (uint32_t)j, g, (uint32_t)i, DEVO__RNG_COORD);
      double v = (xi[j] + r->F[i] * (xp[j] - xi[j])) + r->F[i] * (x1[j] - x2[j]);
      if (!(ref_u(w.v[0], w.v[1]) < r->CR[i] || j == jr))
        v = xi[j];
      else if (v < r->lo || v > r->hi) /* the reinit bound rule */
        v = r->lo + ref_u(w.v[2], w.v[3]) * (r->hi - r->lo);
      r->trial[i * d + j] = v;
    }
  }
}

/* Selection, memory update, archive of generation g. */
static void ref_select(ref_run *r, uint32_t g)
{
  int i, np = r->np, d = r->d, ns = 0, q = 0;
  int cap = (int)lround(r->arc_rate * np), *succ = calloc((size_t)np, sizeof(int));
  double *t[4], maxcr = 0.0;
  for (i = 0; i < 4; ++i)
    t[i] = calloc((size_t)np, sizeof(double));
  user_obj(NULL, r->trial, (size_t)np, (size_t)d, r->tf);
  for (i = 0; i < np; ++i) {
    double dl = r->fit[i] - r->tf[i];
    succ[i] = r->tf[i] < r->fit[i];
    ns += succ[i];
    if (!succ[i])
      continue;
    if (r->adapt == DEVO_ADAPT_JADE) {
      t[0][i] = r->CR[i], t[1][i] = r->F[i] * r->F[i], t[2][i] = r->F[i];
    } else {
      t[0][i] = dl * r->F[i] * r->F[i], t[1][i] = dl * r->F[i];
      t[2][i] = dl * r->CR[i] * r->CR[i], t[3][i] = dl * r->CR[i];
      maxcr = r->CR[i] > maxcr ? r->CR[i] : maxcr;
    }
  }
  if (ns > 0 && r->adapt == DEVO_ADAPT_JADE) {
    r->mcr[0] = (1.0 - r->c) * r->mcr[0] + r->c * (ref_lanes(t[0], succ, np) / ns);
    r->mf[0] =
        (1.0 - r->c) * r->mf[0] + r->c * (ref_lanes(t[1], succ, np) / ref_lanes(t[2], succ, np));
  } else if (ns > 0) {
    double sdc = ref_lanes(t[3], succ, np), sdf = ref_lanes(t[1], succ, np);
    if (sdf > 0.0) /* every d F underflowed: M_F kept (docs/shade.md) */
      r->mf[r->k] = ref_lanes(t[0], succ, np) / sdf;
    if (r->lpsr && (r->mcr[r->k] == -1.0 || maxcr == 0.0))
      r->mcr[r->k] = -1.0;
    else
      r->mcr[r->k] = sdc > 0.0 ? ref_lanes(t[2], succ, np) / sdc : 0.0;
    r->k = (r->k + 1) % r->hist;
  }
  for (i = 0; i < np; ++i) { /* the archive takes the replaced parents */
    int s;
    if (!succ[i])
      continue;
    if (cap > 0) {
      s = r->asize + q < cap
              ? r->asize + q
              : (int)ref_below(devo__rng(r->seed, 0u, g, (uint32_t)i, DEVO__RNG_ARCHIVE).v[0],
                               (uint32_t)cap);
      memcpy(r->arc + s * d, r->pop + i * d, (size_t)d * sizeof(double));
    }
    q++;
  }
  r->asize = r->asize + ns < cap ? r->asize + ns : cap;
  for (i = 0; i < np; ++i)
    if (r->tf[i] <= r->fit[i]) {
      memcpy(r->pop + i * d, r->trial + i * d, (size_t)d * sizeof(double));
      r->fit[i] = r->tf[i];
    }
  r->np_gen = np;
  r->nfe += np;
  for (i = 0; i < 4; ++i)
    free(t[i]);
  free(succ);
}

/* The reduction schedule: round((np_min - np_init) frac + np_init) within [np_min, NP]. */
static int ref_next_np(const ref_run *r, double frac)
{
  long x = lround((double)(r->np_min - r->np_init) * frac + r->np_init);
  return x < r->np_min ? r->np_min : x > r->np ? r->np : (int)x;
}

static void ref_reduce(ref_run *r, uint32_t g, int64_t gens)
{
  double frac =
      r->max_evals > 0 ? (double)r->nfe / (double)r->max_evals : (double)gens / (double)r->max_gens;
  int next = ref_next_np(r, frac), i, m = 0, t = 0, cap, d = r->d;
  int *keep;
  if (next >= r->np)
    return;
  keep = calloc((size_t)r->np, sizeof(int));
  ref_sort(r->fit, r->np, r->order);
  for (i = 0; i < next; ++i)
    keep[r->order[i]] = 1;
  for (i = 0; i < r->np; ++i)
    if (keep[i]) {
      memmove(r->pop + m * d, r->pop + i * d, (size_t)d * sizeof(double));
      r->fit[m++] = r->fit[i];
    }
  free(keep);
  r->np = next;
  cap = (int)lround(r->arc_rate * next);
  while (r->asize > cap) {
    int s = (int)ref_below(devo__rng(r->seed, (uint32_t)t + 1u, g, 0u, DEVO__RNG_ARCHIVE).v[0],
                           (uint32_t)r->asize);
    memcpy(r->arc + s * d, r->arc + (r->asize - 1) * d, (size_t)d * sizeof(double));
    r->asize--;
    t++;
  }
}

/* The reference's run under the solver's stopping rule (whole generations while the budget
 * holds). */
static void ref_solve(ref_run *r)
{
  int64_t g = 0;
  ref_init(r);
  for (;;) {
    if (r->max_gens > 0 && g >= r->max_gens)
      break;
    if (r->max_evals > 0 && r->nfe + r->np > r->max_evals)
      break;
    g++;
    ref_trials(r, (uint32_t)g);
    ref_select(r, (uint32_t)g);
    if (r->lpsr)
      ref_reduce(r, (uint32_t)g, g);
  }
}

/* The backend's state after the same run; compared with the reference bit for bit. */
static void compare_with_backend(const ref_run *r, int threads)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  devo_variant v;
  devo_shade_state st;
  int n = r->np_init, d = r->d;
  double *pop = calloc((size_t)n * d, sizeof(double)), *fit = calloc((size_t)n, sizeof(double));
  double *arc = calloc((size_t)(lround(r->arc_rate * n) + 1) * d, sizeof(double));
  double *mcr = calloc((size_t)r->hist, sizeof(double)), *mf = calloc((size_t)r->hist, 8);
  double *F = calloc((size_t)n, sizeof(double)), *CR = calloc((size_t)n, sizeof(double));
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user(p, d, r->lo, r->hi, user_obj, NULL) == DEVO_OK);
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  devo_variant_init(&v);
  v.adapt = r->adapt, v.lpsr = r->lpsr, v.np_min = r->np_min, v.hist = r->hist;
  v.p = r->p, v.arc_rate = r->arc_rate, v.c = r->c;
  CHECKF(devo_solver_set_variant(s, &v) == DEVO_OK, "%s", devo_solver_errmsg(s));
  CHECK(devo_solver_set_np(s, n) == DEVO_OK && devo_solver_set_seed(s, r->seed) == DEVO_OK);
  CHECK(devo_solver_set_threads(s, threads) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, r->max_gens) == DEVO_OK);
  CHECK(devo_solver_set_max_evals(s, r->max_evals) == DEVO_OK);
  CHECK(devo_solve(s) > 0);
  CHECK(devo_solver_shade_state(s, &st, arc, mcr, mf, F, CR) == DEVO_OK);
  CHECK(devo_solver_population(s, pop, fit) == DEVO_OK);
  CHECK_EQ_INT(st.np, r->np);
  CHECK_EQ_INT(st.np_gen, r->np_gen);
  CHECK_EQ_INT(st.archive_size, r->asize);
  CHECK_EQ_INT(st.k, r->k);
  CHECK_EQ_INT(st.hist, r->hist);
  CHECKF(memcmp(pop, r->pop, (size_t)r->np * d * sizeof(double)) == 0, "population differs");
  CHECKF(memcmp(fit, r->fit, (size_t)r->np * sizeof(double)) == 0, "fitness differs");
  CHECKF(memcmp(arc, r->arc, (size_t)r->asize * d * sizeof(double)) == 0, "archive differs");
  CHECKF(memcmp(mcr, r->mcr, (size_t)r->hist * sizeof(double)) == 0, "M_CR differs");
  CHECKF(memcmp(mf, r->mf, (size_t)r->hist * sizeof(double)) == 0, "M_F differs");
  CHECKF(memcmp(F, r->F, (size_t)r->np_gen * sizeof(double)) == 0, "F_i differ");
  CHECKF(memcmp(CR, r->CR, (size_t)r->np_gen * sizeof(double)) == 0, "CR_i differ");
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  free(pop), free(fit), free(arc), free(mcr), free(mf), free(F), free(CR);
}

/* JADE, SHADE and L-SHADE (generation and evaluation budgets), archive rates that fill and
 * overwrite early and none; the backend with 1 and 3 threads equals the reference. */
TEST_CASE(cpu_matches_independent_reference)
{
  /* adapt, lpsr, np_min, hist, d, np_init, p, arc_rate, c, max_gens, max_evals */
  static const struct {
    int adapt, lpsr, np_min, hist, d, np;
    double p, arc, c;
    int64_t gens, evals;
  } cases[] = {
      {DEVO_ADAPT_JADE, 0, 4, 1, 6, 20, 0.05, 1.0, 0.1, 25, 0},
      {DEVO_ADAPT_JADE, 0, 4, 1, 5, 16, 0.3, 0.25, 0.3, 25, 0},
      {DEVO_ADAPT_SHADE, 0, 4, 5, 6, 20, 0.11, 1.0, 0.1, 25, 0},
      {DEVO_ADAPT_SHADE, 0, 4, 3, 4, 12, 0.5, 0.0, 0.1, 20, 0},
      {DEVO_ADAPT_SHADE, 1, 4, 6, 6, 40, 0.11, 2.6, 0.1, 30, 0},
      {DEVO_ADAPT_SHADE, 1, 5, 6, 5, 50, 0.11, 2.6, 0.1, 0, 1500},
      {DEVO_ADAPT_SHADE, 1, 4, 2, 3, 70, 0.2, 0.7, 0.1, 0, 900},
  };
  size_t c;
  for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ref_run r;
    int th;
    memset(&r, 0, sizeof r);
    r.adapt = cases[c].adapt, r.lpsr = cases[c].lpsr, r.np_min = cases[c].np_min;
    r.hist = cases[c].hist, r.d = cases[c].d, r.np_init = cases[c].np;
    r.p = cases[c].p, r.arc_rate = cases[c].arc, r.c = cases[c].c;
    r.max_gens = cases[c].gens, r.max_evals = cases[c].evals;
    r.lo = -4.0, r.hi = 5.0, r.seed = 11u + c;
    ref_solve(&r);
    printf("case %zu: NP %d -> %d, |A| %d, k %d, best %.6g\n", c, r.np_init, r.np, r.asize, r.k,
           r.fit[0]);
    for (th = 1; th <= 3; th += 2)
      compare_with_backend(&r, th);
    ref_free(&r);
  }
}

/* ---- bit-identity across thread counts ---- */

/* Everything a run leaves, in one buffer: population, fitness, archive, memory, F, CR, sizes. */
static size_t run_state(devo_problem *p, const char *algo, int threads, double *out)
{
  devo_solver *s = NULL;
  devo_shade_state st;
  int d = devo_problem_dim(p), np = 40;
  double *o = out;
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_algorithm(s, algo) == DEVO_OK);
  CHECK(devo_solver_set_np(s, np) == DEVO_OK && devo_solver_set_threads(s, threads) == 0);
  CHECK(devo_solver_set_seed(s, 5u) == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 40) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_shade_state(s, &st, NULL, NULL, NULL, NULL, NULL) == DEVO_OK);
  o[0] = st.np, o[1] = st.np_gen, o[2] = st.archive_size, o[3] = st.archive_cap, o[4] = st.k;
  o += 5;
  CHECK(devo_solver_population(s, o, o + (size_t)st.np * d) == DEVO_OK);
  o += (size_t)st.np * d + st.np;
  CHECK(devo_solver_shade_state(
            s, &st, o, o + (size_t)st.archive_size * d, o + (size_t)st.archive_size * d + st.hist,
            o + (size_t)st.archive_size * d + 2 * st.hist,
            o + (size_t)st.archive_size * d + 2 * st.hist + st.np_gen) == DEVO_OK);
  o += (size_t)st.archive_size * d + 2 * st.hist + 2 * st.np_gen;
  devo_solver_destroy(s);
  return (size_t)(o - out);
}

TEST_CASE(threads_bit_identical)
{
  static const char *const algos[3] = {"jade", "shade", "lshade"};
  int which, a, th;
  for (which = 0; which < 3; ++which) {
    devo_etc *e;
    devo_problem *p = tc_small_problem(which, &e);
    size_t cap = 5 + 40 * 200 + 40 + 120 * 40 + 200 + 80;
    double *ref = calloc(cap, sizeof(double)), *got = calloc(cap, sizeof(double));
    for (a = 0; a < 3; ++a) {
      size_t n = run_state(p, algos[a], 1, ref);
      CHECK(n <= cap);
      for (th = 2; th <= 4; th *= 2) {
        size_t m = run_state(p, algos[a], th, got);
        CHECKF(m == n && memcmp(ref, got, n * sizeof(double)) == 0,
               "problem %d %s: %d threads differ from 1", which, algos[a], th);
      }
      if (a == 2)
        CHECKF(ref[0] < 40.0, "lshade's NP did not shrink (%g)", ref[0]);
    }
    free(ref);
    free(got);
    devo_problem_destroy(p);
    devo_etc_destroy(e);
  }
}

/* ---- L-SHADE's schedule over a run ---- */

/* NP after every generation of one run (max_evals M) against the schedule evaluated here:
 * nfe = NP_init + sum of the generations' NP; NP_next = round((NP_min - NP_init) nfe / M +
 * NP_init) kept within [NP_min, NP]; the archive within its capacity round(2.6 NP) after every
 * generation. The run is replayed with max_gens = g for g = 1, 2, ... (each a prefix of the
 * same run: the draws depend on the generation, not on the limit). */
TEST_CASE(lshade_schedule_and_archive_capacity)
{
  const int np0 = 60, npmin = 4, d = 4;
  const int64_t M = 2400;
  devo_problem *p = NULL;
  int64_t nfe = np0, g;
  int np = np0, gens_seen = 0;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(p, "rastrigin", d, 1, NULL) == DEVO_OK);
  for (g = 1;; ++g) {
    devo_solver *s = NULL;
    devo_shade_state st;
    devo_stats stats;
    int want;
    double x;
    if (nfe + np > M)
      break; /* the solver's evaluation rule: no generation that would pass M */
    nfe += np;
    x = (double)(npmin - np0) * ((double)nfe / (double)M) + np0;
    want = (int)floor(x + 0.5); /* x > 0: half away from zero */
    want = want < npmin ? npmin : want > np ? np : want;
    CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
    CHECK(devo_solver_set_algorithm(s, "lshade") == DEVO_OK);
    CHECK(devo_solver_set_np(s, np0) == DEVO_OK && devo_solver_set_max_evals(s, M) == DEVO_OK);
    CHECK(devo_solver_set_max_generations(s, g) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
    CHECK(devo_solver_shade_state(s, &st, NULL, NULL, NULL, NULL, NULL) == DEVO_OK);
    CHECK(devo_solver_stats(s, &stats) == DEVO_OK);
    CHECKF(st.np == want, "generation %lld: NP %d, schedule %d", (long long)g, st.np, want);
    CHECK(st.np_gen == np);
    CHECK_EQ_INT(stats.evaluations, nfe);
    CHECK(st.archive_cap == (int)floor(2.6 * st.np + 0.5));
    CHECKF(st.archive_size <= st.archive_cap, "generation %lld: |A| %d > %d", (long long)g,
           st.archive_size, st.archive_cap);
    devo_solver_destroy(s);
    np = want;
    gens_seen++;
  }
  printf("lshade: %d generations, NP %d -> %d, %lld evaluations of %lld\n", gens_seen, np0, np,
         (long long)nfe, (long long)M);
  CHECK(np <= npmin + 2); /* the schedule ends near NP_min */
  {                       /* the whole run ends where the replay did */
    devo_solver *s = NULL;
    devo_stats stats;
    CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
    CHECK(devo_solver_set_algorithm(s, "lshade") == DEVO_OK);
    CHECK(devo_solver_set_np(s, np0) == DEVO_OK && devo_solver_set_max_evals(s, M) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_EVAL_LIMIT);
    CHECK(devo_solver_stats(s, &stats) == DEVO_OK);
    CHECK_EQ_INT(stats.generations, gens_seen);
    CHECK_EQ_INT(stats.evaluations, nfe);
    devo_solver_destroy(s);
  }
  devo_problem_destroy(p);
}

/* NP_init = 18 D when NP was not set; the population getter gives the current rows. */
TEST_CASE(lshade_default_np)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  devo_shade_state st;
  devo_variant v;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(p, "sphere", 7, 1, NULL) == DEVO_OK);
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_algorithm(s, "lshade") == DEVO_OK);
  devo_solver_get_variant(s, &v);
  CHECK(v.adapt == DEVO_ADAPT_SHADE && v.lpsr == 1 && v.hist == 6 && v.p == 0.11);
  CHECK(v.arc_rate == 2.6 && v.np_min == 4);
  CHECK(devo_solver_set_max_generations(s, 1) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_shade_state(s, &st, NULL, NULL, NULL, NULL, NULL) == DEVO_OK);
  CHECK_EQ_INT(st.np_gen, 18 * 7);
  CHECK_EQ_INT(st.np, 4); /* max_gens 1: the whole schedule in one generation */
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* ---- bad values ---- */

TEST_CASE(api_bad_values)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  devo_variant v;
  char err[256];
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(p, "sphere", 4, 1, NULL) == DEVO_OK);
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
#define BAD(field, value, word)                                                                    \
  do {                                                                                             \
    CHECK(devo_variant_preset(&v, "shade", NULL, 0) == DEVO_OK);                                   \
    v.field = value;                                                                               \
    CHECK(devo_variant_check(&v, err, sizeof err) == DEVO_E_INVALID);                              \
    CHECKF(strstr(err, word) != NULL, "message '%s' lacks '%s'", err, word);                       \
    CHECK(devo_solver_set_variant(s, &v) == DEVO_E_INVALID);                                       \
  } while (0)
  BAD(adapt, 1, "adapt");
  BAD(adapt, 7, "adapt");
  BAD(p, 0.0, "pbest");
  BAD(p, 1.5, "pbest");
  BAD(p, NAN, "pbest");
  BAD(arc_rate, -0.1, "archive");
  BAD(arc_rate, 11.0, "archive");
  BAD(hist, 0, "H");
  BAD(hist, 100001, "H");
  BAD(c, 1.5, "learning rate");
  BAD(np_min, 3, "NP_min");
  BAD(lpsr, 2, "lpsr");
  BAD(jde, 1, "jDE");
  BAD(gobl, 0.1, "GOBL");
#undef BAD
  CHECK(devo_variant_preset(&v, "jade", NULL, 0) == DEVO_OK);
  v.lpsr = 1;
  CHECK(devo_variant_check(&v, err, sizeof err) == DEVO_E_INVALID && strstr(err, "lpsr"));
  CHECK(devo_solver_set_shade(s, DEVO_ADAPT_SHADE, 0.0, 1.0, 5, 0.1, 0, 4) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "pbest") != NULL);
  CHECK(devo_solver_set_shade(s, DEVO_ADAPT_SHADE, 0.2, 1.0, 5, 0.1, 0, 4) == DEVO_OK);
  /* L-SHADE needs a budget its NP follows, and NP_min <= NP */
  CHECK(devo_solver_set_algorithm(s, "lshade") == DEVO_OK);
  CHECK(devo_solver_set_target(s, 1e-3) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "budget") != NULL);
  CHECK(devo_solver_set_max_evals(s, 5000) == DEVO_OK && devo_solver_set_np(s, 10) == DEVO_OK);
  CHECK(devo_solver_set_shade(s, DEVO_ADAPT_SHADE, 0.11, 2.6, 6, 0.1, 1, 20) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "NP_min") != NULL);
  /* the state getter without a JADE/SHADE run */
  CHECK(devo_solver_set_algorithm(s, "de") == DEVO_OK);
  CHECK(devo_solve(s) > 0);
  CHECK(devo_solver_shade_state(s, NULL, NULL, NULL, NULL, NULL, NULL) == DEVO_E_INVALID);
  /* the getter answers for the last run, not for options set after it */
  CHECK(devo_solver_set_algorithm(s, "jade") == DEVO_OK);
  CHECK(devo_solve(s) > 0);
  CHECK(devo_solver_set_algorithm(s, "de") == DEVO_OK);
  CHECKF(devo_solver_shade_state(s, NULL, NULL, NULL, NULL, NULL, NULL) == DEVO_OK, "%s",
         devo_solver_errmsg(s));
  /* without a GPU (or built without CUDA) the family gets what every GPU run gets */
  CHECK(devo_solver_set_algorithm(s, "shade") == DEVO_OK);
  CHECK(devo_solver_set_backend(s, DEVO_BACKEND_GPU) == DEVO_OK);
  if (!devo_gpu_available(err, sizeof err))
    CHECKF(devo_solve(s) == DEVO_E_NODEVICE, "%s", devo_solver_errmsg(s));
  CHECK(devo_solver_set_backend(s, DEVO_BACKEND_CPU) == DEVO_OK);
  CHECK(devo_variant_preset(&v, "mshade", err, sizeof err) == DEVO_E_INVALID);
  CHECK(strstr(err, "lshade") != NULL); /* the message lists the presets */
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* Every new option's bad values: exit 2, one line naming the option, nothing on stdout. */
TEST_CASE(cli_bad_values)
{
  static const char *const bad[][2] = {
      {"--algorithm lshade --pbest 0", "--pbest"},
      {"--algorithm lshade --pbest 1.01", "--pbest"},
      {"--algorithm jade --pbest x", "--pbest"},
      {"--algorithm shade --archive-rate -1", "--archive-rate"},
      {"--algorithm shade --archive-rate 11", "--archive-rate"},
      {"--algorithm shade --memory-size 0", "--memory-size"},
      {"--algorithm shade --memory-size 2.5", "--memory-size"},
      {"--algorithm jade --jade-c 1.5", "--jade-c"},
      {"--algorithm lshade --np-min 3", "--np-min"},
      {"--pbest 0.1", "--pbest"},
      {"--algorithm shade --jade-c 0.2", "--jade-c"},
      {"--algorithm jade --memory-size 5", "--memory-size"},
      {"--algorithm shade --np-min 5", "--np-min"},
      {"--algorithm lshade --strategy best1bin", "--strategy"},
      {"--algorithm lshade --np 10 --np-min 20", "NP_min"},
  };
  char cmd[512];
  size_t k;
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim 4 --max-evals 1000 %s",
             tc_devo_bin(), bad[k][0]);
    tc_expect_refused(cmd, 2, "devo solve: ", bad[k][1]);
  }
  snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim 4 --algorithm lshade --target 1",
           tc_devo_bin());
  tc_expect_refused(cmd, 2, "devo solve: ", "budget");
  snprintf(cmd, sizeof cmd,
           "printf '1,2\\n2,1\\n3,3\\n' | %s schedule - --time-limit 0.05 --algorithm jade "
           "--jade-c 2",
           tc_devo_bin());
  tc_expect_refused(cmd, 2, "devo schedule: ", "--jade-c");
}

/* devo experiment's [algorithm] keys for the family: accepted, run, and refused with the line. */
/* Writes DIR/bad.spec with the grid of experiment_spec_keys and one [algorithm x] section of
 * body (its first line is line 9), and expects devo experiment to refuse it: exit 2, one line
 * holding what. */
static void spec_refused(const char *dir, const char *body, const char *what)
{
  char cmd[1024], path[256];
  FILE *f;
  snprintf(path, sizeof path, "%s/bad.spec", dir);
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fprintf(f,
          "output = %s/r3.csv\nproblems = sphere\ndims = 5\nnp = 40\ntrials = 1\n"
          "budget = 2000\n\n[algorithm x]\n%s",
          dir, body);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), path);
  tc_expect_refused(cmd, 2, "devo experiment: ", what);
}

TEST_CASE(experiment_spec_keys)
{
  char dir[] = "/tmp/devo_shade_XXXXXX", cmd[1024], path[256], *out = NULL;
  FILE *f;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/ok.spec", dir);
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fprintf(f,
          "output = %s/r.csv\nproblems = sphere\ndims = 5\nnp = 40\ntrials = 1\n"
          "budget = 2000\n\n[algorithm l]\npreset = lshade\npbest = 0.2\narchive_rate = 1.5\n"
          "memory_size = 4\nnp_min = 6\n\n[algorithm j]\npreset = jade\njade_c = 0.2\n",
          dir);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s experiment %s 2>/dev/null && cat %s/r.csv", tc_devo_bin(), path,
           dir);
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  CHECK(out && strstr(out, "l,preset=lshade;pbest=0.2;archive_rate=1.5;memory_size=4;np_min=6,"));
  CHECK(out && strstr(out, "j,preset=jade;jade_c=0.2,"));
  free(out);
  snprintf(path, sizeof path, "%s/bad.spec", dir);
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fprintf(f,
          "output = %s/r2.csv\nproblems = sphere\ndims = 5\nnp = 40\ntrials = 1\n"
          "budget = 2000\n\n[algorithm l]\npreset = lshade\nmemory_size = 2.5\n",
          dir);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s experiment %s", tc_devo_bin(), path);
  tc_expect_refused(cmd, 2, "devo experiment: ", "bad.spec:10: memory_size");
  /* a family key with an algorithm that does not read it, and a preset after other keys (it
   * would replace them): refused with file:line, as devo solve refuses the options */
  spec_refused(dir, "preset = de\npbest = 0.3\n", "bad.spec:10: pbest needs preset");
  spec_refused(dir, "preset = shade\njade_c = 0.3\n", "bad.spec:10: jade_c needs preset jade");
  spec_refused(dir, "pbest = 1\npreset = jade\n", "bad.spec:10: preset must come first");
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

/* --json reports the algorithm and its parameters; the text names the final NP. */
TEST_CASE(cli_reports_shade)
{
  char cmd[512], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "%s solve --problem sphere --dim 5 --max-evals 20000 --algorithm lshade --json",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  CHECK(out && strstr(out, "\"algorithm\":\"lshade\"") &&
        strstr(out, "\"strategy\":\"currenttopbest1bin\""));
  CHECK(out && strstr(out, "\"shade\":{\"pbest\":0.11,\"archive_rate\":2.6,\"memory_size\":6,"
                           "\"np_min\":4,\"f_range\":[0,1],\"cr_range\":[0,1],"));
  CHECK(out && strstr(out, "\"np\":90")); /* 18 x 5 */
  free(out);
  out = NULL;
  snprintf(cmd, sizeof cmd,
           "%s solve --problem sphere --dim 5 --max-evals 20000 --algorithm jade --jade-c 0.2 "
           "--pbest 0.1 --archive-rate 0.5",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  CHECK(out && strstr(out, "jade (current-to-pbest/1/bin, p 0.1, archive rate 0.5, c 0.2; "
                           "final NP 100, archive 50 of 50)"));
  free(out);
}

/* ---- quality (slow) ---- */

static double run_error(const char *fn, const char *algo, double f, double cr, int np,
                        uint64_t seed)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  double best = INFINITY;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(p, fn, 30, 1, NULL) == DEVO_OK);
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_algorithm(s, algo) == DEVO_OK);
  if (np > 0)
    CHECK(devo_solver_set_np(s, np) == DEVO_OK);
  CHECK(devo_solver_set_seed(s, seed) == DEVO_OK);
  CHECK(devo_solver_set_f(s, f) == DEVO_OK && devo_solver_set_cr(s, cr) == DEVO_OK);
  CHECK(devo_solver_set_max_evals(s, 300000) == DEVO_OK);
  CHECK(devo_solver_set_threads(s, 2) == DEVO_OK); /* the same bits as 1 thread */
  CHECK(devo_solve(s) > 0);
  CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK);
  best -= devo_problem_fstar(p);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  return best;
}

/* On F03 and F05 (CEC 2017) at D = 30, 300,000 evaluations, 11 seeds: L-SHADE (NP_init 18 D =
 * 540) has a lower median error than jDE (NP 100) and rand1bin (F 0.5, CR 0.3, NP 100), with
 * a two-sided Mann-Whitney p < 0.05 against each. */
SLOW_CASE(quality_lshade_beats_jde_and_rand1bin)
{
  static const char *const fns[2] = {"F03", "F05"};
  int fi, k;
  for (fi = 0; fi < 2; ++fi) {
    double el[11], ej[11], ed[11], pj, pd;
    for (k = 0; k < 11; ++k) {
      el[k] = run_error(fns[fi], "lshade", 0.5, 0.9, 0, (uint64_t)k + 1);
      ej[k] = run_error(fns[fi], "jde", 0.5, 0.9, 100, (uint64_t)k + 1);
      ed[k] = run_error(fns[fi], "de", 0.5, 0.3, 100, (uint64_t)k + 1);
    }
    pj = tc_mwu_p(el, 11, ej, 11);
    pd = tc_mwu_p(el, 11, ed, 11);
    printf("%s D=30 300k evals 11 seeds: median error L-SHADE %.6g, jDE %.6g, rand1bin %.6g; "
           "Mann-Whitney p %.3g (jDE), %.3g (rand1bin)\n",
           fns[fi], tc_median(el, 11), tc_median(ej, 11), tc_median(ed, 11), pj, pd);
    CHECK(tc_median(el, 11) < tc_median(ej, 11) && tc_median(el, 11) < tc_median(ed, 11));
    CHECK(pj < 0.05 && pd < 0.05);
  }
}

static const tc_case cases[] = {TC(log_matches_libm),
                                TC(sincospi_tanpi_match_libm),
                                TC(sizes_by_hand),
                                TC(cauchy_law),
                                TC(normal_law),
                                TC(draw_ranges),
                                TC(sum32_order),
                                TC(memory_update_by_hand),
                                TC(archive_rule),
                                TC(cpu_matches_independent_reference),
                                TC(threads_bit_identical),
                                TC(lshade_schedule_and_archive_capacity),
                                TC(lshade_default_np),
                                TC(api_bad_values),
                                TC(cli_bad_values),
                                TC(cli_reports_shade),
                                TC(experiment_spec_keys),
                                TC(quality_lshade_beats_jde_and_rand1bin)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
