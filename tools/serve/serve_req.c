/* SPDX-License-Identifier: MIT */
/* serve_req.c: a `devo serve` request body read into a devo_etc and the search options
 * (serve_req.h). JSON: the object read here, strictly (RFC 8259: no duplicate member, nothing
 * after the object, no control byte as whitespace, every option of its JSON type), its matrix by
 * the library's JSON reader (problems/etc_json.c: one pass into the final array, numbers exactly
 * as strtod reads them, the deadline looked at as it goes); CSV: the library's CSV reader, so
 * that a CSV body is read exactly as `devo schedule` reads a file. */
#define _POSIX_C_SOURCE 200809L
#include "serve_req.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/dec_fast.h"
#include "problems/etc_io.h"
#include "problems/etc_json.h"

const char *const serve_req_params[] = {"objective", "lambda",  "order", "time_limit",
                                        "seed",      "backend", "steps", "search",
                                        "chains",    "ready",   NULL};

/* One option's value: a JSON number or string, or a query string (str only). */
typedef struct optval {
  const char *str; /* NULL for a JSON number */
  double num;
  int is_num; /* a JSON number */
  int json;   /* from a JSON body: a number must be a JSON number, not a string */
} optval;

static int refuse(serve_err *err, const char *field, long row, long col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int refuse(serve_err *err, const char *field, long row, long col, const char *fmt, ...)
{
  va_list ap;
  err->http = 400;
  snprintf(err->field, sizeof err->field, "%s", field ? field : "");
  err->row = row;
  err->col = col;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return -1;
}

/* A number from a JSON number, or from the whole of a query string (finite, no blanks). */
static int get_num(const optval *v, const char *name, double *out, serve_err *err)
{
  char *end;
  if (v->is_num)
    *out = v->num;
  else if (v->json)
    return refuse(err, name, 0, 0, "%s: a JSON number is needed, not a string", name);
  else {
    if (!v->str || !*v->str)
      return refuse(err, name, 0, 0, "%s: a number is needed", name);
    errno = 0;
    *out = strtod(v->str, &end);
    if (*end || end == v->str || errno == ERANGE ||
        strspn(v->str, "0123456789.eE+-") != strlen(v->str))
      return refuse(err, name, 0, 0, "%s: '%s' is not a number", name, v->str);
  }
  if (!isfinite(*out))
    return refuse(err, name, 0, 0, "%s: not a finite number", name);
  return 0;
}

/* An integer in [lo, hi] (hi at most 2^53, exact in a double). */
static int get_int(const optval *v, const char *name, double lo, double hi, int64_t *out,
                   serve_err *err)
{
  double x = 0.0;
  if (get_num(v, name, &x, err))
    return -1;
  if (x != floor(x) || x < lo || x > hi)
    return refuse(err, name, 0, 0, "%s: must be an integer in [%.0f, %.0f], got %.17g", name, lo,
                  hi, x);
  *out = (int64_t)x;
  return 0;
}

static int get_word(const optval *v, const char *name, const char *const *words, int *out,
                    serve_err *err)
{
  int k;
  if (!v->str)
    return refuse(err, name, 0, 0, "%s: a string is needed", name);
  for (k = 0; words[k]; ++k)
    if (strcmp(v->str, words[k]) == 0) {
      *out = k;
      return 0;
    }
  return refuse(err, name, 0, 0, "%s: unknown value '%.64s'", name, v->str);
}

/* Sets option name of r from v; *objective receives 0/1 for "objective", *lambda_set 1 for
 * "lambda". Returns 0, 1 for an unknown name (the caller's to refuse), -1 refused. */
static int set_option(serve_req *r, const char *name, const optval *v, const serve_limits *lim,
                      int *objective, int *lambda_set, serve_err *err)
{
  static const char *const objectives[] = {"weighted", "makespan", NULL};
  static const char *const orders[] = {"fcfs", "spt", NULL};
  static const char *const backends[] = {"cpu", "gpu", "auto", NULL}; /* DEVO_BACKEND_* */
  static const char *const searches[] = {"auto", "pipeline", "ig", "gpu-ls",
                                         NULL}; /* DEVO_SEARCH_* */
  int64_t i;
  if (strcmp(name, "objective") == 0)
    return get_word(v, name, objectives, objective, err);
  if (strcmp(name, "order") == 0)
    return get_word(v, name, orders, &r->order, err);
  if (strcmp(name, "backend") == 0)
    return get_word(v, name, backends, &r->backend, err);
  if (strcmp(name, "search") == 0)
    return get_word(v, name, searches, &r->search, err);
  if (strcmp(name, "lambda") == 0) {
    *lambda_set = 1;
    if (get_num(v, name, &r->lambda, err))
      return -1;
    if (!(r->lambda >= 0.0 && r->lambda <= 1.0))
      return refuse(err, name, 0, 0, "lambda: must be in [0, 1], got %.17g", r->lambda);
    return 0;
  }
  if (strcmp(name, "time_limit") == 0) {
    if (get_num(v, name, &r->time_limit, err))
      return -1;
    if (!(r->time_limit > 0.0 && r->time_limit <= lim->max_time_limit))
      return refuse(err, name, 0, 0,
                    "time_limit: must be seconds > 0 and <= %g (--max-time-limit), got %.17g",
                    lim->max_time_limit, r->time_limit);
    return 0;
  }
  if (strcmp(name, "seed") == 0) {
    if (get_int(v, name, 0, 9007199254740992.0, &i, err))
      return -1;
    r->seed = (uint64_t)i;
    return 0;
  }
  if (strcmp(name, "steps") == 0)
    return get_int(v, name, 1, 1e12, &r->steps, err);
  if (strcmp(name, "chains") == 0) {
    if (get_int(v, name, 1, 4096, &i, err))
      return -1;
    r->chains = (int)i;
    return 0;
  }
  return 1;
}

static void defaults(serve_req *r, const serve_limits *lim)
{
  devo_schedule_opts d;
  devo_schedule_opts_init(&d);
  memset(r, 0, sizeof *r);
  r->lambda = d.lambda;
  r->time_limit = lim->default_time_limit;
  r->seed = d.seed;
  r->backend = lim->default_backend;
}

/* The objective and lambda together, as devo schedule takes them. */
static int settle_lambda(serve_req *r, int objective, int lambda_set, serve_err *err)
{
  if (objective == 1) {
    if (lambda_set && r->lambda != 1.0)
      return refuse(err, "lambda", 0, 0, "lambda contradicts objective makespan");
    r->lambda = 1.0;
  }
  return 0;
}

/* Line and column (1-based) of byte pos of text. */
static void line_col(const char *text, size_t pos, long *line, long *col)
{
  size_t i;
  *line = 1;
  *col = 1;
  for (i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

/* Ready times, one per machine, >= 0. */
static int set_ready(serve_req *r, const double *w, int k, serve_err *err)
{
  char msg[256];
  const int m = devo_etc_nmach(r->e);
  if (k != m)
    return refuse(err, "ready", 0, 0, "ready: %d values, expected one per machine (%d)", k, m);
  if (devo_etc_set_ready(r->e, w, msg, sizeof msg) != DEVO_OK)
    return refuse(err, "ready", 0, 0, "ready: %s", msg);
  return 0;
}

/* ---- the JSON object ------------------------------------------------------------------------- */

/* A JSON body being read: the text, where the reading is, and the refusal's place. */
typedef struct jbody {
  const char *s;
  size_t n, i;
} jbody;

static int malformed(const jbody *b, size_t pos, serve_err *err, const char *what)
{
  long line, col;
  line_col(b->s, pos, &line, &col);
  if (!what && pos >= b->n)
    what = "the body ends there";
  return refuse(err, NULL, line, col, "malformed JSON at line %ld, column %ld%s%s", line, col,
                what ? ": " : "", what ? what : "");
}

/* The hex digit c, or -1. */
static int hexval(char c)
{
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* The JSON string at b->i (its '"'), decoded into out (cap bytes, NUL-terminated; a longer
 * string is cut, *cut set). RFC 8259: no control byte inside, escapes only of its list. */
static int jstring(jbody *b, char *out, size_t cap, int *cut, serve_err *err)
{
  size_t k = 0, i = b->i + 1;
  *cut = 0;
  for (;; ++i) {
    unsigned char c = i < b->n ? (unsigned char)b->s[i] : 0;
    unsigned u = 0;
    if (i >= b->n)
      return malformed(b, i, err, "the string does not end");
    if (c == '"')
      break;
    if (c < 0x20)
      return malformed(b, i, err, "a control byte inside a string");
    if (c == '\\') {
      const char e = ++i < b->n ? b->s[i] : 0;
      const char *const esc = "\"\\/bfnrt", *const val = "\"\\/\b\f\n\r\t";
      const char *hit = e ? strchr(esc, e) : NULL;
      if (hit) {
        c = (unsigned char)val[hit - esc];
      } else if (e == 'u') {
        int h, d;
        for (d = 1; d <= 4; ++d) {
          if (i + (size_t)d >= b->n || (h = hexval(b->s[i + (size_t)d])) < 0)
            return malformed(b, i + (size_t)d, err, "a bad \\u escape");
          u = u * 16u + (unsigned)h;
        }
        i += 4;
        /* names and words are ASCII: '?' (for NUL too) never matches */
        c = u > 0 && u < 0x80 ? (unsigned char)u : '?';
      } else {
        return malformed(b, i, err, "a bad escape");
      }
    }
    if (k + 1 < cap)
      out[k++] = (char)c;
    else
      *cut = 1;
  }
  out[k] = 0;
  b->i = i + 1;
  return 0;
}

/* Skips the value at b->i whose place is recorded (etc, ready: read later, when the deadline is
 * known), counting brackets outside strings; the reader of the value checks its grammar. */
static int skip_value(jbody *b, serve_err *err)
{
  static unsigned char special[256];
  size_t i = b->i;
  long depth = 0;
  if (!special['[']) {
    special['['] = special['{'] = 1;
    special[']'] = special['}'] = 2;
    special['"'] = 3;
    special[','] = 4;
  }
  for (; i < b->n; ++i) {
    const unsigned char k = special[(unsigned char)b->s[i]];
    if (!k)
      continue;
    if (k == 1) {
      ++depth;
    } else if (k == 2) {
      if (depth == 0)
        break; /* the end of the enclosing object */
      if (--depth == 0) {
        ++i;
        break;
      }
    } else if (k == 3) {
      for (++i; i < b->n && b->s[i] != '"'; ++i)
        if (b->s[i] == '\\')
          ++i;
      if (i >= b->n)
        break;
      if (depth == 0) {
        ++i;
        break;
      }
    } else if (depth == 0) {
      break;
    }
  }
  if (depth > 0 || i > b->n)
    return malformed(b, b->n, err, NULL);
  b->i = i;
  return 0;
}

/* The members of the body, in the order of their bit in the mask of those seen. */
static const char *const json_members[] = {"etc",   "ready",      "objective", "lambda",
                                           "order", "time_limit", "seed",      "backend",
                                           "steps", "search",     "chains",    NULL};

/* The value of option name at b->i: a number or a string, as the option's type says
 * (set_option refuses the other one: numbers given as strings are refused). */
static int json_option(jbody *b, serve_req *r, const char *name, const serve_limits *lim,
                       int *objective, int *lambda_set, serve_err *err)
{
  char str[128];
  optval v;
  int cut;
  memset(&v, 0, sizeof v);
  v.json = 1;
  if (b->i < b->n && b->s[b->i] == '"') {
    if (jstring(b, str, sizeof str, &cut, err))
      return -1;
    v.str = str;
  } else if (b->i < b->n && (b->s[b->i] == '-' || (b->s[b->i] >= '0' && b->s[b->i] <= '9'))) {
    size_t end;
    if (devo__json_number(b->s, b->n, b->i, devo__dec_flags(), &end, &v.num) != 0)
      return malformed(b, end, err, NULL);
    v.is_num = 1;
    b->i = end;
  } else {
    const size_t at = b->i;
    if (skip_value(b, err))
      return -1;
    if (b->i == at)
      return malformed(b, at, err, NULL);
    return refuse(err, name, 0, 0, "%s: must be a number or a string", name);
  }
  return set_option(r, name, &v, lim, objective, lambda_set, err);
}

/* One member "name": value at b->i (its '"'); seen: the mask of the members already read. */
static int json_member(jbody *b, serve_req *r, const serve_limits *lim, unsigned *seen,
                       int *objective, int *lambda_set, serve_err *err)
{
  char name[64];
  const size_t at = b->i;
  int cut, k;
  if (jstring(b, name, sizeof name, &cut, err))
    return -1;
  for (k = 0; json_members[k] && (cut || strcmp(name, json_members[k]) != 0); ++k)
    ;
  if (!json_members[k])
    return refuse(err, NULL, 0, 0,
                  "unknown member '%.64s' (etc, ready, objective, lambda, "
                  "order, time_limit, seed, backend, steps, search, chains)",
                  name);
  if (*seen & (1u << k)) {
    long line, col;
    line_col(b->s, at, &line, &col);
    return refuse(err, name, line, col, "%s: given twice (line %ld, column %ld)", name, line, col);
  }
  *seen |= 1u << k;
  b->i = devo__json_ws(b->s, b->i, b->n);
  if (b->i >= b->n || b->s[b->i] != ':')
    return malformed(b, b->i, err, NULL);
  b->i = devo__json_ws(b->s, b->i + 1, b->n);
  if (k <= 1) { /* etc, ready: their place */
    const size_t start = b->i;
    if (skip_value(b, err))
      return -1;
    if (b->i == start)
      return malformed(b, start, err, NULL);
    if (k == 0) {
      r->etc_at = start;
      r->etc_len = b->i - start;
    } else {
      r->ready_at = start;
      r->ready_len = b->i - start;
    }
    return 0;
  }
  return json_option(b, r, name, lim, objective, lambda_set, err);
}

int serve_req_json_head(const char *body, size_t len, const serve_limits *lim, serve_req *r,
                        serve_err *err)
{
  jbody b;
  unsigned seen = 0;
  int objective = 0, lambda_set = 0;
  defaults(r, lim);
  memset(err, 0, sizeof *err);
  if (len == 0)
    return refuse(err, NULL, 0, 0, "empty body: a JSON object with \"etc\" is needed");
  b.s = body;
  b.n = len;
  b.i = devo__json_ws(body, 0, len);
  if (b.i >= len || body[b.i] != '{')
    return b.i < len && (body[b.i] == '[' || body[b.i] == '"' || body[b.i] == '-' ||
                         (body[b.i] >= '0' && body[b.i] <= '9'))
               ? refuse(err, NULL, 0, 0, "the body must be a JSON object")
               : malformed(&b, b.i, err, NULL);
  b.i = devo__json_ws(body, b.i + 1, len);
  if (b.i < len && body[b.i] == '}')
    ++b.i;
  else
    for (;;) {
      if (b.i >= len || body[b.i] != '"')
        return malformed(&b, b.i, err, NULL);
      if (json_member(&b, r, lim, &seen, &objective, &lambda_set, err))
        return -1;
      b.i = devo__json_ws(body, b.i, len);
      if (b.i < len && body[b.i] == ',') {
        b.i = devo__json_ws(body, b.i + 1, len);
        continue;
      }
      if (b.i < len && body[b.i] == '}') {
        ++b.i;
        break;
      }
      return malformed(&b, b.i, err, NULL);
    }
  b.i = devo__json_ws(body, b.i, len);
  if (b.i < len)
    return malformed(&b, b.i, err, "bytes after the object");
  if (!(seen & 1u))
    return refuse(err, "etc", 0, 0, "etc: missing (the matrix: an array of rows, one per task)");
  return settle_lambda(r, objective, lambda_set, err);
}

/* The ready times of a JSON body: an array of numbers >= 0, one per machine. */
static int json_ready(const char *body, serve_req *r, serve_err *err)
{
  const int m = devo_etc_nmach(r->e);
  const int dec = devo__dec_flags();
  double *w = (double *)malloc((size_t)m * sizeof(double));
  jbody b;
  int k = 0, rc;
  if (!w)
    return refuse(err, "ready", 0, 0, "out of memory");
  b.s = body;
  b.n = r->ready_at + r->ready_len;
  b.i = r->ready_at;
  if (body[b.i] != '[') {
    free(w);
    return refuse(err, "ready", 0, 0, "ready: must be an array of numbers");
  }
  b.i = devo__json_ws(body, b.i + 1, b.n);
  while (b.i < b.n && body[b.i] != ']') {
    size_t end;
    double x = -1.0;
    const int bad = body[b.i] == '-' || (body[b.i] >= '0' && body[b.i] <= '9')
                        ? devo__json_number(body, b.n, b.i, dec, &end, &x)
                        : 1;
    if (bad < 0 || (bad == 0 && k < m && (x < 0.0 || !isfinite(x))) || bad > 0 || k >= m) {
      free(w);
      if (bad < 0)
        return malformed(&b, end, err, NULL);
      return k >= m ? refuse(err, "ready", 0, 0, "ready: more than %d values (one per machine)", m)
                    : refuse(err, "ready", 0, k + 1, "ready value %d: not a finite number >= 0",
                             k + 1);
    }
    w[k++] = x;
    b.i = devo__json_ws(body, end, b.n);
    if (b.i < b.n && body[b.i] == ',')
      b.i = devo__json_ws(body, b.i + 1, b.n);
    else if (b.i >= b.n || body[b.i] != ']') {
      free(w);
      return malformed(&b, b.i, err, NULL);
    }
  }
  rc = set_ready(r, w, k, err);
  free(w);
  return rc;
}

/* The matrix of a JSON body, reading stopped at the deadline (0: none). */
static int json_matrix(const char *body, double deadline, serve_req *r, serve_err *err)
{
  devo__json_at at;
  char msg[256];
  jbody b;
  const int st =
      devo__etc_read_json(&r->e, body + r->etc_at, r->etc_len, deadline, &at, msg, sizeof msg);
  if (st == DEVO_OK)
    return 0;
  b.s = body;
  b.n = r->etc_at + r->etc_len;
  switch (at.what) {
  case DEVO__JSON_SYNTAX:
    return malformed(&b, r->etc_at + at.pos, err, NULL);
  case DEVO__JSON_VALUE:
    return refuse(err, "etc", at.row, at.col, "etc row %ld, column %ld: %s", at.row, at.col, msg);
  case DEVO__JSON_DEADLINE:
    refuse(err, "etc", at.row, 0,
           "the deadline passed while the body was parsed: %zu of %zu bytes of etc read "
           "(%ld rows)",
           at.pos, r->etc_len, at.row - 1);
    err->http = 503;
    err->late = 1;
    err->spare = at.partial;
    return -1;
  case DEVO__JSON_NOMEM:
    refuse(err, "etc", 0, 0, "etc: %s", msg);
    err->http = 503;
    return -1;
  default:
    return refuse(err, "etc", at.row, 0, "etc: %s", msg);
  }
}

/* "a,b,c" ready times from the query string. */
static int query_ready(const char *s, serve_req *r, serve_err *err)
{
  const int m = devo_etc_nmach(r->e);
  double *w = (double *)malloc((size_t)m * sizeof(double));
  const char *p = s;
  int k = 0, rc;
  if (!w)
    return refuse(err, "ready", 0, 0, "out of memory");
  while (*p) {
    char *end;
    size_t span = strcspn(p, ",");
    errno = 0;
    if (k >= m) {
      free(w);
      return refuse(err, "ready", 0, k + 1, "ready: more than %d values (one per machine)", m);
    }
    w[k] = strtod(p, &end);
    if (span == 0 || end != p + span || errno == ERANGE || !isfinite(w[k]) || w[k] < 0 ||
        strspn(p, "0123456789.eE+-") < span) {
      free(w);
      return refuse(err, "ready", 0, k + 1, "ready value %d: not a finite number >= 0", k + 1);
    }
    ++k;
    p += span;
    if (*p == ',' && *++p == 0) {
      free(w);
      return refuse(err, "ready", 0, k + 1, "ready value %d: empty", k + 1);
    }
  }
  rc = set_ready(r, w, k, err);
  free(w);
  return rc;
}

/* "name:row:col: reason" of devo_etc_read: the row and column. */
static void csv_where(serve_err *err)
{
  long row, col;
  if (sscanf(err->msg, "body:%ld:%ld:", &row, &col) == 2) {
    err->row = row;
    err->col = col;
  }
}

int serve_req_csv_head(const char *(*get)(void *ud, const char *key), void *ud, const char *unknown,
                       const serve_limits *lim, serve_req *r, serve_err *err)
{
  int objective = 0, lambda_set = 0, k;
  defaults(r, lim);
  memset(err, 0, sizeof *err);
  r->csv = 1;
  if (unknown)
    return refuse(err, NULL, 0, 0,
                  "unknown query parameter '%.64s' (objective, lambda, order, "
                  "time_limit, seed, backend, steps, search, chains, ready)",
                  unknown);
  for (k = 0; serve_req_params[k]; ++k) {
    optval v;
    const char *s = get(ud, serve_req_params[k]);
    if (!s)
      continue;
    if (strcmp(serve_req_params[k], "ready") == 0) {
      r->ready_query = s;
      continue;
    }
    memset(&v, 0, sizeof v);
    v.str = s;
    if (set_option(r, serve_req_params[k], &v, lim, &objective, &lambda_set, err))
      return -1;
  }
  return settle_lambda(r, objective, lambda_set, err);
}

/* The matrix of a CSV body: the library's reader over the body's bytes, on this thread alone
 * (the other cores are the searches'). */
static int csv_matrix(const char *body, size_t len, serve_req *r, serve_err *err)
{
  int st;
  if (len == 0)
    return refuse(err, NULL, 0, 0, "empty body: a CSV matrix is needed");
  st = devo__etc_read_buf(&r->e, body, len, "body", DEVO_ETC_CSV, 0, 1, NULL, NULL, err->msg,
                          sizeof err->msg);
  if (st != DEVO_OK) {
    err->http = st == DEVO_E_NOMEM ? 503 : 400;
    csv_where(err);
    r->e = NULL;
    return -1;
  }
  return 0;
}

int serve_req_matrix(const char *body, size_t len, double deadline, serve_req *r, serve_err *err)
{
  int rc;
  memset(err, 0, sizeof *err);
  if (r->csv)
    rc = csv_matrix(body, len, r, err) || (r->ready_query && query_ready(r->ready_query, r, err));
  else
    rc = json_matrix(body, deadline, r, err) || (r->ready_len && json_ready(body, r, err));
  if (rc)
    serve_req_free(r);
  return rc ? -1 : 0;
}

int serve_req_json(const char *body, size_t len, const serve_limits *lim, serve_req *r,
                   serve_err *err)
{
  if (serve_req_json_head(body, len, lim, r, err))
    return -1;
  return serve_req_matrix(body, len, 0.0, r, err);
}

int serve_req_csv(const char *body, size_t len, const char *(*get)(void *ud, const char *key),
                  void *ud, const char *unknown, const serve_limits *lim, serve_req *r,
                  serve_err *err)
{
  if (serve_req_csv_head(get, ud, unknown, lim, r, err))
    return -1;
  return serve_req_matrix(body, len, 0.0, r, err);
}

void serve_req_free(serve_req *r)
{
  devo_etc_destroy(r->e);
  r->e = NULL;
}
