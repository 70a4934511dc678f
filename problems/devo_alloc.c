/* SPDX-License-Identifier: MIT */
/* devo_alloc.c: the library's single host allocation point (see devo_alloc.h). */
#include "devo_alloc.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ud, size_t size)
{
  (void)ud;
  return malloc(size);
}

static void default_free(void *ud, void *p)
{
  (void)ud;
  free(p);
}

devo_allocator devo__allocator_or_default(const devo_allocator *src)
{
  devo_allocator a;
  if (src && src->alloc && src->free)
    return *src;
  a.alloc = default_alloc;
  a.free = default_free;
  a.ud = NULL;
  return a;
}

void *devo__alloc(const devo_allocator *a, size_t n, size_t size)
{
  if (size != 0 && n > (size_t)-1 / size)
    return NULL;
  if (n * size == 0)
    size = n = 1; /* never ask for 0 bytes: some allocators return NULL for that */
  return a->alloc(a->ud, n * size);
}

void *devo__calloc(const devo_allocator *a, size_t n, size_t size)
{
  void *p = devo__alloc(a, n, size);
  if (p)
    memset(p, 0, n * size);
  return p;
}

void devo__free(const devo_allocator *a, void *p)
{
  if (p)
    a->free(a->ud, p);
}
