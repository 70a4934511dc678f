/* SPDX-License-Identifier: MIT */
/* test_gpu_philox.cu: devo's Philox (problems/philox.h) against cuRAND's header-only device API,
 * bit for bit, and the DE draws (problems/de_ops.h) on the device against the host. Skips
 * (exit 77) where no CUDA device is usable.
 * `test_gpu_philox --bench` instead times the coordinate draws of a generation through
 * devo__rng, curand_init + curand4, and devo__rng_ks with the seed's round keys in the kernel
 * parameters (what the persistent kernels use; BENCHMARKS.md). */
#include <curand_kernel.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "tests/tcheck.h"
}
#include "problems/de_ops.h"

#define CK(call)                                                                                  \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    CHECKF(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                          \
  } while (0)

static void need_gpu(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
    TC_SKIP("no CUDA device");
}

/* A 32-bit mix (the murmur3 finaliser) to spread test counters over the whole word range. */
__host__ __device__ static uint32_t mix32(uint32_t x)
{
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

/* Counter and key of test number n. The generation word stays below 2^30: cuRAND's offset is
 * 4 * (slot | generation << 32) in 64 bits (philox.h), so larger generations cannot be expressed
 * through curand_init. Every other word takes any value; every 4th n uses small devo-like words. */
__host__ __device__ static void test_counter(uint32_t n, uint32_t c[4], uint64_t *seed)
{
  c[0] = mix32(n * 4u + 1u);
  c[1] = mix32(n * 4u + 2u) >> 2;
  c[2] = mix32(n * 4u + 3u);
  c[3] = mix32(n * 4u + 4u);
  if ((n & 3u) == 0) {
    c[0] &= 0xffffu;
    c[1] &= 0xfffu;
    c[2] &= 0xffffu;
    c[3] &= 7u;
  }
  if (n == 1) {
    c[0] = c[2] = c[3] = 0xffffffffu;
    c[1] = (1u << 30) - 1u;
  }
  *seed = ((uint64_t)mix32(n ^ 0xa5a5a5a5u) << 32) | mix32(n + 0x9e3779b9u);
}

__global__ void k_curand(uint4 *out_cu, uint4 *out_devo, uint32_t count)
{
  uint32_t n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count)
    return;
  uint32_t c[4];
  uint64_t seed;
  test_counter(n, c, &seed);
  curandStatePhilox4_32_10_t st;
  curand_init(seed, (unsigned long long)c[2] | ((unsigned long long)c[3] << 32),
              4ULL * ((unsigned long long)c[0] | ((unsigned long long)c[1] << 32)), &st);
  out_cu[n] = curand4(&st);
  devo__u32x4 w = devo__philox4x32_10(c[0], c[1], c[2], c[3], (uint32_t)seed,
                                      (uint32_t)(seed >> 32));
  out_devo[n] = make_uint4(w.v[0], w.v[1], w.v[2], w.v[3]);
}

/* CPU devo__philox4x32_10 == cuRAND curand4 (and == devo's own function compiled for the
 * device) for 2^21 counters. */
TEST_CASE(curand_equals_cpu)
{
  const uint32_t count = 1u << 21;
  uint4 *d_cu = NULL, *d_devo = NULL;
  uint4 *h_cu = (uint4 *)malloc(count * sizeof(uint4));
  uint4 *h_devo = (uint4 *)malloc(count * sizeof(uint4));
  uint32_t n, bad = 0;
  need_gpu();
  CHECK(h_cu && h_devo);
  CK(cudaMalloc((void **)&d_cu, count * sizeof(uint4)));
  CK(cudaMalloc((void **)&d_devo, count * sizeof(uint4)));
  CK(cudaMemset(d_cu, 0xab, count * sizeof(uint4)));
  CK(cudaMemset(d_devo, 0xab, count * sizeof(uint4)));
  k_curand<<<(count + 255) / 256, 256>>>(d_cu, d_devo, count);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h_cu, d_cu, count * sizeof(uint4), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h_devo, d_devo, count * sizeof(uint4), cudaMemcpyDeviceToHost));
  for (n = 0; n < count; ++n) {
    uint32_t c[4];
    uint64_t seed;
    test_counter(n, c, &seed);
    devo__u32x4 w = devo__rng(seed, c[0], c[1], c[2], c[3]);
    int ok_cu = h_cu[n].x == w.v[0] && h_cu[n].y == w.v[1] && h_cu[n].z == w.v[2] &&
                h_cu[n].w == w.v[3];
    int ok_dev = h_devo[n].x == w.v[0] && h_devo[n].y == w.v[1] && h_devo[n].z == w.v[2] &&
                 h_devo[n].w == w.v[3];
    if (!ok_cu || !ok_dev) {
      if (bad++ < 5)
        fprintf(stderr,
                "counter %08x %08x %08x %08x key %016llx: cpu %08x %08x %08x %08x, curand %08x "
                "%08x %08x %08x, device devo %08x %08x %08x %08x\n",
                c[0], c[1], c[2], c[3], (unsigned long long)seed, w.v[0], w.v[1], w.v[2], w.v[3],
                h_cu[n].x, h_cu[n].y, h_cu[n].z, h_cu[n].w, h_devo[n].x, h_devo[n].y,
                h_devo[n].z, h_devo[n].w);
    }
  }
  printf("  %u counters: %u mismatches\n", count, bad);
  CHECK_EQ_INT(bad, 0);
  cudaFree(d_cu);
  cudaFree(d_devo);
  free(h_cu);
  free(h_devo);
}

struct de_out {
  devo__de_idx r;
  double cr, bound, init, trial;
  double ks_cr, ks_bound; /* devo__de_coord_ks: the kernels' draws from the round keys */
};

/* The DE draws and the trial coordinate on the device: random inputs from the counters. */
__host__ __device__ static de_out de_case(uint32_t n)
{
  de_out o;
  uint32_t c[4];
  uint64_t seed;
  test_counter(n, c, &seed);
  uint32_t np = 4u + mix32(n ^ 0x1234u) % 5000u, dim = 1u + mix32(n ^ 0x4321u) % 3000u;
  uint32_t i = c[2] % np, j = c[0] % dim;
  o.r = devo__de_indices(seed, c[1], i, np, dim);
  devo__de_u u = devo__de_coord(seed, c[1], i, j);
  o.cr = u.cr;
  o.bound = u.bound;
  devo__philox_keys ks;
  devo__philox_keys_init(&ks, seed);
  u = devo__de_coord_ks(&ks, c[1], i, j);
  o.ks_cr = u.cr;
  o.ks_bound = u.bound;
  o.init = devo__de_init(seed, i, j, -100.0, 100.0);
  devo__u32x4 w = devo__rng(seed, n, 0, 0, DEVO__RNG_USER);
  double xi = -100.0 + DEVO_MUL(200.0, devo__u01(w.v[0], w.v[1]));
  double x1 = -100.0 + DEVO_MUL(200.0, devo__u01(w.v[1], w.v[2]));
  double x2 = -100.0 + DEVO_MUL(200.0, devo__u01(w.v[2], w.v[3]));
  double x3 = -100.0 + DEVO_MUL(200.0, devo__u01(w.v[3], w.v[0]));
  o.trial = devo__de_trial_coord(seed, c[1], i, j, o.r, xi, x1, x2, x3, 0.9, 0.5, -100.0, 100.0,
                                 (int)(n & 3u));
  return o;
}

__global__ void k_de(de_out *out, uint32_t count)
{
  uint32_t n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < count)
    out[n] = de_case(n);
}

/* de_ops.h gives the same bits on host and device (DEVO_MUL keeps nvcc from fusing the
 * products that must round like the CPU's). */
TEST_CASE(de_ops_device_equals_host)
{
  const uint32_t count = 1u << 20;
  de_out *d_out = NULL, *h_out = (de_out *)malloc(count * sizeof(de_out));
  uint32_t n, bad = 0;
  need_gpu();
  CHECK(h_out != NULL);
  CK(cudaMalloc((void **)&d_out, count * sizeof(de_out)));
  k_de<<<(count + 255) / 256, 256>>>(d_out, count);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h_out, d_out, count * sizeof(de_out), cudaMemcpyDeviceToHost));
  for (n = 0; n < count; ++n) {
    de_out h = de_case(n);
    /* the device's draws from the round keys also equal the host's from the seed */
    if ((memcmp(&h, &h_out[n], sizeof h) != 0 || h_out[n].ks_cr != h.cr ||
         h_out[n].ks_bound != h.bound) &&
        bad++ < 5)
      fprintf(stderr, "case %u: host trial %.17g init %.17g, device trial %.17g init %.17g\n", n,
              h.trial, h.init, h_out[n].trial, h_out[n].init);
  }
  printf("  %u DE draws: %u mismatches\n", count, bad);
  CHECK_EQ_INT(bad, 0);
  cudaFree(d_out);
  free(h_out);
}

/* ---- --bench: the coordinate draws of one generation through either generator ------------- */

/* Each thread draws coordinates threadIdx.x + 64 c, c < 16, all unrolled, as the persistent
 * kernels draw (gpu_etc.cu: 16 per lane): with many blocks in flight the key is bumped in
 * registers for each (why the kernels take the round keys from their parameters). */
#define BENCH_T 64
#define BENCH_C 16
template <int V>
__global__ void k_draw(uint64_t seed, devo__philox_keys ks, uint32_t gen, uint32_t np,
                       uint32_t dim, unsigned long long *sink)
{
  uint32_t acc = 0;
  for (uint32_t i = blockIdx.x; i < np; i += gridDim.x)
#pragma unroll
    for (int c = 0; c < BENCH_C; ++c) {
      const uint32_t j = threadIdx.x + BENCH_T * c;
      devo__de_u u;
      if (V == 0)
        u = devo__de_coord(seed, gen, i, j);
      else if (V == 2)
        u = devo__de_coord_ks(&ks, gen, i, j);
      else {
        curandStatePhilox4_32_10_t st;
        curand_init(seed, (unsigned long long)i | ((unsigned long long)DEVO__RNG_COORD << 32),
                    4ULL * ((unsigned long long)j | ((unsigned long long)gen << 32)), &st);
        uint4 w = curand4(&st);
        u.cr = devo__u01(w.x, w.y);
        u.bound = devo__u01(w.z, w.w);
      }
      if (j < dim)
        acc += (uint32_t)(u.cr * 4294967296.0) ^ (uint32_t)(u.bound * 4294967296.0);
    }
  /* one atomic per warp: one per thread made every variant cost the same (the atomics' time) */
#if __CUDA_ARCH__ >= 800
  acc = __reduce_add_sync(0xffffffffu, acc);
#else /* the portable set also builds sm_70/75, which lack the warp reduction */
  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_xor_sync(0xffffffffu, acc, off);
#endif
  if ((threadIdx.x & 31) == 0)
    atomicAdd(sink, (unsigned long long)acc);
}

static int bench(void)
{
  const uint32_t np = 32000, dim = 1000, reps = 20; /* 32 M draws per launch */
  unsigned long long *d_sink, h[3];
  cudaEvent_t a, b;
  float ms[3] = {0, 0, 0};
  devo__philox_keys ks;
  devo__philox_keys_init(&ks, 7);
  if (cudaMalloc((void **)&d_sink, 3 * sizeof *d_sink) != cudaSuccess) {
    printf("bench: no device\n");
    return 1;
  }
  cudaMemset(d_sink, 0, 3 * sizeof *d_sink);
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int v = 0; v < 3; ++v) {
    for (uint32_t r = 0; r <= reps; ++r) {
      if (r == 1)
        cudaEventRecord(a);
      if (v == 0)
        k_draw<0><<<np, BENCH_T>>>(7, ks, r + 1, np, dim, d_sink);
      else if (v == 1)
        k_draw<1><<<np, BENCH_T>>>(7, ks, r + 1, np, dim, d_sink + 1);
      else
        k_draw<2><<<np, BENCH_T>>>(7, ks, r + 1, np, dim, d_sink + 2);
    }
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms[v], a, b);
  }
  cudaMemcpy(h, d_sink, sizeof h, cudaMemcpyDeviceToHost);
  double draws = (double)np * dim * reps;
  int same = h[0] == h[1] && h[0] == h[2];
  printf("coordinate draws (NP=%u x D=%u x %u generations): devo__rng %.2f ps/draw, "
         "curand_init+curand4 %.2f ps/draw, devo__rng_ks (round keys in the parameters) %.2f "
         "ps/draw, same sums: %s (error: %s)\n",
         np, dim, reps, (double)ms[0] * 1e9 / draws, (double)ms[1] * 1e9 / draws,
         (double)ms[2] * 1e9 / draws, same ? "yes" : "NO", cudaGetErrorString(cudaGetLastError()));
  return same ? 0 : 1;
}

int main(int argc, char **argv)
{
  static const tc_case cases[] = {TC(curand_equals_cpu), TC(de_ops_device_equals_host)};
  if (argc > 1 && strcmp(argv[1], "--bench") == 0)
    return bench();
  return tc_main(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
