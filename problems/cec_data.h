/* SPDX-License-Identifier: MIT */
/* cec_data.h: the catalogue of the CEC functions F01..F10 and their data (shift vectors,
 * rotation matrices, shuffles): read from the official input files, or generated from a seed.
 * Host code (problems/cec_data.c); the evaluation itself is in cec.h. */
#ifndef DEVO_CEC_DATA_H
#define DEVO_CEC_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../engine/include/devo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest dimension the generator accepts: data is O(ncomp D^2) doubles and the
 * orthogonalisation O(D^3) flops. */
#define DEVO__CEC_MAX_DIM 10000

/* "cec2017:f3" .. "cec2017:f26" as listed in the catalogue, or "F01".."F10" (case-insensitive)
 * -> 1..10; anything else -> 0. */
int devo__cec_find(const char *name);
/* Number of CEC functions (10). */
int devo__cec_count(void);
/* Catalogue entry idx (0..9) in devo.h's struct (static strings). DEVO_OK or DEVO_E_INVALID. */
int devo__cec_builtin(int idx, devo_builtin_info *out);
/* F* of function id 1..10 (NAN for a bad id). */
double devo__cec_fstar(int id);
/* Shift rows and matrices of function id (3..5 for compositions, 1 otherwise; 0 for a bad id). */
int devo__cec_ncomp(int id);
/* The smallest D from which every dimension works with generated data: 2 for the simple and
 * composition functions; for the hybrids the smallest D from which every group ceil(p_k D) is
 * non-empty: F05 5, F06 8, F07 12. Some smaller D work too (F07: 5, 8, 9, 10), see
 * devo__cec_dim_ok; 0 for a bad id. */
int devo__cec_min_dim(int id);
/* 1 when function id is defined at dim (2 <= dim <= DEVO__CEC_MAX_DIM and, for hybrids, no
 * empty group), else 0. */
int devo__cec_dim_ok(int id, int dim);

/* Makes the data of function id at dimension dim. Allocates through al (NULL = malloc/free):
 * *shift (ncomp * dim), *rot (ncomp * dim * dim, row-major), *shuffle (dim 0-based indices;
 * NULL for non-hybrids). dir != NULL: the official files (dir holding cec2017/ and cec2014/, or
 * the files of the function's suite directly); dim must be 10, 30, 50 or 100. dir == NULL: the
 * data generated from data_seed (see cec_data.c). Returns DEVO_OK, DEVO_E_INVALID (bad id, dim,
 * output pointer), DEVO_E_NOMEM, DEVO_E_IO ("path: cannot open: reason"), DEVO_E_PARSE
 * ("path:line: reason"); err (may be NULL) gets the message. On failure nothing stays allocated
 * and the outputs are NULL. */
int devo__cec_make(int id, int dim, uint64_t data_seed, const char *dir, const devo_allocator *al,
                   double **shift, double **rot, int **shuffle, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* DEVO_CEC_DATA_H */
