/* SPDX-License-Identifier: MIT */
/* fuzz_points.c: libFuzzer harness of `devo eval`'s points reader (tools/cmd_eval.c), run as the
 * command itself on a file holding the input: the first byte picks the dimension (1..8) and
 * the function; the rest is the file. Any exit code is fine; a crash, a sanitizer report or an
 * exit code other than 0, 1, 2 is a finding. Build: -DDEVO_FUZZ=ON (clang); run with
 * -close_fd_mask=2 (the command's error lines). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tools/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const problems[] = {"sphere", "rosenbrock", "rastrigin", "F01"};
  char dim[8];
  char *argv[8];
  int fd, rc, argc = 0;
  if (size < 1)
    return 0;
  if (!path[0]) {
    int null = open("/dev/null", O_WRONLY);
    snprintf(path, sizeof path, "/tmp/devo_fuzz_points_%ld.csv", (long)getpid());
    if (null >= 0) { /* the values printed by every run; its error lines: -close_fd_mask=2 */
      dup2(null, 1);
      close(null);
    }
  }
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return 0;
  if (size > 1 && write(fd, data + 1, size - 1) < 0) {
    close(fd);
    return 0;
  }
  close(fd);
  snprintf(dim, sizeof dim, "%d", 1 + data[0] % 8);
  argv[argc++] = (char *)"eval";
  argv[argc++] = (char *)"--problem";
  argv[argc++] = (char *)problems[(data[0] >> 3) % 4];
  argv[argc++] = (char *)"--dim";
  argv[argc++] = (data[0] >> 3) % 4 == 3 ? (char *)"2" : dim;
  argv[argc++] = path;
  argv[argc] = NULL;
  rc = cmd_eval(argc, argv);
  if (rc < 0 || rc > 2)
    abort();
  fflush(stdout);
  clearerr(stdout);
  return 0;
}
