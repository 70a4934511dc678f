/* SPDX-License-Identifier: MIT */
/* stats.h: the statistics of `devo rank`: ranks with ties averaged over keys ordered worst to
 * best, Janssen et al.'s U-score, the two-sided Mann-Whitney U (Wilcoxon rank-sum) test and the
 * Friedman test, each as SciPy 1.10 computes it (stats.rankdata, stats.mannwhitneyu with
 * method 'auto', stats.friedmanchisquare); tests/test_rank.c checks them against SciPy's values.
 * Pure functions; nothing prints. */
#ifndef DEVO_STATS_H
#define DEVO_STATS_H

/* A trial's place in the order: a higher cls is better whatever v says (reached the target),
 * then a higher v is better (v = -time for trials that reached the target, -error else). */
typedef struct st_key {
  int cls;
  double v;
} st_key;

/* rank[i] = the rank of k[i] among the n keys, 1 = worst, ties given their average rank.
 * *tie_term (may be NULL) = sum over groups of equal keys of t^3 - t. 0, or -1 out of memory. */
int st_rank(const st_key *k, int n, double *rank, double *tie_term);

/* Two-sided Mann-Whitney U of sample a against sample b (na, nb >= 1). u1: the U of a (a pair
 * counts 1 when a's trial is better, 1/2 when tied), so u1 > na * nb / 2 means a tends to be
 * better. Exact (the null distribution counted) when na <= 8 or nb <= 8 and there are no ties,
 * as SciPy's 'auto' does, and when the count fits a long double; otherwise the normal
 * approximation with the tie correction and the continuity correction. */
typedef struct st_mwu {
  double u1, p;
  int exact;
} st_mwu;
int st_mannwhitney(const st_key *a, int na, const st_key *b, int nb, st_mwu *out);

/* Friedman's chi-square (with SciPy's tie correction) of k treatments over nb blocks: x holds
 * nb rows of k values, higher = better. mean_rank (k values): the treatment's mean rank over
 * the blocks, 1 = best. df = k - 1; p from the chi-square law. 0, or -1 (nb < 2, k < 2, or out of
 * memory). */
typedef struct st_friedman {
  double chi2, p;
  int df;
} st_friedman;
int st_friedman_test(const double *x, int nb, int k, double *mean_rank, st_friedman *out);

/* P(X > x) for X ~ chi-square with df degrees of freedom (regularized upper incomplete gamma). */
double st_chi2_sf(double x, double df);

#endif /* DEVO_STATS_H */
