/* SPDX-License-Identifier: MIT */
/* test_schedout.c: what a resource manager gets from a schedule: task and machine names kept
 * from the input (and refused when no output could carry them), start and finish times summed
 * as problems/etc.h defines them (checked against sums written here and against
 * devo_etc_evaluate), the source names, exact numbers in the JSON writer, and the outputs of
 * `devo schedule --format csv|json` and `--out -`, parsed back with cJSON. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "tools/json_out.h"

static devo_etc *read_str(const char *text, int flags, char *err, size_t errlen, int *st)
{
  devo_etc *e = NULL;
  FILE *f = tmpfile();
  fputs(text, f);
  rewind(f);
  *st = devo_etc_read(&e, f, "t.csv", DEVO_ETC_AUTO | flags, 0, NULL, err, errlen);
  fclose(f);
  return e;
}

TEST_CASE(names_from_csv)
{
  char err[256] = "";
  int st;
  devo_etc *e = read_str("task,node-a,node-b,\"gpu, big\"\nrender,3,4,1.5\n\"say \"\"hi\"\"\",2,"
                         "2,2\ncompile,1,5,2.25\n\xC3\xA9tude,0.7,2,3\n",
                         0, err, sizeof err, &st);
  CHECKF(st == DEVO_OK, "%s", err);
  CHECK_EQ_INT(devo_etc_ntasks(e), 4);
  CHECK_EQ_INT(devo_etc_nmach(e), 3);
  CHECK(strcmp(devo_etc_machine_name(e, 2), "gpu, big") == 0);
  CHECK(strcmp(devo_etc_task_name(e, 1), "say \"hi\"") == 0);
  CHECK(strcmp(devo_etc_task_name(e, 3), "\xC3\xA9tude") == 0);
  CHECK(devo_etc_values(e)[3 * 3 + 0] == 0.7);
  CHECK(devo_etc_task_name(e, 4) == NULL && devo_etc_task_name(e, -1) == NULL);
  CHECK(devo_etc_machine_name(e, 3) == NULL);
  devo_etc_destroy(e);
  /* names without a header; a header without names; an empty header field names nothing */
  e = read_str("a,1,2\nb,3,4\n", 0, err, sizeof err, &st);
  CHECK(st == DEVO_OK && devo_etc_nmach(e) == 2 && strcmp(devo_etc_task_name(e, 1), "b") == 0);
  CHECK(devo_etc_machine_name(e, 0) == NULL);
  devo_etc_destroy(e);
  e = read_str(",m1,m2\n1,2,3\n4,5,6\n", 0, err, sizeof err, &st);
  CHECK(st == DEVO_OK && devo_etc_nmach(e) == 3 && devo_etc_task_name(e, 0) == NULL);
  CHECK(devo_etc_machine_name(e, 0) == NULL && strcmp(devo_etc_machine_name(e, 2), "m2") == 0);
  devo_etc_destroy(e);
  /* numbers as names only when asked */
  e = read_str("id,x,y\n17,1,2\n18,3,4\n", DEVO_ETC_TASK_NAMES, err, sizeof err, &st);
  CHECKF(st == DEVO_OK, "%s", err);
  CHECK(devo_etc_nmach(e) == 2 && strcmp(devo_etc_task_name(e, 0), "17") == 0);
  CHECK(strcmp(devo_etc_machine_name(e, 1), "y") == 0);
  devo_etc_destroy(e);
  e = read_str("17,1,2\n18,3,4\n", 0, err, sizeof err, &st);
  CHECK(st == DEVO_OK && devo_etc_nmach(e) == 3 && devo_etc_task_name(e, 0) == NULL);
  devo_etc_destroy(e);
}

TEST_CASE(names_refused)
{
  static const struct {
    const char *text, *where;
    int flags;
  } bad[] = {
      {"a,1,2\n7,3,4\n", ":1:1:", 0},                 /* a name, then a number */
      {"1,1,2\nb,3,4\n", ":2:1:", 0},                 /* a number, then a name */
      {"a,1\nb,2\n", ":1:1:", 0},                     /* names and one machine */
      {"a\x01z,1,2\nb,3,4\n", ":1:1:", 0},            /* a control character */
      {"\"a\nb\",1,2\nc,3,4\n", ":2:1:", 0},          /* a line end inside a name */
      {"\xC3(,1,2\nb,3,4\n", ":1:1:", 0},             /* not UTF-8 */
      {"x,m\x7f,n\na,1,2\n", ":1:2:", 0},             /* a machine name with DEL */
      {",1,2\n,3,4\n", ":1:1:", DEVO_ETC_TASK_NAMES}, /* an empty task name */
  };
  size_t k;
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    char err[256] = "";
    int st;
    devo_etc *e = read_str(bad[k].text, bad[k].flags, err, sizeof err, &st);
    CHECKF(st == DEVO_E_PARSE && e == NULL, "case %zu: status %d", k, st);
    CHECKF(strstr(err, bad[k].where) != NULL, "case %zu: '%s' lacks %s", k, err, bad[k].where);
  }
  { /* a 256-byte name is refused, 255 bytes are kept */
    char text[700], err[256] = "";
    int st;
    devo_etc *e;
    memset(text, 'n', 256);
    strcpy(text + 256, ",1,2\n");
    e = read_str(text, 0, err, sizeof err, &st);
    CHECK(st == DEVO_E_PARSE && strstr(err, "longer than 255"));
    memset(text, 'n', 255);
    strcpy(text + 255, ",1,2\n");
    e = read_str(text, 0, err, sizeof err, &st);
    CHECK(st == DEVO_OK && strlen(devo_etc_task_name(e, 0)) == 255);
    devo_etc_destroy(e);
  }
}

/* The names' blocks go through the caller's allocator too: each allocation of a named read
 * failing gives DEVO_E_NOMEM with nothing leaked; set_names likewise leaves e unchanged. Many
 * rows make the name blocks grow several times. */
TEST_CASE(names_allocation_failures)
{
  char *text = (char *)malloc(64 * 1024), *p;
  long n;
  int finished = 0, t;
  p = text + sprintf(text, "task,m0,m1\n");
  for (t = 0; t < 600; ++t)
    p += sprintf(p, "task-%d,%d,%d\n", t, t + 1, t + 2);
  for (n = 1; n < 200 && !finished; ++n) {
    tc_fail_alloc fa = {0, 0, 0, 1};
    const devo_allocator al = tc_fail_allocator(&fa);
    devo_etc *e = NULL;
    char err[256] = "";
    FILE *f = tmpfile();
    int st;
    fputs(text, f);
    rewind(f);
    fa.fail_at = n;
    st = devo_etc_read(&e, f, "t.csv", DEVO_ETC_CSV, 0, &al, err, sizeof err);
    fclose(f);
    if (fa.calls >= n) {
      CHECKF(st == DEVO_E_NOMEM && e == NULL, "allocation %ld failed but status %d (%s)", n, st,
             err);
    } else {
      const char *tn[600], *mn[2] = {"a", "b"};
      CHECKF(st == DEVO_OK, "%s", err);
      CHECK(strcmp(devo_etc_task_name(e, 599), "task-599") == 0);
      CHECK(strcmp(devo_etc_machine_name(e, 1), "m1") == 0);
      for (t = 0; t < 600; ++t)
        tn[t] = "x";
      fa.calls = 0;
      fa.fail_at = 2; /* the second block of the new names */
      CHECK(devo_etc_set_names(e, tn, mn, err, sizeof err) == DEVO_E_NOMEM);
      CHECK(strcmp(devo_etc_task_name(e, 599), "task-599") == 0);
      finished = 1;
    }
    devo_etc_destroy(e);
    CHECKF(fa.live == 0, "allocation %ld: %ld blocks leaked", n, fa.live);
  }
  CHECK(finished);
  free(text);
}

TEST_CASE(set_names)
{
  const double v[6] = {1, 2, 3, 4, 5, 6};
  const char *tasks[3] = {"a", NULL, "c"}, *mach[2] = {"m0", "m1"}, *bad[2] = {"ok", "x\ty"};
  devo_etc *e = NULL;
  char err[256];
  CHECK(devo_etc_create(&e, 3, 2, v, NULL, err, sizeof err) == DEVO_OK);
  CHECK(devo_etc_task_name(e, 0) == NULL);
  CHECK(devo_etc_set_names(e, tasks, mach, err, sizeof err) == DEVO_OK);
  CHECK(strcmp(devo_etc_task_name(e, 2), "c") == 0 && devo_etc_task_name(e, 1) == NULL);
  CHECK(strcmp(devo_etc_machine_name(e, 1), "m1") == 0);
  /* a bad name leaves the names as they were */
  CHECK(devo_etc_set_names(e, NULL, bad, err, sizeof err) == DEVO_E_INVALID);
  CHECK(strstr(err, "machine name 1") != NULL);
  CHECK(strcmp(devo_etc_task_name(e, 0), "a") == 0);
  CHECK(devo_etc_set_names(e, NULL, NULL, err, sizeof err) == DEVO_OK);
  CHECK(devo_etc_task_name(e, 0) == NULL && devo_etc_machine_name(e, 0) == NULL);
  CHECK(devo_etc_set_names(NULL, NULL, NULL, err, sizeof err) == DEVO_E_INVALID);
  devo_etc_destroy(e);
}

/* Start and finish times against sums written here: FCFS in task order, SPT by (time, index);
 * the flowtime of devo_etc_evaluate is their sum machine by machine, and under FCFS the
 * makespan is the largest finish, bit for bit. */
TEST_CASE(timeline_matches_the_objective)
{
  enum { N = 300, M = 7 };
  double v[N * M], w[M], start[N], finish[N], ms, ft;
  int a[N], t, j, order, rep;
  uint64_t s = 12345;
  devo_etc *e = NULL;
  char err[256];
  for (rep = 0; rep < 5; ++rep) {
    for (t = 0; t < N * M; ++t) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      /* few distinct values: SPT ties must go by task index */
      v[t] = (double)(1 + (s >> 40) % 9) * 0.1;
    }
    for (t = 0; t < N; ++t) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      a[t] = (int)((s >> 33) % M);
    }
    for (j = 0; j < M; ++j)
      w[j] = 0.25 * j;
    CHECK(devo_etc_create(&e, N, M, v, NULL, err, sizeof err) == DEVO_OK);
    CHECK(devo_etc_set_ready(e, w, err, sizeof err) == DEVO_OK);
    for (order = 0; order < 2; ++order) {
      double flow = 0.0, top = 0.0;
      CHECK(devo_etc_timeline(e, a, order, start, finish) == DEVO_OK);
      CHECK(devo_etc_evaluate(e, a, order, &ms, &ft) == DEVO_OK);
      for (j = 0; j < M; ++j) {
        /* the machine's tasks in run order, by selection: independent of the library's sort */
        int done[N] = {0}, k, cnt = 0;
        double c = w[j], fsum = 0.0;
        for (;;) {
          int pick = -1;
          for (k = 0; k < N; ++k)
            if (a[k] == j && !done[k] &&
                (pick < 0 || (order == DEVO_ORDER_SPT && v[k * M + j] < v[pick * M + j])))
              pick = k;
          if (pick < 0)
            break;
          done[pick] = 1;
          CHECK(start[pick] == c);
          c += v[pick * M + j];
          CHECK(finish[pick] == c);
          fsum += c;
          cnt++;
        }
        flow += fsum;
        top = c > top ? c : top;
      }
      CHECK(flow == ft);
      if (order == DEVO_ORDER_FCFS)
        CHECK(top == ms);
      else
        CHECK_CLOSE(top, ms, 1e-12, 0.0);
    }
    a[0] = M;
    CHECK(devo_etc_timeline(e, a, 0, start, finish) == DEVO_E_INVALID);
    CHECK(devo_etc_timeline(e, NULL, 0, start, finish) == DEVO_E_INVALID);
    a[0] = 0;
    CHECK(devo_etc_timeline(e, a, 2, start, finish) == DEVO_E_INVALID);
    CHECK(devo_etc_timeline(e, a, 0, NULL, NULL) == DEVO_OK);
    devo_etc_destroy(e);
  }
}

TEST_CASE(source_names)
{
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_HEURISTIC), "heuristic") == 0);
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_HEURISTIC_LS), "heuristic+ls") == 0);
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_DE), "de") == 0);
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_DE_LS), "de+ls") == 0);
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_ILS), "ils") == 0);
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_IG), "ig") == 0);
  CHECK(strcmp(devo_schedule_source_name(DEVO_SCHED_FROM_ENUMERATION), "enumeration") == 0);
  CHECK(devo_schedule_source_name(-1) == NULL && devo_schedule_source_name(7) == NULL);
  CHECK(strcmp(devo_schedule_search_name(DEVO_SEARCH_AUTO), "auto") == 0);
  CHECK(strcmp(devo_schedule_search_name(DEVO_SEARCH_PIPELINE), "pipeline") == 0);
  CHECK(strcmp(devo_schedule_search_name(DEVO_SEARCH_IG), "ig") == 0);
  CHECK(strcmp(devo_schedule_search_name(DEVO_SEARCH_GPU_LS), "gpu-ls") == 0);
  CHECK(devo_schedule_search_name(-1) == NULL && devo_schedule_search_name(4) == NULL);
  CHECK(strcmp(devo_status_name(DEVO_OPTIMAL), "DEVO_OPTIMAL") == 0);
  CHECK(strcmp(devo_status_name(DEVO_GAP_REACHED), "DEVO_GAP_REACHED") == 0);
  CHECK(strcmp(devo_status_name(DEVO_ENUMERATED), "DEVO_ENUMERATED") == 0);
  CHECK(DEVO_OPTIMAL > 0 && DEVO_GAP_REACHED > 0 && DEVO_ENUMERATED > 0);
}

/* Every double the writer prints reads back bit for bit (cJSON's own printer changed 18% of
 * random doubles); non-finite values are null; the whole output parses. */
TEST_CASE(json_numbers_round_trip)
{
  static const double special[] = {
      0.1 + 0.2, 1.0 / 3.0, 5e-324, 1.7976931348623157e308, -0.0, 1e22, 123456789.12345678};
  uint64_t s = 99;
  char b[40];
  long k, bad = 0;
  size_t i;
  for (i = 0; i < sizeof special / sizeof special[0]; ++i) {
    json_fmt_double(b, sizeof b, special[i]);
    CHECKF(strtod(b, NULL) == special[i], "%.17g printed as %s", special[i], b);
  }
  for (k = 0; k < 200000; ++k) {
    double x;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    memcpy(&x, &s, sizeof x); /* any bit pattern */
    if (!isfinite(x))
      continue;
    json_fmt_double(b, sizeof b, x);
    bad += strtod(b, NULL) != x;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(strcmp(json_fmt_double(b, sizeof b, (double)NAN), "null") == 0);
  CHECK(strcmp(json_fmt_double(b, sizeof b, -(double)INFINITY), "null") == 0);
  {
    FILE *f = tmpfile();
    json_out j;
    char *text;
    long len;
    cJSON *p;
    CHECK(json_init(&j, f) == 0);
    json_obj(&j);
    json_kv_num(&j, "nan", (double)NAN);
    json_kv_str(&j, "s", "q\"\\\n\x01\xC3\xA9");
    json_kv_uint(&j, "seed", UINT64_MAX);
    json_key(&j, "a b");
    json_arr(&j);
    json_num(&j, 0.1 + 0.2);
    json_null(&j);
    json_end_arr(&j);
    json_end_obj(&j);
    CHECK(json_done(&j) == 0);
    len = ftell(f);
    rewind(f);
    text = (char *)calloc(1, (size_t)len + 1);
    CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    p = cJSON_Parse(text);
    CHECKF(p != NULL, "%s", text);
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(p, "nan")));
    CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(p, "s")->valuestring, "q\"\\\n\x01\xC3\xA9") ==
          0);
    CHECK(strstr(text, "\"seed\":18446744073709551615") != NULL);
    CHECK(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "a b"), 0)->valuedouble ==
          0.1 + 0.2);
    cJSON_Delete(p);
    free(text);
  }
}

/* The reference text of a double, written here apart from json_out.c: printf's %.15g when it
 * reads back exactly, else %.17g (glibc's printf and strtod round correctly). */
static void ref_fmt(char *b, size_t len, double x)
{
  snprintf(b, len, "%.15g", x);
  if (strtod(b, NULL) != x)
    snprintf(b, len, "%.17g", x);
}

/* json_fmt_double formats most numbers with integer arithmetic of its own (issue 26): its text
 * is exactly printf's, for doubles of every kind that reaches it: schedule-like times (sums of
 * ETC values), binary fractions (exact ties in the 16th or 18th digit), neighbours of powers of
 * 10 and of 2 (where the decimal exponent or the gap below changes), both ends of its own range
 * (1e-4 .. 1e15), integers, zeros, and any bit pattern. */
TEST_CASE(json_numbers_as_printf)
{
  uint64_t s = 2026;
  char got[40], want[40];
  long k, bad = 0;
  int i;
  for (k = 0; k < 300000; ++k) {
    double x;
    uint64_t bits;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    switch (k % 8) {
    case 0: /* any bit pattern */
      memcpy(&x, &s, sizeof x);
      break;
    case 1: /* any mantissa, exponents 2^-20 .. 2^60 */
      bits = (s >> 12) | ((uint64_t)(1003 + (s >> 4) % 80) << 52);
      memcpy(&x, &bits, sizeof x);
      break;
    case 2: /* binary fractions */
      x = (double)(s >> 40) / (double)(1ull << (s % 40));
      break;
    case 3: /* next to a power of 10 */
      x = nextafter(pow(10.0, (double)((int)(s % 26) - 7)), (s >> 9) & 1 ? 0.0 : 1e300);
      break;
    case 4: /* next to a power of 2 */
      x = nextafter(ldexp(1.0, (int)(s % 90) - 40), (s >> 9) & 1 ? 0.0 : 1e300);
      break;
    case 5: /* decimals of a few digits, as a person writes them */
      x = (double)(s % 100000000) / pow(10.0, (double)(s >> 60));
      break;
    case 6: /* start and finish times: sums of ETC-like values */
      x = 0.0;
      for (i = 0; i < (int)(s % 40); ++i)
        x += 1.0 + (double)((s >> (i % 20)) % 1000000007) / 7.0;
      break;
    default: /* integers */
      x = (double)(s >> (11 + s % 50));
      break;
    }
    if ((s >> 63) & 1)
      x = -x;
    if (!isfinite(x))
      continue;
    json_fmt_double(got, sizeof got, x);
    ref_fmt(want, sizeof want, x);
    if (strcmp(got, want) != 0 && ++bad <= 5)
      fprintf(stderr, "%.17g: written %s, printf %s\n", x, got, want);
  }
  CHECK_EQ_INT(bad, 0);
  {
    static const double edge[] = {
        0.0,      1e-4, 1e15, 999999999999999.9, 99999999999999.99, 0.1 + 0.2, 1.0, 0.5, 2.5e-5,
        123456.5, 0.05, 1e-5};
    for (i = 0; i < (int)(sizeof edge / sizeof edge[0]); ++i) {
      json_fmt_double(got, sizeof got, edge[i]);
      ref_fmt(want, sizeof want, edge[i]);
      CHECKF(strcmp(got, want) == 0, "%.17g: written %s, printf %s", edge[i], got, want);
      json_fmt_double(got, sizeof got, -edge[i]);
      ref_fmt(want, sizeof want, -edge[i]);
      CHECKF(strcmp(got, want) == 0, "%.17g: written %s, printf %s", -edge[i], got, want);
    }
  }
}

/* Integers as printf writes them, the extremes too, and a text longer than the writer's block
 * reaches the stream whole and in order. */
TEST_CASE(json_integers_and_long_text)
{
  static const int64_t iv[] = {0, 1, -1, 9, 10, -10, 1234567890123, INT64_MAX, INT64_MIN};
  char *text = NULL, want[64], *long_s = (char *)malloc(20001);
  size_t len = 0, i, off = 0;
  FILE *f = open_memstream(&text, &len);
  json_out j;
  CHECK(f != NULL && long_s != NULL);
  memset(long_s, 'a', 20000);
  long_s[20000] = 0;
  CHECK(json_init(&j, f) == 0);
  json_arr(&j);
  for (i = 0; i < sizeof iv / sizeof iv[0]; ++i)
    json_int(&j, iv[i]);
  json_uint(&j, UINT64_MAX);
  for (i = 0; i < 3000; ++i) /* past one block */
    json_int(&j, (int64_t)i * 7919);
  json_str(&j, long_s); /* past one block at once */
  json_end_arr(&j);
  CHECK(json_done(&j) == 0);
  fclose(f);
  CHECK(text[off++] == '[');
  for (i = 0; i < sizeof iv / sizeof iv[0]; ++i) {
    snprintf(want, sizeof want, "%lld,", (long long)iv[i]);
    CHECKF(strncmp(text + off, want, strlen(want)) == 0, "%s at %zu", want, off);
    off += strlen(want);
  }
  CHECK(strncmp(text + off, "18446744073709551615,", 21) == 0);
  off += 21;
  for (i = 0; i < 3000; ++i) {
    snprintf(want, sizeof want, "%lld,", (long long)i * 7919);
    CHECKF(strncmp(text + off, want, strlen(want)) == 0, "%s at %zu", want, off);
    off += strlen(want);
  }
  CHECK(text[off] == '"' && strspn(text + off + 1, "a") == 20000);
  CHECK(strcmp(text + off + 20001, "\"]\n") == 0);
  free(text);
  free(long_s);
}

static const char *write_named(void)
{
  static char path[128];
  FILE *f;
  snprintf(path, sizeof path, "/tmp/devo_schedout_%ld.csv", (long)getpid());
  f = fopen(path, "w");
  fputs("task,node-a,node-b,\"gpu, big\"\nrender,3,4,1.5\n\"say \"\"hi\"\"\",2,2,2\n"
        "compile,1,5,2.25\n\xC3\xA9tude,0.7,2,3\n",
        f);
  fclose(f);
  return path;
}

/* --format csv: a header, one row per task with its name, machine name, start and finish, as
 * the library's timeline gives them; --out - is standard output. The summary beside it carries
 * the lower bound and the gap; this instance (3^4 assignments) is solved by enumeration. */
TEST_CASE(cli_csv_output)
{
  const char *path = write_named();
  char cmd[512], *out = NULL, *err = NULL;
  const char *outs[2] = {"", "--out -"};
  int k;
  for (k = 0; k < 2; ++k) {
    snprintf(cmd, sizeof cmd, "%s schedule %s --time-limit 0.1 --format csv --order spt %s",
             tc_devo_bin(), path, outs[k]);
    CHECK(tc_run(cmd, &out, &err) == 0);
    CHECK(out && strncmp(out, "task,machine,start,finish\n", 26) == 0);
    CHECK(out && strstr(out, "\n\"say \"\"hi\"\"\",") != NULL);
    CHECK(out && strstr(out, "\n\xC3\xA9tude,") != NULL);
    CHECK(err && strstr(err, "stop         DEVO_ENUMERATED") != NULL);
    CHECK(err && strstr(err, "\nlower bound  ") != NULL);
    CHECK(err && strstr(err, "\ngap          0 (at most 0% above the optimum)\n") != NULL);
    CHECK(err && strstr(err, "\nsearch       none\n") != NULL);
    if (out) { /* every row: a known task, a known machine, finish = start + its time */
      static const char *const tn[4] = {"render", "\"say \"\"hi\"\"\"", "compile", "\xC3\xA9tude"};
      static const char *const mn[3] = {"node-a", "node-b", "\"gpu, big\""};
      static const double v[12] = {3, 4, 1.5, 2, 2, 2, 1, 5, 2.25, 0.7, 2, 3};
      char *line = strchr(out, '\n') + 1;
      int rows = 0;
      while (*line) {
        int t, j;
        for (t = 0; t < 4 && strncmp(line, tn[t], strlen(tn[t])) != 0; ++t)
          ;
        CHECK(t < 4);
        if (t == 4)
          break;
        line += strlen(tn[t]) + 1;
        for (j = 0; j < 3 && strncmp(line, mn[j], strlen(mn[j])) != 0; ++j)
          ;
        CHECK(j < 3);
        if (j == 3)
          break;
        {
          char *end;
          double st = strtod(line + strlen(mn[j]) + 1, &end), fi = strtod(end + 1, &end);
          CHECK(fi == st + v[t * 3 + j] && st >= 0.0);
          line = end + 1;
        }
        rows++;
      }
      CHECK_EQ_INT(rows, 4);
    }
    free(out);
    free(err);
  }
  remove(path);
}

/* --json: parses; names and escapes survive; machines' loads, completions and counts agree with
 * the schedule; the version, seed, limit, stop reason, bound and deadline are there: on this
 * tiny instance the enumeration's optimum is the bound, and the gap is 0. */
TEST_CASE(cli_json_output)
{
  const char *path = write_named();
  char cmd[512], *out = NULL;
  cJSON *j;
  snprintf(cmd, sizeof cmd, "%s schedule %s --time-limit 0.1 --json --seed 7", tc_devo_bin(), path);
  CHECK(tc_run(cmd, &out, NULL) == 0);
  j = out ? cJSON_Parse(out) : NULL;
  CHECKF(j != NULL, "%s", out ? out : "");
  if (j) {
    const cJSON *sched = cJSON_GetObjectItemCaseSensitive(j, "schedule");
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(j, "per_machine");
    double load[3] = {0, 0, 0}, top = 0.0;
    int count[3] = {0, 0, 0}, k;
    CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(j, "version")->valuestring, devo_version()) == 0);
    CHECK(cJSON_GetObjectItemCaseSensitive(j, "seed")->valuedouble == 7);
    CHECK(cJSON_GetObjectItemCaseSensitive(j, "time_limit")->valuedouble == 0.1);
    CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(j, "stop")->valuestring, "DEVO_ENUMERATED") == 0);
    CHECK(cJSON_GetObjectItemCaseSensitive(j, "lower_bound")->valuedouble ==
          cJSON_GetObjectItemCaseSensitive(j, "objective")->valuedouble);
    CHECK(cJSON_GetObjectItemCaseSensitive(j, "gap")->valuedouble == 0.0);
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "search")));
    CHECK(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(j, "deadline_met")));
    CHECK(cJSON_GetArraySize(sched) == 4 && cJSON_GetArraySize(pm) == 3);
    CHECK(
        strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(sched, 1), "name")->valuestring,
               "say \"hi\"") == 0);
    for (k = 0; k < cJSON_GetArraySize(sched); ++k) {
      const cJSON *x = cJSON_GetArrayItem(sched, k);
      const int m = (int)cJSON_GetObjectItemCaseSensitive(x, "machine")->valuedouble;
      const double st = cJSON_GetObjectItemCaseSensitive(x, "start")->valuedouble;
      const double fi = cJSON_GetObjectItemCaseSensitive(x, "finish")->valuedouble;
      CHECK(m >= 0 && m < 3);
      if (m < 0 || m >= 3)
        continue;
      load[m] += fi - st;
      count[m]++;
      top = fi > top ? fi : top;
    }
    for (k = 0; k < 3; ++k) {
      const cJSON *x = cJSON_GetArrayItem(pm, k);
      CHECK(cJSON_GetObjectItemCaseSensitive(x, "tasks")->valuedouble == count[k]);
      CHECK_CLOSE(cJSON_GetObjectItemCaseSensitive(x, "load")->valuedouble, load[k], 1e-12, 0.0);
      CHECK_CLOSE(cJSON_GetObjectItemCaseSensitive(x, "completion")->valuedouble, load[k], 1e-12,
                  0.0);
    }
    CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pm, 2), "name")->valuestring,
                 "gpu, big") == 0);
    CHECK(cJSON_GetObjectItemCaseSensitive(j, "makespan")->valuedouble == top);
  }
  cJSON_Delete(j);
  free(out);
  /* --format csv and --json cannot share standard output; the old --format braun is named */
  snprintf(cmd, sizeof cmd, "%s schedule %s --format csv --json", tc_devo_bin(), path);
  tc_expect_refused(cmd, 2, "devo schedule:", "--out FILE");
  snprintf(cmd, sizeof cmd, "%s schedule %s --format braun", tc_devo_bin(), path);
  tc_expect_refused(cmd, 2, "devo schedule:", "--input-format");
  remove(path);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(names_from_csv),
                                  TC(names_refused),
                                  TC(names_allocation_failures),
                                  TC(set_names),
                                  TC(timeline_matches_the_objective),
                                  TC(source_names),
                                  TC(json_numbers_round_trip),
                                  TC(json_numbers_as_printf),
                                  TC(json_integers_and_long_text),
                                  TC(cli_csv_output),
                                  TC(cli_json_output)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
