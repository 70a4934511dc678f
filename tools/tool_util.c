/* tool_util.c: what the devo CLI and etc-gen share (tool_util.h). */
#define _POSIX_C_SOURCE 200809L
#include "tool_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

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
