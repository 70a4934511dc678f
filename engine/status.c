/* SPDX-License-Identifier: MIT */
/* status.c: the status table (names and messages from DEVO_STATUS_LIST), versions, and the
 * error-message formatting shared by the handles. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

int devo_version_number(void)
{
  return DEVO_VERSION_NUMBER;
}

const char *devo_version(void)
{
  return DEVO_VERSION_STRING;
}

const char *devo_status_name(int status)
{
  switch (status) {
#define DEVO__NAME_CASE(name, value, msg)                                                          \
  case value:                                                                                      \
    return #name;
    DEVO_STATUS_LIST(DEVO__NAME_CASE)
#undef DEVO__NAME_CASE
  default:
    return "DEVO_UNKNOWN";
  }
}

const char *devo_status_message(int status)
{
  switch (status) {
#define DEVO__MSG_CASE(name, value, msg)                                                           \
  case value:                                                                                      \
    return msg;
    DEVO_STATUS_LIST(DEVO__MSG_CASE)
#undef DEVO__MSG_CASE
  default:
    return "unknown status";
  }
}

int devo__errf(char *err, size_t errlen, int status, const char *fmt, ...)
{
  if (err && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

int devo__set_err(devo_solver *s, int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  return status;
}

int devo__problem_err(devo_problem *p, int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, sizeof p->err, fmt, ap);
  va_end(ap);
  return status;
}
