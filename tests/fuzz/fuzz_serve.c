/* SPDX-License-Identifier: MIT */
/* fuzz_serve.c: libFuzzer harness of `devo serve`'s request reader and of the JSON writer's
 * numbers (issue 26): the input as a JSON body through serve_req_json: it is accepted with a valid
 * matrix or refused with status 400 and a message; then each 8 bytes of the input as a double,
 * which json_fmt_double must write exactly as printf's %.15g-or-%.17g (written here apart) and
 * which must read back bit for bit. A crash, a sanitizer report or an abort() is a finding. Build:
 * -DDEVO_FUZZ=ON (clang). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/json_out.h"
#include "tools/serve/serve_req.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void body(const uint8_t *data, size_t size)
{
  serve_limits lim;
  serve_req r;
  serve_err err;
  lim.max_time_limit = 60.0;
  lim.default_time_limit = 1.0;
  lim.default_backend = DEVO_BACKEND_CPU;
  if (serve_req_json((const char *)data, size, &lim, &r, &err) == 0) {
    const int n = devo_etc_ntasks(r.e), m = devo_etc_nmach(r.e);
    const double *v = devo_etc_values(r.e);
    long k;
    if (n < 1 || m < 2)
      abort();
    for (k = 0; k < (long)n * m; ++k)
      if (!(v[k] > 0.0) || !isfinite(v[k]))
        abort();
    serve_req_free(&r);
  } else if (err.http != 400 || !err.msg[0] || r.e != NULL) {
    abort();
  }
}

static void number(double x)
{
  char got[40], want[40];
  json_fmt_double(got, sizeof got, x);
  if (!isfinite(x)) {
    if (strcmp(got, "null") != 0)
      abort();
    return;
  }
  snprintf(want, sizeof want, "%.15g", x);
  if (strtod(want, NULL) != x)
    snprintf(want, sizeof want, "%.17g", x);
  if (strcmp(got, want) != 0 || strtod(got, NULL) != x)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t k;
  body(data, size);
  for (k = 0; k + 8 <= size; k += 8) {
    double x;
    memcpy(&x, data + k, sizeof x);
    number(x);
    /* the same bits moved into the range that json_out.c formats itself (1e-4 .. 1e15) */
    {
      uint64_t b;
      memcpy(&b, &x, sizeof b);
      b = (b & 0x800fffffffffffffull) | ((uint64_t)(1009 + (b >> 52 & 0x7ff) % 64) << 52);
      memcpy(&x, &b, sizeof x);
      number(x);
    }
  }
  return 0;
}
