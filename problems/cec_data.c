/* SPDX-License-Identifier: MIT */
/* cec_data.c: the catalogue of F01..F10 and their data, read strictly from the official CEC input
 * files or generated deterministically from a seed.
 *
 * Official files (data/cec/README.md): shift_data_N.txt (simple and hybrid functions: the
 * first D numbers of line 1; compositions: the first D numbers of each of the first ncomp lines,
 * the rest of each line skipped as the code's fscanf("%*[^\n]%*c") does), M_N_DD.txt (D lines of
 * D numbers per matrix, compositions stack 10 and use the first ncomp), shuffle_data_N_DD.txt
 * (a permutation of 1..D, stored here 0-based). CRLF line ends, tabs and three-digit exponents
 * are accepted; everything else that is not exactly that shape is an error naming file and line.
 * Every official file ends with a line end, so the last line must too: a file cut short can
 * still end in a token that parses ("...e-0" from "...e-01"), and this is what refuses it.
 *
 * Generated data (dir == NULL), a pure function of (data_seed, function, dimension), every draw
 * a Philox4x32-10 block devo__rng(key = data_seed, slot, generation, stream, DEVO__RNG_DATA)
 * with stream = 256 * id + 16 * array + k (array 1 = shift, 2 = rotation, 3 = shuffle; k = the
 * component):
 *   shift   o_kj = -80 + 160 * u01(w0, w1) of block (slot j, generation 0): uniform in [-80, 80).
 *   matrix  raw entry (i, j) = 2 * u01(w0, w1) - 1 of block (slot j, generation i), i.e. a
 *           uniform matrix; its rows are orthonormalised in order by modified Gram-Schmidt
 *           applied twice ("twice is enough", Parlett/Kahan), which leaves max|M M^T - I| at a
 *           few 1e-16 (tests check <= 1e-12 up to D = 200). A row that loses more than all but
 *           1e-8 of its norm to the projection (probability ~0) is redrawn with slot
 *           j + 2^24 * attempt. Only +, -, *, / and sqrt are used, so the bits do not depend on
 *           the C library.
 *   shuffle Fisher-Yates from the end: for i = D-1 .. 1, swap p[i] with p[devo__below(w0, i+1)]
 *           of block (slot i, generation 0), starting from the identity.
 * Composition k uses its own shift row and matrix. The optimum is o_0 (f(o_0) = F* up to the
 * Schwefel rounding residue). */
#define _POSIX_C_SOURCE 200809L
#include "cec_data.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cec.h"
#include "read_src.h"
#include "devo_alloc.h"
#include "philox.h"

typedef struct cec_entry {
  const char *name, *alias, *source, *suite;
  int official_num; /* number in the official code and file names */
} cec_entry;

static const cec_entry cec_table[10] = {
    {"cec2017:f3", "F01", "CEC 2017 F3: shifted and rotated Zakharov", "cec2017", 3},
    {"cec2017:f4", "F02", "CEC 2017 F4: shifted and rotated Rosenbrock", "cec2017", 4},
    {"cec2017:f5", "F03", "CEC 2017 F5: shifted and rotated Rastrigin", "cec2017", 5},
    {"cec2017:f10", "F04", "CEC 2017 F10: shifted and rotated modified Schwefel", "cec2017", 10},
    {"cec2014:f18", "F05", "CEC 2014 F18: hybrid 2 (Bent Cigar, HGBat, Rastrigin)", "cec2014", 18},
    {"cec2017:f16", "F06",
     "CEC 2017 F16: hybrid 6 (Expanded Schaffer F6, HGBat, Rosenbrock, modified Schwefel)",
     "cec2017", 16},
    {"cec2014:f22", "F07",
     "CEC 2014 F22: hybrid 6 (Katsuura, HappyCat, Expanded Griewank+Rosenbrock, modified "
     "Schwefel, Ackley)",
     "cec2014", 22},
    {"cec2017:f22", "F08", "CEC 2017 F22: composition 2 (Rastrigin, Griewank, modified Schwefel)",
     "cec2017", 22},
    {"cec2017:f24", "F09",
     "CEC 2017 F24: composition 4 (Ackley, High-conditioned Elliptic, Griewank, Rastrigin)",
     "cec2017", 24},
    {"cec2017:f26", "F10",
     "CEC 2017 F26: composition 6 (Expanded Schaffer F6, modified Schwefel, Griewank, "
     "Rosenbrock, Rastrigin)",
     "cec2017", 26},
};

enum { CEC_N = 10, CEC_STREAM_SHIFT = 1, CEC_STREAM_ROT = 2, CEC_STREAM_SHUFFLE = 3 };

/* ---- catalogue ------------------------------------------------------------------------------ */

static int ieq(const char *a, const char *b)
{
  for (; *a && *b; ++a, ++b) {
    int ca = (unsigned char)*a, cb = (unsigned char)*b;
    if (ca >= 'A' && ca <= 'Z')
      ca += 'a' - 'A';
    if (cb >= 'A' && cb <= 'Z')
      cb += 'a' - 'A';
    if (ca != cb)
      return 0;
  }
  return *a == *b;
}

int devo__cec_find(const char *name)
{
  int i;
  if (!name)
    return 0;
  for (i = 0; i < CEC_N; ++i)
    if (ieq(name, cec_table[i].name) || ieq(name, cec_table[i].alias))
      return i + 1;
  return 0;
}

int devo__cec_count(void)
{
  return CEC_N;
}

double devo__cec_fstar(int id)
{
  return id >= 1 && id <= CEC_N ? devo__cec_bias(id) : (double)NAN;
}

int devo__cec_ncomp(int id)
{
  return id >= 1 && id <= CEC_N ? devo__cec_nshift(id) : 0;
}

int devo__cec_min_dim(int id)
{
  /* hybrids: the largest D with an empty group is 4 (F05), 7 (F06), 11 (F07); checked by
   * tests/test_cec.c up to D = 2000 */
  switch (id) {
  case 5: return 5;
  case 6: return 8;
  case 7: return 12;
  default: return id >= 1 && id <= CEC_N ? 2 : 0;
  }
}

int devo__cec_dim_ok(int id, int dim)
{
  int start[DEVO__CEC_MAXPARTS], size[DEVO__CEC_MAXPARTS];
  if (id < 1 || id > CEC_N || dim < 2 || dim > DEVO__CEC_MAX_DIM)
    return 0;
  if (devo__cec_family(id) == DEVO__CEC_HYBRID)
    return devo__cec_hybrid_groups(id, dim, start, size) != 0;
  return 1;
}

int devo__cec_builtin(int idx, devo_builtin_info *out)
{
  if (!out || idx < 0 || idx >= CEC_N)
    return DEVO_E_INVALID;
  out->name = cec_table[idx].name;
  out->alias = cec_table[idx].alias;
  out->source = cec_table[idx].source;
  out->fstar = devo__cec_bias(idx + 1);
  out->min_dim = devo__cec_min_dim(idx + 1);
  out->official = "10,30,50,100";
  return DEVO_OK;
}

/* ---- messages ------------------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
  va_list ap;
  if (err && errlen > 0) {
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* ---- official files ------------------------------------------------------------------------- */

/* A whole file in memory and a line cursor over it. */
typedef struct cec_text {
  const devo_allocator *al;
  const char *path;
  char *buf;
  size_t len, pos;
  int line; /* number of the line last returned (1-based) */
} cec_text;

/* The largest official CEC input file is 2.5 MB (cec2017 M_*_D100.txt, 100 x 100 x 10 values of
 * 25 characters); a data file is read no further than this, and a NUL byte or a line longer
 * than a row of the largest matrix is refused as soon as it is read (a file linked to
 * /dev/zero or /dev/urandom was read without end: issue 21). */
#define CEC_MAX_FILE_BYTES ((size_t)64 << 20)
#define CEC_MAX_LINE_BYTES ((size_t)1 << 20)

static int text_load(cec_text *t, const char *path, const devo_allocator *al, char *err,
                     size_t errlen)
{
  devo__rdlim lim;
  struct stat sb;
  int rc, fd;
  t->al = al;
  t->path = path;
  t->buf = NULL;
  t->len = t->pos = 0;
  t->line = 0;
  errno = 0;
  /* O_NONBLOCK: opening a FIFO waits for a writer, forever; it is refused below */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(err, errlen, DEVO_E_IO, "%s: cannot open: %s", path,
                strerror(errno ? errno : ENOENT));
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return fail(err, errlen, DEVO_E_IO, "%s: not a regular file", path);
  }
  lim.max_bytes = CEC_MAX_FILE_BYTES;
  lim.max_line = CEC_MAX_LINE_BYTES;
  lim.deadline = 0.0;
  rc = devo__read_all(NULL, fd, path, &lim, al, &t->buf, &t->len, err, errlen);
  close(fd);
  return rc;
}

static void text_free(cec_text *t)
{
  devo__free(t->al, t->buf);
  t->buf = NULL;
}

static int is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next line that holds anything but white space: *s, *n (without the line end). 0 at the
 * end of the file. */
static int text_next(cec_text *t, const char **s, size_t *n)
{
  while (t->pos < t->len) {
    size_t b = t->pos, e = b, k;
    while (e < t->len && t->buf[e] != '\n')
      ++e;
    t->pos = e < t->len ? e + 1 : e;
    t->line++;
    for (k = b; k < e && is_space(t->buf[k]); ++k)
      ;
    if (k < e) {
      *s = t->buf + b;
      *n = e - b;
      return 1;
    }
  }
  return 0;
}

/* Called after the reading: a last line with no line end means a file cut short (every official
 * file ends with CRLF or LF, a cut almost never falls just after one, and a cut that does is
 * caught by the line counts), even where the cut token still parses as a number or lies in a
 * part that is skipped. After the other checks, so that their more precise messages win. */
static int text_check_end(const cec_text *t, char *err, size_t errlen)
{
  size_t k;
  int line = 1;
  /* an empty file has no last line; the line and number counts already report it */
  if (t->len == 0 || t->buf[t->len - 1] == '\n')
    return DEVO_OK;
  for (k = 0; k < t->len; ++k)
    line += t->buf[k] == '\n';
  return fail(err, errlen, DEVO_E_PARSE,
              "%s:%d: the file ends inside this line, with no line end (truncated?)", t->path,
              line);
}

/* The i-th token of a line, copied (at most cap-1 chars; longer tokens are cut and flagged by
 * *full = 0) into tok. Advances *p. 0 when the line has no more tokens. */
static int next_token(const char *s, size_t n, size_t *p, char *tok, size_t cap, int *full)
{
  size_t b, e, k;
  while (*p < n && is_space(s[*p]))
    ++*p;
  if (*p >= n)
    return 0;
  b = *p;
  for (e = b; e < n && !is_space(s[e]); ++e)
    ;
  *p = e;
  *full = e - b < cap;
  for (k = 0; k < cap - 1 && b + k < e; ++k) {
    unsigned char c = (unsigned char)s[b + k];
    tok[k] = c >= 32 && c < 127 ? (char)c : '?';
  }
  tok[k] = 0;
  return 1;
}

/* A decimal floating-point token: digits, sign, point and exponent only (no inf, nan, hex). */
static int parse_double(const char *tok, int full, double *out)
{
  const char *c;
  char *end;
  if (!full || !*tok)
    return 0;
  for (c = tok; *c; ++c)
    if (!((*c >= '0' && *c <= '9') || *c == '+' || *c == '-' || *c == '.' || *c == 'e' ||
          *c == 'E'))
      return 0;
  errno = 0;
  *out = strtod(tok, &end);
  if (*end != 0 || end == tok || !isfinite(*out))
    return 0;
  return 1;
}

/* Reads the numbers of one line into out[0 .. want-1]. exact: the line must hold exactly want
 * numbers; otherwise at least want (the rest is checked to be numbers and ignored). */
static int read_row(cec_text *t, const char *s, size_t n, double *out, int want, int exact,
                    char *err, size_t errlen)
{
  char tok[48];
  size_t p = 0;
  int count = 0, full;
  double v;
  while (next_token(s, n, &p, tok, sizeof tok, &full)) {
    if (!parse_double(tok, full, &v))
      return fail(err, errlen, DEVO_E_PARSE, "%s:%d: item %d: '%s%s' is not a number", t->path,
                  t->line, count + 1, tok, full ? "" : "...");
    if (count < want)
      out[count] = v;
    count++;
  }
  if (count < want || (exact && count != want))
    return fail(err, errlen, DEVO_E_PARSE,
                "%s:%d: expected %s%d numbers, found %d (truncated, or a file for another "
                "dimension?)",
                t->path, t->line, exact ? "" : "at least ", want, count);
  return DEVO_OK;
}

/* nrows lines of (at least / exactly) dim numbers; with no_more, nothing may follow. */
static int read_rows(const char *path, const devo_allocator *al, double *out, int nrows, int dim,
                     int exact, int no_more, char *err, size_t errlen)
{
  cec_text t;
  const char *s;
  size_t n;
  int r, st = text_load(&t, path, al, err, errlen);
  if (st != DEVO_OK)
    return st;
  for (r = 0; r < nrows && st == DEVO_OK; ++r) {
    if (!text_next(&t, &s, &n)) {
      st = fail(err, errlen, DEVO_E_PARSE,
                "%s:%d: unexpected end of file: expected %d lines of %d numbers, found %d",
                path, t.line + 1, nrows, dim, r);
      break;
    }
    st = read_row(&t, s, n, out + (size_t)r * (size_t)dim, dim, exact, err, errlen);
  }
  if (st == DEVO_OK && no_more && text_next(&t, &s, &n))
    st = fail(err, errlen, DEVO_E_PARSE,
              "%s:%d: unexpected data after %d lines of %d numbers (a file for another "
              "dimension?)",
              path, t.line, nrows, dim);
  if (st == DEVO_OK)
    st = text_check_end(&t, err, errlen);
  text_free(&t);
  return st;
}

/* Exactly dim integers forming a permutation of 1..dim, anywhere on the lines; stored 0-based. */
static int read_shuffle(const char *path, const devo_allocator *al, int *out, int dim, char *err,
                        size_t errlen)
{
  cec_text t;
  const char *s;
  size_t n, p;
  char tok[48];
  int count = 0, full, st = text_load(&t, path, al, err, errlen), k;
  unsigned char *seen;
  if (st != DEVO_OK)
    return st;
  seen = (unsigned char *)devo__calloc(al, (size_t)dim, 1);
  if (!seen) {
    text_free(&t);
    return fail(err, errlen, DEVO_E_NOMEM, "%s: out of memory", path);
  }
  while (st == DEVO_OK && text_next(&t, &s, &n)) {
    p = 0;
    while (st == DEVO_OK && next_token(s, n, &p, tok, sizeof tok, &full)) {
      long v = 0;
      const char *c = tok;
      if (*c == '+')
        ++c;
      for (k = 0; full && *c >= '0' && *c <= '9' && v <= (long)dim; ++c, ++k)
        v = v * 10 + (*c - '0');
      if (!full || k == 0 || *c != 0) {
        if (full && k > 0 && *c >= '0' && *c <= '9')
          st = fail(err, errlen, DEVO_E_PARSE, "%s:%d: item %d: %s is not in 1..%d", path,
                    t.line, count + 1, tok, dim);
        else
          st = fail(err, errlen, DEVO_E_PARSE, "%s:%d: item %d: '%s%s' is not an integer",
                    path, t.line, count + 1, tok, full ? "" : "...");
      } else if (count >= dim) {
        st = fail(err, errlen, DEVO_E_PARSE,
                  "%s:%d: more than %d numbers (a file for another dimension?)", path, t.line,
                  dim);
      } else if (v < 1 || v > dim) {
        st = fail(err, errlen, DEVO_E_PARSE, "%s:%d: item %d: %ld is not in 1..%d", path,
                  t.line, count + 1, v, dim);
      } else if (seen[v - 1]) {
        st = fail(err, errlen, DEVO_E_PARSE,
                  "%s:%d: item %d: %ld appears twice (not a permutation of 1..%d)", path,
                  t.line, count + 1, v, dim);
      } else {
        seen[v - 1] = 1;
        out[count++] = (int)v - 1;
      }
    }
  }
  if (st == DEVO_OK && count < dim)
    st = fail(err, errlen, DEVO_E_PARSE,
              "%s:%d: expected %d numbers, found %d (truncated, or a file for another "
              "dimension?)",
              path, t.line > 0 ? t.line : 1, dim, count);
  if (st == DEVO_OK)
    st = text_check_end(&t, err, errlen);
  devo__free(al, seen);
  text_free(&t);
  return st;
}

/* Path of an official file: dir/<suite>/file when dir/<suite> is a folder, else dir/file. */
static int data_path(char *out, size_t cap, const char *dir, const char *suite, const char *file,
                     char *err, size_t errlen)
{
  struct stat sb;
  size_t dl = strlen(dir);
  int n;
  while (dl > 1 && dir[dl - 1] == '/')
    --dl;
  n = snprintf(out, cap, "%.*s/%s", (int)dl, dir, suite);
  if (n < 0 || (size_t)n >= cap)
    return fail(err, errlen, DEVO_E_INVALID, "%s: path too long", dir);
  if (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode))
    n = snprintf(out, cap, "%.*s/%s/%s", (int)dl, dir, suite, file);
  else
    n = snprintf(out, cap, "%.*s/%s", (int)dl, dir, file);
  if (n < 0 || (size_t)n >= cap)
    return fail(err, errlen, DEVO_E_INVALID, "%s: path too long", dir);
  return DEVO_OK;
}

static int load_official(int id, int dim, const char *dir, const devo_allocator *al,
                         double *shift, double *rot, int *shuffle, char *err, size_t errlen)
{
  const cec_entry *e = &cec_table[id - 1];
  int ncomp = devo__cec_nshift(id), comp = devo__cec_family(id) == DEVO__CEC_COMPOSITION;
  char file[64], path[4096];
  int st;
  snprintf(file, sizeof file, "shift_data_%d.txt", e->official_num);
  st = data_path(path, sizeof path, dir, e->suite, file, err, errlen);
  if (st == DEVO_OK)
    st = read_rows(path, al, shift, ncomp, dim, 0, 0, err, errlen);
  if (st != DEVO_OK)
    return st;
  snprintf(file, sizeof file, "M_%d_D%d.txt", e->official_num, dim);
  st = data_path(path, sizeof path, dir, e->suite, file, err, errlen);
  /* compositions stack 10 matrices and use the first ncomp; a single matrix is exactly D x D */
  if (st == DEVO_OK)
    st = read_rows(path, al, rot, ncomp * dim, dim, 1, !comp, err, errlen);
  if (st != DEVO_OK || !shuffle)
    return st;
  snprintf(file, sizeof file, "shuffle_data_%d_D%d.txt", e->official_num, dim);
  st = data_path(path, sizeof path, dir, e->suite, file, err, errlen);
  if (st == DEVO_OK)
    st = read_shuffle(path, al, shuffle, dim, err, errlen);
  return st;
}

/* ---- generated data ------------------------------------------------------------------------- */

static uint32_t stream_of(int id, int array, int k)
{
  return (uint32_t)(256 * id + 16 * array + k);
}

static void gen_shift(uint64_t seed, int id, int k, int dim, double *o)
{
  int j;
  for (j = 0; j < dim; ++j) {
    devo__u32x4 w =
        devo__rng(seed, (uint32_t)j, 0u, stream_of(id, CEC_STREAM_SHIFT, k), DEVO__RNG_DATA);
    o[j] = -80.0 + 160.0 * devo__u01(w.v[0], w.v[1]);
  }
}

/* A random orthogonal matrix (rows orthonormal), see the top of the file. */
static void gen_rotation(uint64_t seed, int id, int k, int dim, double *m)
{
  int i, j, r, pass;
  uint32_t attempt;
  for (i = 0; i < dim; ++i) {
    double *v = m + (size_t)i * (size_t)dim;
    for (attempt = 0;; ++attempt) {
      double n0 = 0.0, n1 = 0.0;
      for (j = 0; j < dim; ++j) {
        devo__u32x4 w = devo__rng(seed, (uint32_t)j + (attempt << 24), (uint32_t)i,
                                  stream_of(id, CEC_STREAM_ROT, k), DEVO__RNG_DATA);
        v[j] = 2.0 * devo__u01(w.v[0], w.v[1]) - 1.0;
        n0 += v[j] * v[j];
      }
      for (pass = 0; pass < 2; ++pass)
        for (r = 0; r < i; ++r) {
          const double *q = m + (size_t)r * (size_t)dim;
          double dot = 0.0;
          for (j = 0; j < dim; ++j)
            dot += q[j] * v[j];
          for (j = 0; j < dim; ++j)
            v[j] -= dot * q[j];
        }
      for (j = 0; j < dim; ++j)
        n1 += v[j] * v[j];
      if (n1 > 1e-16 * n0 && n1 > 0.0) {
        n1 = sqrt(n1);
        for (j = 0; j < dim; ++j)
          v[j] /= n1;
        break;
      }
    }
  }
}

static void gen_shuffle(uint64_t seed, int id, int dim, int *p)
{
  int i;
  for (i = 0; i < dim; ++i)
    p[i] = i;
  for (i = dim - 1; i > 0; --i) {
    devo__u32x4 w =
        devo__rng(seed, (uint32_t)i, 0u, stream_of(id, CEC_STREAM_SHUFFLE, 0), DEVO__RNG_DATA);
    uint32_t j = devo__below(w.v[0], (uint32_t)i + 1u);
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* ---- entry point ---------------------------------------------------------------------------- */

int devo__cec_make(int id, int dim, uint64_t data_seed, const char *dir, const devo_allocator *al,
                   double **shift, double **rot, int **shuffle, char *err, size_t errlen)
{
  devo_allocator a = devo__allocator_or_default(al);
  double *sh = NULL, *m = NULL;
  int *sf = NULL, ncomp, k, st = DEVO_OK;
  if (err && errlen)
    err[0] = 0;
  if (shift)
    *shift = NULL;
  if (rot)
    *rot = NULL;
  if (shuffle)
    *shuffle = NULL;
  if (id < 1 || id > CEC_N)
    return fail(err, errlen, DEVO_E_INVALID, "no CEC function with id %d (1..10)", id);
  if (!shift || !rot || !shuffle)
    return fail(err, errlen, DEVO_E_INVALID, "%s: NULL output pointer", cec_table[id - 1].name);
  if (dir) {
    if (dim != 10 && dim != 30 && dim != 50 && dim != 100)
      return fail(err, errlen, DEVO_E_INVALID,
                  "%s: the official data exists for D = 10, 30, 50, 100 only (got %d); "
                  "omit the data folder to use generated data",
                  cec_table[id - 1].name, dim);
  } else if (!devo__cec_dim_ok(id, dim)) {
    if (dim < 2 || dim > DEVO__CEC_MAX_DIM)
      return fail(err, errlen, DEVO_E_INVALID, "%s: dimension %d is out of range 2..%d",
                  cec_table[id - 1].name, dim, DEVO__CEC_MAX_DIM);
    return fail(err, errlen, DEVO_E_INVALID,
                "%s: dimension %d leaves a hybrid group empty (groups ceil(p_k D)); every D >= "
                "%d works",
                cec_table[id - 1].name, dim, devo__cec_min_dim(id));
  }
  ncomp = devo__cec_nshift(id);
  sh = (double *)devo__alloc(&a, (size_t)ncomp * (size_t)dim, sizeof(double));
  m = (double *)devo__alloc(&a, (size_t)ncomp * (size_t)dim * (size_t)dim, sizeof(double));
  if (devo__cec_family(id) == DEVO__CEC_HYBRID)
    sf = (int *)devo__alloc(&a, (size_t)dim, sizeof(int));
  if (!sh || !m || (devo__cec_family(id) == DEVO__CEC_HYBRID && !sf)) {
    st = fail(err, errlen, DEVO_E_NOMEM, "%s: out of memory for the data at D = %d",
              cec_table[id - 1].name, dim);
  } else if (dir) {
    st = load_official(id, dim, dir, &a, sh, m, sf, err, errlen);
  } else {
    for (k = 0; k < ncomp; ++k) {
      gen_shift(data_seed, id, k, dim, sh + (size_t)k * (size_t)dim);
      gen_rotation(data_seed, id, k, dim, m + (size_t)k * (size_t)dim * (size_t)dim);
    }
    if (sf)
      gen_shuffle(data_seed, id, dim, sf);
  }
  if (st != DEVO_OK) {
    devo__free(&a, sh);
    devo__free(&a, m);
    devo__free(&a, sf);
    return st;
  }
  *shift = sh;
  *rot = m;
  *shuffle = sf;
  return DEVO_OK;
}
