/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OCI runtime mode (kata-guard(8), OCI runtime mode): kata-guard
 * registered as a runc-style runtime (Docker's "path" runtimes).  `create` and `run` are guarded with
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

#include "array.h"
#include "cleanup.h"
#include "conf.h"
#include "error.h"
#include "fdio.h"
#include "goflag.h"
#include "jtree.h"
#include "options.h"
#include "output.h"
#include "policy.h"
#include "record.h"
#include "wrapper.h"

/* A process.json or a resources document is far smaller than this. */
#define OCI_ARG_MAX (1024 * 1024)

static int
oci_start (char **argv, const struct oci_args *a, const struct channel *ch)
{
  struct request req = { .mode = KG_MODE_OCI, .container_id = a->id };
  struct report pre = { 0 };
  cleanup_free char *bundle = NULL;
  cleanup_free char *pid_file = NULL;
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

  /* runc makes a relative --pid-file absolute against its working
     directory too; policy.capacity watches the process it names. */
  if (a->pid_file != NULL && a->pid_file[0] == '/')
    req.pid_file = a->pid_file;
  else if (a->pid_file != NULL && a->pid_file[0] != '\0' && getcwd (cwd, sizeof cwd) != NULL
           && asprintf (&pid_file, "%s/%s", cwd, a->pid_file) >= 0)
    req.pid_file = pid_file;
  else
    pid_file = NULL;

  status = wrapper_start (&req, &pre, ch, NULL, argv);
  report_release (&pre);
  return status;
}

/* Docker runs `RUNTIME --version` for docker info: kata-guard's line
   first, then the real runtime's when one is configured. */
static int
version_lines (char **argv, const struct channel *ch)
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
static struct jv *
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
  cleanup_free char *msg = output_message ("refusing %s in container %s: %s: %s (remedy: %s)", verb,
                                           id ? id : "(none)", check, why, remedy);

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

/* exec: its --cap values and the capability sets of --process, against
   [policy] capabilities, and the process's rlimits and oomScoreAdj by the
   start's policy.resources rules (against NS, the engine's limits), its
   SELinux label and AppArmor profile by the start's policy.labels and
   policy.confinement.
   Returns -1 when the exec may pass, else the exit status of the
   refusal. */
static int
judge_exec (const struct oci_call_args *c, const struct guard_config *cfg,
            const struct engine_ns *ns, const struct kg_error *load_err, const struct channel *ch)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *text = NULL;
  cleanup_free char *judged = NULL;
  struct jv *obj = NULL;
  size_t len = 0;
  int status = -1;

  /* Each rule of a start that judges what the exec hands the runtime, in
     turn: its id, and the remedy of its refusal. */
  static const char *const rules[][2] = {
    { "policy.capabilities", "exec without added capabilities (no --privileged, no --cap-add), "
                             "or add them to [policy] capabilities" },
    { "policy.resources", "exec with the limits the container started with (no --ulimit above "
                          "the engine's own, no oomScoreAdj below [policy] min_oom_score_adj)" },
    { "policy.labels", "exec with the container's label, or list a confined type in [policy] "
                       "selinux_types" },
    { "policy.confinement", "exec with the container's AppArmor profile, or list it in [policy] "
                            "apparmor_profiles" },
  };

  if (c->process != NULL && (obj = read_json_arg (c->process, false, &text, &len, &err)) == NULL)
    return oci_refuse (ch, "exec", c->id, "policy.capabilities", err->msg,
                       "pass a process.json runc can read");
  for (size_t r = 0; status < 0 && r < ARRAY_SIZE (rules); r++)
    {
      int bad = r == 0   ? policy_exec_judge (cfg, obj, c->caps, c->n_caps, &err)
                : r == 1 ? policy_exec_limits_judge (cfg, ns, obj, &err)
                         : policy_exec_label_judge (cfg, obj, r == 3, &err);

      if (bad < 0)
        status = oci_refuse (ch, "exec", c->id, rules[r][0],
                             with_defaults (err->msg, load_err, &judged), rules[r][1]);
    }
  jv_free (obj);
  return status;
}

/* update: the resources document (--resources) with the limit flags over
   it, as runc merges them, against [policy]; what was judged becomes
   runc's stdin.  Returns -1 when the update may pass, else the exit
   status of the refusal. */
static int
judge_update (const struct oci_call_args *c, char **argv, const struct guard_config *cfg,
              const struct engine_ns *ns, const struct kg_error *load_err, const struct channel *ch)
{
  static const char *const cg_keys[][2] = { { "memory", "limit" }, { "memory", "swap" },
                                            { "cpu", "quota" },    { "cpu", "period" },
                                            { "cpu", "cpus" },     { "cpu", "mems" } };
  const char *const cg_values[] = { c->memory,     c->memory_swap, c->cpu_quota,
                                    c->cpu_period, c->cpuset_cpus, c->cpuset_mems };
  /* runc takes a schema flag, like a cpuset flag, only when not empty. */
  const char *rdt = c->l3_cache_schema != NULL && *c->l3_cache_schema ? "--l3-cache-schema"
                    : c->mem_bw_schema != NULL && *c->mem_bw_schema   ? "--mem-bw-schema"
                                                                      : NULL;
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *text = NULL;
  cleanup_free char *judged = NULL;
  cleanup_jv struct jv *doc = NULL;
  size_t len = 0;
  int status = -1;

  /* Read as config.json is; the flags go into that tree. */
  if (c->resources == NULL)
    doc = jv_new_object ();
  else
    doc = read_json_arg (c->resources, true, &text, &len, &err);
  if (doc == NULL)
    status = oci_refuse (ch, "update", c->id, "policy.resources", err ? err->msg : "out of memory",
                         "pass resources runc can read");
  /* The flags win over --resources, as in runc. */
  for (size_t k = 0; status < 0 && k < ARRAY_SIZE (cg_values); k++)
    {
      const char *v = cg_values[k];
      static const struct jv empty = { .type = json_type_object };
      struct jv *sub = NULL, value;
      int64_t n = 0;
      char *end;

      if (v == NULL || (k >= 4 && *v == '\0'))
        continue;
      errno = 0;
      if (k < 4
          && (k < 2 ? ram_in_bytes (v, &n) < 0
                    : (n = strtoll (v, &end, 10), errno || *end || end == v)))
        {
          status = oci_refuse (ch, "update", c->id, "args", "a value runc would refuse",
                               "use the values runc documents");
          break;
        }
      if (k < 4)
        value = (struct jv){ .type = json_type_int, .u.i = n };
      else
        value = (struct jv){ .type = json_type_string, .n = (uint32_t) strlen (v), .u.s = v };
      if ((! jv_get_ex (doc, cg_keys[k][0], &sub) || ! jv_is_type (sub, json_type_object))
          && (sub = jv_set (doc, doc, cg_keys[k][0], &empty)) == NULL)
        status = oci_refuse (ch, "update", c->id, "policy.resources", "out of memory", "retry");
      else if (jv_set (doc, sub, cg_keys[k][1], &value) == NULL)
        status = oci_refuse (ch, "update", c->id, "policy.resources", "out of memory", "retry");
    }
  if (status < 0 && policy_update_judge (cfg, ns, doc, rdt, &err) < 0)
    status = oci_refuse (ch, "update", c->id, "policy.resources",
                         with_defaults (err->msg, load_err, &judged),
                         "keep the limits within [policy] max_vm_memory_mib and max_vcpus, and the "
                         "cpusets to this host's online CPUs and memory nodes");
  /* What was judged is what the runtime reads: the text of --resources
     (stdin or a file) becomes its stdin. */
  if (status < 0 && c->resources_at >= 0)
    {
      int at = c->resources_at;

      if (wrapper_refeed_stdin (text, len, &err) < 0)
        status = oci_refuse (ch, "update", c->id, "args", err->msg, "retry");
      else if (strchr (argv[at], '=') != NULL)
        argv[at] = (char *) (argv[at][1] == '-' ? "--resources=-" : "-r=-");
      else
        argv[at + 1] = (char *) "-";
    }
  return status;
}

/* runc exec and update can widen a container the guard started past the
   policy (docker exec --privileged sends every capability in the
   process.json; update --memory -1 lifts the limit).  ARGV[I] is the
   subcommand.  Returns -1 when the call may pass through, else the exit
   status of the refusal. */
static int
oci_judge (int argc, char **argv, int i, const struct oci_args *a, const struct channel *ch)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_error kg_error_t load_err = NULL;
  cleanup_free char *text = NULL;
  struct oci_call_args c;
  struct guard_config cfg;
  struct engine_ns ns;
  bool exec = strcmp (a->command, "exec") == 0;
  int status;

  if (oci_parse_call (argc, argv, i, exec, &c) < 0)
    return oci_refuse (ch, a->command, NULL, "args", "out of memory", "retry");
  if (c.bad != NULL)
    {
      if (asprintf (&text, "%s: %s: an %s kata-guard cannot read is refused", c.bad, c.bad_why,
                    a->command)
          < 0)
        text = NULL;
      status = oci_refuse (ch, a->command, NULL, "args", text ? text : c.bad_why,
                           "use the flags runc documents");
      free (c.caps);
      return status;
    }
  /* Nothing that could widen the container: no config needed (a broken
     one does not block a plain exec). */
  if (exec ? c.n_caps == 0 && c.process == NULL
           : c.resources == NULL && c.memory == NULL && c.memory_swap == NULL && c.cpu_quota == NULL
                 && c.cpu_period == NULL && c.cpuset_cpus == NULL && c.cpuset_mems == NULL
                 && c.l3_cache_schema == NULL && c.mem_bw_schema == NULL)
    {
      free (c.caps);
      return -1;
    }
  /* A broken configuration must not block a docker exec that asks for no
     more than the engine's defaults (every docker exec sends its
     capabilities): the call is then judged by the built-in [policy]. */
  if (guard_config_load (guard_config_default_path (), &cfg, &err) < 0)
    {
      if (guard_config_defaults (&cfg, &load_err) < 0)
        {
          free (c.caps);
          return oci_refuse (ch, a->command, c.id, "config", err->msg,
                             "fix the guard config (exec and update are judged by its [policy])");
        }
      load_err = steal_pointer (&err);
    }
  /* The engine's limits (the guard's own, inherited) and the host's
     online CPUs and nodes, as a start's checker is given them. */
  engine_ns_gather (&ns);
  status = exec ? judge_exec (&c, &cfg, &ns, load_err, ch)
                : judge_update (&c, argv, &cfg, &ns, load_err, ch);
  guard_config_release (&cfg);
  free (c.caps);
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
    return version_lines (argv, &ch);
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
  return wrapper_passthrough (&ch,
                              a.command ? a.command
                              : a.bad   ? a.bad
                                        : "(no command)",
                              id, runtime, argv);
}
