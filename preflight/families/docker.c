/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * docker.*: an audit of Docker's daemon.json (kata-guard(8), Docker
 * configuration audit), in `kata-guard check` only.
 *
 * A guard that is registered is no use when daemon.json also registers the
 * real Kata runtime under another name: `docker run --runtime kata` then
 * starts a VM that no check ever looked at.  Nor when `default-runtime`
 * names something else, so that a plain `docker run` is not checked.
 * These are warnings, not failures: the guard's own checks do not depend
 * on them, and Docker's configuration is not this host's isolation.  The
 * audit does not run at container starts: a start must neither wait for
 * nor depend on Docker's configuration file.
 *
 * An entry "is the real Kata runtime" when it resolves (by inode, after
 * every symlink) to [runtime] shim or [runtime] oci, or, failing that, by
 * Kata's own names: runtimeType io.containerd.kata.v2 or
 * io.containerd.kata-NAME.v2 (kata-deploy's per-hypervisor shims; not
 * kata-guard), an absolute path to containerd-shim-kata[-NAME]-v2, or a
 * path runtime named kata-runtime.  An entry is kata-guard when it
 * resolves to the running kata-guard, or its runtimeType is
 * io.containerd.kata-guard.v2.  Bare names are looked up where dockerd
 * and containerd usually find them: /usr/local/sbin, /usr/local/bin,
 * /usr/sbin, /usr/bin, /sbin, /bin.
 *
 * Each entry is judged as the Docker that reads the file reads it
 * (docker_version): Docker 24 and later read "runtimeType" (and refuse an
 * entry with both keys, or neither); Docker 20.10 and 23 read only
 * "path", and run plain runc for an entry without it.  An entry that
 * names kata-guard in a form the running Docker does not read starts
 * something else under kata-guard's name: docker.runtimes fails, as it
 * does when the version cannot be told and the entry's meaning hangs on it.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "array.h"
#include "capture.h"
#include "checks.h"
#include "cleanup.h"
#include "daemonjson.h"
#include "docker.h"
#include "error.h"
#include "request.h"

#define GUARD_RUNTIME_TYPE "io.containerd.kata-guard.v2"
/* How long `dockerd --version` / `docker version` may take. */
#define VERSION_TIMEOUT_MS 10000

struct audit
{
  struct stat self, shim, oci;
  bool have_self, have_shim, have_oci;
  int major; /* Docker's, -1 unknown */
};

enum target
{
  TARGET_OTHER,
  TARGET_GUARD,
  TARGET_KATA,
  TARGET_BAD,    /* dockerd refuses the file */
  TARGET_UNREAD, /* names kata-guard in a form this Docker does not read */
  TARGET_UNSURE, /* names kata-guard by runtimeType; Docker's version unknown */
};

int
docker_version (char **version, const char **source)
{
  static char *const binary[] = { (char *) "dockerd", (char *) "--version", NULL };
  static char *const daemon[] = { (char *) "docker", (char *) "version", (char *) "--format",
                                  (char *) "{{.Server.Version}}", NULL };
  cleanup_free char *b = kg_capture_argv (binary, VERSION_TIMEOUT_MS);
  cleanup_free char *d = kg_capture_argv (daemon, VERSION_TIMEOUT_MS);
  /* "Docker version 24.0.7, build x" */
  const char *bv = b != NULL ? strstr (b, "version ") : NULL, *v;
  int bm = bv != NULL ? kg_version_major (bv + 8) : -1;
  int dm = d != NULL ? kg_version_major (d) : -1;

  if (bm < 0 && dm < 0)
    return -1;
  if (dm >= 0 && (bm < 0 || dm <= bm))
    v = d, *source = "docker version";
  else
    v = bv + 8, *source = "dockerd --version";
  *version = strndup (v, strcspn (v, ", \n"));
  return dm >= 0 && (bm < 0 || dm <= bm) ? dm : bm;
}

static bool
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash ? slash + 1 : path;
}

/* stat NAME: an absolute path, or looked up as the engines would. */
static bool
find_exec (const char *name, struct stat *st)
{
  static const char *const dirs[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                      "/usr/bin",        "/sbin",          "/bin" };

  if (name[0] == '/')
    return stat (name, st) == 0 && S_ISREG (st->st_mode);
  if (strchr (name, '/') != NULL || *name == '\0')
    return false;
  for (size_t i = 0; i < ARRAY_SIZE (dirs); i++)
    {
      char path[4096];

      if ((size_t) snprintf (path, sizeof path, "%s/%s", dirs[i], name) >= sizeof path)
        return false;
      if (stat (path, st) == 0 && S_ISREG (st->st_mode))
        return true;
    }
  return false;
}

static bool
is_kata_shim_name (const char *base)
{
  return fnmatch ("containerd-shim-kata-v2", base, 0) == 0
         || (fnmatch ("containerd-shim-kata-*-v2", base, 0) == 0
             && fnmatch ("containerd-shim-kata-guard*-v2", base, 0) != 0);
}

static enum target
classify_file (const struct audit *a, const char *name)
{
  struct stat st;

  if (! find_exec (name, &st))
    return TARGET_OTHER;
  if (a->have_self && same_file (&st, &a->self))
    return TARGET_GUARD;
  if ((a->have_shim && same_file (&st, &a->shim)) || (a->have_oci && same_file (&st, &a->oci)))
    return TARGET_KATA;
  return TARGET_OTHER;
}

/* What runtimeType RT (an absolute path, or io.containerd.NAME.vN) runs. */
static enum target
classify_runtime_type (const struct audit *a, const char *rt)
{
  cleanup_free char *bin = NULL;
  const char *name, *ver;
  enum target t;

  if (rt[0] == '/')
    {
      t = classify_file (a, rt);
      if (t == TARGET_OTHER && is_kata_shim_name (base_name (rt)))
        t = TARGET_KATA;
      return t;
    }
  if (strcmp (rt, GUARD_RUNTIME_TYPE) == 0)
    return TARGET_GUARD;
  /* io.containerd.NAME.vN runs containerd-shim-NAME-vN. */
  if (strncmp (rt, "io.containerd.", 14) != 0)
    return TARGET_OTHER;
  name = rt + 14;
  ver = strrchr (name, '.');
  if (ver == NULL || ver == name || ver[1] != 'v')
    return TARGET_OTHER;
  if (asprintf (&bin, "containerd-shim-%.*s-%s", (int) (ver - name), name, ver + 1) < 0)
    return TARGET_OTHER;
  t = classify_file (a, bin);
  if (t == TARGET_OTHER && is_kata_shim_name (bin))
    t = TARGET_KATA;
  return t;
}

bool
runtime_type_is_guard (const char *runtime_type)
{
  struct audit a = { 0 };

  a.have_self = stat ("/proc/self/exe", &a.self) == 0;
  return classify_runtime_type (&a, runtime_type) == TARGET_GUARD;
}

static enum target
classify_path (const struct audit *a, const char *p)
{
  enum target t = classify_file (a, p);

  if (t == TARGET_OTHER && strcmp (base_name (p), "kata-runtime") == 0)
    t = TARGET_KATA;
  return t;
}

static const char *
entry_string (struct json_object *entry, const char *key)
{
  struct json_object *v;

  if (json_object_object_get_ex (entry, key, &v) && json_object_is_type (v, json_type_string))
    return json_object_get_string (v);
  return NULL;
}

/* What runtimeType RT with "options" OPTS runs on Docker 24 and later:
   the runc shim (io.containerd.runc.v2) runs options.BinaryName
   (daemon/runtime_unix.go setupRuntimes: shimopts.Generate). */
static enum target
classify_shim_entry (const struct audit *a, const char *rt, struct json_object *entry)
{
  struct json_object *opts;
  const char *bin;

  if (strcmp (rt, "io.containerd.runc.v2") == 0
      && json_object_object_get_ex (entry, "options", &opts)
      && (bin = entry_string (opts, "BinaryName")) != NULL && *bin != '\0')
    return classify_path (a, bin);
  return classify_runtime_type (a, rt);
}

static enum target
classify (const struct audit *a, struct json_object *entry)
{
  const char *rt, *path;
  enum target t;

  if (! json_object_is_type (entry, json_type_object))
    return TARGET_BAD;
  rt = entry_string (entry, "runtimeType");
  path = entry_string (entry, "path");
  if (a->major >= DOCKER_RUNTIME_TYPE_MAJOR)
    {
      /* daemon/runtime_unix.go setupRuntimes refuses both, neither, and
         runtimeArgs with a runtimeType. */
      if ((rt != NULL && *rt != '\0') == (path != NULL && *path != '\0')
          || (rt != NULL && *rt != '\0' && json_object_object_get_ex (entry, "runtimeArgs", NULL)))
        return TARGET_BAD;
      return rt != NULL && *rt != '\0' ? classify_shim_entry (a, rt, entry)
                                       : classify_path (a, path);
    }
  /* Before 24 (or unknown): "path" is what runs, and without it runc. */
  t = path != NULL && *path != '\0' ? classify_path (a, path) : TARGET_OTHER;
  if (rt != NULL && t != TARGET_GUARD)
    {
      enum target meant = classify_shim_entry (a, rt, entry);

      if (meant == TARGET_GUARD)
        return a->major < 0 ? TARGET_UNSURE : TARGET_UNREAD;
      if (meant == TARGET_KATA && a->major < 0)
        return TARGET_KATA; /* Docker 24 and later start it */
    }
  return t;
}

/* Append ", NAME (ENTRY)" to *LIST. */
static void
list_add (char **list, const char *name, struct json_object *entry)
{
  const char *e = entry
                      ? json_object_to_json_string_ext (entry, JSON_C_TO_STRING_SPACED
                                                                   | JSON_C_TO_STRING_NOSLASHESCAPE)
                      : NULL;
  char *n = NULL;

  if (asprintf (&n, "%s%s%s%s%s", *list ? *list : "", *list ? ", " : "", name, e ? " " : "",
                e ? e : "")
      < 0)
    return;
  free (*list);
  *list = n;
}

void
check_docker (struct preflight *pf)
{
  const char *path = pf->cfg->docker.daemon_json;
  struct report *rep = pf->rep;
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *guards = NULL, *kata = NULL, *bad = NULL, *unread = NULL;
  const char *version = NULL, *source = NULL;
  struct json_object *root, *runtimes = NULL, *def;
  struct audit a = { 0 };
  bool exists;
  size_t n = 0;

  if (pf->req->mode != KG_MODE_CHECK)
    return;
  root = daemonjson_load (path, &exists, &err);
  if (root == NULL)
    {
      report_warn (rep, "docker.runtimes", "fix it (dockerd cannot read it either)",
                   "cannot audit Docker's configuration: %s", err->msg);
      report_warn (rep, "docker.default_runtime", "fix it (dockerd cannot read it either)",
                   "cannot audit Docker's configuration: %s", err->msg);
      return;
    }
  if (! exists)
    {
      report_skip (rep, "docker.runtimes", "%s does not exist: no Docker configuration to audit",
                   path);
      report_skip (rep, "docker.default_runtime",
                   "%s does not exist: no Docker configuration to audit", path);
      json_object_put (root);
      return;
    }
  report_add_file (rep, path);

  a.have_self = stat ("/proc/self/exe", &a.self) == 0;
  a.have_shim = stat (pf->cfg->runtime.shim, &a.shim) == 0;
  a.have_oci = *pf->cfg->runtime.oci != '\0' && stat (pf->cfg->runtime.oci, &a.oci) == 0;
  /* The entry point asked (docker_engine_ask): the confined checker runs
     no program.  None asked: the version is unknown, which refuses what
     only some versions read. */
  a.major = -1;
  if (pf->req->docker != NULL)
    {
      a.major = pf->req->docker->major;
      version = pf->req->docker->version;
      source = pf->req->docker->source;
    }

  /* docker.runtimes */
  if (json_object_object_get_ex (root, "runtimes", &runtimes)
      && ! json_object_is_type (runtimes, json_type_object))
    {
      report_warn (rep, "docker.runtimes", "make \"runtimes\" an object of runtime entries",
                   "%s: \"runtimes\" is not an object (dockerd refuses this file)", path);
      runtimes = NULL;
    }
  else if (runtimes == NULL)
    report_pass (rep, "docker.runtimes", "%s registers no runtimes", path);
  else
    {
      json_object_object_foreach (runtimes, name, entry)
        {
          n++;
          switch (classify (&a, entry))
            {
            case TARGET_GUARD:
              list_add (&guards, name, NULL);
              break;
            case TARGET_KATA:
              list_add (&kata, name, entry);
              break;
            case TARGET_BAD:
              list_add (&bad, name, NULL);
              break;
            case TARGET_UNREAD:
            case TARGET_UNSURE:
              list_add (&unread, name, entry);
              break;
            case TARGET_OTHER:
              break;
            }
        }
      if (unread != NULL && a.major >= 0)
        report_fail (
            rep, "docker.runtimes",
            "register the form this Docker reads: kata-guard install --mode oci "
            "--name NAME --force (\"path\", which every Docker reads), or upgrade "
            "Docker to 24 or later; then reload Docker: systemctl reload docker",
            "%s: runtimes %s name kata-guard by \"runtimeType\", which Docker %s (%s) does not "
            "read (Docker 24 and later do): it starts plain runc for them, without "
            "kata-guard%s%s",
            path, unread, version, source,
            kata ? "; and the real Kata runtime is "
                   "registered without kata-guard: "
                 : "",
            kata ? kata : "");
      else if (unread != NULL)
        report_fail (rep, "docker.runtimes",
                     "let kata-guard tell the Docker version (`dockerd --version` or `docker "
                     "version` must answer), or register the form every Docker reads: "
                     "kata-guard install --mode oci --name NAME --force",
                     "%s: runtimes %s name kata-guard by \"runtimeType\", and neither `dockerd "
                     "--version` nor `docker version` answered: Docker 20.10 and 23 do not read "
                     "it and start plain runc for them, without kata-guard%s%s",
                     path, unread,
                     kata ? "; and the real Kata runtime is registered without "
                            "kata-guard: "
                          : "",
                     kata ? kata : "");
      else if (kata != NULL)
        report_warn (rep, "docker.runtimes",
                     "remove those entries, or register kata-guard under that name "
                     "(kata-guard install --name NAME --force); then reload Docker: "
                     "systemctl reload docker",
                     "%s registers the real Kata runtime without kata-guard: %s; a container "
                     "started with that --runtime skips every check",
                     path, kata);
      else if (bad != NULL)
        report_warn (rep, "docker.runtimes",
                     "make each runtime entry an object with \"path\" or (Docker 24 and "
                     "later) \"runtimeType\", not both",
                     "%s: runtimes %s: not an object, or (Docker 24 and later) both or neither "
                     "of \"path\" and \"runtimeType\" (dockerd refuses this file)",
                     path, bad);
      else
        report_pass (rep, "docker.runtimes",
                     "%s: %zu runtime%s, none starts Kata without kata-guard (kata-guard: %s; "
                     "as Docker %s reads them)",
                     path, n, n == 1 ? "" : "s", guards ? guards : "not registered",
                     version ? version : "of any version");
    }

  /* docker.default_runtime */
  if (! json_object_object_get_ex (root, "default-runtime", &def))
    report_pass (rep, "docker.default_runtime",
                 "%s sets no default-runtime (runc): only containers started with a kata-guard "
                 "--runtime are checked",
                 path);
  else if (! json_object_is_type (def, json_type_string))
    report_warn (rep, "docker.default_runtime", "make it a runtime name",
                 "%s: \"default-runtime\" is not a string (dockerd refuses this file)", path);
  else
    {
      const char *d = json_object_get_string (def);
      struct json_object *entry = NULL;
      enum target t = TARGET_OTHER;

      /* An entry of that name first (daemon/runtime_unix.go getRuntime);
         from Docker 23 a containerd runtime name without one. */
      if (runtimes != NULL && json_object_object_get_ex (runtimes, d, &entry))
        t = classify (&a, entry);
      else if (a.major >= DOCKER_C8D_NAME_MAJOR && strncmp (d, "io.containerd.", 14) == 0)
        t = classify_runtime_type (&a, d);
      if (t == TARGET_GUARD)
        report_pass (rep, "docker.default_runtime", "%s: default-runtime is \"%s\", kata-guard",
                     path, d);
      else
        report_warn (rep, "docker.default_runtime",
                     "kata-guard install --set-default; then reload Docker: "
                     "systemctl reload docker",
                     "%s: default-runtime is \"%s\", not kata-guard: a container started without "
                     "--runtime is not checked%s",
                     path, d, t == TARGET_KATA ? ", and starts Kata without the guard" : "");
    }
  json_object_put (root);
}

void
docker_engine_ask (const struct guard_config *cfg, struct docker_engine *out, char **text)
{
  *out = (struct docker_engine){ .major = -1 };
  *text = NULL;
  if (access (cfg->docker.daemon_json, F_OK) == 0)
    {
      out->major = docker_version (text, &out->source);
      out->version = *text;
    }
}
