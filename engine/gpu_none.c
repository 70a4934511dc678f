/* SPDX-License-Identifier: MIT */
/* gpu_none.c: the GPU backend of a build without CUDA (-DDEVO_CUDA=OFF or no nvcc): every entry
 * answers DEVO_E_NODEVICE, so the API stays the same in both builds. */
#include <stdio.h>
#include <string.h>

#include "../kernels/gpu_variants.cuh"
#include "gpu_ls.h"
#include "internal.h"

#define NO_CUDA "devo was built without CUDA"

/* Every entry's answer: the message (when asked for) and DEVO_E_NODEVICE. */
static int no_cuda(char *err, size_t errlen)
{
  if (err && errlen)
    snprintf(err, errlen, NO_CUDA);
  return DEVO_E_NODEVICE;
}

int devo__gpu_probe(char *msg, size_t msglen)
{
  if (msg && msglen)
    snprintf(msg, msglen, NO_CUDA);
  return 0;
}

int devo__gpu_count(void)
{
  return 0;
}

int devo__gpu_set_device(int d)
{
  (void)d;
  return 0;
}

int devo__gpu_get_device(void)
{
  return -1;
}

/* no batch kernels without CUDA: every trial alone (its GPU start fails with DEVO_E_NODEVICE) */
int devo__gpu_batch_run(devo_solver *const *tr, int n, devo__trial_done_fn done, void *ud)
{
  for (int k = 0; k < n; ++k)
    done(ud, k, devo__interrupted(tr[k]) ? DEVO_OK : devo_solve(tr[k]));
  return DEVO_OK;
}

/* no GPU runs without CUDA: each solver's own run (its backend is the CPU's) */
int devo__gpu_batch_step(void **state, devo_solver *const *s, int n, int64_t ngens, int *st)
{
  (void)state;
  for (int k = 0; k < n; ++k)
    st[k] = s[k]->bk->run(s[k], ngens);
  return DEVO_OK;
}

void devo__gpu_step_free(void *state)
{
  (void)state;
}

int devo__gpu_migrate(void **state, devo_solver *const *isl, int n, const int *src)
{
  (void)state;
  (void)n;
  (void)src;
  return devo__set_err(isl[0], DEVO_E_STATE, "no GPU run to take a migrant: " NO_CUDA);
}

int devo__gpu_put(devo_solver *s, const double *x, double f, int *replaced)
{
  (void)x;
  (void)f;
  *replaced = 0;
  return devo__set_err(s, DEVO_E_STATE, "no GPU run to take a migrant: " NO_CUDA);
}

int devo__gpu_eval_points(const devo_problem *p, const double *x, int n, double *f, char *err,
                          size_t errlen)
{
  (void)p;
  (void)x;
  (void)n;
  (void)f;
  return no_cuda(err, errlen);
}

/* The naive GPU model's evaluator: without CUDA there is none, and the CPU backend's start
 * reports this status for DEVO_GPU_NAIVE. */
int devo__gpu_evaluator_create(const devo_problem *p, int nmax, const devo_allocator *al,
                               devo__gpu_evaluator **out, char *err, size_t errlen)
{
  (void)p;
  (void)nmax;
  (void)al;
  if (out)
    *out = NULL;
  return no_cuda(err, errlen);
}

int devo__gpu_evaluator_eval(devo__gpu_evaluator *e, const double *x, int n, double *f, char *err,
                             size_t errlen)
{
  (void)e;
  (void)x;
  (void)n;
  (void)f;
  return no_cuda(err, errlen);
}

const char *devo__gpu_evaluator_device(const devo__gpu_evaluator *e)
{
  (void)e;
  return "";
}

void devo__gpu_evaluator_destroy(devo__gpu_evaluator *e)
{
  (void)e;
}

int devo__gpu_copy_rate(size_t bytes, int reps, double *bytes_per_s, char *err, size_t errlen)
{
  (void)bytes;
  (void)reps;
  (void)bytes_per_s;
  return no_cuda(err, errlen);
}

static int none_start(devo_solver *s)
{
  return devo__set_err(s, DEVO_E_NODEVICE, "no GPU backend: " NO_CUDA);
}

static int none_run(devo_solver *s, int64_t ngens)
{
  (void)ngens;
  return devo__set_err(s, DEVO_E_NODEVICE, "no GPU backend: " NO_CUDA);
}

static int none_best_x(devo_solver *s, double *x)
{
  (void)x;
  return devo__set_err(s, DEVO_E_NODEVICE, "no GPU backend");
}

static int none_population(devo_solver *s, double *pop, double *fit)
{
  (void)pop;
  (void)fit;
  return devo__set_err(s, DEVO_E_NODEVICE, "no GPU backend");
}

static void none_stop(devo_solver *s)
{
  (void)s;
}

/* Never called (none_start fails first); present so that a JADE/SHADE run on the GPU without
 * CUDA gets DEVO_E_NODEVICE from none_start like every other run, not a refusal of the family. */
static int none_shade_state(devo_solver *s, devo_shade_state *st, double *archive, double *m_cr,
                            double *m_f, double *F, double *CR)
{
  (void)st;
  (void)archive;
  (void)m_cr;
  (void)m_f;
  (void)F;
  (void)CR;
  return devo__set_err(s, DEVO_E_NODEVICE, "no GPU backend: " NO_CUDA);
}

const devo_backend devo__gpu_backend = {"none",          none_start, none_run, none_best_x,
                                        none_population, none_stop,  NULL,     none_shade_state};

/* The GPU local search of engine/gpu_ls.h (kernels/gpu_sched_ls.cu with CUDA). */
int devo__gpu_sched_ls(const struct devo_etc *e, const int *starts, int nstarts, int *assign,
                       const devo__gls_opts *o, devo__gls_result *r, char *err, size_t errlen)
{
  (void)e;
  (void)starts;
  (void)nstarts;
  (void)assign;
  (void)o;
  if (r)
    memset(r, 0, sizeof *r);
  return no_cuda(err, errlen);
}

int devo__gpu_sched_ls_scan(const struct devo_etc *e, const int *assign, int block,
                            devo__gls_move *mv, char *err, size_t errlen)
{
  (void)e;
  (void)assign;
  (void)block;
  (void)mv;
  return no_cuda(err, errlen);
}

int devo__gpu_shade_profile(struct devo_solver *s, double *ms, int n)
{
  (void)s;
  (void)ms;
  (void)n;
  return 0;
}
