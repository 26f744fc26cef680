/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Docker's daemon.json: the strict reader (daemonjson.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "daemonjson.h"
#include "error.h"
#include "fdio.h"
#include "jsonc.h"
#include "jsonscan.h"
#include "text.h"

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
  return json_type_words (json_object_get_type (v), any_number);
}

const char *
json_type_words (int type, bool any_number)
{
  switch (type)
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

/* O, a tree json-c read, or NULL with *ERR set to *MISREAD (moved
   there) when json_strict_scan found a character json-c reads as another
   in its text: Go's decoder reads it as written, so json-c's tree is not
   the file the engine reads.  Asked last, so that what is wrong with a
   document that is not read is told in its own words. */
static struct json_object *
unless_misread (struct json_object *o, kg_error_t *misread, kg_error_t *err)
{
  if (*misread == NULL)
    return o;
  json_object_put (o);
  kg_error_release (err);
  *err = *misread;
  *misread = NULL;
  return NULL;
}

struct json_object *
daemonjson_parse (const char *name, const char *data, size_t len, kg_error_t *err)
{
  size_t p = 0;
  struct json_tokener *tok;
  struct json_object *root;
  enum json_tokener_error jerr;
  unsigned line, col;
  cleanup_error kg_error_t misread = NULL;

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
  if (json_strict_scan (name, data, len, &misread, err) < 0)
    return NULL;

  /* The grammar is valid: json-c builds the tree (its own checks agree). */
  tok = json_tokener_new_ex (JSON_STRICT_MAX_DEPTH + 2);
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
  return unless_misread (root, &misread, err);
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

/* ---- the strict reader ---- */

struct json_object *
json_read_strict (const char *name, const char *buf, size_t len, int max_depth,
                  int (*check) (const char *name, struct json_object *obj, kg_error_t *err),
                  kg_error_t *err)
{
  struct json_tokener *tok;
  struct json_object *obj;
  enum json_tokener_error jerr;
  size_t end = 0;
  cleanup_error kg_error_t misread = NULL;

  /* json-c's way, which says what is wrong as it always has.
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
  if (json_strict_scan (name, buf, len, &misread, err) < 0)
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
  return unless_misread (obj, &misread, err);
}
