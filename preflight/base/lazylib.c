/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

#include "lazylib.h"

int
lazylib_load (struct lazylib *lib, const struct lazysym *syms, size_t n, kg_error_t *err)
{
  if (lib->state == 0)
    {
      /* By absolute path: a bare name is searched for along
         LD_LIBRARY_PATH, whose empty entries mean the working directory.
         RTLD_NODELETE: never unloaded (libraries register exit handlers). */
      void *h = dlopen (lib->path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

      lib->state = -1;
      if (h == NULL)
        {
          const char *e = dlerror ();

          snprintf (lib->why, sizeof lib->why, "cannot load %s: %s", lib->path,
                    e ? e : "unknown error");
        }
      else
        {
          size_t i;

          for (i = 0; i < n; i++)
            if ((*syms[i].slot = dlsym (h, syms[i].name)) == NULL)
              break;
          if (i < n)
            snprintf (lib->why, sizeof lib->why, "%s has no %s", lib->soname, syms[i].name);
          else
            lib->state = 1;
        }
    }
  if (lib->state < 0)
    return kg_error (err, 0, "%s", lib->why);
  return 0;
}
