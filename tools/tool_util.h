/* tool_util.h: what the devo CLI and etc-gen share. Output files that appear whole or not at
 * all: the text goes to a temporary file beside the target, which is renamed over it only when
 * every write succeeded (a full disk or a file size limit left half a file behind: found in
 * review). Seeds and other counts as plain decimal. Nothing here prints; the callers word their
 * own errors. */
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

/* Creates "<path>.<pid>.tmp" (its name into tmp; tmplen >= strlen(path) + 32), exclusively and
 * with mode 0666 less the umask, as fopen would create path. NULL with errno set on failure. */
FILE *out_file_open(const char *path, char *tmp, size_t tmplen);
/* Flushes and closes f and renames tmp over path: 0, or an errno value (EIO when the stream had
 * an error without one) after removing tmp; path is then untouched. */
int out_file_close(FILE *f, const char *tmp, const char *path);
/* Closes f and removes tmp (the output is abandoned). */
void out_file_discard(FILE *f, const char *tmp);

/* The options every small program (etc-gen, bench-*) answers alike, looked at before its own
 * parsing: -h or --help prints usage on standard output, --version prints "PROG VERSION" (the
 * library's version); both return 1, and the caller exits 0. Otherwise every "--opt=value" before
 * a "--" is split into "--opt" "value" in a copy of argv that *argv then points to (*argc grows),
 * so a parser that reads "--opt value" takes both spellings; returns 0, or -1 when out of memory.
 * This one prints, as the programs' own output. */
int tool_std_args(const char *prog, const char *usage, int *argc, char ***argv);

#endif /* DEVO_TOOL_UTIL_H */
