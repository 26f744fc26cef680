/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hash of the guard's small hash sets. */
#ifndef KG_HASH_H
#define KG_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a of the N bytes at P: the hash of the guard's small hash sets. */
static inline uint32_t
kg_fnv1a (const void *p, size_t n)
{
  const unsigned char *b = p;
  uint32_t h = 2166136261u;

  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

#endif
