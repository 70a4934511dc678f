/* SPDX-License-Identifier: MIT */
/* serve_req.c: a `devo serve` request body read into a devo_etc and the search options
 * (serve_req.h). JSON through cJSON; CSV through the library's reader (devo_etc_read), so that
 * a CSV body is read exactly as `devo schedule` reads a file. */
#define _POSIX_C_SOURCE 200809L
#include "serve_req.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const serve_req_params[] = {"objective", "lambda",  "order", "time_limit",
                                        "seed",      "backend", "steps", "search",
                                        "chains",    "ready",   NULL};

/* cJSON's allocations while a body is parsed (a node of 64 bytes per number: 8,700 mallocs and
 * as many frees for 512 x 16, a fifth of the parse) come from a per-thread bump arena, taken and
 * given back whole; outside a parse (json_out's strings, other threads) they are malloc's. The
 * hooks are cJSON's own (cJSON_InitHooks), set once by serve_req_setup. */
typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t used, cap;
  max_align_t data[]; /* cap bytes */
} arena_chunk;

static _Thread_local arena_chunk *tl_arena; /* the newest chunk */
static _Thread_local int tl_parsing;        /* the allocations go to the arena */
static int hooks_set;                       /* serve_req_setup was called */

static void *arena_alloc(size_t n)
{
  arena_chunk *c = tl_arena;
  void *p;
  if (!tl_parsing)
    return malloc(n);
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!c || c->cap - c->used < n) {
    size_t cap = c ? 2 * c->cap : 1u << 16;
    if (cap < n)
      cap = n;
    c = (arena_chunk *)malloc(sizeof *c + cap);
    if (!c)
      return NULL;
    c->next = tl_arena;
    c->used = 0;
    c->cap = cap;
    tl_arena = c;
  }
  p = (char *)c->data + c->used;
  c->used += n;
  return p;
}

static void arena_free(void *p)
{
  if (!tl_parsing)
    free(p);
}

/* Starts a parse of len bytes: the first chunk sized for its nodes (at most one per 2 bytes,
 * "1," being the shortest value; one per 8 is typical: numbers of 15-17 digits). */
static void arena_begin(size_t len)
{
  tl_parsing = 1;
  (void)arena_alloc(len / 16 * 64 + 64);
  if (tl_arena)
    tl_arena->used = 0;
}

/* Gives the arena back: what cJSON_Delete would have freed node by node. */
static void arena_end(void)
{
  while (tl_arena) {
    arena_chunk *next = tl_arena->next;
    free(tl_arena);
    tl_arena = next;
  }
  tl_parsing = 0;
}

void serve_req_setup(void)
{
  cJSON_Hooks h;
  h.malloc_fn = arena_alloc;
  h.free_fn = arena_free;
  cJSON_InitHooks(&h);
  hooks_set = 1;
}

/* One option's value: a JSON number or string, or a query string (str only). */
typedef struct optval {
  const char *str; /* NULL for a JSON number */
  double num;
  int is_num; /* a JSON number */
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

/* The matrix from the JSON array of rows; refusals name the row and column (1-based). */
static int json_matrix(const cJSON *etc, serve_req *r, serve_err *err)
{
  const cJSON *row, *cell;
  long n, m = -1, t = 0, j;
  double *v;
  char msg[256];
  if (!cJSON_IsArray(etc))
    return refuse(err, "etc", 0, 0, "etc: must be an array of rows (arrays of numbers)");
  n = cJSON_GetArraySize(etc);
  if (n < 1 || n > DEVO_ETC_MAX_TASKS)
    return refuse(err, "etc", 0, 0, "etc: %ld rows, must be 1 .. %d tasks", n, DEVO_ETC_MAX_TASKS);
  cJSON_ArrayForEach(row, etc)
  {
    long k = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : -1;
    if (k < 0)
      return refuse(err, "etc", t + 1, 0, "etc row %ld: not an array of numbers", t + 1);
    if (m < 0)
      m = k;
    if (k != m)
      return refuse(err, "etc", t + 1, 0, "etc row %ld: %ld values, row 1 has %ld", t + 1, k, m);
    ++t;
  }
  if (m < 2 || m > DEVO_ETC_MAX_MACHINES || (double)n * (double)m > DEVO_ETC_MAX_CELLS)
    return refuse(err, "etc", 0, 0,
                  "etc: %ld x %ld, must be 2 .. %d machines and at most %d values", n, m,
                  DEVO_ETC_MAX_MACHINES, DEVO_ETC_MAX_CELLS);
  v = (double *)malloc((size_t)n * (size_t)m * sizeof(double));
  if (!v)
    return refuse(err, "etc", 0, 0, "out of memory for a %ld x %ld matrix", n, m);
  t = 0;
  cJSON_ArrayForEach(row, etc)
  {
    j = 0;
    cJSON_ArrayForEach(cell, row)
    {
      if (!cJSON_IsNumber(cell) || !isfinite(cell->valuedouble) || !(cell->valuedouble > 0.0)) {
        free(v);
        return refuse(err, "etc", t + 1, j + 1, "etc row %ld, column %ld: %s", t + 1, j + 1,
                      cJSON_IsNumber(cell) ? "not a finite number > 0" : "not a number");
      }
      v[(size_t)t * (size_t)m + (size_t)j] = cell->valuedouble;
      ++j;
    }
    ++t;
  }
  if (devo_etc_create(&r->e, (int)n, (int)m, v, NULL, msg, sizeof msg) != DEVO_OK) {
    free(v);
    return refuse(err, "etc", 0, 0, "etc: %s", msg);
  }
  free(v);
  return 0;
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

static int json_ready(const cJSON *a, serve_req *r, serve_err *err)
{
  const cJSON *x;
  const int m = devo_etc_nmach(r->e);
  double *w;
  int k = 0, rc;
  if (!cJSON_IsArray(a))
    return refuse(err, "ready", 0, 0, "ready: must be an array of numbers");
  if (cJSON_GetArraySize(a) != m)
    return refuse(err, "ready", 0, 0, "ready: %d values, expected one per machine (%d)",
                  cJSON_GetArraySize(a), m);
  w = (double *)malloc((size_t)m * sizeof(double));
  if (!w)
    return refuse(err, "ready", 0, 0, "out of memory");
  cJSON_ArrayForEach(x, a)
  {
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0) {
      free(w);
      return refuse(err, "ready", 0, k + 1, "ready value %d: not a finite number >= 0", k + 1);
    }
    w[k++] = x->valuedouble;
  }
  rc = set_ready(r, w, k, err);
  free(w);
  return rc;
}

static int json_options(const cJSON *root, serve_req *r, const serve_limits *lim, serve_err *err)
{
  const cJSON *it;
  int objective = 0, lambda_set = 0, rc;
  cJSON_ArrayForEach(it, root)
  {
    optval v;
    if (strcmp(it->string, "etc") == 0 || strcmp(it->string, "ready") == 0)
      continue;
    if (!cJSON_IsNumber(it) && !cJSON_IsString(it))
      return refuse(err, it->string, 0, 0, "%.64s: must be a number or a string", it->string);
    v.str = cJSON_IsString(it) ? it->valuestring : NULL;
    v.num = it->valuedouble;
    v.is_num = cJSON_IsNumber(it);
    rc = set_option(r, it->string, &v, lim, &objective, &lambda_set, err);
    if (rc > 0)
      return refuse(err, NULL, 0, 0,
                    "unknown member '%.64s' (etc, ready, objective, lambda, "
                    "order, time_limit, seed, backend, steps, search, chains)",
                    it->string);
    if (rc < 0)
      return -1;
  }
  return settle_lambda(r, objective, lambda_set, err);
}

int serve_req_json(const char *body, size_t len, const serve_limits *lim, serve_req *r,
                   serve_err *err)
{
  const char *end = NULL;
  cJSON *root;
  const cJSON *etc, *ready;
  int rc = -1;
  long line, col;
  defaults(r, lim);
  memset(err, 0, sizeof *err);
  if (len == 0)
    return refuse(err, NULL, 0, 0, "empty body: a JSON object with \"etc\" is needed");
  arena_begin(len);
  root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
  if (!root) {
    arena_end();
    size_t pos = end && end >= body && end <= body + len ? (size_t)(end - body) : 0;
    line_col(body, pos, &line, &col);
    return refuse(err, NULL, line, col, "malformed JSON at line %ld, column %ld", line, col);
  }
  if (!cJSON_IsObject(root)) {
    refuse(err, NULL, 0, 0, "the body must be a JSON object");
    goto done;
  }
  etc = cJSON_GetObjectItemCaseSensitive(root, "etc");
  ready = cJSON_GetObjectItemCaseSensitive(root, "ready");
  if (!etc) {
    refuse(err, "etc", 0, 0, "etc: missing (the matrix: an array of rows, one per task)");
    goto done;
  }
  if (json_options(root, r, lim, err) || json_matrix(etc, r, err) ||
      (ready && json_ready(ready, r, err)))
    goto done;
  rc = 0;
done:
  if (!hooks_set) /* else the nodes are the arena's, given back at once */
    cJSON_Delete(root);
  arena_end();
  if (rc)
    serve_req_free(r);
  return rc;
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

int serve_req_csv(const char *body, size_t len, const char *(*get)(void *ud, const char *key),
                  void *ud, const char *unknown, const serve_limits *lim, serve_req *r,
                  serve_err *err)
{
  int objective = 0, lambda_set = 0, k, st;
  FILE *in;
  defaults(r, lim);
  memset(err, 0, sizeof *err);
  if (unknown)
    return refuse(err, NULL, 0, 0,
                  "unknown query parameter '%.64s' (objective, lambda, order, "
                  "time_limit, seed, backend, steps, search, chains, ready)",
                  unknown);
  for (k = 0; serve_req_params[k]; ++k) {
    optval v;
    const char *s = strcmp(serve_req_params[k], "ready") ? get(ud, serve_req_params[k]) : NULL;
    if (!s)
      continue;
    v.str = s;
    v.num = 0.0;
    v.is_num = 0;
    if (set_option(r, serve_req_params[k], &v, lim, &objective, &lambda_set, err))
      return -1;
  }
  if (settle_lambda(r, objective, lambda_set, err))
    return -1;
  if (len == 0)
    return refuse(err, NULL, 0, 0, "empty body: a CSV matrix is needed");
  in = fmemopen((void *)(uintptr_t)body, len, "r");
  if (!in)
    return refuse(err, NULL, 0, 0, "cannot read the body: %s", strerror(errno));
  st = devo_etc_read(&r->e, in, "body", DEVO_ETC_CSV, 0, NULL, err->msg, sizeof err->msg);
  fclose(in);
  if (st != DEVO_OK) {
    err->http = st == DEVO_E_NOMEM ? 503 : 400;
    csv_where(err);
    r->e = NULL;
    return -1;
  }
  if (get(ud, "ready") && query_ready(get(ud, "ready"), r, err)) {
    serve_req_free(r);
    return -1;
  }
  return 0;
}

void serve_req_free(serve_req *r)
{
  devo_etc_destroy(r->e);
  r->e = NULL;
}
