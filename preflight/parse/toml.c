/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "text.h"
#include "toml.h"

/*
 * A strict TOML 1.0 reader; toml.h says what it accepts and refuses.
 *
 * The input is checked in two passes.  The first looks at bytes only (size,
 * line length, UTF-8, NUL, control characters), so that the second, the
 * grammar, can treat the text as clean UTF-8 in which a 0 byte can only mean
 * "end of input".  The grammar is recursive descent; its only recursion
 * (nested arrays) is bounded by TOML_MAX_DEPTH, as are the tables created by
 * headers and dotted keys, so the trees it builds are bounded too and
 * toml_free's recursion with them.
 *
 * When in doubt the parser refuses: the values it returns decide how a
 * sandbox is configured, and a reading that differs from Kata's own is worse
 * than an error the administrator has to fix.
 */

/* Longest key path quoted in an error message. */
#define KEY_MSG 128

struct where
{
  unsigned line, column;
};

/* One slot of the parser's key index (see find ()). */
struct key_slot
{
  struct toml_value *table; /* NULL: the slot is free */
  size_t idx;               /* position of the entry in the table */
};

struct parser
{
  const char *name;
  const char *s;
  size_t len, pos;
  size_t line_start; /* offset of the first byte of the current line */
  unsigned line;
  kg_error_t *err;
  struct toml_value *root;
  struct toml_value *cur; /* where `key = value` lines go */
  unsigned cur_depth;     /* how many keys lead from the root to cur */
  struct key_slot *slots; /* open addressing, power-of-two size */
  size_t nslots, used;
  locale_t c_locale; /* for strtod_l, created on the first float */
  bool line_escape;  /* the string just read had a line-ending backslash */
  bool crlf;         /* ... or a CRLF inside a multi-line string */
};

/* A dotted key as written: a."b.c".d is three parts. */
struct key_part
{
  char *s;
  struct where at;
};

struct key_path
{
  size_t n;
  struct key_part part[TOML_MAX_DEPTH];
};

static void
parser_release (struct parser *ps)
{
  toml_free (ps->root);
  free (ps->slots);
  if (ps->c_locale != (locale_t) 0)
    freelocale (ps->c_locale);
}

static void
key_path_release (struct key_path *k)
{
  for (size_t i = 0; i < k->n; i++)
    free (k->part[i].s);
}

#define cleanup_parser __attribute__ ((cleanup (parser_release)))
#define cleanup_key_path __attribute__ ((cleanup (key_path_release)))

/* ---- errors --------------------------------------------------------- */

static struct where
here (const struct parser *ps)
{
  return (struct where){ ps->line, (unsigned) (ps->pos - ps->line_start + 1) };
}

static struct where
shift (struct where w, size_t n)
{
  w.column += (unsigned) n;
  return w;
}

static int perr (struct parser *ps, struct where at, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Report "NAME:LINE:COLUMN: message"; returns -1. */
static int
perr (struct parser *ps, struct where at, const char *fmt, ...)
{
  cleanup_free char *msg = NULL;
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&msg, fmt, ap);
  va_end (ap);
  if (r < 0)
    {
      msg = NULL;
      return kg_error (ps->err, ENOMEM, "%s:%u:%u: cannot format an error", ps->name, at.line,
                       at.column);
    }
  return kg_error (ps->err, 0, "%s:%u:%u: %s", ps->name, at.line, at.column, msg);
}

static int
oom (struct parser *ps)
{
  return kg_error (ps->err, ENOMEM, "%s:%u:%u: out of memory", ps->name, ps->line,
                   here (ps).column);
}

static int
ch (const struct parser *ps, size_t off)
{
  return ps->pos + off < ps->len ? (unsigned char) ps->s[ps->pos + off] : 0;
}

/* What is under the cursor, for "found ..." in messages. */
static const char *
describe (const struct parser *ps, char *out, size_t size)
{
  int c = ch (ps, 0);

  if (ps->pos >= ps->len)
    return "end of input";
  if (c == '\n' || c == '\r')
    return "end of line";
  if (c == ' ' || c == '\t')
    return "whitespace";
  if (c > ' ' && c < 0x7f)
    snprintf (out, size, "'%c'", c);
  else
    snprintf (out, size, "byte 0x%02x", (unsigned) c);
  return out;
}
#define FOUND(ps) describe ((ps), (char[16]){ 0 }, 16)

/* The first N parts of K as "a.b.c", for a message.  Keys can hold any
   character through escapes, so control characters (C0, DEL and C1) are
   shown escaped rather than sent to someone's terminal, and the result is
   bounded and cut only between characters. */
static const char *
key_for_msg (const struct key_path *k, size_t n, char out[KEY_MSG])
{
  bool full = false;
  size_t o = 0;

  for (size_t i = 0; i < n && ! full; i++)
    {
      const unsigned char *p = (const unsigned char *) k->part[i].s;

      if (i > 0 && o + 12 < KEY_MSG)
        out[o++] = '.';
      for (; *p != '\0'; p++)
        {
          /* Room for the longest item (\u009b or a 4-byte character) and "...". */
          if ((*p & 0xc0) != 0x80 && o + 12 >= KEY_MSG)
            {
              memcpy (out + o, "...", 3);
              o += 3;
              full = true;
              break;
            }
          if (kg_is_ctl (*p))
            o += (size_t) snprintf (out + o, KEY_MSG - o, "\\x%02x", *p);
          else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            o += (size_t) snprintf (out + o, KEY_MSG - o, "\\u%04x", *++p);
          else
            out[o++] = (char) *p;
        }
    }
  out[o] = '\0';
  return out;
}

static const char *
article (enum toml_kind kind)
{
  return kind == TOML_INTEGER || kind == TOML_ARRAY ? "an" : "a";
}

/* ---- values ---------------------------------------------------------- */

/* Tables and arrays have no capacity field: the capacity is the smallest
   power of two >= n, so an append grows exactly when n is 0 or a power of
   two.  Returns the (maybe moved) items, or NULL with ITEMS untouched. */
static void *
grow (void *items, size_t n, size_t size)
{
  if (n != 0 && (n & (n - 1)) != 0)
    return items;
  if (n > SIZE_MAX / 2 / size)
    return NULL;
  return realloc (items, (n == 0 ? 1 : 2 * n) * size);
}

/* Take over KEY and V, but only on success. */
static int
table_append (struct toml_value *t, char *key, struct toml_value *v, unsigned line, unsigned column)
{
  struct toml_entry *items = grow (t->u.table.items, t->u.table.n, sizeof *items);

  if (items == NULL)
    return -1;
  t->u.table.items = items;
  items[t->u.table.n++] = (struct toml_entry){ key, line, column, v };
  return 0;
}

/* Take over V, but only on success. */
static int
array_append (struct toml_value *a, struct toml_value *v)
{
  struct toml_value **items = grow (a->u.array.items, a->u.array.n, sizeof *items);

  if (items == NULL)
    return -1;
  a->u.array.items = items;
  items[a->u.array.n++] = v;
  return 0;
}

/* Position of KEY in table T, or T's size when absent. */
static size_t
table_index (const struct toml_value *t, const char *key)
{
  size_t i;

  for (i = 0; i < t->u.table.n; i++)
    if (t->u.table.items[i].key != NULL && strcmp (t->u.table.items[i].key, key) == 0)
      break;
  return i;
}

static struct toml_value *
new_value (struct parser *ps, enum toml_kind kind, struct where at)
{
  struct toml_value *v = calloc (1, sizeof *v);

  if (v == NULL)
    {
      oom (ps);
      return NULL;
    }
  v->kind = kind;
  v->line = at.line;
  v->column = at.column;
  return v;
}

void
toml_free (struct toml_value *v)
{
  if (v == NULL)
    return;
  /* The recursion is as deep as the tree, which the parser bounds. */
  switch (v->kind)
    {
    case TOML_STRING:
      free (v->u.string);
      break;
    case TOML_ARRAY:
      for (size_t i = 0; i < v->u.array.n; i++)
        toml_free (v->u.array.items[i]);
      free (v->u.array.items);
      break;
    case TOML_TABLE:
      for (size_t i = 0; i < v->u.table.n; i++)
        {
          free (v->u.table.items[i].key);
          toml_free (v->u.table.items[i].value);
        }
      free (v->u.table.items);
      break;
    default:
      break;
    }
  free (v);
}

/* ---- the key index ---------------------------------------------------
   Every key of every table goes into one hash table for the parse, so that
   the duplicate checks cost O(1): with a linear scan per key, a 1 MiB file
   of distinct keys in one table would take tens of seconds.  Tables and
   entries are only appended to while parsing, so (table, position) stays
   valid. */

static uint64_t
hash_key (const struct toml_value *table, const char *key)
{
  uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
  uintptr_t t = (uintptr_t) table;

  for (size_t i = 0; i < sizeof t; i++, t >>= 8)
    h = (h ^ (t & 0xff)) * 0x100000001b3u;
  for (; *key != '\0'; key++)
    h = (h ^ (unsigned char) *key) * 0x100000001b3u;
  return h;
}

static void
slot_put (struct key_slot *slots, size_t nslots, struct key_slot s)
{
  size_t i = hash_key (s.table, s.table->u.table.items[s.idx].key) & (nslots - 1);

  while (slots[i].table != NULL)
    i = (i + 1) & (nslots - 1);
  slots[i] = s;
}

static struct toml_entry *
find (const struct parser *ps, struct toml_value *table, const char *key)
{
  if (ps->nslots == 0)
    return NULL;
  /* Terminates: the index is never more than half full. */
  for (size_t i = hash_key (table, key) & (ps->nslots - 1);; i = (i + 1) & (ps->nslots - 1))
    {
      const struct key_slot *s = &ps->slots[i];

      if (s->table == NULL)
        return NULL;
      if (s->table == table && strcmp (table->u.table.items[s->idx].key, key) == 0)
        return &table->u.table.items[s->idx];
    }
}

static int
index_add (struct parser *ps, struct toml_value *table, size_t idx)
{
  if (2 * (ps->used + 1) > ps->nslots)
    {
      size_t n = ps->nslots == 0 ? 64 : 2 * ps->nslots;
      struct key_slot *slots = calloc (n, sizeof *slots);

      if (slots == NULL)
        return -1;
      for (size_t i = 0; i < ps->nslots; i++)
        if (ps->slots[i].table != NULL)
          slot_put (slots, n, ps->slots[i]);
      free (ps->slots);
      ps->slots = slots;
      ps->nslots = n;
    }
  slot_put (ps->slots, ps->nslots, (struct key_slot){ table, idx });
  ps->used++;
  return 0;
}

/* Add a copy of KEY = V to TABLE; V is taken over, also on failure. */
static int
insert (struct parser *ps, struct toml_value *table, const char *key, struct toml_value *v,
        struct where at)
{
  char *copy = strdup (key);

  if (copy == NULL || table_append (table, copy, v, at.line, at.column) < 0)
    {
      free (copy);
      toml_free (v);
      return oom (ps);
    }
  if (index_add (ps, table, table->u.table.n - 1) < 0)
    return oom (ps);
  return 0;
}

/* ---- bytes ----------------------------------------------------------- */

/* The byte-level pass.  No raw control character other than tab and the
   newlines is valid anywhere in TOML 1.0 (strings must escape them), so
   they can be refused here without knowing the context. */
static int
check_bytes (struct parser *ps)
{
  const unsigned char *s = (const unsigned char *) ps->s;
  size_t line_start = ps->line_start;
  unsigned line = 1;

  for (size_t i = ps->pos; i < ps->len;)
    {
      struct where at;
      size_t n = 1, from = i;

      /* A run of printable ASCII and tabs (nearly all of a file) needs no
         other look than at its length: eight bytes at a time while none
         is below 0x20 or above 0x7e, then byte by byte. */
      for (uint64_t w; i + 8 <= ps->len; i += 8)
        {
          memcpy (&w, s + i, 8);
          if ((((w - UINT64_C (0x2020202020202020)) & ~w)
               | ((w + UINT64_C (0x0101010101010101)) | w))
              & UINT64_C (0x8080808080808080))
            break;
        }
      while (i < ps->len && ((s[i] >= 0x20 && s[i] < 0x7f) || s[i] == '\t'))
        i++;
      if (i > from && i - line_start > TOML_MAX_LINE)
        return perr (ps, (struct where){ line, TOML_MAX_LINE + 1 }, "line longer than %d bytes",
                     TOML_MAX_LINE);
      if (i == ps->len)
        break;
      at = (struct where){ line, (unsigned) (i - line_start + 1) };
      if (s[i] == '\n')
        {
          line++;
          line_start = ++i;
          continue;
        }
      if (s[i] == '\r' && i + 1 < ps->len && s[i + 1] == '\n')
        {
          i++; /* part of the line ending, not of the line */
          continue;
        }
      if (s[i] == '\0')
        return perr (ps, at, "NUL byte");
      if (s[i] == '\r')
        return perr (ps, at, "carriage return not followed by a line feed");
      if (kg_is_ctl (s[i]) && s[i] != '\t')
        return perr (ps, at, "control character 0x%02x", s[i]);
      if (s[i] >= 0x80)
        {
          n = kg_utf8_len (s + i, ps->len - i);
          if (n == 0)
            return perr (ps, at, "invalid UTF-8 (byte 0x%02x)", s[i]);
          /* The one at the very start was skipped already. */
          if (n == 3 && s[i] == 0xef && s[i + 1] == 0xbb && s[i + 2] == 0xbf)
            return perr (ps, at, "a byte order mark is allowed only at the start");
        }
      if (i + n - line_start > TOML_MAX_LINE)
        return perr (ps, (struct where){ line, TOML_MAX_LINE + 1 }, "line longer than %d bytes",
                     TOML_MAX_LINE);
      i += n;
    }
  return 0;
}

/* ---- lexical helpers ------------------------------------------------- */

static bool
is_bare (int c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'
         || c == '-';
}

static bool
is_digit (int c)
{
  return c >= '0' && c <= '9';
}

static bool
eat_newline (struct parser *ps)
{
  size_t n = ch (ps, 0) == '\n' ? 1 : ch (ps, 0) == '\r' && ch (ps, 1) == '\n' ? 2 : 0;

  if (n == 0)
    return false;
  ps->pos += n;
  ps->line++;
  ps->line_start = ps->pos;
  return true;
}

static void
skip_ws (struct parser *ps)
{
  while (ch (ps, 0) == ' ' || ch (ps, 0) == '\t')
    ps->pos++;
}

/* The bytes were checked already, so a comment needs no inspection. */
static void
skip_comment (struct parser *ps)
{
  const char *p;

  if (ch (ps, 0) != '#')
    return;
  /* It ends at the line's end: a line feed, or the carriage return just
     before one (check_bytes refused NUL bytes and every other carriage
     return). */
  p = memchr (ps->s + ps->pos, '\n', ps->len - ps->pos);
  if (p == NULL)
    p = ps->s + ps->len;
  else if (p > ps->s + ps->pos && p[-1] == '\r')
    p--;
  ps->pos = (size_t) (p - ps->s);
}

/* Whitespace, comments and newlines: what may surround array items. */
static void
skip_blank (struct parser *ps)
{
  do
    {
      skip_ws (ps);
      skip_comment (ps);
    }
  while (eat_newline (ps));
}

/* ---- strings --------------------------------------------------------- */

static int
digit_value (int c, int base)
{
  int d = -1;

  if (c >= '0' && c <= '9')
    d = c - '0';
  else if (c >= 'a' && c <= 'f')
    d = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F')
    d = c - 'A' + 10;
  return d < base ? d : -1;
}

/* \uXXXX or \UXXXXXXXX (NDIGITS) at the cursor, appended as UTF-8. */
static int
parse_unicode_escape (struct parser *ps, struct kg_buf *b, size_t ndigits)
{
  struct where at = here (ps);
  static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
  char u = ndigits == 4 ? 'u' : 'U';
  unsigned char out[4];
  uint32_t cp = 0;
  size_t n;

  for (size_t i = 0; i < ndigits; i++)
    {
      int d = digit_value (ch (ps, 2 + i), 16);

      if (d < 0)
        return perr (ps, at, "invalid escape: \\%c needs exactly %zu hex digits", u, ndigits);
      cp = cp << 4 | (uint32_t) d;
    }
  /* Strings are handed out as C strings: a NUL inside would cut them. */
  if (cp == 0)
    return perr (ps, at, "invalid escape: \\%c%0*X is not allowed (strings cannot contain NUL)", u,
                 (int) ndigits, 0u);
  if (cp >= 0xd800 && cp <= 0xdfff)
    return perr (ps, at, "invalid escape: \\%c%0*X is a surrogate, not a character", u,
                 (int) ndigits, (unsigned) cp);
  if (cp > 0x10ffff)
    return perr (ps, at, "invalid escape: \\%c%0*X is beyond U+10FFFF", u, (int) ndigits,
                 (unsigned) cp);
  /* UTF-8: six bits per continuation byte, from the end; the rest go in
     the lead byte, after the marker saying how long the sequence is. */
  n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  for (size_t i = n - 1; i > 0; i--, cp >>= 6)
    out[i] = (unsigned char) (0x80 | (cp & 0x3f));
  out[0] = (unsigned char) (lead[n] | cp);
  ps->pos += 2 + ndigits;
  return kg_buf_add (b, (const char *) out, n) < 0 ? oom (ps) : 0;
}

/* The escape at the backslash under the cursor, in a basic string
   (MULTILINE: a """ one, where a backslash can also end a line). */
static int
parse_escape (struct parser *ps, struct kg_buf *b, bool multiline)
{
  static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
  struct where at = here (ps);
  int c = ch (ps, 1);
  const char *p;

  if (c == 'u' || c == 'U')
    return parse_unicode_escape (ps, b, c == 'u' ? 4 : 8);
  if (c != 0 && (p = strchr (from, c)) != NULL)
    {
      ps->pos += 2;
      return kg_buf_add (b, &to[p - from], 1) < 0 ? oom (ps) : 0;
    }
  if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
    {
      /* A line-ending backslash drops itself, the blanks after it, the
         newline and all whitespace and newlines up to the next text. */
      size_t i = 1;

      while (ch (ps, i) == ' ' || ch (ps, i) == '\t')
        i++;
      if (ch (ps, i) != '\n' && ch (ps, i) != '\r')
        return perr (ps, at, "invalid escape: only blanks may follow a line-ending backslash");
      ps->pos += i;
      do
        skip_ws (ps);
      while (eat_newline (ps));
      ps->line_escape = true;
      return 0;
    }
  if (c > ' ' && c < 0x7f)
    return perr (ps, at, "invalid escape sequence '\\%c'", c);
  ps->pos++;
  return perr (ps, at, "invalid escape sequence: backslash followed by %s", FOUND (ps));
}

/* The string at the cursor (" ' """ or '''), into *OUT. */
static int
parse_string (struct parser *ps, char **out)
{
  cleanup_kg_buf struct kg_buf b = { 0 };
  struct where at = here (ps);
  int q = ch (ps, 0);
  bool literal = q == '\'';
  bool multiline = ch (ps, 1) == q && ch (ps, 2) == q;

  ps->pos += multiline ? 3 : 1;
  if (multiline)
    eat_newline (ps); /* a newline right after the opening quotes is not content */
  for (;;)
    {
      size_t start = ps->pos, nq = 0;
      int c;

      /* Copy the run of ordinary characters in one go. */
      while ((c = ch (ps, 0)) != 0 && c != q && c != '\n' && c != '\r' && (literal || c != '\\'))
        ps->pos++;
      if (kg_buf_add (&b, ps->s + start, ps->pos - start) < 0)
        return oom (ps);
      if (c == 0)
        return perr (ps, at, "unterminated %s%s string", multiline ? "multi-line " : "",
                     literal ? "literal" : "basic");
      if (c == '\\')
        {
          if (parse_escape (ps, &b, multiline) < 0)
            return -1;
          continue;
        }
      if (c == '\n' || c == '\r')
        {
          if (! multiline)
            return perr (ps, here (ps), "unterminated string: newline before the closing quote");
          /* TOML lets a reader normalise CRLF; the guard must read what
             BurntSushi/toml (Kata's decoder) reads, which the decoder
             oracle showed: LF in a basic """ string, CRLF as written in a
             literal one. */
          start = ps->pos;
          if (! eat_newline (ps))
            return perr (ps, here (ps), "a carriage return not followed by a line feed");
          ps->crlf = ps->crlf || ps->pos - start == 2;
          if (literal ? kg_buf_add (&b, ps->s + start, ps->pos - start) < 0
                      : kg_buf_add (&b, "\n", 1) < 0)
            return oom (ps);
          continue;
        }
      if (! multiline)
        {
          ps->pos++;
          break;
        }
      /* In a multi-line string, one or two quotes are content, three end it,
         and up to two more right before those three are content too. */
      while (ch (ps, nq) == q)
        nq++;
      if (nq > 5)
        return perr (ps, here (ps), "three or more quotes in a row inside a multi-line string");
      if (kg_buf_add (&b, ps->s + ps->pos, nq < 3 ? nq : nq - 3) < 0)
        return oom (ps);
      ps->pos += nq;
      if (nq >= 3)
        break;
    }
  *out = kg_buf_steal (&b);
  return *out == NULL ? oom (ps) : 0;
}

/* ---- keys ------------------------------------------------------------ */

static int
parse_simple_key (struct parser *ps, struct key_part *part)
{
  int c = ch (ps, 0);

  part->at = here (ps);
  if (is_bare (c))
    {
      size_t start = ps->pos;

      while (is_bare (ch (ps, 0)))
        ps->pos++;
      part->s = strndup (ps->s + start, ps->pos - start);
      return part->s == NULL ? oom (ps) : 0;
    }
  if (c == '"' || c == '\'')
    {
      if (ch (ps, 1) == c && ch (ps, 2) == c)
        return perr (ps, part->at, "a multi-line string cannot be a key");
      return parse_string (ps, &part->s);
    }
  return perr (ps, part->at, "expected a key, found %s", FOUND (ps));
}

/* A key (a . "b" . c) at the cursor, into K.  DEPTH levels of nesting are
   used already (by the table header the key is under). */
static int
parse_key (struct parser *ps, struct key_path *k, unsigned depth)
{
  for (;;)
    {
      skip_ws (ps);
      if (depth + k->n >= TOML_MAX_DEPTH)
        return perr (ps, here (ps), "nesting deeper than %d levels", TOML_MAX_DEPTH);
      if (parse_simple_key (ps, &k->part[k->n]) < 0)
        return -1;
      k->n++;
      skip_ws (ps);
      if (ch (ps, 0) != '.')
        return 0;
      ps->pos++;
    }
}

/* ---- numbers --------------------------------------------------------- */

/* The character I of the token, or 0 past its end. */
static int
tk (const char *tok, size_t len, size_t i)
{
  return i < len ? (unsigned char) tok[i] : 0;
}

static bool
token_is (const char *tok, size_t len, const char *word)
{
  return len == strlen (word) && memcmp (tok, word, len) == 0;
}

/* Digits of BASE from *I, with single underscores between digits only. */
static int
scan_digits (struct parser *ps, const char *tok, size_t len, size_t *i, int base, struct where at)
{
  size_t start = *i;

  for (; *i < len; ++*i)
    {
      int c = tk (tok, len, *i);

      if (digit_value (c, base) >= 0)
        continue;
      if (c != '_')
        break;
      /* The previous character is a digit: an underscore before it failed. */
      if (*i == start || digit_value (tk (tok, len, *i + 1), base) < 0)
        return perr (ps, shift (at, *i), "an underscore must be between two digits");
    }
  return 0;
}

static int
make_integer (struct parser *ps, const char *tok, size_t start, size_t len, bool neg, int base,
              struct where at, struct toml_value **out)
{
  /* The magnitude is accumulated unsigned, checked before every step, so
     that nothing overflows, and INT64_MIN is still reachable. */
  uint64_t limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX, mag = 0;
  struct toml_value *v;

  for (size_t i = start; i < len; i++)
    {
      int d = digit_value (tk (tok, len, i), base);

      if (d < 0)
        continue; /* an underscore */
      if (mag > (limit - (uint64_t) d) / (uint64_t) base)
        return perr (ps, at, "integer out of range (it must fit in 64 bits, signed)");
      mag = mag * (uint64_t) base + (uint64_t) d;
    }
  if ((v = new_value (ps, TOML_INTEGER, at)) == NULL)
    return -1;
  if (! neg)
    v->u.integer = (int64_t) mag;
  else if (mag == (uint64_t) INT64_MAX + 1)
    v->u.integer = INT64_MIN;
  else
    v->u.integer = -(int64_t) mag;
  *out = v;
  return 0;
}

/* TOK has been checked against the float grammar: drop the underscores
   and let strtod, in the C locale whatever the process uses, convert it. */
static int
make_float (struct parser *ps, const char *tok, size_t len, struct where at,
            struct toml_value **out)
{
  cleanup_free char *clean = malloc (len + 1);
  struct toml_value *v;
  char *end;
  size_t n = 0;
  double d;

  if (clean == NULL)
    return oom (ps);
  for (size_t i = 0; i < len; i++)
    if (tok[i] != '_')
      clean[n++] = tok[i];
  clean[n] = '\0';
  if (ps->c_locale == (locale_t) 0)
    {
      ps->c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
      if (ps->c_locale == (locale_t) 0)
        return kg_error (ps->err, errno, "%s:%u:%u: cannot create the C locale", ps->name, at.line,
                         at.column);
    }
  errno = 0;
  d = strtod_l (clean, &end, ps->c_locale);
  if (*end != '\0')
    return perr (ps, at, "invalid float");
  if (errno == ERANGE && isinf (d))
    return perr (ps, at, "float out of range");
  if ((v = new_value (ps, TOML_FLOAT, at)) == NULL)
    return -1;
  v->u.floating = d;
  *out = v;
  return 0;
}

/* A number, or inf/nan, in the token TOK (LEN bytes of [A-Za-z0-9_+.-]). */
static int
parse_number (struct parser *ps, const char *tok, size_t len, struct where at,
              struct toml_value **out)
{
  bool neg = tok[0] == '-', is_float = false;
  size_t i = tok[0] == '+' || tok[0] == '-' ? 1 : 0, start = i;
  int prefix = tk (tok, len, i) == '0' ? tk (tok, len, i + 1) : 0;

  if (token_is (tok + i, len - i, "inf") || token_is (tok + i, len - i, "nan"))
    {
      double x = tok[i] == 'i' ? INFINITY : NAN;

      if ((*out = new_value (ps, TOML_FLOAT, at)) == NULL)
        return -1;
      (*out)->u.floating = neg ? -x : x;
      return 0;
    }
  if (prefix == 'x' || prefix == 'o' || prefix == 'b')
    {
      int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;

      if (i != 0)
        return perr (ps, at, "a sign is not allowed on hexadecimal, octal or binary integers");
      i = start = 2;
      if (scan_digits (ps, tok, len, &i, base, at) < 0)
        return -1;
      if (i == start)
        return perr (ps, shift (at, i), "expected digits after '0%c'", prefix);
      if (i < len)
        return perr (ps, shift (at, i), "invalid character '%c' in a base %d integer", tok[i],
                     base);
      return make_integer (ps, tok, start, len, false, base, at, out);
    }

  if (scan_digits (ps, tok, len, &i, 10, at) < 0)
    return -1;
  if (i == start && tk (tok, len, i) == '.')
    return perr (ps, shift (at, i), "a float needs a digit before the '.'");
  if (i == start && i < len)
    return perr (ps, shift (at, i), "expected a digit, found '%c'", tok[i]);
  if (i == start)
    return perr (ps, shift (at, i), "expected a digit after the sign");
  if (tok[start] == '0' && i - start > 1)
    return perr (ps, at, "leading zeros are not allowed in numbers");
  if (tk (tok, len, i) == '.')
    {
      size_t frac = ++i;

      if (scan_digits (ps, tok, len, &i, 10, at) < 0)
        return -1;
      if (i == frac)
        return perr (ps, shift (at, i), "a float needs a digit after the '.'");
      is_float = true;
    }
  if (tk (tok, len, i) == 'e' || tk (tok, len, i) == 'E')
    {
      size_t exp = tk (tok, len, i + 1) == '+' || tk (tok, len, i + 1) == '-' ? i + 2 : i + 1;

      i = exp;
      if (scan_digits (ps, tok, len, &i, 10, at) < 0)
        return -1;
      if (i == exp)
        return perr (ps, shift (at, i), "missing digits in the exponent");
      is_float = true;
    }
  if (i < len)
    return perr (ps, shift (at, i), "invalid character '%c' in a number", tok[i]);
  if (is_float)
    return make_float (ps, tok, len, at, out);
  return make_integer (ps, tok, start, len, neg, 10, at, out);
}

/* ---- values ---------------------------------------------------------- */

static int parse_value (struct parser *ps, unsigned depth, struct toml_value **out);

/* A number, boolean or (refused) date at the cursor. */
static int
parse_scalar (struct parser *ps, struct toml_value **out)
{
  struct where at = here (ps);
  const char *tok = ps->s + ps->pos;
  size_t len = 0;

  /* Dates (1979-05-27...) and times (07:32:00) are refused by their shape,
     before they could be misread as numbers. */
  if ((is_digit (ch (ps, 0)) && is_digit (ch (ps, 1)) && is_digit (ch (ps, 2))
       && is_digit (ch (ps, 3)) && ch (ps, 4) == '-')
      || (is_digit (ch (ps, 0)) && is_digit (ch (ps, 1)) && ch (ps, 2) == ':'))
    return perr (ps, at, "date-time values are not supported");
  while (is_bare (ch (ps, len)) || ch (ps, len) == '+' || ch (ps, len) == '.')
    len++;
  if (len == 0)
    return perr (ps, at, "expected a value, found %s", FOUND (ps));
  if (token_is (tok, len, "true") || token_is (tok, len, "false"))
    {
      if ((*out = new_value (ps, TOML_BOOLEAN, at)) == NULL)
        return -1;
      (*out)->u.boolean = tok[0] == 't';
    }
  else if (((tok[0] >= 'a' && tok[0] <= 'z') || (tok[0] >= 'A' && tok[0] <= 'Z'))
           && ! token_is (tok, len, "inf") && ! token_is (tok, len, "nan"))
    return perr (ps, at, "unknown value '%.*s' (strings must be quoted)",
                 (int) (len > 32 ? 32 : len), tok);
  else if (parse_number (ps, tok, len, at, out) < 0)
    return -1;
  ps->pos += len;
  return 0;
}

/* An array at the cursor, itself at nesting level DEPTH. */
static int
parse_array (struct parser *ps, unsigned depth, struct toml_value **out)
{
  struct where at = here (ps);
  cleanup_toml struct toml_value *a = NULL;

  if (depth + 1 > TOML_MAX_DEPTH)
    return perr (ps, at, "nesting deeper than %d levels", TOML_MAX_DEPTH);
  if ((a = new_value (ps, TOML_ARRAY, at)) == NULL)
    return -1;
  ps->pos++;
  for (;;)
    {
      struct toml_value *item = NULL;

      skip_blank (ps);
      if (ch (ps, 0) == ']')
        break;
      if (ch (ps, 0) == 0)
        return perr (ps, at, "unterminated array");
      if (parse_value (ps, depth + 1, &item) < 0)
        return -1;
      if (array_append (a, item) < 0)
        {
          toml_free (item);
          return oom (ps);
        }
      skip_blank (ps);
      if (ch (ps, 0) == ']')
        break;
      if (ch (ps, 0) == 0)
        return perr (ps, at, "unterminated array");
      if (ch (ps, 0) != ',')
        return perr (ps, here (ps), "expected ',' or ']' in the array, found %s", FOUND (ps));
      ps->pos++;
    }
  ps->pos++;
  *out = steal_pointer (&a);
  return 0;
}

/* The value at the cursor, at nesting level DEPTH, into *OUT. */
static int
parse_value (struct parser *ps, unsigned depth, struct toml_value **out)
{
  struct where at = here (ps);
  int c = ch (ps, 0);
  cleanup_free char *s = NULL;

  if (c == '[')
    return parse_array (ps, depth, out);
  if (c == '{')
    return perr (ps, at, "inline tables are not supported");
  if (c != '"' && c != '\'')
    return parse_scalar (ps, out);
  ps->line_escape = ps->crlf = false;
  if (parse_string (ps, &s) < 0 || (*out = new_value (ps, TOML_STRING, at)) == NULL)
    return -1;
  (*out)->u.string = steal_pointer (&s);
  if (ps->line_escape)
    (*out)->flags |= TOML_F_LINE_ESCAPE;
  if (ps->crlf)
    (*out)->flags |= TOML_F_CRLF;
  return 0;
}

/* ---- tables ---------------------------------------------------------- */

/* From the root through all but the last part of a header's key K,
   creating missing tables on the way. */
static int
walk_header (struct parser *ps, const struct key_path *k, struct toml_value **out)
{
  struct toml_value *t = ps->root;
  char name[KEY_MSG];

  for (size_t i = 0; i + 1 < k->n; i++)
    {
      struct toml_entry *e = find (ps, t, k->part[i].s);
      struct toml_value *v = e == NULL ? NULL : e->value;

      if (v == NULL)
        {
          /* [a.b.c] creates a and a.b; a later [a] may still define a. */
          if ((v = new_value (ps, TOML_TABLE, k->part[i].at)) == NULL)
            return -1;
          v->flags = TOML_F_IMPLICIT;
          if (insert (ps, t, k->part[i].s, v, k->part[i].at) < 0)
            return -1;
        }
      else if (v->kind == TOML_ARRAY && (v->flags & TOML_F_AOT) && v->u.array.n > 0)
        v = v->u.array.items[v->u.array.n - 1]; /* [[a]] then [a.b]: the last a */
      else if (v->kind != TOML_TABLE)
        return perr (ps, k->part[i].at, "cannot use '%s' as a table: it is already %s %s (line %u)",
                     key_for_msg (k, i + 1, name), article (v->kind), toml_kind_name (v->kind),
                     e->line);
      /* Tables made by dotted keys can get sub-tables from headers too
         (TOML 1.0: [fruit] apple.color = 1 [fruit.apple.texture]). */
      t = v;
    }
  *out = t;
  return 0;
}

/* [a.b.c], whose key is K and whose '[' is at AT. */
static int
open_table (struct parser *ps, const struct key_path *k, struct where at)
{
  const struct key_part *last = &k->part[k->n - 1];
  struct toml_value *t = NULL;
  struct toml_entry *e;
  char name[KEY_MSG];

  if (walk_header (ps, k, &t) < 0)
    return -1;
  key_for_msg (k, k->n, name);
  e = find (ps, t, last->s);
  if (e == NULL)
    {
      struct toml_value *v = new_value (ps, TOML_TABLE, at);

      if (v == NULL)
        return -1;
      v->flags = TOML_F_EXPLICIT;
      if (insert (ps, t, last->s, v, last->at) < 0)
        return -1;
      t = v;
    }
  else if (e->value->kind == TOML_ARRAY && (e->value->flags & TOML_F_AOT))
    return perr (ps, at, "cannot define table [%s]: it is an array of tables (line %u)", name,
                 e->line);
  else if (e->value->kind != TOML_TABLE)
    return perr (ps, last->at, "cannot define table [%s]: '%s' is already %s %s (line %u)", name,
                 name, article (e->value->kind), toml_kind_name (e->value->kind), e->line);
  else if (e->value->flags & TOML_F_EXPLICIT)
    return perr (ps, at, "table [%s] is defined twice (first at line %u)", name, e->value->line);
  else if (e->value->flags & TOML_F_DOTTED)
    return perr (ps, at, "table [%s] was already defined by dotted keys (line %u)", name, e->line);
  else
    {
      /* Only created as the parent of an earlier header: define it now. */
      t = e->value;
      t->flags = TOML_F_EXPLICIT;
      t->line = at.line;
      t->column = at.column;
    }
  ps->cur = t;
  ps->cur_depth = (unsigned) k->n;
  return 0;
}

/* [[a.b.c]], whose key is K and whose '[[' is at AT. */
static int
open_array_table (struct parser *ps, const struct key_path *k, struct where at)
{
  const struct key_part *last = &k->part[k->n - 1];
  struct toml_value *t = NULL, *arr;
  struct toml_entry *e;
  char name[KEY_MSG];

  if (walk_header (ps, k, &t) < 0)
    return -1;
  key_for_msg (k, k->n, name);
  e = find (ps, t, last->s);
  if (e == NULL)
    {
      arr = new_value (ps, TOML_ARRAY, at);
      if (arr == NULL)
        return -1;
      arr->flags = TOML_F_AOT;
      if (insert (ps, t, last->s, arr, last->at) < 0)
        return -1;
    }
  else if (e->value->kind == TOML_ARRAY && (e->value->flags & TOML_F_AOT))
    arr = e->value;
  else if (e->value->kind == TOML_ARRAY)
    return perr (ps, last->at, "cannot append to '%s' with [[%s]]: it is a static array (line %u)",
                 name, name, e->line);
  else
    return perr (ps, last->at, "cannot define [[%s]]: '%s' is already %s %s (line %u)", name, name,
                 article (e->value->kind), toml_kind_name (e->value->kind), e->line);

  t = new_value (ps, TOML_TABLE, at);
  if (t == NULL)
    return -1;
  t->flags = TOML_F_EXPLICIT;
  if (array_append (arr, t) < 0)
    {
      toml_free (t);
      return oom (ps);
    }
  ps->cur = t;
  ps->cur_depth = (unsigned) k->n;
  return 0;
}

static int
parse_header (struct parser *ps)
{
  cleanup_key_path struct key_path k = { 0 };
  struct where at = here (ps);
  bool aot = ch (ps, 1) == '[';

  ps->pos += aot ? 2 : 1;
  if (parse_key (ps, &k, 0) < 0)
    return -1;
  for (int i = 0; i < (aot ? 2 : 1); i++, ps->pos++)
    if (ch (ps, 0) != ']')
      return perr (ps, here (ps), "expected '%s' to close the header, found %s", aot ? "]]" : "]",
                   FOUND (ps));
  return aot ? open_array_table (ps, &k, at) : open_table (ps, &k, at);
}

static int
parse_keyval (struct parser *ps)
{
  cleanup_key_path struct key_path k = { 0 };
  struct toml_value *t = ps->cur, *v = NULL;
  const struct key_part *last;
  struct toml_entry *e;
  char name[KEY_MSG];

  if (parse_key (ps, &k, ps->cur_depth) < 0)
    return -1;
  if (ch (ps, 0) != '=')
    return perr (ps, here (ps), "expected '=' after the key '%s', found %s",
                 key_for_msg (&k, k.n, name), FOUND (ps));
  ps->pos++;
  skip_ws (ps);

  for (size_t i = 0; i + 1 < k.n; i++)
    {
      e = find (ps, t, k.part[i].s);
      if (e == NULL)
        {
          v = new_value (ps, TOML_TABLE, k.part[i].at);
          if (v == NULL)
            return -1;
          v->flags = TOML_F_DOTTED;
          if (insert (ps, t, k.part[i].s, v, k.part[i].at) < 0)
            return -1;
          t = v;
        }
      /* Dotted keys may only extend tables that dotted keys created, in
         this same section: never one a header defined (TOML 1.0). */
      else if (e->value->kind == TOML_TABLE && e->value->flags == TOML_F_DOTTED)
        t = e->value;
      else if (e->value->kind == TOML_TABLE)
        return perr (ps, k.part[i].at,
                     "cannot add to table '%s' with dotted keys: it was defined by a [header]",
                     key_for_msg (&k, i + 1, name));
      else
        return perr (ps, k.part[i].at, "cannot use '%s' as a table: it is already %s %s (line %u)",
                     key_for_msg (&k, i + 1, name), article (e->value->kind),
                     toml_kind_name (e->value->kind), e->line);
    }

  last = &k.part[k.n - 1];
  e = find (ps, t, last->s);
  if (e != NULL)
    return perr (ps, last->at, "duplicate key '%s' (first defined at line %u)",
                 key_for_msg (&k, k.n, name), e->line);
  if (parse_value (ps, ps->cur_depth + (unsigned) k.n, &v) < 0)
    return -1;
  return insert (ps, t, last->s, v, last->at);
}

static int
parse_document (struct parser *ps)
{
  for (;;)
    {
      const char *what = "the line";
      int c;

      skip_ws (ps);
      c = ch (ps, 0);
      if (c == '[')
        {
          if (parse_header (ps) < 0)
            return -1;
          what = "the table header";
        }
      else if (c != '#' && c != '\n' && c != '\r' && c != 0)
        {
          if (parse_keyval (ps) < 0)
            return -1;
          what = "the value";
        }
      skip_ws (ps);
      skip_comment (ps);
      if (ps->pos >= ps->len)
        return 0;
      if (! eat_newline (ps))
        return perr (ps, here (ps), "expected the end of the line after %s, found %s", what,
                     FOUND (ps));
    }
}

/* ---- the API --------------------------------------------------------- */

struct toml_value *
toml_parse (const char *name, const char *data, size_t len, kg_error_t *err)
{
  cleanup_parser struct parser ps = {
    .name = name != NULL ? name : "<input>",
    .s = data,
    .len = len,
    .line = 1,
    .err = err,
  };

  if (len > TOML_MAX_SIZE)
    {
      kg_error (err, 0, "%s:1:1: larger than %d bytes", ps.name, TOML_MAX_SIZE);
      return NULL;
    }
  if (data == NULL && len > 0)
    {
      kg_error (err, 0, "%s:1:1: no data", ps.name);
      return NULL;
    }
  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    ps.pos = ps.line_start = 3; /* columns count from after the BOM */
  if (check_bytes (&ps) < 0)
    return NULL;
  ps.root = new_value (&ps, TOML_TABLE, (struct where){ 1, 1 });
  if (ps.root == NULL)
    return NULL;
  ps.cur = ps.root;
  if (parse_document (&ps) < 0)
    return NULL;
  return steal_pointer (&ps.root);
}

struct toml_value *
toml_parse_file (const char *path, kg_error_t *err)
{
  cleanup_free char *data = NULL;
  size_t len = 0;

  if (kg_read_file_bounded (path, 0, TOML_MAX_SIZE, &data, &len, err) < 0)
    return NULL;
  return toml_parse (path, data, len, err);
}

const struct toml_value *
toml_get (const struct toml_value *table, const char *key)
{
  size_t i;

  if (table == NULL || key == NULL || table->kind != TOML_TABLE)
    return NULL;
  i = table_index (table, key);
  return i < table->u.table.n ? table->u.table.items[i].value : NULL;
}

const struct toml_value *
toml_get_path (const struct toml_value *root, ...)
{
  const char *key;
  va_list ap;

  va_start (ap, root);
  while (root != NULL && (key = va_arg (ap, const char *)) != NULL)
    root = toml_get (root, key);
  va_end (ap);
  return root;
}

bool
toml_equal (const struct toml_value *a, const struct toml_value *b)
{
  if (a == NULL || b == NULL || a->kind != b->kind)
    return a == b;
  switch (a->kind)
    {
    case TOML_STRING:
      return strcmp (a->u.string, b->u.string) == 0;
    case TOML_INTEGER:
      return a->u.integer == b->u.integer;
    case TOML_FLOAT:
      /* Bit for bit: nan equals the same nan, -0.0 is not 0.0. */
      return memcmp (&a->u.floating, &b->u.floating, sizeof a->u.floating) == 0;
    case TOML_BOOLEAN:
      return a->u.boolean == b->u.boolean;
    case TOML_ARRAY:
      if (a->u.array.n != b->u.array.n)
        return false;
      for (size_t i = 0; i < a->u.array.n; i++)
        if (! toml_equal (a->u.array.items[i], b->u.array.items[i]))
          return false;
      return true;
    case TOML_TABLE:
      /* Keys are unique within a table: same count, every key of A in B
         with an equal value. */
      if (a->u.table.n != b->u.table.n)
        return false;
      for (size_t i = 0; i < a->u.table.n; i++)
        if (! toml_equal (a->u.table.items[i].value, toml_get (b, a->u.table.items[i].key)))
          return false;
      return true;
    }
  return false;
}

struct toml_value *
toml_remove (struct toml_value *table, const char *key)
{
  struct toml_value *v;
  size_t i;

  if (table == NULL || table->kind != TOML_TABLE)
    return NULL;
  i = table_index (table, key);
  if (i >= table->u.table.n)
    return NULL;
  v = table->u.table.items[i].value;
  free (table->u.table.items[i].key);
  memmove (&table->u.table.items[i], &table->u.table.items[i + 1],
           (table->u.table.n - i - 1) * sizeof table->u.table.items[0]);
  table->u.table.n--;
  return v;
}

const char *
toml_kind_name (enum toml_kind kind)
{
  static const char *const names[] = {
    [TOML_STRING] = "string",   [TOML_INTEGER] = "integer", [TOML_FLOAT] = "float",
    [TOML_BOOLEAN] = "boolean", [TOML_ARRAY] = "array",     [TOML_TABLE] = "table",
  };

  return (unsigned) kind < ARRAY_SIZE (names) ? names[kind] : "unknown";
}

/* Move SRC's entries into DST.  Parsed trees have at most TOML_MAX_DEPTH
   levels of tables, so the bound only guards against hand-made ones. */
static int
merge_tables (struct toml_value *dst, struct toml_value *src, unsigned depth, kg_error_t *err)
{
  if (depth > TOML_MAX_DEPTH)
    return kg_error (err, 0, "cannot merge: tables nested deeper than %d levels", TOML_MAX_DEPTH);
  for (size_t i = 0; i < src->u.table.n; i++)
    {
      struct toml_entry *s = &src->u.table.items[i], *d;
      size_t j;

      if (s->key == NULL || s->value == NULL)
        continue;
      j = table_index (dst, s->key);
      d = j < dst->u.table.n ? &dst->u.table.items[j] : NULL;
      if (d == NULL)
        {
          if (table_append (dst, s->key, s->value, s->line, s->column) < 0)
            return kg_error (err, ENOMEM, "cannot merge");
          s->key = NULL;
          s->value = NULL;
        }
      else if (d->value != NULL && d->value->kind == TOML_TABLE && s->value->kind == TOML_TABLE)
        {
          if (merge_tables (d->value, s->value, depth + 1, err) < 0)
            return -1;
        }
      else
        {
          /* The later file wins, whatever either value is. */
          toml_free (d->value);
          d->value = steal_pointer (&s->value);
          d->line = s->line;
          d->column = s->column;
        }
    }
  return 0;
}

int
toml_merge (struct toml_value *dst, struct toml_value *src, kg_error_t *err)
{
  cleanup_toml struct toml_value *owned = NULL;

  /* Merging a tree into itself is a caller's bug; freeing SRC would free
     DST under the caller, so in that one case SRC is left alone. */
  if (src != NULL && dst == src)
    return kg_error (err, EINVAL, "cannot merge a TOML tree into itself");
  owned = src;
  if (dst == NULL || src == NULL || dst->kind != TOML_TABLE || src->kind != TOML_TABLE)
    return kg_error (err, EINVAL, "cannot merge: both sides must be tables");
  /* On failure DST may be partly merged; callers give up on it then. */
  return merge_tables (dst, src, 0, err);
}
