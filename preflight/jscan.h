/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One top-level string of an engine's JSON file, read as a stream: a
 * file whose size the container's own flags decide (Docker's
 * hostconfig.json holds one entry per published port: 7.5 MB for
 * `-p 1-65535:1-65535 -p 1-65535:1-65535/udp`) is read whole, in pieces,
 * without building its tree.
 */
#ifndef KG_JSCAN_H
#define KG_JSCAN_H

#include <stddef.h>

#include "error.h"

/* Beyond this an engine file is refused all the same (it is 4 GiB of
   ports). */
#define JSCAN_MAX ((size_t) 1 << 32)

/* The value of the top-level KEY of the JSON object in PATH (opened
   O_NOFOLLOW), when it is a string, into OUT (NUL-terminated).  The
   whole document must be well-formed JSON with nothing after it; KEY
   must appear once; the value must fit OUT and hold no escape.  Returns
   1 with OUT set, 0 when the object has no KEY (or KEY is null), -1 with
   *ERR otherwise (a missing file is -1 with errnum ENOENT). */
int jscan_top_string (const char *path, const char *key, char *out, size_t size, kg_error_t *err);

/* The same over a buffer (the unit tests and the fuzz target). */
int jscan_top_string_mem (const char *buf, size_t len, const char *key, char *out, size_t size,
                          kg_error_t *err);

#endif
