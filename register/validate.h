/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `kata-guard validate`: the posture record of [drift] (kata-guard(8),
   DRIFT). */
#ifndef KG_VALIDATE_H
#define KG_VALIDATE_H

#include <stdio.h>

#include "cli.h"

kg_command cli_validate;
void validate_usage (FILE *out);

#endif
