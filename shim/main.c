/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata-guard: one binary, three entry points (kata-guard(8), SPEC 1).
 * This file only decides which; everything else lives in its own file.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash ? slash + 1 : path;
}

/* containerd starts a shim as containerd-shim-NAME-v2, or by an absolute
   path whose first argument is its -namespace flag. */
static int
is_shim_invocation (int argc, char **argv)
{
  if (fnmatch ("containerd-shim-*-v2", base_name (argv[0]), 0) == 0)
    return 1;
  return argc > 1 && (strcmp (argv[1], "-namespace") == 0 || strcmp (argv[1], "--namespace") == 0
                      || strncmp (argv[1], "-namespace=", 11) == 0
                      || strncmp (argv[1], "--namespace=", 12) == 0);
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *name;
    int (*run) (int, char **);
  } commands[] = {
    { "check", cli_check },
    { "version", cli_version },
    { "--version", cli_version },
    { "help", cli_help },
    { "--help", cli_help },
    { "-h", cli_help },
  };

  if (argc < 1 || argv[0] == NULL)
    return KG_EXIT_USAGE;
  if (is_shim_invocation (argc, argv))
    {
      /* Fail closed: a build without the wrapper must never start anything. */
      fprintf (stderr, "kata-guard: refusing: this build has no shim v2 mode\n");
      return KG_EXIT_FAIL;
    }
  if (argc < 2)
    {
      cli_usage (stderr);
      return KG_EXIT_USAGE;
    }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "kata-guard: unknown command '%s'\n", argv[1]);
  cli_usage (stderr);
  return KG_EXIT_USAGE;
}
