/* SPDX-License-Identifier: MIT */
/* shade_trial.cuh: a generation's draws and trial (kernels/gpu_shade.cu): one vector's
 * current-to-pbest/1/bin trial, evaluation and selection (shared by the launch path's trial kernel
 * and the persistent kernel), the trial kernel drawing with devo__sh_draw, and devo__k_sh_pre, the
 * persistent kernel's closed-form draws of a whole launch made ahead. */
#ifndef DEVO_SHADE_TRIAL_CUH
#define DEVO_SHADE_TRIAL_CUH

/* Vector i's trial of generation gen with the draws w, from its row xi (fitness fo), the pbest's
 * row xp, r1's row in src and r2's row x2 (population or archive), evaluated and selected into
 * its row of dst and fdst[i]; lane 0 records F_i, CR_i, success and improvement in rec. Every
 * thread of the block calls it; ends before any block barrier after the stores. */
template <int KIND>
__device__ __forceinline__ void
devo__sh_trial_one(const devo__gpu_args &a, const devo__sh_dev &h, const devo__sh_rec &rec,
                   uint32_t gen, int i, const devo__sh_ind &w, const double *src, const double *xp,
                   const double *x2, double fo, double *dst, double *fdst,
                   const devo__de_u *u0 = NULL, devo__sh_clock *ck = NULL, const double *xr = NULL,
                   double *xnew = NULL)
{
  const int d = a.dim, lane = (int)threadIdx.x, lanes = (int)blockDim.x;
  const size_t row = (size_t)i * (size_t)d;
  const double *xi = src + row, *x1 = src + (size_t)w.r1 * d;
  double *t = a.trial_shared ? devo__sm + DEVO__RED_DOUBLES : dst + row;
  for (int j = lane; j < d; j += lanes) {
    /* the persistent kernel (D <= threads): coordinate lane's uniforms drawn ahead (u0) and its
     * own coordinate kept in a register (xr; the new one goes to *xnew) */
    const bool mine = j == lane;
    const devo__de_u u = u0 && mine ? *u0 : devo__de_coord_ks(&a.ks, gen, (uint32_t)i, (uint32_t)j);
    const double xij = xr && mine ? *xr : xi[j];
    /* the donors' loads only where the mutant is taken (devo__sh_trial_u's test) */
    t[j] = (u.cr < w.cr || (uint32_t)j == w.jrand)
               ? devo__sh_trial_u(&w, u, (uint32_t)j, xij, xp[j], x1[j], x2[j], a.v.lower,
                                  a.v.upper, a.bounds)
               : xij;
  }
  __syncthreads();
  devo__sh_tick(ck, 1);
  const double ft = devo__sh_eval<KIND>(a, h, t, i, devo__sm);
  devo__sh_tick(ck, 2);
  const bool acc = ft <= fo; /* devo's rule: the trial wins ties */
  double *xo = dst + row;
  if (xr) { /* D <= threads: one coordinate per thread, the parent's in a register */
    if (lane < d) {
      *xnew = acc ? t[lane] : *xr;
      if (a.trial_shared || !acc)
        xo[lane] = *xnew;
    }
  } else if (a.trial_shared) {
    for (int j = lane; j < d; j += lanes)
      xo[j] = acc ? t[j] : xi[j];
  } else if (!acc) {
    for (int j = lane; j < d; j += lanes)
      xo[j] = xi[j];
  }
  if (lane == 0) {
    fdst[i] = acc ? ft : fo;
    rec.F[i] = w.f;
    rec.CR[i] = w.cr;
    rec.succ[i] = ft < fo ? 1 : 0;
    rec.delta[i] = devo__sh_delta(fo, ft);
    devo__gpu_note_target(a, acc ? ft : fo, gen);
  }
}

/* Generation gen's trial of vector blockIdx.x (< np), evaluated and selected into buffer
 * cur ^ 1. Every thread of the block runs it. */
template <int KIND>
__global__ void __launch_bounds__(1024)
    devo__k_sh_trial(devo__gpu_args a, devo__sh_dev h, uint32_t gen, int cur, int np)
{
  __shared__ devo__sh_ind s_draw;
  __shared__ int s_pbest;
  if (devo__gpu_done_before(a, gen))
    return;
  devo__gpu_stage<KIND>(a, devo__sm);
  const int i = (int)blockIdx.x, d = a.dim;
  const double *src = h.pop[cur];
  const uint32_t asz = h.ctl->asz;
  if (threadIdx.x == 0) {
    s_draw = devo__sh_draw(&h.var, a.seed, gen, (uint32_t)i, (uint32_t)np, asz, (uint32_t)d, h.mcr,
                           h.mf);
    s_pbest = h.order[s_draw.kbest];
  }
  __syncthreads();
  const devo__sh_ind w = s_draw;
  const double *x2 =
      w.r2 < (uint32_t)np ? src + (size_t)w.r2 * d : h.arc + (size_t)(w.r2 - (uint32_t)np) * d;
  devo__sh_trial_one<KIND>(a, h, devo__sh_rec_at(h, 0, np), gen, i, w, src,
                           src + (size_t)s_pbest * d, x2, h.fit[cur][i], h.pop[cur ^ 1],
                           h.fit[cur ^ 1]);
}

/* Generations gen1 .. gen1 + n - 1 of np individuals: each (generation, individual)'s draws that
 * need neither the memory nor |A| nor the ranks (devo__sh_pre, all its Cauchy terms drawn) and its
 * archive word, a thread each (grid-stride). The closed forms (tan, log, cos) are long dependent
 * chains: drawn here, all at once, they stay off the persistent kernel's path. */
__global__ void devo__k_sh_pre(devo__gpu_args a, devo__sh_pre *pre, uint32_t *aw, uint32_t gen1,
                               uint32_t n, int np)
{
  const size_t total = (size_t)n * (size_t)np;
  for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < total;
       x += (size_t)gridDim.x * blockDim.x) {
    const uint32_t gen = gen1 + (uint32_t)(x / (size_t)np), i = (uint32_t)(x % (size_t)np);
    devo__sh_pre p;
    devo__sh_pre_words(&p, a.seed, gen, i);
    for (int t = 0; t < DEVO__SH_PRE_Q; ++t)
      p.q[t] = devo__sh_cauchy_q(a.seed, gen, i, t);
    p.nq = devo__sh_normal_q(p.b0, p.b1);
    pre[x] = p;
    aw[x] = devo__sh_arc_word(a.seed, gen, i);
  }
}

#endif /* DEVO_SHADE_TRIAL_CUH */
