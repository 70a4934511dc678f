/* SPDX-License-Identifier: MIT */
/* gpu_variants.cuh: the CUDA backend's internal variant bits, in plain C so that tests and
 * benchmarks (C programs) can select every variant. They live above the public design value in
 * devo__opts.gpu_design (engine/internal.h): the public setter only takes DEVO_GPU_FUSED or
 * DEVO_GPU_MULTIKERNEL, so a program sets them with
 *   devo_solver_set_gpu_design(s, DEVO_GPU_FUSED); s->o.gpu_design |= DEVO__GPU_CHUNK_GRAPH;
 * No bit set = the measured defaults (BENCHMARKS.md). */
#ifndef DEVO_GPU_VARIANTS_CUH
#define DEVO_GPU_VARIANTS_CUH

#define DEVO__GPU_DESIGN_MASK 0xff
#define DEVO__GPU_CHUNK_GRAPH (1 << 8)   /* fused: CUDA graphs of K generation launches */
#define DEVO__GPU_CHUNK_PERSIST (1 << 9) /* fused: persistent cooperative kernel, 1 barrier/gen */
#define DEVO__GPU_IDX_KERNELP (1 << 10)  /* graph chunks: indices by kernel(P) one gen ahead */
#define DEVO__GPU_IDX_INLINE (1 << 11)   /* graph chunks: indices inside the fused kernel */
#define DEVO__GPU_TRIAL_GLOBAL (1 << 12) /* trial vector in global memory even when smem fits */
#define DEVO__GPU_CG_BARRIER (1 << 13)   /* persistent: cooperative_groups grid.sync() instead of
                                            devo's split arrive/wait barrier */
#define DEVO__GPU_BAR_RELAXED (1 << 14)  /* split barrier: poll with relaxed loads, then one
                                            acquire fence (instead of acquire loads) */
#define DEVO__GPU_BAR_ACQUIRE (1 << 15)  /* split barrier: poll with acquire loads */
#define DEVO__GPU_HALF_LANES (1 << 16)   /* D >= 64: half the threads per vector, each thread
                                            taking two coordinates (default only when the
                                            population needs more than one resident wave) */
#define DEVO__GPU_FULL_LANES (1 << 17)   /* D >= 64: threads = D rounded up to a warp, always */
#define DEVO__GPU_FAST (1 << 18)         /* persistent: kernels/gpu_fast.cu where it applies
                                            (default only with 1 coordinate/thread: D <= 128) */
#define DEVO__GPU_CLASSIC (1 << 19)      /* persistent: never gpu_fast.cu (gpu_fused.cu's kernel) */
/* gpu_fast.cu's threads per vector at D >= 32, bits 28..29: 0 = its own choice, else 32/64/128 */
#define DEVO__GPU_FAST_LANES_SHIFT 28
#define DEVO__GPU_FAST_LANES_32 (1 << 28)
#define DEVO__GPU_FAST_LANES_64 (2 << 28)
#define DEVO__GPU_FAST_LANES_128 (3 << 28)
/* Block kinds (CEC, ETC): stage the problem's matrix in shared memory (ON: whenever it fits;
 * OFF: never; neither: only in the persistent kernel, which loads it once per chunk). */
#define DEVO__GPU_STAGE_ON (1 << 26)
#define DEVO__GPU_STAGE_OFF (1 << 27)
/* Block kinds: at most n threads per vector (n a multiple of 32, 32..1024; threads stride over
 * coordinates); bits 20..25 hold n / 32, 0 = the default rule. */
#define DEVO__GPU_MAX_LANES(n) (((n) / 32) << 20)
#define DEVO__GPU_MAX_LANES_OF(design) ((((design) >> 20) & 63) * 32)
/* ETC: the first block evaluator (kernels/etc_device.cuh v1: atomics, O(k_j) rank per task)
 * instead of v2 (stable partition by warp match) */
#define DEVO__GPU_ETC_V1 (1 << 28)
/* ETC: the block evaluators of etc_device.cuh (gpu_fused.cu's kernel) instead of gpu_etc.cu's
 * warp kernels (the default where they apply: persistent chunks, FCFS, m <= 32, n <= 512, the
 * grid co-resident with at least 2 schedules per block (version 3, n > 128: at least 1), 8
 * where only version 1 fits, no block option above asked for) */
#define DEVO__GPU_ETC_BLOCK (1 << 30)
/* ETC: gpu_etc.cu's warp kernel wherever it applies, also with fewer schedules per block
 * (bit 29 means this for ETC only, as bit 28 means DEVO__GPU_ETC_V1) */
#define DEVO__GPU_ETC_WARP (1 << 29)
/* ETC: gpu_etc.cu's first warp kernel (devo__k_etcw1) wherever the warp kernel applies (bits 28
 * and 29 together) */
#define DEVO__GPU_ETC_WARP1 (DEVO__GPU_ETC_WARP | DEVO__GPU_ETC_V1)
/* ETC: gpu_etc.cu's version 2 (one warp per schedule) where version 3 (two warps per schedule)
 * would run (bit 16 means this for ETC only: the warp kernels have no half-lane layout) */
#define DEVO__GPU_ETC_SOLO (1 << 16)
/* CEC (kernels/gpu_cec.cu): one vector per block (or per block of a pair) even where two fit
 * (bit 29 means this for CEC only) */
#define DEVO__GPU_CEC_VL1 (1 << 29)
/* CEC: the matrices split between the two blocks of a cluster even where one block holds them
 * all (the kernel's first version; bit 30 means this for CEC only) */
#define DEVO__GPU_CEC_PAIR (1 << 30)
/* CEC: a composition's matrix-vector products by multiply-adds (the first two versions of
 * kernels/gpu_cec.cu) instead of the tensor cores (bit 28 means this for CEC only) */
#define DEVO__GPU_CEC_FMA (1 << 28)
/* JADE/SHADE/L-SHADE (kernels/gpu_shade.cu): CUDA events around each step of every generation on
 * the launch paths, block 0's clock around each phase in the persistent kernel, read by
 * devo__gpu_shade_profile (bit 10 means this for these runs only; they have no kernel(P)). The
 * events separate the launches: a timing run for the steps' shares, not for the total. */
#define DEVO__GPU_SHADE_PROFILE (1 << 10)
/* JADE/SHADE/L-SHADE: four launches per generation (ranks, trial, update, archive rows) at every
 * NP (and no persistent kernel), instead of two (trial, then update + archive rows + next ranks in
 * one block) up to NP 1024 (bit 11 means this for these runs only). */
#define DEVO__GPU_SHADE_SPLIT (1 << 11)
/* JADE/SHADE: the launch paths above instead of the persistent kernel (one cooperative launch
 * per up to 1024 generations, the default where D <= 128 and every vector's block is co-resident;
 * bit 13 means this for these runs only). */
#define DEVO__GPU_SHADE_LAUNCHES (1 << 13)
/* DE variants with GOBL: the jumps by gpu_vfused.cu's three jump launches between the chunks
 * even where the specialised variant kernel (gpu_fast.cu version 2, gpu_cec.cu version 4) runs
 * them inside its persistent launch (the default there); bit 11 means this for variant runs only
 * (they have no kernel(P)). */
#define DEVO__GPU_GOBL_LAUNCHES (1 << 11)
/* The milliseconds per generation of the steps of the last JADE/SHADE run on s (the solver's last
 * solve, with DEVO__GPU_SHADE_PROFILE). On the launch paths (CUDA events): ms[0] ranks, ms[1]
 * trial + evaluation + selection, ms[2] archive slots and memory update, ms[3] archive rows, ms[4]
 * L-SHADE's reduction (ranks, compaction, archive shrink; 0 where none). In the persistent kernel
 * (block 0's clock): ms[0] the draws, ms[1] the trial's build (the donors' loads), ms[2] its
 * evaluation, ms[3] the selection's stores, ms[4] the arrival at the grid barrier and the next
 * draws' fetch, ms[5] the wait, ms[6] the records' loads, ms[7] the archive slots, memory update
 * and ranks (a warp each), ms[8] the archive row. Returns how many were written (0: none: not a
 * profiled SHADE run, no generation, or a build without CUDA). kernels/gpu_backend.cu. */
#ifdef __cplusplus
extern "C" {
#endif
struct devo_solver;
int devo__gpu_shade_profile(struct devo_solver *s, double *ms, int n);
#ifdef __cplusplus
}
#endif
/* DE variants other than plain rand1bin (issue 18): gpu_vfused.cu's general kernels always, not
 * the specialised variant kernels (gpu_fast.cu version 2) where they apply; bit 31 (INT_MIN) */
#define DEVO__GPU_VAR_GENERAL (-0x7fffffff - 1)

#endif /* DEVO_GPU_VARIANTS_CUH */
