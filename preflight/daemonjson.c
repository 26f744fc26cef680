/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Docker's daemon.json: the strict reader (daemonjson.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemonjson.h"
#include "jsonscan.h"
#include "util.h"

/* Line and column of byte AT of DATA, for a message. */
static void
line_col (const char *data, size_t at, unsigned *line, unsigned *col)
{
  size_t start = 0;

  *line = 1;
  for (size_t i = 0; i < at; i++)
    if (data[i] == '\n')
      {
        (*line)++;
        start = i + 1;
      }
  *col = (unsigned) (at - start + 1);
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

/* json-c's strict parse of BUF[0..LEN) (valid UTF-8) by TOK into *OBJ.
   json-c 0.18's strict mode refuses every byte past ASCII in a string
   value, and reads the same characters written as escapes: a text with
   any goes to it as kg_json_ascii's copy, a text of ASCII alone (nearly
   every one) as it is.  *END (unless END is NULL): the offset in BUF
   where json-c stopped.  -1 when the copy cannot be made. */
static int
jsonc_parse (struct json_tokener *tok, const char *buf, size_t len, struct json_object **obj,
             size_t *end)
{
  cleanup_free char *ascii = NULL;
  size_t ascii_len = 0;

  json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
  if (kg_ascii_prefix (buf, len) == len)
    {
      *obj = json_tokener_parse_ex (tok, buf, (int) len);
      if (end != NULL)
        *end = json_tokener_get_parse_end (tok);
      return 0;
    }
  if ((ascii = kg_json_ascii (buf, len, &ascii_len)) == NULL)
    return -1;
  *obj = json_tokener_parse_ex (tok, ascii, (int) ascii_len);
  if (end != NULL)
    *end = kg_json_ascii_offset (buf, len, json_tokener_get_parse_end (tok));
  return 0;
}

struct json_object *
daemonjson_parse (const char *name, const char *data, size_t len, kg_error_t *err)
{
  size_t p = 0;
  struct json_tokener *tok;
  struct json_object *root;
  enum json_tokener_error jerr;
  unsigned line, col;

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
  while (p < len && strchr (" \t\n\r", data[p]) != NULL && data[p] != '\0')
    p++;
  if (p == len)
    {
      /* dockerd reads an empty file as no configuration at all. */
      root = json_object_new_object ();
      if (root == NULL)
        kg_error (err, ENOMEM, "%s: cannot allocate", name);
      return root;
    }
  if (data[p] != '{')
    {
      unsigned char c = (unsigned char) data[p];

      line_col (data, p, &line, &col);
      if (strchr ("[\"-0123456789tfn", c) != NULL && c != '\0')
        return kg_error (err, 0, "%s:%u:%u: the document must be a JSON object ({...})", name, line,
                         col),
               NULL;
      if (c >= 0x21 && c < 0x7f)
        return kg_error (err, 0, "%s:%u:%u: expected '{', found '%c'", name, line, col, c), NULL;
      return kg_error (err, 0, "%s:%u:%u: expected '{', found byte 0x%02x", name, line, col, c),
             NULL;
    }
  if (json_strict_scan (name, data, len, err) < 0)
    return NULL;

  /* The grammar is valid: json-c builds the tree (its own checks agree). */
  tok = json_tokener_new_ex (DAEMONJSON_MAX_DEPTH + 2);
  if (tok == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate a JSON parser", name), NULL;
  /* The scan above checked the UTF-8 itself (json-c 0.18's check refuses
     every four-byte character). */
  if (jsonc_parse (tok, data, len, &root, NULL) < 0)
    {
      json_tokener_free (tok);
      return kg_error (err, ENOMEM, "%s: cannot allocate", name), NULL;
    }
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

/* ---- the tree, built from the scanner's events ---- */

/* json_read_strict's reading of a valid document: the one scan of the
   grammar (jsonscan.c) builds json-c's tree as json-c's parser would,
   object by object in document order; a number is made as json-c's
   parser makes it (an integer here, any other by json-c itself). */
struct tree_build
{
  struct json_object *root;
  struct json_object **holder; /* [D]: the object or array that holds depth D */
  struct kg_buf key;           /* the key whose value comes next */
  const char *field;           /* its static spelling (field_name's), or NULL */
  const char *(*field_name) (const char *key);
  struct json_tokener *num;
  /* The last short string made of each hash: an equal one is the same
     object again (a spec's mount options, "bind", "ro", "nosuid", are
     the same few words a thousand times).  No reference of its own: the
     tree holds each. */
  struct json_object *shared[64];
};

/* Strings up to this long are shared. */
#define SHARED_MAX 24

/* A string value of the tree: the shared object of its text, or a new one. */
static struct json_object *
string_object (struct tree_build *b, const char *text, size_t len, struct json_object ***slot)
{
  struct json_object *o;
  uint32_t h = 2166136261u;

  *slot = NULL;
  if (len > SHARED_MAX)
    return json_object_new_string_len (text, (int) len);
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char) text[i]) * 16777619u;
  *slot = &b->shared[h % ARRAY_SIZE (b->shared)];
  o = **slot;
  if (o != NULL && (size_t) json_object_get_string_len (o) == len
      && memcmp (json_object_get_string (o), text, len) == 0)
    {
      *slot = NULL;
      return json_object_get (o);
    }
  return json_object_new_string_len (text, (int) len);
}

static struct json_object *
number_object (struct tree_build *b, const char *text, size_t len)
{
  char small[64];
  cleanup_free char *big = NULL;
  char *t = small;
  struct json_object *o;

  if (len + 1 > sizeof small && (t = big = malloc (len + 1)) == NULL)
    return NULL;
  memcpy (t, text, len);
  t[len] = '\0';
  /* An integer (the scan kept it within 64 bits): as json-c's parser
     makes one, int64, or uint64 past INT64_MAX. */
  if (strpbrk (t, ".eE") == NULL)
    {
      errno = 0;
      if (t[0] == '-')
        {
          long long v = strtoll (t, NULL, 10);

          return errno == 0 ? json_object_new_int64 (v) : NULL;
        }
      else
        {
          unsigned long long v = strtoull (t, NULL, 10);

          if (errno != 0)
            return NULL;
          return v <= INT64_MAX ? json_object_new_int64 ((int64_t) v) : json_object_new_uint64 (v);
        }
    }
  /* Any other through json-c itself, which reads a number to its end only
     when something follows it. */
  t[len] = ' ';
  json_tokener_reset (b->num);
  o = json_tokener_parse_ex (b->num, t, (int) len + 1);
  if (o != NULL && json_tokener_get_error (b->num) != json_tokener_success)
    {
      json_object_put (o);
      o = NULL;
    }
  return o;
}

static int
build_event (void *arg, const struct json_event *ev, const char **why)
{
  struct tree_build *b = arg;
  struct json_object *v = NULL, *h, **slot = NULL;
  int rc;

  /* A document that is a number or a literal: json-c's parser takes one
     that ends with it for a truncated one (it could go on).  Read json-c's
     way. */
  if (ev->depth == 0 && (ev->kind == JSON_EV_NUMBER || ev->kind == JSON_EV_LITERAL))
    return *why = "a scalar document", -1;
  switch (ev->kind)
    {
    case JSON_EV_KEY:
      b->key.len = 0;
      if (kg_buf_add (&b->key, ev->text, ev->len) < 0)
        return *why = "cannot allocate", -1;
      b->field = b->field_name != NULL && strlen (b->key.s) == ev->len ? b->field_name (b->key.s)
                                                                       : NULL;
      return 0;
    case JSON_EV_STRING:
      v = string_object (b, ev->text, ev->len, &slot);
      break;
    case JSON_EV_NUMBER:
      if (ev->text == NULL || (v = number_object (b, ev->text, ev->len)) == NULL)
        return *why = "json-c does not read the number so", -1;
      break;
    case JSON_EV_LITERAL:
      if (ev->literal != 'n')
        v = json_object_new_boolean (ev->literal == 't');
      break;
    case JSON_EV_OBJECT:
      v = json_object_new_object ();
      break;
    case JSON_EV_ARRAY:
#if JSON_C_VERSION_NUM >= (15 << 8)
      /* Most arrays of a spec hold a few items (json-c's default room
         is 32): it doubles as they come. */
      v = json_object_new_array_ext (4);
#else
      v = json_object_new_array ();
#endif
      break;
    }
  if (v == NULL && ! (ev->kind == JSON_EV_LITERAL && ev->literal == 'n'))
    return *why = "cannot allocate", -1;
  if (ev->depth == 0)
    b->root = v;
  else
    {
      h = b->holder[ev->depth];
      /* A key twice in one object fails the scan at the object's end:
         no look-up for one here. */
      if (! json_object_is_type (h, json_type_object))
        rc = json_object_array_add (h, v);
      else if (b->field != NULL)
        rc = json_object_object_add_ex (h, b->field, v,
                                        JSON_C_OBJECT_ADD_KEY_IS_NEW
                                            | JSON_C_OBJECT_ADD_CONSTANT_KEY);
      else
        rc = json_object_object_add_ex (h, b->key.s, v, JSON_C_OBJECT_ADD_KEY_IS_NEW);
      if (rc != 0)
        {
          json_object_put (v);
          return *why = "cannot allocate", -1;
        }
    }
  if (slot != NULL)
    *slot = v;
  if (ev->kind == JSON_EV_OBJECT || ev->kind == JSON_EV_ARRAY)
    b->holder[ev->depth + 1] = v;
  return 0;
}

/* The tree of BUF[0..LEN), MAX_DEPTH deep at most; NULL when the scan
   refuses it (or it is a bare number, literal or null, or memory ran
   out): json_read_strict then reads it json-c's way, for json-c's words
   on what is wrong. */
static struct json_object *
tree_build (const char *buf, size_t len, int max_depth, const char *(*field_name) (const char *key))
{
  struct tree_build b = { .field_name = field_name };
  struct json_scanner s = {
    .max_depth = (unsigned) max_depth,
    .decode_max = SIZE_MAX,
    .keep_keys = true,
    .on_event = build_event,
    .arg = &b,
  };

  if (max_depth < 1 || (b.holder = calloc ((size_t) max_depth + 2, sizeof *b.holder)) == NULL
      || (b.num = json_tokener_new_ex (1)) == NULL)
    {
      free (b.holder);
      return NULL;
    }
  json_tokener_set_flags (b.num, JSON_TOKENER_STRICT);
  if (json_scan (&s, -1, buf, len) < 0)
    {
      json_object_put (b.root);
      b.root = NULL;
    }
  json_tokener_free (b.num);
  free (b.holder);
  kg_buf_release (&b.key);
  return b.root;
}

struct json_object *
json_read_strict (const char *name, const char *buf, size_t len, int max_depth,
                  int (*check) (const char *name, struct json_object *obj, kg_error_t *err),
                  kg_error_t *err)
{
  return json_read_strict_fields (name, buf, len, max_depth, NULL, check, err);
}

struct json_object *
json_read_strict_fields (const char *name, const char *buf, size_t len, int max_depth,
                         const char *(*field_name) (const char *key),
                         int (*check) (const char *name, struct json_object *obj, kg_error_t *err),
                         kg_error_t *err)
{
  struct json_tokener *tok;
  struct json_object *obj;
  enum json_tokener_error jerr;
  size_t end = 0;

  /* A valid document (nearly every one): one scan, which builds the tree. */
  if ((obj = tree_build (buf, len, max_depth, field_name)) != NULL)
    {
      if (check != NULL && check (name, obj, err) < 0)
        {
          json_object_put (obj);
          return NULL;
        }
      return obj;
    }
  /* Otherwise json-c's way, which says what is wrong as it always has.
     JSON is UTF-8 (RFC 8259), and only strings may hold more than ASCII:
     the whole text is checked here, with a validator that knows the four
     byte forms (json-c 0.18's refuses them). */
  if ((end = kg_utf8_valid_prefix (buf, len)) != len)
    return kg_error (err, 0, "%s: invalid JSON at byte %zu: invalid UTF-8", name, end), NULL;
  tok = json_tokener_new_ex (max_depth);
  if (tok == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate a JSON parser", name), NULL;
  if (jsonc_parse (tok, buf, len, &obj, &end) < 0)
    {
      json_tokener_free (tok);
      return kg_error (err, ENOMEM, "%s: cannot allocate", name), NULL;
    }
  jerr = json_tokener_get_error (tok);
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
