/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Both argv parsers (containerd's shim flags, runc's global and create
 * flags): the input split on NUL bytes is the argument vector.  The first
 * byte picks the parser, so one corpus covers both.  Every pointer a
 * parser returns must point into argv (or be a static string).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "goflag.h"
#include "wrapper.h"

#define MAX_ARGS 64

static char **g_argv;
static int g_argc;

static bool
in_argv (const char *p)
{
  if (p == NULL)
    return true;
  for (int i = 0; i < g_argc; i++)
    if (p >= g_argv[i] && p <= g_argv[i] + strlen (g_argv[i]))
      return true;
  return false;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *copy, *argv[MAX_ARGS + 1];
  int argc = 0;
  unsigned mode;

  if (size < 1)
    return 0;
  mode = data[0] & 1;
  data++, size--;
  /* An argument vector is NUL-terminated strings: the copy gets a final
     NUL so that the last piece is one too. */
  copy = malloc (size + 1);
  FUZZ_ASSERT (copy != NULL);
  memcpy (copy, data, size);
  copy[size] = '\0';
  argv[argc++] = (char *) (mode ? "runc" : "containerd-shim-kata-guard-v2");
  for (size_t i = 0; i < size && argc < MAX_ARGS;)
    {
      argv[argc++] = copy + i;
      i += strlen (copy + i) + 1;
    }
  argv[argc] = NULL;
  g_argv = argv;
  g_argc = argc;

  if (mode == 0)
    {
      struct shim_args a;

      memset (&a, 0, sizeof a);
      shim_parse_args (argc, argv, &a);
      FUZZ_ASSERT (in_argv (a.ns) && in_argv (a.address) && in_argv (a.publish_binary));
      FUZZ_ASSERT (in_argv (a.id) && in_argv (a.bundle) && in_argv (a.socket));
      FUZZ_ASSERT (in_argv (a.action) && in_argv (a.bad));
      FUZZ_ASSERT ((a.bad == NULL) == (a.bad_why == NULL));
      if (a.action != NULL && a.bad == NULL)
        FUZZ_ASSERT (a.start == (strcmp (a.action, "start") == 0));
    }
  else
    {
      struct oci_args a;

      memset (&a, 0, sizeof a);
      oci_parse_args (argc, argv, &a);
      FUZZ_ASSERT (in_argv (a.root) && in_argv (a.log) && in_argv (a.log_format));
      FUZZ_ASSERT (in_argv (a.criu) && in_argv (a.rootless) && in_argv (a.command));
      FUZZ_ASSERT (in_argv (a.bad) && in_argv (a.bundle) && in_argv (a.pid_file));
      FUZZ_ASSERT (in_argv (a.console_socket) && in_argv (a.id));
      FUZZ_ASSERT ((a.bad == NULL) == (a.bad_why == NULL));
      if (a.command != NULL && a.bad == NULL
          && (strcmp (a.command, "create") == 0 || strcmp (a.command, "run") == 0))
        FUZZ_ASSERT (a.guarded);
    }
  free (copy);
  return 0;
}
