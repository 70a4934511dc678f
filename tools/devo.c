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
  if (argc < 2) /* bad usage is one line (DESIGN.md); --help has the list */
    return cli_usage_error(
        NULL, "a command is needed: solve, schedule, eval, list-problems, experiment or rank "
              "(see devo --help)");
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
  if (strcmp(argv[1], "--version") == 0) {
    if (devo_version_number() != DEVO_VERSION_NUMBER)
      return cli_runtime_error(NULL, "header version %s does not match library version %s",
                               DEVO_VERSION_STRING, devo_version());
    printf("devo %s\n", devo_version());
    return CLI_OK;
  }
  for (k = 0; k < NCOMMANDS; ++k)
    if (strcmp(argv[1], commands[k].name) == 0)
      return commands[k].fn(argc - 1, argv + 1);
  return cli_usage_error(NULL, "unknown command '%s' (see devo --help)", argv[1]);
}
