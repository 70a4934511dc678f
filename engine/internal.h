/* SPDX-License-Identifier: MIT */
/* internal.h: the engine's private structures and the backend interface that the CPU backend
 * (engine/cpu_backend.c) and the CUDA backend (kernels/) implement. Not installed. */
#ifndef DEVO_INTERNAL_H
#define DEVO_INTERNAL_H

#include <stdint.h>
#include <string.h>
#ifdef __cplusplus
/* The CUDA backend includes this header from C++, where C11's stdatomic.h is not available
 * before C++23; std::atomic<int> has the layout of C's atomic_int (checked in
 * kernels/gpu_common.cuh). */
#include <atomic>
using std::atomic_int;
#else
#include <stdatomic.h>
#endif

#include "../problems/de_shade.h"
#include "../problems/devo_alloc.h"
#include "../problems/problem_view.h"
#include "include/devo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DEVO__ERRLEN 512
/* the solver's description of its run (devo_solver_info): a variant run on the GPU names the
 * design and the variant kernel, longer than a message */
#define DEVO__INFOLEN 1024
#define DEVO__MAX_DIM 10000000
#define DEVO__MAX_NP  10000000

/* The DE options' ranges (devo.h), for the solver's setters and for devo_schedule_run, which
 * checks them up front whether its DE step runs or not. Each is false for NaN. */
static inline int devo__np_ok(int np)
{
  return np >= 4 && np <= DEVO__MAX_NP;
}
static inline int devo__f_ok(double f)
{
  return f > 0.0 && f <= 2.0;
}
static inline int devo__cr_ok(double cr)
{
  return cr >= 0.0 && cr <= 1.0;
}
static inline int devo__threads_ok(int threads)
{
  return threads >= 1 && threads <= 1024;
}

struct devo_problem {
  devo_allocator al;
  char err[DEVO__ERRLEN];
  char name[64];
  devo__pview view;   /* host pointers into the arrays below */
  double fstar;       /* NAN when unknown */
  uint64_t data_seed; /* of a built-in problem (devo_problem_set_ranges redraws from it) */
  /* owned data (NULL when unused) */
  double *shift;
  double *rot;
  int *shuffle;
  double *etc;
  double *ready;
  /* initial vectors that replace the first individuals (e.g. heuristic schedules) */
  int nseeds;
  double *seeds; /* nseeds * dim */
  /* user objective */
  devo_objective_fn user_fn;
  void *user_ud;
  int user_batch; /* vectors per call at most (devo_problem_set_user_batch); 0: devo's choice */
  /* per-coordinate search box (devo_problem_set_bounds): dim lower bounds then dim upper bounds
   * in one block; NULL while the box is the same for every coordinate, [view.lower,
   * view.upper]^dim (view.lower and view.upper then hold the smallest lower and the largest
   * upper bound) */
  double *box;
};

/* The search box of a run, coordinate by coordinate, as the CPU backend reads it: the problem's
 * per-coordinate bounds, or its one [lower, upper] for every coordinate (the GPU kernels read
 * only the latter, so devo_solve keeps per-coordinate bounds off the GPU). */
typedef struct devo__box {
  const double *lo, *hi; /* dim values each, or NULL: every coordinate has lo1, hi1 */
  double lo1, hi1;
} devo__box;
static inline devo__box devo__problem_box(const struct devo_problem *p)
{
  devo__box b;
  b.lo = p->box;
  b.hi = p->box ? p->box + p->view.dim : NULL;
  b.lo1 = p->view.lower;
  b.hi1 = p->view.upper;
  return b;
}
static inline double devo__box_lo(const devo__box *b, uint32_t j)
{
  return b->lo ? b->lo[j] : b->lo1;
}
static inline double devo__box_hi(const devo__box *b, uint32_t j)
{
  return b->hi ? b->hi[j] : b->hi1;
}

struct devo_etc {
  devo_allocator al;
  int ntasks, nmach;
  double *values; /* ntasks * nmach, task-major */
  double *ready;  /* nmach */
  /* names (problems/etc_names.c), NULL when none: each a packed block of NUL-terminated
   * strings and the offset of every name in it */
  char *task_names, *mach_names;
  size_t *task_off, *mach_off;
};

/* The evaluation view of a matrix (problems/etc.h) under a task order and lambda. */
static inline devo__pview devo__etc_view(const struct devo_etc *e, int order, double lambda)
{
  devo__pview v;
  memset(&v, 0, sizeof v);
  v.kind = DEVO__P_ETC;
  v.dim = e->ntasks;
  v.upper = e->nmach;
  v.etc = e->values;
  v.ready = e->ready;
  v.ntasks = e->ntasks;
  v.nmach = e->nmach;
  v.lambda = lambda;
  v.order = order;
  return v;
}

/* Whether every task of assign names a machine of e. */
static inline int devo__etc_assign_ok(const struct devo_etc *e, const int *assign)
{
  int t;
  for (t = 0; t < e->ntasks; ++t)
    if (assign[t] < 0 || assign[t] >= e->nmach)
      return 0;
  return 1;
}

/* What a solve needs to know; filled from the setters. */
typedef struct devo__opts {
  int np;
  double f, cr;
  uint64_t seed;
  int bounds;
  int threads;
  int backend; /* requested: DEVO_BACKEND_* */
  int gpu_design;
  int64_t max_evals, max_gens;
  double target;     /* NAN = off */
  double time_limit; /* 0 = off */
  devo_progress_fn progress;
  void *progress_ud;
  devo__variant var; /* strategy, crossover, jDE, GOBL (de_variant.h); default rand1bin */
  int np_set;        /* devo_solver_set_np was called (else L-SHADE starts from 18 D) */
  /* islands (devo_solver_set_islands; engine/islands.c): 1 = one population */
  int islands;
  int64_t mig_interval;
  int topology;
} devo__opts;

struct devo_backend;

struct devo_solver {
  devo_allocator al;
  const devo_problem *prob;
  char err[DEVO__ERRLEN];
  char info[DEVO__INFOLEN];
  devo__opts o;
  atomic_int interrupt;
  const volatile sig_atomic_t *ext_interrupt; /* devo__solver_watch; NULL = none */
  int running;
  /* run state, valid after a backend's start() succeeded */
  const struct devo_backend *bk;
  void *bk_state;
  int naive_gpu; /* this run is the naive GPU model (DEVO_GPU_NAIVE): the CPU backend evaluates
                    on the GPU through a devo__gpu_evaluator */
  int have_best;
  double best_f;
  double *best_x; /* dim doubles, owned */
  int64_t gens, evals;
  int np_now;      /* the population size now, when a backend shrinks it (L-SHADE); 0 = o.np */
  double t0;       /* monotonic seconds at the start of devo_solve */
  double deadline; /* absolute monotonic seconds; 0 = none */
  /* seconds a generation should take, for the deadline before one was measured (0 = unknown);
   * a backend's start() may set it */
  double gen_estimate;
  devo_stats stats;
  /* the variant of the run that have_best describes (its state hooks answer for it, whatever the
   * options became after it) */
  devo__variant run_var;
  /* devo_solve's state between its parts (devo__solve_begin, the loop, devo__solve_end) */
  int np_user;
  /* further stop flags, checked with interrupt (devo__interrupted): the batch that runs the
   * solver (engine/batch.c) and the islands handle or the solver whose island it is
   * (engine/islands.c); NULL = none. Set only while the solver is not running. */
  const atomic_int *group_stop;
  const struct devo_solver *parent;
};

/* The backend interface. Each function returns a devo status (DEVO_OK or a negative error) and
 * on error writes the solver's message (devo__set_err).
 * start:  allocate everything for a run of s->o on s->prob, make the initial population
 *         (devo__de_init, then the problem's seeds over the first individuals), evaluate it, set
 *         s->best_f (and the best vector on request), s->evals = NP, s->gens = 0; may set
 *         s->gen_estimate.
 * run:    advance up to ngens generations. Stops early, at a generation boundary, when the best
 *         reaches s->o.target (when set). A backend may also stop early when
 *         devo__should_abort(s) says so (deadline or interrupt); a partial generation is then
 *         dropped. Adds the completed generations to s->gens and s->evals and updates s->best_f.
 * best_x: copy the best vector to x (dim doubles).
 * population: copy population and fitness (either may be NULL).
 * stop:   free everything start allocated (safe after a failed start).
 * adapt_state: copy jDE's F_i and CR_i of the current population (NP each; either may be NULL);
 *         DEVO_E_INVALID when the run has no jDE. NULL in a backend without jDE support.
 * shade_state: devo_solver_shade_state's copy (devo.h) for a JADE/SHADE run; NULL in a backend
 *         that cannot run them (devo_solve then refuses them on it). */
typedef struct devo_backend {
  const char *name;
  int (*start)(devo_solver *s);
  int (*run)(devo_solver *s, int64_t ngens);
  int (*best_x)(devo_solver *s, double *x);
  int (*population)(devo_solver *s, double *pop, double *fit);
  void (*stop)(devo_solver *s);
  int (*adapt_state)(devo_solver *s, double *F, double *CR);
  int (*shade_state)(devo_solver *s, devo_shade_state *st, double *archive, double *m_cr,
                     double *m_f, double *F, double *CR);
} devo_backend;

extern const devo_backend devo__cpu_backend;
/* Defined in kernels/ when built with CUDA, else in engine/gpu_none.c. */
extern const devo_backend devo__gpu_backend;
int devo__gpu_probe(char *msg, size_t msglen);
/* CUDA devices visible (0 without CUDA); make device d the calling thread's (1: done). */
int devo__gpu_count(void);
int devo__gpu_set_device(int d);
int devo__gpu_get_device(void); /* the calling thread's CUDA device, or -1 */
/* The GPU group runner of engine/batch.c (kernels/gpu_backend.cu; without CUDA engine/gpu_none.c,
 * which runs each trial through devo_solve): runs trials tr[0 .. n - 1], begun in order as room
 * comes, those that a batch kernel takes advanced together (one launch per chunk), the others
 * alone; done(ud, k, status) as each trial ends, its devo__solve_end done, or with DEVO_OK for a
 * trial not begun because devo__interrupted said so when its turn came. Returns DEVO_OK. */
typedef void (*devo__trial_done_fn)(void *ud, int k, int status);
int devo__gpu_batch_run(devo_solver *const *tr, int n, devo__trial_done_fn done, void *ud);
/* The GPU islands' stretch (engine/islands.c): advances the started GPU solvers s[0 .. n - 1] by
 * ngens generations each (fewer where one reaches its target), each computing what its own
 * bk->run(s[k], ngens) computes; those that a batch kernel takes in one launch per group of as
 * many as the device keeps resident, the others one after another. st[k] gets s[k]'s status
 * (DEVO_OK or an error with s[k]'s message). *state keeps the batch's device buffers between
 * calls (NULL at first; freed by devo__gpu_step_free). Returns DEVO_OK. */
int devo__gpu_batch_step(void **state, devo_solver *const *s, int n, int64_t ngens, int *st);
void devo__gpu_step_free(void *state);
/* The GPU islands' migration, devo_islands_migrate's rule for all n islands at once on the device
 * (two launches and one wait, instead of a round trip per island): island k takes island src[k]'s
 * best, every migrant read before any is put; then every island's best follows. state: as
 * devo__gpu_batch_step's. DEVO_OK, or an error with its message in isl[0]. */
int devo__gpu_migrate(void **state, devo_solver *const *isl, int n, const int *src);
/* A migrant into a started GPU run, as devo__cpu_put into a CPU run: x (dim values) with value
 * f replaces the worst vector of the current population (the lowest index among equals) where
 * f is lower, and the run's best follows. DEVO_OK (*replaced 0 or 1), DEVO_E_STATE (not a GPU
 * run, or a JADE/SHADE run), DEVO_E_CUDA. */
int devo__gpu_put(devo_solver *s, const double *x, double f, int *replaced);
/* f of n points x (n * dim doubles, row-major) of a built-in problem, evaluated on the GPU by
 * the backend's evaluation kernel (kernels/gpu_problem.cu). DEVO_OK, DEVO_E_NODEVICE,
 * DEVO_E_INVALID, DEVO_E_NOMEM or DEVO_E_CUDA with a message in err. */
int devo__gpu_eval_points(const devo_problem *p, const double *x, int n, double *f, char *err,
                          size_t errlen);
/* A persistent GPU evaluator of a built-in problem (the naive GPU model, DEVO_GPU_NAIVE, and
 * devo__gpu_eval_points): create uploads the problem's data and allocates device buffers and
 * pinned host buffers h_ for up to nmax points (kernels/gpu_problem.cu); eval copies n <= nmax
 * points x (n * dim doubles, row-major) to the device, runs the multikernel design's evaluation
 * kernel (one vector per block) and copies f (n doubles, NaN as +inf) back, allocating nothing;
 * destroy frees everything (NULL is a no-op). Host memory through al (NULL: malloc). One evaluator
 * is used by one thread at a time. Statuses: DEVO_OK, DEVO_E_NODEVICE (no device, or a build
 * without CUDA: engine/gpu_none.c), DEVO_E_INVALID (a user objective, a kind without a GPU kernel,
 * n out of range), DEVO_E_NOMEM, DEVO_E_CUDA, with a message in err. */
typedef struct devo__gpu_evaluator devo__gpu_evaluator;
int devo__gpu_evaluator_create(const devo_problem *p, int nmax, const devo_allocator *al,
                               devo__gpu_evaluator **out, char *err, size_t errlen);
int devo__gpu_evaluator_eval(devo__gpu_evaluator *e, const double *x, int n, double *f, char *err,
                             size_t errlen);
/* The device's name and compute capability, as "NAME (sm_XY)" (for backend info). */
const char *devo__gpu_evaluator_device(const devo__gpu_evaluator *e);
void devo__gpu_evaluator_destroy(devo__gpu_evaluator *e);
/* The device-to-device cudaMemcpy rate of the current device, bytes read plus bytes written
 * per second (2 * bytes per copy), the median of reps timed copies of `bytes` after a warm-up
 * (kernels/gpu_problem.cu; for bench/bench_soco.c's bandwidth column). DEVO_OK,
 * DEVO_E_NODEVICE, DEVO_E_NOMEM or DEVO_E_CUDA with a message in err. */
int devo__gpu_copy_rate(size_t bytes, int reps, double *bytes_per_s, char *err, size_t errlen);

/* Formats a message (printf-like) into err (errlen bytes; nothing when err is NULL or errlen 0)
 * and returns status: every "set the message, return the status" of the engine. */
int devo__errf(char *err, size_t errlen, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Formats the solver's error message (printf-like) and returns status. */
int devo__set_err(devo_solver *s, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int devo__problem_err(devo_problem *p, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* devo_solve's check of the variant against the options (the strategy's minimum NP);
 * engine/variant.c. */
int devo__variant_validate(devo_solver *s);
/* DEVO_OK, or DEVO_E_INVALID with a message when backend bk cannot run the solver's variant
 * (JADE/SHADE without a shade_state hook); engine/variant.c. */
int devo__variant_backend_check(devo_solver *s, const struct devo_backend *bk);
/* L-SHADE's progress through the budget after the generation just counted: evaluations / max
 * evaluations, else generations / max generations, else elapsed / time limit (engine/solver.c). */
double devo__lpsr_frac(const devo_solver *s);

/* Frees a problem's data and returns it to the unconfigured state (the allocator stays). */
void devo__problem_reset(devo_problem *p);

/* devo_etc_heuristic with a deadline (absolute monotonic seconds, 0 = none) that only Min-min,
 * Max-min and Sufferage look at: past it they stop unfinished and return DEVO_TIME_LIMIT (assign
 * is then not a schedule). OLB, MET and MCT (one pass over the matrix) always finish. */
int devo__etc_heuristic_until(const struct devo_etc *e, int heuristic, int *assign,
                              double deadline);
/* The same, also ended by *stop becoming non-zero (stop may be NULL): a batch heuristic then
 * maps its unmapped tasks as MCT would (index order, earliest completion given the loads so
 * far), so that assign is a complete schedule, and returns DEVO_INTERRUPTED. */
int devo__etc_heuristic_stop(const struct devo_etc *e, int heuristic, int *assign, double deadline,
                             const volatile sig_atomic_t *stop);
/* devo_etc_local_search that also ends, like at its deadline, when *stop becomes non-zero (stop
 * may be NULL); checked with the clock (every few hundred candidates). */
int devo__etc_local_search_stop(const struct devo_etc *e, int *assign, int order, double lambda,
                                int64_t max_moves, double deadline_seconds_from_now,
                                int64_t *moves_done, const volatile sig_atomic_t *stop);
/* NULL when the len bytes at s make a valid name (devo_etc_set_names), else the reason. */
const char *devo__etc_name_problem(const char *s, size_t len);
/* Frees e's names (problems/etc_names.c). */
void devo__etc_free_names(struct devo_etc *e);
/* Makes devo_solve on s also stop (DEVO_INTERRUPTED) when *flag becomes non-zero, at the checks
 * of devo_interrupt; flag is borrowed (NULL = none). Not thread-safe: call before devo_solve. */
void devo__solver_watch(devo_solver *s, const volatile sig_atomic_t *flag);
static inline int devo__etc_heuristic_immediate(int heuristic)
{
  return heuristic == DEVO_HEUR_OLB || heuristic == DEVO_HEUR_MET || heuristic == DEVO_HEUR_MCT;
}

/* Monotonic clock in seconds. */
double devo__now(void);
/* 1 when the run must stop now: interrupt flag, or past the deadline. Cheap; thread-safe. */
int devo__should_abort(devo_solver *s);
/* 1 when an interrupt reached s: its own flag, the watched flag, its group's (a batch's) or its
 * parent's (an island's solver). Thread-safe. */
int devo__interrupted(const devo_solver *s);

/* devo_solve in parts, for the islands (engine/islands.c): begin resets, validates and starts
 * the backend (the initial population) with the time limit counted from t0 (monotonic
 * seconds); on success s->running = 1. end copies the best vector, fills the statistics and
 * ends the run (st: what the run came to; returned, or the best vector's copy error). */
int devo__solve_begin(devo_solver *s, double t0);
int devo__solve_end(devo_solver *s, int st);
/* And the loop between them, whole (devo__solve_loop: chunks until a stopping rule), or step by
 * step for a caller that advances several solvers itself (the GPU batch): devo__solve_step is
 * the loop's check before a chunk: the stopping rules in devo.h's order, the progress callback,
 * then *chunk becomes the next chunk's generations (grown from *chunk, the last one, by the
 * seconds per generation measured so far, 0: unknown), or DEVO_TIME_LIMIT when a generation
 * would not end before the deadline. DEVO_OK: run *chunk generations; else why the run ends. */
int devo__solve_loop(devo_solver *s);
int devo__solve_step(devo_solver *s, double sec_per_gen, int64_t *chunk);

/* The islands backend (engine/islands.c): devo_solve of a solver with islands > 1 runs its
 * islands through it (every island a solver of its own on the CPU backend). */
extern const devo_backend devo__islands_backend;
/* Puts the migrant x (dim doubles, fitness f) in place of the worst individual of a CPU
 * backend run (the highest fitness, the lowest index on ties) when f is lower than the worst's
 * fitness; *replaced = 1 then, else 0 (engine/cpu_backend.c). The individual's jDE F_i, CR_i
 * stay. DEVO_OK, or DEVO_E_STATE when s's run is not on the CPU backend. */
int devo__cpu_put(devo_solver *s, const double *x, double f, int *replaced);
/* The vector a migrant replaces (devo_islands_put's rule, both backends): the worst of np fitness
 * values, the lowest index among equals. */
int devo__worst_index(const double *fit, int np);

/* A pool of worker threads (engine/pool.c) for the batch and the islands: run calls
 * fn(ud, i) for every i in [0, n), each once, on the pool's threads - 1 workers and the calling
 * thread (indices handed out in increasing order as threads come free), and returns when all
 * are done. One caller at a time. create: DEVO_OK, DEVO_E_NOMEM (threads that cannot start). */
typedef struct devo__pool devo__pool;
int devo__pool_create(devo__pool **out, const devo_allocator *al, int threads);
void devo__pool_run(devo__pool *p, int n, void (*fn)(void *ud, int i), void *ud);
void devo__pool_destroy(devo__pool *p);

/* CPU evaluation of one vector of a built-in problem (not DEVO__P_USER: user functions are
 * called in batches by the CPU backend and by devo_problem_eval); scratch has
 * devo__eval_scratch(view) doubles. NaN becomes +inf. */
double devo__eval_builtin(const devo__pview *v, const double *x, double *scratch);
size_t devo__eval_scratch(const devo__pview *v);

#ifdef __cplusplus
}
#endif

#endif /* DEVO_INTERNAL_H */
