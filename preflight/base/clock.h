/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Milliseconds on CLOCK_MONOTONIC: deadlines. */
#ifndef KG_CLOCK_H
#define KG_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
kg_monotonic_ms (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (int64_t) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

#endif
