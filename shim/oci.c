/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OCI runtime mode (SPEC 1, 2): kata-guard registered as a runc-style
 * runtime (Docker's "path" runtimes).  `create` and `run` are guarded with
 * the bundle of --bundle (default: the working directory); a refusal
 * appends an error line to runc's --log file, where the engine looks for
 * the reason, and says it on stderr.  --version prints kata-guard's line
 * and then the real runtime's.  Everything else passes straight through.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "record.h"
#include "util.h"
#include "wrapper.h"

enum
{
  G_LOG,
  G_LOG_FORMAT,
  G_ROOT,
  G_CRIU,
  G_ROOTLESS,
  G_NSTR,
};
enum
{
  G_DEBUG,
  G_SYSTEMD_CGROUP,
  G_VERSION,
  G_HELP,
  G_NBOOL,
};

/* runc's global flags (urfave/cli v1 over Go's flag package, so "-x" and
   "--x", "=" or a separate value). */
static const struct goflag global_flags[] = {
  { "debug", GOFLAG_BOOL, G_DEBUG },
  { "log", GOFLAG_STRING, G_LOG },
  { "log-format", GOFLAG_STRING, G_LOG_FORMAT },
  { "root", GOFLAG_STRING, G_ROOT },
  { "criu", GOFLAG_STRING, G_CRIU },
  { "systemd-cgroup", GOFLAG_BOOL, G_SYSTEMD_CGROUP },
  { "rootless", GOFLAG_STRING, G_ROOTLESS },
  { "version", GOFLAG_BOOL, G_VERSION },
  { "v", GOFLAG_BOOL, G_VERSION },
  { "help", GOFLAG_BOOL, G_HELP },
  { "h", GOFLAG_BOOL, G_HELP },
};

enum
{
  C_BUNDLE,
  C_CONSOLE_SOCKET,
  C_PID_FILE,
  C_PRESERVE_FDS,
  C_NSTR,
};
enum
{
  C_NO_PIVOT,
  C_NO_NEW_KEYRING,
  C_DETACH,
  C_KEEP,
  C_NO_SUBREAPER,
  C_HELP,
  C_NBOOL,
};

/* runc create's flags; run has the same and three more. */
static const struct goflag create_flags[] = {
  { "bundle", GOFLAG_STRING, C_BUNDLE },
  { "b", GOFLAG_STRING, C_BUNDLE },
  { "console-socket", GOFLAG_STRING, C_CONSOLE_SOCKET },
  { "pid-file", GOFLAG_STRING, C_PID_FILE },
  { "preserve-fds", GOFLAG_STRING, C_PRESERVE_FDS },
  { "no-pivot", GOFLAG_BOOL, C_NO_PIVOT },
  { "no-new-keyring", GOFLAG_BOOL, C_NO_NEW_KEYRING },
  { "help", GOFLAG_BOOL, C_HELP },
  { "h", GOFLAG_BOOL, C_HELP },
  /* run only: */
  { "detach", GOFLAG_BOOL, C_DETACH },
  { "d", GOFLAG_BOOL, C_DETACH },
  { "keep", GOFLAG_BOOL, C_KEEP },
  { "no-subreaper", GOFLAG_BOOL, C_NO_SUBREAPER },
};
#define N_CREATE_ONLY_FLAGS 9

static bool
is_guarded (const char *cmd)
{
  return strcmp (cmd, "create") == 0 || strcmp (cmd, "run") == 0;
}

/* create/run flags and the one container id.  urfave/cli v1 moves flags
   in front of the arguments, so a flag may also follow the id. */
static void
parse_create (int argc, char **argv, int i, bool run, struct oci_args *a)
{
  const char *strs[C_NSTR] = { NULL };
  bool bools[C_NBOOL] = { false };
  size_t n_flags = run ? ARRAY_SIZE (create_flags) : N_CREATE_ONLY_FLAGS;
  const char *extra = NULL;
  bool flags_done = false;
  int n_pos = 0;

  while (i < argc)
    {
      int at = i;
      enum goflag_status st = flags_done ? GOFLAG_NOT_FLAG
                                         : goflag_one (create_flags, n_flags, argc, argv, &i,
                                                       strs, bools, &a->bad_why);

      switch (st)
        {
        case GOFLAG_OK:
          continue;
        case GOFLAG_END:
          flags_done = true;
          continue;
        case GOFLAG_NOT_FLAG:
          if (n_pos++ == 0)
            a->id = argv[i];
          else if (extra == NULL)
            extra = argv[i];
          i++;
          continue;
        case GOFLAG_UNKNOWN:
        case GOFLAG_BAD:
          a->bad = argv[at];
          return;
        }
    }
  a->bundle = strs[C_BUNDLE];
  a->pid_file = strs[C_PID_FILE];
  a->console_socket = strs[C_CONSOLE_SOCKET];
  if (n_pos == 0)
    {
      a->bad = a->command;
      a->bad_why = "no container id";
      a->id = NULL;
    }
  else if (n_pos > 1)
    {
      a->bad = extra;
      a->bad_why = "more than one container id";
    }
  else if (a->id[0] == '\0')
    {
      a->bad = a->command;
      a->bad_why = "an empty container id";
    }
}

void
oci_parse_args (int argc, char **argv, struct oci_args *a)
{
  const char *strs[G_NSTR] = { NULL };
  bool bools[G_NBOOL] = { false };
  int i = 1;

  memset (a, 0, sizeof *a);
  while (i < argc)
    {
      int at = i;
      enum goflag_status st = goflag_one (global_flags, ARRAY_SIZE (global_flags), argc, argv,
                                          &i, strs, bools, &a->bad_why);

      if (st == GOFLAG_OK)
        continue;
      if (st == GOFLAG_UNKNOWN || st == GOFLAG_BAD)
        a->bad = argv[at];
      break;
    }
  a->log = strs[G_LOG];
  a->log_format = strs[G_LOG_FORMAT];
  a->root = strs[G_ROOT];
  a->criu = strs[G_CRIU];
  a->rootless = strs[G_ROOTLESS];
  a->debug = bools[G_DEBUG];
  a->systemd_cgroup = bools[G_SYSTEMD_CGROUP];
  a->version = bools[G_VERSION];
  a->help = bools[G_HELP];
  if (a->bad == NULL && i < argc)
    a->command = argv[i];
  if (a->command != NULL && is_guarded (a->command))
    {
      a->guarded = true;
      parse_create (argc, argv, i + 1, strcmp (a->command, "run") == 0, a);
    }
  /* An argument runc would refuse leaves the subcommand unknown: when a
     create or run may be meant, it is refused rather than guessed at. */
  if (a->bad != NULL)
    for (int k = 1; k < argc; k++)
      if (is_guarded (argv[k]))
        a->guarded = true;
}

static int
oci_start (char **argv, const struct oci_args *a, const struct channel *ch)
{
  struct request req = { .mode = KG_MODE_OCI, .container_id = a->id };
  struct report pre = { 0 };
  cleanup_free char *bundle = NULL;
  char cwd[PATH_MAX];
  int status;

  if (a->bad != NULL)
    report_fail (&pre, "args", "run kata-guard with the arguments of a runc create or run",
                 "%s: %s: a create kata-guard cannot read is refused", a->bad, a->bad_why);
  /* runc resolves a relative --bundle against its working directory. */
  if (a->bundle != NULL && a->bundle[0] == '/')
    req.bundle = a->bundle;
  else if (getcwd (cwd, sizeof cwd) == NULL)
    {
      if (a->bad == NULL)
        report_fail (&pre, "args", "run the runtime in the bundle or pass --bundle",
                     "cannot read the working directory (the bundle): %s", strerror (errno));
    }
  else if (a->bundle == NULL || a->bundle[0] == '\0')
    req.bundle = cwd;
  else if (asprintf (&bundle, "%s/%s", cwd, a->bundle) >= 0)
    req.bundle = bundle;
  else
    {
      bundle = NULL;
      if (a->bad == NULL)
        report_fail (&pre, "args", NULL, "out of memory resolving --bundle %s", a->bundle);
    }

  status = wrapper_start (&req, &pre, ch, NULL, argv);
  report_release (&pre);
  return status;
}

/* Docker runs `RUNTIME --version` for docker info: kata-guard's line
   first, then the real runtime's when one is configured. */
static int
oci_version (char **argv, const struct channel *ch)
{
  cleanup_error kg_error_t err = NULL;
  struct guard_config cfg;
  bool have_runtime;

  printf ("kata-guard %s\n", PACKAGE_VERSION);
  if (fflush (stdout) != 0)
    return 1;
  if (guard_config_load (guard_config_default_path (), &cfg, &err) < 0)
    return 0;
  have_runtime = cfg.runtime.oci[0] != '\0';
  guard_config_release (&cfg);
  if (! have_runtime)
    return 0;
  return wrapper_passthrough (ch, "--version", NULL, NULL, argv);
}

/* The container a call that passes through is about: the first argument
   after the subcommand that names one the guard started in this --root
   (its record).  runc's commands take the id among flags of their own;
   a flag's value that happened to name another recorded container would
   still reach a runtime that knows that name.  *RUNTIME: the runtime the
   record names (malloc'd), or NULL with the id. */
static const char *
recorded_id (int argc, char **argv, const struct oci_args *a, char **runtime)
{
  int i = 1;

  *runtime = NULL;
  if (a->command == NULL)
    return NULL;
  while (i < argc && argv[i] != a->command)
    i++;
  for (i++; i < argc; i++)
    {
      cleanup_error kg_error_t err = NULL;

      if (argv[i][0] == '-')
        continue;
      *runtime = record_read (KG_MODE_OCI, a->root, argv[i], &err);
      if (*runtime != NULL)
        return argv[i];
    }
  return NULL;
}

int
oci_main (int argc, char **argv)
{
  struct oci_args a;
  struct channel ch = { KG_MODE_OCI, NULL, false, NULL };
  const char *id;
  char *runtime;

  oci_parse_args (argc, argv, &a);
  ch.scope = a.root;
  ch.log = a.log;
  ch.log_json = a.log_format != NULL && strcmp (a.log_format, "json") == 0;
  if (a.guarded)
    return oci_start (argv, &a, &ch);
  if (a.version && a.bad == NULL)
    return oci_version (argv, &ch);
  id = recorded_id (argc, argv, &a, &runtime);
  return wrapper_passthrough (&ch, a.command ? a.command : a.bad ? a.bad : "(no command)", id,
                              runtime, argv);
}
