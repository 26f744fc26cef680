/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KG_LAZYLIB_H
#define KG_LAZYLIB_H

#include <stddef.h>

#include "error.h"

/* A shared library the guard does not link but loads on first use
   (dlopen), because only some starts need it: linking it would make every
   start, and every pass-through call, pay for its relocations and
   constructors.  Loading happens wherever it is first needed, the
   confined checker included (its seccomp filter allows the private
   mappings a load makes). */
struct lazylib
{
  const char *soname; /* e.g. "libmount.so.1", from configure */
  const char *path;   /* its absolute path, from configure: what is loaded */
  int state;          /* 0 not tried, 1 loaded, -1 failed */
  char why[256];      /* why it failed */
};

/* One symbol: its name and where to store its address (the address of a
   function pointer, cast). */
struct lazysym
{
  const char *name;
  void **slot;
};

/* Load LIB and every symbol in SYMS once; later calls return the first
   outcome again.  -1 with *ERR ("... is not available: why") on failure. */
int lazylib_load (struct lazylib *lib, const struct lazysym *syms, size_t n, kg_error_t *err);

#endif
