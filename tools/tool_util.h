/* out_file.h: output files that appear whole or not at all, for the devo CLI and etc-gen: the
 * text goes to a temporary file beside the target, which is renamed over it only when every
 * write succeeded (a full disk or a file size limit left half a file behind: found in review).
 * Nothing here prints; the callers word their own errors. */
#ifndef DEVO_OUT_FILE_H
#define DEVO_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Creates "<path>.<pid>.tmp" (its name into tmp; tmplen >= strlen(path) + 32), exclusively and
 * with mode 0666 less the umask, as fopen would create path. NULL with errno set on failure. */
FILE *out_file_open(const char *path, char *tmp, size_t tmplen);
/* Flushes and closes f and renames tmp over path: 0, or an errno value (EIO when the stream had
 * an error without one) after removing tmp; path is then untouched. */
int out_file_close(FILE *f, const char *tmp, const char *path);
/* Closes f and removes tmp (the output is abandoned). */
void out_file_discard(FILE *f, const char *tmp);

#endif /* DEVO_OUT_FILE_H */
