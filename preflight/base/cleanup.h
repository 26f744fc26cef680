/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cleanup attributes: a variable freed, closed or put when it goes out of
   scope, and the steal_* that hand its value out. */
#ifndef KG_CLEANUP_H
#define KG_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void
kg_free_ptr (void *p)
{
  free (*(void **) p);
}
static inline void
kg_close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
}
static inline void
kg_close_file (FILE **f)
{
  if (*f != NULL)
    fclose (*f);
}
#define cleanup_free __attribute__ ((cleanup (kg_free_ptr)))
#define cleanup_close __attribute__ ((cleanup (kg_close_fd)))
#define cleanup_file __attribute__ ((cleanup (kg_close_file)))

/* Hand a pointer or descriptor out of a cleanup variable. */
#define steal_pointer(pp)                                                                          \
  ({                                                                                               \
    __typeof__ (*(pp)) _p = *(pp);                                                                 \
    *(pp) = NULL;                                                                                  \
    _p;                                                                                            \
  })
#define steal_fd(fdp)                                                                              \
  ({                                                                                               \
    int _fd = *(fdp);                                                                              \
    *(fdp) = -1;                                                                                   \
    _fd;                                                                                           \
  })

#endif
