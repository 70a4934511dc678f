/* SPDX-License-Identifier: MIT */
/* test_variants.c: the DE variants of issue 18 (problems/de_variant.h, the CPU backend, the API):
 * the exponential crossover's length law (chi-square against the exact truncated geometric law
 * and against a textbook loop), donor distinctness and uniformity, every strategy's trials
 * against a reference DE written here from the formulas, jDE's semantics and redraw rates, a
 * GOBL jump checked step by step, bit-identity across 1, 2 and 4 threads, the API's validation,
 * and (slow) the quality targets of the issue with a Mann-Whitney test.
 * Significance level of every distribution test: alpha = 0.001 (each test has a fixed seed, so a
 * pass is reproducible; at 0.001 the chance that one of the ~60 correct tests fails is ~6%). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/de_variant.h"
#include "tests/tcheck.h"
#include "tools/stats.h"

#define ALPHA  0.001
#define NSTRAT DEVO__STRAT_COUNT

/* ---- statistics: the chi-square tail and the Mann-Whitney test of tools/stats.h ---- */

/* Goodness of fit of counts[0..n-1] (total N) to probabilities prob[0..n-1]: bins merged from
 * the front until each expected count is >= 5, the remainder merged into the last bin. */
static double chi2_fit(const long *counts, const double *prob, int n, long total, int *df_out)
{
  double chi2 = 0.0, e = 0.0, o = 0.0;
  int k, bins = 0;
  for (k = 0; k < n; ++k) {
    e += prob[k] * (double)total;
    o += (double)counts[k];
    if (e >= 5.0 && k < n - 1) {
      double tail = 0.0;
      int t;
      for (t = k + 1; t < n; ++t)
        tail += prob[t] * (double)total;
      if (tail >= 5.0) {
        chi2 += (o - e) * (o - e) / e;
        bins++;
        e = o = 0.0;
      }
    }
  }
  if (e > 0.0) {
    chi2 += (o - e) * (o - e) / e;
    bins++;
  } else if (o > 0.0) {
    chi2 = INFINITY; /* counts where the law puts no mass */
  }
  *df_out = bins - 1;
  return bins > 1 ? st_chi2_sf(chi2, bins - 1) : (chi2 == 0.0 ? 1.0 : 0.0);
}

/* Two-sample chi-square (equal sample sizes): bins merged from the front until both counts
 * together are >= 10, the remainder merged into the last bin; df = bins - 1. */
static double chi2_two(const long *a, const long *b, int n, int *df_out)
{
  double chi2 = 0.0, sa = 0.0, sb = 0.0;
  int k, bins = 0;
  for (k = 0; k < n; ++k) {
    sa += (double)a[k];
    sb += (double)b[k];
    if (sa + sb >= 10.0) {
      double ra = 0.0;
      int t;
      for (t = k + 1; t < n; ++t)
        ra += (double)(a[t] + b[t]);
      if (ra >= 10.0 || k == n - 1) {
        chi2 += (sa - sb) * (sa - sb) / (sa + sb);
        bins++;
        sa = sb = 0.0;
      }
    }
  }
  if (sa + sb > 0.0) {
    chi2 += (sa - sb) * (sa - sb) / (sa + sb);
    bins++;
  }
  *df_out = bins - 1;
  return bins > 1 ? st_chi2_sf(chi2, bins - 1) : 1.0;
}

/* The implementation against SciPy 1.x on fixed data (ties included):
 *   /usr/bin/python3 -c "from scipy.stats import mannwhitneyu as m;
 * print(m([1.5,2,2,3.25,4,7,8,8,9,10,
 *   12],[3,3.25,5,6,6,11,13,14,15,15,16],alternative='two-sided',method='asymptotic').pvalue)"
 * printed 0.09357641228134138 (SciPy 1.10.1, Debian python3-scipy). */
TEST_CASE(mann_whitney_matches_scipy)
{
  const double x[] = {1.5, 2, 2, 3.25, 4, 7, 8, 8, 9, 10, 12};
  const double y[] = {3, 3.25, 5, 6, 6, 11, 13, 14, 15, 15, 16};
  CHECK_CLOSE(tc_mwu_p(x, 11, y, 11), 0.09357641228134138, 1e-9, 0.0);
}

/* ---- the exponential crossover's length ---- */

static const double law_cr[] = {0.0, 0.2, 0.5, 0.9, 0.99, 1.0};
static const uint32_t law_dim[] = {2, 10, 1000};
#define LAW_DRAWS 1000000

/* L of draw n through the library's whole path (devo__var_draw: INDEX2 block, then the binary
 * lifting), for rand1exp with the run's CR. Draws are indexed (gen, i) = (1 + n / 1000, n %
 * 1000) of an NP = 1000 population. */
static uint32_t lib_length(double cr, uint32_t dim, long n)
{
  devo__variant v = devo__variant_default();
  devo__var_ind d;
  v.crossover = DEVO__XOVER_EXP;
  d = devo__var_draw(&v, 12345u, (uint32_t)(1 + n / 1000), (uint32_t)(n % 1000), 1000u, dim, 0.5,
                     cr);
  return d.len;
}

/* The textbook loop (Storn and Price 1997; Zaharie 2007): L = 0; do L++ while (u < CR and
 * L < D), u a fresh uniform each time, here from SplitMix64 (Steele, Lea, Flood 2014; constants
 * from the paper), a generator unrelated to the library's Philox draws. */
static uint64_t sm_state = 0x1234567ull;
static double sm_u01(void)
{
  uint64_t z = (sm_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t loop_length(double cr, uint32_t dim)
{
  uint32_t len = 0;
  do
    len++;
  while (sm_u01() < cr && len < dim);
  return len;
}

TEST_CASE(exp_length_exact_law)
{
  long *cnt = (long *)calloc(1001, sizeof(long));
  double *prob = (double *)calloc(1001, sizeof(double));
  int a, b, k, df;
  for (a = 0; a < 6; ++a)
    for (b = 0; b < 3; ++b) {
      double cr = law_cr[a], p;
      uint32_t dim = law_dim[b];
      long n;
      memset(cnt, 0, 1001 * sizeof(long));
      for (n = 0; n < LAW_DRAWS; ++n) {
        uint32_t len = lib_length(cr, dim, n);
        CHECK(len >= 1 && len <= dim);
        cnt[len - 1]++;
      }
      if (cr == 0.0) {
        CHECKF(cnt[0] == LAW_DRAWS, "CR = 0, D = %u: L = 1 in %ld of %d", dim, cnt[0], LAW_DRAWS);
        continue;
      }
      if (cr == 1.0) {
        CHECKF(cnt[dim - 1] == LAW_DRAWS, "CR = 1, D = %u: L = D in %ld", dim, cnt[dim - 1]);
        continue;
      }
      for (k = 1; k < (int)dim; ++k) /* P(L = k) = CR^(k-1) (1 - CR), P(L = D) = CR^(D-1) */
        prob[k - 1] = pow(cr, k - 1) * (1.0 - cr);
      prob[dim - 1] = pow(cr, (double)dim - 1.0);
      p = chi2_fit(cnt, prob, (int)dim, LAW_DRAWS, &df);
      printf("exact law  CR=%-5g D=%-5u df=%-4d p=%.4f\n", cr, dim, df, p);
      CHECKF(p > ALPHA, "CR = %g, D = %u: chi-square p = %g (df %d)", cr, dim, p, df);
    }
  free(cnt);
  free(prob);
}

TEST_CASE(exp_length_equals_textbook_loop_in_law)
{
  long *ca = (long *)calloc(1001, sizeof(long)), *cb = (long *)calloc(1001, sizeof(long));
  int a, b, df;
  for (a = 0; a < 6; ++a)
    for (b = 0; b < 3; ++b) {
      double cr = law_cr[a], p;
      uint32_t dim = law_dim[b];
      long n;
      memset(ca, 0, 1001 * sizeof(long));
      memset(cb, 0, 1001 * sizeof(long));
      for (n = 0; n < LAW_DRAWS; ++n) {
        ca[lib_length(cr, dim, n) - 1]++;
        cb[loop_length(cr, dim) - 1]++;
      }
      if (cr == 0.0 || cr == 1.0) { /* both exact: one bin, the same */
        CHECK(ca[cr == 0.0 ? 0 : dim - 1] == LAW_DRAWS);
        CHECK(cb[cr == 0.0 ? 0 : dim - 1] == LAW_DRAWS);
        continue;
      }
      p = chi2_two(ca, cb, (int)dim, &df);
      printf("vs loop    CR=%-5g D=%-5u df=%-4d p=%.4f\n", cr, dim, df, p);
      CHECKF(p > ALPHA, "CR = %g, D = %u: two-sample chi-square p = %g (df %d)", cr, dim, p, df);
    }
  free(ca);
  free(cb);
}

/* Edge cases of the inverse: u = 1 (the largest uniform) gives L = 1 for CR < 1; the smallest u
 * gives the cap D for CR near 1; D = 1 always 1; the take test wraps around. */
TEST_CASE(exp_length_edges)
{
  double umin = 1.0 / 9007199254740992.0;
  CHECK(devo__exp_length(0.9, 1.0, 50) == 1);
  CHECK(devo__exp_length(0.999999, umin, 50) == 50);
  CHECK(devo__exp_length(0.5, 0.5, 1) == 1);
  CHECK(devo__exp_length(0.5, 0.5, 10) == 2);  /* 0.5^1 >= 0.5 > 0.5^2 */
  CHECK(devo__exp_length(0.5, 0.25, 10) == 3); /* 0.5^2 >= 0.25 */
  CHECK(devo__exp_length(0.5, 0.2499, 10) == 3);
  CHECK(devo__exp_length(0.5, 0.1249, 10) == 4);
  CHECK(devo__exp_take(9, 8, 3, 10) && devo__exp_take(0, 8, 3, 10) && !devo__exp_take(1, 8, 3, 10));
  CHECK(!devo__exp_take(7, 8, 3, 10) && devo__exp_take(8, 8, 1, 10) &&
        !devo__exp_take(9, 8, 1, 10));
}

/* The length by binary lifting with the powers kept in an array (the first form of
 * devo__exp_length, before it squared each power again from CR to keep device threads free of a
 * local array): written out here as the reference. Both paths of devo__exp_length (short below
 * D = 1025, long beyond) must give the same L for every input,
 * so that the GPU kernels' and the CPU's trials did not change. */
static uint32_t exp_length_array_form(double cr, double u, uint32_t dim)
{
  double p[32], acc = 1.0;
  uint32_t tmax = dim - 1u, t = 0u;
  int nb = 0, b;
  if (dim <= 1u)
    return 1u;
  if (cr >= 1.0)
    return dim;
  if (!(cr > 0.0))
    return 1u;
  p[0] = cr;
  while (nb < 31 && ((uint32_t)1 << (nb + 1)) <= tmax) {
    p[nb + 1] = p[nb] * p[nb];
    nb++;
  }
  for (b = nb; b >= 0; --b) {
    uint32_t step = (uint32_t)1 << b;
    if (t + step <= tmax && acc * p[b] >= u) {
      acc *= p[b];
      t += step;
    }
  }
  return t + 1u;
}

TEST_CASE(exp_length_matches_array_form)
{
  static const uint32_t dims[] = {1,    2,    3,    10,   100,    128,
                                  1000, 1024, 1025, 4097, 100000, 2147483647u};
  static const double crs[] = {0.0, 1e-300, 0.2, 0.5, 0.9, 0.99, 0.999999, 1.0 - 1e-16, 1.0};
  uint64_t st = 0x9e3779b97f4a7c15ull;
  long n = 0, k;
  size_t a, b;
  for (a = 0; a < sizeof dims / sizeof dims[0]; ++a) {
    for (b = 0; b < sizeof crs / sizeof crs[0]; ++b)
      for (k = 0; k < 2000; ++k) {
        double u;
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        u = (double)((st >> 11) + 1u) * (1.0 / 9007199254740992.0); /* (0, 1] like exp_u */
        CHECKF(devo__exp_length(crs[b], u, dims[a]) == exp_length_array_form(crs[b], u, dims[a]),
               "CR %.17g u %.17g D %u", crs[b], u, dims[a]);
        n++;
      }
    for (k = 0; k < 2000; ++k) { /* random CR too */
      double u, cr;
      st = st * 6364136223846793005ull + 1442695040888963407ull;
      u = (double)((st >> 11) + 1u) * (1.0 / 9007199254740992.0);
      st = st * 6364136223846793005ull + 1442695040888963407ull;
      cr = (double)(st >> 11) * (1.0 / 9007199254740992.0);
      CHECKF(devo__exp_length(cr, u, dims[a]) == exp_length_array_form(cr, u, dims[a]),
             "CR %.17g u %.17g D %u", cr, u, dims[a]);
      n++;
    }
  }
  printf("  %ld inputs: the same L\n", n);
}

/* ---- donors ---- */

TEST_CASE(donors_distinct_and_uniform)
{
  const uint32_t np = 9, i = 4, gens = 60000;
  int s, k, df;
  for (s = 0; s < NSTRAT; ++s) {
    devo__variant v = devo__variant_default();
    int npk = devo__strategy_picks(s);
    long cnt[DEVO__MAX_PICKS][9];
    uint32_t g, ii;
    v.strategy = s;
    memset(cnt, 0, sizeof cnt);
    /* distinctness over every target of a small population, and of the smallest allowed NP */
    for (g = 1; g <= 2000; ++g)
      for (ii = 0; ii < np; ++ii) {
        uint32_t npm = (uint32_t)devo__strategy_min_np(s), nps[2];
        int q;
        nps[0] = np;
        nps[1] = npm;
        for (q = 0; q < 2; ++q) {
          uint32_t t = ii % nps[q];
          devo__var_ind d = devo__var_draw(&v, 99u, g, t, nps[q], 5u, 0.5, 0.9);
          int a, b;
          for (a = 0; a < npk; ++a) {
            CHECKF(d.r[a] < nps[q] && d.r[a] != t, "strategy %d pick %d = %u (i %u)", s, a, d.r[a],
                   t);
            for (b = 0; b < a; ++b)
              CHECKF(d.r[a] != d.r[b], "strategy %d picks %d and %d equal", s, a, b);
          }
        }
      }
    for (g = 1; g <= gens; ++g) {
      devo__var_ind d = devo__var_draw(&v, 7u, g, i, np, 5u, 0.5, 0.9);
      for (k = 0; k < npk; ++k)
        cnt[k][d.r[k]]++;
    }
    for (k = 0; k < npk; ++k) {
      long c8[8];
      double prob[8], p;
      int t, m = 0;
      CHECK(cnt[k][i] == 0);
      for (t = 0; t < (int)np; ++t)
        if (t != (int)i)
          c8[m] = cnt[k][t], prob[m++] = 1.0 / 8.0;
      p = chi2_fit(c8, prob, 8, gens, &df);
      CHECKF(p > ALPHA, "strategy %s pick %d: marginal chi-square p = %g", devo_strategy_name(s, 0),
             k + 1, p);
    }
  }
}

/* ---- reference DE, written here from the formulas (docs/variants.md) ---- */

/* The k-th (0-based) value of 0..np-1 that is not among ex[0..m-1]: the bounded mapping as a
 * count, independent of the library's shifting. */
static uint32_t kth_free(uint32_t k, const uint32_t *ex, int m, uint32_t np)
{
  uint32_t v;
  for (v = 0; v < np; ++v) {
    int a, taken = 0;
    for (a = 0; a < m; ++a)
      taken |= ex[a] == v;
    if (!taken && k-- == 0)
      return v;
  }
  return np;
}

static double ref_mutant(int s, double f, double xi, double xb, const double *x)
{
  switch (s) {
  case DEVO__STRAT_RAND1:
    return x[0] + f * (x[1] - x[2]);
  case DEVO__STRAT_RAND2:
    return x[0] + f * (x[1] + x[2] - x[3] - x[4]);
  case DEVO__STRAT_BEST1:
    return xb + f * (x[0] - x[1]);
  case DEVO__STRAT_BEST2:
    return xb + f * (x[0] + x[1] - x[2] - x[3]);
  case DEVO__STRAT_CURRENTTOBEST1:
    return xi + f * (xb - xi + x[0] - x[1]);
  case DEVO__STRAT_RANDTOBEST1:
    return x[0] + f * (xb - x[0] + x[1] - x[2]);
  default:
    return NAN; /* a strategy without a reference here fails the tests */
  }
}

static double sphere_obj(const double *x, int d)
{
  double s = 0.0;
  int j;
  for (j = 0; j < d; ++j)
    s += x[j] * x[j];
  return s;
}

static int user_sphere(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i;
  (void)ud;
  for (i = 0; i < n; ++i)
    f[i] = sphere_obj(x + i * dim, (int)dim);
  return 0;
}

/* One generation of the reference: pop/fit/F/CR (np, d) in place; box [lo, hi], reinit rule. */
static void ref_generation(const devo__variant *v, uint64_t seed, uint32_t gen, int np, int d,
                           double lo, double hi, double f0, double cr0, double *pop, double *fit,
                           double *F, double *CR)
{
  double *next = (double *)malloc((size_t)np * d * sizeof(double));
  double *nf = (double *)malloc((size_t)np * sizeof(double));
  double *nF = (double *)malloc((size_t)np * sizeof(double));
  double *nCR = (double *)malloc((size_t)np * sizeof(double));
  int i, j, best = 0, npk = devo__strategy_picks(v->strategy);
  for (i = 1; i < np; ++i)
    if (fit[i] < fit[best])
      best = i;
  for (i = 0; i < np; ++i) {
    devo__de_idx r = devo__de_indices(seed, gen, (uint32_t)i, (uint32_t)np, (uint32_t)d);
    uint32_t rr[5], ex[6];
    double f = f0, cr = cr0, *t = next + (size_t)i * d;
    uint32_t len = 0;
    int k, m;
    devo__u32x4 w2 = devo__rng(seed, 0u, gen, (uint32_t)i, DEVO__RNG_INDEX2);
    rr[0] = r.r1, rr[1] = r.r2, rr[2] = r.r3;
    ex[0] = (uint32_t)i, ex[1] = r.r1, ex[2] = r.r2, ex[3] = r.r3;
    for (k = 3, m = 4; k < npk; ++k, ++m) {
      rr[k] =
          kth_free(devo__below(w2.v[k - 3], (uint32_t)np - (uint32_t)(k + 1)), ex, m, (uint32_t)np);
      ex[m] = rr[k];
    }
    if (v->jde) {
      devo__u32x4 a = devo__rng(seed, 0u, gen, (uint32_t)i, DEVO__RNG_JDE);
      devo__u32x4 b = devo__rng(seed, 1u, gen, (uint32_t)i, DEVO__RNG_JDE);
      f = devo__u01(a.v[0], a.v[1]) < v->tau1 ? v->fl + devo__u01(a.v[2], a.v[3]) * v->fu : F[i];
      cr =
          devo__u01(b.v[0], b.v[1]) < v->tau2 ? v->crl + devo__u01(b.v[2], b.v[3]) * v->cru : CR[i];
    }
    memcpy(t, pop + (size_t)i * d, (size_t)d * sizeof(double));
    if (v->crossover == DEVO__XOVER_EXP) {
      len = devo__exp_length(cr, (double)(devo__u53(w2.v[2], w2.v[3]) + 1u) / 9007199254740992.0,
                             (uint32_t)d);
    }
    /* binomial: each coordinate by its own uniform, j_rand always; exponential: the textbook
     * run from n = j_rand, L coordinates, cyclic */
    for (j = 0; j < d; ++j) {
      devo__de_u u = devo__de_coord(seed, gen, (uint32_t)i, (uint32_t)j);
      int take;
      double x[5], vj;
      if (v->crossover == DEVO__XOVER_EXP)
        take = (uint32_t)((j - (int)r.jrand + d) % d) < len;
      else
        take = u.cr < cr || (uint32_t)j == r.jrand;
      if (!take)
        continue;
      for (k = 0; k < npk; ++k)
        x[k] = pop[(size_t)rr[k] * d + j];
      vj = ref_mutant(v->strategy, f, t[j], pop[(size_t)best * d + j], x);
      if (vj < lo || vj > hi)
        vj = lo + u.bound * (hi - lo);
      t[j] = vj;
    }
    nf[i] = sphere_obj(t, d);
    nF[i] = f;
    nCR[i] = cr;
  }
  for (i = 0; i < np; ++i)
    if (nf[i] <= fit[i]) {
      memcpy(pop + (size_t)i * d, next + (size_t)i * d, (size_t)d * sizeof(double));
      fit[i] = nf[i];
      if (v->jde)
        F[i] = nF[i], CR[i] = nCR[i];
    }
  free(next);
  free(nf);
  free(nF);
  free(nCR);
}

static devo_problem *user_problem(int d, double lo, double hi)
{
  devo_problem *p = NULL;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_user(p, d, lo, hi, user_sphere, NULL) == DEVO_OK);
  return p;
}

static void pub_variant(const devo__variant *in, devo_variant *out)
{
  devo_variant_init(out);
  out->strategy = in->strategy;
  out->crossover = in->crossover;
  out->jde = in->jde;
  out->tau1 = in->tau1, out->tau2 = in->tau2, out->fl = in->fl, out->fu = in->fu;
  out->crl = in->crl, out->cru = in->cru, out->gobl = in->gobl;
}

/* Every strategy x crossover, with and without jDE: K generations of the CPU backend equal the
 * reference above bit for bit (population, fitness, F_i and CR_i). */
TEST_CASE(cpu_matches_reference_de)
{
  const int np = 12, d = 7, K = 6;
  const double lo = -5.0, hi = 5.0;
  devo_problem *p = user_problem(d, lo, hi);
  int s, x, jde;
  for (s = 0; s < NSTRAT; ++s)
    for (x = 0; x < 2; ++x)
      for (jde = 0; jde < 2; ++jde) {
        devo__variant v = devo__variant_default();
        devo_variant pv;
        devo_solver *sv = NULL;
        double pop[12 * 7], fit[12], F[12], CR[12], gp[12 * 7], gf[12], gF[12], gCR[12];
        int i, j, g;
        v.strategy = s, v.crossover = x, v.jde = jde;
        v.tau1 = 0.3, v.tau2 = 0.4; /* many redraws in few generations */
        for (i = 0; i < np; ++i) {
          for (j = 0; j < d; ++j)
            pop[i * d + j] = devo__de_init(5u, (uint32_t)i, (uint32_t)j, lo, hi);
          fit[i] = sphere_obj(pop + i * d, d);
          F[i] = 0.5, CR[i] = 0.9;
        }
        for (g = 1; g <= K; ++g)
          ref_generation(&v, 5u, (uint32_t)g, np, d, lo, hi, 0.7, 0.6, pop, fit, F, CR);
        CHECK(devo_solver_create(&sv, p, NULL) == DEVO_OK);
        pub_variant(&v, &pv);
        CHECK(devo_solver_set_variant(sv, &pv) == DEVO_OK);
        CHECK(devo_solver_set_np(sv, np) == DEVO_OK && devo_solver_set_seed(sv, 5u) == DEVO_OK);
        CHECK(devo_solver_set_f(sv, 0.7) == DEVO_OK && devo_solver_set_cr(sv, 0.6) == DEVO_OK);
        CHECK(devo_solver_set_max_generations(sv, K) == DEVO_OK);
        CHECK(devo_solve(sv) == DEVO_GEN_LIMIT);
        CHECK(devo_solver_population(sv, gp, gf) == DEVO_OK);
        CHECKF(memcmp(gp, pop, sizeof pop) == 0 && memcmp(gf, fit, sizeof fit) == 0,
               "%s jde %d: population differs from the reference", devo_strategy_name(s, x), jde);
        if (jde) {
          CHECK(devo_solver_jde_state(sv, gF, gCR) == DEVO_OK);
          CHECKF(memcmp(gF, F, sizeof F) == 0 && memcmp(gCR, CR, sizeof CR) == 0,
                 "%s: jDE state differs from the reference", devo_strategy_name(s, x));
        } else {
          CHECK(devo_solver_jde_state(sv, gF, gCR) == DEVO_E_INVALID);
        }
        devo_solver_destroy(sv);
      }
  devo_problem_destroy(p);
}

/* Each strategy's mutant against the formula computed here (the library's expression order
 * is SciPy's; equal to rounding). */
TEST_CASE(strategy_mutants)
{
  int s, n;
  for (s = 0; s < NSTRAT; ++s)
    for (n = 0; n < 1000; ++n) {
      double x[5], xi, xb, f, a, b;
      int k;
      devo__u32x4 w = devo__rng(3u, (uint32_t)s, (uint32_t)n, 0u, DEVO__RNG_USER);
      devo__u32x4 w2 = devo__rng(3u, (uint32_t)s, (uint32_t)n, 1u, DEVO__RNG_USER);
      for (k = 0; k < 4; ++k)
        x[k] = (double)(int32_t)w.v[k] / 1e7;
      x[4] = (double)(int32_t)w2.v[0] / 1e7;
      xi = (double)(int32_t)w2.v[1] / 1e7;
      xb = (double)(int32_t)w2.v[2] / 1e7;
      f = devo__u01(w2.v[3], w.v[0]) * 2.0;
      a = devo__strategy_mutant(s, f, xi, xb, x);
      b = ref_mutant(s, f, xi, xb, x);
      CHECK_CLOSE(a, b, 1e-12, 1e-9);
    }
  /* the plain rand1bin trial is de_ops.h's, bit for bit */
  for (n = 0; n < 2000; ++n) {
    devo__variant v = devo__variant_default();
    devo__var_ind d = devo__var_draw(&v, 11u, 3u, (uint32_t)n % 50u, 50u, 20u, 0.5, 0.9);
    devo__de_idx r = devo__de_indices(11u, 3u, (uint32_t)n % 50u, 50u, 20u);
    double x[5] = {1.5, -2.25, 0.125, 0.0, 0.0}, a, b; /* 5: the size the mutant may read */
    CHECK(d.r[0] == r.r1 && d.r[1] == r.r2 && d.r[2] == r.r3 && d.jrand == r.jrand);
    a = devo__var_trial_coord(&v, &d, 11u, 3u, (uint32_t)n % 50u, (uint32_t)n % 20u, 20u, 0.5, 0.0,
                              x, -2.0, 2.0, DEVO__BOUNDS_REINIT);
    b = devo__de_trial_coord(11u, 3u, (uint32_t)n % 50u, (uint32_t)n % 20u, r, 0.5, x[0], x[1],
                             x[2], 0.5, 0.9, -2.0, 2.0, DEVO__BOUNDS_REINIT);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
  }
  /* names round-trip, and the public numbers are the table's */
  for (s = 0; s < NSTRAT; ++s) {
    int st = -1, xo = -1;
    CHECK(devo_strategy_parse(devo_strategy_name(s, DEVO_CROSSOVER_EXP), &st, &xo) == DEVO_OK);
    CHECK(st == s && xo == DEVO_CROSSOVER_EXP);
  }
  CHECK(strcmp(devo_strategy_name(DEVO_STRATEGY_RAND1, DEVO_CROSSOVER_BIN), "rand1bin") == 0);
  CHECK(strcmp(devo_strategy_name(DEVO_STRATEGY_RAND2, DEVO_CROSSOVER_BIN), "rand2bin") == 0);
  CHECK(strcmp(devo_strategy_name(DEVO_STRATEGY_BEST1, DEVO_CROSSOVER_BIN), "best1bin") == 0);
  CHECK(strcmp(devo_strategy_name(DEVO_STRATEGY_BEST2, DEVO_CROSSOVER_EXP), "best2exp") == 0);
  CHECK(strcmp(devo_strategy_name(DEVO_STRATEGY_CURRENTTOBEST1, DEVO_CROSSOVER_BIN),
               "currenttobest1bin") == 0);
  CHECK(strcmp(devo_strategy_name(DEVO_STRATEGY_RANDTOBEST1, DEVO_CROSSOVER_EXP),
               "randtobest1exp") == 0);
  CHECK(devo_strategy_name(NSTRAT, 0) == NULL && devo_strategy_name(0, 2) == NULL);
}

/* ---- jDE ---- */

/* Redraw frequencies ~ tau (binomial, 5 sigma) and the new values' ranges. */
TEST_CASE(jde_redraw_rates)
{
  devo__variant v = devo__variant_default();
  const long n = 200000;
  long nf = 0, ncr = 0, i;
  v.jde = 1;
  v.tau1 = 0.1, v.tau2 = 0.3, v.fl = 0.2, v.fu = 0.5, v.crl = 0.1, v.cru = 0.6;
  for (i = 0; i < n; ++i) {
    double f = devo__jde_f(4u, (uint32_t)(1 + i / 100), (uint32_t)(i % 100), &v, -1.0);
    double cr = devo__jde_cr(4u, (uint32_t)(1 + i / 100), (uint32_t)(i % 100), &v, -1.0);
    if (f != -1.0) {
      nf++;
      CHECK(f >= 0.2 && f < 0.7);
    }
    if (cr != -1.0) {
      ncr++;
      CHECK(cr >= 0.1 && cr < 0.7);
    }
  }
  CHECKF(fabs((double)nf - 0.1 * n) < 5.0 * sqrt(n * 0.1 * 0.9), "F redrawn %ld of %ld", nf, n);
  CHECKF(fabs((double)ncr - 0.3 * n) < 5.0 * sqrt(n * 0.3 * 0.7), "CR redrawn %ld of %ld", ncr, n);
}

/* F', CR' survive only with their trial: on a function where every trial loses (f = -x_0 with
 * the population at the upper edge... here simply: the reference's rule checked on the
 * backend's own state over one generation). */
TEST_CASE(jde_kept_only_on_replacement)
{
  const int np = 30, d = 5;
  devo_problem *p = user_problem(d, -3.0, 3.0);
  devo_solver *s = NULL;
  double pop0[30 * 5], fit0[30], pop1[30 * 5], fit1[30], F[30], CR[30];
  int i, replaced = 0, kept = 0;
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_np(s, np) == DEVO_OK && devo_solver_set_seed(s, 8u) == DEVO_OK);
  CHECK(devo_solver_set_jde(s, 1, 1.0, 1.0, 0.1, 0.9, 0.0, 1.0) == DEVO_OK); /* always redraw */
  CHECK(devo_solver_set_max_generations(s, 1) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_population(s, pop1, fit1) == DEVO_OK);
  CHECK(devo_solver_jde_state(s, F, CR) == DEVO_OK);
  for (i = 0; i < np * d; ++i)
    pop0[i] = devo__de_init(8u, (uint32_t)(i / d), (uint32_t)(i % d), -3.0, 3.0);
  for (i = 0; i < np; ++i) {
    devo__variant v = devo__variant_default();
    devo__var_ind r;
    v.jde = 1, v.tau1 = 1.0, v.tau2 = 1.0;
    r = devo__var_draw(&v, 8u, 1u, (uint32_t)i, (uint32_t)np, (uint32_t)d, 0.5, 0.9);
    fit0[i] = sphere_obj(pop0 + i * d, d);
    if (memcmp(pop0 + i * d, pop1 + i * d, (size_t)d * sizeof(double)) != 0) {
      replaced++;
      CHECK(F[i] == r.f && CR[i] == r.cr && fit1[i] <= fit0[i]);
    } else {
      kept++;
      CHECK(F[i] == 0.5 && CR[i] == 0.9);
    }
  }
  CHECKF(replaced > 0 && kept > 0, "replaced %d kept %d: both cases must occur", replaced, kept);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* ---- GOBL ---- */

static double gobl_f(const double *x, int d, int kind)
{
  if (kind == 1)
    return 1.0; /* all tied: the parents must survive, in place */
  if (kind == 2)
    return floor(x[0]); /* many ties between parents and opposites */
  return sphere_obj(x, d);
}

static int user_gobl(void *ud, const double *x, size_t n, size_t dim, double *f)
{
  size_t i;
  for (i = 0; i < n; ++i)
    f[i] = gobl_f(x + i * dim, (int)dim, *(const int *)ud);
  return 0;
}

/* One jump (p_o = 1: generation 1 always jumps) on NP = 5, D = 3, box [-1, 2], computed here
 * step by step: bounds, k, opposites, repair, evaluation, survivors by (fitness, index). */
TEST_CASE(gobl_jump_by_hand)
{
  const int np = 5, d = 3;
  const double lo = -1.0, hi = 2.0;
  int kind, repairs = 0, opp_survivors = 0;
  for (kind = 0; kind < 3; ++kind) {
    devo_problem *p = NULL;
    devo_solver *s = NULL;
    double pop[15], fit[15], a[3], b[3], opp[15], ofit[5], k, got[15], gfit[5], F[5], CR[5];
    int i, j, order[10], n;
    devo_stats st;
    CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
    CHECK(devo_problem_set_user(p, d, lo, hi, user_gobl, &kind) == DEVO_OK);
    CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
    CHECK(devo_solver_set_np(s, np) == DEVO_OK && devo_solver_set_seed(s, 21u) == DEVO_OK);
    CHECK(devo_solver_set_gobl(s, 1.0) == DEVO_OK);
    CHECK(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, 0.0, 1.0) == DEVO_OK);
    CHECK(devo_solver_set_max_generations(s, 1) == DEVO_OK);
    CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
    CHECK(devo_solver_stats(s, &st) == DEVO_OK && st.evaluations == 2 * np && st.generations == 1);
    CHECK(devo_solver_population(s, got, gfit) == DEVO_OK);
    CHECK(devo_solver_jde_state(s, F, CR) == DEVO_OK);
    CHECK(devo__gobl_jump(21u, 1u, 1.0, &k) == 1);
    CHECK(k >= 0.0 && k < 1.0);
    for (i = 0; i < np; ++i) {
      for (j = 0; j < d; ++j)
        pop[i * d + j] = devo__de_init(21u, (uint32_t)i, (uint32_t)j, lo, hi);
      fit[i] = gobl_f(pop + i * d, d, kind);
    }
    for (j = 0; j < d; ++j) {
      a[j] = b[j] = pop[j];
      for (i = 1; i < np; ++i) {
        a[j] = fmin(a[j], pop[i * d + j]);
        b[j] = fmax(b[j], pop[i * d + j]);
      }
    }
    for (i = 0; i < np; ++i) {
      for (j = 0; j < d; ++j) {
        double o = k * (a[j] + b[j]) - pop[i * d + j];
        if (o < lo || o > hi) {
          devo__u32x4 w = devo__rng(21u, (uint32_t)j + 1u, 1u, (uint32_t)i, DEVO__RNG_GOBL);
          o = a[j] + devo__u01(w.v[0], w.v[1]) * (b[j] - a[j]);
          repairs++;
          CHECK(o >= a[j] && o <= b[j]);
        }
        opp[i * d + j] = o;
      }
      ofit[i] = gobl_f(opp + i * d, d, kind);
    }
    /* selection: the NP smallest (f, index) of the 2 NP by repeated minimum */
    for (n = 0; n < 2 * np; ++n)
      order[n] = n;
    for (n = 0; n < np; ++n) {
      int m, best = n;
      for (m = n + 1; m < 2 * np; ++m) {
        double fm = order[m] < np ? fit[order[m]] : ofit[order[m] - np];
        double fb = order[best] < np ? fit[order[best]] : ofit[order[best] - np];
        if (fm < fb || (fm == fb && order[m] < order[best]))
          best = m;
      }
      m = order[n], order[n] = order[best], order[best] = m;
    }
    for (n = 0; n < np; ++n) {
      int c = order[n];
      const double *src = c < np ? pop + c * d : opp + (c - np) * d;
      CHECKF(memcmp(got + n * d, src, (size_t)d * sizeof(double)) == 0,
             "kind %d: survivor %d should be candidate %d", kind, n, c);
      CHECK(gfit[n] == (c < np ? fit[c] : ofit[c - np]));
      CHECK(F[n] == 0.5 && CR[n] == 0.9); /* carried over (all start at 0.5, 0.9) */
      opp_survivors += c >= np;
    }
    if (kind == 1) /* all tied: parents in place */
      CHECK(memcmp(got, pop, sizeof pop) == 0);
    devo_solver_destroy(s);
    devo_problem_destroy(p);
  }
  CHECKF(repairs > 0 && opp_survivors > 0,
         "repairs %d, opposite survivors %d: the case must "
         "exercise both",
         repairs, opp_survivors);
}

/* The jump decision: p_o = 0 never, generation 0 never, frequency ~ p_o. */
TEST_CASE(gobl_jump_rate)
{
  uint32_t g;
  long jumps = 0;
  double k;
  CHECK(devo__gobl_jump(1u, 5u, 0.0, &k) == 0);
  CHECK(devo__gobl_jump(1u, 0u, 1.0, &k) == 0);
  for (g = 1; g <= 100000; ++g)
    jumps += devo__gobl_jump(77u, g, 0.05, &k);
  CHECKF(fabs((double)jumps - 5000.0) < 5.0 * sqrt(100000 * 0.05 * 0.95), "%ld jumps", jumps);
}

/* ---- bit-identity across thread counts ---- */

TEST_CASE(threads_bit_identical)
{
  int which, s, x, mode, th;
  for (which = 0; which < 3; ++which) {
    devo_etc *e;
    devo_problem *p = tc_small_problem(which, &e);
    int d = devo_problem_dim(p), np = 24;
    double *ref = (double *)malloc((size_t)(np * d + 3 * np) * sizeof(double));
    double *got = (double *)malloc((size_t)(np * d + 3 * np) * sizeof(double));
    for (s = 0; s < NSTRAT; ++s)
      for (x = 0; x < 2; ++x)
        for (mode = 0; mode < 4; ++mode) /* plain, jDE, GOBL, jDE + GOBL */
          for (th = 1; th <= 4; th *= 2) {
            devo_solver *sv = NULL;
            double *out = th == 1 ? ref : got;
            CHECK(devo_solver_create(&sv, p, NULL) == DEVO_OK);
            CHECK(devo_solver_set_np(sv, np) == DEVO_OK && devo_solver_set_threads(sv, th) == 0);
            CHECK(devo_solver_set_strategy(sv, s, x) == DEVO_OK);
            CHECK(devo_solver_set_jde(sv, mode & 1, 0.1, 0.1, 0.1, 0.9, 0.0, 1.0) == DEVO_OK);
            CHECK(devo_solver_set_gobl(sv, mode & 2 ? 0.3 : 0.0) == DEVO_OK);
            CHECK(devo_solver_set_max_generations(sv, 30) == DEVO_OK);
            CHECK(devo_solve(sv) == DEVO_GEN_LIMIT);
            CHECK(devo_solver_population(sv, out, out + np * d) == DEVO_OK);
            if (mode & 1)
              CHECK(devo_solver_jde_state(sv, out + np * d + np, out + np * d + 2 * np) == 0);
            else
              memset(out + np * d + np, 0, 2 * (size_t)np * sizeof(double));
            if (th > 1)
              CHECKF(memcmp(ref, got, (size_t)(np * d + 3 * np) * sizeof(double)) == 0,
                     "problem %d %s mode %d: %d threads differ from 1", which,
                     devo_strategy_name(s, x), mode, th);
            devo_solver_destroy(sv);
          }
    free(ref);
    free(got);
    devo_problem_destroy(p);
    devo_etc_destroy(e);
  }
}

/* ---- API validation ---- */

TEST_CASE(api_validation)
{
  devo_problem *p = user_problem(4, -1.0, 1.0);
  devo_solver *s = NULL;
  devo_variant v;
  char err[256];
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  CHECK(devo_solver_set_strategy(s, NSTRAT, 0) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "strategy") != NULL);
  CHECK(devo_solver_set_strategy(s, -1, 0) == DEVO_E_INVALID);
  CHECK(devo_solver_set_strategy(s, 0, 2) == DEVO_E_INVALID);
  CHECK(devo_solver_set_strategy_name(s, "rand3bin") == DEVO_E_INVALID);
  CHECK(devo_solver_set_strategy_name(s, NULL) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 1, 1.5, 0.1, 0.1, 0.9, 0, 1) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "tau1") != NULL);
  CHECK(devo_solver_set_jde(s, 1, 0.1, NAN, 0.1, 0.9, 0, 1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.0, 0.9, 0, 1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 1, 0.1, 0.1, 1.5, 0.9, 0, 1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, -0.1, 0, 1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, 0.5, 0.6) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 1, 0.1, 0.1, 0.1, 0.9, -0.1, 1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_jde(s, 2, 0.1, 0.1, 0.1, 0.9, 0, 1) == DEVO_E_INVALID);
  CHECK(devo_solver_set_gobl(s, 1.01) == DEVO_E_INVALID);
  CHECK(devo_solver_set_gobl(s, -0.01) == DEVO_E_INVALID);
  CHECK(devo_solver_set_gobl(s, NAN) == DEVO_E_INVALID);
  CHECK(devo_solver_set_algorithm(s, "mshade") == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "mshade") != NULL);
  /* nothing changed by the refusals */
  devo_solver_get_variant(s, &v);
  CHECK(v.strategy == 0 && v.crossover == 0 && v.jde == 0 && v.gobl == 0.0);
  /* presets */
  CHECK(devo_solver_set_algorithm(s, "gojde") == DEVO_OK);
  devo_solver_get_variant(s, &v);
  CHECK(v.strategy == DEVO_STRATEGY_RAND1 && v.crossover == DEVO_CROSSOVER_EXP && v.jde == 1);
  CHECK(v.fl == 0.2 && v.fu == 0.2 && v.crl == 0.8 && v.cru == 0.2 && v.gobl == 0.05);
  CHECK(v.tau1 == 0.1 && v.tau2 == 0.1);
  CHECK(devo_variant_preset(&v, "jde", err, sizeof err) == DEVO_OK && v.jde == 1 && v.fl == 0.1 &&
        v.fu == 0.9 && v.crl == 0.0 && v.cru == 1.0 && v.crossover == 0);
  CHECK(devo_variant_preset(&v, "x", err, sizeof err) == DEVO_E_INVALID && strstr(err, "x"));
  /* the strategy's minimum NP, checked by devo_solve */
  CHECK(devo_solver_set_np(s, 5) == DEVO_OK);
  CHECK(devo_solver_set_strategy_name(s, "rand2bin") == DEVO_OK);
  CHECK(devo_solver_set_max_generations(s, 2) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_E_INVALID);
  CHECK(strstr(devo_solver_errmsg(s), "rand2bin") && strstr(devo_solver_errmsg(s), "6"));
  CHECK(devo_solver_set_np(s, 6) == DEVO_OK);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_set_strategy_name(s, "best2exp") == DEVO_OK && devo_solver_set_np(s, 5) == 0);
  CHECK(devo_solve(s) == DEVO_GEN_LIMIT);
  CHECK(devo_solver_set_np(s, 4) == DEVO_OK && devo_solve(s) == DEVO_E_INVALID);
  CHECK(devo_strategy_min_np(DEVO_STRATEGY_RAND2) == 6 && devo_strategy_min_np(-1) == 0);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
}

/* ---- CLI and devo_schedule_run ---- */

/* Every new option's bad values: exit 2, one line on stderr naming the option, nothing on
 * stdout. */
TEST_CASE(cli_bad_values)
{
  static const char *const bad[][2] = {{"--strategy rand3bin", "--strategy"},
                                       {"--strategy", "--strategy"},
                                       {"--algorithm mshade", "--algorithm"},
                                       {"--jde-tau1 1.5 --jde", "--jde-tau1"},
                                       {"--jde-tau2 -0.1 --jde", "--jde-tau2"},
                                       {"--jde-fl 0 --jde", "--jde-fl"},
                                       {"--jde-fu 2.5 --jde", "--jde-fu"},
                                       {"--jde-crl 1.5 --jde", "--jde-crl"},
                                       {"--jde-cru x --jde", "--jde-cru"},
                                       {"--gobl 1.5", "--gobl"},
                                       {"--gobl nan", "--gobl"},
                                       {"--jde-fl 1.5 --jde-fu 0.9 --jde", "--jde-fl"},
                                       {"--jde-crl 0.5 --jde-cru 0.6 --jde", "--jde-crl"},
                                       {"--jde-tau1 0.2", "--jde"},
                                       {"--strategy rand2bin --np 5", "rand2bin"}};
  char cmd[512];
  size_t k;
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim 4 --max-evals 1000 %s",
             tc_devo_bin(), bad[k][0]);
    tc_expect_refused(cmd, 2, "devo solve: ", bad[k][1]);
    snprintf(cmd, sizeof cmd, "printf '1,2\\n2,1\\n3,3\\n' | %s schedule - --time-limit 0.05 %s",
             tc_devo_bin(), bad[k][0]);
    tc_expect_refused(cmd, 2, "devo schedule: ", bad[k][1]);
  }
}

/* --json reports the variant; jDE's means lie in the adapted ranges. */
TEST_CASE(cli_json_reports_variant)
{
  char cmd[512], *out = NULL;
  double mf = -1.0, mcr = -1.0;
  const char *q;
  snprintf(cmd, sizeof cmd,
           "%s solve --problem sphere --dim 5 --max-evals 5000 --algorithm gojde --json",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  CHECK(strstr(out, "\"algorithm\":\"gojde\"") && strstr(out, "\"strategy\":\"rand1exp\""));
  CHECK(strstr(out, "\"gobl\":0.05") && strstr(out, "\"fl\":0.2"));
  q = strstr(out, "\"mean_f\":");
  CHECK(q && sscanf(q, "\"mean_f\":%lf,\"mean_cr\":%lf", &mf, &mcr) == 2);
  CHECK(mf >= 0.2 && mf <= 0.5 && mcr >= 0.8 && mcr <= 1.0); /* initial 0.5/0.9 or redrawn */
  free(out);
  out = NULL;
  snprintf(cmd, sizeof cmd, "%s solve --problem sphere --dim 5 --max-evals 2000 --json",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  CHECK(strstr(out, "\"algorithm\":\"de\"") && strstr(out, "\"jde\":null"));
  free(out);
}

/* devo solve --help and devo schedule --help list every strategy of the library's table and the
 * presets with what they expand to. */
TEST_CASE(cli_help_lists_presets)
{
  static const char *const cmds[] = {"solve", "schedule"};
  char cmd[512], *out = NULL, want[64];
  int c, k;
  for (c = 0; c < 2; ++c) {
    snprintf(cmd, sizeof cmd, "%s %s --help", tc_devo_bin(), cmds[c]);
    CHECK(tc_run(cmd, &out, NULL) == 0 && out);
    if (!out)
      continue;
    for (k = 0; k < NSTRAT; ++k) {
      snprintf(want, sizeof want, "%s/exp", devo_strategy_name(k, DEVO_CROSSOVER_BIN));
      CHECKF(strstr(out, want) != NULL, "devo %s --help lacks %s", cmds[c], want);
    }
    CHECKF(strstr(out, "de    = --strategy rand1bin") != NULL, "devo %s --help: de", cmds[c]);
    CHECKF(strstr(out, "jde   = --strategy rand1bin --jde (tau1 = tau2 = 0.1, F_l = 0.1,") &&
               strstr(out, "F_u = 0.9, CR_l = 0, CR_u = 1"),
           "devo %s --help: jde", cmds[c]);
    CHECKF(strstr(out, "gojde = --strategy rand1exp --jde --jde-fl 0.2 --jde-fu 0.2") &&
               strstr(out, "--jde-crl 0.8 --jde-cru 0.2 --gobl 0.05"),
           "devo %s --help: gojde", cmds[c]);
    free(out);
    out = NULL;
  }
}

/* devo schedule takes the variant options for its DE stage and reports them in its JSON (the
 * explicit --strategy over the preset), with jDE's means of DE's final population. 24 x 3: too
 * many assignments to enumerate (a tiny instance is solved before DE would run). */
TEST_CASE(cli_schedule_reports_variant)
{
  char cmd[512], *out = NULL;
  double mf = -1.0, mcr = -1.0;
  const char *q;
  snprintf(cmd, sizeof cmd,
           "for i in $(seq 24); do echo $((i %% 7 + 1)),$((i * 3 %% 5 + 1)),$((i %% 4 + 2)); "
           "done | %s schedule - --time-limit 0.05 --ils-share 0 "
           "--algorithm gojde --strategy best2exp --jde-tau1 0.3 --json",
           tc_devo_bin());
  CHECK(tc_run(cmd, &out, NULL) == 0 && out);
  if (!out)
    return;
  CHECKF(strstr(out, "\"algorithm\":\"gojde\",\"strategy\":\"best2exp\",\"gobl\":0.05,") &&
             strstr(out, "\"jde\":{\"tau1\":0.3,\"tau2\":0.1,\"fl\":0.2,\"fu\":0.2,\"crl\":0.8,"
                         "\"cru\":0.2,\"mean_f\":"),
         "%s", out);
  q = strstr(out, "\"mean_f\":");
  CHECK(q && sscanf(q, "\"mean_f\":%lf,\"mean_cr\":%lf", &mf, &mcr) == 2);
  CHECKF(mf >= 0.2 && mf <= 0.5 && mcr >= 0.8 && mcr <= 1.0, "means %g %g", mf, mcr);
  free(out);
}

/* devo_schedule_run checks and uses the variant of its DE stage. */
TEST_CASE(schedule_variant)
{
  double v[24 * 3]; /* 3^24 assignments: not enumerated, so DE runs */
  int assign[24], t;
  devo_etc *e = NULL;
  devo_schedule_opts o;
  devo_schedule_result r;
  char err[256];
  for (t = 0; t < 72; ++t)
    v[t] = 1.0 + (double)((t * 37) % 11);
  CHECK(devo_etc_create(&e, 24, 3, v, NULL, err, sizeof err) == DEVO_OK);
  devo_schedule_opts_init(&o);
  o.time_limit = 0.05;
  o.variant.gobl = 2.0;
  CHECK(devo_schedule_run(e, &o, assign, &r) == DEVO_E_INVALID);
  CHECK(strstr(r.message, "GOBL") != NULL);
  CHECK(devo_variant_preset(&o.variant, "gojde", err, sizeof err) == DEVO_OK);
  o.variant.strategy = DEVO_STRATEGY_RAND2;
  o.np = 5;
  CHECK(devo_schedule_run(e, &o, assign, &r) == DEVO_E_INVALID);
  o.np = 16;
  o.ils_share = 0.0;
  CHECK(devo_schedule_run(e, &o, assign, &r) == DEVO_OK);
  CHECK(r.de_ran == 1 && r.generations > 0);
  /* GOjDE's ranges: F in [0.2, 0.4] once redrawn (0.5 at first), CR in [0.8, 1] (0.9) */
  CHECKF(r.jde_mean_f >= 0.2 && r.jde_mean_f <= 0.5 && r.jde_mean_cr >= 0.8 && r.jde_mean_cr <= 1.0,
         "jDE means %g %g", r.jde_mean_f, r.jde_mean_cr);
  o.variant.jde = 0;
  CHECK(devo_schedule_run(e, &o, assign, &r) == DEVO_OK);
  CHECK(r.de_ran == 1 && isnan(r.jde_mean_f) && isnan(r.jde_mean_cr));
  devo_etc_destroy(e);
}

/* ---- quality (slow) ---- */

static double run_error(const char *fn, int dim, uint64_t data_seed, int np, const char *strat,
                        const char *algo, double f, double cr, uint64_t seed, int64_t evals,
                        double target, int64_t *used)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  devo_stats st;
  double best = INFINITY;
  CHECK(devo_problem_create(&p, NULL) == DEVO_OK);
  CHECK(devo_problem_set_builtin(p, fn, dim, data_seed, NULL) == DEVO_OK);
  CHECK(devo_solver_create(&s, p, NULL) == DEVO_OK);
  if (algo)
    CHECK(devo_solver_set_algorithm(s, algo) == DEVO_OK);
  if (strat)
    CHECK(devo_solver_set_strategy_name(s, strat) == DEVO_OK);
  CHECK(devo_solver_set_np(s, np) == DEVO_OK && devo_solver_set_seed(s, seed) == DEVO_OK);
  CHECK(devo_solver_set_f(s, f) == DEVO_OK && devo_solver_set_cr(s, cr) == DEVO_OK);
  CHECK(devo_solver_set_max_evals(s, evals) == DEVO_OK);
  /* 2 threads: the same bits as 1 (threads_bit_identical), half the wall time on CI's 2 cores */
  CHECK(devo_solver_set_threads(s, 2) == DEVO_OK);
  if (!isnan(target))
    CHECK(devo_solver_set_target(s, devo_problem_fstar(p) + target) == DEVO_OK);
  CHECK(devo_solve(s) > 0);
  CHECK(devo_solver_best(s, &best, NULL) == DEVO_OK);
  CHECK(devo_solver_stats(s, &st) == DEVO_OK);
  if (used)
    *used = st.evaluations;
  best -= devo_problem_fstar(p);
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  return best;
}

/* Shifted sphere D = 30, NP = 60, CR = 0.9: every strategy x crossover reaches an error of 1e-8
 * in 10 of 10 seeds within SPHERE_BUDGET evaluations. F = 0.5, except 0.7 for the strategies
 * with one random difference that pull towards the best (best1, currenttobest1, randtobest1;
 * randtobest1bin at F = 0.5: error 5451 after 400,000 evaluations in one seed of 10): at F = 0.5
 * their population
 * collapses before the optimum (best1bin seed 1: error 1.02e4 after 400,000 evaluations, the
 * spread 0 by generation 1024), as SciPy's differential_evolution(strategy='best1bin',
 * mutation=0.5, recombination=0.9, popsize=2, updating='deferred') does too (errors 3640 and
 * 5012 after 180,060 evaluations, seeds 1 and 2; 2026-11-24). Measured needs (largest of 10
 * seeds): rand1bin 52,020, rand2bin 332,100, best2bin 31,260, best1bin (F 0.7) 28,500,
 * currenttobest1bin (F 0.7) 25,440, randtobest1bin (F 0.7) 24,600; the test prints them. */
#define SPHERE_BUDGET 400000
static double sphere_f(int s)
{
  return devo__strategy_uses_best(s) && s != DEVO__STRAT_BEST2 ? 0.7 : 0.5;
}

SLOW_CASE(quality_sphere_every_variant)
{
  int s, x;
  uint64_t seed;
  for (s = 0; s < NSTRAT; ++s)
    for (x = 0; x < 2; ++x) {
      int64_t worst = 0, used;
      for (seed = 1; seed <= 10; ++seed) {
        double err = run_error("sphere", 30, 1, 60, devo_strategy_name(s, x), NULL, sphere_f(s),
                               0.9, seed, SPHERE_BUDGET, 1e-8, &used);
        CHECKF(err <= 1e-8, "%s seed %llu: error %g after %lld evaluations",
               devo_strategy_name(s, x), (unsigned long long)seed, err, (long long)used);
        if (used > worst)
          worst = used;
      }
      printf("sphere D=30 %-18s F=%.1f 10/10 at 1e-8, largest need %lld evaluations\n",
             devo_strategy_name(s, x), sphere_f(s), (long long)worst);
    }
}

/* jDE against rand1bin (F = 0.5, CR = 0.3) on F03 at D = 30, 300,000 evaluations, 11 seeds,
 * NP = 100 for both. */
SLOW_CASE(quality_jde_beats_rand1bin_on_f03)
{
  double ej[11], ed[11], p;
  int k;
  for (k = 0; k < 11; ++k) {
    ej[k] = run_error("F03", 30, 1, 100, NULL, "jde", 0.5, 0.3, (uint64_t)k + 1, 300000, NAN, NULL);
    ed[k] = run_error("F03", 30, 1, 100, NULL, "de", 0.5, 0.3, (uint64_t)k + 1, 300000, NAN, NULL);
  }
  p = tc_mwu_p(ej, 11, ed, 11);
  printf("F03 D=30 300k evals 11 seeds: median error jDE %.6g, rand1bin %.6g, Mann-Whitney "
         "p = %.3g\n",
         tc_median(ej, 11), tc_median(ed, 11), p);
  CHECK(tc_median(ej, 11) < tc_median(ed, 11));
  CHECK(p < 0.05);
}

/* GOjDE against rand1exp (F = 0.5, CR = 0.9) on shifted Rastrigin D = 100, 500,000 evaluations,
 * 11 seeds, NP = 100 for both. */
SLOW_CASE(quality_gojde_beats_rand1exp_on_rastrigin)
{
  double eg[11], ee[11], p;
  int k;
  for (k = 0; k < 11; ++k) {
    eg[k] = run_error("rastrigin", 100, 1, 100, NULL, "gojde", 0.5, 0.9, (uint64_t)k + 1, 500000,
                      NAN, NULL);
    ee[k] = run_error("rastrigin", 100, 1, 100, "rand1exp", NULL, 0.5, 0.9, (uint64_t)k + 1, 500000,
                      NAN, NULL);
  }
  p = tc_mwu_p(eg, 11, ee, 11);
  printf("Rastrigin D=100 500k evals 11 seeds: median error GOjDE %.6g, rand1exp %.6g, "
         "Mann-Whitney p = %.3g\n",
         tc_median(eg, 11), tc_median(ee, 11), p);
  CHECK(tc_median(eg, 11) < tc_median(ee, 11));
}

static const tc_case cases[] = {TC(mann_whitney_matches_scipy),
                                TC(exp_length_exact_law),
                                TC(exp_length_equals_textbook_loop_in_law),
                                TC(exp_length_edges),
                                TC(exp_length_matches_array_form),
                                TC(donors_distinct_and_uniform),
                                TC(cpu_matches_reference_de),
                                TC(strategy_mutants),
                                TC(jde_redraw_rates),
                                TC(jde_kept_only_on_replacement),
                                TC(gobl_jump_by_hand),
                                TC(gobl_jump_rate),
                                TC(threads_bit_identical),
                                TC(api_validation),
                                TC(cli_bad_values),
                                TC(cli_json_reports_variant),
                                TC(cli_help_lists_presets),
                                TC(cli_schedule_reports_variant),
                                TC(schedule_variant),
                                TC(quality_sphere_every_variant),
                                TC(quality_jde_beats_rand1bin_on_f03),
                                TC(quality_gojde_beats_rand1exp_on_rastrigin)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
