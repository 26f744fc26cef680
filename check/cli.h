/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: check, version, help (kata-guard(8), COMMANDS). */
#ifndef KG_CLI_H
#define KG_CLI_H

#include <stdio.h>

#include "command.h"

kg_command cli_version, cli_help;

kg_command cli_check;
void cli_usage (FILE *out);
void cli_version_usage (FILE *out);

#endif
