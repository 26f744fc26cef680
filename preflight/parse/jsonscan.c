/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON grammar (jsonscan.h): a recursive-descent scanner over a
 * buffer or a file read through a fixed buffer, which checks everything
 * it reads and hands keys and values to its caller as events.  Lines are
 * counted in white space alone: a raw newline anywhere else is an error,
 * so that is where every line ends.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "jsonscan.h"
#include "text.h"

#define READ_CHUNK (1 << 16)

struct key_seen
{
  char *s; /* decoded */
  size_t n;
  unsigned line, col;
};

struct key_list
{
  struct key_seen *items;
  size_t n, cap;
};

/* Where the value being read sits: one frame per open object or array,
   the innermost first, for a message that names it by its path. */
struct frame
{
  struct frame *up;
  bool array;
  size_t at; /* object: the offset of its current member's key */
  size_t i;  /* array: the index of its current item */
};

struct rd
{
  struct json_scanner *s;
  int fd;                   /* -1: the whole text is in CUR */
  const unsigned char *cur; /* the bytes at hand: the text, or the last read */
  size_t pos, len;          /* in CUR */
  size_t base;              /* offset of CUR[0] in the document */
  unsigned char *buf;       /* FD's buffer */
  size_t line_start;        /* offset of the current line's first byte */
  unsigned line;
  struct kg_buf text; /* the string being decoded */
  struct frame *top;  /* the innermost open object or array; NULL: none */
  bool failed;
};

/* ---- reading ---- */

static bool
fill (struct rd *r)
{
  ssize_t n;

  if (r->fd < 0 || r->failed)
    return false;
  do
    n = read (r->fd, r->buf, READ_CHUNK);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      r->s->errnum = errno;
      r->s->code = JSON_E_READ;
      snprintf (r->s->what, sizeof r->s->what, "cannot be read: %s", strerror (errno));
      r->failed = true;
      return false;
    }
  r->base += r->len;
  r->pos = 0;
  r->len = (size_t) n;
  if (r->base + r->len > JSCAN_MAX)
    {
      r->s->code = JSON_E_SIZE;
      snprintf (r->s->what, sizeof r->s->what, "is larger than 4 GiB");
      r->failed = true;
      return false;
    }
  return n > 0;
}

/* The next byte without taking it, or -1 at the end (or an error). */
static inline int
peek (struct rd *r)
{
  if (r->pos < r->len)
    return r->cur[r->pos];
  return fill (r) ? r->cur[r->pos] : -1;
}

static inline int
take (struct rd *r)
{
  int c = peek (r);

  if (c >= 0)
    r->pos++;
  return c;
}

static inline size_t
offset (const struct rd *r)
{
  return r->base + r->pos;
}

static void
where (const struct rd *r, size_t at, unsigned *line, unsigned *col)
{
  *line = r->line;
  *col = (unsigned) (at >= r->line_start ? at - r->line_start + 1 : 1);
}

static int fail_at (struct rd *r, size_t at, enum json_scan_code code, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static int
fail_at (struct rd *r, size_t at, enum json_scan_code code, const char *fmt, ...)
{
  va_list ap;

  if (r->failed)
    return -1;
  r->failed = true;
  r->s->code = code;
  where (r, at, &r->s->line, &r->s->col);
  va_start (ap, fmt);
  vsnprintf (r->s->what, sizeof r->s->what, fmt, ap);
  va_end (ap);
  return -1;
}

/* What is at the current position, for a message. */
static const char *
describe (struct rd *r, char buf[16])
{
  int c = peek (r);

  if (c < 0)
    return "the end of the file";
  if (c >= 0x21 && c < 0x7f)
    snprintf (buf, 16, "'%c'", c);
  else
    snprintf (buf, 16, "byte 0x%02x", (unsigned) c);
  return buf;
}

static int
skip_ws (struct rd *r)
{
  int c;

  while ((c = peek (r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
    {
      r->pos++;
      if (c == '\n')
        {
          r->line++;
          r->line_start = offset (r);
        }
    }
  return c;
}

/* ---- strings ---- */

static int
hex4 (struct rd *r, size_t esc, unsigned *out)
{
  *out = 0;
  for (int i = 0; i < 4; i++)
    {
      int c = peek (r);
      unsigned v;

      if (c >= '0' && c <= '9')
        v = (unsigned) (c - '0');
      else if (c >= 'a' && c <= 'f')
        v = (unsigned) (c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v = (unsigned) (c - 'A' + 10);
      else
        return fail_at (r, c < 0 ? esc : offset (r), JSON_E_HEX, "\\u needs four hex digits");
      r->pos++;
      *out = *out << 4 | v;
    }
  return 0;
}

static void
put_utf8 (unsigned char *out, size_t *n, unsigned cp)
{
  if (cp < 0x80)
    out[(*n)++] = (unsigned char) cp;
  else if (cp < 0x800)
    {
      out[(*n)++] = (unsigned char) (0xc0 | cp >> 6);
      out[(*n)++] = (unsigned char) (0x80 | (cp & 0x3f));
    }
  else if (cp < 0x10000)
    {
      out[(*n)++] = (unsigned char) (0xe0 | cp >> 12);
      out[(*n)++] = (unsigned char) (0x80 | ((cp >> 6) & 0x3f));
      out[(*n)++] = (unsigned char) (0x80 | (cp & 0x3f));
    }
  else
    {
      out[(*n)++] = (unsigned char) (0xf0 | cp >> 18);
      out[(*n)++] = (unsigned char) (0x80 | ((cp >> 12) & 0x3f));
      out[(*n)++] = (unsigned char) (0x80 | ((cp >> 6) & 0x3f));
      out[(*n)++] = (unsigned char) (0x80 | (cp & 0x3f));
    }
}

/* Keep the bytes P[0..N) of the string being decoded, up to LIMIT. */
static int
keep (struct rd *r, const void *p, size_t n, size_t limit, bool *truncated)
{
  if (r->text.len + n > limit)
    {
      *truncated = true;
      n = r->text.len < limit ? limit - r->text.len : 0;
    }
  if (n > 0 && kg_buf_add (&r->text, p, n) < 0)
    return fail_at (r, offset (r), JSON_E_READ, "cannot allocate");
  return 0;
}

/* Note CP at AT when json-c reads it as another and none was noted. */
static void
note_misread (struct rd *r, size_t at, uint32_t cp)
{
  if (r->s->find_misread && r->s->misread_cp == 0 && json_jsonc_misreads (cp))
    {
      r->s->misread_cp = cp;
      where (r, at, &r->s->misread_line, &r->s->misread_col);
    }
}

/* The bytes a string holds as they are: printable ASCII but the quote
   and the backslash. */
static const bool plain[256] = { [0x20 ... 0x21] = true,
                                 /* '"' */ [0x23 ... 0x5b] = true,
                                 /* '\\' */ [0x5d ... 0x7f] = true };

/* Whether the eight bytes at P are all plain: none past ASCII, none
   below 0x20, no quote, no backslash (each test exact for "any byte",
   once the high bits are known clear). */
static inline bool
plain8 (const unsigned char *p)
{
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  uint64_t x, q, b;

  memcpy (&x, p, 8);
  q = x ^ (ones * '"');
  b = x ^ (ones * '\\');
  return ((x | ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high) == 0;
}

static int fail_nul (struct rd *r, size_t at);

/* A string at the current position (its opening quote).  Decoded into
   r->text up to LIMIT bytes (0: not at all); KEY: a key (\u0000 refused
   when keys are kept).  A value holding \u0000 is refused: the guard
   reads strings as C strings, cut there, and the runtimes' decoders (Go's
   encoding/json, serde) keep what follows it. */
static int
string (struct rd *r, size_t limit, bool key, bool *escaped, bool *truncated)
{
  size_t start = offset (r);
  bool decode = limit > 0;

  *escaped = *truncated = false;
  r->text.len = 0;
  r->pos++;
  for (;;)
    {
      int c = peek (r);

      if (c < 0)
        return r->failed ? -1 : fail_at (r, start, JSON_E_UNTERMINATED, "unterminated string");
      if (c == '"')
        break;
      if (c < 0x20)
        return fail_at (r, offset (r), JSON_E_CONTROL,
                        "control character 0x%02x in a string (write it as an escape)",
                        (unsigned) c);
      if (c == '\\')
        {
          size_t esc = offset (r);
          unsigned cp, lo;
          unsigned char u[4];
          size_t n = 0;

          *escaped = true;
          r->pos++;
          c = take (r);
          switch (c)
            {
            case '"':
            case '\\':
            case '/':
              cp = (unsigned) c;
              break;
            case 'b':
              cp = '\b';
              break;
            case 'f':
              cp = '\f';
              break;
            case 'n':
              cp = '\n';
              break;
            case 'r':
              cp = '\r';
              break;
            case 't':
              cp = '\t';
              break;
            case 'u':
              if (hex4 (r, esc, &cp) < 0)
                return -1;
              if (cp >= 0xdc00 && cp <= 0xdfff)
                return fail_at (r, esc, JSON_E_SURROGATE, "\\u%04x is a lone low surrogate", cp);
              if (cp >= 0xd800 && cp <= 0xdbff)
                {
                  if (peek (r) != '\\')
                    return fail_at (r, esc, JSON_E_SURROGATE, "\\u%04x is a lone high surrogate",
                                    cp);
                  r->pos++;
                  if (peek (r) != 'u')
                    return fail_at (r, esc, JSON_E_SURROGATE, "\\u%04x is a lone high surrogate",
                                    cp);
                  r->pos++;
                  if (hex4 (r, esc, &lo) < 0)
                    return -1;
                  if (lo < 0xdc00 || lo > 0xdfff)
                    return fail_at (r, esc, JSON_E_SURROGATE, "\\u%04x is a lone high surrogate",
                                    cp);
                  cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                  note_misread (r, esc, cp);
                }
              if (cp == 0 && key && r->s->keep_keys)
                return fail_at (r, esc, JSON_E_KEY_NUL, "a key holds \\u0000");
              if (cp == 0 && ! key)
                return fail_nul (r, esc);
              break;
            default:
              if (c < 0 && r->failed)
                return -1;
              if (c < 0)
                return fail_at (r, start, JSON_E_UNTERMINATED, "unterminated string");
              return fail_at (r, esc, JSON_E_ESCAPE, "unknown escape \\%c",
                              c >= 0x20 && c < 0x7f ? c : '?');
            }
          if (decode)
            {
              put_utf8 (u, &n, cp);
              if (keep (r, u, n, limit, truncated) < 0)
                return -1;
            }
          continue;
        }
      if (c < 0x80)
        {
          /* A run of plain bytes in the buffer at hand at once. */
          size_t from = r->pos;

          /* Eight bytes at a time while none of them ends the run. */
          while (r->len - r->pos >= 8 && plain8 (r->cur + r->pos))
            r->pos += 8;
          while (r->pos < r->len && plain[(unsigned char) r->cur[r->pos]])
            r->pos++;
          if (decode && keep (r, r->cur + from, r->pos - from, limit, truncated) < 0)
            return -1;
          continue;
        }
      {
        /* A multi-byte character, perhaps across two reads. */
        unsigned char u[4];
        size_t at = offset (r), want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2, n = 0;

        while (n < want && (c = peek (r)) >= 0 && (n == 0 || (c & 0xc0) == 0x80))
          {
            u[n++] = (unsigned char) c;
            r->pos++;
          }
        if (r->failed)
          return -1;
        if (kg_utf8_len (u, n) != n || n != want)
          return fail_at (r, at, JSON_E_UTF8, "invalid UTF-8");
        if (n == 4 && r->s->find_misread)
          {
            size_t k;

            note_misread (r, at, kg_utf8_decode (u, &k));
          }
        if (decode && keep (r, u, n, limit, truncated) < 0)
          return -1;
      }
    }
  r->pos++;
  /* Even an empty string is a C string (kg_buf keeps S[LEN] a NUL). */
  if (decode && kg_buf_add (&r->text, NULL, 0) < 0)
    return fail_at (r, offset (r), JSON_E_READ, "cannot allocate");
  return 0;
}

/* ---- the path of a value, for a message ---- */

/* Whether KEY[0..N) can be written .KEY in a path: a letter or '_' first,
   then letters, digits and '_' ("mounts", "hostID"); any other is written
   ["KEY"] ("io.katacontainers.config.hypervisor.kernel_params"). */
static bool
plain_name (const char *k, size_t n)
{
  if (n == 0 || ! (k[0] == '_' || ((k[0] | 0x20) >= 'a' && (k[0] | 0x20) <= 'z')))
    return false;
  for (size_t i = 1; i < n; i++)
    if (! (k[i] == '_' || (k[i] >= '0' && k[i] <= '9')
           || ((k[i] | 0x20) >= 'a' && (k[i] | 0x20) <= 'z')))
      return false;
  return true;
}

/* The key of object frame F, decoded again from the text (a scan of a
   buffer holds it whole), appended to T. */
static void
path_key (struct rd *r, const struct frame *f, struct kg_buf *t)
{
  struct rd k = { .s = r->s, .fd = -1, .cur = r->cur, .len = r->len, .pos = f->at, .line = 1 };
  bool escaped, cut, bare;

  /* It was read once already: it decodes. */
  if (string (&k, 64, true, &escaped, &cut) < 0 || k.text.s == NULL)
    {
      sb_printf (t, "%s?", f->up != NULL ? "." : "");
      kg_buf_release (&k.text);
      return;
    }
  if (cut) /* (not in the middle of a character) */
    k.text.len = kg_utf8_valid_prefix (k.text.s, k.text.len);
  bare = ! cut && plain_name (k.text.s, k.text.len);
  sb_printf (t, "%s", bare ? (f->up != NULL ? "." : "") : "[\"");
  for (size_t i = 0; i < k.text.len; i++)
    {
      unsigned char c = (unsigned char) k.text.s[i];

      if (c == '"' || c == '\\')
        sb_printf (t, "\\%c", c);
      else if (c < 0x20 || c == 0x7f)
        sb_printf (t, "\\u%04x", c);
      else
        kg_buf_add (t, &k.text.s[i], 1);
    }
  sb_printf (t, "%s%s", cut ? "..." : "", bare ? "" : "\"]");
  kg_buf_release (&k.text);
}

/* Append the path of F, its outer frames first, to T. */
static void
path_of (struct rd *r, const struct frame *f, struct kg_buf *t)
{
  if (f == NULL)
    return;
  path_of (r, f->up, t);
  if (f->array)
    sb_printf (t, "[%zu]", f->i);
  else
    path_key (r, f, t);
}

/* A string value holding \u0000 (its escape at AT): refused, naming
   where it is ("mounts[2].options[0]", "the document"; in a scan of a
   file, whose keys are gone, "a string"). */
static int
fail_nul (struct rd *r, size_t at)
{
  cleanup_kg_buf struct kg_buf t = { .max = 120 };

  if (r->fd >= 0)
    sb_printf (&t, "a string");
  else
    path_of (r, r->top, &t);
  return fail_at (r, at, JSON_E_NUL,
                  "%s%s holds U+0000 (Go's and Rust's decoders keep what "
                  "follows it)",
                  t.len > 0 ? sb_str (&t) : "the document", t.failed ? "..." : "");
}

/* ---- numbers and literals ---- */

static int
digits (struct rd *r, char *text, size_t *tn, size_t size)
{
  int c;
  size_t n = 0;

  while ((c = peek (r)) >= '0' && c <= '9')
    {
      if (*tn + 1 < size)
        text[(*tn)++] = (char) c;
      r->pos++;
      n++;
    }
  return (int) (n > 0);
}

static int
number (struct rd *r)
{
  size_t start = offset (r), tn = 0, first;
  char text[64];
  bool neg = false, integer = true;
  int c;

  if (peek (r) == '-')
    {
      neg = true;
      text[tn++] = '-';
      r->pos++;
    }
  first = tn;
  c = peek (r);
  if (c < '0' || c > '9')
    return r->failed ? -1 : fail_at (r, start, JSON_E_NUMBER, "a number needs digits");
  if (c == '0')
    {
      text[tn++] = '0';
      r->pos++;
      c = peek (r);
      if (c >= '0' && c <= '9')
        return fail_at (r, start, JSON_E_NUMBER, "a number must not start with 0");
    }
  else
    digits (r, text, &tn, sizeof text);
  {
    /* Its digits, counted even past what TEXT keeps. */
    size_t ndig = offset (r) - start - (neg ? 1 : 0);

    if (peek (r) == '.')
      {
        integer = false;
        r->pos++;
        if (! digits (r, text, &tn, 0))
          return r->failed ? -1
                           : fail_at (r, start, JSON_E_NUMBER, "a number needs digits after '.'");
      }
    c = peek (r);
    if (c == 'e' || c == 'E')
      {
        integer = false;
        r->pos++;
        c = peek (r);
        if (c == '+' || c == '-')
          r->pos++;
        if (! digits (r, text, &tn, 0))
          return r->failed
                     ? -1
                     : fail_at (r, start, JSON_E_NUMBER, "a number needs digits in its exponent");
      }
    if (r->failed)
      return -1;
    if (integer)
      {
        /* json-c keeps integers as int64 or uint64 and clamps the rest
           without a word: refuse what it could not keep exactly. */
        const char *limit = neg ? "9223372036854775808" : "18446744073709551615";
        size_t ln = strlen (limit);

        if (ndig > ln || (ndig == ln && memcmp (text + first, limit, ln) > 0))
          return fail_at (r, start, JSON_E_RANGE, "integer %.*s%s is outside the 64-bit range",
                          (int) tn, text, ndig + first > tn ? "..." : "");
      }
  }
  return 0;
}

static int
literal (struct rd *r, const char *word)
{
  size_t at = offset (r);

  for (const char *p = word; *p; p++)
    if (take (r) != (unsigned char) *p)
      return r->failed
                 ? -1
                 : fail_at (r, at, JSON_E_LITERAL, "expected a value (did you mean %s?)", word);
  return 0;
}

/* ---- objects and arrays ---- */

static int
emit (struct rd *r, struct json_event *ev)
{
  const char *why = NULL;

  if (r->s->on_event == NULL || r->s->on_event (r->s->arg, ev, &why) == 0)
    return 0;
  return fail_at (r, offset (r), JSON_E_CALLER, "%s", why ? why : "refused");
}

static void
key_list_free (struct key_list *l)
{
  for (size_t i = 0; i < l->n; i++)
    free (l->items[i].s);
  free (l->items);
}
#define cleanup_keys __attribute__ ((cleanup (key_list_free)))

static int
key_cmp (const void *a, const void *b)
{
  const struct key_seen *x = a, *y = b;
  int c;

  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  c = memcmp (x->s, y->s, x->n);
  if (c != 0)
    return c;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->col < y->col ? -1 : x->col > y->col;
}

/* json-c keeps the last of two equal keys and drops the first value: an
   edit would lose it, so a duplicate is an error (the second one named). */
static int
check_duplicates (struct rd *r, struct key_list *keys)
{
  const struct key_seen *dup = NULL, *first = NULL;

  if (keys->n < 2)
    return 0;
  qsort (keys->items, keys->n, sizeof *keys->items, key_cmp);
  /* Equal keys are now together, each group in document order: its first
     item is the original, its second the first duplicate. */
  for (size_t i = 0, g; i < keys->n; i = g)
    {
      const struct key_seen *a = &keys->items[i];

      for (g = i + 1; g < keys->n; g++)
        if (keys->items[g].n != a->n || memcmp (keys->items[g].s, a->s, a->n) != 0)
          break;
      if (g - i > 1
          && (dup == NULL || keys->items[i + 1].line < dup->line
              || (keys->items[i + 1].line == dup->line && keys->items[i + 1].col < dup->col)))
        {
          first = a;
          dup = &keys->items[i + 1];
        }
    }
  if (dup == NULL)
    return 0;
  r->failed = true;
  r->s->code = JSON_E_DUPLICATE;
  r->s->line = dup->line;
  r->s->col = dup->col;
  snprintf (r->s->what, sizeof r->s->what, "duplicate key \"%.64s\" (first at line %u)", dup->s,
            first->line);
  return -1;
}

static int value (struct rd *r, unsigned depth);

/* A key at the current position, decoded (whole when keys are kept),
   handed on, and kept in KEYS. */
static int
object_key (struct rd *r, unsigned depth, struct key_list *keys)
{
  struct json_event ev = { .kind = JSON_EV_KEY, .depth = depth };
  size_t limit = r->s->keep_keys ? SIZE_MAX : r->s->decode_max;
  unsigned line, col;

  where (r, offset (r), &line, &col);
  if (string (r, limit, true, &ev.escaped, &ev.truncated) < 0)
    return -1;
  ev.text = limit > 0 ? r->text.s : "";
  ev.len = limit > 0 ? r->text.len : 0;
  if (r->s->keep_keys)
    {
      struct key_seen *k;

      if (keys->n == keys->cap)
        {
          size_t cap = keys->cap ? keys->cap * 2 : 16;
          struct key_seen *items = realloc (keys->items, cap * sizeof *items);

          if (items == NULL)
            return fail_at (r, offset (r), JSON_E_READ, "cannot allocate");
          keys->items = items;
          keys->cap = cap;
        }
      k = &keys->items[keys->n];
      k->s = malloc (r->text.len + 1);
      if (k->s == NULL)
        return fail_at (r, offset (r), JSON_E_READ, "cannot allocate");
      memcpy (k->s, r->text.s, r->text.len + 1);
      k->n = r->text.len;
      k->line = line;
      k->col = col;
      keys->n++;
    }
  return emit (r, &ev);
}

static int
object (struct rd *r, unsigned depth)
{
  cleanup_keys struct key_list keys = { 0 };
  char b[16];
  int c;

  r->pos++;
  c = skip_ws (r);
  if (c == '}')
    return r->pos++, 0;
  for (;;)
    {
      if (c != '"')
        return r->failed ? -1
                         : fail_at (r, offset (r), JSON_E_KEY,
                                    "expected a key in double quotes, found %s", describe (r, b));
      r->top->at = offset (r);
      if (object_key (r, depth, &keys) < 0)
        return -1;
      if (skip_ws (r) != ':')
        return r->failed ? -1
                         : fail_at (r, offset (r), JSON_E_COLON,
                                    "expected ':' after the key, found %s", describe (r, b));
      r->pos++;
      skip_ws (r);
      if (value (r, depth) < 0)
        return -1;
      c = skip_ws (r);
      if (c == ',')
        {
          r->pos++;
          c = skip_ws (r);
          continue;
        }
      if (c == '}')
        {
          r->pos++;
          return check_duplicates (r, &keys);
        }
      return r->failed ? -1
                       : fail_at (r, offset (r), JSON_E_COMMA,
                                  "expected ',' or '}' in an object, found %s", describe (r, b));
    }
}

static int
array (struct rd *r, unsigned depth)
{
  char b[16];
  int c;

  r->pos++;
  if (skip_ws (r) == ']')
    return r->pos++, 0;
  for (size_t i = 0;; i++)
    {
      r->top->i = i;
      if (value (r, depth) < 0)
        return -1;
      c = skip_ws (r);
      if (c == ',')
        {
          r->pos++;
          skip_ws (r);
          continue;
        }
      if (c == ']')
        return r->pos++, 0;
      return r->failed ? -1
                       : fail_at (r, offset (r), JSON_E_COMMA,
                                  "expected ',' or ']' in an array, found %s", describe (r, b));
    }
}

/* A value at the current position, held by a container DEPTH deep. */
static int
value (struct rd *r, unsigned depth)
{
  struct json_event ev = { .depth = depth };
  char b[16];
  int c = peek (r);

  switch (c)
    {
    case '{':
    case '[':
      if (depth >= r->s->max_depth)
        return fail_at (r, offset (r), JSON_E_DEPTH, "nested deeper than %u levels",
                        r->s->max_depth);
      ev.kind = c == '{' ? JSON_EV_OBJECT : JSON_EV_ARRAY;
      if (emit (r, &ev) < 0)
        return -1;
      {
        struct frame f = { .up = r->top, .array = c == '[' };
        int rc;

        r->top = &f;
        rc = c == '{' ? object (r, depth + 1) : array (r, depth + 1);
        r->top = f.up;
        return rc;
      }
    case '"':
      ev.kind = JSON_EV_STRING;
      if (string (r, r->s->decode_max, false, &ev.escaped, &ev.truncated) < 0)
        return -1;
      ev.text = r->s->decode_max > 0 ? r->text.s : "";
      ev.len = r->s->decode_max > 0 ? r->text.len : 0;
      return emit (r, &ev);
    case 't':
    case 'f':
    case 'n':
      ev.kind = JSON_EV_LITERAL;
      ev.literal = (char) c;
      if (literal (r, c == 't' ? "true" : c == 'f' ? "false" : "null") < 0)
        return -1;
      return emit (r, &ev);
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        {
          size_t from = r->pos;

          ev.kind = JSON_EV_NUMBER;
          if (number (r) < 0)
            return -1;
          /* Its text, where the whole document is at hand. */
          if (r->fd < 0)
            {
              ev.text = (const char *) r->cur + from;
              ev.len = r->pos - from;
            }
          return emit (r, &ev);
        }
      if (r->failed)
        return -1;
      if (c < 0)
        return fail_at (r, offset (r), JSON_E_VALUE, "expected a value, found the end of the file");
      return fail_at (r, offset (r), JSON_E_VALUE, "expected a value, found %s", describe (r, b));
    }
}

int
json_scan (struct json_scanner *s, int fd, const char *data, size_t len)
{
  struct rd r = { .s = s, .fd = fd, .line = 1 };
  char b[16];
  int rc;

  s->code = JSON_OK;
  s->line = s->col = 0;
  s->errnum = 0;
  s->what[0] = '\0';
  s->misread_cp = 0;
  s->misread_line = s->misread_col = 0;
  if (fd >= 0)
    {
      r.buf = malloc (READ_CHUNK);
      if (r.buf == NULL)
        return fail_at (&r, 0, JSON_E_READ, "cannot allocate");
      r.cur = r.buf;
    }
  else
    {
      r.cur = (const unsigned char *) data;
      r.len = len;
    }
  skip_ws (&r);
  rc = value (&r, 0);
  if (rc == 0 && skip_ws (&r) >= 0)
    rc = fail_at (&r, offset (&r), JSON_E_TRAILING, "data after the JSON document: %s",
                  describe (&r, b));
  if (rc == 0 && r.failed)
    rc = -1; /* a read failed at the end */
  free (r.buf);
  kg_buf_release (&r.text);
  return rc;
}

/* ---- the strict grammar check (daemon.json, config.json) ---- */

int
json_strict_scan (const char *name, const char *data, size_t len, kg_error_t *misread,
                  kg_error_t *err)
{
  struct json_scanner s = { .max_depth = JSON_STRICT_MAX_DEPTH,
                            .keep_keys = true,
                            .find_misread = true };

  if (json_scan (&s, -1, data, len) < 0)
    return kg_error (err, 0, "%s:%u:%u: %s", name, s.line, s.col, s.what);
  if (s.misread_cp != 0)
    kg_error (misread, 0,
              "%s:%u:%u: U+%04" PRIX32 " is read as another character by json-c, the guard's "
              "reader of this file (Go reads it as it is): write the file without it",
              name, s.misread_line, s.misread_col, s.misread_cp);
  return 0;
}

/* ---- one top-level string (an engine's file, streamed) ---- */

/* Deeper than any engine writes; bounds the recursion. */
#define JSCAN_DEPTH 512

struct want
{
  const char *key;
  char *out;
  size_t size;
  bool started, found, null, mine;
};

static int
want_event (void *arg, const struct json_event *ev, const char **why)
{
  struct want *w = arg;

  if (ev->depth == 0)
    {
      w->started = true;
      if (ev->kind != JSON_EV_OBJECT)
        return *why = "is not a JSON object", -1;
      return 0;
    }
  if (ev->depth != 1)
    return 0;
  if (ev->kind == JSON_EV_KEY)
    {
      /* An escaped or long key could spell the key asked for. */
      if (ev->escaped)
        return *why = "has an object key written with escapes", -1;
      w->mine = ! ev->truncated && strcmp (ev->text, w->key) == 0;
      if (w->mine && w->found)
        return *why = "has its key twice", -1;
      w->found |= w->mine;
      return 0;
    }
  if (! w->mine)
    return 0;
  w->mine = false;
  if (ev->kind == JSON_EV_LITERAL && ev->literal == 'n')
    return w->null = true, 0;
  if (ev->kind != JSON_EV_STRING)
    return *why = "has the value of another type than a string", -1;
  if (ev->escaped || ev->truncated || ev->len >= w->size)
    return *why = "has the value written with escapes, too long, or not UTF-8", -1;
  memcpy (w->out, ev->text, ev->len + 1);
  return 0;
}

/* What jscan says of a grammar error: "NAME is not JSON (...)". */
static const char *
jscan_words (const struct json_scanner *s)
{
  switch (s->code)
    {
    case JSON_E_UNTERMINATED:
      return "is not JSON (a string does not end)";
    case JSON_E_CONTROL:
      return "is not JSON (a control byte in a string)";
    case JSON_E_ESCAPE:
      return "is not JSON (a bad escape)";
    case JSON_E_HEX:
      return "is not JSON (a bad \\u escape)";
    case JSON_E_SURROGATE:
      return "is not JSON (a lone surrogate)";
    case JSON_E_UTF8:
      return "is not JSON (text that is not UTF-8)";
    case JSON_E_NUMBER:
    case JSON_E_RANGE:
      return "is not JSON (a bad number)";
    case JSON_E_KEY:
      return "is not JSON (an object key is not a string)";
    case JSON_E_COLON:
      return "is not JSON (no ':' after a key)";
    case JSON_E_COMMA:
      return strstr (s->what, "end of the file") ? "is not JSON (it ends early)"
                                                 : "is not JSON (no ',' between members)";
    case JSON_E_LITERAL:
      return "is not JSON (a bad literal)";
    case JSON_E_VALUE:
      return strstr (s->what, "end of the file") ? "is not JSON (it ends early)"
                                                 : "is not JSON (an unexpected byte)";
    case JSON_E_DEPTH:
      return "is nested too deeply";
    case JSON_E_TRAILING:
      return "has data after the JSON object";
    default:
      return s->what;
    }
}

static int
jscan_run (int fd, const char *buf, size_t len, const char *name, const char *key, char *out,
           size_t size, kg_error_t *err)
{
  struct want w = { .key = key, .out = out, .size = size };
  struct json_scanner s = {
    .max_depth = JSCAN_DEPTH, .decode_max = size, .on_event = want_event, .arg = &w
  };

  if (size > 0)
    out[0] = '\0';
  if (json_scan (&s, fd, buf, len) < 0)
    {
      const char *words = s.code == JSON_E_CALLER ? s.what : jscan_words (&s);

      /* Nothing, or no value the document could begin with. */
      if (! w.started && s.code != JSON_E_READ && s.code != JSON_E_SIZE)
        words = "is not a JSON object";
      return kg_error (err, s.errnum, "%s %s (reading its \"%s\")", name, words, key);
    }
  return w.found && ! w.null ? 1 : 0;
}

int
jscan_top_string_mem (const char *buf, size_t len, const char *key, char *out, size_t size,
                      kg_error_t *err)
{
  return jscan_run (-1, buf, len, "the document", key, out, size, err);
}

int
jscan_top_string (const char *path, const char *key, char *out, size_t size, kg_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    return kg_error (err, errno, "%s", path);
  return jscan_run (fd, NULL, 0, path, key, out, size, err);
}
