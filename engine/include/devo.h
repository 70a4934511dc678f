/* SPDX-License-Identifier: MIT */
/* devo.h: the public C API of devo, a differential-evolution engine with a CPU reference backend
 * and a CUDA backend. This is the only header a program that links libdevo (static or shared)
 * needs.
 *
 * Conventions (in the spirit of NLopt and SQLite):
 * - Opaque handles (devo_problem, devo_solver, devo_etc). Nothing is global: every function is
 *   re-entrant across handles. One handle must not be used by two threads at once, except for
 *   devo_interrupt(), which is safe from any thread at any time.
 * - Functions that can fail return an int status from the DEVO_STATUS_LIST table: 0 is success,
 *   a positive value says why a solve ended with a valid best, a negative value is an error.
 *   After an error the handle keeps a one-line message (devo_problem_errmsg, devo_solver_errmsg).
 * - Setters validate and reject bad values (DEVO_E_INVALID, message set); they never clamp.
 * - Host memory goes through the handle's allocator (devo_allocator; NULL means malloc/free).
 * - Units: times in seconds (double), counts as int64_t.
 * - The library never prints, exits or reads the environment. */
#ifndef DEVO_H
#define DEVO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version ----------------------------------------------------------------------------- */

#define DEVO_VERSION_MAJOR  0
#define DEVO_VERSION_MINOR  1
#define DEVO_VERSION_PATCH  0
#define DEVO_VERSION_STRING "0.1.0"
/* major * 10000 + minor * 100 + patch */
#define DEVO_VERSION_NUMBER                                                                        \
  (DEVO_VERSION_MAJOR * 10000 + DEVO_VERSION_MINOR * 100 + DEVO_VERSION_PATCH)

/* The version the library was built as; compare with DEVO_VERSION_NUMBER to detect a header and
 * library mismatch. Thread-safe. */
int devo_version_number(void);
/* "0.1.0"; static storage. Thread-safe. */
const char *devo_version(void);

/* ---- statuses ---------------------------------------------------------------------------- */

/* X(NAME, value, message). 0 = ok; positive = a solve ended with a valid best, for this reason;
 * negative = error. */
#define DEVO_STATUS_LIST(X)                                                                        \
  X(DEVO_OK, 0, "ok")                                                                              \
  X(DEVO_TIME_LIMIT, 1, "time limit reached")                                                      \
  X(DEVO_EVAL_LIMIT, 2, "evaluation limit reached")                                                \
  X(DEVO_GEN_LIMIT, 3, "generation limit reached")                                                 \
  X(DEVO_TARGET_REACHED, 4, "target value reached")                                                \
  X(DEVO_INTERRUPTED, 5, "interrupted")                                                            \
  X(DEVO_STOPPED_BY_CALLBACK, 6, "stopped by the progress callback")                               \
  X(DEVO_OPTIMAL, 7, "proven optimal: equal to the lower bound within rounding")                   \
  X(DEVO_GAP_REACHED, 8, "within the requested gap of the lower bound")                            \
  X(DEVO_ENUMERATED, 9, "every assignment evaluated: the answer is optimal")                       \
  X(DEVO_E_INVALID, -1, "invalid argument")                                                        \
  X(DEVO_E_NOMEM, -2, "out of memory")                                                             \
  X(DEVO_E_IO, -3, "input/output error")                                                           \
  X(DEVO_E_PARSE, -4, "parse error")                                                               \
  X(DEVO_E_NODEVICE, -5, "no usable CUDA device")                                                  \
  X(DEVO_E_CUDA, -6, "CUDA error")                                                                 \
  X(DEVO_E_INTERNAL, -7, "internal error")                                                         \
  X(DEVO_E_STATE, -8, "call not valid in this state")                                              \
  X(DEVO_E_DEADLINE, -9, "the deadline came before the input was read")

#define DEVO__STATUS_ENUM(name, value, msg) name = value,
typedef enum devo_status { DEVO_STATUS_LIST(DEVO__STATUS_ENUM) DEVO__STATUS_END } devo_status;
#undef DEVO__STATUS_ENUM

/* "DEVO_TIME_LIMIT" etc.; "DEVO_UNKNOWN" for a value not in the list. Static storage. */
const char *devo_status_name(int status);
/* "time limit reached" etc.; "unknown status" for a value not in the list. Static storage. */
const char *devo_status_message(int status);

/* ---- allocator --------------------------------------------------------------------------- */

/* Every host allocation of a handle goes through this. alloc returns NULL on failure; free
 * accepts NULL. The struct is copied at creation; ud must outlive the handle. */
typedef struct devo_allocator {
  void *(*alloc)(void *ud, size_t size);
  void (*free)(void *ud, void *ptr);
  void *ud;
} devo_allocator;

/* ---- problems ---------------------------------------------------------------------------- */

typedef struct devo_problem devo_problem;

/* User objective over a batch: x holds n vectors of dim doubles, row-major; write f[k] for each.
 * Return 0, or non-zero to abort the solve (devo_solve then returns DEVO_E_INTERNAL with a
 * message). With threads > 1 it is called concurrently from worker threads on disjoint batches,
 * so it must be thread-safe. A NaN value is treated as +infinity. */
typedef int (*devo_objective_fn)(void *ud, const double *x, size_t n, size_t dim, double *f);

/* Creates an empty problem (configure it with one devo_problem_set_* call).
 * alloc: NULL for malloc/free. Returns DEVO_OK, DEVO_E_INVALID (out NULL), DEVO_E_NOMEM. */
int devo_problem_create(devo_problem **out, const devo_allocator *alloc);
/* Frees the problem and all data it owns. NULL is a no-op. The problem must outlive every solver
 * made from it. */
void devo_problem_destroy(devo_problem *p);
/* The last error message of p ("" if none). Valid until the next call on p. */
const char *devo_problem_errmsg(const devo_problem *p);

/* A built-in function by name (see devo_builtin_*): "sphere", "rosenbrock", "griewank",
 * "rastrigin" (the shifted CEC 2005 shapes of Qin et al. 2012, search range [-100,100]^dim,
 * f* = 0 at x = o), and the CEC functions ("cec2017:f5", "F03", ...).
 * dim: 1 .. 10^7 (CEC functions have their own minimum). data_seed: seeds the generated data
 * (shift vectors o in [-80,80]^dim, rotations, permutations). data_dir: for CEC functions, the
 * folder of official input files (NULL = generate the data from data_seed); ignored otherwise.
 * Returns DEVO_OK, DEVO_E_INVALID (unknown name, bad dim), DEVO_E_NOMEM, DEVO_E_IO,
 * DEVO_E_PARSE (message names file and line). */
int devo_problem_set_builtin(devo_problem *p, const char *name, int dim, uint64_t data_seed,
                             const char *data_dir);

/* A user objective on the box [lower, upper]^dim (CPU backend only; devo_problem_set_bounds then
 * gives each coordinate its own bounds). fn and ud are borrowed.
 * Returns DEVO_OK or DEVO_E_INVALID (dim < 1 or > 10^7, bounds not finite, lower >= upper, or
 * upper - lower not finite (every draw would overflow), fn NULL). */
int devo_problem_set_user(devo_problem *p, int dim, double lower, double upper,
                          devo_objective_fn fn, void *ud);
/* How many vectors a user objective gets per call, at most: 0 (the default after
 * devo_problem_set_user) lets devo choose (at most 256, fewer where the objective is slow, so
 * that the clock and devo_interrupt are looked at about every 0.1 ms of evaluation); n >= 1 caps
 * each call at n vectors. With n >= NP and one thread a user objective is called once per
 * generation with the whole population's trials (SciPy's vectorised style), and a time limit or
 * an interrupt is then seen between calls only: a slow objective overruns by up to one call.
 * The results do not depend on n. Returns DEVO_OK, DEVO_E_INVALID (n < 0 or > 10^7) or
 * DEVO_E_STATE (p is not a user objective). Not thread-safe against a solve of p. */
int devo_problem_set_user_batch(devo_problem *p, int n);

/* Dimension, bounds and the known optimum value (f* ; NAN when unknown) of a configured
 * problem. Return DEVO_OK or DEVO_E_STATE if p is not configured. With per-coordinate bounds
 * (devo_problem_set_bounds) devo_problem_bounds gives the smallest lower and the largest upper
 * bound (the box that holds them all); devo_problem_bounds_vec gives them all. */
int devo_problem_dim(const devo_problem *p);
int devo_problem_bounds(const devo_problem *p, double *lower, double *upper);
double devo_problem_fstar(const devo_problem *p);
/* Evaluate the problem at one point on the CPU (x has dim doubles). Returns DEVO_OK,
 * DEVO_E_STATE, DEVO_E_NOMEM, DEVO_E_INTERNAL (user function failed). */
int devo_problem_eval(const devo_problem *p, const double *x, double *f);
/* The optimum point o of a built-in problem (dim doubles). DEVO_E_STATE when none is known. */
int devo_problem_optimum(const devo_problem *p, double *x);

/* Search boxes of built-in problems (issue 22). devo_problem_set_box replaces the box of a
 * configured built-in or user problem by [lower, upper]^dim; the data (shift, optimum) stay.
 * Returns DEVO_OK, DEVO_E_STATE (p not configured), or DEVO_E_INVALID with a one-line message
 * (bounds not finite, lower >= upper, width not finite, an ETC problem (its box is part of its
 * decoding), or the known optimum outside the box, naming the first coordinate outside).
 * devo_problem_set_ranges(p, "cec2005") gives a classic function (sphere, rosenbrock, griewank,
 * rastrigin) the CEC 2005 range of its shape (sphere, Rosenbrock [-100, 100], Griewank
 * [-600, 600], Rastrigin [-5, 5]) and redraws its shift inside 80% of that box from the data
 * seed (for [-100, 100] the same shift as the default); "default" restores the default box and
 * shift. DEVO_E_INVALID for another name or a problem that is not a classic function. Not
 * thread-safe on one handle (like every setter). */
int devo_problem_set_box(devo_problem *p, double lower, double upper);
int devo_problem_set_ranges(devo_problem *p, const char *ranges);

/* Per-coordinate bounds: coordinate j of the search box becomes [lower[j], upper[j]] (in the
 * problem's own units), for a configured built-in or user problem. lower and upper hold dim
 * values each (devo_problem_dim), copied: the caller keeps its arrays. Every pair must be
 * finite with lower[j] < upper[j] and a finite width upper[j] - lower[j]; the known optimum of a
 * built-in problem must stay inside. The solver draws coordinate j of the initial population
 * in [lower[j], upper[j]) and repairs a trial coordinate that leaves it by the solver's bound
 * rule (devo_solver_set_bounds) within that coordinate's bounds. Bounds that are the same for
 * every coordinate are exactly devo_problem_set_box(p, lower[0], upper[0]) (the same results,
 * bit for bit, on both backends). Other bounds run on the CPU backend (and the naive GPU design,
 * which runs DE on the CPU): devo_solve refuses DEVO_BACKEND_GPU with DEVO_E_INVALID (the GPU
 * kernels read one box for every coordinate), and DEVO_BACKEND_AUTO takes the CPU.
 * devo_problem_set_box and devo_problem_set_ranges replace them by one box again; configuring
 * p anew (devo_problem_set_builtin, _user, _etc) drops them. Memory through p's allocator.
 * Returns DEVO_OK, DEVO_E_STATE (p not configured), DEVO_E_INVALID with a one-line message naming
 * the first bad coordinate (NULL array, bounds not finite, lower >= upper, width not finite, the
 * optimum outside, an ETC problem), DEVO_E_NOMEM; p is unchanged on every error. Not thread-safe
 * on one handle, and p must not change while a solver made from it runs (like every setter). */
int devo_problem_set_bounds(devo_problem *p, const double *lower, const double *upper);
/* Copies the bounds of every coordinate (dim values each; either pointer may be NULL): the
 * per-coordinate bounds, or the one box repeated. DEVO_OK or DEVO_E_STATE (p NULL or not
 * configured). Thread-safe with other readers of p. */
int devo_problem_bounds_vec(const devo_problem *p, double *lower, double *upper);

/* Built-in catalogue, for listing. Static storage. */
typedef struct devo_builtin_info {
  const char *name;     /* canonical name, e.g. "cec2017:f5" */
  const char *alias;    /* short name, e.g. "F03", or "" */
  const char *source;   /* e.g. "CEC 2017 F5 shifted and rotated Rastrigin" */
  double fstar;         /* optimum value */
  int min_dim;          /* smallest D from which every dimension works with generated data
                           (a hybrid may also accept some smaller ones, e.g. F07 at D = 10) */
  const char *official; /* dimensions with official data, e.g. "10,30,50,100", or "" */
  double lower, upper;  /* the default search box [lower, upper]^D */
} devo_builtin_info;
int devo_builtin_count(void);
/* index 0 .. count-1; returns DEVO_OK or DEVO_E_INVALID. */
int devo_builtin_get(int index, devo_builtin_info *out);

/* ---- ETC matrices (task scheduling) ------------------------------------------------------ */

typedef struct devo_etc devo_etc;

/* Size limits of an ETC matrix: tasks 1..DEVO_ETC_MAX_TASKS, machines 2..DEVO_ETC_MAX_MACHINES,
 * tasks*machines <= DEVO_ETC_MAX_CELLS. */
#define DEVO_ETC_MAX_TASKS    1000000
#define DEVO_ETC_MAX_MACHINES 4096
#define DEVO_ETC_MAX_CELLS    67108864

/* Input formats for devo_etc_read. */
enum {
  DEVO_ETC_AUTO = 0, /* Braun when the data has one value per line, CSV otherwise */
  DEVO_ETC_CSV = 1,  /* rows = tasks, columns = machines; comma, semicolon or tab; optional
                        header row (a first row with no number in it); LF, CRLF or CR line
                        ends; a UTF-8 byte order mark is skipped */
  DEVO_ETC_BRAUN = 2 /* n*m values one per line, task-major; optional "n m 0" first line */
};

/* A matrix of ntasks x nmach times (task-major, values[t*nmach + j]); values copied, all > 0
 * and finite, and small enough that no schedule's flowtime overflows a double (ntasks times the
 * sum over tasks of their largest value, plus the largest ready time, below DBL_MAX / 4; also
 * checked by devo_etc_set_ready and devo_etc_read). Ready times start at 0. Returns DEVO_OK,
 * DEVO_E_INVALID (message in err), DEVO_E_NOMEM. err: caller's buffer for a one-line message (may
 * be NULL). */
int devo_etc_create(devo_etc **out, int ntasks, int nmach, const double *values,
                    const devo_allocator *alloc, char *err, size_t errlen);
/* Reads a matrix from a stream (CSV through libcsv, or the Braun format). name is used in
 * messages ("name:row:column: reason"). For the Braun format without the "n m 0" line, nmach
 * must be given (> 0); otherwise pass 0. Nothing is returned from a half-read matrix.
 * format may carry DEVO_ETC_TASK_NAMES; CSV task and machine names are kept (see
 * devo_etc_task_name), within the rules of devo_etc_set_names.
 * A CSV input of more than 2 MiB whose data rows hold no '"' is parsed by up to 16 threads (one
 * per online CPU, 1 MiB each at least) started and joined within the call, with the result and
 * messages of the one-thread reader; alloc is only called from the calling thread.
 * Returns DEVO_OK, DEVO_E_PARSE (malformed, ragged, non-numeric, NaN/inf, <= 0, too few or too
 * many), DEVO_E_IO, DEVO_E_NOMEM. */
int devo_etc_read(devo_etc **out, FILE *in, const char *name, int format, int nmach,
                  const devo_allocator *alloc, char *err, size_t errlen);
/* Input limits of the ETC readers (issue 21): a field (one number) of more characters, or a
 * line of more bytes, is refused as soon as it is seen; so is an input of more bytes than
 * devo_read_limits.max_bytes, whose default allows 32 bytes a value at the largest size (%.17g
 * prints at most 24 characters). */
#define DEVO_ETC_MAX_FIELD         1023
#define DEVO_ETC_MAX_LINE          ((DEVO_ETC_MAX_MACHINES + 1) * (DEVO_ETC_MAX_FIELD + 1))
#define DEVO_ETC_DEFAULT_MAX_BYTES ((size_t)DEVO_ETC_MAX_CELLS * 32u)
typedef struct devo_read_limits {
  size_t max_bytes; /* a larger input is refused (DEVO_E_PARSE); 0: DEVO_ETC_DEFAULT_MAX_BYTES */
  double deadline;  /* absolute, in seconds of CLOCK_MONOTONIC (clock_gettime); 0: none */
} devo_read_limits;
/* devo_etc_read from a file descriptor (read, not closed; blocking or not), in chunks: the
 * input is checked as it arrives (a NUL byte, a line or field over the limits, the size), and
 * with a deadline every wait for data is a poll() that ends there: DEVO_E_DEADLINE when the
 * input has not all come by then (a pipe that never closes cannot block past it). A regular
 * file has all its bytes already: it is read to its end whatever the deadline. lim may be
 * NULL (default limits, no deadline). devo_etc_read applies the default limits too. Returns what
 * devo_etc_read returns, and DEVO_E_DEADLINE. Thread-safe across calls on different fds. */
int devo_etc_read_fd(devo_etc **out, int fd, const char *name, int format, int nmach,
                     const devo_read_limits *lim, const devo_allocator *alloc, char *err,
                     size_t errlen);
/* Ready times W_j (nmach values >= 0, finite), copied. DEVO_OK or DEVO_E_INVALID. */
int devo_etc_set_ready(devo_etc *e, const double *ready, char *err, size_t errlen);
void devo_etc_destroy(devo_etc *e);
int devo_etc_ntasks(const devo_etc *e);
int devo_etc_nmach(const devo_etc *e);
/* Borrowed pointers into e: ntasks*nmach values, and nmach ready times. */
const double *devo_etc_values(const devo_etc *e);
const double *devo_etc_ready(const devo_etc *e);

/* Order of tasks on one machine: first come first served in task-index order, or shortest
 * processing time first (minimises flowtime for a fixed assignment). */
enum { DEVO_ORDER_FCFS = 0, DEVO_ORDER_SPT = 1 };

/* Makespan and flowtime of an assignment (assign[t] in 0..nmach-1). Either output may be NULL.
 * Returns DEVO_OK or DEVO_E_INVALID (machine index out of range). */
int devo_etc_evaluate(const devo_etc *e, const int *assign, int order, double *makespan,
                      double *flowtime);

/* Classic heuristics (Braun et al. 2001); ties go to the lowest task, then machine index. */
enum {
  DEVO_HEUR_OLB = 0,
  DEVO_HEUR_MET = 1,
  DEVO_HEUR_MCT = 2,
  DEVO_HEUR_MINMIN = 3,
  DEVO_HEUR_MAXMIN = 4,
  DEVO_HEUR_SUFFERAGE = 5,
  DEVO_HEUR_COUNT = 6
};
/* "olb", "met", "mct", "min-min", "max-min", "sufferage"; NULL for a bad index. */
const char *devo_heuristic_name(int heuristic);
/* Index of a heuristic name, or -1. */
int devo_heuristic_from_name(const char *name);
/* Fills assign (ntasks ints). Returns DEVO_OK, DEVO_E_INVALID, DEVO_E_NOMEM (scratch memory
 * through e's allocator). */
int devo_etc_heuristic(const devo_etc *e, int heuristic, int *assign);

/* Deterministic local search that improves an assignment in place (problems/etc_ls.c).
 * Each step looks at the critical machine c (the one with the makespan; the lowest index on
 * ties) and applies the best of: moving one task of c to another machine, else swapping one
 * task of c with one task of another machine (ties go to the lowest task, then machine or
 * partner index). The objective is lambda * makespan + (1 - lambda) * flowtime / m, as in
 * devo_problem_set_etc (order changes the flowtime only). On a makespan plateau (several
 * machines at the makespan) a step is also taken when it lowers the vector of completion
 * times sorted in decreasing order without making the objective worse, so the search does not
 * stall there. Moves that gain less than the rounding of the sums involved are not taken, so
 * the search always ends. It stops at a local optimum (no move or swap off c is accepted),
 * after max_moves steps, or at the deadline.
 * assign: ntasks machine indices, read and overwritten (the caller owns it).
 * order: DEVO_ORDER_*. lambda: [0, 1]. max_moves: steps (a swap counts as one), >= 0;
 * 0 = no limit. deadline_seconds_from_now: seconds of wall-clock time (monotonic clock)
 * counted from the call, finite and >= 0; 0 = no deadline; below 0.1 ms the input is returned
 * as it is. The clock is read every few hundred candidates (and sort steps while setting up), so
 * the call returns within about a millisecond of the deadline on instances up to ~10^5 tasks
 * (setting up and one applied step are O(n)).
 * moves_done (may be NULL): the steps kept in assign.
 * Cost: a step examines |c| * (m - 1) moves and |c| * (n - |c|) swaps, O(1) each for
 * lambda = 1 and O(log n) otherwise. The result is checked with the exact evaluation of
 * devo_etc_evaluate (the machines' sums recomputed in its order): the objective is never worse
 * than the input's (the input is kept, with *moves_done = 0, if rounding in the incremental
 * bookkeeping ever made it so).
 * Scratch memory O(n + m) through e's allocator. Thread-safe for distinct assign arrays
 * (e is only read). Returns DEVO_OK (also when stopped by max_moves or the deadline),
 * DEVO_E_INVALID (NULL e or assign, machine index out of range, bad order, lambda, max_moves
 * or deadline), DEVO_E_NOMEM (assign unchanged). */
int devo_etc_local_search(const devo_etc *e, int *assign, int order, double lambda,
                          int64_t max_moves, double deadline_seconds_from_now, int64_t *moves_done);

/* Initial population of an ETC problem (seed_heuristics of devo_problem_set_etc). */
enum {
  DEVO_ETC_SEED_NONE = 0,  /* random vectors only */
  DEVO_ETC_SEED_PLAIN = 1, /* the heuristic schedules, the rest random */
  DEVO_ETC_SEED_LOCAL = 2  /* the heuristic schedules each improved by devo_etc_local_search */
};

/* Makes p the scheduling problem of e: minimise lambda * makespan + (1 - lambda) * flowtime / m
 * over real vectors in [0, m)^n, task t on machine floor(x_t) clamped to m - 1 (Kromer et al.
 * 2011). lambda in [0, 1]; order DEVO_ORDER_*. The matrix is copied. Every sum is taken in a
 * fixed order (problems/etc.h), so the CPU and the GPU give the same bits.
 * seed_heuristics, DEVO_ETC_SEED_*: with PLAIN the initial population starts with the distinct
 * heuristic schedules (Min-min, Sufferage, Max-min, MCT, MET, OLB, as many as fit in NP - 4),
 * the rest random; with LOCAL the same schedules, each first improved by devo_etc_local_search
 * with this lambda and order (no deadline, at most 16 * ntasks steps each: this call may take
 * a while on large instances; devo_schedule_run bounds it by its time limit), the distinct
 * results in the same order; NONE: random only. Returns DEVO_OK, DEVO_E_INVALID (also for a
 * seed_heuristics value outside DEVO_ETC_SEED_*), DEVO_E_NOMEM. */
int devo_problem_set_etc(devo_problem *p, const devo_etc *e, double lambda, int order,
                         int seed_heuristics);
/* Decodes a vector of an ETC problem into an assignment (ntasks ints). DEVO_OK or DEVO_E_STATE
 * when p is not an ETC problem. */
int devo_problem_etc_decode(const devo_problem *p, const double *x, int *assign);

/* ---- solver ------------------------------------------------------------------------------ */

typedef struct devo_solver devo_solver;

enum {
  DEVO_BOUNDS_REINIT = 0,
  DEVO_BOUNDS_CLIP = 1,
  DEVO_BOUNDS_REFLECT = 2,
  DEVO_BOUNDS_MIDPOINT = 3
};
enum { DEVO_BACKEND_CPU = 0, DEVO_BACKEND_GPU = 1, DEVO_BACKEND_AUTO = 2 };
/* GPU designs: the fused generation kernel (default) or one kernel per DE step launched from the
 * host every generation (Janssen et al. 2024's "All-GPU DE", kept for comparison).
 * DEVO_GPU_NAIVE is Janssen et al.'s "naive GPU" model, kept for comparison too: DE runs on the
 * CPU backend's algorithm on one thread (the thread count is not used), and every generation's
 * NP trials (the initial population, GOBL's opposites) are copied to the GPU, evaluated there by
 * the multikernel design's evaluation kernel, and their fitness copied back; device and pinned
 * buffers are allocated once per solve. The trials and selections are those of the 1-thread CPU
 * run; the fitness values are the GPU's (equal to the CPU's within 1e-12 relative, ETC exactly),
 * so the populations are equal bit for bit unless a trial and its target are closer than that
 * (docs/experiment.md, the naive GPU model). Interrupts and the deadline are checked between
 * generations. devo_stats.backend says DEVO_BACKEND_GPU. */
enum { DEVO_GPU_FUSED = 0, DEVO_GPU_MULTIKERNEL = 1, DEVO_GPU_NAIVE = 2 };

/* Progress report passed to the callback between chunks of generations. */
typedef struct devo_progress {
  int64_t generation;  /* generations completed */
  int64_t evaluations; /* objective evaluations of the generations completed, the initial
                          population included */
  double elapsed;      /* seconds since devo_solve started (monotonic clock) */
  double best;         /* best value so far */
} devo_progress;
/* Called from the thread that runs devo_solve. Return non-zero to stop the run
 * (DEVO_STOPPED_BY_CALLBACK). */
typedef int (*devo_progress_fn)(void *ud, const devo_progress *p);

/* Creates a solver for problem p (borrowed: p must outlive the solver and stay unchanged).
 * Defaults: NP = 100, F = 0.5, CR = 0.9, seed = 1, bounds reinit, CPU backend, 1 thread, no
 * stopping rule (set at least one before devo_solve). Returns DEVO_OK, DEVO_E_INVALID (p not
 * configured, out NULL), DEVO_E_NOMEM. */
int devo_solver_create(devo_solver **out, const devo_problem *p, const devo_allocator *alloc);
/* Frees the solver, its host memory and its device memory. NULL is a no-op. */
void devo_solver_destroy(devo_solver *s);
const char *devo_solver_errmsg(const devo_solver *s);

/* Setters: DEVO_OK, or DEVO_E_INVALID with a message; DEVO_E_STATE during a solve. */
int devo_solver_set_np(devo_solver *s, int np);             /* 4 .. 10^7 */
int devo_solver_set_f(devo_solver *s, double f);            /* finite, > 0, <= 2 */
int devo_solver_set_cr(devo_solver *s, double cr);          /* [0, 1] */
int devo_solver_set_seed(devo_solver *s, uint64_t seed);    /* any */
int devo_solver_set_bounds(devo_solver *s, int rule);       /* DEVO_BOUNDS_* */
int devo_solver_set_threads(devo_solver *s, int threads);   /* CPU workers, 1 .. 1024 */
int devo_solver_set_backend(devo_solver *s, int backend);   /* DEVO_BACKEND_* */
int devo_solver_set_gpu_design(devo_solver *s, int design); /* DEVO_GPU_* */
/* Stopping rules; any combination; 0 (or NAN for the target) switches a rule off. */
int devo_solver_set_max_evals(devo_solver *s, int64_t max_evals);      /* >= NP at solve time */
int devo_solver_set_max_generations(devo_solver *s, int64_t max_gens); /* <= 2^32 - 2 */
int devo_solver_set_target(devo_solver *s, double target); /* stop when best <= target */
/* Wall-clock seconds counted from the start of devo_solve (monotonic clock); finite, >= 0.
 * The solve returns no later than the limit plus max(1 ms, 1% of the limit), provided the
 * initial population can be evaluated within the limit (a valid best needs it) and, on the GPU,
 * one generation takes less than that slack (a chunk is at least one generation, planned from
 * the measured ones; a GPU shared with another solve makes each wait for the other's chunks). With
 * the GPU backend, the first solve of a process also creates the CUDA context (0.2 to 1.1 s
 * measured on an H100) inside that initial part; call devo_gpu_available() before to keep it out.
 */
int devo_solver_set_time_limit(devo_solver *s, double seconds);
/* fn may be NULL (no callback). ud is borrowed. */
int devo_solver_set_progress(devo_solver *s, devo_progress_fn fn, void *ud);

/* Runs DE until a stopping rule ends it. Returns the positive reason (the best is valid), or a
 * negative error: DEVO_E_INVALID (no stopping rule, max_evals < NP, a GPU backend for a user
 * objective), DEVO_E_NOMEM, DEVO_E_NODEVICE, DEVO_E_CUDA, DEVO_E_INTERNAL. All memory is
 * allocated once at the start; calling devo_solve again starts a new run. */
int devo_solve(devo_solver *s);

/* Asks a running solve to stop at its next check (DEVO_INTERRUPTED; the CPU backend checks every
 * few individuals, the GPU backend between chunks of at most 50 ms or one generation; the initial
 * population is always evaluated first, since the best must be valid). Safe from any thread,
 * including a signal handler (it only stores to a lock-free atomic flag). The flag is cleared when
 * a solve returns (also with an error), so an interrupt that arrives before a solve starts stops
 * that solve right after its initial population and is never lost. */
void devo_interrupt(devo_solver *s);

/* The best value and vector (dim doubles; x may be NULL) of the last solve.
 * DEVO_OK, DEVO_E_STATE (no solve has evaluated a population yet). */
int devo_solver_best(const devo_solver *s, double *value, double *x);

/* Statistics of the last solve. */
typedef struct devo_stats {
  int64_t generations;
  int64_t evaluations; /* NP (initial) + NP per completed generation; the CPU backend also drops
                          and does not count a generation cut short by the deadline or an
                          interrupt, although its objective was already called for part of it */
  double elapsed;      /* seconds of devo_solve, start to return */
  double init_seconds; /* of which: allocation, device set-up, initial population */
  int status;          /* what devo_solve returned */
  int backend;         /* DEVO_BACKEND_CPU or DEVO_BACKEND_GPU: the one that ran */
  int best_from_seed;  /* 1 if the best vector is an unchanged seeded (heuristic) vector */
} devo_stats;
int devo_solver_stats(const devo_solver *s, devo_stats *out);

/* The current population (np*dim doubles, row-major) and fitness (np doubles) of the last
 * solve, for tests and analysis; either pointer may be NULL. DEVO_OK or DEVO_E_STATE. */
int devo_solver_population(devo_solver *s, double *pop, double *fit);

/* ---- DE variants (issue 18; docs/variants.md has every formula and draw) -------------------
 * Strategies, named as SciPy's differential_evolution names them, each with the binomial or the
 * exponential crossover ("rand1bin", "best2exp", ...). x_best is the best individual of the
 * previous generation (lowest index on ties); r1..r5 are distinct and distinct from i.
 *   rand1           v = x_r1 + F (x_r2 - x_r3)                    NP >= 4
 *   rand2           v = x_r1 + F (x_r2 + x_r3 - x_r4 - x_r5)      NP >= 6
 *   best1           v = x_best + F (x_r1 - x_r2)                  NP >= 4
 *   best2           v = x_best + F (x_r1 + x_r2 - x_r3 - x_r4)    NP >= 5
 *   currenttobest1  v = x_i + F (x_best - x_i + x_r1 - x_r2)      NP >= 4
 *   randtobest1     v = x_r1 + F (x_best - x_r1 + x_r2 - x_r3)    NP >= 4
 * The minimum NP is checked by devo_solve (DEVO_E_INVALID), not by the setters (NP and the
 * strategy may be set in any order). */
enum {
  DEVO_STRATEGY_RAND1 = 0,
  DEVO_STRATEGY_RAND2 = 1,
  DEVO_STRATEGY_BEST1 = 2,
  DEVO_STRATEGY_BEST2 = 3,
  DEVO_STRATEGY_CURRENTTOBEST1 = 4,
  DEVO_STRATEGY_RANDTOBEST1 = 5
};
enum { DEVO_CROSSOVER_BIN = 0, DEVO_CROSSOVER_EXP = 1 };

/* A whole variant: strategy, crossover, jDE (Brest et al. 2006) and GOBL (Wang, Rahnamayan, Wu
 * 2013). devo_variant_init gives rand1bin, jDE off with jDE's published parameters
 * (tau1 = tau2 = 0.1, fl = 0.1, fu = 0.9, crl = 0, cru = 1), GOBL off, adapt NONE (p = 0.11,
 * arc_rate = 1, hist = 100, c = 0.1, lpsr = 0, np_min = 4): devo's classic DE. */
typedef struct devo_variant {
  int strategy;      /* DEVO_STRATEGY_* */
  int crossover;     /* DEVO_CROSSOVER_* */
  int jde;           /* 1: every individual carries F_i, CR_i (initially 0.5, 0.9); before trial i,
                        with probability tau1 F = fl + u fu, with probability tau2 CR = crl + u cru
                        (u uniform in [0, 1)), kept only when the trial replaces the target; the
                        solver's F and CR are then unused */
  double tau1, tau2; /* [0, 1] */
  double fl, fu;     /* fl in (0, 2], fu in [0, 2], fl + fu <= 2 (F stays in (0, 2]) */
  double crl, cru;   /* crl in [0, 1], cru in [0, 1], crl + cru <= 1 (CR stays in [0, 1]) */
  double gobl;       /* GOBL jump probability p_o per generation, [0, 1]; 0 = off */
  /* JADE / SHADE / L-SHADE (issue 24; the block "JADE, SHADE, L-SHADE" below): */
  int adapt;       /* DEVO_ADAPT_NONE, DEVO_ADAPT_JADE or DEVO_ADAPT_SHADE */
  double p;        /* pbest rate, (0, 1]: pbest among the best max(2, round(p NP)) */
  double arc_rate; /* archive capacity round(arc_rate NP), [0, 10]; 0 = no archive */
  int hist;        /* SHADE: history size H, 1 .. 100000 */
  double c;        /* JADE: learning rate c, [0, 1] */
  int lpsr;        /* SHADE: 1 = L-SHADE's linear population size reduction */
  int np_min;      /* L-SHADE: final population size, 4 .. NP */
} devo_variant;
/* o must not be NULL. Thread-safe. */
void devo_variant_init(devo_variant *v);
/* Checks every field (ranges above). DEVO_OK, or DEVO_E_INVALID with a one-line message naming
 * the field in err (may be NULL; errlen bytes). Thread-safe. */
int devo_variant_check(const devo_variant *v, char *err, size_t errlen);
/* The presets (devo solve --algorithm): "de" = rand1bin; "jde" = rand1bin + jDE (defaults);
 * "gojde" = rand1exp + jDE with fl = fu = 0.2, crl = 0.8, cru = 0.2 + GOBL p_o = 0.05 (GOjDE,
 * as issue 18 gives it; docs/variants.md); "jade", "shade", "lshade" (below, docs/shade.md).
 * Overwrites the whole of v. DEVO_OK or DEVO_E_INVALID (unknown name; message in err). Thread-safe.
 */
int devo_variant_preset(devo_variant *v, const char *preset, char *err, size_t errlen);
/* "rand1bin", "best2exp", ...: a static string, or NULL for values out of range. */
const char *devo_strategy_name(int strategy, int crossover);
/* The inverse of devo_strategy_name. DEVO_OK or DEVO_E_INVALID (unknown name). */
int devo_strategy_parse(const char *name, int *strategy, int *crossover);
/* The smallest NP the strategy runs with (picks + 1, at least 4); 0 for an unknown strategy. */
int devo_strategy_min_np(int strategy);

/* Solver setters: DEVO_OK, DEVO_E_INVALID with a message (value out of range, unknown name),
 * DEVO_E_STATE during a solve. */
int devo_solver_set_variant(devo_solver *s, const devo_variant *v); /* all fields checked */
int devo_solver_set_strategy(devo_solver *s, int strategy, int crossover);
int devo_solver_set_strategy_name(devo_solver *s, const char *name); /* "rand1bin", ... */
/* on = 0 switches jDE off (the numbers are still checked and kept). */
int devo_solver_set_jde(devo_solver *s, int on, double tau1, double tau2, double fl, double fu,
                        double crl, double cru);
int devo_solver_set_gobl(devo_solver *s, double p_o);              /* [0, 1] */
int devo_solver_set_algorithm(devo_solver *s, const char *preset); /* devo_variant_preset */
/* The solver's variant (a copy). s and v must not be NULL. */
void devo_solver_get_variant(const devo_solver *s, devo_variant *v);
/* jDE's F_i and CR_i of the population of the last solve (NP doubles each; either may be NULL).
 * DEVO_OK, DEVO_E_STATE (no population), DEVO_E_INVALID (the run had no jDE, or the backend
 * cannot report it; message set). */
int devo_solver_jde_state(devo_solver *s, double *F, double *CR);

/* ---- JADE, SHADE, L-SHADE (issue 24; docs/shade.md has every formula, draw and source) ------
 * With adapt = DEVO_ADAPT_JADE or DEVO_ADAPT_SHADE the run uses current-to-pbest/1/bin with an
 * external archive (the variant's strategy and crossover and the solver's F and CR are unused;
 * jde must be 0 and gobl 0):
 *   v = x_i + F_i (x_pbest - x_i) + F_i (x_r1 - x_r2), r2 from the population and the archive;
 *   F_i ~ Cauchy(M_F, 0.1) (redrawn while <= 0, cut at 1), CR_i ~ N(M_CR, 0.1) clipped to [0, 1].
 * JADE (Zhang and Sanderson 2009): one pair (mu_CR, mu_F) moved by c towards the successes' mean
 * CR and Lehmer mean F. SHADE (Tanabe and Fukunaga 2013): H pairs, one picked per individual,
 * one slot (round robin) set to the improvement-weighted Lehmer means. L-SHADE (2014): SHADE +
 * lpsr: NP falls linearly from NP_init to np_min over the budget (evaluations, else generations,
 * else the time limit; devo_solve refuses lpsr without one of them), the worst leave, the
 * archive shrinks with NP; M_CR may take the terminal value (-1: CR_i = 0).
 * Presets (devo_variant_preset, devo_solver_set_algorithm): "jade": p = 0.05, c = 0.1,
 * arc_rate = 1; "shade": H = 100, p = 0.11, arc_rate = 1; "lshade": H = 6, p = 0.11,
 * arc_rate = 2.6, np_min = 4, lpsr = 1, and NP_init = 18 D when devo_solver_set_np was not
 * called. All initial memories 0.5. Both backends run them, with the same bits where the
 * objective uses + - * / and sqrt only (docs/gpu-shade.md: the GPU's cos and glibc's may differ).
 * After an L-SHADE run devo_solver_population copies the current NP rows (devo_shade_state.np),
 * not NP_init. */
enum { DEVO_ADAPT_NONE = 0, DEVO_ADAPT_JADE = 2, DEVO_ADAPT_SHADE = 3 };

/* The parameters of the family on the solver's variant (the strategy, jDE and GOBL fields are
 * kept); the same checks as devo_variant_check. DEVO_OK, DEVO_E_INVALID with a message,
 * DEVO_E_STATE during a solve. */
int devo_solver_set_shade(devo_solver *s, int adapt, double p, double arc_rate, int hist, double c,
                          int lpsr, int np_min);

/* The adaptation state after the last solve (or a progress callback), for tests and analysis. */
typedef struct devo_shade_state {
  int np;           /* current population size (L-SHADE: after the last reduction) */
  int np_gen;       /* population size of the last generation: the length of F and CR below */
  int archive_size; /* |A| */
  int archive_cap;  /* capacity for the current np */
  int hist;         /* H (JADE: 1) */
  int k;            /* the memory slot the next success updates (JADE: 0) */
} devo_shade_state;
/* Fills st and copies (each pointer may be NULL): archive (archive_size * dim doubles, rows in
 * slot order), m_cr and m_f (hist doubles; JADE: mu_CR, mu_F; -1 = terminal), F and CR (the F_i
 * and CR_i drawn in the last generation, np_gen doubles; 0 before the first generation; after a
 * stop inside a generation (time limit, interrupt), whose trials are dropped, the rows that
 * generation had drawn hold its draws). The
 * caller sizes the buffers: archive at most round(arc_rate NP_init) rows, np_gen <= NP_init.
 * DEVO_OK, DEVO_E_STATE (no population yet), DEVO_E_INVALID (the run was not JADE/SHADE, or its
 * backend cannot report it; message set). Not thread-safe with a running solve. */
int devo_solver_shade_state(devo_solver *s, devo_shade_state *st, double *archive, double *m_cr,
                            double *m_f, double *F, double *CR);

/* A one-line description of the backend configuration of the last solve (e.g. the GPU launch
 * configuration), "" before the first solve. Valid until the next call on s. */
const char *devo_solver_backend_info(const devo_solver *s);

/* 1 if a CUDA device is usable (the library was built with CUDA and a device answers), else 0;
 * msg (may be NULL) receives the reason or the device name. Thread-safe. */
int devo_gpu_available(char *msg, size_t msglen);

/* Makes the GPU ready for later calls: creates this thread's device's primary CUDA context
 * (0.2 to 1.1 s on an H100 the first time in a process; then shared by every thread of the
 * process), so that a later devo_solve or devo_schedule_run on the GPU does not pay for it
 * inside its time limit. For a long-lived caller (a resource manager linking libdevo): call it
 * once at start-up, off the critical path (any thread). Calling it again is cheap. Thread-safe.
 * Returns DEVO_OK, or DEVO_E_NODEVICE (no usable device, or a build without CUDA). */
int devo_gpu_warmup(void);

/* The number of CUDA devices visible to this process (0 in a build without CUDA or with none).
 * Thread-safe. */
int devo_gpu_count(void);
/* Chooses the CUDA device (0 .. devo_gpu_count() - 1) of the calling thread: the GPU work that
 * this thread starts afterwards (devo_solve, devo_schedule_run, devo_gpu_warmup, ...) runs on it;
 * other threads keep theirs (device 0 unless they choose). A process spreading work over several
 * GPUs (one thread, or one MPI rank, per device) calls it once per thread before that thread's
 * first GPU call. Returns DEVO_OK, DEVO_E_INVALID (device out of range), DEVO_E_NODEVICE (no
 * usable device, or a build without CUDA). Thread-safe. */
int devo_gpu_select(int device);

/* ---- many runs: batches and islands (docs/library.md, "Many runs at once") ---------------- */

/* A batch: B independent solves in one call. Each trial is a solver the caller created and
 * configured as for devo_solve (its own problem, seed, DE parameters, variant, backend and
 * stopping rules); devo_batch_solve runs every trial through devo_solve on `threads` threads,
 * one trial per thread at a time, trials taken in the order they were added as threads come
 * free. So each trial's result is exactly its result alone: on the CPU the same final population
 * and best, bit for bit, whatever the thread count and the other trials. A trial's time limit
 * counts from the start of its own solve; its own thread count still applies inside it (B trials
 * of t threads each use up to threads x t cores); a user objective that several trials share is
 * called from several threads at once, so it must be thread-safe (as for threads > 1). Trials
 * are sorted into groups of one shape (backend and GPU design, problem kind and dimension, NP,
 * variant family, islands). On the GPU backend's fused design a group is one work item, run on
 * the device of the thread that calls devo_batch_solve: its trials are begun in order as the
 * device has room for them and advanced together, one persistent launch with one grid barrier
 * for all of them per chunk, where a batch kernel takes them (the classic functions with the
 * small-D kernel, DE/rand/1/bin with or without jDE; the CEC F01..F07 at D <= 128 with any
 * variant; the cases of the general variant kernel, e.g. jDE on the CEC compositions and ETC
 * problems; no GOBL; each trial still computes
 * exactly what it computes alone, and stops where it would alone); trials that none takes run
 * alone through the solo GPU path as their turn comes (their time limit counts from their own
 * start). Trials of different groups never share a launch.
 * Afterwards each solver holds its own result (devo_solver_best, devo_solver_stats,
 * devo_solver_population, ...).
 * Thread-safety: a batch is used by one thread at a time, except devo_batch_interrupt (any
 * thread, also a signal handler). While devo_batch_solve runs, its solvers belong to it: the
 * caller may only call devo_interrupt on them, and read a trial's results in the done callback
 * of that trial. A solver is in at most one batch at a time. */
typedef struct devo_batch devo_batch;
#define DEVO_BATCH_MAX 1000000 /* trials of one batch */

/* Called once for every trial that ran, as it ends, with its index (the order of devo_batch_add)
 * and what devo_solve returned; from the thread that ran it, but never two at once (the batch
 * holds a lock around it): the callback may write a file without a lock of its own, and read s
 * (devo_solver_best, devo_solver_stats, ...), but must not call devo_batch_* functions other
 * than devo_batch_interrupt. A non-zero return stops the batch: the running trials are
 * interrupted (their callbacks still come, with DEVO_INTERRUPTED), the others do not start. */
typedef int (*devo_batch_done_fn)(void *ud, int trial, devo_solver *s, int status);

/* An empty batch, 1 thread, no callback. alloc: NULL for malloc/free (the batch's own arrays; the
 * solvers keep theirs). Returns DEVO_OK, DEVO_E_INVALID (out NULL), DEVO_E_NOMEM. */
int devo_batch_create(devo_batch **out, const devo_allocator *alloc);
/* Frees the batch, not its solvers (they are borrowed). NULL is a no-op. */
void devo_batch_destroy(devo_batch *b);
/* The last error message of b ("" if none). */
const char *devo_batch_errmsg(const devo_batch *b);
/* Adds solver s as the next trial (index devo_batch_size() before the call). s is borrowed and
 * must outlive the batch's use of it. DEVO_OK, DEVO_E_INVALID (s NULL, more than DEVO_BATCH_MAX
 * trials), DEVO_E_NOMEM, DEVO_E_STATE (the batch is solving). */
int devo_batch_add(devo_batch *b, devo_solver *s);
/* Trials added so far (0 for NULL). */
int devo_batch_size(const devo_batch *b);
/* Trials at once, 1 .. 1024 (default 1; more threads than trials are not started). DEVO_OK,
 * DEVO_E_INVALID, DEVO_E_STATE. */
int devo_batch_set_threads(devo_batch *b, int threads);
/* fn may be NULL (none); ud is borrowed. DEVO_OK, DEVO_E_INVALID, DEVO_E_STATE. */
int devo_batch_set_done(devo_batch *b, devo_batch_done_fn fn, void *ud);
/* Runs every trial (see above). Returns DEVO_OK when every trial ran and ended with a valid best
 * (each trial's reason: devo_batch_status); else the lowest trial's error when a trial failed (the
 * batch's message names the trial; the other trials still ran); else DEVO_INTERRUPTED
 * (devo_batch_interrupt) or DEVO_STOPPED_BY_CALLBACK (the done callback) when the batch was
 * stopped; DEVO_E_INVALID (no trials, a solver added twice), DEVO_E_STATE (a solver is running,
 * or the batch is), DEVO_E_NOMEM (threads that cannot start). May be called again: every trial
 * runs anew. */
int devo_batch_solve(devo_batch *b);
/* Asks a solving batch to stop: running trials end at their next check (DEVO_INTERRUPTED), trials
 * not yet begun are not run. Safe from any thread and from a signal handler (one atomic store).
 * The flag is cleared when devo_batch_solve returns; one set before the call stops every trial
 * before it begins. */
void devo_batch_interrupt(devo_batch *b);
/* What devo_solve returned for the trial in the last devo_batch_solve; DEVO_OK (0) for a trial
 * that was not run (the batch was stopped first); DEVO_E_INVALID for a bad index. */
int devo_batch_status(const devo_batch *b, int trial);
/* The trial's group (0 .. devo_batch_groups() - 1, numbered in the order of their first trials)
 * in the last devo_batch_solve, or -1; and the number of groups. */
int devo_batch_group(const devo_batch *b, int trial);
int devo_batch_groups(const devo_batch *b);

/* Islands (the island model of Izzo, Rucinski and Biscani 2010, "The generalized island model",
 * in pagmo's words). With devo_solver_set_islands(s, K, G, topology), K > 1, devo_solve runs K
 * populations of the solver's DE ("islands") as one run on the solver's `threads` threads (one
 * island per thread at a time), and after every generation g with g % G == 0 (unless the run ends
 * at g) migrates:
 *  - migrants: each island's best individual (the lowest fitness, the lowest index on ties),
 *    all taken before any is put (selection policy "select_best", one migrant);
 *  - topology RING: island k's best goes to island (k + 1) mod K; FULL (pagmo's
 *    "fully_connected"): island k receives the single best of all the other islands (the lowest
 *    island index on ties);
 *  - replacement: the migrant takes the place of the receiving island's worst individual (the
 *    highest fitness, the lowest index on ties) when it is better (lower fitness), with its
 *    fitness (not evaluated again: migration costs no evaluations); otherwise the island is left
 *    as it was (pagmo's "fair_replace"). The replaced individual's jDE F_i and CR_i stay.
 * Island k draws with the seed devo_island_seed(seed, k) (island 0: the solver's seed), so a run
 * depends on (seed, K, G, topology), never on threads or on how islands are spread over processes.
 * Stopping rules: max_evals is the total over all islands (each island gets max_evals / K,
 * rounded down, which must be >= NP; L-SHADE's schedule reads that share); max_generations,
 * the target, the time limit and interrupts apply to all islands. Islands advance in lockstep
 * stretches up to the next migration: when an island reaches the target, the others still finish
 * that stretch (so the result does not depend on timing); generations in devo_stats counts the
 * islands' generations, evaluations all islands' together. The progress callback is called between
 * stretches (best: over all islands). devo_solver_best gives the best over all islands;
 * devo_solver_population, devo_solver_jde_state and devo_solver_shade_state answer for the island
 * that holds it. With K = 1 devo_solve is the plain solve. Backends: AUTO takes the CPU; GPU runs
 * every island on the calling thread's GPU (the fused design: one launch of the batch kernel
 * advances all islands between migrations where it takes them, else they run one after another;
 * migrants are written into the islands' device populations), each island computing what it
 * computes on the CPU, so the result is the CPU's wherever the GPU solve is the CPU's
 * (docs/gpu.md); the naive design (DEVO_GPU_NAIVE) runs the islands' DE on the CPU. JADE, SHADE and
 * L-SHADE islands on the GPU's fused or multikernel design are refused (DEVO_E_INVALID: its SHADE
 * kernels cannot take migrants). */
enum { DEVO_TOPOLOGY_RING = 0, DEVO_TOPOLOGY_FULL = 1 };
#define DEVO_ISLANDS_MAX                4096
#define DEVO_MIGRATION_INTERVAL_DEFAULT 50
/* islands 1 .. DEVO_ISLANDS_MAX (default 1), interval 1 .. 2^32 - 2 generations (default
 * DEVO_MIGRATION_INTERVAL_DEFAULT), topology DEVO_TOPOLOGY_* (default RING). DEVO_OK,
 * DEVO_E_INVALID with a message, DEVO_E_STATE during a solve. */
int devo_solver_set_islands(devo_solver *s, int islands, int64_t interval, int topology);
/* The solver's island settings (each pointer may be NULL). s must not be NULL. */
void devo_solver_get_islands(const devo_solver *s, int *islands, int64_t *interval, int *topology);
/* The seed of island k: seed + k * 0x9E3779B97F4A7C15 (mod 2^64); island 0 has seed itself. */
uint64_t devo_island_seed(uint64_t seed, int island);
/* The island whose best island `island` of `islands` receives in a migration (the rule above);
 * best holds every island's best value (needed for FULL only; may be NULL for RING). -1 when
 * there is none (islands < 2, island out of range, unknown topology). Thread-safe. */
int devo_migration_source(int topology, int islands, int island, const double *best);

/* The islands as a handle, for a caller that drives the migration itself, e.g. an MPI program
 * with the islands spread over ranks: each rank creates islands first .. first + count - 1 of the
 * template's K, steps them, gathers every island's migrant (value and vector) through its own
 * communicator and puts into each of its islands the migrant of devo_migration_source. The result
 * is that of devo_solve with K islands, bit for bit, when the steps end at the migrations:
 *   start; loop { step(G); stop?; gather all migrants; put each island's } ; finish.
 * Each island is a solver with the template's problem and options (copied at creation; the
 * template may change or go afterwards), its seed from devo_island_seed with its global index,
 * one thread, no progress callback, max_evals / K evaluations (used by L-SHADE's schedule only:
 * the handle applies no generation or evaluation limit; the caller stops). The handle's islands
 * run on the template's `threads` threads. Thread-safety: one thread at a time, except
 * devo_islands_interrupt. */
typedef struct devo_islands devo_islands;
/* DEVO_OK, DEVO_E_INVALID (out or tmpl NULL, the template running, islands outside 0 .. K - 1,
 * a GPU backend other than the naive design; err says which), DEVO_E_NOMEM. err: caller's buffer
 * (may be NULL). alloc: NULL for malloc/free. */
int devo_islands_create(devo_islands **out, const devo_solver *tmpl, int first, int count,
                        const devo_allocator *alloc, char *err, size_t errlen);
/* Frees the handle and its islands. NULL is a no-op. */
void devo_islands_destroy(devo_islands *isl);
const char *devo_islands_errmsg(const devo_islands *isl);
/* Makes and evaluates every island's initial population (the time limit counts from here).
 * DEVO_OK, or an island's error (devo_solve's; the message names the island), DEVO_E_STATE
 * (started already). */
int devo_islands_start(devo_islands *isl);
/* Advances every island ngens generations (1 .. 2^32 - 2 in all), in parallel, without migrating.
 * Returns DEVO_OK when each did them all; DEVO_TARGET_REACHED when an island's best reached the
 * template's target (that island stopped at that generation, the others did all ngens);
 * DEVO_TIME_LIMIT or DEVO_INTERRUPTED when the deadline or an interrupt cut the step short (the
 * generation under way is dropped); an island's error; DEVO_E_STATE (not started). */
int devo_islands_step(devo_islands *isl, int64_t ngens);
/* Local island k's (0 .. count - 1) migrant: its best value and vector (dim doubles; either
 * pointer may be NULL). DEVO_OK, DEVO_E_INVALID, DEVO_E_STATE. */
int devo_islands_migrant(devo_islands *isl, int k, double *f, double *x);
/* Puts migrant x (dim doubles) with value f (its objective value, not evaluated again) into
 * local island k by the replacement rule above; *replaced (may be NULL) = 1 when it took the
 * worst's place. DEVO_OK, DEVO_E_INVALID (bad k, x NULL, f NaN), DEVO_E_STATE. */
int devo_islands_put(devo_islands *isl, int k, double f, const double *x, int *replaced);
/* The exchange of the rule above among the handle's islands, when it holds all K (count == K;
 * DEVO_E_STATE otherwise: the exchange is the caller's); K = 1: nothing. */
int devo_islands_migrate(devo_islands *isl);
/* generation: the islands' generations; evaluations: the handle's islands together; best: the
 * best over them; elapsed: seconds since devo_islands_start. DEVO_OK, DEVO_E_INVALID,
 * DEVO_E_STATE. */
int devo_islands_progress(const devo_islands *isl, devo_progress *out);
/* The population size now of the handle's islands together: what their next generation costs in
 * evaluations (NP each; L-SHADE's linear reduction shrinks it). A caller spreading the islands
 * over processes sums it over them for the evaluation limit (devo_solve stops before a generation
 * of all islands would pass max_evals, and ends a stretch early at (max_evals - evaluations) / this
 * sum generations). 0 when isl is NULL or not started. */
int64_t devo_islands_np(const devo_islands *isl);
/* Ends the run: every island's statistics and best are final (devo_islands_solver), with status
 * (> 0: why the caller stopped, e.g. DEVO_GEN_LIMIT) as their devo_stats.status. DEVO_OK,
 * DEVO_E_INVALID (status <= 0), DEVO_E_STATE (not started). start may follow again. */
int devo_islands_finish(devo_islands *isl, int status);
/* Stops a step at the islands' next check (DEVO_INTERRUPTED). Safe from any thread and from a
 * signal handler; cleared by devo_islands_finish. */
void devo_islands_interrupt(devo_islands *isl);
/* Local island k's solver (borrowed; NULL for a bad k), to read after devo_islands_finish:
 * devo_solver_best, devo_solver_stats, devo_solver_population, ... */
devo_solver *devo_islands_solver(devo_islands *isl, int k);

/* ---- the scheduling pipeline (devo schedule as a library call) ---------------------------- */

/* Where the schedule returned by devo_schedule_run came from. */
enum {
  DEVO_SCHED_FROM_HEURISTIC = 0,    /* a classic heuristic, unchanged */
  DEVO_SCHED_FROM_HEURISTIC_LS = 1, /* a heuristic schedule improved by devo_etc_local_search */
  DEVO_SCHED_FROM_DE = 2,           /* DE's best */
  DEVO_SCHED_FROM_DE_LS = 3,        /* DE's best, improved by the final local search */
  DEVO_SCHED_FROM_ILS = 4,          /* the best of the above, improved by iterated local search */
  DEVO_SCHED_FROM_IG = 5,           /* a heuristic schedule improved by the iterated greedy */
  DEVO_SCHED_FROM_ENUMERATION = 6   /* the optimum found by enumerating every assignment */
};

/* The search of devo_schedule_run (devo_schedule_opts.search). */
enum {
  DEVO_SEARCH_AUTO = 0,     /* IG for lambda = 1 (the makespan), else the DE pipeline */
  DEVO_SEARCH_PIPELINE = 1, /* heuristics, local search, DE, iterated local search (steps 1-6) */
  DEVO_SEARCH_IG = 2,       /* heuristics, then the makespan search of problems/etc_vnd.c on
                               threads (makespan only: lambda must be 1) */
  DEVO_SEARCH_GPU_LS = 3    /* heuristics, then the GPU-resident search of kernels/
                               gpu_sched_ls.cu (hundreds of chains, one block each: moves and
                               swaps off the critical machine scanned in parallel, perturbations
                               and DE; makespan only). Runs on the GPU when backend = GPU (call
                               devo_gpu_warmup first: the GPU's start-up otherwise falls inside
                               the limit), else, or when the GPU cannot run it, IG on the CPU
                               (r->backend says which). steps and chains count as for IG (chains
                               0: as many as the device keeps resident, at most 1024); the
                               answer's source is DEVO_SCHED_FROM_IG */
};

/* Options of devo_schedule_run; devo_schedule_opts_init sets the defaults given here. */
typedef struct devo_schedule_opts {
  double time_limit;    /* wall-clock seconds counted from the call (monotonic clock), finite and
                           > 0; default 1. Everything happens inside it (see devo_schedule_run). */
  double lambda;        /* makespan weight of the objective, [0, 1]; default 0.75 (1 = makespan) */
  int order;            /* DEVO_ORDER_*; default DEVO_ORDER_FCFS */
  int heuristic;        /* -1 (default): search; a DEVO_HEUR_* value: that heuristic alone */
  int seeds;            /* DEVO_ETC_SEED_*: initial population; default DEVO_ETC_SEED_LOCAL */
  int polish;           /* 1 (default): local search on DE's best in the time DE leaves; 0: no */
  double ils_share;     /* share of the search time (after the seeds) kept for iterated local
                           search on the best answer, [0, 1); default 0.8; 0 = none (DE gets the
                           time); needs polish = 1 */
  int np;               /* DE population, 4 .. 10,000,000; default 64 */
  double f, cr;         /* DE weights, (0, 2] and [0, 1]; defaults 0.5 and 0.9. np, f, cr and
                           threads are checked by every call, also where DE does not run */
  uint64_t seed;        /* random seed; default 1 */
  int threads;          /* CPU worker threads, 1 .. 1024; default 1 */
  int backend;          /* DEVO_BACKEND_*; default CPU. AUTO takes the GPU only when one is usable
                           and at least 2 s are left for DE: the first GPU use of a process took
                           0.2 to 1.1 s on an H100. With GPU in a process that has not used the GPU
                           yet, call devo_gpu_available() first (devo schedule does it on a thread
                           of its own): otherwise that start-up falls inside DE's budget */
  devo_variant variant; /* DE's variant (strategy, crossover, jDE, GOBL); default
                           devo_variant_init's; checked by every call */
  devo_progress_fn progress; /* optional progress callback of DE (non-zero return stops DE and
                                skips the final local search) and of the iterated local search
                                after each round (generation = evaluations = rounds, best = its
                                objective; non-zero ends it); r->status is then
                                DEVO_STOPPED_BY_CALLBACK; NULL = none */
  void *progress_ud;         /* borrowed, passed to progress */
  /* optional stop flag (NULL = none), borrowed: when *interrupt becomes non-zero the call ends
     at its next check in every step (the heuristics look every few rows of their O(n^2 m)
     passes, the local search every few hundred candidates, DE at the checks of
     devo_interrupt, the iterated local search every round) and returns the best complete
     schedule so far with r->status = DEVO_INTERRUPTED. Made to be set from a signal handler
     (a volatile sig_atomic_t store is async-signal-safe); another thread may set it too. An
     interrupt before the first schedule exists still gets one: the first of the one-pass
     heuristics (MCT, O(nm)) always finishes, and a single --heuristic cut short has its
     unmapped tasks mapped by MCT. The call never writes *interrupt. */
  const volatile sig_atomic_t *interrupt;
  /* issue 19: the iterated-greedy search (IG). With IG the progress callback is called from
     the calling thread at each merge of the chains (generation = evaluations = steps per
     chain so far). */
  int search;    /* DEVO_SEARCH_*; default AUTO */
  int64_t steps; /* IG steps per chain (destroy, greedy reinsertion, local search), >= 0;
                    0 (default) = until the deadline. With steps > 0 the search ends after that
                    many steps (or at the deadline, whichever comes first), the heuristics are
                    not cut short by the 20% share (only by the deadline), and the answer is
                    the same on every run and thread count for a fixed seed and chains,
                    provided the deadline does not end it first (r->status DEVO_OK, not
                    DEVO_TIME_LIMIT). Needs search = IG or AUTO with lambda = 1. */
  int chains;    /* IG chains, 0 .. 4096; 0 (default) = the larger of threads and 4. The
                    answer depends on the chain count, not on the thread count: fix it for
                    answers that do not depend on threads. At most 64 threads run chains. */
  double gap;    /* relative gap at which the search ends, [0, 1]; default 0 (until the deadline,
                    or a proven optimum): it ends as soon as the objective is <= lower_bound *
                    (1 + gap) (r->status DEVO_GAP_REACHED), like a MIP solver's relative gap */
  int gpus;      /* the GPUs of the GPU search (search GPU_LS, or AUTO when it picks it): 0
                    (default) = the calling thread's current device; N in 1 .. DEVO_GPUS_MAX =
                    devices 0 .. N - 1, one search each with its own chains (as many as each
                    keeps resident with chains 0) and seed, their best schedules exchanged every
                    few launches (docs/scheduling.md, "Several GPUs"); DEVO_GPUS_ALL = every
                    visible device (at most DEVO_GPUS_MAX). A count above the visible devices
                    (looked at unless backend is CPU), or any other value, is DEVO_E_INVALID
                    (r->message says which); where no device is visible the search falls back
                    to the CPU as it does for one GPU.
                    With steps the answer is the same on every run for a fixed seed, chains
                    and gpus (unless the deadline comes first); r->ils_rounds and
                    r->candidates count every GPU's chains */
} devo_schedule_opts;

/* devo_schedule_opts.gpus: every visible CUDA device. */
#define DEVO_GPUS_ALL (-1)
/* devo_schedule_opts.gpus: the most devices of one search. */
#define DEVO_GPUS_MAX 64

/* What devo_schedule_run did. */
typedef struct devo_schedule_result {
  double makespan, flowtime, objective; /* of the returned assignment (devo_etc_evaluate) */
  int64_t evaluations; /* DE's schedule evaluations, or the heuristics run when DE did not run */
  int64_t generations; /* DE generations (0 without DE) */
  int64_t ls_moves;    /* local-search steps kept: seeds and final polish together */
  int64_t ils_rounds;  /* perturbation + local search rounds of step 5, or IG steps (all
                          chains together) */
  int64_t candidates;  /* IG: neighbourhood candidates evaluated, all chains together */
  int de_ran;          /* 1 when DE ran */
  int status;          /* why the search ended, the first that applies of: DEVO_INTERRUPTED
                          (o->interrupt), DEVO_STOPPED_BY_CALLBACK (the progress callback),
                          DEVO_OK (a single o->heuristic ran to its end), DEVO_ENUMERATED
                          (every assignment of a tiny instance was evaluated: the answer is
                          optimal), DEVO_OPTIMAL (objective <= lower_bound * (1 + 1e-12 +
                          rounding): optimal within rounding, see lower_bound),
                          DEVO_GAP_REACHED (o->gap > 0 and gap <= o->gap), DEVO_OK (the IG
                          search did its o->steps before the deadline), DEVO_TIME_LIMIT (its
                          time was used up: the normal end, also when DE had no time to run) */
  int source;          /* DEVO_SCHED_FROM_* of the returned assignment */
  int heuristic;       /* DEVO_HEUR_* behind a FROM_HEURISTIC(_LS) answer, else -1 */
  int backend;         /* DEVO_BACKEND_CPU or _GPU that ran DE; -1 without DE */
  double elapsed;      /* seconds from the call to its return */
  char message[256];   /* one line about the failure when the call returns an error, else "" */
  double jde_mean_f, jde_mean_cr; /* jDE's mean F_i and CR_i over DE's final population; NaN
                                     without jDE or when DE did not run */
  /* A lower bound on the objective of every schedule (as devo_etc_evaluate computes it,
     rounding included; docs/scheduling.md, "Lower bound"): for the makespan (lambda = 1) the
     largest of the ready times, of the tasks' smallest completion times and of the LP
     relaxation's dual values; for lambda < 1, lambda times that plus (1 - lambda) / m times a
     bound on the flowtime; the optimum itself when every assignment was evaluated. 0 when the
     call returned an error, or when a lone o->heuristic (or an interrupt) ended after the
     deadline: no time was left for it. An answer with objective <= lower_bound * (1 + 1e-12 +
     (8 ntasks + 4 nmach + 16) 2^-53) is optimal within rounding (DEVO_OPTIMAL). */
  double lower_bound;
  double gap; /* (objective - lower_bound) / lower_bound, >= 0: the answer is at most this
                 share above the optimum; infinity when lower_bound is 0 */
  int search; /* the DEVO_SEARCH_* that ran after the heuristics: PIPELINE, IG, or GPU_LS when
                 it ran on the GPU (GPU_LS asked for without a GPU runs IG on the CPU: IG
                 here); -1 when none ran (a lone o->heuristic, or an answer already optimal
                 or within o->gap after the heuristics and the enumeration) */
} devo_schedule_result;

/* Fills o with the defaults above. o must not be NULL. Thread-safe. */
void devo_schedule_opts_init(devo_schedule_opts *o);

/* The search devo_schedule_run runs for o on an instance of ntasks x nmach when gpu_ready (1: the
 * GPU is usable now, and o->backend is GPU): o->search unless it is AUTO, else the rule of AUTO,
 * its thresholds in one place (engine/schedule.c, from the measurements of BENCHMARKS.md): the
 * DE pipeline for lambda < 1; for the makespan GPU_LS on a ready GPU for 512 to 4096 tasks on 16
 * or more machines with a limit of 1 s or more when o->threads < 16, or of 10 s or more whatever
 * the threads; IG otherwise. Returns a DEVO_SEARCH_* other than AUTO; PIPELINE for a NULL o.
 * Pure: thread-safe. */
int devo_schedule_search_for(const devo_schedule_opts *o, int ntasks, int nmach, int gpu_ready);

/* Seconds of a scheduling limit below which the GPU is not worth starting: the first GPU use of
 * a process (driver and context creation) took 0.2 to 1.1 s on the lent H100 (BENCHMARKS.md).
 * devo_schedule_run's DEVO_BACKEND_AUTO probes the GPU only with at least this much left, and
 * devo schedule warms the GPU up beside reading its input only from this limit on. */
#define DEVO_SCHED_GPU_MIN_S 2.0

/* "auto", "pipeline", "ig", "gpu-ls" for a DEVO_SEARCH_* value (the names of devo schedule
 * --search and devo serve's "search"); NULL for any other. Static storage; thread-safe. */
const char *devo_schedule_search_name(int search);

/* The time-bounded anytime scheduler of `devo schedule`, for resource managers that link devo:
 * matrix in memory in, assignment out. With the IG search (o->search = IG, or AUTO with
 * lambda = 1; issue 19): step 1 below, then the makespan search of problems/etc_vnd.c
 * (annealing at the LP relaxation's machine prices with iterated-greedy steps; docs/
 * scheduling-search.md) from the best heuristic schedule (on the CPU, o->chains chains on
 * o->threads threads; the GPU is not used) until the deadline or o->steps steps per chain; the
 * answer is the better of the two (r->source FROM_IG or FROM_HEURISTIC), r->ils_rounds counts the
 * steps and r->candidates the neighbourhood candidates; r->status is DEVO_TIME_LIMIT (the deadline
 * ended it), DEVO_OK (o->steps done), DEVO_INTERRUPTED (o->interrupt, read every 2048 candidates)
 * or DEVO_STOPPED_BY_CALLBACK. The deadline promise below holds the same (the search reads the
 * clock every 2048 candidates, about 20 us). Otherwise (the DE pipeline), steps, all inside
 * o->time_limit:
 *  1. the six classic heuristics (or only o->heuristic, which then is the answer, no search, and
 *     always runs to its end, O(n^2 m) for Min-min, Max-min and Sufferage: minutes from about
 *     10^5 tasks): OLB, MET and MCT always, then Min-min, Sufferage and Max-min, each dropped
 *     if the first 20% of the limit pass before it ends (2 to 3 ms each at 512x16);
 *  2. with seeds = DEVO_ETC_SEED_LOCAL, each heuristic schedule improved by
 *     devo_etc_local_search (bounded to the first 30% of the limit);
 *  3. DE (devo_solve) seeded with those schedules (distinct ones; none with SEED_NONE), until
 *     the time left minus a reserve for step 4 and the solve's allowed overrun; skipped when
 *     less than 2 ms would be left;
 *  4. with polish = 1, devo_etc_local_search on DE's best;
 *  5. with polish = 1 and ils_share > 0, iterated local search (Lourenco, Martin and Stuetzle
 *     2003) from the best schedule so far until the deadline: reassign 2 to 6 random tasks to
 *     random other machines (Philox draws from o->seed), devo_etc_local_search, keep the result
 *     when it is not worse; DE then runs in the first (1 - ils_share) of the time after step 2;
 *  6. the answer: the best by the objective of all the schedules above (with SEED_NONE, DE's
 *     best when DE ran, so that plain DE can be measured).
 * With both searches, right after step 1: the lower bound r->lower_bound (with the machine
 * prices of the makespan search, computed once for both), and on tiny instances (nmach^ntasks
 * <= 10^6) the optimum by enumerating every assignment, unless that takes more than 30% of the
 * limit (then r->source FROM_ENUMERATION when it found a better schedule, r->status
 * DEVO_ENUMERATED when it ended). Every step after it ends as soon as the best answer is proven
 * optimal or within o->gap of the bound (r->status DEVO_OPTIMAL, DEVO_GAP_REACHED;
 * docs/scheduling.md, "Lower bound, gap and stopping").
 * Returns at the latest about 1 ms after the deadline on instances of the Braun size (the
 * local search reads the clock every few hundred candidates; DE keeps devo_solve's promise).
 * e: borrowed, only read. assign: caller's array of ntasks ints, receives the schedule.
 * r: receives the result (also on error: message). Re-entrant: no state outside the call;
 * concurrent calls on the same e are safe (e is only read).
 * Returns DEVO_OK (the answer is valid, whatever ended the search: see r->status), or
 * DEVO_E_INVALID (NULL argument, a bad option; r->message says which), DEVO_E_NOMEM,
 * DEVO_E_NODEVICE / DEVO_E_CUDA (GPU backend requested and failed), DEVO_E_INTERNAL. */
int devo_schedule_run(const devo_etc *e, const devo_schedule_opts *o, int *assign,
                      devo_schedule_result *r);

/* ---- the deadline budget of a scheduling call --------------------------------------------- */

/* A caller with a deadline must keep some of it back from devo_schedule_run for what comes after
 * the search: the timeline, writing the answer, giving memory back and, for a program, its own
 * exit. devo_schedule_budget says how much, with the margins measured for `devo schedule` and
 * `devo serve` (which both use it; engine/budget.c gives each margin's measurement), and the rest
 * of their deadline rules: when to stop waiting for the input and for the GPU, when a search is
 * no longer worth starting, and when an answer is late. */

/* What is written per task after the search (devo_budget_opts.answer). */
enum {
  DEVO_ANSWER_ASSIGNMENT = 0, /* each task's machine ("task,machine" lines): 0.2 us per task */
  DEVO_ANSWER_TIMES = 1       /* with each task's start and finish (devo_etc_timeline; CSV, JSON
                                 with the schedule): 2 us per task */
};

/* A caller's deadline and what it still has to do after the search. Zero-initialise it, then
 * set start, time_limit and the fields that apply. Times are seconds of CLOCK_MONOTONIC
 * (clock_gettime), the clock of devo_read_limits.deadline. */
typedef struct devo_budget_opts {
  double start;      /* the moment time_limit counts from (the process's start, a request's
                        arrival), finite, >= 0. For an absolute deadline D alone: start = now,
                        time_limit = D - now */
  double time_limit; /* seconds from start to the deadline, > 0 and <= 1e9 */
  double now;        /* the moment the search starts, > 0; 0 = read the clock in the call */
  int ntasks, nmach; /* the instance's size; 0 and 0 before it is known (only the parts that do
                        not depend on it count then) */
  int answer;        /* DEVO_ANSWER_*: what is written per task */
  int value_bytes;   /* bytes per matrix value given back after the answer and before the
                        deadline: 8 (sizeof(double)) when the devo_etc is freed or unmapped at
                        the process's exit, 0 when the memory is kept (0 .. 64): 0.3 ms per MB */
  int exits;         /* 1: the process ends right after the answer, inside the deadline (6 ms
                        kept back for its end, instead of 1 ms for a caller that goes on) */
  int backend;       /* DEVO_BACKEND_CPU or DEVO_BACKEND_GPU: where the search runs; with
                        exits = 1 the GPU's context is torn down at exit (150 ms kept back) */
} devo_budget_opts;

/* The budget: absolute times are seconds of CLOCK_MONOTONIC, like start. */
typedef struct devo_budget {
  double search;      /* devo_schedule_opts.time_limit for a search that starts at now: the time
                         from now to the deadline less reserve, at least 1e-6 (so that the
                         heuristics still answer when nothing is left) */
  double reserve;     /* seconds kept back after the search: a fixed part (6 ms with exits, else
                         1 ms), a part per task (answer), per byte (value_bytes) and the GPU's
                         exit */
  double input_by;    /* absolute: reading the input counts inside the deadline and must end by
                         then (devo_read_limits.deadline): start + time_limit less the fixed part
                         of reserve, not before start */
  double gpu_wait_by; /* absolute: a search that wants a GPU still starting (devo_gpu_available
                         on another thread) waits at most until then, half the limit after start,
                         and searches on the CPU after it */
  double start_by;    /* absolute: a search that cannot start by then (3 ms before the deadline)
                         is not worth starting: answer with one heuristic (DEVO_HEUR_MCT, O(nm))
                         instead */
  double slack;       /* seconds: an answer later than the deadline + slack (5 ms) missed it */
} devo_budget;

/* Fills *b from o: the share of the deadline for devo_schedule_run and the rules above. The
 * share is monotone: never larger for more tasks, machines, value bytes, times written, an
 * exiting process, the GPU or a later now. Pure arithmetic on its arguments (with one clock read
 * when o->now is 0): thread-safe. err: caller's buffer for a one-line message (may be NULL).
 * Returns DEVO_OK, or DEVO_E_INVALID (o or b NULL, or a field outside the range given above: err
 * says which; *b unchanged). */
int devo_schedule_budget(const devo_budget_opts *o, devo_budget *b, char *err, size_t errlen);

/* ---- schedules for resource managers: names, times, sources ------------------------------- */

/* Longest task or machine name, in bytes (UTF-8), without the terminating NUL. */
#define DEVO_ETC_MAX_NAME 255
/* Flag OR-ed into devo_etc_read's format (CSV only): the first column of every row holds the
 * task's name (any text, numbers too), and a header row's first field labels that column (not
 * kept). Without the flag, names are taken when every data row starts with a field that is not
 * a number (a header row is one with no number in it); a file where some rows start with a name
 * and others with a number is refused. A header row gives the machine names in both cases. */
#define DEVO_ETC_TASK_NAMES 0x100

/* Names of the tasks (ntasks strings) and of the machines (nmach strings), copied; either
 * array may be NULL, which removes those names, and an entry may be NULL, which leaves that one
 * task or machine without a name (a CSV header's empty field does the same). A name is 1 ..
 * DEVO_ETC_MAX_NAME bytes of valid UTF-8 without control characters (below 0x20, or 0x7f), so that
 * every output can quote it; names are not required to be unique. Memory through e's allocator.
 * Returns DEVO_OK, DEVO_E_INVALID (e NULL, a bad name: err says which; e unchanged), DEVO_E_NOMEM
 * (e unchanged). */
int devo_etc_set_names(devo_etc *e, const char *const *task_names, const char *const *machine_names,
                       char *err, size_t errlen);
/* The name of task t or machine j (borrowed, valid until the names change or e is destroyed),
 * or NULL when e has none or the index is out of range. Thread-safe (only reads e). */
const char *devo_etc_task_name(const devo_etc *e, int t);
const char *devo_etc_machine_name(const devo_etc *e, int j);

/* Start and finish times (seconds, or whatever unit the matrix uses) of every task of an
 * assignment, each machine starting at its ready time and running its tasks back to back in
 * the order (DEVO_ORDER_FCFS: task index order; DEVO_ORDER_SPT: shortest first, ties by task
 * index). The sums are taken in the fixed order of problems/etc.h: c = W_j, then c = c + e for
 * the machine's tasks in run order, start = c before the addition, finish = c after it. So the
 * flowtime of devo_etc_evaluate is the sum of these finish times (machine by machine), and under
 * FCFS the largest finish time is its makespan bit for bit; under SPT the makespan is summed in
 * task index order and may differ from the largest finish in the last bits. start, finish:
 * caller's arrays of ntasks doubles (either may be NULL). Scratch through e's allocator
 * (n + m + 1 doubles for SPT, none for FCFS). Thread-safe for distinct outputs. Returns DEVO_OK,
 * DEVO_E_INVALID (NULL e or assign, a machine index out of range, bad order), DEVO_E_NOMEM. */
int devo_etc_timeline(const devo_etc *e, const int *assign, int order, double *start,
                      double *finish);

/* "heuristic", "heuristic+ls", "de", "de+ls", "ils", "ig", "enumeration" for a
 * DEVO_SCHED_FROM_* value; NULL for any other. Static storage; thread-safe. */
const char *devo_schedule_source_name(int source);

#ifdef __cplusplus
}
#endif

#endif /* DEVO_H */
