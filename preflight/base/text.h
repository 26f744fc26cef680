/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What passes as text: strict UTF-8, ASCII, control characters. */
#ifndef KG_TEXT_H
#define KG_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length of the character at P (AVAIL bytes left, at least 1) when it
   is strict UTF-8 (no overlong forms, no surrogates, nothing past
   U+10FFFF), else 0.  json-c 0.18's own check refuses every four-byte
   character, so the guard does not use it. */
size_t kg_utf8_len (const void *p, size_t avail);
/* The code point of the multi-byte character at P, which kg_utf8_len
   found valid; *K is its length less one. */
uint32_t kg_utf8_decode (const void *p, size_t *k);
/* How many of P[0..N)'s first bytes are ASCII (below 0x80). */
size_t kg_ascii_prefix (const void *p, size_t n);
/* The length of the longest prefix of P[0..N) that is strict UTF-8
   (kg_utf8_len): N when all of it is. */
size_t kg_utf8_valid_prefix (const void *p, size_t n);

/* A C0 control character or DEL: the one test of what never passes as
   text (a message, a name, a record); the callers that let TAB or LF
   through say so beside it. */
static inline bool
kg_is_ctl (unsigned char c)
{
  return c < 0x20 || c == 0x7f;
}

/* A decimal number at *P (digits only, no sign, no overflow) into *OUT;
   *P advanced past it. */
bool kg_parse_u64 (const char **p, uint64_t *out);

#endif
