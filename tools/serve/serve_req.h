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
  devo_etc *e; /* owned: serve_req_free; NULL until serve_req_matrix */
  double lambda, time_limit;
  int order, backend, search, chains;
  int64_t steps;
  uint64_t seed;
  /* where serve_req_matrix finds the matrix: a JSON body's etc and ready (byte offsets and
   * lengths; ready_len 0 when none), or a CSV body (ready_query: the query's ready, or NULL) */
  int csv;
  size_t etc_at, etc_len, ready_at, ready_len;
  const char *ready_query;
} serve_req;

/* A refusal: HTTP status 400 (503 when out of memory or out of time), the message and, where they
 * apply, the member or parameter, the row and column (0 when not) of the matrix or the line and
 * column of the body. */
typedef struct serve_err {
  int http;
  int late;    /* 503: the deadline came while the matrix was read */
  void *spare; /* then: memory to free once answered (the matrix read so far), or NULL */
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

/* A request is read in two steps: its options first (cheap: the head), so that its deadline is
 * known, then its matrix (serve_req_matrix), which may take long and stops at the deadline. */

/* The head of a JSON body (len bytes, need not be NUL-terminated): the object read strictly,
 * its options set, the places of etc and ready found (not read). 0, or -1 with *err filled. */
int serve_req_json_head(const char *body, size_t len, const serve_limits *lim, serve_req *r,
                        serve_err *err);

/* The head of a CSV request (the format of devo schedule's CSV input): the query parameters,
 * got one by one through get (NULL when absent; the strings must live until serve_req_matrix)
 * and all listed by names (to refuse unknown ones: the caller passes the first unknown name in
 * unknown, or NULL). 0, or -1 with *err filled. */
int serve_req_csv_head(const char *(*get)(void *ud, const char *key), void *ud, const char *unknown,
                       const serve_limits *lim, serve_req *r, serve_err *err);

/* The matrix and ready times of a request whose head was read (the same body). deadline:
 * CLOCK_MONOTONIC seconds (0: none): a JSON matrix not read by then is refused with status 503
 * and err->late set (a CSV one is read to its end). 0, or -1 with *err filled (r->e NULL). */
int serve_req_matrix(const char *body, size_t len, double deadline, serve_req *r, serve_err *err);

/* Both steps, without a deadline: a JSON body, or a CSV body with its query parameters. */
int serve_req_json(const char *body, size_t len, const serve_limits *lim, serve_req *r,
                   serve_err *err);
int serve_req_csv(const char *body, size_t len, const char *(*get)(void *ud, const char *key),
                  void *ud, const char *unknown, const serve_limits *lim, serve_req *r,
                  serve_err *err);

/* The query parameters that serve_req_csv knows, NULL-terminated. */
extern const char *const serve_req_params[];

void serve_req_free(serve_req *r);

#endif /* DEVO_SERVE_REQ_H */
