/* SPDX-License-Identifier: MIT */
/* fuzz_etc_par.c: differential libFuzzer harness of the parallel CSV reader (issue 19): every
 * input is read by the serial reader and by the parallel one in 2 .. 16 chunks
 * (devo__etc_read_buf; the fuzzer's inputs are far below the size where devo_etc_read goes
 * parallel by itself), which must agree on the status, the message, the size, every value's
 * bits and every name. The first byte picks the chunks and the format (auto or CSV, with or
 * without DEVO_ETC_TASK_NAMES); the rest is the input. Build: -DDEVO_FUZZ=ON (clang). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"
#include "problems/etc_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_name(const char *a, const char *b)
{
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  devo_etc *a = NULL, *b = NULL;
  char ea[256], eb[256];
  int format, threads, ra, rb, ca = -1, cb = -1, k;
  if (size < 1)
    return 0;
  threads = 2 + data[0] % 15;
  format = (data[0] & 0x10) ? DEVO_ETC_CSV : DEVO_ETC_AUTO;
  if (data[0] & 0x20)
    format |= DEVO_ETC_TASK_NAMES;
  ra = devo__etc_read_buf(&a, (const char *)data + 1, size - 1, "fuzz", format, 0, 1, &ca, NULL, ea,
                          sizeof ea);
  rb = devo__etc_read_buf(&b, (const char *)data + 1, size - 1, "fuzz", format, 0, threads, &cb,
                          NULL, eb, sizeof eb);
  if (ca != 0 || ra != rb || strcmp(ea, eb) != 0 || (ra == DEVO_OK) != (a != NULL) ||
      (rb == DEVO_OK) != (b != NULL))
    abort();
  if (a && b) {
    const int n = devo_etc_ntasks(a), m = devo_etc_nmach(a);
    if (devo_etc_ntasks(b) != n || devo_etc_nmach(b) != m ||
        memcmp(devo_etc_values(a), devo_etc_values(b), (size_t)n * (size_t)m * sizeof(double)))
      abort();
    for (k = 0; k < n; ++k)
      if (!same_name(devo_etc_task_name(a, k), devo_etc_task_name(b, k)))
        abort();
    for (k = 0; k < m; ++k)
      if (!same_name(devo_etc_machine_name(a, k), devo_etc_machine_name(b, k)))
        abort();
  }
  devo_etc_destroy(a);
  devo_etc_destroy(b);
  return 0;
}
