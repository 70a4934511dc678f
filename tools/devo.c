/* SPDX-License-Identifier: MIT */
/* devo.c: the devo command-line program: git-style subcommands over the library. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  int (*fn)(int, char **);
  const char *what;
} commands[] = {
    {"solve", cmd_solve, "minimise a built-in function with DE"},
    {"schedule", cmd_schedule, "map tasks to machines from an ETC matrix before a deadline"},
    {"eval", cmd_eval, "evaluate a built-in function at points read as CSV"},
    {"list-problems", cmd_list_problems, "list the built-in functions"},
    {"experiment", cmd_experiment, "run a grid of trials from a spec file into a results CSV"},
    {"rank", cmd_rank, "rank the algorithms of a results CSV (U-score, Mann-Whitney, Friedman)"},
#ifdef DEVO_HAVE_SERVE
    {"serve", cmd_serve, "answer scheduling requests over HTTP and JSON (a resident service)"},
#endif
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

/* "devo VERSION", after checking that the header devo.c was built with and the library agree */
static int version(void)
{
  if (devo_version_number() != DEVO_VERSION_NUMBER)
    return cli_runtime_error(NULL, "header version %s does not match library version %s",
                             DEVO_VERSION_STRING, devo_version());
  printf("devo %s\n", devo_version());
  return cli_stdout_done(NULL);
}

/* Whether a command's arguments ask for --version: every program answers it, as etc-gen does
 * (tool_std_args), wherever it stands before "--"; a --help before it is the command's. */
static int asks_version(int argc, char **argv)
{
  int k;
  for (k = 1; k < argc && strcmp(argv[k], "--") != 0; ++k) {
    if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0)
      return 0;
    if (strcmp(argv[k], "--version") == 0)
      return 1;
  }
  return 0;
}

/* The usage error of `devo` alone: one line (DESIGN.md) naming every command of this build. */
static int no_command(void)
{
  char list[256] = "";
  size_t len = 0;
  int k;
  for (k = 0; k < NCOMMANDS && len < sizeof list; ++k) {
    const char *sep = k == 0 ? "" : k + 1 < NCOMMANDS ? ", " : " or ";
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", sep, commands[k].name);
  }
  return cli_usage_error(NULL, "a command is needed: %s (see devo --help)", list);
}

static void usage(FILE *f)
{
  int k;
  fprintf(f, "usage: devo <command> [options]\n       devo help <command> | --help | --version\n\n"
             "commands:\n");
  for (k = 0; k < NCOMMANDS; ++k)
    fprintf(f, "  %-14s %s\n", commands[k].name, commands[k].what);
  fprintf(f, "\n'devo <command> --help' describes a command's options.\n"
             "Exit codes: 0 success (also a run ended by its time limit), 1 runtime failure,\n"
             "2 bad usage or bad input.\n");
}

int main(int argc, char **argv)
{
  int k;
  cli_mark_start();
  if (argc < 2)
    return no_command();
  if (strcmp(argv[1], "help") == 0 && argc > 2) { /* devo help CMD = devo CMD --help */
    static char help[] = "--help";
    char *sub[3];
    sub[0] = argv[2];
    sub[1] = help;
    sub[2] = NULL;
    for (k = 0; k < NCOMMANDS; ++k)
      if (strcmp(argv[2], commands[k].name) == 0)
        return commands[k].fn(2, sub);
    return cli_usage_error(NULL, "unknown command '%s' (see devo --help)", argv[2]);
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[1], "--version") == 0)
    return version();
  for (k = 0; k < NCOMMANDS; ++k)
    if (strcmp(argv[1], commands[k].name) == 0)
      return asks_version(argc - 1, argv + 1) ? version() : commands[k].fn(argc - 1, argv + 1);
  return cli_usage_error(NULL, "unknown command '%s' (see devo --help)", argv[1]);
}
