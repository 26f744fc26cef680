/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata-guard: one binary, three entry points (kata-guard(8), MODES).
 * This file only decides which; everything else lives in its own file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exec.h"
#include "install.h"
#include "output.h"
#include "prove.h"
#include "validate.h"
#include "wrapper.h"

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash ? slash + 1 : path;
}

/* containerd starts a shim as containerd-shim-NAME-v2, or by an absolute
   path whose first argument is its -namespace flag (any form Go's flag
   package takes). */
static bool
is_shim_invocation (int argc, char **argv)
{
  if (fnmatch ("containerd-shim-*-v2", base_name (argv[0]), 0) == 0)
    return true;
  return argc > 1
         && (strcmp (argv[1], "-namespace") == 0 || strcmp (argv[1], "--namespace") == 0
             || strncmp (argv[1], "-namespace=", 11) == 0
             || strncmp (argv[1], "--namespace=", 12) == 0);
}

/* runc's subcommands: with one of these (or a flag) first, kata-guard is
   an OCI runtime.  Any other word is a mistyped kata-guard command. */
static bool
is_oci_invocation (const char *arg)
{
  static const char *const verbs[] = {
    "checkpoint", "create", "delete",  "events", "exec", "features", "init",  "kill",  "list",
    "pause",      "ps",     "restore", "resume", "run",  "spec",     "start", "state", "update",
  };

  if (arg[0] == '-')
    return true;
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
    if (strcmp (arg, verbs[i]) == 0)
      return true;
  return false;
}

/* A closed 0, 1 or 2 would be taken by the first file the guard opens, and
   a message meant for stderr could land in it: give it /dev/null (as
   OpenSSH's sanitise_stdfd).  Engines always pass all three. */
static void
sanitise_stdfd (void)
{
  for (int fd = 0; fd <= 2; fd++)
    if (fcntl (fd, F_GETFD) < 0 && errno == EBADF)
      {
        int n = open ("/dev/null", O_RDWR);

        if (n >= 0 && n != fd)
          {
            dup2 (n, fd);
            close (n);
          }
      }
}

static void
print_report (FILE *out, const struct report *rep)
{
  output_text (out, rep, output_want_color (out));
}

static int
validate_command (int argc, char **argv, bool *usage, kg_error_t *err)
{
  return cli_validate (argc, argv, print_report, usage, err);
}

static void
print_prometheus (FILE *out, const struct report *rep, double seconds, long long now)
{
  output_prometheus (out, rep, NULL, seconds, now);
}

static int
prove_command (int argc, char **argv, bool *usage, kg_error_t *err)
{
  static const struct kg_report_printers printers = { print_report, output_json, print_prometheus };

  return cli_prove (argc, argv, &printers, usage, err);
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *name;
    kg_command *run;
    void (*usage) (FILE *out);
  } commands[] = {
    { "check", cli_check, cli_usage },
    { "install", cli_install, install_usage },
    { "uninstall", cli_uninstall, uninstall_usage },
    { "validate", validate_command, validate_usage },
    { "prove", prove_command, prove_usage },
    { "version", cli_version, cli_version_usage },
    { "help", cli_help, NULL },
    { "--help", cli_help, NULL },
    { "-h", cli_help, NULL },
  };

  /* Before anything opens a descriptor: the real runtime must inherit
     exactly these. */
  sanitise_stdfd ();
  exec_note_inherited ();

  if (argc < 1 || argv[0] == NULL)
    return KG_EXIT_USAGE;
  if (is_shim_invocation (argc, argv))
    return shim_v2_main (argc, argv);
  if (argc < 2)
    {
      cli_usage (stderr);
      return KG_EXIT_USAGE;
    }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        cleanup_error kg_error_t err = NULL;
        bool usage = false;
        int status = commands[i].run (argc - 1, argv + 1, &usage, &err);

        /* The one place a command's error is printed. */
        if (err != NULL)
          fprintf (stderr, "kata-guard: %s: %s\n", commands[i].name, err->msg);
        if (usage && commands[i].usage != NULL)
          commands[i].usage (stderr);
        return status;
      }
  /* --version too: Docker asks a path runtime for it (docker info). */
  if (is_oci_invocation (argv[1]))
    return oci_main (argc, argv);
  fprintf (stderr, "kata-guard: unknown command '%s'\n", argv[1]);
  cli_usage (stderr);
  return KG_EXIT_USAGE;
}
