/* SPDX-License-Identifier: MIT */
/* experiment.h: the spec of `devo experiment` (docs/experiment.md), its strict parser, the
 * mapping of a spec's algorithm onto solver options, the spec hash that guards resuming, and what
 * keeps results files whole (one writer, no trial twice, parts of one spec). Shared by
 * tools/cli_spec.c (parser), tools/cli_results.c (results files), tools/cmd_experiment.c (runner)
 * and tools/cmd_rank.c. */
#ifndef DEVO_EXPERIMENT_H
#define DEVO_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/include/devo.h"

#define EXP_NAME_MAX   64
#define EXP_PARAMS_MAX 16
#define EXP_LIST_MAX   4096 /* entries of one list (problems, dims, np, seeds) */

/* One "key = value" of an [algorithm NAME] section, kept as written (line for messages). */
typedef struct exp_param {
  char key[EXP_NAME_MAX];
  char val[EXP_NAME_MAX];
  int line;
} exp_param;

typedef struct exp_algo {
  char name[EXP_NAME_MAX];
  int line;
  exp_param params[EXP_PARAMS_MAX];
  int nparams;
  char desc[EXP_PARAMS_MAX * 2 * EXP_NAME_MAX]; /* "f=0.5;cr=0.9" (the CSV's params column) */
} exp_algo;

/* Backends of the grid, Janssen et al.'s implementation models: the standard CPU (1 thread), the
 * GPU's fused design (All-GPU iDE), the GPU's one-kernel-per-step design (All-GPU DE), the
 * master-slave CPU (the CPU backend on `threads` threads: trials built and evaluated on all of
 * them; the same populations as 1 thread, bit for bit), the naive GPU (DEVO_GPU_NAIVE: DE on one
 * CPU thread, each generation evaluated on the GPU). */
enum {
  EXP_BK_CPU = 0,
  EXP_BK_GPU = 1,
  EXP_BK_GPU_MULTI = 2,
  EXP_BK_CPU_MS = 3,
  EXP_BK_GPU_NAIVE = 4,
  EXP_BK_COUNT = 5
};
/* Budget forms: none, a fixed count, factor * D, a table D -> count. */
enum { EXP_BUDGET_NONE = 0, EXP_BUDGET_FIXED = 1, EXP_BUDGET_PER_D = 2, EXP_BUDGET_TABLE = 3 };

typedef struct exp_spec {
  const char *path; /* the spec file (borrowed) */
  exp_algo *algos;
  int nalgos;
  char (*problems)[EXP_NAME_MAX];
  int nproblems;
  int *dims, ndims;
  int *nps, nnps;
  uint64_t *seeds;
  int nseeds;
  int backends[EXP_BK_COUNT], nbackends;
  int threads; /* of cpu-ms; default: the online processors */
  int budget_kind;
  int64_t budget;               /* FIXED: the count; PER_D: the factor */
  int64_t *budget_d, *budget_n; /* TABLE: pairs */
  int nbudget;
  double target;     /* error; NAN = none */
  double time_limit; /* seconds; 0 = none */
  uint64_t data_seed;
  char *cec_data; /* NULL = generated data */
  char *output, *trace;
  int output_line, trace_line, last_line;
  char protocol[EXP_NAME_MAX];
  int protocol_trials; /* --trials: the protocol's trial count instead of its own; 0 = its own */
  int64_t max_gens;    /* generations per trial; 0 = none */
  /* the search box of every problem (devo solve's --ranges, --lower, --upper): the ranges'
   * name, and each side as one value (nlower = 1) or one per coordinate of a single D; NULL /
   * 0 = the function's */
  char *ranges;
  double *lower, *upper;
  int nlower, nupper;
  int ranges_line, box_line; /* the lines of ranges and of lower (else upper), for messages */
  uint64_t hash;
  int shard, nshards; /* this run's part K of N (--shard K/N, set by the command); 0 = all */
} exp_spec;

/* Reads and checks the spec at path. protocol: --protocol's value or NULL. trials: --trials's
 * value (seeds 1..trials instead of the protocol's 30; only with a protocol) or 0. out_override:
 * --out's value or NULL (then the spec must name an output). On error: 2 and "file:line: what"
 * in err (nothing else to free: the spec is released). */
int exp_spec_load(const char *path, const char *protocol, int trials, const char *out_override,
                  exp_spec *s, char *err, size_t errlen);
void exp_spec_free(exp_spec *s);

/* Evaluations allowed for dimension D (0: no budget). */
int64_t exp_budget(const exp_spec *s, int dim);
/* "cpu", "gpu", "gpu-multikernel", "cpu-ms", "gpu-naive" */
const char *exp_backend_name(int backend);
/* Number of trials of the grid. */
int64_t exp_grid_size(const exp_spec *s);

/* The one place where a spec's algorithm becomes solver options: each parameter of a in order,
 * through the table in cli_spec.c (today rand1bin's f and cr, the strategy "rand1bin" and the
 * bounds rule; NP is a grid axis, set by the caller). Returns DEVO_OK, or the setter's error
 * with "file:line: key: library message" in err (*bad: the parameter's index). */
int exp_algo_apply(devo_solver *s, const exp_algo *a, const char *file, int *bad, char *err,
                   size_t errlen);

/* Problem pr of the grid at dimension dim with the spec's search box (ranges, lower, upper) into
 * *out: DEVO_OK, or the library's error with "what: message" in err (nothing to free then) and
 * in *line the spec's line to name (the box key's; 0 when the problem itself failed). */
int exp_problem_make(const exp_spec *s, int pr, int dim, devo_problem **out, int *line, char *err,
                     size_t errlen);

/* ---- results files (tools/cli_results.c) --------------------------------------------------- */

/* The first line of a results or trace file: "# devo experiment VERSION spec=PATH hash=H\n". */
void exp_header_line(char *buf, size_t len, const char *spec_path, uint64_t hash);
/* The hash H of such a line: 0, or -1 when line (may be NULL) is not one. */
int exp_header_hash(const char *line, uint64_t *h);

/* Shards (devo experiment --shard K/N, docs/experiment.md): trial number t of the grid (its
 * fixed order) belongs to shard t mod N + 1. The maximum N: */
#define EXP_SHARDS_MAX 100000
/* The shard's second line of a results or trace file: "# shard K/N\n". */
void exp_shard_line(char *buf, size_t len, int k, int n);
/* K and N of such a line: 0, or -1 when line (may be NULL) is not one. */
int exp_shard_parse(const char *line, int *k, int *n);
/* "K/N" (--shard's value, 1 <= K <= N <= EXP_SHARDS_MAX) into *k, *n: 0, or -1. */
int exp_shard_value(const char *v, int *k, int *n);
/* The file of shard K of N: path with ".K-of-N" before its extension (results.csv ->
 * results.3-of-8.csv; no extension: appended). NULL when out of memory. */
char *exp_shard_path(const char *path, int k, int n);

/* One writer per file: path opened for reading and writing (created when absent: *created = 1)
 * and locked by this process until the descriptor *fd is closed or the process ends (a kill -9
 * too: an OS lock, nothing left behind). Returns 0; 2 with "PATH: in use by process N ..." in err
 * when another process holds it; -1 with errno when the file cannot be opened. A file system
 * without locks gives 0 with a warning in err (err[0] is 0 otherwise). */
int exp_lock_open(const char *path, int *fd, int *created, char *err, size_t errlen);
/* The same lock on an open descriptor (writable) of path: 0 (warning in err as above) or 2. */
int exp_lock_fd(int fd, const char *path, char *err, size_t errlen);
/* Takes again the part of the lock that names this process to the others: a POSIX lock, which
 * the process loses whenever it closes any descriptor of the file (the lock that keeps the
 * others out stays). */
void exp_lock_mark(int fd);

/* The one check of a set of results files: one file, the parts of one study (devo rank A B ...),
 * the shards of one spec. Every file comes with its first line, then its trials; a trial is
 * (algorithm, NP, backend, problem, D, seed) and may appear once in the whole set. */
typedef struct exp_trialset exp_trialset;
/* nfiles: how many files will be given (above 1 each must name its spec hash); NULL out of
 * memory. */
exp_trialset *exp_trialset_new(int nfiles);
void exp_trialset_free(exp_trialset *t);
/* The next file, its first line (NULL when it has none): 0, or 2 with the one-line refusal in err
 * (a part of another spec, or a part that names none), -1 out of memory. */
int exp_trialset_file(exp_trialset *t, const char *file, const char *first_line, char *err,
                      size_t errlen);
/* A trial of the current file at line: 0, 1 when the set has it already (err names both
 * places: "FILE:LINE: trial ... again (first at FILE:LINE)"), -1 out of memory. */
int exp_trialset_add(exp_trialset *t, long line, const char *alg, int np, const char *backend,
                     const char *problem, int dim, uint64_t seed, char *err, size_t errlen);
/* A comment line of the current file (after its first): when it is a shard line, the file is
 * that shard. 0 (not one, or a new shard), 2 with the one-line refusal in err (a second shard
 * line in the file, the same shard twice, shards of another count N), -1 out of memory. */
int exp_trialset_comment(exp_trialset *t, long line, const char *text, char *err, size_t errlen);
/* After the last file: 0 when the set is whole, 2 with the refusal in err when shards are
 * missing (named) or shards come with a file of no shard. */
int exp_trialset_end(exp_trialset *t, char *err, size_t errlen);

#endif /* DEVO_EXPERIMENT_H */
