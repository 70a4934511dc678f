/* SPDX-License-Identifier: MIT */
/* bench_serve.c: bench-serve, the CPU cost of the phases of a `devo serve` request that are
 * not the search (issue 26): "parse" (serve_req_json of the body that scripts/serve_load.py sends:
 * the matrix as a JSON array of rows), "timeline" (devo_etc_timeline of an assignment) and
 * "answer" (sched_json_write of the whole answer into an open_memstream, as cmd_serve.c's
 * search() writes it). A warm-up, then the median over --reps batches of --iters calls, in
 * microseconds per call. Before timing it checks what it times: the matrix parsed equals the
 * one devo_etc_read reads from the CSV, and every number of the answer, parsed back by cJSON,
 * equals bit for bit the double or integer that was written. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "engine/include/devo.h"
#include "bench/bench_util.h"
#include "tools/sched_json.h"
#include "tools/serve/serve_req.h"
#include "tools/tool_util.h"

static const char usage[] =
    "usage: bench-serve [--matrix etc_data/512x16/u_c_hihi.csv] [--reps 21] [--iters 50]\n"
    "                   [--only parse|timeline|answer] [--arena 1|0]\n"
    "\n"
    "Microseconds per call of the phases of a devo serve request around the search: parse\n"
    "(serve_req_json of the matrix as a JSON body), timeline (devo_etc_timeline) and answer\n"
    "(sched_json_write into an open_memstream): the median of --reps batches (1 .. 999) of\n"
    "--iters calls (1 .. 100000) after a warm-up batch, each output checked first; --only\n"
    "times one phase (for a profiler); --arena 0 parses with cJSON's plain malloc\n"
    "(serve_req_setup not called). malloc is set up as devo serve sets it.\n";

/* What one phase works on. */
typedef struct ctx {
  const char *body;
  size_t body_len;
  const devo_etc *e;
  const int *assign;
  double *start, *finish;
  devo_schedule_result res;
  sched_answer sa;
  serve_limits lim;
} ctx;

static int do_parse(ctx *c)
{
  serve_req r;
  serve_err err;
  if (serve_req_json(c->body, c->body_len, &c->lim, &r, &err) != 0) {
    fprintf(stderr, "bench-serve: the body was refused: %s\n", err.msg);
    return -1;
  }
  serve_req_free(&r);
  return 0;
}

static int do_timeline(ctx *c)
{
  return devo_etc_timeline(c->e, c->assign, DEVO_ORDER_FCFS, c->start, c->finish) == DEVO_OK ? 0
                                                                                             : -1;
}

/* The answer into *out (NULL: freed), as cmd_serve.c's search() writes it. */
static int answer_into(ctx *c, char **out, size_t *len)
{
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  int rc = f && sched_json_write(f, c->e, &c->sa, 1) == 0 ? 0 : -1;
  if (f)
    fclose(f);
  if (out) {
    *out = buf;
    *len = n;
  } else
    free(buf);
  return rc;
}

static int do_answer(ctx *c)
{
  return answer_into(c, NULL, NULL);
}

/* Microseconds per call: the median of reps batches of iters calls, after a warm-up batch. */
static double time_phase(int (*fn)(ctx *), ctx *c, int reps, int iters)
{
  double *ts = (double *)malloc((size_t)reps * sizeof(double)), med, t0;
  int r, i;
  if (!ts)
    return -1.0;
  for (r = -1; r < reps; ++r) {
    t0 = tool_now();
    for (i = 0; i < iters; ++i)
      if (fn(c) != 0) {
        free(ts);
        return -1.0;
      }
    if (r >= 0)
      ts[r] = (tool_now() - t0) / iters * 1e6;
  }
  qsort(ts, (size_t)reps, sizeof(double), bench_cmp_double);
  med = ts[reps / 2];
  free(ts);
  return med;
}

/* The number of member key of object o is exactly x (bit for bit, as cJSON reads it back). */
static int same(const cJSON *o, const char *key, double x)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) && memcmp(&v->valuedouble, &x, sizeof x) == 0;
}

/* Every number of the answer reads back as the value written; -1 (printed) when one does not. */
static int check_answer(ctx *c)
{
  char *text = NULL;
  size_t len = 0;
  cJSON *p, *sched, *asg, *it;
  const int n = devo_etc_ntasks(c->e);
  int t = 0, bad = 0;
  if (answer_into(c, &text, &len) != 0 || !(p = cJSON_ParseWithLength(text, len))) {
    fprintf(stderr, "bench-serve: the answer does not parse\n");
    free(text);
    return -1;
  }
  bad |= !same(p, "makespan", c->res.makespan) || !same(p, "flowtime", c->res.flowtime) ||
         !same(p, "objective", c->res.objective) || !same(p, "elapsed", c->sa.elapsed);
  sched = cJSON_GetObjectItemCaseSensitive(p, "schedule");
  asg = cJSON_GetObjectItemCaseSensitive(p, "assignment");
  bad |= cJSON_GetArraySize(sched) != n || cJSON_GetArraySize(asg) != n;
  cJSON_ArrayForEach(it, sched)
  {
    if (t >= n)
      break;
    bad |= !same(it, "task", t) || !same(it, "machine", c->assign[t]) ||
           !same(it, "start", c->start[t]) || !same(it, "finish", c->finish[t]);
    ++t;
  }
  t = 0;
  cJSON_ArrayForEach(it, asg)
  {
    if (t >= n)
      break;
    bad |= !cJSON_IsNumber(it) || it->valuedouble != c->assign[t];
    ++t;
  }
  cJSON_Delete(p);
  printf("answer: %zu bytes\n", len);
  free(text);
  if (bad)
    fprintf(stderr, "bench-serve: a number of the answer does not read back as written\n");
  return bad ? -1 : 0;
}

/* The body serve_load.py sends, {"etc": [[v, v, ...], ...], "time_limit": 0.05}, with the
 * CSV's own numerals. Returns malloc'd text, NULL when out of memory. */
static char *make_body(const char *csv, size_t len, size_t *out_len)
{
  char *b = (char *)malloc(2 * len + 64), *o = b;
  size_t i;
  int row_open = 0;
  if (!b)
    return NULL;
  o += sprintf(o, "{\"etc\": [");
  for (i = 0; i < len; ++i) {
    char ch = csv[i];
    if (ch == '\r')
      continue;
    if (ch == '\n') {
      if (row_open)
        *o++ = ']';
      row_open = 0;
      continue;
    }
    if (!row_open) {
      if (o[-1] == ']')
        o += sprintf(o, ", ");
      *o++ = '[';
      row_open = 1;
    }
    if (ch == ',')
      o += sprintf(o, ", ");
    else
      *o++ = ch;
  }
  if (row_open)
    *o++ = ']';
  o += sprintf(o, "], \"time_limit\": 0.05}");
  *out_len = (size_t)(o - b);
  return b;
}

int main(int argc, char **argv)
{
  static const char *const phases[] = {"parse", "timeline", "answer", NULL};
  const char *matrix = "etc_data/512x16/u_c_hihi.csv";
  int reps = 21, iters = 50, n, m, t, i, arena = 1, only = -1; /* only: a phase, -1: all */
  char *csv = NULL, *body, err[256], date[64];
  size_t csv_len = 0;
  FILE *f;
  devo_etc *e = NULL;
  int *assign;
  ctx c;
  uint64_t s = 12345;
  const bench_opt opts[] = {BENCH_STR_OPT("matrix", &matrix), BENCH_INT_OPT("reps", &reps, 1, 999),
                            BENCH_INT_OPT("iters", &iters, 1, 100000),
                            BENCH_CHOICE_OPT("only", &only, phases, NULL),
                            BENCH_INT_OPT("arena", &arena, 0, 1)};
  if ((i = bench_args("bench-serve", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return i;
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20); /* as devo serve does */
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  if (arena)
    serve_req_setup();
  f = fopen(matrix, "rb");
  if (!f) {
    fprintf(stderr, "bench-serve: cannot open %s\n", matrix);
    return 2;
  }
  {
    FILE *mem = open_memstream(&csv, &csv_len);
    char chunk[65536];
    size_t got;
    while (mem && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
      fwrite(chunk, 1, got, mem);
    if (mem)
      fclose(mem);
    rewind(f);
  }
  if (devo_etc_read(&e, f, matrix, DEVO_ETC_CSV, 0, NULL, err, sizeof err) != DEVO_OK) {
    fprintf(stderr, "bench-serve: %s\n", err);
    return 2;
  }
  fclose(f);
  n = devo_etc_ntasks(e);
  m = devo_etc_nmach(e);
  body = make_body(csv, csv_len, &c.body_len);
  assign = (int *)malloc((size_t)n * sizeof(int));
  c.start = (double *)malloc((size_t)n * sizeof(double));
  c.finish = (double *)malloc((size_t)n * sizeof(double));
  if (!body || !assign || !c.start || !c.finish)
    return 1;
  for (t = 0; t < n; ++t) { /* any assignment: the writer's cost does not depend on it */
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    assign[t] = (int)((s >> 33) % (uint64_t)m);
  }
  c.body = body;
  c.e = e;
  c.assign = assign;
  c.lim.max_time_limit = 60.0;
  c.lim.default_time_limit = 1.0;
  c.lim.default_backend = DEVO_BACKEND_CPU;
  memset(&c.res, 0, sizeof c.res);
  c.res.makespan = 1.0 / 3.0 * 1e7; /* doubles that need 17 digits, as search results do */
  c.res.flowtime = 0.1 + 0.2;
  c.res.objective = 2.0 / 3.0 * 1e6;
  c.res.heuristic = -1;
  memset(&c.sa, 0, sizeof c.sa);
  c.sa.assign = assign;
  c.sa.start = c.start;
  c.sa.finish = c.finish;
  c.sa.res = &c.res;
  c.sa.lambda = 0.75;
  c.sa.time_limit = 0.05;
  c.sa.seed = 1;
  c.sa.elapsed = 0.0501234567;
  c.sa.deadline_met = 1;
  {
    serve_req r;
    serve_err er;
    if (serve_req_json(body, c.body_len, &c.lim, &r, &er) != 0) {
      fprintf(stderr, "bench-serve: the body was refused: %s\n", er.msg);
      return 1;
    }
    if (devo_etc_ntasks(r.e) != n || devo_etc_nmach(r.e) != m ||
        memcmp(devo_etc_values(r.e), devo_etc_values(e), (size_t)n * m * sizeof(double)) != 0) {
      fprintf(stderr, "bench-serve: the parsed matrix differs from the CSV's\n");
      return 1;
    }
    serve_req_free(&r);
  }
  if (do_timeline(&c) != 0 || check_answer(&c) != 0)
    return 1;
  i = bench_stamp(date, sizeof date);
  printf("bench-serve %s, %d CPUs online: %s (%d x %d), body %zu bytes, median of %d x %d calls, "
         "arena %d\n",
         date, i, matrix, n, m, c.body_len, reps, iters, arena);
  {
    int (*const fns[])(ctx *) = {do_parse, do_timeline, do_answer};
    for (i = 0; i < 3; ++i) {
      double us;
      if (only >= 0 && only != i)
        continue;
      us = time_phase(fns[i], &c, reps, iters);
      if (us < 0)
        return 1;
      printf("%-8s %9.1f us\n", phases[i], us);
    }
  }
  devo_etc_destroy(e);
  free(body);
  free(csv);
  free(assign);
  free(c.start);
  free(c.finish);
  return 0;
}
