/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* The one growth loop: a capacity of at least NEED bytes, doubling (from
   64) so that appends cost amortized constant time, never more than a
   bounded buffer can use. */
static int
buf_grow (struct kg_buf *b, size_t need)
{
  size_t cap = b->cap == 0 ? 64 : b->cap;
  char *s;

  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  if (b->max != 0 && cap - 1 > b->max)
    cap = b->max + 1;
  s = realloc (b->s, cap);
  if (s == NULL)
    return -1;
  s[b->len] = '\0';
  b->s = s;
  b->cap = cap;
  return 0;
}

int
kg_buf_reserve (struct kg_buf *b, size_t n)
{
  if (b->failed)
    return -1;
  if (n > SIZE_MAX - 1 - b->len || (b->max != 0 && (b->len > b->max || n > b->max - b->len))
      || (b->len + n + 1 > b->cap && buf_grow (b, b->len + n + 1) < 0))
    {
      b->failed = true;
      return -1;
    }
  return 0;
}

int
kg_buf_add_grow (struct kg_buf *b, const void *p, size_t n)
{
  if (kg_buf_reserve (b, n) < 0)
    return -1;
  if (n > 0)
    memcpy (b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = '\0';
  return 0;
}

void
sb_printf (struct kg_buf *sb, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (sb->failed)
    return;
  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    {
      sb->failed = true;
      return;
    }
  if (kg_buf_reserve (sb, (size_t) n) < 0)
    return;
  va_start (ap, fmt);
  vsnprintf (sb->s + sb->len, sb->cap - sb->len, fmt, ap);
  va_end (ap);
  sb->len += (size_t) n;
}

const char *
sb_str (const struct kg_buf *sb)
{
  return sb->s ? sb->s : "";
}
