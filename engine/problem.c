/* SPDX-License-Identifier: MIT */
/* problem.c: the problem handle: creation, the built-in catalogue (classic and SOCO functions
 * here, CEC functions through problems/cec_data.c), user objectives, search boxes, and CPU
 * evaluation of one point. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <strings.h>

#include "../problems/cec_data.h"
#include "../problems/classic.h"
#include "../problems/soco.h"
#include "internal.h"

/* The classic functions: data seed -> o, see classic.h. */
static const struct {
  const char *name;
  int kind;
  const char *source;
} classic_table[] = {
    {"sphere", DEVO__P_SPHERE, "shifted sphere (CEC 2005 F1 shape; Qin et al. 2012)"},
    {"rosenbrock", DEVO__P_ROSENBROCK, "shifted Rosenbrock (CEC 2005 F6 shape; Qin et al. 2012)"},
    {"griewank", DEVO__P_GRIEWANK, "shifted Griewank (CEC 2005 F7 shape, unrotated)"},
    {"rastrigin", DEVO__P_RASTRIGIN, "shifted Rastrigin (CEC 2005 F9 shape; Qin et al. 2012)"},
};
#define NCLASSIC ((int)(sizeof classic_table / sizeof classic_table[0]))

int devo_problem_create(devo_problem **out, const devo_allocator *alloc)
{
  devo_allocator a = devo__allocator_or_default(alloc);
  devo_problem *p;
  if (!out)
    return DEVO_E_INVALID;
  *out = NULL;
  p = (devo_problem *)devo__calloc(&a, 1, sizeof *p);
  if (!p)
    return DEVO_E_NOMEM;
  p->al = a;
  p->fstar = (double)NAN;
  *out = p;
  return DEVO_OK;
}

/* Frees the problem's data and returns it to the unconfigured state (the allocator stays). */
void devo__problem_reset(devo_problem *p)
{
  devo_allocator a = p->al;
  devo__free(&a, p->shift);
  devo__free(&a, p->rot);
  devo__free(&a, p->shuffle);
  devo__free(&a, p->etc);
  devo__free(&a, p->ready);
  devo__free(&a, p->seeds);
  devo__free(&a, p->box);
  memset(p, 0, sizeof *p);
  p->al = a;
  p->fstar = (double)NAN;
}

void devo_problem_destroy(devo_problem *p)
{
  devo_allocator a;
  if (!p)
    return;
  devo__problem_reset(p);
  a = p->al;
  devo__free(&a, p);
}

const char *devo_problem_errmsg(const devo_problem *p)
{
  return p ? p->err : "no problem handle";
}

static int check_dim(devo_problem *p, int dim)
{
  if (dim < 1 || dim > DEVO__MAX_DIM)
    return devo__problem_err(p, DEVO_E_INVALID, "dimension %d is out of range (1 to %d)", dim,
                             DEVO__MAX_DIM);
  return DEVO_OK;
}

/* One coordinate's bounds: finite, lower < upper, and the width too: lower + u (upper - lower)
 * overflowed to inf for [-1e308, 1e308] (found in review). */
static int bounds_ok(double lower, double upper)
{
  return isfinite(lower) && isfinite(upper) && lower < upper && isfinite(upper - lower);
}

static int set_classic(devo_problem *p, int idx, int dim, uint64_t data_seed)
{
  int j;
  p->shift = (double *)devo__alloc(&p->al, (size_t)dim, sizeof(double));
  if (!p->shift)
    return devo__problem_err(p, DEVO_E_NOMEM, "out of memory for a shift vector of %d values", dim);
  for (j = 0; j < dim; ++j)
    p->shift[j] = devo__classic_shift(data_seed, (uint32_t)j);
  p->view.kind = classic_table[idx].kind;
  p->view.shift = p->shift;
  p->fstar = 0.0;
  snprintf(p->name, sizeof p->name, "%s", classic_table[idx].name);
  return DEVO_OK;
}

/* SOCO 2010 F1..F19 (problems/soco.h): names soco:f1 .. soco:f19. */
static const char *const soco_names[DEVO__SOCO_N] = {
    "soco:f1",  "soco:f2",  "soco:f3",  "soco:f4",  "soco:f5",  "soco:f6",  "soco:f7",
    "soco:f8",  "soco:f9",  "soco:f10", "soco:f11", "soco:f12", "soco:f13", "soco:f14",
    "soco:f15", "soco:f16", "soco:f17", "soco:f18", "soco:f19"};
static const char *const soco_sources[DEVO__SOCO_N] = {
    "SOCO 2010 F1 shifted sphere (CEC 2008 F1)",
    "SOCO 2010 F2 shifted Schwefel 2.21 (CEC 2008 F2)",
    "SOCO 2010 F3 shifted Rosenbrock (CEC 2008 F3)",
    "SOCO 2010 F4 shifted Rastrigin (CEC 2008 F4)",
    "SOCO 2010 F5 shifted Griewank (CEC 2008 F5)",
    "SOCO 2010 F6 shifted Ackley (CEC 2008 F6)",
    "SOCO 2010 F7 shifted Schwefel 2.22",
    "SOCO 2010 F8 shifted Schwefel 1.2",
    "SOCO 2010 F9 shifted extended f10",
    "SOCO 2010 F10 shifted Bohachevsky",
    "SOCO 2010 F11 shifted Schaffer 2",
    "SOCO 2010 F12 hybrid F9 + F1, m_ns 0.25",
    "SOCO 2010 F13 hybrid F9 + F3, m_ns 0.25",
    "SOCO 2010 F14 hybrid F9 + F4, m_ns 0.25",
    "SOCO 2010 F15 hybrid F10 + F7, m_ns 0.25",
    "SOCO 2010 F16 hybrid F9 + F1, m_ns 0.5",
    "SOCO 2010 F17 hybrid F9 + F3, m_ns 0.75",
    "SOCO 2010 F18 hybrid F9 + F4, m_ns 0.75",
    "SOCO 2010 F19 hybrid F10 + F7, m_ns 0.75"};

static int soco_find(const char *name)
{
  int i;
  for (i = 0; i < DEVO__SOCO_N; ++i)
    if (strcasecmp(name, soco_names[i]) == 0)
      return i + 1;
  return 0;
}

static int set_soco(devo_problem *p, int id, int dim, uint64_t data_seed)
{
  const devo__soco_shape sh = devo__soco_shape_of(id);
  int j;
  if (dim < devo__soco_min_dim(id))
    return devo__problem_err(p, DEVO_E_INVALID, "%s needs D >= %d (got %d)", soco_names[id - 1],
                             devo__soco_min_dim(id), dim);
  p->shift = (double *)devo__alloc(&p->al, (size_t)dim, sizeof(double));
  if (!p->shift)
    return devo__problem_err(p, DEVO_E_NOMEM, "out of memory for a shift vector of %d values", dim);
  for (j = 0; j < dim; ++j)
    p->shift[j] = devo__soco_shift(data_seed, id, dim, j);
  p->view.kind = DEVO__P_SOCO;
  p->view.soco_id = id;
  p->view.shift = p->shift;
  p->view.lower = -sh.half;
  p->view.upper = sh.half;
  p->fstar = sh.fstar;
  snprintf(p->name, sizeof p->name, "%s", soco_names[id - 1]);
  return DEVO_OK;
}

static int set_cec(devo_problem *p, int id, int dim, uint64_t data_seed, const char *dir)
{
  char msg[DEVO__ERRLEN];
  devo_builtin_info info;
  int st;
  msg[0] = 0;
  devo__cec_builtin(id - 1, &info);
  st = devo__cec_make(id, dim, data_seed, dir, &p->al, &p->shift, &p->rot, &p->shuffle, msg,
                      sizeof msg);
  if (st != DEVO_OK)
    return devo__problem_err(p, st, "%s", msg[0] ? msg : devo_status_message(st));
  p->view.kind = DEVO__P_CEC;
  p->view.cec_id = id;
  p->view.ncomp = devo__cec_ncomp(id);
  p->view.shift = p->shift;
  p->view.rot = p->rot;
  p->view.shuffle = p->shuffle;
  p->fstar = devo__cec_fstar(id);
  snprintf(p->name, sizeof p->name, "%s", info.name);
  return DEVO_OK;
}

int devo_problem_set_builtin(devo_problem *p, const char *name, int dim, uint64_t data_seed,
                             const char *data_dir)
{
  int i, st, id;
  if (!p)
    return DEVO_E_INVALID;
  if (!name)
    return devo__problem_err(p, DEVO_E_INVALID, "problem name is NULL");
  st = check_dim(p, dim);
  if (st != DEVO_OK)
    return st;
  devo__problem_reset(p);
  p->view.dim = dim;
  p->view.lower = -100.0;
  p->view.upper = 100.0;
  for (i = 0; i < NCLASSIC; ++i)
    if (strcasecmp(name, classic_table[i].name) == 0)
      break;
  p->data_seed = data_seed;
  if (i < NCLASSIC) {
    st = set_classic(p, i, dim, data_seed);
  } else if ((id = soco_find(name)) != 0) {
    st = set_soco(p, id, dim, data_seed);
  } else {
    id = devo__cec_find(name);
    if (id == 0)
      return devo__problem_err(p, DEVO_E_INVALID,
                               "unknown problem '%s' (devo list-problems shows the names)", name);
    st = set_cec(p, id, dim, data_seed, data_dir);
  }
  if (st != DEVO_OK) {
    char keep[DEVO__ERRLEN];
    memcpy(keep, p->err, sizeof keep);
    devo__problem_reset(p);
    memcpy(p->err, keep, sizeof keep);
  }
  return st;
}

int devo_problem_set_user(devo_problem *p, int dim, double lower, double upper,
                          devo_objective_fn fn, void *ud)
{
  int st;
  if (!p)
    return DEVO_E_INVALID;
  st = check_dim(p, dim);
  if (st != DEVO_OK)
    return st;
  if (!bounds_ok(lower, upper))
    return devo__problem_err(p, DEVO_E_INVALID,
                             "bounds [%g, %g] must be finite with lower < upper and a finite width",
                             lower, upper);
  if (!fn)
    return devo__problem_err(p, DEVO_E_INVALID, "objective function is NULL");
  devo__problem_reset(p);
  p->view.kind = DEVO__P_USER;
  p->view.dim = dim;
  p->view.lower = lower;
  p->view.upper = upper;
  p->user_fn = fn;
  p->user_ud = ud;
  p->user_batch = 0;
  snprintf(p->name, sizeof p->name, "user");
  return DEVO_OK;
}

int devo_problem_set_user_batch(devo_problem *p, int n)
{
  if (!p)
    return DEVO_E_INVALID;
  if (p->view.kind != DEVO__P_USER)
    return devo__problem_err(p, DEVO_E_STATE, "not a user objective (devo_problem_set_user)");
  if (n < 0 || n > 10000000)
    return devo__problem_err(p, DEVO_E_INVALID, "user batch %d: must be 0 (devo's choice) .. 10^7",
                             n);
  p->user_batch = n;
  return DEVO_OK;
}

int devo_problem_dim(const devo_problem *p)
{
  return p && p->view.kind != DEVO__P_NONE ? p->view.dim : 0;
}

int devo_problem_bounds(const devo_problem *p, double *lower, double *upper)
{
  if (!p || p->view.kind == DEVO__P_NONE)
    return DEVO_E_STATE;
  if (lower)
    *lower = p->view.lower;
  if (upper)
    *upper = p->view.upper;
  return DEVO_OK;
}

int devo_problem_bounds_vec(const devo_problem *p, double *lower, double *upper)
{
  devo__box b;
  uint32_t j;
  if (!p || p->view.kind == DEVO__P_NONE)
    return DEVO_E_STATE;
  b = devo__problem_box(p);
  for (j = 0; j < (uint32_t)p->view.dim; ++j) {
    if (lower)
      lower[j] = devo__box_lo(&b, j);
    if (upper)
      upper[j] = devo__box_hi(&b, j);
  }
  return DEVO_OK;
}

double devo_problem_fstar(const devo_problem *p)
{
  return p ? p->fstar : (double)NAN;
}

int devo_problem_optimum(const devo_problem *p, double *x)
{
  if (!p || !x || !p->shift ||
      !(p->view.kind == DEVO__P_CEC || p->view.kind == DEVO__P_SOCO ||
        (p->view.kind >= DEVO__P_SPHERE && p->view.kind <= DEVO__P_RASTRIGIN)))
    return DEVO_E_STATE;
  memcpy(x, p->shift, (size_t)p->view.dim * sizeof(double));
  return DEVO_OK;
}

int devo_problem_eval(const devo_problem *p, const double *x, double *f)
{
  double *scratch;
  size_t n;
  if (!p || !x || !f || p->view.kind == DEVO__P_NONE)
    return DEVO_E_STATE;
  if (p->view.kind == DEVO__P_USER) {
    if (p->user_fn(p->user_ud, x, 1, (size_t)p->view.dim, f) != 0)
      return DEVO_E_INTERNAL;
    if (isnan(*f))
      *f = (double)INFINITY;
    return DEVO_OK;
  }
  n = devo__eval_scratch(&p->view);
  scratch = (double *)devo__alloc(&p->al, n, sizeof(double));
  if (!scratch)
    return DEVO_E_NOMEM;
  *f = devo__eval_builtin(&p->view, x, scratch);
  devo__free(&p->al, scratch);
  return DEVO_OK;
}

/* The known optimum of a built-in problem is inside the box (coordinate j in [lower[j * step],
 * upper[j * step]]: step 0 for one box of every coordinate), else a message naming the first
 * coordinate outside. */
static int optimum_inside(devo_problem *p, const double *lower, const double *upper, int step)
{
  int j;
  if (!p->shift || p->view.kind == DEVO__P_USER || p->view.kind == DEVO__P_ETC)
    return DEVO_OK;
  for (j = 0; j < p->view.dim; ++j) {
    const double lo = lower[j * step], hi = upper[j * step];
    if (!(p->shift[j] >= lo && p->shift[j] <= hi))
      return devo__problem_err(p, DEVO_E_INVALID,
                               "box [%g, %g] excludes the optimum of %s: coordinate %d is %.17g",
                               lo, hi, p->name, j, p->shift[j]);
  }
  return DEVO_OK;
}

/* The checks devo_problem_set_box and devo_problem_set_bounds share, before the box changes. */
static int box_settable(devo_problem *p)
{
  if (p->view.kind == DEVO__P_NONE)
    return devo__problem_err(p, DEVO_E_STATE, "no problem is configured");
  if (p->view.kind == DEVO__P_ETC)
    return devo__problem_err(
        p, DEVO_E_INVALID, "an ETC scheduling problem has no settable box (its decoding fixes it)");
  return DEVO_OK;
}

/* One box [lower, upper] for every coordinate (per-coordinate bounds dropped). */
static void set_uniform(devo_problem *p, double lower, double upper)
{
  devo__free(&p->al, p->box);
  p->box = NULL;
  p->view.lower = lower;
  p->view.upper = upper;
}

int devo_problem_set_box(devo_problem *p, double lower, double upper)
{
  int st;
  if (!p)
    return DEVO_E_INVALID;
  st = box_settable(p);
  if (st != DEVO_OK)
    return st;
  if (!bounds_ok(lower, upper))
    return devo__problem_err(p, DEVO_E_INVALID,
                             "box [%g, %g] must be finite with lower < upper and a finite width",
                             lower, upper);
  st = optimum_inside(p, &lower, &upper, 0);
  if (st != DEVO_OK)
    return st;
  set_uniform(p, lower, upper);
  return DEVO_OK;
}

int devo_problem_set_bounds(devo_problem *p, const double *lower, const double *upper)
{
  int j, st, d, same = 1;
  double lo_min, hi_max, *box;
  if (!p)
    return DEVO_E_INVALID;
  st = box_settable(p);
  if (st != DEVO_OK)
    return st;
  if (!lower || !upper)
    return devo__problem_err(p, DEVO_E_INVALID, "the %s bounds are NULL",
                             lower ? "upper" : "lower");
  d = p->view.dim;
  for (j = 0; j < d; ++j)
    if (!bounds_ok(lower[j], upper[j]))
      return devo__problem_err(p, DEVO_E_INVALID,
                               "coordinate %d: bounds [%g, %g] must be finite with lower < upper "
                               "and a finite width",
                               j, lower[j], upper[j]);
  st = optimum_inside(p, lower, upper, 1);
  if (st != DEVO_OK)
    return st;
  lo_min = lower[0];
  hi_max = upper[0];
  for (j = 1; j < d; ++j) {
    same = same && lower[j] == lower[0] && upper[j] == upper[0];
    lo_min = lower[j] < lo_min ? lower[j] : lo_min;
    hi_max = upper[j] > hi_max ? upper[j] : hi_max;
  }
  if (same) { /* one box: the scalar path, which the GPU kernels read too */
    set_uniform(p, lower[0], upper[0]);
    return DEVO_OK;
  }
  box = (double *)devo__alloc(&p->al, 2 * (size_t)d, sizeof(double));
  if (!box)
    return devo__problem_err(p, DEVO_E_NOMEM, "out of memory for the bounds of %d coordinates", d);
  memcpy(box, lower, (size_t)d * sizeof(double));
  memcpy(box + d, upper, (size_t)d * sizeof(double));
  set_uniform(p, lo_min, hi_max);
  p->box = box;
  return DEVO_OK;
}

int devo_problem_set_ranges(devo_problem *p, const char *ranges)
{
  /* CEC 2005 (Suganthan et al. 2005) ranges of the classic shapes: F1 sphere and F6 Rosenbrock
   * [-100, 100], F7 Griewank [-600, 600] (its initialisation range; the function is unbounded
   * there), F9 Rastrigin [-5, 5]; indexed by kind - DEVO__P_SPHERE */
  static const double cec2005[4] = {100.0, 100.0, 600.0, 5.0};
  double h;
  int j, kind;
  if (!p)
    return DEVO_E_INVALID;
  if (!ranges || (strcmp(ranges, "cec2005") != 0 && strcmp(ranges, "default") != 0))
    return devo__problem_err(p, DEVO_E_INVALID, "unknown ranges '%s' (cec2005 or default)",
                             ranges ? ranges : "(null)");
  kind = p->view.kind;
  if (kind < DEVO__P_SPHERE || kind > DEVO__P_RASTRIGIN)
    return devo__problem_err(p, DEVO_E_INVALID,
                             "ranges %s apply to the classic functions only, not to %s", ranges,
                             kind == DEVO__P_NONE ? "an unconfigured problem" : p->name);
  h = strcmp(ranges, "cec2005") == 0 ? cec2005[kind - DEVO__P_SPHERE] : 100.0;
  for (j = 0; j < p->view.dim; ++j)
    p->shift[j] = devo__classic_shift_in(p->data_seed, (uint32_t)j, -0.8 * h, 1.6 * h);
  set_uniform(p, -h, h);
  return DEVO_OK;
}

int devo_builtin_count(void)
{
  return NCLASSIC + devo__cec_count() + DEVO__SOCO_N;
}

int devo_builtin_get(int index, devo_builtin_info *out)
{
  if (!out || index < 0 || index >= devo_builtin_count())
    return DEVO_E_INVALID;
  if (index < NCLASSIC) {
    out->name = classic_table[index].name;
    out->alias = "";
    out->source = classic_table[index].source;
    out->fstar = 0.0;
    out->min_dim = 1;
    out->official = "";
    out->lower = -100.0;
    out->upper = 100.0;
    return DEVO_OK;
  }
  index -= NCLASSIC;
  if (index < devo__cec_count()) {
    int st = devo__cec_builtin(index, out);
    out->lower = -100.0;
    out->upper = 100.0;
    return st;
  }
  index -= devo__cec_count();
  {
    const devo__soco_shape sh = devo__soco_shape_of(index + 1);
    out->name = soco_names[index];
    out->alias = "";
    out->source = soco_sources[index];
    out->fstar = sh.fstar;
    out->min_dim = devo__soco_min_dim(index + 1);
    out->official = "";
    out->lower = -sh.half;
    out->upper = sh.half;
  }
  return DEVO_OK;
}
