/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cri.handler (kata-guard(8), CHECKS): a RuntimeClass names a runtime
 * handler, and Kubernetes never checks that the node's CRI serves it
 * (kubernetes#72413).  The CRI's configuration file is not the answer:
 * containerd and CRI-O read it when they start, so a file edited and not
 * yet loaded says what the CRI does not do.  The running configuration is
 * asked of the CRI itself:
 *
 *  - containerd 1.6 to 2.x: the CRI RuntimeService/Status with verbose
 *    returns info["config"], the CRI plugin's running configuration as
 *    JSON (containerd pkg/cri/server/status.go, 2.x
 *    internal/cri/server/status.go).  Its runtimes are at
 *    config.containerd.runtimes.NAME, each with "runtimeType",
 *    "runtimePath" (1.7 and later: the shim binary itself) and "options"
 *    as the TOML wrote them ("ConfigPath": what the shim hands Kata),
 *    in 1.6, 1.7 and 2.1 alike (pkg/cri/config/config.go Runtime's json
 *    tags).  Asked with crictl, as nodes have it: `crictl info` prints
 *    the status and each info value decoded.
 *  - CRI-O: its socket answers HTTP GET /config with the running
 *    configuration as TOML (`crio status config`; server/inspect.go),
 *    the handler at crio.runtime.runtimes.NAME with runtime_path,
 *    runtime_type and runtime_config_path.
 *
 * The handler passes only when it is in the running configuration, starts
 * the guard (its runtime type io.containerd.kata-guard.v2, or a path or
 * shim that is the running kata-guard) and hands Kata the configuration
 * the kata family judged.  No [cri] endpoint: skipped, never passed.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "capture.h"
#include "checks.h"
#include "cleanup.h"
#include "conf.h"
#include "cri.h"
#include "docker.h"
#include "error.h"
#include "fdio.h"
#include "jtree.h"
#include "kata.h"
#include "request.h"
#include "toml.h"

/* Deeper than containerd's answer goes (json-c's own tokener stopped at
   32). */
#define CRI_JSON_DEPTH 64

#define REMEDY_HANDLER                                                                             \
  "register the handler (kata-guard install --containerd or --crio, with [cri] handler's "         \
  "name) and restart the CRI (systemctl restart containerd, or crio): it reads its "               \
  "configuration only when it starts"

void
cri_answer_release (struct cri_answer *a)
{
  free (a->info);
  free (a->crio);
  a->info = a->crio = NULL;
  a->info_len = a->crio_len = 0;
}

/* CRI-O's GET /config over the socket PATH: the body of a 200, or NULL
   with WHY. */
static char *
crio_get_config (const char *path, size_t *len, char *why, size_t size)
{
  cleanup_close int fd = -1;
  cleanup_error kg_error_t err = NULL;
  char *body = NULL;

  if ((fd = kg_unix_connect (path, &err)) < 0
      || kg_http_get (fd, path, "crio", "/config", CRI_ANSWER_MAX, CRI_ASK_TIMEOUT_MS, &body, len,
                      &err)
             < 0)
    return snprintf (why, size, "%s", err->msg), NULL;
  return body;
}

static struct jv *jobj (const struct jv *o, const char *key);

/* JSON (LEN bytes) as containerd's `crictl info`, read as every JSON
   document is (jtree.h: strict, a key twice refusing): the CRI plugin's
   config.containerd.runtimes, or NULL; *ROOT to free. */
static struct jv *
containerd_runtimes (const char *json, size_t len, struct jv **root)
{
  cleanup_error kg_error_t err = NULL;

  *root = jv_read_strict ("crictl info", json, len, CRI_JSON_DEPTH, NULL, &err);
  return jobj (jobj (jobj (*root, "config"), "containerd"), "runtimes");
}

static bool
containerd_runtimes_in (const char *json, size_t len)
{
  cleanup_jv struct jv *root = NULL;

  return containerd_runtimes (json, len, &root) != NULL;
}

void
cri_ask (const struct guard_config *cfg, struct cri_answer *out)
{
  cleanup_free char *ep = NULL;
  char crio_why[160];

  memset (out, 0, sizeof *out);
  if (*cfg->cri.endpoint == '\0')
    return;
  if (asprintf (&ep, "unix://%s", cfg->cri.endpoint) < 0)
    {
      snprintf (out->why, sizeof out->why, "out of memory");
      return;
    }
  {
    char *const argv[] = { (char *) "crictl", (char *) "--runtime-endpoint", ep, (char *) "info",
                           NULL };

    out->info = kg_capture_argv_max (argv, CRI_ASK_TIMEOUT_MS, CRI_ANSWER_MAX, &out->info_len);
  }
  /* containerd's answer holds its CRI plugin's runtimes; CRI-O's
     does not: then its own endpoint. */
  if (out->info != NULL && containerd_runtimes_in (out->info, out->info_len))
    return;
  out->crio = crio_get_config (cfg->cri.endpoint, &out->crio_len, crio_why, sizeof crio_why);
  if (out->crio != NULL)
    {
      free (out->info);
      out->info = NULL;
      return;
    }
  snprintf (out->why, sizeof out->why, "%s; CRI-O's /config: %s",
            out->info != NULL ? "`crictl info` holds no containerd CRI configuration"
                              : "`crictl info` failed (is crictl installed?)",
            crio_why);
  free (out->info);
  out->info = NULL;
}

/* Whether the file CONFIG_PATH (as the CRI hands it on; "" none) is
   KATA_FILE: by inode.  "" is Kata's search order, which kata.config
   judged (it fails when [kata] config is another file). */
static bool
same_kata_file (const char *config_path, const char *kata_file, char *why, size_t size)
{
  struct stat a, b;

  if (*config_path == '\0')
    return true;
  if (stat (config_path, &a) < 0)
    return snprintf (why, size, "cannot stat %s: %s", config_path, strerror (errno)), false;
  if (stat (kata_file, &b) < 0)
    return snprintf (why, size, "cannot stat %s: %s", kata_file, strerror (errno)), false;
  if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
    return snprintf (why, size, "hands Kata %s, not %s, the configuration kata-guard judges",
                     config_path, kata_file),
           false;
  return true;
}

/* O's member KEY when it is of TYPE, else NULL. */
static struct jv *
jtyped (const struct jv *o, const char *key, enum json_type type)
{
  struct jv *v = jv_get (o, key);

  return jv_is_type (v, type) ? v : NULL;
}

static const char *
jstr (const struct jv *o, const char *key)
{
  return jv_string (jtyped (o, key, json_type_string));
}

static struct jv *
jobj (const struct jv *o, const char *key)
{
  return jtyped (o, key, json_type_object);
}

enum verdict
cri_judge_containerd (const char *json, size_t len, const char *handler, const char *kata_file,
                      char *why, size_t size)
{
  cleanup_jv struct jv *root = NULL;
  struct jv *runtimes = containerd_runtimes (json, len, &root), *rt;
  const char *type, *path, *cpath;
  enum verdict v = VERDICT_FAIL;
  char sub[256];

  if (runtimes == NULL)
    snprintf (why, size,
              "containerd's running CRI configuration (crictl info: "
              "config.containerd.runtimes) was not in its answer");
  else if ((rt = jobj (runtimes, handler)) == NULL)
    snprintf (why, size,
              "containerd's running CRI configuration has no runtime handler \"%s\" "
              "(a file that names it is not loaded until containerd restarts)",
              handler);
  else
    {
      type = jstr (rt, "runtimeType");
      path = jstr (rt, "runtimePath");
      cpath = jstr (jobj (rt, "options"), "ConfigPath");
      /* runtimePath (1.7 and later) is the shim containerd runs, whatever
         runtimeType says. */
      if (path != NULL && *path != '\0' ? ! runtime_type_is_guard (path)
                                        : type == NULL || ! runtime_type_is_guard (type))
        snprintf (why, size, "runtime handler \"%s\" runs %s, not kata-guard", handler,
                  path != NULL && *path != '\0' ? path
                  : type != NULL                ? type
                                                : "no runtime_type");
      else if (! same_kata_file (cpath != NULL ? cpath : "", kata_file, sub, sizeof sub))
        snprintf (why, size, "runtime handler \"%s\" %s", handler, sub);
      else
        {
          v = VERDICT_PASS;
          snprintf (why, size,
                    "containerd serves runtime handler \"%s\": kata-guard (%s), Kata "
                    "configuration %s",
                    handler, path != NULL && *path != '\0' ? path : type,
                    cpath != NULL && *cpath != '\0' ? cpath : "from Kata's search order");
        }
    }
  return v;
}

static const char *
tstr (const struct toml_value *t, const char *key)
{
  const struct toml_value *v = t != NULL ? toml_get (t, key) : NULL;

  return v != NULL && v->kind == TOML_STRING ? v->u.string : NULL;
}

enum verdict
cri_judge_crio (const char *text, size_t len, const char *handler, const char *kata_file, char *why,
                size_t size)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_toml struct toml_value *doc = toml_parse ("CRI-O's /config", text, len, &err);
  const struct toml_value *rt;
  const char *path, *type, *cpath;
  char sub[256];

  if (doc == NULL)
    return snprintf (why, size, "CRI-O's running configuration does not parse: %s", err->msg),
           VERDICT_FAIL;
  rt = toml_get_path (doc, "crio", "runtime", "runtimes", handler, NULL);
  if (rt == NULL || rt->kind != TOML_TABLE)
    return snprintf (why, size,
                     "CRI-O's running configuration has no runtime handler \"%s\" (a file that "
                     "names it is not loaded until CRI-O restarts)",
                     handler),
           VERDICT_FAIL;
  path = tstr (rt, "runtime_path");
  type = tstr (rt, "runtime_type");
  cpath = tstr (rt, "runtime_config_path");
  /* "vm": CRI-O runs runtime_path as a shim v2; "oci" (or unset): conmon
     runs it as an OCI runtime.  Either way the program is runtime_path,
     and a bare name is looked up as the engines do. */
  if (path == NULL || *path == '\0' || ! runtime_type_is_guard (path))
    return snprintf (why, size, "runtime handler \"%s\" runs %s, not kata-guard", handler,
                     path != NULL && *path != '\0' ? path : "no runtime_path"),
           VERDICT_FAIL;
  if (type != NULL && *type != '\0' && strcmp (type, "vm") != 0 && strcmp (type, "oci") != 0)
    return snprintf (why, size,
                     "runtime handler \"%s\" has runtime_type \"%s\" (kata-guard "
                     "runs as \"vm\" or \"oci\")",
                     handler, type),
           VERDICT_FAIL;
  if (! same_kata_file (cpath != NULL ? cpath : "", kata_file, sub, sizeof sub))
    return snprintf (why, size, "runtime handler \"%s\" %s", handler, sub), VERDICT_FAIL;
  snprintf (why, size,
            "CRI-O serves runtime handler \"%s\": kata-guard (%s, runtime_type %s), "
            "Kata configuration %s",
            handler, path, type != NULL && *type != '\0' ? type : "oci",
            cpath != NULL && *cpath != '\0' ? cpath : "from Kata's search order");
  return VERDICT_PASS;
}

void
check_cri (struct preflight *pf)
{
  const struct cri_answer *a = pf->req->cri;
  const char *ep = pf->cfg->cri.endpoint, *handler = pf->cfg->cri.handler;
  const char *kata_file;
  enum verdict v;
  char why[768];

  /* Asked by `kata-guard check` only: a start does not wait for the CRI
     that is starting it. */
  if (pf->req->mode != KG_MODE_CHECK)
    return;
  if (*ep == '\0')
    {
      report_skip (pf->rep, "cri.handler", "no CRI to ask: [cri] endpoint is not set");
      return;
    }
  if (a == NULL || (a->info == NULL && a->crio == NULL))
    {
      report_fail (pf->rep, "cri.handler",
                   "start the CRI, or set [cri] endpoint to its socket (crictl must be "
                   "installed for containerd)",
                   "cannot ask the CRI at %s for its running configuration: %s", ep,
                   a != NULL ? a->why : "not asked");
      return;
    }
  if (pf->from_kata.config == NULL)
    {
      report_fail (pf->rep, "cri.handler", "fix the kata.* failures first",
                   "the Kata configuration kata-guard judges is not known (kata.* failed): "
                   "cannot tell whether the CRI's handler \"%s\" hands Kata that one",
                   handler);
      return;
    }
  kata_file = pf->from_kata.config->file;
  v = a->info != NULL
          ? cri_judge_containerd (a->info, a->info_len, handler, kata_file, why, sizeof why)
          : cri_judge_crio (a->crio, a->crio_len, handler, kata_file, why, sizeof why);
  if (v == VERDICT_PASS)
    report_pass (pf->rep, "cri.handler", "%s", why);
  else
    report_fail (pf->rep, "cri.handler", REMEDY_HANDLER, "%s: %s", ep, why);
}
