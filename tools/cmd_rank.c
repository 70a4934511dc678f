/* SPDX-License-Identifier: MIT */
/* cmd_rank.c: `devo rank RESULTS.csv [PART.csv ...]`: ranks the algorithms of a `devo experiment`
 * results file (or of the parts of one study: the same spec hash, no trial twice; cli_results.c)
 * by Janssen, Pullan and Liew's (2024) U-score per function and in total, tests every pair on
 * every function with the two-sided Mann-Whitney U test and all of them over the functions with
 * the Friedman test (tools/cli_stats.c), and prints Markdown or CSV tables (docs/experiment.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv_rows.h"
#include "experiment.h"
#include "json_out.h"
#include "stats.h"
#include "tool_util.h"

#define CMD       "rank"
#define RNAME_MAX 64
/* the columns of a results file read at most (devo experiment writes 15), and its rows (the
 * trials are counted in an int, their array doubled) */
#define RANK_MAX_COLS 256
#define RANK_MAX_ROWS 100000000L

static const char *const rank_help =
    "usage: devo rank RESULTS.csv [PART.csv ...] [options]\n"
    "\n"
    "Ranks the algorithms of a devo experiment results file (docs/experiment.md), or of the\n"
    "parts of one study taken together (files written by the same spec: the hash of their first\n"
    "lines agrees; a trial found twice, in one file or in two, is refused; the shards of a run,\n"
    "devo experiment --shard K/N, only all N together, each once). A competitor is\n"
    "an algorithm, with its NP and backend when the files have several; a function is a problem,\n"
    "with its D when they have several. Per function, all trials of all competitors are\n"
    "ordered together (those that reached the target before all others, by their time or with\n"
    "--tiebreak evals by their evaluations; the others by their error; ties share their average\n"
    "rank); a competitor's U-score is the sum of its trials' ranks minus n(n + 1)/2 (Janssen,\n"
    "Pullan and Liew 2024), higher is better. Then the two-sided Mann-Whitney U test of every\n"
    "pair on every function (exact for samples of 8 or fewer without ties, else normal with tie\n"
    "and continuity corrections, as SciPy) and the Friedman test over the functions on the\n"
    "U-scores, with mean ranks. Markdown shows the U-scores, Friedman and a count of the pairs'\n"
    "results; --pairs adds every test; CSV holds everything.\n"
    "\n"
    "options:\n"
    "  --format md|csv     Markdown tables (default) or one long CSV table\n"
    "  --alpha A           significance level of the Markdown tests (default 0.05)\n"
    "  --pairs             Markdown: every pairwise test (one row per pair and function)\n"
    "  --tiebreak time|evals  order the trials that reached the target by time (default) or by\n"
    "                      evaluations\n"
    "  --models            instead: Janssen et al.'s table of implementation models: per\n"
    "                      algorithm and NP, rows = backends, columns = functions, the mean wall\n"
    "                      time per trial and the speedup against the backend cpu\n";

typedef struct rtrial {
  int comp, func;
  st_key key;
  double time; /* wall seconds of the trial (for --models) */
} rtrial;

typedef struct rank_data {
  const char *file;   /* the file being read */
  char *label;        /* every file, for the messages and the heading */
  exp_trialset *seen; /* the one check of a set of results files: parts, repeats */
  char (*alg)[RNAME_MAX], (*bk)[RNAME_MAX], (*prob)[RNAME_MAX];
  int *np, *dim;
  int ncomp, nfunc, cap_comp, cap_func;
  rtrial *t;
  int nt, cap_t;
  char (*clabel)[3 * RNAME_MAX], (*flabel)[2 * RNAME_MAX];
  double *u;     /* ncomp x nfunc U-scores */
  double *frank; /* ncomp x nfunc ranks of the competitors per function (1 = best) */
  double *total, *trank;
} rank_data;

enum { C_ALG, C_PROB, C_DIM, C_NP, C_BK, C_ERR, C_TTIME, C_TEVALS, C_TIME, C_SEED, C_N };
static const char *const needed[C_N] = {"algorithm", "problem", "dim",         "np",
                                        "backend",   "error",   "target_time", "target_evals",
                                        "time",      "seed"};

static int num(const char *s, double *out)
{
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return *s && end != s && *end == 0 && errno != ERANGE && isfinite(*out);
}

static int int_field(const char *s, int *out)
{
  char *end;
  long v;
  errno = 0;
  v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < 1 || v > 100000000)
    return 0;
  *out = (int)v;
  return 1;
}

/* Index of a competitor or function with these fields, added when new; -1 out of memory. */
static int intern(rank_data *d, int func, const char *a, int n, const char *b)
{
  int k, *cnt = func ? &d->nfunc : &d->ncomp, *cap = func ? &d->cap_func : &d->cap_comp;
  for (k = 0; k < *cnt; ++k)
    if (func ? (strcmp(d->prob[k], a) == 0 && d->dim[k] == n)
             : (strcmp(d->alg[k], a) == 0 && d->np[k] == n && strcmp(d->bk[k], b) == 0))
      return k;
  if (*cnt == *cap) {
    const int nc = *cap ? 2 * *cap : 16;
    void *p1 = realloc(func ? (void *)d->prob : (void *)d->alg, (size_t)nc * RNAME_MAX);
    void *p3;
    if (!p1)
      return -1;
    if (func)
      d->prob = p1;
    else
      d->alg = p1;
    p3 = realloc(func ? (void *)d->dim : (void *)d->np, (size_t)nc * sizeof(int));
    if (!p3)
      return -1;
    if (func)
      d->dim = p3;
    else
      d->np = p3;
    if (!func) {
      void *p2 = realloc(d->bk, (size_t)nc * RNAME_MAX);
      if (!p2)
        return -1;
      d->bk = p2;
    }
    *cap = nc;
  }
  if (func) {
    snprintf(d->prob[k], RNAME_MAX, "%s", a);
    d->dim[k] = n;
  } else {
    snprintf(d->alg[k], RNAME_MAX, "%s", a);
    snprintf(d->bk[k], RNAME_MAX, "%s", b);
    d->np[k] = n;
  }
  return (*cnt)++;
}

/* One data row; 0, or the exit code after the one-line refusal. */
static int take_row(rank_data *d, const tool_csv_row *r, const int *col, int ncols, int by_evals)
{
  char *const *f = r->f, msg[1024];
  const long row = r->line;
  int dim, np, k;
  double tt = 0.0, err, time;
  uint64_t seed;
  rtrial *t;
  if (r->n != ncols)
    return cli_usage_error(CMD, "%s:%ld: %d fields, the header has %d", d->file, row, r->n, ncols);
  if (!f[col[C_ALG]][0] || strlen(f[col[C_ALG]]) >= RNAME_MAX || !f[col[C_PROB]][0] ||
      strlen(f[col[C_PROB]]) >= RNAME_MAX || !f[col[C_BK]][0] || strlen(f[col[C_BK]]) >= RNAME_MAX)
    return cli_usage_error(CMD, "%s:%ld: an empty or too long algorithm, problem or backend",
                           d->file, row);
  if (!int_field(f[col[C_DIM]], &dim))
    return cli_usage_error(CMD, "%s:%ld: dim '%s' is not a positive integer", d->file, row,
                           f[col[C_DIM]]);
  if (!int_field(f[col[C_NP]], &np))
    return cli_usage_error(CMD, "%s:%ld: np '%s' is not a positive integer", d->file, row,
                           f[col[C_NP]]);
  if (!num(f[col[C_ERR]], &err))
    return cli_usage_error(CMD, "%s:%ld: error '%s' is not a finite number", d->file, row,
                           f[col[C_ERR]]);
  if (!num(f[col[C_TIME]], &time) || time < 0)
    return cli_usage_error(CMD, "%s:%ld: time '%s' is not a number >= 0", d->file, row,
                           f[col[C_TIME]]);
  k = by_evals ? C_TEVALS : C_TTIME;
  if (f[col[k]][0] && (!num(f[col[k]], &tt) || tt < 0))
    return cli_usage_error(CMD, "%s:%ld: %s '%s' is not empty or a number >= 0", d->file, row,
                           needed[k], f[col[k]]);
  if (tool_parse_u64(f[col[C_SEED]], &seed) != 0)
    return cli_usage_error(CMD, "%s:%ld: seed '%s' is not a decimal integer >= 0", d->file, row,
                           f[col[C_SEED]]);
  k = exp_trialset_add(d->seen, row, f[col[C_ALG]], np, f[col[C_BK]], f[col[C_PROB]], dim, seed,
                       msg, sizeof msg);
  if (k)
    return k < 0 ? cli_runtime_error(CMD, "out of memory") : cli_usage_error(CMD, "%s", msg);
  k = by_evals ? C_TEVALS : C_TTIME;
  if (d->nt == d->cap_t) {
    const int nc = d->cap_t ? 2 * d->cap_t : 256;
    rtrial *p = realloc(d->t, sizeof *p * (size_t)nc);
    if (!p)
      return cli_runtime_error(CMD, "out of memory");
    d->t = p;
    d->cap_t = nc;
  }
  t = &d->t[d->nt];
  t->comp = intern(d, 0, f[col[C_ALG]], np, f[col[C_BK]]);
  t->func = intern(d, 1, f[col[C_PROB]], dim, NULL);
  if (t->comp < 0 || t->func < 0)
    return cli_runtime_error(CMD, "out of memory");
  /* reached the target: better than every trial that did not, the sooner the better */
  t->key.cls = f[col[k]][0] ? 1 : 0;
  t->key.v = f[col[k]][0] ? -tt : -err;
  t->time = time;
  d->nt++;
  return 0;
}

static int header(rank_data *d, const tool_csv_row *r, int *col, int *ncols)
{
  int k, j;
  if (r->n > RANK_MAX_COLS)
    return cli_usage_error(CMD, "%s:%ld: more than %d columns", d->file, r->line, RANK_MAX_COLS);
  for (k = 0; k < C_N; ++k) {
    for (j = 0; j < r->n && strcmp(r->f[j], needed[k]) != 0; ++j)
      ;
    if (j == r->n)
      return cli_usage_error(CMD, "%s:%ld: no column '%s' (not a devo experiment results file)",
                             d->file, r->line, needed[k]);
    col[k] = j;
  }
  *ncols = r->n;
  return 0;
}

/* The exit code of an answer st of the check of the set (exp_trialset), its refusal in msg. */
static int set_refusal(int st, const char *msg)
{
  return st < 0 ? cli_runtime_error(CMD, "out of memory")
         : st   ? cli_usage_error(CMD, "%s", msg)
                : 0;
}

/* The file's first line (its spec hash, when devo experiment wrote it) to the check of the set. */
static int part_of_study(rank_data *d, const char *first_line)
{
  char msg[1024];
  return set_refusal(exp_trialset_file(d->seen, d->file, first_line, msg, sizeof msg), msg);
}

/* A comment line (a shard's "# shard K/N") to the check of the set. */
static int comment_line(rank_data *d, const tool_csv_row *r)
{
  char msg[1024];
  return set_refusal(exp_trialset_comment(d->seen, r->line, r->raw, msg, sizeof msg), msg);
}

/* The results through the CSV reader (csv_rows.h): '#' lines are comments (devo experiment's
 * first line, the spec hash), quoted fields are read as RFC 4180 has them. */
static int read_file(rank_data *d, FILE *in, int by_evals)
{
  const tool_csv_opts o = {.max_fields = RANK_MAX_COLS, .max_rows = RANK_MAX_ROWS, .comments = 1};
  tool_csv *c = tool_csv_file(in, d->file, &o);
  tool_csv_row r;
  long last = 0;
  const int nt0 = d->nt;
  int col[C_N], ncols = 0, rc = 0, st = TOOL_CSV_END;
  if (!c)
    return cli_runtime_error(CMD, "out of memory");
  while (!rc && (st = tool_csv_next(c, &r)) == TOOL_CSV_ROW) {
    if (last == 0 && (rc = part_of_study(d, r.comment && r.ended ? r.raw : NULL)) != 0)
      break;
    last = r.line;
    if (!r.ended)
      rc = cli_usage_error(CMD, "%s:%ld: an unfinished last row (no line end)", d->file, r.line);
    else if (r.comment)
      rc = comment_line(d, &r);
    else if (!ncols)
      rc = header(d, &r, col, &ncols);
    else
      rc = take_row(d, &r, col, ncols, by_evals);
  }
  if (!rc && st == TOOL_CSV_NOMEM)
    rc = cli_runtime_error(CMD, "%s", tool_csv_error(c));
  else if (!rc && st < 0)
    rc = cli_usage_error(CMD, "%s", tool_csv_error(c));
  tool_csv_close(c);
  if (!rc && d->nt == nt0)
    rc = cli_usage_error(CMD, "%s:%ld: no trials", d->file, last);
  return rc;
}

/* Labels: the algorithm with /NP=n and /backend when those vary; the problem with /D=d. */
static int make_labels(rank_data *d)
{
  int k, many_np = 0, many_bk = 0, many_d = 0;
  d->clabel = malloc(sizeof *d->clabel * (size_t)d->ncomp);
  d->flabel = malloc(sizeof *d->flabel * (size_t)d->nfunc);
  if (!d->clabel || !d->flabel)
    return -1;
  for (k = 1; k < d->ncomp; ++k) {
    many_np |= d->np[k] != d->np[0];
    many_bk |= strcmp(d->bk[k], d->bk[0]) != 0;
  }
  for (k = 1; k < d->nfunc; ++k)
    many_d |= d->dim[k] != d->dim[0];
  for (k = 0; k < d->ncomp; ++k) {
    char npb[32] = "";
    if (many_np)
      snprintf(npb, sizeof npb, "/NP=%d", d->np[k]);
    snprintf(d->clabel[k], sizeof d->clabel[k], "%s%s%s%s", d->alg[k], npb, many_bk ? "/" : "",
             many_bk ? d->bk[k] : "");
  }
  for (k = 0; k < d->nfunc; ++k) {
    if (many_d)
      snprintf(d->flabel[k], sizeof d->flabel[k], "%s/D=%d", d->prob[k], d->dim[k]);
    else
      snprintf(d->flabel[k], sizeof d->flabel[k], "%s", d->prob[k]);
  }
  return 0;
}

/* Ranks of k values, higher = better, as 1 = best with ties averaged. */
static int rank_best_first(const double *v, int k, size_t stride, double *out, size_t ostride)
{
  st_key *key = malloc(sizeof *key * (size_t)k);
  double *r = malloc(sizeof *r * (size_t)k);
  int j;
  if (!key || !r) {
    free(key);
    free(r);
    return -1;
  }
  for (j = 0; j < k; ++j) {
    key[j].cls = 0;
    key[j].v = v[j * stride];
  }
  st_rank(key, k, r, NULL);
  for (j = 0; j < k; ++j)
    out[j * ostride] = (k + 1.0) - r[j];
  free(key);
  free(r);
  return 0;
}

static int uscores(rank_data *d)
{
  const int C = d->ncomp, F = d->nfunc;
  st_key *key = malloc(sizeof *key * (size_t)d->nt);
  double *r = malloc(sizeof *r * (size_t)d->nt);
  int *n = calloc((size_t)C * F, sizeof *n), *idx = malloc(sizeof *idx * (size_t)d->nt), f, k;
  d->u = calloc((size_t)C * F, sizeof *d->u);
  d->frank = calloc((size_t)C * F, sizeof *d->frank);
  d->total = calloc((size_t)C, sizeof *d->total);
  d->trank = calloc((size_t)C, sizeof *d->trank);
  if (!key || !r || !n || !idx || !d->u || !d->frank || !d->total || !d->trank)
    k = -1;
  else
    k = 0;
  for (f = 0; !k && f < F; ++f) {
    int m = 0, c;
    for (c = 0; c < d->nt; ++c)
      if (d->t[c].func == f) {
        key[m] = d->t[c].key;
        idx[m++] = c;
      }
    st_rank(key, m, r, NULL);
    for (c = 0; c < m; ++c) {
      const int comp = d->t[idx[c]].comp;
      d->u[(size_t)comp * F + f] += r[c];
      n[(size_t)comp * F + f]++;
    }
    for (c = 0; c < C; ++c) {
      const double nc = n[(size_t)c * F + f];
      d->u[(size_t)c * F + f] -= 0.5 * nc * (nc + 1.0);
      d->total[c] += d->u[(size_t)c * F + f];
    }
    rank_best_first(d->u + f, C, (size_t)F, d->frank + f, (size_t)F);
  }
  if (!k)
    rank_best_first(d->total, C, 1, d->trank, 1);
  for (f = 0; !k && f < F; ++f)
    for (int c = 0; c < C; ++c)
      if (n[(size_t)c * F + f] == 0) {
        k = cli_usage_error(CMD, "%s: %s has no trials on %s (an incomplete experiment)", d->label,
                            d->clabel[c], d->flabel[f]);
        f = F;
        break;
      }
  if (k < 0)
    k = cli_runtime_error(CMD, "out of memory");
  free(key);
  free(r);
  free(n);
  free(idx);
  return k;
}

/* Mean wall time of competitor c's trials on function f (every cell has trials: uscores). */
static double mean_time(const rank_data *d, int c, int f)
{
  double sum = 0.0;
  int i, n = 0;
  for (i = 0; i < d->nt; ++i)
    if (d->t[i].comp == c && d->t[i].func == f) {
      sum += d->t[i].time;
      n++;
    }
  return sum / n;
}

/* Keys of competitor c on function f into k; their count. */
static int keys_of(const rank_data *d, int c, int f, st_key *k)
{
  int i, m = 0;
  for (i = 0; i < d->nt; ++i)
    if (d->t[i].comp == c && d->t[i].func == f)
      k[m++] = d->t[i].key;
  return m;
}

static void csv_row(const char *table, const char *func, const char *a, const char *b,
                    const char *stat, double v)
{
  char buf[40];
  /* the labels as the reader takes them back: quoted where they hold a comma or a quote */
  printf("%s,", table);
  tool_csv_put(stdout, func);
  putchar(',');
  tool_csv_put(stdout, a);
  putchar(',');
  tool_csv_put(stdout, b);
  printf(",%s,%s\n", stat, json_fmt_double(buf, sizeof buf, v));
}

static void md_uscores(const rank_data *d)
{
  const int F = d->nfunc;
  int c, f;
  printf("## U-scores (Janssen, Pullan and Liew 2024; higher is better; rank in brackets)\n\n"
         "| algorithm |");
  for (f = 0; f < F; ++f)
    printf(" %s |", d->flabel[f]);
  printf(" total | rank |\n|---|");
  for (f = 0; f <= F + 1; ++f)
    printf("---:|");
  printf("\n");
  for (c = 0; c < d->ncomp; ++c) {
    printf("| %s |", d->clabel[c]);
    for (f = 0; f < F; ++f)
      printf(" %.10g (%g) |", d->u[(size_t)c * F + f], d->frank[(size_t)c * F + f]);
    printf(" %.10g | %g |\n", d->total[c], d->trank[c]);
  }
  printf("\n");
}

/* Every pair of competitors on every function: the Mann-Whitney test, in the order function,
 * then i < j. */
typedef struct pair_test {
  int f, i, j, na, nb;
  st_mwu w;
} pair_test;

/* The tests into *out (*n of them): 0, or the exit code after the message. */
static int pair_tests(const rank_data *d, pair_test **out, int *n)
{
  st_key *a = malloc(sizeof *a * (size_t)d->nt), *b = malloc(sizeof *b * (size_t)d->nt);
  pair_test *t = malloc(sizeof *t * ((size_t)d->nfunc * d->ncomp * d->ncomp / 2 + 1));
  int f, i, j, m = 0, bad = !a || !b || !t;
  for (f = 0; !bad && f < d->nfunc; ++f)
    for (i = 0; !bad && i < d->ncomp; ++i)
      for (j = i + 1; !bad && j < d->ncomp; ++j) {
        pair_test *q = &t[m++];
        q->f = f;
        q->i = i;
        q->j = j;
        q->na = keys_of(d, i, f, a);
        q->nb = keys_of(d, j, f, b);
        bad = st_mannwhitney(a, q->na, b, q->nb, &q->w) != 0;
      }
  free(a);
  free(b);
  if (bad) {
    free(t);
    return cli_runtime_error(CMD, "out of memory");
  }
  *out = t;
  *n = m;
  return 0;
}

/* The better of a test at level alpha: its i or j, or -1 for no significant difference. */
static int better_of(const pair_test *q, double alpha)
{
  if (q->w.p >= alpha)
    return -1;
  return q->w.u1 > 0.5 * q->na * q->nb ? q->i : q->j;
}

/* Markdown: per competitor, how its tests came out (the summary), and with --pairs every test. */
static int md_pairs(const rank_data *d, const pair_test *t, int n, double alpha, int all)
{
  int *cnt = calloc((size_t)d->ncomp * 3, sizeof *cnt), k;
  if (!cnt)
    return cli_runtime_error(CMD, "out of memory");
  for (k = 0; k < n; ++k) {
    const int b = better_of(&t[k], alpha);
    cnt[3 * t[k].i + (b < 0 ? 1 : b == t[k].i ? 0 : 2)]++;
    cnt[3 * t[k].j + (b < 0 ? 1 : b == t[k].j ? 0 : 2)]++;
  }
  printf("## Mann-Whitney U, two-sided, per function: %d tests\n\n"
         "Each algorithm against each other one on each function: significantly better (p < %g),"
         " no significant difference, significantly worse.%s\n\n"
         "| algorithm | better | no difference | worse |\n|---|---:|---:|---:|\n",
         n, alpha, all ? "" : " Every test: --pairs.");
  for (k = 0; k < d->ncomp; ++k)
    printf("| %s | %d | %d | %d |\n", d->clabel[k], cnt[3 * k], cnt[3 * k + 1], cnt[3 * k + 2]);
  printf("\n");
  free(cnt);
  if (!all)
    return 0;
  printf("U(A): pairs of trials where A is better (ties count 1/2); p < %g names the better.\n\n"
         "| function | A | B | U(A) | nA x nB | p | method | better |\n"
         "|---|---|---|---:|---:|---:|---|---|\n",
         alpha);
  for (k = 0; k < n; ++k) {
    const pair_test *q = &t[k];
    const int b = better_of(q, alpha);
    printf("| %s | %s | %s | %.10g | %d x %d | %.4g | %s | %s |\n", d->flabel[q->f],
           d->clabel[q->i], d->clabel[q->j], q->w.u1, q->na, q->nb, q->w.p,
           q->w.exact ? "exact" : "normal", b < 0 ? "-" : d->clabel[b]);
  }
  printf("\n");
  return 0;
}

static void csv_pairs(const rank_data *d, const pair_test *t, int n)
{
  int k;
  for (k = 0; k < n; ++k) {
    const char *fl = d->flabel[t[k].f], *a = d->clabel[t[k].i], *b = d->clabel[t[k].j];
    csv_row("mwu", fl, a, b, "u1", t[k].w.u1);
    csv_row("mwu", fl, a, b, "p", t[k].w.p);
    csv_row("mwu", fl, a, b, "exact", t[k].w.exact);
  }
}

static int friedman(const rank_data *d, int csv)
{
  const int C = d->ncomp, F = d->nfunc;
  double *x = malloc(sizeof *x * (size_t)C * F), *mr = malloc(sizeof *mr * (size_t)C);
  st_friedman fr;
  int c, f, ok;
  if (!x || !mr) {
    free(x);
    free(mr);
    return cli_runtime_error(CMD, "out of memory");
  }
  for (f = 0; f < F; ++f)
    for (c = 0; c < C; ++c)
      x[(size_t)f * C + c] = d->u[(size_t)c * F + f];
  ok = st_friedman_test(x, F, C, mr, &fr) == 0;
  if (!ok && !csv)
    printf("## Friedman test\n\nNot computed: it needs 2 functions and 2 algorithms or more.\n");
  if (ok && csv) {
    csv_row("friedman", "", "", "", "chi2", fr.chi2);
    csv_row("friedman", "", "", "", "df", fr.df);
    csv_row("friedman", "", "", "", "p", fr.p);
    for (c = 0; c < C; ++c)
      csv_row("friedman", "", d->clabel[c], "", "mean_rank", mr[c]);
  } else if (ok) {
    printf("## Friedman test over %d functions (on the U-scores)\n\n"
           "chi2 = %.6g, df = %d, p = %.4g\n\n| algorithm | mean rank (1 = best) |\n|---|---:|\n",
           F, fr.chi2, fr.df, fr.p);
    for (c = 0; c < C; ++c)
      printf("| %s | %.4g |\n", d->clabel[c], mr[c]);
  }
  free(x);
  free(mr);
  return 0;
}

/* Janssen et al.'s Table 3 layout: for each algorithm (and NP), rows = implementation models
 * (backends), columns = functions, the mean wall time per trial and the speedup against the
 * model "cpu" (the standard CPU) when the file has it. */
static int models(const rank_data *d, int csv)
{
  int c, g, f;
  if (csv)
    printf("table,function,algorithm,other,stat,value\n");
  for (g = 0; g < d->ncomp; ++g) {
    int first = 1, base = -1;
    for (c = 0; c < g; ++c) /* one table per (algorithm, NP): at its first competitor */
      if (strcmp(d->alg[c], d->alg[g]) == 0 && d->np[c] == d->np[g])
        break;
    if (c < g)
      continue;
    for (c = g; c < d->ncomp; ++c)
      if (strcmp(d->alg[c], d->alg[g]) == 0 && d->np[c] == d->np[g] && !strcmp(d->bk[c], "cpu"))
        base = c;
    for (c = g; c < d->ncomp; ++c) {
      char name[2 * RNAME_MAX];
      if (strcmp(d->alg[c], d->alg[g]) != 0 || d->np[c] != d->np[g])
        continue;
      snprintf(name, sizeof name, "%s/NP=%d", d->alg[c], d->np[c]);
      if (!csv && first) {
        printf("## Implementation models: %s (mean wall time per trial, s; speedup against "
               "cpu)\n\n| model |",
               name);
        for (f = 0; f < d->nfunc; ++f)
          printf(" %s |", d->flabel[f]);
        printf("\n|---|");
        for (f = 0; f < d->nfunc; ++f)
          printf("---:|");
        printf("\n");
      }
      first = 0;
      if (!csv)
        printf("| %s |", d->bk[c]);
      for (f = 0; f < d->nfunc; ++f) {
        const double m = mean_time(d, c, f), b = base >= 0 ? mean_time(d, base, f) : (double)NAN;
        if (csv) {
          csv_row("models", d->flabel[f], name, d->bk[c], "mean_time", m);
          if (base >= 0)
            csv_row("models", d->flabel[f], name, d->bk[c], "speedup", b / m);
        } else if (base >= 0 && c != base)
          printf(" %.4g (x%.3g) |", m, b / m);
        else
          printf(" %.4g |", m);
      }
      if (!csv)
        printf("\n");
    }
    if (!csv)
      printf("\n");
  }
  return cli_stdout_done(CMD);
}

static void free_data(rank_data *d)
{
  exp_trialset_free(d->seen);
  free(d->label);
  free(d->alg);
  free(d->bk);
  free(d->prob);
  free(d->np);
  free(d->dim);
  free(d->t);
  free(d->clabel);
  free(d->flabel);
  free(d->u);
  free(d->frank);
  free(d->total);
  free(d->trank);
}

static int output(const rank_data *d, int csv, double alpha, int by_evals, int all_pairs)
{
  pair_test *t = NULL;
  int c, f, n = 0, rc;
  if ((rc = pair_tests(d, &t, &n)) != 0)
    return rc;
  if (csv) {
    printf("table,function,algorithm,other,stat,value\n");
    for (c = 0; c < d->ncomp; ++c) {
      for (f = 0; f < d->nfunc; ++f) {
        csv_row("uscore", d->flabel[f], d->clabel[c], "", "u", d->u[(size_t)c * d->nfunc + f]);
        csv_row("uscore", d->flabel[f], d->clabel[c], "", "rank",
                d->frank[(size_t)c * d->nfunc + f]);
      }
      csv_row("uscore", "total", d->clabel[c], "", "u", d->total[c]);
      csv_row("uscore", "total", d->clabel[c], "", "rank", d->trank[c]);
    }
    csv_pairs(d, t, n);
    rc = friedman(d, csv);
  } else {
    printf("# Ranking of %s\n\n%d algorithms, %d functions, %d trials. Per function, trials that "
           "reached the target rank above the others, by %s; the others by error.\n\n",
           d->label, d->ncomp, d->nfunc, d->nt,
           by_evals ? "evaluations (--tiebreak evals)" : "time");
    md_uscores(d);
    rc = friedman(d, csv);
    if (!rc && d->ncomp > 1) {
      printf("\n");
      rc = md_pairs(d, t, n, alpha, all_pairs);
    }
  }
  free(t);
  return rc ? rc : cli_stdout_done(CMD);
}

/* Every file into d (the parts of one study, the shards of one run: exp_trialset checks them),
 * and their names joined into d->label. */
static int read_all(rank_data *d, const char **paths, int npaths, int by_evals)
{
  size_t len = 1;
  int k, rc = 0;
  for (k = 0; k < npaths; ++k)
    len += strlen(paths[k]) + 2;
  if (!(d->label = malloc(len)) || !(d->seen = exp_trialset_new(npaths)))
    return cli_runtime_error(CMD, "out of memory");
  d->label[0] = 0;
  for (k = 0; !rc && k < npaths; ++k) {
    FILE *in = strcmp(paths[k], "-") == 0 ? stdin : fopen(paths[k], "r");
    if (!in)
      return cli_usage_error(CMD, "%s: %s", paths[k], strerror(errno));
    d->file = paths[k];
    rc = read_file(d, in, by_evals);
    if (in != stdin)
      fclose(in);
    strcat(strcat(d->label, k ? ", " : ""), paths[k]);
  }
  if (!rc) { /* every shard of a sharded run, once */
    char msg[1024];
    rc = set_refusal(exp_trialset_end(d->seen, msg, sizeof msg), msg);
  }
  return rc;
}

int cmd_rank(int argc, char **argv)
{
  static const char *const names[] = {"--format=", "--alpha=", "--tiebreak=", "--help",
                                      "--models",  "--pairs",  NULL};
  static const char *const formats[] = {"md", "csv", NULL};
  static const char *const ties[] = {"time", "evals", NULL};
  rank_data d;
  const char *v;
  const char **paths = malloc(sizeof *paths * (size_t)(argc > 1 ? argc : 1));
  double alpha = 0.05;
  int pos = 1, k, csv = 0, by_evals = 0, rc = 0, want_models = 0, all_pairs = 0, npaths = 0;
  if (!paths)
    return cli_runtime_error(CMD, "out of memory");
  while (!rc && (k = cli_next(CMD, argc, argv, &pos, names, &v)) != -1) {
    if (k == -2)
      rc = CLI_USAGE;
    else if (k == -3) {
      for (int j = 0; j < npaths; ++j)
        if (strcmp(v, "-") == 0 && strcmp(paths[j], "-") == 0)
          rc = cli_usage_error(CMD, "'-' (standard input) given twice");
      paths[npaths++] = v;
    } else if (k == 0)
      rc = cli_pick(CMD, "--format", v, formats, &csv);
    else if (k == 1) {
      rc = cli_double(CMD, "--alpha", v, &alpha);
      if (!rc && !(alpha > 0 && alpha < 1))
        rc = cli_usage_error(CMD, "--alpha must be in (0, 1), got %s", v);
    } else if (k == 2)
      rc = cli_pick(CMD, "--tiebreak", v, ties, &by_evals);
    else if (k == 4)
      want_models = 1;
    else if (k == 5)
      all_pairs = 1;
    else {
      fputs(rank_help, stdout);
      free(paths);
      return CLI_OK;
    }
  }
  if (!rc && !npaths)
    rc = cli_usage_error(CMD, "a RESULTS.csv is needed (see devo rank --help)");
  if (!rc && all_pairs && want_models)
    rc = cli_usage_error(CMD, "--pairs: the tests of a ranking, which --models does not print");
  if (rc) {
    free(paths);
    return CLI_USAGE;
  }
  memset(&d, 0, sizeof d);
  rc = read_all(&d, paths, npaths, by_evals);
  if (!rc && make_labels(&d) != 0)
    rc = cli_runtime_error(CMD, "out of memory");
  if (!rc)
    rc = uscores(&d);
  if (!rc)
    rc = want_models ? models(&d, csv) : output(&d, csv, alpha, by_evals, all_pairs);
  free_data(&d);
  free(paths);
  return rc;
}
