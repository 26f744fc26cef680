/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What policy.capabilities (policy-devices.c) lends runc exec's check
   (policy-runc.c): capability names and [policy] capabilities */
#ifndef KG_POLICY_DEVICES_H
#define KG_POLICY_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/capability.h>

struct guard_config;

uint64_t allowed_caps (const struct guard_config *cfg);
bool cap_parse (const char *name, cap_value_t *v);
void cap_upper (cap_value_t v, char *out, size_t size);

#endif
