/* tcheck.c: the test harness behind tcheck.h. */
#define _POSIX_C_SOURCE 200809L
#include "tcheck.h"

/* the repository's data/ folder, which CMake passes in (DEVO_SHARED_DIR) */
#ifndef DEVO_TEST_DATA
#define DEVO_TEST_DATA "data"
#endif

#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int tc_checks = 0;
static const char *tc_current = "?";

void tc_fail(const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "FAIL %s (%s:%d): ", tc_current, file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

void tc_skip(const char *why)
{
  printf("SKIP %s: %s\n", tc_current, why);
  fflush(stdout);
  exit(77);
}

int tc_main(const tc_case *cases, int ncases, int argc, char **argv)
{
  int i, ran = 0;
  for (i = 0; i < ncases; ++i) {
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
      continue;
    tc_current = cases[i].name;
    cases[i].fn();
    printf("ok %s (%d checks)\n", cases[i].name, tc_checks);
    ran++;
  }
  if (argc > 1 && ran == 0) {
    fprintf(stderr, "no test case named %s\n", argv[1]);
    return 1;
  }
  return 0;
}

const char *tc_shared(const char *sub)
{
  static char buf[4096];
  struct stat st;
  const char *dir = getenv("DEVO_SHARED");
  if (!dir || !*dir)
    dir = DEVO_TEST_DATA;
  snprintf(buf, sizeof buf, "%s/%s", dir, sub);
  if (stat(buf, &st) != 0)
    return NULL;
  return buf;
}

const char *tc_devo_bin(void)
{
  const char *b = getenv("DEVO_BIN");
  if (!b || !*b || access(b, X_OK) != 0)
    tc_skip("DEVO_BIN does not name the devo program (run through ctest)");
  return b;
}

char *tc_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (buf) {
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = 0;
    if (len)
      *len = (size_t)n;
  }
  fclose(f);
  return buf;
}

int tc_run(const char *cmd, char **out, char **err)
{
  char tmpo[] = "/tmp/devo_tc_outXXXXXX", tmpe[] = "/tmp/devo_tc_errXXXXXX";
  char *full;
  size_t n;
  int fo = mkstemp(tmpo), fe = mkstemp(tmpe), rc;
  if (fo < 0 || fe < 0)
    return -1;
  close(fo);
  close(fe);
  n = strlen(cmd) + 2 * sizeof tmpo + 32;
  full = (char *)malloc(n);
  if (!full)
    return -1;
  snprintf(full, n, "( %s ) >%s 2>%s", cmd, tmpo, tmpe);
  rc = system(full);
  free(full);
  if (out)
    *out = tc_slurp(tmpo, NULL);
  if (err)
    *err = tc_slurp(tmpe, NULL);
  unlink(tmpo);
  unlink(tmpe);
  if (rc == -1 || !WIFEXITED(rc))
    return -1;
  return WEXITSTATUS(rc);
}

static void *fa_alloc(void *ud, size_t size)
{
  tc_fail_alloc *a = (tc_fail_alloc *)ud;
  void *p;
  if (++a->calls == a->fail_at || (a->sticky && a->fail_at > 0 && a->calls > a->fail_at))
    return NULL;
  p = malloc(size);
  if (p)
    a->live++;
  return p;
}

static void fa_free(void *ud, void *p)
{
  tc_fail_alloc *a = (tc_fail_alloc *)ud;
  if (p)
    a->live--;
  free(p);
}

devo_allocator tc_fail_allocator(tc_fail_alloc *fa)
{
  devo_allocator al;
  al.alloc = fa_alloc;
  al.free = fa_free;
  al.ud = fa;
  return al;
}

void tc_expect_refused(const char *cmd, int code, const char *prefix, const char *word)
{
  char *out = NULL, *err = NULL, *nl;
  const int rc = tc_run(cmd, &out, &err);
  CHECKF(rc == code, "'%s' exited %d, expected %d (stderr: %s)", cmd, rc, code, err ? err : "");
  CHECKF(err && (!prefix || strncmp(err, prefix, strlen(prefix)) == 0) && strstr(err, word),
         "'%s': stderr '%s' lacks '%s'", cmd, err ? err : "", word);
  nl = err ? strchr(err, '\n') : NULL;
  CHECKF(nl && nl[1] == 0, "'%s': stderr is not one line: '%s'", cmd, err ? err : "");
  CHECKF(out && out[0] == 0, "'%s': printed a result on stdout: '%s'", cmd, out ? out : "");
  free(out);
  free(err);
}

double tc_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

long tc_preemptions(void)
{
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_nivcsw;
}

void tc_overrun_add(tc_overrun *o, long mark, double over, double late_above)
{
  if (tc_preemptions() == mark) {
    o->clean++;
    o->late += over > late_above;
    o->worst = over > o->worst ? over : o->worst;
  } else {
    o->worst_busy = over > o->worst_busy ? over : o->worst_busy;
  }
}
