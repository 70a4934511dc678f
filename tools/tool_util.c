/* SPDX-License-Identifier: MIT */
/* tool_util.c: what the devo CLI and etc-gen share (tool_util.h). */
#define _GNU_SOURCE /* POSIX 2008 with realpath; O_TMPFILE and linkat's AT_EMPTY_PATH (Linux) */
#include "tool_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/include/devo.h"

/* tool_std_args's copy of argv, kept reachable: LeakSanitizer (scripts/sanitize_check.sh) reported
 * it as leaked when main returned. */
static char **volatile std_args_copy; /* volatile: a store never read is not optimised away */

int tool_std_args(const char *prog, const char *usage, int *argc, char ***argv)
{
  char **in = *argv, **out;
  int n = *argc, i, k = 0, opts = 1;
  for (i = 1; i < n && strcmp(in[i], "--") != 0; ++i) {
    if (strcmp(in[i], "-h") == 0 || strcmp(in[i], "--help") == 0) {
      fputs(usage, stdout);
      return 1;
    }
    if (strcmp(in[i], "--version") == 0) {
      printf("%s %s\n", prog, devo_version());
      return 1;
    }
  }
  /* the copy is the program's argv from here on, so it lives as long as the process */
  out = malloc(sizeof *out * (2 * (size_t)n + 1));
  if (!out)
    return -1;
  std_args_copy = out;
  for (i = 0; i < n; ++i) {
    char *eq = in[i] ? strchr(in[i], '=') : NULL;
    if (i > 0 && strcmp(in[i], "--") == 0)
      opts = 0;
    if (i > 0 && opts && eq && strncmp(in[i], "--", 2) == 0) {
      *eq = 0; /* argv strings are the program's to modify (C11 5.1.2.2.1) */
      out[k++] = in[i];
      out[k++] = eq + 1;
    } else {
      out[k++] = in[i];
    }
  }
  out[k] = NULL;
  *argc = k;
  *argv = out;
  return 0;
}

/* The temporary file of the output in progress, for the signal handlers: a fixed buffer and a
 * flag, since a handler may only call async-signal-safe functions (unlink is one). */
static char tmp_registered[4096 + 64];
static volatile sig_atomic_t tmp_have;

void tool_tmp_cleanup(void)
{
  if (tmp_have) {
    tmp_have = 0;
    (void)unlink(tmp_registered);
  }
}

void tool_tmp_register(const char *tmp)
{
  const size_t n = strlen(tmp);
  tmp_have = 0;
  if (n >= sizeof tmp_registered)
    return;
  memcpy(tmp_registered, tmp, n + 1);
  tmp_have = 1;
}

void tool_tmp_unregister(void)
{
  tmp_have = 0;
}

/* SIGTERM, SIGINT, SIGHUP where nobody handles them: remove the temporary file, then die of the
 * signal as before (the exit status still says which). */
static void on_fatal_signal(int sig)
{
  tool_tmp_cleanup();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_cleanup_handlers(void)
{
  static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
  size_t k;
  for (k = 0; k < sizeof sigs / sizeof sigs[0]; ++k) {
    struct sigaction old, sa;
    if (sigaction(sigs[k], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
      continue; /* ignored, or the program's own handler (which calls tool_tmp_cleanup) */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(sigs[k], &sa, NULL);
  }
}

/* A descriptor opened on an existing non-regular file (FIFO, device), written through: opening
 * a FIFO without a reader would wait for one forever, so it is refused (ENXIO) instead. */
static FILE *open_through(const char *path)
{
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC), fl, e;
  FILE *f;
  if (fd < 0)
    return NULL;
  fl = fcntl(fd, F_GETFL);
  if (fl != -1)
    (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  f = fdopen(fd, "w");
  if (!f) {
    e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

/* The suffix of a temporary name: '.', six letters or digits, ".tmp" (a fixed length, so that
 * out_file_close finds the target again by cutting it off). */
#define TMP_SUFFIX_LEN 11

/* name (its target's path, then room for the suffix) with a new random suffix. */
static void tmp_name(char *name, size_t target_len)
{
  static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static unsigned long long state;
  struct timespec ts;
  int k;
  clock_gettime(CLOCK_REALTIME, &ts);
  state = state * 6364136223846793005ull + 1442695040888963407ull + (unsigned long long)ts.tv_nsec +
          ((unsigned long long)getpid() << 32);
  name[target_len] = '.';
  for (k = 0; k < 6; ++k)
    name[target_len + 1 + (size_t)k] = abc[(state >> (8 * k + 3)) % 36];
  memcpy(name + target_len + 7, ".tmp", 5);
}

/* A file beside target (its name's folder) with no name yet (O_TMPFILE): nothing on disk for a
 * killed process to leave; -1 where the file system or the kernel has none (or /proc, through
 * which out_file_close names it, is not there). */
static int open_unnamed(const char *target, mode_t mode)
{
#if defined(O_TMPFILE)
  const char *slash = strrchr(target, '/');
  char dir[4096];
  if (access("/proc/self/fd", X_OK) != 0)
    return -1;
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if ((size_t)(slash - target) < sizeof dir)
    snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
  else
    return -1;
  return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
#else
  (void)target;
  (void)mode;
  return -1;
#endif
}

/* A new temporary file beside target: unnamed where the system allows, else created under a
 * random name (tmp) that no other file has (O_EXCL, tried again on a clash). */
static int open_tmp(char *tmp, size_t target_len, mode_t mode)
{
  int fd = -1, tries;
  tmp[target_len] = 0;
  fd = open_unnamed(tmp, mode);
  tmp_name(tmp, target_len); /* the name it gets when the answer is written */
  if (fd >= 0)
    return fd;
  for (tries = 0; tries < 100; ++tries) {
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST)
      break;
    tmp_name(tmp, target_len);
  }
  return fd;
}

FILE *out_file_open(const char *path, char *tmp, size_t tmplen)
{
  struct stat st, lst;
  char *real = NULL;
  const char *target = path;
  FILE *f;
  int fd, e, exists;
  size_t tl;
  mode_t mode = 0666;
  tmp[0] = 0;
  exists = stat(path, &st) == 0; /* follows symbolic links */
  if (!exists && errno != ENOENT)
    return NULL;
  if (!exists && lstat(path, &lst) == 0) {
    errno = ENOENT; /* a symbolic link to nothing: no file of ours to create there */
    return NULL;
  }
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return NULL;
  }
  if (exists && !S_ISREG(st.st_mode))
    return open_through(path); /* tmp stays "": out_file_close only closes */
  if (exists) {
    /* a link is followed: the file it names is replaced, beside itself, and the link stays */
    real = realpath(path, NULL);
    if (!real)
      return NULL;
    target = real;
    mode = st.st_mode & 07777;
  }
  tl = strlen(target);
  if (tl + TMP_SUFFIX_LEN + 1 > tmplen) {
    free(real);
    errno = ENAMETOOLONG;
    return NULL;
  }
  memcpy(tmp, target, tl + 1);
  free(real);
  /* never through a file or link that is already there; the final mode from the start (the
   * umask applies to a new file only, as fopen would create it) */
  fd = open_tmp(tmp, tl, mode);
  if (fd < 0) {
    tmp[0] = 0;
    return NULL;
  }
  tool_tmp_register(tmp);
  install_cleanup_handlers();
  if (exists && (fchmod(fd, mode) != 0 || ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
                                           fchown(fd, st.st_uid, st.st_gid) != 0))) {
    /* the replaced file would lose its mode or owner: refused */
    e = errno;
    close(fd);
    unlink(tmp);
    tool_tmp_unregister();
    tmp[0] = 0;
    errno = e;
    return NULL;
  }
  f = fdopen(fd, "w");
  if (!f) {
    e = errno;
    close(fd);
    unlink(tmp);
    tool_tmp_unregister();
    tmp[0] = 0;
    errno = e;
  }
  return f;
}

/* The name of f's file: a named temporary's (tmp) is copied into name; an unnamed one (O_TMPFILE)
 * gets, when link is set, the name tmp or another free one of its form, written into name (else
 * name is ""). 0, or an errno value (name ""). */
static int name_file(FILE *f, const char *tmp, char *name, size_t tl, int link)
{
  struct stat st;
  char proc[64];
  int tries, e;
  name[0] = 0;
  if (fstat(fileno(f), &st) != 0)
    return errno;
  if (st.st_nlink > 0 || link) {
    memcpy(name, tmp, tl + TMP_SUFFIX_LEN + 1);
    if (st.st_nlink > 0)
      return 0;
  }
  if (!link)
    return 0;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(f));
  for (tries = 0; tries < 100; ++tries) {
    if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
      return 0;
    if (errno != EEXIST)
      break;
    tmp_name(name, tl); /* taken meanwhile: another name */
  }
  e = errno;
  name[0] = 0;
  return e;
}

int out_file_close(FILE *f, const char *tmp, const char *path)
{
  int bad, e, e2;
  char target[4096 + 64], name[4096 + 64];
  const size_t n = strlen(tmp);
  errno = 0;
  if (!tmp[0]) { /* written through */
    bad = ferror(f) | (fclose(f) != 0);
    return bad ? (errno ? errno : EIO) : 0;
  }
  (void)path;
  /* the file to replace is the temporary's name without its suffix (a link's target) */
  if (n <= TMP_SUFFIX_LEN || n >= sizeof target) {
    out_file_discard(f, tmp);
    return EINVAL;
  }
  memcpy(target, tmp, n - TMP_SUFFIX_LEN);
  target[n - TMP_SUFFIX_LEN] = 0;
  /* written and flushed whole before it gets a name: never a partial file under any name */
  e = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
  e2 = name_file(f, tmp, name, n - TMP_SUFFIX_LEN, !e);
  e = e ? e : e2;
  if (fclose(f) != 0 && !e)
    e = errno ? errno : EIO;
  if (!e && rename(name, target) == 0) {
    tool_tmp_unregister();
    return 0;
  }
  e = e ? e : errno ? errno : EIO;
  if (name[0])
    remove(name);
  tool_tmp_unregister();
  return e;
}

void out_file_discard(FILE *f, const char *tmp)
{
  struct stat st;
  /* an unnamed file (O_TMPFILE) has nothing to remove: tmp is the name it was to get */
  const int named = tmp[0] && fstat(fileno(f), &st) == 0 && st.st_nlink > 0;
  fclose(f);
  if (named)
    remove(tmp);
  tool_tmp_unregister();
}

int tool_parse_real(const char *s, double *out)
{
  char *end;
  double v;
  errno = 0;
  v = strtod(s, &end);
  if (end == s || *end != 0)
    return -1;
  if (!isfinite(v))
    return -2;
  *out = v;
  return 0;
}

int tool_parse_u64(const char *s, uint64_t *out)
{
  uint64_t v = 0;
  const char *p;
  for (p = s; *p >= '0' && *p <= '9'; ++p) {
    const unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) {
      while (*p >= '0' && *p <= '9')
        ++p;
      return *p ? -1 : -2;
    }
    v = v * 10 + d;
  }
  if (p == s || *p || (s[0] == '0' && s[1]))
    return -1;
  *out = v;
  return 0;
}

double tool_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
