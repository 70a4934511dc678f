/* SPDX-License-Identifier: MIT */
/* read_src.c: whole inputs read in bounded chunks, checked as they arrive (read_src.h). */
#define _POSIX_C_SOURCE 200809L
#include "read_src.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "devo_alloc.h"

#define CHUNK ((size_t)1 << 16)

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int
fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
  va_list ap;
  if (err && errlen) {
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

static double mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Line and column (1-based) of byte k of b, lines counted at LF as the readers' messages always
 * did: only on an error, so a second pass is fine. */
static void where(const char *b, size_t k, long *line, long *col)
{
  size_t i;
  *line = 1;
  *col = 1;
  for (i = 0; i < k; ++i, ++*col)
    if (b[i] == '\n') {
      ++*line;
      *col = 0;
    }
}

/* A block for a large regular file gets its pages mapped by several threads before read()
 * fills it (issue 19): the page faults were half of reading a 79 MB file, all on one core. A
 * window at a time, just ahead of the reading, so that an input refused early (a NUL byte, a
 * long line) has not made the process touch memory for all of its size. */
#define PREFAULT_MIN     ((size_t)8 << 20)  /* blocks from this size */
#define PREFAULT_WINDOW  ((size_t)32 << 20) /* mapped at a time, 2 MiB a thread at least */
#define PREFAULT_THREADS DEVO__JOBS_MAX

typedef struct prefault_job {
  char *p;
  size_t n, page;
} prefault_job;

void devo__run_jobs(void *jobs, size_t size, int t, void *(*fn)(void *))
{
  pthread_t th[DEVO__JOBS_MAX];
  char made[DEVO__JOBS_MAX] = {0};
  char *b = (char *)jobs;
  int k;
  for (k = 1; k < t; ++k)
    made[k] = pthread_create(&th[k], NULL, fn, b + (size_t)k * size) == 0;
  fn(b);
  for (k = 1; k < t; ++k) {
    if (made[k])
      pthread_join(th[k], NULL);
    else
      fn(b + (size_t)k * size);
  }
}

static void *prefault_run(void *arg)
{
  prefault_job *j = (prefault_job *)arg;
  volatile char *p = j->p;
  size_t i;
  for (i = 0; i < j->n; i += j->page)
    p[i] = 0;
  return NULL;
}

static void prefault(char *b, size_t n)
{
  prefault_job job[PREFAULT_THREADS];
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN), pg = sysconf(_SC_PAGESIZE);
  size_t t = n / (PREFAULT_WINDOW / PREFAULT_THREADS), per, k;
  if (cpus > 0 && t > (size_t)cpus)
    t = (size_t)cpus;
  if (t > PREFAULT_THREADS)
    t = PREFAULT_THREADS;
  if (cpus < 2 || t < 2 || pg <= 0)
    return;
  per = (n / t + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
  for (k = 0; k < t; ++k) {
    job[k].p = b + k * per;
    job[k].n = k == t - 1 ? n - k * per : per;
    job[k].page = (size_t)pg;
  }
  devo__run_jobs(job, sizeof job[0], (int)t, prefault_run);
}

/* Up to want bytes of fd into p: >0 bytes, 0 at the end, -1 with errno, -2 at the deadline.
 * poll() waits for data no later than the deadline; a non-blocking descriptor with nothing to
 * read waits there too. */
static long fd_read(int fd, char *p, size_t want, double deadline)
{
  for (;;) {
    ssize_t got;
    if (deadline > 0.0) {
      struct pollfd pf;
      double left = deadline - mono_now();
      int ms, pr;
      if (left <= 0.0)
        return -2;
      ms = left > 3600.0 ? 3600000 : (int)(left * 1000.0) + 1; /* rounded up */
      pf.fd = fd;
      pf.events = POLLIN;
      pf.revents = 0;
      pr = poll(&pf, 1, ms);
      if (pr < 0 && errno == EINTR)
        continue;
      if (pr < 0)
        return -1;
      if (pr == 0)
        continue; /* the clock decides */
    }
    got = read(fd, p, want);
    if (got >= 0)
      return (long)got;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      struct pollfd pf;
      pf.fd = fd;
      pf.events = POLLIN;
      pf.revents = 0;
      if (deadline <= 0.0)
        (void)poll(&pf, 1, -1);
      continue;
    }
    return -1;
  }
}

/* The checks on new bytes b[from, to): NUL, line length (*cur: bytes of the line in progress). */
static int check_new(const char *name, const devo__rdlim *lim, const char *b, size_t from,
                     size_t to, size_t *cur, char *err, size_t errlen)
{
  const char *z = (const char *)memchr(b + from, 0, to - from);
  long line, col;
  size_t i;
  if (z) {
    where(b, (size_t)(z - b), &line, &col);
    return fail(err, errlen, DEVO_E_PARSE, "%s:%ld:%ld: NUL byte: not a text file", name, line,
                col);
  }
  if (lim->max_line == 0)
    return DEVO_OK;
  /* a stretch between LFs no longer than the limit needs no look at its bytes (a CR in it only
   * shortens its lines): found with memchr, the byte loop only where a line may be too long */
  for (i = from; i < to;) {
    const char *lf = (const char *)memchr(b + i, '\n', to - i);
    const size_t e = lf ? (size_t)(lf - b) : to;
    if (*cur + (e - i) <= lim->max_line) {
      size_t k = e;
      if (!lf) { /* the line goes on in the next bytes: its length so far, after any CR */
        while (k > i && b[k - 1] != '\r')
          --k;
        *cur = k > i ? e - k : *cur + (e - i);
      } else {
        *cur = 0;
      }
      i = lf ? e + 1 : e;
      continue;
    }
    for (; i < e; ++i) {
      if (b[i] == '\r') {
        *cur = 0;
        continue;
      }
      if (++*cur > lim->max_line) {
        where(b, i, &line, &col);
        (void)col;
        return fail(err, errlen, DEVO_E_PARSE,
                    "%s:%ld:1: a line of more than %zu bytes (the line length limit)", name, line,
                    lim->max_line);
      }
    }
    if (lf) {
      *cur = 0;
      i = e + 1;
    }
  }
  return DEVO_OK;
}

int devo__read_all(FILE *f, int fd, const char *name, const devo__rdlim *lim,
                   const devo_allocator *al_in, char **out, size_t *n, char *err, size_t errlen)
{
  static const devo__rdlim none = {0, 0, 0.0};
  const devo_allocator dal = devo__allocator_or_default(al_in);
  const devo_allocator *al = &dal;
  char *buf = NULL;
  size_t len = 0, cap = 0, cur = 0, size_hint = 0, faulted = (size_t)-1;
  int rc = DEVO_OK;
  double deadline;
  struct stat st;
  if (!lim)
    lim = &none;
  /* The deadline bounds the wait for data that may come late or never (a pipe, a FIFO, a socket,
   * a terminal, a device). A regular file has all its bytes already, bounded by max_bytes: it is
   * read to its end, and a caller past its deadline answers late and says so (devo schedule's
   * "deadline missed"), which beats giving up after the time was spent. */
  deadline = lim->deadline;
  if ((fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ||
      (fd < 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))) {
    deadline = 0.0;
    /* its size is known: one block once its first bytes have passed the checks (a sparse file
     * of NUL bytes gets no block of its size), not a series of copies (issue 19) */
    if (st.st_size > 0)
      size_hint = (size_t)st.st_size;
  }
  *out = NULL;
  *n = 0;
  for (;;) {
    size_t want;
    long got;
    if (cap - len < CHUNK + 1) {
      /* geometric: every byte is copied a bounded number of times */
      size_t ncap = cap ? 2 * cap : 4 * CHUNK;
      char *nb;
      if (cap && size_hint > ncap - CHUNK - 1) {
        ncap = size_hint + CHUNK + 1; /* + 1: the end, read as 0 bytes, needs CHUNK free */
        size_hint = 0;                /* once */
        faulted = len;
      }
      if (lim->max_bytes && ncap > lim->max_bytes + CHUNK + 2)
        ncap = lim->max_bytes + CHUNK + 2;
      nb = (char *)devo__alloc(al, ncap, 1);
      if (!nb) {
        rc = fail(err, errlen, DEVO_E_NOMEM, "%s: out of memory after %zu bytes", name, len);
        break;
      }
      if (len)
        memcpy(nb, buf, len);
      devo__free(al, buf);
      buf = nb;
      cap = ncap;
    }
    if (faulted < cap && len + CHUNK > faulted && cap >= PREFAULT_MIN) {
      /* the next window of a large block: never far ahead of what was read and checked */
      const size_t w = cap - faulted < PREFAULT_WINDOW ? cap - faulted : PREFAULT_WINDOW;
      prefault(buf + faulted, w);
      faulted += w;
    }
    want = CHUNK;
    if (fd >= 0) {
      got = fd_read(fd, buf + len, want, deadline);
      if (got == -2) {
        rc = fail(err, errlen, DEVO_E_DEADLINE,
                  "%s: the input was not read by the deadline (%zu bytes came)", name, len);
        break;
      }
    } else {
      got = (long)fread(buf + len, 1, want, f);
      if (got == 0 && ferror(f))
        got = -1;
    }
    if (got < 0) {
      const int e = errno;
      rc = fail(err, errlen, DEVO_E_IO, "%s: read error: %s", name, strerror(e ? e : EIO));
      break;
    }
    if (got == 0)
      break;
    rc = check_new(name, lim, buf, len, len + (size_t)got, &cur, err, errlen);
    len += (size_t)got;
    if (rc != DEVO_OK)
      break;
    if (lim->max_bytes && len > lim->max_bytes) {
      rc = fail(err, errlen, DEVO_E_PARSE, "%s: more than %zu bytes (the input size limit)", name,
                lim->max_bytes);
      break;
    }
    if (fd < 0 && deadline > 0.0 && mono_now() >= deadline) {
      rc = fail(err, errlen, DEVO_E_DEADLINE,
                "%s: the input was not read by the deadline (%zu bytes came)", name, len);
      break;
    }
  }
  if (rc != DEVO_OK) {
    devo__free(al, buf);
    return rc;
  }
  if (!buf) {
    buf = (char *)devo__alloc(al, 1, 1);
    if (!buf)
      return fail(err, errlen, DEVO_E_NOMEM, "%s: out of memory", name);
  }
  buf[len] = 0;
  *out = buf;
  *n = len;
  return DEVO_OK;
}
