/* SPDX-License-Identifier: MIT */
/* fuzz_etc.c: libFuzzer harness of the ETC readers (issue 21): every format (auto, CSV,
 * Braun), with and without a given machine count, from a stream (devo_etc_read) and from a
 * descriptor (devo_etc_read_fd, with a size limit), with and without DEVO_ETC_TASK_NAMES. The
 * first byte picks the mode; the rest is the input. A matrix read is checked against its own
 * limits, its names against devo_etc_set_names's rules. Build: -DDEVO_FUZZ=ON (clang). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/include/devo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A name the reader kept: NULL, or 1 .. DEVO_ETC_MAX_NAME bytes without control characters. */
static void check_name(const char *s)
{
  size_t k, n;
  if (!s)
    return;
  n = strlen(s);
  if (n < 1 || n > DEVO_ETC_MAX_NAME)
    abort();
  for (k = 0; k < n; ++k)
    if ((unsigned char)s[k] < 0x20 || s[k] == 0x7f)
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  devo_etc *e = NULL;
  char err[256];
  int format, nmach, st;
  if (size < 1)
    return 0;
  format = data[0] % 3;
  nmach = (data[0] >> 2) % 4 == 0 ? 0 : 1 + (data[0] >> 2) % 4; /* 0, 2, 3, 4 */
  nmach = nmach == 1 ? 0 : nmach;
  if ((data[0] & 0x20) && format != DEVO_ETC_BRAUN)
    format |= DEVO_ETC_TASK_NAMES;
  if (data[0] & 0x80) {
    /* a descriptor: a memfd holding the input, read with a small size limit half the time */
    devo_read_limits lim;
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
      return 0;
    if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
      close(fd);
      return 0;
    }
    lseek(fd, 0, SEEK_SET);
    lim.max_bytes = (data[0] & 0x40) ? 64 : 0;
    lim.deadline = 0.0;
    st = devo_etc_read_fd(&e, fd, "fuzz", format, nmach, &lim, NULL, err, sizeof err);
    close(fd);
  } else {
    FILE *f = fmemopen((void *)(uintptr_t)(data + 1), size - 1 ? size - 1 : 1, "r");
    if (!f)
      return 0;
    if (size == 1)
      fgetc(f); /* fmemopen refuses 0 bytes: an empty input by reading its one byte first */
    st = devo_etc_read(&e, f, "fuzz", format, nmach, NULL, err, sizeof err);
    fclose(f);
  }
  if (st == DEVO_OK) {
    const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
    if (!e || n < 1 || m < 2 || (long long)n * m > DEVO_ETC_MAX_CELLS || (nmach && m != nmach))
      abort();
    int k;
    if (!(devo_etc_values(e)[0] > 0.0))
      abort();
    for (k = 0; k < n; ++k)
      check_name(devo_etc_task_name(e, k));
    for (k = 0; k < m; ++k)
      check_name(devo_etc_machine_name(e, k));
    /* names forced on CSV: every row has one (an empty one is refused); with auto, a file
     * detected as Braun has none (the flag is for CSV only) */
    if ((format & DEVO_ETC_TASK_NAMES) && (format & ~DEVO_ETC_TASK_NAMES) == DEVO_ETC_CSV &&
        !devo_etc_task_name(e, 0))
      abort();
  } else if (e != NULL || !err[0]) {
    abort(); /* an error always has a message and no matrix */
  }
  devo_etc_destroy(e);
  return 0;
}
