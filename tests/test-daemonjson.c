/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.json: the strict reader, the stable writer, the atomic
 * replacement, and install/uninstall of the runtime entry, against a table
 * of inputs with the exact bytes expected (refused files compared byte for
 * byte with what was there).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "array.h"
#include "cleanup.h"
#include "daemonjson.h"
#include "dockerjson.h"
#include "error.h"
#include "fdio.h"
#include "jsonc.h"
#include "jtree.h"
#include "tap.h"

static void
skip (const char *why)
{
  printf ("ok %d # SKIP %s\n", ++tap_count, why);
}

static char tmpdir[] = "/tmp/kg-test-daemonjson.XXXXXX";

#define ENTRY "{ \"path\": \"/usr/bin/kata-guard\" }"

static const char out_only[] = "{\n"
                               "  \"runtimes\": {\n"
                               "    \"kata-guard\": {\n"
                               "      \"path\": \"/usr/bin/kata-guard\"\n"
                               "    }\n"
                               "  }\n"
                               "}\n";

static char *
path_of (const char *name)
{
  char *p;

  if (asprintf (&p, "%s/%s", tmpdir, name) < 0)
    abort ();
  return p;
}

static void write_bytes (const char *path, const char *data, size_t len);
#define write_str(path, s) write_bytes ((path), (s), strlen (s))

static void
write_bytes (const char *path, const char *data, size_t len)
{
  FILE *f = fopen (path, "w");

  if (f == NULL || fwrite (data, 1, len, f) != len || fclose (f) != 0)
    abort ();
}

/* The file's bytes, or NULL when it does not exist. */
static char *
read_all (const char *path, size_t *len)
{
  char *buf = NULL;
  kg_error_t err = NULL;

  if (kg_read_file_bounded (path, 0, 4 * DAEMONJSON_MAX_SIZE, &buf, len, &err) < 0)
    {
      kg_error_release (&err);
      return NULL;
    }
  return buf;
}

static bool
exists (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0;
}

static void
clean (void)
{
  char cmd[128];

  snprintf (cmd, sizeof cmd, "rm -rf %s/* %s/.[!.]*", tmpdir, tmpdir);
  if (system (cmd) != 0)
    abort ();
}

static struct json_object *
entry (const char *json)
{
  struct json_object *o = json_tokener_parse (json);

  if (o == NULL)
    abort ();
  return o;
}

struct run
{
  int rc;
  struct dj_edit e;
  char *msg; /* error message or NULL */
};

static void
run_release (struct run *r)
{
  dj_edit_release (&r->e);
  free (r->msg);
}

static struct run
install (const char *path, const char *name, const char *json, bool set_default, bool force,
         bool dry_run)
{
  struct json_object *ent = entry (json);
  kg_error_t err = NULL;
  struct run r = { 0 };

  r.e.path = path;
  r.e.name = name;
  r.e.entry = ent;
  r.e.set_default = set_default;
  r.e.force = force;
  r.e.dry_run = dry_run;
  r.rc = daemonjson_install (&r.e, &err);
  if (r.rc < 0)
    {
      r.msg = strdup (err->msg);
      kg_error_release (&err);
    }
  json_object_put (ent);
  return r;
}

/* uninstall, default-runtime back to RESTORE (what install replaced,
   recorded) rather than runc where the file allows. */
static struct run
uninstall_to (const char *path, const char *name, bool force, bool dry_run, const char *restore)
{
  struct json_object *ours[2] = {
    entry (ENTRY), entry ("{\"runtimeType\": \"/usr/bin/containerd-shim-kata-guard-v2\"}")
  };
  kg_error_t err = NULL;
  struct run r = { 0 };

  r.e.path = path;
  r.e.name = name;
  r.e.ours = ours;
  r.e.n_ours = 2;
  r.e.force = force;
  r.e.dry_run = dry_run;
  r.e.restore_default = restore;
  r.rc = daemonjson_uninstall (&r.e, &err);
  if (r.rc < 0)
    {
      r.msg = strdup (err->msg);
      kg_error_release (&err);
    }
  json_object_put (ours[0]);
  json_object_put (ours[1]);
  return r;
}

static struct run
uninstall (const char *path, const char *name, bool force, bool dry_run)
{
  return uninstall_to (path, name, force, dry_run, NULL);
}

/* Issue 47: install --set-default replaced default-runtime "crun";
   uninstall puts "crun" back when the file still has that runtime, and
   "runc" (Docker's own) when it does not: dockerd refuses to start with a
   default-runtime it does not know. */
static void
test_uninstall_restores_default (void)
{
  static const struct
  {
    const char *before, *restore, *want_default, *what;
  } rows[] = {
    { "{\"runtimes\": {\"crun\": {\"path\": \"/usr/bin/crun\"}}, \"default-runtime\": \"crun\"}",
      "crun", "crun", "the replaced default, still a runtime of the file, comes back" },
    { "{\"default-runtime\": \"crun\"}", "crun", "runc",
      "the replaced default that is no runtime of the file: runc" },
    { "{\"default-runtime\": \"runc\"}", "runc", "runc", "the replaced default runc: runc" },
    { "{\"runtimes\": {\"crun\": {}}, \"default-runtime\": \"crun\"}", NULL, "runc",
      "nothing recorded: runc" },
    { "{\"runtimes\": {\"x\": {}}}", "kata-guard", "runc",
      "a record naming the guard itself: runc" },
  };
  cleanup_free char *path = path_of ("daemon.json");

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      cleanup_free char *after = NULL, *want = NULL;
      size_t len;
      struct run r;

      clean ();
      write_str (path, rows[i].before);
      r = install (path, "kata-guard", ENTRY, true, false, false);
      run_release (&r);
      r = uninstall_to (path, "kata-guard", false, false, rows[i].restore);
      ok (r.rc == 0 && r.e.entry_removed && r.e.default_removed && r.e.new_default != NULL
              && strcmp (r.e.new_default, rows[i].want_default) == 0,
          "uninstall: %s (new_default %s)", rows[i].what,
          r.e.new_default ? r.e.new_default : "(null)");
      run_release (&r);
      after = read_all (path, &len);
      if (asprintf (&want, "\"default-runtime\": \"%s\"", rows[i].want_default) < 0)
        want = NULL;
      ok (after != NULL && want != NULL && strstr (after, want) != NULL
              && strstr (after, "kata-guard") == NULL,
          "uninstall: %s: the file says so, and no kata-guard is left", rows[i].what);
    }
}

/* ---- the table: install into each input ---------------------------------- */

struct install_case
{
  const char *what;
  const char *input;  /* NULL: no file */
  const char *output; /* NULL: refused */
  const char *error;  /* refused: a piece of the message */
};

static const struct install_case install_cases[] = {
  { "missing file", NULL, out_only, NULL },
  { "{}", "{}", out_only, NULL },
  { "{} with white space", "  {\n}\n\n", out_only, NULL },
  { "empty file (dockerd reads it as {})", "", out_only, NULL },
  { "white space only", " \n\t\n", out_only, NULL },
  { "other keys, values and order kept",
    "{\"log-driver\":\"journald\",\"registry-mirrors\":[\"https://m.example/\"],"
    "\"debug\":true,\"max-concurrent-downloads\":3,\"ratio\":1.50,\"big\":1e400,"
    "\"neg\":-9223372036854775808,\"u\":18446744073709551615,\"nothing\":null,"
    "\"text\":\"caf\\u00e9 \\\"q\\\" \\/ \\t\\u0001 \\ud83d\\ude00\",\"log-opts\":{},\"labels\":[]}",
    "{\n"
    "  \"log-driver\": \"journald\",\n"
    "  \"registry-mirrors\": [\n"
    "    \"https://m.example/\"\n"
    "  ],\n"
    "  \"debug\": true,\n"
    "  \"max-concurrent-downloads\": 3,\n"
    "  \"ratio\": 1.50,\n"
    "  \"big\": 1e400,\n"
    "  \"neg\": -9223372036854775808,\n"
    "  \"u\": 18446744073709551615,\n"
    "  \"nothing\": null,\n"
    "  \"text\": \"caf\xc3\xa9 \\\"q\\\" / \\t\\u0001 \xf0\x9f\x98\x80\",\n"
    "  \"log-opts\": {},\n"
    "  \"labels\": [],\n"
    "  \"runtimes\": {\n"
    "    \"kata-guard\": {\n"
    "      \"path\": \"/usr/bin/kata-guard\"\n"
    "    }\n"
    "  }\n"
    "}\n",
    NULL },
  { "existing runtimes kept, ours appended",
    "{\"runtimes\": {\"runsc\": {\"path\": \"/usr/bin/runsc\", \"runtimeArgs\": "
    "[\"--platform=kvm\", \"--network=none\"]}}, \"default-runtime\": \"runc\"}",
    "{\n"
    "  \"runtimes\": {\n"
    "    \"runsc\": {\n"
    "      \"path\": \"/usr/bin/runsc\",\n"
    "      \"runtimeArgs\": [\n"
    "        \"--platform=kvm\",\n"
    "        \"--network=none\"\n"
    "      ]\n"
    "    },\n"
    "    \"kata-guard\": {\n"
    "      \"path\": \"/usr/bin/kata-guard\"\n"
    "    }\n"
    "  },\n"
    "  \"default-runtime\": \"runc\"\n"
    "}\n",
    NULL },
  { "nested deep but within the bound",
    "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", NULL,
    NULL }, /* output checked separately: only that it is accepted */
  { "conflicting entry", "{\"runtimes\": {\"kata-guard\": {\"path\": \"/opt/other\"}}}", NULL,
    "runtimes.kata-guard is already { \"path\": \"/opt/other\" }, not { \"path\": "
    "\"/usr/bin/kata-guard\" }; pass --force" },
  { "same name with extra keys is a conflict",
    "{\"runtimes\": {\"kata-guard\": {\"path\": \"/usr/bin/kata-guard\", \"runtimeArgs\": []}}}",
    NULL, "pass --force" },
  { "runtimes: []", "{\"runtimes\": []}", NULL,
    ": \"runtimes\" is an array, not an object: dockerd would refuse it too" },
  { "runtimes: null", "{\"runtimes\": null}", NULL, "\"runtimes\" is null, not an object" },
  { "runtimes: \"x\"", "{\"runtimes\": \"x\"}", NULL, "\"runtimes\" is a string, not an object" },
  { "invalid JSON (line 3)", "{\n  \"debug\": true,\n  \"x\": }\n", NULL,
    ":3:8: expected a value, found '}'" },
  { "missing comma", "{\n  \"a\": 1\n  \"b\": 2\n}\n", NULL,
    ":3:3: expected ',' or '}' in an object, found '\"'" },
  { "trailing comma", "{\"a\": 1,}", NULL, ":1:9: expected a key in double quotes, found '}'" },
  { "trailing garbage", "{\"a\": 1}\n}", NULL, ":2:1: data after the JSON document: '}'" },
  { "a second document", "{}{}", NULL, ":1:3: data after the JSON document" },
  { "truncated", "{\"runtimes\": {\"x\": ", NULL, ":1:20: expected a value, found the end" },
  { "unterminated string", "{\"a\": \"abc", NULL, ":1:7: unterminated string" },
  { "duplicate key", "{\n  \"debug\": true,\n  \"debug\": false\n}", NULL,
    ":3:3: duplicate key \"debug\" (first at line 2)" },
  { "duplicate key spelled with an escape", "{\"a\": 1, \"\\u0061\": 2}", NULL,
    "duplicate key \"a\"" },
  { "duplicate nested key", "{\"runtimes\": {\"x\": {}, \"y\": {}, \"x\": {}}}", NULL,
    ":1:33: duplicate key \"x\"" },
  { "same key in different objects is fine", "{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}",
    "{\n  \"a\": {\n    \"k\": 1\n  },\n  \"b\": {\n    \"k\": 2\n  },\n  \"runtimes\": {\n"
    "    \"kata-guard\": {\n      \"path\": \"/usr/bin/kata-guard\"\n    }\n  }\n}\n",
    NULL },
  { "not an object", "[]", NULL, ":1:1: the document must be a JSON object" },
  { "a string document", "\"x\"", NULL, "the document must be a JSON object" },
  { "NaN", "{\"a\": NaN}", NULL, ":1:7: expected a value, found 'N'" },
  { "Infinity", "{\"a\": Infinity}", NULL, "expected a value, found 'I'" },
  { "single quotes", "{'a': 1}", NULL, ":1:2: expected a key in double quotes, found '''" },
  { "a comment", "{\"a\": 1} // x", NULL, "data after the JSON document" },
  { "leading zero", "{\"a\": 01}", NULL, "a number must not start with 0" },
  { "integer above 2^64-1", "{\"a\": 18446744073709551616}", NULL,
    "integer 18446744073709551616 is outside the 64-bit range" },
  { "integer below -2^63", "{\"a\": -9223372036854775809}", NULL, "outside the 64-bit range" },
  { "lone surrogate", "{\"a\": \"\\ud800\"}", NULL, ":1:8: \\ud800 is a lone high surrogate" },
  { "lone low surrogate", "{\"a\": \"\\udc00x\"}", NULL, "lone low surrogate" },
  { "raw newline in a string", "{\"a\": \"x\ny\"}", NULL,
    ":1:9: control character 0x0a in a string" },
  { "invalid UTF-8", "{\"a\": \"\xc3\x28\"}", NULL, ":1:8: invalid UTF-8" },
  { "overlong UTF-8", "{\"a\": \"\xc0\xaf\"}", NULL, "invalid UTF-8" },
  { "UTF-8 surrogate", "{\"a\": \"\xed\xa0\x80\"}", NULL, "invalid UTF-8" },
  { "key with \\u0000", "{\"a\\u0000b\": 1}", NULL, "a key holds \\u0000" },
  /* dockerd keeps what follows a U+0000, the guard's reading would not. */
  { "a value with \\u0000",
    "{\"runtimes\": {\"kata\": {\"path\": \"/usr/bin/kata-runtime\\u0000x\"}}}", NULL,
    ":1:54: runtimes.kata.path holds U+0000" },
  { "a default-runtime with \\u0000", "{\"default-runtime\": \"runc\\u0000\"}", NULL,
    "[\"default-runtime\"] holds U+0000" },
  { "bad escape", "{\"a\": \"\\x41\"}", NULL, "unknown escape \\x" },
  { "byte order mark", "\xef\xbb\xbf{}", NULL, ":1:1: starts with a byte order mark" },
  { "true misspelt", "{\"a\": tru}", NULL, "expected a value (did you mean true?)" },
  { "a NUL byte", NULL, NULL, NULL }, /* placeholder, see test_nul */
};

static void
test_table (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *bak = path_of ("daemon.json.kata-guard.bak");

  for (size_t i = 0; i < ARRAY_SIZE (install_cases); i++)
    {
      const struct install_case *c = &install_cases[i];
      cleanup_free char *after = NULL, *backup = NULL;
      size_t len = 0, blen = 0;
      struct run r;

      if (c->input == NULL && c->output == NULL)
        continue;
      clean ();
      if (c->input != NULL)
        write_bytes (path, c->input, strlen (c->input));
      r = install (path, "kata-guard", ENTRY, false, false, false);
      after = read_all (path, &len);
      backup = read_all (bak, &blen);
      if (c->output != NULL || c->error == NULL)
        {
          if (! ok (r.rc == 0 && r.e.status == DJ_DONE && r.e.changed, "%s: installed", c->what))
            printf ("#   %s\n", r.msg ? r.msg : "(no message)");
          if (c->output != NULL)
            is_str (after, c->output, "%s: exact output", c->what);
          if (c->input != NULL)
            ok (backup != NULL && blen == strlen (c->input) && memcmp (backup, c->input, blen) == 0,
                "%s: the backup holds the old bytes", c->what);
          else
            ok (backup == NULL, "%s: no backup of a file that did not exist", c->what);
        }
      else
        {
          ok (r.rc < 0 && r.e.status == DJ_REFUSED, "%s: refused", c->what);
          has_str (r.msg, c->error, "%s: the message says why", c->what);
          if (c->input == NULL || strstr (c->error, ":1:") || strstr (c->error, ":2:")
              || strstr (c->error, ":3:"))
            has_str (r.msg, path, "%s: the message names the file", c->what);
          ok (after != NULL && len == strlen (c->input) && memcmp (after, c->input, len) == 0,
              "%s: the file is untouched, byte for byte", c->what);
          ok (backup == NULL, "%s: no backup made", c->what);
        }
      run_release (&r);
    }
}

static void
test_nul_and_size (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  static const char nul[] = "{\"a\": \"x\0y\"}";
  cleanup_free char *big = NULL;
  struct run r;
  size_t n = DAEMONJSON_MAX_SIZE + 1;

  clean ();
  write_bytes (path, nul, sizeof nul - 1);
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED, "a NUL byte in the file: refused");
  has_str (r.msg, ":1:9: control character 0x00", "a NUL byte: named with its position");
  run_release (&r);

  big = malloc (n);
  memset (big, ' ', n);
  big[0] = '{';
  big[n - 1] = '}';
  clean ();
  write_bytes (path, big, n);
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED, "a file over 1 MiB: refused");
  has_str (r.msg, path, "over 1 MiB: the message names the file");
  run_release (&r);

  /* 65 levels of nesting (the root object is the first). */
  {
    char deep[200] = "{\"a\":";
    size_t l = strlen (deep);

    for (int i = 0; i < 64; i++)
      deep[l++] = '[';
    for (int i = 0; i < 64; i++)
      deep[l++] = ']';
    deep[l++] = '}';
    deep[l] = '\0';
    clean ();
    write_bytes (path, deep, l);
    r = install (path, "kata-guard", ENTRY, false, false, false);
    ok (r.rc < 0, "nested 65 deep: refused");
    has_str (r.msg, "nested deeper than 64 levels", "nested 65 deep: says so");
    run_release (&r);
  }
}

static void
test_same_entry_and_idempotence (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *bak = path_of ("daemon.json.kata-guard.bak");
  /* Formatted as nobody but a human would: a no-op must not reformat it. */
  static const char human[] = "{ \"debug\":true,\n    \"runtimes\" : { \"kata-guard\" : "
                              "{ \"path\" : \"\\/usr\\/bin\\/kata-guard\" } } }";
  cleanup_free char *first = NULL, *second = NULL;
  struct stat st1, st2;
  size_t l1, l2;
  struct run r;

  clean ();
  write_bytes (path, human, strlen (human));
  stat (path, &st1);
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc == 0 && ! r.e.changed, "same entry already there: no change");
  first = read_all (path, &l1);
  ok (first && l1 == strlen (human) && memcmp (first, human, l1) == 0,
      "same entry: the file is untouched, byte for byte");
  stat (path, &st2);
  ok (st1.st_ino == st2.st_ino, "same entry: the file is not even rewritten (same inode)");
  ok (! exists (bak), "same entry: no backup");
  ok (r.e.result_len == strlen (human) && memcmp (r.e.result, human, r.e.result_len) == 0,
      "same entry: the result is the old bytes");
  run_release (&r);
  free (steal_pointer (&first));

  clean ();
  write_str (path, "{\"debug\": true}");
  r = install (path, "kata-guard", ENTRY, true, false, false);
  ok (r.rc == 0 && r.e.changed, "idempotence: first install changes the file");
  run_release (&r);
  first = read_all (path, &l1);
  stat (path, &st1);
  r = install (path, "kata-guard", ENTRY, true, false, false);
  ok (r.rc == 0 && ! r.e.changed, "idempotence: the second install changes nothing");
  run_release (&r);
  second = read_all (path, &l2);
  stat (path, &st2);
  ok (first && second && l1 == l2 && memcmp (first, second, l1) == 0,
      "idempotence: byte-identical after the second run");
  ok (st1.st_ino == st2.st_ino && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec
          && st1.st_mtim.tv_sec == st2.st_mtim.tv_sec,
      "idempotence: not rewritten (same inode and mtime)");
  is_str (second,
          "{\n  \"debug\": true,\n  \"runtimes\": {\n    \"kata-guard\": {\n      \"path\": "
          "\"/usr/bin/kata-guard\"\n    }\n  },\n  \"default-runtime\": \"kata-guard\"\n}\n",
          "--set-default: default-runtime added last");
}

static void
test_force_and_default (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *after = NULL;
  size_t len;
  struct run r;

  clean ();
  write_str (path, "{\"runtimes\": {\"kata-guard\": {\"path\": \"/opt/other\"}, \"runc2\": {}}}");
  r = install (path, "kata-guard", ENTRY, false, true, false);
  ok (r.rc == 0 && r.e.changed, "conflicting entry with --force: replaced");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after,
          "{\n  \"runtimes\": {\n    \"kata-guard\": {\n      \"path\": \"/usr/bin/kata-guard\"\n"
          "    },\n    \"runc2\": {}\n  }\n}\n",
          "--force: replaced in place, the others kept");
  free (steal_pointer (&after));

  clean ();
  write_str (path, "{\"default-runtime\": \"runc\"}");
  r = install (path, "kata-guard", ENTRY, true, false, false);
  ok (r.rc == 0 && r.e.changed, "--set-default over runc: done");
  is_str (r.e.old_default, "runc", "--set-default: reports the old default-runtime");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after,
          "{\n  \"default-runtime\": \"kata-guard\",\n  \"runtimes\": {\n    \"kata-guard\": {\n"
          "      \"path\": \"/usr/bin/kata-guard\"\n    }\n  }\n}\n",
          "--set-default: replaced where it was");
  free (steal_pointer (&after));

  clean ();
  write_str (path, "{\"default-runtime\": 1}");
  r = install (path, "kata-guard", ENTRY, true, false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED, "--set-default over a non-string default: refused");
  has_str (r.msg, "\"default-runtime\" is a number, not a string", "says why");
  run_release (&r);

  clean ();
  r = install (path, "kata guard", ENTRY, false, false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED && ! exists (path), "a bad runtime name: refused");
  run_release (&r);
  ok (daemonjson_valid_name ("kata-guard") && daemonjson_valid_name ("kg_2.test")
          && ! daemonjson_valid_name ("") && ! daemonjson_valid_name ("-x")
          && ! daemonjson_valid_name ("a/b") && ! daemonjson_valid_name ("a\"b"),
      "runtime names: letters, digits, _ . - (not first)");
}

static void
test_uninstall (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *bak = path_of ("daemon.json.kata-guard.bak");
  static const char canon[] = "{\n  \"debug\": true,\n  \"default-runtime\": \"runc\",\n"
                              "  \"runtimes\": {\n    \"runsc\": {\n"
                              "      \"path\": \"/usr/bin/runsc\"\n    }\n  }\n}\n";
  static const char with_default[] = "{\n  \"default-runtime\": \"runc\"\n}\n";
  cleanup_free char *after = NULL, *backup = NULL;
  size_t len, blen;
  struct run r;

  /* A file in the stable form: install + uninstall gives it back exactly. */
  clean ();
  write_bytes (path, canon, strlen (canon));
  r = install (path, "kata-guard", ENTRY, true, false, false);
  run_release (&r);
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && r.e.changed && r.e.entry_removed && r.e.default_removed,
      "uninstall: removes the entry, default-runtime back to runc");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, canon, "uninstall: removes exactly what install added (byte for byte)");
  free (steal_pointer (&after));
  backup = read_all (bak, &blen);
  is_str (backup, canon, "the backup still holds the file before the first change");

  /* A missing file: install creates it with the entry; uninstall leaves
     "runtimes": {} (without the key a reload would keep the runtime). */
  clean ();
  r = install (path, "kata-guard", ENTRY, false, false, false);
  run_release (&r);
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && r.e.changed, "uninstall after install into a missing file");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{\n  \"runtimes\": {}\n}\n", "uninstall: an emptied runtimes object stays");
  free (steal_pointer (&after));

  /* default-runtime naming this runtime goes back to runc. */
  clean ();
  write_str (path,
             "{\"runtimes\": {\"kata-guard\": " ENTRY "}, \"default-runtime\": \"kata-guard\"}");
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && r.e.entry_removed && r.e.default_removed,
      "uninstall: default-runtime naming this runtime is changed");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{\n  \"runtimes\": {},\n  \"default-runtime\": \"runc\"\n}\n",
          "uninstall: ...to runc, Docker's own default (a reload keeps a removed key)");
  free (steal_pointer (&after));

  /* default-runtime only when it names this runtime. */
  clean ();
  write_bytes (path, with_default, strlen (with_default));
  r = install (path, "kata-guard", ENTRY, false, false, false);
  run_release (&r);
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && r.e.entry_removed && ! r.e.default_removed,
      "uninstall: default-runtime naming another runtime stays");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{\n  \"default-runtime\": \"runc\",\n  \"runtimes\": {}\n}\n",
          "uninstall: default-runtime \"runc\" kept");
  free (steal_pointer (&after));

  /* The other form install writes counts as ours too. */
  clean ();
  write_str (path, "{\"runtimes\": {\"kata-guard\": {\"runtimeType\": "
                   "\"/usr/bin/containerd-shim-kata-guard-v2\"}, \"runc\": {}}}");
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && r.e.entry_removed, "uninstall: the shim-mode entry is ours too");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{\n  \"runtimes\": {\n    \"runc\": {}\n  }\n}\n",
          "uninstall: the other runtimes stay");
  free (steal_pointer (&after));

  /* An entry install did not write is refused, removed with --force. */
  clean ();
  write_str (path, "{\"runtimes\": {\"kata-guard\": {\"path\": \"/opt/x\"}}}");
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED, "uninstall: a foreign entry is refused");
  has_str (r.msg,
           "runtimes.kata-guard is { \"path\": \"/opt/x\" }, which kata-guard install did "
           "not write; pass --force",
           "uninstall: says why");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{\"runtimes\": {\"kata-guard\": {\"path\": \"/opt/x\"}}}",
          "uninstall refused: untouched");
  free (steal_pointer (&after));
  r = uninstall (path, "kata-guard", true, false);
  ok (r.rc == 0 && r.e.entry_removed, "uninstall --force: removed");
  run_release (&r);

  /* Nothing to remove: no write at all. */
  clean ();
  write_str (path, "{ \"debug\": true }");
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && ! r.e.changed && ! exists (bak), "uninstall with nothing to remove: no change");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{ \"debug\": true }", "uninstall with nothing to remove: byte for byte");
  free (steal_pointer (&after));
  clean ();
  r = uninstall (path, "kata-guard", false, false);
  ok (r.rc == 0 && ! r.e.changed && ! exists (path),
      "uninstall without a file: no change, no file created");
  run_release (&r);
}

static void
test_dry_run (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *bak = path_of ("daemon.json.kata-guard.bak");
  cleanup_free char *after = NULL;
  size_t len;
  struct run r;

  clean ();
  r = install (path, "kata-guard", ENTRY, false, false, true);
  ok (r.rc == 0 && r.e.changed && ! exists (path),
      "--dry-run into a missing file: nothing created");
  is_str (r.e.result, out_only, "--dry-run: the result is what install would write");
  run_release (&r);

  clean ();
  write_str (path, "{\"debug\":true}");
  r = install (path, "kata-guard", ENTRY, true, false, true);
  ok (r.rc == 0 && r.e.changed && ! exists (bak), "--dry-run: no backup");
  run_release (&r);
  after = read_all (path, &len);
  is_str (after, "{\"debug\":true}", "--dry-run: the file is untouched");
  free (steal_pointer (&after));

  write_str (path, "{\"runtimes\":{\"kata-guard\":" ENTRY "}}");
  r = uninstall (path, "kata-guard", false, true);
  ok (r.rc == 0 && r.e.changed, "uninstall --dry-run: would change");
  is_str (r.e.result, "{\n  \"runtimes\": {}\n}\n", "uninstall --dry-run: the result");
  run_release (&r);
  after = read_all (path, &len);
  ok (after && strstr (after, "/usr/bin/kata-guard") != NULL, "uninstall --dry-run: untouched");
}

static void
test_mode_owner_symlink (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *realdir = path_of ("etc-real");
  cleanup_free char *target = path_of ("etc-real/daemon.json");
  cleanup_free char *tbak = path_of ("etc-real/daemon.json.kata-guard.bak");
  cleanup_free char *bak = path_of ("daemon.json.kata-guard.bak");
  cleanup_free char *after = NULL;
  char link[256];
  struct stat st;
  size_t len;
  ssize_t n;
  struct run r;

  clean ();
  write_str (path, "{}");
  chmod (path, 0600);
  r = install (path, "kata-guard", ENTRY, false, false, false);
  run_release (&r);
  stat (path, &st);
  is_int (st.st_mode & 07777, 0600, "mode 0600 kept");
  stat (bak, &st);
  is_int (st.st_mode & 07777, 0600, "the backup has the mode too");

  clean ();
  r = install (path, "kata-guard", ENTRY, false, false, false);
  run_release (&r);
  stat (path, &st);
  is_int (st.st_mode & 07777, 0644, "a new file is 0644");

  /* Another user's file: only where this process can give one away (not
     without root, nor as root in a user namespace that maps no other
     ids). */
  clean ();
  write_str (path, "{}");
  if (chown (path, 1234, 5678) == 0)
    {
      if (chmod (path, 0640) < 0)
        abort ();
      r = install (path, "kata-guard", ENTRY, false, false, false);
      run_release (&r);
      stat (path, &st);
      ok (st.st_uid == 1234 && st.st_gid == 5678 && (st.st_mode & 07777) == 0640,
          "owner 1234:5678 and mode 0640 kept");
      stat (bak, &st);
      ok (st.st_uid == 1234 && st.st_gid == 5678, "the backup has the owner too");
    }
  else
    {
      const char *e = strerror (errno);
      char why[160];

      snprintf (why, sizeof why, "owner kept: cannot give a file to 1234:5678 here (%s)", e);
      skip (why);
      snprintf (why, sizeof why, "backup owner: cannot give a file to 1234:5678 here (%s)", e);
      skip (why);
    }

  /* A symlink: its target is replaced, the link stays. */
  clean ();
  mkdir (realdir, 0755);
  write_str (target, "{\"debug\": true}");
  if (symlink ("etc-real/daemon.json", path) < 0)
    abort ();
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc == 0 && r.e.changed, "symlinked daemon.json: installed");
  is_str (r.e.target, target, "symlinked daemon.json: the target is what was written");
  run_release (&r);
  n = readlink (path, link, sizeof link - 1);
  link[n > 0 ? n : 0] = '\0';
  is_str (link, "etc-real/daemon.json", "symlinked daemon.json: still the same symlink");
  after = read_all (target, &len);
  has_str (after, "\"kata-guard\"", "symlinked daemon.json: the target holds the entry");
  ok (exists (tbak) && ! exists (bak), "symlinked daemon.json: the backup is beside the target");
  free (steal_pointer (&after));

  clean ();
  if (symlink ("nowhere/daemon.json", path) < 0)
    abort ();
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED, "dangling symlink: refused");
  has_str (r.msg, "symbolic link that cannot be resolved", "dangling symlink: says so");
  run_release (&r);
  ok (lstat (path, &st) == 0 && S_ISLNK (st.st_mode), "dangling symlink: left as it was");

  clean ();
  mkdir (path, 0755);
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc < 0 && r.e.status == DJ_REFUSED, "a directory: refused");
  has_str (r.msg, "is not a regular file", "a directory: says so");
  run_release (&r);

  clean ();
  {
    cleanup_free char *nodir = path_of ("no/such/daemon.json");

    r = install (nodir, "kata-guard", ENTRY, false, false, false);
    ok (r.rc < 0 && r.e.status == DJ_REFUSED, "a missing directory: refused");
    run_release (&r);
  }
}

static void
test_backup_and_leftovers (void)
{
  cleanup_free char *path = path_of ("daemon.json");
  cleanup_free char *bak = path_of ("daemon.json.kata-guard.bak");
  cleanup_free char *left = path_of (".daemon.json.kata-guard.Ab3xYz");
  cleanup_free char *notleft = path_of (".daemon.json.kata-guard.Ab3");
  cleanup_free char *other = path_of (".other.json.kata-guard.Ab3xYz");
  cleanup_free char *b = NULL;
  size_t len;
  struct run r;

  clean ();
  write_str (bak, "old backup");
  write_str (path, "{}");
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc == 0 && r.e.backup == NULL, "an existing backup: none made");
  run_release (&r);
  b = read_all (bak, &len);
  is_str (b, "old backup", "an existing backup is never replaced");

  clean ();
  write_str (path, "{}");
  write_str (left, "{\"half");
  write_str (notleft, "x");
  write_str (other, "x");
  r = install (path, "kata-guard", ENTRY, false, false, false);
  ok (r.rc == 0 && r.e.removed_temps == 1, "a killed writer's temporary file: counted");
  run_release (&r);
  ok (! exists (left), "a killed writer's temporary file: removed by the next run");
  ok (exists (notleft) && exists (other), "files that only look alike stay");
}

static void
test_parse_format (void)
{
  kg_error_t err = NULL;
  struct json_object *o;
  char *s;
  size_t len;

  {
    static const char doc[] = "{\"a\":{\"b\":[1,[],{},[2,{\"c\":\"\\u00e9\"}]]},\"d\":-0.5e-3}";

    o = daemonjson_parse ("x", doc, strlen (doc), &err);
  }
  ok (o != NULL, "parse: nested document");
  s = o ? daemonjson_format (o, &len, &err) : NULL;
  is_str (s,
          "{\n  \"a\": {\n    \"b\": [\n      1,\n      [],\n      {},\n      [\n        2,\n"
          "        {\n          \"c\": \"\xc3\xa9\"\n        }\n      ]\n    ]\n  },\n"
          "  \"d\": -0.5e-3\n}\n",
          "format: two-space indent, empty containers inline, numbers as written");
  free (s);
  json_object_put (o);

  o = daemonjson_parse ("name.json", "{\n\n  \"a\" 1}", 11, &err);
  ok (o == NULL, "parse error");
  has_str (err ? err->msg : NULL, "name.json:3:7: expected ':' after the key, found '1'",
           "parse error: NAME:LINE:COL: what");
  kg_error_release (&err);
}

/* json_read_strict builds the tree from its own scan: the tree must be
   the one json-c's parser builds of the same text (types, values, key
   order, a double's text), and a document json-c's way refuses must be
   refused. */
static void
test_tree_as_json_c (void)
{
  static const char *const docs[] = {
    ("{\"a\":18446744073709551615,\"b\":9223372036854775807,\"c\":9223372036854775808,"
     "\"d\":-9223372036854775808,\"e\":-0,\"f\":0,\"g\":-1}"),
    "{\"x\":[1.5e10,1E400,0.1,-2.50,1e-400,123456789012345678901234567890.5,1.0e+2,5E-3]}",
    "{\"s\":\"a\\u0001b\",\"t\":\"\\ud83d\\ude00 \xc3\xa9 \\/ \\\\ \\\" \\n\",\"u\":\"\"}",
    "[[],{},[{}],null,true,false,{\"\":null}]",
    "{\"k\":{\"k\":{\"k\":[1,[2,[3]]]}}}",
    " {\"a\" : 1 ,\n\"b\":\t[ ]} \n",
    "{\"a\":\"\xf0\x9f\x98\x80\"}",
    "\"a string\"",
    "[1,2.5,-3,\"x\"] ",
    "42",
    "42 ",
    "true",
    "null",
  };

  for (size_t i = 0; i < ARRAY_SIZE (docs); i++)
    {
      const char *d = docs[i];
      kg_error_t err = NULL;
      struct json_object *mine = json_read_strict ("doc", d, strlen (d), 64, NULL, &err);
      size_t alen = 0;
      char *ascii = kg_json_ascii (d, strlen (d), &alen);
      struct json_tokener *tok = json_tokener_new_ex (64);
      struct json_object *theirs;

      json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
      theirs = json_tokener_parse_ex (tok, ascii, (int) alen);
      if (json_tokener_get_error (tok) != json_tokener_success)
        {
          json_object_put (theirs);
          theirs = NULL;
        }
      if (theirs == NULL)
        ok (mine == NULL,
            "json_read_strict doc %zu: json-c refuses it, and so does json_read_strict", i);
      else
        ok (mine != NULL && json_object_equal (mine, theirs)
                && strcmp (json_object_to_json_string_ext (mine, JSON_C_TO_STRING_PLAIN),
                           json_object_to_json_string_ext (theirs, JSON_C_TO_STRING_PLAIN))
                       == 0,
            "json_read_strict doc %zu: the tree it builds is json-c's", i);
      json_object_put (mine);
      json_object_put (theirs);
      json_tokener_free (tok);
      free (ascii);
      kg_error_release (&err);
    }
  /* A string holding U+0000, which json-c keeps with its length and a
     C string cuts: refused, naming it, as the policy's tree refuses it. */
  {
    static const char doc[] = "{\"s\": [\"a\\u0000b\"]}";
    kg_error_t err = NULL;
    struct json_object *mine = json_read_strict ("doc", doc, strlen (doc), 64, NULL, &err);

    ok (mine == NULL && err != NULL
            && strcmp (err->msg, "doc:1:10: s[0] holds U+0000 (Go's and "
                                 "Rust's decoders keep what follows it)")
                   == 0,
        "json_read_strict: a string holding U+0000 is refused, by its path (%s)",
        err ? err->msg : "accepted");
    json_object_put (mine);
    kg_error_release (&err);
  }
}

/* CP as UTF-8 into OUT (4 bytes at most); its length. */
static size_t
utf8_of (uint32_t cp, char *out)
{
  if (cp < 0x800)
    return out[0] = (char) (0xc0 | (cp >> 6)), out[1] = (char) (0x80 | (cp & 0x3f)), 2;
  if (cp < 0x10000)
    return out[0] = (char) (0xe0 | (cp >> 12)), out[1] = (char) (0x80 | ((cp >> 6) & 0x3f)),
           out[2] = (char) (0x80 | (cp & 0x3f)), 3;
  out[0] = (char) (0xf0 | (cp >> 18));
  out[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char) (0x80 | (cp & 0x3f));
  return 4;
}

/* One document through the guard's three JSON readers: daemon.json's,
   json_read_strict and the policy's tree, each with its error. */
struct three_reads
{
  struct json_object *dj, *js;
  struct jv *tree;
  kg_error_t e1, e2, e3;
};

static void
three_read (struct three_reads *r, const char *doc, size_t n)
{
  *r = (struct three_reads){ 0 };
  r->dj = daemonjson_parse ("daemon.json", doc, n, &r->e1);
  r->js = json_read_strict ("doc", doc, n, 8, NULL, &r->e2);
  r->tree = jv_read_strict ("doc", doc, n, 8, NULL, &r->e3);
}

static void
three_release (struct three_reads *r)
{
  json_object_put (r->dj);
  json_object_put (r->js);
  jv_free (r->tree);
  kg_error_release (&r->e1);
  kg_error_release (&r->e2);
  kg_error_release (&r->e3);
}

/* json-c reads a character past U+FFFF whose low 16 bits are a
   surrogate's as another (U+FFFD, or the start of a pair): daemon.json's
   reader and json_read_strict refuse it, at its line and column, written
   as a pair or raw; its neighbours read as written; the policy's tree,
   which reads as Go does, reads them all. */
static void
test_jsonc_misread (void)
{
  static const struct
  {
    uint32_t cp;
    bool misread;
  } rows[] = {
    { 0x1d7ff, false },  { 0x1d800, true }, { 0x1dfff, true },  { 0x1e000, false },
    { 0x1f600, false },  { 0xfd965, true }, { 0x10d800, true }, { 0x10dfff, true },
    { 0x10ffff, false }, { 0xd7ff, false }, { 0xe000, false },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    for (int raw = 0; raw < 2; raw++)
      {
        char doc[64], want[8], msg[160];
        size_t wlen = utf8_of (rows[i].cp, want), n;
        struct three_reads r;
        bool good;

        if (raw)
          n = (size_t) snprintf (doc, sizeof doc, "{\n \"a\": \"x%.*s\"}", (int) wlen, want);
        else if (rows[i].cp > 0xffff)
          n = (size_t) snprintf (doc, sizeof doc, "{\n \"a\": \"x\\u%04x\\u%04X\"}",
                                 (unsigned) (0xd800 + ((rows[i].cp - 0x10000) >> 10)),
                                 (unsigned) (0xdc00 + ((rows[i].cp - 0x10000) & 0x3ff)));
        else
          n = (size_t) snprintf (doc, sizeof doc, "{\n \"a\": \"x\\u%04x\"}",
                                 (unsigned) rows[i].cp);
        three_read (&r, doc, n);
        snprintf (msg, sizeof msg,
                  "daemon.json:2:9: U+%04X is read as another character by json-c, the guard's "
                  "reader of this file (Go reads it as it is): write the file without it",
                  (unsigned) rows[i].cp);
        if (rows[i].misread)
          good = r.dj == NULL && r.e1 != NULL && strcmp (r.e1->msg, msg) == 0 && r.js == NULL
                 && r.e2 != NULL && strstr (r.e2->msg, "is read as another character") != NULL;
        else
          {
            struct json_object *a = NULL, *b = NULL;

            good = r.dj != NULL && r.js != NULL && json_object_object_get_ex (r.dj, "a", &a)
                   && json_object_object_get_ex (r.js, "a", &b)
                   && json_object_get_string_len (a) == (int) wlen + 1
                   && memcmp (json_object_get_string (a) + 1, want, wlen) == 0
                   && json_object_get_string_len (b) == (int) wlen + 1
                   && memcmp (json_object_get_string (b) + 1, want, wlen) == 0;
          }
        good = good && r.tree != NULL && jv_string_len (jv_get (r.tree, "a")) == wlen + 1
               && memcmp (jv_string (jv_get (r.tree, "a")) + 1, want, wlen) == 0;
        ok (good, "U+%04X written %s: %s (%s)", (unsigned) rows[i].cp, raw ? "raw" : "as an escape",
            rows[i].misread ? "refused by json-c's readers" : "read",
            r.e1   ? r.e1->msg
            : r.e2 ? r.e2->msg
            : r.e3 ? r.e3->msg
                   : "read");
        three_release (&r);
      }
  /* A document wrong in another way is told in its own words, whatever
     it holds. */
  {
    static const char dup[] = "{\"a\": \"\\ud836\\udc00\", \"a\": 1}";
    struct three_reads r;

    three_read (&r, dup, strlen (dup));
    ok (r.dj == NULL && r.js == NULL && r.tree == NULL && r.e1 && r.e2 && r.e3
            && strstr (r.e1->msg, "duplicate key \"a\"") != NULL
            && strstr (r.e2->msg, "duplicate key \"a\"") != NULL
            && strcmp (r.e2->msg, r.e3->msg) == 0,
        "U+1D800 in a document with a duplicate key: refused for the key (%s)",
        r.e1 ? r.e1->msg : "read");
    three_release (&r);
  }
}

int
main (void)
{
  if (mkdtemp (tmpdir) == NULL)
    {
      perror ("mkdtemp");
      return 1;
    }
  umask (022);
  test_parse_format ();
  test_tree_as_json_c ();
  test_table ();
  test_nul_and_size ();
  test_jsonc_misread ();
  test_same_entry_and_idempotence ();
  test_force_and_default ();
  test_uninstall ();
  test_uninstall_restores_default ();
  test_dry_run ();
  test_mode_owner_symlink ();
  test_backup_and_leftovers ();
  clean ();
  rmdir (tmpdir);
  return tap_done ();
}
