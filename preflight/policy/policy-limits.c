/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.resources' limits on the container's process and its cpuset:
 * what a runc-style runtime applies to them on the host, as root, before
 * the workload runs (kata-guard(8), Reading contract).
 *
 * In OCI mode the guard cannot tell what the runtime behind it does with
 * process.oomScoreAdj, process.rlimits and linux.intelRdt ([runtime]
 * oci_vm is the operator's word that it runs a VM, not how): runc writes
 * /proc/self/oom_score_adj and calls setrlimit(2) before the exec
 * (libcontainer/init_linux.go: setupRlimits, setOomScoreAdj via
 * process_linux.go) and makes or joins a resctrl group
 * (libcontainer/intelrdt), and so do the runc-style VM runtimes that
 * start their VMM as the container's process (crun's krun handler).
 * In shim mode Kata's runtimes send these to the agent only
 * (kata_agent.go: constrainGRPCSpec; protocols/src/trans.rs): guest
 * only, not read here.
 *
 * linux.resources.cpu.cpus and mems are read in every mode: Kata Go
 * puts them on the host cpuset of the sandbox's cgroup (sandbox.go, by
 * pkg/cpuset: Parse), runc on the container's.
 * (policy-resources.c: the rest of policy.resources.)  Here too, what
 * these are judged against: the engine's own limits, namespaces and
 * bounding set, and the host's online CPUs (engine_ns_gather).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "policy.h"

#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "policy-int.h"
#include "policy-limits.h"

_Static_assert(POLICY_MAX_CPUSET == KG_CPUSET_MAX, "one bound for a cpuset");

/* runc's names (libcontainer/configs: the rlimit map of specconv), each
   at its resource's number on this architecture. */
static const char *const rlimit_names[KG_RLIM_COUNT] = {
  [RLIMIT_CPU] = "RLIMIT_CPU",           [RLIMIT_FSIZE] = "RLIMIT_FSIZE",
  [RLIMIT_DATA] = "RLIMIT_DATA",         [RLIMIT_STACK] = "RLIMIT_STACK",
  [RLIMIT_CORE] = "RLIMIT_CORE",         [RLIMIT_RSS] = "RLIMIT_RSS",
  [RLIMIT_NPROC] = "RLIMIT_NPROC",       [RLIMIT_NOFILE] = "RLIMIT_NOFILE",
  [RLIMIT_MEMLOCK] = "RLIMIT_MEMLOCK",   [RLIMIT_AS] = "RLIMIT_AS",
  [RLIMIT_LOCKS] = "RLIMIT_LOCKS",       [RLIMIT_SIGPENDING] = "RLIMIT_SIGPENDING",
  [RLIMIT_MSGQUEUE] = "RLIMIT_MSGQUEUE", [RLIMIT_NICE] = "RLIMIT_NICE",
  [RLIMIT_RTPRIO] = "RLIMIT_RTPRIO",     [RLIMIT_RTTIME] = "RLIMIT_RTTIME",
};

/* A JSON integer 0 .. 2^64-1 (an rlimit: RLIM_INFINITY is 2^64-1). */
static bool
spec_u64 (const struct jv *v, uint64_t *out)
{
  if (! jv_is_type (v, json_type_int))
    return false;
  if (v->big)
    *out = v->u.u;
  else if (v->u.i < 0)
    return false;
  else
    *out = (uint64_t) v->u.i;
  return true;
}

static void
limit_text (uint64_t v, char *out, size_t size)
{
  if (v == (uint64_t) RLIM_INFINITY)
    snprintf (out, size, "unlimited");
  else
    snprintf (out, size, "%" PRIu64, v);
}

/* process.rlimits: each a name runc knows, its hard and soft limits no
   higher than the engine's own hard limit (what the process gets without
   the entry): above it only root's setrlimit raises, for the container. */
static void
rlimits (const struct engine_ns *ns, struct jv *process, struct policy_findings *f)
{
  struct jv *list = policy_jget_type (process, "process", "rlimits", json_type_array, f);

  for (size_t i = 0; list != NULL && i < jv_length (list); i++)
    {
      struct jv *e = jv_at (list, i), *t, *hard, *soft;
      const char *name;
      uint64_t h, s;
      int r = -1;
      char want[32], own[32];

      if (! jv_is_type (e, json_type_object))
        {
          policy_finding (f, "process.rlimits[%zu] is %s, not an object", i, jv_kind (e));
          continue;
        }
      t = policy_jget (e, "rlimit", "type", f);
      name = jv_is_type (t, json_type_string) ? jv_string (t) : NULL;
      for (int k = 0; name != NULL && k < KG_RLIM_COUNT; k++)
        if (rlimit_names[k] != NULL && strcmp (name, rlimit_names[k]) == 0)
          r = k;
      if (r < 0)
        {
          policy_finding (f, "process.rlimits[%zu] type %.64s is not a resource runc names", i,
                          jv_text (t));
          continue;
        }
      hard = policy_jget (e, "rlimit", "hard", f);
      soft = policy_jget (e, "rlimit", "soft", f);
      if (! spec_u64 (hard, &h) || ! spec_u64 (soft, &s))
        {
          policy_finding (f, "%s: hard %.32s and soft %.32s are not both integers 0 .. 2^64-1",
                          name, jv_text (hard), jv_text (soft));
          continue;
        }
      if (! ns->rlim_ok[r])
        {
          policy_finding (f, "%s: the engine's own limit cannot be read", name);
          continue;
        }
      if (h > ns->rlim_max[r] || s > ns->rlim_max[r])
        {
          limit_text (h > s ? h : s, want, sizeof want);
          limit_text (ns->rlim_max[r], own, sizeof own);
          policy_finding (f, "%s %s is above the engine's own hard limit (%s)", name, want, own);
        }
    }
}

/* process.oomScoreAdj: the kernel's range, and no lower than [policy]
   min_oom_score_adj (-1000 exempts the process from the host's OOM
   killer; -998 is CRI's pod sandbox, -997 a Guaranteed pod). */
static void
oom_score_adj (const struct guard_config *cfg, struct jv *process, struct policy_findings *f)
{
  struct jv *v = policy_jget (process, "process", "oomScoreAdj", f);
  int64_t adj;

  if (v == NULL)
    return;
  if (! jv_is_type (v, json_type_int) || v->big)
    {
      policy_finding (f, "process.oomScoreAdj is %s, not an integer", jv_kind (v));
      return;
    }
  adj = jv_int64 (v);
  if (adj < -1000 || adj > 1000)
    policy_finding (f, "process.oomScoreAdj %" PRId64 " is outside -1000 .. 1000", adj);
  else if (adj < cfg->policy.min_oom_score_adj)
    policy_finding (f,
                    "process.oomScoreAdj %" PRId64 " is below [policy] min_oom_score_adj (%" PRId64
                    ")%s",
                    adj, cfg->policy.min_oom_score_adj,
                    adj == -1000 ? ": the host's OOM killer would never pick it" : "");
}

/* The CPUs (or memory nodes) list S names into BITS (POLICY_MAX_CPUSET
   bits), by the grammar every reader takes alike: N or N-M (N <= M),
   decimal digits only, joined by single commas.  Kata Go's Parse takes
   "+1", ignores "1-2-3" and reads "3-1" as nothing; the kernel takes
   spaces and "0-7:2/4": each refused.  "" is no list (empty BITS). */
bool
cpuset_parse (const char *s, unsigned char *bits)
{
  memset (bits, 0, POLICY_MAX_CPUSET / 8);
  while (*s != '\0')
    {
      char *end;
      unsigned long lo, hi;

      if (! isdigit ((unsigned char) *s))
        return false;
      lo = hi = strtoul (s, &end, 10);
      if (*end == '-' && isdigit ((unsigned char) end[1]))
        hi = strtoul (end + 1, &end, 10);
      if (lo > hi || hi >= POLICY_MAX_CPUSET || (*end != ',' && *end != '\0')
          || (*end == ',' && end[1] == '\0'))
        return false;
      for (unsigned long i = lo; i <= hi; i++)
        bits[i / 8] |= (unsigned char) (1u << (i % 8));
      s = *end == ',' ? end + 1 : end;
    }
  return true;
}

static const char *const online_path[2] = { "/sys/devices/system/cpu/online",
                                            "/sys/devices/system/node/online" };

/* The host's online CPUs (WHICH 0) or memory nodes (1) into E. */
static void
host_online_gather (struct engine_ns *e, int which)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  size_t len;

  e->online_err[which] = 0;
  if (kg_read_file_bounded (online_path[which], 0, 1 << 16, &buf, &len, &err) < 0)
    {
      /* A kernel without NUMA has no node directory: node 0. */
      if (err->errnum == ENOENT && which == 1)
        cpuset_parse ("0", e->online[which]);
      else
        e->online_err[which] = err->errnum ? err->errnum : EIO;
      return;
    }
  if (len > 0 && buf[len - 1] == '\n')
    buf[--len] = '\0';
  if (strlen (buf) != len || ! cpuset_parse (buf, e->online[which]))
    e->online_err[which] = EINVAL;
}

/* linux.resources.cpu.cpus / mems: a list by the one grammar, of the
   host's online CPUs / memory nodes. */
static void
cpuset_field (const struct engine_ns *ns, struct jv *cpu, int which, struct policy_findings *f)
{
  const char *key = which == 0 ? "cpus" : "mems";
  const unsigned char *have = ns->online[which];
  unsigned char want[POLICY_MAX_CPUSET / 8];
  struct jv *v = policy_jget (cpu, "cpu", key, f);

  if (v == NULL)
    return;
  if (! jv_is_type (v, json_type_string) || ! cpuset_parse (jv_string (v), want))
    {
      policy_finding (
          f,
          "linux.resources.cpu.%s %.64s is not a list every reader takes alike (N or N-M, "
          "joined by commas)",
          key, jv_text (v));
      return;
    }
  if (*jv_string (v) == '\0')
    return;
  if (ns->online_err[which] != 0)
    {
      policy_finding (f, "linux.resources.cpu.%s cannot be checked: %s: %s", key,
                      online_path[which], strerror (ns->online_err[which]));
      return;
    }
  for (size_t i = 0; i < POLICY_MAX_CPUSET; i++)
    if ((want[i / 8] & (1u << (i % 8))) && ! (have[i / 8] & (1u << (i % 8))))
      {
        policy_finding (f,
                        "linux.resources.cpu.%s %.64s names %s %zu, not online on this host (%s)",
                        key, jv_string (v), which == 0 ? "CPU" : "memory node", i,
                        online_path[which]);
        return;
      }
}

void
limits_cpuset (const struct engine_ns *ns, struct jv *cpu, struct policy_findings *f)
{
  cpuset_field (ns, cpu, 0, f);
  cpuset_field (ns, cpu, 1, f);
}

void
limits_process (const struct guard_config *cfg, const struct engine_ns *ns, struct jv *process,
                struct policy_findings *f)
{
  oom_score_adj (cfg, process, f);
  rlimits (ns, process, f);
}

void
limits_intel_rdt (const struct guard_config *cfg, const char *what, struct policy_findings *f)
{
  if (! cfg->policy.intel_rdt)
    policy_finding (
        f, "%s asks for a resctrl group on the host (set [policy] intel_rdt = true to allow it)",
        what);
}

void
host_limits (const struct policy_ctx *c, struct policy_findings *f)
{
  struct jv *linux_, *process, *res, *cpu;

  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, f);
  res = policy_jget_type (linux_, "linux", "resources", json_type_object, f);
  cpu = policy_jget_type (res, "resources", "cpu", json_type_object, f);
  limits_cpuset (&c->ns, cpu, f);
  if (c->pf->req->mode != KG_MODE_OCI)
    return;
  process = policy_jget_type (c->spec, "spec", "process", json_type_object, f);
  limits_process (c->cfg, &c->ns, process, f);
  if (policy_jget (linux_, "linux", "intelRdt", f) != NULL)
    limits_intel_rdt (c->cfg, "linux.intelRdt", f);
}

/* ---- the engine's own ---------------------------------------------- */

/* This process's capability bounding set (/proc/self/status CapBnd). */
static bool
read_capbnd (uint64_t *out)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  unsigned long long v;
  const char *p;
  char *end;
  size_t len;

  if (kg_read_file_bounded ("/proc/self/status", 0, 1 << 16, &buf, &len, &err) < 0
      || (p = strstr (buf, "\nCapBnd:\t")) == NULL)
    return false;
  errno = 0;
  v = strtoull (p + 9, &end, 16);
  if (errno != 0 || end == p + 9 || *end != '\n')
    return false;
  *out = v;
  return true;
}

/* The engine's namespaces (struct engine_ns, checks.h): the guard runs in
   the namespaces of the engine that started it (containerd, or dockerd
   through containerd), and pid 1's are the host's where they can be read;
   its capability bounding set is the engine's too.  The confined checker
   gets them from its privileged parent (req->engine_ns); this reads them
   in place. */
void
engine_ns_gather (struct engine_ns *e)
{
  for (int i = 0; i < NS_COUNT; i++)
    {
      char path[64];
      struct stat st;

      snprintf (path, sizeof path, "/proc/self/ns/%s", ns_proc[i]);
      if (stat (path, &st) == 0)
        e->self[i] = (struct ns_id){ true, 0, st.st_dev, st.st_ino };
      else
        e->self[i] = (struct ns_id){ false, errno, 0, 0 };
      snprintf (path, sizeof path, "/proc/1/ns/%s", ns_proc[i]);
      if (stat (path, &st) == 0)
        e->init[i] = (struct ns_id){ true, 0, st.st_dev, st.st_ino };
      else
        e->init[i] = (struct ns_id){ false, errno, 0, 0 };
    }
  e->capbnd_ok = read_capbnd (&e->capbnd);
  for (int r = 0; r < KG_RLIM_COUNT; r++)
    {
      struct rlimit rl;

      e->rlim_ok[r] = getrlimit ((__rlimit_resource_t) r, &rl) == 0;
      e->rlim_cur[r] = e->rlim_ok[r] ? rl.rlim_cur : 0;
      e->rlim_max[r] = e->rlim_ok[r] ? rl.rlim_max : 0;
    }
  host_online_gather (e, 0);
  host_online_gather (e, 1);
}
