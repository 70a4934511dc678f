/* out_file.c: output files that appear whole or not at all (out_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
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
