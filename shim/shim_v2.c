/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shim v2 mode (kata-guard(8), Shim v2 mode): kata-guard invoked by
 * containerd as containerd-shim-NAME-v2.  `start` is guarded: the checks run with the
 * bundle (the working directory) and the Kata configuration named by the
 * runtime options on stdin, then the real shim is executed with the same
 * arguments, environment and stdin bytes, or the start is refused on
 * stderr.  Every other call (delete, -info, -v, the daemon form, anything
 * unknown) passes straight through: teardown is never blocked.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "goflag.h"
#include "jscan.h"
#include "kata.h"
#include "options.h"
#include "output.h"
#include "policy.h"
#include "util.h"
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

/* Kata's Go shim keeps a sandbox's state by id alone
   (/run/vc/sbs/ID/ID/persist.json, with the bundle of the container it
   started), and ids are unique only per containerd namespace: a delete
   whose id names another namespace's Kata container would tear that
   container's VM down (Kata's delete cleans up the sandbox of that id).
   containerd sends one after every refused start.  Only a positive
   mismatch refuses: a state that cannot be read leaves teardown alone.
   Returns NULL to pass the delete through, else why not (malloc'd). */
static char *
delete_of_another (const struct shim_args *a)
{
  cleanup_error kg_error_t err = NULL;
  char path[PATH_MAX], theirs[PATH_MAX], mine[PATH_MAX], rtheirs[PATH_MAX], rmine[PATH_MAX];
  const char *bundle = a->bundle;

  if (! policy_valid_id (a->id)
      || snprintf (path, sizeof path, KATA_GO_SANDBOX_STATE "/%s/%s/persist.json", a->id, a->id)
             >= (int) sizeof path
      || jscan_top_string (path, "BundlePath", theirs, sizeof theirs, &err) != 1)
    return NULL;
  if (bundle == NULL || bundle[0] == '\0')
    bundle = getcwd (mine, sizeof mine);
  if (bundle == NULL)
    return NULL;
  /* The same directory, however spelt; a bundle that is gone is its path. */
  if (strcmp (realpath (theirs, rtheirs) ? rtheirs : theirs,
              realpath (bundle, rmine) ? rmine : bundle)
      == 0)
    return NULL;
  return output_message ("refusing 'delete' of container %s: Kata's sandbox %s (%s) is the "
                         "container of bundle %s, another namespace's container of that id; "
                         "passing this delete on would tear its VM down",
                         a->id, a->id, path, theirs);
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
