/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every per-container rule shares (policy.c, policy-*.c,
   egress-netns.c): the context a rule is given, its findings and report
   lines, the table of rules, and the helpers by which each reads the spec
   (policy.c) and the facts each judges by (policy-facts.c).  What one
   rule lends to a few others is in that rule's own header
   (policy-mounts.h, policy-labels.h, ...).  Private to them: nothing
   else includes it. */
#ifndef KG_POLICY_INT_H
#define KG_POLICY_INT_H

#include <json-c/json.h>

#include "jtree.h"
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "checks.h"
#include "error.h"
#include "request.h"

/* A rule's findings: counted (the verdict) and listed (the reason): the
   first eight in TEXT, joined by "; ", then "; and N more"
   (policy_finding). */
struct policy_findings
{
  struct kg_buf text;
  size_t n;
  size_t shown_len; /* TEXT's length after the last finding shown */
  /* policy.mounts: a directory holding a containers/<this id>/ of the
     engine's (Docker's per-container files) that a writable bind was
     refused under: the engine's data root, not in [policy] engine_roots
     (the remedy names that key, never writable_mounts); or NULL. */
  char *engine_root;
};

#define cleanup_policy_findings __attribute__ ((cleanup (policy_findings_release)))
void policy_findings_release (struct policy_findings *f);
__attribute__ ((format (printf, 2, 3))) void policy_finding (struct policy_findings *f,
                                                             const char *fmt, ...);

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
enum policy_ask
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

struct policy_who
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

struct policy_ctx
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
  /* The [policy] directories, resolved once (policy_rules_run); when
     dirs->ok is false, DIRS_ERR says why. */
  const struct mount_dirs *dirs;
  const struct kg_error *dirs_err;
  /* Whether this is a CRI pod's container (its sandbox id and pod uid). */
  bool pod;
  const char *pod_sid, *pod_uid;
  struct policy_who who; /* who_resolve */
  const char *rule;      /* the rule running (policy_rules_run's rules[]): its report lines' id */
};

/* A rule's report lines, under the id its row in rules[] (policy-rules.c)
   gives it: a rule cannot report under another's. */
#define rule_pass(c, ...) report_pass ((c)->rep, (c)->rule, __VA_ARGS__)
#define rule_fail(c, remedy, ...) report_fail ((c)->rep, (c)->rule, (remedy), __VA_ARGS__)
#define rule_skip(c, ...) report_skip ((c)->rep, (c)->rule, __VA_ARGS__)

/* Resolved once per run: the configured directories, with symlinks
   followed as far as they exist. */
struct dir_list
{
  char **paths;
  size_t n;
};

/* The [policy] directories the per-container rules judge by, resolved
   once per start (policy_rules_run). */
struct mount_dirs
{
  struct dir_list roots, podman, ctd, kubelet, extra, writable;
  /* The guard's own: its state directories whole, and its files (the
     posture record, the decision log, the configuration) with what is
     written beside them under their names (mount_dirs_resolve). */
  struct dir_list guard_dirs, guard_files;
  bool ok;       /* every list resolved */
  bool roots_ok; /* engine_roots resolved (the first list), whatever came after */
};

/* The rules, in the order they report (policy-rules.c runs them):
   privileged first, so that a --privileged refusal leads with that.  A
   row is NAME (the rule is check_NAME, of a const struct policy_ctx, in the unit
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

#define POLICY_RULE_DECLARE(name, rule_id, rule_reach)                                             \
  void check_##name (const struct policy_ctx *c);
POLICY_RULES (POLICY_RULE_DECLARE)
#undef POLICY_RULE_DECLARE

/* ---- policy.c: reading the spec and the engines' files ------------- */

extern const char *const ns_proc[];
extern const char *const ns_types[];

struct jv *policy_jget (struct jv *obj, const char *where, const char *key,
                        struct policy_findings *f);
struct jv *policy_jget_type (struct jv *obj, const char *where, const char *key, json_type type,
                             struct policy_findings *f);
bool policy_list_has (struct jv *list, const char *path);
const char *policy_annotation (const struct policy_ctx *c, const char *name);
bool path_under (const char *p, const char *dir);
const char *path_below (const char *p, const char *root);
struct jv *json_parse_strict (const char *name, const char *buf, size_t len, bool spec_keys,
                              kg_error_t *err);
struct jv *engine_json (const char *path);
struct jv *engine_json_of (const char *path, bool array);

/* ---- policy-facts.c: what every rule judges by ----------------------- */

/* What the rules judge by, computed once before the first
   (policy_rules_run): who started the container, then whether the spec
   is privileged, each namespace path's identity and the process it
   joins, and the CRI pod.  Every rule then gets a context it cannot
   change, so that their order decides nothing.  PRIVILEGED (the
   caller's, as long as C lives) holds the reasons. */
void facts_resolve (struct policy_ctx *c, struct policy_findings *privileged);
const char *engine_name (const struct policy_who *w);
const char *engine_words (const struct policy_who *w, enum policy_ask a);
bool docker_start (const struct policy_ctx *c);
bool cri_pod (const struct policy_ctx *c, const char **sandbox_id, const char **pod_uid);
bool pod_of (const struct policy_ctx *c, const char **sandbox_id, const char **pod_uid);
bool is_crio_sandbox (const struct policy_ctx *c);
bool is_pod_member (const struct policy_ctx *c);
bool is_pod_sandbox (const struct policy_ctx *c);
bool device_rule_allows_all (struct jv *rule);

/* ---- policy-rules.c: the rules' table -------------------------------- */

/* Every rule of POLICY_RULES on C's spec. */
void policy_rules_run (struct policy_ctx *c);

#endif
