/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.labels: the SELinux label a container's spec asks for, judged by
 * what the engines assign (an allowlist), never by a list of bad types.
 *
 * The label is not the container's alone.  Kata's Go runtime copies the
 * sandbox's process.selinuxLabel into its hypervisor configuration
 * (virtcontainers/sandbox.go, newSandbox: SELinuxProcessLabel) and, unless
 * its configuration says disable_selinux = true (the shipped ones say
 * false), makes it the exec label of QEMU, Cloud Hypervisor or Firecracker
 * and of virtiofsd on the host (qemu.go StartVM, clh.go StartVM, fc.go
 * fcInit: selinux.SetExecLabel); runtime-rs does the same
 * (virt_container/src/sandbox.rs start: prepare_vm with the spec's label,
 * hypervisor/src/{qemu,ch,firecracker}).  A spec naming spc_t,
 * unconfined_t, initrc_t or any other type of the host's would run the
 * hypervisor so on the host: this rule is REACH_HOST (policy-int.h), and
 * audit mode never lets it through.  An empty label, or none, is the
 * engine's default.
 *
 * Also here, for policy.confinement: the grammar of a context (its
 * linux.mountLabel) and the AppArmor allowlist.
 */
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "policy-int.h"
#include "policy-labels.h"

/* The longest context judged: go-selinux's are under 64 bytes. */
enum
{
  LABEL_MAX = 255,
};

/* One MCS category at *P ("c0" .. "c1023", no leading zero), into *OUT. */
static bool
mcs_category (const char **p, int *out)
{
  const char *s = *p;
  int v = 0;

  if (*s++ != 'c' || ! isdigit ((unsigned char) *s)
      || (s[0] == '0' && isdigit ((unsigned char) s[1])))
    return false;
  for (; isdigit ((unsigned char) *s); s++)
    if ((v = v * 10 + (*s - '0')) > 1023)
      return false;
  *p = s;
  *out = v;
  return true;
}

/* An MCS level as the engines allocate one (go-selinux's uniqMcs:
   s0:cN,cM with N < M), one category, or none: never a range (s0-s0:...)
   or a category set (c0.c1023), which would dominate every container's
   files, nor a sensitivity but s0. */
static bool
mcs_level_ok (const char *level)
{
  const char *p = level + 2;
  int a, b;

  if (strncmp (level, "s0", 2) != 0)
    return false;
  if (*p == '\0')
    return true;
  if (*p++ != ':' || ! mcs_category (&p, &a))
    return false;
  if (*p == '\0')
    return true;
  return *p++ == ',' && mcs_category (&p, &b) && *p == '\0' && a < b;
}

/* LABEL is USER:ROLE:TYPE:LEVEL with user system_u, role ROLE, a type of
   TYPES (LIST names them) and an MCS level (mcs_level_ok); else false,
   and WHY says which part is not. */
bool
selinux_context_judge (const char *label, const char *role, const char *const *types,
                       size_t n_types, const char *list, char *why, size_t size)
{
  char buf[LABEL_MAX + 1];
  char *user, *r, *type, *level, *p = buf;
  bool listed_type = false;

  if (strlen (label) > LABEL_MAX)
    {
      snprintf (why, size, "longer than %d bytes", LABEL_MAX);
      return false;
    }
  memcpy (buf, label, strlen (label) + 1);
  user = strsep (&p, ":");
  r = strsep (&p, ":");
  type = strsep (&p, ":");
  level = p;
  if (r == NULL || type == NULL || level == NULL)
    {
      snprintf (why, size, "not user:role:type:level");
      return false;
    }
  if (strcmp (user, "system_u") != 0)
    {
      snprintf (why, size, "user \"%.32s\" is not system_u", user);
      return false;
    }
  if (strcmp (r, role) != 0)
    {
      snprintf (why, size, "role \"%.32s\" is not %s", r, role);
      return false;
    }
  for (size_t i = 0; i < n_types; i++)
    listed_type |= strcmp (type, types[i]) == 0;
  if (! listed_type || strspn (type, SELINUX_TYPE_CHARS) != strlen (type))
    {
      snprintf (why, size, "type \"%.64s\" is not one of %s", type, list);
      return false;
    }
  if (! mcs_level_ok (level))
    {
      snprintf (why, size, "level \"%.64s\" is not s0, s0:cN or s0:cN,cM (N < M <= 1023)", level);
      return false;
    }
  return true;
}

/* PROFILE is "" (the engine's default) or matches a pattern of [policy]
   apparmor_profiles (Kata applies no AppArmor profile on the host: the
   judgement is policy.confinement's). */
static bool
apparmor_profile_allowed (const struct guard_config *cfg, const char *profile)
{
  if (*profile == '\0')
    return true;
  for (size_t i = 0; i < cfg->policy.n_apparmor_profiles; i++)
    if (fnmatch (cfg->policy.apparmor_profiles[i], profile, 0) == 0)
      return true;
  return false;
}

const char *
process_label (const struct guard_config *cfg, struct jv *process, const char *effect,
               struct policy_findings *f)
{
  struct jv *v = policy_jget_type (process, "process", "selinuxLabel", json_type_string, f);
  const char *label = v != NULL && *jv_string (v) != '\0' ? jv_string (v) : NULL;
  char why[160];

  if (label != NULL
      && ! selinux_context_judge (label, "system_r",
                                  (const char *const *) cfg->policy.selinux_types,
                                  cfg->policy.n_selinux_types, "[policy] selinux_types", why,
                                  sizeof why))
    policy_finding (f, "process.selinuxLabel \"%.64s\": %s%s", label, why, effect);
  return label;
}

void
process_apparmor (const struct guard_config *cfg, struct jv *process, struct policy_findings *f)
{
  struct jv *v = policy_jget_type (process, "process", "apparmorProfile", json_type_string, f);

  if (v != NULL && ! apparmor_profile_allowed (cfg, jv_string (v)))
    policy_finding (f,
                    "AppArmor profile \"%.64s\" (process.apparmorProfile) is not one of [policy] "
                    "apparmor_profiles",
                    jv_string (v));
}

/* policy.labels: process.selinuxLabel, the label of the container and of
   Kata's hypervisor and virtiofsd on the host. */
void
check_labels (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct jv *process;
  const char *label;

  process = policy_jget_type (c->spec, "spec", "process", json_type_object, &f);
  label = process_label (c->cfg, process,
                         " (Kata runs the hypervisor and virtiofsd on the host "
                         "with this label)",
                         &f);
  if (f.n > 0)
    {
      char remedy[256];

      snprintf (remedy, sizeof remedy,
                "keep the label the engine assigns (no %s), or list a confined type in [policy] "
                "selinux_types",
                engine_words (&c->who, ASK_SELINUX));
      rule_fail (c, remedy, "%s", sb_str (&f.text));
    }
  else if (label != NULL)
    rule_pass (c, "process.selinuxLabel %s: a type of [policy] selinux_types", label);
  else
    rule_pass (c, "no process.selinuxLabel: the engine's default");
}
