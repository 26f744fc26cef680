/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wings' layering, proven by the link: tests/wings/NAME is this
 * program linked with every object of wing NAME and of the wings below it
 * (--whole-archive, Makefile.am, WING_NAME) and with no other wing's, so
 * that a call from a wing to one above it or beside it fails the build.
 */
#include "config.h"

#include <string.h>

#include "tap.h"

int
main (int argc, char **argv)
{
  const char *name = argc > 0 ? strrchr (argv[0], '/') : NULL;

  ok (true, "wing %s and the wings below it link whole without the others",
      name != NULL ? name + 1 : "?");
  return tap_done ();
}
