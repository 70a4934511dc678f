/* SPDX-License-Identifier: MIT */
/* dec_fast.h: an exact fast path for reading a decimal number as a double, for the readers'
 * inner loop (issue 19): it answers only where one IEEE operation on exact operands gives the
 * correctly rounded value, which is then bit for bit strtod's, and leaves everything else to
 * strtod. Not installed. */
#ifndef DEVO_DEC_FAST_H
#define DEVO_DEC_FAST_H

#include <stddef.h>

/* What devo__dec_fast may use in this thread now, to be asked once per read (a few
 * nanoseconds) and passed to every call: DEVO__DEC_OK when strtod's radix character is '.' (the
 * locale), plus DEVO__DEC_EXT when long double is the x87 64-bit-significand format, really
 * computed at that precision (not under an emulator that computes it as double), and the
 * rounding mode is to nearest. 0: no fast path. */
#define DEVO__DEC_OK  1
#define DEVO__DEC_EXT 2
int devo__dec_flags(void);

/* When the len bytes at s are wholly a decimal number, [+-](digits[.digits]|.digits)[(e|E)
 * [+-]digits], that strtod would read to its end, and its value can be had exactly by the fast
 * path: sets *out to the value strtod gives (always finite) and returns 1. Otherwise (any other
 * text, more than 19 significant digits, an exponent out of the path's range, a value that falls
 * on a rounding boundary of the path) returns 0 without touching *out: call strtod. No NUL byte
 * needed after the number. Thread-safe. */
int devo__dec_fast(const char *s, size_t len, int flags, double *out);

#endif /* DEVO_DEC_FAST_H */
