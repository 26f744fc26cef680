/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: check, version, help (kata-guard(8), COMMANDS). */
#ifndef KG_CLI_H
#define KG_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* Exit statuses of the command line (kata-guard(8)). */
#define KG_EXIT_PASS 0
#define KG_EXIT_FAIL 1
#define KG_EXIT_USAGE 2

/* A command of the command line (main.c's table), as crun's: it returns
   its exit status.  An error that ends it (a bad argument, a file it
   cannot use) comes back in *ERR, worded without the "kata-guard: CMD: "
   that main puts before it when it prints it, once, on stderr; with
   *USAGE set, main prints the command's usage after it.  What a command
   reports as its work (results, notes, --dry-run output) it prints
   itself. */
typedef int kg_command (int argc, char **argv, bool *usage, kg_error_t *err);

kg_command cli_version, cli_help;

/* How `check --nfd` replaces its file whole, as install writes
   daemon.json: main.c hands in register/replace.h's kg_replace_file (the
   start path links without registration).  0, or -1 with *ERR. */
typedef int kg_replace_fn (const char *path, const char *data, size_t len, kg_error_t *err);
/* `kata-guard check`: a command, with the file writer. */
int cli_check (int argc, char **argv, kg_replace_fn *replace, bool *usage, kg_error_t *err);

/* For a command's getopt_long loop, in one wording for every command:
   the option that getopt_long returned '?' for (the usage follows), and
   an operand where the command takes none.  Both return -1 with *ERR. */
int cli_bad_option (char **argv, bool *usage, kg_error_t *err);
int cli_operands (int argc, char **argv, kg_error_t *err);
void cli_usage (FILE *out);

#endif
