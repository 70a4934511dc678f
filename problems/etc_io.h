/* SPDX-License-Identifier: MIT */
/* etc_io.h: the ETC reader over bytes in memory, with the choice between the serial and the
 * parallel CSV reader made by the caller, for the tests that hold both to the same results and
 * messages (issue 19). Not installed. */
#ifndef DEVO_ETC_IO_H
#define DEVO_ETC_IO_H

#include <stddef.h>

#include "../engine/include/devo.h"

/* devo_etc_read over the n bytes at buf (borrowed; no NUL byte needed after them, and none
 * checked for in them: devo__read_all's checks are not made). threads: 0 = as devo_etc_read
 * (in parallel from 1 MiB, one thread per MiB up to the online CPUs and 16), 1 = the serial
 * reader only, 2 .. 16 = in parallel with that many chunks whatever the size. *chunks (may be
 * NULL): how many chunks the parallel reader read (0: the serial reader read it all, having been
 * asked to, or the input not being for the parallel one, or the parallel one having found
 * something only the serial one reports). Same statuses and messages as devo_etc_read. */
int devo__etc_read_buf(devo_etc **out, const char *buf, size_t n, const char *name, int format,
                       int nmach, int threads, int *chunks, const devo_allocator *alloc, char *err,
                       size_t errlen);

/* devo_etc_create without the copy and without a pass over the values, for the readers that fill
 * the final array themselves (etc_json.c) and check each value as they read it: values
 * (ntasks * nmach doubles from malloc, at least; each finite and > 0) become the matrix's on
 * DEVO_OK and stay the caller's otherwise; big is the sum over the tasks of their largest value,
 * for devo_etc_create's bound on the flowtime. Same statuses and messages as devo_etc_create. */
int devo__etc_adopt(devo_etc **out, int ntasks, int nmach, double *values, double big, char *err,
                    size_t errlen);

#endif /* DEVO_ETC_IO_H */
