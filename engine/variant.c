/* SPDX-License-Identifier: MIT */
/* variant.c: the public side of the DE variants (devo.h, "DE variants"): names, presets,
 * validation and the solver's setters. The operators themselves are problems/de_variant.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The public numbers are the internal ones (one table, problems/de_variant.h; the strategies'
 * numbers are checked by tests/test_variants.c through their names). */
_Static_assert((int)DEVO_CROSSOVER_BIN == (int)DEVO__XOVER_BIN &&
                   (int)DEVO_CROSSOVER_EXP == (int)DEVO__XOVER_EXP,
               "public and internal crossover numbers differ");

#define NAME_BIN_(id, name, picks, best, expr) name "bin",
#define NAME_EXP_(id, name, picks, best, expr) name "exp",
static const char *const names_bin[] = {DEVO__STRATEGIES(NAME_BIN_)};
static const char *const names_exp[] = {DEVO__STRATEGIES(NAME_EXP_)};
#undef NAME_BIN_
#undef NAME_EXP_

const char *devo_strategy_name(int strategy, int crossover)
{
  if (strategy < 0 || strategy >= DEVO__STRAT_COUNT)
    return NULL;
  if (crossover == DEVO_CROSSOVER_BIN)
    return names_bin[strategy];
  if (crossover == DEVO_CROSSOVER_EXP)
    return names_exp[strategy];
  return NULL;
}

int devo_strategy_parse(const char *name, int *strategy, int *crossover)
{
  int k;
  if (!name)
    return DEVO_E_INVALID;
  for (k = 0; k < DEVO__STRAT_COUNT; ++k) {
    if (strcmp(name, names_bin[k]) == 0 || strcmp(name, names_exp[k]) == 0) {
      if (strategy)
        *strategy = k;
      if (crossover)
        *crossover = strcmp(name, names_bin[k]) == 0 ? DEVO_CROSSOVER_BIN : DEVO_CROSSOVER_EXP;
      return DEVO_OK;
    }
  }
  return DEVO_E_INVALID;
}

int devo_strategy_min_np(int strategy)
{
  if (strategy < 0 || strategy >= DEVO__STRAT_COUNT)
    return 0;
  return devo__strategy_min_np(strategy);
}

/* The public and internal variants have the same members (devo.h, problems/de_variant.h): one
 * list, for both directions of the copy. */
#define VARIANT_MEMBERS(X)                                                                         \
  X(strategy)                                                                                      \
  X(crossover)                                                                                     \
  X(jde) X(tau1) X(tau2) X(fl) X(fu) X(crl) X(cru) X(gobl) X(adapt) X(p) X(arc_rate) X(hist) X(c)  \
      X(lpsr) X(np_min)
#define COPY_MEMBER_(m) to->m = from->m;

static void from_internal(const devo__variant *from, devo_variant *to)
{
  VARIANT_MEMBERS(COPY_MEMBER_)
}

static void to_internal(const devo_variant *from, devo__variant *to)
{
  VARIANT_MEMBERS(COPY_MEMBER_)
}

void devo_variant_init(devo_variant *v)
{
  devo__variant d = devo__variant_default();
  from_internal(&d, v);
}

#define verr(err, errlen, ...) devo__errf((err), (errlen), DEVO_E_INVALID, __VA_ARGS__)

/* Each test is false for NaN. */
static int in01(double x)
{
  return x >= 0.0 && x <= 1.0;
}

/* The JADE/SHADE fields (devo.h, "JADE, SHADE, L-SHADE"). */
static int shade_check(const devo_variant *v, char *err, size_t errlen)
{
  if (v->adapt != DEVO_ADAPT_NONE && v->adapt != DEVO_ADAPT_JADE && v->adapt != DEVO_ADAPT_SHADE)
    return verr(err, errlen, "adapt %d is not a DEVO_ADAPT_* value", v->adapt);
  if (!(v->p > 0.0 && v->p <= 1.0))
    return verr(err, errlen, "pbest rate p = %.17g is out of range (0, 1]", v->p);
  if (!(v->arc_rate >= 0.0 && v->arc_rate <= 10.0))
    return verr(err, errlen, "archive rate = %.17g is out of range [0, 10]", v->arc_rate);
  if (v->hist < 1 || v->hist > 100000)
    return verr(err, errlen, "memory size H = %d is out of range [1, 100000]", v->hist);
  if (!in01(v->c))
    return verr(err, errlen, "JADE learning rate c = %.17g is out of range [0, 1]", v->c);
  if (v->lpsr != 0 && v->lpsr != 1)
    return verr(err, errlen, "lpsr must be 0 or 1, not %d", v->lpsr);
  if (v->np_min < 4 || v->np_min > DEVO__MAX_NP)
    return verr(err, errlen, "NP_min = %d is out of range [4, %d]", v->np_min, DEVO__MAX_NP);
  if (v->lpsr && v->adapt != DEVO_ADAPT_SHADE)
    return verr(err, errlen, "the population size reduction (lpsr) needs SHADE (adapt 3)");
  if (v->adapt != DEVO_ADAPT_NONE && v->jde)
    return verr(err, errlen, "JADE/SHADE adapt F and CR themselves: jDE must be off");
  if (v->adapt != DEVO_ADAPT_NONE && v->gobl > 0.0)
    return verr(err, errlen, "JADE/SHADE run without GOBL (p_o must be 0)");
  return DEVO_OK;
}

int devo_variant_check(const devo_variant *v, char *err, size_t errlen)
{
  if (!v)
    return verr(err, errlen, "no variant given");
  if (v->strategy < 0 || v->strategy >= DEVO__STRAT_COUNT)
    return verr(err, errlen, "strategy %d is not a DEVO_STRATEGY_* value", v->strategy);
  if (v->crossover != DEVO_CROSSOVER_BIN && v->crossover != DEVO_CROSSOVER_EXP)
    return verr(err, errlen, "crossover %d is not a DEVO_CROSSOVER_* value", v->crossover);
  if (v->jde != 0 && v->jde != 1)
    return verr(err, errlen, "jde must be 0 or 1, not %d", v->jde);
  if (!in01(v->tau1))
    return verr(err, errlen, "jDE tau1 = %.17g is out of range [0, 1]", v->tau1);
  if (!in01(v->tau2))
    return verr(err, errlen, "jDE tau2 = %.17g is out of range [0, 1]", v->tau2);
  if (!(v->fl > 0.0 && v->fl <= 2.0))
    return verr(err, errlen, "jDE F_l = %.17g is out of range (0, 2]", v->fl);
  if (!(v->fu >= 0.0 && v->fu <= 2.0))
    return verr(err, errlen, "jDE F_u = %.17g is out of range [0, 2]", v->fu);
  if (!(v->fl + v->fu <= 2.0))
    return verr(err, errlen, "jDE F_l + F_u = %.17g exceeds 2 (F must stay in (0, 2])",
                v->fl + v->fu);
  if (!in01(v->crl))
    return verr(err, errlen, "jDE CR_l = %.17g is out of range [0, 1]", v->crl);
  if (!in01(v->cru))
    return verr(err, errlen, "jDE CR_u = %.17g is out of range [0, 1]", v->cru);
  if (!(v->crl + v->cru <= 1.0))
    return verr(err, errlen, "jDE CR_l + CR_u = %.17g exceeds 1 (CR must stay in [0, 1])",
                v->crl + v->cru);
  if (!in01(v->gobl))
    return verr(err, errlen, "GOBL probability p_o = %.17g is out of range [0, 1]", v->gobl);
  return shade_check(v, err, errlen);
}

int devo_variant_preset(devo_variant *v, const char *preset, char *err, size_t errlen)
{
  if (!v)
    return verr(err, errlen, "no variant given");
  devo_variant_init(v);
  if (preset && strcmp(preset, "de") == 0)
    return DEVO_OK;
  if (preset && strcmp(preset, "jde") == 0) {
    v->jde = 1;
    return DEVO_OK;
  }
  if (preset && strcmp(preset, "gojde") == 0) {
    /* GOjDE (Wang, Rahnamayan, Wu 2013) as issue 18 gives its published setting */
    v->crossover = DEVO_CROSSOVER_EXP;
    v->jde = 1;
    v->fl = 0.2;
    v->fu = 0.2;
    v->crl = 0.8;
    v->cru = 0.2;
    v->gobl = 0.05;
    return DEVO_OK;
  }
  if (preset && strcmp(preset, "jade") == 0) {
    /* Zhang and Sanderson 2009: p = 0.05, c = 0.1, archive as large as the population */
    v->adapt = DEVO_ADAPT_JADE;
    v->p = DEVO__JADE_P;
    v->c = DEVO__JADE_C;
    v->arc_rate = DEVO__JADE_ARC;
    return DEVO_OK;
  }
  if (preset && strcmp(preset, "shade") == 0) {
    /* Tanabe and Fukunaga 2013 (H = 100; their p_i in [2/NP, 0.2] is fixed at its mean 0.11) */
    v->adapt = DEVO_ADAPT_SHADE;
    v->hist = DEVO__SHADE_H;
    v->p = DEVO__SHADE_P;
    v->arc_rate = DEVO__SHADE_ARC;
    return DEVO_OK;
  }
  if (preset && strcmp(preset, "lshade") == 0) {
    /* Tanabe and Fukunaga 2014, section IV: H = 6, p = 0.11, r_arc = 2.6, NP_min = 4 */
    v->adapt = DEVO_ADAPT_SHADE;
    v->hist = DEVO__LSHADE_H;
    v->p = DEVO__LSHADE_P;
    v->arc_rate = DEVO__LSHADE_ARC;
    v->np_min = DEVO__LSHADE_NP_MIN;
    v->lpsr = 1;
    return DEVO_OK;
  }
  if (err && errlen > 0)
    snprintf(err, errlen, "unknown algorithm '%s' (expected de, jde, gojde, jade, shade or lshade)",
             preset ? preset : "(null)");
  return DEVO_E_INVALID;
}

void devo_solver_get_variant(const devo_solver *s, devo_variant *v)
{
  from_internal(&s->o.var, v);
}

static int guard(devo_solver *s)
{
  if (!s)
    return DEVO_E_INVALID;
  if (s->running)
    return devo__set_err(s, DEVO_E_STATE, "cannot change options during a solve");
  return DEVO_OK;
}

int devo_solver_set_variant(devo_solver *s, const devo_variant *v)
{
  char msg[DEVO__ERRLEN];
  int st = guard(s);
  if (st != DEVO_OK)
    return st;
  if (devo_variant_check(v, msg, sizeof msg) != DEVO_OK)
    return devo__set_err(s, DEVO_E_INVALID, "%s", msg);
  to_internal(v, &s->o.var);
  return DEVO_OK;
}

int devo_solver_set_strategy(devo_solver *s, int strategy, int crossover)
{
  devo_variant v;
  if (!s)
    return DEVO_E_INVALID;
  devo_solver_get_variant(s, &v);
  v.strategy = strategy;
  v.crossover = crossover;
  return devo_solver_set_variant(s, &v);
}

int devo_solver_set_strategy_name(devo_solver *s, const char *name)
{
  int strategy, crossover, st = guard(s);
  if (st != DEVO_OK)
    return st;
  if (devo_strategy_parse(name, &strategy, &crossover) != DEVO_OK)
    return devo__set_err(s, DEVO_E_INVALID,
                         "unknown strategy '%s' (expected a strategy name such as rand1bin, "
                         "best2exp; devo.h lists them)",
                         name ? name : "(null)");
  return devo_solver_set_strategy(s, strategy, crossover);
}

int devo_solver_set_jde(devo_solver *s, int on, double tau1, double tau2, double fl, double fu,
                        double crl, double cru)
{
  devo_variant v;
  if (!s)
    return DEVO_E_INVALID;
  devo_solver_get_variant(s, &v);
  v.jde = on;
  v.tau1 = tau1;
  v.tau2 = tau2;
  v.fl = fl;
  v.fu = fu;
  v.crl = crl;
  v.cru = cru;
  return devo_solver_set_variant(s, &v);
}

int devo_solver_set_gobl(devo_solver *s, double p_o)
{
  devo_variant v;
  if (!s)
    return DEVO_E_INVALID;
  devo_solver_get_variant(s, &v);
  v.gobl = p_o;
  return devo_solver_set_variant(s, &v);
}

int devo_solver_set_algorithm(devo_solver *s, const char *preset)
{
  char msg[DEVO__ERRLEN];
  devo_variant v;
  int st = guard(s);
  if (st != DEVO_OK)
    return st;
  if (devo_variant_preset(&v, preset, msg, sizeof msg) != DEVO_OK)
    return devo__set_err(s, DEVO_E_INVALID, "%s", msg);
  return devo_solver_set_variant(s, &v);
}

int devo_solver_jde_state(devo_solver *s, double *F, double *CR)
{
  if (!s || !s->have_best || !s->bk)
    return DEVO_E_STATE;
  if (!s->run_var.jde)
    return devo__set_err(s, DEVO_E_INVALID, "the last solve ran without jDE");
  if (!s->bk->adapt_state)
    return devo__set_err(s, DEVO_E_INVALID, "the %s backend cannot report jDE's state",
                         s->bk->name);
  return s->bk->adapt_state(s, F, CR);
}

int devo_solver_set_shade(devo_solver *s, int adapt, double p, double arc_rate, int hist, double c,
                          int lpsr, int np_min)
{
  devo_variant v;
  if (!s)
    return DEVO_E_INVALID;
  devo_solver_get_variant(s, &v);
  v.adapt = adapt;
  v.p = p;
  v.arc_rate = arc_rate;
  v.hist = hist;
  v.c = c;
  v.lpsr = lpsr;
  v.np_min = np_min;
  return devo_solver_set_variant(s, &v);
}

int devo_solver_shade_state(devo_solver *s, devo_shade_state *st, double *archive, double *m_cr,
                            double *m_f, double *F, double *CR)
{
  if (!s || !s->have_best || !s->bk)
    return DEVO_E_STATE;
  if (!devo__variant_shade(&s->run_var))
    return devo__set_err(s, DEVO_E_INVALID, "the last solve ran without JADE or SHADE");
  if (!s->bk->shade_state)
    return devo__set_err(s, DEVO_E_INVALID, "the %s backend cannot report JADE/SHADE's state",
                         s->bk->name);
  return s->bk->shade_state(s, st, archive, m_cr, m_f, F, CR);
}

/* The name of the family's algorithm in v, for messages. */
static const char *shade_name(const devo__variant *v)
{
  return v->adapt == DEVO__ADAPT_JADE ? "jade" : (v->lpsr ? "lshade" : "shade");
}

/* devo_solve's check of the variant against the run (solver.c's validate). */
int devo__variant_validate(devo_solver *s)
{
  const devo__opts *o = &s->o;
  int need = devo__strategy_min_np(o->var.strategy);
  if (devo__variant_shade(&o->var)) {
    if (o->var.lpsr && o->var.np_min > o->np)
      return devo__set_err(s, DEVO_E_INVALID,
                           "lshade: NP_min = %d is above the initial population size %d",
                           o->var.np_min, o->np);
    if (o->var.lpsr && o->max_evals == 0 && o->max_gens == 0 && o->time_limit == 0.0)
      return devo__set_err(s, DEVO_E_INVALID,
                           "lshade needs an evaluation, generation or time budget (its population "
                           "size follows it)");
    return DEVO_OK; /* NP >= 4 (the setter) is all current-to-pbest/1 needs */
  }
  if (o->np < need)
    return devo__set_err(s, DEVO_E_INVALID,
                         "strategy %s needs a population of at least %d (it is %d)",
                         devo_strategy_name(o->var.strategy, o->var.crossover), need, o->np);
  return DEVO_OK;
}

/* THE place where a backend without JADE/SHADE (no shade_state hook; the CPU and CUDA backends
 * both have it, and the no-CUDA stand-in answers DEVO_E_NODEVICE from its start as for every
 * run) refuses them; DEVO_BACKEND_AUTO picks the CPU instead (solver.c). */
int devo__variant_backend_check(devo_solver *s, const devo_backend *bk)
{
  if (devo__variant_shade(&s->o.var) && !bk->shade_state)
    return devo__set_err(s, DEVO_E_INVALID, "the %s backend does not run %s (use the CPU backend)",
                         bk->name, shade_name(&s->o.var));
  return DEVO_OK;
}
