/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * assets.*: the digest cache, which the confined checker computes and
 * only its parent writes.  check_assets () is the family (checks.h).
 */
#ifndef KG_ASSETS_H
#define KG_ASSETS_H

#include <stddef.h>

#include "conf.h"
#include "error.h"

/* assets.c: the digest cache the confined checker sent (BUF,
   NUL-terminated at LEN), as untrusted input: refused unless it is a
   valid cache, and then only the entries the parent stands behind are
   kept in *OUT (a cache text, *OUT_LEN bytes; *DROPPED: how many were
   not): an entry the cache on disk already holds, or the key of a file
   CFG pins that the parent reaches by the trusted-path walk and finds
   immutable, with the digest of the parent's own hash of it.  Nothing
   else can make a later start skip a hash. */
int assets_cache_vet (const struct guard_config *cfg, const char *buf, size_t len, char **out,
                      size_t *out_len, size_t *dropped, kg_error_t *err);
/* Write the digest cache (root's, under /run/kata-guard): what
   assets_cache_vet keeps of BUF. */
int assets_cache_write (const struct guard_config *cfg, const char *buf, size_t len,
                        kg_error_t *err);

#endif
