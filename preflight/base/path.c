/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "path.h"

bool
kg_path_clean (const char *p)
{
  if (p[0] != '/' || p[1] == '\0')
    return false;
  for (const char *s = p; *s != '\0'; s++)
    if (s[0] == '/'
        && (s[1] == '/' || s[1] == '\0'
            || (s[1] == '.'
                && (s[2] == '/' || s[2] == '\0'
                    || (s[2] == '.' && (s[3] == '/' || s[3] == '\0'))))))
      return false;
  return true;
}
