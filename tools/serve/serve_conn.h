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

#endif /* DEVO_SERVE_CONN_H */
