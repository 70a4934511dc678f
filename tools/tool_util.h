/* SPDX-License-Identifier: MIT */
/* tool_util.h: what the devo CLI and etc-gen share. Output files that appear whole or not at
 * all: the text goes to a temporary file beside the target, which is renamed over it only when
 * every write succeeded (a full disk or a file size limit left half a file behind: found in
 * review); what is not a regular file is written through, never replaced. Seeds and other counts
 * as plain decimal. Nothing here prints; the callers word their own errors. */
#ifndef DEVO_TOOL_UTIL_H
#define DEVO_TOOL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s as a number of plain decimal digits, 0 .. 2^64 - 1, into *out: 0; -1 for anything else
 * (strtoull would take a sign, leading blanks, and with base 0 octal "010" = 8 and hex; a leading
 * 0 is refused too, since "010" meant 8 before and must not silently mean 10 now); -2 when the
 * digits exceed 2^64 - 1. */
int tool_parse_u64(const char *s, uint64_t *out);

/* s as a whole decimal number (strtod) into *out: 0; -1 when it is not a number; -2 when it
 * overflows to an infinity, or is NaN or infinite. An underflow (1e-320, 1e-400) is a number,
 * its value the subnormal or 0 that strtod gives: ERANGE alone is not "not finite" (issue 21).
 * The one number parser of devo's options and etc-gen's. */
int tool_parse_real(const char *s, double *out);

/* Opens the output file path (issue 21):
 * - path absent: a temporary file is opened beside it, with mode 0666 less the umask, as fopen
 *   would create path: where the system allows, with no name at all (O_TMPFILE: a process killed
 *   before out_file_close leaves nothing), else created exclusively under a random name that no
 *   other file has; tmp (tmplen >= strlen(path) + 32) receives "<path>.XXXXXX.tmp", the name
 *   out_file_close gives it once the whole output is written, just before renaming it over path;
 * - path a regular file, or a symbolic link to one: the temporary file is created beside the
 *   file the link names (the link is followed, never replaced), with the file's mode and owner
 *   from the start (refused when the owner cannot be kept), and renamed over it;
 * - path a FIFO, a device or another non-regular file (or a link to one): written through
 *   (opened, nothing renamed; tmp is ""); a FIFO with no reader is refused (ENXIO), a directory
 *   too (EISDIR); a link to nothing is refused (ENOENT).
 * The temporary file is registered for tool_tmp_cleanup, and SIGTERM, SIGINT and SIGHUP, where
 * their disposition is the default, get a handler that removes it and dies of the signal.
 * NULL with errno set on failure (nothing is left behind). */
FILE *out_file_open(const char *path, char *tmp, size_t tmplen);
/* Flushes f, names its file tmp (or another free name of that form), closes it and renames it
 * over the file it stands for: 0, or an errno value (EIO when the stream had an error without
 * one) after removing the temporary file; the file is then untouched.
 * Written through (tmp ""): only closes. path: as given to out_file_open (unused today). */
int out_file_close(FILE *f, const char *tmp, const char *path);
/* Closes f and removes tmp (the output is abandoned). */
void out_file_discard(FILE *f, const char *tmp);

/* The temporary output file for signal handlers: out_file_open registers its temporary file and
 * out_file_close/out_file_discard unregister it; a program's own SIGTERM/SIGINT handler that
 * ends the process without closing the output calls tool_tmp_cleanup, which is
 * async-signal-safe (one unlink). register/unregister are for a temporary file of another
 * kind (one at a time); not thread-safe. */
void tool_tmp_register(const char *tmp);
void tool_tmp_unregister(void);
void tool_tmp_cleanup(void);

/* The options every small program (etc-gen, bench-*) answers alike, looked at before its own
 * parsing: -h or --help prints usage on standard output, --version prints "PROG VERSION" (the
 * library's version); both return 1, and the caller exits 0. Otherwise every "--opt=value" before
 * a "--" is split into "--opt" "value" in a copy of argv that *argv then points to (*argc grows),
 * so a parser that reads "--opt value" takes both spellings; returns 0, or -1 when out of memory.
 * This one prints, as the programs' own output. */
int tool_std_args(const char *prog, const char *usage, int *argc, char ***argv);

/* Seconds on CLOCK_MONOTONIC (for intervals only). */
double tool_now(void);

#endif /* DEVO_TOOL_UTIL_H */
