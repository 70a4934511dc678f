/* SPDX-License-Identifier: MIT */
/* json_out.c: the streaming JSON writer of json_out.h. Every string (and key that is not plain
 * letters, digits and '_') is cJSON's own output (cJSON_PrintPreallocated of a string node), so
 * the escaping is cJSON's. The rest stays hand-written, on purpose:
 * - numbers: devo promises doubles that read back bit for bit and exact 64-bit integers, which
 *   cJSON 1.7.15's printer does not give (0.1 + 0.2 printed as 0.3, DBL_MAX as a value that reads
 *   back as infinity; integers are doubles to it, so a uint64 seed loses its low digits);
 * - the punctuation around them: the answers stream (a schedule of 10^6 tasks, a vector of 10^7
 *   coordinates) and a cJSON tree of them is not affordable. Measured on a 10^6-task schedule
 *   answer built as a tree with the numbers as raw nodes and printed by cJSON_PrintUnformatted:
 *   the same bytes, but 876 MB at peak against 1 MB streamed, and 4 to 7 times the time (5.7 to
 *   12.4 s against 1.4 to 2.2 s, two shared cores under load). */
#include "json_out.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int json_init(json_out *j, FILE *f)
{
  memset(j, 0, sizeof *j);
  j->f = f;
  j->buflen = 4096;
  j->buf = (char *)malloc(j->buflen);
  if (!j->buf)
    return -1;
  return 0;
}

/* The block so far to f (its write errors stay in f's error flag, for the caller to check, as
 * they did with a stdio call per character). */
static void flush_out(json_out *j)
{
  if (j->used)
    (void)fwrite(j->out, 1, j->used, j->f);
  j->used = 0;
}

/* n bytes of text. */
static void put(json_out *j, const char *s, size_t n)
{
  if (j->used + n > sizeof j->out) {
    flush_out(j);
    if (n > sizeof j->out) {
      (void)fwrite(s, 1, n, j->f);
      return;
    }
  }
  memcpy(j->out + j->used, s, n);
  j->used += n;
}

static void putch(json_out *j, char c)
{
  if (j->used == sizeof j->out)
    flush_out(j);
  j->out[j->used++] = c;
}

static void puts_(json_out *j, const char *s)
{
  put(j, s, strlen(s));
}

/* The separator before a value or a key. */
static void sep(json_out *j)
{
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth > 0) {
    if (!j->first[j->depth - 1])
      putch(j, ',');
    j->first[j->depth - 1] = 0;
  }
}

static void open_(json_out *j, char c)
{
  sep(j);
  putch(j, c);
  if (j->depth >= JSON_MAX_DEPTH) {
    j->failed = 1;
    return;
  }
  j->first[j->depth++] = 1;
}

static void close_(json_out *j, char c)
{
  if (j->depth > 0)
    j->depth--;
  putch(j, c);
}

void json_obj(json_out *j)
{
  open_(j, '{');
}
void json_end_obj(json_out *j)
{
  close_(j, '}');
}
void json_arr(json_out *j)
{
  open_(j, '[');
}
void json_end_arr(json_out *j)
{
  close_(j, ']');
}

/* s quoted and escaped by cJSON, written raw (sep already done). */
static void put_string(json_out *j, const char *s)
{
  cJSON *n;
  size_t need = 6 * strlen(s) + 8; /* \u00XX is the longest escape of one byte */
  if (need > j->buflen) {
    char *nb = (char *)malloc(need);
    if (!nb) {
      j->failed = 1;
      return;
    }
    free(j->buf);
    j->buf = nb;
    j->buflen = need;
  }
  n = cJSON_CreateStringReference(s); /* no copy of s, and cJSON_Delete leaves it alone */
  if (!n || !cJSON_PrintPreallocated(n, j->buf, (int)j->buflen, 0)) {
    cJSON_Delete(n);
    j->failed = 1;
    return;
  }
  cJSON_Delete(n);
  puts_(j, j->buf);
}

/* 1 when s needs no escaping in JSON: letters, digits and '_' (all of devo's keys). */
static int plain(const char *s)
{
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

void json_key(json_out *j, const char *key)
{
  sep(j);
  if (plain(key)) { /* the common case, without cJSON's allocation (a key per value) */
    putch(j, '"');
    puts_(j, key);
    putch(j, '"');
  } else
    put_string(j, key);
  putch(j, ':');
  j->after_key = 1;
}

/* The reference: %.15g when it reads back exactly, else %.17g, which always does (IEEE 754
 * binary64); the 16 digits in between would need a third formatting for few values. glibc's
 * printf and strtod work in multiple precision: about 1 us a number, most of the time of a
 * schedule answer (issue 26). fast_fmt writes the same text in a few dozen ns for the numbers
 * of a schedule, the rest goes through snprintf. */
static void slow_fmt(char *buf, size_t len, double x)
{
  snprintf(buf, len, "%.15g", x);
  if (strtod(buf, NULL) != x)
    snprintf(buf, len, "%.17g", x);
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;

/* 5^q for q <= 27 (< 2^63). */
static uint64_t pow5(int q)
{
  uint64_t r = 1;
  while (q-- > 0)
    r *= 5;
  return r;
}

/* round(n / 2^s), ties to even (printf's rounding of an exact tie), for 1 <= s <= 126. */
static uint64_t shr_round(u128 n, int s)
{
  const u128 half = (u128)1 << (s - 1), rem = n & (((u128)1 << s) - 1);
  uint64_t d = (uint64_t)(n >> s);
  if (rem > half || (rem == half && (d & 1)))
    ++d;
  return d;
}

/* The P significant digits of |x| = m 2^e correctly rounded: d = round(x 10^q), q = P-1-X, X
 * the decimal exponent of the first digit; x 10^q = n 2^-s with n = m 5^q exact in 128 bits.
 * d is 10^(P-1) .. 10^P (10^P when the rounding carried into one more digit). -1 when outside
 * what this handles. */
static int digits(uint64_t m, int e, int P, int *X, uint64_t *d, u128 *n, int *s)
{
  static const uint64_t p10[] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull};
  int tries;
  for (tries = 0; tries < 3; ++tries) { /* X from log10 may be one off */
    const int q = P - 1 - *X;
    *s = -(e + q);
    if (q < 0 || q > 27 || *s < 1 || *s > 70)
      return -1;
    *n = (u128)m * pow5(q);
    *d = shr_round(*n, *s);
    if (*d > p10[P]) /* X too small (a rounding carry alone gives 10^P) */
      ++*X;
    else if (*d < p10[P - 1])
      --*X;
    else
      return 0;
  }
  return -1;
}

/* d (P digits, decimal exponent X, -4 <= X < P) as %.<P>g writes it in fixed notation: the
 * point after digit X + 1, trailing zeros and a bare point dropped. Returns the end. */
static char *put_fixed(char *o, uint64_t d, int P, int X)
{
  char dig[20];
  int k, last;
  for (k = P - 1; k >= 0; --k) {
    dig[k] = (char)('0' + d % 10);
    d /= 10;
  }
  for (last = P - 1; last > 0 && dig[last] == '0' && last > X; --last)
    ;
  if (X < 0) {
    *o++ = '0';
    *o++ = '.';
    for (k = 0; k < -X - 1; ++k)
      *o++ = '0';
    for (k = 0; k <= last; ++k)
      *o++ = dig[k];
    return o;
  }
  for (k = 0; k <= last; ++k) {
    *o++ = dig[k];
    if (k == X && k < last)
      *o++ = '.';
  }
  return o;
}

/* x (finite) as slow_fmt writes it, when 1e-4 <= |x| < 1e15 (printf's fixed notation for 15
 * and 17 digits) and x is normal: 0 and the text in buf (>= 32 bytes), else -1. */
static int fast_fmt(char *buf, double x)
{
  uint64_t bits, m, d15, d17;
  int be, e, X15, X17, s15, s17;
  u128 n15, n17;
  char *o = buf;
  const double a = fabs(x);
  if (!(a >= 1e-4 && a < 1e15))
    return -1;
  memcpy(&bits, &x, sizeof bits);
  be = (int)((bits >> 52) & 0x7ff);
  m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
  e = be - 1075;
  X15 = X17 = (int)floor(log10(a));
  if (digits(m, e, 15, &X15, &d15, &n15, &s15) != 0)
    return -1;
  if (x < 0)
    *o++ = '-';
  {
    /* does d15 10^(X15-14) read back as x? In units of 2^-(s15+2) 10^-q it is d15 << (s15 + 2)
     * and x is 4 n15; half the gap to the next double up is 2 * 5^q (2^(e-1) scaled), the gap
     * down as much, or half of it below a power of 2 (m = 2^52, be > 1); strtod rounds a tie
     * to the even m */
    const int q = 14 - X15;
    const u128 y = (u128)d15 << (s15 + 2), xs = n15 << 2, up = (u128)2 * pow5(q);
    const u128 down = (bits & ((1ull << 52) - 1)) == 0 && be > 1 ? up / 2 : up;
    const int even = (m & 1) == 0;
    const int back =
        y >= xs ? y - xs < up || (y - xs == up && even) : xs - y < down || (xs - y == down && even);
    if (back) {
      if (d15 == 1000000000000000ull) { /* the carry: one digit more before the point */
        d15 /= 10;
        ++X15;
      }
      if (X15 >= 15) /* printf's exponent notation */
        return -1;
      *put_fixed(o, d15, 15, X15) = 0;
      return 0;
    }
  }
  if (digits(m, e, 17, &X17, &d17, &n17, &s17) != 0)
    return -1;
  if (d17 == 100000000000000000ull) {
    d17 /= 10;
    ++X17;
  }
  *put_fixed(o, d17, 17, X17) = 0;
  return 0;
}
#else
static int fast_fmt(char *buf, double x)
{
  (void)buf;
  (void)x;
  return -1;
}
#endif

char *json_fmt_double(char *buf, size_t len, double x)
{
  if (!isfinite(x)) {
    snprintf(buf, len, "null");
    return buf;
  }
  if (x == 0.0 && len >= 3) /* start times: what %.15g writes, without it */
    memcpy(buf, signbit(x) ? "-0" : "0", signbit(x) ? 3 : 2);
  else if (len < 32 || fast_fmt(buf, x) != 0)
    slow_fmt(buf, len, x);
  return buf;
}

void json_num(json_out *j, double x)
{
  char b[40];
  sep(j);
  puts_(j, json_fmt_double(b, sizeof b, x));
}

/* The decimal digits of v (what %" PRIu64 " writes), without printf's parsing of a format. */
static void put_u64(json_out *j, uint64_t v)
{
  char b[24], *p = b + sizeof b;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  put(j, p, (size_t)(b + sizeof b - p));
}

void json_int(json_out *j, int64_t v)
{
  sep(j);
  if (v < 0) {
    putch(j, '-');
    put_u64(j, 0 - (uint64_t)v); /* INT64_MIN too: unsigned negation is exact */
  } else
    put_u64(j, (uint64_t)v);
}

void json_uint(json_out *j, uint64_t v)
{
  sep(j);
  put_u64(j, v);
}

void json_str(json_out *j, const char *s)
{
  sep(j);
  if (s)
    put_string(j, s);
  else
    puts_(j, "null");
}

void json_bool(json_out *j, int b)
{
  sep(j);
  puts_(j, b ? "true" : "false");
}

void json_null(json_out *j)
{
  sep(j);
  puts_(j, "null");
}

void json_kv_num(json_out *j, const char *key, double x)
{
  json_key(j, key);
  json_num(j, x);
}

void json_kv_int(json_out *j, const char *key, int64_t v)
{
  json_key(j, key);
  json_int(j, v);
}

void json_kv_uint(json_out *j, const char *key, uint64_t v)
{
  json_key(j, key);
  json_uint(j, v);
}

void json_kv_str(json_out *j, const char *key, const char *s)
{
  json_key(j, key);
  json_str(j, s);
}

void json_kv_bool(json_out *j, const char *key, int b)
{
  json_key(j, key);
  json_bool(j, b);
}

int json_done(json_out *j)
{
  int bad;
  putch(j, '\n');
  flush_out(j);
  bad = j->failed || j->depth != 0;
  free(j->buf);
  j->buf = NULL;
  return bad ? -1 : 0;
}
