/* SPDX-License-Identifier: MIT */
/* gpu_shade.cu: JADE, SHADE and L-SHADE (issue 24; the math is problems/de_shade.h, shared with
 * the CPU backend) on the CUDA backend, the whole run on the device: population, fitness,
 * archive, parameter memory, ranks and L-SHADE's population size reduction never cross to the
 * host during a run; between sub-chunks only the control block (best, target generation) does.
 *
 * Versions (kernels/gpu_backend.cu hands a JADE/SHADE/L-SHADE run to devo__gpu_shade_*):
 *   devo__k_sh_rank      rank_i = #{j : (f_j, j) < (f_i, i)} over NP_g, order[rank_i] = i; thread
 *                        per individual, fitness tiled through shared memory (O(NP^2), exact)
 *   devo__k_sh_trial<K>  generation g's trial, evaluation and selection, one block per vector:
 *                        devo__sh_draw, current-to-pbest/1/bin from generation g - 1's buffers
 *                        (population, archive of g - 1, memory of g - 1) into the other buffer;
 *                        records F_i, CR_i, success, delta_i
 *   devo__k_sh_update    one block: the successes' prefix counts, each success's archive slot
 *                        (devo__sh_arc_slot; the highest inserter of a slot wins by atomicMax on
 *                        an int), the memory update from the 32-lane sums of one warp
 *                        (de_shade.h's devo__sh_sum32 order), the new |A|
 *   devo__k_sh_arc_copy  the winners' parents (generation g - 1's rows) into the archive
 *   devo__k_sh_post      up to NP = DEVO__SH_FUSE_NP (default): update, archive rows and the next
 *                        generation's ranks in one block, so two launches per generation
 *   devo__k_sh_compact   L-SHADE: the survivors (rank < NP_next) into the other buffer, stable
 *   devo__k_sh_shrink_plan, devo__k_sh_shrink_copy   L-SHADE: the archive's removals simulated
 *                        on indices by one thread, then the moved rows copied
 *   devo__k_sh_eval0<K>  the initial population re-evaluated in the CPU's order
 *   devo__k_sh_persist<K>  version 3, JADE and SHADE (the default where D <= 128 threads, one
 *                        per coordinate, and every vector's block is co-resident;
 *                        DEVO__GPU_SHADE_LAUNCHES keeps the launches): up to DEVO__SH_PSUB
 *                        generations per cooperative launch, one grid barrier per generation,
 *                        after which every block computes for itself, a warp per task, what
 *                        devo__k_sh_post computes once (archive slots, memory update, |A|) from
 *                        the generation's records, copies its own parent (kept in registers) into
 *                        the archive and ranks the population's best npb (devo__sh_top_warp: only
 *                        the individuals at or below the last ranking's npb-th key can enter it,
 *                        since selection never raises a fitness). Three population buffers, so
 *                        that a parent on its way to the archive stays readable for the next
 *                        generation's trials. The closed-form draws (Cauchy, normal) and the
 *                        archive words of a whole launch come from devo__k_sh_pre beforehand.
 *   devo__k_sh_pre       those draws, a thread per (generation, individual)
 *
 * Bit-identity with the CPU reference: every draw and formula is de_shade.h's, and this file is
 * compiled with --fmad=false (CMakeLists.txt), so no product is fused into an addition here,
 * not in the shade_*.cuh it includes below, not even inside the shared problem code. The weighted
 * means need the fitness values bit for bit (delta_i = f(x_i) - f(u_i) weights them), so the
 * objective is summed in the CPU's order: classic functions and CEC F01..F04 (one rotation) by
 * terms in parallel and one thread adding them in index order (devo__sh_eval); ETC's block
 * evaluator already gives the CPU's bits. The transcendental functions (cos, sin, exp; the CPU's
 * pow) are the device's and glibc's: where they differ in the last bit (rastrigin, griewank, CEC
 * F01, F03, F04) so may the runs; sphere, rosenbrock, CEC F02 and ETC use + - * / and sqrt only and
 * are bit-identical. CEC hybrids and compositions and SOCO use the tree-ordered evaluators (last
 * bits differ from the CPU).
 *
 * Generation g on the launch path (host loop, no synchronisation per generation; src = buffer
 * cur, dst = cur ^ 1):
 *   NP_g <= DEVO__SH_FUSE_NP: trial(g) -> post(g); cur ^= 1 (post ranked the new population);
 *   else (or DEVO__GPU_SHADE_SPLIT): rank(fit[cur]) -> trial(g) -> update(g) -> arc_copy(g);
 *   L-SHADE with NP_next < NP_g: [rank(fit[cur])] -> compact (also writes the survivors' order)
 *   -> cur ^= 1; shrink_plan, shrink_copy.
 * No kernel reads a buffer that another block of the same kernel writes: trial reads pop/fit[cur],
 * the archive, memory and order and writes pop/fit[cur ^ 1] and per-index records; update writes
 * only per-index slots, the owner words and the memory; arc_copy reads pop[cur] and writes
 * archive rows, one writer per row; post is one block (its steps separated by barriers); compact
 * reads buffer cur and writes buffer cur ^ 1; shrink_copy reads rows at positions >= the new size
 * and writes rows below it (a removal moves the last member down, so a moved row always comes from
 * at or beyond the final size). */
#include <math.h>
#include <string.h>

#include "../problems/de_shade.h"
#include "gpu_common.cuh"

/* The phases, one header each (included here only; their order keeps the kernels' order in the
 * PTX, so the split changed no generated code):
 *   shade_state.cuh    launch constants, the control block, the buffers (devo__sh_dev), records,
 *                      the persistent kernel's profile clock
 *   shade_eval.cuh     the objective in the CPU's order; devo__k_sh_eval0
 *   shade_rank.cuh     the pbest ranks: devo__k_sh_rank, the persistent kernel's devo__sh_top_warp
 *   shade_update.cuh   archive slots and memory update: devo__k_sh_update, devo__k_sh_post,
 *                      devo__k_sh_arc_copy, the persistent kernel's devo__sh_slots_warp
 *   shade_shrink.cuh   L-SHADE's reduction: devo__k_sh_compact, devo__k_sh_shrink_plan/_copy
 *   shade_trial.cuh    the draws and the trial: devo__sh_trial_one, devo__k_sh_trial,
 *                      devo__k_sh_pre
 *   shade_persist.cuh  version 3: devo__k_sh_persist
 *   shade_host.cuh     host: the run's state, kernel table, block layout, persistent plan, buffers,
 *                      devo__gpu_shade_start
 *   shade_run.cuh      host: the launch path's generations, the persistent launches,
 *                      devo__gpu_shade_run and the backend's queries */
#include "shade_state.cuh"
#include "shade_eval.cuh"
#include "shade_rank.cuh"
#include "shade_update.cuh"
#include "shade_shrink.cuh"
#include "shade_trial.cuh"
#include "shade_persist.cuh"
#include "shade_host.cuh"
#include "shade_run.cuh"
