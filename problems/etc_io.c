/* SPDX-License-Identifier: MIT */
/* etc_io.c: the ETC matrix type (devo_etc) and its readers: CSV through libcsv, and the classic
 * Braun et al. (2001) format of n*m values one per line, task-major. Validation is strict
 * (issue 5): every rejected input gets "name:row:column: reason", and no matrix is returned
 * from a half-read input. Rows and columns are 1-based; the row is the physical line number.
 * A large CSV input without quotes is read by several threads (issue 19), with the serial
 * reader's result and messages. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <csv.h>

#include "../engine/internal.h"
#include "dec_fast.h"
#include "devo_alloc.h"
#include "etc.h"
#include "etc_io.h"
#include "read_src.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  if (!err || errlen == 0)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* ---- the handle ------------------------------------------------------------------------- */

/* Whether every makespan and flowtime of the n x m matrix v with ready times w (NULL: 0) is a
 * finite double: a completion time is at most max W plus the sum over the tasks of their largest
 * value, a flowtime at most n times that, and the objective adds the two scaled by at most 1.
 * Values near DBL_MAX pass the per-value checks, and their sums were infinite (found in review:
 * three rows of 1e308 reported a makespan of inf). */
/* The bound itself: big the sum over the tasks of their largest value, wmax the largest ready
 * time. */
static int sums_bound_ok(double big, double wmax, int n)
{
  return (wmax + big) * (double)n < 0.25 * DBL_MAX;
}

static int etc_sums_finite(const double *v, const double *w, int n, int m)
{
  double big = 0.0, wmax = 0.0;
  int t, j;
  for (t = 0; t < n; ++t) {
    double top = v[(size_t)t * m];
    for (j = 1; j < m; ++j)
      top = v[(size_t)t * m + j] > top ? v[(size_t)t * m + j] : top;
    big += top;
  }
  for (j = 0; w && j < m; ++j)
    wmax = w[j] > wmax ? w[j] : wmax;
  return sums_bound_ok(big, wmax, n);
}

#define DEVO__ETC_TOO_LARGE                                                                        \
  "the values are too large: a schedule's flowtime would overflow a double"

/* adopt: a block of at least ntasks * nmach doubles from alloc that becomes the values (on
 * success only), or NULL for a new one. */
static int etc_alloc(devo_etc **out, int ntasks, int nmach, const devo_allocator *alloc,
                     double *adopt)
{
  devo_allocator al = devo__allocator_or_default(alloc);
  devo_etc *e = (devo_etc *)devo__calloc(&al, 1, sizeof *e);
  if (!e)
    return DEVO_E_NOMEM;
  e->al = al;
  e->ntasks = ntasks;
  e->nmach = nmach;
  if (!adopt)
    e->values = (double *)devo__alloc(&al, (size_t)ntasks * (size_t)nmach, sizeof(double));
  e->ready = (double *)devo__calloc(&al, (size_t)nmach, sizeof(double));
  if ((!adopt && !e->values) || !e->ready) {
    devo_etc_destroy(e);
    return DEVO_E_NOMEM;
  }
  if (adopt)
    e->values = adopt;
  *out = e;
  return DEVO_OK;
}

static int check_size(int ntasks, int nmach, char *err, size_t errlen)
{
  if (ntasks < 1 || ntasks > DEVO_ETC_MAX_TASKS) {
    seterr(err, errlen, "etc: %d tasks: must be 1 .. %d", ntasks, DEVO_ETC_MAX_TASKS);
    return DEVO_E_INVALID;
  }
  if (nmach < 2 || nmach > DEVO_ETC_MAX_MACHINES) {
    seterr(err, errlen, "etc: %d machines: must be 2 .. %d", nmach, DEVO_ETC_MAX_MACHINES);
    return DEVO_E_INVALID;
  }
  if ((long long)ntasks * nmach > DEVO_ETC_MAX_CELLS) {
    seterr(err, errlen, "etc: %d x %d values: more than %d", ntasks, nmach, DEVO_ETC_MAX_CELLS);
    return DEVO_E_INVALID;
  }
  return DEVO_OK;
}

int devo_etc_create(devo_etc **out, int ntasks, int nmach, const double *values,
                    const devo_allocator *alloc, char *err, size_t errlen)
{
  long long k, cells;
  int rc;
  if (!out || !values) {
    seterr(err, errlen, "etc: NULL argument");
    return DEVO_E_INVALID;
  }
  *out = NULL;
  if ((rc = check_size(ntasks, nmach, err, errlen)) != DEVO_OK)
    return rc;
  cells = (long long)ntasks * nmach;
  for (k = 0; k < cells; ++k) {
    if (!isfinite(values[k]) || values[k] <= 0.0) {
      seterr(err, errlen, "etc: value of task %lld on machine %lld is %g: must be finite and > 0",
             k / nmach, k % nmach, values[k]);
      return DEVO_E_INVALID;
    }
  }
  if (!etc_sums_finite(values, NULL, ntasks, nmach)) {
    seterr(err, errlen, "etc: %s", DEVO__ETC_TOO_LARGE);
    return DEVO_E_INVALID;
  }
  if ((rc = etc_alloc(out, ntasks, nmach, alloc, NULL)) != DEVO_OK) {
    seterr(err, errlen, "etc: out of memory");
    return rc;
  }
  memcpy((*out)->values, values, (size_t)cells * sizeof(double));
  return DEVO_OK;
}

int devo__etc_adopt(devo_etc **out, int ntasks, int nmach, double *values, double big, char *err,
                    size_t errlen)
{
  int rc;
  *out = NULL;
  if ((rc = check_size(ntasks, nmach, err, errlen)) != DEVO_OK)
    return rc;
  if (!sums_bound_ok(big, 0.0, ntasks)) {
    seterr(err, errlen, "etc: %s", DEVO__ETC_TOO_LARGE);
    return DEVO_E_INVALID;
  }
  if ((rc = etc_alloc(out, ntasks, nmach, NULL, values)) != DEVO_OK)
    seterr(err, errlen, "etc: out of memory");
  return rc;
}

int devo_etc_set_ready(devo_etc *e, const double *ready, char *err, size_t errlen)
{
  int j;
  if (!e || !ready) {
    seterr(err, errlen, "etc: NULL argument");
    return DEVO_E_INVALID;
  }
  for (j = 0; j < e->nmach; ++j) {
    if (!isfinite(ready[j]) || ready[j] < 0.0) {
      seterr(err, errlen, "etc: ready time of machine %d is %g: must be finite and >= 0", j,
             ready[j]);
      return DEVO_E_INVALID;
    }
  }
  if (!etc_sums_finite(e->values, ready, e->ntasks, e->nmach)) {
    seterr(err, errlen,
           "etc: the ready times are too large: a schedule's flowtime would overflow "
           "a double");
    return DEVO_E_INVALID;
  }
  memcpy(e->ready, ready, (size_t)e->nmach * sizeof(double));
  return DEVO_OK;
}

void devo_etc_destroy(devo_etc *e)
{
  devo_allocator al;
  if (!e)
    return;
  al = e->al;
  devo__etc_free_names(e);
  devo__free(&al, e->values);
  devo__free(&al, e->ready);
  devo__free(&al, e);
}

int devo_etc_ntasks(const devo_etc *e)
{
  return e ? e->ntasks : 0;
}
int devo_etc_nmach(const devo_etc *e)
{
  return e ? e->nmach : 0;
}
const double *devo_etc_values(const devo_etc *e)
{
  return e ? e->values : NULL;
}
const double *devo_etc_ready(const devo_etc *e)
{
  return e ? e->ready : NULL;
}

int devo_etc_evaluate(const devo_etc *e, const int *assign, int order, double *makespan,
                      double *flowtime)
{
  devo__pview v;
  double *scratch;
  if (!e || !assign || (order != DEVO_ORDER_FCFS && order != DEVO_ORDER_SPT))
    return DEVO_E_INVALID;
  if (!devo__etc_assign_ok(e, assign))
    return DEVO_E_INVALID;
  v = devo__etc_view(e, order, 1.0);
  scratch = (double *)devo__alloc(&e->al, (size_t)devo__etc_scratch(&v), sizeof(double));
  if (!scratch)
    return DEVO_E_NOMEM;
  devo__etc_eval_parts(&v, NULL, assign, scratch, makespan, flowtime);
  devo__free(&e->al, scratch);
  return DEVO_OK;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* The whole input: streams (stdin included) are read once into memory, so that the format can
 * be detected from the first line and nothing is half-consumed on error. */
typedef struct rd {
  const devo_allocator *al;
  const char *name;
  char *err;
  size_t errlen;
  int status; /* first error, DEVO_OK while fine */
  /* values, growing */
  double *v;
  size_t nv, cap;
  /* CSV state */
  long line;     /* current physical line, 1-based */
  int col;       /* fields seen in the current row */
  int ncols;     /* columns of the first (header or data) row; 0 until known */
  int first_row; /* still in the first row */
  long row_line; /* line where the current row's last field was seen */
  long row_end;  /* line where the last row ended */
  long rows;     /* data rows */
  int dec;       /* devo__dec_flags() of the reading thread */
  /* task names from the first column (DEVO_ETC_TASK_NAMES, or every row starting with text) */
  int force_names;         /* the first column is names, whatever it holds */
  int seen_num, seen_text; /* data rows whose first field was a number / text (auto mode) */
  long text_line;          /* line of the first of them that started with text */
  char text_shown[48];     /* and its field, for the message */
  long bad_line;           /* the first invalid name (reported if names are kept) */
  const char *bad_why;
  char *tn; /* names, packed, NUL-terminated; tn_len bytes used of tn_cap */
  size_t tn_len, tn_cap;
  size_t *toff; /* offset of each row's name; toff_cap entries */
  size_t toff_cap;
  char *mn; /* machine names from the header, packed (NULL: none) */
  size_t *moff;
} rd;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
rd_fail(rd *r, int status, long row, long col, const char *fmt, ...)
{
  va_list ap;
  size_t k;
  if (r->status != DEVO_OK)
    return;
  r->status = status;
  if (!r->err || r->errlen == 0)
    return;
  snprintf(r->err, r->errlen, "%s:%ld:%ld: ", r->name, row, col);
  k = strlen(r->err);
  if (k < r->errlen) {
    va_start(ap, fmt);
    vsnprintf(r->err + k, r->errlen - k, fmt, ap);
    va_end(ap);
  }
}

static int rd_push(rd *r, double x)
{
  if (r->nv == r->cap) {
    size_t ncap = r->cap ? 2 * r->cap : 1024;
    double *nb = (double *)devo__alloc(r->al, ncap, sizeof(double));
    if (!nb) {
      r->status = DEVO_E_NOMEM;
      if (r->err && r->errlen)
        snprintf(r->err, r->errlen, "%s: out of memory", r->name);
      return -1;
    }
    if (r->nv)
      memcpy(nb, r->v, r->nv * sizeof(double));
    devo__free(r->al, r->v);
    r->v = nb;
    r->cap = ncap;
  }
  r->v[r->nv++] = x;
  return 0;
}

/* Grows the block *p of *cap elements of size bytes so that it holds need; -1 when out of
 * memory (the allocator has no realloc). */
static int rd_grow(rd *r, void **p, size_t *cap, size_t need, size_t size)
{
  size_t ncap = *cap ? *cap : 256;
  void *nb;
  if (need <= *cap)
    return 0;
  while (ncap < need)
    ncap *= 2;
  nb = devo__alloc(r->al, ncap, size);
  if (!nb) {
    r->status = DEVO_E_NOMEM;
    seterr(r->err, r->errlen, "%s: out of memory", r->name);
    return -1;
  }
  if (*cap)
    memcpy(nb, *p, *cap * size);
  devo__free(r->al, *p);
  *p = nb;
  *cap = ncap;
  return 0;
}

/* The first-column name of the data row being read (row = r->rows, not yet counted). A bad one
 * is refused at once when names are certain (force_names), else remembered. */
static void rd_name(rd *r, const char *s, size_t len, long line)
{
  const char *why = devo__etc_name_problem(s, len);
  const size_t row = (size_t)r->rows;
  if (why) {
    if (r->force_names) {
      rd_fail(r, DEVO_E_PARSE, line, 1, "task name: %s", why);
      return;
    }
    if (!r->bad_line) {
      r->bad_line = line;
      r->bad_why = why;
    }
    len = 0;
  }
  if (rd_grow(r, (void **)&r->toff, &r->toff_cap, row + 1, sizeof(size_t)) ||
      rd_grow(r, (void **)&r->tn, &r->tn_cap, r->tn_len + len + 1, 1))
    return;
  r->toff[row] = r->tn_len;
  memcpy(r->tn + r->tn_len, s, len);
  r->tn[r->tn_len + len] = 0;
  r->tn_len += len + 1;
}

/* Classifies a field: 0 = a number (*out set), 1 = empty, 2 = NaN or infinite (or out of
 * double's range), 3 = not a number, 4 = too long to be read (more than DEVO_ETC_MAX_FIELD
 * characters; valid numbers of over a hundred digits are read). Only decimal notation is accepted
 * (no hex floats). dec: devo__dec_flags(), the exact fast path's conditions (0: strtod only;
 * the class and value are the same either way). */
enum { F_NUM = 0, F_EMPTY = 1, F_NONFINITE = 2, F_TEXT = 3, F_LONG = 4 };
static int classify(const char *s, size_t len, int dec, double *out)
{
  char buf[DEVO_ETC_MAX_FIELD + 1];
  char *end;
  size_t i, b = 0, e = len;
  double x;
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'))
    b++;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
    e--;
  if (b == e)
    return F_EMPTY;
  if (e - b >= sizeof buf)
    return F_LONG;
  /* most fields: no copy, no scan, no strtod (dec_fast.h says when it is exact) */
  if (devo__dec_fast(s + b, e - b, dec, out))
    return F_NUM;
  memcpy(buf, s + b, e - b);
  buf[e - b] = 0;
  for (i = 0; buf[i]; ++i) {
    char c = buf[i];
    if (!isdigit((unsigned char)c) && c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') {
      const char *p = buf + (buf[0] == '+' || buf[0] == '-');
      /* strtod would take these; name them as what they are */
      if (strncmp(p, "nan", 3) == 0 || strncmp(p, "NaN", 3) == 0 || strncmp(p, "NAN", 3) == 0 ||
          strncmp(p, "inf", 3) == 0 || strncmp(p, "Inf", 3) == 0 || strncmp(p, "INF", 3) == 0) {
        x = strtod(buf, &end);
        if (*end == 0)
          return F_NONFINITE;
      }
      return F_TEXT;
    }
  }
  x = strtod(buf, &end);
  if (end == buf || *end != 0)
    return F_TEXT;
  if (!isfinite(x))
    return F_NONFINITE;
  *out = x;
  return F_NUM;
}

/* Checks a data value and stores it; reports with (row, col). */
static void rd_value(rd *r, const char *s, size_t len, long row, long col)
{
  double x = 0.0;
  int c = classify(s, len, r->dec, &x);
  char shown[48];
  size_t n = len < sizeof shown - 4 ? len : sizeof shown - 4, k;
  if (r->status != DEVO_OK)
    return;
  if (c == F_NUM && x > 0.0) {
    rd_push(r, x);
    return;
  }
  memcpy(shown, s, n);
  shown[n] = 0;
  /* the message is one line: a quoted field may hold line ends */
  for (k = 0; k < n; ++k)
    if ((unsigned char)shown[k] < 0x20)
      shown[k] = '?';
  if (n < len)
    strcat(shown, "...");
  switch (c) {
  case F_EMPTY:
    rd_fail(r, DEVO_E_PARSE, row, col, "empty field");
    return;
  case F_LONG:
    rd_fail(r, DEVO_E_PARSE, row, col, "a field of %zu characters: not read as a number", len);
    return;
  case F_NONFINITE:
    rd_fail(r, DEVO_E_PARSE, row, col, "not a finite number: '%s'", shown);
    return;
  case F_TEXT:
    rd_fail(r, DEVO_E_PARSE, row, col, "not a number: '%s'", shown);
    return;
  default:
    break;
  }
  if (!(x > 0.0)) {
    rd_fail(r, DEVO_E_PARSE, row, col, "value %s: times must be > 0", shown);
    return;
  }
  rd_push(r, x);
}

/* Whether b[e] ends a line: LF, or a CR alone (old Mac files; a CRLF ends at its LF). */
static int line_end(const char *b, size_t n, size_t e)
{
  return b[e] == '\n' || (b[e] == '\r' && (e + 1 == n || b[e + 1] != '\n'));
}

/* ---- CSV -------------------------------------------------------------------------------- */

/* The first row is kept until its end: it is a header if none of its fields is a number (or
 * NaN or infinite). A row with numbers and some text is data, its text reported where it is
 * (any text field made a header, which dropped a task without a word: found in review). */
typedef struct csvrow {
  char *buf; /* fields, each NUL-terminated, packed */
  size_t len, cap;
  int nfields;
} csvrow;

typedef struct csvctx {
  rd *r;
  csvrow first; /* the first row; a header when header_line > 0 */
  long header_line;
} csvctx;

static int csv_space_only(unsigned char c)
{
  return c == ' ';
}

/* A field of a data row. The first one is the task's name with DEVO_ETC_TASK_NAMES; without
 * it, the first row that starts with text makes the first column names, which then every row
 * must start with (a number after a name, or a name after a number, is refused). */
static void data_field(rd *r, const char *f, size_t len, long line, long col)
{
  double x;
  if (col != 1) {
    rd_value(r, f, len, line, col);
    return;
  }
  if (r->force_names) {
    rd_name(r, f, len, line);
    return;
  }
  if (classify(f, len, r->dec, &x) == F_TEXT && !r->seen_num) {
    if (!r->seen_text) {
      size_t n = len < sizeof r->text_shown - 1 ? len : sizeof r->text_shown - 1;
      r->seen_text = 1;
      r->text_line = line;
      memcpy(r->text_shown, f, n);
      r->text_shown[n] = 0;
    }
    rd_name(r, f, len, line);
    return;
  }
  if (r->seen_text) {
    rd_fail(r, DEVO_E_PARSE, r->text_line, 1,
            "not a number: '%s' (a first column of task names needs a name on every row: line "
            "%ld starts with a number)",
            r->text_shown, line);
    return;
  }
  r->seen_num = 1;
  rd_value(r, f, len, line, col);
}

static void csv_field(void *s, size_t len, void *data)
{
  csvctx *cx = (csvctx *)data;
  rd *r = cx->r;
  const char *f = s ? (const char *)s : "";
  if (!s)
    len = 0;
  if (r->status != DEVO_OK)
    return;
  r->col++;
  if (r->col > DEVO_ETC_MAX_MACHINES + (r->force_names || r->seen_text)) {
    rd_fail(r, DEVO_E_PARSE, r->line, r->col, "more than %d machines (columns)",
            DEVO_ETC_MAX_MACHINES);
    return;
  }
  if (r->first_row) {
    /* keep the text until the row ends */
    csvrow *fr = &cx->first;
    if (fr->len + len + 1 > fr->cap) {
      size_t ncap = (fr->cap ? 2 * fr->cap : 256) + len + 1;
      char *nb = (char *)devo__alloc(r->al, ncap, 1);
      if (!nb) {
        r->status = DEVO_E_NOMEM;
        seterr(r->err, r->errlen, "%s: out of memory", r->name);
        return;
      }
      if (fr->len)
        memcpy(nb, fr->buf, fr->len);
      devo__free(r->al, fr->buf);
      fr->buf = nb;
      fr->cap = ncap;
    }
    memcpy(fr->buf + fr->len, f, len);
    fr->buf[fr->len + len] = 0;
    fr->len += len + 1;
    fr->nfields++;
    r->row_line = r->line;
    return;
  }
  if (r->col > r->ncols) {
    rd_fail(r, DEVO_E_PARSE, r->line, r->col, "ragged row: more than %d fields", r->ncols);
    return;
  }
  r->row_line = r->line;
  data_field(r, f, len, r->line, r->col);
}

static void csv_row(int c, void *data)
{
  csvctx *cx = (csvctx *)data;
  rd *r = cx->r;
  (void)c;
  if (r->status != DEVO_OK)
    return;
  if (r->first_row) {
    csvrow *fr = &cx->first;
    size_t off = 0;
    int k, text = 1;
    double x;
    for (k = 0; k < fr->nfields; ++k) {
      size_t fl = strlen(fr->buf + off);
      const int kind = classify(fr->buf + off, fl, r->dec, &x);
      if ((kind == F_NUM || kind == F_NONFINITE) && !(r->force_names && k == 0))
        text = 0;
      off += fl + 1;
    }
    r->first_row = 0;
    r->row_end = r->line;
    r->ncols = fr->nfields;
    if (r->ncols < 2) {
      rd_fail(r, DEVO_E_PARSE, r->row_line, 1,
              "%d column: at least 2 machines (columns) are needed", r->ncols);
      return;
    }
    if (!text) {
      off = 0;
      for (k = 0; k < fr->nfields && r->status == DEVO_OK; ++k) {
        size_t fl = strlen(fr->buf + off);
        data_field(r, fr->buf + off, fl, r->row_line, k + 1);
        off += fl + 1;
      }
      r->rows++;
      fr->nfields = 0; /* not a header */
    } else {
      cx->header_line = r->row_line;
    }
    r->col = 0;
    return;
  }
  if (r->col < r->ncols) {
    rd_fail(r, DEVO_E_PARSE, r->row_line, r->col + 1, "ragged row: %d fields, expected %d", r->col,
            r->ncols);
    return;
  }
  r->rows++;
  r->row_end = r->line;
  if (r->rows > DEVO_ETC_MAX_TASKS) {
    rd_fail(r, DEVO_E_PARSE, r->row_line, 1, "more than %d tasks (rows)", DEVO_ETC_MAX_TASKS);
    return;
  }
  if ((long long)r->rows * r->ncols > DEVO_ETC_MAX_CELLS) {
    rd_fail(r, DEVO_E_PARSE, r->row_line, 1, "more than %d values", DEVO_ETC_MAX_CELLS);
    return;
  }
  r->col = 0;
}

/* Delimiter of the first non-blank line: the most frequent of ',', ';', '\t' outside quotes
 * (',' when none occurs). */
static unsigned char detect_delim(const char *b, size_t n)
{
  size_t i = 0;
  int counts[3] = {0, 0, 0}, inq = 0;
  while (i < n && (b[i] == '\n' || b[i] == '\r' || b[i] == ' '))
    i++;
  for (; i < n && b[i] != '\n' && b[i] != '\r'; ++i) {
    if (b[i] == '"')
      inq = !inq;
    else if (!inq && b[i] == ',')
      counts[0]++;
    else if (!inq && b[i] == ';')
      counts[1]++;
    else if (!inq && b[i] == '\t')
      counts[2]++;
  }
  if (counts[1] > counts[0] && counts[1] >= counts[2])
    return ';';
  if (counts[2] > counts[0] && counts[2] > counts[1])
    return '\t';
  return ',';
}

/* libcsv's buffer through the reader's allocator (devo.h: every host allocation goes through
 * it; libcsv called realloc itself, found in review). Its hooks take no user data, so the
 * allocator of the read in progress is a thread-local; devo_allocator has no realloc, so each
 * block starts with its capacity. libcsv asks for 128 bytes more each time its field buffer is
 * full: the block grows geometrically, so a long field costs linear time (a new block and a copy
 * on every request made a 10 MB field take 91 s: issue 21), and a field that outgrows any
 * number the reader accepts is refused there (csv_long), not read to its end. A worker thread of
 * the parallel reader allocates nothing (devo.h does not ask an allocator to be thread-safe): its
 * parser gets one block of the largest size, csv_arena, allocated beforehand. */
static _Thread_local const devo_allocator *csv_al;
static _Thread_local int csv_long;
static _Thread_local unsigned char *csv_arena;
#define CSV_HDR       16   /* keeps the block's alignment */
#define CSV_FIELD_CAP 4096 /* > DEVO_ETC_MAX_FIELD + libcsv's 128-byte step */

static void *csv_realloc_hook(void *p, size_t n)
{
  unsigned char *old = p ? (unsigned char *)p - CSV_HDR : NULL, *nb;
  size_t had = 0, cap;
  if (!p && csv_arena && n <= CSV_FIELD_CAP)
    return csv_arena + CSV_HDR; /* whose header says CSV_FIELD_CAP: it never grows */
  if (old)
    memcpy(&had, old, sizeof had);
  if (n <= had)
    return p;
  if (n > CSV_FIELD_CAP) {
    csv_long = 1;
    return NULL;
  }
  cap = n > 2 * had ? n : 2 * had;
  nb = (unsigned char *)devo__alloc(csv_al, cap + CSV_HDR, 1);
  if (!nb)
    return NULL;
  memcpy(nb, &cap, sizeof cap);
  if (old) {
    memcpy(nb + CSV_HDR, p, had);
    devo__free(csv_al, old);
  }
  return nb + CSV_HDR;
}

static void csv_free_hook(void *p)
{
  if (p && !csv_arena)
    devo__free(csv_al, (unsigned char *)p - CSV_HDR);
}

/* libcsv's error: out of memory, or malformed at the current place. */
static void csv_failed(rd *r, struct csv_parser *p)
{
  if (csv_error(p) == CSV_ENOMEM && csv_long) {
    rd_fail(r, DEVO_E_PARSE, r->line, r->col + 1,
            "a field of more than %d characters: not read as a number", DEVO_ETC_MAX_FIELD);
    return;
  }
  if (csv_error(p) == CSV_ENOMEM) {
    r->status = DEVO_E_NOMEM;
    seterr(r->err, r->errlen, "%s: out of memory", r->name);
    return;
  }
  rd_fail(r, DEVO_E_PARSE, r->line, r->col + 1, "malformed CSV: %s", csv_strerror(csv_error(p)));
}

/* After a CSV read: the task names kept or dropped, the machine names from the header. */
static void csv_names(rd *r, csvctx *cx)
{
  const int names = r->force_names || r->seen_text;
  size_t off = 0, total = 0;
  int k, j, any = 0;
  if (names && r->ncols - 1 < 2) {
    rd_fail(r, DEVO_E_PARSE, cx->header_line ? cx->header_line : 1, 1,
            "a column of task names and %d of times: at least 2 machines (columns) are needed",
            r->ncols - 1);
    return;
  }
  if (names && r->bad_line) {
    rd_fail(r, DEVO_E_PARSE, r->bad_line, 1, "task name: %s", r->bad_why);
    return;
  }
  if (!cx->header_line)
    return;
  /* header fields after the label of the names column; an empty one names no machine */
  for (k = 0; k < cx->first.nfields; ++k) {
    const size_t fl = strlen(cx->first.buf + off);
    const char *why = devo__etc_name_problem(cx->first.buf + off, fl);
    if (k >= names && fl > 0 && why) {
      rd_fail(r, DEVO_E_PARSE, cx->header_line, k + 1, "machine name: %s", why);
      return;
    }
    if (k >= names) {
      any |= fl > 0;
      total += fl + 1;
    }
    off += fl + 1;
  }
  if (!any)
    return;
  r->mn = (char *)devo__alloc(r->al, total, 1);
  r->moff = (size_t *)devo__alloc(r->al, (size_t)(r->ncols - names), sizeof(size_t));
  if (!r->mn || !r->moff) {
    r->status = DEVO_E_NOMEM;
    seterr(r->err, r->errlen, "%s: out of memory", r->name);
    return;
  }
  off = 0;
  total = 0;
  for (k = 0, j = 0; k < cx->first.nfields; ++k) {
    const size_t fl = strlen(cx->first.buf + off);
    if (k >= names) {
      r->moff[j++] = total;
      memcpy(r->mn + total, cx->first.buf + off, fl + 1);
      total += fl + 1;
    }
    off += fl + 1;
  }
}

/* ---- CSV in parallel (issue 19) ------------------------------------------------------------ */

/* A large input whose rest, after the first rows, holds no '"' (so that no field holds a line end
 * and every line end ends a row) is cut at line ends into chunks, each read by its own thread
 * with its own libcsv parser into its place in one value array. The workers only recognise the
 * one case that needs no message: rows of ncols positive numbers. Anything else (an error, a
 * ragged row, text, a limit passed) sends the whole rest back to the serial reader, which then
 * reads it as if nothing had happened: the result and every message stay the serial ones. */
#define PAR_MIN_BYTES   ((size_t)1 << 20) /* in parallel from this size, and as much a thread */
#define PAR_MAX_THREADS DEVO__JOBS_MAX
#define PAR_STEP        ((size_t)1 << 16) /* a worker looks at the others' failure this often */

typedef struct csvpart {
  const char *b; /* the chunk: whole lines */
  size_t n;
  unsigned char delim;
  int ncols, dec;
  size_t lines;   /* line ends ('\n') in the chunk, + 1 for a last line without one */
  int quote;      /* a '"' in the chunk */
  double *out;    /* room for cap values */
  size_t cap, nv; /* cap: lines * ncols */
  long rows;
  int col;
  int bad;              /* the serial reader must read the input */
  unsigned char *arena; /* libcsv's field buffer (csv_arena) */
  atomic_int *stop;     /* some chunk is bad: the others may stop */
} csvpart;

/* The default thread count of the parallel reader for n bytes: the online CPUs, at most
 * PAR_MAX_THREADS, and at least PAR_MIN_BYTES each; 0 or 1: serial. */
static int par_threads(size_t n)
{
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t t = n / PAR_MIN_BYTES;
  if (cpus > 0 && t > (size_t)cpus)
    t = (size_t)cpus;
  if (cpus <= 0)
    t = 1;
  return t > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)t;
}

static void *part_scan(void *arg)
{
  csvpart *c = (csvpart *)arg;
  const unsigned char *b = (const unsigned char *)c->b;
  size_t i, lf = 0;
  unsigned q = 0;
  for (i = 0; i < c->n; ++i) { /* vectorised by the compiler */
    lf += b[i] == '\n';
    q |= b[i] == '"';
  }
  c->lines = lf;
  c->quote = q != 0;
  return NULL;
}

static void part_field(void *s, size_t len, void *data)
{
  csvpart *c = (csvpart *)data;
  double x;
  if (c->bad)
    return;
  if (++c->col > c->ncols || c->nv == c->cap || !s) {
    c->bad = 1;
    return;
  }
  /* a field the fast path reads whole has no blanks to trim: classify's answer without its
   * scans (within classify's length limit) */
  if (!(len <= DEVO_ETC_MAX_FIELD && devo__dec_fast((const char *)s, len, c->dec, &x)) &&
      classify((const char *)s, len, c->dec, &x) != F_NUM) {
    c->bad = 1;
    return;
  }
  if (!(x > 0.0)) {
    c->bad = 1;
    return;
  }
  c->out[c->nv++] = x;
}

static void part_row(int ch, void *data)
{
  csvpart *c = (csvpart *)data;
  (void)ch;
  if (c->bad)
    return;
  if (c->col != c->ncols) {
    c->bad = 1;
    return;
  }
  c->rows++;
  c->col = 0;
}

static void *part_read(void *arg)
{
  csvpart *c = (csvpart *)arg;
  struct csv_parser p;
  size_t i;
  csv_arena = c->arena;
  csv_long = 0;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_EMPTY_IS_NULL) != 0) {
    c->bad = 1;
  } else {
    csv_set_realloc_func(&p, csv_realloc_hook);
    csv_set_free_func(&p, csv_free_hook);
    csv_set_delim(&p, c->delim);
    csv_set_space_func(&p, csv_space_only);
    for (i = 0; i < c->n && !c->bad; i += PAR_STEP) {
      const size_t k = c->n - i < PAR_STEP ? c->n - i : PAR_STEP;
      if (atomic_load_explicit(c->stop, memory_order_relaxed) ||
          csv_parse(&p, c->b + i, k, part_field, part_row, c) != k)
        c->bad = 1;
    }
    if (!c->bad && (csv_fini(&p, part_field, part_row, c) != 0 || c->col != 0))
      c->bad = 1;
    csv_free(&p);
  }
  if (c->bad)
    atomic_store_explicit(c->stop, 1, memory_order_relaxed);
  csv_arena = NULL;
  return NULL;
}

/* Runs fn on every part: parts 1.. on their own threads, part 0 on this one (and a part whose
 * thread could not be made, after it). */
static void par_run(csvpart *c, int t, void *(*fn)(void *))
{
  devo__run_jobs(c, sizeof c[0], t, fn);
}

/* Cuts b[0, n) into t chunks (fewer when lines are long) at line ends; returns their count. */
static int par_cut(csvpart *c, const char *b, size_t n, int t)
{
  size_t from = 0;
  int k = 0;
  while (from < n && k < t) {
    size_t to = k == t - 1 ? n : n / (size_t)t * (size_t)(k + 1);
    const char *lf;
    if (to < from)
      to = from;
    lf = to < n ? (const char *)memchr(b + to, '\n', n - to) : NULL;
    to = lf ? (size_t)(lf - b) + 1 : n;
    c[k].b = b + from;
    c[k].n = to - from;
    from = to;
    k++;
  }
  return k;
}

/* Reads b[0, n), the rest of the input after the first rows (r read them: par_ready), on t
 * threads. Returns the number of chunks read when it did (r's values and rows then hold the
 * whole input's), 0 when r is untouched and the serial reader must read b. */
static int csv_par(rd *r, unsigned char delim, const char *b, size_t n, int t)
{
  csvpart *c = (csvpart *)devo__calloc(r->al, (size_t)t, sizeof *c);
  unsigned char *arenas = (unsigned char *)devo__alloc(r->al, (size_t)t, CSV_HDR + CSV_FIELD_CAP);
  const size_t fcap = CSV_FIELD_CAP;
  atomic_int stop;
  double *v = NULL;
  size_t lines = 0, off, cells;
  long rows = r->rows;
  int k, ok = 0;
  atomic_init(&stop, 0);
  if (!c || !arenas)
    goto done; /* the serial reader may still fit in memory */
  t = par_cut(c, b, n, t);
  par_run(c, t, part_scan);
  for (k = 0; k < t; ++k) {
    if (c[k].quote)
      goto done;
    c[k].lines += k == t - 1 && b[n - 1] != '\n';
    lines += c[k].lines;
  }
  /* every value's place is known before reading: chunk k from the lines before it. Blank lines
   * make room for rows that do not come (closed up below); too many lines for the value limit
   * is left to the serial reader (which also says so when it is the rows) */
  if (lines > (size_t)DEVO_ETC_MAX_CELLS / (size_t)r->ncols ||
      r->nv + lines * (size_t)r->ncols > (size_t)DEVO_ETC_MAX_CELLS)
    goto done;
  cells = r->nv + lines * (size_t)r->ncols;
  v = (double *)devo__alloc(r->al, cells ? cells : 1, sizeof(double));
  if (!v)
    goto done;
  if (r->nv)
    memcpy(v, r->v, r->nv * sizeof(double));
  off = r->nv;
  for (k = 0; k < t; ++k) {
    c[k].delim = delim;
    c[k].ncols = r->ncols;
    c[k].dec = r->dec;
    c[k].out = v + off;
    c[k].cap = c[k].lines * (size_t)r->ncols;
    c[k].arena = arenas + (size_t)k * (CSV_HDR + CSV_FIELD_CAP);
    memcpy(c[k].arena, &fcap, sizeof fcap);
    c[k].stop = &stop;
    off += c[k].cap;
  }
  par_run(c, t, part_read);
  csv_long = 0; /* this thread read a chunk too: its flag is the serial reader's again (0, or
                 * the prefix had failed) */
  off = r->nv;
  for (k = 0; k < t; ++k) {
    if (c[k].bad)
      goto done;
    rows += c[k].rows;
    if (c[k].out != v + off)
      memmove(v + off, c[k].out, c[k].nv * sizeof(double));
    off += c[k].nv;
  }
  if (rows > DEVO_ETC_MAX_TASKS || (long long)rows * r->ncols > DEVO_ETC_MAX_CELLS)
    goto done;
  devo__free(r->al, r->v);
  r->v = v;
  r->nv = off;
  r->cap = cells ? cells : 1;
  r->rows = rows;
  v = NULL;
  ok = t;
done:
  devo__free(r->al, v);
  devo__free(r->al, arenas);
  devo__free(r->al, c);
  return ok;
}

/* The end of the line that starts at b[i]: just past its LF, CRLF or lone CR, or n. */
static size_t line_after(const char *b, size_t n, size_t i)
{
  const char *lf = (const char *)memchr(b + i, '\n', n - i), *cr;
  const size_t to = lf ? (size_t)(lf - b) : n;
  /* a CR before the LF's own CR (or anywhere before the end without a LF) is alone */
  const size_t crto = lf ? (to > i ? to - 1 : i) : n;
  cr = (const char *)memchr(b + i, '\r', crto - i);
  if (cr)
    return (size_t)(cr - b) + 1;
  return lf ? to + 1 : n;
}

/* Whether the parallel reader can take over after line `line` of the serial one: the first
 * row is read, a data row gave the first column as numbers (no names, which the workers do not
 * keep), and a row ended on that line (so libcsv is between rows, not in a quoted field). */
static int par_ready(const rd *r, long line)
{
  return r->status == DEVO_OK && !r->first_row && r->row_end == line && r->seen_num &&
         !r->force_names && !r->seen_text;
}

/* Feeds b[i, n) to the serial parser one physical line at a time, so that the callbacks know
 * the line number; a line ends at LF, CRLF, or a CR alone (old Mac files, which libcsv reads as
 * rows too). With upto_par, stops after the first line where par_ready holds. Returns where it
 * stopped. */
static size_t csv_lines(rd *r, struct csv_parser *p, csvctx *cx, const char *b, size_t n, size_t i,
                        int upto_par)
{
  while (i < n && r->status == DEVO_OK) {
    const size_t e = line_after(b, n, i);
    int ready;
    if (csv_parse(p, b + i, e - i, csv_field, csv_row, cx) != e - i && r->status == DEVO_OK)
      csv_failed(r, p);
    ready = upto_par && par_ready(r, r->line);
    i = e;
    r->line++;
    if (ready)
      break;
  }
  return i;
}

/* threads: 0 = the default (par_threads), 1 = serial, k > 1 = k chunks whatever the size (for
 * the tests); *chunks: how many were read in parallel (0: serial). */
static void read_csv(rd *r, const char *b, size_t n, int threads, int *chunks)
{
  struct csv_parser p;
  csvctx cx;
  size_t i;
  const unsigned char delim = detect_delim(b, n);
  memset(&cx, 0, sizeof cx);
  cx.r = r;
  r->first_row = 1;
  r->line = 1;
  *chunks = 0;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_EMPTY_IS_NULL) != 0) {
    r->status = DEVO_E_NOMEM;
    seterr(r->err, r->errlen, "%s: out of memory", r->name);
    return;
  }
  csv_al = r->al;
  csv_long = 0;
  csv_arena = NULL;
  csv_set_realloc_func(&p, csv_realloc_hook);
  csv_set_free_func(&p, csv_free_hook);
  csv_set_delim(&p, delim);
  csv_set_space_func(&p, csv_space_only);
  i = csv_lines(r, &p, &cx, b, n, 0, threads != 1);
  if (i < n && par_ready(r, r->line - 1)) {
    const int t = threads > 1 ? threads : threads == 0 ? par_threads(n - i) : 0;
    if (t > 1 || threads > 1)
      *chunks = csv_par(r, delim, b + i, n - i, t > PAR_MAX_THREADS ? PAR_MAX_THREADS : t);
    if (*chunks)
      i = n;
  }
  csv_lines(r, &p, &cx, b, n, i, 0);
  if (r->status == DEVO_OK) {
    r->line--; /* the last line had no '\n' or is the line of the final row */
    if (csv_fini(&p, csv_field, csv_row, &cx) != 0)
      csv_failed(r, &p);
  }
  csv_free(&p);
  if (r->status == DEVO_OK && r->first_row)
    rd_fail(r, DEVO_E_PARSE, 1, 1, "no data: at least 1 task (row) is needed");
  else if (r->status == DEVO_OK && r->rows == 0)
    rd_fail(r, DEVO_E_PARSE, r->line + 1, 1, "no data rows: at least 1 task is needed");
  if (r->status == DEVO_OK)
    csv_names(r, &cx);
  devo__free(r->al, cx.first.buf);
}

/* ---- Braun format ----------------------------------------------------------------------- */

#define BRAUN_TASKS    512
#define BRAUN_MACHINES 16

/* Splits a line into whitespace-separated tokens; returns the count (at most max stored). */
static int tokens(const char *s, size_t len, size_t *tb, size_t *te, int max)
{
  size_t i = 0;
  int k = 0;
  while (i < len) {
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
      i++;
    if (i == len)
      break;
    if (k < max)
      tb[k] = i;
    while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      i++;
    if (k < max)
      te[k] = i;
    k++;
  }
  return k;
}

/* A whole token that is a non-negative decimal integer below 10^9; -1 otherwise. */
static long small_int(const char *s, size_t len)
{
  long v = 0;
  size_t i;
  if (len == 0 || len > 9)
    return -1;
  for (i = 0; i < len; ++i) {
    if (!isdigit((unsigned char)s[i]))
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

static void read_braun(rd *r, const char *b, size_t n, int nmach, int *ntasks_out, int *nmach_out)
{
  size_t i = 0, tb[4], te[4];
  long line = 0, hdr_n = -1, hdr_m = -1, last_line = 0;
  long blank_line = 0; /* first blank line seen after data, 0 if none */
  while (i < n && r->status == DEVO_OK) {
    size_t e = i;
    int k;
    while (e < n && !line_end(b, n, e)) /* LF, or CR alone; a CRLF's CR is a blank */
      e++;
    line++;
    k = tokens(b + i, e - i, tb, te, 4);
    if (k == 0) {
      if (!blank_line)
        blank_line = line;
    } else {
      if (blank_line) {
        rd_fail(r, DEVO_E_PARSE, blank_line, 1, "empty line (one value per line expected)");
        break;
      }
      if (line == 1 && k >= 2) {
        long a = small_int(b + i + tb[0], te[0] - tb[0]);
        long c = small_int(b + i + tb[1], te[1] - tb[1]);
        long z = k == 3 ? small_int(b + i + tb[2], te[2] - tb[2]) : 0;
        if (k > 3) {
          rd_fail(r, DEVO_E_PARSE, 1, (long)tb[3] + 1,
                  "expected one value per line, or an 'n m 0' first line");
          break;
        }
        if (a < 0 || c < 0 || z < 0) {
          const int q = a < 0 ? 0 : c < 0 ? 1 : 2;
          rd_fail(r, DEVO_E_PARSE, 1, (long)tb[q] + 1,
                  "an 'n m 0' first line holds whole numbers >= 0: '%.*s'",
                  (int)(te[q] - tb[q] < 32 ? te[q] - tb[q] : 32), b + i + tb[q]);
          break;
        }
        if (z != 0) { /* Braun et al.'s third value is 0; another is no format we know */
          rd_fail(r, DEVO_E_PARSE, 1, (long)tb[2] + 1,
                  "the third value of an 'n m 0' first line must be 0, got %ld", z);
          break;
        }
        hdr_n = a;
        hdr_m = c;
        if (hdr_m < 2 || hdr_m > DEVO_ETC_MAX_MACHINES) {
          rd_fail(r, DEVO_E_PARSE, 1, (long)tb[1] + 1, "%ld machines: must be 2 .. %d", hdr_m,
                  DEVO_ETC_MAX_MACHINES);
          break;
        }
        if (hdr_n < 1 || hdr_n > DEVO_ETC_MAX_TASKS) {
          rd_fail(r, DEVO_E_PARSE, 1, 1, "%ld tasks: must be 1 .. %d", hdr_n, DEVO_ETC_MAX_TASKS);
          break;
        }
        if (hdr_n * hdr_m > DEVO_ETC_MAX_CELLS) {
          rd_fail(r, DEVO_E_PARSE, 1, 1, "%ld x %ld = %ld values: more than %d (the value limit)",
                  hdr_n, hdr_m, hdr_n * hdr_m, DEVO_ETC_MAX_CELLS);
          break;
        }
        if (nmach > 0 && nmach != hdr_m) {
          rd_fail(r, DEVO_E_PARSE, 1, (long)tb[1] + 1, "the file says %ld machines, %d were given",
                  hdr_m, nmach);
          break;
        }
      } else if (k > 1) {
        rd_fail(r, DEVO_E_PARSE, line, (long)tb[1] + 1, "more than one value on the line");
        break;
      } else {
        if (r->nv >= (size_t)DEVO_ETC_MAX_CELLS || (hdr_n > 0 && (long)r->nv >= hdr_n * hdr_m)) {
          rd_fail(r, DEVO_E_PARSE, line, 1, "more values than %s",
                  hdr_n > 0 ? "the first line announces" : "the size limit allows");
          break;
        }
        rd_value(r, b + i + tb[0], te[0] - tb[0], line, (long)tb[0] + 1);
        last_line = line;
      }
    }
    i = e < n ? e + 1 : e;
  }
  if (r->status != DEVO_OK)
    return;
  if (hdr_m > 0) {
    if ((long)r->nv != hdr_n * hdr_m) {
      rd_fail(r, DEVO_E_PARSE, last_line + 1, 1, "%zu values, the first line announces %ld x %ld",
              r->nv, hdr_n, hdr_m);
      return;
    }
    *ntasks_out = (int)hdr_n;
    *nmach_out = (int)hdr_m;
    return;
  }
  /* All the instances of Braun et al. (2001) are 512 x 16 and their common copies have no size
   * line: take that size for exactly 8192 values rather than refuse them. */
  if (nmach <= 0 && r->nv == (size_t)BRAUN_TASKS * BRAUN_MACHINES)
    nmach = BRAUN_MACHINES;
  if (nmach <= 0) {
    rd_fail(r, DEVO_E_PARSE, 1, 1,
            "Braun format without an 'n m 0' first line: the number of machines must be given");
    return;
  }
  if (nmach < 2 || nmach > DEVO_ETC_MAX_MACHINES) {
    rd_fail(r, DEVO_E_PARSE, 1, 1, "%d machines: must be 2 .. %d", nmach, DEVO_ETC_MAX_MACHINES);
    return;
  }
  if (r->nv == 0) {
    rd_fail(r, DEVO_E_PARSE, 1, 1, "no data: at least 1 task is needed");
    return;
  }
  if (r->nv % (size_t)nmach != 0) {
    rd_fail(r, DEVO_E_PARSE, last_line + 1, 1, "%zu values is not a multiple of %d machines", r->nv,
            nmach);
    return;
  }
  if (r->nv / (size_t)nmach > (size_t)DEVO_ETC_MAX_TASKS) {
    rd_fail(r, DEVO_E_PARSE, last_line, 1, "more than %d tasks", DEVO_ETC_MAX_TASKS);
    return;
  }
  *ntasks_out = (int)(r->nv / (size_t)nmach);
  *nmach_out = nmach;
}

/* Braun when the first non-blank line is one number or numbers separated by blanks (an
 * "n m 0" size line), CSV otherwise. */
static int detect_format(const char *b, size_t n)
{
  size_t i = 0, e, tb[4], te[4];
  int k;
  double x;
  while (i < n && (b[i] == '\n' || b[i] == '\r' || b[i] == ' ' || b[i] == '\t'))
    i++;
  for (e = i; e < n && !line_end(b, n, e); ++e)
    if (b[e] == ',' || b[e] == ';' || b[e] == '\t')
      return DEVO_ETC_CSV;
  k = tokens(b + i, e - i, tb, te, 4);
  if (k == 1 && classify(b + i + tb[0], te[0] - tb[0], 0, &x) != F_TEXT)
    return DEVO_ETC_BRAUN;
  /* numbers separated by blanks: a Braun size line, also a malformed one ("3.0 2 0", "3 -2 0",
   * "3 2 0 9"), whose error then names it (as CSV it read as one column) */
  if (k >= 2) {
    int q, nums = 1;
    for (q = 0; q < k && q < 4; ++q)
      if (classify(b + i + tb[q], te[q] - tb[q], 0, &x) != F_NUM)
        nums = 0;
    if (nums)
      return DEVO_ETC_BRAUN;
  }
  return DEVO_ETC_CSV;
}

/* The reader over the n bytes at buf: format without DEVO_ETC_TASK_NAMES (force_names says it)
 * and the other arguments already checked. threads and *chunks: as devo__etc_read_buf. */
/* Sizes the values of a one-thread CSV read of b[0..n) before it starts: lines times the fields
 * of the first line (detect_delim's delimiter), at most one value per 2 bytes of input, so that
 * the block is not grown by doubling (whose last step held the old and the new block at once:
 * 1.5 times the matrix, for a 67 MB matrix read by devo serve 30 MB above the body and the
 * matrix) and moves into the matrix whole (etc_parse). Small inputs, a failed allocation: as
 * before, grown as it comes. */
static void rd_presize(rd *r, const char *b, size_t n)
{
  const char *p = b, *end = b + n, *nl = (const char *)memchr(b, '\n', n);
  const size_t first = nl ? (size_t)(nl - b) : n;
  size_t lines = 1, cols = 0, k, est;
  if (n < ((size_t)1 << 20))
    return;
  const unsigned char delim = detect_delim(b, n);
  for (k = 0; k < first; ++k)
    cols += (unsigned char)b[k] == delim;
  while ((p = (const char *)memchr(p, '\n', (size_t)(end - p))) != NULL) {
    ++lines;
    ++p;
  }
  est = lines * (cols + 1);
  if (est > n / 2 + 1)
    est = n / 2 + 1;
  r->v = (double *)devo__alloc(r->al, est, sizeof(double));
  r->cap = r->v ? est : 0;
}

static int etc_parse(devo_etc **out, const char *buf, size_t n, const char *name, int format,
                     int force_names, int nmach, int threads, int *chunks, devo_allocator *al,
                     char *err, size_t errlen)
{
  size_t skip, cells;
  rd r;
  int ntasks = 0, m = 0, rc, par = 0;
  memset(&r, 0, sizeof r);
  r.al = al;
  r.name = name;
  r.err = err;
  r.errlen = errlen;
  r.status = DEVO_OK;
  r.force_names = force_names;
  r.dec = devo__dec_flags();
  /* a UTF-8 byte order mark (spreadsheet exports) is not part of the first field */
  skip = n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  if (format == DEVO_ETC_AUTO)
    format = detect_format(buf + skip, n - skip);
  if (format == DEVO_ETC_CSV) {
    if (threads == 1) /* the parallel reader sizes its own */
      rd_presize(&r, buf + skip, n - skip);
    read_csv(&r, buf + skip, n - skip, threads, &par);
    if (r.status == DEVO_OK) {
      ntasks = (int)r.rows;
      m = r.ncols - (r.force_names || r.seen_text);
      if (nmach > 0 && nmach != m)
        rd_fail(&r, DEVO_E_PARSE, 1, 1, "%d columns, %d machines were given", m, nmach);
    }
  } else {
    read_braun(&r, buf + skip, n - skip, nmach, &ntasks, &m);
  }
  if (chunks)
    *chunks = par;
  if (r.status == DEVO_OK && !etc_sums_finite(r.v, NULL, ntasks, m)) {
    r.status = DEVO_E_PARSE;
    seterr(err, errlen, "%s: %s", name, DEVO__ETC_TOO_LARGE);
  }
  rc = r.status;
  cells = (size_t)ntasks * (size_t)m;
  if (rc == DEVO_OK) {
    /* the values move into the matrix when their block is about the right size (always after
     * the parallel reader, which sized it): no second copy of a large matrix */
    const int adopt = r.cap - cells <= cells / 16;
    rc = etc_alloc(out, ntasks, m, al, adopt ? r.v : NULL);
    if (rc == DEVO_OK && adopt)
      r.v = NULL;
    else if (rc == DEVO_OK)
      memcpy((*out)->values, r.v, cells * sizeof(double));
    else
      seterr(err, errlen, "%s: out of memory", name);
  }
  if (rc == DEVO_OK) {
    if (r.force_names || r.seen_text) { /* the names move into the matrix */
      (*out)->task_names = r.tn;
      (*out)->task_off = r.toff;
      r.tn = NULL;
      r.toff = NULL;
    }
    (*out)->mach_names = r.mn;
    (*out)->mach_off = r.moff;
    r.mn = NULL;
    r.moff = NULL;
  }
  devo__free(al, r.v);
  devo__free(al, r.tn);
  devo__free(al, r.toff);
  devo__free(al, r.mn);
  devo__free(al, r.moff);
  return rc;
}

/* Whether the arguments of a read are valid; format loses DEVO_ETC_TASK_NAMES into
 * *force_names. */
static int read_args_ok(int *format, int *force_names, int nmach, const devo_read_limits *lim)
{
  *force_names = (*format & DEVO_ETC_TASK_NAMES) != 0;
  *format &= ~DEVO_ETC_TASK_NAMES;
  return !(*format < DEVO_ETC_AUTO || *format > DEVO_ETC_BRAUN || nmach < 0 ||
           (*force_names && *format == DEVO_ETC_BRAUN) || (lim && !(lim->deadline >= 0.0)));
}

/* The reader over a byte source: fd when >= 0, else in (read_src.h). */
static int etc_read_src(devo_etc **out, FILE *in, int fd, const char *name, int format, int nmach,
                        const devo_read_limits *lim, const devo_allocator *alloc, char *err,
                        size_t errlen)
{
  devo_allocator al = devo__allocator_or_default(alloc);
  devo__rdlim rl;
  char *buf = NULL;
  size_t n = 0;
  int rc, force_names;
  if (err && errlen)
    err[0] = 0;
  if (!name)
    name = "<input>";
  if (!out || (!in && fd < 0) || !read_args_ok(&format, &force_names, nmach, lim)) {
    seterr(err, errlen, "%s: invalid argument to devo_etc_read", name);
    return DEVO_E_INVALID;
  }
  *out = NULL;
  rl.max_bytes = lim && lim->max_bytes ? lim->max_bytes : DEVO_ETC_DEFAULT_MAX_BYTES;
  rl.max_line = DEVO_ETC_MAX_LINE;
  rl.deadline = lim ? lim->deadline : 0.0;
  rc = devo__read_all(in, fd, name, &rl, &al, &buf, &n, err, errlen);
  if (rc != DEVO_OK)
    return rc;
  rc = etc_parse(out, buf, n, name, format, force_names, nmach, 0, NULL, &al, err, errlen);
  devo__free(&al, buf);
  return rc;
}

int devo__etc_read_buf(devo_etc **out, const char *buf, size_t n, const char *name, int format,
                       int nmach, int threads, int *chunks, const devo_allocator *alloc, char *err,
                       size_t errlen)
{
  devo_allocator al = devo__allocator_or_default(alloc);
  int force_names;
  if (err && errlen)
    err[0] = 0;
  if (!name)
    name = "<input>";
  if (chunks)
    *chunks = 0;
  if (!out || (!buf && n) || threads < 0 || threads > PAR_MAX_THREADS ||
      !read_args_ok(&format, &force_names, nmach, NULL)) {
    seterr(err, errlen, "%s: invalid argument to devo__etc_read_buf", name);
    return DEVO_E_INVALID;
  }
  *out = NULL;
  return etc_parse(out, n ? buf : "", n, name, format, force_names, nmach, threads, chunks, &al,
                   err, errlen);
}

int devo_etc_read(devo_etc **out, FILE *in, const char *name, int format, int nmach,
                  const devo_allocator *alloc, char *err, size_t errlen)
{
  if (!in) {
    seterr(err, errlen, "%s: invalid argument to devo_etc_read", name ? name : "<input>");
    return DEVO_E_INVALID;
  }
  return etc_read_src(out, in, -1, name, format, nmach, NULL, alloc, err, errlen);
}

int devo_etc_read_fd(devo_etc **out, int fd, const char *name, int format, int nmach,
                     const devo_read_limits *lim, const devo_allocator *alloc, char *err,
                     size_t errlen)
{
  if (fd < 0) {
    seterr(err, errlen, "%s: invalid argument to devo_etc_read_fd", name ? name : "<input>");
    return DEVO_E_INVALID;
  }
  return etc_read_src(out, NULL, fd, name, format, nmach, lim, alloc, err, errlen);
}
