/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `kata-guard validate`: the posture record of [drift] (kata-guard(8),
   DRIFT). */
#ifndef KG_VALIDATE_H
#define KG_VALIDATE_H

#include <stdio.h>

#include "command.h"

/* `kata-guard validate`: a command, with the printer of its report
   (main.c hands in the start path's text output). */
int cli_validate (int argc, char **argv, kg_report_fn *print, bool *usage, kg_error_t *err);
void validate_usage (FILE *out);

#endif
