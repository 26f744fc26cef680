#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/guard.sh: what people write today instead of kata-guard, for the
# comparison in bench/run.  A POSIX shell wrapper registered as
# the OCI runtime that checks the same host posture with standard tools,
# then execs the real runtime.  It is a yardstick, not a guard: it does
# not open /dev/kvm (a shell cannot issue KVM_CREATE_VM), trusts paths it
# tests (every test is a separate lookup), and parses TOML with sed.
#
# Environment: KG_SH_KATA (the Kata configuration.toml), KG_SH_PROXY
# (IP:PORT of the egress proxy), KG_SH_RUNTIME (the real runtime),
# KG_SH_MAX_MIB (largest VM memory allowed).  Arguments: the runtime's.
set -eu

die() { echo "guard.sh: refusing: $*" >&2; exit 1; }

# kvm: a character device we can read and write (KG_SH_KVM=stand-in: a
# host without /dev/kvm, where bench/run measures the guard's stand-in
# build, which passes a missing /dev/kvm: so does this).
if [ "${KG_SH_KVM:-}" = stand-in ] && [ ! -e /dev/kvm ]; then :; else
  test -c /dev/kvm || die "/dev/kvm is not a character device"
  test -r /dev/kvm && test -w /dev/kvm || die "/dev/kvm is not read-write"
fi

# Root-owned and not group/world-writable.
trusted() {
  set -- "$1" "$(stat -L -c '%u %a' "$1")" || die "$1: cannot stat"
  case $2 in
    "0 "*[2367]? | "0 "*[2367]) die "$1 is group or world writable" ;;
    "0 "*) ;;
    *) die "$1 is not owned by root" ;;
  esac
}

# kata: the configuration and the hypervisor binary it names.
conf=${KG_SH_KATA:?}
trusted "$conf"
key() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\"\\(.*\\)\".*/\\1/p" "$conf" | head -n 1; }
hv=$(key path)
kernel=$(key kernel)
image=$(key image)
[ -n "$hv" ] && [ -n "$kernel" ] && [ -n "$image" ] || die "$conf: path, kernel or image not set"
trusted "$hv"
trusted "${KG_SH_RUNTIME:?}"
test -x "$KG_SH_RUNTIME" || die "$KG_SH_RUNTIME is not executable"

# assets: immutable, or on a read-only mount.
for f in "$kernel" "$image"; do
  trusted "$f"
  if ! lsattr -d "$f" 2>/dev/null | cut -d' ' -f1 | grep -q i; then
    findmnt -n -o OPTIONS -T "$f" | tr , '\n' | grep -qx ro || die "$f is neither immutable nor read-only"
  fi
done

# egress: the proxy answers a CONNECT to an outside host with a refusal.
proxy=${KG_SH_PROXY:?}
status=$(printf 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n' |
  timeout 2 busybox nc "${proxy%:*}" "${proxy##*:}" 2>/dev/null | head -n 1 | cut -d' ' -f2) || :
case $status in 4??|5??) ;; *) die "egress proxy $proxy did not deny (status '${status:-none}')" ;; esac

# policy: the bundle's config.json.
bundle=.
prev=
for a in "$@"; do
  [ "$prev" = --bundle ] || [ "$prev" = -b ] && bundle=$a
  prev=$a
done
verdict=$(jq -r --argjson max "${KG_SH_MAX_MIB:-16384}" '
  def bad(m): "refuse: " + m;
  [ (if (.linux.namespaces // []) | map(.type) | (index("pid") and index("network") and index("ipc")
        and index("uts") and index("mount")) | not then bad("a host namespace") else empty end),
    (.linux.namespaces // [] | .[] | select(.path != null) | bad("namespace path " + .path)),
    (.mounts // [] | .[] | select(.type == "bind" or ((.options // []) | index("rbind")))
       | select(.source | test("^/(etc|proc|sys|dev|boot|root|var/run/docker\\.sock|run/containerd)?(/|$)"))
       | bad("mount of " + .source)),
    (.process.capabilities.bounding // [] | .[] | select(IN("CAP_SYS_ADMIN", "CAP_SYS_MODULE",
       "CAP_SYS_PTRACE", "CAP_SYS_RAWIO", "CAP_NET_ADMIN")) | bad("capability " + .)),
    (.linux.resources.devices // [] | .[] | select(.allow and (.type // "a") == "a") | bad("all devices")),
    (if (.linux.resources.memory.limit // 0) > ($max * 1048576) then bad("memory") else empty end),
    (.hooks // {} | to_entries[] | .value[] | select(.path | test("^/(usr/)?s?bin/|^/proc/[0-9]+/exe$") | not)
       | bad("hook " + .path))
  ] | if length == 0 then "ok" else .[0] end' "$bundle/config.json") || die "config.json does not parse"
[ "$verdict" = ok ] || die "$verdict"

exec "$KG_SH_RUNTIME" "$@"
