/* SPDX-License-Identifier: MIT */
/* cli_spec.c: the strict parser of `devo experiment` specs (format: docs/experiment.md), the
 * mapping of a spec's algorithm onto solver options, and the spec hash. Every refusal is one
 * message "file:line: what" for the caller to print (exit 2). Nothing here prints. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "experiment.h"
#include "tool_util.h"

#define LINE_MAX_LEN 65536

/* ---- algorithm parameters -> solver options -------------------------------------------------
 * One row per key an [algorithm] section may hold. To add a variant's options (strategies, jDE,
 * presets), add rows here: the parser, the hash, the CSV's params column and the runner follow. */
typedef int (*algo_setter)(devo_solver *s, const char *val, char *msg, size_t msglen);

/* val as a finite number (tool_parse_real, the options' one parser) into *out: DEVO_OK, or
 * DEVO_E_INVALID with msg saying why. */
static int num_arg(const char *val, double *out, char *msg, size_t msglen)
{
  if (tool_parse_real(val, out) == 0)
    return DEVO_OK;
  snprintf(msg, msglen, "expects a finite number, got '%s'", val);
  return DEVO_E_INVALID;
}

static int set_f(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  double v;
  if (num_arg(val, &v, msg, msglen) != DEVO_OK)
    return DEVO_E_INVALID;
  return devo_solver_set_f(s, v);
}

static int set_cr(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  double v;
  if (num_arg(val, &v, msg, msglen) != DEVO_OK)
    return DEVO_E_INVALID;
  return devo_solver_set_cr(s, v);
}

/* The DE variants (devo.h, docs/variants.md): each key changes one field of the solver's
 * variant, checked whole by devo_solver_set_variant; `preset` replaces the whole variant, so it
 * comes before the keys that refine it. */
static int set_strategy(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  if (devo_solver_set_strategy_name(s, val) == DEVO_OK)
    return DEVO_OK;
  snprintf(msg, msglen, "unknown strategy '%s' (rand1bin, best2exp, ...: docs/variants.md)", val);
  return DEVO_E_INVALID;
}

static int set_preset(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  if (devo_solver_set_algorithm(s, val) == DEVO_OK)
    return DEVO_OK;
  snprintf(msg, msglen, "unknown preset '%s' (de, jde, gojde, jade, shade or lshade)", val);
  return DEVO_E_INVALID;
}

static int set_jde(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  devo_variant v;
  devo_solver_get_variant(s, &v);
  if (strcmp(val, "on") == 0 || strcmp(val, "off") == 0) {
    v.jde = strcmp(val, "on") == 0;
    return devo_solver_set_variant(s, &v);
  }
  snprintf(msg, msglen, "expects on or off, got '%s'", val);
  return DEVO_E_INVALID;
}

/* One number field of the variant: which = 0..6 for tau1, tau2, fl, fu, crl, cru, gobl; 7..9
 * for JADE/SHADE's pbest, archive_rate, jade_c (docs/shade.md); 10, 11 for the integers
 * memory_size, np_min. */
static int set_variant_num(devo_solver *s, int which, const char *val, char *msg, size_t msglen)
{
  devo_variant v;
  double x;
  double *field[10];
  if (num_arg(val, &x, msg, msglen) != DEVO_OK)
    return DEVO_E_INVALID;
  devo_solver_get_variant(s, &v);
  field[0] = &v.tau1, field[1] = &v.tau2, field[2] = &v.fl, field[3] = &v.fu;
  field[4] = &v.crl, field[5] = &v.cru, field[6] = &v.gobl;
  field[7] = &v.p, field[8] = &v.arc_rate, field[9] = &v.c;
  if (which >= 10) {
    if (!(x == floor(x) && fabs(x) < 1e9)) {
      snprintf(msg, msglen, "expects an integer, got '%s'", val);
      return DEVO_E_INVALID;
    }
    *(which == 10 ? &v.hist : &v.np_min) = (int)x;
  } else {
    *field[which] = x;
  }
  return devo_solver_set_variant(s, &v);
}

#define DEVO_VARIANT_NUM_SETTER(fn, which)                                                         \
  static int fn(devo_solver *s, const char *val, char *msg, size_t msglen)                         \
  {                                                                                                \
    return set_variant_num(s, which, val, msg, msglen);                                            \
  }
DEVO_VARIANT_NUM_SETTER(set_jde_tau1, 0)
DEVO_VARIANT_NUM_SETTER(set_jde_tau2, 1)
DEVO_VARIANT_NUM_SETTER(set_jde_fl, 2)
DEVO_VARIANT_NUM_SETTER(set_jde_fu, 3)
DEVO_VARIANT_NUM_SETTER(set_jde_crl, 4)
DEVO_VARIANT_NUM_SETTER(set_jde_cru, 5)
DEVO_VARIANT_NUM_SETTER(set_gobl, 6)
DEVO_VARIANT_NUM_SETTER(set_pbest, 7)
DEVO_VARIANT_NUM_SETTER(set_archive_rate, 8)
DEVO_VARIANT_NUM_SETTER(set_jade_c, 9)
DEVO_VARIANT_NUM_SETTER(set_memory_size, 10)
DEVO_VARIANT_NUM_SETTER(set_np_min, 11)
#undef DEVO_VARIANT_NUM_SETTER

static int set_bounds(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  static const char *const rules[] = {"reinit", "clip", "reflect", "midpoint"};
  int k;
  for (k = 0; k < 4; ++k)
    if (strcmp(val, rules[k]) == 0)
      return devo_solver_set_bounds(s, k);
  snprintf(msg, msglen, "unknown rule '%s' (reinit, clip, reflect or midpoint)", val);
  return DEVO_E_INVALID;
}

/* The island model (devo_solver_set_islands): each key changes one of the three settings. */
static int set_island_part(devo_solver *s, int which, const char *val, char *msg, size_t msglen)
{
  const uint64_t hi = which == 0 ? DEVO_ISLANDS_MAX : UINT32_MAX - 1;
  uint64_t x = 0;
  int64_t g;
  int k, topo;
  devo_solver_get_islands(s, &k, &g, &topo);
  if (which == 2) {
    if (strcmp(val, "ring") != 0 && strcmp(val, "full") != 0) {
      snprintf(msg, msglen, "unknown topology '%s' (ring or full)", val);
      return DEVO_E_INVALID;
    }
    topo = strcmp(val, "ring") == 0 ? DEVO_TOPOLOGY_RING : DEVO_TOPOLOGY_FULL;
  } else if (tool_parse_u64(val, &x) != 0 || x < 1 || x > hi) {
    snprintf(msg, msglen, "expects an integer in 1 .. %llu, got '%s'", (unsigned long long)hi, val);
    return DEVO_E_INVALID;
  } else if (which == 0) {
    k = (int)x;
  } else {
    g = (int64_t)x;
  }
  return devo_solver_set_islands(s, k, g, topo);
}

static int set_islands(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  return set_island_part(s, 0, val, msg, msglen);
}
static int set_migration_interval(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  return set_island_part(s, 1, val, msg, msglen);
}
static int set_topology(devo_solver *s, const char *val, char *msg, size_t msglen)
{
  return set_island_part(s, 2, val, msg, msglen);
}

static const struct {
  const char *key;
  algo_setter set;
} algo_keys[] = {
    {"strategy", set_strategy},
    {"f", set_f},
    {"cr", set_cr},
    {"bounds", set_bounds},
    {"preset", set_preset},
    {"jde", set_jde},
    {"jde_tau1", set_jde_tau1},
    {"jde_tau2", set_jde_tau2},
    {"jde_fl", set_jde_fl},
    {"jde_fu", set_jde_fu},
    {"jde_crl", set_jde_crl},
    {"jde_cru", set_jde_cru},
    {"gobl", set_gobl},
    {"pbest", set_pbest},
    {"archive_rate", set_archive_rate},
    {"jade_c", set_jade_c},
    {"memory_size", set_memory_size},
    {"np_min", set_np_min},
    {"islands", set_islands},
    {"migration_interval", set_migration_interval},
    {"topology", set_topology},
};
#define NALGO_KEYS ((int)(sizeof algo_keys / sizeof algo_keys[0]))

static int algo_key_index(const char *key)
{
  int k;
  for (k = 0; k < NALGO_KEYS; ++k)
    if (strcmp(key, algo_keys[k].key) == 0)
      return k;
  return -1;
}

/* Why key cannot go with the variant v (a JADE/SHADE key with an algorithm that does not read
 * it, as devo solve's options refuse it: tools/cli_variant.c), or NULL. */
static const char *family_key_misfit(const char *key, const devo_variant *v)
{
  if (strcmp(key, "pbest") != 0 && strcmp(key, "archive_rate") != 0 && strcmp(key, "jade_c") != 0 &&
      strcmp(key, "memory_size") != 0 && strcmp(key, "np_min") != 0)
    return NULL;
  if (v->adapt == DEVO_ADAPT_NONE)
    return "needs preset jade, shade or lshade (before it in the section)";
  if (strcmp(key, "memory_size") == 0 && v->adapt != DEVO_ADAPT_SHADE)
    return "needs preset shade or lshade";
  if (strcmp(key, "jade_c") == 0 && v->adapt != DEVO_ADAPT_JADE)
    return "needs preset jade";
  if (strcmp(key, "np_min") == 0 && !v->lpsr)
    return "needs preset lshade";
  return NULL;
}

int exp_algo_apply(devo_solver *s, const exp_algo *a, const char *file, int *bad, char *err,
                   size_t errlen)
{
  devo_variant v;
  int i;
  for (i = 0; i < a->nparams; ++i) {
    const exp_param *p = &a->params[i];
    const int k = algo_key_index(p->key);
    char msg[256];
    int st;
    msg[0] = 0;
    st = k < 0 ? DEVO_E_INVALID : algo_keys[k].set(s, p->val, msg, sizeof msg);
    if (st != DEVO_OK) {
      *bad = i;
      snprintf(err, errlen, "%s:%d: %s: %s", file, p->line, p->key,
               msg[0] ? msg : devo_solver_errmsg(s));
      return st;
    }
  }
  devo_solver_get_variant(s, &v);
  for (i = 0; i < a->nparams; ++i) {
    const char *why = family_key_misfit(a->params[i].key, &v);
    if (why) {
      *bad = i;
      snprintf(err, errlen, "%s:%d: %s %s", file, a->params[i].line, a->params[i].key, why);
      return DEVO_E_INVALID;
    }
  }
  return DEVO_OK;
}

/* ---- small helpers --------------------------------------------------------------------------- */

typedef struct parser {
  exp_spec *s;
  const char *file;
  char *err;
  size_t errlen;
  int line;
  int seen_line[32]; /* line of each global key (0 = not given) */
  int trials;
} parser;

static int fail(parser *p, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(parser *p, int line, const char *fmt, ...)
{
  va_list ap;
  int n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, line);
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < p->errlen)
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return 2;
}

static char *trim(char *t)
{
  char *e;
  while (*t == ' ' || *t == '\t')
    ++t;
  e = t + strlen(t);
  while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
    *--e = 0;
  return t;
}

/* Splits v in place at blanks and commas; up to max tokens. Returns the count, or -1 when
 * there are more than max. */
static int split(char *v, char **tok, int max)
{
  int n = 0;
  char *save = NULL, *t;
  for (t = strtok_r(v, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
    if (n == max)
      return -1;
    tok[n++] = t;
  }
  return n;
}

/* An integer written in decimal, or exactly in floating notation (5e6). */
static int parse_i64(const char *t, int64_t *out)
{
  char *end;
  long long v;
  double d;
  errno = 0;
  v = strtoll(t, &end, 10);
  if (end != t && *end == 0 && errno == 0) {
    *out = (int64_t)v;
    return 1;
  }
  errno = 0;
  d = strtod(t, &end);
  if (end != t && *end == 0 && errno == 0 && d == floor(d) && fabs(d) < 9e18) {
    *out = (int64_t)d;
    return 1;
  }
  return 0;
}

static int name_ok(const char *t)
{
  size_t n = strlen(t), i;
  if (n == 0 || n >= EXP_NAME_MAX)
    return 0;
  for (i = 0; i < n; ++i)
    if (!isalnum((unsigned char)t[i]) && !strchr("_.+-:", t[i]))
      return 0;
  return 1;
}

/* ---- global keys ----------------------------------------------------------------------------- */

enum {
  K_OUTPUT,
  K_TRACE,
  K_PROBLEMS,
  K_DIMS,
  K_NP,
  K_TRIALS,
  K_SEEDS,
  K_BUDGET,
  K_TARGET,
  K_TIME_LIMIT,
  K_BACKEND,
  K_THREADS,
  K_DATA_SEED,
  K_CEC_DATA,
  K_PROTOCOL,
  K_MAX_GENS,
  K_RANGES,
  K_LOWER,
  K_UPPER,
  K_COUNT
};
static const char *const global_keys[K_COUNT] = {
    "output",   "trace",    "problems",   "dims",    "np",      "trials",    "seeds",
    "budget",   "target",   "time_limit", "backend", "threads", "data_seed", "cec_data",
    "protocol", "max_gens", "ranges",     "lower",   "upper"};

static int int_list(parser *p, char *v, int **out, int *n, int lo, int hi, const char *what)
{
  char **tok = malloc(sizeof *tok * EXP_LIST_MAX);
  int k, c;
  if (!tok)
    return fail(p, p->line, "out of memory");
  c = split(v, tok, EXP_LIST_MAX);
  if (c <= 0) {
    free(tok);
    return fail(p, p->line, c < 0 ? "more than %d values" : "an empty list (the grid is empty)",
                EXP_LIST_MAX);
  }
  *out = malloc(sizeof **out * (size_t)c);
  for (k = 0; *out && k < c; ++k) {
    int64_t x;
    if (!parse_i64(tok[k], &x) || x < lo || x > hi) {
      int r = fail(p, p->line, "%s: '%s' is not an integer in %d .. %d", what, tok[k], lo, hi);
      free(tok);
      return r;
    }
    (*out)[k] = (int)x;
    for (int j = 0; j < k; ++j)
      if ((*out)[j] == (int)x) {
        int r = fail(p, p->line, "%s: %s given twice", what, tok[k]);
        free(tok);
        return r;
      }
  }
  free(tok);
  if (!*out)
    return fail(p, p->line, "out of memory");
  *n = c;
  return 0;
}

static int parse_seeds(parser *p, char *v)
{
  char **tok = malloc(sizeof *tok * EXP_LIST_MAX);
  int k, c;
  if (!tok)
    return fail(p, p->line, "out of memory");
  c = split(v, tok, EXP_LIST_MAX);
  if (c <= 0) {
    free(tok);
    return fail(p, p->line, c < 0 ? "more than %d seeds" : "an empty list (the grid is empty)",
                EXP_LIST_MAX);
  }
  p->s->seeds = malloc(sizeof *p->s->seeds * (size_t)c);
  for (k = 0; p->s->seeds && k < c; ++k) {
    int j;
    if (tool_parse_u64(tok[k], &p->s->seeds[k]) != 0) {
      int r = fail(p, p->line, "seeds: '%s' is not a decimal integer >= 0", tok[k]);
      free(tok);
      return r;
    }
    for (j = 0; j < k; ++j)
      if (p->s->seeds[j] == p->s->seeds[k]) {
        int r = fail(p, p->line, "seeds: %s given twice", tok[k]);
        free(tok);
        return r;
      }
  }
  free(tok);
  if (!p->s->seeds)
    return fail(p, p->line, "out of memory");
  p->s->nseeds = c;
  return 0;
}

static int builtin_known(const char *name)
{
  int k, n = devo_builtin_count();
  for (k = 0; k < n; ++k) {
    devo_builtin_info bi;
    devo_builtin_get(k, &bi);
    if (strcasecmp(name, bi.name) == 0 || (bi.alias[0] && strcasecmp(name, bi.alias) == 0))
      return 1;
  }
  return 0;
}

static int parse_problems(parser *p, char *v)
{
  char **tok = malloc(sizeof *tok * EXP_LIST_MAX);
  int k, j, c, r = 0;
  if (!tok)
    return fail(p, p->line, "out of memory");
  c = split(v, tok, EXP_LIST_MAX);
  if (c <= 0)
    r = fail(p, p->line, c < 0 ? "too many problems" : "an empty list (the grid is empty)");
  for (k = 0; !r && k < c; ++k) {
    if (!name_ok(tok[k]) || !builtin_known(tok[k]))
      r = fail(p, p->line, "unknown problem '%s' (see devo list-problems)", tok[k]);
    for (j = 0; !r && j < k; ++j)
      if (strcasecmp(tok[j], tok[k]) == 0)
        r = fail(p, p->line, "problem '%s' given twice", tok[k]);
  }
  if (!r) {
    p->s->problems = malloc(sizeof *p->s->problems * (size_t)c);
    if (!p->s->problems)
      r = fail(p, p->line, "out of memory");
  }
  for (k = 0; !r && k < c; ++k)
    snprintf(p->s->problems[k], EXP_NAME_MAX, "%s", tok[k]);
  if (!r)
    p->s->nproblems = c;
  free(tok);
  return r;
}

/* "N", "K*D" or "D:N D:N ..." */
static int parse_budget(parser *p, char *v)
{
  exp_spec *s = p->s;
  char *star = strchr(v, '*'), *tok[256];
  int64_t x;
  int c, k;
  if (star) {
    char *d = trim(star + 1);
    *star = 0;
    if (strcmp(d, "D") != 0 || !parse_i64(trim(v), &x) || x < 1)
      return fail(p, p->line, "budget: expected N, K*D or D:N pairs, got '%s*%s'", v, d);
    s->budget_kind = EXP_BUDGET_PER_D;
    s->budget = x;
    return 0;
  }
  if (!strchr(v, ':')) {
    if (!parse_i64(v, &x) || x < 1)
      return fail(p, p->line, "budget: expected N, K*D or D:N pairs, got '%s'", v);
    s->budget_kind = EXP_BUDGET_FIXED;
    s->budget = x;
    return 0;
  }
  c = split(v, tok, 256);
  if (c <= 0)
    return fail(p, p->line, "budget: expected at most 256 pairs D:N");
  s->budget_d = malloc(sizeof *s->budget_d * (size_t)c);
  s->budget_n = malloc(sizeof *s->budget_n * (size_t)c);
  if (!s->budget_d || !s->budget_n)
    return fail(p, p->line, "out of memory");
  for (k = 0; k < c; ++k) {
    char *colon = strchr(tok[k], ':');
    if (!colon)
      return fail(p, p->line, "budget: '%s' is not a pair D:N", tok[k]);
    *colon = 0;
    if (!parse_i64(tok[k], &s->budget_d[k]) || s->budget_d[k] < 1 ||
        !parse_i64(colon + 1, &s->budget_n[k]) || s->budget_n[k] < 1)
      return fail(p, p->line, "budget: '%s:%s' is not a pair of positive integers D:N", tok[k],
                  colon + 1);
  }
  s->nbudget = c;
  s->budget_kind = EXP_BUDGET_TABLE;
  return 0;
}

static int parse_backends(parser *p, char *v)
{
  static const char *const names[EXP_BK_COUNT] = {"cpu", "gpu", "gpu-multikernel", "cpu-ms",
                                                  "gpu-naive"};
  char *tok[8];
  int c = split(v, tok, 8), k, j;
  if (c <= 0)
    return fail(p, p->line, "backend: %s", c < 0 ? "too many values" : "an empty list");
  for (k = 0; k < c; ++k) {
    for (j = 0; j < EXP_BK_COUNT && strcmp(tok[k], names[j]) != 0; ++j)
      ;
    if (j == EXP_BK_COUNT)
      return fail(p, p->line,
                  "backend: unknown value '%s' (cpu, cpu-ms, gpu, gpu-multikernel or gpu-naive)",
                  tok[k]);
    for (int i = 0; i < p->s->nbackends; ++i)
      if (p->s->backends[i] == j)
        return fail(p, p->line, "backend: '%s' given twice", tok[k]);
    p->s->backends[p->s->nbackends++] = j;
  }
  return 0;
}

static int dup_str(parser *p, char **dst, const char *v)
{
  if (!*v)
    return fail(p, p->line, "an empty value");
  *dst = strdup(v);
  return *dst ? 0 : fail(p, p->line, "out of memory");
}

static int none_or_number(parser *p, const char *key, char *v, double *out, int positive)
{
  if (strcmp(v, "none") == 0)
    return 1;
  if (tool_parse_real(v, out) != 0 || *out < 0 || (positive && *out == 0))
    return fail(p, p->line, "%s: expected %s or 'none', got '%s'", key,
                positive ? "a number > 0" : "a number >= 0", v);
  return 0;
}

/* One side of the search box: one number (every coordinate) or one per coordinate, separated by
 * blanks or commas (devo solve's --lower/--upper list; a spec holds its numbers itself). */
static int parse_box_side(parser *p, const char *key, char *v, double **out, int *n)
{
  char **tok = malloc(sizeof *tok * EXP_LIST_MAX);
  int c, k, r = 0;
  if (!tok)
    return fail(p, p->line, "out of memory");
  c = split(v, tok, EXP_LIST_MAX);
  if (c <= 0)
    r = fail(p, p->line, c < 0 ? "%s: more than %d values" : "%s: an empty list", key,
             EXP_LIST_MAX);
  else if (!(*out = malloc(sizeof **out * (size_t)c)))
    r = fail(p, p->line, "out of memory");
  for (k = 0; !r && k < c; ++k)
    if (tool_parse_real(tok[k], &(*out)[k]) != 0)
      r = fail(p, p->line, "%s: '%s' is not a finite number", key, tok[k]);
  free(tok);
  if (!r)
    *n = c;
  return r;
}

/* A name of devo_problem_set_ranges, tried on a classic function (it takes every name). */
static int parse_ranges(parser *p, const char *v)
{
  devo_problem *q = NULL;
  int ok = devo_problem_create(&q, NULL) == DEVO_OK &&
           devo_problem_set_builtin(q, "sphere", 2, 1, NULL) == DEVO_OK &&
           devo_problem_set_ranges(q, v) == DEVO_OK;
  devo_problem_destroy(q);
  if (!ok)
    return fail(p, p->line, "ranges: unknown value '%s' (cec2005 or default)", v);
  p->s->ranges_line = p->line;
  return dup_str(p, &p->s->ranges, v);
}

static int global_value(parser *p, int key, char *v)
{
  exp_spec *s = p->s;
  int64_t x;
  switch (key) {
  case K_OUTPUT:
    if (!s->output) /* --out wins */
      return dup_str(p, &s->output, v);
    s->output_line = 0;
    return 0;
  case K_TRACE:
    return dup_str(p, &s->trace, v);
  case K_PROBLEMS:
    return parse_problems(p, v);
  case K_DIMS:
    return int_list(p, v, &s->dims, &s->ndims, 1, 10000000, "dims");
  case K_NP:
    return int_list(p, v, &s->nps, &s->nnps, 4, 10000000, "np");
  case K_TRIALS:
    if (!parse_i64(v, &x) || x < 1 || x > EXP_LIST_MAX)
      return fail(p, p->line, "trials: expected an integer in 1 .. %d, got '%s'", EXP_LIST_MAX, v);
    p->trials = (int)x;
    return 0;
  case K_SEEDS:
    return parse_seeds(p, v);
  case K_BUDGET:
    return parse_budget(p, v);
  case K_TARGET:
    return none_or_number(p, "target", v, &s->target, 0) == 2 ? 2 : 0;
  case K_TIME_LIMIT:
    return none_or_number(p, "time_limit", v, &s->time_limit, 1) == 2 ? 2 : 0;
  case K_BACKEND:
    return parse_backends(p, v);
  case K_THREADS:
    if (!parse_i64(v, &x) || x < 1 || x > 1024)
      return fail(p, p->line, "threads: expected an integer in 1 .. 1024, got '%s'", v);
    s->threads = (int)x;
    return 0;
  case K_DATA_SEED:
    if (tool_parse_u64(v, &s->data_seed) != 0)
      return fail(p, p->line, "data_seed: expected a decimal integer >= 0, got '%s'", v);
    return 0;
  case K_CEC_DATA:
    return dup_str(p, &s->cec_data, v);
  case K_MAX_GENS:
    if (!parse_i64(v, &x) || x < 1 || x > 4294967294LL)
      return fail(p, p->line, "max_gens: expected an integer in 1 .. 4294967294, got '%s'", v);
    s->max_gens = x;
    return 0;
  case K_RANGES:
    return parse_ranges(p, v);
  case K_LOWER:
  case K_UPPER:
    if (key == K_LOWER || !s->box_line)
      s->box_line = p->line;
    return key == K_LOWER ? parse_box_side(p, "lower", v, &s->lower, &s->nlower)
                          : parse_box_side(p, "upper", v, &s->upper, &s->nupper);
  case K_PROTOCOL:
    if (strcmp(v, "janssen2024") != 0)
      return fail(p, p->line, "protocol: unknown value '%s' (janssen2024)", v);
    if (s->protocol[0] && strcmp(s->protocol, v) != 0)
      return fail(p, p->line, "protocol %s contradicts --protocol %s", v, s->protocol);
    snprintf(s->protocol, sizeof s->protocol, "%s", v);
    return 0;
  default:
    return fail(p, p->line, "internal: key %d", key);
  }
}

/* ---- lines ----------------------------------------------------------------------------------- */

static int section_line(parser *p, char *t)
{
  exp_spec *s = p->s;
  char *e = strchr(t, ']'), *name;
  exp_algo *a;
  int k;
  if (!e || trim(e + 1)[0])
    return fail(p, p->line, "a section is '[algorithm NAME]'");
  *e = 0;
  t = trim(t + 1);
  if (strncmp(t, "algorithm", 9) != 0 || (t[9] != ' ' && t[9] != '\t'))
    return fail(p, p->line, "unknown section '[%s]' (only [algorithm NAME])", t);
  name = trim(t + 9);
  if (!name_ok(name))
    return fail(p, p->line, "algorithm name '%s': 1 to %d of A-Z a-z 0-9 _ . + - :", name,
                EXP_NAME_MAX - 1);
  for (k = 0; k < s->nalgos; ++k)
    if (strcmp(s->algos[k].name, name) == 0)
      return fail(p, p->line, "algorithm '%s' defined twice (first at line %d)", name,
                  s->algos[k].line);
  a = realloc(s->algos, sizeof *a * (size_t)(s->nalgos + 1));
  if (!a)
    return fail(p, p->line, "out of memory");
  s->algos = a;
  a = &s->algos[s->nalgos++];
  memset(a, 0, sizeof *a);
  snprintf(a->name, sizeof a->name, "%s", name);
  a->line = p->line;
  return 0;
}

static int algo_param(parser *p, const char *key, const char *v)
{
  exp_algo *a = &p->s->algos[p->s->nalgos - 1];
  exp_param *q;
  int k;
  if (algo_key_index(key) < 0) {
    for (k = 0; k < K_COUNT && strcmp(key, global_keys[k]) != 0; ++k)
      ;
    return fail(p, p->line, "unknown algorithm parameter '%s'%s", key,
                k < K_COUNT ? " (grid keys go before the first [algorithm] section)" : "");
  }
  for (k = 0; k < a->nparams; ++k)
    if (strcmp(a->params[k].key, key) == 0)
      return fail(p, p->line, "'%s' given twice (first at line %d)", key, a->params[k].line);
  if (strcmp(key, "preset") == 0 && a->nparams > 0) /* it replaces the whole variant */
    return fail(p, p->line, "preset must come first in its [algorithm] section (after line %d)",
                a->params[0].line);
  if (a->nparams == EXP_PARAMS_MAX)
    return fail(p, p->line, "more than %d parameters", EXP_PARAMS_MAX);
  if (!*v || strlen(v) >= EXP_NAME_MAX || strpbrk(v, ",;= \t\""))
    return fail(p, p->line, "%s: bad value '%s'", key, v);
  q = &a->params[a->nparams++];
  snprintf(q->key, sizeof q->key, "%s", key);
  snprintf(q->val, sizeof q->val, "%s", v);
  q->line = p->line;
  return 0;
}

static int one_line(parser *p, char *raw)
{
  char *t, *eq, *key, *v;
  int k;
  if ((t = strchr(raw, '#')) != NULL)
    *t = 0;
  t = trim(raw);
  if (!*t)
    return 0;
  if (*t == '[')
    return section_line(p, t);
  eq = strchr(t, '=');
  if (!eq)
    return fail(p, p->line, "expected 'key = value' or '[algorithm NAME]'");
  *eq = 0;
  key = trim(t);
  v = trim(eq + 1);
  if (p->s->nalgos > 0)
    return algo_param(p, key, v);
  for (k = 0; k < K_COUNT && strcmp(key, global_keys[k]) != 0; ++k)
    ;
  if (k == K_COUNT)
    return fail(p, p->line, "unknown key '%s'", key);
  if (p->seen_line[k])
    return fail(p, p->line, "'%s' given twice (first at line %d)", key, p->seen_line[k]);
  p->seen_line[k] = p->line;
  if (!*v)
    return fail(p, p->line, "%s: an empty value", key);
  if (k == K_OUTPUT)
    p->s->output_line = p->line;
  if (k == K_TRACE)
    p->s->trace_line = p->line;
  return global_value(p, k, v);
}

static int read_lines(parser *p, FILE *f)
{
  char *buf = malloc(LINE_MAX_LEN);
  int r = 0;
  if (!buf)
    return fail(p, 0, "out of memory");
  while (!r && fgets(buf, LINE_MAX_LEN, f)) {
    size_t n = strlen(buf);
    p->line++;
    if (n == LINE_MAX_LEN - 1 && buf[n - 1] != '\n') {
      r = fail(p, p->line, "line longer than %d bytes", LINE_MAX_LEN - 2);
      break;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
      buf[--n] = 0;
    r = one_line(p, buf);
  }
  if (!r && ferror(f))
    r = fail(p, p->line, "read error: %s", strerror(errno));
  free(buf);
  p->s->last_line = p->line;
  return r;
}

/* ---- whole-spec checks ----------------------------------------------------------------------- */

int64_t exp_budget(const exp_spec *s, int dim)
{
  int k;
  switch (s->budget_kind) {
  case EXP_BUDGET_FIXED:
    return s->budget;
  case EXP_BUDGET_PER_D:
    return s->budget * dim;
  case EXP_BUDGET_TABLE:
    for (k = 0; k < s->nbudget; ++k)
      if (s->budget_d[k] == dim)
        return s->budget_n[k];
    return -1;
  default:
    return 0;
  }
}

static int apply_protocol(parser *p)
{
  exp_spec *s = p->s;
  static const int fixed[] = {K_TRIALS, K_SEEDS, K_TARGET, K_BUDGET};
  int k;
  if (strcmp(s->protocol, "janssen2024") != 0)
    return 0;
  for (k = 0; k < 4; ++k)
    if (p->seen_line[fixed[k]])
      return fail(p, p->seen_line[fixed[k]], "'%s' is set by protocol janssen2024",
                  global_keys[fixed[k]]);
  /* Janssen, Pullan and Liew 2024: 30 trials, error 1e-8, 5e6 evaluations at D = 50 and 1e7 at
   * D = 100, i.e. 100000 * D; --trials N: seeds 1..N instead (a reduced protocol) */
  p->trials = s->protocol_trials > 0 ? s->protocol_trials : 30;
  s->target = 1e-8;
  s->budget_kind = EXP_BUDGET_PER_D;
  s->budget = 100000;
  return 0;
}

/* Options and every (D, NP, budget) on a stand-in problem, so that a bad value is named with its
 * line before anything runs. */
static int check_solver_values(parser *p)
{
  exp_spec *s = p->s;
  devo_problem *q = NULL;
  devo_solver *v = NULL;
  int r = 0, k, j, bad, islands = 1, most = 1, most_algo = 0, isl_line = 0, shade_isl = -1;
  if (devo_problem_create(&q, NULL) != DEVO_OK ||
      devo_problem_set_builtin(q, "sphere", 2, 1, NULL) != DEVO_OK ||
      devo_solver_create(&v, q, NULL) != DEVO_OK) {
    devo_problem_destroy(q);
    return fail(p, 0, "out of memory");
  }
  for (k = 0; !r && k < s->nalgos; ++k) {
    devo_variant var;
    if (exp_algo_apply(v, &s->algos[k], p->file, &bad, p->err, p->errlen) != DEVO_OK)
      r = 2;
    devo_solver_get_islands(v, &islands, NULL, NULL); /* the budget is their total */
    devo_solver_get_variant(v, &var);
    if (islands > 1 && var.adapt != DEVO_ADAPT_NONE && shade_isl < 0)
      shade_isl = k;
    if (islands > most) {
      most = islands;
      most_algo = k;
    }
    devo_solver_set_islands(v, 1, DEVO_MIGRATION_INTERVAL_DEFAULT, DEVO_TOPOLOGY_RING);
  }
  for (j = 0; shade_isl >= 0 && j < s->algos[shade_isl].nparams; ++j) /* the islands line */
    if (strcmp(s->algos[shade_isl].params[j].key, "islands") == 0)
      isl_line = s->algos[shade_isl].params[j].line;
  for (k = 0; !r && shade_isl >= 0 && k < s->nbackends; ++k)
    if (s->backends[k] == EXP_BK_GPU || s->backends[k] == EXP_BK_GPU_MULTI)
      r = fail(p, isl_line,
               "algorithm %s: JADE, SHADE and L-SHADE islands run on the cpu, cpu-ms and "
               "gpu-naive backends, not on %s (the GPU's SHADE kernels cannot take migrants)",
               s->algos[shade_isl].name, exp_backend_name(s->backends[k]));
  for (k = 0; !r && k < s->nnps; ++k)
    if (devo_solver_set_np(v, s->nps[k]) != DEVO_OK)
      r = fail(p, p->seen_line[K_NP], "np: %s", devo_solver_errmsg(v));
  for (k = 0; !r && k < s->ndims; ++k)
    for (j = 0; !r && j < s->nnps; ++j) {
      const int64_t b = exp_budget(s, s->dims[k]);
      const int line = p->seen_line[K_BUDGET] ? p->seen_line[K_BUDGET] : p->seen_line[K_PROTOCOL];
      if (b < 0)
        r = fail(p, line, "budget: no entry for D = %d", s->dims[k]);
      else if (b > 0 && b < s->nps[j])
        r = fail(p, line ? line : s->last_line, "budget %lld at D = %d is below NP = %d",
                 (long long)b, s->dims[k], s->nps[j]);
      else if (b > 0 && b / most < s->nps[j])
        r = fail(p, line ? line : s->last_line,
                 "budget %lld at D = %d over the %d islands of algorithm %s leaves an island "
                 "below NP = %d",
                 (long long)b, s->dims[k], most, s->algos[most_algo].name, s->nps[j]);
    }
  devo_solver_destroy(v);
  devo_problem_destroy(q);
  return r;
}

/* The spec's lower and upper over the problem's own bounds (an absent side keeps them). */
static int apply_box(const exp_spec *s, devo_problem *q, int dim)
{
  double lo, hi, *box;
  int st, j;
  if (s->nlower <= 1 && s->nupper <= 1) {
    if ((st = devo_problem_bounds(q, &lo, &hi)) != DEVO_OK)
      return st;
    return devo_problem_set_box(q, s->nlower ? s->lower[0] : lo, s->nupper ? s->upper[0] : hi);
  }
  if (!(box = malloc(2 * sizeof *box * (size_t)dim)))
    return DEVO_E_NOMEM;
  devo_problem_bounds_vec(q, box, box + dim);
  for (j = 0; j < dim; ++j) { /* check_box: a list has dim values */
    if (s->nlower)
      box[j] = s->lower[s->nlower > 1 ? j : 0];
    if (s->nupper)
      box[dim + j] = s->upper[s->nupper > 1 ? j : 0];
  }
  st = devo_problem_set_bounds(q, box, box + dim);
  free(box);
  return st;
}

int exp_problem_make(const exp_spec *s, int pr, int dim, devo_problem **out, int *line, char *err,
                     size_t errlen)
{
  devo_problem *q = NULL;
  const char *what = "";
  int st;
  *out = NULL;
  *line = 0;
  if ((st = devo_problem_create(&q, NULL)) != DEVO_OK) {
    snprintf(err, errlen, "out of memory");
    return st;
  }
  st = devo_problem_set_builtin(q, s->problems[pr], dim, s->data_seed, s->cec_data);
  if (st == DEVO_OK && s->ranges && (st = devo_problem_set_ranges(q, s->ranges)) != DEVO_OK) {
    *line = s->ranges_line;
    what = "ranges: ";
  }
  if (st == DEVO_OK && (s->nlower || s->nupper) && (st = apply_box(s, q, dim)) != DEVO_OK) {
    *line = s->box_line;
    what = "lower/upper: ";
  }
  if (st != DEVO_OK) {
    snprintf(err, errlen, "%s%s at D = %d: %s", what, s->problems[pr], dim,
             st == DEVO_E_NOMEM ? "out of memory" : devo_problem_errmsg(q));
    devo_problem_destroy(q);
    return st;
  }
  *out = q;
  return DEVO_OK;
}

/* Every (problem, D) made once where that is cheap (D <= 200), so that a dimension a function
 * does not take, or missing CEC files, are named before the run. */
static int check_problems(parser *p)
{
  exp_spec *s = p->s;
  char msg[512];
  int k, j, line, r = 0;
  for (k = 0; !r && k < s->nproblems; ++k)
    for (j = 0; !r && j < s->ndims; ++j) {
      devo_problem *q = NULL;
      if (s->dims[j] > 200)
        continue;
      if (exp_problem_make(s, k, s->dims[j], &q, &line, msg, sizeof msg) != DEVO_OK)
        r = fail(p, line ? line : p->seen_line[K_PROBLEMS], "%s", msg);
      devo_problem_destroy(q);
    }
  return r;
}

/* Whether every coordinate gets the same bounds (a box the GPU kernels take). */
static int box_uniform(const exp_spec *s)
{
  int k;
  for (k = 1; k < s->nlower; ++k)
    if (s->lower[k] != s->lower[0])
      return 0;
  for (k = 1; k < s->nupper; ++k)
    if (s->upper[k] != s->upper[0])
      return 0;
  return 1;
}

/* A per-coordinate side fits one D, and runs where per-coordinate bounds run (devo.h:
 * devo_problem_set_bounds): cpu, cpu-ms and gpu-naive. */
static int check_box(parser *p)
{
  exp_spec *s = p->s;
  const int n[2] = {s->nlower, s->nupper};
  int side, k;
  for (side = 0; side < 2; ++side)
    for (k = 0; n[side] > 1 && k < s->ndims; ++k)
      if (s->dims[k] != n[side])
        return fail(p, p->seen_line[side ? K_UPPER : K_LOWER],
                    "%s: %d values, but D = %d (one value for every coordinate, or one per "
                    "coordinate of a grid of one dimension)",
                    side ? "upper" : "lower", n[side], s->dims[k]);
  for (k = 0; k < s->nbackends && !box_uniform(s); ++k)
    if (s->backends[k] == EXP_BK_GPU || s->backends[k] == EXP_BK_GPU_MULTI)
      return fail(p, s->box_line,
                  "per-coordinate bounds run on the cpu, cpu-ms and gpu-naive backends only, not "
                  "on %s",
                  exp_backend_name(s->backends[k]));
  return 0;
}

static int check_required(parser *p)
{
  exp_spec *s = p->s;
  const int end = s->last_line;
  int k;
  if (!s->output)
    return fail(p, end, "end of file: no 'output' (or --out)");
  if (!s->nproblems)
    return fail(p, end, "end of file: no 'problems' (the grid is empty)");
  if (!s->ndims)
    return fail(p, end, "end of file: no 'dims' (the grid is empty)");
  if (!s->nalgos)
    return fail(p, end, "end of file: no [algorithm NAME] section (the grid is empty)");
  if (p->trials && s->nseeds)
    return fail(p, p->seen_line[K_SEEDS], "give 'trials' or 'seeds', not both");
  if (!p->trials && !s->nseeds)
    return fail(p, end, "end of file: no 'trials' or 'seeds' (the grid is empty)");
  if (s->budget_kind == EXP_BUDGET_NONE && s->time_limit == 0 && s->max_gens == 0)
    return fail(p, end,
                "end of file: no 'budget', 'max_gens' or 'time_limit' (a trial would not end)");
  if (p->trials) {
    s->seeds = malloc(sizeof *s->seeds * (size_t)p->trials);
    if (!s->seeds)
      return fail(p, end, "out of memory");
    for (k = 0; k < p->trials; ++k)
      s->seeds[k] = (uint64_t)k + 1;
    s->nseeds = p->trials;
  }
  if (!s->nnps) {
    s->nps = malloc(sizeof *s->nps);
    if (!s->nps)
      return fail(p, end, "out of memory");
    s->nps[0] = 100;
    s->nnps = 1;
  }
  if (!s->nbackends)
    s->backends[s->nbackends++] = EXP_BK_CPU;
  if (p->seen_line[K_THREADS]) {
    for (k = 0; k < s->nbackends && s->backends[k] != EXP_BK_CPU_MS; ++k)
      ;
    if (k == s->nbackends)
      return fail(p, p->seen_line[K_THREADS],
                  "threads: only the cpu-ms backend takes threads (cpu runs 1)");
  } else {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    s->threads = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
  }
  if (s->trace && strcmp(s->trace, s->output) == 0)
    return fail(p, s->trace_line, "trace: the same file as the output");
  return check_box(p);
}

/* ---- hash ------------------------------------------------------------------------------------ */

static void h_str(uint64_t *h, const char *t)
{
  /* FNV-1a, 64 bits; a separator byte after each field */
  for (; *t; ++t) {
    *h ^= (unsigned char)*t;
    *h *= 1099511628211ULL;
  }
  *h ^= 0x1f;
  *h *= 1099511628211ULL;
}

static void h_num(uint64_t *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void h_num(uint64_t *h, const char *fmt, ...)
{
  char b[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  h_str(h, b);
}

/* Everything that decides a trial's result; not the output paths. */
static uint64_t spec_hash(const exp_spec *s)
{
  uint64_t h = 14695981039346656037ULL;
  int k;
  h_str(&h, "devo-experiment-1");
  for (k = 0; k < s->nalgos; ++k) {
    h_str(&h, s->algos[k].name);
    h_str(&h, s->algos[k].desc);
  }
  for (k = 0; k < s->nproblems; ++k)
    h_str(&h, s->problems[k]);
  for (k = 0; k < s->ndims; ++k)
    h_num(&h, "d%d", s->dims[k]);
  for (k = 0; k < s->nnps; ++k)
    h_num(&h, "n%d", s->nps[k]);
  for (k = 0; k < s->nseeds; ++k)
    h_num(&h, "s%llu", (unsigned long long)s->seeds[k]);
  for (k = 0; k < s->nbackends; ++k)
    h_num(&h, "b%d", s->backends[k]);
  for (k = 0; k < s->ndims; ++k)
    h_num(&h, "e%lld", (long long)exp_budget(s, s->dims[k]));
  h_num(&h, "t%a", s->target);
  h_num(&h, "l%a", s->time_limit);
  for (k = 0; k < s->nbackends; ++k)
    if (s->backends[k] == EXP_BK_CPU_MS)
      h_num(&h, "T%d", s->threads);
  h_num(&h, "D%llu", (unsigned long long)s->data_seed);
  h_str(&h, s->cec_data ? s->cec_data : "");
  h_num(&h, "trace%d", s->trace != NULL);
  /* keys added later go in only when given, so that the files of older specs still resume */
  if (s->max_gens)
    h_num(&h, "G%lld", (long long)s->max_gens);
  if (s->ranges)
    h_num(&h, "R%s", s->ranges);
  for (k = 0; k < s->nlower; ++k)
    h_num(&h, "L%a", s->lower[k]);
  for (k = 0; k < s->nupper; ++k)
    h_num(&h, "U%a", s->upper[k]);
  return h;
}

/* ---- entry ----------------------------------------------------------------------------------- */

static void describe_algos(exp_spec *s)
{
  int k, i;
  for (k = 0; k < s->nalgos; ++k) {
    exp_algo *a = &s->algos[k];
    size_t n = 0;
    a->desc[0] = 0;
    for (i = 0; i < a->nparams; ++i)
      n += (size_t)snprintf(a->desc + n, sizeof a->desc - n, "%s%s=%s", i ? ";" : "",
                            a->params[i].key, a->params[i].val);
  }
}

int exp_spec_load(const char *path, const char *protocol, int trials, const char *out_override,
                  exp_spec *s, char *err, size_t errlen)
{
  parser p;
  FILE *f;
  int r;
  memset(s, 0, sizeof *s);
  memset(&p, 0, sizeof p);
  s->path = path;
  s->target = (double)NAN;
  s->threads = 1;
  s->data_seed = 1;
  p.s = s;
  p.file = path;
  p.err = err;
  p.errlen = errlen;
  if (protocol)
    snprintf(s->protocol, sizeof s->protocol, "%s", protocol);
  s->protocol_trials = trials;
  if (out_override && !(s->output = strdup(out_override)))
    return fail(&p, 0, "out of memory");
  f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s:0: cannot read the spec: %s", path, strerror(errno));
    exp_spec_free(s);
    return 2;
  }
  r = read_lines(&p, f);
  fclose(f);
  if (!r && trials > 0 && !s->protocol[0])
    r = fail(&p, s->last_line,
             "--trials: only with a protocol (without one the spec sets its trials or seeds)");
  if (!r)
    r = apply_protocol(&p);
  if (!r)
    r = check_required(&p);
  if (!r)
    r = check_solver_values(&p);
  if (!r)
    r = check_problems(&p);
  if (r) {
    exp_spec_free(s);
    return r;
  }
  describe_algos(s);
  s->hash = spec_hash(s);
  return 0;
}

void exp_spec_free(exp_spec *s)
{
  free(s->algos);
  free(s->problems);
  free(s->dims);
  free(s->nps);
  free(s->seeds);
  free(s->budget_d);
  free(s->budget_n);
  free(s->cec_data);
  free(s->output);
  free(s->trace);
  free(s->ranges);
  free(s->lower);
  free(s->upper);
  memset(s, 0, sizeof *s);
}

const char *exp_backend_name(int backend)
{
  static const char *const names[EXP_BK_COUNT] = {"cpu", "gpu", "gpu-multikernel", "cpu-ms",
                                                  "gpu-naive"};
  return backend >= 0 && backend < EXP_BK_COUNT ? names[backend] : "?";
}

int64_t exp_grid_size(const exp_spec *s)
{
  return (int64_t)s->nalgos * s->nproblems * s->ndims * s->nnps * s->nseeds * s->nbackends;
}
