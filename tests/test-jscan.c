/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jscan: one top-level string of a JSON document read as a stream, and
   the grammar of everything it skips. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "jsonscan.h"
#include "tap.h"

/* jscan_top_string_mem of DOC for "NetworkMode": its value, "(absent)",
   or "!" and the error (static). */
static const char *
scan (const char *doc)
{
  static char out[512];
  char got[64];
  kg_error_t err = NULL;
  int rc = jscan_top_string_mem (doc, strlen (doc), "NetworkMode", got, sizeof got, &err);

  if (rc < 0)
    snprintf (out, sizeof out, "!%s", err->msg);
  else
    snprintf (out, sizeof out, "%s", rc == 1 ? got : "(absent)");
  kg_error_release (&err);
  return out;
}

static const struct
{
  const char *name, *doc, *want; /* WANT: the value, or "!" and part of the error */
} rows[] = {
  { "the key", "{\"NetworkMode\": \"none\"}", "none" },
  { "after other members",
    " {\"a\": [1, -2.5e+3, {\"b\": null}], \"c\": true,\n\"NetworkMode\":\"kgnet\"}\n", "kgnet" },
  { "absent", "{\"Binds\": null}", "(absent)" },
  { "null", "{\"NetworkMode\": null}", "(absent)" },
  { "empty object", "{}", "(absent)" },
  { "only in a nested object", "{\"HostConfig\": {\"NetworkMode\": \"host\"}}", "(absent)" },
  { "in an array", "{\"x\": [\"NetworkMode\", \"host\"]}", "(absent)" },
  { "escapes elsewhere", "{\"x\": \"a\\\"b\\\\c\\u00e9\", \"NetworkMode\": \"none\"}", "none" },
  { "UTF-8 elsewhere", "{\"x\": \"\xc3\xa9\", \"NetworkMode\": \"none\"}", "none" },
  { "twice", "{\"NetworkMode\": \"none\", \"NetworkMode\": \"kgnet\"}", "!has its key twice" },
  { "the value escaped", "{\"NetworkMode\": \"n\\u006fne\"}", "!written with escapes" },
  { "the key escaped", "{\"Network\\u004dode\": \"kgnet\"}",
    "!an object key written with escapes" },
  { "another key escaped", "{\"a\\u0062\": 1, \"NetworkMode\": \"none\"}",
    "!an object key written with escapes" },
  { "a number", "{\"NetworkMode\": 1}", "!another type than a string" },
  { "an object", "{\"NetworkMode\": {}}", "!another type than a string" },
  { "too long",
    "{\"NetworkMode\": \"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
    "!too long" },
  { "invalid UTF-8 in the value", "{\"NetworkMode\": \"\xff\"}", "!not UTF-8" },
  { "truncated", "{\"NetworkMode\": \"none\"", "!ends early" },
  { "truncated in a string", "{\"x\": \"abc", "!a string does not end" },
  { "truncated in a nested value", "{\"x\": [1, 2", "!" },
  { "trailing data", "{\"NetworkMode\": \"none\"} {}", "!data after the JSON object" },
  { "trailing comma", "{\"NetworkMode\": \"none\",}", "!an object key is not a string" },
  { "a missing comma", "{\"a\": 1 \"NetworkMode\": \"none\"}", "!no ','" },
  { "a missing colon", "{\"a\" 1}", "!no ':'" },
  { "a control byte in a string", "{\"a\": \"x\ty\", \"NetworkMode\": \"none\"}",
    "!a control byte" },
  { "a bad escape", "{\"a\": \"\\q\"}", "!a bad escape" },
  { "a bad \\u escape", "{\"a\": \"\\u12g4\"}", "!a bad \\u escape" },
  { "a bad number", "{\"a\": 01}", "!" },
  { "a lone minus", "{\"a\": -}", "!a bad number" },
  { "a bad exponent", "{\"a\": 1e}", "!a bad number" },
  { "a bad literal", "{\"a\": tru}", "!a bad literal" },
  /* The one grammar (jsonscan.c) checks what it skips as the strict
     check under json-c does (jscan.c let these three through). */
  { "a lone surrogate elsewhere", "{\"x\": \"\\ud800\", \"NetworkMode\": \"none\"}",
    "!a lone surrogate" },
  { "invalid UTF-8 elsewhere", "{\"x\": \"\xed\xa0\x80\", \"NetworkMode\": \"none\"}",
    "!not UTF-8" },
  { "an integer past 64 bits", "{\"x\": 18446744073709551616, \"NetworkMode\": \"none\"}",
    "!a bad number" },
  /* A string holding U+0000 anywhere (a runtime keeps what follows it). */
  { "\\u0000 in another value", "{\"x\": {\"y\": \"a\\u0000b\"}, \"NetworkMode\": \"none\"}",
    "!x.y holds U+0000" },
  { "\\u0000 in the value", "{\"NetworkMode\": \"none\\u0000\"}", "!NetworkMode holds U+0000" },
  { "not an object", "[\"NetworkMode\", \"none\"]", "!is not a JSON object" },
  { "nothing", "", "!is not a JSON object" },
};

/* json_strict_scan's refusal of a string value holding U+0000: where it
   is, by its path in the document. */
static const struct
{
  const char *doc, *want; /* WANT: the error, NULL: accepted */
} nul_rows[] = {
  { "{\"mounts\": [{\"destination\": \"/x\", \"options\": [\"rbind\", \"ro\\u0000\"]}]}",
    "doc:1:59: mounts[0].options[1] holds U+0000 (Go's and Rust's decoders keep what follows it)" },
  { "{\"annotations\": {\"io.katacontainers.config.hypervisor.kernel_params\": \"a\\u0000 b\"}}",
    "doc:1:73: annotations[\"io.katacontainers.config.hypervisor.kernel_params\"] holds U+0000" },
  { "{\"a\": \"\\u0000\"}", "doc:1:8: a holds U+0000" },
  { "{\"a\": \"x\",\n \"b\": [\"\\u0000\"]}", "doc:2:9: b[0] holds U+0000" },
  { "\"x\\u0000\"", "doc:1:3: the document holds U+0000" },
  { "[1, [\"a\", \"b\\u0000\"]]", "doc:1:13: [1][1] holds U+0000" },
  { "{\"k\\\"e y\": \"\\u0000\"}", "[\"k\\\"e y\"] holds U+0000" },
  { "{\"\\u006dounts\": [\"\\u0000\"]}", "mounts[0] holds U+0000" },
  { "{\"\": {\"_a1\": \"\\u0000\"}}", "[\"\"]._a1 holds U+0000" },
  { "{\"1a\": \"\\u0000\"}", "[\"1a\"] holds U+0000" },
  { "{\"a\": [{}, {\"b\": 1, \"c\": [true, {\"d\": \"\\u0000\"}]}]}", "a[1].c[1].d holds U+0000" },
  /* Two members before: the path is the current one, not the first. */
  { "{\"a\": \"\", \"b\": {\"c\": 1}, \"d\": \"\\u0000\"}", ": d holds U+0000" },
  { ("{\""
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "\": \"\\u0000\"}"),
    "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\"] holds U+0000" },
  { ("{\"a\": {\"a\": {\"a\": {\"a\": {\"a\": {\"a\": {\"a\": {\"a\": {\"a\": {\"a\": "
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\\u0000\""
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "}}}}}}}}}}"),
    "a.a.a.a.a.a.a.a.a.a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
    "[0][0][0][0][0][0][0][0]... holds U+0000" },
  /* Not U+0000: an escaped backslash before "u0000", another control
     character, and a key's \u0000 (its own words). */
  { "{\"a\": \"\\\\u0000\"}", NULL },
  { "{\"a\": \"\\u0001\\u0010\"}", NULL },
  { "{\"a\\u0000\": \"x\"}", "a key holds \\u0000" },
};

static void
test_nul (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (nul_rows); i++)
    {
      const char *doc = nul_rows[i].doc, *want = nul_rows[i].want;
      kg_error_t err = NULL, misread = NULL;
      int rc = json_strict_scan ("doc", doc, strlen (doc), &misread, &err);

      if (want == NULL)
        is_int (rc, 0, "U+0000 row %zu: accepted", i);
      else if (ok (rc < 0 && err != NULL, "U+0000 row %zu: refused", i))
        has_str (err->msg, want, "U+0000 row %zu: says \"%s\"", i, want);
      ok (misread == NULL, "U+0000 row %zu: no misread character", i);
      kg_error_release (&err);
      kg_error_release (&misread);
    }
}

/* json_strict_scan's finding of a character json-c reads as another
   (json_jsonc_misreads): the first one, raw or written as a pair, in a
   key or a value, at its line and column; the scan itself goes on (a
   later fault is the refusal), and neighbours are not found. */
static const struct
{
  const char *name, *doc, *want; /* WANT: the finding, NULL: none */
} misread_rows[] = {
  { "raw in a value", "{\"a\": \"x\xf0\x9d\xa0\x80\"}", "doc:1:9: U+1D800 is read as another" },
  { "a pair in a value", "{\"a\":\n \"\\ud836\\udc00\"}", "doc:2:3: U+1D800 is read as another" },
  { "upper-case hex", "{\"a\": \"\\uDBB6\\uDD65\"}", "doc:1:8: U+FD965 is read as another" },
  { "in a key", "{\"\xf4\x8d\xbf\xbf\": 1}", "doc:1:3: U+10DFFF is read as another" },
  { "the first of two", "[\"\xf0\xbd\xa0\x80\", \"\xf0\x9d\xa0\x80\"]",
    "doc:1:3: U+3D800 is read as another" },
  { "U+1D7FF", "{\"a\": \"\xf0\x9d\x9f\xbf\"}", NULL },
  { "U+1E000", "{\"a\": \"\\ud838\\udc00\"}", NULL },
  { "U+D7FF and U+E000", "{\"a\": \"\\ud7ff\\ue000\"}", NULL },
  { "an escaped backslash before the pair", "{\"a\": \"\\\\ud836\\\\udc00\"}", NULL },
};

static void
test_misread (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (misread_rows); i++)
    {
      const char *doc = misread_rows[i].doc, *want = misread_rows[i].want;
      kg_error_t err = NULL, misread = NULL;
      int rc = json_strict_scan ("doc", doc, strlen (doc), &misread, &err);

      is_int (rc, 0, "misread, %s: the scan passes", misread_rows[i].name);
      if (want == NULL)
        ok (misread == NULL, "misread, %s: nothing found", misread_rows[i].name);
      else if (ok (misread != NULL, "misread, %s: found", misread_rows[i].name))
        has_str (misread->msg, want, "misread, %s: \"%s\"", misread_rows[i].name, want);
      kg_error_release (&err);
      kg_error_release (&misread);
    }
  /* A fault after it is the scan's refusal, and nothing is found. */
  {
    static const char doc[] = "{\"a\": \"\\ud836\\udc00\", \"a\": 1}";
    kg_error_t err = NULL, misread = NULL;
    int rc = json_strict_scan ("doc", doc, strlen (doc), &misread, &err);

    ok (rc < 0 && err != NULL && strstr (err->msg, "duplicate key") != NULL && misread == NULL,
        "misread, then a duplicate key: refused for the key, nothing found (%s)",
        err ? err->msg : "passed");
    kg_error_release (&err);
    kg_error_release (&misread);
  }
  /* In a file read in 64 KiB pieces, the character cut by a read. */
  for (size_t cut = 1; cut < 4; cut++)
    {
      char path[] = "/tmp/kg-test-jscan-mr.XXXXXX";
      int fd = mkstemp (path);
      FILE *f = fd < 0 ? NULL : fdopen (fd, "w");
      struct json_scanner sc = { .max_depth = 8, .find_misread = true };
      int rc;

      if (f == NULL)
        abort ();
      fputs ("{\"x\": \"", f);
      for (size_t k = 0; k < 65536 - cut - 7; k++)
        fputc ('a', f);
      fputs ("\xf0\x9d\xa0\x80\"}", f);
      if (fflush (f) != 0 || lseek (fd, 0, SEEK_SET) != 0)
        abort ();
      rc = json_scan (&sc, fd, NULL, 0);
      ok (rc == 0 && sc.misread_cp == 0x1d800 && sc.misread_line == 1
              && sc.misread_col == 65536 - cut + 1,
          "misread, cut after %zu bytes by a read: U+%04X at 1:%u", cut, (unsigned) sc.misread_cp,
          sc.misread_col);
      fclose (f);
      unlink (path);
    }
}

int
main (void)
{
  char path[] = "/tmp/kg-test-jscan.XXXXXX";
  char got[64], *deep;
  kg_error_t err = NULL;
  FILE *f;
  int fd;

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      const char *g = scan (rows[i].doc);

      if (rows[i].want[0] == '!')
        {
          if (! ok (g[0] == '!', "%s: refused", rows[i].name))
            printf ("#   got \"%s\"\n", g);
          has_str (g, rows[i].want + 1, "%s: says \"%s\"", rows[i].name, rows[i].want + 1);
        }
      else
        is_str (g, rows[i].want, "%s: %s", rows[i].name, rows[i].want);
    }

  test_nul ();
  test_misread ();

  /* A NUL byte after a backslash is no escape (found by fuzz-jscan). */
  {
    static const char nul[] = "{\"a\":\"\\\0\\n\",\"NetworkMode\":\"host\"}";

    is_int (jscan_top_string_mem (nul, sizeof nul - 1, "NetworkMode", got, sizeof got, &err), -1,
            "a backslash before a NUL byte: refused");
    kg_error_release (&err);
  }

  /* Deeper than any engine writes: refused, not a stack overflow. */
  deep = malloc (200002);
  if (deep == NULL)
    abort ();
  deep[0] = '{';
  memcpy (deep + 1, "\"a\":", 4);
  memset (deep + 5, '[', 100000);
  deep[100005] = '\0';
  has_str (scan (deep), "nested too deeply", "100000 nested arrays: refused as too deep");
  free (deep);

  /* A file of 20 MB: read in pieces, the key at its end. */
  fd = mkstemp (path);
  f = fd < 0 ? NULL : fdopen (fd, "w");
  if (f == NULL)
    abort ();
  fputs ("{\"PortBindings\": {", f);
  for (int i = 1; i <= 400000; i++)
    fprintf (f, "%s\"%d/tcp\": [{\"HostIp\": \"\", \"HostPort\": \"%d\"}]", i > 1 ? "," : "", i, i);
  fputs ("}, \"NetworkMode\": \"container:abc\"}", f);
  if (fclose (f) != 0)
    abort ();
  is_int (jscan_top_string (path, "NetworkMode", got, sizeof got, &err), 1,
          "a 20 MB file: the key at its end is found");
  is_str (got, "container:abc", "a 20 MB file: its value");
  /* A character of two, three and four bytes across each boundary of
     the 64 KiB reads: one character, not invalid UTF-8. */
  {
    static const char *const chars[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };

    for (size_t c = 0; c < ARRAY_SIZE (chars); c++)
      for (size_t cut = 1; cut < strlen (chars[c]); cut++)
        {
          size_t lead = 65536 - cut - 7; /* {"x": " is 7 bytes */

          f = fopen (path, "w");
          if (f == NULL)
            abort ();
          fputs ("{\"x\": \"", f);
          for (size_t i = 0; i < lead; i++)
            fputc ('a', f);
          fprintf (f, "%s\", \"NetworkMode\": \"none\"}", chars[c]);
          if (fclose (f) != 0)
            abort ();
          is_int (jscan_top_string (path, "NetworkMode", got, sizeof got, &err), 1,
                  "a %zu-byte character cut after %zu bytes by a read: read whole",
                  strlen (chars[c]), cut);
          kg_error_release (&err);
        }
  }
  unlink (path);
  is_int (jscan_top_string (path, "NetworkMode", got, sizeof got, &err), -1,
          "a missing file: an error");
  is_int (err ? err->errnum : 0, ENOENT, "a missing file: ENOENT");
  kg_error_release (&err);
  if (symlink ("/etc/hostname", path) == 0)
    {
      is_int (jscan_top_string (path, "NetworkMode", got, sizeof got, &err), -1,
              "a symlink is not followed");
      kg_error_release (&err);
      unlink (path);
    }
  return tap_done ();
}
