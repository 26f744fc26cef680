/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The growable buffer (struct kg_buf) and the text built in one (sb_*). */
#ifndef KG_BUF_H
#define KG_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The one growable buffer: every text or message built a piece at a time
   (the reasons that list things, the checker's report, a TOML string, the
   runtime wrapper's lines) grows here, so that the size arithmetic is
   checked in one place.  S[LEN] is a NUL once anything was added (S is
   NULL before), so a text is a C string; a message may ignore it.  MAX,
   when not 0, is the most LEN may reach.  An append past MAX, or one
   that memory or size_t cannot hold, is dropped and sets FAILED, and so
   is every later one: the caller checks FAILED (or S) once, where it
   decides what a short buffer means.  { 0 } is empty and unbounded. */
struct kg_buf
{
  char *s;
  size_t len;
  size_t cap;
  size_t max;
  bool failed;
};

/* Room for N more bytes (and the NUL) now: 0, or -1 with FAILED set.
   Appends within the room reserved never allocate. */
int kg_buf_reserve (struct kg_buf *b, size_t n);
/* Append N bytes of P (P may be NULL when N is 0; the buffer is still
   allocated): 0, or -1 when the buffer has failed, now or before.
   kg_buf_add_grow is its way when the room must grow. */
int kg_buf_add_grow (struct kg_buf *b, const void *p, size_t n);
static inline int
kg_buf_add (struct kg_buf *b, const void *p, size_t n)
{
  /* Within the room already there (nearly every append): no call. */
  if (! b->failed && n > 0 && b->cap - b->len > n
      && (b->max == 0 || (b->len <= b->max && n <= b->max - b->len)))
    {
      memcpy (b->s + b->len, p, n);
      b->len += n;
      b->s[b->len] = '\0';
      return 0;
    }
  return kg_buf_add_grow (b, p, n);
}
/* The text, the caller's to free, and B empty again: "" when nothing
   was added, NULL when memory runs out for that. */
static inline char *
kg_buf_steal (struct kg_buf *b)
{
  char *s;

  if (b->s == NULL && kg_buf_reserve (b, 0) < 0)
    return NULL;
  s = b->s;
  b->s = NULL;
  b->len = b->cap = 0;
  return s;
}

/* Cut B back to its first LEN bytes (nothing when it holds no more). */
static inline void
kg_buf_truncate (struct kg_buf *b, size_t len)
{
  if (b->s != NULL && len < b->len)
    {
      b->len = len;
      b->s[len] = '\0';
    }
}

static inline void
kg_buf_release (struct kg_buf *b)
{
  free (b->s);
}
#define cleanup_kg_buf __attribute__ ((cleanup (kg_buf_release)))

/* Text into a kg_buf, for reasons that list things.  An allocation
   failure only shortens the text (to what came before it): no verdict
   may ever be decided by it (count the findings instead). */
void sb_printf (struct kg_buf *sb, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* The text so far ("" when empty). */
const char *sb_str (const struct kg_buf *sb);

#endif
