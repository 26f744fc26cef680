/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Paths that a prefix test and the kernel read the same. */
#ifndef KG_PATH_H
#define KG_PATH_H

#include <stdbool.h>

/* P is absolute, not "/", and has no empty, "." or ".." component nor a
   trailing slash: what a prefix test on the string and the kernel's walk
   of it agree on. */
bool kg_path_clean (const char *p);

#endif
