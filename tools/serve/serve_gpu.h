/* SPDX-License-Identifier: MIT */
/* serve_gpu.h: the GPUs of `devo serve` (--gpus): the list, its warm-up at start (each GPU's
 * context made off the request path) and the rule that shares them between concurrent requests.
 * Each listed GPU runs at most SERVE_GPU_SLOTS GPU searches at once; a request that wants a GPU
 * takes the least busy one with room (fewest running, ties: the lowest index), and when every
 * listed GPU is full it searches on the CPU at once instead of waiting: a search holds its GPU
 * until its own deadline, so a request that waited for it would pay for that search out of its
 * own deadline (docs/serve.md, "The GPUs"). */
#ifndef DEVO_SERVE_GPU_H
#define DEVO_SERVE_GPU_H

#include <stddef.h>
#include <stdio.h>

#include "tools/json_out.h"

/* GPUs that --gpus may list. */
#define SERVE_GPU_MAX 64
/* GPU searches at once on one GPU. One: two searches sharing a GPU would each get only part of
 * it (the GPU search keeps hundreds of chains resident, one block each, to fill the device);
 * more than one has not been measured (docs/serve.md, "The GPUs"). */
#define SERVE_GPU_SLOTS 1

/* What --gpus asked for. */
typedef struct serve_gpu_list {
  int given; /* --gpus was given (else: GPU 0 when it is usable, as before --gpus) */
  int all;   /* "all": every GPU the process sees */
  int n;     /* the indices given, in their order */
  int dev[SERVE_GPU_MAX];
} serve_gpu_list;

/* Reads the value of --gpus ("all", or device indices such as 0,1) into *l. 0, or -1 with a
 * one-line message naming the bad element in err. */
int serve_gpu_parse(const char *v, serve_gpu_list *l, char *err, size_t errlen);

/* Checks the indices of *l against the GPUs the process sees (count: devo_gpu_count()): an index
 * >= count is refused, every index when count is 0. 0, or -1 with the message in err. */
int serve_gpu_check(const serve_gpu_list *l, int count, char *err, size_t errlen);

typedef struct serve_gpus serve_gpus;

/* Makes each GPU of *l ready (devo_gpu_select and devo_gpu_warmup, one thread per GPU, all at
 * once), before the service answers; a GPU that fails is left out, said on stderr, as is a
 * service with no usable GPU (it searches on the CPU). start: 0 to start none (--backend cpu).
 * NULL when out of memory. */
serve_gpus *serve_gpus_start(const serve_gpu_list *l, int start);
void serve_gpus_free(serve_gpus *g);

/* The number of usable GPUs, and the name of the first (NULL when none). */
int serve_gpus_usable(const serve_gpus *g);
const char *serve_gpus_name(const serve_gpus *g);

/* Why a request that wanted a GPU searched on the CPU (serve_gpus_take). */
enum { SERVE_GPU_BUSY = -1, SERVE_GPU_ABSENT = -2 };

/* A GPU for a search on the calling thread: its slot taken and its device chosen for this thread
 * (devo_gpu_select), returned as the GPU's place in the list (serve_gpus_device gives its CUDA
 * index); else SERVE_GPU_BUSY (every listed GPU full) or SERVE_GPU_ABSENT (no usable GPU), each
 * counted as a fallback (ABSENT only when counted is 1: a request that asked for the GPU). */
int serve_gpus_take(serve_gpus *g, int counted);
/* The CUDA index of the GPU at place k. */
int serve_gpus_device(const serve_gpus *g, int k);
/* The search on the GPU at place k has ended. */
void serve_gpus_give(serve_gpus *g, int k);

/* Prometheus lines (text format 0.0.4): requests per GPU, searches running on each, the
 * fallbacks to the CPU by reason. */
void serve_gpus_metrics(serve_gpus *g, FILE *f);
/* The health members: "gpu" (the first GPU's name or null) and "gpus" (one object per usable
 * GPU: device, name, running, requests). */
void serve_gpus_health(serve_gpus *g, json_out *j);

#endif /* DEVO_SERVE_GPU_H */
