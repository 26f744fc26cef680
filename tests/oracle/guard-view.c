/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guard's side of the differential oracle (tests/oracle.test): what
 * kata-guard's own decoders make of each file, one JSON line per file, for
 * tests/oracle/oracle.go to hold against what the real Go decoders
 * (runtime-spec's types, BurntSushi/toml into Kata's) make of the same
 * bytes.
 *
 *   guard-view spec FILE...   config.json files: policy_spec_parse's tree,
 *                             and whether check_policy allows the start
 *   guard-view kata FILE...   Kata configurations: toml_parse's tree, and
 *                             whether the guard accepts the file
 *
 * Each line is {"file":F,"allowed":B,"refused":R,"tree":T}; T is null when
 * the guard's parser refused the file, R is "" when it is allowed.  A spec
 * line also has "mounts": what the guard made of each mount's options
 * (mount_readings), for the oracle to hold against what runc and Kata's
 * shim make of the same values.  One process handles thousands of files:
 * the oracle starts one per batch.
 *
 * KG_ORACLE_PLANT (the oracle's own test, tests/oracle.test) makes the
 * view lie in one reading, so that a row can show the oracle failing:
 *   tree  the tree of each allowed file differs by one value: a spec's
 *         process.cwd, or a Kata file's first [hypervisor.NAME] path
 *   ro    every mount is read-only to the guard, whatever its options
 */
#include "config.h"

#include <errno.h>
#include <json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "preflight.h"
#include "conf.h"
#include "error.h"
#include "fuzz-files.h"
#include "jtree.h"
#include "kata.h"
#include "policy-mounts.h"
#include "policy.h"
#include "request.h"
#include "result.h"
#include "toml.h"

/* Larger than anything either parser accepts, so that a file is never
   judged on a prefix. */
#define VIEW_MAX_FILE (POLICY_MAX_SPEC + 1)

/* The guard configuration of tests/fuzz/fuzz-policy.c, without its
   io.katacontainers.* annotations (the shipped default refuses them, and
   the oracle's cases assert that), and loosened so that
   the real Docker and containerd specs of the fixtures are allowed as
   they are: no memory limit required, and their per-container files
   (bound writable from the engine's root, which the guard allows only
   for the container's own id, unknown here) allowed.  A spec the guard
   refuses is one the oracle cannot compare, and the decoding under test
   is the same under any policy. */
static const char guard_toml[]
    = "[kata]\nhypervisors = [\"firecracker\"]\n"
      "[policy]\n"
      "require_memory_limit = false\n"
      "engine_roots = []\n"
      "writable_mounts = [\"/var/lib/docker\", \"/run/containerd\", \"/srv\"]\n";

/* The [hypervisor.firecracker] values that policy.resources reads (as in
   fuzz-policy.c). */
static const char kata_toml[] = "[hypervisor.firecracker]\n"
                                "default_vcpus = 1\n"
                                "default_memory = 2048\n"
                                "[runtime]\n"
                                "disable_guest_seccomp = true\n";

/* FILE's bytes in *BUF (malloc'd, NUL-terminated for the error paths) and
   *LEN, or -1 with errno set. */
static int
read_file (const char *path, char **buf, size_t *len)
{
  FILE *f = fopen (path, "rb");
  char *b;
  size_t n;
  int e;

  if (f == NULL)
    return -1;
  b = malloc (VIEW_MAX_FILE + 1);
  if (b == NULL)
    {
      fclose (f);
      errno = ENOMEM;
      return -1;
    }
  n = fread (b, 1, VIEW_MAX_FILE, f);
  e = ferror (f) ? EIO : 0;
  fclose (f);
  if (e != 0)
    {
      free (b);
      errno = e;
      return -1;
    }
  b[n] = '\0';
  *buf = b;
  *len = n;
  return 0;
}

/* Print one line and release LINE (which owns everything in it). */
static int
emit (struct json_object *line)
{
  const char *s = json_object_to_json_string_ext (line, JSON_C_TO_STRING_PLAIN);
  int rc = s != NULL && puts (s) >= 0 ? 0 : -1;

  json_object_put (line);
  return rc;
}

static struct json_object *
new_line (const char *file)
{
  struct json_object *line = json_object_new_object ();

  if (line == NULL)
    return NULL;
  json_object_object_add (line, "file", json_object_new_string (file));
  return line;
}

/* FILE's bytes in *BUF (malloc'd) and a fresh output line for it, or NULL
   (said on stderr). */
static struct json_object *
read_input (const char *file, char **buf, size_t *len)
{
  struct json_object *line;

  if (read_file (file, buf, len) < 0)
    {
      fprintf (stderr, "guard-view: %s: %s\n", file, strerror (errno));
      return NULL;
    }
  line = new_line (file);
  if (line == NULL)
    free (*buf);
  return line;
}

/* KG_ORACLE_PLANT's word, or "". */
static const char *
plant (void)
{
  const char *p = getenv ("KG_ORACLE_PLANT");

  return p != NULL ? p : "";
}

/* KG_ORACLE_PLANT=tree: in object TREE's member OBJ (or in its first
   member's value when OBJ is NULL: a Kata file's first hypervisor), KEY
   becomes "/kg-planted". */
static void
plant_string (struct json_object *tree, const char *obj, const char *key)
{
  struct json_object *o = NULL;

  if (strcmp (plant (), "tree") != 0 || tree == NULL)
    return;
  if (obj != NULL)
    json_object_object_get_ex (tree, obj, &o);
  else
    {
      struct json_object_iterator it = json_object_iter_begin (tree);
      struct json_object_iterator end = json_object_iter_end (tree);

      if (! json_object_iter_equal (&it, &end))
        o = json_object_iter_peek_value (&it);
    }
  if (o != NULL && json_object_is_type (o, json_type_object))
    json_object_object_add (o, key, json_object_new_string ("/kg-planted"));
}

/* ---- spec --------------------------------------------------------------- */

/* What the guard makes of each mount of DOC (policy_spec_parse's tree), as
   policy.mounts reads them (preflight/policy/policy-mounts.c, check_mounts and
   mount_options): its options' words through the guard's own table
   (mount_option_words), then
     bind    a "bind" or "rbind" option, or the type "bind"
     ro      "ro" without "rw" or "rrw": the reading behind Kata's shim
             (KG_MODE_SHIM), which ignores "rro"
     ro_oci  that, or "rro" without "rrw": the reading in front of an OCI
             runtime (KG_MODE_OCI), which applies "rro"
   A mount that is no object is null. */
static struct json_object *
mount_readings (struct jv *doc)
{
  struct jv *mounts = doc != NULL ? jv_get (doc, "mounts") : NULL;
  struct json_object *out = json_object_new_array ();
  bool all_ro = strcmp (plant (), "ro") == 0;

  for (size_t i = 0; out != NULL && i < jv_length (mounts); i++)
    {
      struct jv *m = jv_at (mounts, i), *type;
      struct json_object *r;
      unsigned w;
      bool ro;

      if (m == NULL || ! jv_is_type (m, json_type_object)
          || (r = json_object_new_object ()) == NULL)
        {
          json_object_array_add (out, NULL);
          continue;
        }
      w = mount_option_words (jv_get (m, "options"), NULL, NULL);
      type = jv_get (m, "type");
      ro = ((w & OPT_RO) && ! (w & (OPT_RW | OPT_RRW))) || all_ro;
      json_object_object_add (r, "bind",
                              json_object_new_boolean (
                                  (w & OPT_BIND)
                                  || (type != NULL && jv_is_type (type, json_type_string)
                                      && strcmp (jv_string (type), "bind") == 0)));
      json_object_object_add (r, "ro", json_object_new_boolean (ro));
      json_object_object_add (r, "ro_oci",
                              json_object_new_boolean (ro || ((w & OPT_RRO) && ! (w & OPT_RRW))));
      json_object_array_add (out, r);
    }
  return out;
}

static struct guard_config cfg;

/* The start's own rule (start/wrapper.c): it goes ahead unless a result is a
   fail.  The first policy.* fail, as "ID: reason", or NULL. */
static const struct check_result *
first_policy_fail (const struct report *rep)
{
  for (size_t i = 0; i < rep->n; i++)
    if (rep->results[i].verdict == VERDICT_FAIL && strncmp (rep->results[i].id, "policy.", 7) == 0)
      return &rep->results[i];
  return NULL;
}

/* DOC (the policy's tree) in json-c's form for the line: value for
   value, keys in order, a double as written (json-c prints it so). */
static struct json_object *
as_json_c (const struct jv *v)
{
  struct json_object *o = NULL;

  switch (jv_type (v))
    {
    case json_type_null:
      return NULL;
    case json_type_boolean:
      return json_object_new_boolean (v->u.b);
    case json_type_int:
      return v->big ? json_object_new_uint64 (v->u.u) : json_object_new_int64 (v->u.i);
    case json_type_double:
      return json_object_new_double_s (strtod (v->u.s, NULL), v->u.s);
    case json_type_string:
      return json_object_new_string_len (v->u.s, (int) v->n);
    case json_type_array:
      o = json_object_new_array ();
      for (size_t i = 0; o != NULL && i < jv_length (v); i++)
        json_object_array_add (o, as_json_c (jv_at (v, i)));
      return o;
    case json_type_object:
      o = json_object_new_object ();
      for (size_t i = 0; o != NULL && i < jv_members (v); i++)
        json_object_object_add (o, jv_member_key (v, i), as_json_c (jv_member_value (v, i)));
      return o;
    }
  return NULL;
}

static int
view_spec (const char *file)
{
  kg_error_t err = NULL;
  struct json_object *line, *tree, *mounts;
  struct request req;
  struct report rep;
  struct preflight pf;
  const struct check_result *fail;
  char *buf, *refused = NULL;
  size_t len;
  int rc;

  if ((line = read_input (file, &buf, &len)) == NULL)
    return -1;
  /* The policy's own tree, in json-c's form for the line. */
  {
    struct jv *doc = policy_spec_parse (file, buf, len, &err);

    tree = as_json_c (doc);
    mounts = mount_readings (doc);
    jv_free (doc);
  }

  /* The verdict the start would get, through the same trusted-path read
     of the bundle's config.json as in production. */
  if (! fuzz_write ("config.json", (const uint8_t *) buf, len))
    {
      fprintf (stderr, "guard-view: cannot write %s/config.json\n", fuzz_dir ());
      json_object_put (tree);
      json_object_put (mounts);
      json_object_put (line);
      kg_error_release (&err);
      free (buf);
      return -1;
    }
  memset (&req, 0, sizeof req);
  memset (&rep, 0, sizeof rep);
  req.mode = KG_MODE_SHIM;
  req.container_id = "oracle";
  req.bundle = fuzz_dir ();
  preflight_init (&pf, &req, &cfg, &rep);
  pf.from_kata.config = calloc (1, sizeof *pf.from_kata.config);
  if (pf.from_kata.config != NULL)
    {
      kg_error_t kerr = NULL;

      pf.from_kata.config->doc = toml_parse ("kata.toml", kata_toml, sizeof kata_toml - 1, &kerr);
      kg_error_release (&kerr);
      pf.from_kata.config->hypervisor_name = "firecracker";
      pf.from_kata.config->hypervisor = toml_get_path (pf.from_kata.config->doc, "hypervisor",
                                                       "firecracker", NULL);
    }
  if (pf.from_kata.config == NULL || pf.from_kata.config->doc == NULL)
    {
      fprintf (stderr, "guard-view: cannot set up the Kata document\n");
      abort ();
    }
  check_policy (&pf);
  fail = first_policy_fail (&rep);
  if (fail != NULL && asprintf (&refused, "%s: %s", fail->id, fail->reason) < 0)
    refused = NULL;
  /* A report that ran out of memory is incomplete: never "allowed". */
  json_object_object_add (line, "allowed", json_object_new_boolean (fail == NULL && ! rep.oom));
  json_object_object_add (line, "refused",
                          json_object_new_string (refused   ? refused
                                                  : rep.oom ? "out of memory"
                                                            : ""));
  /* Not the tree check_policy judged, but the same parser on the same
     bytes: the one the oracle decodes. */
  if (fail == NULL)
    plant_string (tree, "process", "cwd");
  json_object_object_add (line, "tree", tree);
  json_object_object_add (line, "mounts", mounts);
  if (tree == NULL)
    json_object_object_add (line, "parse_error", json_object_new_string (err ? err->msg : "?"));
  preflight_release (&pf);
  report_release (&rep);
  kg_error_release (&err);
  free (refused);
  free (buf);
  rc = emit (line);
  return rc;
}

/* ---- kata --------------------------------------------------------------- */

/* The guard's TOML value as JSON.  A float is {"$float":TEXT} with TEXT
   the exact double (%.17g) or nan / inf / -inf: JSON has no non-finite
   numbers, and json-c's own float output would round.  toml_parse refuses
   date-times and inline tables, so the tree never holds them. */
static struct json_object *
toml_to_json (const struct toml_value *v)
{
  struct json_object *o;
  char num[40];

  switch (v->kind)
    {
    case TOML_STRING:
      return json_object_new_string (v->u.string);
    case TOML_INTEGER:
      return json_object_new_int64 (v->u.integer);
    case TOML_BOOLEAN:
      return json_object_new_boolean (v->u.boolean);
    case TOML_FLOAT:
      if (isnan (v->u.floating))
        snprintf (num, sizeof num, "nan");
      else if (isinf (v->u.floating))
        snprintf (num, sizeof num, "%sinf", v->u.floating < 0 ? "-" : "");
      else
        snprintf (num, sizeof num, "%.17g", v->u.floating);
      o = json_object_new_object ();
      if (o != NULL)
        json_object_object_add (o, "$float", json_object_new_string (num));
      return o;
    case TOML_ARRAY:
      o = json_object_new_array ();
      for (size_t i = 0; o != NULL && i < v->u.array.n; i++)
        json_object_array_add (o, toml_to_json (v->u.array.items[i]));
      return o;
    case TOML_TABLE:
      o = json_object_new_object ();
      for (size_t i = 0; o != NULL && i < v->u.table.n; i++)
        json_object_object_add (o, v->u.table.items[i].key,
                                toml_to_json (v->u.table.items[i].value));
      return o;
    }
  return NULL;
}

static int
view_kata (const char *file)
{
  kg_error_t err = NULL;
  struct json_object *line;
  struct toml_value *doc;
  const struct toml_entry *bad = NULL;
  const char *why = NULL;
  char *buf, *refused = NULL;
  size_t len;

  if ((line = read_input (file, &buf, &len)) == NULL)
    return -1;
  doc = toml_parse (file, buf, len, &err);
  if (doc != NULL)
    bad = kata_unreadable_entry (doc, &why);
  if (doc == NULL)
    refused = strdup (err ? err->msg : "?");
  else if (bad != NULL
           && asprintf (&refused, "%s:%u: key \"%.80s\" %s", file, bad->line, bad->key, why) < 0)
    refused = NULL;
  json_object_object_add (line, "allowed", json_object_new_boolean (doc != NULL && bad == NULL));
  json_object_object_add (line, "refused", json_object_new_string (refused ? refused : ""));
  {
    struct json_object *tree = doc ? toml_to_json (doc) : NULL;
    struct json_object *hv = NULL;

    if (bad == NULL && tree != NULL && json_object_object_get_ex (tree, "hypervisor", &hv))
      plant_string (hv, NULL, "path");
    json_object_object_add (line, "tree", tree);
  }
  toml_free (doc);
  kg_error_release (&err);
  free (refused);
  free (buf);
  return emit (line);
}

int
main (int argc, char **argv)
{
  int (*view) (const char *);
  kg_error_t err = NULL;
  char path[128];
  int status = 0;

  if (argc < 2 || (strcmp (argv[1], "spec") != 0 && strcmp (argv[1], "kata") != 0))
    {
      fprintf (stderr, "usage: guard-view spec|kata FILE...\n");
      return 2;
    }
  if (strcmp (argv[1], "spec") == 0)
    {
      /* The trusted bundle directory under /var/lib/kata-guard-test:
         root only, as for tests/fuzz/replay-policy. */
      if (fuzz_dir () == NULL)
        {
          fprintf (stderr,
                   "guard-view: cannot create a directory under /var/lib/kata-guard-test: %s\n",
                   strerror (errno));
          return 1;
        }
      /* Loaded as a file, as in production: guard_config_load applies
         the defaults (the shipped capability list, the engine's hooks)
         that fuzz_guard_config's bare table would leave empty. */
      if (! fuzz_write ("guard.toml", (const uint8_t *) guard_toml, sizeof guard_toml - 1)
          || snprintf (path, sizeof path, "%s/guard.toml", fuzz_dir ()) >= (int) sizeof path
          || guard_config_load (path, &cfg, &err) < 0)
        {
          fprintf (stderr, "guard-view: the guard configuration: %s\n",
                   err ? err->msg : "cannot write it");
          kg_error_release (&err);
          return 1;
        }
      view = view_spec;
    }
  else
    view = view_kata;
  for (int i = 2; i < argc; i++)
    if (view (argv[i]) < 0)
      status = 1;
  if (fflush (stdout) != 0)
    status = 1;
  if (view == view_spec)
    guard_config_release (&cfg);
  return status;
}
