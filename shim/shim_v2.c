/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shim v2 mode (SPEC 1, 2): kata-guard invoked by containerd as
 * containerd-shim-NAME-v2.  `start` is guarded: the checks run with the
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

#include "options.h"
#include "util.h"
#include "wrapper.h"

/* ---- Go's flag package, as containerd's shims and runc parse argv ---- */

int
goflag_parse_bool (const char *s, bool *out)
{
  static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
  static const char *const no[] = { "0", "f", "F", "FALSE", "false", "False" };

  for (size_t i = 0; i < ARRAY_SIZE (yes); i++)
    {
      if (strcmp (s, yes[i]) == 0)
        {
          *out = true;
          return 0;
        }
      if (strcmp (s, no[i]) == 0)
        {
          *out = false;
          return 0;
        }
    }
  return -1;
}

enum goflag_status
goflag_one (const struct goflag *table, size_t n, int argc, char **argv, int *i,
            const char **strs, bool *bools, const char **why)
{
  const char *s = argv[*i], *name, *eq;
  const struct goflag *f = NULL;
  size_t len;

  /* As flag.FlagSet.parseOne: "-" and words are not flags; "--" ends them. */
  if (s[0] != '-' || s[1] == '\0')
    return GOFLAG_NOT_FLAG;
  name = s + 1;
  if (name[0] == '-')
    {
      name++;
      if (name[0] == '\0')
        {
          (*i)++;
          return GOFLAG_END;
        }
    }
  if (name[0] == '-' || name[0] == '=')
    {
      *why = "bad flag syntax";
      return GOFLAG_BAD;
    }
  eq = strchr (name + 1, '=');
  len = eq ? (size_t) (eq - name) : strlen (name);
  for (size_t k = 0; k < n; k++)
    if (strlen (table[k].name) == len && strncmp (table[k].name, name, len) == 0)
      {
        f = &table[k];
        break;
      }
  if (f == NULL)
    {
      *why = "flag provided but not known";
      return GOFLAG_UNKNOWN;
    }
  (*i)++;
  if (f->type == GOFLAG_BOOL)
    {
      bool v = true;

      if (eq != NULL && goflag_parse_bool (eq + 1, &v) < 0)
        {
          *why = "invalid boolean value";
          return GOFLAG_BAD;
        }
      bools[f->slot] = v;
      return GOFLAG_OK;
    }
  if (eq != NULL)
    strs[f->slot] = eq + 1;
  else if (*i < argc)
    strs[f->slot] = argv[(*i)++];
  else
    {
      *why = "flag needs an argument";
      return GOFLAG_BAD;
    }
  return GOFLAG_OK;
}

/* ---- containerd's shim arguments ---- */

enum
{
  S_NAMESPACE,
  S_ADDRESS,
  S_PUBLISH_BINARY,
  S_ID,
  S_BUNDLE,
  S_SOCKET,
  S_NSTR,
};
enum
{
  B_DEBUG,
  B_V,
  B_INFO,
  B_NBOOL,
};

/* containerd 1.6-2.x pkg/shim: parseFlags (), plus -version. */
static const struct goflag shim_flags[] = {
  { "namespace", GOFLAG_STRING, S_NAMESPACE },
  { "address", GOFLAG_STRING, S_ADDRESS },
  { "publish-binary", GOFLAG_STRING, S_PUBLISH_BINARY },
  { "id", GOFLAG_STRING, S_ID },
  { "bundle", GOFLAG_STRING, S_BUNDLE },
  { "socket", GOFLAG_STRING, S_SOCKET },
  { "debug", GOFLAG_BOOL, B_DEBUG },
  { "v", GOFLAG_BOOL, B_V },
  { "version", GOFLAG_BOOL, B_V },
  { "info", GOFLAG_BOOL, B_INFO },
};

void
shim_parse_args (int argc, char **argv, struct shim_args *a)
{
  const char *strs[S_NSTR] = { NULL };
  bool bools[B_NBOOL] = { false };
  int i = 1;

  memset (a, 0, sizeof *a);
  while (i < argc)
    {
      int at = i;
      enum goflag_status st = goflag_one (shim_flags, ARRAY_SIZE (shim_flags), argc, argv, &i,
                                          strs, bools, &a->bad_why);

      if (st == GOFLAG_OK)
        continue;
      if (st == GOFLAG_UNKNOWN || st == GOFLAG_BAD)
        a->bad = argv[at];
      break;
    }
  if (a->bad == NULL && i < argc)
    a->action = argv[i];
  a->ns = strs[S_NAMESPACE];
  a->address = strs[S_ADDRESS];
  a->publish_binary = strs[S_PUBLISH_BINARY];
  a->id = strs[S_ID];
  a->bundle = strs[S_BUNDLE];
  a->socket = strs[S_SOCKET];
  a->debug = bools[B_DEBUG];
  a->version = bools[B_V];
  a->info = bools[B_INFO];
  a->start = a->action != NULL && strcmp (a->action, "start") == 0;
  /* The real shim would stop at an argument it cannot parse; but a start
     that kata-guard cannot read is refused rather than guessed at. */
  if (a->bad != NULL)
    for (int k = 1; k < argc; k++)
      if (strcmp (argv[k], "start") == 0)
        a->start = true;
}

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

int
shim_v2_main (int argc, char **argv)
{
  struct channel ch = { KG_MODE_SHIM, NULL, false, NULL };
  struct shim_args a;

  shim_parse_args (argc, argv, &a);
  ch.scope = a.ns;
  if (a.start)
    return shim_start (argc, argv, &a);
  /* delete, -info, -v, the daemon form and anything else: cleanup and
     introspection are never blocked, and stdin is left alone. */
  return wrapper_passthrough (&ch,
                              a.action ? a.action
                              : a.bad  ? a.bad
                              : a.version ? "-v"
                              : a.info    ? "-info"
                                          : "(serve)",
                              a.id, NULL, argv);
}
