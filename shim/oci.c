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

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "options.h"
#include "output.h"
#include "policy.h"
#include "record.h"
#include "util.h"
#include "wrapper.h"

/* A process.json or a resources document is far smaller than this. */
#define OCI_ARG_MAX (1024 * 1024)

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
  { "cpuset-cpus", GOFLAG_STRING, U_OTHER },
  { "cpuset-mems", GOFLAG_STRING, U_OTHER },
  { "kernel-memory", GOFLAG_STRING, U_OTHER },
  { "kernel-memory-tcp", GOFLAG_STRING, U_OTHER },
  { "memory-reservation", GOFLAG_STRING, U_OTHER },
  { "pids-limit", GOFLAG_STRING, U_OTHER },
  { "l3-cache-schema", GOFLAG_STRING, U_OTHER },
  { "mem-bw-schema", GOFLAG_STRING, U_OTHER },
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

/* A JSON object read from PATH (with STDIN_OK, "-" is stdin, read with
   the options' deadline), parsed as strictly as config.json; its text in
   *TEXT. */
static struct json_object *
read_json_arg (const char *path, bool stdin_ok, char **text, size_t *len, kg_error_t *err)
{
  cleanup_close int fd = -1;

  if (stdin_ok && strcmp (path, "-") == 0)
    {
      if (kg_read_fd_deadline (STDIN_FILENO, "stdin", OCI_ARG_MAX, KG_OPTIONS_DEADLINE_MS, text,
                               len, err)
          < 0)
        return NULL;
    }
  else
    {
      fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (fd < 0)
        return kg_error (err, errno, "%s", path), NULL;
      if (kg_read_fd_bounded (fd, path, OCI_ARG_MAX, text, len, err) < 0)
        return NULL;
    }
  return policy_json_parse (fd < 0 ? "stdin" : path, *text, *len, true, err);
}

/* runc's units.RAMInBytes, with -1 for "no limit" (update.go). */
static int
ram_in_bytes (const char *s, int64_t *out)
{
  static const char units[] = "kmgtp";
  char *end;
  double v;
  const char *u;
  int shift = 0;

  if (strcmp (s, "-1") == 0)
    return *out = -1, 0;
  if (! isdigit ((unsigned char) s[0]))
    return -1;
  errno = 0;
  v = strtod (s, &end);
  if (errno != 0)
    return -1;
  if (*end == ' ')
    end++;
  if (*end != '\0' && (u = strchr (units, tolower ((unsigned char) *end))) != NULL)
    shift = 10 * (int) (u - units + 1), end++;
  if (*end == 'i' || *end == 'I')
    end++;
  if (*end == 'b' || *end == 'B')
    end++;
  if (*end != '\0' || v * (double) (UINT64_C (1) << shift) >= 9.2e18)
    return -1;
  *out = (int64_t) (v * (double) (UINT64_C (1) << shift));
  return 0;
}

static int
oci_refuse (const struct channel *ch, const char *verb, const char *id, const char *check,
            const char *why, const char *remedy)
{
  cleanup_free char *msg = output_message ("refusing %s in container %s: %s: %s (remedy: %s)",
                                           verb, id ? id : "(none)", check, why, remedy);

  wrapper_say (ch, msg ? msg : "kata-guard: refusing the call");
  return 1;
}

/* WHY, and that the built-in [policy] judged, when LOAD_ERR says the
   configuration did not load (*BUF holds the text). */
static const char *
with_defaults (const char *why, const struct kg_error *load_err, char **buf)
{
  if (load_err == NULL)
    return why;
  if (asprintf (buf, "%s (judged by the built-in [policy]: the guard config does not load: %s)",
                why, load_err->msg)
      < 0)
    {
      *buf = NULL;
      return why;
    }
  return *buf;
}

/* runc exec and update can widen a container the guard started past the
   policy (docker exec --privileged sends every capability in the
   process.json; update --memory -1 lifts the limit).  Returns -1 when the
   call may pass through, else the exit status of the refusal. */
static int
oci_judge (int argc, char **argv, int i, const struct oci_args *a, const struct channel *ch)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_error kg_error_t load_err = NULL;
  cleanup_free char *text = NULL;
  cleanup_free char *judged = NULL;
  cleanup_free char **caps = NULL;
  struct json_object *obj = NULL;
  struct guard_config cfg;
  const char *strs[(int) X_NSTR > (int) U_NSTR ? (int) X_NSTR : (int) U_NSTR] = { NULL };
  bool bools[XB_NBOOL] = { false };
  bool exec = strcmp (a->command, "exec") == 0;
  const struct goflag *table = exec ? exec_flags : update_flags;
  size_t n_table = exec ? ARRAY_SIZE (exec_flags) : ARRAY_SIZE (update_flags), n_caps = 0;
  const char *id = NULL, *check = exec ? "policy.capabilities" : "policy.resources";
  const char *why = NULL, *res_path = NULL;
  int res_at = -1, status = -1;
  size_t len = 0;

  caps = calloc ((size_t) argc, sizeof *caps);
  if (caps == NULL)
    return oci_refuse (ch, a->command, NULL, "args", "out of memory", "retry");
  for (i++; i < argc && why == NULL;)
    {
      int at = i;
      enum goflag_status st = goflag_one (table, n_table, argc, argv, &i, strs, bools, &why);

      if (st == GOFLAG_OK)
        {
          if (exec && strs[X_CAP] != NULL)
            caps[n_caps++] = (char *) strs[X_CAP], strs[X_CAP] = NULL;
          if (! exec && strs[U_RESOURCES] != NULL)
            res_path = strs[U_RESOURCES], res_at = at, strs[U_RESOURCES] = NULL;
          why = NULL;
          continue;
        }
      if (st == GOFLAG_UNKNOWN || st == GOFLAG_BAD)
        {
          if (asprintf (&text, "%s: %s: an %s kata-guard cannot read is refused", argv[at], why,
                        a->command) < 0)
            text = NULL;
          return oci_refuse (ch, a->command, NULL, "args", text ? text : why,
                             "use the flags runc documents");
        }
      if (st == GOFLAG_END)
        continue;
      if (id == NULL)
        id = argv[i];
      i++;
      if (exec)
        break;
      why = NULL;
    }
  /* Nothing that could widen the container: no config needed (a broken
     one does not block a plain exec). */
  if (exec ? n_caps == 0 && strs[X_PROCESS] == NULL
           : res_path == NULL && strs[U_MEMORY] == NULL && strs[U_MEMORY_SWAP] == NULL
                 && strs[U_CPU_QUOTA] == NULL && strs[U_CPU_PERIOD] == NULL)
    return -1;
  /* Nothing that could widen the container: no config needed (a broken
     one does not block a plain exec). */
  if (exec ? n_caps == 0 && strs[X_PROCESS] == NULL
           : res_path == NULL && strs[U_MEMORY] == NULL && strs[U_MEMORY_SWAP] == NULL
                 && strs[U_CPU_QUOTA] == NULL && strs[U_CPU_PERIOD] == NULL)
    return -1;
  /* A broken configuration must not block a docker exec that asks for no
     more than the engine's defaults (every docker exec sends its
     capabilities): the call is then judged by the built-in [policy]. */
  if (guard_config_load (guard_config_default_path (), &cfg, &err) < 0)
    {
      if (guard_config_defaults (&cfg, &load_err) < 0)
        return oci_refuse (ch, a->command, id, "config", err->msg,
                           "fix the guard config (exec and update are judged by its [policy])");
      load_err = steal_pointer (&err);
    }
  if (exec)
    {
      if (strs[X_PROCESS] != NULL
          && (obj = read_json_arg (strs[X_PROCESS], false, &text, &len, &err)) == NULL)
        status = oci_refuse (ch, "exec", id, check, err->msg, "pass a process.json runc can read");
      else if (policy_exec_judge (&cfg, obj, caps, n_caps, &err) < 0)
        status = oci_refuse (ch, "exec", id, check, with_defaults (err->msg, load_err, &judged),
                             "exec without added capabilities (no --privileged, no --cap-add), "
                             "or add them to [policy] capabilities");
    }
  else
    {
      static const char *const cg_keys[][2] = { { "memory", "limit" }, { "memory", "swap" },
                                                { "cpu", "quota" }, { "cpu", "period" } };
      static const int cg_flags[] = { U_MEMORY, U_MEMORY_SWAP, U_CPU_QUOTA, U_CPU_PERIOD };

      if (res_path != NULL)
        obj = read_json_arg (res_path, true, &text, &len, &err);
      else
        obj = json_object_new_object ();
      if (obj == NULL)
        status = oci_refuse (ch, "update", id, check, err ? err->msg : "out of memory",
                             "pass resources runc can read");
      /* The flags win over --resources, as in runc. */
      for (size_t k = 0; status < 0 && k < ARRAY_SIZE (cg_flags); k++)
        {
          const char *v = strs[cg_flags[k]];
          struct json_object *sub = NULL;
          int64_t n;
          char *end;

          if (v == NULL)
            continue;
          errno = 0;
          if (k < 2 ? ram_in_bytes (v, &n) < 0 : (n = strtoll (v, &end, 10), errno || *end || end == v))
            {
              status = oci_refuse (ch, "update", id, "args", "a value runc would refuse",
                                   "use the values runc documents");
              break;
            }
          if (! json_object_object_get_ex (obj, cg_keys[k][0], &sub)
              || ! json_object_is_type (sub, json_type_object))
            {
              sub = json_object_new_object ();
              json_object_object_add (obj, cg_keys[k][0], sub);
            }
          json_object_object_add (sub, cg_keys[k][1], json_object_new_int64 (n));
        }
      if (status < 0 && policy_update_judge (&cfg, obj, &err) < 0)
        status = oci_refuse (ch, "update", id, check, with_defaults (err->msg, load_err, &judged),
                             "keep the limits within [policy] max_vm_memory_mib and max_vcpus");
      /* What was judged is what the runtime reads: the text of
         --resources (stdin or a file) becomes its stdin. */
      if (status < 0 && res_at >= 0)
        {
          if (wrapper_refeed_stdin (text, len, &err) < 0)
            status = oci_refuse (ch, "update", id, "args", err->msg, "retry");
          else if (strchr (argv[res_at], '=') != NULL)
            argv[res_at] = (char *) (argv[res_at][1] == '-' ? "--resources=-" : "-r=-");
          else
            argv[res_at + 1] = (char *) "-";
        }
    }
  json_object_put (obj);
  guard_config_release (&cfg);
  return status;
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
  /* restore creates and starts a container from --bundle, around create;
     Kata has no checkpoint/restore. */
  if (a.command != NULL && a.bad == NULL && strcmp (a.command, "restore") == 0)
    return oci_refuse (&ch, "restore", NULL, "args",
                       "restore starts a container from a checkpoint without the checks of "
                       "create, and Kata has no checkpoint/restore",
                       "create and start the container instead");
  if (a.command != NULL && a.bad == NULL
      && (strcmp (a.command, "exec") == 0 || strcmp (a.command, "update") == 0))
    {
      int k = 1, status;

      while (k < argc && argv[k] != a.command)
        k++;
      if ((status = oci_judge (argc, argv, k, &a, &ch)) >= 0)
        return status;
    }
  id = recorded_id (argc, argv, &a, &runtime);
  return wrapper_passthrough (&ch, a.command ? a.command : a.bad ? a.bad : "(no command)", id,
                              runtime, argv);
}
