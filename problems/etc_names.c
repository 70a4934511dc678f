/* SPDX-License-Identifier: MIT */
/* etc_names.c: what a resource manager needs beyond the assignment: the task and machine names
 * of an ETC matrix (kept from a CSV input, or set by the caller) and the start and finish time of
 * every task of a schedule, summed in the fixed order of problems/etc.h. */
#include <string.h>

#include "../engine/internal.h"
#include "devo_alloc.h"
#include "etc.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

/* Length of the valid UTF-8 sequence at s (at most len bytes), or 0 when it is not one: no
 * overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629, section 4). */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
  unsigned c = s[0];
  size_t k, need;
  unsigned lo = 0x80, hi = 0xBF;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    need = 1;
  else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0)
      lo = 0xA0;
    else if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F;
  } else
    return 0;
  if (len < need + 1)
    return 0;
  for (k = 1; k <= need; ++k) {
    const unsigned b = s[k];
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
      return 0;
  }
  return need + 1;
}

const char *devo__etc_name_problem(const char *s, size_t len)
{
  size_t i = 0, k;
  if (len == 0)
    return "an empty name";
  if (len > DEVO_ETC_MAX_NAME)
    return "a name longer than " STR(DEVO_ETC_MAX_NAME) " bytes";
  while (i < len) {
    const unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f)
      return "a control character in a name";
    k = utf8_seq((const unsigned char *)s + i, len - i);
    if (k == 0)
      return "a name that is not valid UTF-8";
    i += k;
  }
  return NULL;
}

/* Packs count names into one block and their offsets; NULL names -> both NULL. */
static int pack(const devo_allocator *al, const char *const *names, int count, const char *what,
                char **block, size_t **off, char *err, size_t errlen)
{
  size_t total = 0, at = 0;
  int i;
  *block = NULL;
  *off = NULL;
  if (!names)
    return DEVO_OK;
  for (i = 0; i < count; ++i) {
    /* a NULL entry names nothing: stored as "", which the accessors turn into NULL */
    const char *why = names[i] ? devo__etc_name_problem(names[i], strlen(names[i])) : NULL;
    if (why) {
      if (err && errlen)
        snprintf(err, errlen, "etc: %s name %d: %s", what, i, why);
      return DEVO_E_INVALID;
    }
    total += (names[i] ? strlen(names[i]) : 0) + 1;
  }
  *block = (char *)devo__alloc(al, total, 1);
  *off = (size_t *)devo__alloc(al, (size_t)count, sizeof(size_t));
  if (!*block || !*off) {
    devo__free(al, *block);
    devo__free(al, *off);
    *block = NULL;
    *off = NULL;
    if (err && errlen)
      snprintf(err, errlen, "etc: out of memory for the %s names", what);
    return DEVO_E_NOMEM;
  }
  for (i = 0; i < count; ++i) {
    const size_t l = (names[i] ? strlen(names[i]) : 0) + 1;
    (*off)[i] = at;
    memcpy(*block + at, names[i] ? names[i] : "", l);
    at += l;
  }
  return DEVO_OK;
}

void devo__etc_free_names(devo_etc *e)
{
  devo__free(&e->al, e->task_names);
  devo__free(&e->al, e->task_off);
  devo__free(&e->al, e->mach_names);
  devo__free(&e->al, e->mach_off);
  e->task_names = e->mach_names = NULL;
  e->task_off = e->mach_off = NULL;
}

int devo_etc_set_names(devo_etc *e, const char *const *task_names, const char *const *machine_names,
                       char *err, size_t errlen)
{
  char *tb, *mb;
  size_t *to, *mo;
  int rc;
  if (!e) {
    if (err && errlen)
      snprintf(err, errlen, "etc: NULL argument");
    return DEVO_E_INVALID;
  }
  rc = pack(&e->al, task_names, e->ntasks, "task", &tb, &to, err, errlen);
  if (rc != DEVO_OK)
    return rc;
  rc = pack(&e->al, machine_names, e->nmach, "machine", &mb, &mo, err, errlen);
  if (rc != DEVO_OK) {
    devo__free(&e->al, tb);
    devo__free(&e->al, to);
    return rc;
  }
  devo__etc_free_names(e);
  e->task_names = tb;
  e->task_off = to;
  e->mach_names = mb;
  e->mach_off = mo;
  return DEVO_OK;
}

const char *devo_etc_task_name(const devo_etc *e, int t)
{
  if (!e || !e->task_names || t < 0 || t >= e->ntasks || !e->task_names[e->task_off[t]])
    return NULL;
  return e->task_names + e->task_off[t];
}

const char *devo_etc_machine_name(const devo_etc *e, int j)
{
  if (!e || !e->mach_names || j < 0 || j >= e->nmach || !e->mach_names[e->mach_off[j]])
    return NULL;
  return e->mach_names + e->mach_off[j];
}

int devo_etc_timeline(const devo_etc *e, const int *assign, int order, double *start,
                      double *finish)
{
  const int n = e ? e->ntasks : 0, m = e ? e->nmach : 0;
  double *scratch, *off, *idx;
  int t, j;
  if (!e || !assign || (order != DEVO_ORDER_FCFS && order != DEVO_ORDER_SPT))
    return DEVO_E_INVALID;
  if (!devo__etc_assign_ok(e, assign))
    return DEVO_E_INVALID;
  if (order == DEVO_ORDER_FCFS) {
    /* the running sum of each machine in task index order, as etc.h's completion(j) */
    double *c = (double *)devo__alloc(&e->al, (size_t)m, sizeof(double));
    if (!c)
      return DEVO_E_NOMEM;
    memcpy(c, e->ready, (size_t)m * sizeof(double));
    for (t = 0; t < n; ++t) {
      j = assign[t];
      if (start)
        start[t] = c[j];
      c[j] += e->values[(size_t)t * m + j];
      if (finish)
        finish[t] = c[j];
    }
    devo__free(&e->al, c);
    return DEVO_OK;
  }
  /* SPT: the tasks grouped by machine (stable), each group in etc.h's SPT order */
  scratch = (double *)devo__alloc(&e->al, (size_t)n + (size_t)m + 1, sizeof(double));
  if (!scratch)
    return DEVO_E_NOMEM;
  off = scratch;
  idx = scratch + m + 1;
  for (j = 0; j <= m; ++j)
    off[j] = 0.0;
  for (t = 0; t < n; ++t)
    off[assign[t] + 1] += 1.0;
  for (j = 0; j < m; ++j)
    off[j + 1] += off[j];
  for (t = 0; t < n; ++t) {
    j = assign[t];
    idx[(size_t)off[j]] = (double)t;
    off[j] += 1.0;
  }
  for (j = 0; j < m; ++j) {
    const size_t b = j ? (size_t)off[j - 1] : 0, end = (size_t)off[j];
    double c = e->ready[j];
    size_t k;
    devo__etc_spt_sort(e->values, m, j, idx + b, (int)(end - b));
    for (k = b; k < end; ++k) {
      t = (int)idx[k];
      if (start)
        start[t] = c;
      c += e->values[(size_t)t * m + j];
      if (finish)
        finish[t] = c;
    }
  }
  devo__free(&e->al, scratch);
  return DEVO_OK;
}
