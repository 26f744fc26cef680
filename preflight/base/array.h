/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fixed array's length, and a lookup in a list of strings. */
#ifndef KG_ARRAY_H
#define KG_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

/* Whether S is one of the N strings of LIST. */
static inline bool
kg_strv_has (const char *const *list, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (list[i], s) == 0)
      return true;
  return false;
}

#endif
