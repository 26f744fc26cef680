# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/ci-hardening and tests/fuzz/run (POSIX sh).
#
# kg_build_dirs SRC BUILD: where to configure a second build of SRC.
# Sets KG_CONF_SRC (the tree whose configure runs) and KG_CONF_BUILD (the
# directory it runs in).  autoconf refuses an out-of-tree build of a
# source tree that is configured in place (as .ci/run builds), so such a
# tree is copied to BUILD/src, cleaned, and built there in place.
kg_build_dirs () {
  if [ -e "$1/config.status" ]; then
    echo "== $1 is configured in place; building a copy in $2/src"
    rm -rf "$2/src" && mkdir -p "$2/src" || return 1
    # build-aux matches build-*: copied on its own (autogen.sh filled it).
    (cd "$1" && tar --exclude=./build --exclude='./build-*' -cf - .) | (cd "$2/src" && tar -xf -) &&
      cp -a "$1/build-aux" "$2/src/" || return 1
    (cd "$2/src" && make distclean >/dev/null 2>&1)
    KG_CONF_SRC=$2/src
    KG_CONF_BUILD=$2/src
  else
    KG_CONF_SRC=$1
    KG_CONF_BUILD=$2
  fi
}
