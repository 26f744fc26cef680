/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-c's helpers: the cleanup of its objects, and JSON text made ASCII
   for its strict mode. */
#ifndef KG_JSONC_H
#define KG_JSONC_H

#include <stddef.h>

/* json-c's objects: json_object_put (NULL is a no-op). */
struct json_object;
void kg_json_putp (struct json_object **o);
#define cleanup_json __attribute__ ((cleanup (kg_json_putp)))

/* JSON text P[0..N) (strict UTF-8, kg_utf8_valid_prefix) with every
   character past ASCII written as a \uXXXX escape (a surrogate pair past
   U+FFFF), which decodes to the same bytes: json-c 0.18's strict mode
   refuses any byte past ASCII in a string value.  Returns a NUL-terminated
   copy (*OUT_LEN bytes) or NULL when memory runs out. */
char *kg_json_ascii (const char *p, size_t n, size_t *out_len);
/* The offset in P of the byte at offset AT of kg_json_ascii's copy. */
size_t kg_json_ascii_offset (const char *p, size_t n, size_t at);

#endif
