/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The policy's JSON tree (preflight/parse/jtree.c) held against json-c's: the
   same documents accepted, the same words for those refused, and every
   accessor answering as json-c's does, value by value. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "array.h"
#include "buf.h"
#include "daemonjson.h"
#include "error.h"
#include "jtree.h"
#include "tap.h"

/* json_read_strict's tree: json-c's own reading of the text. */
static struct json_object *
theirs_of (const char *d, size_t len, kg_error_t *err)
{
  return json_read_strict ("doc", d, len, 64, NULL, err);
}

/* Whether text A is B, or (B longer than JV_TEXT_MAX) its start and "...". */
static bool
same_text (const char *a, const char *b)
{
  size_t n;

  if (a == NULL || b == NULL)
    return a == b;
  if (strlen (b) <= JV_TEXT_MAX)
    return strcmp (a, b) == 0;
  n = strlen (a);
  return n > 3 && n <= JV_TEXT_MAX + 3 && strcmp (a + n - 3, "...") == 0
         && strncmp (a, b, n - 3) == 0;
}

/* Whether A (the jtree's) and B (json-c's) answer alike, down the tree;
   WHERE says where they first do not. */
static bool
alike (const struct jv *a, struct json_object *b, char *where, size_t size)
{
  const char *sa, *sb;

  if (jv_type (a) != json_object_get_type (b))
    return snprintf (where, size, "type %d, not %d", jv_type (a), json_object_get_type (b)), false;
  sa = jv_string (a);
  sb = json_object_get_string (b);
  if (! same_text (sa, sb))
    return snprintf (where, size, "string \"%s\", not \"%s\"", sa ? sa : "(null)",
                     sb ? sb : "(null)"),
           false;
  if (json_object_is_type (b, json_type_string)
      && jv_string_len (a) != (size_t) json_object_get_string_len (b))
    return snprintf (where, size, "length of \"%s\"", sb), false;
  if (jv_int64 (a) != json_object_get_int64 (b))
    return snprintf (where, size, "int64 of %s", sb ? sb : "null"), false;
  if (jv_bool (a) != (bool) json_object_get_boolean (b))
    return snprintf (where, size, "boolean of %s", sb ? sb : "null"), false;
  if (! same_text (jv_text (a), b ? json_object_to_json_string (b) : "null"))
    return snprintf (where, size, "text %s, not %s", jv_text (a),
                     b ? json_object_to_json_string (b) : "null"),
           false;
  if (json_object_is_type (b, json_type_array))
    {
      if (jv_length (a) != json_object_array_length (b) || jv_at (a, jv_length (a)) != NULL)
        return snprintf (where, size, "length %zu", jv_length (a)), false;
      for (size_t i = 0; i < jv_length (a); i++)
        if (! alike (jv_at (a, i), json_object_array_get_idx (b, i), where, size))
          return false;
    }
  else if (json_object_is_type (b, json_type_object))
    {
      size_t i = 0;
      struct jv *none = (struct jv *) 1;

      if (jv_members (a) != (size_t) json_object_object_length (b))
        return snprintf (where, size, "%zu members", jv_members (a)), false;
      if (jv_get_ex (a, "no such key", &none) || none != NULL)
        return snprintf (where, size, "a key that is not there"), false;
      json_object_object_foreach (b, key, val)
        {
          struct jv *got = (struct jv *) 1;

          if (strcmp (jv_member_key (a, i), key) != 0)
            return snprintf (where, size, "key %zu \"%s\", not \"%s\"", i, jv_member_key (a, i),
                             key),
                   false;
          if (! jv_get_ex (a, key, &got) || got != jv_member_value (a, i) || jv_get (a, key) != got)
            return snprintf (where, size, "look-up of \"%s\"", key), false;
          if (! alike (got, val, where, size))
            return false;
          i++;
        }
      i = 0;
      {
        jv_foreach (a, k, v)
        {
          if (k != jv_member_key (a, i) || v != jv_member_value (a, i))
            return snprintf (where, size, "jv_foreach at %zu", i), false;
          i++;
        }
      }
      if (i != jv_members (a))
        return snprintf (where, size, "jv_foreach saw %zu", i), false;
    }
  else if (jv_length (a) != 0 || jv_members (a) != 0 || jv_at (a, 0) != NULL
           || jv_get (a, "x") != NULL)
    return snprintf (where, size, "a scalar with items"), false;
  return true;
}

static void
test_documents (void)
{
  static const char *const docs[] = {
    ("{\"a\":18446744073709551615,\"b\":9223372036854775807,\"c\":9223372036854775808,"
     "\"d\":-9223372036854775808,\"e\":-0,\"f\":0,\"g\":-1}"),
    "{\"x\":[1.5e10,1E400,-1E400,0.1,-2.50,1e-400,123456789012345678901234567890.5,1.0e+2,5E-3,0.0]}",
    "{\"s\":\"a\\u0002b\",\"t\":\"\\ud83d\\ude00 \xc3\xa9 \\/ \\\\ \\\" \\n \\b \\f \\r \\t \\u0001\\u001f\x7f\",\"u\":\"\"}",
    "[[],{},[{}],null,true,false,{\"\":null},[null,null]]",
    "{\"k\":{\"k\":{\"k\":[1,[2,[3]]]}},\"n\":null,\"z\":{}}",
    " {\"a\" : 1 ,\n\"b\":\t[ ]} \n",
    "{\"a\":\"\xf0\x9f\x98\x80\",\"a/b\":\"c/d\",\"\\u00e9\":1}",
    "[\"12abc\",\" 7\",\"-3\",\"x\",\"99999999999999999999\",\"\",\"0\",\"true\"]",
    "[1,2.5,-3,\"x\"] ",
    "{\"mounts\":[{\"destination\":\"/d\",\"type\":\"bind\",\"source\":\"/s\",\"options\":[\"rbind\",\"ro\"]},"
    "{\"destination\":\"/e\",\"type\":\"bind\",\"source\":\"/s\",\"options\":[\"rbind\",\"ro\"]}]}",
    "\"a string\"",
    "42",
    "42 ",
    "-1.5",
    "true",
    "false",
    "null",
    /* Refused, each for its own reason, in json-c's words. */
    "{\"a\":1,\"a\":2}",
    "{\"a\":{\"b\":1,\"c\":2,\"b\":3}}",
    "{\"a\\u0000\":1}",
    /* A string value holding U+0000 (json-c keeps it, a C string cuts
       it): refused by the scan, in json_read_strict's words. */
    "{\"s\":\"a\\u0000b\"}",
    "[\"\\u0000\"]",
    "\"\\u0000\"",
    "{\"a\":1} {}",
    "{\"a\":1,}",
    "[1,2",
    "{\"a\":\"\xc3\"}",
    "{\"a\":01}",
    "{\"a\":18446744073709551616}",
    "",
    "   ",
  };

  for (size_t i = 0; i < ARRAY_SIZE (docs); i++)
    {
      const char *d = docs[i];
      kg_error_t e1 = NULL, e2 = NULL;
      struct jv *mine = jv_read_strict ("doc", d, strlen (d), 64, NULL, &e1);
      struct json_object *theirs = theirs_of (d, strlen (d), &e2);
      char where[256] = "";

      if (theirs == NULL)
        ok (mine == NULL && e1 != NULL && e2 != NULL && strcmp (e1->msg, e2->msg) == 0,
            "doc %zu: refused in json-c's words (%s)", i, e2 ? e2->msg : "?");
      else
        ok (mine != NULL && alike (mine, theirs, where, sizeof where),
            "doc %zu: every accessor answers as json-c's %s", i, where);
      /* The writes runc update's flags make over its resources (oci.c),
         on this tree, as json-c's json_object_object_add makes them: a
         key replaced in its place, a new one last, an object made. */
      if (mine != NULL && theirs != NULL && jv_is_type (mine, json_type_object))
        {
          const struct jv seven = { .type = json_type_int, .u.i = 7 },
                          cpus = { .type = json_type_string, .n = 3, .u.s = "0-1" },
                          two = { .type = json_type_string, .n = 1, .u.s = "2" },
                          empty = { .type = json_type_object };
          struct json_object *cpu = json_object_new_object ();
          struct jv *sub;

          ok (jv_set (mine, mine, "a", &seven) != NULL
                  && (sub = jv_set (mine, mine, "cpu", &empty)) != NULL
                  && jv_set (mine, sub, "cpus", &cpus) != NULL
                  && jv_set (mine, jv_get (mine, "cpu"), "cpus", &two) != NULL
                  && jv_set (mine, mine, "k", &seven) != NULL,
              "doc %zu: jv_set writes", i);
          json_object_object_add (theirs, "a", json_object_new_int64 (7));
          json_object_object_add (theirs, "cpu", cpu);
          json_object_object_add (cpu, "cpus", json_object_new_string ("0-1"));
          json_object_object_add (cpu, "cpus", json_object_new_string ("2"));
          json_object_object_add (theirs, "k", json_object_new_int64 (7));
          where[0] = '\0';
          ok (alike (mine, theirs, where, sizeof where),
              "doc %zu: jv_set writes as json_object_object_add %s", i, where);
        }
      jv_free (mine);
      json_object_put (theirs);
      kg_error_release (&e1);
      kg_error_release (&e2);
    }
}

/* What the arena and the key check meet in a large document: an object
   of many keys (sorted to find a duplicate), one key twice among them,
   and more values than the arena's first block holds. */
static void
test_large (void)
{
  struct kg_buf b = { 0 };
  kg_error_t err = NULL;
  struct json_object *theirs;
  struct jv *mine;
  char where[256] = "";

  kg_buf_add (&b, "{", 1);
  for (int i = 0; i < 200; i++)
    sb_printf (&b, "%s\"key-%d\":[1,2,3,\"v\",{\"x\":null}]", i ? "," : "", i);
  kg_buf_add (&b, ",\"n\":[", 6);
  for (int i = 0; i < 20000; i++)
    sb_printf (&b, "%s%d", i ? "," : "", i % 10);
  kg_buf_add (&b, "]}", 2);
  mine = jv_read_strict ("doc", b.s, b.len, 64, NULL, &err);
  theirs = theirs_of (b.s, b.len, &err);
  ok (mine != NULL && theirs != NULL && alike (mine, theirs, where, sizeof where),
      "200 keys and 20,000 numbers: as json-c's %s", where);
  jv_free (mine);
  json_object_put (theirs);
  /* key-150 again, at the end of the many. */
  b.len -= 2;
  sb_printf (&b, "],\"key-150\":0}");
  mine = jv_read_strict ("doc", b.s, b.len, 64, NULL, &err);
  ok (mine == NULL && err != NULL && strstr (err->msg, "duplicate key \"key-150\"") != NULL,
      "a key twice among 200: refused (%s)", err ? err->msg : "accepted");
  jv_free (mine);
  kg_error_release (&err);
  kg_buf_release (&b);
}

/* The scan passes a string's plain bytes eight at a time: whatever ends
   a run (a quote, a backslash, a control byte, a byte past ASCII) at
   each place in and around an eight-byte word is seen as it is. */
static void
test_every_offset (void)
{
  static const char *const specials[] = {
    "\\n",  "\\\"", "\\u0041", "\x01", "\x1f", "\xc3\xa9", "\xf0\x9f\x98\x80",
    "\x7f", "\"",   "\xff",    " ",    "~"
  };
  int bad = 0;

  for (size_t s = 0; s < ARRAY_SIZE (specials); s++)
    for (int k = 0; k < 20; k++)
      {
        char doc[128], where[256] = "";
        kg_error_t e1 = NULL, e2 = NULL;
        struct jv *mine;
        struct json_object *theirs;

        snprintf (doc, sizeof doc, "{\"k\":\"%.*s%sbbbbbbbbbbbbbbbbbbb\",\"z\":1}", k,
                  "aaaaaaaaaaaaaaaaaaaaaaaa", specials[s]);
        mine = jv_read_strict ("doc", doc, strlen (doc), 64, NULL, &e1);
        theirs = theirs_of (doc, strlen (doc), &e2);
        if (theirs == NULL ? mine != NULL || e1 == NULL || strcmp (e1->msg, e2->msg) != 0
                           : mine == NULL || ! alike (mine, theirs, where, sizeof where))
          {
            if (bad++ == 0)
              printf ("# special %zu at offset %d: %s %s\n", s, k, where, e1 ? e1->msg : "");
          }
        jv_free (mine);
        json_object_put (theirs);
        kg_error_release (&e1);
        kg_error_release (&e2);
      }
  ok (bad == 0, "a string's run ends at each kind of byte, at each offset: as json-c reads it");
}

static const char *const fields[] = { "type", "options" };

static const char *
field_name (const char *key)
{
  for (size_t i = 0; i < ARRAY_SIZE (fields); i++)
    if (strcmp (key, fields[i]) == 0)
      return fields[i];
  return NULL;
}

/* A key FIELD_NAME spells is its string; an equal short string is kept
   once; a long one each time. */
static void
test_kept_once (void)
{
  static const char doc[] = "[{\"type\":\"bind\",\"Type\":\"bind\",\"options\":[\"a string longer "
                            "than those kept once\",\"a string longer than those kept once\"]},"
                            "{\"type\":\"bind\"}]";
  kg_error_t err = NULL;
  struct jv *t = jv_read_strict ("doc", doc, strlen (doc), 64, field_name, &err);
  struct jv *m0 = jv_at (t, 0), *m1 = jv_at (t, 1), *opts = jv_get (m0, "options");

  ok (m0 != NULL && m1 != NULL && opts != NULL, "kept once: read");
  if (m0 != NULL && m1 != NULL && opts != NULL)
    {
      ok (jv_member_key (m0, 0) == fields[0] && jv_member_key (m1, 0) == fields[0]
              && jv_member_key (m0, 1) != fields[0] && strcmp (jv_member_key (m0, 1), "Type") == 0,
          "kept once: a field's key is the field's string, another a copy");
      ok (jv_string (jv_get (m0, "type")) == jv_string (jv_get (m1, "type"))
              && jv_string (jv_get (m0, "type")) == jv_string (jv_get (m0, "Type")),
          "kept once: \"bind\" is one string in its three places");
      ok (jv_string (jv_at (opts, 0)) != jv_string (jv_at (opts, 1))
              && strcmp (jv_string (jv_at (opts, 0)), jv_string (jv_at (opts, 1))) == 0,
          "kept once: a long string is its own in each place");
    }
  jv_free (t);
  kg_error_release (&err);
}

/* No string in the tree is cut by a U+0000 it holds: the document is
   refused, naming the value by its path (a rule would read "ro" of
   "ro\u0000", which runc, containerd and Kata read whole). */
static void
test_nul (void)
{
  static const struct
  {
    const char *doc, *want;
  } rows[] = {
    { "{\"mounts\": [{\"destination\": \"/x\", \"options\": [\"rbind\", \"ro\\u0000\"]}]}",
      "config.json:1:59: mounts[0].options[1] holds U+0000" },
    { "{\"process\": {\"env\": [\"A=1\", \"B=\\u0000\"]}}", "process.env[1] holds U+0000" },
    { "{\"annotations\": {\"a.b/c\": \"x\\u0000\"}}", "annotations[\"a.b/c\"] holds U+0000" },
    { "[\"\\u0000\"]", "[0] holds U+0000" },
    { "\"\\u0000\"", "the document holds U+0000" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      kg_error_t err = NULL;
      struct jv *t = jv_read_strict ("config.json", rows[i].doc, strlen (rows[i].doc), 64, NULL,
                                     &err);

      ok (t == NULL, "U+0000 row %zu: refused", i);
      has_str (err ? err->msg : NULL, rows[i].want, "U+0000 row %zu: %s", i, rows[i].want);
      jv_free (t);
      kg_error_release (&err);
    }
}

/* runc update without --resources: its flags into an empty object
   (jv_new_object), as into json-c's. */
static void
test_new_object (void)
{
  const struct jv limit = { .type = json_type_int, .u.i = -1 },
                  empty = { .type = json_type_object };
  struct jv *mine = jv_new_object (), *sub;
  struct json_object *theirs = json_object_new_object (), *mem = json_object_new_object ();
  char where[256] = "";

  ok (mine != NULL && (sub = jv_set (mine, mine, "memory", &empty)) != NULL
          && jv_set (mine, sub, "limit", &limit) != NULL,
      "an empty document, written");
  json_object_object_add (theirs, "memory", mem);
  json_object_object_add (mem, "limit", json_object_new_int64 (-1));
  ok (alike (mine, theirs, where, sizeof where), "as json-c's %s", where);
  is_str (jv_text (mine), "{ \"memory\": { \"limit\": -1 } }", "and printed as json-c prints it");
  jv_free (mine);
  json_object_put (theirs);
}

int
main (void)
{
  test_documents ();
  test_new_object ();
  test_large ();
  test_every_offset ();
  test_kept_once ();
  test_nul ();
  jv_free (NULL);
  return tap_done ();
}
