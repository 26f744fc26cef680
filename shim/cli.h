/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: check, version, help (kata-guard(8), COMMANDS). */
#ifndef KG_CLI_H
#define KG_CLI_H

#include <stdio.h>

#include "command.h"

kg_command cli_version, cli_help;

/* `kata-guard check`: a command, with the file writer for --nfd. */
int cli_check (int argc, char **argv, kg_replace_fn *replace, bool *usage, kg_error_t *err);
void cli_usage (FILE *out);

#endif
