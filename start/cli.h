/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: check, version, help. */
#ifndef KG_CLI_H
#define KG_CLI_H

/* Exit statuses of the command line (kata-guard(8)). */
#define KG_EXIT_PASS 0
#define KG_EXIT_FAIL 1
#define KG_EXIT_USAGE 2

int cli_check (int argc, char **argv);
int cli_version (int argc, char **argv);
int cli_help (int argc, char **argv);
void cli_usage (FILE *out);

#endif
