/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's JSON tree (preflight/parse/jtree.c) against json-c's reading of
 * the same bytes (json_read_strict): both refuse, in the same words, or
 * both read, and the tree is json-c's own, value for value and printed the
 * same; every member is found by its key, and none that is not there.  A
 * valid text holding a character json-c reads as another
 * (json_jsonc_misreads, found by json_strict_scan) is the one difference:
 * json_read_strict refuses it, the tree reads it, and the text holds one,
 * raw or written as a pair (the scan's finding checked by a walk of its
 * own here).
 */
#include "config.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "daemonjson.h"
#include "fuzz.h"
#include "jsonscan.h"
#include "jtree.h"
#include "text.h"

/* A (the tree's) holds what B (json-c's) holds, value for value, keys
   in the same order, numbers printed as json-c prints them. */
static bool
same_tree (const struct jv *a, struct json_object *b)
{
  enum json_type t = json_object_get_type (b);

  if (jv_type (a) != t)
    return false;
  switch (t)
    {
    case json_type_null:
      return true;
    case json_type_boolean:
      return jv_bool (a) == (bool) json_object_get_boolean (b);
    case json_type_string:
      return jv_string_len (a) == (size_t) json_object_get_string_len (b)
             && memcmp (jv_string (a), json_object_get_string (b), jv_string_len (a)) == 0;
    case json_type_int:
    case json_type_double:
      return strcmp (jv_string (a), json_object_get_string (b)) == 0;
    case json_type_array:
      if (jv_length (a) != json_object_array_length (b))
        return false;
      for (size_t i = 0; i < jv_length (a); i++)
        if (! same_tree (jv_at (a, i), json_object_array_get_idx (b, i)))
          return false;
      return true;
    case json_type_object:
      {
        size_t i = 0;

        if (jv_members (a) != (size_t) json_object_object_length (b))
          return false;
        json_object_object_foreach (b, key, val)
          {
            if (strcmp (jv_member_key (a, i), key) != 0
                || ! same_tree (jv_member_value (a, i), val))
              return false;
            i++;
          }
        return true;
      }
    }
  return false;
}

/* Every key of V is found, by jv_get_ex, at its own member. */
static bool
found_by_key (const struct jv *v)
{
  if (jv_is_type (v, json_type_array))
    {
      for (size_t i = 0; i < jv_length (v); i++)
        if (! found_by_key (jv_at (v, i)))
          return false;
      return true;
    }
  for (size_t i = 0; i < jv_members (v); i++)
    {
      struct jv *got = NULL;

      if (! jv_get_ex (v, jv_member_key (v, i), &got) || got != jv_member_value (v, i)
          || ! found_by_key (got))
        return false;
    }
  return true;
}

/* Whether the UTF-8 text P[0..N) holds a character json-c reads as
   another. */
static bool
text_misread (const char *p, size_t n)
{
  size_t k;

  for (size_t i = 0; i + 3 < n; i++)
    if ((unsigned char) p[i] >= 0xf0 && json_jsonc_misreads (kg_utf8_decode (p + i, &k)))
      return true;
  return false;
}

/* Whether a key or a string of V (the tree, which reads as Go does)
   holds a character json-c reads as another. */
static bool
tree_misread (const struct jv *v)
{
  if (jv_is_type (v, json_type_string))
    return text_misread (jv_string (v), jv_string_len (v));
  if (jv_is_type (v, json_type_array))
    {
      for (size_t i = 0; i < jv_length (v); i++)
        if (tree_misread (jv_at (v, i)))
          return true;
      return false;
    }
  for (size_t i = 0; i < jv_members (v); i++)
    if (text_misread (jv_member_key (v, i), strlen (jv_member_key (v, i)))
        || tree_misread (jv_member_value (v, i)))
      return true;
  return false;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t e1 = NULL, e2 = NULL;
  struct jv *mine = jv_read_strict ("doc", (const char *) data, size, 32, NULL, &e1);
  struct json_object *theirs = json_read_strict ("doc", (const char *) data, size, 32, NULL, &e2);

  if (theirs == NULL && mine != NULL)
    FUZZ_ASSERT (tree_misread (mine)
                 && strstr (e2->msg, "is read as another character by json-c") != NULL);
  else if (theirs == NULL)
    FUZZ_ASSERT (mine == NULL && e1 != NULL && e2 != NULL && strcmp (e1->msg, e2->msg) == 0);
  else
    {
      FUZZ_ASSERT (mine != NULL && jv_type (mine) == json_object_get_type (theirs));
      FUZZ_ASSERT (same_tree (mine, theirs));
      FUZZ_ASSERT (found_by_key (mine));
      FUZZ_ASSERT (jv_get (mine, "\x01 no such key") == NULL);
    }
  jv_free (mine);
  json_object_put (theirs);
  kg_error_release (&e1);
  kg_error_release (&e2);
  return 0;
}
