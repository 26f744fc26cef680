/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's seccomp allowlist, as rules (confine-rules.c): below both
 * of its users, confine.c (the filter a running child enters when the
 * build's compiled one does not fit) and seccomp-gen (which compiles it at
 * build time).
 */
#ifndef KG_CONFINE_RULES_H
#define KG_CONFINE_RULES_H

#include <seccomp.h>

#include "error.h"

/* Add the allowlist for REPORT_FD to CTX (from seccomp_init
   (SCMP_ACT_TRAP)), foreign architectures killed. */
int confine_rules (scmp_filter_ctx ctx, int report_fd, kg_error_t *err);

#endif
