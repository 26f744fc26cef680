/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.capabilities, policy.devices and policy.seccomp.
 * (policy-default.c: the family; policy.c, policy-facts.c: what the rules share.)
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "drift.h"
#include "kata.h"
#include "toml.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "path.h"
#include "policy-int.h"
#include "policy-devices.h"

struct host_dev
{
  bool ok;
  char type;
  unsigned maj, min;
};
/* ---- policy.capabilities -------------------------------------------- */

void
cap_upper (cap_value_t v, char *out, size_t size)
{
  char *name = cap_to_name (v);

  snprintf (out, size, "%s", name ? name : "CAP_?");
  for (char *p = out; *p; p++)
    *p = (char) toupper ((unsigned char) *p);
  cap_free (name);
}

/* The capabilities [policy] capabilities allows, as a mask. */
uint64_t
allowed_caps (const struct guard_config *cfg)
{
  uint64_t allowed = 0;

  for (size_t i = 0; i < cfg->policy.n_capabilities; i++)
    {
      cap_value_t v;

      /* Validated when the configuration loaded. */
      if (cap_from_name (cfg->policy.capabilities[i], &v) == 0 && v >= 0 && v < 64)
        allowed |= UINT64_C (1) << v;
    }
  return allowed;
}

/* NAME as a capability number: what libcap accepts, case-insensitively,
   with the CAP_ prefix (no bare numbers). */
bool
cap_parse (const char *name, cap_value_t *v)
{
  return strncasecmp (name, "CAP_", 4) == 0 && cap_from_name (name, v) == 0 && *v >= 0 && *v < 64;
}

void
check_capabilities (const struct policy_ctx *c)
{
  static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted",
                                      "ambient" };
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct jv *process, *caps;
  uint64_t allowed = allowed_caps (c->cfg), reported = 0, used = 0;
  struct prove_window w;
  /* The canary of the prove run in progress alone (drift.h,
     DRIFT_WINDOW: its id, the token in its environment) may hold
     CAP_NET_ADMIN, so that prove.forward routes as a guest's kernel can
     without widening the policy of every other container. */
  bool canary = ! (allowed & (UINT64_C (1) << CAP_NET_ADMIN))
                && prove_window_match (c->pf->req, c->spec, &w) && w.net_admin;

  if (canary)
    allowed |= UINT64_C (1) << CAP_NET_ADMIN;

  process = policy_jget_type (c->spec, "spec", "process", json_type_object, &f);
  caps = policy_jget_type (process, "process", "capabilities", json_type_object, &f);
  for (size_t s = 0; s < ARRAY_SIZE (sets); s++)
    {
      struct jv *list = policy_jget_type (caps, "capabilities", sets[s], json_type_array, &f);

      for (size_t i = 0; list != NULL && i < jv_length (list); i++)
        {
          struct jv *n = jv_at (list, i);
          const char *name;
          char up[64];
          cap_value_t v;

          if (! jv_is_type (n, json_type_string))
            {
              policy_finding (&f, "capabilities.%s[%zu] is %s, not a name", sets[s], i,
                              jv_kind (n));
              continue;
            }
          name = jv_string (n);
          if (! cap_parse (name, &v))
            {
              policy_finding (&f, "unknown capability \"%.64s\" in %s", name, sets[s]);
              continue;
            }
          used |= UINT64_C (1) << v;
          if (allowed & (UINT64_C (1) << v) || reported & (UINT64_C (1) << v))
            continue;
          reported |= UINT64_C (1) << v;
          if (c->privileged && c->cfg->policy.privileged)
            continue;
          cap_upper (v, up, sizeof up);
          policy_finding (&f, "%s", up);
        }
    }
  if (f.n > 0)
    {
      char remedy[256];

      snprintf (remedy, sizeof remedy,
                "drop the capability (no %s), or add it to [policy] capabilities",
                engine_words (&c->who, ASK_CAP_ADD));
      rule_fail (c, remedy, "beyond [policy] capabilities: %s", sb_str (&f.text));
    }
  else if (reported)
    rule_pass (c, "privileged container allowed by [policy] privileged = true");
  else if (canary && (used & (UINT64_C (1) << CAP_NET_ADMIN)))
    rule_pass (c,
               "%d capabilities, all in [policy] capabilities but CAP_NET_ADMIN, which the "
               "canary of the prove run in progress alone holds (" DRIFT_WINDOW ")",
               __builtin_popcountll (used));
  else
    rule_pass (c, "%d capabilit%s, all in [policy] capabilities", __builtin_popcountll (used),
               __builtin_popcountll (used) == 1 ? "y" : "ies");
}

/* ---- policy.devices ------------------------------------------------- */

/* What every engine grants: null, zero, full, random, urandom, tty,
   console, ptmx and the pty slaves. */
static bool
default_device (char type, int64_t maj, int64_t min)
{
  static const int pairs[][2] = { { 1, 3 }, { 1, 5 }, { 1, 7 }, { 1, 8 },
                                  { 1, 9 }, { 5, 0 }, { 5, 1 }, { 5, 2 } };

  if (type != 'c')
    return false;
  if (maj == 136)
    return true;
  for (size_t i = 0; i < ARRAY_SIZE (pairs); i++)
    if (maj == pairs[i][0] && min == pairs[i][1])
      return true;
  return false;
}

static bool
allowed_device (const struct host_dev *hd, size_t n, char type, int64_t maj, int64_t min)
{
  for (size_t i = 0; i < n; i++)
    if (hd[i].ok && hd[i].type == type && (int64_t) hd[i].maj == maj && (int64_t) hd[i].min == min)
      return true;
  return false;
}

/* major/minor: a non-negative integer, or absent (= wildcard, -1). */
static bool
dev_number (struct jv *o, const char *key, int64_t *out, struct policy_findings *f)
{
  struct jv *v = policy_jget (o, "device", key, f);

  *out = -1;
  if (v == NULL)
    return true;
  if (! jv_is_type (v, json_type_int))
    return false;
  *out = jv_int64 (v);
  return *out >= -1 && *out < (INT64_C (1) << 32);
}

/* Kata's Go runtime takes a path for VFIO by its prefix alone
   (src/runtime/pkg/device/manager/utils.go IsVFIODevice: "/dev/vfio"
   and more, but not "/dev/vfio/vfio..."), of the host path it derives
   (manager.go createDevice) and of the spec's path itself (sandbox.go
   and container.go: cold_plug_vfio and hot_plug_vfio go by
   ContainerPath). */
static bool
vfio_path (const char *p)
{
  return strncmp (p, "/dev/vfio", 9) == 0 && p[9] != '\0' && strncmp (p, "/dev/vfio/vfio", 14) != 0;
}

/* Whether the host has a device of TYPE (c, u or b) MAJ:MIN in sysfs:
   1 when /sys/dev/{char,block}/MAJ:MIN/uevent names it (DEVNAME), 0 when
   there is no uevent (ENOENT), -1 (errno set) when it cannot tell.  Kata
   derives the host's device from that file: the Go runtime, when it is
   missing, takes the entry's path instead (config.go GetHostPath);
   runtime-rs fails (hypervisor/src/device/util.rs get_host_path). */
static int
sysfs_device (char type, int64_t maj, int64_t min)
{
  char path[96], buf[512];
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf (path, sizeof path, "/sys/dev/%s/%" PRId64 ":%" PRId64 "/uevent",
            type == 'b' ? "block" : "char", maj, min);
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
  n = read (fd, buf, sizeof buf - 1);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  if (strncmp (buf, "DEVNAME=", 8) != 0 && strstr (buf, "\nDEVNAME=") == NULL)
    {
      errno = ENODEV;
      return -1;
    }
  return 1;
}

/* The host's device a runtime may take linux.devices[] entry P (TYPE
   MAJ:MIN) for beside its numbers, judged (a finding when it is not the
   device the numbers name).  Kata's Go runtime takes P as the host's path
   when the numbers have no sysfs entry (sysfs_device): a block device is
   then attached to the VM from P, a VFIO path passes an IOMMU group
   through.  It plugs a P that reads as VFIO (vfio_path) whatever the
   numbers.  runc and crun bind P from the host in a user namespace or
   when mknod is refused (libcontainer/rootfs_linux.go createDeviceNode).
   So P, where the host has a file, must be the host's node of the same
   device; a VFIO path must be one; a block device must have its sysfs
   entry. */
static void
device_host_path (const char *p, char type, int64_t maj, int64_t min, struct policy_findings *f)
{
  struct stat st;
  int sys;
  char node = type == 'b' ? 'b' : 'c';

  if (! kg_path_clean (p))
    {
      policy_finding (
          f,
          "device path \"%.128s\" is not a clean absolute path (a runtime would take it "
          "for another)",
          p);
      return;
    }
  sys = sysfs_device (node, maj, min);
  if (sys < 0)
    {
      policy_finding (f, "%s (%c %" PRId64 ":%" PRId64 "): cannot read its sysfs entry: %s", p,
                      type, maj, min, strerror (errno));
      return;
    }
  if (stat (p, &st) < 0)
    {
      if (errno != ENOENT && errno != ENOTDIR)
        policy_finding (f, "%s (%c %" PRId64 ":%" PRId64 "): cannot tell which host file it is: %s",
                        p, type, maj, min, strerror (errno));
      else if (vfio_path (p))
        policy_finding (f, "%s (%c %" PRId64 ":%" PRId64 "): a VFIO path the host has no node at",
                        p, type, maj, min);
      else if (sys == 0 && node == 'b')
        policy_finding (f,
                        "%s (b %" PRId64 ":%" PRId64
                        "): no such host block device, Kata would attach "
                        "the path",
                        p, maj, min);
      return;
    }
  if (! (node == 'b' ? S_ISBLK (st.st_mode) : S_ISCHR (st.st_mode))
      || (int64_t) major (st.st_rdev) != maj || (int64_t) minor (st.st_rdev) != min)
    {
      if (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode))
        policy_finding (f, "%s (%c %" PRId64 ":%" PRId64 ") is the host's %c %u:%u", p, type, maj,
                        min, S_ISCHR (st.st_mode) ? 'c' : 'b', major (st.st_rdev),
                        minor (st.st_rdev));
      else
        policy_finding (f, "%s (%c %" PRId64 ":%" PRId64 ") is a host file that is no such device",
                        p, type, maj, min);
      return;
    }
  if (sys == 0 && node == 'b')
    policy_finding (f,
                    "%s (b %" PRId64 ":%" PRId64
                    "): the host's block device has no sysfs entry, Kata "
                    "would attach the path",
                    p, maj, min);
}

void
check_devices (const struct policy_ctx *c)
{
  /* F: devices beyond the allowlist; PATHS: entries whose path a runtime
     takes for another host device (device_host_path). */
  cleanup_policy_findings struct policy_findings f = { 0 }, paths = { 0 };
  cleanup_free struct host_dev *hd = calloc (c->cfg->policy.n_devices + 1, sizeof *hd);
  struct jv *linux_, *devs, *res, *rules;
  size_t n_dev = 0;
  bool waived = c->privileged && c->cfg->policy.privileged;

  if (hd == NULL)
    {
      rule_fail (c, "free memory", "cannot allocate");
      return;
    }
  for (size_t i = 0; i < c->cfg->policy.n_devices; i++)
    {
      struct stat st;

      if (stat (c->cfg->policy.devices[i], &st) == 0
          && (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode)))
        hd[i] = (struct host_dev){ true, S_ISCHR (st.st_mode) ? 'c' : 'b', major (st.st_rdev),
                                   minor (st.st_rdev) };
    }
  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, &f);
  devs = policy_jget_type (linux_, "linux", "devices", json_type_array, &f);
  for (size_t i = 0; devs != NULL && i < jv_length (devs); i++)
    {
      struct jv *d = jv_at (devs, i);
      struct jv *path, *type;
      const char *p, *t;
      int64_t maj, min;

      if (! jv_is_type (d, json_type_object))
        {
          policy_finding (&f, "linux.devices[%zu] is %s, not an object", i, jv_kind (d));
          continue;
        }
      path = policy_jget_type (d, "device", "path", json_type_string, &f);
      type = policy_jget_type (d, "device", "type", json_type_string, &f);
      p = path ? jv_string (path) : "(no path)";
      t = type ? jv_string (type) : "";
      n_dev++;
      if (! dev_number (d, "major", &maj, &f) || ! dev_number (d, "minor", &min, &f) || maj < 0
          || min < 0 || strlen (t) != 1 || (t[0] != 'c' && t[0] != 'b' && t[0] != 'u'))
        {
          policy_finding (&f, "%s: not a device kata-guard can identify", p);
          continue;
        }
      if (path == NULL)
        policy_finding (&paths, "linux.devices[%zu] (%c %" PRId64 ":%" PRId64 ") has no path", i,
                        t[0], maj, min);
      else
        device_host_path (p, t[0], maj, min, &paths);
      if (waived || default_device (t[0] == 'u' ? 'c' : t[0], maj, min)
          || allowed_device (hd, c->cfg->policy.n_devices, t[0] == 'u' ? 'c' : t[0], maj, min))
        continue;
      policy_finding (&f, "%s (%c %" PRId64 ":%" PRId64 ")", p, t[0], maj, min);
    }
  res = policy_jget_type (linux_, "linux", "resources", json_type_object, &f);
  rules = policy_jget_type (res, "resources", "devices", json_type_array, &f);
  for (size_t i = 0; rules != NULL && i < jv_length (rules); i++)
    {
      struct jv *r = jv_at (rules, i);
      struct jv *allow, *type, *access;
      const char *t;
      int64_t maj, min;
      char smaj[24], smin[24];

      if (! jv_is_type (r, json_type_object))
        {
          policy_finding (&f, "linux.resources.devices[%zu] is %s, not an object", i, jv_kind (r));
          continue;
        }
      allow = policy_jget_type (r, "device rule", "allow", json_type_boolean, &f);
      if (allow == NULL || ! jv_bool (allow))
        continue; /* a deny rule takes nothing away from the sandbox */
      if (device_rule_allows_all (r))
        continue; /* privileged: reported by policy.privileged */
      type = policy_jget_type (r, "device rule", "type", json_type_string, &f);
      access = policy_jget_type (r, "device rule", "access", json_type_string, &f);
      t = type ? jv_string (type) : "a";
      if (! dev_number (r, "major", &maj, &f) || ! dev_number (r, "minor", &min, &f))
        {
          policy_finding (&f, "device rule %zu: major/minor is not a device number", i);
          continue;
        }
      if (waived
          || (strlen (t) == 1 && maj >= 0 && (min >= 0 || maj == 136)
              && (default_device (t[0], maj, min)
                  || (min >= 0 && allowed_device (hd, c->cfg->policy.n_devices, t[0], maj, min)))))
        continue;
      snprintf (smaj, sizeof smaj, maj < 0 ? "*" : "%" PRId64, maj);
      snprintf (smin, sizeof smin, min < 0 ? "*" : "%" PRId64, min);
      policy_finding (&f, "device cgroup rule %s %s:%s %s", t, smaj, smin,
                      access ? jv_string (access) : "");
    }
  if (paths.n > 0)
    rule_fail (c,
               "give each device its host node's own path (or one the host has no file at, not "
               "under /dev/vfio)",
               "device paths a runtime would take for another host device: %s%s%s",
               sb_str (&paths.text), f.n > 0 ? "; host devices beyond [policy] devices: " : "",
               f.n > 0 ? sb_str (&f.text) : "");
  else if (f.n > 0)
    {
      char remedy[256];

      snprintf (remedy, sizeof remedy,
                "do not pass host devices (%s) to the container, or list them in [policy] "
                "devices",
                engine_words (&c->who, ASK_DEVICE));
      rule_fail (c, remedy, "host devices beyond [policy] devices: %s", sb_str (&f.text));
    }
  else if (waived)
    rule_pass (c, "privileged container allowed by [policy] privileged = true");
  else
    rule_pass (c,
               "%zu device%s, all granted by default or in [policy] "
               "devices",
               n_dev, n_dev == 1 ? "" : "s");
}

/* ---- policy.seccomp ------------------------------------------------- */

void
check_seccomp (const struct policy_ctx *c)
{
  static const char *const deny_actions[] = {
    "SCMP_ACT_ERRNO",       "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS",
    "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
  };
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct jv *linux_, *sc, *def, *arches, *rules;
  const struct toml_value *dgs;
  size_t n_names = 0;
  bool ok = false;

  if (! c->cfg->policy.require_seccomp)
    {
      rule_skip (c, "switched off by [policy] require_seccomp = false");
      return;
    }
  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, &f);
  sc = policy_jget_type (linux_, "linux", "seccomp", json_type_object, &f);
  if (sc == NULL)
    policy_finding (&f, "no seccomp profile (linux.seccomp)");
  def = policy_jget_type (sc, "seccomp", "defaultAction", json_type_string, &f);
  if (sc != NULL && def == NULL)
    policy_finding (&f, "no defaultAction");
  else if (def != NULL)
    {
      for (size_t i = 0; i < ARRAY_SIZE (deny_actions); i++)
        if (strcmp (jv_string (def), deny_actions[i]) == 0)
          ok = true;
      if (! ok)
        policy_finding (&f, "defaultAction %.64s lets unlisted system calls through",
                        jv_string (def));
    }
  arches = policy_jget_type (sc, "seccomp", "architectures", json_type_array, &f);
  for (size_t i = 0; arches != NULL && i < jv_length (arches); i++)
    {
      struct jv *a = jv_at (arches, i);
      const char *s = jv_is_type (a, json_type_string) ? jv_string (a) : "";
      char lower[64];
      size_t j;

      if (strncmp (s, "SCMP_ARCH_", 10) != 0 || strlen (s + 10) >= sizeof lower)
        {
          policy_finding (&f, "unknown architecture \"%.64s\"", s);
          continue;
        }
      for (j = 0; s[10 + j]; j++)
        lower[j] = (char) tolower ((unsigned char) s[10 + j]);
      lower[j] = '\0';
      if (seccomp_arch_resolve_name (lower) == 0)
        policy_finding (&f, "unknown architecture %s", s);
    }
  rules = policy_jget_type (sc, "seccomp", "syscalls", json_type_array, &f);
  for (size_t i = 0; rules != NULL && i < jv_length (rules); i++)
    {
      struct jv *r = jv_at (rules, i);
      struct jv *names = policy_jget_type (r, "syscall rule", "names", json_type_array, &f);

      for (size_t j = 0; names != NULL && j < jv_length (names); j++)
        {
          struct jv *n = jv_at (names, j);
          const char *s = jv_is_type (n, json_type_string) ? jv_string (n) : "";

          n_names++;
          if (seccomp_syscall_resolve_name (s) == __NR_SCMP_ERROR)
            policy_finding (&f, "unknown system call \"%.64s\"", s);
        }
    }
  if (c->pf->from_kata.config == NULL)
    policy_finding (&f,
                    "cannot tell whether Kata applies the profile: the Kata configuration did not "
                    "load");
  else
    {
      dgs = toml_get_path (c->pf->from_kata.config->doc, "runtime", "disable_guest_seccomp", NULL);
      if (dgs != NULL && (dgs->kind != TOML_BOOLEAN || dgs->u.boolean))
        policy_finding (&f,
                        "the Kata configuration says disable_guest_seccomp = %s (line %u): the "
                        "profile would never be applied",
                        dgs->kind == TOML_BOOLEAN ? "true" : "a non-boolean", dgs->line);
    }
  if (f.n > 0)
    rule_fail (c,
               "run the container with a seccomp profile (Docker's default) and set "
               "disable_guest_seccomp = false in the Kata configuration, or set [policy] "
               "require_seccomp = false",
               "%s", sb_str (&f.text));
  else
    rule_pass (c, "profile with default action %s, %zu system call names, applied in the guest",
               jv_string (def), n_names);
}
