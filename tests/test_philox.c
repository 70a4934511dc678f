/* SPDX-License-Identifier: MIT */
/* test_philox.c: Philox4x32-10 known answers (Random123's published kat_vectors) and the
 * properties of the DE draws built on it (problems/philox.h, problems/de_ops.h). */
#include <math.h>
#include <string.h>

#include "problems/de_ops.h"
#include "tests/tcheck.h"

static void kat(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1,
                uint32_t e0, uint32_t e1, uint32_t e2, uint32_t e3)
{
  devo__u32x4 r = devo__philox4x32_10(c0, c1, c2, c3, k0, k1);
  CHECKF(r.v[0] == e0 && r.v[1] == e1 && r.v[2] == e2 && r.v[3] == e3,
         "philox(%08x %08x %08x %08x; %08x %08x) = %08x %08x %08x %08x", c0, c1, c2, c3, k0, k1,
         r.v[0], r.v[1], r.v[2], r.v[3]);
}

/* The three philox4x32 10-round vectors of Random123's kat_vectors file. */
TEST_CASE(known_answers)
{
  kat(0, 0, 0, 0, 0, 0, 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u);
  kat(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0x408f276du,
      0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
  kat(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0xd16cfe09u,
      0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

/* The seed is the key, the counter layout is (slot, generation, individual, purpose). */
TEST_CASE(counter_layout)
{
  uint64_t seed = 0x299f31d0a4093822ull;
  devo__u32x4 a = devo__rng(seed, 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u);
  CHECK(a.v[0] == 0xd16cfe09u && a.v[1] == 0x94fdccebu && a.v[2] == 0x5001e420u &&
        a.v[3] == 0x24126ea1u);
}

/* devo__rng_ks (the kernels' draws from a seed's round keys) gives devo__rng's blocks: the
 * known answer above and 100,000 seeds and counters spread over the word range. */
TEST_CASE(round_keys)
{
  devo__philox_keys ks;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  uint32_t n, bad = 0;
  devo__philox_keys_init(&ks, 0x299f31d0a4093822ull);
  devo__u32x4 a = devo__rng_ks(&ks, 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u);
  CHECK(a.v[0] == 0xd16cfe09u && a.v[1] == 0x94fdccebu && a.v[2] == 0x5001e420u &&
        a.v[3] == 0x24126ea1u);
  for (n = 0; n < 100000u; ++n) {
    uint32_t c[4];
    int k;
    for (k = 0; k < 4; ++k) {
      x ^= x << 13; /* xorshift64 */
      x ^= x >> 7;
      x ^= x << 17;
      c[k] = (uint32_t)(x >> 32);
    }
    devo__philox_keys_init(&ks, x);
    devo__u32x4 p = devo__rng(x, c[0], c[1], c[2], c[3]),
                q = devo__rng_ks(&ks, c[0], c[1], c[2], c[3]);
    devo__de_u u = devo__de_coord(x, c[1], c[2], c[0]),
               v = devo__de_coord_ks(&ks, c[1], c[2], c[0]);
    bad += memcmp(&p, &q, sizeof p) != 0 || u.cr != v.cr || u.bound != v.bound;
  }
  CHECK_EQ_INT(bad, 0);
}

TEST_CASE(uniform_and_below)
{
  int k;
  double sum = 0.0;
  CHECK(devo__u01(0, 0) == 0.0);
  CHECK(devo__u01(0xffffffffu, 0xffffffffu) < 1.0);
  CHECK(devo__u01(0xffffffffu, 0xffffffffu) == 1.0 - ldexp(1.0, -53));
  CHECK(devo__below(0, 7) == 0);
  CHECK(devo__below(0xffffffffu, 7) == 6);
  for (k = 0; k < 100000; ++k) {
    devo__u32x4 w = devo__rng(42, (uint32_t)k, 0, 0, DEVO__RNG_USER);
    double u = devo__u01(w.v[0], w.v[1]);
    CHECK(u >= 0.0 && u < 1.0);
    sum += u;
  }
  /* mean of 1e5 uniforms: standard deviation 0.00091 */
  CHECK(fabs(sum / 100000.0 - 0.5) < 0.005);
}

/* r1, r2, r3 distinct and distinct from i, in range, for every i at several NP; every admissible
 * value is reached (the mapping skips exactly the excluded ones). */
TEST_CASE(indices_distinct_and_complete)
{
  static const uint32_t nps[] = {4, 5, 7, 64, 250};
  int a, hit[250][3];
  for (a = 0; a < 5; ++a) {
    uint32_t np = nps[a], i, g, dim = 13;
    for (i = 0; i < np; ++i) {
      memset(hit, 0, sizeof hit);
      for (g = 1; g <= 4000; ++g) {
        devo__de_idx r = devo__de_indices(7, g, i, np, dim);
        CHECK(r.r1 < np && r.r2 < np && r.r3 < np && r.jrand < dim);
        CHECK(r.r1 != i && r.r2 != i && r.r3 != i);
        CHECK(r.r1 != r.r2 && r.r1 != r.r3 && r.r2 != r.r3);
        hit[r.r1][0] = hit[r.r2][1] = hit[r.r3][2] = 1;
      }
      if (np <= 7) {
        uint32_t v;
        for (v = 0; v < np; ++v)
          if (v != i)
            CHECK(hit[v][0] && hit[v][1] && hit[v][2]);
      }
    }
  }
}

/* r1 is uniform over the NP - 1 admissible values: chi-square over 200,000 draws. */
TEST_CASE(indices_uniform)
{
  uint32_t np = 10, i = 3, g, v;
  double count[10] = {0}, chi = 0.0, e = 200000.0 / 9.0;
  for (g = 1; g <= 200000; ++g)
    count[devo__de_indices(99, g, i, np, 4).r1] += 1.0;
  CHECK(count[i] == 0.0);
  for (v = 0; v < np; ++v)
    if (v != i)
      chi += (count[v] - e) * (count[v] - e) / e;
  /* 8 degrees of freedom: P(chi2 > 26.1) = 0.001 */
  CHECKF(chi < 26.1, "chi-square %.2f", chi);
}

TEST_CASE(bound_repair_rules)
{
  /* inside: untouched by every rule */
  CHECK(devo__de_repair(3.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_CLIP, 0.5) == 3.0);
  CHECK(devo__de_repair(-7.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_CLIP, 0.5) == -5.0);
  CHECK(devo__de_repair(7.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_CLIP, 0.5) == 5.0);
  CHECK(devo__de_repair(7.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_REFLECT, 0.5) == 3.0);
  CHECK(devo__de_repair(-6.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_REFLECT, 0.5) == -4.0);
  CHECK(devo__de_repair(40.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_REFLECT, 0.5) == -5.0);
  CHECK(devo__de_repair(7.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_MIDPOINT, 0.5) == 3.0);
  CHECK(devo__de_repair(-9.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_MIDPOINT, 0.5) == -2.0);
  CHECK(devo__de_repair(9.0, 1.0, -5.0, 5.0, DEVO__BOUNDS_REINIT, 0.25) == -2.5);
}

/* j_rand forces one mutant coordinate even at CR = 0. */
TEST_CASE(crossover_jrand)
{
  uint32_t g, j, dim = 6;
  for (g = 1; g < 200; ++g) {
    devo__de_idx r = devo__de_indices(5, g, 2, 8, dim);
    int taken = 0;
    for (j = 0; j < dim; ++j) {
      double t = devo__de_trial_coord(5, g, 2, j, r, 0.0, 1.0, 2.0, 1.5, 0.5, 0.0, -10.0, 10.0,
                                      DEVO__BOUNDS_CLIP);
      if (t != 0.0) {
        taken++;
        CHECK(j == r.jrand);
        CHECK(t == 1.0 + 0.5 * (2.0 - 1.5));
      }
    }
    CHECK(taken == 1);
  }
}

/* The integer crossover test (devo__de_cr_bound, used by kernels/gpu_etc.cu) decides as
 * u.cr < cr does: on the integers either side of each bound, and on many drawn words. */
TEST_CASE(crossover_integer_bound)
{
  static const double crs[] = {0.0,  5e-324, 1e-17, 0.1,           0.3, 0.5,
                               0.75, 0.9,    0.999, 1.0 - 0x1p-53, 1.0};
  int k, q;
  for (k = 0; k < (int)(sizeof crs / sizeof crs[0]); ++k) {
    const double cr = crs[k];
    const uint64_t b = devo__de_cr_bound(cr);
    CHECKF(b <= (uint64_t)1 << 53, "bound of %.17g = %llu", cr, (unsigned long long)b);
    for (q = -2; q <= 1; ++q) {
      const int64_t mm = (int64_t)b + q;
      if (mm < 0 || mm >= (int64_t)1 << 53)
        continue;
      /* the words whose 53 bits are mm */
      const uint32_t a = (uint32_t)(mm >> 26) << 5, w = (uint32_t)(mm & ((1 << 26) - 1)) << 6;
      CHECK(devo__u53(a, w) == (uint64_t)mm);
      CHECKF((devo__u01(a, w) < cr) == (devo__u53(a, w) < b), "cr %.17g m %lld", cr, (long long)mm);
    }
    for (q = 0; q < 20000; ++q) {
      devo__u32x4 u = devo__rng(11, (uint32_t)q, 3, (uint32_t)k, DEVO__RNG_USER);
      CHECK((devo__u01(u.v[0], u.v[1]) < cr) == (devo__u53(u.v[0], u.v[1]) < b));
    }
  }
  CHECK(devo__de_cr_bound(0.5) == (uint64_t)1 << 52);
}

static const tc_case cases[] = {TC(known_answers),
                                TC(counter_layout),
                                TC(round_keys),
                                TC(uniform_and_below),
                                TC(indices_distinct_and_complete),
                                TC(indices_uniform),
                                TC(bound_repair_rules),
                                TC(crossover_jrand),
                                TC(crossover_integer_bound)};

int main(int argc, char **argv)
{
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
