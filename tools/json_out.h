/* SPDX-License-Identifier: MIT */
/* json_out.h: the one JSON writer of devo's programs. It streams (a schedule of 10^6 tasks or a
 * vector of 10^7 coordinates is never held as a tree) and writes compact JSON ("key":value, no
 * spaces). Strings are quoted and escaped by cJSON (Debian libcjson-dev). Numbers are written
 * here: cJSON 1.7.15 prints "%.15g" whenever that reads back within a relative DBL_EPSILON, which
 * is not the same double (0.1 + 0.2 came out as 0.3, 1.7976931348623157e308 as a value that reads
 * back as infinity; 18% of random doubles changed); json_num writes %.15g when that reads back
 * bit for bit, else %.17g (which always does): printf's text, from integer arithmetic of its own
 * for most numbers (json_out.c). Non-finite numbers are written as null (JSON has no NaN or
 * infinity); integers are exact (a uint64 seed too). */
#ifndef DEVO_JSON_OUT_H
#define DEVO_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

typedef struct json_out {
  FILE *f;
  int depth;
  unsigned char first[JSON_MAX_DEPTH]; /* 1 while the object or array has no member yet */
  int after_key;                       /* a key was written: its value comes next, no comma */
  int failed;                          /* out of memory, or nesting too deep */
  char *buf;                           /* for the escaped strings */
  size_t buflen;
  /* the text not yet handed to f: one fwrite per block rather than a locked stdio call per
   * character (most of an answer's time before) */
  char out[8192];
  size_t used;
} json_out;

/* 0, or -1 when out of memory. The text reaches f in blocks, the last one in json_done: nothing
 * else may write to f in between. */
int json_init(json_out *j, FILE *f);
void json_obj(json_out *j);
void json_end_obj(json_out *j);
void json_arr(json_out *j);
void json_end_arr(json_out *j);
void json_key(json_out *j, const char *key);
/* finite: the shortest decimal that reads back as x; NaN and infinities: null */
void json_num(json_out *j, double x);
void json_int(json_out *j, int64_t v);
void json_uint(json_out *j, uint64_t v);
/* NULL: null */
void json_str(json_out *j, const char *s);
void json_bool(json_out *j, int b);
void json_null(json_out *j);
/* key and value in one call */
void json_kv_num(json_out *j, const char *key, double x);
void json_kv_int(json_out *j, const char *key, int64_t v);
void json_kv_uint(json_out *j, const char *key, uint64_t v);
void json_kv_str(json_out *j, const char *key, const char *s);
void json_kv_bool(json_out *j, const char *key, int b);
/* Ends the line, frees what json_init took: 0, or -1 when the writer failed (the stream's own
 * errors are the caller's to check, e.g. with cli_stdout_done). */
int json_done(json_out *j);

/* The text json_num writes for x ("null" when not finite) into buf (at least 32 bytes); for
 * CSV and text outputs that must keep every bit too. Returns buf. */
char *json_fmt_double(char *buf, size_t len, double x);

#endif /* DEVO_JSON_OUT_H */
