/* SPDX-License-Identifier: MIT */
/* dec_fast.c: the exact fast path of decimal-to-double reading (dec_fast.h).
 *
 * Why it is exact. A decimal number is M * 10^e with M the integer of its significant digits.
 * (1) Clinger (1990), "How to read floating point numbers accurately", PLDI '90: when M <= 2^53
 * and |e| <= 22, both M and 10^|e| are doubles exactly (5^22 < 2^53), so one IEEE multiplication
 * or division rounds the exact quotient or product once: the correctly rounded value, which is
 * what glibc's strtod returns. (2) The same in the x87 80-bit format, whose 64-bit significand
 * holds every M < 2^64 (19 digits) and 10^|e| for |e| <= 27 (5^27 < 2^64) exactly: q = RN64(x),
 * rounded once. Rounding q again to a double gives RN53(x) unless q itself lies exactly halfway
 * between two doubles: RN53 changes value only at such midpoints, each of which is a 64-bit
 * number, and a midpoint strictly between x and q would be a 64-bit number nearer to x than q.
 * A midpoint has the 11 bits below a double's significand equal to 10000000000b; those cases
 * (one in 2048) go to strtod. (2) covers the 17-digit values that etc-gen and printf("%.17g")
 * write, which (1) does not (their M is above 2^53). */
#include "dec_fast.h"

#include <fenv.h>
#include <float.h>
#include <locale.h>
#include <stdint.h>
#include <string.h>

#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
#define DEC_HAVE_EXT 1
#else
#define DEC_HAVE_EXT 0
#endif

int devo__dec_flags(void)
{
  const struct lconv *lc = localeconv();
  int f = 0;
  if (lc && lc->decimal_point && strcmp(lc->decimal_point, ".") == 0)
    f = DEVO__DEC_OK;
#if DEC_HAVE_EXT
  {
    /* 1 + 2^-63 exists only when the x87 unit really computes with 64 bits (its precision
     * control may be set to 53 bits, and valgrind computes long double as double) */
    volatile long double one = 1.0L, eps = LDBL_EPSILON;
    const long double sum = one + eps;
    if (f && sum != one && fegetround() == FE_TONEAREST)
      f |= DEVO__DEC_EXT;
  }
#endif
  return f;
}

static int dec_digit(char c)
{
  return (unsigned char)(c - '0') < 10;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Whether the 8 bytes at p are all digits; then *v = their value. Eight digits in a few
 * operations, after D. Lemire, "Quickly parsing eight digits" (blog, 2018): pairs of digits
 * first, then the two pairs of pairs with one multiplication each. */
static int dec_eight(const char *p, uint64_t *v)
{
  const uint64_t hi = UINT64_C(0xF0F0F0F0F0F0F0F0);
  uint64_t x;
  memcpy(&x, p, sizeof x); /* p[0], the leading digit, in the low byte */
  if (((x & hi) | (((x + UINT64_C(0x0606060606060606)) & hi) >> 4)) != UINT64_C(0x3333333333333333))
    return 0;
  x -= UINT64_C(0x3030303030303030);
  x = x * 10 + (x >> 8); /* bytes 0, 2, 4, 6: the pairs of digits */
  x = (((x & UINT64_C(0x000000FF000000FF)) * (100 + (UINT64_C(1000000) << 32))) +
       (((x >> 16) & UINT64_C(0x000000FF000000FF)) * (1 + (UINT64_C(10000) << 32)))) >>
      32;
  *v = x;
  return 1;
}
#else
static int dec_eight(const char *p, uint64_t *v)
{
  (void)p;
  (void)v;
  return 0;
}
#endif

/* Adds the digits from *pp on to *m (which wraps past 19 digits: the caller then drops it). */
static void dec_run(const char **pp, const char *end, uint64_t *m)
{
  const char *p = *pp;
  uint64_t eight;
  while (end - p >= 8 && dec_eight(p, &eight)) {
    *m = *m * 100000000 + eight;
    p += 8;
  }
  for (; p < end && dec_digit(*p); ++p)
    *m = *m * 10 + (uint64_t)(*p - '0');
  *pp = p;
}

int devo__dec_fast(const char *s, size_t len, int flags, double *out)
{
  static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *p = s, *const end = s + len, *d0;
  uint64_t m = 0;
  int neg = 0, any, eneg = 0;
  long nd, scale = 0, ex = 0, e10;
  if (!(flags & DEVO__DEC_OK) || len == 0)
    return 0;
  if (*p == '+' || *p == '-')
    neg = *p++ == '-';
  /* the significant digits into m, leading zeros skipped (m wraps past 19 digits, and is then
   * not used), the fraction's length into scale */
  d0 = p;
  while (p < end && *p == '0')
    ++p;
  any = p > d0;
  d0 = p;
  dec_run(&p, end, &m);
  nd = p - d0;
  any |= nd > 0;
  if (p < end && *p == '.') {
    const char *f = ++p;
    if (nd == 0)
      while (p < end && *p == '0')
        ++p;
    d0 = p;
    dec_run(&p, end, &m);
    nd += p - d0;
    scale = p - f;
    any |= p > f;
  }
  if (!any || nd > 19)
    return 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-'))
      eneg = *p++ == '-';
    if (p == end || !dec_digit(*p))
      return 0; /* strtod stops before the 'e': not wholly a number */
    for (; p < end && dec_digit(*p); ++p)
      if (ex < 100000) /* far outside both paths' range already */
        ex = ex * 10 + (*p - '0');
  }
  if (p != end)
    return 0;
  if (m == 0) {
    *out = neg ? -0.0 : 0.0;
    return 1;
  }
  e10 = (eneg ? -ex : ex) - scale;
  if (m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
    double d = (double)m;
    d = e10 < 0 ? d / p10[-e10] : d * p10[e10];
    *out = neg ? -d : d;
    return 1;
  }
#if DEC_HAVE_EXT
  if ((flags & DEVO__DEC_EXT) && e10 >= -27 && e10 <= 27) {
    static const long double p10l[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                         1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                         1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                         1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    long double q = (long double)m;
    uint64_t sig;
    q = e10 < 0 ? q / p10l[-e10] : q * p10l[e10];
    memcpy(&sig, &q, sizeof sig); /* the x87 format's explicit 64-bit significand, first */
    if ((sig & 0x7ff) == 0x400)
      return 0;
    *out = neg ? -(double)q : (double)q;
    return 1;
  }
#endif
  return 0;
}
