/* SPDX-License-Identifier: MIT */
/* philox.h: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011),
 * the counter-based generator behind cuRAND's curandStatePhilox4_32_10_t, for host and device.
 *
 * devo addresses every random number by a counter, never by a stream position:
 *   counter = (x, y, z, w) = (slot, generation, individual, purpose), key = (seed lo, seed hi).
 * With cuRAND this block is what curand4() returns first after
 *   curand_init(seed, subsequence = z | (uint64)w << 32, offset = 4 * (x | (uint64)y << 32), &st)
 * (cuRAND puts the subsequence in the two high counter words and offset/4 in the two low ones;
 * the offset is a 64-bit count, so this equality holds for generations below 2^30);
 * tests/test_gpu_philox.cu proves the equality bit for bit on a device.
 * Constants: the Philox paper and Random123 (multipliers 0xD2511F53, 0xCD9E8D57; Weyl key
 * increments 0x9E3779B9, 0xBB67AE85). */
#ifndef DEVO_PHILOX_H
#define DEVO_PHILOX_H

#include "devo_port.h"

/* The Weyl increments of the key between rounds (one definition for both ways of keying). */
#define DEVO__PHILOX_W0 0x9E3779B9u
#define DEVO__PHILOX_W1 0xBB67AE85u

typedef struct devo__u32x4 {
  uint32_t v[4];
} devo__u32x4;

/* Purposes: the w word of the counter. Each draw site of the algorithm owns one. */
enum {
  DEVO__RNG_INIT = 1,  /* initial population: slot = coordinate */
  DEVO__RNG_INDEX = 2, /* r1, r2, r3, j_rand of one individual in one generation: slot 0 */
  DEVO__RNG_COORD = 3, /* crossover and bound-repair uniforms: slot = coordinate */
  DEVO__RNG_DATA = 4,  /* problem data (shift vectors, matrices): slot, individual = stream */
  DEVO__RNG_USER = 5,  /* tools and tests */
  DEVO__RNG_SCHED = 6, /* scheduling pipeline perturbations: slot = draw, generation = round */
  DEVO__RNG_INDEX2 = 7, /* de_variant.h: donors r4, r5 and the exponential crossover's length */
  DEVO__RNG_JDE = 8,    /* de_variant.h: jDE's F (slot 0) and CR (slot 1) redraws */
  DEVO__RNG_GOBL = 9,   /* de_variant.h: GOBL jump decision and k (slot 0, individual 0),
                           repair uniforms (slot = coordinate + 1) */
  DEVO__RNG_IG = 10,    /* makespan search (etc_vnd.c): slot = draw (block), generation = step,
                           individual = chain */
  DEVO__RNG_GLS = 11,   /* GPU local search (kernels/gpu_sched_ls.cu): slot = draw, generation =
                           step, individual = chain */
  /* de_shade.h: history slot, Box-Muller, pbest (slots 0, 1), Cauchy attempts (slot 2 + t) */
  DEVO__RNG_SHADE = 12,
  /* de_shade.h: archive overwrite (slot 0, individual = inserter), shrink removals (slot t + 1,
     individual 0) */
  DEVO__RNG_ARCHIVE = 13
};

static inline DEVO_HD void devo__philox_round(uint32_t c[4], const uint32_t k[2])
{
  uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
  uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
  uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
  uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
  uint32_t n0 = hi1 ^ c[1] ^ k[0];
  uint32_t n2 = hi0 ^ c[3] ^ k[1];
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

/* The round keys of a seed: the key before round r at k[2 r], k[2 r + 1], bumped as
 * devo__philox4x32_10 bumps it. GPU kernels keep a seed's round keys among their parameters
 * (constant memory), where a round is two multiplies and two three-way XORs: with many blocks
 * in flight (registers scarce) a third fewer instructions than adding the increments in
 * registers (H100, `test_gpu_philox --bench`: 3.69 against 4.88 ps per draw; BENCHMARKS.md). */
typedef struct devo__philox_keys {
  uint32_t k[20];
} devo__philox_keys;

static inline DEVO_HD void devo__philox_keys_init(devo__philox_keys *ks, uint64_t seed)
{
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  int r;
  for (r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += DEVO__PHILOX_W0;
      k1 += DEVO__PHILOX_W1;
    }
    ks->k[2 * r] = k0;
    ks->k[2 * r + 1] = k1;
  }
}

static inline DEVO_HD devo__u32x4 devo__philox_out(const uint32_t c[4])
{
  devo__u32x4 out;
  out.v[0] = c[0];
  out.v[1] = c[1];
  out.v[2] = c[2];
  out.v[3] = c[3];
  return out;
}

/* The raw block function: 10 rounds, the key bumped between rounds (in registers: with an array
 * of round keys here, gcc -O2 took 26 instead of 9 ns per block on a CI-like machine). */
static inline DEVO_HD devo__u32x4 devo__philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2,
                                                      uint32_t c3, uint32_t k0, uint32_t k1)
{
  uint32_t c[4];
  uint32_t k[2];
  int r;
  c[0] = c0;
  c[1] = c1;
  c[2] = c2;
  c[3] = c3;
  k[0] = k0;
  k[1] = k1;
  for (r = 0; r < 10; ++r) {
    if (r > 0) {
      k[0] += DEVO__PHILOX_W0;
      k[1] += DEVO__PHILOX_W1;
    }
    devo__philox_round(c, k);
  }
  return devo__philox_out(c);
}

/* The block for devo's counter layout (see the top of this file). */
static inline DEVO_HD devo__u32x4 devo__rng(uint64_t seed, uint32_t slot, uint32_t generation,
                                            uint32_t individual, uint32_t purpose)
{
  return devo__philox4x32_10(slot, generation, individual, purpose, (uint32_t)seed,
                             (uint32_t)(seed >> 32));
}

/* The same block from the seed's round keys (devo__philox_keys_init(ks, seed)). */
static inline DEVO_HD devo__u32x4 devo__rng_ks(const devo__philox_keys *ks, uint32_t slot,
                                               uint32_t generation, uint32_t individual,
                                               uint32_t purpose)
{
  uint32_t c[4] = {slot, generation, individual, purpose};
  int r;
  for (r = 0; r < 10; ++r)
    devo__philox_round(c, ks->k + 2 * r);
  return devo__philox_out(c);
}

/* 53 random bits from two words (a gives 27 bits, b 26): the integer behind devo__u01. */
static inline DEVO_HD uint64_t devo__u53(uint32_t a, uint32_t b)
{
  return ((uint64_t)(a >> 5) << 26) | (uint64_t)(b >> 6);
}

/* A double uniform in [0, 1): devo__u53(a, b) * 2^-53, exact. */
static inline DEVO_HD double devo__u01(uint32_t a, uint32_t b)
{
  return (double)devo__u53(a, b) * (1.0 / 9007199254740992.0);
}

/* An integer in [0, n) from one word by a multiply-shift: bounded time, no rejection loop, so
 * GPU warps never diverge on it. The bias is below n / 2^32, negligible for n << 2^32. */
static inline DEVO_HD uint32_t devo__below(uint32_t word, uint32_t n)
{
  return (uint32_t)(((uint64_t)word * n) >> 32);
}

#endif /* DEVO_PHILOX_H */
