/* SPDX-License-Identifier: MIT */
/* cmd_serve.c: `devo serve`: devo_schedule_run as an HTTP+JSON service for resource managers
 * (docs/serve.md). libmicrohttpd runs one thread per connection; those threads read and parse
 * the bodies (tools/serve/serve_req.c), then take one of --workers search slots in arrival order,
 * waiting in a queue of at most --queue requests, never past their own deadline: a request that
 * cannot start in time is answered at once by the MCT heuristic (O(nm)) and says so. The
 * deadline of a request counts from the moment its body is complete in memory. The answer is
 * the JSON of `devo schedule --format json` (tools/sched_json.c). Nothing of the search is here:
 * the GPUs of --gpus are made ready once (devo_gpu_warmup on each) and each handed to one search
 * at a time (tools/serve/serve_gpu.c). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli.h"
#include "tools/json_out.h"
#include "tools/sched_json.h"
#include "serve_conn.h"
#include "serve_gpu.h"
#include "serve_req.h"

/* The deadline budget of a request is the library's (devo_schedule_budget, engine/budget.c): the
 * time kept back from the search for the timeline and the JSON answer (a fixed part and a part
 * per task), the latest start worth a slot (else the quick answer) and the slack of a late
 * answer. That fixed reserve holds on a machine with a free core for each search; where the
 * answers come later than planned (a search preempted near its end on a loaded machine, a GPU
 * search that stops a kernel late), each search also keeps back the largest lateness of the
 * last LATE_WINDOW answers of its backend, at most LATE_MAX_SHARE of the time it has. */
#define LATE_WINDOW    64
#define LATE_MAX_SHARE 0.5
/* Of the 5 ms that an answer may take past its deadline, the learnt part may use this much (the
 * rest is for the send and the client): a search shortened less costs less in quality. */
#define LATE_SLACK_USE 0.002
/* A body up to this size is read into its matrix on its connection's thread as soon as it is
 * complete (about 2 ms at the readers' rates, like the writing of an answer); a larger one first
 * takes a worker slot, as a search does, and keeps it for its search: its reading then cannot
 * take a core from the searches that run, and admission counts it. */
#define INLINE_PARSE_BYTES (256u << 10)
/* The reading rates (bytes/s) assumed until some were measured: about a third of the slowest
 * that bench-serve measured on the loaded 2-core machine (JSON 250-450 MB/s, CSV by one thread
 * 42-180 MB/s; BENCHMARKS.md). The service then uses the slowest of the last PARSE_WINDOW large
 * bodies of each format. */
#define PARSE_RATE_JSON 100e6
#define PARSE_RATE_CSV  15e6
#define PARSE_WINDOW    8
/* The time kept after a large body's reading for its answer: the reading stops this long before
 * the deadline (the refusal is then on time), and a search starts only by the budget's start_by
 * less what devo_schedule_run takes whatever its time limit (its set-up over the matrix, its first
 * heuristics: 8 ns a value on the loaded 2-core machine, 278 ms for 8189 x 4096 given 0.1 ms) at
 * SEARCH_PER_CELL_S; else the quick answer, which takes QUICK_PER_CELL_S (MCT: 2.4 ns a value,
 * 89 ms there); else 503 at once. */
#define PARSE_ANSWER_S    0.002
#define SEARCH_PER_CELL_S 12e-9
#define QUICK_PER_CELL_S  4e-9
/* How far past its time limit a search of a large matrix stops: its last step (a pass over the
 * matrix) ends after the limit, 16.8 ms for 8189 x 4096 (0.5 ns a value) on the loaded 2-core
 * machine; kept back from the search (with the learnt reserve, the larger of the two), so that
 * the first large request is on time too. 512 x 16: 5 us. */
#define SEARCH_STOP_PER_CELL_S 0.6e-9
/* Memory kept for a request while its body arrives and is read: the body and its matrix (8
 * bytes a value, at least 2 bytes a value in JSON and CSV alike: 4 times the body at most);
 * once it is read, what its search needs instead (reserve_search). */
#define MEMORY_PER_BODY_BYTE 5
/* Connections that libmicrohttpd accepts above --max-connections, so that the guard sees them
 * and can close an older, slow one to make room (serve_conn.h). */
#define CONN_HEADROOM 16

static const char *const serve_help =
    "usage: devo serve [options]\n"
    "\n"
    "Runs the scheduler of 'devo schedule' as an HTTP service (docs/serve.md):\n"
    "  POST /v1/schedule  body: JSON {\"etc\": [[...], ...], \"ready\": [...], \"objective\",\n"
    "                     \"lambda\", \"order\", \"time_limit\", \"seed\", \"backend\", "
    "\"steps\",\n"
    "                     \"search\", \"chains\"}, or CSV (Content-Type: text/csv) with the same\n"
    "                     options as query parameters (ready=a,b,c); answer: the JSON of\n"
    "                     'devo schedule --format json' plus admission and queue_wait\n"
    "  GET /v1/health     ready, version, GPU, workers, queue\n"
    "  GET /metrics       Prometheus text: requests by outcome, latency histogram, deadline\n"
    "                     overruns, queue length\n"
    "The deadline of a request (its time_limit) counts from the moment its body is complete in\n"
    "memory. A request that cannot start its search before its deadline is answered at once by\n"
    "the MCT heuristic (\"admission\": \"quick\"); one that finds the queue full gets 503.\n"
    "\n"
    "options:\n"
    "  --listen ADDR        HOST:PORT (default 127.0.0.1:8707; [::1]:PORT for IPv6; port 0 picks\n"
    "                       a free one, said on stderr) or a UNIX socket path (holding a '/')\n"
    "  --workers N          searches at once, 1 .. 1024 (default: the core count); each search\n"
    "                       runs on one thread\n"
    "  --queue N            requests waiting for a worker, 0 .. 100000 (default 64); more: 503\n"
    "  --max-connections N  open connections, 1 .. 100000 (default 256); one thread each; at\n"
    "                       the limit, the one waiting longest for its request is closed\n"
    "  --max-per-address N  open connections from one address, 1 .. 100000 (default 64; as\n"
    "                       many as --max-connections behind a proxy)\n"
    "  --max-body BYTES     largest body, with an optional K, M or G (binary) suffix (default\n"
    "                       64M); larger: 413\n"
    "  --max-memory BYTES   memory for the requests in flight: 5 times each body while it\n"
    "                       arrives and is read, then twice its matrix (default: half the\n"
    "                       machine's memory); more: 503\n"
    "  --read-timeout S     seconds to receive a whole request, head and body, > 0 (default\n"
    "                       10), however its bytes trickle in; then its connection is closed\n"
    "  --parse-rate MB/S    reading rate of a JSON body assumed until some were measured\n"
    "                       (default 100): a body that cannot be read before its deadline at\n"
    "                       that rate gets 413 at once\n"
    "  --time-limit S       time_limit of requests that give none (default 1)\n"
    "  --max-time-limit S   largest time_limit accepted (default 60)\n"
    "  --backend B          backend of requests that give none: cpu, gpu or auto (default auto);\n"
    "                       gpu and auto search on the GPU when it is free (one search at a\n"
    "                       time), else on the CPU; with cpu the GPU is not started\n"
    "  --gpus LIST          the GPUs to search on: all, or device indices such as 0,1 (default:\n"
    "                       GPU 0 when one is usable); each made ready at start and given to\n"
    "                       one search at a time, the least busy first; when all are busy a\n"
    "                       request searches on the CPU (\"gpu_fallback\": \"busy\"); all on a\n"
    "                       machine without GPUs answers on the CPU, an index there is refused\n"
    "  --keep-alive         keep a connection open for more requests (default: one request per\n"
    "                       connection, so that every request's head is checked by the service\n"
    "                       and every error is JSON; with it, errors in the head of a\n"
    "                       connection's later request are libmicrohttpd's own, in HTML)\n"
    "  --help               this text\n"
    "Each request is logged as one line on stderr: method, path, body bytes, status, latency\n"
    "(from the complete request to the answer), admission and stop reason. SIGTERM or SIGINT:\n"
    "stop accepting, let the requests in flight end at their deadlines, exit 0.\n";

/* Answer outcomes, the label of devo_requests_total. */
enum {
  OUT_SEARCH,
  OUT_QUICK,
  OUT_INFO,
  OUT_BAD_REQUEST,
  OUT_NOT_FOUND,
  OUT_METHOD,
  OUT_TIMEOUT,
  OUT_TOO_LARGE,
  OUT_MEDIA,
  OUT_REJECTED,
  OUT_ERROR,
  OUT_ABORTED,
  OUT_DEADLINE,
  OUT_EVICTED,
  OUT_HTTP_ERROR,
  OUT_COUNT
};
static const char *const outcome_names[OUT_COUNT] = {
    "search",      "quick",     "info",
    "bad_request", "not_found", "method_not_allowed",
    "timeout",     "too_large", "unsupported_media_type",
    "rejected",    "error",     "aborted",
    "deadline",    "evicted",   "http_error"};

static const double hist_le[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                 0.25,  0.5,    1.0,   2.5,  5.0,   10.0};
#define NHIST ((int)(sizeof hist_le / sizeof hist_le[0]))

typedef struct serve_opts {
  const char *listen;
  int workers, queue, max_conn, max_per_addr, backend;
  size_t max_body, max_memory;
  double read_timeout, time_limit, max_time_limit;
  double parse_rate; /* MB/s of a JSON body assumed until one was measured */
  serve_gpu_list gpus;
  int keep_alive; /* more than one request per connection (later heads read by libmicrohttpd) */
} serve_opts;

/* A request waiting for a search slot (on its connection thread's stack). */
typedef struct waiter {
  double deadline; /* when it gives its slot back */
  double start_by; /* the latest start worth a slot: the budget's, less the reading of its body
                      when that is done in the slot */
  struct waiter *next;
} waiter;

typedef struct server {
  serve_opts o;
  serve_limits lim;
  pthread_mutex_t mu;
  pthread_cond_t cv;     /* slots freed, waiters left, requests ended */
  double *slot_deadline; /* per worker slot: the deadline of its search, 0 = free */
  double *free_at;       /* scratch of estimated_start, one per worker */
  int running, queued, active;
  atomic_int stopping; /* after SIGTERM or SIGINT */
  waiter *head, *tail;
  /* metrics, under mu */
  uint64_t outcomes[OUT_COUNT], hist[NHIST + 1], overruns;
  double lat_sum;
  uint64_t lat_count;
  /* per backend (0 CPU, 1 GPU): how much later than planned the last LATE_WINDOW answers were
   * ready (search end + fixed reserve), 0 when not late; under mu */
  double late[2][LATE_WINDOW];
  unsigned late_next[2];
  /* the GPUs: ready once at start, one search at a time on each (serve_gpu.h) */
  serve_gpus *gpus;
  /* the reading rates (bytes/s) of the last PARSE_WINDOW large bodies, JSON [0] and CSV [1]
   * (0: none yet), and the memory kept for the requests in flight; under mu */
  double parse_rate[2][PARSE_WINDOW];
  unsigned parse_next[2];
  size_t memory_used;
  serve_guard *guard;
  /* the connections: accepted here, their first head checked (serve_head_wait) on a thread of
   * their own, then handed to libmicrohttpd */
  struct MHD_Daemon *daemon;
  int listen_fd, checking; /* checking: threads looking at a first head; under mu */
  pthread_t acceptor;
} server;

/* Routes. */
enum { R_NONE, R_SCHEDULE, R_HEALTH, R_METRICS };

/* One request (MHD's per-request pointer). */
typedef struct req {
  int route, is_csv, responded, http, outcome;
  int too_large, no_memory; /* the body is being dropped, to answer 413 or 503 at its end */
  int cut;                  /* closed without an answer: the body came too slowly */
  char method[16], path[128];
  double t_first, t_complete, t_answer;
  /* the phases of a schedule request (Server-Timing header): the reading of the body and the
   * wait for a slot (in either order), the start and end of the search, 0 when not reached */
  double d_parse, d_wait, t_search0, t_searched, budget;
  int parsed;
  char *body;
  size_t len, cap;
  int mapped;       /* body is a mapping of its own (body_alloc) */
  size_t reserved;  /* memory kept for it (server's memory_used) */
  void *spare;      /* memory to free once answered (serve_err.spare) */
  devo_etc *matrix; /* the request's matrix, freed once answered: freeing a large one takes ms */
  serve_conn *conn; /* its connection's entry in the guard */
  const char *admission, *stop; /* for the log; static strings */
} req;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- options ------------------------------------------------------------------------------ */

static int parse_size(const char *v, size_t *out)
{
  char *end;
  unsigned long long x;
  unsigned long long mul = 1;
  errno = 0;
  if (!*v || *v == '-')
    return -1;
  x = strtoull(v, &end, 10);
  if (errno || end == v)
    return -1;
  if (*end == 'K' || *end == 'k')
    mul = 1ull << 10;
  else if (*end == 'M')
    mul = 1ull << 20;
  else if (*end == 'G')
    mul = 1ull << 30;
  if (mul > 1)
    ++end;
  if (*end || x == 0 || x > (1ull << 40) / mul)
    return -1;
  *out = (size_t)(x * mul);
  return 0;
}

static int positive_seconds(const char *opt, const char *v, double *out)
{
  if (cli_double("serve", opt, v, out))
    return CLI_USAGE;
  if (!(*out > 0.0 && *out <= 1e6))
    return cli_usage_error("serve", "%s must be seconds > 0 and <= 1e6, got %s", opt, v);
  return 0;
}

static int int_in(const char *opt, const char *v, int lo, int hi, int *out)
{
  if (cli_int("serve", opt, v, out))
    return CLI_USAGE;
  if (*out < lo || *out > hi)
    return cli_usage_error("serve", "%s must be %d .. %d, got %s", opt, lo, hi, v);
  return 0;
}

/* A size option: bytes with an optional K, M or G. */
static int size_opt(const char *opt, const char *v, size_t *out)
{
  if (parse_size(v, out))
    return cli_usage_error("serve", "%s: '%s' is not a size (bytes, K, M or G), 1 .. 1T", opt, v);
  return 0;
}

static void opts_default(serve_opts *o)
{
  const long cores = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES),
             page = sysconf(_SC_PAGESIZE);
  memset(o, 0, sizeof *o);
  o->listen = "127.0.0.1:8707";
  o->workers = cores < 1 ? 1 : cores > 1024 ? 1024 : (int)cores;
  o->queue = 64;
  o->max_conn = 256;
  o->max_per_addr = 64;
  o->parse_rate = PARSE_RATE_JSON / 1e6;
  o->max_body = (size_t)64 << 20;
  o->max_memory = pages > 0 && page > 0 ? (size_t)pages / 2 * (size_t)page : (size_t)1 << 30;
  o->read_timeout = 10.0;
  o->time_limit = 1.0;
  o->max_time_limit = 60.0;
  o->backend = DEVO_BACKEND_AUTO;
}

/* --gpus against --backend and the GPUs this process sees. */
static int check_gpus(const serve_opts *o)
{
  char err[256];
  if (o->gpus.given && o->backend == DEVO_BACKEND_CPU)
    return cli_usage_error("serve", "--gpus with --backend cpu: the GPUs are not started then");
  if (serve_gpu_check(&o->gpus, o->gpus.given && !o->gpus.all ? devo_gpu_count() : 0, err,
                      sizeof err))
    return cli_usage_error("serve", "%s", err);
  return 0;
}

static int parse(int argc, char **argv, serve_opts *o)
{
  static const char *const names[] = {
      "--listen=",     "--workers=",      "--queue=",           "--max-connections=",
      "--max-body=",   "--read-timeout=", "--time-limit=",      "--max-time-limit=",
      "--backend=",    "--help",          "--max-per-address=", "--max-memory=",
      "--parse-rate=", "--gpus=",         "--keep-alive",       NULL};
  static const char *const backends[] = {"cpu", "gpu", "auto", NULL};
  const char *v;
  int pos = 1, k, r = 0;
  opts_default(o);
  while ((k = cli_next("serve", argc, argv, &pos, names, &v)) != -1) {
    switch (k) {
    case -2:
      return CLI_USAGE;
    case -3:
      return cli_usage_error("serve", "unexpected argument '%s'", v);
    case 0:
      o->listen = v;
      break;
    case 1:
      r = int_in("--workers", v, 1, 1024, &o->workers);
      break;
    case 2:
      r = int_in("--queue", v, 0, 100000, &o->queue);
      break;
    case 3:
      r = int_in("--max-connections", v, 1, 100000, &o->max_conn);
      break;
    case 4:
      r = size_opt("--max-body", v, &o->max_body);
      break;
    case 5:
      r = positive_seconds("--read-timeout", v, &o->read_timeout);
      break;
    case 6:
      r = positive_seconds("--time-limit", v, &o->time_limit);
      break;
    case 7:
      r = positive_seconds("--max-time-limit", v, &o->max_time_limit);
      break;
    case 8:
      r = cli_pick("serve", "--backend", v, backends, &o->backend);
      break;
    case 9:
      fputs(serve_help, stdout);
      exit(CLI_OK);
    case 10:
      r = int_in("--max-per-address", v, 1, 100000, &o->max_per_addr);
      break;
    case 11:
      r = size_opt("--max-memory", v, &o->max_memory);
      break;
    case 12:
      if (cli_double("serve", "--parse-rate", v, &o->parse_rate))
        return CLI_USAGE;
      if (!(o->parse_rate >= 1.0 && o->parse_rate <= 1e6))
        r = cli_usage_error("serve", "--parse-rate must be MB/s in [1, 1e6], got %s", v);
      break;
    case 13: {
      char err[256];
      if (serve_gpu_parse(v, &o->gpus, err, sizeof err))
        r = cli_usage_error("serve", "%s", err);
      break;
    }
    case 14:
      o->keep_alive = 1;
      break;
    default:
      break;
    }
    if (r)
      return CLI_USAGE;
  }
  if (o->time_limit > o->max_time_limit)
    return cli_usage_error("serve", "--time-limit %g is above --max-time-limit %g", o->time_limit,
                           o->max_time_limit);
  if (o->max_memory / MEMORY_PER_BODY_BYTE < o->max_body)
    return cli_usage_error("serve",
                           "--max-memory %zu is less than %d times --max-body %zu: the largest "
                           "body could never be read",
                           o->max_memory, MEMORY_PER_BODY_BYTE, o->max_body);
  return check_gpus(o);
}

/* ---- admission: search slots and the queue ------------------------------------------------ */

/* When a request arriving now could start: the running searches end at their deadlines, and
 * each queued one before it takes the first slot to free up, ending at its own deadline (or at
 * once, with the quick answer, when that slot frees after the time by which it must start: its
 * deadline, less the reading of its body when that is done in the slot). Under s->mu. */
static double estimated_start(const server *s, double now)
{
  double *free_at = s->free_at;
  const waiter *w;
  int k, best;
  for (k = 0; k < s->o.workers; ++k)
    free_at[k] = s->slot_deadline[k] > now ? s->slot_deadline[k] : now;
  for (w = s->head;; w = w->next) {
    best = 0;
    for (k = 1; k < s->o.workers; ++k)
      if (free_at[k] < free_at[best])
        best = k;
    if (!w)
      return free_at[best];
    if (free_at[best] <= w->start_by)
      free_at[best] = w->deadline;
  }
}

static int take_slot(server *s, double deadline)
{
  int k;
  for (k = 0; k < s->o.workers; ++k)
    if (s->slot_deadline[k] == 0.0) {
      s->slot_deadline[k] = deadline;
      s->running++;
      return k;
    }
  return -1; /* not reached: callers check running < workers */
}

static void release_slot(server *s, int k)
{
  pthread_mutex_lock(&s->mu);
  s->slot_deadline[k] = 0.0;
  s->running--;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static void unlink_waiter(server *s, waiter *w)
{
  waiter **p = &s->head, *prev = NULL;
  while (*p && *p != w) {
    prev = *p;
    p = &(*p)->next;
  }
  if (!*p)
    return;
  *p = w->next;
  if (s->tail == w)
    s->tail = prev;
  s->queued--;
}

enum { ADMIT_RUN, ADMIT_QUICK, ADMIT_FULL };

/* Admits a request whose deadline is given: ADMIT_RUN with *slot taken (release_slot after),
 * ADMIT_QUICK (it cannot start by start_by: its budget's latest start worth a search, less the
 * reading of its body when the slot is to read it), ADMIT_FULL (the queue is full). Waits at
 * most until start_by. */
static int admit(server *s, double deadline, double start_by, int *slot)
{
  waiter w;
  struct timespec until;
  double now = now_s(), limit = start_by;
  int rc;
  pthread_mutex_lock(&s->mu);
  if (s->running < s->o.workers && !s->head) {
    *slot = take_slot(s, deadline);
    pthread_mutex_unlock(&s->mu);
    return ADMIT_RUN;
  }
  if (estimated_start(s, now) > limit) {
    pthread_mutex_unlock(&s->mu);
    return ADMIT_QUICK;
  }
  if (s->queued >= s->o.queue) {
    pthread_mutex_unlock(&s->mu);
    return ADMIT_FULL;
  }
  w.deadline = deadline;
  w.start_by = start_by;
  w.next = NULL;
  if (s->tail)
    s->tail->next = &w;
  else
    s->head = &w;
  s->tail = &w;
  s->queued++;
  until.tv_sec = (time_t)floor(limit);
  until.tv_nsec = (long)((limit - floor(limit)) * 1e9);
  for (;;) {
    if (s->head == &w && s->running < s->o.workers) {
      unlink_waiter(s, &w);
      *slot = take_slot(s, deadline);
      rc = ADMIT_RUN;
      break;
    }
    if (now_s() >= limit) {
      unlink_waiter(s, &w);
      rc = ADMIT_QUICK;
      break;
    }
    pthread_cond_timedwait(&s->cv, &s->mu, &until);
  }
  pthread_cond_broadcast(&s->cv); /* the head changed: the next one may go */
  pthread_mutex_unlock(&s->mu);
  return rc;
}

/* ---- answers -------------------------------------------------------------------------------- */

/* Counts an answer of a schedule request in the metrics; latency from the complete request; an
 * answer later than deadline + slack is an overrun. */
static void count_answer(server *s, const req *q, double deadline, double slack)
{
  const double lat = q->t_answer - q->t_complete;
  int b = 0;
  pthread_mutex_lock(&s->mu);
  while (b < NHIST && lat > hist_le[b])
    ++b;
  s->hist[b]++;
  s->lat_sum += lat;
  s->lat_count++;
  if (deadline > 0.0 && q->t_answer > deadline + slack)
    s->overruns++;
  pthread_mutex_unlock(&s->mu);
}

/* The server's own time of a schedule answer, so that a client can tell it from its own:
 * X-Devo-Elapsed-Ms from the complete body to now (just before the answer is queued), and the
 * phases in a Server-Timing header (W3C Server Timing; durations in ms): parse (the body read
 * into a matrix), wait (for a worker: after the parse for a small body, before it for a large
 * one), search (devo_schedule_run, given budget), answer (the timeline and the JSON). */
static void timing_headers(struct MHD_Response *resp, const req *q)
{
  const double t = now_s();
  char v[256];
  int n;
  snprintf(v, sizeof v, "%.3f", 1e3 * (t - q->t_complete));
  MHD_add_response_header(resp, "X-Devo-Elapsed-Ms", v);
  if (!q->parsed)
    return;
  n = snprintf(v, sizeof v, "parse;dur=%.3f", 1e3 * q->d_parse);
  if (q->t_search0 > 0.0)
    n += snprintf(v + n, sizeof v - (size_t)n, ", wait;dur=%.3f", 1e3 * q->d_wait);
  if (q->t_searched > 0.0)
    n +=
        snprintf(v + n, sizeof v - (size_t)n, ", search;dur=%.3f, budget;dur=%.3f, answer;dur=%.3f",
                 1e3 * (q->t_searched - q->t_search0), 1e3 * q->budget, 1e3 * (t - q->t_searched));
  MHD_add_response_header(resp, "Server-Timing", v);
}

/* Queues buf (malloc'd, len bytes; taken over) as the answer with its status and outcome. */
static enum MHD_Result respond(server *s, struct MHD_Connection *c, req *q, int http, int outcome,
                               char *buf, size_t len, const char *ctype)
{
  struct MHD_Response *resp;
  enum MHD_Result ok;
  resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
  if (!resp) {
    free(buf);
    return MHD_NO;
  }
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
  if (outcome == OUT_METHOD)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
                            q->route == R_SCHEDULE ? "POST" : "GET, HEAD");
  /* one request per connection unless --keep-alive: every request's head then passes the
   * service's own check (serve_conn.c), whose errors are JSON; libmicrohttpd answers the heads
   * it reads itself, those of a connection's later requests, in HTML */
  if (!s->o.keep_alive || atomic_load(&s->stopping))
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
  if (q->route == R_SCHEDULE && q->t_complete > 0.0)
    timing_headers(resp, q);
  ok = MHD_queue_response(c, (unsigned int)http, resp);
  MHD_destroy_response(resp);
  q->responded = 1;
  q->http = http;
  q->outcome = outcome;
  q->t_answer = now_s();
  /* counted now, not when the connection is done with it: a client that reads the metrics
   * right after its answer sees it counted */
  pthread_mutex_lock(&s->mu);
  s->outcomes[outcome]++;
  pthread_mutex_unlock(&s->mu);
  return ok;
}

/* The JSON error object: {"error": {"status", "message", "field", "row", "column"}}, malloc'd
 * (*len bytes), or NULL when out of memory. */
static char *error_json(int http, const serve_err *e, size_t *len)
{
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  json_out j;
  if (!f)
    return NULL;
  if (json_init(&j, f) == 0) {
    json_obj(&j);
    json_key(&j, "error");
    json_obj(&j);
    json_kv_int(&j, "status", http);
    json_kv_str(&j, "message", e->msg);
    if (e->field[0])
      json_kv_str(&j, "field", e->field);
    if (e->row)
      json_kv_int(&j, "row", e->row);
    if (e->col)
      json_kv_int(&j, "column", e->col);
    json_end_obj(&j);
    json_end_obj(&j);
    json_done(&j);
  }
  fclose(f);
  return buf;
}

static enum MHD_Result respond_error(server *s, struct MHD_Connection *c, req *q, int http,
                                     int outcome, const serve_err *e)
{
  size_t len = 0;
  char *buf = error_json(http, e, &len);
  if (!buf)
    return MHD_NO;
  return respond(s, c, q, http, outcome, buf, len, "application/json");
}

static enum MHD_Result respond_msg(server *s, struct MHD_Connection *c, req *q, int http,
                                   int outcome, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static enum MHD_Result respond_msg(server *s, struct MHD_Connection *c, req *q, int http,
                                   int outcome, const char *fmt, ...)
{
  serve_err e;
  va_list ap;
  memset(&e, 0, sizeof e);
  va_start(ap, fmt);
  vsnprintf(e.msg, sizeof e.msg, fmt, ap);
  va_end(ap);
  return respond_error(s, c, q, http, outcome, &e);
}

static enum MHD_Result health(server *s, struct MHD_Connection *c, req *q)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  json_out j;
  if (!f)
    return MHD_NO;
  pthread_mutex_lock(&s->mu);
  if (json_init(&j, f) == 0) {
    json_obj(&j);
    json_kv_bool(&j, "ready", !atomic_load(&s->stopping));
    json_kv_str(&j, "version", devo_version());
    serve_gpus_health(s->gpus, &j);
    json_kv_int(&j, "workers", s->o.workers);
    json_kv_int(&j, "running", s->running);
    json_kv_int(&j, "queue_length", s->queued);
    json_kv_int(&j, "queue_max", s->o.queue);
    json_end_obj(&j);
    json_done(&j);
  }
  pthread_mutex_unlock(&s->mu);
  fclose(f);
  return respond(s, c, q, 200, OUT_INFO, buf, len, "application/json");
}

/* Prometheus text exposition format 0.0.4. */
static enum MHD_Result metrics(server *s, struct MHD_Connection *c, req *q)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  uint64_t cum = 0;
  int k;
  if (!f)
    return MHD_NO;
  pthread_mutex_lock(&s->mu);
  fputs("# HELP devo_requests_total Requests answered, by outcome.\n"
        "# TYPE devo_requests_total counter\n",
        f);
  for (k = 0; k < OUT_COUNT; ++k)
    fprintf(f, "devo_requests_total{outcome=\"%s\"} %llu\n", outcome_names[k],
            (unsigned long long)s->outcomes[k]);
  fputs("# HELP devo_schedule_latency_seconds From the complete request to its answer.\n"
        "# TYPE devo_schedule_latency_seconds histogram\n",
        f);
  for (k = 0; k <= NHIST; ++k) {
    cum += s->hist[k];
    if (k < NHIST)
      fprintf(f, "devo_schedule_latency_seconds_bucket{le=\"%g\"} %llu\n", hist_le[k],
              (unsigned long long)cum);
    else
      fprintf(f, "devo_schedule_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
              (unsigned long long)cum);
  }
  fprintf(f, "devo_schedule_latency_seconds_sum %.9g\n", s->lat_sum);
  fprintf(f, "devo_schedule_latency_seconds_count %llu\n", (unsigned long long)s->lat_count);
  fprintf(f,
          "# HELP devo_deadline_overruns_total Answers later than their deadline + 5 ms.\n"
          "# TYPE devo_deadline_overruns_total counter\n"
          "devo_deadline_overruns_total %llu\n",
          (unsigned long long)s->overruns);
  fprintf(f,
          "# HELP devo_queue_length Requests waiting for a worker.\n"
          "# TYPE devo_queue_length gauge\ndevo_queue_length %d\n",
          s->queued);
  fprintf(f,
          "# HELP devo_searches_running Searches running.\n"
          "# TYPE devo_searches_running gauge\ndevo_searches_running %d\n",
          s->running);
  pthread_mutex_unlock(&s->mu);
  serve_gpus_metrics(s->gpus, f);
  fclose(f);
  return respond(s, c, q, 200, OUT_INFO, buf, len, "text/plain; version=0.0.4");
}

/* ---- one schedule ------------------------------------------------------------------------- */

/* The members devo serve adds to the JSON of devo schedule. */
typedef struct extra_info {
  const char *admission;
  double queue_wait;
  int gpu;              /* the CUDA index of the GPU the search ran on, -1: the CPU */
  const char *fallback; /* why a request that wanted a GPU searched on the CPU, or NULL */
} extra_info;

static void extra_members(json_out *j, const void *ud)
{
  const extra_info *x = (const extra_info *)ud;
  json_kv_str(j, "admission", x->admission);
  json_kv_num(j, "queue_wait", x->queue_wait);
  json_key(j, "gpu");
  if (x->gpu >= 0)
    json_int(j, x->gpu);
  else
    json_null(j);
  json_kv_str(j, "gpu_fallback", x->fallback);
}

/* The GPU of request r's search when it wants one: backend gpu or auto, and a search that runs
 * on the GPU (the DE pipeline or gpu-ls, as devo_schedule_search_for picks it on a ready GPU).
 * Returns its place in s->gpus (the device chosen for this thread), or -1 for the CPU, with
 * *fallback saying why when it wanted a GPU: "busy" (every GPU of --gpus running a search: it
 * does not wait, see serve_gpu.h), "absent" (no usable GPU; said only to a request that asked for
 * one, backend gpu or search gpu-ls, not to backend auto). */
static int pick_gpu(server *s, const serve_req *r, const devo_schedule_opts *so,
                    const char **fallback)
{
  const int asked = r->backend == DEVO_BACKEND_GPU || r->search == DEVO_SEARCH_GPU_LS;
  int ran, k;
  *fallback = NULL;
  if (r->backend == DEVO_BACKEND_CPU)
    return -1;
  ran = devo_schedule_search_for(so, devo_etc_ntasks(r->e), devo_etc_nmach(r->e), 1);
  if (ran != DEVO_SEARCH_PIPELINE && ran != DEVO_SEARCH_GPU_LS)
    return -1;
  k = serve_gpus_take(s->gpus, asked);
  if (k == SERVE_GPU_BUSY)
    *fallback = "busy";
  else if (k == SERVE_GPU_ABSENT && asked)
    *fallback = "absent";
  return k >= 0 ? k : -1;
}

/* The learned part of the reserve of a search on backend b (0 CPU, 1 GPU). */
static double late_reserve(server *s, int b)
{
  double worst = 0.0;
  int k;
  pthread_mutex_lock(&s->mu);
  for (k = 0; k < LATE_WINDOW; ++k)
    worst = fmax(worst, s->late[b][k]);
  pthread_mutex_unlock(&s->mu);
  return fmax(worst - LATE_SLACK_USE, 0.0);
}

static void late_record(server *s, int b, double late)
{
  pthread_mutex_lock(&s->mu);
  s->late[b][s->late_next[b]++ % LATE_WINDOW] = fmax(late, 0.0);
  pthread_mutex_unlock(&s->mu);
}

/* The deadline budget of request r for a search on backend from now (devo_schedule_budget): its
 * time_limit counts from the complete body, the answer (JSON with start and finish times) is
 * written into memory, and the service goes on (its heap keeps the matrix's memory). */
static int request_budget(const serve_req *r, const req *q, int backend, double now, devo_budget *b,
                          char *err, size_t errlen)
{
  devo_budget_opts bo;
  memset(&bo, 0, sizeof bo);
  bo.start = q->t_complete;
  bo.time_limit = r->time_limit;
  bo.now = now;
  bo.ntasks = devo_etc_ntasks(r->e);
  bo.nmach = devo_etc_nmach(r->e);
  bo.answer = DEVO_ANSWER_TIMES;
  bo.backend = backend;
  return devo_schedule_budget(&bo, b, err, errlen);
}

/* Runs the search (or the quick heuristic) and writes the JSON answer into *buf. Returns 0, or
 * the library's status with its message in res->message. */
static int search(server *s, const serve_req *r, double deadline, int quick, double waited, req *q,
                  char **buf, size_t *len, devo_schedule_result *res)
{
  const int n = devo_etc_ntasks(r->e);
  int *assign = (int *)malloc((size_t)n * sizeof(int)), st, gpu = 0, place = -1;
  double t_run;
  double *start = (double *)malloc((size_t)n * sizeof(double));
  double *finish = (double *)malloc((size_t)n * sizeof(double));
  devo_schedule_opts so;
  devo_budget b;
  sched_answer sa;
  extra_info x;
  FILE *f;
  memset(res, 0, sizeof *res);
  x.fallback = NULL;
  if (!assign || !start || !finish) {
    st = DEVO_E_NOMEM;
    goto done;
  }
  devo_schedule_opts_init(&so);
  so.lambda = r->lambda;
  so.order = r->order;
  so.seed = r->seed;
  so.threads = 1;
  so.search = r->search;
  so.steps = r->steps;
  so.chains = r->chains;
  so.heuristic = quick ? DEVO_HEUR_MCT : -1;
  /* a GPU slot only for a search that uses it: the DE pipeline or the GPU search (the IG
   * search of the makespan runs on the CPU); without a free GPU, gpu-ls runs IG on the CPU, and
   * the answer's search, backend and gpu_fallback say so */
  so.time_limit = r->time_limit; /* for the rule of search auto; the budget's below */
  if (!quick)
    place = pick_gpu(s, r, &so, &x.fallback);
  gpu = place >= 0;
  so.backend = gpu ? DEVO_BACKEND_GPU : DEVO_BACKEND_CPU;
  t_run = now_s();
  st = request_budget(r, q, so.backend, t_run, &b, res->message, sizeof res->message);
  if (st == DEVO_OK) {
    /* the learnt part of the reserve, or the last step of a large matrix's search if more, at
     * most LATE_MAX_SHARE of the search's time */
    const double keep =
        fmax(late_reserve(s, gpu), SEARCH_STOP_PER_CELL_S * (double)n * devo_etc_nmach(r->e));
    so.time_limit = quick ? b.search : fmax(b.search - fmin(keep, LATE_MAX_SHARE * b.search), 1e-6);
    q->budget = so.time_limit;
    st = devo_schedule_run(r->e, &so, assign, res);
  }
  if (gpu)
    serve_gpus_give(s->gpus, place);
  q->t_searched = now_s();
  if (st == DEVO_OK)
    st = devo_etc_timeline(r->e, assign, r->order, start, finish);
  if (st != DEVO_OK)
    goto done;
  memset(&sa, 0, sizeof sa);
  sa.assign = assign;
  sa.start = start;
  sa.finish = finish;
  sa.res = res;
  sa.lambda = r->lambda;
  sa.time_limit = r->time_limit;
  sa.order = r->order;
  sa.seed = r->seed;
  sa.elapsed = now_s() - (deadline - r->time_limit);
  sa.deadline_met = sa.elapsed <= r->time_limit + b.slack;
  x.admission = quick ? "quick" : "search";
  x.queue_wait = waited;
  x.gpu = res->backend == DEVO_BACKEND_GPU ? serve_gpus_device(s->gpus, place) : -1;
  sa.extra = extra_members;
  sa.extra_ud = &x;
  f = open_memstream(buf, len);
  if (!f || sched_json_write(f, r->e, &sa, 1) != 0)
    st = DEVO_E_NOMEM;
  if (f)
    fclose(f);
  if (!quick) /* the answer is ready: how much later than its search's end + the fixed reserve */
    late_record(s, gpu, now_s() - (t_run + q->budget + b.reserve));
  if (st != DEVO_OK) {
    free(*buf);
    *buf = NULL;
  }
done:
  if (st == DEVO_E_NOMEM && !res->message[0])
    snprintf(res->message, sizeof res->message, "out of memory");
  free(assign);
  free(start);
  free(finish);
  return st;
}

/* Query parameters of a CSV request: serve_req_csv's getter, and the first unknown name. */
static const char *query_get(void *ud, const char *key)
{
  return MHD_lookup_connection_value((struct MHD_Connection *)ud, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result first_unknown(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
  char *out = (char *)cls;
  int k;
  (void)kind;
  (void)value;
  for (k = 0; serve_req_params[k]; ++k)
    if (strcmp(key, serve_req_params[k]) == 0)
      return MHD_YES;
  snprintf(out, 80, "%s", key);
  return MHD_NO;
}

/* Keeps bytes of the memory for requests in flight for q (--max-memory); 0, or -1 when there is
 * not that much left. */
static int reserve(server *s, req *q, size_t bytes)
{
  int ok;
  pthread_mutex_lock(&s->mu);
  ok = s->memory_used + bytes <= s->o.max_memory;
  if (ok) {
    s->memory_used += bytes;
    q->reserved += bytes;
  }
  pthread_mutex_unlock(&s->mu);
  return ok ? 0 : -1;
}

/* Once the matrix is read, the memory of the search in place of the body's: the matrix, a second
 * matrix's worth for the search's state (a margin: devo_schedule_run reads the matrix in place
 * and its populations and loads are far smaller; measured, BENCHMARKS.md), and the answer
 * (about 128 bytes a task). 0, or -1 when that is more than is left (the reservation then stays
 * as it was). */
static int reserve_search(server *s, req *q, const devo_etc *e)
{
  const size_t n = (size_t)devo_etc_ntasks(e), m = (size_t)devo_etc_nmach(e);
  const size_t need = 2 * n * m * sizeof(double) + 128 * n;
  int ok;
  pthread_mutex_lock(&s->mu);
  ok = need <= q->reserved || s->memory_used - q->reserved + need <= s->o.max_memory;
  if (ok) {
    s->memory_used = s->memory_used - q->reserved + need;
    q->reserved = need;
  }
  pthread_mutex_unlock(&s->mu);
  return ok ? 0 : -1;
}

/* The reading rate (bytes/s) to plan a large body with: the slowest of the last large bodies
 * of its format (csv 1) read, or the assumed one before any. */
static double parse_rate(server *s, int csv)
{
  double slowest = 0.0;
  int k;
  pthread_mutex_lock(&s->mu);
  for (k = 0; k < PARSE_WINDOW; ++k)
    if (s->parse_rate[csv][k] > 0.0 && (slowest == 0.0 || s->parse_rate[csv][k] < slowest))
      slowest = s->parse_rate[csv][k];
  pthread_mutex_unlock(&s->mu);
  return slowest > 0.0 ? slowest : csv ? PARSE_RATE_CSV : 1e6 * s->o.parse_rate;
}

static void parse_rate_record(server *s, int csv, double rate)
{
  pthread_mutex_lock(&s->mu);
  s->parse_rate[csv][s->parse_next[csv]++ % PARSE_WINDOW] = rate;
  pthread_mutex_unlock(&s->mu);
}

/* A body's block of cap bytes. One larger than INLINE_PARSE_BYTES is mapped on its own, so that
 * it goes back to the system once its matrix is read (body_free), before the search: the heap
 * would keep it (mallopt in cmd_serve), and a request's peak would be its body, its matrix and
 * the search's copy of the matrix instead of the two matrices. */
static void body_alloc(req *q, size_t cap)
{
  q->mapped = cap > INLINE_PARSE_BYTES;
  if (q->mapped) {
    void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    q->body = m == MAP_FAILED ? NULL : (char *)m;
  } else {
    q->body = (char *)malloc(cap);
  }
  q->cap = q->body ? cap : 0;
  q->mapped &= q->body != NULL;
}

static void body_free(req *q)
{
  if (q->mapped)
    munmap(q->body, q->cap);
  else
    free(q->body);
  q->body = NULL;
  q->cap = 0;
  q->mapped = 0;
}

/* The head of a request: its options, so that its deadline is known. */
static int read_head(server *s, struct MHD_Connection *c, req *q, serve_req *r, serve_err *err)
{
  char unknown[80] = "";
  if (q->is_csv) {
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, first_unknown, unknown);
    return serve_req_csv_head(query_get, c, unknown[0] ? unknown : NULL, &s->lim, r, err);
  }
  return serve_req_json_head(q->body, q->len, &s->lim, r, err);
}

/* A large body: its slot first (its reading counted as a search's time is), then its reading.
 * Returns ADMIT_RUN (slot taken), or -1 with the answer queued in *ret. */
static int admit_large(server *s, struct MHD_Connection *c, req *q, const serve_req *r,
                       double deadline, int *slot, enum MHD_Result *ret)
{
  /* the reading, and the quick answer of the largest matrix the body can hold (2 bytes a value) */
  const double rate = parse_rate(s, q->is_csv),
               need = (double)q->len / rate + QUICK_PER_CELL_S * (double)q->len / 2;
  int adm;
  if (now_s() + need > deadline - PARSE_ANSWER_S) {
    serve_err e;
    memset(&e, 0, sizeof e);
    snprintf(e.field, sizeof e.field, "time_limit");
    snprintf(e.msg, sizeof e.msg,
             "a body of %zu bytes takes about %.3f s to read at this service's rate (%.1f MB/s), "
             "more than the %.3f s left of its time_limit of %g s: give more time or a smaller "
             "body",
             q->len, need, rate / 1e6, fmax(deadline - now_s() - PARSE_ANSWER_S, 0.0),
             r->time_limit);
    q->admission = "too large";
    *ret = respond_error(s, c, q, 413, OUT_TOO_LARGE, &e);
    return -1;
  }
  devo_budget b; /* before the matrix: the parts that do not depend on its size */
  char why[256];
  if (request_budget(r, q, DEVO_BACKEND_CPU, now_s(), &b, why, sizeof why) != DEVO_OK) {
    *ret = respond_msg(s, c, q, 500, OUT_ERROR, "deadline budget: %s", why);
    return -1;
  }
  adm = admit(s, deadline, b.start_by - need, slot);
  q->d_wait = now_s() - q->t_complete;
  if (adm == ADMIT_RUN)
    return ADMIT_RUN;
  q->admission = adm == ADMIT_FULL ? "full" : "busy";
  *ret = adm == ADMIT_FULL
             ? respond_msg(s, c, q, 503, OUT_REJECTED, "the queue is full (%d waiting): try again",
                           s->o.queue)
             : respond_msg(s, c, q, 503, OUT_REJECTED,
                           "no worker is free in time to read a body of %zu bytes (about %.3f s) "
                           "before its deadline: try again",
                           q->len, need);
  return -1;
}

/* The matrix of a request whose head was read, stopped at its deadline (less the time for the
 * answer); the body is freed. 0, or -1 with the refusal queued in *ret. */
static int read_matrix(server *s, struct MHD_Connection *c, req *q, serve_req *r, double deadline,
                       int large, enum MHD_Result *ret)
{
  serve_err err;
  const double t0 = now_s();
  const int rc = serve_req_matrix(q->body, q->len, deadline - PARSE_ANSWER_S, r, &err);
  const double t1 = now_s();
  if (large && rc == 0 && t1 > t0)
    parse_rate_record(s, q->is_csv, (double)q->len / (t1 - t0));
  q->d_parse = large ? t1 - t0 : t1 - q->t_complete;
  q->parsed = 1;
  if (rc == 0) {
    body_free(q);     /* the matrix is in r->e now (a refused body is freed after its answer) */
    q->matrix = r->e; /* q's from now on */
    if (reserve_search(s, q, r->e) == 0)
      return 0;
    *ret = respond_msg(s, c, q, 503, OUT_REJECTED,
                       "no memory left for the search of a %d x %d matrix (--max-memory %zu "
                       "bytes): try again",
                       devo_etc_ntasks(r->e), devo_etc_nmach(r->e), s->o.max_memory);
    return -1;
  }
  q->spare = err.spare;
  if (err.late)
    snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg),
             ", %.3f s after the body came", t1 - q->t_complete);
  *ret = respond_error(s, c, q, err.http,
                       err.late          ? OUT_DEADLINE
                       : err.http == 503 ? OUT_ERROR
                                         : OUT_BAD_REQUEST,
                       &err);
  return -1;
}

static enum MHD_Result schedule(server *s, struct MHD_Connection *c, req *q)
{
  serve_req r;
  serve_err err;
  devo_schedule_result res;
  devo_budget b;
  char *buf = NULL, why[256];
  size_t len = 0;
  double deadline;
  enum MHD_Result ret = MHD_NO;
  int rc, adm = ADMIT_RUN, slot = -1, st, quick;
  const int large = q->len > INLINE_PARSE_BYTES;
  if (read_head(s, c, q, &r, &err)) {
    q->parsed = 1;
    q->d_parse = now_s() - q->t_complete;
    return respond_error(s, c, q, err.http, OUT_BAD_REQUEST, &err);
  }
  deadline = q->t_complete + r.time_limit;
  if (large && admit_large(s, c, q, &r, deadline, &slot, &ret) != ADMIT_RUN)
    return ret;
  if (read_matrix(s, c, q, &r, deadline, large, &ret)) {
    if (slot >= 0)
      release_slot(s, slot);
    return ret;
  }
  if (request_budget(&r, q, DEVO_BACKEND_CPU, now_s(), &b, why, sizeof why) != DEVO_OK) {
    if (slot >= 0)
      release_slot(s, slot);
    return respond_msg(s, c, q, 500, OUT_ERROR, "deadline budget: %s", why);
  }
  if (!large) {
    adm = admit(s, deadline, b.start_by, &slot);
    q->d_wait = now_s() - q->t_complete - q->d_parse;
  }
  q->t_search0 = now_s();
  if (adm == ADMIT_FULL) {
    q->admission = "full";
    return respond_msg(s, c, q, 503, OUT_REJECTED, "the queue is full (%d waiting): try again",
                       s->o.queue);
  }
  /* a large body read late may leave no time worth a search (the quick answer, slot given back),
   * or none for any answer */
  {
    const double cells = (double)devo_etc_ntasks(r.e) * devo_etc_nmach(r.e),
                 left = deadline - q->t_search0;
    quick = adm == ADMIT_QUICK || q->t_search0 > b.start_by - SEARCH_PER_CELL_S * cells;
    if (quick && large && left < PARSE_ANSWER_S + QUICK_PER_CELL_S * cells) {
      release_slot(s, slot);
      q->admission = "too late";
      return respond_msg(s, c, q, 503, OUT_DEADLINE,
                         "the body was read %.3f s after it came, %.3f s before its deadline: "
                         "too late to schedule %.0f values (about %.3f s) by the deadline",
                         q->t_search0 - q->t_complete, left, cells, QUICK_PER_CELL_S * cells);
    }
  }
  if (quick && slot >= 0) {
    release_slot(s, slot);
    slot = -1;
  }
  q->admission = quick ? "quick" : "search";
  st = search(s, &r, deadline, quick, q->d_wait, q, &buf, &len, &res);
  if (slot >= 0)
    release_slot(s, slot);
  if (st != DEVO_OK) {
    const int bad = st == DEVO_E_INVALID;
    return respond_msg(s, c, q, bad ? 400 : 500, bad ? OUT_BAD_REQUEST : OUT_ERROR, "%s",
                       res.message[0] ? res.message : devo_status_message(st));
  }
  q->stop = devo_status_name(res.status);
  rc = respond(s, c, q, 200, quick ? OUT_QUICK : OUT_SEARCH, buf, len, "application/json");
  count_answer(s, q, deadline, b.slack);
  return (enum MHD_Result)rc;
}

/* ---- HTTP ----------------------------------------------------------------------------------- */

/* The printable start of s, for the log line. */
static void copy_printable(char *dst, size_t cap, const char *src)
{
  size_t i;
  for (i = 0; src && src[i] && i + 1 < cap; ++i)
    dst[i] = src[i] > ' ' && src[i] < 127 ? src[i] : '?';
  dst[i] = 0;
}

/* The headers that say where a body ends: how many Content-Length (and whether each is a
 * number) and Transfer-Encoding headers came. */
typedef struct framing {
  int cl, te, bad_cl;
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
  framing *f = (framing *)cls;
  (void)kind;
  if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
    f->cl++;
    f->bad_cl |= !value || !*value || strspn(value, "0123456789") != strlen(value);
  } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
    f->te++;
  }
  return MHD_YES;
}

/* The body's framing, refused when it is ambiguous or chunked (serve_head_framing: the same
 * rule as for the first head of a connection, which is checked before libmicrohttpd reads it;
 * this one holds for the later requests of a connection), and its memory kept. MHD_YES when the
 * body may come, with nothing queued. */
static enum MHD_Result check_framing(server *s, struct MHD_Connection *c, req *q)
{
  framing f;
  serve_head h;
  const char *cl;
  memset(&f, 0, sizeof f);
  MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
  if (serve_head_framing(f.cl, f.bad_cl, f.te, &h))
    return respond_msg(s, c, q, h.status, OUT_HTTP_ERROR, "%s", h.msg);
  cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (cl && strtod(cl, NULL) > (double)s->o.max_body)
    return respond_msg(s, c, q, 413, OUT_TOO_LARGE,
                       "body of %.20s bytes: more than --max-body (%zu bytes)", cl, s->o.max_body);
  if (cl && q->route == R_SCHEDULE) {
    const size_t n = (size_t)strtoull(cl, NULL, 10);
    if (reserve(s, q, MEMORY_PER_BODY_BYTE * n) != 0)
      return respond_msg(s, c, q, 503, OUT_REJECTED,
                         "no memory left for a body of %zu bytes (--max-memory %zu bytes, "
                         "%d times each body in flight): try again",
                         n, s->o.max_memory, MEMORY_PER_BODY_BYTE);
    body_alloc(q, n + 1); /* its exact size: no doubling */
  }
  return MHD_YES;
}

/* The checks of a request's first call (headers in, no body yet). Returns MHD_YES with nothing
 * queued when the body is to be read. */
static enum MHD_Result first_call(server *s, struct MHD_Connection *c, req *q, const char *url,
                                  const char *method)
{
  const char *ct;
  const int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
  q->route = strcmp(url, "/v1/schedule") == 0 ? R_SCHEDULE
             : strcmp(url, "/v1/health") == 0 ? R_HEALTH
             : strcmp(url, "/metrics") == 0   ? R_METRICS
                                              : R_NONE;
  {
    const enum MHD_Result fr = check_framing(s, c, q);
    if (fr != MHD_YES || q->responded)
      return fr;
  }
  if (q->route == R_NONE)
    return respond_msg(s, c, q, 404, OUT_NOT_FOUND,
                       "no such path (POST /v1/schedule, GET /v1/health, GET /metrics)");
  if (atomic_load(&s->stopping))
    return respond_msg(s, c, q, 503, OUT_REJECTED, "the service is stopping");
  if (q->route != R_SCHEDULE)
    return get ? MHD_YES
               : respond_msg(s, c, q, 405, OUT_METHOD, "%.15s: this path takes GET", method);
  if (strcmp(method, "POST") != 0)
    return respond_msg(s, c, q, 405, OUT_METHOD, "%.15s: /v1/schedule takes POST", method);
  ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
  if (ct && strncasecmp(ct, "text/csv", 8) == 0)
    q->is_csv = 1;
  else if (ct && strncasecmp(ct, "application/json", 16) != 0)
    return respond_msg(s, c, q, 415, OUT_MEDIA,
                       "Content-Type %.64s: application/json or text/csv is needed", ct);
  return MHD_YES;
}

/* Appends a piece of the body. libmicrohttpd (0.9.75) takes an answer only before the body or
 * after all of it: a body that grows past what --max-memory has left is read to its end and
 * dropped, then answered 503 (a chunked body, which could grow past --max-body, is refused
 * before it comes: check_framing); one still arriving after
 * --read-timeout has its connection closed by the guard (serve_conn.c), since no answer can be
 * sent then (logged as 408). */
static enum MHD_Result body_piece(server *s, req *q, const char *data, size_t size)
{
  if (!q->too_large && q->len + size <= s->o.max_body &&
      q->reserved < MEMORY_PER_BODY_BYTE * (q->len + size) &&
      reserve(s, q, MEMORY_PER_BODY_BYTE * (q->len + size) - q->reserved) != 0) {
    q->no_memory = 1; /* answered 503 when the body ends */
    q->too_large = 1;
  }
  if (q->too_large || q->len + size > s->o.max_body) {
    body_free(q);
    q->too_large = 1;
    q->len += size; /* counted for the log, not kept */
    return MHD_YES;
  }
  if (q->len + size + 1 > q->cap && q->mapped) { /* more than its Content-Length: not reached */
    q->too_large = 1;
    return MHD_YES;
  }
  if (q->len + size + 1 > q->cap) {
    size_t cap = q->cap ? q->cap : 65536;
    char *nb;
    while (cap < q->len + size + 1)
      cap *= 2;
    nb = (char *)realloc(q->body, cap);
    if (!nb) { /* answered 503 when the body ends */
      q->no_memory = 1;
      q->too_large = 1;
      return MHD_YES;
    }
    q->body = nb;
    q->cap = cap;
  }
  memcpy(q->body + q->len, data, size);
  q->len += size;
  q->body[q->len] = 0;
  return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
  server *s = (server *)cls;
  req *q = (req *)*con_cls;
  (void)version;
  if (!q) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    q = (req *)calloc(1, sizeof *q);
    if (!q)
      return MHD_NO;
    *con_cls = q;
    q->conn = ci ? (serve_conn *)ci->socket_context : NULL;
    serve_guard_phase(s->guard, q->conn, SG_BODY);
    q->t_first = now_s();
    q->admission = "-";
    q->stop = "-";
    copy_printable(q->method, sizeof q->method, method);
    copy_printable(q->path, sizeof q->path, url);
    pthread_mutex_lock(&s->mu);
    s->active++;
    pthread_mutex_unlock(&s->mu);
    return first_call(s, c, q, url, method);
  }
  if (q->responded) { /* an early answer (413, 408, ...): the rest of the body is dropped */
    *size = 0;
    return MHD_YES;
  }
  if (*size) {
    enum MHD_Result r = body_piece(s, q, data, *size);
    *size = 0;
    return r;
  }
  q->t_complete = now_s();
  serve_guard_phase(s->guard, q->conn, SG_BUSY);
  if (q->no_memory)
    return respond_msg(s, c, q, 503, OUT_REJECTED,
                       "no memory left for a body of %zu bytes (--max-memory %zu bytes): try "
                       "again",
                       q->len, s->o.max_memory);
  if (q->too_large)
    return respond_msg(s, c, q, 413, OUT_TOO_LARGE,
                       "body of %zu bytes: more than --max-body (%zu bytes)", q->len,
                       s->o.max_body);
  if (q->route == R_HEALTH)
    return health(s, c, q);
  if (q->route == R_METRICS)
    return metrics(s, c, q);
  return schedule(s, c, q);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  server *s = (server *)cls;
  req *q = (req *)*con_cls;
  double lat;
  (void)c;
  if (!q)
    return;
  if (!q->responded) { /* closed: by the client, by the guard (too slow, or to make room), by
                          libmicrohttpd's idle timeout, or for an error */
    const int why = serve_guard_cut(s->guard, q->conn);
    q->t_answer = now_s();
    if (why == SG_TIMEOUT || toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED) {
      q->http = 408;
      q->cut = 1;
    }
    q->outcome = q->cut ? OUT_TIMEOUT : why == SG_EVICTED ? OUT_EVICTED : OUT_ABORTED;
  }
  serve_guard_phase(s->guard, q->conn, SG_WAIT); /* the next request's clock starts */
  lat = q->t_answer - (q->t_complete > 0.0 ? q->t_complete : q->t_first);
  fprintf(stderr, "devo serve: %s %s %zu B %d %.1f ms %s admission %s stop %s\n", q->method,
          q->path, q->len, q->responded || q->cut ? q->http : 0, 1e3 * lat,
          outcome_names[q->outcome], q->admission, q->stop);
  pthread_mutex_lock(&s->mu);
  if (!q->responded)
    s->outcomes[q->outcome]++;
  s->memory_used -= q->reserved;
  s->active--;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  body_free(q);
  free(q->spare);
  devo_etc_destroy(q->matrix);
  free(q);
  *con_cls = NULL;
}

/* libmicrohttpd's diagnostics, as log lines. The error answers it still makes itself (on the
 * later requests of a kept-alive connection, whose heads it reads before the service sees them:
 * a malformed request line or header, headers over its memory limit, an unknown HTTP version;
 * 0.9.75 writes them as HTML, with no way to change them) are counted as outcome http_error from
 * its line about them. The first head of a connection is checked before (check_first_head). */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
  server *s = (server *)cls;
  char line[512];
  const char *code;
  size_t n;
  vsnprintf(line, sizeof line, fmt, ap);
  n = strlen(line);
  while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    line[--n] = 0;
  fprintf(stderr, "devo serve: libmicrohttpd: %s\n", line);
  if ((code = strstr(line, "HTTP response code is ")) != NULL && atoi(code + 22) >= 400) {
    pthread_mutex_lock(&s->mu);
    s->outcomes[OUT_HTTP_ERROR]++;
    pthread_mutex_unlock(&s->mu);
  }
}

/* A connection opened or closed: its entry in the guard (serve_conn.h), kept as libmicrohttpd's
 * socket context. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
  server *s = (server *)cls;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *peer =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    serve_conn *g = fd ? serve_guard_adopt(s->guard, fd->connect_fd) : NULL;
    *socket_context =
        g || !fd ? g : serve_guard_open(s->guard, fd->connect_fd, peer ? peer->client_addr : NULL);
  } else {
    serve_guard_close(s->guard, (serve_conn *)*socket_context);
    *socket_context = NULL;
  }
}

/* A connection the guard closed before any request came on it: counted and logged. */
static void on_guard_cut(void *ud, int why, const char *addr)
{
  server *s = (server *)ud;
  const int out = why == SG_TIMEOUT ? OUT_TIMEOUT : OUT_EVICTED;
  fprintf(stderr, "devo serve: connection from %s closed: %s\n", addr[0] ? addr : "a UNIX socket",
          why == SG_TIMEOUT ? "no whole request within --read-timeout (408)"
          : why == SG_REFUSED
              ? "no room (--max-connections or --max-per-address)"
              : "to make room for a new one (--max-connections or --max-per-address)");
  pthread_mutex_lock(&s->mu);
  s->outcomes[out]++;
  pthread_mutex_unlock(&s->mu);
}

/* ---- the first head of a connection ------------------------------------------------------ */

/* A connection accepted, its first head to be checked. */
typedef struct incoming {
  server *s;
  int fd;
  socklen_t len;
  struct sockaddr_storage peer;
} incoming;

/* A head refused before libmicrohttpd read it: counted (http_error), logged, answered with the
 * JSON error, the connection ended. */
static void refuse_head(server *s, const incoming *in, const serve_head *h)
{
  serve_err e;
  size_t blen = 0;
  char *body, *ans, addr[64] = "a UNIX socket";
  int n;
  if (in->peer.ss_family != AF_UNIX)
    getnameinfo((const struct sockaddr *)&in->peer, in->len, addr, sizeof addr, NULL, 0,
                NI_NUMERICHOST);
  memset(&e, 0, sizeof e);
  snprintf(e.msg, sizeof e.msg, "%s", h->msg);
  pthread_mutex_lock(&s->mu);
  s->outcomes[OUT_HTTP_ERROR]++;
  pthread_mutex_unlock(&s->mu);
  fprintf(stderr, "devo serve: head from %s refused: %d http_error: %s\n", addr, h->status, h->msg);
  if (!(body = error_json(h->status, &e, &blen)) || !(ans = (char *)malloc(blen + 256))) {
    free(body);
    return;
  }
  n = snprintf(ans, 256,
               "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: "
               "%zu\r\nConnection: close\r\n\r\n",
               h->status, MHD_get_reason_phrase_for((unsigned int)h->status), blen);
  memcpy(ans + n, body, blen);
  serve_head_refuse(in->fd, ans, (size_t)n + blen);
  free(body);
  free(ans);
}

/* A connection's thread until its first head is whole: checked, then handed to libmicrohttpd
 * (whose thread for it reads it), or refused as JSON here. libmicrohttpd 0.9.75 has no hook for
 * the error answers it makes itself (HTML), so a head it would refuse never reaches it. */
static void *check_first_head(void *arg)
{
  incoming *in = (incoming *)arg;
  server *s = in->s;
  serve_conn *conn = serve_guard_open(s->guard, in->fd, (struct sockaddr *)&in->peer);
  serve_head h;
  int rc = 0;
  if (conn && serve_guard_cut(s->guard, conn) == SG_OPEN)
    rc = serve_head_wait(in->fd, &s->stopping, &h);
  if (rc > 0 && atomic_load(&s->stopping)) {
    h.status = 503;
    snprintf(h.msg, sizeof h.msg, "the service is stopping");
    rc = -1;
  }
  if (rc > 0) {
    serve_guard_hand(s->guard, conn);
    if (MHD_add_connection(s->daemon, in->fd, (struct sockaddr *)&in->peer, in->len) != MHD_YES)
      serve_guard_close(s->guard, conn); /* its socket closed by libmicrohttpd */
  } else {
    if (rc < 0)
      refuse_head(s, in, &h);
    serve_guard_close(s->guard, conn);
    close(in->fd);
  }
  pthread_mutex_lock(&s->mu);
  s->checking--;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  free(in);
  return NULL;
}

/* Accepts connections until the service stops, each to a thread of check_first_head. */
static void *accept_loop(void *arg)
{
  server *s = (server *)arg;
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&at, 256 << 10); /* the head's 16 KiB and little else */
  while (!atomic_load(&s->stopping)) {
    incoming *in = (incoming *)calloc(1, sizeof *in);
    pthread_t th;
    if (!in)
      break;
    in->s = s;
    in->len = sizeof in->peer;
    in->fd = accept(s->listen_fd, (struct sockaddr *)&in->peer, &in->len);
    if (in->fd < 0) {
      const int e = errno;
      free(in);
      if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM)
        nanosleep(&(struct timespec){0, 10000000L}, NULL); /* until descriptors are freed */
      continue;
    }
    fcntl(in->fd, F_SETFD, FD_CLOEXEC);
    pthread_mutex_lock(&s->mu);
    s->checking++;
    pthread_mutex_unlock(&s->mu);
    if (pthread_create(&th, &at, check_first_head, in) != 0) {
      close(in->fd);
      free(in);
      pthread_mutex_lock(&s->mu);
      s->checking--;
      pthread_mutex_unlock(&s->mu);
    }
  }
  pthread_attr_destroy(&at);
  return NULL;
}

/* ---- the listening socket ----------------------------------------------------------------- */

/* The error code of cli_usage_error or cli_runtime_error as a failed listen_*: -2 for a bad
 * --listen, -1 for one that could not be bound. */
static int listen_fail(int code)
{
  return code == CLI_USAGE ? -2 : -1;
}

static int listen_unix(const char *path)
{
  struct sockaddr_un a;
  struct stat st;
  int fd;
  if (strlen(path) >= sizeof a.sun_path)
    return listen_fail(cli_usage_error("serve",
                                       "--listen %s: a UNIX socket path of at most %zu bytes", path,
                                       sizeof a.sun_path - 1));
  if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
    unlink(path); /* a socket left by an earlier run */
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  memcpy(a.sun_path, path, strlen(path) + 1);
  fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) {
    cli_runtime_error("serve", "--listen %s: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  fprintf(stderr, "devo serve: listening on %s\n", path);
  return fd;
}

/* HOST:PORT or [HOST]:PORT; the port actually bound is said on stderr (port 0 picks one). */
static int listen_tcp(const char *spec)
{
  char host[256], port[32], shown[64];
  const char *colon = strrchr(spec, ':');
  struct addrinfo hints, *res = NULL, *ai;
  struct sockaddr_storage sa;
  socklen_t sl = sizeof sa;
  int fd = -1, one = 1, e;
  size_t hl;
  if (!colon || colon == spec || strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof port)
    return listen_fail(
        cli_usage_error("serve", "--listen %s: HOST:PORT or a UNIX socket path is needed", spec));
  hl = (size_t)(colon - spec);
  if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') {
    spec++;
    hl -= 2;
  }
  if (hl >= sizeof host)
    return listen_fail(cli_usage_error("serve", "--listen: host name too long"));
  memcpy(host, spec, hl);
  host[hl] = 0;
  snprintf(port, sizeof port, "%s", colon + 1);
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  if ((e = getaddrinfo(host, port, &hints, &res)) != 0)
    return listen_fail(cli_usage_error("serve", "--listen %s: %s", host, gai_strerror(e)));
  for (ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0)
      continue;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
      break;
    e = errno;
    close(fd);
    fd = -1;
    errno = e;
  }
  freeaddrinfo(res);
  if (fd < 0)
    return listen_fail(
        cli_runtime_error("serve", "--listen %s:%s: %s", host, port, strerror(errno)));
  if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 &&
      getnameinfo((struct sockaddr *)&sa, sl, shown, sizeof shown, port, sizeof port,
                  NI_NUMERICHOST | NI_NUMERICSERV) == 0)
    fprintf(stderr, "devo serve: listening on %s%s%s:%s\n", sa.ss_family == AF_INET6 ? "[" : "",
            shown, sa.ss_family == AF_INET6 ? "]" : "", port);
  return fd;
}

/* ---- the service ---------------------------------------------------------------------------- */

static int server_init(server *s, const serve_opts *o)
{
  pthread_condattr_t ca;
  memset(s, 0, sizeof *s);
  s->o = *o;
  s->lim.max_time_limit = o->max_time_limit;
  s->lim.default_time_limit = o->time_limit;
  s->lim.default_backend = o->backend;
  s->slot_deadline = (double *)calloc((size_t)o->workers, sizeof(double));
  s->free_at = (double *)calloc((size_t)o->workers, sizeof(double));
  if (!s->slot_deadline || !s->free_at)
    return -1;
  pthread_mutex_init(&s->mu, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the clock of the deadlines */
  pthread_cond_init(&s->cv, &ca);
  pthread_condattr_destroy(&ca);
  return 0;
}

/* After SIGTERM or SIGINT: no new connections, then the requests in flight end (each by its
 * deadline, or by --read-timeout while its body arrives). */
static void drain(server *s, struct MHD_Daemon *d, const char *unix_path)
{
  const double until = now_s() + s->o.max_time_limit + s->o.read_timeout + 1.0;
  atomic_store(&s->stopping, 1);
  shutdown(s->listen_fd, SHUT_RDWR); /* accept4 returns: the acceptor sees stopping */
  pthread_join(s->acceptor, NULL);
  close(s->listen_fd);
  if (unix_path)
    unlink(unix_path);
  pthread_mutex_lock(&s->mu);
  /* the heads being looked at end within 0.2 s (serve_head_wait looks at stopping) */
  while ((s->active > 0 || s->checking > 0) && now_s() < until) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += 50000000L;
    if (t.tv_nsec >= 1000000000L) {
      t.tv_sec++;
      t.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->cv, &s->mu, &t);
  }
  pthread_mutex_unlock(&s->mu);
  MHD_stop_daemon(d);
}

int cmd_serve(int argc, char **argv)
{
  serve_opts o;
  server s;
  struct MHD_Daemon *d;
  sigset_t set;
  const char *unix_path = NULL;
  unsigned int tmo;
  int rc, fd, sig = 0;
  if ((rc = parse(argc, argv, &o)) != 0)
    return rc;
#if defined(__GLIBC__)
  /* A request's matrix, body and answer are blocks of 100 KB and more, which glibc maps and
   * unmaps per allocation by default; every unmap of a multi-threaded process interrupts the
   * cores running its other threads (TLB shootdown), searches near their deadline included.
   * Served from the heap and kept there, they cost no system call after the first requests. */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  if (server_init(&s, &o) != 0)
    return cli_runtime_error("serve", "out of memory");
  if (strchr(o.listen, '/'))
    unix_path = o.listen;
  fd = unix_path ? listen_unix(o.listen) : listen_tcp(o.listen);
  if (fd < 0) /* -2: a bad --listen, -1: it could not be bound */
    return fd == -2 ? CLI_USAGE : CLI_RUNTIME;
  /* the GPUs of --gpus made ready before any request (with --backend cpu: none) */
  s.gpus = serve_gpus_start(&o.gpus, o.backend != DEVO_BACKEND_CPU);
  if (!s.gpus) {
    close(fd);
    return cli_runtime_error("serve", "out of memory");
  }
  /* every thread (libmicrohttpd's too) inherits the mask: the signals come to sigwait below */
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);
  tmo = (unsigned int)ceil(o.read_timeout);
  s.guard = serve_guard_start(o.max_conn, o.max_per_addr, o.read_timeout, on_guard_cut, &s);
  if (!s.guard) {
    close(fd);
    return cli_runtime_error("serve", "out of memory");
  }
  /* libmicrohttpd's own limit is above the guard's, so that a new connection is seen by the
   * guard, which may close an older one to make room for it */
  d = MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
          MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET,
      0, NULL, NULL, on_request, &s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, &s,
      MHD_OPTION_CONNECTION_TIMEOUT, tmo, MHD_OPTION_CONNECTION_LIMIT,
      (unsigned int)o.max_conn + CONN_HEADROOM, MHD_OPTION_NOTIFY_COMPLETED, on_completed, &s,
      MHD_OPTION_NOTIFY_CONNECTION, on_connection, &s, MHD_OPTION_END);
  if (!d) {
    close(fd);
    serve_guard_stop(s.guard);
    return cli_runtime_error("serve", "cannot start the HTTP server (libmicrohttpd)");
  }
  s.daemon = d;
  s.listen_fd = fd;
  if (pthread_create(&s.acceptor, NULL, accept_loop, &s) != 0) {
    MHD_stop_daemon(d);
    close(fd);
    serve_guard_stop(s.guard);
    return cli_runtime_error("serve", "cannot start the thread that accepts connections");
  }
  fprintf(stderr, "devo serve: ready (workers %d, queue %d, backend %s, GPUs %d)\n", o.workers,
          o.queue,
          o.backend == DEVO_BACKEND_CPU   ? "cpu"
          : serve_gpus_usable(s.gpus) > 0 ? "gpu when free"
                                          : "cpu",
          serve_gpus_usable(s.gpus));
  while (sig != SIGINT && sig != SIGTERM)
    if (sigwait(&set, &sig) != 0)
      sig = 0;
  fprintf(stderr,
          "devo serve: %s: stopping (no new connections; requests in flight end at "
          "their deadlines)\n",
          sig == SIGINT ? "SIGINT" : "SIGTERM");
  drain(&s, d, unix_path);
  serve_guard_stop(s.guard);
  fprintf(stderr, "devo serve: stopped\n");
  free(s.slot_deadline);
  free(s.free_at);
  serve_gpus_free(s.gpus);
  return CLI_OK;
}
