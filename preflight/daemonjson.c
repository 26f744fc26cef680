/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Docker's daemon.json: the strict reader (daemonjson.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemonjson.h"
#include "util.h"

/* ---- the strict grammar check ---------------------------------------------- */

struct key_seen
{
  char *s; /* decoded */
  size_t n;
  size_t pos; /* of its opening quote */
};

struct scan
{
  const char *name;
  const unsigned char *s;
  size_t len, pos;
  kg_error_t *err;
};

static void
line_col (const struct scan *j, size_t at, unsigned *line, unsigned *col)
{
  size_t start = 0;

  *line = 1;
  for (size_t i = 0; i < at && i < j->len; i++)
    if (j->s[i] == '\n')
      {
        (*line)++;
        start = i + 1;
      }
  *col = (unsigned) (at - start + 1);
}

static int scan_error (struct scan *j, size_t at, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static int
scan_error (struct scan *j, size_t at, const char *fmt, ...)
{
  cleanup_free char *what = NULL;
  unsigned line, col;
  va_list ap;
  int rc;

  va_start (ap, fmt);
  rc = vasprintf (&what, fmt, ap);
  va_end (ap);
  if (rc < 0)
    return kg_error (j->err, ENOMEM, "%s: cannot allocate", j->name);
  line_col (j, at, &line, &col);
  return kg_error (j->err, 0, "%s:%u:%u: %s", j->name, line, col, what);
}

static const char *
describe (struct scan *j, char buf[16])
{
  unsigned char c;

  if (j->pos >= j->len)
    return "the end of the file";
  c = j->s[j->pos];
  if (c >= 0x21 && c < 0x7f)
    snprintf (buf, 16, "'%c'", c);
  else
    snprintf (buf, 16, "byte 0x%02x", c);
  return buf;
}

static void
skip_ws (struct scan *j)
{
  while (j->pos < j->len
         && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' || j->s[j->pos] == '\n'
             || j->s[j->pos] == '\r'))
    j->pos++;
}

static int
hex4 (struct scan *j, size_t at, unsigned *out)
{
  *out = 0;
  if (j->len - at < 4)
    return scan_error (j, at, "\\u needs four hex digits");
  for (size_t i = 0; i < 4; i++)
    {
      unsigned char c = j->s[at + i];
      unsigned v;

      if (c >= '0' && c <= '9')
        v = c - '0';
      else if (c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
      else
        return scan_error (j, at + i, "\\u needs four hex digits");
      *out = *out << 4 | v;
    }
  return 0;
}

static void
put_utf8 (char *out, size_t *n, unsigned cp)
{
  if (cp < 0x80)
    out[(*n)++] = (char) cp;
  else if (cp < 0x800)
    {
      out[(*n)++] = (char) (0xc0 | cp >> 6);
      out[(*n)++] = (char) (0x80 | (cp & 0x3f));
    }
  else if (cp < 0x10000)
    {
      out[(*n)++] = (char) (0xe0 | cp >> 12);
      out[(*n)++] = (char) (0x80 | ((cp >> 6) & 0x3f));
      out[(*n)++] = (char) (0x80 | (cp & 0x3f));
    }
  else
    {
      out[(*n)++] = (char) (0xf0 | cp >> 18);
      out[(*n)++] = (char) (0x80 | ((cp >> 12) & 0x3f));
      out[(*n)++] = (char) (0x80 | ((cp >> 6) & 0x3f));
      out[(*n)++] = (char) (0x80 | (cp & 0x3f));
    }
}

/* A string at j->pos (the opening quote).  With KEY, its decoded bytes go
   to a new buffer (a key is compared with its siblings). */
static int
scan_string (struct scan *j, struct key_seen *key)
{
  size_t start = j->pos;
  cleanup_free char *buf = NULL;
  size_t n = 0;

  j->pos++;
  if (key != NULL)
    {
      /* Decoding never makes a string longer than its source. */
      buf = malloc (j->len - start + 1);
      if (buf == NULL)
        return kg_error (j->err, ENOMEM, "%s: cannot allocate", j->name);
    }
  for (;;)
    {
      unsigned char c;

      if (j->pos >= j->len)
        return scan_error (j, start, "unterminated string");
      c = j->s[j->pos];
      if (c == '"')
        break;
      if (c < 0x20)
        return scan_error (j, j->pos,
                           "control character 0x%02x in a string (write it as an escape)", c);
      if (c == '\\')
        {
          size_t esc = j->pos;
          unsigned cp, lo;

          if (j->pos + 1 >= j->len)
            return scan_error (j, start, "unterminated string");
          c = j->s[j->pos + 1];
          j->pos += 2;
          switch (c)
            {
            case '"':
              cp = '"';
              break;
            case '\\':
              cp = '\\';
              break;
            case '/':
              cp = '/';
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
              if (hex4 (j, j->pos, &cp) < 0)
                return -1;
              j->pos += 4;
              if (cp >= 0xdc00 && cp <= 0xdfff)
                return scan_error (j, esc, "\\u%04x is a lone low surrogate", cp);
              if (cp >= 0xd800 && cp <= 0xdbff)
                {
                  if (j->len - j->pos < 6 || j->s[j->pos] != '\\' || j->s[j->pos + 1] != 'u')
                    return scan_error (j, esc, "\\u%04x is a lone high surrogate", cp);
                  if (hex4 (j, j->pos + 2, &lo) < 0)
                    return -1;
                  if (lo < 0xdc00 || lo > 0xdfff)
                    return scan_error (j, esc, "\\u%04x is a lone high surrogate", cp);
                  cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                  j->pos += 6;
                }
              if (cp == 0 && key != NULL)
                return scan_error (j, esc, "a key holds \\u0000");
              break;
            default:
              return scan_error (j, esc, "unknown escape \\%c", c >= 0x20 && c < 0x7f ? c : '?');
            }
          if (key != NULL)
            put_utf8 (buf, &n, cp);
          continue;
        }
      {
        size_t l = kg_utf8_len (j->s + j->pos, j->len - j->pos);

        if (l == 0)
          return scan_error (j, j->pos, "invalid UTF-8");
        if (key != NULL)
          {
            memcpy (buf + n, j->s + j->pos, l);
            n += l;
          }
        j->pos += l;
      }
    }
  j->pos++;
  if (key != NULL)
    {
      buf[n] = '\0';
      key->s = steal_pointer (&buf);
      key->n = n;
      key->pos = start;
    }
  return 0;
}

static bool
is_digit (unsigned char c)
{
  return c >= '0' && c <= '9';
}

static int
scan_number (struct scan *j)
{
  size_t start = j->pos, digits;
  bool neg = false, integer = true;

  if (j->s[j->pos] == '-')
    {
      neg = true;
      j->pos++;
    }
  digits = j->pos;
  if (j->pos >= j->len || ! is_digit (j->s[j->pos]))
    return scan_error (j, start, "a number needs digits");
  if (j->s[j->pos] == '0')
    {
      j->pos++;
      if (j->pos < j->len && is_digit (j->s[j->pos]))
        return scan_error (j, start, "a number must not start with 0");
    }
  else
    while (j->pos < j->len && is_digit (j->s[j->pos]))
      j->pos++;
  if (j->pos < j->len && j->s[j->pos] == '.')
    {
      integer = false;
      j->pos++;
      if (j->pos >= j->len || ! is_digit (j->s[j->pos]))
        return scan_error (j, start, "a number needs digits after '.'");
      while (j->pos < j->len && is_digit (j->s[j->pos]))
        j->pos++;
    }
  if (j->pos < j->len && (j->s[j->pos] == 'e' || j->s[j->pos] == 'E'))
    {
      integer = false;
      j->pos++;
      if (j->pos < j->len && (j->s[j->pos] == '+' || j->s[j->pos] == '-'))
        j->pos++;
      if (j->pos >= j->len || ! is_digit (j->s[j->pos]))
        return scan_error (j, start, "a number needs digits in its exponent");
      while (j->pos < j->len && is_digit (j->s[j->pos]))
        j->pos++;
    }
  if (integer)
    {
      /* json-c keeps integers as int64 or uint64 and clamps the rest
         without a word: refuse what it could not keep exactly. */
      const char *limit = neg ? "9223372036854775808" : "18446744073709551615";
      size_t n = j->pos - digits, ln = strlen (limit);

      if (n > ln || (n == ln && memcmp (j->s + digits, limit, ln) > 0))
        return scan_error (j, start, "integer %.*s is outside the 64-bit range",
                           (int) (j->pos - start), (const char *) j->s + start);
    }
  return 0;
}

static int scan_value (struct scan *j, unsigned depth);

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
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

struct key_list
{
  struct key_seen *items;
  size_t n, cap;
};

static void
key_list_free (struct key_list *l)
{
  for (size_t i = 0; i < l->n; i++)
    free (l->items[i].s);
  free (l->items);
}
#define cleanup_keys __attribute__ ((cleanup (key_list_free)))

/* json-c keeps the last of two equal keys and drops the first value: an
   edit would lose it, so a duplicate is an error (the second one named). */
static int
check_duplicates (struct scan *j, struct key_list *keys)
{
  const struct key_seen *dup = NULL, *first = NULL;
  unsigned line, col;

  if (keys->n < 2)
    return 0;
  qsort (keys->items, keys->n, sizeof *keys->items, key_cmp);
  /* Equal keys are now together, each group in document order: its
     first item is the original, its second the first duplicate. */
  for (size_t i = 0, g; i < keys->n; i = g)
    {
      const struct key_seen *a = &keys->items[i];

      for (g = i + 1; g < keys->n; g++)
        if (keys->items[g].n != a->n || memcmp (keys->items[g].s, a->s, a->n) != 0)
          break;
      if (g - i > 1 && (dup == NULL || keys->items[i + 1].pos < dup->pos))
        {
          first = a;
          dup = &keys->items[i + 1];
        }
    }
  if (dup == NULL)
    return 0;
  line_col (j, first->pos, &line, &col);
  return scan_error (j, dup->pos, "duplicate key \"%.64s\" (first at line %u)", dup->s, line);
}

static int
scan_object (struct scan *j, unsigned depth)
{
  cleanup_keys struct key_list keys = { 0 };
  char b[16];

  j->pos++;
  skip_ws (j);
  if (j->pos < j->len && j->s[j->pos] == '}')
    {
      j->pos++;
      return 0;
    }
  for (;;)
    {
      if (j->pos >= j->len || j->s[j->pos] != '"')
        return scan_error (j, j->pos, "expected a key in double quotes, found %s", describe (j, b));
      if (keys.n == keys.cap)
        {
          size_t cap = keys.cap ? keys.cap * 2 : 16;
          struct key_seen *items = realloc (keys.items, cap * sizeof *items);

          if (items == NULL)
            return kg_error (j->err, ENOMEM, "%s: cannot allocate", j->name);
          keys.items = items;
          keys.cap = cap;
        }
      if (scan_string (j, &keys.items[keys.n]) < 0)
        return -1;
      keys.n++;
      skip_ws (j);
      if (j->pos >= j->len || j->s[j->pos] != ':')
        return scan_error (j, j->pos, "expected ':' after the key, found %s", describe (j, b));
      j->pos++;
      skip_ws (j);
      if (scan_value (j, depth) < 0)
        return -1;
      skip_ws (j);
      if (j->pos < j->len && j->s[j->pos] == ',')
        {
          j->pos++;
          skip_ws (j);
          continue;
        }
      if (j->pos < j->len && j->s[j->pos] == '}')
        {
          j->pos++;
          return check_duplicates (j, &keys);
        }
      return scan_error (j, j->pos, "expected ',' or '}' in an object, found %s", describe (j, b));
    }
}

static int
scan_array (struct scan *j, unsigned depth)
{
  char b[16];

  j->pos++;
  skip_ws (j);
  if (j->pos < j->len && j->s[j->pos] == ']')
    {
      j->pos++;
      return 0;
    }
  for (;;)
    {
      if (scan_value (j, depth) < 0)
        return -1;
      skip_ws (j);
      if (j->pos < j->len && j->s[j->pos] == ',')
        {
          j->pos++;
          skip_ws (j);
          continue;
        }
      if (j->pos < j->len && j->s[j->pos] == ']')
        {
          j->pos++;
          return 0;
        }
      return scan_error (j, j->pos, "expected ',' or ']' in an array, found %s", describe (j, b));
    }
}

static int
scan_literal (struct scan *j, const char *word)
{
  size_t n = strlen (word);

  if (j->len - j->pos < n || memcmp (j->s + j->pos, word, n) != 0)
    return scan_error (j, j->pos, "expected a value (did you mean %s?)", word);
  j->pos += n;
  return 0;
}

static int
scan_value (struct scan *j, unsigned depth)
{
  char b[16];

  if (j->pos >= j->len)
    return scan_error (j, j->pos, "expected a value, found the end of the file");
  switch (j->s[j->pos])
    {
    case '{':
    case '[':
      if (depth >= DAEMONJSON_MAX_DEPTH)
        return scan_error (j, j->pos, "nested deeper than %d levels", DAEMONJSON_MAX_DEPTH);
      return j->s[j->pos] == '{' ? scan_object (j, depth + 1) : scan_array (j, depth + 1);
    case '"':
      return scan_string (j, NULL);
    case 't':
      return scan_literal (j, "true");
    case 'f':
      return scan_literal (j, "false");
    case 'n':
      return scan_literal (j, "null");
    default:
      if (j->s[j->pos] == '-' || is_digit (j->s[j->pos]))
        return scan_number (j);
      return scan_error (j, j->pos, "expected a value, found %s", describe (j, b));
    }
}

const char *
json_kind_of (struct json_object *v, bool any_number)
{
  switch (json_object_get_type (v))
    {
    case json_type_null:
      return "null";
    case json_type_boolean:
      return "a boolean";
    case json_type_double:
      return any_number ? "a number" : "a floating-point number";
    case json_type_int:
      return any_number ? "a number" : "an integer";
    case json_type_object:
      return "an object";
    case json_type_array:
      return "an array";
    case json_type_string:
      return "a string";
    }
  return "an unknown JSON value";
}

int
json_strict_scan (const char *name, const char *data, size_t len, kg_error_t *err)
{
  struct scan j = { name, (const unsigned char *) data, len, 0, err };
  char b[16];

  skip_ws (&j);
  if (scan_value (&j, 0) < 0)
    return -1;
  skip_ws (&j);
  if (j.pos != len)
    return scan_error (&j, j.pos, "data after the JSON document: %s", describe (&j, b));
  return 0;
}

struct json_object *
daemonjson_parse (const char *name, const char *data, size_t len, kg_error_t *err)
{
  struct scan j = { name, (const unsigned char *) data, len, 0, err };
  cleanup_free char *ascii = NULL;
  size_t ascii_len = 0;
  struct json_tokener *tok;
  struct json_object *root;
  enum json_tokener_error jerr;
  char b[16];

  if (len > DAEMONJSON_MAX_SIZE)
    return kg_error (err, 0, "%s: %zu bytes, more than the %d allowed", name, len,
                     DAEMONJSON_MAX_SIZE),
           NULL;
  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    return kg_error (err, 0,
                     "%s:1:1: starts with a byte order mark (save it as UTF-8 "
                     "without one)",
                     name),
           NULL;
  skip_ws (&j);
  if (j.pos == len)
    {
      /* dockerd reads an empty file as no configuration at all. */
      root = json_object_new_object ();
      if (root == NULL)
        kg_error (err, ENOMEM, "%s: cannot allocate", name);
      return root;
    }
  if (data[j.pos] != '{')
    {
      if (data[j.pos] == '[' || data[j.pos] == '"' || data[j.pos] == '-'
          || is_digit ((unsigned char) data[j.pos]) || data[j.pos] == 't' || data[j.pos] == 'f'
          || data[j.pos] == 'n')
        return scan_error (&j, j.pos, "the document must be a JSON object ({...})"), NULL;
      return scan_error (&j, j.pos, "expected '{', found %s", describe (&j, b)), NULL;
    }
  if (scan_value (&j, 0) < 0)
    return NULL;
  skip_ws (&j);
  if (j.pos != len)
    return scan_error (&j, j.pos, "data after the JSON document: %s", describe (&j, b)), NULL;

  /* The grammar is valid: json-c builds the tree (its own checks agree). */
  tok = json_tokener_new_ex (DAEMONJSON_MAX_DEPTH + 2);
  if (tok == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate a JSON parser", name), NULL;
  /* The scan above checked the UTF-8 itself (json-c 0.18's check refuses
     every four-byte character), and json-c 0.18's strict mode refuses any
     byte past ASCII in a string value: it reads the same text escaped. */
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
  ascii = kg_json_ascii (data, len, &ascii_len);
  if (ascii == NULL)
    {
      json_tokener_free (tok);
      return kg_error (err, ENOMEM, "%s: cannot allocate", name), NULL;
    }
  root = json_tokener_parse_ex (tok, ascii, (int) ascii_len);
  jerr = json_tokener_get_error (tok);
  json_tokener_free (tok);
  if (root == NULL || jerr != json_tokener_success
      || ! json_object_is_type (root, json_type_object))
    {
      json_object_put (root);
      return kg_error (err, 0, "%s: json-c cannot read it: %s", name,
                       json_tokener_error_desc (jerr)),
             NULL;
    }
  return root;
}

struct json_object *
daemonjson_load (const char *path, bool *exists, kg_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_free char *buf = NULL;
  struct stat st;
  size_t len;

  *exists = false;
  /* O_NONBLOCK: a FIFO put there must not hang `kata-guard check`. */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      struct json_object *o;

      if (errno != ENOENT)
        return kg_error (err, errno, "%s", path), NULL;
      o = json_object_new_object ();
      if (o == NULL)
        kg_error (err, ENOMEM, "cannot allocate");
      return o;
    }
  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "%s", path), NULL;
  if (! S_ISREG (st.st_mode))
    return kg_error (err, 0, "%s is not a regular file", path), NULL;
  *exists = true;
  if (kg_read_fd_bounded (fd, path, DAEMONJSON_MAX_SIZE, &buf, &len, err) < 0)
    return NULL;
  return daemonjson_parse (path, buf, len, err);
}

struct json_object *
json_read_strict (const char *name, const char *buf, size_t len, int max_depth,
                  int (*check) (const char *name, struct json_object *obj, kg_error_t *err),
                  kg_error_t *err)
{
  cleanup_free char *ascii = NULL;
  struct json_tokener *tok;
  struct json_object *obj;
  enum json_tokener_error jerr;
  size_t end, ascii_len = 0;

  /* JSON is UTF-8 (RFC 8259), and only strings may hold more than ASCII:
     the whole text is checked here, with a validator that knows the four
     byte forms (json-c 0.18's refuses them). */
  if ((end = kg_utf8_valid_prefix (buf, len)) != len)
    return kg_error (err, 0, "%s: invalid JSON at byte %zu: invalid UTF-8", name, end), NULL;
  /* json-c 0.18's strict mode refuses every byte past ASCII in a string
     value: it reads the same characters as escapes. */
  ascii = kg_json_ascii (buf, len, &ascii_len);
  if (ascii == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name), NULL;
  tok = json_tokener_new_ex (max_depth);
  if (tok == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate a JSON parser", name), NULL;
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
  obj = json_tokener_parse_ex (tok, ascii, (int) ascii_len);
  jerr = json_tokener_get_error (tok);
  end = kg_json_ascii_offset (buf, len, json_tokener_get_parse_end (tok));
  json_tokener_free (tok);
  if (obj == NULL || jerr != json_tokener_success)
    {
      json_object_put (obj);
      if (jerr == json_tokener_continue)
        return kg_error (err, 0, "%s: truncated JSON (%zu bytes)", name, len), NULL;
      if (jerr == json_tokener_error_depth)
        return kg_error (err, 0, "%s: nested deeper than %d levels (at byte %zu)", name, max_depth,
                         end),
               NULL;
      return kg_error (err, 0, "%s: invalid JSON at byte %zu: %s", name, end,
                       json_tokener_error_desc (jerr)),
             NULL;
    }
  /* Go reads more than json-c keeps: both of two equal keys (merged into
     one struct), and (CHECK) keys that fold onto a field's name. */
  if (json_strict_scan (name, buf, len, err) < 0)
    {
      json_object_put (obj);
      return NULL;
    }
  if (check != NULL && check (name, obj, err) < 0)
    {
      json_object_put (obj);
      return NULL;
    }
  /* Whatever follows the document (whitespace aside) is an error: a
     second document could be what another reader takes. */
  while (end < len && (buf[end] == ' ' || buf[end] == '\n' || buf[end] == '\t' || buf[end] == '\r'))
    end++;
  if (end != len)
    {
      json_object_put (obj);
      return kg_error (err, 0, "%s: data after the JSON document at byte %zu", name, end), NULL;
    }
  return obj;
}
