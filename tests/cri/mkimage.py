#!/usr/bin/python3
"""mkimage.py OUT.tar BUSYBOX PAUSE_REF APP_REF

A docker-archive (the `docker save` format: manifest.json, one config
<sha256>.json per image, <layer>/layer.tar) holding two images that share
one layer, a static busybox rootfs:
  PAUSE_REF  entrypoint /pause (a script that sleeps and exits on SIGTERM,
             as the real pause does: CRI-O stops the infra container so)
  APP_REF    cmd ["sh"]
Loaded with `ctr -n k8s.io images import OUT.tar`: nothing is pulled.
"""
import hashlib, io, json, os, subprocess, sys, tarfile

out, busybox, pause_ref, app_ref = sys.argv[1:5]
EPOCH = 1700000000  # fixed mtimes: the same input gives the same digests

applets = subprocess.run([busybox, "--list"], check=True, capture_output=True,
                         text=True).stdout.split()

buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
    def add(name, kind, mode=0o755, data=b"", target=""):
        ti = tarfile.TarInfo(name)
        ti.mtime, ti.mode, ti.uid, ti.gid = EPOCH, mode, 0, 0
        if kind == "dir":
            ti.type = tarfile.DIRTYPE
            t.addfile(ti)
        elif kind == "link":
            ti.type, ti.linkname = tarfile.SYMTYPE, target
            t.addfile(ti)
        else:
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    for d in ("bin", "dev", "etc", "proc", "sys", "root", "var", "run", "data"):
        add(d, "dir")
    add("tmp", "dir", 0o1777)
    with open(busybox, "rb") as f:
        add("bin/busybox", "file", 0o755, f.read())
    for a in sorted(set(applets)):
        if a != "busybox":
            add("bin/" + a, "link", target="busybox")
    add("sbin", "link", target="bin")
    add("usr", "dir")
    add("usr/bin", "link", target="../bin")
    add("usr/sbin", "link", target="../bin")
    add("pause", "file", 0o755, b"#!/bin/sh\ntrap 'exit 0' TERM INT\n/bin/sleep 2147483647 &\nwait\n")
    add("etc/passwd", "file", 0o644, b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n")
    add("etc/group", "file", 0o644, b"root:x:0:\nnobody:x:65534:\n")
layer = buf.getvalue()
diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
layer_dir = hashlib.sha256(layer).hexdigest()

def config(entrypoint, cmd):
    c = {
        "architecture": "amd64", "os": "linux",
        "created": "2023-11-14T22:13:20Z",
        "config": {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                   "Entrypoint": entrypoint, "Cmd": cmd, "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": "2023-11-14T22:13:20Z", "created_by": "kata-guard cri test: static busybox"}],
    }
    b = json.dumps(c, sort_keys=True).encode()
    return hashlib.sha256(b).hexdigest() + ".json", b

manifest = []
with tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as t:
    def put(name, data):
        ti = tarfile.TarInfo(name)
        ti.mtime, ti.mode, ti.size = EPOCH, 0o644, len(data)
        t.addfile(ti, io.BytesIO(data))
    put(layer_dir + "/layer.tar", layer)
    put(layer_dir + "/VERSION", b"1.0")
    for ref, ep, cmd in ((pause_ref, ["/pause"], None), (app_ref, None, ["sh"])):
        name, data = config(ep, cmd)
        put(name, data)
        manifest.append({"Config": name, "RepoTags": [ref], "Layers": [layer_dir + "/layer.tar"]})
    put("manifest.json", json.dumps(manifest).encode())
print(out)
