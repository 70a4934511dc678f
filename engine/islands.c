/* SPDX-License-Identifier: MIT */
/* islands.c: the island model (Izzo, Rucinski and Biscani 2010, "The generalized island model";
 * pagmo's vocabulary): K populations of the same DE, each a solver of its own on the CPU
 * backend with a seed derived from its island index, advanced in parallel on a thread pool
 * between migrations. A migration sends each island's best individual (selection policy
 * "select_best", one migrant) along a topology (ring or fully connected) to replace the worst
 * individual of the receiving island where the migrant is better (replacement policy
 * "fair_replace"). Everything an island draws depends on (seed, island index, generation), never
 * on threads or on which process holds the island, so that an MPI program that spreads the
 * islands over ranks (devo_islands_create with first/count, the exchange through its own
 * communicator) gets the results of the local run bit for bit.
 * Two users: the devo_islands handle of devo.h (stepping, migrants in and out), and the islands
 * backend behind devo_solve for a solver with islands > 1 (the solve loop's stopping rules, its
 * progress callback and its interrupt then apply to the whole model).
 * On the GPU backend the islands are GPU solvers on the calling thread's device, advanced between
 * migrations by devo__gpu_batch_step (one launch of the batch kernel for all of them where it
 * takes them, one after another otherwise), exchanging migrants on the device (devo__gpu_migrate
 * for a local exchange, devo__gpu_put for the caller's); each island
 * computes what its CPU twin computes, so the islands' results do not depend on the backend
 * where the solves' do not (the fused design on the classic functions). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct devo_islands {
  devo_allocator al;
  char err[DEVO__ERRLEN];
  const devo_problem *prob;
  int total, first, count; /* these are islands first .. first + count - 1 of total */
  int topology;
  int threads;
  int gpu;               /* the islands are GPU solvers (stepped by devo__gpu_batch_step) */
  void *gstep;           /* devo__gpu_batch_step's buffers, kept between stretches */
  devo_solver **isl;     /* count solvers, owned */
  int *st;               /* each island's status in the current job (DEVO_OK or an error) */
  int64_t *g0;           /* each island's generations before the current job */
  double *mig_f, *mig_x; /* the migrants of a local exchange: count values, count * dim */
  int *mig_src;          /* GPU: each island's source in a local exchange */
  int64_t gens;          /* generations of the islands (the largest count, after a stop) */
  int64_t piece;         /* generations of the current job */
  double t0;
  int started;
  atomic_int stop; /* devo_islands_interrupt */
  devo__pool *pool;
};

uint64_t devo_island_seed(uint64_t seed, int island)
{
  /* the golden-ratio increment of splitmix64: island 0 keeps the seed, so one island is the
   * plain solve, and the islands of nearby seeds never share a stream in practice */
  return seed + (uint64_t)island * 0x9E3779B97F4A7C15ull;
}

int devo_migration_source(int topology, int islands, int island, const double *best)
{
  int k, src = -1;
  if (islands < 2 || island < 0 || island >= islands)
    return -1;
  if (topology == DEVO_TOPOLOGY_RING)
    return island == 0 ? islands - 1 : island - 1;
  if (topology != DEVO_TOPOLOGY_FULL || !best)
    return -1;
  for (k = 0; k < islands; ++k) /* the best of the others, the lowest index on ties */
    if (k != island && (src < 0 || best[k] < best[src]))
      src = k;
  return src;
}

/* the handle's message (devo__errf), returning the status */
#define isl_err(isl, ...) devo__errf((isl)->err, sizeof(isl)->err, __VA_ARGS__)

const char *devo_islands_errmsg(const devo_islands *isl)
{
  return isl ? isl->err : "no islands handle";
}

void devo_islands_destroy(devo_islands *isl)
{
  devo_allocator a;
  int k;
  if (!isl)
    return;
  a = isl->al;
  devo__pool_destroy(isl->pool);
  devo__gpu_step_free(isl->gstep);
  for (k = 0; isl->isl && k < isl->count; ++k)
    devo_solver_destroy(isl->isl[k]);
  devo__free(&a, isl->isl);
  devo__free(&a, isl->st);
  devo__free(&a, isl->g0);
  devo__free(&a, isl->mig_f);
  devo__free(&a, isl->mig_x);
  devo__free(&a, isl->mig_src);
  devo__free(&a, isl);
}

/* Island k's options: the template's, with its own seed, one thread, no progress callback (the
 * islands report as one), its share of the evaluation limit (the limit is the total over all
 * islands; L-SHADE's schedule reads it) and the CPU backend for AUTO (the GPU only when asked). */
static void island_options(devo_solver *s, const devo_solver *tmpl, int island)
{
  s->o = tmpl->o;
  s->o.islands = 1;
  s->o.seed = devo_island_seed(tmpl->o.seed, island);
  s->o.threads = 1;
  s->o.progress = NULL;
  s->o.progress_ud = NULL;
  s->o.max_evals = tmpl->o.max_evals / tmpl->o.islands;
  if (s->o.backend == DEVO_BACKEND_AUTO)
    s->o.backend = DEVO_BACKEND_CPU;
}

/* Checks the template and the range of islands; the message goes to err. */
static int check_template(const devo_solver *tmpl, int first, int count, char *err, size_t len)
{
  const devo__opts *o = &tmpl->o;
  if (o->backend == DEVO_BACKEND_GPU && (o->gpu_design & 0xff) != DEVO_GPU_NAIVE &&
      devo__variant_shade(&o->var)) {
    snprintf(err, len,
             "JADE, SHADE and L-SHADE islands run on the CPU backend (the GPU's SHADE kernels "
             "cannot take migrants)");
    return DEVO_E_INVALID;
  }
  if (first < 0 || count < 1 || first > o->islands - count) {
    snprintf(err, len, "islands %d .. %d are not islands of the template's %d", first,
             first + count - 1, o->islands);
    return DEVO_E_INVALID;
  }
  return DEVO_OK;
}

static int islands_make(devo_islands **out, const devo_solver *tmpl, int first, int count,
                        const devo_allocator *alloc, const devo_solver *parent, char *err,
                        size_t errlen)
{
  const devo_allocator a = devo__allocator_or_default(alloc);
  const int dim = tmpl->prob->view.dim;
  devo_islands *isl;
  int k, st = check_template(tmpl, first, count, err, errlen);
  if (st != DEVO_OK)
    return st;
  isl = (devo_islands *)devo__calloc(&a, 1, sizeof *isl);
  if (!isl)
    return DEVO_E_NOMEM;
  isl->al = a;
  isl->prob = tmpl->prob;
  isl->total = tmpl->o.islands;
  isl->first = first;
  isl->count = count;
  isl->topology = tmpl->o.topology;
  isl->gpu = tmpl->o.backend == DEVO_BACKEND_GPU && (tmpl->o.gpu_design & 0xff) != DEVO_GPU_NAIVE;
  /* GPU islands start and run on the calling thread (its device; one batch launch) */
  isl->threads = isl->gpu ? 1 : tmpl->o.threads < count ? tmpl->o.threads : count;
  atomic_init(&isl->stop, 0);
  isl->isl = (devo_solver **)devo__calloc(&a, (size_t)count, sizeof *isl->isl);
  isl->st = (int *)devo__calloc(&a, (size_t)count, sizeof *isl->st);
  isl->g0 = (int64_t *)devo__calloc(&a, (size_t)count, sizeof *isl->g0);
  isl->mig_f = (double *)devo__alloc(&a, (size_t)count, sizeof(double));
  isl->mig_x = (double *)devo__alloc(&a, (size_t)count * (size_t)dim, sizeof(double));
  isl->mig_src = (int *)devo__alloc(&a, (size_t)count, sizeof *isl->mig_src);
  if (!isl->isl || !isl->st || !isl->g0 || !isl->mig_f || !isl->mig_x || !isl->mig_src) {
    devo_islands_destroy(isl);
    return DEVO_E_NOMEM;
  }
  for (k = 0; k < count; ++k) {
    if (devo_solver_create(&isl->isl[k], tmpl->prob, &a) != DEVO_OK) {
      devo_islands_destroy(isl);
      return DEVO_E_NOMEM;
    }
    island_options(isl->isl[k], tmpl, first + k);
    isl->isl[k]->group_stop = &isl->stop;
    isl->isl[k]->parent = parent;
  }
  *out = isl;
  return DEVO_OK;
}

int devo_islands_create(devo_islands **out, const devo_solver *tmpl, int first, int count,
                        const devo_allocator *alloc, char *err, size_t errlen)
{
  char msg[DEVO__ERRLEN] = "";
  int st = DEVO_E_INVALID;
  if (out)
    *out = NULL;
  if (!out || !tmpl)
    snprintf(msg, sizeof msg, "no %s", out ? "template solver" : "place for the handle");
  else if (tmpl->running)
    snprintf(msg, sizeof msg, "the template solver is running");
  else if ((st = islands_make(out, tmpl, first, count, alloc, NULL, msg, sizeof msg)) ==
           DEVO_E_NOMEM)
    snprintf(msg, sizeof msg, "out of memory for %d islands", count);
  if (err && errlen)
    snprintf(err, errlen, "%s", msg);
  return st;
}

/* ---- running ---------------------------------------------------------------------------- */

static void start_one(void *ud, int k)
{
  devo_islands *isl = (devo_islands *)ud;
  isl->st[k] = devo__solve_begin(isl->isl[k], isl->t0);
}

static void run_one(void *ud, int k)
{
  devo_islands *isl = (devo_islands *)ud;
  devo_solver *s = isl->isl[k];
  isl->g0[k] = s->gens;
  isl->st[k] = s->bk->run(s, isl->piece);
}

/* The first island's error of the current job (with its message), or DEVO_OK. */
static int job_error(devo_islands *isl)
{
  int k;
  for (k = 0; k < isl->count; ++k)
    if (isl->st[k] < 0)
      return isl_err(isl, isl->st[k], "island %d: %s", isl->first + k,
                     devo_solver_errmsg(isl->isl[k]));
  return DEVO_OK;
}

static int islands_start(devo_islands *isl, double t0)
{
  int k, st;
  if (isl->started)
    return isl_err(isl, DEVO_E_STATE, "the islands are already running");
  isl->err[0] = 0;
  if (!isl->pool && devo__pool_create(&isl->pool, &isl->al, isl->threads) != DEVO_OK)
    return isl_err(isl, DEVO_E_NOMEM, "cannot start %d threads for the islands", isl->threads);
  isl->t0 = t0;
  isl->gens = 0;
  devo__pool_run(isl->pool, isl->count, start_one, isl);
  st = job_error(isl);
  if (st != DEVO_OK) {
    for (k = 0; k < isl->count; ++k) /* the others' runs end too */
      if (isl->isl[k]->running)
        devo__solve_end(isl->isl[k], isl->st[k] < 0 ? isl->st[k] : DEVO_INTERRUPTED);
    return st;
  }
  isl->started = 1;
  return DEVO_OK;
}

int devo_islands_start(devo_islands *isl)
{
  if (!isl)
    return DEVO_E_INVALID;
  return islands_start(isl, devo__now());
}

int devo_islands_step(devo_islands *isl, int64_t ngens)
{
  int k, st, short_run = 0, target = 0;
  if (!isl)
    return DEVO_E_INVALID;
  if (!isl->started)
    return isl_err(isl, DEVO_E_STATE, "the islands are not running (devo_islands_start)");
  if (ngens < 1 || ngens > (int64_t)UINT32_MAX - 1 - isl->gens)
    return isl_err(isl, DEVO_E_INVALID, "%lld generations: out of range", (long long)ngens);
  isl->piece = ngens;
  if (isl->gpu) {
    for (k = 0; k < isl->count; ++k)
      isl->g0[k] = isl->isl[k]->gens;
    devo__gpu_batch_step(&isl->gstep, isl->isl, isl->count, ngens, isl->st);
  } else {
    devo__pool_run(isl->pool, isl->count, run_one, isl);
  }
  if ((st = job_error(isl)) != DEVO_OK)
    return st;
  for (k = 0; k < isl->count; ++k) {
    const devo_solver *s = isl->isl[k];
    short_run |= s->gens < isl->g0[k] + ngens; /* the target, the deadline or an interrupt */
    target |= !isnan(s->o.target) && s->best_f <= s->o.target;
    if (s->gens > isl->gens)
      isl->gens = s->gens;
  }
  if (target)
    return DEVO_TARGET_REACHED;
  if (short_run)
    return devo__interrupted(isl->isl[0]) ? DEVO_INTERRUPTED : DEVO_TIME_LIMIT;
  return DEVO_OK;
}

int devo_islands_migrant(devo_islands *isl, int k, double *f, double *x)
{
  devo_solver *s;
  if (!isl || k < 0 || k >= isl->count)
    return DEVO_E_INVALID;
  if (!isl->started)
    return isl_err(isl, DEVO_E_STATE, "the islands are not running (devo_islands_start)");
  s = isl->isl[k];
  if (f)
    *f = s->best_f;
  return x ? s->bk->best_x(s, x) : DEVO_OK;
}

int devo_islands_put(devo_islands *isl, int k, double f, const double *x, int *replaced)
{
  devo_solver *s;
  int rep = 0, st;
  if (replaced)
    *replaced = 0;
  if (!isl || k < 0 || k >= isl->count || !x || isnan(f))
    return DEVO_E_INVALID;
  if (!isl->started)
    return isl_err(isl, DEVO_E_STATE, "the islands are not running (devo_islands_start)");
  s = isl->isl[k];
  st = s->bk == &devo__gpu_backend ? devo__gpu_put(s, x, f, &rep) : devo__cpu_put(s, x, f, &rep);
  if (st != DEVO_OK)
    return isl_err(isl, st, "island %d: %s", isl->first + k, devo_solver_errmsg(isl->isl[k]));
  if (replaced)
    *replaced = rep;
  return DEVO_OK;
}

int devo_islands_migrate(devo_islands *isl)
{
  const int dim = isl ? isl->prob->view.dim : 0;
  int k, st;
  if (!isl)
    return DEVO_E_INVALID;
  if (isl->count != isl->total)
    return isl_err(isl, DEVO_E_STATE,
                   "this handle holds islands %d .. %d of %d: the exchange is the caller's",
                   isl->first, isl->first + isl->count - 1, isl->total);
  if (isl->total < 2)
    return DEVO_OK;
  if (isl->gpu) { /* the same rule on the device, all islands at once */
    for (k = 0; k < isl->count; ++k)
      isl->mig_f[k] = isl->isl[k]->best_f;
    for (k = 0; k < isl->count; ++k)
      isl->mig_src[k] = devo_migration_source(isl->topology, isl->total, k, isl->mig_f);
    st = devo__gpu_migrate(&isl->gstep, isl->isl, isl->count, isl->mig_src);
    return st == DEVO_OK ? st
                         : isl_err(isl, st, "the migration: %s", devo_solver_errmsg(isl->isl[0]));
  }
  /* every migrant is taken before any is put: the MPI exchange (all bests gathered, then put)
   * gives the same populations */
  for (k = 0; k < isl->count; ++k)
    if ((st = devo_islands_migrant(isl, k, &isl->mig_f[k], isl->mig_x + (size_t)k * dim)) != 0)
      return st;
  for (k = 0; k < isl->count; ++k) {
    const int src = devo_migration_source(isl->topology, isl->total, k, isl->mig_f);
    if ((st = devo_islands_put(isl, k, isl->mig_f[src], isl->mig_x + (size_t)src * dim, NULL)) !=
        DEVO_OK)
      return st;
  }
  return DEVO_OK;
}

/* An island's population size now (L-SHADE shrinks it; 0 before its first generation: NP). */
static int island_np(const devo_solver *t)
{
  return t->np_now > 0 ? t->np_now : t->o.np;
}

int64_t devo_islands_np(const devo_islands *isl)
{
  int64_t n = 0;
  int k;
  if (!isl || !isl->started)
    return 0;
  for (k = 0; k < isl->count; ++k)
    n += island_np(isl->isl[k]);
  return n;
}

int devo_islands_progress(const devo_islands *isl, devo_progress *out)
{
  int k;
  if (!isl || !out)
    return DEVO_E_INVALID;
  if (!isl->started)
    return DEVO_E_STATE;
  out->generation = isl->gens;
  out->evaluations = 0;
  out->best = (double)INFINITY;
  for (k = 0; k < isl->count; ++k) {
    out->evaluations += isl->isl[k]->evals;
    if (isl->isl[k]->best_f < out->best)
      out->best = isl->isl[k]->best_f;
  }
  out->elapsed = devo__now() - isl->t0;
  return DEVO_OK;
}

int devo_islands_finish(devo_islands *isl, int status)
{
  int k, st, first_err = DEVO_OK;
  if (!isl)
    return DEVO_E_INVALID;
  if (!isl->started)
    return isl_err(isl, DEVO_E_STATE, "the islands are not running (devo_islands_start)");
  if (status <= 0)
    return isl_err(isl, DEVO_E_INVALID, "status %d is not the positive reason of an end", status);
  for (k = 0; k < isl->count; ++k)
    if ((st = devo__solve_end(isl->isl[k], status)) < 0 && first_err == DEVO_OK)
      first_err =
          isl_err(isl, st, "island %d: %s", isl->first + k, devo_solver_errmsg(isl->isl[k]));
  isl->started = 0;
  atomic_store(&isl->stop, 0);
  return first_err;
}

void devo_islands_interrupt(devo_islands *isl)
{
  if (isl)
    atomic_store(&isl->stop, 1);
}

devo_solver *devo_islands_solver(devo_islands *isl, int k)
{
  return isl && k >= 0 && k < isl->count ? isl->isl[k] : NULL;
}

/* ---- the islands backend of devo_solve -------------------------------------------------- */

/* The island that holds the best (the lowest index on ties). */
static devo_solver *best_island(const devo_islands *isl)
{
  int k, b = 0;
  for (k = 1; k < isl->count; ++k)
    if (isl->isl[k]->best_f < isl->isl[b]->best_f)
      b = k;
  return isl->isl[b];
}

/* The solver's counts from its islands: generations (the islands' count), evaluations (all
 * islands together, as the evaluation limit counts them), best, population size (the sum). */
static void gather(devo_solver *s, const devo_islands *isl)
{
  int k;
  s->gens = isl->gens;
  s->evals = 0;
  s->np_now = 0;
  for (k = 0; k < isl->count; ++k) {
    const devo_solver *t = isl->isl[k];
    s->evals += t->evals;
    s->np_now += island_np(t);
  }
  s->best_f = best_island(isl)->best_f;
}

/* The solver's backend description from island 0's (which says, after the first stretch on
 * the GPU, whether a batch kernel advances the islands). */
static void ib_describe(devo_solver *s, const devo_islands *isl)
{
  snprintf(s->info, sizeof s->info,
           "islands: %d x (%s), %s migration every %lld generations, %d "
           "thread%s",
           s->o.islands, devo_solver_backend_info(isl->isl[0]),
           s->o.topology == DEVO_TOPOLOGY_RING ? "ring" : "fully connected",
           (long long)s->o.mig_interval, isl->threads, isl->threads > 1 ? "s" : "");
}

static int ib_start(devo_solver *s)
{
  devo_islands *isl = NULL;
  char err[DEVO__ERRLEN];
  const double t = devo__now();
  int st = islands_make(&isl, s, 0, s->o.islands, &s->al, s, err, sizeof err);
  if (st != DEVO_OK)
    return st == DEVO_E_NOMEM ? devo__set_err(s, st, "out of memory for %d islands", s->o.islands)
                              : devo__set_err(s, st, "%s", err);
  s->bk_state = isl;
  st = islands_start(isl, s->t0);
  if (st != DEVO_OK) {
    devo__set_err(s, st, "%s", isl->err);
    devo_islands_destroy(isl);
    s->bk_state = NULL;
    return st;
  }
  gather(s, isl);
  s->gen_estimate = devo__now() - t; /* the initial populations, in parallel: one generation */
  ib_describe(s, isl);
  return DEVO_OK;
}

/* Up to the next migration, within the generation and evaluation limits: the stretches, and so
 * the results, do not depend on the loop's timed chunks (ngens), only on the rules. A migration
 * due after the last generation is made first: after generation g with g % interval == 0, unless
 * the run ends at g. */
static int ib_run(devo_solver *s, int64_t ngens)
{
  devo_islands *isl = (devo_islands *)s->bk_state;
  const devo__opts *o = &s->o;
  int64_t m = o->mig_interval - isl->gens % o->mig_interval;
  int st;
  (void)ngens;
  if (isl->gens > 0 && isl->gens % o->mig_interval == 0 &&
      (st = devo_islands_migrate(isl)) != DEVO_OK)
    return devo__set_err(s, st, "%s", isl->err);
  if (o->max_gens > 0 && m > o->max_gens - s->gens)
    m = o->max_gens - s->gens;
  if (o->max_evals > 0 && m > (o->max_evals - s->evals) / s->np_now)
    m = (o->max_evals - s->evals) / s->np_now;
  st = devo_islands_step(isl, m < 1 ? 1 : m);
  gather(s, isl);
  if (isl->gpu && s->gens <= m)
    ib_describe(s, isl); /* the first stretch said whether the islands batch */
  return st < 0 ? devo__set_err(s, st, "%s", isl->err) : DEVO_OK;
}

static int ib_best_x(devo_solver *s, double *x)
{
  devo_solver *b = best_island((devo_islands *)s->bk_state);
  return b->bk->best_x(b, x);
}

static int ib_population(devo_solver *s, double *pop, double *fit)
{
  devo_solver *b = best_island((devo_islands *)s->bk_state);
  return b->bk->population(b, pop, fit);
}

static void ib_stop(devo_solver *s)
{
  devo_islands_destroy((devo_islands *)s->bk_state);
  s->bk_state = NULL;
}

static int ib_adapt_state(devo_solver *s, double *F, double *CR)
{
  devo_solver *b = best_island((devo_islands *)s->bk_state);
  const int st = devo_solver_jde_state(b, F, CR);
  return st == DEVO_OK ? st : devo__set_err(s, st, "%s", devo_solver_errmsg(b));
}

static int ib_shade_state(devo_solver *s, devo_shade_state *out, double *archive, double *m_cr,
                          double *m_f, double *F, double *CR)
{
  devo_solver *b = best_island((devo_islands *)s->bk_state);
  const int st = devo_solver_shade_state(b, out, archive, m_cr, m_f, F, CR);
  return st == DEVO_OK ? st : devo__set_err(s, st, "%s", devo_solver_errmsg(b));
}

const devo_backend devo__islands_backend = {
    "islands", ib_start, ib_run, ib_best_x, ib_population, ib_stop, ib_adapt_state, ib_shade_state};
