/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kata-guard install` / `uninstall` for containerd and CRI-O
 * (kata-guard(8), COMMANDS).  containerd 2.x: the runtime's table as a
 * drop-in where its config.toml imports a drop-in directory, else printed
 * for it; containerd 1.x (which replaces a plugin's whole table with a
 * later file's): added to the file that holds the CRI plugin's table,
 * checked against `containerd config dump`; CRI-O: its drop-in
 * directory's DIR/50-NAME.conf.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "capture.h"
#include "cleanup.h"
#include "command.h"
#include "error.h"
#include "fdio.h"
#include "install-int.h"
#include "kata.h"
#include "replace.h"
#include "storage.h"
#include "text.h"
#include "toml.h"

/* The engine a drop-in is for, in what install and uninstall say. */
struct dropin_engine
{
  const char *name;     /* "containerd", "CRI-O" */
  const char *service;  /* its systemd unit */
  const char *read_by;  /* how the engine reads the drop-in */
  const char *kata_key; /* where the Kata configuration goes */
};

/* ---- containerd ------------------------------------------------------------------ */

/* The CRI plugin that holds runtimes, by config version: 2 for
   containerd 1.6/1.7, 3 for 2.x. */
static const char *
cri_plugin (int config_version)
{
  if (config_version == 1)
    return "cri"; /* a file without a version, as 1.x reads it */
  return config_version >= 3 ? "io.containerd.cri.v1.runtime" : "io.containerd.grpc.v1.cri";
}

/* A TOML key for NAME: bare when it can be ('.' would split it). */
static char *
toml_key (const char *name)
{
  char *k = NULL;

  if (strchr (name, '.') != NULL)
    return asprintf (&k, "\"%s\"", name) < 0 ? NULL : k;
  return strdup (name);
}

static char *
runtime_block (int config_version, const char *name, const char *kata_config)
{
  cleanup_free char *key = toml_key (name);
  const char *plugin = cri_plugin (config_version);
  char *s = NULL;

  if (key == NULL
      || asprintf (&s,
                   "[plugins.\"%s\".containerd.runtimes.%s]\n"
                   "  runtime_type = \"" SHIM_RUNTIME_TYPE "\"\n"
                   "  [plugins.\"%s\".containerd.runtimes.%s.options]\n"
                   "    ConfigPath = \"%s\"\n",
                   plugin, key, plugin, key, kata_config)
             < 0)
    return NULL;
  return s;
}

static char *
dropin_text (int config_version, const char *name, const char *kata_config)
{
  cleanup_free char *block = runtime_block (config_version, name, kata_config);
  char *s = NULL;

  if (block == NULL
      || asprintf (&s,
                   "# The kata-guard runtime (kata-guard(8)), written by `kata-guard install "
                   "--containerd`.\n"
                   "version = %d\n\n%s",
                   config_version, block)
             < 0)
    return NULL;
  return s;
}

/* The Kata configuration for ConfigPath: the guard config's [kata] config,
   else the first file of Kata's own search order.  *WHY says which. */
static char *
pick_kata_config (const char *guard_path, const char **why)
{
  cleanup_error kg_error_t err = NULL;
  struct guard_config cfg;
  char *found = NULL;

  if (guard_config_load (guard_path, &cfg, &err) == 0)
    {
      if (*cfg.kata.config != '\0')
        {
          found = strdup (cfg.kata.config);
          *why = "[kata] config of the guard configuration";
        }
      guard_config_release (&cfg);
      if (found != NULL)
        return found;
    }
  for (size_t i = 0; i < ARRAY_SIZE (kata_search_path); i++)
    if (access (kata_search_path[i], F_OK) == 0)
      {
        *why = "the first file of Kata's search order";
        return strdup (kata_search_path[i]);
      }
  /* The release tarball's default, where kata-deploy installs it. */
  *why = "Kata's default (no Kata configuration found on this host)";
  return strdup (kata_search_path[1]);
}

/* A string TOML can hold as "..." without escapes (the paths we write). */
static bool
toml_plain (const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (kg_is_ctl (*p) || *p == '"' || *p == '\\')
      return false;
  return true;
}

/* From containerd's main config DOC (read from CONFIG), the drop-in file
   to write: the first `imports` entry that is DIR/GLOB with the glob only
   in its last component; the file is DIR/GLOB with "*" -> "kata-guard".
   NULL (and *WHY) when there is none. */
static char *
dropin_path (const struct toml_value *doc, const char *config, const char *name, const char **why)
{
  const struct toml_value *imports = toml_get (doc, "imports");

  *why = "it has no `imports`";
  if (imports == NULL)
    return NULL;
  if (imports->kind != TOML_ARRAY)
    {
      *why = "its `imports` is not an array";
      return NULL;
    }
  for (size_t i = 0; i < imports->u.array.n; i++)
    {
      const struct toml_value *v = imports->u.array.items[i];
      cleanup_free char *dir = NULL, *file = NULL;
      const char *pat, *star, *slash;
      char *out = NULL;

      if (v->kind != TOML_STRING)
        continue;
      slash = strrchr (v->u.string, '/');
      pat = slash ? slash + 1 : v->u.string;
      star = strchr (pat, '*');
      /* One "*" in the last component, no other glob, none above it. */
      if (star == NULL || strchr (star + 1, '*') != NULL || strpbrk (pat, "?[\\") != NULL
          || (slash != NULL && strpbrk (v->u.string, "*?[") < slash))
        continue;
      if (slash == NULL)
        dir = strdup (".");
      else
        dir = strndup (v->u.string, (size_t) (slash - v->u.string));
      if (dir == NULL || asprintf (&file, "%.*s%s%s", (int) (star - pat), pat, name, star + 1) < 0)
        return NULL;
      if (fnmatch (pat, file, FNM_PERIOD) != 0)
        continue;
      /* containerd resolves a relative import against the main config's
         directory. */
      if (dir[0] == '/')
        {
          if (asprintf (&out, "%s/%s", dir, file) < 0)
            return NULL;
        }
      else
        {
          const char *cs = strrchr (config, '/');

          if (asprintf (&out, "%.*s/%s/%s", cs ? (int) (cs - config) : 1, cs ? config : ".", dir,
                        file)
              < 0)
            return NULL;
        }
      return out;
    }
  *why = "none of its `imports` is a DIR/*.toml glob";
  return NULL;
}

/* Where containerd takes the runtime: the layout of its config version (0
   when unknown), and the drop-in file its main config imports, or NULL
   and why there is none. */
struct containerd_target
{
  int version;
  char *dropin;
  const char *no_dropin;
  /* containerd 1.x: the last file of those it reads that holds the CRI
     plugin's table, whose whole table a drop-in would replace; NULL:
     none, or containerd merges key by key. */
  char *cri_file;
  int cri_version; /* the config version of cri_file's CRI table: 1 or 2 */
  bool unreadable; /* containerd 1.x, and a file it reads cannot be read */
};

static void
containerd_target_release (struct containerd_target *t)
{
  free (t->dropin);
  free (t->cri_file);
}
#define cleanup_containerd_target __attribute__ ((cleanup (containerd_target_release)))

/* Read containerd's main config for T.  One that cannot be read is not
   the end of command CMD (the table is printed for the operator to add),
   only of the drop-in. */
static int
containerd_locate (const struct opts *o, const char *cmd, struct containerd_target *t,
                   kg_error_t *err)
{
  cleanup_toml struct toml_value *doc = NULL;
  cleanup_error kg_error_t why = NULL;

  /* The config version decides the layout; without one, containerd's own
     version does (1.x reads version 2, 2.x version 3). */
  if (access (o->containerd_config, F_OK) == 0)
    {
      doc = toml_parse_file (o->containerd_config, &why);
      if (doc == NULL)
        {
          fprintf (stderr, "kata-guard: %s: cannot read %s: %s\n", cmd, o->containerd_config,
                   why->msg);
          t->no_dropin = "kata-guard cannot read it";
        }
      else
        {
          const struct toml_value *v = toml_get (doc, "version");

          if (v != NULL && v->kind == TOML_INTEGER && (v->u.integer == 2 || v->u.integer == 3))
            t->version = (int) v->u.integer;
        }
    }
  else
    t->no_dropin = "it does not exist";
  if (t->version == 0)
    {
      int major = containerd_major ();

      if (major >= 2)
        t->version = 3;
      else if (major == 1)
        t->version = 2;
    }
  if (doc != NULL && t->no_dropin == NULL)
    {
      t->dropin = dropin_path (doc, o->containerd_config, o->name, &t->no_dropin);
      if (t->dropin == NULL && t->no_dropin == NULL)
        return kg_error (err, 0, "out of memory");
    }
  return 0;
}

/* Whether A and B name the same file (both may not exist). */
static bool
same_file (const char *a, const char *b)
{
  struct stat sa, sb;

  if (stat (a, &sa) == 0 && stat (b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return strcmp (a, b) == 0;
}

/* containerd 1.x replaces a plugin's table whole with a later file's
   (its mergeConfig; containerd issue 5837, deep merging only from 2.0,
   PR 9982): a drop-in holding the runtime would drop every other CRI
   setting of the files before it (sandbox_image, snapshotter,
   SystemdCgroup), and a later file holding the table would drop the
   runtime.  So where containerd is 1.x (or cannot be told, with a
   version 2 config), and any file it reads but the drop-in holds the
   CRI plugin's table, the runtime goes into the last such file, by hand:
   T->cri_file. */
static int
containerd_cri_file (const struct opts *o, struct containerd_target *t, kg_error_t *err)
{
  __attribute__ ((cleanup (containerd_files_release))) struct containerd_files f = { .n = 0 };
  cleanup_error kg_error_t why = NULL;

  if (t->version != 2 || (t->dropin == NULL && access (o->containerd_config, F_OK) != 0)
      || containerd_major () >= 2)
    return 0;
  if (containerd_files_load (o->containerd_config, &f, &why) < 0)
    {
      /* Not read as containerd reads it: where the CRI table is cannot be
         told, and a drop-in could replace it. */
      free (t->dropin);
      t->dropin = NULL;
      t->unreadable = true;
      return kg_error (err, 0, "cannot read the files of containerd's configuration %s: %s",
                       o->containerd_config, why->msg);
    }
  /* Version 2's key, and version 1's ("cri"): a main file without a
     version that 1.x reads as version 1 holds its CRI settings there. */
  for (size_t i = f.n; i-- > 0;)
    {
      int v = toml_get_path (f.doc[i], "plugins", cri_plugin (2), NULL) != NULL   ? 2
              : toml_get_path (f.doc[i], "plugins", cri_plugin (1), NULL) != NULL ? 1
                                                                                  : 0;

      if (v == 0 || (t->dropin != NULL && same_file (f.path[i], t->dropin)))
        continue;
      if ((t->cri_file = strdup (f.path[i])) == NULL)
        return kg_error (err, ENOMEM, "out of memory");
      t->cri_version = v;
      return 0;
    }
  /* No file holds it and none is imported: the main config gets the
     table, in the layout of its version (none: 1.x reads version 1). */
  if (t->dropin == NULL && f.n > 0)
    {
      const struct toml_value *v = toml_get (f.doc[0], "version");

      if ((t->cri_file = strdup (f.path[0])) == NULL)
        return kg_error (err, ENOMEM, "out of memory");
      t->cri_version = v != NULL && v->kind == TOML_INTEGER && v->u.integer == 2 ? 2 : 1;
    }
  return 0;
}

/* The last line of every table given to be added by hand. */
static void
say_restart_containerd (void)
{
  printf ("# then restart containerd (running containers keep running): systemctl restart "
          "containerd\n");
}

/* Neither the config nor containerd tells the version: install prints
   both layouts, uninstall cannot tell what to remove. */
static int
containerd_version_unknown (const struct opts *o, bool install, const char *kata_config,
                            const char *kata_why, kg_error_t *err)
{
  cleanup_free char *b2 = runtime_block (2, o->name, kata_config);
  cleanup_free char *b3 = runtime_block (3, o->name, kata_config);

  if (! install)
    return kg_error (err, 0,
                     "cannot tell the containerd version (no `version` in %s, no "
                     "`containerd --version`): nothing removed",
                     o->containerd_config),
           KG_EXIT_USAGE;
  if (b2 == NULL || b3 == NULL)
    return KG_EXIT_FAIL;
  printf ("# containerd 1.6 and 1.7 (config version 2): add to %s\n%s\n"
          "# containerd 2.x (config version 3): add to %s\n%s",
          o->containerd_config, b2, o->containerd_config, b3);
  printf ("# ConfigPath: %s\n", kata_why);
  printf ("# kata-guard cannot tell the containerd version here (no `version` in %s, no "
          "`containerd --version`): nothing written\n",
          o->containerd_config);
  say_restart_containerd ();
  return KG_EXIT_PASS;
}

/* Open the drop-in PATH into R for CMD, saying when temporary files that
   an interrupted run left beside it were removed. */
static int
dropin_open (const char *cmd, const char *path, struct kg_replace *r, kg_error_t *err)
{
  if (kg_replace_open (path, TOML_MAX_SIZE, r, err) < 0)
    return -1;
  if (r->removed_temps > 0)
    printf ("kata-guard: %s: removed %u temporary file%s that an interrupted run left beside "
            "%s\n",
            cmd, r->removed_temps, r->removed_temps == 1 ? "" : "s", r->path);
  return 0;
}

/* ---- containerd 1.x: the runtime in the file that holds the CRI table ---------------- */

/* The first and the last lines of what install adds at the end of that
   file, and uninstall takes out. */
#define CRI_FILE_BEGIN                                                                             \
  "\n# The kata-guard runtime (kata-guard(8)), added by `kata-guard install --containerd`;\n"      \
  "# `kata-guard uninstall --containerd` removes it, down to the line \"# end of the "             \
  "kata-guard runtime\".\n"
#define CRI_FILE_END "# end of the kata-guard runtime\n"

/* S as a TOML basic string. */
static void
emit_quoted (FILE *f, const char *s)
{
  fputc ('"', f);
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p == '"' || *p == '\\')
      fprintf (f, "\\%c", *p);
    else if (kg_is_ctl (*p))
      fprintf (f, "\\u%04x", *p);
    else
      fputc (*p, f);
  fputc ('"', f);
}

/* KEY as TOML writes it: bare when it can be, else quoted. */
static void
emit_key (FILE *f, const char *key)
{
  static const char bare[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

  if (*key != '\0' && strspn (key, bare) == strlen (key))
    fputs (key, f);
  else
    emit_quoted (f, key);
}

/* A value that is not a table, as TOML writes it; -1 for what is not
   written here (arrays of tables, floats that are not finite). */
static int
emit_scalar (FILE *f, const struct toml_value *v)
{
  switch (v->kind)
    {
    case TOML_STRING:
      emit_quoted (f, v->u.string);
      return 0;
    case TOML_INTEGER:
      fprintf (f, "%" PRId64, v->u.integer);
      return 0;
    case TOML_FLOAT:
      {
        char num[64];

        if (! isfinite (v->u.floating))
          return -1;
        snprintf (num, sizeof num, "%.17g", v->u.floating);
        /* "1" would read back as an integer. */
        fprintf (f, "%s%s", num, strpbrk (num, ".e") ? "" : ".0");
        return 0;
      }
    case TOML_BOOLEAN:
      fputs (v->u.boolean ? "true" : "false", f);
      return 0;
    case TOML_ARRAY:
      fputc ('[', f);
      for (size_t i = 0; i < v->u.array.n; i++)
        if ((i > 0 && fputs (", ", f) < 0) || v->u.array.items[i]->kind == TOML_TABLE
            || emit_scalar (f, v->u.array.items[i]) < 0)
          return -1;
      fputc (']', f);
      return 0;
    case TOML_TABLE:
      break;
    }
  return -1;
}

/* Table T as TOML under the header NAME: its values, then its tables. */
static int
emit_table (FILE *f, const char *name, const struct toml_value *t)
{
  fprintf (f, "[%s]\n", name);
  for (size_t i = 0; i < t->u.table.n; i++)
    if (t->u.table.items[i].value->kind != TOML_TABLE)
      {
        emit_key (f, t->u.table.items[i].key);
        fputs (" = ", f);
        if (emit_scalar (f, t->u.table.items[i].value) < 0)
          return -1;
        fputc ('\n', f);
      }
  for (size_t i = 0; i < t->u.table.n; i++)
    if (t->u.table.items[i].value->kind == TOML_TABLE)
      {
        cleanup_free char *sub = NULL;
        size_t size = 0;
        FILE *k = open_memstream (&sub, &size);

        if (k == NULL)
          return -1;
        fprintf (k, "%s.", name);
        emit_key (k, t->u.table.items[i].key);
        if (fclose (k) != 0 || emit_table (f, sub, t->u.table.items[i].value) < 0)
          return -1;
      }
  return 0;
}

/* What install adds at the end of the file holding the CRI table (config
   version CRI_VERSION): the runtime's table between the two marks.  Where
   that table defines no runtimes (FILE_RUNTIMES NULL), containerd 1.x
   drops the ones it has by default (runc, default_runtime_name's) as soon
   as one is defined: those of the dump BEFORE are written too, as it
   shows them, so that containerd's reading gains the runtime and nothing
   else. */
static char *
cri_file_insert (int cri_version, const char *name, const char *kata_config,
                 const struct toml_value *file_runtimes, const struct toml_value *before,
                 kg_error_t *err)
{
  const struct toml_value *dumped = toml_get_path (before, "plugins", cri_plugin (2), "containerd",
                                                   "runtimes", NULL);
  cleanup_free char *block = runtime_block (cri_version, name, kata_config);
  char *s = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&s, &size);
  int bad = f == NULL || block == NULL;

  if (bad)
    {
      if (f != NULL)
        fclose (f);
      free (s);
      return kg_error (err, ENOMEM, "cannot allocate"), NULL;
    }
  fputs (CRI_FILE_BEGIN, f);
  for (size_t i = 0; file_runtimes == NULL && dumped != NULL && dumped->kind == TOML_TABLE
                     && i < dumped->u.table.n && ! bad;
       i++)
    {
      cleanup_free char *key = NULL;
      size_t ksize = 0;
      FILE *k = open_memstream (&key, &ksize);

      if (strcmp (dumped->u.table.items[i].key, name) == 0 || k == NULL)
        {
          bad = k == NULL;
          if (k != NULL)
            fclose (k);
          continue;
        }
      fprintf (k, "plugins.\"%s\".containerd.runtimes.", cri_plugin (cri_version));
      emit_key (k, dumped->u.table.items[i].key);
      bad = fclose (k) != 0 || dumped->u.table.items[i].value->kind != TOML_TABLE
            || emit_table (f, key, dumped->u.table.items[i].value) < 0;
    }
  fputs (block, f);
  fputs (CRI_FILE_END, f);
  if (fclose (f) != 0 || bad)
    {
      free (s);
      return kg_error (err, 0,
                       "cannot write containerd's default runtimes into TOML as its `config "
                       "dump` shows them"),
             NULL;
    }
  return s;
}

/* DATA[0..LEN) with INSERT added at its end (after a newline when it
   lacks one): what install writes. */
static char *
cri_file_with (const char *data, size_t len, const char *insert, size_t *out_len)
{
  bool nl = len == 0 || data[len - 1] == '\n';
  char *s = NULL;
  int n = asprintf (&s, "%.*s%s%s", (int) len, data, nl ? "" : "\n", insert);

  if (n < 0)
    return NULL;
  *out_len = (size_t) n;
  return s;
}

/* containerd's reading of CONFIG and every file it imports, parsed: the
   output of `containerd --config CONFIG config dump`. */
static struct toml_value *
containerd_dump (const char *config, kg_error_t *err)
{
  char *const argv[] = { (char *) "containerd", (char *) "--config", (char *) config,
                         (char *) "config",     (char *) "dump",     NULL };
  cleanup_free char *out = NULL;
  size_t len = 0;

  out = kg_capture_engine_max (argv, TOML_MAX_SIZE, &len);
  if (out == NULL)
    return kg_error (err, 0, "`containerd --config %s config dump` failed (run it to see why)",
                     config),
           NULL;
  return toml_parse ("containerd config dump", out, len, err);
}

/* Whether WITH, a dump, is WITHOUT plus the runtime NAME (runtime_type
   the guard's, options.ConfigPath KATA_CONFIG) and nothing else.  WITH
   loses the runtime's table. */
static int
dump_differs_by_runtime (struct toml_value *with, const struct toml_value *without,
                         const char *name, const char *kata_config, kg_error_t *err)
{
  const struct toml_value *runtimes = toml_get_path (with, "plugins", cri_plugin (2), "containerd",
                                                     "runtimes", NULL);
  const struct toml_value *rt = toml_get (runtimes, name);
  const struct toml_value *type = toml_get (rt, "runtime_type");
  const struct toml_value *cp = toml_get_path (rt, "options", "ConfigPath", NULL);
  cleanup_toml struct toml_value *taken = NULL;

  if (rt == NULL)
    return kg_error (err, 0, "containerd does not read the runtime %s from it", name);
  if (type == NULL || type->kind != TOML_STRING || strcmp (type->u.string, SHIM_RUNTIME_TYPE) != 0
      || cp == NULL || cp->kind != TOML_STRING || strcmp (cp->u.string, kata_config) != 0)
    return kg_error (err, 0,
                     "containerd reads the runtime %s with another runtime_type or "
                     "ConfigPath than the table holds",
                     name);
  taken = toml_remove ((struct toml_value *) runtimes, name);
  /* Tables that held only the runtime, and that WITHOUT lacks, go too. */
  for (int depth = 3; depth >= 0; depth--)
    {
      const char *const path[] = { "plugins", cri_plugin (2), "containerd", "runtimes" };
      struct toml_value *parent = with, *child;
      const struct toml_value *other = without;

      for (int i = 0; i < depth; i++)
        {
          parent = (struct toml_value *) toml_get (parent, path[i]);
          other = toml_get (other, path[i]);
        }
      child = (struct toml_value *) toml_get (parent, path[depth]);
      if (child != NULL && child->kind == TOML_TABLE && child->u.table.n == 0
          && toml_get (other, path[depth]) == NULL)
        toml_free (toml_remove (parent, path[depth]));
    }
  if (! toml_equal (with, without))
    return kg_error (err, 0,
                     "containerd's reading of its configuration changes beyond the runtime %s",
                     name);
  return 0;
}

/* Replace R's file with DATA[0..LEN), then compare containerd's reading
   of o->containerd_config before (BEFORE, a dump) and after: with INSTALL the runtime must
   be the one thing added, else the one thing taken away.  Otherwise the
   file is put back as it was (a backup made now removed) and -1. */
static int
cri_file_commit (const struct opts *o, bool install, struct kg_replace *r, const char *data,
                 size_t len, const char *kata_config, struct toml_value *before, char **backup,
                 kg_error_t *err)
{
  cleanup_toml struct toml_value *after = NULL;
  cleanup_error kg_error_t why = NULL, undo = NULL;
  int rc;

  *backup = NULL;
  if (kg_replace_commit (r, data, len, install, backup, err) < 0)
    return kg_error_prefix (err, "%s is unchanged", r->path);
  after = containerd_dump (o->containerd_config, &why);
  rc = after == NULL ? -1
       : install     ? dump_differs_by_runtime (after, before, o->name, kata_config, &why)
                     : dump_differs_by_runtime (before, after, o->name, kata_config, &why);
  if (rc == 0)
    return 0;
  /* Roll back: the old bytes, and no backup of a change that is undone. */
  if (kg_replace_commit (r, r->data, r->len, false, NULL, &undo) < 0)
    return kg_error (err, 0, "%s; and putting %s back failed: %s: restore it from %s%s", why->msg,
                     r->path, undo->msg, r->path, KG_BACKUP_SUFFIX);
  if (*backup != NULL)
    {
      unlink (*backup);
      free (*backup);
      *backup = NULL;
    }
  return kg_error (err, 0, "%s; %s is put back as it was", why->msg, r->path);
}

/* Whether the CRI table DOC (version CRI_VERSION) holds the runtime
   NAME, and whether it is the guard's. */
static const struct toml_value *
cri_file_runtime (const struct toml_value *doc, int cri_version, const char *name, bool *ours,
                  const char *kata_config)
{
  const struct toml_value *rt = toml_get_path (doc, "plugins", cri_plugin (cri_version),
                                               "containerd", "runtimes", name, NULL);
  const struct toml_value *type = toml_get (rt, "runtime_type");
  const struct toml_value *cp = toml_get_path (rt, "options", "ConfigPath", NULL);

  *ours = type != NULL && type->kind == TOML_STRING
          && strcmp (type->u.string, SHIM_RUNTIME_TYPE) == 0 && cp != NULL
          && cp->kind == TOML_STRING && strcmp (cp->u.string, kata_config) == 0;
  return rt;
}

/* CMD leaves PATH as it is, which already HOLDS the runtime NAME (or not). */
static int
cri_file_unchanged (const char *cmd, const char *path, const char *holds, const char *name)
{
  printf ("kata-guard: %s: %s %s \"%s\"; nothing changed\n", cmd, path, holds, name);
  return KG_EXIT_PASS;
}

/* CMD refuses (exit 2) for the reason FMT, and says PATH was not touched. */
static int __attribute__ ((format (printf, 4, 5)))
cri_file_refuse (kg_error_t *err, const char *cmd, const char *path, const char *fmt, ...)
{
  cleanup_error kg_error_t why = NULL;
  va_list ap;

  va_start (ap, fmt);
  kg_verror (&why, 0, fmt, ap);
  va_end (ap);
  return error_and_outcome (err, cmd, why, path, "was not touched"), KG_EXIT_USAGE;
}

/* containerd 1.x, a file holding the CRI plugin's table (T->cri_file):
   install adds the runtime's table at its end (a drop-in would replace
   that CRI table whole), uninstall takes out exactly what install added.
   Either checks containerd's reading of its configuration. */
static int
containerd_cri_file_cmd (const struct opts *o, bool install, const struct containerd_target *t,
                         const char *kata_config, const char *kata_why, kg_error_t *err)
{
  const char *cmd = install ? "install" : "uninstall";
  cleanup_replace struct kg_replace r = { .dirfd = -1 };
  cleanup_free char *insert = NULL, *out = NULL, *backup = NULL, *bak = NULL, *bak_data = NULL;
  cleanup_toml struct toml_value *doc = NULL, *before = NULL;
  cleanup_error kg_error_t why = NULL;
  const struct toml_value *rt;
  size_t out_len = 0, bak_len = 0;
  bool ours = false;
  const char *at = NULL, *end = NULL;

  if (dropin_open (cmd, t->cri_file, &r, err) < 0)
    return KG_EXIT_USAGE;
  doc = toml_parse (r.path, r.data ? r.data : "", r.len, &why);
  if (doc == NULL)
    return error_and_outcome (err, cmd, why, r.path, "was not touched"), KG_EXIT_USAGE;
  rt = cri_file_runtime (doc, t->cri_version, o->name, &ours, kata_config);
  if (r.data != NULL && (at = strstr (r.data, CRI_FILE_BEGIN)) != NULL)
    end = strstr (at, CRI_FILE_END);
  if (install)
    {
      if (t->dropin != NULL && access (t->dropin, F_OK) == 0)
        return kg_error (err, 0,
                         "%s exists: containerd 1.x takes the CRI plugin's whole table from "
                         "it, replacing %s's; remove it first (kata-guard uninstall "
                         "--containerd removes the one install wrote)",
                         t->dropin, r.path),
               KG_EXIT_USAGE;
      if (rt != NULL && ours)
        return cri_file_unchanged (cmd, r.path, "already holds the runtime", o->name);
      if (rt != NULL || at != NULL)
        return cri_file_refuse (err, cmd, r.path,
                                "%s already holds a runtime \"%s\" that is not kata-guard's, or "
                                "a changed one; remove it or pick another --name",
                                r.path, o->name);
      if ((before = containerd_dump (o->containerd_config, err)) == NULL)
        return kg_error_prefix (err, "%s was not touched", r.path), KG_EXIT_USAGE;
      insert = cri_file_insert (t->cri_version, o->name, kata_config,
                                toml_get_path (doc, "plugins", cri_plugin (t->cri_version),
                                               "containerd", "runtimes", NULL),
                                before, err);
      if (insert == NULL)
        return kg_error_prefix (err, "%s was not touched", r.path), KG_EXIT_USAGE;
      out = cri_file_with (r.data ? r.data : "", r.len, insert, &out_len);
    }
  else
    {
      if (rt == NULL && at == NULL)
        return cri_file_unchanged (cmd, r.path, "holds no runtime", o->name);
      if (at == NULL || end == NULL || strstr (at + 1, CRI_FILE_BEGIN) != NULL)
        return cri_file_refuse (err, cmd, r.path,
                                "%s: the runtime \"%s\" is not in the lines kata-guard install "
                                "added (changed, or added by hand): remove it by hand",
                                r.path, o->name);
      end += strlen (CRI_FILE_END);
      /* Byte for byte the file before install when nothing else changed
         since: the backup, if install made the file from it. */
      if (asprintf (&bak, "%s" KG_BACKUP_SUFFIX, r.path) >= 0
          && kg_read_file_bounded (bak, 0, TOML_MAX_SIZE, &bak_data, &bak_len, &why) == 0
          && (insert = strndup (at, (size_t) (end - at))) != NULL)
        {
          cleanup_free char *from_bak = cri_file_with (bak_data, bak_len, insert, &out_len);

          if (from_bak != NULL && out_len == r.len && memcmp (from_bak, r.data, r.len) == 0)
            out = strndup (bak_data, out_len = bak_len);
        }
      if (out == NULL && asprintf (&out, "%.*s%s", (int) (at - r.data), r.data, end) >= 0)
        out_len = r.len - (size_t) (end - at);
      if ((before = containerd_dump (o->containerd_config, err)) == NULL)
        return kg_error_prefix (err, "%s was not touched", r.path), KG_EXIT_USAGE;
    }
  if (out == NULL)
    return kg_error (err, ENOMEM, "cannot allocate"), KG_EXIT_FAIL;
  if (o->dry_run)
    {
      fputs (out, stdout);
      fprintf (stderr,
               "kata-guard: %s: --dry-run: the above is what %s would become; nothing "
               "written\n",
               cmd, r.path);
      return KG_EXIT_PASS;
    }
  if (cri_file_commit (o, install, &r, out, out_len, kata_config, before, &backup, err) < 0)
    return kg_error_prefix (err, "refusing to %s the runtime %s %s", install ? "add" : "remove",
                            install ? "to" : "from", r.path),
           KG_EXIT_USAGE;
  if (install)
    {
      printf ("# kata-guard: install: added to %s, which holds the CRI plugin's table (a drop-in "
              "would replace that table whole on containerd 1.x):\n%s",
              r.path, insert + 1);
      printf ("# ConfigPath: %s\n", kata_why);
      if (backup != NULL)
        printf ("# kata-guard: install: the file as it was is saved as %s\n", backup);
      printf ("# kata-guard: install: `containerd config dump` differs only by the runtime; "
              "restart containerd to apply it (running containers keep running): systemctl "
              "restart containerd; kata-guard never restarts it\n");
    }
  else
    printf ("kata-guard: uninstall: removed the runtime \"%s\" from %s; restart containerd to "
            "apply it: systemctl restart containerd\n",
            o->name, r.path);
  return KG_EXIT_PASS;
}

/* No drop-in to write, and not containerd 1.x: the operator edits
   containerd's own file. */
static int
containerd_by_hand (const struct opts *o, bool install, const struct containerd_target *t,
                    const char *kata_config, const char *kata_why)
{
  cleanup_free char *block = runtime_block (t->version, o->name, kata_config);

  if (! install)
    {
      printf ("kata-guard: uninstall: %s imports no drop-in directory (%s): remove the "
              "[plugins.\"%s\".containerd.runtimes.%s] table from it by hand\n",
              o->containerd_config, t->no_dropin, cri_plugin (t->version), o->name);
      return KG_EXIT_PASS;
    }
  printf ("# containerd %s (config version %d): add to %s\n%s",
          t->version >= 3 ? "2.x" : "1.6 and 1.7", t->version, o->containerd_config,
          block ? block : "");
  printf ("# ConfigPath: %s\n", kata_why);
  printf ("# %s imports no drop-in directory (%s): kata-guard writes containerd's own file "
          "only on containerd 1.x, so add the table above by hand\n",
          o->containerd_config, t->no_dropin);
  say_restart_containerd ();
  return KG_EXIT_PASS;
}

/* Whether the drop-in R holds exactly TEXT. */
static bool
dropin_is (const struct kg_replace *r, const char *text)
{
  return r->exists && r->len == strlen (text) && memcmp (r->data, text, r->len) == 0;
}

/* Write TEXT into the drop-in R: a file that differs is someone else's
   unless --force. */
static int
dropin_install (const struct opts *o, const struct dropin_engine *e, struct kg_replace *r,
                const char *text, const char *kata_why, kg_error_t *err)
{
  cleanup_error kg_error_t why = NULL;
  cleanup_free char *backup = NULL;
  bool same = dropin_is (r, text);

  if (o->dry_run)
    {
      fputs (text, stdout);
      fprintf (stderr, "kata-guard: install: --dry-run: %s, nothing written to %s\n",
               same ? "no change" : "the drop-in above is what it would become", r->path);
      return KG_EXIT_PASS;
    }
  if (same)
    {
      printf ("kata-guard: install: %s already holds the runtime \"%s\"; nothing changed\n",
              r->path, o->name);
      return KG_EXIT_PASS;
    }
  if (r->exists && ! o->force)
    return kg_error (err, 0,
                     "%s exists and differs from what kata-guard would write; pass "
                     "--force to replace it",
                     r->path),
           KG_EXIT_USAGE;
  if (kg_replace_commit (r, text, strlen (text), true, &backup, &why) < 0)
    return error_and_outcome (err, "install", why, r->path, "is unchanged"), KG_EXIT_FAIL;
  fputs (text, stdout);
  printf ("# kata-guard: install: wrote the drop-in %s (%s; %s: %s)\n", r->path, e->read_by,
          e->kata_key, kata_why);
  if (backup != NULL)
    printf ("# kata-guard: install: the file as it was is saved as %s\n", backup);
  printf ("# kata-guard: install: restart %s to apply it (running containers keep running): "
          "systemctl restart %s; kata-guard never restarts it\n",
          e->name, e->service);
  return KG_EXIT_PASS;
}

/* Remove the drop-in R when it is what install writes (TEXT), any file
   with --force. */
static int
dropin_uninstall (const struct opts *o, const struct dropin_engine *e, struct kg_replace *r,
                  const char *text, kg_error_t *err)
{
  if (! r->exists)
    {
      printf ("kata-guard: uninstall: %s does not exist; nothing changed\n", r->path);
      return KG_EXIT_PASS;
    }
  if (! dropin_is (r, text) && ! o->force)
    return kg_error (err, 0,
                     "%s differs from what kata-guard install writes; pass --force to "
                     "remove it anyway",
                     r->path),
           KG_EXIT_USAGE;
  if (o->dry_run)
    {
      fprintf (stderr, "kata-guard: uninstall: --dry-run: would remove %s\n", r->path);
      return KG_EXIT_PASS;
    }
  if (kg_replace_remove (r, err) < 0)
    return KG_EXIT_FAIL;
  printf ("kata-guard: uninstall: removed %s; restart %s to apply it: systemctl restart %s\n",
          r->path, e->name, e->service);
  return KG_EXIT_PASS;
}

/* install / uninstall --containerd: the drop-in where containerd's main
   config imports one, else what to add or remove by hand. */
int
containerd_cmd (const struct opts *o, bool install, kg_error_t *err)
{
  const char *cmd = install ? "install" : "uninstall";
  cleanup_free char *kata_config = NULL, *text = NULL;
  cleanup_containerd_target struct containerd_target t = { 0 };
  cleanup_replace struct kg_replace r = { .dirfd = -1 };
  const char *kata_why = NULL;
  char read_by[PATH_MAX + 16];
  const struct dropin_engine engine = { "containerd", "containerd", read_by, "ConfigPath" };
  int rc;

  snprintf (read_by, sizeof read_by, "imported by %s", o->containerd_config);
  kata_config = pick_kata_config (o->config, &kata_why);
  if (kata_config == NULL)
    return kg_error (err, 0, "out of memory"), KG_EXIT_FAIL;
  if (! toml_plain (kata_config))
    return kg_error (err, 0, "the Kata configuration path %s cannot be written into TOML as it is",
                     kata_config),
           KG_EXIT_USAGE;
  if (containerd_locate (o, cmd, &t, err) < 0)
    return KG_EXIT_FAIL;
  if (t.version == 0)
    return containerd_version_unknown (o, install, kata_config, kata_why, err);
  text = dropin_text (t.version, o->name, kata_config);
  if (text == NULL)
    return KG_EXIT_FAIL;
  if (containerd_cri_file (o, &t, err) < 0)
    {
      if (! t.unreadable)
        return KG_EXIT_FAIL;
      /* containerd 1.x: without reading every file, where the runtime
         can go is not known. */
      if (install)
        return kg_error_prefix (err, "nothing written"), KG_EXIT_USAGE;
      fprintf (stderr, "kata-guard: uninstall: %s\n", (*err)->msg);
      kg_error_release (err);
    }
  if (t.cri_file != NULL && (install || t.dropin == NULL))
    return containerd_cri_file_cmd (o, install, &t, kata_config, kata_why, err);
  if (t.dropin == NULL)
    return containerd_by_hand (o, install, &t, kata_config, kata_why);
  if (dropin_open (cmd, t.dropin, &r, err) < 0)
    return KG_EXIT_USAGE;
  if (install)
    return dropin_install (o, &engine, &r, text, kata_why, err);
  if (t.cri_file == NULL)
    return dropin_uninstall (o, &engine, &r, text, err);
  /* Both: the drop-in of an earlier install, then the table added to the
     file that holds the CRI table (the lock of a directory both may
     share dropped in between). */
  if (r.exists && (rc = dropin_uninstall (o, &engine, &r, text, err)) != KG_EXIT_PASS)
    return rc;
  kg_replace_close (&r);
  return containerd_cri_file_cmd (o, install, &t, kata_config, kata_why, err);
}

/* CRI-O's handler for the guard (crio.conf(5), [crio.runtime.runtimes]):
   runtime_type "vm" runs it as a shim v2, as CRI-O runs Kata's
   containerd-shim-kata-v2 (the binary's name must be
   containerd-shim-*-v2), with the Kata configuration as
   runtime_config_path; "oci" runs it through conmon as an OCI runtime.
   CRI-O keeps a pod's infra container, which is the pod's VM under Kata,
   for a "vm" handler and for a handler whose name holds "kata". */
static char *
crio_dropin_text (const struct opts *o, const char *exe, const char *shim, const char *kata_config)
{
  cleanup_free char *key = toml_key (o->name);
  char *s = NULL;

  if (key == NULL)
    return NULL;
  if (o->mode == REG_OCI)
    return asprintf (&s,
                     "# The kata-guard runtime (kata-guard(8)), written by `kata-guard install "
                     "--crio --mode oci`.\n"
                     "[crio.runtime.runtimes.%s]\n"
                     "runtime_path = \"%s\"\n"
                     "runtime_type = \"oci\"\n"
                     "runtime_root = \"/run/%s\"\n"
                     "privileged_without_host_devices = true\n",
                     key, exe, o->name)
                   < 0
               ? NULL
               : s;
  return asprintf (&s,
                   "# The kata-guard runtime (kata-guard(8)), written by `kata-guard install "
                   "--crio`.\n"
                   "[crio.runtime.runtimes.%s]\n"
                   "runtime_path = \"%s\"\n"
                   "runtime_type = \"vm\"\n"
                   "runtime_root = \"/run/vc\"\n"
                   "runtime_config_path = \"%s\"\n"
                   "privileged_without_host_devices = true\n",
                   key, shim, kata_config)
                 < 0
             ? NULL
             : s;
}

/* install / uninstall --crio: the drop-in DIR/50-NAME.conf. */
int
crio_cmd (const struct opts *o, bool install, kg_error_t *err)
{
  static const struct dropin_engine engine = { "CRI-O", "crio",
                                               "CRI-O reads every file of its drop-in directory",
                                               "runtime_config_path" };
  const char *cmd = install ? "install" : "uninstall";
  cleanup_free char *kata_config = NULL, *text = NULL, *exe = NULL, *shim = NULL, *path = NULL;
  cleanup_replace struct kg_replace r = { .dirfd = -1 };
  const char *kata_why = NULL;

  if (self_paths (&exe, &shim, err) < 0)
    return KG_EXIT_FAIL;
  if (install && check_registrable (exe, shim, o->mode != REG_OCI, err) < 0)
    return KG_EXIT_USAGE;
  kata_config = pick_kata_config (o->config, &kata_why);
  if (kata_config == NULL)
    return kg_error (err, 0, "out of memory"), KG_EXIT_FAIL;
  if (! toml_plain (kata_config) || ! toml_plain (exe) || ! toml_plain (shim))
    return kg_error (err, 0, "%s or %s cannot be written into TOML as it is", kata_config, exe),
           KG_EXIT_USAGE;
  if (o->mode == REG_OCI && strstr (o->name, "kata") == NULL)
    fprintf (stderr,
             "kata-guard: %s: note: CRI-O keeps a pod's infra container (the pod's VM "
             "under Kata) for an \"oci\" handler only when its name holds \"kata\"; "
             "\"%s\" does not\n",
             cmd, o->name);
  text = crio_dropin_text (o, exe, shim, kata_config);
  if (text == NULL || asprintf (&path, "%s/50-%s.conf", o->crio_dir, o->name) < 0)
    return path = NULL, kg_error (err, ENOMEM, "cannot allocate"), KG_EXIT_FAIL;
  if (dropin_open (cmd, path, &r, err) < 0)
    return KG_EXIT_USAGE;
  if (install)
    return dropin_install (o, &engine, &r, text, kata_why, err);
  /* Either handler type install writes is its own. */
  if (! dropin_is (&r, text))
    {
      struct opts other = *o;

      other.mode = o->mode == REG_OCI ? REG_AUTO : REG_OCI;
      free (text);
      text = crio_dropin_text (&other, exe, shim, kata_config);
      if (text == NULL)
        return kg_error (err, ENOMEM, "cannot allocate"), KG_EXIT_FAIL;
    }
  return dropin_uninstall (o, &engine, &r, text, err);
}
