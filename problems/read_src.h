/* SPDX-License-Identifier: MIT */
/* read_src.h: the byte source beneath every reader of the library (ETC matrices, CEC data
 * files): a whole input read in chunks, with the checks that need no parsing done as the bytes
 * arrive: a NUL byte, a line over a limit, an input over a size limit, and a deadline (poll()
 * on a descriptor, so a pipe that never closes cannot block past it). Issue 21. */
#ifndef DEVO_READ_SRC_H
#define DEVO_READ_SRC_H

#include <stddef.h>
#include <stdio.h>

#include "../engine/include/devo.h"

typedef struct devo__rdlim {
  size_t max_bytes; /* more is refused (0: no limit) */
  size_t max_line;  /* a line of more bytes (without its LF or CR) is refused (0: no limit) */
  double deadline;  /* CLOCK_MONOTONIC seconds; 0: none. Not for a regular file (read whole) */
} devo__rdlim;

/* Reads all of fd (when fd >= 0; blocking or not) or else of f into *out (allocated with al, NULL:
 * malloc; one NUL byte past the end, so *out is also a C string; the caller frees it), *n bytes.
 * Errors, each one line in err: DEVO_E_PARSE "name:line:col: NUL byte: not a text file" or
 * "name:line:col: a line of more than N bytes", DEVO_E_PARSE "name: more than N bytes (the input
 * size limit)", DEVO_E_DEADLINE, DEVO_E_IO (read error), DEVO_E_NOMEM. Nothing is returned on
 * error. Each is reported as soon as the chunk that shows it has arrived. */
/* Runs fn on the t jobs at jobs (each size bytes apart; 1 <= t <= DEVO__JOBS_MAX): jobs 1 .. t - 1
 * on threads of their own, job 0 on the calling thread, and a job whose thread could not start
 * on the calling thread after the others; returns when every job has run. */
#define DEVO__JOBS_MAX 16
void devo__run_jobs(void *jobs, size_t size, int t, void *(*fn)(void *));

int devo__read_all(FILE *f, int fd, const char *name, const devo__rdlim *lim,
                   const devo_allocator *al, char **out, size_t *n, char *err, size_t errlen);

#endif /* DEVO_READ_SRC_H */
