/* SPDX-License-Identifier: MIT */
/* csv_rows.c: the CSV reader of csv_rows.h. libcsv is fed one physical line at a time (as
 * problems/etc_io.c does), so that every row knows the line it starts on; its callbacks collect
 * the fields of the row in one growing block. */
#define _POSIX_C_SOURCE 200809L
#include "csv_rows.h"

#include <csv.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct tool_csv {
  struct csv_parser p;
  tool_csv_opts o;
  const char *name;
  FILE *in;
  char *gl; /* getline's buffer (a stream) */
  size_t glcap;
  const char *chunk; /* the text, or getline's last line: split further at a CR alone */
  size_t clen, cpos;
  long line;       /* physical lines read */
  int last_ended;  /* the last of them had a line end */
  size_t last_len; /* its length without the line end */
  size_t offset;   /* bytes read */
  long rows;       /* data rows given */
  int status;      /* 0, or the refusal every call repeats */
  char err[512];
  /* the row being read */
  char *fb; /* its kept fields, packed, each NUL-terminated */
  size_t fb_len, fb_cap;
  size_t *foff;    /* where each kept field starts in fb */
  char **fp;       /* the fields for the caller, set when the row is whole */
  long *col, *end; /* with o.columns */
  int cap;         /* entries of foff, fp, col, end */
  int nf;          /* fields seen */
  int done;        /* libcsv ended the row */
  long start;      /* with o.columns: first non-blank column of the field being read, 0: none */
  char *raw;
  size_t raw_len, raw_cap;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(tool_csv *c, int status, const char *fmt, ...)
{
  va_list ap;
  if (c->status)
    return c->status;
  c->status = status;
  va_start(ap, fmt);
  vsnprintf(c->err, sizeof c->err, fmt, ap);
  va_end(ap);
  return status;
}

static int nomem(tool_csv *c)
{
  return fail(c, TOOL_CSV_NOMEM, "%s: out of memory", c->name);
}

/* *p (of *cap bytes) holding at least need bytes: 0, or -1 when out of memory. */
static int reserve(char **p, size_t *cap, size_t need)
{
  size_t ncap = *cap ? *cap : 256;
  char *nb;
  if (need <= *cap)
    return 0;
  while (ncap < need)
    ncap *= 2;
  nb = (char *)realloc(*p, ncap);
  if (!nb)
    return -1;
  *p = nb;
  *cap = ncap;
  return 0;
}

/* Room for one more kept field's index entries: 0, or -1 when out of memory. */
static int grow_index(tool_csv *c)
{
  const int want = c->cap > c->o.max_fields / 2 ? c->o.max_fields : c->cap ? 2 * c->cap : 16;
  const int ncap = want < c->o.max_fields ? want : c->o.max_fields;
  const size_t k = (size_t)ncap;
  void *a = realloc(c->foff, k * sizeof *c->foff), *b;
  if (!a)
    return -1;
  c->foff = (size_t *)a;
  if (!(b = realloc(c->fp, k * sizeof *c->fp)))
    return -1;
  c->fp = (char **)b;
  if (c->o.columns) {
    if (!(a = realloc(c->col, k * sizeof *c->col)))
      return -1;
    c->col = (long *)a;
    if (!(a = realloc(c->end, k * sizeof *c->end)))
      return -1;
    c->end = (long *)a;
  }
  c->cap = ncap;
  return 0;
}

/* libcsv's field callback: the field counted, and kept while the row has room. */
static void on_field(void *s, size_t len, void *data)
{
  tool_csv *c = (tool_csv *)data;
  const int k = c->nf++;
  if (c->status || k >= c->o.max_fields)
    return;
  if ((k == c->cap && grow_index(c) != 0) || reserve(&c->fb, &c->fb_cap, c->fb_len + len + 1)) {
    nomem(c);
    return;
  }
  c->foff[k] = c->fb_len;
  if (len)
    memcpy(c->fb + c->fb_len, s, len);
  c->fb[c->fb_len + len] = 0;
  c->fb_len += len + 1;
}

static void on_row(int ch, void *data)
{
  (void)ch;
  ((tool_csv *)data)->done = 1;
}

/* With o.columns: field k (if kept) ended at column at. */
static void field_at(tool_csv *c, int k, long at)
{
  if (k < c->o.max_fields && k < c->cap) {
    c->col[k] = c->start ? c->start : at;
    c->end[k] = at;
  }
  c->start = 0;
}

/* libcsv stopped at byte pos of the current line. */
static void parse_failed(tool_csv *c, size_t pos)
{
  if (csv_error(&c->p) == CSV_ENOMEM || csv_error(&c->p) == CSV_ETOOBIG)
    nomem(c);
  else
    fail(c, TOOL_CSV_BAD,
         "%s:%ld:%zu: malformed CSV: a '\"' inside an unquoted field, or text "
         "after a quoted one",
         c->name, c->line, pos + 1);
}

/* The physical line [b, b + n) (its line end included) to libcsv. */
static void feed(tool_csv *c, const char *b, size_t n)
{
  size_t i, got;
  if (!c->o.columns) {
    got = csv_parse(&c->p, b, n, on_field, on_row, c);
    if (got != n)
      parse_failed(c, got);
    return;
  }
  /* a byte at a time: a field that ends ends at the byte just given */
  for (i = 0; i < n && !c->status; ++i) {
    const int before = c->nf;
    if (csv_parse(&c->p, b + i, 1, on_field, on_row, c) != 1) {
      parse_failed(c, i);
      return;
    }
    if (c->nf != before)
      field_at(c, before, (long)i + 1);
    else if (!c->start && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n')
      c->start = (long)i + 1;
  }
}

/* The end of the line that starts at b[i]: just past its LF, CRLF or lone CR, or n. */
static size_t line_after(const char *b, size_t n, size_t i)
{
  for (; i < n; ++i) {
    if (b[i] == '\n')
      return i + 1;
    if (b[i] == '\r')
      return i + 1 < n && b[i + 1] == '\n' ? i + 2 : i + 1;
  }
  return n;
}

/* The next physical line into [*b, *b + *n): 1, 0 at the end of the input, or a refusal. */
static int next_line(tool_csv *c, const char **b, size_t *n)
{
  size_t e;
  if (c->cpos == c->clen) {
    ssize_t got;
    if (!c->in)
      return 0;
    errno = 0;
    got = getline(&c->gl, &c->glcap, c->in);
    if (got < 0) {
      if (ferror(c->in))
        return fail(c, TOOL_CSV_EIO, "%s: read error: %s", c->name, strerror(errno ? errno : EIO));
      if (!feof(c->in)) /* getline's -1 without an end: out of memory */
        return nomem(c);
      return 0;
    }
    c->chunk = c->gl;
    c->clen = (size_t)got;
    c->cpos = 0;
  }
  e = line_after(c->chunk, c->clen, c->cpos);
  *b = c->chunk + c->cpos;
  *n = e - c->cpos;
  c->cpos = e;
  c->line++;
  c->offset += *n;
  c->last_ended = *n > 0 && ((*b)[*n - 1] == '\n' || (*b)[*n - 1] == '\r');
  c->last_len =
      *n - (size_t)c->last_ended - (*n > 1 && (*b)[*n - 2] == '\r' && (*b)[*n - 1] == '\n');
  return 1;
}

static int blank(const char *b, size_t n)
{
  size_t i;
  for (i = 0; i < n; ++i)
    if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n')
      return 0;
  return 1;
}

enum { R_DATA, R_BLANK, R_COMMENT };

/* The row read so far to the caller. */
static int finish(tool_csv *c, tool_csv_row *row, long first, int ended, int kind)
{
  int k;
  if (kind == R_BLANK) {
    on_field(NULL, 0, c);
    if (c->o.columns && c->cap > 0)
      c->col[0] = c->end[0] = 1;
  }
  if (c->status)
    return c->status;
  if (kind != R_COMMENT && c->o.max_rows > 0 && ++c->rows > c->o.max_rows)
    return fail(c, TOOL_CSV_BAD, "%s:%ld:1: more than %ld rows", c->name, first, c->o.max_rows);
  for (k = 0; k < c->nf && k < c->o.max_fields; ++k)
    c->fp[k] = c->fb + c->foff[k];
  row->f = c->fp;
  row->n = c->nf;
  row->line = first;
  row->blank = kind == R_BLANK;
  row->comment = kind == R_COMMENT;
  row->ended = ended;
  row->col = c->col;
  row->end = c->end;
  row->raw = c->raw;
  row->raw_len = c->raw_len;
  row->offset = c->offset;
  return TOOL_CSV_ROW;
}

/* The end of the input inside a row: libcsv ends it (or refuses an open quote). */
static int at_end(tool_csv *c, tool_csv_row *row, long first)
{
  const int before = c->nf;
  long line, col;
  if (csv_fini(&c->p, on_field, on_row, c) != 0) {
    tool_csv_end_at(c, &line, &col);
    return fail(c, TOOL_CSV_BAD,
                "%s:%ld:%ld: the input ends inside a quoted field (of the row of line %ld)",
                c->name, line, col, first);
  }
  if (c->o.columns && c->nf != before)
    field_at(c, before, (long)c->last_len + 1);
  return finish(c, row, first, 0, R_DATA);
}

int tool_csv_next(tool_csv *c, tool_csv_row *row)
{
  int open = 0; /* bytes of a row are in libcsv */
  long first = 0;
  if (c->status)
    return c->status;
  c->nf = 0;
  c->fb_len = 0;
  c->raw_len = 0;
  c->done = 0;
  c->start = 0;
  for (;;) {
    const char *b = NULL;
    size_t n = 0;
    const int got = next_line(c, &b, &n);
    if (got < 0)
      return got;
    if (got == 0)
      return open ? at_end(c, row, first) : TOOL_CSV_END;
    if (!open)
      first = c->line;
    if (reserve(&c->raw, &c->raw_cap, c->raw_len + n + 1))
      return nomem(c);
    memcpy(c->raw + c->raw_len, b, n);
    c->raw_len += n;
    c->raw[c->raw_len] = 0;
    if (!open && c->o.comments && n > 0 && b[0] == '#')
      return finish(c, row, first, c->last_ended, R_COMMENT);
    feed(c, b, n);
    if (c->status)
      return c->status;
    if (c->done)
      return finish(c, row, first, 1, R_DATA);
    if (!open && c->nf == 0 && blank(b, n))
      return finish(c, row, first, c->last_ended, R_BLANK);
    open = 1;
  }
}

static tool_csv *open_(const char *name, const tool_csv_opts *o)
{
  tool_csv *c = (tool_csv *)calloc(1, sizeof *c);
  if (!c)
    return NULL;
  if (csv_init(&c->p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    free(c);
    return NULL;
  }
  c->o = *o;
  if (c->o.max_fields < 1)
    c->o.max_fields = 1;
  csv_set_delim(&c->p, o->delim ? o->delim : ',');
  c->name = name;
  return c;
}

tool_csv *tool_csv_file(FILE *in, const char *name, const tool_csv_opts *o)
{
  tool_csv *c = open_(name, o);
  if (c)
    c->in = in;
  return c;
}

tool_csv *tool_csv_text(const char *text, size_t len, const char *name, const tool_csv_opts *o)
{
  tool_csv *c = open_(name, o);
  if (c) {
    c->chunk = text;
    c->clen = len;
  }
  return c;
}

const char *tool_csv_error(const tool_csv *c)
{
  return c->err;
}

void tool_csv_end_at(const tool_csv *c, long *line, long *col)
{
  if (c->line == 0 || c->last_ended) {
    *line = c->line + 1;
    *col = 1;
  } else {
    *line = c->line;
    *col = (long)c->last_len + 1;
  }
}

void tool_csv_close(tool_csv *c)
{
  if (!c)
    return;
  csv_free(&c->p);
  free(c->gl);
  free(c->fb);
  free(c->foff);
  free(c->fp);
  free(c->col);
  free(c->end);
  free(c->raw);
  free(c);
}

void tool_csv_put(FILE *f, const char *s)
{
  const size_t n = strlen(s);
  const int edge = n > 0 && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t');
  if (!edge && !strpbrk(s, ",\"\r\n"))
    fputs(s, f);
  else
    csv_fwrite(f, s, n);
}
