/* SPDX-License-Identifier: MIT */
/* csv_rows.h: the one CSV reader of devo's programs (devo rank, devo experiment's resume, devo
 * eval, devo schedule --ready), on libcsv (Debian libcsv-dev) as problems/etc_io.c reads ETC
 * matrices. RFC 4180 quoting (a quoted field may hold the delimiter, doubled quotes and line
 * ends); blanks (space, tab) around an unquoted field are dropped; a line ends at LF, CRLF or a
 * CR alone. Rows come one at a time from a stream (read line by line) or from text in memory,
 * each with its fields, the physical line it starts on and its raw bytes, so that the callers
 * word their own messages as FILE:ROW[:COLUMN]. Nothing here prints; the reader's own refusals
 * (malformed quoting, too many rows) come as one line "NAME:LINE:COLUMN: reason". */
#ifndef DEVO_CSV_ROWS_H
#define DEVO_CSV_ROWS_H

#include <stddef.h>
#include <stdio.h>

typedef struct tool_csv tool_csv;

typedef struct tool_csv_opts {
  unsigned char delim; /* 0: ',' */
  /* fields kept per row (>= 1): a row's further fields are counted in its n, not kept, so that
   * a row of a million commas costs no memory but its count is still named */
  int max_fields;
  long max_rows; /* more data rows is a refusal; 0: no limit */
  int comments;  /* a line that starts with '#' where a row would start is a comment row */
  int columns;   /* keep where each field is on its line (the input is then fed byte by byte) */
} tool_csv_opts;

typedef struct tool_csv_row {
  char **f;    /* f[0 .. min(n, max_fields) - 1], NUL-terminated */
  int n;       /* the row's fields, also those not kept */
  long line;   /* the physical line the row starts on, 1-based */
  int blank;   /* a line of blanks only: n = 1, f[0] = "" (libcsv itself skips those) */
  int comment; /* with opts.comments: n = 0, the line in raw */
  int ended;   /* 1 when a line end closed the row, 0 for the input's last bytes without one */
  /* with opts.columns, per kept field: the column of its first non-blank byte (its end column
   * when it is empty) and of the byte that ended it (the delimiter or the line end; one past
   * the last byte at the end of the input) */
  const long *col, *end;
  const char *raw; /* the row's bytes as read, its line end(s) included */
  size_t raw_len;
  size_t offset; /* bytes of the input up to the end of this row */
} tool_csv_row;

/* tool_csv_next's answers: a row, the end, or a refusal (tool_csv_error says it). */
enum {
  TOOL_CSV_ROW = 1,
  TOOL_CSV_END = 0,
  TOOL_CSV_BAD = -1,   /* malformed CSV or a limit: bad input */
  TOOL_CSV_NOMEM = -2, /* out of memory */
  TOOL_CSV_EIO = -3    /* the stream's read failed */
};

/* A reader of the stream in (read as it goes; not closed here) or of the len bytes at text (kept
 * by the caller until tool_csv_close). name: for the messages. NULL when out of memory. */
tool_csv *tool_csv_file(FILE *in, const char *name, const tool_csv_opts *o);
tool_csv *tool_csv_text(const char *text, size_t len, const char *name, const tool_csv_opts *o);
/* The next row into *row (valid until the next call): TOOL_CSV_ROW, TOOL_CSV_END, or a refusal,
 * which every later call repeats. */
int tool_csv_next(tool_csv *c, tool_csv_row *row);
/* The refusal's one line ("" before one). */
const char *tool_csv_error(const tool_csv *c);
/* Where the input ended, after TOOL_CSV_END: the line after a final line end (column 1), or the
 * last line and one past its last byte. */
void tool_csv_end_at(const tool_csv *c, long *line, long *col);
void tool_csv_close(tool_csv *c);

/* s as one CSV field on f: as it is, or quoted by libcsv when it holds a comma, a quote, a line
 * end or blanks at its ends (what the reader above would not give back unchanged). */
void tool_csv_put(FILE *f, const char *s);

#endif /* DEVO_CSV_ROWS_H */
