/* SPDX-License-Identifier: MIT */
/* json_out.c: the streaming JSON writer of json_out.h: cJSON escapes the strings, numbers are
 * formatted here so that they read back exactly. */
#include "json_out.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int json_init(json_out *j, FILE *f)
{
  memset(j, 0, sizeof *j);
  j->f = f;
  j->buflen = 4096;
  j->buf = (char *)malloc(j->buflen);
  if (!j->buf)
    return -1;
  return 0;
}

/* The separator before a value or a key. */
static void sep(json_out *j)
{
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth > 0) {
    if (!j->first[j->depth - 1])
      fputc(',', j->f);
    j->first[j->depth - 1] = 0;
  }
}

static void open_(json_out *j, char c)
{
  sep(j);
  fputc(c, j->f);
  if (j->depth >= JSON_MAX_DEPTH) {
    j->failed = 1;
    return;
  }
  j->first[j->depth++] = 1;
}

static void close_(json_out *j, char c)
{
  if (j->depth > 0)
    j->depth--;
  fputc(c, j->f);
}

void json_obj(json_out *j)
{
  open_(j, '{');
}
void json_end_obj(json_out *j)
{
  close_(j, '}');
}
void json_arr(json_out *j)
{
  open_(j, '[');
}
void json_end_arr(json_out *j)
{
  close_(j, ']');
}

/* s quoted and escaped by cJSON, written raw (sep already done). */
static void put_string(json_out *j, const char *s)
{
  cJSON *n;
  size_t need = 6 * strlen(s) + 8; /* \u00XX is the longest escape of one byte */
  if (need > j->buflen) {
    char *nb = (char *)malloc(need);
    if (!nb) {
      j->failed = 1;
      return;
    }
    free(j->buf);
    j->buf = nb;
    j->buflen = need;
  }
  n = cJSON_CreateStringReference(s); /* no copy of s, and cJSON_Delete leaves it alone */
  if (!n || !cJSON_PrintPreallocated(n, j->buf, (int)j->buflen, 0)) {
    cJSON_Delete(n);
    j->failed = 1;
    return;
  }
  cJSON_Delete(n);
  fputs(j->buf, j->f);
}

/* 1 when s needs no escaping in JSON: letters, digits and '_' (all of devo's keys). */
static int plain(const char *s)
{
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

void json_key(json_out *j, const char *key)
{
  sep(j);
  if (plain(key)) { /* the common case, without cJSON's allocation (a key per value) */
    fputc('"', j->f);
    fputs(key, j->f);
    fputc('"', j->f);
  } else
    put_string(j, key);
  fputc(':', j->f);
  j->after_key = 1;
}

char *json_fmt_double(char *buf, size_t len, double x)
{
  if (!isfinite(x)) {
    snprintf(buf, len, "null");
    return buf;
  }
  /* %.15g when it reads back exactly, else %.17g, which always does (IEEE 754 binary64); the
   * 16 digits in between would need a third formatting for few values (2 us a number was the
   * cost of three, which a schedule of 10^5 tasks pays twice per task) */
  snprintf(buf, len, "%.15g", x);
  if (strtod(buf, NULL) != x)
    snprintf(buf, len, "%.17g", x);
  return buf;
}

void json_num(json_out *j, double x)
{
  char b[40];
  sep(j);
  fputs(json_fmt_double(b, sizeof b, x), j->f);
}

void json_int(json_out *j, int64_t v)
{
  sep(j);
  fprintf(j->f, "%" PRId64, v);
}

void json_uint(json_out *j, uint64_t v)
{
  sep(j);
  fprintf(j->f, "%" PRIu64, v);
}

void json_str(json_out *j, const char *s)
{
  sep(j);
  if (s)
    put_string(j, s);
  else
    fputs("null", j->f);
}

void json_bool(json_out *j, int b)
{
  sep(j);
  fputs(b ? "true" : "false", j->f);
}

void json_null(json_out *j)
{
  sep(j);
  fputs("null", j->f);
}

void json_kv_num(json_out *j, const char *key, double x)
{
  json_key(j, key);
  json_num(j, x);
}

void json_kv_int(json_out *j, const char *key, int64_t v)
{
  json_key(j, key);
  json_int(j, v);
}

void json_kv_uint(json_out *j, const char *key, uint64_t v)
{
  json_key(j, key);
  json_uint(j, v);
}

void json_kv_str(json_out *j, const char *key, const char *s)
{
  json_key(j, key);
  json_str(j, s);
}

void json_kv_bool(json_out *j, const char *key, int b)
{
  json_key(j, key);
  json_bool(j, b);
}

int json_done(json_out *j)
{
  int bad = j->failed || j->depth != 0;
  fputc('\n', j->f);
  free(j->buf);
  j->buf = NULL;
  return bad ? -1 : 0;
}
