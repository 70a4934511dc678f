/* SPDX-License-Identifier: MIT */
/* serve_conn.h: the connection guard of `devo serve`: every open connection with the phase of
 * its request, so that slow clients cannot hold the service. A request must arrive whole (head
 * and body) within --read-timeout of the moment its connection started waiting for it, however
 * its bytes trickle in; at most --max-per-address connections come from one address; and when
 * the connections reach their limit the one waiting longest for a request (then the one whose
 * body came slowest) is closed to make room, never one whose request is being answered. A
 * connection is closed by shutdown() of its socket, which its own thread (libmicrohttpd's)
 * sees as the client leaving. */
#ifndef DEVO_SERVE_CONN_H
#define DEVO_SERVE_CONN_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>

typedef struct serve_guard serve_guard;
typedef struct serve_conn serve_conn;

/* The phases of a connection. */
enum {
  SG_WAIT = 0, /* no request, or its head arriving: the clock of --read-timeout runs */
  SG_BODY = 1, /* its head is in, its body arriving: the same clock runs on */
  SG_BUSY = 2  /* the request is whole: being answered, not timed or closed here */
};

/* Why the guard closed a connection (serve_guard_cut). */
enum { SG_OPEN = 0, SG_TIMEOUT = 1, SG_EVICTED = 2, SG_REFUSED = 3 };

/* Told when the guard closes a connection that has no request yet (the caller counts and logs
 * it; one with a request is told through that request's end): why, and the address. */
typedef void (*serve_guard_cb)(void *ud, int why, const char *addr);

/* A guard for at most max_conn connections, max_per_addr from one address (UNIX sockets: no
 * per-address limit), each request whole within read_timeout seconds; its thread looks at the
 * clocks every 50 ms. NULL when out of memory or the thread could not start. */
serve_guard *serve_guard_start(int max_conn, int max_per_addr, double read_timeout,
                               serve_guard_cb cb, void *ud);
void serve_guard_stop(serve_guard *g);

/* A new connection (its socket and its peer's address): its entry, in phase SG_WAIT. To keep
 * the limits it may close an older connection, or this one (serve_guard_cut says so). NULL when
 * out of memory. */
serve_conn *serve_guard_open(serve_guard *g, int fd, const struct sockaddr *peer);
/* The connection's request moves to phase (SG_WAIT restarts its clock). */
void serve_guard_phase(serve_guard *g, serve_conn *c, int phase);
/* SG_OPEN, or why the guard closed it. */
int serve_guard_cut(serve_guard *g, const serve_conn *c);
/* The connection is gone (before its socket is closed): the entry is freed. */
void serve_guard_close(serve_guard *g, serve_conn *c);
/* The connection is being handed to libmicrohttpd (its head checked): not timed or closed by
 * the guard until serve_guard_adopt finds it by its socket, which it returns to phase SG_WAIT
 * with its clock running on. NULL when no entry is being handed with that socket. */
void serve_guard_hand(serve_guard *g, serve_conn *c);
serve_conn *serve_guard_adopt(serve_guard *g, int fd);

/* ---- the head of a request, checked before libmicrohttpd reads it -------------------------- */

/* The largest head (request line and header fields) and the most header fields taken: well
 * inside what libmicrohttpd's default 32 KiB of memory per connection holds, so that it never
 * refuses a head itself (its refusals are HTML). */
#define SERVE_HEAD_MAX    (16u << 10)
#define SERVE_HEAD_FIELDS 100

/* A refused head: the HTTP status and the message of its JSON error. */
typedef struct serve_head {
  int status;
  char msg[200];
} serve_head;

/* The first n bytes that came on a connection, as far as they go: 1 when they hold a whole head
 * that libmicrohttpd can take (request line METHOD SP TARGET SP HTTP/1.x, header fields NAME:
 * VALUE, Host with HTTP/1.1, at most one Content-Length, of digits, no Transfer-Encoding: a body
 * needs its Content-Length), -1 when they show it is not one (*h says why, at once: a garbage
 * request line is refused by its first bad byte), 0 when more bytes are needed. */
int serve_head_check(const char *p, size_t n, serve_head *h);

/* The framing of a body (request smuggling: a proxy in front and this service must not read
 * different bodies): cl Content-Length headers (bad_cl: one is not a number), te
 * Transfer-Encoding headers. 0 when the body is framed by at most one Content-Length, else -1
 * with *h: 400 when ambiguous, 411 for Transfer-Encoding (chunked bodies are not taken, so that
 * libmicrohttpd never reads a chunk: its chunk errors are HTML). */
int serve_head_framing(int cl, int bad_cl, int te, serve_head *h);

/* Waits for the head of the first request of the connection fd, looking at its bytes without
 * taking them (MSG_PEEK: libmicrohttpd reads them then). 1 when it is whole and good, -1 when it
 * is refused (*h), 0 when the connection ended first (the client left, or the guard closed it:
 * its --read-timeout) or *stop became set. */
int serve_head_wait(int fd, const atomic_int *stop, serve_head *h);

/* Sends a refusal (len bytes: status line, headers and body) on fd and ends the connection
 * cleanly: the client's bytes that follow are read and dropped for a while (at most 1 MiB, 1 s)
 * so that closing the socket does not reset the connection before the answer is read. */
void serve_head_refuse(int fd, const char *answer, size_t len);

#endif /* DEVO_SERVE_CONN_H */
