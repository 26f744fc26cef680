/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command of the command line, as every wing that has one writes it
 * (check/: check, version, help; verify/: validate, prove; register/:
 * install, uninstall), and the one composition root, main.c, dispatches
 * it.  Here, beside main.c, so that each of those wings includes it
 * without reaching another.
 */
#ifndef KG_COMMAND_H
#define KG_COMMAND_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "result.h"

/* Exit statuses of the command line (kata-guard(8)). */
#define KG_EXIT_PASS 0
#define KG_EXIT_FAIL 1
#define KG_EXIT_USAGE 2

/* A command (main.c's table), as crun's: it returns its exit status.  An
   error that ends it (a bad argument, a file it cannot use) comes back in
   *ERR, worded without the "kata-guard: CMD: " that main puts before it
   when it prints it, once, on stderr; with *USAGE set, main prints the
   command's usage after it.  What a command reports as its work
   (results, notes, --dry-run output) it prints itself. */
typedef int kg_command (int argc, char **argv, bool *usage, kg_error_t *err);

/* How a command prints a report as `kata-guard check` does: main.c hands
   in the start path's text output to `validate` (registration links
   without the start path). */
typedef void kg_report_fn (FILE *out, const struct report *rep);

/* How a command prints a report in each of check's formats: main.c hands
   in the start path's output to `prove` (registration links without it).
   JSON names CONFIG_PATH; Prometheus says how long the run took (SECONDS)
   and when it ran (NOW). */
struct kg_report_printers
{
  kg_report_fn *text;
  int (*json) (FILE *out, const struct report *rep, const char *config_path);
  void (*prometheus) (FILE *out, const struct report *rep, double seconds, long long now);
};

/* For a command's getopt_long loop, in one wording for every command:
   the option that getopt_long returned '?' for (the usage follows), and
   an operand where the command takes none.  Both return -1 with *ERR. */
static inline int
cli_bad_option (char **argv, bool *usage, kg_error_t *err)
{
  *usage = true;
  if (optopt != 0)
    return kg_error (err, 0, "bad or incomplete option -%c", optopt);
  return kg_error (err, 0, "unknown option %s", argv[optind - 1]);
}

static inline int
cli_operands (int argc, char **argv, kg_error_t *err)
{
  if (optind != argc)
    return kg_error (err, 0, "unexpected argument %s", argv[optind]);
  return 0;
}

#endif
