/* SPDX-License-Identifier: MIT */
/* cli.h: shared pieces of the devo command-line program: the subcommand entry points, option
 * parsing with validation, and the exit codes of DESIGN.md (0 ok, 1 runtime failure, 2 bad usage
 * or bad input). Every error is one line on stderr: "devo <cmd>: <what>". */
#ifndef DEVO_CLI_H
#define DEVO_CLI_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/include/devo.h"

enum { CLI_OK = 0, CLI_RUNTIME = 1, CLI_USAGE = 2 };

/* "--dim not given": cli_int never returns it (-1 was taken for a missing --dim) */
#define CLI_DIM_UNSET INT_MIN

/* Subcommands: argv[0] is the command name. Return an exit code. */
int cmd_solve(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_list_problems(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_rank(int argc, char **argv);
int cmd_serve(int argc, char **argv); /* built with libmicrohttpd only */

/* Prints "devo <cmd>: <message>\n" to stderr and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* *out = the index of val in names (NULL-terminated) and 0, or the usage error
 * "<opt>: unknown value '<val>'" of cmd (CLI_USAGE). */
int cli_pick(const char *cmd, const char *opt, const char *val, const char *const *names, int *out);
/* Same with CLI_RUNTIME. */
int cli_runtime_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Where the one-line errors above go from now on: f, or stderr again with NULL. An MPI worker of
 * devo experiment collects its own for rank 0, which prints the job's one line. */
void cli_report_to(FILE *f);
/* Exit code for a library status: errors of input (invalid, parse, I/O on an input file) are 2,
 * others 1. */
int cli_exit_for_status(int status);

/* Strict number parsing of an option's value: the whole string must be a number, finite for
 * doubles. Return 0 on success, else print the error and return CLI_USAGE. */
int cli_double(const char *cmd, const char *opt, const char *val, double *out);
int cli_int64(const char *cmd, const char *opt, const char *val, int64_t *out);
int cli_int(const char *cmd, const char *opt, const char *val, int *out);
int cli_u64(const char *cmd, const char *opt, const char *val, uint64_t *out);

/* One helper per kind of option value (issue 21), so that every command words and bounds them
 * alike; each prints the usage error and returns CLI_USAGE, else 0.
 * cli_real: a finite number in [lo, hi] (an underflow to a subnormal or 0 is a number, not "not
 * finite"); cli_count: an integer in [lo, hi] (also 1e6 notation); cli_time_limit: seconds in
 * (0, CLI_TIME_LIMIT_MAX], the one range of every command's --time-limit; cli_max_bytes: the
 * --max-input-bytes value, >= 1. Seeds: cli_u64. */
#define CLI_TIME_LIMIT_MAX 1e9
int cli_real(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out);
int cli_count(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi,
              int64_t *out);
int cli_time_limit(const char *cmd, const char *val, double *out);
int cli_max_bytes(const char *cmd, const char *val, size_t *out);

/* The absolute CLOCK_MONOTONIC time (devo_read_limits.deadline) limit seconds after the process
 * started. */
double cli_deadline_from_start(double limit);
/* Opens path for reading without blocking on a FIFO that has no writer yet (the wait is then
 * the reader's poll(), under its deadline): a descriptor, or -1 with errno. */
int cli_open_input(const char *path);

/* Option iteration for "--name value", "--name=value" and flags. Returns the option's index into
 * names (a NULL-terminated list of "--name" strings; names ending in '=' take a value), -1 at the
 * end of argv, -2 for an unknown option or a missing value (after printing the error; the caller
 * returns CLI_USAGE), or -3 for a positional argument (in *val). *pos is advanced. */
int cli_next(const char *cmd, int argc, char **argv, int *pos, const char *const *names,
             const char **val);

/* After everything was printed: CLI_OK, or the runtime error "cannot write the output" of cmd
 * (a full disk or a closed pipe loses the answer, which must not end with exit 0). */
int cli_stdout_done(const char *cmd);

/* tool_util.h's functions with the runtime error of cmd printed on failure (an existing file at
 * path is then left as it was; cli_out_open returns NULL). */
FILE *cli_out_open(const char *cmd, const char *path, char *tmp, size_t tmplen);
int cli_out_close(const char *cmd, FILE *f, const char *tmp, const char *path);

/* Records the process start on the monotonic clock; main() calls it first thing, so deadlines
 * that "count from process start" include everything the program does. */
void cli_mark_start(void);
/* Monotonic seconds since the process started (for deadlines that count from process start). */
double cli_process_elapsed(void);

/* --ranges, --lower and --upper of solve and eval (each NULL when absent) on a configured problem:
 * devo_problem_set_ranges, then the given bounds (an absent side keeps the problem's). Each of
 * --lower and --upper is one number (every coordinate: devo_problem_set_box), or D numbers
 * (D = the problem's dimension) as a list "a,b,c" or as "@FILE" (cli_read_numbers' format), one
 * per coordinate (devo_problem_set_bounds). Prints a one-line refusal naming the option (and the
 * coordinate) and returns CLI_USAGE (CLI_RUNTIME when out of memory), or returns 0. */
int cli_apply_box(const char *cmd, devo_problem *p, const char *ranges, const char *lower,
                  const char *upper);

/* A list of n numbers of an option (--ready of schedule, --lower and --upper of solve). */
typedef struct cli_numbers {
  const char *name; /* where they come from, in messages: the file, or the option */
  const char *opt;  /* the option, for errors of reading a file: "--ready" */
  const char *what; /* one value, in messages: "ready time" */
  const char *per;  /* what each value is for: "machine" (one per machine) */
  int n;            /* how many there must be */
  double min;       /* the smallest allowed (-INFINITY: any finite number) */
  int say_index;    /* messages about a value also name its index: "(machine 3)", 0-based */
} cli_numbers;
/* n = ns->n numbers into out, read from fd when fd >= 0 (read under the deadline, absolute
 * CLOCK_MONOTONIC seconds, 0 = none, and closed; at most n * (DEVO_ETC_MAX_FIELD + 2) + 4096
 * bytes), else from the text list. Values are separated by blanks, or by one ',' or ';' each
 * (lines too: a file may hold one per line); each is a finite decimal number >= ns->min. Errors
 * are one line naming ns->name, the row and the column, and give the exit code: CLI_USAGE for
 * bad input, else cli_exit_for_status's. */
int cli_read_numbers(const char *cmd, const cli_numbers *ns, int fd, const char *list,
                     double deadline, double *out);

/* ---- the DE variant options of solve and schedule (tools/cli_variant.c) ---- */
typedef struct cli_variant {
  devo_variant v;        /* the result, after cli_variant_finish */
  const char *algorithm; /* --algorithm, or NULL */
  int strategy, crossover;
  double tau1, tau2, fl, fu, crl, cru, gobl;
  double p, arc_rate, c; /* --pbest, --archive-rate, --jade-c */
  int hist, np_min;      /* --memory-size, --np-min */
  unsigned set;          /* bit per option given */
} cli_variant;
/* The options ("--strategy=", ...; NULL-terminated) for a command's cli_next list. */
extern const char *const cli_variant_names[];
/* Their help lines. */
void cli_variant_print_help(FILE *f);
void cli_variant_init(cli_variant *cv);
/* Which variant option names[k] is (an index for cli_variant_option), or -1. */
int cli_variant_index(const char *const *names, int k);
/* One option's value checked and kept; 0 or CLI_USAGE after the one-line error. */
int cli_variant_option(const char *cmd, int which, const char *val, cli_variant *cv);
/* The preset, then the explicit options over it, into cv->v; 0 or CLI_USAGE. */
int cli_variant_finish(const char *cmd, cli_variant *cv);
const char *cli_variant_algorithm(const cli_variant *cv);
/* jDE's mean F and CR of the solver's last population; 0, or -1 without jDE state. */
int cli_variant_means(devo_solver *s, int np, double *mf, double *mcr);
/* The JSON members "algorithm", "strategy", "gobl", "jde" (null, or its settings and, where
 * mean_f and mean_cr are not NaN, jDE's mean F and CR of the final population). */
struct json_out;
void cli_variant_json(struct json_out *j, const cli_variant *cv, double mean_f, double mean_cr);
/* What the adaptive variants ran with, after a solve (NaN or -1 where the run or its backend does
 * not tell): jDE's mean F_i and CR_i of the final population; JADE/SHADE's mean F_i and CR_i drawn
 * in the last generation, the mean of their memories M_F and M_CR (JADE: mu_F, mu_CR; L-SHADE's
 * terminal M_CR counts as 0, the CR it gives), the final NP and archive size. */
typedef struct cli_variant_run {
  double mean_f, mean_cr, memory_f, memory_cr;
  int np, archive;
} cli_variant_run;
void cli_variant_run_state(devo_solver *s, const cli_variant *cv, int np, cli_variant_run *out);
/* cli_variant_json with the run's state: also the ranges F and CR are drawn in ("f_range",
 * "cr_range") and the means of *run in the "jde" or "shade" member. */
void cli_variant_json_run(struct json_out *j, const cli_variant *cv, const cli_variant_run *run);

#endif /* DEVO_CLI_H */
