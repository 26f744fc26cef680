/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.resources: the VM Kata builds for the container or its pod, sized
 * as the runtime that reads the configuration sizes it.
 * (policy-default.c: the family; policy.c, policy-facts.c: what the rules share.)
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>

#include "kata.h"
#include "policy.h"

#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "path.h"
#include "policy-int.h"
#include "proc.h"
#include "policy-limits.h"
#include "policy-resources.h"

/* The workload Kata sizes the VM for: a container's own limits, or a pod
   sandbox's CRI annotations. */
enum
{
  WORKLOAD_WHY = 96,
};

struct workload
{
  bool sandbox;
  bool crio;                  /* a CRI-O pod's sandbox: Kata reads no sizing of it */
  int64_t mem;                /* bytes; 0: none */
  int64_t quota, period;      /* CPUs when quota >= 0 and period > 0 */
  int64_t shares;             /* a pod sandbox's sandbox-cpu-shares; 0: none */
  int64_t cpuset;             /* CPUs linux.resources.cpu.cpus names (runtime-rs); 0: none */
  char cpu_src[WORKLOAD_WHY]; /* where QUOTA and PERIOD came from */
};

/* The VM a runtime builds for a workload, each size with its formula. */
struct vm_size
{
  int64_t mem, vcpus;
  char mem_why[256], vcpus_why[256];
};
/* ---- policy.resources ----------------------------------------------- */

/* A positive integer from the spec: not a string, not a float, not
   negative, not beyond int64 (json-c saturates there). */
static bool
positive_int (struct jv *v, const char *what, int64_t *out, struct policy_findings *f)
{
  if (! jv_is_type (v, json_type_int))
    {
      policy_finding (f, "%s is %s, not an integer", what, jv_kind (v));
      return false;
    }
  *out = jv_int64 (v);
  if (*out == INT64_MAX || *out == INT64_MIN)
    {
      policy_finding (f, "%s %s is out of range", what, jv_text (v));
      return false;
    }
  if (*out <= 0)
    {
      policy_finding (f, "%s is %" PRId64 ", not a positive number", what, *out);
      return false;
    }
  return true;
}

/* ceil (QUOTA / PERIOD) vCPUs, as Kata counts them: in float32
   (CalculateCPUsF), whose rounding can make one more. */
static int64_t
cpus_of (int64_t quota, int64_t period)
{
  int64_t exact = quota / period + (quota % period != 0);
  float f = (float) quota / (float) period;

  if (f > (float) exact && exact < INT64_MAX)
    exact++;
  return exact;
}

/* CRI's sandbox sizing annotation NAME as Kata parses it (strconv, base
   10) into *OUT: 0 when absent; one that is not a decimal integer is a
   finding (Kata would read 0 and size the VM by default alone). */
static bool
sizing_int (const struct policy_ctx *c, const char *name, bool sign_ok, int64_t *out,
            struct policy_findings *f)
{
  const char *v = policy_annotation (c, name);
  char *end;
  long long n;

  *out = 0;
  if (v == NULL)
    return true;
  errno = 0;
  n = strtoll (v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || v[0] == '+' || v[0] == ' ' || (! sign_ok && n < 0))
    {
      policy_finding (f, "%s is \"%.40s\", not a number", name, v);
      return false;
    }
  *out = n;
  return true;
}

/* What the workload's memory is, in a size's formula. */
static const char *
workload_mem_name (const struct workload *w)
{
  if (w->crio)
    return "a CRI-O pod's sizing (none that Kata reads)";
  return w->sandbox ? "the pod's sandbox-memory" : "limit";
}

/* A pod sandbox's workload as Kata sizes the pod's VM from it
   (CalculateSandboxSizing in src/runtime/pkg/oci/utils.go, get_sizing_info
   in runtime-rs's initial_size.rs): CRI's sandbox-memory,
   sandbox-cpu-quota / sandbox-cpu-period and sandbox-cpu-shares.  The
   sandbox spec's own limits do not count: Kata does not read them. */
static bool
sandbox_workload (const struct policy_ctx *c, struct workload *w, struct policy_findings *f)
{
  bool ok = sizing_int (c, "io.kubernetes.cri.sandbox-memory", true, &w->mem, f);

  ok = sizing_int (c, "io.kubernetes.cri.sandbox-cpu-quota", true, &w->quota, f) && ok;
  ok = sizing_int (c, "io.kubernetes.cri.sandbox-cpu-period", false, &w->period, f) && ok;
  ok = sizing_int (c, "io.kubernetes.cri.sandbox-cpu-shares", false, &w->shares, f) && ok;
  if (w->mem < 0)
    w->mem = 0;
  snprintf (w->cpu_src, sizeof w->cpu_src, "sandbox-cpu-quota %" PRId64 " / period %" PRId64,
            w->quota, w->period);
  if (w->mem == 0 && c->cfg->policy.require_memory_limit)
    policy_finding (f, "a pod sandbox that nothing bounds: io.kubernetes.cri.sandbox-memory is "
                       "absent or 0 (give the pod's containers memory limits)");
  return ok;
}

/* A CRI-O pod's sandbox: CRI-O writes none of the sizing annotations
   Kata reads (CalculateSandboxSizing, get_sizing_info: containerd's
   sandbox-* keys), so the pod's VM boots at the defaults and each
   member's limits are added at its own start, where policy.resources
   judges them.  What bounds the pod is CRI-O's record of the kubelet's
   pod resources (pod-linux-resources.crio.io, formerly
   io.kubernetes.cri-o.PodLinuxResources: memory_limit_in_bytes, the sum
   of the members' limits): without one, the pod has a member that
   nothing bounds. */
static bool
crio_sandbox_workload (const struct policy_ctx *c, struct workload *w, struct policy_findings *f)
{
  static const char *const keys[] = { "pod-linux-resources.crio.io",
                                      "io.kubernetes.cri-o.PodLinuxResources" };
  const char *text = policy_annotation (c, keys[0]), *old = policy_annotation (c, keys[1]);
  int64_t mem = 0;
  bool ok = true;

  w->quota = -1;
  w->crio = true;
  /* CRI-O 1.35 writes the first, earlier ones the second; a release that
     writes one does not filter the other from the pod's own annotations:
     both there and apart, one is the pod's. */
  if (text == NULL)
    text = old;
  else if (old != NULL && strcmp (old, text) != 0)
    {
      policy_finding (f, "%s and %s differ (one of them is the pod's own annotation)", keys[0],
                      keys[1]);
      ok = false;
    }
  if (text != NULL && strcmp (text, "null") == 0)
    text = NULL;
  if (text != NULL)
    {
      cleanup_error kg_error_t err = NULL;
      struct jv *doc = json_parse_strict (keys[0], text, strlen (text), false, &err), *v;

      /* CRI-O writes the kubelet's pod resources as JSON, "null" when
         the kubelet sent none (crictl runp, critest, older kubelets). */
      if (doc != NULL && jv_is_type (doc, json_type_object)
          && jv_get_ex (doc, "memory_limit_in_bytes", &v) && jv_is_type (v, json_type_int))
        mem = jv_int64 (v);
      else if (doc == NULL || ! jv_is_type (doc, json_type_object))
        {
          policy_finding (f, "%s is neither null nor a JSON object of the pod's resources",
                          keys[0]);
          ok = false;
        }
      jv_free (doc);
    }
  if (mem <= 0 && c->cfg->policy.require_memory_limit)
    policy_finding (f,
                    "a pod sandbox that nothing bounds: CRI-O's pod resources "
                    "(pod-linux-resources.crio.io) have no memory_limit_in_bytes (give the pod's "
                    "containers memory limits)");
  snprintf (w->cpu_src, sizeof w->cpu_src, "no sizing (a CRI-O pod)");
  return ok;
}

/* The CPUs a cpuset list ("0-3,8") names, each once, as runtime-rs
   counts them (CpuSet in kata-types), into *N; false for what is not such
   a list (cpuset_parse) or names a CPU past POLICY_MAX_CPUSET. */
static bool
cpuset_count (const char *s, int64_t *n)
{
  unsigned char seen[POLICY_MAX_CPUSET / 8];

  *n = 0;
  if (! cpuset_parse (s, seen))
    return false;
  for (size_t i = 0; i < sizeof seen; i++)
    *n += __builtin_popcount (seen[i]);
  return true;
}

/* A container's own workload: its memory LIMIT, CPU QUOTA and PERIOD
   (quota -1 when absent, as Kata reads it), and CPUS, its cpuset (NULL
   but for runtime-rs, which sizes the VM by it when there is no quota). */
static bool
container_workload (struct jv *limit, struct jv *quota, struct jv *period, struct jv *cpus,
                    struct workload *w, struct policy_findings *f)
{
  bool ok = true;

  w->quota = -1;
  if (limit != NULL)
    ok = positive_int (limit, "memory limit", &w->mem, f);
  if (quota != NULL)
    {
      ok = positive_int (quota, "CPU quota", &w->quota, f) && ok;
      if (period == NULL)
        {
          policy_finding (f, "CPU quota %s without a period", jv_text (quota));
          ok = false;
        }
    }
  if (period != NULL && ! positive_int (period, "CPU period", &w->period, f))
    ok = false;
  if (cpus != NULL
      && (! jv_is_type (cpus, json_type_string) || ! cpuset_count (jv_string (cpus), &w->cpuset)))
    {
      policy_finding (f, "the cpuset %.64s is not a CPU list runtime-rs counts", jv_text (cpus));
      ok = false;
    }
  snprintf (w->cpu_src, sizeof w->cpu_src, "quota %" PRId64 " / period %" PRId64, w->quota,
            w->period);
  return ok;
}

/* The workload of this start, as the runtime that reads the Kata
   configuration takes it. */
static bool
workload_of (const struct policy_ctx *c, struct workload *w, struct policy_findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  bool rs = k != NULL && k->runtime == KATA_RUNTIME_RS;
  struct jv *linux_, *res, *mem, *cpu, *limit, *quota, *period, *cpus;

  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, f);
  res = policy_jget_type (linux_, "linux", "resources", json_type_object, f);
  mem = policy_jget_type (res, "resources", "memory", json_type_object, f);
  cpu = policy_jget_type (res, "resources", "cpu", json_type_object, f);
  limit = policy_jget (mem, "memory", "limit", f);
  quota = policy_jget (cpu, "cpu", "quota", f);
  period = policy_jget (cpu, "cpu", "period", f);
  cpus = rs ? policy_jget (cpu, "cpu", "cpus", f) : NULL;
  /* The pause container: Kata sizes the pod's VM from CRI's sandbox
     annotations (the sums of the pod's container limits), whatever the
     sandbox's own spec says. */
  if (w->sandbox && is_crio_sandbox (c))
    return crio_sandbox_workload (c, w, f);
  if (w->sandbox)
    return sandbox_workload (c, w, f);
  return container_workload (limit, quota, period, cpus, w, f);
}

/* A Kata size: integer (or, for vCPUs since Kata 3, a float) > 0, or
   absent (DEF). */
static bool
kata_number (const struct toml_value *hv, const char *key, bool float_ok, int64_t def, int64_t *out,
             struct policy_findings *f)
{
  const struct toml_value *v = toml_get (hv, key);

  if (v == NULL)
    {
      *out = def;
      return true;
    }
  if (v->kind == TOML_INTEGER && v->u.integer > 0 && v->u.integer < (INT64_C (1) << 30))
    {
      *out = v->u.integer;
      return true;
    }
  if (float_ok && v->kind == TOML_FLOAT && v->u.floating > 0 && v->u.floating < 1024)
    {
      *out = (int64_t) v->u.floating;
      if ((double) *out < v->u.floating)
        (*out)++;
      return true;
    }
  policy_finding (f, "the Kata configuration's %s (line %u) is not a usable size", key, v->line);
  return false;
}

/* A runtime-rs overhead (overhead_vcpus, a float like its f32, or
   overhead_memory, MiB): >= 0, or absent (serde's default: 0). */
static bool
kata_overhead (const struct toml_value *hv, const char *key, bool float_ok, double *out,
               struct policy_findings *f)
{
  const struct toml_value *v = toml_get (hv, key);

  *out = 0;
  if (v == NULL)
    return true;
  if (v->kind == TOML_INTEGER && v->u.integer >= 0 && v->u.integer < (INT64_C (1) << 30))
    {
      *out = (double) v->u.integer;
      return true;
    }
  if (float_ok && v->kind == TOML_FLOAT && v->u.floating >= 0 && v->u.floating < 1024)
    {
      *out = v->u.floating;
      return true;
    }
  policy_finding (f, "the Kata configuration's %s (line %u) is not a usable size", key, v->line);
  return false;
}

/* [runtime] static_sandbox_resource_mgmt: false when absent. */
static bool
kata_static_sizing (const struct kata_config *k, bool *out, struct policy_findings *f)
{
  const struct toml_value *v = toml_get_path (k->doc, "runtime", "static_sandbox_resource_mgmt",
                                              NULL);

  *out = false;
  if (v == NULL)
    return true;
  if (v->kind == TOML_BOOLEAN)
    {
      *out = v->u.boolean;
      return true;
    }
  policy_finding (
      f, "the Kata configuration's static_sandbox_resource_mgmt (line %u) is not a boolean",
      v->line);
  return false;
}

/* BYTES in MiB, rounded up. */
int64_t
mib_ceil (int64_t bytes)
{
  return bytes / (1024 * 1024) + (bytes % (1024 * 1024) != 0);
}

/* ceil (V) vCPUs, as runtime-rs rounds its f32 (default_vcpus.ceil ()). */
static int64_t
vcpus_ceil (float v)
{
  int64_t n;

  if (! (v < 1e9f))
    return INT64_MAX;
  n = (int64_t) v;
  return n + ((float) n < v);
}

/* A Kata upper bound (default_maxmemory, MiB, or default_maxvcpus): an
   integer >= 0, 0 when absent (both runtimes then take the host's). */
static bool
kata_cap (const struct toml_value *hv, const char *key, int64_t *out, struct policy_findings *f)
{
  const struct toml_value *v = toml_get (hv, key);

  *out = 0;
  if (v == NULL)
    return true;
  if (v->kind == TOML_INTEGER && v->u.integer >= 0 && v->u.integer < (INT64_C (1) << 32))
    {
      *out = v->u.integer;
      return true;
    }
  policy_finding (f, "the Kata configuration's %s (line %u) is not a usable size", key, v->line);
  return false;
}

/* Kata's sizing of the VM, from its [hypervisor.*] table or from the
   sizing annotations it applies in its place (FROM says which). */
struct kata_sizing
{
  int64_t mem, vcpus;         /* default_memory (MiB), default_vcpus (rounded up) */
  int64_t max_mem, max_vcpus; /* default_maxmemory, default_maxvcpus; 0: the host's */
  char mem_from[48], vcpus_from[48], max_vcpus_from[56];
};

#define KATA_HV_ANNOTATION "io.katacontainers.config.hypervisor."

/* The sizing annotation KEY (bare) of this start, when Kata would apply
   it, read as a plain decimal number (FRACTION_OK: default_vcpus' float,
   rounded up) into *OUT; true with *OUT untouched when absent or not
   applied.  Kata applies a hypervisor annotation only where
   enable_annotations matches it (the Go shim refuses the sandbox
   otherwise, runtime-rs ignores it) and only at the VM's creation (a
   pod member's annotations size nothing).  The Go shim reads
   strconv.ParseUint / ParseFloat, runtime-rs byte_unit strings ("4GiB")
   and f32: anything but digits (and one fraction for vCPUs) is a size
   the guard would have to guess, and refuses. */
static bool
sizing_annotation (const struct policy_ctx *c, const char *key, bool fraction_ok, int64_t *out,
                   char *from, size_t from_size, struct policy_findings *f)
{
  char name[96];
  const char *v, *p;
  int64_t n = 0;
  bool frac = false;
  int on;

  snprintf (name, sizeof name, KATA_HV_ANNOTATION "%s", key);
  if ((v = policy_annotation (c, name)) == NULL || is_pod_member (c))
    return true;
  on = kata_annotation_enabled (c->pf->from_kata.config, key);
  if (on < 0)
    {
      policy_finding (f,
                      "%s: cannot tell whether Kata applies it (enable_annotations cannot be read)",
                      name);
      return false;
    }
  if (on == 0)
    return true;
  for (p = v; isdigit ((unsigned char) *p) && n < (INT64_C (1) << 32); p++)
    n = n * 10 + (*p - '0');
  if (fraction_ok && *p == '.' && p > v && isdigit ((unsigned char) p[1]))
    for (p++; isdigit ((unsigned char) *p); p++)
      frac = frac || *p != '0';
  if (p == v || *p != '\0' || n >= (INT64_C (1) << 32))
    {
      policy_finding (f,
                      "%s is \"%.40s\": Kata sizes the VM by it, and kata-guard reads only a plain "
                      "number (%s)",
                      name, v, fraction_ok ? "of vCPUs" : "of MiB");
      return false;
    }
  *out = n + frac;
  snprintf (from, from_size, "the %s annotation", key);
  return true;
}

/* Kata's sizing for this start (struct kata_sizing).  The Go shim boots
   a default_memory under 256 MiB at 2048 (defaultMemSz in
   src/runtime/pkg/katautils/config.go). */
static bool
kata_sizing_of (const struct policy_ctx *c, struct kata_sizing *s, struct policy_findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  bool rs = k->runtime == KATA_RUNTIME_RS, ok;

  snprintf (s->mem_from, sizeof s->mem_from, "default_memory");
  snprintf (s->vcpus_from, sizeof s->vcpus_from, "default_vcpus");
  snprintf (s->max_vcpus_from, sizeof s->max_vcpus_from, "default_maxvcpus");
  ok = kata_number (k->hypervisor, "default_memory", false,
                    rs ? POLICY_KATA_RS_DEFAULT_MEMORY_MIB : POLICY_KATA_DEFAULT_MEMORY_MIB,
                    &s->mem, f);
  ok = kata_number (k->hypervisor, "default_vcpus", true, POLICY_KATA_DEFAULT_VCPUS, &s->vcpus, f)
       && ok;
  ok = kata_cap (k->hypervisor, "default_maxmemory", &s->max_mem, f) && ok;
  ok = kata_cap (k->hypervisor, "default_maxvcpus", &s->max_vcpus, f) && ok;
  ok = sizing_annotation (c, "default_memory", false, &s->mem, s->mem_from, sizeof s->mem_from, f)
       && ok;
  ok = sizing_annotation (c, "default_vcpus", true, &s->vcpus, s->vcpus_from, sizeof s->vcpus_from,
                          f)
       && ok;
  ok = sizing_annotation (c, "default_max_vcpus", false, &s->max_vcpus, s->max_vcpus_from,
                          sizeof s->max_vcpus_from, f)
       && ok;
  if (! rs && s->mem < POLICY_KATA_MIN_MEMORY_MIB)
    {
      snprintf (s->mem_from, sizeof s->mem_from, "default_memory under %d: Kata's",
                POLICY_KATA_MIN_MEMORY_MIB);
      s->mem = POLICY_KATA_DEFAULT_MEMORY_MIB;
    }
  return ok;
}

/* The VM of Kata's Go runtime: default_memory + the limit, default_vcpus
   + the workload's CPUs, booted so with static_sandbox_resource_mgmt
   (SandboxConfig in src/runtime/pkg/oci/utils.go adds WorkloadMemMB and
   WorkloadCPUs to the defaults) or hot-plugged up to it without.  A pod
   sandbox whose quota is negative (the kubelet's static CPU manager) has
   the sandbox-cpu-shares in whole CPUs of 1024: Kata 4 does, 3.30 gives
   none, so that counts the larger. */
static void
go_vm_size (const struct kata_sizing *s, const struct workload *w, struct vm_size *vm)
{
  int64_t mib = mib_ceil (w->mem), cpus = 0;
  char why[WORKLOAD_WHY] = "no CPU quota";

  if (w->quota >= 0 && w->period > 0)
    {
      cpus = cpus_of (w->quota, w->period);
      snprintf (why, sizeof why, "%s", w->cpu_src);
    }
  else if (w->sandbox && w->quota < 0 && w->shares > 0)
    {
      cpus = w->shares / 1024 + (w->shares % 1024 != 0);
      snprintf (why, sizeof why, "sandbox-cpu-shares %" PRId64 " with a quota of %" PRId64,
                w->shares, w->quota);
    }
  /* A quota of 2^63-1 over a period of 1 is that many vCPUs: the sums
     must not wrap. */
  if (__builtin_add_overflow (s->mem, mib, &vm->mem))
    vm->mem = INT64_MAX;
  if (__builtin_add_overflow (s->vcpus, cpus, &vm->vcpus))
    vm->vcpus = INT64_MAX;
  snprintf (vm->mem_why, sizeof vm->mem_why, "%s %" PRId64 " + %s %" PRId64 " MiB", s->mem_from,
            s->mem, workload_mem_name (w), mib);
  snprintf (vm->vcpus_why, sizeof vm->vcpus_why, "%s %" PRId64 " + %" PRId64 " from %s",
            s->vcpus_from, s->vcpus, cpus, why);
}

/* The workload's vCPUs as runtime-rs counts them (LinuxContainerCpuResources
   in kata-types/src/cpu.rs): quota / period in floating point when the
   quota is >= 0 and the period > 0, else the cpuset's CPUs, else none. */
static float
rs_workload_vcpus (const struct workload *w, char *why, size_t size)
{
  if (w->quota >= 0 && w->period > 0)
    {
      snprintf (why, size, "%s", w->cpu_src);
      return (float) ((double) w->quota / (double) w->period);
    }
  if (w->cpuset > 0)
    {
      snprintf (why, size, "a cpuset of %" PRId64 " CPUs", w->cpuset);
      return (float) w->cpuset;
    }
  snprintf (why, size, "no CPU quota");
  return 0;
}

/* runtime-rs's sizing with static_sandbox_resource_mgmt
   (InitialSizeManager::setup_config in
   src/runtime-rs/crates/resource/src/cpu_mem/initial_size.rs, 4.1.0):
   with a workload (vCPUs or memory) max (1, overhead_vcpus + the
   workload's vCPUs), rounded up, and overhead_memory + the workload's MiB
   (convert_memory_to_mb: rounded down, then up to an even number) replace
   the defaults; without one, the defaults. */
static bool
rs_static_size (const struct toml_value *hv, const struct kata_sizing *s, const struct workload *w,
                struct vm_size *vm, struct policy_findings *f)
{
  int64_t mib = w->mem / (1024 * 1024);
  double ov_vcpus, ov_mem;
  char why[WORKLOAD_WHY];
  float cpus = rs_workload_vcpus (w, why, sizeof why), total;

  mib += mib % 2;
  if (cpus <= 0 && mib == 0)
    {
      vm->mem = s->mem;
      vm->vcpus = s->vcpus;
      snprintf (vm->mem_why, sizeof vm->mem_why,
                "runtime-rs static sizing without a workload: %s %" PRId64, s->mem_from, s->mem);
      snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
                "runtime-rs static sizing without a workload: %s %" PRId64, s->vcpus_from,
                s->vcpus);
      return true;
    }
  if (! kata_overhead (hv, "overhead_vcpus", true, &ov_vcpus, f)
      || ! kata_overhead (hv, "overhead_memory", false, &ov_mem, f))
    return false;
  total = (float) ov_vcpus + cpus;
  vm->vcpus = vcpus_ceil (total < 1.0f ? 1.0f : total);
  vm->mem = (int64_t) ov_mem + mib;
  snprintf (vm->mem_why, sizeof vm->mem_why,
            "runtime-rs static sizing: overhead_memory %" PRId64 " + %s %" PRId64 " MiB",
            (int64_t) ov_mem, workload_mem_name (w), mib);
  snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
            "runtime-rs static sizing: max (1, overhead_vcpus %g + %g from %s), rounded up",
            ov_vcpus, (double) cpus, why);
  return true;
}

/* runtime-rs without static_sandbox_resource_mgmt: the VM boots at the
   defaults and each container's resources are hot-plugged on top
   (calc_cpu_resources in cpu_mem/cpu.rs: default_vcpus + quota / period,
   or the cpuset's CPUs alone; get_current_mb in mem.rs: default_memory +
   the limits). */
static void
rs_hotplug_size (const struct kata_sizing *s, const struct workload *w, struct vm_size *vm)
{
  int64_t mib = mib_ceil (w->mem);
  char why[WORKLOAD_WHY];
  float cpus = rs_workload_vcpus (w, why, sizeof why);

  vm->mem = s->mem + mib;
  if (w->quota >= 0 && w->period > 0)
    vm->vcpus = vcpus_ceil ((float) s->vcpus + cpus);
  else
    vm->vcpus = w->cpuset > s->vcpus ? w->cpuset : s->vcpus;
  snprintf (vm->mem_why, sizeof vm->mem_why,
            "runtime-rs hot-plug: %s %" PRId64 " + %s %" PRId64 " MiB", s->mem_from, s->mem,
            workload_mem_name (w), mib);
  snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
            "runtime-rs hot-plug: %s %" PRId64 " and %g from %s", s->vcpus_from, s->vcpus,
            (double) cpus, why);
}

/* Whether a VM of K can be resized after it boots, and if not why not:
   static_sandbox_resource_mgmt (both runtimes plug nothing then:
   updateResources in virtcontainers/sandbox.go returns first, runtime-rs
   sizes once in InitialSizeManager), or a hypervisor that resizes nothing
   (Firecracker in both runtimes, whose ResizeMemory and ResizeVCPUs do
   nothing; StratoVirt in the Go runtime).  QEMU, Cloud Hypervisor and
   Dragonball hot-plug memory and vCPUs up to default_maxmemory and
   default_maxvcpus: on every update the engine sends the shim (ctr task
   update, crictl update, a Kubernetes in-place resize), which the guard
   never sees. */
static const char *
vm_fixed_why (const struct kata_config *k, bool stat)
{
  if (stat)
    return "static_sandbox_resource_mgmt: Kata never resizes it";
  if (strcmp (k->hypervisor_name, "firecracker") == 0)
    return "Firecracker: Kata never resizes it";
  if (k->runtime == KATA_RUNTIME_GO && strcmp (k->hypervisor_name, "stratovirt") == 0)
    return "StratoVirt: the Go runtime never resizes it";
  return NULL;
}

/* The most VM can grow to after its start, into *TOP (kata-guard(8),
   CAPACITY): VM itself when Kata never resizes it, else Kata's ceilings,
   default_maxmemory and default_maxvcpus, where both runtimes read 0 or
   more than the host has as the host's (defaultMaxMemSz and
   defaultMaxVCPUs in the Go runtime's katautils/config.go; MemoryInfo and
   CpuInfo's adjust_config in kata-types).  *WHOLE_HOST: the ceiling is
   all of the host's memory. */
static bool
vm_ceiling (const struct policy_ctx *c, const struct kata_sizing *s, bool stat,
            const struct vm_size *vm, struct vm_size *top, bool *whole_host,
            struct policy_findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  const char *fixed = vm_fixed_why (k, stat);
  cleanup_error kg_error_t err = NULL;
  int64_t host_mem, host_cpus, max_mem, max_vcpus;

  *whole_host = false;
  *top = *vm;
  if (fixed != NULL)
    {
      snprintf (top->mem_why, sizeof top->mem_why, "%s", fixed);
      snprintf (top->vcpus_why, sizeof top->vcpus_why, "%s", fixed);
      return true;
    }
  /* Only a VM that grows needs the host's size (get_nprocs_conf reads
     /sys: not on Firecracker's path). */
  host_cpus = get_nprocs_conf ();
  if (kg_mem_total_mib (&host_mem, &err) < 0 || host_cpus < 1)
    {
      policy_finding (f, "cannot tell how far the VM can grow: %s",
                      err ? err->msg : "cannot count this host's CPUs");
      return false;
    }
  max_mem = s->max_mem == 0 || s->max_mem > host_mem ? host_mem : s->max_mem;
  max_vcpus = s->max_vcpus == 0 || s->max_vcpus > host_cpus ? host_cpus : s->max_vcpus;
  *whole_host = s->max_mem == 0 || s->max_mem >= host_mem;
  if (max_mem > top->mem)
    top->mem = max_mem;
  if (max_vcpus > top->vcpus)
    top->vcpus = max_vcpus;
  snprintf (top->mem_why, sizeof top->mem_why,
            "[hypervisor.%s] hot-plugs memory up to default_maxmemory %" PRId64 "%s",
            k->hypervisor_name, s->max_mem,
            max_mem == s->max_mem ? "" : ", which Kata reads as this host's memory");
  snprintf (top->vcpus_why, sizeof top->vcpus_why,
            "[hypervisor.%s] hot-plugs vCPUs up to %s %" PRId64 "%s", k->hypervisor_name,
            s->max_vcpus_from, s->max_vcpus,
            max_vcpus == s->max_vcpus ? "" : ", which Kata reads as this host's CPUs");
  return true;
}

/* The VM that the runtime reading the Kata configuration builds for W,
   *VM as it boots, *TOP the most it can grow to, from Kata's sizing *S. */
static bool
vm_size_of (const struct policy_ctx *c, const struct workload *w, struct kata_sizing *s,
            struct vm_size *vm, struct vm_size *top, bool *whole_host, struct policy_findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  bool stat = false;

  if (k == NULL || k->hypervisor == NULL)
    {
      policy_finding (f, "cannot compute the VM size: the Kata configuration did not load");
      return false;
    }
  if (! kata_sizing_of (c, s, f) || ! kata_static_sizing (k, &stat, f))
    return false;
  if (k->runtime != KATA_RUNTIME_RS)
    go_vm_size (s, w, vm);
  else if (! stat)
    rs_hotplug_size (s, w, vm);
  else if (! rs_static_size (k->hypervisor, s, w, vm, f))
    return false;
  return vm_ceiling (c, s, stat, vm, top, whole_host, f);
}

/* The largest VM allowed, *MAX_MEM MiB and *MAX_VCPUS, and who says so. */
static bool
vm_bounds (const struct policy_ctx *c, int64_t *max_mem, const char **mem_from, int64_t *max_vcpus,
           const char **vcpus_from, struct policy_findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  cleanup_error kg_error_t err = NULL;

  *max_mem = c->cfg->policy.max_vm_memory_mib;
  *mem_from = "[policy] max_vm_memory_mib";
  *max_vcpus = c->cfg->policy.max_vcpus;
  *vcpus_from = "[policy] max_vcpus";
  if (k != NULL && k->hypervisor_name != NULL && strcmp (k->hypervisor_name, "firecracker") == 0
      && *max_vcpus > POLICY_FIRECRACKER_MAX_VCPUS)
    {
      *max_vcpus = POLICY_FIRECRACKER_MAX_VCPUS;
      *vcpus_from = "Firecracker's limit";
    }
  if (*max_mem != 0)
    return true;
  *mem_from = "this host's MemTotal";
  if (kg_mem_total_mib (max_mem, &err) == 0)
    return true;
  policy_finding (f, "cannot read the host's memory size: %s", err->msg);
  return false;
}

/* What this start adds to the memory the host has committed to guarded
   VMs, for policy.capacity in the parent (capacity.h): a VM of its own,
   or its pod's VM as the sandbox sizes it, each at TOP, the most it can
   grow to; a pod member adds nothing (its pod's VM is counted at its
   ceiling, which no hot-plug passes). */
static void
claim_vm (const struct policy_ctx *c, const struct workload *w, const struct kata_sizing *s,
          const struct vm_size *top)
{
  struct vm_claim *v = &c->rep->vm;
  const char *sid = NULL, *uid = NULL;

  memset (v, 0, sizeof *v);
  if (is_pod_member (c))
    {
      if (! pod_of (c, &sid, &uid) || strlen (sid) > VM_POD_MAX)
        return;
      snprintf (v->pod, sizeof v->pod, "%s", sid);
      v->add_mib = 0;
      v->role = VM_MEMBER;
      return;
    }
  v->mem_mib = top->mem;
  v->base_mib = s->mem < top->mem ? s->mem : top->mem;
  v->role = w->sandbox ? VM_SANDBOX : VM_SOLO;
}

/* policy.memory_limit: a container that must have a memory limit has
   one.  Without it the container may use all of its VM, no more: the VM
   is sized (policy.resources) and counted (policy.capacity) all the
   same, so audit mode may let it through.  A pod's sandbox is sized from
   its members' limits (policy.resources). */
void
check_memory_limit (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct jv *linux_, *res, *mem;

  if (is_pod_sandbox (c) || is_crio_sandbox (c))
    {
      rule_pass (c, "a pod's sandbox: its VM is sized by its members' limits");
      return;
    }
  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, &f);
  res = policy_jget_type (linux_, "linux", "resources", json_type_object, &f);
  mem = policy_jget_type (res, "resources", "memory", json_type_object, &f);
  if (policy_jget (mem, "memory", "limit", &f) != NULL)
    rule_pass (c, "a memory limit (linux.resources.memory.limit)");
  else if (c->cfg->policy.require_memory_limit)
    {
      char remedy[256];

      snprintf (remedy, sizeof remedy,
                "give the container a memory limit (%s), or set [policy] require_memory_limit = "
                "false",
                engine_words (&c->who, ASK_MEMORY));
      rule_fail (c, remedy, "no memory limit (linux.resources.memory.limit)");
    }
  else
    rule_pass (c, "no memory limit: allowed by [policy] require_memory_limit = false");
}

/* What policy.resources judged, for its remedy. */
struct resources_seen
{
  bool sizes; /* the sizes could be read (else the findings say what could not) */
  const struct workload *w;
  const struct kata_sizing *ks;
  const struct vm_size *vm, *top;
  int64_t max_mem, max_vcpus;
  bool whole_host;
};

/* The Kata file a remedy edits, and the table the key is in. */
static const char *
kata_file_of (const struct kata_config *k)
{
  return k != NULL && k->last_file[0] != '\0' ? k->last_file : "the Kata configuration";
}

/* The default_maxmemory to suggest: the most one VM may be by
   policy.resources and policy.capacity, leaving the host its
   committed_memory_reserve_mib (Kata reads the host's memory or more as
   the whole host), and no less than the VM boots at (Kata's Go runtime
   hot-plugs no further than it: hotplugAddMemory in qemu.go). */
static int64_t
suggested_max_memory (const struct policy_ctx *c, const struct resources_seen *r)
{
  cleanup_error kg_error_t err = NULL;
  int64_t v = r->max_mem, host, committed;
  char why[160];

  if (kg_mem_total_mib (&host, &err) == 0)
    {
      int64_t keep = c->cfg->policy.committed_memory_reserve_mib;

      if (host - (keep > 0 ? keep : 1) < v)
        v = host - (keep > 0 ? keep : 1);
    }
  kg_error_release (&err);
  if (policy_committed_bound (c->cfg, &committed, why, sizeof why, &err) == 0 && committed < v)
    v = committed;
  return v < r->vm->mem ? r->vm->mem : v;
}

/* policy.resources' remedy, in the words of the engine that started the
   container: the first thing to change, never a condition already met
   (a container that has a memory limit is not asked for one).  What is
   over in the VM as it boots is the container's request (or Kata's
   defaults, where the request adds nothing); what is over only in how
   far the VM can grow is Kata's ceiling, named with its file, key and a
   value that fits [policy]. */
static const char *
resources_remedy (const struct policy_ctx *c, const struct resources_seen *r, char *out,
                  size_t size)
{
  const struct kata_config *k = c->pf->from_kata.config;
  const char *file = kata_file_of (k), *hv = k != NULL ? k->hypervisor_name : "NAME";
  cleanup_kg_buf struct kg_buf b = { 0 };
  int64_t mib = mib_ceil (r->w->mem), base;

  if (! r->sizes)
    {
      snprintf (out, size,
                "give the container a memory limit (%s) and a CPU limit (%s) that kata-guard can "
                "read and that fit the VM maximums in [policy]",
                engine_words (&c->who, ASK_MEMORY), engine_words (&c->who, ASK_CPUS));
      return out;
    }
  /* Memory, as the VM boots: its base is what Kata adds the request to. */
  base = r->vm->mem - mib;
  if (r->vm->mem > r->max_mem && mib > 0 && ! r->w->sandbox && base < r->max_mem)
    sb_printf (&b, "give the container a memory limit (%s) of at most %" PRId64 " MiB",
               engine_words (&c->who, ASK_MEMORY), r->max_mem - base);
  else if (r->vm->mem > r->max_mem && mib > 0 && r->w->sandbox && base < r->max_mem)
    sb_printf (&b, "give the pod's containers memory limits of at most %" PRId64 " MiB in all",
               r->max_mem - base);
  else if (r->vm->mem > r->max_mem)
    sb_printf (&b,
               "set default_memory to less than %" PRId64 " in %s ([hypervisor.%s]), or raise "
               "[policy] max_vm_memory_mib",
               r->max_mem, file, hv);
  else if (r->whole_host || r->top->mem > r->max_mem)
    sb_printf (&b,
               "set default_maxmemory = %" PRId64 " in %s ([hypervisor.%s]; policy.resources "
               "allows at most %" PRId64 " MiB per VM), or static_sandbox_resource_mgmt = true",
               suggested_max_memory (c, r), file, hv, r->max_mem);
  /* vCPUs, likewise. */
  if (r->vm->vcpus > r->max_vcpus && r->w->quota >= 0 && r->vm->vcpus - r->ks->vcpus > 0
      && r->ks->vcpus < r->max_vcpus)
    sb_printf (&b, "%sgive the container a CPU limit (%s) of at most %" PRId64 " CPUs",
               b.len ? "; " : "", engine_words (&c->who, ASK_CPUS), r->max_vcpus - r->ks->vcpus);
  else if (r->vm->vcpus > r->max_vcpus)
    sb_printf (&b,
               "%sset default_vcpus to less than %" PRId64 " in %s ([hypervisor.%s]), and give "
               "the container no more CPUs than fit [policy] max_vcpus",
               b.len ? "; " : "", r->max_vcpus, file, hv);
  else if (r->top->vcpus > r->max_vcpus)
    sb_printf (&b,
               "%sset default_maxvcpus = %" PRId64 " in %s ([hypervisor.%s]; policy.resources "
               "allows at most %" PRId64 " vCPUs per VM)",
               b.len ? "; " : "", r->max_vcpus, file, hv, r->max_vcpus);
  snprintf (out, size, "%s", b.len ? sb_str (&b) : "fit the VM maximums in [policy]");
  return out;
}

/* linux.cgroupsPath, which every runtime applies on the host: Kata's Go
   runtime makes it the sandbox's cgroup, which holds the VMM's threads,
   with "kata_" before its last name unless it is systemd's form
   (virtcontainers/sandbox.go createResourceController,
   resourcecontrol/utils.go IsSystemdCgroup, RenameCgroupPath); runtime-rs
   takes it as written less its leading '/' (resource/src/cgroups/mod.rs
   CgroupConfig::new); runc makes it the container's own cgroup.  So it
   must be the engine's form for this container: a systemd
   "SLICE:PREFIX:NAME" whose slice is (below) one of [policy]
   cgroup_parents, or a clean absolute path below one of them or below
   /NAMESPACE (ctr's /NAMESPACE/ID), its last name ending with the
   container's id.  Another container's cgroup, the root, a service's
   slice or a path through ".." refuses. */
static void
cgroups_path (const struct policy_ctx *c, struct policy_findings *f)
{
  const struct guard_config *cfg = c->cfg;
  const char *id = c->pf->req->container_id ? c->pf->req->container_id : "";
  struct jv *linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, f);
  struct jv *v = policy_jget_type (linux_, "linux", "cgroupsPath", json_type_string, f);
  const char *p = v ? jv_string (v) : "", *colon1, *colon2, *last;
  size_t nid = strlen (id), nlast;
  bool under = false;

  if (*p == '\0')
    return;
  colon1 = strchr (p, ':');
  colon2 = colon1 ? strchr (colon1 + 1, ':') : NULL;
  if (colon1 != NULL && p[0] != '/')
    {
      /* systemd's form: SLICE:PREFIX:NAME, the form Kata's Go runtime
         takes for systemd's (three parts, the first a .slice). */
      cleanup_free char *slice = strndup (p, (size_t) (colon1 - p));

      if (slice == NULL || colon2 == NULL || strchr (colon2 + 1, ':') != NULL
          || strchr (p, '/') != NULL || ! conf_valid_cgroup_parent (slice))
        {
          policy_finding (
              f,
              "linux.cgroupsPath \"%.200s\" is neither a systemd SLICE:PREFIX:NAME nor a "
              "clean absolute path",
              p);
          return;
        }
      for (size_t i = 0; i < cfg->policy.n_cgroup_parents && ! under; i++)
        {
          const char *e = cfg->policy.cgroup_parents[i];
          size_t stem = strlen (e) - 6;

          /* "a-b.slice" is below "a.slice" (systemd's slice names). */
          under = e[0] != '/'
                  && (strcmp (slice, e) == 0
                      || (strncmp (slice, e, stem) == 0 && slice[stem] == '-'));
        }
      last = colon2 + 1;
    }
  else
    {
      if (! kg_path_clean (p))
        {
          policy_finding (f,
                          "linux.cgroupsPath \"%.200s\" is not a clean absolute path (no \"..\", "
                          "\".\" or empty name)",
                          p);
          return;
        }
      for (size_t i = 0; i < cfg->policy.n_cgroup_parents && ! under; i++)
        {
          const char *e = cfg->policy.cgroup_parents[i];

          under = e[0] == '/' && path_under (p, e) && strcmp (p, e) != 0;
        }
      /* ctr's /NAMESPACE/ID, in the start's own namespace. */
      if (! under && c->who.ns[0] != '\0')
        {
          size_t nns = strlen (c->who.ns);

          under = strncmp (p + 1, c->who.ns, nns) == 0 && p[1 + nns] == '/';
        }
      last = strrchr (p, '/') + 1;
    }
  nlast = strlen (last);
  if (! under)
    policy_finding (
        f,
        "linux.cgroupsPath \"%.200s\" is below none of [policy] cgroup_parents: the VM's "
        "host cgroup would be where the spec says",
        p);
  else if (nid == 0 || nlast < nid || strcmp (last + nlast - nid, id) != 0)
    policy_finding (f,
                    "linux.cgroupsPath \"%.200s\" does not end with the container's id (%.80s): "
                    "another container's cgroup, or one the engine did not make",
                    p, id);
}

void
check_resources (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  struct workload w = { .sandbox = is_pod_sandbox (c) || is_crio_sandbox (c) };
  struct kata_sizing ks = { 0 };
  struct vm_size vm = { 0 }, top = { 0 };
  int64_t max_mem, max_vcpus;
  const char *mem_from, *vcpus_from;
  bool sizes = workload_of (c, &w, &f), whole_host = false;
  cleanup_kg_buf struct kg_buf grows = { 0 };
  cleanup_policy_findings struct policy_findings cg = { 0 };
  cleanup_policy_findings struct policy_findings hl = { 0 };

  cgroups_path (c, &cg);
  if (cg.n > 0)
    {
      rule_fail (c,
                 "leave the cgroup to the engine (no --cgroup-parent or --cgroup outside [policy] "
                 "cgroup_parents), or add its parent there",
                 "%s", sb_str (&cg.text));
      return;
    }
  host_limits (c, &hl);
  if (hl.n > 0)
    {
      rule_fail (c,
                 "keep the engine's defaults for the container's process (no --oom-score-adj "
                 "below [policy] min_oom_score_adj, no --ulimit above the engine's own limits, "
                 "no --cpuset-cpus or --cpuset-mems but the host's online ones, no Intel RDT "
                 "group), or raise the engine's own limits (LimitNOFILE= and the like in its "
                 "unit), lower min_oom_score_adj or set intel_rdt = true in [policy]",
                 "%s", sb_str (&hl.text));
      return;
    }
  sizes = vm_size_of (c, &w, &ks, &vm, &top, &whole_host, &f) && sizes;
  sizes = vm_bounds (c, &max_mem, &mem_from, &max_vcpus, &vcpus_from, &f) && sizes;
  if (sizes && vm.mem > max_mem)
    policy_finding (&f, "the VM would have %" PRId64 " MiB (%s), more than %s (%" PRId64 " MiB)",
                    vm.mem, vm.mem_why, mem_from, max_mem);
  else if (sizes && whole_host)
    policy_finding (&f, "the VM can grow to all of this host's memory, %" PRId64 " MiB (%s)",
                    top.mem, top.mem_why);
  else if (sizes && top.mem > max_mem)
    policy_finding (&f, "the VM can grow to %" PRId64 " MiB (%s), more than %s (%" PRId64 " MiB)",
                    top.mem, top.mem_why, mem_from, max_mem);
  if (sizes && vm.vcpus > max_vcpus)
    policy_finding (&f, "the VM would have %" PRId64 " vCPUs (%s), more than %s (%" PRId64 ")",
                    vm.vcpus, vm.vcpus_why, vcpus_from, max_vcpus);
  else if (sizes && top.vcpus > max_vcpus)
    policy_finding (&f, "the VM can grow to %" PRId64 " vCPUs (%s), more than %s (%" PRId64 ")",
                    top.vcpus, top.vcpus_why, vcpus_from, max_vcpus);
  if (f.n == 0)
    claim_vm (c, &w, &ks, &top);
  if (f.n > 0)
    {
      struct resources_seen seen = { .sizes = sizes,
                                     .w = &w,
                                     .ks = &ks,
                                     .vm = &vm,
                                     .top = &top,
                                     .max_mem = max_mem,
                                     .max_vcpus = max_vcpus,
                                     .whole_host = whole_host };
      char remedy[768];

      rule_fail (c, resources_remedy (c, &seen, remedy, sizeof remedy), "%s", sb_str (&f.text));
      return;
    }
  if (top.mem > vm.mem || top.vcpus > vm.vcpus)
    sb_printf (&grows, "; it can grow to %" PRId64 " MiB (%s) and %" PRId64 " vCPUs (%s)", top.mem,
               top.mem_why, top.vcpus, top.vcpus_why);
  else
    sb_printf (&grows, " (%s)", top.mem_why);
  rule_pass (c,
             "the VM: %" PRId64 " MiB (%s) of at most %" PRId64 ", %" PRId64
             " vCPUs of at most %" PRId64 " (%s)%s",
             vm.mem, vm.mem_why, max_mem, vm.vcpus, max_vcpus, vm.vcpus_why, sb_str (&grows));
}
