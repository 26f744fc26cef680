/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guard's own configuration (kata-guard.toml(5)).  Strict: an unknown
 * table or key, a wrong type or an out-of-range value is an error, because a
 * typo must never switch a check off.  Keys left out take their defaults,
 * and every default is the safe setting.
 */
#ifndef KG_CONF_H
#define KG_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <regex.h>

#include "error.h"

#define KG_CONFIG_ENV "KATA_GUARD_CONFIG"
/* The real shim v2 runtime when the configuration names none. */
#define KG_DEFAULT_RUNTIME_SHIM "/opt/kata/bin/containerd-shim-kata-v2"

struct sockaddr_storage;

/* [egress] deny_statuses holds at most this many. */
#define CONF_MAX_STATUSES 8

/* What an SELinux type name is made of ([policy] selinux_types, and the
   type of a spec's label, policy.labels): the policy language's
   identifiers, without the '.' of a namespaced CIL name. */
#define SELINUX_TYPE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* [assets.sha256]: "/path" = "64 hex digits" */
struct sha256_pin
{
  char *path;
  char *hex; /* lower case */
};

struct guard_config
{
  char *path; /* the file this was read from */
  struct
  {
    char *shim;          /* the real shim v2 runtime */
    char *oci;           /* the real runc-style runtime; "" = OCI mode refuses */
    bool oci_vm;         /* the operator says oci runs every container in a VM */
    int64_t deadline_ms; /* the confined checker's whole run, then refuse */
  } runtime;
  struct
  {
    char *device;
    bool create_vm;
  } kvm;
  struct
  {
    char *config; /* "" = Kata's own search order */
    char
        *runtime; /* which Kata runtime reads it: "auto" (by the shim's path), "go", "runtime-rs" */
    char **hypervisors;
    size_t n_hypervisors;
  } kata;
  struct
  {
    bool enabled;
    char *proxy; /* "IP:port" or "[IPv6]:port"; "" = not set */
    int64_t timeout_ms;
    char *probe_host;      /* "" = a fresh name under .invalid for every probe */
    int64_t expect_status; /* 0 = not set; else the one status that means denied */
    int64_t deny_statuses[CONF_MAX_STATUSES]; /* the statuses that mean denied */
    size_t n_deny_statuses;
    char **networks; /* the internal networks a container may be on; none: the proxy's */
    size_t n_networks;
  } egress;
  struct
  {
    char **extra; /* further files that must be immutable */
    size_t n_extra;
    struct sha256_pin *pins;
    size_t n_pins;
  } assets;
  struct
  {
    bool syslog;
    char *file; /* JSON decision log; "" = none */
  } log;
  /* [policy]: what a container's config.json may ask for (kata-guard(8),
     CHECKS, Per-container policy). */
  struct
  {
    bool host_namespaces;
    bool privileged;
    char **capabilities; /* "CAP_*" names libcap knows */
    size_t n_capabilities;
    char **devices; /* host device paths */
    size_t n_devices;
    char **deny_mounts; /* extra bind sources refused even read-only */
    size_t n_deny_mounts;
    char **writable_mounts; /* directories a writable bind may come from */
    size_t n_writable_mounts;
    char **engine_roots; /* where the engine keeps per-container files */
    size_t n_engine_roots;
    char **podman_roots; /* podman's storage roots (graph root, run root) */
    size_t n_podman_roots;
    char **containerd_roots; /* containerd's root and state (CRI's pod files) */
    size_t n_containerd_roots;
    char **kubelet_roots; /* the kubelet's root directory (its pod files) */
    size_t n_kubelet_roots;
    char **cri_namespaces; /* containerd namespaces whose CRI annotations count */
    size_t n_cri_namespaces;
    char **cgroup_parents; /* where a linux.cgroupsPath may put the container (policy.resources) */
    size_t n_cgroup_parents;
    char **hooks; /* programs an OCI hook may run */
    size_t n_hooks;
    char **selinux_types; /* SELinux types a process.selinuxLabel may name */
    size_t n_selinux_types;
    char **apparmor_profiles; /* fnmatch(3) patterns of allowed process.apparmorProfile */
    size_t n_apparmor_profiles;
    char **annotations; /* regexes (as written) of allowed io.katacontainers.* names */
    size_t n_annotations;
    regex_t *annotation_res; /* the same, compiled as ^(...)$ */
    size_t n_annotation_res;
    bool require_memory_limit;
    int64_t max_vm_memory_mib; /* 0 = this host's MemTotal */
    int64_t max_vcpus;
    int64_t min_oom_score_adj; /* OCI mode: the lowest process.oomScoreAdj */
    bool intel_rdt;            /* OCI mode: linux.intelRdt allowed */
    /* policy.capacity: the memory all guarded VMs alive may commit, MiB;
       0 = MemTotal less COMMITTED_MEMORY_RESERVE_MIB. */
    int64_t max_committed_memory_mib;
    int64_t committed_memory_reserve_mib;
    bool require_seccomp;
    char *mode; /* "enforce", or "audit": policy.* refusals logged, not enforced */
  } policy;
  /* [drift]: the posture record of `kata-guard validate` and whether a
     start must match it (kata-guard(8), DRIFT). */
  struct
  {
    bool lock;
    bool require_proof; /* a record without a passing proof refuses */
    char *record;       /* the posture record's path */
    char **files;       /* more files whose change is a change of the sandbox */
    size_t n_files;
  } drift;
  /* [docker]: what the audit of `kata-guard check` reads (docker.*). */
  struct
  {
    char *daemon_json;
  } docker;
  /* [cri]: the node's CRI, asked whether it serves the guard's runtime
     handler (cri.handler; kata-guard(8), CHECKS). */
  struct
  {
    char *endpoint; /* the CRI socket's path; "" = no CRI: cri.handler skips */
    char *handler;  /* the runtime handler (a RuntimeClass's handler) */
  } cri;
  /* [nfd]: the Node Feature Discovery feature file a start rewrites to
     posture=fail when a host check refuses it (kata-guard(8), Node labels). */
  struct
  {
    char *file; /* "" = none */
  } nfd;
  /* [storage]: where storage.* reads containerd's configuration, and how
     full its devmapper thin pool may be (kata-guard(8), Storage). */
  struct
  {
    char *containerd_config;
    int64_t pool_data_max_percent;
    int64_t pool_metadata_max_percent;
  } storage;
};

/* Where containerd reads its configuration unless told otherwise. */
#define KG_CONTAINERD_CONFIG_DEFAULT "/etc/containerd/config.toml"

/* The runtime handler kata-guard install registers unless named. */
#define KG_CRI_HANDLER_DEFAULT "kata-guard"

/* The guard's own state directory, and where `kata-guard validate` keeps
   the posture record in it ([drift] record). */
#define KG_STATE_DIR "/var/lib/kata-guard"
#define KG_POSTURE_RECORD_DEFAULT KG_STATE_DIR "/posture.json"

/* The file to read: KATA_GUARD_CONFIG when set and not empty, else
   SYSCONFDIR/kata-guard/config.toml. */
const char *guard_config_default_path (void);

/* The remedy of a guard configuration that does not load (the "config"
   failure of a start, in the parent and in the checker alike). */
#define GUARD_CONFIG_REMEDY                                                                        \
  "fix the guard configuration (kata-guard check shows the same error); see "                      \
  "kata-guard.toml(5)"

/* Read and validate PATH.  Errors read "PATH:LINE: [table] key: what". */
int guard_config_load (const char *path, struct guard_config *cfg, kg_error_t *err);
/* CFG with every key at its default, as an empty file would give. */
int guard_config_defaults (struct guard_config *cfg, kg_error_t *err);
/* Validate and apply an already parsed document (NAME for messages). */
struct toml_value;
int guard_config_from_toml (const char *name, const struct toml_value *doc,
                            struct guard_config *cfg, kg_error_t *err);
/* Frees what CFG holds and zeroes it: safe on a zeroed or released one,
   so cleanup_guard_config may hold a variable from its declaration. */
void guard_config_release (struct guard_config *cfg);
#define cleanup_guard_config __attribute__ ((cleanup (guard_config_release)))

/* Parse a literal "IPv4:port" or "[IPv6]:port" (no names: nothing is
   resolved).  On success fills SS and *LEN. */
/* A network of [egress] networks, "ADDR/PREFIX", IPv4 or IPv6. */
struct conf_net
{
  uint8_t family, prefix;
  uint8_t addr[16];
};
/* S as such a network into *OUT; -1 when it is not one. */
int conf_parse_cidr (const char *s, struct conf_net *out);

int conf_parse_endpoint (const char *s, struct sockaddr_storage *ss, unsigned *len,
                         kg_error_t *err);

/* Compile an [policy] annotations regex so that it must match a whole
   annotation name: ^(RE)$, POSIX extended. */
int conf_compile_annotation_re (const char *re, regex_t *out, kg_error_t *err);

/* The hypervisor table names Kata knows ([hypervisor.NAME]). */
bool kata_hypervisor_known (const char *name);
/* NAME is a containerd namespace name. */
bool conf_valid_namespace (const char *name);
bool conf_valid_cgroup_parent (const char *s);

#endif
