/* SPDX-License-Identifier: MIT */
/* cmd_list.c: `devo list-problems`: the built-in functions with their names, aliases, optimum
 * values and dimensions, from the library's catalogue (devo_builtin_count / devo_builtin_get). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const list_help =
    "usage: devo list-problems [--csv]\n"
    "\n"
    "Lists the built-in functions: name (for --problem), alias, optimum value F*, the dimension\n"
    "from which on every one works with generated data (up to 10^7, CEC functions 10,000; a\n"
    "hybrid also takes some smaller ones), the dimensions with official CEC data (--cec-data),\n"
    "and where the function comes from.\n"
    "\n"
    "  --csv    one CSV row per function (header\n"
    "           name,alias,fstar,min_dim,official_dims,source,lower,upper)\n";

int cmd_list_problems(int argc, char **argv)
{
  static const char *const names[] = {"--csv", "--help", NULL};
  const char *cmd = "list-problems", *v;
  int pos = 1, k, csv = 0, n = devo_builtin_count(), i;
  while ((k = cli_next(cmd, argc, argv, &pos, names, &v)) != -1) {
    if (k == -2)
      return CLI_USAGE;
    if (k == -3)
      return cli_usage_error(cmd, "unexpected argument '%s'", v);
    if (k == 0)
      csv = 1;
    if (k == 1) {
      fputs(list_help, stdout);
      return CLI_OK;
    }
  }
  if (csv)
    printf("name,alias,fstar,min_dim,official_dims,source,lower,upper\n");
  else
    printf("%-12s %-5s %6s %7s  %-13s %-17s %s\n", "name", "alias", "F*", "min D", "official D",
           "range", "source");
  for (i = 0; i < n; ++i) {
    devo_builtin_info b;
    if (devo_builtin_get(i, &b) != DEVO_OK)
      return cli_runtime_error(cmd, "catalogue entry %d is missing", i);
    if (csv)
      /* the official dimensions contain commas, so that field is quoted; the source may too */
      printf("%s,%s,%.17g,%d,\"%s\",\"%s\",%.17g,%.17g\n", b.name, b.alias, b.fstar, b.min_dim,
             b.official, b.source, b.lower, b.upper);
    else {
      char range[64];
      snprintf(range, sizeof range, "[%g, %g]", b.lower, b.upper);
      printf("%-12s %-5s %6g %7d  %-13s %-17s %s\n", b.name, b.alias[0] ? b.alias : "-", b.fstar,
             b.min_dim, b.official[0] ? b.official : "-", range, b.source);
    }
  }
  return cli_stdout_done(cmd);
}
