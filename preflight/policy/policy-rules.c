/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.*: what one container asks for, read from its bundle's
 * config.json (kata-guard(8), CHECKS, Per-container policy).  Per
 * container: without a bundle (plain `kata-guard check`) this family
 * reports nothing.
 *
 * The spec is untrusted input written by whoever called `docker run`, so it
 * is read bounded (size, depth), strictly (json-c strict mode, valid UTF-8,
 * no trailing data) and without following a symlink.  Every rule reports
 * exactly one result; a value the guard cannot interpret refuses, it never
 * means "not set".
 *
 * This unit: the one table of rules (POLICY_RULES, policy-int.h), which
 * runs them and tells each one's reach, and policy.confinement.  The
 * family, check_policy, is in policy-default.c beside the default
 * container it judges without a bundle.  The rules are in policy-*.c and
 * egress-netns.c (policy-labels.c: policy.labels and the label grammar
 * confinement uses; policy-runc.c: runc exec and update), what they all
 * use in policy.c and policy-facts.c; they share policy-int.h, a rule
 * lends the few that need it its own header (policy-mounts.h, ...), and
 * none calls back up here.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "buf.h"
#include "error.h"
#include "policy-int.h"
#include "policy-labels.h"
#include "policy-mounts.h"

/* A rule's reach (result.h's enum reach, which its results carry, set
   here as each rule is judged) says whether [policy] mode = "audit" may
   let a refusal through: only what stays inside the container's own VM
   (the limit on its memory inside the guest, its capabilities and
   seccomp filter there, its masks and mount namespace in the guest
   kernel).  What reaches the host (its devices, files, namespaces, hooks
   that run there, Kata's own configuration, the SELinux label Kata gives
   its hypervisor and virtiofsd there), another container or its VM, the
   egress or the count of the host's memory is enforced in audit mode
   too.  A rule's reach is that of the strongest effect of what it
   judges: a field Kata applies on the host as well as in the guest
   belongs to a REACH_HOST rule (process.selinuxLabel: policy.labels, not
   policy.confinement). *//* ---- policy.confinement --------------------------------------------- */

/* What Docker, containerd (ctr and CRI) and podman all mask and make
   read-only by default: Kubernetes' "baseline" Pod Security Standard
   (procMount Default) refuses less. */
static const char *const required_masked[] = {
  "/proc/acpi",        "/proc/kcore",       "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
  "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware",
};
static const char *const required_readonly[] = {
  "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

/* The file type the engines label a container's mounts with
   (svirt_sandbox_file_t: its old name, an alias in container-selinux). */
static const char *const mount_label_types[] = { "container_file_t", "svirt_sandbox_file_t" };

/* The sysctls a container's own namespaces hold (runc's validateSysctl:
   IPC and network namespaced ones); the rest are the kernel's, for
   everybody. */
static bool
sysctl_namespaced (const char *key)
{
  static const char *const ipc[] = { "kernel.msgmax", "kernel.msgmnb",         "kernel.msgmni",
                                     "kernel.sem",    "kernel.shmall",         "kernel.shmmax",
                                     "kernel.shmmni", "kernel.shm_rmid_forced" };
  char k[128];
  size_t n = strlen (key);

  if (n >= sizeof k)
    return false;
  for (size_t i = 0; i <= n; i++)
    k[i] = key[i] == '/' ? '.' : key[i];
  for (size_t i = 0; i < ARRAY_SIZE (ipc); i++)
    if (strcmp (k, ipc[i]) == 0)
      return true;
  return strncmp (k, "fs.mqueue.", 10) == 0 || strncmp (k, "net.", 4) == 0;
}

/* policy.confinement: the container's own confinement, as the engines
   set it by default, not switched off.  The VM is the isolation, but the
   agent applies these in the guest too; without them the workload reaches
   the guest's own files (the agent's), and behind a runtime that is not a
   VM, the host's.  docker run --privileged switches them all off: allowed
   with [policy] privileged = true. */
void
check_confinement (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct jv *linux_, *list, *masked, *ro, *process, *v, *mounts, *sysctl;
  bool mount_ns = false;
  char why[160];

  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, &f);
  process = policy_jget_type (c->spec, "spec", "process", json_type_object, &f);
  list = policy_jget_type (linux_, "linux", "namespaces", json_type_array, &f);
  for (size_t i = 0; list != NULL && i < jv_length (list); i++)
    {
      struct jv *e = jv_at (list, i), *t, *path;
      const char *type;

      t = policy_jget (e, "namespace", "type", &f);
      if (t == NULL || ! jv_is_type (t, json_type_string))
        continue; /* policy.namespaces says so */
      type = jv_string (t);
      path = policy_jget (e, "namespace", "path", &f);
      if (strcmp (type, "mount") == 0)
        {
          mount_ns = true;
          if (path != NULL)
            policy_finding (&f, "the mount namespace is joined (%s), not new",
                            jv_is_type (path, json_type_string) ? jv_string (path)
                                                                : jv_kind (path));
        }
      else if (strcmp (type, "user") == 0 && path != NULL)
        policy_finding (&f, "the user namespace is joined (%s), not new",
                        jv_is_type (path, json_type_string) ? jv_string (path) : jv_kind (path));
    }
  if (! mount_ns)
    policy_finding (&f, "no mount namespace: the container would share the runtime's mounts");
  masked = policy_jget_type (linux_, "linux", "maskedPaths", json_type_array, &f);
  ro = policy_jget_type (linux_, "linux", "readonlyPaths", json_type_array, &f);
  /* CRI-O's infra container masks nothing: its process is CRI-O's
     pause_command in CRI-O's pause_image (crio.conf), not the pod's. */
  for (size_t i = 0; ! is_crio_sandbox (c) && i < ARRAY_SIZE (required_masked); i++)
    if (! policy_list_has (masked, required_masked[i]))
      {
        policy_finding (&f, "%s is not masked (linux.maskedPaths)", required_masked[i]);
        break;
      }
  for (size_t i = 0; ! is_crio_sandbox (c) && i < ARRAY_SIZE (required_readonly); i++)
    if (! policy_list_has (ro, required_readonly[i])
        && ! policy_list_has (masked, required_readonly[i]))
      {
        policy_finding (&f, "%s is not read-only (linux.readonlyPaths)", required_readonly[i]);
        break;
      }
  /* process.selinuxLabel is policy.labels': Kata applies it on the host. */
  process_apparmor (c->cfg, process, &f);
  /* The agent's mount context in the guest (kata_agent.go passes it on, or
     drops it with guest SELinux off): the engines' file type, or none. */
  v = policy_jget_type (linux_, "linux", "mountLabel", json_type_string, &f);
  if (v != NULL && *jv_string (v) != '\0'
      && ! selinux_context_judge (jv_string (v), "object_r", mount_label_types,
                                  ARRAY_SIZE (mount_label_types), "the engines' (container_file_t)",
                                  why, sizeof why))
    policy_finding (&f, "linux.mountLabel \"%.64s\": %s", jv_string (v), why);
  v = policy_jget (linux_, "linux", "rootfsPropagation", &f);
  if (v != NULL && jv_is_type (v, json_type_string)
      && (strcmp (jv_string (v), "shared") == 0 || strcmp (jv_string (v), "rshared") == 0))
    policy_finding (&f, "rootfsPropagation \"%s\" (mounts made inside would appear outside)",
                    jv_string (v));
  sysctl = policy_jget_type (linux_, "linux", "sysctl", json_type_object, &f);
  if (sysctl != NULL)
    {
      jv_foreach (sysctl, key, val)
      {
        (void) val;
        if (! sysctl_namespaced (key))
          policy_finding (&f, "sysctl %.64s is the kernel's, not the container's namespace's", key);
      }
    }
  mounts = policy_jget_type (c->spec, "spec", "mounts", json_type_array, &f);
  for (size_t i = 0; mounts != NULL && i < jv_length (mounts); i++)
    {
      struct jv *m = jv_at (mounts, i), *type, *dest, *opts;
      const char *t, *d;
      unsigned words;

      type = policy_jget (m, "mount", "type", &f);
      dest = policy_jget (m, "mount", "destination", &f);
      opts = policy_jget (m, "mount", "options", &f);
      t = type != NULL && jv_is_type (type, json_type_string) ? jv_string (type) : "";
      d = dest != NULL && jv_is_type (dest, json_type_string) ? jv_string (dest) : "?";
      words = mount_option_words (opts, NULL, NULL);
      if (words & OPT_SHARED)
        policy_finding (&f, "mount %.128s is shared (mounts made inside would appear outside)", d);
      if (policy_jget (m, "mount", "uidMappings", &f) != NULL
          || policy_jget (m, "mount", "gidMappings", &f) != NULL || (words & OPT_IDMAP))
        policy_finding (&f, "mount %.128s is id-mapped (the files would be another owner's)", d);
      if (strcmp (t, "proc") == 0 && strcmp (d, "/proc") != 0)
        policy_finding (&f, "a second procfs at %.128s (the masks apply at /proc only)", d);
      if ((strcmp (t, "sysfs") == 0 || strcmp (t, "cgroup") == 0 || strcmp (t, "cgroup2") == 0)
          && (! (words & OPT_RO) || (words & OPT_RW)))
        policy_finding (&f, "%s at %.128s is writable", t, d);
    }
  if (f.n > 0 && c->privileged && c->cfg->policy.privileged)
    rule_pass (c, "privileged container allowed by [policy] privileged = true");
  else if (f.n > 0)
    {
      char remedy[256];

      snprintf (remedy, sizeof remedy,
                "keep the engine's default confinement (no %s, no procMount Unmasked, no shared "
                "propagation, only namespaced sysctls), or list the AppArmor profile in [policy] "
                "apparmor_profiles",
                engine_words (&c->who, ASK_UNCONFINED));
      rule_fail (c, remedy, "%s", sb_str (&f.text));
    }
  else
    rule_pass (c, "own mount namespace, /proc masked and read-only as the engines default, "
                  "AppArmor profile and mount label the engines', no shared propagation, only "
                  "namespaced sysctls");
}

/* ---- the family ----------------------------------------------------- */

/* The rules' table (policy-int.h's POLICY_RULES, in its order). */
static const struct policy_rule
{
  const char *id;
  void (*check) (const struct policy_ctx *c);
  enum reach reach;
} rules[] = {
#define POLICY_RULE_ROW(name, rule_id, rule_reach) { rule_id, check_##name, rule_reach },
  POLICY_RULES (POLICY_RULE_ROW)
#undef POLICY_RULE_ROW
};

/* Every rule on C's spec, each under its own id (check_policy's spec, and
   policy.default_start's default container). */
void
policy_rules_run (struct policy_ctx *c)
{
  cleanup_mount_dirs struct mount_dirs dirs = { 0 };
  cleanup_policy_findings struct policy_findings privileged = { 0 };
  cleanup_error kg_error_t dirs_err = NULL;

  if (c->pf->req->engine_ns != NULL)
    c->ns = *c->pf->req->engine_ns;
  else
    engine_ns_gather (&c->ns);
  /* policy.mounts and egress.netns judge by the same directories. */
  mount_dirs_resolve (c->cfg, &dirs, &dirs_err);
  c->dirs = &dirs;
  c->dirs_err = dirs_err;
  facts_resolve (c, &privileged);
  for (size_t i = 0; i < ARRAY_SIZE (rules); i++)
    {
      size_t from = c->rep->n;

      c->rule = rules[i].id;
      rules[i].check (c);
      /* Judged here: the rule's results carry its reach (result.h). */
      report_set_reach (c->rep, from, rules[i].reach);
    }
  c->dirs = NULL;
  c->dirs_err = NULL;
  c->privileged_why = "";
}
