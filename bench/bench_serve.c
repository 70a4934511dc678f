/* SPDX-License-Identifier: MIT */
/* bench_serve.c: bench-serve, the CPU cost of the phases of a `devo serve` request that are
 * not the search (issue 26): "parse" (serve_req_json of the body that scripts/serve_load.py sends:
 * the matrix as a JSON array of rows), "csv" and "csv-1t" (the same matrix as CSV, read as
 * `devo schedule` reads it, devo_etc_read's choice of threads, and by one thread as devo serve
 * reads a CSV body), "timeline" (devo_etc_timeline of an assignment) and "answer"
 * (sched_json_write of the whole answer into an open_memstream, as cmd_serve.c's search() writes
 * it). A warm-up, then the median over --reps batches of --iters calls, in microseconds per call,
 * and MB/s for the readers. The matrix is a CSV file (--matrix), or made here (--shape NxM:
 * values 1, or with --values random 17 significant digits, the JSON compact: "[1,1],[1,1]").
 * Before timing it checks what it times: the matrix parsed equals the one devo_etc_read reads
 * from the CSV, and every number of the answer, parsed back by cJSON, equals bit for bit the
 * double or integer that was written. */
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
#include "problems/etc_io.h"
#include "bench/bench_util.h"
#include "tools/sched_json.h"
#include "tools/serve/serve_req.h"
#include "tools/tool_util.h"

static const char usage[] =
    "usage: bench-serve [--matrix etc_data/512x16/u_c_hihi.csv | --shape NxM [--values "
    "ones|random]]\n"
    "                   [--reps 21] [--iters 50] [--only parse|csv|csv-1t|timeline|answer]\n"
    "\n"
    "Microseconds per call of the phases of a devo serve request around the search: parse\n"
    "(serve_req_json of the matrix as a JSON body), csv and csv-1t (the matrix as CSV, read as\n"
    "devo schedule reads it, and by one thread as devo serve does), timeline (devo_etc_timeline)\n"
    "and answer (sched_json_write into an open_memstream): the median of --reps batches\n"
    "(1 .. 999) of --iters calls (1 .. 100000) after a warm-up batch, each output checked first,\n"
    "and MB/s for the readers (of wall and of CPU time: on a shared machine, the second); --only "
    "times one phase (for a profiler). --shape makes the\n"
    "matrix (N tasks, M machines; values 1, or random with 17 digits) and its JSON compact.\n"
    "malloc is set up as devo serve sets it.\n";

/* What one phase works on. */
typedef struct ctx {
  const char *body, *csv;
  size_t body_len, csv_len;
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

/* The CSV by the reader of devo schedule (threads 0: devo_etc_read's choice) or by one thread. */
static int read_csv(ctx *c, int threads)
{
  devo_etc *e = NULL;
  char err[256];
  if (devo__etc_read_buf(&e, c->csv, c->csv_len, "csv", DEVO_ETC_CSV, 0, threads, NULL, NULL, err,
                         sizeof err) != DEVO_OK) {
    fprintf(stderr, "bench-serve: %s\n", err);
    return -1;
  }
  devo_etc_destroy(e);
  return 0;
}

static int do_csv(ctx *c)
{
  return read_csv(c, 0);
}

static int do_csv1(ctx *c)
{
  return read_csv(c, 1);
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
/* The process's CPU seconds (all its threads). */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Microseconds per call: the median of reps batches of iters calls, after a warm-up batch; the
 * median CPU microseconds per call (all threads) into *cpu_us: on a shared machine the wall time
 * holds the waits for a core, the CPU time does not. */
static double time_phase(int (*fn)(ctx *), ctx *c, int reps, int iters, double *cpu_us)
{
  double *ts = (double *)malloc(2 * (size_t)reps * sizeof(double)), med, t0, c0;
  int r, i;
  if (!ts)
    return -1.0;
  for (r = -1; r < reps; ++r) {
    t0 = tool_now();
    c0 = cpu_now();
    for (i = 0; i < iters; ++i)
      if (fn(c) != 0) {
        free(ts);
        return -1.0;
      }
    if (r >= 0) {
      ts[r] = (tool_now() - t0) / iters * 1e6;
      ts[reps + r] = (cpu_now() - c0) / iters * 1e6;
    }
  }
  qsort(ts, (size_t)reps, sizeof(double), bench_cmp_double);
  qsort(ts + reps, (size_t)reps, sizeof(double), bench_cmp_double);
  med = ts[reps / 2];
  *cpu_us = ts[reps + reps / 2];
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
 * CSV's own numerals (compact: no blank after the commas). Returns malloc'd text, NULL when out
 * of memory. */
static char *make_body(const char *csv, size_t len, int compact, size_t *out_len)
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
        o += sprintf(o, compact ? "," : ", ");
      *o++ = '[';
      row_open = 1;
    }
    if (ch == ',')
      o += sprintf(o, compact ? "," : ", ");
    else
      *o++ = ch;
  }
  if (row_open)
    *o++ = ']';
  o += sprintf(o, "], \"time_limit\": 0.05}");
  *out_len = (size_t)(o - b);
  return b;
}

/* The CSV text of the matrix: the file's bytes, or an n x m matrix made here (values 1, or
 * random doubles printed with %.17g). Returns malloc'd text, NULL on failure (printed). */
static char *csv_text(const char *matrix, const char *shape, int random, size_t *len)
{
  char *csv = NULL;
  FILE *mem = open_memstream(&csv, len);
  int n = 0, m = 0, t, j;
  uint64_t s = 777;
  if (!mem)
    return NULL;
  if (shape) {
    char tail;
    if (sscanf(shape, "%dx%d%c", &n, &m, &tail) != 2 || n < 1 || m < 2 ||
        (double)n * m > DEVO_ETC_MAX_CELLS) {
      fprintf(stderr, "bench-serve: --shape %s: NxM is needed (N >= 1, M >= 2)\n", shape);
      fclose(mem);
      free(csv);
      return NULL;
    }
    for (t = 0; t < n; ++t)
      for (j = 0; j < m; ++j) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        if (random)
          fprintf(mem, "%.17g%c", 1.0 + (double)(s >> 11) * 0x1p-53 * 999.0,
                  j + 1 < m ? ',' : '\n');
        else
          fputs(j + 1 < m ? "1," : "1\n", mem);
      }
  } else {
    FILE *f = fopen(matrix, "rb");
    char chunk[65536];
    size_t got;
    if (!f) {
      fprintf(stderr, "bench-serve: cannot open %s\n", matrix);
      fclose(mem);
      free(csv);
      return NULL;
    }
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
      fwrite(chunk, 1, got, mem);
    fclose(f);
  }
  if (fclose(mem) != 0) {
    free(csv);
    return NULL;
  }
  return csv;
}

/* The JSON body's matrix equals the CSV's, bit for bit. */
static int check_parse(ctx *c, const devo_etc *e)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  serve_req r;
  serve_err er;
  if (serve_req_json(c->body, c->body_len, &c->lim, &r, &er) != 0) {
    fprintf(stderr, "bench-serve: the body was refused: %s\n", er.msg);
    return -1;
  }
  if (devo_etc_ntasks(r.e) != n || devo_etc_nmach(r.e) != m ||
      memcmp(devo_etc_values(r.e), devo_etc_values(e), (size_t)n * m * sizeof(double)) != 0) {
    fprintf(stderr, "bench-serve: the parsed matrix differs from the CSV's\n");
    serve_req_free(&r);
    return -1;
  }
  serve_req_free(&r);
  return 0;
}

/* The answer's inputs: an assignment, a result with numbers that need 17 digits. */
static void answer_setup(ctx *c, int *assign, int n, int m)
{
  uint64_t s = 12345;
  int t;
  for (t = 0; t < n; ++t) { /* any assignment: the writer's cost does not depend on it */
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    assign[t] = (int)((s >> 33) % (uint64_t)m);
  }
  c->assign = assign;
  c->lim.max_time_limit = 60.0;
  c->lim.default_time_limit = 1.0;
  c->lim.default_backend = DEVO_BACKEND_CPU;
  memset(&c->res, 0, sizeof c->res);
  c->res.makespan = 1.0 / 3.0 * 1e7; /* doubles that need 17 digits, as search results do */
  c->res.flowtime = 0.1 + 0.2;
  c->res.objective = 2.0 / 3.0 * 1e6;
  c->res.heuristic = -1;
  memset(&c->sa, 0, sizeof c->sa);
  c->sa.assign = assign;
  c->sa.start = c->start;
  c->sa.finish = c->finish;
  c->sa.res = &c->res;
  c->sa.lambda = 0.75;
  c->sa.time_limit = 0.05;
  c->sa.seed = 1;
  c->sa.elapsed = 0.0501234567;
  c->sa.deadline_met = 1;
}

int main(int argc, char **argv)
{
  static const char *const phases[] = {"parse", "csv", "csv-1t", "timeline", "answer", NULL};
  static const char *const kinds[] = {"ones", "random", NULL};
  int (*const fns[])(ctx *) = {do_parse, do_csv, do_csv1, do_timeline, do_answer};
  const char *matrix = "etc_data/512x16/u_c_hihi.csv", *shape = NULL;
  int reps = 21, iters = 50, n, m, i, random = 0, only = -1; /* only: a phase, -1: all */
  char *csv, *body, err[256], date[64];
  size_t csv_len = 0;
  devo_etc *e = NULL;
  int *assign;
  ctx c;
  const bench_opt opts[] = {BENCH_STR_OPT("matrix", &matrix),
                            BENCH_STR_OPT("shape", &shape),
                            BENCH_CHOICE_OPT("values", &random, kinds, NULL),
                            BENCH_INT_OPT("reps", &reps, 1, 999),
                            BENCH_INT_OPT("iters", &iters, 1, 100000),
                            BENCH_CHOICE_OPT("only", &only, phases, NULL)};
  if ((i = bench_args("bench-serve", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return i;
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20); /* as devo serve does */
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  if (!(csv = csv_text(matrix, shape, random, &csv_len)))
    return 2;
  if (devo__etc_read_buf(&e, csv, csv_len, shape ? "shape" : matrix, DEVO_ETC_CSV, 0, 0, NULL, NULL,
                         err, sizeof err) != DEVO_OK) {
    fprintf(stderr, "bench-serve: %s\n", err);
    return 2;
  }
  memset(&c, 0, sizeof c);
  n = devo_etc_ntasks(e);
  m = devo_etc_nmach(e);
  body = make_body(csv, csv_len, shape != NULL, &c.body_len);
  assign = (int *)malloc((size_t)n * sizeof(int));
  c.start = (double *)malloc((size_t)n * sizeof(double));
  c.finish = (double *)malloc((size_t)n * sizeof(double));
  if (!body || !assign || !c.start || !c.finish)
    return 1;
  c.body = body;
  c.csv = csv;
  c.csv_len = csv_len;
  c.e = e;
  answer_setup(&c, assign, n, m);
  if (check_parse(&c, e) != 0 || do_timeline(&c) != 0 || check_answer(&c) != 0)
    return 1;
  i = bench_stamp(date, sizeof date);
  printf("bench-serve %s, %d CPUs online: %s (%d x %d), JSON body %zu bytes, CSV %zu bytes, "
         "median of %d x %d calls\n",
         date, i, shape ? shape : matrix, n, m, c.body_len, csv_len, reps, iters);
  for (i = 0; phases[i]; ++i) {
    double us, cpu = 0.0;
    const size_t bytes = i == 0 ? c.body_len : i <= 2 ? csv_len : 0;
    if (only >= 0 && only != i)
      continue;
    us = time_phase(fns[i], &c, reps, iters, &cpu);
    if (us < 0)
      return 1;
    if (bytes)
      printf("%-8s %11.1f us  %7.1f MB/s  (CPU %11.1f us, %7.1f MB/s of CPU time)\n", phases[i], us,
             (double)bytes / us, cpu, (double)bytes / cpu);
    else
      printf("%-8s %11.1f us\n", phases[i], us);
  }
  devo_etc_destroy(e);
  free(body);
  free(csv);
  free(assign);
  free(c.start);
  free(c.finish);
  return 0;
}
