/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

void
fuzz_fail (const char *file, int line, const char *what)
{
  fprintf (stderr, "%s:%d: guarantee broken: %s\n", file, line, what);
  abort ();
}

/* Harnesses that need setup define their own (libFuzzer calls it once). */
__attribute__ ((weak)) int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  return 0;
}
