/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the harnesses that drive a check family end to end: the family
 * reads its input from a file, through the same trusted-path walk as in
 * production, so the input is written to a file in a private root-owned
 * 0755 directory under /var/lib/kata-guard-test (which the walk trusts,
 * unlike /tmp), rewritten for each input.  Slower than an in-memory entry,
 * but it fuzzes exactly what runs.
 */
#ifndef KG_FUZZ_FILES_H
#define KG_FUZZ_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The private directory (created once, removed at exit), or NULL. */
const char *fuzz_dir (void);
/* Replace fuzz_dir ()/NAME with DATA (mode 0644).  Returns false when it
   cannot (the input is then skipped). */
bool fuzz_write (const char *name, const uint8_t *data, size_t size);

struct guard_config;
/* Fill CFG from the guard configuration TEXT (LEN bytes), which must load:
   the harness's own setup, so a failure aborts. */
void fuzz_guard_config (const char *text, size_t len, struct guard_config *cfg);

#endif
