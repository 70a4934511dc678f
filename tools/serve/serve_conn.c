/* SPDX-License-Identifier: MIT */
/* serve_conn.c: the connection guard of `devo serve` (serve_conn.h). libmicrohttpd 0.9.75 times
 * a connection out only when it is idle, so a client that sends one byte a second keeps its
 * connection, and its connection slot, for ever; it has a per-address limit but no way to make
 * room for a new client. The guard keeps its own list of connections (oldest first) under one
 * mutex; a socket is shut down only under that mutex and only while its entry is listed, and
 * libmicrohttpd tells the end of a connection (serve_guard_close) before it closes the socket,
 * so the descriptor shut down is never one that another connection has taken meanwhile. */
#define _POSIX_C_SOURCE 200809L
#include "serve_conn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct serve_conn {
  serve_conn *prev, *next;
  int fd, phase, cut;
  double since;  /* when the phase SG_WAIT began: the request must be whole by since + timeout */
  char addr[48]; /* the peer's address (no port), "" for a UNIX socket */
};

struct serve_guard {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t th;
  int stop, max_conn, max_per_addr;
  double timeout;
  serve_conn *head, *tail;
  serve_guard_cb cb;
  void *ud;
};

static double mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Closes c's connection (under g->mu): its thread sees the client gone. */
static void cut(serve_guard *g, serve_conn *c, int why)
{
  if (c->cut)
    return;
  c->cut = why;
  shutdown(c->fd, SHUT_RDWR);
  if (c->phase == SG_WAIT && g->cb) /* a request, if any, tells its own end */
    g->cb(g->ud, why, c->addr);
}

/* The connection to close to make room: the longest waiting for a request, else the one whose
 * body has come the longest; of address addr when addr is not NULL; never skip. */
static serve_conn *victim(serve_guard *g, const char *addr, const serve_conn *skip)
{
  serve_conn *c, *best = NULL;
  for (c = g->head; c; c = c->next) {
    if (c == skip || c->cut || c->phase == SG_BUSY || (addr && strcmp(c->addr, addr) != 0))
      continue;
    if (!best || c->phase < best->phase || (c->phase == best->phase && c->since < best->since))
      best = c;
  }
  return best;
}

static void *reaper(void *arg)
{
  serve_guard *g = (serve_guard *)arg;
  pthread_mutex_lock(&g->mu);
  while (!g->stop) {
    struct timespec t;
    const double now = mono_now();
    serve_conn *c;
    for (c = g->head; c; c = c->next)
      if (!c->cut && c->phase != SG_BUSY && now - c->since > g->timeout)
        cut(g, c, SG_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += 50000000L;
    if (t.tv_nsec >= 1000000000L) {
      t.tv_sec++;
      t.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&g->cv, &g->mu, &t);
  }
  pthread_mutex_unlock(&g->mu);
  return NULL;
}

serve_guard *serve_guard_start(int max_conn, int max_per_addr, double read_timeout,
                               serve_guard_cb cb, void *ud)
{
  serve_guard *g = (serve_guard *)calloc(1, sizeof *g);
  pthread_condattr_t ca;
  if (!g)
    return NULL;
  g->max_conn = max_conn;
  g->max_per_addr = max_per_addr;
  g->timeout = read_timeout;
  g->cb = cb;
  g->ud = ud;
  pthread_mutex_init(&g->mu, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&g->cv, &ca);
  pthread_condattr_destroy(&ca);
  if (pthread_create(&g->th, NULL, reaper, g) != 0) {
    free(g);
    return NULL;
  }
  return g;
}

void serve_guard_stop(serve_guard *g)
{
  serve_conn *c;
  if (!g)
    return;
  pthread_mutex_lock(&g->mu);
  g->stop = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  pthread_join(g->th, NULL);
  while ((c = g->head) != NULL) { /* connections libmicrohttpd did not report closed */
    g->head = c->next;
    free(c);
  }
  free(g);
}

/* The address of peer without its port, "" for a UNIX socket (or an unknown family). */
static void addr_text(const struct sockaddr *peer, char *out, size_t cap)
{
  out[0] = 0;
  if (peer && peer->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)peer)->sin_addr, out,
              (socklen_t)cap);
  else if (peer && peer->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)peer)->sin6_addr, out,
              (socklen_t)cap);
}

serve_conn *serve_guard_open(serve_guard *g, int fd, const struct sockaddr *peer)
{
  serve_conn *c = (serve_conn *)calloc(1, sizeof *c), *x;
  int same = 0;
  if (!c)
    return NULL;
  c->fd = fd;
  c->phase = SG_WAIT;
  c->since = mono_now();
  addr_text(peer, c->addr, sizeof c->addr);
  pthread_mutex_lock(&g->mu);
  c->prev = g->tail;
  if (g->tail)
    g->tail->next = c;
  else
    g->head = c;
  g->tail = c;
  for (x = g->head; c->addr[0] && x; x = x->next)
    same += !x->cut && strcmp(x->addr, c->addr) == 0;
  if (c->addr[0] && same > g->max_per_addr) {
    x = victim(g, c->addr, c);
    cut(g, x ? x : c, x ? SG_EVICTED : SG_REFUSED);
  }
  if (!c->cut) {
    int open = 0;
    for (x = g->head; x; x = x->next)
      open += !x->cut;
    if (open > g->max_conn) {
      x = victim(g, NULL, c);
      cut(g, x ? x : c, x ? SG_EVICTED : SG_REFUSED);
    }
  }
  pthread_mutex_unlock(&g->mu);
  return c;
}

void serve_guard_phase(serve_guard *g, serve_conn *c, int phase)
{
  if (!c)
    return;
  pthread_mutex_lock(&g->mu);
  c->phase = phase;
  if (phase == SG_WAIT)
    c->since = mono_now();
  pthread_mutex_unlock(&g->mu);
}

int serve_guard_cut(serve_guard *g, const serve_conn *c)
{
  int why;
  if (!c)
    return SG_OPEN;
  pthread_mutex_lock(&g->mu);
  why = c->cut;
  pthread_mutex_unlock(&g->mu);
  return why;
}

void serve_guard_close(serve_guard *g, serve_conn *c)
{
  if (!c)
    return;
  pthread_mutex_lock(&g->mu);
  if (c->prev)
    c->prev->next = c->next;
  else
    g->head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    g->tail = c->prev;
  pthread_mutex_unlock(&g->mu);
  free(c);
}
