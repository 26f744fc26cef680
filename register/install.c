/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kata-guard install` / `uninstall` (kata-guard(8), COMMANDS).
 *
 * Docker: merge the runtime entry into daemon.json (register/dockerjson.c
 * does the merge, register/replace.c the atomic write,
 * preflight/daemonjson.c the reading).  The
 * entry names the running binary, resolved through /proc/self/exe:
 * whatever copy the operator runs is the one registered, and it must sit
 * on a trusted path (root-owned all the way down, as the real runtime
 * must), because whoever can replace a registered runtime runs code as
 * root in every container start.
 *
 * containerd: print the runtime table for its config.toml, and write it as
 * a drop-in only where the main config imports a drop-in directory:
 * containerd's own file is never rewritten.
 *
 * Neither daemon is ever restarted or signalled: the operator reloads it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "command.h"
#include "conf.h"
#include "daemonjson.h"
#include "dockerjson.h"
#include "install.h"
#include "kata.h"
#include "replace.h"
#include "toml.h"
#include "trust.h"
#include "util.h"

#define SHIM_NAME "containerd-shim-kata-guard-v2"
#define SHIM_RUNTIME_TYPE "io.containerd.kata-guard.v2"
#define DEFAULT_NAME "kata-guard"
#define CONTAINERD_CONFIG "/etc/containerd/config.toml"
/* CRI-O reads every file of its drop-in directory, in order. */
#define CRIO_DIR "/etc/crio/crio.conf.d"
/* How long `dockerd --version` / `docker version` may take. */
#define VERSION_TIMEOUT_MS 10000

enum reg_mode
{
  REG_AUTO,
  REG_SHIM, /* Docker 24+: {"runtimeType": "<shim>"} */
  REG_OCI,  /* Docker 20.10/23: {"path": "<kata-guard>"} */
};

void
install_usage (FILE *out)
{
  fputs ("Usage: kata-guard install [--docker] [--daemon-json FILE] [--name NAME] [--set-default]\n"
         "                          [--mode shim|oci] [--dry-run] [--force]\n"
         "       kata-guard install --containerd [--containerd-config FILE] [--config FILE]\n"
         "                          [--name NAME] [--dry-run] [--force]\n"
         "       kata-guard install --crio [--crio-dir DIR] [--config FILE] [--name NAME]\n"
         "                          [--mode shim|oci] [--dry-run] [--force]\n"
         "       kata-guard uninstall [--docker] [--daemon-json FILE] [--name NAME] [--dry-run]\n"
         "                          [--force]\n"
         "       kata-guard uninstall --containerd [--containerd-config FILE] [--config FILE]\n"
         "                          [--name NAME] [--dry-run] [--force]\n"
         "       kata-guard uninstall --crio [--crio-dir DIR] [--config FILE] [--name NAME]\n"
         "                          [--dry-run] [--force]\n"
         "\n"
         "Registers kata-guard as a runtime (default name kata-guard) in Docker's daemon.json\n"
         "(default " DAEMONJSON_DEFAULT "), keeping everything else in it; never restarts\n"
         "Docker. With --containerd, prints the runtime table for containerd's config.toml,\n"
         "and writes it as a drop-in where that file imports a drop-in directory. With\n"
         "--crio, writes CRI-O's drop-in DIR/50-NAME.conf (default DIR " CRIO_DIR "):\n"
         "runtime_type \"vm\" (--mode shim, the default) or \"oci\" (--mode oci).\n"
         "\n"
         "  --mode shim|oci   shim: {\"runtimeType\": \"<dir>/" SHIM_NAME "\"} (Docker 24 and\n"
         "                    later); oci: {\"path\": \"<dir>/kata-guard\"} (Docker 20.10, 23);\n"
         "                    default: chosen by `dockerd --version` or `docker version`\n"
         "  --set-default     also set default-runtime to NAME\n"
         "  --force           replace (uninstall: remove) an entry of that name that differs\n"
         "  --dry-run         print the resulting file; write nothing\n"
         "\n"
         "Exit status: 0 done or nothing to do, 1 the write failed (the file is unchanged),\n"
         "2 refused (a file that is not valid JSON, a conflicting entry, usage).\n",
         out);
}

/* ---- the running binary ------------------------------------------------------ */

/* The running kata-guard and the shim link beside it (both absolute). */
static int
self_paths (char **exe, char **shim, kg_error_t *err)
{
  char buf[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", buf, sizeof buf - 1);
  char *slash;

  if (n < 0)
    return kg_error (err, errno, "/proc/self/exe");
  buf[n] = '\0';
  if (n > 10 && strcmp (buf + n - 10, " (deleted)") == 0)
    return kg_error (err, 0,
                     "the running kata-guard (%s) was deleted or replaced; run the "
                     "installed one",
                     buf);
  slash = strrchr (buf, '/');
  *exe = strdup (buf);
  if (*exe == NULL || asprintf (shim, "%.*s/" SHIM_NAME, (int) (slash - buf), buf) < 0)
    {
      free (*exe);
      *exe = NULL;
      return kg_error (err, ENOMEM, "cannot allocate");
    }
  return 0;
}

/* What gets registered must be as trusted as the runtime it guards. */
static int
check_registrable (const char *exe, const char *shim, bool need_shim, kg_error_t *err)
{
  struct trust_info ei, si;
  int fd;

  fd = trust_open (exe, TRUST_EXEC, &ei, err);
  if (fd < 0)
    return kg_error_prefix (err,
                            "refusing to register %s (install kata-guard into a "
                            "root-owned directory, e.g. with the package)",
                            exe);
  close (fd);
  if (! need_shim)
    return 0;
  fd = trust_open (shim, TRUST_EXEC, &si, err);
  if (fd < 0)
    return kg_error_prefix (err, "refusing to register %s (it must be a link to %s)", shim, exe);
  close (fd);
  if (si.st.st_dev != ei.st.st_dev || si.st.st_ino != ei.st.st_ino)
    return kg_error (err, 0,
                     "refusing to register %s: it is not %s (make it a symbolic link "
                     "to it)",
                     shim, exe);
  return 0;
}

/* ---- asking the engines their version ------------------------------------------- */

static void
exec_path (void *arg)
{
  char *const *argv = arg;

  execvp (argv[0], argv);
}

/* Run ARGV (looked up on PATH) with no input, capture its stdout (at most
   4 KiB; stderr discarded; a child that writes more is killed).  Returns
   its output when it exited 0 within the timeout, else NULL. */
char *
install_capture (char *const argv[])
{
  cleanup_free char *out = NULL;
  size_t len;
  int status = kg_capture (exec_path, (void *) argv, true, 4095, VERSION_TIMEOUT_MS, &out, &len);

  if (status < 0 || ! WIFEXITED (status) || WEXITSTATUS (status) != 0 || len == 0)
    return NULL;
  return steal_pointer (&out);
}

/* "24.0.7", "v2.0.0", "20.10.24+dfsg1": MAJOR, -1 if S does not start so. */
static int
parse_major (const char *s)
{
  long major = 0;

  if (*s == 'v')
    s++;
  if (*s < '0' || *s > '9')
    return -1;
  while (*s >= '0' && *s <= '9' && major < 10000)
    major = major * 10 + (*s++ - '0');
  if (*s != '.' || s[1] < '0' || s[1] > '9')
    return -1;
  return (int) major;
}

/* The Docker version, from `dockerd --version` ("Docker version 24.0.7,
   build x"), else from the daemon (`docker version`).  *VERSION gets the
   version text, *SOURCE the command that told.  -1 if neither answers. */
static int
docker_major (char **version, const char **source)
{
  static char *const dockerd[] = { (char *) "dockerd", (char *) "--version", NULL };
  static char *const docker[] = { (char *) "docker", (char *) "version", (char *) "--format",
                                  (char *) "{{.Server.Version}}", NULL };
  cleanup_free char *out = install_capture (dockerd);
  const char *v = NULL;
  int major;

  if (out != NULL && (v = strstr (out, "version ")) != NULL)
    {
      v += 8;
      *source = "dockerd --version";
    }
  else
    {
      free (out);
      out = install_capture (docker);
      v = out;
      *source = "docker version";
    }
  if (v == NULL || (major = parse_major (v)) < 0)
    return -1;
  *version = strndup (v, strcspn (v, ", \n"));
  return major;
}

/* containerd's major version from `containerd --version`
   ("containerd github.com/containerd/containerd 1.6.20~ds1 ..."). */
static int
containerd_major (void)
{
  static char *const argv[] = { (char *) "containerd", (char *) "--version", NULL };
  cleanup_free char *out = install_capture (argv);
  char *save = NULL, *tok;
  int i = 0;

  if (out == NULL)
    return -1;
  for (tok = strtok_r (out, " \n", &save); tok != NULL; tok = strtok_r (NULL, " \n", &save))
    if (i++ >= 1 && parse_major (tok) >= 0)
      return parse_major (tok);
  return -1;
}

/* The error WHY that ends command CMD, then what became of FILE (OUTCOME:
   "is unchanged", "was not touched") on a line of its own: the operator
   must know both.  main prints the message after "kata-guard: CMD: ", and
   the second line takes the same prefix. */
static int
error_and_outcome (kg_error_t *err, const char *cmd, kg_error_t why, const char *file,
                   const char *outcome)
{
  return kg_error (err, 0, "%s\nkata-guard: %s: %s %s", why->msg, cmd, file, outcome);
}

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

struct opts
{
  bool docker, containerd, crio, set_default, dry_run, force;
  enum reg_mode mode;
  const char *daemon_json, *containerd_config, *crio_dir, *config, *name;
};

/* The engine a drop-in is for, in what install and uninstall say. */
struct dropin_engine
{
  const char *name;     /* "containerd", "CRI-O" */
  const char *service;  /* its systemd unit */
  const char *read_by;  /* how the engine reads the drop-in */
  const char *kata_key; /* where the Kata configuration goes */
};

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

static int
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
  if (mode == REG_AUTO)
    {
      major = docker_major (&version, &source);
      if (major < 0)
        return kg_error (err, 0,
                         "cannot tell the Docker version: neither `dockerd --version` "
                         "nor `docker version` answered; pass --mode shim (Docker 24 "
                         "and later) or --mode oci (Docker 20.10 and 23)"),
               KG_EXIT_USAGE;
      /* Docker 24 added runtimeType (a shim v2 binary) to daemon.json;
         before it a runtime is an OCI "path". */
      mode = major >= 24 ? REG_SHIM : REG_OCI;
    }
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
                                             : "OCI runtime mode (Docker 20.10 and 23)");
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

static int
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
  if (daemonjson_uninstall (&e, &why) < 0)
    return edit_failed ("uninstall", &e, why, err);
  note_leftovers ("uninstall", &e);
  if (o->dry_run)
    dry_run_result ("uninstall", &e);
  else if (e.changed)
    {
      if (e.entry_removed)
        printf ("kata-guard: uninstall: removed runtime \"%s\" from %s\n", o->name, e.target);
      if (e.default_removed)
        printf ("kata-guard: uninstall: default-runtime was \"%s\", now \"" DAEMONJSON_STOCK_RUNTIME
                "\" (Docker's own default)\n",
                o->name);
      if (e.backup != NULL)
        printf ("kata-guard: uninstall: the file as it was is saved as %s\n", e.backup);
      printf ("kata-guard: uninstall: %s", reload_hint);
    }
  else
    printf ("kata-guard: uninstall: runtime \"%s\" is not registered in %s; nothing changed\n",
            o->name, e.target ? e.target : o->daemon_json);
  return KG_EXIT_PASS;
}

/* ---- containerd ------------------------------------------------------------------ */

/* The CRI plugin that holds runtimes, by config version: 2 for
   containerd 1.6/1.7, 3 for 2.x. */
static const char *
cri_plugin (int config_version)
{
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
};

static void
containerd_target_release (struct containerd_target *t)
{
  free (t->dropin);
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
  printf ("# then restart containerd (running containers keep running): systemctl restart "
          "containerd\n");
  return KG_EXIT_PASS;
}

/* No drop-in to write: the operator edits containerd's own file, which
   kata-guard never rewrites. */
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
  printf ("# %s imports no drop-in directory (%s): kata-guard never rewrites containerd's "
          "own file, so add the table above by hand\n",
          o->containerd_config, t->no_dropin);
  printf ("# then restart containerd (running containers keep running): systemctl restart "
          "containerd\n");
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
static int
containerd_cmd (const struct opts *o, bool install, kg_error_t *err)
{
  const char *cmd = install ? "install" : "uninstall";
  cleanup_free char *kata_config = NULL, *text = NULL;
  cleanup_containerd_target struct containerd_target t = { 0 };
  cleanup_replace struct kg_replace r = { .dirfd = -1 };
  const char *kata_why = NULL;
  char read_by[PATH_MAX + 16];
  const struct dropin_engine engine = { "containerd", "containerd", read_by, "ConfigPath" };

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
  if (t.dropin == NULL)
    return containerd_by_hand (o, install, &t, kata_config, kata_why);
  if (dropin_open (cmd, t.dropin, &r, err) < 0)
    return KG_EXIT_USAGE;
  if (install)
    return dropin_install (o, &engine, &r, text, kata_why, err);
  return dropin_uninstall (o, &engine, &r, text, err);
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
static int
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

/* ---- the command line --------------------------------------------------------------- */

static int
not_here (const char *cmd, const char *opt, bool *usage, kg_error_t *err)
{
  *usage = true;
  return kg_error (err, 0, "%s does not apply to %s", opt, cmd);
}

/* 0, 1 when the usage was asked for (and printed), or -1 with *ERR (and
   *USAGE when it must follow). */
static int
parse_opts (const char *cmd, int argc, char **argv, struct opts *o, bool *usage, kg_error_t *err)
{
  static const struct option longopts[] = {
    { "docker", no_argument, NULL, 'D' },
    { "containerd", no_argument, NULL, 'C' },
    { "crio", no_argument, NULL, 'R' },
    { "crio-dir", required_argument, NULL, 'd' },
    { "daemon-json", required_argument, NULL, 'j' },
    { "containerd-config", required_argument, NULL, 't' },
    { "config", required_argument, NULL, 'c' },
    { "name", required_argument, NULL, 'n' },
    { "set-default", no_argument, NULL, 'S' },
    { "mode", required_argument, NULL, 'm' },
    { "dry-run", no_argument, NULL, 'N' },
    { "force", no_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool install = strcmp (cmd, "install") == 0;
  bool docker_only = false, crio_only = false, mode_set = false;
  int c;

  memset (o, 0, sizeof *o);
  o->mode = REG_AUTO;
  o->name = DEFAULT_NAME;
  o->daemon_json = DAEMONJSON_DEFAULT;
  o->containerd_config = CONTAINERD_CONFIG;
  o->crio_dir = CRIO_DIR;
  o->config = guard_config_default_path ();
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+c:n:fh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'D':
        o->docker = true;
        break;
      case 'C':
        o->containerd = true;
        break;
      case 'R':
        o->crio = true;
        break;
      case 'd':
        o->crio_dir = optarg;
        crio_only = true;
        break;
      case 'j':
        o->daemon_json = optarg;
        docker_only = true;
        break;
      case 't':
        o->containerd_config = optarg;
        break;
      case 'c':
        o->config = optarg;
        break;
      case 'n':
        o->name = optarg;
        break;
      case 'S':
        if (! install)
          return not_here (cmd, "--set-default", usage, err);
        o->set_default = docker_only = true;
        break;
      case 'm':
        if (! install)
          return not_here (cmd, "--mode", usage, err);
        if (strcmp (optarg, "shim") == 0)
          o->mode = REG_SHIM;
        else if (strcmp (optarg, "oci") == 0)
          o->mode = REG_OCI;
        else
          return kg_error (err, 0, "--mode is shim or oci, not \"%s\"", optarg);
        mode_set = true;
        break;
      case 'N':
        o->dry_run = true;
        break;
      case 'f':
        o->force = true;
        break;
      case 'h':
        install_usage (stdout);
        return 1;
      default:
        return cli_bad_option (argv, usage, err);
      }
  if (cli_operands (argc, argv, err) < 0)
    return -1;
  if ((int) o->docker + (int) o->containerd + (int) o->crio > 1)
    return kg_error (err, 0, "--docker, --containerd or --crio, one at a time");
  if (o->containerd && (docker_only || mode_set))
    return kg_error (err, 0,
                     "--daemon-json, --set-default and --mode are for Docker or CRI-O, "
                     "not --containerd");
  if (o->crio && docker_only)
    return kg_error (err, 0, "--daemon-json and --set-default are for Docker, not --crio");
  if (crio_only && ! o->crio)
    return kg_error (err, 0, "--crio-dir is for --crio");
  if (! daemonjson_valid_name (o->name))
    return kg_error (err, 0,
                     "--name \"%s\": a runtime name is letters, digits, '_', '.', '-' "
                     "(at most 64)",
                     o->name);
  if (*o->daemon_json == '\0' || *o->containerd_config == '\0' || *o->crio_dir == '\0')
    return kg_error (err, 0, "an empty file name");
  return 0;
}

/* install or uninstall: the options, then Docker's daemon.json or
   containerd. */
static int
register_cmd (bool install, int argc, char **argv, bool *usage, kg_error_t *err)
{
  struct opts o;
  int rc = parse_opts (install ? "install" : "uninstall", argc, argv, &o, usage, err);

  if (rc != 0)
    return rc > 0 ? KG_EXIT_PASS : KG_EXIT_USAGE;
  if (o.containerd)
    rc = containerd_cmd (&o, install, err);
  else if (o.crio)
    rc = crio_cmd (&o, install, err);
  else
    rc = install ? install_docker (&o, err) : uninstall_docker (&o, err);
  if (fflush (stdout) != 0)
    return KG_EXIT_FAIL;
  return rc;
}

int
cli_install (int argc, char **argv, bool *usage, kg_error_t *err)
{
  return register_cmd (true, argc, argv, usage, err);
}

int
cli_uninstall (int argc, char **argv, bool *usage, kg_error_t *err)
{
  return register_cmd (false, argc, argv, usage, err);
}
