/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What policy.resources (policy-resources.c) lends runc update's check
   (policy-runc.c) */
#ifndef KG_POLICY_RESOURCES_H
#define KG_POLICY_RESOURCES_H

#include <stdint.h>

/* BYTES in MiB, rounded up. */
int64_t mib_ceil (int64_t bytes);

#endif
