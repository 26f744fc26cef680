# Shell TAP helpers for tests/*.test (sourced; POSIX sh).
# Each test prints "ok N - name" / "not ok N - name"; tap_done prints the plan.
# ok, is and contains return 0 when the assertion held and 1 when it
# failed, so that `ok $? NAME || exit 1` stops a test whose setup failed
# and `ok $? NAME || sed ... LOG` shows a log only then (tests/tap.test).
tap_n=0
tap_fail=0

ok() { # ok CONDITION-EXIT-STATUS NAME...
  st=$1; shift
  tap_n=$((tap_n + 1))
  if [ "$st" -eq 0 ] 2>/dev/null; then
    echo "ok $tap_n - $*"
    return 0
  fi
  echo "not ok $tap_n - $*"
  tap_fail=$((tap_fail + 1))
  return 1
}

# tap_note PREFIX [FILE...]: each line of FILE (or of stdin) behind PREFIX
# ("# ", "#   | "), as TAP comments; the last line is ended even when the
# text was not (a refusal written without a newline, as the shim writes
# it), so that it never swallows the TAP line printed after it.
tap_note() {
  tn_p=$1
  shift
  awk -v p="$tn_p" '{ print p $0 }' "$@"
}

# show_log FILE: its tail as TAP comments (after a failure).
show_log() { tail -n 40 "$1" | tap_note '#   | '; }
# ok_log STATUS FILE NAME...: ok, and FILE's tail when it failed.
ok_log() {
  st=$1 log=$2
  shift 2
  ok "$st" "$@" || { show_log "$log"; return 1; }
}

# is GOT WANT NAME...
is() {
  got=$1; want=$2; shift 2
  if [ "$got" = "$want" ]; then ok 0 "$@"; else
    ok 1 "$@"
    echo "#   got '$got', want '$want'"
    return 1
  fi
}

# contains FILE STRING NAME...: FILE holds STRING (fixed string)
contains() {
  f=$1; s=$2; shift 2
  if grep -qF -- "$s" "$f"; then ok 0 "$@"; else
    ok 1 "$@"
    echo "#   '$s' not in $f:"
    tap_note '#   | ' "$f" | head -20
    echo
    return 1
  fi
}

skip() { # skip NAME... (one skipped assertion)
  tap_n=$((tap_n + 1))
  echo "ok $tap_n # SKIP $*"
}

skip_all() {
  echo "1..0 # SKIP $*"
  exit 0
}

tap_done() {
  echo "1..$tap_n"
  [ "$tap_fail" -eq 0 ]
}
