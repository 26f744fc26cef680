/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the rules judge by, resolved once before the first (facts_resolve):
 * who started the container (the engine, by its own records; the pod, by
 * its sandbox's), whether the spec is privileged, and each namespace path's
 * identity and the process it joins.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>

#include "jsonscan.h"
#include "policy.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"

#include "policy-int.h"

/* Docker's containerd namespace (moby's daemon ContainersNamespace). */
#define DOCKER_NAMESPACE "moby"

/* containerd's v2 task state: <state>/io.containerd.runtime.v2.task/<ns>/<id>. */
#define TASK_DIR "io.containerd.runtime.v2.task"

/* containers/storage's records (podman's and CRI-O's storage):
   <root>/<driver>-containers/containers.json and volatile-containers.json
   (podman run --rm, a transient store) of every store of [policy]
   podman_roots (the graph root keeps the stable records, the run root the
   volatile ones), each read once per start.  A file that cannot be read
   holds no record. */
struct container_records
{
  struct jv **docs;
  size_t n;
};

#define cleanup_container_records __attribute__ ((cleanup (container_records_release)))

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

/* ---- privileged ----------------------------------------------------- */

/* An allow rule with no type (or "a") and no numbers: every device. */
bool
device_rule_allows_all (struct jv *rule)
{
  struct jv *allow = NULL, *type = NULL, *maj = NULL, *min = NULL;

  jv_get_ex (rule, "allow", &allow);
  jv_get_ex (rule, "type", &type);
  jv_get_ex (rule, "major", &maj);
  jv_get_ex (rule, "minor", &min);
  if (allow == NULL || ! jv_bool (allow))
    return false;
  if (type != NULL && jv_is_type (type, json_type_string) && strcmp (jv_string (type), "a") != 0)
    return false;
  return (maj == NULL || jv_is_type (maj, json_type_null) || jv_int64 (maj) < 0)
         && (min == NULL || jv_is_type (min, json_type_null) || jv_int64 (min) < 0);
}

/* The capabilities in the bounding set, as a bit set; false when a name
   is not one (policy.capabilities reports that). */
static uint64_t
bounding_set (struct jv *spec)
{
  struct jv *process = NULL, *caps = NULL, *b = NULL;
  uint64_t set = 0;

  jv_get_ex (spec, "process", &process);
  if (process != NULL)
    jv_get_ex (process, "capabilities", &caps);
  if (caps != NULL)
    jv_get_ex (caps, "bounding", &b);
  if (b == NULL || ! jv_is_type (b, json_type_array))
    return 0;
  for (size_t i = 0; i < jv_length (b); i++)
    {
      struct jv *n = jv_at (b, i);
      cap_value_t v;

      if (jv_is_type (n, json_type_string) && strncasecmp (jv_string (n), "CAP_", 4) == 0
          && cap_from_name (jv_string (n), &v) == 0 && v >= 0 && v < 64)
        set |= UINT64_C (1) << v;
    }
  return set;
}

/* --privileged is what engines write as: a device cgroup that allows every
   device, and every capability.  Either one alone is reported as
   privileged: each gives the container the host's devices or the powers
   to reach them.  "Every capability" is every one up to CAP_AUDIT_READ
   (Linux 3.16), so that an engine that does not know the newest ones
   still counts.  Each reason into F; whether there is one. */
static bool
spec_privileged (const struct policy_ctx *c, struct policy_findings *f)
{
  struct jv *linux_ = NULL, *res = NULL, *devs = NULL;
  uint64_t all = (UINT64_C (1) << (CAP_AUDIT_READ + 1)) - 1;
  uint64_t caps = bounding_set (c->spec);
  /* What a privileged container gets is the engine's own bounding set,
     which lacks what the engine lacks (CAP_SYS_RESOURCE on a host whose
     root has given it up): that counts as every capability too, when it
     is a privileged set at all (CAP_SYS_ADMIN among it). */
  uint64_t engine = c->ns.capbnd_ok ? c->ns.capbnd & all : 0;
  bool all_engine = (engine & (UINT64_C (1) << CAP_SYS_ADMIN)) != 0 && (caps & engine) == engine;
  size_t before = f->n;

  jv_get_ex (c->spec, "linux", &linux_);
  if (linux_ != NULL)
    jv_get_ex (linux_, "resources", &res);
  if (res != NULL)
    jv_get_ex (res, "devices", &devs);
  if (devs != NULL && jv_is_type (devs, json_type_array))
    for (size_t i = 0; i < jv_length (devs); i++)
      {
        struct jv *r = jv_at (devs, i);

        if (jv_is_type (r, json_type_object) && device_rule_allows_all (r))
          {
            policy_finding (f, "the device cgroup allows every host device (a *:* rwm)");
            break;
          }
      }
  if ((caps & all) == all)
    policy_finding (f, "it has every capability (%d or more)", CAP_AUDIT_READ + 1);
  else if (all_engine)
    policy_finding (f, "it has every capability of the engine's bounding set (%d)",
                    __builtin_popcountll (engine));
  return f->n > before;
}

/* ---- namespaces ----------------------------------------------------- */

/* The process whose namespace of kind K PATH names as
   /proc/PID/ns/NAME (request_proc_pid), the one path policy.namespaces
   asks the parent about; 0 for any other. */
static unsigned long
ns_path_pid (int k, const char *path)
{
  char rest[32];

  snprintf (rest, sizeof rest, "ns/%s", ns_proc[k]);
  return request_proc_pid (path, rest);
}

/* stat(2) of the namespace PATH names for namespace K: /proc/PID/ns/NAME
   through req->ns_stat (privilege the checker has given up; *PID is then
   set), any other path in place.  A /proc path that names another kind of
   namespace, or not by a process id, is refused (EINVAL). */
static int
ns_path_stat (const struct request *req, int k, const char *path, struct stat *st,
              unsigned long *pid)
{
  const char *q = path + 6;

  if (strncmp (path, "/proc/", 6) != 0)
    return stat (path, st);
  *pid = ns_path_pid (k, path);
  if (*pid == 0)
    {
      /* /proc/self, /proc/thread-self: whichever process opens it (the
         runtime), so the engine's own; anything else is not this kind. */
      if (strncmp (q, "self/", 5) == 0 || strncmp (q, "thread-self/", 12) == 0)
        return stat (path, st);
      errno = EINVAL;
      return -1;
    }
  if (req->ns_stat != NULL)
    return req->ns_stat (*pid, k, st);
  return stat (path, st);
}

/* ---- whose start this is ------------------------------------------- */

/* containers/storage's record of container ID (a pointer into DOC), from
   the array DOC, or NULL. */
static struct jv *
records_entry (struct jv *doc, const char *id)
{
  for (size_t i = 0; doc != NULL && jv_is_type (doc, json_type_array) && i < jv_length (doc); i++)
    {
      struct jv *e = jv_at (doc, i), *v;

      if (jv_get_ex (e, "id", &v) && jv_is_type (v, json_type_string)
          && strcmp (jv_string (v), id) == 0)
        return e;
    }
  return NULL;
}

static void
container_records_release (struct container_records *st)
{
  for (size_t i = 0; i < st->n; i++)
    jv_free (st->docs[i]);
  free (st->docs);
  st->docs = NULL;
  st->n = 0;
}

/* Read the records of graph driver DRIVER into ST; -1 when out of memory. */
static int
records_load (const struct policy_ctx *c, const char *driver, struct container_records *st)
{
  static const char *const files[] = { "containers.json", "volatile-containers.json" };
  const struct dir_list *roots = &c->dirs->podman;

  st->docs = calloc (roots->n + 1, sizeof *st->docs);
  if (st->docs == NULL)
    return -1;
  for (size_t i = 0; i < roots->n; i += 2)
    {
      bool seen = false;

      /* (A root listed twice, or two that resolve alike, is one store.) */
      for (size_t k = 1; k < i; k += 2)
        seen = seen || strcmp (roots->paths[k], roots->paths[i | 1]) == 0;
      for (size_t j = 0; ! seen && j < ARRAY_SIZE (files); j++)
        {
          cleanup_free char *path = NULL;

          if (asprintf (&path, "%s/%s-containers/%s", roots->paths[i | 1], driver, files[j]) < 0)
            return path = NULL, -1;
          st->docs[st->n++] = engine_json_of (path, true);
        }
    }
  return 0;
}

/* The record of container ID in ST (a pointer into it); NULL when no
   file holds one, or more than one does: an id that two stores hold
   (podman can make a container of any id in a store of its own, podman
   container restore) is nobody's record. */
static struct jv *
records_find (const struct container_records *st, const char *id)
{
  struct jv *found = NULL;

  if (! policy_valid_id (id))
    return NULL;
  for (size_t i = 0; i < st->n; i++)
    {
      struct jv *e = records_entry (st->docs[i], id);

      if (e != NULL && found != NULL)
        return NULL;
      if (e != NULL)
        found = e;
    }
  return found;
}

/* The layer of record E into OUT ("" when it names none). */
static void
record_layer (struct jv *e, char *out, size_t size)
{
  struct jv *l;

  out[0] = '\0';
  if (e != NULL && jv_get_ex (e, "layer", &l) && jv_is_type (l, json_type_string)
      && policy_valid_id (jv_string (l)) && strlen (jv_string (l)) < size)
    snprintf (out, size, "%s", jv_string (l));
}

const char *
engine_name (const struct policy_who *w)
{
  static const char *const names[] = {
    [ENGINE_UNKNOWN] = "no engine kata-guard can tell",
    [ENGINE_CONTAINERD] = "containerd",
    [ENGINE_CRI] = "containerd's CRI",
    [ENGINE_DOCKER] = "Docker",
    [ENGINE_PODMAN] = "podman",
    [ENGINE_CRIO] = "CRI-O",
  };

  return names[w->engine];
}

/* What the engine that started the container calls ASK, so that a remedy
   is in its user's words: ctr's limit is --memory-limit in bytes, a pod's
   is its spec's, and a spec of no engine the guard can tell is named by
   its own keys. */
const char *
engine_words (const struct policy_who *w, enum policy_ask a)
{
#define PODSPEC(k) "the pod spec's " k
#define ROW(unknown, ctd, cri, docker, podman, crio)                                               \
  {                                                                                                \
    [ENGINE_UNKNOWN] = unknown, [ENGINE_CONTAINERD] = ctd, [ENGINE_CRI] = cri,                     \
    [ENGINE_DOCKER] = docker, [ENGINE_PODMAN] = podman, [ENGINE_CRIO] = crio,                      \
  }
  static const char *const words[ASK_N][ENGINE_CRIO + 1] = {
    [ASK_MEMORY] = ROW ("linux.resources.memory.limit", "ctr run --memory-limit BYTES",
                        PODSPEC ("resources.limits.memory"), "--memory", "--memory",
                        PODSPEC ("resources.limits.memory")),
    [ASK_CPUS] = ROW ("linux.resources.cpu quota and period", "ctr run --cpus",
                      PODSPEC ("resources.limits.cpu"), "--cpus", "--cpus",
                      PODSPEC ("resources.limits.cpu")),
    [ASK_PRIVILEGED] = ROW ("a privileged spec", "ctr run --privileged",
                            PODSPEC ("securityContext.privileged"), "--privileged", "--privileged",
                            PODSPEC ("securityContext.privileged")),
    [ASK_CAP_ADD] = ROW ("capabilities added to process.capabilities", "ctr run --cap-add",
                         PODSPEC ("securityContext.capabilities.add"), "--cap-add", "--cap-add",
                         PODSPEC ("securityContext.capabilities.add")),
    [ASK_DEVICE] = ROW ("linux.devices", "ctr run --device", "devices in the pod spec", "--device",
                        "--device", "devices in the pod spec"),
    [ASK_HOST_NS] = ROW ("host namespaces in linux.namespaces",
                         "ctr run --net-host or --with-ns of the host's",
                         PODSPEC ("hostNetwork, hostPID, hostIPC"),
                         "--network host, --pid host, --ipc host, --uts host",
                         "--network host, --pid host, --ipc host, --uts host",
                         PODSPEC ("hostNetwork, hostPID, hostIPC")),
    [ASK_JOIN] = ROW ("a namespace path of a running container",
                      "ctr run --with-ns network:/proc/PID/ns/net of a running task",
                      "a container of a running pod", "docker run --network container:NAME",
                      "podman run --network container:NAME", "a container of a running pod"),
    [ASK_SELINUX] = ROW ("process.selinuxLabel of another type, user, role or level",
                         "ctr run --config SPEC with a process.selinuxLabel",
                         PODSPEC ("securityContext.seLinuxOptions"), "--security-opt label=...",
                         "--security-opt label=...", PODSPEC ("securityContext.seLinuxOptions")),
    [ASK_UNCONFINED] = ROW ("AppArmor profile but the engines' defaults",
                            "ctr run --apparmor-profile unconfined",
                            PODSPEC ("appArmorProfile Unconfined"),
                            "--security-opt apparmor=unconfined",
                            "--security-opt apparmor=unconfined",
                            PODSPEC ("appArmorProfile Unconfined")),
    [ASK_READONLY] = ROW ("the mount's \"ro\" option",
                          "ctr run --mount type=bind,src=S,dst=D,options=rbind:ro",
                          PODSPEC ("volumeMounts readOnly: true"), ":ro", ":ro",
                          PODSPEC ("volumeMounts readOnly: true")),
  };
#undef ROW
#undef PODSPEC

  return words[a][w->engine];
}

/* The containerd namespace of BUNDLE, when it is containerd's task
   directory of container ID: .../io.containerd.runtime.v2.task/NS/ID. */
static bool
bundle_namespace (const char *bundle, const char *id, char *out, size_t size)
{
  const char *last, *ns;
  size_t tl = strlen (TASK_DIR);

  if (bundle == NULL || ! policy_valid_id (id) || (last = strrchr (bundle, '/')) == NULL
      || strcmp (last + 1, id) != 0)
    return false;
  for (ns = last - 1; ns > bundle && *ns != '/'; ns--)
    ;
  if (ns <= bundle || (size_t) (ns - bundle) < tl + 1 || ns[-(ptrdiff_t) tl - 1] != '/'
      || strncmp (ns - tl, TASK_DIR, tl) != 0 || (size_t) (last - ns - 1) >= size)
    return false;
  memcpy (out, ns + 1, (size_t) (last - ns - 1));
  out[last - ns - 1] = '\0';
  return conf_valid_namespace (out);
}

/* The engine root under which Docker's own record of container ID,
   <root>/containers/<id>/config.v2.json, names that id; NULL when none
   does.  Read as a stream: its size is the container's to choose. */
static const char *
docker_record_root (const struct dir_list *roots, const char *id)
{
  for (size_t i = 0; i < roots->n; i++)
    {
      cleanup_error kg_error_t err = NULL;
      cleanup_free char *path = NULL;
      char got[128];

      if (asprintf (&path, "%s/containers/%s/config.v2.json", roots->paths[i], id) < 0)
        return path = NULL, NULL;
      /* (Its resolved form, which rootfs paths are compared with.) */
      if (jscan_top_string (path, "ID", got, sizeof got, &err) == 1 && strcmp (got, id) == 0)
        return roots->paths[i | 1];
    }
  return NULL;
}

/* podman's bundle for container ID: <root>/<driver>-containers/<id>/userdata
   under a podman root; the root and the driver in W. */
static bool
podman_bundle (const char *bundle, const struct dir_list *roots, const char *id,
               struct policy_who *w)
{
  for (size_t i = 0; bundle != NULL && policy_valid_id (id) && i < roots->n; i++)
    {
      const char *q = path_below (bundle, roots->paths[i]);
      size_t dl, il = strlen (id);

      if (q == NULL)
        continue;
      dl = strspn (q, "abcdefghijklmnopqrstuvwxyz0123456789");
      if (dl == 0 || dl >= sizeof w->podman_driver || strncmp (q + dl, "-containers/", 12) != 0)
        continue;
      if (strncmp (q + dl + 12, id, il) != 0 || strcmp (q + dl + 12 + il, "/userdata") != 0)
        continue;
      memcpy (w->podman_driver, q, dl);
      w->podman_driver[dl] = '\0';
      w->podman_root = roots->paths[i | 1];
      return true;
    }
  return false;
}

/* OUT gets the string member KEY of DOC when it fits, else "". */
static void
meta_string (struct jv *doc, const char *key, char *out, size_t size)
{
  struct jv *v;

  out[0] = '\0';
  if (jv_get_ex (doc, key, &v) && jv_is_type (v, json_type_string) && strlen (jv_string (v)) < size)
    snprintf (out, size, "%s", jv_string (v));
}

/* Whether storage record E (of container ID) is CRI-O's: its metadata
   into M. */
static bool
crio_metadata (struct jv *e, const char *id, struct crio_meta *m)
{
  cleanup_error kg_error_t err = NULL;
  struct jv *md, *doc, *v;
  const char *text;
  bool yes = false;

  memset (m, 0, sizeof *m);
  if (! jv_get_ex (e, "metadata", &md) || ! jv_is_type (md, json_type_string))
    return false;
  text = jv_string (md);
  doc = json_parse_strict ("CRI-O's storage metadata", text, strlen (text), false, &err);
  if (doc != NULL && jv_is_type (doc, json_type_object) && jv_get_ex (doc, "pod-id", &v)
      && jv_is_type (v, json_type_string))
    {
      yes = true;
      meta_string (doc, "pod-id", m->pod_id, sizeof m->pod_id);
      meta_string (doc, "uid", m->uid, sizeof m->uid);
      meta_string (doc, "name", m->name, sizeof m->name);
      meta_string (doc, "metadata-name", m->kube_name, sizeof m->kube_name);
      meta_string (doc, "namespace", m->kube_ns, sizeof m->kube_ns);
      if (! policy_valid_id (m->pod_id))
        m->pod_id[0] = '\0';
      if (! policy_valid_id (m->uid))
        m->uid[0] = '\0';
      m->sandbox = m->pod_id[0] != '\0' && strcmp (m->pod_id, id) == 0 && jv_get_ex (doc, "pod", &v)
                   && jv_is_type (v, json_type_boolean) && jv_bool (v);
    }
  jv_free (doc);
  return yes;
}

/* Whether OWN, containers/storage's record of container ID in ST, is
   CRI-O's, and then its pod in W: the pod's sandbox is the record whose
   metadata names itself as a pod sandbox, in the same storage; its uid,
   name and namespace are the pod's. */
static bool
crio_start (const struct container_records *st, struct jv *own_rec, const char *id,
            struct policy_who *w)
{
  struct jv *e;
  struct crio_meta own, sb;

  if (! crio_metadata (own_rec, id, &own))
    return false;
  snprintf (w->pod_id, sizeof w->pod_id, "%s", own.pod_id);
  snprintf (w->crio_name, sizeof w->crio_name, "%s", own.name);
  w->pod_sandbox = own.sandbox;
  sb = own;
  if (! own.sandbox && own.pod_id[0] != '\0' && (e = records_find (st, own.pod_id)) != NULL
      && (! crio_metadata (e, own.pod_id, &sb) || ! sb.sandbox))
    sb.uid[0] = '\0';
  w->pod_ok = own.pod_id[0] != '\0' && (own.sandbox || sb.sandbox) && sb.uid[0] != '\0';
  if (w->pod_ok)
    {
      snprintf (w->pod_uid, sizeof w->pod_uid, "%s", sb.uid);
      snprintf (w->kube_name, sizeof w->kube_name, "%s", sb.kube_name);
      snprintf (w->kube_ns, sizeof w->kube_ns, "%s", sb.kube_ns);
    }
  return true;
}

/* Who started this container.  The namespace is containerd's -namespace
   argument in shim mode, else the bundle's place in containerd's state
   (runc under containerd's runc shim; kata-guard check --bundle). */
static void
who_resolve (struct policy_ctx *c)
{
  const struct request *req = c->pf->req;
  const char *id = req->container_id;
  struct policy_who *w = &c->who;

  memset (w, 0, sizeof *w);
  if (req->mode == KG_MODE_SHIM)
    {
      if (req->ns != NULL && conf_valid_namespace (req->ns))
        snprintf (w->ns, sizeof w->ns, "%s", req->ns);
    }
  else
    bundle_namespace (c->bundle, id, w->ns, sizeof w->ns);
  /* A bundle in containers/storage: CRI-O's when the storage record is
     CRI-O's (a shim start of its runtime_type "vm", or conmon's OCI
     start), else podman's (conmon's OCI start only). */
  if (c->dirs->ok && podman_bundle (c->bundle, &c->dirs->podman, id, w))
    {
      cleanup_container_records struct container_records st = { 0 };
      struct jv *own = records_load (c, w->podman_driver, &st) == 0 ? records_find (&st, id) : NULL;

      record_layer (own, w->layer, sizeof w->layer);
      if (own != NULL && crio_start (&st, own, id, w))
        {
          w->engine = ENGINE_CRIO;
          return;
        }
      if (w->ns[0] == '\0')
        {
          w->engine = ENGINE_PODMAN;
          return;
        }
      w->podman_root = NULL;
      w->podman_driver[0] = w->layer[0] = '\0';
    }
  if (w->ns[0] == '\0')
    return;
  if (strcmp (w->ns, DOCKER_NAMESPACE) == 0)
    {
      w->engine = ENGINE_DOCKER;
      if (c->dirs->roots_ok && policy_valid_id (id))
        w->docker_root = docker_record_root (&c->dirs->roots, id);
    }
  /* CRI runs Kata as a shim; an OCI-mode start is not CRI's. */
  else if (req->mode != KG_MODE_OCI
           && kg_strv_has ((const char *const *) c->cfg->policy.cri_namespaces,
                           c->cfg->policy.n_cri_namespaces, w->ns))
    w->engine = ENGINE_CRI;
  else
    w->engine = ENGINE_CONTAINERD;
}

/* Docker's per-container files count only for a start in Docker's
   namespace whose own record names the container. */
bool
docker_start (const struct policy_ctx *c)
{
  return c->who.engine == ENGINE_DOCKER && c->who.docker_root != NULL;
}

/* This container's pod, as containerd's CRI describes it: the sandbox
   id and the pod uid of its annotations, when they hold together: the
   sandbox's bundle (beside this one, in containerd's state) is a pod
   sandbox of the same pod uid.  Returns false when the container is no
   CRI pod's. */
static bool
cri_pod_lookup (const struct policy_ctx *c, const char **sandbox_id, const char **pod_uid)
{
  const char *sid = policy_annotation (c, "io.kubernetes.cri.sandbox-id");
  const char *uid = policy_annotation (c, "io.kubernetes.cri.sandbox-uid");
  cleanup_free char *path = NULL;
  cleanup_free char *dir = NULL;
  struct jv *doc, *ann, *v, *t;
  bool yes = false;
  char *slash;

  const char *type = policy_annotation (c, "io.kubernetes.cri.container-type");

  if (c->who.engine != ENGINE_CRI || type == NULL || ! policy_valid_id (sid)
      || ! policy_valid_id (uid) || c->bundle == NULL)
    return false;
  if (strcmp (type, "sandbox") == 0)
    {
      /* The sandbox itself: the id is its own. */
      *sandbox_id = sid;
      *pod_uid = uid;
      return strcmp (sid, c->pf->req->container_id ? c->pf->req->container_id : "") == 0;
    }
  if (strcmp (type, "container") != 0
      || strcmp (sid, c->pf->req->container_id ? c->pf->req->container_id : "") == 0)
    return false;
  dir = strdup (c->bundle);
  if (dir == NULL || (slash = strrchr (dir, '/')) == NULL)
    return false;
  *slash = '\0';
  if (asprintf (&path, "%s/%s/config.json", dir, sid) < 0)
    return path = NULL, false;
  doc = engine_json (path);
  if (doc != NULL && jv_get_ex (doc, "annotations", &ann)
      && jv_get_ex (ann, "io.kubernetes.cri.container-type", &t) && jv_is_type (t, json_type_string)
      && strcmp (jv_string (t), "sandbox") == 0
      && jv_get_ex (ann, "io.kubernetes.cri.sandbox-uid", &v) && jv_is_type (v, json_type_string)
      && strcmp (jv_string (v), uid) == 0)
    yes = true;
  jv_free (doc);
  if (yes)
    {
      *sandbox_id = sid;
      *pod_uid = uid;
    }
  return yes;
}

/* The same, as facts_resolve looked it up (the sandbox's config.json
   read once per spec, however many of its binds ask). */
bool
cri_pod (const struct policy_ctx *c, const char **sandbox_id, const char **pod_uid)
{
  *sandbox_id = c->pod_sid;
  *pod_uid = c->pod_uid;
  return c->pod;
}

/* This container's pod, as its engine keeps it: containerd's CRI's (its
   annotations, held together by the sandbox's bundle) or CRI-O's (its
   storage records).  False for no pod. */
bool
pod_of (const struct policy_ctx *c, const char **sandbox_id, const char **pod_uid)
{
  if (c->who.engine == ENGINE_CRIO)
    {
      *sandbox_id = c->who.pod_id;
      *pod_uid = c->who.pod_uid;
      return c->who.pod_ok;
    }
  return cri_pod (c, sandbox_id, pod_uid);
}

/* A CRI-O pod's sandbox (its infra container): Kata builds the pod's VM
   for it. */
/* containerd's CRI marks the pause container so; the mark counts only
   in a start CRI made (policy.annotations refuses it anywhere else). */
bool
is_pod_sandbox (const struct policy_ctx *c)
{
  const char *t = policy_annotation (c, "io.kubernetes.cri.container-type");

  return c->who.engine == ENGINE_CRI && t != NULL && strcmp (t, "sandbox") == 0;
}

bool
is_crio_sandbox (const struct policy_ctx *c)
{
  return c->who.engine == ENGINE_CRIO && c->who.pod_sandbox && c->who.pod_ok;
}

/* A pod member, of containerd's CRI or of CRI-O: Kata runs it in the VM
   of its pod's sandbox. */
bool
is_pod_member (const struct policy_ctx *c)
{
  const char *t = policy_annotation (c, "io.kubernetes.cri.container-type");

  if (c->who.engine == ENGINE_CRIO)
    return ! c->who.pod_sandbox;
  return c->who.engine == ENGINE_CRI && t != NULL && strcmp (t, "container") == 0;
}

/* The one linux.namespaces entry of kind K in LIST, or NULL (none, or
   more than one: policy.namespaces says which). */
static struct jv *
ns_entry (struct jv *list, int k)
{
  struct jv *entry = NULL;
  size_t seen = 0;

  for (size_t i = 0; list != NULL && i < jv_length (list); i++)
    {
      struct jv *e = jv_at (list, i), *t;

      if (jv_is_type (e, json_type_object) && jv_get_ex (e, "type", &t)
          && jv_is_type (t, json_type_string) && strcmp (jv_string (t), ns_types[k]) == 0)
        {
          entry = e;
          seen++;
        }
    }
  return seen == 1 ? entry : NULL;
}

/* Each namespace path's identity, asked once (the parent answers each
   path once a start), and the process the container joins by it when
   that namespace is not the host's. */
static void
ns_resolve (struct policy_ctx *c)
{
  struct jv *linux_, *list = NULL;

  if (jv_get_ex (c->spec, "linux", &linux_) && jv_is_type (linux_, json_type_object))
    jv_get_ex (linux_, "namespaces", &list);
  if (list != NULL && ! jv_is_type (list, json_type_array))
    list = NULL;
  for (int k = 0; k < NS_COUNT; k++)
    {
      struct jv *entry = ns_entry (list, k), *path;
      struct ns_seen *seen = &c->ns_seen[k];
      const struct ns_id *self = &c->ns.self[k], *init = &c->ns.init[k];
      struct stat st;

      if (entry == NULL || ! jv_get_ex (entry, "path", &path)
          || ! jv_is_type (path, json_type_string))
        continue;
      seen->asked = true;
      if (ns_path_stat (c->pf->req, k, jv_string (path), &st, &seen->pid) < 0)
        {
          seen->err = errno ? errno : EIO;
          continue;
        }
      seen->host = (self->ok && st.st_dev == self->dev && st.st_ino == self->ino)
                   || (init->ok && st.st_dev == init->dev && st.st_ino == init->ino);
      if (self->ok && ! seen->host)
        c->joined_pid[k] = seen->pid;
    }
}

/* The NS requests ns_resolve makes on SPEC (request-list.h): one per
   kind whose one entry's path ns_path_pid takes. */
size_t
policy_namespaces_asks (struct jv *spec)
{
  struct jv *linux_, *list = NULL;
  size_t n = 0;

  if (jv_is_type (spec, json_type_object) && jv_get_ex (spec, "linux", &linux_)
      && jv_is_type (linux_, json_type_object))
    jv_get_ex (linux_, "namespaces", &list);
  if (list != NULL && ! jv_is_type (list, json_type_array))
    list = NULL;
  for (int k = 0; k < NS_COUNT; k++)
    {
      struct jv *entry = ns_entry (list, k), *path;

      if (entry != NULL && jv_get_ex (entry, "path", &path) && jv_is_type (path, json_type_string)
          && ns_path_pid (k, jv_string (path)) != 0)
        n++;
    }
  return n;
}

void
facts_resolve (struct policy_ctx *c, struct policy_findings *privileged)
{
  who_resolve (c);
  c->privileged = spec_privileged (c, privileged);
  c->privileged_why = sb_str (&privileged->text);
  ns_resolve (c);
  c->pod = cri_pod_lookup (c, &c->pod_sid, &c->pod_uid);
}
