/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jscan, against json-c as the oracle: a document jscan accepts is JSON
 * that json-c's strict parser reads too, and the value it found is the
 * one json-c reads for the top-level key (or json-c has none).  jscan
 * never accepts what is not JSON.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <string.h>

#include "error.h"
#include "fuzz.h"
#include "jsonscan.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t err = NULL;
  struct json_tokener *tok;
  struct json_object *doc, *v;
  char got[128];
  int rc;

  rc = jscan_top_string_mem ((const char *) data, size, "NetworkMode", got, sizeof got, &err);
  kg_error_release (&err);
  if (rc < 0)
    return 0;
  /* json-c's strict mode is ASCII only: compare on what it can read. */
  for (size_t i = 0; i < size; i++)
    if (data[i] >= 0x80)
      return 0;
  tok = json_tokener_new_ex (JSON_TOKENER_DEFAULT_DEPTH);
  FUZZ_ASSERT (tok != NULL);
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
  doc = json_tokener_parse_ex (tok, (const char *) data, (int) size);
  /* Deeper than json-c goes is json-c's limit, not a disagreement. */
  if (json_tokener_get_error (tok) == json_tokener_error_depth)
    {
      json_tokener_free (tok);
      return 0;
    }
  FUZZ_ASSERT (doc != NULL && json_tokener_get_error (tok) == json_tokener_success);
  /* Nothing but whitespace after it. */
  for (size_t i = json_tokener_get_parse_end (tok); i < size; i++)
    FUZZ_ASSERT (strchr (" \t\n\r", data[i]) != NULL && data[i] != '\0');
  json_tokener_free (tok);
  FUZZ_ASSERT (json_object_is_type (doc, json_type_object));
  if (rc == 1)
    FUZZ_ASSERT (json_object_object_get_ex (doc, "NetworkMode", &v)
                 && json_object_is_type (v, json_type_string)
                 && strcmp (json_object_get_string (v), got) == 0);
  else
    FUZZ_ASSERT (! json_object_object_get_ex (doc, "NetworkMode", &v)
                 || json_object_is_type (v, json_type_null));
  json_object_put (doc);
  return 0;
}
