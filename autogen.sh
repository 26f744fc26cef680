#!/bin/sh
# Generate ./configure from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
# The fuzz targets' variables, which Makefile.am includes (tests/fuzz/targets).
sh tests/fuzz/gen-am
autoreconf --force --install --warnings=all
# automake does not install its TAP driver by itself.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
