/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.*: the per-container policy (kata-guard(8), Per-container policy), evaluated on the bundle's
 * config.json.  check_policy () is the family (checks.h); what is here is
 * exposed for the unit tests.
 */
#ifndef KG_POLICY_H
#define KG_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* config.json is refused above this size and nesting depth. */
#define POLICY_MAX_SPEC (4 * 1024 * 1024)
#define POLICY_MAX_DEPTH 64

/* Kata's defaults when the hypervisor table does not set them. */
#define POLICY_KATA_DEFAULT_MEMORY_MIB 2048
#define POLICY_KATA_DEFAULT_VCPUS 1
/* The Go shim boots a default_memory below this at its default
   (MinHypervisorMemory, defaultMemSz). */
#define POLICY_KATA_MIN_MEMORY_MIB 256
/* runtime-rs's default_memory when unset (DEFAULT_{QEMU,CH,FIRECRACKER,
   DRAGONBALL}_MEMORY_SIZE_MB in kata-types/src/config/default.rs). */
#define POLICY_KATA_RS_DEFAULT_MEMORY_MIB 128
/* A cpuset naming a CPU from here on is refused (runtime-rs sizes by it). */
#define POLICY_MAX_CPUSET 4096
/* Firecracker cannot boot a VM with more vCPUs than this. */
#define POLICY_FIRECRACKER_MAX_VCPUS 32

/* The absolute form of PATH with ".", ".." and repeated slashes resolved.
   With FOLLOW, symbolic links are resolved as the kernel would, as far as
   the path exists (the rest is taken lexically, as an engine creating a
   missing bind source would see it); without, purely lexically.  A
   relative PATH is taken relative to BASE (which must be absolute). */
int policy_path_resolve (const char *base, const char *path, bool follow, char **out,
                         kg_error_t *err);

/* config.json's text BUF (LEN bytes, named NAME in errors) as the policy
   reads it: strict UTF-8 and JSON, no key twice, no key that Go's decoder
   folds onto a field of another name, nothing after the document, an
   object of ociVersion 1.x.  The oracle test compares what this returns
   with what runtime-spec's Go types decode.  policy_json_parse is the
   same without the ociVersion rule: for the process.json of a runc exec
   and the resources of a runc update (SPEC_KEYS: the folded-key rule over
   the spec's field names), and for the engines' own JSON files. */
struct jv;
struct jv *policy_json_parse (const char *name, const char *buf, size_t len, bool spec_keys,
                              kg_error_t *err);
struct jv *policy_spec_parse (const char *name, const char *buf, size_t len, kg_error_t *err);
/* BUNDLE's config.json, read as the policy reads it: opened without
   following a symlink, a regular file of at most POLICY_MAX_SPEC bytes,
   then policy_spec_parse.  The checker's parent reads it too, to answer
   only requests about what the spec names (checker.h). */
struct jv *policy_spec_load (const char *bundle, kg_error_t *err);

/* ID names a container as one path component: not empty, no '/', not
   "." or "..". */
bool policy_valid_id (const char *id);

/* runc exec (OCI mode): the process of PROCESS (a process.json, or NULL)
   and each --cap of CAPS may hold no capability beyond [policy]
   capabilities, unless [policy] privileged = true.  0, or -1 with why. */
struct guard_config;
int policy_exec_judge (const struct guard_config *cfg, struct jv *process, const char *const *caps,
                       size_t n_caps, kg_error_t *err);
/* runc exec (OCI mode): PROCESS (a process.json, or NULL) by the start's
   policy.resources rules for a process: its oomScoreAdj within -1000 ..
   1000 and not below [policy] min_oom_score_adj, each of its rlimits a
   resource runc names and no higher than the engine's own hard limit (in
   NS, engine_ns_gather).  0, or -1 with why. */
struct engine_ns;
int policy_exec_limits_judge (const struct guard_config *cfg, const struct engine_ns *ns,
                              struct jv *process, kg_error_t *err);
/* runc exec (OCI mode): PROCESS's selinuxLabel by a start's policy.labels
   ([policy] selinux_types), or with APPARMOR its apparmorProfile by a
   start's policy.confinement ([policy] apparmor_profiles).  0, or -1 with
   why. */
int policy_exec_label_judge (const struct guard_config *cfg, struct jv *process, bool apparmor,
                             kg_error_t *err);
/* runc update (OCI mode): RESOURCES, in the spec's linux.resources shape
   (the flags already folded in), may not lift the memory limit (with
   require_memory_limit), nor set one above [policy] max_vm_memory_mib or a
   CPU quota above [policy] max_vcpus, nor name cpu.cpus or cpu.mems a
   start's policy.resources refuses (NS's online lists); RDT, when not
   NULL, names what asks for a resctrl group (refused unless [policy]
   intel_rdt).  0, or -1 with why. */
int policy_update_judge (const struct guard_config *cfg, const struct engine_ns *ns,
                         struct jv *resources, const char *rdt, kg_error_t *err);

/* policy.capacity's bound on the memory all guarded VMs alive may
   commit, *MAX MiB, and where it comes from, into WHY: [policy]
   max_committed_memory_mib, else MemTotal less
   committed_memory_reserve_mib.  0, or -1 with why. */
int policy_committed_bound (const struct guard_config *cfg, int64_t *max, char *why, size_t size,
                            kg_error_t *err);

/* The privileged requests policy.hooks and policy.namespaces make on
   SPEC, each by the test it asks by (request-list.h's ASKS): the parent's
   budget of each kind. */
size_t policy_hooks_asks (struct jv *spec);      /* policy-hooks.c */
size_t policy_namespaces_asks (struct jv *spec); /* policy-identity.c */

#endif
