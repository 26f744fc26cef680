/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The family table's runner (preflight.c), for those who run the checks:
 * the confined checker, `check`, `validate`, the start path.  The
 * families themselves see checks.h (struct preflight, KG_FAMILIES) and
 * nothing of this, so that no family reaches up to its runner.
 */
#ifndef KG_PREFLIGHT_H
#define KG_PREFLIGHT_H

#include <stddef.h>

#include "checks.h"

/* Every family, in the order they run (KG_FAMILIES). */
extern const struct check_family check_families[];
extern const size_t n_check_families;

void preflight_init (struct preflight *pf, const struct request *req,
                     const struct guard_config *cfg, struct report *rep);
/* Run every family. */
void preflight_run (struct preflight *pf);
void preflight_release (struct preflight *pf);

#endif
