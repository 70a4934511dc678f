/* SPDX-License-Identifier: MIT */
/* mpi_experiment.c: the MPI protocol of devo experiment (mpi_experiment.h). A dynamic work queue
 * by point-to-point messages: a worker sends each trial's rows as the trial ends ("more": no
 * answer), then, its unit done, what is left (its failure, if any), and rank 0 answers that with
 * the next unit's trial numbers or with "stop". Only rank 0 writes the files, a whole row at a
 * time, so a killed job leaves whole rows and a rerun resumes as after a single process. One
 * thread of a rank calls MPI at a time (MPI_THREAD_SERIALIZED): a trial's rows leave from the
 * batch's done callback (never two at once), while the main thread waits in the batch. */
#define _POSIX_C_SOURCE 200809L
#include "mpi_experiment.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpi_env.h"

#define CMD "experiment"

enum { TAG_DONE = 1, TAG_WORK = 2, TAG_STOP = 3 };

/* A worker's message: this header, then the texts trace, row, err and line (NUL added by rank 0).
 * idx: the unit's first trial, -1: none (the first message, or a failure before any); more: 1
 * for a finished trial's rows within a unit (rank 0 writes them and does not answer). */
enum { H_IDX, H_RC, H_MORE, H_TRACE, H_ROW, H_ERR, H_LINE, H_COUNT };

/* A worker's collected one-line errors (cli_report_to), sent with its next message. */
static FILE *errs;
static char *errs_buf;
static size_t errs_len;

static int collect_errors(void)
{
  errs = open_memstream(&errs_buf, &errs_len);
  cli_report_to(errs);
  return errs ? 0 : cli_runtime_error(CMD, "out of memory");
}

static void drop_errors(void)
{
  cli_report_to(NULL);
  if (errs)
    fclose(errs);
  free(errs_buf);
  errs = NULL;
  errs_buf = NULL;
  errs_len = 0;
}

int exp_mpi_begin(int *rank, int *size, int *local_rank)
{
  const int rc = cli_mpi_begin(CMD, rank, size, local_rank);
  return rc ? rc : *rank > 0 ? collect_errors() : 0;
}

void exp_mpi_end(void)
{
  drop_errors();
  cli_mpi_end();
}

/* A memory stream's text, and how much of it went to rank 0 already; NULL ones (out of memory)
 * are empty. */
typedef struct text {
  FILE *f;
  char *buf;
  size_t len, sent;
} text;

/* The running unit's streams (trace, row, line) and first trial, for exp_mpi_trial_done; NULL
 * between units. */
static text *unit_text;
static int64_t unit_first;

/* Sends rank 0 what the three streams t (trace, row, line) got since the last message, with idx,
 * rc, more and (more = 0) the errors collected since the last such message, which then start
 * again. The streams stay open. */
static void send_part(int64_t idx, int rc, int more, text *t)
{
  int64_t h[H_COUNT];
  const char *part[4] = {NULL, NULL, NULL, NULL};
  size_t len[4] = {0, 0, 0, 0}, total = sizeof h, at;
  char *msg;
  int k;
  if (!more && errs) {
    fflush(errs);
    part[2] = errs_buf, len[2] = errs_len;
  }
  for (k = 0; k < 3; ++k)
    if (t[k].f && fflush(t[k].f) == 0 && t[k].buf) {
      const int at_k = k == 2 ? 3 : k; /* the line goes after the errors */
      part[at_k] = t[k].buf + t[k].sent;
      len[at_k] = t[k].len - t[k].sent;
      t[k].sent = t[k].len;
    }
  for (k = 0; k < 4; ++k)
    total += part[k] ? len[k] : 0;
  if (total > INT32_MAX || !(msg = malloc(total))) {
    cli_report_to(NULL); /* a message no longer fits: this rank says it and ends the job */
    cli_runtime_error(CMD, "out of memory for a trial's rows");
    cli_mpi_abort(1);
    return;
  }
  h[H_IDX] = idx;
  h[H_RC] = rc;
  h[H_MORE] = more;
  for (k = 0, at = sizeof h; k < 4; ++k) {
    h[H_TRACE + k] = part[k] ? (int64_t)len[k] : 0;
    if (h[H_TRACE + k])
      memcpy(msg + at, part[k], len[k]);
    at += (size_t)h[H_TRACE + k];
  }
  memcpy(msg, h, sizeof h);
  MPI_Send(msg, (int)total, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
  free(msg);
  if (!more) {
    drop_errors();
    collect_errors();
  }
}

void exp_mpi_trial_done(void)
{
  if (unit_text)
    send_part(unit_first, 0, 1, unit_text);
}

/* The unit's streams closed and freed. */
static void texts_drop(text *t)
{
  int k;
  for (k = 0; k < 3; ++k) {
    if (t[k].f)
      fclose(t[k].f);
    free(t[k].buf);
    memset(&t[k], 0, sizeof t[k]);
  }
}

int exp_mpi_work(int rc, const exp_mpi_hooks *h)
{
  text t[3];
  int64_t *idx = NULL;
  int n = 0;
  memset(t, 0, sizeof t);
  for (;;) {
    MPI_Status st;
    int k;
    send_part(n > 0 ? idx[0] : -1, rc, 0, t);
    texts_drop(t);
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG != TAG_WORK) {
      MPI_Recv(NULL, 0, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      free(idx);
      return 0;
    }
    MPI_Get_count(&st, MPI_INT64_T, &n);
    free(idx);
    if (n < 1 || !(idx = malloc(sizeof *idx * (size_t)n))) {
      cli_report_to(NULL); /* cannot take the unit: this rank says it and ends the job */
      cli_runtime_error(CMD, "out of memory for a unit of %d trials", n);
      cli_mpi_abort(1);
      return CLI_RUNTIME;
    }
    MPI_Recv(idx, n, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (k = 0; k < 3; ++k)
      t[k].f = open_memstream(&t[k].buf, &t[k].len);
    unit_text = t;
    unit_first = idx[0];
    rc = !t[0].f || !t[1].f || !t[2].f ? cli_runtime_error(CMD, "out of memory")
                                       : h->run(h->ud, idx, n, t[0].f, t[1].f, t[2].f);
    unit_text = NULL;
  }
}

/* One worker's message into *msg (freed by the caller) and its header into hd; the sender's rank,
 * or -1 after the message (out of memory, a malformed message). */
static int receive(char **msg, int64_t *hd)
{
  MPI_Status st;
  int len = 0, k;
  int64_t sum = 0;
  MPI_Probe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_BYTE, &len);
  if (!(*msg = malloc((size_t)len + 1)))
    return cli_runtime_error(CMD, "out of memory for rank %d's rows", st.MPI_SOURCE), -1;
  MPI_Recv(*msg, len, MPI_BYTE, st.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  (*msg)[len] = 0;
  if ((size_t)len >= H_COUNT * sizeof *hd)
    memcpy(hd, *msg, H_COUNT * sizeof *hd);
  for (k = H_TRACE; (size_t)len >= H_COUNT * sizeof *hd && k < H_COUNT; ++k)
    sum += hd[k] >= 0 ? hd[k] : INT32_MAX;
  if ((size_t)len < H_COUNT * sizeof *hd || sum != len - (int64_t)(H_COUNT * sizeof *hd))
    return cli_runtime_error(CMD, "rank %d: a malformed message", st.MPI_SOURCE), -1;
  return st.MPI_SOURCE;
}

int exp_mpi_lead(int size, const int64_t *todo, const int64_t *unit, int64_t nunits, int rc,
                 const exp_mpi_hooks *h)
{
  int64_t next = 0;
  int live = size - 1, write_failed = 0;
  while (live > 0) {
    int64_t hd[H_COUNT];
    char *msg = NULL;
    const int from = receive(&msg, hd);
    if (from < 0) { /* nothing to answer: the job cannot go on */
      free(msg);
      cli_mpi_abort(1);
      return CLI_RUNTIME;
    }
    const char *trace = msg + H_COUNT * sizeof *hd, *row = trace + hd[H_TRACE],
               *err = row + hd[H_ROW], *line = err + hd[H_ERR];
    if (hd[H_RC] && !rc) { /* the job's one line: the first failure's */
      rc = (int)hd[H_RC];
      fwrite(err, 1, (size_t)hd[H_ERR], stderr);
    } else if (!hd[H_RC] && hd[H_IDX] >= 0 && !write_failed) {
      const int w = h->done(h->ud, trace, (size_t)hd[H_TRACE], row, (size_t)hd[H_ROW], line);
      write_failed = w != 0;
      rc = rc ? rc : w;
    }
    free(msg);
    if (hd[H_MORE])
      continue; /* a trial of a unit still running: no answer */
    if (!rc && next < nunits) {
      MPI_Send(&todo[unit[next]], (int)(unit[next + 1] - unit[next]), MPI_INT64_T, from, TAG_WORK,
               MPI_COMM_WORLD);
      ++next;
    } else {
      MPI_Send(NULL, 0, MPI_BYTE, from, TAG_STOP, MPI_COMM_WORLD);
      --live;
    }
  }
  return rc;
}
