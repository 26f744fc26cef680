/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kata-guard install` / `uninstall` (kata-guard(8), COMMANDS): the
 * command line; the registrations are install-docker.c (daemon.json) and
 * install-dropin.c (containerd's and CRI-O's drop-ins), over
 * install-common.c (the running binary, the engines' versions), which
 * share install-int.h.
 *
 * What is registered is the running binary, resolved through
 * /proc/self/exe: whatever copy the operator runs is the one registered,
 * and it must sit on a trusted path (root-owned all the way down, as the
 * real runtime must), because whoever can replace a registered runtime
 * runs code as root in every container start.
 *
 * No daemon is ever restarted.  install leaves the reload to the operator;
 * uninstall of Docker sends SIGHUP to the dockerds that read the file it
 * rewrote (dockerd-reload.c), so none keeps a runtime whose binary may be
 * about to go.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "conf.h"
#include "daemonjson.h"
#include "dockerjson.h"
#include "error.h"
#include "fdio.h"
#include "install-int.h"
#include "install.h"
#include "jsonc.h"
#include "toml.h"
#include "writer.h"

/* What install registered (kata-guard(8), FILES), for uninstall --all:
   one line per registration, ENGINE TAB FILE TAB NAME TAB EXTRA, where
   FILE is daemon.json, containerd's config or CRI-O's drop-in directory
   (absolute, symlinks resolved) and EXTRA Docker's default-runtime that
   install --set-default replaced, or the guard config of --containerd
   and --crio. */
#define REG_RECORD KG_STATE_DIR "/registrations"
#define REG_RECORD_MAX (1024 * 1024)

void
install_usage (FILE *out)
{
  fputs ("Usage: kata-guard install [--docker] [--daemon-json FILE] [--name NAME] [--set-default]\n"
         "                          [--mode shim|oci] [--dry-run] [--force]\n"
         "       kata-guard install --containerd [--containerd-config FILE] [--config FILE]\n"
         "                          [--name NAME] [--dry-run] [--force]\n"
         "       kata-guard install --crio [--crio-dir DIR] [--config FILE] [--name NAME]\n"
         "                          [--mode shim|oci] [--dry-run] [--force]\n"
         "\n"
         "Registers kata-guard as a runtime (default name kata-guard) in Docker's daemon.json\n"
         "(default " DAEMONJSON_DEFAULT "), keeping everything else in it; never restarts\n"
         "Docker. With --containerd: containerd 2.x, a drop-in where config.toml imports a\n"
         "drop-in directory (else the table is printed); containerd 1.x, the table added to\n"
         "the file holding the CRI plugin's table, checked by `containerd config dump`. With\n"
         "--crio, writes CRI-O's drop-in DIR/50-NAME.conf (default DIR " CRIO_DIR "):\n"
         "runtime_type \"vm\" (--mode shim, the default) or \"oci\" (--mode oci).\n"
         "Each registration is recorded in " REG_RECORD "; kata-guard uninstall\n"
         "(uninstall --help) undoes it.\n"
         "\n"
         "  --mode shim|oci   shim: {\"runtimeType\": \"<dir>/" SHIM_NAME "\"}, which only\n"
         "                    Docker 24 and later read (refused for an older or unknown\n"
         "                    Docker); oci: {\"path\": \"<dir>/kata-guard\"}, which every Docker\n"
         "                    reads; default: by the version `docker version` (the running\n"
         "                    daemon) and `dockerd --version` tell, the lower of the two\n"
         "  --set-default     also set default-runtime to NAME\n"
         "  --force           replace an entry of that name that differs\n"
         "  --dry-run         print the resulting file; write nothing\n"
         "\n"
         "Exit status: 0 done or nothing to do, 1 the write failed (the file is unchanged),\n"
         "2 refused (a file that is not valid JSON, a conflicting entry, usage).\n",
         out);
}

void
uninstall_usage (FILE *out)
{
  fputs ("Usage: kata-guard uninstall [--docker] [--daemon-json FILE] [--name NAME] [--dry-run]\n"
         "                            [--force]\n"
         "       kata-guard uninstall --containerd [--containerd-config FILE] [--config FILE]\n"
         "                            [--name NAME] [--dry-run] [--force]\n"
         "       kata-guard uninstall --crio [--crio-dir DIR] [--config FILE] [--name NAME]\n"
         "                            [--dry-run] [--force]\n"
         "       kata-guard uninstall --all [--dry-run] [--force]\n"
         "\n"
         "Removes exactly what kata-guard install added: Docker's runtime entry (and\n"
         "default-runtime back to the one --set-default replaced), containerd's table or\n"
         "drop-in, CRI-O's drop-in; never restarts an engine. Every running dockerd that\n"
         "reads the daemon.json is sent SIGHUP and waited for until it no longer has the\n"
         "runtime (restart containerd or CRI-O yourself). --all undoes every registration\n"
         "recorded in " REG_RECORD " (the packages' removal runs it).\n"
         "\n"
         "  --force           remove an entry of that name that differs from install's\n"
         "  --dry-run         print the resulting file; write nothing\n"
         "\n"
         "Exit status: 0 done or nothing to do, 1 the write failed (the file is unchanged)\n"
         "or a dockerd reading the file did not reload (the command to run is said), 2\n"
         "refused (a file that is not valid JSON, an entry someone changed, usage).\n",
         out);
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
    { "all", no_argument, NULL, 'A' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool install = strcmp (cmd, "install") == 0;
  bool docker_only = false, crio_only = false, mode_set = false, engine_opt = false;
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
        crio_only = engine_opt = true;
        break;
      case 'j':
        o->daemon_json = optarg;
        docker_only = engine_opt = true;
        break;
      case 't':
        o->containerd_config = optarg;
        engine_opt = true;
        break;
      case 'c':
        o->config = optarg;
        engine_opt = true;
        break;
      case 'n':
        o->name = optarg;
        engine_opt = true;
        break;
      case 'A':
        if (install)
          return not_here (cmd, "--all", usage, err);
        o->all = true;
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
        (install ? install_usage : uninstall_usage) (stdout);
        return 1;
      default:
        return cli_bad_option (argv, usage, err);
      }
  if (cli_operands (argc, argv, err) < 0)
    return -1;
  if ((int) o->docker + (int) o->containerd + (int) o->crio + (int) o->all > 1)
    return kg_error (err, 0, "--docker, --containerd, --crio or --all, one at a time");
  if (o->all && engine_opt)
    return kg_error (err, 0, "--all takes the files and names from " REG_RECORD);
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

/* ---- the record of registrations ---------------------------------------------------- */

/* One line of the record, split (pointing into a copy of it). */
struct reg_line
{
  char *engine, *file, *name, *extra;
};

static const char *
engine_word (const struct opts *o)
{
  return o->containerd ? "containerd" : o->crio ? "crio" : "docker";
}

static const char *
engine_file (const struct opts *o)
{
  return o->containerd ? o->containerd_config : o->crio ? o->crio_dir : o->daemon_json;
}

/* Split LINE (modified) into R: 0, or -1 when it is not a record line. */
static int
reg_split (char *line, struct reg_line *r)
{
  char *f[4];
  size_t n = 0;

  for (char *p = line; n < 4; n++)
    {
      f[n] = p;
      p = strchr (p, '\t');
      if (p == NULL)
        {
          n++;
          break;
        }
      *p++ = '\0';
    }
  if (n != 4 || *f[1] != '/' || ! daemonjson_valid_name (f[2]))
    return -1;
  *r = (struct reg_line){ f[0], f[1], f[2], f[3] };
  return 0;
}

/* The record's text ("" when there is none), or NULL with *ERR. */
static char *
reg_read (kg_error_t *err)
{
  char *text = NULL;
  size_t len;

  if (kg_read_file_bounded (REG_RECORD, O_NOFOLLOW, REG_RECORD_MAX, &text, &len, err) < 0)
    {
      if (access (REG_RECORD, F_OK) < 0 && errno == ENOENT)
        return strdup ("");
      return NULL;
    }
  return text;
}

/* The record without the line for ENGINE FILE NAME, and with WITH (a
   line, or NULL) in its place; written back.  *OLD_EXTRA (when not
   NULL) gets the EXTRA of the line that went (caller frees). */
static int
reg_update (const char *engine, const char *file, const char *name, const char *with,
            char **old_extra, kg_error_t *err)
{
  cleanup_free char *text = reg_read (err), *out = NULL;
  char *save = NULL;
  size_t size = 0;
  FILE *f;
  int rc = 0;

  if (old_extra != NULL)
    *old_extra = NULL;
  if (text == NULL)
    return -1;
  f = open_memstream (&out, &size);
  if (f == NULL)
    return kg_error (err, errno, "cannot allocate");
  for (char *line = strtok_r (text, "\n", &save); line != NULL; line = strtok_r (NULL, "\n", &save))
    {
      cleanup_free char *copy = strdup (line);
      struct reg_line r;

      if (copy != NULL && reg_split (copy, &r) == 0 && strcmp (r.engine, engine) == 0
          && strcmp (r.file, file) == 0 && strcmp (r.name, name) == 0)
        {
          if (old_extra != NULL && *old_extra == NULL)
            *old_extra = strdup (r.extra);
          continue;
        }
      fprintf (f, "%s\n", line);
    }
  if (with != NULL)
    fprintf (f, "%s\n", with);
  if (fclose (f) != 0)
    return kg_error (err, ENOMEM, "cannot allocate");
  if (size == 0 && access (REG_RECORD, F_OK) < 0)
    return 0;
  rc = writer_replace (REG_RECORD, out, size, WRITER_PRIVATE, WRITER_DIR_PRIVATE, err);
  return rc;
}

/* FILE absolute with symlinks resolved, as the record holds it (FILE
   itself when it cannot be resolved). */
static char *
reg_path (const char *file)
{
  char buf[PATH_MAX];

  return strdup (realpath (file, buf) != NULL ? buf : file);
}

/* Docker's default-runtime in daemon.json PATH now, when it is not NAME;
   NULL otherwise. */
static char *
current_default (const char *path, const char *name)
{
  cleanup_error kg_error_t why = NULL;
  cleanup_json struct json_object *root = NULL;
  struct json_object *def;
  bool exists;

  root = daemonjson_load (path, &exists, &why);
  if (root == NULL || ! json_object_object_get_ex (root, "default-runtime", &def)
      || ! json_object_is_type (def, json_type_string)
      || strcmp (json_object_get_string (def), name) == 0)
    return NULL;
  return strdup (json_object_get_string (def));
}

/* Whether uninstall --containerd can tell what install did with PATH: its
   `version`, else containerd's own (install-dropin.c: containerd_locate).
   Without either install wrote nothing, and the record would only make
   uninstall --all fail. */
static bool
containerd_known (const char *path)
{
  cleanup_error kg_error_t why = NULL;
  cleanup_toml struct toml_value *doc = toml_parse_file (path, &why);
  const struct toml_value *v = doc ? toml_get (doc, "version") : NULL;

  return (v != NULL && v->kind == TOML_INTEGER && (v->u.integer == 2 || v->u.integer == 3))
         || containerd_major () >= 1;
}

static bool
reg_plain (const char *s)
{
  return s != NULL && strpbrk (s, "\t\n") == NULL;
}

/* After install O succeeded: record it (a failure is said, not fatal:
   the registration is made; uninstall --all will not know it).  OLD_DEFAULT:
   Docker's default-runtime before install, or NULL. */
static void
reg_add (const struct opts *o, const char *old_default)
{
  cleanup_error kg_error_t why = NULL;
  cleanup_free char *file = reg_path (engine_file (o)), *kept = NULL, *line = NULL;
  cleanup_free char *config = o->docker || (! o->containerd && ! o->crio) ? NULL
                                                                          : reg_path (o->config);
  const char *extra;

  if (o->containerd && ! containerd_known (o->containerd_config))
    return;
  if (file == NULL || ! reg_plain (file) || (config != NULL && ! reg_plain (config))
      || (old_default != NULL && ! reg_plain (old_default)))
    {
      fprintf (stderr, "kata-guard: install: note: not recorded in " REG_RECORD
                       " (a path with a tab or newline): uninstall --all will not undo it\n");
      return;
    }
  /* A second install keeps the default the first one replaced. */
  if (reg_update (engine_word (o), file, o->name, NULL, &kept, &why) == 0)
    {
      extra = config != NULL ? config : old_default != NULL ? old_default : kept ? kept : "";
      if (asprintf (&line, "%s\t%s\t%s\t%s", engine_word (o), file, o->name, extra) < 0)
        {
          line = NULL;
          return;
        }
      if (reg_update (engine_word (o), file, o->name, line, NULL, &why) == 0)
        return;
    }
  fprintf (stderr,
           "kata-guard: install: note: not recorded in " REG_RECORD
           " (uninstall --all will not undo it): %s\n",
           why->msg);
}

/* The engine's uninstall for O. */
static int
uninstall_one (const struct opts *o, kg_error_t *err)
{
  if (o->containerd)
    return containerd_cmd (o, false, err);
  if (o->crio)
    return crio_cmd (o, false, err);
  return uninstall_docker (o, err);
}

/* The EXTRA of the record line for O (caller frees), or NULL. */
static char *
reg_find (const struct opts *o, const char *file)
{
  cleanup_error kg_error_t why = NULL;
  cleanup_free char *text = reg_read (&why);
  char *save = NULL;

  for (char *l = text ? strtok_r (text, "\n", &save) : NULL; l != NULL;
       l = strtok_r (NULL, "\n", &save))
    {
      struct reg_line r;

      if (reg_split (l, &r) == 0 && strcmp (r.engine, engine_word (o)) == 0
          && strcmp (r.file, file) == 0 && strcmp (r.name, o->name) == 0)
        return strdup (r.extra);
    }
  return NULL;
}

/* uninstall O: Docker's default-runtime goes back to what install
   replaced (recorded), and the record goes with the registration. */
static int
uninstall_recorded (struct opts *o, kg_error_t *err)
{
  cleanup_error kg_error_t why = NULL;
  cleanup_free char *file = reg_path (engine_file (o)), *extra = NULL;
  int rc;

  if (file == NULL)
    return kg_error (err, ENOMEM, "cannot allocate"), KG_EXIT_FAIL;
  extra = reg_find (o, file);
  if (! o->containerd && ! o->crio && extra != NULL && *extra != '\0')
    o->restore_default = extra;
  rc = uninstall_one (o, err);
  if (rc == KG_EXIT_PASS && ! o->dry_run && extra != NULL
      && reg_update (engine_word (o), file, o->name, NULL, NULL, &why) < 0)
    fprintf (stderr, "kata-guard: uninstall: note: %s\n", why->msg);
  return rc;
}

/* uninstall --all: every registration of the record, each as its own
   uninstall would; one that fails is said and kept, the rest go on. */
static int
uninstall_all (const struct opts *all, kg_error_t *err)
{
  cleanup_free char *text = reg_read (err);
  char *save = NULL;
  unsigned n = 0;
  int rc = KG_EXIT_PASS;

  if (text == NULL)
    return KG_EXIT_FAIL;
  for (char *l = strtok_r (text, "\n", &save); l != NULL; l = strtok_r (NULL, "\n", &save))
    {
      cleanup_error kg_error_t why = NULL;
      struct opts o = *all;
      struct reg_line r;
      int one;

      if (reg_split (l, &r) < 0)
        {
          fprintf (stderr, "kata-guard: uninstall: " REG_RECORD ": a line it cannot read, left\n");
          rc = KG_EXIT_USAGE;
          continue;
        }
      o.all = false;
      o.name = r.name;
      if (strcmp (r.engine, "docker") == 0)
        o.docker = true, o.daemon_json = r.file,
        o.restore_default = *r.extra != '\0' ? r.extra : NULL;
      else if (strcmp (r.engine, "containerd") == 0)
        o.containerd = true, o.containerd_config = r.file, o.config = r.extra;
      else if (strcmp (r.engine, "crio") == 0)
        o.crio = true, o.crio_dir = r.file, o.config = r.extra;
      else
        {
          fprintf (stderr, "kata-guard: uninstall: " REG_RECORD ": engine \"%s\" unknown, left\n",
                   r.engine);
          rc = KG_EXIT_USAGE;
          continue;
        }
      n++;
      printf ("kata-guard: uninstall: %s, runtime \"%s\" in %s:\n", r.engine, r.name, r.file);
      if (access (r.file, F_OK) < 0 && errno == ENOENT)
        {
          printf ("kata-guard: uninstall: %s is gone; nothing to undo\n", r.file);
          one = KG_EXIT_PASS;
        }
      else
        one = uninstall_one (&o, &why);
      if (one != KG_EXIT_PASS)
        {
          fprintf (stderr, "kata-guard: uninstall: %s\n", why ? why->msg : "failed");
          if (one > rc)
            rc = one;
          continue;
        }
      if (! o.dry_run && reg_update (r.engine, r.file, r.name, NULL, NULL, &why) < 0)
        fprintf (stderr, "kata-guard: uninstall: note: %s\n", why->msg);
    }
  if (n == 0)
    printf ("kata-guard: uninstall: no registration recorded in " REG_RECORD "; nothing to undo\n");
  if (rc != KG_EXIT_PASS)
    return kg_error (err, 0,
                     "some registrations were not undone (above); they are kept in " REG_RECORD),
           rc;
  return rc;
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
  if (o.all)
    rc = uninstall_all (&o, err);
  else if (! install)
    rc = uninstall_recorded (&o, err);
  else
    {
      cleanup_free char *old_default = o.containerd || o.crio
                                           ? NULL
                                           : current_default (o.daemon_json, o.name);

      rc = o.containerd ? containerd_cmd (&o, true, err)
           : o.crio     ? crio_cmd (&o, true, err)
                        : install_docker (&o, err);
      if (rc == KG_EXIT_PASS && ! o.dry_run)
        reg_add (&o, o.set_default ? old_default : NULL);
    }
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
