/* SPDX-License-Identifier: MIT */
/* fuzz_cec.c: libFuzzer harness of the CEC data loader (problems/cec_data.c): the official
 * files of a hybrid function (CEC 2014 F18 = F05, D = 10: shift vector, rotation matrix,
 * shuffle), two of them valid and the one the first byte picks replaced by the input, then
 * devo__cec_make reads them. An error must come with a message and no data. Build:
 * -DDEVO_FUZZ=ON (clang). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "problems/cec_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static const char *const files[3] = {"shift_data_18.txt", "M_18_D10.txt",
                                     "shuffle_data_18_D10.txt"};

static void put(const char *name, const void *p, size_t n)
{
  char path[128];
  int fd;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    abort();
  if (n && write(fd, p, n) != (ssize_t)n)
    abort();
  close(fd);
}

/* The valid file k: a zero shift, the identity, the shuffle 1..10 (the official files' form). */
static void put_valid(int k)
{
  char text[2048];
  size_t n = 0;
  int i, j;
  if (k == 0)
    for (i = 0; i < 10; ++i)
      n += (size_t)snprintf(text + n, sizeof text - n, "%s0.0", i ? " " : "");
  else if (k == 1)
    for (i = 0; i < 10; ++i)
      for (j = 0; j < 10; ++j)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d%s", i == j, j == 9 ? "\n" : " ");
  else
    for (i = 0; i < 10; ++i)
      n += (size_t)snprintf(text + n, sizeof text - n, "%d%s", 10 - i, i == 9 ? "" : " ");
  if (k != 1)
    n += (size_t)snprintf(text + n, sizeof text - n, "\n");
  put(files[k], text, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  double *shift = NULL, *rot = NULL;
  int *shuffle = NULL, k, st;
  char err[512];
  if (size < 1)
    return 0;
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/devo_fuzz_cec_%ld", (long)getpid());
    mkdir(dir, 0700);
  }
  for (k = 0; k < 3; ++k)
    put_valid(k);
  put(files[data[0] % 3], data + 1, size - 1);
  err[0] = 0;
  st = devo__cec_make(5, 10, 0, dir, NULL, &shift, &rot, &shuffle, err, sizeof err);
  if (st != DEVO_OK && (shift || rot || shuffle || !err[0]))
    abort();
  if (st == DEVO_OK && (!shift || !rot || !shuffle))
    abort();
  free(shift);
  free(rot);
  free(shuffle);
  return 0;
}
