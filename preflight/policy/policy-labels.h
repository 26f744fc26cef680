/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What policy.labels (policy-labels.c) lends policy.confinement and runc
   exec's checks: the label grammar and [policy]'s lists of labels */
#ifndef KG_POLICY_LABELS_H
#define KG_POLICY_LABELS_H

#include "policy-int.h"

/* PROCESS's selinuxLabel (the label, or NULL when none or "") judged by
   [policy] selinux_types, a finding that ends in EFFECT when it is not
   one; its apparmorProfile by [policy] apparmor_profiles.  A start's
   process (policy.labels, policy.confinement) and runc exec's
   process.json alike. */
const char *process_label (const struct guard_config *cfg, struct jv *process, const char *effect,
                           struct policy_findings *f);
void process_apparmor (const struct guard_config *cfg, struct jv *process,
                       struct policy_findings *f);
bool selinux_context_judge (const char *label, const char *role, const char *const *types,
                            size_t n_types, const char *list, char *why, size_t size);

#endif
