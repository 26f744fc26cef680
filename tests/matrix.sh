# SPDX-License-Identifier: GPL-2.0-or-later
# The engine matrix (sourced by tests/matrix-SUITE.test after tap.sh and
# lib.sh; POSIX sh): the guard built, and the C unit tests and the engine
# tests run, inside a Debian root of another suite (tests/debian-root),
# so that another glibc, json-c, containerd, Docker and runc are proven on
# this kernel.  The root gets a private mount namespace of its own (the
# root bound onto itself so that runc can pivot_root, proc, /sys, /dev);
# every daemon the tests start there is the tests' own and is stopped by
# them, and anything still running in the root afterwards is killed.  The
# guard's host state there is the run's own: /run is a tmpfs of the
# namespace's, and so is /var/lib/kata-guard (a root may serve two runs);
# the inner tests, one at a time, keep to that namespace (KG_PRIVATE_STATE,
# tests/lib.sh), whose processes matrix_kill_ns finds.  The
# root is entered with pivot_root, so that it is the namespace's whole
# file system, as a machine's is.
#
# matrix_run SUITE REQUIRED
#   REQUIRED=1: a root that cannot be made fails; 0: it is one SKIP line.
#   Each inner result comes out as one TAP line "SUITE: <inner line>".
#
# KG_MATRIX_SUITES (default "trixie sid"): the suites to run; another
# suite's test reports SKIP.  KG_MATRIX_TESTS: the inner tests (default
# below).  KG_MATRIX_KEEP=1: keep the inner tree and logs.

# The inner suite: every C unit test and the fuzz corpora replayed (they
# prove the C library and json-c: json-c 0.18 refuses four-byte UTF-8,
# which only the corpora showed), the decoder oracle (that json-c against
# the Go decoders of that suite), and the tests that run real engines.
# The package, Prometheus and failure-injection tests are about the build
# host, not the engines, and run once, outside.
MATRIX_TESTS_DEFAULT="tests/test-toml tests/test-config tests/test-report tests/test-kvm
  tests/test-trust tests/test-kata tests/test-options tests/test-egress tests/test-assets
  tests/test-policy tests/test-policy-mounts tests/test-policy-identity tests/test-policy-devices
  tests/test-policy-hooks tests/test-policy-resources tests/test-policy-labels
  tests/test-daemonjson tests/test-confine tests/test-goflag tests/test-output
  tests/test-exec tests/test-codec
  tests/wings/base tests/wings/parse tests/wings/families tests/wings/policy tests/wings/preflight
  tests/wings/privsep tests/wings/output tests/wings/start tests/wings/check tests/wings/verify
  tests/wings/register
  tests/cli.test tests/shim.test tests/policy.test tests/assets.test tests/egress.test
  tests/e2e.test tests/e2e-docker-shim.test tests/e2e-policy.test tests/e2e-install.test
  tests/install.test tests/containerd-dump.test tests/stress.test tests/kubernetes.test
  tests/loader.test tests/cri.test
  tests/e2e-podman.test tests/refdesign.test
  tests/fuzz/replay-toml tests/fuzz/replay-config tests/fuzz/replay-kata tests/fuzz/replay-policy
  tests/fuzz/replay-daemonjson tests/fuzz/replay-options tests/fuzz/replay-argv
  tests/fuzz/replay-status tests/fuzz/replay-checker tests/oracle.test tests/regex-oracle.test"

# matrix_kill_ns NS: every process still in the mount namespace NS (as
# readlink /proc/PID/ns/mnt shows it): what the inner tests left running.
matrix_kill_ns() {
  [ -n "$1" ] || return 0
  for sig in TERM KILL; do
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$1" ] && kill -s "$sig" "${p#/proc/}" 2>/dev/null
    done
    [ "$sig" = TERM ] && sleep 1
  done
}

matrix_run() {
  m_suite=$1 m_required=$2
  case " ${KG_MATRIX_SUITES-trixie sid} " in
    *" $m_suite "*) ;;
    *) skip_all "$m_suite is not in KG_MATRIX_SUITES" ;;
  esac
  kg_is_root || skip_all "needs root (debootstrap, mount namespaces, engines)"
  command -v debootstrap >/dev/null 2>&1 || skip_all "needs debootstrap"
  command -v unshare >/dev/null 2>&1 || skip_all "needs unshare (util-linux)"

  m_err=$(mktemp) || exit 1
  m_t0=$(date +%s)
  m_root=$("$KG_SRCDIR/tests/debian-root" "$m_suite" 2>"$m_err")
  m_rc=$?
  if [ $m_rc -ne 0 ]; then
    m_why=$(tr '\n' ' ' <"$m_err")
    rm -f "$m_err"
    if [ $m_rc -eq 77 ] && [ "$m_required" = 0 ]; then
      skip_all "no $m_suite root: $m_why"
    fi
    ok 1 "$m_suite: a Debian root ($m_why)"
    tap_done
    exit 1
  fi
  tap_note '# ' "$m_err"
  rm -f "$m_err"
  m_t1=$(date +%s)

  # The tree under test, as it is (uncommitted changes too), built from
  # scratch inside: only the guard is rebuilt on each run.
  # A directory of this run's own: two runs may share a root.
  m_name=kata-guard.$$
  m_src=$m_root/src/$m_name
  rm -rf "$m_src" && mkdir -p "$m_src" || exit 1
  if [ -d "$KG_SRCDIR/.git" ] && command -v git >/dev/null 2>&1; then
    (cd "$KG_SRCDIR" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) \
      | (cd "$m_src" && tar -xf -) || exit 1
  else
    (cd "$KG_SRCDIR" && tar --exclude='./build*' --exclude='*.o' -cf - .) | (cd "$m_src" && tar -xf -) || exit 1
    (cd "$m_src" && make distclean >/dev/null 2>&1)
  fi
  # A shim that answers shim API version 2 and serves task API v2, as
  # Kata's does: this host's containerd-shim-runc-v2 (containerd 1.x),
  # for the pods of tests/cri.test on a root whose own answers version 3.
  m_shim2=""
  if [ -x /usr/bin/containerd-shim-runc-v2 ] &&
    /usr/bin/containerd-shim-runc-v2 -v 2>/dev/null | grep -q 'Version: *v\{0,1\}1\.'; then
    cp /usr/bin/containerd-shim-runc-v2 "$m_src.shim-v2" && m_shim2=/src/$m_name.shim-v2
  fi
  m_tests=$(echo ${KG_MATRIX_TESTS:-$MATRIX_TESTS_DEFAULT})
  m_out=$m_src.out
  unshare -m --propagation private /bin/sh -c '
    r=$1 t=$2 n=$3
    readlink /proc/self/ns/mnt >"$r/src/$n.mntns"
    mount --bind "$r" "$r" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
      mount --rbind /dev "$r/dev" && mount -t tmpfs -o mode=0755 tmpfs "$r/run" &&
      mkdir -p -m 0700 "$r/var/lib/kata-guard" &&
      mount -t tmpfs -o mode=0700 tmpfs "$r/var/lib/kata-guard" || exit 1
    # The root becomes the namespace'"'"'s root (pivot_root, not chroot: a
    # chrooted runc exec does not reach a container'"'"'s mounts).
    mkdir -p "$r/.kg-old-root" && cd "$r" && pivot_root . .kg-old-root && cd / &&
      umount -l /.kg-old-root && rmdir /.kg-old-root || exit 1
    # A clean environment: an outer make passes its own TESTS and flags
    # down through MAKEFLAGS.
    exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 KG_CRI_SHIM_V2="$4" \
      KG_PRIVATE_STATE=yes /bin/sh -c "
      cd /src/\$1 && ./autogen.sh >/dev/null 2>&1 &&
      ./configure --enable-werror --sysconfdir=/etc >configure.log 2>&1 &&
      make -j2 >make.log 2>&1 && make -j1 check TESTS=\"\$0\" >check.log 2>&1
      rc=\$?; echo \"inner status \$rc\"; exit \$rc" "$t" "$n"
  ' sh "$m_root" "$m_tests" "$m_name" "$m_shim2" >"$m_out" 2>&1
  m_status=$?
  matrix_kill_ns "$(cat "$m_src.mntns" 2>/dev/null)"
  m_t2=$(date +%s)

  # What the root runs, for the note and the log.
  m_versions=$(chroot "$m_root" /bin/sh -c '
    echo "glibc $(ldd --version | head -n 1 | sed "s/.* //")," \
      "json-c $(dpkg-query -W -f "\${Version}" libjson-c5 2>/dev/null || dpkg-query -W -f "\${Version}" "libjson-c*" 2>/dev/null | head -c 20),"
    echo "containerd $(containerd --version | cut -d" " -f3), runc $(runc --version | head -n 1 | cut -d" " -f3),"
    echo "docker $(dockerd --version | sed "s/Docker version \([^,]*\),.*/\1/")"' 2>/dev/null | tr '\n' ' ')
  echo "# $m_suite: $m_versions"
  echo "# $m_suite: root $((m_t1 - m_t0)) s, build and tests $((m_t2 - m_t1)) s"
  # Which kvm the inner engine tests ran against (kg_kvm_pick's comment).
  for t in $m_tests; do cat "$m_src/${t%.test}.log" "$m_src/$t.log" 2>/dev/null; done |
    grep '^# kvm:' | sort -u | sed "s/^# /# $m_suite: /"

  m_n=0
  m_lines=$m_src.lines
  for t in $m_tests; do
    l=$m_src/$t.log
    [ -f "$l" ] || l=$m_src/${t%.test}.log
    if [ ! -f "$l" ]; then
      continue
    fi
    # The driver's lines: "PASS: tests/x.test 3 - what".
    # An inner "#" is text here, not a TAP directive.
    grep -E '^(PASS|FAIL|ERROR|SKIP|XFAIL|XPASS): ' "$l" | sed 's/#/\\#/g' >"$m_lines"
    while IFS= read -r line; do
      case $line in
        PASS:* | XFAIL:*) ok 0 "$m_suite: ${line#*: }" ;;
        SKIP:*) skip "$m_suite: ${line#*: }" ;;
        FAIL:* | ERROR:* | XPASS:*) ok 1 "$m_suite: ${line}" ;;
        *) continue ;;
      esac
      m_n=$((m_n + 1))
    done <"$m_lines"
  done
  if [ "$m_status" -ne 0 ] || [ "$m_n" -eq 0 ]; then
    ok 1 "$m_suite: the build and the inner suite finished (status $m_status, $m_n results)"
    for f in "$m_out" "$m_src/configure.log" "$m_src/make.log" "$m_src/check.log"; do
      [ -f "$f" ] && { echo "# ---- $f"; tail -n 30 "$f" | tap_note '# '; }
    done
    for t in $m_tests; do
      l=$m_src/$t.log
      [ -f "$l" ] || l=$m_src/${t%.test}.log
      if [ -f "$l" ] && grep -qE '^(FAIL|ERROR|XPASS): ' "$l"; then
        echo "# ---- $l"
        grep -vE '^(PASS|SKIP): ' "$l" | tail -n 60 | tap_note '# '
      fi
    done
  else
    ok 0 "$m_suite: the build and the inner suite finished ($m_n results)"
  fi
  # KG_MATRIX_KEEP=1 keeps the inner tree and its logs, for a look.
  [ -n "${KG_MATRIX_KEEP:-}" ] && echo "# kept $m_src" && return 0
  rm -rf "$m_src" "$m_src.out" "$m_src.lines" "$m_src.mntns" "$m_src.shim-v2"
}
