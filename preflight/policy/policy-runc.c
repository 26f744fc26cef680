/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runc exec and update in OCI mode (shim/oci.c asks): a process added to
 * a running container, or its resources changed, judged by the same
 * [policy] rules as its start (policy.capabilities, policy.resources:
 * the process's rlimits and oomScoreAdj, the cpuset lists, a resctrl
 * group), with the helpers those rules share (policy-int.h).
 */
#include "config.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>

#include "policy.h"

#include "array.h"
#include "buf.h"
#include "error.h"
#include "policy-int.h"
#include "proc.h"
#include "policy-devices.h"
#include "policy-labels.h"
#include "policy-limits.h"
#include "policy-resources.h"

/* ---- runc exec and update (OCI mode) ---------------------------------- */

int
policy_exec_judge (const struct guard_config *cfg, struct jv *process, const char *const *caps,
                   size_t n_caps, kg_error_t *err)
{
  static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted",
                                      "ambient" };
  cleanup_policy_findings struct policy_findings f = { 0 };
  uint64_t allowed = allowed_caps (cfg), reported = 0;
  struct jv *set_lists[ARRAY_SIZE (sets)] = { NULL };
  struct jv *pcaps;

  if (cfg->policy.privileged)
    return 0;
  pcaps = policy_jget_type (process, "process", "capabilities", json_type_object, &f);
  for (size_t s = 0; s < ARRAY_SIZE (sets); s++)
    set_lists[s] = policy_jget_type (pcaps, "capabilities", sets[s], json_type_array, &f);
  /* The --cap names first, then every set of the process. */
  for (size_t s = 0; s <= ARRAY_SIZE (sets); s++)
    {
      size_t n = s == 0 ? n_caps : set_lists[s - 1] ? jv_length (set_lists[s - 1]) : 0;

      for (size_t i = 0; i < n; i++)
        {
          struct jv *o = s == 0 ? NULL : jv_at (set_lists[s - 1], i);
          const char *name;
          char up[64];
          cap_value_t v;

          if (s > 0 && ! jv_is_type (o, json_type_string))
            {
              policy_finding (&f, "capabilities.%s[%zu] is %s, not a name", sets[s - 1], i,
                              jv_kind (o));
              continue;
            }
          name = s == 0 ? caps[i] : jv_string (o);
          if (! cap_parse (name, &v))
            {
              policy_finding (&f, "unknown capability \"%.64s\"", name);
              continue;
            }
          if ((allowed | reported) & (UINT64_C (1) << v))
            continue;
          reported |= UINT64_C (1) << v;
          cap_upper (v, up, sizeof up);
          policy_finding (&f, "%s", up);
        }
    }
  if (f.n > 0)
    return kg_error (err, 0,
                     "the process would have capabilities beyond [policy] "
                     "capabilities: %s",
                     sb_str (&f.text));
  return 0;
}

int
policy_exec_limits_judge (const struct guard_config *cfg, const struct engine_ns *ns,
                          struct jv *process, kg_error_t *err)
{
  cleanup_policy_findings struct policy_findings f = { 0 };

  if (process != NULL)
    limits_process (cfg, ns, process, &f);
  if (f.n > 0)
    return kg_error (err, 0, "%s", sb_str (&f.text));
  return 0;
}

int
policy_exec_label_judge (const struct guard_config *cfg, struct jv *process, bool apparmor,
                         kg_error_t *err)
{
  cleanup_policy_findings struct policy_findings f = { 0 };

  if (process != NULL && apparmor)
    process_apparmor (cfg, process, &f);
  else if (process != NULL)
    process_label (cfg, process, " (runc labels the exec'd process on the host)", &f);
  if (f.n > 0)
    return kg_error (err, 0, "%s", sb_str (&f.text));
  return 0;
}

int
policy_update_judge (const struct guard_config *cfg, const struct engine_ns *ns,
                     struct jv *resources, const char *rdt, kg_error_t *err)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  cleanup_error kg_error_t merr = NULL;
  struct jv *mem, *cpu, *limit, *quota, *period;
  int64_t max_mem = cfg->policy.max_vm_memory_mib;

  mem = policy_jget_type (resources, "resources", "memory", json_type_object, &f);
  cpu = policy_jget_type (resources, "resources", "cpu", json_type_object, &f);
  limit = policy_jget (mem, "memory", "limit", &f);
  quota = policy_jget (cpu, "cpu", "quota", &f);
  period = policy_jget (cpu, "cpu", "period", &f);
  if (max_mem == 0 && kg_mem_total_mib (&max_mem, &merr) < 0)
    policy_finding (&f, "cannot read the host's memory size: %s", merr->msg);
  if (limit != NULL && ! jv_is_type (limit, json_type_int))
    policy_finding (&f, "the memory limit is %s, not an integer", jv_kind (limit));
  else if (limit != NULL)
    {
      /* 0 leaves the limit as it is; a negative one lifts it. */
      int64_t l = jv_int64 (limit);
      int64_t mib = mib_ceil (l);

      if (l < 0 && cfg->policy.require_memory_limit)
        policy_finding (&f, "the memory limit would be lifted (%" PRId64 ")", l);
      else if (max_mem > 0 && mib > max_mem)
        policy_finding (&f, "a memory limit of %" PRId64 " MiB is more than %s (%" PRId64 " MiB)",
                        mib,
                        cfg->policy.max_vm_memory_mib ? "[policy] max_vm_memory_mib"
                                                      : "this host's MemTotal",
                        max_mem);
    }
  if (quota != NULL && ! jv_is_type (quota, json_type_int))
    policy_finding (&f, "the CPU quota is %s, not an integer", jv_kind (quota));
  else if (period != NULL && ! jv_is_type (period, json_type_int))
    policy_finding (&f, "the CPU period is %s, not an integer", jv_kind (period));
  else if (quota != NULL && jv_int64 (quota) > 0)
    {
      /* Without a period the kernel's default is the one in force for a
         container the guard started (none of the engines sets another). */
      int64_t q = jv_int64 (quota);
      int64_t p = period != NULL && jv_int64 (period) > 0 ? jv_int64 (period) : 100000;
      int64_t cpus = q / p + (q % p != 0);

      if (cpus > cfg->policy.max_vcpus)
        policy_finding (&f,
                        "a CPU quota of %" PRId64 " / period %" PRId64 " is %" PRId64
                        " vCPUs, more "
                        "than [policy] max_vcpus (%" PRId64 ")",
                        q, p, cpus, cfg->policy.max_vcpus);
    }
  limits_cpuset (ns, cpu, &f);
  if (rdt != NULL)
    limits_intel_rdt (cfg, rdt, &f);
  if (f.n > 0)
    return kg_error (err, 0, "%s", sb_str (&f.text));
  return 0;
}
