/* SPDX-License-Identifier: MIT */
/* devo_alloc.h: the one allocation point for host memory. Every host allocation in the library
 * goes through these, with the handle's allocator (NULL = malloc/free), so that a test can make
 * any allocation fail. Defined in devo_alloc.c. */
#ifndef DEVO_ALLOC_H
#define DEVO_ALLOC_H

#include <stddef.h>

#include "../engine/include/devo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NULL on failure or when n * size overflows. Memory is not cleared. */
void *devo__alloc(const devo_allocator *a, size_t n, size_t size);
/* Same, cleared to zero bytes. */
void *devo__calloc(const devo_allocator *a, size_t n, size_t size);
void devo__free(const devo_allocator *a, void *p);
/* a copy of *src, or the malloc/free allocator when src is NULL */
devo_allocator devo__allocator_or_default(const devo_allocator *src);

#ifdef __cplusplus
}
#endif

#endif /* DEVO_ALLOC_H */
