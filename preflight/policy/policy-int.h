/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the per-container rules share (policy.c, policy-*.c,
   egress-netns.c).  Private to them: nothing else includes it. */
#ifndef KG_POLICY_INT_H
#define KG_POLICY_INT_H

#include <json-c/json.h>

#include "jtree.h"
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/capability.h>
#include <sys/stat.h>

#include "buf.h"
#include "checks.h"
#include "error.h"
#include "request.h"

/* One finding of a rule: counted (the verdict) and listed (the reason). */
struct findings
{
  struct kg_buf text;
  size_t n;
  /* policy.mounts: a directory holding a containers/<this id>/ of the
     engine's (Docker's per-container files) that a writable bind was
     refused under: the engine's data root, not in [policy] engine_roots
     (the remedy names that key, never writable_mounts); or NULL. */
  char *engine_root;
};

#define cleanup_findings __attribute__ ((cleanup (findings_release)))

#define MAX_SYMLINKS 40

/* What a resolution with FOLLOW learned of its result: EXISTS when every
   component exists; then, with HAVE_ST, ST is the last component's lstat
   (the result holds no symlink, so it is its stat too). */
struct resolved_info
{
  bool exists;
  bool have_st; /* st: the resolved path's lstat, not a symlink */
  bool absent;  /* the resolved path's own lstat failed with ENOENT */
  struct stat st;
};

/* The bind sources of one spec mostly share their directory (Docker's
   per-container files, a volume's files): resolve_path with FOLLOW through
   a memo of the last directory resolved, so that each source costs one
   lstat of its own name.  Anything but a plain last name, a last name
   that is a symlink, or a directory that does not resolve goes the whole
   way, so results and messages are resolve_path's. */
struct resolve_memo
{
  char *dir;      /* the directory as written, absolute */
  char *resolved; /* resolve_path of it */
  bool exists;    /* every component of it exists */
  /* RESOLVED opened O_PATH, where it could be: a source's lstat is then
     of one name in it, not a walk from the root again. */
  bool have_fd;
  int fd;
};

#define cleanup_resolve_memo __attribute__ ((cleanup (resolve_memo_release)))

enum ns_kind
{
  NS_NET,
  NS_PID,
  NS_IPC,
  NS_UTS,
  NS_COUNT,
};

/* What a container asked its engine for, named in the engine's words by
   engine_words for a remedy. */
enum ask
{
  ASK_MEMORY,
  ASK_CPUS,
  ASK_PRIVILEGED,
  ASK_CAP_ADD,
  ASK_DEVICE,
  ASK_HOST_NS,
  ASK_JOIN,
  ASK_UNCONFINED,
  ASK_SELINUX,
  ASK_READONLY,
  ASK_N,
};

struct who
{
  enum engine engine;
  char ns[80]; /* the containerd namespace, or "" */
  /* ENGINE_DOCKER: the engine root whose containers/<id>/config.v2.json
     names this id (Docker's own record of the container), or NULL. */
  const char *docker_root;
  /* ENGINE_PODMAN, ENGINE_CRIO: the containers/storage root and graph
     driver of the bundle. */
  const char *podman_root;
  char podman_driver[32];
  /* ENGINE_PODMAN, ENGINE_CRIO: the layer of the container's storage
     record (its rootfs is the graph driver's mount of it), or "". */
  char layer[72];
  /* ENGINE_CRIO: the pod of CRI-O's storage record ("pod-id"), whether
     this is its sandbox, and when the pod holds together (the sandbox's
     own record names itself, with the pod uid) that uid. */
  char pod_id[72], pod_uid[72];
  bool pod_sandbox, pod_ok;
  /* ENGINE_CRIO: the container's name and its pod's name and namespace,
     as CRI-O's records hold them (Kata reads the annotations of these). */
  char crio_name[256], kube_name[256], kube_ns[256];
};

struct ctx
{
  struct preflight *pf;
  const struct guard_config *cfg;
  struct report *rep;
  const char *bundle;
  struct jv *spec;
  struct engine_ns ns;
  /* ---- facts_resolve's, before every rule; no rule changes any ---- */
  bool privileged;            /* the spec is --privileged (spec_privileged) */
  const char *privileged_why; /* its reasons, "" when it is not */
  /* Each namespace kind's one linux.namespaces entry with a path, as
     stat(2) (through the parent's answer) found it: ASKED, then ERR (0
     or an errno), whether it is the host's, and the process PID its
     /proc path names. */
  struct ns_seen
  {
    bool asked;
    int err;
    bool host; /* the engine's own (the host's) namespace */
    unsigned long pid;
  } ns_seen[NS_COUNT];
  /* The process whose network / pid / ipc namespace the container joins
     (a /proc/PID/ns path of a namespace that is not the host's), or 0. */
  unsigned long joined_pid[NS_COUNT];
  /* The [policy] directories, resolved once (check_policy); when
     dirs->ok is false, DIRS_ERR says why. */
  const struct mount_dirs *dirs;
  const struct kg_error *dirs_err;
  /* Whether this is a CRI pod's container (its sandbox id and pod uid). */
  bool pod;
  const char *pod_sid, *pod_uid;
  struct who who;   /* who_resolve */
  const char *rule; /* the rule running (check_policy's rules[]): its report lines' id */
};

/* A rule's report lines, under the id its row in rules[] (policy-rules.c)
   gives it: a rule cannot report under another's. */
#define rule_pass(c, ...) report_pass ((c)->rep, (c)->rule, __VA_ARGS__)
#define rule_fail(c, remedy, ...) report_fail ((c)->rep, (c)->rule, (remedy), __VA_ARGS__)
#define rule_skip(c, ...) report_skip ((c)->rep, (c)->rule, __VA_ARGS__)

/* Resolved once per run: the configured directories, with symlinks
   followed as far as they exist. */
struct dirs
{
  char **paths;
  size_t n;
};

#define cleanup_dirs __attribute__ ((cleanup (dirs_release)))

/* The [policy] directories the per-container rules judge by, resolved
   once per start (check_policy). */
struct mount_dirs
{
  struct dirs roots, podman, ctd, kubelet, extra, writable;
  /* The guard's own: its state directories whole, and its files (the
     posture record, the decision log, the configuration) with what is
     written beside them under their names (mount_dirs_resolve). */
  struct dirs guard_dirs, guard_files;
  bool ok;       /* every list resolved */
  bool roots_ok; /* engine_roots resolved (the first list), whatever came after */
};

#define cleanup_mount_dirs __attribute__ ((cleanup (mount_dirs_release)))

/* Where an engine keeps the per-container files it binds writable into
   the container: ROOT/[DRIVER-]containers/ID/SUB/FILE. */
struct own_layout
{
  bool driver;     /* "<driver>-containers" (podman's graph driver) */
  const char *sub; /* "" or the directory below the container's */
  const char *const *files;
  size_t n_files;
};

/* containers/storage's records (podman's and CRI-O's storage):
   <root>/<driver>-containers/containers.json and volatile-containers.json
   (podman run --rm, a transient store) of every store of [policy]
   podman_roots (the graph root keeps the stable records, the run root the
   volatile ones), each read once per start.  A file that cannot be read
   holds no record. */
struct storage
{
  struct jv **docs;
  size_t n;
};

#define cleanup_storage __attribute__ ((cleanup (storage_release)))

/* Docker's containerd namespace (moby's daemon ContainersNamespace). */
#define DOCKER_NAMESPACE "moby"

/* containerd's v2 task state: <state>/io.containerd.runtime.v2.task/<ns>/<id>. */
#define TASK_DIR "io.containerd.runtime.v2.task"

/* CRI-O's metadata of one storage record (CRI-O's
   RuntimeContainerMetadata, a JSON document in a string: podman's and
   buildah's have no "pod-id"). */
struct crio_meta
{
  char pod_id[72];     /* "pod-id" */
  char uid[72];        /* "uid" (sandboxes), or "" */
  char name[256];      /* "name": the container's, io.kubernetes.cri-o.ContainerName */
  char kube_name[256]; /* "metadata-name": a sandbox's pod name (KubeName) */
  char kube_ns[256];   /* "namespace": a sandbox's pod namespace */
  bool sandbox;        /* "pod": true, and the pod id is its own */
};

enum own
{
  OWN_NOT,      /* not this container's or pod's */
  OWN_ANY,      /* the engine's file of this container: bound as the engine binds it */
  OWN_READONLY, /* the same, which the engine binds read-only */
};

/* redirectable () of many sources in one directory (Docker's and the
   kubelet's layouts) walks that directory once: once it is known that
   nobody but root can change what is in it, an entry below it that is
   not a symlink, or is not there, is judged; a symlink is walked. */
struct redirect_memo
{
  char dir[PATH_MAX]; /* the parent last judged, or "" */
  bool dir_ok;        /* it passed (as an existing or a missing directory) */
  bool dir_exists;
};

/* The words of a mount's options OPTS that the rules read, in one pass:
   whole strings only ("ro=x" or "nosuid,ro" are not "ro" to every
   runtime).  With F, each option that is no string is a finding of the
   mount of source S. */
enum mount_option_word
{
  OPT_RO = 1 << 0,
  OPT_RW = 1 << 1,
  OPT_RRO = 1 << 2, /* the recursive read-only of runc 1.1 and crun 1.4 */
  OPT_RRW = 1 << 3,
  OPT_BIND = 1 << 4,   /* "bind" or "rbind" */
  OPT_SHARED = 1 << 5, /* "shared" or "rshared" */
  OPT_IDMAP = 1 << 6,  /* "idmap" or "ridmap" */
};
unsigned mount_option_words (struct jv *opts, const char *s, struct findings *f);

/* denied () of the bind sources that share a directory: when nothing
   denies the directory itself (no pattern above it, none in it, no
   refused name on the way), a path in it is denied only for its own
   last name (credential_component).  The directory is judged at its
   second source, so that sources in directories of their own cost
   nothing more. */
struct deny_memo
{
  char dir[PATH_MAX]; /* the directory of the last source judged, or "" */
  int clear;          /* 1: nothing denies it, -1: something does, 0: not judged */
};

enum bind_verdict
{
  BIND_REFUSED, /* a finding was made */
  BIND_NOT_RO,  /* a finding: writable outside writable_mounts, which read-only would pass */
  BIND_ENGINE,  /* a file the engine made for this container */
  BIND_READONLY,
  BIND_WRITABLE, /* under [policy] writable_mounts */
};

struct host_dev
{
  bool ok;
  char type;
  unsigned maj, min;
};

/* Which runtime applies an annotation whatever enable_annotations says. */
enum
{
  UNGATED_GO = 1 << 0,  /* the Go shim, 3.30.0 and 4.1.0 alike */
  UNGATED_RS = 1 << 1,  /* runtime-rs 4.1.0 (3.30.0 too, but for cdh_api_timeout_ms) */
  UNGATED_RS3 = 1 << 2, /* runtime-rs 3.30.0 alone */
};

/* The annotations by which Kata places a container in a pod, sizes the
   pod's VM or reaches into the node for it (CRIContainerTypeKeyList and
   CRISandboxNameKeyList in src/runtime/pkg/oci/utils.go, containerd's
   sandbox-* sizing keys, the pod's name and namespace by which
   device_cold_plug.go asks the kubelet for a pod's devices, the
   termination message path container.go writes back to the host), each
   with the engines that write it: containerd's CRI its own, the kubelet's
   through containerd's CRI or CRI-O, CRI-O its own and podman four of
   CRI-O's (for the members of its pods), and nothing writes dockershim's
   any more.  CDI device names make Kata inject host devices: no engine's
   claim (policy.devices judges devices). */
#define OWNER(e) (1u << (e))

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

/* REACH says what a spec that a rule refuses would reach, and so whether
   [policy] mode = "audit" may let it through (policy_rule_in_vm): only
   what stays inside the container's own VM (the limit on its memory
   inside the guest, its capabilities and seccomp filter there, its
   masks and mount namespace in the guest kernel).  What reaches the
   host (its devices, files, namespaces, hooks that run there, Kata's own
   configuration, the SELinux label Kata gives its hypervisor and
   virtiofsd there), another container or its VM, the egress or the
   count of the host's memory is enforced in audit mode too.  A rule's
   reach is that of the strongest effect of what it judges: a field Kata
   applies on the host as well as in the guest belongs to a REACH_HOST
   rule (process.selinuxLabel: policy.labels, not policy.confinement). */
enum rule_reach
{
  REACH_HOST, /* the host, another container, the egress or the count */
  REACH_VM,   /* only the container's own VM */
};

/* The rules, in the order they report (policy-rules.c runs them):
   privileged first, so that a --privileged refusal leads with that.  A
   row is NAME (the rule is check_NAME, of a const struct ctx, in the unit
   of its topic), its id and its reach.  Adding a rule takes two places:
   its function and its row here.  Each reports only under its own id
   (c->rule), and each is skipped when policy.spec fails. */
#define POLICY_RULES(X)                                                                            \
  X (privileged, "policy.privileged", REACH_HOST)                                                  \
  X (namespaces, "policy.namespaces", REACH_HOST)                                                  \
  X (identity, "policy.identity", REACH_HOST)                                                      \
  X (mounts, "policy.mounts", REACH_HOST)                                                          \
  X (capabilities, "policy.capabilities", REACH_VM)                                                \
  X (devices, "policy.devices", REACH_HOST)                                                        \
  X (hooks, "policy.hooks", REACH_HOST)                                                            \
  X (annotations, "policy.annotations", REACH_HOST)                                                \
  X (seccomp, "policy.seccomp", REACH_VM)                                                          \
  X (memory_limit, "policy.memory_limit", REACH_VM)                                                \
  X (resources, "policy.resources", REACH_HOST)                                                    \
  X (labels, "policy.labels", REACH_HOST)                                                          \
  X (confinement, "policy.confinement", REACH_VM)                                                  \
  X (egress_netns, "egress.netns", REACH_HOST)

#define POLICY_RULE_DECLARE(name, rule_id, rule_reach) void check_##name (const struct ctx *c);
POLICY_RULES (POLICY_RULE_DECLARE)
#undef POLICY_RULE_DECLARE

/* ---- what one unit defines and another calls ---- */

extern const char *const ns_proc[];
extern const char *const ns_types[];

uint64_t allowed_caps (const struct guard_config *cfg);
const char *annotation (const struct ctx *c, const char *name);
const char *below (const char *p, const char *root);
bool apparmor_profile_allowed (const struct guard_config *cfg, const char *profile);
/* PROCESS's selinuxLabel (the label, or NULL when none or "") judged by
   [policy] selinux_types, a finding that ends in EFFECT when it is not
   one; its apparmorProfile by [policy] apparmor_profiles.  A start's
   process (policy.labels, policy.confinement) and runc exec's
   process.json alike. */
const char *process_label (const struct guard_config *cfg, struct jv *process, const char *effect,
                           struct findings *f);
void process_apparmor (const struct guard_config *cfg, struct jv *process, struct findings *f);
bool cap_parse (const char *name, cap_value_t *v);
void cap_upper (cap_value_t v, char *out, size_t size);
bool cri_pod (const struct ctx *c, const char **sandbox_id, const char **pod_uid);
const char *denied (const char *p, const struct mount_dirs *d, const char **entry);
bool device_rule_allows_all (struct jv *rule);
void dirs_release (struct dirs *d);
int dirs_resolve (char *const *list, size_t n, struct dirs *d, kg_error_t *err);
bool docker_start (const struct ctx *c);
struct jv *engine_json (const char *path);
struct jv *engine_json_of (const char *path, bool array);
const char *engine_name (const struct who *w);
const char *engine_words (const struct who *w, enum ask a);
bool selinux_context_judge (const char *label, const char *role, const char *const *types,
                            size_t n_types, const char *list, char *why, size_t size);
__attribute__ ((format (printf, 2, 3))) void finding (struct findings *f, const char *fmt, ...);
void findings_release (struct findings *f);
void host_limits (const struct ctx *c, struct findings *f);
/* The pieces of host_limits, for every entry point that hands the runtime
   the same fields (a start's config.json; runc exec's process.json and
   runc update's resources, policy-runc.c): cpu.cpus and cpu.mems of CPU
   (a linux.resources.cpu object, or NULL) against NS's online lists;
   PROCESS's oomScoreAdj against CFG and rlimits against NS's hard limits;
   a resctrl group (WHAT asks for it) unless [policy] intel_rdt. */
void limits_cpuset (const struct engine_ns *ns, struct jv *cpu, struct findings *f);
void limits_process (const struct guard_config *cfg, const struct engine_ns *ns, struct jv *process,
                     struct findings *f);
void limits_intel_rdt (const struct guard_config *cfg, const char *what, struct findings *f);
bool is_crio_sandbox (const struct ctx *c);
bool is_pod_member (const struct ctx *c);
bool is_pod_sandbox (const struct ctx *c);
struct jv *jget (struct jv *obj, const char *where, const char *key, struct findings *f);
struct jv *jget_type (struct jv *obj, const char *where, const char *key, json_type type,
                      struct findings *f);
struct jv *json_parse_strict (const char *name, const char *buf, size_t len, bool spec_keys,
                              kg_error_t *err);
enum own kubelet_file (const struct ctx *c, const char *p, const struct dirs *roots);
bool listed (struct jv *list, const char *path);
int64_t mib_ceil (int64_t bytes);
void mount_dirs_release (struct mount_dirs *d);
int mount_dirs_resolve (const struct guard_config *cfg, struct mount_dirs *d, kg_error_t *err);
bool path_under (const char *p, const char *dir);
bool pod_of (const struct ctx *c, const char **sandbox_id, const char **pod_uid);
int resolve_memo (struct resolve_memo *m, const char *base, const char *path, char **out,
                  struct resolved_info *ri, kg_error_t *err);
void resolve_memo_release (struct resolve_memo *m);
void storage_release (struct storage *st);
const char *under_root (const char *p, const struct dirs *roots);
void who_resolve (struct ctx *c);
/* What the rules judge by, computed once before the first (check_policy):
   who_resolve, then whether the spec is privileged, each namespace path's
   identity and the process it joins, and the CRI pod.  Every rule then
   gets a context it cannot change, so that their order decides nothing. */
/* PRIVILEGED (the caller's, as long as C lives) holds the reasons. */
void facts_resolve (struct ctx *c, struct findings *privileged);
/* Every rule of POLICY_RULES on C's spec (policy-rules.c). */
void policy_rules_run (struct ctx *c);
bool spec_privileged (const struct ctx *c, struct findings *f);

#endif
