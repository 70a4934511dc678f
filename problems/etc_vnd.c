/* SPDX-License-Identifier: MIT */
/* etc_vnd.c: the makespan search of devo_schedule_run (issue 19): machine prices from the LP
 * relaxation, then chains that anneal moves and swaps against a load target at those prices,
 * with an iterated-greedy step (destroy, reinsert, variable-neighbourhood descent) every
 * IG_EVERY-th step, merged at fixed step counts so that a step budget gives the same answer on
 * any thread count, and a last descent on the best.
 *
 * Start (price_machines): multiplicative weights on the machine prices of the LP relaxation's
 * dual; the chains start from the schedule where every task is on its cheapest machine at the
 * prices (near the LP optimum, before balancing), their best from the caller's schedule (the
 * best heuristic). Annealing (sa_step): see there. Measured against the iterated greedy alone
 * (the search before, one chain, 1 s, seed 1, loaded 2-core development machine, 2026-11-24):
 * u_c_hihi 5.63% -> 0.47% above the best-known, u_i_hilo 1.34% -> 0.19%, u_s_lohi 3.42% ->
 * 0.61%, u_s_hihi 8.38% -> 2.04% (0.30% with the IG step every 128th step).
 *
 * Local search (vnd), each step around the critical machine c (the largest load, lowest index on
 * ties), the first neighbourhood that has an improving candidate wins, steepest within it:
 *  (a) move a task of c to another machine; (b) swap a task of c with a task of another machine
 *      (the insertion and interchange neighbourhoods of the unrelated-parallel-machine
 *      literature, e.g. Fanjul-Peyro & Ruiz, "Iterated greedy local search methods for unrelated
 *      parallel machine scheduling", EJOR 207(1):55-69, 2010);
 *  (a') a move of any task to a machine where it runs faster, staying below the critical load
 *      (Fanjul-Peyro & Ruiz's acceptance of moves that shorten the two machines' total without
 *      exceeding the makespan): the potential (makespan, machines at it, total load) falls;
 *  (c) an ejection chain of two moves: a task of c to machine j and a task of j to a third
 *      machine k, which escapes the optima of (a) + (b) where j is too full to take anything
 *      (ejection chains, Glover, Discrete Applied Mathematics 65:223-253, 1996; cyclic and path
 *      transfers, Thompson & Orlin, MIT ORC report 1989; for makespan on parallel machines,
 *      Frangioni, Necciari & Scutella, J. Combinatorial Optimization 8:195-220, 2004).
 * A candidate is judged by the larger of the new loads of the machines it changes (O(1) from the
 * kept loads: etc_delta.h); it is taken when that is below c's load: the makespan falls, or a
 * plateau of several machines at the makespan shrinks by one, while (a') keeps both and lowers
 * the total load. So (makespan, machines at it, total load) falls lexicographically at every
 * step (by a relative margin of VND_REL_GAP, above the rounding), and the descent ends.
 *
 * Iterated greedy (Ruiz & Stuetzle, EJOR 177:2033-2049, 2007; for unrelated machines
 * Fanjul-Peyro & Ruiz 2010): remove d = 2..6 random tasks, put each, in the order drawn, on the
 * machine other than its own where it completes first, descend, and accept the result by a
 * constant-temperature test: always when not worse, else with probability exp(-delta / T), T of
 * Ruiz & Stuetzle's form, Tf * (sum of processing times) / (n * m * 10), taken over each task's
 * shortest time (sum_t min_j etc[t][j] / (n * 10): on unrelated machines the mean over all machines
 * counts the slow ones a schedule never uses), Tf = 0.1. Measured (single runs, 800 steps, one
 * chain, seed 1, on the loaded development machine): the plain greedy reinsertion often put a task
 * back where it came from (u_c_hihi 7.95e6 at 1 s); random other machines gave 7.85e6
 * (u_c_hihi), 4.47e6 (u_s_hihi), 74230 (u_i_hilo); the best other machine 7.72e6, 4.38e6, 74182;
 * random among the three fastest 7.73e6, 4.43e6, 74392. Tf = 0, 0.1 and 0.4 were within the noise
 * of single runs.
 *
 * Chains and determinism: chain q draws from Philox (seed, slot, step, q, DEVO__RNG_IG); every
 * epoch steps the chains stop, the best of all (lowest makespan, lowest chain on ties) becomes
 * every other chain's current schedule (the chain that found it goes on from where it is), the
 * targets follow it, and they go on. Tried at 3 s (u_c_hihi, u_s_hihi, u_s_lohi, u_c_hilo, one
 * seed; mean gap 0.45% with this merge): pulling only chains more than 0.2% or 1% behind the
 * best (0.43%, 0.50%), restarting the other chains from the priced schedule every 1024 or 4096
 * steps (0.49%, 0.48%): none clearly better. Which thread runs a chain does not matter, so
 * with a step budget (and no deadline reached) the answer depends only on the seed, the chain
 * count and the budget. Under a deadline, how far each chain got varies with the machine.
 * The makespan each chain compares is recomputed after every step in task order (etc.h's order,
 * so devo_etc_evaluate's exact number): the merge and the acceptance never depend on the drift
 * of incremental loads. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "../engine/internal.h"
#include "devo_alloc.h"
#include "etc_delta.h"
#include "etc_vnd.h"
#include "philox.h"

/* Candidates between two looks at the clock: a few ns each, so well under 0.1 ms. */
#define VND_CLOCK_EVERY 2048
/* Tasks removed per step: IG_DMIN .. IG_DMIN + IG_DSPAN - 1, drawn (the 2 to 6 tasks of the
 * issue-5 iterated local search, which measured well on the Braun instances). */
#define IG_DMIN  2
#define IG_DSPAN 5
/* Ruiz & Stuetzle's temperature factor. */
#define IG_TFACTOR 0.1
/* The annealing step (sa_step): moves per step, the weight of the priced work against the
 * overflow, the temperature as a share of the mean priced time per task, the target as a share
 * below the best makespan. Measured on the Braun instances at 1 s, one chain (single runs on the
 * loaded development machine, 2026-11-24): beta 1 and temperature 0.2 to 0.5 were best of
 * beta 0.1 .. 10 and 0.01 .. 0.5 (u_c_hihi 0.44% .. 0.51% above the best-known, u_s_hihi 2.0%;
 * beta 3: 0.5% .. 1.0% and 2.1% .. 4.0%; beta 0.1: 5.5% and 4.3%). At 3 s neither a cyclic
 * temperature (from 2x down to 0.1x the base over 200 or 2000 steps) nor a target 0.3% or 0.03%
 * below the best was better than these (u_c_hihi, u_s_lohi, u_i_hihi, one seed); nor were
 * prices adapted per chain to its loads after every step (mu_j exp(w_j), w_j decaying by 5% and
 * growing by eta (L_j - T) / T: mean gap 0.64% with eta 1 and 1.08% with eta 5, against 0.45%,
 * on u_c_hihi, u_s_hihi, u_s_lohi, u_c_hilo at 3 s). */
#define SA_MOVES 1024
/* Every IG_EVERY-th step of a chain is an iterated-greedy step (ig_step) instead: the
 * annealing alone stalled on the hihi instances where a few huge tasks fill the slow machines
 * (u_s_hihi at 2.04% above the best-known on every seed: no single move or swap of two random
 * tasks frees the critical machine), the descent's ejection chains leave it. Measured (1 s, one
 * chain, all 12 Braun instances, seed 2, loaded development machine): every 32nd step: mean gap
 * 0.65%, worst 1.12%; every 128th: mean 0.43%, worst 0.77%; every 8th: fewer steps and worse
 * on u_c_hihi and u_i_lohi; never: u_s_hihi 2.04%, u_i_hihi 0.9% .. 2.0%. */
#define IG_EVERY   128
#define SA_BETA    1.0
#define SA_TFACTOR 0.5
/* Chain q anneals at SA_TFACTOR * SA_TSPREAD^(-(q mod 4) / 3): 0.5, 0.40, 0.31, 0.25 of the base
 * (the merges share the best, so each instance gets the temperature that suits it): at 3 s on
 * u_c_hihi, u_s_hihi, u_s_lohi, u_c_hilo (one seed) the mean gap fell from 0.45% (all at 0.5)
 * to 0.38% (spread 2; 0.41% with spread 4; all at 0.25: 0.44%, u_s_lohi 0.96%); at 1 s on all
 * 12 instances from a mean of 0.34% to 0.27%, the largest from 0.61% to 0.50%. */
#define SA_TSPREAD 2.0
#define SA_DT      0.001
/* Pricing: multiplicative-weight rounds; at most PRICE_CELLS cells (tasks x machines) of work in
 * all, so large instances get fewer rounds (286 at 8192 x 128; about 1.5e9 cells/s on the
 * development machine), and the caller's deadline cuts them short. 500 rounds: 2 ms at 512x16.
 * The step starts at PRICE_ETA and grows by PRICE_UP after a round that raised the dual value,
 * shrinks by PRICE_DOWN after one that did not, never above PRICE_ETA_MAX (nor an exponent above
 * PRICE_XMAX: no price overflows); the prices start inverse to the machines' total times.
 * Against the LP relaxation's optimum (HiGHS through SciPy 1.17.1, scripts/lp_bound.py), the dual
 * value fell short by: 4096 x 64 (etc-gen, seed 1, the 12 classes) mean 0.001%, at most 0.006%
 * at 115 rounds (with equal starting prices and a step PRICE_ETA / (1 + 0.002 round), the pricing
 * before: 1.07% to 3.24% on the four consistent classes, whose prices must span the machines'
 * speeds, a factor up to 1000); the 12 Braun instances mean 0.003%, at most 0.012% (before:
 * 0.005%, 0.022%). Other factors tried (up 1.05 to 1.3, down 0.5 to 0.8, start step 0.02 to 1):
 * within 0.01% of these from 0.02 to 0.1, worse beyond (up 1.3: 1.2% short on one class). At
 * 8192 x 128 (u_s_hihi, seed 2) 30 rounds were 0.93% short, 120 0.17%, 250 0.002%: hence
 * PRICE_CELLS 3e8, not the 3e7 of before. Ending the rounds once the step fell below 1e-4 (17
 * rounds in a row without a raise: 72 to 130 rounds on these instances) kept the dual value
 * within 0.0002%, but not the search's answers: 1 s on u_i_hihi, 16 seeds, median 0.55% above
 * the best-known against 0.30% after 500 rounds (the prices differ where the dual is flat). */
#define PRICE_ROUNDS  500
#define PRICE_ETA     0.05
#define PRICE_UP      1.1
#define PRICE_DOWN    0.7
#define PRICE_ETA_MAX 1.0
#define PRICE_XMAX    50.0
#define PRICE_CELLS   3e8
/* A candidate must lower the critical load by this share of it, beyond the rounding of
 * incrementally kept loads (loads are rebuilt exactly after every step). */
#define VND_REL_GAP 1e-12

typedef struct chain {
  const double *etc, *ready;
  int n, m;
  int *assign;  /* n: current schedule (the search state) */
  int *next;    /* n: next task on the same machine, -1 at the end */
  int *prev;    /* n */
  int *head;    /* m: first task of each machine, -1 when empty */
  int *cnt;     /* m */
  double *load; /* m */
  int *cur;     /* n: the accepted schedule */
  double cur_ms;
  int *best; /* n: this chain's best */
  double best_ms;
  int *removed;        /* IG_DMIN + IG_DSPAN */
  int *k3;             /* 3n: best_three's machines */
  int *sw_id, *sw_seg; /* n, m + 1: scan_swaps's layout */
  double *sw_a, *sw_b; /* n each */
  int stale;           /* the state does not hold cur (a rejected step) */
  double temp;
  const double *mu; /* m: machine prices (devo__etc_ig's pricing), shared, read only */
  double target;    /* the annealing's load target: overflow above it is penalised */
  double sa_temp;   /* the annealing's temperature (time units) */
  devo__philox_keys keys;
  uint64_t seed;
  uint32_t id;
  int64_t steps, candidates, improved, clock_at;
  double deadline;
  const volatile sig_atomic_t *interrupt; /* borrowed, may be NULL */
  int timed_out;                          /* the deadline passed or the interrupt came */
} chain;

static int out_of_time(chain *s)
{
  if (s->candidates >= s->clock_at) {
    s->clock_at = s->candidates + VND_CLOCK_EVERY;
    if ((s->deadline > 0.0 && devo__now() >= s->deadline) || (s->interrupt && *s->interrupt))
      s->timed_out = 1;
  }
  return s->timed_out;
}

static void unlink_task(chain *s, int t)
{
  const int j = s->assign[t];
  if (s->prev[t] >= 0)
    s->next[s->prev[t]] = s->next[t];
  else
    s->head[j] = s->next[t];
  if (s->next[t] >= 0)
    s->prev[s->next[t]] = s->prev[t];
  s->cnt[j]--;
  s->load[j] -= s->etc[(size_t)t * s->m + j];
}

/* The list order inside a machine does not matter for the makespan; new tasks go first. */
static void link_task(chain *s, int t, int j)
{
  s->assign[t] = j;
  s->prev[t] = -1;
  s->next[t] = s->head[j];
  if (s->head[j] >= 0)
    s->prev[s->head[j]] = t;
  s->head[j] = t;
  s->cnt[j]++;
  s->load[j] += s->etc[(size_t)t * s->m + j];
}

static void move_task(chain *s, int t, int j)
{
  unlink_task(s, t);
  link_task(s, t, j);
}

/* Loads in task order (etc.h's summation order: the exact makespan); returns the makespan. */
static double exact_loads(chain *s)
{
  int t, j;
  double ms;
  for (j = 0; j < s->m; ++j)
    s->load[j] = s->ready[j];
  for (t = 0; t < s->n; ++t)
    s->load[s->assign[t]] += s->etc[(size_t)t * s->m + s->assign[t]];
  ms = s->load[0];
  for (j = 1; j < s->m; ++j)
    if (s->load[j] > ms)
      ms = s->load[j];
  return ms;
}

/* Rebuilds lists and loads from a (n ints); returns the makespan. */
static double load_schedule(chain *s, const int *a)
{
  int t, j;
  for (j = 0; j < s->m; ++j) {
    s->head[j] = -1;
    s->cnt[j] = 0;
  }
  for (t = s->n - 1; t >= 0; --t)
    link_task(s, t, a[t]);
  return exact_loads(s);
}

/* The critical machine and the three largest loads (lowest index on ties). */
static int critical(const chain *s, int top[3])
{
  int j, q, k;
  top[0] = top[1] = top[2] = -1;
  for (j = 0; j < s->m; ++j) {
    for (q = 0; q < 3; ++q)
      if (top[q] < 0 || s->load[j] > s->load[top[q]])
        break;
    if (q < 3) {
      for (k = 2; k > q; --k)
        top[k] = top[k - 1];
      top[q] = j;
    }
  }
  return top[0];
}

/* (a): the best move of a task of c; *bt < 0 when none lowers the critical load below lim. */
static double scan_moves(chain *s, int c, double lim, int *bt, int *bj)
{
  const int m = s->m;
  double best = lim;
  int t, j;
  *bt = -1;
  for (t = s->head[c]; t >= 0; t = s->next[t]) {
    const double *row = s->etc + (size_t)t * m, lc = s->load[c] - row[c];
    for (j = 0; j < m; ++j) {
      double lj = s->load[j] + row[j], pair;
      if (j == c)
        continue;
      pair = lc > lj ? lc : lj;
      if (pair < best) {
        best = pair;
        *bt = t;
        *bj = j;
      }
    }
    s->candidates += m - 1;
    if (out_of_time(s))
      return best;
  }
  return best;
}

/* (a'): the move of any task that saves the most machine time (etc on its machine minus etc
 * on the new one) among those whose new machine stays below lim: the makespan and the number
 * of machines at it stay, the total load falls (the acceptance of Fanjul-Peyro & Ruiz 2010,
 * which takes moves that shorten the two machines' total without exceeding the makespan; it
 * packs tasks onto their fast machines and so makes room that later moves off the critical
 * machine can use). */
static int scan_compact(chain *s, double lim, int *bt, int *bj)
{
  const int m = s->m;
  double best = 0.0;
  int t, j;
  *bt = -1;
  for (t = 0; t < s->n; ++t) {
    const double *row = s->etc + (size_t)t * m;
    const int a = s->assign[t];
    const double pa = row[a];
    for (j = 0; j < m; ++j) {
      const double gain = pa - row[j];
      if (gain > best && s->load[j] + row[j] < lim && gain > VND_REL_GAP * pa) {
        best = gain;
        *bt = t;
        *bj = j;
      }
    }
    s->candidates += m;
    if (out_of_time(s))
      break;
  }
  return *bt >= 0;
}

/* (b): the best swap of a task of c with a task of another machine. The other machines' tasks
 * are first laid out per machine in flat arrays (their etc on c, their machine's load without
 * them), so the inner loop reads two contiguous arrays: a candidate costs about a nanosecond. */
static double scan_swaps(chain *s, int c, double lim, int *bt, int *bu)
{
  const int m = s->m;
  double best = lim;
  int t, u, j, i, bi = -1;
  *bt = -1;
  for (j = 0, i = 0; j < m; ++j) {
    s->sw_seg[j] = i;
    if (j == c)
      continue;
    for (u = s->head[j]; u >= 0; u = s->next[u], ++i) {
      const double *urow = s->etc + (size_t)u * m;
      s->sw_id[i] = u;
      s->sw_a[i] = urow[c];
      s->sw_b[i] = s->load[j] - urow[j];
    }
  }
  s->sw_seg[m] = i;
  for (t = s->head[c]; t >= 0; t = s->next[t]) {
    const double *row = s->etc + (size_t)t * m, lc0 = s->load[c] - row[c];
    for (j = 0; j < m; ++j) {
      const double pj = row[j];
      const int end = s->sw_seg[j + 1];
      if (j == c)
        continue;
      for (i = s->sw_seg[j]; i < end; ++i) {
        const double lc = lc0 + s->sw_a[i], lj = s->sw_b[i] + pj;
        const double pair = lc > lj ? lc : lj;
        if (pair < best) {
          best = pair;
          *bt = t;
          bi = i;
        }
      }
    }
    s->candidates += s->n - s->cnt[c];
    if (out_of_time(s))
      break;
  }
  if (*bt >= 0)
    *bu = s->sw_id[bi];
  return best;
}

/* For every task u off c, the three machines where it would complete first (load + etc, lowest
 * index on ties): the best third machine of a chain through u's machine j is the first of them
 * that is neither c nor j, so a chain costs O(1) instead of O(m). */
static void best_three(chain *s, int c)
{
  const int m = s->m;
  int u, k, q, i;
  for (u = 0; u < s->n; ++u) {
    const double *urow = s->etc + (size_t)u * m;
    int *b = s->k3 + 3 * (size_t)u;
    double v[3];
    if (s->assign[u] == c)
      continue;
    b[0] = b[1] = b[2] = -1;
    v[0] = v[1] = v[2] = 0.0;
    for (k = 0; k < m; ++k) {
      const double x = s->load[k] + urow[k];
      for (q = 0; q < 3; ++q)
        if (b[q] < 0 || x < v[q])
          break;
      if (q < 3) {
        for (i = 2; i > q; --i) {
          b[i] = b[i - 1];
          v[i] = v[i - 1];
        }
        b[q] = k;
        v[q] = x;
      }
    }
    s->candidates += m;
    if (out_of_time(s))
      return;
  }
}

/* (c): t from c to j, then u from j to k (k != c, j): the best such chain. */
static double scan_chains(chain *s, int c, double lim, int *bt, int *bu, int *bk)
{
  const int m = s->m;
  double best = lim;
  int t, u, j, q;
  *bt = -1;
  best_three(s, c);
  if (s->timed_out)
    return best;
  for (t = s->head[c]; t >= 0; t = s->next[t]) {
    const double *row = s->etc + (size_t)t * m, lc = s->load[c] - row[c];
    for (j = 0; j < m; ++j) {
      const double lj1 = s->load[j] + row[j];
      if (j == c)
        continue;
      for (u = s->head[j]; u >= 0; u = s->next[u]) {
        const double *urow = s->etc + (size_t)u * m, lj = lj1 - urow[j];
        const int *b = s->k3 + 3 * (size_t)u;
        double pair = lc > lj ? lc : lj, lk;
        int k = -1;
        if (!(pair < best))
          continue;
        for (q = 0; q < 3 && k < 0; ++q)
          if (b[q] >= 0 && b[q] != c && b[q] != j)
            k = b[q];
        if (k < 0)
          continue; /* m = 2: no third machine */
        lk = s->load[k] + urow[k];
        if (lk > pair)
          pair = lk;
        if (pair < best) {
          best = pair;
          *bt = t;
          *bu = u;
          *bk = k;
        }
      }
      s->candidates += s->cnt[j];
      if (out_of_time(s))
        return best;
    }
  }
  return best;
}

/* Descends to a local optimum of (a), (b), (c) or the deadline. */
static void vnd(chain *s)
{
  int top[3], c, t = -1, u = -1, j = -1, k = -1;
  while (!out_of_time(s)) {
    double lim;
    c = critical(s, top);
    lim = s->load[c] - VND_REL_GAP * s->load[c];
    scan_moves(s, c, lim, &t, &j);
    if (t >= 0) {
      move_task(s, t, j);
      continue;
    }
    if (s->timed_out)
      break;
    if (scan_compact(s, lim, &t, &j)) {
      move_task(s, t, j);
      continue;
    }
    scan_swaps(s, c, lim, &t, &u);
    if (t >= 0) {
      j = s->assign[u];
      move_task(s, t, j);
      move_task(s, u, c);
      continue;
    }
    if (s->timed_out)
      break;
    scan_chains(s, c, lim, &t, &u, &k);
    if (t < 0)
      break;
    j = s->assign[u];
    move_task(s, u, k);
    move_task(s, t, j);
  }
}

/* One iterated-greedy step: destroy, reinsert greedily, descend, accept. */
static void ig_step(chain *s)
{
  const int n = s->n, m = s->m;
  const uint32_t step = (uint32_t)s->steps;
  devo__u32x4 w = devo__rng(s->seed, 0u, step, s->id, DEVO__RNG_IG);
  const int d = IG_DMIN + (int)devo__below(w.v[0], IG_DSPAN);
  int q, nr = 0, j;
  double ms;
  if (s->stale)
    load_schedule(s, s->cur);
  s->stale = 0;
  for (q = 0; q < d; ++q) {
    devo__u32x4 x = devo__rng(s->seed, 1u + (uint32_t)q / 4u, step, s->id, DEVO__RNG_IG);
    const int t = (int)devo__below(x.v[q % 4], (uint32_t)n);
    int dup = 0, i;
    for (i = 0; i < nr; ++i)
      dup |= s->removed[i] == t;
    if (dup)
      continue;
    unlink_task(s, t);
    s->removed[nr++] = t;
  }
  /* each removed task goes to the machine other than its own where it would complete first
   * (lowest index on ties): greedy as in Fanjul-Peyro & Ruiz, but never back where it was */
  for (q = 0; q < nr; ++q) {
    const int t = s->removed[q], from = s->assign[t]; /* unlink kept it */
    const double *row = s->etc + (size_t)t * m;
    int bj = -1;
    for (j = 0; j < m; ++j)
      if (j != from && (bj < 0 || s->load[j] + row[j] < s->load[bj] + row[bj]))
        bj = j;
    link_task(s, t, bj);
  }
  s->candidates += (int64_t)nr * m;
  vnd(s);
  ms = exact_loads(s);
  s->steps++;
  if (ms <= s->cur_ms || devo__u01(w.v[1], w.v[2]) < exp(-(ms - s->cur_ms) / s->temp)) {
    memcpy(s->cur, s->assign, (size_t)n * sizeof(int));
    s->cur_ms = ms;
    if (ms < s->best_ms) {
      memcpy(s->best, s->assign, (size_t)n * sizeof(int));
      s->best_ms = ms;
      s->improved++;
    }
  } else {
    s->stale = 1;
  }
}

/* One annealing step (issue 19): SA_MOVES random moves (a task to another machine) and swaps
 * (two tasks of different machines), each judged in O(1) by the overflow of the two changed
 * loads above s->target plus SA_BETA times the change of priced work (machine price times
 * time): below the target the search packs tasks onto the machines where they are cheap at the
 * prices of the LP relaxation, above it the overflow drives the loads down to the target. A
 * worse candidate is taken with probability exp(-delta / s->sa_temp) (Kirkpatrick, Gelatt &
 * Vecchi, Science 220:671-680, 1983). Each makespan below the chain's best is kept (exactly
 * recomputed), and the target follows it to SA_DT below. Why a target and prices: the
 * makespan alone is flat (only the critical machine counts), while the dual prices of the LP
 * relaxation of R||Cmax (Lenstra, Shmoys & Tardos, Math. Programming 46:259-271, 1990) say
 * which machine each task should use in a balanced schedule; column pricing on the same
 * relaxation is what reaches the best-known Braun makespans (Gogos et al., FGCS 60:48-66,
 * 2016). The draws of move q of step k of chain c: Philox (seed, 16 + q, k, c, DEVO__RNG_IG). */
static void sa_step(chain *s)
{
  const int n = s->n, m = s->m;
  const uint32_t step = (uint32_t)s->steps;
  const double *mu = s->mu;
  const double temp = s->sa_temp;
  int q, j;
  double ms;
  if (s->stale)
    load_schedule(s, s->cur);
  s->stale = 0;
  for (q = 0; q < SA_MOVES; ++q) {
    const devo__u32x4 w = devo__rng_ks(&s->keys, 16u + (uint32_t)q, step, s->id, DEVO__RNG_IG);
    const int t = (int)devo__below(w.v[0], (uint32_t)n), a = s->assign[t];
    const double *row = s->etc + (size_t)t * m, la = s->load[a];
    double na, nb, d;
    int b, u = -1;
    if (w.v[1] & 1u) { /* move t to b */
      b = (int)devo__below(w.v[2], (uint32_t)m - 1);
      b += b >= a;
      d = devo__etc_sa_move_delta(la, s->load[b], row[a], row[b], mu[a], mu[b], s->target, SA_BETA,
                                  &na, &nb);
    } else { /* swap t with u */
      const double *urow;
      u = (int)devo__below(w.v[2], (uint32_t)n);
      b = s->assign[u];
      if (b == a)
        continue;
      urow = s->etc + (size_t)u * m;
      d = devo__etc_sa_swap_delta(la, s->load[b], row[a], row[b], urow[a], urow[b], mu[a], mu[b],
                                  s->target, SA_BETA, &na, &nb);
    }
    if ((++s->candidates & 255) == 0 && out_of_time(s))
      break; /* one step takes ~0.1 ms at 512x16, more where new bests cost O(n) each */
    if (d > 0.0 && (double)w.v[3] * (1.0 / 4294967296.0) >= exp(-d / temp))
      continue;
    s->assign[t] = b;
    if (u >= 0)
      s->assign[u] = a;
    s->load[a] = na;
    s->load[b] = nb;
    /* the makespan of the new loads; a new best is recomputed exactly before it counts */
    ms = s->load[0];
    for (j = 1; j < m; ++j)
      ms = s->load[j] > ms ? s->load[j] : ms;
    if (ms < s->best_ms) {
      if ((ms = exact_loads(s)) < s->best_ms) {
        memcpy(s->best, s->assign, (size_t)n * sizeof(int));
        s->best_ms = ms;
        s->improved++;
        if (s->target > ms * (1.0 - SA_DT))
          s->target = ms * (1.0 - SA_DT);
      }
      /* a new best costs O(n) (while the makespan falls fast, nearly every accepted candidate
       * is one): read the clock after each, not only every 2048 candidates, where 2048 new
       * bests at 4096x64 would take about 10 ms (the overruns measured on the loaded machine,
       * 4 to 7 ms before and after, came with 20 to 60 preemptions per run: not conclusive) */
      s->clock_at = s->candidates;
      if (out_of_time(s))
        break;
    }
  }
  s->steps++;
  /* the lists of the descent are rebuilt from assign (and the loads exactly) at the next step */
  memcpy(s->cur, s->assign, (size_t)n * sizeof(int));
  s->cur_ms = exact_loads(s);
  s->stale = 1;
}

/* One pricing round's dual value at prices mu summing to 1, sum_t min_j mu_j p_tj + sum_j mu_j
 * W_j (a lower bound on the makespan), with every task on its cheapest machine at mu (arg, may be
 * NULL) and the machines' completions (ready time + load) in comp. */
static double price_round(const devo_etc *e, const double *mu, double *comp, int *arg)
{
  const int n = e->ntasks, m = e->nmach;
  double dual = 0.0;
  int t, j;
  for (j = 0; j < m; ++j) {
    comp[j] = e->ready[j];
    dual += mu[j] * e->ready[j];
  }
  for (t = 0; t < n; ++t) {
    const double *row = e->values + (size_t)t * m;
    int bj = 0;
    double bv = mu[0] * row[0];
    for (j = 1; j < m; ++j)
      if (mu[j] * row[j] < bv) {
        bv = mu[j] * row[j];
        bj = j;
      }
    comp[bj] += row[bj];
    dual += bv;
    if (arg)
      arg[t] = bj;
  }
  return dual;
}

/* Starting prices inverse to each machine's total time, summing to 1: for a matrix of rank one,
 * p_tj = a_t b_j, the LP optimum (every task ties on every machine); consistent instances are
 * near it. Equal prices where a total is not a positive finite number. */
static void price_start(const devo_etc *e, double *mu)
{
  const int n = e->ntasks, m = e->nmach;
  double sum = 0.0;
  int t, j, ok = 1;
  for (j = 0; j < m; ++j)
    mu[j] = 0.0;
  for (t = 0; t < n; ++t)
    for (j = 0; j < m; ++j)
      mu[j] += e->values[(size_t)t * m + j];
  for (j = 0; j < m; ++j) {
    ok = ok && mu[j] > 0.0 && isfinite(mu[j]);
    mu[j] = 1.0 / mu[j];
    sum += mu[j];
  }
  for (j = 0; j < m; ++j)
    mu[j] = ok && sum > 0.0 && isfinite(sum) ? mu[j] / sum : 1.0 / m;
}

/* Machine prices for sa_step by multiplicative weights on the dual of the LP relaxation of
 * R||Cmax (Arora, Hazan & Kale, Theory of Computing 8:121-164, 2012), the step adapted as
 * PRICE_UP says: every task takes the machine where price times time is least, and each machine's
 * price grows with its completion above the mean. Returns the prices of the round with the
 * largest dual value (prices summing to 1: a lower bound on the makespan, *lb, ready times
 * included), scaled to sum to m (so priced times are in time units). arg receives the cheapest
 * machine of each task at those prices. Deterministic: a fixed number of rounds for the size; the
 * deadline cuts it short. */
static void price_machines(const devo_etc *e, double deadline, double *mu, double *best_mu,
                           double *comp, int *arg, double *lb)
{
  const int n = e->ntasks, m = e->nmach;
  const double cells = (double)n * (double)m;
  const int rounds =
      cells * PRICE_ROUNDS > PRICE_CELLS ? (int)(PRICE_CELLS / cells) + 1 : PRICE_ROUNDS;
  double eta = PRICE_ETA, prev = 0.0;
  int k, j;
  price_start(e, mu);
  memcpy(best_mu, mu, (size_t)m * sizeof(double));
  *lb = 0.0;
  for (k = 0; k < rounds; ++k) {
    double dual, mean = 0.0, sum = 0.0;
    /* every round after the first: with up to PRICE_CELLS cells, eight rounds between looks
     * (as before) could run 0.16 s past a short limit on a large instance */
    if (k > 0 && deadline > 0.0 && devo__now() >= deadline)
      break;
    dual = price_round(e, mu, comp, NULL);
    if (dual > *lb) {
      *lb = dual;
      memcpy(best_mu, mu, (size_t)m * sizeof(double));
    }
    if (k > 0)
      eta = fmin(eta * (dual > prev ? PRICE_UP : PRICE_DOWN), PRICE_ETA_MAX);
    prev = dual;
    for (j = 0; j < m; ++j)
      mean += comp[j];
    mean /= m;
    if (!(mean > 0.0))
      break;
    for (j = 0; j < m; ++j) {
      mu[j] *= exp(fmin(eta * (comp[j] - mean) / mean, PRICE_XMAX));
      sum += mu[j];
    }
    for (j = 0; j < m; ++j)
      mu[j] /= sum;
  }
  for (j = 0; j < m; ++j)
    best_mu[j] *= m;
  (void)price_round(e, best_mu, comp, arg);
}

int devo__etc_prices(const devo_etc *e, double deadline, double *mu, int *arg, double *lower_bound)
{
  double *tmp, *load;
  if (!e || !mu || !arg || !lower_bound)
    return DEVO_E_INVALID;
  tmp = (double *)devo__alloc(&e->al, (size_t)e->nmach, sizeof(double));
  load = (double *)devo__alloc(&e->al, (size_t)e->nmach, sizeof(double));
  if (!tmp || !load) {
    devo__free(&e->al, tmp);
    devo__free(&e->al, load);
    return DEVO_E_NOMEM;
  }
  price_machines(e, deadline, tmp, mu, load, arg, lower_bound);
  devo__free(&e->al, tmp);
  devo__free(&e->al, load);
  return DEVO_OK;
}

static void chain_free(const devo_allocator *al, chain *s)
{
  devo__free(al, s->assign);
  devo__free(al, s->next);
  devo__free(al, s->prev);
  devo__free(al, s->head);
  devo__free(al, s->cnt);
  devo__free(al, s->load);
  devo__free(al, s->cur);
  devo__free(al, s->best);
  devo__free(al, s->removed);
  devo__free(al, s->k3);
  devo__free(al, s->sw_id);
  devo__free(al, s->sw_seg);
  devo__free(al, s->sw_a);
  devo__free(al, s->sw_b);
}

static int chain_init(const devo_etc *e, chain *s)
{
  const devo_allocator *al = &e->al;
  const size_t n = (size_t)e->ntasks, m = (size_t)e->nmach;
  memset(s, 0, sizeof *s);
  s->etc = e->values;
  s->ready = e->ready;
  s->n = e->ntasks;
  s->m = e->nmach;
  s->assign = (int *)devo__alloc(al, n, sizeof(int));
  s->next = (int *)devo__alloc(al, n, sizeof(int));
  s->prev = (int *)devo__alloc(al, n, sizeof(int));
  s->head = (int *)devo__alloc(al, m, sizeof(int));
  s->cnt = (int *)devo__alloc(al, m, sizeof(int));
  s->load = (double *)devo__alloc(al, m, sizeof(double));
  s->cur = (int *)devo__alloc(al, n, sizeof(int));
  s->best = (int *)devo__alloc(al, n, sizeof(int));
  s->removed = (int *)devo__alloc(al, IG_DMIN + IG_DSPAN, sizeof(int));
  s->k3 = (int *)devo__alloc(al, 3 * n, sizeof(int));
  s->sw_id = (int *)devo__alloc(al, n, sizeof(int));
  s->sw_seg = (int *)devo__alloc(al, m + 1, sizeof(int));
  s->sw_a = (double *)devo__alloc(al, n, sizeof(double));
  s->sw_b = (double *)devo__alloc(al, n, sizeof(double));
  if (!s->k3 || !s->sw_id || !s->sw_seg || !s->sw_a || !s->sw_b || !s->assign || !s->next ||
      !s->prev || !s->head || !s->cnt || !s->load || !s->cur || !s->best || !s->removed) {
    chain_free(al, s);
    return DEVO_E_NOMEM;
  }
  return DEVO_OK;
}

/* Makes a (n ints, makespan ms) every chain's current schedule. */
static void chain_restart(chain *s, const int *a, double ms)
{
  memcpy(s->cur, a, (size_t)s->n * sizeof(int));
  s->cur_ms = ms;
  if (ms < s->best_ms) {
    memcpy(s->best, a, (size_t)s->n * sizeof(int));
    s->best_ms = ms;
  }
  s->stale = 1;
}

typedef struct worker {
  chain *chains;
  int first, stride, nchains;
  int64_t until; /* run each chain to this many steps */
  pthread_t th;
} worker;

static void *run_worker(void *arg)
{
  worker *w = (worker *)arg;
  int q;
  for (q = w->first; q < w->nchains; q += w->stride) {
    chain *s = &w->chains[q];
    while (s->steps < w->until && !s->timed_out) {
      if ((s->deadline > 0.0 && devo__now() >= s->deadline) || (s->interrupt && *s->interrupt)) {
        s->timed_out = 1;
        break;
      }
      if (s->steps % IG_EVERY == IG_EVERY - 1) {
        ig_step(s);
        if (s->target > s->best_ms * (1.0 - SA_DT))
          s->target = s->best_ms * (1.0 - SA_DT);
      } else
        sa_step(s);
    }
  }
  return NULL;
}

/* Runs every chain to `until` steps on the threads; returns DEVO_OK or DEVO_E_INTERNAL. */
static int run_epoch(chain *ch, int nchains, int threads, int64_t until)
{
  worker w[64];
  int k, started = 0, rc = DEVO_OK;
  if (threads > nchains)
    threads = nchains;
  if (threads > 64)
    threads = 64;
  for (k = 0; k < threads; ++k) {
    w[k].chains = ch;
    w[k].first = k;
    w[k].stride = threads;
    w[k].nchains = nchains;
    w[k].until = until;
  }
  for (k = 1; k < threads; ++k) {
    if (pthread_create(&w[k].th, NULL, run_worker, &w[k]) != 0) {
      rc = DEVO_E_INTERNAL;
      break;
    }
    started = k;
  }
  if (rc == DEVO_OK)
    run_worker(&w[0]);
  for (k = 1; k <= started; ++k)
    pthread_join(w[k].th, NULL);
  return rc;
}

int devo__etc_ig(const devo_etc *e, int *assign, const devo__ig_opts *o, devo__ig_result *r)
{
  const devo_allocator *al;
  chain *ch = NULL;
  double *mu = NULL;
  int *arg = NULL;
  int q, rc = DEVO_OK, nch, done = 0, bq;
  double tsum = 0.0, best_ms, in_ms, arg_ms;
  int64_t until = 0;
  memset(r, 0, sizeof *r);
  if (!e || !assign || !o || o->chains < 1 || o->chains > 4096 || o->threads < 1 || o->steps < 0 ||
      o->epoch < 1 || (o->steps == 0 && !(o->deadline > 0.0)) || !devo__etc_assign_ok(e, assign))
    return DEVO_E_INVALID;
  al = &e->al;
  nch = o->chains;
  ch = (chain *)devo__calloc(al, (size_t)nch, sizeof(chain));
  /* the chains' start: the prices, and every task on its cheapest machine at them (near the
   * LP optimum, before balancing) */
  mu = (double *)devo__alloc(al, (size_t)e->nmach, sizeof(double));
  arg = (int *)devo__alloc(al, (size_t)e->ntasks, sizeof(int));
  if (ch && mu && arg && o->mu) {
    memcpy(mu, o->mu, (size_t)e->nmach * sizeof(double));
    memcpy(arg, o->arg, (size_t)e->ntasks * sizeof(int));
    r->lower_bound = o->lower_bound;
  } else if (ch && mu && arg) {
    rc = devo__etc_prices(e, o->deadline, mu, arg, &r->lower_bound);
  }
  if (!ch || !mu || !arg || rc != DEVO_OK) {
    devo__free(al, ch);
    devo__free(al, mu);
    devo__free(al, arg);
    return rc != DEVO_OK ? rc : DEVO_E_NOMEM;
  }
  {
    int t, j;
    for (t = 0; t < e->ntasks; ++t) {
      const double *row = e->values + (size_t)t * e->nmach;
      double lo = row[0];
      for (j = 1; j < e->nmach; ++j)
        lo = row[j] < lo ? row[j] : lo;
      tsum += lo;
    }
  }
  for (q = 0; q < nch; ++q) {
    if ((rc = chain_init(e, &ch[q])) != DEVO_OK) {
      nch = q;
      goto out;
    }
    ch[q].seed = o->seed;
    ch[q].id = (uint32_t)q;
    devo__philox_keys_init(&ch[q].keys, o->seed);
    ch[q].deadline = o->deadline;
    ch[q].interrupt = o->interrupt;
    ch[q].temp = IG_TFACTOR * tsum / ((double)e->ntasks * 10.0);
    ch[q].mu = mu;
    ch[q].sa_temp =
        SA_TFACTOR * pow(SA_TSPREAD, -(double)(q % 4) / 3.0) * r->lower_bound / e->ntasks;
    /* the best starts as the caller's schedule, the current one as the priced one */
    in_ms = load_schedule(&ch[q], assign);
    ch[q].best_ms = (double)INFINITY;
    chain_restart(&ch[q], assign, in_ms);
    arg_ms = load_schedule(&ch[q], arg);
    memcpy(ch[q].cur, arg, (size_t)e->ntasks * sizeof(int));
    ch[q].cur_ms = arg_ms;
    ch[q].target = (in_ms < arg_ms ? in_ms : arg_ms) * (1.0 - SA_DT);
  }
  best_ms = ch[0].best_ms;
  bq = 0;
  while (!done) {
    until += o->epoch;
    if (o->steps > 0 && until > o->steps)
      until = o->steps;
    if ((rc = run_epoch(ch, nch, o->threads, until)) != DEVO_OK)
      break;
    /* the merge: lowest makespan, lowest chain on ties; every chain goes on from it */
    bq = 0;
    for (q = 1; q < nch; ++q)
      if (ch[q].best_ms < ch[bq].best_ms)
        bq = q;
    best_ms = ch[bq].best_ms;
    for (q = 0; q < nch; ++q) {
      if (ch[q].timed_out)
        r->status = o->interrupt && *o->interrupt ? DEVO_INTERRUPTED : DEVO_TIME_LIMIT;
      if (q != bq)
        chain_restart(&ch[q], ch[bq].best, best_ms);
      if (ch[q].target > best_ms * (1.0 - SA_DT))
        ch[q].target = best_ms * (1.0 - SA_DT);
    }
    if (r->status != DEVO_OK || (o->steps > 0 && until >= o->steps))
      done = 1;
    else if (o->progress && o->progress(o->progress_ud, until, best_ms) != 0) {
      r->status = DEVO_STOPPED_BY_CALLBACK;
      done = 1;
    }
  }
  if (rc == DEVO_OK) {
    /* a last descent (moves, swaps, ejection chains) on the best, within the deadline */
    chain *s = &ch[bq];
    double ms;
    s->timed_out = 0;
    load_schedule(s, s->best);
    vnd(s);
    ms = exact_loads(s);
    memcpy(assign, ms < s->best_ms ? s->assign : s->best, (size_t)e->ntasks * sizeof(int));
  }
out:
  for (q = 0; q < nch; ++q) {
    r->steps += ch[q].steps;
    r->candidates += ch[q].candidates;
    r->improved += ch[q].improved;
    chain_free(al, &ch[q]);
  }
  devo__free(al, ch);
  devo__free(al, mu);
  devo__free(al, arg);
  return rc;
}

int devo__etc_vnd(const devo_etc *e, int *assign, double deadline, int64_t *candidates)
{
  chain s;
  int rc;
  if (!e || !assign || !devo__etc_assign_ok(e, assign))
    return DEVO_E_INVALID;
  if ((rc = chain_init(e, &s)) != DEVO_OK)
    return rc;
  s.deadline = deadline;
  load_schedule(&s, assign);
  vnd(&s);
  memcpy(assign, s.assign, (size_t)e->ntasks * sizeof(int));
  if (candidates)
    *candidates = s.candidates;
  chain_free(&e->al, &s);
  return DEVO_OK;
}
