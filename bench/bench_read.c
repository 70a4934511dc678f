/* SPDX-License-Identifier: MIT */
/* bench_read.c: bench-read, the reading rate of the ETC readers (issue 21): a valid matrix
 * of about --mb megabytes (default 100) as numeric CSV (values printed with %.17g, as etc-gen
 * writes them) and as the Braun format (one value per line, with its "n m 0" line), read from
 * memory by devo_etc_read, a warm-up then the median of --reps (default 3) reads. Checks that
 * every value read back equals the one printed before it times anything. Prints MB/s. The CSV
 * also without the byte source (devo__etc_read_buf, issue 19): by the serial reader alone
 * ("csv-1t") and by the default choice, in parallel from 1 MiB ("csv-par"). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/include/devo.h"
#include "problems/etc_io.h"
#include "bench/bench_util.h"
#include "tools/tool_util.h"

static const char usage[] =
    "usage: bench-read [--mb 100] [--reps 3]\n"
    "\n"
    "Reading rate (MB/s) of devo_etc_read on a valid 16-column matrix of about --mb megabytes\n"
    "(1 .. 1500), as numeric CSV and as the Braun format, from memory: the median of --reps\n"
    "reads (1 .. 99) after a warm-up, every value checked. The CSV also from its bytes alone:\n"
    "by the serial reader (csv-1t) and by the default choice (csv-par: in parallel from 1 MiB).\n";

/* Reads text (len bytes) once, with devo_etc_read (threads < 0) or else devo__etc_read_buf with
 * that many threads: seconds, or -1 on a failed read (printed). */
static double read_once(const char *text, size_t len, const double *want, size_t cells, int threads)
{
  FILE *f = threads < 0 ? fmemopen((void *)(uintptr_t)text, len, "r") : NULL;
  devo_etc *e = NULL;
  char err[256];
  double t0, t;
  int st;
  if (threads < 0 && !f)
    return -1.0;
  t0 = tool_now();
  if (threads < 0)
    st = devo_etc_read(&e, f, "bench", DEVO_ETC_AUTO, 0, NULL, err, sizeof err);
  else
    st = devo__etc_read_buf(&e, text, len, "bench", DEVO_ETC_AUTO, 0, threads, NULL, NULL, err,
                            sizeof err);
  t = tool_now() - t0;
  if (f)
    fclose(f);
  if (st != DEVO_OK) {
    fprintf(stderr, "bench-read: %s\n", err);
    return -1.0;
  }
  if (want && memcmp(devo_etc_values(e), want, cells * sizeof(double)) != 0) {
    fprintf(stderr, "bench-read: the values read differ from those written\n");
    devo_etc_destroy(e);
    return -1.0;
  }
  devo_etc_destroy(e);
  return t;
}

static int bench(const char *label, const char *text, size_t len, const double *want, size_t cells,
                 int reps, int threads)
{
  double *ts = (double *)malloc((size_t)reps * sizeof(double));
  int k;
  if (!ts || read_once(text, len, want, cells, threads) < 0) /* warm-up, and the check */
    return 1;
  for (k = 0; k < reps; ++k)
    if ((ts[k] = read_once(text, len, NULL, cells, threads)) < 0)
      return 1;
  qsort(ts, (size_t)reps, sizeof(double), bench_cmp_double);
  printf("%-7s %8.1f MB  %6d x %-4d  median %.3f s  %7.1f MB/s  (min %.3f s, %d reps)\n", label,
         (double)len / 1e6, (int)(cells / 16), 16, ts[reps / 2], (double)len / 1e6 / ts[reps / 2],
         ts[0], reps);
  free(ts);
  return 0;
}

int main(int argc, char **argv)
{
  double mb = 100.0, *v;
  int reps = 3, m = 16, n, i;
  size_t cells, cap, len = 0, k;
  char *csv, *braun, date[64];
  const bench_opt opts[] = {BENCH_POS_OPT("mb", &mb, 1500), BENCH_INT_OPT("reps", &reps, 1, 99)};
  if ((i = bench_args("bench-read", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return i;
  /* about 19 bytes a value with %.17g and a separator */
  n = (int)(mb * 1e6 / 19.0 / m);
  n = n < 1 ? 1 : n > DEVO_ETC_MAX_TASKS ? DEVO_ETC_MAX_TASKS : n;
  cells = (size_t)n * (size_t)m;
  v = (double *)malloc(cells * sizeof(double));
  cap = cells * 26 + 64;
  csv = (char *)malloc(cap);
  braun = (char *)malloc(cap);
  if (!v || !csv || !braun)
    return 1;
  srand(7);
  for (k = 0; k < cells; ++k)
    v[k] = 1.0 + (double)rand() / RAND_MAX * 1e6; /* etc-gen's range of values */
  for (k = 0; k < cells; ++k)
    len += (size_t)snprintf(csv + len, cap - len, "%.17g%c", v[k],
                            k % m == (size_t)m - 1 ? '\n' : ',');
  i = bench_stamp(date, sizeof date);
  printf("bench-read %s, %d CPUs online: devo_etc_read from memory\n", date, i);
  if (bench("csv", csv, len, v, cells, reps, -1) || bench("csv-1t", csv, len, v, cells, reps, 1) ||
      bench("csv-par", csv, len, v, cells, reps, 0))
    return 1;
  len = (size_t)snprintf(braun, cap, "%d %d 0\n", n, m);
  for (k = 0; k < cells; ++k)
    len += (size_t)snprintf(braun + len, cap - len, "%.17g\n", v[k]);
  if (bench("braun", braun, len, v, cells, reps, -1))
    return 1;
  free(v);
  free(csv);
  free(braun);
  return 0;
}
