# Real container engines for the end-to-end tests (sourced after tap.sh and
# lib.sh; POSIX sh): a containerd with kata-guard as the shim v2 runtime
# io.containerd.kata-guard.v2 (in front of containerd-shim-runc-v2) and a
# dockerd 20.10 with kata-guard as a "path" OCI runtime (in front of runc),
# each with its own state, socket and config under /var/lib/kata-guard-test,
# and a busybox image: no registry, no pull, nothing of the host's engines.
#
# eng_require        skip_all unless root, the engines, runc, tinyproxy and
#                    a static busybox are here; the guard under test is
#                    the product, or without /dev/kvm its stand-in build
#                    (kg_kvm_pick, tests/lib.sh)
# eng_find           whether they are here (ENG_MISSING says what is not)
# eng_init           the Kata tree (kg_tree_create), the denying proxy, the
#                    engines' directory $E and the EXIT trap that undoes
#                    everything (eng_cleanup, then kg_cleanup)
# eng_write_guard [TOML LINES...]
#                    the guard config $G for that tree (decisions to $LOG),
#                    with extra tables appended
# eng_start          busybox rootfs, containerd, dockerd, the kg-e2e image
# eng_rootfs, eng_start_containerd
#                    its first two parts, for a test that puts its own shim
#                    in $E/bin
# eng_containerd_up CONFIG, eng_dockerd_up DAEMON_JSON, eng_dk_image,
# eng_stop PID       the daemons on a config of the test's own, the
#                    docker image, a daemon stopped by its pid
# ctr_run NAME ID [ctr run options...]
# dk_run NAME [docker run options...]
#                    one container that runs /bin/echo ok through the guard;
#                    $rc, $E/NAME.out, $E/NAME.err
# ctr_empty, gone PATTERN, no_shim ID, no_docker_shim
#                    nothing left behind
#
# dk_major, dk_refusal FILE
#                    the dockerd's major version; FILE holds a refusal
# all_remedies ERRFILE ID...
#                    every ID named in the engine's error with its remedy,
#                    and whole in the decision log
#
# Variables: E, BIN, OPT, G, LOG, CTR, DK, P (a container name prefix),
# DOCKERD, RUNC, BUSYBOX, CTD_PID, DOCKERD_PID.  KG_DOCKER_REG=runtimeType
# registers the guard with dockerd as a shim v2 runtime instead of a path.

eng_require() {
  kg_is_root || skip_all "needs root"
  eng_find || skip_all "$ENG_MISSING"
  kg_kvm_pick
}

# eng_find: DOCKERD, RUNC and BUSYBOX set when the engines and a static
# busybox are here; else false, with ENG_MISSING saying what is missing.
eng_find() {
  # Debian's docker.io: /usr/bin/docker and /usr/sbin/dockerd (a docker in
  # /usr/local/bin may be an unrelated newer client).
  DOCKERD=/usr/sbin/dockerd
  [ -x "$DOCKERD" ] || DOCKERD=/usr/bin/dockerd
  for b in containerd ctr /usr/bin/docker "$DOCKERD" /usr/bin/containerd-shim-runc-v2 runc \
           tinyproxy python3 chattr; do
    command -v "$b" >/dev/null 2>&1 || {
      ENG_MISSING="needs $b (containerd, docker.io, runc, tinyproxy)"
      return 1
    }
  done
  RUNC=$(command -v runc)
  BUSYBOX=/bin/busybox
  # busybox-static: the container's whole userland, no image pull.
  [ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 || {
    ENG_MISSING="needs a static /bin/busybox (busybox-static)"
    return 1
  }
}

eng_init() {
  KG_TREE_RUNTIME=/usr/bin/containerd-shim-runc-v2
  kg_tree_create && kg_proxy_start || return 1
  BIN=${KG_BIN:?}
  OPT="$KG_TREE/opt/kata"
  # The daemons' state lives outside the tree: the tree is removed with
  # rm -rf, which must never meet a mount they left behind.
  E=$(mktemp -d "$KG_TEST_BASE/e2e.XXXXXX") || return 1
  chmod 0755 "$E"
  CTD_PID="" DOCKERD_PID=""
  CTR="ctr -a $E/ctd.sock"
  DK="/usr/bin/docker -H unix://$E/docker.sock"
  P="kg$$"  # container id prefix
  KEY_JSON_NEW=""
  trap 'eng_cleanup; kg_cleanup' EXIT
  [ -e /etc/docker/key.json ] || KEY_JSON_NEW=1
  cp "$RUNC" "$OPT/bin/runc" && chmod 0755 "$OPT/bin/runc" || return 1
  G="$KG_TREE/guard.toml"
  LOG="$E/decisions.log"
}

# eng_stop PID: a daemon this test started, by its pid: TERM, up to 10
# seconds, then KILL.
eng_stop() {
  kill "$1" 2>/dev/null
  i=0
  while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

# Containers first (while the daemons can still remove them), then the
# daemons by pid, then whatever they left mounted under our directories.
eng_cleanup() {
  if [ -n "${DOCKERD_PID:-}" ]; then
    ids=$($DK ps -aq 2>/dev/null)
    [ -n "$ids" ] && timeout 30 $DK rm -f $ids >/dev/null 2>&1
  fi
  if [ -n "${CTD_PID:-}" ]; then
    for c in $($CTR c ls -q 2>/dev/null); do
      timeout 10 $CTR t kill -s SIGKILL "$c" >/dev/null 2>&1
      timeout 10 $CTR t delete -f "$c" >/dev/null 2>&1
      timeout 10 $CTR c rm "$c" >/dev/null 2>&1
    done
  fi
  # ENG_MORE_PIDS: daemons of a test's own on that containerd.
  for p in ${DOCKERD_PID:-} ${ENG_MORE_PIDS:-} ${CTD_PID:-}; do eng_stop "$p"; done
  DOCKERD_PID="" ENG_MORE_PIDS="" CTD_PID=""
  [ -n "${KEY_JSON_NEW:-}" ] && rm -f /etc/docker/key.json
  # Without $E, the patterns below would match everything.
  [ -n "${E:-}" ] && [ -d "$E" ] || return 0
  # Shims that outlived containerd: only ours carry our socket path.
  for p in $(pgrep -f -- "-address $E/" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  # What dockerd/containerd mounted under our directories, deepest first.
  awk -v e="$E" -v t="$KG_TREE" 'index($5, e "/") == 1 || $5 == e || index($5, t "/") == 1 { print length($5), $5 }' \
    /proc/self/mountinfo | sort -rn | cut -d' ' -f2- | while read -r m; do umount -l "$m" 2>/dev/null; done
  if awk -v e="$E" 'index($5, e) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    echo "# e2e: mounts remain under $E; leaving it"
  else
    rm -rf "$E"
  fi
}

# eng_write_guard [TOML LINES...]: the guard config for the tree, the proxy
# and runc as the OCI runtime; the lines are appended (whole tables).
eng_write_guard() {
  kg_config_write "$G" "[log]" "syslog = false" "file = \"$LOG\"" "$@" && kg_config_add_oci "$G"
}

# eng_rootfs: the busybox rootfs in $E/rootfs, and $E/bin (containerd's
# PATH, for the shim).
eng_rootfs() {
  mkdir -p "$E/bin" "$E/rootfs/bin" "$E/rootfs/proc" "$E/rootfs/dev" "$E/rootfs/sys" \
    "$E/rootfs/etc" "$E/rootfs/tmp" || return 1
  cp "$BUSYBOX" "$E/rootfs/bin/busybox" || return 1
  for a in sh echo sleep cat true; do ln -s busybox "$E/rootfs/bin/$a"; done
}

# eng_start_containerd: containerd with its state under $E, $E/bin first
# on its PATH, the guard config $G; waits until it answers.
eng_start_containerd() {
  cat >"$E/containerd.toml" <<EOF
version = 2
root = "$E/ctd-root"
state = "$E/ctd-state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$E/ctd.sock"
EOF
  eng_containerd_up "$E/containerd.toml" && eng_ctr_image
}

# eng_containerd_up CONFIG: containerd --config CONFIG (whose grpc address
# is $E/ctd.sock), $E/bin first on its PATH, the guard config $G; its log
# is appended to $E/containerd.log; waits until it answers.  Sets CTD_PID.
eng_containerd_up() {
  # From $E: containerd 1.6 looks for a shim binary in its working
  # directory before PATH, and a build directory holds a shim link too.
  (cd "$E" && KATA_GUARD_CONFIG="$G" PATH="$E/bin:$PATH" exec containerd --config "$1") \
    >>"$E/containerd.log" 2>&1 </dev/null &
  CTD_PID=$!
  i=0
  until $CTR version >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "# containerd did not start"; tail "$E/containerd.log"; return 1; }
    sleep 0.1
  done
}

# eng_ctr_image: the busybox image $CTR_IMAGE imported into containerd's
# default namespace and CRI's (k8s.io) (tests/cri/mkimage.py; nothing is pulled), so that ctr
# starts get the bundle's own rootfs, a snapshot containerd mounts there,
# as a real ctr run IMAGE does (a ctr run --rootfs DIR is judged as a bind
# of DIR: kata-guard(8), policy.mounts).
CTR_IMAGE=kg.local/busybox:e2e
eng_ctr_image() {
  python3 "$KG_SRCDIR/tests/cri/mkimage.py" "$E/ctr-images.tar" "$BUSYBOX" kg.local/pause:e2e \
    "$CTR_IMAGE" >/dev/null && $CTR images import "$E/ctr-images.tar" >/dev/null 2>"$E/import.err" \
    && $CTR -n k8s.io images import "$E/ctr-images.tar" >/dev/null 2>>"$E/import.err" \
    || { echo "# cannot import the test image"; tap_note '# ' "$E/import.err"; return 1; }
}

eng_start() {
  eng_rootfs || return 1
  ln -s "$BIN" "$E/bin/containerd-shim-kata-guard-v2"
  eng_start_containerd || return 1

  # ---- dockerd: kata-guard as a "path" runtime (OCI runtime mode), or,
  # with KG_DOCKER_REG=runtimeType (Docker 24 and later), as a shim v2
  # runtime by its absolute path, as `kata-guard install` writes it ----
  if [ "${KG_DOCKER_REG:-path}" = runtimeType ]; then
    dk_entry="\"runtimeType\": \"$E/bin/containerd-shim-kata-guard-v2\""
  else
    dk_entry="\"path\": \"$BIN\""
  fi
  cat >"$E/daemon.json" <<EOF
{
  "runtimes": { "kata-guard": { $dk_entry } },
  "deprecated-key-path": "$E/key.json"
}
EOF
  eng_dockerd_up "$E/daemon.json" && eng_dk_image
}

# eng_dockerd_up DAEMON_JSON: dockerd on $E/docker.sock with its data and
# exec roots under $E, the containerd of eng_containerd_up, no bridge, no
# iptables, and the guard config $G; its log is appended to
# $E/dockerd.log; waits until it answers.  Sets DOCKERD_PID.  DAEMON_JSON
# names "deprecated-key-path" (Docker 20.10 writes /etc/docker/key.json
# otherwise).
eng_dockerd_up() {
  KATA_GUARD_CONFIG="$G" "$DOCKERD" --containerd="$E/ctd.sock" --data-root "$E/docker" \
    --exec-root "$E/dexec" --pidfile "$E/docker.pid" -H "unix://$E/docker.sock" \
    --bridge=none --iptables=false --ip-forward=false --ip-masq=false --storage-driver=vfs \
    --config-file "$1" >>"$E/dockerd.log" 2>&1 </dev/null &
  DOCKERD_PID=$!
  i=0
  until $DK version >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 300 ] || { echo "# dockerd did not start"; tail "$E/dockerd.log"; return 1; }
    sleep 0.1
  done
}

# eng_dk_image: the busybox rootfs $E/rootfs imported into dockerd as
# kg-e2e:latest (docker import; nothing is pulled).
eng_dk_image() {
  tar -C "$E/rootfs" -cf "$E/rootfs.tar" . && $DK import "$E/rootfs.tar" kg-e2e:latest >/dev/null
}

# ctr_run NAME ID [ctr run options...]: a container through the shim v2 mode.
ctr_run() {
  name=$1 id=$2; shift 2
  timeout 60 $CTR run --rm --runtime io.containerd.kata-guard.v2 "$@" "$CTR_IMAGE" "$id" \
    /bin/echo ok >"$E/$name.out" 2>"$E/$name.err" </dev/null
  rc=$?
}

# dk_run NAME [docker run options...]: a container through the OCI runtime
# mode, with no network unless the options choose one.
dk_run() {
  name=$1; shift
  dk_net="--network none"
  for dk_a; do
    case $dk_a in --network | --network=* | --net | --net=*) dk_net="" ;; esac
  done
  timeout 60 $DK run --rm $dk_net --runtime kata-guard "$@" kg-e2e:latest /bin/echo ok \
    >"$E/$name.out" 2>"$E/$name.err" </dev/null
  rc=$?
}

# dk_major: the test dockerd's major version (20 for 20.10).
dk_major() { $DK version --format '{{.Server.Version}}' 2>/dev/null | cut -d. -f1; }

# dk_refusal FILE: FILE holds the guard's refusal line as Docker shows it
# (after "OCI runtime create failed: " for a path runtime, after
# "failed to create shim task: " for a runtimeType one; the words around
# it are the engine's and differ between versions).
dk_refusal() { grep -qF "kata-guard: refusing to start container " "$1"; }

ctr_empty() { [ -z "$($CTR c ls -q)" ] && [ -z "$($CTR t ls -q)" ]; }

# gone PATTERN: no process matches PATTERN within 30 seconds (a shim may
# still be on its way out when the client returns).
gone() {
  i=0
  while pgrep -f -- "$1" >/dev/null; do
    i=$((i + 1)); [ $i -lt 300 ] || return 1
    sleep 0.1
  done
}
no_shim() { gone "containerd-shim.* -id $1( |$)"; }
# no_docker_shim: no shim of our dockerd's containers (only ours carry our
# containerd's socket; another test's dockerd may run its own).
# Shims of the containers in KEEP (ids, one per line) do not count.
no_docker_shim() {
  i=0
  while pgrep -af -- "containerd-shim-runc-v2 -namespace moby .*-address $E/ctd.sock" |
    grep -vF "${KEEP:-<none>}" | grep -q .; do
    i=$((i + 1)); [ $i -lt 300 ] || return 1
    sleep 0.1
  done
}

# all_remedies ERRFILE ID...: the engine's error in ERRFILE names every
# ID with a part of its own that holds its remedy, whole, and the last
# decision line of $LOG carries each ID's reason and remedy whole, the
# part's reason its beginning (issue 48: a refusal with several failures showed
# the first reason cut and no remedy of the others, in the engine's
# error and the log alike).
all_remedies() {
  python3 - "$LOG" "$@" <<'PY'
import json, sys
log, err, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(err, encoding="utf-8", errors="replace").read()
d = json.loads(open(log).read().splitlines()[-1])
checks = {c["id"]: c for c in d.get("checks", []) if c["verdict"] == "fail"}
good = True
starts = sorted(p for f in set(d["failed"]) for p in [text.find(f + ": ")] if p >= 0)
for i in ids:
    c = checks.get(i)
    if c is None or not c.get("reason") or not c.get("remedy"):
        print("#   the log has no reason and remedy of " + i); good = False; continue
    if i not in d["failed"] or c["reason"].endswith("...") or c["remedy"].endswith("..."):
        print("#   the log cut " + i); good = False
    head = text.find(i + ": ")
    if head < 0 or not text.startswith(c["reason"][:40], head + len(i) + 2):
        print("#   the engine's error has no part of " + i + " with its reason"); good = False
        continue
    # The part ends where the next failed check's begins.
    nxt = min([p for p in starts if p > head] + [len(text)])
    if "(remedy: " + c["remedy"] + ")" not in text[head:nxt]:
        print("#   the engine's error lacks the remedy of " + i + ": " + c["remedy"]); good = False
print("#   failed: " + ", ".join(d["failed"]))
sys.exit(not good)
PY
}
