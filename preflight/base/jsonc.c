/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>

#include "jsonc.h"
#include "text.h"

void
kg_json_putp (struct json_object **o)
{
  json_object_put (*o);
}

/* The length of the escape for the sequence at P. */
static size_t
escaped_len (const unsigned char *p, size_t *k)
{
  if (p[0] < 0x80)
    return *k = 0, 1;
  return kg_utf8_decode (p, k) > 0xffff ? 12 : 6;
}

char *
kg_json_ascii (const char *p, size_t n, size_t *out_len)
{
  const unsigned char *s = (const unsigned char *) p;
  size_t size = 1, o = 0, k;
  char *out;

  for (size_t i = 0; i < n; i += k + 1)
    size += escaped_len (s + i, &k);
  out = malloc (size);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < n; i += k + 1)
    {
      uint32_t cp;

      if (s[i] < 0x80)
        {
          out[o++] = (char) s[i];
          k = 0;
          continue;
        }
      cp = kg_utf8_decode (s + i, &k);
      if (cp > 0xffff)
        {
          cp -= 0x10000;
          o += (size_t) snprintf (out + o, size - o, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                                  0xdc00 + (cp & 0x3ff));
        }
      else
        o += (size_t) snprintf (out + o, size - o, "\\u%04x", cp);
    }
  out[o] = '\0';
  *out_len = o;
  return out;
}

size_t
kg_json_ascii_offset (const char *p, size_t n, size_t at)
{
  const unsigned char *s = (const unsigned char *) p;
  size_t i = 0, o = 0, k;

  while (i < n)
    {
      size_t e = escaped_len (s + i, &k);

      if (o + e > at)
        break;
      o += e;
      i += k + 1;
    }
  return i;
}
