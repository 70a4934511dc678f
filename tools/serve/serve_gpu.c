/* SPDX-License-Identifier: MIT */
/* serve_gpu.c: the GPUs of `devo serve` (serve_gpu.h): --gpus read and checked, each listed GPU
 * warmed up on a thread of its own at start (a CUDA context takes 0.2 to 1.1 s on an H100: eight
 * GPUs one after the other would delay the start by seconds), and the slots that share them
 * between the requests, with their counters. */
#define _POSIX_C_SOURCE 200809L
#include "serve_gpu.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/include/devo.h"

/* One usable GPU. */
typedef struct gpu {
  int dev;        /* CUDA index */
  int running;    /* GPU searches running on it; under mu */
  uint64_t taken; /* searches run on it; under mu */
  char name[256];
} gpu;

struct serve_gpus {
  pthread_mutex_t mu;
  int n; /* usable GPUs, in the order of the list */
  gpu g[SERVE_GPU_MAX];
  uint64_t busy, absent; /* fallbacks to the CPU; under mu */
};

/* ---- --gpus -----------------------------------------------------------------------------------
 */

/* One element of the list (len bytes at p, up to a ',' or the end): a device index 0 .. 9999
 * in decimal digits alone (no sign, no blank), or -1. */
static int index_of(const char *p, size_t len)
{
  char *end;
  long d;
  if (len == 0 || len > 4 || !isdigit((unsigned char)p[0]))
    return -1;
  d = strtol(p, &end, 10);
  return end == p + len ? (int)d : -1;
}

int serve_gpu_parse(const char *v, serve_gpu_list *l, char *err, size_t errlen)
{
  const char *p = v;
  memset(l, 0, sizeof *l);
  l->given = 1;
  if (!*v) {
    snprintf(err, errlen, "--gpus: an empty list (all, or device indices such as 0,1)");
    return -1;
  }
  for (;;) {
    const size_t len = strcspn(p, ",");
    const int d = index_of(p, len);
    int k;
    if (len == 3 && strncmp(p, "all", 3) == 0) {
      if (p != v || p[len]) {
        snprintf(err, errlen, "--gpus %s: 'all' cannot be mixed with device indices", v);
        return -1;
      }
      l->all = 1;
      return 0;
    }
    if (len == 0) {
      snprintf(err, errlen, "--gpus %s: an empty element (all, or device indices such as 0,1)", v);
      return -1;
    }
    if (d < 0) {
      snprintf(err, errlen, "--gpus %s: '%.*s' is not a device index (0, 1, ... or all)", v,
               (int)(len > 32 ? 32 : len), p);
      return -1;
    }
    for (k = 0; k < l->n; ++k)
      if (l->dev[k] == d) {
        snprintf(err, errlen, "--gpus %s: device %d is listed twice", v, d);
        return -1;
      }
    if (l->n == SERVE_GPU_MAX) {
      snprintf(err, errlen, "--gpus %s: more than %d devices", v, SERVE_GPU_MAX);
      return -1;
    }
    l->dev[l->n++] = d;
    if (!p[len])
      return 0;
    p += len + 1;
  }
}

int serve_gpu_check(const serve_gpu_list *l, int count, char *err, size_t errlen)
{
  int k;
  if (!l->given || l->all)
    return 0;
  for (k = 0; k < l->n; ++k)
    if (l->dev[k] >= count) {
      if (count < 1)
        snprintf(err, errlen,
                 "--gpus: device %d: no GPU is visible (a build without CUDA, or no device); "
                 "--gpus all answers on the CPU then",
                 l->dev[k]);
      else
        snprintf(err, errlen, "--gpus: device %d: this machine has %d GPU%s (0 .. %d)", l->dev[k],
                 count, count == 1 ? "" : "s", count - 1);
      return -1;
    }
  return 0;
}

/* ---- warm-up ----------------------------------------------------------------------------------
 */

typedef struct warm {
  int dev, ok;
  char msg[256];
  pthread_t th;
  int started;
} warm;

/* On a thread of its own: the device chosen for it, its context made, its name read. */
static void *warm_one(void *arg)
{
  warm *w = (warm *)arg;
  w->ok = devo_gpu_select(w->dev) == DEVO_OK && devo_gpu_warmup() == DEVO_OK &&
          devo_gpu_available(w->msg, sizeof w->msg);
  if (!w->ok && !w->msg[0])
    devo_gpu_available(w->msg, sizeof w->msg);
  return NULL;
}

/* The devices to warm: the list, every visible one for "all", GPU 0 by default. */
static int devices(const serve_gpu_list *l, int *dev)
{
  int n = 0, k;
  if (!l->given) {
    dev[n++] = 0;
  } else if (l->all) {
    const int count = devo_gpu_count();
    for (k = 0; k < count && k < SERVE_GPU_MAX; ++k)
      dev[n++] = k;
  } else {
    for (k = 0; k < l->n; ++k)
      dev[n++] = l->dev[k];
  }
  return n;
}

serve_gpus *serve_gpus_start(const serve_gpu_list *l, int start)
{
  serve_gpus *g = (serve_gpus *)calloc(1, sizeof *g);
  warm *w;
  int dev[SERVE_GPU_MAX], n, k;
  if (!g)
    return NULL;
  pthread_mutex_init(&g->mu, NULL);
  if (!start)
    return g;
  n = devices(l, dev);
  if (n == 0) { /* --gpus all, none visible */
    fprintf(stderr, "devo serve: --gpus all: no GPU is visible (a build without CUDA, or no "
                    "device): searching on the CPU\n");
    return g;
  }
  w = (warm *)calloc((size_t)n, sizeof *w);
  if (!w) {
    serve_gpus_free(g);
    return NULL;
  }
  for (k = 0; k < n; ++k) {
    w[k].dev = dev[k];
    w[k].started = n > 1 && pthread_create(&w[k].th, NULL, warm_one, &w[k]) == 0;
    if (!w[k].started) /* one GPU, or no thread: here */
      warm_one(&w[k]);
  }
  for (k = 0; k < n; ++k) {
    if (w[k].started)
      pthread_join(w[k].th, NULL);
    if (w[k].ok) {
      gpu *u = &g->g[g->n++];
      u->dev = w[k].dev;
      snprintf(u->name, sizeof u->name, "%s", w[k].msg);
      fprintf(stderr, "devo serve: GPU %d ready: %s\n", u->dev, u->name);
    } else if (l->given) {
      fprintf(stderr, "devo serve: GPU %d is not usable (%s): left out\n", w[k].dev, w[k].msg);
    }
  }
  free(w);
  if (g->n == 0)
    fprintf(stderr, "devo serve: no usable GPU: searching on the CPU\n");
  return g;
}

void serve_gpus_free(serve_gpus *g)
{
  if (!g)
    return;
  pthread_mutex_destroy(&g->mu);
  free(g);
}

int serve_gpus_usable(const serve_gpus *g)
{
  return g->n;
}

const char *serve_gpus_name(const serve_gpus *g)
{
  return g->n ? g->g[0].name : NULL;
}

/* ---- sharing ----------------------------------------------------------------------------------
 */

int serve_gpus_take(serve_gpus *g, int counted)
{
  int k, best = -1;
  pthread_mutex_lock(&g->mu);
  for (k = 0; k < g->n; ++k)
    if (g->g[k].running < SERVE_GPU_SLOTS && (best < 0 || g->g[k].running < g->g[best].running))
      best = k;
  if (best >= 0) {
    g->g[best].running++;
    g->g[best].taken++;
  } else if (g->n > 0) {
    g->busy++;
  } else if (counted) {
    g->absent++;
  }
  pthread_mutex_unlock(&g->mu);
  if (best < 0)
    return g->n > 0 ? SERVE_GPU_BUSY : SERVE_GPU_ABSENT;
  /* this thread's device: the connection threads answer requests on any GPU in turn */
  if (devo_gpu_select(g->g[best].dev) != DEVO_OK) { /* not seen: the GPU was warmed up */
    serve_gpus_give(g, best);
    return SERVE_GPU_ABSENT;
  }
  return best;
}

int serve_gpus_device(const serve_gpus *g, int k)
{
  return k >= 0 && k < g->n ? g->g[k].dev : -1;
}

void serve_gpus_give(serve_gpus *g, int k)
{
  pthread_mutex_lock(&g->mu);
  g->g[k].running--;
  pthread_mutex_unlock(&g->mu);
}

/* ---- metrics and health -----------------------------------------------------------------------
 */

void serve_gpus_metrics(serve_gpus *g, FILE *f)
{
  int k;
  pthread_mutex_lock(&g->mu);
  fputs("# HELP devo_gpu_requests_total Searches run on each GPU of --gpus.\n"
        "# TYPE devo_gpu_requests_total counter\n",
        f);
  for (k = 0; k < g->n; ++k)
    fprintf(f, "devo_gpu_requests_total{gpu=\"%d\"} %llu\n", g->g[k].dev,
            (unsigned long long)g->g[k].taken);
  fputs("# HELP devo_gpu_searches_running GPU searches running on each GPU of --gpus.\n"
        "# TYPE devo_gpu_searches_running gauge\n",
        f);
  for (k = 0; k < g->n; ++k)
    fprintf(f, "devo_gpu_searches_running{gpu=\"%d\"} %d\n", g->g[k].dev, g->g[k].running);
  fprintf(f,
          "# HELP devo_gpu_fallbacks_total Requests that wanted a GPU and searched on the CPU: "
          "busy (every GPU of --gpus was running a search), absent (no usable GPU).\n"
          "# TYPE devo_gpu_fallbacks_total counter\n"
          "devo_gpu_fallbacks_total{reason=\"busy\"} %llu\n"
          "devo_gpu_fallbacks_total{reason=\"absent\"} %llu\n",
          (unsigned long long)g->busy, (unsigned long long)g->absent);
  pthread_mutex_unlock(&g->mu);
}

void serve_gpus_health(serve_gpus *g, json_out *j)
{
  int k;
  pthread_mutex_lock(&g->mu);
  json_kv_str(j, "gpu", g->n ? g->g[0].name : NULL);
  json_key(j, "gpus");
  json_arr(j);
  for (k = 0; k < g->n; ++k) {
    json_obj(j);
    json_kv_int(j, "device", g->g[k].dev);
    json_kv_str(j, "name", g->g[k].name);
    json_kv_int(j, "running", g->g[k].running);
    json_kv_uint(j, "requests", g->g[k].taken);
    json_end_obj(j);
  }
  json_end_arr(j);
  pthread_mutex_unlock(&g->mu);
}
