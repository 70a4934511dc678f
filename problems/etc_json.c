/* SPDX-License-Identifier: MIT */
/* etc_json.c: the JSON reader of an ETC matrix (etc_json.h). Hand-written rather than a JSON
 * library because what it must do is narrow and none of the packaged ones does all of it: read
 * each number straight into the matrix's own array (a tree of nodes, as cJSON builds, costs
 * about 60 bytes and a malloc per number: 57 times the body for a matrix of ones), exactly as
 * strtod reads it (the answers must be the ones `devo schedule` gives for the same matrix as
 * CSV: devo__dec_fast, then strtod itself, as the CSV reader does), refuse what RFC 8259 does not
 * allow (control bytes as whitespace, leading zeros, "+1", ".5", NaN), and look at a deadline
 * while it reads. yajl's streaming parser would hand over the numbers, but as a callback per
 * value with its own grammar checks, and it is no longer maintained upstream. The grammar read
 * here is only an array of arrays of numbers, which a few dozen lines cover. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "etc_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../engine/internal.h"
#include "dec_fast.h"
#include "etc_io.h"

/* The deadline is looked at once a row, when this many bytes were read since the last look. */
#define JSON_CHECK_BYTES 65536

static int is_digit(char c)
{
  return (unsigned char)(c - '0') < 10;
}

static int is_ws(char c)
{
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

size_t devo__json_ws(const char *s, size_t i, size_t n)
{
  while (i < n && is_ws(s[i]))
    ++i;
  return i;
}

/* The digits from i on; returns the offset after them. */
static size_t digits(const char *s, size_t i, size_t n)
{
  while (i < n && is_digit(s[i]))
    ++i;
  return i;
}

int devo__json_number(const char *s, size_t n, size_t i, int dec, size_t *end, double *out)
{
  char buf[DEVO_ETC_MAX_FIELD + 1];
  size_t p = i, d0;
  uint64_t m = 0;
  int simple = 1; /* an integer of at most 15 digits: exactly a double, no strtod needed */
  if (p < n && s[p] == '-')
    ++p;
  if (p < n && s[p] == '0') {
    ++p;
  } else if (p < n && is_digit(s[p])) {
    for (d0 = p; p < n && is_digit(s[p]); ++p)
      m = m * 10u + (uint64_t)(s[p] - '0');
    simple = p - d0 <= 15;
  } else {
    *end = p;
    return -1;
  }
  if (p < n && s[p] == '.') {
    simple = 0;
    if (++p >= n || !is_digit(s[p])) {
      *end = p;
      return -1;
    }
    p = digits(s, p, n);
  }
  if (p < n && (s[p] == 'e' || s[p] == 'E')) {
    simple = 0;
    if (++p < n && (s[p] == '+' || s[p] == '-'))
      ++p;
    if (p >= n || !is_digit(s[p])) {
      *end = p;
      return -1;
    }
    p = digits(s, p, n);
  }
  *end = p;
  if (simple) {
    *out = s[i] == '-' ? -(double)m : (double)m;
    return 0;
  }
  if (devo__dec_fast(s + i, p - i, dec, out))
    return 0;
  if (p - i > DEVO_ETC_MAX_FIELD) {
    *end = i;
    return -1;
  }
  memcpy(buf, s + i, p - i);
  buf[p - i] = 0;
  *out = strtod(buf, NULL); /* the whole of buf: the grammar above is a subset of strtod's */
  return 0;
}

/* A read in progress. */
typedef struct jrd {
  const char *s;
  size_t n, i;
  int dec, m;      /* m: machines (the first row's length; 0 while it is read) */
  long rows;       /* whole rows read */
  double big;      /* the sum of the rows' largest values (devo__etc_adopt's bound) */
  double *v;       /* the matrix's array */
  size_t cap_rows; /* rows it holds (while the first row is read: DEVO_ETC_MAX_MACHINES values) */
  devo__json_at *at;
  char *err;
  size_t errlen;
} jrd;

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static int
jfail(jrd *r, int what, size_t pos, long row, long col, const char *fmt, ...)
{
  va_list ap;
  r->at->what = what;
  r->at->pos = pos;
  r->at->row = row;
  r->at->col = col;
  if (r->err && r->errlen) {
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
  }
  return what == DEVO__JSON_DEADLINE ? DEVO_E_DEADLINE
         : what == DEVO__JSON_NOMEM  ? DEVO_E_NOMEM
                                     : DEVO_E_PARSE;
}

/* Asks for the array's pages to be 2 MiB ones where the kernel makes them on request
 * (transparent huge pages in "madvise" mode): a large matrix is written once, page by page, and
 * its faults cost more than its reading (a 4 KiB page a fault: 65,000 faults for 268 MB). */
static void huge_pages(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE)
  const uintptr_t page = 2u << 20, a = ((uintptr_t)p + page - 1) & ~(page - 1),
                  e = ((uintptr_t)p + bytes) & ~(page - 1);
  if (e > a)
    (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/* Room for row r (0-based) once the first row gave m: the array sized from the bytes that the
 * first row took (rows alike in length: one allocation), grown by half when rows come shorter. */
static int room(jrd *r, size_t first_row_bytes)
{
  const size_t most = (size_t)DEVO_ETC_MAX_CELLS / (size_t)r->m < DEVO_ETC_MAX_TASKS
                          ? (size_t)DEVO_ETC_MAX_CELLS / (size_t)r->m
                          : DEVO_ETC_MAX_TASKS;
  size_t want;
  double *nv;
  if ((size_t)r->rows < r->cap_rows && !first_row_bytes)
    return 0;
  if ((size_t)r->rows >= most)
    return jfail(r, DEVO__JSON_SHAPE, r->i, 0, 0,
                 "more than %zu rows of %d values: at most %d tasks and %d values", most, r->m,
                 DEVO_ETC_MAX_TASKS, DEVO_ETC_MAX_CELLS);
  if (first_row_bytes)
    want = 2 + (r->n - r->i) / first_row_bytes + (r->n - r->i) / first_row_bytes / 16;
  else
    want = r->cap_rows + r->cap_rows / 2 + 1;
  if (want > most)
    want = most;
  nv = (double *)realloc(r->v, want * (size_t)r->m * sizeof(double));
  if (!nv)
    return jfail(r, DEVO__JSON_NOMEM, r->i, 0, 0, "out of memory for %zu rows of %d values", want,
                 r->m);
  r->v = nv;
  r->cap_rows = want;
  huge_pages(nv, want * (size_t)r->m * sizeof(double));
  return 0;
}

/* An integer of 1 to 15 digits at s[i] (no sign, fraction or exponent; > 0: its first digit is
 * not 0) into *x, exactly a double: returns the offset after it; i when the number there is not
 * one of those (value() reads it). Most matrices are written so: no call, no strtod. */
static size_t small_int(const char *s, size_t n, size_t i, double *x)
{
  uint64_t m;
  size_t k = i + 1;
  if (i >= n || (unsigned char)(s[i] - '1') >= 9)
    return i;
  m = (uint64_t)(s[i] - '0');
  while (k < n && is_digit(s[k]) && k - i < 15)
    m = m * 10u + (uint64_t)(s[k++] - '0');
  if (k < n && (is_digit(s[k]) || s[k] == '.' || s[k] == 'e' || s[k] == 'E'))
    return i;
  *x = (double)m;
  return k;
}

/* One value at r->i into v[k] (row and col 1-based, for the messages). */
static int value(jrd *r, size_t k, long row, long col)
{
  const char c = r->i < r->n ? r->s[r->i] : 0;
  double x;
  size_t end;
  if (c == '-' || is_digit(c)) {
    if (devo__json_number(r->s, r->n, r->i, r->dec, &end, &x) != 0)
      return end == r->i ? jfail(r, DEVO__JSON_VALUE, r->i, row, col,
                                 "a number of more than %d characters", DEVO_ETC_MAX_FIELD)
                         : jfail(r, DEVO__JSON_SYNTAX, end, 0, 0, "malformed JSON");
    if (!(x > 0.0) || !isfinite(x))
      return jfail(r, DEVO__JSON_VALUE, r->i, row, col, "not a finite number > 0");
    r->v[k] = x;
    r->i = end;
    return 0;
  }
  if (c == '"' || c == '[' || c == '{' || c == 't' || c == 'f' || c == 'n')
    return jfail(r, DEVO__JSON_VALUE, r->i, row, col, "not a number");
  return jfail(r, DEVO__JSON_SYNTAX, r->i, 0, 0, "malformed JSON");
}

/* One row at r->i ('[' already there) into row r->rows of the array. */
static int row(jrd *r)
{
  const long t = r->rows + 1;
  const size_t base = (size_t)r->rows * (size_t)(r->m ? r->m : 0), n = r->n;
  const long most = r->m ? r->m : DEVO_ETC_MAX_MACHINES;
  const char *const s = r->s;
  double *const out = r->v + base;
  size_t i, k;
  long j = 0;
  double top = 0.0; /* the row's largest value */
  int rc;
  r->i = devo__json_ws(r->s, ++r->i, r->n);
  i = r->i;
  if (r->i < r->n && r->s[r->i] == ']') {
    ++r->i;
    return r->m ? jfail(r, DEVO__JSON_SHAPE, r->i, t, 0, "row %ld: 0 values, row 1 has %d", t, r->m)
                : jfail(r, DEVO__JSON_SHAPE, r->i, 0, 0, "0 machines: must be 2 .. %d",
                        DEVO_ETC_MAX_MACHINES);
  }
  for (;;) {
    if (j >= most) {
      r->i = i;
      return r->m ? jfail(r, DEVO__JSON_SHAPE, i, t, 0, "row %ld: more values than row 1 (%d)", t,
                          r->m)
                  : jfail(r, DEVO__JSON_SHAPE, i, 0, 0, "more than %d machines",
                          DEVO_ETC_MAX_MACHINES);
    }
    k = small_int(s, n, i, &out[j]);
    if (k > i) { /* the common case, in place */
      i = k;
    } else {
      r->i = i;
      if ((rc = value(r, base + (size_t)j, t, j + 1)) != DEVO_OK)
        return rc;
      i = r->i;
    }
    top = out[j] > top ? out[j] : top;
    ++j;
    if (i < n && is_ws(s[i]))
      i = devo__json_ws(s, i, n);
    if (i < n && s[i] == ',') {
      if (++i < n && is_ws(s[i]))
        i = devo__json_ws(s, i, n);
      continue;
    }
    if (i < n && s[i] == ']')
      break;
    r->i = i;
    return jfail(r, DEVO__JSON_SYNTAX, i, 0, 0, "malformed JSON");
  }
  r->i = i;
  ++r->i;
  if (!r->m && j < 2)
    return jfail(r, DEVO__JSON_SHAPE, r->i, 0, 0, "%ld machine: must be 2 .. %d", j,
                 DEVO_ETC_MAX_MACHINES);
  if (r->m && j != r->m)
    return jfail(r, DEVO__JSON_SHAPE, r->i, t, 0, "row %ld: %ld values, row 1 has %d", t, j, r->m);
  if (!r->m)
    r->m = (int)j;
  r->big += top;
  return DEVO_OK;
}

/* The rows, from r->i just after the array's '['. */
static int rows(jrd *r, double deadline)
{
  size_t next_check = r->i + JSON_CHECK_BYTES, start;
  int rc;
  for (;;) {
    r->i = devo__json_ws(r->s, r->i, r->n);
    if (r->i >= r->n || r->s[r->i] != '[')
      return r->i < r->n && r->s[r->i] != ']'
                 ? jfail(r, DEVO__JSON_SHAPE, r->i, r->rows + 1, 0,
                         "row %ld: not an array of numbers", r->rows + 1)
                 : jfail(r, DEVO__JSON_SYNTAX, r->i, 0, 0, "malformed JSON");
    if (r->m && (rc = room(r, 0)) != DEVO_OK)
      return rc;
    start = r->i;
    if ((rc = row(r)) != DEVO_OK)
      return rc;
    if (r->rows++ == 0 && (rc = room(r, r->i - start)) != DEVO_OK)
      return rc;
    r->i = devo__json_ws(r->s, r->i, r->n);
    if (r->i < r->n && r->s[r->i] == ']')
      return DEVO_OK;
    if (r->i >= r->n || r->s[r->i] != ',')
      return jfail(r, DEVO__JSON_SYNTAX, r->i, 0, 0, "malformed JSON");
    ++r->i;
    if (deadline > 0.0 && r->i >= next_check) {
      if (devo__now() >= deadline)
        return jfail(r, DEVO__JSON_DEADLINE, r->i, r->rows + 1, 0,
                     "the deadline came after %zu of %zu bytes (%ld rows)", r->i, r->n, r->rows);
      next_check = r->i + JSON_CHECK_BYTES;
    }
  }
}

int devo__etc_read_json(devo_etc **out, const char *text, size_t n, double deadline,
                        devo__json_at *at, char *err, size_t errlen)
{
  jrd r;
  int rc;
  memset(at, 0, sizeof *at);
  memset(&r, 0, sizeof r);
  *out = NULL;
  r.s = text;
  r.n = n;
  r.dec = devo__dec_flags();
  r.at = at;
  r.err = err;
  r.errlen = errlen;
  r.i = devo__json_ws(text, 0, n);
  if (r.i >= n || text[r.i] != '[')
    return jfail(&r, r.i >= n ? DEVO__JSON_SYNTAX : DEVO__JSON_SHAPE, r.i, 0, 0,
                 "must be an array of rows (arrays of numbers)");
  r.v = (double *)malloc(DEVO_ETC_MAX_MACHINES * sizeof(double));
  if (!r.v)
    return jfail(&r, DEVO__JSON_NOMEM, r.i, 0, 0, "out of memory");
  r.i = devo__json_ws(text, r.i + 1, n);
  if (r.i < n && text[r.i] == ']')
    rc =
        jfail(&r, DEVO__JSON_SHAPE, r.i, 0, 0, "0 rows: must be 1 .. %d tasks", DEVO_ETC_MAX_TASKS);
  else
    rc = rows(&r, deadline);
  if (rc == DEVO_OK && devo__json_ws(text, r.i + 1, n) != n)
    rc = jfail(&r, DEVO__JSON_SYNTAX, devo__json_ws(text, r.i + 1, n), 0, 0, "malformed JSON");
  if (rc == DEVO_OK && r.cap_rows > (size_t)r.rows) { /* cut to size: in place, no copy */
    double *nv = (double *)realloc(r.v, (size_t)r.rows * (size_t)r.m * sizeof(double));
    r.v = nv ? nv : r.v;
  }
  if (rc == DEVO_OK) {
    char msg[256];
    rc = devo__etc_adopt(out, (int)r.rows, r.m, r.v, r.big, msg, sizeof msg);
    if (rc == DEVO_OK)
      r.v = NULL;
    else
      jfail(&r, rc == DEVO_E_NOMEM ? DEVO__JSON_NOMEM : DEVO__JSON_SHAPE, n, 0, 0, "%s",
            strncmp(msg, "etc: ", 5) == 0 ? msg + 5 : msg);
    rc = rc == DEVO_OK ? DEVO_OK : rc == DEVO_E_NOMEM ? DEVO_E_NOMEM : DEVO_E_PARSE;
  }
  if (rc == DEVO_E_DEADLINE)
    at->partial = r.v;
  else
    free(r.v);
  return rc;
}
