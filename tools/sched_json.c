/* SPDX-License-Identifier: MIT */
/* sched_json.c: the JSON answer of a schedule (sched_json.h), shared by `devo schedule` and
 * `devo serve`. */
#include "sched_json.h"

#include <math.h>
#include <stdlib.h>

#include "cli.h"

/* Per machine: tasks, load (their times summed in task index order) and completion (the same
 * sum from the ready time: problems/etc.h's completion(j), whose largest is the makespan). */
static void machine_stats(const devo_etc *e, const int *assign, int *count, double *load,
                          double *done)
{
  const int n = devo_etc_ntasks(e), m = devo_etc_nmach(e);
  const double *v = devo_etc_values(e);
  int t, j;
  for (j = 0; j < m; ++j) {
    count[j] = 0;
    load[j] = 0.0;
    done[j] = devo_etc_ready(e)[j];
  }
  for (t = 0; t < n; ++t) {
    j = assign[t];
    count[j]++;
    load[j] += v[(size_t)t * m + j];
    done[j] += v[(size_t)t * m + j];
  }
}

static void json_summary(json_out *j, const devo_etc *e, const sched_answer *ans)
{
  const devo_schedule_result *r = ans->res;
  json_kv_str(j, "version", devo_version());
  json_kv_int(j, "tasks", devo_etc_ntasks(e));
  json_kv_int(j, "machines", devo_etc_nmach(e));
  json_kv_num(j, "makespan", r->makespan);
  json_kv_num(j, "flowtime", r->flowtime);
  json_kv_num(j, "objective", r->objective);
  json_kv_num(j, "lower_bound", r->lower_bound);
  json_kv_num(j, "gap", r->gap);
  json_kv_num(j, "lambda", ans->lambda);
  json_kv_str(j, "order", ans->order ? "spt" : "fcfs");
  json_kv_num(j, "time_limit", ans->time_limit);
  json_kv_uint(j, "seed", ans->seed);
  json_kv_int(j, "evaluations", r->evaluations);
  json_kv_int(j, "generations", r->generations);
  json_kv_int(j, "ls_moves", r->ls_moves);
  json_kv_int(j, "ils_rounds", r->ils_rounds);
  json_kv_str(j, "stop", devo_status_name(r->status));
  json_kv_str(j, "stop_message", devo_status_message(r->status));
  json_kv_str(j, "best_from", devo_schedule_source_name(r->source));
  json_kv_str(j, "heuristic", r->heuristic >= 0 ? devo_heuristic_name(r->heuristic) : NULL);
  json_kv_str(j, "search", devo_schedule_search_name(r->search));
  json_kv_str(j, "backend", r->backend == DEVO_BACKEND_GPU ? "gpu" : "cpu");
  json_kv_num(j, "elapsed", ans->elapsed);
  json_kv_bool(j, "deadline_met", ans->deadline_met);
  if (ans->var) {
    cli_variant_json(j, ans->var, r->jde_mean_f, r->jde_mean_cr);
  } else {
    cli_variant dflt;
    cli_variant_init(&dflt);
    cli_variant_json(j, &dflt, NAN, NAN);
  }
}

static void json_schedule(json_out *j, const devo_etc *e, const sched_answer *ans)
{
  const int n = devo_etc_ntasks(e);
  int t;
  json_key(j, "schedule");
  json_arr(j);
  for (t = 0; t < n; ++t) {
    json_obj(j);
    json_kv_int(j, "task", t);
    json_kv_str(j, "name", devo_etc_task_name(e, t));
    json_kv_int(j, "machine", ans->assign[t]);
    json_kv_str(j, "machine_name", devo_etc_machine_name(e, ans->assign[t]));
    json_kv_num(j, "start", ans->start[t]);
    json_kv_num(j, "finish", ans->finish[t]);
    json_end_obj(j);
  }
  json_end_arr(j);
  json_key(j, "assignment");
  json_arr(j);
  for (t = 0; t < n; ++t)
    json_int(j, ans->assign[t]);
  json_end_arr(j);
}

int sched_json_write(FILE *f, const devo_etc *e, const sched_answer *ans, int with_schedule)
{
  const int m = devo_etc_nmach(e);
  int *count = (int *)malloc((size_t)m * sizeof(int)), k;
  double *load = (double *)malloc((size_t)m * sizeof(double));
  double *done = (double *)malloc((size_t)m * sizeof(double));
  json_out j;
  if (!count || !load || !done || json_init(&j, f) != 0) {
    free(count);
    free(load);
    free(done);
    return -1;
  }
  machine_stats(e, ans->assign, count, load, done);
  json_obj(&j);
  json_summary(&j, e, ans);
  if (ans->extra)
    ans->extra(&j, ans->extra_ud);
  json_key(&j, "per_machine");
  json_arr(&j);
  for (k = 0; k < m; ++k) {
    json_obj(&j);
    json_kv_int(&j, "machine", k);
    json_kv_str(&j, "name", devo_etc_machine_name(e, k));
    json_kv_int(&j, "tasks", count[k]);
    json_kv_num(&j, "load", load[k]);
    json_kv_num(&j, "completion", done[k]);
    json_end_obj(&j);
  }
  json_end_arr(&j);
  if (with_schedule)
    json_schedule(&j, e, ans);
  json_end_obj(&j);
  free(count);
  free(load);
  free(done);
  return json_done(&j) != 0 ? -1 : 0;
}
