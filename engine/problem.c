/* problem.c: the problem handle: creation, the built-in catalogue (classic functions here, CEC
 * functions through problems/cec_data.c), user objectives, and CPU evaluation of one point. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <strings.h>

#include "../problems/cec_data.h"
#include "../problems/classic.h"
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
  if (i < NCLASSIC) {
    st = set_classic(p, i, dim, data_seed);
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
  /* the width too: lower + u (upper - lower) overflowed to inf for [-1e308, 1e308] (found in
   * review) */
  if (!isfinite(lower) || !isfinite(upper) || !(lower < upper) || !isfinite(upper - lower))
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
  snprintf(p->name, sizeof p->name, "user");
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

double devo_problem_fstar(const devo_problem *p)
{
  return p ? p->fstar : (double)NAN;
}

int devo_problem_optimum(const devo_problem *p, double *x)
{
  if (!p || !x || !p->shift ||
      !(p->view.kind == DEVO__P_CEC ||
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

int devo_builtin_count(void)
{
  return NCLASSIC + devo__cec_count();
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
    return DEVO_OK;
  }
  return devo__cec_builtin(index - NCLASSIC, out);
}
