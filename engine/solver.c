/* SPDX-License-Identifier: MIT */
/* solver.c: the solver handle, its validated setters, and the anytime solve loop that both
 * backends share: start (allocate, initialise, evaluate), then chunks of generations with the
 * stopping rules checked between chunks. Chunks are sized from the measured time per generation
 * so that a chunk never runs past the deadline by more than max(1 ms, 1% of the budget). */
#include <math.h>
#include <string.h>

#include "internal.h"

/* Without a time limit a chunk lasts about this long, so interrupts and callbacks stay timely. */
#define CHUNK_SECONDS 0.05

int devo_solver_create(devo_solver **out, const devo_problem *p, const devo_allocator *alloc)
{
  devo_allocator a = devo__allocator_or_default(alloc);
  devo_solver *s;
  if (!out)
    return DEVO_E_INVALID;
  *out = NULL;
  if (!p || p->view.kind == DEVO__P_NONE)
    return DEVO_E_INVALID;
  s = (devo_solver *)devo__calloc(&a, 1, sizeof *s);
  if (!s)
    return DEVO_E_NOMEM;
  s->al = a;
  s->prob = p;
  s->o.np = 100;
  s->o.f = 0.5;
  s->o.cr = 0.9;
  s->o.var = devo__variant_default();
  s->o.seed = 1;
  s->o.bounds = DEVO_BOUNDS_REINIT;
  s->o.threads = 1;
  s->o.backend = DEVO_BACKEND_CPU;
  s->o.gpu_design = DEVO_GPU_FUSED;
  s->o.target = (double)NAN;
  s->o.islands = 1;
  s->o.mig_interval = DEVO_MIGRATION_INTERVAL_DEFAULT;
  s->o.topology = DEVO_TOPOLOGY_RING;
  atomic_init(&s->interrupt, 0);
  *out = s;
  return DEVO_OK;
}

static void release_run(devo_solver *s)
{
  if (s->bk)
    s->bk->stop(s);
  s->bk = NULL;
  s->bk_state = NULL;
  devo__free(&s->al, s->best_x);
  s->best_x = NULL;
  s->have_best = 0;
}

void devo_solver_destroy(devo_solver *s)
{
  devo_allocator a;
  if (!s)
    return;
  release_run(s);
  a = s->al;
  devo__free(&a, s);
}

const char *devo_solver_errmsg(const devo_solver *s)
{
  return s ? s->err : "no solver handle";
}

const char *devo_solver_backend_info(const devo_solver *s)
{
  return s ? s->info : "";
}

#define SETTER_GUARD(s)                                                                            \
  do {                                                                                             \
    if (!(s))                                                                                      \
      return DEVO_E_INVALID;                                                                       \
    if ((s)->running)                                                                              \
      return devo__set_err((s), DEVO_E_STATE, "cannot change options during a solve");             \
  } while (0)

int devo_solver_set_np(devo_solver *s, int np)
{
  SETTER_GUARD(s);
  if (!devo__np_ok(np))
    return devo__set_err(s, DEVO_E_INVALID,
                         "population size %d is out of range (DE/rand/1 needs 4 to %d)", np,
                         DEVO__MAX_NP);
  s->o.np = np;
  s->o.np_set = 1;
  return DEVO_OK;
}

int devo_solver_set_f(devo_solver *s, double f)
{
  SETTER_GUARD(s);
  if (!devo__f_ok(f))
    return devo__set_err(s, DEVO_E_INVALID, "F = %.17g is out of range (0, 2]", f);
  s->o.f = f;
  return DEVO_OK;
}

int devo_solver_set_cr(devo_solver *s, double cr)
{
  SETTER_GUARD(s);
  if (!devo__cr_ok(cr))
    return devo__set_err(s, DEVO_E_INVALID, "CR = %.17g is out of range [0, 1]", cr);
  s->o.cr = cr;
  return DEVO_OK;
}

int devo_solver_set_seed(devo_solver *s, uint64_t seed)
{
  SETTER_GUARD(s);
  s->o.seed = seed;
  return DEVO_OK;
}

int devo_solver_set_bounds(devo_solver *s, int rule)
{
  SETTER_GUARD(s);
  if (rule < DEVO_BOUNDS_REINIT || rule > DEVO_BOUNDS_MIDPOINT)
    return devo__set_err(s, DEVO_E_INVALID, "unknown bound rule %d", rule);
  s->o.bounds = rule;
  return DEVO_OK;
}

int devo_solver_set_threads(devo_solver *s, int threads)
{
  SETTER_GUARD(s);
  if (!devo__threads_ok(threads))
    return devo__set_err(s, DEVO_E_INVALID, "thread count %d is out of range (1 to 1024)", threads);
  s->o.threads = threads;
  return DEVO_OK;
}

int devo_solver_set_backend(devo_solver *s, int backend)
{
  SETTER_GUARD(s);
  if (backend < DEVO_BACKEND_CPU || backend > DEVO_BACKEND_AUTO)
    return devo__set_err(s, DEVO_E_INVALID, "unknown backend %d", backend);
  s->o.backend = backend;
  return DEVO_OK;
}

int devo_solver_set_gpu_design(devo_solver *s, int design)
{
  SETTER_GUARD(s);
  if (design != DEVO_GPU_FUSED && design != DEVO_GPU_MULTIKERNEL && design != DEVO_GPU_NAIVE)
    return devo__set_err(s, DEVO_E_INVALID, "unknown GPU design %d", design);
  s->o.gpu_design = design;
  return DEVO_OK;
}

int devo_solver_set_max_evals(devo_solver *s, int64_t max_evals)
{
  SETTER_GUARD(s);
  if (max_evals < 0)
    return devo__set_err(s, DEVO_E_INVALID, "evaluation limit %lld is negative",
                         (long long)max_evals);
  s->o.max_evals = max_evals;
  return DEVO_OK;
}

int devo_solver_set_max_generations(devo_solver *s, int64_t max_gens)
{
  SETTER_GUARD(s);
  if (max_gens < 0)
    return devo__set_err(s, DEVO_E_INVALID, "generation limit %lld is negative",
                         (long long)max_gens);
  if (max_gens > (int64_t)UINT32_MAX - 1)
    return devo__set_err(s, DEVO_E_INVALID, "generation limit %lld is above 2^32 - 2",
                         (long long)max_gens);
  s->o.max_gens = max_gens;
  return DEVO_OK;
}

int devo_solver_set_target(devo_solver *s, double target)
{
  SETTER_GUARD(s);
  if (isinf(target))
    return devo__set_err(s, DEVO_E_INVALID,
                         "target value must be finite ((double)NAN switches it off)");
  s->o.target = target;
  return DEVO_OK;
}

int devo_solver_set_time_limit(devo_solver *s, double seconds)
{
  SETTER_GUARD(s);
  if (!isfinite(seconds) || seconds < 0.0)
    return devo__set_err(s, DEVO_E_INVALID, "time limit %g s must be finite and >= 0", seconds);
  s->o.time_limit = seconds;
  return DEVO_OK;
}

int devo_solver_set_islands(devo_solver *s, int islands, int64_t interval, int topology)
{
  SETTER_GUARD(s);
  if (islands < 1 || islands > DEVO_ISLANDS_MAX)
    return devo__set_err(s, DEVO_E_INVALID, "island count %d is out of range (1 to %d)", islands,
                         DEVO_ISLANDS_MAX);
  if (interval < 1 || interval > (int64_t)UINT32_MAX - 1)
    return devo__set_err(s, DEVO_E_INVALID,
                         "migration interval %lld is out of range (1 to 2^32 - 2 generations)",
                         (long long)interval);
  if (topology != DEVO_TOPOLOGY_RING && topology != DEVO_TOPOLOGY_FULL)
    return devo__set_err(s, DEVO_E_INVALID, "unknown topology %d (ring or full)", topology);
  s->o.islands = islands;
  s->o.mig_interval = interval;
  s->o.topology = topology;
  return DEVO_OK;
}

void devo_solver_get_islands(const devo_solver *s, int *islands, int64_t *interval, int *topology)
{
  if (islands)
    *islands = s->o.islands;
  if (interval)
    *interval = s->o.mig_interval;
  if (topology)
    *topology = s->o.topology;
}

int devo_solver_set_progress(devo_solver *s, devo_progress_fn fn, void *ud)
{
  SETTER_GUARD(s);
  s->o.progress = fn;
  s->o.progress_ud = ud;
  return DEVO_OK;
}

void devo_interrupt(devo_solver *s)
{
  if (s)
    atomic_store(&s->interrupt, 1);
}

void devo__solver_watch(devo_solver *s, const volatile sig_atomic_t *flag)
{
  if (s)
    s->ext_interrupt = flag;
}

int devo_gpu_available(char *msg, size_t msglen)
{
  return devo__gpu_probe(msg, msglen);
}

/* The probe makes the primary context (kernels/gpu_backend.cu: cudaFree(0)); without CUDA
 * (gpu_none.c) it answers 0. */
int devo_gpu_warmup(void)
{
  return devo__gpu_probe(NULL, 0) ? DEVO_OK : DEVO_E_NODEVICE;
}

int devo_gpu_count(void)
{
  return devo__gpu_count();
}

int devo_gpu_select(int device)
{
  const int n = devo__gpu_count();
  if (n < 1)
    return DEVO_E_NODEVICE;
  if (device < 0 || device >= n)
    return DEVO_E_INVALID;
  return devo__gpu_set_device(device) ? DEVO_OK : DEVO_E_NODEVICE;
}

/* The population size of the next generation (L-SHADE shrinks it). */
static int devo__np_now(const devo_solver *s)
{
  return s->np_now > 0 ? s->np_now : s->o.np;
}

double devo__lpsr_frac(const devo_solver *s)
{
  const devo__opts *o = &s->o;
  if (o->max_evals > 0)
    return (double)s->evals / (double)o->max_evals;
  if (o->max_gens > 0)
    return (double)s->gens / (double)o->max_gens;
  if (o->time_limit > 0.0)
    return (devo__now() - s->t0) / o->time_limit; /* not reproducible: docs/shade.md */
  return 0.0;
}

static int validate(devo_solver *s)
{
  const devo__opts *o = &s->o;
  if (o->max_evals == 0 && o->max_gens == 0 && isnan(o->target) && o->time_limit == 0.0 &&
      !o->progress)
    return devo__set_err(s, DEVO_E_INVALID,
                         "no stopping rule: set an evaluation, generation or time limit, a "
                         "target or a progress callback");
  if (o->max_evals > 0 && o->max_evals < o->np)
    return devo__set_err(s, DEVO_E_INVALID,
                         "evaluation limit %lld is below the population size %d (the initial "
                         "population alone needs %d evaluations)",
                         (long long)o->max_evals, o->np, o->np);
  if (s->prob->view.kind == DEVO__P_USER && o->backend == DEVO_BACKEND_GPU)
    return devo__set_err(s, DEVO_E_INVALID, "a user objective runs on the CPU backend only");
  if (s->prob->box && o->backend == DEVO_BACKEND_GPU && (o->gpu_design & 0xff) != DEVO_GPU_NAIVE)
    return devo__set_err(s, DEVO_E_INVALID,
                         "per-coordinate bounds run on the CPU backend only (the GPU kernels take "
                         "one box for every coordinate)");
  if (o->islands > 1 && o->backend == DEVO_BACKEND_GPU &&
      (o->gpu_design & 0xff) != DEVO_GPU_NAIVE && devo__variant_shade(&o->var))
    return devo__set_err(s, DEVO_E_INVALID,
                         "JADE, SHADE and L-SHADE islands run on the CPU backend (the GPU's SHADE "
                         "kernels cannot take migrants)");
  if (o->islands > 1 && o->max_evals > 0 && o->max_evals / o->islands < o->np)
    return devo__set_err(s, DEVO_E_INVALID,
                         "evaluation limit %lld over %d islands leaves each island fewer than "
                         "its population size %d",
                         (long long)o->max_evals, o->islands, o->np);
  return devo__variant_validate(s);
}

/* The stopping rules, in priority order; DEVO_OK means go on. */
static int stop_reason(devo_solver *s)
{
  const devo__opts *o = &s->o;
  if (devo__interrupted(s))
    return DEVO_INTERRUPTED;
  if (!isnan(o->target) && s->best_f <= o->target)
    return DEVO_TARGET_REACHED;
  if (s->deadline > 0.0 && devo__now() >= s->deadline)
    return DEVO_TIME_LIMIT;
  if (o->max_gens > 0 && s->gens >= o->max_gens)
    return DEVO_GEN_LIMIT;
  if (o->max_evals > 0 && s->evals + devo__np_now(s) > o->max_evals)
    return DEVO_EVAL_LIMIT;
  return DEVO_OK;
}

static int call_progress(devo_solver *s)
{
  devo_progress pr;
  if (!s->o.progress)
    return DEVO_OK;
  pr.generation = s->gens;
  pr.evaluations = s->evals;
  pr.elapsed = devo__now() - s->t0;
  pr.best = s->best_f;
  return s->o.progress(s->o.progress_ud, &pr) != 0 ? DEVO_STOPPED_BY_CALLBACK : DEVO_OK;
}

/* Generations for the next chunk, from the measured seconds per generation (0 = unknown). */
static int64_t next_chunk(const devo_solver *s, double sec_per_gen, int64_t prev)
{
  const devo__opts *o = &s->o;
  double span = CHUNK_SECONDS;
  int64_t n, left;
  if (s->deadline > 0.0) {
    double slack = o->time_limit * 0.01;
    double remaining = s->deadline - devo__now();
    if (slack < 1e-3)
      slack = 1e-3;
    span = slack < span ? slack : span;
    if (remaining < span)
      span = remaining;
  }
  if (sec_per_gen <= 0.0)
    n = 1;
  else {
    double g = span / sec_per_gen;
    n = g < 1.0 ? 1 : (g > 1e9 ? (int64_t)1e9 : (int64_t)g);
    if (n > 2 * prev)
      n = 2 * prev; /* grow gently: the estimate may be noisy */
  }
  if (o->max_gens > 0) {
    left = o->max_gens - s->gens;
    if (n > left)
      n = left;
  }
  if (o->max_evals > 0) {
    left = (o->max_evals - s->evals) / devo__np_now(s);
    if (n > left)
      n = left;
  }
  return n < 1 ? 1 : n;
}

static int pick_backend(devo_solver *s)
{
  int want = s->o.backend;
  if (s->o.islands > 1) { /* the islands on the GPU when asked (fused or multikernel design) */
    s->naive_gpu = 0;
    s->bk = &devo__islands_backend;
    return want == DEVO_BACKEND_GPU ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU;
  }
  if (want == DEVO_BACKEND_AUTO)
    want = (s->prob->view.kind != DEVO__P_USER && !s->prob->box && devo__gpu_probe(NULL, 0))
               ? DEVO_BACKEND_GPU
               : DEVO_BACKEND_CPU;
  if (s->o.backend == DEVO_BACKEND_AUTO && want == DEVO_BACKEND_GPU &&
      devo__variant_shade(&s->o.var) && !devo__gpu_backend.shade_state)
    want = DEVO_BACKEND_CPU; /* a variant the GPU backend does not run yet */
  /* the naive GPU model is the CPU backend's DE with its evaluation on the GPU (devo.h); the
   * design is the low byte (the rest: kernels/gpu_variants.cuh's internal variant bits) */
  s->naive_gpu = want == DEVO_BACKEND_GPU && (s->o.gpu_design & 0xff) == DEVO_GPU_NAIVE;
  s->bk = want == DEVO_BACKEND_GPU && !s->naive_gpu ? &devo__gpu_backend : &devo__cpu_backend;
  return want;
}

/* 1 when the best vector is one of the problem's seed vectors, unchanged. */
static int best_is_seed(const devo_solver *s)
{
  const devo_problem *p = s->prob;
  int k, d = p->view.dim, n = p->nseeds < s->o.np - 4 ? p->nseeds : s->o.np - 4;
  for (k = 0; k < n; ++k)
    if (memcmp(s->best_x, p->seeds + (size_t)k * d, (size_t)d * sizeof(double)) == 0)
      return 1;
  return 0;
}

int devo__solve_step(devo_solver *s, double sec_per_gen, int64_t *chunk)
{
  int st = stop_reason(s);
  if (st == DEVO_OK)
    st = call_progress(s);
  if (st != DEVO_OK)
    return st;
  *chunk = next_chunk(s, sec_per_gen, *chunk);
  if (s->deadline > 0.0 && sec_per_gen > 0.0 && s->deadline - devo__now() < sec_per_gen)
    return DEVO_TIME_LIMIT; /* a generation would not end before the deadline */
  return DEVO_OK;
}

/* Chunks of generations after the backend's start, until a stopping rule or an error. */
int devo__solve_loop(devo_solver *s)
{
  int st;
  int64_t chunk = 1, before;
  /* the first generation too is skipped when it would not end before the deadline */
  double sec_per_gen = s->gen_estimate, t;
  for (;;) {
    if ((st = devo__solve_step(s, sec_per_gen, &chunk)) != DEVO_OK)
      return st;
    before = s->gens;
    t = devo__now();
    st = s->bk->run(s, chunk);
    if (st != DEVO_OK)
      return st;
    if (s->gens > before)
      sec_per_gen = (devo__now() - t) / (double)(s->gens - before);
  }
}

/* The options a run resets or restores on every return (devo.h): NP (L-SHADE's default is
 * set for the run only) and the interrupt flag. */
static int refuse_run(devo_solver *s, int st)
{
  s->o.np = s->np_user;
  atomic_store(&s->interrupt, 0); /* cleared on every return (devo.h) */
  s->stats.status = st;
  return st;
}

int devo__solve_begin(devo_solver *s, double t0)
{
  int st, dim;
  s->err[0] = 0;
  s->info[0] = 0;
  release_run(s);
  memset(&s->stats, 0, sizeof s->stats);
  s->gens = s->evals = 0;
  s->np_now = 0;
  s->best_f = (double)INFINITY;
  s->t0 = t0;
  s->deadline = s->o.time_limit > 0.0 ? s->t0 + s->o.time_limit : 0.0;
  s->np_user = s->o.np;
  if (s->o.var.lpsr && devo__variant_shade(&s->o.var) && !s->o.np_set) {
    /* L-SHADE's NP_init = 18 D (Tanabe and Fukunaga 2014), restored below */
    int64_t n = (int64_t)DEVO__LSHADE_NP_PER_DIM * s->prob->view.dim;
    s->o.np = n > DEVO__MAX_NP ? DEVO__MAX_NP : (int)n;
  }
  st = validate(s);
  if (st == DEVO_OK)
    st = devo__variant_backend_check(s, s->o.backend == DEVO_BACKEND_GPU &&
                                                (s->o.gpu_design & 0xff) != DEVO_GPU_NAIVE
                                            ? &devo__gpu_backend
                                            : &devo__cpu_backend);
  if (st != DEVO_OK)
    return refuse_run(s, st);
  dim = s->prob->view.dim;
  s->best_x = (double *)devo__alloc(&s->al, (size_t)dim, sizeof(double));
  if (!s->best_x)
    return refuse_run(s, devo__set_err(s, DEVO_E_NOMEM, "out of memory for the best vector"));
  s->running = 1;
  s->stats.backend = pick_backend(s);
  s->gen_estimate = 0.0;
  st = s->bk->start(s);
  s->stats.init_seconds = devo__now() - s->t0;
  if (st == DEVO_OK) {
    s->have_best = 1;
    s->run_var = s->o.var;
  }
  return st;
}

int devo__solve_end(devo_solver *s, int st)
{
  const int used = s->stats.backend;
  /* the best vector only after a normal end: after an error its copy would fail too and
   * replace the first message; a failed copy gives its own status (found in review) */
  if (s->have_best && st > 0) {
    const int bs = s->bk->best_x(s, s->best_x);
    if (bs != DEVO_OK)
      st = bs;
  }
  if (st < 0) {
    if (s->err[0] == 0)
      devo__set_err(s, st, "%s", devo_status_message(st));
    release_run(s);
  } else {
    s->stats.best_from_seed = best_is_seed(s);
  }
  s->running = 0;
  s->o.np = s->np_user;
  atomic_store(&s->interrupt, 0);
  s->stats.generations = s->gens;
  s->stats.evaluations = s->evals;
  s->stats.elapsed = devo__now() - s->t0;
  s->stats.status = st;
  s->stats.backend = used;
  return st;
}

int devo_solve(devo_solver *s)
{
  int st;
  if (!s)
    return DEVO_E_INVALID;
  if (s->running)
    return devo__set_err(s, DEVO_E_STATE, "devo_solve is already running on this solver");
  /* the time limit counts from the call (devo.h), so from before the last run's release: counted
   * after it, 0.1 s GPU solves on an H100 ended 0.8 ms late (median) and up to 5.6 ms (that
   * release frees the device state); counted here 0.03-0.04 ms, at most 0.13 ms (BENCHMARKS.md) */
  st = devo__solve_begin(s, devo__now());
  if (!s->running)
    return st; /* refused before the run: nothing to end */
  if (st == DEVO_OK)
    st = devo__solve_loop(s);
  return devo__solve_end(s, st);
}

int devo_solver_best(const devo_solver *s, double *value, double *x)
{
  if (!s || !s->have_best)
    return DEVO_E_STATE;
  if (value)
    *value = s->best_f;
  if (x)
    memcpy(x, s->best_x, (size_t)s->prob->view.dim * sizeof(double));
  return DEVO_OK;
}

int devo_solver_stats(const devo_solver *s, devo_stats *out)
{
  if (!s || !out)
    return DEVO_E_INVALID;
  *out = s->stats;
  return DEVO_OK;
}

int devo_solver_population(devo_solver *s, double *pop, double *fit)
{
  if (!s || !s->have_best || !s->bk)
    return DEVO_E_STATE;
  return s->bk->population(s, pop, fit);
}
