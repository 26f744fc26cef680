# Shared fixtures for the shell tests (sourced after tap.sh; POSIX sh + bash-free).
#
# kg_tree_create      build a Kata install tree from the Firecracker fixture
#                     under a root-owned 0755 directory (never /tmp: the
#                     trusted-path test rejects it), with immutable boot assets.
# kg_proxy_start      start a real tinyproxy that denies everything (403)
# kg_config_write F   a guard config for that tree and proxy
# kg_config_add_oci F the tree's runc as [runtime] oci in F (oci_vm = true)
# kg_start_setup B G L a bundle and a guard config that pass a start
# kg_cleanup          undo all of it (immutable flags, processes, files);
#                     installed as an EXIT trap by kg_tree_create; it then
#                     runs $KG_ON_EXIT (a test's own cleanup command).
#
# Sourced as root, lib.sh first runs the test again in a mount namespace
# of its own, with the guard's host state private to it (below).
#
# Variables set: KG_TREE (the root of the tree), KG_KATA_CONFIG,
# KG_RUNTIME, KG_KERNEL, KG_IMAGE, KG_PROXY_PORT, KG_PROXY_PID.
# KG_TREE_RUNTIME (optional, before kg_tree_create): a file to copy in as
# the real runtime (default: a small shell script).

KG_TEST_BASE=/var/lib/kata-guard-test
KG_PIDS=""
KG_IMMUTABLE=""

# KG_UNIT_ONLY=1 (make check-unit): as if not root, so that a unit test's
# parts that need root (a root-owned tree, tinyproxy, /dev/kvm) skip.
kg_is_root() { [ -z "${KG_UNIT_ONLY:-}" ] && [ "$(id -u)" -eq 0 ]; }

# The guard's host state, private to each test.  The guard keeps it in
# two directories: /run/kata-guard (rundir.h: the runtime and capacity
# records, the SHA-256 digest cache, prove's markers and lock, drift's
# window) and /var/lib/kata-guard (conf.h: the registrations record, the
# default posture record).  Sourced as root, lib.sh runs the test again
# under unshare --mount --propagation private, and there mounts a tmpfs
# of the test's own on each: the guards its daemons start (they inherit
# the namespace) see this test's records, cache and locks only, never the
# host's live guard's nor another test's, so make -j check runs the engine
# tests side by side, and nothing a test does there outlives it.  Only a
# missing mount point is made on the host (empty, 0700, as the guard
# makes it).  KG_PRIVATE_STATE: unset (not yet), "new" (run again, to
# mount) or "yes" (done; what the test's children inherit, and what
# tests/matrix.sh gives its inner tests, whose root's /run is a tmpfs of
# that run's own already).  Where that cannot be made (root without
# CAP_SYS_ADMIN, no unshare, unshare -r), a test that runs as root skips,
# and check-unit's (KG_UNIT_ONLY) goes on, saying so.
KG_STATE_DIRS="/run/kata-guard /var/lib/kata-guard"
case ${KG_PRIVATE_STATE:-} in
  yes) ;;
  new)
    for kg_d in $KG_STATE_DIRS; do
      mount -t tmpfs -o mode=0700,size=64m kg-test-state "$kg_d" ||
        { echo "Bail out! cannot mount a tmpfs on $kg_d in the test's mount namespace"; exit 1; }
    done
    KG_PRIVATE_STATE=yes ;;
  *)
    if [ "$(id -u)" -eq 0 ]; then
      # (Tried first: under unshare -r, say, the mount points cannot be made.)
      if mkdir -p -m 0700 $KG_STATE_DIRS 2>/dev/null &&
        unshare --mount --propagation private /bin/sh -c \
          'for d; do mount -t tmpfs -o mode=0700 kg-test-state "$d" || exit 1; done' \
          sh $KG_STATE_DIRS 2>/dev/null; then
        KG_PRIVATE_STATE=new
        export KG_PRIVATE_STATE
        # The same shell, on the same script and arguments.
        exec unshare --mount --propagation private "$(readlink /proc/$$/exe)" "$0" "$@"
      fi
      kg_is_root && skip_all "no mount namespace with a tmpfs on $KG_STATE_DIRS of the test's own (unshare --mount)"
      echo "# no mount namespace with a tmpfs on $KG_STATE_DIRS of the test's own (unshare --mount): the guard sees the host's"
    fi ;;
esac

# kg_records ID: the guard's records (/run/kata-guard/runtimes) of
# container ID that name one of this tree's runtimes.
kg_records() {
  [ -d /run/kata-guard/runtimes ] || return 0
  for f in /run/kata-guard/runtimes/*; do
    [ -f "$f" ] && [ "$(sed -n 4p "$f")" = "$1" ] && grep -qF -- "$KG_TREE/" "$f" && echo "$f"
  done
}

# kg_kvm_pick: which kvm the engine tests run against, said in a TAP
# comment.  With /dev/kvm, the product ($KG_BIN) and its real kvm family.
# Without (a build host that is a guest without nested KVM), KG_BIN becomes
# the test build $KG_STANDIN_BIN (Makefile.am, tests/kvm-standin.c): the
# product's objects with only the kvm family replaced, answering pass for
# a missing /dev/kvm alone; any other [kvm] device is judged by the real
# family.  Sets KG_KVM to "device" or "stand-in".
kg_kvm_pick() {
  if [ -c /dev/kvm ]; then
    KG_KVM=device
    echo "# kvm: the host's /dev/kvm, judged by the product's kvm family ($KG_BIN)"
    return 0
  fi
  [ -x "${KG_STANDIN_BIN:-}" ] ||
    skip_all "no /dev/kvm here, and no stand-in build (${KG_STANDIN_BIN:-KG_STANDIN_BIN unset}: make check builds it)"
  KG_BIN=$KG_STANDIN_BIN
  KG_KVM=stand-in
  echo "# kvm: STAND-IN: this host has no /dev/kvm; the guard under test is the test build $KG_BIN, whose kvm family passes a missing /dev/kvm and hands every other device path to the real family"
}

# kg_prove_serial: prove.test routes TEST-NET-2 (198.51.100.0/24) to a
# namespace of its own through the host's one network stack, which two
# runs on one host (two builds' make check) would both claim: it takes this
# lock first (on the host's $KG_TEST_BASE, which no namespace hides) and
# holds it until it exits (fd 8).  Waits up to 30 minutes.
kg_prove_serial() {
  mkdir -p "$KG_TEST_BASE" && exec 8>"$KG_TEST_BASE/.prove.lock" && flock -w 1800 8
}

# Files that must not be left immutable, however the test ends.
kg_chattr_i() {
  chattr +i "$1" || return 1
  KG_IMMUTABLE="$KG_IMMUTABLE $1"
}

kg_cleanup() {
  for p in $KG_PIDS; do kill "$p" 2>/dev/null; done
  for p in $KG_PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null
  done
  KG_PIDS=""
  for f in $KG_IMMUTABLE; do chattr -i "$f" 2>/dev/null; done
  KG_IMMUTABLE=""
  if [ -n "${KG_TREE:-}" ] && [ -d "$KG_TREE" ]; then
    # Whatever a test made immutable under the tree, too.
    find "$KG_TREE" -xdev \( -type f -o -type d \) -exec chattr -i {} + 2>/dev/null
    rm -rf "$KG_TREE"
  fi
  [ -n "${KG_BIN_DIR:-}" ] && rm -rf "$KG_BIN_DIR"
  eval "${KG_ON_EXIT:-}"
}

# kg_trusted_bin: a copy of $KG_BIN, with the shim link beside it, in a
# root-owned 0755 directory (never /tmp), for what refuses a binary that is
# not on a trusted path (kata-guard install).  Sets KG_TRUSTED_BIN.
kg_trusted_bin() {
  mkdir -p "$KG_TEST_BASE" && chown root:root "$KG_TEST_BASE" && chmod 0755 "$KG_TEST_BASE" || return 1
  KG_BIN_DIR=$(mktemp -d "$KG_TEST_BASE/bin.XXXXXX") && chmod 0755 "$KG_BIN_DIR" || return 1
  cp "${KG_BIN:?}" "$KG_BIN_DIR/kata-guard" && chmod 0755 "$KG_BIN_DIR/kata-guard" || return 1
  ln -s kata-guard "$KG_BIN_DIR/containerd-shim-kata-guard-v2" || return 1
  KG_TRUSTED_BIN="$KG_BIN_DIR/kata-guard"
}

# kg_as_user USER BIN ARGS...: BIN run as USER (su, no login shell), from a
# copy in a root-owned 0755 directory of the test's own under
# $KG_TEST_BASE: the build tree may sit under a directory USER cannot
# traverse (a clone in root's 0700 home), where USER would get 126
# (cannot execute) instead of the program's own answer.  The copy is
# removed before it returns; its exit status is BIN's (126/127 only when
# the copy itself cannot run).
kg_as_user() {
  u_user=$1 u_bin=$2
  shift 2
  mkdir -p "$KG_TEST_BASE" && chown root:root "$KG_TEST_BASE" && chmod 0755 "$KG_TEST_BASE" || return 125
  u_dir=$(mktemp -d "$KG_TEST_BASE/as-user.XXXXXX") && chmod 0755 "$u_dir" || return 125
  cp "$u_bin" "$u_dir/$(basename "$u_bin")" && chmod 0755 "$u_dir/$(basename "$u_bin")" || {
    rm -rf "$u_dir"
    return 125
  }
  u_cmd=$(printf "'%s' " "$u_dir/$(basename "$u_bin")" "$@")
  su "$u_user" -s /bin/sh -c "$u_cmd"
  u_rc=$?
  rm -rf "$u_dir"
  return $u_rc
}

kg_tree_create() {
  mkdir -p "$KG_TEST_BASE" && chown root:root "$KG_TEST_BASE" && chmod 0755 "$KG_TEST_BASE" || return 1
  KG_TREE=$(mktemp -d "$KG_TEST_BASE/tree.XXXXXX") || return 1
  chmod 0755 "$KG_TREE"
  trap 'kg_cleanup' EXIT
  trap 'exit 130' INT TERM
  umask 022
  opt="$KG_TREE/opt/kata"
  mkdir -p "$opt/bin" "$opt/share/kata-containers" "$opt/share/defaults/kata-containers" || return 1
  KG_KATA_CONFIG="$opt/share/defaults/kata-containers/configuration.toml"
  # KG_TREE_HYPERVISOR=qemu (before kg_tree_create): the tree's Kata runs
  # qemu, whose virtio-fs shares the rootfs (for the engines whose storage
  # is no block device, which Firecracker needs: podman, CRI-O, a Docker
  # on vfs; kata-guard(8), storage.snapshotter); Firecracker otherwise.
  # Kata's QEMU hot-plugs memory up to default_maxmemory, 0 in the shipped
  # file (all of the host's, which policy.resources refuses): the tree's
  # bounds it at 4096 MiB, which is what each VM is counted at.
  KG_HYPERVISOR=${KG_TREE_HYPERVISOR:-firecracker}
  case $KG_HYPERVISOR in
    qemu)
      sed -e "s|/opt/kata|$opt|g" -e 's|vmlinuz\.container|vmlinux.container|' \
        -e 's|^default_maxmemory = 0$|default_maxmemory = 4096|' \
        "${KG_FIXTURES:?}/kata/configuration-qemu.toml" >"$KG_KATA_CONFIG" || return 1
      mkdir -p "$opt/libexec" || return 1
      for b in bin/qemu-system-x86_64 libexec/virtiofsd; do
        printf '#!/bin/sh\nexit 0\n' >"$opt/$b" && chmod 0755 "$opt/$b"
      done ;;
    *) sed "s|/opt/kata|$opt|g" "${KG_FIXTURES:?}/kata/configuration-fc.toml" >"$KG_KATA_CONFIG" || return 1 ;;
  esac
  # The engines' storage as storage.snapshotter reads it (kg_config_write
  # points [docker] and [storage] here): block devices, as Firecracker
  # needs; containerd's blockfile needs no device-mapper (storage.pool
  # then skips), Docker's devicemapper graphdriver is block too.
  printf '{"storage-driver": "devicemapper"}\n' >"$KG_TREE/daemon.json"
  printf 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\nsnapshotter = "blockfile"\n' \
    >"$KG_TREE/containerd-config.toml" || return 1
  for b in firecracker jailer; do
    printf '#!/bin/sh\nexit 0\n' >"$opt/bin/$b" && chmod 0755 "$opt/bin/$b"
  done
  KG_RUNTIME="$opt/bin/containerd-shim-kata-v2"
  if [ -n "${KG_TREE_RUNTIME:-}" ]; then
    cp "$KG_TREE_RUNTIME" "$KG_RUNTIME" || return 1
  else
    printf '#!/bin/sh\necho "stand-in runtime $*"\n' >"$KG_RUNTIME"
  fi
  chmod 0755 "$KG_RUNTIME"
  KG_KERNEL="$opt/share/kata-containers/vmlinux.container"
  KG_IMAGE="$opt/share/kata-containers/kata-containers.img"
  head -c 65536 /dev/urandom >"$KG_KERNEL"
  head -c 131072 /dev/urandom >"$KG_IMAGE"
  chmod 0644 "$KG_KERNEL" "$KG_IMAGE"
  kg_chattr_i "$KG_KERNEL" && kg_chattr_i "$KG_IMAGE"
}

# kg_ns_entered PID TYPE: wait until process PID (started in the
# background to enter a namespace: ip netns exec, unshare) is in a TYPE
# namespace other than this shell's, two minutes at most: until it has
# entered it, /proc/PID/ns/TYPE names this shell's own, and a check run
# then judges the host's.  1, said as a TAP comment, when it never does.
kg_ns_entered() {
  i=0
  while [ "$(readlink "/proc/$1/ns/$2")" = "$(readlink "/proc/$$/ns/$2")" ]; do
    i=$((i + 1))
    [ $i -lt 2400 ] && kill -0 "$1" 2>/dev/null ||
      { echo "# process $1 never entered a $2 namespace of its own"; return 1; }
    sleep 0.05
  done
}

# A free TCP port on 127.0.0.1 (the kernel picks it).
kg_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# kg_proxy_start [open]: tinyproxy on 127.0.0.1; "open" leaves out the
# default-deny filter (an open proxy).
kg_proxy_start() {
  dir="$KG_TREE/proxy"
  mkdir -p "$dir" && : >"$dir/filter"
  KG_PROXY_PORT=$(kg_free_port) || return 1
  {
    echo "Port $KG_PROXY_PORT"
    echo "Listen ${KG_PROXY_ADDR:-127.0.0.1}"
    echo "Timeout 5"
    echo "MaxClients 50"
    echo "LogLevel Error"
    echo "ConnectPort 443"
    if [ "${1:-}" != open ]; then
      echo "Filter \"$dir/filter\""
      echo "FilterDefaultDeny Yes"
    fi
  } >"$dir/tinyproxy.conf"
  tinyproxy -d -c "$dir/tinyproxy.conf" >"$dir/tinyproxy.log" 2>&1 &
  KG_PROXY_PID=$!
  KG_PIDS="$KG_PIDS $KG_PROXY_PID"
  kg_listening "${KG_PROXY_ADDR:-127.0.0.1}" "$KG_PROXY_PORT"
}

# kg_listening ADDR PORT [IN...]: ADDR:PORT accepts a connection, made
# through IN when given (a command that enters a namespace: ip netns exec
# NS, nsenter --net=PATH), within 30 seconds; 1 when it does not.
kg_listening() {
  kl_addr=$1 kl_port=$2
  shift 2
  i=0
  while ! "$@" python3 -c "import socket; socket.create_connection(('$kl_addr', $kl_port), 0.2)" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 300 ] || return 1
    sleep 0.1
  done
}

kg_proxy_stop() {
  [ -n "${KG_PROXY_PID:-}" ] || return 0
  kill "$KG_PROXY_PID" 2>/dev/null
  wait "$KG_PROXY_PID" 2>/dev/null
  KG_PROXY_PID=""
}

# kg_config_write FILE [EXTRA TOML LINES...]: a guard config that passes
# on this host with the tree and proxy above.
kg_config_write() {
  f=$1; shift
  {
    echo "[runtime]"
    echo "shim = \"$KG_RUNTIME\""
    echo "[kvm]"
    echo "device = \"/dev/kvm\""
    echo "[kata]"
    echo "config = \"$KG_KATA_CONFIG\""
    [ "${KG_HYPERVISOR:-firecracker}" = firecracker ] || echo "hypervisors = [\"$KG_HYPERVISOR\"]"
    echo "[egress]"
    echo "proxy = \"${KG_PROXY_ADDR:-127.0.0.1}:${KG_PROXY_PORT:?}\""
    # The docker.* audit reads no daemon.json of this host's.
    echo "[docker]"
    echo "daemon_json = \"$KG_TREE/daemon.json\""
    # The posture record is the tree's: never this machine's.
    echo "[drift]"
    echo "record = \"$KG_TREE/posture.json\""
    for line in "$@"; do echo "$line"; done
  } >"$f"
  # storage.snapshotter reads the engines' configurations: the tree's
  # (kg_tree_create), never this machine's.
  if ! grep -q '^containerd_config' "$f"; then
    if grep -q '^\[storage\]' "$f"; then
      sed -i "s|^\\[storage\\]\$|&\\ncontainerd_config = \"$KG_TREE/containerd-config.toml\"|" "$f"
    else
      printf '[storage]\ncontainerd_config = "%s"\n' "$KG_TREE/containerd-config.toml" >>"$f"
    fi
  fi
  # policy.capacity counts every guarded VM alive on this host: a test
  # that is not about it gets a bound no test reaches (capacity.test sets
  # its own).
  if ! grep -q '^max_committed_memory_mib' "$f"; then
    if grep -q '^\[policy\]' "$f"; then
      sed -i 's/^\[policy\]$/&\nmax_committed_memory_mib = 1073741824/' "$f"
    else
      printf '[policy]\nmax_committed_memory_mib = 1073741824\n' >>"$f"
    fi
  fi
}

# kg_config_add_oci FILE: the tree's runc as [runtime] oci, after shim.
kg_config_add_oci() {
  # (The stand-in runc is declared a VM runtime: it stands in for Kata's.)
  sed -i "s|^shim = .*|&\noci = \"$KG_TREE/opt/kata/bin/runc\"\noci_vm = true|" "$1"
}

# kg_start_setup BUNDLE GUARD LOG: what a start needs to pass on the tree:
# Docker's --memory 512m --cpus 2 spec in BUNDLE as containerd would start
# it (without Docker's network hook, its binds of Docker's per-container
# files and its cgroupsPath, which name the fixture's container id, and with the bundle's own
# rootfs: the callers' starts are no Docker starts), and the guard config
# GUARD with decisions to LOG and the tree's runc as the OCI runtime.
kg_start_setup() {
  mkdir -p "$1/rootfs" && python3 -c 'import json, sys
s = json.load(open(sys.argv[1])); del s["hooks"]; s["root"]["path"] = "rootfs"
s["mounts"] = [m for m in s["mounts"] if not m.get("source", "").startswith("/var/lib/docker/")]
s["linux"].pop("cgroupsPath", None)
json.dump(s, open(sys.argv[2], "w"))' \
    "${KG_FIXTURES:?}/oci/docker-20.10/limits.json" "$1/config.json" || return 1
  kg_config_write "$2" "[log]" "syslog = false" "file = \"$3\"" \
    "[policy]" "max_vm_memory_mib = 16384" && kg_config_add_oci "$2"
}

# kg_facts_exec UNIT: the shell command line of UNIT's ExecStart (the facts
# unit runs /bin/sh -c '...'), continuation lines joined and systemd's $$
# unescaped, for `sh -c` with the unit's Environment= variables set.
kg_facts_exec() {
  python3 -S - "$1" <<'PY'
import sys
text = open(sys.argv[1]).read().replace("\\\n", "")
line = [l for l in text.splitlines() if l.startswith("ExecStart=")][0]
prefix = "ExecStart=/bin/sh -c '"
assert line.startswith(prefix) and line.endswith("'"), line
print(line[len(prefix):-1].replace("$$", "$"))
PY
}
