/* tool_util.c: what the devo CLI and etc-gen share (tool_util.h). */
#define _POSIX_C_SOURCE 200809L
#include "tool_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/include/devo.h"

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

FILE *out_file_open(const char *path, char *tmp, size_t tmplen)
{
  FILE *f;
  int fd, e;
  snprintf(tmp, tmplen, "%s.%ld.tmp", path, (long)getpid());
  /* O_EXCL: never write through a file or link that is already there */
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0)
    return NULL;
  f = fdopen(fd, "w");
  if (!f) {
    e = errno;
    close(fd);
    remove(tmp);
    errno = e;
  }
  return f;
}

int out_file_close(FILE *f, const char *tmp, const char *path)
{
  int bad = ferror(f), e;
  errno = 0;
  bad |= fclose(f) != 0;
  if (!bad && rename(tmp, path) == 0)
    return 0;
  e = errno ? errno : EIO;
  remove(tmp);
  return e;
}

void out_file_discard(FILE *f, const char *tmp)
{
  fclose(f);
  remove(tmp);
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
