/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>

#include "jsonc.h"

void
kg_json_putp (struct json_object **o)
{
  json_object_put (*o);
}

/* The code point of the valid UTF-8 sequence at P (K + 1 bytes). */
static uint32_t
utf8_decode (const unsigned char *p, size_t *k)
{
  if (p[0] < 0xe0)
    return *k = 1, ((uint32_t) (p[0] & 0x1f) << 6) | (p[1] & 0x3f);
  if (p[0] < 0xf0)
    return *k = 2,
           ((uint32_t) (p[0] & 0x0f) << 12) | ((uint32_t) (p[1] & 0x3f) << 6) | (p[2] & 0x3f);
  return *k = 3, ((uint32_t) (p[0] & 0x07) << 18) | ((uint32_t) (p[1] & 0x3f) << 12)
                     | ((uint32_t) (p[2] & 0x3f) << 6) | (p[3] & 0x3f);
}

/* The length of the escape for the sequence at P. */
static size_t
escaped_len (const unsigned char *p, size_t *k)
{
  if (p[0] < 0x80)
    return *k = 0, 1;
  return utf8_decode (p, k) > 0xffff ? 12 : 6;
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
      cp = utf8_decode (s + i, &k);
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

/* The value of the four hex digits at P[0..4), or -1. */
static int32_t
hex4 (const unsigned char *p)
{
  int32_t v = 0;

  for (int i = 0; i < 4; i++)
    {
      unsigned char c = p[i];

      if (c >= '0' && c <= '9')
        v = v * 16 + (c - '0');
      else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        v = v * 16 + ((c | 0x20) - 'a' + 10);
      else
        return -1;
    }
  return v;
}

/* json-c's decoder misreads CP: after a surrogate pair it looks at the
   pair's code point as if it were one \uXXXX, and one whose low 16 bits
   fall among the surrogates becomes U+FFFD or the start of another pair. */
static bool
jsonc_misreads (uint32_t cp)
{
  return cp > 0xffff && (cp & 0xf800) == 0xd800;
}

size_t
kg_json_jsonc_misread (const char *p, size_t n, uint32_t *cp)
{
  const unsigned char *s = (const unsigned char *) p;
  size_t i = 0, k;

  while (i < n)
    {
      if (s[i] == '\\' && i + 1 < n)
        {
          int32_t hi, lo;

          if (s[i + 1] != 'u' || n - i < 6 || (hi = hex4 (s + i + 2)) < 0)
            {
              i += 2;
              continue;
            }
          if (hi >= 0xd800 && hi < 0xdc00 && n - i >= 12 && s[i + 6] == '\\' && s[i + 7] == 'u'
              && (lo = hex4 (s + i + 8)) >= 0xdc00 && lo < 0xe000)
            {
              *cp = 0x10000 + ((uint32_t) (hi - 0xd800) << 10) + (uint32_t) (lo - 0xdc00);
              if (jsonc_misreads (*cp))
                return i;
              i += 12;
            }
          else
            i += 6;
        }
      else if (s[i] >= 0xf0 && n - i >= 4)
        {
          *cp = utf8_decode (s + i, &k);
          if (jsonc_misreads (*cp))
            return i;
          i += k + 1;
        }
      else
        i++;
    }
  return n;
}
