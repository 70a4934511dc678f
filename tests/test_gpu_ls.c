/* SPDX-License-Identifier: MIT */
/* test_gpu_ls.c: the GPU makespan search of kernels/gpu_sched_ls.cu (engine/gpu_ls.h). Every
 * case skips (exit 77) where no CUDA device is usable. One scan of one block must pick the move
 * that a brute-force scan written here picks (the same critical machine, kind, tasks, value bits
 * and candidate count, on random, tie-heavy and tile-overflowing schedules, for several block
 * sizes); a search must return a valid schedule whose makespan, recomputed here, is the
 * reported number exactly and never worse than its best start; a fixed step count must give the
 * same bits twice; a deadline must end the search in time; several devices (one GPU listed
 * twice will do) must keep these promises and exchange their best schedules. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gpu_ls.h"
#include "engine/internal.h"
#include "problems/de_ops.h"
#include "problems/philox.h"
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

/* Loads summed in task order from the ready times (etc.h's order); returns the makespan. */
static double ref_loads(const devo_etc *e, const int *a, double *L)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e), *w = devo_etc_ready(e);
  double ms;
  int t, j;
  for (j = 0; j < m; ++j)
    L[j] = w ? w[j] : 0.0;
  for (t = 0; t < n; ++t)
    L[a[t]] += v[(size_t)t * m + a[t]];
  ms = L[0];
  for (j = 1; j < m; ++j)
    ms = L[j] > ms ? L[j] : ms;
  return ms;
}

/* The critical machine: largest load, lowest index. */
static int ref_crit(const double *L, int m)
{
  int j, c = 0;
  for (j = 1; j < m; ++j)
    if (L[j] > L[c])
      c = j;
  return c;
}

/* Every move t -> j and swap (t, u) off c with the loads L, by the expressions gpu_ls.h's index
 * order refers to: the lowest (value, index) into *bv, *bidx (LLONG_MAX: none); returns the
 * candidates. */
static long long ref_scan(const devo_etc *e, const int *a, const double *L, int c, double *bv,
                          long long *bidx)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e);
  const long long nm = (long long)n * m;
  double best = INFINITY;
  long long bi = LLONG_MAX, kc = 0;
  int t, u, j;
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
      if (val < best || (val == best && idx < bi)) {
        best = val;
        bi = idx;
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
      if (val < best || (val == best && idx < bi)) {
        best = val;
        bi = idx;
      }
    }
  }
  *bv = best;
  *bidx = bi;
  return kc * (m - 1) + kc * (n - kc);
}

/* The brute-force scan of a schedule: exact loads, the critical machine, ref_scan. */
static void brute_force(const devo_etc *e, const int *a, devo__gls_move *r)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const long long nm = (long long)n * m;
  double *L = (double *)malloc((size_t)m * sizeof(double));
  long long bidx;
  CHECK(L != NULL);
  ref_loads(e, a, L);
  memset(r, 0, sizeof *r);
  r->crit = ref_crit(L, m);
  r->candidates = ref_scan(e, a, L, r->crit, &r->value, &bidx);
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

/* ---- a sequential reference of the whole search (the algorithm that kernels/gpu_sched_ls.cu
 * documents at its top, written again here): chains step by step, the same Philox draws and DE
 * operators (the library's shared philox.h and de_ops.h), the descent by ref_scan. */

typedef struct ref_stats {
  long long steps, moves, cands;
} ref_stats;

/* Steepest descent off the critical machine with incrementally kept loads. */
static void ref_descend(const devo_etc *e, int *a, double *L, int cap, ref_stats *st)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e);
  const long long nm = (long long)n * m;
  int k;
  for (k = 0; k < cap; ++k) {
    const int c = ref_crit(L, m);
    const double lim = L[c] - 1e-12 * L[c];
    double bv;
    long long bi;
    st->cands += ref_scan(e, a, L, c, &bv, &bi);
    if (!(bv < lim))
      break;
    if (bi < nm) {
      const int t = (int)(bi / m), j = (int)(bi % m);
      a[t] = j;
      L[c] = L[c] - v[(size_t)t * m + c];
      L[j] = L[j] + v[(size_t)t * m + j];
    } else {
      const int t = (int)((bi - nm) / n), u = (int)((bi - nm) % n), b = a[u];
      const double lc = (L[c] - v[(size_t)t * m + c]) + v[(size_t)u * m + c];
      const double lb = (L[b] - v[(size_t)u * m + b]) + v[(size_t)t * m + b];
      a[t] = b;
      a[u] = c;
      L[c] = lc;
      L[b] = lb;
    }
    st->moves++;
  }
}

/* The perturbation: 2 .. 6 drawn tasks, each to the machine other than its own where it
 * completes first (lowest index on ties). */
static void ref_perturb(const devo_etc *e, int *a, double *L, uint64_t seed, uint32_t step,
                        uint32_t chain)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e);
  const devo__u32x4 w0 = devo__rng(seed, 0u, step, chain, DEVO__RNG_GLS);
  const int d = 2 + (int)devo__below(w0.v[0], 5u);
  int q, j;
  for (q = 0; q < d; ++q) {
    const devo__u32x4 w = devo__rng(seed, 1u + (uint32_t)q, step, chain, DEVO__RNG_GLS);
    const int t = (int)devo__below(w.v[0], (uint32_t)n), j0 = a[t];
    double best = INFINITY;
    int jb = -1;
    for (j = 0; j < m; ++j) {
      const double x = L[j] + v[(size_t)t * m + j];
      if (j != j0 && x < best) {
        best = x;
        jb = j;
      }
    }
    L[j0] = L[j0] - v[(size_t)t * m + j0];
    L[jb] = L[jb] + v[(size_t)t * m + jb];
    a[t] = jb;
  }
}

/* The perturbation without the large neighbourhood (DEVO__GLS_PERTURB_RANDOM): the same drawn
 * tasks, each to a machine other than its own drawn uniformly: the (m - 1)-way draw w.v[1],
 * skipping its own machine. */
static void ref_kick(const devo_etc *e, int *a, double *L, uint64_t seed, uint32_t step,
                     uint32_t chain)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e);
  const devo__u32x4 w0 = devo__rng(seed, 0u, step, chain, DEVO__RNG_GLS);
  const int d = 2 + (int)devo__below(w0.v[0], 5u);
  int q;
  for (q = 0; q < d; ++q) {
    const devo__u32x4 w = devo__rng(seed, 1u + (uint32_t)q, step, chain, DEVO__RNG_GLS);
    const int t = (int)devo__below(w.v[0], (uint32_t)n), j0 = a[t];
    const int r = (int)devo__below(w.v[1], (uint32_t)(m - 1)), j = r < j0 ? r : r + 1;
    L[j0] = L[j0] - v[(size_t)t * m + j0];
    L[j] = L[j] + v[(size_t)t * m + j];
    a[t] = j;
  }
}

/* DE rand/1/bin of chain i from the snapshot pop (P n): machine a as a + 0.5, clipped to
 * [0, m], decoded by floor. */
static void ref_de(int n, int m, int P, const int *pop, int *a, uint64_t seed, uint32_t step,
                   uint32_t i, double f, double cr)
{
  const devo__de_idx r = devo__de_indices(seed, step, i, (uint32_t)P, (uint32_t)n);
  const int *xi = pop + (size_t)i * n, *x1 = pop + (size_t)r.r1 * n, *x2 = pop + (size_t)r.r2 * n,
            *x3 = pop + (size_t)r.r3 * n;
  int j;
  for (j = 0; j < n; ++j) {
    const devo__de_u u = devo__de_coord(seed, step, i, (uint32_t)j);
    a[j] = xi[j];
    if (u.cr < cr || (uint32_t)j == r.jrand) {
      double y = (x1[j] + 0.5) + f * ((x2[j] + 0.5) - (x3[j] + 0.5));
      y = y < 0.0 ? 0.0 : (y > (double)m ? (double)m : y);
      a[j] = y < 1.0 ? 0 : (y >= (double)m ? m - 1 : (int)y);
    }
  }
}

/* The search of devo__gpu_sched_ls with a step budget: the best chain into out, its makespan
 * into *ms, the totals into *tot. */
static void ref_search(const devo_etc *e, const int *starts, int nstarts, const devo__gls_opts *o,
                       int P, int *out, double *ms, ref_stats *tot)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const int de_every = P >= 4 ? o->de_every : 0;
  int *pop = (int *)malloc((size_t)P * n * sizeof(int)),
      *snap = (int *)malloc((size_t)P * n * sizeof(int));
  int *a = (int *)malloc((size_t)n * sizeof(int));
  double *cur = (double *)malloc((size_t)P * sizeof(double)),
         *L = (double *)malloc((size_t)m * sizeof(double));
  long long s;
  int q, bq = 0;
  CHECK(pop && snap && a && cur && L);
  memset(tot, 0, sizeof *tot);
  for (q = 0; q < P; ++q) {
    memcpy(pop + (size_t)q * n, starts + (size_t)(q % nstarts) * n, (size_t)n * sizeof(int));
    cur[q] = ref_loads(e, pop + (size_t)q * n, L);
  }
  for (s = 0; s < o->steps; ++s) {
    const int de = de_every > 0 && s > 0 && s % de_every == 0;
    if (de)
      memcpy(snap, pop, (size_t)P * n * sizeof(int));
    for (q = 0; q < P; ++q) {
      int *x = pop + (size_t)q * n;
      double t_ms;
      memcpy(a, x, (size_t)n * sizeof(int));
      ref_loads(e, a, L);
      if (de) {
        ref_de(n, m, P, snap, a, o->seed, (uint32_t)s, (uint32_t)q, o->f, o->cr);
        ref_loads(e, a, L);
      } else if (s > 0 && o->perturb == DEVO__GLS_PERTURB_RANDOM) {
        ref_kick(e, a, L, o->seed, (uint32_t)s, (uint32_t)q);
      } else if (s > 0) {
        ref_perturb(e, a, L, o->seed, (uint32_t)s, (uint32_t)q);
      }
      ref_descend(e, a, L, s == 0 ? 4 * n + 64 : n + 64, tot);
      t_ms = ref_loads(e, a, L);
      tot->steps++;
      if (t_ms <= cur[q]) {
        cur[q] = t_ms;
        memcpy(x, a, (size_t)n * sizeof(int));
      }
    }
  }
  for (q = 1; q < P; ++q)
    if (cur[q] < cur[bq])
      bq = q;
  memcpy(out, pop + (size_t)bq * n, (size_t)n * sizeof(int));
  *ms = cur[bq];
  free(pop);
  free(snap);
  free(a);
  free(cur);
  free(L);
}

static void compare_reference(const devo_etc *e, const int *starts, int nstarts,
                              const devo__gls_opts *o, const char *what)
{
  const int n = devo_etc_ntasks(e);
  int *g = (int *)malloc((size_t)n * sizeof(int)), *c = (int *)malloc((size_t)n * sizeof(int));
  devo__gls_result r;
  ref_stats rs;
  double ms;
  CHECK(g && c);
  run_checked(e, starts, nstarts, o, g, &r, what);
  ref_search(e, starts, nstarts, o, r.chains, c, &ms, &rs);
  CHECKF(rs.steps == r.steps && rs.moves == r.moves && rs.cands == r.candidates,
         "%s: GPU %lld steps, %lld moves, %lld candidates; CPU reference %lld, %lld, %lld", what,
         (long long)r.steps, (long long)r.moves, (long long)r.candidates, rs.steps, rs.moves,
         rs.cands);
  CHECKF(memcmp(&ms, &r.makespan, sizeof ms) == 0, "%s: GPU %.17g, CPU reference %.17g", what,
         r.makespan, ms);
  CHECKF(memcmp(g, c, (size_t)n * sizeof(int)) == 0, "%s: the schedules differ", what);
  free(g);
  free(c);
}

/* The GPU search equals the sequential reference bit for bit with a step budget: the same
 * schedule, makespan, and counts of steps, moves and candidates. */
TEST_CASE(search_matches_cpu_reference)
{
  devo_etc *e;
  devo__gls_opts o;
  int *starts;
  need_gpu();
  e = read_braun("u_c_hihi");
  starts = (int *)malloc(2 * 512 * sizeof(int));
  CHECK(starts != NULL);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MCT, starts) == DEVO_OK);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MINMIN, starts + 512) == DEVO_OK);
  opts(&o, 24, 19, 4);
  compare_reference(e, starts, 2, &o, "u_c_hihi, 24 chains, 19 steps, DE every 4");
  opts(&o, 3, 12, 4); /* fewer than 4 chains: no DE */
  o.block = 64;
  compare_reference(e, starts, 2, &o, "u_c_hihi, 3 chains, 12 steps");
  opts(&o, 12, 13, 5); /* the ablation's perturbation without the large neighbourhood */
  o.perturb = DEVO__GLS_PERTURB_RANDOM;
  compare_reference(e, starts, 2, &o, "u_c_hihi, 12 chains, 13 steps, DE every 5, random kicks");
  devo_etc_destroy(e);
  free(starts);
  /* ties everywhere (integer times), ready times */
  {
    devo_etc *g = make_etc(300, 8, 4, 1, 21u);
    double w[8];
    char err[256];
    int *a = (int *)malloc(300 * sizeof(int)), t;
    CHECK(a != NULL);
    for (t = 0; t < 8; ++t)
      w[t] = (double)(t % 3);
    CHECKF(devo_etc_set_ready(g, w, err, sizeof err) == DEVO_OK, "%s", err);
    lcg_state = 5;
    for (t = 0; t < 300; ++t)
      a[t] = (int)(lcg() % 8u);
    opts(&o, 10, 17, 3);
    o.block = 1024;
    compare_reference(g, a, 1, &o, "300x8 integer times, 10 chains, 17 steps, DE every 3");
    free(a);
    devo_etc_destroy(g);
  }
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
  opts(&o, 8, 5, 0);
  o.perturb = 2;
  CHECK(devo__gpu_sched_ls(e, a, 1, out, &o, &r, err, sizeof err) == DEVO_E_INVALID);
  CHECK(strstr(err, "perturb 2") != NULL);
  a[3] = 4;
  opts(&o, 8, 5, 0);
  CHECK(devo__gpu_sched_ls(e, a, 1, out, &o, &r, err, sizeof err) == DEVO_E_INVALID);
  devo_etc_destroy(e);
}

/* The progress callback of the several-device case: counts its calls, asks to stop at the
 * first. */
static int stop_at_once(void *ud, int64_t steps, double best)
{
  (void)steps;
  (void)best;
  ++*(int *)ud;
  return 1;
}

/* One search on several devices (device 0 listed twice where one GPU is all there is: two slots
 * on one GPU take the same code path): with a step budget the same answer twice, valid and exact,
 * never worse than the best start, with every slot's chains and steps counted and the exchanges
 * made at their fixed launch counts; one slot is the one-device search bit for bit; a deadline
 * and a callback stop every slot; a bad device list is refused. */
TEST_CASE(search_several_devices)
{
  static const int two[2] = {0, 0}, one[1] = {0}, bad[2] = {0, 99};
  devo_etc *e;
  devo__gls_opts o;
  devo__gls_result r1, r2;
  int *starts, *a1, *a2, calls = 0;
  char err[300];
  need_gpu();
  e = read_braun("u_c_hihi");
  starts = (int *)malloc(2 * 512 * sizeof(int));
  a1 = (int *)malloc(512 * sizeof(int));
  a2 = (int *)malloc(512 * sizeof(int));
  CHECK(starts && a1 && a2);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MCT, starts) == DEVO_OK);
  CHECK(devo_etc_heuristic(e, DEVO_HEUR_MINMIN, starts + 512) == DEVO_OK);
  /* 40 steps, DE every 4: 10 launches, exchanges after the 4th and the 8th (not after the
   * last), two slots each */
  opts(&o, 24, 40, 4);
  o.devices = two;
  o.ndevices = 2;
  run_checked(e, starts, 2, &o, a1, &r1, "2 slots on device 0, run 1");
  run_checked(e, starts, 2, &o, a2, &r2, "2 slots on device 0, run 2");
  CHECK(memcmp(a1, a2, 512 * sizeof(int)) == 0);
  CHECK(memcmp(&r1.makespan, &r2.makespan, sizeof r1.makespan) == 0);
  CHECK(r1.moves == r2.moves && r1.candidates == r2.candidates && r1.imports == r2.imports);
  CHECK_EQ_INT(r1.devices, 2);
  CHECK_EQ_INT(r1.chains, 48);
  CHECK_EQ_INT(r1.status, DEVO_OK);
  CHECKF(r1.steps == 40 * 48 && r1.exchanges == 4, "%lld steps, %lld exchanges",
         (long long)r1.steps, (long long)r1.exchanges);
  /* two searches from other seeds: one of them is behind at an exchange, and takes the best */
  CHECKF(r1.imports > 0, "%lld imports", (long long)r1.imports);
  printf("2 slots: %lld exchanges, %lld imports\n", (long long)r1.exchanges, (long long)r1.imports);
  /* one listed device: the search of the calling thread's device, bit for bit */
  o.ndevices = 0;
  o.devices = NULL;
  run_checked(e, starts, 2, &o, a1, &r1, "the calling thread's device");
  o.devices = one;
  o.ndevices = 1;
  run_checked(e, starts, 2, &o, a2, &r2, "1 slot on device 0");
  CHECK(memcmp(a1, a2, 512 * sizeof(int)) == 0);
  CHECK(memcmp(&r1.makespan, &r2.makespan, sizeof r1.makespan) == 0);
  CHECK(r1.steps == r2.steps && r1.moves == r2.moves && r1.candidates == r2.candidates);
  CHECK(r2.devices == 1 && r2.exchanges == 0);
  /* a deadline ends both slots in time */
  {
    const double t0 = devo__now();
    opts(&o, 0, 0, 8);
    o.devices = two;
    o.ndevices = 2;
    o.deadline = t0 + 0.3;
    run_checked(e, starts, 2, &o, a1, &r1, "2 slots on device 0 to a 0.3 s deadline");
    CHECKF(devo__now() - t0 <= 0.3 + 0.05, "%.4f s for a 0.3 s deadline", devo__now() - t0);
    CHECK(r1.status == DEVO_TIME_LIMIT && r1.exchanges > 0 && r1.devices == 2);
  }
  /* the callback (slot 0's, on this thread) stops both slots, also the one at the barrier */
  opts(&o, 24, 100000, 4);
  o.devices = two;
  o.ndevices = 2;
  o.progress = stop_at_once;
  o.progress_ud = &calls;
  run_checked(e, starts, 2, &o, a1, &r1, "2 slots, stopped by the callback");
  CHECK_EQ_INT(r1.status, DEVO_STOPPED_BY_CALLBACK);
  CHECKF(calls == 1 && r1.steps < 2 * 24 * 100, "%d calls, %lld steps", calls, (long long)r1.steps);
  /* bad lists */
  opts(&o, 8, 5, 0);
  o.devices = bad;
  o.ndevices = 2;
  CHECK_EQ_INT(devo__gpu_sched_ls(e, starts, 1, a1, &o, &r1, err, sizeof err), DEVO_E_INVALID);
  CHECKF(strstr(err, "device 99") != NULL, "%s", err);
  o.ndevices = DEVO__GLS_MAX_DEVICES + 1;
  CHECK_EQ_INT(devo__gpu_sched_ls(e, starts, 1, a1, &o, &r1, err, sizeof err), DEVO_E_INVALID);
  o.devices = NULL;
  o.ndevices = 2;
  CHECK_EQ_INT(devo__gpu_sched_ls(e, starts, 1, a1, &o, &r1, err, sizeof err), DEVO_E_INVALID);
  free(starts);
  free(a1);
  free(a2);
  devo_etc_destroy(e);
}

/* devo_schedule_run with DEVO_SEARCH_GPU_LS: the GPU search where a device is usable, else the
 * CPU search (no skip: both paths are checked); valid, exact, never worse than the heuristics,
 * and with a step budget the same answer twice with DEVO_OK. */
TEST_CASE(schedule_run_gpu_ls)
{
  devo_etc *e = read_braun("u_s_lohi");
  devo_schedule_opts so;
  devo_schedule_result r1, r2;
  int a1[512], a2[512], hh[512], h, t;
  double ms, best_h = INFINITY;
  const int gpu = devo_gpu_available(NULL, 0);
  for (h = 0; h < DEVO_HEUR_COUNT; ++h) {
    CHECK(devo_etc_heuristic(e, h, hh) == DEVO_OK);
    CHECK(devo_etc_evaluate(e, hh, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
    best_h = ms < best_h ? ms : best_h;
  }
  devo_schedule_opts_init(&so);
  so.lambda = 1.0;
  so.search = DEVO_SEARCH_GPU_LS;
  so.backend = DEVO_BACKEND_GPU;
  so.time_limit = 60.0;
  so.steps = 6;
  so.chains = 8;
  so.seed = 3;
  CHECKF(devo_schedule_run(e, &so, a1, &r1) == DEVO_OK, "%s", r1.message);
  CHECKF(devo_schedule_run(e, &so, a2, &r2) == DEVO_OK, "%s", r2.message);
  CHECK_EQ_INT(r1.backend, gpu ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU);
  CHECK_EQ_INT(r1.status, DEVO_OK);
  for (t = 0; t < 512; ++t)
    CHECK(a1[t] >= 0 && a1[t] < 16);
  CHECK(devo_etc_evaluate(e, a1, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
  CHECK(memcmp(&ms, &r1.makespan, sizeof ms) == 0);
  CHECKF(ms <= best_h, "%.17g is worse than the best heuristic %.17g", ms, best_h);
  CHECK(memcmp(a1, a2, sizeof a1) == 0);
  printf("devo_schedule_run gpu-ls on the %s: best heuristic %.6f -> %.6f, %lld steps\n",
         gpu ? "GPU" : "CPU (no GPU)", best_h, ms, (long long)r1.ils_rounds);
  /* the ablation's entry: the default tune is devo_schedule_run itself; another tune still
   * gives a valid answer no worse than the heuristics; a bad one is refused, not run on the CPU */
  {
    devo__gls_tune tune = {DEVO__GLS_DE_EVERY, DEVO__GLS_PERTURB_IG};
    CHECKF(devo__schedule_run_tuned(e, &so, &tune, a2, &r2) == DEVO_OK, "%s", r2.message);
    CHECK(memcmp(a1, a2, sizeof a1) == 0);
    CHECK(memcmp(&r1.makespan, &r2.makespan, sizeof r1.makespan) == 0);
    tune.de_every = 0;
    tune.perturb = DEVO__GLS_PERTURB_RANDOM;
    CHECKF(devo__schedule_run_tuned(e, &so, &tune, a2, &r2) == DEVO_OK, "%s", r2.message);
    CHECK_EQ_INT(r2.backend, gpu ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU);
    CHECK(devo_etc_evaluate(e, a2, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
    CHECK(memcmp(&ms, &r2.makespan, sizeof ms) == 0 && ms <= best_h);
    printf("tuned (no DE, random kicks): %.6f\n", ms);
    tune.perturb = 2;
    CHECK_EQ_INT(devo__schedule_run_tuned(e, &so, &tune, a2, &r2), DEVO_E_INVALID);
    CHECK(strstr(r2.message, "perturb 2") != NULL);
    tune.perturb = DEVO__GLS_PERTURB_IG;
    tune.de_every = -1;
    CHECK_EQ_INT(devo__schedule_run_tuned(e, &so, &tune, a2, &r2), DEVO_E_INVALID);
  }
  /* gpus 1 is device 0, this thread's: the same answer; every device: valid; more than there
   * are: refused */
  if (gpu) {
    so.gpus = 1;
    CHECKF(devo_schedule_run(e, &so, a2, &r2) == DEVO_OK, "%s", r2.message);
    CHECK(memcmp(a1, a2, sizeof a1) == 0);
    so.gpus = DEVO_GPUS_ALL;
    CHECKF(devo_schedule_run(e, &so, a2, &r2) == DEVO_OK, "%s", r2.message);
    CHECK(devo_etc_evaluate(e, a2, DEVO_ORDER_FCFS, &ms, NULL) == DEVO_OK);
    CHECK(memcmp(&ms, &r2.makespan, sizeof ms) == 0 && ms <= best_h);
    CHECK_EQ_INT(r2.backend, DEVO_BACKEND_GPU);
    if (devo_gpu_count() < DEVO_GPUS_MAX) {
      so.gpus = devo_gpu_count() + 1;
      CHECK_EQ_INT(devo_schedule_run(e, &so, a2, &r2), DEVO_E_INVALID);
      CHECKF(strstr(r2.message, "gpus") != NULL, "%s", r2.message);
    }
    so.gpus = 0;
  }
  /* the weighted objective is refused */
  so.lambda = 0.75;
  CHECK_EQ_INT(devo_schedule_run(e, &so, a1, &r1), DEVO_E_INVALID);
  devo_etc_destroy(e);
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {
      TC(scan_matches_brute_force), TC(search_valid_and_exact), TC(search_matches_cpu_reference),
      TC(search_deterministic),     TC(search_deadline),        TC(bad_options),
      TC(search_several_devices),   TC(schedule_run_gpu_ls)};
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
