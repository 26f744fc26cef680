/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.privileged, policy.namespaces and policy.identity: what the
 * container asks to share with the host, and whose start it is (the
 * engine and the pod facts_resolve found, policy-facts.c) with nothing
 * the spec claims beyond it.
 */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonscan.h"
#include "kata.h"
#include "policy.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "policy-int.h"
#include "policy-mounts.h"
/* ---- policy.privileged ---------------------------------------------- */

void
check_privileged (const struct policy_ctx *c)
{
  struct jv *linux_ = NULL, *seccomp = NULL;
  const char *no_seccomp;
  char remedy[256];

  if (! c->privileged)
    {
      rule_pass (c, "not a privileged container");
      return;
    }
  jv_get_ex (c->spec, "linux", &linux_);
  if (linux_ != NULL)
    jv_get_ex (linux_, "seccomp", &seccomp);
  no_seccomp = seccomp == NULL ? "; no seccomp profile" : "";
  if (c->cfg->policy.privileged)
    {
      rule_pass (c, "privileged container (%s%s), allowed by [policy] privileged = true",
                 c->privileged_why, no_seccomp);
      return;
    }
  snprintf (remedy, sizeof remedy,
            "run the container without %s (add only the capabilities and devices it needs), or "
            "set [policy] privileged = true",
            engine_words (&c->who, ASK_PRIVILEGED));
  rule_fail (c, remedy, "privileged container: %s%s", c->privileged_why, no_seccomp);
}

/* ---- policy.namespaces ---------------------------------------------- */

void
check_namespaces (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  cleanup_kg_buf struct kg_buf ok = { 0 };
  struct jv *linux_, *list;
  size_t n_host = 0, n_unreadable = 0, n_join = 0;
  char remedy[256];

  linux_ = policy_jget_type (c->spec, "spec", "linux", json_type_object, &f);
  list = policy_jget_type (linux_, "linux", "namespaces", json_type_array, &f);
  for (int k = 0; k < NS_COUNT; k++)
    {
      struct jv *entry = NULL, *path;
      size_t seen = 0;

      for (size_t i = 0; list != NULL && i < jv_length (list); i++)
        {
          struct jv *e = jv_at (list, i);
          struct jv *t;
          cleanup_policy_findings struct policy_findings tf = { 0 };

          if (! jv_is_type (e, json_type_object))
            {
              if (k == 0)
                policy_finding (&f, "linux.namespaces[%zu] is %s, not an object", i, jv_kind (e));
              continue;
            }
          t = policy_jget_type (e, "namespace", "type", json_type_string, k == 0 ? &f : &tf);
          if (t != NULL && strcmp (jv_string (t), ns_types[k]) == 0)
            {
              entry = e;
              seen++;
            }
        }
      if (seen > 1)
        {
          policy_finding (&f, "%s namespace listed %zu times", ns_types[k], seen);
          continue;
        }
      if (entry == NULL)
        {
          n_host++;
          if (c->cfg->policy.host_namespaces)
            sb_printf (&ok, "%shost %s namespace allowed", ok.len ? ", " : "", ns_types[k]);
          else
            policy_finding (&f, "no %s namespace: the container would share the host's",
                            ns_types[k]);
          continue;
        }
      path = policy_jget (entry, "namespace", "path", &f);
      if (path == NULL)
        {
          sb_printf (&ok, "%snew %s namespace", ok.len ? ", " : "", ns_types[k]);
          continue;
        }
      if (! jv_is_type (path, json_type_string))
        {
          policy_finding (&f, "%s namespace path is %s, not a string", ns_types[k], jv_kind (path));
          continue;
        }
      {
        const char *p = jv_string (path);
        const struct ns_id *self = &c->ns.self[k];
        const struct ns_seen *known = &c->ns_seen[k];

        if (! known->asked || known->err != 0)
          {
            policy_finding (&f, "%s namespace %s cannot be checked: %s%s", ns_types[k], p,
                            strerror (known->asked ? known->err : EINVAL),
                            known->pid ? " (the process it names is gone, or not a container's)"
                                       : "");
            n_unreadable++;
            continue;
          }
        if (! self->ok)
          {
            policy_finding (&f, "%s namespace %s cannot be compared: /proc/self/ns/%s: %s",
                            ns_types[k], p, ns_proc[k], strerror (self->error));
            continue;
          }
        if (known->host)
          {
            n_host++;
            if (c->cfg->policy.host_namespaces)
              sb_printf (&ok, "%shost %s namespace %s allowed", ok.len ? ", " : "", ns_types[k], p);
            else
              policy_finding (&f, "%s namespace %s is the engine's own (the host's)", ns_types[k],
                              p);
            continue;
          }
        sb_printf (&ok, "%s%s namespace %s", ok.len ? ", " : "", ns_types[k], p);
      }
    }
  /* Kata empties these paths (constrainGRPCSpec: policy.confinement
     judges the guest's); a runc-style runtime setns()es into them on the
     host, whatever it runs after (runc: nsexec.c join_namespaces). */
  for (size_t i = 0; c->pf->req->mode == KG_MODE_OCI && list != NULL && i < jv_length (list); i++)
    {
      static const char *const joined[] = { "user", "mount", "cgroup", "time" };
      struct jv *e = jv_at (list, i), *t, *path;

      if (! jv_is_type (e, json_type_object) || ! jv_get_ex (e, "type", &t)
          || ! jv_is_type (t, json_type_string) || (path = jv_get (e, "path")) == NULL)
        continue;
      for (size_t j = 0; j < ARRAY_SIZE (joined); j++)
        if (strcmp (jv_string (t), joined[j]) == 0)
          {
            policy_finding (&f,
                            "the %s namespace is joined by path (%.128s): the OCI runtime joins it "
                            "on the host",
                            joined[j],
                            jv_is_type (path, json_type_string) ? jv_string (path)
                                                                : jv_kind (path));
            n_join++;
          }
    }
  if (f.n > 0 && f.n == n_join)
    rule_fail (c,
               "give the container its own user, mount, cgroup and time namespaces (no "
               "--userns, --cgroupns or a pod's shared namespace of these kinds), or register "
               "kata-guard as a shim v2 runtime, where Kata makes them anew in the guest",
               "%s", sb_str (&f.text));
  else if (f.n > 0 && f.n == n_unreadable)
    {
      snprintf (remedy, sizeof remedy,
                "join the namespace of a running container (%s), or give the container its own",
                engine_words (&c->who, ASK_JOIN));
      rule_fail (c, remedy, "%s", sb_str (&f.text));
    }
  else if (f.n > 0)
    {
      snprintf (remedy, sizeof remedy,
                "give the container its own network, pid, ipc and uts namespaces (no %s), or "
                "set [policy] host_namespaces = true",
                engine_words (&c->who, ASK_HOST_NS));
      rule_fail (c, remedy, "%s", sb_str (&f.text));
    }
  else
    rule_pass (c, "%s%s", sb_str (&ok), n_host ? " by [policy] host_namespaces = true" : "");
}

/* ---- policy.identity ------------------------------------------------ */

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

static const struct
{
  const char *name;
  bool prefix;
  unsigned owners; /* OWNER (engine)s; 0: no start may carry it */
  const char *owner_name;
} claim_keys[] = {
  { "io.kubernetes.cri.", true, OWNER (ENGINE_CRI),
    "containerd's CRI (in a namespace of [policy] cri_namespaces)" },
  { "io.kubernetes.container.", true, OWNER (ENGINE_CRI) | OWNER (ENGINE_CRIO),
    "the kubelet, through containerd's CRI or CRI-O" },
  { "io.kubernetes.pod.", true, OWNER (ENGINE_CRI) | OWNER (ENGINE_CRIO),
    "the kubelet, through containerd's CRI or CRI-O" },
  { "io.kubernetes.cri-o.ContainerType", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman for its pods" },
  { "io.kubernetes.cri-o.SandboxID", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman for its pods" },
  { "io.kubernetes.cri-o.Created", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman" },
  { "io.kubernetes.cri-o.TTY", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman" },
  { "io.kubernetes.cri-o.", true, OWNER (ENGINE_CRIO),
    "CRI-O (a start whose containers/storage record is CRI-O's)" },
  { "io.kubernetes.docker.type", false, 0, "dockershim (no engine now)" },
  { "io.kubernetes.sandbox.id", false, 0, "dockershim (no engine now)" },
  { "cdi.k8s.io/", true, 0, "a device plugin (CDI: Kata injects the host devices it names)" },
};

/* Annotation KEY, when present, must be WANT (CRI-O's record of WHAT;
   NULL or "": none to compare with, so the key refuses). */
static void
crio_key_is (const struct policy_ctx *c, const char *key, const char *want, const char *what,
             struct policy_findings *f)
{
  const char *v = policy_annotation (c, key);

  if (v == NULL)
    {
      struct jv *ann, *x;

      if (jv_get_ex (c->spec, "annotations", &ann) && jv_get_ex (ann, key, &x))
        policy_finding (f, "%s is not a string", key);
      return;
    }
  if (want == NULL || want[0] == '\0' || strcmp (v, want) != 0)
    policy_finding (f,
                    "%s \"%.80s\", but CRI-O's records say %s is \"%.80s\" (a pod's own annotation "
                    "over CRI-O's: Kata would act on that pod)",
                    key, v, what, want && want[0] ? want : "unknown");
}

/* A CRI-O start's own claim: the container type and the sandbox that
   Kata reads (io.kubernetes.cri-o.ContainerType, .SandboxID) must be
   what CRI-O's storage record says, and a member's pod a sandbox of that
   storage. */
static void
judge_crio_claim (const struct policy_ctx *c, struct policy_findings *f)
{
  const struct policy_who *w = &c->who;
  const char *type = policy_annotation (c, "io.kubernetes.cri-o.ContainerType");
  const char *sid = policy_annotation (c, "io.kubernetes.cri-o.SandboxID");
  const char *want = w->pod_sandbox ? "sandbox" : "container";

  if (type != NULL && strcmp (type, want) != 0)
    policy_finding (f,
                    "io.kubernetes.cri-o.ContainerType \"%.40s\", but CRI-O's record of the "
                    "container makes it a pod %s",
                    type, want);
  if (sid != NULL && strcmp (sid, w->pod_id) != 0)
    policy_finding (
        f,
        "io.kubernetes.cri-o.SandboxID %.80s, but CRI-O's record of the container names "
        "pod %.80s (Kata would run this container in the VM of the container it names)",
        sid, w->pod_id);
  if (! w->pod_ok)
    policy_finding (
        f,
        "CRI-O's record of the container names pod %.80s, which is no pod sandbox of its "
        "storage with a pod uid",
        w->pod_id[0] ? w->pod_id : "(none)");
  /* CRI-O copies a pod's own annotations over its keys: the ones Kata
     reads must be what CRI-O's records say (KubeName and Namespace pick
     the pod whose devices Kata asks the kubelet for). */
  crio_key_is (c, "io.kubernetes.cri-o.KubeName", w->pod_ok ? w->kube_name : NULL, "the pod's name",
               f);
  crio_key_is (c, "io.kubernetes.cri-o.Namespace", w->pod_ok ? w->kube_ns : NULL,
               "the pod's namespace", f);
  crio_key_is (c, "io.kubernetes.cri-o.ContainerName", w->crio_name, "the container's name", f);
}

/* A CRI start's own claim: a sandbox is its own sandbox, a pod member's
   sandbox is a pod sandbox of this namespace with the same pod uid (else
   Kata's shim would run it in the VM of whatever container it names). */
static void
judge_cri_claim (const struct policy_ctx *c, struct jv *ann, struct policy_findings *f)
{
  const char *type = policy_annotation (c, "io.kubernetes.cri.container-type");
  const char *sid = policy_annotation (c, "io.kubernetes.cri.sandbox-id");
  const char *uid = policy_annotation (c, "io.kubernetes.cri.sandbox-uid");
  const char *id = c->pf->req->container_id ? c->pf->req->container_id : "";
  const char *psid, *puid;

  jv_foreach (ann, key, val) if (strncmp (key, "io.kubernetes.cri.", 18) == 0
                                 && ! jv_is_type (val, json_type_string))
      policy_finding (f, "%s is %s, not a string", key, jv_kind (val));
  if (type == NULL)
    return;
  if (strcmp (type, "sandbox") == 0)
    {
      if (sid == NULL || strcmp (sid, id) != 0)
        policy_finding (
            f, "a pod sandbox whose io.kubernetes.cri.sandbox-id (%.80s) is not its own id",
            sid ? sid : "absent");
    }
  else if (strcmp (type, "container") != 0)
    policy_finding (f,
                    "io.kubernetes.cri.container-type \"%.40s\" is neither sandbox nor container",
                    type);
  else if (! cri_pod (c, &psid, &puid))
    policy_finding (f,
                    "io.kubernetes.cri.sandbox-id %.80s is no pod sandbox of namespace \"%s\" with "
                    "pod uid %.80s (Kata would run this container in the VM of the container it "
                    "names)",
                    sid ? sid : "(absent)", c->who.ns, uid ? uid : "(absent)");
}

/* The spec's mount whose destination is DEST: its source, or NULL. */
static const char *
mount_source_at (const struct policy_ctx *c, const char *dest)
{
  struct jv *mounts, *m, *d, *src;

  if (! jv_get_ex (c->spec, "mounts", &mounts) || ! jv_is_type (mounts, json_type_array))
    return NULL;
  for (size_t i = 0; i < jv_length (mounts); i++)
    if ((m = jv_at (mounts, i)) != NULL && jv_get_ex (m, "destination", &d)
        && jv_is_type (d, json_type_string) && strcmp (jv_string (d), dest) == 0
        && jv_get_ex (m, "source", &src) && jv_is_type (src, json_type_string))
      return jv_string (src);
  return NULL;
}

/* Kata writes the guest's termination log back, as root, to the host
   source of the mount at io.kubernetes.container.terminationMessagePath
   (when nothing is shared: container.go): that must be the kubelet's
   termination-log file of this pod. */
static void
judge_termination_path (const struct policy_ctx *c, struct policy_findings *f)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *res = NULL;
  const char *path = policy_annotation (c, "io.kubernetes.container.terminationMessagePath");
  const char *src = path ? mount_source_at (c, path) : NULL;
  const char *q;

  if (src == NULL)
    return;
  if (policy_path_resolve (c->bundle, src, true, &res, &err) < 0
      || kubelet_file (c, res, &c->dirs->kubelet) != OWN_ANY
      || (q = under_root (res, &c->dirs->kubelet)) == NULL || strstr (q, "/containers/") == NULL)
    policy_finding (
        f,
        "io.kubernetes.container.terminationMessagePath %.80s is the mount of %.120s, not "
        "the kubelet's termination log of this pod (Kata writes the guest's log back to "
        "it)",
        path, src);
}

/* Claims of a pod, or of the node's devices, by annotations their engine
   did not write: the first key of claim_keys that matches decides. */
static void
judge_claims (const struct policy_ctx *c, struct jv *ann, struct policy_findings *f)
{
  jv_foreach (ann, key, val)
  {
    (void) val;
    for (size_t i = 0; i < ARRAY_SIZE (claim_keys); i++)
      if ((claim_keys[i].prefix ? strncmp (key, claim_keys[i].name, strlen (claim_keys[i].name))
                                : strcmp (key, claim_keys[i].name))
          == 0)
        {
          if ((claim_keys[i].owners & OWNER (c->who.engine)) == 0)
            policy_finding (f, "%.128s: only %s writes it; this start is %s%s%s%s", key,
                            claim_keys[i].owner_name, engine_name (&c->who),
                            c->who.ns[0] ? " (namespace \"" : "", c->who.ns,
                            c->who.ns[0] ? "\")" : "");
          break;
        }
  }
  if (c->who.engine == ENGINE_CRI)
    judge_cri_claim (c, ann, f);
  if (c->who.engine == ENGINE_CRIO)
    judge_crio_claim (c, f);
  if ((c->who.engine == ENGINE_CRI || c->who.engine == ENGINE_CRIO) && c->dirs->ok)
    judge_termination_path (c, f);
}

/* Kata's state of a sandbox is kept by id alone (Go: /run/vc/sbs/ID,
   runtime-rs: /run/kata/ID), and ids are unique only per containerd
   namespace: a start whose id names a sandbox that exists would restore
   that sandbox (newSandbox's Restore), another namespace's container.
   A pod member joins its sandbox's, which is why it has its own id. */
static void
judge_kata_state (const struct policy_ctx *c, struct policy_findings *f)
{
  static const char *const stores[] = { KATA_GO_SANDBOX_STATE, KATA_RS_SANDBOX_STATE };
  const char *id = c->pf->req->container_id;

  if (c->pf->req->mode != KG_MODE_SHIM || ! policy_valid_id (id) || is_pod_member (c))
    return;
  for (size_t i = 0; i < ARRAY_SIZE (stores); i++)
    {
      char path[PATH_MAX];
      struct stat st;

      if (snprintf (path, sizeof path, "%s/%s", stores[i], id) >= (int) sizeof path)
        continue;
      if (lstat (path, &st) == 0)
        policy_finding (f,
                        "a Kata sandbox of id %.80s exists already (%s): another namespace's "
                        "container of that id, or one Kata did not clean up; this start would be "
                        "handed its VM",
                        id, path);
      else if (errno != ENOENT && errno != ENOTDIR)
        policy_finding (f, "cannot tell whether a Kata sandbox of id %.80s exists (%s: %s)", id,
                        path, strerror (errno));
    }
}

/* The start's identity as a line: engine, namespace, pod. */
static void
who_line (const struct policy_ctx *c, struct kg_buf *out)
{
  const char *sid, *uid;

  sb_printf (out, "%s", engine_name (&c->who));
  if (c->who.ns[0] != '\0')
    sb_printf (out, ", namespace \"%s\"", c->who.ns);
  if (c->who.engine == ENGINE_DOCKER)
    sb_printf (out,
               c->who.docker_root ? ", its record of the container in %s"
                                  : ", without its record of the container%s",
               c->who.docker_root ? c->who.docker_root : "");
  if (c->who.engine == ENGINE_PODMAN || c->who.engine == ENGINE_CRIO)
    sb_printf (out, ", its storage %s", c->who.podman_root);
  if (is_crio_sandbox (c))
    sb_printf (out, ", a pod sandbox (pod uid %.80s)", c->who.pod_uid);
  else if (is_pod_sandbox (c))
    sb_printf (out, ", a pod sandbox");
  else if ((c->who.engine == ENGINE_CRI || c->who.engine == ENGINE_CRIO) && pod_of (c, &sid, &uid))
    sb_printf (out, ", a member of pod sandbox %.80s", sid);
}

/* policy.identity: whose start this is, and nothing the spec claims
   beyond it (kata-guard(8), Whose start it is). */
void
check_identity (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  cleanup_kg_buf struct kg_buf who = { 0 };
  struct jv *ann = policy_jget_type (c->spec, "spec", "annotations", json_type_object, &f);

  if (ann != NULL)
    judge_claims (c, ann, &f);
  judge_kata_state (c, &f);
  who_line (c, &who);
  if (f.n > 0)
    rule_fail (c,
               "a container cannot say which pod, engine or sandbox it belongs to: remove the "
               "annotation; a pod's annotations are its engine's own",
               "%s", sb_str (&f.text));
  else
    rule_pass (c, "%s", sb_str (&who));
}
