/* SPDX-License-Identifier: MIT */
/* cli_results.c: what keeps a study's results files whole (experiment.h, docs/experiment.md): the
 * one writer of a results or trace file (an OS lock held for the whole run, gone with its
 * process), the spec hash of a file's first line, the shard of its second, and the one check of a
 * set of results files (one file, the parts of a study given to devo rank, the shards of one
 * spec): every file of the same spec, no trial twice, every shard once. Nothing here prints. */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

/* ---- the spec hash of a results file -------------------------------------------------------- */

void exp_header_line(char *buf, size_t len, const char *spec_path, uint64_t hash)
{
  snprintf(buf, len, "# devo experiment %s spec=%s hash=%016llx\n", devo_version(), spec_path,
           (unsigned long long)hash);
}

int exp_header_hash(const char *line, uint64_t *h)
{
  const char *p = line ? strstr(line, " hash=") : NULL;
  unsigned long long v;
  if (!p || strncmp(line, "# devo experiment ", 18) != 0 || sscanf(p + 6, "%16llx", &v) != 1)
    return -1;
  *h = v;
  return 0;
}

/* ---- shards --------------------------------------------------------------------------------- */

void exp_shard_line(char *buf, size_t len, int k, int n)
{
  snprintf(buf, len, "# shard %d/%d\n", k, n);
}

/* A decimal count 1 .. EXP_SHARDS_MAX at *p (digits only), *p moved past it; -1 when none. */
static int shard_number(const char **p)
{
  long v = 0;
  if (!isdigit((unsigned char)**p))
    return -1;
  for (; isdigit((unsigned char)**p); ++*p)
    if ((v = v * 10 + (**p - '0')) > EXP_SHARDS_MAX)
      return -1;
  return v >= 1 ? (int)v : -1;
}

int exp_shard_value(const char *v, int *k, int *n)
{
  const char *p = v;
  int a = shard_number(&p), b = -1;
  if (*p == '/') {
    ++p;
    b = shard_number(&p);
  }
  if (a < 0 || b < 0 || *p || a > b)
    return -1;
  *k = a;
  *n = b;
  return 0;
}

int exp_shard_parse(const char *line, int *k, int *n)
{
  char v[32];
  size_t len;
  if (!line || strncmp(line, "# shard ", 8) != 0)
    return -1;
  line += 8;
  len = strcspn(line, "\r\n");
  if (len >= sizeof v || line[len + strspn(line + len, "\r\n")])
    return -1;
  memcpy(v, line, len);
  v[len] = 0;
  return exp_shard_value(v, k, n);
}

char *exp_shard_path(const char *path, int k, int n)
{
  const char *base = strrchr(path, '/'), *dot;
  char tag[32];
  char *out;
  size_t at;
  base = base ? base + 1 : path;
  dot = strrchr(base, '.');
  at = dot && dot > base ? (size_t)(dot - path) : strlen(path); /* ".hidden": no extension */
  snprintf(tag, sizeof tag, ".%d-of-%d", k, n);
  if (!(out = malloc(strlen(path) + strlen(tag) + 1)))
    return NULL;
  memcpy(out, path, at);
  strcpy(out + at, tag);
  strcat(out, path + at);
  return out;
}

/* ---- one writer ------------------------------------------------------------------------------
 * Two locks on each file: an open-file-description lock on byte 0 keeps a second writer out
 * (it belongs to the descriptor, so the process's other opens and closes of the file leave it
 * alone), and a POSIX lock on byte 1 names the holder (F_GETLK reports a POSIX lock's pid, an OFD
 * lock's as -1). Both go with the process, a kill -9 included: nothing stale is left behind. */

#ifdef F_OFD_SETLK
#define EXCL_LOCK F_OFD_SETLK
#else
#define EXCL_LOCK F_SETLK /* without OFD locks: POSIX only (a close of the file drops it) */
#endif

static int lock_byte(int fd, int cmd, off_t at)
{
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = at;
  fl.l_len = 1;
  return fcntl(fd, cmd, &fl);
}

void exp_lock_mark(int fd)
{
#ifndef F_OFD_SETLK
  (void)lock_byte(fd, F_SETLK, 0); /* POSIX only: the close that dropped the mark dropped it too */
#endif
  (void)lock_byte(fd, F_SETLK, 1); /* only the name of the holder: its failure costs the pid */
}

int exp_lock_fd(int fd, const char *path, char *err, size_t errlen)
{
  struct flock fl;
  err[0] = 0;
  if (lock_byte(fd, EXCL_LOCK, 0) != 0) {
    if (errno != EAGAIN && errno != EACCES) { /* a file system without locks: say so, go on */
      snprintf(err, errlen, "%s: cannot be locked (%s): a second run on it is not kept out", path,
               strerror(errno));
      return 0;
    }
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 1;
    fl.l_len = 1;
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK && fl.l_pid > 0)
      snprintf(err, errlen,
               "%s: in use by process %ld (a devo experiment writing it); wait for it to end or "
               "give another output",
               path, (long)fl.l_pid);
    else
      snprintf(err, errlen,
               "%s: in use by another process (a devo experiment writing it); wait for it to end "
               "or give another output",
               path);
    return 2;
  }
  exp_lock_mark(fd);
  return 0;
}

int exp_lock_open(const char *path, int *fd, int *created, char *err, size_t errlen)
{
  int tries, rc;
  *created = 0;
  for (tries = 0; tries < 16; ++tries) {
    struct stat a, b;
    int f = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    *created = f >= 0;
    if (f < 0 && errno == EEXIST)
      f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0 && errno == ENOENT && tries + 1 < 16)
      continue; /* removed between the two opens */
    if (f < 0)
      return -1;
    if ((rc = exp_lock_fd(f, path, err, errlen)) != 0) {
      close(f);
      return rc;
    }
    /* the path may have been replaced after the open (a trace renamed over it by the holder,
     * which locked the new file first): then the lock is on a file nobody reads, try again */
    if (fstat(f, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      *fd = f;
      return 0;
    }
    close(f);
  }
  snprintf(err, errlen, "%s: replaced again and again while being locked", path);
  return 2;
}

/* ---- the trials of a set of results files --------------------------------------------------- */

typedef struct tkey {
  uint32_t alg, bk, prob; /* interned names */
  int32_t np, dim;
  uint64_t seed;
} tkey;

typedef struct tentry {
  tkey k;
  int used, file;
  long line;
} tentry;

struct exp_trialset {
  int nfiles_given; /* files the caller will give: parts must name their spec when above 1 */
  char **files;
  int *fshard; /* each file's shard, 0 = none */
  int nfiles;
  int nshards;     /* the N of the shards given; 0 = none yet */
  int *shard_file; /* shard K's file + 1 (0 = not given), K = 1 .. nshards */
  int have_hash, hash_file;
  uint64_t hash;
  char **names; /* interned names and their table (slot = id + 1, 0 = free) */
  uint32_t nnames, names_cap, *nslot;
  size_t nslot_cap;
  tentry *slot;
  size_t count, cap;
};

static uint64_t mix(uint64_t x)
{
  /* splitmix64's finaliser */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t str_hash(const char *s)
{
  uint64_t h = 14695981039346656037ULL; /* FNV-1a */
  for (; *s; ++s) {
    h ^= (unsigned char)*s;
    h *= 1099511628211ULL;
  }
  return h;
}

static uint64_t key_hash(const tkey *k)
{
  uint64_t h = mix(k->alg + 0x9e3779b97f4a7c15ULL * (k->bk + 1));
  h = mix(h ^ (k->prob + ((uint64_t)(uint32_t)k->np << 32)));
  h = mix(h ^ (uint64_t)(uint32_t)k->dim);
  return mix(h ^ k->seed);
}

exp_trialset *exp_trialset_new(int nfiles)
{
  exp_trialset *t = calloc(1, sizeof *t);
  if (t)
    t->nfiles_given = nfiles;
  return t;
}

void exp_trialset_free(exp_trialset *t)
{
  uint32_t k;
  int f;
  if (!t)
    return;
  for (f = 0; f < t->nfiles; ++f)
    free(t->files[f]);
  for (k = 0; k < t->nnames; ++k)
    free(t->names[k]);
  free(t->files);
  free(t->fshard);
  free(t->shard_file);
  free(t->names);
  free(t->nslot);
  free(t->slot);
  free(t);
}

/* The id of name, added when new; -1 when out of memory. */
static long intern(exp_trialset *t, const char *name)
{
  size_t i, mask;
  if (2 * ((size_t)t->nnames + 1) > t->nslot_cap) {
    const size_t cap = t->nslot_cap ? 2 * t->nslot_cap : 64;
    uint32_t *ns = calloc(cap, sizeof *ns), k;
    if (!ns)
      return -1;
    for (k = 0; k < t->nnames; ++k) {
      for (i = str_hash(t->names[k]) & (cap - 1); ns[i]; i = (i + 1) & (cap - 1))
        ;
      ns[i] = k + 1;
    }
    free(t->nslot);
    t->nslot = ns;
    t->nslot_cap = cap;
  }
  mask = t->nslot_cap - 1;
  for (i = str_hash(name) & mask; t->nslot[i]; i = (i + 1) & mask)
    if (strcmp(t->names[t->nslot[i] - 1], name) == 0)
      return (long)t->nslot[i] - 1;
  if (t->nnames == t->names_cap) {
    const uint32_t cap = t->names_cap ? 2 * t->names_cap : 16;
    char **nn = realloc(t->names, sizeof *nn * cap);
    if (!nn)
      return -1;
    t->names = nn;
    t->names_cap = cap;
  }
  if (!(t->names[t->nnames] = strdup(name)))
    return -1;
  t->nslot[i] = ++t->nnames;
  return (long)t->nnames - 1;
}

static int grow_trials(exp_trialset *t)
{
  const size_t cap = t->cap ? 2 * t->cap : 1024;
  tentry *ns = calloc(cap, sizeof *ns);
  size_t k, i;
  if (!ns)
    return -1;
  for (k = 0; k < t->cap; ++k)
    if (t->slot[k].used) {
      for (i = key_hash(&t->slot[k].k) & (cap - 1); ns[i].used; i = (i + 1) & (cap - 1))
        ;
      ns[i] = t->slot[k];
    }
  free(t->slot);
  t->slot = ns;
  t->cap = cap;
  return 0;
}

int exp_trialset_file(exp_trialset *t, const char *file, const char *first_line, char *err,
                      size_t errlen)
{
  char **nf = realloc(t->files, sizeof *nf * (size_t)(t->nfiles + 1));
  int *fs = nf ? realloc(t->fshard, sizeof *fs * (size_t)(t->nfiles + 1)) : NULL;
  uint64_t h;
  if (nf)
    t->files = nf;
  if (fs)
    t->fshard = fs;
  if (!fs || !(nf[t->nfiles] = strdup(file))) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  fs[t->nfiles] = 0;
  t->nfiles++;
  if (exp_header_hash(first_line, &h) != 0) {
    if (t->nfiles_given < 2)
      return 0; /* one file: nothing to agree with */
    snprintf(err, errlen,
             "%s:1: no '# devo experiment ... hash=' first line: the parts of a study are taken "
             "together only when each names its spec",
             file);
    return 2;
  }
  if (!t->have_hash) {
    t->have_hash = 1;
    t->hash = h;
    t->hash_file = t->nfiles - 1;
    return 0;
  }
  if (h == t->hash)
    return 0;
  snprintf(err, errlen,
           "%s and %s are not parts of one study: written by different specs (hash %016llx and "
           "%016llx)",
           t->files[t->hash_file], file, (unsigned long long)t->hash, (unsigned long long)h);
  return 2;
}

int exp_trialset_add(exp_trialset *t, long line, const char *alg, int np, const char *backend,
                     const char *problem, int dim, uint64_t seed, char *err, size_t errlen)
{
  const long a = intern(t, alg), b = intern(t, backend), p = intern(t, problem);
  tkey k;
  size_t i;
  if (a < 0 || b < 0 || p < 0 || (2 * (t->count + 1) > t->cap && grow_trials(t) != 0)) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  memset(&k, 0, sizeof k);
  k.alg = (uint32_t)a;
  k.bk = (uint32_t)b;
  k.prob = (uint32_t)p;
  k.np = np;
  k.dim = dim;
  k.seed = seed;
  for (i = key_hash(&k) & (t->cap - 1); t->slot[i].used; i = (i + 1) & (t->cap - 1))
    if (memcmp(&t->slot[i].k, &k, sizeof k) == 0) {
      snprintf(err, errlen,
               "%s:%ld: trial %s %s D=%d NP=%d seed %llu %s again (first at %s:%ld): a trial "
               "twice",
               t->files[t->nfiles - 1], line, alg, problem, dim, np, (unsigned long long)seed,
               backend, t->files[t->slot[i].file], t->slot[i].line);
      return 1;
    }
  t->slot[i].k = k;
  t->slot[i].used = 1;
  t->slot[i].file = t->nfiles - 1;
  t->slot[i].line = line;
  t->count++;
  return 0;
}

int exp_trialset_comment(exp_trialset *t, long line, const char *text, char *err, size_t errlen)
{
  const int f = t->nfiles - 1;
  int k, n;
  if (f < 0 || exp_shard_parse(text, &k, &n) != 0)
    return 0;
  if (t->fshard[f]) {
    snprintf(err, errlen, "%s:%ld: a second shard line (shard %d/%d already)", t->files[f], line,
             t->fshard[f], t->nshards);
    return 2;
  }
  if (!t->nshards) {
    if (!(t->shard_file = calloc((size_t)n + 1, sizeof *t->shard_file))) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    t->nshards = n;
  }
  if (n != t->nshards) {
    snprintf(err, errlen,
             "%s:%ld: shard %d/%d, but %s is a shard of %d: the shards of one run have one count",
             t->files[f], line, k, n, t->files[t->shard_file[0] - 1], t->nshards);
    return 2;
  }
  if (t->shard_file[k]) {
    snprintf(err, errlen, "%s:%ld: shard %d/%d again (first in %s): a shard twice", t->files[f],
             line, k, n, t->files[t->shard_file[k] - 1]);
    return 2;
  }
  t->shard_file[k] = f + 1;
  if (!t->shard_file[0])
    t->shard_file[0] = f + 1; /* the first shard's file, for the messages */
  t->fshard[f] = k;
  return 0;
}

int exp_trialset_end(exp_trialset *t, char *err, size_t errlen)
{
  size_t len;
  int k, shown = 0, missing = 0;
  if (!t->nshards)
    return 0;
  for (k = 0; k < t->nfiles; ++k)
    if (!t->fshard[k]) {
      snprintf(err, errlen,
               "%s is no shard, but %s is shard %d/%d: a whole run and shards are not taken "
               "together",
               t->files[k], t->files[t->shard_file[0] - 1], t->fshard[t->shard_file[0] - 1],
               t->nshards);
      return 2;
    }
  for (k = 1; k <= t->nshards; ++k)
    missing += !t->shard_file[k];
  if (!missing)
    return 0;
  len = (size_t)snprintf(err, errlen, "shard%s", missing > 1 ? "s" : "");
  for (k = 1; k <= t->nshards && len < errlen; ++k)
    if (!t->shard_file[k] && shown++ < 10)
      len += (size_t)snprintf(err + len, errlen - len, "%s %d", shown > 1 ? "," : "", k);
  if (len < errlen && missing > 10)
    len += (size_t)snprintf(err + len, errlen - len, " and %d more", missing - 10);
  if (len < errlen)
    snprintf(err + len, errlen - len, " of %d missing: give every shard of the run (%d given)",
             t->nshards, t->nshards - missing);
  return 2;
}
