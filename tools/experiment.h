/* SPDX-License-Identifier: MIT */
/* experiment.h: the spec of `devo experiment` (docs/experiment.md), its strict parser, the
 * mapping of a spec's algorithm onto solver options, and the spec hash that guards resuming.
 * Shared by tools/cli_spec.c (parser) and tools/cmd_experiment.c (runner). */
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
  uint64_t hash;
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

#endif /* DEVO_EXPERIMENT_H */
