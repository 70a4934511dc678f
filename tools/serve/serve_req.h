/* SPDX-License-Identifier: MIT */
/* serve_req.h: the body of a `devo serve` POST /v1/schedule request (JSON, or CSV with the
 * options in the query string) read into an ETC matrix and the options of devo_schedule_run;
 * each refusal says what is wrong and where (row and column, 1-based as devo schedule says). */
#ifndef DEVO_SERVE_REQ_H
#define DEVO_SERVE_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "engine/include/devo.h"

/* What one request asks for. */
typedef struct serve_req {
  devo_etc *e; /* owned: serve_req_free */
  double lambda, time_limit;
  int order, backend, search, chains;
  int64_t steps;
  uint64_t seed;
} serve_req;

/* A refusal: HTTP status 400, the message and, where they apply, the member or parameter,
 * the row and column (0 when not) of the matrix or the line and column of the body. */
typedef struct serve_err {
  int http;
  char msg[512];
  char field[64]; /* the member or parameter, "" when none */
  long row, col;  /* 1-based; 0 = none */
} serve_err;

/* Bounds the server puts on a request. */
typedef struct serve_limits {
  double max_time_limit; /* seconds */
  double default_time_limit;
  int default_backend; /* DEVO_BACKEND_* */
} serve_limits;

/* A JSON body (len bytes, need not be NUL-terminated). 0, or -1 with *err filled. */
int serve_req_json(const char *body, size_t len, const serve_limits *lim, serve_req *r,
                   serve_err *err);

/* A CSV body (the format of devo schedule's CSV input) and the query parameters, got one by
 * one through get (NULL when absent) and all listed by names (to refuse unknown ones: the
 * caller passes the first unknown name in unknown, or NULL). 0, or -1 with *err filled. */
int serve_req_csv(const char *body, size_t len, const char *(*get)(void *ud, const char *key),
                  void *ud, const char *unknown, const serve_limits *lim, serve_req *r,
                  serve_err *err);

/* The query parameters that serve_req_csv knows, NULL-terminated. */
extern const char *const serve_req_params[];

void serve_req_free(serve_req *r);
/* Makes serve_req_json's parse allocate cJSON's nodes from a per-thread arena (cJSON_InitHooks;
 * allocations outside a parse stay malloc's). Once, before any thread uses cJSON; without it
 * serve_req_json works the same, with malloc. */
void serve_req_setup(void);

#endif /* DEVO_SERVE_REQ_H */
