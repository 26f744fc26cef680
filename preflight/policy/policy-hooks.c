/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.hooks and policy.annotations: the programs the runtime runs on
 * the host for the container, and the annotations Kata reads.
 */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kata.h"
#include "policy.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "policy-int.h"
#include "policy-mounts.h"

/* Which runtime applies an annotation whatever enable_annotations says. */
enum
{
  UNGATED_GO = 1 << 0,  /* the Go shim, 3.30.0 and 4.1.0 alike */
  UNGATED_RS = 1 << 1,  /* runtime-rs 4.1.0 (3.30.0 too, but for cdh_api_timeout_ms) */
  UNGATED_RS3 = 1 << 2, /* runtime-rs 3.30.0 alone */
};
/* ---- policy.hooks --------------------------------------------------- */

/* /proc/PID/exe -> the program; any other /proc path cannot be judged
   (/proc/self/exe is whichever program runs the hook). */
static int
hook_program (const struct request *req, const char *path, char **out, kg_error_t *err)
{
  if (strncmp (path, "/proc/", 6) == 0)
    {
      const char *q = path + 6;
      char target[PATH_MAX + 1];
      size_t digits = strspn (q, "0123456789");
      ssize_t n;

      if (digits == 0 || strcmp (q + digits, "/exe") != 0)
        return kg_error (err, 0, "%s: names whichever program runs the hook", path);
      if (req->proc_exe != NULL)
        {
          unsigned long pid = request_proc_pid (path, "exe");

          if (pid == 0)
            return kg_error (err, 0, "%s: not a process id", path);
          n = req->proc_exe (pid, target, PATH_MAX);
        }
      else
        n = readlink (path, target, PATH_MAX);
      if (n < 0)
        return kg_error (err, errno, "%s: cannot resolve (the process is gone?)", path);
      target[n] = '\0';
      if (n > 10 && strcmp (target + n - 10, " (deleted)") == 0)
        return kg_error (err, 0, "%s: the program %s was deleted", path, target);
      return policy_path_resolve ("/", target, true, out, err);
    }
  if (path[0] != '/')
    return kg_error (err, 0, "%s: not an absolute path", path);
  return policy_path_resolve ("/", path, true, out, err);
}

/* The EXE requests check_hooks makes on SPEC (request-list.h): one per
   hook entry, of any kind, whose path names a process's exe
   (request_proc_pid, hook_program's test). */
size_t
policy_hooks_asks (struct jv *spec)
{
  struct jv *hooks = NULL;
  size_t n = 0;

  if (! jv_is_type (spec, json_type_object) || ! jv_get_ex (spec, "hooks", &hooks)
      || ! jv_is_type (hooks, json_type_object))
    return 0;
  jv_foreach (hooks, kind, list)
  {
    (void) kind;
    for (size_t i = 0; jv_is_type (list, json_type_array) && i < jv_length (list); i++)
      {
        struct jv *h = jv_at (list, i), *path;

        if (jv_is_type (h, json_type_object) && jv_get_ex (h, "path", &path)
            && jv_is_type (path, json_type_string)
            && request_proc_pid (jv_string (path), "exe") != 0)
          n++;
      }
  }
  return n;
}

static bool
hex_string (const char *s, size_t min, size_t max)
{
  size_t n = strspn (s, "0123456789abcdef");

  return s[n] == '\0' && n >= min && n <= max;
}

/* Docker's one hook: dockerd re-executed as libnetwork-setkey
   (daemon/oci_linux.go: args "libnetwork-setkey", "-exec-root=DIR", the
   container id, the network controller's id; before Docker 18.09 without
   -exec-root).  dockerd picks what it runs by argv[0] (pkg/reexec): any
   other args start a daemon, as root, listening where they say.  NULL
   when ARGS are that form for container ID, else why not. */
static const char *
dockerd_hook_args (struct jv *args, const char *id)
{
  size_t n, i = 1;
  const char *a[4];

  if (args == NULL || ! jv_is_type (args, json_type_array))
    return "dockerd runs as a daemon without the args libnetwork-setkey";
  n = jv_length (args);
  if (n < 3 || n > 4)
    return "args are not dockerd's libnetwork-setkey form";
  for (size_t k = 0; k < n; k++)
    {
      struct jv *v = jv_at (args, k);

      if (! jv_is_type (v, json_type_string))
        return "args are not all strings";
      a[k] = jv_string (v);
    }
  if (strcmp (a[0], "libnetwork-setkey") != 0)
    return "args[0] is not libnetwork-setkey: dockerd would start a daemon";
  if (n == 4)
    {
      if (strncmp (a[1], "-exec-root=/", 12) != 0)
        return "args[1] is not -exec-root=/...";
      i = 2;
    }
  if (id == NULL || strcmp (a[i], id) != 0)
    return "libnetwork-setkey names another container";
  if (! hex_string (a[i + 1], 12, 64))
    return "libnetwork-setkey's controller id is not hexadecimal";
  return NULL;
}

void
check_hooks (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  cleanup_dir_list struct dir_list allowed = { 0 };
  cleanup_error kg_error_t err = NULL;
  struct jv *hooks;
  size_t n_hooks = 0;

  if (dir_list_resolve (c->cfg->policy.hooks, c->cfg->policy.n_hooks, &allowed, &err) < 0)
    {
      rule_fail (c, "fix [policy] hooks", "cannot resolve [policy] hooks: %s", err->msg);
      return;
    }
  hooks = policy_jget_type (c->spec, "spec", "hooks", json_type_object, &f);
  if (hooks != NULL)
    {
      jv_foreach (hooks, kind, list)
      {
        if (jv_is_type (list, json_type_null))
          continue;
        if (! jv_is_type (list, json_type_array))
          {
            policy_finding (&f, "hooks.%s is %s, not an array", kind, jv_kind (list));
            continue;
          }
        for (size_t i = 0; i < jv_length (list); i++)
          {
            struct jv *h = jv_at (list, i);
            struct jv *path = policy_jget_type (h, "hook", "path", json_type_string, &f);
            cleanup_free char *prog = NULL;
            struct jv *env;
            const char *p, *slash, *why;
            bool ok = false;

            n_hooks++;
            if (path == NULL)
              {
                policy_finding (&f, "%s hook %zu has no program path", kind, i);
                continue;
              }
            p = jv_string (path);
            if (hook_program (c->pf->req, p, &prog, &err) < 0)
              {
                policy_finding (&f, "%s hook %s", kind, err->msg);
                kg_error_release (&err);
                continue;
              }
            for (size_t j = 0; j < allowed.n; j++)
              if (strcmp (prog, allowed.paths[j]) == 0)
                ok = true;
            if (! ok)
              {
                policy_finding (&f, "%s hook %s%s%s is not in [policy] hooks", kind, p,
                                strcmp (p, prog) ? " -> " : "", strcmp (p, prog) ? prog : "");
                continue;
              }
            /* The program runs as root in the host's namespaces: an
                 environment (LD_PRELOAD, LD_LIBRARY_PATH...) is code of
                 the spec author's choosing in it. */
            env = policy_jget (h, "hook", "env", &f);
            if (env != NULL && (! jv_is_type (env, json_type_array) || jv_length (env) > 0))
              policy_finding (&f, "%s hook %s sets an environment (it runs as root on the host)",
                              kind, p);
            slash = strrchr (prog, '/');
            if (strcmp (slash != NULL ? slash + 1 : prog, "dockerd") == 0
                && (why = dockerd_hook_args (policy_jget (h, "hook", "args", &f),
                                             c->pf->req->container_id))
                       != NULL)
              policy_finding (&f, "%s hook %s: %s", kind, p, why);
          }
      }
    }
  if (f.n > 0)
    rule_fail (c,
               "OCI hooks run on the host as root: remove the hook, or add its program to "
               "[policy] hooks (a hook may set no environment, and dockerd may run only as "
               "Docker's own libnetwork-setkey hook)",
               "%s", sb_str (&f.text));
  else
    rule_pass (c, "%zu hook%s, all in [policy] hooks", n_hooks, n_hooks == 1 ? "" : "s");
}

/* ---- policy.annotations --------------------------------------------- */

/* Kata annotations that a runtime applies without enable_annotations: the
   Go shim in addRuntimeConfigOverrides and addAgentConfigOverrides
   (src/runtime/pkg/oci/utils.go), runtime-rs in update_config_by_annotation
   (src/libs/kata-types/src/annotations/mod.rs: the runtime and agent names
   before its loop, then every key its hypervisor's enable_annotations does
   not match), at 3.30.0 and 4.1.0.  WEAKENS: the annotation weakens the
   sandbox, and is refused even when [policy] annotations matches it; the
   others are refused unless [policy] annotations allows them, as every Kata
   annotation is, and are listed for the reason. */
static const struct
{
  const char *name, *why;
  unsigned runtimes;
  bool weakens;
} ungated_annotations[] = {
  /* 3.x: GetSandboxConfigPath (Go), load_config's first choice
     (runtime-rs); 4.x dropped it.  Refused for every runtime: the guard
     cannot tell 3.x from 4.x. */
  { "io.katacontainers.config_path",
    "Kata 3.x loads the configuration it names in place of the one checked; 4.x ignores it",
    UNGATED_GO | UNGATED_RS | UNGATED_RS3, true },
  { "io.katacontainers.config.runtime.disable_guest_seccomp", "no seccomp filter in the guest",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.sandbox_cgroup_only", "moves the VM's host cgroup",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.disable_new_netns",
    "the VM's network device in the host's network namespace", UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.internetworking_model", "changes how the VM is networked",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.vfio_mode", "changes how host devices reach the VM",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.experimental", "turns on experimental features",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.agent.kernel_modules", "loads kernel modules in the guest",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.agent.policy", "replaces the agent's policy", UNGATED_GO, true },
  { "io.katacontainers.config.agent.enable_tracing", "turns on the agent's tracing",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.hypervisor_name",
    "picks the [hypervisor.*] table the VM is built from", UNGATED_RS, true },
  { "io.katacontainers.config.runtime.agent_name", "picks the [agent.*] table the agent runs by",
    UNGATED_RS, true },
  { "io.katacontainers.config.runtime.name",
    "picks the runtime handler (linux-container runs no VM)", UNGATED_RS, true },
  { "io.katacontainers.config.runtime.shared_mounts",
    "shares mounts between the pod's containers in the guest", UNGATED_RS, true },
  { "io.katacontainers.config.runtime.sandbox_bind_mounts",
    "host bind mounts chosen by the workload (runtime-rs 3.x)", UNGATED_RS3, true },
  { "io.katacontainers.config.runtime.create_container_timeout", "sets the agent's request timeout",
    UNGATED_GO | UNGATED_RS, false },
  { "io.katacontainers.config.runtime.experimental_force_guest_pull",
    "pulls the images in the guest", UNGATED_GO, false },
  { "io.katacontainers.enable_vcpus_pinning", "pins the vCPU threads to host CPUs", UNGATED_GO,
    false },
  { "io.katacontainers.config.runtime.enable_vcpus_pinning", "pins the vCPU threads to host CPUs",
    UNGATED_RS, false },
  { "io.katacontainers.config.runtime.enable_pprof", "turns on the shim's pprof endpoint",
    UNGATED_RS, false },
  { "io.katacontainers.config.runtime.disable_guest_empty_dir",
    "emptyDir volumes on the host's shared filesystem (runtime-rs 3.x)", UNGATED_RS3, false },
  { "io.katacontainers.config.agent.container_pipe_size", "sizes the container's pipes",
    UNGATED_GO | UNGATED_RS, false },
  { "io.katacontainers.config.agent.cdh_api_timeout_ms", "sets the confidential data hub's timeout",
    UNGATED_RS, false },
};

/* The runtimes whose ungated annotations apply: the one that reads the
   configuration, of either version (the guard does not know which 4.x or
   3.x it is, so it refuses what either applies), or, with no
   configuration, both. */
static unsigned
ungated_runtimes (const struct policy_ctx *c)
{
  const struct kata_config *k = c->pf->from_kata.config;

  if (k == NULL)
    return UNGATED_GO | UNGATED_RS | UNGATED_RS3;
  return k->runtime == KATA_RUNTIME_RS ? UNGATED_RS | UNGATED_RS3 : UNGATED_GO;
}

/* The ungated annotation KEY as the runtimes in MASK apply it, or -1. */
static ssize_t
ungated_index (const char *key, unsigned mask)
{
  for (size_t i = 0; i < ARRAY_SIZE (ungated_annotations); i++)
    if ((ungated_annotations[i].runtimes & mask) != 0
        && strcmp (key, ungated_annotations[i].name) == 0)
      return (ssize_t) i;
  return -1;
}

/* Kata's own annotations: the allowed ones, each judged as Kata applies it. */
static size_t
judge_kata_annotations (const struct policy_ctx *c, struct jv *ann, struct policy_findings *f)
{
  size_t n_kata = 0;
  unsigned mask = ungated_runtimes (c);

  jv_foreach (ann, key, val)
  {
    bool ok = false;
    ssize_t ungated;

    /* Kata matches the prefix exactly; any case is refused here. */
    if (strncasecmp (key, "io.katacontainers.", 18) != 0)
      continue;
    n_kata++;
    ungated = ungated_index (key, mask);
    if (ungated >= 0 && ungated_annotations[ungated].weakens)
      {
        policy_finding (f, "%s (%s; Kata applies it without enable_annotations)", key,
                        ungated_annotations[ungated].why);
        continue;
      }
    for (size_t i = 0; i < c->cfg->policy.n_annotation_res; i++)
      if (regexec (&c->cfg->policy.annotation_res[i], key, 0, NULL, 0) == 0)
        ok = true;
    if (! ok && ungated >= 0)
      policy_finding (f, "%s (%s; Kata applies it without enable_annotations)", key,
                      ungated_annotations[ungated].why);
    else if (! ok)
      policy_finding (f, "%.128s", key);
    /* Kata appends it to the guest's command line unchecked
         (Kata's shipped configurations enable it). */
    else if (strcmp (key, "io.katacontainers.config.hypervisor.kernel_params") == 0)
      {
        char why[256];

        if (! jv_is_type (val, json_type_string))
          policy_finding (f, "%s is %s, not a string", key, jv_kind (val));
        else if (kata_kernel_params_judge (jv_string (val), why, sizeof why) != KATA_PARAMS_OK)
          policy_finding (f, "%s: %s", key, why);
      }
  }
  return n_kata;
}

void
check_annotations (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct jv *ann = policy_jget_type (c->spec, "spec", "annotations", json_type_object, &f);
  size_t n_kata = 0;

  if (ann != NULL)
    n_kata = judge_kata_annotations (c, ann, &f);
  /* A pod sandbox: the start must see what its shim answers. */
  if (is_pod_sandbox (c))
    c->rep->pod_sandbox = true;
  if (f.n > 0)
    rule_fail (c,
               "remove the annotation (a Kata annotation changes how the VM is built), or "
               "allow its name with a regex in [policy] annotations",
               "Kata annotations not allowed: %s", sb_str (&f.text));
  else
    rule_pass (c, "%zu Kata annotation%s, all allowed", n_kata, n_kata == 1 ? "" : "s");
}
