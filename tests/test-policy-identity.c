/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.identity and policy.namespaces: whose start it is (Docker, CRI pods, CRI-O), the VM claims, the namespaces joined.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

static void
test_namespaces (void)
{
  static const struct
  {
    const char *name, *from, *to, *policy, *fails, *needle;
  } rows[] = {
    { "pid namespace of the engine", "{\"type\": \"pid\"}",
      "{\"type\": \"pid\", \"path\": \"/proc/self/ns/pid\"}", NULL, "policy.namespaces",
      "pid namespace /proc/self/ns/pid is the engine's own" },
    { "ipc namespace of the engine", "{\"type\": \"ipc\"}",
      "{\"type\": \"ipc\", \"path\": \"/proc/self/ns/ipc\"}", NULL, "policy.namespaces",
      "ipc namespace /proc/self/ns/ipc is the engine's own" },
    { "no ipc namespace", "{\"type\": \"ipc\"}, ", "", NULL, "policy.namespaces",
      "no ipc namespace" },
    { "a path that does not exist", "{\"type\": \"network\"}",
      "{\"type\": \"network\", \"path\": \"/var/run/docker/netns/nosuch\"}", NULL,
      "policy.namespaces", "network namespace /var/run/docker/netns/nosuch cannot be checked" },
    { "listed twice", "{\"type\": \"network\"}", "{\"type\": \"network\"}, {\"type\": \"network\"}",
      NULL, "policy.namespaces", "network namespace listed 2 times" },
    { "path not a string", "{\"type\": \"network\"}", "{\"type\": \"network\", \"path\": 1}", NULL,
      "policy.namespaces", "network namespace path is an integer" },
    { "host namespaces allowed", "{\"type\": \"ipc\"}, ", "", "host_namespaces = true", "",
      "host ipc namespace allowed" },
    /* A /proc path of another kind of namespace: setns would fail in the
       runtime, and it is not what the entry says. */
    { "an ipc namespace for the network entry", "{\"type\": \"network\"}",
      "{\"type\": \"network\", \"path\": \"/proc/1/ns/ipc\"}", NULL, "policy.namespaces",
      "network namespace /proc/1/ns/ipc cannot be checked: Invalid argument" },
    { "a process that is gone", "{\"type\": \"network\"}",
      "{\"type\": \"network\", \"path\": \"/proc/4194304/ns/net\"}", NULL, "policy.namespaces",
      "cannot be checked: No such file or directory (the process it names is gone" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);

      spec = replace (spec, rows[i].from, rows[i].to);
      run_expect (spec, ID_A, rows[i].policy, &kata_fc, rows[i].name, rows[i].fails,
                  "policy.namespaces", rows[i].needle);
      free (spec);
    }

  /* The engine's own, named by a process id (the test's own here). */
  {
    char *spec = spec_of (NULL, NULL, NULL, NULL, NULL), *to, *want;

    if (asprintf (&to, "{\"type\": \"network\", \"path\": \"/proc/%d/ns/net\"}", (int) getpid ())
            < 0
        || asprintf (&want, "network namespace /proc/%d/ns/net is the engine's own",
                     (int) getpid ())
               < 0)
      abort ();
    spec = replace (spec, "{\"type\": \"network\"}", to);
    run_expect (spec, ID_A, NULL, &kata_fc, "the engine's network namespace by process id",
                "policy.namespaces", "policy.namespaces", want);
    free (spec);
    free (to);
    free (want);
  }

  /* Another network namespace (a pod's, --network container:X) passes. */
  if (geteuid () == 0)
    {
      int p[2];
      pid_t pid;
      char c, *spec, *to;

      if (pipe (p) < 0)
        abort ();
      pid = fork ();
      if (pid == 0)
        {
          close (p[0]);
          if (unshare (CLONE_NEWNET) < 0)
            _exit (1);
          if (write (p[1], "x", 1) != 1)
            _exit (1);
          pause ();
          _exit (0);
        }
      close (p[1]);
      if (read (p[0], &c, 1) == 1)
        {
          spec = spec_of (NULL, NULL, NULL, NULL, NULL);
          if (asprintf (&to, "{\"type\": \"network\", \"path\": \"/proc/%d/ns/net\"}", (int) pid)
              < 0)
            abort ();
          spec = replace (spec, "{\"type\": \"network\"}", to);
          run_expect (spec, ID_A, NULL, &kata_fc, "another network namespace", "",
                      "policy.namespaces", "/ns/net");
          free (spec);
          free (to);
        }
      else
        ok (0, "a child with its own network namespace");
      close (p[0]);
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
    }
}

/* ---- Kubernetes pods (containerd's CRI) ------------------------------ */

/* ---- whose start it is ------------------------------------------------ */

/* A row started as Docker starts ID_A: in Docker's namespace, with
   Docker's record of the container (NS, RECORD_ID: another namespace, or
   a record naming another container, as a forged start would be). */
static void
docker_row (const char *name, const char *ns, const char *record_id, const char *source,
            const char *options, const char *root_path, const char *fails, const char *item,
            const char *needle)
{
  cleanup_free char *root = docker_record (ID_A, "c0ffee", "none");
  cleanup_free char *src = NULL, *m = NULL, *spec = NULL, *policy = NULL, *rp = NULL;
  cleanup_free char *cfg2 = NULL, *text = NULL;
  struct report rep;

  if (asprintf (&policy, "engine_roots = [\"%s\"]", root) < 0
      || asprintf (&cfg2, "%s/containers/" ID_A "/config.v2.json", root) < 0
      || asprintf (&text, "{\"ID\": \"%s\"}", record_id) < 0)
    abort ();
  test_write_text (cfg2, text);
  if (source != NULL
      && (asprintf (&src, "%s/%s", root, source) < 0 || (m = bind_of (src, options)) == NULL))
    abort ();
  spec = spec_of (NULL, m, NULL, NULL, NULL);
  if (root_path != NULL)
    {
      if (asprintf (&rp, "\"path\": \"%s%s\"", root_path[0] == '/' ? "" : root,
                    root_path[0] == '/' ? root_path : root_path + 1)
          < 0)
        abort ();
      spec = replace (spec, "\"path\": \"rootfs\"", rp);
    }
  run_ns = ns;
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  run_ns = NULL;
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
}

/* A row whose root.path is PATH (relative to the bundle when not
   absolute), readonly RO, in containerd namespace "default". */
static void
rootfs_row (const char *name, const char *path, bool ro, const char *policy, const char *fails,
            const char *needle)
{
  cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);
  cleanup_free char *rp = NULL;
  struct report rep;

  if (asprintf (&rp, "\"path\": \"%s\"%s", path, ro ? ", \"readonly\": true" : "") < 0)
    abort ();
  spec = replace (spec, "\"path\": \"rootfs\"", rp);
  run_ns = "default";
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  run_ns = NULL;
  expect (&rep, name, fails, "policy.mounts", needle);
  report_release (&rep);
}

static void
test_identity (void)
{
  cleanup_free char *dir = NULL, *ro_dir = NULL, *policy = NULL, *pm = NULL, *bundle = NULL;
  cleanup_free char *cj = NULL, *text = NULL, *layer = NULL, *spec = NULL;
  struct report rep;

  /* Docker's own files of the container, for Docker's start only. */
  docker_row ("this container's resolv.conf, Docker's start", "moby", ID_A,
              "containers/" ID_A "/resolv.conf", "\"rbind\", \"rprivate\"", NULL, "",
              "policy.mounts", "1 this container's engine file");
  docker_row ("this container's shm, Docker's start", "moby", ID_A,
              "containers/" ID_A "/mounts/shm", "\"rbind\", \"rprivate\"", NULL, "",
              "policy.mounts", "1 this container's engine file");
  docker_row ("a Docker container's resolv.conf, from namespace default", "default", ID_A,
              "containers/" ID_A "/resolv.conf", "\"rbind\", \"rprivate\"", NULL, "policy.mounts",
              "policy.mounts", "not this container's");
  docker_row ("a Docker container's shm, from namespace default", "default", ID_A,
              "containers/" ID_A "/mounts/shm", "\"rbind\"", NULL, "policy.mounts", "policy.mounts",
              "not this container's");
  docker_row ("Docker's namespace, but Docker's record names another container", "moby", ID_B,
              "containers/" ID_A "/hosts", "\"rbind\"", NULL, "policy.mounts", "policy.mounts",
              "not this container's");
  /* The rootfs: Docker's mount of this container's layer, and no other. */
  docker_row ("Docker's rootfs of this container", "moby", ID_A, NULL, NULL,
              "+/overlay2/c0ffee/merged", "", "policy.mounts",
              "the rootfs is Docker's mount of this container's image");
  docker_row ("Docker's rootfs of another container's layer", "moby", ID_A, NULL, NULL,
              "+/overlay2/beef/merged", "policy.mounts", "policy.mounts", "root.path");
  docker_row ("Docker's rootfs of this layer, from namespace default", "default", ID_A, NULL, NULL,
              "+/overlay2/c0ffee/merged", "policy.mounts", "policy.mounts",
              "the engine's state ([policy] engine_roots)");
  /* ctr run --rootfs DIR. */
  rootfs_row ("the bundle's rootfs", "rootfs", false, NULL, "",
              "the rootfs is the bundle's rootfs");
  rootfs_row ("ctr run --rootfs /usr", "/usr", false, NULL, "policy.mounts",
              "root.path /usr: writable bind mount outside [policy] writable_mounts");
  rootfs_row ("ctr run --rootfs /etc, read-only", "/etc", true, NULL, "policy.mounts",
              "root.path /etc: the host's configuration");
  rootfs_row ("a rootfs of /", "/", true, NULL, "policy.mounts", "root.path /: contains");
  rootfs_row ("a rootfs of ../../..", "../../../../../../../../..", true, NULL, "policy.mounts",
              "root.path ../../../../../../../../.. -> /");
  rootfs_row ("a rootfs in containerd's state", "/run/containerd", true, NULL, "policy.mounts",
              "containerd's state");
  /* Directories of root's that every host has (one the rows made would
     be refused first as this user's, without root). */
  if ((dir = strdup ("/usr/share")) == NULL || (ro_dir = strdup ("/usr/lib")) == NULL
      || asprintf (&policy, "writable_mounts = [\"%s\"]", dir) < 0)
    abort ();
  rootfs_row ("a rootfs of the host's, writable", ro_dir, false, NULL, "policy.mounts",
              "writable bind mount outside [policy] writable_mounts");
  /* Kata shares a directory rootfs into the VM writable whatever
     root.readonly says. */
  rootfs_row ("a rootfs of the host's, read-only", ro_dir, true, NULL, "policy.mounts",
              "writable bind mount outside [policy] writable_mounts");
  rootfs_row ("a writable rootfs under writable_mounts", dir, false, policy, "",
              "the rootfs is a directory under [policy] writable_mounts");
  rootfs_row ("no root.path", "", true, NULL, "policy.mounts", "names no root filesystem");

  /* Kata's state of a sandbox is kept by id alone: a shim start whose id
     names an existing sandbox (another namespace's) would get its VM. */
  if (geteuid () == 0)
    {
      cleanup_free char *sid = NULL, *store = NULL;
      bool made_vc = access ("/run/vc", F_OK) != 0, made_sbs = access ("/run/vc/sbs", F_OK) != 0;

      if (asprintf (&sid, "kg-test-sbs-%ld", (long) getpid ()) < 0
          || asprintf (&store, "/run/vc/sbs/%s", sid) < 0)
        abort ();
      mkdir_p (store);
      spec = spec_of (NULL, NULL, NULL, NULL, NULL);
      run_mode = KG_MODE_SHIM;
      run_ns = "default";
      run_expect (spec, sid, NULL, &kata_fc, "a shim start whose id names an existing Kata sandbox",
                  "policy.identity", "policy.identity", "a Kata sandbox of id kg-test-sbs-");
      rmdir (store);
      run_expect (spec, sid, NULL, &kata_fc, "the same start once the sandbox is gone", "",
                  "policy.identity", "containerd, namespace \"default\"");
      run_mode = KG_MODE_CHECK;
      run_ns = NULL;
      if (made_sbs)
        rmdir ("/run/vc/sbs");
      if (made_vc)
        rmdir ("/run/vc");
      free (spec);
      spec = NULL;
    }

  /* podman: its own files and its mount of the container's layer, for a
     bundle in podman's storage. */
  free (policy);
  if (asprintf (&pm, "%s/podman", tmpdir) < 0
      || asprintf (&bundle, "%s/overlay-containers/" ID_A "/userdata", pm) < 0
      || asprintf (&cj, "%s/overlay-containers/containers.json", pm) < 0
      || asprintf (&text, "[{\"id\": \"" ID_B "\", \"layer\": \"l2\"}, {\"id\": \"" ID_A
                          "\", \"layer\": \"l1\"}]")
             < 0
      || asprintf (&policy, "podman_roots = [\"%s\"]", pm) < 0
      || asprintf (&layer, "\"path\": \"%s/overlay/l1/merged\"", pm) < 0)
    abort ();
  mkdir_p (bundle);
  test_write_text (cj, text);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"path\": \"rootfs\"", layer);
  run_policy (spec, ID_A, policy, &kata_fc, &rep, &bundle);
  expect (&rep, "podman's rootfs of this container", "", "policy.mounts",
          "the rootfs is podman's mount of this container's image");
  report_release (&rep);
  free (spec);
  spec = replace (replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"path\": \"rootfs\"", layer),
                  "/l1/", "/l2/");
  run_policy (spec, ID_A, policy, &kata_fc, &rep, &bundle);
  expect (&rep, "podman's rootfs of another container", "policy.mounts", "policy.mounts",
          "podman's storage");
  report_release (&rep);
  free (spec);
  /* podman run --rm (podman 5): the record is volatile, in the run root's
     volatile-containers.json, while the layer stays in the graph root. */
  {
    cleanup_free char *rr = NULL;
    cleanup_free char *vj = NULL;
    cleanup_free char *policy2 = NULL;

    if (asprintf (&rr, "%s/podman-run", tmpdir) < 0
        || asprintf (&vj, "%s/overlay-containers/volatile-containers.json", rr) < 0
        || asprintf (&policy2, "podman_roots = [\"%s\", \"%s\"]", pm, rr) < 0)
      abort ();
    mkdir_p (vj);
    rmdir (vj);
    test_write_text (cj, "[{\"id\": \"" ID_B "\", \"layer\": \"l2\"}]");
    test_write_text (vj, "[{\"id\": \"" ID_A "\", \"layer\": \"l1\"}]");
    spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"path\": \"rootfs\"", layer);
    run_policy (spec, ID_A, policy2, &kata_fc, &rep, &bundle);
    expect (&rep, "podman's rootfs of a volatile container (its record in the run root)", "",
            "policy.mounts", "the rootfs is podman's mount of this container's image");
    report_release (&rep);
    run_policy (spec, ID_A, policy, &kata_fc, &rep, &bundle);
    expect (&rep, "the same without the run root in podman_roots: no record", "policy.mounts",
            "policy.mounts", "podman's storage");
    report_release (&rep);
  }
}

#define SANDBOX_ID "5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b"
#define POD_UID "0d7e3c5a-1111-4222-8333-944455556666"

/* The containerd namespace pod_row runs its container in. */
static const char *pod_ns = "k8s.io";

/* The Kata configuration pod_row runs with; NULL: kata_fc. */
static struct kata_config *pod_kata;

static void
pod_row (const char *name, const char *id, const char *ann, const char *res, const char *mounts,
         const char *policy, const char *fails, const char *item, const char *needle)
{
  cleanup_free char *spec = NULL;
  cleanup_free char *top = NULL;
  struct report rep;

  /* The pod's sandbox, beside the container's bundle when the row runs
     there. */
  pod_sandbox_write (SANDBOX_ID, POD_UID);
  if (asprintf (&top, "\"annotations\": {%s}", ann) < 0)
    abort ();
  spec = spec_of (NULL, mounts, res, NULL, top);
  run_ns = pod_ns;
  run_policy (spec, id, policy, pod_kata ? pod_kata : &kata_fc, &rep, NULL);
  run_ns = NULL;
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
}

/* report.vm, what policy.capacity counts (capacity.h): a VM of its own,
   a pod's VM at its sandbox, a member's hot-plugged share (none under
   static sizing), and nothing when the VM was not sized. */
static void
claim_row (const char *name, const char *id, const char *ann, const char *res,
           struct kata_config *k, enum vm_role role, int64_t mem, int64_t base, int64_t add,
           const char *pod)
{
  cleanup_free char *spec = NULL;
  cleanup_free char *top = NULL;
  struct report rep;

  if (ann != NULL && asprintf (&top, "\"annotations\": {%s}", ann) < 0)
    abort ();
  spec = spec_of (NULL, NULL, res, NULL, top);
  run_ns = ann != NULL ? pod_ns : NULL;
  run_policy (spec, id, NULL, k, &rep, NULL);
  run_ns = NULL;
  ok (rep.vm.role == role && rep.vm.mem_mib == mem && rep.vm.base_mib == base
          && rep.vm.add_mib == add && strcmp (rep.vm.pod, pod) == 0,
      "vm claim, %s: role %d, %lld / %lld / +%lld MiB, pod \"%s\" (got %d, %lld / %lld / +%lld, \"%s\")",
      name, (int) role, (long long) mem, (long long) base, (long long) add, pod, (int) rep.vm.role,
      (long long) rep.vm.mem_mib, (long long) rep.vm.base_mib, (long long) rep.vm.add_mib,
      rep.vm.pod);
  report_release (&rep);
}

static void
test_vm_claims (void)
{
  static const char sandbox_ann[] = "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                                    "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                    "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\", "
                                    "\"io.kubernetes.cri.sandbox-memory\": \"536870912\"";
  static const char app_ann[] = "\"io.kubernetes.cri.container-type\": \"container\", "
                                "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"";
  cleanup_free char *sb = NULL;
  struct kata_config hot = { 0 };

  if (asprintf (&sb, "%s/state/io.containerd.runtime.v2.task/k8s.io/" SANDBOX_ID, tmpdir) < 0)
    abort ();
  mkdir_p (sb);
  claim_row ("a container's own VM", ID_A, NULL, NULL, &kata_fc, VM_SOLO, 2304, 2048, 0, "");
  /* Refused by policy.memory_limit, and still sized and counted: audit
     mode may let it through, never uncounted. */
  claim_row ("no limit: sized at Kata's default", ID_A, NULL, "\"cpu\": {\"shares\": 2}", &kata_fc,
             VM_SOLO, 2048, 2048, 0, "");
  claim_row ("a pod's sandbox", SANDBOX_ID, sandbox_ann, "\"cpu\": {\"shares\": 2}", &kata_fc,
             VM_SANDBOX, 2560, 2048, 0, "");
  claim_row ("a member, static sizing (Firecracker's)", ID_A, app_ann, NULL, &kata_fc, VM_MEMBER, 0,
             0, 0, SANDBOX_ID);
  /* A VM Kata resizes is counted at its ceiling, default_maxmemory: its
     pod's members add nothing on top (no hot-plug passes it). */
  load_kata (&hot, NULL,
             "[hypervisor.qemu]\ndefault_memory = 1024\ndefault_maxmemory = 6144\n"
             "[runtime]\nstatic_sandbox_resource_mgmt = false\n");
  claim_row ("a member, hot-plugged: its pod counted at the ceiling", ID_A, app_ann, NULL, &hot,
             VM_MEMBER, 0, 0, 0, SANDBOX_ID);
  claim_row ("a pod's sandbox, hot-plugged: at default_maxmemory", SANDBOX_ID, sandbox_ann,
             "\"cpu\": {\"shares\": 2}", &hot, VM_SANDBOX, 6144, 1024, 0, "");
  claim_row ("a container's own VM, hot-plugged: at default_maxmemory", ID_A, NULL, NULL, &hot,
             VM_SOLO, 6144, 1024, 0, "");
  toml_free (hot.doc);
}

static void
test_pods (void)
{
  static const char sandbox_ann[] = "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                                    "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                    "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"";
  static const char app_ann[] = "\"io.kubernetes.cri.container-type\": \"container\", "
                                "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"";
  static const char no_limit[] = "\"cpu\": {\"shares\": 2}";
  cleanup_free char *ann = NULL;
  cleanup_free char *roots = NULL;
  cleanup_free char *m = NULL;

  /* The pause container: no limit of its own, the pod's from CRI. */
  pod_row ("a pod sandbox that nothing bounds", SANDBOX_ID, sandbox_ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "a pod sandbox that nothing bounds");
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"100000\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a pod sandbox sized by CRI's annotations", SANDBOX_ID, ann, no_limit, NULL, NULL, "",
           "policy.resources", "2304 MiB");
  free (ann);
  if (asprintf (&ann, "%s, \"io.kubernetes.cri.sandbox-memory\": \"0\"", sandbox_ann) < 0)
    abort ();
  pod_row ("a pod sandbox whose sandbox-memory is 0", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "nothing bounds");
  free (ann);
  if (asprintf (&ann, "%s, \"io.kubernetes.cri.sandbox-memory\": \"lots\"", sandbox_ann) < 0)
    abort ();
  pod_row ("a sandbox-memory that is not a number", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "not a number");
  free (ann);
  ann = NULL;
  pod_row ("an app container without a limit is not a sandbox", ID_A, app_ann, no_limit, NULL, NULL,
           "policy.memory_limit", "policy.memory_limit", "no memory limit");

  /* The pod's own files, and only the pod's. */
  if (asprintf (&roots, "containerd_roots = [\"/srv/ctd\"]\nkubelet_roots = [\"/srv/kubelet\"]")
      < 0)
    abort ();
  m = bind_of ("/srv/ctd/io.containerd.grpc.v1.cri/sandboxes/" SANDBOX_ID "/hosts", "\"rbind\"");
  pod_row ("CRI's hosts of the pod, writable", ID_A, app_ann, NULL, m, roots, "", "policy.mounts",
           "1 this container's engine file");
  free (m);
  m = bind_of ("/srv/ctd/io.containerd.grpc.v1.cri/sandboxes/"
               "6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c/hosts",
               "\"rbind\"");
  pod_row ("CRI's hosts of another pod", ID_A, app_ann, NULL, m, roots, "policy.mounts",
           "policy.mounts", "containerd's state ([policy] containerd_roots");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/volumes/kubernetes.io~empty-dir/data", "\"rbind\"");
  pod_row ("the pod's emptyDir, writable", ID_A, app_ann, NULL, m, roots, "", "policy.mounts",
           "1 this container's engine file");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/volumes/kubernetes.io~projected/kube-api-access-x",
               "\"rbind\"");
  pod_row ("the pod's projected token, writable", ID_A, app_ann, NULL, m, roots, "policy.mounts",
           "policy.mounts", "the kubelet binds it read-only");
  free (m);
  m = bind_of ("/srv/kubelet/pki", "\"rbind\", \"ro\"");
  pod_row ("the kubelet's pki", ID_A, app_ann, NULL, m, roots, "policy.mounts", "policy.mounts",
           "the kubelet's state ([policy] kubelet_roots");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/etc-hosts", "\"rbind\"");
  /* Annotations that name a pod whose sandbox says another uid. */
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"container\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"ffffffff-0000-4000-8000-000000000000\"")
      < 0)
    abort ();
  pod_row ("annotations whose uid is not the sandbox's", ID_A, ann, NULL, m, roots,
           "policy.identity policy.mounts", "policy.mounts", "kubelet_roots");
  free (m);
  free (ann);
  ann = NULL;

  /* A claim of a pod outside CRI's namespace: ctr --annotation, docker
     run --annotation and podman --annotation set them anywhere. */
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/volumes/kubernetes.io~secret/token",
               "\"rbind\", \"ro\"");
  pod_ns = "default";
  pod_row ("a forged sandbox in namespace default, binding the pod's secret", SANDBOX_ID,
           sandbox_ann, NULL, m, roots, "policy.identity policy.mounts", "policy.identity",
           "io.kubernetes.cri.container-type: only containerd's CRI (in a namespace of [policy] "
           "cri_namespaces) writes it; this start is containerd (namespace \"default\")");
  pod_row ("a forged pod member in namespace default", ID_A, app_ann, NULL, NULL, roots,
           "policy.identity", "policy.identity", "io.kubernetes.cri.sandbox-id: only");
  pod_ns = "moby";
  pod_row ("a pod claim in Docker's namespace", ID_A, app_ann, NULL, NULL, roots, "policy.identity",
           "policy.identity", "this start is Docker");
  pod_ns = "k8s.io";
  run_mode = KG_MODE_OCI;
  pod_row ("a pod claim in an OCI-mode start in k8s.io", ID_A, app_ann, NULL, NULL, roots,
           "policy.identity", "policy.identity", "this start is containerd (namespace");
  /* Shim mode: the namespace is containerd's -namespace argument. */
  run_mode = KG_MODE_SHIM;
  pod_row ("a pod member started as a shim in k8s.io", ID_A, app_ann, NULL, NULL, roots, "",
           "policy.identity", "a member of pod sandbox " SANDBOX_ID);
  free (m);
  m = NULL;
  run_mode = KG_MODE_CHECK;
  /* In CRI's namespace: the sandbox a member names is a pod sandbox. */
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"container\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"")
      < 0)
    abort ();
  {
    cleanup_free char *other = NULL, *other_spec = NULL;

    if (asprintf (&other, "%s/state/io.containerd.runtime.v2.task/k8s.io/" ID_B, tmpdir) < 0
        || asprintf (&other_spec, "%s/config.json", other) < 0)
      abort ();
    mkdir_p (other);
    test_write_text (other_spec, "{\"ociVersion\": \"1.0.2\", \"annotations\": {"
                                 "\"io.kubernetes.cri.container-type\": \"container\", "
                                 "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                 "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"}}");
  }
  pod_row ("a member naming another pod's container as its sandbox", ID_A, ann, NULL, NULL, NULL,
           "policy.identity", "policy.identity",
           "io.kubernetes.cri.sandbox-id " ID_B " is no pod sandbox of namespace \"k8s.io\"");
  free (ann);
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"container\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "feed\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"")
      < 0)
    abort ();
  pod_row ("a member naming a sandbox that does not exist", ID_A, ann, NULL, NULL, NULL,
           "policy.identity", "policy.identity", "is no pod sandbox");
  free (ann);
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\", "
                      "\"io.kubernetes.cri.sandbox-memory\": \"268435456\"")
      < 0)
    abort ();
  pod_row ("a sandbox that names another sandbox id", ID_A, ann, no_limit, NULL, NULL,
           "policy.identity", "policy.identity", "is not its own id");
  free (ann);
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"podsandbox\"") < 0)
    abort ();
  pod_row ("an unknown container type", ID_A, ann, NULL, NULL, NULL, "policy.identity",
           "policy.identity", "neither sandbox nor container");
  free (ann);
  ann = NULL;
  /* Kata's other readers of a pod: CRI-O's and dockershim's keys. */
  pod_row ("CRI-O's container type in containerd", ID_A,
           "\"io.kubernetes.cri-o.ContainerType\": \"container\", "
           "\"io.kubernetes.cri-o.SandboxID\": \"" SANDBOX_ID "\"",
           NULL, NULL, NULL, "policy.identity", "policy.identity",
           "io.kubernetes.cri-o.ContainerType: only CRI-O, or podman for its pods writes it");
  pod_row ("dockershim's container type", ID_A,
           "\"io.kubernetes.docker.type\": \"container\", "
           "\"io.kubernetes.sandbox.id\": \"" SANDBOX_ID "\"",
           NULL, NULL, NULL, "policy.identity", "policy.identity",
           "io.kubernetes.docker.type: only dockershim (no engine now) writes it");

  /* The pod's VM as Kata sizes it: the sandbox's annotations, not its
     own limits. */
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"1099511627776\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"20000000\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a small sandbox limit, 1 TiB and 200 vCPUs in the annotations", SANDBOX_ID, ann, NULL,
           NULL, NULL, "policy.resources", "policy.resources",
           "the VM would have 1050624 MiB (default_memory 2048 + the pod's sandbox-memory "
           "1048576 MiB)");
  pod_row ("the same: 200 vCPUs", SANDBOX_ID, ann, NULL, NULL, NULL, "policy.resources",
           "policy.resources", "+ 200 from sandbox-cpu-quota 20000000 / period 100000");
  free (ann);
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"-1\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\", "
                "\"io.kubernetes.cri.sandbox-cpu-shares\": \"40960\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a quota of -1: the vCPUs from the shares", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources",
           "+ 40 from sandbox-cpu-shares 40960 with a quota of -1");
  free (ann);
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"-1\", "
                "\"io.kubernetes.cri.sandbox-cpu-shares\": \"2048\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a quota of -1 and 2048 shares", SANDBOX_ID, ann, no_limit, NULL, NULL, "",
           "policy.resources",
           "2304 MiB (default_memory 2048 + the pod's sandbox-memory 256 MiB) of at most "
           "16384, 3 vCPUs");
  free (ann);
  ann = NULL;
  /* runtime-rs sizes a pod sandbox from the same annotations, the shares
     aside, on its overhead. */
  {
    struct kata_config rs = { 0 };

    load_shipped (&rs, "4.1.0/runtime-rs/configuration-qemu-runtime-rs.toml", KATA_RUNTIME_RS);
    pod_kata = &rs;
    if (asprintf (&ann,
                  "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                  "\"io.kubernetes.cri.sandbox-cpu-quota\": \"-1\", "
                  "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\", "
                  "\"io.kubernetes.cri.sandbox-cpu-shares\": \"40960\"",
                  sandbox_ann)
        < 0)
      abort ();
    pod_row ("runtime-rs: a pod sandbox, quota -1: no vCPUs from the shares", SANDBOX_ID, ann,
             no_limit, NULL, NULL, "", "policy.resources",
             "288 MiB (runtime-rs static sizing: overhead_memory 32 + the pod's sandbox-memory "
             "256 MiB) of at most 16384, 1 vCPUs of at most 32 (runtime-rs static sizing: max (1, "
             "overhead_vcpus 0.2 + 0 from no CPU quota), rounded up)");
    free (ann);
    if (asprintf (&ann,
                  "%s, \"io.kubernetes.cri.sandbox-memory\": \"16777216000\", "
                  "\"io.kubernetes.cri.sandbox-cpu-quota\": \"250000\", "
                  "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"",
                  sandbox_ann)
        < 0)
      abort ();
    pod_row ("runtime-rs: a pod sandbox on its overhead", SANDBOX_ID, ann, no_limit, NULL, NULL, "",
             "policy.resources",
             "16032 MiB (runtime-rs static sizing: overhead_memory 32 + the pod's sandbox-memory "
             "16000 MiB) of at most 16384, 3 vCPUs");
    free (ann);
    ann = NULL;
    pod_kata = NULL;
    toml_free (rs.doc);
  }

  /* Overflow: a quota of 2^63-1 over a period of 1. */
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"9223372036854775807\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"1\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a sandbox quota of 2^63-1 over a period of 1", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "the VM would have 9223372036854775807 vCPUs");
  free (ann);
  ann = NULL;
  pod_row ("a container quota of 2^63-1 over a period of 1", ID_A, "\"x\": \"y\"",
           "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 9223372036854775806, "
           "\"period\": 1}",
           NULL, NULL, "policy.resources", "policy.resources", "more than [policy] max_vcpus");
  /* Kata reads more of a pod from annotations: its name and namespace
     (the kubelet's devices of that pod, cold-plugged), CDI device names,
     the termination message path it writes back. */
  pod_ns = "default";
  pod_row (
      "CRI-O's pod name and namespace in namespace default", ID_A,
      "\"io.kubernetes.cri-o.KubeName\": \"gpu-job\", "
      "\"io.kubernetes.cri-o.Namespace\": \"team-b\"",
      NULL, NULL, NULL, "policy.identity", "policy.identity",
      "io.kubernetes.cri-o.KubeName: only CRI-O (a start whose containers/storage record is CRI-O's) writes it");
  pod_row ("CRI's pod name in namespace default", ID_A,
           "\"io.kubernetes.cri.sandbox-name\": \"gpu-job\"", NULL, NULL, NULL, "policy.identity",
           "policy.identity", "io.kubernetes.cri.sandbox-name: only");
  pod_row ("a CDI device annotation", ID_A, "\"cdi.k8s.io/gpu\": \"nvidia.com/gpu=all\"", NULL,
           NULL, NULL, "policy.identity", "policy.identity",
           "cdi.k8s.io/gpu: only a device plugin (CDI");
  pod_row ("a termination message path outside CRI", ID_A,
           "\"io.kubernetes.container.terminationMessagePath\": \"/x\", "
           "\"io.kubernetes.container.terminationMessagePolicy\": \"File\"",
           NULL, NULL, NULL, "policy.identity", "policy.identity",
           "io.kubernetes.container.terminationMessagePath: only the kubelet");
  pod_ns = "k8s.io";
  m = bind_of ("/usr/lib/os-release", "\"rbind\", \"ro\"");
  if (asprintf (&ann, "%s, \"io.kubernetes.container.terminationMessagePath\": \"/x\"", app_ann)
      < 0)
    abort ();
  pod_row ("a pod member whose termination message path is a host file", ID_A, ann, NULL, m, roots,
           "policy.identity", "policy.identity",
           "terminationMessagePath /x is the mount of /usr/lib/os-release, not the kubelet's");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/containers/app/0a1b2c3d", "\"rbind\"");
  pod_row ("a pod member whose termination message path is the kubelet's", ID_A, ann, NULL, m,
           roots, "", "policy.identity", "a member of pod sandbox");
  free (m);
  m = NULL;
  free (ann);
  ann = NULL;
}

/* ---- CRI-O ---------------------------------------------------------- */

#define CRIO_SB "c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5"
#define CRIO_APP "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
#define CRIO_ORPHAN "0505050505050505050505050505050505050505050505050505050505050505"
#define CRIO_PODMAN "9595959595959595959595959595959595959595959595959595959595959595"
#define CRIO_UID "7c1d2e3f-4444-4555-8666-977788889999"

/* crio_row: SPEC (config.json text) run as container ID of CRI-O's
   storage (its bundle in the run root, as CRI-O makes it), in MODE. */
static void
crio_row (const char *name, const char *id, const char *spec, enum kg_mode mode,
          const char *policy_more, const char *fails, const char *item, const char *needle)
{
  cleanup_free char *bundle = NULL;
  cleanup_free char *policy = NULL;
  struct report rep;

  if (asprintf (&bundle, "%s/crio-run/overlay-containers/%s/userdata", tmpdir, id) < 0
      || asprintf (&policy,
                   "podman_roots = [\"%s/crio-graph\", \"%s/crio-run\"]\n"
                   "kubelet_roots = [\"%s/crio-kubelet\"]\n%s",
                   tmpdir, tmpdir, tmpdir, policy_more ? policy_more : "")
             < 0)
    abort ();
  mkdir_p (bundle);
  run_mode = mode;
  run_ns = mode == KG_MODE_SHIM ? "default" : NULL;
  run_policy (spec, id, policy, &kata_fc, &rep, &bundle);
  run_mode = KG_MODE_CHECK;
  run_ns = NULL;
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
}

static void
test_crio (void)
{
  /* CRI-O's records of its containers in containers/storage, as CRI-O
     1.35 writes them (volatile, in the graph root): the sandbox's
     metadata names itself as the pod, with the pod uid; a member names
     its pod; one names a pod that has no sandbox; podman's has no pod. */
  static const char records[]
      = "[{\"id\": \"" CRIO_SB "\", \"layer\": \"lsb\", \"metadata\": "
        "\"{\\\"pod-name\\\":\\\"k8s_p\\\",\\\"pod-id\\\":\\\"" CRIO_SB
        "\\\",\\\"uid\\\":\\\"" CRIO_UID
        "\\\",\\\"namespace\\\":\\\"default\\\",\\\"metadata-name\\\":\\\"p\\\","
        "\\\"pod\\\":true}\"},\n"
        " {\"id\": \"" CRIO_APP "\", \"layer\": \"lapp\", \"metadata\": "
        "\"{\\\"pod-name\\\":\\\"k8s_p\\\",\\\"pod-id\\\":\\\"" CRIO_SB
        "\\\",\\\"metadata-name\\\":"
        "\\\"app1\\\"}\"},\n"
        " {\"id\": \"" CRIO_ORPHAN "\", \"layer\": \"lo\", \"metadata\": "
        "\"{\\\"pod-name\\\":\\\"k8s_q\\\",\\\"pod-id\\\":\\\"" ID_B "\\\"}\"},\n"
        " {\"id\": \"" CRIO_PODMAN "\", \"layer\": \"lpm\", \"metadata\": "
        "\"{\\\"image-name\\\":\\\"busybox\\\",\\\"name\\\":\\\"x\\\",\\\"created-at\\\":1}\"}]";
  static const char sb_ann[]
      = "\"annotations\": {\"io.kubernetes.cri-o.ContainerType\": \"sandbox\", "
        "\"io.kubernetes.cri-o.SandboxID\": \"" CRIO_SB "\", "
        "\"io.kubernetes.cri-o.KubeName\": \"p\", \"io.kubernetes.cri-o.Namespace\": \"default\", "
        "\"io.kubernetes.pod.uid\": \"" CRIO_UID "\", "
        "\"pod-linux-resources.crio.io\": \"{\\\"cpu_shares\\\":204,"
        "\\\"memory_limit_in_bytes\\\":268435456}\"}";
  static const char app_ann[]
      = "\"annotations\": {\"io.kubernetes.cri-o.ContainerType\": \"container\", "
        "\"io.kubernetes.cri-o.SandboxID\": \"" CRIO_SB "\", "
        "\"io.kubernetes.container.name\": \"app1\", \"io.kubernetes.pod.uid\": \"" CRIO_UID "\"}";
  cleanup_free char *rec = NULL;
  cleanup_free char *sb_spec = NULL;
  cleanup_free char *text = NULL;
  cleanup_free char *mounts = NULL;
  cleanup_free char *other = NULL;
  char *spec;

  if (asprintf (&rec, "%s/crio-graph/overlay-containers/volatile-containers.json", tmpdir) < 0)
    abort ();
  mkdir_p (rec);
  rmdir (rec);
  test_write_text (rec, records);

  /* The infra container: CRI-O gives it CPU shares only, masks nothing
     (its process is CRI-O's pause), and sizes nothing Kata reads. */
  if (asprintf (&text, "%s", sb_ann) < 0)
    abort ();
  sb_spec = spec_of (NULL, NULL, "\"cpu\": {\"shares\": 2}", NULL, text);
  sb_spec = replace (sb_spec, MASKED ",", "");
  sb_spec = replace (sb_spec, READONLY ",", "");
  crio_row ("CRI-O's pod sandbox, runtime_type vm (a shim start in namespace default)", CRIO_SB,
            sb_spec, KG_MODE_SHIM, NULL, "", "policy.identity",
            "CRI-O, namespace \"default\", its storage");
  crio_row ("CRI-O's pod sandbox: its identity names the pod uid", CRIO_SB, sb_spec, KG_MODE_OCI,
            NULL, "", "policy.identity", "a pod sandbox (pod uid " CRIO_UID ")");
  crio_row ("CRI-O's pod sandbox: the VM at Kata's defaults", CRIO_SB, sb_spec, KG_MODE_OCI, NULL,
            "", "policy.resources", "a CRI-O pod's sizing (none that Kata reads) 0 MiB");
  spec = replace (strdup (sb_spec), "268435456", "0");
  crio_row ("CRI-O's pod sandbox whose pod resources bound no memory", CRIO_SB, spec, KG_MODE_OCI,
            NULL, "policy.resources", "policy.resources", "a pod sandbox that nothing bounds");
  free (spec);
  spec = replace (strdup (sb_spec), "\"pod-linux-resources.crio.io\"", "\"kg.unused\"");
  crio_row ("CRI-O's pod sandbox without pod resources", CRIO_SB, spec, KG_MODE_OCI, NULL,
            "policy.resources", "policy.resources", "pod-linux-resources.crio.io");
  free (spec);
  /* What CRI-O writes when the kubelet sent no pod resources. */
  spec = replace (strdup (sb_spec),
                  "\"{\\\"cpu_shares\\\":204,\\\"memory_limit_in_bytes\\\":268435456}\"",
                  "\"null\"");
  crio_row ("CRI-O's pod sandbox whose pod resources are null", CRIO_SB, spec, KG_MODE_OCI, NULL,
            "policy.resources", "policy.resources", "a pod sandbox that nothing bounds");
  crio_row ("the same without require_memory_limit: allowed (critest, crictl runp)", CRIO_SB, spec,
            KG_MODE_OCI, "require_memory_limit = false", "", "policy.resources",
            "a CRI-O pod's sizing");
  free (spec);
  spec = replace (strdup (sb_spec),
                  "\"{\\\"cpu_shares\\\":204,\\\"memory_limit_in_bytes\\\":268435456}\"",
                  "\"[1]\"");
  crio_row ("CRI-O's pod resources that are an array", CRIO_SB, spec, KG_MODE_OCI,
            "require_memory_limit = false", "policy.resources", "policy.resources",
            "neither null nor a JSON object");
  free (spec);
  /* The same spec as a podman container's: its record is podman's. */
  crio_row ("the sandbox's spec as a podman container: CRI-O's keys refused", CRIO_PODMAN, sb_spec,
            KG_MODE_OCI, NULL, "policy.identity policy.memory_limit policy.confinement",
            "policy.identity", "io.kubernetes.cri-o.KubeName: only CRI-O");
  crio_row ("the sandbox's spec as a podman container: the kubelet's keys refused", CRIO_PODMAN,
            sb_spec, KG_MODE_OCI, NULL, "policy.identity policy.memory_limit policy.confinement",
            "policy.identity", "io.kubernetes.pod.uid: only the kubelet");
  /* A member claiming to be a sandbox, and a sandbox claiming another. */
  free (text);
  if (asprintf (&text, "%s", app_ann) < 0)
    abort ();
  spec = spec_of (NULL, NULL, NULL, NULL, text);
  crio_row ("CRI-O's pod member", CRIO_APP, spec, KG_MODE_SHIM, NULL, "", "policy.identity",
            "a member of pod sandbox " CRIO_SB);
  crio_row ("CRI-O's pod member, runtime_type oci", CRIO_APP, spec, KG_MODE_OCI, NULL, "",
            "policy.identity", "CRI-O, its storage");
  free (spec);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, text), "\"container\"", "\"sandbox\"");
  crio_row ("a CRI-O member whose annotation calls it a sandbox", CRIO_APP, spec, KG_MODE_OCI, NULL,
            "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.ContainerType \"sandbox\", but CRI-O's record");
  free (spec);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, text),
                  "\"io.kubernetes.cri-o.SandboxID\": \"" CRIO_SB,
                  "\"io.kubernetes.cri-o.SandboxID\": \"" ID_A);
  crio_row ("a CRI-O member whose SandboxID names another container", CRIO_APP, spec, KG_MODE_OCI,
            NULL, "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.SandboxID " ID_A ", but CRI-O's record");
  free (spec);
  spec = spec_of (NULL, NULL, NULL, NULL,
                  "\"annotations\": {\"io.kubernetes.cri-o.ContainerType\": \"container\"}");
  crio_row ("a CRI-O member whose record names a pod without a sandbox", CRIO_ORPHAN, spec,
            KG_MODE_OCI, NULL, "policy.identity", "policy.identity",
            "which is no pod sandbox of its storage");
  free (spec);
  spec = spec_of (NULL, NULL, NULL, NULL,
                  "\"annotations\": {\"io.kubernetes.cri.container-type\": \"container\", "
                  "\"io.kubernetes.cri.sandbox-id\": \"" CRIO_SB "\"}");
  crio_row ("containerd's CRI keys in a CRI-O start", CRIO_APP, spec, KG_MODE_SHIM, NULL,
            "policy.identity", "policy.identity",
            "io.kubernetes.cri.container-type: only containerd's CRI");
  free (spec);
  sb_spec = replace (sb_spec, "\"cpu\": {\"shares\": 2}",
                     "\"cpu\": {\"shares\": 2}, \"memory\": {\"limit\": 1}");
  spec = replace (strdup (sb_spec), "{\"type\": \"mount\"}", "{\"type\": \"user\"}");
  crio_row ("CRI-O's pod sandbox: the rest of policy.confinement still holds", CRIO_SB, spec,
            KG_MODE_OCI, NULL, "policy.confinement", "policy.confinement", "no mount namespace");
  free (spec);

  /* A pod's own annotations over CRI-O's keys (CRI-O copies them last):
     the pod name and namespace Kata asks the kubelet for devices by. */
  spec = replace (strdup (sb_spec), "\"io.kubernetes.cri-o.KubeName\": \"p\"",
                  "\"io.kubernetes.cri-o.KubeName\": \"victim\"");
  crio_row ("a CRI-O sandbox whose KubeName names another pod", CRIO_SB, spec, KG_MODE_OCI, NULL,
            "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.KubeName \"victim\", but CRI-O's records say the pod's name is "
            "\"p\"");
  free (spec);
  spec = replace (strdup (sb_spec), "\"io.kubernetes.cri-o.Namespace\": \"default\"",
                  "\"io.kubernetes.cri-o.Namespace\": \"kube-system\"");
  crio_row ("a CRI-O sandbox whose Namespace names another namespace", CRIO_SB, spec, KG_MODE_OCI,
            NULL, "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.Namespace \"kube-system\", but CRI-O's records say the pod's "
            "namespace is \"default\"");
  free (spec);
  spec = replace (strdup (sb_spec), "\"io.kubernetes.cri-o.KubeName\": \"p\"",
                  "\"io.kubernetes.cri-o.ContainerName\": \"k8s_other\"");
  crio_row ("a CRI-O sandbox whose ContainerName is not its record's", CRIO_SB, spec, KG_MODE_OCI,
            NULL, "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.ContainerName \"k8s_other\"");
  free (spec);
  spec = replace (
      strdup (sb_spec), "\"pod-linux-resources.crio.io\"",
      "\"io.kubernetes.cri-o.PodLinuxResources\": \"{}\", \"pod-linux-resources.crio.io\"");
  crio_row ("CRI-O's two pod-resources keys that differ", CRIO_SB, spec, KG_MODE_OCI,
            "require_memory_limit = false", "policy.resources", "policy.resources",
            "differ (one of them is the pod's own annotation)");
  free (spec);
  /* The same id in a second store (podman container restore keeps an
     archive's id): nobody's record, so no CRI-O sandbox. */
  {
    cleanup_free char *dup = NULL;

    if (asprintf (&dup, "%s/crio-run/overlay-containers/containers.json", tmpdir) < 0)
      abort ();
    test_write_text (dup, "[{\"id\": \"" CRIO_SB "\", \"layer\": \"lx\", \"metadata\": "
                          "\"{\\\"name\\\":\\\"x\\\"}\"}]");
    crio_row ("a CRI-O sandbox's id held by a second store: not CRI-O's", CRIO_SB, sb_spec,
              KG_MODE_OCI, NULL, "policy.identity policy.confinement", "policy.identity",
              "only CRI-O");
    unlink (dup);
  }

  /* The files CRI-O binds into a member: its pod sandbox's resolv.conf,
     hostname, shm and .containerenv (run root), the kubelet's etc-hosts
     of the pod; another pod's are refused. */
  if (asprintf (&mounts,
                "{\"destination\": \"/etc/resolv.conf\", \"type\": \"bind\", \"source\": "
                "\"%s/crio-run/overlay-containers/" CRIO_SB "/userdata/resolv.conf\", \"options\": "
                "[\"rbind\", \"rw\"]}, "
                "{\"destination\": \"/run/.containerenv\", \"type\": \"bind\", \"source\": "
                "\"%s/crio-run/overlay-containers/" CRIO_SB
                "/userdata/.containerenv\", \"options\": "
                "[\"rbind\", \"rw\"]}, "
                "{\"destination\": \"/etc/hosts\", \"type\": \"bind\", \"source\": "
                "\"%s/crio-kubelet/pods/" CRIO_UID
                "/etc-hosts\", \"options\": [\"rbind\", \"rw\"]}",
                tmpdir, tmpdir, tmpdir)
          < 0
      || asprintf (&other,
                   "{\"destination\": \"/etc/resolv.conf\", \"type\": \"bind\", \"source\": "
                   "\"%s/crio-run/overlay-containers/" CRIO_ORPHAN
                   "/userdata/resolv.conf\", \"options\": [\"rbind\", \"rw\"]}",
                   tmpdir)
             < 0)
    abort ();
  spec = spec_of (NULL, mounts, NULL, NULL, text);
  crio_row ("a CRI-O member binds its pod's files as CRI-O binds them", CRIO_APP, spec, KG_MODE_OCI,
            NULL, "", NULL, NULL);
  free (spec);
  spec = spec_of (NULL, other, NULL, NULL, text);
  crio_row ("a CRI-O member binding another container's resolv.conf", CRIO_APP, spec, KG_MODE_OCI,
            NULL, "policy.mounts", "policy.mounts", "podman's storage");
  free (spec);
  spec = spec_of (NULL, mounts, NULL, NULL, "\"annotations\": {}");
  crio_row ("the same binds in a podman container: not its files", CRIO_PODMAN, spec, KG_MODE_OCI,
            NULL, "policy.mounts", "policy.mounts", "podman's storage");
  free (spec);
}

/* A remedy is in the words of the engine that started the container:
   Docker's and podman's flags, ctr's (its memory limit in bytes, no CPU
   limit asked where the vCPUs fit), a pod spec's keys under CRI, and the
   spec's own keys where no engine can be told. */
static void
words_row (const char *name, enum kg_mode mode, const char *ns, const char *spec, const char *id,
           const char *want, const char * not )
{
  struct report rep;

  run_mode = mode;
  run_ns = ns;
  run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
  run_mode = KG_MODE_CHECK;
  run_ns = NULL;
  expect_remedy (&rep, name, id, want, not );
  report_release (&rep);
}

static void
test_engine_words (void)
{
  cleanup_free char *nolimit = spec_of (NULL, NULL, "", NULL, NULL);
  cleanup_free char *big = spec_of (NULL, NULL, "\"memory\": {\"limit\": 68719476736}", NULL, NULL);
  cleanup_free char *bigcpu = spec_of (NULL, NULL,
                                       "\"memory\": {\"limit\": 268435456}, \"cpu\": "
                                       "{\"quota\": 6400000, \"period\": 100000}",
                                       NULL, NULL);
  cleanup_free char *hostnet = replace (spec_of (NULL, NULL, NULL, NULL, NULL),
                                        "{\"type\": \"network\"}, ", "");
  cleanup_free char *capadd = spec_of ("\"CAP_SYS_ADMIN\"", NULL, NULL, NULL, NULL);
  cleanup_free char *unconfined = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"process\": {",
                                           "\"process\": {\"apparmorProfile\": \"unconfined\", ");

  words_row ("ctr, no memory limit", KG_MODE_SHIM, "default", nolimit, "policy.memory_limit",
             "ctr run --memory-limit BYTES", "(--memory)");
  words_row ("Docker, no memory limit", KG_MODE_SHIM, "moby", nolimit, "policy.memory_limit",
             "(--memory)", "ctr");
  words_row ("CRI, no memory limit", KG_MODE_SHIM, "k8s.io", nolimit, "policy.memory_limit",
             "the pod spec's resources.limits.memory", "--memory");
  words_row ("no engine, no memory limit", KG_MODE_CHECK, NULL, nolimit, "policy.memory_limit",
             "linux.resources.memory.limit", "--memory");
  words_row ("ctr, a VM over the memory maximum", KG_MODE_SHIM, "default", big, "policy.resources",
             "ctr run --memory-limit BYTES", "--cpus");
  words_row ("Docker, a VM over the memory maximum: no CPU limit asked", KG_MODE_SHIM, "moby", big,
             "policy.resources", "a memory limit (--memory) of at most 14336 MiB", "--cpus");
  words_row ("Docker, a VM over the vCPU maximum", KG_MODE_SHIM, "moby", bigcpu, "policy.resources",
             "a CPU limit (--cpus)", NULL);
  words_row ("ctr, a VM over the vCPU maximum", KG_MODE_SHIM, "default", bigcpu, "policy.resources",
             "a CPU limit (ctr run --cpus)", NULL);
  words_row ("ctr, the host's network", KG_MODE_SHIM, "default", hostnet, "policy.namespaces",
             "ctr run --net-host", "--network host");
  words_row ("Docker, the host's network", KG_MODE_SHIM, "moby", hostnet, "policy.namespaces",
             "--network host", "ctr");
  words_row ("CRI, the host's network", KG_MODE_SHIM, "k8s.io", hostnet, "policy.namespaces",
             "hostNetwork", "--network host");
  words_row ("ctr, an added capability", KG_MODE_SHIM, "default", capadd, "policy.capabilities",
             "no ctr run --cap-add", NULL);
  words_row ("CRI, an added capability", KG_MODE_SHIM, "k8s.io", capadd, "policy.capabilities",
             "securityContext.capabilities.add", "--cap-add");
  /* Issue 48: a remedy's "(no %s)" read "no an ..." and "no the ..." where
     no engine is known. */
  words_row ("no engine, the host's network", KG_MODE_CHECK, NULL, hostnet, "policy.namespaces",
             "(no host namespaces in linux.namespaces)", "no the ");
  words_row ("no engine, AppArmor unconfined", KG_MODE_CHECK, NULL, unconfined,
             "policy.confinement", "(no AppArmor profile but the engines' defaults,", "no an ");
  words_row ("Docker, AppArmor unconfined", KG_MODE_SHIM, "moby", unconfined, "policy.confinement",
             "(no --security-opt apparmor=unconfined,", "no an ");
}

static unsigned ns_asked;

static int
count_ns_stat (unsigned long pid, int k, struct stat *st)
{
  char path[64];

  ns_asked++;
  snprintf (path, sizeof path, "/proc/%lu/ns/%s", pid, engine_ns_proc_name (k));
  return stat (path, st);
}

/* policy.namespaces asks the parent exactly as often as it declares
   (policy_namespaces_asks, request-list.h): the parent's budget is that
   count, on its own parse of the same spec.  The rows replace the
   default list (network, pid, ipc, uts, mount). */
static void
test_namespaces_asks (void)
{
  static const char *const lists[] = {
    "{\"type\": \"network\", \"path\": \"/proc/PID/ns/net\"}, {\"type\": \"pid\"}",
    "{\"type\": \"network\", \"path\": \"/proc/PID/ns/net\"}, {\"type\": \"pid\", \"path\": "
    "\"/proc/PID/ns/pid\"}, {\"type\": \"ipc\", \"path\": \"/proc/PID/ns/ipc\"}, {\"type\": "
    "\"uts\", \"path\": \"/proc/PID/ns/uts\"}",
    /* A kind listed twice is refused unasked. */
    "{\"type\": \"network\", \"path\": \"/proc/PID/ns/net\"}, {\"type\": \"network\", "
    "\"path\": \"/proc/PID/ns/net\"}, {\"type\": \"pid\", \"path\": \"/proc/PID/ns/pid\"}",
    /* Another kind's path, /proc/self, a path not by a process, pid 0,
       a leading zero, a path that is no string. */
    "{\"type\": \"network\", \"path\": \"/proc/PID/ns/ipc\"}, {\"type\": \"pid\", \"path\": "
    "\"/proc/self/ns/pid\"}, {\"type\": \"ipc\", \"path\": \"/proc/0/ns/ipc\"}, {\"type\": "
    "\"uts\", \"path\": \"/proc/0PID/ns/uts\"}, {\"type\": \"mount\", \"path\": "
    "\"/proc/PID/ns/mnt\"}",
    "{\"type\": \"network\", \"path\": 7}, {\"type\": \"pid\", \"path\": \"/run/netns/x\"}",
  };

  for (size_t i = 0; i < ARRAY_SIZE (lists); i++)
    {
      cleanup_free char *spec
          = replace (spec_of (NULL, NULL, NULL, NULL, NULL),
                     "{\"type\": \"network\"}, {\"type\": \"pid\"}, {\"type\": \"ipc\"}, "
                     "{\"type\": \"uts\"}, {\"type\": \"mount\"}",
                     lists[i]);
      size_t declared;
      bool same;

      ns_asked = 0;
      run_ns_stat = count_ns_stat;
      same = asks_as_declared (spec, policy_namespaces_asks, &ns_asked, "policy.namespaces",
                               &declared);
      run_ns_stat = NULL;
      ok (same, "namespaces %zu: policy.namespaces asks %u times, declares %zu", i, ns_asked,
          declared);
    }
}

int
main (void)
{
  policy_test_start ();
  test_pods ();
  test_vm_claims ();
  test_identity ();
  test_crio ();
  test_namespaces ();
  test_namespaces_asks ();
  test_engine_words ();
  return policy_test_end ();
}
