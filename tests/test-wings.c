/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wings' layering, proven by the link: this program takes every
 * object of libshim.a and libpreflight.a (--whole-archive, Makefile.am)
 * and not libregister.a, so a reference from the start path or the checks
 * to anything of registration fails the build.
 */
#include "config.h"

#include "tap.h"

int
main (void)
{
  ok (true, "libshim.a and libpreflight.a link whole without libregister.a");
  return tap_done ();
}
