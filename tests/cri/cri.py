#!/usr/bin/python3
"""cri.py: a small CRI (kubernetes runtime.v1) client for tests.

  cri.py --socket SOCK VERB [ARGS]

VERBs:
  version | status | images | pods | ps        what the runtime says (JSON)
  image-wait REF... [--wait S]                  wait until CRI sees the images
  inspectp POD | inspect CTR                    verbose status (JSON)
  exec CTR CMD...                               ExecSync; prints stdout/stderr
  stopp POD | rmp POD | stop CTR | rm CTR
  cleanup                                       stop and remove every pod
  scenario --handler H [options]                the pod test (below)

scenario: what a kubelet does for one pod with two app containers:
RunPodSandbox (runtime_handler H), PodSandboxStatus, CreateContainer +
StartContainer twice, ContainerStatus, ExecSync in the first, ListContainers,
then StopContainer, RemoveContainer, StopPodSandbox, RemovePodSandbox, and a
check that nothing of the pod is left.  By default the configs are the ones a
kubelet sends (labels, annotations, cgroup parent, DNS, port mapping, pod
resources (and --overhead), container limits, masked/readonly paths, and the
binds: emptyDir, projected service-account token, /etc/hosts,
/dev/termination-log from a fake kubelet dir --kubelet-dir/pods/<uid>/...);
--minimal sends only what CRI requires.  --hostnet: network namespace NODE.

Every step prints one line: "ok|FAIL|skip  STEP  SECONDSs  [info]"; a
failed call prints the gRPC status verbatim on the next lines:
    code: Unknown
    details: <the status message, exactly as the runtime sent it>
    as Go prints it: rpc error: code = Unknown desc = <details>
(the kubelet puts that string in the pod's events: kubectl describe pod).
--result FILE writes every step as JSON.  Exit status: 0 every step passed,
1 a step failed, 2 usage.
"""
import argparse, atexit, json, os, shutil, subprocess, sys, tempfile, time, uuid, zlib

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import grpc
    from google.protobuf import json_format
except ImportError:
    sys.exit("cri.py: needs python3-grpcio and python3-grpc-tools (Debian: run it with /usr/bin/python3)")


def load_stubs(proto):
    """Generate the Python stubs of PROTO into a temp dir and import them."""
    out = tempfile.mkdtemp(prefix="cri-stubs.")
    atexit.register(shutil.rmtree, out, True)
    r = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.dirname(proto),
                        "--python_out", out, "--grpc_python_out", out, os.path.basename(proto)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("cri.py: protoc failed: " + r.stderr)
    sys.path.insert(0, out)
    name = os.path.splitext(os.path.basename(proto))[0]
    return __import__(name + "_pb2"), __import__(name + "_pb2_grpc")


# Go's names of the gRPC codes, as in "rpc error: code = Unknown desc = ..."
GO_CODE = {"OK": "OK", "CANCELLED": "Canceled", "UNKNOWN": "Unknown", "INVALID_ARGUMENT": "InvalidArgument",
           "DEADLINE_EXCEEDED": "DeadlineExceeded", "NOT_FOUND": "NotFound", "ALREADY_EXISTS": "AlreadyExists",
           "PERMISSION_DENIED": "PermissionDenied", "RESOURCE_EXHAUSTED": "ResourceExhausted",
           "FAILED_PRECONDITION": "FailedPrecondition", "ABORTED": "Aborted", "OUT_OF_RANGE": "OutOfRange",
           "UNIMPLEMENTED": "Unimplemented", "INTERNAL": "Internal", "UNAVAILABLE": "Unavailable",
           "DATA_LOSS": "DataLoss", "UNAUTHENTICATED": "Unauthenticated"}


def js(msg):
    return json_format.MessageToDict(msg, preserving_proto_field_name=True)


class Client:
    def __init__(self, pb, stubs, socket, timeout):
        self.pb = pb
        ch = grpc.insecure_channel("unix://" + socket)
        self.rt = stubs.RuntimeServiceStub(ch)
        self.img = stubs.ImageServiceStub(ch)
        self.timeout = timeout

    def call(self, svc, method, req, timeout=None):
        return getattr(svc, method)(req, timeout=timeout or self.timeout)


class Steps:
    """Runs and records the scenario's steps."""

    def __init__(self):
        self.steps = []
        self.failed = False

    def run(self, name, fn, info=None):
        t0 = time.monotonic()
        rec = {"step": name}
        try:
            res = fn()
            dt = time.monotonic() - t0
            rec.update(ok=True, seconds=round(dt, 3))
            text = info(res) if info else ""
            if text:
                rec["info"] = text
            print("ok    %-34s %7.3fs  %s" % (name, dt, text), flush=True)
            self.steps.append(rec)
            return res
        except grpc.RpcError as e:
            dt = time.monotonic() - t0
            code = GO_CODE.get(e.code().name, e.code().name)
            rec.update(ok=False, seconds=round(dt, 3), code=code, details=e.details())
            print("FAIL  %-34s %7.3fs" % (name, dt), flush=True)
            print("    code: %s" % code)
            print("    details: %s" % e.details())
            print("    as Go prints it: rpc error: code = %s desc = %s" % (code, e.details()), flush=True)
        except StepError as e:
            dt = time.monotonic() - t0
            rec.update(ok=False, seconds=round(dt, 3), details=str(e))
            print("FAIL  %-34s %7.3fs" % (name, dt), flush=True)
            print("    %s" % str(e).replace("\n", "\n    "), flush=True)
        self.failed = True
        self.steps.append(rec)
        return None

    def skip(self, name, why):
        print("skip  %-34s %8s  %s" % (name, "", why), flush=True)
        self.steps.append({"step": name, "skipped": why})


class StepError(Exception):
    pass


# ---------------------------------------------------------------- kubelet-like configs

MASKED = ["/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
          "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware",
          "/sys/devices/virtual/powercap"]
READONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
MiB = 1024 * 1024


def mem_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 0


def linux_resources(pb, cpu_req_m, cpu_lim_m, mem_lim, swap=False, oom=None):
    """kubelet's calculateLinuxResources (CFS quota on, period 100ms)."""
    r = pb.LinuxContainerResources()
    if cpu_req_m is not None:
        r.cpu_shares = max(2, cpu_req_m * 1024 // 1000)
    if cpu_lim_m:
        r.cpu_period = 100000
        r.cpu_quota = cpu_lim_m * 100000 // 1000
    if mem_lim:
        r.memory_limit_in_bytes = mem_lim
        if swap:
            # cgroup v1 without NodeSwap: swap limit = memory limit (no swap)
            r.memory_swap_limit_in_bytes = mem_lim
    if oom is not None:
        r.oom_score_adj = oom
    # The kubelet sends every hugepage size the node has, limit 0 when not requested.
    for d in sorted(os.listdir("/sys/kernel/mm/hugepages")) if swap and os.path.isdir("/sys/kernel/mm/hugepages") else []:
        kb = int(d[len("hugepages-"):-2])
        size = "%dGB" % (kb // 1048576) if kb >= 1048576 else "%dMB" % (kb // 1024) if kb >= 1024 else "%dKB" % kb
        r.hugepage_limits.add(page_size=size, limit=0)
    return r


class Pod:
    """One pod: its ids, its fake kubelet dir, the configs a kubelet sends."""

    CONTAINERS = [
        # name, command, cpu request/limit (millicores), memory request/limit
        ("app1", ["sh", "-c", "trap 'exit 0' TERM; echo app1 started; while :; do sleep 1; done"], 100, 500, 64 * MiB, 128 * MiB),
        ("app2", ["sh", "-c", "trap 'exit 0' TERM; echo hello-from-app2 >/data/app2; echo app2 started; while :; do sleep 1; done"],
         100, 500, 64 * MiB, 128 * MiB),
    ]

    def __init__(self, pb, a):
        self.pb, self.a = pb, a
        self.uid = str(uuid.uuid4())
        self.name = a.name or ("kg-cri-%s-%s" % ("hostnet" if a.hostnet else "pod", self.uid[:5]))
        self.ns = a.namespace
        self.kdir = os.path.join(a.kubelet_dir, "pods", self.uid)
        self.logdir = os.path.join(a.log_root, "%s_%s_%s" % (self.ns, self.name, self.uid))
        # The kubelet sets no hostname for a host-network pod (runc refuses one
        # without a private UTS namespace).
        self.hostname = "" if a.hostnet else self.name

    # --- the pod's files, as a kubelet makes them
    def make_dirs(self):
        os.makedirs(self.logdir, exist_ok=True)
        for c in self.CONTAINERS:  # the kubelet makes each container's log dir (conmon does not)
            os.makedirs(os.path.join(self.logdir, c[0]), exist_ok=True)
        if self.a.minimal:
            return
        os.makedirs(os.path.join(self.kdir, "volumes", "kubernetes.io~empty-dir", "data"), exist_ok=True)
        # projected service-account token (the kubelet's atomic writer layout; a real
        # kubelet puts it on a tmpfs)
        proj = os.path.join(self.kdir, "volumes", "kubernetes.io~projected", "kube-api-access-kgcri")
        ts = os.path.join(proj, "..2024_01_01_00_00_00.000000001")
        os.makedirs(ts, exist_ok=True)
        for f, data in (("token", "eyJhbGciOiJSUzI1NiJ9.fake.token"), ("namespace", self.ns),
                        ("ca.crt", "-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n")):
            with open(os.path.join(ts, f), "w") as fh:
                fh.write(data)
            if not os.path.lexists(os.path.join(proj, f)):
                os.symlink(os.path.join("..data", f), os.path.join(proj, f))
        if not os.path.lexists(os.path.join(proj, "..data")):
            os.symlink(os.path.basename(ts), os.path.join(proj, "..data"))
        self.write_hosts("")
        for c in self.CONTAINERS:
            d = os.path.join(self.kdir, "containers", c[0])
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "3f1a2b4c"), "a").close()

    def write_hosts(self, ip):
        path = os.path.join(self.kdir, "etc-hosts")
        if self.a.hostnet:
            with open("/etc/hosts") as f:
                text = "# Kubernetes-managed hosts file (host network).\n" + f.read()
        else:
            text = ("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                    "fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
            if ip:
                text += "%s\t%s\n" % (ip, self.name)
        with open(path, "w") as f:
            f.write(text)

    # --- RunPodSandbox's config
    def sandbox_config(self):
        pb, a = self.pb, self.a
        net = pb.NODE if a.hostnet else pb.POD
        cfg = pb.PodSandboxConfig(
            metadata=pb.PodSandboxMetadata(name=self.name, uid=self.uid, namespace=self.ns, attempt=0),
            hostname=self.hostname, log_directory=self.logdir)
        sc = cfg.linux.security_context
        sc.namespace_options.network = net
        sc.namespace_options.pid = pb.CONTAINER
        sc.namespace_options.ipc = pb.POD
        if a.minimal:
            return cfg
        cfg.labels.update({"io.kubernetes.pod.name": self.name, "io.kubernetes.pod.namespace": self.ns,
                           "io.kubernetes.pod.uid": self.uid, "app": "kg-cri"})
        cfg.annotations.update({"kubernetes.io/config.seen": time.strftime("%Y-%m-%dT%H:%M:%S.000000000Z", time.gmtime()),
                                "kubernetes.io/config.source": "api"})
        if a.hostnet:
            # dnsPolicy ClusterFirst on the host network falls back to the node's resolv.conf
            servers, searches, options = [], [], []
            with open("/etc/resolv.conf") as f:
                for line in f:
                    w = line.split()
                    if w and w[0] == "nameserver":
                        servers += w[1:2]
                    elif w and w[0] == "search":
                        searches += w[1:]
                    elif w and w[0] == "options":
                        options += w[1:]
            cfg.dns_config.CopyFrom(pb.DNSConfig(servers=servers, searches=searches, options=options))
            cfg.port_mappings.add(protocol=pb.TCP, container_port=8080, host_port=8080)
        else:
            cfg.dns_config.CopyFrom(pb.DNSConfig(servers=["10.96.0.10"],
                                                 searches=["%s.svc.cluster.local" % self.ns, "svc.cluster.local", "cluster.local"],
                                                 options=["ndots:5"]))
            cfg.port_mappings.add(protocol=pb.TCP, container_port=8080)
        cfg.linux.cgroup_parent = "%s/kubepods/burstable/pod%s" % (a.cgroup_root, self.uid)
        sc.seccomp.profile_type = pb.SecurityProfile.RuntimeDefault if a.seccomp == "runtime-default" else pb.SecurityProfile.Unconfined
        # The pod's resources: the sum of its containers' (overhead excluded) ...
        cpu_req = sum(c[2] for c in self.CONTAINERS)
        cpu_lim = sum(c[3] for c in self.CONTAINERS)
        mem_lim = sum(c[5] for c in self.CONTAINERS)
        cfg.linux.resources.CopyFrom(linux_resources(pb, cpu_req, cpu_lim, mem_lim))
        # ... and the RuntimeClass's podFixed overhead.
        if a.overhead:
            cpu_m, mem_mib = (int(x) for x in a.overhead.split(","))
            cfg.linux.overhead.CopyFrom(linux_resources(pb, cpu_m, cpu_m, mem_mib * MiB))
        return cfg

    # --- CreateContainer's config
    def container_config(self, idx, image_ref, user_image):
        pb, a = self.pb, self.a
        name, cmd, cpu_req, cpu_lim, mem_req, mem_lim = self.CONTAINERS[idx]
        c = pb.ContainerConfig(metadata=pb.ContainerMetadata(name=name, attempt=0),
                               image=pb.ImageSpec(image=image_ref, user_specified_image=user_image), command=cmd[:1], args=cmd[1:],
                               log_path="%s/0.log" % name)
        sc = c.linux.security_context
        sc.namespace_options.network = pb.NODE if a.hostnet else pb.POD
        sc.namespace_options.pid = pb.CONTAINER
        sc.namespace_options.ipc = pb.POD
        if a.minimal:
            return c
        c.working_dir = "/"
        c.labels.update({"io.kubernetes.container.name": name, "io.kubernetes.pod.name": self.name,
                         "io.kubernetes.pod.namespace": self.ns, "io.kubernetes.pod.uid": self.uid})
        c.annotations.update({"io.kubernetes.container.hash": "%08x" % zlib.crc32(name.encode()),
                              "io.kubernetes.container.restartCount": "0",
                              "io.kubernetes.container.terminationMessagePath": "/dev/termination-log",
                              "io.kubernetes.container.terminationMessagePolicy": "File",
                              "io.kubernetes.pod.terminationGracePeriod": "30"})
        for k, v in (("KUBERNETES_SERVICE_HOST", "10.96.0.1"), ("KUBERNETES_SERVICE_PORT", "443"),
                     ("KUBERNETES_SERVICE_PORT_HTTPS", "443"), ("KUBERNETES_PORT", "tcp://10.96.0.1:443"),
                     ("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443"), ("KUBERNETES_PORT_443_TCP_PROTO", "tcp"),
                     ("KUBERNETES_PORT_443_TCP_PORT", "443"), ("KUBERNETES_PORT_443_TCP_ADDR", "10.96.0.1")):
            c.envs.add(key=k, value=v)
        vol = os.path.join(self.kdir, "volumes")
        c.mounts.add(container_path="/data", host_path=os.path.join(vol, "kubernetes.io~empty-dir", "data"))
        c.mounts.add(container_path="/var/run/secrets/kubernetes.io/serviceaccount", readonly=True,
                     host_path=os.path.join(vol, "kubernetes.io~projected", "kube-api-access-kgcri"))
        c.mounts.add(container_path="/etc/hosts", host_path=os.path.join(self.kdir, "etc-hosts"))
        c.mounts.add(container_path="/dev/termination-log",
                     host_path=os.path.join(self.kdir, "containers", name, "3f1a2b4c"))
        # Burstable QoS: oom_score_adj = 1000 - 1000 * memory request / node memory
        if idx == 1 and a.app2 == "hostpath-etc":
            # a hostPath volume of the node's /etc, read-only
            c.mounts.add(container_path="/host-etc", host_path="/etc", readonly=True)
        oom = min(999, max(2, 1000 - (1000 * mem_req) // max(1, mem_total())))
        c.linux.resources.CopyFrom(linux_resources(pb, cpu_req, cpu_lim, mem_lim, swap=True, oom=oom))
        sc.seccomp.profile_type = pb.SecurityProfile.RuntimeDefault if a.seccomp == "runtime-default" else pb.SecurityProfile.Unconfined
        sc.masked_paths.extend(MASKED)
        sc.readonly_paths.extend(READONLY)
        return c


def copy_spec(a, cid, dest_name, verbose_info=None):
    """The bundle's config.json (what the shim was given), else CRI's runtimeSpec."""
    if not a.specs:
        return ""
    os.makedirs(a.specs, exist_ok=True)
    dest = os.path.join(a.specs, dest_name + ".json")
    src = os.path.join(a.state, "io.containerd.runtime.v2.task", "k8s.io", cid, "config.json") if a.state else ""
    if a.spec_path:
        src = a.spec_path.replace("{id}", cid)
    what = ""
    if src and os.path.exists(src):
        shutil.copyfile(src, dest)
        what = "spec -> " + dest
    elif verbose_info and "info" in verbose_info:
        spec = json.loads(verbose_info["info"]).get("runtimeSpec")
        if spec:
            with open(dest, "w") as f:
                json.dump(spec, f, indent=2)
            what = "spec (CRI's runtimeSpec: no bundle) -> " + dest
    if not what:
        return "no spec to copy"
    if a.on_spec:
        # e.g. `kata-guard check --bundle`, while the pod's files still exist
        r = subprocess.run(a.on_spec + [dest_name, dest, cid], capture_output=True, text=True)
        what += "\n    on-spec (exit %d):\n" % r.returncode + "".join("      " + l + "\n" for l in (r.stdout + r.stderr).splitlines())
    return what.rstrip("\n")


def scenario(cl, a):
    pb = cl.pb
    S = Steps()
    pod = Pod(pb, a)
    print("# scenario: handler=%r hostnet=%s %s pod=%s/%s uid=%s" % (
        a.handler, "yes" if a.hostnet else "no", "minimal" if a.minimal else "kubelet-like", pod.ns, pod.name, pod.uid), flush=True)
    t_all = time.monotonic()
    tag = a.tag or a.handler or "default"

    S.run("Version", lambda: cl.call(cl.rt, "Version", pb.VersionRequest(version="v1")),
          lambda r: "%s %s (CRI %s)" % (r.runtime_name, r.runtime_version, r.runtime_api_version))
    S.run("Status", lambda: cl.call(cl.rt, "Status", pb.StatusRequest()),
          lambda r: " ".join("%s=%s%s" % (c.type, c.status, (" (" + c.message + ")") if c.message else "") for c in r.status.conditions))
    images = {}
    for ref in (a.image,):
        r = S.run("ImageStatus " + ref, lambda: cl.call(cl.img, "ImageStatus", pb.ImageStatusRequest(image=pb.ImageSpec(image=ref))),
                  lambda r: r.image.id or "NOT PRESENT")
        images[ref] = r.image.id if r and r.image.id else ref
    pod.make_dirs()
    cfg = pod.sandbox_config()
    if a.dump_configs:
        print(json.dumps({"RunPodSandboxRequest": js(pb.RunPodSandboxRequest(config=cfg, runtime_handler=a.handler))}, indent=1))
    r = S.run("RunPodSandbox", lambda: cl.call(cl.rt, "RunPodSandbox", pb.RunPodSandboxRequest(config=cfg, runtime_handler=a.handler),
                                               timeout=a.timeout), lambda r: "id=" + r.pod_sandbox_id)
    pod_id = r.pod_sandbox_id if r else None
    ctrs = []
    if pod_id:
        st = S.run("PodSandboxStatus", lambda: cl.call(cl.rt, "PodSandboxStatus", pb.PodSandboxStatusRequest(pod_sandbox_id=pod_id, verbose=True)),
                   lambda r: "state=%s ip=%s handler=%s" % (pb.PodSandboxState.Name(r.status.state), r.status.network.ip or "-",
                                                            r.status.runtime_handler))
        info = dict(st.info) if st else {}
        if info.get("info"):
            i = json.loads(info["info"])
            print("    pid=%s netns=%s" % (i.get("pid"), i.get("runtimeSpec", {}).get("linux", {}).get("namespaces", [{}])[-1:]), flush=True)
        print("    " + copy_spec(a, pod_id, tag + "-pause", info), flush=True)
        if st and not a.minimal:
            pod.write_hosts(st.status.network.ip)
        for i in range(len(Pod.CONTAINERS)):
            name = Pod.CONTAINERS[i][0]
            cc = pod.container_config(i, images[a.image], a.image)
            if a.dump_configs:
                print(json.dumps({"CreateContainerRequest": js(pb.CreateContainerRequest(pod_sandbox_id=pod_id, config=cc))}, indent=1))
            r = S.run("CreateContainer " + name, lambda: cl.call(cl.rt, "CreateContainer", pb.CreateContainerRequest(
                pod_sandbox_id=pod_id, config=cc, sandbox_config=cfg)), lambda r: "id=" + r.container_id)
            if not r:
                continue
            cid = r.container_id
            ctrs.append((name, cid))
            ok = S.run("StartContainer " + name, lambda: cl.call(cl.rt, "StartContainer", pb.StartContainerRequest(container_id=cid),
                                                                 timeout=a.timeout))
            cs = S.run("ContainerStatus " + name, lambda: cl.call(cl.rt, "ContainerStatus", pb.ContainerStatusRequest(container_id=cid, verbose=True)),
                       lambda r: "state=%s exit=%d reason=%s %s" % (pb.ContainerState.Name(r.status.state), r.status.exit_code,
                                                                    r.status.reason or "-", r.status.message))
            print("    " + copy_spec(a, cid, "%s-%s" % (tag, name), dict(cs.info) if cs else None), flush=True)
            if ok is not None and cs and cs.status.state != pb.CONTAINER_RUNNING:
                S.run("%s running" % name, lambda: (_ for _ in ()).throw(StepError(
                    "state %s: %s %s" % (pb.ContainerState.Name(cs.status.state), cs.status.reason, cs.status.message))))
        running = [c for c in ctrs if any(s.get("ok") and s["step"] == "StartContainer " + c[0] for s in S.steps)]
        if running:
            name, cid = running[0]
            if a.hostnet:
                script = "hostname; ip -o link | wc -l; head -1 /etc/hosts; cat /sys/fs/cgroup/memory/memory.limit_in_bytes"
            elif a.minimal:
                script = "hostname; ip -4 -o addr show eth0 | awk '{print $4}'; cat /sys/fs/cgroup/memory/memory.limit_in_bytes"
            else:
                script = ("hostname; ip -4 -o addr show eth0 | awk '{print $4}'; cat /sys/fs/cgroup/memory/memory.limit_in_bytes; "
                          "head -1 /etc/hosts; cat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo; "
                          "grep -E '^(nameserver|search)' /etc/resolv.conf | tr '\\n' ';'; echo; "
                          "")
                if len(running) > 1:  # app2 writes into the shared emptyDir
                    script += "i=0; while [ ! -s /data/app2 ] && [ $i -lt 20 ]; do sleep 0.2; i=$((i+1)); done; cat /data/app2"

            def ex():
                r = cl.call(cl.rt, "ExecSync", pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", script], timeout=20), timeout=30)
                if r.exit_code != 0:
                    raise StepError("exit %d, stderr: %s" % (r.exit_code, r.stderr.decode(errors="replace")))
                return r
            r = S.run("ExecSync " + name, ex, lambda r: "exit=%d" % r.exit_code)
            if r:
                for line in r.stdout.decode(errors="replace").splitlines():
                    print("    | " + line)
        else:
            S.skip("ExecSync", "no running container")
        S.run("ListContainers", lambda: cl.call(cl.rt, "ListContainers", pb.ListContainersRequest(filter=pb.ContainerFilter(pod_sandbox_id=pod_id))),
              lambda r: " ".join("%s=%s" % (c.metadata.name, pb.ContainerState.Name(c.state)) for c in r.containers))
        S.run("ListPodSandbox", lambda: cl.call(cl.rt, "ListPodSandbox", pb.ListPodSandboxRequest(filter=pb.PodSandboxFilter(id=pod_id))),
              lambda r: " ".join("%s=%s" % (p.metadata.name, pb.PodSandboxState.Name(p.state)) for p in r.items))
    else:
        S.skip("containers", "no sandbox")
    if a.keep:
        print("# --keep: pod %s left running" % pod_id)
    else:
        for name, cid in ctrs:
            S.run("StopContainer " + name, lambda: cl.call(cl.rt, "StopContainer", pb.StopContainerRequest(container_id=cid, timeout=10),
                                                          timeout=a.timeout))
        for name, cid in ctrs:
            S.run("RemoveContainer " + name, lambda: cl.call(cl.rt, "RemoveContainer", pb.RemoveContainerRequest(container_id=cid)))
        if pod_id:
            S.run("StopPodSandbox", lambda: cl.call(cl.rt, "StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=pod_id), timeout=a.timeout))
            S.run("RemovePodSandbox", lambda: cl.call(cl.rt, "RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=pod_id), timeout=a.timeout))

            def gone():
                p = cl.call(cl.rt, "ListPodSandbox", pb.ListPodSandboxRequest(filter=pb.PodSandboxFilter(id=pod_id))).items
                c = cl.call(cl.rt, "ListContainers", pb.ListContainersRequest(filter=pb.ContainerFilter(pod_sandbox_id=pod_id))).containers
                if p or c:
                    raise StepError("left: %d sandboxes, %d containers" % (len(p), len(c)))
            S.run("nothing left of the pod", gone)
    total = time.monotonic() - t_all
    print("# %s: %s in %.3fs (%d steps, %d failed)" % (tag, "FAIL" if S.failed else "PASS", total, len(S.steps),
                                                     sum(1 for s in S.steps if s.get("ok") is False)), flush=True)
    if a.result:
        with open(a.result, "w") as f:
            json.dump({"handler": a.handler, "hostnet": a.hostnet, "minimal": a.minimal, "pod": pod.name, "uid": pod.uid,
                       "sandbox_id": pod_id, "containers": dict(ctrs), "passed": not S.failed, "seconds": round(total, 3),
                       "steps": S.steps}, f, indent=1)
    return 1 if S.failed else 0


# ---------------------------------------------------------------- the other verbs

def main():
    p = argparse.ArgumentParser(description="a small CRI runtime.v1 client", epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--socket", required=True, help="the CRI socket (containerd's gRPC socket, CRI-O's)")
    p.add_argument("--proto", default=os.path.join(HERE, "runtime.proto"))
    p.add_argument("--timeout", type=float, default=120, help="seconds per call (default 120)")
    sub = p.add_subparsers(dest="verb", required=True)
    for v in ("version", "status", "images", "pods", "ps", "cleanup"):
        sub.add_parser(v)
    w = sub.add_parser("image-wait")
    w.add_argument("refs", nargs="+")
    w.add_argument("--wait", type=float, default=20)
    for v in ("inspectp", "inspect", "stopp", "rmp", "stop", "rm"):
        sub.add_parser(v).add_argument("id")
    e = sub.add_parser("exec")
    e.add_argument("id")
    e.add_argument("cmd", nargs=argparse.REMAINDER)
    s = sub.add_parser("scenario")
    s.add_argument("--handler", default="", help="runtime_handler (containerd runtime name); '' = the default")
    s.add_argument("--hostnet", action="store_true", help="network namespace NODE (hostNetwork: true)")
    s.add_argument("--minimal", action="store_true", help="only what CRI needs: no labels, limits, binds")
    s.add_argument("--image", default="kg.local/busybox:test", help="the app containers' image (already imported)")
    s.add_argument("--name", help="pod name (default kg-cri-pod-<uid>)")
    s.add_argument("--namespace", default="default")
    s.add_argument("--tmp", default=None, help="where the fake kubelet and log dirs go (default a new temp dir)")
    s.add_argument("--kubelet-dir", help="fake kubelet root (default TMP/kubelet); binds come from its pods/<uid>/")
    s.add_argument("--log-root", help="default TMP/log/pods")
    s.add_argument("--cgroup-root", default="/kg-cri", help="prefix of the pod's cgroup parent (default /kg-cri: "
                   "the parent is /kg-cri/kubepods/burstable/pod<uid>, a kubelet's is /kubepods/burstable/pod<uid>)")
    s.add_argument("--overhead", help="RuntimeClass podFixed overhead CPU_MILLI,MEM_MIB (e.g. 250,160)")
    s.add_argument("--seccomp", choices=("unconfined", "runtime-default"), default="unconfined",
                   help="the pod's and containers' seccomp (a kubelet's default: unconfined)")
    s.add_argument("--app2", choices=("normal", "hostpath-etc"), default="normal",
                   help="hostpath-etc: app2 also gets the node's /etc read-only (a bind the guard refuses)")
    s.add_argument("--state", help="containerd's state dir: copy the bundles' config.json from it")
    s.add_argument("--spec-path", help="the bundle's config.json of container {id} (CRI-O's storage; default containerd's --state)")
    s.add_argument("--specs", help="copy the OCI specs here, as TAG-pause.json, TAG-app1.json, TAG-app2.json")
    s.add_argument("--on-spec", type=lambda x: x.split(), help="run 'CMD NAME SPECFILE ID' after each spec copy (words split on blanks)")
    s.add_argument("--tag", help="name prefix of the copied specs (default the handler)")
    s.add_argument("--result", help="write the steps as JSON to this file")
    s.add_argument("--keep", action="store_true", help="leave the pod running")
    s.add_argument("--dump-configs", action="store_true", help="print the requests as JSON")
    a = p.parse_args()

    pb, stubs = load_stubs(a.proto)
    cl = Client(pb, stubs, a.socket, a.timeout)

    def pr(msg):
        print(json.dumps(js(msg), indent=1))

    def err(e):
        code = GO_CODE.get(e.code().name, e.code().name)
        print("rpc error: code = %s desc = %s" % (code, e.details()), file=sys.stderr)
        return 1

    try:
        if a.verb == "version":
            pr(cl.call(cl.rt, "Version", pb.VersionRequest(version="v1")))
        elif a.verb == "status":
            pr(cl.call(cl.rt, "Status", pb.StatusRequest(verbose=False)))
        elif a.verb == "images":
            pr(cl.call(cl.img, "ListImages", pb.ListImagesRequest()))
        elif a.verb == "image-wait":
            end = time.monotonic() + a.wait
            for ref in a.refs:
                while True:
                    r = cl.call(cl.img, "ImageStatus", pb.ImageStatusRequest(image=pb.ImageSpec(image=ref)))
                    if r.image.id:
                        print("%s %s" % (ref, r.image.id))
                        break
                    if time.monotonic() > end:
                        print("%s: CRI does not see it" % ref, file=sys.stderr)
                        return 1
                    time.sleep(0.2)
        elif a.verb == "pods":
            pr(cl.call(cl.rt, "ListPodSandbox", pb.ListPodSandboxRequest()))
        elif a.verb == "ps":
            pr(cl.call(cl.rt, "ListContainers", pb.ListContainersRequest()))
        elif a.verb == "inspectp":
            pr(cl.call(cl.rt, "PodSandboxStatus", pb.PodSandboxStatusRequest(pod_sandbox_id=a.id, verbose=True)))
        elif a.verb == "inspect":
            pr(cl.call(cl.rt, "ContainerStatus", pb.ContainerStatusRequest(container_id=a.id, verbose=True)))
        elif a.verb == "exec":
            r = cl.call(cl.rt, "ExecSync", pb.ExecSyncRequest(container_id=a.id, cmd=a.cmd, timeout=30))
            sys.stdout.write(r.stdout.decode(errors="replace"))
            sys.stderr.write(r.stderr.decode(errors="replace"))
            return r.exit_code
        elif a.verb == "stopp":
            cl.call(cl.rt, "StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=a.id))
        elif a.verb == "rmp":
            cl.call(cl.rt, "RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=a.id))
        elif a.verb == "stop":
            cl.call(cl.rt, "StopContainer", pb.StopContainerRequest(container_id=a.id, timeout=10))
        elif a.verb == "rm":
            cl.call(cl.rt, "RemoveContainer", pb.RemoveContainerRequest(container_id=a.id))
        elif a.verb == "cleanup":
            rc = 0
            for p_ in cl.call(cl.rt, "ListPodSandbox", pb.ListPodSandboxRequest()).items:
                for m in ("StopPodSandbox", "RemovePodSandbox"):
                    try:
                        cl.call(cl.rt, m, getattr(pb, m + "Request")(pod_sandbox_id=p_.id))
                    except grpc.RpcError as e:
                        rc = err(e)
                print("removed pod %s %s" % (p_.id[:13], p_.metadata.name))
            return rc
        elif a.verb == "scenario":
            tmp = a.tmp or tempfile.mkdtemp(prefix="kg-cri.")
            a.kubelet_dir = a.kubelet_dir or os.path.join(tmp, "kubelet")
            a.log_root = a.log_root or os.path.join(tmp, "log", "pods")
            return scenario(cl, a)
    except grpc.RpcError as e:
        return err(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
