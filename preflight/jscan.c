/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jscan: one top-level string of a JSON document read as a stream
 * (jscan.h).  A recursive-descent scanner that checks the grammar of
 * everything it skips (RFC 8259: objects, arrays, strings with their
 * escapes, numbers, literals), keeps only the one value asked for, and
 * reads the file through a fixed buffer: memory does not grow with the
 * document.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "jscan.h"
#include "util.h"

/* Deeper than any engine writes; bounds the recursion. */
#define JSCAN_DEPTH 512

struct rd
{
  int fd; /* -1: the buffer MEM */
  const char *mem;
  size_t mem_len;
  char buf[1 << 16];
  size_t pos, len, total;
  int errnum;      /* read(2) failed */
  const char *why; /* the first error, or NULL */
};

static int
fill (struct rd *r)
{
  ssize_t n;

  if (r->fd < 0)
    return 0;
  do
    n = read (r->fd, r->buf, sizeof r->buf);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      r->errnum = errno;
      r->why = "cannot be read";
      return -1;
    }
  r->pos = 0;
  r->len = (size_t) n;
  r->total += (size_t) n;
  if (r->total > JSCAN_MAX)
    {
      r->why = "is larger than 4 GiB";
      return -1;
    }
  return 0;
}

/* The next byte without taking it, or -1 at the end (or an error). */
static int
peek (struct rd *r)
{
  if (r->why != NULL)
    return -1;
  if (r->fd < 0)
    return r->pos < r->mem_len ? (unsigned char) r->mem[r->pos] : -1;
  if (r->pos == r->len && fill (r) < 0)
    return -1;
  return r->pos < r->len ? (unsigned char) r->buf[r->pos] : -1;
}

static int
take (struct rd *r)
{
  int c = peek (r);

  if (c >= 0)
    r->pos++;
  return c;
}

static bool
fail (struct rd *r, const char *why)
{
  if (r->why == NULL)
    r->why = why;
  return false;
}

static int
skip_ws (struct rd *r)
{
  int c;

  while ((c = peek (r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
    r->pos++;
  return c;
}

static bool
expect (struct rd *r, const char *word)
{
  for (const char *p = word; *p; p++)
    if (take (r) != (unsigned char) *p)
      return fail (r, "is not JSON (a bad literal)");
  return true;
}

static bool
is_hex (int c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string, its opening quote taken.  With OUT, its bytes are kept
   there; *ESCAPED says whether any was written as an escape and *LONG
   whether it did not fit. */
static bool
string (struct rd *r, char *out, size_t size, bool *escaped, bool *too_long)
{
  size_t n = 0;
  int c;

  *escaped = *too_long = false;
  while ((c = take (r)) != '"')
    {
      if (c < 0)
        return fail (r, "is not JSON (a string does not end)");
      if (c < 0x20)
        return fail (r, "is not JSON (a control byte in a string)");
      if (c == '\\')
        {
          *escaped = true;
          c = take (r);
          if (c == 'u')
            {
              for (int i = 0; i < 4; i++)
                if (! is_hex (take (r)))
                  return fail (r, "is not JSON (a bad \\u escape)");
            }
          else if (c <= 0 || strchr ("\"\\/bfnrt", c) == NULL)
            return fail (r, "is not JSON (a bad escape)");
          continue;
        }
      if (out != NULL && n + 1 < size)
        out[n++] = (char) c;
      else if (out != NULL)
        *too_long = true;
    }
  if (out != NULL && size > 0)
    out[n] = '\0';
  return true;
}

static bool
digits (struct rd *r)
{
  int c = peek (r);

  if (c < '0' || c > '9')
    return fail (r, "is not JSON (a bad number)");
  while ((c = peek (r)) >= '0' && c <= '9')
    r->pos++;
  return true;
}

static bool
number (struct rd *r)
{
  int c;

  if (peek (r) == '-')
    r->pos++;
  if (peek (r) == '0')
    r->pos++;
  else if (! digits (r))
    return false;
  if (peek (r) == '.')
    {
      r->pos++;
      if (! digits (r))
        return false;
    }
  c = peek (r);
  if (c == 'e' || c == 'E')
    {
      r->pos++;
      c = peek (r);
      if (c == '+' || c == '-')
        r->pos++;
      if (! digits (r))
        return false;
    }
  return true;
}

static bool value (struct rd *r, int depth);

/* The top-level key asked for, and what was found of it. */
struct want
{
  const char *key;
  char *out;
  size_t size;
  bool found, null;
};

/* The value of the key WANT asks for: a string kept in WANT->out, or
   null; anything else refuses. */
static bool
wanted_value (struct rd *r, struct want *want)
{
  bool esc, lng;
  int c = skip_ws (r);

  if (want->found)
    return fail (r, "has its key twice");
  want->found = true;
  if (c == 'n')
    return want->null = true, expect (r, "null");
  if (c != '"')
    return fail (r, "has the value of another type than a string");
  r->pos++;
  if (! string (r, want->out, want->size, &esc, &lng))
    return false;
  if (esc || lng || kg_utf8_valid_prefix (want->out, strlen (want->out)) != strlen (want->out))
    return fail (r, "has the value written with escapes, too long, or not UTF-8");
  return true;
}

/* An object key, its opening quote taken.  With WANT (the top level), an
   escaped or long key could spell the key asked for: it refuses, and
   *MINE says whether it is that key. */
static bool
object_key (struct rd *r, const struct want *want, bool *mine)
{
  char name[128];
  bool esc, lng;

  *mine = false;
  if (! string (r, want ? name : NULL, want ? sizeof name : 0, &esc, &lng))
    return false;
  if (want == NULL)
    return true;
  if (esc)
    return fail (r, "has an object key written with escapes");
  *mine = ! lng && strcmp (name, want->key) == 0;
  return true;
}

/* The members of an object or the items of an array, its bracket taken
   (CLOSE: '}' or ']'); WANT, for the top-level object only, the key whose
   string value to keep. */
static bool
members (struct rd *r, int depth, int close, struct want *want)
{
  int c = skip_ws (r);

  if (c == close)
    return take (r), true;
  for (;;)
    {
      bool mine = false;

      if (close == '}')
        {
          if (take (r) != '"' || ! object_key (r, want, &mine))
            return fail (r, "is not JSON (an object key is not a string)");
          if (skip_ws (r) != ':')
            return fail (r, "is not JSON (no ':' after a key)");
          r->pos++;
        }
      if (! (mine ? wanted_value (r, want) : value (r, depth + 1)))
        return false;
      c = skip_ws (r);
      take (r);
      if (c == close)
        return true;
      if (c != ',')
        return fail (r, c < 0 ? "is not JSON (it ends early)"
                              : "is not JSON (no ',' between members)");
      skip_ws (r);
    }
}

static bool
value (struct rd *r, int depth)
{
  bool esc, lng;
  int c = skip_ws (r);

  if (depth > JSCAN_DEPTH)
    return fail (r, "is nested too deeply");
  switch (c)
    {
    case '{':
    case '[':
      r->pos++;
      return members (r, depth, c == '{' ? '}' : ']', NULL);
    case '"':
      r->pos++;
      return string (r, NULL, 0, &esc, &lng);
    case 't':
      return expect (r, "true");
    case 'f':
      return expect (r, "false");
    case 'n':
      return expect (r, "null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return number (r);
      return fail (r, c < 0 ? "is not JSON (it ends early)" : "is not JSON (an unexpected byte)");
    }
}

/* The top-level object, KEY's value kept: 1 / 0 / -1 as
   jscan_top_string. */
static int
top (struct rd *r, const char *key, char *out, size_t size)
{
  struct want want = { key, out, size, false, false };

  if (skip_ws (r) != '{')
    return fail (r, "is not a JSON object"), -1;
  r->pos++;
  if (! members (r, 0, '}', &want))
    return -1;
  if (skip_ws (r) != -1 || r->why != NULL)
    return fail (r, "has data after the JSON object"), -1;
  return want.found && ! want.null ? 1 : 0;
}

static int
scan (struct rd *r, const char *name, const char *key, char *out, size_t size, kg_error_t *err)
{
  int rc = top (r, key, out, size);

  if (rc < 0)
    return kg_error (err, r->errnum, "%s %s (reading its \"%s\")", name,
                     r->why ? r->why : "cannot be read", key);
  return rc;
}

int
jscan_top_string_mem (const char *buf, size_t len, const char *key, char *out, size_t size,
                      kg_error_t *err)
{
  static struct rd r;

  memset (&r, 0, sizeof r);
  r.fd = -1;
  r.mem = buf;
  r.mem_len = len;
  return scan (&r, "the document", key, out, size, err);
}

int
jscan_top_string (const char *path, const char *key, char *out, size_t size, kg_error_t *err)
{
  static struct rd r;
  int rc;

  memset (&r, 0, sizeof r);
  r.fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (r.fd < 0)
    return kg_error (err, errno, "%s", path);
  rc = scan (&r, path, key, out, size, err);
  close (r.fd);
  return rc;
}
