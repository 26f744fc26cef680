/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "text.h"

size_t
kg_utf8_len (const void *p, size_t avail)
{
  const unsigned char *s = p;
  unsigned char lo = 0x80, hi = 0xbf;
  size_t n;

  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    {
      n = 3;
      if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
      else if (s[0] == 0xed)
        hi = 0x9f; /* surrogates */
    }
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    {
      n = 4;
      if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
      else if (s[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    }
  else
    return 0; /* a stray continuation byte, an overlong 2-byte form, past U+10FFFF */
  if (avail < n || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

uint32_t
kg_utf8_decode (const void *p, size_t *k)
{
  const unsigned char *s = p;

  if (s[0] < 0xe0)
    return *k = 1, ((uint32_t) (s[0] & 0x1f) << 6) | (s[1] & 0x3f);
  if (s[0] < 0xf0)
    return *k = 2,
           ((uint32_t) (s[0] & 0x0f) << 12) | ((uint32_t) (s[1] & 0x3f) << 6) | (s[2] & 0x3f);
  return *k = 3, ((uint32_t) (s[0] & 0x07) << 18) | ((uint32_t) (s[1] & 0x3f) << 12)
                     | ((uint32_t) (s[2] & 0x3f) << 6) | (s[3] & 0x3f);
}

size_t
kg_ascii_prefix (const void *p, size_t n)
{
  const unsigned char *s = p;
  size_t i = 0;

  /* Eight bytes at a time while none has its high bit set. */
  for (uint64_t w; i + 8 <= n; i += 8)
    {
      memcpy (&w, s + i, 8);
      if ((w & UINT64_C (0x8080808080808080)) != 0)
        break;
    }
  while (i < n && s[i] < 0x80)
    i++;
  return i;
}

size_t
kg_utf8_valid_prefix (const void *p, size_t n)
{
  const unsigned char *s = p;
  size_t i = 0, k;

  while (i < n)
    {
      i += kg_ascii_prefix (s + i, n - i);
      if (i == n || (k = kg_utf8_len (s + i, n - i)) == 0)
        break;
      i += k;
    }
  return i;
}

bool
kg_parse_u64 (const char **p, uint64_t *out)
{
  uint64_t v = 0;
  const char *s = *p;

  if (*s < '0' || *s > '9')
    return false;
  for (; *s >= '0' && *s <= '9'; s++)
    {
      if (v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
        return false;
      v = v * 10 + (uint64_t) (*s - '0');
    }
  *p = s;
  *out = v;
  return true;
}
