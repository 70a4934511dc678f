/* SPDX-License-Identifier: MIT */
/* gpu_ls.h: the GPU-resident memetic search for the makespan (kernels/gpu_sched_ls.cu; issue
 * 19, item 2): one thread block per schedule scans the moves and swaps off the machine that
 * finishes last in parallel, hundreds of schedules at once, with iterated-local-search
 * perturbations and a DE recombination of the chains. Internal to the library (engine/
 * schedule.c, tests, bench-gpu-ls); not installed. Without CUDA (engine/gpu_none.c) every entry
 * answers DEVO_E_NODEVICE. */
#ifndef DEVO_GPU_LS_H
#define DEVO_GPU_LS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "include/devo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct devo_etc;

typedef struct devo__gls_opts {
  uint64_t seed;
  int chains;      /* schedules searched at once, one block each: 0 = as many as the device keeps
                      resident (at most 1024; the answer then depends on the device), else
                      1 .. 4096 */
  int block;       /* threads per block: 0 = 256, else a multiple of 32 in [32, 1024] */
  int64_t steps;   /* steps per chain, >= 0; step 0 descends from the chain's start, every later
                      step builds a trial (perturbation or DE), descends and accepts it when not
                      worse; 0 = until the deadline */
  int de_every;    /* steps k de_every (k >= 1) build the trial by DE rand/1/bin over the chains'
                      schedules (Kromer encoding) instead of a perturbation; 0 = no DE; DE needs
                      chains >= 4 (fewer: no DE) */
  int perturb;     /* the perturbation of the other steps: DEVO__GLS_PERTURB_IG (0, the default)
                      or DEVO__GLS_PERTURB_RANDOM (the ablation without the large
                      neighbourhood) */
  double f, cr;    /* DE weights, (0, 2] and [0, 1] */
  double deadline; /* absolute devo__now() seconds; 0 = none (then steps must be > 0) */
  /* called by the calling thread between kernel launches with the steps per chain so far and
   * the best makespan; non-zero stops the search (DEVO_STOPPED_BY_CALLBACK). May be NULL. */
  int (*progress)(void *ud, int64_t steps, double best);
  void *progress_ud;
  /* read between kernel launches (a launch: the steps from one DE step to the next, about a
   * millisecond at 512 x 16): non-zero stops the search (DEVO_INTERRUPTED). May be NULL. */
  const volatile sig_atomic_t *interrupt;
  /* The devices of the search: ndevices 0 (or devices NULL): the calling thread's current
   * device, one search. Else devices[0 .. ndevices - 1] (CUDA device indices, 1 ..
   * DEVO__GLS_MAX_DEVICES of them; one may be listed more than once: several searches on one
   * GPU): one host thread per entry ("slot"; slot 0 is the calling thread, whose current device
   * is set back afterwards) runs the search above on its device with its own memory and stream,
   * chains as given (0: as many as that device keeps resident) and the seed
   * devo_island_seed(seed, slot) (slot 0: seed itself, so one slot is the one-device search bit
   * for bit). Every DEVO__GLS_XCHG_LAUNCHES launches each slot offers its best chain to a best
   * kept on the host, and a slot whose best is worse copies that best over its worst chain
   * (gpu_sched_ls.cu, "Several devices"). progress is called by slot 0 alone, with its steps
   * and the best over every slot known to it. */
  const int *devices;
  int ndevices;
} devo__gls_opts;

/* The most devices (slots) of one search: devo_schedule_opts.gpus's. */
#define DEVO__GLS_MAX_DEVICES DEVO_GPUS_MAX
/* Launches of a slot between two exchanges of the best schedules (with the default DE period
 * of 8, 32 steps per chain: about 4 ms at 512 x 16 on an H100). */
#define DEVO__GLS_XCHG_LAUNCHES 4

/* Perturbations (devo__gls_opts.perturb). Both draw 2 to 6 tasks (with repetition) from the
 * same random numbers; they differ in where each drawn task goes:
 * IG:     the machine other than its own where it completes first (iterated greedy's
 *         removal and greedy reinsertion: the search's large neighbourhood);
 * RANDOM: a machine other than its own drawn uniformly (the random kick of plain iterated
 *         local search, Lourenco, Martin & Stuetzle 2003: no look at the loads). */
#define DEVO__GLS_PERTURB_IG     0
#define DEVO__GLS_PERTURB_RANDOM 1

/* devo_schedule_run's DE period for the GPU search: one step in 8 a DE trial, the rest
 * perturbations. */
#define DEVO__GLS_DE_EVERY 8

typedef struct devo__gls_result {
  double makespan;    /* of the answer: the device's task-order sums, the same number as
                         devo_etc_evaluate's makespan */
  int64_t steps;      /* steps done, all chains together */
  int64_t moves;      /* local-search moves applied, all chains together */
  int64_t candidates; /* neighbourhood candidates evaluated, all chains together */
  double seconds;     /* wall time of the search loop (launches), without set-up */
  int chains, block;  /* what ran (chains: all slots together) */
  int status;         /* DEVO_OK (steps done), DEVO_TIME_LIMIT, DEVO_STOPPED_BY_CALLBACK,
                         DEVO_INTERRUPTED; of several slots the first of INTERRUPTED,
                         STOPPED_BY_CALLBACK, TIME_LIMIT that one of them ended with, else OK */
  int devices;        /* slots that ran: 1 for the one-device search */
  int64_t exchanges;  /* exchanges of the best schedules, all slots together (one per slot and
                         exchange); 0 with one slot */
  int64_t imports;    /* of these, those where the slot's best was worse than the best kept on
                         the host, which then replaced the slot's worst chain */
} devo__gls_result;

/* Improves the best of starts (nstarts >= 1 assignments of ntasks machine indices each; chain q
 * starts from starts[q % nstarts]) for the makespan and writes the best schedule found into
 * assign (never worse by devo_etc_evaluate's makespan than the best start a chain got: all of them
 * when chains >= nstarts, else the first chains). Deterministic for
 * a fixed seed, chains, block, de_every, steps and device list when no deadline is reached
 * (several slots exchange at fixed launch counts then, meeting at a barrier). With several
 * slots the answer is the best over them (ties: the lowest slot, then the lowest chain).
 * Thread-safe across calls (each call has its own device memory and stream). Returns DEVO_OK
 * (r->status says how it ended), DEVO_E_INVALID (bad options, a device index out of range, or
 * the instance needs more shared memory than the device has: err says which), DEVO_E_NODEVICE,
 * DEVO_E_NOMEM, DEVO_E_CUDA; an error of one slot fails the whole search with that slot's
 * message, prefixed with its slot and device. */
int devo__gpu_sched_ls(const struct devo_etc *e, const int *starts, int nstarts, int *assign,
                       const devo__gls_opts *o, devo__gls_result *r, char *err, size_t errlen);

struct devo_schedule_opts;
struct devo_schedule_result;

/* What the ablation of the GPU search changes (bench-gpu-ls): the DE period (as
 * devo__gls_opts.de_every, >= 0) and the perturbation (DEVO__GLS_PERTURB_*). */
typedef struct devo__gls_tune {
  int de_every;
  int perturb;
} devo__gls_tune;

/* devo_schedule_run (devo.h) with the GPU search's DE period and perturbation from tune instead
 * of DEVO__GLS_DE_EVERY and DEVO__GLS_PERTURB_IG; tune NULL: exactly devo_schedule_run. A bad
 * tune is DEVO_E_INVALID (r->message says which), not a fall-back to the CPU. Same statuses and
 * thread-safety as devo_schedule_run. */
int devo__schedule_run_tuned(const struct devo_etc *e, const struct devo_schedule_opts *o,
                             const devo__gls_tune *tune, int *assign,
                             struct devo_schedule_result *r);

/* The move that one scan of the neighbourhood picks (tests). */
typedef struct devo__gls_move {
  int crit; /* the critical machine: largest load, lowest index on ties */
  int kind; /* 0: move task t to machine other; 1: swap t with task other; -1: none */
  int t, other;
  double value;       /* the larger of the two new loads */
  int64_t candidates; /* candidates scanned */
} devo__gls_move;

/* The scan's "no candidate" index (larger than every candidate index). */
#define DEVO__GLS_NONE 0x7fffffffffffffffLL

/* The move named by candidate index idx in the order below (DEVO__GLS_NONE: none) into mv's
 * kind, t and other; n tasks, m machines. */
static inline void devo__gls_move_decode(long long idx, int n, int m, devo__gls_move *mv)
{
  const long long nm = (long long)n * m;
  if (idx == DEVO__GLS_NONE) {
    mv->kind = -1;
    mv->t = mv->other = -1;
  } else if (idx < nm) {
    mv->kind = 0;
    mv->t = (int)(idx / m);
    mv->other = (int)(idx % m);
  } else {
    mv->kind = 1;
    mv->t = (int)((idx - nm) / n);
    mv->other = (int)((idx - nm) % n);
  }
}

/* One block of block threads (as devo__gls_opts.block) scans assign's neighbourhood once and
 * reports the best candidate by (value, index): moves t -> j have index t m + j, swaps (t, u)
 * n m + t n + u. Returns DEVO_OK, DEVO_E_INVALID, DEVO_E_NODEVICE, DEVO_E_NOMEM, DEVO_E_CUDA. */
int devo__gpu_sched_ls_scan(const struct devo_etc *e, const int *assign, int block,
                            devo__gls_move *mv, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* DEVO_GPU_LS_H */
