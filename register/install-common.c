/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the registrations share (install-int.h), below them: the running
 * binary and whether it may be registered, the engines' versions, the
 * error that says what became of a file.  install.c (the command line)
 * calls install-docker.c and install-dropin.c, and both call this; nothing
 * here calls back up.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cleanup.h"
#include "error.h"
#include "install-int.h"
#include "trust.h"

/* ---- the running binary ------------------------------------------------------ */

/* The running kata-guard and the shim link beside it (both absolute). */
int
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
int
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

/* containerd's major version from `containerd --version`
   ("containerd github.com/containerd/containerd 1.6.20~ds1 ..."). */
int
containerd_major (void)
{
  static char *const argv[] = { (char *) "containerd", (char *) "--version", NULL };
  cleanup_free char *out = kg_capture_engine (argv);
  char *save = NULL, *tok;
  int i = 0;

  if (out == NULL)
    return -1;
  for (tok = strtok_r (out, " \n", &save); tok != NULL; tok = strtok_r (NULL, " \n", &save))
    if (i++ >= 1 && kg_version_major (tok) >= 0)
      return kg_version_major (tok);
  return -1;
}

/* The error WHY that ends command CMD, then what became of FILE (OUTCOME:
   "is unchanged", "was not touched") on a line of its own: the operator
   must know both.  main prints the message after "kata-guard: CMD: ", and
   the second line takes the same prefix. */
int
error_and_outcome (kg_error_t *err, const char *cmd, kg_error_t why, const char *file,
                   const char *outcome)
{
  return kg_error (err, 0, "%s\nkata-guard: %s: %s %s", why->msg, cmd, file, outcome);
}
