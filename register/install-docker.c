/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kata-guard install` / `uninstall` for Docker (kata-guard(8), COMMANDS):
 * merge the runtime entry into daemon.json (register/dockerjson.c does the
 * merge, preflight/base/replace.c the atomic write,
 * preflight/parse/daemonjson.c the reading).  The entry names the running binary (install.c: self_paths).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "command.h"
#include "conf.h"
#include "docker.h"
#include "dockerjson.h"
#include "error.h"
#include "install-int.h"
#include "jsonc.h"

/* ---- Docker ---------------------------------------------------------------------- */

static struct json_object *
make_entry (const char *key, const char *value)
{
  struct json_object *o = json_object_new_object ();
  struct json_object *s = json_object_new_string (value);

  if (o == NULL || s == NULL || json_object_object_add (o, key, s) < 0)
    {
      json_object_put (o);
      json_object_put (s);
      return NULL;
    }
  return o;
}

static void
print_entry (FILE *out, struct json_object *entry)
{
  fputs (json_object_to_json_string_ext (entry,
                                         JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE),
         out);
}

static const char reload_hint[]
    = "reload Docker to apply it: systemctl reload docker (or send dockerd SIGHUP); running "
      "containers keep running, and kata-guard never restarts Docker\n";

/* The edit E of command CMD failed with WHY: the command's error and exit
   status. */
static int
edit_failed (const char *cmd, const struct dj_edit *e, kg_error_t why, kg_error_t *err)
{
  if (e->status == DJ_WRITE_FAILED)
    return error_and_outcome (err, cmd, why, e->target ? e->target : e->path, "is unchanged"),
           KG_EXIT_FAIL;
  if (e->target != NULL)
    return error_and_outcome (err, cmd, why, e->target, "was not touched"), KG_EXIT_USAGE;
  return kg_error (err, 0, "%s", why->msg), KG_EXIT_USAGE;
}

static void
note_leftovers (const char *cmd, const struct dj_edit *e)
{
  if (e->removed_temps > 0)
    printf ("kata-guard: %s: removed %u temporary file%s that an interrupted run left in the "
            "directory of %s\n",
            cmd, e->removed_temps, e->removed_temps == 1 ? "" : "s", e->target);
}

/* Print the result of a --dry-run: the file's would-be bytes on stdout. */
static void
dry_run_result (const char *cmd, const struct dj_edit *e)
{
  fwrite (e->result, 1, e->result_len, stdout);
  fprintf (stderr, "kata-guard: %s: --dry-run: %s, nothing written to %s\n", cmd,
           e->changed ? "the file above is what it would become" : "no change", e->target);
}

/* Registering is not enough: say so now when the guard config would
   refuse every start, rather than at the first docker run. */
static void
note_guard_config (const char *path, enum reg_mode mode)
{
  cleanup_error kg_error_t err = NULL;
  struct guard_config cfg;

  if (guard_config_load (path, &cfg, &err) < 0)
    {
      fprintf (stderr,
               "kata-guard: install: note: the guard configuration does not load, so "
               "every start through kata-guard is refused until it does: %s\n",
               err->msg);
      return;
    }
  if (mode == REG_OCI && *cfg.runtime.oci == '\0')
    fprintf (stderr,
             "kata-guard: install: note: OCI runtime mode executes [runtime] oci, which "
             "%s does not set: every start is refused until it names a runc-compatible "
             "runtime (see kata-guard.toml(5))\n",
             path);
  guard_config_release (&cfg);
}

int
install_docker (const struct opts *o, kg_error_t *err)
{
  cleanup_free char *exe = NULL, *shim = NULL, *version = NULL;
  cleanup_error kg_error_t why = NULL;
  cleanup_json struct json_object *entry = NULL;
  cleanup_dj_edit struct dj_edit e = { 0 };
  enum reg_mode mode = o->mode;
  const char *source = NULL;
  int major = -1;

  if (self_paths (&exe, &shim, err) < 0)
    return KG_EXIT_USAGE;
  /* "path" (OCI runtime mode) every Docker reads; "runtimeType" (shim v2
     mode) only DOCKER_RUNTIME_TYPE_MAJOR and later: older ones drop the
     key and start plain runc under the name. */
  if (mode != REG_OCI)
    major = docker_version (&version, &source);
  if (mode == REG_AUTO)
    {
      if (major < 0)
        return kg_error (err, 0,
                         "cannot tell the Docker version: neither `dockerd --version` "
                         "nor `docker version` answered; pass --mode oci (\"path\", which "
                         "every Docker reads) or, for Docker 24 and later, --mode shim"),
               KG_EXIT_USAGE;
      mode = major >= DOCKER_RUNTIME_TYPE_MAJOR ? REG_SHIM : REG_OCI;
    }
  else if (mode == REG_SHIM && major < 0)
    return kg_error (err, 0,
                     "--mode shim writes \"runtimeType\", which only Docker 24 and later "
                     "read (Docker 20.10 and 23 ignore it and start plain runc under the "
                     "name, without kata-guard), and neither `dockerd --version` nor "
                     "`docker version` answered: pass --mode oci (\"path\", which every "
                     "Docker reads)"),
           KG_EXIT_USAGE;
  else if (mode == REG_SHIM && major < DOCKER_RUNTIME_TYPE_MAJOR)
    return kg_error (err, 0,
                     "--mode shim writes \"runtimeType\", which only Docker 24 and later "
                     "read; Docker %s (%s) ignores it and would start plain runc for "
                     "--runtime %s, without kata-guard: pass --mode oci (or no --mode), or "
                     "upgrade Docker",
                     version, source, o->name),
           KG_EXIT_USAGE;
  if (check_registrable (exe, shim, mode == REG_SHIM, err) < 0)
    return KG_EXIT_USAGE;
  entry = mode == REG_SHIM ? make_entry ("runtimeType", shim) : make_entry ("path", exe);
  if (entry == NULL)
    return kg_error (err, 0, "out of memory"), KG_EXIT_FAIL;
  e.path = o->daemon_json;
  e.name = o->name;
  e.entry = entry;
  e.set_default = o->set_default;
  e.force = o->force;
  e.dry_run = o->dry_run;
  if (daemonjson_install (&e, &why) < 0)
    return edit_failed ("install", &e, why, err);
  note_leftovers ("install", &e);
  if (o->dry_run)
    dry_run_result ("install", &e);
  else if (e.changed)
    {
      printf ("kata-guard: install: registered runtime \"%s\" in %s: ", o->name, e.target);
      print_entry (stdout, entry);
      printf ("\n");
      printf ("kata-guard: install: %s", mode == REG_SHIM
                                             ? "shim v2 mode (Docker 24 and later)"
                                             : "OCI runtime mode (every Docker version)");
      if (version != NULL)
        printf (", for Docker %s (%s)", version, source);
      printf ("\n");
      if (e.old_default != NULL)
        printf ("kata-guard: install: default-runtime was \"%s\", now \"%s\"\n", e.old_default,
                o->name);
      else if (o->set_default)
        printf ("kata-guard: install: default-runtime is \"%s\"\n", o->name);
      if (e.backup != NULL)
        printf ("kata-guard: install: the file as it was is saved as %s\n", e.backup);
      else if (! e.existed)
        printf ("kata-guard: install: %s did not exist; it holds the entry now\n", e.target);
      printf ("kata-guard: install: %s", reload_hint);
      printf ("kata-guard: install: then: docker run --runtime %s ...\n", o->name);
    }
  else
    printf ("kata-guard: install: runtime \"%s\" is already registered in %s; nothing changed\n",
            o->name, e.target);
  note_guard_config (o->config, mode);
  return KG_EXIT_PASS;
}

int
uninstall_docker (const struct opts *o, kg_error_t *err)
{
  cleanup_free char *exe = NULL, *shim = NULL;
  cleanup_error kg_error_t why = NULL;
  cleanup_json struct json_object *shim_entry = NULL, *path_entry = NULL;
  cleanup_dj_edit struct dj_edit e = { 0 };
  struct json_object *ours[2];

  if (self_paths (&exe, &shim, err) < 0)
    return KG_EXIT_USAGE;
  /* Exactly what install writes, in either mode. */
  ours[0] = shim_entry = make_entry ("runtimeType", shim);
  ours[1] = path_entry = make_entry ("path", exe);
  if (shim_entry == NULL || path_entry == NULL)
    return kg_error (err, 0, "out of memory"), KG_EXIT_FAIL;
  e.path = o->daemon_json;
  e.name = o->name;
  e.ours = ours;
  e.n_ours = 2;
  e.force = o->force;
  e.dry_run = o->dry_run;
  e.restore_default = o->restore_default;
  if (daemonjson_uninstall (&e, &why) < 0)
    return edit_failed ("uninstall", &e, why, err);
  note_leftovers ("uninstall", &e);
  if (o->dry_run)
    {
      dry_run_result ("uninstall", &e);
      return KG_EXIT_PASS;
    }
  if (e.changed)
    {
      if (e.entry_removed)
        printf ("kata-guard: uninstall: removed runtime \"%s\" from %s\n", o->name, e.target);
      if (e.default_removed)
        printf ("kata-guard: uninstall: default-runtime was \"%s\", now \"%s\" (%s)\n", o->name,
                e.new_default,
                strcmp (e.new_default, DAEMONJSON_STOCK_RUNTIME) == 0 ? "Docker's own default"
                                                                      : "the one install replaced");
      if (e.backup != NULL)
        printf ("kata-guard: uninstall: the file as it was is saved as %s\n", e.backup);
    }
  else
    printf ("kata-guard: uninstall: runtime \"%s\" is not registered in %s; nothing changed\n",
            o->name, e.target ? e.target : o->daemon_json);
  /* A running dockerd keeps what it read: its runtime (and default) would
     name a binary that the package's removal takes away, and every
     docker run through it would fail.  Also when nothing changed here: a
     run that stopped before its reload is run again. */
  if (dockerd_reload (e.target ? e.target : o->daemon_json, o->name, err) < 0)
    return KG_EXIT_FAIL;
  return KG_EXIT_PASS;
}
