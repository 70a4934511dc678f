/* SPDX-License-Identifier: MIT */
/* soco_table.c: soco-table, the reference table of docs/soco.md: f of every SOCO 2010
 * function (soco:f1..f19) at D = 50 (--dim), data seed 1 (--data-seed), computed by the CPU code
 * at four points: the optimum o, the origin, the lower corner (L, ..., L) and the upper corner
 * (U, ..., U) of the function's box. tests/test_soco.c (reference_table) checks the same points
 * against an independent long double implementation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"
#include "bench/bench_util.h"

static const char usage[] =
    "usage: soco-table [--dim D] [--data-seed S]\n"
    "\n"
    "The reference table of docs/soco.md: f of soco:f1..f19 at the optimum,\n"
    "the origin and the box corners, D = 50, data seed 1, by the CPU code.\n";

int main(int argc, char **argv)
{
  int dim = 50, id, k, j;
  uint64_t seed = 1;
  const bench_opt opts[] = {BENCH_INT_OPT("dim", &dim, 8, 1000000),
                            BENCH_U64_OPT("data-seed", &seed)};
  if ((k = bench_args("soco-table", usage, argc, argv, opts, BENCH_NOPTS(opts), NULL)) != BENCH_GO)
    return k;
  double *x = (double *)malloc((size_t)dim * sizeof(double)),
         *o = (double *)malloc((size_t)dim * sizeof(double));
  if (!x || !o) {
    fprintf(stderr, "soco-table: out of memory\n");
    return 1;
  }
  printf("| function | box | f* | f(o) | f(0) | f(L, ..., L) | f(U, ..., U) |\n");
  printf("|---|---|---:|---:|---:|---:|---:|\n");
  for (id = 1; id <= 19; ++id) {
    devo_problem *p = NULL;
    char name[16];
    double lo, hi, f[4];
    snprintf(name, sizeof name, "soco:f%d", id);
    if (devo_problem_create(&p, NULL) != DEVO_OK ||
        devo_problem_set_builtin(p, name, dim, seed, NULL) != DEVO_OK ||
        devo_problem_optimum(p, o) != DEVO_OK || devo_problem_bounds(p, &lo, &hi) != DEVO_OK) {
      fprintf(stderr, "soco-table: %s: %s\n", name, p ? devo_problem_errmsg(p) : "out of memory");
      return 1;
    }
    for (k = 0; k < 4; ++k) {
      for (j = 0; j < dim; ++j)
        x[j] = k == 0 ? o[j] : k == 1 ? 0.0 : k == 2 ? lo : hi;
      if (devo_problem_eval(p, x, &f[k]) != DEVO_OK) {
        fprintf(stderr, "soco-table: %s: evaluation failed\n", name);
        return 1;
      }
    }
    printf("| %s | [%g, %g] | %g | %.17g | %.17g | %.17g | %.17g |\n", name, lo, hi,
           devo_problem_fstar(p), f[0], f[1], f[2], f[3]);
    devo_problem_destroy(p);
  }
  free(x);
  free(o);
  return 0;
}
