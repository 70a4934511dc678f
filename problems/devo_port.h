/* SPDX-License-Identifier: MIT */
/* devo_port.h: the small portability header shared by C (gcc/clang) and CUDA (nvcc) code.
 * DEVO_HD marks functions compiled for both host and device. Headers that include this one are
 * written in the C subset that nvcc also accepts as C++ (no compound literals, no designated
 * initialisers, no restrict). */
#ifndef DEVO_PORT_H
#define DEVO_PORT_H

#include <stdint.h>

#ifdef __CUDACC__
#define DEVO_HD  __host__ __device__
#define DEVO_DEV __device__
#else
#define DEVO_HD
#define DEVO_DEV
#endif

/* Before a loop of constant trip count whose body indexes a small array by the loop variable:
 * nvcc's device pass unrolls it fully, so the array stays in registers instead of a thread's
 * local memory (the host compilers, nvcc's host pass included, unroll as they see fit; gcc would
 * warn about the pragma). */
#ifdef __CUDA_ARCH__
#define DEVO_UNROLL _Pragma("unroll")
#else
#define DEVO_UNROLL
#endif

/* A product that the compiler may not fuse with a following addition: nvcc contracts a*b+c into
 * a fused multiply-add by default and gcc on x86-64 does not, so the DE operators use this where
 * the CPU and GPU must produce the same bits. */
#ifdef __CUDA_ARCH__
#define DEVO_MUL(a, b) __dmul_rn((a), (b))
#else
#define DEVO_MUL(a, b) ((a) * (b))
#endif

/* pi and e to double precision, written out so no header needs M_PI (not in C11). */
#define DEVO_PI 3.14159265358979323846
#define DEVO_E  2.71828182845904523536

#endif /* DEVO_PORT_H */
