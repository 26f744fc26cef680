/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engines' command lines (goflag.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "goflag.h"

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
goflag_one (const struct goflag *table, size_t n, int argc, char **argv, int *i, const char **strs,
            bool *bools, const char **why)
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

/* Go's FlagSet.Parse: the flags from ARGV[*I] on, up to the first
   argument that is not one, or past "--"; *I is then that argument.  A
   flag TABLE does not hold, or a malformed one, stops it: *BAD is that
   argument and *WHY says what is wrong. */
static void
goflag_parse (const struct goflag *table, size_t n, int argc, char **argv, int *i,
              const char **strs, bool *bools, const char **bad, const char **why)
{
  while (*i < argc)
    {
      int at = *i;
      enum goflag_status st = goflag_one (table, n, argc, argv, i, strs, bools, why);

      if (st == GOFLAG_OK)
        continue;
      if (st == GOFLAG_UNKNOWN || st == GOFLAG_BAD)
        *bad = argv[at];
      break;
    }
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
  goflag_parse (shim_flags, ARRAY_SIZE (shim_flags), argc, argv, &i, strs, bools, &a->bad,
                &a->bad_why);
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

/* runc exec's flags (runc 1.1/1.2 exec.go).  It sets SkipArgReorder:
   the first argument that is not a flag is the container id, and
   everything after it is the command. */
enum
{
  X_CONSOLE_SOCKET,
  X_PID_FILE,
  X_PROCESS,
  X_CWD,
  X_ENV,
  X_USER,
  X_GIDS,
  X_LABEL,
  X_APPARMOR,
  X_CAP,
  X_PRESERVE_FDS,
  X_CGROUP,
  X_NSTR,
};
enum
{
  XB_TTY,
  XB_NO_NEW_PRIVS,
  XB_DETACH,
  XB_IGNORE_PAUSED,
  XB_HELP,
  XB_NBOOL,
};
static const struct goflag exec_flags[] = {
  { "console-socket", GOFLAG_STRING, X_CONSOLE_SOCKET },
  { "pid-file", GOFLAG_STRING, X_PID_FILE },
  { "process", GOFLAG_STRING, X_PROCESS },
  { "p", GOFLAG_STRING, X_PROCESS },
  { "cwd", GOFLAG_STRING, X_CWD },
  { "env", GOFLAG_STRING, X_ENV },
  { "e", GOFLAG_STRING, X_ENV },
  { "user", GOFLAG_STRING, X_USER },
  { "u", GOFLAG_STRING, X_USER },
  { "additional-gids", GOFLAG_STRING, X_GIDS },
  { "g", GOFLAG_STRING, X_GIDS },
  { "process-label", GOFLAG_STRING, X_LABEL },
  { "apparmor", GOFLAG_STRING, X_APPARMOR },
  { "cap", GOFLAG_STRING, X_CAP },
  { "c", GOFLAG_STRING, X_CAP },
  { "preserve-fds", GOFLAG_STRING, X_PRESERVE_FDS },
  { "cgroup", GOFLAG_STRING, X_CGROUP },
  { "tty", GOFLAG_BOOL, XB_TTY },
  { "t", GOFLAG_BOOL, XB_TTY },
  { "no-new-privs", GOFLAG_BOOL, XB_NO_NEW_PRIVS },
  { "detach", GOFLAG_BOOL, XB_DETACH },
  { "d", GOFLAG_BOOL, XB_DETACH },
  { "ignore-paused", GOFLAG_BOOL, XB_IGNORE_PAUSED },
  { "help", GOFLAG_BOOL, XB_HELP },
  { "h", GOFLAG_BOOL, XB_HELP },
};

/* runc update's flags (update.go); all take a value but --help.  Flags
   may follow the id (argument reordering). */
enum
{
  U_RESOURCES,
  U_MEMORY,
  U_MEMORY_SWAP,
  U_CPU_QUOTA,
  U_CPU_PERIOD,
  U_CPUSET_CPUS,
  U_CPUSET_MEMS,
  U_L3_CACHE_SCHEMA,
  U_MEM_BW_SCHEMA,
  U_OTHER,
  U_NSTR,
};
static const struct goflag update_flags[] = {
  { "resources", GOFLAG_STRING, U_RESOURCES },
  { "r", GOFLAG_STRING, U_RESOURCES },
  { "memory", GOFLAG_STRING, U_MEMORY },
  { "memory-swap", GOFLAG_STRING, U_MEMORY_SWAP },
  { "cpu-quota", GOFLAG_STRING, U_CPU_QUOTA },
  { "cpu-period", GOFLAG_STRING, U_CPU_PERIOD },
  { "blkio-weight", GOFLAG_STRING, U_OTHER },
  { "cpu-share", GOFLAG_STRING, U_OTHER },
  { "cpu-rt-period", GOFLAG_STRING, U_OTHER },
  { "cpu-rt-runtime", GOFLAG_STRING, U_OTHER },
  { "cpu-idle", GOFLAG_STRING, U_OTHER },
  { "cpuset-cpus", GOFLAG_STRING, U_CPUSET_CPUS },
  { "cpuset-mems", GOFLAG_STRING, U_CPUSET_MEMS },
  { "kernel-memory", GOFLAG_STRING, U_OTHER },
  { "kernel-memory-tcp", GOFLAG_STRING, U_OTHER },
  { "memory-reservation", GOFLAG_STRING, U_OTHER },
  { "pids-limit", GOFLAG_STRING, U_OTHER },
  { "l3-cache-schema", GOFLAG_STRING, U_L3_CACHE_SCHEMA },
  { "mem-bw-schema", GOFLAG_STRING, U_MEM_BW_SCHEMA },
  { "help", GOFLAG_BOOL, 0 },
  { "h", GOFLAG_BOOL, 0 },
};

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
                                         : goflag_one (create_flags, n_flags, argc, argv, &i, strs,
                                                       bools, &a->bad_why);

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
  goflag_parse (global_flags, ARRAY_SIZE (global_flags), argc, argv, &i, strs, bools, &a->bad,
                &a->bad_why);
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

int
oci_parse_call (int argc, char **argv, int i, bool exec, struct oci_call_args *c)
{
  const char *strs[(int) X_NSTR > (int) U_NSTR ? (int) X_NSTR : (int) U_NSTR] = { NULL };
  bool bools[XB_NBOOL] = { false };
  const struct goflag *table = exec ? exec_flags : update_flags;
  size_t n_table = exec ? ARRAY_SIZE (exec_flags) : ARRAY_SIZE (update_flags);

  memset (c, 0, sizeof *c);
  c->resources_at = -1;
  c->caps = calloc ((size_t) argc, sizeof *c->caps);
  if (c->caps == NULL)
    return -1;
  for (i++; i < argc;)
    {
      int at = i;
      enum goflag_status st = goflag_one (table, n_table, argc, argv, &i, strs, bools, &c->bad_why);

      switch (st)
        {
        case GOFLAG_OK:
          /* --cap repeats; the last --resources wins. */
          if (exec && strs[X_CAP] != NULL)
            c->caps[c->n_caps++] = strs[X_CAP], strs[X_CAP] = NULL;
          if (! exec && strs[U_RESOURCES] != NULL)
            c->resources = strs[U_RESOURCES], c->resources_at = at, strs[U_RESOURCES] = NULL;
          c->bad_why = NULL;
          continue;
        case GOFLAG_UNKNOWN:
        case GOFLAG_BAD:
          c->bad = argv[at];
          return 0;
        case GOFLAG_END:
          continue;
        case GOFLAG_NOT_FLAG:
          break;
        }
      if (c->id == NULL)
        c->id = argv[i];
      i++;
      /* exec: the command follows the id, and is not flags. */
      if (exec)
        break;
    }
  if (exec)
    c->process = strs[X_PROCESS];
  else
    {
      c->memory = strs[U_MEMORY];
      c->memory_swap = strs[U_MEMORY_SWAP];
      c->cpu_quota = strs[U_CPU_QUOTA];
      c->cpu_period = strs[U_CPU_PERIOD];
      c->cpuset_cpus = strs[U_CPUSET_CPUS];
      c->cpuset_mems = strs[U_CPUSET_MEMS];
      c->l3_cache_schema = strs[U_L3_CACHE_SCHEMA];
      c->mem_bw_schema = strs[U_MEM_BW_SCHEMA];
    }
  return 0;
}
