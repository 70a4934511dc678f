/* test_gpu_ls.c: the GPU makespan search of kernels/gpu_sched_ls.cu (engine/gpu_ls.h). Every
 * case skips (exit 77) where no CUDA device is usable. One scan of one block must pick the move
 * that a brute-force scan written here picks (the same critical machine, kind, tasks, value bits
 * and candidate count, on random, tie-heavy and tile-overflowing schedules, for several block
 * sizes); a search must return a valid schedule whose makespan, recomputed here, is the
 * reported number exactly and never worse than its best start; a fixed step count must give the
 * same bits twice; a deadline must end the search in time. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gpu_ls.h"
#include "engine/internal.h"
#include "tests/tcheck.h"

static void need_gpu(void)
{
  static char msg[256];
  if (!devo_gpu_available(msg, sizeof msg))
    TC_SKIP(msg);
}

/* A small deterministic generator of the test's data (not the library's Philox: independent). */
static uint64_t lcg_state;
static uint32_t lcg(void)
{
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(lcg_state >> 33);
}

/* n x m values: integers 1 .. span when integral (many equal candidate values: the tie rule
 * decides), else uniform in [1, 1 + span). */
static devo_etc *make_etc(int n, int m, int span, int integral, uint64_t seed)
{
  double *v = (double *)malloc((size_t)n * m * sizeof(double));
  devo_etc *e = NULL;
  char err[256];
  int k;
  CHECK(v != NULL);
  lcg_state = seed;
  for (k = 0; k < n * m; ++k)
    v[k] = integral ? (double)(1 + lcg() % (uint32_t)span)
                    : 1.0 + (double)span * ((double)lcg() / 4294967296.0);
  CHECKF(devo_etc_create(&e, n, m, v, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  free(v);
  return e;
}

static devo_etc *read_braun(const char *cls)
{
  char sub[64], err[256];
  const char *path;
  devo_etc *e = NULL;
  FILE *f;
  snprintf(sub, sizeof sub, "etc_data/braun/%s.0", cls);
  path = tc_shared(sub);
  CHECKF(path != NULL, "%s is missing", sub);
  f = fopen(path, "rb");
  CHECK(f != NULL);
  CHECKF(devo_etc_read(&e, f, sub, DEVO_ETC_AUTO, 0, NULL, err, sizeof err) == DEVO_OK, "%s", err);
  fclose(f);
  return e;
}

/* The brute-force scan: loads summed in task order from the ready times, the critical machine
 * (largest load, lowest index), every move t -> j and swap (t, u) off it with the expressions
 * gpu_ls.h's index order refers to, the lowest (value, index). */
static void brute_force(const devo_etc *e, const int *a, devo__gls_move *r)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e), *w = devo_etc_ready(e);
  double *L = (double *)malloc((size_t)m * sizeof(double)), best = INFINITY;
  long long bidx = LLONG_MAX, kc = 0;
  const long long nm = (long long)n * m;
  int t, u, j, c = 0;
  CHECK(L != NULL);
  for (j = 0; j < m; ++j)
    L[j] = w ? w[j] : 0.0;
  for (t = 0; t < n; ++t)
    L[a[t]] += v[(size_t)t * m + a[t]];
  for (j = 1; j < m; ++j)
    if (L[j] > L[c])
      c = j;
  for (t = 0; t < n; ++t) {
    if (a[t] != c)
      continue;
    ++kc;
    for (j = 0; j < m; ++j) {
      double l0, lj, val;
      long long idx = (long long)t * m + j;
      if (j == c)
        continue;
      l0 = L[c] - v[(size_t)t * m + c];
      lj = L[j] + v[(size_t)t * m + j];
      val = l0 > lj ? l0 : lj;
      if (val < best || (val == best && idx < bidx)) {
        best = val;
        bidx = idx;
      }
    }
    for (u = 0; u < n; ++u) {
      const int b = a[u];
      double lc, lb, val;
      long long idx = nm + (long long)t * n + u;
      if (b == c)
        continue;
      lc = (L[c] - v[(size_t)t * m + c]) + v[(size_t)u * m + c];
      lb = (L[b] - v[(size_t)u * m + b]) + v[(size_t)t * m + b];
      val = lc > lb ? lc : lb;
      if (val < best || (val == best && idx < bidx)) {
        best = val;
        bidx = idx;
      }
    }
  }
  memset(r, 0, sizeof *r);
  r->crit = c;
  r->value = best;
  r->candidates = kc * (m - 1) + kc * (n - kc);
  if (bidx == LLONG_MAX) {
    r->kind = -1;
    r->t = r->other = -1;
  } else if (bidx < nm) {
    r->kind = 0;
    r->t = (int)(bidx / m);
    r->other = (int)(bidx % m);
  } else {
    r->kind = 1;
    r->t = (int)((bidx - nm) / n);
    r->other = (int)((bidx - nm) % n);
  }
  free(L);
}

static void compare_scan(const devo_etc *e, const int *a, const char *what)
{
  static const int blocks[] = {32, 96, 256, 1024};
  devo__gls_move want, got;
  char err[300];
  int k;
  brute_force(e, a, &want);
  for (k = 0; k < 4; ++k) {
    const int st = devo__gpu_sched_ls_scan(e, a, blocks[k], &got, err, sizeof err);
    CHECKF(st == DEVO_OK, "%s block %d: %s", what, blocks[k], err);
    CHECKF(got.crit == want.crit && got.kind == want.kind && got.t == want.t &&
               got.other == want.other && got.candidates == want.candidates &&
               memcmp(&got.value, &want.value, sizeof got.value) == 0,
           "%s block %d: GPU crit %d kind %d t %d other %d value %.17g cands %lld; CPU crit %d "
           "kind %d t %d other %d value %.17g cands %lld",
           what, blocks[k], got.crit, got.kind, got.t, got.other, got.value,
           (long long)got.candidates, want.crit, want.kind, want.t, want.other, want.value,
           (long long)want.candidates);
  }
}

TEST_CASE(scan_matches_brute_force)
{
  struct {
    int n, m, span, integral;
  } sizes[] = {{40, 4, 100, 0}, {512, 16, 1000, 0}, {300, 8, 3, 1}, {1000, 32, 5, 1}};
  int k, r, t;
  need_gpu();
  for (k = 0; k < 4; ++k) {
    devo_etc *e = make_etc(sizes[k].n, sizes[k].m, sizes[k].span, sizes[k].integral, 11u + k);
    const int n = sizes[k].n, m = sizes[k].m;
    int *a = (int *)malloc((size_t)n * sizeof(int));
    char what[96];
    CHECK(a != NULL);
    for (r = 0; r < 4; ++r) {
      /* r 0, 1: random; r 2: MCT; r 3: most tasks on machine 1 (more than one shared tile) */
      lcg_state = 1000u + 7u * (unsigned)k + (unsigned)r;
      if (r == 2)
        CHECK(devo_etc_heuristic(e, DEVO_HEUR_MCT, a) == DEVO_OK);
      else
        for (t = 0; t < n; ++t)
          a[t] = r == 3 && lcg() % 8 != 0 ? 1 : (int)(lcg() % (uint32_t)m);
      snprintf(what, sizeof what, "%dx%d%s schedule %d", n, m, sizes[k].integral ? " (ties)" : "",
               r);
      compare_scan(e, a, what);
    }
    if (k == 1) { /* ready times count in the loads */
      double w[16];
      char err[256];
      for (t = 0; t < m; ++t)
        w[t] = 37.5 * t;
      CHECKF(devo_etc_set_ready(e, w, err, sizeof err) == DEVO_OK, "%s", err);
      compare_scan(e, a, "512x16 with ready times");
    }
    free(a);
    devo_etc_destroy(e);
  }
}

/* Runs the search and checks the answer: valid, the host's makespan is the reported one
 * exactly, not worse than the best start. */
static void run_checked(const devo_etc *e, const int *starts, int nstarts, const devo__gls_opts *o,
                        int *out, devo__gls_result *r, const char *what)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  double ms, start_best = INFINITY;
  char err[300];
  int k, t, st;
  for (k = 0; k < nstarts; ++k) {
    CHECK(devo_etc_evaluate(e, starts + (size_t)k * n, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
    start_best = ms < start_best ? ms : start_best;
  }
  for (t = 0; t < n; ++t)
    out[t] = -1;
  st = devo__gpu_sched_ls(e, starts, nstarts, out, o, r, err, sizeof err);
  CHECKF(st == DEVO_OK, "%s: %s (%s)", what, devo_status_name(st), err);
  for (t = 0; t < n; ++t)
    CHECKF(out[t] >= 0 && out[t] < m, "%s: task %d on machine %d", what, t, out[t]);
  CHECK(devo_etc_evaluate(e, out, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
  CHECKF(memcmp(&ms, &r->makespan, sizeof ms) == 0, "%s: host makespan %.17g, reported %.17g", what,
         ms, r->makespan);
  CHECKF(ms <= start_best, "%s: %.17g is worse than the start %.17g", what, ms, start_best);
  printf("%s: start %.6f -> %.6f (%.3f%%), %lld steps, %lld moves, %lld candidates, %d chains "
         "x %d threads, %.3f s\n",
         what, start_best, ms, 100.0 * (start_best - ms) / start_best, (long long)r->steps,
         (long long)r->moves, (long long)r->candidates, r->chains, r->block, r->seconds);
}

static void opts(devo__gls_opts *o, int chains, int64_t steps, int de_every)
{
  memset(o, 0, sizeof *o);
  o->seed = 7;
  o->chains = chains;
  o->steps = steps;
  o->de_every = de_every;
  o->f = 0.5;
  o->cr = 0.9;
}

TEST_CASE(search_valid_and_exact)
{
  devo_etc *e;
  devo__gls_opts o;
  devo__gls_result r;
  int *starts, *out, k;
  double mm;
  need_gpu();
  e = read_braun("u_c_hihi");
  starts = (int *)malloc(3 * 512 * sizeof(int));
  out = (int *)malloc(512 * sizeof(int));
  CHECK(starts && out);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MINMIN, starts) == DEVO_OK);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_OLB, starts + 512) == DEVO_OK);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MET, starts + 1024) == DEVO_OK);
  CHECK(devo_etc_evaluate(e, starts, DEVO_ORDER_FCFS, &mm, NULL) == DEVO_OK);
  for (k = 0; k < 3; ++k) {
    static const char *const what[] = {"one chain, no DE", "64 chains, DE every 4",
                                       "3 starts, 100 chains, DE every 8"};
    opts(&o, k == 0 ? 1 : (k == 1 ? 64 : 100), 40, k == 0 ? 0 : (k == 1 ? 4 : 8));
    run_checked(e, starts, k == 2 ? 3 : 1, &o, out, &r, what[k]);
    CHECKF(r.steps == 40 * (int64_t)r.chains, "%s: %lld steps", what[k], (long long)r.steps);
    CHECK(r.status == DEVO_OK && r.candidates > 0 && r.moves > 0);
    /* descents from Min-min on a Braun instance always find improving moves */
    CHECKF(r.makespan < mm, "%s: %.6f does not improve Min-min %.6f", what[k], r.makespan, mm);
  }
  /* a generated instance with ready times, from random starts */
  {
    devo_etc *g = make_etc(700, 12, 50, 0, 5u);
    double w[12];
    int *s2 = (int *)malloc(2 * 700 * sizeof(int)), *o2 = (int *)malloc(700 * sizeof(int)), t;
    char err[256];
    CHECK(s2 && o2);
    for (t = 0; t < 12; ++t)
      w[t] = 3.0 * t;
    CHECKF(devo_etc_set_ready(g, w, err, sizeof err) == DEVO_OK, "%s", err);
    lcg_state = 99;
    for (t = 0; t < 1400; ++t)
      s2[t] = (int)(lcg() % 12u);
    opts(&o, 40, 25, 5);
    o.block = 128;
    run_checked(g, s2, 2, &o, o2, &r, "700x12 ready times, random starts");
    free(s2);
    free(o2);
    devo_etc_destroy(g);
  }
  free(starts);
  free(out);
  devo_etc_destroy(e);
}

TEST_CASE(search_deterministic)
{
  devo_etc *e;
  devo__gls_opts o;
  devo__gls_result r1, r2;
  int *start, *a1, *a2;
  need_gpu();
  e = read_braun("u_i_hilo");
  start = (int *)malloc(512 * sizeof(int));
  a1 = (int *)malloc(512 * sizeof(int));
  a2 = (int *)malloc(512 * sizeof(int));
  CHECK(start && a1 && a2);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MCT, start) == DEVO_OK);
  opts(&o, 48, 21, 4); /* 21: the last launch is a short one */
  run_checked(e, start, 1, &o, a1, &r1, "run 1");
  run_checked(e, start, 1, &o, a2, &r2, "run 2");
  CHECK(memcmp(a1, a2, 512 * sizeof(int)) == 0);
  CHECK(memcmp(&r1.makespan, &r2.makespan, sizeof r1.makespan) == 0);
  CHECK(r1.steps == r2.steps && r1.moves == r2.moves && r1.candidates == r2.candidates);
  free(start);
  free(a1);
  free(a2);
  devo_etc_destroy(e);
}

TIMED_CASE(search_deadline)
{
  devo_etc *e;
  devo__gls_opts o;
  devo__gls_result r;
  int *start, *out;
  double t0, dt;
  need_gpu();
  e = make_etc(4096, 64, 100, 0, 3u);
  start = (int *)malloc(4096 * sizeof(int));
  out = (int *)malloc(4096 * sizeof(int));
  CHECK(start && out);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_OLB, start) == DEVO_OK);
  opts(&o, 0, 0, 8);
  t0 = devo__now();
  o.deadline = t0 + 0.3;
  run_checked(e, start, 1, &o, out, &r, "4096x64 to a 0.3 s deadline");
  dt = devo__now() - t0;
  CHECKF(dt <= 0.3 + 0.02, "the search took %.4f s for a 0.3 s deadline", dt);
  CHECK(r.status == DEVO_TIME_LIMIT);
  free(start);
  free(out);
  devo_etc_destroy(e);
}

TEST_CASE(bad_options)
{
  devo_etc *e;
  devo__gls_opts o;
  devo__gls_result r;
  int a[40], out[40], t;
  char err[300];
  need_gpu();
  e = make_etc(40, 4, 10, 0, 1u);
  for (t = 0; t < 40; ++t)
    a[t] = t % 4;
  opts(&o, 8, 0, 0); /* no steps and no deadline */
  CHECK(devo__gpu_sched_ls(e, a, 1, out, &o, &r, err, sizeof err) == DEVO_E_INVALID);
  opts(&o, 8, 5, 0);
  o.block = 48;
  CHECK(devo__gpu_sched_ls(e, a, 1, out, &o, &r, err, sizeof err) == DEVO_E_INVALID);
  CHECK(strstr(err, "block 48") != NULL);
  CHECK(devo__gpu_sched_ls_scan(e, a, 48, NULL, err, sizeof err) == DEVO_E_INVALID);
  a[3] = 4;
  opts(&o, 8, 5, 0);
  CHECK(devo__gpu_sched_ls(e, a, 1, out, &o, &r, err, sizeof err) == DEVO_E_INVALID);
  devo_etc_destroy(e);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(scan_matches_brute_force), TC(search_valid_and_exact),
                                  TC(search_deterministic), TC(search_deadline), TC(bad_options)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
