/* SPDX-License-Identifier: MIT */
/* etc_json.h: an ETC matrix written as JSON, an array of rows each an array of numbers
 * ([[1, 2.5], [3, 4e2]]), read in one pass into the matrix's own array, and the strict JSON
 * number and whitespace of RFC 8259 that the request bodies of `devo serve` are read with.
 * Values are strtod's, bit for bit (as devo_etc_read reads a CSV file). Not installed. */
#ifndef DEVO_ETC_JSON_H
#define DEVO_ETC_JSON_H

#include <stddef.h>

#include "../engine/include/devo.h"

/* Where a JSON read stopped: the byte offset in the text given, the row and column of the
 * matrix (1-based; 0 = none) and what went wrong. */
enum {
  DEVO__JSON_SYNTAX = 1, /* not JSON at pos (or the text ends there) */
  DEVO__JSON_SHAPE,      /* not an array of rows, ragged rows (row), too few or too many */
  DEVO__JSON_VALUE,      /* a value that is not a number, or not finite and > 0 (row, col) */
  DEVO__JSON_DEADLINE,   /* the deadline came first: pos bytes and row - 1 whole rows read */
  DEVO__JSON_NOMEM
};
typedef struct devo__json_at {
  int what; /* DEVO__JSON_*; 0 on success */
  size_t pos;
  long row, col;
  /* DEVO__JSON_DEADLINE: the array read so far (malloc'd), left to the caller to free once it
   * has answered: giving back a large array takes milliseconds past the deadline */
  void *partial;
} devo__json_at;

/* The offset of the first byte at or after i that is not JSON whitespace (space, tab, LF, CR:
 * other control bytes are not whitespace), n when none. */
size_t devo__json_ws(const char *s, size_t i, size_t n);

/* The JSON number that starts at s[i] (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * at most DEVO_ETC_MAX_FIELD characters): 0 with its end in *end and its value (strtod's, maybe
 * infinite) in *out, or -1 (not a number there; *end the offset where it fails). dec:
 * devo__dec_flags() of the calling thread. */
int devo__json_number(const char *s, size_t n, size_t i, int dec, size_t *end, double *out);

/* The matrix from the n bytes at text: one JSON array of rows, optionally surrounded by JSON
 * whitespace, nothing else. Every row an array of the same number of numbers, each finite and
 * > 0; sizes within DEVO_ETC_MAX_*. deadline: CLOCK_MONOTONIC seconds (0: none), looked at
 * every 64 KiB: a read not done by then stops with DEVO__JSON_DEADLINE. Memory: the matrix
 * (its array sized from the first row's length and grown by half when rows come shorter, then
 * cut to its size) and nothing per value. Returns DEVO_OK, DEVO_E_PARSE (at says where and why;
 * err the reason in words, without the place), DEVO_E_DEADLINE, DEVO_E_NOMEM. */
int devo__etc_read_json(devo_etc **out, const char *text, size_t n, double deadline,
                        devo__json_at *at, char *err, size_t errlen);

#endif /* DEVO_ETC_JSON_H */
