/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shim v2 mode (kata-guard(8), Shim v2 mode): kata-guard invoked by
 * containerd as containerd-shim-NAME-v2.  `start` is guarded: the checks run with the
 * bundle (the working directory) and the Kata configuration named by the
 * runtime options on stdin, then the real shim is executed with the same
 * arguments, environment and stdin bytes, or the start is refused on
 * stderr.  Every other call (delete, -info, -v, the daemon form, anything
 * unknown) passes straight through, but for a delete of Kata state that
 * another bundle's container holds (delete_of_another).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capacity.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "goflag.h"
#include "jsonscan.h"
#include "kata.h"
#include "options.h"
#include "output.h"
#include "policy.h"
#include "wrapper.h"

/* ---- start ---- */

/* Read and decode the runtime options containerd wrote to stdin.  A
   terminal or a closed stdin holds none.  Failures go into PRE. */
static void
read_options (struct report *pre, const struct shim_args *a, struct runtime_options *opts)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  size_t len = 0;

  if (fcntl (STDIN_FILENO, F_GETFD) < 0 || isatty (STDIN_FILENO))
    return;
  /* containerd writes the options and closes: a stdin that stays open
     must not hold the start (and the engine) for ever. */
  if (kg_read_fd_deadline (STDIN_FILENO, "stdin", KG_OPTIONS_MAX, KG_OPTIONS_DEADLINE_MS, &buf,
                           &len, &err)
          < 0
      || options_decode (buf, len, a->id, a->ns, opts, &err) < 0
      || (len > 0 && wrapper_refeed_stdin (buf, len, &err) < 0))
    report_fail (pre, "options",
                 "check the runtime options configured for this runtime in containerd "
                 "(options.ConfigPath in config.toml, or ctr --runtime-config-path)",
                 "cannot read the runtime options on stdin: %s", err->msg);
}

static int
shim_start (int argc, char **argv, const struct shim_args *a)
{
  const struct channel ch = { KG_MODE_SHIM, NULL, false, a->ns };
  struct request req = { .mode = KG_MODE_SHIM, .container_id = a->id, .ns = a->ns };
  struct runtime_options opts = { OPTIONS_NONE, NULL, NULL, NULL, 0, false };
  struct report pre = { 0 };
  char cwd[PATH_MAX];
  int status;

  /* containerd starts the shim in the bundle; the real shim reads
     config.json from there, so that is the bundle to check (-bundle is a
     delete-time flag). */
  if (getcwd (cwd, sizeof cwd) != NULL)
    req.bundle = cwd;
  if (a->bad != NULL)
    report_fail (&pre, "args", "run kata-guard with the arguments containerd gives a shim v2",
                 "%s: %s: a start kata-guard cannot read is refused", a->bad, a->bad_why);
  else if (a->id == NULL || a->id[0] == '\0')
    report_fail (&pre, "args", "run kata-guard with the arguments containerd gives a shim v2",
                 "start without -id: no container to start");
  else if (req.bundle == NULL)
    report_fail (&pre, "args", "start the shim in the bundle directory",
                 "cannot read the working directory (the bundle): %s", strerror (errno));
  read_options (&pre, a, &opts);
  if (opts.kind == OPTIONS_RUNTIME)
    req.kata_config = opts.config_path;

  status = wrapper_start (&req, &pre, &ch, opts.type_url, argv);
  options_release (&opts);
  report_release (&pre);
  return status;
}

/* The same directory, however spelt; a path that is gone is its path. */
static bool
same_bundle (const char *a, const char *b)
{
  char ra[PATH_MAX], rb[PATH_MAX];

  return strcmp (realpath (a, ra) ? ra : a, realpath (b, rb) ? rb : b) == 0;
}

/* Kata's Go shim: its `delete` (service.Cleanup, cleanupContainer in
   src/runtime/pkg/containerd-shim-v2) loads the sandbox that the
   bundle's config.json names (its own id for a sandbox or a container of
   its own, CRI's or CRI-O's sandbox-id annotation for a pod member) and
   stops and deletes the container of this id in it, and the sandbox too
   when no container is left (virtcontainers' CleanupContainer, forced).
   Its state is SBS/SANDBOX/ID/persist.json, with the bundle of the
   container it started.  Every sandbox's container of this id is looked
   at, whatever the annotations say (a spec author writes those): one
   that another bundle started would be torn down.  A state the guard
   cannot read is one Kata cannot read either (root writes it, and Kata
   fails on it), and passes.  NULL, or why not (malloc'd). */
static char *
go_container_of_another (const char *sbs, const char *id, const char *bundle)
{
  DIR *d = opendir (sbs);
  struct dirent *e;
  char *why = NULL;

  if (d == NULL)
    return NULL;
  while (why == NULL && (e = readdir (d)) != NULL)
    {
      cleanup_error kg_error_t err = NULL;
      char path[PATH_MAX], theirs[PATH_MAX];

      if (e->d_name[0] == '.'
          || snprintf (path, sizeof path, "%s/%s/%s/persist.json", sbs, e->d_name, id)
                 >= (int) sizeof path
          || jscan_top_string (path, "BundlePath", theirs, sizeof theirs, &err) != 1
          || same_bundle (theirs, bundle))
        continue;
      why = output_message ("refusing 'delete' of container %s: Kata's sandbox %s holds a "
                            "container %s (%s) of bundle %s, another container of that id "
                            "(another namespace's); passing this delete on would tear it down",
                            id, e->d_name, id, path, theirs);
    }
  closedir (d);
  return why;
}

/* runtime-rs: its `delete` (shim_delete.rs, ServiceManager::cleanup)
   restores the VM of RS/ID (state.json, which names no bundle) and
   cleans it up, whoever started it.  Such a state is this container's
   only where the guard allowed a start of this namespace's container ID
   in this bundle and still holds its capacity record; else it is another
   namespace's VM of that id, or one the guard cannot tell, and the
   delete refuses. */
static char *
rs_sandbox_of_another (const char *rs, const struct shim_args *a, const char *bundle)
{
  cleanup_error kg_error_t err = NULL;
  char path[PATH_MAX];
  struct stat st;
  int mine;

  if (snprintf (path, sizeof path, "%s/%s", rs, a->id) >= (int) sizeof path
      || (lstat (path, &st) < 0 && errno == ENOENT))
    return NULL;
  mine = capacity_started_in (KG_MODE_SHIM, a->ns ? a->ns : "", a->id, bundle, &err);
  if (mine == 1)
    return NULL;
  return output_message ("refusing 'delete' of container %s: runtime-rs's sandbox state %s "
                         "is not known to be this container's: kata-guard %s of namespace "
                         "%s's container %s in bundle %s; passing this delete on would tear "
                         "that VM down (if it is this container's, stop it and remove %s by "
                         "hand)",
                         a->id, path, mine < 0 ? err->msg : "holds no record of a start",
                         a->ns ? a->ns : "(none)", a->id, bundle, path);
}

/* A shim `delete` reaches the real shim only when the state it would act
   on belongs to this bundle's container, or there is none (kata-guard(8),
   Shim v2 mode): Kata's runtimes key their state by id alone, ids are
   unique only per containerd namespace, and a delete comes for a start
   the guard refused too.  Returns NULL to pass the delete through, else
   why not (malloc'd). */
static char *
delete_of_another (const struct shim_args *a)
{
  char cwd[PATH_MAX];
  const char *bundle = a->bundle;
  char *why;

  if (! policy_valid_id (a->id))
    return NULL;
  if (bundle == NULL || bundle[0] == '\0')
    bundle = getcwd (cwd, sizeof cwd);
  if (bundle == NULL)
    return NULL;
  if ((why = go_container_of_another (KATA_GO_SANDBOX_STATE, a->id, bundle)) != NULL)
    return why;
  return rs_sandbox_of_another (KATA_RS_SANDBOX_STATE, a, bundle);
}

int
shim_v2_main (int argc, char **argv)
{
  struct channel ch = { KG_MODE_SHIM, NULL, false, NULL };
  struct shim_args a;

  shim_parse_args (argc, argv, &a);
  ch.scope = a.ns;
  if (a.start)
    return shim_start (argc, argv, &a);
  if (a.action != NULL && strcmp (a.action, "delete") == 0 && a.bad == NULL)
    {
      cleanup_free char *why = delete_of_another (&a);

      if (why != NULL)
        {
          wrapper_say (&ch, why);
          return 1;
        }
    }
  /* delete, -info, -v, the daemon form and anything else: cleanup and
     introspection are never blocked, and stdin is left alone. */
  return wrapper_passthrough (&ch,
                              a.action    ? a.action
                              : a.bad     ? a.bad
                              : a.version ? "-v"
                              : a.info    ? "-info"
                                          : "(serve)",
                              a.id, NULL, argv);
}
