/* SPDX-License-Identifier: MIT */
/* cec.h: the ten CEC benchmark functions F01..F10 of Janssen, Pullan and Liew (2024), taken from
 * the official CEC 2017 (cec17_test_func.cpp, N. Awad) and CEC 2014 (cec14_test_func.cpp) C code,
 * shared by the CPU backend and the CUDA kernels (DEVO_HD, the C subset nvcc accepts as C++).
 *
 *   F01 CEC2017 F3  Zakharov                        F* 300   simple
 *   F02 CEC2017 F4  Rosenbrock                      F* 400   simple
 *   F03 CEC2017 F5  Rastrigin                       F* 500   simple
 *   F04 CEC2017 F10 modified Schwefel               F* 1000  simple (rotated, as in the code)
 *   F05 CEC2014 F18 hybrid 2 (Bent Cigar, HGBat, Rastrigin)                        F* 1800
 *   F06 CEC2017 F16 hybrid 6 (Exp. Schaffer F6, HGBat, Rosenbrock, Schwefel)        F* 1600
 *   F07 CEC2014 F22 hybrid 6 (Katsuura, HappyCat, Exp. Griewank+Rosenbrock, Schwefel, Ackley)
 *                                                                                  F* 2200
 *   F08 CEC2017 F22 composition 2 (Rastrigin, Griewank, Schwefel)                  F* 2200
 *   F09 CEC2017 F24 composition 4 (Ackley, Elliptic, Griewank, Rastrigin)          F* 2400
 *   F10 CEC2017 F26 composition 6 (Exp. Schaffer F6, Schwefel, Griewank, Rosenbrock, Rastrigin)
 *                                                                                  F* 2600
 *
 * Semantics follow the official code where it and the definitions PDF disagree (see
 * data/cec/README.md): z = M * (s * (x - o)) with M exactly as stored (not orthogonal in
 * general, never transposed); hybrids rotate the full vector first, then permute with the
 * shuffle, then split into groups of ceil(p_k * D) (computed in double, as the code does) and
 * scale each group by its function's own s; compositions weight with 1e99 at distance 0 (the
 * code's INF macro is finite) and fall back to equal weights when all underflow; the lambdas are
 * written as the code writes them (10000*f/2e7, not f*5e-4) so the last bits agree.
 *
 * Every basic function g on a vector z of length n is expressed as per-element terms (a, b)
 * summed (b: summed, multiplied, or folded into the sum of a, depending on the function) and a
 * finish(n, A, B). The CPU walks the elements in index order, which reproduces the official
 * loops operation for operation (with glibc it reproduces all 280 official reference values of
 * data/cec/reference bit for bit); the GPU (kernels/cec_device.cuh) computes the same terms
 * one thread per element and reduces them.
 * The offsets inside the basic functions (+1 of Rosenbrock, -1 of HGBat, +420.97 of Schwefel)
 * are applied inside the element function, on the scaled and rotated value. */
#ifndef DEVO_CEC_H
#define DEVO_CEC_H

#include <math.h>
#include <stddef.h>

#include "devo_port.h"
#include "problem_view.h"

/* Most parts of one function (groups of a hybrid or components of a composition). */
#define DEVO__CEC_MAXPARTS 5
/* The official code's INF: a finite 1e99, so that w/sum(w) at the optimum is 1, not inf/inf. */
#define DEVO__CEC_INF 1.0e99

/* Basic functions. */
enum {
  DEVO__CEC_ZAKHAROV = 0,
  DEVO__CEC_ROSENBROCK = 1,
  DEVO__CEC_RASTRIGIN = 2,
  DEVO__CEC_SCHWEFEL = 3, /* modified Schwefel (schwefel_func) */
  DEVO__CEC_BENT_CIGAR = 4,
  DEVO__CEC_HGBAT = 5,
  DEVO__CEC_HAPPYCAT = 6,
  DEVO__CEC_SCHAFFER_F6 = 7, /* expanded Schaffer F6 (escaffer6_func), cyclic */
  DEVO__CEC_GRIE_ROSEN = 8,  /* expanded Griewank plus Rosenbrock (grie_rosen_func), cyclic */
  DEVO__CEC_KATSUURA = 9,
  DEVO__CEC_ACKLEY = 10,
  DEVO__CEC_GRIEWANK = 11,
  DEVO__CEC_ELLIPTIC = 12 /* high-conditioned elliptic (ellips_func) */
};

/* How the second per-element term b of a basic function is combined. */
enum {
  DEVO__CEC_B_NONE = 0,  /* unused (b = 0) */
  DEVO__CEC_B_SUM = 1,   /* a second sum B */
  DEVO__CEC_B_PROD = 2,  /* a product B, starting at 1 */
  DEVO__CEC_B_INTO_A = 3 /* added to A right after a (Schwefel's "f -= ...; f += ...") */
};

/* Families of F01..F10. */
enum { DEVO__CEC_SIMPLE = 0, DEVO__CEC_HYBRID = 1, DEVO__CEC_COMPOSITION = 2 };

/* Powers with small constant exponents. The CPU calls pow as the official code does (with glibc
 * that reproduces the official reference values bit for bit); device code uses the correctly
 * rounded x * x and sqrt instead, which differ from a correctly rounded pow by at most an ulp
 * (x^4 and x^(1/4) by two roundings: two ulps). CUDA's double pow is a chain of a few hundred
 * dependent operations: in kernels/gpu_cec.cu's phase profile (BENCHMARKS.md) the lane that
 * computed a composition's weights with pow took more cycles than the whole matrix product. */
static inline DEVO_HD double devo__cec_pow2(double x)
{
#ifdef __CUDA_ARCH__
  return __dmul_rn(x, x);
#else
  return pow(x, 2.0);
#endif
}

static inline DEVO_HD double devo__cec_pow4(double x)
{
#ifdef __CUDA_ARCH__
  return __dmul_rn(__dmul_rn(x, x), __dmul_rn(x, x));
#else
  return pow(x, 4.0);
#endif
}

static inline DEVO_HD double devo__cec_sqrt(double x) /* pow(x, 0.5) */
{
#ifdef __CUDA_ARCH__
  return sqrt(x);
#else
  return pow(x, 0.5);
#endif
}

/* fmod(x, 500.0) for x > 0, exactly (the remainder is representable, so the fused x - q 500 is
 * exact once q is the integer quotient; q from a product by 1/500 may be one off, and one
 * correction step fixes it). The device's fmod is a bit-by-bit loop: it made the Modified
 * Schwefel terms three times as slow as any other part of F08 and F10 (kernels/gpu_cec.cu,
 * measured by clock64() per warp). Huge x (quotient beyond 2^50) goes to fmod. */
static inline DEVO_HD double devo__cec_fmod500(double x)
{
  if (!(x < 0x1p50 * 500.0))
    return fmod(x, 500.0);
  const double q = trunc(x * (1.0 / 500.0));
  double r = fma(-q, 500.0, x);
  if (r < 0.0)
    r += 500.0;
  else if (r >= 500.0)
    r -= 500.0;
  return r;
}

static inline DEVO_HD double devo__cec_root4(double x) /* pow(x, 0.25) */
{
#ifdef __CUDA_ARCH__
  return sqrt(sqrt(x));
#else
  return pow(x, 0.25);
#endif
}

/* ---- per-function tables (switches: static arrays are not visible to device code) ---------- */

static inline DEVO_HD int devo__cec_family(int id)
{
  return id <= 4 ? DEVO__CEC_SIMPLE : (id <= 7 ? DEVO__CEC_HYBRID : DEVO__CEC_COMPOSITION);
}

/* Parts: 1 for simple functions, the groups of a hybrid, the components of a composition. */
static inline DEVO_HD int devo__cec_nparts(int id)
{
  switch (id) {
  case 5:
    return 3;
  case 6:
    return 4;
  case 7:
    return 5;
  case 8:
    return 3;
  case 9:
    return 4;
  case 10:
    return 5;
  default:
    return 1;
  }
}

/* Shift rows and matrices the function uses (the view's ncomp). */
static inline DEVO_HD int devo__cec_nshift(int id)
{
  return devo__cec_family(id) == DEVO__CEC_COMPOSITION ? devo__cec_nparts(id) : 1;
}

/* F*: the bias that test_func adds (official numbering of the code, not the 2020 PDF). */
static inline DEVO_HD double devo__cec_bias(int id)
{
  switch (id) {
  case 1:
    return 300.0;
  case 2:
    return 400.0;
  case 3:
    return 500.0;
  case 4:
    return 1000.0;
  case 5:
    return 1800.0;
  case 6:
    return 1600.0;
  case 7:
    return 2200.0;
  case 8:
    return 2200.0;
  case 9:
    return 2400.0;
  default:
    return 2600.0;
  }
}

/* Basic function of part k (hf02/hf06 of CEC2014, hf06 and cf02/cf04/cf06 of CEC2017). */
static inline DEVO_HD int devo__cec_part_fn(int id, int k)
{
  switch (id * 8 + k) {
  case 1 * 8:
    return DEVO__CEC_ZAKHAROV;
  case 2 * 8:
    return DEVO__CEC_ROSENBROCK;
  case 3 * 8:
    return DEVO__CEC_RASTRIGIN;
  case 4 * 8:
    return DEVO__CEC_SCHWEFEL;
  case 5 * 8 + 0:
    return DEVO__CEC_BENT_CIGAR;
  case 5 * 8 + 1:
    return DEVO__CEC_HGBAT;
  case 5 * 8 + 2:
    return DEVO__CEC_RASTRIGIN;
  case 6 * 8 + 0:
    return DEVO__CEC_SCHAFFER_F6;
  case 6 * 8 + 1:
    return DEVO__CEC_HGBAT;
  case 6 * 8 + 2:
    return DEVO__CEC_ROSENBROCK;
  case 6 * 8 + 3:
    return DEVO__CEC_SCHWEFEL;
  case 7 * 8 + 0:
    return DEVO__CEC_KATSUURA;
  case 7 * 8 + 1:
    return DEVO__CEC_HAPPYCAT;
  case 7 * 8 + 2:
    return DEVO__CEC_GRIE_ROSEN;
  case 7 * 8 + 3:
    return DEVO__CEC_SCHWEFEL;
  case 7 * 8 + 4:
    return DEVO__CEC_ACKLEY;
  case 8 * 8 + 0:
    return DEVO__CEC_RASTRIGIN;
  case 8 * 8 + 1:
    return DEVO__CEC_GRIEWANK;
  case 8 * 8 + 2:
    return DEVO__CEC_SCHWEFEL;
  case 9 * 8 + 0:
    return DEVO__CEC_ACKLEY;
  case 9 * 8 + 1:
    return DEVO__CEC_ELLIPTIC;
  case 9 * 8 + 2:
    return DEVO__CEC_GRIEWANK;
  case 9 * 8 + 3:
    return DEVO__CEC_RASTRIGIN;
  case 10 * 8 + 0:
    return DEVO__CEC_SCHAFFER_F6;
  case 10 * 8 + 1:
    return DEVO__CEC_SCHWEFEL;
  case 10 * 8 + 2:
    return DEVO__CEC_GRIEWANK;
  case 10 * 8 + 3:
    return DEVO__CEC_ROSENBROCK;
  default:
    return DEVO__CEC_RASTRIGIN; /* 10 * 8 + 4 */
  }
}

/* The scale s that each basic function passes to sr_func (written as the code writes it, so
 * that the constant is the same double). Hybrids apply it per group to the rotated vector,
 * everything else before the rotation. */
static inline DEVO_HD double devo__cec_basic_scale(int fn)
{
  switch (fn) {
  case DEVO__CEC_ROSENBROCK:
    return 2.048 / 100.0;
  case DEVO__CEC_RASTRIGIN:
    return 5.12 / 100.0;
  case DEVO__CEC_SCHWEFEL:
    return 1000.0 / 100.0;
  case DEVO__CEC_HGBAT:
  case DEVO__CEC_HAPPYCAT:
  case DEVO__CEC_GRIE_ROSEN:
  case DEVO__CEC_KATSUURA:
    return 5.0 / 100.0;
  case DEVO__CEC_GRIEWANK:
    return 600.0 / 100.0;
  default:
    return 1.0; /* Zakharov, Bent Cigar, Schaffer F6, Ackley, Elliptic */
  }
}

static inline DEVO_HD int devo__cec_bmode(int fn)
{
  switch (fn) {
  case DEVO__CEC_ZAKHAROV:
  case DEVO__CEC_HGBAT:
  case DEVO__CEC_HAPPYCAT:
  case DEVO__CEC_ACKLEY:
    return DEVO__CEC_B_SUM;
  case DEVO__CEC_KATSUURA:
  case DEVO__CEC_GRIEWANK:
    return DEVO__CEC_B_PROD;
  case DEVO__CEC_SCHWEFEL:
    return DEVO__CEC_B_INTO_A;
  default:
    return DEVO__CEC_B_NONE;
  }
}

/* The scale of x - o_k before component k's rotation: a simple function's own, 1 for a hybrid
 * (each group is scaled after the shuffle), component k's for a composition. */
static inline DEVO_HD double devo__cec_pre_scale(int id, int k)
{
  const int fam = devo__cec_family(id);
  if (fam == DEVO__CEC_HYBRID)
    return 1.0;
  return devo__cec_basic_scale(devo__cec_part_fn(id, fam == DEVO__CEC_SIMPLE ? 0 : k));
}

/* One element's terms (a, b) into its part's sums A and B, by the function's mode. */
static inline DEVO_HD void devo__cec_fold(int mode, double a, double b, double *A, double *B)
{
  *A += a;
  if (mode == DEVO__CEC_B_SUM)
    *B += b;
  else if (mode == DEVO__CEC_B_PROD)
    *B *= b;
  else if (mode == DEVO__CEC_B_INTO_A)
    *A += b;
}

/* Hybrid group proportions Gp (hf02 of CEC2014: {0.3,0.3,0.4}; hf06 of CEC2017:
 * {0.2,0.2,0.3,0.3}; hf06 of CEC2014: {0.1,0.2,0.2,0.2,0.3}). The last one is never used: the
 * last group takes what is left. */
static inline DEVO_HD double devo__cec_hybrid_p(int id, int k)
{
  if (id == 5)
    return k == 2 ? 0.4 : 0.3;
  if (id == 6)
    return k < 2 ? 0.2 : 0.3;
  return k == 0 ? 0.1 : (k == 4 ? 0.3 : 0.2);
}

/* Group sizes and starts of a hybrid at dimension dim, as the code computes them:
 * G_nx[k] = ceil(Gp[k] * nx) (double product, then ceil) for k < N-1, the last gets the rest.
 * Returns N when every group is non-empty, else 0 (the function is undefined at that dim). */
static inline DEVO_HD int devo__cec_hybrid_groups(int id, int dim, int *start, int *size)
{
  int k, n = devo__cec_nparts(id), used = 0, ok = 1;
  for (k = 0; k < n - 1; ++k) {
    size[k] = (int)ceil(devo__cec_hybrid_p(id, k) * (double)dim);
    used += size[k];
  }
  size[n - 1] = dim - used;
  start[0] = 0;
  for (k = 1; k < n; ++k)
    start[k] = start[k - 1] + size[k - 1];
  for (k = 0; k < n; ++k)
    if (size[k] < 1)
      ok = 0;
  return ok ? n : 0;
}

/* Composition sigma (the code's delta). */
static inline DEVO_HD double devo__cec_comp_sigma(int id, int k)
{
  if (id == 10)
    return k == 0 ? 10.0 : (k <= 2 ? 20.0 : (k == 3 ? 30.0 : 40.0));
  return 10.0 * (double)(k + 1); /* F08 {10,20,30}, F09 {10,20,30,40} */
}

/* fit_k = lambda_k * g_k + bias_k, lambda as the code writes it (cf02, cf04, cf06 of CEC2017),
 * bias_k = 0, 100, 200, ... (added in cf_cal). */
static inline DEVO_HD double devo__cec_comp_fit(int id, int k, double g)
{
  double f = g;
  if (id == 8) {
    if (k == 1)
      f = 1000.0 * g / 100.0;
  } else if (id == 9) {
    if (k == 0 || k == 2)
      f = 1000.0 * g / 100.0;
    else if (k == 1)
      f = 10000.0 * g / 1e+10;
  } else {
    if (k == 0)
      f = 10000.0 * g / 2e+7;
    else if (k == 2)
      f = 1000.0 * g / 100.0;
    else if (k == 4)
      f = 10000.0 * g / 1e+3;
  }
  return f + 100.0 * (double)k;
}

/* cf_cal's weight from d2 = sum (x_j - o_kj)^2 over raw x. */
static inline DEVO_HD double devo__cec_comp_weight(double d2, int dim, double sigma)
{
  if (d2 != 0.0)
    return devo__cec_sqrt(1.0 / d2) * exp(-d2 / 2.0 / (double)dim / devo__cec_pow2(sigma));
  return DEVO__CEC_INF;
}

/* cf_cal's combination (w may be overwritten by the all-underflow fallback). */
static inline DEVO_HD double devo__cec_comp_combine(int n, double *w, const double *fit)
{
  double wmax = 0.0, wsum = 0.0, f = 0.0;
  int k;
  for (k = 0; k < n; ++k)
    if (w[k] > wmax)
      wmax = w[k];
  for (k = 0; k < n; ++k)
    wsum = wsum + w[k];
  if (wmax == 0.0) {
    for (k = 0; k < n; ++k)
      w[k] = 1.0;
    wsum = (double)n;
  }
#ifdef __CUDA_ARCH__
  /* one division, not n: a chain of device divisions was most of the kernel's combine step
   * (kernels/gpu_cec.cu); the quotients differ from the CPU's by at most an ulp */
  const double rs = 1.0 / wsum;
  for (k = 0; k < n; ++k)
    f = f + w[k] * rs * fit[k];
#else
  for (k = 0; k < n; ++k)
    f = f + w[k] / wsum * fit[k];
#endif
  return f;
}

/* ---- basic functions: element terms and finish -------------------------------------------- */

/* ellips_func's coefficient 10^(6 l / (n - 1)) of element l (0-based) of n; it depends on the
 * position only (kernels/gpu_cec.cu computes each once per launch). */
static inline DEVO_HD double devo__cec_ellips_coef(int l, int n)
{
#ifdef __CUDA_ARCH__
  /* the device's pow made these the slowest terms of F09 (kernels/gpu_cec.cu, clock64() per
   * warp); exp10 is within an ulp of it at a fraction of the cost */
  return exp10(6.0 * (double)l / (double)(n - 1));
#else
  return pow(10.0, 6.0 * (double)l / (double)(n - 1));
#endif
}

/* ellips_func's term of an element with coefficient coef (devo__cec_ellips_coef) and value z. */
static inline DEVO_HD double devo__cec_ellips_term(double coef, double z)
{
  return coef * z * z;
}

/* Terms of element l (0-based, local to the vector of length n) of basic function fn, from its
 * scaled and rotated value z and the next value zn (z_{l+1}, cyclic: z_0 for the last element;
 * only Rosenbrock, Schaffer F6 and Griewank-Rosenbrock read it). */
static inline DEVO_HD void devo__cec_elem(int fn, int l, int n, double z, double zn, double *a,
                                          double *b)
{
  double t1, t2, t;
  int j;
  *a = 0.0;
  *b = 0.0;
  switch (fn) {
  case DEVO__CEC_ZAKHAROV:
    *a = devo__cec_pow2(z);
    *b = 0.5 * (double)(l + 1) * z;
    break;
  case DEVO__CEC_ROSENBROCK: /* z += 1 for all, then pairs (l, l+1) for l < n-1 */
    if (l < n - 1) {
      z += 1.0;
      zn += 1.0;
      t1 = z * z - zn;
      t2 = z - 1.0;
      *a = 100.0 * t1 * t1 + t2 * t2;
    }
    break;
  case DEVO__CEC_RASTRIGIN:
    *a = z * z - 10.0 * cos(2.0 * DEVO_PI * z) + 10.0;
    break;
  case DEVO__CEC_SCHWEFEL:
    /* the code: f -= X; (out of range: f += Y); both out-of-range branches are reached by
     * ordinary points, and the negative one takes fmod of |z|. Its three X, written with one
     * sine: z > 500: -((500 - t) sin(sqrt(500 - t))); z < -500: -((-500 + t) sin(...)), which is
     * (500 - t) sin(...) bit for bit (rounding is symmetric in sign); else -(z sin(sqrt|z|)),
     * which is (-z) sin(...). One sine instead of one per branch: a warp whose lanes take
     * different branches paid for each. */
    z += 4.209687462275036e+002;
    if (z > 500 || z < -500) {
      t = 500.0 - devo__cec_fmod500(fabs(z));
      t2 = z > 500 ? -t : t;
      t1 = (z > 500 ? z - 500.0 : z + 500.0) / 100;
      *b = t1 * t1 / (double)n;
    } else {
      t = fabs(z);
      t2 = -z;
    }
    *a = t2 * sin(devo__cec_sqrt(t));
    break;
  case DEVO__CEC_BENT_CIGAR:
    *a = l == 0 ? z * z : 1.0e6 * z * z; /* pow(10.0,6.0) is exactly 1e6 */
    break;
  case DEVO__CEC_HGBAT:
  case DEVO__CEC_HAPPYCAT:
    z = z - 1.0;
    *a = z * z;
    *b = z;
    break;
  case DEVO__CEC_SCHAFFER_F6:
    t = z * z + zn * zn;
    t1 = sin(sqrt(t));
    t1 = t1 * t1;
    t2 = 1.0 + 0.001 * t;
    *a = 0.5 + (t1 - 0.5) / (t2 * t2);
    break;
  case DEVO__CEC_GRIE_ROSEN:
    z += 1.0;
    zn += 1.0;
    t1 = z * z - zn;
    t2 = z - 1.0;
    t = 100.0 * t1 * t1 + t2 * t2;
    *a = (t * t) / 4000.0 - cos(t) + 1.0;
    break;
  case DEVO__CEC_KATSUURA: {
    double p2 = 1.0, r2 = 1.0, sum = 0.0;
    for (j = 1; j <= 32; ++j) {
      p2 *= 2.0; /* pow(2.0, j), exact */
      r2 *= 0.5; /* 1 / p2, exact: "/ p2" and "* r2" round alike, and a multiplication costs
                    the device a fraction of a division */
      t = p2 * z;
      sum += fabs(t - floor(t + 0.5)) * r2;
    }
    *b = pow(1.0 + (double)(l + 1) * sum, 10.0 / pow(1.0 * (double)n, 1.2));
    break;
  }
  case DEVO__CEC_ACKLEY:
    *a = z * z;
    *b = cos(2.0 * DEVO_PI * z);
    break;
  case DEVO__CEC_GRIEWANK:
    *a = z * z;
    *b = cos(z / sqrt(1.0 + (double)l));
    break;
  default: /* DEVO__CEC_ELLIPTIC */
    *a = devo__cec_ellips_term(devo__cec_ellips_coef(l, n), z);
    break;
  }
}

/* g(z) from the reduced A (sum of a, with b folded in for B_INTO_A) and B. */
static inline DEVO_HD double devo__cec_finish(int fn, int n, double A, double B)
{
  double dn = (double)n, t;
  switch (fn) {
  case DEVO__CEC_ZAKHAROV:
    return A + devo__cec_pow2(B) + devo__cec_pow4(B);
  case DEVO__CEC_SCHWEFEL:
    return A + 4.189828872724338e+002 * dn;
  case DEVO__CEC_HGBAT: /* alpha = 1/4, exponent 2*alpha */
    /* pow(fabs(pow(A, 2.0) - pow(B, 2.0)), 2 * (1.0 / 4.0)) in the code */
    return devo__cec_sqrt(fabs(devo__cec_pow2(A) - devo__cec_pow2(B))) + (0.5 * A + B) / dn + 0.5;
  case DEVO__CEC_HAPPYCAT:                                           /* alpha = 1/8 */
    return devo__cec_root4(fabs(A - dn)) + (0.5 * A + B) / dn + 0.5; /* pow(., 2 * (1.0 / 8.0)) */
  case DEVO__CEC_KATSUURA:
    t = 10.0 / dn / dn;
    return B * t - t;
  case DEVO__CEC_ACKLEY:
    return DEVO_E - 20.0 * exp(-0.2 * sqrt(A / dn)) - exp(B / dn) + 20.0;
  case DEVO__CEC_GRIEWANK:
    return 1.0 + A / 4000.0 - B;
  default: /* sums: Rosenbrock, Rastrigin, Bent Cigar, Schaffer F6, Griewank-Rosenbrock,
              Elliptic */
    return A;
  }
}

/* Sequential g over n values s * z[idx[l]] (idx NULL: s * z[l]), in index order, as the
 * official loops run. */
static inline DEVO_HD double devo__cec_basic_seq(int fn, const double *z, const int *idx, int n,
                                                 double s)
{
  int mode = devo__cec_bmode(fn), l, ln;
  double A = 0.0, B = mode == DEVO__CEC_B_PROD ? 1.0 : 0.0, a, b, zi, zn;
  for (l = 0; l < n; ++l) {
    ln = l + 1 == n ? 0 : l + 1;
    zi = s * z[idx ? idx[l] : l];
    zn = s * z[idx ? idx[ln] : ln];
    devo__cec_elem(fn, l, n, zi, zn, &a, &b);
    devo__cec_fold(mode, a, b, &A, &B);
  }
  return devo__cec_finish(fn, n, A, B);
}

/* ---- whole functions ---------------------------------------------------------------------- */

/* Doubles of scratch devo__cec_eval needs (y and z); also the shared work of the GPU block
 * evaluator (kernels/cec_device.cuh). */
static inline DEVO_HD size_t devo__cec_scratch(int dim)
{
  return 2 * (size_t)dim;
}

/* y = (x - o) * s, then z = M y with the sum over j in index order (shiftfunc, the scale loop
 * and rotatefunc of sr_func). */
static inline DEVO_HD void devo__cec_sr(const double *x, const double *o, const double *m, int d,
                                        double s, double *y, double *z)
{
  int i, j;
  for (i = 0; i < d; ++i)
    y[i] = (x[i] - o[i]) * s;
  for (i = 0; i < d; ++i) {
    const double *row = m + (size_t)i * (size_t)d;
    double acc = 0.0;
    for (j = 0; j < d; ++j)
      acc = acc + y[j] * row[j];
    z[i] = acc;
  }
}

/* Sequential evaluation (CPU reference) of F01..F10 (v->cec_id) at x; scratch has
 * devo__cec_scratch(v->dim) doubles. */
static inline DEVO_HD double devo__cec_eval(const devo__pview *v, const double *x, double *scratch)
{
  const int id = v->cec_id, d = v->dim;
  double *y = scratch, *z = scratch + d;
  int fam = devo__cec_family(id), n = devo__cec_nparts(id), k, fn;
  if (fam == DEVO__CEC_SIMPLE) {
    fn = devo__cec_part_fn(id, 0);
    devo__cec_sr(x, v->shift, v->rot, d, devo__cec_pre_scale(id, 0), y, z);
    return devo__cec_basic_seq(fn, z, NULL, d, 1.0) + devo__cec_bias(id);
  }
  if (fam == DEVO__CEC_HYBRID) {
    int start[DEVO__CEC_MAXPARTS], size[DEVO__CEC_MAXPARTS];
    double f = 0.0;
    if (!devo__cec_hybrid_groups(id, d, start, size))
      return (double)NAN;
    devo__cec_sr(x, v->shift, v->rot, d, devo__cec_pre_scale(id, 0), y, z);
    /* y_i = z[S_i - 1] of the code; the views hold 0-based indices, so group k reads
     * z[shuffle[start_k + l]] scaled by its own s */
    for (k = 0; k < n; ++k) {
      fn = devo__cec_part_fn(id, k);
      f += devo__cec_basic_seq(fn, z, v->shuffle + start[k], size[k], devo__cec_basic_scale(fn));
    }
    return f + devo__cec_bias(id);
  }
  {
    double fit[DEVO__CEC_MAXPARTS], w[DEVO__CEC_MAXPARTS];
    int j;
    for (k = 0; k < n; ++k) {
      const double *o = v->shift + (size_t)k * (size_t)d;
      double d2 = 0.0;
      fn = devo__cec_part_fn(id, k);
      devo__cec_sr(x, o, v->rot + (size_t)k * (size_t)d * (size_t)d, d, devo__cec_pre_scale(id, k),
                   y, z);
      fit[k] = devo__cec_comp_fit(id, k, devo__cec_basic_seq(fn, z, NULL, d, 1.0));
      for (j = 0; j < d; ++j)
        d2 += devo__cec_pow2(x[j] - o[j]);
      w[k] = devo__cec_comp_weight(d2, d, devo__cec_comp_sigma(id, k));
    }
    return devo__cec_comp_combine(n, w, fit) + devo__cec_bias(id);
  }
}

#endif /* DEVO_CEC_H */
