/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-c's helpers: the cleanup of its objects, and JSON text made ASCII
   for its strict mode. */
#ifndef KG_JSONC_H
#define KG_JSONC_H

#include <stddef.h>
#include <stdint.h>

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

/* The offset in P[0..N) (valid UTF-8) of the first character json-c
   reads as another, with its code point in *CP, or N when there is none.
   json-c (0.16 to 0.19) decodes a surrogate pair, then judges the pair's
   code point as if it were one \uXXXX: a character past U+FFFF whose low
   16 bits are those of a surrogate (U+1D800 to U+1DFFF, U+2D800 to
   U+2DFFF, ... U+10D800 to U+10DFFF) becomes U+FFFD, or with a low
   surrogate after it the start of another pair, where Go's decoder and
   the guard's own (jtree.h) read the character.  It reaches json-c as a
   pair either way: written as one in the text, or as raw UTF-8 that
   kg_json_ascii escapes.  A text holding one is refused. */
size_t kg_json_jsonc_misread (const char *p, size_t n, uint32_t *cp);

#endif
