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
#include <sys/wait.h>
#include <unistd.h>

#include "install.h"
#include "install-int.h"
#include "trust.h"
#include "util.h"

/* How long `dockerd --version` / `docker version` may take. */
#define VERSION_TIMEOUT_MS 10000

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
  size_t len;

  return install_capture_max (argv, 4095, &len);
}

char *
install_capture_max (char *const argv[], size_t max, size_t *len)
{
  cleanup_free char *out = NULL;
  int status = kg_capture (exec_path, (void *) argv, true, max, VERSION_TIMEOUT_MS, &out, len);

  /* Output that filled MAX may have been cut: not an answer. */
  if (status < 0 || ! WIFEXITED (status) || WEXITSTATUS (status) != 0 || *len == 0 || *len >= max)
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
int
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
int
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
int
error_and_outcome (kg_error_t *err, const char *cmd, kg_error_t why, const char *file,
                   const char *outcome)
{
  return kg_error (err, 0, "%s\nkata-guard: %s: %s %s", why->msg, cmd, file, outcome);
}
