/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's JSON tree (preflight/parse/jtree.c) against json-c's reading of
 * the same bytes (json_read_strict): both refuse, in the same words, or
 * both read, and the tree, copied to json-c, is json-c's own, printed the
 * same; every member is found by its key, and none that is not there.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "daemonjson.h"
#include "fuzz.h"
#include "jtree.h"

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

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t e1 = NULL, e2 = NULL;
  struct jv *mine = jv_read_strict ("doc", (const char *) data, size, 32, NULL, &e1);
  struct json_object *theirs = json_read_strict ("doc", (const char *) data, size, 32, NULL, &e2);

  if (theirs == NULL)
    FUZZ_ASSERT (mine == NULL && e1 != NULL && e2 != NULL && strcmp (e1->msg, e2->msg) == 0);
  else
    {
      struct json_object *copy = jv_to_json_c (mine);

      FUZZ_ASSERT (mine != NULL && jv_type (mine) == json_object_get_type (theirs));
      FUZZ_ASSERT (json_object_equal (copy, theirs));
      FUZZ_ASSERT (strcmp (json_object_to_json_string_ext (copy, JSON_C_TO_STRING_PLAIN),
                           json_object_to_json_string_ext (theirs, JSON_C_TO_STRING_PLAIN))
                   == 0);
      FUZZ_ASSERT (found_by_key (mine));
      FUZZ_ASSERT (jv_get (mine, "\x01 no such key") == NULL);
      json_object_put (copy);
    }
  jv_free (mine);
  json_object_put (theirs);
  kg_error_release (&e1);
  kg_error_release (&e2);
  return 0;
}
