/* SPDX-License-Identifier: MIT */
/* serve_conn.c: the connection guard of `devo serve` (serve_conn.h). libmicrohttpd 0.9.75 times
 * a connection out only when it is idle, so a client that sends one byte a second keeps its
 * connection, and its connection slot, for ever; it has a per-address limit but no way to make
 * room for a new client. The guard keeps its own list of connections (oldest first) under one
 * mutex; a socket is shut down only under that mutex and only while its entry is listed, and
 * libmicrohttpd tells the end of a connection (serve_guard_close) before it closes the socket,
 * so the descriptor shut down is never one that another connection has taken meanwhile. */
#define _GNU_SOURCE /* POLLRDHUP: a client that ended its side with its head not whole */
#include "serve_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

struct serve_conn {
  serve_conn *prev, *next;
  int fd, phase, cut;
  int handed; /* being handed to libmicrohttpd: not timed or closed (serve_guard_hand) */
  double handed_at;
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

/* A connection handed to libmicrohttpd is told as started within microseconds; one not told
 * after this long was refused by it (its connection limit), its socket closed. */
#define HANDED_MAX_S 5.0

static double mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Unlinks c from the list and frees it (under g->mu). */
static void drop(serve_guard *g, serve_conn *c)
{
  if (c->prev)
    c->prev->next = c->next;
  else
    g->head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    g->tail = c->prev;
  free(c);
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
    if (c == skip || c->cut || c->handed || c->phase == SG_BUSY ||
        (addr && strcmp(c->addr, addr) != 0))
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
    serve_conn *c, *next;
    for (c = g->head; c; c = next) {
      next = c->next;
      if (!c->cut && !c->handed && c->phase != SG_BUSY && now - c->since > g->timeout)
        cut(g, c, SG_TIMEOUT);
      else if (c->handed && now - c->handed_at > HANDED_MAX_S)
        drop(g, c); /* libmicrohttpd closed it without a word (its own limit): not shut down */
    }
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
  drop(g, c);
  pthread_mutex_unlock(&g->mu);
}

void serve_guard_hand(serve_guard *g, serve_conn *c)
{
  if (!c)
    return;
  pthread_mutex_lock(&g->mu);
  c->handed = 1;
  c->handed_at = mono_now();
  pthread_mutex_unlock(&g->mu);
}

serve_conn *serve_guard_adopt(serve_guard *g, int fd)
{
  serve_conn *c;
  pthread_mutex_lock(&g->mu);
  for (c = g->tail; c && !(c->handed && c->fd == fd); c = c->prev)
    ;
  if (c)
    c->handed = 0;
  pthread_mutex_unlock(&g->mu);
  return c;
}

/* ---- the head of a request ------------------------------------------------------------------ */

static int refuse(serve_head *h, int status, const char *msg)
{
  h->status = status;
  snprintf(h->msg, sizeof h->msg, "%s", msg);
  return -1;
}

/* A character of an HTTP token (RFC 9110 5.6.2): a method or a field name. */
static int tchar(unsigned char ch)
{
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/* The request line from p[i]: the index past its end, 0 when it is not whole yet and has no
 * fault so far, -1 when refused (*h). *v11: HTTP/1.1 (or a later 1.x). */
static long request_line(const char *p, size_t n, size_t i, int *v11, serve_head *h)
{
  static const char *const bad = "malformed request line: METHOD TARGET HTTP/1.1 is needed";
  static const char ver[] = "HTTP/d.d";
  size_t k;
  for (k = i; k < n && tchar((unsigned char)p[k]); ++k)
    ;
  if (k == n)
    return 0;
  if (k == i || p[k] != ' ')
    return refuse(h, 400, bad);
  for (i = ++k; k < n && (unsigned char)p[k] > ' ' && (unsigned char)p[k] < 127; ++k)
    ;
  if (k == n)
    return 0;
  if (k == i || p[k] != ' ')
    return refuse(h, 400, bad);
  for (i = ++k; k < n && k - i < 8; ++k)
    if (ver[k - i] == 'd' ? p[k] < '0' || p[k] > '9' : p[k] != ver[k - i])
      return refuse(h, 400, bad);
  if (k - i < 8)
    return 0;
  if (p[i + 5] != '1')
    return refuse(h, 505, "HTTP version not supported: HTTP/1.1 or HTTP/1.0 is needed");
  *v11 = p[i + 7] != '0';
  if (k < n && p[k] == '\r')
    ++k;
  if (k == n)
    return 0;
  return p[k] == '\n' ? (long)k + 1 : refuse(h, 400, bad);
}

/* The framing counts of a head: Content-Length headers, whether one is not a number of at most
 * 18 digits (too_long: of more), Transfer-Encoding headers. */
typedef struct head_framing {
  int cl, bad_cl, long_cl, te;
} head_framing;

/* One header field (len bytes, no line end): counted in *f; 0, or -1 refused. */
static int header_field(const char *p, size_t len, head_framing *f, int *host, serve_head *h)
{
  size_t k, v, e;
  for (k = 0; k < len && tchar((unsigned char)p[k]); ++k)
    ;
  if (k == 0 || k == len || p[k] != ':')
    return refuse(h, 400,
                  "malformed header field: NAME: VALUE is needed (no space before the "
                  "colon, no line folding)");
  for (v = k + 1; v < len; ++v)
    if (((unsigned char)p[v] < ' ' && p[v] != '\t') || p[v] == 127)
      return refuse(h, 400, "malformed header field: a control byte in its value");
  for (v = k + 1; v < len && (p[v] == ' ' || p[v] == '\t'); ++v)
    ;
  for (e = len; e > v && (p[e - 1] == ' ' || p[e - 1] == '\t'); --e)
    ;
  if (k == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
    size_t d;
    f->cl++;
    for (d = v; d < e && p[d] >= '0' && p[d] <= '9'; ++d)
      ;
    f->bad_cl |= d == v || d != e;
    f->long_cl |= d == e && e - v > 18;
  } else if (k == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
    f->te++;
  } else if (k == 4 && strncasecmp(p, "Host", 4) == 0) {
    ++*host;
  }
  return 0;
}

int serve_head_framing(int cl, int bad_cl, int te, serve_head *h)
{
  if (cl > 1 || (cl && te) || te > 1 || bad_cl) {
    h->status = 400;
    snprintf(h->msg, sizeof h->msg, "%s: the end of the body is ambiguous",
             bad_cl   ? "a Content-Length that is not a number"
             : cl > 1 ? "two Content-Length headers"
             : cl     ? "Content-Length and Transfer-Encoding together"
                      : "two Transfer-Encoding headers");
    return -1;
  }
  if (te)
    return refuse(h, 411,
                  "Transfer-Encoding (a chunked body) is not taken: send the body with its "
                  "Content-Length");
  return 0;
}

int serve_head_check(const char *p, size_t n, serve_head *h)
{
  head_framing f;
  size_t i = 0;
  long end;
  int v11 = 0, host = 0, fields = 0;
  memset(&f, 0, sizeof f);
  while (i < n && i < 4 && (p[i] == '\r' || p[i] == '\n')) /* empty lines before it: allowed */
    ++i;
  end = request_line(p, n, i, &v11, h);
  if (end <= 0)
    return end < 0 ? -1
           : n >= SERVE_HEAD_MAX
               ? refuse(h, 414, "request line longer than 16 KiB (the head's limit)")
               : 0;
  for (i = (size_t)end;;) {
    const char *lf = (const char *)memchr(p + i, '\n', n - i);
    size_t len;
    if (!lf)
      return n >= SERVE_HEAD_MAX ? refuse(h, 431, "request head over 16 KiB") : 0;
    len = (size_t)(lf - (p + i));
    if (len && p[i + len - 1] == '\r')
      --len;
    if (len == 0)
      break;
    if (++fields > SERVE_HEAD_FIELDS)
      return refuse(h, 431, "more than 100 header fields");
    if (header_field(p + i, len, &f, &host, h))
      return -1;
    i = (size_t)(lf - p) + 1;
  }
  if (f.long_cl && !f.bad_cl && f.cl == 1 && !f.te)
    return refuse(h, 413, "a Content-Length of more than 18 digits: more than --max-body");
  if (serve_head_framing(f.cl, f.bad_cl, f.te, h))
    return -1;
  if (v11 && host != 1)
    return refuse(h, 400, host ? "two Host headers" : "an HTTP/1.1 request needs a Host header");
  return 1;
}

int serve_head_wait(int fd, const atomic_int *stop, serve_head *h)
{
  char buf[SERVE_HEAD_MAX];
  ssize_t got = 0;
  int rc = 0, lowat;
  while (!atomic_load(stop)) {
    struct pollfd pf;
    ssize_t r;
    pf.fd = fd;
    pf.events = POLLIN | POLLRDHUP;
    pf.revents = 0;
    if (poll(&pf, 1, 200) <= 0)
      continue; /* a look at stop; the guard ends a head that does not come */
    r = recv(fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
      break;
    if (r <= got) {
      if (pf.revents & (POLLRDHUP | POLLHUP | POLLERR)) /* no more will come */
        break;
      /* poll says readable while unread bytes wait where SO_RCVLOWAT is not heeded (a UNIX
       * socket): a pause instead of a spin */
      nanosleep(&(struct timespec){0, 5000000L}, NULL);
      continue;
    }
    got = r;
    if ((rc = serve_head_check(buf, (size_t)got, h)) != 0)
      break;
    lowat = (int)got + 1; /* poll wakes when more than what was looked at came */
    setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat);
  }
  lowat = 1;
  setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat);
  return rc;
}

void serve_head_refuse(int fd, const char *answer, size_t len)
{
  char sink[4096];
  size_t sent = 0, dropped = 0;
  const double until = mono_now() + 1.0;
  while (sent < len) {
    const ssize_t w = send(fd, answer + sent, len - sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    sent += (size_t)w;
  }
  shutdown(fd, SHUT_WR);
  /* until the client ends its side, stops sending for 100 ms, or 1 s or 1 MiB have passed */
  while (dropped < (1u << 20) && mono_now() < until) {
    struct pollfd pf;
    ssize_t r;
    pf.fd = fd;
    pf.events = POLLIN;
    pf.revents = 0;
    if (poll(&pf, 1, 100) <= 0)
      break;
    r = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
      break;
    if (r > 0)
      dropped += (size_t)r;
  }
}
