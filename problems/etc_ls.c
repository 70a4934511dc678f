/* SPDX-License-Identifier: MIT */
/* etc_ls.c: deterministic local search for an assignment of independent tasks to machines, the
 * classic "move" and "swap" neighbourhoods around the critical (makespan) machine used to polish
 * Min-min-like schedules (e.g. Xhafa et al., "Efficient batch job scheduling in grids using
 * cellular memetic algorithms", 2008; Ritchie & Levine's local search for ETC instances, 2003).
 *
 * Why only the critical machine: the makespan can only fall when the critical machine loses work,
 * so every pass looks at |c| * (m - 1) moves and |c| * (n - |c|) swaps, each in O(1) (O(log n)
 * when the flowtime counts), and applies the best one: moves first, swaps only when no move
 * helps (moves are cheaper and usually shorten the schedule more).
 *
 * Plateaus: with several machines at the makespan, a move off one of them leaves the makespan as
 * it is. The acceptance therefore also takes a move whose pair of new loads has a smaller maximum
 * than the critical load: that lowers the vector of completion times sorted in decreasing order
 * (leximax order; replacing two entries lowers the sorted vector iff it lowers the sorted pair),
 * a strict order, so the search cannot cycle and each plateau step brings the makespan closer to
 * falling (in floating point only with the rounding margins of acceptable() below).
 *
 * Bookkeeping: tasks grouped by machine in one array (each machine's segment in its run order,
 * FCFS = task index, SPT = (etc, task index)), with running sums of ETC per segment, so the
 * flowtime change of removing or inserting a task is a binary search and a few additions. A move
 * shifts the array between the two machines (O(n) memmove per applied move, not per candidate)
 * and recomputes the two machines' sums in their run order. The candidate values are therefore
 * approximations of etc.h's exact order, the recomputed sums are not (state_objective); the
 * result is checked at the end with them and the input is returned when the result is not at
 * least as good. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../engine/etc_internal.h"
#include "../engine/internal.h"
#include "devo_alloc.h"
#include "etc.h"

/* Candidate evaluations between two looks at the clock. */
#define LS_CLOCK_EVERY 256
/* Below this much time the search is not started: setting it up is O(n) (about 2 ms at 10^5
 * tasks), so it could not end in time, let alone improve anything. */
#define LS_MIN_SECONDS 1e-4

typedef struct ls_state {
  const double *etc, *ready;
  int n, m, order, need_flow;
  double lambda;
  int *assign;  /* n, the caller's array, kept in step with the segments */
  int *list;    /* n: tasks grouped by machine, each segment in run order */
  int *start;   /* m + 1: segment j is list[start[j] .. start[j + 1]) */
  int *pos;     /* n: a task's position inside its machine's segment */
  double *csum; /* n: ETC summed along the segment up to and including this entry */
  double *load; /* m: completion times */
  double *flow; /* m: flowtime of each machine */
  /* flowtime terms of the swap scan that do not depend on both tasks (lambda < 1 only) */
  int *rank_c;     /* n: for a task u off the critical machine c, its rank in c's segment */
  double *head_c;  /* n: the ETC on c of the tasks before that rank */
  double *rem_u;   /* n: flow_remove of u from its own machine */
  int *rank_t;     /* m: for the task t of c being scanned, its rank in each machine */
  double *head_t;  /* m: and the ETC before it there */
  double deadline; /* absolute monotonic seconds, 0 = none */
  int64_t evals;   /* calls of out_of_time (candidates, sort steps), for the clock check */
  int timed_out;
  const volatile sig_atomic_t *stop; /* the caller's interrupt flag, NULL = none */
} ls_state;

/* 1 when task a runs before task b on machine j. */
static int runs_before(const ls_state *s, int a, int b, int j)
{
  if (s->order == DEVO__ORDER_SPT)
    return devo__etc_spt_less(s->etc[(size_t)a * s->m + j], a, s->etc[(size_t)b * s->m + j], b);
  return a < b;
}

/* Number of tasks of machine j's segment that run before task u (u not on j). */
static int rank_in(const ls_state *s, int j, int u)
{
  int lo = s->start[j], hi = s->start[j + 1];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (runs_before(s, s->list[mid], u, j))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - s->start[j];
}

/* Sum of the first r ETC values of machine j's segment. */
static double head_sum(const ls_state *s, int j, int r)
{
  return r > 0 ? s->csum[s->start[j] + r - 1] : 0.0;
}

/* Flowtime change of machine j when task t (on j) leaves it: its own finish time goes, and every
 * task after it finishes earlier by its ETC. */
static double flow_remove(const ls_state *s, int j, int t)
{
  int r = s->pos[t], cnt = s->start[j + 1] - s->start[j];
  double p = s->etc[(size_t)t * s->m + j];
  return -(s->ready[j] + s->csum[s->start[j] + r]) - p * (double)(cnt - r - 1);
}

/* Flowtime change of machine j when task u (not on j) joins it, after task gone (on j; -1 for
 * none) has left. */
static double flow_insert(const ls_state *s, int j, int u, int gone)
{
  int r = rank_in(s, j, u), cnt = s->start[j + 1] - s->start[j];
  double p = s->etc[(size_t)u * s->m + j], before = head_sum(s, j, r);
  if (gone >= 0) {
    cnt--;
    if (s->pos[gone] < r) {
      r--;
      before -= s->etc[(size_t)gone * s->m + j];
    }
  }
  return s->ready[j] + before + p + p * (double)(cnt - r);
}

/* Recomputes positions, running sums, completion time and flowtime of machine j, in run order
 * (for FCFS exactly etc.h's order). */
static void refresh_machine(ls_state *s, int j)
{
  int k, b = s->start[j], e = s->start[j + 1];
  double c = s->ready[j], sum = 0.0, f = 0.0;
  for (k = b; k < e; ++k) {
    double p = s->etc[(size_t)s->list[k] * s->m + j];
    s->pos[s->list[k]] = k - b;
    sum += p;
    s->csum[k] = sum;
    c += p;
    f += c;
  }
  s->load[j] = c;
  s->flow[j] = f;
}

/* Sorts a segment into SPT order (heap sort: no comparator context is needed, and the key is a
 * strict total order, so the result does not depend on the algorithm). */
/* Heap sift-down of a[root] within a[0..end) in machine j's run order. */
static void spt_sift(ls_state *s, int *a, int j, int root, int end)
{
  int child, tmp;
  for (; (child = 2 * root + 1) < end; root = child) {
    if (child + 1 < end && runs_before(s, a[child], a[child + 1], j))
      child++;
    if (!runs_before(s, a[root], a[child], j))
      break;
    tmp = a[root];
    a[root] = a[child];
    a[child] = tmp;
  }
}

/* 1 when the deadline has passed; looks at the clock every LS_CLOCK_EVERY calls. */
static int out_of_time(ls_state *s)
{
  if ((s->deadline > 0.0 || s->stop) && (++s->evals % LS_CLOCK_EVERY) == 0 &&
      ((s->stop && *s->stop) || (s->deadline > 0.0 && devo__now() >= s->deadline)))
    s->timed_out = 1;
  return s->timed_out;
}

/* Stops early (unsorted) at the deadline: a machine of 10^5 tasks takes milliseconds. */
static void spt_sort_segment(ls_state *s, int j)
{
  int *a = s->list + s->start[j], k = s->start[j + 1] - s->start[j], i, tmp;
  for (i = k / 2 - 1; i >= 0 && !out_of_time(s); --i)
    spt_sift(s, a, j, i, k);
  for (i = k - 1; i > 0 && !out_of_time(s); --i) {
    tmp = a[0];
    a[0] = a[i];
    a[i] = tmp;
    spt_sift(s, a, j, 0, i);
  }
}

/* Groups the tasks by machine in run order and computes every machine's sums; stops early at
 * the deadline (s->timed_out: the state is then unusable). */
static void build(ls_state *s)
{
  int t, j;
  for (j = 0; j <= s->m; ++j)
    s->start[j] = 0;
  for (t = 0; t < s->n; ++t)
    s->start[s->assign[t] + 1]++;
  for (j = 0; j < s->m; ++j)
    s->start[j + 1] += s->start[j];
  /* load serves as the fill cursor of each segment (stable: task index order) */
  for (j = 0; j < s->m; ++j)
    s->load[j] = 0.0;
  for (t = 0; t < s->n; ++t) {
    j = s->assign[t];
    s->list[s->start[j] + (int)s->load[j]] = t;
    s->load[j] += 1.0;
  }
  for (j = 0; j < s->m && !s->timed_out; ++j) {
    if ((s->deadline > 0.0 && devo__now() >= s->deadline) || (s->stop && *s->stop))
      s->timed_out = 1;
    else if (s->order == DEVO__ORDER_SPT)
      spt_sort_segment(s, j);
    if (!s->timed_out)
      refresh_machine(s, j);
  }
}

/* The objective of the current assignment from the machines' sums. refresh_machine makes the
 * same additions in the same order as etc.h's evaluation (FCFS: task index order; SPT: the
 * same strict (ETC, task) order), so this is devo__etc_eval_parts's value, bit for bit, in O(m)
 * instead of its O(n log n) sort (which made a 10^5-task search overrun its deadline by 30 ms). */
static double state_objective(const ls_state *s)
{
  double ms = s->load[0], ft = 0.0;
  int j;
  for (j = 0; j < s->m; ++j) {
    if (s->load[j] > ms)
      ms = s->load[j];
    ft += s->flow[j];
  }
  return devo__etc_objective(s->lambda, ms, ft, s->m);
}

/* Moves task t from its machine to machine to, keeping every segment in run order. */
static void relocate(ls_state *s, int t, int to)
{
  int from = s->assign[t], gi = s->start[from] + s->pos[t], gk = s->start[to] + rank_in(s, to, t),
      k;
  if (from < to) {
    memmove(s->list + gi, s->list + gi + 1, (size_t)(gk - 1 - gi) * sizeof(int));
    memmove(s->csum + gi, s->csum + gi + 1, (size_t)(gk - 1 - gi) * sizeof(double));
    s->list[gk - 1] = t;
    for (k = from + 1; k <= to; ++k)
      s->start[k]--;
  } else {
    memmove(s->list + gk + 1, s->list + gk, (size_t)(gi - gk) * sizeof(int));
    memmove(s->csum + gk + 1, s->csum + gk, (size_t)(gi - gk) * sizeof(double));
    s->list[gk] = t;
    for (k = to + 1; k <= from; ++k)
      s->start[k]++;
  }
  s->assign[t] = to;
  refresh_machine(s, from);
  refresh_machine(s, to);
}

typedef struct cand {
  double score; /* approximate change of the objective */
  double pair;  /* max of the two new loads */
  int t, v;     /* task, and target machine (move) or partner task (swap); t < 0 = none */
} cand;

/* Ties go to the smaller pair maximum, then the lowest task, then machine / partner index. */
static void consider(cand *best, double score, double pair, int t, int v)
{
  if (best->t < 0 || score < best->score ||
      (score == best->score &&
       (pair < best->pair ||
        (pair == best->pair && (t < best->t || (t == best->t && v < best->v)))))) {
    best->score = score;
    best->pair = pair;
    best->t = t;
    best->v = v;
  }
}

/* Margins against rounding. A candidate's loads and objective change are estimates (a load plus
 * or minus one ETC value, the running sums), while an applied move recomputes the two machines'
 * sums in run order; the two differ by at most about n eps times the sums involved. Every accepted
 * step must improve what it claims to improve on the recomputed values, or the search can cycle:
 * with loads of 1e6 and ETC values of 1e-3 a task was moved back and forth forever, each move an
 * ulp "better" than the last. err: that bound for the objective f, tol: an improvement must beat
 * it (and 1e-12 relative), gap: a plateau step must lower the pair that far below crit. */
typedef struct margins {
  double err, tol, gap;
} margins;

static margins margins_of(int n, double f, double crit)
{
  margins g;
  const double u = 4.0 * (double)(n + 2) * DBL_EPSILON;
  g.err = u * fabs(f);
  g.tol = fmax(1e-12 * fabs(f), 2.0 * g.err);
  g.gap = u * crit;
  return g;
}

/* A real improvement of the objective, or a leximax step on a makespan plateau that does not
 * make the objective worse. With the flowtime the plateau step must lower the objective beyond
 * the rounding bound too, so the objective falls at every step; with the makespan alone the
 * sorted loads fall at every step (the score is then exactly 0 or an improvement). Both orders
 * are strict on the recomputed values, so the search ends. */
static int acceptable(const cand *c, double crit, const margins *g, int need_flow)
{
  if (c->t < 0)
    return 0;
  if (c->score < -g->tol)
    return 1;
  return (need_flow ? c->score < -g->err : c->score <= 0.0) && c->pair < crit - g->gap;
}

/* One pass: the best move, else the best swap, off the critical machine; applies it. Returns 1
 * when something was applied, 0 at a local optimum or when time ran out. */
static int pass(ls_state *s)
{
  const int m = s->m, n = s->n;
  const double *etc = s->etc;
  int c = 0, top[3] = {-1, -1, -1}, j, k, q, u;
  double crit, ms, f, wf = s->need_flow ? (1.0 - s->lambda) / (double)m : 0.0;
  cand best;
  /* the three largest loads (lowest index on ties): the makespan without two given machines */
  for (j = 0; j < m; ++j) {
    for (q = 0; q < 3; ++q)
      if (top[q] < 0 || s->load[j] > s->load[top[q]])
        break;
    if (q < 3) {
      for (k = 2; k > q; --k)
        top[k] = top[k - 1];
      top[q] = j;
    }
  }
  c = top[0];
  crit = ms = s->load[c];
  f = 0.0;
  for (j = 0; j < m; ++j)
    f += s->flow[j];
  f = s->lambda * ms + wf * f;
  const margins g = margins_of(n, f, crit);
  /* top[0] is c, so the largest load outside {c, j} is top[1] unless that is j */
#define OTHER_MAX(j_) (top[1] != (j_) ? s->load[top[1]] : top[2] >= 0 ? s->load[top[2]] : 0.0)
  /* moves: task t of c to machine j */
  best.t = -1;
  best.score = best.pair = 0.0;
  best.v = -1;
  for (k = s->start[c]; k < s->start[c + 1]; ++k) {
    int t = s->list[k];
    const double *row = etc + (size_t)t * m;
    double lc = s->load[c] - row[c], dfc = s->need_flow ? flow_remove(s, c, t) : 0.0;
    for (j = 0; j < m; ++j) {
      double lj, pair, ms2, score;
      if (j == c)
        continue;
      if (out_of_time(s))
        return 0;
      lj = s->load[j] + row[j];
      pair = lc > lj ? lc : lj;
      if (!s->need_flow && !(pair < crit))
        continue; /* pure makespan: neither an improvement nor a plateau step */
      ms2 = OTHER_MAX(j);
      if (pair > ms2)
        ms2 = pair;
      score = s->lambda * (ms2 - ms);
      if (s->need_flow)
        score += wf * (dfc + flow_insert(s, j, t, -1));
      consider(&best, score, pair, t, j);
    }
  }
  if (acceptable(&best, crit, &g, s->need_flow)) {
    relocate(s, best.t, best.v);
    return 1;
  }
  /* swaps: task t of c with task u of another machine. The flowtime terms are split so that
   * a candidate costs O(1): the ranks of each u in c and of t in every machine are looked up
   * once, then corrected for the one task that leaves (it shifts a rank by at most one). */
  if (s->need_flow)
    for (u = 0; u < n; ++u) {
      j = s->assign[u];
      if (j == c)
        continue;
      s->rank_c[u] = rank_in(s, c, u);
      s->head_c[u] = head_sum(s, c, s->rank_c[u]);
      s->rem_u[u] = flow_remove(s, j, u);
    }
  best.t = -1;
  for (k = s->start[c]; k < s->start[c + 1]; ++k) {
    int t = s->list[k], cnt_c = s->start[c + 1] - s->start[c] - 1;
    const double *row = etc + (size_t)t * m;
    double lc0 = s->load[c] - row[c], dfc0 = s->need_flow ? flow_remove(s, c, t) : 0.0;
    if (s->need_flow)
      for (j = 0; j < m; ++j)
        if (j != c) {
          s->rank_t[j] = rank_in(s, j, t);
          s->head_t[j] = head_sum(s, j, s->rank_t[j]);
        }
    for (u = 0; u < n; ++u) {
      const double *urow = etc + (size_t)u * m;
      double lc, lj, pair, ms2, score;
      j = s->assign[u];
      if (j == c)
        continue;
      if (out_of_time(s))
        return 0;
      lc = lc0 + urow[c];
      lj = (s->load[j] - urow[j]) + row[j];
      pair = lc > lj ? lc : lj;
      if (!s->need_flow && !(pair < crit))
        continue;
      ms2 = OTHER_MAX(j);
      if (pair > ms2)
        ms2 = pair;
      score = s->lambda * (ms2 - ms);
      if (s->need_flow) {
        /* u joins c after t left; t joins j after u left (see flow_insert) */
        int rc = s->rank_c[u], rj = s->rank_t[j], cnt_j = s->start[j + 1] - s->start[j] - 1;
        double bc = s->head_c[u], bj = s->head_t[j], pu = urow[c], pt = row[j], ins_c, ins_j;
        if (s->pos[t] < rc) {
          rc--;
          bc -= row[c];
        }
        if (s->pos[u] < rj) {
          rj--;
          bj -= urow[j];
        }
        ins_c = s->ready[c] + bc + pu + pu * (double)(cnt_c - rc);
        ins_j = s->ready[j] + bj + pt + pt * (double)(cnt_j - rj);
        score += wf * (dfc0 + ins_c + s->rem_u[u] + ins_j);
      }
      consider(&best, score, pair, t, u);
    }
  }
#undef OTHER_MAX
  if (acceptable(&best, crit, &g, s->need_flow)) {
    int t = best.t;
    u = best.v;
    j = s->assign[u];
    relocate(s, t, j);
    relocate(s, u, c);
    return 1;
  }
  return 0;
}

int devo_etc_local_search(const devo_etc *e, int *assign, int order, double lambda,
                          int64_t max_moves, double deadline_seconds_from_now, int64_t *moves_done)
{
  return devo__etc_local_search_ex(e, assign, order, lambda, max_moves, deadline_seconds_from_now,
                                   moves_done, NULL, NULL);
}

int devo__etc_local_search_stop(const devo_etc *e, int *assign, int order, double lambda,
                                int64_t max_moves, double deadline_seconds_from_now,
                                int64_t *moves_done, const volatile sig_atomic_t *stop)
{
  return devo__etc_local_search_ex(e, assign, order, lambda, max_moves, deadline_seconds_from_now,
                                   moves_done, stop, NULL);
}

int devo__etc_local_search_ex(const devo_etc *e, int *assign, int order, double lambda,
                              int64_t max_moves, double deadline_seconds_from_now,
                              int64_t *moves_done, const volatile sig_atomic_t *stop, int *restored)
{
  const devo_allocator *al;
  ls_state s;
  int *orig = NULL, rc = DEVO_OK;
  double before, after;
  int64_t moves = 0;
  if (moves_done)
    *moves_done = 0;
  if (restored)
    *restored = 0;
  if (!e || !assign || (order != DEVO_ORDER_FCFS && order != DEVO_ORDER_SPT) ||
      !(lambda >= 0.0 && lambda <= 1.0) || max_moves < 0 ||
      !(deadline_seconds_from_now >= 0.0 && deadline_seconds_from_now <= 1e9))
    return DEVO_E_INVALID;
  if (!devo__etc_assign_ok(e, assign))
    return DEVO_E_INVALID;
  al = &e->al;
  memset(&s, 0, sizeof s);
  s.deadline = deadline_seconds_from_now > 0.0 ? devo__now() + deadline_seconds_from_now : 0.0;
  s.stop = stop;
  if (stop && *stop)
    return DEVO_OK; /* interrupted already: the input is the answer */
  if (deadline_seconds_from_now > 0.0 && deadline_seconds_from_now < LS_MIN_SECONDS)
    return DEVO_OK; /* no time to set up the search: the input is the answer */
  s.etc = e->values;
  s.ready = e->ready;
  s.n = e->ntasks;
  s.m = e->nmach;
  s.order = order;
  s.lambda = lambda;
  s.need_flow = lambda < 1.0;
  s.assign = assign;
  orig = (int *)devo__alloc(al, (size_t)s.n, sizeof(int));
  s.list = (int *)devo__alloc(al, (size_t)s.n, sizeof(int));
  s.pos = (int *)devo__alloc(al, (size_t)s.n, sizeof(int));
  s.start = (int *)devo__alloc(al, (size_t)s.m + 1, sizeof(int));
  s.csum = (double *)devo__alloc(al, (size_t)s.n, sizeof(double));
  s.load = (double *)devo__alloc(al, (size_t)s.m, sizeof(double));
  s.flow = (double *)devo__alloc(al, (size_t)s.m, sizeof(double));
  if (s.need_flow) {
    s.rank_c = (int *)devo__alloc(al, (size_t)s.n, sizeof(int));
    s.head_c = (double *)devo__alloc(al, (size_t)s.n, sizeof(double));
    s.rem_u = (double *)devo__alloc(al, (size_t)s.n, sizeof(double));
    s.rank_t = (int *)devo__alloc(al, (size_t)s.m, sizeof(int));
    s.head_t = (double *)devo__alloc(al, (size_t)s.m, sizeof(double));
  }
  if (!orig || !s.list || !s.pos || !s.start || !s.csum || !s.load || !s.flow ||
      (s.need_flow && (!s.rank_c || !s.head_c || !s.rem_u || !s.rank_t || !s.head_t))) {
    rc = DEVO_E_NOMEM;
    goto done;
  }
  memcpy(orig, assign, (size_t)s.n * sizeof(int));
  build(&s);
  before = s.timed_out ? 0.0 : state_objective(&s);
  while ((max_moves == 0 || moves < max_moves) && !s.timed_out) {
    if ((s.deadline > 0.0 && devo__now() >= s.deadline) || (stop && *stop))
      break;
    if (!pass(&s))
      break;
    moves++;
  }
  if (moves > 0) {
    after = state_objective(&s);
    if (!(after <= before)) { /* rounding led the search astray: keep the input */
      memcpy(assign, orig, (size_t)s.n * sizeof(int));
      moves = 0;
      if (restored)
        *restored = 1;
    }
  }
  if (moves_done)
    *moves_done = moves;
done:
  devo__free(al, orig);
  devo__free(al, s.list);
  devo__free(al, s.pos);
  devo__free(al, s.start);
  devo__free(al, s.csum);
  devo__free(al, s.load);
  devo__free(al, s.flow);
  devo__free(al, s.rank_c);
  devo__free(al, s.head_c);
  devo__free(al, s.rem_u);
  devo__free(al, s.rank_t);
  devo__free(al, s.head_t);
  return rc;
}
