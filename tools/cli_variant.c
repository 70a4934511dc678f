/* SPDX-License-Identifier: MIT */
/* cli_variant.c: the DE variant options that `devo solve` and `devo schedule` share (--strategy,
 * --algorithm, --jde, --jde-*, --gobl; devo.h "DE variants"): parsing with one-line errors that
 * name the option, the preset applied first and the explicit options over it, the help text and
 * the JSON fields. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"

const char *const cli_variant_names[] = {
    "--strategy=",    "--algorithm=", "--jde",      "--jde-tau1=", "--jde-tau2=", "--jde-fl=",
    "--jde-fu=",      "--jde-crl=",   "--jde-cru=", "--gobl=",     "--pbest=",    "--archive-rate=",
    "--memory-size=", "--jade-c=",    "--np-min=",  NULL};
enum {
  V_STRATEGY,
  V_ALGO,
  V_JDE,
  V_TAU1,
  V_TAU2,
  V_FL,
  V_FU,
  V_CRL,
  V_CRU,
  V_GOBL,
  V_PBEST,
  V_ARC,
  V_HIST,
  V_JADE_C,
  V_NPMIN,
  V_COUNT
};

/* The strategies' names come from the library's table (adding one there lists it here). */
void cli_variant_print_help(FILE *f)
{
  int k, col = 22;
  fputs("  --strategy NAME     mutation strategy + crossover (SciPy's names; docs/variants.md):\n"
        "                      ",
        f);
  for (k = 0; devo_strategy_name(k, DEVO_CROSSOVER_BIN); ++k) {
    const char *name = devo_strategy_name(k, DEVO_CROSSOVER_BIN);
    int w = (int)strlen(name) + 6; /* "NAME/exp, " */
    if (k && col + w > 94) {       /* wrap under the first name */
      fputs(",\n                      ", f);
      col = 22;
    } else if (k) {
      fputs(", ", f);
    }
    fprintf(f, "%s/exp", name);
    col += w;
  }
  fputs(" (default rand1bin)\n", f);
  fputs("  --algorithm A       preset, applied before the options below:\n"
        "                        de    = --strategy rand1bin (classic DE, the default)\n"
        "                        jde   = --strategy rand1bin --jde (tau1 = tau2 = 0.1, F_l = 0.1,\n"
        "                                F_u = 0.9, CR_l = 0, CR_u = 1: Brest et al. 2006)\n"
        "                        gojde = --strategy rand1exp --jde --jde-fl 0.2 --jde-fu 0.2\n"
        "                                --jde-crl 0.8 --jde-cru 0.2 --gobl 0.05 (GOjDE)\n"
        "                        jade  = current-to-pbest/1/bin + archive, F and CR adapted:\n"
        "                                --pbest 0.05 --archive-rate 1 --jade-c 0.1 (Zhang and\n"
        "                                Sanderson 2009)\n"
        "                        shade = the same with a success history: --memory-size 100\n"
        "                                --pbest 0.11 --archive-rate 1 (Tanabe and Fukunaga 2013)\n"
        "                        lshade = SHADE + linear population size reduction from\n"
        "                                --np (default 18 x dim) to --np-min 4: --memory-size 6\n"
        "                                --pbest 0.11 --archive-rate 2.6 (Tanabe, Fukunaga 2014)\n"
        "  --jde               self-adapting F and CR per individual (jDE; --f, --cr then unused)\n"
        "  --jde-tau1 P        probability of a new F, in [0, 1] (default 0.1)\n"
        "  --jde-tau2 P        probability of a new CR, in [0, 1] (default 0.1)\n"
        "  --jde-fl X          new F = F_l + u F_u: F_l in (0, 2] (default 0.1)\n"
        "  --jde-fu X          F_u in [0, 2], F_l + F_u <= 2 (default 0.9)\n"
        "  --jde-crl X         new CR = CR_l + u CR_u: CR_l in [0, 1] (default 0)\n"
        "  --jde-cru X         CR_u in [0, 1], CR_l + CR_u <= 1 (default 1)\n"
        "  --gobl P            generalized opposition-based learning: each generation is a jump\n"
        "                      with probability P, in [0, 1] (default 0: off)\n"
        "  --pbest P           jade/shade/lshade: pbest among the best max(2, round(P NP)),\n"
        "                      P in (0, 1]\n"
        "  --archive-rate R    jade/shade/lshade: archive capacity round(R NP), R in [0, 10]\n"
        "  --memory-size H     shade/lshade: success history size, 1 .. 100000\n"
        "  --jade-c C          jade: learning rate of mu_CR and mu_F, in [0, 1]\n"
        "  --np-min N          lshade: final population size, 4 .. --np (default 4)\n",
        f);
}

int cli_variant_index(const char *const *names, int k)
{
  int j;
  for (j = 0; cli_variant_names[j]; ++j)
    if (strcmp(names[k], cli_variant_names[j]) == 0)
      return j;
  return -1;
}

void cli_variant_init(cli_variant *cv)
{
  memset(cv, 0, sizeof *cv);
  devo_variant_init(&cv->v);
}

static int in_range(const char *cmd, const char *opt, const char *val, double *out, double lo,
                    int lo_open, double hi)
{
  if (cli_double(cmd, opt, val, out))
    return CLI_USAGE;
  if (!((lo_open ? *out > lo : *out >= lo) && *out <= hi))
    return cli_usage_error(cmd, "%s must be in %s%g, %g], got %s", opt, lo_open ? "(" : "[", lo, hi,
                           val);
  return 0;
}

int cli_variant_option(const char *cmd, int which, const char *val, cli_variant *cv)
{
  double *slot[V_COUNT] = {NULL};
  static const char *const opt[V_COUNT] = {
      "--strategy", "--algorithm",    "--jde",         "--jde-tau1", "--jde-tau2",
      "--jde-fl",   "--jde-fu",       "--jde-crl",     "--jde-cru",  "--gobl",
      "--pbest",    "--archive-rate", "--memory-size", "--jade-c",   "--np-min"};
  /* the real-valued options' ranges: from 0 (excluded where lo_open) to hi */
  static const struct {
    int lo_open;
    double hi;
  } range[V_COUNT] = {
      [V_TAU1] = {0, 1.0}, [V_TAU2] = {0, 1.0},  [V_FL] = {1, 2.0},   [V_FU] = {0, 2.0},
      [V_CRL] = {0, 1.0},  [V_CRU] = {0, 1.0},   [V_GOBL] = {0, 1.0}, [V_PBEST] = {1, 1.0},
      [V_ARC] = {0, 10.0}, [V_JADE_C] = {0, 1.0}};
  slot[V_TAU1] = &cv->tau1, slot[V_TAU2] = &cv->tau2, slot[V_FL] = &cv->fl;
  slot[V_FU] = &cv->fu, slot[V_CRL] = &cv->crl, slot[V_CRU] = &cv->cru, slot[V_GOBL] = &cv->gobl;
  slot[V_PBEST] = &cv->p, slot[V_ARC] = &cv->arc_rate, slot[V_JADE_C] = &cv->c;
  switch (which) {
  case V_STRATEGY:
    if (devo_strategy_parse(val, &cv->strategy, &cv->crossover) != DEVO_OK)
      return cli_usage_error(cmd, "--strategy: unknown strategy '%s' (see devo %s --help)", val,
                             cmd);
    break;
  case V_ALGO: {
    devo_variant t;
    if (devo_variant_preset(&t, val, NULL, 0) != DEVO_OK)
      return cli_usage_error(
          cmd, "--algorithm: unknown value '%s' (de, jde, gojde, jade, shade or lshade)", val);
    cv->algorithm = val;
    break;
  }
  case V_JDE:
    break;
  case V_HIST:
    if (cli_int(cmd, opt[which], val, &cv->hist))
      return CLI_USAGE;
    if (cv->hist < 1 || cv->hist > 100000)
      return cli_usage_error(cmd, "--memory-size must be in [1, 100000], got %s", val);
    break;
  case V_NPMIN:
    if (cli_int(cmd, opt[which], val, &cv->np_min))
      return CLI_USAGE;
    if (cv->np_min < 4 || cv->np_min > 10000000)
      return cli_usage_error(cmd, "--np-min must be in [4, 10000000], got %s", val);
    break;
  default:
    if (which < 0 || which >= V_COUNT || !slot[which])
      return CLI_USAGE;
    if (in_range(cmd, opt[which], val, slot[which], 0.0, range[which].lo_open, range[which].hi))
      return CLI_USAGE;
    break;
  }
  cv->set |= 1 << which;
  return 0;
}

/* The jade/shade/lshade options over the preset: each only with the algorithms that read it. */
static int shade_finish(const char *cmd, cli_variant *cv)
{
  devo_variant *v = &cv->v;
  const int any = (1 << V_PBEST) | (1 << V_ARC) | (1 << V_HIST) | (1 << V_JADE_C) | (1 << V_NPMIN);
  if ((cv->set & any) && v->adapt == DEVO_ADAPT_NONE)
    return cli_usage_error(cmd, "--pbest, --archive-rate, --memory-size, --jade-c and --np-min "
                                "need --algorithm jade, shade or lshade");
  if ((cv->set & (1 << V_HIST)) && v->adapt != DEVO_ADAPT_SHADE)
    return cli_usage_error(cmd, "--memory-size needs --algorithm shade or lshade");
  if ((cv->set & (1 << V_JADE_C)) && v->adapt != DEVO_ADAPT_JADE)
    return cli_usage_error(cmd, "--jade-c needs --algorithm jade");
  if ((cv->set & (1 << V_NPMIN)) && !v->lpsr)
    return cli_usage_error(cmd, "--np-min needs --algorithm lshade");
  if (v->adapt != DEVO_ADAPT_NONE && (cv->set & ((1 << V_STRATEGY) | (1 << V_JDE) | (1 << V_GOBL))))
    return cli_usage_error(cmd, "--strategy, --jde and --gobl do not apply to jade, shade and "
                                "lshade (current-to-pbest/1/bin, self-adapting)");
  if (cv->set & (1 << V_PBEST))
    v->p = cv->p;
  if (cv->set & (1 << V_ARC))
    v->arc_rate = cv->arc_rate;
  if (cv->set & (1 << V_HIST))
    v->hist = cv->hist;
  if (cv->set & (1 << V_JADE_C))
    v->c = cv->c;
  if (cv->set & (1 << V_NPMIN))
    v->np_min = cv->np_min;
  return 0;
}

int cli_variant_finish(const char *cmd, cli_variant *cv)
{
  devo_variant *v = &cv->v;
  int jde_params =
      (1 << V_TAU1) | (1 << V_TAU2) | (1 << V_FL) | (1 << V_FU) | (1 << V_CRL) | (1 << V_CRU);
  if (cv->algorithm)
    devo_variant_preset(v, cv->algorithm, NULL, 0);
  if (cv->set & (1 << V_STRATEGY)) {
    v->strategy = cv->strategy;
    v->crossover = cv->crossover;
  }
  if (cv->set & (1 << V_JDE))
    v->jde = 1;
  if ((cv->set & jde_params) && !v->jde)
    return cli_usage_error(cmd, "--jde-* options need --jde (or --algorithm jde or gojde)");
  if (cv->set & (1 << V_TAU1))
    v->tau1 = cv->tau1;
  if (cv->set & (1 << V_TAU2))
    v->tau2 = cv->tau2;
  if (cv->set & (1 << V_FL))
    v->fl = cv->fl;
  if (cv->set & (1 << V_FU))
    v->fu = cv->fu;
  if (cv->set & (1 << V_CRL))
    v->crl = cv->crl;
  if (cv->set & (1 << V_CRU))
    v->cru = cv->cru;
  if (cv->set & (1 << V_GOBL))
    v->gobl = cv->gobl;
  if (!(v->fl + v->fu <= 2.0))
    return cli_usage_error(cmd, "--jde-fl + --jde-fu must be <= 2 (F stays in (0, 2]), got %g",
                           v->fl + v->fu);
  if (!(v->crl + v->cru <= 1.0))
    return cli_usage_error(cmd, "--jde-crl + --jde-cru must be <= 1 (CR stays in [0, 1]), got %g",
                           v->crl + v->cru);
  return shade_finish(cmd, cv);
}

/* The preset given, else "jde" or "de" by whether jDE is on (the JSON's other fields say the
 * rest: strategy, jDE's settings, GOBL). */
const char *cli_variant_algorithm(const cli_variant *cv)
{
  if (cv->algorithm)
    return cv->algorithm;
  return cv->v.jde ? "jde" : "de";
}

int cli_variant_means(devo_solver *s, int np, double *mf, double *mcr)
{
  double *F = (double *)malloc(2 * (size_t)np * sizeof(double));
  double sf = 0.0, scr = 0.0;
  int i;
  if (!F || devo_solver_jde_state(s, F, F + np) != DEVO_OK) {
    free(F);
    return -1;
  }
  for (i = 0; i < np; ++i) {
    sf += F[i];
    scr += F[np + i];
  }
  free(F);
  *mf = sf / np;
  *mcr = scr / np;
  return 0;
}

void cli_variant_run_state(devo_solver *s, const cli_variant *cv, int np, cli_variant_run *out)
{
  devo_shade_state st;
  double *buf = NULL;
  int k;
  out->mean_f = out->mean_cr = out->memory_f = out->memory_cr = (double)NAN;
  out->np = out->archive = -1;
  if (cv->v.jde && cli_variant_means(s, np, &out->mean_f, &out->mean_cr) != 0)
    out->mean_f = out->mean_cr = (double)NAN;
  if (cv->v.adapt == DEVO_ADAPT_NONE ||
      devo_solver_shade_state(s, &st, NULL, NULL, NULL, NULL, NULL) != DEVO_OK)
    return;
  out->np = st.np;
  out->archive = st.archive_size;
  buf = (double *)malloc(sizeof *buf * (2 * (size_t)st.hist + 2 * (size_t)st.np_gen + 1));
  if (!buf || devo_solver_shade_state(s, &st, NULL, buf, buf + st.hist, buf + 2 * st.hist,
                                      buf + 2 * st.hist + st.np_gen) != DEVO_OK) {
    free(buf);
    return;
  }
  out->memory_f = out->memory_cr = 0.0;
  for (k = 0; k < st.hist; ++k) {
    out->memory_cr += buf[k] < 0.0 ? 0.0 : buf[k] / st.hist; /* -1: terminal, CR_i = 0 */
    out->memory_f += buf[st.hist + k] / st.hist;
  }
  if (st.np_gen > 0) {
    out->mean_f = out->mean_cr = 0.0;
    for (k = 0; k < st.np_gen; ++k) {
      out->mean_f += buf[2 * st.hist + k] / st.np_gen;
      out->mean_cr += buf[2 * st.hist + st.np_gen + k] / st.np_gen;
    }
  }
  free(buf);
}

/* "key":[lo,hi] */
static void json_range(json_out *j, const char *key, double lo, double hi)
{
  json_key(j, key);
  json_arr(j);
  json_num(j, lo);
  json_num(j, hi);
  json_end_arr(j);
}

/* The "shade" member's run state: F_i in (0, 1] (Cauchy, redrawn while <= 0, cut at 1), CR_i in
 * [0, 1] (normal, clipped), the means and sizes of the run. */
static void shade_run_json(json_out *j, const cli_variant_run *run)
{
  json_range(j, "f_range", 0.0, 1.0);
  json_range(j, "cr_range", 0.0, 1.0);
  if (!isnan(run->mean_f)) {
    json_kv_num(j, "mean_f", run->mean_f);
    json_kv_num(j, "mean_cr", run->mean_cr);
  }
  if (!isnan(run->memory_f)) {
    json_kv_num(j, "memory_mean_f", run->memory_f);
    json_kv_num(j, "memory_mean_cr", run->memory_cr);
  }
  if (run->np >= 0) {
    json_kv_int(j, "final_np", run->np);
    json_kv_int(j, "archive", run->archive);
  }
}

static void variant_json(json_out *j, const cli_variant *cv, double mean_f, double mean_cr,
                         const cli_variant_run *run)
{
  const devo_variant *v = &cv->v;
  json_kv_str(j, "algorithm", cli_variant_algorithm(cv));
  json_kv_str(j, "strategy",
              v->adapt != DEVO_ADAPT_NONE ? "currenttopbest1bin"
                                          : devo_strategy_name(v->strategy, v->crossover));
  json_kv_num(j, "gobl", v->gobl);
  json_key(j, "shade");
  if (v->adapt == DEVO_ADAPT_NONE) {
    json_null(j);
  } else {
    json_obj(j);
    json_kv_num(j, "pbest", v->p);
    json_kv_num(j, "archive_rate", v->arc_rate);
    if (v->adapt == DEVO_ADAPT_JADE)
      json_kv_num(j, "c", v->c);
    else
      json_kv_int(j, "memory_size", v->hist);
    if (v->lpsr)
      json_kv_int(j, "np_min", v->np_min);
    if (run)
      shade_run_json(j, run);
    json_end_obj(j);
  }
  json_key(j, "jde");
  if (!v->jde) {
    json_null(j);
    return;
  }
  json_obj(j);
  json_kv_num(j, "tau1", v->tau1);
  json_kv_num(j, "tau2", v->tau2);
  json_kv_num(j, "fl", v->fl);
  json_kv_num(j, "fu", v->fu);
  json_kv_num(j, "crl", v->crl);
  json_kv_num(j, "cru", v->cru);
  if (!isnan(mean_f) && !isnan(mean_cr)) {
    json_kv_num(j, "mean_f", mean_f);
    json_kv_num(j, "mean_cr", mean_cr);
  }
  if (run) { /* F_i, CR_i start at 0.5, 0.9 and are redrawn in F_l + [0, F_u), CR_l + [0, CR_u) */
    json_kv_num(j, "f_init", 0.5);
    json_kv_num(j, "cr_init", 0.9);
    json_range(j, "f_range", v->fl, v->fl + v->fu);
    json_range(j, "cr_range", v->crl, v->crl + v->cru);
  }
  json_end_obj(j);
}

void cli_variant_json(json_out *j, const cli_variant *cv, double mean_f, double mean_cr)
{
  variant_json(j, cv, mean_f, mean_cr, NULL);
}

void cli_variant_json_run(json_out *j, const cli_variant *cv, const cli_variant_run *run)
{
  variant_json(j, cv, run->mean_f, run->mean_cr, run);
}
