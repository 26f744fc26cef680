/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place that turns a report into text for each output channel. */
#ifndef KG_OUTPUT_H
#define KG_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "result.h"

/* `kata-guard check`: one line per check, verdict first; colour only when
   COLOR is true (the caller decides: a tty, and NO_COLOR unset). */
void output_text (FILE *out, const struct report *r, bool color);
/* `kata-guard check --json`: {"verdict": ..., "config": ..., "files": [...],
   "checks": [{"id", "verdict", "reason", "remedy"}, ...]}. */
int output_json (FILE *out, const struct report *r, const char *config_path);
/* The JSON written when the configuration itself cannot be used. */
int output_json_error (FILE *out, const char *config_path, const char *message);
/* Whether colour suits the stream F. */
bool output_want_color (FILE *f);

#endif
